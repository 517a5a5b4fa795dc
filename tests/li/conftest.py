"""Fixtures shared by the tests of Li et al.'s chapters."""

import pytest
import torch

from resnet_nb.core.data import synthetic_linear
from resnet_nb.li.theorem1 import unfriendly_data3


@pytest.fixture(autouse=True)
def one_thread():
    """LAPACK on one thread: on a loaded machine a threaded 400 x 400 eigvalsh takes seconds."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


@pytest.fixture(scope="module")
def data3():
    """Three coordinates, not whitened (Sxx != I, Syx not symmetric): the claims' small data set,
    adversarial for formulas that silently assume Sxx = I or a symmetric M."""
    return unfriendly_data3()


@pytest.fixture(scope="module")
def data2():
    """Two coordinates, 20 samples: small enough to train for a few hundred epochs."""
    return synthetic_linear(2, 20, seed=0)
