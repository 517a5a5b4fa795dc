"""Properties of ``resnet_nb/li/dynamics.py`` (Eq. 7, Eqs. 15-16, the pairing
convention) that the other tests left unchecked; each was found by a mutant that survived them
(see results/mutation/report.md). The ledger test only asks that a check passes and that its
falsifier is rejected; here the numbers a check reports (value, tolerance, nontrivial part,
lines, ``values``) are pinned against an independent computation, at small sizes.

Kept fast (``--verify-kills`` runs this file once per surviving mutant): cheap tests first, the
expensive defaults are read by a spy standing in for the trainer instead of a 2,000-epoch run.
"""
import math

import numpy as np
import pytest
import torch

import resnet_nb.li.dynamics as dyn
from resnet_nb.core.data import Dataset, synthetic_linear
from resnet_nb.core.init import initialise
from resnet_nb.core.losses import loss_end_to_end, optimum
from resnet_nb.core.networks import ShortcutNetwork, end_to_end
from resnet_nb.core.train import gradient_descent

from helpers import labelled, tol_of

F64 = torch.float64




def sym(n, seed, shift=0.0):
    g = torch.Generator().manual_seed(seed)
    A = torch.randn(n, n, generator=g, dtype=F64)
    return (A + A.T) / 2 + shift * torch.eye(n, dtype=F64)


class Stop(Exception):
    """Raised by the spy that stands in for the trainer."""


@pytest.fixture
def spy(monkeypatch):
    """Replace the trainer seen by theorem1_dynamics: record its arguments, then stop."""
    calls = []

    def fake(net, W0, data, lr, epochs, snapshot_epochs=(), **kw):
        calls.append(dict(net=net, W0=W0, data=data, lr=lr, epochs=epochs, snaps=list(snapshot_epochs)))
        raise Stop

    monkeypatch.setattr(dyn, "gradient_descent", fake)
    return calls


