"""Properties of the Figure 4 checks, the convention table and the drift
table of ``resnet_nb/li/dynamics.py`` that no test of the mutation suite looked at (the
ledger's ``li-fig4-*`` tests are deselected from it for time; see results/mutation/report.md).

Each number a function reports is compared with an independent computation written here:
gradient descent by hand (autograd on the loss of the samples, with the end-to-end map multiplied
out in the test), Hessians by ``torch.autograd.functional.hessian`` with eigenvalues and singular
values from numpy. Tolerances are the
ledger's rounding criterion 100 P eps |scale| (``tol_of``), P being the number of terms.

Kept fast (``--verify-kills`` runs this file once per surviving mutant): tiny sizes (d = 2 or 3,
a few epochs); the expensive defaults (R = 6, 200 epochs, ...) are read by a stand-in trainer
that records its arguments and returns the start at every epoch, instead of a real run.
"""

import numpy as np
import pytest
import torch

import resnet_nb.li.dynamics as dyn
from resnet_nb.core.data import synthetic_linear
from resnet_nb.core.init import initialise
from resnet_nb.core.networks import ShortcutNetwork
from resnet_nb.core.train import TrainResult

from helpers import labelled, tol_of

F64 = torch.float64




@pytest.fixture(autouse=True)
def one_thread():
    """LAPACK on one thread (small matrices on a shared machine)."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


@pytest.fixture(scope="module")
def data3():
    return dyn._data3()


@pytest.fixture
def trainer(monkeypatch):
    """Stand in for the trainer seen by theorem1_dynamics: record the arguments of every call and
    return the start weights at every epoch asked for (zero losses), so that the check finishes."""
    calls = []

    def fake(net, W0, data, lr, epochs, snapshot_epochs=(), **kw):
        snaps = list(snapshot_epochs)
        calls.append(dict(net=net, W0=W0, data=data, lr=lr, epochs=epochs, snaps=snaps))
        return TrainResult(W0.clone(), np.zeros(epochs + 1), np.zeros((), bool), {e: W0.clone() for e in snaps})

    monkeypatch.setattr(dyn, "gradient_descent", fake)
    return calls


# -- the independent computations -----------------------------------------------------------------

def own_end_to_end(W, shortcut):
    """prod_r (I + W_{r,n} ... W_{r,1}) (or without the I for a plain network), multiplied out."""
    d = W.shape[-1]
    eye = torch.eye(d, dtype=F64)
    E = eye
    for r in range(W.shape[0]):
        U = eye
        for l in range(W.shape[1]):
            U = W[r, l] @ U
        E = (eye + U if shortcut else U) @ E
    return E


def linear_loss(data, shortcut):
    """The loss of a linear network on the samples, 0.5 |Y - E X|^2 / m."""
    return lambda W: 0.5 * ((data.Y - own_end_to_end(W, shortcut) @ data.X) ** 2).sum() / data.m


def own_descent(loss, W0, lr, epochs):
    """Gradient descent written out, W <- W - lr grad loss(W): the weights and the loss at every epoch."""
    W, path, losses = W0.clone(), [W0.clone()], []
    for t in range(epochs + 1):
        Wg = W.clone().requires_grad_(True)
        L = loss(Wg)
        losses.append(float(L.detach()))
        if t == epochs:
            break
        (g,) = torch.autograd.grad(L, Wg)
        W = (W - lr * g).detach()
        path.append(W.clone())
    return path, np.array(losses)


def own_hessian(loss, W):
    """The Hessian of ``loss`` at ``W``: autograd on the flat weight vector (numpy)."""
    return torch.autograd.functional.hessian(lambda w: loss(w.reshape(W.shape)), W.reshape(-1)).numpy()


def cond_tol(P, cond):
    """Rounding tolerance of a ratio of eigenvalues: each eigenvalue is off by up to 100 P eps |H|,
    i.e. by 100 P eps cond relative to the smallest one; the ratio by twice that."""
    return 2 * tol_of(P, cond)


# -- Figure 4 (left): one shortcut against a plain network -----------------------------------------

def test_figure4_one_shortcut_defaults_are_R6_lr005_200_epochs_identity_start(trainer, data3):
    res = dyn.figure4_one_shortcut_check(data3)
    a, b = trainer
    st = data3.stats()
    for c, shortcut in [(a, True), (b, False)]:
        net = c["net"]
        assert (net.d, net.n, net.R, net.shortcut, net.is_linear) == (3, 1, 6, shortcut, True)
        assert c["lr"] == 0.05 and c["epochs"] == 200 and c["snaps"] == list(range(201))
        assert torch.equal(c["data"].Sxx, st.Sxx) and torch.equal(c["data"].Syx, st.Syx)
    assert torch.equal(a["W0"], torch.zeros(6, 1, 3, 3, dtype=F64))
    assert torch.equal(b["W0"], torch.eye(3, dtype=F64).expand(6, 1, 3, 3))
    # the fake trainer leaves both at their start: I + 0 = I, nothing moved
    assert "identity-initialised" in res.claim and "R = 6" in res.claim and "200 epochs" in res.compared
    assert res.value == 0.0 and res.nontrivial == 0.0 and res.values["lgap"] == 0.0
    assert res.tol == pytest.approx(tol_of(6 * 9 * 200, 1.0), rel=1e-12, abs=0)


def test_figure4_one_shortcut_follows_the_plain_path_computed_by_hand(data3):
    R, lr, epochs, P = 3, 0.05, 6, 3 * 9
    res = dyn.figure4_one_shortcut_check(data3, R=R, lr=lr, epochs=epochs)
    path_a, loss_a = own_descent(linear_loss(data3, True), torch.zeros(R, 1, 3, 3, dtype=F64), lr, epochs)
    eye = torch.eye(3, dtype=F64)
    path_b, loss_b = own_descent(linear_loss(data3, False), eye.expand(R, 1, 3, 3).clone(), lr, epochs)
    move = float((path_a[-1] - path_a[0]).abs().max())
    tol = tol_of(P * epochs, 1.0 + move)
    # Eq. 14 by hand: V_r = I + W_r at every epoch, and the weights really moved
    assert max(float((A + eye - B).abs().max()) for A, B in zip(path_a, path_b)) <= tol
    assert move > 0.01
    labelled(res)
    assert res.passed and "identity-initialised" in res.claim and f"R = {R}" in res.claim
    assert f"over {epochs} epochs" in res.compared
    assert abs(res.nontrivial - move) <= tol
    assert res.tol == pytest.approx(tol_of(P * epochs, 1.0 + res.nontrivial), rel=1e-12, abs=0)
    assert res.values["gap"] == res.value and res.values["move"] == res.nontrivial
    ltol = tol_of(P * epochs + data3.m, max(1.0, loss_a.max()))
    la, lb = res.values["losses"]
    assert np.abs(la - loss_a).max() <= ltol and np.abs(lb - loss_b).max() <= ltol
    assert 0 <= res.values["lgap"] <= ltol and loss_a.min() > 1e6 * ltol  # the losses themselves are not
    assert res.lines == [f"max |loss difference| = {dyn._fmt(res.values['lgap'])}"]
    # an explicit d is the width used: the data's passes, another is refused by the trainer
    assert dyn.figure4_one_shortcut_check(data3, d=3, R=R, lr=lr, epochs=epochs).value == res.value
    with pytest.raises(ValueError, match="dimension"):
        dyn.figure4_one_shortcut_check(data3, d=2, R=R, lr=lr, epochs=epochs)


def test_figure4_one_shortcut_falsifier_starts_from_the_orthogonal_draw_of_seed_1(data3):
    R, lr, epochs, P = 2, 0.05, 4, 2 * 9
    bad = dyn.figure4_one_shortcut_check(data3, R=R, lr=lr, epochs=epochs, plain_init="orthogonal")
    plain = ShortcutNetwork(3, 1, R, shortcut=False)
    path_a, loss_a = own_descent(linear_loss(data3, True), torch.zeros(R, 1, 3, 3, dtype=F64), lr, epochs)
    path_b, loss_b = own_descent(linear_loss(data3, False), initialise(plain, "orthogonal", seed=1), lr, epochs)
    eye = torch.eye(3, dtype=F64)
    gap = max(float((A + eye - B).abs().max()) for A, B in zip(path_a, path_b))
    move = float((path_a[-1] - path_a[0]).abs().max())
    tol = tol_of(P * epochs, 1.0 + move)
    assert gap > 0.1 and abs(bad.value - gap) <= tol
    assert bad.rejected_on_value and "orthogonal-initialised" in bad.claim
    assert abs(bad.values["lgap"] - np.abs(loss_a - loss_b).max()) <= tol_of(P * epochs + data3.m, loss_a.max())


# -- Figure 4 (right): one shortcut around all layers ------------------------------------------------

def test_figure4_skip_all_refuses_statistics_and_n_below_1(data3):
    with pytest.raises(ValueError, match="^data must be a Dataset"):
        dyn.figure4_skip_all_check(data3.stats())
    with pytest.raises(ValueError, match="^n must be an integer"):
        dyn.figure4_skip_all_check(data3, n=0)


def test_figure4_skip_all_defaults_and_the_shifted_targets(trainer, data3):
    res = dyn.figure4_skip_all_check(data3, mid="tanh")  # defaults: n = 3, lr 0.05, 200 epochs, seed 0
    a, b = trainer
    for c, shortcut in [(a, True), (b, False)]:
        net = c["net"]
        assert (net.d, net.n, net.R, net.shortcut, net.mid.name) == (3, 3, 1, shortcut, "tanh")
        assert c["lr"] == 0.05 and c["epochs"] == 200 and c["snaps"] == list(range(201))
    # the same start on both sides: the Xavier draw of the seed, scaled by 0.3
    W0 = 0.3 * initialise(a["net"], "xavier", seed=0)
    assert torch.equal(a["W0"], W0) and torch.equal(b["W0"], W0)
    assert a["data"] is data3
    assert torch.equal(b["data"].X, data3.X) and torch.equal(b["data"].Y, data3.Y - data3.X)
    assert "on Y - X" in res.claim and "n = 3" in res.claim and "200 epochs" in res.compared
    assert res.value == 0.0 and res.values == dict(gap=0.0, move=0.0)
    assert res.tol == pytest.approx(tol_of(3 * 9 * 200, 1.0), rel=1e-12, abs=0)
    # the falsifier trains the plain network on Y itself; another seed draws another start
    res = dyn.figure4_skip_all_check(data3, shift=False, seed=4)
    assert trainer[-1]["data"] is data3 and "on Y," in res.claim
    assert torch.equal(trainer[-1]["W0"], 0.3 * initialise(a["net"], "xavier", seed=4))


def _tanh_net(shortcut):
    """out = [X +] W2 tanh(W1 X), written out (one unit of n = 2 with tanh in the middle)."""
    return lambda W, X: (X if shortcut else 0) + W[0, 1] @ torch.tanh(W[0, 0] @ X)


def test_figure4_skip_all_follows_the_plain_path_computed_by_hand(data3):
    n, lr, epochs, seed, P = 2, 0.05, 6, 3, 2 * 9
    res = dyn.figure4_skip_all_check(data3, n=n, lr=lr, epochs=epochs, seed=seed, mid="tanh")
    X, Y, m = data3.X, data3.Y, data3.m
    W0 = 0.3 * initialise(ShortcutNetwork(3, n, 1), "xavier", seed=seed)
    res_f, plain_f = _tanh_net(True), _tanh_net(False)
    path_a, _ = own_descent(lambda W: 0.5 * ((Y - res_f(W, X)) ** 2).sum() / m, W0, lr, epochs)
    path_b, _ = own_descent(lambda W: 0.5 * ((Y - X - plain_f(W, X)) ** 2).sum() / m, W0, lr, epochs)
    move = float((path_a[-1] - W0).abs().max())
    tol = tol_of(P * epochs, 1.0 + move)
    assert max(float((A - B).abs().max()) for A, B in zip(path_a, path_b)) <= tol and move > 0.01
    labelled(res)
    assert res.passed and "on Y - X" in res.claim and f"n = {n}" in res.claim
    assert f"over {epochs} epochs" in res.compared
    assert abs(res.nontrivial - move) <= tol
    assert res.tol == pytest.approx(tol_of(P * epochs, 1.0 + res.nontrivial), rel=1e-12, abs=0)
    assert res.values == dict(gap=res.value, move=res.nontrivial)
    # the falsifier: the plain network fits Y, and the paths part
    bad = dyn.figure4_skip_all_check(data3, n=n, lr=lr, epochs=epochs, seed=seed, shift=False, mid="tanh")
    path_c, _ = own_descent(lambda W: 0.5 * ((Y - plain_f(W, X)) ** 2).sum() / m, W0, lr, epochs)
    gap = max(float((A - C).abs().max()) for A, C in zip(path_a, path_c))
    assert gap > 0.01 and abs(bad.value - gap) <= tol and bad.rejected_on_value


# -- the convention table ------------------------------------------------------------------------------

def _own_row(data, signs, order):
    X = data.X[list(order)] if order is not None else data.X
    if signs == "positive_diagonal":
        s = torch.where((data.Y * X).mean(dim=1) >= 0, 1.0, -1.0).to(F64)
    elif signs == "svd_flip":
        s = torch.ones(data.d, dtype=F64)
    else:
        s = torch.tensor(signs, dtype=F64)
    X = X * s[:, None]
    Y, m, d = data.Y, data.m, data.d
    Sxx, Syx = (X @ X.T / m).numpy(), (Y @ X.T / m).numpy()
    sv = np.linalg.svd(Sxx - Syx, compute_uv=False)
    out = dict(cond_M=sv.max() / sv.min(), trace_Syx=float(np.trace(Syx)), )

    def loss(W):
        return 0.5 * ((Y - own_end_to_end(W, True) @ X) ** 2).sum() / m

    # at 0: a 2-shortcut unit (R = 1), and a 1-shortcut network of 8 units
    e2 = np.abs(np.linalg.eigvalsh(own_hessian(loss, torch.zeros(1, 2, d, d, dtype=F64))))
    e1 = np.abs(np.linalg.eigvalsh(own_hessian(loss, torch.zeros(8, 1, d, d, dtype=F64))))
    out.update(cond_H=e2.max() / e2.min(), cond10=e1.max() / np.percentile(e1, 10),
               scale=float(data.X.abs().max() * data.Y.abs().max()))
    return out


def test_convention_table_rows_against_hand_computed_hessians(data3):
    conventions = [("as is", "svd_flip", None), ("flipped and reordered", (1, -1, -1), [2, 0, 1]),
                   ("positive diagonal", "positive_diagonal", [1, 2, 0])]
    rows = dyn.convention_table(data3, conventions)
    assert [r["convention"] for r in rows] == [c[0] for c in conventions]
    conds = []
    for row, (_, signs, order) in zip(rows, conventions):
        assert list(row) == ["convention", "cond_M", "cond_H_2shortcut", "cond10_1shortcut_R8", "trace_Syx"]
        own = _own_row(data3, signs, order)
        assert row["cond_M"] == pytest.approx(own["cond_M"], rel=cond_tol(9, own["cond_M"]), abs=0)
        # Theorem 1, Part 2: the Hessian of a 2-shortcut unit at 0 has the condition number of M
        assert row["cond_H_2shortcut"] == pytest.approx(own["cond_H"], rel=cond_tol(18, own["cond_H"]), abs=0)
        assert row["cond_H_2shortcut"] == pytest.approx(row["cond_M"], rel=cond_tol(18, own["cond_H"]), abs=0)
        assert row["cond10_1shortcut_R8"] == pytest.approx(own["cond10"], rel=cond_tol(72, own["cond10"]), abs=0)
        assert row["trace_Syx"] == pytest.approx(own["trace_Syx"], rel=0, abs=tol_of(data3.m, own["scale"]))
        assert all(isinstance(row[k], float) for k in list(row)[1:])
        conds.append(row["cond_M"])
    # the pairings really differ (else the table would not test the convention)
    assert min(abs(x - y) for i, x in enumerate(conds) for y in conds[i + 1:]) > 1


# -- the drift table ----------------------------------------------------------------------------------

def test_drift_table_refuses_R_and_eps_out_of_range():
    data = synthetic_linear(2, 10, seed=0)
    with pytest.raises(ValueError, match="^R must be an integer"):
        dyn.drift_table((0,), (0.1,), data)
    for eps in (0.0, -0.01):
        with pytest.raises(ValueError, match="^eps must lie in"):
            dyn.drift_table((1,), (eps,), data)


def test_drift_table_rows_against_hand_computed_hessians():
    data = synthetic_linear(2, 20, seed=0)
    Rs, epss = (1, 2), (0.05, 0.1)
    Sxx, Syx = data.stats().Sxx.numpy(), data.stats().Syx.numpy()
    sig = np.linalg.svd(Sxx - Syx, compute_uv=False).max()
    loss = linear_loss(data, True)
    for seed, rows in [(0, dyn.drift_table(Rs, epss, data)), (1, dyn.drift_table(Rs, epss, data, seed=1))]:
        V = initialise(ShortcutNetwork(2, 2, max(Rs)), "xavier", seed=seed)
        assert [(r["R"], r["eps"]) for r in rows] == [(R, e) for R in Rs for e in epss]
        for r in rows:
            R, eps = r["R"], r["eps"]
            assert set(r) == {"depth", "R", "eps", "lam_max", "sigma_max", "drift", "c"}
            assert r["depth"] == 2 * R
            H = own_hessian(loss, eps * V[:R])
            tol = tol_of(H.shape[0], max(1.0, np.abs(H).max()))
            assert abs(r["lam_max"] - np.linalg.eigvalsh(H).max()) <= tol
            assert abs(r["sigma_max"] - sig) <= tol_of(4, max(1.0, sig))
            assert r["drift"] == r["lam_max"] - r["sigma_max"] and r["drift"] > 10 * tol
            assert r["c"] == pytest.approx(r["drift"] / (R * eps ** 2), rel=1e-14, abs=0)


def test_lambda_max_is_reproducible_above_the_dense_size():
    """Above 400 rows lambda_max uses Lanczos from a fixed start: two calls give the same float,
    which is numpy's largest eigenvalue to 100 P eps |lambda|max."""
    g = torch.Generator().manual_seed(5)
    A = torch.randn(450, 450, generator=g, dtype=F64)
    H = (A + A.T) / 2
    a, b = dyn.lambda_max(H), dyn.lambda_max(H)
    assert a == b
    ref = float(np.linalg.eigvalsh(H.numpy())[-1])
    assert a == pytest.approx(ref, abs=tol_of(450, abs(ref)))
