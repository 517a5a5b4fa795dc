"""The numbers the prose of book/exp_fig2_analog.ipynb quotes (resnet_nb.book.facts.exp_fig2_analog),
checked on a small fabricated Figure 2 table whose norms and losses are chosen in advance."""

import math
import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from resnet_nb.book.facts import exp_fig2_analog as facts
from resnet_nb.core.claims import Check
from resnet_nb.experiments import fig2, fig9

BLOCKS = [1, 2, 3, 4, 6, 8]
LAYERS = [6 * b + 4 for b in BLOCKS]  # 3 stages: 10, 16, 22, 28, 40, 52
LR = [0.1, 0.1, 0.1, 0.1, 0.01, 0.01, 0.001]  # epochs 0 to 6: drops after epochs 3 and 5
BASE = [1.0, 1.3, 1.5, 1.4, 1.2, 1.1, 0.98]  # the norm rises to epoch 2, then falls below the start
FACTOR = {10: 1.0, 16: 0.95, 22: 0.9, 28: 0.85, 40: 0.8}
LAST = {0: 0.8 * 0.995, 1: 0.8 * 0.975}  # 52 layers against 40: closest in seed 0


def numbers(text) -> list[float]:
    """The numbers a sentence quotes, in order (to check the figures, not the wording)."""
    return [float(x) for x in re.findall(r"[-+]?\d+(?:\.\d+)?", str(text))]


def factor(layers, seed, same_seeds=False):
    if layers == 52:
        return LAST[0] if same_seeds else LAST[seed]
    return FACTOR[layers]


def fig2_table(same_seeds=False, final_lg_loss=-3.5, lag16=False):
    """Norm = BASE[epoch] x a factor that falls with depth; lg loss falls linearly to ``final_lg_loss``,
    the same at every depth (so no two curves cross), unless ``lag16``: then the 16-layer loss lags
    one epoch behind, and its curve crosses the 10-layer one."""
    lg = np.linspace(-0.5, final_lg_loss, len(BASE))
    lag = {n: int(lag16 and n == 16) for n in LAYERS}
    rows = [
        {
            "blocks": b,
            "layers": n,
            "seed": s,
            "epoch": e,
            "lr": LR[e],
            "loss": 10 ** lg[max(e - lag[n], 0)] * (1 + 0.01 * s),
            "avg_weight_norm": BASE[e] * factor(n, s, same_seeds),
        }
        for b, n in zip(BLOCKS, LAYERS)
        for s in (0, 1)
        for e in range(len(BASE))
    ]
    return pd.DataFrame(rows)


def mean_over_seeds(epoch):
    return [np.mean([BASE[epoch] * factor(n, s) for s in (0, 1)]) for n in LAYERS]


def fake_claim(verdict, fragile):
    def fn(falsify=False):
        return Check("c", "x", 1.0, 0.5, "stated", op=">=", spread=1.0 if fragile else 0.1)

    fn.claim = SimpleNamespace(verdict=verdict)
    return fn


@pytest.fixture
def larger():
    table = fig2_table()
    npath = fig2.norm_path(table)
    below = npath.layers[npath.final_minus_initial < 0].tolist()
    return table, npath, below


# -- ordering_facts ----------------------------------------------------------------------------


def test_the_ordering_quotes_the_final_norms_by_depth_the_losses_and_the_closest_ratio(larger):
    table, npath, below = larger
    f = facts.ordering_facts(below, npath.fall_after_drop, npath.fall_before_drop, npath, table)
    start, end = mean_over_seeds(0), mean_over_seeds(len(BASE) - 1)
    assert (f.init_lo, f.init_hi) == (pytest.approx(min(start)), pytest.approx(max(start)))
    assert [f.fin10, f.fin16, f.fin22, f.fin28, f.fin40, f.fin52] == pytest.approx(end)
    lg_final = math.log10(10**-3.5 * 1.005)  # the mean over the two seeds
    assert f.lg_lo == pytest.approx(lg_final) and f.lg_hi == pytest.approx(lg_final)
    assert f.same_epoch == pytest.approx(0.995)  # 52 against 40 layers, seed 0
    assert f.last_ratio == pytest.approx(0.995)
    assert f.n_cross_all == 0 and numbers(f.cross_4052) == [0, 0]
    assert numbers(f.peak_ep) == [2] * 6
    assert (f.fall_lo, f.fall_hi) == (npath.fall_before_drop.min(), npath.fall_before_drop.max())
    assert (f.after_lo, f.after_hi) == (npath.fall_after_drop.min(), npath.fall_after_drop.max())
    assert numbers(f.net) == pytest.approx((np.array(end) - np.array(start)).round(2).tolist())
    assert f.n_below == 6


