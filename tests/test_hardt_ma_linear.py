"""Hardt & Ma section 2: Theorem 2.1's construction, Lemma 2.4's gradient, Theorem 2.2's bound."""
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from resnet_nb.hardt_ma.linear import (adversarial_gradient_ratio, critical_point_at_tau_one,
                                       gamma_of, gradient_bound_sides, max_spectral_norm,
                                       min_max_norm_lower_bound, population_risk,
                                       random_ball_point, residual_product, risk_gradient,
                                       theorem21_bound, theorem21_construction)


def _positive_det(rng, d, scale=1.0):
    R = scale * rng.standard_normal((d, d))
    if np.linalg.det(R) < 0:
        R[:, 0] *= -1
    return R


@settings(max_examples=40, deadline=None)
@given(d=st.integers(1, 6), l=st.integers(1, 60), seed=st.integers(0, 10_000),
       scale=st.floats(0.1, 5.0))
def test_theorem21_product_and_bound(d, l, seed, scale):
    R = _positive_det(np.random.default_rng(seed), d, scale)
    A, info = theorem21_construction(R, l)
    assert A.shape == (l, d, d)
    assert np.abs(residual_product(A) - R).max() <= 1e-10 * max(1.0, np.abs(R).max())
    g = gamma_of(R)
    if l >= 3 * g and l >= 2:
        assert max_spectral_norm(A) <= theorem21_bound(g, l, "iclr") + 1e-12
        assert max_spectral_norm(A) <= theorem21_bound(g, l, "summary") + 1e-12


@pytest.mark.parametrize("R", [
    -np.eye(2),  # rotation by pi: eigenvalues -1, -1 (det +1)
    -np.eye(4),
    np.diag([-1.0, -1.0, 1.0]),
    np.array([[0.0, -1.0], [1.0, 0.0]]),  # rotation by pi/2
    np.diag([1e-3, 1e3]),  # badly conditioned stretch
    np.eye(3),
])
def test_theorem21_adversarial_matrices(R):
    for l in (2, 5, 40):
        A, _ = theorem21_construction(R, l)
        assert np.abs(residual_product(A) - R).max() <= 1e-10 * max(1.0, np.abs(R).max())
        g = gamma_of(R)
        if l >= 3 * g:
            assert max_spectral_norm(A) <= theorem21_bound(g, l) + 1e-12


def test_rotation_by_pi_norm_is_exact():
    A, info = theorem21_construction(-np.eye(2), 10)
    assert math.isclose(max_spectral_norm(A), 2 * math.sin(math.pi / 20), rel_tol=1e-12)


def test_negative_determinant_is_refused_and_every_small_product_has_positive_det():
    R = np.diag([-1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="positive determinant"):
        theorem21_construction(R, 10)
    assert min_max_norm_lower_bound(R) == 1.0
    rng = np.random.default_rng(0)
    for _ in range(200):
        A = random_ball_point(5, 3, 0.999, rng)
        assert np.linalg.det(residual_product(A)) > 0


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="square"):
        theorem21_construction(np.ones((2, 3)), 3)
    with pytest.raises(ValueError, match="l must be"):
        theorem21_construction(np.eye(2), 0)
    with pytest.raises(ValueError, match="version"):
        theorem21_bound(1.0, 3, "v2")
    with pytest.raises(ValueError, match="tau"):
        gradient_bound_sides(np.zeros((2, 2, 2)), np.eye(2), np.eye(2), 1.0)
    with pytest.raises(ValueError, match="tau must be >="):
        gradient_bound_sides(0.5 * np.ones((1, 2, 2)), np.eye(2), np.eye(2), 0.1)
    with pytest.raises(ValueError, match="positive definite"):
        gradient_bound_sides(np.zeros((2, 2, 2)), np.eye(2), np.diag([1.0, -1.0]), 0.5)


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
@given(l=st.integers(1, 8), d=st.integers(1, 4), tau=st.one_of(st.just(0.0), st.floats(1e-6, 0.95)),
       seed=st.integers(0, 10_000),
       scale=st.sampled_from([0.01, 1.0, 100.0]), kind=st.sampled_from(["gaussian", "shrink", "rank_one"]))
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


@settings(max_examples=20, deadline=None)
@given(d=st.integers(1, 5), l=st.integers(3, 60), seed=st.integers(0, 10_000))
def test_paper_recipe_product_and_bound(d, l, seed):
    from resnet_nb.hardt_ma.linear import random_positive_det, theorem21_paper_recipe
    rng = np.random.default_rng(seed)
    R = random_positive_det(d, rng, gamma=float(rng.uniform(0, 3)))
    A, info = theorem21_paper_recipe(R, l)
    assert np.abs(residual_product(A) - R).max() <= 1e-10 * max(1.0, np.abs(R).max())
    if l >= 3 * info["gamma"]:
        assert max_spectral_norm(A) <= theorem21_bound(info["gamma"], l) + 1e-12


