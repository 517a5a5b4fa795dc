"""Hardt & Ma section 3, the ReLU residual network (resnet_nb.hardt_ma.relu.network): points, separation,
the parameter count, and the argument checks of the relu package."""

import numpy as np
import pytest

import resnet_nb.hardt_ma.relu as hr
from resnet_nb.hardt_ma.relu import (
    ReLUResNet,
    as_points,
    lemma_b1_counterexamples,
    lemma_b1_hypotheses,
    lemma_b1_paper,
    lemma_block,
    margins,
    pad_configuration,
    paper_width,
    parameter_count,
    projected_margins,
    separation,
    surrogate_inner_products,
    surrogate_vectors,
    theorem32_construction,
    unit_norm_columns,
)

BAD = np.zeros(3)  # a 1-d array: not (dimension, points)


def _unit(k, n, seed=0):
    return unit_norm_columns(np.random.default_rng(seed).standard_normal((k, n)))


NAMED = [
    ("X", lambda: unit_norm_columns(BAD)),
    ("X", lambda: separation(BAD)),
    ("H", lambda: margins(BAD, [0])),
    ("X", lambda: ReLUResNet(np.eye(3)).hidden(BAD)),
    ("X", lambda: ReLUResNet(np.eye(3)).trajectory(BAD)),
    ("H", lambda: lemma_block(BAD, [0], np.zeros((3, 1)))),
    ("targets", lambda: lemma_block(_unit(3, 4), [0], BAD)),
    ("targets", lambda: lemma_block(_unit(3, 4), [0], np.zeros((3, 2)))),
    ("k", lambda: lemma_block(_unit(3, 4), [0], np.zeros((3, 1)), k=0)),
    ("safety", lambda: lemma_block(_unit(3, 4), [0], np.zeros((3, 1)), safety=1.0)),
    ("r", lambda: surrogate_vectors(0, 3, 1.0)),
    ("k", lambda: surrogate_vectors(2, 0, 1.0)),
    ("radius", lambda: surrogate_vectors(2, 3, 0.0)),
    ("X", lambda: theorem32_construction(BAD, [0, 1, 2])),
    ("r", lambda: theorem32_construction(_unit(3, 4), [0, 1, 0, 1], r=0)),
    ("k", lambda: theorem32_construction(_unit(3, 4), [0, 1, 0, 1], k=0)),
    ("selection", lambda: theorem32_construction(_unit(3, 4), [0, 1, 0, 1], selection="random")),
    ("X", lambda: projected_margins(BAD, 3)),
    ("k", lambda: projected_margins(_unit(3, 4), 0)),
    ("alpha", lambda: lemma_b1_hypotheses(BAD, [0], 0.1)),
    ("rho_prime", lambda: lemma_b1_hypotheses(_unit(2, 3), [0], 0.0)),
    ("alpha", lambda: lemma_b1_paper(BAD, [0], np.zeros((2, 1)), 0.1)),
    ("rho_prime", lambda: lemma_b1_paper(_unit(2, 3), [0], np.zeros((2, 1)), 0.0)),
    ("beta", lambda: lemma_b1_paper(_unit(2, 3), [0], BAD, 0.1)),
    ("rho_prime", lambda: lemma_b1_counterexamples(0.0)),
    ("n", lambda: paper_width(1, 0.5)),
    ("rho_paper", lambda: paper_width(10, 0.0)),
    ("c", lambda: paper_width(10, 0.5, c=0.0)),
    ("alpha", lambda: pad_configuration(BAD, 4)),
    ("k", lambda: pad_configuration(_unit(2, 2), 2)),
    ("r", lambda: surrogate_inner_products(1, 3)),
    ("k", lambda: surrogate_inner_products(2, 0)),
    ("draws", lambda: surrogate_inner_products(2, 3, draws=0)),
]


def test_paper_rho_is_the_squared_separation():
    X = np.array([[0.0, 3.0, 0.0], [0.0, 4.0, 1.0]])
    assert hr.paper_rho(X) == separation(X) ** 2 == 1.0
    assert hr.paper_rho(np.array([[0.0, 2.0]])) == 4.0  # squared, not the distance 2


def test_error_messages_name_the_argument():
    for name, call in NAMED:
        with pytest.raises(ValueError, match=rf"\b{name} must"):
            call()


def test_points_must_be_a_non_empty_2d_array():
    for bad in (np.zeros(3), np.zeros((0, 3)), np.zeros((3, 0)), np.zeros((2, 2, 2))):
        with pytest.raises(ValueError, match=r"\bX must"):
            separation(bad)
    assert separation(np.array([[1.0, 3.0]])) == 2.0  # one coordinate is enough


def test_integer_points_are_computed_in_float64():
    # margins of integer coordinates (the diagonal is set to inf), and no integer overflow
    assert margins(np.array([[3, 0, 1], [0, 2, 1]]), [0, 1, 2]).tolist() == [6.0, 2.0, -1.0]
    assert separation(np.array([[0, 4_000_000_000]])) == 4e9
    assert as_points("X", [[1, 2]]).dtype == np.float64


