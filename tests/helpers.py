"""Small shared fixtures for the unit tests."""

import numpy as np
import torch

import resnet_nb as rn


def random_dataset(d, m, seed=0, scale=1.0):
    """Gaussian inputs and targets (no structure at all): an unfriendly instance."""
    g = torch.Generator().manual_seed(seed)
    X = scale * torch.randn(d, m, generator=g, dtype=torch.float64)
    Y = torch.randn(d, m, generator=g, dtype=torch.float64)
    return rn.Dataset(X, Y)


def tol_of(P, scale):
    """The ledger's rounding tolerance, written out: 100 P eps |scale|."""
    return 100.0 * P * np.finfo(np.float64).eps * scale


def labelled(check):
    """Every check and part names what it compares, and names its nontrivial part when it has one."""
    assert isinstance(check.claim, str) and check.claim
    assert isinstance(check.compared, str) and check.compared
    assert isinstance(check.criterion, str) and check.criterion
    if check.nontrivial is not None:
        assert isinstance(check.nontrivial_what, str) and check.nontrivial_what
    assert all(isinstance(x, str) and x for x in check.lines)
    for p in check.parts:
        labelled(p)
