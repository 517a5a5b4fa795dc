"""No orphans, no races: killing the main process of a run leaves no worker process computing,
and two runs on one store never compute the same item twice."""

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import psutil
import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _run_script(store, log, jobs, seconds, xs):
    code = (
        "import sys, dask_figure; from resnet_nb.experiments import engine;"
        f"cfg = {{'xs': {xs!r}, 'seconds': {seconds}, 'log': {str(log)!r}}};"
        f"engine.run_items(dask_figure, cfg, store_dir={str(store)!r}, progress=False, jobs={jobs})"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), str(ROOT)]), OMP_NUM_THREADS="1")
    return [sys.executable, "-c", code], env


def _alive(pid):
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _events(log):
    lines = log.read_text().split() if log.exists() else []
    return [(lines[i], int(lines[i + 1])) for i in range(0, len(lines), 3)]


@pytest.mark.parametrize("when", ["computing", "starting"])
def test_killing_the_main_process_leaves_no_pool_worker_alive(tmp_path, when):
    log = tmp_path / "log"
    cmd, env = _run_script(tmp_path / "records", log, jobs=2, seconds=30, xs=[0, 1, 2, 3])
    main = subprocess.Popen(cmd, env=env, start_new_session=True)
    try:
        deadline = time.time() + 90
        while time.time() < deadline:
            if when == "computing" and sum(e == "start" for e, _ in _events(log)) >= 2:
                break  # both workers are running an item
            if when == "starting" and len(psutil.Process(main.pid).children()) >= 2:
                break  # the workers exist but may not have imported anything yet
            time.sleep(0.02)
        workers = [c.pid for c in psutil.Process(main.pid).children(recursive=True)]
        assert len(workers) >= 2, "the pool workers never started"
        os.kill(main.pid, signal.SIGKILL)  # review case i6: kill -9 of the main process only
        main.wait(10)
        # a worker still starting ends when it reaches its first instruction (on a busy machine,
        # after its imports); an orphan would live on
        deadline = time.time() + 60
        while time.time() < deadline and any(_alive(p) for p in workers):
            time.sleep(0.1)
        assert [p for p in workers if _alive(p)] == []
    finally:
        for p in psutil.Process().children(recursive=True):
            if p.pid == main.pid or p.pid in locals().get("workers", []):
                p.kill()


@pytest.mark.parametrize("jobs", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_two_runs_on_one_store_compute_each_item_once(tmp_path, jobs):
    log = tmp_path / "log"
    xs = list(range(6))
    cmd, env = _run_script(tmp_path / "records", log, jobs=jobs, seconds=0.4, xs=xs)
    runs = [subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for r in runs:
        _, err = r.communicate(timeout=120)
        assert r.returncode == 0, err
    starts = Counter(x for e, x in _events(log) if e == "start")
    assert starts == {x: 1 for x in xs}  # review cases x1-x3: without a lock, every item twice
    assert len(list((tmp_path / "records").glob("*.json"))) == 6
