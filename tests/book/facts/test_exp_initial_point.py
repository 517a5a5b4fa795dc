"""The numbers the prose of book/exp_initial_point.ipynb quotes (resnet_nb.book.facts.exp_initial_point),
checked on small fabricated Figure 5 results whose numbers are chosen in advance."""

import math
import re

import numpy as np
import pandas as pd
import pytest
import torch

from resnet_nb.book import experiment_figures as figures
from resnet_nb.book.facts import exp_initial_point as facts
from resnet_nb.core import hessians
from resnet_nb.core.claims import Check
from resnet_nb.core.data import SufficientStats
from resnet_nb.core.init import SMALL_SCALE
from resnet_nb.experiments import fig5

SYX_DIAG = np.array([0.3, 0.25, 0.2, 0.15, 0.1, 0.08, 0.06, 0.04, 0.02, 0.01])


def numbers(text) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", str(text))]


def check(value=0.01, tol=0.05, spread=None, values=None):
    return Check("c", "x", value, tol, "stated", spread=spread, values=dict(values or {}))


# -- growth_facts ------------------------------------------------------------------------------


def _ends2(p10_hi=0.4):
    # lambda_max rises from 1.0 to 1.5, the 10th percentile falls from 0.5 to p10_hi
    return pd.DataFrame({"lam_max": [1.0, 1.2, 1.5], "lam_p10": [0.5, 0.45, p10_hi]}, index=[2, 48, 96])


def _paper_lam(drift=3e-4):
    """2-shortcut runs whose lambda_max grows by ``drift`` per residual unit (two matrices)."""
    depths = [2, 8, 24, 96]
    return pd.DataFrame({"arch": "2-shortcut", "depth": depths, "lam_max": [1 + drift * L / 2 for L in depths]})


@pytest.fixture
def until(monkeypatch):
    u = {"slope": 2e-5, "per_lg": 1.2, "depth": 23_456.0, "deepest": 96}
    monkeypatch.setattr(fig5, "flat_until", lambda table, arch="2-shortcut": u)
    return u


def test_the_growth_quotes_the_drift_per_layer_where_flatness_would_end_and_both_ends_of_the_spectrum(until):
    three = check(value=0.0123, tol=0.0456)
    f = facts.growth_facts(_ends2(), _paper_lam(), three)
    assert f.break_depth == 23_500  # to the hundred
    assert f.drift_per_layer == pytest.approx(2e-5) and f.orth_per_lg == pytest.approx(1.2)
    assert f.stretch == round(23_456 / 96)
    assert f.drift_c == pytest.approx(3e-4 / SMALL_SCALE**2)  # per unit, in units of eps^2
    assert (f.lmax_lo, f.lmax_hi, f.p10_lo2, f.p10_hi2) == (1.0, 1.5, 0.5, 0.4)
    assert f.up_max_s == pytest.approx(math.log10(1.5)) and f.up_p10_s == pytest.approx(math.log10(0.5 / 0.4))
    assert (f.three_range, f.three_tol) == (0.0123, 0.0456)


def test_the_growth_refuses_a_rise_of_cond_carried_by_one_end_of_the_spectrum_only(until):
    with pytest.raises(AssertionError):
        facts.growth_facts(_ends2(p10_hi=0.49), _paper_lam(), check())


def test_the_growth_refuses_a_break_depth_that_is_not_far_beyond_the_measured_depths(until, monkeypatch):
    monkeypatch.setattr(fig5, "flat_until", lambda table, arch="2-shortcut": dict(until, depth=500.0))
    with pytest.raises(AssertionError):
        facts.growth_facts(_ends2(), _paper_lam(), check())


def test_the_growth_refuses_a_drift_that_does_not_rise(until, monkeypatch):
    monkeypatch.setattr(fig5, "flat_until", lambda table, arch="2-shortcut": dict(until, slope=-2e-5))
    with pytest.raises(AssertionError):
        facts.growth_facts(_ends2(), _paper_lam(), check())
    with pytest.raises(AssertionError):
        facts.growth_facts(_ends2(), _paper_lam(drift=-3e-4), check())  # lambda_max falls with depth


# -- flatness_facts ----------------------------------------------------------------------------


