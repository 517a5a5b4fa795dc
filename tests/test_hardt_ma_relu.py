"""Hardt & Ma section 3: the lemma's block and Theorem 3.2's construction."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import resnet_nb.hardt_ma.relu as hr
from resnet_nb.hardt_ma.relu import (lemma_block, margins, parameter_count, projected_margins, relu_block,
                                     separation, surrogate_vectors, theorem32_construction,
                                     unit_norm_columns)


@settings(max_examples=30, deadline=None)
@given(k=st.integers(2, 12), n=st.integers(2, 60), seed=st.integers(0, 10_000))
def test_lemma_block_moves_chosen_points_and_fixes_the_rest(k, n, seed):
    rng = np.random.default_rng(seed)
    H = unit_norm_columns(rng.standard_normal((k, n)))
    m = int(rng.integers(1, min(k, n) + 1))
    idx = rng.choice(n, m, replace=False)
    T = rng.standard_normal((k, m))
    U, V, b, rep = lemma_block(H, idx, T)
    out = relu_block(H, U, V, b)
    assert np.abs(out[:, idx] - T).max() <= 1e-9 * max(1, 1 / rep["margins"].min())
    rest = np.setdiff1d(np.arange(n), idx)
    assert np.array_equal(out[:, rest], H[:, rest])  # exactly fixed: relu of a negative number is 0


def test_lemma_block_refuses_an_unexposed_centre():
    H = np.array([[1.0, 2.0, 0.0], [0.0, 0.0, 1.0]])  # (2, 0) lies beyond the tangent plane of (1, 0)
    assert margins(H, [0])[0] < 0
    with pytest.raises(ValueError, match="margin"):
        lemma_block(H, [0], np.zeros((2, 1)))


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


def test_construction_fits_1000_points_and_paper_order_needs_the_papers_width():
    """Greedy fits at k = 30; the paper's order fails at k = 30 and fits at the proof's width
    k = 10 ln n / rho^2 (rho: the paper's bound on squared distances). That width exceeds d = 50
    here, where the projection reduces nothing: a regression test of the construction, not
    evidence for Theorem 3.2's width (see test_paper_order_fails_on_some_draws_below_d)."""
    from resnet_nb.hardt_ma.relu import paper_width, separation

    rng = np.random.default_rng(2)
    X = unit_norm_columns(rng.standard_normal((50, 1000)))
    y = rng.integers(0, 10, 1000)
    net, rep = theorem32_construction(X, y, k=30)
    assert np.abs(net(X) - np.eye(10)[:, y]).max() <= 1e-8
    with pytest.raises(ValueError, match="margin"):
        theorem32_construction(X, y, k=30, selection="paper")
    k = paper_width(1000, separation(X) ** 2)
    assert k > 30
    net, rep = theorem32_construction(X, y, k=k, selection="paper")
    assert np.abs(net(X) - np.eye(10)[:, y]).max() <= 1e-8
    assert rep["blocks"] == -(-1000 // k)  # the paper's order: ceil(n / k) blocks


def test_greedy_fits_at_constant_width():
    rng = np.random.default_rng(4)
    X = unit_norm_columns(rng.standard_normal((20, 300)))
    y = rng.integers(0, 5, 300)
    for k in (2, 3):
        net, rep = theorem32_construction(X, y, k=k, r=5)
        assert np.abs(net(X) - np.eye(5)[:, y]).max() <= 1e-6
        assert -(-300 // k) <= rep["blocks"] <= 300
        assert parameter_count(net)["trainable"] <= 300 * (2 * k * k + k) + 5 * k + 5 * 5 + 5  # proven bound


def test_padded_lemma_b1_counterexamples_keep_failing():
    from resnet_nb.hardt_ma.relu import (lemma_b1_counterexamples, lemma_b1_hypotheses, lemma_b1_paper,
                                         pad_configuration)

    ce = lemma_b1_counterexamples(0.1)
    for name in ("pair", "hull"):
        alpha, S = pad_configuration(ce[name], 4)
        assert S.size == 4 and alpha.shape == (4, ce[name].shape[1] + 3)
        h = lemma_b1_hypotheses(alpha, S, 0.1)
        assert h["norms_ok"] and h["separation_ok"]
        _, _, _, rep = lemma_b1_paper(alpha, S, np.ones((4, 4)), 0.1)
        assert rep["fixed_error"] > 0.5


def test_surrogate_inner_products_fraction():
    from resnet_nb.hardt_ma.relu import surrogate_inner_products

    lo = surrogate_inner_products(10, 10, draws=500)
    hi = surrogate_inner_products(10, 200, draws=500)
    assert lo["below"] < 0.5 < hi["below"] and lo["abs_below"] <= lo["below"]


@pytest.mark.parametrize("cid", ["hm-thm32", "hm-lemma-b1", "hm-constant-width"])
def test_claim_holds_and_its_falsifier_is_rejected(cid):
    from resnet_nb.hardt_ma import relu as hardt_ma_relu  # noqa: F401  (declares the claims)
    from resnet_nb.book.ledger import LEDGER

    c = LEDGER[cid]
    assert c.check(falsify=False).require().passed
    assert c.check(falsify=True).rejected_on_value


def test_duplicate_points_and_bad_labels_raise():
    X = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    with pytest.raises(ValueError, match="identical"):
        theorem32_construction(X, np.array([0, 1, 0]))
    with pytest.raises(ValueError, match="labels"):
        theorem32_construction(np.eye(3), np.array([0.5, 1, 0]))
    with pytest.raises(ValueError, match="selection"):
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
    with pytest.raises(ValueError, match="margin"):
        theorem32_construction(X, y, k=8, seed=0, selection="paper")
    # unit vectors without projection: margin = rho^2 / 2 exactly
    m = margins(X, np.arange(200)).min()
    assert abs(m - separation(X) ** 2 / 2) <= 1e-12


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
    with pytest.raises(ValueError, match="margin"):
        lemma_block(hull, [0], np.zeros((2, 1)))


def test_lemma_b1_as_printed_works_when_its_proof_inequality_holds():
    from resnet_nb.hardt_ma.relu import lemma_b1_paper
    rng = np.random.default_rng(7)
    A = unit_norm_columns(rng.standard_normal((30, 40)))  # ||a_i - a_j||^2 about 2 >= 6 rho'
    S = np.arange(5)
    _, _, _, rep = lemma_b1_paper(A, S, rng.standard_normal((30, 5)), 0.1)
    assert rep["fixed_error"] == 0.0 and rep["moved_error"] < 1e-12


def test_a_lone_point_is_moved_exactly_and_a_nan_would_show_in_the_report():
    """Found by mutation testing: with one point its margin is a minimum over no other point
    (inf), which used to make delta = inf and the block's output 0 * inf = NaN, while the
    construction's report said 0 (max(0.0, nan) is 0.0)."""
    for z in ([[1.0], [0.0]], [[0.0], [0.0]], [[3.0], [-4.0]]):
        H = np.array(z)
        T = np.array([[0.25], [-2.0]])
        U, V, b, rep = hr.lemma_block(H, [0], T)
        assert np.isinf(rep["margins"][0]) and rep["moved_error"] < 1e-12
        assert np.abs(hr.relu_block(H, U, V, b) - T).max() < 1e-12
    X = np.array([[1.0], [0.0], [0.0]])
    net, rep = hr.theorem32_construction(X, [0])
    assert np.isfinite(net(X)).all() and abs(net(X)[0, 0] - 1.0) < 1e-12 and rep["moved_error"] < 1e-12


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
    with pytest.raises(ValueError, match=r"rho_prime must lie in \(0.0, 0.12\]"):
        hr.lemma_b1_counterexamples(0.13)


def test_paper_rho_is_the_squared_separation():
    X = np.array([[0.0, 3.0, 0.0], [0.0, 4.0, 1.0]])
    assert hr.paper_rho(X) == separation(X) ** 2 == 1.0
    assert hr.paper_rho(np.array([[0.0, 2.0]])) == 4.0  # squared, not the distance 2


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
            with pytest.raises(ValueError, match="margin") as exc:
                theorem32_construction(X, y, k=k, r=10, seed=seed, selection="paper")
            assert int(re.search(r"point (\d+)", str(exc.value)).group(1)) == f["point"]
            assert f["point"] // k == f["block"]
        else:
            net, _ = theorem32_construction(X, y, k=k, r=10, seed=seed, selection="paper")
            assert np.abs(net(X) - np.eye(10)[:, y]).max() <= 1e-8
    assert seen == {True, False}  # both cases occur among these draws


def test_paper_order_fails_on_some_draws_below_d():
    """Theorem 3.2's width is a probability statement: at k < d some draws fail, and the greedy
    order fits those same draws."""
    fails = []
    for seed in range(20):
        X, y = hr.random_unit_draw(seed)
        k = hr.paper_width(600, hr.paper_rho(X))
        f = hr.paper_order_failure(X, k, seed=seed)
        fails.append(f["fails"])
        if f["fails"] and sum(fails) <= 2:
            net, _ = theorem32_construction(X, y, k=k, r=10, seed=seed)
            assert np.abs(net(X) - np.eye(10)[:, y]).max() <= 1e-8
    rate = hr.failure_rate(fails)
    assert 0 < rate["failures"] < 20 and rate["low"] < rate["rate"] < rate["high"]


def test_clopper_pearson_known_values():
    low, high = hr.clopper_pearson(0, 100)
    assert low == 0.0 and high == pytest.approx(1 - 0.025 ** (1 / 100), rel=1e-9)
    low, high = hr.clopper_pearson(100, 100)
    assert high == 1.0 and low == pytest.approx(0.025 ** (1 / 100), rel=1e-9)
    low, high = hr.clopper_pearson(19, 100)
    assert 0.11 < low < 0.12 and 0.28 < high < 0.29
    for bad in ((5, 4), (-1, 4)):
        with pytest.raises(ValueError):
            hr.clopper_pearson(*bad)
    with pytest.raises(ValueError, match="level"):
        hr.clopper_pearson(1, 4, level=1.0)


def test_theorem32_falsifier_is_the_printed_constant_under_both_readings():
    """The falsifier is the printed c = 10; its comparison fails under each reading of rho, and
    the claim's c = 30 widths stay below d (a projection that reduces the dimension)."""
    cfg = hr.THM32_DRAWS
    bad = hr.check_theorem32(falsify=True)
    assert not bad.passed and bad.values["c"] == cfg["c_paper"] == 10
    assert all(not p.passed for p in bad.parts) and len(bad.parts) == len(hr.RHO_READINGS) == 2
    good = hr.check_theorem32()
    assert good.passed and good.values["c"] == cfg["c_larger"]
    for r in hr.RHO_READINGS:
        assert good.values[r]["k_max"] < cfg["d"] and good.values[r]["draws"] == cfg["draws"]
        assert bad.values[r]["k_min"] < good.values[r]["k_min"]


def test_jl_distortion_against_a_direct_computation():
    """Every distance among {0, x_i}, one pair at a time, with the construction's projection."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((7, 9))
    k, seed = 4, 11
    A0 = hr.projection_A0(7, k, seed)
    worst = max(abs(np.linalg.norm(A0 @ X[:, i]) / np.linalg.norm(X[:, i]) - 1) for i in range(9))
    for i in range(9):
        for j in range(i + 1, 9):
            u = X[:, i] - X[:, j]
            worst = max(worst, abs(np.linalg.norm(A0 @ u) / np.linalg.norm(u) - 1))
    assert hr.jl_distortion(X, k, seed) == pytest.approx(worst, rel=1e-9)
    with pytest.raises(ValueError, match="equal columns"):
        hr.jl_distortion(X[:, [0, 0, 1]], k, seed)


def test_jl_step_reads_rho_both_ways():
    """rho is the squared smallest distance under Assumption 3.1 and the distance itself under the
    proof's reading; on these draws the smallest distance exceeds 1, so the proof's reading gives
    the larger width."""
    dr = hr.thm32_draw(0)
    sq, dist = dr["rho"][hr.RHO_READINGS[0]], dr["rho"][hr.RHO_READINGS[1]]
    assert sq == pytest.approx(dist ** 2) and hr.paper_width(600, dist) > hr.paper_width(600, sq)
    assert dist > 1 and dr["projection_seed"] != 0  # the projection is not drawn from the data's seed


def test_constant_width_falsifier_drops_k_at_least_2():
    """At k = 1 the surrogates of norm s can only be +-s: the construction cannot give 10 classes."""
    bad = hr.check_constant_width(falsify=True)
    assert not bad.passed and bad.value == np.inf and "k = 1" in bad.claim and "coincide" in bad.lines[0]


def test_committed_thm32_tables_recompute():
    """Rows of results/hm_thm32/ (scripts/hm_thm32.py) recomputed here agree with the stored ones."""
    import pandas as pd

    from resnet_nb.core.paths import RESULTS

    draws = pd.read_csv(RESULTS / "hm_thm32" / "draws.csv")
    assert len(draws) == hr.THM32_DRAWS["draws"]
    for seed in (0, 7):
        live = hr.thm32_draw_row(seed, greedy=seed == 0)
        saved = draws.iloc[seed]
        for key, value in live.items():
            if isinstance(value, (bool, np.bool_, int, np.integer)):
                assert saved[key] == value, key
            elif key == "greedy_error":
                assert saved[key] < 1e-8 and value < 1e-8
            else:
                assert saved[key] == pytest.approx(value, rel=1e-12), key
    proj = pd.read_csv(RESULTS / "hm_thm32" / "projections.csv")
    X = hr.chapter_point_sets()["synthetic"][0]
    live = hr.projection_row(X, 46, 3)
    saved = proj[(proj.data == "synthetic") & (proj.k == 46) & (proj.seed == 3)].iloc[0]
    assert saved.refuses == live["refuses"] and saved.min_margin == pytest.approx(live["min_margin"], rel=1e-12)
    assert proj.groupby(["data", "k"]).size().eq(hr.THM32_RESULTS["projections"]).all()


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


def test_construction_figure_has_one_panel_per_block():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = hr.construction_figure(6, 3)
    assert len(fig.axes) == len(hr.construction_steps(6, 3)["moved"]) == 3
    assert fig.axes[0].get_title().startswith("block 1 moves points")
    plt.close(fig)


def test_constant_width_size_part_is_labelled_an_implementation_test():
    chk = hr.check_constant_width()
    assert chk.passed and any("implementation test" in p.claim for p in chk.parts)
