"""Exact Hessians: the closed form of Theorem 1 at zero, the Kronecker form of linear networks at
any point, the directional derivatives of Lemma 1, and the spectral summaries (condition
numbers, index)."""

import itertools
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch
from helpers import random_dataset
from hypothesis import given, settings
from hypothesis import strategies as st

import resnet_nb as rn
from resnet_nb.core import hessians as hs
from resnet_nb.core.data import SufficientStats
from resnet_nb.core.hessians import (
    cond_max_min,
    cond_percentile,
    directional_derivatives,
    hessian,
    hessian_at_zero,
    hessian_linear,
    hvp_chunk_size,
    index,
    loss_function,
    resolution_floor,
    spectrum,
    stationarity_profile,
    theorem1_blocks,
)
from resnet_nb.core.networks import Activation, flatten, unflatten
from resnet_nb.core.relu_hessian import hessian_mid_relu

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
@given(
    d=st.integers(1, 4),
    n=st.integers(1, 3),
    R=st.integers(1, 3),
    seed=st.integers(0, 10_000),
    scale=st.sampled_from([1e-3, 1.0, 3.0]),
)
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
        return (w**4).sum() + w[0] * w[1] * w[2]

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
    with pytest.raises(ValueError, match=r"\bq\b"):
        hs.cond_percentile([1.0, 2.0], q)


def test_hessian_errors():
    data = random_dataset(3, 10)
    net = rn.ShortcutNetwork(3, 2, 2, mid="relu")
    with pytest.raises(ValueError, match=r"\bsamples\b"):
        hs.hessian(net, rn.initialise(net, "zero"), data.stats())
    with pytest.raises(ValueError, match=r"\blinear\b"):
        hs.hessian_linear(net, rn.initialise(net, "zero"), data)
    with pytest.raises(ValueError, match=r"\bshape\b"):
        hs.hessian(rn.ShortcutNetwork(3, 2, 2), torch.zeros(2, 2, 2, 2, dtype=torch.float64), data)
    with pytest.raises(ValueError, match=r"\bd_x\b"):
        hs.hessian(rn.ShortcutNetwork(4, 2, 2), torch.zeros(2, 2, 4, 4, dtype=torch.float64), data)
    with pytest.raises(ValueError, match=r"\bshortcut\b"):
        hs.hessian_at_zero(rn.ShortcutNetwork(3, 2, 2, shortcut=False), data)
    with pytest.raises(ValueError, match=r"\bsquare\b"):
        hs.spectrum(torch.zeros(2, 3))
    with pytest.raises(ValueError, match=r"\bchunk\b"):
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


F64 = torch.float64


EPS = np.finfo(np.float64).eps


def test_auto_chunk_follows_the_memory_estimate_of_a_linear_network():
    # per HVP: 6 copies of the P parameters plus 8 d x d products per matrix, 8 bytes each
    net = rn.ShortcutNetwork(3, 2, 2)
    per = 8 * net.num_params * 6 + 8 * net.depth * net.d * net.d * 8
    assert per == 4032
    assert hvp_chunk_size(net, None, budget_bytes=5 * per) == 5
    assert hvp_chunk_size(net, None, budget_bytes=5 * per - 1) == 4
    assert hvp_chunk_size(net, None) == net.num_params  # the default budget covers a small network


def test_auto_chunk_follows_the_memory_estimate_with_activations():
    # per HVP: primal and tangent activations of every layer and unit output, d x m each
    net = rn.ShortcutNetwork(3, 2, 2, pre="tanh")
    data = random_dataset(3, 20)
    per = 8 * net.d * data.m * (net.depth + net.R) * 4
    assert per == 11520
    assert hvp_chunk_size(net, data, budget_bytes=3 * per) == 3
    assert hvp_chunk_size(net, data, budget_bytes=3 * per - 1) == 2


def test_auto_chunk_is_at_least_one():
    net = rn.ShortcutNetwork(3, 2, 2, pre="tanh")
    assert hvp_chunk_size(net, random_dataset(3, 20), budget_bytes=1) == 1


