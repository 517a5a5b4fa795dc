"""Tests of resnet_nb.li.theorem1: every check must pass where the statement is true and fail
where it is false (a check that cannot fail is a defect)."""

import numpy as np
import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from resnet_nb import ShortcutNetwork, synthetic_linear
from resnet_nb.core.hessians import directional_derivatives, hessian, loss_function, theorem1_blocks
from resnet_nb.core import claims
from resnet_nb.li.theorem1 import (covers_unit, depth_table, eq11_assemble, eq13_assemble, eq21_A, eq25_B,
                                eq28_A, lemma1_check, lemma2_check, mixed_partial, one_sided_derivatives,
                                order_n_closed_form, param_coords, param_index, part1_check,
                                part2_check, part3_check, relu_kink_check, shifted_sigmoid,
                                shuffle_matrix, taylor_remainder_check)
from resnet_nb.li.dynamics import (eq7_check, eq7_update, eq15_16_check, figure4_one_shortcut_check,
                                         figure4_skip_all_check)

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def data3():
    # not whitened (Sxx != I): an adversarial setting for formulas that silently assume Sxx = I
    cov = torch.tensor([[2.0, 0.5, 0.0], [0.5, 1.0, 0.3], [0.0, 0.3, 0.5]], dtype=torch.float64)
    return synthetic_linear(3, 40, cov=cov, seed=1)


# -- bookkeeping ------------------------------------------------------------------------------

def test_param_index_roundtrip_and_definition5_order():
    net = ShortcutNetwork(3, 2, 2)
    seen = []
    for r in range(2):
        for l in range(2):
            for j in range(3):
                for i in range(3):
                    seen.append(param_index(net, r, l, i, j))
    assert seen == list(range(net.num_params))  # lexicographic in (r, l, j, i)
    for a in range(net.num_params):
        assert param_index(net, *param_coords(net, a)) == a


def test_param_index_rejects_bad_input():
    net = ShortcutNetwork(3, 2, 2)
    with pytest.raises(ValueError, match="r must be an integer in"):
        param_index(net, 2, 0, 0, 0)
    with pytest.raises(ValueError, match="a must be an integer in"):
        param_coords(net, net.num_params)
    with pytest.raises(ValueError, match="indices must name at least one"):
        mixed_partial(lambda w: w.sum(), torch.zeros(3, dtype=torch.float64), [])


def test_covers_unit():
    net = ShortcutNetwork(3, 2, 2)
    a = param_index(net, 1, 0, 0, 0)
    b = param_index(net, 1, 1, 2, 1)
    c = param_index(net, 0, 1, 0, 0)
    assert covers_unit(net, [a, b])
    assert not covers_unit(net, [a, c])
    assert not covers_unit(net, [a, a, a])


def test_mixed_partial_matches_autograd_hessian_entries(data3):
    net = ShortcutNetwork(3, 2, 2, pre="tanh", mid="silu")
    W = torch.randn(net.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(0)) * 0.3
    H = hessian(net, W, data3)
    f = loss_function(net, data3)
    from resnet_nb import flatten
    w = flatten(W)
    rng = np.random.default_rng(0)
    for _ in range(6):
        a, b = (int(x) for x in rng.integers(net.num_params, size=2))
        assert abs(mixed_partial(f, w, [a, b]) - float(H[a, b])) < 1e-12


def test_mixed_partial_repeated_index_is_pure_derivative(data3):
    net = ShortcutNetwork(3, 3, 1, mid="tanh")
    f = loss_function(net, data3)
    w = torch.full((net.num_params,), 0.2, dtype=torch.float64)
    e = torch.zeros(net.num_params, dtype=torch.float64)
    e[5] = 1.0
    dd = directional_derivatives(f, w, e, 3)
    assert abs(mixed_partial(f, w, [5, 5, 5]) - dd[2]) < 1e-12


