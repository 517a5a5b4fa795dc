"""The numbers book/tour.ipynb quotes (resnet_nb.book.facts.tour), on hand-made tables; the
Hessians at w = 0 and the committed results the facts read are replaced by fabricated ones of the
same form (one slow test runs the real Hessians on small synthetic data)."""

import math

import numpy as np
import pandas as pd
import pytest
import torch

import resnet_nb as rn
from resnet_nb.book.facts import tour as facts
from resnet_nb.core.claims import Check

# -- key_figure_facts -----------------------------------------------------------------------------

TWO_SHORTCUT = np.array([-10.0, -9, -8, -7, -6, 5, 4, 3, 2, 1])  # |lambda|: 1, ..., 10


def _fake_hessian():
    def hessian_at_zero(net, data):
        if net.n == 2:
            return torch.diag(torch.tensor(TWO_SHORTCUT))
        return torch.diag(torch.tensor([float(net.R)] + [1.0] * 9))  # cond10 = R exactly

    return hessian_at_zero


def test_key_figure_condition_numbers_at_zero_by_depth(monkeypatch):
    monkeypatch.setattr(facts.hessians, "hessian_at_zero", _fake_hessian())
    f = facts.key_figure_facts(data=None)
    # 2-shortcut: 10th percentile of 1..10 (linear interpolation) is 1.9
    assert f.cond2 == pytest.approx(10 / 1.9)
    assert f.cond2_exact == pytest.approx(10.0)  # |lambda|max / |lambda|min
    assert f.cond1_lo == pytest.approx(1.0) and f.cond1_hi == pytest.approx(16.0)
    assert f.depth1_hi == 16 and f.depth2_hi == 16  # n R: 1 x 16 and 2 x 8


def test_key_figure_hardt_ma_side_quotes_gamma_depths_and_the_two_layer_counterexample(monkeypatch):
    monkeypatch.setattr(facts.hessians, "hessian_at_zero", _fake_hessian())
    f = facts.key_figure_facts(data=None)
    assert f.gamma_s == pytest.approx(1.0)
    assert f.ell_lo == 3 and f.ell_hi == 64 and f.floor == 1
    # R = e^10 with l = 2 equal factors 1 + a = e^5, against 2 (sqrt(pi) + sqrt(3 * 10))^2 / 2
    assert f.few_opt_s == pytest.approx(math.exp(5) - 1)
    assert f.few_bound_s == pytest.approx((math.sqrt(math.pi) + math.sqrt(30)) ** 2)
    # the quoted share is the figure's largest built / bound, and the construction meets the bound
    assert f.built_ratio == pytest.approx(max(b / c for b, c in zip(f.built, f.bound)))
    assert 0 < f.built_ratio <= 1


def test_key_figure_refuses_a_two_shortcut_condition_number_that_changes_with_depth(monkeypatch):
    # the 2-shortcut spectrum changes shape at 8 units (a scale alone would cancel in cond10)
    calls = _fake_hessian()

    def varying(net, data):
        H = calls(net, data)
        if net.n == 2 and net.R == 8:
            H[0, 0] = -20.0
        return H

    monkeypatch.setattr(facts.hessians, "hessian_at_zero", varying)
    with pytest.raises(AssertionError):
        facts.key_figure_facts(data=None)


@pytest.mark.slow
def test_key_figure_cond2_exact_is_theorem1s_ratio_of_singular_values_of_m():
    data = rn.synthetic_linear(10, 200, noise=0.1, seed=0)
    stats = data.stats()
    s = np.linalg.svd((stats.Sxx - stats.Syx).numpy(), compute_uv=False)
    f = facts.key_figure_facts(data)
    assert f.cond2_exact == pytest.approx(s.max() / s.min(), rel=1e-8)


# -- fig5_facts -----------------------------------------------------------------------------------


