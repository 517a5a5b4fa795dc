"""Networks of the Notation chapter (book/notation.ipynb): n-shortcut networks (Li et al., Definitions
2 and 3) and plain deep networks.

A network is a small immutable description (:class:`ShortcutNetwork`); its weights are one
tensor ``W`` of shape ``(R, n, d, d)``: ``W[r, l]`` is the matrix ``W_{r+1, l+1}`` of the paper
(``R`` residual units of ``n`` matrices each, zero-based in code). The forward map of unit r is

    h  ->  h + sigma_post( W_{r,n} sigma_mid( ... sigma_mid( W_{r,1} sigma_pre(h) ) ... ) )

with the identity shortcut ``h`` (Definition 3); with ``shortcut=False`` the ``+ h`` is
dropped and the same description is a plain network of depth ``L = n R`` (a plain linear
network of depth L is ``ShortcutNetwork(d, n=1, R=L, shortcut=False)``).

The parameter vector follows Definition 5 of Li et al.: indices ordered lexicographically by
(unit r, matrix l within the unit, column j, row i), i.e. each matrix is vectorised column
by column. :func:`flatten` and :func:`unflatten` convert between the two layouts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from resnet_nb.core.checks import as_matrix, require_choice, require_float, require_int

__all__ = [
    "Activation",
    "activation",
    "ACTIVATIONS",
    "ShortcutNetwork",
    "plain_network",
    "flatten",
    "unflatten",
    "end_to_end",
]


@dataclass(frozen=True)
class Activation:
    """An elementwise activation with its value and first two derivatives at 0.

    ``fn`` is differentiable by autograd (forward and reverse mode). For ReLU, which has no
    derivative at 0, ``grad_at_zero`` fixes the convention autograd uses there.
    """

    name: str
    fn: callable
    value_at_zero: float
    d1_at_zero: float
    d2_at_zero: float
    grad: callable = None  # elementwise derivative sigma'(x), with the same convention at 0

    @property
    def is_identity(self) -> bool:
        return self.name == "identity"

    def __call__(self, x):
        return self.fn(x)


ACTIVATIONS = ("identity", "tanh", "relu", "silu")


def _relu_with_grad(c: float):
    # relu(x) written with ops whose derivative at 0 is known: where(x>0) has slope 0 at 0,
    # where(x>=0) slope 1, and (x + |x|)/2 slope 1/2 (torch takes sign(0) = 0).
    if c == 0.0:
        return lambda x: torch.where(x > 0, x, torch.zeros_like(x))
    if c == 1.0:
        return lambda x: torch.where(x >= 0, x, torch.zeros_like(x))
    if c == 0.5:
        return lambda x: 0.5 * (x + torch.abs(x))
    raise ValueError(f"relu_grad_at_zero must be one of [0.0, 0.5, 1.0], got {c}")


def activation(name, relu_grad_at_zero: float = 1.0) -> Activation:
    """Look up an activation by name: ``"identity"``, ``"tanh"``, ``"relu"`` or ``"silu"``.

    ReLU is not differentiable at 0. Theorem 1 of Li et al. needs sigma'(0); the paper's
    remedy ("a local polynomial approximation") amounts to picking a value. Our default is
    the right derivative, 1 (what a positive perturbation sees); 0 is PyTorch's own
    convention and 0.5 the symmetric one. The chapter on Theorem 1 shows what each implies.
    """
    if isinstance(name, Activation):
        return name
    if name is None:
        name = "identity"
    require_choice("activation", name, ACTIVATIONS)
    if name == "identity":
        return Activation("identity", lambda x: x, 0.0, 1.0, 0.0, torch.ones_like)
    if name == "tanh":
        return Activation("tanh", torch.tanh, 0.0, 1.0, 0.0, lambda x: 1.0 - torch.tanh(x) ** 2)
    if name == "silu":
        # x sigmoid(x): smooth, sigma(0) = 0, sigma'(0) = 1/2 and sigma''(0) = 1/2 (nonzero), which
        # exercises the second-derivative terms of Theorem 1 that tanh and ReLU leave at zero.
        def silu_grad(x):
            sg = torch.sigmoid(x)
            return sg * (1 + x * (1 - sg))

        return Activation("silu", torch.nn.functional.silu, 0.0, 0.5, 0.5, silu_grad)
    c = require_float("relu_grad_at_zero", relu_grad_at_zero)

    def grad(x):
        return torch.where(x > 0, torch.ones_like(x), torch.where(x == 0, c * torch.ones_like(x), torch.zeros_like(x)))

    return Activation("relu", _relu_with_grad(c), 0.0, c, 0.0, grad)


@dataclass(frozen=True)
class ShortcutNetwork:
    """An n-shortcut network of R units on R^d (Definitions 2 and 3 of Li et al.).

    Parameters
    ----------
    d : width (d_x = d_y = d; identity shortcuts need equal input and output dimension).
    n : number of weight matrices inside each shortcut (the shortcut's depth).
    R : number of residual units. Depth (number of weight matrices) is ``L = n R``.
    shortcut : ``False`` drops the identity paths: a plain network of depth ``n R``, with the
        activations at the same positions (as Li et al. do for their Xavier/orthogonal
        baselines with ReLU, Appendix B).
    pre, mid, post : activation names (or :class:`Activation`) at the three positions.
    relu_grad_at_zero : convention for ReLU's derivative at 0 (see :func:`activation`).
    """

    d: int
    n: int
    R: int
    shortcut: bool = True
    pre: object = "identity"
    mid: object = "identity"
    post: object = "identity"
    relu_grad_at_zero: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "d", require_int("d", self.d))
        object.__setattr__(self, "n", require_int("n", self.n))
        object.__setattr__(self, "R", require_int("R", self.R))
        if not isinstance(self.shortcut, bool):
            raise ValueError(f"shortcut must be True or False, got {self.shortcut!r}")
        for pos in ("pre", "mid", "post"):
            object.__setattr__(self, pos, activation(getattr(self, pos), self.relu_grad_at_zero))

    # -- sizes -----------------------------------------------------------------------------
    @property
    def depth(self) -> int:
        """Number of weight matrices, ``L = n R`` (what the experiments call depth)."""
        return self.n * self.R

    @property
    def num_params(self) -> int:
        return self.n * self.R * self.d * self.d

    @property
    def shape(self):
        return (self.R, self.n, self.d, self.d)

    @property
    def is_linear(self) -> bool:
        return self.pre.is_identity and self.mid.is_identity and self.post.is_identity

    def describe(self) -> str:  # pragma: no mutate block (display text only)
        kind = f"{self.n}-shortcut" if self.shortcut else "plain"
        acts = [f"{p}={getattr(self, p).name}" for p in ("pre", "mid", "post") if not getattr(self, p).is_identity]
        if self.shortcut:
            shape = f"R={self.R} units of n={self.n} (depth L={self.depth}, P={self.num_params} parameters)"
        else:  # a plain network has layers, not units; n > 1 only places the mid activations
            shape = (
                f"depth L={self.depth}"
                + (f" (R={self.R} blocks of n={self.n})" if self.n > 1 else "")
                + f", P={self.num_params} parameters"
            )
        return f"{kind} network, d={self.d}, {shape}" + (", " + ", ".join(acts) if acts else ", linear")

    # -- checks ----------------------------------------------------------------------------
    def require_weights(self, W) -> torch.Tensor:
        """Return ``W`` as a tensor of shape (R, n, d, d), or raise a clear error."""
        W = _as_tensor(W)
        if W.ndim == 1:
            if W.numel() != self.num_params:
                raise ValueError(f"W as a flat vector must have {self.num_params} entries (n R d^2), got {W.numel()}")
            W = unflatten(W, self)
        if tuple(W.shape[-4:]) != self.shape:
            raise ValueError(f"W must have shape (R, n, d, d) = {self.shape}, got {tuple(W.shape)}")
        if not W.is_floating_point():
            raise ValueError(f"W must be a floating-point tensor, got dtype {W.dtype}")
        return W

    def require_input(self, X) -> torch.Tensor:
        if isinstance(X, torch.Tensor) and X.is_floating_point() and X.ndim == 2 and X.shape[0] == self.d:
            if not torch.isfinite(X).all():
                raise ValueError("X contains NaN or infinite entries; all entries must be finite")
            return X
        return as_matrix("X", X, rows=self.d)

    # -- the map ---------------------------------------------------------------------------
    def unit(self, Wr: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        """One residual unit applied to ``h`` (d, m); ``Wr`` has shape (n, d, d)."""
        z = self.pre(h)
        for l in range(self.n):
            z = Wr[l] @ z
            z = self.mid(z) if l < self.n - 1 else self.post(z)
        return h + z if self.shortcut else z

    def forward(self, W: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
        """The network's output ``f(X)`` of shape (d, m) for weights ``W`` (R, n, d, d) or flat."""
        W = self.require_weights(W)
        h = self.require_input(X).to(W.dtype)
        for r in range(self.R):
            h = self.unit(W[r], h)
        return h

    __call__ = forward


def plain_network(d: int, L: int, **activations) -> ShortcutNetwork:
    """A plain (no shortcut) network of depth ``L``: ``f(x) = W_L ... W_1 x``."""
    return ShortcutNetwork(d=d, n=1, R=L, shortcut=False, **activations)


def _as_tensor(W) -> torch.Tensor:
    """Weights as a real tensor: a tensor stays as it is (on its device), a numpy array keeps its
    precision, Python numbers become float64 as everywhere in the book (``torch.as_tensor`` would
    make them float32 and move a tensor to torch's default device)."""
    if isinstance(W, torch.Tensor):
        if W.is_complex():
            raise ValueError(f"W must be real, got a tensor of dtype {W.dtype}")
        return W
    arr = np.asarray(W)
    if arr.dtype.kind not in "fiub":
        raise ValueError(f"W must hold real numbers, got an array of dtype {arr.dtype}")
    return torch.from_numpy(arr if arr.dtype.kind == "f" else arr.astype(np.float64))


def flatten(W: torch.Tensor) -> torch.Tensor:
    """(…, R, n, d, d) -> (…, P): Definition 5 order (unit, matrix, column, row)."""
    return W.transpose(-1, -2).reshape(*W.shape[:-4], -1)


def unflatten(w: torch.Tensor, net: ShortcutNetwork) -> torch.Tensor:
    """(…, P) -> (…, R, n, d, d), the inverse of :func:`flatten`."""
    if w.shape[-1] != net.num_params:
        raise ValueError(f"w must have {net.num_params} entries in its last axis, got {w.shape[-1]}")
    return w.reshape(*w.shape[:-1], net.R, net.n, net.d, net.d).transpose(-1, -2)


def end_to_end(net: ShortcutNetwork, W) -> torch.Tensor:
    """The end-to-end matrix of a linear network: ``prod_r (I + prod_l W_{r,l})`` (Eq. 5).

    Works on a batch of weight tensors (..., R, n, d, d) too.
    """
    if not net.is_linear:
        raise ValueError(f"end_to_end needs a linear network (all activations 'identity'); got {net.describe()}")
    W = _as_tensor(W)
    if W.ndim == 1:
        W = unflatten(W, net)
    if tuple(W.shape[-4:]) != net.shape:
        raise ValueError(f"W must have shape (..., R, n, d, d) = {net.shape}, got {tuple(W.shape)}")
    eye = torch.eye(net.d, dtype=W.dtype, device=W.device)
    total = eye.expand(*W.shape[:-4], net.d, net.d)
    for r in range(net.R):
        U = W[..., r, 0, :, :]
        for l in range(1, net.n):
            U = W[..., r, l, :, :] @ U
        total = ((eye + U) if net.shortcut else U) @ total
    return total
