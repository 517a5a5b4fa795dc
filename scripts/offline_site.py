"""Sphinx extension that keeps the built book self-contained and its console clean.

Loaded from _config.yml (``sphinx.local_extensions``). It does five things:

1. loads ``vendor/mathjax-widgets-shim.js`` first on every page (ipywidgets 8 calls the
   MathJax 2 API; the shim forwards those calls to MathJax 3), ``vendor/book.css`` and
   ``vendor/book.js`` (saved widgets shown disabled with a note; kernel-free charts);
2. removes duplicated inline scripts from each page (sphinx-thebe 0.3.1 emits its inline
   ``const THEBE_JS_URL = ...`` twice under Sphinx 7.4, which a browser reports as a
   SyntaxError);
3. after the build, rewrites links that notebook outputs carry to CDNs (matplotlib's
   ``to_jshtml()`` links the Font Awesome 4 stylesheet from a CDN) to the copies that
   ``scripts/fetch_assets.sh`` placed under ``_static/vendor/``, and then warns about every
   remaining script, stylesheet, image or iframe that is loaded from outside the site. With
   ``--warningiserror`` that warning fails the build. It also stores the frames of every
   ``to_jshtml`` animation on the pages as palette PNGs (about three times smaller);
4. keeps the site light and its downloads useful: removes source maps (``*.map``), the ttf
   copies of the theme's Font Awesome webfonts (browsers load the woff2 ones) and the
   theme's message catalogues (``_static/locales``, read by Sphinx at build time, never by a
   browser) from the output, and replaces each notebook under ``_sources/`` (what the page's
   download button offers) by the notebook executed during the build, with its outputs, from
   myst-nb's ``jupyter_execute`` folder. Two kinds of output are left out of the download, with
   a note in their place: saved widgets (they need the kernel that made them; rerun the cell)
   and any single output above ``DOWNLOAD_OUTPUT_LIMIT`` bytes (the animations' frames; rerun
   the cell), so that the downloads do not double the weight of the site;
5. registers the bibliography style ``authoryear`` (``bibtex_default_style``): the entries of
   the bibliography page are labelled like the citations in the text, "Hardt & Ma 2016",
   "Li et al. 2016", instead of pybtex's alpha labels ("HM16").
"""

from __future__ import annotations

import re
from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)

# CDN URL prefix (regex) -> path of the local copy, relative to the html output folder.
CDN_REWRITES = {
    r"https?://(?:maxcdn|stackpath)\.bootstrapcdn\.com/font-awesome/[0-9.]+/css/font-awesome(?:\.min)?\.css":
        "_static/vendor/font-awesome/css/font-awesome.min.css",
}

# An attribute that makes the browser fetch something when the page loads.
_EXTERNAL_LOAD = re.compile(
    r"""<(script|img|iframe|source|audio|video|embed)\b[^>]*?\bsrc\s*=\s*["'](https?:)?//[^"']+["']"""
    r"""|<link\b[^>]*?\brel\s*=\s*["'](?:stylesheet|preload|icon|modulepreload)["'][^>]*?\bhref\s*=\s*["'](?:https?:)?//[^"']+["']"""
    r"""|<link\b[^>]*?\bhref\s*=\s*["'](?:https?:)?//[^"']+["'][^>]*?\brel\s*=\s*["'](?:stylesheet|preload|icon|modulepreload)["']""",
    re.IGNORECASE,
)
_URL = re.compile(r"""(?:src|href)\s*=\s*["']((?:https?:)?//[^"']+)["']""", re.IGNORECASE)

DOWNLOAD_OUTPUT_LIMIT = 100_000
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

SHIM = "vendor/mathjax-widgets-shim.js"
CSS = "vendor/book.css"
JS = "vendor/book.js"


def _dedupe_inline_scripts(app, pagename, templatename, context, doctree):
    """Drop the second and later copies of identical inline scripts on a page."""
    scripts = context.get("script_files")
    if not scripts:
        return
    seen = set()
    kept = []
    for js in scripts:
        body = getattr(js, "attributes", {}).get("body") if hasattr(js, "attributes") else None
        if body:
            if body in seen:
                continue
            seen.add(body)
        kept.append(js)
    scripts[:] = kept


def _lighter_frames(html: str) -> str:
    """Animation frames (``to_jshtml`` players, whoever made them) as palette PNGs: the same
    picture in about a third of the bytes (see ``resnet_nb.experiments.views.palette_frames``)."""
    from resnet_nb.experiments.views import palette_frames

    return palette_frames(html)


