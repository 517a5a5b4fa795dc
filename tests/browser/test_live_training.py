"""The explorer "training-from-zero" (book/theorem1_dynamics.ipynb) computes what the package computes.

The page's ``resnetLive.compute["training-from-zero"]`` runs on every case the package exports
(gradient descent from the package's own starts, 50 steps; every architecture) and must agree to a
relative 1e-6 on the loss curve and 1e-9 on the sharpness, the gradient and the Hessian at the start.
Two plausible slips in the page's code (a transposed factor in the gradient, a term dropped from the
Hessian-vector product) must each fail that comparison. The controls keep their state in the URL,
reset, fit a phone's width; a diverging setting and a network too large are said in the page. The
redraw times of control moves are written to results/live/redraw_times.json.
"""

from __future__ import annotations

import json

import pytest
from live_harness import (
    cases,
    failures,
    open_explorer,
    record_times,
    redraw_times,
    run_cases,
    save_still,
)

NAME = "training-from-zero"

# Plausible slips in the page's code, each with the output keys that must expose it.
MUTATIONS = {
    # Eq. 7 with the factor after W_{r,l} not transposed: (W_after) D in place of (W_after)^T D
    "transposed factor in the gradient": (
        "mmTN(post, o, ws.D, r4 * s, ws.QD, o, d, false);",
        "mm(post, o, ws.D, r4 * s, ws.QD, o, d, false);",
        {"loss", "grad0"},
    ),
    # the product rule without the derivative of the products before the unit (dbefore dropped)
    "dropped term of the Hessian-vector product": (
        "mmNT(ws.AG, r4 * s, dbefore, r4 * s, dD, 0, d, true);",
        "",
        {"sharpness", "hessian0"},
    ),
}


@pytest.fixture(scope="module")
def page(live_browser, live_site):
    p = open_explorer(live_browser, live_site, NAME)
    yield p
    p.close()


def test_page_matches_the_package_on_every_case(page, live_site):
    rows = run_cases(page, NAME, cases(live_site, NAME))
    by_key = {}
    for r in rows:
        by_key[r["key"]] = max(by_key.get(r["key"], 0.0), r["rel"])
    assert {"loss", "sharpness", "grad0", "hessian0"} <= set(by_key)
    print(f"{len({r['label'] for r in rows})} cases; largest relative difference per output: {by_key}")
    assert not failures(rows), failures(rows)[:5]


@pytest.mark.parametrize("slip", sorted(MUTATIONS))
def test_a_slip_in_the_page_fails_the_comparison(live_browser, live_site, slip):
    old, new, keys = MUTATIONS[slip]
    p = open_explorer(live_browser, live_site, NAME, mutate=[(old, new)])
    try:
        bad = failures(run_cases(p, NAME, cases(live_site, NAME)))
    finally:
        p.close()
    assert bad, f"the slip '{slip}' passed every comparison"
    assert keys <= {r["key"] for r in bad}, f"the slip '{slip}' failed only on {sorted({r['key'] for r in bad})}"


def _state(p):
    return p.evaluate(f"() => window.resnetLive.mounted['{NAME}'].state()")


def test_the_url_keeps_a_setting_and_reset_restores_the_default(live_browser, live_site):
    p = open_explorer(live_browser, live_site, NAME)
    try:
        start = _state(p)
        p.focus(f"#rn-live-{NAME}-lg_lr")
        p.keyboard.press("ArrowLeft")
        p.select_option(f"#rn-live-{NAME}-arch", "plain-orthogonal")
        url = p.url
        assert f"{NAME}.arch=plain-orthogonal" in url and f"{NAME}.lg_lr=" in url
        q = open_explorer(live_browser, live_site, NAME, fragment="#" + url.split("#", 1)[1])
        try:
            assert _state(q)["arch"] == "plain-orthogonal" and _state(q)["lg_lr"] < start["lg_lr"]
            q.click(".rn-live-reset")
            assert _state(q) == start and "#" not in q.url
        finally:
            q.close()
    finally:
        p.close()


def test_a_diverging_setting_is_said_and_nothing_non_finite_is_drawn(live_browser, live_site):
    frag = f"#{NAME}.arch=plain-xavier&{NAME}.R=16&{NAME}.lg_lr=0.5"
    p = open_explorer(live_browser, live_site, NAME, fragment=frag)
    try:
        msg = p.locator(".rn-live-message").first
        assert msg.is_visible() and "Diverged" in msg.text_content()
        assert "NaN" not in p.locator(".rn-live-readout").text_content()
    finally:
        p.close()


