"""The live explorers of Hardt & Ma's Theorems 2.1 and 3.2 in Chromium: the page's numbers are the
package's (every exported case to a relative 1e-9), a plausible slip in the page's code is caught, the
reader's controls and points work, and the redraw times are recorded for the performance appendix.

Runs on the harness's small site (tests/browser/live_harness.py): `make assets`, no book build."""

from __future__ import annotations

import numpy as np
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

from resnet_nb.book.live import hm_theorem21 as h21

T21, T32 = "hm-theorem21", "hm-theorem32"
OVERFLOW = (
    "(name) => { const r = document.querySelector(`[data-live='${name}']`); return r.scrollWidth - r.clientWidth; }"
)


def assert_cases_match(rows):
    bad = failures(rows)
    assert rows, "no case was compared"
    assert not bad, "page differs from the package: " + "; ".join(
        f"{r['label']} [{r['key']}]: rel {r['rel']:.3g} > {r['rtol']:.0e} {r.get('error', '')}" for r in bad[:8]
    )


def _report(rows, name):
    worst = max(rows, key=lambda r: r["rel"])
    finite = [r for r in rows if r["rel"] < float("inf")]
    if finite and finite != rows:
        w = max(finite, key=lambda r: r["rel"])
        print(f"{name}: largest finite difference {w['rel']:.2e} ({w['label']}, {w['key']})")
    count = len({r["label"] for r in rows})
    print(f"{name}: {count} cases, largest relative difference {worst['rel']:.2e} ({worst['label']}, {worst['key']})")


def test_theorem21_page_computes_the_packages_factors_norms_and_determinants(live_browser, live_site):
    page = open_explorer(live_browser, live_site, T21)
    rows = run_cases(page, T21, cases(live_site, T21))
    _report(rows, T21)
    assert_cases_match(rows)
    assert {r["key"] for r in rows} >= {"A", "norms", "bound_iclr", "p", "refusal", "running_dets"}


def test_theorem32_page_computes_the_packages_blocks_states_and_parameter_count(live_browser, live_site):
    page = open_explorer(live_browser, live_site, T32)
    rows = run_cases(page, T32, cases(live_site, T32))
    _report(rows, T32)
    assert_cases_match(rows)
    assert {r["key"] for r in rows} >= {"U", "V", "b", "idx", "states", "outputs", "trainable", "refusal"}


def test_a_dropped_rotation_factor_in_the_page_fails_the_cross_check(live_browser, live_site):
    slip = ("for (let i = 0; i < q; i++) A.push(F);", "for (let i = 1; i < q; i++) A.push(F);")
    page = open_explorer(live_browser, live_site, T21, mutate=[slip])
    bad = failures(run_cases(page, T21, cases(live_site, T21)))
    _report(bad, f"{T21} with a dropped factor, failing rows {len(bad)}")
    assert any(r["key"] == "A" for r in bad) and any(r["key"] == "running_dets" for r in bad)


def test_a_transposed_block_in_the_page_fails_the_cross_check(live_browser, live_site):
    slip = ("U[a][0] = H[0][i];\n      U[a][1] = H[1][i];", "U[0][a] = H[0][i];\n      U[1][a] = H[1][i];")
    page = open_explorer(live_browser, live_site, T32, mutate=[slip])
    bad = failures(run_cases(page, T32, cases(live_site, T32)))
    _report(bad, f"{T32} with a transposed block, failing rows {len(bad)}")
    assert any(r["key"] == "U" for r in bad) and any(r["key"] == "states" for r in bad)


def test_a_linked_setting_opens_with_a_reflection_and_explains_why_nothing_goes_below_one(live_browser, live_site):
    page = open_explorer(
        live_browser, live_site, T21, fragment=f"#{T21}.sign=-1&{T21}.stretch=0&{T21}.angle=180&{T21}.l=8"
    )
    state = page.evaluate(f"() => window.resnetLive.mounted['{T21}'].state()")
    assert state["sign"] == -1 and state["l"] == 8
    text = page.inner_text(f"[data-live='{T21}'] .rn-live-figure")
    assert "positive determinant" in text and "numerical search" in text
    page.click(f"[data-live='{T21}'] .rn-live-reset")
    assert page.evaluate(f"() => window.resnetLive.mounted['{T21}'].state()") == h21.DEFAULTS
    assert "#" not in page.url or f"{T21}." not in page.url.split("#", 1)[1]


