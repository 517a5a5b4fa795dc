"""Hardt & Ma's convolutional experiment at CPU scale (resnet_nb.experiments.hm_analog): its
network, one run, the summary over seeds, Welch's interval, and the claim that no difference of
held-out accuracy between the two initialisations is detected."""

import math

import numpy as np
import pandas as pd
import pytest

from resnet_nb.core import claims, conv
from resnet_nb.experiments import hm_analog


def test_the_analog_has_two_residual_blocks_and_its_summary_the_spread_over_seeds():
    cfg = hm_analog.CONFIG
    model = conv.ConvResNet(
        blocks=cfg["blocks"],
        channels=cfg["channels"],
        block=cfg["block"],
        fixed_last_layer=True,
        init="hardt_ma_residual",
    )
    assert model.depth == 2 and not any(p.requires_grad for n, p in model.named_buffers())
    rows = []
    for seed, final in ((0, 0.9), (1, 0.8)):
        for epoch in range(7):
            rows.append(
                dict(
                    init="standard", seed=seed, epoch=epoch, loss=1.0 / (epoch + 1), accuracy=final, test_accuracy=final
                )
            )
    summ = hm_analog.summary(pd.DataFrame(rows))
    r = summ.iloc[0]
    assert r.runs == 2 and r.test_acc == pytest.approx(0.85)
    assert (r.test_acc_min, r.test_acc_max) == (0.8, 0.9)
    assert r.last_epochs_loss_change == pytest.approx(1 / 2 - 1 / 7)


def test_one_run_of_the_analog_is_a_training_history():
    hist = hm_analog.run_one("hardt_ma_residual", 0, dict(epochs=1, n_per_class=5))
    assert list(hist.epoch) == [0, 1] and (hist.init == "hardt_ma_residual").all()


def test_no_difference_is_detected_and_the_three_point_effect_is_rejected():
    c = claims.LEDGER["hm-analog-small-init"]
    assert c.check(falsify=False).require().passed
    assert c.check(falsify=True).rejected_on_value


def test_the_difference_of_held_out_accuracy_is_welchs_interval():
    from scipy import stats

    a, b = [0.93, 0.955, 0.96, 0.945, 0.94], [0.95, 0.925, 0.94, 0.945, 0.94]
    rows = [
        dict(init=i, seed=s, epoch=e, test_accuracy=v if e == 3 else 0.1)
        for i, vals in (("hardt_ma_residual", a), ("standard", b))
        for s, v in enumerate(vals)
        for e in range(4)
    ]
    d = hm_analog.difference(pd.DataFrame(rows))
    ref = stats.ttest_ind(a, b, equal_var=False)
    assert d["diff"] == pytest.approx(np.mean(a) - np.mean(b))
    assert d["diff"] / d["se"] == pytest.approx(ref.statistic, rel=1e-9)
    assert d["df"] == pytest.approx(ref.df, rel=1e-9)
    ci = ref.confidence_interval(0.95)
    assert (d["low"], d["high"]) == (pytest.approx(ci.low, rel=1e-9), pytest.approx(ci.high, rel=1e-9))
    with pytest.raises(ValueError, match="two runs"):
        hm_analog.difference(pd.DataFrame(rows[:4]))


def test_the_training_loss_difference_is_welchs_interval_of_log_losses():
    from scipy import stats

    a, b = [0.03, 0.01, 0.05, 0.02, 0.04], [0.007, 0.006, 0.009, 0.005, 0.008]
    rows = [
        dict(init=i, seed=s, epoch=e, loss=v if e == 3 else 1.0, test_accuracy=0.9)
        for i, vals in (("hardt_ma_residual", a), ("standard", b))
        for s, v in enumerate(vals)
        for e in range(4)
    ]
    d = hm_analog.difference(pd.DataFrame(rows), quantity="log_loss")
    ref = stats.ttest_ind(np.log(a), np.log(b), equal_var=False)
    assert d["diff"] == pytest.approx(np.mean(np.log(a)) - np.mean(np.log(b)))
    assert d["diff"] / d["se"] == pytest.approx(ref.statistic, rel=1e-9)
    with pytest.raises(ValueError, match=r"\bquantity\b"):
        hm_analog.difference(pd.DataFrame(rows), quantity="loss")
    bad = [dict(r, loss=0.0) if r["epoch"] == 3 and r["seed"] == 0 else r for r in rows]
    with pytest.raises(ValueError, match="positive"):
        hm_analog.difference(pd.DataFrame(bad), quantity="log_loss")


