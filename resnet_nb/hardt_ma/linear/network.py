"""The linear residual network of Hardt & Ma, section 2 (chapter: book/hardt_ma_linear.ipynb): the
factors ``A`` of ``x -> (I + A_l) ... (I + A_1) x``, their product, ``|||A|||`` and the target's ``gamma``.

Notation of the paper (and of this package): ``A`` is an array of shape ``(l, d, d)``,
``A[i]`` is the paper's ``A_{i+1}``; ``|||A||| = max_i ||A_i||`` (spectral norms);
the data model is ``y = R x + xi`` with ``E[x x^T] = Sigma`` and noise ``xi ~ N(0, s^2 I)``.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from resnet_nb.core.checks import require_float, require_int

__all__ = ["as_square", "as_factors", "gamma_of", "residual_product", "max_spectral_norm", "random_positive_det"]


def as_square(name: str, M) -> np.ndarray:
    """``M`` as a finite float64 square matrix, or a ValueError naming ``name``."""
    M = np.asarray(M.detach().cpu().numpy() if isinstance(M, torch.Tensor) else M, dtype=np.float64)
    if M.ndim != 2 or M.shape[0] != M.shape[1] or M.size == 0:
        raise ValueError(f"{name} must be a non-empty square matrix, got shape {M.shape}")
    if not np.isfinite(M).all():
        raise ValueError(f"{name} must have finite entries, got {int((~np.isfinite(M)).sum())} NaN/inf")
    return M


def as_factors(A) -> np.ndarray:
    """The factors ``A`` (array or tensor) as a finite float64 array of shape ``(l, d, d)``, ``l, d >= 1``,
    or a ValueError naming ``A``."""
    A = np.asarray(A.detach().cpu().numpy() if isinstance(A, torch.Tensor) else A, dtype=np.float64)
    if A.ndim != 3 or A.shape[1] != A.shape[2] or A.size == 0:
        raise ValueError(f"A must have shape (l, d, d) with l, d >= 1, got {A.shape}")
    if not np.isfinite(A).all():
        raise ValueError("A must have finite entries")
    return A


def gamma_of(R) -> float:
    """``gamma = max(|log sigma_max(R)|, |log sigma_min(R)|)`` (Hardt & Ma, section 2)."""
    s = np.linalg.svdvals(as_square("R", R))
    if s[-1] <= 0:
        raise ValueError("R must be invertible: gamma is infinite for a singular R")
    return float(max(abs(math.log(s[0])), abs(math.log(s[-1]))))


def residual_product(A) -> np.ndarray:
    """``(I + A_l) ... (I + A_1)`` for ``A`` of shape (l, d, d)."""
    A = as_factors(A)
    eye = np.eye(len(A[0]))
    M = eye
    for Ai in A:
        M = (eye + Ai) @ M
    return M


def max_spectral_norm(A) -> float:
    """``|||A||| = max_i ||A_i||_2``."""
    return float(np.linalg.norm(as_factors(A), ord=2, axis=(1, 2)).max())


def random_positive_det(d: int, rng, gamma: float | None = None) -> np.ndarray:
    """A random ``R`` with ``det R > 0``: Haar rotation times a stretch. With ``gamma`` the
    singular values are ``e^{+-gamma}`` (and ``e^{u gamma}``, ``u`` uniform in [-1, 1], between)."""
    d = require_int("d", d)
    Q, Rr = np.linalg.qr(rng.standard_normal((d, d)))
    Q = Q * np.sign(np.diag(Rr))
    if np.linalg.det(Q) < 0:
        Q[:, 0] = -Q[:, 0]
    if gamma is None:
        s = np.exp(rng.uniform(-1, 1, d))
    else:
        gamma = require_float("gamma", gamma, low=0.0)
        s = np.exp(gamma * np.concatenate([[1.0, -1.0], rng.uniform(-1, 1, max(d - 2, 0))])[:d])
    V, _ = np.linalg.qr(rng.standard_normal((d, d)))
    return Q @ V @ np.diag(s) @ V.T
