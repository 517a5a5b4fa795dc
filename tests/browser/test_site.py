"""Browser test of the built book: every page in _toc.yml, loaded in headless Chromium.

The site in ``_build/html`` (or the folder named by ``SITE_DIR``) is served by a local
``http.server`` on 127.0.0.1 and a random free port. For each page the test fails on:

* a console error, an uncaught page error, a failed request, or any request that leaves the
  served origin (the book must work offline; such requests are also blocked);
* TeX that MathJax left untypeset (``$$``, ``\\(``, ``\\[``, ``$...\\cmd...$``) or a MathJax
  error box (``mjx-merror``);
* an image that did not decode (``naturalWidth == 0``);
* an unresolved cross-reference shown as ``??``;
* a theorem-like or exercise block without a number;
* a ``to_jshtml`` animation whose frame does not change when its step button is clicked and
  its slider is moved;
* a saved ipywidgets view that does not render.

It saves a viewport screenshot of every page in ``_build/screenshots/``, plus one picture of
each animation and widget view (``<page>__animation<k>.png``, ``<page>__widget<k>.png``). It is skipped only
when the site has not been built. Run it with ``make test-browser`` or
``pytest tests/browser``.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import threading
from pathlib import Path

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
TIMEOUT_MS = 60_000


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


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - signature fixed by the base class
        pass


@pytest.fixture(scope="session")
def site_url():
    if not (SITE / "index.html").is_file():
        pytest.skip(f"no built site at {SITE}: run `make book` first")
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def browser(site_url):
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install it with `apt-get install -y chromium`")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="session", autouse=True)
def screenshot_dir():
    if SHOTS.exists():
        shutil.rmtree(SHOTS)
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS


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
                        + 'textarea, .output.text_plain, .cell_output pre')
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
  // "<Kind> <number>"; a plain {prf:proof} is "proof admonition" with no title.
  // sphinx-exercise: "exercise admonition" titled "Exercise <number>", and
  // "solution admonition" titled "Solution to Exercise <number>".
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
    } else if (number && !/\\d/.test(number.textContent)) {
      bad.push(b.className + ': ' + text);
    } else if (b.classList.contains('solution') && !/\\d/.test(text)) {
      bad.push('solution without its exercise number: ' + text);
    }
  }
  return {count: blocks.length, bad: bad};
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
        if url.startswith(origin) or url.startswith(("data:", "blob:", "about:")):
            route.continue_()
        else:
            problems["external"].append(url)
            route.abort()

    page.on("console", on_console)
    page.on("pageerror", lambda err: problems["pageerror"].append(str(err)))
    page.on("requestfailed", on_request_failed)
    page.route("**/*", on_route)
    return problems


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
            "([el, s]) => el.getAttribute('src') !== s", arg=[img.element_handle(), before],
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


def _check_widgets(page, shot_prefix: Path | None = None) -> int:
    """Every saved widget view must render from the saved state."""
    n_views = page.locator('script[type="application/vnd.jupyter.widget-view+json"]').count()
    if n_views == 0:
        return 0
    # The HTML manager renders each saved view next to its <script> tag, inside the same
    # output container; a view whose container holds no rendered widget did not render.
    unrendered = (
        "() => Array.from(document.querySelectorAll("
        "'script[type=\"application/vnd.jupyter.widget-view+json\"]'))"
        ".filter(s => !s.parentElement.querySelector('.jupyter-widgets')).length"
    )
    try:
        page.wait_for_function(f"({unrendered})() === 0", timeout=30_000)
    except Exception:  # the assertion below says how many
        pass
    missing = page.evaluate(unrendered)
    assert missing == 0, f"{missing} of {n_views} saved widget views did not render"
    # Labels with TeX are typeset through the MathJax 2 shim, asynchronously: give it time,
    # then none may stay raw.
    raw_labels = (
        "() => Array.from(document.querySelectorAll('.widget-label, .widget-label-basic'))"
        ".filter(e => /\\$[^$]+\\$/.test(e.textContent) && !e.querySelector('mjx-container'))"
        ".map(e => e.textContent)"
    )
    try:
        page.wait_for_function(f"({raw_labels})().length === 0", timeout=10_000)
    except Exception:  # the assertion below reports what is left
        pass
    raw = page.evaluate(raw_labels)
    assert not raw, f"widget labels left untypeset: {raw}"
    if shot_prefix is not None:
        views = page.locator(".jupyter-widgets.widget-view, .cell_output .widget-vbox, "
                             ".cell_output .widget-hbox")
        for k in range(min(views.count(), 10)):
            try:
                views.nth(k).screenshot(path=f"{shot_prefix}__widget{k}.png", timeout=5_000)
            except Exception:  # a hidden or zero-size view: nothing to picture
                pass
    return n_views


@pytest.mark.parametrize("name", PAGES)
def test_page(name, site_url, browser, screenshot_dir):
    path = "index.html" if name == "index" else f"{name}.html"
    assert (SITE / path).is_file(), f"{path} is listed in the table of contents but was not built"
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    problems = _collect(page, site_url)
    try:
        page.goto(f"{site_url}/{path}", wait_until="load")
        if name == "index":
            # index.html is a meta-refresh redirect to the first page.
            page.wait_for_url(re.compile(r".*/book/.*\.html.*"), timeout=15_000)
            page.wait_for_load_state("load")
        typeset = page.evaluate(WAIT_FOR_MATHJAX)
        page.wait_for_load_state("networkidle")

        prose = page.evaluate(PROSE_TEXT)
        leftovers = [
            pattern
            for pattern in (r"\$\$", r"\\\(", r"\\\[", r"\\begin\{", r"\$[^$\n]*\\[A-Za-z]+[^$\n]*\$")
            if re.search(pattern, prose)
        ]
        assert not leftovers, (
            f"raw TeX left on the page (MathJax loaded: {typeset}): patterns {leftovers}; e.g. "
            + ", ".join(repr(m.group(0)[:60]) for p in leftovers for m in [re.search(p, prose)])
        )
        merrors = page.evaluate(MATHJAX_ERRORS)
        assert not merrors, f"MathJax errors: {merrors}"
        assert "??" not in prose, "an unresolved cross-reference is shown as '??'"

        blocks = page.evaluate(UNNUMBERED_BLOCKS)
        assert not blocks["bad"], f"theorem/exercise blocks without a number: {blocks['bad']}"
        raw_directives = re.findall(r"\{(?:prf:[a-z]+|exercise|solution[a-z-]*)\}", prose)
        assert not raw_directives, f"directives shown as raw text: {raw_directives}"

        broken = page.evaluate(BROKEN_IMAGES)
        assert not broken, f"images that did not load or decode: {broken}"

        stem = screenshot_dir / name.replace("/", "__")
        _check_animations(page, stem)
        _check_widgets(page, stem)
        page.wait_for_load_state("networkidle")
        page.evaluate("() => window.scrollTo(0, 0)")
        page.screenshot(path=f"{stem}.png")
    finally:
        context.close()

    assert not problems["external"], f"requests outside the site: {problems['external']}"
    assert not problems["failed"], f"failed requests: {problems['failed']}"
    assert not problems["pageerror"], f"uncaught page errors: {problems['pageerror']}"
    assert not problems["console"], f"console errors: {problems['console']}"
