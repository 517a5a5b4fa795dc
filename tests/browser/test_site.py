"""Browser test of the built book: every page in _toc.yml, loaded in headless Chromium.

The site in ``_build/html`` (or the folder named by ``SITE_DIR``) is served on 127.0.0.1 by a
local server that gzips text files as GitHub Pages does. Each page is loaded in a fresh browser
context (empty cache) over a simulated 10 Mbit/s link (CDP network emulation). For each page
the test fails on:

* weight: more than ``PAGE_LIMIT_MB`` (3 MB) transferred, or a load event later than
  ``LOAD_LIMIT_S`` (20 s) at 10 Mbit/s (both printed for every page in the terminal summary and in
  ``_build/screenshots/report.txt``); :func:`test_site_weight` fails when the whole site is
  larger than ``SITE_LIMIT_MB`` (20 MB) on disk;
* results that do not fit: an output, code cell, display equation, table, check result, chart
  or figure that runs past the text column or needs horizontal scrolling, at 1280 px and at
  1920 px (an element inside ``.rn-scroll`` may scroll: the chapter says so);
* anything raw: TeX source in the prose (``$``, ``\\frac``, any ``\\command``), stray Markdown
  or MyST syntax (``**``, ````` ``` `````, ``{prf:``, ``:label:``, ``{eval}``, a role shown as
  text), MathJax left untypeset or an error box, an unresolved reference ``??``, ``NaN`` shown
  in a table cell;
* anything blank: an output taller than 30 px with nothing visible in it (a hidden progress
  bar's container, an empty widget);
* dead controls: every enabled control in the page's content is driven and the view must
  change (``to_jshtml`` players: step button and slider; charts of
  ``resnet_nb.book.views.explore``: every drop-down menu and check box); saved ipywidgets, which need
  a kernel, must have become snapshots (no control, a note with the settings they were run
  with and how to make them live, and their figure) and no page may load a widget manager; an
  enabled control the test does not know how to drive fails the test;
* a console error, an uncaught page error, a failed request, a request that leaves the served
  origin (the book must work offline; such requests are also blocked), an image that did not
  decode, a theorem-like or exercise block without a number.

Screenshots: the whole of every page as viewport screenshots at 1280 x 900 in
``_build/screenshots/<page>__NN.png`` (top to bottom), plus each animation, chart and widget
view. The test is skipped only when the site has not been built. Run it with
``make test-browser`` or ``pytest tests/browser``.
"""

from __future__ import annotations

import gzip
import http.server
import mimetypes
import os
import re
import threading
import time
from pathlib import Path
from typing import ClassVar

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(os.environ.get("SITE_DIR", ROOT / "_build" / "html")).resolve()
TOC = Path(os.environ.get("SITE_TOC", ROOT / "_toc.yml"))
SHOTS = Path(os.environ.get("SCREENSHOT_DIR", ROOT / "_build" / "screenshots"))
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]
VIEWPORT = {"width": 1280, "height": 900}
WIDE = {"width": 1920, "height": 1080}
TIMEOUT_MS = 60_000
# Targets (issue 14): the whole site on disk, each page transferred on a cold cache.
SITE_LIMIT_MB = float(os.environ.get("SITE_LIMIT_MB", "20"))
PAGE_LIMIT_MB = float(os.environ.get("PAGE_LIMIT_MB", "3"))
# Pages allowed above the 3 MB target, with the ceiling they must stay under: none since the
# saved widgets became snapshots (2026-11-23; the HTML manager they needed weighed 0.92 MB
# gzipped and put exp_dynamics at 3.64 MB, exp_learning at 3.13 MB).
KNOWN_OVER_TARGET_MB: dict[str, float] = {}
# The load event at 10 Mbit/s is reported for every page. 3 MB take 2.4 s on the link; the rest is
# the page's own scripts, which on a busy 2-core CI machine vary by several seconds, so the
# limit only catches a page that is far off (the weight limit is the target).
LOAD_LIMIT_S = float(os.environ.get("LOAD_LIMIT_S", "20"))
LINK = {"offline": False, "latency": 20, "downloadThroughput": 10e6 / 8, "uploadThroughput": 10e6 / 8}
MAX_SHOTS_PER_PAGE = int(os.environ.get("MAX_SHOTS_PER_PAGE", "80"))
MB = 1e6

