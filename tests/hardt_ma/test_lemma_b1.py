"""Hardt & Ma, Lemma B.1 as printed (resnet_nb.hardt_ma.relu.lemma_b1): its hypotheses, its construction and
its counterexamples."""

import math

import numpy as np
import pytest

import resnet_nb.hardt_ma.relu as hr
from resnet_nb.hardt_ma.relu import (
    lemma_b1_counterexamples,
    lemma_b1_hypotheses,
    lemma_b1_paper,
    lemma_block,
    margins,
    pad_configuration,
    random_lemma_b1_configuration,
    separation,
    unit_norm_columns,
)


def _unit(k, n, seed=0):
    return unit_norm_columns(np.random.default_rng(seed).standard_normal((k, n)))


def test_padded_lemma_b1_counterexamples_keep_failing():
    from resnet_nb.hardt_ma.relu import lemma_b1_counterexamples, lemma_b1_hypotheses, lemma_b1_paper, pad_configuration

    ce = lemma_b1_counterexamples(0.1)
    for name in ("pair", "hull"):
        alpha, S = pad_configuration(ce[name], 4)
        assert S.size == 4 and alpha.shape == (4, ce[name].shape[1] + 3)
        h = lemma_b1_hypotheses(alpha, S, 0.1)
        assert h["norms_ok"] and h["separation_ok"]
        _, _, _, rep = lemma_b1_paper(alpha, S, np.ones((4, 4)), 0.1)
        assert rep["fixed_error"] > 0.5


def test_lemma_b1_as_printed_fails_on_its_own_hypotheses():
    from resnet_nb.hardt_ma.relu import lemma_b1_counterexamples, lemma_b1_hypotheses, lemma_b1_paper

    ce = lemma_b1_counterexamples(0.1)
    pair = ce["pair"]
    h = lemma_b1_hypotheses(pair, [0], 0.1)
    assert h["norms_ok"] and h["separation_ok"]
    _, _, _, rep = lemma_b1_paper(pair, np.array([0]), np.array([[0.0], [2.0]]), 0.1)
    assert rep["moved_error"] > 0.1 or rep["fixed_error"] > 0.1  # the specification is violated
    # our construction (per-point threshold from the margin) does isolate the point
    U, V, b, rep2 = lemma_block(pair, [0], np.array([[0.0], [2.0]]))
    assert rep2["fixed_error"] == 0.0 and rep2["moved_error"] < 1e-12
    hull = ce["hull"]
    h = lemma_b1_hypotheses(hull, [0], 0.1)
    assert h["norms_ok"] and h["separation_ok"]
    assert margins(hull, [0])[0] < 0
    # point 0 is a convex combination of the others: no unit can fire at it alone
    lam, *_ = np.linalg.lstsq(np.vstack([hull[:, 1:], np.ones((1, 4))]), np.append(hull[:, 0], 1.0), rcond=None)
    assert np.all(lam > 0) and np.allclose(hull[:, 1:] @ lam, hull[:, 0])
    with pytest.raises(ValueError, match=r"\bmargin\b"):
        lemma_block(hull, [0], np.zeros((2, 1)))


def test_lemma_b1_as_printed_works_when_its_proof_inequality_holds():
    from resnet_nb.hardt_ma.relu import lemma_b1_paper

    rng = np.random.default_rng(7)
    A = unit_norm_columns(rng.standard_normal((30, 40)))  # ||a_i - a_j||^2 about 2 >= 6 rho'
    S = np.arange(5)
    _, _, _, rep = lemma_b1_paper(A, S, rng.standard_normal((30, 5)), 0.1)
    assert rep["fixed_error"] == 0.0 and rep["moved_error"] < 1e-12


def test_counterexamples_meet_hypothesis_b_over_their_whole_range():
    """Found by mutation testing: the hull's inner point is closer than 3 rho' to the points at
    +-20 degrees for rho' above about 0.1224, so rho' is capped at 0.12 and the function checks
    the distances it promises."""
    for rp in np.linspace(0.005, 0.12, 24):
        ce = hr.lemma_b1_counterexamples(float(rp))
        for P in ce.values():
            assert hr.separation(P) >= 3 * rp
    hull = hr.lemma_b1_counterexamples(0.12)["hull"]
    assert hr.separation(hull) < 3.06 * 0.12  # the cap is close to where (b) breaks: not a loose bound
    with pytest.raises(ValueError, match=r"\brho_prime must"):
        hr.lemma_b1_counterexamples(0.13)


