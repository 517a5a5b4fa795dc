"""The numbers book/theorem1.ipynb quotes (resnet_nb.book.facts.theorem1), on small inputs whose
expected values are known: hand-made depth tables and checks, and the heavy Hessian checks
replaced by fabricated ones of the same type."""

import math

import pandas as pd
import pytest
import torch

from resnet_nb.book.facts import theorem1 as facts
from resnet_nb.core.claims import Check


def _part(value, tol, spread, op="<="):
    return Check("part", "statistic", value, tol, "chosen", op=op, spread=spread)


def _relu_inputs(cond10_96=2.2, flat_value=0.1, flat_spread=0.01, eq12_fragile=False, ratio=2.0, mm_96=9.0):
    # two seeds at depths 2 and 96; cond10 of the linear network is 1.0, so the ratio is cond10
    rows = pd.DataFrame(
        {
            "depth": [2, 2, 96, 96],
            "cond": [4.0, 6.0, mm_96 - 1, mm_96 + 1],
            "cond10": [ratio, ratio + 0.2, cond10_96 - 0.1, cond10_96 + 0.1],
            "p10": [0.30, 0.32, 0.25, 0.28],
            "cond10_linear": [1.0, 1.0, 1.0, 1.0],
        }
    )
    by_depth = rows.groupby("depth")[["cond", "cond10", "p10"]].agg(["mean", "min", "max"])
    flat = _part(flat_value, 0.5, flat_spread)
    relu_depth = Check("flat", "all", 1.0, 0.0, "parts", op=">=", parts=[flat])
    # Eq. 12's falsifier: the max/min range 0.8 misses its tolerance 0.5 by 0.3
    eq12_part = _part(0.8, 0.5, 0.4)
    relu_eq12 = Check(
        "eq12", "all", -1.0, 0.0, "parts", op=">=", parts=[eq12_part], values={"fragile_rejection": eq12_fragile}
    )
    return by_depth, relu_depth, relu_eq12, rows


def test_relu_creep_is_the_deep_mean_cond10_over_the_shallow_one():
    by, depth, eq12, rows = _relu_inputs(cond10_96=2.2, ratio=2.0)
    f = facts.relu_facts(by, depth, eq12, rows)
    c2, c96 = (2.0 + 2.2) / 2, 2.2
    assert f.relu_c10_2 == pytest.approx(c2)
    assert f.relu_c10_96 == pytest.approx(c96)
    assert f.relu_creep == pytest.approx(c96 / c2 - 1)
    assert f.relu_mm_2 == pytest.approx(5.0) and f.relu_mm_96 == pytest.approx(9.0)
    assert f.relu_p10_lo == pytest.approx(0.25) and f.relu_p10_hi == pytest.approx(0.32)
    # cond10 / cond10_linear over all rows: the linear network's value is 1
    assert f.relu_ratio_lo == pytest.approx(2.0) and f.relu_ratio_hi == pytest.approx(2.3)
    assert f.relu_lin10 == pytest.approx(1.0)


def test_relu_flatness_numbers_and_margins_come_from_the_first_parts():
    by, depth, eq12, rows = _relu_inputs(flat_value=0.1, flat_spread=0.01)
    f = facts.relu_facts(by, depth, eq12, rows)
    assert f.relu_flat_range == pytest.approx(0.1)
    assert f.relu_flat_tol == pytest.approx(0.5)
    assert f.relu_flat_spread == pytest.approx(0.01)
    assert f.relu_mm_excess == pytest.approx(0.8 - 0.5)  # how far Eq. 12's range misses
    assert f.relu_mm_spread == pytest.approx(0.4)


def test_relu_flatness_says_fragile_only_when_the_margin_is_below_the_spread():
    by, depth, eq12, rows = _relu_inputs(flat_value=0.1, flat_spread=0.01)  # margin 0.4 > 0.01
    assert facts.relu_facts(by, depth, eq12, rows).relu_flat_fragile.startswith("not fragile")
    by, depth, eq12, rows = _relu_inputs(flat_value=0.45, flat_spread=0.2)  # margin 0.05 < 0.2
    assert facts.relu_facts(by, depth, eq12, rows).relu_flat_fragile.startswith("fragile")


