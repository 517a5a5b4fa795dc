"""The pairing of inputs with outputs (chapter: book/theorem1_dynamics.ipynb).

Li et al.'s data pair input coordinate i with output coordinate i; how the Hessian at 0 depends
on that convention: :func:`relabel`, :func:`convention_table`, :func:`sign_sweep`,
:func:`order_sweep`, :func:`controlled_residual`, :func:`residual_table`.
"""

from __future__ import annotations

import numpy as np
import torch

from resnet_nb.core.checks import require_float, require_int
from resnet_nb.core.data import Dataset, require_order, sign_convention
from resnet_nb.core.hessians import cond_max_min, cond_percentile, hessian_linear, spectrum
from resnet_nb.core.losses import loss_end_to_end, optimum
from resnet_nb.core.networks import ShortcutNetwork

__all__ = [
    "relabel",
    "convention_table",
    "sign_sweep",
    "order_sweep",
    "controlled_residual",
    "residual_table",
]


def relabel(data: Dataset, signs="svd_flip", order=None) -> Dataset:
    """Re-pair inputs with outputs: input coordinate i becomes ``signs[i] * X[order[i]]``.

    The conventions of :func:`resnet_nb.core.data.whitened_mnist` (``order`` first, then ``signs``,
    through the same :func:`resnet_nb.core.data.sign_convention`), applied to an existing data set so
    that no new PCA is needed. Targets are unchanged.
    """
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a Dataset, got {type(data).__name__}")
    order = require_order(order, data.d)
    X = data.X if order is None else data.X[torch.as_tensor(order)]
    flip = torch.as_tensor(sign_convention(X, data.Y, signs), dtype=torch.float64)
    return Dataset(
        X * flip[:, None],
        data.Y,
        labels=data.labels,
        info=dict(
            data.info,
            relabel=dict(
                signs=signs if isinstance(signs, str) else flip.tolist(),
                order=None if order is None else order.tolist(),
            ),
        ),
    )


def _cond_of_M(Sxx, Syx):
    sv = torch.linalg.svdvals(Sxx - Syx)
    return sv.max(dim=-1).values / sv.min(dim=-1).values


def convention_table(data: Dataset, conventions) -> list[dict]:
    """Condition numbers at 0 for several pairings of input and output coordinates.

    ``conventions``: (name, signs, order) triples for :func:`relabel`. Each row: the
    2-shortcut condition number sigma_max/sigma_min of M = Sigma_XX - Sigma_YX (Part 2: the
    same at every depth), read from the exact Hessian of one unit as well, and the paper's
    10th-percentile condition number of a 1-shortcut network with 8 units.
    """
    rows = []
    for name, signs, order in conventions:
        dd = relabel(data, signs, order)
        st = dd.stats()
        net2 = ShortcutNetwork(dd.d, 2, 1)
        eigs2 = spectrum(hessian_linear(net2, torch.zeros(net2.shape, dtype=torch.float64), st))
        net1 = ShortcutNetwork(dd.d, 1, 8)
        eigs1 = spectrum(hessian_linear(net1, torch.zeros(net1.shape, dtype=torch.float64), st))
        rows.append(
            dict(
                convention=name,
                cond_M=float(_cond_of_M(st.Sxx, st.Syx)),
                cond_H_2shortcut=cond_max_min(eigs2),
                cond10_1shortcut_R8=cond_percentile(eigs1, 10),
                trace_Syx=float(torch.trace(st.Syx)),
            )
        )
    return rows


