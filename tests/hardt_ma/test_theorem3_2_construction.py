"""Hardt & Ma, Theorem 3.2's construction (resnet_nb.hardt_ma.relu.theorem32) and the book's constant-width
statement (resnet_nb.hardt_ma.relu.constant_width): surrogates, margins, the paper's and the greedy order."""

import math

import numpy as np
import pytest
from helpers import block_centres

import resnet_nb.hardt_ma.relu as hr
from resnet_nb.hardt_ma.relu import (
    construction_fit_error,
    margins,
    parameter_count,
    projected_margins,
    separation,
    surrogate_inner_products,
    surrogate_vectors,
    theorem32_construction,
    unit_norm_columns,
)


def _unit(k, n, seed=0):
    return unit_norm_columns(np.random.default_rng(seed).standard_normal((k, n)))


def _inner_products_by_hand(r, k, draws, seed):
    Q = np.random.default_rng(seed).standard_normal((draws, k, r))
    below = abs_below = 0
    for q in Q:
        q = q / np.linalg.norm(q, axis=0)
        off = [float(q[:, i] @ q[:, j]) for i in range(r) for j in range(i + 1, r)]
        below += max(off) < 0.5
        abs_below += max(abs(x) for x in off) < 0.5
    return dict(r=r, k=k, below=below / draws, abs_below=abs_below / draws)


def _greedy_inputs(case):
    rng = np.random.default_rng(case)
    if case == 3:  # unit-norm points
        return unit_norm_columns(rng.standard_normal((6, 60))), rng.integers(0, 4, 60), 3
    # norms spread over orders of magnitude: some margins are set by points already moved
    return rng.standard_normal((4, 20)) * np.exp(rng.standard_normal(20)), rng.integers(0, 3, 20), 2


@pytest.mark.parametrize("selection, d, n, k", [("greedy", 20, 150, 20), ("paper", 400, 40, 200)])
def test_construction_fits_separated_points_exactly(selection, d, n, k):
    rng = np.random.default_rng(1)
    X = unit_norm_columns(rng.standard_normal((d, n)))
    y = rng.integers(0, 4, n)
    net, rep = theorem32_construction(X, y, k=k, selection=selection)
    assert np.abs(net(X) - np.eye(4)[:, y]).max() <= 1e-8
    assert rep["fixed_error"] == 0.0
    pc = parameter_count(net)
    assert pc["residual"] == rep["blocks"] * (2 * k * k + k)


