"""Work items on a Dask cluster (``run_items(..., scheduler=...)``): the same store, nothing lost
when a worker dies mid-run."""

import os
import signal
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from resnet_nb.experiments import engine

distributed = pytest.importorskip("distributed")
HERE = Path(__file__).resolve().parent


@pytest.fixture
def cluster(monkeypatch):
    """A local Dask cluster of two single-threaded worker processes that can import this folder."""
    monkeypatch.syspath_prepend(str(HERE))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HERE), *sys.path]))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=50
        ) as c,
        distributed.Client(c) as client,
    ):
        yield client


def _events(log: Path):
    lines = log.read_text().split() if log.exists() else []
    return [(lines[i], int(lines[i + 1]), int(lines[i + 2])) for i in range(0, len(lines), 3)]


def test_dask_run_gives_the_local_table_and_records(cluster, tmp_path):
    import dask_figure

    config = {"xs": [0, 1, 2, 3], "seconds": 0.05, "log": str(tmp_path / "log")}
    table = engine.run_items(dask_figure, config, store_dir=tmp_path / "records", progress=False, scheduler=cluster)
    assert table["y"].tolist() == [0, 1, 4, 9]
    for item in dask_figure.configurations(config):
        assert engine.inspect_record(tmp_path / "records", item)[1] is None
    # a second run reads every record back and computes nothing
    again = engine.run_items(dask_figure, config, store_dir=tmp_path / "records", progress=False, scheduler=cluster)
    assert again["y"].tolist() == [0, 1, 4, 9]
    assert Counter(e for e, _, _ in _events(tmp_path / "log")) == {"start": 4, "end": 4}


def test_killed_worker_loses_no_finished_item_and_its_item_is_rerun(cluster, tmp_path):
    import dask_figure

    log = tmp_path / "log"
    config = {"xs": list(range(8)), "seconds": 0.8, "log": str(log)}
    victim = sorted(cluster.run(os.getpid).values())[0]
    killed = {}

    def kill_victim_mid_item():
        # wait until the victim has finished one item and is running the next, then SIGKILL it
        deadline = time.time() + 60
        while time.time() < deadline:
            ev = _events(log)
            ended = [x for e, x, p in ev if e == "end" and p == victim]
            started = [x for e, x, p in ev if e == "start" and p == victim]
            running = [x for x in started if x not in ended]
            if ended and running:
                killed["finished"], killed["running"] = ended, running[0]
                os.kill(victim, signal.SIGKILL)
                return
            time.sleep(0.02)

    killer = threading.Thread(target=kill_victim_mid_item)
    killer.start()
    table = engine.run_items(dask_figure, config, store_dir=tmp_path / "records", progress=False, scheduler=cluster)
    killer.join()
    assert "running" in killed, "the victim worker never ran two items"
    assert sorted(table["x"]) == list(range(8))
    assert (table["y"] == table["x"] ** 2).all()
    for item in dask_figure.configurations(config):  # every item has a sound record
        assert engine.inspect_record(tmp_path / "records", item)[1] is None
    ev = _events(log)
    starts = Counter(x for e, x, _ in ev if e == "start")
    ends = Counter(x for e, x, _ in ev if e == "end")
    assert all(ends[x] == 1 for x in range(8))  # each item computed to the end exactly once
    assert starts[killed["running"]] == 2  # the interrupted item ran again, elsewhere
    for x in killed["finished"]:  # the victim's finished items were kept, not recomputed
        assert starts[x] == 1
