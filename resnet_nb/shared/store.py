"""The result store of the experiment chapters' engine and of the sets kept beside it
(book/exp_*.ipynb, book/theorem1_dynamics.ipynb, book/hardt_ma_expressivity.ipynb): one
checksummed record file per work item, written atomically, read back, and judged sound or
damaged; the provenance every record carries; :func:`record_item`, which reads one item back or
computes and stores it.

A record ``<key>.json`` holds ``{"body": {"format", "item", "rows", "provenance"}, "checksum"}``
where ``key`` is :func:`item_key` of the item and ``checksum`` the SHA-256 of the canonical JSON
of the body. :func:`iter_records` is the one reader of a folder of records (the engine's
summaries, the figures' provenance counts, the book's time tables, and with ``strict=True``,
which refuses a damaged file, the sets kept beside the figures' runs: ``results/fig3_sharpness``,
``results/fig8/dense``, ``results/hm_conv``, ``results/t1d_long_sweep`` and
``results/hm_thm32``, each in its ``records/`` folder); :func:`records_table` puts their rows
in one table; :func:`load_results` reads a figure's summary (``table.csv`` and
``provenance.json``).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import platform
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "RECORD_FORMAT",
    "DAMAGE",
    "canonical_json",
    "jsonable",
    "item_key",
    "record_checksum",
    "write_record",
    "write_atomic",
    "QUARANTINE",
    "inspect_file",
    "inspect_record",
    "quarantine",
    "read_record",
    "is_record_name",
    "iter_records",
    "records_table",
    "committed_records",
    "results_dir",
    "load_results",
    "provenance",
    "package_version",
    "cpu_fingerprint",
    "device_description",
    "record_item",
    "report_unused",
]


RECORD_FORMAT = 1


def canonical_json(obj) -> str:
    """One text per JSON value: sorted keys, no spaces, so equal values hash equally."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=True, default=jsonable)


def jsonable(x):
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
    return hashlib.sha256(canonical_json(item).encode()).hexdigest()[:20]


def record_checksum(body: dict) -> str:
    """SHA-256 of the canonical JSON of a record's body (item, rows, provenance)."""
    return hashlib.sha256(canonical_json(body).encode()).hexdigest()


def write_record(store_dir, item: dict, rows: list, prov: dict) -> Path:
    """Write one finished item atomically: temporary file in the same folder, then os.replace."""
    store_dir = Path(store_dir)
    store_dir.mkdir(parents=True, exist_ok=True)
    body = {"format": RECORD_FORMAT, "item": item, "rows": rows, "provenance": prov}
    text = canonical_json({"body": body, "checksum": record_checksum(body)})
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


