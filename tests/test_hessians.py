"""Hessians: three independent routes must agree (autograd, Kronecker form, Theorem 1)."""
import itertools
import subprocess
import sys

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import resnet_nb as rn
from resnet_nb.core import hessians as hs

from helpers import random_dataset

TOL = 1e-10  # max abs difference, float64 (issue 2)

ACTS = ["identity", "tanh", "relu", "silu"]


def _acts_cases():
    # every activation at every position, one position at a time, plus all at once
    cases = [{}]
    for pos, a in itertools.product(["pre", "mid", "post"], ACTS[1:]):
        cases.append({pos: a})
    for a in ACTS[1:]:
        cases.append(dict(pre=a, mid=a, post=a))
    return cases


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("d,R", [(2, 1), (3, 2), (4, 3)])
@pytest.mark.parametrize("acts", _acts_cases(), ids=lambda a: ",".join(f"{k}={v}" for k, v in a.items()) or "linear")
def test_theorem1_closed_form_matches_autograd_at_zero(n, d, R, acts):
    data = random_dataset(d, 40, seed=d * 10 + R)
    net = rn.ShortcutNetwork(d, n, R, **acts)
    zero = rn.initialise(net, "zero")
    H_auto = hs.hessian(net, zero, data)
    H_closed = hs.hessian_at_zero(net, data)
    assert (H_auto - H_closed).abs().max().item() <= TOL
    if n <= 2:  # the check must be able to fail: the Hessian is not trivially zero
        assert H_auto.abs().max().item() > 1e-3


@pytest.mark.parametrize("c", [0.0, 0.5, 1.0])
def test_relu_convention_enters_closed_form(c):
    """With ReLU at mid, the n = 2 block scales with the chosen sigma'(0)."""
    data = random_dataset(3, 30, seed=1)
    net = rn.ShortcutNetwork(3, 2, 2, mid="relu", relu_grad_at_zero=c)
    H_auto = hs.hessian(net, rn.initialise(net, "zero"), data)
    assert (H_auto - hs.hessian_at_zero(net, data)).abs().max().item() <= TOL
    lin = hs.hessian_at_zero(rn.ShortcutNetwork(3, 2, 2), data)
    assert torch.allclose(H_auto, c * lin, atol=TOL)


@pytest.mark.parametrize("n,R,shortcut", [(1, 4, True), (2, 3, True), (3, 2, True), (1, 5, False), (2, 2, False)])
@pytest.mark.parametrize("scheme", ["xavier", "orthogonal", "small"])
def test_kronecker_hessian_matches_autograd_at_random_points(n, R, shortcut, scheme):
    data = random_dataset(3, 25, seed=7)
    net = rn.ShortcutNetwork(3, n, R, shortcut=shortcut)
    W = rn.initialise(net, scheme, seed=n * 100 + R)
    H_auto = hs.hessian(net, W, data)
    H_kron = hs.hessian_linear(net, W, data)
    scale = max(1.0, H_auto.abs().max().item())
    assert (H_auto - H_kron).abs().max().item() <= TOL * scale
    assert torch.allclose(H_kron, H_kron.T, atol=0, rtol=0)


@settings(max_examples=15, deadline=None)
@given(d=st.integers(1, 4), n=st.integers(1, 3), R=st.integers(1, 3), seed=st.integers(0, 10_000),
       scale=st.sampled_from([1e-3, 1.0, 3.0]))
def test_kronecker_hessian_property(d, n, R, seed, scale):
    data = random_dataset(d, 12, seed=seed)
    net = rn.ShortcutNetwork(d, n, R)
    W = scale * rn.initialise(net, "xavier", seed=seed)
    H_auto = hs.hessian(net, W, data.stats())
    H_kron = hs.hessian_linear(net, W, data.stats())
    assert (H_auto - H_kron).abs().max().item() <= TOL * max(1.0, H_auto.abs().max().item())


def test_chunk_size_does_not_change_hessian():
    data = random_dataset(3, 30, seed=3)
    net = rn.ShortcutNetwork(3, 2, 2, mid="tanh")
    W = rn.initialise(net, "xavier", seed=1)
    H1 = hs.hessian(net, W, data, chunk=1)
    H2 = hs.hessian(net, W, data, chunk=net.num_params)
    assert (H1 - H2).abs().max().item() <= 1e-12


def test_n2_spectrum_is_plus_minus_singular_values_with_multiplicity():
    """Theorem 1 part 2: eigenvalues are +-sigma_k(M), each with multiplicity d R."""
    d, R = 4, 3
    data = random_dataset(d, 50, seed=11)
    net = rn.ShortcutNetwork(d, 2, R, pre="tanh", mid="silu")
    M = hs.theorem1_blocks(net, data)["M"]
    sv = torch.linalg.svdvals(M).numpy()
    expected = np.sort(np.concatenate([np.repeat(sv, d * R), -np.repeat(sv, d * R)]))
    got = hs.spectrum(hs.hessian(net, rn.initialise(net, "zero"), data))
    assert np.abs(got - expected).max() <= 1e-10
    assert abs(hs.cond_max_min(got) - sv.max() / sv.min()) <= 1e-8 * sv.max() / sv.min()