def _fig5(lam_three=0.05):
    archs = ["orthogonal", "1-shortcut", "2-shortcut", "3-shortcut", "xavier"]
    depths = [2, 8, 32]
    lg = {
        "orthogonal": [0.5, 1.5, 3.0],
        "1-shortcut": [0.4, 0.9, 1.6],
        "2-shortcut": [0.7, 0.71, 0.72],
        "3-shortcut": [2.0, 2.25, 2.1],
        "xavier": [1.0, 5.0, 9.0],
    }
    unresolved = {"xavier": [0, 2, 5]}
    s5 = pd.DataFrame(
        [
            dict(arch=a, depth=d, lg_cond_mean=lg[a][i], unresolved=unresolved.get(a, [0] * 3)[i], runs=4 if i else 3)
            for a in archs
            for i, d in enumerate(depths)
        ]
    )
    lam = {"2-shortcut": [1.0, 2.0], "3-shortcut": [lam_three, lam_three]}
    T5 = pd.DataFrame(
        [dict(arch=a, depth=d, run=r, lam_max=lam.get(a, [3.0, 3.0])[r]) for a in archs for d in depths for r in (0, 1)]
    )
    return T5, s5


def test_fig5_growth_of_each_architecture_and_the_depth_xavier_is_lost(monkeypatch):
    monkeypatch.setattr(facts.fig5, "claim_flat_to_depth_96", lambda: Check("flat", "range", 0.0213, 0.1, "c"))
    f = facts.fig5_facts(*_fig5())
    assert f.two_range == pytest.approx(0.0213)
    assert f.ortho_growth == pytest.approx(2.5) and f.one_growth == pytest.approx(1.2)
    assert f.xav_lost == 8  # the first depth with unresolved runs
    assert f.depth_max == 32 and f.runs5 == 4
    assert f.small == pytest.approx(rn.core.init.SMALL_SCALE)


def test_fig5_three_shortcut_scale_and_range(monkeypatch):
    monkeypatch.setattr(facts.fig5, "claim_flat_to_depth_96", lambda: Check("flat", "range", 0.02, 0.1, "c"))
    f = facts.fig5_facts(*_fig5(lam_three=0.05))
    assert f.three_scale == pytest.approx(1.5 / 0.05)  # mean lam_max, 2- over 3-shortcut
    assert f.three_range == pytest.approx(0.25)


def test_fig5_refuses_a_three_shortcut_curvature_comparable_to_the_two_shortcut_one(monkeypatch):
    monkeypatch.setattr(facts.fig5, "claim_flat_to_depth_96", lambda: Check("flat", "range", 0.02, 0.1, "c"))
    with pytest.raises(AssertionError):
        facts.fig5_facts(*_fig5(lam_three=0.5))


# -- construction_facts ---------------------------------------------------------------------------


def _draws(jl_sq=(1.5, 2.0, 1.2, 3.0, 1.1)):
    return pd.DataFrame(
        {
            "refuses_sq_c10": [True, False, False, True, False],
            "refuses_dist_c10": [False, False, False, True, False],
            "jl_excess_sq_c10": list(jl_sq),
            "jl_excess_dist_c10": [1.3, 1.4, 1.5, 1.6, 1.7],
        }
    )


def _patch_thm32(monkeypatch, draws):
    monkeypatch.setattr(facts.hmr, "load_thm32", lambda: (draws, None))
    monkeypatch.setattr(facts.hmr, "parameter_count", lambda net: {"trainable": 1234, "all": 2000})


def test_construction_counts_refusals_under_both_readings_and_the_parameters(monkeypatch):
    _patch_thm32(monkeypatch, _draws())
    f = facts.construction_facts("net", {"blocks": 7}, 3.5e-9, 40, 3)
    assert f.n_s == 40 and f.r_s == 3 and f.blocks_s == 7
    assert f.jl_draws == 5
    assert f.ref_sq.startswith("2 of 5") and f.ref_dist.startswith("1 of 5")
    assert f.params_s == 1234
    assert f.fit_s == pytest.approx(3.5e-9)


def test_construction_refuses_a_draw_whose_projection_kept_its_tolerance(monkeypatch):
    _patch_thm32(monkeypatch, _draws(jl_sq=(1.5, 2.0, 0.9, 3.0, 1.1)))
    with pytest.raises(AssertionError):
        facts.construction_facts("net", {"blocks": 7}, 3.5e-9, 40, 3)


