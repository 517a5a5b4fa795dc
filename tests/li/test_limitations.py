"""Tests of resnet_nb.li.limitations: each claim of the chapter passes, each falsifier is rejected
on its comparison, and the helpers behave as their docstrings say."""

import numpy as np
import pytest
import torch

import resnet_nb as rn
from resnet_nb import ShortcutNetwork
from resnet_nb.core import claims
from resnet_nb.li import limitations as lim

CLAIMS = [lim.claim_fixup_not_flat, lim.claim_variance_growth, lim.claim_product_band, lim.claim_index_vs_loss]


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
    with pytest.raises(ValueError, match=r"\bdeviation\b"):
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
    f = lim.claim_fixup_not_flat(falsify=True)
    assert f.rejected_on_value
    P, k = f.values["net"].num_params, f.values["rank_B"]
    assert (f.values["z_pred"], lim.claim_fixup_not_flat().values["z_pred"]) == (P - k, P - 2 * k)
    assert [x.passed for x in f.parts][:-1] == [True] * (len(f.parts) - 1) and not f.parts[-1].passed
    claim = lim.claim_fixup_not_flat.claim
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


# ------------------------------------------------------------------------------------------
# (b) Section 4.1: the second moment per unit and with depth
# ------------------------------------------------------------------------------------------


def _relu_or_identity(name):
    return (lambda z: z.clamp(min=0)) if name == "relu" else (lambda z: z)


def _unit_by_hand(Wr, h, mid, pre):
    """h + W_n s(... s(W_1 p(h))) written out, independent of ShortcutNetwork.unit."""
    s, p = _relu_or_identity(mid), _relu_or_identity(pre)
    z = p(h)
    for l, W in enumerate(Wr):
        z = W @ z
        z = s(z) if l < len(Wr) - 1 else z
    return h + z