def test_lemma_b1_hypotheses_are_closed_conditions():
    """(a) 1 - rho' <= ||alpha_i||^2 <= 1 + rho' and (b) ||alpha_i - alpha_j|| >= 3 rho', both with
    equality allowed; the inputs are exact binary fractions (rho' = 0.5)."""
    alpha = np.array([[0.5, 1.0], [0.5, 0.5], [0.0, 0.5]])  # squared norms 0.5 and 1.5, distance^2 0.5
    h = lemma_b1_hypotheses(alpha, [0], 0.5)
    assert h == dict(
        norms_ok=True,
        separation_ok=False,
        min_norm2=0.5,
        max_norm2=1.5,
        min_dist=pytest.approx(math.sqrt(0.5), rel=1e-15),
    )
    h = lemma_b1_hypotheses(np.array([[1.5, 0.0], [0.0, 0.0]]), [0], 0.5)  # distance exactly 1.5
    assert h["separation_ok"] and h["min_dist"] == 1.5 and not h["norms_ok"]
    assert not lemma_b1_hypotheses(np.array([[1.0, 0.75], [1.0, 0.0]]), [1], 0.5)["norms_ok"]  # norm^2 2


def test_lemma_b1_hypothesis_b_only_concerns_pairs_touching_s():
    alpha = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 1.1]])  # points 1 and 2 are close, neither is in S
    h = lemma_b1_hypotheses(alpha, [0], 0.1)
    assert h["min_dist"] == pytest.approx(math.sqrt(2), rel=1e-15) and h["separation_ok"]
    assert lemma_b1_hypotheses(alpha, [1], 0.1)["min_dist"] == pytest.approx(0.1, rel=1e-12)


@pytest.mark.parametrize("rho", [0.0, -0.1])
def test_lemma_b1_rho_prime_must_be_positive(rho):
    alpha = _unit(2, 3)
    with pytest.raises(ValueError, match=r"\brho_prime must"):
        lemma_b1_hypotheses(alpha, [0], rho)
    with pytest.raises(ValueError, match=r"\brho_prime must"):
        lemma_b1_paper(alpha, [0], np.zeros((2, 1)), rho)


def test_lemma_b1_paper_with_every_point_in_s_has_no_fixed_error():
    alpha = np.array([[1.0, 0.0], [0.0, 1.0]])
    _, _, _, rep = lemma_b1_paper(alpha, [0, 1], np.zeros((2, 2)), 0.1)
    assert rep["fixed_error"] == 0.0 and rep["moved_error"] == 0.0


def test_lemma_b1_counterexamples_range():
    for rho in (0.0, -0.1, 0.125):
        with pytest.raises(ValueError, match=r"\brho_prime must"):
            lemma_b1_counterexamples(rho)
    lemma_b1_counterexamples(0.12)


@pytest.mark.parametrize("rho", [0.05, 0.1, 0.12])
def test_lemma_b1_counterexamples_have_the_documented_shape(rho):
    ce = lemma_b1_counterexamples(rho)
    pair, hull = ce["pair"], ce["hull"]
    # pair: squared norms 1 + rho', distance 3 rho' (a hair outside, against rounding)
    assert np.allclose((pair**2).sum(0), 1 + rho, rtol=1e-8)
    assert 3 * rho <= np.linalg.norm(pair[:, 0] - pair[:, 1]) <= 3 * rho * (1 + 1e-5)
    # hull: a point of squared norm 1 - rho' and four of squared norm 1 + rho', pairwise distances
    # above 3 rho' (the chapter's wording, at its rho' = 0.1; not above rho' = 0.12, see the report),
    # at the angles +-20 and +-60 degrees of the chapter's table
    n2 = (hull**2).sum(0)
    assert np.allclose(n2, [1 - rho] + [1 + rho] * 4, rtol=1e-8)
    assert separation(hull) > 3 * rho or rho > 0.12
    assert np.allclose(np.degrees(np.arctan2(hull[1], hull[0])), [0, 20, -20, 60, -60], atol=1e-9)


