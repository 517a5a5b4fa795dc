"""Properties of Theorem 2.2's landscape helpers (population risk, Lemma 2.4's gradient, the sides
of Eq. (2.3), the random points of the ball, the adversary, the surveys and gradient descent)
that the other tests left unchecked; each was found by a mutant of ``resnet_nb/hardt_ma/linear.py``
that survived them (see results/mutation/report.md). Second half of the module's survivors; the
first half is tests/test_kill_hardt_ma_linear.py."""
import re

import numpy as np
import pytest
import scipy.linalg

from resnet_nb.hardt_ma import linear as hm
from resnet_nb.hardt_ma.linear import (FORMS, adversarial_gradient_ratio, bound_ratios,
                                       gradient_bound_sides, gradient_bound_survey,
                                       max_spectral_norm, population_gd, population_risk,
                                       random_ball_point, residual_product, risk_gradient)

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
            np.linalg.eigvalsh(A[0]), [-tau] + [0.0] * (d - 1), atol=1e-14)
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


# -- arguments are checked at the door, with a message naming the argument -------------------

A22 = np.zeros((2, 2, 2))


@pytest.mark.parametrize("call, message", [
    (lambda: risk_gradient(A22, NOT_SQUARE, S2), "R must be a non-empty square matrix"),
    (lambda: risk_gradient(A22, S2, NOT_SQUARE), "Sigma must be a non-empty square matrix"),
    (lambda: population_risk(A22, NOT_SQUARE, S2), "R must be a non-empty square matrix"),
    (lambda: population_risk(A22, S2, NOT_SQUARE), "Sigma must be a non-empty square matrix"),
    (lambda: gradient_bound_sides(A22, NOT_SQUARE, S2, 0.5), "R must be a non-empty square matrix"),
    (lambda: gradient_bound_sides(A22, S2, NOT_SQUARE, 0.5), "Sigma must be a non-empty square matrix"),
    (lambda: gradient_bound_sides(A22, S2, S2, -0.1), r"tau must lie in \[0.0, 1.0\), got -0.1"),
    (lambda: gradient_bound_sides(A22, S2, np.array([[1.0, 1e-9], [0.0, 1.0]]), 0.5), "Sigma must be symmetric"),
    (lambda: gradient_bound_sides(A22, S2, np.diag([0.0, 1.0]), 0.5), "Sigma must be positive definite"),
    (lambda: random_ball_point(0, 2, 0.5, np.random.default_rng(0)), "l must be an integer >= 1"),
    (lambda: random_ball_point(2, 0, 0.5, np.random.default_rng(0)), "d must be an integer >= 1"),
    (lambda: random_ball_point(2, 2, -0.1, np.random.default_rng(0)), r"tau must lie in \[0.0, inf\], got -0.1"),
    (lambda: bound_ratios(0, 0.3, np.eye(3)), "l must be an integer >= 1"),
    (lambda: bound_ratios(2, 0.3, np.eye(3), per_kind=0), "per_kind must be an integer >= 1"),
    (lambda: bound_ratios(2, -0.1, np.eye(3)), r"tau must lie in \[0.0, 1.0\), got -0.1"),
    (lambda: bound_ratios(2, 2.5, np.eye(3)), r"tau must lie in \[0.0, 1.0\), got 2.5"),
    # tau is refused first, before Sigma's size (which is wrong too) is looked at
    (lambda: bound_ratios(2, 1.0, np.eye(2)), r"tau must lie in \[0.0, 1.0\), got 1.0"),
    (lambda: bound_ratios(2, 0.3, NOT_SQUARE), "Sigma must be a non-empty square matrix"),
    (lambda: population_gd(NOT_SQUARE, 2), "R must be a non-empty square matrix"),
    (lambda: population_gd(S2, 0), "l must be an integer >= 1"),
    (lambda: population_gd(S2, 2, Sigma=NOT_SQUARE, steps=1), "Sigma must be a non-empty square matrix"),
    (lambda: population_gd(S2, 2, lr=0.0, steps=1), r"lr must lie in \(0.0, inf\], got 0.0"),
    (lambda: population_gd(S2, 2, lr=-0.1, steps=1), r"lr must lie in \(0.0, inf\], got -0.1"),
    (lambda: population_gd(S2, 2, steps=0), "steps must be an integer >= 1"),
    (lambda: adversarial_gradient_ratio(1, 2, 0.5, S2, steps=1), "l must be an integer >= 2"),
    (lambda: adversarial_gradient_ratio(2, 0, 0.5, S2, steps=1), "d must be an integer >= 1"),
    (lambda: adversarial_gradient_ratio(2, 2, -0.1, S2, steps=1), r"tau must lie in \[0.0, 1.0\), got -0.1"),
    (lambda: adversarial_gradient_ratio(2, 2, 1.0, S2, steps=1), r"tau must lie in \[0.0, 1.0\), got 1.0"),
    (lambda: adversarial_gradient_ratio(2, 2, 0.5, S2, steps=0), "steps must be an integer >= 1"),
    (lambda: adversarial_gradient_ratio(2, 2, 0.5, S2, steps=1, lr=0.0), r"lr must lie in \(0.0, inf\], got 0.0"),
    (lambda: adversarial_gradient_ratio(2, 2, 0.5, S2, steps=1, lr=-0.1), r"lr must lie in \(0.0, inf\], got -0.1"),
    (lambda: adversarial_gradient_ratio(2, 2, 0.5, NOT_SQUARE, steps=1), "Sigma must be a non-empty square matrix"),
    (lambda: adversarial_gradient_ratio(2, 2, 0.5, np.diag([-1.0, 1.0]), steps=1), "Sigma must be positive definite"),
    (lambda: adversarial_gradient_ratio(2, 2, 0.5, np.diag([0.0, 1.0]), steps=1), "Sigma must be positive definite"),
])
def test_bad_arguments_are_refused_with_a_message_naming_them(call, message):
    with pytest.raises(ValueError, match="^" + message):
        call()