def test_rotation_step_norm_printed_formula_is_wrong_but_bound_holds():
    from resnet_nb.hardt_ma.linear import rotation_step_norm
    for phi in np.linspace(-math.pi, math.pi, 41):
        r = rotation_step_norm(float(phi))
        assert math.isclose(r["norm"], r["formula"], rel_tol=1e-9, abs_tol=1e-12)
        assert r["norm"] <= abs(phi) + 1e-12
    r = rotation_step_norm(math.pi)
    assert r["norm"] == pytest.approx(2.0) and r["printed"] < 1e-15


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
    from resnet_nb.hardt_ma import linear as hm

    # The chapter's histogram: the corrected form of Eq. (2.3) is >= 1 at every sampled point;
    # the printed form is violated once Sigma is scaled up.
    S = np.diag([0.5, 1.0, 2.0])
    large = hm.bound_ratios(4, 0.3, 100 * S, per_kind=20, seed=0)
    small = hm.bound_ratios(4, 0.3, 0.01 * S, per_kind=20, seed=0)
    assert large["corrected"].min() >= 1.0 - 1e-12 and small["corrected"].min() >= 1.0 - 1e-12
    assert large["printed"].min() < 1.0
    again = hm.bound_ratios(4, 0.3, 100 * S, per_kind=20, seed=0)
    assert np.array_equal(again["printed"], large["printed"])  # seeded
    with pytest.raises(ValueError, match="tau must lie"):
        hm.bound_ratios(4, 1.0, S)
    with pytest.raises(ValueError, match="Sigma must be 3 x 3"):
        hm.bound_ratios(4, 0.3, np.eye(2))


@pytest.mark.parametrize("scale, l, tau", [(1.0, 4, 0.5), (0.01, 4, 0.5), (0.01, 12, 0.6), (100.0, 3, 0.3)])
def test_printed_form_at_the_extremal_point_is_one_minus_tau_power_over_sigma_min(scale, l, tau):
    """Exercise hm-ex-whiten: at A_i = -tau I, E = e v^T the printed form's ratio is
    (1 - tau)^(l - 1) / sigma_min(Sigma): below 1 for Sigma = I, above 1 for a small Sigma unless
    (1 - tau)^(l - 1) < sigma_min."""
    from resnet_nb.hardt_ma import linear as hm

    Sigma = scale * np.diag([0.5, 1.0, 2.0])
    A = hm.random_ball_point(l, 3, tau, np.random.default_rng(0), "shrink")
    v = np.array([1.0, 0.0, 0.0])  # eigenvector of sigma_min
    s = gradient_bound_sides(A, residual_product(A) - np.outer([0.3, -1.0, 2.0], v), Sigma, tau)
    predicted = (1 - tau) ** (l - 1) / (0.5 * scale)
    assert math.isclose(s["lhs"] / s["printed"], predicted, rel_tol=1e-9)
    assert math.isclose(s["lhs"] / s["corrected"], 1.0, rel_tol=1e-9)


def test_version_labels():
    assert theorem21_bound(1.0, 10, "iclr") == theorem21_bound(1.0, 10)
    assert theorem21_bound(1.0, 10, "iclr") == pytest.approx(2 * (math.sqrt(math.pi) + math.sqrt(3)) ** 2 / 10)
    assert theorem21_bound(1.0, 10, "summary") == pytest.approx((4 * math.pi + 3) / 10)
    for old in ("v1", "v3"):  # arXiv version numbers: the book cannot say which has which constant
        with pytest.raises(ValueError, match="version must be one of"):
            theorem21_bound(1.0, 10, old)


def test_population_gd_from_zero_stalls_for_a_reflection_and_converges_for_a_rotation():
    from resnet_nb.hardt_ma.linear import population_gd

    stall = population_gd(np.diag([-1.0, 1.0]), 4, lr=0.05, steps=3000)
    assert stall["excess"] > 0.999 and stall["norm"] < 1
    A = stall["A"]
    assert np.allclose(A[:, 0, 0], A[0, 0, 0]) and np.abs(A[:, 1, :]).max() == 0  # symmetric, diagonal
    ok = population_gd(np.diag([0.5, 1.5]), 4, lr=0.05, steps=3000)
    assert ok["excess"] < 1e-10 and ok["norm"] < 1
    escaped = population_gd(np.diag([-1.0, 1.0]), 3, lr=0.05, steps=6000,
                            A0=0.01 * np.random.default_rng(0).standard_normal((3, 2, 2)))
    assert escaped["excess"] < 1e-3 and escaped["norm"] > 1