def test_pad_configuration_layout():
    alpha = np.array([[1.0, 0.5], [0.0, 0.5]])
    out, S = pad_configuration(alpha, 3)  # the smallest width
    assert out.shape == (3, 4) and S.tolist() == [0, 2, 3]
    out, S = pad_configuration(alpha, 6)
    extra = np.zeros((6, 5))
    for j, (row, sign) in enumerate([(2, 1), (2, -1), (3, 1), (3, -1), (4, 1)]):  # +e3, -e3, +e4, -e4, +e5
        extra[row, j] = sign
    assert np.array_equal(out[:, 2:], extra) and np.array_equal(out[:2, :2], alpha) and not out[2:, :2].any()
    assert S.tolist() == [0, 2, 3, 4, 5, 6]
    with pytest.raises(ValueError, match=r"\bk must"):
        pad_configuration(alpha, 2)


def test_random_lemma_b1_configuration_norms_and_separation():
    Z, S = random_lemma_b1_configuration(4, 7, 0.1, np.random.default_rng(0), 0.0)
    n2 = (Z**2).sum(0)
    assert Z.shape == (4, 7) and S.tolist() == [0, 1, 2, 3]
    assert np.all((n2 >= 0.9) & (n2 <= 1.1)) and np.ptp(n2) > 0.05  # independent norms in the range
    for seed in range(40):  # squared distances at least min_sq_dist, also above 1
        Z, _ = random_lemma_b1_configuration(3, 2, 0.1, np.random.default_rng(seed), 1.5)
        assert separation(Z) ** 2 >= 1.5


def test_random_lemma_b1_configuration_accepts_the_required_distance_itself():
    Z0, _ = random_lemma_b1_configuration(3, 4, 0.1, np.random.default_rng(5), 0.0)  # the first draw
    Z1, _ = random_lemma_b1_configuration(3, 4, 0.1, np.random.default_rng(5), separation(Z0) ** 2)
    assert np.array_equal(Z0, Z1)


def test_claim_holds_and_its_falsifier_is_rejected(check_claim):
    check_claim("hm-lemma-b1")


def test_hull_meets_b_as_a_distance_bound_but_not_as_a_squared_one():
    hull = lemma_b1_counterexamples(0.1)["hull"]
    assert lemma_b1_hypotheses(hull, [0], 0.1, "distance")["separation_ok"]
    assert not lemma_b1_hypotheses(hull, [0], 0.1, "squared")["separation_ok"]
    with pytest.raises(ValueError, match=r"\breading\b"):
        lemma_b1_hypotheses(hull, [0], 0.1, "norm")


@pytest.mark.parametrize("rp", [0.02, 0.1, 0.3])
def test_a_margin_search_under_the_squared_reading_approaches_half_rho_prime_from_above(rp):
    found = hr.squared_reading_margin_search(rp, starts=40, seed=0)
    assert found["violation"] <= 1e-12  # admissible up to the search's constraint tolerance
    assert found["min_margin"] >= rp / 2 - 1e-10  # polarisation: margin >= (s - 2 rho')/2
    assert found["min_margin"] == pytest.approx(rp / 2, abs=1e-7)  # the search reaches the bound
    assert found["min_margin"] < rp  # the falsifier's bound rho' fails at the searched point


@pytest.mark.parametrize("rp", [0.02, 0.1, 0.3])
def test_the_margin_search_settles_to_its_stopping_tolerance(rp):
    """SLSQP stops when the margin changes by less than ftol = 1e-14: it ends within 20 ftol of the
    bound rho'/2, give or take its constraint violation (scipy's default ftol 1e-6 ends ~1e-12 away)."""
    found = hr.squared_reading_margin_search(rp, starts=40, seed=0)
    assert abs(found["min_margin"] - rp / 2) <= 2e-13 + found["violation"]


def test_margin_search_rejects_bad_input_by_name():
    with pytest.raises(ValueError, match=r"\brho_prime\b"):
        hr.squared_reading_margin_search(0.7)
    with pytest.raises(ValueError, match=r"\bstarts\b"):
        hr.squared_reading_margin_search(0.1, starts=0)


def test_random_configurations_under_the_squared_reading_keep_margin_half_rho_prime():
    out = hr.squared_reading_min_margin(300, 0.1, np.random.default_rng(0))
    assert out["draws"] == 300 and out["tried"] >= 300
    assert 0.05 <= out["min_margin"] < 0.1


