"""The one engine behind the figures of the experiment chapters (book/exp_*.ipynb): work items,
a resumable result store (:mod:`.records`), a remaining-time estimate (:mod:`.progress`), provenance.

A figure is a module ``resnet_nb.experiments.figN`` with

* ``SCALES = {"default": {...}, "paper": {...}}``: JSON-serialisable configurations;
* ``configurations(config) -> list[dict]``: independent, JSON-serialisable work items;
* ``run_one(item, device="cpu") -> list[dict]``: tidy rows (one dict per row) for one item.

:func:`run` is the one figure runner (``engine.run(fig5, config)``); the book layer draws its
table (:mod:`resnet_nb.book.experiment_figures`). :func:`run_items` runs the items of a
configuration, one after another or in several worker processes (``jobs``), with one progress
bar and a remaining-time estimate. With a store folder, each finished item is written as one
record file ``<key>.json`` where ``key`` is a hash of the item; the file is written to a
temporary name and moved into place with ``os.replace`` (atomic on POSIX), and it carries a
SHA-256 checksum of its content. On the next call a record whose checksum matches is read back
instead of recomputed; a record that is truncated, corrupt, or belongs to another item is
deleted and its item redone. A run that is killed therefore resumes at the first unfinished
item and never loses finished ones.

Every record holds its provenance (git commit, package versions, machine, device, wall
time) beside its rows; :func:`write_summary` gathers a whole configuration into
``table.csv`` and ``provenance.json``.
"""

from __future__ import annotations

import datetime as _dt
import importlib
import json
import os
import platform
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd

from resnet_nb.experiments.progress import Progress, item_cost, seconds_per_cost
from resnet_nb.experiments.records import (  # the store and its reader, re-exported
    DAMAGE,
    RECORD_FORMAT,
    canonical_json,
    committed_records,
    inspect_file,
    inspect_record,
    item_key,
    iter_records,
    jsonable,
    load_results,
    read_record,
    record_checksum,
    results_dir,
    write_record,
)

__all__ = [
    "FIGURES",
    "SCALE_NAMES",
    "DAMAGE",
    "RECORD_FORMAT",
    "item_key",
    "record_checksum",
    "read_record",
    "inspect_record",
    "write_record",
    "iter_records",
    "inspect_file",
    "record_item",
    "committed_records",
    "provenance",
    "package_version",
    "cpu_fingerprint",
    "run",
    "run_items",
    "item_cost",
    "seconds_per_cost",
    "Progress",
    "check_jobs",
    "load_figure",
    "get_config",
    "write_summary",
    "load_results",
    "run_on_dask",
    "check_device",
]

#: figure name -> module implementing it
FIGURES = {
    "fig2": "resnet_nb.experiments.fig2",
    "fig3": "resnet_nb.experiments.fig3",
    "fig5": "resnet_nb.experiments.fig5",
    "fig6": "resnet_nb.experiments.fig6",
    "fig7": "resnet_nb.experiments.fig7",
    "fig8": "resnet_nb.experiments.fig8",
    "fig9": "resnet_nb.experiments.fig9",
    "fig10": "resnet_nb.experiments.fig10",
}
SCALE_NAMES = ("default", "paper")


def _git_commit() -> dict:
    from resnet_nb.core.paths import ROOT as root

    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "resnet_nb"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        return {"commit": commit or None, "package_modified": bool(dirty)}
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "package_modified": None}


_STATIC_PROVENANCE = None


def cpu_fingerprint() -> str:
    """The CPU model and the instruction set torch's kernels use on it (e.g. ``"AMD EPYC / AVX2"``).

    float32 convolution kernels round differently on different instruction sets, and SGD on a
    convolutional network amplifies a last-bit difference into a different trajectory, so a
    trained network is reproducible number for number only on a machine with the same
    fingerprint (see ``tests/experiments/test_committed_results.py``)."""
    import torch

    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model} / {torch.backends.cpu.get_cpu_capability()}"


def package_version() -> str:
    """The installed version of ``resnet_nb`` (its distribution's metadata), or ``"unknown"``."""
    from importlib import metadata

    try:
        return metadata.version("resnet_nb")
    except metadata.PackageNotFoundError:
        return "unknown"


