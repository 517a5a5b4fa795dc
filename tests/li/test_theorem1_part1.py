"""Theorem 1 part 1 and Definition 4 (resnet_nb.li.theorem1.part1): the directions, the closed form
of the order-n directional derivative, and the Taylor-remainder reading of Definition 4."""

import math

import numpy as np
import pytest
import torch
from helpers import labelled, random_dataset

import resnet_nb.li.theorem1 as t1
from resnet_nb import Dataset, ShortcutNetwork
from resnet_nb.core.hessians import directional_derivatives, loss_function, theorem1_blocks
from resnet_nb.li.theorem1 import part1_check, shifted_sigmoid, taylor_remainder_check
from resnet_nb.li.theorem1.part1 import claim_part1

EPS = 2.0**-52


F64 = torch.float64


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


def _taylor(net, data):
    return t1.taylor_remainder_check(net, data, seed=0)


def test_taylor_remainder_rows_and_criterion():
    data = random_dataset(2, 12, seed=2)
    net = ShortcutNetwork(2, 2, 1)
    res = _taylor(net, data)
    assert res.passed
    labelled(res)
    rng = np.random.default_rng(0)
    v = [d for k, d in t1.part1_directions(net, data, 3, rng) if k == "aligned"][0]
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=F64)
    L0 = float(f(w0))
    M = theorem1_blocks(net, data)["M"]
    limit = t1.order_n_directional(net, data, v) / 2
    assert res.values["limit"] == limit
    ts = (1e-1, 1e-2, 1e-3)
    for (t, a, b), tt in zip(res.values["rows"], ts):
        assert t == tt
        assert a == pytest.approx((float(f(w0 + tt * v)) - L0) / tt**2, abs=0)
        assert b == pytest.approx((float(f(w0 - tt * v)) - L0) / tt**2, abs=0)
    rel = abs(res.values["rows"][-1][1] - limit) / abs(limit)
    rel_back = abs(res.values["rows"][-1][2] - limit) / abs(limit)  # (-1)^2 = 1
    assert res.values["rel"] == rel and res.parts[0].value == rel
    assert res.values["rel_back"] == rel_back
    gaps = [abs(a - limit) / abs(limit) for _, a, _ in res.values["rows"]]
    assert res.values["gaps"] == gaps
    rate = math.log(gaps[0] / gaps[1]) / math.log(10.0)
    assert res.values["rate"] == pytest.approx(rate, rel=1e-12, abs=0) and res.parts[1].value == res.values["rate"]
    assert res.parts[0].tol == pytest.approx(1e-2, abs=0) and res.parts[1].tol == 0.5
    assert res.parts[1].op == ">=" and res.parts[1].passed
    assert res.parts[0].nontrivial == abs(limit)
    # the rate is read between the two largest t; one line per t
    assert (res.values["t0"], res.values["t1"], res.values["t_min"]) == (0.1, 0.01, 0.001)
    assert len(res.lines) == 3
    # the default direction is the aligned one: V2 V1 = u1 v1^T / 2 (two unit matrices, |v| = 1),
    # so the limit is sigma_max(M) / 2, as large as a unit direction allows
    assert abs(limit) == pytest.approx(float(torch.linalg.svdvals(M).max()) / 2, rel=1e-12, abs=0)


def test_taylor_remainder_other_orders_and_ts():
    data = random_dataset(2, 12, seed=2)
    net = ShortcutNetwork(2, 3, 1)
    res = t1.taylor_remainder_check(net, data, ts=(1e-1, 1e-2, 5e-3))
    assert res.parts[0].tol == pytest.approx(5e-2, abs=0)
    assert res.values["rate"] >= 1
    assert res.values["n"] == 3 and res.values["rel_bound"] == 10 * 5e-3
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=F64)
    rng = np.random.default_rng(0)
    v = [d for k, d in t1.part1_directions(net, data, 3, rng) if k == "aligned"][0]
    back = float(f(w0 - 5e-3 * v)) - float(f(w0))
    assert res.values["rows"][-1][2] == pytest.approx(back / 5e-3**3, rel=1e-9, abs=0)
    # odd n: the backward ratio tends to minus the limit
    assert res.values["rel_back"] == pytest.approx(
        abs(res.values["rows"][-1][2] + res.values["limit"]) / abs(res.values["limit"]), rel=1e-12, abs=0
    )
    # n = 1: Definition 4 with k = 0 says nothing, and the check says so
    r1 = t1.taylor_remainder_check(ShortcutNetwork(2, 1, 1), data)
    assert len(r1.parts) == 2 and r1.values["limit"] == r1.values["closed"] != 0
    assert len(r1.lines) == len(r1.values["rows"]) + 1
    assert len(res.lines) == len(res.values["rows"])


