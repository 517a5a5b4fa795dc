"""Hardt & Ma's Theorem 3.2 at constant width (chapter: book/hardt_ma_expressivity.ipynb): the
book's statement that the greedy order fits ``n`` points at a fixed width ``k >= 2``.

The claim ``hm-constant-width`` is declared here.
"""

from __future__ import annotations

import numpy as np

from resnet_nb.core.claims import Check, Part, all_of, checks_from, claim, eps_criterion
from resnet_nb.hardt_ma.relu.network import unit_norm_columns
from resnet_nb.hardt_ma.relu.theorem32 import construction_fit_error

WHERE = ["book/hardt_ma_expressivity.ipynb", "tests/hardt_ma/test_theorem3_2_construction.py"]

__all__ = ["claim_constant_width"]


@claim(
    "hm-constant-width",
    source="the book: Theorem 3.2 at constant width (greedy order)",
    statement=r"Moving, in each block, the remaining points of largest positive margin fits $n$ distinct "
    r"points exactly at a constant width $k \ge 2$ (here $k = 3$) with at most $n$ blocks, since each "
    r"block moves at least the remaining point of largest norm: at most "
    r"$n(2k^2 + k) + rk + r^2 + r$ trainable parameters, $O(n + r^2)$ at fixed $k$. (The "
    r"parameter-count part is an implementation test: the code moves at least one point per block, "
    r"so only a bug can break it; the exact fit is the evidence.)",
    verdict="holds",
    falsifier=r"the hypothesis $k \ge 2$ dropped: the same construction at width $k = 1$, where surrogates of "
    r"norm $s$ can take only the two values $\pm s$, too few for $r = 10$ classes",
    falsifier_kind="plausible false statement",
    where=WHERE,
)
def claim_constant_width(falsify: bool = False) -> Check:
    rng = np.random.default_rng(4)
    n, k, r = 400, 3, 10
    X = unit_norm_columns(rng.standard_normal((20, n)))
    y = rng.integers(0, r, n)
    if falsify:
        k = 1
    err, scale, why, count = construction_fit_error(X, y, r, k, "greedy")
    tol, crit = eps_criterion(3, max(scale, 1.0), factor=1e4)
    values = dict(n=n, k=k, err=err, tol=tol, crit=crit)
    (fit,) = checks_from([WIDTH_FIT_PART], values)
    if why:
        fit.lines.append(why)
    if count is None:
        return fit
    bound = n * (2 * k * k + k) + r * k + r * r + r
    values.update(bound=bound, trainable=count["trainable"], ratio=count["trainable"] / bound)
    (size,) = checks_from([WIDTH_SIZE_PART], values)
    size.lines.append(WIDTH_SIZE_LINE.format_map(values))
    return all_of(WIDTH_TITLE.format_map(values), [fit, size])


WIDTH_TITLE = "constant width k = {k}: exact fit (evidence); parameter count within the bound (implementation test)"
WIDTH_FIT_PART = Part(
    "{n} points in R^20, k = {k}, greedy order",
    "max |output - one-hot|",
    "err",
    "tol",
    "{crit} (the margins at k = 3 are small); inf: refused",
)
WIDTH_SIZE_PART = Part(
    "implementation test, not evidence: trainable parameters against n(2k^2 + k) + rk + r^2 + r = {bound:,}",
    "trainable parameters / bound",
    "ratio",
    1.0,
    "ratio <= 1: every block moves at least one point, so only a bug can exceed it",
)
WIDTH_SIZE_LINE = "{trainable:,} trainable parameters for {n} points"