def write_atomic(path, data) -> Path:
    """Write ``data`` (str or bytes) to ``path`` through a uniquely named temporary file in the
    same folder and ``os.replace``: a reader sees the old file or the new one, never a part, and
    two writers at once never share a temporary name."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".tmp-{path.name}-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


#: why a stored record was not used (see :func:`inspect_record`)
DAMAGE = ("truncated", "corrupt", "tampered", "stale", "newer", "foreign", "unreadable", "not a file")

#: the folder inside a store where records that cannot be used are set aside, never deleted
QUARANTINE = "quarantine"


def inspect_file(path):
    """``(body, None)`` for a sound record file; ``(None, reason)`` otherwise.

    ``reason`` is ``"missing"`` (no file), ``"not a file"`` (a folder, a FIFO, a device where the
    record should be: it is never opened), ``"unreadable"`` (the file cannot be read, e.g. no
    permission), ``"truncated"`` (a JSON text cut short, e.g. a write cut short or an empty
    file), ``"corrupt"`` (not UTF-8 or not JSON), ``"tampered"`` (its checksum does not match
    its content), ``"stale"`` (written in an older record format), ``"newer"`` (written in a
    newer record format, by a newer version of this package) or ``"foreign"`` (its name is not
    the key of the item it holds). Nothing is changed.
    """
    path = Path(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None, "missing"
    except OSError:
        return None, "unreadable"
    if not stat.S_ISREG(st.st_mode):
        return None, "not a file"
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError:
        return None, "unreadable"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, "corrupt"
    try:
        rec = json.loads(text)
    except ValueError:
        # a record is one JSON object: a text that stops before its closing brace was cut short
        return None, "corrupt" if text.rstrip().endswith("}") else "truncated"
    try:
        body = rec["body"]
        if rec["checksum"] != record_checksum(body):
            return None, "tampered"
        fmt = body.get("format")
        if fmt != RECORD_FORMAT:
            return None, "newer" if isinstance(fmt, int) and fmt > RECORD_FORMAT else "stale"
        if path.stem != item_key(body["item"]):
            return None, "foreign"
    except (KeyError, TypeError, AttributeError, ValueError):
        return None, "corrupt"
    return body, None


def inspect_record(store_dir, item: dict):
    """``(body, None)`` for a sound record of ``item`` in ``store_dir``; ``(None, reason)``
    otherwise, with the reasons of :func:`inspect_file` (``"foreign"``: the file of ``item``'s
    key holds another item). Nothing is changed.
    """
    body, reason = inspect_file(Path(store_dir) / f"{item_key(item)}.json")
    if body is not None and canonical_json(body["item"]) != canonical_json(item):
        return None, "foreign"
    return body, reason


def quarantine(path, reason: str) -> Path:
    """Move ``path`` (a record file, or whatever stands in its place) into the ``quarantine/``
    folder of its store as ``<name>.<reason>[.<n>]``, so that its item can be redone while
    nothing stored is lost. Returns the new path."""
    path = Path(path)
    folder = path.parent / QUARANTINE
    folder.mkdir(exist_ok=True)
    tag = "".join(c if c.isalnum() else "-" for c in reason)[:40]
    target = folder / f"{path.name}.{tag}"
    n = 1
    while os.path.lexists(target):
        n += 1
        target = folder / f"{path.name}.{tag}.{n}"
    os.rename(path, target)
    return target


def read_record(store_dir, item: dict, damaged: list | None = None, move: bool = True):
    """The stored record body of ``item``, or ``None`` if absent or damaged (see
    :func:`inspect_record`).

    A damaged record is moved into the store's ``quarantine/`` folder (:func:`quarantine`) so
    that its item is redone and nothing is deleted; ``move=False`` changes nothing. With a list
    ``damaged``, the pair ``(file name, reason)`` is appended to it, so that the caller can say
    what it set aside.
    """
    body, reason = inspect_record(store_dir, item)
    if reason in DAMAGE:
        path = Path(store_dir) / f"{item_key(item)}.json"
        if move:
            quarantine(path, reason)
        if damaged is not None:
            damaged.append((path.name, reason))
    return body


def is_record_name(name: str) -> bool:
    """Whether ``name`` is the file name of a record (``<20 hex digits>.json``)."""
    stem, _, ext = name.partition(".")
    return ext == "json" and len(stem) == 20 and all(c in "0123456789abcdef" for c in stem)


def iter_records(folder, strict: bool = False):
    """The bodies (item, rows, provenance) of the record files in ``folder``, in name order.

    The one reader of the record format outside the store itself, and a missing folder has no
    records. Hidden files (a write in progress, ``.tmp-*``) and folders are not records. By
    default a file that is not a complete record is skipped (nothing is checked or changed; see
    :func:`read_record` for that). With ``strict=True`` every file is judged by
    :func:`inspect_file` and a damaged one is refused: ``ValueError`` naming the file and the
    reason, for readers of committed results whose numbers a chapter prints."""
    folder = Path(folder)
    if not folder.is_dir():
        return
    for p in sorted(folder.glob("*.json")):
        if p.name.startswith("."):
            continue
        if strict:
            body, reason = inspect_file(p)
            if body is None:
                raise ValueError(f"damaged record {p} ({reason}): restore it (git checkout) or recompute its item")
            yield body
            continue
        if not p.is_file():
            continue
        try:
            body = json.loads(p.read_text())["body"]
        except (ValueError, KeyError, TypeError, UnicodeDecodeError, OSError):
            continue
        if isinstance(body, dict):
            yield body


def records_table(bodies, columns=()) -> pd.DataFrame:
    """The rows of record ``bodies`` (as :func:`iter_records` yields them) as one table, in the
    bodies' order, with ``columns`` first in that order and any others after them by name: a
    record stores a row's keys sorted, so a set's reader names its columns' order here."""
    table = pd.DataFrame([r for b in bodies for r in b["rows"]])
    lead = [c for c in columns if c in table.columns]
    return table[lead + sorted(c for c in table.columns if c not in lead)]


