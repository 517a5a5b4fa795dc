"""The live explorer of Hardt & Ma's Theorem 2.1 (chapter: book/hardt_ma_linear.ipynb): what the page
computes for a 2 x 2 target ``R`` and a depth ``l``, computed here by the package, for the browser's
cross-check (``data-live="hm-theorem21"``, ``scripts/site_static/live-hm-theorem21.js``).

For ``det R > 0`` the factors are :func:`~resnet_nb.hardt_ma.linear.theorem21.theorem21_construction`'s
(split ``"best"``). For ``det R < 0`` the package refuses, and the page shows its reason beside an
explicit factorisation (:func:`negative_factorisation`): ``R = (R D) D`` with ``D = diag(-1, 1)``, ``D``
in ``m`` factors by :func:`~resnet_nb.hardt_ma.linear.theorem21.reflection_factorisation` (one of them
crosses the singular matrices, so its norm exceeds 1) and ``R D`` in ``l - m`` factors by the
construction. :func:`export_data` holds the package's numerical search over factorisations of
``diag(-1, 1)``, which the page shows beside it.
"""

from __future__ import annotations

import math

import numpy as np

from resnet_nb.core.checks import require_choice, require_float, require_int
from resnet_nb.hardt_ma.linear.network import as_square, gamma_of, residual_product
from resnet_nb.hardt_ma.linear.theorem21 import (
    min_max_norm_search,
    reflection_factorisation,
    theorem21_bound,
    theorem21_construction,
)

NAME = "hm-theorem21"
EXPLORERS = (NAME,)
#: The cross-check's tolerance: float64 linear algebra, relative to the largest entry of each output.
RTOL = 1e-9

__all__ = ["EXPLORERS", "target", "negative_factorisation", "explore", "export_cases", "export_data"]

#: The reader's controls at their defaults: the rotation by 150 degrees, a stretch of 0.5 along the
#: axis at 30 degrees, det R > 0, depth 12.
DEFAULTS = dict(angle=150.0, stretch=0.5, axis=30.0, sign=1, l=12)


#: At most this many factors for D: beyond, the crossing factor's ``1 - (1 + delta)`` loses all of
#: ``delta`` (about ``2^-(m-1)``) to rounding, and the product is no longer ``D``.
MAX_REFLECTION = 20


def _rot(t: float) -> np.ndarray:
    return np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])


def target(angle: float, stretch: float, axis: float, sign: int) -> np.ndarray:
    """The target the controls set: ``R = Rot(angle) S`` (times ``diag(1, -1)`` when ``sign < 0``),
    ``S`` the symmetric stretch by ``e^{+-stretch}`` along the direction ``axis``; angles in degrees."""
    angle, axis = require_float("angle", angle), require_float("axis", axis)
    stretch = require_float("stretch", stretch, low=0.0)
    require_choice("sign", sign, [1, -1])
    V = _rot(math.radians(axis))
    R = _rot(math.radians(angle)) @ (V @ np.diag([math.exp(stretch), math.exp(-stretch)]) @ V.T)
    return R @ np.diag([1.0, -1.0]) if sign < 0 else R


def negative_factorisation(R, l: int) -> tuple[np.ndarray, int]:
    """An explicit factorisation of ``R`` with ``det R < 0`` into ``l`` factors: ``D = diag(-1, 1)`` in
    ``m`` factors (applied first), ``R D`` in ``l - m`` by the construction. ``m`` runs over ``1 .. l - 1``
    (and ``l`` when ``R = D``), at most :data:`MAX_REFLECTION`, and is the first with the smallest
    ``|||A|||``; at ``l = 1`` the one factor is ``R - I``. Returns ``(A, m)``."""
    R = as_square("R", R)
    l = require_int("l", l)
    if R.shape != (2, 2) or np.linalg.det(R) >= 0:
        raise ValueError(f"R must be 2 x 2 with det R < 0, got shape {R.shape}, det {np.linalg.det(R):.3g}")
    if l == 1:
        return (R - np.eye(2))[None], 1
    RD = R @ np.diag([-1.0, 1.0])
    best = None
    for m in range(1, min(l + 1 if np.array_equal(RD, np.eye(2)) else l, MAX_REFLECTION + 1)):  # m = l: R = D
        rest = theorem21_construction(RD, l - m)[0] if m < l else np.zeros((0, 2, 2))
        A = np.concatenate([reflection_factorisation(m), rest])
        v = float(np.linalg.norm(A, ord=2, axis=(1, 2)).max())
        if best is None or v < best[0]:
            best = (v, A, m)
    return best[1], best[2]


