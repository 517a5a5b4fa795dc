"""The Frobenius loss (Eq. 6) and the least-squares optimum (Eqs. 15-16) of Li et al., for the Notation
chapter (book/notation.ipynb).

``L(w) = 1/(2m) ||Y - f(X)||_F^2``. For a linear network with end-to-end matrix ``W`` it
equals ``1/2 tr(W Sxx W^T) - tr(W Syx^T) + 1/2 tr(Syy)``: no pass over the samples is needed.
"""

from __future__ import annotations

import numpy as np
import torch

from resnet_nb.core import claims
from resnet_nb.core.data import Dataset, SufficientStats, as_stats, gaussian_data, synthetic_linear
from resnet_nb.core.networks import ShortcutNetwork, end_to_end

__all__ = [
    "loss_samples",
    "loss_end_to_end",
    "loss_stats",
    "loss",
    "optimum",
    "generalised_inverse",
    "loss_stats_variant",
]


def loss_samples(net: ShortcutNetwork, W, data: Dataset) -> torch.Tensor:
    """``1/(2m) ||Y - f(X)||_F^2`` computed from the samples (any network)."""
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a resnet_nb.core.data.Dataset, got {type(data).__name__}")
    if data.Y.shape[0] != net.d or data.X.shape[0] != net.d:
        raise ValueError(
            f"data has d_x={data.X.shape[0]}, d_y={data.Y.shape[0]} but the network has "
            f"d={net.d}; identity shortcuts need d_x = d_y = d"
        )
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
        raise ValueError(f"stats are for d_x={stats.Syx.shape[1]}, d_y={stats.Syx.shape[0]}; the network has d={net.d}")
    return loss_end_to_end(end_to_end(net, W), stats)


def loss(net: ShortcutNetwork, W, data) -> torch.Tensor:
    """The loss, from sufficient statistics when the network is linear, else from samples."""
    if isinstance(data, SufficientStats):
        return loss_stats(net, W, data)
    if net.is_linear:
        return loss_stats(net, W, as_stats(data))
    return loss_samples(net, W, data)


def optimum(data) -> tuple[torch.Tensor, float]:
    """The least-squares end-to-end map ``W* = Syx Sxx^+`` (Eq. 15) and ``L_min`` (Eq. 16).

    Any linear network that can represent every d-by-d matrix reaches exactly this loss.
    ``Sxx^+`` is the Moore-Penrose pseudo-inverse, so a rank-deficient ``Sxx`` is allowed.
    """
    stats = as_stats(data)
    Wstar = stats.Syx @ torch.linalg.pinv(stats.Sxx, hermitian=True)
    return Wstar, float(loss_end_to_end(Wstar, stats))


# ==========================================================================================
# Claims of this module, checked where they are declared (see resnet_nb.book.ledger)
# ==========================================================================================


#: the claims' inputs: row i has standard deviation linspace(0.5, 2, d)[i], so Sxx != I
CLAIM_SPREAD = (0.5, 2.0)


def loss_stats_variant(Wend, stats, variant):
    """The loss from statistics as Eq. 8-9 write it (``"eq"``), or the falsifier's miswriting of
    it, ``tr(W Syx)`` in place of ``tr(W Syx^T)`` (``"syx_transposed"``)."""
    if variant == "syx_transposed":
        return 0.5 * torch.trace(Wend @ stats.Sxx @ Wend.T) - torch.trace(Wend @ stats.Syx) + 0.5 * stats.trSyy
    return loss_end_to_end(Wend, stats)


@claims.claim(
    "core-loss-statistics",
    source="Li et al., Eqs. 6, 8-9",
    statement=r"For a linear network with end-to-end map $W$ the loss $\frac{1}{2m}\lVert Y - WX\rVert_F^2$ "
    r"equals $\tfrac12 \operatorname{tr}(W\Sigma_{XX}W^\top) - \operatorname{tr}(W\Sigma_{YX}^\top) "
    r"+ \tfrac12\operatorname{tr}\Sigma_{YY}$.",
    verdict="holds",
    falsifier=r"the linear term written $\operatorname{tr}(W\Sigma_{YX})$ (without the transpose)",
    where=["tests/core/test_losses.py", "book/notation.ipynb"],
    falsifier_kind="plausible false statement",
)
def claim_loss_statistics(falsify: bool = False) -> claims.Check:
    """Loss from the samples against the loss from (Sxx, Syx, tr Syy), on four random networks."""
    from resnet_nb.core.init import initialise

    variant = "syx_transposed" if falsify else "eq"
    worst, scale, moving, terms = 0.0, 0.0, np.inf, 0
    for seed, (n, R, size) in enumerate([(1, 3, 1.0), (2, 2, 0.3), (3, 2, 1.5), (2, 4, 1.0)]):
        data = gaussian_data(4, 30, seed, spread=CLAIM_SPREAD)
        net = ShortcutNetwork(4, n, R)
        W = size * initialise(net, "xavier", seed=seed)
        stats = data.stats()
        a = float(loss_samples(net, W, data))
        b = float(loss_stats_variant(end_to_end(net, W), stats, variant))
        worst = max(worst, abs(a - b))
        scale = max(scale, abs(a))
        moving = min(moving, abs(a - 0.5 * stats.trSyy))  # the part of the loss that depends on W
        terms = max(terms, data.m * data.d * net.depth)
    tol, crit = claims.eps_criterion(terms, scale)
    return claims.Check(
        "Eqs. 8-9: loss of a linear network from sufficient statistics",
        "max |L_samples - L_stats|",
        worst,
        tol,
        crit,
        nontrivial=moving,
        nontrivial_what="smallest |L - tr(Syy)/2| (the W-dependent part)",
        nontrivial_min=tol,
        lines=["4 random networks (n = 1, 2, 3; depth up to 8), Sxx != I, Syx not symmetric"],
    )


