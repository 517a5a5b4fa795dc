"""Theorem 1 of Li et al. (chapter: book/theorem1.ipynb): part 1 and Definition 4.

For n >= 2 the origin is an (n-1)-th order stationary point: :func:`part1_check` (directional
derivatives of orders 1..n against our closed form of order n), :func:`taylor_remainder_check`
(Definition 4 read off the loss itself, along a line).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from resnet_nb.core import claims
from resnet_nb.core.checks import require_choice, require_int
from resnet_nb.core.claims import PLAUSIBLE, Check, Part, all_of, checks_from, eps_criterion
from resnet_nb.core.hessians import directional_derivatives, hessian, loss_function
from resnet_nb.core.networks import ShortcutNetwork, flatten, unflatten
from resnet_nb.li.theorem1.definition5 import data_matrices, partial_scale, shifted_sigmoid, unfriendly_data3

__all__ = [
    "part1_check",
    "part1_directions",
    "order_n_directional",
    "TAYLOR_READINGS",
    "taylor_remainder_check",
]

# ------------------------------------------------------------------------------------------
# Part 1 and Definition 4
# ------------------------------------------------------------------------------------------


def part1_directions(net, data, count, rng):
    """Unit directions: Gaussian, single-unit, aligned with M's top singular pair, one-short."""
    R, n, d = net.R, net.n, net.d
    Sxs, Sys = data_matrices(net, data)
    U, S, Vh = torch.linalg.svd(Sxs - Sys)
    dirs = []
    for k in range(count):
        kind = ("gaussian", "single_unit", "aligned", "one_short")[k % 4]
        V = torch.zeros(R, n, d, d, dtype=torch.float64)
        if kind == "gaussian":
            V = torch.as_tensor(rng.normal(size=(R, n, d, d)))
        elif kind == "single_unit":
            V[int(rng.integers(R))] = torch.as_tensor(rng.normal(size=(n, d, d)))
        elif kind == "aligned":  # V_{r,n} ... V_{r,1} = u1 v1^T: maximises <prod, M>
            vecs = [Vh[0]] + [torch.as_tensor(rng.normal(size=d)) for _ in range(n - 1)] + [U[:, 0]]
            vecs = [v / v.norm() for v in vecs]
            for r in range(R):
                for l in range(n):
                    V[r, l] = torch.outer(vecs[l + 1], vecs[l])
        else:  # one matrix per unit left at zero: every derivative up to order n vanishes
            V = torch.as_tensor(rng.normal(size=(R, n, d, d)))
            if n >= 2:
                for r in range(R):
                    V[r, int(rng.integers(n))] = 0.0
        v = flatten(V)
        dirs.append((kind, v / v.norm()))
    return dirs


def order_n_directional(net, data, v):
    """Closed form of d^n/dt^n L(t v) at 0: n! c sum_r <V_{r,n} ... V_{r,1}, Sigma_{Xs} - Sigma_{Ys}>
    for n >= 2 (for n = 1 it is the gradient term, same formula)."""
    V = unflatten(v, net)
    Sxs, Sys = data_matrices(net, data)
    c = net.post.d1_at_zero * net.mid.d1_at_zero ** (net.n - 1)
    tot = 0.0
    for r in range(net.R):
        Pr = V[r, 0]
        for l in range(1, net.n):
            Pr = V[r, l] @ Pr
        tot += float((Pr * (Sxs - Sys)).sum())
    return math.factorial(net.n) * c * tot


PART1_TITLE = "Theorem 1, part 1 ({network}): order-{k} stationary"
PART1_TABLE = (
    Part(
        "derivatives of orders 1..{k} vanish ({directions} directions)",
        "max |d^k L(tv)/dt^k| for k = 1..{k}",
        "worst_low",
        "tol",
        "{crit}",
        nontrivial="best_n",
        nontrivial_what="largest |d^{n} L| (order n)",
        nontrivial_min="tol",
    ),
    Part("order n = {n} equals the closed form", "max |AD - closed form|", "worst_n", "tol", "{crit}"),
    Part(
        "exact Hessian at 0 is zero (autograd, #params = {num_params})",
        "max |H|",
        "hmax",
        "tol",
        "{crit}",
        when="hessian_checked",
    ),
)


