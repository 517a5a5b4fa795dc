"""The numbers the prose of book/exp_dynamics.ipynb quotes (resnet_nb.book.facts.exp_dynamics),
checked on small fabricated results whose numbers are known in advance.

The ledger's checks of Figures 6 to 8 and the whitened digits take long to compute, so the tests
replace them with fabricated checks and statistics; the selection each facts function makes from
them is what is checked."""

import math
import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from resnet_nb.book.facts import exp_dynamics as facts
from resnet_nb.core.claims import Check
from resnet_nb.experiments import fig3, fig6, fig7, fig8
from resnet_nb.shared import store

L_MIN = 0.3
TR_SYY = 1.0
ZERO_LOSS = 0.5 * TR_SYY
RATE = fig3.SCALES["paper"]["lr"]


def numbers(text) -> list[float]:
    """The numbers a sentence quotes, in order (to check the figures, not the wording)."""
    return [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", str(text))]


def check(value=-1.0, tol=0.0, spread=None, values=None, parts=(), op="<="):
    return Check("c", "x", value, tol, "stated", op=op, spread=spread, values=dict(values or {}), parts=list(parts))


@pytest.fixture(autouse=True)
def small_data(monkeypatch):
    digits = SimpleNamespace(stats=lambda: SimpleNamespace(trSyy=TR_SYY), d=10)
    monkeypatch.setattr(facts, "mnist", lambda *a, **k: digits)
    monkeypatch.setattr(facts, "mnist_optimum", lambda: L_MIN)
    monkeypatch.setattr(fig6, "mnist_optimum", lambda: L_MIN)
    monkeypatch.setattr(fig7, "per_output_optimum", lambda: L_MIN / 10)


def hessians(arch, run, epochs, loss, lam_max=1.0, lam_p10=0.1, index=0.4, resolved=True, relu=False):
    """Hessian rows of a Figure 6/7 table: one per epoch; ``loss`` etc. one value or one per epoch."""
    n = len(epochs)

    def each(v):
        return list(v) if np.ndim(v) else [v] * n

    return pd.DataFrame(
        {
            "arch": arch,
            "run": run,
            "kind": "hessian",
            "relu": relu,
            "epoch": list(epochs),
            "loss": each(loss),
            "lam_max": each(lam_max),
            "lam_p10": each(lam_p10),
            "index": each(index),
            "resolved": each(resolved),
        }
    )


# -- dynamics_summary_facts --------------------------------------------------------------------


def test_the_summary_counts_the_runs_the_hessians_per_run_and_the_resolved_orthogonal_runs():
    paper6 = pd.concat(
        [hessians("orthogonal", r, range(5), 1.0) for r in range(3)]
        + [hessians("2-shortcut", r, range(n), 1.0) for r, n in ((0, 4), (1, 6))]
        + [pd.DataFrame({"arch": ["orthogonal"], "run": [0], "kind": ["trajectory"], "epoch": [7]})]
    )
    paper7 = pd.concat(
        [
            hessians("orthogonal", 0, range(3), 1.0, resolved=[True, True, False]),
            hessians("orthogonal", 1, range(3), 1.0, resolved=[True, False, False]),  # one resolved: not counted
            hessians("orthogonal", 2, range(3), 1.0),
            hessians("2-shortcut", 0, range(3), 1.0),
        ]
    )
    f = facts.dynamics_summary_facts(paper6, paper7, RATE)
    assert f.runs6 == 2  # the fewer runs of the two architectures
    assert f.hess6 == 5  # the median number of Hessians per run: 4, 5, 5, 5, 6
    assert f.orth_res7 == 2
    cfg = fig6.STABLE_SCALES["paper"]
    assert (f.st_depth, f.st_epochs, f.sp_runs, f.sp_points) == (
        cfg["depth"],
        cfg["epochs"],
        cfg["runs"],
        cfg["points"],
    )
    assert f.hess6_live == fig6.SCALES["default"]["points"]


def test_the_summary_refuses_a_rate_other_than_the_one_figures_3_and_8_were_run_at():
    paper6 = hessians("orthogonal", 0, range(3), 1.0)
    with pytest.raises(AssertionError):
        facts.dynamics_summary_facts(paper6, paper6, RATE * 2)


# -- verdict_facts -----------------------------------------------------------------------------


def test_the_verdicts_are_the_ledger_s_for_each_figure_s_claim():
    ids = {
        "li-fig3-deeper-smaller-norms": "holds",
        "li-fig6-shortcut-better-conditioned": "reproduced",
        "li-fig7-shortcut-better-conditioned-relu": "partly reproduced",
        "li-fig8-smaller-index": "not reproduced",
        "li-fig8-gradient-peak-at-index-drop": "fails as printed",
    }
    f = facts.verdict_facts({k: SimpleNamespace(verdict=v) for k, v in ids.items()})
    assert [f.v3, f.v6, f.v7, f.v8a, f.v8b] == list(ids.values())


# -- eos_facts ---------------------------------------------------------------------------------


def _paper7(end_eta=(2.1, 2.3, 2.2, 2.4, 2.25), start=(0.52, 0.51)):
    rows = []
    for i, (arch, run) in enumerate(
        (("orthogonal", 0), ("orthogonal", 1), ("2-shortcut", 0), ("2-shortcut", 1), ("2-shortcut", 2))
    ):
        loss0 = start[run] if arch == "orthogonal" else 0.6  # three 2-shortcut runs, two orthogonal
        lam_end = end_eta[i] / RATE
        rows.append(hessians(arch, run, (0, 100, 200), [loss0, 0.2, 0.05 + 0.01 * i], lam_max=[5.0, 9.0, lam_end]))
    rows.append(
        pd.DataFrame({"arch": ["orthogonal"], "run": [0], "kind": ["trajectory"], "epoch": [150], "loss": [0.01]})
    )
    return pd.concat(rows, ignore_index=True)


@pytest.fixture
def relu_check(monkeypatch):
    c = check()
    monkeypatch.setattr(fig7, "claim_shortcut_better_conditioned_relu", lambda falsify=False: c)
    return c


def test_figure_7_quotes_the_start_near_the_zero_map_and_the_end_at_the_edge_of_stability(relu_check):
    f = facts.eos_facts(_paper7(), RATE)
    assert f.relu_check is relu_check
    assert (f.o7_l0a, f.o7_l0b) == (pytest.approx(0.51), pytest.approx(0.52))  # sorted
    assert f.zero_loss == pytest.approx(ZERO_LOSS)
    assert (f.e7_orth_lo, f.e7_orth_hi) == (pytest.approx(2.1), pytest.approx(2.3))
    assert (f.e7_two_lo, f.e7_two_hi) == (pytest.approx(2.2), pytest.approx(2.4))
    assert f.relu_lowest == pytest.approx(math.log10(0.01), abs=0.005)  # the lowest loss of any row
    assert f.lmin_per_output == pytest.approx(L_MIN / 10)
    assert f.lg_lmin_per_output == pytest.approx(math.log10(L_MIN / 10), abs=0.005)
    assert (f.epochs7, f.runs7, f.hess7) == (200, 2, 3)  # the fewer runs of the two
    assert (f.orth_resolved, f.two_resolved) == (2, 3)


def test_figure_7_refuses_a_run_that_ends_beyond_the_edge_of_stability(relu_check):
    with pytest.raises(AssertionError):
        facts.eos_facts(_paper7(end_eta=(2.1, 2.3, 2.2, 2.6, 2.25)), RATE)


def test_figure_7_refuses_an_orthogonal_start_below_the_zero_map_s_loss(relu_check):
    with pytest.raises(AssertionError):
        facts.eos_facts(_paper7(start=(0.52, 0.49)), RATE)


# -- fig6_rates_facts --------------------------------------------------------------------------


def _paper6_first_steps():
    # lg(loss - L_min) at epoch 0: -0.2 and 0.1; at epoch 1: -1.5 and -1.0
    excess = {(0, 0): 10**-0.2, (1, 0): 10**0.1, (0, 1): 10**-1.5, (1, 1): 10**-1.0}
    rows = [hessians("orthogonal", r, (0, 1), [L_MIN + excess[r, 0], L_MIN + excess[r, 1]]) for r in (0, 1)]
    rows.append(hessians("2-shortcut", 0, (0, 1), [L_MIN + 10, L_MIN + 1e-3]))  # not orthogonal: ignored
    return pd.concat(rows, ignore_index=True)


@pytest.fixture
def fig6_inputs(monkeypatch):
    seen = {}
    curves = {
        "orthogonal": np.array([[3.0, 3.5, np.nan], [3.2, 3.3, 4.0]]),
        "2-shortcut": np.array([[1.0, 2.0, 2.5], [1.2, 2.2, np.nan]]),
    }

    def run_curves(table, column, relu, grid):
        seen["grid"] = np.asarray(grid)
        return curves

    index = check(value=-0.4, spread=0.1)
    fast = check(value=0.05, spread=0.2, values={"x_closest": -1.234})

    def ordering(table, column, relu, small, large, what, **k):
        return index if column == "index" else fast

    monkeypatch.setattr(fig6, "run_curves", run_curves)
    monkeypatch.setattr(fig6, "ordering", ordering)
    return seen, curves, index, fast


def test_figure_6_quotes_the_loss_gap_of_the_first_step_and_the_ranges_of_the_run_mean_lg_cond(fig6_inputs):
    seen, curves, index, fast = fig6_inputs
    f = facts.fig6_rates_facts(0.1, 0.01, _paper6_first_steps(), pd.DataFrame())
    assert f.x_hi == pytest.approx(-0.2) and f.x_lo == pytest.approx(-1.0)  # no Hessian in between
    assert seen["grid"][0] == pytest.approx(-1.0) and seen["grid"][-1] == pytest.approx(-0.2)
    mean_o = [3.1, 3.4]  # run means where every run is resolved
    mean_2 = [1.1, 2.1]
    assert (f.orth_lo, f.orth_hi) == (pytest.approx(min(mean_o)), pytest.approx(max(mean_o)))
    assert (f.two_lo, f.two_hi) == (pytest.approx(min(mean_2)), pytest.approx(max(mean_2)))
    assert f.sidx_margin == pytest.approx(0.4) and f.sidx_spread == pytest.approx(0.1)
    assert f.cross_max == pytest.approx(0.05) and f.cross_spread == pytest.approx(0.2)
    assert f.cross_x == pytest.approx(-1.234)
    assert f.stable_index is index and f.fast is fast


def test_figure_6_refuses_an_index_ordering_that_fails_at_the_stable_rate(fig6_inputs, monkeypatch):
    failing = check(value=0.3, spread=0.1)
    fast = fig6_inputs[3]
    monkeypatch.setattr(fig6, "ordering", lambda t, column, *a, **k: failing if column == "index" else fast)
    with pytest.raises(AssertionError):
        facts.fig6_rates_facts(0.1, 0.01, _paper6_first_steps(), pd.DataFrame())


def test_figure_6_refuses_run_means_that_cross_by_more_than_the_spread(fig6_inputs, monkeypatch):
    index = fig6_inputs[2]
    wide = check(value=0.5, spread=0.2, values={"x_closest": -1.0})
    monkeypatch.setattr(fig6, "ordering", lambda t, column, *a, **k: index if column == "index" else wide)
    with pytest.raises(AssertionError):
        facts.fig6_rates_facts(0.1, 0.01, _paper6_first_steps(), pd.DataFrame())


def test_figure_6_refuses_lg_cond_ranges_that_overlap_at_the_stable_rate(fig6_inputs, monkeypatch):
    overlap = {"orthogonal": np.array([[2.0, 3.0]]), "2-shortcut": np.array([[1.0, 2.5]])}
    monkeypatch.setattr(fig6, "run_curves", lambda table, column, relu, grid: overlap)
    with pytest.raises(AssertionError):
        facts.fig6_rates_facts(0.1, 0.01, _paper6_first_steps(), pd.DataFrame())


# -- fig6_stable_facts -------------------------------------------------------------------------


GRID = np.linspace(-4.0, 1.0, 11)  # -4, -3.5, ..., 1


def _stable(diff=None, excess=0.03, sd_excess=0.1):
    if diff is None:
        #        -4    -3.5  -3    -2.5  -2    -1.5  -1    -0.5   0     0.5   1
        diff = [-0.4, -0.3, -0.2, -0.1, 0.02, 0.03, 0.01, -0.05, -0.6, -0.7, np.nan]
    values = {
        "grid": GRID,
        "diff": np.array(diff),
        "excess": excess,
        "sd_excess": sd_excess,
        "x_excess": -1.5,
        "cross_lo": -2.2,
        "cross_hi": -0.8,
    }
    return check(values=values)


def test_the_stable_rate_difference_is_negative_near_and_far_and_positive_on_one_stretch_between():
    f = facts.fig6_stable_facts(_stable())
    assert f.near_x == pytest.approx(-2.5)
    assert (f.d_large_lo, f.d_large_hi) == (pytest.approx(0.6), pytest.approx(0.7))  # lg(l - l_min) >= 0
    assert (f.d_near_lo, f.d_near_hi) == (pytest.approx(0.2), pytest.approx(0.4))  # below -2.5
    assert (f.cross_lo, f.cross_hi) == (pytest.approx(-2.2), pytest.approx(-0.8))
    assert (f.excess, f.excess_x, f.excess_sd) == (pytest.approx(0.03), pytest.approx(-1.5), pytest.approx(0.1))


def test_the_stable_rate_facts_refuse_two_stretches_in_the_other_order():
    diff = [-0.4, -0.3, -0.2, -0.1, 0.02, -0.03, 0.01, -0.05, -0.6, -0.7, np.nan]
    with pytest.raises(AssertionError):
        facts.fig6_stable_facts(_stable(diff=diff))


def test_the_stable_rate_facts_refuse_an_excess_larger_than_one_spread():
    with pytest.raises(AssertionError):
        facts.fig6_stable_facts(_stable(excess=0.2, sd_excess=0.1))


@pytest.mark.parametrize(
    "diff",
    [
        #  -4    -3.5  -3    -2.5  -2    -1.5  -1    -0.5   0     0.5   1
        [-0.4, -0.3, -0.2, -0.1, 0.02, 0.03, 0.01, -0.05, 0.06, -0.7, np.nan],  # above at large loss
        [-0.4, -0.3, 0.05, -0.1, 0.02, 0.03, 0.01, -0.05, -0.6, -0.7, np.nan],  # above near the minimum
        [-0.4, -0.3, -0.2, -0.1, -0.02, -0.03, -0.01, -0.05, -0.6, -0.7, np.nan],  # never above
    ],
)
def test_the_stable_rate_facts_refuse_a_difference_of_another_shape(diff):
    with pytest.raises(AssertionError):
        facts.fig6_stable_facts(_stable(diff=diff))


# -- fig7_facts (Figure 8's index) --------------------------------------------------------------


def _peak_check(peak=35, dense_peak=35, lag=2.5, ties=((36, 37), (40, 41))):
    sparse = check(values={"peaks": [peak], "intervals": [(30, 40)]})
    dense = check(
        values={
            "peak": dense_peak,
            "t25": 34.0,
            "t50": 37.5,
            "t75": 44.0,
            "lag": lag,
            "fall": 12,
            "P": 1600,
            "steepest_drop": 3,
            "steepest": list(ties),
        }
    )
    return check(value=1.0, op=">=", parts=[sparse, dense])


def test_figure_8_quotes_the_first_and_last_index_and_when_the_index_falls(monkeypatch):
    monkeypatch.setattr(fig8, "claim_peak_at_drop", lambda falsify=False: peak)
    peak = _peak_check()
    paper6 = pd.concat(
        [
            hessians("orthogonal", 0, (10, 0, 50), 1.0, index=[0.40, 0.45, 0.30]),  # unsorted epochs
            hessians("orthogonal", 1, (0, 50), 1.0, index=[0.47, 0.34]),
            hessians("2-shortcut", 0, (0, 50), 1.0, index=[0.50, 0.10]),
            hessians("2-shortcut", 1, (0, 60), 1.0, index=[0.48, 0.12]),
        ]
    )
    f = facts.fig7_facts(paper6)
    assert (f.i_orth0, f.i_orth1) == (pytest.approx(0.46), pytest.approx(0.32))
    assert (f.i_two0, f.i_two1) == (pytest.approx(0.49), pytest.approx(0.11))
    assert (f.peak5, f.drop_a, f.drop_b) == (35, 30, 40)
    assert (f.d_peak, f.d_t25, f.d_t50, f.d_t75, f.d_lag) == (35, 34.0, 37.5, 44.0, 2.5)
    assert (f.d_fall, f.d_P, f.d_steep) == (12, 1600, 3)
    assert numbers(f.d_ties) == [36, 37, 40, 41]
    assert f.peak_check is peak


@pytest.mark.parametrize(
    "bad",
    [
        dict(dense_peak=36),  # the retrained run peaks elsewhere than the committed runs
        dict(ties=((36, 37),)),  # one steepest step: the prose lists ties
        dict(lag=6.0),  # a lag as long as half the fall: not "just before"
    ],
)
def test_figure_8_refuses_a_peak_that_does_not_match_what_the_prose_says(monkeypatch, bad):
    monkeypatch.setattr(fig8, "claim_peak_at_drop", lambda falsify=False: _peak_check(**bad))
    paper6 = hessians("orthogonal", 0, (0, 50), 1.0).assign(arch=["orthogonal", "2-shortcut"])
    with pytest.raises(AssertionError):
        facts.fig7_facts(paper6)


# -- spike_counts_facts ------------------------------------------------------------------------


def _sharp(eta=(1.5, 2.2, 1.8, 2.1, 2.3, 1.9, 2.05, 2.15, 1.7), loss=(5.0, 4.0, 4.5, 3.0, 2.5, 2.7, 2.0, 1.9, 1.8)):
    eta = np.array(eta)
    return pd.DataFrame({"epoch": np.arange(len(eta)) * 10, "eta_lam": eta, "lam_max": eta / RATE, "loss": loss})


def _spikes():
    spk = pd.DataFrame({"depth": [4, 4, 4, 8], "run": [0, 1, 1, 2], "epoch": [100, 250, 400, 900]})
    paper3 = pd.DataFrame(
        {"relu": [True] * 5 + [False], "depth": [4, 4, 4, 8, 8, 4], "run": [0, 1, 2, 0, 1, 7], "epoch": 0}
    )
    return paper3, spk


def test_the_spikes_are_counted_by_depth_and_every_sampled_rise_follows_a_sample_beyond_2():
    paper3, spk = _spikes()
    sharp = _sharp()
    f = facts.spike_counts_facts(paper3, sharp, spk)
    assert (f.n_sp4, f.n_sp8, f.runs_sp4, f.runs_sp8) == (3, 1, 2, 1)
    assert (f.sp_first, f.sp_last, f.sp_median) == (100, 900, int(np.median([100, 250, 400, 900])))
    assert (f.eta_lo, f.eta_hi) == (pytest.approx(1.5), pytest.approx(2.3))
    # the loss rose at epochs 20 and 50, after samples at 2.2 and 2.3
    assert numbers(f.rise_epochs) == [20, 50] and f.n_rises == 2
    assert (f.n_above, f.n_samples) == (5, 9)
    before = sharp["eta_lam"].to_numpy()[:-1]
    assert f.n_above_fall == 3  # samples beyond 2 (2.1, 2.05 and 2.15) followed by a fall
    assert f.chance_all == pytest.approx((before > 2).mean() ** 2, rel=0.05)
    assert (f.runs_tot4, f.runs_tot8) == (3, 2)  # ReLU runs only


def test_the_spikes_refuse_a_rise_after_a_sample_within_the_bound():
    paper3, spk = _spikes()
    loss = (5.0, 5.5, 4.5, 3.0, 2.5, 2.7, 2.0, 1.9, 1.8)  # a rise after the first sample, at 1.5
    with pytest.raises(AssertionError):
        facts.spike_counts_facts(paper3, _sharp(loss=loss), spk)


@pytest.mark.parametrize(
    "eta",
    [
        (2.5, 2.2, 2.8, 2.1, 2.3, 2.9, 2.05, 2.15, 2.7),  # every sample beyond 2: nothing to compare with
        (1.5, 2.2, 2.25, 2.25, 2.3, 1.9, 2.05, 2.15, 1.7),  # lambda_max stays above its value before a rise
        (1.5, 2.2, 1.8, 1.9, 2.3, 1.9, 1.95, 1.85, 1.7),  # no sample beyond 2 is followed by a fall
    ],
)
def test_the_spikes_refuse_samples_that_do_not_bear_out_the_prose(eta):
    paper3, spk = _spikes()
    with pytest.raises(AssertionError):
        facts.spike_counts_facts(paper3, _sharp(eta=eta), spk)


# -- depth_norms_facts -------------------------------------------------------------------------


def _paper3_ends(l32=0.402, l64=0.401):
    return pd.DataFrame(
        {
            "relu": [True] * 4 + [False] + [True],
            "epoch": [1000] * 5 + [500],
            "depth": [32, 32, 64, 64, 64, 64],
            "loss": [l32, l32 + 0.002, l64, l64 + 0.002, 0.3, 9.0],
        }
    )


def test_the_depth_norms_quote_the_final_norms_the_one_reversal_and_the_relu_losses_at_32_and_64():
    norms = pd.Series([1.23, 0.8, 0.31], index=[2, 8, 64])
    norms_relu = pd.Series([2.4, 0.9], index=[2, 64])
    rev = [(2, 4, 0.81, 0.93)]
    f = facts.depth_norms_facts(norms, norms_relu, _paper3_ends(), rev, [])
    assert (f.n2, f.n64, f.r2, f.r64) == (1.23, 0.31, 2.4, 0.9)
    assert (f.rev_lo, f.rev_hi) == (0.81, 0.93)
    assert f.relu_l32 == pytest.approx(0.403) and f.relu_l64 == pytest.approx(0.402)  # final epoch, ReLU
    assert list(f.ends["depth"]) == [2, 8, 64]
    assert np.isnan(f.ends["ReLU at mid"][1]) and f.ends["ReLU at mid"][2] == 0.9


@pytest.mark.parametrize(
    "rev_lin, rev_relu, ends",
    [
        ([(2, 4, 0.8, 0.9)], [(2, 4, 0.8, 0.9)], {}),  # a ReLU reversal too
        ([(4, 8, 0.8, 0.9)], [], {}),  # another pair reversed
        ([(2, 4, 0.8, 0.9)], [], {"l32": 0.40, "l64": 0.41}),  # deeper ends higher
        ([(2, 4, 0.8, 0.9)], [], {"l32": 0.45, "l64": 0.40}),  # by more than 1%
    ],
)
def test_the_depth_norms_refuse_results_unlike_the_prose(rev_lin, rev_relu, ends):
    norms = pd.Series([1.0, 0.5], index=[2, 64])
    with pytest.raises(AssertionError):
        facts.depth_norms_facts(norms, norms, _paper3_ends(**ends), rev_lin, rev_relu)


# -- eos_end_facts -----------------------------------------------------------------------------


def test_the_fast_rate_ends_quote_lg_of_the_10_percent_eigenvalue_lambda_max_and_the_zero_count():
    paper6 = pd.concat(
        [
            hessians("orthogonal", 0, (0, 100), 1.0, lam_max=[9.0, 19.0], lam_p10=[1.0, 1e-6]),
            hessians("orthogonal", 1, (0, 100), 1.0, lam_max=[9.0, 21.0], lam_p10=[1.0, 1e-8]),
            hessians("2-shortcut", 0, (100, 0), 1.0, lam_max=[18.0, 5.0], lam_p10=[1e-3, 1.0]),
            hessians("2-shortcut", 1, (0, 100), 1.0, lam_max=[5.0, 22.0], lam_p10=[1.0, 1e-3]),
        ]
    )
    zeros = check(parts=[check(values={"zeros": 1500, "P": 1600})])
    f = facts.eos_end_facts(paper6, zeros)
    assert f.p10_orth_end == pytest.approx(-7.0) and f.p10_two_end == pytest.approx(-3.0)
    assert f.max_orth_end == pytest.approx(20.0) and f.max_two_end == pytest.approx(20.0)
    assert f.end_gap == 4  # orders of magnitude between the two 10% eigenvalues
    assert (f.zero_count, f.zero_P) == (1500, 1600)


# -- the exercises' solutions ------------------------------------------------------------------


def _lr_inputs(end2_slow=1.2349):
    ends3 = {"fast": {2: 1.2341, 4: 0.9, 8: 0.7, 16: 0.5}, "slow": {2: end2_slow, 4: 0.8, 8: 0.6, 16: 0.45}}
    gaps = {4: 0.01, 8: 0.03, 16: 0.02}
    lows = {4: (-5.0, -3.0), 8: (-5.2, -3.1), 16: (-4.9, -2.9)}
    return ends3, gaps, lows, [0.9, 1.7, 1.3]


def test_the_rate_solution_quotes_the_slow_and_fast_ends_and_the_largest_gap_between_the_curves():
    ends3, gaps, lows, norm_range = _lr_inputs()
    f = facts.lr_solution_facts(ends3, gaps, lows, norm_range, 0.1, 0.02)
    assert f.lr_slow == pytest.approx(0.02) and f.same_epochs == 200
    assert f.gap_max == pytest.approx(0.03)
    assert (f.norm_lo, f.norm_hi) == (0.9, 1.7)
    assert (f.low4, f.low8, f.low16) == (-3.0, -3.1, -2.9)
    assert f.low_fast == pytest.approx(np.mean([-5.0, -5.2, -4.9]))
    assert (f.s4, f.s8, f.s16, f.f4, f.f8, f.f16) == (0.8, 0.6, 0.45, 0.9, 0.7, 0.5)
    assert f.end2_fast == pytest.approx(1.2341)


def test_the_rate_solution_refuses_depth_2_ends_that_differ_at_the_precision_shown():
    ends3, gaps, lows, norm_range = _lr_inputs(end2_slow=1.26)
    with pytest.raises(AssertionError):
        facts.lr_solution_facts(ends3, gaps, lows, norm_range, 0.1, 0.02)


def test_the_rate_solution_refuses_slow_runs_that_do_not_end_lower_and_at_larger_losses():
    ends3, gaps, lows, norm_range = _lr_inputs()
    ends3["slow"][8] = 0.75  # above the fast run's 0.7
    with pytest.raises(AssertionError):
        facts.lr_solution_facts(ends3, gaps, lows, norm_range, 0.1, 0.02)
    ends3, gaps, lows, norm_range = _lr_inputs()
    lows[16] = (-2.9, -4.9)  # the slow run reaches a lower loss
    with pytest.raises(AssertionError):
        facts.lr_solution_facts(ends3, gaps, lows, norm_range, 0.1, 0.02)


def test_the_flat_solution_quotes_the_share_of_small_eigenvalues_the_index_and_the_negative_ratio():
    flat = {"orthogonal": (0.84, 0.41, 0.012), "2-shortcut": (0.87, 0.38, 0.031)}
    f = facts.flat_solution_facts(flat)
    assert f.flat_pred == pytest.approx(5 / 6)
    assert (f.small_o, f.index_o, f.neg_o) == (0.84, 0.41, 0.012)
    assert (f.small_2, f.index_2, f.neg_2) == (0.87, 0.38, 0.031)


def test_the_flat_solution_refuses_fewer_small_eigenvalues_than_predicted():
    with pytest.raises(AssertionError):
        facts.flat_solution_facts({"orthogonal": (0.80, 0.41, 0.01), "2-shortcut": (0.87, 0.38, 0.03)})


@pytest.mark.parametrize("passed", [True, False])
def test_the_sparser_hessians_say_whether_each_ordering_holds(passed):
    cond = check(value=-0.3 if passed else 0.2, spread=0.15)
    index = check(value=-0.1 if passed else 0.1)
    f = facts.stable_live_facts(cond, index)
    assert f.live_cond_margin == pytest.approx(-cond.value) and f.live_cond_spread == pytest.approx(0.15)
    assert (f.live_cond_word == "holds") == passed
    assert ("not" in f.live_index_word) == (not passed)


def test_the_first_step_quotes_the_product_with_the_rate_and_the_losses_before_and_after():
    f1 = {"eta_lam": 2.9, "shrink": 0.11, "shrink_pred": 0.09, "loss0": 5.52, "loss1": 0.589, "lam_max0": 29.0}
    f1["lam_max1"] = 1.7
    f = facts.first_step_facts(f1)
    assert (f.eta_lam, f.shrink, f.shrink_pred) == (2.9, 0.11, 0.09)
    assert (f.loss0, f.loss1, f.lam0, f.lam1) == (5.52, 0.589, 29.0, 1.7)


# -- provenance_facts --------------------------------------------------------------------------


def _provenance(monkeypatch, modified):
    def load(figure, scale="paper", root=None):
        return pd.DataFrame(), {"git": {"commit": "abc", "package_modified": figure in modified}}

    monkeypatch.setattr(store, "load_results", load)


def test_the_provenance_lists_the_figures_from_a_modified_package_and_the_clean_ones(monkeypatch):
    _provenance(monkeypatch, {"fig3", "fig6_stable"})
    f = facts.provenance_facts()
    assert "Figure 3" in f.prov_modified and "stable" in f.prov_modified
    assert "Figure 7" in f.prov_clean and "Figure 3" not in f.prov_clean
    assert "Figure 7" not in f.prov_modified


def test_the_provenance_says_none_where_no_figure_is_from_a_modified_package(monkeypatch):
    _provenance(monkeypatch, set())
    f = facts.provenance_facts()
    assert "none" in f.prov_modified and "none" not in f.prov_clean
    assert all(name in f.prov_clean for name in ("Figure 3", "Figure 7"))