def test_printed_construction_is_exact_at_six_rho_prime_and_fails_just_below():
    rng = np.random.default_rng(1)
    beta = rng.standard_normal((2, 1))
    at = hr.extremal_b1_pair(0.1, 0.6)
    assert np.sum((at[:, 0] - at[:, 1]) ** 2) == pytest.approx(0.6)
    assert lemma_b1_paper(at, np.array([0]), beta, 0.1)[3]["fixed_error"] < 1e-12
    below = hr.extremal_b1_pair(0.1, 0.6 * (1 - 1e-3))
    assert lemma_b1_paper(below, np.array([0]), beta, 0.1)[3]["fixed_error"] > 1e-5
    with pytest.raises(ValueError, match=r"\bsq_dist\b"):
        hr.extremal_b1_pair(0.1, 10.0)


def test_lemma_b1_claims_pass_and_their_falsifiers_fail():
    for check in (hr.claim_lemma_b1, hr.claim_lemma_b1_squared):
        assert check().passed
        assert not check(falsify=True).passed


def test_the_margin_search_in_one_dimension_finds_two_opposite_points_and_skips_the_starts_that_fail():
    """In R^1 the hypotheses force z and h to opposite signs, so the margin z^2 + |z h| is at least
    2 (1 - rho'), reached at z^2 = h^2 = 1 - rho'; starts on one side of 0 end inadmissible and are
    skipped, not the end of the search."""
    found = hr.squared_reading_margin_search(0.1, k=1, starts=10, seed=0)
    assert found["min_margin"] == pytest.approx(1.8, abs=1e-9) and found["dim"] == 1
    assert 0 < found["feasible"] < found["starts"] == 10


def _recording_search(monkeypatch, end=None):
    """Run the margin search with scipy's minimize recorded (its starts and constraints); with
    ``end``, every start ends at that point instead of being minimised."""
    from scipy.optimize import minimize as real

    from resnet_nb.hardt_ma.relu import lemma_b1

    seen = []

    def spy(fun, x0, **kw):
        seen.append((np.array(x0), kw["constraints"]))
        result = real(fun, x0, **kw)
        if end is not None:
            result.x = np.asarray(end, dtype=float)
        return result

    monkeypatch.setattr(lemma_b1, "minimize", spy)
    return seen


def test_the_margin_search_starts_on_the_unit_sphere_and_constrains_exactly_the_hypotheses(monkeypatch):
    seen = _recording_search(monkeypatch)
    hr.squared_reading_margin_search(0.1, k=2, starts=3, seed=0)
    assert len(seen) == 3
    for x0, _ in seen:
        assert np.linalg.norm(x0[:2]) == pytest.approx(1) and np.linalg.norm(x0[2:]) == pytest.approx(1)
    cons = seen[0][1]

    def holds(z, h):
        return min(c["fun"](np.concatenate([z, h])) for c in cons) >= 0

    assert holds([1.0, 0.0], [-1.0, 0.0])  # squared norms 1 in [0.9, 1.1], squared distance 4
    assert holds([(0.9 + 1e-12) ** 0.5, 0.0], [0.0, (1.1 - 1e-12) ** 0.5])  # at the ends of the band
    assert not holds([1.2**0.5, 0.0], [-1.0, 0.0]) and not holds([1.0, 0.0], [0.0, -(0.8**0.5)])
    assert not holds([1.0, 0.0], [0.9, 0.3])  # squared distance 0.1 below 3 rho' = 0.3


def test_a_search_whose_ends_break_a_hypothesis_refuses_to_report_a_margin(monkeypatch):
    _recording_search(monkeypatch, end=[1.2**0.5, 0.0, -1.0, 0.0])  # |z|^2 = 1.2 > 1 + rho'
    with pytest.raises(ValueError, match="admissible pair"):
        hr.squared_reading_margin_search(0.1, k=2, starts=2, seed=0)


def test_random_configurations_and_extremal_pairs_refuse_bad_input_by_name():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"\bdraws\b"):
        hr.squared_reading_min_margin(0, 0.1, rng)
    for bad in (0.0, 0.7):  # rho' in (0, 1/2]
        with pytest.raises(ValueError, match=r"\brho_prime\b"):
            hr.squared_reading_min_margin(10, bad, rng)
    with pytest.raises(ValueError, match=r"\brho_prime\b"):
        hr.extremal_b1_pair(0.5, 1.0)
