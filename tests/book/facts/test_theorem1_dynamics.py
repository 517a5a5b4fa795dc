"""The numbers book/theorem1_dynamics.ipynb quotes (resnet_nb.book.facts.theorem1_dynamics), on
hand-made sweeps, tables and checks; the re-run of seed 0 for the catapult is replaced by a
fabricated one of the same form."""

import numpy as np
import pandas as pd
import pytest

from resnet_nb.book.facts import theorem1_dynamics as facts
from resnet_nb.core.claims import Check
from resnet_nb.core.init import SMALL_SCALE
from resnet_nb.experiments import fig5

LR, EDGE = 0.5, 4.0

# -- opening_facts --------------------------------------------------------------------------------


def _opening(short_spike=(True, False, False, False), long_first=(100, 2000, -1, -1), long_lr=LR):
    seeds = [0, 1, 2, 3]
    sweep = {"edge": EDGE, "sigma_max": 0.5678, "seeds": seeds, "gaps": np.zeros((4, 1501))}
    long = {
        "seeds": seeds,
        "lr": long_lr,
        "edge": EDGE,
        "gaps": np.zeros((4, 6001)),
        "epochs": list(range(0, 6001, 250)),
    }
    sweep_rows = pd.DataFrame({"seed": seeds, "spike": list(short_spike)})
    long_rows = pd.DataFrame(
        {
            "seed": seeds,
            "spike": [True, True, False, False],
            "first_above": list(long_first),
            "lam_final": [3.0, 3.9, 3.2, 3.5],
            "peak_epoch": [400, 5750, 6000, 5000],
        }
    )
    return LR, long, long_rows, sweep, sweep_rows


def test_opening_counts_spiking_calm_settled_and_creeping_seeds():
    f = facts.opening_facts(*_opening())
    assert f.n_seeds_s == 4 and f.n_spike_s == 1 and f.n_calm == 3
    assert f.n_spike_long == 2
    assert f.n_reach == 2 and f.n_settled == 2
    assert f.n_creep == 1  # seed 2's largest sample is the last epoch, seed 3's is not
    assert f.end_lo == pytest.approx(3.2) and f.end_hi == pytest.approx(3.5)


def test_opening_quotes_the_rate_edge_epochs_and_the_small_scale():
    f = facts.opening_facts(*_opening())
    assert f.lr_s == pytest.approx(LR) and f.edge == pytest.approx(EDGE)
    assert f.sig_s == pytest.approx(0.5678)
    assert f.ep_short == 1500 and f.ep_long == 6000
    assert f.small_scale == pytest.approx(SMALL_SCALE)


def test_opening_refuses_a_sweep_where_every_seed_spikes():
    with pytest.raises(AssertionError):
        facts.opening_facts(*_opening(short_spike=(True, True, True, True)))


def test_opening_refuses_a_long_run_at_another_rate():
    with pytest.raises(AssertionError):
        facts.opening_facts(*_opening(long_lr=0.25))


def test_opening_refuses_a_third_seed_reaching_the_edge():
    with pytest.raises(AssertionError):
        facts.opening_facts(*_opening(long_first=(100, 2000, 3000, -1)))


# -- long1_facts ----------------------------------------------------------------------------------


def _two(top=0.01, p10=-0.005):
    depth = np.repeat([2, 4, 8, 16], 2)
    R = depth / 2
    return pd.DataFrame({"depth": depth, "lam_max": 10 ** (top * R + 0.3), "lam_p10": 10 ** (p10 * R - 1.0)})


def test_long1_slopes_of_top_and_percentile_add_up_to_the_cond10_slope():
    f = facts.long1_facts(law_slope=0.006, lg_slope=0.015, two=_two(top=0.01, p10=-0.005))
    assert f.top_slope_s == pytest.approx(0.01)
    assert f.p10_fall_s == pytest.approx(0.005)
    assert f.law_share == pytest.approx(0.006 / 0.015)


def test_long1_refuses_slopes_that_do_not_add_up():
    with pytest.raises(AssertionError):
        facts.long1_facts(law_slope=0.006, lg_slope=0.02, two=_two(top=0.01, p10=-0.005))


def test_long1_refuses_a_rising_percentile():
    with pytest.raises(AssertionError):
        facts.long1_facts(law_slope=0.006, lg_slope=0.005, two=_two(top=0.01, p10=0.005))


