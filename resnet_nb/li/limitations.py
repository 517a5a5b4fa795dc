"""Limitations of Li et al. (chapter: book/li_limitations.ipynb): four of their remarks checked on the
book's networks.

The chapter calls these functions (its key figure is drawn by
:func:`resnet_nb.book.li_figures.limitations_key_figure`); each section's claim is
declared here, beside the function that checks it (see :mod:`resnet_nb.book.ledger`).

* (a) :func:`fixup_start`, :func:`fixup_point`: the zero-last-layer start of Fixup and zero-gamma
  (a unit's last matrix zero, the others random) is not the flat all-zero point of Theorem 1.
* (b) :func:`unit_gain`, :func:`depth_profile`: Section 4.1, the output second moment under
  He / Xavier initialisation grows geometrically with the number of units.
* (c) :func:`product_log_spread`: Section 2, products of factors ``1 + eps_i``.
* (d) :func:`critical_points`: Section 5.2, loss and index at the exact critical points of a
  linear 2-shortcut network.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import torch
from torch.func import grad as _fgrad

from resnet_nb.core import claims
from resnet_nb.core.checks import check_choice, check_int
from resnet_nb.core.data import Dataset, synthetic_linear, whitened_mnist
from resnet_nb.core.hessians import hessian, hessian_linear, loss_function, resolution_floor, spectrum
from resnet_nb.core.init import initialise
from resnet_nb.core.losses import loss
from resnet_nb.core.networks import ShortcutNetwork, flatten

__all__ = [
    "fixup_start",
    "fixup_point",
    "predicted_gain",
    "pre_relu_keep",
    "unhalved_gain",
    "GAIN_CASES",
    "unit_gain",
    "depth_profile",
    "product_log_spread",
    "predicted_log_std",
    "deviation",
    "product_table",
    "gain_table",
    "whitened_synthetic",
    "critical_points",
    "mixed_block_rank",
    "zero_eigen_counts",
    "spearman_test",
    "discordant_pairs",
    "widest_discordant_pair",
    "index_ordered_by_rank",
    "check_fixup_not_flat",
    "check_variance_growth",
    "check_product_band",
    "check_index_vs_loss",
]

_MNIST_CACHE: dict = {}


def _mnist():
    if "d" not in _MNIST_CACHE:
        _MNIST_CACHE["d"] = whitened_mnist()
    return _MNIST_CACHE["d"]


# ==========================================================================================
# (a) The zero point versus the zero-last-layer start of practical residual networks
# ==========================================================================================


def fixup_start(net: ShortcutNetwork, seed: int = 0, fixup_scale: bool = True) -> torch.Tensor:
    """A "Fixup-like" start: in each unit the last matrix is zero, the others Xavier-random.

    With ``fixup_scale`` the random matrices are multiplied by ``R ** (-1 / (2 n - 2))``, the
    rescaling of Zhang, Dauphin & Ma (2019) for R branches of n layers (n >= 2). Zero-gamma
    (Goyal et al. 2017) zeroes the same last layer through the batch-norm scale.
    """
    if net.n < 2:
        raise ValueError(f"a zero-last-layer start needs n >= 2 matrices per unit, got n = {net.n}")
    W = initialise(net, "xavier", seed=seed)
    if fixup_scale:
        W[:, :-1] *= net.R ** (-1.0 / (2 * net.n - 2))
    W[:, -1] = 0.0
    return W


def mixed_block_rank(H: torch.Tensor, net: ShortcutNetwork, floor: float) -> tuple[int, int, int, float]:
    """Split the Hessian at a zero-last-layer start into the block of the matrices W_{r,l},
    l < n (every unit), and the rest; return (size of that block, rank of the mixed block B).

    If the first block is zero, ``H = [[0, B], [B^T, C]]`` (up to a permutation), and when B
    has full column rank k its inertia follows from B alone: exactly k negative and k positive
    eigenvalues, the rest zero (the null space of ``B^T`` gives the zeros, and on the rest H is
    congruent to ``[[0, S], [S^T, 0]]`` with S square and invertible, eigenvalues ``+-s_i``).
    Returns (size of the first block, rank B, number of columns of B, max |first block|).
    """
    d2 = net.d * net.d
    lead = torch.zeros(net.shape[:2], dtype=torch.bool)
    lead[:, :-1] = True  # W_{r,l} with l < n: flatten() orders parameters as W[r, l]
    idx0 = torch.repeat_interleave(lead.flatten(), d2)
    B = H[idx0][:, ~idx0]
    sv = torch.linalg.svdvals(B)
    return (int(idx0.sum()), int((sv > floor).sum()), int(B.shape[1]), float(H[idx0][:, idx0].abs().max()))


def fixup_point(n: int = 3, R: int = 2, seed: int = 0, data=None) -> dict:
    """Gradient and Hessian of a linear n-shortcut network at the zero-last-layer start.

    Returns the Hessian by autograd and by the Kronecker formula, its spectrum, the gradient
    norm, the largest entry of the block of the matrices W_{r,l}, l < n (which must vanish),
    the rank of the mixed block, and the same two numbers (gradient norm, max |H|) at the
    all-zero point.
    """
    key = (n, R, seed)
    if data is None and key in _FIXUP_CACHE:
        return _FIXUP_CACHE[key]
    out = _fixup_point(n, R, seed, _mnist() if data is None else data)
    if data is None:
        _FIXUP_CACHE[key] = out
    return out


_FIXUP_CACHE: dict = {}


def _fixup_point(n, R, seed, data):
    net = ShortcutNetwork(data.d, n, R)
    stats = data.stats()
    W = fixup_start(net, seed=seed)
    f = loss_function(net, stats)
    w = flatten(W)
    g = _fgrad(f)(w)
    Ha = hessian(net, W, stats)
    Hk = hessian_linear(net, W, stats)
    eigs = spectrum(Ha)
    floor = resolution_floor(eigs)
    p0, rank_B, cols_B, lead_max = mixed_block_rank(Ha, net, floor)
    zero = torch.zeros(net.shape, dtype=torch.float64)
    H0 = hessian(net, zero, stats)
    g0 = _fgrad(f)(flatten(zero))
    return dict(
        net=net,
        W=W,
        grad_norm=float(g.norm()),
        H_autograd=Ha,
        H_kronecker=Hk,
        eigs=eigs,
        floor=floor,
        negative=int((eigs < -floor).sum()),
        positive=int((eigs > floor).sum()),
        max_H=float(Ha.abs().max()),
        lead_block=p0,
        lead_max=lead_max,
        rank_B=rank_B,
        cols_B=cols_B,
        zero_grad_norm=float(g0.norm()),
        zero_max_H=float(H0.abs().max()),
    )


@claims.claim(
    "lim-fixup-not-flat",
    source="Li et al., Section 1 (reading of He et al.) and Theorem 1, n >= 3",
    statement=r"At a zero-last-layer start (each unit's last matrix zero, the others random, as in "
    r"Fixup and zero-$\gamma$), a linear 3-shortcut network on whitened MNIST ($R = 2$) is a "
    r"non-stationary point with an indefinite Hessian of inertia $(k, k, p - 2k)$: the gradient "
    r"is not zero, the Hessian block of every matrix $W_{r,l}$, $l < n$, of every unit vanishes, "
    r"and the Hessian has exactly $k = \operatorname{rank} B$ negative, $k$ positive and "
    r"$p - 2k = (n - 2) R d^2$ zero eigenvalues ($B$ the mixed block, $p$ the number of "
    r"parameters); it is not the flat point Theorem 1 describes at $w = 0$.",
    verdict="holds",
    falsifier=r"the size $p - k$ of the zero block taken as the number of zero eigenvalues, inertia "
    r"$(k, k, p - k)$ (a misreading of the block argument: the zeros are the null space of "
    r"$B^\top$ inside that block, $p - 2k$ of them); the check's own zero count run on $p - k$",
    falsifier_kind="plausible false statement",
    where=["book/li_limitations.ipynb", "tests/li/test_limitations.py"],
)
def check_fixup_not_flat(falsify: bool = False) -> claims.Check:
    p = fixup_point()
    Ha, Hk = p["H_autograd"], p["H_kronecker"]
    P = p["net"].num_params
    size = p["max_H"]
    tol, crit = claims.eps_criterion(P, size)
    agree = claims.Check(
        "Hessian at the zero-last-layer start, two routes",
        "max |H_autograd - H_Kronecker|",
        float((Ha - Hk).abs().max()),
        tol,
        crit,
        nontrivial=size,
        nontrivial_what="max |H|",
    )
    gtol, gcrit = claims.eps_criterion(P, max(size, 1.0))
    k = p["rank_B"]
    zeros = len(p["eigs"]) - p["negative"] - p["positive"]
    z_pred = P - k if falsify else P - 2 * k
    z_what = "p - k" if falsify else "p - 2k"
    parts = [
        agree,
        claims.Check(
            "mixed block B has full column rank",
            "cols B - rank B",
            p["cols_B"] - k,
            0,
            "exact rank (singular values above P eps |lambda|max)",
        ),
        claims.Check(
            "block of the W_{r,l}, l < n, of all units is zero",
            "max |H_block|",
            p["lead_max"],
            tol,
            crit,
            nontrivial=size,
            nontrivial_what="max |H|",
        ),
        claims.Check("gradient is not zero", "||grad L||", p["grad_norm"], gtol, gcrit + " (rounding level)", op=">="),
        claims.Check(
            "negative eigenvalues = rank of the mixed block B",
            "|#negative - rank B|",
            abs(p["negative"] - k),
            0,
            "exact count (floor P eps |lambda|max)",
            nontrivial=k,
            nontrivial_what="rank B",
        ),
        claims.Check(
            "positive eigenvalues = rank of the mixed block B",
            "|#positive - rank B|",
            abs(p["positive"] - k),
            0,
            "exact count (floor P eps |lambda|max)",
            nontrivial=k,
            nontrivial_what="rank B",
        ),
        claims.Check(
            f"zero eigenvalues = {z_what} = {z_pred}",
            f"|#zero - ({z_what})|",
            abs(zeros - z_pred),
            0,
            "exact count (floor P eps |lambda|max)",
        ),
    ]
    return claims.all_of(
        "zero-last-layer start of a linear 3-shortcut network: non-stationary, "
        f"indefinite Hessian of inertia (k, k, {z_what})",
        parts,
        lines=[f"at w = 0: ||grad L|| = {p['zero_grad_norm']:.1e}, max |H| = {p['zero_max_H']:.1e}"],
    )


# ==========================================================================================
# (b) Section 4.1: output variance with depth
# ==========================================================================================

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
    check_choice("scheme", scheme, tuple(GAINS))
    check_choice("mid", mid, ("identity", "relu"))
    check_choice("pre", pre, ("identity", "relu"))
    v = GAINS[scheme]
    branch = v**n / (2.0 ** (n - 1) if mid == "relu" else 1.0)
    return 1.0 + branch * (float(keep) if pre == "relu" else 1.0)


def pre_relu_keep(m: int = 250) -> float:
    """Mean over the ``m`` MNIST inputs of :func:`unit_gain` of ``||relu(x)||^2 / ||x||^2``: the
    fraction of an input's second moment that a ReLU at the pre position keeps (1/2 for inputs whose
    coordinates are symmetric about zero)."""
    X = _mnist().X[:, :: max(1, _mnist().m // m)][:, :m]
    return float(((X.clamp(min=0) ** 2).sum(0) / (X**2).sum(0)).mean())


def unhalved_gain(n: int, scheme: str) -> float:
    """The factor per unit when the ReLU halving is ignored, ``1 + v^n`` whatever the activations: the
    plausible false statement that :func:`check_variance_growth` rejects."""
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

    For each of ``draws`` random units, the mean over ``m`` MNIST inputs of
    ``||T(h)||^2 / ||h||^2`` (conditionally unbiased for :func:`predicted_gain`); returns the
    mean over draws and its standard error.
    """
    draws, m = check_int("draws", draws), check_int("m", m)
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
    mean over draws at each depth.
    """
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


#: the cases of :func:`check_variance_growth` and :func:`gain_table`: (init, mid, pre)
GAIN_CASES = (
    ("xavier", "identity", "identity"),
    ("he", "identity", "identity"),
    ("he", "relu", "identity"),
    ("he", "relu", "relu"),
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
def check_variance_growth(falsify: bool = False) -> claims.Check:
    parts = []
    for scheme, mid, pre in GAIN_CASES:
        est, se = unit_gain(2, scheme, mid, draws=300, seed=1, pre=pre)
        pred = unhalved_gain(2, scheme) if falsify else predicted_gain(2, scheme, mid, pre, keep=pre_relu_keep())
        acts = "linear" if mid == pre == "identity" else ("ReLU mid" if pre == "identity" else "ReLU pre + mid")
        parts.append(
            claims.Check(
                f"n = 2, {scheme}, {acts}: factor per unit {pred:g}" + (" (halving ignored)" if falsify else ""),
                "|measured - predicted factor|",
                abs(est - pred),
                4 * se,
                "4 standard errors of the Monte Carlo mean over 300 random units",
                nontrivial=est - 1.0,
                nontrivial_what="measured growth beyond 1",
                nontrivial_min=4 * se,
                spread=se,
            )
        )
    return claims.all_of("Section 4.1: second moment grows geometrically with depth", parts)


# ==========================================================================================
# (c) Section 2: products of factors close to one
# ==========================================================================================

#: how the deviation of each factor scales with the number of factors L
SCALINGS = ("fixed", "sqrt", "linear")


def deviation(L: int, size: float, scaling: str) -> float:
    """The deviation ``a`` of each factor ``1 +- a``: ``size``, ``size / sqrt(L)`` or ``size / L``."""
    check_choice("scaling", scaling, SCALINGS)
    return size / {"fixed": 1.0, "sqrt": math.sqrt(L), "linear": float(L)}[scaling]


def product_log_spread(L: int, size: float, scaling: str = "fixed", draws: int = 200, seed: int = 0) -> np.ndarray:
    """``log prod_i (1 + eps_i)`` for ``draws`` draws of L factors with random signs.

    ``eps_i = +-a`` with independent fair signs and ``a = deviation(L, size, scaling)``: a
    deviation of fixed size, one that shrinks like ``1/sqrt(L)`` (a residual branch of size
    ``1/sqrt(R)``) or like ``1/L``. The products are multiplied factor by factor (in logs, so
    that they neither overflow nor underflow).
    """
    L, draws = check_int("L", L), check_int("draws", draws)
    a = deviation(L, size, scaling)
    if not 0 < a < 1:
        raise ValueError(f"the deviation a must lie in (0, 1), got {a}")
    rng = np.random.default_rng(seed)
    signs = rng.integers(0, 2, size=(draws, L), dtype=np.int8) * 2 - 1
    return np.log1p(a * signs).sum(1)


def predicted_log_std(L: int, a: float) -> float:
    """Standard deviation of ``sum_i log(1 +- a)`` over L fair signs: ``sqrt(L) atanh(a)``
    (each term is ``(log(1+a) + log(1-a))/2 +- atanh(a)``); about ``sqrt(L) a`` for small a."""
    return math.sqrt(L) * math.atanh(a)


#: the depths of (c) and the deviation sizes: a fixed, c / sqrt(L) and c / L
PRODUCT_DEPTHS = (10, 100, 1000, 10000)
PRODUCT_C = 1.0
PRODUCT_A = 0.2
PRODUCT_DRAWS = 2000


def product_table(depths=None, a: float = None, c: float = None, draws: int = PRODUCT_DRAWS):
    """One row per depth L: the measured and predicted spread of ``log prod`` for deviations of
    fixed size ``a`` and of size ``c / sqrt(L)``, the median product for fixed ``a``, and the
    largest ``|log prod|`` for deviations ``c / L`` beside its bound ``c / (1 - c/L)``."""
    import pandas as pd

    depths = PRODUCT_DEPTHS if depths is None else depths
    a = PRODUCT_A if a is None else a
    c = PRODUCT_C if c is None else c
    rows = []
    for L in depths:
        fixed = product_log_spread(L, a, "fixed", draws=draws, seed=L)
        sqrt_ = product_log_spread(L, c, "sqrt", draws=draws, seed=L + 1)
        lin = product_log_spread(L, c, "linear", draws=draws, seed=L + 2)
        rows.append(
            {
                "L": L,
                "a: std log": fixed.std(ddof=1),
                "a: √L atanh a": predicted_log_std(L, a),
                "a: median prod": np.exp(np.median(fixed)),
                "c/√L: std log": sqrt_.std(ddof=1),
                "c/√L: predicted": predicted_log_std(L, deviation(L, c, "sqrt")),
                "c/L: max |log|": np.abs(lin).max(),
                "c/L: bound": c / (1 - c / L),
            }
        )
    return pd.DataFrame(rows)


def gain_table(ns=(2, 3), draws: int = 200):
    """Predicted and measured second-moment factor per unit for the cases of :data:`GAIN_CASES`; the
    prediction uses the fraction a pre ReLU keeps on the data (:func:`pre_relu_keep`), the column
    "symmetric inputs" the idealised 1/2."""
    import pandas as pd

    rows = []
    for n in ns:
        for scheme, mid, pre in GAIN_CASES:
            est, se = unit_gain(n, scheme, mid, draws=draws, seed=n, pre=pre)
            rows.append(
                {
                    "n": n,
                    "init": scheme,
                    "pre": pre,
                    "mid": mid,
                    "predicted g": predicted_gain(n, scheme, mid, pre, keep=pre_relu_keep()),
                    "symmetric inputs": predicted_gain(n, scheme, mid, pre),
                    "measured g": est,
                    "std. error": se,
                }
            )
    return pd.DataFrame(rows)


@claims.claim(
    "li-2-unit-norm",
    source="Li et al., Section 2 (singular values near one; unit-norm remark)",
    statement=r"Read with the sentence before it (singular values 'are not supposed to be deviating "
    r"too much from one'): a product of $L$ factors $1 \pm a$ with random signs explodes or "
    r"vanishes when $a$ is fixed (the spread of its logarithm is $\sqrt L\,\operatorname{atanh} a"
    r"\approx \sqrt L\,a$) and stays bounded when $a = c/\sqrt L$ (spread about $c$) or "
    r"$a = c/L$; factors need not have exactly unit norm.",
    verdict="holds",
    falsifier=r"the literal reading, unit norm exactly: factors that are not 1 cannot keep the product "
    r"bounded, so with $a = c/\sqrt L$ the spread of the log still grows with $L$ (from "
    r"$L = 10$ to $L = 10{,}000$ by more than 4 standard errors)",
    falsifier_kind="implied by the check",
    where=["book/li_limitations.ipynb", "tests/li/test_limitations.py"],
)
def check_product_band(falsify: bool = False) -> claims.Check:
    if falsify:
        L0, L1 = PRODUCT_DEPTHS[0], PRODUCT_DEPTHS[-1]
        sd = [
            float(product_log_spread(L, PRODUCT_C, "sqrt", draws=PRODUCT_DRAWS, seed=L + 1).std(ddof=1))
            for L in (L0, L1)
        ]
        se = math.hypot(*sd) / math.sqrt(2 * (PRODUCT_DRAWS - 1))
        return claims.Check(
            f"literal reading: with a = {PRODUCT_C:g}/sqrt(L) the spread of log prod grows "
            f"from L = {L0:,} to L = {L1:,}",
            "std(L_max) - std(L_min)",
            sd[1] - sd[0],
            4 * se,
            f"4 standard errors of the difference of two sample stds over {PRODUCT_DRAWS:,} draws",
            op=">=",
            nontrivial=sd[1],
            nontrivial_what="measured std at L_max",
            spread=se,
        )
    parts = []
    for scaling, size in (("fixed", PRODUCT_A), ("sqrt", PRODUCT_C)):
        for L in (PRODUCT_DEPTHS[0], PRODUCT_DEPTHS[-1]):
            a = deviation(L, size, scaling)
            logs = product_log_spread(L, size, scaling, draws=PRODUCT_DRAWS, seed=L + (scaling == "sqrt"))
            sd = float(logs.std(ddof=1))
            pred = predicted_log_std(L, a)
            what = f"a = {size:g}" if scaling == "fixed" else f"a = {size:g}/sqrt(L)"
            se = sd / math.sqrt(2 * (PRODUCT_DRAWS - 1))  # standard error of a sample std
            parts.append(
                claims.Check(
                    f"L = {L:,}, {what}: spread of log prod = {pred:.3g}",
                    "|measured - predicted| std",
                    abs(sd - pred),
                    4 * se,
                    f"4 standard errors of a sample std over {PRODUCT_DRAWS:,} draws",
                    nontrivial=sd,
                    nontrivial_what="measured std",
                    spread=se,
                )
            )
    return claims.all_of("Section 2: products of factors 1 +- a", parts)


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
    net = ShortcutNetwork(d, 2, check_int("R", R))
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
    """Spearman's rank correlation of x and y and the q-th percentile of its permutation null."""
    from scipy.stats import rankdata

    rx, ry = rankdata(x), rankdata(y)

    def rho(a, b):
        a, b = a - a.mean(), b - b.mean()
        den = math.sqrt((a**2).sum() * (b**2).sum())
        return float((a * b).sum() / den) if den > 0 else 0.0

    rng = np.random.default_rng(seed)
    perm = rng.permuted(np.tile(ry, (permutations, 1)), axis=1)
    a, b = rx - rx.mean(), perm - perm.mean(1, keepdims=True)
    null = (b @ a) / np.sqrt((a**2).sum() * (b**2).sum(1))
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
def check_index_vs_loss(falsify: bool = False) -> claims.Check:
    df = critical_points()
    P = df.attrs["P"]
    size = float(df["H_size"].max())
    tol, crit = claims.eps_criterion(P, size)
    gtol, gcrit = claims.eps_criterion(P, max(size, 1.0))
    sign = -1.0 if falsify else 1.0
    rho, thr = spearman_test(df["loss"].to_numpy(), sign * df["index"].to_numpy())
    spread = float(df["index"].max() - df["index"].min())
    parts = [
        claims.Check("the points are critical", "max ||grad L||", float(df["grad"].max()), gtol, gcrit),
        claims.Check(
            "Hessians, two routes",
            "max |H_autograd - H_Kronecker|",
            float(df["H_diff"].max()),
            tol,
            crit,
            nontrivial=size,
            nontrivial_what="max |H|",
        ),
        claims.Check(
            "index " + ("decreases" if falsify else "increases") + " with loss",
            "Spearman rho(loss, " + ("-" if falsify else "") + "index)",
            rho,
            thr,
            "99th percentile of rho over 10,000 random pairings",
            op=">=",
            nontrivial=spread,
            nontrivial_what="range of the index",
        ),
    ]
    return claims.all_of(
        "Section 5.2: larger loss, larger index",
        parts,
        lines=[f"{len(df)} critical points; discordant pairs: {discordant_pairs(df)}"],
    )
