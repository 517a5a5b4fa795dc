"""Hardt & Ma, Lemma 2.4, Eq. (2.3) and Theorem 2.2 (resnet_nb.hardt_ma.linear.theorem22): the population
risk, its gradient, the gradient lower bound in its four forms, the adversary and the surveys."""

import math

import numpy as np
import pytest
import scipy.linalg
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from resnet_nb.hardt_ma.linear import (
    FORMS,
    adversarial_gradient_ratio,
    bound_ratios,
    critical_point_at_tau_one,
    gradient_bound_sides,
    gradient_bound_survey,
    max_spectral_norm,
    population_gd,
    population_risk,
    random_ball_point,
    residual_product,
    risk_gradient,
    theorem22_points,
    theorem22_rate,
)
from resnet_nb.hardt_ma.linear import theorem22 as hm


def _positive_det(rng, d, scale=1.0):
    R = scale * rng.standard_normal((d, d))
    if np.linalg.det(R) < 0:
        R[:, 0] *= -1
    return R


CLAIMS = [
    "hm-thm21-bound",
    "hm-thm21-det",
    "hm-lemma24-order",
    "hm-eq23",
    "hm-thm22",
    "hm-thm21-rotation-step",
    "hm-psd-special-case",
    "hm-gd-reflection",
]


KINDS = ("gaussian", "shrink", "rank_one")


S2 = np.diag([0.5, 2.0])


NOT_SQUARE = np.ones((2, 3))


def _proj(A, tau):
    """Frobenius projection onto the ball |||A||| <= tau: singular values clipped at tau."""
    U, s, Vt = np.linalg.svd(A)
    return U @ (np.minimum(s, tau)[..., None] * Vt)


def _min_ratio(A, Sigma, tau, form):
    """Smallest lhs / rhs over all errors E at the point A: both sides are quadratic forms in E;
    their matrices come from gradient_bound_sides by polarisation, the ratio from scipy."""
    d = A.shape[1]
    P = residual_product(A)
    basis = [np.eye(d * d)[k].reshape(d, d) for k in range(d * d)]

    def sides(E):
        s = gradient_bound_sides(A, P - E, Sigma, tau)
        return np.array([s["lhs"], s[form]])

    diag = [sides(E) for E in basis]
    K, M = np.zeros((d * d, d * d)), np.zeros((d * d, d * d))
    for j in range(d * d):
        K[j, j], M[j, j] = diag[j]
        for k in range(j):
            K[j, k], M[j, k] = (sides(basis[j] + basis[k]) - diag[j] - diag[k]) / 2
            K[k, j], M[k, j] = K[j, k], M[j, k]
    return float(scipy.linalg.eigh(K, M, eigvals_only=True)[0])


def _assert_kind(A, tau, kind):
    """The defining property of each kind of random_ball_point (for tau > 0)."""
    l, d, _ = A.shape
    if kind == "shrink":
        assert np.array_equal(A, -tau * np.broadcast_to(np.eye(d), A.shape))
    elif kind == "rank_one":
        assert np.array_equal(A, np.broadcast_to(A[0], A.shape))
        assert np.allclose(A[0], A[0].T, atol=0) and np.allclose(
            np.linalg.eigvalsh(A[0]), [-tau] + [0.0] * (d - 1), atol=1e-14
        )
    else:
        assert np.allclose(np.linalg.norm(A, ord=2, axis=(1, 2)), tau, rtol=1e-12)
        if d > 1:
            assert not np.allclose(A[0], A[0].T)  # a generic Gaussian matrix, not u u^T or I


def _record(monkeypatch, name):
    """Replace hm.<name> by a wrapper that records (args, result) of every call."""
    calls, orig = [], getattr(hm, name)

    def rec(*args):
        out = orig(*args)
        calls.append(([np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args], out))
        return out

    monkeypatch.setattr(hm, name, rec)
    return calls


A22 = np.zeros((2, 2, 2))


