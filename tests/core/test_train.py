"""Gradient descent (Eq. 7): the closed-form and hand-written gradients against autograd, batched
runs against separate ones, divergence and its freezing, argument checks."""

import numpy as np
import pytest
import torch
from helpers import random_dataset, shared_scope

import resnet_nb as rn
from resnet_nb.core.data import SufficientStats
from resnet_nb.core.losses import loss_samples, loss_stats
from resnet_nb.core.train import (
    batched_forward,
    batched_sample_loss,
    gradient_descent,
    linear_loss_and_grad,
    prefix_products,
    samples_loss_and_grad,
    suffix_products,
)


@pytest.fixture(scope=shared_scope)
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


@pytest.mark.parametrize(
    "n,R,shortcut", [(1, 1, True), (1, 5, True), (2, 3, True), (3, 2, True), (1, 4, False), (2, 2, False), (4, 2, True)]
)
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


@pytest.mark.parametrize(
    "n,R,shortcut,scheme", [(2, 3, True, "small"), (1, 4, False, "orthogonal"), (3, 2, True, "xavier")]
)
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


ACTS = [
    dict(mid="relu"),
    dict(pre="tanh", mid="silu", post="relu"),
    dict(pre="relu", post="tanh"),
    dict(mid="relu", shortcut=False),
    dict(pre="silu", mid="tanh", shortcut=False),
]


@pytest.mark.parametrize("acts", ACTS)
@pytest.mark.parametrize("n", [1, 2, 3])
def test_handwritten_backprop_matches_autograd(acts, n):
    """samples_loss_and_grad (backpropagation written out) against autograd on the forward map."""
    torch.manual_seed(n)
    X, Y = torch.randn(4, 60, dtype=torch.float64), torch.randn(4, 60, dtype=torch.float64)
    net = rn.ShortcutNetwork(4, n, 3, **acts)
    W = (0.6 * torch.randn(2, 3, *net.shape, dtype=torch.float64)).requires_grad_(True)
    L = batched_sample_loss(net, W, X, Y)
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
    W[:, 0, 0, :] = 0.0  # z[0] = 0 for every sample
    Wg = W.clone().requires_grad_(True)
    (g,) = torch.autograd.grad(batched_sample_loss(net, Wg, X, Y), Wg)
    _, g2 = samples_loss_and_grad(net, W, X, Y)
    assert float((g2 - g).abs().max()) <= 1e-13 * float(g.abs().max())
    other = rn.ShortcutNetwork(3, 2, 2, mid="relu", relu_grad_at_zero=1.0 if c != 1.0 else 0.0)
    _, g3 = samples_loss_and_grad(other, W, X, Y)
    assert float((g3 - g2).abs().max()) > 1e-3  # the convention matters here, so the check can fail


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
    with pytest.raises(ValueError, match=r"\bepochs\b"):
        gradient_descent(net, W0, data, lr=0.1, epochs=-1)
    with pytest.raises(ValueError, match=r"\blr\b"):
        gradient_descent(net, W0, data, lr=-0.1, epochs=1)
    with pytest.raises(ValueError, match="lr of shape"):
        gradient_descent(net, W0, data, lr=torch.ones(2), epochs=1)
    with pytest.raises(ValueError, match=r"\bsamples\b"):
        gradient_descent(rn.ShortcutNetwork(4, 2, 2, mid="relu"), W0, data.stats(), lr=0.1, epochs=1)
    with pytest.raises(ValueError, match=r"\bshape\b"):
        gradient_descent(net, torch.zeros(3, 2, 2, 4, 5), data, lr=0.1, epochs=1)
    with pytest.raises(ValueError, match=r"\bdimension\b"):
        gradient_descent(net, W0, rn.synthetic_linear(d=3, m=10), lr=0.1, epochs=1)


