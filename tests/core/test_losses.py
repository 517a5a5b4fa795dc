"""The loss of Eq. 6 on samples and on sufficient statistics (Eqs. 8-9), and its optimum (Eqs.
15-16): each against an independent computation."""

import numpy as np
import pytest
import torch
from helpers import random_dataset
from hypothesis import given, settings
from hypothesis import strategies as st

import resnet_nb as rn
from resnet_nb.core.data import Dataset
from resnet_nb.core.losses import loss_end_to_end, loss_samples


# ---------------------------------------------------------------- losses and the optimum
@settings(max_examples=25, deadline=None)
@given(
    d=st.integers(1, 6),
    m=st.integers(1, 40),
    n=st.integers(1, 3),
    R=st.integers(1, 3),
    seed=st.integers(0, 10_000),
    scale=st.sampled_from([1e-2, 1.0, 10.0]),
)
def test_sample_loss_equals_sufficient_statistics_loss(d, m, n, R, seed, scale):
    data = random_dataset(d, m, seed=seed, scale=scale)
    net = rn.ShortcutNetwork(d, n, R)
    W = rn.initialise(net, "xavier", seed=seed)
    a = rn.loss_samples(net, W, data).item()
    b = rn.loss_stats(net, W, data.stats()).item()
    assert abs(a - b) <= 1e-12 * max(1.0, abs(a))


def test_optimum_is_least_squares_and_gradient_descent_reaches_it():
    data = rn.whitened_mnist()
    Wstar, Lmin = rn.optimum(data)
    # independent route: numpy's least-squares solver on the samples
    sol, *_ = np.linalg.lstsq(data.X.numpy().T, data.Y.numpy().T, rcond=None)
    assert np.abs(Wstar.numpy() - sol.T).max() <= 1e-10
    assert Lmin == pytest.approx(0.5 * np.mean(np.sum((data.Y.numpy() - sol.T @ data.X.numpy()) ** 2, 0)), abs=1e-12)
    # a depth-1 plain network is convex: long gradient descent must reach L_min
    net = rn.plain_network(10, 1)
    res = rn.gradient_descent(net, rn.initialise(net, "zero"), data, lr=0.5, epochs=200)
    assert res.losses[-1] - Lmin <= 1e-12
    # a 2-shortcut network of depth 8 from the small initialisation gets there too (slowly:
    # the last digits take long because the smallest nonzero curvature near the optimum is small)
    net = rn.ShortcutNetwork(10, 2, 4)
    res = rn.gradient_descent(net, rn.initialise(net, "small", seed=0), data, lr=1.0, epochs=3000)
    assert 0 <= res.losses[-1] - Lmin <= 1e-6
    assert np.all(res.losses >= Lmin - 1e-12)  # L_min is a lower bound along the whole path


def test_rank_deficient_optimum():
    X = torch.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]], dtype=torch.float64)  # rank 1
    Y = torch.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]], dtype=torch.float64)
    W, Lmin = rn.optimum(rn.Dataset(X, Y))
    sol, *_ = np.linalg.lstsq(X.numpy().T, Y.numpy().T, rcond=None)
    assert Lmin == pytest.approx(0.5 * np.sum((Y.numpy() - sol.T @ X.numpy()) ** 2) / 3, abs=1e-12)


def test_batched_training_equals_separate_runs():
    data = rn.whitened_mnist(n_per_class=50)
    net = rn.ShortcutNetwork(10, 2, 3)
    W0 = rn.initialise(net, "small", seed=2, runs=3)
    lrs = torch.tensor([0.05, 0.2, 50.0], dtype=torch.float64)
    batched = rn.gradient_descent(net, W0, data, lr=lrs, epochs=30)
    for k in range(3):
        single = rn.gradient_descent(net, W0[k], data, lr=float(lrs[k]), epochs=30)
        assert np.allclose(single.losses, batched.losses[k], rtol=1e-12, equal_nan=True)
    assert batched.diverged.tolist() == [False, False, True]