def committed_records(figure: str, scale: str = "paper", root=None):
    """The record bodies of ``figure`` at ``scale`` in the result store (``<root>/<figure>/<scale>/records``)."""
    return iter_records(results_dir(figure, scale, root) / "records")


def results_dir(figure: str, scale: str, root=None) -> Path:
    """Where the command line keeps ``figure`` at ``scale``: ``<root>/<figure>/<scale>``."""
    from resnet_nb.core import paths

    return paths.results_dir(figure, scale, root)


def load_results(figure: str, scale: str = "paper", root=None):
    """The committed table and provenance of ``figure`` at ``scale``, or ``(None, None)``."""
    d = results_dir(figure, scale, root)
    if not (d / "table.csv").exists() or not (d / "provenance.json").exists():
        return None, None
    return pd.read_csv(d / "table.csv"), json.loads((d / "provenance.json").read_text())


# -- provenance: where and with what a record was computed ------------------------------------


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


def report_unused(store_dir, damaged: list, outdated: list, strays: list, compute: bool) -> None:
    """Say on stderr, by name, which stored files of ``store_dir`` were not used and where they went
    (``damaged``, ``outdated`` and ``strays``: lists of ``(file name, reason)``)."""

    def say(text):
        print(text, file=sys.stderr, flush=True)

    where = f"moved to {Path(store_dir) / QUARANTINE}" if compute else "left in place (collect changes nothing)"
    if damaged:
        counts = {r: sum(1 for _, x in damaged if x == r) for r in DAMAGE}
        summary = ", ".join(f"{n} {r}" for r, n in counts.items() if n)
        what = "redone" if compute else "left out"
        say(f"{store_dir}: {len(damaged)} damaged record(s) {where} and {what}: {summary}")
        for name, reason in damaged:
            say(f"  {name}: {reason}")
    if outdated:
        what = "redone" if compute else "left out"
        say(
            f"{store_dir}: {len(outdated)} record(s) made by other code or versions {where} and {what} "
            "(--keep-stale reuses them and lists them as stale):"
        )
        for name, why in outdated:
            say(f"  {name}: {why}")
    if strays:
        say(f"{store_dir}: {len(strays)} file(s) that are not records of this configuration, {where}:")
        for name, why in strays:
            say(f"  {name}: {why}")


def record_item(store_dir, item: dict, compute) -> list:
    """The rows of one work item of a result set kept outside a figure's run (``fig3_sharpness``,
    ``fig8/dense``, ``hm_conv``): read back from its sound record in ``store_dir``, else
    ``compute()`` (a list of row dicts) is called and its rows stored with :func:`provenance`,
    the wall time and the finishing time. A damaged record is moved to the store's
    ``quarantine/`` folder and redone (reported, as in :func:`run_items`), so an interrupted set
    resumes with the items it had not finished."""
    damaged: list = []
    body = read_record(store_dir, item, damaged)
    if body is not None:
        return body["rows"]
    if damaged:
        report_unused(store_dir, damaged, [], [], compute=True)
    t0 = time.perf_counter()
    rows = json.loads(canonical_json(compute()))  # the rows exactly as they will be read back
    prov = dict(
        provenance(),
        wall_time_s=round(time.perf_counter() - t0, 3),
        finished_utc=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    )
    write_record(store_dir, item, rows, prov)
    return rows