# -- Lemma 1 ----------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("acts", [{}, {"pre": "tanh", "mid": "silu", "post": "tanh"}, {"mid": "relu"}])
def test_lemma1_holds(data3, n, acts):
    res = lemma1_check(ShortcutNetwork(3, n, 2, **acts), data3, samples=4, seed=n)
    assert res.passed, str(res)
    if n >= 2:
        assert res.values["worst_noncovering"] <= 1e-12
    assert res.values["min_chain"] > 1e-6  # covering chains are nonzero


def test_lemma1_fails_without_sigma_mid_zero(data3):
    res = lemma1_check(ShortcutNetwork(3, 2, 2, mid=shifted_sigmoid()), data3, samples=6)
    assert res.rejected_on_value
    assert res.values["worst_noncovering"] > 1e-3


def test_order_n_closed_form_rejects_wrong_length(data3):
    with pytest.raises(ValueError, match="exactly n = 2"):
        order_n_closed_form(ShortcutNetwork(3, 2, 1), data3, [0])


@settings(max_examples=8, deadline=None)
@given(n=st.integers(1, 3), R=st.integers(1, 3), d=st.integers(2, 3), seed=st.integers(0, 10_000))
def test_lemma1_random_networks(n, R, d, seed):
    data = synthetic_linear(d, 12, seed=seed)
    res = lemma1_check(ShortcutNetwork(d, n, R, mid="tanh"), data, samples=3, seed=seed)
    assert res.passed, str(res)


# -- Lemma 2 ----------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2])
def test_lemma2_holds(data3, n):
    res = lemma2_check(ShortcutNetwork(3, n, 3, pre="tanh", post="silu"), data3, samples=9)
    assert res.passed, str(res)
    assert res.values["biggest"] > 1e-3  # not a comparison of zeros


def test_lemma2_fails_without_sigma_post_zero(data3):
    res = lemma2_check(ShortcutNetwork(3, 1, 3, post=shifted_sigmoid()), data3, samples=9)
    assert res.rejected_on_value


def test_lemma2_needs_two_units(data3):
    with pytest.raises(ValueError, match="net.R must be >= 2"):
        lemma2_check(ShortcutNetwork(3, 2, 1), data3)


# -- Part 1 and Definition 4 -------------------------------------------------------------------

@pytest.mark.parametrize("n", [2, 3, 4])
def test_part1_holds(data3, n):
    res = part1_check(ShortcutNetwork(3, n, 2, mid="tanh", post="silu"), data3, directions=8)
    assert res.passed, str(res)
    if n >= 3:
        assert res.values["hmax"] == 0.0


def test_part1_fails_when_sigma_mid_is_not_zero(data3):
    res = part1_check(ShortcutNetwork(3, 2, 2, mid=shifted_sigmoid()), data3, directions=4)
    assert res.rejected_on_value
    assert res.values["worst_low"] > 1e-3  # the gradient at 0 no longer vanishes


@pytest.mark.parametrize("n", [1, 2, 3])
def test_taylor_remainder(data3, n):
    res = taylor_remainder_check(ShortcutNetwork(3, n, 2), data3)
    assert res.passed, str(res)


@pytest.mark.parametrize("n", [2, 3])
def test_taylor_remainder_rate_rejects_the_2k_reading(data3, n):
    # the remainder o(|x|^(2k)) makes the limit of (L(tv) - L(0)) / t^n zero: the gap to it then
    # tends to a constant (exponent 0), while Definition 4's limit leaves a gap that vanishes like
    # t^n for a linear network (the next term of L(tv) is of order 2n)
    good = taylor_remainder_check(ShortcutNetwork(3, n, 2), data3)
    assert good.values["rate"] == pytest.approx(n, abs=0.05)
    bad = taylor_remainder_check(ShortcutNetwork(3, n, 2), data3, reading="2k")
    assert bad.parts[1].rejected_on_value and abs(bad.values["rate"]) < 0.05
    assert bad.parts[0].rejected_on_value