@pytest.mark.parametrize("check", ["claim_loss_statistics", "claim_optimum"])
def test_core_claims_pass_and_their_falsifiers_fail(check):
    from resnet_nb.core import losses

    fn = getattr(losses, check)
    assert fn().passed
    assert fn(falsify=True).rejected_on_value


def _dataset(dx, dy, m=7, seed=0):
    g = torch.Generator().manual_seed(seed)
    return Dataset(
        torch.randn(dx, m, generator=g, dtype=torch.float64), torch.randn(dy, m, generator=g, dtype=torch.float64)
    )


@pytest.mark.parametrize("dx, dy", [(3, 2), (2, 3)])
def test_identity_shortcuts_need_inputs_and_targets_of_width_d(dx, dy):
    # one of the two dimensions alone differing from d must be refused, not only both
    net = rn.ShortcutNetwork(3, 1, 1)
    with pytest.raises(ValueError, match=r"\bd_x\b"):
        rn.loss_samples(net, torch.zeros(1, 1, 3, 3, dtype=torch.float64), _dataset(dx, dy))


@pytest.mark.parametrize("dx, dy", [(2, 2), (3, 2)])
def test_statistics_of_another_width_are_refused(dx, dy):
    # (3, 2): Sxx has the network's width, only Syx (targets of width 2) does not
    net = rn.ShortcutNetwork(3, 1, 1)
    with pytest.raises(ValueError, match=r"\bstats\b"):
        rn.loss_stats(net, torch.zeros(1, 1, 3, 3, dtype=torch.float64), _dataset(dx, dy).stats())


@pytest.mark.parametrize("act", ["tanh", "relu"])
def test_loss_of_a_network_with_activations_is_the_sample_loss(act):
    # Eqs. 8-9 hold for linear networks only: with an activation, loss() must use the samples,
    # and its value then differs from the statistics formula applied to the linear part
    data = random_dataset(3, 40, seed=1)
    net = rn.ShortcutNetwork(3, 2, 2, mid=act)
    W = rn.initialise(net, "xavier", seed=2)
    L = float(rn.loss(net, W, data))
    assert L == pytest.approx(float(rn.loss_samples(net, W, data)), abs=1e-14)
    linear = rn.ShortcutNetwork(3, 2, 2)
    assert abs(L - float(rn.loss_stats(linear, W, data.stats()))) > 1e-3


def test_loss_accepts_samples_or_statistics_for_a_linear_network():
    data = random_dataset(3, 40, seed=3)
    net = rn.ShortcutNetwork(3, 2, 2)
    W = rn.initialise(net, "xavier", seed=4)
    a, b = float(rn.loss(net, W, data)), float(rn.loss(net, W, data.stats()))
    assert a == pytest.approx(float(rn.loss_samples(net, W, data)), rel=1e-12)
    assert b == pytest.approx(a, rel=1e-12)


def test_end_to_end_loss_is_batched_over_leading_axes():
    stats = random_dataset(3, 30, seed=5).stats()
    Ws = torch.randn(2, 4, 3, 3, generator=torch.Generator().manual_seed(6), dtype=torch.float64)
    batched = loss_end_to_end(Ws, stats)
    assert batched.shape == (2, 4)
    for i in range(2):
        for j in range(4):
            assert float(batched[i, j]) == pytest.approx(float(loss_end_to_end(Ws[i, j], stats)), rel=1e-13)


