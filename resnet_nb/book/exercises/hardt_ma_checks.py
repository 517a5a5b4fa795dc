"""Checks of the exercises of book/notation.ipynb, book/hardt_ma_linear.ipynb and
book/hardt_ma_expressivity.ipynb.

Each check computes its reference from the package (a network's size, the proof's construction,
the bound's two sides) and names the common mistakes; see :mod:`resnet_nb.book.exercises.feedback`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from resnet_nb.book.exercises.feedback import Mismatch, Spec, as_array, call, compare, compare_function, register
from resnet_nb.core.networks import ShortcutNetwork
from resnet_nb.hardt_ma.linear.network import max_spectral_norm, residual_product
from resnet_nb.hardt_ma.linear.theorem21 import scalar_optimum, theorem21_bound, theorem21_construction
from resnet_nb.hardt_ma.linear.theorem22 import gradient_bound_sides

# ---------------------------------------------------------------------------------- notation


def _depth(units, params) -> None:
    R = next(r for r in range(1, 100) if ShortcutNetwork(10, 3, r).depth == 48)
    net = ShortcutNetwork(10, 3, R)
    compare(units, R, {"units-are-matrices": net.depth, "units-are-depth-times-n": net.depth * net.n})
    compare(params, net.num_params, {"one-matrix-per-unit": R * net.d**2, "params-not-squared": net.depth * net.d})


register(
    Spec(
        "ex-notation-depth",
        "units = ...  # the number R of units (a number)\nparams = ...  # the number P of parameters",
        _depth,
        {
            "units-are-matrices": "The depth L counts matrices; a unit of a 3-shortcut network holds 3 of them.",
            "units-are-depth-times-n": "A unit holds n matrices, so there are fewer units than matrices, not more.",
            "one-matrix-per-unit": "Every matrix of a unit has its own d x d entries, not only one matrix per unit.",
            "params-not-squared": "A matrix on R^10 has d x d entries, not d.",
        },
        args=("units", "params"),
    )
)


def _loss_probe(seed: int, d: int = 4, m: int = 7):
    rng = np.random.default_rng(seed)
    X, Y, W = rng.standard_normal((d, m)), rng.standard_normal((d, m)), rng.standard_normal((d, d))
    return W, X @ X.T / m, Y @ X.T / m, float(np.trace(Y @ Y.T) / m), X, Y


def _loss_terms(W, Sxx, Syx, trSyy) -> dict:
    return {
        "quadratic": 0.5 * np.trace(W @ Sxx @ W.T),
        "linear": -np.trace(W @ Syx.T),
        "constant": 0.5 * trSyy,
    }


def _loss(loss_from_stats, changed) -> None:
    full = [_loss_probe(s) for s in (0, 1, 2)]
    by_id = {id(p[0]): p for p in full}

    def direct(W, Sxx, Syx, trSyy):  # the loss from the samples themselves
        _, _, _, _, X, Y = by_id[id(W)]
        return 0.5 * ((Y - W @ X) ** 2).sum() / X.shape[1]

    probes = [p[:4] for p in full]
    compare_function(
        loss_from_stats,
        direct,
        probes,
        {
            "linear-transposed": lambda W, Sxx, Syx, t: 0.5 * np.trace(W @ Sxx @ W.T) - np.trace(W @ Syx) + 0.5 * t,
            "linear-sign": lambda W, Sxx, Syx, t: 0.5 * np.trace(W @ Sxx @ W.T) + np.trace(W @ Syx.T) + 0.5 * t,
            "quadratic-order": lambda W, Sxx, Syx, t: 0.5 * np.trace(W.T @ Sxx @ W) - np.trace(W @ Syx.T) + 0.5 * t,
        },
    )
    names = {"quadratic", "linear", "constant"}
    if not isinstance(changed, set | frozenset | list | tuple) or not set(changed) <= names:
        raise Mismatch("type", f" Give `changed` as a set of names among {sorted(names)}.")
    # flip input coordinate 0 and see which term moves
    W, _, _, _, X, Y = _loss_probe(3)
    Xf = X.copy()
    Xf[0] *= -1
    m = X.shape[1]
    before = _loss_terms(W, X @ X.T / m, Y @ X.T / m, np.trace(Y @ Y.T) / m)
    after = _loss_terms(W, Xf @ Xf.T / m, Y @ Xf.T / m, np.trace(Y @ Y.T) / m)
    truth = {k for k in names if not math.isclose(before[k], after[k], rel_tol=1e-12)}
    got = set(changed)
    if got == truth:
        return
    if "constant" in got:
        raise Mismatch("constant-changes")
    if truth - got == {"quadratic"}:
        raise Mismatch("quadratic-fixed")
    if truth - got == {"linear"}:
        raise Mismatch("linear-fixed")
    raise Mismatch("wrong")


register(
    Spec(
        "ex-notation-loss",
        "def loss_from_stats(W, Sxx, Syx, trSyy):\n"
        '    """The loss of the map W (a numpy array) from the sufficient statistics."""\n'
        "    ...\n\n\n"
        'changed = {...}  # the terms that change: names among "quadratic", "linear", "constant"',
        _loss,
        {
            "linear-transposed": "The linear term pairs W with Syx entry by entry: tr(W Syx^T), not tr(W Syx).",
            "linear-sign": "Expanding ||Y - WX||^2 gives the cross term with a minus sign.",
            "quadratic-order": "The quadratic term is tr(W Sxx W^T): Sxx sits between W and its transpose.",
            "constant-changes": "tr Syy involves only the targets; flipping an input leaves it alone.",
            "quadratic-fixed": "Sxx changes too: flipping x_i flips row and column i of Sxx "
            "(the diagonal entry stays).",
            "linear-fixed": "Syx changes too: flipping x_i flips column i of Syx.",
        },
        args=("loss_from_stats", "changed"),
    )
)


def _shrink_threshold(l: int) -> float:
    """The smallest t at which l factors I - t u u^T bring a singular value down to one half."""
    u = np.ones(3) / math.sqrt(3)

    def smallest(t):
        P = np.linalg.matrix_power(np.eye(3) - t * np.outer(u, u), l)
        return np.linalg.svd(P, compute_uv=False).min() - 0.5

    return brentq(smallest, 0.0, 1.0, xtol=1e-15)


def _ortho(threshold) -> None:
    compare_function(
        threshold,
        _shrink_threshold,
        [(1,), (2,), (5,), (20,)],
        {
            "approximation": lambda l: math.log(2) / l,
            "growth": lambda l: 2 ** (1 / l) - 1,
            "power-not-root": lambda l: 1 - 2.0**-l,
        },
        rtol=1e-8,
    )


register(
    Spec(
        "ex-notation-ortho",
        "def threshold(l):\n"
        '    """The exact threshold on max_i ||A_i|| for a singular value below one half with l layers."""\n'
        "    ...",
        _ortho,
        {
            "approximation": "That is the large-l approximation; the exercise asks for the exact threshold.",
            "growth": "That makes a singular value grow to 2; here one must shrink to one half: (1 - t)^l.",
            "power-not-root": "Solve (1 - t)^l = 1/2 for t: an l-th root, not an l-th power.",
        },
        rubric=(
            "a product of orthogonal matrices is orthogonal, so every singular value is 1",
            "a construction with small factors, e.g. A_i = -t u u^T, and its smallest singular value (1 - t)^l",
            "the lower bound sigma_min(prod) >= prod (1 - ||A_i||) for every residual network",
            "the exact threshold 1 - 2^(-1/l) (about ln 2 / l), hence factors of norm O(1/l)",
        ),
        args=("threshold",),
    )
)

# ------------------------------------------------------------------------ hardt_ma_linear


def _scalar(smallest_max, first_l) -> None:
    probes = [(4.0, 1), (4.0, 2), (1.5, 7), (4.0, 30)]
    compare_function(
        smallest_max,
        scalar_optimum,
        probes,
        {"linearised": lambda g, l: g / l, "forgot-one": lambda g, l: math.exp(g / l)},
    )
    first = next(l for l in range(1, 100) if scalar_optimum(4.0, l) < theorem21_bound(4.0, l, "summary"))
    compare(first_l, first, {"three-gamma": 12, "one": 1})


register(
    Spec(
        "hm-ex-scalar",
        "def smallest_max(gamma, l):\n"
        '    """The smallest max_i |a_i| over factorisations e^gamma = prod (1 + a_i) of l factors."""\n'
        "    ...\n\n\n"
        "first_l = ...  # the smallest l for which it is below (4 pi + 3 gamma) / l when gamma = 4",
        _scalar,
        {
            "linearised": "gamma / l is only the first-order approximation; the exact optimum is larger.",
            "forgot-one": "a_i is the factor minus one: 1 + a_i = ... .",
            "three-gamma": "3 gamma is where the inequality certainly holds; "
            "the question is the first l where it does.",
            "one": "Check l = 1 again: compare e^4 - 1 with 4 pi + 12.",
        },
        rubric=(
            "if |a_i| <= a for all i then e^gamma <= (1 + a)^l, so a >= e^(gamma/l) - 1",
            "equal factors reach the bound",
            "the comparison at l = 1 fails and at l = 2 holds",
            "l (e^(gamma/l) - 1) decreases in l, so every larger l works too",
        ),
        args=("smallest_max", "first_l"),
    )
)


def _pi_norm(l: int) -> float:
    A, _ = theorem21_construction(-np.eye(2), l)
    return max_spectral_norm(A)


def _pi(norm_at_depth) -> None:
    compare_function(
        norm_at_depth,
        _pi_norm,
        [(2,), (3,), (10,), (40,)],
        {"bound": lambda l: math.pi / l, "full-angle": lambda l: 2 * math.sin(math.pi / l)},
        rtol=1e-7,
    )


register(
    Spec(
        "hm-ex-pi",
        'def norm_at_depth(l):\n    """|||A||| of the construction for R = -I_2 with l factors."""\n    ...',
        _pi,
        {
            "bound": "pi / l bounds it from above; each factor's norm is exactly ||Q^(1/l) - I|| for a rotation.",
            "full-angle": "Each factor rotates by pi / l; ||rotation(theta) - I|| = 2 sin(theta / 2).",
        },
        rubric=(
            "det(-I_2) = +1: it is the rotation by pi, with l-th root the rotation by pi / l",
            "||Q^(1/l) - I|| = 2 sin(pi / 2l) <= pi / l, which tends to 0",
            "det diag(-1, 1) = -1 and factors with ||A_i|| < 1 have positive determinant",
        ),
        args=("norm_at_depth",),
    )
)


def _extremal(l, d, tau, Sigma, sign=-1.0):
    w, V = np.linalg.eigh(Sigma)
    A = np.stack([sign * tau * np.eye(d)] * l)
    return A, np.outer(np.arange(1.0, d + 1), V[:, 0])


def _sides(A, E, Sigma, tau) -> dict:
    return gradient_bound_sides(A, residual_product(A) - E, Sigma, tau)


def _whiten(ratio) -> None:
    Sigma, tau, l = np.eye(2), 0.5, 4
    s = _sides(*_extremal(l, 2, tau, Sigma), Sigma, tau)
    compare(ratio, s["lhs"] / s["printed"], {"inverted": s["printed"] / s["lhs"], "exponent": (1 - tau) ** (2 * l - 2)})


register(
    Spec(
        "hm-ex-whiten",
        "ratio = ...  # ||grad f||^2 over the printed right side of (2.3), at l = 4, tau = 1/2, Sigma = I",
        _whiten,
        {
            "inverted": "The ratio asked for is the left side (the gradient) over the printed right side.",
            "exponent": "Both sides carry a power of (1 - tau): the printed one l - 1, the gradient 2l - 2.",
        },
        rubric=(
            "the corrected bound c sigma_min (f - C_opt) implies the exponent-only one when sigma_min <= 1",
            "for Sigma = I the two coincide, so whitened data cannot separate them",
            "at A_i = -tau I, E = e v^T the ratio of the printed form's sides is (1 - tau)^(l-1) / sigma_min",
            "the printed form holds for small covariances at that point, fails once (1 - tau)^(l-1) < sigma_min",
        ),
        args=("ratio",),
    )
)

_TIGHT_PROBES = (
    (3, 3, 0.5, np.array([[2.0, 0.3, 0.0], [0.3, 1.0, 0.2], [0.0, 0.2, 3.0]])),
    (4, 2, 0.3, np.array([[2.0, 0.5], [0.5, 1.0]])),
)


def _tight(extremal_point) -> None:
    for l, d, tau, Sigma in _TIGHT_PROBES:
        out = call(extremal_point, l, d, tau, Sigma.copy())
        if not isinstance(out, tuple | list) or len(out) != 2:
            raise Mismatch("type", " Return the pair (A, E).")
        A, E = as_array(out[0]), as_array(out[1])
        if A.shape != (l, d, d) or E.shape != (d, d):
            raise Mismatch("shape", f": A should have shape {(l, d, d)} and E {(d, d)}, not {A.shape} and {E.shape}.")
        if np.allclose(A, tau * np.eye(d)):
            raise Mismatch("sign")
        try:
            s = _sides(A, E, Sigma, tau)
        except ValueError as exc:
            raise Mismatch("error", f" ({exc}).") from None
        if s["excess"] <= 1e-12:
            raise Mismatch("zero-error")
        if not math.isclose(s["lhs"], s["corrected"], rel_tol=1e-9):
            w, V = np.linalg.eigh(Sigma)
            if np.linalg.norm(E @ V[:, -1]) > 1e-9 and np.linalg.norm(E @ V[:, 0]) < 1e-9 * np.linalg.norm(E):
                raise Mismatch("largest-eigenvector")
            raise Mismatch("not-tight")


register(
    Spec(
        "hm-ex-tight",
        "def extremal_point(l, d, tau, Sigma):\n"
        '    """The factors A (shape (l, d, d)) and the error E = prod(I + A_i) - R (shape (d, d))\n'
        '    at which the corrected bound holds with equality."""\n'
        "    ...",
        _tight,
        {
            "sign": "With A_i = +tau I each factor is (1 + tau) I: the gradient is larger than the bound's worst case.",
            "zero-error": "At E = 0 both sides vanish; take a nonzero error e v^T.",
            "largest-eigenvector": "v must be an eigenvector for the smallest eigenvalue of Sigma, not the largest.",
            "not-tight": "At your point the gradient is strictly larger than the corrected bound: "
            "find where it is tight.",
        },
        rubric=(
            "each factor is (1 - tau) I, so df/dA_i = 2 (1 - tau)^(l-1) E Sigma",
            "||grad f||_F^2 = 4 l (1 - tau)^(2l-2) ||E Sigma||_F^2",
            "with E = e v^T: ||E Sigma||^2 = sigma_min^2 ||e||^2 and f - C_opt = sigma_min ||e||^2",
            "the two sides are equal",
        ),
        args=("extremal_point",),
    )
)

