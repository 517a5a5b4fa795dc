"""Gradient descent on the case Hardt & Ma's Theorem 2.1 excludes, ``det R < 0`` (chapter:
book/hardt_ma_linear.ipynb): the population risk minimised from the identity network.

:func:`population_gd` (one run) and :func:`population_gd_batch` (many at once) iterate Lemma 2.4's
gradient step. The claim ``hm-gd-reflection`` is declared here.
"""

from __future__ import annotations

import numpy as np

from resnet_nb.core.checks import require_float, require_int
from resnet_nb.core.claims import Check, claim, eps_criterion
from resnet_nb.hardt_ma.linear.network import as_factors, as_square, max_spectral_norm

WHERE = ["book/hardt_ma_linear.ipynb", "tests/hardt_ma/test_gd_reflection.py"]

__all__ = [
    "population_gd_batch",
    "population_gd",
    "symmetric_excess",
    "reflection_escape_table",
    "GD_STEP_LIMIT",
    "claim_gd_reflection",
]


def symmetric_excess(l: int, eta, steps: int = 6000) -> np.ndarray:
    """Gradient descent from ``A = 0`` on ``R = -1`` in one dimension, where every factor stays
    equal to one number: ``x = 1 + u`` is each factor's value and the step is
    ``u <- u - 2 eta u^(l-1) (u^l + 1)`` with ``u = 1`` at the start (slope ``1 - 2 eta l`` at the
    minimiser ``u = -1``). Returns the excess ``(u^l + 1)^2`` after each of ``steps`` steps: shape
    ``(steps,)`` for one step size, ``(steps, k)`` for an array of ``k`` step sizes (one path
    each; a path that overflows gives inf or nan, not an error)."""
    l = require_int("l", l)
    steps = require_int("steps", steps)
    scalar = np.ndim(eta) == 0
    if not scalar and np.ndim(eta) != 1:
        raise ValueError(f"eta must be a number or a 1-d array of step sizes, got shape {np.shape(eta)}")
    if isinstance(eta, bool) or not np.issubdtype(np.asarray(eta).dtype, np.number):
        raise TypeError(f"eta must be a number or an array of numbers, got {type(eta).__name__}")
    eta = np.asarray(eta, dtype=np.float64)
    if not np.all(np.isfinite(eta)) or np.any(eta <= 0):
        raise ValueError(f"eta must be positive and finite, got {eta}")
    if scalar:  # a Python float path, step by step (the chapter's scalar recurrence)
        u, e, out = 1.0, float(eta), []
        for _ in range(steps):
            u = u - 2 * e * u ** (l - 1) * (u**l + 1)
            out.append((u**l + 1) ** 2)
        return np.array(out)
    u, out = np.ones_like(eta), []
    with np.errstate(all="ignore"):
        for _ in range(steps):
            u = u - 2 * eta * u ** (l - 1) * (u**l + 1)
            out.append((u**l + 1) ** 2)
    return np.array(out)


def reflection_escape_table(depths=(3, 4, 5, 6), lrs=(0.05, 0.3), random_starts: int = 4, steps: int = 6000):
    """Gradient descent on ``R = diag(-1, 1)`` at each depth, in one batched run per depth: from
    ``A = 0`` at each step size in ``lrs``, and from ``random_starts`` small random starts
    (``0.01 N(0, 1)``, seeds ``0, 1, ...``) at the first step size. One row per depth and start:
    ``escaped`` counts the runs whose excess risk fell below ``1e-3``; ``excess`` is the smallest
    and ``norm`` the largest over the runs of that row."""
    import pandas as pd

    R_neg = np.diag([-1.0, 1.0])
    rows = []
    for l in depths:
        noise = [0.01 * np.random.default_rng(s).standard_normal((l, 2, 2)) for s in range(random_starts)]
        starts = np.concatenate([np.zeros((len(lrs), l, 2, 2)), np.stack(noise)])
        batch = population_gd_batch(R_neg, l, starts, list(lrs) + [lrs[0]] * random_starts, steps=steps)
        for r0, lr in zip(batch[: len(lrs)], lrs):
            escaped = int(r0["excess"] < 1e-3)
            rows.append(dict(l=l, start="A = 0", lr=lr, runs=1, escaped=escaped, excess=r0["excess"], norm=r0["norm"]))
        ends = batch[len(lrs) :]
        rows.append(
            dict(
                l=l,
                start="small random",
                lr=lrs[0],
                runs=random_starts,
                escaped=sum(e["excess"] < 1e-3 for e in ends),
                excess=min(e["excess"] for e in ends),
                norm=max(e["norm"] for e in ends),
            )
        )
    return pd.DataFrame(rows)