CLAIMS = ["hm-thm21-bound", "hm-thm21-det", "hm-lemma24-order", "hm-eq23", "hm-thm22", "hm-thm21-rotation-step",
          "hm-psd-special-case", "hm-gd-reflection"]


def test_min_max_norm_search_finds_exact_factorisations_and_respects_the_lemma():
    from resnet_nb.hardt_ma.linear import min_max_norm_search

    for R in (np.diag([-1.0, 1.0]), -np.eye(2)):
        found = min_max_norm_search(R, 6, restarts=2, steps=60)
        assert np.abs(residual_product(found["A"]) - R).max() < 1e-9
        assert found["norm"] == pytest.approx(max_spectral_norm(found["A"]))
    assert min_max_norm_search(np.diag([-1.0, 1.0]), 6, restarts=2, steps=60)["norm"] >= 1 - 1e-9


def test_gd_step_size_threshold_for_a_reflection():
    from resnet_nb.hardt_ma.linear import GD_STEP_LIMIT, population_gd

    R = np.diag([-1.0, 1.0])
    below = population_gd(R, 3, lr=0.9 * GD_STEP_LIMIT, steps=200)
    assert below["curve"].min() >= 1 - 1e-12 and below["norm"] < 1
    above = population_gd(R, 3, lr=0.3, steps=200)  # first step crosses u = 0; odd depth escapes
    assert above["excess"] < 1e-10 and above["norm"] == pytest.approx(2.0)
    even = population_gd(R, 4, lr=0.3, steps=200)  # (1 + a)^4 >= 0: the symmetric path never fits -1
    assert even["curve"].min() >= 1 - 1e-12


@pytest.mark.parametrize("cid", CLAIMS)
def test_claim_holds_and_its_falsifier_is_rejected(cid):
    from resnet_nb.hardt_ma import linear as hardt_ma_linear  # noqa: F401  (declares the claims)
    from resnet_nb.book.ledger import LEDGER

    c = LEDGER[cid]
    assert c.check(falsify=False).require().passed
    assert c.check(falsify=True).rejected_on_value
    assert c.kind == "claim" and c.source.startswith(("Hardt & Ma", "the book"))


def test_views_draw_without_error():
    from resnet_nb.hardt_ma import linear as hm

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from resnet_nb.hardt_ma import relu as hr

    fig, ax = plt.subplots()
    hm.factor_norms_plot(6, 1.0, ax=ax)
    assert len(ax.patches) == 6  # one bar per factor
    hm.ratio_histogram(2, 0.3, np.eye(3), ax=ax)
    axes = hr.construction_view(20, 4, 2)
    assert len(axes) == 2 and "max error" in axes[-1].get_xlabel()
    plt.close("all")


def test_adversary_refuses_one_factor_with_a_clear_error():
    """Found by mutation testing: at l = 1 the ratio does not depend on A, and the search used to
    fail deep inside torch ("element 0 of tensors does not require grad")."""
    with pytest.raises(ValueError, match=r"^l must be an integer >= 2, got 1"):
        adversarial_gradient_ratio(1, 2, 0.3, np.eye(2), steps=1)
    r = adversarial_gradient_ratio(2, 2, 0.3, np.eye(2), steps=2)
    assert np.isfinite(r["ratio"]) and r["ratio"] >= 1 - 1e-12


def test_theorem22_check_compares_with_the_bound_not_with_a_rounding_threshold():
    from resnet_nb.hardt_ma.linear import check_theorem22, theorem22_points, theorem22_rate
    from resnet_nb.book.ledger import eps_criterion

    old_threshold = eps_criterion(6 * 3 ** 3, 1.0)[0]  # a rounding tolerance, not a bound
    ratios = {}
    for A, R, Sigma, tau in theorem22_points():
        g2 = float((risk_gradient(A, R, Sigma) ** 2).sum())
        ex = population_risk(A, R, Sigma, noise=0.0)
        assert g2 >= (1 - 1e-9) * theorem22_rate(A.shape[0], tau, Sigma) * ex
        ratios.setdefault(A.shape[0], []).append(g2 / ex)
    # the true theorem's ratio drops below the old threshold at depths 7 and 8 (not at 6)
    assert min(ratios[6]) > old_threshold and min(ratios[7]) < old_threshold and min(ratios[8]) < old_threshold
    good, bad = check_theorem22(), check_theorem22(falsify=True)
    assert good.passed and not bad.passed
    assert bad.value == 1.0 and "A_1 = A_2 = -I" in bad.claim  # the exact critical point, nothing else
    assert theorem22_rate(4, 1.0, np.eye(2)) == 0.0 and theorem22_rate(1, 1.0, np.eye(2)) == 4.0


