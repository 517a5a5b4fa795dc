"""Tests of resnet_nb.li.limitations: each claim of the chapter passes, each falsifier is rejected
on its comparison, and the helpers behave as their docstrings say."""

import numpy as np
import pytest
import torch

import resnet_nb as rn
from resnet_nb import ShortcutNetwork
from resnet_nb.core import claims
from resnet_nb.li import limitations as lim

CLAIMS = [lim.check_fixup_not_flat, lim.check_variance_growth, lim.check_product_band, lim.check_index_vs_loss]


@pytest.mark.parametrize("fn", CLAIMS, ids=lambda f: f.__name__)
def test_claim_passes_and_falsifier_rejected(fn):
    assert fn.claim.id in claims.LEDGER
    fn(falsify=False).require()
    assert fn(falsify=True).rejected_on_value


def test_fixup_start_zeroes_only_the_last_matrix():
    net = ShortcutNetwork(5, 3, 4)
    W = lim.fixup_start(net, seed=2)
    assert torch.all(W[:, -1] == 0)
    assert torch.all(W[:, :-1].abs().sum((-1, -2)) > 0)
    with pytest.raises(ValueError, match="n >= 2"):
        lim.fixup_start(ShortcutNetwork(5, 1, 2))


def test_predicted_gain_values():
    assert lim.predicted_gain(2, "xavier") == 2.0
    assert lim.predicted_gain(3, "he") == 9.0
    assert lim.predicted_gain(3, "he", "relu") == 3.0
    assert lim.predicted_gain(2, "zero") == 1.0
    # pre-activation units: a ReLU at pre and mid halves n times, 1 + (v/2)^n; 2 for He with n = 2
    assert lim.predicted_gain(2, "he", "relu", "relu") == 2.0
    assert lim.predicted_gain(3, "xavier", "relu", "relu") == 1.125
    # the falsifier of li-4.1-variance ignores every halving
    assert lim.unhalved_gain(2, "he") == 5.0
    with pytest.raises(ValueError):
        lim.predicted_gain(2, "kaiming")


def test_zero_init_keeps_second_moment():
    prof = lim.depth_profile(2, "zero", R=5, draws=2, m=20)
    np.testing.assert_allclose(prof, 1.0, rtol=0, atol=1e-12)


def test_product_log_spread_rejects_bad_deviation():
    with pytest.raises(ValueError, match="deviation"):
        lim.product_log_spread(10, 2.0, "fixed")
    with pytest.raises(ValueError):
        lim.product_log_spread(10, 0.5, "cubic")


def test_predicted_log_std_matches_exact_two_point_sum():
    # one factor 1 +- a: std of log is (log(1+a) - log(1-a)) / 2
    a = 0.3
    assert lim.predicted_log_std(1, a) == pytest.approx((np.log1p(a) - np.log1p(-a)) / 2)
    assert lim.deviation(100, 1.0, "sqrt") == pytest.approx(0.1)
    assert lim.deviation(100, 1.0, "linear") == pytest.approx(0.01)


def test_mixed_block_inertia_and_zero_block():
    # inertia (k, k, p - 2k) with k = R d^2 and p - 2k = (n - 2) R d^2, for n = 3 and n = 2
    for n in (3, 2):
        p = lim.fixup_point(n=n, R=2)
        net = p["net"]
        k, P = p["rank_B"], net.num_params
        assert p["lead_max"] == 0 and p["negative"] == p["positive"] == k == p["cols_B"]
        assert k == net.R * net.d**2
        assert len(p["eigs"]) - 2 * k == P - 2 * k == (n - 2) * net.R * net.d**2


def test_fixup_falsifier_is_the_p_minus_k_count():
    # the falsifier counts p - k zero eigenvalues (the zero block's size): the zero count fails
    f = lim.check_fixup_not_flat(falsify=True)
    assert f.rejected_on_value
    assert "p - k" in f.claim and "p - 2k" in lim.check_fixup_not_flat().claim
    assert [x.passed for x in f.parts][:-1] == [True] * (len(f.parts) - 1) and not f.parts[-1].passed
    claim = lim.check_fixup_not_flat.claim
    assert "p - 2k" in claim.statement and "p - k)" in claim.falsifier
    assert "strict saddle" not in claim.statement and "bottleneck" not in claim.statement
    assert claim.falsifier_kind == "plausible false statement"