def test_targets_of_another_width_are_refused():
    net = rn.ShortcutNetwork(3, 1, 1)
    data = rn.Dataset(torch.zeros(3, 5, dtype=F64), torch.zeros(2, 5, dtype=F64))
    with pytest.raises(ValueError, match=r"\bd_y\b"):
        hessian(net, torch.zeros(net.shape, dtype=F64), data)


def test_error_messages_name_the_argument():
    net = rn.ShortcutNetwork(2, 1, 1)
    data = random_dataset(2, 5)
    with pytest.raises(ValueError, match=r"\bchunk\b"):
        hessian(net, torch.zeros(net.shape, dtype=F64), data, chunk=0)
    with pytest.raises(ValueError, match=r"\border\b"):
        directional_derivatives(lambda w: w.sum(), torch.zeros(2), torch.ones(2), 0)
    with pytest.raises(ValueError, match=r"\bdirections\b"):
        stationarity_profile(net, torch.zeros(net.shape, dtype=F64), data, 1, directions=0)
    with pytest.raises(ValueError, match=r"\bq\b"):
        cond_percentile([1.0, 2.0], q=0.0)


def _net_W(activation=None):
    net = rn.ShortcutNetwork(2, 2, 1, **({} if activation is None else {"pre": activation}))
    return net, rn.initialise(net, "xavier", seed=3)


def test_hessians_of_float32_weights_are_float64_and_equal_those_of_the_same_values():
    net, W = _net_W()
    data = random_dataset(2, 9)
    W32 = W.to(torch.float32)
    W64 = W32.to(F64)
    for fn in (hessian, hessian_linear):
        H = fn(net, W32, data)
        assert H.dtype == F64
        assert torch.equal(H, fn(net, W64, data))


@pytest.mark.parametrize("activation", [None, "tanh"])
def test_float32_data_is_used_in_float64(activation):
    net, W = _net_W(activation)
    data32 = random_dataset(2, 9).to(dtype=torch.float32)
    if activation is None:
        data32 = data32.stats()  # float32 statistics
    data64 = data32.to(dtype=F64)  # the same values
    w = flatten(W)
    f32, f64 = loss_function(net, data32), loss_function(net, data64)
    assert f32(w).dtype == F64 and float(f32(w)) == pytest.approx(float(f64(w)), rel=1e-14)
    fns = (hessian, hessian_linear) if activation is None else (hessian,)
    for fn in fns:
        H = fn(net, W, data32)
        assert H.dtype == F64
        torch.testing.assert_close(H, fn(net, W, data64), rtol=1e-12, atol=1e-12)


def test_spectrum_of_a_float32_matrix_is_computed_in_float64():
    g = torch.Generator().manual_seed(0)
    A = torch.randn(5, 5, generator=g, dtype=F64).to(torch.float32)
    H = A + A.T
    e = spectrum(H)
    assert e.dtype == np.float64
    np.testing.assert_allclose(e, np.linalg.eigvalsh(H.to(F64).numpy()), rtol=0, atol=1e-13)


def test_directional_derivatives_of_lists_are_exact_in_float64():
    w0, v = [0.1, 0.2], [0.3, -0.7]
    d = directional_derivatives(lambda w: (w**3).sum(), w0, v, 3)
    exact = [
        3 * sum(a * a * b for a, b in zip(w0, v)),
        6 * sum(a * b * b for a, b in zip(w0, v)),
        6 * sum(b**3 for b in v),
    ]
    assert d == pytest.approx(exact, rel=1e-14, abs=1e-15)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_theorem1_blocks_report_n_and_nothing_else_for_n_at_least_3(n):
    net = rn.ShortcutNetwork(2, n, 2)
    b = theorem1_blocks(net, random_dataset(2, 7))
    assert b["n"] == n
    assert set(b) == ({"n"} if n >= 3 else ({"n", "M", "A"} if n == 2 else {"n", "A", "B"}))


def test_hessian_at_zero_for_n_3_is_a_float64_zero_matrix():
    net = rn.ShortcutNetwork(2, 3, 2)
    H = hessian_at_zero(net, random_dataset(2, 7))
    assert H.shape == (net.num_params, net.num_params) and H.dtype == F64
    assert not H.any()


