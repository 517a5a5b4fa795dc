"""Theorem 3.2 of Hardt & Ma and its key lemma (Lemma 3.3 / B.2) (chapter: book/hardt_ma_expressivity.ipynb):
the construction that fits ``n`` labelled points with ``O(n log n + r^2)`` parameters.

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
``t``. For points on the unit sphere the margin is at least ``rho / 2``, but a random projection
changes norms, and the margin can turn negative: see :func:`resnet_nb.hardt_ma.relu.network.margins`
and the chapter.
"""

from __future__ import annotations

import math

import numpy as np
from tqdm.auto import tqdm

from resnet_nb.core.checks import require_choice, require_float, require_int
from resnet_nb.hardt_ma.relu.network import (
    ReLUResNet,
    as_points,
    margins,
    parameter_count,
    projection_A0,
    relu_block,
    separation,
)

__all__ = [
    "lemma_block",
    "surrogate_vectors",
    "theorem32_construction",
    "projected_margins",
    "paper_order_failure",
    "surrogate_inner_products",
    "construction_steps",
    "construction_fit_error",
    "exact_fits",
]


def lemma_block(H, idx, targets, k: int | None = None, safety: float = 0.5):
    """The key lemma: a block ``x -> x + V relu(U x + b)`` with ``U, V`` of size (k, k) that maps
    the columns ``H[:, idx]`` to ``targets`` and fixes every other column of ``H``.

    Needs every centre's margin (:func:`margins`) to be positive; uses
    ``delta = safety * margin``. Returns ``(U, V, b, report)``; ``report`` holds the margins
    and the two errors of the lemma's specification, measured on ``H``: ``moved_error`` =
    max |block(h_i) - t_i| over centres, ``fixed_error`` = max |block(h_j) - h_j| over the rest.
    """
    H = as_points("H", H)
    kdim, n = H.shape
    idx = np.asarray(idx, dtype=np.int64)
    if idx.ndim != 1 or idx.size == 0 or len(set(idx.tolist())) != idx.size:
        raise ValueError(f"idx must be a non-empty list of distinct column indices, got {idx.tolist()}")
    if idx.min() < 0 or idx.max() >= n:
        raise ValueError(f"idx must lie in [0, {n}), got {idx.tolist()}")
    k = kdim if k is None else require_int("k", k)
    if k != kdim or idx.size > k:
        raise ValueError(
            f"a block of width k = {k} works on points of dimension k and moves at most k of "
            f"them; got dimension {kdim} and {idx.size} points"
        )
    T = as_points("targets", targets)
    if T.shape != (kdim, idx.size):
        raise ValueError(f"targets must have shape {(kdim, idx.size)}, got {T.shape}")
    safety = require_float("safety", safety, low=0.0, high=1.0, low_open=True, high_open=True)
    mg = margins(H, idx)
    if np.any(mg <= 0):
        bad = int(np.argmin(mg))
        raise ValueError(
            f"point {int(idx[bad])} has margin {mg[bad]:.3g} <= 0: some other point x has "
            "<z, x> >= ||z||^2, so no hidden unit relu(<z, x> - c) fires at z alone"
        )
    Z = H[:, idx]
    # a lone point (n = 1) has no other point to stay clear of: its margin is inf, and any
    # positive delta works; take the one a point at distance ||z|| would allow (at least 1)
    delta = safety * np.where(np.isfinite(mg), mg, np.maximum((Z**2).sum(0), 1.0))
    U = np.zeros((k, k))
    V = np.zeros((k, k))
    b = np.full(k, -1.0)  # unused units: relu(-1) = 0 everywhere
    m = idx.size
    U[:m] = Z.T
    b[:m] = -((Z**2).sum(0) - delta)
    V[:, :m] = (T - Z) / delta
    out = relu_block(H, U, V, b)
    rest = np.ones(n, dtype=bool)
    rest[idx] = False
    report = dict(
        margins=mg,
        moved_error=float(np.abs(out[:, idx] - T).max()),
        fixed_error=float(np.abs(out[:, rest] - H[:, rest]).max()) if rest.any() else 0.0,
    )
    return U, V, b, report


def surrogate_vectors(r: int, k: int, radius: float, seed: int = 0) -> np.ndarray:
    """``r`` surrogate vectors of norm ``radius`` in R^k (columns), random directions.

    Raises if two of them nearly coincide (they must be told apart by the last block)."""
    r, k = require_int("r", r), require_int("k", k)
    radius = require_float("radius", radius, low=0.0, low_open=True)
    rng = np.random.default_rng(seed)
    Q = rng.standard_normal((k, r))
    Q = radius * Q / np.linalg.norm(Q, axis=0)
    if margins(Q, np.arange(r)).min() <= 1e-6 * radius**2:  # one surrogate: its margin is inf
        raise ValueError(f"surrogates nearly coincide for r = {r}, k = {k}; use a larger k or another seed")
    return Q