def _paper3(lam_scale=1.0):
    """3-shortcut runs (two per depth): lambda_max grows 50% from depth 3 to 12 (60% to depth 6), the
    10% eigenvalue barely moves."""
    lam = {3: [0.010, 0.010], 6: [0.015, 0.017], 12: [0.015, 0.015]}
    p10 = {3: [0.001, 0.001], 6: [0.00105, 0.00105], 12: [0.00102, 0.00102]}
    rows = [
        {"arch": "3-shortcut", "depth": d, "lam_max": lam_scale * a, "lam_p10": b, "cond": lam_scale * a / b}
        for d in lam
        for a, b in zip(lam[d], p10[d])
    ]
    return pd.DataFrame(rows + [{"arch": "2-shortcut", "depth": 2, "lam_max": 1.0, "lam_p10": 0.5, "cond": 2.0}])


@pytest.mark.parametrize("spread, word", [(0.01, "above"), (0.1, "below")])
def test_the_flatness_compares_the_3_shortcut_curvature_with_the_2_shortcut_one(spread, word):
    three = check(value=0.01, tol=0.05, spread=spread)  # margin 0.04
    ends2 = _ends2()
    f = facts.flatness_facts(ends2, _paper3(), three)
    assert f.three_spread == pytest.approx(spread) and f.three_word == word
    lam3 = [0.010, 0.016, 0.015]  # run means by depth
    assert f.p10_3_spread == pytest.approx(0.00105 / 0.001 - 1)
    assert f.max_3_rise == pytest.approx(0.015 / 0.010 - 1)  # deepest against shallowest
    assert f.curv_ratio3 == pytest.approx(ends2["lam_max"].mean() / np.mean(lam3))
    assert (f.lam3_lo, f.lam3_hi) == (pytest.approx(0.010), pytest.approx(0.016))
    assert f.lam2_mean == pytest.approx(ends2["lam_max"].mean())
    assert f.p3["lam_max"].tolist() == pytest.approx(lam3)


def test_the_flatness_refuses_3_shortcut_curvature_of_the_order_of_the_2_shortcut_one():
    with pytest.raises(AssertionError):
        facts.flatness_facts(_ends2(), _paper3(lam_scale=20.0), check(spread=0.01))


def test_the_flatness_refuses_a_3_shortcut_check_that_fails():
    with pytest.raises(AssertionError):
        facts.flatness_facts(_ends2(), _paper3(), check(value=0.1, tol=0.05, spread=0.01))


# -- scale_facts -------------------------------------------------------------------------------


def _summary5():
    lg = {
        "xavier": {2: 1.61, 8: 2.5, 24: 6.04, 32: 9.0, 64: np.nan, 96: np.nan},
        "orthogonal": {2: 0.6, 8: 1.0, 24: 1.5, 64: 1.9, 96: 2.1},
        "1-shortcut": {2: 0.7, 8: 1.2, 24: 1.8, 64: 2.4, 96: 2.7},
        "2-shortcut": {2: 1.2341, 8: 1.2344, 24: 1.2346, 64: 1.2349, 96: 1.2352},
        "3-shortcut": {3: 0.871, 24: 0.874, 96: 0.879},
    }
    rows = [
        {
            "arch": a,
            "depth": d,
            "lg_cond_mean": v,
            "lg_cond_std": 0.02 if a == "2-shortcut" and d == 24 else 0.01,
            "unresolved": 4 if (a == "xavier" and d == 32) else 0,
        }
        for a, by in lg.items()
        for d, v in by.items()
    ]
    return pd.DataFrame(rows)


def test_the_scale_quotes_lg_cond_at_the_ends_of_the_grid_and_the_gap_of_the_1_shortcut_networks():
    one_like_plain = check(values={"gap_first": 0.1, "gap_last": 0.6, "gap_monotone": True})
    f = facts.scale_facts(one_like_plain, _summary5())
    assert (f.two_2, f.two_96) == (1.2341, 1.2352)
    assert f.two_spread == pytest.approx(0.02)
    assert (f.xav_2, f.xav_24) == (1.61, 6.04)
    assert f.xav_32_unresolved == 4
    assert (f.three_3, f.three_96) == (0.871, 0.879)
    assert (f.gap_first, f.gap_last) == (0.1, 0.6)
    assert list(f.view.index) == ["xavier", "orthogonal", "1-shortcut", "2-shortcut", "3-shortcut"]
    assert [numbers(c) for c in f.view.columns] == [[2], [8], [24], [64], [96]]
    assert f.view.loc["xavier", f.view.columns[3]] == figures.BEYOND_RESOLUTION  # no resolved run at 64
    assert float(f.view.loc["orthogonal", f.view.columns[2]]) == pytest.approx(1.5)


