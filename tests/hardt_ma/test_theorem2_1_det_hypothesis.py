"""Hardt & Ma, Theorem 2.1's hypothesis det R > 0 (resnet_nb.hardt_ma.linear.theorem21): the determinant
lemma, the factorisation search, the reflection and the key figure's numbers."""

import math

import numpy as np
import pytest
import torch

from resnet_nb.hardt_ma.linear import (
    max_spectral_norm,
    min_max_norm_lower_bound,
    min_max_norm_search,
    random_ball_point,
    residual_product,
    theorem21_construction,
)

F64 = torch.float64


def rot(t):
    return np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])


def _product(A):
    M = np.eye(A.shape[1])
    for Ai in A:
        M = (np.eye(A.shape[1]) + Ai) @ M
    return M


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


def test_negative_determinant_is_refused_and_every_small_product_has_positive_det():
    R = np.diag([-1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="positive determinant"):
        theorem21_construction(R, 10)
    assert min_max_norm_lower_bound(R) == 1.0
    rng = np.random.default_rng(0)
    for _ in range(200):
        A = random_ball_point(5, 3, 0.999, rng)
        assert np.linalg.det(residual_product(A)) > 0


def test_min_max_norm_search_finds_exact_factorisations_and_respects_the_lemma():
    from resnet_nb.hardt_ma.linear import min_max_norm_search

    for R in (np.diag([-1.0, 1.0]), -np.eye(2)):
        found = min_max_norm_search(R, 6, restarts=2, steps=60)
        assert np.abs(residual_product(found["A"]) - R).max() < 1e-9
        assert found["norm"] == pytest.approx(max_spectral_norm(found["A"]))
    assert min_max_norm_search(np.diag([-1.0, 1.0]), 6, restarts=2, steps=60)["norm"] >= 1 - 1e-9


def test_theorem21_det_check_finds_the_lemma_tight_by_a_search_and_rejects_the_dropped_exponent():
    from resnet_nb.hardt_ma.linear import claim_theorem21_det, det_lemma_search

    good = claim_theorem21_det()
    assert good.passed
    assert len(good.parts) == 2  # d = 2 and d = 3
    for part in good.parts:
        assert 1.0 - 1e-12 <= part.value < 1.0 + 1e-5  # reaches the lemma's bound 1, not below (rounding aside)
    bad = claim_theorem21_det(falsify=True)
    # the falsifier is the search for the dropped exponent's ratio det(I + A) / (1 - ||A||)
    assert not bad.passed and bad.value == det_lemma_search(2, 1.0, starts=2, seed=4)["ratio"] and bad.value < 0.5


def test_det_lemma_search_is_not_started_at_the_tight_family_yet_ends_near_it():
    from resnet_nb.hardt_ma.linear import det_lemma_search

    found = det_lemma_search(2, 2.0, starts=4, seed=0)
    A = found["A"]
    assert found["norm"] < 1 and found["ratio"] >= 1.0 - 1e-12
    assert np.abs(A - np.trace(A) / 2 * np.eye(2)).max() < 1e-2  # near a multiple of -I
    assert np.trace(A) < 0
    wrong = det_lemma_search(2, 1.0, starts=4, seed=0)  # det(I + A) >= 1 - ||A||: false
    assert wrong["ratio"] < 1
    with pytest.raises(ValueError, match=r"\bstarts\b"):
        det_lemma_search(2, 2.0, starts=0)


def test_determinant_lemma_inequality_fails_just_past_norm_one():
    """det(I - t u u^T) = 1 - t tends to 0+ as t -> 1-, and turns negative once ||A|| = t > 1: the
    hypothesis ||A|| < 1 is needed."""
    u = np.array([0.6, 0.8])
    for t in (1 - 1e-2, 1 - 1e-8):
        assert np.linalg.det(np.eye(2) - t * np.outer(u, u)) == pytest.approx(1 - t, rel=1e-6)
    assert np.linalg.det(np.eye(2) - (1 + 1e-6) * np.outer(u, u)) < 0


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


def test_determinant_lemma_bound_is_one_exactly_when_det_is_not_positive():
    # det R <= 0 forces a factor with ||A_i|| >= 1; det R > 0 (however small or large) gives 0
    assert min_max_norm_lower_bound(np.diag([1.0, 0.0])) == 1.0  # det = 0
    assert min_max_norm_lower_bound(np.diag([-1.0, 2.0])) == 1.0
    for R in (0.5 * np.eye(2), np.eye(2), np.diag([3.0, 2.0]), rot(2.0)):
        assert min_max_norm_lower_bound(R) == 0.0


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


def test_claim_holds_and_its_falsifier_is_rejected(check_claim):
    c = check_claim("hm-thm21-det")
    assert c.kind == "claim" and c.source.startswith(("Hardt & Ma", "the book"))


def test_reflection_factorisation_balances_the_crossing_factor_against_the_stretches():
    from resnet_nb.hardt_ma.linear import reflection_factorisation

    # l = 2: 1 + delta = 1 / delta - 1 gives delta = sqrt(2) - 1, so |||A||| = sqrt(2)
    A = reflection_factorisation(2)
    assert max_spectral_norm(A) == pytest.approx(math.sqrt(2), rel=1e-14)
    np.testing.assert_allclose(A[0], np.diag([-math.sqrt(2), 0.0]), rtol=0, atol=1e-14)
    for l in (3, 5, 12):
        A = reflection_factorisation(l)
        norms = np.linalg.svd(A, compute_uv=False)[:, 0]
        assert norms[1:] == pytest.approx(np.full(l - 1, norms[0]), rel=1e-13)  # every factor as large
        delta = norms[0] - 1  # the crossing factor diag(-delta, 1) - I, of norm 1 + delta
        assert delta ** (-1.0 / (l - 1)) - 1 == pytest.approx(1 + delta, rel=1e-13)
        assert np.abs(residual_product(A) - np.diag([-1.0, 1.0])).max() < 1e-12
    np.testing.assert_array_equal(reflection_factorisation(1), [np.diag([-2.0, 0.0])])
    with pytest.raises(ValueError, match=r"\bl\b"):
        reflection_factorisation(0)


def test_key_figure_data_are_the_constructions_bounds_and_factors_they_name():
    from resnet_nb.hardt_ma.linear import det_sign_data, reflection_factorisation, theorem21_bound

    ls, factor_ls = (1, 3, 6), (2, 5)
    data = det_sign_data(ls=ls, search_ls=(2,), factor_ls=factor_ls, restarts=1, steps=5)
    plus = {"-I_2": -np.eye(2), "diag(-1, -2)": np.diag([-1.0, -2.0])}
    np.testing.assert_array_equal(data["ls"], ls)
    np.testing.assert_array_equal(data["search_ls"], (2,))
    gammas = {"-I_2": 0.0, "diag(-1, -2)": math.log(2)}
    for name, R in plus.items():
        norms = [np.linalg.svd(theorem21_construction(R, l)[0], compute_uv=False).max() for l in ls]
        assert data[name] == pytest.approx(norms, rel=1e-12)
        assert data[name + " bound"] == pytest.approx([theorem21_bound(gammas[name], l) for l in ls], rel=1e-12)
    explicit = [np.linalg.svd(reflection_factorisation(l), compute_uv=False).max() for l in ls]
    assert data["explicit"] == pytest.approx(explicit, rel=1e-12)
    # every factor's spectral norm and det(I + A_k), in the order the figure lists them
    stacks = {
        "det R > 0: construction": [theorem21_construction(R, l)[0] for R in plus.values() for l in factor_ls],
        "det R < 0: explicit": [reflection_factorisation(l) for l in factor_ls],
    }
    for key, As in stacks.items():
        norms, dets = data["factors"][key]
        factors = np.concatenate(As)
        assert norms == pytest.approx([np.linalg.svd(F, compute_uv=False)[0] for F in factors], rel=1e-12)
        assert dets == pytest.approx([np.prod(np.linalg.eigvals(np.eye(2) + F)).real for F in factors], rel=1e-10)
    norms, dets = data["factors"]["det R < 0: search"]
    assert norms.shape == dets.shape == (2,)  # the l = 2 search: two factors
    assert np.prod(dets) == pytest.approx(-1.0, rel=1e-9)  # of R = diag(-1, 1)
    with pytest.raises(ValueError, match=r"\bl\b"):
        det_sign_data(ls=(0,), search_ls=(2,), factor_ls=(2,), restarts=1, steps=1)


def test_det_lemma_search_stops_only_where_its_simplex_agrees_to_1e_14_in_value_and_1e_10_in_place(monkeypatch):
    """Nelder-Mead's stopping rule (fatol = 1e-14, xatol = 1e-10), met before its iteration limit,
    at every start and restart of the d = 3 search of hm-thm21-det."""
    import scipy.optimize

    import resnet_nb.hardt_ma.linear.theorem21 as t21

    ends = []

    def recorded(fun, x0, **kw):
        res = scipy.optimize.minimize(fun, x0, **kw)
        ends.append(res)
        return res

    monkeypatch.setattr(t21, "minimize", recorded)
    t21.det_lemma_search(3, 3.0, seed=5)
    assert len(ends) == 2 * 6
    for res in ends:
        xs, fs = res.final_simplex
        assert res.success and res.nit < 20000
        assert np.ptp(fs) <= 1e-14
        assert np.abs(xs - xs[0]).max() <= 1e-10
