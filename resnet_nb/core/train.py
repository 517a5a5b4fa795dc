"""Full-batch gradient descent (Li et al., Eq. 7 and Appendix B), batched over runs, for the experiment
chapters (book/exp_learning.ipynb, book/exp_dynamics.ipynb).

``W0`` may carry leading axes (runs, learning rates, ...): every slice is an independent
run, and all of them advance in the same tensor operations.

* A **linear** network trains on the sufficient statistics (no pass over the samples), with
  the gradient in closed form, Eq. 7 of Li et al.:
  ``dL/dW_{r,l} = (W^after_{r,l} W^after_r)^T (W Sxx - Syx) (W^before_{r,l} W^before_r)^T``
  (the sign is that of the gradient; the update subtracts ``lr`` times it), computed with
  one forward and one backward sweep of small batched matrix products, no autograd graph.
* A network with activations trains on the samples, by autograd, batched over runs too.

A run whose loss becomes non-finite or exceeds ``blowup`` is frozen and marked diverged; the
others carry on.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass

import numpy as np
import torch
from tqdm.auto import tqdm

from resnet_nb.core.checks import ArgumentTypeError, require_float, require_int
from resnet_nb.core.data import Dataset, SufficientStats
from resnet_nb.core.networks import ShortcutNetwork

__all__ = [
    "TrainResult",
    "gradient_descent",
    "linear_loss_and_grad",
    "samples_loss_and_grad",
    "prefix_products",
    "suffix_products",
    "batched_forward",
    "batched_sample_loss",
    "torch_threads",
]


@dataclass
class TrainResult:
    """Final weights, the loss before each step (``epochs + 1`` entries per run) and flags.

    ``losses[..., t]`` is the loss after ``t`` steps (NaN from the step a run diverged on);
    ``grad_norms[..., t]`` the Frobenius norm of the gradient there; ``snapshots`` maps an
    epoch to the weights after that many steps.
    """

    W: torch.Tensor
    losses: np.ndarray  # shape (*batch, epochs + 1)
    diverged: np.ndarray  # shape batch, bool
    snapshots: dict  # epoch -> weights (only the epochs asked for)
    grad_norms: np.ndarray | None = None  # shape (*batch, epochs + 1)


def prefix_products(T: torch.Tensor) -> torch.Tensor:
    """``P[..., r, :, :] = T[r] @ T[r-1] @ ... @ T[0]`` for every r (over axis -3)."""
    out = [T[..., 0, :, :]]
    for r in range(1, T.shape[-3]):
        out.append(T[..., r, :, :] @ out[-1])
    return torch.stack(out, dim=-3)


def suffix_products(T: torch.Tensor) -> torch.Tensor:
    """``S[..., r, :, :] = T[R-1] @ ... @ T[r+1] @ T[r]`` for every r."""
    out = [T[..., -1, :, :]]
    for r in range(T.shape[-3] - 2, -1, -1):
        out.append(out[-1] @ T[..., r, :, :])
    return torch.stack(out[::-1], dim=-3)


def linear_loss_and_grad(net: ShortcutNetwork, W: torch.Tensor, stats: SufficientStats):
    """Loss (Eq. 6 via Eqs. 8-9) and its gradient (Eq. 7) for a linear network, batched.

    ``W`` has shape (..., R, n, d, d); returns ``(loss (...), grad (..., R, n, d, d))``.
    """
    Wu = W.movedim(-4, 0).movedim(-3, 1).contiguous()
    loss, g = _loss_and_grad_unit_major(net, Wu, stats.Sxx.to(W), stats.Syx.to(W), stats.trSyy)
    return loss, g.movedim(1, -3).movedim(0, -4)


def _loss_and_grad_unit_major(net, Wu, Sxx, Syx, trSyy):
    """:func:`linear_loss_and_grad` on weights stored unit-major, ``Wu`` of shape (R, n, ..., d, d).

    With ``T_r`` the map of unit r (``I + W_{r,n} ... W_{r,1}``, or the product alone without
    shortcut) and ``E = T_R ... T_1``, ``dL/dE = E Sxx - Syx`` and
    ``dL/dT_r = (T_R ... T_{r+1})^T (E Sxx - Syx) (T_{r-1} ... T_1)^T``: one sweep forward for
    the products before each unit, one sweep backward carrying ``(T_R ... T_{r+1})^T dL/dE``
    (as its transpose), then one batched product for all units. Keeping the unit axis first
    makes every slice ``T[r]`` contiguous, so each small batched product runs without copies.
    """
    n, R = net.n, net.R
    eye = torch.eye(Wu.shape[-1], dtype=Wu.dtype, device=Wu.device)
    # Within each unit: inner[l] = W_{l-1} ... W_0 (products *before* W_l; unused for l = 0).
    inner = [None]
    for l in range(1, n):
        inner.append(Wu[:, l - 1] @ inner[-1] if l > 1 else Wu[:, 0])
    U = Wu[:, n - 1] @ inner[-1] if n > 1 else Wu[:, 0]
    T = U + eye if net.shortcut else U  # (R, ..., d, d): one unit each
    before = torch.empty_like(T)  # before[r] = T_{r-1} ... T_0
    before[0] = eye
    for r in range(1, R):
        torch.matmul(T[r - 1], before[r - 1], out=before[r])
    E = T[R - 1] @ before[R - 1]  # end-to-end matrix (Eq. 5)
    ES = E @ Sxx
    loss = 0.5 * (ES * E).sum((-2, -1)) - (E * Syx).sum((-2, -1)) + 0.5 * trSyy
    # Transposed carry, so that no product needs a transposed operand (slow in batched BLAS):
    # back[r] = (dL/dE)^T T_{R-1} ... T_{r+1} = ((T_{R-1} ... T_{r+1})^T dL/dE)^T.
    back = torch.empty_like(T)
    back[R - 1] = (ES - Syx).transpose(-1, -2)
    for r in range(R - 1, 0, -1):
        torch.matmul(back[r], T[r], out=back[r - 1])
    Dt = before @ back  # (dL/dT_r)^T for every unit
    grad_t = torch.empty_like(Wu)  # (dL/dW_{r,l})^T
    outer = None  # W_{n-1} ... W_{l+1}, built backwards
    for l in range(n - 1, -1, -1):
        right = Dt if outer is None else Dt @ outer
        grad_t[:, l] = inner[l] @ right if l > 0 else right
        if l > 0:
            outer = Wu[:, l] if outer is None else outer @ Wu[:, l]
    grad = grad_t.transpose(-1, -2).contiguous()
    return loss, grad


def batched_forward(net: ShortcutNetwork, W: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
    """``f(X)`` for weights (..., R, n, d, d) and samples ``X`` (d, m): output (..., d, m)."""
    h = X.to(W.dtype).expand(W.shape[:-4] + X.shape)
    for r in range(net.R):
        z = net.pre(h)
        for l in range(net.n):
            z = W[..., r, l, :, :] @ z
            z = net.mid(z) if l < net.n - 1 else net.post(z)
        h = h + z if net.shortcut else z
    return h


def batched_sample_loss(net, W, X, Y):
    """Eq. 6 on samples for a batch of weight tensors: one loss per leading index of ``W``."""
    out = batched_forward(net, W, X)
    return 0.5 * ((Y - out) ** 2).sum((-2, -1)) / X.shape[1]


def _act(act, z):
    """``act(z)``; ReLU's value is the same under every convention at 0, so use the fused kernel."""
    return torch.relu(z) if act.name == "relu" else act(z)


