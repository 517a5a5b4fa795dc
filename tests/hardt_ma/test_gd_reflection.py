"""Gradient descent when det R < 0 (resnet_nb.hardt_ma.linear.gd_reflection): the case Theorem 2.1
excludes."""

import numpy as np
import pytest

import resnet_nb.hardt_ma.linear as hm
from resnet_nb.hardt_ma.linear import max_spectral_norm, population_gd, population_risk, risk_gradient

S2 = np.diag([0.5, 2.0])


def test_population_gd_from_zero_stalls_for_a_reflection_and_converges_for_a_rotation():
    from resnet_nb.hardt_ma.linear import population_gd

    stall = population_gd(np.diag([-1.0, 1.0]), 4, lr=0.05, steps=3000)
    assert stall["excess"] > 0.999 and stall["norm"] < 1
    A = stall["A"]
    assert np.allclose(A[:, 0, 0], A[0, 0, 0]) and np.abs(A[:, 1, :]).max() == 0  # symmetric, diagonal
    ok = population_gd(np.diag([0.5, 1.5]), 4, lr=0.05, steps=3000)
    assert ok["excess"] < 1e-10 and ok["norm"] < 1
    escaped = population_gd(
        np.diag([-1.0, 1.0]), 3, lr=0.05, steps=6000, A0=0.01 * np.random.default_rng(0).standard_normal((3, 2, 2))
    )
    assert escaped["excess"] < 1e-3 and escaped["norm"] > 1


def test_gd_step_size_threshold_for_a_reflection():
    from resnet_nb.hardt_ma.linear import GD_STEP_LIMIT, population_gd

    R = np.diag([-1.0, 1.0])
    below = population_gd(R, 3, lr=0.9 * GD_STEP_LIMIT, steps=200)
    assert below["curve"].min() >= 1 - 1e-12 and below["norm"] < 1
    above = population_gd(R, 3, lr=0.3, steps=200)  # first step crosses u = 0; odd depth escapes
    assert above["excess"] < 1e-10 and above["norm"] == pytest.approx(2.0)
    even = population_gd(R, 4, lr=0.3, steps=200)  # (1 + a)^4 >= 0: the symmetric path never fits -1
    assert even["curve"].min() >= 1 - 1e-12


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


def test_population_gd_is_gradient_descent_on_the_risk_of_the_given_covariance():
    rng = np.random.default_rng(1)
    R = np.array([[0.8, 0.3], [-0.2, 1.1]])
    A0 = 0.1 * rng.standard_normal((2, 2, 2))
    lr, steps = 0.05, 3
    out = population_gd(R, 2, Sigma=S2, lr=lr, steps=steps, A0=A0)
    assert set(out) == {"A", "excess", "norm", "grad_norm", "curve"}
    A, curve = A0.copy(), []
    for _ in range(steps):
        curve.append(population_risk(A, R, S2, noise=0.0))
        A = A - lr * risk_gradient(A, R, S2)
    curve.append(population_risk(A, R, S2, noise=0.0))
    assert np.allclose(out["A"], A, rtol=1e-12, atol=1e-14)
    assert np.allclose(out["curve"], curve, rtol=1e-12)
    assert out["excess"] == out["curve"][-1]
    assert out["grad_norm"] == pytest.approx(np.linalg.norm(risk_gradient(A, R, S2)), rel=1e-12)
    assert out["norm"] == pytest.approx(max_spectral_norm(A), rel=1e-12)
    assert np.array_equal(A0, 0.1 * np.random.default_rng(1).standard_normal((2, 2, 2)))  # not modified in place


def test_claim_holds_and_its_falsifier_is_rejected(check_claim):
    c = check_claim("hm-gd-reflection")
    assert c.kind == "claim" and c.source.startswith(("Hardt & Ma", "the book"))