def _rewrite_and_check(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    external = []
    for page in sorted(outdir.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        depth = len(page.relative_to(outdir).parts) - 1
        prefix = "../" * depth
        new = text
        for pattern, local in CDN_REWRITES.items():
            new = re.sub(pattern, prefix + local, new)
        if "anim-slider" in new and "data:image/png;base64," in new:
            new = _lighter_frames(new)
        if new != text:
            page.write_text(new, encoding="utf-8")
        for match in _EXTERNAL_LOAD.finditer(new):
            url = _URL.search(match.group(0))
            external.append((page.relative_to(outdir), url.group(1) if url else match.group(0)))
    for page, url in external:
        logger.warning(
            "[offline_site] %s loads %s from outside the site; serve a local copy "
            "(scripts/fetch_assets.sh) or add a rewrite to CDN_REWRITES", page, url,
        )


def _register_authoryear_style():
    """pybtex label and formatting styles ``authoryear``: labels "Last 2016", "A & B 2016",
    "A et al. 2016", with a, b, ... appended to the year when two entries would share a label."""
    from pybtex.plugin import register_plugin
    from pybtex.style.formatting.unsrt import Style as UnsrtStyle
    from pybtex.style.labels import BaseLabelStyle

    def last(person):
        return " ".join(person.prelast_names + person.last_names).replace("{", "").replace("}", "")

    class AuthorYearLabels(BaseLabelStyle):
        def format_labels(self, sorted_entries):
            from collections import Counter

            labels = list(self._plain(sorted_entries))
            total, seen = Counter(labels), Counter()
            for label in labels:
                if total[label] > 1:
                    seen[label] += 1
                    label = label + "abcdefghijklmnopqrstuvwxyz"[seen[label] - 1]
                yield label

        def _plain(self, sorted_entries):
            for entry in sorted_entries:
                people = entry.persons.get("author") or entry.persons.get("editor") or []
                names = [last(p) for p in people]
                if not names:
                    who = entry.fields.get("key", entry.key)
                elif len(names) == 1:
                    who = names[0]
                elif len(names) == 2:
                    who = f"{names[0]} & {names[1]}"
                else:
                    who = f"{names[0]} et al."
                yield f"{who} {entry.fields.get('year', 'n.d.')}"

    class AuthorYearStyle(UnsrtStyle):
        default_label_style = "authoryear"
        default_sorting_style = "author_year_title"

    register_plugin("pybtex.style.labels", "authoryear", AuthorYearLabels, force=True)
    register_plugin("pybtex.style.formatting", "authoryear", AuthorYearStyle, force=True)


def _note(text):
    return {"output_type": "display_data", "metadata": {}, "data": {"text/markdown": text, "text/plain": text}}


def _downloadable(text: str) -> str:
    """An executed notebook without saved widgets and without outputs too large to download."""
    import json

    nb = json.loads(text)
    nb.get("metadata", {}).pop("widgets", None)
    for cell in nb.get("cells", []):
        outputs = []
        for out in cell.get("outputs", []):
            if WIDGET_VIEW in out.get("data", {}):
                plain = "".join(out["data"].get("text/plain", ""))
                if re.search(r"\d+%\|", plain):  # a tqdm progress bar: nothing to keep
                    continue
                outputs.append(_note("*Interactive widget: it needs a running kernel. Run this cell to use it.*"))
            elif len(json.dumps(out)) > DOWNLOAD_OUTPUT_LIMIT:
                outputs.append(_note("*This output (an animation) is left out of the download to keep it small. "
                                     "Run this cell to see it.*"))
            else:
                outputs.append(out)
        if "outputs" in cell:
            cell["outputs"] = outputs
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def _lighten_and_ship_outputs(app, exception):
    """Drop files no browser loads; let the download button offer the executed notebooks."""
    if exception is not None or app.builder.format != "html":
        return
    import shutil

    outdir = Path(app.outdir)
    static = outdir / "_static"
    for m in static.rglob("*.map"):
        m.unlink()
    # The theme's Font Awesome webfonts come as woff2 and ttf; every current browser takes the
    # woff2 (the ttf is only a fallback the browser never requests), so the ttf copies go.
    for ttf in (static / "vendor" / "fontawesome").rglob("*.ttf"):
        ttf.unlink()
    shutil.rmtree(static / "locales", ignore_errors=True)
    executed = outdir.parent / "jupyter_execute"
    sources = outdir / "_sources"
    replaced = 0
    for nb in sorted(sources.rglob("*.ipynb")):
        done = executed / nb.relative_to(sources)
        if done.is_file():
            nb.write_text(_downloadable(done.read_text(encoding="utf-8")), encoding="utf-8")
            replaced += 1
    logger.info("[offline_site] source maps and locales removed; %d downloadable notebooks carry "
                "their outputs", replaced)


class _SkipVegaLiteMime:
    """Drop myst-nb's warning about the Vega-Lite mime type, and only that one.

    ``resnet_nb.experiments.views.Chart`` outputs a Vega-Lite spec twice: as ``text/html`` (what
    the site shows; book.js renders it) and as ``application/vnd.vegalite.v6+json`` (what
    JupyterLab renders). myst-nb parses every mime type of an output and warns about the one it
    has no renderer for, which fails a build with warnings as errors, although the page uses
    the HTML one."""

    def filter(self, record):
        return "unknown output mime type: application/vnd.vegalite" not in record.getMessage()


def _quiet_vegalite(app, config):
    import logging

    for handler in logging.getLogger("sphinx").handlers:
        # First in the list: Sphinx's warning-is-error filter raises inside filter().
        handler.filters.insert(0, _SkipVegaLiteMime())


def setup(app):
    _register_authoryear_style()
    app.connect("config-inited", _quiet_vegalite)
    app.add_js_file(SHIM, priority=1)
    app.add_css_file(CSS)
    app.add_js_file(JS, loading_method="defer")
    app.connect("build-finished", _lighten_and_ship_outputs)
    app.connect("html-page-context", _dedupe_inline_scripts)
    app.connect("build-finished", _rewrite_and_check)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