def part1_check(
    net: ShortcutNetwork,
    data,
    directions: int = 8,
    seed: int = 0,
    hessian_max_params: int = 1200,
    stationary_order: int | None = None,
) -> Check:
    """Theorem 1, part 1: for n >= 2 the origin is an (n-1)-th order stationary point.

    Along unit directions v (random and adversarial), the derivatives d^k/dt^k L(t v) at 0
    for k = 1..n-1 must vanish to rounding, and the n-th must equal our closed form (and so
    be nonzero along the aligned direction: the nontrivial part). For n >= 3 the exact autograd
    Hessian (when P <= ``hessian_max_params``) must be zero. ``stationary_order`` replaces
    n - 1 by another order k (the ledger's falsifier uses k = n: "the order is not sharp").
    The largest order-n derivative must exceed the rounding tolerance, so that the order is sharp.
    """
    directions = require_int("directions", directions)  # none would pass vacuously
    k = net.n - 1 if stationary_order is None else require_int("stationary_order", stationary_order, 0)
    scale = max(1.0, partial_scale(net, data)) * math.factorial(max(k, net.n))
    tol, crit = eps_criterion(net.num_params, scale)
    hessian_checked = net.n >= 3 and net.num_params <= hessian_max_params
    hmax = None
    if hessian_checked:
        hmax = float(hessian(net, torch.zeros(net.shape, dtype=torch.float64), data).abs().max())
    values = dict(
        hmax=hmax,
        tol=tol,
        crit=crit,
        k=k,
        n=net.n,
        directions=directions,
        num_params=net.num_params,
        hessian_checked=hessian_checked,
        network=net.describe(),
        **_directional_extremes(net, data, part1_directions(net, data, directions, np.random.default_rng(seed)), k),
    )
    res = all_of(PART1_TITLE.format_map(values), checks_from(PART1_TABLE, values))
    res.values.update(values)
    return res


def _directional_extremes(net, data, dirs, k: int) -> dict:
    """Along each (kind, v) of ``dirs``, the derivatives d^j/dt^j L(t v) at 0 for j = 1..max(k, n):
    the largest |derivative| of orders 1..k, the largest distance of the order-n one from its closed
    form, and the largest |order-n derivative|."""
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    worst_low, worst_n, best_n = 0.0, 0.0, 0.0
    for _kind, v in dirs:
        ds = directional_derivatives(f, w0, v, max(k, net.n))
        if k >= 1:
            worst_low = max(worst_low, max(abs(x) for x in ds[:k]))
        worst_n = max(worst_n, abs(ds[net.n - 1] - order_n_directional(net, data, v)))
        best_n = max(best_n, abs(ds[net.n - 1]))
    return dict(worst_low=worst_low, worst_n=worst_n, best_n=best_n)


TAYLOR_READINGS = ("k", "2k")
TAYLOR_TITLE = "Definition 4 remainder ({network}, reading {reading})"
TAYLOR_LIMIT_WORDS = {True: "0 (the 2k reading)", False: "the closed form"}
TAYLOR_ROW = "t = {t:.0e}: (L(tv) - L(0)) / t^{n} = {a:+.6e}, (L(-tv) - L(0)) / t^{n} = {b:+.6e}, gap {g:.2e}"
TAYLOR_N1_LINE = "n = 1: Definition 4 with k = 0 holds for every continuous loss; only the gradient term is checked"
TAYLOR_TABLE = (
    Part(
        "(L(tv) - L(0)) / t^{n} tends to {limit_words}",
        "|Q(t) - limit| / |c| at the smallest t",
        "rel",
        "rel_bound",
        "next Taylor term: 10 t at the smallest t = {t_min:g}",
        nontrivial="scale",
        nontrivial_what="|c| = |d^n L / n!|",
    ),
    Part(
        "the remainder vanishes at least like t (limit: {limit_words})",
        "exponent of the gap between t = {t0:g} and {t1:g}",
        "rate_value",
        0.5,
        "1/2 separates exponent >= 1 (order-n term right) from 0 (limit wrong)",
        op=">=",
    ),
)