def _check_calls(calls, l, tau, Sigma, points):
    """points calls of each kind, in order, at the right l, tau, Sigma; Gaussian errors E."""
    d = Sigma.shape[0]
    assert len(calls) == 3 * points
    for j, (args, _) in enumerate(calls):
        A, R, S, t = args
        assert A.shape == (l, d, d) and t == tau and np.array_equal(S, Sigma)
        _assert_kind(A, tau, KINDS[j // points])
        assert np.linalg.matrix_rank(residual_product(A) - R) == d  # a Gaussian error, full rank


@settings(max_examples=25, deadline=None)
@given(l=st.integers(1, 6), d=st.integers(1, 4), seed=st.integers(0, 10_000))
def test_lemma24_gradient_matches_autograd(l, d, seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((l, d, d)) * 0.4
    R = rng.standard_normal((d, d))
    C = rng.standard_normal((d, d))
    Sigma = C @ C.T + 0.1 * np.eye(d)
    At = torch.tensor(A, requires_grad=True)
    M = torch.eye(d, dtype=torch.float64)
    for i in range(l):
        M = (torch.eye(d, dtype=torch.float64) + At[i]) @ M
    E = M - torch.tensor(R)
    f = torch.trace(E @ torch.tensor(Sigma) @ E.T) + d
    f.backward()
    f = f.detach()
    assert abs(float(f) - population_risk(A, R, Sigma)) <= 1e-10 * max(1.0, float(f))
    assert np.abs(At.grad.numpy() - risk_gradient(A, R, Sigma)).max() <= 1e-9 * max(1.0, np.abs(At.grad.numpy()).max())


def test_population_risk_matches_monte_carlo():
    rng = np.random.default_rng(3)
    d, l, m = 3, 2, 400_000
    A = 0.2 * rng.standard_normal((l, d, d))
    R = _positive_det(rng, d)
    C = rng.standard_normal((d, d))
    Sigma = C @ C.T / d + 0.5 * np.eye(d)
    x = np.linalg.cholesky(Sigma) @ rng.standard_normal((d, m))
    y = R @ x + rng.standard_normal((d, m))
    mc = float(((y - residual_product(A) @ x) ** 2).sum(0).mean())
    exact = population_risk(A, R, Sigma)
    assert abs(mc - exact) <= 0.02 * exact


@settings(max_examples=40, deadline=None)
@given(
    l=st.integers(1, 8),
    d=st.integers(1, 4),
    tau=st.one_of(st.just(0.0), st.floats(1e-6, 0.95)),
    seed=st.integers(0, 10_000),
    scale=st.sampled_from([0.01, 1.0, 100.0]),
    kind=st.sampled_from(["gaussian", "shrink", "rank_one"]),
)
def test_corrected_gradient_bound_holds_on_random_and_adversarial_points(l, d, tau, seed, scale, kind):
    rng = np.random.default_rng(seed)
    A = random_ball_point(l, d, tau, rng, kind)
    R = rng.standard_normal((d, d))
    C = rng.standard_normal((d, d))
    Sigma = scale * (C @ C.T + 0.05 * np.eye(d))
    s = gradient_bound_sides(A, R, Sigma, tau)
    assert s["lhs"] >= s["corrected"] * (1 - 1e-9)
    assert s["lhs"] >= s["via_E"] * (1 - 1e-9)
    if np.linalg.eigvalsh(Sigma)[0] <= 1.0 and tau == 0.0:  # the printed form's two defects are inactive
        assert s["lhs"] >= s["printed"] * (1 - 1e-9)


def test_exponent_only_repair_fails_for_large_covariance():
    """sigma_min(Sigma)^2 (f - C_opt) grows like Sigma^3, ||grad f||^2 like Sigma^2."""
    A = np.zeros((3, 2, 2))
    s = gradient_bound_sides(A, np.diag([2.0, 0.5]), 4 * np.eye(2), tau=0.0)
    assert s["lhs"] < s["exponent_only"] and s["lhs"] < s["printed"]
    assert math.isclose(s["lhs"] / s["exponent_only"], 0.25, rel_tol=1e-12)


@pytest.mark.parametrize("l, tau", [(2, 0.3), (4, 0.5), (8, 0.1)])
def test_printed_gradient_bound_fails_even_for_identity_covariance(l, tau):
    """Equation (2.3) as printed has (1 - tau)^(l-1) where the proof gives (1 - tau)^(2l-2)."""
    A = -tau * np.broadcast_to(np.eye(2), (l, 2, 2)).copy()
    s = gradient_bound_sides(A, np.eye(2) * (1 - tau) ** l - np.diag([1.0, 0.0]), np.eye(2), tau)
    assert math.isclose(s["lhs"] / s["printed"], (1 - tau) ** (l - 1), rel_tol=1e-10)
    assert math.isclose(s["lhs"] / s["corrected"], 1.0, rel_tol=1e-10)


def test_adversary_reaches_but_never_crosses_the_corrected_bound():
    r = adversarial_gradient_ratio(3, 2, 0.3, np.diag([0.5, 3.0]), steps=150, start="shrink")
    assert 1 - 1e-9 <= r["ratio"] <= 1.05
    bad = adversarial_gradient_ratio(3, 2, 0.3, 4 * np.eye(2), form="exponent_only", steps=100)
    assert bad["ratio"] < 1
    bad = adversarial_gradient_ratio(3, 2, 0.3, np.eye(2), form="printed", steps=100)
    assert bad["ratio"] < 1


def test_critical_point_on_the_boundary_is_not_a_global_minimum():
    R = np.diag([1.5, 0.7])
    A = critical_point_at_tau_one(3, 2)
    assert np.abs(risk_gradient(A, R, np.eye(2))).max() == 0.0
    assert population_risk(A, R, np.eye(2)) > 2.0 + 1.0
    assert max_spectral_norm(A) == 1.0


def test_bound_ratios_corrected_holds_and_printed_fails_where_the_chapter_says():
    from resnet_nb.hardt_ma.linear import theorem22 as hm

    # The chapter's histogram: the corrected form of Eq. (2.3) is >= 1 at every sampled point;
    # the printed form is violated once Sigma is scaled up.
    S = np.diag([0.5, 1.0, 2.0])
    large = hm.bound_ratios(4, 0.3, 100 * S, per_kind=20, seed=0)
    small = hm.bound_ratios(4, 0.3, 0.01 * S, per_kind=20, seed=0)
    assert large["corrected"].min() >= 1.0 - 1e-12 and small["corrected"].min() >= 1.0 - 1e-12
    assert large["printed"].min() < 1.0
    again = hm.bound_ratios(4, 0.3, 100 * S, per_kind=20, seed=0)
    assert np.array_equal(again["printed"], large["printed"])  # seeded
    with pytest.raises(ValueError, match=r"\btau must"):
        hm.bound_ratios(4, 1.0, S)
    with pytest.raises(ValueError, match=r"\bSigma must"):
        hm.bound_ratios(4, 0.3, np.eye(2))


@pytest.mark.parametrize("scale, l, tau", [(1.0, 4, 0.5), (0.01, 4, 0.5), (0.01, 12, 0.6), (100.0, 3, 0.3)])
def test_printed_form_at_the_extremal_point_is_one_minus_tau_power_over_sigma_min(scale, l, tau):
    """Exercise hm-ex-whiten: at A_i = -tau I, E = e v^T the printed form's ratio is
    (1 - tau)^(l - 1) / sigma_min(Sigma): below 1 for Sigma = I, above 1 for a small Sigma unless
    (1 - tau)^(l - 1) < sigma_min."""
    from resnet_nb.hardt_ma.linear import theorem22 as hm

    Sigma = scale * np.diag([0.5, 1.0, 2.0])
    A = hm.random_ball_point(l, 3, tau, np.random.default_rng(0), "shrink")
    v = np.array([1.0, 0.0, 0.0])  # eigenvector of sigma_min
    s = gradient_bound_sides(A, residual_product(A) - np.outer([0.3, -1.0, 2.0], v), Sigma, tau)
    predicted = (1 - tau) ** (l - 1) / (0.5 * scale)
    assert math.isclose(s["lhs"] / s["printed"], predicted, rel_tol=1e-9)
    assert math.isclose(s["lhs"] / s["corrected"], 1.0, rel_tol=1e-9)


def test_adversary_refuses_one_factor_with_a_clear_error():
    """Found by mutation testing: at l = 1 the ratio does not depend on A, and the search used to
    fail deep inside torch ("element 0 of tensors does not require grad")."""
    with pytest.raises(ValueError, match=r"\bl must"):
        adversarial_gradient_ratio(1, 2, 0.3, np.eye(2), steps=1)
    r = adversarial_gradient_ratio(2, 2, 0.3, np.eye(2), steps=2)
    assert np.isfinite(r["ratio"]) and r["ratio"] >= 1 - 1e-12


def test_theorem22_check_compares_with_the_bound_not_with_a_rounding_threshold():
    from resnet_nb.book.ledger import eps_criterion
    from resnet_nb.hardt_ma.linear import claim_theorem22, theorem22_points, theorem22_rate

    old_threshold = eps_criterion(6 * 3**3, 1.0)[0]  # a rounding tolerance, not a bound
    ratios = {}
    for A, R, Sigma, tau in theorem22_points():
        g2 = float((risk_gradient(A, R, Sigma) ** 2).sum())
        ex = population_risk(A, R, Sigma, noise=0.0)
        assert g2 >= (1 - 1e-9) * theorem22_rate(A.shape[0], tau, Sigma) * ex
        ratios.setdefault(A.shape[0], []).append(g2 / ex)
    # the true theorem's ratio drops below the old threshold at depths 7 and 8 (not at 6)
    assert min(ratios[6]) > old_threshold and min(ratios[7]) < old_threshold and min(ratios[8]) < old_threshold
    good, bad = claim_theorem22(), claim_theorem22(falsify=True)
    assert good.passed and not bad.passed
    assert bad.value == 1.0  # a critical point that is not a minimum: the statement itself fails
    A = critical_point_at_tau_one(4, 3)
    R = hm.random_positive_det(3, np.random.default_rng(8))
    C = np.random.default_rng(7).standard_normal((3, 3))
    assert bad.nontrivial == population_risk(A, R, C @ C.T + 0.05 * np.eye(3), noise=0.0) > 0  # that point only
    assert theorem22_rate(4, 1.0, np.eye(2)) == 0.0 and theorem22_rate(1, 1.0, np.eye(2)) == 4.0


def test_every_claim_of_the_chapter_states_its_falsifier_kind_and_the_forms_are_renamed():
    from resnet_nb.book import ledger
    from resnet_nb.hardt_ma import interface as hardt_ma_interface  # noqa: F401  (registers its claim)
    from resnet_nb.hardt_ma.linear import FORMS

    mine = [c for cid, c in ledger.all_claims().items() if cid in CLAIMS or cid == "hm-b2-meets-b1"]
    assert len(mine) == len(CLAIMS) + 1
    assert all(c.falsifier_kind == "plausible false statement" for c in mine)
    assert "exponent_only" in FORMS and "quoted" not in FORMS
    assert "appendix A.1" in ledger.all_claims()["hm-psd-special-case"].source


def test_theorem22_falsifier_refutes_the_statement_where_the_bound_is_vacuous():
    from resnet_nb.book import ledger
    from resnet_nb.hardt_ma.linear import claim_theorem22, theorem22_rate

    l, d = 4, 3
    A = critical_point_at_tau_one(l, d)
    R = np.diag([2.0, 1.0, 0.5])
    g2 = float((risk_gradient(A, R, np.eye(d)) ** 2).sum())
    ex = population_risk(A, R, np.eye(d), noise=0.0)
    # at tau = 1 the bound's comparison reads 0 >= 0 and cannot fail; the statement itself does
    assert g2 == 0.0 and ex > 0 and theorem22_rate(l, 1.0, np.eye(d)) * ex == 0.0
    assert claim_theorem22(falsify=True).value == 1.0
    assert "vacuous" in ledger.all_claims()["hm-thm22"].falsifier


def test_critical_point_at_tau_one_shape():
    A = critical_point_at_tau_one(2, 3)
    assert A.shape == (2, 3, 3) and np.array_equal(A, -np.stack([np.eye(3)] * 2))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: risk_gradient(A22, NOT_SQUARE, S2), "R must"),
        (lambda: risk_gradient(A22, S2, NOT_SQUARE), "Sigma must"),
        (lambda: population_risk(A22, NOT_SQUARE, S2), "R must"),
        (lambda: population_risk(A22, S2, NOT_SQUARE), "Sigma must"),
        (lambda: gradient_bound_sides(A22, NOT_SQUARE, S2, 0.5), "R must"),
        (lambda: gradient_bound_sides(A22, S2, NOT_SQUARE, 0.5), "Sigma must"),
        (lambda: gradient_bound_sides(A22, S2, S2, -0.1), "tau must"),
        (lambda: gradient_bound_sides(A22, S2, np.array([[1.0, 1e-9], [0.0, 1.0]]), 0.5), "Sigma must"),
        (lambda: gradient_bound_sides(A22, S2, np.diag([0.0, 1.0]), 0.5), "Sigma must"),
        (lambda: theorem22_rate(2, 0.5, NOT_SQUARE), "Sigma must"),
        (lambda: theorem22_rate(0, 0.5, S2), "l must"),
        (lambda: theorem22_rate(2, -1e-9, S2), "tau must"),
        (lambda: theorem22_rate(2, 1 + 1e-9, S2), "tau must"),
        (lambda: random_ball_point(0, 2, 0.5, np.random.default_rng(0)), "l must"),
        (lambda: random_ball_point(2, 0, 0.5, np.random.default_rng(0)), "d must"),
        (lambda: random_ball_point(2, 2, -0.1, np.random.default_rng(0)), "tau must"),
        (lambda: bound_ratios(0, 0.3, np.eye(3)), "l must"),
        (lambda: bound_ratios(2, 0.3, np.eye(3), per_kind=0), "per_kind must"),
        (lambda: bound_ratios(2, -0.1, np.eye(3)), "tau must"),
        (lambda: bound_ratios(2, 2.5, np.eye(3)), "tau must"),
        # tau is refused first, before Sigma's size (which is wrong too) is looked at
        (lambda: bound_ratios(2, 1.0, np.eye(2)), "tau must"),
        (lambda: bound_ratios(2, 0.3, NOT_SQUARE), "Sigma must"),
        (lambda: population_gd(NOT_SQUARE, 2), "R must"),
        (lambda: population_gd(S2, 0), "l must"),
        (lambda: population_gd(S2, 2, Sigma=NOT_SQUARE, steps=1), "Sigma must"),
        (lambda: population_gd(S2, 2, lr=0.0, steps=1), "lr must"),
        (lambda: population_gd(S2, 2, lr=-0.1, steps=1), "lr must"),
        (lambda: population_gd(S2, 2, steps=0), "steps must"),
        (lambda: adversarial_gradient_ratio(1, 2, 0.5, S2, steps=1), "l must"),
        (lambda: adversarial_gradient_ratio(2, 0, 0.5, S2, steps=1), "d must"),
        (lambda: adversarial_gradient_ratio(2, 2, -0.1, S2, steps=1), "tau must"),
        (lambda: adversarial_gradient_ratio(2, 2, 1.0, S2, steps=1), "tau must"),
        (lambda: adversarial_gradient_ratio(2, 2, 0.5, S2, steps=0), "steps must"),
        (lambda: adversarial_gradient_ratio(2, 2, 0.5, S2, steps=1, lr=0.0), "lr must"),
        (lambda: adversarial_gradient_ratio(2, 2, 0.5, S2, steps=1, lr=-0.1), "lr must"),
        (lambda: adversarial_gradient_ratio(2, 2, 0.5, NOT_SQUARE, steps=1), "Sigma must"),
        (lambda: adversarial_gradient_ratio(2, 3, 0.5, S2, steps=1), "Sigma must"),
        (lambda: adversarial_gradient_ratio(2, 2, 0.5, S2, steps=1, form="proof"), "form must"),
        (lambda: adversarial_gradient_ratio(2, 2, 0.5, S2, steps=1, start="middle"), "start must"),
        (
            lambda: adversarial_gradient_ratio(2, 2, 0.5, np.diag([-1.0, 1.0]), steps=1),
            "Sigma must",
        ),
        (
            lambda: adversarial_gradient_ratio(2, 2, 0.5, np.diag([0.0, 1.0]), steps=1),
            "Sigma must",
        ),
    ],
)
def test_bad_arguments_are_refused_with_a_message_naming_them(call, message):
    # the message names the argument, as a word (its wording beyond that is not pinned)
    with pytest.raises(ValueError, match=r"\b" + message):
        call()


