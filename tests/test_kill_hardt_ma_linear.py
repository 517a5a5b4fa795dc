"""Properties of Theorem 2.1's constructions, the factorisation search, the random matrices and
the argument checks of ``resnet_nb/hardt_ma/linear.py`` that the other tests left unchecked;
each was found by a mutant that survived them (see results/mutation/report.md)."""
import math
import signal
import warnings

import numpy as np
import pytest
import scipy.linalg
import torch

from resnet_nb.hardt_ma.linear import (_as_stack, _rotation_root, _stack_t, as_square,
                                       critical_point_at_tau_one, gamma_of, max_spectral_norm,
                                       min_max_norm_lower_bound, min_max_norm_search, polar_factors,
                                       random_positive_det, residual_product, rotation_step_norm,
                                       scalar_optimum, theorem21_bound, theorem21_construction,
                                       theorem21_paper_recipe, theorem21_survey)

F64 = torch.float64


@pytest.fixture(autouse=True)
def _time_limit():
    """Every test here takes well under a second: a loop that never ends fails instead of hanging."""
    def stop(signum, frame):
        raise TimeoutError("a test of tests/test_kill_hardt_ma_linear.py ran for 20 s")
    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, 20.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, old)


def rot(t):
    return np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])


def _norms(A):
    return np.array([np.linalg.norm(Ai, 2) for Ai in A])


def _product(A):
    M = np.eye(A.shape[1])
    for Ai in A:
        M = (np.eye(A.shape[1]) + Ai) @ M
    return M


# -- arguments: every check names its argument (_checks promises it) --------------------------

def test_error_messages_name_the_argument():
    bad = np.ones((2, 3))
    for fn in (gamma_of, polar_factors, min_max_norm_lower_bound, lambda R: theorem21_construction(R, 3),
               lambda R: theorem21_paper_recipe(R, 3), lambda R: min_max_norm_search(R, 3)):
        with pytest.raises(ValueError, match=r"^R must be a non-empty square matrix"):
            fn(bad)
    with pytest.raises(ValueError, match=r"^gamma must lie in \[0\.0, inf\]"):
        theorem21_bound(-1.0, 3)
    with pytest.raises(ValueError, match=r"^l must be an integer >= 1"):
        theorem21_bound(1.0, 0)
    with pytest.raises(ValueError, match=r"^l must be an integer >= 1"):
        theorem21_paper_recipe(np.eye(2), 0)
    with pytest.raises(ValueError, match=r"^phi must be a finite real number"):
        rotation_step_norm(math.nan)
    with pytest.raises(ValueError, match=r"^l must be an integer >= 2"):
        critical_point_at_tau_one(1, 2)
    with pytest.raises(ValueError, match=r"^d must be an integer >= 1"):
        critical_point_at_tau_one(2, 0)
    with pytest.raises(ValueError, match=r"^d must be an integer >= 1"):
        random_positive_det(0, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"^gamma must lie in \[0\.0, inf\]"):
        random_positive_det(2, np.random.default_rng(0), gamma=-0.5)
    with pytest.raises(ValueError, match=r"^gamma must lie in \[0\.0, inf\]"):
        scalar_optimum(-0.5, 2)
    with pytest.raises(ValueError, match=r"^l must be an integer >= 1"):
        scalar_optimum(1.0, 0)
    R = np.diag([2.0, 0.5])
    with pytest.raises(ValueError, match=r"^l must be an integer >= 2"):
        min_max_norm_search(R, 1)
    with pytest.raises(ValueError, match=r"^restarts must be an integer >= 1"):
        min_max_norm_search(R, 2, restarts=0)
    with pytest.raises(ValueError, match=r"^steps must be an integer >= 1"):
        min_max_norm_search(R, 2, steps=0)
    with pytest.raises(ValueError, match=r"^split must be one of"):
        theorem21_construction(R, 3, split="paper")


def test_square_matrices_are_non_empty_square_and_float64():
    for M in (np.ones((2, 3)), np.ones((3, 2)), np.zeros((0, 0)), np.ones(3), np.ones((1, 2, 2))):
        with pytest.raises(ValueError, match=r"^R must be a non-empty square matrix"):
            as_square("R", M)
    M = as_square("R", [[1, 2], [3, 4]])  # integers
    assert M.dtype == np.float64 and np.array_equal(M, [[1.0, 2.0], [3.0, 4.0]])
    t = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)  # a tensor that needs detaching
    M = as_square("R", t)
    assert M.dtype == np.float64 and np.array_equal(M, [[1.0, 2.0], [3.0, 4.0]])


