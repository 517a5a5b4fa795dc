"""Eqs. 15-16 of Li et al. (resnet_nb.li.dynamics.eq15_16): the optimum by training and, with a
rank-deficient X, with any generalized inverse."""

import math

import numpy as np
import pytest
import torch
from helpers import Stop, labelled, tol_of

import resnet_nb.li.dynamics as dyn
from resnet_nb import Dataset, ShortcutNetwork
from resnet_nb.core import claims
from resnet_nb.core.init import initialise
from resnet_nb.core.losses import loss_end_to_end, optimum
from resnet_nb.core.networks import end_to_end
from resnet_nb.core.train import gradient_descent
from resnet_nb.li.dynamics import eq15_16_check

F64 = torch.float64


def test_eq15_16(data3):
    res = eq15_16_check(data3, n=2, R=2, lr=0.2, epochs=3000)
    assert res.passed, str(res)


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
    with pytest.raises(ValueError, match=r"\brank must"):
        rank_deficient_data(d=3, rank=3)


def test_g_inverse_claim_is_falsified_by_the_unique_minimiser_statement():
    c = claims.LEDGER["li-eq15-16-any-g-inverse"]
    assert "unique" in c.falsifier and c.falsifier_kind == "plausible false statement"
    fal = c.check(falsify=True)
    assert fal.rejected_on_value and fal.values["variant"] == "unique"
    assert fal.parts[0].passed  # G is a generalized inverse
    same = fal.parts[1]
    assert not same.passed and same.value == fal.values["dW"]
    st = dyn.rank_deficient_data(seed=0).stats()
    G = dyn.generalized_inverse(st.Sxx, seed=1)
    dW = float((st.Syx @ G - st.Syx @ torch.linalg.pinv(st.Sxx)).abs().max())
    assert same.value == pytest.approx(dW, rel=1e-12) and dW > 0.1
    assert same.tol == fal.parts[0].tol  # the same rounding tolerance as the true statement
    # the true statement, with the same G: holds, and it is not the falsifier's
    ok = c.check()
    assert ok.passed and ok.values["variant"] is None


def test_g_inverse_check_fails_each_falsifier_on_its_own_part_and_refuses_two_at_once():
    # which parts each statement holds, and which of them fail: the loss part (G on the other
    # side, or no generalized inverse) or the equality of the matrices (a unique minimiser)
    for name, passed in (
        ("left", [True, False]),
        ("not_ginverse", [False]),
        ("unique", [True, False]),
    ):
        res = dyn.eq15_16_ginverse_check(**{name: True})
        assert res.rejected_on_value and res.values["variant"] == name
        assert [p.passed for p in res.parts] == passed
    ok = dyn.eq15_16_ginverse_check()
    assert ok.values["variant"] is None and [p.passed for p in ok.parts] == [True, True]
    assert ok.claim != dyn.eq15_16_ginverse_check(unique=True).claim
    with pytest.raises(ValueError, match="at most one"):
        dyn.eq15_16_ginverse_check(left=True, unique=True)


def test_rank_deficient_data_is_U_Z_with_seeded_gaussians():
    def own(d, rank, m, seed):
        g = torch.Generator().manual_seed(seed)
        U = torch.randn(d, rank, generator=g, dtype=F64)
        X = U @ torch.randn(rank, m, generator=g, dtype=F64)
        return X, torch.randn(d, m, generator=g, dtype=F64)

    data = dyn.rank_deficient_data(d=5, rank=3, m=40, seed=0)
    X, Y = own(5, 3, 40, 0)
    assert data.X.shape == (5, 40) and torch.equal(data.X, X) and torch.equal(data.Y, Y)
    assert data.Y.dtype == F64 and int(torch.linalg.matrix_rank(data.X)) == 3
    data = dyn.rank_deficient_data(d=4, rank=1, m=7, seed=5)
    X, Y = own(4, 1, 7, 5)
    assert torch.equal(data.X, X) and torch.equal(data.Y, Y)
    for kw, name in [(dict(d=0), "d"), (dict(rank=0), "rank"), (dict(m=0), "m")]:
        with pytest.raises(ValueError, match=f"{name} must"):
            dyn.rank_deficient_data(**kw)


def test_generalized_inverse_follows_rao_and_mitras_form():
    S = dyn.rank_deficient_data(d=4, rank=2, m=10, seed=1).stats().Sxx

    def own(seed, size):
        g = torch.Generator().manual_seed(seed)
        Sp = torch.linalg.pinv(S)
        eye = torch.eye(4, dtype=F64)
        Z1 = size * torch.randn(4, 4, generator=g, dtype=F64)
        Z2 = size * torch.randn(4, 4, generator=g, dtype=F64)
        return Sp + (eye - Sp @ S) @ Z1 + Z2 @ (eye - S @ Sp)

    for G, ref in [
        (dyn.generalized_inverse(S), own(0, 1.0)),
        (dyn.generalized_inverse(S, seed=3, size=0.5), own(3, 0.5)),
    ]:
        assert torch.allclose(G, ref, rtol=0, atol=1e-13)
        assert float((S @ G @ S - S).abs().max()) < 1e-12