def test_a_click_adds_a_point_a_shift_click_removes_it_and_reset_restores_the_preset(live_browser, live_site):
    page = open_explorer(live_browser, live_site, T32)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    root = f"[data-live='{T32}']"

    def count():
        return int(page.inner_text(f"{root} figcaption").split(";")[-1].split()[0])

    def last_point():
        from urllib.parse import parse_qs, urlsplit

        pts = parse_qs(urlsplit(page.url).fragment)[f"{T32}.pts"][0]
        x, y, _ = pts.split("~")[-1].split("_")
        return int(x), int(y)

    assert count() == 6
    box = page.locator(f"{root} canvas").first.bounding_box()
    x, y = box["x"] + 0.8 * box["width"], box["y"] + 0.2 * box["height"]
    page.mouse.click(x, y)
    assert count() == 7 and f"{T32}.pts=" in page.url
    page.keyboard.down("Shift")
    page.mouse.click(x, y)
    page.keyboard.up("Shift")
    assert count() == 6
    page.locator(f"{root} canvas").first.focus()  # the same by keyboard
    page.keyboard.press("Enter")
    assert count() == 7
    before = last_point()
    page.keyboard.press("Shift+ArrowUp")
    assert last_point() == (before[0], before[1] + 10)  # in hundredths
    page.keyboard.press("Delete")
    assert count() == 6
    page.select_option(f"{root} select[data-key='preset']", "identical")
    assert "identical" in page.inner_text(f"{root} .rn-live-figure")
    page.click(f"{root} .rn-live-controls .rn-live-reset")
    assert count() == 6 and "trainable parameters" in page.inner_text(f"{root} .rn-live-figure")
    assert errors == []  # no script error on the way


def test_both_explorers_fit_a_phone_screen(live_browser, live_site):
    for name in (T21, T32):
        page = open_explorer(live_browser, live_site, name, width=390)
        over = page.evaluate(OVERFLOW, name)
        assert over <= 1, f"{name} overflows by {over} px at 390 px"


def test_redraw_times_are_measured_and_recorded(live_browser, live_site):
    version = live_browser.version
    page = open_explorer(live_browser, live_site, T21)
    states = [
        {"l": 64, "sign": 1},
        {"l": 64, "sign": -1},
        {"angle": 180, "stretch": 3, "l": 32, "sign": 1},
        {"l": 12, "sign": 1},
    ]
    t21 = redraw_times(page, T21, states)
    record_times(T21, t21, version)
    page = open_explorer(live_browser, live_site, T32)
    presets = [{"preset": p} for p in ("figure", "rings", "grid", "clusters")]
    t32 = redraw_times(page, T32, [*presets, {"preset": "grid", "step": 3}])
    # the most points the page takes (100), from a linked setting: 96 random points of 4 labels
    rng = np.random.default_rng(96)
    cells = rng.choice(201 * 201, 96, replace=False)  # distinct points
    xy, labels = np.stack([cells // 201 - 100, cells % 201 - 100], 1), rng.integers(0, 4, 96)
    pts = "~".join(f"{x}_{y}_{c}" for (x, y), c in zip(xy, labels))
    page = open_explorer(live_browser, live_site, T32, fragment=f"#{T32}.pts={pts}")
    assert "96 points" in page.inner_text(f"[data-live='{T32}'] figcaption")
    assert "trainable parameters" in page.inner_text(f"[data-live='{T32}'] .rn-live-figure")
    t32 += [dict(r, state={**r["state"], "points": 96}) for r in redraw_times(page, T32, [{"step": 64}, {"seed": 1}])]
    record_times(T32, t32, version)
    for name, rows in ((T21, t21), (T32, t32)):
        print(name, ", ".join(f"{r['state']}: {r['ms']:.1f} ms" for r in rows))
    assert all(r["ms"] > 0 for r in t21 + t32)


@pytest.mark.parametrize("name", [T21, T32])
def test_still_of_the_default_setting_shows_the_figure(live_browser, live_site, name):
    from PIL import Image

    page = open_explorer(live_browser, live_site, name)
    try:
        path = save_still(page, name)
    finally:
        page.close()
    colours = Image.open(path).convert("RGB").getcolors(maxcolors=1 << 20) or []
    reds = sum(c for c, (r, g, b) in colours if r > g + 60 and r > b + 60)
    blues = sum(c for c, (r, g, b) in colours if b > r + 60 and b > g + 30)
    # 2.1: the factors' norms (blue) under the ICLR bound (red); 3.2: points of the labels 0 and 1
    assert reds > 50 and blues > 50, (reds, blues)
