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
from resnet_nb.experiments.cluster import EngineError, connect_scheduler
from resnet_nb.shared import store

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
        assert store.inspect_record(tmp_path / "records", item)[1] is None
    # a second run reads every record back and computes nothing
    again = engine.run_items(dask_figure, config, store_dir=tmp_path / "records", progress=False, scheduler=cluster)
    assert again["y"].tolist() == [0, 1, 4, 9]
    assert Counter(e for e, _, _ in _events(tmp_path / "log")) == {"start": 4, "end": 4}


def test_killed_worker_loses_no_finished_item_and_its_item_is_rerun(cluster, tmp_path):
    import dask_figure

    log = tmp_path / "log"
    config = {"xs": list(range(6)), "seconds": 0.5, "log": str(log)}
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
    assert sorted(table["x"]) == list(range(6))
    assert (table["y"] == table["x"] ** 2).all()
    for item in dask_figure.configurations(config):  # every item has a sound record
        assert store.inspect_record(tmp_path / "records", item)[1] is None
    ev = _events(log)
    starts = Counter(x for e, x, _ in ev if e == "start")
    ends = Counter(x for e, x, _ in ev if e == "end")
    assert all(ends[x] == 1 for x in range(6))  # each item computed to the end exactly once
    assert starts[killed["running"]] == 2  # the interrupted item ran again, elsewhere
    for x in killed["finished"]:  # the victim's finished items were kept, not recomputed
        assert starts[x] == 1


def test_records_land_in_the_clients_store_whatever_the_workers_folder(tmp_path, monkeypatch):
    import dask_figure

    (tmp_path / "workers").mkdir()
    (tmp_path / "client").mkdir()
    monkeypatch.syspath_prepend(str(HERE))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HERE), *sys.path]))
    monkeypatch.chdir(tmp_path / "workers")  # the workers start here
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=50
        ) as c,
        distributed.Client(c) as client,
    ):
        monkeypatch.chdir(tmp_path / "client")  # review case c08: a relative store seen from the client
        config = {"xs": [0, 1], "seconds": 0.01, "log": str(tmp_path / "log")}
        table = engine.run_items(dask_figure, config, store_dir=Path("relout"), progress=False, scheduler=client)
    assert table["y"].tolist() == [0, 1]
    assert len(list((tmp_path / "client" / "relout").glob("*.json"))) == 2
    assert not (tmp_path / "workers" / "relout").exists()


def _free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow  # about 40 s: a scheduler and a worker started twice
def test_losing_the_scheduler_mid_run_is_one_line_and_a_rerun_resumes(tmp_path, monkeypatch):
    import subprocess

    import dask_figure

    monkeypatch.syspath_prepend(str(HERE))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), *sys.path]), OMP_NUM_THREADS="1")
    address = f"tcp://127.0.0.1:{_free_port()}"
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    scheduler = subprocess.Popen(
        [*dask, "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1], "--no-dashboard"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    worker = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--no-nanny"],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    log = tmp_path / "log"
    config = {"xs": list(range(8)), "seconds": 0.5, "log": str(log)}
    store_dir = tmp_path / "records"

    def kill_scheduler_after_two_records():
        deadline = time.time() + 90
        while time.time() < deadline and len(list(store_dir.glob("*.json"))) < 2:
            time.sleep(0.05)
        scheduler.kill()

    killer = threading.Thread(target=kill_scheduler_after_two_records)
    try:
        client = connect_scheduler(address, timeout_s=60)
        killer.start()
        with pytest.raises(EngineError, match="lost the Dask scheduler at .*run the same command to resume"):
            engine.run_items(dask_figure, config, store_dir=store_dir, progress=False, scheduler=client)
        killer.join()
        client.close(timeout=2)
    finally:
        scheduler.kill()
        worker.kill()
        scheduler.wait(10)
        worker.wait(10)
    kept = {p.name: p.stat().st_mtime_ns for p in store_dir.glob("*.json")}
    assert len(kept) >= 2
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=50
        ) as c,
        distributed.Client(c) as client,
    ):
        monkeypatch.setenv("PYTHONPATH", env["PYTHONPATH"])
        table = engine.run_items(dask_figure, config, store_dir=store_dir, progress=False, scheduler=client)
    assert sorted(table["x"]) == list(range(8))
    assert all(store_dir.joinpath(n).stat().st_mtime_ns == t for n, t in kept.items())  # nothing redone
    ends = Counter(x for e, x, _ in _events(log) if e == "end")
    assert all(ends[x] == 1 for x in range(8))
