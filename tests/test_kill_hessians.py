"""Properties of the Hessians, Theorem 1's closed forms and the spectral summaries that the other
tests left unchecked; each was found by a mutant of ``resnet_nb/core/hessians.py`` that survived them
(see results/mutation/report.md)."""
import math
import warnings

import numpy as np
import pytest
import torch

import resnet_nb as rn
from resnet_nb.core.data import SufficientStats
from resnet_nb.core.hessians import (_auto_chunk, _random_data, cond_max_min, cond_percentile,
                                directional_derivatives, hessian, hessian_at_zero, hessian_linear,
                                index, loss_function, resolution_floor, spectrum,
                                stationarity_profile, theorem1_blocks)
from resnet_nb.core.networks import Activation, flatten, unflatten

from helpers import random_dataset

F64 = torch.float64
EPS = np.finfo(np.float64).eps


# -- the chunk size of the autograd Hessian: the documented memory estimate -------------------

def test_auto_chunk_follows_the_memory_estimate_of_a_linear_network():
    # per HVP: 6 copies of the P parameters plus 8 d x d products per matrix, 8 bytes each
    net = rn.ShortcutNetwork(3, 2, 2)
    per = 8 * net.num_params * 6 + 8 * net.depth * net.d * net.d * 8
    assert per == 4032
    assert _auto_chunk(net, None, budget_bytes=5 * per) == 5
    assert _auto_chunk(net, None, budget_bytes=5 * per - 1) == 4
    assert _auto_chunk(net, None) == net.num_params  # the default budget covers a small network


def test_auto_chunk_follows_the_memory_estimate_with_activations():
    # per HVP: primal and tangent activations of every layer and unit output, d x m each
    net = rn.ShortcutNetwork(3, 2, 2, pre="tanh")
    data = random_dataset(3, 20)
    per = 8 * net.d * data.m * (net.depth + net.R) * 4
    assert per == 11520
    assert _auto_chunk(net, data, budget_bytes=3 * per) == 3
    assert _auto_chunk(net, data, budget_bytes=3 * per - 1) == 2


def test_auto_chunk_is_at_least_one():
    net = rn.ShortcutNetwork(3, 2, 2, pre="tanh")
    assert _auto_chunk(net, random_dataset(3, 20), budget_bytes=1) == 1


# -- arguments ---------------------------------------------------------------------------------

def test_targets_of_another_width_are_refused():
    net = rn.ShortcutNetwork(3, 1, 1)
    data = rn.Dataset(torch.zeros(3, 5, dtype=F64), torch.zeros(2, 5, dtype=F64))
    with pytest.raises(ValueError, match="d_y"):
        hessian(net, torch.zeros(net.shape, dtype=F64), data)


def test_error_messages_name_the_argument():
    net = rn.ShortcutNetwork(2, 1, 1)
    data = random_dataset(2, 5)
    with pytest.raises(ValueError, match=r"^chunk must"):
        hessian(net, torch.zeros(net.shape, dtype=F64), data, chunk=0)
    with pytest.raises(ValueError, match=r"^order must"):
        directional_derivatives(lambda w: w.sum(), torch.zeros(2), torch.ones(2), 0)
    with pytest.raises(ValueError, match=r"^directions must"):
        stationarity_profile(net, torch.zeros(net.shape, dtype=F64), data, 1, directions=0)
    with pytest.raises(ValueError, match=r"^q must"):
        cond_percentile([1.0, 2.0], q=0.0)


# -- float64 throughout, whatever the dtype of the inputs ---------------------------------------

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
    d = directional_derivatives(lambda w: (w ** 3).sum(), w0, v, 3)
    exact = [3 * sum(a * a * b for a, b in zip(w0, v)), 6 * sum(a * b * b for a, b in zip(w0, v)),
             6 * sum(b ** 3 for b in v)]
    assert d == pytest.approx(exact, rel=1e-14, abs=1e-15)


# -- Theorem 1 at zero ---------------------------------------------------------------------------

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


# -- spectral summaries ---------------------------------------------------------------------------

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


def test_cond_percentile_default_is_the_10th_percentile_and_q_may_be_below_1():
    e = np.arange(1.0, 11.0)  # 10th percentile 1.9 (linear interpolation)
    assert cond_percentile(e) == 10.0 / 1.9
    assert cond_percentile(e) != cond_percentile(e, 11.0)
    assert cond_percentile(e, 0.5) == 10.0 / np.percentile(e, 0.5)


def test_index_counts_negative_eigenvalues_only():
    assert index([0.0, 1.0, -1.0]) == 1.0 / 3.0


def test_resolution_floor_is_P_eps_lambda_max():
    assert resolution_floor([2.0, -4.0]) == 2 * EPS * 4.0


# -- stationarity profile ---------------------------------------------------------------------------

def _reference_profile(P, grad, directions, seed):
    g = torch.Generator().manual_seed(seed)
    worst = 0.0
    for _ in range(directions):
        v = torch.randn(P, generator=g, dtype=F64)
        worst = max(worst, abs(float(grad @ (v / v.norm()))))
    return worst


def test_stationarity_profile_defaults_and_directions():
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
    prof = stationarity_profile(net, W0, stats, 1)
    assert prof.shape == (1,)
    assert prof[0] == pytest.approx(ref8, rel=1e-13)
    assert stationarity_profile(net, W0, stats, 1, directions=9)[0] == pytest.approx(ref9, rel=1e-13)
    ref_seed1 = _reference_profile(4, grad, 8, 1)
    assert abs(ref_seed1 - ref8) > 1e-3 * ref8
    assert stationarity_profile(net, W0, stats, 1, seed=1)[0] == pytest.approx(ref_seed1, rel=1e-13)


# -- the ledger's test data -----------------------------------------------------------------------

def test_ledger_random_data_is_reproducible_float64_and_unstructured():
    a, b = _random_data(3, 6, seed=5), _random_data(3, 6, seed=5)
    assert a.X.dtype == F64 and a.Y.dtype == F64
    assert torch.equal(a.X, b.X) and torch.equal(a.Y, b.Y)
    g = torch.Generator().manual_seed(5)
    assert torch.equal(a.X, torch.randn(3, 6, generator=g, dtype=F64))
    assert torch.equal(a.Y, torch.randn(3, 6, generator=g, dtype=F64))
