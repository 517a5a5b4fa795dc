"""Every live explorer on its built chapter page and on the harness's site: the explorer mounts
in place of its still, requests nothing outside the site, computes what the package computed for
every case the build exported, and weighs at most LIVE_LIMIT_KB gzipped kB of live code and data.
Each explorer's own behaviour (its controls, its slips, its limits) is tested in its own module."""

from __future__ import annotations

from urllib.error import HTTPError
from urllib.request import urlopen

import pytest
from live_harness import LIVE_LIMIT_KB, cases, failures, live_weight_kb, run_cases

# (chapter, explorer, canvases its figure draws at the default setting)
EXPLORERS = [
    ("theorem1", "theorem1-hessian", 3),
    ("theorem1_dynamics", "training-from-zero", 2),
    ("hardt_ma_linear", "hm-theorem21", 2),
    ("hardt_ma_expressivity", "hm-theorem32", 2),
]


@pytest.mark.parametrize("name", [e[1] for e in EXPLORERS])
def test_live_code_stays_under_its_weight_limit(live_site, name):
    def read(path):
        try:
            with urlopen(f"{live_site}/_static/{path}") as r:
                return r.read()
        except HTTPError:
            return None

    kb = live_weight_kb(read, name)
    assert {"vendor/live.js", f"vendor/live-{name}.js", f"live/{name}.data.json"} <= set(kb)
    print(f"live code of {name}: " + ", ".join(f"{p} {v:.1f} kB" for p, v in kb.items()))
    assert sum(kb.values()) <= LIVE_LIMIT_KB, kb


@pytest.mark.parametrize("chapter, name, canvases", EXPLORERS)
def test_chapter_page_mounts_the_explorer_and_matches_the_package(browser, site_url, chapter, name, canvases):
    """On the built chapter (``make book``): the explorer replaces its still, requests nothing
    outside the site, and its computation agrees with the cases the build wrote."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    outside, errors = [], []
    page.on("request", lambda r: None if r.url.startswith((site_url, "data:")) else outside.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{site_url}/book/{chapter}.html")
        page.wait_for_function("() => window.resnetLive && window.resnetLive.ready", timeout=30_000)
        page.evaluate("() => window.resnetLive.ready")
        root = page.locator(f'[data-live="{name}"]')
        assert root.locator(".rn-live-figure canvas").count() >= canvases
        assert not root.locator("img").first.is_visible()  # the still, kept for readers without JavaScript
        rows = run_cases(page, name, cases(site_url, name))
    finally:
        page.close()
    assert not outside and not errors, (outside, errors)
    bad = failures(rows)
    assert rows, "no case was compared"
    assert not bad, "page differs from the package: " + "; ".join(
        f"{r['label']} [{r['key']}]: rel {r['rel']:.3g} > {r['rtol']:.0e}" for r in bad[:8]
    )