def test_the_scale_view_does_not_call_a_network_that_does_not_exist_unresolved():
    one_like_plain = check(values={"gap_first": 0.1, "gap_last": 0.6, "gap_monotone": True})
    f = facts.scale_facts(one_like_plain, _summary5())
    # no 3-shortcut network has 2 matrices: there is no run, so none is unresolved
    assert pd.isna(f.view.loc["3-shortcut", f.view.columns[0]])  # empty, as the chapter shows it


def test_the_scale_refuses_a_gap_that_does_not_widen_with_depth():
    one_like_plain = check(values={"gap_first": 0.1, "gap_last": 0.6, "gap_monotone": False})
    with pytest.raises(AssertionError):
        facts.scale_facts(one_like_plain, _summary5())


def test_the_scale_refuses_a_2_shortcut_lg_cond_that_does_not_rise_from_depth_2_to_96():
    s = _summary5()
    s.loc[(s["arch"] == "2-shortcut") & (s["depth"] == 96), "lg_cond_mean"] = 1.2330
    one_like_plain = check(values={"gap_first": 0.1, "gap_last": 0.6, "gap_monotone": True})
    with pytest.raises(AssertionError):
        facts.scale_facts(one_like_plain, s)


# -- live_start_facts --------------------------------------------------------------------------


def _xo(x_at_8=2.5):
    xs = pd.DataFrame({"lg_cond_mean": [1.6, x_at_8, 6.0]}, index=[2, 8, 24])
    os_ = pd.DataFrame({"lg_cond_mean": [0.6, 1.0, 1.5]}, index=[2, 8, 24])
    return xs, os_


def test_the_live_start_quotes_the_largest_parameter_count_and_the_live_configuration():
    xs, os_ = _xo()
    paper = pd.DataFrame({"P": [200, 9600, 4800]})
    cfg = {"runs": 3, "depths": [2, 4, 8]}
    f = facts.live_start_facts(xs.index, cfg, os_, paper, xs)
    assert (f.P_max, f.live_runs, f.live_depth) == (9600, 3, 8)


def test_the_live_start_refuses_a_depth_where_xavier_is_not_above_orthogonal():
    xs, os_ = _xo(x_at_8=0.9)
    with pytest.raises(AssertionError):
        facts.live_start_facts(xs.index, {"runs": 1, "depths": [2]}, os_, pd.DataFrame({"P": [1]}), xs)


def test_the_live_start_refuses_a_xavier_growth_smaller_than_the_orthogonal_one():
    xs, os_ = _xo()
    os_.loc[24, "lg_cond_mean"] = 5.5  # orthogonal grows by 4.9, Xavier by 4.4
    with pytest.raises(AssertionError):
        facts.live_start_facts(xs.index, {"runs": 1, "depths": [2]}, os_, pd.DataFrame({"P": [1]}), xs)


# -- growth_solution_facts ---------------------------------------------------------------------


def _means():
    lam = {
        "orthogonal": {2: (4.1, 0.9), 8: (16.2, 0.8), 24: (48.3, 0.85)},
        "1-shortcut": {2: (2.2, 0.95), 8: (3.3, 0.7), 24: (5.4, 0.75)},
        "xavier": {2: (7.3, 0.16), 8: (30.0, 1e-3), 24: (95.0, 2e-6)},
    }
    rows = [(a, d, m, p) for a, by in lam.items() for d, (m, p) in by.items()]
    return pd.DataFrame(rows, columns=["arch", "depth", "lam_max", "lam_p10"]).set_index(["arch", "depth"])


