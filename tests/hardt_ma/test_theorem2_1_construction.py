"""Hardt & Ma, Theorem 2.1 (resnet_nb.hardt_ma.linear.theorem21): the construction of small factors, the
printed bound, the proof's recipe and its splits, the survey."""

import math
import warnings

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st

from resnet_nb.hardt_ma.linear import (
    gamma_of,
    max_spectral_norm,
    random_positive_det,
    residual_product,
    rotation_root,
    scalar_optimum,
    theorem21_bound,
    theorem21_construction,
    theorem21_paper_recipe,
    theorem21_survey,
)


def _positive_det(rng, d, scale=1.0):
    R = scale * rng.standard_normal((d, d))
    if np.linalg.det(R) < 0:
        R[:, 0] *= -1
    return R


def rot(t):
    return np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])


def _norms(A):
    return np.array([np.linalg.norm(Ai, 2) for Ai in A])


def _product(A):
    M = np.eye(A.shape[1])
    for Ai in A:
        M = (np.eye(A.shape[1]) + Ai) @ M
    return M


def _polar_angle(R):
    """The largest rotation angle of the polar factor of R, from its eigenvalues."""
    Q, _ = scipy.linalg.polar(R)
    return float(np.abs(np.angle(np.linalg.eigvals(Q))).max()) if R.shape[0] > 1 else 0.0


def _closed_form_norms(s, theta, p, l):
    """The norms of the stretch and rotation factors when p layers take P and l - p take Q."""
    q = l - p
    gamma = float(np.abs(np.log(s)).max())
    a_sym = float(np.abs(s ** (1.0 / p) - 1).max()) if p > 0 else (0.0 if gamma < 1e-14 else math.inf)
    a_rot = 2 * math.sin(theta / (2 * q)) if q > 0 else (0.0 if theta < 1e-14 else math.inf)
    return a_sym, a_rot


CASES = [  # (R, l): a rotation and a stretch, a pure rotation, a pure stretch, a 3 x 3 matrix
    (rot(2.5) @ np.diag([math.exp(0.7), math.exp(-0.4)]), 6),
    (rot(1.2) @ np.diag([math.exp(2.0), math.exp(-1.0)]), 9),
    (rot(2.0), 5),
    (np.diag([math.exp(1.5), math.exp(-0.5)]), 4),
    (np.array([[1.2, -0.5, 0.3], [0.8, 0.9, -0.2], [0.1, 0.4, 1.6]]), 7),
    (rot(0.2) @ np.diag([2.0, 0.5]), 2),
]


def _proof_p(gamma, theta, l):
    """The proof's split: p = round(3 gamma l / (pi + 3 gamma)), at least one layer for a stretch
    and at most l - 1 when a rotation needs one."""
    sym, rotn = gamma > 1e-14, theta > 1e-14
    p = int(round(3 * gamma * l / (math.pi + 3 * gamma))) if sym else 0
    return min(max(p, 1 if sym else 0), l - (1 if rotn else 0))


def _recipe_angles(R):
    """The rotation angles of U and V^T in R = U K V^T, with det U = det V = +1 (one pair flipped)."""
    U, k, Vt = np.linalg.svd(R)
    if np.linalg.det(U) < 0:
        U[:, -1] *= -1
        Vt[-1] *= -1

    def angle(M):
        return float(np.abs(np.angle(np.linalg.eigvals(M))).max()) if len(M) > 1 else 0.0

    return angle(U), angle(Vt), k


RECIPE_CASES = [
    (rot(2.5) @ np.diag([math.exp(0.7), math.exp(-0.4)]), 6),
    (rot(1.2) @ np.diag([math.exp(2.0), math.exp(-1.0)]), 9),
    (rot(2.0), 4),
    (rot(0.5), 7),
    (np.array([[1.2, -0.5, 0.3], [0.8, 0.9, -0.2], [0.1, 0.4, 1.6]]), 8),
    (np.array([[1.2, -0.5, 0.3], [0.8, 0.9, -0.2], [0.1, 0.4, 1.6]]), 5),
    (rot(0.3) @ np.diag([math.exp(1.0), math.exp(-0.1)]), 12),
    (rot(0.2) @ np.diag([2.0, 0.5]), 3),
    (rot(2.5) @ np.diag([math.exp(0.7), math.exp(-0.4)]), 9),  # a split where the two norms cross
    (rot(2.0), 8),  # no stretch, l even: the best split has p = 0
]