# What every page measured, printed by conftest.py's terminal summary and written to report.txt.
REPORT: dict[str, dict] = {}


def toc_files(toc_path: Path) -> list[str]:
    """Return the document names of _toc.yml in reading order (root first)."""
    toc = yaml.safe_load(toc_path.read_text(encoding="utf-8"))
    names = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                names.append(entry["file"])
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    walk(toc.get("sections"))
    return [re.sub(r"\.(md|ipynb)$", "", name) for name in names]


PAGES = ["index"] + toc_files(TOC)

# GitHub Pages compresses these; images and fonts are sent as they are.
GZIP_TYPES = (".html", ".js", ".css", ".json", ".svg", ".txt", ".ipynb", ".xml", ".map", ".inv")


class _GzipHandler(http.server.SimpleHTTPRequestHandler):
    """Static files, gzipped for clients that accept it (like GitHub Pages)."""

    _cache: ClassVar[dict] = {}
    _lock = threading.Lock()

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        path = Path(self.translate_path(self.path))
        if path.is_file() and path.suffix in GZIP_TYPES and "gzip" in self.headers.get("Accept-Encoding", ""):
            key = (str(path), path.stat().st_mtime_ns)
            with self._lock:
                body = self._cache.get(key)
                if body is None:
                    body = gzip.compress(path.read_bytes(), compresslevel=6)
                    self._cache[key] = body
            self.send_response(200)
            self.send_header("Content-Type", mimetypes.guess_type(path.name)[0] or "application/octet-stream")
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()


# The fixtures site_url, browser and screenshot_dir are in conftest.py (one Chromium per run).


# JavaScript run in the page ------------------------------------------------------------

WAIT_FOR_MATHJAX = """
async () => {
  if (!window.MathJax || !window.MathJax.startup || !window.MathJax.startup.promise) {
    return false;
  }
  await window.MathJax.startup.promise;
  return true;
}
"""

# Text of the page body a reader sees as prose: code, scripts and typeset math removed.
PROSE_TEXT = """
() => {
  const main = document.querySelector('main') || document.body;
  const copy = main.cloneNode(true);
  copy.querySelectorAll('pre, code, script, style, mjx-container, .highlight, '
                        + 'textarea, .output.text_plain, .cell_output pre, .rn-vega, '
                        + '.headerlink, .copybtn')
      .forEach(e => e.remove());
  return copy.textContent;
}
"""

MATHJAX_ERRORS = """
() => Array.from(document.querySelectorAll('mjx-merror')).map(e =>
  (e.getAttribute('data-mjx-error') || '') + ' in ' +
  ((e.closest('mjx-container') || e).textContent || '').slice(0, 80))
"""

BROKEN_IMAGES = """
async () => {
  const imgs = Array.from(document.images);
  imgs.forEach(i => { i.loading = 'eager'; });
  await Promise.all(imgs.map(i => i.decode().catch(() => null)));
  return imgs.filter(i => i.getAttribute('src') && !(i.complete && i.naturalWidth > 0))
             .map(i => i.currentSrc || i.getAttribute('src').slice(0, 120));
}
"""

UNNUMBERED_BLOCKS = """
() => {
  // sphinx-proof: theorem-like blocks are "proof <kind> admonition" with a title holding
  // "<Kind> <number>" (or the paper's own name, with :nonumber:); a plain {prf:proof} is
  // "proof admonition" with no title. sphinx-exercise: "exercise admonition" titled
  // "Exercise <number>", and "solution admonition" titled "Solution to Exercise <number>".
  const blocks = Array.from(document.querySelectorAll('div.proof, div.exercise, div.solution'));
  const bad = [];
  for (const b of blocks) {
    const plainProof = b.classList.contains('proof') && b.classList.length === 2;
    if (plainProof) continue;
    const title = b.querySelector('.admonition-title');
    const text = title ? title.textContent.trim() : '';
    const number = title ? title.querySelector('.caption-number') : null;
    if (!text) {
      bad.push(b.className + ': no title');
    } else if (number && !/\\d/.test(number.textContent) && !/\\(.+\\)/.test(text)) {
      // an unnumbered box (:nonumber:) must carry its name, e.g. "Lemma (Lemma 2.4 of Hardt & Ma)"
      bad.push(b.className + ': ' + text);
    } else if (b.classList.contains('solution') && !/\\d/.test(text)) {
      bad.push('solution without its exercise number: ' + text);
    }
  }
  return {count: blocks.length, bad: bad};
}
"""

