"""Small shared fixtures for the unit tests."""

import os

import numpy as np
import torch

import resnet_nb as rn

#: Set by the mutation audit (scripts/mutation_audit.py) while it maps tests to functions.
PER_TEST_FIXTURES = "RESNET_NB_PER_TEST_FIXTURES"


def shared_scope(**_):  # pytest passes fixture_name and config
    """The scope of a fixture that several tests share: the module, except while the mutation
    audit maps tests to the functions they call. mutmut credits a function to the test during
    which it ran, so a module-wide fixture would credit it to the first test alone and the others'
    checks would never be run against its mutants; recomputed per test, each test is credited."""
    return "function" if os.environ.get(PER_TEST_FIXTURES) else "module"


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


class Stop(Exception):
    """Raised by the spy that stands in for the trainer (tests/li/conftest.py)."""


def block_centres(H, U):
    """Theorem 3.2's construction: the columns of H that a block's units are centred on (the
    non-zero rows of U)."""
    return [int(np.flatnonzero((H == u[:, None]).all(axis=0))[0]) for u in U if u.any()]


def measured_block_errors(net, X, y):
    """Theorem 3.2's construction (tests/hardt_ma): the largest |moved point - its surrogate| and the
    largest displacement of the other points, over the blocks, measured on the trajectory
    (independently of the construction's report)."""
    states, Q = net.trajectory(X), net.last[0].T
    moved = fixed = 0.0
    for j, (U, _V, _b) in enumerate(net.blocks):
        idx = block_centres(states[j], U)
        rest = np.setdiff1d(np.arange(X.shape[1]), idx)
        moved = max(moved, float(np.abs(states[j + 1][:, idx] - Q[:, y[idx]]).max()))
        fixed = max(fixed, float(np.abs(states[j + 1][:, rest] - states[j][:, rest]).max()))
    return moved, fixed
