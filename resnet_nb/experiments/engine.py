"""The one engine behind the figures of the experiment chapters (book/exp_*.ipynb): work items,
a resumable result store (:mod:`resnet_nb.shared.store`), a remaining-time estimate (:mod:`.progress`), provenance.

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
instead of recomputed, if it was made by the same code (the figure's source, torch, numpy:
:func:`code_identity`); a record that is damaged, made by other code, or belongs to another
item is reported by name, moved to the store's ``quarantine/`` folder (never deleted) and its
item redone. A run that is killed therefore resumes at the first unfinished item and never
loses finished ones; two runs on one store never compute the same item (a lock per item).

Every record holds its provenance (git commit, package versions, machine, device, wall
time) beside its rows; :func:`write_summary` gathers a whole configuration into
``table.csv`` and ``provenance.json``.
"""

from __future__ import annotations

import datetime as _dt
import importlib
import json
import os
import time
from pathlib import Path

import pandas as pd

from resnet_nb.experiments.cluster import run_on_dask
from resnet_nb.experiments.identity import code_identity, code_mismatch, record_summary
from resnet_nb.experiments.progress import Progress, item_cost, seconds_per_cost
from resnet_nb.shared.store import (
    DAMAGE,
    QUARANTINE,
    canonical_json,
    inspect_file,
    inspect_record,
    is_record_name,
    item_key,
    iter_records,
    jsonable,
    provenance,
    quarantine,
    read_record,
    report_unused,
    results_dir,
    write_atomic,
    write_record,
)

__all__ = [
    "FIGURES",
    "SCALE_NAMES",
    "run",
    "run_items",
    "require_jobs",
    "load_figure",
    "get_config",
    "write_summary",
    "require_device",
    "require_store",
    "MAX_JOBS",
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


def require_device(device) -> str:
    """Return ``device`` if it is "cpu" or an available CUDA device, else raise ValueError."""
    if not isinstance(device, str) or not (device == "cpu" or device.startswith("cuda")):
        raise ValueError(f"device must be 'cpu' or 'cuda' (or 'cuda:N'), got {device!r}")
    if device.startswith("cuda"):
        import re

        import torch

        m = re.fullmatch(r"cuda(?::(\d+))?", device)
        if m is None:
            raise ValueError(f"device must be 'cpu' or 'cuda' (or 'cuda:N' with N a number), got {device!r}")
        if not torch.cuda.is_available():
            raise ValueError(f"device {device!r} was asked for but torch sees no CUDA device")
        n = torch.cuda.device_count()
        if m.group(1) is not None and int(m.group(1)) >= n:
            raise ValueError(f"device {device!r}: torch sees {n} CUDA device(s), numbered from 0")
    return device


#: the most worker processes ``jobs`` may ask for
MAX_JOBS = 256


def _worker_init(parent: int | None = None):
    """Each worker process ends when the process that started it (``parent``) ends, however it
    ends (no orphan left computing), and computes on one thread (the processes share the cores).

    The watch is set up first, before torch is imported: a parent killed while its workers are
    still starting leaves none behind."""
    import threading

    parent = os.getppid() if parent is None else parent
    try:  # Linux: the kernel kills this process when its parent dies
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent died before the watch was set up
        os._exit(1)

    def watch():
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True, name="watch-parent").start()
    import torch

    torch.set_num_threads(1)


#: what :func:`compute_item` returns for an item another run is computing
BUSY = "busy"


def _claim(store_dir, item: dict, block: bool):
    """An exclusive lock on ``item`` in ``store_dir`` (``.locks/<key>.lock``, ``flock``), so that
    two runs on one store never compute the same item at once; the lock goes with its process,
    however that process ends. Returns the open descriptor (close it to release), or None when
    another process holds it and ``block`` is False."""
    import fcntl

    folder = Path(store_dir) / ".locks"
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / f"{item_key(item)}.lock", os.O_CREAT | os.O_RDWR, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if block else fcntl.LOCK_NB))
    except BlockingIOError:
        os.close(fd)
        return None
    except OSError:  # a file system without locks: go on unlocked
        pass
    return fd