def test_gradient_bound_sides_needs_tau_at_least_the_largest_factor_norm():
    tau = 0.4
    A = np.zeros((2, 2, 2))
    A[1] = np.diag([1.5 * tau, 0.0])  # |||A||| = 1.5 tau
    with pytest.raises(ValueError, match="^tau must be >= "):
        gradient_bound_sides(A, S2, S2, tau)
    A[1] = np.diag([tau * (1 + 1e-9), 0.0])
    with pytest.raises(ValueError, match="^tau must be >= "):
        gradient_bound_sides(A, S2, S2, tau)
    A[1] = np.diag([tau, 0.0])  # on the sphere: accepted
    assert gradient_bound_sides(A, S2, S2, tau)["lhs"] > 0


def test_smallest_accepted_sizes():
    assert len(bound_ratios(1, 0.3, np.eye(3), per_kind=1)["corrected"]) == 3


# -- population risk and random points of the ball ---------------------------------------------

def test_population_risk_adds_d_times_the_noise_variance():
    rng = np.random.default_rng(0)
    A, R = 0.3 * rng.standard_normal((2, 3, 3)), rng.standard_normal((3, 3))
    Sigma = np.diag([0.5, 1.0, 2.0])
    excess = population_risk(A, R, Sigma, noise=0.0)
    E = residual_product(A) - R
    assert excess == pytest.approx(np.trace(E @ Sigma @ E.T), rel=1e-12)
    for noise in (0.5, 2.0, -3.0):
        assert population_risk(A, R, Sigma, noise=noise) == pytest.approx(excess + 3 * noise ** 2, rel=1e-12)


@pytest.mark.parametrize("kind", KINDS)
def test_random_ball_points_have_the_defining_property_of_their_kind(kind):
    rng = np.random.default_rng(4)
    for l, d, tau in ((3, 3, 0.7), (2, 2, 0.25), (1, 4, 0.5)):
        A = random_ball_point(l, d, tau, rng, kind)
        assert A.shape == (l, d, d)
        assert max_spectral_norm(A) == pytest.approx(tau, rel=1e-12)
        _assert_kind(A, tau, kind)


# -- the ledger's helper for Lemma 2.4 ----------------------------------------------------------

def test_lemma24_helper_reports_the_difference_of_the_orders_and_the_largest_entry():
    worst_c, differ_c, gmax_c = hm._lemma24_worst("corrected")
    worst_p, differ_p, gmax_p = hm._lemma24_worst("printed")
    assert worst_c < 1e-12  # the corrected order is autograd's gradient
    # the corrected order being exact, the difference of the two orders is the printed one's error
    assert differ_p == pytest.approx(worst_p, rel=1e-9) and differ_c == pytest.approx(worst_p, rel=1e-9)
    assert gmax_c == gmax_p > 1.0


# -- gradient descent on the population risk ---------------------------------------------------

def test_population_gd_is_gradient_descent_on_the_risk_of_the_given_covariance():
    rng = np.random.default_rng(1)
    R = np.array([[0.8, 0.3], [-0.2, 1.1]])
    A0 = 0.1 * rng.standard_normal((2, 2, 2))
    lr, steps = 0.05, 3
    out = population_gd(R, 2, Sigma=S2, lr=lr, steps=steps, A0=A0)
    assert set(out) == {"A", "excess", "norm", "grad_norm", "curve"}
    A, curve = A0.copy(), []
    for _ in range(steps):
        curve.append(population_risk(A, R, S2, noise=0.0))
        A = A - lr * risk_gradient(A, R, S2)
    curve.append(population_risk(A, R, S2, noise=0.0))
    assert np.allclose(out["A"], A, rtol=1e-12, atol=1e-14)
    assert np.allclose(out["curve"], curve, rtol=1e-12)
    assert out["excess"] == out["curve"][-1]
    assert out["grad_norm"] == pytest.approx(np.linalg.norm(risk_gradient(A, R, S2)), rel=1e-12)
    assert out["norm"] == pytest.approx(max_spectral_norm(A), rel=1e-12)
    assert np.array_equal(A0, 0.1 * np.random.default_rng(1).standard_normal((2, 2, 2)))  # not modified in place


