"""Hardt & Ma appendix B: Lemma B.2's hypotheses against Lemma B.1's proof (resnet_nb.hardt_ma.interface)."""

import numpy as np
import pytest

from resnet_nb.hardt_ma import relu as hr
from resnet_nb.hardt_ma.interface import (
    SEARCH_TOL,
    b1_preactivations,
    claim_b2_meets_b1,
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
    assert claim_b2_meets_b1().passed
    assert claim_b2_meets_b1(falsify=True).rejected_on_value


def test_arguments_are_checked():
    with pytest.raises(ValueError, match=r"\brho_prime\b"):
        worst_inner_product(0.0, 0.1)
    with pytest.raises(ValueError, match=r"\bsq_sep\b"):
        extremal_pair(0.1, 10.0)
    with pytest.raises(ValueError, match=r"\balpha\b"):
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
        with pytest.raises(ValueError, match=r"\brho_prime\b"):
            call()


@pytest.mark.parametrize("rp", [1e-9, 1 - 1e-9])
def test_rho_prime_just_inside_0_and_1_is_accepted(rp):
    s = 0.5 * rp
    assert worst_inner_product(rp, s) == pytest.approx(1 + rp - s / 2, abs=1e-15)
    assert required_sq_separation(rp) == pytest.approx(6 * rp, rel=1e-15)
    P = extremal_pair(rp, s)
    assert (P**2).sum(0) == pytest.approx([1 + rp, 1 + rp], abs=1e-14)
    found = max_inner_product_search(rp, s, k=2, starts=1)
    assert found["value"] == pytest.approx(1 + rp - s / 2, abs=SEARCH_TOL)
    assert b1_preactivations(np.eye(2), [0], rp)[0] == pytest.approx([2 * rp, -(1 - 2 * rp)], abs=1e-15)


def test_separations_beyond_the_diameter_and_too_few_coordinates_are_refused():
    rp = 0.2
    assert worst_inner_product(rp, 4 * (1 + rp)) == pytest.approx(-(1 + rp))  # antipodal points
    with pytest.raises(ValueError, match=r"\bsq_sep\b"):
        worst_inner_product(rp, 4 * (1 + rp) + 1e-9)
    with pytest.raises(ValueError, match=r"\bsq_sep\b"):
        extremal_pair(rp, 4 * (1 + rp) + 1e-9)
    with pytest.raises(ValueError, match=r"\bsq_sep\b"):
        max_inner_product_search(rp, 4 * (1 + rp) + 0.5, starts=2)  # no feasible pair exists
    with pytest.raises(ValueError, match=r"\bsq_sep\b"):
        max_inner_product_search(rp, -0.1, starts=1)  # a squared distance is never negative
    assert extremal_pair(rp, rp, k=2).shape == (2, 2)
    with pytest.raises(ValueError, match=r"\bk\b"):
        extremal_pair(rp, rp, k=1)
    with pytest.raises(ValueError, match=r"\bk\b"):
        max_inner_product_search(rp, rp, k=1)
    with pytest.raises(ValueError, match=r"\bstarts\b"):
        max_inner_product_search(rp, rp, starts=0)


def test_separations_from_zero_to_the_diameter_are_accepted_and_negative_ones_refused():
    rp = 0.2
    # zero separation: the two points may coincide, <a, a> = 1 + rho'
    assert worst_inner_product(rp, 0.0) == pytest.approx(1 + rp, abs=1e-15)
    P = extremal_pair(rp, 0.0)
    assert np.allclose(P[:, 0], P[:, 1], rtol=0, atol=1e-15)
    # the diameter: antipodal points
    P = extremal_pair(rp, 4 * (1 + rp))
    assert np.allclose(P[:, 0], -P[:, 1], rtol=0, atol=1e-7)
    assert P[:, 0] @ P[:, 1] == pytest.approx(-(1 + rp), abs=1e-12)
    assert max_inner_product_search(rp, 0.0, k=2, starts=1)["value"] == pytest.approx(1 + rp, abs=SEARCH_TOL)
    for call in (
        lambda: worst_inner_product(rp, -1e-9),
        lambda: extremal_pair(rp, -1e-9),
        lambda: max_inner_product_search(rp, -1e-9, starts=1),
    ):
        with pytest.raises(ValueError, match=r"\bsq_sep\b"):
            call()


@pytest.mark.parametrize("k", [2, 3, 5])
def test_extremal_pair_lies_in_the_first_two_coordinates_symmetric_about_the_first(k):
    rp, s = 0.3, 1.1
    P = extremal_pair(rp, s, k=k)
    assert P.shape == (k, 2)
    assert not P[2:].any()
    # mirror images in the second coordinate, at angle 2 * asin(sqrt(s) / (2 r)) apart
    r = np.sqrt(1 + rp)
    half = np.arcsin(np.sqrt(s) / (2 * r))
    assert P[:2, 0] == pytest.approx([r * np.cos(half), r * np.sin(half)], abs=1e-15)
    assert P[:2, 1] == pytest.approx([r * np.cos(half), -r * np.sin(half)], abs=1e-15)


def test_b1_preactivations_are_inner_products_minus_the_bias_for_each_unit_in_s():
    rng = np.random.default_rng(0)
    alpha, rp = rng.standard_normal((3, 5)), 0.15
    S = [3, 0]
    pre = b1_preactivations(alpha, S, rp)
    assert pre.shape == (2, 5)
    for row, i in enumerate(S):
        for j in range(5):
            assert pre[row, j] == pytest.approx(sum(alpha[:, i] * alpha[:, j]) - (1 - 2 * rp), abs=1e-14)
    # no unit: an empty S gives no rows
    assert b1_preactivations(alpha, [], rp).shape == (0, 5)
    # points given in single precision are computed in double precision
    a32 = alpha.astype(np.float32)
    exact = a32.astype(np.float64)[:, S].T @ a32.astype(np.float64) - (1 - 2 * rp)
    assert b1_preactivations(a32, S, rp) == pytest.approx(exact, abs=1e-14)


@pytest.mark.parametrize(("rp", "s"), [(0.1, 0.1), (0.2, 1.2), (0.5, 5.5)])
def test_search_reports_the_pair_it_found_its_value_and_its_violation(rp, s):
    found = max_inner_product_search(rp, s, k=2, starts=3, seed=4)
    a, b = found["pair"][:, 0], found["pair"][:, 1]
    assert found["pair"].shape == (2, 2)
    assert found["value"] == a @ b
    violation = max(0.0, a @ a - (1 + rp), b @ b - (1 + rp), (1 - rp) - a @ a, (1 - rp) - b @ b, s - (a - b) @ (a - b))
    assert found["violation"] == violation
    assert violation <= SEARCH_TOL
    assert found["value"] == pytest.approx(worst_inner_product(rp, s), abs=SEARCH_TOL)


def test_more_starts_never_lower_the_maximum_found():
    # the same seed draws the same first starts; the best over more of them cannot be smaller
    for rp, s in ((0.1, 0.1), (0.2, 1.2)):
        values = [max_inner_product_search(rp, s, starts=n, seed=5)["value"] for n in (1, 4, 8)]
        assert values[0] <= values[1] <= values[2]


def test_extremal_pair_is_a_pair_in_the_plane_by_default():
    assert np.array_equal(extremal_pair(0.1, 0.3), extremal_pair(0.1, 0.3, k=2))
    assert extremal_pair(0.1, 0.3).shape == (2, 2)


def _recorded_starts(monkeypatch):
    """Replace the search's minimize by a wrapper that records every start it is given."""
    from resnet_nb.hardt_ma import interface

    starts, orig = [], interface.minimize

    def rec(fun, x0, **kw):
        starts.append(np.array(x0, copy=True))
        return orig(fun, x0, **kw)

    monkeypatch.setattr(interface, "minimize", rec)
    return starts


def test_search_by_default_runs_eight_starts_in_r3_drawn_with_seed_0(monkeypatch):
    starts = _recorded_starts(monkeypatch)
    found = max_inner_product_search(0.1, 0.1)
    assert found["pair"].shape == (3, 2)
    rng = np.random.default_rng(0)
    assert len(starts) == 8
    for x0 in starts:
        g = rng.standard_normal(6)
        assert np.allclose(x0, np.concatenate([g[:3] / np.linalg.norm(g[:3]), g[3:] / np.linalg.norm(g[3:])]))


@pytest.mark.parametrize("k", [2, 4])
def test_search_starts_with_both_points_on_the_unit_sphere(k, monkeypatch):
    starts = _recorded_starts(monkeypatch)
    max_inner_product_search(0.2, 0.5, k=k, starts=3, seed=7)
    assert len(starts) == 3
    for x0 in starts:
        assert x0.shape == (2 * k,)
        assert np.linalg.norm(x0[:k]) == pytest.approx(1.0, abs=1e-15)
        assert np.linalg.norm(x0[k:]) == pytest.approx(1.0, abs=1e-15)