def test_pre_activation_gain_measured():
    # the exact expectation on the digits uses the fraction a pre ReLU keeps there (near 1/2)
    rho = lim.pre_relu_keep()
    assert 0.4 < rho < 0.6
    est, se = lim.unit_gain(2, "he", "relu", draws=200, seed=3, pre="relu")
    pred = lim.predicted_gain(2, "he", "relu", "relu", keep=rho)
    assert abs(est - pred) <= 4 * se and abs(est - 3.0) > 4 * se


def test_every_claim_states_its_falsifier_kind():
    for fn in CLAIMS:
        assert fn.claim.falsifier_kind in ("plausible false statement", "implied by the check", "regression test")


def test_zero_eigen_counts_named_sources():
    z = lim.zero_eigen_counts(lim.critical_points(R=2))
    assert z["full"] == z["symmetry"] + z["idle"] == 48 and z["none"] == 0


def test_critical_points_are_critical_and_loss_is_exact():
    df = lim.critical_points(R=1)
    assert len(df) == 16 and df["grad"].max() < 1e-10
    s = df.attrs["singular_values"]
    full = df.set_index("kept")
    # dropping direction i raises the loss by s_i^2 / 2 (Sxx = I)
    np.testing.assert_allclose(
        full.loc["none", "loss"] - full.loc["1,2,3,4", "loss"], 0.5 * float((s**2).sum()), rtol=1e-10
    )
    assert full.loc["1,2,3,4", "negative"] == 0


def test_spearman_test_detects_order():
    x = np.arange(12.0)
    rho, thr = lim.spearman_test(x, x, permutations=2000)
    assert rho == pytest.approx(1.0) and thr < 0.8


def test_index_ordered_by_rank_and_widest_discordant_pair():
    df = lim.critical_points(R=2)
    assert lim.index_ordered_by_rank(df)
    low, high = lim.widest_discordant_pair(df)
    assert low["loss"] < high["loss"] and low["index"] > high["index"]
    assert lim.discordant_pairs(df) > 0
    shuffled = df.assign(rank=df["rank"].to_numpy()[::-1])
    assert not lim.index_ordered_by_rank(shuffled)


def test_fixup_start_scales_the_random_matrices_as_zhang_et_al_and_zeroes_the_last():
    # Fixup (Zhang, Dauphin & Ma 2019): R branches of n layers, each random layer times R^(-1/(2n-2))
    for n, R in ((2, 4), (3, 9)):
        net = ShortcutNetwork(4, n, R)
        W = lim.fixup_start(net, seed=5)
        xavier = rn.initialise(net, "xavier", seed=5)
        assert torch.equal(W[:, -1], torch.zeros_like(W[:, -1]))
        torch.testing.assert_close(W[:, :-1], xavier[:, :-1] * R ** (-1.0 / (2 * n - 2)), rtol=1e-15, atol=0)
        unscaled = lim.fixup_start(net, seed=5, fixup_scale=False)
        assert torch.equal(unscaled[:, :-1], xavier[:, :-1])


def test_depth_profile_is_the_mean_over_draws_with_its_standard_error():
    mean, se = lim.depth_profile(2, "xavier", R=4, draws=6, m=30, seed=1, with_se=True)
    assert mean.shape == se.shape == (5,) and mean[0] == 1.0 and se[0] == 0.0
    assert np.all(mean > 1.0 - 1e-12) and np.all(se[1:] > 0)
    assert np.allclose(lim.depth_profile(2, "xavier", R=4, draws=6, m=30, seed=1), mean, rtol=0, atol=0)


def test_product_table_measures_the_three_scalings_against_their_predictions():
    t = lim.product_table(depths=(10, 100), draws=400)
    assert list(t.L) == [10, 100]
    # deviations of fixed size a: the spread of log prod grows as sqrt(L) atanh(a)
    assert np.allclose(t["a: std log"], t["a: √L atanh a"], rtol=0.15)
    assert t["a: std log"].iloc[1] > 2.5 * t["a: std log"].iloc[0]
    # size c / sqrt(L): a spread that does not grow; size c / L: |log prod| under c / (1 - c/L)
    assert np.allclose(t["c/√L: std log"], t["c/√L: predicted"], rtol=0.15)
    assert (t["c/L: max |log|"] <= t["c/L: bound"]).all()
    assert t["c/L: bound"].tolist() == [1.0 / (1 - 0.1), 1.0 / (1 - 0.01)]


def test_gain_table_sets_each_measured_factor_beside_its_prediction():
    t = lim.gain_table(ns=(2,), draws=60)
    assert len(t) == len(lim.GAIN_CASES) and set(t.n) == {2}
    assert (abs(t["measured g"] - t["predicted g"]) <= 5 * t["std. error"] + 0.05 * t["predicted g"]).all()
