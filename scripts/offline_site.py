"""Sphinx extension that keeps the built book self-contained and its console clean.

Loaded from _config.yml (``sphinx.local_extensions``). It does five things:

1. loads ``vendor/book.css`` and ``vendor/book.js`` (kernel-free charts) on every page, and
   replaces each saved ipywidget by a snapshot: the settings it was run with, one line on how
   to make it live, and the figures it showed (``static_widgets``), so that no page needs the
   ipywidgets HTML manager;
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
    (
        r"https?://(?:maxcdn|stackpath)\.bootstrapcdn\.com/font-awesome/[0-9.]+/css/font-awesome(?:\.min)?\.css"
    ): "_static/vendor/font-awesome/css/font-awesome.min.css",
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


# --- saved widgets as snapshots ------------------------------------------------------------
# On the static site no Python runs, so a saved ipywidget cannot change anything. Rendering its
# saved state needs the ipywidgets HTML manager (0.92 MB gzipped on every page that has one),
# which would put three experiment pages above the 3 MB target for a view that cannot move.
# Instead each saved view becomes, at build time, plain HTML: one line naming the settings it
# was run with and how to make it live, and the outputs it showed (its figures), exactly as
# saved. The widget state and the manager never reach the page.
_STATE = re.compile(r'<script type="application/vnd\.jupyter\.widget-state\+json">.*?</script>\s*', re.S)
_VIEW = re.compile(r'<script type="application/vnd\.jupyter\.widget-view\+json">(.*?)</script>', re.S)
WIDGET_NOTE = (
    "Saved view of a control that runs Python; it was run with {settings}. On this static "
    "page it cannot change: open the chapter with a live kernel (JupyterLab, Binder or "
    "Colab: the rocket button at the top of the page) to move it."
)


def _setting(model: dict) -> str | None:
    """``description = value`` of one control as the reader saw it, or None for a non-control."""
    s = model.get("state", {})
    name = model.get("model_name", "")
    labels = s.get("_options_labels")
    if name.endswith(
        (
            "BoxModel",
            "OutputModel",
            "LayoutModel",
            "StyleModel",
            "ButtonModel",
            "HTMLModel",
            "HTMLMathModel",
            "LabelModel",
            "ProgressModel",
        )
    ):
        return None
    if labels is not None and "index" in s:
        idx = s["index"]
        if isinstance(idx, list):
            picked = [labels[i] for i in idx]
            value = f"{picked[0]} to {picked[-1]}" if "Range" in name and picked else ", ".join(picked) or "none"
        else:
            value = labels[idx] if idx is not None else "none"
    elif "value" in s:
        v = s["value"]
        if isinstance(v, bool):
            value = "on" if v else "off"
        elif isinstance(v, list):
            value = " to ".join(f"{x:g}" if isinstance(x, float) else str(x) for x in v)
        elif isinstance(v, float):
            value = f"{v:g}"
        else:
            value = str(v)
    else:
        return None
    return f"{s.get('description') or name.removesuffix('Model')} = {value}"


def _output_html(out: dict) -> str:
    import html

    if out.get("output_type") == "stream":
        return f"<pre>{html.escape(''.join(out.get('text', '')))}</pre>"
    data = out.get("data", {})
    if "image/png" in data:
        alt = html.escape("".join(data.get("text/plain", "figure")), quote=True)
        return f'<img src="data:image/png;base64,{"".join(data["image/png"]).strip()}" alt="{alt}">'
    if "image/svg+xml" in data:
        return "".join(data["image/svg+xml"])
    if "text/html" in data:
        return "".join(data["text/html"])
    if "text/plain" in data:
        return f"<pre>{html.escape(''.join(data['text/plain']))}</pre>"
    return ""


def _snapshot(model_id: str, models: dict) -> tuple[list[str], list[str]]:
    """(settings, output HTML) of a saved view and everything below it."""
    import html

    model = models.get(model_id)
    if model is None:
        return [], []
    s = model.get("state", {})
    name = model.get("model_name", "")
    settings, outputs = [], []
    if name == "OutputModel":
        outputs += [h for h in (_output_html(o) for o in s.get("outputs", [])) if h]
    elif name in ("HTMLModel", "HTMLMathModel") and s.get("value"):
        outputs.append(f"<div>{s['value']}</div>")
    elif name == "LabelModel" and s.get("value"):
        outputs.append(f"<p>{html.escape(s['value'])}</p>")
    else:
        one = _setting(model)
        if one:
            settings.append(one)
    for child in s.get("children", []):
        sub_settings, sub_outputs = _snapshot(str(child).removeprefix("IPY_MODEL_"), models)
        settings += sub_settings
        outputs += sub_outputs
    return settings, outputs


def static_widgets(page: str) -> str:
    """Every saved widget view on ``page`` replaced by its snapshot; the widget state removed.

    A view that shows nothing (a progress bar closed at the end of its loop) leaves nothing."""
    import html
    import json

    states = _STATE.findall(page)
    if not states and not _VIEW.search(page):
        return page
    models = {}
    for block in states:
        body = re.sub(r"^<script[^>]*>|</script>\s*$", "", block.strip())
        models.update(json.loads(body).get("state", {}))

    def replace(match):
        view = json.loads(match.group(1))
        settings, outputs = _snapshot(view.get("model_id", ""), models)
        if not settings and not outputs:
            return ""
        note = ""
        if settings:
            listed = "; ".join(html.escape(x) for x in settings)
            note = f'<p class="rn-widget-note">{html.escape(WIDGET_NOTE).replace("{settings}", listed)}</p>'
        return f'<div class="rn-widget-snapshot">{note}{"".join(outputs)}</div>'

    return _VIEW.sub(replace, _STATE.sub("", page))


def _lighter_frames(html: str) -> str:
    """Animation frames (``to_jshtml`` players, whoever made them) as palette PNGs: the same
    picture in about a third of the bytes (see ``resnet_nb.book.views.palette_frames``)."""
    from resnet_nb.book.views import palette_frames

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
        if "application/vnd.jupyter.widget-" in new:
            new = static_widgets(new)
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
            "(scripts/fetch_assets.sh) or add a rewrite to CDN_REWRITES",
            page,
            url,
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
                outputs.append(
                    _note(
                        "*This output (an animation) is left out of the download to keep it small. "
                        "Run this cell to see it.*"
                    )
                )
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
    logger.info(
        "[offline_site] source maps and locales removed; %d downloadable notebooks carry their outputs", replaced
    )


class _SkipVegaLiteMime:
    """Drop myst-nb's warning about the Vega-Lite mime type, and only that one.

    ``resnet_nb.book.views.Chart`` outputs a Vega-Lite spec twice: as ``text/html`` (what
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
    app.add_css_file(CSS)
    app.add_js_file(JS, loading_method="defer")
    app.connect("build-finished", _lighten_and_ship_outputs)
    app.connect("html-page-context", _dedupe_inline_scripts)
    app.connect("build-finished", _rewrite_and_check)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