@pytest.mark.parametrize("rank", [None, 2])
def test_optimum_solves_the_normal_equations_and_is_the_minimum_norm_solution(rank):
    # Eq. 15: W* Sxx = Syx (the gradient of Eq. 8-9's loss vanishes); with a singular Sxx the
    # pseudo-inverse picks the solution whose rows lie in the range of Sxx; Eq. 16: no other
    # map has a smaller loss
    g = torch.Generator().manual_seed(7)
    X = torch.randn(4, 50, generator=g, dtype=torch.float64)
    if rank is not None:
        X = torch.randn(4, rank, generator=g, dtype=torch.float64) @ X[:rank]
    data = Dataset(X, torch.randn(4, 50, generator=g, dtype=torch.float64))
    stats = data.stats()
    Wstar, Lmin = rn.optimum(data)
    assert torch.allclose(Wstar @ stats.Sxx, stats.Syx, atol=1e-12)
    P = stats.Sxx @ torch.linalg.pinv(stats.Sxx)  # projector onto the range of Sxx
    assert torch.allclose(Wstar @ P, Wstar, atol=1e-12)
    assert Lmin == pytest.approx(float(loss_end_to_end(Wstar, stats)), rel=1e-12)
    for _k in range(5):
        D = 0.1 * torch.randn(4, 4, generator=g, dtype=torch.float64)
        assert float(loss_end_to_end(Wstar + D, stats)) >= Lmin - 1e-12
    sol, *_ = np.linalg.lstsq(X.numpy().T, data.Y.numpy().T, rcond=None)
    assert np.abs(Wstar.numpy() - sol.T).max() <= 1e-10


def test_end_to_end_loss_of_float32_maps_against_float64_statistics():
    # the statistics are stored in float64; a float32 map (as on a GPU) must be evaluated with
    # them cast to its precision and give the float64 value to float32 accuracy
    stats = random_dataset(3, 30, seed=8).stats()
    W = torch.randn(3, 3, generator=torch.Generator().manual_seed(9), dtype=torch.float64)
    L32 = loss_end_to_end(W.float(), stats)
    assert L32.dtype == torch.float32
    assert float(L32) == pytest.approx(float(loss_end_to_end(W, stats)), rel=1e-5)


def test_sample_loss_refuses_data_it_cannot_use_naming_what_is_wrong():
    net = rn.ShortcutNetwork(3, 2, 1)
    W = rn.initialise(net, "xavier", seed=0)
    with pytest.raises(ValueError, match="Dataset, got tuple"):
        rn.loss_samples(net, W, (torch.zeros(3, 4), torch.zeros(3, 4)))
    zeros = lambda *shape: torch.zeros(*shape, dtype=torch.float64)  # noqa: E731
    with pytest.raises(ValueError, match="d_x=3, d_y=2"):
        rn.loss_samples(net, W, rn.Dataset(zeros(3, 4), zeros(2, 4)))
    with pytest.raises(ValueError, match="d_x=2, d_y=3"):
        rn.loss_samples(net, W, rn.Dataset(zeros(2, 5), zeros(3, 5)))


def test_sample_loss_of_float32_weights_has_their_precision():
    """float64 samples meet float32 weights at the weights' precision, as the statistics do:
    the sample loss of float32 weights is a float32 number equal to the float32 computation."""
    data = random_dataset(3, 40, seed=2)
    net = rn.ShortcutNetwork(3, 2, 2, mid="tanh")
    W = rn.initialise(net, "xavier", seed=1).float()
    L = loss_samples(net, W, data)
    ref = 0.5 * ((data.Y.float() - net.forward(W, data.X.float())) ** 2).sum() / data.m
    assert L.dtype == torch.float32
    assert torch.equal(L, ref)


def test_statistics_of_another_width_are_refused_with_both_widths():
    """Statistics of inputs of width 3 and targets of width 4 name each width where it belongs."""
    X = torch.randn(3, 20, dtype=torch.float64)
    Y = torch.randn(4, 20, dtype=torch.float64)
    stats = rn.Dataset(X, Y).stats()
    with pytest.raises(ValueError, match=r"\bd_x=3, d_y=4\b"):
        rn.loss(rn.ShortcutNetwork(3, 1, 1), torch.zeros(1, 1, 3, 3, dtype=torch.float64), stats)


