"""The one engine behind every figure: work items, a resumable result store, provenance.

A figure is a module ``resnet_nb.experiments.figN`` with

* ``SCALES = {"default": {...}, "paper": {...}}``: JSON-serialisable configurations;
* ``configurations(config) -> list[dict]``: independent, JSON-serialisable work items;
* ``run_one(item, device="cpu") -> list[dict]``: tidy rows (one dict per row) for one item;
* ``run(config, device="cpu", progress=True, store=None) -> pandas.DataFrame``;
* ``plot(table, ax=None)``.

:func:`run_items` runs the items of a configuration, one after another. With a store folder,
each finished item is written as one record file ``<key>.json`` where ``key`` is a hash of
the item; the file is written to a temporary name and moved into place with
``os.replace`` (atomic on POSIX), and it carries a SHA-256 checksum of its content. On the
next call a record whose checksum matches is read back instead of recomputed; a record that
is truncated, corrupt, or belongs to another item is deleted and its item redone. A run that
is killed therefore resumes at the first unfinished item and never loses finished ones.

Every record holds its provenance (git commit, package versions, machine, device, wall
time) beside its rows; :func:`write_summary` gathers a whole configuration into
``table.csv`` and ``provenance.json``.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import importlib
import json
import os
import platform
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

__all__ = ["FIGURES", "SCALE_NAMES", "item_key", "record_checksum", "read_record", "write_record",
           "provenance", "cpu_fingerprint", "run_items", "load_figure", "get_config", "write_summary", "load_results",
           "check_device"]

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
RECORD_FORMAT = 1


def _canonical(obj) -> str:
    """One text per JSON value: sorted keys, no spaces, so equal values hash equally."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=True, default=_jsonable)


def _jsonable(x):
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    if isinstance(x, (np.bool_,)):
        return bool(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"{type(x).__name__} is not JSON-serialisable")


def item_key(item: dict) -> str:
    """The record name of a work item: the first 20 hex digits of SHA-256 of its canonical JSON."""
    if not isinstance(item, dict):
        raise ValueError(f"item must be a dict, got {type(item).__name__}")
    return hashlib.sha256(_canonical(item).encode()).hexdigest()[:20]


def record_checksum(body: dict) -> str:
    """SHA-256 of the canonical JSON of a record's body (item, rows, provenance)."""
    return hashlib.sha256(_canonical(body).encode()).hexdigest()


def write_record(store_dir, item: dict, rows: list, prov: dict) -> Path:
    """Write one finished item atomically: temporary file in the same folder, then os.replace."""
    store_dir = Path(store_dir)
    store_dir.mkdir(parents=True, exist_ok=True)
    body = {"format": RECORD_FORMAT, "item": item, "rows": rows, "provenance": prov}
    text = _canonical({"body": body, "checksum": record_checksum(body)})
    target = store_dir / f"{item_key(item)}.json"
    fd, tmp = tempfile.mkstemp(dir=store_dir, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return target


def read_record(store_dir, item: dict):
    """The stored record body of ``item``, or ``None`` if absent, partial, corrupt or foreign.

    A damaged record is deleted so that it is redone.
    """
    path = Path(store_dir) / f"{item_key(item)}.json"
    if not path.exists():
        return None
    try:
        rec = json.loads(path.read_text())
        body = rec["body"]
        ok = (rec["checksum"] == record_checksum(body) and body.get("format") == RECORD_FORMAT
              and _canonical(body["item"]) == _canonical(item))
    except (ValueError, KeyError, TypeError):
        ok = False
    if not ok:
        path.unlink()
        return None
    return body


def _git_commit() -> dict:
    root = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                                timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "resnet_nb"],
                               cwd=root, capture_output=True, text=True, timeout=10).stdout.strip()
        return {"commit": commit or None, "package_modified": bool(dirty)}
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "package_modified": None}


_STATIC_PROVENANCE = None


def cpu_fingerprint() -> str:
    """The CPU model and the instruction set torch's kernels use on it (e.g. ``"AMD EPYC / AVX2"``).

    float32 convolution kernels round differently on different instruction sets, and SGD on a
    convolutional network amplifies a last-bit difference into a different trajectory, so a
    trained network is reproducible number for number only on a machine with the same
    fingerprint (see ``tests/test_experiments_figures.py``)."""
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


