"""The numbers book/hardt_ma_expressivity.ipynb quotes (resnet_nb.book.facts.hardt_ma_expressivity),
on hand-made tables, dicts and checks; the committed convolutional runs are replaced by
fabricated ones of the same form."""

import math
import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from resnet_nb.book.facts import hardt_ma_expressivity as facts
from resnet_nb.core.claims import Check
from resnet_nb.experiments import hm_analog
from resnet_nb.hardt_ma import interface as hi
from resnet_nb.hardt_ma import relu as hr

SQ, DIST = hr.RHO_READINGS
EFFECT = hm_analog.EFFECT


def _numbers(text):
    return [float(x) for x in re.findall(r"-?\d+\.?\d*", text)]


# -- analog_test_facts ----------------------------------------------------------------------------


def _analog_test(low, high):
    an_diff = dict(diff=(low + high) / 2, se=(high - low) / 4, low=low, high=high)
    null_in = low <= 0 <= high
    effect_in = low <= EFFECT <= high
    an_check = Check("contains 0", "x", 0.0 if null_in else 1.0, 0.5, "c")
    an_false = Check("contains effect", "x", 0.0 if effect_in else 1.0, 0.5, "c")
    checks = {"hm-analog-small-init": (an_check, an_false)}.__getitem__
    by = pd.DataFrame({"last_epochs_loss_change": [0.002, 0.0125, 0.004]})
    return an_diff, by, checks, 200, SimpleNamespace(runs=5), SimpleNamespace(runs=4)


def test_analog_test_rules_out_the_effect_when_the_interval_contains_0_but_not_it():
    f = facts.analog_test_facts(*_analog_test(-0.01, EFFECT - 0.01))
    assert "contains 0" in f.verdict
    assert "rules out" in f.conclusion
    assert f.effect_pts == pytest.approx(100 * EFFECT)
    assert f.effect_digits == round(EFFECT * 200)
    assert f.drift == pytest.approx(0.0125)
    assert f.n_seeds == 4


def test_analog_test_cannot_decide_when_the_interval_contains_both():
    f = facts.analog_test_facts(*_analog_test(-0.01, EFFECT + 0.01))
    assert "contains 0" in f.verdict
    assert "cannot decide" in f.conclusion
    assert f.effect_verdict == "does not exclude"  # the prose must not say the effect is ruled out


def test_analog_test_says_the_interval_excludes_the_effect_only_when_it_does():
    assert facts.analog_test_facts(*_analog_test(-0.01, EFFECT - 0.01)).effect_verdict == "excludes"
    assert facts.analog_test_facts(*_analog_test(EFFECT + 0.001, EFFECT + 0.02)).effect_verdict == "excludes"


def test_analog_test_says_the_interval_excludes_0_when_it_does():
    f = facts.analog_test_facts(*_analog_test(0.01, EFFECT + 0.01))
    assert "excludes 0" in f.verdict and "rules out" not in f.conclusion


def test_analog_test_refuses_a_check_that_disagrees_with_the_interval():
    an_diff, by, checks, n_held, small, std = _analog_test(-0.01, EFFECT - 0.01)
    an_diff = dict(an_diff, low=0.005)  # the interval now excludes 0, but the check still passes
    with pytest.raises(AssertionError):
        facts.analog_test_facts(an_diff, by, checks, n_held, small, std)


# -- analog_runs_facts ----------------------------------------------------------------------------

INITS = ("hardt_ma", "hardt_ma_residual", "standard")


def _analog_runs(ratio_low=0.9, ratio_high=1.2, at8_hm=0.31, tl_passed=True):
    an_diff = dict(diff=0.001, se=0.004, low=-0.007, high=0.009)
    at8 = pd.Series({"hardt_ma": at8_hm, "hardt_ma_residual": 0.55, "standard": 0.62})
    by = pd.DataFrame({"runs": [6, 5, 5]}, index=list(INITS))
    cfg = dict(milestones=(20, 30), lr=0.1)
    runs = pd.DataFrame(
        {
            "init": ["hardt_ma_residual"] * 4 + ["standard"] * 2,
            "epoch": [20, 20, 30, 30, 20, 30],
            "loss": [0.8, 1.0, 0.3, 0.2, 9.0, 9.0],
        }
    )
    tl = Check("ratio", "x", 0.0, 1.0, "c", values=dict(ratio=1.05, ratio_low=ratio_low, ratio_high=ratio_high))
    tl_check = Check("train loss", "x", 1.0 if tl_passed else -1.0, 0.0, "c", op=">=", parts=[tl])
    tl_false = Check("falsifier", "x", 2.0, 1.0, "c")
    checks = {"hm-analog-train-loss": (tl_check, tl_false)}.__getitem__
    small, std = SimpleNamespace(train_loss=0.021), SimpleNamespace(train_loss=0.019)
    return an_diff, at8, by, cfg, checks, INITS, 200, runs, small, std


