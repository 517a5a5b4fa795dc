"""Properties of the loss (Eq. 6, Eqs. 8-9) and the optimum (Eqs. 15-16) that the other tests
left unchecked; each was found by a mutant of ``resnet_nb/core/losses.py`` that survived them
(see results/mutation/report.md)."""
import numpy as np
import pytest
import torch

import resnet_nb as rn
from resnet_nb.core.data import Dataset
from resnet_nb.core.losses import loss_end_to_end

from helpers import random_dataset


def _dataset(dx, dy, m=7, seed=0):
    g = torch.Generator().manual_seed(seed)
    return Dataset(torch.randn(dx, m, generator=g, dtype=torch.float64),
                   torch.randn(dy, m, generator=g, dtype=torch.float64))


@pytest.mark.parametrize("dx, dy", [(3, 2), (2, 3)])
def test_identity_shortcuts_need_inputs_and_targets_of_width_d(dx, dy):
    # one of the two dimensions alone differing from d must be refused, not only both
    net = rn.ShortcutNetwork(3, 1, 1)
    with pytest.raises(ValueError, match="d_x"):
        rn.loss_samples(net, torch.zeros(1, 1, 3, 3, dtype=torch.float64), _dataset(dx, dy))


@pytest.mark.parametrize("dx, dy", [(2, 2), (3, 2)])
def test_statistics_of_another_width_are_refused(dx, dy):
    # (3, 2): Sxx has the network's width, only Syx (targets of width 2) does not
    net = rn.ShortcutNetwork(3, 1, 1)
    with pytest.raises(ValueError, match="stats"):
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
            assert float(batched[i, j]) == pytest.approx(float(loss_end_to_end(Ws[i, j], stats)),
                                                         rel=1e-13)


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
    for k in range(5):
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