# -- drift2_facts ---------------------------------------------------------------------------------


def _drift2(rand_cond_M=(3.0, 5.0, 8.0), near=100.0, loss_ratio=(1.5, 2.0, 30.0), flipped_min=None):
    res_tab = pd.DataFrame(
        {
            "cond_M": [*rand_cond_M, 2.0, near, 3.0],
            "cond_res": [2.9, 5.2, 7.5, 2.1, 90.0, 3.1],
            "cond_M_flipped": [1.5, 1.6, 1.7, 1.0, 1.0, 1.0],
            "sweep_min": [1.5, 1.6, 1.7 if flipped_min is None else flipped_min, 1.0, 1.0, 1.0],
            "sweep_max": [2.5e3, 4.0e3, 1.2e4, 50.0, 70.0, 60.0],
            "res_norm": [0.3, 0.3, 0.3, 0.1, 0.1, 1.0],
            "loss_ratio": [5.0, 6.0, 7.0, *loss_ratio],
        }
    )
    cases = [("random Q, seed 0", "data0"), ("random Q, seed 1", "data1")]
    return cases, res_tab.iloc[3:], res_tab.iloc[:3], res_tab


def test_drift2_numbers_are_the_random_range_and_the_controlled_rows():
    f = facts.drift2_facts(*_drift2())
    assert f.rand_lo == pytest.approx(2.9) and f.rand_hi == pytest.approx(7.5)
    assert f.small_well == pytest.approx(2.0) and f.small_near == pytest.approx(100.0)
    assert f.large_well == pytest.approx(3.0)
    assert f.small_norm == pytest.approx(0.1) and f.large_norm == pytest.approx(1.0)
    assert f.max_lo == pytest.approx(50.0) and f.max_hi == pytest.approx(1.2e4)
    assert f.ratio_near == pytest.approx(2.0) and f.ratio_large == pytest.approx(30.0)
    assert f.near_identity == "data0"


def test_drift2_refuses_a_random_cond_m_that_does_not_follow_cond_res():
    with pytest.raises(AssertionError):
        facts.drift2_facts(*_drift2(rand_cond_M=(3.0, 5.0, 30.0)))  # a factor 4 from 7.5


def test_drift2_refuses_a_near_zero_direction_that_does_not_raise_cond_m():
    with pytest.raises(AssertionError):
        facts.drift2_facts(*_drift2(near=20.0))


def test_drift2_refuses_losses_that_follow_cond_m():
    with pytest.raises(AssertionError):
        facts.drift2_facts(*_drift2(loss_ratio=(1.5, 40.0, 30.0)))


def test_drift2_refuses_a_flipped_pattern_that_is_not_the_sweeps_minimum():
    with pytest.raises(AssertionError):
        facts.drift2_facts(*_drift2(flipped_min=1.2))


# -- long_run_facts -------------------------------------------------------------------------------


def _long_run(long_spike=(True, True, False, False), la=None):
    seeds = [0, 1, 2, 3]
    ep_l = np.arange(0, 6001, 250)
    lam = np.full((4, ep_l.size), 3.0)
    after = ep_l >= 2000  # seed 1 first above the edge at epoch 2000
    if la is None:
        la = [4.1, 3.9, 4.2, 3.95, 4.05, 3.98] + [3.99] * (int(after.sum()) - 6)
    lam[1, after] = la
    t = np.arange(6001)
    gaps = np.tile(1e-2 * np.exp(-t / 1000), (4, 1))
    gaps[1, 1700] = 1.5 * gaps[1, 1699]  # seed 1's loss first rises at epoch 1700
    gaps[1, 3000] = 2.0 * gaps[1, 2999]
    long = {"seeds": seeds, "lam_max": lam, "edge": EDGE, "gaps": gaps}
    long_rows = pd.DataFrame(
        {
            "seed": seeds,
            "spike": list(long_spike),
            "first_above": [300, 2000, -1, -1],
            "rises": [4, 7, 0, 0],
            "rise": [20.0, 3.5, 0.5, 0.5],
            "peak_epoch": [400, 2500, 6000, 5000],
            "lam_final": [3.7, 3.99, 3.6, 3.8],
        }
    )
    sweep_rows = pd.DataFrame(
        {"seed": seeds, "lam_final": [3.7, 3.456, 3.1, 3.2], "spike": [True, False, False, False]}
    )
    spiky = sweep_rows[sweep_rows["spike"]]
    last1000 = np.array([0.5, 0.1, 2e-3, 5e-4])
    sweep = {"epochs": list(range(0, 1501, 50))}
    return ep_l, last1000, long, long_rows, spiky, sweep, sweep_rows