# ------------------------------------------------------------------ hardt_ma_expressivity


def _margins(P: np.ndarray) -> np.ndarray:
    G = P @ P.T
    out = []
    for i in range(len(P)):
        others = [G[i, i] - G[i, j] for j in range(len(P)) if j != i]
        out.append(min(others))
    return np.array(out)


def _margin(points) -> None:
    P = as_array(points)
    if P.shape != (3, 2):
        raise Mismatch("shape", f": give three points in R^2, an array of shape (3, 2), not {P.shape}.")
    if min(np.linalg.norm(P[i] - P[j]) for i in range(3) for j in range(i)) < 1e-9:
        raise Mismatch("duplicate")
    norms = np.linalg.norm(P, axis=1)
    if np.ptp(norms) < 1e-9:
        raise Mismatch("on-circle")
    if _margins(P).min() >= 0:
        raise Mismatch("no-negative")


register(
    Spec(
        "hm-ex-margin",
        "points = ...  # three points in R^2, an array of shape (3, 2), one of them with negative margin",
        _margin,
        {
            "duplicate": "Two of your points coincide; the points must be distinct.",
            "on-circle": "All your points have the same norm, so by the identity of the first part "
            "no margin is negative.",
            "no-negative": "Every margin is still non-negative: a point's margin drops below zero when another point "
            "lies further out, roughly in its direction.",
        },
        rubric=(
            "||z - h||^2 = ||z||^2 + ||h||^2 - 2<z, h> = 2 (1 - <z, h>) for unit vectors",
            "hence the margin ||z||^2 - <z, h> = ||z - h||^2 / 2 >= rho / 2",
            "a valid example off the sphere with one negative margin",
        ),
        args=("points",),
    )
)


def _count(blocks) -> None:
    probes = [(2000, 25), (10, 3), (9, 3), (1, 5), (7, 1)]
    compare_function(
        blocks,
        lambda n, k: -(-n // k),
        probes,
        {"floor": lambda n, k: n // k, "greedy": lambda n, k: n},
        rtol=0,
        atol=0.5,
    )


register(
    Spec(
        "hm-ex-count",
        "def blocks(n, k):\n"
        '    """The number l of residual blocks in the paper\'s order for n points and width k."""\n'
        "    ...",
        _count,
        {
            "floor": "The last block also moves the points left over when k does not divide n.",
            "greedy": "n is what the greedy order guarantees; the paper's order moves k points per block.",
        },
        rubric=(
            "per block 2 k^2 + k parameters, the last block r k + r^2 + r",
            "the paper's order: l = ceil(n / k), about 2 n k + n parameters",
            "the greedy order only guarantees l <= n",
            "the comparison with the printed blocks and trainable columns",
        ),
        args=("blocks",),
    )
)