def test_taylor_remainder_backward_side_is_the_symmetry(data3):
    # linear networks: L(tv) = g(t^n) (each unit's product W_n...W_1 scales like t^n), so
    # L(-tv) = g((-t)^n): for n = 2 the two quotients are equal; for n = 3 they are opposite up to
    # the order-2n term, Q(t) + Q(-t) = 2 g''(0)/2 t^3, which shrinks like t^3
    res = taylor_remainder_check(ShortcutNetwork(3, 2, 2), data3)
    for _, a, b in res.values["rows"]:
        assert b == pytest.approx(a, rel=1e-12, abs=0)
    res = taylor_remainder_check(ShortcutNetwork(3, 3, 2), data3)
    (_, a1, b1), (_, a2, b2) = res.values["rows"][:2]
    assert math.log10(abs(a1 + b1) / abs(a2 + b2)) == pytest.approx(3, abs=0.05)


# -- the paper's matrices ----------------------------------------------------------------------

def test_shuffle_matrix_is_the_commutation_permutation():
    d = 4
    P = shuffle_matrix(d)
    assert torch.equal(P @ P.T, torch.eye(d * d, dtype=torch.float64))
    X = torch.arange(d * d, dtype=torch.float64).reshape(d, d)
    def vec(A):
        return A.T.reshape(-1)  # column-major, as Definition 5
    assert torch.equal(P.T @ vec(X), vec(X.T))


def test_eq21_matches_closed_form_A(data3):
    net = ShortcutNetwork(3, 2, 1, pre="tanh", post="silu")
    b = theorem1_blocks(net, data3)
    assert float((b["A"] - eq21_A(b["M"])).abs().max()) == 0.0


def test_eq25_eq28_match_closed_form(data3):
    net = ShortcutNetwork(3, 1, 1)
    s = data3.stats()
    b = theorem1_blocks(net, s)
    assert float((b["B"] - eq25_B(s.Sxx)).abs().max()) < 1e-15
    assert float((b["A"] - eq28_A(s.Sxx, s.Syx)).abs().max()) < 1e-15


def test_assemblers_reject_bad_R():
    A = torch.eye(4, dtype=torch.float64)
    with pytest.raises(ValueError, match="R must be an integer >= 1"):
        eq11_assemble(A, 0)
    with pytest.raises(ValueError, match="R must be an integer >= 1"):
        eq13_assemble(A, A, 0)


# -- Part 2 -----------------------------------------------------------------------------------

@pytest.mark.parametrize("acts", [{}, {"pre": "tanh", "mid": "tanh", "post": "silu"}, {"pre": "relu"}])
def test_part2_holds(data3, acts):
    res = part2_check(ShortcutNetwork(3, 2, 3, **acts), data3)
    assert res.passed, str(res)
    assert res.values["lam_min"] < 0
    assert abs(res.values["cond_H"] - res.values["cond_M"]) <= 1e-10 * res.values["cond_M"]


def test_part2_fails_on_a_perturbed_hessian(data3):
    net = ShortcutNetwork(3, 2, 2)
    H = hessian(net, torch.zeros(net.shape, dtype=torch.float64), data3)
    E = torch.zeros_like(H)
    E[0, 20] = E[20, 0] = 1e-3  # a coupling between unit 0 and unit 1
    assert part2_check(net, data3, H=H).passed
    assert part2_check(net, data3, H=H + E).rejected_on_value


def test_part2_rejects_wrong_n(data3):
    with pytest.raises(ValueError, match="n = 2"):
        part2_check(ShortcutNetwork(3, 1, 2), data3)


def test_depth_table_two_shortcut_invariant(data3):
    rows = depth_table(2, [1, 2, 5], data3.stats(), progress=False)
    conds = [r["cond"] for r in rows]
    assert max(conds) - min(conds) <= 1e-10 * conds[0]
    assert abs(conds[0] - rows[0]["predicted"]) <= 1e-10 * conds[0]
    assert all(r["off_unit_max"] == 0.0 for r in rows)


# -- Part 3 -----------------------------------------------------------------------------------

@pytest.mark.parametrize("acts", [{}, {"pre": "tanh", "post": "silu"}])
def test_part3_holds(data3, acts):
    res = part3_check(ShortcutNetwork(3, 1, 4, **acts), data3)
    assert res.passed, str(res)