def test_paper_identity_case_blocks():
    """For identity activations the n = 1 blocks are Eqs. 23-28: B = Sxx (x) I = P diag(Sxx, ...) P^T,
    A = B + diag(Sxx - Syx, ...) P^T (Kronecker products in Definition 5 order)."""
    d = 3
    data = random_dataset(d, 40, seed=5)
    s = data.stats()
    blocks = hs.theorem1_blocks(rn.ShortcutNetwork(d, 1, 2), s)
    B = blocks["B"].reshape(d, d, d, d)  # (j1, i1, j2, i2)
    A = blocks["A"].reshape(d, d, d, d)
    for j1, i1, j2, i2 in itertools.product(range(d), repeat=4):
        b = s.Sxx[j1, j2].item() if i1 == i2 else 0.0
        a = b + ((s.Sxx - s.Syx)[i1, j2].item() if j1 == i2 else 0.0)
        assert abs(B[j1, i1, j2, i2].item() - b) <= 1e-14
        assert abs(A[j1, i1, j2, i2].item() - a) <= 1e-14


def test_directional_derivatives_against_polynomial():
    """d^k/dt^k of a known polynomial along a line, against its closed form."""
    w0 = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
    v = torch.tensor([1.0, 2.0, -0.5], dtype=torch.float64)
    def f(w):
        return (w ** 4).sum() + w[0] * w[1] * w[2]
    got = hs.directional_derivatives(f, w0, v, 5)
    # g(t) = sum (w0+tv)^4 + prod(w0+tv); derivatives at 0 by numpy's polynomial algebra
    poly = np.polynomial.Polynomial([0.0])
    for a, b in zip(w0.tolist(), v.tolist()):
        poly = poly + np.polynomial.Polynomial([a, b]) ** 4
    prod = np.polynomial.Polynomial([1.0])
    for a, b in zip(w0.tolist(), v.tolist()):
        prod = prod * np.polynomial.Polynomial([a, b])
    g = poly + prod
    want = [g.deriv(k)(0.0) for k in range(1, 6)]
    assert np.allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_zero_is_stationary_of_order_n_minus_1(n):
    """Theorem 1 part 1: orders 1..n-1 vanish at zero, order n does not."""
    data = random_dataset(2, 20, seed=n)
    net = rn.ShortcutNetwork(2, n, 2)
    prof = hs.stationarity_profile(net, rn.initialise(net, "zero"), data, order=n, directions=6)
    assert prof[: n - 1].max() <= 1e-12
    assert prof[n - 1] > 1e-4


def test_spectral_summaries():
    eigs = np.array([-4.0, -1.0, 0.5, 2.0, 8.0])
    assert hs.cond_max_min(eigs) == 16.0
    assert hs.index(eigs) == 0.4
    assert hs.cond_percentile(eigs, 50) == 8.0 / 2.0
    assert hs.cond_percentile(np.arange(1.0, 11.0), 10) == 10.0 / np.percentile(np.arange(1.0, 11.0), 10)
    assert hs.cond_max_min([0.0, 1.0]) == float("inf")
    assert hs.resolution_floor(eigs) == pytest.approx(5 * np.finfo(float).eps * 8.0, rel=1e-12, abs=0)


@pytest.mark.parametrize("q", [0, 100, -5, 150, float("nan")])
def test_bad_percentile(q):
    with pytest.raises(ValueError, match="q"):
        hs.cond_percentile([1.0, 2.0], q)


def test_hessian_errors():
    data = random_dataset(3, 10)
    net = rn.ShortcutNetwork(3, 2, 2, mid="relu")
    with pytest.raises(ValueError, match="samples"):
        hs.hessian(net, rn.initialise(net, "zero"), data.stats())
    with pytest.raises(ValueError, match="linear"):
        hs.hessian_linear(net, rn.initialise(net, "zero"), data)
    with pytest.raises(ValueError, match="shape"):
        hs.hessian(rn.ShortcutNetwork(3, 2, 2), torch.zeros(2, 2, 2, 2, dtype=torch.float64), data)
    with pytest.raises(ValueError, match="d_x"):
        hs.hessian(rn.ShortcutNetwork(4, 2, 2), torch.zeros(2, 2, 4, 4, dtype=torch.float64), data)
    with pytest.raises(ValueError, match="shortcut"):
        hs.hessian_at_zero(rn.ShortcutNetwork(3, 2, 2, shortcut=False), data)
    with pytest.raises(ValueError, match="square"):
        hs.spectrum(torch.zeros(2, 3))
    with pytest.raises(ValueError, match="chunk"):
        hs.hessian(rn.ShortcutNetwork(3, 1, 1), torch.zeros(1, 1, 3, 3, dtype=torch.float64), data, chunk=0)


def test_kronecker_hessian_memory_at_P_9600():
    """Peak memory of the P = 9,600 Hessian (depth 96, d = 10) stays below 3 GB (measured in a
    fresh process so that nothing else counts)."""
    code = (
        "import resource, torch, resnet_nb as rn\n"
        "ds = rn.synthetic_linear(10, 200, seed=0)\n"
        "net = rn.ShortcutNetwork(10, 2, 48)\n"
        "H = rn.hessian_linear(net, rn.initialise(net, 'small', seed=0), ds.stats())\n"
        "assert H.shape == (9600, 9600)\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    peak_gb = int(out.stdout.strip().splitlines()[-1]) / 1e6
    assert peak_gb <= 3.0, f"peak memory {peak_gb:.2f} GB"