def _act_backward(act, z, g):
    """``g * act'(z)`` with the network's convention for ReLU at 0, without full-size temporaries."""
    if act.is_identity:
        return g
    if act.name == "relu":
        c = act.d1_at_zero
        if c == 1.0:
            return g.masked_fill(z < 0, 0.0)
        if c == 0.0:
            return g.masked_fill(z <= 0, 0.0)
    return g * act.grad(z)


def samples_loss_and_grad(net: ShortcutNetwork, W: torch.Tensor, X: torch.Tensor, Y: torch.Tensor):
    """Loss on the samples and its gradient for a network with activations, batched, no autograd.

    ``W`` has shape (..., R, n, d, d), ``X`` and ``Y`` (d, m); returns
    ``(loss (...), grad (..., R, n, d, d))`` with ``loss = |Y - f(X)|_F^2 / (2 m)``.

    Backpropagation written out: the forward sweep keeps each unit's input ``h_r`` and the
    pre-activations ``z_{r,l} = W_{r,l} u_{r,l}`` (``u_{r,0} = pre(h_r)``,
    ``u_{r,l+1} = mid(z_{r,l})``, the unit's output ``post(z_{r,n-1})``); the backward sweep
    carries ``g = dL/dh`` and, inside a unit, ``dL/dz_{r,l} = dL/du_{r,l+1} * sigma'(z_{r,l})``,
    ``dL/dW_{r,l} = dL/dz_{r,l} u_{r,l}^T``, ``dL/du_{r,l} = W_{r,l}^T dL/dz_{r,l}``. Each
    activation's derivative is its own :attr:`Activation.grad` (for ReLU with the network's
    convention at 0, the same one autograd uses on :attr:`Activation.fn`). Compared with
    autograd on :func:`batched_forward`, it stores fewer intermediate tensors and builds no
    graph (``tests/core/test_train.py`` checks the two against each other).
    """
    n, R = net.n, net.R
    if X.dim() != 2 or Y.dim() != 2 or X.shape != Y.shape or X.shape[0] != net.d:
        raise ValueError(
            f"X and Y must both have shape (d, m) = ({net.d}, m) with the same m; "
            f"got X {tuple(X.shape)} and Y {tuple(Y.shape)}"
        )
    m = X.shape[1]
    Wu = W.movedim(-4, 0).movedim(-3, 1).contiguous()  # (R, n, ..., d, d): contiguous slices
    batch = W.shape[:-4]
    h = X.to(W.dtype).expand(batch + X.shape)
    inputs, pre_acts = [], []
    for r in range(R):
        inputs.append(h)
        u = _act(net.pre, h)
        zs = []
        for l in range(n):
            z = Wu[r, l] @ u
            zs.append(z)
            u = _act(net.mid, z) if l < n - 1 else _act(net.post, z)
        pre_acts.append(zs)
        h = h + u if net.shortcut else u
    res = h - Y.to(W.dtype)
    loss = 0.5 * (res * res).sum((-2, -1)) / m
    g = res / m  # dL/dh after the last unit
    grad = torch.empty_like(Wu)
    for r in range(R - 1, -1, -1):
        zs, h_in = pre_acts[r], inputs[r]
        g_u = g
        for l in range(n - 1, -1, -1):
            g_z = _act_backward(net.post if l == n - 1 else net.mid, zs[l], g_u)
            u_l = _act(net.pre, h_in) if l == 0 else _act(net.mid, zs[l - 1])
            torch.matmul(g_z, u_l.transpose(-1, -2), out=grad[r, l])
            g_u = Wu[r, l].transpose(-1, -2) @ g_z
        g_h = _act_backward(net.pre, h_in, g_u)
        g = g + g_h if net.shortcut else g_h
    return loss, grad.movedim(1, -3).movedim(0, -4)


