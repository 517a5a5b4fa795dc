"""Eq. 7 and Figure 4 of Li et al. (resnet_nb.li.dynamics.eq7_figure4), each side recomputed here
independently (own end-to-end products, own gradient descent) at small sizes."""

import numpy as np
import pytest
import torch
from helpers import labelled, tol_of

import resnet_nb.li.dynamics as dyn
from resnet_nb import ShortcutNetwork
from resnet_nb.core.init import initialise
from resnet_nb.core.losses import loss_end_to_end
from resnet_nb.core.networks import end_to_end
from resnet_nb.li.dynamics import eq7_check, eq7_update, figure4_one_shortcut_check, figure4_skip_all_check

F64 = torch.float64


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


@pytest.mark.parametrize("n,R,shortcut", [(1, 3, True), (2, 2, True), (3, 2, False)])
def test_eq7(data3, n, R, shortcut):
    res = eq7_check(ShortcutNetwork(3, n, R, shortcut=shortcut), data3)
    assert res.passed, str(res)


def test_eq7_rejects_bad_input(data3):
    net = ShortcutNetwork(3, 2, 1)
    with pytest.raises(ValueError, match=r"\blr\b"):
        eq7_update(net, torch.zeros(net.shape, dtype=torch.float64), data3.stats(), -1.0)
    with pytest.raises(ValueError, match=r"\bnet\b.*\btanh\b"):
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


def test_eq7_update_is_minus_lr_times_the_gradient(data3):
    net = ShortcutNetwork(3, 2, 2)
    st = data3.stats()
    W = 0.3 * torch.randn(net.shape, generator=torch.Generator().manual_seed(7), dtype=F64)
    Wg = W.clone().requires_grad_(True)
    (g,) = torch.autograd.grad(loss_end_to_end(end_to_end(net, Wg), st), Wg)
    upd = dyn.eq7_update(net, W, st, 0.1, transposes=True)
    assert float((upd + 0.1 * g).abs().max()) < 1e-13 < float((0.1 * g).abs().max())
    # float32 weights are taken to float64 first
    up32 = dyn.eq7_update(net, W.to(torch.float32), st, 0.1)
    assert (
        up32.dtype == F64
        and float((up32 - dyn.eq7_update(net, W.to(torch.float32).to(F64), st, 0.1)).abs().max()) == 0.0
    )
    with pytest.raises(ValueError, match=r"\blr must"):
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
    res = dyn.eq7_check(net, data3, samples=3, seed=0, lr=0.1)
    worst, size = _eq7_own(net, data3, 0.1)
    assert res.passed and res.values["transposes"] and res.values["samples"] == 3
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
    # the falsifier: the update without the transposes, far from -lr grad L
    bad = dyn.eq7_check(net, data3, transposes=False)
    assert not bad.values["transposes"] and bad.rejected_on_value and bad.value > 1e6 * bad.tol


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
    assert res.passed and (res.values["plain_init"], res.values["R"], res.values["epochs"]) == ("identity", R, epochs)
    assert abs(res.nontrivial - move) <= tol
    assert res.tol == pytest.approx(tol_of(P * epochs, 1.0 + res.nontrivial), rel=1e-12, abs=0)
    assert res.values["gap"] == res.value and res.values["move"] == res.nontrivial
    ltol = tol_of(P * epochs + data3.m, max(1.0, loss_a.max()))
    la, lb = res.values["losses"]
    assert np.abs(la - loss_a).max() <= ltol and np.abs(lb - loss_b).max() <= ltol
    assert 0 <= res.values["lgap"] <= ltol and loss_a.min() > 1e6 * ltol  # the losses themselves are not
    assert len(res.lines) == 1  # the loss difference, beside the comparison of the weights
    # an explicit d is the width used: the data's passes, another is refused by the trainer
    assert dyn.figure4_one_shortcut_check(data3, d=3, R=R, lr=lr, epochs=epochs).value == res.value
    with pytest.raises(ValueError, match=r"\bdimension\b"):
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
    assert bad.rejected_on_value and bad.values["plain_init"] == "orthogonal"
    assert abs(bad.values["lgap"] - np.abs(loss_a - loss_b).max()) <= tol_of(P * epochs + data3.m, loss_a.max())


def test_figure4_skip_all_refuses_statistics_and_n_below_1(data3):
    with pytest.raises(ValueError, match=r"\bdata\b.*\bSufficientStats\b"):
        dyn.figure4_skip_all_check(data3.stats())
    with pytest.raises(ValueError, match=r"\bn\b"):
        dyn.figure4_skip_all_check(data3, n=0)


def test_figure4_skip_all_trains_both_sides_from_one_start_on_shifted_targets(trainer, data3):
    res = dyn.figure4_skip_all_check(data3, n=3, lr=0.05, epochs=200, seed=0, mid="tanh")
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
    assert res.values["shift"] and (res.values["n"], res.values["epochs"]) == (3, 200)
    assert res.value == 0.0 and (res.values["gap"], res.values["move"]) == (0.0, 0.0)
    assert res.tol == pytest.approx(tol_of(3 * 9 * 200, 1.0), rel=1e-12, abs=0)
    # the falsifier trains the plain network on Y itself; another seed draws another start
    res = dyn.figure4_skip_all_check(data3, shift=False, seed=4)
    assert trainer[-1]["data"] is data3 and not res.values["shift"]
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
    assert res.passed and res.values["shift"] and (res.values["n"], res.values["epochs"]) == (n, epochs)
    assert abs(res.nontrivial - move) <= tol
    assert res.tol == pytest.approx(tol_of(P * epochs, 1.0 + res.nontrivial), rel=1e-12, abs=0)
    assert (res.values["gap"], res.values["move"]) == (res.value, res.nontrivial)
    # the falsifier: the plain network fits Y, and the paths part
    bad = dyn.figure4_skip_all_check(data3, n=n, lr=lr, epochs=epochs, seed=seed, shift=False, mid="tanh")
    path_c, _ = own_descent(lambda W: 0.5 * ((Y - plain_f(W, X)) ** 2).sum() / m, W0, lr, epochs)
    gap = max(float((A - C).abs().max()) for A, C in zip(path_a, path_c))
    assert gap > 0.01 and abs(bad.value - gap) <= tol and bad.rejected_on_value


def test_eq7_update_accepts_any_positive_lr_and_scales_with_it(data3):
    net = ShortcutNetwork(3, 2, 2)
    st = data3.stats()
    W = 0.3 * torch.randn(net.shape, generator=torch.Generator().manual_seed(2), dtype=F64)
    one = dyn.eq7_update(net, W, st, 1.0)
    tiny = dyn.eq7_update(net, W, st, 1e-300)  # just inside the open bound at 0
    assert torch.allclose(tiny, 1e-300 * one, rtol=1e-12, atol=0) and float(tiny.abs().max()) > 0