# -- final_losses_facts ---------------------------------------------------------------------------


def _final(two_loses_at_16=False, xavier=(-4.0, -2.5, -1.0)):
    depths9 = [2, 4, 96]
    lg = {
        "2-shortcut": [-15.0, -12.0, -10.0],
        "1-shortcut": [-9.0, -8.0, -6.0],
        "orthogonal": [-8.5, -7.0, -5.5],
        "3-shortcut": [-3.0, -2.0, -0.5],
        "xavier": list(xavier),
    }
    s9 = pd.DataFrame(
        [
            dict(arch=a, depth=d, lg_excess=lg[a][i], at_rounding_floor=(a == "2-shortcut" and d == 2))
            for a in lg
            for i, d in enumerate(depths9)
        ]
    )
    depths10 = [2, 4, 8, 16, 32]
    loss2 = {2: 0.5, 4: 0.5, 8: 0.1, 16: 0.9 if two_loses_at_16 else 0.1, 32: 0.1}
    rows10 = []
    for d in depths10:
        rows10.append(dict(arch="2-shortcut", depth=d, final_loss=loss2[d], lr_unstable=False))
        for a in ("xavier-relu", "orthogonal-relu"):
            loss = 0.3 if d in (2, 4) else 0.4
            rows10.append(dict(arch=a, depth=d, final_loss=np.nan if d == 32 else loss, lr_unstable=d == 32))
    s10 = pd.DataFrame(rows10)
    T9 = pd.DataFrame({"run": [0, 1, 2, 0, 1, 2], "epochs": [1000] * 6})
    T10 = pd.DataFrame({"run": [0, 1, 0, 1], "epochs": [1000] * 4})
    return T10, T9, s10, s9


def test_final_losses_runs_epochs_and_depths():
    f = facts.final_losses_facts(*_final())
    assert f.runs9 == 3 and f.runs10 == 2 and f.epochs9 == 1000
    assert f.d9_max == 96 and f.d10_max == 32


def test_final_losses_the_unbroken_range_where_the_two_shortcut_relu_network_ends_lowest():
    f = facts.final_losses_facts(*_final())
    assert (f.win_lo, f.win_hi) == (8, 32)
    assert (f.lose_a, f.lose_b) == (2, 4)


def test_final_losses_gaps_above_the_optimum():
    f = facts.final_losses_facts(*_final())
    assert f.xavier_gap == pytest.approx(10**-1.0)
    assert f.near_gap == pytest.approx(10**-5.5)  # the larger of orthogonal's and 1-shortcut's
    assert f.three_gap == pytest.approx(10**-0.5)
    assert f.gap96 == pytest.approx(-6.0 - (-10.0))  # orders of magnitude to the next best at 96


def test_final_losses_refuses_a_broken_range_of_two_shortcut_wins():
    with pytest.raises(AssertionError):
        facts.final_losses_facts(*_final(two_loses_at_16=True))


def test_final_losses_refuses_a_xavier_gap_close_to_the_orthogonal_one():
    with pytest.raises(AssertionError):
        facts.final_losses_facts(*_final(xavier=(-8.0, -7.0, -6.5)))  # not 100 times orthogonal's


def test_final_losses_refuses_a_shallowest_two_shortcut_run_above_the_rounding_floor_when_depths_agree():
    T10, T9, s10, s9 = _final()
    s9.loc[s9.arch == "2-shortcut", "at_rounding_floor"] = False
    with pytest.raises(AssertionError):
        facts.final_losses_facts(T10, T9, s10, s9)


def test_final_losses_refuses_it_even_when_another_architecture_starts_shallower():
    T10, T9, s10, s9 = _final()
    s9.loc[s9.arch == "2-shortcut", "at_rounding_floor"] = False  # the caption's claim is now false
    shallower = pd.DataFrame([dict(arch="xavier", depth=1, lg_excess=-4.5, at_rounding_floor=False)])
    with pytest.raises(AssertionError):
        facts.final_losses_facts(T10, T9, s10, pd.concat([s9, shallower], ignore_index=True))
