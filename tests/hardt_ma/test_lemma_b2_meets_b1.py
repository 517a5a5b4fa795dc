"""Hardt & Ma appendix B: Lemma B.2's hypotheses against Lemma B.1's proof (resnet_nb.hardt_ma.interface)."""

import numpy as np
import pytest

from resnet_nb.hardt_ma import relu as hr
from resnet_nb.hardt_ma.interface import (
    SEARCH_TOL,
    b1_preactivations,
    check_b2_meets_b1,
    extremal_pair,
    max_inner_product_search,
    required_sq_separation,
    worst_inner_product,
)


@pytest.mark.parametrize("rp", [0.01, 0.1, 0.3])
def test_extremal_pair_attains_the_closed_form_and_meets_b2_hypotheses(rp):
    P = extremal_pair(rp, rp, k=4)
    n2 = (P**2).sum(0)
    assert np.allclose(n2, 1 + rp, rtol=0, atol=1e-14)
    assert abs(((P[:, 0] - P[:, 1]) ** 2).sum() - rp) < 1e-14
    assert abs(P[:, 0] @ P[:, 1] - worst_inner_product(rp, rp)) < 1e-14


@pytest.mark.parametrize("rp", [0.05, 0.2])
def test_printed_construction_moves_a_point_outside_s_under_b2_hypotheses(rp):
    P = extremal_pair(rp, rp)
    pre = b1_preactivations(P, [0], rp)
    assert pre[0, 1] == pytest.approx(2.5 * rp, abs=1e-13)  # the unit fires at the other point
    _, _, _, rep = hr.lemma_b1_paper(P, np.array([0]), np.array([[0.0], [2.0]]), rp)
    assert rep["fixed_error"] > 0.1  # so the point outside S moves


@pytest.mark.parametrize("rp", [0.05, 0.2])
def test_six_rho_prime_is_exactly_the_threshold(rp):
    s = required_sq_separation(rp)
    assert worst_inner_product(rp, s) == pytest.approx(1 - 2 * rp, abs=1e-15)
    assert worst_inner_product(rp, 0.99 * s) > 1 - 2 * rp
    P = extremal_pair(rp, s)
    assert b1_preactivations(P, [0], rp)[0, 1] == pytest.approx(0.0, abs=1e-13)


def test_search_never_beats_the_closed_form():
    for rp, s in ((0.1, 0.1), (0.1, 0.5), (0.2, 1.5)):
        found = max_inner_product_search(rp, s, seed=3)
        assert found["violation"] <= SEARCH_TOL
        assert found["value"] <= worst_inner_product(rp, s) + SEARCH_TOL


def test_claim_passes_and_falsifier_is_rejected():
    assert check_b2_meets_b1().passed
    assert check_b2_meets_b1(falsify=True).rejected_on_value


def test_arguments_are_checked():
    with pytest.raises(ValueError):
        worst_inner_product(0.0, 0.1)
    with pytest.raises(ValueError):
        extremal_pair(0.1, 10.0)
    with pytest.raises(ValueError):
        b1_preactivations(np.ones(3), [0], 0.1)


@pytest.mark.parametrize("rp", [0.0, 1.0, -0.1, 1.5])
def test_b2_needs_rho_prime_strictly_between_0_and_1(rp):
    # Lemma B.2's norms 1 - rho' <= ||z||^2 <= 1 + rho' need 0 < rho' < 1
    for call in (
        lambda: worst_inner_product(rp, 0.01),
        lambda: required_sq_separation(rp),
        lambda: extremal_pair(rp, 0.01),
        lambda: max_inner_product_search(rp, 0.01, starts=1),
        lambda: b1_preactivations(np.eye(2), [0], rp),
    ):
        with pytest.raises(ValueError, match="rho_prime"):
            call()


def test_separations_beyond_the_diameter_and_too_few_coordinates_are_refused():
    rp = 0.2
    assert worst_inner_product(rp, 4 * (1 + rp)) == pytest.approx(-(1 + rp))  # antipodal points
    with pytest.raises(ValueError, match="sq_sep"):
        worst_inner_product(rp, 4 * (1 + rp) + 1e-9)
    with pytest.raises(ValueError, match="sq_sep"):
        extremal_pair(rp, 4 * (1 + rp) + 1e-9)
    assert extremal_pair(rp, rp, k=2).shape[0] == 2
    with pytest.raises(ValueError, match="k"):
        extremal_pair(rp, rp, k=1)
    with pytest.raises(ValueError, match="k"):
        max_inner_product_search(rp, rp, k=1)
    with pytest.raises(ValueError, match="starts"):
        max_inner_product_search(rp, rp, starts=0)