@settings(max_examples=40, deadline=None)
@given(d=st.integers(1, 6), l=st.integers(1, 60), seed=st.integers(0, 10_000), scale=st.floats(0.1, 5.0))
def test_theorem21_product_and_bound(d, l, seed, scale):
    R = _positive_det(np.random.default_rng(seed), d, scale)
    A, info = theorem21_construction(R, l)
    assert A.shape == (l, d, d)
    assert np.abs(residual_product(A) - R).max() <= 1e-10 * max(1.0, np.abs(R).max())
    g = gamma_of(R)
    if l >= 3 * g and l >= 2:
        assert max_spectral_norm(A) <= theorem21_bound(g, l, "iclr") + 1e-12
        assert max_spectral_norm(A) <= theorem21_bound(g, l, "summary") + 1e-12


@pytest.mark.parametrize(
    "R",
    [
        -np.eye(2),  # rotation by pi: eigenvalues -1, -1 (det +1)
        -np.eye(4),
        np.diag([-1.0, -1.0, 1.0]),
        np.array([[0.0, -1.0], [1.0, 0.0]]),  # rotation by pi/2
        np.diag([1e-3, 1e3]),  # badly conditioned stretch
        np.eye(3),
    ],
)
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


@settings(max_examples=20, deadline=None)
@given(d=st.integers(1, 5), l=st.integers(3, 60), seed=st.integers(0, 10_000))
def test_paper_recipe_product_and_bound(d, l, seed):
    from resnet_nb.hardt_ma.linear import theorem21_paper_recipe

    rng = np.random.default_rng(seed)
    R = random_positive_det(d, rng, gamma=float(rng.uniform(0, 3)))
    A, info = theorem21_paper_recipe(R, l)
    assert np.abs(residual_product(A) - R).max() <= 1e-10 * max(1.0, np.abs(R).max())
    if l >= 3 * info["gamma"]:
        assert max_spectral_norm(A) <= theorem21_bound(info["gamma"], l) + 1e-12


def test_version_labels():
    assert theorem21_bound(1.0, 10, "iclr") == theorem21_bound(1.0, 10)
    assert theorem21_bound(1.0, 10, "iclr") == pytest.approx(2 * (math.sqrt(math.pi) + math.sqrt(3)) ** 2 / 10)
    assert theorem21_bound(1.0, 10, "summary") == pytest.approx((4 * math.pi + 3) / 10)
    for old in ("v1", "v3"):  # arXiv version numbers: the book cannot say which has which constant
        with pytest.raises(ValueError, match=r"\bversion must"):
            theorem21_bound(1.0, 10, old)


def test_theorem21_bounds_at_gamma_other_than_one():
    for g, l in ((2.0, 7), (0.25, 3), (0.0, 5)):
        assert theorem21_bound(g, l, "summary") == pytest.approx((4 * math.pi + 3 * g) / l, rel=1e-15)
        assert theorem21_bound(g, l, "iclr") == pytest.approx(
            2 * (math.sqrt(math.pi) + math.sqrt(3 * g)) ** 2 / l, rel=1e-15
        )


def test_scalar_optimum_is_the_smallest_norm_of_a_scalar_factorisation():
    # 1 x 1: prod (1 + a_i) = e^gamma with |a_i| <= a needs (1 + a)^l >= e^gamma
    for g, l in ((1.0, 4), (0.5, 1), (3.0, 2), (0.0, 3)):
        a = scalar_optimum(g, l)
        assert a == pytest.approx(math.exp(g / l) - 1, rel=1e-14, abs=1e-300)
        assert (1 + a) ** l == pytest.approx(math.exp(g), rel=1e-13)
    assert scalar_optimum(0.5, 3) == pytest.approx(math.exp(0.5 / 3) - 1, rel=1e-14)  # gamma < 1 is allowed