def test_relu_eq12_rejection_wording_follows_its_fragile_flag():
    by, depth, eq12, rows = _relu_inputs(eq12_fragile=False)
    assert "not fragile" in facts.relu_facts(by, depth, eq12, rows).relu_mm_fragile
    by, depth, eq12, rows = _relu_inputs(eq12_fragile=True)
    text = facts.relu_facts(by, depth, eq12, rows).relu_mm_fragile
    assert "is fragile" in text and "not fragile" not in text


def test_relu_facts_refuse_a_relu_cond10_close_to_the_linear_one():
    by, depth, eq12, rows = _relu_inputs(ratio=1.2, cond10_96=1.3)
    with pytest.raises(AssertionError):
        facts.relu_facts(by, depth, eq12, rows)


def test_relu_facts_refuse_a_max_min_ratio_that_does_not_grow_with_depth():
    by, depth, eq12, rows = _relu_inputs(mm_96=4.0)  # mean 4 at depth 96 against 5 at depth 2
    with pytest.raises(AssertionError):
        facts.relu_facts(by, depth, eq12, rows)


# -- relu_lambda_facts: the depth-16 Hessian check replaced by a fabricated one -------------------


def _start_check(lam=1.0, masked=1.001, drift=0.01, c1=1.5, half=0.75, passed=True):
    values = dict(lam=lam, masked=masked, drift=drift, theorem1_c1=c1, theorem1_half=half)
    return Check("start", "gap", 0.0 if passed else 1.0, 0.5, "chosen", values=values)


def _patch_lambda(monkeypatch, start, fig7):
    def fake_start(depth, prediction=None):
        assert depth == 16
        if prediction == "half":
            return Check("half", "gap", 1.0, 0.5, "chosen")  # rejected on its value
        return start

    monkeypatch.setattr(facts.t1, "relu_start_check", fake_start)
    monkeypatch.setattr(facts.store, "load_results", lambda name, scale: (fig7, None))


def _fig7():
    return pd.DataFrame(
        {
            "kind": ["hessian", "hessian", "hessian", "loss"],
            "arch": ["2-shortcut", "2-shortcut", "2-shortcut", "2-shortcut"],
            "epoch": [0, 0, 5, 0],
            "run": [1, 0, 0, 0],
            "lam_max": [7.0, 3.25, 9.0, 11.0],
        }
    )


def test_relu_lambda_numbers_are_the_start_checks_values(monkeypatch):
    _patch_lambda(monkeypatch, _start_check(lam=1.0, masked=1.004, drift=0.01), _fig7())
    f = facts.relu_lambda_facts()
    assert f.lam_relu == pytest.approx(1.0)
    assert f.lam_masked == pytest.approx(1.004)
    assert f.lam_drift == pytest.approx(0.01)
    assert f.lam_c1 == pytest.approx(1.5) and f.lam_half == pytest.approx(0.75)
    # Figure 7's value: the Hessian row of run 0 at epoch 0 of the 2-shortcut network
    assert f.lam_fig7 == pytest.approx(3.25)


def test_relu_lambda_says_not_available_when_fig7_results_are_missing(monkeypatch):
    _patch_lambda(monkeypatch, _start_check(), None)
    f = facts.relu_lambda_facts()
    assert isinstance(f.lam_fig7, str) and "not available" in f.lam_fig7


def test_relu_lambda_refuses_a_masked_prediction_outside_the_drift(monkeypatch):
    _patch_lambda(monkeypatch, _start_check(lam=1.0, masked=1.05, drift=0.01), _fig7())
    with pytest.raises(AssertionError):
        facts.relu_lambda_facts()


def test_relu_lambda_refuses_a_lambda_that_theorem1_explains(monkeypatch):
    # lambda_max within 10 drifts of relu'(0) = 1/2's prediction: the kink would not matter
    _patch_lambda(monkeypatch, _start_check(lam=0.78, masked=0.781, drift=0.01, half=0.75), _fig7())
    with pytest.raises(AssertionError):
        facts.relu_lambda_facts()


def test_relu_lambda_refuses_a_failing_start_check(monkeypatch):
    _patch_lambda(monkeypatch, _start_check(passed=False), _fig7())
    with pytest.raises(AssertionError):
        facts.relu_lambda_facts()


# -- relu_shape_facts -----------------------------------------------------------------------------