def test_gradient_bound_sides_needs_tau_at_least_the_largest_factor_norm():
    tau = 0.4
    A = np.zeros((2, 2, 2))
    A[1] = np.diag([1.5 * tau, 0.0])  # |||A||| = 1.5 tau
    with pytest.raises(ValueError, match=r"\btau must"):
        gradient_bound_sides(A, S2, S2, tau)
    A[1] = np.diag([tau * (1 + 1e-9), 0.0])
    with pytest.raises(ValueError, match=r"\btau must"):
        gradient_bound_sides(A, S2, S2, tau)
    A[1] = np.diag([tau, 0.0])  # on the sphere: accepted
    assert gradient_bound_sides(A, S2, S2, tau)["lhs"] > 0


def test_smallest_accepted_sizes():
    assert len(bound_ratios(1, 0.3, np.eye(3), per_kind=1)["corrected"]) == 3


def test_population_risk_adds_d_times_the_noise_variance():
    rng = np.random.default_rng(0)
    A, R = 0.3 * rng.standard_normal((2, 3, 3)), rng.standard_normal((3, 3))
    Sigma = np.diag([0.5, 1.0, 2.0])
    excess = population_risk(A, R, Sigma, noise=0.0)
    E = residual_product(A) - R
    assert excess == pytest.approx(np.trace(E @ Sigma @ E.T), rel=1e-12)
    for noise in (0.5, 2.0, -3.0):
        assert population_risk(A, R, Sigma, noise=noise) == pytest.approx(excess + 3 * noise**2, rel=1e-12)