def test_analog_runs_early_accuracies_schedule_and_loss_fall():
    f = facts.analog_runs_facts(*_analog_runs())
    for pct, init in ((31, "hardt_ma"), (55, "hardt_ma_residual"), (62, "standard")):
        assert f"{pct}% ({init})" in f.early
    assert f.n_hm_all == 6
    assert f.late_fall == pytest.approx(0.9 / 0.25)  # mean loss at the first milestone over the second
    assert f.final_lr == pytest.approx(0.1 / 100)


def test_analog_runs_train_loss_ratio_and_whether_its_interval_includes_1():
    f = facts.analog_runs_facts(*_analog_runs(ratio_low=0.9, ratio_high=1.2))
    assert f.loss_ratio == pytest.approx(1.05)
    assert f.tl_low == pytest.approx(0.9) and f.tl_high == pytest.approx(1.2)
    assert "includes 1" in f.tl_interval
    f = facts.analog_runs_facts(*_analog_runs(ratio_low=1.01, ratio_high=1.2))
    assert "excludes 1" in f.tl_interval


def test_analog_runs_difference_table_is_in_points():
    row = facts.analog_runs_facts(*_analog_runs()).diff_table.iloc[0]
    assert list(row.iloc[1:]) == pytest.approx([0.1, 0.4, -0.7, 0.9, 100 * EFFECT])  # mean, se, interval, effect


def test_analog_runs_refuses_a_hardt_ma_start_that_is_not_the_slowest():
    with pytest.raises(AssertionError):
        facts.analog_runs_facts(*_analog_runs(at8_hm=0.6))


def test_analog_runs_refuses_a_failing_train_loss_check():
    with pytest.raises(AssertionError):
        facts.analog_runs_facts(*_analog_runs(tl_passed=False))


# -- width_readings_facts -------------------------------------------------------------------------


def test_width_readings_are_the_widths_their_ratio_and_the_exposure_counts():
    syn_at = SimpleNamespace(projections=20, every_point_exposed=17, paper_order_fits=20)
    mn_at = SimpleNamespace(projections=20, every_point_exposed=12, paper_order_fits=3)
    f = facts.width_readings_facts(None, k_mn=5000, k_mn_d=1250, k_syn=150, k_syn_d=40, mn_at=mn_at, syn_at=syn_at)
    assert (f.k_syn_s, f.k_mn_s, f.k_mn_d_s) == (150, 5000, 1250)
    assert f.mn_readings == pytest.approx(4.0)
    assert f.n_proj == 20 and f.syn_exp == 17 and f.mn_exp == 12 and f.mn_fit == 3


# -- lemma_b1_facts -------------------------------------------------------------------------------


def _b1_checks(at6_claim="at exactly 6 rho'", sq_min_margin=0.05 + 2.5e-11, draws_min=0.0712):
    def leaf(claim, value):
        return Check(claim, "margin", value, 0.0, "c", op=">=")

    b1 = Check("B.1", "x", 0, 0, "c", op=">=", parts=[leaf("a", 1), leaf("b", 1), leaf(at6_claim, 3e-17)])
    b1_false = Check(
        "B.1 falsifier",
        "x",
        0,
        0,
        "c",
        op=">=",
        parts=[leaf("a", 1), leaf("b", 1), leaf("at 6 rho' (1 - 1e-3)", -0.0123)],
    )
    search = Check("search", "x", 0, 1, "c", values=dict(min_margin=sq_min_margin, violation=0.0))
    sq_draws = Check("draws", "x", 0, 1, "c", values=dict(min_margin=draws_min, draws=500))
    table = {
        "hm-lemma-b1": (b1, b1_false),
        "hm-lemma-b1-squared": (Check("sq", "x", 1, 0, "c", op=">=", parts=[search, sq_draws]), None),
    }
    return table.__getitem__


def test_lemma_b1_quotes_the_extremal_pair_and_the_squared_readings_search():
    f = facts.lemma_b1_facts(_b1_checks(), np.random.default_rng(0))
    assert f.rho_prime == pytest.approx(0.1)
    assert f.b1_at6 == pytest.approx(3e-17) and f.b1_below6 == pytest.approx(-0.0123)
    assert float(f.b1sq_found) == pytest.approx(0.05 + 2.5e-11, abs=1e-13)
    assert f.b1sq_gap == pytest.approx(2.5e-11, rel=1e-3)
    assert f.b1sq_n == 500 and f.b1sq_min == pytest.approx(0.0712)