def taylor_remainder_check(
    net: ShortcutNetwork, data, v=None, ts=(1e-1, 1e-2, 1e-3), seed: int = 0, reading: str = "k"
) -> Check:
    """Definition 4 read off the loss itself, along the line t -> t v.

    Along the direction ``v`` (default: the one that maximises the order-n term), the quotient
    Q(t) = (L(t v) - L(0)) / t^n is compared with the limit that a reading of Definition 4 gives:

    1. limit: at the smallest t, the relative gap |Q(t) - limit| / |c| (c = d^n L / n!, the closed
       form of the proof of Part 1) must be below 10 t (the next Taylor term is O(t) relative to c);
    2. rate: the remainder of the expansion must vanish at least like t. Its measured exponent,
       log(gap(t_1) / gap(t_2)) / log(t_1 / t_2) at the two largest t (far above rounding), must be
       at least 1/2: an exponent is 1 or more when the order-n term is right (the next Taylor term
       is of order n + 1 or higher) and 0 when the limit is wrong (the gap tends to a constant), and
       1/2 separates the two cases.

    ``reading="k"`` is Definition 4 as the book reads it (remainder o(||x - x0||^k), limit c);
    ``reading="2k"`` is the misreading o(||x - x0||^(2k)) with k = n - 1 >= n / 2, which makes the
    limit 0 for n >= 2 (a falsifier: both parts fail, the rate on its own).
    The loss at -t v is reported in the lines: for a linear network it carries no new information,
    because w -> -w multiplies each unit's product W_n...W_1 by (-1)^n, so L(-t v) is L(t v) with t^n
    replaced by (-t)^n. For n = 1, Definition 4 with k = n - 1 = 0 says nothing (every continuous
    function qualifies); the check then only confirms the first-order (gradient) term.
    """
    require_choice("reading", reading, TAYLOR_READINGS)
    ts = [float(t) for t in ts]
    if len(ts) < 2 or any(t <= 0 for t in ts) or sorted(ts, reverse=True) != ts or len(set(ts)) < len(ts):
        raise ValueError(f"ts must hold at least two positive values in decreasing order, got {ts}")
    if v is None:
        v = [d for k, d in part1_directions(net, data, 3, np.random.default_rng(seed)) if k == "aligned"][0]
    n = net.n
    closed = order_n_directional(net, data, v) / math.factorial(n)
    limit = 0.0 if (reading == "2k" and n >= 2) else closed
    values = dict(
        limit=limit,
        closed=closed,
        n=n,
        reading=reading,
        network=net.describe(),
        limit_words=TAYLOR_LIMIT_WORDS[limit == 0.0 and closed != 0.0],
        t_min=ts[-1],
        t0=ts[0],
        t1=ts[1],
        rel_bound=10 * ts[-1],
        **_taylor_gaps(loss_function(net, data), v, ts, n, limit, abs(closed)),
    )
    lines = [TAYLOR_ROW.format(t=t, a=a, b=b, g=g, n=n) for (t, a, b), g in zip(values["rows"], values["gaps"])]
    if n == 1:
        lines.append(TAYLOR_N1_LINE)
    res = all_of(TAYLOR_TITLE.format_map(values), checks_from(TAYLOR_TABLE, values), lines)
    res.values.update(values)
    return res


def _taylor_gaps(f, v, ts, n: int, limit: float, scale: float) -> dict:
    """The quotients (L(+-t v) - L(0)) / t^n at each t, their gaps from ``limit`` relative to
    ``scale`` = |c| (infinite when c = 0), the gap at the smallest t (forwards and backwards, where
    the limit is (-1)^n ``limit``) and the gap's exponent between the two largest t."""
    w0 = torch.zeros(v.numel(), dtype=torch.float64)
    L0 = float(f(w0))
    rows = [(t, (float(f(w0 + t * v)) - L0) / t**n, (float(f(w0 - t * v)) - L0) / t**n) for t in ts]
    gaps = [abs(a - limit) / scale if scale else math.inf for _, a, _ in rows]
    g0, g1 = gaps[0], gaps[1]
    if not (math.isfinite(g0) and math.isfinite(g1)):  # no order-n term to compare with
        rate = -math.inf
    elif g0 > 0 and g1 > 0:
        rate = math.log(g0 / g1) / math.log(ts[0] / ts[1])
    else:  # a gap of exactly 0 at the largest t's is no evidence of a rate
        rate = math.nan
    return dict(
        rows=rows,
        gaps=gaps,
        scale=scale,
        rel=gaps[-1],
        rel_back=abs(rows[-1][2] - (-1) ** n * limit) / scale if scale else math.inf,
        rate=rate,
        rate_value=rate if math.isfinite(rate) else -math.inf,
    )


# ------------------------------------------------------------------------------------------
# Claims (see resnet_nb.book.ledger)
# ------------------------------------------------------------------------------------------

WHERE = ["book/theorem1.ipynb", "tests/li/test_theorem1_part1.py"]


PART1_CLAIM_TITLE = "Theorem 1, part 1, n = 2 and 3"


@claims.claim(
    "li-thm1-part1-stationary",
    source="Li et al., Theorem 1 part 1 and Definition 4",
    statement=r"For $n \ge 2$ the zero point is an $(n-1)$-th order stationary point and the order is "
    r"sharp: directional derivatives of orders $1..n-1$ vanish, the order-$n$ one equals its closed "
    r"form and exceeds rounding along the aligned direction ($n = 2, 3$).",
    verdict="holds",
    falsifier=r"the same with the hypothesis $\sigma_{mid}(0) = 0$ dropped: a logistic sigmoid at mid "
    r"($\sigma(0) = 1/2$), where the order-1 derivative does not vanish, so the stated order fails "
    r"(the other false reading, that the order is not sharp, is the complement of the check's own "
    r"guard that the order-$n$ derivative exceeds rounding, which every passing check rejects)",
    where=WHERE,
    falsifier_kind=PLAUSIBLE,
)
def claim_part1(falsify: bool = False) -> Check:
    data = unfriendly_data3()
    parts = [
        # the falsifier drops sigma_mid(0) = 0 (a sigmoid at mid); the statement is the linear network's
        part1_check(ShortcutNetwork(3, n, 2, mid=shifted_sigmoid() if falsify else "identity"), data, directions=4)
        for n in (2, 3)
    ]
    return all_of(PART1_CLAIM_TITLE, parts)