@pytest.mark.parametrize(
    "shape_x, shape_y", [((2, 3, 5), (2, 3, 5)), ((3, 5), (3, 4)), ((4, 5), (4, 5)), ((3, 5), (2, 5))]
)
def test_samples_loss_and_grad_refuses_data_of_the_wrong_shape(shape_x, shape_y):
    # found by mutation testing: a 3-D X used to give a loss and an uninitialised gradient
    from resnet_nb.core.train import samples_loss_and_grad

    net = rn.ShortcutNetwork(3, 2, 2, mid="relu")
    W = torch.zeros(net.shape, dtype=torch.float64)
    with pytest.raises(ValueError, match=r"shape \(d, m\) = \(3, m\)"):
        samples_loss_and_grad(
            net, W, torch.ones(shape_x, dtype=torch.float64), torch.ones(shape_y, dtype=torch.float64)
        )


F64 = torch.float64


def _stats_with_loss(d, half_trsyy):
    """Statistics on which a plain linear network with zero weights has loss exactly
    ``half_trsyy`` (E = 0, so the loss is tr(Syy) / 2)."""
    return SufficientStats(torch.eye(d, dtype=F64), torch.zeros(d, d, dtype=F64), 2.0 * half_trsyy, 1)


def test_zero_epochs_is_allowed_and_only_evaluates_the_start():
    net = rn.ShortcutNetwork(3, 2, 2)
    data = random_dataset(3, 20, seed=0)
    W0 = rn.initialise(net, "xavier", seed=1)
    res = gradient_descent(net, W0, data, lr=0.1, epochs=0)
    assert res.losses.shape == (1,) and torch.equal(res.W, W0)
    assert res.losses[0] == pytest.approx(float(linear_loss_and_grad(net, W0, data.stats())[0]), rel=1e-13)


def test_error_messages_name_the_argument():
    # _checks promises messages that name the argument
    net = rn.ShortcutNetwork(2, 1, 1)
    stats, W0 = _stats_with_loss(2, 1.0), torch.zeros(1, 1, 2, 2, dtype=F64)
    with pytest.raises(ValueError, match=r"\bepochs\b"):
        gradient_descent(net, W0, stats, lr=0.1, epochs=-1)
    with pytest.raises(ValueError, match=r"\bblowup\b"):
        gradient_descent(net, W0, stats, lr=0.1, epochs=1, blowup=0.0)


@pytest.mark.parametrize("blowup", [0.0, -1.0])
def test_blowup_must_be_positive(blowup):
    net = rn.ShortcutNetwork(2, 1, 1, shortcut=False)
    with pytest.raises(ValueError, match=r"\bblowup\b"):
        gradient_descent(
            net, torch.zeros(1, 1, 2, 2, dtype=F64), _stats_with_loss(2, 1.0), lr=0.1, epochs=1, blowup=blowup
        )


def test_blowup_below_one_is_accepted():
    net = rn.ShortcutNetwork(2, 1, 1, shortcut=False)
    res = gradient_descent(
        net, torch.zeros(1, 1, 2, 2, dtype=F64), _stats_with_loss(2, 0.25), lr=0.1, epochs=1, blowup=0.5
    )
    assert not res.diverged and res.losses.tolist() == [0.25, 0.25]


def test_zero_learning_rate_is_refused():
    net = rn.ShortcutNetwork(2, 1, 1)
    with pytest.raises(ValueError, match=r"\blr must"):
        gradient_descent(net, torch.zeros(1, 1, 2, 2, dtype=F64), _stats_with_loss(2, 1.0), lr=0.0, epochs=1)
    with pytest.raises(ValueError, match=r"\blr must"):
        gradient_descent(
            net, torch.zeros(2, 1, 1, 2, 2, dtype=F64), _stats_with_loss(2, 1.0), lr=torch.tensor([0.1, 0.0]), epochs=1
        )


def test_non_finite_start_is_refused_with_the_count_of_bad_entries():
    net = rn.ShortcutNetwork(2, 1, 2)
    W0 = torch.zeros(1, 2, 1, 2, 2, dtype=F64)
    W0[0, 0, 0, 0, 1] = float("nan")
    W0[0, 1, 0, 1, 1] = float("inf")
    W0[0, 1, 0, 1, 0] = float("-inf")
    with pytest.raises(ValueError, match="3 NaN or infinite entries of 8"):
        gradient_descent(net, W0, _stats_with_loss(2, 1.0), lr=0.1, epochs=1)


