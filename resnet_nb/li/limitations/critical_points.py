"""Limitations of Li et al. (chapter: book/li_limitations.ipynb), (d): Section 5.2, loss and
index at the exact critical points of a linear 2-shortcut network."""

from __future__ import annotations

import itertools
import math

import numpy as np
import torch
from torch.func import grad as _fgrad

from resnet_nb.core import claims
from resnet_nb.core.checks import require_float, require_int
from resnet_nb.core.data import Dataset, synthetic_linear
from resnet_nb.core.hessians import hessian, hessian_linear, loss_function, resolution_floor, spectrum
from resnet_nb.core.losses import loss
from resnet_nb.core.networks import ShortcutNetwork, flatten

__all__ = [
    "whitened_synthetic",
    "critical_points",
    "zero_eigen_counts",
    "spearman_test",
    "discordant_pairs",
    "widest_discordant_pair",
    "index_ordered_by_rank",
    "claim_index_vs_loss",
]

# ==========================================================================================
# (d) Section 5.2: loss and index at critical points
# ==========================================================================================


def whitened_synthetic(d: int = 4, m: int = 400, seed: int = 0) -> Dataset:
    """Hardt & Ma's linear model (``synthetic_linear``) with the inputs whitened exactly (Sxx = I)."""
    data = synthetic_linear(d, m, seed=seed)
    S = data.X @ data.X.T / data.m
    evals, evecs = torch.linalg.eigh(S)
    Xw = evecs @ torch.diag(evals**-0.5) @ evecs.T @ data.X
    return Dataset(Xw, data.Y, info=dict(data.info, whitened=True))


def critical_points(data=None, R: int = 2, descending: bool = False):
    """Every critical point of a linear 2-shortcut network built from singular directions.

    With ``Sxx = I`` the loss depends on ``M = W_end - I`` as ``1/2 ||M - T||_F^2 + const``,
    ``T = Syx - I``. With ``T = sum_i s_i u_i v_i^T`` and any subset S of the directions,
    unit 1 set to ``W_1 = sum_{i in S} sqrt(s_i) e_i v_i^T``, ``W_2 = sum_{i in S} sqrt(s_i) u_i e_i^T``
    and the other units zero gives ``M = sum_{i in S} s_i u_i v_i^T``, a critical point (the
    zero units contribute no gradient, n = 2). Returns a DataFrame with one row per subset:
    the subset, the loss, the gradient norm, the index (fraction of eigenvalues below
    ``-P eps |lambda|max``), the counts, and the worst autograd-Kronecker difference.
    """
    import pandas as pd

    data = whitened_synthetic() if data is None else data
    stats = data.stats()
    d = stats.d
    net = ShortcutNetwork(d, 2, require_int("R", R))
    T = stats.Syx - torch.eye(d, dtype=torch.float64) @ stats.Sxx
    U, s, Vh = torch.linalg.svd(T)
    f = loss_function(net, stats)
    rows = []
    for k in range(d + 1):
        for S in itertools.combinations(range(d), k):
            W = torch.zeros(net.shape, dtype=torch.float64)
            for i in S:
                W[0, 0, i] = s[i].sqrt() * Vh[i]
                W[0, 1, :, i] = s[i].sqrt() * U[:, i]
            Hk = hessian_linear(net, W, stats)
            Ha = hessian(net, W, stats)
            e = spectrum(Hk)
            floor = resolution_floor(e)
            neg = int((e < -floor).sum())
            rows.append(
                dict(
                    kept=",".join(str(i + 1) for i in S) or "none",
                    rank=len(S),
                    loss=float(loss(net, W, stats)),
                    grad=float(_fgrad(f)(flatten(W)).norm()),
                    index=neg / e.size,
                    negative=neg,
                    zero=int((np.abs(e) <= floor).sum()),
                    H_diff=float((Ha - Hk).abs().max()),
                    H_size=float(Hk.abs().max()),
                )
            )
    df = pd.DataFrame(rows).sort_values("loss", ascending=not descending, ignore_index=True)
    df.attrs.update(singular_values=s.numpy(), P=net.num_params, net=net)
    return df


def spearman_test(x, y, permutations: int = 10000, q: float = 99.0, seed: int = 0):
    """Spearman's rank correlation of x and y and the q-th percentile of its permutation null.

    The null pairs x with ``permutations`` random permutations of y (seeded ``seed``). A constant
    x or y has no rank correlation: rho and every value of the null are 0.
    """
    from scipy.stats import rankdata

    permutations = require_int("permutations", permutations)
    q = require_float("q", q, 0.0, 100.0)
    rx, ry = rankdata(x), rankdata(y)

    def rho(a, b):
        a, b = a - a.mean(), b - b.mean()
        den = math.sqrt((a**2).sum() * (b**2).sum())
        return float((a * b).sum() / den) if den > 0 else 0.0

    rng = np.random.default_rng(seed)
    perm = rng.permuted(np.tile(ry, (permutations, 1)), axis=1)
    a, b = rx - rx.mean(), perm - perm.mean(1, keepdims=True)
    den = np.sqrt((a**2).sum() * (b**2).sum(1))
    null = np.divide(b @ a, den, out=np.zeros(permutations), where=den > 0)  # a constant: 0, not NaN
    return rho(rx, ry), float(np.percentile(null, q))