def provenance(device: str = "cpu") -> dict:
    """Where and with what a number was computed: git commit, versions, machine, device."""
    global _STATIC_PROVENANCE
    if _STATIC_PROVENANCE is None:
        import torch

        versions = {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "numpy": np.__version__,
            "pandas": pd.__version__,
            "resnet_nb": package_version(),
        }
        machine = {
            "node": platform.node(),
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count(),
            "torch_threads": torch.get_num_threads(),
            "cpu": cpu_fingerprint(),
        }
        _STATIC_PROVENANCE = {"git": _git_commit(), "versions": versions, "machine": machine}
    out = dict(_STATIC_PROVENANCE)
    out["device"] = device_description(device)
    if hasattr(os, "getloadavg"):  # how busy the machine was: times on a shared machine need it
        out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return out


def device_description(device: str) -> str:
    if device == "cpu":
        return f"cpu ({platform.processor() or platform.machine()}, {os.cpu_count()} logical cores)"
    import torch

    return f"{device} ({torch.cuda.get_device_name(torch.device(device))})"


def check_device(device) -> str:
    """Return ``device`` if it is "cpu" or an available CUDA device, else raise ValueError."""
    if not isinstance(device, str) or not (device == "cpu" or device.startswith("cuda")):
        raise ValueError(f"device must be 'cpu' or 'cuda' (or 'cuda:N'), got {device!r}")
    if device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise ValueError(f"device {device!r} was asked for but torch sees no CUDA device")
    return device


def _worker_init():
    """Each worker process computes on one thread (the processes share the cores)."""
    import torch

    torch.set_num_threads(1)


def _compute_item(module_name: str, item: dict, device: str, store_dir):
    """Run one item in a worker process and store its record; return (rows, wall time).

    An item whose sound record is already in the store is read back, not computed again: a
    cluster that reruns a task whose result it lost (a worker gone after writing the record)
    costs nothing and changes nothing."""
    if store_dir is not None:
        body, _ = inspect_record(store_dir, item)
        if body is not None:
            return body["rows"], 0.0
    return _run_and_store(importlib.import_module(module_name), item, device, store_dir)


def _run_and_store(module, item: dict, device: str, store_dir):
    """Run one item, write its record (with ``store_dir``); return (rows, wall time)."""
    t0 = time.perf_counter()
    new = module.run_one(item, device=device)
    wall = time.perf_counter() - t0
    new = json.loads(canonical_json(new))  # the rows exactly as they will be read back
    if store_dir is not None:
        prov = dict(
            provenance(device),
            wall_time_s=round(wall, 3),
            finished_utc=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        )
        write_record(store_dir, item, new, prov)
    return new, wall


def record_item(store_dir, item: dict, compute) -> list:
    """The rows of one work item of a result set kept outside a figure's run (``fig3_sharpness``,
    ``fig8/dense``, ``hm_conv``): read back from its sound record in ``store_dir``, else
    ``compute()`` (a list of row dicts) is called and its rows stored with :func:`provenance`,
    the wall time and the finishing time. A damaged record is deleted and redone (reported, as
    in :func:`run_items`), so an interrupted set resumes with the items it had not finished."""
    damaged: list = []
    body = read_record(store_dir, item, damaged)
    if body is not None:
        return body["rows"]
    if damaged:
        _report_damaged(store_dir, damaged, redo=True)
    t0 = time.perf_counter()
    rows = json.loads(canonical_json(compute()))  # the rows exactly as they will be read back
    prov = dict(
        provenance(),
        wall_time_s=round(time.perf_counter() - t0, 3),
        finished_utc=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    )
    write_record(store_dir, item, rows, prov)
    return rows


def check_jobs(jobs) -> int:
    """``jobs`` as a positive int (None: every core)."""
    if jobs is None:
        return os.cpu_count() or 1
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be an integer >= 1, got {jobs!r}")
    return jobs