def test_a_run_diverges_when_its_loss_exceeds_blowup_not_when_it_equals_it():
    net = rn.ShortcutNetwork(2, 1, 2, shortcut=False)
    W0 = torch.zeros(2, 1, 2, 2, dtype=F64)
    stats = _stats_with_loss(2, 2.0)
    assert not gradient_descent(net, W0, stats, lr=0.1, epochs=0, blowup=2.0).diverged
    assert gradient_descent(net, W0, stats, lr=0.1, epochs=0, blowup=1.999).diverged


@pytest.mark.parametrize("mid", [None, "tanh"])
def test_gradient_norms_are_per_run(mid):
    data = random_dataset(3, 30, seed=2)
    net = rn.ShortcutNetwork(3, 2, 2, mid=mid)
    W0 = torch.stack([rn.initialise(net, "xavier", seed=3), 3.0 * rn.initialise(net, "xavier", seed=4)])
    res = gradient_descent(net, W0, data, lr=1e-3, epochs=1)
    for i in range(2):
        if net.is_linear:
            _, g = linear_loss_and_grad(net, W0[i], data.stats())
        else:
            _, g = samples_loss_and_grad(net, W0[i], data.X, data.Y)
        assert res.grad_norms[i, 0] == pytest.approx(float(torch.linalg.vector_norm(g)), rel=1e-12)
    assert abs(res.grad_norms[0, 0] - res.grad_norms[1, 0]) > 1e-3


def test_callback_sees_each_step_in_the_users_layout():
    data = random_dataset(3, 30, seed=5)
    net = rn.ShortcutNetwork(3, 2, 2)
    W0 = rn.initialise(net, "xavier", seed=6, runs=2)
    calls = []

    def callback(epoch, W, losses):
        calls.append((epoch, W.clone(), losses.clone().numpy()))

    res = gradient_descent(net, W0, data, lr=0.01, epochs=3, snapshot_epochs=(1, 2, 3), callback=callback)
    assert [c[0] for c in calls] == [0, 1, 2]
    for epoch, W, losses in calls:
        assert W.shape == W0.shape
        assert torch.equal(W, res.snapshots[epoch + 1])
        assert losses.shape == (2, 4)
        np.testing.assert_array_equal(losses[:, : epoch + 1], res.losses[:, : epoch + 1])


def test_showing_progress_changes_no_result():
    data = random_dataset(3, 20, seed=7)
    net = rn.ShortcutNetwork(3, 1, 2)
    W0 = rn.initialise(net, "xavier", seed=8)
    quiet = gradient_descent(net, W0, data, lr=0.01, epochs=3, progress=False)
    loud = gradient_descent(net, W0, data, lr=0.01, epochs=3, progress=True)
    np.testing.assert_array_equal(quiet.losses, loud.losses)
    assert torch.equal(quiet.W, loud.W)


def test_results_do_not_depend_on_torchs_default_device():
    """Every tensor is made on W0's device: with torch's default device set elsewhere (here
    "meta", which holds no values) the run is unchanged."""
    data = random_dataset(3, 40, seed=9)
    net = rn.ShortcutNetwork(3, 2, 2)
    W0 = rn.initialise(net, "xavier", seed=10, runs=2)
    stats = data.stats()
    a = gradient_descent(net, W0, stats, lr=0.01, epochs=2)
    with torch.device("meta"):
        b = gradient_descent(net, W0, stats, lr=0.01, epochs=2)
        L, g = linear_loss_and_grad(net, W0, stats)
    np.testing.assert_array_equal(a.losses, b.losses)
    assert torch.equal(a.W, b.W) and L.device.type == "cpu" and g.device.type == "cpu"
    # a network on samples with one run frozen from the start (the partial-batch path)
    net = rn.ShortcutNetwork(3, 2, 2, mid="tanh")
    W1 = torch.stack([W0[0], 10.0 * W0[1]])
    L0, _ = samples_loss_and_grad(net, W1, data.X, data.Y)
    blowup = float(L0.mean())
    a = gradient_descent(net, W1, data, lr=0.01, epochs=2, blowup=blowup)
    with torch.device("meta"):
        b = gradient_descent(net, W1, data, lr=0.01, epochs=2, blowup=blowup)
    assert a.diverged.tolist() == [False, True] and b.diverged.tolist() == [False, True]
    np.testing.assert_array_equal(a.losses, b.losses)
    assert torch.equal(a.W, b.W)