def test_taylor_remainder_zero_limit_fails_without_dividing():
    # a direction along which the order-n term vanishes: the check has nothing to compare
    data = random_dataset(2, 12, seed=2)
    net = ShortcutNetwork(2, 2, 1)
    v = torch.zeros(net.num_params, dtype=F64)
    v[0] = 1.0  # only W[0,0]: the product W2 W1 is zero
    r = t1.taylor_remainder_check(net, data, v=v)
    assert r.values["limit"] == 0 and r.values["rel"] == math.inf
    assert r.values["rel_back"] == math.inf and r.parts[1].value == -math.inf and not r.passed
    with pytest.raises(ValueError, match=r"\bdecreasing\b"):
        t1.taylor_remainder_check(net, data, ts=(1e-3, 1e-2))
    with pytest.raises(ValueError, match=r"\breading\b"):
        t1.taylor_remainder_check(net, data, reading="3k")


def test_taylor_remainder_draws_its_direction_from_the_seed():
    data = random_dataset(2, 12, seed=2)
    net = ShortcutNetwork(2, 3, 1, mid="tanh")  # n = 3 and nonlinear: the random middle vectors matter
    a = t1.taylor_remainder_check(net, data, seed=0)
    b = t1.taylor_remainder_check(net, data, seed=0)
    assert a.values["rows"] == b.values["rows"]
    assert a.values["rows"] != t1.taylor_remainder_check(net, data, seed=1).values["rows"]


def test_part1_directions_have_their_documented_kinds():
    net = ShortcutNetwork(2, 3, 2)
    data = random_dataset(2, 10, seed=3)
    dirs = t1.part1_directions(net, data, 8, np.random.default_rng(0))
    assert [k for k, _ in dirs] == ["gaussian", "single_unit", "aligned", "one_short"] * 2
    Sxs, Sys = t1.data_matrices(net, data)
    U, S, Vh = torch.linalg.svd(Sxs - Sys)
    for kind, v in dirs:
        assert v.dtype == F64 and v.shape == (net.num_params,)
        assert float(v.norm()) == pytest.approx(1.0, rel=1e-14, abs=0)
        V = v.reshape(2, 3, 2, 2).transpose(-1, -2)  # (R, n, d, d), Definition 5 order
        per_matrix = V.flatten(2).norm(dim=2)
        if kind == "gaussian":
            assert bool((per_matrix > 0).all())
        elif kind == "single_unit":
            assert int((per_matrix.sum(dim=1) > 0).sum()) == 1 and bool((per_matrix.max(dim=1).values > 0).any())
            assert bool((per_matrix[per_matrix.sum(dim=1) > 0] > 0).all())
        elif kind == "aligned":
            for r in range(2):
                prod = V[r, 2] @ V[r, 1] @ V[r, 0]
                # u1 v1^T scaled by 6^(-3/2) (six unit matrices, unit total norm)
                assert torch.allclose(prod.abs(), (torch.outer(U[:, 0], Vh[0]) * 6**-1.5).abs(), atol=1e-14)
        else:
            assert bool(((per_matrix == 0).sum(dim=1) == 1).all())
    assert t1.order_n_directional(net, data, dirs[3][1]) == pytest.approx(0.0, abs=1e-15)


@pytest.mark.parametrize("n, kw", [(1, {}), (2, {"mid": "silu"}), (3, {})])
def test_order_n_directional_against_autodiff(n, kw):
    net = ShortcutNetwork(2, n, 2, **kw)
    data = random_dataset(2, 10, seed=3)
    g = torch.Generator().manual_seed(0)
    v = torch.randn(net.num_params, generator=g, dtype=F64)
    f = loss_function(net, data)
    ds = directional_derivatives(f, torch.zeros(net.num_params, dtype=F64), v, n)
    assert t1.order_n_directional(net, data, v) == pytest.approx(ds[n - 1], rel=1e-10, abs=0)


