"""Limitations of Li et al. (chapter: book/li_limitations.ipynb), (b): Section 4.1, the output
second moment under He / Xavier initialisation grows geometrically with the number of units."""

from __future__ import annotations

import math

import numpy as np
import torch

from resnet_nb.core import claims
from resnet_nb.core.checks import require_choice, require_float, require_int
from resnet_nb.core.data import whitened_mnist
from resnet_nb.core.networks import ShortcutNetwork

__all__ = [
    "predicted_gain",
    "pre_relu_keep",
    "unhalved_gain",
    "GAIN_CASES",
    "unit_gain",
    "depth_profile",
    "claim_variance_growth",
    "GAINS",
]

_MNIST_CACHE: dict = {}


def _mnist():
    if "d" not in _MNIST_CACHE:
        _MNIST_CACHE["d"] = whitened_mnist()
    return _MNIST_CACHE["d"]


# ==========================================================================================
# (b) Section 4.1: output variance with depth
# ==========================================================================================

#: the activations whose effect on the second moment the predictions cover
GAIN_ACTIVATIONS = ("identity", "relu")

#: per-layer variance of the entries, times d: Xavier (Glorot, fan_in = fan_out) and He (MSRA)
GAINS = {"xavier": 1.0, "he": 2.0, "zero": 0.0}


def predicted_gain(n: int, scheme: str, mid: str = "identity", pre: str = "identity", keep: float = 0.5) -> float:
    """Expected factor by which one unit multiplies the second moment ``E||h||^2``.

    A unit maps h to h + W_n s(... s(W_1 p(h))), each W with i.i.d. N(0, v/d) entries (v = 1
    Xavier, 2 He), ``s`` the mid activation and ``p`` the pre activation. The cross term has mean
    zero; each matrix multiplies the second moment by v, and a ReLU at the mid position halves it
    (its input is symmetric). Hence ``1 + v^n`` (linear) and ``1 + v^n / 2^(n-1)`` (ReLU in the
    middle), for every input h. A ReLU at the pre position as well (pre-activation units) keeps
    the fraction ``keep = ||relu(h)||^2 / ||h||^2`` of the input's second moment: 1/2 when the
    coordinates of h are symmetric about zero, giving ``1 + (v/2)^n``; pass the fraction measured
    on the data (:func:`pre_relu_keep`) for the exact expectation there.
    """
    n = require_int("n", n)
    require_choice("scheme", scheme, tuple(GAINS))
    require_choice("mid", mid, GAIN_ACTIVATIONS)
    require_choice("pre", pre, GAIN_ACTIVATIONS)
    keep = require_float("keep", keep, 0.0, 1.0)
    v = GAINS[scheme]
    branch = v**n / (2.0 ** (n - 1) if mid == "relu" else 1.0)
    return 1.0 + branch * (float(keep) if pre == "relu" else 1.0)


