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

# package@version  ->  folder under _vendor/vendor
PACKAGES=(
  "mathjax@3.2.2 mathjax"
  "@jupyter-widgets/html-manager@1.0.15 html-manager"
  "requirejs@2.3.8 requirejs"
  "font-awesome@4.7.0 font-awesome"
)

copy_own_files() {
  mkdir -p "$DEST"
  cp "$ROOT"/scripts/site_static/* "$DEST/"
}

STAMP="$DEST/.stamp"
WANT="$(printf '%s\n' "${PACKAGES[@]}")"
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
      # The es5 folder holds the combined component, its fonts and lazily loaded extensions.
      cp -r "$tmp/package/es5" "$DEST/$folder/"
      ;;
    html-manager)
      # embed-amd.js needs require.js; the hashed font files are loaded relative to it.
      find "$tmp/package/dist" -maxdepth 1 -type f ! -name '*.map' ! -name 'embed.js*' \
        -exec cp {} "$DEST/$folder/" \;
      ;;
    requirejs)
      cp "$tmp/package/require.js" "$DEST/$folder/"
      ;;
    font-awesome)
      cp -r "$tmp/package/css" "$tmp/package/fonts" "$DEST/$folder/"
      ;;
  esac
  cp "$tmp/package/package.json" "$DEST/$folder/package.json"
  rm -rf "$tmp"
done

# Files that must exist for the site to work offline; fail loudly if a package changed layout.
for f in mathjax/es5/tex-mml-chtml.js html-manager/embed-amd.js requirejs/require.js \
         font-awesome/css/font-awesome.min.css font-awesome/fonts/fontawesome-webfont.woff2; do
  [[ -s "$DEST/$f" ]] || { echo "fetch_assets: missing $DEST/$f" >&2; exit 1; }
done
copy_own_files
echo "$WANT" > "$STAMP"
echo "fetch_assets: assets in $DEST ($(du -sh "$DEST" | cut -f1))"