# Every result-like element that must fit the text column. An element fails when it reaches
# past the column's right edge, when its own content scrolls sideways (scrollWidth beyond its
# box, for boxes that scroll or clip) or when it reaches past the box of the nearest ancestor
# that scrolls (so that the reader must scroll that one). Elements inside .rn-scroll may scroll.
OVERFLOW = """
() => {
  const col = document.querySelector('article.bd-article') || document.querySelector('main');
  const cr = col.getBoundingClientRect();
  const kinds = [
    ['output', '.cell_output > .output, .cell_output > div, .cell_output pre'],
    ['code cell', '.cell_input pre, .cell_input div.highlight'],
    ['code block', 'article div.highlight pre'],
    ['equation', 'mjx-container[display="true"], div.math'],
    ['table', 'article table'],
    ['check result', '.rn-check'],
    ['chart', '.rn-vega, .rn-vega svg'],
    ['figure', 'article img, article figure, div.animation'],
    ['widget', '.rn-widget-snapshot'],
  ];
  const scrolls = el => ['auto', 'scroll', 'hidden'].includes(getComputedStyle(el).overflowX);
  const describe = el => {
    if (el.tagName === 'IMG') return 'img ' + (el.getAttribute('alt') || el.getAttribute('src') || '').slice(0, 60);
    const t = (el.innerText || el.textContent || '').replace(/\\s+/g, ' ').trim();
    return t.slice(0, 70) || el.className.toString().slice(0, 60);
  };
  const section = el => {
    const s = el.closest('section');
    const h = s && s.querySelector('h1, h2, h3, h4');
    return h ? h.textContent.replace(/#$/, '').trim().slice(0, 50) : '';
  };
  const out = [];
  const seen = new Set();
  for (const [kind, sel] of kinds) {
    for (const el of document.querySelectorAll(sel)) {
      if (seen.has(el) || el.closest('.rn-scroll')) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;           // hidden (folded, display:none)
      let over = r.right - cr.right;
      let how = 'runs past the column';
      if (scrolls(el) && el.scrollWidth - el.clientWidth > over) {
        over = el.scrollWidth - el.clientWidth;
        how = 'scrolls sideways';
      }
      let a = el.parentElement;
      while (a && a !== col) {
        if (scrolls(a) && !a.closest('.rn-scroll')) {
          const ar = a.getBoundingClientRect();
          if (r.right - ar.right > over) { over = r.right - ar.right; how = 'makes its container scroll'; }
          break;
        }
        a = a.parentElement;
      }
      if (over > 1) {
        seen.add(el);
        out.push({kind: kind, how: how, over: Math.round(over), width: Math.round(r.width),
                  column: Math.round(cr.width), section: section(el), what: describe(el)});
      }
    }
  }
  // Report the outermost offender only: a table inside an output is one problem, not two.
  return out;
}
"""

# Outputs taller than 30 px that show nothing: a hidden progress bar's box, an empty widget.
BLANK_GAPS = """
() => {
  const out = [];
  const media = 'img, svg, canvas, mjx-container, input, select, button, iframe, video, .noUi-target, table';
  const visible = el => (el.innerText || '').trim().length > 0 || el.matches(media) || !!el.querySelector(media);
  const reported = [];
  for (const el of document.querySelectorAll('.cell_output > *, .cell_output .jupyter-widgets')) {
    if (reported.some(r => r.contains(el))) continue;      // the outermost blank box only
    if (el.closest('details:not([open])')) continue;       // folded: not on the page until opened
    const r = el.getBoundingClientRect();
    if (r.height > 30 && r.width > 0 && !visible(el)) {
      reported.push(el);
      const s = el.closest('section');
      const h = s && s.querySelector('h1, h2, h3, h4');
      out.push({height: Math.round(r.height), top: Math.round(r.top + window.scrollY),
                section: h ? h.textContent.replace(/#$/, '').trim().slice(0, 50) : '',
                what: el.className.toString().slice(0, 60)});
    }
  }
  return out;
}
"""

