"""Hardt & Ma section 2, the linear residual network (resnet_nb.hardt_ma.linear.network): the factors' and
the target's argument checks, gamma, random targets with det R > 0."""

import math

import numpy as np
import pytest
import torch

from resnet_nb.hardt_ma.linear import (
    as_factors,
    as_square,
    critical_point_at_tau_one,
    gamma_of,
    gradient_bound_sides,
    min_max_norm_lower_bound,
    min_max_norm_search,
    polar_factors,
    random_positive_det,
    residual_product,
    rotation_step_norm,
    scalar_optimum,
    theorem21_bound,
    theorem21_construction,
    theorem21_paper_recipe,
)

F64 = torch.float64


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match=r"\bsquare\b"):
        theorem21_construction(np.ones((2, 3)), 3)
    with pytest.raises(ValueError, match=r"\bl must"):
        theorem21_construction(np.eye(2), 0)
    with pytest.raises(ValueError, match=r"\bversion\b"):
        theorem21_bound(1.0, 3, "v2")
    with pytest.raises(ValueError, match=r"\btau\b"):
        gradient_bound_sides(np.zeros((2, 2, 2)), np.eye(2), np.eye(2), 1.0)
    with pytest.raises(ValueError, match=r"\btau must"):
        gradient_bound_sides(0.5 * np.ones((1, 2, 2)), np.eye(2), np.eye(2), 0.1)
    with pytest.raises(ValueError, match="positive definite"):
        gradient_bound_sides(np.zeros((2, 2, 2)), np.eye(2), np.diag([1.0, -1.0]), 0.5)


def test_error_messages_name_the_argument():
    bad = np.ones((2, 3))
    for fn in (
        gamma_of,
        polar_factors,
        min_max_norm_lower_bound,
        lambda R: theorem21_construction(R, 3),
        lambda R: theorem21_paper_recipe(R, 3),
        lambda R: min_max_norm_search(R, 3),
    ):
        with pytest.raises(ValueError, match=r"\bR must"):
            fn(bad)
    with pytest.raises(ValueError, match=r"\bgamma must"):
        theorem21_bound(-1.0, 3)
    with pytest.raises(ValueError, match=r"\bl must"):
        theorem21_bound(1.0, 0)
    with pytest.raises(ValueError, match=r"\bl must"):
        theorem21_paper_recipe(np.eye(2), 0)
    with pytest.raises(ValueError, match=r"\bphi must"):
        rotation_step_norm(math.nan)
    with pytest.raises(ValueError, match=r"\bl must"):
        critical_point_at_tau_one(1, 2)
    with pytest.raises(ValueError, match=r"\bd must"):
        critical_point_at_tau_one(2, 0)
    with pytest.raises(ValueError, match=r"\bd must"):
        random_positive_det(0, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"\bgamma must"):
        random_positive_det(2, np.random.default_rng(0), gamma=-0.5)
    with pytest.raises(ValueError, match=r"\bgamma must"):
        scalar_optimum(-0.5, 2)
    with pytest.raises(ValueError, match=r"\bl must"):
        scalar_optimum(1.0, 0)
    R = np.diag([2.0, 0.5])
    with pytest.raises(ValueError, match=r"\bl must"):
        min_max_norm_search(R, 1)
    with pytest.raises(ValueError, match=r"\brestarts must"):
        min_max_norm_search(R, 2, restarts=0)
    with pytest.raises(ValueError, match=r"\bsteps must"):
        min_max_norm_search(R, 2, steps=0)
    with pytest.raises(ValueError, match=r"\bsplit must"):
        theorem21_construction(R, 3, split="paper")