def test_lemma_b1_block_errors_stay_within_the_rounding_scale():
    f = facts.lemma_b1_facts(_b1_checks(), np.random.default_rng(1))
    assert 0 <= f.block_moved < 1e-6
    assert 0 <= f.block_scaled < 100 * 16


def test_lemma_b1_refuses_checks_whose_third_part_is_not_the_extremal_pair():
    with pytest.raises(AssertionError):
        facts.lemma_b1_facts(_b1_checks(at6_claim="at 5 rho'"), np.random.default_rng(0))


def test_lemma_b1_refuses_squared_draws_below_the_margin():
    with pytest.raises(AssertionError):
        facts.lemma_b1_facts(_b1_checks(draws_min=0.049), np.random.default_rng(0))


# -- interface_numbers_facts ----------------------------------------------------------------------


def _iface(gap=0.2, pre=(0.5, 0.25, 0.125)):
    return pd.DataFrame(
        {
            "rho_prime": [0.05, 0.1, 0.2],
            "closed_form": [0.9, 0.8, 0.6],
            "search": [0.9, 0.8 + gap * hi.SEARCH_TOL, 0.6 - 0.1 * hi.SEARCH_TOL],
            "preactivation_outside_S": list(pre),
            "displacement_outside_S": [0.03, 0.0456, 0.06],
        }
    )


def test_interface_numbers_are_the_search_gap_and_the_row_at_rho_prime_0_1():
    f = facts.interface_numbers_facts(_iface(gap=0.2))
    assert f.iface_dev == pytest.approx(0.2 * hi.SEARCH_TOL)
    assert f.iface_tol == pytest.approx(hi.SEARCH_TOL)
    assert f.iface_rp == pytest.approx(0.1)
    assert f.iface_pre == pytest.approx(0.25) and f.iface_move == pytest.approx(0.0456)


def test_interface_refuses_a_search_farther_than_its_tolerance():
    with pytest.raises(AssertionError):
        facts.interface_numbers_facts(_iface(gap=1.5))


def test_interface_refuses_a_zero_preactivation_outside_s():
    with pytest.raises(AssertionError):
        facts.interface_numbers_facts(_iface(pre=(0.5, 0.0, 0.125)))


# -- narrow_widths_facts --------------------------------------------------------------------------


def _results():
    return pd.DataFrame(
        {
            "data": ["synthetic", "MNIST", "MNIST", "synthetic"],
            "n": [2000, 500, 2000, 500],
            "k": [14, 12, 15, 10],
            "blocks": [143, 42, 134, 50],
            "trainable": [143 * (2 * 14**2 + 14) + 10 * 14 + 110, 1, 98765, 2],
        }
    )


def test_narrow_widths_count_against_the_o_n_k_squared_bound():
    narrow = pd.DataFrame(
        {"k": [3, 2], "max_error": [1e-9, 3.5e-7], "trainable": [40000, 30000], "blocks": [700, 1000]}
    )
    f = facts.narrow_widths_facts(narrow, _results())
    assert f.k3_params == 40000
    assert f.k3_bound == 2000 * (2 * 9 + 3) + 30 + 100 + 10
    assert f.k2_err == pytest.approx(3.5e-7)
    assert f.log_params == 98765  # MNIST, n = 2000


def test_narrow_widths_refuse_a_width_3_count_above_the_bound():
    narrow = pd.DataFrame({"k": [3, 2], "max_error": [1e-9, 1e-7], "trainable": [50000, 30000], "blocks": [700, 1000]})
    with pytest.raises(AssertionError):
        facts.narrow_widths_facts(narrow, _results())


def test_narrow_widths_refuse_a_fit_that_is_not_exact():
    narrow = pd.DataFrame({"k": [3, 2], "max_error": [1e-9, 1e-3], "trainable": [40000, 30000], "blocks": [700, 1000]})
    with pytest.raises(AssertionError):
        facts.narrow_widths_facts(narrow, _results())


# -- count2000_facts ------------------------------------------------------------------------------


def test_count2000_adds_the_residual_blocks_and_the_last_layer():
    f = facts.count2000_facts(_results())
    assert f.count_k_s == 14 and f.count_l_s == 143
    assert f.count_res == 143 * (2 * 196 + 14)
    assert f.count_last == 10 * 14 + 100 + 10
    assert f.count_total == 143 * 406 + 250


def test_count2000_refuses_a_total_that_is_not_the_sum_of_its_terms():
    results = _results()
    results.loc[0, "trainable"] += 1
    with pytest.raises(AssertionError):
        facts.count2000_facts(results)


