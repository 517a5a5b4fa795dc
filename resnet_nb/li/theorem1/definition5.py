"""Theorem 1 of Li et al. (chapter: book/theorem1.ipynb): the bookkeeping of Definition 5.

Parameters are addressed in Definition 5 order: the flat index of ``W[r, l][i, j]`` (zero-based
unit r, matrix l, row i, column j) is ``((r n + l) d + j) d + i`` (:func:`param_index`,
:func:`param_coords`). Mixed partial derivatives at any point by nested forward-mode AD
(:func:`mixed_partial`), the data matrices ``Sigma_{Xs}``, ``Sigma_{Ys}`` of Eq. 19
(:func:`data_matrices`) and our closed form of an order-n partial at 0
(:func:`order_n_closed_form`). Also the small, unfriendly data set of the chapter's claims
(:func:`unfriendly_data3`) and an activation that breaks sigma(0) = 0 (:func:`shifted_sigmoid`).
"""

from __future__ import annotations

import warnings

import numpy as np
import torch
from torch.func import jvp as _jvp

from resnet_nb.core.checks import require_int
from resnet_nb.core.data import Dataset, SufficientStats
from resnet_nb.core.networks import Activation, ShortcutNetwork

__all__ = [
    "subsample",
    "param_index",
    "param_coords",
    "covers_unit",
    "mixed_partial",
    "data_matrices",
    "order_n_closed_form",
    "partial_scale",
    "shifted_sigmoid",
    "unfriendly_data3",
]

# torch's forward-mode AD loads its jvp decompositions on first use, and that import emits a
# DeprecationWarning about torch.jit.script from inside torch. Load them once here, quietly,
# so that no warning reaches a notebook (the book builds with warnings as errors).
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*torch.jit.script.*", category=DeprecationWarning)
    import torch._decomp.decompositions_for_jvp  # noqa: F401,E402


def subsample(data: Dataset, every: int) -> Dataset:
    """Every ``every``-th sample of ``data`` (no new PCA: the coordinates stay those of ``data``)."""
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a Dataset, got {type(data).__name__}")
    every = require_int("every", every)
    if every > data.m:
        raise ValueError(f"every must be at most the number of samples {data.m}, got {every}")
    idx = torch.arange(0, data.m, every)
    labels = None if data.labels is None else data.labels[idx.numpy()]
    return Dataset(data.X[:, idx], data.Y[:, idx], labels=labels, info=dict(data.info, subsample=every))


# ------------------------------------------------------------------------------------------
# Parameter bookkeeping (Definition 5)
# ------------------------------------------------------------------------------------------


def param_index(net: ShortcutNetwork, r: int, l: int, i: int, j: int) -> int:
    """Flat Definition-5 index of ``W[r, l][i, j]`` (zero-based unit, matrix, row, column)."""
    for name, val, top in (("r", r, net.R), ("l", l, net.n), ("i", i, net.d), ("j", j, net.d)):
        if isinstance(val, bool) or not isinstance(val, (int, np.integer)) or not 0 <= val < top:
            raise ValueError(f"{name} must be an integer in [0, {top - 1}], got {val!r}")
    return int(((r * net.n + l) * net.d + j) * net.d + i)


def param_coords(net: ShortcutNetwork, a: int) -> tuple[int, int, int, int]:
    """Inverse of :func:`param_index`: ``(r, l, i, j)`` of flat index ``a``."""
    if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or not 0 <= a < net.num_params:
        raise ValueError(f"a must be an integer in [0, {net.num_params - 1}], got {a!r}")
    a = int(a)
    i = a % net.d
    a //= net.d
    j = a % net.d
    a //= net.d
    l = a % net.n
    r = a // net.n
    return r, l, i, j


def covers_unit(net: ShortcutNetwork, indices) -> bool:
    """True when the parameters ``indices`` include an entry of every matrix of some unit."""
    seen = {}
    for a in indices:
        r, l, _, _ = param_coords(net, a)
        seen.setdefault(r, set()).add(l)
    return any(len(ls) == net.n for ls in seen.values())