def test_long_run_describes_the_seed_that_spiked_after_the_short_run():
    f = facts.long_run_facts(*_long_run())
    assert f.new_seed == 1 and f.cat_seed == 0
    assert f.new_1500 == pytest.approx(3.456)  # its sharpness at the end of the short run
    assert f.new_first == 2000 and f.new_rises == 7 and f.new_rise == pytest.approx(3.5)
    assert f.new_lo == pytest.approx(3.9) and f.new_hi == pytest.approx(4.2)
    assert f.new_drops == 3  # 4.1 -> 3.9, 4.2 -> 3.95, 4.05 -> 3.98
    assert f.new_rise_from == 1700
    assert f.new_gap_a == pytest.approx(1e-2 * np.exp(-1.5))
    assert f.new_gap_b == pytest.approx(1e-2 * np.exp(-6.0))


def test_long_run_counts_the_calm_seeds_still_moving_and_the_closest_to_the_edge():
    f = facts.long_run_facts(*_long_run())
    assert f.n_calm_long == 2 and f.n_end == 1
    assert f.move_tol == pytest.approx(1e-3)
    assert f.n_moving == 1 and f.max_move == pytest.approx(2e-3)
    assert f.close_seed == 3 and f.close_lam == pytest.approx(3.8)


def test_long_run_refuses_two_seeds_that_spiked_late():
    with pytest.raises(AssertionError):
        facts.long_run_facts(*_long_run(long_spike=(True, True, True, False)))


def test_long_run_refuses_a_late_spike_that_stays_above_the_edge():
    with pytest.raises(AssertionError):
        facts.long_run_facts(*_long_run(la=[4.1 + 0.01 * i for i in range(17)]))


def test_long_run_refuses_rows_in_another_seed_order():
    """The long run's rows, the sweep's rows and the last-1,000-epoch changes are read by position."""
    ep_l, last1000, long, long_rows, spiky, sweep, sweep_rows = _long_run()
    reordered = sweep_rows.iloc[::-1].reset_index(drop=True)
    with pytest.raises(ValueError, match="same seeds in the same order"):
        facts.long_run_facts(ep_l, last1000, long, long_rows, spiky, sweep, reordered)


# -- catapult_facts -------------------------------------------------------------------------------


def _gap0():
    t = np.arange(1501)
    g = 1e-3 * np.exp(-t / 100)
    g[400:421] = g[399] * 2.0 ** np.arange(1, 22)  # rises from epoch 400 to its peak at 420
    g[421:] = 1e-6 * np.exp(-(t[421:] - 421) / 100)
    return g


def _catapult(calm_peak=3.5, ratio=None, rises_calm=0):
    epochs = list(range(0, 1501, 50))
    lam = np.full((3, len(epochs)), 3.5)
    lam[0, epochs.index(450)] = 3.3  # seed 0 just after the spike
    gaps = np.vstack([_gap0(), _gap0() * 0 + 1e-4, _gap0() * 0 + 2e-4])
    sweep = {"edge": EDGE, "epochs": epochs, "gaps": gaps, "lam_max": lam, "Lmin": 0.25}
    sweep_rows = pd.DataFrame(
        {
            "seed": [0, 1, 2],
            "spike": [True, False, False],
            "lam_peak": [4.5, calm_peak, 3.8],
            "rises": [3, rises_calm, 0],
            "rise": [20.0, 0.9, 0.8],
            "lam_final": [3.7, 3.4, 3.6],
            "peak_epoch": [420, 1500, 1200],
            "first_above": [300, -1, -1],
        }
    )
    lam_cat = 4.4  # 1 - lr lam = -1.2
    if ratio is None:
        ratio = np.array([-1.2] * 19 + [-0.5])

    def fake_steps(mnist, seed, start, steps, lr):
        assert (seed, start, steps, lr) == (0, 400, 20, LR)  # from the first rise to the peak
        return dict(losses=0.25 + _gap0()[: start + steps + 1], ratio=ratio, lam=lam_cat, predicted=1 - lr * lam_cat)

    return sweep, sweep_rows, fake_steps