def discordant_pairs(df) -> int:
    """Pairs of critical points whose index is strictly lower at strictly larger loss."""
    lo, ix = df["loss"].to_numpy(), df["index"].to_numpy()
    return int(sum(1 for i in range(len(lo)) for j in range(len(lo)) if lo[i] < lo[j] and ix[i] > ix[j]))


def widest_discordant_pair(df):
    """The discordant pair (lower loss, higher index) with the largest loss gap: two rows."""
    lo, ix = df["loss"].to_numpy(), df["index"].to_numpy()
    pairs = [(lo[j] - lo[i], i, j) for i in range(len(lo)) for j in range(len(lo)) if lo[i] < lo[j] and ix[i] > ix[j]]
    if not pairs:
        raise ValueError("no discordant pair: the index is strictly increasing in the loss")
    _, i, j = max(pairs)
    return df.iloc[i], df.iloc[j]


def index_ordered_by_rank(df) -> bool:
    """True when every point keeping k directions has a larger index than every point keeping k + 1."""
    g = df.groupby("rank")["index"].agg(["min", "max"]).sort_index()
    return bool((g["max"].to_numpy()[1:] < g["min"].to_numpy()[:-1]).all())


def zero_eigen_counts(df) -> dict:
    """Zero eigenvalues at the full fit and at the all-zero point, beside their prediction.

    At the full fit, unit 1 keeps every direction and has the symmetry ``W_1 -> A W_1``,
    ``W_2 -> W_2 A^-1`` (A in GL(d)): d^2 flat directions. Each idle (zero) unit has a Hessian
    block ``G``-weighted only (its first derivatives of the end-to-end map vanish), and the
    residual G is 0 at the full fit: 2 d^2 more per idle unit. At the all-zero point nothing
    predicts a zero eigenvalue (the off-diagonal blocks are ``-T``, of full rank).
    """
    net = df.attrs["net"]
    d2 = net.d * net.d
    rows = df.set_index("kept")["zero"]
    full = ",".join(str(i + 1) for i in range(net.d))
    return dict(
        full=int(rows[full]),
        none=int(rows["none"]),
        symmetry=d2,
        idle=(net.R - 1) * net.n * d2,
        predicted_full=d2 + (net.R - 1) * net.n * d2,
    )


INDEX_TITLE = "Section 5.2: larger loss, larger index"
INDEX_LINE = "{points} critical points; discordant pairs: {discordant}"
#: the direction the rank test states (the falsifier: the index decreases with the loss)
INDEX_DIRECTION = {False: dict(trend="increases", sign=""), True: dict(trend="decreases", sign="-")}
INDEX_TABLE = (
    claims.Part("the points are critical", "max ||grad L||", "grad_max", "gtol", "{gcrit}"),
    claims.Part(
        "Hessians, two routes",
        "max |H_autograd - H_Kronecker|",
        "H_diff",
        "tol",
        "{crit}",
        nontrivial="size",
        nontrivial_what="max |H|",
    ),
    claims.Part(
        "index {trend} with loss",
        "Spearman rho(loss, {sign}index)",
        "rho",
        "thr",
        "99th percentile of rho over 10,000 random pairings",
        op=">=",
        nontrivial="spread",
        nontrivial_what="range of the index",
    ),
)


@claims.claim(
    "li-5.2-index-loss",
    source="Li et al., Section 5.2 (citing Dauphin et al., 2014)",
    statement=r"At the exact critical points of a linear 2-shortcut network ($d = 4$, $R = 2$, whitened "
    r"synthetic data) built from subsets of the target's singular directions, the index "
    r"increases with the loss: Spearman's rank correlation exceeds the 99th percentile of "
    r"its permutation null.",
    verdict="holds",
    falsifier="the index decreases with the loss (the same rank test on minus the index)",
    falsifier_kind="implied by the check",
    where=["book/li_limitations.ipynb", "tests/li/test_limitations.py"],
)
def claim_index_vs_loss(falsify: bool = False) -> claims.Check:
    df = critical_points()
    P = df.attrs["P"]
    size = float(df["H_size"].max())
    tol, crit = claims.eps_criterion(P, size)
    gtol, gcrit = claims.eps_criterion(P, max(size, 1.0))
    sign = -1.0 if falsify else 1.0
    rho, thr = spearman_test(df["loss"].to_numpy(), sign * df["index"].to_numpy())
    values = dict(
        size=size,
        tol=tol,
        crit=crit,
        gtol=gtol,
        gcrit=gcrit,
        grad_max=float(df["grad"].max()),
        H_diff=float(df["H_diff"].max()),
        rho=rho,
        thr=thr,
        spread=float(df["index"].max() - df["index"].min()),
        points=len(df),
        discordant=discordant_pairs(df),
        **INDEX_DIRECTION[bool(falsify)],
    )
    res = claims.all_of(INDEX_TITLE, claims.checks_from(INDEX_TABLE, values), [INDEX_LINE.format_map(values)])
    res.values.update(values)
    return res
