"""The browser harness of the live explorers (scripts/site_static/live*.js).

It needs no built book: :func:`live_site` (a session fixture) assembles a small site in a
temporary folder from ``scripts/site_static`` (the explorers' own code, fresh), the vendored
libraries in ``.cache/site-static/vendor`` (``make assets``) and the package's exports
(``resnet_nb.book.live.write_all``), with one page ``<name>.html`` per explorer holding
``<div data-live="<name>">``, and serves it on localhost.

What a test of an explorer does with it::

    page = open_explorer(browser, live_site, "theorem1-hessian")          # mounted
    diffs = run_cases(page, "theorem1-hessian", cases(live_site, "theorem1-hessian"))  # page vs package
    assert not failures(diffs)
    times = redraw_times(page, "theorem1-hessian", [{"n": 2, "R": 32}, ...])
    record_times("theorem1-hessian", times)          # results/live/redraw_times.json
    save_still(page, "theorem1-hessian")             # book/live/theorem1-hessian.png (default view)

``open_explorer(..., mutate=[(old, new)])`` rewrites the explorer's JavaScript as the browser
receives it (``old`` must occur exactly once), so a test can show that a plausible slip in the
page's computation fails the comparison.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import http.server
import json
import os
import platform
import shutil
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OWN = ROOT / "scripts" / "site_static"
VENDOR = ROOT / ".cache" / "site-static" / "vendor"
# The committed times and stills are rewritten only on request (LIVE_RECORD=1, when a change
# of an explorer should be recorded); an ordinary test run writes its measurements under _build/.
_RECORD = os.environ.get("LIVE_RECORD") == "1"
TIMES = (ROOT / "results" / "live" if _RECORD else ROOT / "_build" / "live") / "redraw_times.json"
STILLS = ROOT / "book" / "live" if _RECORD else ROOT / "_build" / "live" / "stills"

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{name}</title>
<link rel="stylesheet" href="_static/vendor/book.css">
<script defer src="_static/vendor/book.js"></script>
</head><body><main style="max-width: 820px; margin: 0 auto; padding: 8px">
<div data-live="{name}"><p>saved view (what a reader without JavaScript sees)</p></div>
</main></body></html>
"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest's output clean
        pass


@pytest.fixture(scope="session")
def live_site(tmp_path_factory):
    """URL of a small site with one page per explorer (see the module docstring)."""
    from resnet_nb.book.live import explorers, write_all

    if not (VENDOR / "ml-matrix" / "matrix.umd.js").is_file():
        pytest.skip(f"no vendored libraries in {VENDOR}: run `make assets` first")
    site = tmp_path_factory.mktemp("live-site")
    static = site / "_static"
    shutil.copytree(VENDOR, static / "vendor")
    for f in OWN.iterdir():  # the hand-written files, fresh from the working tree
        if f.is_file():
            shutil.copy(f, static / "vendor" / f.name)
    write_all(static / "live")
    for name in explorers():
        (site / f"{name}.html").write_text(PAGE.format(name=name), encoding="utf-8")
    with serve(site, _Quiet) as url:
        yield url


@contextlib.contextmanager
def serve(directory: Path, handler_class):
    """A local HTTP server on a free port over ``directory``; yields its URL."""
    handler = functools.partial(handler_class, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def playwright_session():
    """Playwright's sync API, started once per test run: a second start in the same process is
    refused ("Sync API inside the asyncio loop"), so every browser fixture shares this one."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def live_browser(playwright_session):
    """One headless Chromium for the live tests (needs no built book, unlike conftest's)."""
    from test_site import CHROMIUM, CHROMIUM_FLAGS

    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: install it with `make chromium`")
    b = playwright_session.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
    try:
        yield b
    finally:
        b.close()


def cases(site_url: str, name: str) -> list[dict]:
    """The cases the site serves for explorer ``name`` (written by the package's exporter)."""
    from urllib.request import urlopen

    with urlopen(f"{site_url}/_static/live/{name}.cases.json") as r:
        return json.loads(r.read())


