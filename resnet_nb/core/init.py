"""Initialisations of Li et al. section 5 (book/notation.ipynb, book/exp_initial_point.ipynb): zero,
small, Xavier, orthogonal, identity.

All return a weight tensor of shape (R, n, d, d) (or (runs, R, n, d, d) with ``runs``),
deterministic given ``seed``.
"""

from __future__ import annotations

import torch

from resnet_nb.core.checks import require_choice, require_float, require_int
from resnet_nb.core.networks import ShortcutNetwork

__all__ = ["INITS", "SMALL_SCALE", "initialise"]

INITS = ("zero", "small", "xavier", "orthogonal", "identity")
#: the factor of Li et al.'s "small" initialisation (Xavier times 0.01, their section 4.1)
SMALL_SCALE = 0.01


def _orthogonal(shape, d, g, dtype):
    A = torch.randn(*shape, d, d, generator=g, dtype=dtype)
    Q, Rm = torch.linalg.qr(A)
    # Haar measure: fix the signs so that diag(R) > 0.
    s = torch.sign(torch.diagonal(Rm, dim1=-2, dim2=-1))
    s[s == 0] = 1
    return Q * s.unsqueeze(-2)


def initialise(
    net: ShortcutNetwork,
    scheme: str,
    seed: int = 0,
    runs: int | None = None,
    scale: float = SMALL_SCALE,
    dtype=torch.float64,
    device=None,
) -> torch.Tensor:
    """Weights for ``net`` under ``scheme``.

    * ``"zero"``: all matrices zero (the point Theorem 1 studies).
    * ``"xavier"``: Gaussian entries of variance ``2 / (fan_in + fan_out) = 1 / d``
      (Glorot & Bengio 2010, normal variant).
    * ``"small"``: Xavier times ``scale`` (0.01 in Li et al. section 4.1): zero with a small
      random perturbation, to leave the saddle at zero.
    * ``"orthogonal"``: Haar-random orthogonal matrices (Saxe et al. 2013).
    * ``"identity"``: every matrix the identity.

    ``runs``: if given, a leading axis of independent draws (seeds ``seed`` .. in one stream).
    """
    if not isinstance(net, ShortcutNetwork):
        raise ValueError(f"net must be a ShortcutNetwork, got {type(net).__name__}")
    require_choice("scheme", scheme, INITS)
    scale = require_float("scale", scale, low=0.0)
    lead = () if runs is None else (require_int("runs", runs),)
    shape = lead + (net.R, net.n)
    g = torch.Generator().manual_seed(int(seed))
    d = net.d
    if scheme == "zero":
        W = torch.zeros(*shape, d, d, dtype=dtype)
    elif scheme == "identity":
        W = torch.eye(d, dtype=dtype).expand(*shape, d, d).clone()
    elif scheme == "orthogonal":
        W = _orthogonal(shape, d, g, dtype)
    else:
        W = torch.randn(*shape, d, d, generator=g, dtype=dtype) / d**0.5
        if scheme == "small":
            W = W * scale
    return W.to(device) if device is not None else W