def test_catapult_order_of_events_in_seed_0(monkeypatch):
    sweep, rows, fake = _catapult()
    monkeypatch.setattr(facts.t1d, "catapult_steps", fake)
    f = facts.catapult_facts(LR, "mnist", sweep, rows)
    assert f.first_above == 300 and f.lam_peak == pytest.approx(4.5)
    assert f.spike_at == 420 and f.spike_rise == pytest.approx(20.0)
    assert f.lam_after_s == pytest.approx(3.3)  # the sample after the spike (epoch 450)
    assert f.lam_end == pytest.approx(3.7)


def test_catapult_calm_seeds_range_and_those_still_sharpening(monkeypatch):
    sweep, rows, fake = _catapult()
    monkeypatch.setattr(facts.t1d, "catapult_steps", fake)
    f = facts.catapult_facts(LR, "mnist", sweep, rows)
    assert f.calm_lo == pytest.approx(3.4) and f.calm_hi == pytest.approx(3.6)
    assert f.n_rising == 1 and f.rising_seeds == "1"  # seed 1 peaks at the last epoch
    assert list(f.spiky["seed"]) == [0]


def test_catapult_mechanism_ratios_against_the_predicted_factor(monkeypatch):
    sweep, rows, fake = _catapult()
    monkeypatch.setattr(facts.t1d, "catapult_steps", fake)
    f = facts.catapult_facts(LR, "mnist", sweep, rows)
    assert f.cat_from == 400 and f.cat_to == 420 and f.cat_steps == 21
    assert f.cat_lam == pytest.approx(4.4) and f.cat_pred == pytest.approx(1 - LR * 4.4)
    assert f.cat_g10 == pytest.approx(1.2) and f.cat_last == pytest.approx(-0.5)


def test_catapult_refuses_a_step_that_does_not_reverse_the_previous_one(monkeypatch):
    sweep, rows, fake = _catapult(ratio=np.array([-1.2] * 18 + [0.3, -0.5]))
    monkeypatch.setattr(facts.t1d, "catapult_steps", fake)
    with pytest.raises(AssertionError):
        facts.catapult_facts(LR, "mnist", sweep, rows)


def test_catapult_refuses_ratios_far_from_the_predicted_factor(monkeypatch):
    sweep, rows, fake = _catapult(ratio=np.array([-1.35] * 19 + [-0.5]))  # 12% off
    monkeypatch.setattr(facts.t1d, "catapult_steps", fake)
    with pytest.raises(AssertionError):
        facts.catapult_facts(LR, "mnist", sweep, rows)


def test_catapult_refuses_a_calm_seed_above_the_edge(monkeypatch):
    sweep, rows, fake = _catapult(calm_peak=4.2)
    monkeypatch.setattr(facts.t1d, "catapult_steps", fake)
    with pytest.raises(AssertionError):
        facts.catapult_facts(LR, "mnist", sweep, rows)


# -- drift_law_facts ------------------------------------------------------------------------------


def test_drift_law_numbers_are_the_checks_values_and_tolerances():
    rlaw = Check("c over R", "range", 0.12, 0.3, "3 se", values=dict(c_lo=1.01, c_hi=1.13, slope=0.987))
    no_R = Check("k", "range", 4.5, 0.25, "3 se")
    flat = Check("flat", "range", 0.0321, 0.105, "fraction")
    f = facts.drift_law_facts(rlaw, no_R, flat, lg_slope=0.0042, law_slope=0.0017)
    assert f.c_lo == pytest.approx(1.01) and f.c_hi == pytest.approx(1.13)
    assert f.c_range == pytest.approx(0.12) and f.c_tol == pytest.approx(0.3)
    assert f.r_slope == pytest.approx(0.987)
    assert f.k_range == pytest.approx(4.5) and f.k_tol == pytest.approx(0.25)
    assert f.flat_range == pytest.approx(0.0321) and f.flat_tol == pytest.approx(0.105)
    assert f.flat_frac == pytest.approx(fig5.FLAT_FRACTION)
    assert f.lg_slope_s == pytest.approx(0.0042) and f.law_slope_s == pytest.approx(0.0017)