def theorem32_construction(
    X,
    labels,
    k: int | None = None,
    r: int | None = None,
    seed: int = 0,
    selection: str = "greedy",
    safety: float = 0.5,
    progress: bool = False,  # pragma: no mutate (display only: a progress bar)
):
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
    X = as_points("X", X)
    d, n = X.shape
    labels, r = _checked_labels(labels, n, r)
    require_choice("selection", selection, ["paper", "greedy"])
    k = min(d, math.ceil(6 * math.log(max(n, 2)))) if k is None else require_int("k", k)  # ceil(6 ln 2) = 5 at least
    A0, H = _projection(X, k, seed)
    radius = 0.5 * float(np.linalg.norm(H, axis=0).min())
    Q = surrogate_vectors(r, k, radius, seed=seed + 1)
    net = ReLUResNet(A0)
    unmoved = np.arange(n)
    report = dict(k=k, r=r, n=n, radius=radius, block_margins=[], moved_error=0.0, fixed_error=0.0)
    pbar = None
    if progress:  # pragma: no mutate (display only: a progress bar)
        pbar = tqdm(total=n, desc=f"Theorem 3.2 construction (n={n}, k={k})", leave=False)  # pragma: no mutate
    greedy = _MarginTracker(H) if selection == "greedy" else None
    while unmoved.size:
        idx = unmoved[:k] if greedy is None else greedy.pick(unmoved, k)
        U, V, b, rep = lemma_block(H, idx, Q[:, labels[idx]], k=k, safety=safety)
        net.blocks.append((U, V, b))
        H = relu_block(H, U, V, b)
        if greedy is not None:
            greedy.moved(H, idx)
        report["block_margins"].append(rep["margins"])
        # np.max, not max: a NaN error must show in the report, not be dropped by max(0.0, nan)
        report["moved_error"] = float(np.max([report["moved_error"], rep["moved_error"]]))
        report["fixed_error"] = float(np.max([report["fixed_error"], rep["fixed_error"]]))
        unmoved = unmoved[~np.isin(unmoved, idx)]
        if pbar is not None:
            pbar.update(idx.size)
    if pbar is not None:
        pbar.close()
    net.last = _last_block(Q, radius, safety)
    report["blocks"] = len(net.blocks)
    report["min_margin"] = float(min(m.min() for m in report["block_margins"]))
    return net, report


def _last_block(Q, radius: float, safety: float):
    """The last block ``(U, V, b)``: each surrogate ``q_c`` (a column of ``Q``) to the one-hot ``e_c``."""
    r = Q.shape[1]
    dq = radius**2 / 2 if r == 1 else safety * margins(Q, np.arange(r)).min()
    return (Q.T.copy(), np.eye(r) / dq, -((Q**2).sum(0) - dq))


def _checked_labels(labels, n: int, r):
    """The labels as an array of ``n`` non-negative integers below ``r`` (default: the largest + 1), and ``r``."""
    labels = np.asarray(labels)
    if labels.shape != (n,) or not np.issubdtype(labels.dtype, np.integer) or labels.min() < 0:
        raise ValueError(f"labels must be {n} non-negative integers, got shape {labels.shape}, dtype {labels.dtype}")
    r = int(labels.max()) + 1 if r is None else require_int("r", r)
    if labels.max() >= r:
        raise ValueError(f"labels must be < r = {r}, got {labels.max()}")
    return labels, r


def _projection(X, k: int, seed: int):
    """``A0 = G / sqrt(k)`` (``G`` standard Gaussian, seeded) and the projected points ``A0 X``;
    refuses points that are identical, or that the projection merges."""
    n = X.shape[1]
    # exact comparison first: separation's Gram formula rounds, and may see identical points apart
    if n > 1 and np.unique(X, axis=1).shape[1] < n:
        raise ValueError("X has two identical points: they cannot be given different outputs")
    A0 = np.random.default_rng(seed).standard_normal((k, X.shape[0])) / math.sqrt(k)
    H = A0 @ X
    if n > 1 and separation(H) <= 0:  # identical inputs stay identical after projecting
        if separation(X) <= 0:
            raise ValueError("X has two identical points: they cannot be given different outputs")
        raise ValueError("the projection merged two points; use a larger k or another seed")
    return A0, H