def test_part1_check_reports_its_values():
    net = ShortcutNetwork(2, 3, 1)
    data = random_dataset(2, 10, seed=3)
    res = t1.part1_check(net, data, directions=4, seed=1)
    assert res.passed
    labelled(res)
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=F64)
    low, gap, best = 0.0, 0.0, 0.0
    for _kind, v in t1.part1_directions(net, data, 4, np.random.default_rng(1)):
        ds = directional_derivatives(f, w0, v, 3)
        low = max(low, abs(ds[0]), abs(ds[1]))
        gap = max(gap, abs(ds[2] - t1.order_n_directional(net, data, v)))
        best = max(best, abs(ds[2]))
    v = res.values
    assert v["worst_low"] == low and v["worst_n"] == gap and v["best_n"] == best > 0
    assert res.parts[0].nontrivial == best
    assert v["hmax"] == 0.0 and len(res.parts) == 3
    scale = max(1.0, t1.partial_scale(net, data)) * 6
    assert v["tol"] == pytest.approx(100 * net.num_params * EPS * scale, rel=1e-12, abs=0)
    assert all(p.tol == v["tol"] for p in res.parts)
    # orders 1..2 vanish, order 3 is the closed form, the Hessian is zero: the parts in that order
    assert (v["k"], v["n"], v["hessian_checked"]) == (2, 3, True)
    assert [p.value for p in res.parts] == [low, gap, 0.0]
    # the Hessian part only while P <= hessian_max_params
    assert len(t1.part1_check(net, data, directions=1, hessian_max_params=net.num_params).parts) == 3
    r = t1.part1_check(net, data, directions=1, hessian_max_params=net.num_params - 1)
    assert len(r.parts) == 2 and r.values["hmax"] is None


def test_part1_check_orders_and_falsifier():
    data = random_dataset(2, 10, seed=3)
    net = ShortcutNetwork(2, 2, 1)
    r = t1.part1_check(net, data, directions=4)
    assert r.passed and len(r.parts) == 2
    # the falsifier "the order is not sharp": stationary up to order n = 2 fails (order 2 is nonzero)
    rf = t1.part1_check(net, data, directions=4, stationary_order=2)
    assert not rf.parts[0].passed and rf.values["worst_low"] == pytest.approx(rf.values["best_n"], rel=1e-9, abs=0)
    scale = max(1.0, t1.partial_scale(net, data)) * 2
    assert rf.values["tol"] == pytest.approx(100 * net.num_params * EPS * scale, rel=1e-12, abs=0)
    rs = t1.part1_check(net, data, directions=2, stationary_order=3)
    assert rs.values["tol"] == pytest.approx(100 * net.num_params * EPS * scale * 3, rel=1e-12, abs=0)
    r0 = t1.part1_check(net, data, directions=2, stationary_order=0)
    assert r0.values["worst_low"] == 0.0
    with pytest.raises(ValueError, match=r"\bstationary_order\b"):
        t1.part1_check(net, data, stationary_order=-1)
    with pytest.raises(ValueError, match=r"\bdirections\b"):
        t1.part1_check(net, data, directions=0)
    big = Dataset(3 * data.X, 3 * data.Y)
    rb = t1.part1_check(net, big, directions=1)
    tol_big = 100 * net.num_params * EPS * t1.partial_scale(net, big) * 2
    assert rb.values["tol"] == pytest.approx(tol_big, rel=1e-12, abs=0)


def test_part1_directions_are_gaussian_and_one_short_leaves_a_matrix_at_zero(data3):
    net = ShortcutNetwork(3, 2, 3)
    dirs = t1.part1_directions(net, data3, 8, np.random.default_rng(0))
    for kind, v in dirs:
        V = v.reshape(net.shape)
        assert float(v.norm()) == pytest.approx(1.0, rel=1e-12)
        if kind == "single_unit":
            live = [r for r in range(net.R) if float(V[r].abs().max()) > 0]
            assert len(live) == 1
            assert len(torch.unique(V[live[0]])) == net.n * net.d * net.d  # Gaussian entries, all distinct
        if kind == "one_short":
            for r in range(net.R):
                assert sum(1 for l in range(net.n) if float(V[r, l].abs().max()) == 0.0) == 1


