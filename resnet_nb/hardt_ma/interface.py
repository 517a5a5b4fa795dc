"""Hardt & Ma, appendix B (chapter: book/hardt_ma_expressivity.ipynb): where Lemma B.2's hypotheses
meet Lemma B.1's proof.

Lemma B.2 (ICLR text, appendix B) assumes of its points ``z_1 .. z_n``
(a) ``1 - rho' <= ||z_i||^2 <= 1 + rho'`` and (b) ``||z_i - z_j||^2 >= rho'`` for ``i != j``, and
its proof applies Lemma B.1 block by block. Lemma B.1's construction gives every unit the bias
``-(1 - 2 rho')`` and the row ``alpha_i``; its proof (Eq. (B.1)) needs, for every other point,
``<alpha_j, alpha_i> <= 1 - 2 rho'``, so that the unit stays silent there.

By the polarisation identity ``<a, b> = (||a||^2 + ||b||^2 - ||a - b||^2) / 2``, the largest
inner product two points can have under norms ``||.||^2 <= 1 + rho'`` and a squared separation
``s`` is ``1 + rho' - s / 2`` (:func:`worst_inner_product`). Under B.2's hypothesis (b),
``s = rho'``, that is ``1 + rho'/2``: the unit fires at the other point with pre-activation
``5 rho' / 2``. B.1's proof needs ``s >= 6 rho'``, six times what B.2 assumes.

The check (:func:`claim_b2_meets_b1`) compares this closed form with a second, independent
computation: a constrained numerical maximisation of ``<a, b>`` over pairs that satisfy the
hypotheses (:func:`max_inner_product_search`). Its falsifier is the statement the printed proof
relies on, Eq. (B.1)'s bound ``1 - 2 rho'`` applied under B.2's hypotheses.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import minimize

from resnet_nb.core.checks import require_float, require_int
from resnet_nb.core.claims import Check, Part, all_of, checks_from, claim

__all__ = [
    "worst_inner_product",
    "required_sq_separation",
    "extremal_pair",
    "max_inner_product_search",
    "b1_preactivations",
    "claim_b2_meets_b1",
    "SEARCH_TOL",
]

#: stopping tolerance of the constrained search (SLSQP ``ftol``) and of its constraints.
SEARCH_FTOL = 1e-13
#: the tolerance of a comparison with the search: 1000 times ``SEARCH_FTOL`` (a stated criterion:
#: SLSQP stops when the objective changes by less than ``ftol``; its constraints are met to about
#: the same accuracy, and the objective is Lipschitz with constant about 1 in them).
SEARCH_TOL = 1e3 * SEARCH_FTOL


def worst_inner_product(rho_prime: float, sq_sep: float) -> float:
    """Largest ``<a, b>`` over pairs with ``||a||^2, ||b||^2 <= 1 + rho'`` and ``||a - b||^2 >= sq_sep``
    (polarisation identity; attained by two points of squared norm ``1 + rho'`` at squared distance
    ``sq_sep``, which needs ``sq_sep <= 4 (1 + rho')``)."""
    rho_prime = require_float("rho_prime", rho_prime, low=0.0, high=1.0, low_open=True, high_open=True)
    sq_sep = require_float("sq_sep", sq_sep, low=0.0, high=4 * (1 + rho_prime))
    return (2 * (1 + rho_prime) - sq_sep) / 2


def required_sq_separation(rho_prime: float) -> float:
    """The squared separation that Lemma B.1's proof needs: the smallest ``s`` with
    ``worst_inner_product(rho', s) <= 1 - 2 rho'``, that is ``6 rho'``."""
    rho_prime = require_float("rho_prime", rho_prime, low=0.0, high=1.0, low_open=True, high_open=True)
    return 6 * rho_prime


def extremal_pair(
    rho_prime: float,
    sq_sep: float,
    k: int = 2,
) -> np.ndarray:
    """Two points in R^k (columns) of squared norm ``1 + rho'`` at squared distance ``sq_sep``, built
    from an angle: the pair that attains :func:`worst_inner_product`."""
    rho_prime = require_float("rho_prime", rho_prime, low=0.0, high=1.0, low_open=True, high_open=True)
    k = require_int("k", k, 2)
    r = math.sqrt(1 + rho_prime)
    half = math.asin(math.sqrt(require_float("sq_sep", sq_sep, low=0.0, high=4 * (1 + rho_prime))) / (2 * r))
    P = np.zeros((k, 2))
    P[0] = r * math.cos(half)
    P[1, 0] = r * math.sin(half)
    P[1, 1] = -P[1, 0]
    return P


def max_inner_product_search(
    rho_prime: float,
    sq_sep: float,
    k: int = 3,
    starts: int = 8,
    seed: int = 0,
) -> dict:
    """Maximise ``<a, b>`` numerically over ``a, b`` in R^k with ``1 - rho' <= ||a||^2, ||b||^2 <= 1 + rho'``
    and ``||a - b||^2 >= sq_sep`` (SLSQP from ``starts`` random feasible-ish starts). Returns the best
    value, the pair, and the largest constraint violation at it (re-evaluated directly)."""
    rho_prime = require_float("rho_prime", rho_prime, low=0.0, high=1.0, low_open=True, high_open=True)
    sq_sep = require_float("sq_sep", sq_sep, low=0.0)
    k, starts = require_int("k", k, 2), require_int("starts", starts, 1)
    rng = np.random.default_rng(seed)

    def split(x):
        return x[:k], x[k:]

    cons = [
        {"type": "ineq", "fun": lambda x: 1 + rho_prime - split(x)[0] @ split(x)[0]},
        {"type": "ineq", "fun": lambda x: 1 + rho_prime - split(x)[1] @ split(x)[1]},
        {"type": "ineq", "fun": lambda x: split(x)[0] @ split(x)[0] - (1 - rho_prime)},
        {"type": "ineq", "fun": lambda x: split(x)[1] @ split(x)[1] - (1 - rho_prime)},
        {"type": "ineq", "fun": lambda x: (split(x)[0] - split(x)[1]) @ (split(x)[0] - split(x)[1]) - sq_sep},
    ]
    best = None
    for _ in range(starts):
        x0 = rng.standard_normal(2 * k)
        x0[:k] /= np.linalg.norm(x0[:k])  # each point of a start on the unit sphere
        x0[k:] /= np.linalg.norm(x0[k:])
        res = minimize(
            lambda x: -(split(x)[0] @ split(x)[1]),
            x0,
            constraints=cons,  # with constraints and no bounds scipy's method is SLSQP
            options={"ftol": SEARCH_FTOL},
        )
        a, b = split(res.x)
        viol = max(
            0.0,
            a @ a - (1 + rho_prime),
            b @ b - (1 + rho_prime),
            (1 - rho_prime) - a @ a,
            (1 - rho_prime) - b @ b,
            sq_sep - (a - b) @ (a - b),
        )
        value = float(a @ b)
        if viol <= SEARCH_TOL and (best is None or value > best["value"]):
            best = dict(value=value, pair=np.column_stack([a, b]), violation=float(viol))
    if best is None:
        raise ValueError(f"no start reached a feasible pair: is sq_sep = {sq_sep} beyond the diameter 4 (1 + rho')?")
    return best


def b1_preactivations(alpha, S, rho_prime: float) -> np.ndarray:
    """Pre-activations ``<alpha_i, alpha_j> - (1 - 2 rho')`` of the units of Lemma B.1's printed
    construction (unit ``i`` for ``i`` in ``S``, row ``alpha_i``, bias ``-(1 - 2 rho')``) at every point
    ``j``: shape ``(len(S), n)``. A positive entry at ``j != i`` is a unit that fires where it must not."""
    alpha = np.asarray(alpha, dtype=float)
    if alpha.ndim != 2:
        raise ValueError(f"alpha must be a (k, n) array of points, got shape {alpha.shape}")
    rho_prime = require_float("rho_prime", rho_prime, low=0.0, high=1.0, low_open=True, high_open=True)
    S = np.asarray(S, dtype=np.int64)
    return alpha[:, S].T @ alpha - (1 - 2 * rho_prime)


_RHOS = (0.02, 0.1, 0.2)


@claim(
    "hm-b2-meets-b1",
    source="Hardt & Ma, Lemma B.2's hypotheses (a), (b) and Lemma B.1's proof, Eq. (B.1)",
    statement=r"Under Lemma B.2's hypotheses, $1-\rho' \le \|z_i\|^2 \le 1+\rho'$ and "
    r"$\|z_i - z_j\|^2 \ge \rho'$, the largest inner product of two points is $1 + \rho'/2$, so a "
    r"unit of Lemma B.1's construction (bias $-(1-2\rho')$) can fire at a point it must leave alone, "
    r"with pre-activation $5\rho'/2$; Eq. (B.1)'s bound $1 - 2\rho'$ needs "
    r"$\|z_i - z_j\|^2 \ge 6\rho'$, six times B.2's separation. What fails is this step of B.2's "
    r"proof, not B.2's conclusion: the defect of Lemma B.1's (b) (hm-lemma-b1) seen from B.2's side.",
    verdict="fails as printed",
    printed=r"the proof of Lemma B.2 applies Lemma B.1 to points with $\|z_i - z_j\|^2 \ge \rho'$, where "
    r"Eq. (B.1) bounds $\langle \alpha_j, \alpha_i\rangle \le 1 - 2\rho'$",
    falsifier=r"Eq. (B.1)'s bound $1 - 2\rho'$ taken as the largest inner product under B.2's hypotheses "
    r"(the step the printed proof relies on)",
    falsifier_kind="plausible false statement",
    where=["book/hardt_ma_expressivity.ipynb", "tests/hardt_ma/test_lemma_b2_meets_b1.py"],
)
def claim_b2_meets_b1(falsify: bool = False) -> Check:
    parts = []
    for rp in _RHOS:
        found = max_inner_product_search(rp, rp, seed=1)
        formula = (1 - 2 * rp) if falsify else worst_inner_product(rp, rp)
        sep6 = max_inner_product_search(rp, required_sq_separation(rp), seed=2)
        values = dict(
            rp=rp,
            formula=B2_FORMULA[bool(falsify)],
            err=abs(found["value"] - formula),
            gap=worst_inner_product(rp, rp) - (1 - 2 * rp),
            err6=abs(sep6["value"] - (1 - 2 * rp)),
        )
        parts += checks_from(B2_TABLE, values)
    return all_of(B2_TITLE, parts)


B2_TITLE = (
    "Lemma B.2's hypotheses against Lemma B.1's proof: largest inner product of two points, "
    "closed form against a constrained search"
)
#: the formula the search is compared with: B.2's closed form, or Eq. (B.1)'s bound (the falsifier)
B2_FORMULA = {False: "closed form 1 + rho'/2", True: "Eq. (B.1)'s 1 - 2 rho'"}
B2_TABLE = (
    Part(
        "rho' = {rp:g}, B.2's separation ||z_i - z_j||^2 >= rho'",
        "|searched max <z_i, z_j> - {formula}|",
        "err",
        SEARCH_TOL,
        "1000 x the search's ftol (SLSQP stopping rule; constraints met to the same order)",
        nontrivial="gap",
        nontrivial_what="gap between the two candidate formulas (5 rho'/2)",
        nontrivial_min=SEARCH_TOL,
    ),
    Part(
        "rho' = {rp:g}, B.1's needed separation ||z_i - z_j||^2 >= 6 rho'",
        "|searched max <z_i, z_j> - (1 - 2 rho')|",
        "err6",
        SEARCH_TOL,
        "1000 x the search's ftol (SLSQP stopping rule)",
    ),
)