def test_indices_are_converted_to_integers():
    """Whole-number floats (what np.linspace or arithmetic on indices gives) select the same points."""
    H = _unit(3, 5)
    assert np.array_equal(margins(H, [0.0, 2.0]), margins(H, [0, 2]))
    T = np.ones((3, 1))
    for a, b in zip(lemma_block(H, [1.0], T)[:3], lemma_block(H, [1], T)[:3]):
        assert np.array_equal(a, b)
    assert lemma_b1_hypotheses(H, [0.0], 0.1) == lemma_b1_hypotheses(H, [0], 0.1)
    assert lemma_b1_paper(H, [2.0], T, 0.1)[3] == lemma_b1_paper(H, [2], T, 0.1)[3]


def test_parameter_count_adds_up():
    block = (np.zeros((3, 3)), np.zeros((3, 3)), np.zeros(3))
    net = ReLUResNet(np.zeros((3, 5)), blocks=[block, block])
    assert parameter_count(net) == dict(residual=42, last=0, trainable=42, projection=15, total=57)
    net.last = (np.zeros((2, 3)), np.zeros((2, 2)), np.zeros(2))
    assert parameter_count(net) == dict(residual=42, last=12, trainable=54, projection=15, total=69)


def test_points_with_a_nan_an_inf_or_a_zero_column_are_refused_by_name():
    for bad in (np.nan, np.inf):
        X = np.array([[0.0, 1.0], [bad, 1.0]])
        for call, name in ((separation, "X"), (unit_norm_columns, "X"), (lambda H: margins(H, [0]), "H")):
            with pytest.raises(ValueError, match=rf"\b{name} must have finite entries"):
                call(X)
    with pytest.raises(ValueError, match=r"\bX has a zero column"):
        unit_norm_columns(np.array([[1.0, 0.0], [2.0, 0.0]]))


def test_the_network_refuses_inputs_of_the_wrong_dimension_and_says_what_it_got():
    # A0 maps R^4 to R^3; inputs with 2 rows (and 5 points) are refused, naming the 2 rows
    net = ReLUResNet(np.ones((3, 4)), last=(np.eye(3), np.eye(3), np.zeros(3)))
    X = np.ones((2, 5))
    for call in (net.hidden, net.trajectory, net):
        with pytest.raises(ValueError, match=r"\bX\b.*\bgot 2\b"):
            call(X)


def test_the_network_projects_then_adds_each_block_then_reads_out_through_the_last_block():
    rng = np.random.default_rng(8)
    d, k, r, n = 4, 3, 2, 6
    A0 = rng.standard_normal((k, d))
    blocks = [(rng.standard_normal((5, k)), rng.standard_normal((k, 5)), rng.standard_normal(5)) for _ in range(2)]
    last = (rng.standard_normal((7, k)), rng.standard_normal((r, 7)), rng.standard_normal(7))
    net = ReLUResNet(A0, blocks=blocks, last=last)
    X = rng.standard_normal((d, n))
    h = A0 @ X
    expected = [h]
    for U, V, b in blocks:
        h = h + V @ np.maximum(U @ h + b[:, None], 0)
        expected.append(h)
    states = net.trajectory(X)
    assert len(states) == 3
    for got, want in zip(states, expected):
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(net.hidden(X), expected[-1], rtol=1e-13, atol=1e-13)
    U, V, b = last
    np.testing.assert_allclose(net(X), V @ np.maximum(U @ expected[-1] + b[:, None], 0), rtol=1e-13, atol=1e-13)


def test_random_unit_draw_and_the_projection_are_those_of_the_construction():
    X, y = hr.random_unit_draw(4, n=30, d=8, r=3)
    assert X.shape == (8, 30) and np.linalg.norm(X, axis=0) == pytest.approx(np.ones(30), rel=1e-12)
    assert set(y.tolist()) <= {0, 1, 2} and y.shape == (30,)
    net, _ = theorem32_construction(X, y, k=5, r=3, seed=9)
    np.testing.assert_array_equal(net.A0, hr.projection_A0(8, 5, 9))
    assert hr.projection_A0(8, 5, 9).shape == (5, 8)


def test_exact_fits_fit_every_size_of_every_data_set_with_its_counts():
    rng = np.random.default_rng(0)
    X = hr.unit_norm_columns(rng.standard_normal((8, 60)))
    y = rng.integers(0, 3, 60)
    rows = hr.exact_fits({"a": (X, y), "b": (X[:, ::-1], y[::-1])}, sizes=(20, 60), r=3)
    assert [(row["data"], row["n"]) for row in rows] == [("a", 20), ("a", 60), ("b", 20), ("b", 60)]
    for row in rows:
        assert row["max_error"] < 1e-8 and row["ceil_n_over_k"] == -(-row["n"] // row["k"])
        assert row["blocks"] >= row["ceil_n_over_k"] and row["trainable"] > 0 and row["min_margin"] > 0
    net, rep = hr.theorem32_construction(X[:, :20], y[:20], r=3)
    assert rows[0]["blocks"] == rep["blocks"] and rows[0]["trainable"] == hr.parameter_count(net)["trainable"]