def test_stacks_are_non_empty_stacks_of_square_float64_matrices():
    for A in (np.ones((2, 2, 3)), np.ones((2, 3, 2)), np.zeros((0, 2, 2)), np.ones((2, 2)), np.ones((1, 1, 2, 2))):
        with pytest.raises(ValueError, match=r"^A must have shape \(l, d, d\)"):
            _as_stack(A)
        with pytest.raises(ValueError, match=r"^A must have shape \(l, d, d\)"):
            residual_product(A)
    A = _as_stack([[[1, 2], [3, 4]]])
    assert A.dtype == np.float64 and np.array_equal(A, [[[1.0, 2.0], [3.0, 4.0]]])
    t = torch.tensor([[[1.0, 2.0], [3.0, 4.0]]], requires_grad=True)
    assert np.array_equal(_as_stack(t), [[[1.0, 2.0], [3.0, 4.0]]])
    T = _stack_t([[[1, 2], [3, 4]], [[0, 1], [1, 0]]])
    assert isinstance(T, torch.Tensor) and T.dtype == F64 and T.shape == (2, 2, 2)
    assert torch.equal(T, torch.tensor([[[1.0, 2.0], [3.0, 4.0]], [[0.0, 1.0], [1.0, 0.0]]], dtype=F64))
    with pytest.raises(ValueError, match=r"^A must have shape"):
        _stack_t(np.ones((2, 3)))


def test_singular_matrices_are_refused_where_a_positive_determinant_is_needed():
    R = np.diag([1.0, 0.0])  # det R = 0 exactly, sigma_min = 0 exactly
    with pytest.raises(ValueError, match="R must be invertible"):
        gamma_of(R)
    with pytest.raises(ValueError, match="R must have positive determinant"):
        theorem21_construction(R, 3)
    with pytest.raises(ValueError, match="R must have positive determinant"):
        theorem21_paper_recipe(R, 3)


# -- the bounds of Theorem 2.1 and the lemma on the determinant ---------------------------------

def test_theorem21_bounds_at_gamma_other_than_one():
    for g, l in ((2.0, 7), (0.25, 3), (0.0, 5)):
        assert theorem21_bound(g, l, "summary") == pytest.approx((4 * math.pi + 3 * g) / l, rel=1e-15)
        assert theorem21_bound(g, l, "iclr") == pytest.approx(2 * (math.sqrt(math.pi) + math.sqrt(3 * g)) ** 2 / l,
                                                             rel=1e-15)


def test_determinant_lemma_bound_is_one_exactly_when_det_is_not_positive():
    # det R <= 0 forces a factor with ||A_i|| >= 1; det R > 0 (however small or large) gives 0
    assert min_max_norm_lower_bound(np.diag([1.0, 0.0])) == 1.0  # det = 0
    assert min_max_norm_lower_bound(np.diag([-1.0, 2.0])) == 1.0
    for R in (0.5 * np.eye(2), np.eye(2), np.diag([3.0, 2.0]), rot(2.0)):
        assert min_max_norm_lower_bound(R) == 0.0


def test_scalar_optimum_is_the_smallest_norm_of_a_scalar_factorisation():
    # 1 x 1: prod (1 + a_i) = e^gamma with |a_i| <= a needs (1 + a)^l >= e^gamma
    for g, l in ((1.0, 4), (0.5, 1), (3.0, 2), (0.0, 3)):
        a = scalar_optimum(g, l)
        assert a == pytest.approx(math.exp(g / l) - 1, rel=1e-14, abs=1e-300)
        assert (1 + a) ** l == pytest.approx(math.exp(g), rel=1e-13)
    assert scalar_optimum(0.5, 3) == pytest.approx(math.exp(0.5 / 3) - 1, rel=1e-14)  # gamma < 1 is allowed


# -- Theorem 2.1, the polar construction ---------------------------------------------------------

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
    assert theorem21_construction(R, l, split="best")[1] == info  # "best" is the default


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
    assert _rotation_root(np.eye(1), 3)[1] == 0.0


def test_one_layer_is_R_minus_identity_with_no_split():
    R = rot(0.4) @ np.diag([2.0, 0.7])
    A, info = theorem21_construction(R, 1)
    np.testing.assert_array_equal(A, (R - np.eye(2))[None])
    assert info["p"] == 0 and info["q"] == 0 and info["gamma"] == gamma_of(R)
    assert set(info) == {"p", "q", "gamma", "theta_max", "norm_stretch", "norm_rotation"}
    assert all(math.isnan(info[k]) for k in ("theta_max", "norm_stretch", "norm_rotation"))


def _proof_p(gamma, theta, l):
    """The proof's split: p = round(3 gamma l / (pi + 3 gamma)), at least one layer for a stretch
    and at most l - 1 when a rotation needs one."""
    sym, rotn = gamma > 1e-14, theta > 1e-14
    p = int(round(3 * gamma * l / (math.pi + 3 * gamma))) if sym else 0
    return min(max(p, 1 if sym else 0), l - (1 if rotn else 0))