def compute_item(module_name: str, item: dict, device: str, store_dir, expected=None, block=True):
    """Run one item (in a worker process) and store its record; return (rows, wall time,
    provenance), or :data:`BUSY` when another run holds the item and ``block`` is False.

    An item whose sound record (made by the ``expected`` code) is already in the store is read
    back, not computed again: a cluster that reruns a task whose result it lost, or a second run
    on the same store, costs nothing and changes nothing."""
    module = importlib.import_module(module_name)
    if store_dir is None:
        return _run_and_store(module, item, device, None)
    fd = _claim(store_dir, item, block)
    if fd is None:
        return BUSY
    try:
        body, _ = inspect_record(store_dir, item)
        if body is not None and not code_mismatch(body, expected or code_identity(module)):
            return body["rows"], 0.0, None
        return _run_and_store(module, item, device, store_dir)
    finally:
        os.close(fd)


def _run_and_store(module, item: dict, device: str, store_dir):
    """Run one item, write its record (with ``store_dir``); return (rows, wall time, provenance)."""
    t0 = time.perf_counter()
    new = module.run_one(item, device=device)
    wall = time.perf_counter() - t0
    new = json.loads(canonical_json(new))  # the rows exactly as they will be read back
    ident = code_identity(module)
    prov = dict(
        provenance(device),
        code={"module": ident["module"], "source_sha256": ident["source_sha256"]},
        wall_time_s=round(wall, 3),
        finished_utc=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    )
    if store_dir is not None:
        write_record(store_dir, item, new, prov)
    return new, wall, prov


def require_jobs(jobs) -> int:
    """``jobs`` as an int from 1 to :data:`MAX_JOBS` (None: every core)."""
    if jobs is None:
        return min(os.cpu_count() or 1, MAX_JOBS)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= MAX_JOBS:
        raise ValueError(f"jobs must be an integer from 1 to {MAX_JOBS}, got {jobs!r}")
    return jobs


def require_store(store_dir) -> Path:
    """Create the record folder ``store_dir`` if needed and make sure a record can be written
    there, before any item runs; else ValueError naming the folder."""
    import tempfile

    store_dir = Path(store_dir)
    try:
        store_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=store_dir, prefix=".write-test-"):
            pass
    except OSError as exc:
        raise ValueError(f"the record folder {str(store_dir)!r} is not writable: {exc.strerror or exc}") from None
    return store_dir