# -- refusals_facts -------------------------------------------------------------------------------


def _refusals(sq_failures=2, greedy_err=1e-10):
    n = 10
    draws = pd.DataFrame(
        {
            "jl_excess_sq_c10": [1.5] * n,
            "jl_excess_dist_c10": [1.2] * n,
            "k_sq_c10": [100] * n,
            "k_dist_c10": [400] * n,
            "refuses_sq_c30": [False] * n,
            "refuses_dist_c30": [False] * n,
        }
    )
    greedy = pd.DataFrame({"greedy_error": [1e-12, greedy_err, 3e-11]})
    jl10 = {SQ: dict(failures=n, draws=n, rho_min=1.5), DIST: dict(failures=n, draws=n, rho_min=1.2)}
    jl30 = {SQ: dict(failures=3, draws=n, rho_min=1.5), DIST: dict(failures=0, draws=n, rho_min=1.2)}
    refuse = {
        SQ: dict(failures=sq_failures, draws=n, low=0.125, high=0.4567),
        DIST: dict(failures=0, draws=n, low=0.0, high=0.0917),
    }
    syn_p = pd.DataFrame({"refuses": [True, False, False, True, False]})
    return draws, greedy, 6400, refuse, syn_p, jl10, jl30


def test_refusals_jl_failures_under_both_readings_and_constants():
    f = facts.refusals_facts(*_refusals())
    assert f.jl10_sq.startswith("10 of 10") and f.jl10_dist.startswith("10 of 10")
    assert f.jl30_sq.startswith("3 of 10") and f.jl30_dist.startswith("0 of 10")
    assert f.jl_pairs10 == pytest.approx(600 ** (2 - 10 / 9))
    assert f.jl_pairs30 == pytest.approx(600 ** (2 - 30 / 9))
    assert f.c_log2 == pytest.approx(10 / math.log(2))


def test_refusals_intervals_greedy_and_synthetic_refusals():
    f = facts.refusals_facts(*_refusals())
    assert _numbers(f.r_sq_ci) == pytest.approx([0.125, 0.4567], abs=6e-4)
    assert _numbers(f.r_dist_ci) == pytest.approx([0.0, 0.0917], abs=6e-4)
    assert f.greedy_n == 3
    assert f.syn_ref.startswith("2 of 5")
    assert f.mn_below == 20  # 6400 / 320


def test_refusals_refuse_a_refusal_rate_far_from_one_in_five():
    with pytest.raises(AssertionError):
        facts.refusals_facts(*_refusals(sq_failures=4))


def test_refusals_refuse_a_greedy_selection_that_does_not_fit():
    with pytest.raises(AssertionError):
        facts.refusals_facts(*_refusals(greedy_err=1e-6))


def test_refusals_refuse_a_live_jl_count_that_disagrees_with_the_table():
    draws, greedy, k_mn, refuse, syn_p, jl10, jl30 = _refusals()
    draws.loc[0, "jl_excess_sq_c10"] = 0.9
    with pytest.raises(AssertionError):
        facts.refusals_facts(draws, greedy, k_mn, refuse, syn_p, jl10, jl30)


# -- analog_setup_facts ---------------------------------------------------------------------------


def test_analog_setup_quotes_the_configuration_seeds_and_minutes(monkeypatch):
    cfg = dict(channels=[8, 24], n_per_class=50, momentum=0.9, lr=0.05, batch_size=64, milestones=[6, 9], epochs=12)
    summary = pd.DataFrame({"init": ["hardt_ma", "hardt_ma_residual", "standard"], "runs": [3, 4, 5]})
    prov = {"runs": {"a": {"seconds": 100.0}, "b": {"seconds": 50.0}, "c": {"seconds": 31.0}}}
    monkeypatch.setattr(facts.hm_analog, "CONFIG", cfg)
    monkeypatch.setattr(facts.hm_analog, "run_provenance", lambda d: prov)
    monkeypatch.setattr(facts.hm_analog, "load", lambda d: "runs")
    monkeypatch.setattr(facts.hm_analog, "summary", lambda runs: summary)
    f = facts.analog_setup_facts()
    assert f.ch1 == 8 and f.ch2 == 24
    assert f.n_train == 400 and f.n_test == 100
    assert f.hm_momentum == pytest.approx(0.9) and f.hm_lr == pytest.approx(0.05) and f.hm_batch == 64
    assert (f.hm_ms1, f.hm_ms2, f.hm_epochs) == (6, 9, 12)
    assert f.hm_minutes == 4  # 181 s, rounded up to whole minutes
    assert "3 for hardt_ma," in f.seeds_per_init and "and 5 for standard" in f.seeds_per_init