def test_population_gd_defaults_are_the_documented_ones():
    R = np.array([[0.8, 0.3], [-0.2, 1.1]])
    a = population_gd(R, 2, steps=2)
    b = population_gd(R, 2, Sigma=np.eye(2), lr=0.05, steps=2, A0=np.zeros((2, 2, 2)))
    assert np.array_equal(a["A"], b["A"]) and np.array_equal(a["curve"], b["curve"])
    assert len(population_gd(np.array([[0.5]]), 1)["curve"]) == 4001  # steps = 4000 by default


# -- the surveys -------------------------------------------------------------------------------

def _check_calls(calls, l, tau, Sigma, points):
    """points calls of each kind, in order, at the right l, tau, Sigma; Gaussian errors E."""
    d = Sigma.shape[0]
    assert len(calls) == 3 * points
    for j, (args, _) in enumerate(calls):
        A, R, S, t = args
        assert A.shape == (l, d, d) and t == tau and np.array_equal(S, Sigma)
        _assert_kind(A, tau, KINDS[j // points])
        assert np.linalg.matrix_rank(residual_product(A) - R) == d  # a Gaussian error, full rank


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
        cell = calls[k * n:(k + 1) * n]
        _check_calls(cell, row["l"], row["tau"], Sigmas[row["Sigma"]], points)
        for f in FORMS:
            assert row[f"worst_{f}"] == min(s["lhs"] / s[f] for _, s in cell)


def test_gradient_bound_survey_is_seeded_with_documented_defaults(monkeypatch, capsys):
    one = {"I": np.eye(1)}
    first = gradient_bound_survey([2], [0.3], one, points=1)
    assert first == gradient_bound_survey([2], [0.3], one, points=1, seed=0)
    assert first != gradient_bound_survey([2], [0.3], one, points=1, seed=1)
    assert capsys.readouterr().err == ""  # no progress bar unless asked
    calls = _record(monkeypatch, "gradient_bound_sides")
    gradient_bound_survey([2], [0.3], one)
    assert len(calls) == 3 * 20  # points = 20 by default


def test_gradient_bound_survey_progress_bar_is_shown_when_asked(capsys):
    one = {"I": np.eye(1)}
    quiet = gradient_bound_survey([2, 3], [0.3], one, points=1)
    assert capsys.readouterr().err == ""
    loud = gradient_bound_survey([2, 3], [0.3], one, points=1, progress=True)
    assert re.search(r"(^|\r)gradient bound survey: ", capsys.readouterr().err)
    assert loud == quiet


def test_gradient_bound_survey_checks_each_covariance():
    with pytest.raises(ValueError, match="^Sigma must be a non-empty square matrix"):
        gradient_bound_survey([2], [0.3], {"I": np.eye(2), "bad": NOT_SQUARE}, points=1)


def test_bound_ratios_are_the_two_forms_at_points_of_each_kind(monkeypatch):
    calls = _record(monkeypatch, "gradient_bound_sides")
    out = bound_ratios(3, 0.45, S2, d=2, per_kind=2, seed=4)
    assert set(out) == {"printed", "corrected"}
    _check_calls(calls, 3, 0.45, S2, 2)
    for form in out:
        assert np.array_equal(out[form], [s["lhs"] / s[form] for _, s in calls])


def test_bound_ratios_defaults_are_the_documented_ones():
    out = bound_ratios(1, 0.3, np.eye(3))
    assert len(out["printed"]) == len(out["corrected"]) == 3 * 60
    a = bound_ratios(2, 0.3, np.eye(3), per_kind=1)
    b = bound_ratios(2, 0.3, np.eye(3), per_kind=1, seed=0)
    assert all(np.array_equal(a[k], b[k]) for k in a)


# -- the adversary ------------------------------------------------------------------------------

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
    seen = _record(monkeypatch, "_sides_from_error")
    l, d, tau = 2, 2, 0.5
    adversarial_gradient_ratio(l, d, tau, S2, steps=1)  # lr = 0.02 by default
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


@pytest.mark.parametrize("progress", [False, True])
def test_adversary_evaluates_each_of_its_iterates_once(monkeypatch, capsys, progress):
    seen = _record(monkeypatch, "_sides_from_error")
    r = adversarial_gradient_ratio(2, 2, 0.5, S2, steps=3, progress=progress)
    err = capsys.readouterr().err
    assert len(seen) == 4
    assert min(s["lhs"] / s["corrected"] for _, s in seen) == r["ratio"]
    assert all(max_spectral_norm(args[0]) <= 0.5 * (1 + 1e-12) for args, _ in seen)
    assert ("adversary l=2 tau=0.5" in err) == progress and (err == "") == (not progress)


def test_adversary_default_is_300_steps_without_a_progress_bar(monkeypatch, capsys):
    seen = _record(monkeypatch, "_sides_from_error")
    adversarial_gradient_ratio(2, 1, 0.5, np.array([[2.0]]))
    assert len(seen) == 301
    assert capsys.readouterr().err == ""