@pytest.mark.parametrize("kind", KINDS)
def test_random_ball_points_have_the_defining_property_of_their_kind(kind):
    rng = np.random.default_rng(4)
    for l, d, tau in ((3, 3, 0.7), (2, 2, 0.25), (1, 4, 0.5)):
        A = random_ball_point(l, d, tau, rng, kind)
        assert A.shape == (l, d, d)
        assert max_spectral_norm(A) == pytest.approx(tau, rel=1e-12)
        _assert_kind(A, tau, kind)


def test_lemma24_helper_reports_the_difference_of_the_orders_and_the_largest_entry():
    worst_c, differ_c, gmax_c = hm.lemma24_worst("corrected")
    worst_p, differ_p, gmax_p = hm.lemma24_worst("printed")
    assert worst_c < 1e-12  # the corrected order is autograd's gradient
    # the corrected order being exact, the difference of the two orders is the printed one's error
    assert differ_p == pytest.approx(worst_p, rel=1e-9) and differ_c == pytest.approx(worst_p, rel=1e-9)
    assert gmax_c == gmax_p > 1.0


def test_gradient_bound_survey_rows_are_the_smallest_ratios_over_points_of_each_kind(monkeypatch):
    calls = _record(monkeypatch, "gradient_bound_sides")
    Sigmas = {"S": S2, "I3": np.eye(3)}
    ls, taus, points = [1, 3], [0.2, 0.6], 2
    rows = gradient_bound_survey(ls, taus, Sigmas, points=points, seed=5)
    assert [(r["l"], r["tau"], r["Sigma"]) for r in rows] == [(l, t, n) for l in ls for t in taus for n in Sigmas]
    n = 3 * points
    assert len(calls) == n * len(rows)
    for k, row in enumerate(rows):
        assert set(row) == {"l", "tau", "Sigma"} | {f"worst_{f}" for f in FORMS}
        cell = calls[k * n : (k + 1) * n]
        _check_calls(cell, row["l"], row["tau"], Sigmas[row["Sigma"]], points)
        for f in FORMS:
            assert row[f"worst_{f}"] == min(s["lhs"] / s[f] for _, s in cell)