def sign_sweep(data: Dataset) -> np.ndarray:
    """sigma_max/sigma_min of M = Sigma_XX - Sigma_YX D for every sign pattern D (2^d of them).

    Flipping input coordinate i flips column i of Sigma_YX and leaves Sigma_XX's diagonal;
    for whitened data Sigma_XX = I is unchanged. Returns an array of 2^d condition numbers,
    pattern k having sign -1 at coordinate i when bit i of k is set.
    """
    d = data.d
    if d > 16:
        raise ValueError(f"sign_sweep enumerates 2^d patterns; d must be <= 16, got {d}")
    st = data.stats()
    k = torch.arange(2**d)
    D = 1.0 - 2.0 * ((k[:, None] >> torch.arange(d)) & 1).to(torch.float64)  # (2^d, d)
    Sxx = D[:, :, None] * st.Sxx * D[:, None, :]
    Syx = st.Syx * D[:, None, :]
    return _cond_of_M(Sxx, Syx).numpy()


def order_sweep(data: Dataset, count: int = 2000, seed: int = 0) -> np.ndarray:
    """sigma_max/sigma_min of M for ``count`` random orders of the input coordinates."""
    count = require_int("count", count)
    st = data.stats()
    g = torch.Generator().manual_seed(int(seed))
    perms = torch.stack([torch.randperm(data.d, generator=g) for _ in range(count)])
    Sxx = st.Sxx[perms[:, :, None], perms[:, None, :]]
    Syx = st.Syx[:, perms].permute(1, 0, 2)
    return _cond_of_M(Sxx, Syx).numpy()


def controlled_residual(d: int = 10, size: float = 0.5, smallest: float = 0.5, seed: int = 0) -> torch.Tensor:
    """A target map Q with a residual I - Q of chosen size and conditioning:
    I - Q = size * U diag(s) V^T with s geometric from 1 down to ``smallest`` and U, V Haar-random
    orthogonal, so ||I - Q|| = size and sigma_min(I - Q) = size * smallest."""
    d = require_int("d", d)
    size = require_float("size", size, low=0.0, low_open=True)
    smallest = require_float("smallest", smallest, low=0.0, low_open=True, high=1.0)
    g = torch.Generator().manual_seed(int(seed))
    U, _ = torch.linalg.qr(torch.randn(d, d, generator=g, dtype=torch.float64))
    V, _ = torch.linalg.qr(torch.randn(d, d, generator=g, dtype=torch.float64))
    s = torch.from_numpy(np.geomspace(1.0, smallest, d))  # float64
    return torch.eye(d, dtype=torch.float64) - size * (U * s) @ V.T


def residual_table(cases) -> list[dict]:
    """For data y = Q x + noise (:func:`resnet_nb.core.data.synthetic_linear`), the residual I - Q against
    the condition number of M = Sigma_XX - Sigma_YX under the natural pairing, with every sign
    flipped, and over all 2^d sign patterns.

    ``cases``: (name, Dataset) pairs whose ``info["R"]`` is Q. Each row: ||I - Q||, sigma_min(I - Q),
    cond(I - Q), cond(M) as generated and all signs flipped, the smallest and largest cond(M) over the
    sign patterns, and the loss at w = 0 (the identity map) over L_min.
    """
    rows = []
    for name, data in cases:
        if not isinstance(data, Dataset) or "R" not in data.info:
            raise ValueError(f"{name}: need a Dataset from synthetic_linear (info['R'] is the target map)")
        Q = data.info["R"]
        sv = torch.linalg.svdvals(torch.eye(data.d, dtype=torch.float64) - Q)
        st = data.stats()
        flipped = relabel(data, [-1] * data.d).stats()
        sweep = sign_sweep(data)
        L0 = float(loss_end_to_end(torch.eye(data.d, dtype=torch.float64), st))
        rows.append(
            dict(
                case=name,
                res_norm=float(sv.max()),
                res_min=float(sv.min()),
                cond_res=float(sv.max() / sv.min()),
                cond_M=float(_cond_of_M(st.Sxx, st.Syx)),
                cond_M_flipped=float(_cond_of_M(flipped.Sxx, flipped.Syx)),
                sweep_min=float(sweep.min()),
                sweep_max=float(sweep.max()),
                loss_ratio=L0 / float(optimum(st)[1]),
            )
        )
    return rows
