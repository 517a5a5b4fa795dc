"""The numbers the prose of book/exp_learning.ipynb quotes (resnet_nb.book.facts.exp_learning),
checked on small fabricated results whose numbers are known in advance.

The whitened digits take seconds to load, so every test replaces the module's ``mnist`` and
``mnist_optimum`` with a small fabricated data set; long package computations (the ledger's
claims, Hessians, L-BFGS floors) are replaced by fabricated checks and tables the same way."""

import inspect
import math
import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import torch

from resnet_nb.book.facts import exp_learning as facts
from resnet_nb.core.claims import Check
from resnet_nb.core.data import SufficientStats
from resnet_nb.core.init import SMALL_SCALE
from resnet_nb.core.train import gradient_descent
from resnet_nb.experiments import fig9, fig10
from resnet_nb.shared import store

L_MIN = 0.3
TR_SYY = 1.0  # the zero map's loss is 0.5 tr Syy = 0.5
ZERO_LOSS = 0.5 * TR_SYY
SYX_DIAG = np.array([0.3, 0.25, 0.2, 0.15, 0.1, 0.08, 0.06, 0.04, 0.02, 0.01])


def numbers(text) -> list[float]:
    """The numbers a sentence quotes, in order (to check the figures, not the wording)."""
    return [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", str(text))]


class FakeDigits:
    """What the facts read of ``mnist()``: the number of digits, the inputs and the statistics."""

    m = 1234

    def __init__(self):
        g = torch.Generator().manual_seed(0)
        self.X = 2.0 * torch.randn(10, 64, generator=g, dtype=torch.float64)

    def stats(self):
        Syx = torch.diag(torch.tensor(SYX_DIAG, dtype=torch.float64))
        return SufficientStats(torch.eye(10, dtype=torch.float64), Syx, TR_SYY, self.m)


@pytest.fixture(autouse=True)
def small_data(monkeypatch):
    digits = FakeDigits()
    monkeypatch.setattr(facts, "mnist", lambda *a, **k: digits)
    monkeypatch.setattr(facts, "mnist_optimum", lambda: L_MIN)
    monkeypatch.setattr(fig9, "mnist_optimum", lambda: L_MIN)
    return digits


def runs(arch, depth, lr, finals, relu=False):
    """Rows of a Figure 9/10 table: one per run; a final loss of None is a diverged run."""
    return [
        {
            "arch": arch,
            "depth": depth,
            "lr": lr,
            "run": i,
            "diverged": f is None,
            "final_loss": np.nan if f is None else f,
            "epochs": 1000,
            "relu": relu,
        }
        for i, f in enumerate(finals)
    ]


def table(*groups) -> pd.DataFrame:
    return pd.DataFrame([r for g in groups for r in g])


def fake_claim(verdict, fragile):
    """A ledger claim function whose check passes, by less than its spread when ``fragile``."""

    def fn(falsify=False):
        return Check("c", "x", 1.0, 0.5, "stated", op=">=", spread=1.0 if fragile else 0.1)

    fn.claim = SimpleNamespace(verdict=verdict)
    return fn


# -- setup_facts -------------------------------------------------------------------------------


def test_setup_quotes_the_optimum_the_digit_count_and_the_package_settings():
    f = facts.setup_facts()
    assert f.L_min == pytest.approx(L_MIN)
    assert f.n_digits == FakeDigits.m
    assert f.small_scale == pytest.approx(SMALL_SCALE)
    assert f.lr_lo == pytest.approx(min(fig9.SCALES["paper"]["lrs"]))
    assert f.lr_hi == pytest.approx(max(fig9.SCALES["paper"]["lrs"]))
    assert f.flat_tol == pytest.approx(fig9.FLAT_TOL)
    assert f.floor == pytest.approx(fig9.ROUNDING_FLOOR)
    assert f.lg_floor == pytest.approx(math.log10(fig9.ROUNDING_FLOOR), rel=1e-6)
    assert f.blowup == pytest.approx(inspect.signature(gradient_descent).parameters["blowup"].default)


# -- fig9_rate_facts ---------------------------------------------------------------------------


def _lr9(tie_at_4=True):
    # best rates by depth: lower than every other at depth 2, tied at 4, below at 6, above from 8 on
    lr = {
        "2-shortcut": [0.01, 0.1, 0.1, 1.0, 3.0],
        "orthogonal": [0.1, 0.1 if tie_at_4 else 0.03, 0.3, 0.3, 0.1],
        "xavier": [0.1, 0.03, 0.03, 0.01, 0.01],
        "1-shortcut": [0.3, 0.03, 0.1, 0.1, 0.03],
    }
    return pd.DataFrame(lr, index=pd.Index([2, 4, 6, 8, 10], name="depth"))


@pytest.fixture
def verdicts(monkeypatch):
    monkeypatch.setattr(fig9, "claim_fig9_shortcut_lowest", fake_claim("reproduced", fragile=True))
    monkeypatch.setattr(fig9, "claim_fig9_near_optimal", fake_claim("reproduced", fragile=False))
    monkeypatch.setattr(fig10, "claim_shortcut_lowest", fake_claim("partly reproduced", fragile=False))
    monkeypatch.setattr(fig10, "claim_flat_at_64", fake_claim("reproduced", fragile=False))
    monkeypatch.setattr(fig10, "claim_deeper_lower", fake_claim("not reproduced", fragile=False))


def test_higher_rates_count_from_the_depth_after_which_the_shortcut_rate_is_always_the_highest(verdicts):
    lr9 = _lr9()
    f = facts.fig9_rate_facts(lr9)
    assert f.rate_from == 8
    from8 = lr9.loc[[8, 10]]
    assert f.rate_sc_lo == pytest.approx(from8["2-shortcut"].min())
    assert f.rate_sc_hi == pytest.approx(from8["2-shortcut"].max())
    assert f.rate_oth_hi == pytest.approx(from8.drop(columns="2-shortcut").max().max())
    assert (f.rate_tie, f.rate_tie_lr) == (4, pytest.approx(lr9.loc[4, "2-shortcut"]))
    assert (f.rate_low, f.rate_low_lr) == (2, pytest.approx(lr9.loc[2, "2-shortcut"]))


def test_the_rate_verdicts_are_the_claims_verdicts_with_fragile_where_the_margin_is_below_the_spread(verdicts):
    f = facts.fig9_rate_facts(_lr9())
    assert "reproduced" in f.verdict9 and "fragile" in f.verdict9
    assert "fragile" not in f.verdict9_near
    assert f.verdict10.startswith("partly") and "fragile" not in f.verdict10
    assert f.verdict10_deeper.startswith("not reproduced")


def test_the_rate_facts_refuse_results_without_the_tie_at_depth_4_the_prose_describes(verdicts):
    with pytest.raises(AssertionError):
        facts.fig9_rate_facts(_lr9(tie_at_4=False))


# -- xavier96_facts ----------------------------------------------------------------------------


def _xavier96(survivor_at_001=0.40):
    return table(
        runs("xavier", 96, 0.001, [0.5, 0.6]),
        runs("xavier", 96, 0.01, [None, survivor_at_001]),
        runs("xavier", 96, 0.1, [None, None]),
        runs("orthogonal", 96, 0.1, [0.31, 0.32]),  # another architecture: ignored
    )


def test_xavier_at_96_reports_the_first_diverging_rate_and_the_spread_of_the_surviving_means():
    f = facts.xavier96_facts(_xavier96())
    assert f.xav96_first_div == pytest.approx(0.01)
    assert f.xav96_only == pytest.approx(0.001)
    means = {0.001: 0.55, 0.01: 0.40}  # over the runs that did not diverge
    assert f.xav96_lo == pytest.approx(min(means.values()))
    assert f.xav96_hi == pytest.approx(max(means.values()))
    assert f.xav96_top == pytest.approx(0.01)
    rel = (0.55 - 0.40) / (0.55 - L_MIN)
    assert f.xav96_rel_s == pytest.approx(rel, rel=0.01)


def test_xavier_at_96_refuses_rates_that_end_alike_since_the_prose_says_they_do_not():
    with pytest.raises(AssertionError):
        facts.xavier96_facts(_xavier96(survivor_at_001=0.55))


def test_xavier_at_96_refuses_a_second_rate_without_a_diverged_run():
    paper9 = pd.concat([_xavier96(), table(runs("xavier", 96, 0.0001, [0.7, 0.7]))])
    with pytest.raises(AssertionError):
        facts.xavier96_facts(paper9)  # the prose names one rate at which no run diverged


# -- settings_facts ----------------------------------------------------------------------------


def _orthogonal_rate1(diverged_at=None):
    depth_finals = {2: 0.34, 4: ZERO_LOSS, 8: 0.35, 16: ZERO_LOSS, 32: ZERO_LOSS}
    rows = []
    for d, v in depth_finals.items():
        finals = [v, v + 1e-5]
        if d == diverged_at:
            finals[1] = None
        rows.append(runs("orthogonal", d, 1.0, finals))
    rows.append(runs("orthogonal", 32, 0.1, [0.31, 0.31]))  # another rate: ignored
    return table(*rows)


def test_the_collapse_counts_from_the_depth_after_which_every_rate_1_run_ends_at_the_zero_map():
    f = facts.settings_facts({"fragile": [3, 5]}, _orthogonal_rate1())
    assert f.collapse_from == 16  # depth 4 collapses too, but depth 8 does not
    assert numbers(f.fragile9) == [3, 5]
    p9, p10 = fig9.SCALES["paper"], fig10.SCALES["paper"]
    assert f.depth9_max == max(p9["depths"])
    assert numbers(f.depths9) == p9["depths"] and numbers(f.depths10) == p10["depths"]
    assert (f.runs9, f.runs10) == (p9["runs"], p10["runs"])
    assert (f.epochs9, f.epochs10) == (p9["epochs"], p10["epochs"])
    assert (f.n_arch10, f.n_lrs10) == (len(p10["archs"]), len(p10["lrs"]))


def test_the_settings_refuse_a_diverged_orthogonal_run_at_rate_1():
    with pytest.raises(AssertionError):
        facts.settings_facts({"fragile": []}, _orthogonal_rate1(diverged_at=8))


# -- gap_facts ---------------------------------------------------------------------------------


def _gaps():
    # lg of the gap to L_min at the best rate
    lg = {
        (3, "1-shortcut"): -5.0,
        (3, "orthogonal"): -5.5,
        (3, "xavier"): -1.0,
        (3, "3-shortcut"): -0.5,
        (3, "2-shortcut"): -6.0,
        (4, "1-shortcut"): -4.0,
        (4, "orthogonal"): -4.5,
        (4, "xavier"): -0.7,
        (4, "2-shortcut"): -7.0,
        (6, "1-shortcut"): -4.2,
        (6, "orthogonal"): -3.7,
        (6, "xavier"): -0.9,
        (6, "3-shortcut"): -2.0,
        (6, "2-shortcut"): -7.5,
    }
    return pd.DataFrame([{"depth": d, "arch": a, "lg_excess": v} for (d, a), v in lg.items()])


def _ratios(ratio_2se_at_6=5.37):
    return pd.DataFrame(
        {
            "depth": [3, 4, 6, 8],
            "ratio": [8.0, 40.0, 25.0, 300.0],
            "ratio_2se": [2.0, 3.0, ratio_2se_at_6, 60.0],
        }
    )


@pytest.fixture
def gap_inputs(monkeypatch):
    monkeypatch.setattr(fig9, "summarise", lambda table, **k: _gaps())
    monkeypatch.setattr(fig9, "gap_ratio", lambda *a, **k: _ratios())
    eos16 = pd.DataFrame({"eta_lam0": [2.5, 2.8, 2.6]})
    monkeypatch.setattr(fig9, "stability_run", lambda *a, **k: eos16)
    lr9 = pd.DataFrame({"2-shortcut": [0.1, 1.0]}, index=[8, 16])
    return lr9, eos16


def test_the_gaps_compare_the_far_families_with_the_nearest_and_read_the_ratio_from_where_it_exceeds_10(gap_inputs):
    lr9, eos16 = gap_inputs
    f = facts.gap_facts(lr9, pd.DataFrame())
    near = max(10**-4.0, 10**-4.5, 10**-4.2, 10**-3.7)  # 1-shortcut and orthogonal from depth 4
    assert f.near_hi == pytest.approx(near, rel=0.05)
    assert f.xav_far == pytest.approx(10**-0.7, rel=0.01)
    assert f.sc3_gap3 == pytest.approx(10**-0.5, rel=0.01)
    assert f.sc3_far == pytest.approx(10**-2.0, rel=0.01) and f.sc3_far_d == 6
    assert f.sc3_times == round(10**-2.0 / near)
    assert f.ratio_from == 4  # 8 at depth 3 is below 10
    assert (f.ratio_lo, f.ratio_hi) == (25, 300)
    assert f.ratio_k == pytest.approx(3.0)  # the smallest lower end from depth 4, rounded down
    assert f.etalam0_open == pytest.approx(eos16["eta_lam0"].max())


def test_the_ratio_at_two_standard_errors_is_rounded_down_so_the_prose_can_say_more_than(gap_inputs, monkeypatch):
    monkeypatch.setattr(fig9, "gap_ratio", lambda *a, **k: _ratios().assign(ratio_2se=[2.0, 9.0, 2.69, 60.0]))
    f = facts.gap_facts(gap_inputs[0], pd.DataFrame())
    assert f.ratio_k == pytest.approx(2.6)


def test_the_gaps_refuse_a_ratio_that_does_not_hold_at_two_standard_errors(gap_inputs, monkeypatch):
    monkeypatch.setattr(fig9, "gap_ratio", lambda *a, **k: _ratios().assign(ratio_2se=[2.0, 3.0, 0.8, 60.0]))
    with pytest.raises(AssertionError):
        facts.gap_facts(gap_inputs[0], pd.DataFrame())


def test_the_gaps_refuse_a_depth_16_start_within_the_stability_bound(gap_inputs, monkeypatch):
    monkeypatch.setattr(fig9, "stability_run", lambda *a, **k: pd.DataFrame({"eta_lam0": [2.5, 1.9]}))
    with pytest.raises(AssertionError):
        facts.gap_facts(gap_inputs[0], pd.DataFrame())


def test_the_gaps_refuse_3_shortcut_networks_that_end_as_near_as_the_others(gap_inputs, monkeypatch):
    near = _gaps()
    near.loc[(near["arch"] == "3-shortcut") & (near["depth"] == 6), "lg_excess"] = -3.6  # < 2 x 10^-3.7
    monkeypatch.setattr(fig9, "summarise", lambda table, **k: near)
    with pytest.raises(AssertionError):
        facts.gap_facts(gap_inputs[0], pd.DataFrame())


# -- fig10_facts -------------------------------------------------------------------------------


def test_figure_10_quotes_the_shortcut_gaps_the_plain_level_at_64_and_the_modified_records(monkeypatch):
    monkeypatch.setattr(fig9, "modified_records", lambda figure="fig9", scale="paper": (2, 7, ["abc1234"]))
    s10 = pd.DataFrame(
        [{"arch": "2-shortcut", "depth": d, "lg_excess": v} for d, v in ((2, 0.7), (8, -0.6), (64, -0.4))]
        + [{"arch": "xavier", "depth": d, "lg_excess": -0.3} for d in (2, 8, 64)]
    )
    best10 = pd.DataFrame({"2-shortcut": [4.9, 0.33], "xavier": [0.36, 0.5], "orthogonal": [0.35, 0.5]}, index=[2, 64])
    paper10 = table(
        runs("2-shortcut", 2, 0.001, [5.2, 5.0], relu=True),
        runs("2-shortcut", 2, 0.01, [4.9, 4.9], relu=True),
        runs("xavier", 64, 0.01, [0.50, 0.52], relu=True),
        runs("xavier", 64, 0.1, [0.49, 0.51], relu=True),
        runs("xavier", 64, 1.0, [None, 0.1], relu=True),  # a diverged rate is not eligible
    )
    f = facts.fig10_facts(best10, paper10, s10)
    assert f.sc10_lg2 == pytest.approx(0.7) and f.sc10_lg64 == pytest.approx(-0.4)
    assert f.sc10_loss64 == pytest.approx(0.33) and f.sc10_loss2 == pytest.approx(4.9)
    assert f.plain10_loss2 == pytest.approx(0.35)
    assert f.flat64 == pytest.approx(np.mean([0.51, 0.50]))  # mean over the eligible rates' means
    assert f.start_loss2 == pytest.approx(5.1)  # the largest mean final loss over the rates
    assert numbers(f.mod10) == [2, 7]


# -- he64_facts --------------------------------------------------------------------------------


def _he_grid(spread64):
    depths = fig10.SCALES["paper"]["depths"]
    rows = [runs("he", d, 0.01, [0.4, 0.41], relu=True) for d in depths if d != 64]
    rows.append(runs("he", 64, 0.01, [0.50, 0.50], relu=True))
    rows.append(runs("he", 64, 0.1, [0.50 * (1 - spread64)] * 2, relu=True))
    rows.append(runs("he", 64, 1.0, [None, None], relu=True))
    return table(*rows)


def _he_s():
    depths = fig10.SCALES["paper"]["depths"]
    return pd.DataFrame({"final_loss": np.linspace(0.45, 0.40, len(depths)), "best_lr": 0.03}, index=depths)


@pytest.mark.parametrize("spread", [0.5 * fig9.FLAT_TOL, 10 * fig9.FLAT_TOL])
def test_he_at_64_quotes_its_loss_against_xavier_and_says_whether_it_ends_alike_at_every_rate(spread):
    best10 = pd.DataFrame({"xavier": [0.38, 0.5]}, index=[32, 64])
    he_s = _he_s()
    f = facts.he64_facts(best10, he_s, _he_grid(spread))
    assert f.he_n_depths == len(he_s)
    assert f.he_loss == pytest.approx(he_s.loc[64, "final_loss"]) and f.he_lr == pytest.approx(0.03)
    assert f.he_xav == pytest.approx(0.5)
    assert f.he64_spread_s == pytest.approx(spread, rel=0.05)
    flat = spread <= fig9.FLAT_TOL
    assert ("does not" not in f.he64_rule) == flat


def test_he_at_64_refuses_a_missing_or_incomplete_he_baseline():
    best10 = pd.DataFrame({"xavier": [0.5]}, index=[64])
    with pytest.raises(AssertionError):
        facts.he64_facts(best10, _he_s(), None)
    partial = _he_grid(0.0)
    with pytest.raises(AssertionError):
        facts.he64_facts(best10, _he_s(), partial[partial["depth"] != 2])


# -- he_xavier_facts ---------------------------------------------------------------------------


def _hx(verdicts):
    depths = [2, 4, 8, 16, 32]
    diff = {"worse": 0.05, "better": -0.06, "unresolved": 0.001}
    return pd.DataFrame(
        {
            "verdict": verdicts,
            "diff": [diff[v] * (1 + i) for i, v in enumerate(verdicts)],
            "spread": [0.01, 0.02, 0.01, 0.03, 0.02],
        },
        index=pd.Index(depths, name="depth"),
    )


def test_he_against_xavier_names_the_depths_of_each_verdict_and_the_runs_that_leave_the_zero_map():
    hx = _hx(["worse", "worse", "unresolved", "better", "better"])
    he_s = pd.DataFrame({"best_lr": [0.1]}, index=[32])
    paper10 = table(runs("xavier", 32, 0.1, [0.50, 0.50], relu=True), runs("xavier", 32, 1.0, [0.50, 0.50]))
    paper_he = table(
        runs("he", 32, 0.1, [0.30, 0.4996, 0.45, 0.50], relu=True),  # two leave 0.5 by more than FLAT_TOL
        runs("he", 32, 0.01, [0.10, 0.10], relu=True),  # not the best rate: ignored
    )
    f = facts.he_xavier_facts(he_s, hx, paper10, paper_he)
    assert f.he_worse_to == 4 and f.he_better_from == 16
    assert numbers(f.he_unres_n) == [8]
    ratios = [abs(hx.loc[d, "diff"]) / hx.loc[d, "spread"] for d in (2, 4, 16, 32)]
    assert f.he_margin_min == pytest.approx(min(ratios), rel=0.01)
    assert numbers(f.he_left) == [2, 4]


def test_he_against_xavier_refuses_results_without_an_unresolved_depth():
    """The prose names the depths where one run-to-run spread does not order the two."""
    hx = _hx(["worse", "worse", "better", "better", "better"])
    he_s = pd.DataFrame({"best_lr": [0.1]}, index=[32])
    paper10 = table(runs("xavier", 32, 0.1, [0.50, 0.50], relu=True))
    paper_he = table(runs("he", 32, 0.1, [0.30, 0.50], relu=True))
    with pytest.raises(AssertionError):
        facts.he_xavier_facts(he_s, hx, paper10, paper_he)


def test_he_against_xavier_refuses_verdicts_out_of_the_order_worse_unresolved_better():
    hx = _hx(["worse", "better", "unresolved", "worse", "better"])
    he_s = pd.DataFrame({"best_lr": [0.1]}, index=[32])
    paper = table(runs("xavier", 32, 0.1, [0.5, 0.5]), runs("he", 32, 0.1, [0.3, 0.5]))
    with pytest.raises(AssertionError):
        facts.he_xavier_facts(he_s, hx, paper, paper)


@pytest.mark.parametrize(
    "verdicts, he_finals",
    [
        (["worse", "unresolved", "worse", "better", "better"], [0.3, 0.5]),  # unresolved among the worse
        (["worse", "worse", "unresolved", "better", "better"], [0.3, 0.4]),  # every He run leaves 0.5
        (["worse", "worse", "unresolved", "better", "better"], [0.5, 0.5]),  # none does
    ],
)
def test_he_against_xavier_refuses_results_the_sentence_cannot_describe(verdicts, he_finals):
    he_s = pd.DataFrame({"best_lr": [0.1]}, index=[32])
    paper10 = table(runs("xavier", 32, 0.1, [0.5, 0.5], relu=True))
    paper_he = table(runs("he", 32, 0.1, he_finals, relu=True))
    with pytest.raises(AssertionError):
        facts.he_xavier_facts(he_s, _hx(verdicts), paper10, paper_he)


# -- he_divergence_facts -----------------------------------------------------------------------


def _divergence(xavier16=0.38, partial_survivors=2):
    rows = []
    for d in (2, 4, 8, 16):
        rows += [runs("xavier", d, lr, [0.45, 0.47], relu=True) for lr in (0.001, 0.01, 0.1)]
        rows.append(runs("xavier", d, 1.0, [None, None], relu=True))
        rows += [runs("he", d, lr, [None, None, None], relu=True) for lr in (0.1, 1.0)]
        if d != 16:
            rows += [runs("he", d, lr, [0.4, 0.4, 0.4], relu=True) for lr in (0.001, 0.01)]
    rows.append(runs("xavier", 16, 0.03, [xavier16, 0.6], relu=True))
    rows.append(runs("he", 16, 0.001, [0.45, 0.46, 0.47], relu=True))
    rows.append(runs("he", 16, 0.003, [0.44, None, None], relu=True))
    rows.append(runs("he", 16, 0.01, [0.40, 0.42, None][:partial_survivors] + [None] * (3 - partial_survivors)))
    paper = table(*rows)
    s10 = pd.DataFrame([{"arch": "xavier", "depth": 8, "best_lr": 0.1}])
    return paper[paper["arch"] == "xavier"], paper[paper["arch"] == "he"], s10


def test_he_divergence_quotes_where_he_diverges_and_its_best_surviving_run_at_16():
    paper10, paper_he, s10 = _divergence()
    f = facts.he_divergence_facts(paper10, paper_he, s10)
    assert f.he8_div_from_s == pytest.approx(0.1) and f.xav8_lr_s == pytest.approx(0.1)
    assert numbers(f.he_div) == [2, 3, 0.003, 1, 3, 0.01]  # diverged runs of 3 at each partial rate
    assert f.he_surv == pytest.approx(0.40) and f.he_surv_lr == pytest.approx(0.01)
    assert numbers(f.he_surv_n) == [2]
    assert f.xav16_run == pytest.approx(0.38) and f.xav16_run_lr == pytest.approx(0.03)
    assert f.he_surv_below == "above"  # He's 0.40 against Xavier's best run, 0.38


def test_he_divergence_says_below_and_one_surviving_run_where_that_is_the_case():
    paper10, paper_he, s10 = _divergence(xavier16=0.43, partial_survivors=1)
    f = facts.he_divergence_facts(paper10, paper_he, s10)
    assert "one" in f.he_surv_n and f.he_surv == pytest.approx(0.40)
    assert f.he_surv_below == "below"


def test_he_divergence_counts_the_diverged_runs_out_of_the_runs_at_that_rate():
    paper10, paper_he, s10 = _divergence(partial_survivors=1)
    h16 = (paper_he["depth"] == 16) & (paper_he["run"] == 2)
    paper_he = paper_he[~h16]  # two runs per rate at depth 16: one of them diverged at 0.003 and at 0.01
    f = facts.he_divergence_facts(paper10, paper_he, s10)
    assert numbers(f.he_div) == [1, 2, 0.003, 1, 2, 0.01]


def test_he_divergence_refuses_a_he_network_that_trains_at_higher_rates_than_xavier():
    paper10, paper_he, s10 = _divergence()
    # at depth 2, He survives the rate 0.1 where it diverged
    fix = (paper_he["depth"] == 2) & np.isclose(paper_he["lr"], 0.1)
    paper_he = paper_he.assign(
        diverged=paper_he["diverged"].where(~fix, False), final_loss=paper_he["final_loss"].where(~fix, 0.4)
    )
    with pytest.raises(AssertionError):
        facts.he_divergence_facts(paper10, paper_he, s10)


def test_he_divergence_refuses_a_xavier_rate_at_depth_8_below_where_he_diverges():
    paper10, paper_he, _ = _divergence()
    s10 = pd.DataFrame([{"arch": "xavier", "depth": 8, "best_lr": 0.01}])  # He diverges from 0.1 on
    with pytest.raises(AssertionError):
        facts.he_divergence_facts(paper10, paper_he, s10)


def test_he_divergence_refuses_depth_16_without_a_rate_at_which_only_some_runs_diverged():
    paper10, paper_he, s10 = _divergence()
    partial = (paper_he["depth"] == 16) & paper_he["lr"].isin([0.003, 0.01])
    with pytest.raises(AssertionError):
        facts.he_divergence_facts(paper10, paper_he[~partial], s10)


# -- he_provenance_facts -----------------------------------------------------------------------


def _records(monkeypatch, gits):
    records = [{"provenance": {"git": g}} for g in gits]
    monkeypatch.setattr(store, "committed_records", lambda figure, scale="paper", root=None: iter(records))


def test_he_provenance_counts_the_records_and_the_modified_ones_per_commit(monkeypatch):
    gits = [{"commit": "aaaaaaa111", "package_modified": True}] * 3 + [
        {"commit": "bbbbbbb222", "package_modified": True},
        {"commit": "bbbbbbb222", "package_modified": False},
        {"commit": None},
    ]
    _records(monkeypatch, gits)
    prov = str(facts.he_provenance_facts().prov_he)
    parts = {re.search(r"commit (\w+)", p).group(1): p for p in prov.split(";")}
    assert set(parts) == {"aaaaaaa", "bbbbbbb", "unknown"}
    assert numbers(parts["aaaaaaa"])[0] == 3 and "all" in parts["aaaaaaa"]
    assert numbers(parts["bbbbbbb"]) == [2, 1]
    assert numbers(parts["unknown"])[0] == 1 and "none" in parts["unknown"]


def test_he_provenance_refuses_counts_that_disagree_with_the_figure_s_modified_records(monkeypatch):
    _records(monkeypatch, [{"commit": "aaaaaaa", "package_modified": True}])
    monkeypatch.setattr(fig9, "modified_records", lambda figure="fig9", scale="paper": (0, 1, ["aaaaaaa"]))
    with pytest.raises(AssertionError):
        facts.he_provenance_facts()


# -- eos_facts ---------------------------------------------------------------------------------


@pytest.fixture
def eos_inputs(monkeypatch):
    check = Check("edge", "x", 1.0, 0.5, "stated", op=">=")
    monkeypatch.setattr(fig9, "claim_edge_of_stability", lambda falsify=False, runs=3, data=None: check)
    monkeypatch.setattr(
        fig9, "escape_factor", lambda *a, **k: {"measured": 1.0791, "lr": 0.1, "sigma": np.array([0.8, 0.5])}
    )
    monkeypatch.setattr(store, "load_results", lambda figure, scale="paper", root=None: (pd.DataFrame(), {}))
    rs = pd.DataFrame({"depth": [4, 8, 16, 32], "lam_max0": [8.0, 16.0, 32.0, 96.0], "eta_lam0": [0.8, 1.6, 1.0, 3.0]})
    monkeypatch.setattr(fig9, "rate_scale", lambda *a, **k: rs)
    eos = pd.DataFrame({"arch": ["2-shortcut"] * 2 + ["orthogonal"], "lam_min0": [-0.79, -0.81, -30.0]})
    eos_table = pd.DataFrame(
        {
            "arch": ["2-shortcut", "orthogonal"],
            "lr": [3.16, 0.1],
            "lam_max0": [0.8, 32.0],
            "eta_lam0": [2.528, 3.2],
            "lam_max_end": [0.63, 0.5],
            "eta_lam_end": [1.99, 0.05],
            "two_over_eta": [2 / 3.16, 20.0],
        }
    )
    return check, eos, eos_table, rs


def test_eos_quotes_the_products_with_the_rate_the_escape_factor_and_its_bound(eos_inputs):
    check, eos, eos_table, rs = eos_inputs
    f = facts.eos_facts(eos, eos_table, pd.DataFrame())
    assert f.eos_check is check
    assert (f.eta2, f.lam0_2, f.etalam0_2) == (3.16, 0.8, pytest.approx(2.528))
    assert (f.lamend_2, f.etalamend_2) == (0.63, 1.99) and f.two_eta_2 == pytest.approx(2 / 3.16)
    assert (f.eta_o, f.lam0_o, f.etalam0_o, f.lamend_o) == (0.1, 32.0, 3.2, 0.5)
    assert f.esc_measured == pytest.approx(1.0791) and f.esc_lr == pytest.approx(0.1)
    assert f.esc_pred == pytest.approx(1 + 0.1 * 0.8)
    ratio = 0.80 / 0.8  # |mean lambda_min(0)| of the 2-shortcut runs over lambda_max(0)
    assert f.sym_ratio == pytest.approx(ratio) and f.esc_bound == pytest.approx(1 + 2 * ratio)


def test_eos_reads_the_band_of_the_usable_rate_against_the_growth_of_lambda_max(eos_inputs):
    f = facts.eos_facts(*eos_inputs[1:3], pd.DataFrame())
    assert (f.rs_lo, f.rs_hi) == (0.8, 3.0)
    assert f.rs_grow == 96 // 8
    assert f.rs_steps == pytest.approx(math.log10(3.0 / 0.8) / 0.5, rel=0.01)  # sqrt(10) per step
    assert (f.rs_dmin, f.rs_dmax) == (4, 32)


def test_eos_refuses_a_2_shortcut_start_within_the_classical_bound(eos_inputs):
    _, eos, eos_table, _ = eos_inputs
    eos_table = eos_table.assign(eta_lam0=[1.9, 3.2])
    with pytest.raises(AssertionError):
        facts.eos_facts(eos, eos_table, pd.DataFrame())


def test_eos_refuses_a_band_of_the_usable_rate_as_wide_as_the_growth_of_lambda_max(eos_inputs, monkeypatch):
    rs = pd.DataFrame({"depth": [4, 8], "lam_max0": [8.0, 96.0], "eta_lam0": [0.1, 3.0]})
    monkeypatch.setattr(fig9, "rate_scale", lambda *a, **k: rs)
    with pytest.raises(AssertionError):
        facts.eos_facts(*eos_inputs[1:3], pd.DataFrame())


# -- floor4_facts ------------------------------------------------------------------------------


@pytest.fixture
def floor4_inputs(monkeypatch):
    cfg = fig10.FLOOR_CONFIG
    f4 = {
        "gd": 0.40,
        "lr": 0.316,
        "gd_lo": 0.395,
        "gd_hi": 0.405,
        "range": 0.01,
        "lo": 0.30,
        "hi": 0.45,
        "n": len(cfg["scales"]) * cfg["starts_per_scale"],
    }

    def depth4(falsify=False, values=f4):
        return Check("floor", "x", 0.0 if not falsify else 1.0, 0.5, "stated", values=dict(values))

    control = Check("control", "x", 0.0, 0.5, "stated")
    monkeypatch.setattr(fig10, "claim_depth4_floor", depth4)
    monkeypatch.setattr(fig10, "depth4_floor_negative_control", lambda: control)
    gd = {"xavier": {"loss": 0.60, "range": 0.01, "lr": 0.1}, "orthogonal": {"loss": 0.302, "range": 0.001, "lr": 0.1}}
    monkeypatch.setattr(fig10, "gd_at_best", lambda arch, depth: gd[arch])
    monkeypatch.setattr(fig10, "committed_floor", lambda: pd.DataFrame({"wall_time_s_per_start": [12.4, 97.6]}))
    best10 = pd.DataFrame({"xavier": [0.60], "orthogonal": [0.302]}, index=[4])
    return f4, depth4, best10


def test_depth_4_quotes_the_floor_below_gradient_descent_by_its_gap_and_relative_gap(floor4_inputs):
    f4, _, best10 = floor4_inputs
    f = facts.floor4_facts(best10)
    assert f.floor4.values["gd"] == f4["gd"] and f.floor4_false.values["gd"] == f4["gd"]
    assert (f.floor4_gd, f.floor4_lr, f.floor4_lo, f.floor4_hi) == (0.40, 0.316, 0.30, 0.45)
    assert (f.floor4_gd_lo, f.floor4_gd_hi) == (0.395, 0.405)
    assert f.floor4_gap == pytest.approx(0.10)
    assert f.floor4_rel == pytest.approx(0.10 / 0.40)
    assert f.floor4_be == pytest.approx((0.10 - 0.01) / 0.30)
    assert f.floor4_n == f4["n"] and f.floor4_wall == 98
    assert f.floor4_iter == fig10.FLOOR_CONFIG["max_iter"] and f.floor4_per == fig10.FLOOR_CONFIG["starts_per_scale"]
    assert numbers(f.floor4_scales) == pytest.approx(fig10.FLOOR_CONFIG["scales"])
    assert (f.plain4_x, f.plain4_o) == (0.60, 0.302)


def test_depth_4_compares_the_floor_with_each_plain_network_like_the_checks(floor4_inputs):
    f = facts.floor4_facts(floor4_inputs[2])
    assert "below" in f.cmp4_x  # 0.30 against Xavier's 0.60
    assert "equal" in f.cmp4_o  # 0.30 against 0.302: within 1% of the floor plus the GD range


def test_depth_4_refuses_a_floor_within_the_accuracy_asked_of_it(floor4_inputs, monkeypatch):
    f4, depth4, best10 = floor4_inputs
    close = dict(f4, gd=0.301, lo=0.30, range=0.0)
    monkeypatch.setattr(fig10, "claim_depth4_floor", lambda falsify=False: depth4(falsify, close))
    with pytest.raises(AssertionError):
        facts.floor4_facts(best10)


def test_depth_4_refuses_a_start_count_other_than_the_configuration_s(floor4_inputs, monkeypatch):
    f4, depth4, best10 = floor4_inputs
    fewer = dict(f4, n=f4["n"] - 1)
    monkeypatch.setattr(fig10, "claim_depth4_floor", lambda falsify=False: depth4(falsify, fewer))
    with pytest.raises(AssertionError):
        facts.floor4_facts(best10)


# -- fig9_facts --------------------------------------------------------------------------------


def _s9():
    lg = {
        "2-shortcut": {2: -12.0, 4: -6.0, 6: -5.5, 24: -5.0, 48: -6.5},
        "orthogonal": {2: -11.0, 4: -5.0, 6: -4.5, 24: -4.0, 48: -3.8},
        "1-shortcut": {2: -10.0, 4: -4.9, 6: -4.4, 24: -4.1, 48: -3.9},
        "xavier": {2: -2.0, 4: -1.5, 6: -1.2, 24: -0.8, 48: -0.6},
        "3-shortcut": {3: -0.3, 6: -3.0, 24: -2.5, 48: -2.7},
    }
    rows = [
        {"arch": a, "depth": d, "lg_excess": v, "final_loss": L_MIN + 10**v}
        for a, by in lg.items()
        for d, v in by.items()
    ]
    return pd.DataFrame(rows)


def test_figure_9_quotes_the_ranges_of_each_family_and_the_3_shortcut_plateau_at_depth_3(monkeypatch):
    monkeypatch.setattr(fig9, "modified_records", lambda figure="fig9", scale="paper": (3, 40, ["abc1234", "def5678"]))
    paper9 = table(
        runs("3-shortcut", 3, 0.001, [0.80, 0.80]),
        runs("3-shortcut", 3, 0.01, [0.795, 0.80]),  # within 1e-2 of the start: on the plateau
        runs("3-shortcut", 3, 0.1, [0.70, 0.70]),
        runs("3-shortcut", 3, 1.0, [0.35, 0.36]),
    )
    s9 = _s9()
    f = facts.fig9_facts(paper9, s9)
    assert (f.sc2_lo, f.sc2_hi) == (-6.5, -5.0)  # from depth 4
    assert f.xav_level == pytest.approx(np.mean([-0.8, -0.6]))  # from depth 24
    assert f.sc3_plateau_max == pytest.approx(0.01)
    assert f.sc3_start == pytest.approx(0.80)
    assert f.sc3_best == pytest.approx(L_MIN + 10**-0.3, rel=1e-3)
    assert (f.sc3_lo, f.sc3_hi) == (-3.0, -2.5)  # depths 6 to 48
    assert (f.oo_lo, f.oo_hi) == (-4.5, -3.8)
    assert f.orth2 == pytest.approx(1e-11)
    assert numbers(f.mod9) == [3, 40]
    assert "abc1234" in f.commit9 and "def5678" in f.commit9


def test_figure_9_refuses_3_shortcut_networks_that_end_below_the_orthogonal_and_1_shortcut_ones(monkeypatch):
    monkeypatch.setattr(fig9, "modified_records", lambda figure="fig9", scale="paper": (0, 1, ["a"]))
    s9 = _s9()
    s9.loc[s9["arch"] == "3-shortcut", "lg_excess"] -= 3.0
    paper9 = table(runs("3-shortcut", 3, 0.001, [0.8]))
    with pytest.raises(AssertionError):
        facts.fig9_facts(paper9, s9)


# -- floor_facts -------------------------------------------------------------------------------


@pytest.fixture
def floor2(monkeypatch):
    shortcut = {"gd": 0.405, "lo": 0.40, "hi": 0.41}
    plain = {"gd": 0.35, "lo": 0.25, "hi": 0.28}

    def depth2(falsify=False):
        v = plain if falsify else shortcut
        return Check("floor", "x", 0.0123, 0.05, "stated", values=dict(v))

    monkeypatch.setattr(fig10, "claim_depth2_floor", depth2)
    monkeypatch.setattr(fig10, "rank_limited_linear_loss", lambda rank, n_per_class=None: 0.45)
    return shortcut, plain


def test_the_depth_2_floor_quotes_the_l_bfgs_ends_and_the_singular_values_each_network_must_realise(floor2):
    shortcut, plain = floor2
    f = facts.floor_facts()
    assert (f.floor_gd, f.floor_lo, f.floor_hi) == (0.405, 0.40, 0.41)
    assert (f.plain_lo, f.plain_hi) == (0.25, 0.28)
    assert f.floor_range == pytest.approx(0.01)
    assert f.floor_acc == pytest.approx(fig10.FLOOR_ACCURACY)
    assert f.floor_diff == pytest.approx(0.0123) and f.lin5 == pytest.approx(0.45)
    # Syx is diagonal: the singular values of I - Syx are 1 - its entries
    assert f.res_lo == pytest.approx(1 - SYX_DIAG.max()) and f.res_hi == pytest.approx(1 - SYX_DIAG.min())
    assert f.w_hi == pytest.approx(SYX_DIAG.max())


def test_the_depth_2_floor_refuses_a_rank_5_linear_map_below_the_network_s_floor(floor2, monkeypatch):
    monkeypatch.setattr(fig10, "rank_limited_linear_loss", lambda rank, n_per_class=None: 0.39)
    with pytest.raises(AssertionError):
        facts.floor_facts()


def test_the_depth_2_floor_refuses_a_plain_network_that_does_not_surpass_the_linear_optimum(floor2):
    floor2[1].update(lo=0.31, hi=0.35)  # above L_min = 0.3, still below the shortcut floor
    with pytest.raises(AssertionError):
        facts.floor_facts()


# -- the exercises' solutions ------------------------------------------------------------------


def test_the_plateaus_solution_reads_the_rates_and_first_depths_of_each_plateau():
    hI = pd.DataFrame(
        {"arch": ["3-shortcut"] * 3 + ["1-shortcut"], "depth": [3, 6, 3, 2], "lr": [0.001, 0.01, 0.0316, 3.0]}
    )
    h0 = pd.DataFrame(
        {
            "arch": ["orthogonal"] * 5 + ["1-shortcut"],
            "depth": [24, 16, 48, 32, 64, 2],
            "lr": [1.0, 1.0, 0.316, 0.316, 1.0, 0.01],
        }
    )
    f = facts.plateaus_solution_facts({"I": hI, "0": h0})
    assert f.plat3_max == pytest.approx(0.0316)
    assert f.col_lr1 == 16
    assert f.col_lr2 == pytest.approx(0.316) and f.col_lr2_from == 32


def test_the_collapse_solution_quotes_the_gradient_norms_the_losses_and_the_survival_of_the_top_direction():
    def result(losses, grads):
        return SimpleNamespace(losses=np.array(losses), grad_norms=np.array(grads))

    ends = np.linspace(1.0, 0.34, 101)
    collapse = {
        2: result(ends, [1.0, 0.31]),
        3: result(ends * 1.01, [1.0, 0.12]),
        16: result([2.9, 0.5] + [0.5] * 99, [1.0, 3.3e-9]),
        96: result([9.0, 0.5] + [0.5] * 99, [1.0, 2e-50]),
    }
    sv = np.array([0.8, 0.5, 0.3])
    f = facts.collapse_solution_facts(collapse, 0.0316, sv)
    assert (f.s1, f.s2) == (0.8, 0.5)
    assert f.g16 == pytest.approx(3.3e-9) and f.g96 == pytest.approx(2e-50)
    assert (f.g2, f.g3) == (0.31, 0.12)
    assert f.end2 == pytest.approx(0.34) and f.end3 == pytest.approx(0.34 * 1.01)
    assert (f.start16, f.after16) == (2.9, 0.5)
    keep = 1 - 0.0316 * (1 - 0.8)
    assert f.keep_n == pytest.approx(keep) and f.keep_32 == pytest.approx(keep**32)
    assert f.lr_small_s == pytest.approx(0.0316)


SCALES3 = (1e-3, 1e-2, 1e-1)


def _first_below(f3_smallest=None):
    f2 = {1e-3: 120, 1e-2: 80, 1e-1: 41}
    f3 = {1e-3: f3_smallest, 1e-2: 1530, 1e-1: 150}
    return {**{("2-shortcut", s): v for s, v in f2.items()}, **{("3-shortcut", s): v for s, v in f3.items()}}


def test_the_escape_solution_quotes_the_factor_per_step_and_the_epochs_of_escape_by_scale():
    stats = FakeDigits().stats()
    f = facts.escape_solution_facts(_first_below(), SCALES3, stats)
    sig = 1 - SYX_DIAG.min()  # Sxx = I, Syx diagonal: the largest singular value of I - Syx
    assert f.esc_sig == pytest.approx(sig, rel=1e-3)
    assert f.esc_fac == pytest.approx(1 + 0.1 * sig)
    assert f.esc_per10 == round(math.log(10) / math.log(1 + 0.1 * sig))
    assert (f.e2a, f.e2b, f.e2c) == (41, 80, 120)
    assert (f.d2a, f.d2b) == (80 - 41, 120 - 80)
    assert (f.e3a, f.e3b) == (150, 1530) and f.r3 == pytest.approx(1530 / 150, rel=1e-3)
    assert f.e3_pred == 15000  # ten times 1530, to the thousand
    rate = fig9.SCALES["paper"]["lrs"][3]
    assert f.rate_paper == pytest.approx(rate, rel=1e-3)
    assert f.e3_paper == round(1530 * 0.1 / rate, -2)
    assert f.f3 == [None, 1530, 150]


def test_the_escape_solution_refuses_a_3_shortcut_network_that_escapes_from_the_smallest_scale():
    with pytest.raises(AssertionError):
        facts.escape_solution_facts(_first_below(f3_smallest=9000), SCALES3, FakeDigits().stats())


# -- rms_facts ---------------------------------------------------------------------------------


def _rms(he64=2e-2):
    return pd.DataFrame({"depth": [2, 64], "orthogonal": [0.5, 1e-10], "xavier": [0.4, 3e-11], "he": [0.9, he64]})


def test_the_output_rms_at_64_and_how_many_times_he_shrinks_the_input(monkeypatch, small_data):
    monkeypatch.setattr(fig10, "initial_output_rms", lambda arch, depth, gain_all=False: 5e7 if gain_all else 0.02)
    f = facts.rms_facts(_rms())
    assert f.rms_orth64 == pytest.approx(1e-10) and f.rms_xav64 == pytest.approx(3e-11)
    assert f.rms_he64 == pytest.approx(2e-2)
    rms_in = float(small_data.X.pow(2).mean().sqrt())
    assert f.he_shrink == round(rms_in / 2e-2)
    assert f.rms_he_all64 == pytest.approx(5e7)


def test_the_output_rms_refuses_a_he_output_that_is_not_far_above_the_orthogonal_one(monkeypatch):
    monkeypatch.setattr(fig10, "initial_output_rms", lambda *a, **k: 1.0)
    with pytest.raises(AssertionError):
        facts.rms_facts(_rms(he64=5e-9))