def test_gradient_bound_survey_is_seeded():
    one = {"I": np.eye(1)}
    first = gradient_bound_survey([2], [0.3], one, points=1, seed=0)
    assert first == gradient_bound_survey([2], [0.3], one, points=1, seed=0)
    assert first != gradient_bound_survey([2], [0.3], one, points=1, seed=1)


def test_gradient_bound_survey_checks_each_covariance():
    with pytest.raises(ValueError, match=r"\bSigma must"):
        gradient_bound_survey([2], [0.3], {"I": np.eye(2), "bad": NOT_SQUARE}, points=1)


def test_bound_ratios_are_the_two_forms_at_points_of_each_kind(monkeypatch):
    calls = _record(monkeypatch, "gradient_bound_sides")
    out = bound_ratios(3, 0.45, S2, d=2, per_kind=2, seed=4)
    assert set(out) == {"printed", "corrected"}
    _check_calls(calls, 3, 0.45, S2, 2)
    for form in out:
        assert np.array_equal(out[form], [s["lhs"] / s[form] for _, s in calls])


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("d", [1, 2])
def test_adversary_returns_a_point_of_the_ball_and_its_worst_error(form, d):
    Sigma, l, tau = S2[:d, :d], 2, 0.4
    r = adversarial_gradient_ratio(l, d, tau, Sigma, form=form, steps=2)
    assert set(r) == {"ratio", "A", "E", "form", "l", "tau"}
    assert r["form"] == form and r["l"] == l and r["tau"] == tau
    A, E = r["A"], r["E"]
    assert A.dtype == np.float64 and A.shape == (l, d, d) and E.shape == (d, d)
    assert max_spectral_norm(A) <= tau * (1 + 1e-12)
    assert np.linalg.norm(E) == pytest.approx(1.0, rel=1e-12)
    s = gradient_bound_sides(A, residual_product(A) - E, Sigma, tau)
    assert r["ratio"] == pytest.approx(s["lhs"] / s[form], rel=1e-12)
    assert r["ratio"] == pytest.approx(_min_ratio(A, Sigma, tau, form), rel=1e-8)


