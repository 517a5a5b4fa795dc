"""Hardt & Ma's key lemma, Lemma 3.3 / B.2 (resnet_nb.hardt_ma.relu.theorem32.lemma_block): one block moves
the chosen points onto their targets and leaves every other point where it is."""

import numpy as np
import pytest
from helpers import block_centres
from hypothesis import given, settings
from hypothesis import strategies as st

import resnet_nb.hardt_ma.relu as hr
from resnet_nb.hardt_ma.relu import lemma_block, margins, relu_block, unit_norm_columns


def _unit(k, n, seed=0):
    return unit_norm_columns(np.random.default_rng(seed).standard_normal((k, n)))


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
    with pytest.raises(ValueError, match=r"\bmargin\b"):
        lemma_block(H, [0], np.zeros((2, 1)))


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


def test_lemma_block_refuses_bad_index_lists():
    H = _unit(3, 5)
    for idx in ([], [1, 1], [[0]]):
        with pytest.raises(ValueError, match=r"\bidx must"):
            lemma_block(H, idx, np.zeros((3, 1)))
    for idx in ([-1], [5], [0, 5]):
        with pytest.raises(ValueError, match=r"\bidx must"):
            lemma_block(H, idx, np.zeros((3, len(idx))))


def test_lemma_block_width_must_match_the_points():
    with pytest.raises(ValueError, match="a block of width k = 4 works on points of dimension k"):
        lemma_block(_unit(3, 5), [0], np.zeros((3, 1)), k=4)
    with pytest.raises(ValueError, match="a block of width k = 2 .* got dimension 2 and 3 points"):
        lemma_block(_unit(2, 5), [0, 1, 2], np.zeros((2, 3)))
    lemma_block(_unit(3, 5), [0, 1, 2], np.zeros((3, 3)), k=3)


@pytest.mark.parametrize("safety", [0.0, -0.5, 1.0, 1.5])
def test_safety_must_lie_strictly_between_0_and_1(safety):
    with pytest.raises(ValueError, match=r"\bsafety must"):
        lemma_block(_unit(3, 5), [0], np.zeros((3, 1)), safety=safety)


def test_lemma_block_refuses_a_centre_of_zero_margin_and_names_it():
    H = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, -1.0]])  # <(1, 0), (1, 1)> = ||(1, 0)||^2
    assert margins(H, [0, 2]).tolist() == [0.0, 1.0]
    with pytest.raises(ValueError, match="point 0 has margin 0 <= 0"):
        lemma_block(H, [2, 0], np.zeros((2, 2)))


def test_units_without_a_centre_never_fire():
    """The block has k units and only m <= k centres: the other units have U-row 0 and a negative
    bias, so their pre-activation is negative at every input (and their V-columns are 0)."""
    H = _unit(4, 10)
    U, V, b, _ = lemma_block(H, [3, 7], np.ones((4, 2)))
    anywhere = np.random.default_rng(1).standard_normal((4, 50)) * 10
    assert np.all(U[2:] @ anywhere + b[2:, None] < 0)
    assert not V[:, 2:].any()


def test_block_biases_use_delta_equal_to_safety_times_margin():
    H = _unit(3, 8)
    for safety in (0.2, 0.5, 0.9):
        U, V, b, rep = lemma_block(H, [1, 4], np.zeros((3, 2)), safety=safety)
        Z = H[:, [1, 4]]
        assert np.allclose(b[:2], -((Z**2).sum(0) - safety * rep["margins"]), rtol=0, atol=1e-15)
        assert np.allclose(V[:, :2], -Z / (safety * rep["margins"]), rtol=1e-14, atol=0)


def test_lemma_report_measures_the_displacement_of_the_other_points(near_one):
    X, y, safety, net, rep, moved, fixed = near_one
    states = net.trajectory(X)
    worst = 0.0
    for j, (U, _V, _b) in enumerate(net.blocks):
        idx = block_centres(states[j], U)
        U2, V2, b2, r2 = lemma_block(states[j], idx, net.last[0].T[:, y[idx]], safety=safety)
        out = relu_block(states[j], U2, V2, b2)
        rest = np.setdiff1d(np.arange(40), idx)
        assert r2["fixed_error"] == float(np.abs(out[:, rest] - states[j][:, rest]).max())
        worst = max(worst, r2["fixed_error"])
    assert worst == fixed > 0  # some block displaced a point it should have left alone


def test_a_lone_points_delta_is_safety_times_its_squared_norm_and_at_least_safety():
    # with no other point the margin is inf; delta = safety * max(||z||^2, 1) (a point at distance
    # ||z|| would allow that margin), so the unit's bias is -(||z||^2 - delta)
    for z, safety in (([[2.0], [1.0]], 0.5), ([[3.0], [-4.0]], 0.2), ([[0.3], [0.4]], 0.5)):
        H = np.array(z)
        sq = float((H**2).sum())
        delta = safety * max(sq, 1.0)
        U, V, b, rep = lemma_block(H, [0], np.zeros((2, 1)), safety=safety)
        assert b[0] == pytest.approx(-(sq - delta), rel=1e-14)
        np.testing.assert_allclose(V[:, 0], -H[:, 0] / delta, rtol=1e-14)
        assert rep["fixed_error"] == 0.0  # no other point to fix