def test_part3_fails_on_a_perturbed_hessian(data3):
    net = ShortcutNetwork(3, 1, 3)
    H = hessian(net, torch.zeros(net.shape, dtype=torch.float64), data3)
    E = torch.zeros_like(H)
    E[25, 1] = E[1, 25] = 1e-3  # block (2, 0) no longer equals block (1, 0)
    assert part3_check(net, data3, H=H + E).rejected_on_value


def test_one_shortcut_condition_grows(data3):
    rows = depth_table(1, [1, 4, 16], data3.stats(), progress=False)
    c = [r["cond10"] for r in rows]
    assert c[0] < c[1] < c[2]


# -- ReLU -------------------------------------------------------------------------------------

@pytest.mark.parametrize("position", ["mid", "post"])
def test_relu_kink_detected(data3, position):
    res = relu_kink_check(data3, position, pairs=3)
    assert res.passed, str(res)
    assert res.values["spread"] > 1e-3


def test_one_sided_derivatives_of_a_smooth_loss_are_two_sided(data3):
    # control for the ReLU check: a linear network's loss is a polynomial, D2+(v) = D2+(-v) = v^T H v
    net = ShortcutNetwork(3, 2, 1)
    f = loss_function(net, data3)
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    v = torch.randn(net.num_params, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    dp, rp = one_sided_derivatives(f, w0, v, degree=4)
    dm, rm = one_sided_derivatives(f, w0, -v, degree=4)
    H = hessian(net, torch.zeros(net.shape, dtype=torch.float64), data3)
    assert rp < 1e-10 and rm < 1e-10
    assert abs(dp[2] - dm[2]) < 1e-8
    assert abs(dp[2] - float(v @ H @ v)) < 1e-8


def test_relu_kink_rejects_bad_position(data3):
    with pytest.raises(ValueError, match="position must be one of"):
        relu_kink_check(data3, "pre")


# -- Section 4.2 and Eqs. 15-16 ---------------------------------------------------------------

@pytest.mark.parametrize("n,R,shortcut", [(1, 3, True), (2, 2, True), (3, 2, False)])
def test_eq7(data3, n, R, shortcut):
    res = eq7_check(ShortcutNetwork(3, n, R, shortcut=shortcut), data3)
    assert res.passed, str(res)


def test_eq7_rejects_bad_input(data3):
    net = ShortcutNetwork(3, 2, 1)
    with pytest.raises(ValueError, match="lr must lie in"):
        eq7_update(net, torch.zeros(net.shape, dtype=torch.float64), data3.stats(), -1.0)
    with pytest.raises(ValueError, match="linear networks"):
        eq7_update(ShortcutNetwork(3, 2, 1, mid="tanh"), torch.zeros(net.shape), data3.stats(), 0.1)


def test_eq7_wrong_sign_would_be_caught(data3):
    # the update of Eq. 7 is minus the gradient; a plus would differ by twice its size
    net = ShortcutNetwork(3, 2, 2)
    W = torch.randn(net.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(1)) * 0.5
    upd = eq7_update(net, W, data3.stats(), 0.1)
    Wg = W.clone().requires_grad_(True)
    from resnet_nb.core.losses import loss_stats
    (g,) = torch.autograd.grad(loss_stats(net, Wg, data3.stats()), Wg)
    assert float((upd - 0.1 * g).abs().max()) > 1e-3


def test_figure4(data3):
    a = figure4_one_shortcut_check(data3.stats(), R=4, epochs=30)
    b = figure4_skip_all_check(data3, n=2, epochs=30, mid="tanh")
    assert a.passed, str(a)
    assert b.passed, str(b)


def test_eq15_16(data3):
    res = eq15_16_check(data3, n=2, R=2, lr=0.2, epochs=3000)
    assert res.passed, str(res)


def test_relu_first_order_kink(data3):
    from resnet_nb.li.theorem1 import relu_first_order_check
    res = relu_first_order_check(data3, directions=3)
    assert res.passed, str(res)


# -- the pairing convention --------------------------------------------------------------------

def test_relabel_matches_whitened_mnist():
    from resnet_nb import whitened_mnist
    from resnet_nb.li.dynamics import relabel
    base = whitened_mnist(n_per_class=15)
    order = [3, 1, 0, 2, 4, 5, 9, 8, 7, 6]
    for signs in ("positive_diagonal", "negative_diagonal", [1, -1] * 5):
        a = relabel(base, signs, order)
        b = whitened_mnist(n_per_class=15, signs=signs, order=order)
        assert float((a.X - b.X).abs().max()) < 1e-10


def test_relabel_rejects_bad_input(data3):
    from resnet_nb.li.dynamics import relabel
    with pytest.raises(ValueError, match="order must be a permutation"):
        relabel(data3, order=[0, 0, 1])
    with pytest.raises(ValueError, match="signs must be"):
        relabel(data3, signs=[1, 2, 1])


def test_sign_and_order_sweeps_agree_with_relabel(data3):
    from resnet_nb.li.dynamics import order_sweep, relabel, sign_sweep
    conds = sign_sweep(data3)
    assert conds.shape == (8,)
    for k in (0, 5, 7):
        signs = [-1 if (k >> i) & 1 else 1 for i in range(3)]
        st = relabel(data3, signs).stats()
        sv = torch.linalg.svdvals(st.Sxx - st.Syx)
        assert abs(conds[k] - float(sv.max() / sv.min())) < 1e-10 * conds[k]
    oc = order_sweep(data3, count=5, seed=2)
    g = torch.Generator().manual_seed(2)
    p = torch.randperm(3, generator=g)
    st = relabel(data3, order=p.numpy()).stats()
    sv = torch.linalg.svdvals(st.Sxx - st.Syx)
    assert abs(oc[0] - float(sv.max() / sv.min())) < 1e-10 * oc[0]
    assert conds.max() > conds.min() * 1.01  # the convention matters


def test_one_short_tuples_never_cover():
    from resnet_nb.li.theorem1 import lemma1_tuples
    for n in (2, 3):
        net = ShortcutNetwork(3, n, 3)
        tuples = lemma1_tuples(net, n + 1, 30, seed=n)
        short = [t for kind, t in tuples if kind == "one_short"]
        assert short and not any(covers_unit(net, t) for t in short)
        chains = [t for kind, t in tuples if kind == "chain"]
        assert all(covers_unit(net, t) for t in chains)


# -- pictures and widgets ---------------------------------------------------------------------

def test_widget_and_animation(data3):
    import matplotlib
    matplotlib.use("Agg")
    import ipywidgets as widgets
    from resnet_nb.li.theorem1 import depth_animation, hessian_explorer
    box = hessian_explorer(mnist=synthetic_linear(10, 30, seed=0))  # stands in for MNIST (d = 10)
    sliders = [w for row in box.children[:2] for w in row.children if isinstance(w, widgets.IntSlider)]
    assert len(sliders) == 3 and all(not s.continuous_update for s in sliders)
    html = depth_animation(2, [1, 2], data3)
    assert "<script" in html and "anim" in html.lower()
    with pytest.raises(ValueError, match="R must be an integer >= 1"):
        depth_animation(2, [0], data3)


def test_explorer_title_names_the_activation(data3):
    from resnet_nb.li.theorem1 import explorer_title, same_picture
    assert "mid=tanh" in explorer_title(ShortcutNetwork(3, 2, 2, mid="tanh"))
    assert explorer_title(ShortcutNetwork(3, 2, 2)).endswith("linear")
    # tanh'(0) = 1: the Hessian at 0 with tanh at mid is the linear one
    assert same_picture(ShortcutNetwork(3, 2, 2), ShortcutNetwork(3, 2, 2, mid="tanh"), data3) < 1e-14
    assert same_picture(ShortcutNetwork(3, 2, 2), ShortcutNetwork(3, 2, 2, mid="silu"), data3) > 1e-3


def test_growth_bounds_hold_and_reject_depth_invariance(data3):
    from resnet_nb.li.theorem1 import growth_check
    assert growth_check(data3.stats(), (2, 4, 8)).passed
    assert growth_check(data3.stats(), (2, 4, 8), variant="pairs_once").parts[1].rejected_on_value


def test_ginverse_is_not_moore_penrose_and_reaches_lmin():
    from resnet_nb.li.dynamics import eq15_16_ginverse_check, generalized_inverse, rank_deficient_data
    data = rank_deficient_data(d=5, rank=2, seed=3)
    S = data.stats().Sxx
    G = generalized_inverse(S, seed=1)
    assert float((S @ G @ S - S).abs().max()) < 1e-10
    assert float((G - torch.linalg.pinv(S)).abs().max()) > 1e-2
    assert eq15_16_ginverse_check(data).passed
    # the falsifier: a G with S G S != S (not a generalized inverse) misses L_min
    assert eq15_16_ginverse_check(data, not_ginverse=True).rejected_on_value
    with pytest.raises(ValueError, match="rank must be below"):
        rank_deficient_data(d=3, rank=3)


THEOREM1_CLAIMS = ["core-kronecker-hessian", "li-thm1-closed-forms", "li-lemma1", "li-lemma2",
                   "li-thm1-part1-stationary", "li-thm1-eq11", "li-thm1-part2-spectrum", "li-thm1-eq12-cond",
                   "li-thm1-eq13", "li-thm1-depth-invariant", "book-one-shortcut-growth",
                   "li-thm1-relu-hypothesis", "li-thm1-relu-experiments", "li-eq7-update",
                   "li-fig4-one-shortcut", "li-fig4-skip-all", "li-eq15-16-any-g-inverse", "book-depth-drift",
                   "li-thm1-relu-depth"]


@pytest.mark.parametrize("cid", THEOREM1_CLAIMS)
def test_claim_and_falsifier(cid):
    import resnet_nb.core.hessians  # noqa: F401  (declares its claims)
    import resnet_nb.li.theorem1  # noqa: F401
    import resnet_nb.li.dynamics  # noqa: F401
    c = claims.LEDGER[cid]
    res = c.check(falsify=False)
    assert isinstance(res, claims.Check) and res.passed, str(res)
    assert c.check(falsify=True).rejected_on_value


def test_relu_masked_spectrum_and_depth_table(data3):
    from resnet_nb.li.theorem1 import relu_masked_prediction, relu_masked_singular_values

    net = ShortcutNetwork(3, 2, 3, mid="relu")
    W = 0.01 * torch.randn(net.shape, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    s = relu_masked_singular_values(net, W, data3)
    assert s.numel() == net.R * net.d * net.d  # R d blocks of d singular values
    assert relu_masked_prediction(net, W, data3) == float(s.max())


def test_relu_start_prediction_choices():
    from resnet_nb.li.theorem1 import relu_start_check

    with pytest.raises(ValueError):
        relu_start_check(depth=2, n_per_class=20, prediction="quarter")


def test_sharpness_trace_crosses_the_edge_before_the_spike():
    from resnet_nb.li.dynamics import sharpness_trace

    data = synthetic_linear(4, 200, seed=0)
    tr = sharpness_trace(data, n=2, R=2, lr=0.1, epochs=100, every=50)
    assert list(tr["epochs"]) == [0, 50, 100] and tr["edge"] == pytest.approx(20.0)
    assert len(tr["losses"]) == 101 and np.all(np.isfinite(tr["lam_max"]))


def test_every_claim_of_theorem1_and_hessians_states_its_falsifier_kind():
    import resnet_nb.core.hessians as hs
    import resnet_nb.li.theorem1 as t1m
    mine = [c for c in claims.LEDGER.values() if c.check.__module__ in (hs.__name__, t1m.__name__)]
    assert len(mine) == 14
    kinds = {"plausible false statement", "regression test", "implied by the check"}
    assert all(c.falsifier_kind in kinds for c in mine), [c.id for c in mine if c.falsifier_kind not in kinds]