# ---------------------------------------------------------------- the claims' own data
def test_claim_data_has_inputs_of_unequal_variances_and_independent_standard_targets():
    from resnet_nb.core.data import gaussian_data
    from resnet_nb.core.losses import CLAIM_SPREAD

    d, m = 4, 40_000
    data = gaussian_data(d, m, seed=3, spread=CLAIM_SPREAD)
    assert data.X.dtype == data.Y.dtype == torch.float64 and data.X.shape == data.Y.shape == (d, m)
    assert data.X.std(dim=1).numpy() == pytest.approx(np.linspace(0.5, 2.0, d), rel=0.03)
    assert data.Y.std(dim=1).numpy() == pytest.approx(np.ones(d), rel=0.03)
    assert data.X.mean(dim=1).abs().max() < 0.03 and data.Y.mean(dim=1).abs().max() < 0.03
    corr = np.corrcoef(data.X.numpy(), data.Y.numpy())[:d, d:]
    assert np.abs(corr).max() < 0.03  # targets unrelated to the inputs
    again = gaussian_data(d, m, seed=3, spread=CLAIM_SPREAD)
    assert torch.equal(again.X, data.X) and torch.equal(again.Y, data.Y)
    assert not torch.equal(gaussian_data(d, m, seed=4, spread=CLAIM_SPREAD).X, data.X)


@pytest.mark.parametrize("rank", [1, 3])
def test_claim_data_of_a_given_rank_lies_in_a_random_subspace_of_that_dimension(rank):
    from resnet_nb.core.data import gaussian_data
    from resnet_nb.core.losses import CLAIM_SPREAD

    data = gaussian_data(6, 200, seed=7, spread=CLAIM_SPREAD, rank=rank)
    assert data.X.shape == data.Y.shape == (6, 200)
    assert torch.linalg.matrix_rank(data.X).item() == rank
    assert torch.linalg.matrix_rank(data.stats().Sxx).item() == rank
    assert torch.linalg.matrix_rank(data.Y).item() == 6  # the targets are not confined
    assert (data.X.abs() > 0).all()  # a random subspace, not a coordinate one


@pytest.mark.parametrize("seed", [0, 8])
def test_the_claims_generalised_inverse_is_the_pseudo_inverse_plus_a_seeded_gaussian_k_times_the_null_projector(seed):
    """Sxx^+ + K (I - Sxx^+ Sxx), K standard Gaussian drawn with the seed: a generalised inverse
    (S G S = S) that is not the pseudo-inverse when S is singular."""
    from resnet_nb.core.losses import generalised_inverse

    rng = np.random.default_rng(seed)
    B = rng.standard_normal((5, 3))
    S = torch.tensor(B @ B.T)  # rank 3 of 5
    G = generalised_inverse(S, seed)
    P = np.linalg.pinv(S.numpy(), hermitian=True)
    K = torch.randn((5, 5), generator=torch.Generator().manual_seed(seed), dtype=torch.float64).numpy()
    assert G.dtype == torch.float64
    assert G.numpy() == pytest.approx(P + K @ (np.eye(5) - P @ S.numpy()), abs=1e-10)
    assert (S @ G @ S).numpy() == pytest.approx(S.numpy(), abs=1e-10)
    assert np.abs(G.numpy() - P).max() > 1e-3


def test_the_loss_statistics_falsifier_drops_the_transpose_of_syx_and_nothing_else():
    """1/2 tr(W Sxx W^T) - tr(W Syx) + 1/2 tr Syy: the loss from statistics with Syx in place of
    Syx^T; the same as Eqs. 8-9 where Syx is symmetric."""
    from resnet_nb.core.data import gaussian_data
    from resnet_nb.core.losses import loss_stats_variant

    stats = gaussian_data(3, 50, seed=2).stats()
    W = torch.tensor(np.random.default_rng(1).standard_normal((3, 3)))
    Sxx, Syx, trSyy = stats.Sxx.numpy(), stats.Syx.numpy(), float(stats.trSyy)
    Wn = W.numpy()
    wrong = 0.5 * np.trace(Wn @ Sxx @ Wn.T) - np.trace(Wn @ Syx) + 0.5 * trSyy
    right = 0.5 * np.trace(Wn @ Sxx @ Wn.T) - np.trace(Wn @ Syx.T) + 0.5 * trSyy
    assert float(loss_stats_variant(W, stats, "syx_transposed")) == pytest.approx(wrong, rel=1e-12)
    assert float(loss_stats_variant(W, stats, "eq")) == pytest.approx(right, rel=1e-12)
    assert abs(wrong - right) > 1e-3