@pytest.mark.parametrize("R, l", [
    (rot(2.0) @ np.diag([math.exp(0.7), math.exp(-0.7)]), 10),  # the formula, inside the range
    (rot(2.0) @ np.diag([math.exp(0.35), math.exp(-0.2)]), 12),
    (rot(1.0) @ np.diag([math.exp(1.9), math.exp(-1.3)]), 7),
    (rot(2.0) @ np.diag([math.exp(0.01), 1.0]), 3),  # rounds to 0: clamped up to 1
    (rot(2.0), 5),  # no stretch: p = 0
    (rot(1.0) @ np.diag([math.exp(10.0), math.exp(-10.0)]), 3),  # rounds to l: clamped to l - 1
    (np.diag([math.exp(10.0), math.exp(-10.0)]), 3),  # no rotation: p = l
])
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


# -- the rotation root -----------------------------------------------------------------------------

def test_rotation_roots_of_block_rotations():
    # two planar blocks (d = 4) and 1 x 1 blocks (the identity, a rotation by pi and a plane)
    Q4 = scipy.linalg.block_diag(rot(2.0), rot(-1.0))
    Q3 = scipy.linalg.block_diag(np.eye(1), rot(0.5))
    for Q, theta in ((Q4, 2.0), (np.eye(2), 0.0), (np.eye(3), 0.0), (-np.eye(2), math.pi), (Q3, 0.5)):
        for q in (1, 3):
            F, t = _rotation_root(Q, q)
            assert t == pytest.approx(theta, rel=1e-12, abs=1e-15)
            assert np.abs(np.linalg.matrix_power(F, q) - Q).max() < 1e-12
            assert np.abs(F.T @ F - np.eye(len(Q))).max() < 1e-12
            assert np.linalg.norm(F - np.eye(len(Q)), 2) == pytest.approx(2 * math.sin(theta / (2 * q)),
                                                                         rel=1e-9, abs=1e-14)


def test_schur_blocks_below_the_tolerance_count_as_no_rotation():
    # Schur subdiagonals of at most 1e-12 split a 2 x 2 block into two 1 x 1 blocks (angle 0)
    Q = np.array([[1.0, -1e-12], [1e-12, 1.0]])
    assert scipy.linalg.schur(Q, output="real")[0][1, 0] == 1e-12
    F, theta = _rotation_root(Q, 1)
    assert theta == 0.0 and np.array_equal(F, np.eye(2))


# -- the recipe of the paper's proof (U K V^T) -----------------------------------------------------

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
        assert n[q + p:] == pytest.approx(2 * math.sin(tU / (2 * q)), rel=1e-9, abs=1e-12)
    if p:
        assert n[q:q + p] == pytest.approx(float(np.abs(k ** (1.0 / p) - 1).max()), rel=1e-9, abs=1e-12)


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


# -- the numerical search for the smallest |||A||| ----------------------------------------------------

def _reference_search(R, l, restarts, steps, seed):
    """The documented search: the last factor forced, the 16-norm of the spectral norms as
    surrogate, Adam (lr 0.02) from starts 0.3 N(0, 1) drawn from a generator seeded with seed."""
    d = R.shape[0]
    Rt, eye = torch.as_tensor(R, dtype=F64), torch.eye(d, dtype=F64)
    gen = torch.Generator().manual_seed(seed)
    best, best_A = math.inf, None
    for _ in range(restarts):
        free = (0.3 * torch.randn(l - 1, d, d, generator=gen, dtype=F64)).requires_grad_(True)
        opt = torch.optim.Adam([free], lr=0.02)
        for _ in range(steps):
            P = eye
            for i in range(l - 1):
                P = (eye + free[i]) @ P
            A = torch.cat([free, (Rt @ torch.linalg.inv(P) - eye)[None]])
            norms = torch.linalg.matrix_norm(A, ord=2)
            value = float(norms.detach().max())
            if value < best:
                best, best_A = value, A.detach().numpy().copy()
            opt.zero_grad()
            torch.linalg.vector_norm(norms, ord=16).backward()
            opt.step()
    return best, best_A


def test_min_max_norm_search_is_the_documented_search():
    R = np.array([[1.5, -0.4], [0.3, 0.8]])
    for l, restarts, steps, seed in ((3, 2, 12, 4), (2, 1, 1, 0), (2, 1, 5, 7)):
        found = min_max_norm_search(R, l, restarts=restarts, steps=steps, seed=seed)
        best, best_A = _reference_search(R, l, restarts, steps, seed)
        assert found["norm"] == pytest.approx(best, rel=1e-10)
        np.testing.assert_allclose(found["A"], best_A, rtol=1e-10, atol=1e-12)
        assert np.abs(_product(found["A"]) - R).max() < 1e-12
    # seeded: the global torch generator does not matter
    a = min_max_norm_search(R, 3, restarts=1, steps=3, seed=5)
    torch.randn(7)
    b = min_max_norm_search(R, 3, restarts=1, steps=3, seed=5)
    assert a["norm"] == b["norm"] and np.array_equal(a["A"], b["A"])