def _strays(store_dir, keys) -> list:
    """The entries of ``store_dir`` that are neither a record of one of ``keys`` nor a sound
    record of another item under its own name (another configuration sharing the store), nor
    the store's own hidden files and ``quarantine/``: ``[(name, reason)]``."""
    out = []
    try:
        names = sorted(os.listdir(store_dir))
    except OSError:
        return out
    for name in names:
        if name.startswith(".") or name == QUARANTINE or (name.endswith(".json") and name[:-5] in keys):
            continue
        body, reason = inspect_file(Path(store_dir) / name)
        if body is None or not is_record_name(name):
            out.append((name, f"stray ({reason or 'foreign'})" if name.endswith(".json") else "stray (not a record)"))
    return out


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
    keep_stale: bool = False,
) -> pd.DataFrame:
    """Run every work item of ``config`` (or the given ``items``) and return the tidy table.

    With ``store_dir``, finished items are read back from their records and new ones are
    written as they finish (see the module docstring); without it nothing is written.
    A record is reused only if it was made by the same code (:func:`code_identity`: the
    figure's source, torch, numpy); otherwise it is reported by name, moved to the store's
    ``quarantine/`` folder and its item redone, or with ``keep_stale=True`` reused and listed
    as stale (``table.attrs["stale"]``). Damaged records and stray files are reported and moved
    to ``quarantine/``; nothing is deleted.

    ``compute=False`` only collects the stored records and changes nothing in the store
    (unfinished, damaged and outdated items are left out; ``attrs["missing"]`` counts them).
    ``jobs > 1`` runs items in that many worker processes (one thread each) over the same
    store; the rows come back in item order whatever order the items finish in. Two runs on one
    store never compute the same item at once (a lock per item). The table has one column
    ``item_key`` tying each row to its record; ``attrs["records"]`` holds each record's
    provenance summary (commit, versions, wall time).

    ``scheduler`` (the address of a Dask scheduler, ``"tcp://host:8786"``, or a
    ``distributed.Client``) runs the items on that Dask cluster instead, through
    :func:`run_on_dask`; ``jobs`` is then ignored.
    """
    device = require_device(device)
    jobs = require_jobs(jobs)
    items = module.configurations(config) if items is None else items
    expected = code_identity(module)
    if store_dir is not None and compute:
        require_store(store_dir)
    stored, meta, todo, damaged, outdated, stale = _sort_records(store_dir, items, expected, compute, keep_stale)
    if not compute:
        table = _table(items, stored)
        table.attrs.update(missing=len(todo), damaged=damaged, outdated=outdated, stale=stale, records=meta)
        return table
    new_rows = _compute(module, items, todo, stored, device, store_dir, jobs, scheduler, expected, progress)
    for k, (rows, _, prov) in new_rows.items():
        stored[k] = rows
        if prov is not None:
            meta[k] = record_summary(prov)
        elif store_dir is not None:  # read back from a record another run wrote meanwhile
            body = read_record(store_dir, next(i for i in todo if item_key(i) == k), move=False)
            meta[k] = record_summary(body["provenance"]) if body else {}
    table = _table(items, stored)
    table.attrs.update(missing=0, damaged=damaged, outdated=outdated, stale=stale, records=meta)
    return table


def _sort_records(store_dir, items, expected, compute: bool, keep_stale: bool):
    """Read what the store holds for ``items``: the rows and provenance summaries of the usable
    records, the items still to do, and the damaged, outdated and stale records (each
    ``(file name, reason)``). With ``compute``, damaged and outdated records and stray files are
    moved to ``quarantine/``; what was left unused is reported either way."""
    stored, meta, todo, damaged, outdated, stale = {}, {}, [], [], [], []
    for item in items:
        body, reason = inspect_record(store_dir, item) if store_dir is not None else (None, "missing")
        key = item_key(item)
        why = code_mismatch(body, expected) if body is not None else ""
        if body is not None and why and keep_stale:
            stale.append((f"{key}.json", why))
        elif body is not None and why:
            outdated.append((f"{key}.json", why))
            if compute:
                quarantine(Path(store_dir) / f"{key}.json", "outdated")
            todo.append(item)
            continue
        if body is None:
            if reason in DAMAGE:
                damaged.append((f"{key}.json", reason))
                if compute:
                    quarantine(Path(store_dir) / f"{key}.json", reason)
            todo.append(item)
            continue
        stored[key] = body["rows"]
        meta[key] = record_summary(body["provenance"])
    strays = _strays(store_dir, {item_key(i) for i in items}) if store_dir is not None else []
    if strays and compute:
        for name, _ in strays:
            quarantine(Path(store_dir) / name, "stray")
    if damaged or outdated or strays:
        report_unused(store_dir, damaged, outdated, strays, compute)
    return stored, meta, todo, damaged, outdated, stale