@pytest.mark.parametrize("R, l", CASES)
def test_best_split_attains_the_smallest_closed_form_norm_and_reports_it(R, l):
    A, info = theorem21_construction(R, l)
    assert np.abs(residual_product(A) - R).max() < 1e-12
    s = np.linalg.svd(R, compute_uv=False)
    theta = _polar_angle(R)
    best = min(max(_closed_form_norms(s, theta, p, l)) for p in range(l + 1))
    assert max_spectral_norm(A) == pytest.approx(best, rel=1e-9)
    p, q = info["p"], info["q"]
    assert p + q == l and max(_closed_form_norms(s, theta, p, l)) == pytest.approx(best, rel=1e-9)
    # the info: gamma, the angle and the norms of the two kinds of factors as built
    assert info["gamma"] == pytest.approx(gamma_of(R), rel=1e-12, abs=1e-15)
    assert info["theta_max"] == pytest.approx(theta, rel=1e-9, abs=1e-12)
    n = _norms(A)
    assert info["norm_stretch"] == pytest.approx(n[:p].max() if p else 0.0, rel=1e-9, abs=1e-12)
    assert info["norm_rotation"] == pytest.approx(n[p:].max() if q else 0.0, rel=1e-9, abs=1e-12)
    assert set(info) == {"p", "q", "gamma", "theta_max", "norm_stretch", "norm_rotation"}


def test_pure_stretch_and_pure_rotation_use_one_kind_of_factor_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        S = np.diag([math.exp(1.5), math.exp(-0.5)])
        A, info = theorem21_construction(S, 4)
        assert (info["p"], info["q"]) == (4, 0)
        assert max_spectral_norm(A) == pytest.approx(math.exp(1.5 / 4) - 1, rel=1e-12)
        A, info = theorem21_construction(rot(2.0), 5)
        assert (info["p"], info["q"]) == (0, 5)
        assert max_spectral_norm(A) == pytest.approx(2 * math.sin(2.0 / 10), rel=1e-12)


@pytest.mark.parametrize("g, l", [(1.0, 4), (0.3, 3), (2.0, 2)])
def test_scalar_construction_is_optimal(g, l):
    # 1 x 1: nothing to rotate, every layer on the stretch, and that is the optimum
    R = np.array([[math.exp(g)]])
    for make in (theorem21_construction, theorem21_paper_recipe):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            A, info = make(R, l)
        assert info["p"] == l and info["q"] == 0
        assert max_spectral_norm(A) == pytest.approx(scalar_optimum(g, l), rel=1e-12)
        assert np.abs(residual_product(A) - R).max() < 1e-12
    assert theorem21_construction(R, l)[1]["theta_max"] == 0.0
    assert rotation_root(np.eye(1), 3)[1] == 0.0


def test_one_layer_is_R_minus_identity_with_no_split():
    R = rot(0.4) @ np.diag([2.0, 0.7])
    A, info = theorem21_construction(R, 1)
    np.testing.assert_array_equal(A, (R - np.eye(2))[None])
    assert info["p"] == 0 and info["q"] == 0 and info["gamma"] == gamma_of(R)
    assert set(info) == {"p", "q", "gamma", "theta_max", "norm_stretch", "norm_rotation"}
    assert all(math.isnan(info[k]) for k in ("theta_max", "norm_stretch", "norm_rotation"))