def test_the_ordering_refuses_final_losses_on_the_paper_s_axis(larger):
    _, npath, below = larger
    table = fig2_table(final_lg_loss=-2.5)  # above lg loss -3, where the paper's axis stops
    with pytest.raises(AssertionError):
        facts.ordering_facts(below, npath.fall_after_drop, npath.fall_before_drop, npath, table)


def test_the_ordering_refuses_mean_curves_that_cross(larger):
    _, npath, below = larger
    table = fig2_table(final_lg_loss=-4.0, lag16=True)  # the final losses stay between 1e-4 and 1e-3
    with pytest.raises(AssertionError):
        facts.ordering_facts(below, npath.fall_after_drop, npath.fall_before_drop, npath, table)


# -- growth_ratio_facts ------------------------------------------------------------------------


def _crossings(pairs=("10-16", "22-28", "40-52", "40-52")):
    lg = [-1.2, -2.0, -3.1, -3.3][: len(pairs)]
    return pd.DataFrame({"seed": 1, "pair": list(pairs), "lg_loss": lg, "norm": 1.0})


def test_the_growth_quotes_weight_decay_s_shrink_the_first_drop_and_where_the_curves_cross(larger, monkeypatch):
    table, npath, below = larger
    monkeypatch.setattr(fig2, "crossing_table", lambda t, first_epoch=1: _crossings())
    f = facts.growth_ratio_facts(below, npath.fall_before_drop, npath, table)
    assert numbers(f.below_what) == LAYERS
    assert f.first_drop == 3
    pc = fig2.SCALES["paper"]
    steps = pc["n_train"] // pc["batch_size"]
    per_step = 1 - pc["lr"] * pc["weight_decay"] / (1 - pc["momentum"])  # with momentum's 1 / (1 - mu)
    assert f.wd_pct == pytest.approx(1 - per_step**steps)
    assert (f.n_steps, f.wd, f.mom, f.lr0p) == (steps, pc["weight_decay"], pc["momentum"], pc["lr"])
    assert (f.n_early, f.n_deep) == (2, 2)
    assert (f.early_lo, f.early_hi) == (-1.2, -2.0)
    # the largest same-epoch ratio: 52 against 40 layers in seed 0 (first at epoch 1); seeds 0.995, 0.975
    assert numbers(f.sew_where) == [0, 1, 52, 40]
    assert f.sew_spread == pytest.approx(np.std([0.995, 0.975]))


def test_the_growth_refuses_crossings_of_pairs_the_prose_does_not_name(larger, monkeypatch):
    table, npath, below = larger
    monkeypatch.setattr(fig2, "crossing_table", lambda t, first_epoch=1: _crossings(("10-16", "16-22")))
    with pytest.raises(AssertionError):
        facts.growth_ratio_facts(below, npath.fall_before_drop, npath, table)


def test_the_growth_refuses_a_norm_that_does_not_fall_before_the_first_drop(larger, monkeypatch):
    table, npath, below = larger
    monkeypatch.setattr(fig2, "crossing_table", lambda t, first_epoch=1: _crossings())
    fb = npath.fall_before_drop.copy()
    fb.iloc[0] = 0.0
    with pytest.raises(AssertionError):
        facts.growth_ratio_facts(below, fb, npath, table)


def test_the_growth_refuses_a_same_epoch_ordering_with_a_margin_above_the_spread(monkeypatch):
    table = fig2_table(same_seeds=True)  # both seeds alike: no spread over seeds
    npath = fig2.norm_path(table)
    monkeypatch.setattr(fig2, "crossing_table", lambda t, first_epoch=1: _crossings())
    with pytest.raises(AssertionError):
        facts.growth_ratio_facts([], npath.fall_before_drop, npath, table)


# -- evals_facts -------------------------------------------------------------------------------


