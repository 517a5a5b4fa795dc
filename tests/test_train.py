"""Gradient descent: the closed-form gradient (Eq. 7) against autograd, batching against loops."""
import numpy as np
import pytest
import torch

import resnet_nb as rn
from resnet_nb.core.losses import loss_samples, loss_stats
from resnet_nb.core.train import (_samples_loss, gradient_descent, linear_loss_and_grad, prefix_products,
                             samples_loss_and_grad, suffix_products)


@pytest.fixture(scope="module")
def data():
    return rn.synthetic_linear(d=4, m=200, seed=3)


def _autograd_loop(net, W0, data, lr, epochs):
    """Plain per-run reference: autograd on the loss of one run, one step at a time."""
    W = W0.clone()
    losses = []
    for t in range(epochs + 1):
        W.requires_grad_(True)
        L = loss_stats(net, W, data.stats()) if net.is_linear else loss_samples(net, W, data)
        (g,) = torch.autograd.grad(L, W)
        losses.append(float(L.detach()))
        W = W.detach()
        if t < epochs:
            W = W - lr * g
    return W, np.array(losses)


@pytest.mark.parametrize("n,R,shortcut", [(1, 1, True), (1, 5, True), (2, 3, True), (3, 2, True),
                                          (1, 4, False), (2, 2, False), (4, 2, True)])
def test_closed_form_gradient_matches_autograd(data, n, R, shortcut):
    net = rn.ShortcutNetwork(4, n, R, shortcut=shortcut)
    W = rn.initialise(net, "xavier", seed=1, runs=3).requires_grad_(True)
    L = loss_stats(net, W, data.stats())
    (g,) = torch.autograd.grad(L.sum(), W)
    L2, g2 = linear_loss_and_grad(net, W.detach(), data.stats())
    assert torch.allclose(L2, L.detach(), rtol=1e-12, atol=1e-12)
    assert torch.allclose(g2, g, rtol=1e-10, atol=1e-12 * float(g.abs().max()))


def test_products_against_loop():
    T = torch.randn(2, 6, 3, 3, dtype=torch.float64)
    P, S = prefix_products(T), suffix_products(T)
    for r in range(6):
        p = torch.eye(3, dtype=torch.float64).expand(2, 3, 3)
        for k in range(r + 1):
            p = T[:, k] @ p
        s = torch.eye(3, dtype=torch.float64)
        for k in range(5, r - 1, -1):
            s = s @ T[:, k]
        assert torch.allclose(P[:, r], p, rtol=1e-12)
        assert torch.allclose(S[:, r], s, rtol=1e-12)


@pytest.mark.parametrize("n,R,shortcut,scheme", [(2, 3, True, "small"), (1, 4, False, "orthogonal"),
                                                 (3, 2, True, "xavier")])
def test_batched_linear_descent_equals_separate_runs(data, n, R, shortcut, scheme):
    net = rn.ShortcutNetwork(4, n, R, shortcut=shortcut)
    W0 = rn.initialise(net, scheme, seed=2, runs=2)
    lrs = torch.tensor([0.01, 0.05], dtype=torch.float64)
    W0b = W0[:, None].expand(2, 2, *net.shape)
    res = gradient_descent(net, W0b, data, lr=lrs, epochs=15, snapshot_epochs=[0, 7])
    for i in range(2):
        for j in range(2):
            W_ref, L_ref = _autograd_loop(net, W0[i], data, float(lrs[j]), 15)
            np.testing.assert_allclose(res.losses[i, j], L_ref, rtol=1e-11)
            assert torch.allclose(res.W[i, j], W_ref, rtol=1e-10, atol=1e-13)
    assert torch.equal(res.snapshots[0], W0b)
    assert res.snapshots[7].shape == W0b.shape and not res.diverged.any()


def test_batched_relu_descent_equals_separate_runs(data):
    net = rn.ShortcutNetwork(4, 2, 2, mid="relu")
    W0 = rn.initialise(net, "xavier", seed=5, runs=3)
    res = gradient_descent(net, W0, data, lr=torch.tensor([0.01, 0.02, 0.03], dtype=torch.float64), epochs=10)
    for i, lr in enumerate([0.01, 0.02, 0.03]):
        W_ref, L_ref = _autograd_loop(net, W0[i], data, lr, 10)
        np.testing.assert_allclose(res.losses[i], L_ref, rtol=1e-11)
        assert torch.allclose(res.W[i], W_ref, rtol=1e-10, atol=1e-13)


ACTS = [dict(mid="relu"), dict(pre="tanh", mid="silu", post="relu"), dict(pre="relu", post="tanh"),
        dict(mid="relu", shortcut=False), dict(pre="silu", mid="tanh", shortcut=False)]


@pytest.mark.parametrize("acts", ACTS)
@pytest.mark.parametrize("n", [1, 2, 3])
def test_handwritten_backprop_matches_autograd(acts, n):
    """samples_loss_and_grad (backpropagation written out) against autograd on the forward map."""
    torch.manual_seed(n)
    X, Y = torch.randn(4, 60, dtype=torch.float64), torch.randn(4, 60, dtype=torch.float64)
    net = rn.ShortcutNetwork(4, n, 3, **acts)
    W = (0.6 * torch.randn(2, 3, *net.shape, dtype=torch.float64)).requires_grad_(True)
    L = _samples_loss(net, W, X, Y)
    (g,) = torch.autograd.grad(L.sum(), W)
    L2, g2 = samples_loss_and_grad(net, W.detach(), X, Y)
    assert L2.shape == L.shape and g2.shape == g.shape
    assert torch.allclose(L2, L.detach(), rtol=1e-13, atol=0)
    assert float((g2 - g).abs().max()) <= 1e-12 * float(g.abs().max())