def test_adversary_at_radius_zero_finds_the_tight_case():
    """At A = 0 the corrected bound is an equality for E = e v^T (v: Sigma's bottom eigenvector)."""
    r = adversarial_gradient_ratio(3, 2, 0.0, S2, steps=1)
    assert np.array_equal(r["A"], np.zeros((3, 2, 2)))
    assert r["ratio"] == pytest.approx(1.0, rel=1e-12)


def test_adversary_is_seeded():
    a = adversarial_gradient_ratio(2, 2, 0.5, S2, steps=1)
    b = adversarial_gradient_ratio(2, 2, 0.5, S2, steps=1, seed=0)
    c = adversarial_gradient_ratio(2, 2, 0.5, S2, steps=1, seed=1)
    assert a["ratio"] == b["ratio"] and np.array_equal(a["A"], b["A"]) and np.array_equal(a["E"], b["E"])
    assert not np.array_equal(a["A"], c["A"])


def test_adversary_takes_a_projected_adam_step_of_size_lr_on_the_log_of_the_smallest_ratio(monkeypatch):
    """Adam's first step moves every entry by lr against the sign of the gradient; then the
    singular values are clipped at tau. The gradient is taken by central differences of the
    smallest ratio computed independently (_min_ratio)."""
    seen = _record(monkeypatch, "bound_sides_from_error")
    l, d, tau = 2, 2, 0.5
    adversarial_gradient_ratio(l, d, tau, S2, steps=1, lr=0.02)
    assert len(seen) == 2
    A0, A1 = seen[0][0][0], seen[1][0][0]
    h, g = 1e-6, np.zeros_like(A0)
    for idx in np.ndindex(A0.shape):
        D = np.zeros_like(A0)
        D[idx] = h
        up, down = (_min_ratio(A0 + s * D, S2, 0.9, "corrected") for s in (1, -1))
        g[idx] = (np.log(up) - np.log(down)) / (2 * h)
    assert np.abs(g).min() > 1e-4  # every sign is well defined
    assert np.abs(A1 - _proj(A0 - 0.02 * np.sign(g), tau)).max() < 1e-6