def test_a_network_too_large_is_said_in_the_page(live_browser, live_site):
    p = open_explorer(live_browser, live_site, NAME, fragment=f"#{NAME}.arch=shortcut3&{NAME}.R=16")
    try:
        msg = p.locator(".rn-live-message").first
        assert msg.is_visible() and "768 weights" in msg.text_content()
    finally:
        p.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_explorer_fits_the_width(live_browser, live_site, width):
    p = open_explorer(live_browser, live_site, NAME, width=width)
    try:
        over = p.evaluate(
            """() => { const r = document.querySelector('[data-live]'), e = document.documentElement;
                       return [r.scrollWidth - r.clientWidth, e.scrollWidth - window.innerWidth]; }"""
        )
        assert over[0] <= 1 and over[1] <= 1, f"horizontal overflow at {width} px: {over}"
        for sel in ("select", "input[type=range]", ".rn-live-reset", ".rn-live-player button"):
            for el in p.locator(f"[data-live] {sel}").all():
                assert el.is_visible()
    finally:
        p.close()


def test_play_and_step_move_through_the_run(live_browser, live_site):
    p = open_explorer(live_browser, live_site, NAME, fragment=f"#{NAME}.steps=50")
    try:
        p.click("text=◂◂ step 0")
        assert p.locator(".rn-live-readout").text_content().startswith("step 0:")
        p.click("text=step ▸")
        assert p.locator(".rn-live-readout").text_content().startswith("step 1:")
        p.click("text=▶ play")
        p.wait_for_function(
            "() => document.querySelector('.rn-live-readout').textContent.startsWith('step 50:')", timeout=10_000
        )
    finally:
        p.close()


# Control moves in the order a reader might make them, at depth 16 and width 4 (and the largest
# network the page trains); each is measured once, on arrival. "first" is the synchronous redraw
# (the loss at every step and the sharpness at every fourth sampled step), "complete" the time until
# the sharpness at every sampled step is drawn.
MOVES = [
    {"arch": "shortcut2", "R": 8, "d": 4, "lg_lr": 0.0, "steps": 200},
    {"lg_lr": -0.5},
    {"lg_lr": 0.2},
    {"eps": "0.001"},
    {"eps": "0"},
    {"arch": "shortcut1", "R": 16, "lg_lr": -1.5, "eps": "0.01"},
    {"arch": "plain-xavier", "lg_lr": -2},
    {"arch": "plain-orthogonal"},
    {"seed": 3},
    {"arch": "shortcut3", "R": 5, "lg_lr": 0},
    {"arch": "shortcut2", "R": 12},
    {"steps": 1000},
]


def test_redraw_times_are_recorded(live_browser, live_site):
    p = open_explorer(live_browser, live_site, NAME)
    try:
        rows, state = [], {}
        for move in MOVES:
            state.update(move)
            (r,) = redraw_times(p, NAME, [move], repeats=1)
            p.wait_for_function(
                f"() => window.resnetLive.times['{NAME}:complete'].length > 0 && "
                f"!document.querySelector('[data-live={NAME}] .rn-live-readout').textContent.includes('refining')",
                timeout=60_000,
            )
            complete = p.evaluate(f"() => window.resnetLive.times['{NAME}:complete'].slice(-1)[0]")
            rows.append({"state": dict(state), "ms": round(r["ms"], 1), "complete_ms": round(complete, 1)})
        version = live_browser.version
    finally:
        p.close()
    record_times(NAME, rows, browser_version=version)
    print(json.dumps(rows))
    assert max(r["ms"] for r in rows) < 1000, rows


def _refined(p):
    p.wait_for_function(
        "() => !document.querySelector('.rn-live-readout').textContent.includes('refining')", timeout=60_000
    )


def test_still_of_the_default_setting_draws_both_curves(live_browser, live_site):
    from PIL import Image

    p = open_explorer(live_browser, live_site, NAME)
    try:
        _refined(p)
        assert p.evaluate(f"() => window.resnetLive.mounted['{NAME}'].state().arch") == "shortcut2"
        path = save_still(p, NAME)
    finally:
        p.close()
    colours = Image.open(path).convert("RGB").getcolors(maxcolors=1 << 20) or []
    reds = sum(c for c, (r, g, b) in colours if r > g + 60 and r > b + 60)
    blues = sum(c for c, (r, g, b) in colours if b > r + 60 and b > g + 20)
    # the loss curve (blue) and the sharpness (red) are both on the still
    assert reds > 100 and blues > 100, (reds, blues)