def run_items(
    module,
    config: dict,
    store_dir=None,
    device: str = "cpu",
    progress: bool = True,
    items=None,
    compute: bool = True,
    jobs: int = 1,
    scheduler=None,
) -> pd.DataFrame:
    """Run every work item of ``config`` (or the given ``items``) and return the tidy table.

    With ``store_dir``, finished items are read back from their records and new ones are
    written as they finish (see the module docstring); without it nothing is written.
    ``compute=False`` only collects the stored records (unfinished items are left out; the
    table's ``attrs["missing"]`` counts them). ``jobs > 1`` runs items in that many worker
    processes (one thread each) over the same store; the rows come back in item order
    whatever order the items finish in. The table has one column ``item_key`` tying each row
    to its record.

    ``scheduler`` (the address of a Dask scheduler, ``"tcp://host:8786"``, or a
    ``distributed.Client``) runs the items on that Dask cluster instead, through
    :func:`run_on_dask`; ``jobs`` is then ignored.
    """
    device = check_device(device)
    jobs = check_jobs(jobs)
    items = module.configurations(config) if items is None else items
    stored, todo, damaged = {}, [], []
    for item in items:
        body = read_record(store_dir, item, damaged) if store_dir is not None else None
        if body is None:
            todo.append(item)
        else:
            stored[item_key(item)] = body["rows"]
    if damaged:
        _report_damaged(store_dir, damaged, redo=compute)
    if not compute:
        rows = [dict(r, item_key=k) for k, rs in stored.items() for r in rs]
        table = pd.DataFrame(rows)
        table.attrs["missing"] = len(todo)
        table.attrs["damaged"] = damaged
        return table
    name = getattr(module, "__name__", "experiment").rsplit(".", 1)[-1]
    done = [i for i in items if item_key(i) in stored]
    prior = None
    if progress and todo:
        figure = todo[0].get("figure") if isinstance(todo[0], dict) else None
        committed = [results_dir(figure, s) / "records" for s in SCALE_NAMES] if figure else []
        prior = seconds_per_cost(module, [store_dir]) or seconds_per_cost(module, committed)
    bar = Progress(module, name, items, done, min(jobs, max(len(todo), 1)), prior, progress)
    new_rows = {}
    try:
        if scheduler is not None and todo:
            new_rows = run_on_dask(module, todo, device, store_dir, scheduler, bar)
        elif jobs == 1 or len(todo) <= 1:
            for item in todo:
                bar.start(item)
                new, wall = _run_and_store(module, item, device, store_dir)
                new_rows[item_key(item)] = new
                bar.finish(item, wall)
        else:
            new_rows = _run_parallel(module, todo, device, store_dir, jobs, bar)
    finally:
        bar.close()
    rows = []
    for item in items:
        k = item_key(item)
        rows.extend(dict(r, item_key=k) for r in (stored[k] if k in stored else new_rows[k]))
    table = pd.DataFrame(rows)
    table.attrs["missing"] = 0
    table.attrs["damaged"] = damaged
    return table


def run(module, config: dict | None = None, device: str = "cpu", progress: bool = True, store=None) -> pd.DataFrame:
    """Run the figure ``module`` at ``config`` (its default scale if None): the one figure runner.

    A figure module declares only what differs between figures (``SCALES``,
    ``configurations`` and ``run_one``); this runs its items through :func:`run_items`.
    ``store``: a folder for resumable records (see the module docstring); without it
    nothing is written. Returns the tidy table, one row per row of ``run_one``."""
    config = module.SCALES["default"] if config is None else config
    return run_items(module, config, store_dir=store, device=device, progress=progress)


def _report_damaged(store_dir, damaged: list, redo: bool) -> None:
    """Say on stderr which stored records were damaged (and are redone or left missing)."""
    import sys

    what = "redone" if redo else "left out (collect only)"
    counts = {r: sum(1 for _, x in damaged if x == r) for r in DAMAGE}
    summary = ", ".join(f"{n} {r}" for r, n in counts.items() if n)
    print(f"{store_dir}: {len(damaged)} damaged record(s) deleted and {what}: {summary}", file=sys.stderr, flush=True)
    for name, reason in damaged:
        print(f"  {name}: {reason}", file=sys.stderr, flush=True)


def _importable_name(module, what: str) -> str:
    """The module's import name, which another process can import to reach the same module."""
    name = getattr(module, "__name__", None)
    try:
        if name is None or importlib.import_module(name) is not module:
            raise ImportError
    except ImportError:
        raise ValueError(f"{what} needs a figure module importable by name, got {name!r}") from None
    return name


def _run_parallel(module, todo, device, store_dir, jobs, bar) -> dict:
    """Run ``todo`` in ``jobs`` worker processes; records are written by the workers."""
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    name = _importable_name(module, "jobs > 1")
    if device != "cpu" and jobs > 1:
        raise ValueError("jobs > 1 runs several processes on the CPU; use jobs=1 with a GPU")
    out = {}
    # Start the longest items first, so that the last process to finish is not left alone with
    # the largest item.
    queue = sorted(todo, key=lambda i: -item_cost(module, i))
    ctx = mp.get_context("spawn")  # a fresh interpreter: no forked torch thread pools
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_worker_init) as pool:
        running = {}
        try:
            while queue or running:
                while queue and len(running) < jobs:
                    item = queue.pop(0)
                    running[
                        pool.submit(_compute_item, name, item, device, None if store_dir is None else str(store_dir))
                    ] = item
                    bar.start(item)
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in finished:
                    item = running.pop(fut)
                    new, wall = fut.result()
                    out[item_key(item)] = new
                    bar.finish(item, wall)
        except BaseException:
            for fut in running:
                fut.cancel()
            raise
    return out