def explore(R, l: int) -> dict:
    """Everything the explorer shows for ``R`` (2 x 2, invertible) and ``l``: the factors ``A`` and
    their norms, the printed bounds at ``gamma`` and ``l``, the determinant of every factor and of the
    running product; the construction's ``info`` when ``det R > 0``, its refusal and the explicit
    factorisation's ``m`` when ``det R < 0``. The construction's ``info`` keys (``p``, ``q``, ``gamma``,
    ``theta_max``, ``norm_stretch``, ``norm_rotation``) sit at the top level, a NaN as ``None``."""
    R = as_square("R", R)
    l = require_int("l", l)
    if R.shape != (2, 2):
        raise ValueError(f"R must be 2 x 2, got shape {R.shape}")
    g = gamma_of(R)
    out = dict(
        R=R.tolist(),
        l=l,
        det=float(np.linalg.det(R)),
        gamma=g,
        bound_iclr=theorem21_bound(g, l, "iclr"),
        bound_summary=theorem21_bound(g, l, "summary"),
        hypothesis=bool(l >= 3 * g),
    )
    try:
        A, info = theorem21_construction(R, l)
        out.update({k: None if math.isnan(v) else float(v) for k, v in info.items()})  # l = 1: no angle
    except ValueError as err:
        out["refusal"] = str(err)
        A, out["reflection_factors"] = negative_factorisation(R, l)
    eye = np.eye(2)
    out["A"] = A.tolist()
    out["norms"] = np.linalg.norm(A, ord=2, axis=(1, 2)).tolist()
    out["norm"] = max(out["norms"])
    out["factor_dets"] = [float(np.linalg.det(eye + Ai)) for Ai in A]
    running = [residual_product(A[: i + 1]) for i in range(len(A))]
    out["running_dets"] = [float(np.linalg.det(M)) for M in running]
    out["product_error"] = float(np.abs(running[-1] - R).max())
    return out


#: Outputs that are rounding errors, not results: shown in the page, not compared.
ROUNDING = ("product_error",)


def _controls(angle, stretch, axis, sign, l):
    return dict(angle=angle, stretch=stretch, axis=axis, sign=sign, l=l)


#: The cross-check's inputs: the defaults, the chapter's targets (-I_2, diag(-1, -2), diag(-1, 1)),
#: every depth from 1 to 64 at a stretched rotation, the thresholds of the rotation's angle (pi and
#: near it, where the package reads the angle as pi), pure stretches, and reflections.
CASES = (
    [("defaults", dict(DEFAULTS))]
    + [(f"-I_2, l = {l}", dict(R=(-np.eye(2)).tolist(), l=l)) for l in (1, 2, 10, 64)]
    + [(f"diag(-1, -2), l = {l}", dict(R=[[-1.0, 0.0], [0.0, -2.0]], l=l)) for l in (2, 4, 16)]
    + [(f"diag(-1, 1), l = {l}", dict(R=[[-1.0, 0.0], [0.0, 1.0]], l=l)) for l in (1, 2, 8, 16)]
    + [(f"angle 100, stretch 1.2, l = {l}", _controls(100.0, 1.2, 60.0, 1, l)) for l in (1, 2, 3, 4, 7, 20, 64)]
    + [(f"angle {a}", _controls(a, 0.3, 10.0, 1, 9)) for a in (180.0, -180.0, 179.0, -179.0, 0.0, 1.0)]
    + [(f"stretch {s}, l = {l}", _controls(0.0, s, 45.0, 1, l)) for s, l in ((3.0, 2), (3.0, 9), (0.05, 5))]
    + [
        (f"reflection {a}, stretch {s}, l = {l}", _controls(a, s, 75.0, -1, l))
        for a, s, l in ((40.0, 0.7, 6), (-120.0, 2.0, 32), (180.0, 0.0, 64), (180.0, 0.0, 8))
    ]
)


def _case_input(inp: dict) -> tuple[np.ndarray, int]:
    if "R" in inp:
        return np.array(inp["R"], dtype=np.float64), inp["l"]
    return target(inp["angle"], inp["stretch"], inp["axis"], inp["sign"]), inp["l"]


def export_cases() -> dict:
    """The cross-check's cases, ``{NAME: [dict(label, input, output, rtol)]}``: the output is
    :func:`explore`'s without its rounding errors (:data:`ROUNDING`)."""
    out = []
    for label, inp in CASES:
        got = explore(*_case_input(inp))
        out.append(dict(label=label, input=inp, output={k: v for k, v in got.items() if k not in ROUNDING}, rtol=RTOL))
    return {NAME: out}


def export_data(ls=(2, 4, 8, 16, 32)) -> dict:
    """The package's numerical search (:func:`min_max_norm_search`, its defaults) for ``R = diag(-1, 1)``
    at the depths ``ls``: per depth the smallest ``|||A|||`` found, every factor's norm and
    ``det(I + A_i)``. The page shows it when the reader's target is that reflection."""
    R = np.diag([-1.0, 1.0])
    out = {}
    for l in ls:
        found = min_max_norm_search(R, l)
        A = found["A"]
        out[str(l)] = dict(
            norm=found["norm"],
            norms=np.linalg.norm(A, ord=2, axis=(1, 2)).tolist(),
            factor_dets=[float(np.linalg.det(np.eye(2) + Ai)) for Ai in A],
            product_error=float(np.abs(residual_product(A) - R).max()),
        )
    return {NAME: dict(search=out)}