def test_square_matrices_are_non_empty_square_and_float64():
    for M in (np.ones((2, 3)), np.ones((3, 2)), np.zeros((0, 0)), np.ones(3), np.ones((1, 2, 2))):
        with pytest.raises(ValueError, match=r"\bR must"):
            as_square("R", M)
    M = as_square("R", [[1, 2], [3, 4]])  # integers
    assert M.dtype == np.float64 and np.array_equal(M, [[1.0, 2.0], [3.0, 4.0]])
    t = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)  # a tensor that needs detaching
    M = as_square("R", t)
    assert M.dtype == np.float64 and np.array_equal(M, [[1.0, 2.0], [3.0, 4.0]])


def test_stacks_are_non_empty_stacks_of_square_float64_matrices():
    for A in (np.ones((2, 2, 3)), np.ones((2, 3, 2)), np.zeros((0, 2, 2)), np.ones((2, 2)), np.ones((1, 1, 2, 2))):
        with pytest.raises(ValueError, match=r"\bA must"):
            as_factors(A)
        with pytest.raises(ValueError, match=r"\bA must"):
            residual_product(A)
    A = as_factors([[[1, 2], [3, 4]]])
    assert A.dtype == np.float64 and np.array_equal(A, [[[1.0, 2.0], [3.0, 4.0]]])
    t = torch.tensor([[[1.0, 2.0], [3.0, 4.0]]], requires_grad=True)
    assert np.array_equal(as_factors(t), [[[1.0, 2.0], [3.0, 4.0]]])


def test_singular_matrices_are_refused_where_a_positive_determinant_is_needed():
    R = np.diag([1.0, 0.0])  # det R = 0 exactly, sigma_min = 0 exactly
    with pytest.raises(ValueError, match=r"\bR must"):
        gamma_of(R)
    with pytest.raises(ValueError, match=r"\bR must"):
        theorem21_construction(R, 3)
    with pytest.raises(ValueError, match=r"\bR must"):
        theorem21_paper_recipe(R, 3)


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


def test_factors_and_targets_with_a_nan_an_inf_or_no_coordinate_are_refused_by_their_name():
    for bad in (math.nan, math.inf):
        A = np.zeros((2, 2, 2))
        A[1, 0, 1] = bad
        with pytest.raises(ValueError, match=r"\bA\b"):
            as_factors(A)
        with pytest.raises(ValueError, match=r"\bSigma\b"):
            as_square("Sigma", np.diag([1.0, bad]))
    with pytest.raises(ValueError, match=r"\bA\b"):
        as_factors(np.zeros((1, 0, 0)))  # one factor with no coordinate
    with pytest.raises(ValueError, match=r"\bR\b"):
        as_square("R", np.zeros((0, 0)))
    # the smallest accepted sizes: one factor, one coordinate
    assert as_factors([[[0.5]]]).shape == (1, 1, 1)
    assert as_square("R", [[2.0]]).shape == (1, 1)


def test_gamma_is_the_largest_absolute_log_singular_value():
    Q = np.linalg.qr(np.random.default_rng(0).standard_normal((3, 3)))[0]
    for logs in ((2.0, -0.5, 0.1), (0.3, -1.2, 0.0), (0.0, 0.0, 0.0)):
        R = Q @ np.diag(np.exp(logs)) @ Q.T
        assert gamma_of(R) == pytest.approx(max(abs(x) for x in logs), abs=1e-12)
    with pytest.raises(ValueError, match=r"\bR\b"):
        gamma_of(np.diag([1.0, 0.0]))


def test_residual_product_multiplies_later_factors_on_the_left():
    rng = np.random.default_rng(5)
    A = rng.standard_normal((3, 2, 2))
    I2 = np.eye(2)
    assert np.allclose(residual_product(A[:1]), I2 + A[0], rtol=0, atol=1e-15)
    assert np.allclose(residual_product(A), (I2 + A[2]) @ (I2 + A[1]) @ (I2 + A[0]), rtol=1e-14, atol=1e-14)
    assert not np.allclose(residual_product(A), (I2 + A[0]) @ (I2 + A[1]) @ (I2 + A[2]))  # the order matters
    assert residual_product([[[0.5]]])[0, 0] == pytest.approx(1.5)