def open_explorer(browser, site_url: str, name: str, mutate=(), width: int = 1280, fragment: str = ""):
    """A new page showing explorer ``name`` at ``width`` px, after it has mounted.

    ``mutate``: pairs (old, new) replaced in ``live-<name>.js`` as the browser receives it."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    if mutate:
        source = (OWN / f"live-{name}.js").read_text(encoding="utf-8")
        for old, new in mutate:
            if source.count(old) != 1:
                raise ValueError(f"mutation target {old!r} occurs {source.count(old)} times in live-{name}.js")
            source = source.replace(old, new)

        def serve(route):
            route.fulfill(status=200, content_type="application/javascript", body=source)

        page.route(f"**/live-{name}.js", serve)
    page.goto(f"{site_url}/{name}.html{fragment}")
    page.wait_for_function("() => window.resnetLive && window.resnetLive.ready", timeout=30_000)
    page.evaluate("() => window.resnetLive.ready")
    if errors:
        raise AssertionError(f"the page of {name} raised: {errors}")
    return page


_COMPARE = """([name, cases]) => {
  const num = (v) => v === "inf" ? Infinity : v === "-inf" ? -Infinity : v;
  const flat = (v) => Array.isArray(v) ? v.flatMap(flat) : [num(v)];
  const shape = (v) => Array.isArray(v) ? [v.length].concat(v.length ? shape(v[0]) : []) : [];
  const out = [];
  for (const c of cases) {
    let got;
    try { got = window.resnetLive.compute[name](c.input); }
    catch (e) { out.push({label: c.label, key: "(threw)", rel: Infinity, rtol: c.rtol, error: String(e)}); continue; }
    for (const key of Object.keys(c.output)) {
      const want = c.output[key], have = got[key];
      if (have === undefined || JSON.stringify(shape(want)) !== JSON.stringify(shape(have))) {
        out.push({label: c.label, key, rel: Infinity, rtol: c.rtol,
                  error: "shape " + JSON.stringify(shape(have)) + " for " + JSON.stringify(shape(want))});
        continue;
      }
      const a = flat(have), b = flat(want);
      let diff = 0, scale = 0;
      for (let i = 0; i < b.length; i++) {
        if (b[i] === a[i]) continue;  // equal infinities too
        diff = Math.max(diff, Number.isFinite(b[i]) ? Math.abs(a[i] - b[i]) : Infinity);
      }
      for (const v of b) if (Number.isFinite(v)) scale = Math.max(scale, Math.abs(v));
      const rel = diff === 0 ? 0 : (scale > 0 ? diff / scale : Infinity);
      out.push({label: c.label, key, rel: Number.isNaN(rel) ? Infinity : rel, rtol: c.rtol, n: b.length});
    }
  }
  return out;
}"""


def run_cases(page, name: str, case_list: list[dict]) -> list[dict]:
    """Run the page's ``resnetLive.compute[name]`` on every case; one row per compared output key:
    ``{label, key, rel, rtol}`` with ``rel = max |page - package| / max |package|`` (Infinity on a
    missing key, a shape mismatch, NaN or an exception)."""
    rows = page.evaluate(_COMPARE, [name, case_list])
    for r in rows:  # JSON has no Infinity: playwright returns it as a float inf already
        r["rel"] = float(r["rel"]) if r["rel"] is not None else float("inf")
    return rows


def failures(rows: list[dict]) -> list[dict]:
    """The rows whose relative difference exceeds their tolerance."""
    return [r for r in rows if not r["rel"] <= r["rtol"]]


def redraw_times(page, name: str, states: list[dict], repeats: int = 3) -> list[dict]:
    """Move the controls to each state (as a reader would: the explorer redraws once per move) and
    return ``{state, ms}`` with the median of ``repeats`` redraws, as performance.now() measured."""
    out = []
    for state in states:
        ms = sorted(
            page.evaluate("([n, s]) => window.resnetLive.mounted[n].redraw(s)", [name, state]) for _ in range(repeats)
        )
        out.append({"state": state, "ms": ms[len(ms) // 2]})
    return out


LIVE_LIMIT_KB = 300  # the live code (and data) an explorer adds to its page, gzipped


def live_weight_kb(read, name: str) -> dict[str, float]:
    """Gzipped kB of what a page with explorer ``name`` loads for it: live.js, live-<name>.js, the
    libraries live.js lists, and <name>.data.json. ``read(path)`` returns the bytes of a path
    under ``_static/`` (or None when there is no such file)."""
    import gzip
    import re

    js = read("vendor/live.js")
    paths = ["vendor/live.js", f"vendor/live-{name}.js", f"live/{name}.data.json"]
    paths += ["vendor/" + p for p in re.findall(r'path: "([^"]+)"', js.decode() if js else "")]
    out = {}
    for p in paths:
        body = read(p)
        if body is not None:
            out[p] = len(gzip.compress(body, compresslevel=6)) / 1000
    return out


def save_still(page, name: str) -> Path:
    """Screenshot the explorer (its controls and figure) into book/live/<name>.png: the still that
    the chapter's Markdown shows to readers without JavaScript, in the PDF and on slides."""
    STILLS.mkdir(parents=True, exist_ok=True)
    path = STILLS / f"{name}.png"
    page.locator(f'[data-live="{name}"]').screenshot(path=str(path))
    return path


def machine() -> dict:
    """The machine the times were measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None  # shared machines vary
    return {"cpu": cpu, "cores": os.cpu_count(), "system": f"{platform.system()} {platform.release()}", "load": load}


def record_times(name: str, rows: list[dict], browser_version: str = "") -> None:
    """Write the measured redraw times of explorer ``name`` into results/live/redraw_times.json
    (other explorers' entries are kept), with the machine and the date; the performance appendix
    shows them."""
    data = json.loads(TIMES.read_text()) if TIMES.is_file() else {}
    data[name] = {
        "measured": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine() | {"browser": browser_version},
        "redraws": rows,
    }
    TIMES.parent.mkdir(parents=True, exist_ok=True)
    TIMES.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
