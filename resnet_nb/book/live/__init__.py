"""The live explorers' build-time exports (book/*.ipynb): data and cross-check cases.

Each module of this package serves one chapter's explorers (``theorem1.py`` for
``data-live="theorem1-hessian"`` in book/theorem1.ipynb, ...) and defines

* ``EXPLORERS``: the names of its explorers (the ``data-live`` attribute, and the JavaScript
  file ``scripts/site_static/live-<name>.js``);
* ``export_cases() -> {name: [case, ...]}``: inputs and the package's outputs, each case a dict
  ``{"label": str, "input": {...}, "output": {...}, "rtol": float}``; the browser test runs the
  page's ``resnetLive.compute[name](input)`` and compares every key of ``output`` (numbers and
  nested lists of numbers) to a relative ``rtol`` (max |page - package| / max |package|);
* optionally ``export_data() -> {name: JSON}``: what the page loads (``api.data``).

Modules are discovered with :mod:`pkgutil`: adding a module is all it takes. The book build writes
``_static/live/<name>.data.json`` and ``<name>.cases.json`` (``scripts/live_export.py``);
``python -m resnet_nb.book.live DIR`` writes the same files into DIR.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
import pkgutil
import shutil
from pathlib import Path
from types import ModuleType

import numpy as np

from resnet_nb.core.paths import CACHE, ROOT

__all__ = ["modules", "explorers", "to_json", "write_all", "source_key"]


def modules() -> list[ModuleType]:
    """Every exporter module of this package, in name order."""
    out = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{__name__}.{info.name}")
        if not hasattr(mod, "EXPLORERS") or not hasattr(mod, "export_cases"):
            raise TypeError(f"{mod.__name__} must define EXPLORERS and export_cases()")
        out.append(mod)
    return out


def explorers() -> dict[str, ModuleType]:
    """``{explorer name: its exporter module}``; a name declared twice is an error."""
    out: dict[str, ModuleType] = {}
    for mod in modules():
        for name in mod.EXPLORERS:
            if name in out:
                raise ValueError(f"explorer {name!r} is declared by {out[name].__name__} and {mod.__name__}")
            out[name] = mod
    return out


def to_json(obj):
    """Plain JSON values from numpy/torch numbers and arrays; a non-finite number is an error
    naming where it is (JSON has no NaN), except ``math.inf`` written as the string "inf"."""

    def conv(x, where):
        if hasattr(x, "detach"):  # a torch tensor
            x = x.detach().cpu().numpy()
        if isinstance(x, np.ndarray):
            return [conv(v, f"{where}[{i}]") for i, v in enumerate(x.tolist())]
        if isinstance(x, (np.floating, np.integer, np.bool_)):
            x = x.item()
        if isinstance(x, float):
            if math.isnan(x):
                raise ValueError(f"{where} is NaN: a case must hold finite numbers")
            if math.isinf(x):
                return "inf" if x > 0 else "-inf"
            return x
        if isinstance(x, dict):
            return {str(k): conv(v, f"{where}.{k}") for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [conv(v, f"{where}[{i}]") for i, v in enumerate(x)]
        if x is None or isinstance(x, (bool, int, str)):
            return x
        raise TypeError(f"{where} has type {type(x).__name__}, which JSON cannot hold")

    return conv(obj, "value")


def _check_cases(name: str, cases) -> None:
    if not cases:
        raise ValueError(f"explorer {name!r} exports no cases")
    for i, c in enumerate(cases):
        missing = {"label", "input", "output", "rtol"} - set(c)
        if missing:
            raise ValueError(f"case {i} of explorer {name!r} lacks {sorted(missing)}")


def source_key(root=ROOT) -> str:
    """A hash of the package's sources and the lock under ``root``: the exports change only
    when it does."""
    root = Path(root)
    h = hashlib.sha256()
    files = sorted((root / "resnet_nb").rglob("*.py")) + [root / "requirements.txt"]
    for f in files:
        if f.is_file():
            h.update(str(f.relative_to(root)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def write_all(outdir, cases: bool = True, cache: bool = True) -> list[Path]:
    """Write ``<name>.data.json`` (when the module exports data) and, with ``cases``,
    ``<name>.cases.json`` for every explorer into ``outdir``; returns the paths written.

    With ``cache`` the files are computed once per :func:`source_key` into
    ``<CACHE>/live/<key>/`` (some exports diagonalise Hessians of thousands of parameters)
    and copied from there."""
    outdir = Path(outdir)
    if cache:
        store = CACHE / "live" / (source_key() + ("" if cases else "-data"))
        if not (store / "complete").is_file():
            for old in store.parent.glob("*"):  # exports of older sources
                if old.is_dir() and not old.name.startswith(store.name.split("-")[0]):
                    shutil.rmtree(old)
            if store.exists():
                shutil.rmtree(store)
            write_all(store, cases=cases, cache=False)
            (store / "complete").write_text("")
        outdir.mkdir(parents=True, exist_ok=True)
        written = []
        for f in sorted(store.glob("*.json")):
            shutil.copy(f, outdir / f.name)
            written.append(outdir / f.name)
        return written
    outdir.mkdir(parents=True, exist_ok=True)
    written = []
    for mod in modules():
        data = mod.export_data() if hasattr(mod, "export_data") else {}
        for name, payload in data.items():
            if name not in mod.EXPLORERS:
                raise ValueError(f"{mod.__name__}.export_data() names {name!r}, not one of its EXPLORERS")
            p = outdir / f"{name}.data.json"
            p.write_text(json.dumps(to_json(payload), allow_nan=False, separators=(",", ":")))
            written.append(p)
        if cases:
            exported = mod.export_cases()
            for name in mod.EXPLORERS:
                _check_cases(name, exported.get(name))
                p = outdir / f"{name}.cases.json"
                p.write_text(json.dumps(to_json(exported[name]), allow_nan=False, separators=(",", ":")))
                written.append(p)
    return written
