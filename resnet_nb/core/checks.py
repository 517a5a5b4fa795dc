"""Argument checks for every chapter (book/*.ipynb): each public function checks its input at the door.

Each helper raises with a message that names the argument, what it got and what is allowed, so
a reader never meets a NaN or a traceback from deep inside torch: :class:`ArgumentTypeError` for
a value of the wrong type (a string for a depth), ``ValueError`` for a value of the right type
out of range. :class:`ArgumentTypeError` is a ``TypeError`` (as in scikit-learn) and also a
``ValueError``, so that code which caught every bad argument as ``ValueError`` still does.
"""

from __future__ import annotations

import numbers

import numpy as np
import torch


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type."""


def require_int(name: str, value, minimum: int = 1) -> int:
    """Return ``value`` as an int, or raise if it is not an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ArgumentTypeError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value}")
    return int(value)


def require_float(name: str, value, low=None, high=None, low_open=False, high_open=False) -> float:
    """Return ``value`` as a finite float inside the stated interval, or raise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ArgumentTypeError(f"{name} must be a finite real number, got {value!r}")
    if not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    value = float(value)
    lo_ok = low is None or (value > low if low_open else value >= low)
    hi_ok = high is None or (value < high if high_open else value <= high)
    if not (lo_ok and hi_ok):
        lb = "(" if low_open else "["
        rb = ")" if high_open else "]"
        interval = f"{lb}{'-inf' if low is None else low}, {'inf' if high is None else high}{rb}"
        raise ValueError(f"{name} must lie in {interval}, got {value}")
    return value


def require_choice(name: str, value, allowed) -> str:
    """Raise unless ``value`` is one of ``allowed``."""
    allowed = list(allowed)
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def as_matrix(name: str, value, rows=None, cols=None, dtype=torch.float64) -> torch.Tensor:
    """Convert ``value`` to a finite 2-d float tensor of the stated shape, or raise."""
    try:
        t = torch.as_tensor(np.asarray(value) if not isinstance(value, torch.Tensor) else value)
    except Exception as exc:  # pragma: no cover - exotic input
        raise ValueError(f"{name} must be a 2-d array of numbers, got {type(value).__name__}") from exc
    if t.ndim != 2:
        raise ValueError(f"{name} must be a 2-d array, got shape {tuple(t.shape)}")
    if rows is not None and t.shape[0] != rows:
        raise ValueError(f"{name} must have {rows} rows, got shape {tuple(t.shape)}")
    if cols is not None and t.shape[1] != cols:
        raise ValueError(f"{name} must have {cols} columns, got shape {tuple(t.shape)}")
    if not (t.is_floating_point() or t.dtype in (torch.int32, torch.int64, torch.uint8, torch.int16)):
        raise ValueError(f"{name} must hold real numbers, got dtype {t.dtype}")
    t = t.to(dtype)
    if not torch.isfinite(t).all():
        bad = int((~torch.isfinite(t)).sum())
        raise ValueError(f"{name} contains {bad} NaN or infinite entries; all entries must be finite")
    return t