def _stand_in_loss(monkeypatch, net, data, v, extra):
    """Replace the loss seen by taylor_remainder_check (n = 1) by L(w) = (c + extra(s)) s, s = <w, v>:
    the quotient (L(tv) - L(0)) / t is c + extra(t) exactly for t a power of two and v a unit vector."""
    c = t1.order_n_directional(net, data, v)

    def loss_function(*_):  # (net, data): the stand-in ignores them
        def f(w):
            s = float(w @ v)
            return torch.tensor((c + extra.get(s, 0.0)) * s, dtype=F64)

        return f

    monkeypatch.setattr("resnet_nb.li.theorem1.part1.loss_function", loss_function)
    return c


@pytest.mark.parametrize(
    ("extra", "rate"),
    [
        ({}, math.nan),  # no remainder at all: gaps of exactly 0 are no evidence of a rate
        ({0.5: 0.1}, math.nan),  # a gap of 0 at the second t
        ({0.25: 0.1}, math.nan),  # a gap of 0 at the first t
        ({0.5: 0.5, 0.25: 0.25, 0.125: 0.125}, 1.0),  # a remainder t: exponent 1
        ({0.5: 0.5, 0.25: 0.0625, 0.125: 0.125}, 3.0),  # gaps 0.5 and 0.0625 a factor 2 apart: 8 = 2^3
        ({0.5: 0.1, 0.25: math.inf}, -math.inf),  # a gap that is not finite: no rate
    ],
)
def test_taylor_remainder_rate_is_the_exponent_of_the_two_largest_gaps(monkeypatch, extra, rate):
    data = random_dataset(2, 12, seed=2)
    net = ShortcutNetwork(2, 1, 1)
    v = torch.zeros(net.num_params, dtype=F64)
    v[1] = 1.0
    c = _stand_in_loss(monkeypatch, net, data, v, extra)
    res = t1.taylor_remainder_check(net, data, v=v, ts=(0.5, 0.25, 0.125))
    assert res.values["closed"] == c != 0
    expected_gaps = [abs(extra.get(t, 0.0)) / abs(c) for t in (0.5, 0.25, 0.125)]
    np.testing.assert_allclose(res.values["gaps"], expected_gaps, rtol=1e-12, atol=0)
    if math.isnan(rate):
        assert math.isnan(res.values["rate"])
    else:
        assert res.values["rate"] == pytest.approx(rate, rel=1e-12)
    # the check's value: the exponent, or -inf when there is none; it passes from 1/2 up
    assert res.parts[1].value == (rate if math.isfinite(rate) else -math.inf)
    assert res.parts[1].passed == (math.isfinite(rate) and rate >= 0.5)


def test_taylor_remainder_refuses_bad_ts_and_readings_by_name():
    data = random_dataset(2, 12, seed=2)
    net = ShortcutNetwork(2, 2, 1)
    for ts in ((1e-2,), (1e-2, 1e-3, 0.0), (1e-2, -1e-3), (1e-3, 1e-2), (1e-2, 1e-2, 1e-3)):
        with pytest.raises(ValueError, match=r"\bts\b"):
            t1.taylor_remainder_check(net, data, ts=ts)
    assert len(t1.taylor_remainder_check(net, data, ts=(1e-2, 1e-3)).values["rows"]) == 2  # two suffice
    with pytest.raises(ValueError, match=r"\breading\b"):
        t1.taylor_remainder_check(net, data, reading="3k")
    assert t1.taylor_remainder_check(net, data, reading="2k").values["limit"] == 0.0


def test_part1_check_refuses_an_order_that_is_not_sharp():
    """With Y = X the n = 2 loss is ||W2 W1 X||^2, of order 4 at 0: the order-2 derivatives vanish,
    so "order n - 1 and not n" is false and the check must not pass (its order-n part is vacuous)."""
    data = random_dataset(2, 10, seed=3)
    same = Dataset(data.X, data.X.clone())
    r = t1.part1_check(ShortcutNetwork(2, 2, 1), same, directions=3)
    assert not r.passed and r.parts[0].vacuous
    assert r.values["best_n"] <= r.values["tol"]


def test_part1_ledger_falsifier_with_a_sigmoid_at_mid_fails_on_the_vanishing_low_orders():
    # the claim holds for the linear networks; dropping sigma_mid(0) = 0 breaks order 1 at n = 2 and 3
    assert claim_part1().passed
    fal = claim_part1(falsify=True)
    assert fal.rejected_on_value
    for part in fal.parts:
        low = part.parts[0]  # derivatives of orders 1..n-1 vanish
        assert low.rejected_on_value and low.value > 1e6 * low.tol