class _MarginTracker:
    """The greedy selection's margins: ``M[i, j] = ||h_i||^2 - <h_i, h_j>`` for every point ``i`` and
    ``j`` (diagonal excluded) and each row's minimum, the margin of point ``i``.

    Only the columns of moved points change, so each block updates ``k`` columns instead of all
    ``n``; a row's minimum is rescanned in full only when it sat in a changed column and did not drop.
    """

    def __init__(self, H):
        self.M = (H**2).sum(0)[:, None] - H.T @ H
        np.fill_diagonal(self.M, np.inf)
        self.rowmin, self.argmin = self.M.min(axis=1), self.M.argmin(axis=1)
        self.alive = np.ones(H.shape[1], dtype=bool)

    def pick(self, unmoved, k: int):
        """The (at most ``k``) unmoved points of largest positive margin."""
        mg = self.rowmin[unmoved]
        order = np.argsort(-mg)
        idx = unmoved[order[:k]]
        idx = idx[mg[order[:k]] > 0]
        if idx.size == 0:
            raise ValueError("no remaining point has a positive margin")
        return idx

    def moved(self, H, idx):
        """Update the margins after the points ``idx`` moved (``H``: the points now)."""
        M = self.M
        M[:, idx] = (H**2).sum(0)[:, None] - H.T @ H[:, idx]
        M[idx, idx] = np.inf
        self.alive[idx] = False
        cols = M[:, idx]
        cmin, carg = cols.min(axis=1), idx[cols.argmin(axis=1)]
        in_idx = np.zeros(M.shape[0], dtype=bool)
        in_idx[idx] = True
        stale = in_idx[self.argmin]
        better = cmin < self.rowmin
        self.rowmin = np.where(better, cmin, self.rowmin)
        self.argmin = np.where(better, carg, self.argmin)
        redo = np.flatnonzero(stale & ~better & self.alive)
        if redo.size:
            self.rowmin[redo], self.argmin[redo] = M[redo].min(axis=1), M[redo].argmin(axis=1)


def projected_margins(X, k: int, seed: int = 0) -> dict:
    """Margins of the points ``A0 x_i`` after the projection ``A0 = G / sqrt(k)`` used by
    :func:`theorem32_construction` (same seed, same ``A0``).

    Returns the smallest margin over all points (``<= 0`` means the paper's order fails at
    the first block that contains that point), the fraction of points with a positive
    margin, and the range of projected norms."""
    X = as_points("X", X)
    k = require_int("k", k)
    A0 = np.random.default_rng(seed).standard_normal((k, X.shape[0])) / math.sqrt(k)
    H = A0 @ X
    mg = margins(H, np.arange(H.shape[1]))
    norms = np.linalg.norm(H, axis=0)
    return dict(
        k=k,
        min_margin=float(mg.min()),
        exposed=float((mg > 0).mean()),
        min_norm=float(norms.min()),
        max_norm=float(norms.max()),
    )


def paper_order_failure(X, k: int, seed: int = 0) -> dict:
    """Where the construction in the paper's order (points in the given order, ``k`` per block)
    refuses, without building it: ``dict(fails, block, point)``.

    Same projection as :func:`theorem32_construction` with the same ``seed``. A centre ``z_i`` of
    block ``b`` is blocked exactly when some point ``h_j`` that is not moved before block ``b``
    (``j // k >= b``, ``j != i``) has ``<z_i, h_j> >= ||z_i||^2``: points moved earlier sit at
    surrogates of norm at most ``||z_i|| / 2``, where ``||z_i||^2 - <z_i, q> >= ||z_i||^2 / 2 > 0``.
    ``block`` is the first refusing block (0-based; ``None`` if none), ``point`` the centre of
    smallest margin there, as :func:`lemma_block` reports it."""
    X = as_points("X", X)
    k = require_int("k", k)
    d, n = X.shape
    H = projection_A0(d, k, seed) @ X
    M = (H**2).sum(0)[:, None] - H.T @ H  # M[i, j] = ||h_i||^2 - <h_i, h_j>
    blk = np.arange(n) // k
    M[blk[None, :] < blk[:, None]] = np.inf  # j moved before i's block: never blocks i
    np.fill_diagonal(M, np.inf)
    mg = M.min(axis=1)
    bad = np.flatnonzero(mg <= 0)
    if bad.size == 0:
        return dict(fails=False, block=None, point=None)
    b = int(blk[bad].min())
    members = np.flatnonzero(blk == b)
    return dict(fails=True, block=b, point=int(members[np.argmin(mg[members])]))