def _compute(module, items, todo, stored, device, store_dir, jobs, scheduler, expected, progress):
    """Run the items of ``todo`` (on Dask, in ``jobs`` processes, or here) under one progress bar
    that counts the ``stored`` ones as done; return ``{key: (rows, seconds, provenance)}``."""
    name = getattr(module, "__name__", "experiment").rsplit(".", 1)[-1]
    done = [i for i in items if item_key(i) in stored]
    prior = None
    if progress and todo:
        figure = todo[0].get("figure") if isinstance(todo[0], dict) else None
        committed = [results_dir(figure, s) / "records" for s in SCALE_NAMES] if figure else []
        prior = seconds_per_cost(module, [store_dir]) or seconds_per_cost(module, committed)
    bar = Progress(module, name, items, done, min(jobs, max(len(todo), 1)), prior, progress)
    try:
        if scheduler is not None and todo:
            return run_on_dask(module, todo, device, store_dir, scheduler, bar)
        if jobs == 1 or len(todo) <= 1:
            return _run_sequential(module, todo, device, store_dir, expected, bar)
        return _run_parallel(module, todo, device, store_dir, jobs, expected, bar)
    finally:
        bar.close()


def _table(items, stored) -> pd.DataFrame:
    rows = []
    for item in items:
        k = item_key(item)
        rows.extend(dict(r, item_key=k) for r in stored.get(k, []))
    return pd.DataFrame(rows)


def run(module, config: dict | None = None, device: str = "cpu", progress: bool = True, store=None) -> pd.DataFrame:
    """Run the figure ``module`` at ``config`` (its default scale if None): the one figure runner.

    A figure module declares only what differs between figures (``SCALES``,
    ``configurations`` and ``run_one``); this runs its items through :func:`run_items`.
    ``store``: a folder for resumable records (see the module docstring); without it
    nothing is written. Returns the tidy table, one row per row of ``run_one``."""
    config = module.SCALES["default"] if config is None else config
    return run_items(module, config, store_dir=store, device=device, progress=progress)


def importable_name(module, what: str) -> str:
    """The module's import name, which another process can import to reach the same module."""
    name = getattr(module, "__name__", None)
    try:
        if name is None or importlib.import_module(name) is not module:
            raise ImportError
    except ImportError:
        raise ValueError(f"{what} needs a figure module importable by name, got {name!r}") from None
    return name


def _run_sequential(module, todo, device, store_dir, expected, bar) -> dict:
    """Run ``todo`` one after another in this process; an item another run holds is left for
    the end, then waited for and read back (or computed, if that run did not finish it)."""
    out, queue, deferred = {}, list(todo), []
    while queue or deferred:
        block = not queue
        item = queue.pop(0) if queue else deferred.pop(0)
        fd = _claim(store_dir, item, block) if store_dir is not None else None
        if store_dir is not None and fd is None:
            deferred.append(item)
            continue
        try:
            if store_dir is not None:
                body, _ = inspect_record(store_dir, item)
                if body is not None and not code_mismatch(body, expected):
                    out[item_key(item)] = (body["rows"], 0.0, body["provenance"])
                    bar.finish(item, 0.0, computed=False)
                    continue
            bar.start(item)
            out[item_key(item)] = res = _run_and_store(module, item, device, store_dir)
            bar.finish(item, res[1])
        finally:
            if fd is not None:
                os.close(fd)
    return out