def run_on_dask(module, todo, device, store_dir, scheduler, bar=None) -> dict:
    """Run the items ``todo`` on a Dask cluster; return ``{item key: rows}``.

    Each item is one task: the worker that runs it writes its record to ``store_dir`` (which
    must therefore be a folder every worker can reach, e.g. a shared file system on a Slurm
    cluster), exactly as a local worker process does. Dask reschedules the task of a worker that
    is lost mid-item on another worker (its records already written are kept, and only its
    unfinished item runs again), up to the scheduler's ``allowed-failures``. Needs the optional
    extra ``distributed`` (``pip install 'resnet_nb[dask]'``).
    """
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ImportError(
            "scheduler= needs the optional package 'distributed' (pip install 'resnet_nb[dask]')"
        ) from None
    name = _importable_name(module, "a Dask run")
    own = not isinstance(scheduler, Client)
    client = Client(scheduler) if own else scheduler
    store = None if store_dir is None else str(store_dir)
    try:
        queue = sorted(todo, key=lambda i: -item_cost(module, i))
        futures = {}
        for item in queue:
            fut = client.submit(
                _compute_item, name, item, device, store, pure=False, key=f"{name.rsplit('.', 1)[-1]}-{item_key(item)}"
            )
            futures[fut] = item
            if bar is not None:
                bar.start(item)
        out = {}
        for fut in as_completed(list(futures)):
            item = futures[fut]
            new, wall = fut.result()
            out[item_key(item)] = new
            if bar is not None:
                bar.finish(item, wall)
        return out
    finally:
        if own:
            client.close()


def reproduce_variant(
    module, name: str, config: dict, scale: str, out=None, compute: bool = True, progress: bool = True
) -> pd.DataFrame:
    """Run (or resume) a variant of a figure (e.g. ``fig10_he``, another configuration of the
    same module) into ``<out>/<name>/<scale>/``: records, ``table.csv`` and ``provenance.json``,
    as the command line does for a figure. ``compute=False`` collects finished items only."""
    folder = results_dir(name, scale, out)
    t0 = time.perf_counter()
    table = run_items(module, config, store_dir=folder / "records", progress=progress, compute=compute)
    write_summary(folder, name, scale, config, table, "cpu", time.perf_counter() - t0, folder / "records")
    return table


def load_figure(name: str):
    """Import the module of figure ``name`` (e.g. "fig5")."""
    if name not in FIGURES:
        raise ValueError(f"figure must be one of {sorted(FIGURES)}, got {name!r}")
    return importlib.import_module(FIGURES[name])


def get_config(module, scale="default", **overrides) -> dict:
    """``module.SCALES[scale]`` with some entries replaced (names are checked)."""
    if isinstance(scale, dict):
        config = dict(scale)
    else:
        if scale not in module.SCALES:
            raise ValueError(f"scale must be one of {sorted(module.SCALES)}, got {scale!r}")
        config = dict(module.SCALES[scale])
    for k, v in overrides.items():
        if k not in config:
            raise ValueError(f"{k!r} is not a setting of this figure; settings are {sorted(config)}")
        config[k] = v
    return config


def write_summary(
    out_dir, figure: str, scale: str, config: dict, table: pd.DataFrame, device: str, wall_time_s: float, records_dir
) -> dict:
    """Write ``table.csv`` and ``provenance.json`` of a finished configuration into ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    table.to_csv(out_dir / "table.csv", index=False)
    items_wall = []
    for body in iter_records(records_dir):
        try:
            items_wall.append(body["provenance"]["wall_time_s"])
        except (KeyError, TypeError):
            pass
    prov = dict(
        provenance(device),
        figure=figure,
        scale=scale,
        config=config,
        items=len(items_wall),
        items_wall_time_s=round(float(sum(items_wall)), 1),
        missing_items=int(table.attrs.get("missing", 0)),
        complete=int(table.attrs.get("missing", 0)) == 0,
        this_invocation_wall_time_s=round(wall_time_s, 1),
        written_utc=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    )
    tmp = out_dir / ".provenance.json.tmp"
    tmp.write_text(json.dumps(prov, indent=1, sort_keys=True, default=jsonable))
    os.replace(tmp, out_dir / "provenance.json")
    return prov