def test_float32_weights_with_float64_data():
    """Loss, gradient and output have the weights' dtype; the float64 data are cast."""
    data = random_dataset(3, 40, seed=11)
    net = rn.ShortcutNetwork(3, 2, 2)
    W = rn.initialise(net, "xavier", seed=12, runs=2)
    L64, g64 = linear_loss_and_grad(net, W, data.stats())
    L32, g32 = linear_loss_and_grad(net, W.float(), data.stats())
    assert L32.dtype == g32.dtype == torch.float32
    torch.testing.assert_close(L32.double(), L64, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(g32.double(), g64, rtol=1e-4, atol=1e-5)
    res = gradient_descent(net, W.float(), data, lr=0.01, epochs=2)
    ref = gradient_descent(net, W, data, lr=0.01, epochs=2)
    assert res.W.dtype == torch.float32
    np.testing.assert_allclose(res.losses, ref.losses, rtol=1e-5)

    net = rn.ShortcutNetwork(3, 2, 2, mid="tanh")
    L64, g64 = samples_loss_and_grad(net, W, data.X, data.Y)
    L32, g32 = samples_loss_and_grad(net, W.float(), data.X, data.Y)
    assert L32.dtype == g32.dtype == torch.float32
    torch.testing.assert_close(L32.double(), L64, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(g32.double(), g64, rtol=1e-4, atol=1e-5)
    out = batched_forward(net, W.float(), data.X)
    assert out.dtype == torch.float32
    torch.testing.assert_close(out.double(), batched_forward(net, W, data.X), rtol=1e-5, atol=1e-5)


def test_closed_form_gradient_in_bfloat16_keeps_the_dtype():
    # the identity of the shortcut is made in the weights' dtype, whatever torch's default
    data = random_dataset(3, 40, seed=13)
    net = rn.ShortcutNetwork(3, 2, 2)
    W = rn.initialise(net, "xavier", seed=14, runs=2)
    Lb, gb = linear_loss_and_grad(net, W.to(torch.bfloat16), data.stats())
    L, g = linear_loss_and_grad(net, W, data.stats())
    assert Lb.dtype == gb.dtype == torch.bfloat16
    torch.testing.assert_close(Lb.double(), L, rtol=2e-2, atol=2e-2)
    torch.testing.assert_close(gb.double(), g, rtol=5e-2, atol=5e-2)


def test_relu_forward_is_exact_for_large_finite_values():
    """relu(x) = x for every finite x > 0, also above half the largest float (where
    (x + |x|) / 2 overflows): the loss is the one computed directly."""
    net = rn.ShortcutNetwork(2, 2, 1, shortcut=False, mid="relu", relu_grad_at_zero=0.5)
    W = torch.zeros(1, 2, 2, 2, dtype=F64)
    W[0, 0, 0, 0] = 1e308
    W[0, 1, 0, 0] = 1e-300
    X = torch.tensor([[1.0], [0.0]], dtype=F64)
    Y = torch.tensor([[1e8 - 3.0], [0.0]], dtype=F64)
    L, _ = samples_loss_and_grad(net, W, X, Y)
    out = W[0, 1] @ torch.clamp(W[0, 0] @ X, min=0.0)
    assert torch.isfinite(L)
    assert float(L) == pytest.approx(0.5 * float(((out - Y) ** 2).sum()), rel=1e-12)


@pytest.mark.parametrize("c", [0.0, 1.0])
def test_inactive_relu_units_pass_exactly_zero_gradient_like_autograd(c):
    """Where a ReLU is inactive its derivative is 0 and nothing flows back, even when the
    gradient arriving there has overflowed (inf * 0 would be NaN): with a finite loss, the
    hand-written gradient equals autograd's on the same network, entry for entry."""
    net = rn.ShortcutNetwork(2, 2, 1, shortcut=False, mid="relu", relu_grad_at_zero=c)
    W = torch.zeros(1, 2, 2, 2, dtype=F64)
    W[0, 0] = torch.tensor([[1e-300, 0.0], [-1.0, 0.0]], dtype=F64)  # z0 = (1e-300, -1): unit 2 inactive
    W[0, 1] = torch.tensor([[1e308, 1e308], [0.0, 0.0]], dtype=F64)  # W1^T g overflows
    X = torch.tensor([[1.0], [1.0]], dtype=F64)
    Y = torch.tensor([[1e8 - 10.0], [0.0]], dtype=F64)
    L, g = samples_loss_and_grad(net, W, X, Y)
    Wr = W.clone().requires_grad_(True)
    L_ref = batched_sample_loss(net, Wr, X, Y)
    (g_ref,) = torch.autograd.grad(L_ref, Wr)
    assert torch.isfinite(L) and float(L) == pytest.approx(float(L_ref.detach()), rel=1e-12)
    assert torch.equal(g[0, 0, 1], torch.zeros(2, dtype=F64))  # the inactive unit's row
    assert torch.equal(torch.isnan(g), torch.isnan(g_ref))
    ok = ~torch.isnan(g_ref)
    assert torch.equal(g[ok], g_ref[ok])


@pytest.mark.parametrize(
    "d, m, runs, single",
    [
        (64, 8, None, True),  # linear, d <= 64: one thread
        (65, 8, None, False),  # linear, d > 64: left as it is
        (2, 1_000_000, None, True),  # on samples, d m runs = 2,000,000: one thread
        (3, 666_667, None, False),  # d m runs = 2,000,001: left as it is
        (2, 500_001, 2, False),  # d m runs = 2,000,004 counting both runs
        (2, 50, 2, True),
    ],
)
def test_cpu_runs_on_one_thread_only_while_the_matrices_are_small(d, m, runs, single):
    """The documented thread policy of gradient_descent (one thread for d x d products of a
    linear network with d <= 64, and on samples while d m runs <= 2,000,000), and the count
    is restored afterwards."""
    linear = m == 8
    net = rn.ShortcutNetwork(d, 1, 1, mid=None if linear else "tanh")
    g = torch.Generator().manual_seed(15)
    X = torch.randn(d, m, generator=g, dtype=F64)
    data = rn.Dataset(X, X.clone())
    W0 = torch.zeros((runs,) + net.shape if runs else net.shape, dtype=F64)
    seen = []
    old = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        gradient_descent(
            net,
            W0,
            data.stats() if linear else data,
            lr=0.01,
            epochs=1,
            callback=lambda *_: seen.append(torch.get_num_threads()),
        )
        after = torch.get_num_threads()
    finally:
        torch.set_num_threads(old)
    assert seen == [1 if single else 2] and after == 2


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("mid", [None, "tanh"])
def test_data_on_the_cpu_follow_weights_on_the_gpu(mid):
    """W0's device is the run's device: data given on the CPU are moved there (the only check
    of the moves of X, Y and the statistics; it runs where a GPU is present)."""
    data = random_dataset(3, 40, seed=16)
    net = rn.ShortcutNetwork(3, 2, 2, mid=mid)
    W0 = rn.initialise(net, "xavier", seed=17, runs=2)
    ref = gradient_descent(net, W0, data, lr=0.01, epochs=3)
    for given in (data, data.stats()) if net.is_linear else (data,):
        res = gradient_descent(net, W0.cuda(), given, lr=0.01, epochs=3)
        assert res.W.device.type == "cuda"
        np.testing.assert_allclose(res.losses, ref.losses, rtol=1e-10)


def test_gradient_descent_rejects_a_wrong_type_with_a_type_error():
    net = rn.ShortcutNetwork(2, 2, 2)
    data = random_dataset(d=2, m=5, seed=0)
    W0 = rn.initialise(net, "zero")
    with pytest.raises(TypeError, match=r"\bnet\b.*\bstr\b"):
        rn.gradient_descent("a network", W0, data, 0.1, 1)
    with pytest.raises(TypeError, match=r"\bdata\b.*\btuple\b"):
        rn.gradient_descent(net, W0, (data.X, data.Y), 0.1, 1)