def test_the_settings_of_the_live_run_and_the_largest_gap_at_initialisation():
    config = dict(fig2.SCALES["default"], epochs=20, milestones=[9, 15], lr=0.2, factor=0.5)
    f = facts.evals_facts(config, [0.004, 0.012, 0.007])
    assert f.init_gap_max == pytest.approx(0.012)
    assert (f.n_train, f.n_epochs) == (config["n_train"], 20)
    assert numbers(f.widths) == config["channels"]
    assert numbers(f.block_list) == config["blocks"]
    assert numbers(f.depth_list) == [6 * b + 4 for b in config["blocks"]]
    assert (f.momentum, f.wd) == (config["momentum"], config["weight_decay"])
    assert (f.lr0, f.lr1, f.lr2) == (0.2, pytest.approx(0.1), pytest.approx(0.05))
    assert numbers(f.drops_text) == [9, 15]
    assert numbers(f.frac_ours) == pytest.approx([100 * 8 / 20, 100 * 14 / 20])
    assert numbers(f.frac_paper) == pytest.approx([40.0, 60.5])  # the paper's drops at 81 and 122 of 200


# -- nobn_facts --------------------------------------------------------------------------------


def _summary(final):
    return pd.DataFrame(
        {"layers": [10, 16, 22], "initial_norm": [1.0, 1.0, 1.0], "final_norm": final, "final_loss": [0.02, 0.05, 0.01]}
    )


def test_without_batch_norm_the_facts_say_whether_the_final_norms_fall_with_depth_and_by_how_much():
    f = facts.nobn_facts(_summary([1.6, 1.4, 1.2]))
    assert f.ordered is True and "not" not in f.live_order
    assert f.growth_ratio == pytest.approx(0.2 / 0.6)  # growth of the deepest over the shallowest
    assert f.live_gap == pytest.approx(1 - 1.2 / 1.6)
    assert f.live_lg_loss == pytest.approx(math.log10(0.05))
    assert (f.norm_lo, f.norm_hi) == (1.2, 1.6)


def test_without_batch_norm_unordered_final_norms_are_reported_as_such():
    f = facts.nobn_facts(_summary([1.6, 1.65, 1.2]))
    assert f.ordered is False and "not" in f.live_order


# -- setup_facts -------------------------------------------------------------------------------


@pytest.fixture
def verdicts(monkeypatch):
    monkeypatch.setattr(fig2, "claim_larger_run_ordered", fake_claim("partly reproduced", fragile=False))
    monkeypatch.setattr(fig2, "claim_growth_shrinks", fake_claim("reproduced", fragile=True))


def test_the_setup_quotes_the_committed_scale_the_verdicts_and_the_closest_pair_at_the_end(verdicts):
    pc = fig2.SCALES["paper"]
    f = facts.setup_facts(fig2_table(), pc)
    assert numbers(f.p_depths) == [6 * pc["blocks"][0] + 4, 6 * pc["blocks"][-1] + 4]
    assert (f.p_digits, f.p_seeds) == (pc["n_train"], len(pc["seeds"]))
    assert f.live_digits == fig2.SCALES["default"]["n_train"]
    assert f.verdict_order.startswith("partly") and "fragile" not in f.verdict_order
    assert "fragile" in f.verdict_growth
    assert numbers(f.close_pair) == [40, 52]
    assert f.close_spread == pytest.approx(np.std([0.995, 0.975]))


def test_the_setup_refuses_a_closest_pair_whose_order_is_not_fragile(verdicts):
    with pytest.raises(AssertionError):
        facts.setup_facts(fig2_table(same_seeds=True), fig2.SCALES["paper"])


# -- prov_facts --------------------------------------------------------------------------------


def test_the_provenance_quotes_the_wall_times_the_modified_runs_and_the_schedule(monkeypatch):
    monkeypatch.setattr(fig2, "item_wall_times", lambda scale="paper": [100.4, 3000.0, 5430.0])
    monkeypatch.setattr(fig9, "modified_records", lambda figure="fig9", scale="paper": (4, 18, ["abc1234"]))
    pc = fig2.SCALES["paper"]
    table = fig2_table()
    f = facts.prov_facts(table, pc, {"items_wall_time_s": 7260.0})
    assert f.core_min == 121
    assert (f.item_lo, f.item_hi) == (100, round(5430 / 60))  # seconds, then minutes
    assert numbers(f.mod2) == [4, 18] and f.n_runs2 == 18
    assert f.p_epochs == pc["epochs"]
    assert numbers(f.p_drops) == [m - 1 for m in pc["milestones"]]
    assert list(f.paper_summary["layers"]) == LAYERS
    assert f.paper_summary["final_norm"].tolist() == pytest.approx(mean_over_seeds(len(BASE) - 1))