def _ginv_own(data, seed, left=False, not_ginverse=False):
    st = data.stats()
    Gp = torch.linalg.pinv(st.Sxx)
    if not_ginverse:
        g = torch.Generator().manual_seed(seed + 2)
        G = Gp + torch.randn(st.Sxx.shape, generator=g, dtype=F64)
    else:
        G = dyn.generalized_inverse(st.Sxx, seed=seed + 1)
    W = G @ st.Syx if left else st.Syx @ G
    Wls = torch.linalg.lstsq(data.X.T, data.Y.T, driver="gelsd").solution.T
    Lmin = float(((data.Y - Wls @ data.X) ** 2).sum() / (2 * data.m))
    LW = float(loss_end_to_end(W, st))
    scale = max(1.0, float(G.abs().max()) ** 2 * float(st.Sxx.abs().max()))
    return dict(
        G=G,
        Gp=Gp,
        W=W,
        Wmp=st.Syx @ Gp,
        Lmin=Lmin,
        LW=LW,
        tol=tol_of(data.m, scale),
        scale=scale,
        is_ginv=float((st.Sxx @ G @ st.Sxx - st.Sxx).abs().max()),
    )


def _ginv_pinned(res, own, rank):
    labelled(res)
    assert res.values["Lmin"] == own["Lmin"]  # a least-squares solve by SVD (gelsd) on the samples
    assert res.values["LW"] == pytest.approx(own["LW"], rel=1e-12, abs=0)
    assert res.values["rank"] == rank
    dW = float((own["W"] - own["Wmp"]).abs().max())
    assert res.values["dW"] == pytest.approx(dW, rel=1e-12, abs=0)
    loss = res.parts[-1]
    assert loss.value == pytest.approx(abs(own["LW"] - own["Lmin"]), rel=1e-9, abs=1e-17)
    assert loss.nontrivial == pytest.approx(dW, rel=1e-12, abs=0)
    assert loss.tol == pytest.approx(own["tol"], rel=1e-12, abs=0)


def test_ginverse_check_reports_what_it_compares():
    res = dyn.eq15_16_ginverse_check(seed=0)  # rank_deficient_data(seed=0), G drawn with seed 1
    data = dyn.rank_deficient_data(seed=0)
    own = _ginv_own(data, 0)
    assert res.passed and len(res.parts) == 2 and res.values["variant"] is None
    _ginv_pinned(res, own, 3)
    gi = res.parts[0]
    assert (res.values["rank"], res.values["d"]) == (3, 5)
    assert gi.value == pytest.approx(own["is_ginv"], rel=1e-9, abs=1e-18)
    assert gi.nontrivial == pytest.approx(float((own["G"] - own["Gp"]).abs().max()), rel=1e-12, abs=0)
    assert gi.tol == pytest.approx(own["tol"], rel=1e-12, abs=0) and own["scale"] > 2


def test_ginverse_check_on_given_data_with_the_floor_of_the_scale():
    # rank 1 of 2, and a seed whose G keeps |G|^2 |Sxx| below 1: the scale is floored at 1
    X = torch.tensor([[1.0, -1.0, 1.0, -1.0], [0.0, 0.0, 0.0, 0.0]], dtype=F64)
    Y = torch.tensor([[0.5, -0.2, 0.1, 0.3], [0.2, 0.1, -0.4, 0.0]], dtype=F64)
    data = Dataset(X, Y)
    own = _ginv_own(data, 1)
    assert own["scale"] == 1.0
    res = dyn.eq15_16_ginverse_check(data, seed=1)
    assert res.passed
    _ginv_pinned(res, own, 1)


def test_ginverse_check_left_form_and_falsifier():
    data = dyn.rank_deficient_data(seed=0)
    left = dyn.eq15_16_ginverse_check(left=True)
    assert left.values["variant"] == "left" and left.parts[0].passed and not left.parts[1].passed
    _ginv_pinned(left, _ginv_own(data, 0, left=True), 3)
    bad = dyn.eq15_16_ginverse_check(not_ginverse=True)
    own = _ginv_own(data, 0, not_ginverse=True)
    assert bad.rejected_on_value and len(bad.parts) == 1
    _ginv_pinned(bad, own, 3)
    assert len(bad.parts[0].lines) == 1  # G's defect reported beside the loss
    assert bad.values["is_ginv"] == pytest.approx(own["is_ginv"], rel=1e-9) and own["is_ginv"] > 1e-3