def pre_relu_keep(m: int = 250) -> float:
    """Mean over the ``m`` MNIST inputs of :func:`unit_gain` of ``||relu(x)||^2 / ||x||^2``: the
    fraction of an input's second moment that a ReLU at the pre position keeps (1/2 for inputs whose
    coordinates are symmetric about zero)."""
    m = require_int("m", m)
    X = _mnist().X[:, :: max(1, _mnist().m // m)][:, :m]
    return float(((X.clamp(min=0) ** 2).sum(0) / (X**2).sum(0)).mean())


def unhalved_gain(n: int, scheme: str) -> float:
    """The factor per unit when the ReLU halving is ignored, ``1 + v^n`` whatever the activations: the
    plausible false statement that :func:`claim_variance_growth` rejects."""
    return predicted_gain(n, scheme)


def _draw(shape, scheme, g, d):
    return torch.randn(*shape, d, d, generator=g, dtype=torch.float64) * math.sqrt(GAINS[scheme] / d)


def unit_gain(
    n: int,
    scheme: str,
    mid: str = "identity",
    draws: int = 400,
    m: int = 250,
    seed: int = 0,
    X=None,
    pre: str = "identity",
) -> tuple[float, float]:
    """Monte Carlo estimate of one unit's second-moment factor and its standard error.

    For each of ``draws`` random units, the mean over ``m`` MNIST inputs (or the columns of ``X``)
    of ``||T(h)||^2 / ||h||^2`` (conditionally unbiased for :func:`predicted_gain`); returns the
    mean over draws and its standard error (sample std over draws / sqrt(draws)). Unit k's n
    matrices are the k-th n d x d block of ``torch.randn`` from a generator seeded with ``seed``,
    times ``sqrt(v / d)``, so that a result can be reproduced.
    """
    # a standard error needs two draws (one gave NaN)
    n, draws, m = require_int("n", n), require_int("draws", draws, minimum=2), require_int("m", m)
    require_choice("scheme", scheme, tuple(GAINS))
    require_choice("mid", mid, GAIN_ACTIVATIONS)
    require_choice("pre", pre, GAIN_ACTIVATIONS)
    X = _mnist().X[:, :: max(1, _mnist().m // m)][:, :m] if X is None else X
    d = X.shape[0]
    net = ShortcutNetwork(d, n, 1, mid=mid, pre=pre)
    g = torch.Generator().manual_seed(seed)
    W = _draw((draws, 1, n), scheme, g, d)
    h0 = (X**2).sum(0)
    ratios = torch.stack([((net.unit(W[k, 0], X) ** 2).sum(0) / h0).mean() for k in range(draws)])
    return float(ratios.mean()), float(ratios.std() / math.sqrt(draws))


def depth_profile(
    n: int,
    scheme: str,
    mid: str = "identity",
    R: int = 30,
    draws: int = 200,
    m: int = 100,
    seed: int = 0,
    scale: float = 1.0,
    with_se: bool = False,
):
    """``E||h_r||^2 / E||x||^2`` after r = 0..R units, averaged over ``draws`` networks.

    ``scale`` multiplies every matrix of every branch (``R ** (-1 / (2 n))`` divides each
    branch's second moment by R: a branch of size ``R ** (-1/2)``, a Fixup-like rescaling
    without the zero last layer). With ``with_se`` also returns the standard error of the
    mean over draws at each depth (zeros when ``draws`` is 1). Network k's R n matrices are the
    k-th R n d x d block of ``torch.randn`` from a generator seeded with ``seed``, times
    ``scale sqrt(v / d)``.
    """
    n, R, draws, m = require_int("n", n), require_int("R", R), require_int("draws", draws), require_int("m", m)
    require_choice("scheme", scheme, tuple(GAINS))
    require_choice("mid", mid, GAIN_ACTIVATIONS)
    scale = require_float("scale", scale)
    X = _mnist().X[:, :: max(1, _mnist().m // m)][:, :m]
    d = X.shape[0]
    net = ShortcutNetwork(d, n, 1, mid=mid)
    g = torch.Generator().manual_seed(seed)
    x2 = float((X**2).sum(0).mean())
    out = np.zeros((draws, R + 1))
    for k in range(draws):
        h = X
        out[k, 0] = 1.0
        W = _draw((R, n), scheme, g, d) * scale
        for r in range(R):
            h = net.unit(W[r], h)
            out[k, r + 1] = float((h**2).sum(0).mean()) / x2
    if with_se:
        return out.mean(0), out.std(0, ddof=1) / math.sqrt(draws) if draws > 1 else np.zeros(R + 1)
    return out.mean(0)


#: the cases of :func:`claim_variance_growth` and :func:`gain_table`: (init, mid, pre)
GAIN_CASES = (
    ("xavier", "identity", "identity"),
    ("he", "identity", "identity"),
    ("he", "relu", "identity"),
    ("he", "relu", "relu"),
)


VARIANCE_TITLE = "Section 4.1: second moment grows geometrically with depth"
#: the activations of a case as its part names them, by (mid, pre)
VARIANCE_ACTIVATIONS = {
    ("identity", "identity"): "linear",
    ("relu", "identity"): "ReLU mid",
    ("relu", "relu"): "ReLU pre + mid",
}
VARIANCE_HALVING = {False: "", True: " (halving ignored)"}
VARIANCE_PART = claims.Part(
    "n = 2, {scheme}, {acts}: factor per unit {pred:g}{halving}",
    "|measured - predicted factor|",
    "err",
    "bound",
    "4 standard errors of the Monte Carlo mean over 300 random units",
    nontrivial="growth",
    nontrivial_what="measured growth beyond 1",
    nontrivial_min="bound",
    spread="se",
)


@claims.claim(
    "li-4.1-variance",
    source="Li et al., Section 4.1 (output variance under MSRA initialisation)",
    statement=r"Without batch normalisation, each unit of an identity-shortcut network multiplies the "
    r"output second moment by $1 + v^n$ (linear), $1 + v^n/2^{n-1}$ (ReLU in the middle) or "
    r"$1 + \rho\,v^n/2^{n-1}$ (ReLU at the pre and mid positions, as in pre-activation units; "
    r"$\rho$ the fraction of the input's second moment a ReLU keeps, $1/2$ for symmetric "
    r"inputs, so $1 + (v/2)^n$), $v = 1$ Xavier, $v = 2$ He: geometric growth with depth; zero "
    r"initialisation keeps it equal to the input's.",
    verdict="holds",
    falsifier=r"the ReLU halving ignored: every unit multiplies the second moment by $1 + v^n$ whatever its "
    r"activations (5 for He with $n = 2$, where the ReLU cases give 3 and 2)",
    falsifier_kind="plausible false statement",
    where=["book/li_limitations.ipynb", "tests/li/test_limitations.py"],
)
def claim_variance_growth(falsify: bool = False) -> claims.Check:
    parts = []
    for scheme, mid, pre in GAIN_CASES:
        est, se = unit_gain(2, scheme, mid, draws=300, seed=1, pre=pre)
        pred = unhalved_gain(2, scheme) if falsify else predicted_gain(2, scheme, mid, pre, keep=pre_relu_keep())
        values = dict(
            scheme=scheme,
            acts=VARIANCE_ACTIVATIONS[mid, pre],
            pred=pred,
            halving=VARIANCE_HALVING[bool(falsify)],
            err=abs(est - pred),
            bound=4 * se,
            growth=est - 1.0,
            se=se,
        )
        parts += claims.checks_from([VARIANCE_PART], values)
    return claims.all_of(VARIANCE_TITLE, parts)