@pytest.fixture(autouse=True)
def one_thread():
    """LAPACK on one thread: on a loaded machine a threaded 400 x 400 eigvalsh takes seconds."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


@pytest.fixture(scope="module")
def data3():
    return dyn._data3()


@pytest.fixture(scope="module")
def data2():
    return synthetic_linear(2, 20, seed=0)


# -- small helpers --------------------------------------------------------------------------------

def test_fmt_writes_zero_as_0_and_others_with_two_digits():
    assert dyn._fmt(0.0) == "0" and dyn._fmt(0) == "0" and dyn._fmt(-0.0) == "0"  # not "-0"
    assert dyn._fmt(1.0) == "1" and dyn._fmt(0.123) == "0.12" and dyn._fmt(-2.5e-7) == "-2.5e-07"


def test_slope_is_the_exponent_of_a_power_law():
    # y = 3 x^2 on a log-log scale: slope 2 (not the intercept log 3, not a quadratic coefficient)
    assert dyn._slope([1, 2, 4], [3.0, 12.0, 48.0]) == pytest.approx(2.0, abs=1e-12)
    assert dyn._slope([0.01, 0.02], [5e-4, 1e-3]) == pytest.approx(1.0, abs=1e-12)


def test_cond_of_M_of_one_pair_and_of_a_batch(data3):
    st = data3.stats()
    sv = np.linalg.svd((st.Sxx - st.Syx).numpy(), compute_uv=False)
    c = dyn._cond_of_M(st.Sxx, st.Syx)
    assert c.shape == () and float(c) == pytest.approx(sv.max() / sv.min(), rel=1e-12, abs=0)
    cb = dyn._cond_of_M(torch.stack([st.Sxx, 2 * st.Sxx]), torch.stack([st.Syx, st.Syx]))
    assert cb.shape == (2,) and float(cb[0]) == pytest.approx(sv.max() / sv.min(), rel=1e-12, abs=0)


def test_lambda_max_is_the_largest_eigenvalue_on_both_branches():
    H = sym(6, 0)
    assert dyn.lambda_max(H) == float(torch.linalg.eigvalsh(H)[-1])  # dense up to 400
    H400 = sym(400, 1)
    assert dyn.lambda_max(H400) == float(torch.linalg.eigvalsh(H400)[-1])  # 400 is still dense
    # above 400: Lanczos for the largest *algebraic* eigenvalue; this matrix's eigenvalues are all
    # negative, the one of largest magnitude is the smallest
    H401 = sym(401, 2, shift=-30.0)
    ev = torch.linalg.eigvalsh(H401)
    assert float(ev[-1]) < 0 and abs(float(ev[0])) > abs(float(ev[-1])) + 10
    assert dyn.lambda_max(H401) == pytest.approx(float(ev[-1]), abs=1e-9)
    assert abs(float(ev[-2]) - float(ev[-1])) > 1e-3  # the second largest is told apart


# -- the pairing convention ---------------------------------------------------------------------

class FakeData:
    """Only ``d``; asking for the statistics stops the test (the size check came first)."""

    def __init__(self, d):
        self.d = d

    def stats(self):
        raise Stop


def test_sign_sweep_accepts_d_up_to_16_only():
    with pytest.raises(Stop):
        dyn.sign_sweep(FakeData(16))
    with pytest.raises(ValueError, match="d must be <= 16"):
        dyn.sign_sweep(FakeData(17))


def test_order_sweep_defaults_to_2000_orders_drawn_with_seed_0(data3):
    out = dyn.order_sweep(data3)
    assert out.shape == (2000,)
    st = data3.stats()
    g = torch.Generator().manual_seed(0)
    for k in range(12):
        p = torch.randperm(3, generator=g).numpy()
        M = st.Sxx.numpy()[np.ix_(p, p)] - st.Syx.numpy()[:, p]
        sv = np.linalg.svd(M, compute_uv=False)
        assert out[k] == pytest.approx(sv.max() / sv.min(), rel=1e-12, abs=0)
    with pytest.raises(ValueError, match="^count must be an integer"):
        dyn.order_sweep(data3, count=0)


def test_relabel_reorders_flips_and_records_the_convention():
    g = torch.Generator().manual_seed(4)
    X = torch.randn(3, 12, generator=g, dtype=F64)
    Y = torch.randn(3, 12, generator=g, dtype=F64)
    labels = np.arange(12) % 3
    data = Dataset(X, Y, labels=labels, info=dict(source="test"))
    order = [2, 0, 1]
    out = dyn.relabel(data, "positive_diagonal", order)
    Xo = X[order]
    diag = (Y * Xo).mean(dim=1)
    s = torch.where(diag >= 0, 1.0, -1.0).to(F64)
    assert (s < 0).any() and (s > 0).any()  # the convention flips some coordinates, not all
    assert torch.equal(out.X, Xo * s[:, None]) and torch.equal(out.Y, Y)
    assert out.labels is labels
    assert out.info == dict(source="test", relabel=dict(signs="positive_diagonal", order=[2, 0, 1]))
    # an explicit sign vector is recorded as the list of signs; no order is recorded as None
    out2 = dyn.relabel(data, (1, -1, 1))
    assert torch.equal(out2.X, X * torch.tensor([1.0, -1.0, 1.0], dtype=F64)[:, None])
    assert out2.info == dict(source="test", relabel=dict(signs=[1.0, -1.0, 1.0], order=None))
    assert isinstance(out2.info["relabel"]["signs"], list)


# -- the rank-deficient data and the generalized inverse -----------------------------------------

def test_rank_deficient_data_is_U_Z_with_seeded_gaussians():
    def own(d, rank, m, seed):
        g = torch.Generator().manual_seed(seed)
        U = torch.randn(d, rank, generator=g, dtype=F64)
        X = U @ torch.randn(rank, m, generator=g, dtype=F64)
        return X, torch.randn(d, m, generator=g, dtype=F64)

    data = dyn.rank_deficient_data()  # the defaults: d = 5, rank 3, m = 40, seed 0
    X, Y = own(5, 3, 40, 0)
    assert data.X.shape == (5, 40) and torch.equal(data.X, X) and torch.equal(data.Y, Y)
    assert data.Y.dtype == F64 and int(torch.linalg.matrix_rank(data.X)) == 3
    data = dyn.rank_deficient_data(d=4, rank=1, m=7, seed=5)
    X, Y = own(4, 1, 7, 5)
    assert torch.equal(data.X, X) and torch.equal(data.Y, Y)
    for kw, name in [(dict(d=0), "d"), (dict(rank=0), "rank"), (dict(m=0), "m")]:
        with pytest.raises(ValueError, match=f"^{name} must be an integer"):
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

    for G, ref in [(dyn.generalized_inverse(S), own(0, 1.0)),
                   (dyn.generalized_inverse(S, seed=3, size=0.5), own(3, 0.5))]:
        assert torch.allclose(G, ref, rtol=0, atol=1e-13)
        assert float((S @ G @ S - S).abs().max()) < 1e-12


# -- Eq. 7 ----------------------------------------------------------------------------------------

def test_eq7_update_is_minus_lr_times_the_gradient_by_default(data3):
    net = ShortcutNetwork(3, 2, 2)
    st = data3.stats()
    W = 0.3 * torch.randn(net.shape, generator=torch.Generator().manual_seed(7), dtype=F64)
    Wg = W.clone().requires_grad_(True)
    (g,) = torch.autograd.grad(loss_end_to_end(end_to_end(net, Wg), st), Wg)
    upd = dyn.eq7_update(net, W, st, 0.1)  # transposes=True is the default
    assert float((upd + 0.1 * g).abs().max()) < 1e-13 < float((0.1 * g).abs().max())
    # float32 weights are taken to float64 first
    up32 = dyn.eq7_update(net, W.to(torch.float32), st, 0.1)
    assert up32.dtype == F64 and float((up32 - dyn.eq7_update(net, W.to(torch.float32).to(F64), st, 0.1))
                                       .abs().max()) == 0.0
    with pytest.raises(ValueError, match="lr must lie in"):
        dyn.eq7_update(net, W, st, 0.0)


def _eq7_own(net, data, lr, samples=3, seed=0):
    st = data.stats()
    worst = size = 0.0
    for s in range(samples):
        W = initialise(net, ("xavier", "small", "orthogonal")[s % 3], seed=seed + s)
        Wg = W.clone().requires_grad_(True)
        (g,) = torch.autograd.grad(loss_end_to_end(end_to_end(net, Wg), st), Wg)
        worst = max(worst, float((dyn.eq7_update(net, W, st, lr) + lr * g).abs().max()))
        size = max(size, float((lr * g).abs().max()))
    return worst, size


def test_eq7_check_reports_its_discrepancy_and_the_gradient_size(data3):
    net = ShortcutNetwork(3, 2, 2)
    res = dyn.eq7_check(net, data3)  # defaults: 3 samples from seed 0, lr 0.1
    worst, size = _eq7_own(net, data3, 0.1)
    assert res.passed and "without" not in res.claim and "over 3 weight tensors" in res.compared
    labelled(res)
    assert res.value == pytest.approx(worst, rel=1e-9, abs=1e-18)
    assert res.nontrivial == pytest.approx(size, rel=1e-12, abs=0)
    assert res.tol == pytest.approx(tol_of(net.num_params, size), rel=1e-12, abs=0)
    assert res.values["worst"] == res.value and res.values["size"] == res.nontrivial
    # a small lr: the largest |lr grad L| is below 1, so a start at 1 would show
    res = dyn.eq7_check(net, data3, lr=0.01, seed=2)
    worst, size = _eq7_own(net, data3, 0.01, seed=2)
    assert size < 1 and res.nontrivial == pytest.approx(size, rel=1e-12, abs=0)
    # a fourth sample starts the cycle of initialisations again (Xavier)
    res = dyn.eq7_check(net, data3, samples=4)
    assert res.nontrivial == pytest.approx(_eq7_own(net, data3, 0.1, samples=4)[1], rel=1e-12, abs=0)
    # the falsifier names itself
    bad = dyn.eq7_check(net, data3, transposes=False)
    assert "without transposes" in bad.claim and bad.rejected_on_value


# -- Eqs. 15-16 with a generalized inverse ----------------------------------------------------------

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
    return dict(G=G, Gp=Gp, W=W, Wmp=st.Syx @ Gp, Lmin=Lmin, LW=LW, tol=tol_of(data.m, scale), scale=scale,
                is_ginv=float((st.Sxx @ G @ st.Sxx - st.Sxx).abs().max()))


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
    res = dyn.eq15_16_ginverse_check()  # defaults: rank_deficient_data(seed=0), G drawn with seed 1
    data = dyn.rank_deficient_data(seed=0)
    own = _ginv_own(data, 0)
    assert res.passed and len(res.parts) == 2 and "Syx G" in res.parts[1].claim
    _ginv_pinned(res, own, 3)
    gi = res.parts[0]
    assert "rank 3 of 5" in gi.claim
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
    assert "G Syx" in left.parts[1].claim
    _ginv_pinned(left, _ginv_own(data, 0, left=True), 3)
    bad = dyn.eq15_16_ginverse_check(not_ginverse=True)
    own = _ginv_own(data, 0, not_ginverse=True)
    assert bad.rejected_on_value and len(bad.parts) == 1
    _ginv_pinned(bad, own, 3)
    assert any("not a generalized inverse" in line for line in bad.parts[0].lines)
    assert own["is_ginv"] > 1e-3


# -- Eqs. 15-16 by training, and the sharpness trace (the trainer's arguments by a spy) ------------

def test_eq15_16_check_trains_the_documented_network(spy, data2):
    with pytest.raises(Stop):
        dyn.eq15_16_check(data2)
    c = spy[-1]
    net = c["net"]
    assert (net.d, net.n, net.R, net.shortcut) == (2, 2, 4, True)
    assert c["lr"] == 0.1 and c["epochs"] == 2000 and c["data"] is data2
    assert torch.equal(c["W0"], initialise(net, "small", seed=0))
    with pytest.raises(Stop):
        dyn.eq15_16_check(data2, seed=3)
    assert torch.equal(spy[-1]["W0"], initialise(net, "small", seed=3))


def test_sharpness_trace_trains_the_documented_network(spy, data2):
    with pytest.raises(Stop):
        dyn.sharpness_trace(data2)
    c = spy[-1]
    net = c["net"]
    assert (net.d, net.n, net.R) == (2, 2, 4) and c["lr"] == 0.5 and c["epochs"] == 1500
    assert c["snaps"] == list(range(0, 1501, 25))
    assert torch.equal(c["W0"], initialise(net, "small", seed=0))
    with pytest.raises(Stop):
        dyn.sharpness_trace(data2, epochs=49, every=25, seed=2)
    assert spy[-1]["snaps"] == [0, 25]  # no snapshot past the last epoch
    assert torch.equal(spy[-1]["W0"], initialise(net, "small", seed=2))


def test_eq15_16_check_reports_its_numbers(data2):
    res = dyn.eq15_16_check(data2, n=1, R=2, lr=0.1, epochs=30, seed=1)
    net = ShortcutNetwork(2, 1, 2)
    run = gradient_descent(net, initialise(net, "small", seed=1), data2, 0.1, 30)
    Wstar, Lmin = optimum(data2)
    assert float(Wstar.abs().max()) < 2 and Lmin < 1  # so that the floors of the scales show
    labelled(res)
    assert any("max |W_end - W*|" in line for line in res.lines)
    e15, e16, below, reach = res.parts
    assert np.array_equal(res.values["losses"], run.losses) and res.values["Lmin"] == Lmin
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