def test_adversary_evaluates_each_of_its_iterates_once(monkeypatch):
    seen = _record(monkeypatch, "bound_sides_from_error")
    r = adversarial_gradient_ratio(2, 2, 0.5, S2, steps=3)
    assert len(seen) == 4
    assert min(s["lhs"] / s["corrected"] for _, s in seen) == r["ratio"]
    assert all(max_spectral_norm(args[0]) <= 0.5 * (1 + 1e-12) for args, _ in seen)


@pytest.mark.parametrize("cid", ["hm-lemma24-order", "hm-eq23", "hm-thm22"])
def test_claim_holds_and_its_falsifier_is_rejected(cid, check_claim):
    c = check_claim(cid)
    assert c.kind == "claim" and c.source.startswith(("Hardt & Ma", "the book"))


@pytest.mark.parametrize(("l", "tau"), [(1, 0.0), (2, 0.3), (5, 0.7), (3, 1.0)])
def test_theorem22_rate_is_the_proofs_constant_with_the_smallest_eigenvalue_of_sigma(l, tau):
    # mu = 4 l (1 - tau)^(2l - 2) sigma_min(Sigma), on the closed interval 0 <= tau <= 1
    Q = np.linalg.qr(np.random.default_rng(l).standard_normal((3, 3)))[0]
    Sigma = Q @ np.diag([2.0, 0.25, 5.0]) @ Q.T
    assert theorem22_rate(l, tau, Sigma) == pytest.approx(4 * l * (1 - tau) ** (2 * l - 2) * 0.25, rel=1e-12)


@pytest.mark.parametrize("form", ["corrected", "printed", "exponent_only", "via_E"])
def test_adversary_reports_the_worst_error_at_the_point_it_returns(form):
    # at the returned A both sides are quadratic forms in vec(E); the returned ratio must be their
    # smallest generalised eigenvalue, found here by polarisation and scipy, and reached by the E returned
    l, d, tau, Sigma = 3, 2, 0.4, np.array([[2.0, 0.3], [0.3, 0.7]])
    r = adversarial_gradient_ratio(l, d, tau, Sigma, form=form, steps=3, seed=2)
    A = r["A"]

    def sides(E):
        return gradient_bound_sides(A, residual_product(A) - E, Sigma, tau)

    basis = [np.eye(d * d)[k].reshape(d, d) for k in range(d * d)]
    forms = {}
    for key in ("lhs", form):
        Q = np.empty((d * d, d * d))
        for i, Ei in enumerate(basis):
            for j, Ej in enumerate(basis):
                Q[i, j] = (sides(Ei + Ej)[key] - sides(Ei - Ej)[key]) / 4
        forms[key] = Q
    smallest = scipy.linalg.eigh(forms["lhs"], forms[form], eigvals_only=True)[0]
    assert r["ratio"] == pytest.approx(smallest, rel=1e-8)
    s = sides(r["E"])
    assert s["lhs"] / s[form] == pytest.approx(r["ratio"], rel=1e-12)
    assert np.linalg.norm(r["E"]) == pytest.approx(1.0, rel=1e-14)
    assert max_spectral_norm(A) <= tau * (1 + 1e-12)
    assert (r["form"], r["l"], r["tau"]) == (form, l, tau)