def _s5(unres24=0):
    depths = [8, 16, 24, 32, 48, 64]
    s = pd.DataFrame(
        {
            "arch": "xavier",
            "depth": depths,
            "lg_cond_mean": [2.5, 4.3, 6.1, 9.0, np.nan, np.nan],
            "lg_cond_std": [0.1, 0.2, 0.33, 0.5, np.nan, np.nan],
            "runs": 10,
            "unresolved": [0, 0, unres24, 4, 10, 10],
            "lg_resolution_limit": [12.0, 11.7, 11.52, 11.4, 11.2, 11.1],
        }
    )
    return s.set_index(["arch", "depth"])


def test_the_growth_solution_quotes_lambda_max_the_slopes_and_xavier_s_resolution_limit():
    slopes = {"orthogonal": 1.1, "1-shortcut": 0.9}
    f = facts.growth_solution_facts(_means(), _s5(), slopes)
    assert (f.p10_lo, f.p10_hi) == (0.7, 0.95)  # orthogonal and 1-shortcut, every depth
    assert (f.o_max2, f.o_max8, f.o_max24) == (4.1, 16.2, 48.3)
    assert (f.one_max2, f.one_max8, f.one_max24) == (2.2, 3.3, 5.4)
    assert f.o_ratio24 == pytest.approx(48.3 / 24)
    assert (f.slope_o, f.slope_1) == (1.1, 0.9)
    assert f.per_doubling == pytest.approx(math.log10(2) * 1.0)
    assert (f.x_max2, f.x_max8, f.x_max24) == (7.3, 30.0, 95.0)
    assert (f.x_p10_2, f.x_p10_8, f.x_p10_24) == (0.16, 1e-3, 2e-6)
    assert (f.x_lg8, f.x_lg16, f.x_lg24, f.x_lg32) == (2.5, 4.3, 6.1, 9.0)
    assert f.x_per_layer == pytest.approx((6.1 - 2.5) / 16)  # the fit through 8, 16 and 24
    assert f.lim_drop == pytest.approx(math.log10(2))
    assert (f.x_std24, f.lim24, f.lim32) == (0.33, 11.52, 11.4)
    assert (f.unres32, f.runs32) == (4, 10)


def test_the_growth_solution_refuses_a_slope_that_does_not_grow():
    with pytest.raises(AssertionError):
        facts.growth_solution_facts(_means(), _s5(), {"orthogonal": 1.1, "1-shortcut": -0.1})


def test_the_growth_solution_refuses_unresolved_xavier_runs_at_depth_24():
    with pytest.raises(AssertionError):
        facts.growth_solution_facts(_means(), _s5(unres24=1), {"orthogonal": 1.1, "1-shortcut": 0.9})


def test_the_growth_solution_refuses_xavier_cond_that_does_not_grow_or_every_run_unresolved_at_32():
    slopes = {"orthogonal": 1.1, "1-shortcut": 0.9}
    flat = _s5()
    flat.loc[("xavier", 24), "lg_cond_mean"] = 2.0  # the fit through 8, 16, 24 falls
    with pytest.raises(AssertionError):
        facts.growth_solution_facts(_means(), flat, slopes)
    none = _s5()
    none.loc[("xavier", 32), "unresolved"] = 10  # the prose: some, not all, runs unresolved at 32
    with pytest.raises(AssertionError):
        facts.growth_solution_facts(_means(), none, slopes)


# -- scale_solution_facts ----------------------------------------------------------------------

SCALES = (1e-3, 1e-2, 1e-1)


def _stats():
    Syx = torch.diag(torch.tensor(SYX_DIAG, dtype=torch.float64))
    return SufficientStats(torch.eye(10, dtype=torch.float64), Syx, 1.0, 100)


def _at_zero():
    """Theorem 1 at the zero point of a 2-shortcut network: |eigenvalues| are the singular values
    sigma_k of M = Sxx - Syx, each filling 1/d of the spectrum, so the 10th percentile lies 90% of the
    way from the smallest to the second smallest (numpy's linear interpolation, d = 10)."""
    sigma = np.sort(1 - SYX_DIAG)
    p10 = sigma[0] + 0.9 * (sigma[1] - sigma[0])
    return sigma[-1], math.log10(sigma[-1] / p10)


