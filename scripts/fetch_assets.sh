#!/usr/bin/env bash
# Fetch the JavaScript, CSS and fonts that the built site would otherwise load from CDNs,
# so that _build/html works offline. Everything comes from the npm registry with `npm pack`
# (the ordinary client, pinned versions) into .cache/npm/, and is unpacked into
# .cache/site-static/vendor/. _config.yml lists .cache/site-static in html_static_path, so the
# files end up in _build/html/_static/vendor/. Nothing fetched is committed (.cache/ is in
# .gitignore). The hand-written files in scripts/site_static/ are copied there too.
#
# Usage: scripts/fetch_assets.sh          (idempotent; re-run is a no-op when up to date)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="$ROOT/.cache/npm"
DEST="$ROOT/.cache/site-static/vendor"

# package@version  ->  folder under .cache/site-static/vendor
# Only what the pages load is copied (the site must stay light: see tests/browser/test_site.py):
# MathJax's tex-chtml component, its woff2 fonts and the few TeX extensions its autoloader may
# request (no widget manager: saved widgets become snapshots at build time, see
# scripts/offline_site.py); Font Awesome's css and woff2/woff fonts; vega, vega-lite and vega-embed for
# the kernel-free charts of resnet_nb/experiments/views.py (Altair 6 emits Vega-Lite 6 specs);
# ml-matrix's browser build for the live explorers (scripts/site_static/live.js).
PACKAGES=(
  "mathjax@3.2.2 mathjax"
  "font-awesome@4.7.0 font-awesome"
  "vega@6.2.0 vega"
  "vega-lite@6.4.1 vega-lite"
  "vega-embed@7.1.0 vega-embed"
  "ml-matrix@6.15.1 ml-matrix"
)
# TeX extensions that MathJax's autoloader fetches on first use of one of their macros
# (\boldsymbol, \cancel, \color, \bbox, \bra/\ket, \enclose, \href/\class, \unicode). The
# book's macros (base, ams, newcommand, configmacros) are inside tex-chtml.js itself.
MATHJAX_EXTENSIONS=(boldsymbol cancel color bbox braket enclose html unicode)

copy_own_files() {
  mkdir -p "$DEST"
  cp "$ROOT"/scripts/site_static/* "$DEST/"
}

STAMP="$DEST/.stamp"
WANT="$(printf '%s\n' "layout 3" "${PACKAGES[@]}" "${MATHJAX_EXTENSIONS[@]}")"
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$WANT" ]]; then
  copy_own_files
  echo "fetch_assets: .cache/site-static/vendor is up to date"
  exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
  echo "fetch_assets: npm is missing; install it with: apt-get install -y nodejs npm" >&2
  exit 1
fi

mkdir -p "$CACHE"
rm -rf "$DEST"
mkdir -p "$DEST"

for entry in "${PACKAGES[@]}"; do
  spec="${entry% *}"
  folder="${entry#* }"
  # npm pack names the tarball after the package: @scope/name@v -> scope-name-v.tgz
  tarball="$(echo "${spec#@}" | sed -e 's#/#-#' -e 's#@#-#').tgz"
  if [[ ! -f "$CACHE/$tarball" ]]; then
    echo "fetch_assets: npm pack $spec"
    (cd "$CACHE" && npm pack --silent "$spec" >/dev/null 2>&1) || {
      echo "fetch_assets: 'npm pack $spec' failed (is the npm registry reachable?)" >&2
      exit 1
    }
  fi
  [[ -f "$CACHE/$tarball" ]] || { echo "fetch_assets: expected $CACHE/$tarball" >&2; exit 1; }
  tmp="$(mktemp -d)"
  tar xzf "$CACHE/$tarball" -C "$tmp"
  mkdir -p "$DEST/$folder"
  case "$folder" in
    mathjax)
      # tex-chtml.js = startup + TeX input (base, ams, newcommand, ...) + CommonHTML output +
      # menu; the CommonHTML output loads its woff2 fonts from output/chtml/fonts/woff-v2.
      es5="$tmp/package/es5"
      mkdir -p "$DEST/$folder/es5/output/chtml/fonts" "$DEST/$folder/es5/input/tex/extensions"
      cp "$es5/tex-chtml.js" "$DEST/$folder/es5/"
      cp -r "$es5/output/chtml/fonts/woff-v2" "$DEST/$folder/es5/output/chtml/fonts/"
      for ext in "${MATHJAX_EXTENSIONS[@]}"; do
        cp "$es5/input/tex/extensions/$ext.js" "$DEST/$folder/es5/input/tex/extensions/"
      done
      ;;
    font-awesome)
      mkdir -p "$DEST/$folder/css" "$DEST/$folder/fonts"
      cp "$tmp/package/css/font-awesome.min.css" "$DEST/$folder/css/"
      cp "$tmp/package/fonts/fontawesome-webfont.woff2" "$tmp/package/fonts/fontawesome-webfont.woff" \
        "$DEST/$folder/fonts/"
      ;;
    vega|vega-lite|vega-embed)
      cp "$tmp/package/build/$folder.min.js" "$DEST/$folder/"
      ;;
    ml-matrix)
      cp "$tmp/package/matrix.umd.js" "$tmp/package/LICENSE" "$DEST/$folder/"
      ;;
  esac
  cp "$tmp/package/package.json" "$DEST/$folder/package.json"
  rm -rf "$tmp"
done

# Files that must exist for the site to work offline; fail loudly if a package changed layout.
for f in mathjax/es5/tex-chtml.js mathjax/es5/output/chtml/fonts/woff-v2/MathJax_Main-Regular.woff \
         font-awesome/css/font-awesome.min.css font-awesome/fonts/fontawesome-webfont.woff2 \
         vega/vega.min.js vega-lite/vega-lite.min.js vega-embed/vega-embed.min.js \
         ml-matrix/matrix.umd.js; do
  [[ -s "$DEST/$f" ]] || { echo "fetch_assets: missing $DEST/$f" >&2; exit 1; }
done
copy_own_files
echo "$WANT" > "$STAMP"
echo "fetch_assets: assets in $DEST ($(du -sh "$DEST" | cut -f1))"
