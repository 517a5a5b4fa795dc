"""The Frobenius loss (Eq. 6) and the least-squares optimum (Eqs. 15-16) of Li et al.

``L(w) = 1/(2m) ||Y - f(X)||_F^2``. For a linear network with end-to-end matrix ``W`` it
equals ``1/2 tr(W Sxx W^T) - tr(W Syx^T) + 1/2 tr(Syy)``: no pass over the samples is needed.
"""
from __future__ import annotations

import torch

from .data import Dataset, SufficientStats
from .networks import ShortcutNetwork, end_to_end

__all__ = ["loss_samples", "loss_end_to_end", "loss_stats", "loss", "optimum"]


def loss_samples(net: ShortcutNetwork, W, data: Dataset) -> torch.Tensor:
    """``1/(2m) ||Y - f(X)||_F^2`` computed from the samples (any network)."""
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a resnet_nb.data.Dataset, got {type(data).__name__}")
    if data.Y.shape[0] != net.d or data.X.shape[0] != net.d:
        raise ValueError(f"data has d_x={data.X.shape[0]}, d_y={data.Y.shape[0]} but the network has "
                         f"d={net.d}; identity shortcuts need d_x = d_y = d")
    out = net.forward(W, data.X)
    return 0.5 * ((data.Y.to(out.dtype) - out) ** 2).sum() / data.m


def loss_end_to_end(Wend: torch.Tensor, stats: SufficientStats) -> torch.Tensor:
    """Loss of the linear map ``Wend`` (…, d, d) from sufficient statistics."""
    Sxx, Syx = stats.Sxx.to(Wend), stats.Syx.to(Wend)
    quad = 0.5 * torch.einsum("...ij,jk,...ik->...", Wend, Sxx, Wend)
    lin = torch.einsum("...ij,ij->...", Wend, Syx)
    return quad - lin + 0.5 * stats.trSyy


def loss_stats(net: ShortcutNetwork, W, stats: SufficientStats) -> torch.Tensor:
    """Loss of a *linear* network from ``Sxx``, ``Syx`` and ``tr Syy`` (batched over leading axes)."""
    if stats.d != net.d or stats.Syx.shape != (net.d, net.d):
        raise ValueError(f"stats are for d_x={stats.Syx.shape[1]}, d_y={stats.Syx.shape[0]}; "
                         f"the network has d={net.d}")
    return loss_end_to_end(end_to_end(net, W), stats)


def loss(net: ShortcutNetwork, W, data) -> torch.Tensor:
    """The loss, from sufficient statistics when the network is linear, else from samples."""
    if isinstance(data, SufficientStats):
        return loss_stats(net, W, data)
    if net.is_linear:
        return loss_stats(net, W, data.stats())
    return loss_samples(net, W, data)


def optimum(data) -> tuple[torch.Tensor, float]:
    """The least-squares end-to-end map ``W* = Syx Sxx^+`` (Eq. 15) and ``L_min`` (Eq. 16).

    Any linear network that can represent every d-by-d matrix reaches exactly this loss.
    ``Sxx^+`` is the Moore-Penrose pseudo-inverse, so a rank-deficient ``Sxx`` is allowed.
    """
    stats = data.stats() if isinstance(data, Dataset) else data
    if not isinstance(stats, SufficientStats):
        raise ValueError(f"data must be a Dataset or SufficientStats, got {type(data).__name__}")
    Wstar = stats.Syx @ torch.linalg.pinv(stats.Sxx, hermitian=True)
    return Wstar, float(loss_end_to_end(Wstar, stats))