def _scale_inputs(far=50.0, lam3_step=10.0):
    _, lg0 = _at_zero()
    shift = 3e-4
    lg_s = {("2-shortcut", s): lg0 + d for s, d in zip(SCALES, (2e-6, shift, far * shift))}
    lg_s.update({("3-shortcut", s): 0.5 + 0.1 * i for i, s in enumerate(SCALES)})
    lam_s = {("3-shortcut", s): 2e-3 * lam3_step**i for i, s in enumerate(SCALES)}
    t = pd.DataFrame({"arch": "3-shortcut", "depth": [3, 3, 96], "lam_max": [0.010, 0.012, 0.02]})
    return lam_s, lg_s, t


def test_the_scale_solution_compares_each_scale_with_the_zero_point_of_theorem_1():
    lam_s, lg_s, t = _scale_inputs()
    f = facts.scale_solution_facts(lam_s, lg_s, SCALES, _stats(), t)
    lam0, lg0 = _at_zero()
    assert f.lam0_12 == pytest.approx(lam0, abs=1e-4) and f.lg0_12 == pytest.approx(lg0, abs=1e-4)
    assert f.shift_b == pytest.approx(3e-4, abs=1e-6)
    assert f.far_ratio == pytest.approx(50, abs=1)
    assert (f.lg2_a, f.lg2_b, f.lg2_c) == tuple(pytest.approx(lg_s["2-shortcut", s]) for s in SCALES)
    assert (f.lam3_a, f.lam3_b, f.lam3_c) == tuple(pytest.approx(lam_s["3-shortcut", s]) for s in SCALES)
    assert (f.lg3_a, f.lg3_b, f.lg3_c) == tuple(pytest.approx(lg_s["3-shortcut", s]) for s in SCALES)
    assert f.lam3_d3 == pytest.approx(0.011) and f.lam3_d96 == pytest.approx(0.02)


@pytest.mark.parametrize("bad", [dict(far=150.0), dict(lam3_step=5.0)])
def test_the_scale_solution_refuses_growth_other_than_eps_squared_and_tenfold(bad, monkeypatch):
    # the zero point's spectrum as Theorem 1 states it (+-sigma_k, 60 times each), not recomputed
    sigma = 1 - SYX_DIAG
    spectrum = np.sort(np.concatenate([np.repeat(sigma, 60), np.repeat(-sigma, 60)]))
    monkeypatch.setattr(hessians, "hessian_at_zero", lambda net, data: None)
    monkeypatch.setattr(hessians, "spectrum", lambda H: spectrum)
    lam_s, lg_s, t = _scale_inputs(**bad)
    with pytest.raises(AssertionError):
        facts.scale_solution_facts(lam_s, lg_s, SCALES, _stats(), t)


# -- opening_verdicts_facts --------------------------------------------------------------------


def _xs_p(unres96=10):
    return pd.DataFrame({"runs": 10, "unresolved": [0, 0, 1, 10, 10, unres96]}, index=[2, 24, 32, 48, 64, 96])


def test_the_opening_quotes_the_verdicts_the_2_shortcut_range_and_where_xavier_leaves_resolution():
    flat = check(value=0.0123, tol=0.0456)
    f = facts.opening_verdicts_facts(flat, check(), _xs_p())
    assert f.v_flat == fig5.claim_flat_to_depth_96.claim.verdict
    assert f.v_one == fig5.claim_one_shortcut_like_plain.claim.verdict
    assert (f.two_range, f.flat_tol) == (0.0123, 0.0456)
    assert (f.x_first_unres, f.x_all_unres) == (32, 48)


def test_the_opening_refuses_a_resolved_xavier_run_deeper_than_the_first_depth_with_none():
    with pytest.raises(AssertionError):
        facts.opening_verdicts_facts(check(), check(), _xs_p(unres96=9))


def test_the_opening_refuses_a_flatness_check_that_fails():
    with pytest.raises(AssertionError):
        facts.opening_verdicts_facts(check(value=0.1, tol=0.05), check(), _xs_p())


def test_the_opening_refuses_a_1_shortcut_check_that_fails():
    with pytest.raises(AssertionError):
        facts.opening_verdicts_facts(check(), check(value=0.1, tol=0.05), _xs_p())