NAN_CELLS = """
() => Array.from(document.querySelectorAll('article td, article th'))
  .filter(c => /^(nan|NaN|<NA>|None)$/.test(c.textContent.trim()))
  .map(c => {
    const t = c.closest('table');
    const head = t ? Array.from(t.querySelectorAll('th')).map(h => h.textContent.trim()).join('|') : '';
    return head.slice(0, 80);
  })
"""

# Saved ipywidgets become snapshots at build time (scripts/offline_site.py): nothing of the
# widget machinery may reach the page, and each snapshot shows its settings and a figure.
WIDGET_STATE = """
() => {
  const leftover = document.querySelectorAll(
    'script[type^="application/vnd.jupyter.widget"], .jupyter-widgets').length;
  const loaders = Array.from(document.querySelectorAll('script[src]'))
    .map(s => s.getAttribute('src')).filter(u => /embed-amd|html-manager|require(js)?[.]js/.test(u));
  const bad = [];
  const snaps = Array.from(document.querySelectorAll('.rn-widget-snapshot'));
  snaps.forEach((v, k) => {
    const note = v.querySelector(':scope > .rn-widget-note');
    const shows = v.querySelector('img, svg, table, pre, .rn-vega');
    const controls = v.querySelectorAll('input, select, textarea, button').length;
    if (!note || !/run with .+ = /.test(note.textContent) || !shows || controls) {
      bad.push(`snapshot ${k}: note ${note ? 'present' : 'missing'}, `
               + `${shows ? 'shows its output' : 'shows nothing'}, ${controls} controls`);
    }
  });
  return {snapshots: snaps.length, leftover: leftover, loaders: loaders, bad: bad};
}
"""

# The live explorers on the built page: every slider and select of each is moved once (to its
# other end, or its last option), then Reset is pressed; each move must redraw (the explorer's
# timed redraws grow) and none may throw. tests/browser/test_live_*.py check their numbers.
DRIVE_LIVE = """
async () => {
  const roots = Array.from(document.querySelectorAll('[data-live]'));
  if (!roots.length) return {explorers: 0, moved: 0, bad: []};
  await window.resnetLive.ready;
  const bad = [];
  let moved = 0;
  for (const root of roots) {
    const name = root.getAttribute('data-live');
    const times = () => (window.resnetLive.times[name] || []).length;
    for (const c of root.querySelectorAll('input[type=range], select')) {
      if (c.disabled) continue;
      const before = times();
      if (c.tagName === 'SELECT') {
        const opts = Array.from(c.options).filter(o => !o.disabled && o.value !== c.value);
        if (!opts.length) continue;
        c.value = opts[opts.length - 1].value;
      } else {
        c.value = (c.value === c.max) ? c.min : c.max;
      }
      c.dispatchEvent(new Event('input', {bubbles: true}));
      c.dispatchEvent(new Event('change', {bubbles: true}));
      await new Promise(r => setTimeout(r, 50));
      if (times() <= before) bad.push(`${name}: moving ${c.id || c.outerHTML.slice(0, 60)} did not redraw`);
      moved += 1;
    }
    const reset = Array.from(root.querySelectorAll('button')).find(b => /reset/i.test(b.textContent));
    if (!reset) bad.push(`${name}: no Reset button`); else reset.click();
  }
  return {explorers: roots.length, moved: moved, bad: bad};
}
"""

# Enabled controls in the page's content that the test does not drive (the live explorers' are
# driven by DRIVE_LIVE above).
UNDRIVEN_CONTROLS = """
() => {
  const article = document.querySelector('article.bd-article') || document.querySelector('main');
  const known = 'div.animation, .rn-vega, .headerlink, button.copybtn, '
              + 'details, summary, .toggle-button, button.toggle-button, .dropdown, .sd-dropdown, '
              + '.tippy-box, .sd-tab-set, [data-live]';
  return Array.from(article.querySelectorAll('input, select, textarea, button, [contenteditable="true"]'))
    .filter(c => !c.hasAttribute('disabled') && !c.closest(known))
    .filter(c => { const r = c.getBoundingClientRect(); return r.width > 0 && r.height > 0; })
    .map(c => c.outerHTML.slice(0, 100));
}
"""


