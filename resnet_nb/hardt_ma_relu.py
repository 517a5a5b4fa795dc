"""Hardt & Ma, section 3: finite-sample expressivity of ReLU residual networks (Theorem 3.2).

The network (samples are columns, as everywhere in the book)::

    h_0 = A_0 x                                  A_0 (k, d): a fixed random projection
    h_j = h_{j-1} + V_j relu(U_j h_{j-1} + b_j)  j = 1 .. l; U_j, V_j (k, k), b_j (k,)
    y   = V relu(U h_l + b)                      the last block: U (r, k), V (r, r), b (r,)

The construction (:func:`theorem32_construction`): give every class ``c`` a *surrogate*
vector ``q_c`` in R^k; each residual block moves ``k`` not-yet-moved points onto the
surrogates of their labels and leaves every other point exactly where it is
(:func:`lemma_block`, the paper's key lemma); the last block sends ``q_c`` to the one-hot
vector ``e_c``. With ``k ~ log n`` and ``l = ceil(n / k)`` blocks the count is
``l (2k^2 + k) + r k + r^2 + r = O(n log n + r^2)`` trainable parameters.

How one block isolates a point. For a centre ``z`` and the current points ``x``, the
*margin* is ``min_{x != z} (||z||^2 - <z, x>)``. If it is positive, the hidden unit
``relu(<z, x> - ||z||^2 + delta)`` with ``0 < delta <= margin`` is ``delta`` at ``x = z`` and
exactly 0 at every other point; the column ``(t - z) / delta`` of ``V`` then moves ``z`` to
``t``. For points on the unit sphere the margin is ``rho^2 / 2`` (``rho``: the separation),
but a random projection changes norms, and the margin can turn negative: see
:func:`margins` and the chapter.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from ._checks import check_choice, check_float, check_int

__all__ = ["ReLUResNet", "relu_block", "separation", "margins", "lemma_block",
           "surrogate_vectors", "theorem32_construction", "parameter_count", "unit_norm_columns",
           "projected_margins", "lemma_b1_hypotheses", "lemma_b1_paper", "lemma_b1_counterexamples", "construction_view"]


def _as_points(name: str, X) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] == 0 or X.shape[0] == 0:
        raise ValueError(f"{name} must be a 2-d array (dimension, points) with at least one point, "
                         f"got shape {X.shape}")
    if not np.isfinite(X).all():
        raise ValueError(f"{name} must have finite entries")
    return X


def unit_norm_columns(X) -> np.ndarray:
    """Scale every column of ``X`` (d, n) to unit Euclidean norm (the paper's Assumption 3.1)."""
    X = _as_points("X", X)
    norms = np.linalg.norm(X, axis=0)
    if np.any(norms == 0):
        raise ValueError("X has a zero column; it cannot be scaled to unit norm")
    return X / norms


def relu_block(H, U, V, b) -> np.ndarray:
    """One residual block ``H + V relu(U H + b)`` applied to the columns of ``H``."""
    return H + V @ np.maximum(U @ H + b[:, None], 0.0)


def separation(X) -> float:
    """``rho = min_{i != j} ||x_i - x_j||`` over the columns of ``X``."""
    X = _as_points("X", X)
    sq = (X ** 2).sum(0)
    D2 = sq[:, None] + sq[None, :] - 2 * X.T @ X
    np.fill_diagonal(D2, np.inf)
    return float(math.sqrt(max(D2.min(), 0.0)))


def margins(H, idx) -> np.ndarray:
    """For each centre ``H[:, i]`` (``i`` in ``idx``): ``min_{j != i} ||h_i||^2 - <h_i, h_j>``."""
    H = _as_points("H", H)
    idx = np.asarray(idx, dtype=np.int64)
    Z = H[:, idx]
    M = (Z ** 2).sum(0)[:, None] - Z.T @ H  # (len(idx), n)
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
        X = _as_points("X", X)
        if X.shape[0] != self.A0.shape[1]:
            raise ValueError(f"X must have {self.A0.shape[1]} rows, got {X.shape[0]}")
        H = self.A0 @ X
        for U, V, b in self.blocks:
            H = relu_block(H, U, V, b)
        return H

    def trajectory(self, X) -> list:
        """``[h_0, h_1, ..., h_l]``: the hidden states after the projection and each block."""
        X = _as_points("X", X)
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
    return dict(residual=blocks, last=last, trainable=blocks + last, projection=net.A0.size,
                total=blocks + last + net.A0.size)


def lemma_block(H, idx, targets, k: int | None = None, safety: float = 0.5):
    """The key lemma: a block ``x -> x + V relu(U x + b)`` with ``U, V`` of size (k, k) that maps
    the columns ``H[:, idx]`` to ``targets`` and fixes every other column of ``H``.

    Needs every centre's margin (:func:`margins`) to be positive; uses
    ``delta = safety * margin``. Returns ``(U, V, b, report)``; ``report`` holds the margins
    and the two errors of the lemma's specification, measured on ``H``: ``moved_error`` =
    max |block(h_i) - t_i| over centres, ``fixed_error`` = max |block(h_j) - h_j| over the rest.
    """
    H = _as_points("H", H)
    kdim, n = H.shape
    idx = np.asarray(idx, dtype=np.int64)
    if idx.ndim != 1 or idx.size == 0 or len(set(idx.tolist())) != idx.size:
        raise ValueError(f"idx must be a non-empty list of distinct column indices, got {idx.tolist()}")
    if idx.min() < 0 or idx.max() >= n:
        raise ValueError(f"idx must lie in [0, {n}), got {idx.tolist()}")
    k = kdim if k is None else check_int("k", k)
    if k != kdim or idx.size > k:
        raise ValueError(f"a block of width k = {k} works on points of dimension k and moves at most k of "
                         f"them; got dimension {kdim} and {idx.size} points")
    T = _as_points("targets", targets)
    if T.shape != (kdim, idx.size):
        raise ValueError(f"targets must have shape {(kdim, idx.size)}, got {T.shape}")
    safety = check_float("safety", safety, low=0.0, high=1.0, low_open=True, high_open=True)
    mg = margins(H, idx)
    if np.any(mg <= 0):
        bad = int(np.argmin(mg))
        raise ValueError(f"point {int(idx[bad])} has margin {mg[bad]:.3g} <= 0: some other point x has "
                         "<z, x> >= ||z||^2, so no hidden unit relu(<z, x> - c) fires at z alone")
    delta = safety * mg
    Z = H[:, idx]
    U = np.zeros((k, k))
    V = np.zeros((k, k))
    b = np.full(k, -1.0)  # unused units: relu(-1) = 0 everywhere
    m = idx.size
    U[:m] = Z.T
    b[:m] = -((Z ** 2).sum(0) - delta)
    V[:, :m] = (T - Z) / delta
    out = relu_block(H, U, V, b)
    rest = np.setdiff1d(np.arange(n), idx)
    report = dict(margins=mg, moved_error=float(np.abs(out[:, idx] - T).max()),
                  fixed_error=float(np.abs(out[:, rest] - H[:, rest]).max()) if rest.size else 0.0)
    return U, V, b, report


def surrogate_vectors(r: int, k: int, radius: float, seed: int = 0) -> np.ndarray:
    """``r`` surrogate vectors of norm ``radius`` in R^k (columns), random directions.

    Raises if two of them nearly coincide (they must be told apart by the last block)."""
    r, k = check_int("r", r), check_int("k", k)
    radius = check_float("radius", radius, low=0.0, low_open=True)
    rng = np.random.default_rng(seed)
    Q = rng.standard_normal((k, r))
    Q = radius * Q / np.linalg.norm(Q, axis=0)
    if r > 1 and margins(Q, np.arange(r)).min() <= 1e-6 * radius ** 2:
        raise ValueError(f"surrogates nearly coincide for r = {r}, k = {k}; use a larger k or another seed")
    return Q


def theorem32_construction(X, labels, k: int | None = None, r: int | None = None, seed: int = 0,
                           selection: str = "greedy", safety: float = 0.5, progress: bool = False):
    """Build a network that maps every column of ``X`` (d, n) exactly to the one-hot vector
    of its label (Theorem 3.2, constructively).

    k : width (default ``ceil(6 log n)``, at most d). The projection is ``A0 = G / sqrt(k)``
        with ``G`` standard Gaussian (Johnson-Lindenstrauss).
    selection : ``"paper"`` moves the points in the given order, ``k`` per block, and raises
        when a centre's margin is not positive; ``"greedy"`` (our adjustment) moves, in each
        block, the ``k`` not-yet-moved points of largest positive margin. The point of largest
        norm always has a margin >= 0, so greedy never gets stuck on distinct points.
    Surrogates have norm half the smallest projected norm, so moved points never fire a
    later centre's unit (our adjustment; see the chapter).

    Returns ``(net, report)`` with per-block margins and lemma errors.
    """
    X = _as_points("X", X)
    d, n = X.shape
    labels = np.asarray(labels)
    if labels.shape != (n,) or not np.issubdtype(labels.dtype, np.integer) or labels.min() < 0:
        raise ValueError(f"labels must be {n} non-negative integers, got shape {labels.shape}, "
                         f"dtype {labels.dtype}")
    r = int(labels.max()) + 1 if r is None else check_int("r", r)
    if labels.max() >= r:
        raise ValueError(f"labels must be < r = {r}, got {labels.max()}")
    check_choice("selection", selection, ["paper", "greedy"])
    k = min(d, max(2, math.ceil(6 * math.log(max(n, 2))))) if k is None else check_int("k", k)
    rng = np.random.default_rng(seed)
    A0 = rng.standard_normal((k, d)) / math.sqrt(k)
    H = A0 @ X
    if n > 1 and separation(H) <= 0:  # identical inputs stay identical after projecting
        if separation(X) <= 0:
            raise ValueError("X has two identical points: they cannot be given different outputs")
        raise ValueError("the projection merged two points; use a larger k or another seed")
    radius = 0.5 * float(np.linalg.norm(H, axis=0).min())
    Q = surrogate_vectors(r, k, radius, seed=seed + 1)
    net = ReLUResNet(A0)
    unmoved = np.arange(n)
    report = dict(k=k, r=r, n=n, radius=radius, block_margins=[], moved_error=0.0, fixed_error=0.0)
    pbar = tqdm(total=n, desc=f"Theorem 3.2 construction (n={n}, k={k})", leave=False) if progress else None
    if selection == "greedy":
        # M[i, j] = ||h_i||^2 - <h_i, h_j> for every point i and j (diagonal excluded); only the
        # columns of moved points change, so each block updates k columns instead of all n.
        M = (H ** 2).sum(0)[:, None] - H.T @ H
        np.fill_diagonal(M, np.inf)
    while unmoved.size:
        if selection == "paper":
            idx = unmoved[:k]
        else:
            mg = M[unmoved].min(axis=1)
            order = np.argsort(-mg)
            idx = unmoved[order[:k]]
            idx = idx[mg[order[:k]] > 0]
            if idx.size == 0:
                raise ValueError("no remaining point has a positive margin")
        U, V, b, rep = lemma_block(H, idx, Q[:, labels[idx]], k=k, safety=safety)
        net.blocks.append((U, V, b))
        H = relu_block(H, U, V, b)
        if selection == "greedy":
            M[:, idx] = (H ** 2).sum(0)[:, None] - H.T @ H[:, idx]
            M[idx, idx] = np.inf
        report["block_margins"].append(rep["margins"])
        report["moved_error"] = max(report["moved_error"], rep["moved_error"])
        report["fixed_error"] = max(report["fixed_error"], rep["fixed_error"])
        unmoved = np.setdiff1d(unmoved, idx)
        if pbar is not None:
            pbar.update(idx.size)
    if pbar is not None:
        pbar.close()
    # last block: q_c -> e_c
    if r == 1:
        dq = radius ** 2 / 2
    else:
        dq = safety * margins(Q, np.arange(r)).min()
    net.last = (Q.T.copy(), np.eye(r) / dq, -((Q ** 2).sum(0) - dq))
    report["blocks"] = len(net.blocks)
    report["min_margin"] = float(min(m.min() for m in report["block_margins"]))
    return net, report


def projected_margins(X, k: int, seed: int = 0) -> dict:
    """Margins of the points ``A0 x_i`` after the projection ``A0 = G / sqrt(k)`` used by
    :func:`theorem32_construction` (same seed, same ``A0``).

    Returns the smallest margin over all points (``<= 0`` means the paper's order fails at
    the first block that contains that point), the fraction of points with a positive
    margin, and the range of projected norms."""
    X = _as_points("X", X)
    k = check_int("k", k)
    A0 = np.random.default_rng(seed).standard_normal((k, X.shape[0])) / math.sqrt(k)
    H = A0 @ X
    mg = margins(H, np.arange(H.shape[1]))
    norms = np.linalg.norm(H, axis=0)
    return dict(k=k, min_margin=float(mg.min()), exposed=float((mg > 0).mean()),
                min_norm=float(norms.min()), max_norm=float(norms.max()))


# ----------------------------------------------------------------------------------------------
# Lemma B.1 exactly as printed, to test it against its own hypotheses
# ----------------------------------------------------------------------------------------------

def lemma_b1_hypotheses(alpha, S, rho_prime: float) -> dict:
    """Check the printed hypotheses of Lemma B.1 for the columns of ``alpha``:
    (a) ``1 - rho' <= ||alpha_i||^2 <= 1 + rho'`` for all i; (b) ``||alpha_i - alpha_j|| >= 3 rho'``
    whenever ``i != j`` and ``S`` contains ``i`` or ``j``."""
    alpha = _as_points("alpha", alpha)
    rho_prime = check_float("rho_prime", rho_prime, low=0.0, low_open=True)
    S = np.asarray(S, dtype=np.int64)
    n2 = (alpha ** 2).sum(0)
    sq = n2[:, None] + n2[None, :] - 2 * alpha.T @ alpha
    D = np.sqrt(np.maximum(sq, 0.0))
    np.fill_diagonal(D, np.inf)
    min_dist = float(D[S].min())
    return dict(norms_ok=bool(np.all((n2 >= 1 - rho_prime) & (n2 <= 1 + rho_prime))),
                separation_ok=min_dist >= 3 * rho_prime, min_norm2=float(n2.min()),
                max_norm2=float(n2.max()), min_dist=min_dist)


def lemma_b1_paper(alpha, S, beta, rho_prime: float):
    """The construction in the proof of Lemma B.1, as printed: rows of ``U`` are ``alpha_i``
    (i in S), the bias is ``-(1 - 2 rho') 1`` for every unit, and column i of ``V`` is
    ``(beta_i - alpha_i) / (||alpha_i||^2 - (1 - 2 rho'))``.

    Returns ``(U, V, s, report)`` with the errors of the lemma's specification: ``moved_error``
    over ``S`` and ``fixed_error`` (largest displacement) over the other columns."""
    alpha = _as_points("alpha", alpha)
    rho_prime = check_float("rho_prime", rho_prime, low=0.0, low_open=True)
    S = np.asarray(S, dtype=np.int64)
    k, n = alpha.shape
    beta = _as_points("beta", beta)
    if beta.shape != (k, S.size):
        raise ValueError(f"beta must have shape {(k, S.size)}, got {beta.shape}")
    U = np.zeros((k, k))
    V = np.zeros((k, k))
    U[:S.size] = alpha[:, S].T
    s = np.full(k, -(1 - 2 * rho_prime))
    V[:, :S.size] = (beta - alpha[:, S]) / ((alpha[:, S] ** 2).sum(0) - (1 - 2 * rho_prime))
    out = relu_block(alpha, U, V, s)
    rest = np.setdiff1d(np.arange(n), S)
    return U, V, s, dict(moved_error=float(np.abs(out[:, S] - beta).max()),
                         fixed_error=float(np.abs(out[:, rest] - alpha[:, rest]).max()) if rest.size else 0.0)


def lemma_b1_counterexamples(rho_prime: float = 0.1) -> dict:
    """Two planar configurations that satisfy Lemma B.1's printed hypotheses.

    ``"pair"``: two points of squared norm ``1 + rho'`` at distance ``3 rho'``; the printed
    construction, asked to move the first, moves the second too.
    ``"hull"``: a point of squared norm ``1 - rho'`` inside the convex hull of four points of
    squared norm ``1 + rho'``; no ReLU unit is positive at it and zero at the other four."""
    rho_prime = check_float("rho_prime", rho_prime, low=0.0, high=0.2, low_open=True)
    # a hair inside the allowed norms and outside the required distance, against rounding
    r_out, r_in = math.sqrt((1 + rho_prime) * (1 - 1e-9)), math.sqrt((1 - rho_prime) * (1 + 1e-9))
    phi = 2 * math.asin(3 * rho_prime * (1 + 1e-6) / (2 * r_out))
    pair = r_out * np.array([[1.0, math.cos(phi)], [0.0, math.sin(phi)]])
    ang = np.deg2rad([20.0, -20.0, 60.0, -60.0])
    hull = np.column_stack([[r_in, 0.0], r_out * np.vstack([np.cos(ang), np.sin(ang)])])
    return dict(pair=pair, hull=hull)



def construction_view(n: int, k: int, r: int, axes=None, step=None, seed: int = 0, dim: int = 20):
    """Scatter ``n`` random unit points with ``r`` labels as the Theorem 3.2 network moves them,
    in a random 2-D view of its k-dimensional hidden space: the input and the output of the
    blocks (``step=None``), or the state after block ``step``."""
    import matplotlib.pyplot as plt

    g = np.random.default_rng(seed)
    X = unit_norm_columns(g.standard_normal((dim, n)))
    y = g.integers(0, r, n)
    net, rep = theorem32_construction(X, y, k=k, r=r, seed=seed)
    states = net.trajectory(X)
    view = np.linalg.qr(g.standard_normal((k, 2)))[0].T
    err = np.abs(net(X) - np.eye(r)[:, y]).max()
    shown = [0, len(states) - 1] if step is None else [step]
    axes = np.atleast_1d(axes if axes is not None else plt.subplots(1, 2, figsize=(9, 4))[1])
    for ax, j in zip(axes, shown):
        ax.clear()
        P = view @ states[j]
        ax.scatter(P[0], P[1], c=y, cmap="tab10", vmin=0, vmax=9, s=12)
        ax.set(xlim=(-2, 2), ylim=(-2, 2), aspect="equal",
               title=f"after block {j} of {len(states) - 1} (n={n}, k={k}, r={r})")
    axes[-1].set_xlabel(f"{rep['blocks']} blocks, {parameter_count(net)['trainable']} parameters, "
                        f"max error {err:.0e}")
    return axes