def provenance(device: str = "cpu") -> dict:
    """Where and with what a number was computed: git commit, versions, machine, device."""
    global _STATIC_PROVENANCE
    if _STATIC_PROVENANCE is None:
        import torch

        import resnet_nb

        versions = {"python": platform.python_version(), "torch": torch.__version__,
                    "numpy": np.__version__, "pandas": pd.__version__, "resnet_nb": resnet_nb.__version__}
        machine = {"node": platform.node(), "platform": platform.platform(),
                   "processor": platform.processor() or platform.machine(), "cpu_count": os.cpu_count(),
                   "torch_threads": torch.get_num_threads(), "cpu": cpu_fingerprint()}
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


def run_items(module, config: dict, store_dir=None, device: str = "cpu", progress: bool = True,
              items=None, compute: bool = True) -> pd.DataFrame:
    """Run every work item of ``config`` (or the given ``items``) and return the tidy table.

    With ``store_dir``, finished items are read back from their records and new ones are
    written as they finish (see the module docstring); without it nothing is written.
    ``compute=False`` only collects the stored records (unfinished items are left out; the
    table's ``attrs["missing"]`` counts them). The table has one column ``item_key`` tying
    each row to its record.
    """
    device = check_device(device)
    items = module.configurations(config) if items is None else items
    rows = []
    todo = []
    for item in items:
        body = read_record(store_dir, item) if store_dir is not None else None
        if body is None:
            todo.append(item)
        else:
            rows.extend(dict(r, item_key=item_key(item)) for r in body["rows"])
    if not compute:
        table = pd.DataFrame(rows)
        table.attrs["missing"] = len(todo)
        return table
    name = getattr(module, "__name__", "experiment").rsplit(".", 1)[-1]
    bar = tqdm(total=len(items), initial=len(items) - len(todo), desc=name, disable=not progress)
    try:
        for item in todo:
            t0 = time.perf_counter()
            new = module.run_one(item, device=device)
            wall = time.perf_counter() - t0
            new = json.loads(_canonical(new))  # the rows exactly as they will be read back
            if store_dir is not None:
                prov = dict(provenance(device), wall_time_s=round(wall, 3),
                            finished_utc=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
                write_record(store_dir, item, new, prov)
            rows.extend(dict(r, item_key=item_key(item)) for r in new)
            bar.update(1)
    finally:
        bar.close()
    table = pd.DataFrame(rows)
    table.attrs["missing"] = 0
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


def write_summary(out_dir, figure: str, scale: str, config: dict, table: pd.DataFrame,
                  device: str, wall_time_s: float, records_dir) -> dict:
    """Write ``table.csv`` and ``provenance.json`` of a finished configuration into ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    table.to_csv(out_dir / "table.csv", index=False)
    items_wall = []
    for p in sorted(Path(records_dir).glob("*.json")):
        try:
            items_wall.append(json.loads(p.read_text())["body"]["provenance"]["wall_time_s"])
        except (ValueError, KeyError):
            pass
    prov = dict(provenance(device), figure=figure, scale=scale, config=config,
                items=len(items_wall), items_wall_time_s=round(float(sum(items_wall)), 1),
                missing_items=int(table.attrs.get("missing", 0)),
                complete=int(table.attrs.get("missing", 0)) == 0,
                this_invocation_wall_time_s=round(wall_time_s, 1),
                written_utc=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
    tmp = out_dir / ".provenance.json.tmp"
    tmp.write_text(json.dumps(prov, indent=1, sort_keys=True, default=_jsonable))
    os.replace(tmp, out_dir / "provenance.json")
    return prov


def results_dir(figure: str, scale: str, root=None) -> Path:
    """Where the command line keeps ``figure`` at ``scale``: ``<root>/<figure>/<scale>``."""
    root = Path(root) if root is not None else Path(__file__).resolve().parents[2] / "results"
    return root / figure / scale


def load_results(figure: str, scale: str = "paper", root=None):
    """The committed table and provenance of ``figure`` at ``scale``, or ``(None, None)``."""
    d = results_dir(figure, scale, root)
    if not (d / "table.csv").exists() or not (d / "provenance.json").exists():
        return None, None
    return pd.read_csv(d / "table.csv"), json.loads((d / "provenance.json").read_text())