def test_greedy_fits_at_constant_width():
    rng = np.random.default_rng(4)
    X = unit_norm_columns(rng.standard_normal((20, 300)))
    y = rng.integers(0, 5, 300)
    for k in (2, 3):
        net, rep = theorem32_construction(X, y, k=k, r=5)
        assert np.abs(net(X) - np.eye(5)[:, y]).max() <= 1e-6
        assert -(-300 // k) <= rep["blocks"] <= 300
        assert parameter_count(net)["trainable"] <= 300 * (2 * k * k + k) + 5 * k + 5 * 5 + 5  # proven bound


def test_surrogate_inner_products_fraction():
    from resnet_nb.hardt_ma.relu import surrogate_inner_products

    lo = surrogate_inner_products(10, 10, draws=500)
    hi = surrogate_inner_products(10, 200, draws=500)
    assert lo["below"] < 0.5 < hi["below"] and lo["abs_below"] <= lo["below"]


def test_duplicate_points_and_bad_labels_raise():
    X = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    with pytest.raises(ValueError, match=r"\bidentical\b"):
        theorem32_construction(X, np.array([0, 1, 0]))
    with pytest.raises(ValueError, match=r"\blabels\b"):
        theorem32_construction(np.eye(3), np.array([0.5, 1, 0]))
    with pytest.raises(ValueError, match=r"\bselection\b"):
        theorem32_construction(np.eye(3), np.array([0, 1, 0]), selection="random")
    with pytest.raises(ValueError, match="zero column"):
        unit_norm_columns(np.zeros((2, 2)))


def test_separation_and_surrogates():
    assert separation(np.array([[0.0, 3.0, 0.0], [0.0, 4.0, 1.0]])) == 1.0
    Q = surrogate_vectors(10, 8, 0.5, seed=0)
    assert np.allclose(np.linalg.norm(Q, axis=0), 0.5)
    assert margins(Q, np.arange(10)).min() > 0


def test_trajectory_ends_at_surrogates_and_matches_hidden():
    rng = np.random.default_rng(4)
    X = unit_norm_columns(rng.standard_normal((12, 40)))
    y = rng.integers(0, 3, 40)
    net, rep = theorem32_construction(X, y, k=6)
    states = net.trajectory(X)
    assert len(states) == rep["blocks"] + 1
    assert np.array_equal(states[-1], net.hidden(X))
    Q = net.last[0].T  # surrogates as columns
    assert np.abs(states[-1] - Q[:, y]).max() <= 1e-9


def test_projected_margins_agree_with_the_construction():
    rng = np.random.default_rng(5)
    X = unit_norm_columns(rng.standard_normal((30, 200)))
    y = rng.integers(0, 3, 200)
    pm = projected_margins(X, 8, seed=0)
    assert pm["min_margin"] < 0 and 0 < pm["exposed"] < 1
    with pytest.raises(ValueError, match=r"\bmargin\b"):
        theorem32_construction(X, y, k=8, seed=0, selection="paper")
    # unit vectors without projection: margin = rho^2 / 2 exactly
    m = margins(X, np.arange(200)).min()
    assert abs(m - separation(X) ** 2 / 2) <= 1e-12


def test_paper_order_failure_agrees_with_the_construction():
    """The margin shortcut gives the construction's own decision and the point it names, on draws
    where the paper's order fails and on draws where it fits (k < d, the paper's width)."""
    import re

    seen = set()
    for seed in range(12):
        X, y = hr.random_unit_draw(seed)
        k = hr.paper_width(600, hr.paper_rho(X))
        assert k < 200
        f = hr.paper_order_failure(X, k, seed=seed)
        seen.add(f["fails"])
        if f["fails"]:
            with pytest.raises(ValueError, match=r"\bmargin\b") as exc:
                theorem32_construction(X, y, k=k, r=10, seed=seed, selection="paper")
            assert int(re.search(r"point (\d+)", str(exc.value)).group(1)) == f["point"]
            assert f["point"] // k == f["block"]
        else:
            net, _ = theorem32_construction(X, y, k=k, r=10, seed=seed, selection="paper")
            assert np.abs(net(X) - np.eye(10)[:, y]).max() <= 1e-8
    assert seen == {True, False}  # both cases occur among these draws


def test_constant_width_falsifier_drops_k_at_least_2():
    """At k = 1 the surrogates of norm s can only be +-s: the construction cannot give 10 classes."""
    bad = hr.claim_constant_width(falsify=True)
    assert not bad.passed and bad.value == np.inf and not bad.parts  # refused: no fit, no parameter count
    with pytest.raises(ValueError, match="coincide"):
        hr.surrogate_vectors(10, 1, 1.0, seed=1)


def test_construction_steps_move_every_point_onto_its_surrogate():
    st_ = hr.construction_steps(6, 3)
    S, Q, labels = st_["states"], st_["Q"], st_["labels"]
    assert np.abs(S[-1] - Q[:, labels]).max() <= 1e-12
    moved = np.concatenate(st_["moved"])
    assert sorted(moved.tolist()) == list(range(6)) and len(st_["moved"]) == 3
    for j, idx in enumerate(st_["moved"]):  # a block changes exactly the points it moves
        rest = np.setdiff1d(np.arange(6), idx)
        assert np.array_equal(S[j + 1][:, rest], S[j][:, rest])
        assert np.all(st_["deltas"][j] > 0)


def test_constant_width_counts_the_trainable_parameters_against_the_papers_bound():
    """The second part: the construction's trainable parameters (every block and the last one) over
    n(2k^2 + k) + rk + r^2 + r, at most 1; the claim's own points (n = 400 in R^20, seed 4, k = 3)."""
    chk = hr.claim_constant_width()
    n, k, r = 400, 3, 10
    rng = np.random.default_rng(4)
    X = hr.unit_norm_columns(rng.standard_normal((20, n)))
    net, _ = theorem32_construction(X, rng.integers(0, r, n), k=k, r=r, selection="greedy")
    trainable = sum(U.size + V.size + b.size for U, V, b in net.blocks) + r * k + r * r + r
    assert chk.passed and len(chk.parts) == 2
    size = chk.parts[1]
    assert size.tol == 1.0 and size.value == trainable / (n * (2 * k * k + k) + r * k + r * r + r) <= 1.0


def test_surrogate_vectors_are_seeded_and_of_the_given_norm():
    Q = surrogate_vectors(3, 4, 2.0, seed=0)
    assert np.array_equal(surrogate_vectors(3, 4, 2.0, seed=7), surrogate_vectors(3, 4, 2.0, seed=7))
    assert Q.shape == (4, 3) and np.allclose(np.linalg.norm(Q, axis=0), 2.0, rtol=1e-15)
    for radius in (0.0, -1.0):
        with pytest.raises(ValueError, match=r"\bradius must"):
            surrogate_vectors(3, 4, radius)


def test_surrogate_vectors_refuse_coinciding_directions():
    # k = 1: two surrogates of the same sign coincide (seed 1 draws two positive numbers)
    assert np.sign(np.random.default_rng(1).standard_normal((1, 2))).tolist() == [[1.0, 1.0]]
    with pytest.raises(ValueError, match="surrogates nearly coincide for r = 2, k = 1"):
        surrogate_vectors(2, 1, 1.0, seed=1)
    assert surrogate_vectors(2, 1, 1.0, seed=0).tolist() == [[1.0, -1.0]]
    # a radius whose square underflows: the margins are 0, nothing can be told apart
    with pytest.raises(ValueError, match="surrogates nearly coincide"):
        surrogate_vectors(3, 5, 1e-170)


def test_surrogate_coincidence_test_is_scale_invariant():
    Q1 = surrogate_vectors(5, 3, 1.0)
    for radius in (1e-6, 1e6):
        assert np.allclose(surrogate_vectors(5, 3, radius), radius * Q1, rtol=1e-14, atol=0)
        with pytest.raises(ValueError, match="surrogates nearly coincide"):
            surrogate_vectors(200, 2, radius)  # relative margins below 1e-6 at any scale


def test_surrogate_inner_products_against_a_loop():
    assert surrogate_inner_products(4, 6, draws=300, seed=3) == _inner_products_by_hand(4, 6, 300, 3)
    assert surrogate_inner_products(2, 3, draws=200) == _inner_products_by_hand(2, 3, 200, 0)  # r = 2 allowed
    with pytest.raises(ValueError, match=r"\br must"):
        surrogate_inner_products(1, 3)


def test_projected_margins_against_the_projection_they_describe():
    X = _unit(6, 30, seed=3)
    for seed in (0, 5):
        pm = projected_margins(X, 4) if seed == 0 else projected_margins(X, 4, seed=seed)
        H = np.random.default_rng(seed).standard_normal((4, 6)) / 2.0 @ X
        mg = margins(H, np.arange(30))
        norms = np.linalg.norm(H, axis=0)
        assert pm == dict(k=4, min_margin=mg.min(), exposed=(mg > 0).mean(), min_norm=norms.min(), max_norm=norms.max())
        assert 0 < pm["exposed"] and pm["min_norm"] < pm["max_norm"]


def test_projected_margins_count_only_positive_margins_as_exposed():
    # one coordinate, k = 1: the two equal points have margin exactly 0, the third a positive one
    pm = projected_margins(np.array([[1.0, 1.0, -1.0]]), 1)
    assert pm["min_margin"] == 0.0 and pm["exposed"] == pytest.approx(1 / 3)


def test_fit_error_reports_success_refusal_and_classes_beyond_the_labels():
    X = _unit(4, 12)
    y = np.array([0, 1] * 6)
    err, scale, why, count = construction_fit_error(X, y, 3, 4, "greedy")  # class 2 has no point
    assert err <= 1e-9 and scale > 0 and why == "" and count["last"] == 3 * 4 + 9 + 3
    # collinear points: each lies beyond the tangent plane of the nearer one (margin < 0)
    collinear = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    err, scale, why, count = construction_fit_error(collinear, [0, 1, 0], 2, 2, "paper")
    assert err == math.inf and count is None and why.startswith("point 1 has margin -")


def test_construction_arguments():
    X = _unit(4, 6)
    with pytest.raises(ValueError, match=r"\blabels must"):
        theorem32_construction(X, [0, 1, 2, 0, 1, 2], r=2)
    with pytest.raises(ValueError, match=r"\bX has two identical points"):
        theorem32_construction(np.array([[1.0, 1.0], [0.0, 0.0]]), [0, 1], k=2)
    # distinct points that the projection (k = 1, seed 0: A0 = g) sends to the same number
    g = np.random.default_rng(0).standard_normal((1, 2))
    X2 = np.array([[1.0, 1 + 0.1 * g[0, 1]], [0.0, -0.1 * g[0, 0]]])
    assert separation(X2) > 0
    if (g @ X2)[0, 0] != (g @ X2)[0, 1]:
        pytest.skip("this platform's rounding keeps the two projected points apart")
    with pytest.raises(ValueError, match="the projection merged two points"):
        theorem32_construction(X2, [0, 1], k=1)


def test_construction_with_more_classes_than_labels_present():
    X = _unit(5, 10)
    net, rep = theorem32_construction(X, np.arange(10) % 2, k=3, r=4)
    out = net(X)
    assert rep["r"] == 4 and out.shape == (4, 10)
    assert np.abs(out - np.eye(4)[:, np.arange(10) % 2]).max() <= 1e-9


def test_construction_passes_its_safety_to_every_block_and_the_last():
    X, y = _unit(5, 12), np.arange(12) % 3
    for safety in (0.3, 0.5, 0.8):
        net, rep = theorem32_construction(X, y, k=3, safety=safety)
        H = net.A0 @ X
        U, V, b = net.blocks[0]
        idx = [int(np.flatnonzero((H == u[:, None]).all(axis=0))[0]) for u in U if u.any()]
        delta = safety * margins(H, idx)
        assert np.allclose(b[: len(idx)], -((H[:, idx] ** 2).sum(0) - delta), rtol=0, atol=1e-15)
        Q = net.last[0].T
        assert np.allclose(net.last[1], np.eye(3) / (safety * margins(Q, np.arange(3)).min()), rtol=1e-14)


def test_construction_with_one_class_uses_a_midpoint_threshold():
    """r = 1: every point reaches the one surrogate q; the last unit fires from q/2 on, so the output
    is 0 at q/2, 1 at q and grows linearly in between."""
    X = _unit(5, 10)
    net, rep = theorem32_construction(X, np.zeros(10, dtype=int), k=3)
    assert np.abs(net(X) - 1.0).max() <= 1e-9
    U, V, b = net.last
    q = U[0]
    for t, want in ((0.5, 0.0), (0.75, 0.5), (1.0, 1.0)):
        assert V @ np.maximum(U @ (t * q) + b, 0.0) == pytest.approx([want], abs=1e-12)


def test_construction_report_measures_what_it_says(near_one):
    X, y, safety, net, rep, moved, fixed = near_one
    states = net.trajectory(X)
    assert (rep["k"], rep["r"], rep["n"], rep["blocks"]) == (3, 3, 40, len(net.blocks))
    assert rep["radius"] == 0.5 * np.linalg.norm(states[0], axis=0).min()
    assert rep["moved_error"] == moved and rep["fixed_error"] == fixed
    block_margins = []
    for j, (U, _V, b) in enumerate(net.blocks):
        idx = block_centres(states[j], U)
        block_margins.append(margins(states[j], idx))
        assert np.array_equal(b[: len(idx)], -((states[j][:, idx] ** 2).sum(0) - safety * block_margins[-1]))
    assert len(rep["block_margins"]) == len(block_margins)
    assert all(np.array_equal(a, c) for a, c in zip(rep["block_margins"], block_margins))
    assert rep["min_margin"] == min(m.min() for m in block_margins)


def test_construction_is_reproducible_and_its_randomness_documented():
    """Seed s (default 0): A0 = G / sqrt(k) with G from default_rng(s), the projection of
    :func:`projected_margins`; the surrogates are surrogate_vectors(r, k, radius, seed=s + 1)."""
    X, y = _unit(6, 20, seed=2), np.arange(20) % 3
    for kw in ({}, {"seed": 4}):
        s = kw.get("seed", 0)
        net, rep = theorem32_construction(X, y, k=4, **kw)
        again, _ = theorem32_construction(X, y, k=4, seed=s)
        assert np.array_equal(net.A0, np.random.default_rng(s).standard_normal((4, 6)) / 2.0)
        assert np.array_equal(net.last[0], surrogate_vectors(3, 4, rep["radius"], seed=s + 1).T)
        assert all(np.array_equal(a, b) for blk, blk2 in zip(net.blocks, again.blocks) for a, b in zip(blk, blk2))
        assert all(np.array_equal(a, b) for a, b in zip(net.last, again.last))
        pm = projected_margins(X, 4, **kw)
        assert pm["min_norm"] == 2 * rep["radius"]


@pytest.mark.parametrize("case", [3, 12])
def test_greedy_moves_the_remaining_points_of_largest_positive_margin(case):
    """Replays the greedy order from the trajectory: before each block, the centres are the
    (at most k) not-yet-moved points of largest margin (against every other point, moved or
    not), all of them positive."""
    X, y, k = _greedy_inputs(case)
    n = X.shape[1]
    net, rep = theorem32_construction(X, y, k=k)
    states = net.trajectory(X)
    unmoved = np.arange(n)
    for j, (U, _V, _b) in enumerate(net.blocks):
        mg = margins(states[j], unmoved)
        top = unmoved[np.argsort(-mg)[:k]]
        want = sorted(top[margins(states[j], top) > 0].tolist())
        assert sorted(block_centres(states[j], U)) == want
        unmoved = np.setdiff1d(unmoved, want)
    assert unmoved.size == 0


def test_greedy_leaves_a_point_of_zero_margin_for_a_later_block():
    # seed 0, k = 2: the projection puts point 1 exactly on the tangent plane of point 0
    # (margin exactly 0.0); greedy moves point 1 first, after which point 0 has a positive margin
    X = np.array([[1.5170062470639825, 3.4274321676381896], [-9.261430662335343, -7.44319121685264]])
    g = np.random.default_rng(0).standard_normal((2, 2)) / math.sqrt(2)
    if margins(g @ X, [0])[0] != 0.0:
        pytest.skip("this platform's rounding does not put the point exactly on the tangent plane")
    net, rep = theorem32_construction(X, [0, 1], k=2)
    assert rep["blocks"] == 2 and np.abs(net(X) - np.eye(2)).max() <= 1e-9


def test_claim_holds_and_its_falsifier_is_rejected(check_claim):
    check_claim("hm-constant-width")


@pytest.mark.parametrize(("n", "r", "seed"), [(6, 3, 3), (8, 2, 1), (2, 1, 0), (9, 4, 5)])
def test_construction_steps_start_evenly_on_the_circle_and_each_unit_fires_only_at_its_point(n, r, seed):
    st_ = hr.construction_steps(n, r, seed)
    H = st_["states"][0]
    assert np.linalg.norm(H, axis=0) == pytest.approx(np.ones(n), rel=1e-14)
    # point i within a quarter of the spacing of the angle 2 pi i / n
    off = np.angle(np.exp(1j * (np.arctan2(H[1], H[0]) - 2 * np.pi * np.arange(n) / n)))
    assert np.abs(off).max() <= 0.25 * 2 * np.pi / n + 1e-12
    np.testing.assert_array_equal(st_["labels"], np.arange(n) % r)
    qa = 2 * np.pi * (np.arange(r) + 0.5) / r
    np.testing.assert_allclose(st_["Q"], 0.5 * np.vstack([np.cos(qa), np.sin(qa)]), rtol=0, atol=1e-15)
    assert sorted(np.concatenate(st_["moved"]).tolist()) == list(range(n))
    for j, idx in enumerate(st_["moved"]):  # unit a fires exactly where <z_a, h> > ||z_a||^2 - delta_a
        Z, delta = st_["centres"][j], st_["deltas"][j]
        fires = Z @ st_["states"][j] > (Z**2).sum(1)[:, None] - delta[:, None]
        assert [np.flatnonzero(f).tolist() for f in fires] == [[i] for i in idx]
    np.testing.assert_allclose(st_["states"][-1], st_["Q"][:, st_["labels"]], rtol=0, atol=1e-12)


def test_construction_steps_needs_two_points_and_a_label():
    with pytest.raises(ValueError, match=r"\bn\b"):
        hr.construction_steps(1, 1)
    with pytest.raises(ValueError, match=r"\br\b"):
        hr.construction_steps(4, 0)


def test_default_width_is_6_ln_n_at_most_d():
    rng = np.random.default_rng(1)
    X = unit_norm_columns(rng.standard_normal((50, 40)))
    net, _ = theorem32_construction(X, rng.integers(0, 3, 40))
    assert net.A0.shape == (math.ceil(6 * math.log(40)), 50)  # 23 < d = 50
    X = unit_norm_columns(rng.standard_normal((10, 40)))
    net, _ = theorem32_construction(X, rng.integers(0, 3, 40))
    assert net.A0.shape == (10, 10)  # capped at d
    X = unit_norm_columns(rng.standard_normal((10, 1)))
    net, _ = theorem32_construction(X, [0])  # one point: the width of n = 2, ceil(6 ln 2) = 5
    assert net.A0.shape == (5, 10) and np.abs(net(X) - 1).max() < 1e-12


def test_identical_points_are_refused_whatever_the_rounding_of_their_gram_matrix():
    # separation's Gram formula rounds differently per BLAS kernel; the exact check must catch every pair
    rng = np.random.default_rng(5)
    for _ in range(200):
        X = np.round(rng.uniform(-1, 1, (2, 6)), 2)
        X[:, 4] = X[:, 1]
        with pytest.raises(ValueError, match=r"\bidentical points\b"):
            theorem32_construction(X, np.arange(6) % 2)