@pytest.mark.parametrize(
    "R, l",
    [
        (rot(2.0) @ np.diag([math.exp(0.7), math.exp(-0.7)]), 10),  # the formula, inside the range
        (rot(2.0) @ np.diag([math.exp(0.35), math.exp(-0.2)]), 12),
        (rot(1.0) @ np.diag([math.exp(1.9), math.exp(-1.3)]), 7),
        (rot(2.0) @ np.diag([math.exp(0.01), 1.0]), 3),  # rounds to 0: clamped up to 1
        (rot(2.0), 5),  # no stretch: p = 0
        (rot(1.0) @ np.diag([math.exp(10.0), math.exp(-10.0)]), 3),  # rounds to l: clamped to l - 1
        (np.diag([math.exp(10.0), math.exp(-10.0)]), 3),  # no rotation: p = l
    ],
)
def test_proof_split_follows_the_proof_estimates(R, l):
    gamma = gamma_of(R)
    theta = _polar_angle(R)
    A, info = theorem21_construction(R, l, split="proof")
    assert info["p"] == _proof_p(gamma, theta, l) and info["q"] == l - info["p"]
    assert np.abs(residual_product(A) - R).max() < 1e-9 * np.abs(R).max()
    n = _norms(A)
    p = info["p"]
    assert info["norm_stretch"] == pytest.approx(n[:p].max() if p else 0.0, rel=1e-9, abs=1e-12)
    assert info["norm_rotation"] == pytest.approx(n[p:].max() if p < l else 0.0, rel=1e-9, abs=1e-12)


def test_rotation_roots_of_block_rotations():
    # two planar blocks (d = 4) and 1 x 1 blocks (the identity, a rotation by pi and a plane)
    Q4 = scipy.linalg.block_diag(rot(2.0), rot(-1.0))
    Q3 = scipy.linalg.block_diag(np.eye(1), rot(0.5))
    for Q, theta in ((Q4, 2.0), (np.eye(2), 0.0), (np.eye(3), 0.0), (-np.eye(2), math.pi), (Q3, 0.5)):
        for q in (1, 3):
            F, t = rotation_root(Q, q)
            assert t == pytest.approx(theta, rel=1e-12, abs=1e-15)
            assert np.abs(np.linalg.matrix_power(F, q) - Q).max() < 1e-12
            assert np.abs(F.T @ F - np.eye(len(Q))).max() < 1e-12
            assert np.linalg.norm(F - np.eye(len(Q)), 2) == pytest.approx(
                2 * math.sin(theta / (2 * q)), rel=1e-9, abs=1e-14
            )


def test_schur_blocks_below_the_tolerance_count_as_no_rotation():
    # Schur subdiagonals of at most 1e-12 split a 2 x 2 block into two 1 x 1 blocks (angle 0)
    Q = np.array([[1.0, -1e-12], [1e-12, 1.0]])
    assert scipy.linalg.schur(Q, output="real")[0][1, 0] == 1e-12
    F, theta = rotation_root(Q, 1)
    assert theta == 0.0 and np.array_equal(F, np.eye(2))