def test_closed_form_at_zero_with_second_derivative_one():
    # sigma_post(x) = x + x^2 / 2: sigma(0) = 0, sigma'(0) = 1, sigma''(0) = 1; the c2 term of B
    post = Activation("quad", lambda x: x + 0.5 * x * x, 0.0, 1.0, 1.0, grad=lambda x: 1.0 + x)
    net = rn.ShortcutNetwork(2, 1, 2, post=post)
    data = random_dataset(2, 11, seed=4)
    Ha = hessian(net, torch.zeros(net.shape, dtype=F64), data)
    Hc = hessian_at_zero(net, data)
    assert float(Ha.abs().max()) > 0.1
    torch.testing.assert_close(Hc, Ha, rtol=1e-12, atol=1e-12)


def test_condition_numbers_with_a_zero_eigenvalue_are_infinite_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cond_max_min([0.0, 1.0]) == math.inf
        assert cond_max_min([0.0, 0.0]) == math.inf
        assert cond_percentile([0.0, 0.0, 0.0, 1.0]) == math.inf
        assert cond_percentile([0.0, 0.0]) == math.inf


def test_a_single_eigenvalue_is_allowed():
    assert cond_max_min([-2.0]) == 1.0
    assert index([-2.0]) == 1.0


def test_eigenvalues_are_read_as_float64():
    assert cond_max_min(np.array([3.0, 7.0], dtype=np.float32)) == 7.0 / 3.0


def test_cond_percentile_is_lambda_max_over_the_10th_percentile_as_li_define_it():
    e = np.arange(1.0, 11.0)  # 10th percentile 1.9 (linear interpolation)
    assert cond_percentile(e) == 10.0 / 1.9
    assert cond_percentile(e) != cond_percentile(e, 11.0)
    assert cond_percentile(e, 0.5) == 10.0 / np.percentile(e, 0.5)


def test_index_counts_negative_eigenvalues_only():
    assert index([0.0, 1.0, -1.0]) == 1.0 / 3.0


def test_resolution_floor_is_P_eps_lambda_max():
    assert resolution_floor([2.0, -4.0]) == 2 * EPS * 4.0


def _reference_profile(P, grad, directions, seed):
    g = torch.Generator().manual_seed(seed)
    worst = 0.0
    for _ in range(directions):
        v = torch.randn(P, generator=g, dtype=F64)
        worst = max(worst, abs(float(grad @ (v / v.norm()))))
    return worst


def test_stationarity_profile_is_the_largest_derivative_along_seeded_random_directions():
    # plain 1-layer linear network at W = 0: the gradient is -Syx (flattened), chosen parallel to
    # the 9th random direction of seed 0, so 8 and 9 directions give different maxima
    net = rn.ShortcutNetwork(2, 1, 1, shortcut=False)
    g = torch.Generator().manual_seed(0)
    v9 = [torch.randn(4, generator=g, dtype=F64) for _ in range(9)][-1]
    Syx = -unflatten(v9, net)[0, 0]
    stats = SufficientStats(torch.eye(2, dtype=F64), Syx, 1.0, 1)
    W0 = torch.zeros(net.shape, dtype=F64)
    grad = torch.func.grad(loss_function(net, stats))(flatten(W0))
    torch.testing.assert_close(grad, v9)
    ref8, ref9 = _reference_profile(4, grad, 8, 0), _reference_profile(4, grad, 9, 0)
    assert ref9 > ref8 * 1.01
    prof = stationarity_profile(net, W0, stats, 1, directions=8, seed=0)
    assert prof.shape == (1,)
    assert prof[0] == pytest.approx(ref8, rel=1e-13)
    assert stationarity_profile(net, W0, stats, 1, directions=9)[0] == pytest.approx(ref9, rel=1e-13)
    ref_seed1 = _reference_profile(4, grad, 8, 1)
    assert abs(ref_seed1 - ref8) > 1e-3 * ref8
    assert stationarity_profile(net, W0, stats, 1, directions=8, seed=1)[0] == pytest.approx(ref_seed1, rel=1e-13)