def _run_parallel(module, todo, device, store_dir, jobs, expected, bar) -> dict:
    """Run ``todo`` in ``jobs`` worker processes; records are written by the workers."""
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    name = importable_name(module, "jobs > 1")
    if device != "cpu" and jobs > 1:
        raise ValueError("jobs > 1 runs several processes on the CPU; use jobs=1 with a GPU")
    out = {}
    jobs = min(jobs, len(todo))
    # Start the longest items first, so that the last process to finish is not left alone with
    # the largest item; an item another run holds goes to the end and is then waited for.
    queue = [(i, False) for i in sorted(todo, key=lambda i: -item_cost(module, i))]
    store = None if store_dir is None else str(store_dir)
    ctx = mp.get_context("spawn")  # a fresh interpreter: no forked torch thread pools
    with ProcessPoolExecutor(
        max_workers=jobs, mp_context=ctx, initializer=_worker_init, initargs=(os.getpid(),)
    ) as pool:
        running = {}
        try:
            while queue or running:
                while queue and len(running) < jobs and (not queue[0][1] or not running):
                    item, block = queue.pop(0)
                    running[pool.submit(compute_item, name, item, device, store, expected, block)] = item
                    bar.start(item)
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in finished:
                    item = running.pop(fut)
                    res = fut.result()
                    if res == BUSY:
                        bar.requeue(item)
                        queue.append((item, True))
                        continue
                    out[item_key(item)] = res
                    bar.finish(item, res[1], computed=res[2] is not None)
        except BaseException:
            for fut in running:
                fut.cancel()
            raise
    return out


def reproduce_variant(
    module,
    name: str,
    config: dict,
    scale: str,
    out=None,
    compute: bool = True,
    progress: bool = True,
    keep_stale: bool = False,
) -> pd.DataFrame:
    """Run (or resume) a variant of a figure (e.g. ``fig10_he``, another configuration of the
    same module) into ``<out>/<name>/<scale>/``: records, ``table.csv`` and ``provenance.json``,
    as the command line does for a figure. ``compute=False`` collects finished items only."""
    folder = results_dir(name, scale, out)
    t0 = time.perf_counter()
    table = run_items(
        module, config, store_dir=folder / "records", progress=progress, compute=compute, keep_stale=keep_stale
    )
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
    """Write ``table.csv`` and ``provenance.json`` of a configuration into ``out_dir``, each
    atomically (a reader never sees a part; two writers never share a temporary name).

    The provenance counts the items of the table only (never stray files), and says which
    records came from which commit and with which torch and numpy (``records_by_commit``,
    ``records_by_versions``), which were reused although made by other code (``stale_records``,
    with ``--keep-stale``), and which were not used (``outdated_records``, ``damaged_records``).
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    keys = list(dict.fromkeys(table["item_key"])) if "item_key" in table.columns else []
    meta = table.attrs.get("records")
    if meta is None:  # a table not made by run_items: read its records' provenance
        bodies = {item_key(b["item"]): b for b in iter_records(records_dir) if isinstance(b.get("item"), dict)}
        meta = {k: record_summary(bodies[k].get("provenance")) for k in keys if k in bodies}
    meta = {k: meta.get(k, {}) for k in keys}
    by_commit: dict = {}
    by_versions: dict = {}
    for k, m in meta.items():
        commit = m.get("commit") or "unknown"
        if m.get("package_modified"):
            commit += " (modified)"
        by_commit.setdefault(commit, []).append(k)
        v = f"torch {m.get('torch')}, numpy {m.get('numpy')}"
        by_versions[v] = by_versions.get(v, 0) + 1
    walls = [float(m["wall_time_s"]) for m in meta.values() if isinstance(m.get("wall_time_s"), (int, float))]
    missing = int(table.attrs.get("missing", 0))
    stale = [n for n, _ in table.attrs.get("stale", [])]
    prov = dict(
        provenance(device),
        figure=figure,
        scale=scale,
        config=config,
        items=len(keys),
        items_wall_time_s=round(float(sum(walls)), 1),
        missing_items=missing,
        complete=missing == 0,
        records_by_commit=by_commit,
        records_by_versions=by_versions,
        stale_records=stale,
        outdated_records=[n for n, _ in table.attrs.get("outdated", [])],
        damaged_records=[f"{n} ({r})" for n, r in table.attrs.get("damaged", [])],
        this_invocation_wall_time_s=round(wall_time_s, 1),
        written_utc=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    )
    write_atomic(out_dir / "table.csv", table.to_csv(index=False))
    write_atomic(out_dir / "provenance.json", json.dumps(prov, indent=1, sort_keys=True, default=jsonable))
    return prov
