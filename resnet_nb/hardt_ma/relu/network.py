"""The ReLU residual network of Hardt & Ma, section 3 (chapter: book/hardt_ma_expressivity.ipynb):
the network, its points, their separation and margins, the projection ``A_0``.

The network (samples are columns, as everywhere in the book)::

    h_0 = A_0 x                                  A_0 (k, d): a fixed random projection
    h_j = h_{j-1} + V_j relu(U_j h_{j-1} + b_j)  j = 1 .. l; U_j, V_j (k, k), b_j (k,)
    y   = V relu(U h_l + b)                      the last block: U (r, k), V (r, r), b (r,)

``rho`` is the paper's (and the chapter's) separation, a bound on *squared* distances,
``||x_i - x_j||^2 >= rho`` (Assumption 3.1; :func:`paper_rho`); :func:`separation` returns the
smallest distance itself, whose square is ``rho``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "as_points",
    "unit_norm_columns",
    "relu_block",
    "separation",
    "paper_rho",
    "margins",
    "ReLUResNet",
    "parameter_count",
    "projection_A0",
    "random_unit_draw",
]


def as_points(name: str, X) -> np.ndarray:
    """``X`` as a finite float64 array (dimension, points) with at least one point, or a ValueError
    naming ``name``."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.size == 0:
        raise ValueError(f"{name} must be a 2-d array (dimension, points) with at least one point, got shape {X.shape}")
    if not np.isfinite(X).all():
        raise ValueError(f"{name} must have finite entries")
    return X


def unit_norm_columns(X) -> np.ndarray:
    """Scale every column of ``X`` (d, n) to unit Euclidean norm (the paper's Assumption 3.1)."""
    X = as_points("X", X)
    norms = np.linalg.norm(X, axis=0)
    if np.any(norms == 0):
        raise ValueError("X has a zero column; it cannot be scaled to unit norm")
    return X / norms


def relu_block(H, U, V, b) -> np.ndarray:
    """One residual block ``H + V relu(U H + b)`` applied to the columns of ``H``."""
    return H + V @ np.maximum(U @ H + b[:, None], 0.0)


def separation(X) -> float:
    """The smallest distance ``min_{i != j} ||x_i - x_j||`` over the columns of ``X``.

    Its square is the paper's ``rho`` (:func:`paper_rho`), which bounds squared distances."""
    X = as_points("X", X)
    sq = (X**2).sum(0)
    D2 = sq[:, None] + sq[None, :] - 2 * X.T @ X
    np.fill_diagonal(D2, np.inf)
    return float(math.sqrt(max(D2.min(), 0.0)))


def paper_rho(X) -> float:
    """The paper's separation ``rho = min_{i != j} ||x_i - x_j||^2`` (Assumption 3.1: a bound on
    *squared* distances), the square of :func:`separation`."""
    return separation(X) ** 2


def margins(H, idx) -> np.ndarray:
    """For each centre ``H[:, i]`` (``i`` in ``idx``): ``min_{j != i} ||h_i||^2 - <h_i, h_j>``."""
    H = as_points("H", H)
    idx = np.asarray(idx, dtype=np.int64)
    Z = H[:, idx]
    M = (Z**2).sum(0)[:, None] - Z.T @ H  # (len(idx), n)
    M[np.arange(idx.size), idx] = np.inf
    return M.min(axis=1)


@dataclass
class ReLUResNet:
    """The network of Theorem 3.2: projection ``A0``, residual blocks, last block."""

    A0: np.ndarray
    blocks: list = field(default_factory=list)  # (U, V, b) triples
    last: tuple | None = None  # (U, V, b)

    def hidden(self, X) -> np.ndarray:
        """``h_l`` for inputs ``X`` (d, n)."""
        X = as_points("X", X)
        if X.shape[0] != self.A0.shape[1]:
            raise ValueError(f"X must have {self.A0.shape[1]} rows, got {X.shape[0]}")
        H = self.A0 @ X
        for U, V, b in self.blocks:
            H = relu_block(H, U, V, b)
        return H

    def trajectory(self, X) -> list:
        """``[h_0, h_1, ..., h_l]``: the hidden states after the projection and each block."""
        X = as_points("X", X)
        if X.shape[0] != self.A0.shape[1]:
            raise ValueError(f"X must have {self.A0.shape[1]} rows, got {X.shape[0]}")
        states = [self.A0 @ X]
        for U, V, b in self.blocks:
            states.append(relu_block(states[-1], U, V, b))
        return states

    def __call__(self, X) -> np.ndarray:
        """Outputs ``y`` (r, n)."""
        U, V, b = self.last
        return V @ np.maximum(U @ self.hidden(X) + b[:, None], 0.0)


def parameter_count(net: ReLUResNet) -> dict:
    """Trainable parameters (blocks and last block) and the fixed projection, separately."""
    blocks = sum(U.size + V.size + b.size for U, V, b in net.blocks)
    last = sum(a.size for a in net.last) if net.last is not None else 0
    return dict(
        residual=blocks, last=last, trainable=blocks + last, projection=net.A0.size, total=blocks + last + net.A0.size
    )


def projection_A0(d: int, k: int, seed: int) -> np.ndarray:
    """The random projection ``A0 = G / sqrt(k)`` of the proof of Theorem 3.2, drawn from ``seed``
    as :func:`theorem32_construction` draws it."""
    return np.random.default_rng(seed).standard_normal((k, d)) / math.sqrt(k)


def random_unit_draw(seed: int, n: int = 600, d: int = 200, r: int = 10):
    """``n`` random unit points in R^d with ``r`` random labels, drawn from ``seed``."""
    g = np.random.default_rng(seed)
    return unit_norm_columns(g.standard_normal((d, n))), g.integers(0, r, n)