def surrogate_inner_products(r: int, k: int, draws: int = 2000, seed: int = 0) -> dict:
    """For ``r`` random unit vectors in R^k (the paper's surrogates), the fraction of ``draws`` in
    which every pairwise inner product is below 0.5 (and, for the absolute value, |.| < 0.5)."""
    r, k, draws = require_int("r", r, minimum=2), require_int("k", k), require_int("draws", draws)
    rng = np.random.default_rng(seed)
    Q = rng.standard_normal((draws, k, r))
    Q /= np.linalg.norm(Q, axis=1, keepdims=True)
    G = np.einsum("dki,dkj->dij", Q, Q)
    iu = np.triu_indices(r, 1)
    off = G[:, iu[0], iu[1]]
    return dict(
        r=r, k=k, below=float((off.max(axis=1) < 0.5).mean()), abs_below=float((np.abs(off).max(axis=1) < 0.5).mean())
    )


def construction_steps(n: int = 6, r: int = 3, seed: int = 3) -> dict:
    """A planar toy of the construction, for the chapter's key figure: ``n`` points on the unit
    circle (evenly spread, slightly jittered) with ``r`` labels, width ``k = 2`` and no projection.
    Each block moves the (at most two) not-yet-moved points of largest positive margin onto the
    surrogate of their label (norm one half), by :func:`lemma_block`.

    Returns ``dict(states, moved, centres, deltas, Q, labels)``: the points after each block
    (``states[0]`` the input), the indices moved by each block, and, per block, the rows of ``U``
    (the centres ``z``) and the ``delta``: unit ``a`` fires exactly where ``<z_a, h> > ||z_a||^2 - delta_a``."""
    n, r = require_int("n", n, minimum=2), require_int("r", r)
    g = np.random.default_rng(seed)
    ang = 2 * np.pi * (np.arange(n) + 0.25 * g.uniform(-1, 1, n)) / n
    H = np.vstack([np.cos(ang), np.sin(ang)])
    labels = np.arange(n) % r
    qa = 2 * np.pi * (np.arange(r) + 0.5) / r
    Q = 0.5 * np.vstack([np.cos(qa), np.sin(qa)])
    states, moved, centres, deltas = [H.copy()], [], [], []
    unmoved = np.arange(n)
    while unmoved.size:
        mg = margins(H, unmoved)
        order = np.argsort(-mg)[:2]
        idx = unmoved[order][mg[order] > 0]
        U, V, b, rep = lemma_block(H, idx, Q[:, labels[idx]], k=2)
        centres.append(U[: idx.size].copy())
        deltas.append((U[: idx.size] ** 2).sum(1) + b[: idx.size])
        H = relu_block(H, U, V, b)
        states.append(H.copy())
        moved.append(idx)
        unmoved = np.setdiff1d(unmoved, idx)
    return dict(states=states, moved=moved, centres=centres, deltas=deltas, Q=Q, labels=labels)


def construction_fit_error(X, y, r, k, selection, seed: int = 0):
    """Largest |output - one-hot| of the construction, or inf when it refuses (a margin <= 0)."""
    try:
        net, rep = theorem32_construction(X, y, k=k, r=r, selection=selection, seed=seed)
    except ValueError as exc:
        return math.inf, 0.0, str(exc)[:90], None
    scale = max(float(np.abs(V).max()) for _, V, _ in net.blocks)
    return float(np.abs(net(X) - np.eye(r)[:, y]).max()), scale, "", parameter_count(net)


def exact_fits(datasets: dict, sizes=(250, 500, 1000, 2000), r: int = 10) -> list[dict]:
    """Theorem 3.2's construction on the first ``n`` points of each data set, for each ``n`` in
    ``sizes`` (``datasets``: name -> (X, y), points as columns, labels in ``0..r-1``): one row per fit
    with its width ``k``, blocks, ``ceil(n / k)``, worst error against the one-hot targets, smallest
    margin and parameter counts (:func:`parameter_count`)."""
    rows = []
    for name, (X, y) in datasets.items():
        for n in sizes:
            net, rep = theorem32_construction(X[:, :n], y[:n], r=r)
            err = np.abs(net(X[:, :n]) - np.eye(r)[:, y[:n]]).max()
            rows.append(
                dict(
                    data=name,
                    n=n,
                    k=rep["k"],
                    blocks=rep["blocks"],
                    ceil_n_over_k=math.ceil(n / rep["k"]),
                    max_error=err,
                    min_margin=rep["min_margin"],
                    **parameter_count(net),
                )
            )
    return rows
