"""Parallel work items (--jobs) and the remaining-time estimate of the engine's progress bar."""

import os

import fake_figure
import pytest

from resnet_nb.experiments import engine, progress
from resnet_nb.shared import store


def test_parallel_run_equals_sequential_and_writes_every_record(tmp_path):
    cfg = fake_figure.SCALES["default"]
    seq = engine.run_items(fake_figure, cfg, store_dir=tmp_path / "a", progress=False, jobs=1)
    par = engine.run_items(fake_figure, cfg, store_dir=tmp_path / "b", progress=False, jobs=2)
    cols = ["x", "y", "item_key"]
    assert seq[cols].equals(par[cols])  # same rows, in item order, whatever order they finished in
    assert len(list((tmp_path / "b").glob("*.json"))) == 6
    # worker processes did the work (how many of the two got items depends on start-up times)
    assert os.getpid() not in set(par["pid"]) and 1 <= par["pid"].nunique() <= 2
    # resume: nothing is recomputed, the table is read back from the records
    again = engine.run_items(fake_figure, cfg, store_dir=tmp_path / "b", progress=False, jobs=2)
    assert again[cols].equals(par[cols]) and again["pid"].equals(par["pid"])


def test_jobs_argument_is_checked():
    with pytest.raises(ValueError, match=r"\bjobs\b"):
        engine.run_items(fake_figure, fake_figure.SCALES["default"], progress=False, jobs=0)
    assert engine.require_jobs(None) >= 1


def _bar(done=(), jobs=2, prior=1.0):
    items = fake_figure.configurations(fake_figure.SCALES["default"])
    done_items = [i for i in items if i["x"] in done]
    return progress.Progress(fake_figure, "fake", items, done_items, jobs, prior, progress=False), items


def test_estimate_before_any_item_finishes_uses_the_prior():
    bar, _ = _bar(prior=2.0)
    # costs 1..6 = 21 units at 2 s each, shared by 2 processes
    assert bar.remaining(now=bar.t0) == pytest.approx(21.0)
    bar.close()


def test_estimate_after_a_resume_counts_only_the_items_left():
    bar, _ = _bar(done=(5, 6), prior=1.0)
    assert bar.remaining(now=bar.t0) == pytest.approx((1 + 2 + 3 + 4) / 2)
    bar.close()


def test_estimate_learns_from_this_run_and_from_overrunning_items():
    bar, items = _bar(prior=1.0)
    bar.start(items[5])
    bar.finish(items[5], wall=18.0)  # cost 6 took 18 s: 3 s per unit, not 1
    assert bar.remaining(now=bar.t0) == pytest.approx(3.0 * 15 / 2)
    bar.start(items[4])
    t = bar.running[store.item_key(items[4])]
    # cost 5 has run 40 s (8 s per unit > 3): the estimate follows the slower evidence
    assert bar.remaining(now=t + 40.0) == pytest.approx((8.0 * 10 + 0.0) / 2)
    bar.close()