@pytest.mark.parametrize("c", [0.0, 0.5, 1.0])
def test_handwritten_backprop_relu_convention_at_zero(c):
    """Pre-activations exactly 0 (zero first matrix rows): the derivative there is the network's
    convention c, as under autograd; the three conventions give three different gradients."""
    X, Y = torch.randn(3, 20, dtype=torch.float64), torch.randn(3, 20, dtype=torch.float64)
    net = rn.ShortcutNetwork(3, 2, 2, mid="relu", relu_grad_at_zero=c)
    W = torch.randn(*net.shape, dtype=torch.float64)
    W[:, 0, 0, :] = 0.0                                   # z[0] = 0 for every sample
    Wg = W.clone().requires_grad_(True)
    (g,) = torch.autograd.grad(_samples_loss(net, Wg, X, Y), Wg)
    _, g2 = samples_loss_and_grad(net, W, X, Y)
    assert float((g2 - g).abs().max()) <= 1e-13 * float(g.abs().max())
    other = rn.ShortcutNetwork(3, 2, 2, mid="relu", relu_grad_at_zero=1.0 if c != 1.0 else 0.0)
    _, g3 = samples_loss_and_grad(other, W, X, Y)
    assert float((g3 - g2).abs().max()) > 1e-3   # the convention matters here, so the check can fail


def test_frozen_runs_are_not_computed_and_do_not_change_the_others(data):
    """With some runs diverged, the live ones are computed on their own (a smaller batch); their
    trajectories are bit-for-bit those of the full batch and of a run alone."""
    net = rn.ShortcutNetwork(4, 2, 3, mid="relu", shortcut=False)
    W0 = rn.initialise(net, "xavier", seed=3, runs=1).expand(4, *net.shape)
    lrs = torch.tensor([0.02, 80.0, 0.05, 500.0], dtype=torch.float64)
    res = gradient_descent(net, W0, data, lr=lrs, epochs=30)
    assert res.diverged.tolist() == [False, True, False, True]
    for i in (0, 2):
        alone = gradient_descent(net, W0[i], data, lr=float(lrs[i]), epochs=30)
        np.testing.assert_array_equal(res.losses[i], alone.losses)
        assert torch.equal(res.W[i], alone.W)


def test_divergent_run_is_frozen_and_others_unaffected(data):
    net = rn.plain_network(4, 3)
    W0 = rn.initialise(net, "xavier", seed=0, runs=1).expand(2, *net.shape)
    res = gradient_descent(net, W0, data, lr=torch.tensor([0.01, 50.0], dtype=torch.float64), epochs=40)
    assert res.diverged.tolist() == [False, True]
    assert np.isnan(res.losses[1, -1]) and np.isfinite(res.losses[0]).all()
    alone = gradient_descent(net, W0[0], data, lr=0.01, epochs=40)
    np.testing.assert_allclose(res.losses[0], alone.losses, rtol=1e-12)
    assert torch.isfinite(res.W).all()


def test_gradient_norms_recorded(data):
    net = rn.ShortcutNetwork(4, 2, 2)
    W0 = rn.initialise(net, "xavier", seed=0)
    res = gradient_descent(net, W0, data, lr=0.01, epochs=3)
    _, g = linear_loss_and_grad(net, W0, data.stats())
    assert res.grad_norms[0] == pytest.approx(float(g.norm()), rel=1e-12)


def test_threads_restored(data):
    before = torch.get_num_threads()
    net = rn.ShortcutNetwork(4, 2, 2)
    gradient_descent(net, rn.initialise(net, "small"), data, lr=0.01, epochs=2)
    assert torch.get_num_threads() == before


def test_bad_arguments(data):
    net = rn.ShortcutNetwork(4, 2, 2)
    W0 = rn.initialise(net, "small", runs=3)
    with pytest.raises(ValueError, match="epochs"):
        gradient_descent(net, W0, data, lr=0.1, epochs=-1)
    with pytest.raises(ValueError, match="lr"):
        gradient_descent(net, W0, data, lr=-0.1, epochs=1)
    with pytest.raises(ValueError, match="lr of shape"):
        gradient_descent(net, W0, data, lr=torch.ones(2), epochs=1)
    with pytest.raises(ValueError, match="samples"):
        gradient_descent(rn.ShortcutNetwork(4, 2, 2, mid="relu"), W0, data.stats(), lr=0.1, epochs=1)
    with pytest.raises(ValueError, match="shape"):
        gradient_descent(net, torch.zeros(3, 2, 2, 4, 5), data, lr=0.1, epochs=1)
    with pytest.raises(ValueError, match="dimension"):
        gradient_descent(net, W0, rn.synthetic_linear(d=3, m=10), lr=0.1, epochs=1)


@pytest.mark.parametrize("shape_x, shape_y", [((2, 3, 5), (2, 3, 5)), ((3, 5), (3, 4)), ((4, 5), (4, 5)),
                                              ((3, 5), (2, 5))])
def test_samples_loss_and_grad_refuses_data_of_the_wrong_shape(shape_x, shape_y):
    # found by mutation testing: a 3-D X used to give a loss and an uninitialised gradient
    from resnet_nb.core.train import samples_loss_and_grad

    net = rn.ShortcutNetwork(3, 2, 2, mid="relu")
    W = torch.zeros(net.shape, dtype=torch.float64)
    with pytest.raises(ValueError, match=r"shape \(d, m\) = \(3, m\)"):
        samples_loss_and_grad(net, W, torch.ones(shape_x, dtype=torch.float64),
                              torch.ones(shape_y, dtype=torch.float64))