def mixed_partial(f, w0: torch.Tensor, indices) -> float:
    """``d^N f / dw_{a_1} ... dw_{a_N}`` at ``w0`` by N nested forward-mode derivatives.

    ``indices`` may repeat (a repeated index is a higher pure derivative). Exact up to
    rounding; the cost grows like 2^N evaluations of ``f``.
    """
    indices = [int(a) for a in indices]
    if not indices:
        raise ValueError("indices must name at least one parameter, got an empty list")
    P = w0.numel()
    for a in indices:
        if not 0 <= a < P:
            raise ValueError(f"indices must lie in [0, {P - 1}], got {a}")
    g = f
    for a in indices:
        e = torch.zeros_like(w0)
        e[a] = 1.0
        g = (lambda h, u: lambda w: _jvp(h, (w,), (u,))[1])(g, e)
    return float(g(w0))


def data_matrices(net: ShortcutNetwork, data):
    """``Sigma_{X s}`` and ``Sigma_{Y s}`` with ``s = sigma_pre(X)``: (1/m) X s^T and (1/m) Y s^T."""
    if isinstance(data, SufficientStats):
        if not net.pre.is_identity:
            raise ValueError("a network with a pre-activation needs the samples (a Dataset)")
        return data.Sxx, data.Syx
    s = net.pre(data.X)
    return data.X @ s.T / data.m, data.Y @ s.T / data.m


def order_n_closed_form(net: ShortcutNetwork, data, indices) -> float:
    """Our closed form of an order-n mixed partial at 0 (n = matrices per unit).

    Nonzero only if the n parameters are one entry of each matrix of one unit r that chain,
    ``W[r, l+1][i_{l+1}, j_{l+1}]`` with ``j_{l+1} = i_l``; then it equals
    ``sigma_post'(0) sigma_mid'(0)^(n-1) (Sigma_{Xs} - Sigma_{Ys})[i_{n-1}, j_0]``.
    """
    indices = list(indices)
    if len(indices) != net.n:
        raise ValueError(f"indices must hold exactly n = {net.n} parameters, got {len(indices)}")
    coords = [param_coords(net, a) for a in indices]
    if len({c[0] for c in coords}) != 1 or sorted(c[1] for c in coords) != list(range(net.n)):
        return 0.0
    coords.sort()  # one unit (one r), each matrix l once: the tuples (r, l, i, j) sort by l
    for lo, hi in zip(coords[:-1], coords[1:]):
        if hi[3] != lo[2]:
            return 0.0
    Sxs, Sys = data_matrices(net, data)
    c = net.post.d1_at_zero * net.mid.d1_at_zero ** (net.n - 1)
    return float(c * (Sxs - Sys)[coords[-1][2], coords[0][3]])


def partial_scale(net: ShortcutNetwork, data) -> float:
    """The size of the data matrices, max(|Sigma_Xs - Sigma_Ys|, |Sigma_Xs|): the scale of the
    tolerances of the mixed partials at 0."""
    Sxs, Sys = data_matrices(net, data)
    return max(float((Sxs - Sys).abs().max()), float(Sxs.abs().max()))


def shifted_sigmoid() -> Activation:
    """The logistic sigmoid, sigma(0) = 1/2: an activation that breaks sigma_post(0) = 0."""

    def grad(x):
        s = torch.sigmoid(x)
        return s * (1 - s)

    return Activation("sigmoid", torch.sigmoid, 0.5, 0.25, 0.0, grad)


def unfriendly_data3() -> Dataset:
    """Three coordinates, not whitened (Sxx != I, Syx not symmetric): formulas that silently
    assume Sxx = I or a symmetric M fail here."""
    from resnet_nb.core.data import synthetic_linear

    cov = torch.tensor([[2.0, 0.5, 0.0], [0.5, 1.0, 0.3], [0.0, 0.3, 0.5]], dtype=torch.float64)
    return synthetic_linear(3, 40, cov=cov, seed=1)
