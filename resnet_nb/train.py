"""Full-batch gradient descent (Li et al., Eq. 7 and Appendix B), batched over runs.

``W0`` may carry leading axes (runs, learning rates, ...): every slice is an independent
run, and all of them advance in the same tensor operations. A linear network trains on the
sufficient statistics (no pass over the samples); a network with activations on the samples.
A run whose loss becomes non-finite or exceeds ``blowup`` is frozen and marked diverged; the
others carry on.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from tqdm.auto import tqdm

from ._checks import check_int
from .data import Dataset, SufficientStats
from .losses import loss as _loss
from .networks import ShortcutNetwork

__all__ = ["TrainResult", "gradient_descent"]


@dataclass
class TrainResult:
    """Final weights, the loss before each step (``epochs + 1`` entries per run) and flags."""

    W: torch.Tensor
    losses: np.ndarray  # shape (*batch, epochs + 1)
    diverged: np.ndarray  # shape batch, bool
    snapshots: dict  # epoch -> weights (only the epochs asked for)


def gradient_descent(net: ShortcutNetwork, W0: torch.Tensor, data, lr, epochs: int,
                     snapshot_epochs=(), blowup: float = 1e12, progress: bool = False,
                     callback=None) -> TrainResult:
    """Run ``epochs`` steps of ``W <- W - lr * grad L(W)`` from ``W0``.

    Parameters
    ----------
    net : the network.
    W0 : weights (..., R, n, d, d); leading axes are independent runs.
    data : a :class:`Dataset` (or :class:`SufficientStats` for a linear network).
    lr : a positive float, or a tensor broadcastable to the leading axes of ``W0``.
    epochs : number of gradient steps (full batch, so one step is one epoch).
    snapshot_epochs : epochs at which to keep a copy of the weights (e.g. for Hessians).
    callback : ``callback(epoch, W, losses)`` after each step, for live plots.
    """
    epochs = check_int("epochs", epochs, minimum=0)
    if not isinstance(net, ShortcutNetwork):
        raise ValueError(f"net must be a ShortcutNetwork, got {type(net).__name__}")
    if not isinstance(data, (Dataset, SufficientStats)):
        raise ValueError(f"data must be a Dataset or SufficientStats, got {type(data).__name__}")
    if isinstance(data, SufficientStats) and not net.is_linear:
        raise ValueError("a network with activations needs the samples (a Dataset), not SufficientStats")
    if isinstance(data, Dataset) and net.is_linear:
        data = data.stats()
    W = net.check_weights(W0).detach().clone()
    batch = W.shape[:-4]
    if batch and not net.is_linear:
        raise ValueError("batched runs are supported for linear networks only; loop over runs otherwise")
    lr_t = torch.as_tensor(lr, dtype=W.dtype, device=W.device)
    if not torch.isfinite(lr_t).all() or (lr_t <= 0).any():
        raise ValueError(f"lr must be positive and finite, got {lr}")
    lr_t = lr_t.reshape(lr_t.shape + (1,) * 4)
    losses = np.full(tuple(batch) + (epochs + 1,), np.nan)
    alive = torch.ones(batch, dtype=torch.bool, device=W.device)
    snapshots = {}
    wanted = set(int(e) for e in snapshot_epochs)
    it = range(epochs + 1)
    if progress:
        it = tqdm(it, desc=f"GD {net.describe()[:40]}", leave=False)
    for epoch in it:
        W.requires_grad_(True)
        L = _loss(net, W, data)
        (g,) = torch.autograd.grad(L.sum(), W)
        with torch.no_grad():
            bad = ~torch.isfinite(L) | (L > blowup)
            alive = alive & ~bad
            losses[..., epoch] = np.where(alive.cpu().numpy(), L.detach().cpu().numpy(), np.nan)
            if epoch in wanted:
                snapshots[epoch] = W.detach().clone()
            if epoch == epochs:
                break
            step = lr_t * g
            mask = alive.reshape(alive.shape + (1,) * 4).to(W.dtype)
            W = (W - mask * torch.nan_to_num(step)).detach()
        if callback is not None:
            callback(epoch, W, losses)
    return TrainResult(W.detach(), losses, (~alive).cpu().numpy(), snapshots)