def _patch_shape(monkeypatch, scaled_value):
    def fake_shape(depth, n_per_class, prediction=None):
        if prediction == "scaled":
            return Check("scaled", "gap", scaled_value, 0.5, "chosen")
        return Check("shape", "gap", 0.1, 0.5, "chosen", values=dict(cond10=12.5, cond10_theorem1=3.75))

    monkeypatch.setattr(facts.t1, "relu_shape_check", fake_shape)


def test_relu_shape_numbers_are_the_exact_and_theorem1_cond10(monkeypatch):
    _patch_shape(monkeypatch, scaled_value=2.0)
    f = facts.relu_shape_facts()
    assert f.shape_exact == pytest.approx(12.5)
    assert f.shape_theorem1 == pytest.approx(3.75)
    assert f.relu_scaled.rejected_on_value and f.relu_shape.passed


def test_relu_shape_refuses_a_scaled_falsifier_that_is_not_rejected(monkeypatch):
    _patch_shape(monkeypatch, scaled_value=0.2)  # the falsifier passes
    with pytest.raises(AssertionError):
        facts.relu_shape_facts()


# -- growth_numbers_facts -------------------------------------------------------------------------


def _growth_table(p10=(1.0, 0.97, 0.95, 0.94), lam=5.0, lower=4.99, p10_bound=6.0):
    return pd.DataFrame(
        {
            "depth": [2, 4, 8, 16],
            "R": [2, 4, 8, 16],
            "cond10": [3.0, 6.0, 11.0, 20.0],
            "cond10_bound": [4.0, 6.0, 8.5, 12.0],
            "lam_max": [2.0, 3.0, 4.0, lam],
            "lower_bound": [1.99, 2.99, 3.99, lower],
            "p10": list(p10),
            "p10_bound": [2.0, 3.0, 4.0, p10_bound],
        }
    )


@pytest.fixture
def blocks_2I(monkeypatch):
    # A = 2 I (10 x 10): lambda_max(A_s) = 2, ||A||_F = 2 sqrt(10), so c' = 2 * 10 sqrt(0.9) / (2 sqrt 10) = 3
    monkeypatch.setattr(facts, "theorem1_blocks", lambda net, stats: {"A": 2 * torch.eye(10, dtype=torch.float64)})


@pytest.mark.usefixtures("blocks_2I")
def test_growth_c_prime_is_the_propositions_constant_and_the_measured_one_at_depth_16():
    f = facts.growth_numbers_facts(_growth_table(), stats=None)
    assert f.c_prime_theory == pytest.approx(3.0)
    assert f.c_prime_16 == pytest.approx(12.0 / math.sqrt(16))
    assert f.cond10_16 == pytest.approx(20.0)
    assert f.cond10_per_depth == pytest.approx(20.0 / 16)


@pytest.mark.usefixtures("blocks_2I")
def test_growth_slack_numbers_are_the_last_depths():
    f = facts.growth_numbers_facts(_growth_table(), stats=None)
    assert f.lam16 == pytest.approx(5.0) and f.lb16 == pytest.approx(4.99)
    assert f.p10b16 == pytest.approx(6.0)
    assert f.p10_ratio16 == pytest.approx(6.0 / 0.94)
    assert f.p10_min == pytest.approx(0.94) and f.p10_max == pytest.approx(1.0)
    assert f.p10_first == pytest.approx(1.0) and f.p10_last == pytest.approx(0.94)
    assert f.depth_first == 2


@pytest.mark.usefixtures("blocks_2I")
def test_growth_refuses_a_loose_lambda_max_bound():
    with pytest.raises(AssertionError):
        facts.growth_numbers_facts(_growth_table(lam=5.0, lower=4.5), stats=None)  # 10% slack


@pytest.mark.usefixtures("blocks_2I")
def test_growth_refuses_a_tight_p10_bound():
    with pytest.raises(AssertionError):
        facts.growth_numbers_facts(_growth_table(p10_bound=3.0), stats=None)  # a factor 3.2


@pytest.mark.usefixtures("blocks_2I")
def test_growth_refuses_a_p10_that_falls_faster_at_each_doubling():
    with pytest.raises(AssertionError):
        facts.growth_numbers_facts(_growth_table(p10=(1.0, 0.99, 0.97, 0.94)), stats=None)


@pytest.mark.usefixtures("blocks_2I")
def test_growth_refuses_a_p10_that_falls_by_more_than_a_tenth():
    with pytest.raises(AssertionError):
        facts.growth_numbers_facts(_growth_table(p10=(1.0, 0.90, 0.85, 0.83)), stats=None)