@pytest.mark.parametrize(("n", "scheme", "mid", "pre"), [(2, "he", "relu", "relu"), (3, "xavier", "identity", "relu")])
def test_unit_gain_is_the_mean_ratio_over_seeded_draws_with_its_standard_error(n, scheme, mid, pre):
    # the documented draws: unit k's matrices are the k-th block of randn seeded with seed, times sqrt(v/d)
    draws, seed, v = 5, 7, lim.GAINS[scheme]
    X = torch.randn(4, 9, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    est, se = lim.unit_gain(n, scheme, mid, draws=draws, seed=seed, X=X, pre=pre)
    g = torch.Generator().manual_seed(seed)
    W = torch.randn(draws, n, 4, 4, generator=g, dtype=torch.float64) * (v / 4) ** 0.5
    ratios = np.array(
        [float(((_unit_by_hand(W[k], X, mid, pre) ** 2).sum(0) / (X**2).sum(0)).mean()) for k in range(draws)]
    )
    assert est == pytest.approx(ratios.mean(), rel=1e-12)
    assert se == pytest.approx(ratios.std(ddof=1) / np.sqrt(draws), rel=1e-12)


def test_unit_gain_defaults_to_a_linear_unit_on_mnist():
    # without pre: no ReLU before the unit; on MNIST the linear He factor 1 + 2^2 = 5
    est, se = lim.unit_gain(2, "he", draws=40, m=50)
    assert abs(est - lim.predicted_gain(2, "he")) <= 5 * se
    relu_pre, _ = lim.unit_gain(2, "he", draws=40, m=50, pre="relu")
    assert relu_pre < est - 5 * se


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        (dict(n=0), "n"),
        (dict(scheme="kaiming"), "scheme"),
        (dict(mid="tanh"), "mid"),
        (dict(pre="tanh"), "pre"),
        (dict(draws=1), "draws"),
        (dict(m=0), "m"),
    ],
)
def test_unit_gain_refuses_what_the_prediction_does_not_cover(kwargs, name):
    args = dict(n=2, scheme="he", mid="identity", draws=2, m=5, pre="identity") | kwargs
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        lim.unit_gain(**args)
    if name in ("n", "draws", "m"):  # just inside the integer bound (two draws for a standard error)
        lim.unit_gain(**(args | {name: kwargs[name] + 1}))


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        (dict(n=0), "n"),
        (dict(scheme="kaiming"), "scheme"),
        (dict(mid="tanh"), "mid"),
        (dict(pre="tanh"), "pre"),
        (dict(keep=-0.01), "keep"),
        (dict(keep=1.01), "keep"),
    ],
)
def test_predicted_gain_refuses_what_it_does_not_cover(kwargs, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        lim.predicted_gain(**(dict(n=2, scheme="he") | kwargs))


def test_predicted_gain_uses_keep_only_behind_a_pre_relu():
    # 1 + v^n / 2^(n-1) (ReLU mid) times keep at the pre position; keep's closed ends are accepted
    for keep in (0.0, 0.3, 1.0):
        assert lim.predicted_gain(2, "he", "relu", "relu", keep=keep) == pytest.approx(1 + 2.0 * keep)
        assert lim.predicted_gain(3, "he", "identity", "relu", keep=keep) == pytest.approx(1 + 8.0 * keep)
        assert lim.predicted_gain(3, "he", "relu", "identity", keep=keep) == pytest.approx(1 + 8.0 / 4)
    assert lim.predicted_gain(3, "xavier", "relu", "relu") == pytest.approx(1 + 0.5 / 4)
    assert lim.predicted_gain(1, "he", "relu") == 3.0  # one matrix per unit (n = 1, the bound) is accepted


def test_pre_relu_keep_is_the_kept_fraction_of_the_second_moment():
    from resnet_nb.core.data import whitened_mnist

    X = whitened_mnist().X
    m = 40
    Xs = X[:, :: X.shape[1] // m][:, :m]
    by_hand = np.mean([float((x.clamp(min=0) ** 2).sum() / (x**2).sum()) for x in Xs.T])
    assert lim.pre_relu_keep(m) == pytest.approx(by_hand, rel=1e-12)
    with pytest.raises(ValueError, match=r"\bm\b"):
        lim.pre_relu_keep(0)


def _profile_by_hand(n, scheme, mid, R, draws, m, seed, scale):
    from resnet_nb.core.data import whitened_mnist

    X = whitened_mnist().X
    X = X[:, :: X.shape[1] // m][:, :m]
    d = X.shape[0]
    g = torch.Generator().manual_seed(seed)
    out = np.ones((draws, R + 1))
    for k in range(draws):
        W = torch.randn(R, n, d, d, generator=g, dtype=torch.float64) * (lim.GAINS[scheme] / d) ** 0.5 * scale
        h = X
        for r in range(R):
            h = _unit_by_hand(W[r], h, mid, "identity")
            out[k, r + 1] = float((h**2).sum(0).mean() / (X**2).sum(0).mean())
    return out


def test_depth_profile_is_the_mean_second_moment_ratio_over_seeded_networks():
    args = dict(n=2, scheme="he", mid="relu", R=3, draws=4, m=30, seed=5, scale=0.7)
    by_hand = _profile_by_hand(**args)
    mean, se = lim.depth_profile(**args, with_se=True)
    np.testing.assert_allclose(mean, by_hand.mean(0), rtol=1e-12)
    np.testing.assert_allclose(se, by_hand.std(0, ddof=1) / 2.0, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(lim.depth_profile(**args), mean, rtol=0, atol=0)


def test_depth_profile_of_one_network_has_zero_standard_error():
    mean, se = lim.depth_profile(2, "xavier", R=3, draws=1, m=20, with_se=True)
    assert se.shape == (4,) and np.all(se == 0) and np.all(np.isfinite(mean))


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        (dict(n=0), "n"),
        (dict(scheme="kaiming"), "scheme"),
        (dict(mid="tanh"), "mid"),
        (dict(R=0), "R"),
        (dict(draws=0), "draws"),
        (dict(m=0), "m"),
        (dict(scale=float("nan")), "scale"),
    ],
)
def test_depth_profile_refuses_bad_arguments(kwargs, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        lim.depth_profile(**(dict(n=2, scheme="he", R=2, draws=2, m=5) | kwargs))


# ------------------------------------------------------------------------------------------
# (c) Section 2: products of factors 1 +- a
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("L", "size", "scaling", "a"), [(7, 0.3, "fixed", 0.3), (16, 2.0, "sqrt", 0.5), (8, 2.0, "linear", 0.25)]
)
def test_product_log_spread_sums_logs_of_factors_one_plus_or_minus_a(L, size, scaling, a):
    draws = 300
    logs = lim.product_log_spread(L, size, scaling, draws=draws, seed=4)
    assert logs.shape == (draws,)
    # each draw is k log(1 + a) + (L - k) log(1 - a) for some count k of plus signs in 0..L
    k = (logs - L * np.log1p(-a)) / (np.log1p(a) - np.log1p(-a))
    np.testing.assert_allclose(k, np.round(k), rtol=0, atol=1e-9)
    k = np.round(k)
    assert k.min() >= 0 and k.max() <= L
    # fair signs: k is Binomial(L, 1/2)
    assert abs(k.mean() - L / 2) <= 5 * np.sqrt(L / 4 / draws)
    assert k.std() == pytest.approx(np.sqrt(L / 4), rel=0.25)
    np.testing.assert_array_equal(logs, lim.product_log_spread(L, size, scaling, draws=draws, seed=4))
    assert not np.array_equal(logs, lim.product_log_spread(L, size, scaling, draws=draws, seed=5))


def test_product_log_spread_refuses_bad_arguments_at_the_bounds():
    with pytest.raises(ValueError, match=r"\bL\b"):
        lim.product_log_spread(0, 0.5)
    with pytest.raises(ValueError, match=r"\bdraws\b"):
        lim.product_log_spread(3, 0.5, draws=0)
    with pytest.raises(ValueError, match=r"\bscaling\b"):
        lim.product_log_spread(3, 0.5, "cubic")
    assert lim.product_log_spread(1, 0.5, draws=1).shape == (1,)  # L = 1 and draws = 1 accepted
    # the deviation must lie in the open interval (0, 1), whatever the scaling
    for size, scaling, L in (
        (1.0, "fixed", 3),
        (0.0, "fixed", 3),
        (-0.1, "fixed", 3),
        (2.0, "sqrt", 4),
        (4.0, "linear", 4),
    ):
        with pytest.raises(ValueError, match=r"\bsize\b"):
            lim.product_log_spread(L, size, scaling)
    for size, scaling, L in ((0.999, "fixed", 3), (1e-6, "fixed", 3), (1.99, "sqrt", 4), (3.99, "linear", 4)):
        assert np.all(np.isfinite(lim.product_log_spread(L, size, scaling, draws=5)))


def test_deviation_divides_the_size_by_one_sqrt_L_or_L():
    assert lim.deviation(9, 0.6, "fixed") == 0.6
    assert lim.deviation(9, 0.6, "sqrt") == pytest.approx(0.2)
    assert lim.deviation(9, 0.6, "linear") == pytest.approx(0.6 / 9)
    with pytest.raises(ValueError, match=r"\bscaling\b"):
        lim.deviation(9, 0.6, "log")


@pytest.mark.parametrize(("a", "c"), [(None, None), (0.3, 0.8)])
def test_product_table_columns_are_the_statistics_of_the_seeded_draws(a, c):
    depths, draws = (10, 40), 50
    t = lim.product_table(depths=depths, a=a, c=c, draws=draws)
    a = lim.PRODUCT_A if a is None else a
    c = lim.PRODUCT_C if c is None else c
    for row, L in zip(t.itertuples(index=False), depths, strict=True):
        fixed = lim.product_log_spread(L, a, "fixed", draws=draws, seed=L)
        sqrt_ = lim.product_log_spread(L, c, "sqrt", draws=draws, seed=L + 1)
        lin = lim.product_log_spread(L, c, "linear", draws=draws, seed=L + 2)
        assert row[0] == L
        np.testing.assert_allclose(
            row[1:],
            [
                np.std(fixed, ddof=1),
                np.sqrt(L) * np.arctanh(a),
                np.exp(np.median(fixed)),
                np.std(sqrt_, ddof=1),
                np.sqrt(L) * np.arctanh(c / np.sqrt(L)),
                np.max(np.abs(lin)),
                c / (1 - c / L),
            ],
            rtol=1e-12,
        )


def test_gain_table_rows_are_the_cases_measured_and_predicted_in_closed_form():
    ns, draws = (2, 3), 20
    t = lim.gain_table(ns=ns, draws=draws)
    rho = lim.pre_relu_keep()
    cases = [(n, *case) for n in ns for case in lim.GAIN_CASES]
    assert list(zip(t["n"], t["init"], t["mid"], t["pre"], strict=True)) == cases
    for (n, scheme, mid, pre), row in zip(cases, t.to_dict("records"), strict=True):
        v = {"xavier": 1.0, "he": 2.0}[scheme]
        branch = v**n / (2 ** (n - 1) if mid == "relu" else 1)
        assert row["predicted g"] == pytest.approx(1 + branch * (rho if pre == "relu" else 1))
        assert row["symmetric inputs"] == pytest.approx(1 + branch * (0.5 if pre == "relu" else 1))
        est, se = lim.unit_gain(n, scheme, mid, draws=draws, seed=n, pre=pre)
        assert (row["measured g"], row["std. error"]) == (est, se)


# ------------------------------------------------------------------------------------------
# (d) Section 5.2: critical points, their index and the rank test
# ------------------------------------------------------------------------------------------


def test_whitened_synthetic_whitens_the_seeded_synthetic_inputs_exactly():
    from resnet_nb.core.data import synthetic_linear

    d, m, seed = 3, 50, 2
    data, raw = lim.whitened_synthetic(d, m, seed=seed), synthetic_linear(d, m, seed=seed)
    # the model's description kept (its matrix R, noise, seed), whitening added
    assert data.X.shape == (d, m) and data.info.keys() == raw.info.keys() | {"whitened"} and data.info["whitened"]
    assert data.info["seed"] == seed and torch.equal(data.info["R"], raw.info["R"])
    torch.testing.assert_close(data.X @ data.X.T / m, torch.eye(d, dtype=torch.float64), rtol=0, atol=1e-12)
    torch.testing.assert_close(data.Y, raw.Y, rtol=0, atol=0)
    # the symmetric whitening: X_w = S^(-1/2) X, so X = S^(1/2) X_w with S^(1/2) symmetric positive definite
    S_half = raw.X @ torch.linalg.pinv(data.X)
    torch.testing.assert_close(S_half, S_half.T, rtol=0, atol=1e-10)
    torch.testing.assert_close(S_half @ S_half, raw.X @ raw.X.T / m, rtol=1e-10, atol=1e-12)
    assert torch.linalg.eigvalsh(S_half).min() > 0


def test_spearman_rho_is_scipys_with_ties_and_zero_for_a_constant():
    from scipy.stats import spearmanr

    rng = np.random.default_rng(1)
    x, y = rng.integers(0, 5, 15).astype(float), rng.normal(size=15)
    rho, _ = lim.spearman_test(x, y, permutations=10)
    assert rho == pytest.approx(spearmanr(x, y).statistic, rel=1e-12)
    assert lim.spearman_test(np.ones(6), np.arange(6.0), permutations=10) == (0.0, 0.0)
    assert lim.spearman_test(np.arange(6.0), np.ones(6), permutations=10) == (0.0, 0.0)
    assert lim.spearman_test(np.arange(6.0), -np.arange(6.0), permutations=10)[0] == pytest.approx(-1.0)


@pytest.mark.parametrize("q", [10.0, 50.0, 90.0])
def test_spearman_threshold_is_the_percentile_of_the_exact_permutation_null(q):
    import itertools

    x, y = np.arange(6.0), np.array([2.0, 0.0, 5.0, 1.0, 4.0, 3.0])
    a = x - x.mean()
    exact = [float(a @ (np.array(p) - 2.5) / (a @ a)) for p in itertools.permutations(range(6))]
    _, thr = lim.spearman_test(x, y, permutations=20000, q=q, seed=3)
    # a Monte Carlo percentile of 20,000 pairings lies between the exact null's percentiles q -+ 2
    assert np.percentile(exact, q - 2) <= thr <= np.percentile(exact, q + 2)
    assert lim.spearman_test(x, y, permutations=200, q=q, seed=3) == lim.spearman_test(
        x, y, permutations=200, q=q, seed=3
    )


def test_spearman_threshold_depends_on_the_seed_and_the_number_of_pairings():
    x, y = np.arange(8.0), np.arange(8.0)
    thresholds = {lim.spearman_test(x, y, permutations=p, seed=s)[1] for p in (30, 31) for s in (0, 1)}
    assert len(thresholds) > 1


def _frame(loss, index, rank=None):
    import pandas as pd

    return pd.DataFrame(dict(loss=loss, index=index, rank=rank if rank is not None else [0] * len(loss)))


def test_discordant_pairs_count_strictly_lower_index_at_strictly_larger_loss():
    # ties in the loss or in the index are not discordant
    loss, index = [0.0, 1.0, 1.0, 2.0, 3.0], [0.5, 0.5, 0.25, 0.25, 0.5]
    brute = sum(1 for i in range(5) for j in range(5) if loss[i] < loss[j] and index[i] > index[j])
    assert lim.discordant_pairs(_frame(loss, index)) == brute == 3
    assert lim.discordant_pairs(_frame([0.0, 1.0], [0.2, 0.2])) == 0
    assert lim.discordant_pairs(_frame([0.0, 1.0], [0.3, 0.2])) == 1


def test_widest_discordant_pair_has_the_largest_loss_gap_and_none_is_refused():
    low, high = lim.widest_discordant_pair(_frame([0.0, 1.0, 1.0, 2.0, 3.0], [0.5, 0.5, 0.25, 0.25, 0.5]))
    assert (low["loss"], high["loss"]) == (0.0, 2.0)
    low, high = lim.widest_discordant_pair(_frame([0.0, 1.0], [0.3, 0.2]))
    assert (low["loss"], high["loss"]) == (0.0, 1.0)
    with pytest.raises(ValueError, match="no discordant pair"):
        lim.widest_discordant_pair(_frame([0.0, 1.0, 2.0], [0.1, 0.1, 0.2]))


def test_index_ordered_by_rank_is_strict_between_consecutive_ranks():
    assert lim.index_ordered_by_rank(_frame([0, 1, 2, 3], [0.4, 0.3, 0.2, 0.1], [0, 1, 1, 2]))
    assert not lim.index_ordered_by_rank(_frame([0, 1, 2, 3], [0.4, 0.3, 0.3, 0.1], [0, 1, 2, 2]))  # a tie
    assert not lim.index_ordered_by_rank(_frame([0, 1, 2], [0.4, 0.5, 0.1], [0, 1, 1]))


def test_critical_points_sorted_by_loss_either_way_on_given_data():
    data = lim.whitened_synthetic(2, 60, seed=1)
    up, down = lim.critical_points(data, R=1), lim.critical_points(data, R=1, descending=True)
    assert len(up) == 4 and up["loss"].is_monotonic_increasing and down["loss"].is_monotonic_decreasing
    assert list(down["kept"]) == list(up["kept"])[::-1]
    assert list(up.index) == list(down.index) == [0, 1, 2, 3]  # rows numbered in their sorted order
    assert up.attrs["P"] == 2 * 2 * 2 and down.attrs["net"].R == 1
    assert up["grad"].max() < 1e-10 and set(up["rank"]) == {0, 1, 2}
    with pytest.raises(ValueError, match=r"\bR\b"):
        lim.critical_points(data, R=0)


def test_zero_eigen_counts_match_the_symmetry_and_idle_units_for_one_and_two_units():
    for R in (1, 2):
        z = lim.zero_eigen_counts(lim.critical_points(R=R))
        assert z["symmetry"] == 16 and z["idle"] == (R - 1) * 2 * 16
        assert z["full"] == z["predicted_full"] == 16 + (R - 1) * 32 and z["none"] == 0


def test_spearman_test_refuses_bad_pairings_and_percentiles():
    x = np.arange(5.0)
    with pytest.raises(ValueError, match=r"\bpermutations\b"):
        lim.spearman_test(x, x, permutations=0)
    for q in (-0.1, 100.1):
        with pytest.raises(ValueError, match=r"\bq\b"):
            lim.spearman_test(x, x, permutations=5, q=q)
    # the closed ends: the smallest and largest value of the null
    lo, hi = (lim.spearman_test(x, x, permutations=1, q=q)[1] for q in (0.0, 100.0))
    assert lo == hi and -1.0 <= lo <= 1.0


# ------------------------------------------------------------------------------------------
# (a) the zero-last-layer start
# ------------------------------------------------------------------------------------------


def test_mixed_block_rank_splits_the_hessian_by_the_matrices_before_the_last():
    net = ShortcutNetwork(2, 3, 2)  # parameters ordered W[r, l], d^2 each
    d2, P = 4, net.num_params
    lead = [(r * net.n + l) * d2 + j for r in range(net.R) for l in range(net.n - 1) for j in range(d2)]
    rest = [i for i in range(P) if i not in lead]
    H = torch.zeros(P, P, dtype=torch.float64)
    H[np.ix_(rest, rest)] = 5.0
    H[lead[0], lead[1]] = H[lead[1], lead[0]] = -0.75  # the largest entry of the first block
    for i, s in enumerate((3.0, 2.0, 1.0)):  # B with singular values 3, 2, 1
        H[lead[i], rest[i]] = H[rest[i], lead[i]] = s
    size, rank, cols, lead_max = lim.mixed_block_rank(H, net, floor=0.5)
    assert (size, rank, cols, lead_max) == (len(lead), 3, len(rest), 0.75)
    assert lim.mixed_block_rank(H, net, floor=1.0)[1] == 2  # a singular value at the floor is not counted
    assert lim.mixed_block_rank(H, net, floor=0.999)[1] == 3


def test_fixup_point_reports_its_floor_counts_and_lead_block_size():
    from resnet_nb.core.data import synthetic_linear

    # given data: computed here (the whitened-MNIST points are kept once computed)
    p = lim.fixup_point(n=3, R=2, data=synthetic_linear(3, 40, seed=2))
    net, eigs = p["net"], p["eigs"]
    assert p["floor"] == pytest.approx(len(eigs) * np.finfo(np.float64).eps * np.abs(eigs).max(), rel=1e-12)
    assert p["negative"] == int((eigs < -p["floor"]).sum()) and p["positive"] == int((eigs > p["floor"]).sum())
    assert p["lead_block"] == net.R * (net.n - 1) * net.d**2 and p["cols_B"] == net.num_params - p["lead_block"]
    assert p["max_H"] == pytest.approx(float(p["H_autograd"].abs().max()))
    torch.testing.assert_close(p["W"], lim.fixup_start(net, seed=0), rtol=0, atol=0)


def test_fixup_point_on_given_data_is_computed_there():
    from resnet_nb.core.data import synthetic_linear

    data = synthetic_linear(3, 40, seed=1)
    p = lim.fixup_point(n=2, R=2, seed=1, data=data)
    assert p["net"].d == 3 and p["lead_block"] == 2 * 9
    torch.testing.assert_close(p["W"], lim.fixup_start(ShortcutNetwork(3, 2, 2), seed=1), rtol=0, atol=0)
    torch.testing.assert_close(p["H_autograd"], p["H_kronecker"], rtol=0, atol=1e-10)
    # w = 0 is critical for n >= 2 (Theorem 1), with a Hessian that vanishes only from n = 3 on
    assert p["grad_norm"] > 1e-3 and p["zero_grad_norm"] == 0.0 and p["zero_max_H"] > 1e-3
    assert lim.fixup_point(n=3, R=1, data=data)["zero_max_H"] == 0.0
    assert p["lead_max"] < 1e-12 and p["negative"] == p["positive"] == p["rank_B"] == p["cols_B"]
    # given data are never served from, nor stored in, the whitened-MNIST results kept per (n, R, seed)
    mnist = lim.fixup_point(n=2, R=2)
    assert lim.fixup_point(n=2, R=2, data=data)["net"].d == 3
    assert lim.fixup_point(n=2, R=2) is mnist and mnist["net"].d == 10


def test_unit_gain_reads_m_evenly_spaced_mnist_digits():
    from resnet_nb.core.data import whitened_mnist

    X = whitened_mnist().X
    m = 40
    subsample = X[:, :: X.shape[1] // m][:, :m]
    assert lim.unit_gain(2, "he", "relu", draws=3, m=m, seed=2) == lim.unit_gain(
        2, "he", "relu", draws=3, seed=2, X=subsample
    )


def test_critical_point_rows_are_the_loss_gradient_and_inertia_of_their_weights():
    from resnet_nb.core.hessians import hessian, loss_function
    from resnet_nb.core.losses import loss as loss_at
    from resnet_nb.core.networks import flatten

    data = lim.whitened_synthetic(2, 60, seed=1)
    df = lim.critical_points(data, R=2)
    net, stats = df.attrs["net"], data.stats()
    T = stats.Syx - stats.Sxx
    U, s, Vh = torch.linalg.svd(T)
    np.testing.assert_allclose(df.attrs["singular_values"], s.numpy(), rtol=1e-12)
    P = df.attrs["P"]
    assert P == net.num_params == 2 * 2 * 2 * 2
    f = loss_function(net, stats)
    for row in df.to_dict("records"):
        kept = [] if row["kept"] == "none" else [int(i) - 1 for i in row["kept"].split(",")]
        assert row["rank"] == len(kept)
        W = torch.zeros(net.shape, dtype=torch.float64)
        for i in kept:  # unit 1: W_1 = sum sqrt(s_i) e_i v_i^T, W_2 = sum sqrt(s_i) u_i e_i^T
            W[0, 0, i] = s[i].sqrt() * Vh[i]
            W[0, 1, :, i] = s[i].sqrt() * U[:, i]
        w = flatten(W).requires_grad_(True)
        (g,) = torch.autograd.grad(f(w), w)
        assert row["loss"] == pytest.approx(float(loss_at(net, W, stats)), rel=1e-12)
        assert row["grad"] < 1e-12 and float(g.norm()) < 1e-12
        e = np.linalg.eigvalsh(hessian(net, W, stats).numpy())
        floor = P * np.finfo(np.float64).eps * np.abs(e).max()
        assert row["negative"] == int((e < -floor).sum()) and row["index"] == row["negative"] / P
        assert row["zero"] == int((np.abs(e) <= floor).sum())
        assert row["H_size"] == pytest.approx(np.abs(hessian(net, W, stats).numpy()).max(), rel=1e-12)
        assert row["H_diff"] < 1e-12
    # M = sum over kept of s_i u_i v_i^T: the loss falls by s_i^2 / 2 per kept direction (Sxx = I)
    none = df.set_index("kept").loc["none", "loss"]
    for row in df.to_dict("records"):
        kept = [] if row["kept"] == "none" else [int(i) - 1 for i in row["kept"].split(",")]
        assert none - row["loss"] == pytest.approx(0.5 * float((s[kept] ** 2).sum()), rel=1e-9, abs=1e-15)


# ------------------------------------------------------------------------------------------
# the claims' comparisons, part by part
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("falsify", [False, True])
def test_variance_claim_compares_each_measured_factor_with_its_closed_form_at_four_standard_errors(falsify):
    res = lim.claim_variance_growth(falsify=falsify)
    rho = lim.pre_relu_keep()
    assert len(res.parts) == len(lim.GAIN_CASES)
    for part, (scheme, mid, pre) in zip(res.parts, lim.GAIN_CASES, strict=True):
        v = {"xavier": 1.0, "he": 2.0}[scheme]
        halving = 1.0 if falsify else (2.0 if mid == "relu" else 1.0) / (rho if pre == "relu" else 1.0)
        pred = 1.0 + v**2 / halving
        est = part.nontrivial + 1.0  # the measured growth beyond 1
        assert part.value == pytest.approx(abs(est - pred), rel=1e-12, abs=1e-15)
        assert part.op == "<=" and part.tol == 4 * part.spread and part.nontrivial_min == 4 * part.spread
        assert 0 < part.spread < 0.05 * est


@pytest.mark.parametrize("falsify", [False, True])
def test_product_claim_compares_spreads_with_sqrt_L_atanh_a_at_four_standard_errors(falsify):
    res = lim.claim_product_band(falsify=falsify)
    L0, L1, N = lim.PRODUCT_DEPTHS[0], lim.PRODUCT_DEPTHS[-1], lim.PRODUCT_DRAWS
    if falsify:
        sd1 = res.nontrivial
        se = res.spread
        sd0 = sd1 - res.value
        assert res.op == ">=" and res.tol == 4 * se
        assert se == pytest.approx(np.hypot(sd0, sd1) / np.sqrt(2 * (N - 1)), rel=1e-12)
        # both spreads near the bounded prediction c atanh-ish: about c = 1
        assert sd0 == pytest.approx(np.sqrt(L0) * np.arctanh(1 / np.sqrt(L0)), rel=0.1)
        return
    cases = [(a, L) for a in ("fixed", "sqrt") for L in (L0, L1)]
    assert len(res.parts) == 4
    for part, (scaling, L) in zip(res.parts, cases, strict=True):
        a = lim.PRODUCT_A if scaling == "fixed" else lim.PRODUCT_C / np.sqrt(L)
        sd = part.nontrivial
        assert part.value == pytest.approx(abs(sd - np.sqrt(L) * np.arctanh(a)), rel=1e-9, abs=1e-12)
        assert part.spread == pytest.approx(sd / np.sqrt(2 * (N - 1)), rel=1e-12)
        assert part.op == "<=" and part.tol == 4 * part.spread


def test_fixup_claim_counts_the_inertia_of_its_point():
    p = lim.fixup_point()
    assert (p["net"].n, p["net"].R, p["net"].d) == (3, 2, 10)  # the claim's network: 3-shortcut, R = 2, MNIST
    P, k = p["net"].num_params, p["rank_B"]
    zeros = len(p["eigs"]) - p["negative"] - p["positive"]
    for falsify, z_pred in ((False, P - 2 * k), (True, P - k)):
        res = lim.claim_fixup_not_flat(falsify=falsify)
        agree, full_rank, lead, grad, neg, pos, zero = res.parts
        size = p["max_H"]
        tol = 100 * P * np.finfo(np.float64).eps * size
        assert agree.value == float((p["H_autograd"] - p["H_kronecker"]).abs().max()) and agree.tol == pytest.approx(
            tol
        )
        assert full_rank.value == p["cols_B"] - k and full_rank.tol == 0
        assert lead.value == p["lead_max"] and lead.tol == pytest.approx(tol)
        assert grad.value == p["grad_norm"] and grad.op == ">="
        assert grad.tol == pytest.approx(100 * P * np.finfo(np.float64).eps * max(size, 1.0))
        assert (neg.value, pos.value) == (abs(p["negative"] - k), abs(p["positive"] - k)) and neg.nontrivial == k
        assert zero.value == abs(zeros - z_pred) and zero.tol == 0


def test_index_claim_is_the_rank_test_of_loss_against_the_index():
    df = lim.critical_points()
    P, size = df.attrs["P"], float(df["H_size"].max())
    eps = np.finfo(np.float64).eps
    critical, routes, rank = lim.claim_index_vs_loss().parts
    rho, thr = lim.spearman_test(df["loss"].to_numpy(), df["index"].to_numpy())
    assert (rank.value, rank.tol, rank.op) == (rho, thr, ">=")
    assert rank.nontrivial == df["index"].max() - df["index"].min() > 0
    assert critical.value == df["grad"].max() and critical.tol == pytest.approx(100 * P * eps * max(size, 1.0))
    assert routes.value == df["H_diff"].max() and routes.tol == pytest.approx(100 * P * eps * size)
    assert routes.nontrivial == size
