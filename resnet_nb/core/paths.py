"""Where the repository keeps what every chapter reads and writes (book/*.ipynb): one place for every path.

``ROOT`` is the repository checkout (two folders above this file). The stored experiment
results live under ``RESULTS`` (``results/<figure>/<scale>/``), the performance measurements
under ``BENCHMARKS``, the chapters under ``BOOK`` and the lists of numbers quoted from the
papers under ``QUOTES``. Set ``RESNET_NB_RESULTS`` to read and write results elsewhere.
Derived data that is only a speed-up (the parsed MNIST digits) lives under ``CACHE``
(``.cache/resnet_nb`` in the checkout, git-ignored; ``RESNET_NB_CACHE`` moves it).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["ROOT", "RESULTS", "BENCHMARKS", "BOOK", "QUOTES", "results_dir", "benchmark_file", "CACHE"]

ROOT = Path(__file__).resolve().parents[2]
RESULTS = Path(os.environ.get("RESNET_NB_RESULTS", ROOT / "results"))
BENCHMARKS = ROOT / "benchmarks"
BOOK = ROOT / "book"
QUOTES = BOOK / "quotes"
CACHE = Path(os.environ.get("RESNET_NB_CACHE", ROOT / ".cache" / "resnet_nb"))


def results_dir(figure: str | None = None, scale: str | None = None, root=None) -> Path:
    """``results/`` (or ``root``), ``results/<figure>`` or ``results/<figure>/<scale>``."""
    path = Path(root) if root is not None else RESULTS
    if figure is not None:
        path = path / figure
        if scale is not None:
            path = path / scale
    elif scale is not None:
        raise ValueError("scale needs a figure")
    return path


def benchmark_file(name: str = "latest.json") -> Path:
    """A file of ``benchmarks/`` (default the latest performance table)."""
    return BENCHMARKS / name