def test_eq15_16_check_trains_the_network_it_is_given(spy, data2):
    with pytest.raises(Stop):
        dyn.eq15_16_check(data2, n=2, R=4, lr=0.1, epochs=2000, seed=0)
    c = spy[-1]
    net = c["net"]
    assert (net.d, net.n, net.R, net.shortcut) == (2, 2, 4, True)
    assert c["lr"] == 0.1 and c["epochs"] == 2000 and c["data"] is data2
    assert torch.equal(c["W0"], initialise(net, "small", seed=0))
    with pytest.raises(Stop):
        dyn.eq15_16_check(data2, n=2, R=4, lr=0.1, epochs=2000, seed=3)
    assert torch.equal(spy[-1]["W0"], initialise(net, "small", seed=3))


def test_eq15_16_check_reports_its_numbers(data2):
    res = dyn.eq15_16_check(data2, n=1, R=2, lr=0.1, epochs=30, seed=1)
    net = ShortcutNetwork(2, 1, 2)
    run = gradient_descent(net, initialise(net, "small", seed=1), data2, 0.1, 30)
    Wstar, Lmin = optimum(data2)
    assert float(Wstar.abs().max()) < 2 and Lmin < 1  # so that the floors of the scales show
    labelled(res)
    assert len(res.lines) == 1
    e15, e16, below, reach = res.parts
    assert np.array_equal(res.values["losses"], run.losses) and res.values["Lmin"] == Lmin
    assert (res.values["n"], res.values["R"], res.values["epochs"]) == (1, 2, 30)
    assert reach.value == pytest.approx(run.losses[-1] - Lmin, rel=1e-12, abs=0) and reach.tol == 1e-4
    assert below.value == pytest.approx(np.nanmin(run.losses) - Lmin, rel=1e-12, abs=0)
    assert e15.tol == pytest.approx(tol_of(data2.m, max(1.0, float(Wstar.abs().max()))), rel=1e-12, abs=0)
    assert e16.tol == pytest.approx(tol_of(data2.m, 1.0), rel=1e-12, abs=0)
    assert below.tol == -e16.tol
    assert e15.nontrivial == pytest.approx(float(Wstar.abs().max()), rel=1e-12, abs=0)
    eW = float((end_to_end(net, run.W) - Wstar).abs().max())
    assert res.values["eW"] == pytest.approx(eW, rel=1e-9, abs=0)
    assert (res.values["e15"], res.values["e16"], res.values["gap_L"]) == (e15.value, e16.value, reach.value)
    assert math.isfinite(res.values["e15"]) and reach.value > 0


def test_eq15_16_check_refuses_anything_but_samples_naming_data_and_what_it_got(data2):
    for bad, kind in [(data2.stats(), "SufficientStats"), ((data2.X, data2.Y), "tuple")]:
        with pytest.raises(ValueError, match=rf"\bdata\b.*\b{kind}\b"):
            dyn.eq15_16_check(bad)


def test_ginverse_check_refuses_every_pair_of_its_falsifiers():
    names = ("left", "not_ginverse", "unique")
    for chosen in [("left", "not_ginverse"), ("left", "unique"), ("not_ginverse", "unique"), names]:
        for name in names:
            with pytest.raises(ValueError, match=rf"\b{name}\b"):
                dyn.eq15_16_ginverse_check(**dict.fromkeys(chosen, True))


def test_unique_minimiser_falsifier_measures_against_the_moore_penrose_product():
    data = dyn.rank_deficient_data(seed=0)
    own = _ginv_own(data, 0)
    fal = dyn.eq15_16_ginverse_check(unique=True)
    labelled(fal)
    ginv, same = fal.parts
    assert ginv.value == pytest.approx(own["is_ginv"], rel=1e-9, abs=1e-18)
    dW = float((own["W"] - own["Wmp"]).abs().max())
    assert same.value == pytest.approx(dW, rel=1e-12, abs=0) and same.value > 1e3 * same.tol
    # what could differ is Syx Sxx^+ itself, which is far from 0
    assert same.nontrivial == pytest.approx(float(own["Wmp"].abs().max()), rel=1e-12, abs=0)
    assert same.nontrivial > 0.1 and not same.vacuous
    # both matrices attain L_min: |L(Syx G) - L_min| is a rounding error
    assert abs(own["LW"] - own["Lmin"]) < own["tol"]
    assert fal.values["dW"] == same.value and fal.values["rank"] == 3


def test_rank_deficient_data_needs_a_rank_below_d():
    data = dyn.rank_deficient_data(d=4, rank=3, m=6)  # just inside: rank d - 1
    assert data.X.shape == (4, 6) and int(torch.linalg.matrix_rank(data.X)) == 3
    tiny = dyn.rank_deficient_data(d=2, rank=1, m=1)  # the smallest sizes accepted
    assert tiny.X.shape == (2, 1) and tiny.Y.shape == (2, 1)
    for d in (4, 3):  # rank = d and rank above d are refused
        with pytest.raises(ValueError, match=r"\brank\b"):
            dyn.rank_deficient_data(d=d, rank=4, m=6)