@contextlib.contextmanager
def torch_threads(n):
    """Temporarily run torch's CPU kernels on ``n`` threads (``None``: leave as is)."""
    old = torch.get_num_threads()
    if n is not None and n != old:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        if n is not None and n != old:
            torch.set_num_threads(old)


def gradient_descent(
    net: ShortcutNetwork,
    W0: torch.Tensor,
    data,
    lr,
    epochs: int,
    snapshot_epochs=(),
    blowup: float = 1e12,
    progress: bool = False,
    callback=None,
) -> TrainResult:
    """Run ``epochs`` steps of ``W <- W - lr * grad L(W)`` from ``W0``.

    Parameters
    ----------
    net : the network.
    W0 : weights (..., R, n, d, d); leading axes are independent runs (on ``W0``'s device).
    data : a :class:`Dataset` (or :class:`SufficientStats` for a linear network).
    lr : a positive float, or a tensor broadcastable to the leading axes of ``W0``.
    epochs : number of gradient steps (full batch, so one step is one epoch).
    snapshot_epochs : epochs at which to keep a copy of the weights (e.g. for Hessians).
    blowup : a run whose loss exceeds this (or is not finite) is frozen and marked diverged.
    callback : ``callback(epoch, W, losses)`` after each step, for live plots.
    """
    epochs = require_int("epochs", epochs, minimum=0)
    blowup = require_float("blowup", blowup, low=0.0, low_open=True)
    W, data, lr_t, batch = _require_descent_inputs(net, W0, data, lr)
    lr_t = lr_t.reshape((1,) * (len(batch) - lr_t.ndim) + tuple(lr_t.shape))
    if net.is_linear:
        stats = data.to(device=W.device, dtype=W.dtype)
        W = W.movedim(-4, 0).movedim(-3, 1).contiguous()  # unit-major (R, n, ..., d, d)
        lr_t = lr_t.reshape((1, 1) + tuple(lr_t.shape) + (1, 1))
    else:
        X = data.X.to(device=W.device, dtype=W.dtype)
        Y = data.Y.to(device=W.device, dtype=W.dtype)
        lr_t = lr_t.reshape(tuple(lr_t.shape) + (1,) * 4)
    # The products of a linear network are d x d: splitting each over threads only costs
    # synchronisation (measured: 2 threads are several times slower than 1 on 2 busy cores).
    # The same holds for a network on samples while the activations are small.
    per_matrix = net.d * (1 if net.is_linear else X.shape[1]) * max(1, int(np.prod(tuple(batch))))
    single = W.device.type == "cpu" and net.d <= 64 and (net.is_linear or per_matrix <= 2_000_000)
    with torch_threads(1 if single else None):
        W, loss_hist, gnorm_hist, alive, snapshots = _descend(
            net,
            W,
            lr_t,
            epochs,
            snapshot_epochs,
            blowup,
            progress,
            callback,
            batch,
            stats if net.is_linear else None,
            None if net.is_linear else (X, Y),
        )
    return TrainResult(
        W.contiguous(), loss_hist.cpu().numpy(), (~alive).cpu().numpy(), snapshots, gnorm_hist.cpu().numpy()
    )


