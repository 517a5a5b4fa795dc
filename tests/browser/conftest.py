"""Print what the browser test measured on every page (weight, load time at 10 Mbit/s, overflow
count, controls driven) at the end of the run, and write it to ``<screenshots>/report.txt``."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from live_harness import live_browser, live_site, playwright_session, serve  # noqa: F401 (shared fixtures)
from test_site import CHROMIUM, CHROMIUM_FLAGS, SHOTS, SITE, _GzipHandler


def _lines(report: dict) -> list[str]:
    lines = []
    site = report.get("(whole site)")
    if site:
        lines.append(
            f"whole site: {site['site_mb']:.1f} MB on disk in {site['files']} files; largest folders: "
            + ", ".join(f"{k} {s:.1f} MB" for s, k in site["folders"])
        )
    lines.append("Problems found on each page are listed under its row (FAIL ...).")
    lines.append(
        f"{'page':<32} {'MB sent':>8} {'requests':>8} {'load s':>7} {'settled s':>9} {'overflow':>8} "
        f"{'anim':>4} {'charts':>6} {'widgets':>7} {'shots':>5}"
    )
    for name, r in report.items():
        if name.startswith("("):
            continue
        if "transferred_mb" not in r:
            lines.append(f"{name:<32} (not measured: the page failed before the end of its checks)")
            lines += [f"    {n}" for n in r.get("notes", [])]
            continue
        lines.append(
            f"{name:<32} {r['transferred_mb']:>8.2f} {r['requests']:>8} {r['load_s']:>7.1f} "
            f"{r['settled_s']:>9.1f} {r['overflow']:>8} {r['animations']:>4} {r['charts']:>6} "
            f"{r['widgets']:>7} {r['screenshots']:>5}"
        )
        lines += [f"    {n}" for n in r.get("notes", [])]
    return lines


def _measured() -> dict:
    """What test_site measured. Under ``--import-mode=importlib`` the collected test module is not
    the ``test_site`` this file imports, so look for the one whose REPORT was filled."""
    for module in list(sys.modules.values()):
        if (getattr(module, "__file__", None) or "").endswith("test_site.py") and getattr(module, "REPORT", None):
            return module.REPORT
    return {}


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    REPORT = _measured()
    if not REPORT:
        return
    lines = _lines(REPORT)
    terminalreporter.write_sep("=", "site measured at 1280 px over a simulated 10 Mbit/s link (cold cache)")
    for line in lines:
        terminalreporter.write_line(line)
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "report.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


# One server and one Chromium for the whole run, shared by every browser test module.
@pytest.fixture(scope="session")
def site_url():
    if not (SITE / "index.html").is_file():
        pytest.skip(f"no built site at {SITE}: run `make book` first")
    with serve(SITE, _GzipHandler) as url:
        yield url


@pytest.fixture(scope="session")
def browser(site_url, playwright_session):  # noqa: F811 (the fixture, imported above)
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install it with `apt-get install -y chromium`")
    b = playwright_session.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
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


@pytest.fixture(autouse=True)
def _close_pages_the_test_left_open(request):
    """Close every page a live test opened and did not close: an explorer left running in the
    shared Chromium keeps drawing and slows every later page's load on a 2-core machine."""
    if "live_browser" not in request.fixturenames:
        yield
        return
    b = request.getfixturevalue("live_browser")
    before = {id(p) for c in b.contexts for p in c.pages}
    yield
    for c in list(b.contexts):
        for p in list(c.pages):
            if id(p) not in before:
                p.close()
