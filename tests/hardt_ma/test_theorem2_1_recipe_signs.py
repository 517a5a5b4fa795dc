"""The proof of Theorem 2.1 in numbers (resnet_nb.hardt_ma.linear.theorem21): the rounding of p and
the recipe's norm with the SVD's signs chosen well."""

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.stats import special_ortho_group

from resnet_nb.hardt_ma import linear as hm


@pytest.mark.parametrize(
    ("p_of", "closed"),
    [(hm.p_printed, 4 * math.pi / 3), (hm.p_reading, math.pi / 12), (hm.p_balanced, math.pi / 6)],
)
def test_each_reading_of_p_reaches_gamma_at_the_smallest_depth_from_its_closed_form_on(p_of, closed):
    # at l = 3 gamma: p(gamma, 3 gamma) = gamma exactly at the closed form
    root = brentq(lambda g: p_of(g, 3 * g) - g, 1e-6, 100)
    assert root == pytest.approx(closed, rel=1e-9)
    assert p_of(closed * 1.01, 3 * closed * 1.01) > closed * 1.01
    assert p_of(closed * 0.99, 3 * closed * 0.99) < closed * 0.99


def test_the_readings_of_p_differ_by_the_factor_two_moved_from_p_to_q():
    for g, l in ((0.5, 4), (2.0, 9), (3.0, 30)):
        assert hm.p_reading(g, l) == pytest.approx(2 * hm.p_printed(g, l), rel=1e-15)
        assert hm.p_balanced(g, l) == pytest.approx(l * 3 * g / (math.pi + 3 * g), rel=1e-15)


def test_largest_angle_of_a_plane_rotation_is_its_angle():
    for t in (0.0, 0.3, 2.0, math.pi - 1e-9):
        Q = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
        assert hm.largest_angle(Q) == pytest.approx(t, abs=1e-12)
    assert hm.largest_angle(np.diag([1.0, -1.0, -1.0])) == pytest.approx(math.pi)


def test_recipe_norm_without_rotation_is_the_best_stretch_and_a_rotation_needs_factors():
    k = np.array([4.0, 1.0])
    # no rotation: the best split puts all l factors into the stretch
    assert hm.recipe_norm(0.0, 0.0, k, 4) == pytest.approx(4 ** (1 / 4) - 1, rel=1e-15)
    # a rotation by pi/2 and no stretch: q = l // 2 factors of norm 2 sin(theta / 2q)
    assert hm.recipe_norm(math.pi / 2, 0.0, np.ones(2), 6) == pytest.approx(2 * math.sin(math.pi / 12), rel=1e-15)
    # with l = 1 a rotation cannot be made: no allowed split
    assert hm.recipe_norm(0.5, 0.0, k, 1) == math.inf


def test_sign_aligned_recipe_is_the_best_over_every_even_sign_flip_and_never_worse_than_lapack():
    rng = np.random.default_rng(3)
    for trial in range(20):
        R = special_ortho_group.rvs(3, random_state=trial) @ np.diag(rng.uniform(0.5, 2.0, 3))
        l = int(rng.integers(4, 12))
        aligned = hm.sign_aligned_recipe_norm(R, l)
        # independent: every even flip written out, from numpy's SVD made proper
        U, k, Vt = np.linalg.svd(R)
        if np.linalg.det(U) < 0:
            U[:, -1] *= -1
            Vt[-1] *= -1
        options = []
        for s in itertools.product([1, -1], repeat=3):
            if np.prod(s) < 0:
                continue
            s = np.array(s, dtype=float)
            assert np.allclose((U * s) @ np.diag(k) @ (s[:, None] * Vt), R)  # the same R
            options.append(hm.recipe_norm(hm.largest_angle(U * s), hm.largest_angle(s[:, None] * Vt), k, l))
        assert aligned == pytest.approx(min(options), rel=1e-15)
        A, info = hm.theorem21_paper_recipe(R, l)
        assert aligned <= hm.max_spectral_norm(A) * (1 + 1e-12)


def test_signs_matter_near_a_diagonal_matrix():
    R = np.diag([3.0, 2.0, 1.0]) + 0.05 * np.random.default_rng(0).standard_normal((3, 3))
    A, _ = hm.theorem21_paper_recipe(R, 8)
    assert hm.sign_aligned_recipe_norm(R, 8) < 0.5 * hm.max_spectral_norm(A)
