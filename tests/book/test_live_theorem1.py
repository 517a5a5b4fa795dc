"""The Theorem 1 explorer's exports (resnet_nb.book.live.theorem1): the synthetic data, the
samples that realise given moments, the closed-form spectrum, and the cases the page is held to."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from resnet_nb.book.live import theorem1 as lt
from resnet_nb.core.hessians import spectrum, theorem1_blocks
from resnet_nb.core.networks import ShortcutNetwork


@pytest.fixture(scope="module")
def cases():
    return lt.export_cases()[lt.NAME]


def test_synthetic_moments_have_the_correlation_the_reader_sets():
    st = lt.synthetic_moments(0.6)
    assert st.Sxx[0, 1] == pytest.approx(0.6) and st.Sxx[0, 2] == pytest.approx(0.36)
    assert torch.allclose(st.Syx, torch.tensor(lt.SYNTH_T, dtype=torch.float64) @ st.Sxx)


@pytest.mark.parametrize("rho", [1.0, -1.0, float("nan")])
def test_synthetic_moments_refuse_a_correlation_outside_the_open_interval(rho):
    with pytest.raises(ValueError, match=r"\brho\b"):
        lt.synthetic_moments(rho)


@pytest.mark.parametrize("rho", [0.5, -0.9])
def test_samples_reproduce_the_moments(rho):
    st = lt.synthetic_moments(rho)
    ds = lt.samples_with_moments(st).stats()
    assert torch.allclose(ds.Sxx, st.Sxx, rtol=0, atol=1e-13)
    assert torch.allclose(ds.Syx, st.Syx, rtol=0, atol=1e-13)


def test_closed_form_spectrum_equals_the_dense_hessians():
    st = lt.synthetic_moments(-0.3)
    dense = spectrum(lt.hessian_zero(2, 3, "synthetic", -0.3))
    closed = lt.closed_form_spectrum(2, 3, st)
    assert np.abs(closed - dense).max() < 1e-12 * np.abs(dense).max()


def test_closed_form_spectrum_refuses_the_one_shortcut_network():
    with pytest.raises(ValueError, match=r"\bn = 1\b"):
        lt.closed_form_spectrum(1, 3, lt.synthetic_moments(0.5))


def test_one_shortcut_units_do_not_decouple():
    """Why the page diagonalises the dense 1-shortcut Hessian: the block below the diagonal A is
    not symmetric, so H is not I (x) (B - A) + J (x) A and has no two-block shortcut."""
    st = lt.synthetic_moments(0.5)
    A = theorem1_blocks(ShortcutNetwork(3, 1, 1), st)["A"]
    assert (A - A.T).abs().max() > 0.1 * A.abs().max()


def test_autograd_and_kronecker_hessians_agree_on_every_small_case(cases):
    small = [c for c in cases if "H" in c["output"]]
    assert {c["input"]["n"] for c in small} == {1, 2} and min(c["input"]["R"] for c in small) >= 2
    for c in small:
        inp = c["input"]
        H = lt.hessian_zero(inp["n"], inp["R"], inp["data"], inp["rho"])
        H_autograd = torch.as_tensor(c["output"]["H"])
        assert (H - H_autograd).abs().max() <= 1e-12 * max(1.0, H.abs().max())


def test_cases_cover_every_n_both_data_sets_and_thirty_two_units(cases):
    inputs = [c["input"] for c in cases]
    assert {i["n"] for i in inputs} == {1, 2, 3}
    assert {i["data"] for i in inputs} == {"synthetic", "mnist"}
    assert max(i["R"] for i in inputs) == 32
    assert all(c["rtol"] == 1e-9 for c in cases)


def test_two_shortcut_cond10_does_not_depend_on_depth(cases):
    two = {(c["input"]["data"], c["input"]["R"]): c["output"]["cond10"] for c in cases if c["input"]["n"] == 2}
    mnist = [v for (d, _), v in two.items() if d == "mnist"]
    assert len(mnist) >= 2 and np.ptp(mnist) < 1e-12 * min(mnist)


def test_precomputed_one_shortcut_cond10_grows_with_depth():
    pre = lt.mnist_n1_precomputed(Rs=(4, 6))
    assert pre["R"] == [4, 6] and len(pre["quantiles"][0]) == lt.QUANTILES
    assert pre["cond10"][1] > pre["cond10"][0]