def test_min_max_norm_search_defaults():
    # a reflection (det < 0, so |||A||| >= 1): here a 4th restart or a 151st step would still
    # improve the result, so the defaults (3 restarts, 150 steps, seed 0) are visible
    R = np.diag([-1.0, 1.0])
    default = min_max_norm_search(R, 3)
    explicit = min_max_norm_search(R, 3, restarts=3, steps=150, seed=0)
    assert default["norm"] == explicit["norm"] and np.array_equal(default["A"], explicit["A"])
    assert default["norm"] >= 1.0


# -- random matrices with positive determinant --------------------------------------------------------

def test_random_positive_det_with_gamma_has_singular_values_e_to_plus_minus_gamma():
    for seed in range(6):
        for d, g in ((2, 0.8), (5, 1.3), (8, 0.5)):
            R = random_positive_det(d, np.random.default_rng(seed), gamma=g)
            s = np.linalg.svd(R, compute_uv=False)
            assert np.linalg.det(R) > 0
            assert s[0] == pytest.approx(math.exp(g), rel=1e-12)
            assert s[-1] == pytest.approx(math.exp(-g), rel=1e-12)
            assert gamma_of(R) == pytest.approx(g, rel=1e-11)
            if d > 2:  # the others e^{u gamma}, u in (-1, 1): strictly between
                assert (s[1:-1] < math.exp(g) * (1 - 1e-9)).all() and (s[1:-1] > math.exp(-g) * (1 + 1e-9)).all()
    R = random_positive_det(1, np.random.default_rng(0), gamma=0.4)
    assert R.shape == (1, 1) and R[0, 0] == pytest.approx(math.exp(0.4), rel=1e-12)


def test_random_positive_det_without_gamma_has_log_singular_values_in_minus_one_one():
    R = random_positive_det(40, np.random.default_rng(1))
    assert np.linalg.det(R) > 0
    u = np.log(np.linalg.svd(R, compute_uv=False))
    assert u.max() <= 1 + 1e-12 and u.min() >= -1 - 1e-12
    assert u.max() > 0.8 and u.min() < -0.8  # spread over the interval


def test_random_positive_det_draws_two_gaussian_matrices_and_the_uniforms_it_uses():
    # which R a seed gives depends on how much of the stream each call takes (the book draws
    # several R from one generator): d^2 normals, the d (or d - 2) uniforms, d^2 normals
    for d, g in ((1, None), (2, None), (4, None), (1, 0.5), (2, 0.5), (4, 0.5)):
        rng = np.random.default_rng(3)
        random_positive_det(d, rng, gamma=g)
        ref = np.random.default_rng(3)
        ref.standard_normal((d, d))
        ref.uniform(-1, 1, d if g is None else max(d - 2, 0))
        ref.standard_normal((d, d))
        assert rng.bit_generator.state == ref.bit_generator.state


# -- the survey of Theorem 2.1 ----------------------------------------------------------------------

def test_theorem21_survey_rows():
    Rs = [rot(2.0) @ np.diag([math.exp(0.5), math.exp(-0.3)]), np.diag([math.e, 1.0])]
    ls = [1, 3]
    rows = theorem21_survey(Rs, ls)
    assert len(rows) == 4
    for row, (j, l) in zip(rows, [(0, 1), (0, 3), (1, 1), (1, 3)]):
        R = Rs[j]
        A, info = theorem21_construction(R, l)
        g = gamma_of(R)
        assert set(row) == {"R", "gamma", "l", "product_error", "norm", "bound_summary", "bound_iclr",
                            "hypothesis", "p", "q"}
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


def test_theorem21_survey_progress_bar_only_when_asked(capsys):
    Rs = [np.diag([2.0, 0.5])]
    quiet = theorem21_survey(Rs, [2])
    assert capsys.readouterr().err == ""
    loud = theorem21_survey(Rs, [2], progress=True)
    assert "survey" in capsys.readouterr().err.lower()
    assert loud == quiet


# -- small functions ---------------------------------------------------------------------------------

def test_rotation_step_norm_reports_its_angle():
    r = rotation_step_norm(0.75)
    assert r["phi"] == 0.75 and set(r) == {"phi", "norm", "printed", "formula"}
    assert r["norm"] == pytest.approx(2 * math.sin(0.375), rel=1e-12)


def test_critical_point_at_tau_one_shape():
    A = critical_point_at_tau_one(2, 3)
    assert A.shape == (2, 3, 3) and np.array_equal(A, -np.stack([np.eye(3)] * 2))