def test_theorem22_points_cover_the_stated_grid_and_end_at_the_extremal_points():
    pts = theorem22_points()
    assert len(pts) == 7 * 3 * 3 + 3
    grid = pts[:-3]
    assert sorted({A.shape[0] for A, *_ in grid}) == list(range(2, 9))
    assert sorted({tau for *_, tau in grid}) == [0.3, 0.6, 0.899]
    for A, _, Sigma, tau in grid:
        assert max_spectral_norm(A) <= tau * (1 + 1e-12)
        assert np.linalg.eigvalsh(Sigma)[0] >= 0.05 * (1 - 1e-12)
    for (A, R, Sigma, tau), l in zip(pts[-3:], (6, 7, 8)):
        # A_i = -tau I, E = e v^T with v the bottom eigenvector of Sigma: the bound holds with equality
        assert tau == 0.899 and A.shape == (l, 2, 2)
        np.testing.assert_array_equal(A, np.broadcast_to(-tau * np.eye(2), (l, 2, 2)))
        assert np.linalg.eigvalsh(Sigma)[0] == pytest.approx(0.05)
        g2 = float((risk_gradient(A, R, Sigma) ** 2).sum())
        ex = population_risk(A, R, Sigma, noise=0.0)
        assert g2 == pytest.approx(theorem22_rate(l, tau, Sigma) * ex, rel=1e-9)


def test_adversarial_survey_has_one_row_per_setting_each_the_searchs_ratio():
    from resnet_nb.hardt_ma.linear import adversarial_gradient_ratio, adversarial_survey

    Sigmas = {"I": np.eye(3), "2I": 2 * np.eye(3)}
    t = adversarial_survey(Sigmas, ls=(2,), taus=(0.5,), starts=("random", "shrink"), steps=5)
    assert len(t) == 4 and set(t.Sigma) == {"I", "2I"} and set(t.start) == {"random", "shrink"}
    row = t[(t.Sigma == "2I") & (t.start == "shrink")].iloc[0]
    direct = adversarial_gradient_ratio(2, 3, 0.5, 2 * np.eye(3), steps=5, seed=2, start="shrink")
    assert row.ratio == direct["ratio"]


@pytest.mark.parametrize(("l", "tau"), [(1, 0.0), (3, 0.4), (6, 0.8)])
def test_each_forms_right_hand_side_is_its_constant_times_the_excess_or_the_squared_error(l, tau):
    rng = np.random.default_rng(l)
    A = random_ball_point(l, 2, tau, rng, "gaussian")
    C = rng.standard_normal((2, 2))
    Sigma = C @ C.T + 0.3 * np.eye(2)
    E = rng.standard_normal((2, 2))
    s = gradient_bound_sides(A, residual_product(A) - E, Sigma, tau)
    smin, excess = np.linalg.eigvalsh(Sigma)[0], np.trace(E @ Sigma @ E.T)
    assert s["excess"] == pytest.approx(excess, rel=1e-12)
    c = 4 * l * (1 - tau) ** (2 * l - 2)
    expected = dict(
        printed=4 * l * (1 - tau) ** (l - 1) * smin**2 * excess,
        exponent_only=c * smin**2 * excess,
        via_E=c * smin**2 * (E**2).sum(),
        corrected=c * smin * excess,
    )
    for form, value in expected.items():
        assert s[form] == pytest.approx(value, rel=1e-12), form


@pytest.mark.parametrize("form", FORMS)
def test_adversarys_eigenvalue_is_the_ratio_of_the_chosen_form_at_each_iterate(form, monkeypatch):
    """The search's generalised eigenproblem carries the right-hand side's constant, so the
    eigenvalue it descends is lhs / rhs itself, not a multiple of it."""
    seen, orig = [], hm.worst_error
    monkeypatch.setattr(hm, "worst_error", lambda *a: seen.append(orig(*a)) or seen[-1])
    sides = _record(monkeypatch, "bound_sides_from_error")
    Sigma = np.array([[2.0, 0.3], [0.3, 0.7]])
    hm.adversarial_gradient_ratio(3, 2, 0.4, Sigma, form=form, steps=2, seed=1)
    assert len(seen) == len(sides) == 3
    for (r, _), (_, s) in zip(seen, sides):
        assert float(r.detach()) == pytest.approx(s["lhs"] / s[form], rel=1e-9)