def _require_descent_inputs(net, W0, data, lr):
    """Check the network, the data, the starting weights and the learning rate of
    :func:`gradient_descent`; return the weights (a finite copy), the data (a linear network's
    statistics), the learning rate as a tensor and the shape of the runs axes."""
    if not isinstance(net, ShortcutNetwork):
        raise ArgumentTypeError(f"net must be a ShortcutNetwork, got {type(net).__name__}")
    if not isinstance(data, (Dataset, SufficientStats)):
        raise ArgumentTypeError(f"data must be a Dataset or SufficientStats, got {type(data).__name__}")
    if isinstance(data, SufficientStats) and not net.is_linear:
        raise ValueError("a network with activations needs the samples (a Dataset), not SufficientStats")
    if isinstance(data, Dataset) and net.is_linear:
        data = data.stats()
    W = net.require_weights(W0).detach().clone()
    if not torch.isfinite(W).all():
        bad = int((~torch.isfinite(W)).sum())
        raise ValueError(f"W0 must be finite; it has {bad} NaN or infinite entries of {W.numel()}")
    if data.d != net.d or (isinstance(data, Dataset) and data.Y.shape[0] != net.d):
        raise ValueError(f"data has dimension {data.d} but the network has d={net.d}")
    batch = W.shape[:-4]
    lr_t = torch.as_tensor(lr, dtype=W.dtype, device=W.device)
    if not torch.isfinite(lr_t).all() or (lr_t <= 0).any():
        raise ValueError(f"lr must be positive and finite, got {lr}")
    try:
        ok = torch.broadcast_shapes(lr_t.shape, batch) == batch
    except RuntimeError:
        ok = False
    if not ok:
        raise ValueError(f"lr of shape {tuple(lr_t.shape)} must broadcast to the runs axes {tuple(batch)} of W0")
    return W, data, lr_t, batch


def _samples_step(net, W, X, Y, alive):
    """Loss and gradient on the samples for the runs still alive (frozen runs are not computed:
    their loss is NaN and their gradient 0). Each run's numbers do not depend on which other
    runs share the batch: every product and every sum is taken per run."""
    if bool(alive.all()):
        return samples_loss_and_grad(net, W, X, Y)
    flat = W.reshape((-1,) + tuple(W.shape[-4:]))
    idx = alive.reshape(-1).nonzero().squeeze(1)
    L = torch.full((flat.shape[0],), math.nan, dtype=W.dtype, device=W.device)
    g = torch.zeros_like(flat)
    if idx.numel():
        L_a, g_a = samples_loss_and_grad(net, flat[idx], X, Y)
        L[idx] = L_a
        g[idx] = g_a
    return L.reshape(alive.shape), g.reshape(W.shape)


def _descend(net, W, lr_t, epochs, snapshot_epochs, blowup, progress, callback, batch, stats, samples):
    """The loop of :func:`gradient_descent` (arguments already checked and laid out)."""
    if samples is not None:
        X, Y = samples
    to_user = (lambda V: V.movedim(1, -3).movedim(0, -4)) if net.is_linear else (lambda V: V)
    sum_dims = (0, 1, -2, -1) if net.is_linear else (-4, -3, -2, -1)
    mask_shape = ((1, 1) + tuple(batch) + (1, 1)) if net.is_linear else (tuple(batch) + (1,) * 4)
    loss_hist = torch.full(tuple(batch) + (epochs + 1,), math.nan, dtype=W.dtype, device=W.device)
    gnorm_hist = torch.full_like(loss_hist, math.nan)
    alive = torch.ones(batch, dtype=torch.bool, device=W.device)
    snapshots = {}
    wanted = set(int(e) for e in snapshot_epochs)
    it = range(epochs + 1)
    if progress:
        it = tqdm(it, desc=f"GD {net.describe()[:40]}", leave=False)
    for epoch in it:
        if net.is_linear:
            L, g = _loss_and_grad_unit_major(net, W, stats.Sxx, stats.Syx, stats.trSyy)
        else:
            L, g = _samples_step(net, W, X, Y, alive)
        bad = ~torch.isfinite(L) | (L > blowup)
        alive = alive & ~bad
        loss_hist[..., epoch] = torch.where(alive, L, torch.nan)
        gnorm_hist[..., epoch] = torch.where(alive, torch.linalg.vector_norm(g, dim=sum_dims), torch.nan)
        if epoch in wanted:
            snapshots[epoch] = to_user(W).clone()
        if epoch == epochs:
            break
        mask = alive.reshape(mask_shape)
        W = torch.where(mask, W - lr_t * torch.nan_to_num(g), W)
        if callback is not None:
            callback(epoch, to_user(W), loss_hist)
    return to_user(W), loss_hist, gnorm_hist, alive, snapshots