def test_theorem21_det_check_has_no_part_identical_in_check_and_falsifier():
    from resnet_nb.hardt_ma.linear import check_theorem21_det

    good = check_theorem21_det()
    assert good.passed and not good.parts and "needs det R > 0" in good.claim


def test_reflection_factorisation_and_the_key_figure_data():
    from resnet_nb.hardt_ma.linear import det_sign_data, reflection_factorisation

    R = np.diag([-1.0, 1.0])
    norms = []
    for l in (1, 2, 4, 16):
        A = reflection_factorisation(l)
        assert np.abs(residual_product(A) - R).max() < 1e-9
        norms.append(max_spectral_norm(A))
    assert all(n >= 1 for n in norms) and norms == sorted(norms, reverse=True) and norms[-1] < 1 + 1e-4
    data = det_sign_data(ls=(1, 2, 8), search_ls=(2, 4), factor_ls=(4,), restarts=1, steps=20)
    assert (data["-I_2"] <= data["-I_2 bound"]).all() and (data["search"] >= 1).all()
    assert data["search_product_error"] < 1e-9
    for norms_k, dets_k in data["factors"].values():
        assert not ((dets_k <= 0) & (norms_k < 1)).any()  # the lemma, factor by factor


def test_population_gd_batch_is_population_gd_run_by_run():
    from resnet_nb.hardt_ma.linear import population_gd, population_gd_batch

    R = np.diag([-1.0, 1.0])
    starts = 0.01 * np.random.default_rng(3).standard_normal((3, 3, 2, 2))
    lrs = [0.05, 0.3, 0.1]
    batch = population_gd_batch(R, 3, starts, lrs, steps=50)
    for A0, lr, out in zip(starts, lrs, batch):
        one = population_gd(R, 3, lr=lr, steps=50, A0=A0)
        assert np.allclose(one["curve"], out["curve"], rtol=1e-12, atol=1e-300)
        assert np.allclose(one["A"], out["A"], rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match="one step size per run"):
        population_gd_batch(R, 3, starts, [0.1], steps=2)


def test_every_claim_of_the_chapter_states_its_falsifier_kind_and_the_forms_are_renamed():
    from resnet_nb.hardt_ma import interface as hardt_ma_interface  # noqa: F401  (registers its claim)
    from resnet_nb.book import ledger
    from resnet_nb.hardt_ma.linear import FORMS

    mine = [c for cid, c in ledger.all_claims().items() if cid in CLAIMS or cid == "hm-b2-meets-b1"]
    assert len(mine) == len(CLAIMS) + 1
    assert all(c.falsifier_kind == "plausible false statement" for c in mine)
    assert "exponent_only" in FORMS and "quoted" not in FORMS
    assert "appendix A.1" in ledger.all_claims()["hm-psd-special-case"].source


def test_theorem22_falsifier_refutes_the_statement_where_the_bound_is_vacuous():
    from resnet_nb.book import ledger
    from resnet_nb.hardt_ma.linear import check_theorem22, theorem22_rate

    l, d = 4, 3
    A = critical_point_at_tau_one(l, d)
    R = np.diag([2.0, 1.0, 0.5])
    g2 = float((risk_gradient(A, R, np.eye(d)) ** 2).sum())
    ex = population_risk(A, R, np.eye(d), noise=0.0)
    # at tau = 1 the bound's comparison reads 0 >= 0 and cannot fail; the statement itself does
    assert g2 == 0.0 and ex > 0 and theorem22_rate(l, 1.0, np.eye(d)) * ex == 0.0
    assert check_theorem22(falsify=True).value == 1.0
    assert "vacuous" in ledger.all_claims()["hm-thm22"].falsifier


def test_reflection_gd_at_odd_depth_settles_only_below_step_one_over_l():
    from resnet_nb.hardt_ma.linear import population_gd

    R = np.diag([-1.0, 1.0])
    # slope of the symmetric step at u = -1 is 1 - 2 eta l: eta = 0.3 < 1/3 settles at l = 3, > 1/5 cycles at l = 5
    assert population_gd(R, 3, lr=0.3, steps=2000)["excess"] < 1e-12
    tail = population_gd(R, 5, lr=0.3, steps=6000)["curve"][-3:]
    assert tail.min() > 0.1 and tail.max() - tail.min() > 0.1
    assert population_gd(R, 5, lr=0.15, steps=6000)["excess"] >= 1  # no crossing below 1/4
    # from depth 5 on only an exact landing reaches the minimum: eta = 1/2 gives u = 1 - 4 eta = -1
    assert population_gd(R, 5, lr=0.5, steps=5)["excess"] < 1e-12