def test_the_paper_direction_of_training_loss_is_not_seen_in_the_analog():
    ok, paper = hm_analog.claim_hm_analog_train_loss(), hm_analog.claim_hm_analog_train_loss(falsify=True)
    mean, interval = ok.parts
    assert ok.passed and mean.value > 1  # the small initialisation ends higher in the mean
    assert not paper.passed and paper.rejected_on_value and paper.value > 1
    assert interval.value < 1 < paper.value  # not significant: the interval of the ratio contains 1
    assert mean.value == pytest.approx(math.exp(mean.values["diff"]))  # a ratio of geometric means
    assert interval.value == pytest.approx(math.exp(mean.values["low"]))


def test_the_falsifier_is_the_three_point_effect():
    c = hm_analog.claim_hm_analog(falsify=True)
    # the three-point effect lies above the interval of the mean difference, by this much
    assert not c.passed and c.value == pytest.approx(hm_analog.EFFECT - c.values["high"], rel=1e-12) and c.value > 0
    assert hm_analog.claim_hm_analog().values["low"] < 0 < hm_analog.claim_hm_analog().values["high"]


@pytest.fixture
def fake_runs(monkeypatch):
    """hm_analog.run_one replaced by a two-epoch history; the runs computed are appended to the
    returned list."""
    calls = []

    def run_one(init, seed, config=None):
        calls.append(f"{init}-{seed}")
        return pd.DataFrame(
            {
                "init": init,
                "seed": seed,
                "epoch": [0, 1],
                "lr": 0.05,
                "loss": [2.3, 1.0 / (seed + 3)],
                "accuracy": [0.1, 0.5],
                "diverged": False,
                "batch_loss": [np.nan, 1.1],
                "test_accuracy": [0.1, 0.4 + seed / 100],
            }
        )

    monkeypatch.setattr(hm_analog, "run_one", run_one)
    return calls


GRID = dict(runs={"standard": [0, 1], "hardt_ma": [0]})


def test_hm_runs_written_then_read_give_the_same_table(tmp_path, fake_runs):
    from pandas.testing import assert_frame_equal

    table = hm_analog.reproduce(tmp_path, GRID)
    # the runs in the order of their names, <init>-<seed>
    names = [("hardt_ma", 0), ("standard", 0), ("standard", 1)]
    expected = pd.concat([hm_analog.run_one(init, seed) for init, seed in names], ignore_index=True)
    assert_frame_equal(table, expected, check_exact=True)
    assert_frame_equal(hm_analog.load(tmp_path), expected, check_exact=True)
    prov = hm_analog.run_provenance(tmp_path)
    assert sorted(prov["runs"]) == ["hardt_ma-0", "standard-0", "standard-1"]
    assert all(r["seconds"] >= 0 for r in prov["runs"].values()) and prov["torch"] and prov["machine"]
    with pytest.raises(FileNotFoundError, match=r"\bout\b"):
        hm_analog.load(tmp_path / "nothing")


def test_hm_reproduce_skips_the_finished_runs(tmp_path, fake_runs):
    from resnet_nb.shared.store import item_key

    hm_analog.reproduce(tmp_path, GRID)
    assert fake_runs == ["standard-0", "hardt_ma-0", "standard-1"]  # seed-major
    hm_analog.reproduce(tmp_path, GRID)
    assert len(fake_runs) == 3  # nothing recomputed
    (tmp_path / "records" / f"{item_key(hm_analog.run_item('standard', 1, GRID))}.json").unlink()
    hm_analog.reproduce(tmp_path, GRID)
    assert fake_runs[3:] == ["standard-1"]


def test_a_damaged_hm_run_record_is_refused(tmp_path, fake_runs):
    hm_analog.reproduce(tmp_path, GRID)
    path = sorted((tmp_path / "records").glob("*.json"))[0]
    path.write_text(path.read_text()[:100])  # a write cut short
    with pytest.raises(ValueError, match="damaged record .*truncated"):
        hm_analog.load(tmp_path)