def generalised_inverse(Sxx, seed):
    """A generalised inverse of ``Sxx`` other than the pseudo-inverse: ``Sxx^+ + K (I - Sxx^+ Sxx)``
    with ``K`` standard Gaussian (seeded); Eqs. 15-16 hold for every one."""
    P = torch.linalg.pinv(Sxx, hermitian=True)
    K = torch.randn(Sxx.shape, generator=torch.Generator().manual_seed(seed), dtype=Sxx.dtype)
    return P + K @ (torch.eye(Sxx.shape[0], dtype=Sxx.dtype) - P @ Sxx)


@claims.claim(
    "li-eq15-16-optimum",
    source="Li et al., Eqs. 15-16",
    statement=r"$W^* = \Sigma_{YX}\Sigma_{XX}^{-}$ minimises the loss of the end-to-end map for any generalised "
    r"inverse $\Sigma_{XX}^{-}$, with minimum $\mathcal L_{\min}$ of Eq. 16: checked against numpy's "
    r"least-squares solver, on full-rank data with $\Sigma_{XX} \ne I$ and on rank-deficient data "
    r"with a generalised inverse that is not the pseudo-inverse.",
    verdict="holds",
    falsifier=r"Eq. 15 without the inverse: $W^* = \Sigma_{YX}\Sigma_{XX}$",
    where=["tests/core/test_losses.py", "book/notation.ipynb"],
    falsifier_kind="plausible false statement",
)
def claim_optimum(falsify: bool = False) -> claims.Check:
    """Eq. 15 (the map) and Eq. 16 (the minimum) against ``numpy.linalg.lstsq`` on the samples."""
    # full rank, Sxx != I: the map itself is unique
    data = synthetic_linear(5, 200, cov=torch.diag(torch.linspace(0.3, 3.0, 5, dtype=torch.float64)), seed=3)
    stats = data.stats()
    Wstar, Lmin = optimum(data)
    if falsify:
        Wstar = stats.Syx @ stats.Sxx
        Lmin = float(loss_end_to_end(Wstar, stats))
    sol, L_lstsq = _lstsq(data)
    tol_W, crit_W = claims.eps_criterion(data.m * data.d, np.abs(sol).max() * float(np.linalg.cond(stats.Sxx.numpy())))
    tol_L, crit_L = claims.eps_criterion(data.m * data.d, L_lstsq)
    full = dict(
        err_W=np.abs(Wstar.numpy() - sol.T).max(),
        W_max=float(np.abs(sol).max()),
        err_L=abs(Lmin - L_lstsq),
        L_lstsq=L_lstsq,
        tol_W=tol_W,
        crit_W=crit_W,
        tol_L=tol_L,
        crit_L=crit_L,
    )
    # rank 3 of 6: every generalised inverse gives the same loss, though not the same map
    data = gaussian_data(6, 120, seed=7, spread=CLAIM_SPREAD, rank=3)
    stats = data.stats()
    G = stats.Sxx if falsify else generalised_inverse(stats.Sxx, seed=8)
    WG = stats.Syx @ G
    Wplus, _ = optimum(stats)
    _, L_lstsq = _lstsq(data)
    tol_G, crit_G = claims.eps_criterion(data.m * data.d, L_lstsq * float(np.abs(G.numpy()).max()))
    values = dict(
        full,
        err_G=abs(float(loss_end_to_end(WG, stats)) - L_lstsq),
        maps_differ=float((WG - Wplus).abs().max()),
        tol_G=tol_G,
        crit_G=crit_G,
    )
    return claims.all_of(OPTIMUM_TITLE, claims.checks_from(OPTIMUM_TABLE, values))


def _lstsq(data):
    """numpy's least-squares map of the samples (transposed) and its loss."""
    sol, *_ = np.linalg.lstsq(data.X.numpy().T, data.Y.numpy().T, rcond=None)
    return sol, float(((data.Y.numpy() - sol.T @ data.X.numpy()) ** 2).sum() / (2 * data.m))


OPTIMUM_TITLE = "Eqs. 15-16: the least-squares optimum"
OPTIMUM_TABLE = (
    claims.Part(
        "Eq. 15, full rank",
        "max |W* - W_lstsq|",
        "err_W",
        "tol_W",
        "{crit_W}",
        nontrivial="W_max",
        nontrivial_what="max |W_lstsq|",
        nontrivial_min="tol_W",
    ),
    claims.Part(
        "Eq. 16, full rank",
        "|L_min - L(W_lstsq)|",
        "err_L",
        "tol_L",
        "{crit_L}",
        nontrivial="L_lstsq",
        nontrivial_what="L_min",
        nontrivial_min="tol_L",
    ),
    claims.Part(
        "Eqs. 15-16, rank-deficient inputs, a generalised inverse that is not Sxx^+",
        "|L(Syx G) - L(W_lstsq)|",
        "err_G",
        "tol_G",
        "{crit_G}",
        nontrivial="maps_differ",
        nontrivial_what="max |Syx G - Syx Sxx^+| (the maps differ)",
        nontrivial_min=1e-3,
    ),
)