@pytest.mark.parametrize("R, l", RECIPE_CASES)
def test_paper_recipe_attains_the_smallest_norm_of_its_splits(R, l):
    tU, tV, k = _recipe_angles(R)
    gamma = float(np.abs(np.log(k)).max())
    cands = []
    for q in range(l // 2 + 1):
        p = l - 2 * q
        if (q == 0 and max(tU, tV) > 1e-14) or (p == 0 and gamma > 1e-14):
            continue
        rot_n = 2 * math.sin(max(tU, tV) / (2 * q)) if q else 0.0
        sym_n = float(np.abs(k ** (1.0 / p) - 1).max()) if p else 0.0
        cands.append(max(rot_n, sym_n))
    A, info = theorem21_paper_recipe(R, l)
    assert np.abs(residual_product(A) - R).max() < 1e-12
    assert max_spectral_norm(A) == pytest.approx(min(cands), rel=1e-9)
    p, q = info["p"], info["q"]
    assert 2 * q + p == l and set(info) == {"p", "q", "gamma", "theta_U", "theta_V"}
    assert info["gamma"] == pytest.approx(gamma_of(R), rel=1e-12, abs=1e-15)
    assert info["theta_U"] == pytest.approx(tU, rel=1e-9, abs=1e-12)
    assert info["theta_V"] == pytest.approx(tV, rel=1e-9, abs=1e-12)
    # the layers: q for V^T, p for K, q for U, each of the norm its angle or stretch gives
    n = _norms(A)
    if q:
        assert n[:q] == pytest.approx(2 * math.sin(tV / (2 * q)), rel=1e-9, abs=1e-12)
        assert n[q + p :] == pytest.approx(2 * math.sin(tU / (2 * q)), rel=1e-9, abs=1e-12)
    if p:
        assert n[q : q + p] == pytest.approx(float(np.abs(k ** (1.0 / p) - 1).max()), rel=1e-9, abs=1e-12)


def test_paper_recipe_flips_a_singular_pair_when_det_U_is_negative():
    R = rot(0.7) @ np.diag([2.0, 0.6])
    assert np.linalg.det(np.linalg.svd(R)[0]) < 0  # LAPACK's U here is a reflection
    for l in (3, 4, 7):
        A, _ = theorem21_paper_recipe(R, l)
        assert np.abs(residual_product(A) - R).max() < 1e-12


def test_paper_recipe_small_rotations_still_get_rotation_factors():
    R = np.array([[3.0, 1.0], [0.0, 0.5]])  # LAPACK's U and V are rotations by less than 1 here
    A, info = theorem21_paper_recipe(R, 6)
    assert 1e-3 < max(info["theta_U"], info["theta_V"]) < 1.0  # small angles: q = 0 must not be taken
    assert info["q"] >= 1
    assert np.abs(residual_product(A) - R).max() < 1e-12


def test_paper_recipe_of_the_identity_takes_the_first_split():
    # every split gives A = 0; ties keep the first one tried, q = 0 (all layers on K = I)
    A, info = theorem21_paper_recipe(np.eye(2), 5)
    assert (info["p"], info["q"]) == (5, 0) and not A.any()


def test_theorem21_survey_rows():
    Rs = [rot(2.0) @ np.diag([math.exp(0.5), math.exp(-0.3)]), np.diag([math.e, 1.0])]
    ls = [1, 3]
    rows = theorem21_survey(Rs, ls)
    assert len(rows) == 4
    for row, (j, l) in zip(rows, [(0, 1), (0, 3), (1, 1), (1, 3)]):
        R = Rs[j]
        A, info = theorem21_construction(R, l)
        g = gamma_of(R)
        assert set(row) == {
            "R",
            "gamma",
            "l",
            "product_error",
            "norm",
            "bound_summary",
            "bound_iclr",
            "hypothesis",
            "p",
            "q",
        }
        assert row["R"] == j and row["l"] == l and (row["p"], row["q"]) == (info["p"], info["q"])
        assert row["gamma"] == pytest.approx(g, rel=1e-12)
        assert row["product_error"] == pytest.approx(float(np.abs(_product(A) - R).max()), abs=1e-15)
        assert row["product_error"] < 1e-12
        assert row["norm"] == pytest.approx(_norms(A).max(), rel=1e-12)
        assert row["bound_summary"] == pytest.approx((4 * math.pi + 3 * g) / l, rel=1e-12)
        assert row["bound_iclr"] == pytest.approx(2 * (math.sqrt(math.pi) + math.sqrt(3 * g)) ** 2 / l, rel=1e-12)
        assert row["hypothesis"] == (l >= 3 * g)
    assert rows[1]["hypothesis"] and not rows[0]["hypothesis"]  # gamma = 0.5: l = 3 >= 1.5, l = 1 < 1.5
    assert rows[3]["gamma"] == 1.0 and rows[3]["hypothesis"]  # l = 3 gamma exactly: the hypothesis holds


def test_claim_holds_and_its_falsifier_is_rejected(check_claim):
    c = check_claim("hm-thm21-bound")
    assert c.kind == "claim" and c.source.startswith(("Hardt & Ma", "the book"))


def test_rotation_root_refuses_a_reflection_naming_q():
    # det Q = -1: an odd number of eigenvalues -1, no real root
    for Q in (np.diag([-1.0, 1.0]), np.diag([-1.0, -1.0, -1.0]), -np.eye(1)):
        with pytest.raises(ValueError, match=r"\bQ has an odd number of eigenvalues -1"):
            rotation_root(Q, 2)
    F, theta = rotation_root(-np.eye(2), 2)  # an even number: a rotation by pi, square root a quarter turn
    assert theta == pytest.approx(np.pi) and np.allclose(F @ F, -np.eye(2), rtol=0, atol=1e-14)
