"""The result store of the experiment chapters' engine (book/exp_*.ipynb): one checksummed record
file per work item, written atomically, read back, and judged sound or damaged.

A record ``<key>.json`` holds ``{"body": {"format", "item", "rows", "provenance"}, "checksum"}``
where ``key`` is :func:`item_key` of the item and ``checksum`` the SHA-256 of the canonical JSON
of the body. :func:`iter_records` is the one reader of a folder of records (the engine's
summaries, the figures' provenance counts, the book's time tables, and with ``strict=True``,
which refuses a damaged file, the sets kept beside the figures' runs: ``results/fig3_sharpness``,
``results/fig8/dense``, ``results/hm_conv``, ``results/t1d_long_sweep`` and
``results/hm_thm32``, each in its ``records/`` folder); :func:`records_table` puts their rows
in one table; :func:`load_results` reads a figure's summary (``table.csv`` and
``provenance.json``). :mod:`.engine` re-exports these names.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
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
    "inspect_file",
    "inspect_record",
    "read_record",
    "iter_records",
    "records_table",
    "committed_records",
    "results_dir",
    "load_results",
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


#: why a stored record was not used (see :func:`inspect_record`)
DAMAGE = ("truncated", "tampered", "stale", "foreign")


def inspect_file(path):
    """``(body, None)`` for a sound record file; ``(None, reason)`` otherwise.

    ``reason`` is ``"missing"`` (no file), ``"truncated"`` (not complete JSON, e.g. a write cut
    short), ``"tampered"`` (its checksum does not match its content), ``"stale"`` (written in
    another record format) or ``"foreign"`` (its name is not the key of the item it holds).
    Nothing is deleted.
    """
    path = Path(path)
    if not path.exists():
        return None, "missing"
    try:
        rec = json.loads(path.read_text())
    except (ValueError, UnicodeDecodeError):
        return None, "truncated"
    try:
        body = rec["body"]
        if rec["checksum"] != record_checksum(body):
            return None, "tampered"
        if body.get("format") != RECORD_FORMAT:
            return None, "stale"
        if path.stem != item_key(body["item"]):
            return None, "foreign"
    except (KeyError, TypeError, AttributeError, ValueError):
        return None, "truncated"
    return body, None


def inspect_record(store_dir, item: dict):
    """``(body, None)`` for a sound record of ``item`` in ``store_dir``; ``(None, reason)``
    otherwise, with the reasons of :func:`inspect_file` (``"foreign"``: the file of ``item``'s
    key holds another item). Nothing is deleted.
    """
    body, reason = inspect_file(Path(store_dir) / f"{item_key(item)}.json")
    if body is not None and canonical_json(body["item"]) != canonical_json(item):
        return None, "foreign"
    return body, reason


def read_record(store_dir, item: dict, damaged: list | None = None):
    """The stored record body of ``item``, or ``None`` if absent, truncated, tampered, stale
    or foreign (see :func:`inspect_record`).

    A damaged record is deleted so that it is redone; with a list ``damaged``, the pair
    ``(file name, reason)`` is appended to it, so that the caller can say what it redid.
    """
    body, reason = inspect_record(store_dir, item)
    if reason in DAMAGE:
        path = Path(store_dir) / f"{item_key(item)}.json"
        path.unlink()
        if damaged is not None:
            damaged.append((path.name, reason))
    return body


def iter_records(folder, strict: bool = False):
    """The bodies (item, rows, provenance) of the record files in ``folder``, in name order.

    The one reader of the record format outside the store itself, and a missing folder has no
    records. By default a file that is not a complete record is skipped (nothing is checked or
    deleted; see :func:`read_record` for that). With ``strict=True`` every file is judged by
    :func:`inspect_file` and a damaged one (truncated, tampered, stale or foreign) is refused:
    ``ValueError`` naming the file and the reason, for readers of committed results whose
    numbers a chapter prints."""
    folder = Path(folder)
    if not folder.is_dir():
        return
    for p in sorted(folder.glob("*.json")):
        if strict:
            body, reason = inspect_file(p)
            if body is None:
                raise ValueError(f"damaged record {p} ({reason}): restore it (git checkout) or recompute its item")
            yield body
            continue
        try:
            body = json.loads(p.read_text())["body"]
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
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