def test_kronecker_hessian_without_second_order_term_is_the_gauss_newton_matrix():
    # L = ||Y - f(w)||^2 / (2m): H = (J^T J - sum_i r_i grad^2 f_i) / m, and J^T J / m alone is
    # the Gauss-Newton matrix, here from autograd's Jacobian of the outputs
    data = random_dataset(3, 7, seed=4)
    net = rn.ShortcutNetwork(3, 2, 2)
    W = rn.initialise(net, "xavier", seed=5)
    J = torch.func.jacrev(lambda w: net.forward(unflatten(w, net), data.X).reshape(-1))(flatten(W))
    gauss_newton = J.T @ J / data.m
    torch.testing.assert_close(
        hs.hessian_linear(net, W, data, second_order=False), gauss_newton, rtol=1e-10, atol=1e-12
    )
    assert (hs.hessian_linear(net, W, data) - gauss_newton).abs().max() > 1e-3


def test_directional_derivatives_refuse_an_order_below_one():
    with pytest.raises(ValueError, match=r"\border\b"):
        hs.directional_derivatives(lambda w: (w**2).sum(), torch.zeros(2), torch.ones(2), order=0)


def test_hessian_refuses_what_it_cannot_use_and_says_what():
    net = rn.ShortcutNetwork(3, 2, 1)
    W = rn.initialise(net, "xavier", seed=0)
    wide = SufficientStats(torch.eye(4, dtype=F64), torch.zeros(4, 4, dtype=F64), 1.0, 10)
    with pytest.raises(ValueError, match=r"d_y x d_x = \(4, 4\)"):
        hs.hessian_linear(net, W, wide)
    with pytest.raises(ValueError, match="NaN or infinite"):
        hs.spectrum(torch.tensor([[1.0, float("nan")], [float("nan"), 1.0]]))
    with pytest.raises(ValueError, match="shape of w0"):
        hs.directional_derivatives(lambda w: (w**2).sum(), torch.zeros(2), torch.ones(3), order=2)


@pytest.mark.parametrize("claim", [hs.claim_kronecker_hessian, hs.claim_closed_forms])
def test_the_hessian_claims_draw_their_data_from_their_seed(claim):
    """Run twice, a claim of this module measures exactly the same numbers: inputs and targets
    both come from the seeded generator, so the ledger's figure is the run's, every run."""
    first, second = claim(), claim()
    assert first.value == second.value
    assert first.nontrivial == second.nontrivial
    assert first.nontrivial > 0


def test_hessians_do_not_depend_on_torchs_default_device():
    """Every tensor a Hessian needs is made on the weights' device: with torch's default device
    set elsewhere ("meta", which holds no values) each Hessian and loss is unchanged."""
    data = random_dataset(3, 30, seed=5)
    linear = rn.ShortcutNetwork(3, 2, 2)
    relu = rn.ShortcutNetwork(3, 2, 2, mid="relu")
    W = rn.initialise(linear, "xavier", seed=6)
    w = rn.flatten(W)

    def every_result():
        return [
            hessian_linear(linear, W, data),
            hessian_linear(linear, W, data, second_order=False),
            hs.hessian(linear, W, data),
            hs.hessian(relu, W, data),
            hessian_mid_relu(relu, W, data),
            hs.loss_function(linear, data)(w),
            hs.loss_function(relu, data)(w),
            hessian_at_zero(linear, data),
            hessian_at_zero(rn.ShortcutNetwork(3, 1, 2), data),
            hessian_at_zero(rn.ShortcutNetwork(3, 3, 2), data),
            hessian_at_zero(rn.ShortcutNetwork(3, 1, 2, post="tanh"), data),
            hessian_at_zero(rn.ShortcutNetwork(3, 1, 2, post="silu"), data),  # sigma''(0) != 0
            rn.end_to_end(linear, W),
        ]

    outside = every_result()
    with torch.device("meta"):
        inside = every_result()
    for a, b in zip(outside, inside):
        assert b.device.type == "cpu"
        assert torch.equal(a, b)


@pytest.mark.parametrize("summary", [cond_max_min, cond_percentile, index, resolution_floor])
def test_spectral_summaries_refuse_eigenvalues_that_are_not_finite_naming_them(summary):
    with pytest.raises(ValueError, match=r"\beigs\b"):
        summary([1.0, float("nan"), 2.0])