def _collect(page, origin):
    """Attach listeners; return the lists they fill."""
    problems = {"console": [], "pageerror": [], "failed": [], "external": []}

    def on_console(msg):
        if msg.type == "error":
            problems["console"].append(msg.text)

    def on_request_failed(req):
        if req.url.startswith(origin) or req.url.startswith(("data:", "blob:")):
            problems["failed"].append(f"{req.url} ({req.failure})")

    def on_route(route):
        url = route.request.url
        if url.startswith((origin, "data:", "blob:", "about:")):
            route.continue_()
        else:
            problems["external"].append(url)
            route.abort()

    page.on("console", on_console)
    page.on("pageerror", lambda err: problems["pageerror"].append(str(err)))
    page.on("requestfailed", on_request_failed)
    page.route("**/*", on_route)
    return problems


def _network(page):
    """CDP: throttle to 10 Mbit/s and count the bytes each request transferred."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", LINK)
    sizes: dict[str, float] = {}
    urls: dict[str, str] = {}
    cdp.on("Network.responseReceived", lambda e: urls.__setitem__(e["requestId"], e["response"]["url"]))
    cdp.on("Network.loadingFinished", lambda e: sizes.__setitem__(e["requestId"], e.get("encodedDataLength", 0)))
    return sizes, urls


def _check_animations(page, shot_prefix: Path | None = None) -> int:
    """Step and slide every to_jshtml animation; return how many there were."""
    animations = page.locator("div.animation")
    n = animations.count()
    for k in range(n):
        anim = animations.nth(k)
        anim.scroll_into_view_if_needed()
        img = anim.locator("img").first
        before = img.get_attribute("src")
        anim.locator("button[onclick*='next_frame']").first.click()
        page.wait_for_function(
            "([el, s]) => el.getAttribute('src') !== s",
            arg=[img.element_handle(), before],
            timeout=5_000,
        )
        after_step = img.get_attribute("src")
        assert after_step != before, f"animation {k}: the step button did not change the frame"
        slider = anim.locator("input.anim-slider").first
        last = int(slider.get_attribute("max") or slider.evaluate("e => e.max"))
        assert last >= 1, f"animation {k}: the slider has only one frame"
        slider.fill(str(last))
        slider.dispatch_event("input")
        slider.dispatch_event("change")
        after_slide = img.get_attribute("src")
        assert after_slide != after_step, f"animation {k}: moving the slider did not change the frame"
        # The buttons' icons: pydata-sphinx-theme's Font Awesome script turns <i class="fa">
        # into inline SVG; an <i> left over needs the local Font Awesome 4 font.
        icons = anim.evaluate(
            """a => {
                 const buttons = Array.from(a.querySelectorAll('.anim-buttons button'));
                 return buttons.map(b => {
                   const svg = b.querySelector('svg');
                   if (svg) return svg.getBoundingClientRect().width > 0;
                   const i = b.querySelector('i.fa');
                   return !!i && document.fonts.check('16px FontAwesome');
                 });
               }"""
        )
        assert icons and all(icons), f"animation {k}: button icons missing: {icons}"
        if shot_prefix is not None:
            anim.screenshot(path=f"{shot_prefix}__animation{k}.png")
    return n


def _check_charts(page, shot_prefix: Path | None = None) -> int:
    """Every kernel-free chart renders, and each of its menus changes the drawing."""
    charts = page.locator("div.rn-vega")
    n = charts.count()
    if n == 0:
        return 0
    try:
        page.wait_for_function(
            "() => Array.from(document.querySelectorAll('div.rn-vega'))"
            ".every(d => d.classList.contains('rn-vega-ready') || d.classList.contains('rn-vega-failed'))",
            timeout=30_000,
        )
    except Exception:  # the assertion below says which
        pass
    states = page.evaluate("() => Array.from(document.querySelectorAll('div.rn-vega')).map(d => d.className)")
    not_ready = [k for k, c in enumerate(states) if "rn-vega-ready" not in c]
    assert not not_ready, f"charts that did not render (0-based, in page order): {not_ready}"
    for k in range(n):
        chart = charts.nth(k)
        chart.scroll_into_view_if_needed()
        svg = chart.locator("svg").first
        menus = chart.locator(".vega-bind select")
        for j in range(menus.count()):
            menu = menus.nth(j)
            name = menu.evaluate("s => (s.closest('.vega-bind').querySelector('.vega-bind-name') || {}).textContent")
            options = menu.evaluate("s => Array.from(s.options).map(o => o.value)")
            current = menu.evaluate("s => s.value")
            assert len(options) >= 2, f"chart {k}: menu {name!r} offers only {options}"
            before = svg.inner_html()
            choice = next(o for o in reversed(options) if o != current)
            menu.select_option(choice)
            try:
                page.wait_for_function(
                    "([el, s]) => el.innerHTML !== s", arg=[svg.element_handle(), before], timeout=5_000
                )
            except Exception:  # the assertion below says which
                pass
            assert svg.inner_html() != before, (
                f"chart {k}: choosing {choice!r} in menu {name!r} did not change the chart"
            )
            menu.select_option(current)
        boxes = chart.locator(".vega-bind input[type='checkbox']")
        for j in range(boxes.count()):  # one check box per network: unticking one must change the chart
            box = boxes.nth(j)
            name = box.evaluate("s => (s.closest('.vega-bind').querySelector('.vega-bind-name') || {}).textContent")
            before = svg.inner_html()
            box.click()
            try:
                page.wait_for_function(
                    "([el, s]) => el.innerHTML !== s", arg=[svg.element_handle(), before], timeout=5_000
                )
            except Exception:  # the assertion below says which
                pass
            assert svg.inner_html() != before, f"chart {k}: the check box {name!r} did not change the chart"
            box.click()
        others = chart.locator(".vega-bind input:not([type='checkbox'])").count()
        assert others == 0, f"chart {k}: {others} input controls the test does not drive (menus and check boxes)"
        if shot_prefix is not None:
            chart.screenshot(path=f"{shot_prefix}__chart{k}.png")
    return n


def _check_widgets(page, shot_prefix: Path | None = None) -> int:
    """Saved widgets are snapshots: no widget state, view or manager on the page; each snapshot
    says what it was run with and how to make it live, and shows its figure."""
    state = page.evaluate(WIDGET_STATE)
    assert state["leftover"] == 0, (
        f"{state['leftover']} saved widget views or states reached the page: "
        "scripts/offline_site.py should have turned them into snapshots"
    )
    assert not state["loaders"], f"the page loads a widget manager: {state['loaders']}"
    assert not state["bad"], "widget snapshots: " + "; ".join(state["bad"])
    if shot_prefix is not None:
        views = page.locator(".rn-widget-snapshot")
        for k in range(min(views.count(), 10)):
            try:
                views.nth(k).screenshot(path=f"{shot_prefix}__widget{k}.png", timeout=5_000)
            except Exception:  # a hidden or zero-size view: nothing to picture
                pass
    return state["snapshots"]


def _overflow(page, width: int) -> list[str]:
    return [
        f"[{width}px] {o['kind']} {o['how']} by {o['over']} px (width {o['width']}, column {o['column']}) "
        f"in section '{o['section']}': {o['what']!r}"
        for o in page.evaluate(OVERFLOW)
    ]


def _screenshots(page, stem: Path) -> int:
    """Viewport screenshots from top to bottom (full-page ones are garbled by the sticky header)."""
    height = page.evaluate("() => document.documentElement.scrollHeight")
    step = VIEWPORT["height"] - 60
    k = 0
    for k, y in enumerate(range(0, max(height, 1), step)):
        if k >= MAX_SHOTS_PER_PAGE:
            break
        page.evaluate(f"() => window.scrollTo(0, {y})")
        page.wait_for_timeout(60)
        page.screenshot(path=f"{stem}__{k:02d}.png")
    page.evaluate("() => window.scrollTo(0, 0)")
    return k + 1


RAW_PATTERNS = {
    "TeX delimiters $$": r"\$\$",
    "TeX \\( or \\[": r"\\\(|\\\[",
    "TeX environment": r"\\begin\{",
    "a dollar sign (TeX left untypeset)": r"\$",
    "a TeX command": r"\\[A-Za-z]{2,}",
    "Markdown bold **": r"\*\*",
    "a code fence ```": r"```",
    "a MyST directive": r"\{(?:prf:[a-z]+|exercise|solution[a-z-]*|figure|literalinclude|dropdown|admonition|"
    r"note|warning|math|code-cell|glue:?[a-z]*)\}",
    "a MyST role shown as text": r"\{(?:eval|cite(?::[a-z]+)?|ref|numref|eq|doc|abbr|prf:ref|term|download|"
    r"math|sub-ref)\}`?",
    "a directive option": r"(?m)^\s*:(?:label|nonumber|class|name|caption|pyobject|lines|emphasize-lines):",
    "a colon fence :::": r"(?m)^\s*:::",
}


@pytest.mark.parametrize("name", PAGES)
def test_page(name, site_url, browser, screenshot_dir):
    path = "index.html" if name == "index" else f"{name}.html"
    assert (SITE / path).is_file(), f"{path} is listed in the table of contents but was not built"
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    problems = _collect(page, site_url)
    sizes, urls = _network(page)
    failures: list[str] = []
    row: dict = {}
    try:
        t0 = time.perf_counter()
        try:
            page.goto(f"{site_url}/{path}", wait_until="load")
        except Exception as err:  # noqa: BLE001 - once more: a 60 s stall is seen under heavy load
            # Once more in a fresh context, so that the first load's aborted requests and its
            # bytes are not counted against the second.
            failures.append(f"(note) first load timed out ({type(err).__name__}); loaded again in a fresh context")
            context.close()
            context = browser.new_context(viewport=VIEWPORT)
            page = context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            problems = _collect(page, site_url)
            sizes, urls = _network(page)
            t0 = time.perf_counter()
            page.goto(f"{site_url}/{path}", wait_until="load")
        if name == "index":
            # index.html is a meta-refresh redirect to the first page.
            page.wait_for_url(re.compile(r".*/book/.*\.html.*"), timeout=15_000)
            page.wait_for_load_state("load")
        load_s = time.perf_counter() - t0
        typeset = page.evaluate(WAIT_FOR_MATHJAX)
        page.wait_for_load_state("networkidle")
        settled_s = time.perf_counter() - t0

        stem = screenshot_dir / name.replace("/", "__")
        animations = _check_animations(page, stem)
        charts = _check_charts(page, stem)
        widgets = _check_widgets(page, stem)
        page.wait_for_load_state("networkidle")

        prose = page.evaluate(PROSE_TEXT)
        for what, pattern in RAW_PATTERNS.items():
            hits = [m for m in re.finditer(pattern, prose)]
            if hits:
                shown = ", ".join(
                    repr(prose[max(0, m.start() - 30) : m.end() + 30].replace("\n", " ")) for m in hits[:3]
                )
                failures.append(f"raw text: {what} ({len(hits)}x; MathJax loaded: {typeset}), e.g. {shown}")
        merrors = page.evaluate(MATHJAX_ERRORS)
        if merrors:
            failures.append(f"MathJax errors: {merrors}")
        if "??" in prose:
            i = prose.index("??")
            failures.append(f"an unresolved cross-reference is shown as '??': {prose[max(0, i - 60) : i + 10]!r}")
        blocks = page.evaluate(UNNUMBERED_BLOCKS)
        if blocks["bad"]:
            failures.append(f"theorem/exercise blocks without a number: {blocks['bad']}")
        broken = page.evaluate(BROKEN_IMAGES)
        if broken:
            failures.append(f"images that did not load or decode: {broken}")
        nan = page.evaluate(NAN_CELLS)
        if nan:
            failures.append(
                f"NaN/None shown in {len(nan)} table cells (explain or hide them); tables with "
                f"columns: {sorted(set(nan))[:5]}"
            )
        gaps = page.evaluate(BLANK_GAPS)
        failures += [
            f"blank gap of {g['height']} px at y={g['top']} in section '{g['section']}' ({g['what']})" for g in gaps
        ]
        driven = page.evaluate(DRIVE_LIVE)
        failures += driven["bad"]
        if driven["explorers"] and not driven["moved"]:
            failures.append("a live explorer without a control the test could move")
        undriven = page.evaluate(UNDRIVEN_CONTROLS)
        if undriven:
            failures.append(f"enabled controls the test does not drive (so cannot show they work): {undriven[:5]}")

        overflow = _overflow(page, VIEWPORT["width"])
        page.set_viewport_size(WIDE)
        page.wait_for_timeout(300)
        overflow += _overflow(page, WIDE["width"])
        page.set_viewport_size(VIEWPORT)
        page.wait_for_timeout(300)
        failures += overflow

        shots = _screenshots(page, stem)
        transferred = sum(sizes.values())
        row = {
            "transferred_mb": transferred / MB,
            "requests": len(sizes),
            "load_s": load_s,
            "settled_s": settled_s,
            "overflow": len(overflow),
            "animations": animations,
            "charts": charts,
            "widgets": widgets,
            "screenshots": shots,
            "largest": sorted(((sizes[r] / MB, urls.get(r, r).replace(site_url, "")) for r in sizes), reverse=True)[:3],
        }
        REPORT[name] = row
        limit = KNOWN_OVER_TARGET_MB.get(name, PAGE_LIMIT_MB)
        if PAGE_LIMIT_MB * MB < transferred <= limit * MB:
            failures.append(
                f"(note) over target: page weight {transferred / MB:.2f} MB, above the {PAGE_LIMIT_MB} MB "
                f"target (known; must stay under {limit} MB)"
            )
        if transferred > limit * MB:
            failures.append(
                f"page weight {transferred / MB:.2f} MB transferred in {len(sizes)} requests, above "
                f"{limit} MB; largest: " + ", ".join(f"{u} {s:.2f} MB" for s, u in row["largest"])
            )
        if load_s > LOAD_LIMIT_S:
            failures.append(f"load event after {load_s:.1f} s at 10 Mbit/s, above {LOAD_LIMIT_S} s")
    finally:
        context.close()

    if problems["external"]:
        failures.append(f"requests outside the site: {problems['external']}")
    if problems["failed"]:
        failures.append(f"failed requests: {problems['failed']}")
    if problems["pageerror"]:
        failures.append(f"uncaught page errors: {problems['pageerror']}")
    if problems["console"]:
        failures.append(f"console errors: {problems['console']}")
    notes = [f for f in failures if f.startswith("(note)")]
    failures = [f for f in failures if not f.startswith("(note)")]
    REPORT.setdefault(name, {})["notes"] = notes + [f"FAIL {f}" for f in failures]
    assert not failures, f"{path}: {len(failures)} problems:\n  " + "\n  ".join(failures + notes)


def test_site_weight():
    """The whole site on disk, with the largest files and folders when it is too heavy."""
    if not (SITE / "index.html").is_file():
        pytest.skip(f"no built site at {SITE}: run `make book` first")
    files = [(p.stat().st_size, p.relative_to(SITE)) for p in SITE.rglob("*") if p.is_file()]
    total = sum(s for s, _ in files)
    folders: dict[str, int] = {}
    for s, p in files:
        key = "/".join(p.parts[:3]) if p.parts[0] == "_static" else "/".join(p.parts[:1])
        folders[key] = folders.get(key, 0) + s
    REPORT["(whole site)"] = {
        "site_mb": total / MB,
        "files": len(files),
        "folders": sorted(((s / MB, k) for k, s in folders.items()), reverse=True)[:8],
    }
    assert total <= SITE_LIMIT_MB * MB, (
        f"the site weighs {total / MB:.1f} MB on disk ({len(files)} files), above {SITE_LIMIT_MB} MB; largest "
        "folders: "
        + ", ".join(f"{k} {s / MB:.1f} MB" for k, s in sorted(folders.items(), key=lambda x: -x[1])[:6])
        + "; largest files: "
        + ", ".join(f"{p} {s / MB:.1f} MB" for s, p in sorted(files, reverse=True)[:6])
    )


def test_live_explorers_add_at_most_300_kb_gzip_to_their_pages():
    """Every built page with a live explorer (data-live) loads at most LIVE_LIMIT_KB gzipped kB
    of live code, libraries and data per explorer (tests/browser/live_harness.py)."""
    from live_harness import LIVE_LIMIT_KB, live_weight_kb

    if not (SITE / "index.html").is_file():
        pytest.skip(f"no built site at {SITE}: run `make book` first")
    static = SITE / "_static"

    def read(path):
        f = static / path
        return f.read_bytes() if f.is_file() else None

    found = {}
    for page in SITE.rglob("*.html"):
        for name in set(re.findall(r'data-live="([^"]+)"', page.read_text(encoding="utf-8", errors="replace"))):
            found[(page.relative_to(SITE).as_posix(), name)] = live_weight_kb(read, name)
    if not found:
        pytest.skip("no page of the built site holds a live explorer")
    for (page, name), kb in found.items():
        assert f"vendor/live-{name}.js" in kb, f"{page}: no code for the explorer {name}"
        assert sum(kb.values()) <= LIVE_LIMIT_KB, f"{page}: {name} loads {sum(kb.values()):.0f} kB gzip: {kb}"