def test_population_gd_batch_runs_gradient_descent_on_each_start_with_its_own_step_size():
    from resnet_nb.hardt_ma.linear import population_gd_batch

    rng = np.random.default_rng(2)
    R = np.array([[0.8, 0.3], [-0.2, 1.1]])
    starts = 0.1 * rng.standard_normal((3, 2, 2, 2))
    lrs, steps = [0.05, 0.02, 0.1], 3
    batch = population_gd_batch(R, 2, starts, lrs, Sigma=S2, steps=steps)
    assert len(batch) == 3
    for A0, lr, out in zip(starts, lrs, batch):
        A, curve = A0.copy(), []
        for _ in range(steps):
            curve.append(population_risk(A, R, S2, noise=0.0))
            A = A - lr * risk_gradient(A, R, S2)
        curve.append(population_risk(A, R, S2, noise=0.0))
        np.testing.assert_allclose(out["A"], A, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(out["curve"], curve, rtol=1e-12)
        assert out["excess"] == out["curve"][-1]
        assert out["grad_norm"] == pytest.approx(np.linalg.norm(risk_gradient(A, R, S2)), rel=1e-12)
        assert out["norm"] == pytest.approx(max_spectral_norm(A), rel=1e-12)


def test_population_gd_batch_computes_in_double_precision_whatever_the_starts_dtype():
    from resnet_nb.hardt_ma.linear import population_gd_batch

    R = np.diag([0.5, 1.5])
    starts = 0.1 * np.random.default_rng(4).standard_normal((2, 3, 2, 2))
    for given in (starts.astype(np.float32), np.zeros((2, 3, 2, 2), dtype=np.int64)):
        exact = population_gd_batch(R, 3, given.astype(np.float64), [0.05, 0.1], steps=5)
        got = population_gd_batch(R, 3, given, [0.05, 0.1], steps=5)
        for a, b in zip(got, exact):
            assert a["A"].dtype == np.float64
            np.testing.assert_array_equal(a["A"], b["A"])
            np.testing.assert_array_equal(a["curve"], b["curve"])


def test_population_gd_batch_refuses_each_bad_argument_by_its_name():
    from resnet_nb.hardt_ma.linear import population_gd_batch

    R, starts = np.diag([0.5, 1.5]), np.zeros((2, 3, 2, 2))
    for call, name in (
        (lambda: population_gd_batch(np.ones((2, 3)), 3, starts, [0.1, 0.1], steps=1), "R"),
        (lambda: population_gd_batch(R, 0, starts, [0.1, 0.1], steps=1), "l"),
        (lambda: population_gd_batch(R, 3, starts, [0.1, 0.1], Sigma=np.ones((2, 3)), steps=1), "Sigma"),
        (lambda: population_gd_batch(R, 3, starts, [0.1, 0.1], steps=0), "steps"),
        (lambda: population_gd_batch(R, 3, starts[0], [0.1, 0.1], steps=1), "A0s"),
        (lambda: population_gd_batch(R, 2, starts, [0.1, 0.1], steps=1), "A0s"),
        (lambda: population_gd_batch(R, 3, np.zeros((2, 3, 2, 3)), [0.1, 0.1], steps=1), "A0s"),
        (lambda: population_gd_batch(R, 3, np.zeros((2, 3, 3, 2)), [0.1, 0.1], steps=1), "A0s"),
        (lambda: population_gd_batch(R, 3, starts, [0.1, 0.0], steps=1), "lr"),
        (lambda: population_gd_batch(R, 3, starts, [-0.1, 0.1], steps=1), "lr"),
        (lambda: population_gd_batch(R, 3, starts, [0.1, 0.1, 0.1], steps=1), "lrs"),
        (lambda: population_gd_batch(R, 3, starts, 0.1, steps=1), "lrs"),
    ):
        with pytest.raises(ValueError, match=rf"\b{name}\b"):
            call()
    # just inside every bound: one factor, one step, the smallest positive step size
    (out,) = population_gd_batch(R, 1, np.zeros((1, 1, 2, 2)), 5e-324, steps=1)
    assert out["curve"].shape == (2,) and out["curve"][0] == population_risk(np.zeros((1, 2, 2)), R, np.eye(2), 0.0)


# ---- the symmetric path of gradient descent from A = 0 when R = -1 --------------------------
def test_symmetric_excess_is_the_first_coordinate_of_batched_gradient_descent():
    from resnet_nb.hardt_ma.linear import population_gd_batch, symmetric_excess

    # R = diag(-1, 1) from A = 0: the reflected coordinate of every factor stays one number u - 1
    for l, eta in ((5, 0.3), (3, 0.05), (4, 0.3)):
        (run,) = population_gd_batch(np.diag([-1.0, 1.0]), l, np.zeros((1, l, 2, 2)), [eta], steps=500)
        path = symmetric_excess(l, eta, steps=500)
        assert path.shape == (500,)
        assert path[-1] == pytest.approx(run["excess"], rel=1e-6, abs=1e-12)


def test_symmetric_excess_one_step_by_hand_and_the_step_that_lands_on_the_minimiser():
    from resnet_nb.hardt_ma.linear import symmetric_excess

    # u1 = 1 - 2 eta (1 + 1) = 1 - 4 eta; excess (u1^l + 1)^2
    for l, eta in ((3, 0.1), (4, 0.2), (6, 0.05)):
        u1 = 1 - 4 * eta
        assert symmetric_excess(l, eta, steps=1)[0] == pytest.approx((u1**l + 1) ** 2, rel=1e-15)
    # eta = 1/2 takes u = 1 to u = -1 in one step: the minimiser for every odd depth
    for l in (3, 5, 7):
        assert symmetric_excess(l, 0.5, steps=3).max() == 0.0


def test_symmetric_excess_over_a_grid_of_step_sizes_is_the_path_of_each_step_size():
    from resnet_nb.hardt_ma.linear import symmetric_excess

    grid = np.array([0.05, 0.27, 0.3, 0.5])
    paths = symmetric_excess(3, grid, steps=200)
    assert paths.shape == (200, 4)
    for j, eta in enumerate(grid):
        assert np.allclose(paths[:, j], symmetric_excess(3, float(eta), steps=200), rtol=1e-12, atol=0)


def test_symmetric_excess_names_a_bad_step_size():
    from resnet_nb.hardt_ma.linear import symmetric_excess

    with pytest.raises(ValueError, match=r"\beta\b"):
        symmetric_excess(3, -0.1)
    with pytest.raises(ValueError, match=r"\beta\b"):
        symmetric_excess(3, np.ones((2, 2)))
    with pytest.raises(TypeError, match=r"\beta\b"):
        symmetric_excess(3, "0.1")
    with pytest.raises(ValueError, match=r"\bl\b"):
        symmetric_excess(0, 0.1)


def test_reflection_escape_table_rows_are_the_runs_they_summarise():
    from resnet_nb.hardt_ma.linear import population_gd, reflection_escape_table

    t = reflection_escape_table(depths=(3,), lrs=(0.05, 0.3), random_starts=2, steps=300)
    assert list(t.start) == ["A = 0", "A = 0", "small random"] and list(t.runs) == [1, 1, 2]
    # the rows from A = 0 are single runs of population_gd from zero
    for lr, row in zip((0.05, 0.3), t.itertuples()):
        one = population_gd(np.diag([-1.0, 1.0]), 3, lr=lr, steps=300)
        assert row.excess == pytest.approx(one["excess"], rel=1e-9)
        assert row.escaped == int(one["excess"] < 1e-3)
    # the random row: smallest excess and largest norm over its two runs
    starts = [0.01 * np.random.default_rng(s).standard_normal((3, 2, 2)) for s in range(2)]
    runs = [population_gd(np.diag([-1.0, 1.0]), 3, lr=0.05, steps=300, A0=a) for a in starts]
    assert t.excess[2] == pytest.approx(min(r["excess"] for r in runs), rel=1e-9)
    assert t.norm[2] == pytest.approx(max(r["norm"] for r in runs), rel=1e-9)


def test_population_gd_refuses_a_step_size_of_zero_and_a_batch_of_the_wrong_number_of_rates():
    with pytest.raises(ValueError, match=r"\blr\b"):
        hm.population_gd(np.eye(2), 3, lr=0.0, steps=5)
    with pytest.raises(ValueError, match=r"\blrs\b.*\(2\).*\(3,\)"):
        hm.population_gd_batch(np.eye(2), 3, np.zeros((2, 3, 2, 2)), [0.1, 0.1, 0.1], steps=5)


def test_the_escape_table_has_a_row_per_step_size_from_zero_and_one_for_the_random_starts():
    table = hm.reflection_escape_table(depths=(3,), lrs=(0.05, 0.3), random_starts=2, steps=40)
    assert list(table["start"]) == ["A = 0", "A = 0", "small random"]
    assert list(table["lr"]) == [0.05, 0.3, 0.05] and list(table["runs"]) == [1, 1, 2]
    starts = np.concatenate(
        [np.zeros((2, 3, 2, 2)), np.stack([0.01 * np.random.default_rng(s).standard_normal((3, 2, 2)) for s in (0, 1)])]
    )
    batch = hm.population_gd_batch(np.diag([-1.0, 1.0]), 3, starts, [0.05, 0.3, 0.05, 0.05], steps=40)
    assert list(table["norm"]) == [batch[0]["norm"], batch[1]["norm"], max(batch[2]["norm"], batch[3]["norm"])]
    assert list(table["escaped"]) == [
        int(batch[0]["excess"] < 1e-3),
        int(batch[1]["excess"] < 1e-3),
        sum(b["excess"] < 1e-3 for b in batch[2:]),
    ]


def test_an_overflowing_path_of_step_sizes_gives_inf_or_nan_without_a_warning():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = hm.symmetric_excess(4, np.array([0.01, 5.0]), steps=60)
    assert np.isfinite(out[:, 0]).all() and not np.isfinite(out[-1, 1])
