"""Fixtures shared by the tests of Li et al.'s chapters."""

import numpy as np
import pytest
import torch
from helpers import Stop, shared_scope

from resnet_nb.core.data import synthetic_linear
from resnet_nb.core.train import TrainResult
from resnet_nb.li import dynamics as dyn
from resnet_nb.li.theorem1 import unfriendly_data3


@pytest.fixture(autouse=True)
def one_thread():
    """LAPACK on one thread: on a loaded machine a threaded 400 x 400 eigvalsh takes seconds."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


@pytest.fixture(scope=shared_scope)
def data3():
    """Three coordinates, not whitened (Sxx != I, Syx not symmetric): the claims' small data set,
    adversarial for formulas that silently assume Sxx = I or a symmetric M."""
    return unfriendly_data3()


@pytest.fixture(scope=shared_scope)
def data2():
    """Two coordinates, 20 samples: small enough to train for a few hundred epochs."""
    return synthetic_linear(2, 20, seed=0)


@pytest.fixture
def spy(monkeypatch):
    """Replace the trainer seen by theorem1_dynamics: record its arguments, then stop."""
    calls = []

    def fake(net, W0, data, lr, epochs, snapshot_epochs=(), **kw):
        calls.append(dict(net=net, W0=W0, data=data, lr=lr, epochs=epochs, snaps=list(snapshot_epochs)))
        raise Stop

    for module in (dyn.eq7_figure4, dyn.eq15_16, dyn.sharpness):
        monkeypatch.setattr(module, "gradient_descent", fake)
    return calls


@pytest.fixture
def trainer(monkeypatch):
    """Stand in for the trainer seen by theorem1_dynamics: record the arguments of every call and
    return the start weights at every epoch asked for (zero losses), so that the check finishes."""
    calls = []

    def fake(net, W0, data, lr, epochs, snapshot_epochs=(), **kw):
        snaps = list(snapshot_epochs)
        calls.append(dict(net=net, W0=W0, data=data, lr=lr, epochs=epochs, snaps=snaps))
        return TrainResult(W0.clone(), np.zeros(epochs + 1), np.zeros((), bool), {e: W0.clone() for e in snaps})

    for module in (dyn.eq7_figure4, dyn.eq15_16, dyn.sharpness):
        monkeypatch.setattr(module, "gradient_descent", fake)
    return calls