def population_gd_batch(R, l: int, A0s, lrs, Sigma=None, steps: int = 4000) -> list[dict]:
    """Gradient descent on the population risk ``f`` for several runs at once (one per start in
    ``A0s``, shape ``(B, l, d, d)``, each with its own step size in ``lrs``, shape ``(B,)``). The
    same iteration as :func:`population_gd`, vectorised over the runs; returns one dict per run."""
    R = as_square("R", R)
    d = len(R)
    l = require_int("l", l)
    Sigma = np.eye(d) if Sigma is None else as_square("Sigma", Sigma)
    steps = require_int("steps", steps)
    A = np.array(A0s, dtype=np.float64)
    if A.ndim != 4 or A.shape[1:] != (l, d, d):
        raise ValueError(f"A0s must have shape (B, {l}, {d}, {d}), got {A.shape}")
    lrs = np.array([require_float("lr", float(x), low=0.0, low_open=True) for x in np.atleast_1d(lrs)])
    if lrs.shape != (A.shape[0],):
        raise ValueError(f"lrs must hold one step size per run ({A.shape[0]}), got {lrs.shape}")
    eye = np.eye(d)

    def error_and_below(A):
        below = [np.broadcast_to(eye, (A.shape[0], d, d))]
        for i in range(l):
            below.append((eye + A[:, i]) @ below[-1])
        return below[-1] - R, below

    def gradient(A, E, below):
        ES, g, acc = E @ Sigma, np.empty_like(A), np.broadcast_to(eye, A.shape[:1] + (d, d))
        for i in range(l - 1, -1, -1):
            g[:, i] = 2 * np.swapaxes(acc, 1, 2) @ ES @ np.swapaxes(below[i], 1, 2)
            acc = acc @ (eye + A[:, i])
        return g

    curves = np.empty((A.shape[0], steps + 1))
    for t in range(steps + 1):
        E, below = error_and_below(A)
        curves[:, t] = np.einsum("bij,jk,bik->b", E, Sigma, E)
        if t == steps:
            break
        A = A - lrs[:, None, None, None] * gradient(A, E, below)
    E, below = error_and_below(A)
    g = gradient(A, E, below)
    return [
        dict(
            A=A[b],
            excess=float(curves[b, -1]),
            norm=max_spectral_norm(A[b]),
            grad_norm=float(np.sqrt((g[b] ** 2).sum())),
            curve=curves[b],
        )
        for b in range(A.shape[0])
    ]


def population_gd(R, l: int, Sigma=None, lr: float = 0.05, steps: int = 4000, A0=None) -> dict:
    """Gradient descent on the population risk ``f`` (Lemma 2.4's gradient), from ``A0``
    (default 0, the identity network). Returns the final point, its excess risk
    ``f - C_opt = ||E Sigma^{1/2}||_F^2``, its ``|||A|||``, its gradient norm and the excess-risk
    curve (every step). One run of :func:`population_gd_batch`."""
    R = as_square("R", R)
    d = len(R)
    l = require_int("l", l)
    Sigma = np.eye(d) if Sigma is None else as_square("Sigma", Sigma)
    lr = require_float("lr", lr, low=0.0, low_open=True)
    steps = require_int("steps", steps)
    A = np.zeros((l, d, d)) if A0 is None else as_factors(A0).copy()
    return population_gd_batch(R, l, A[None], [lr], Sigma=Sigma, steps=steps)[0]


#: step size below which gradient descent from A = 0 cannot cross the singular point when
#: R = diag(-1, 1), Sigma = I: with u = 1 + a, one step is u <- u (1 - 2 eta u^(l-2) (u^l + 1)) and
#: u^(l-2) (u^l + 1) <= 2 on (0, 1], so the factor stays above 1 - 4 eta > 0.
GD_STEP_LIMIT = 0.25


@claim(
    "hm-gd-reflection",
    source="the book: gradient descent on the case Theorem 2.1 excludes (det R < 0)",
    statement=r"For $R = \mathrm{diag}(-1, 1)$, $\Sigma = I$ and step size $\eta < 1/4$, gradient descent on $f$ "
    r"from $A = 0$ keeps every factor's $(1,1)$ entry $u = 1 + a$ in $(0, 1]$, so the excess risk "
    r"$(u^\ell + 1)^2$ never drops below 1, at every depth $\ell \ge 2$.",
    verdict="holds",
    falsifier=r"the same statement at step size $\eta = 0.3 > 1/4$, $\ell = 3$ (the first step crosses $u = 0$ "
    r"and, at odd depth, gradient descent reaches the global minimum)",
    falsifier_kind="plausible false statement",
    where=WHERE,
)
def claim_gd_reflection(falsify: bool = False) -> Check:
    """Smallest excess risk along gradient descent from A = 0 (every step), over depths 2..6 at
    eta = 0.24 (0.05 as well), or at eta = 0.3, l = 3 for the falsifier."""
    R = np.diag([-1.0, 1.0])
    cases = [(3, 0.3)] if falsify else [(l, eta) for l in (2, 3, 4, 5, 6) for eta in (0.05, 0.24)]
    lowest = min(float(population_gd(R, l, lr=eta, steps=300)["curve"].min()) for l, eta in cases)
    tol, crit = eps_criterion(8, 1.0)
    return Check(
        f"R = diag(-1, 1), Sigma = I, from A = 0, 300 steps, (depth, step size) in {cases}"
        if falsify
        else "R = diag(-1, 1), Sigma = I, from A = 0, 300 steps, l = 2..6, eta = 0.05 and 0.24",
        "smallest excess risk along the path",
        lowest,
        1.0 - tol,
        "the statement's bound, excess >= 1, less rounding: " + crit,
        op=">=",
    )
