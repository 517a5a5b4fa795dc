"""Limitations of Li et al. (chapter: book/li_limitations.ipynb), (a): the zero-last-layer start
of Fixup and zero-gamma (a unit's last matrix zero, the others random) is not the flat all-zero
point of Theorem 1."""

from __future__ import annotations

import torch
from torch.func import grad as _fgrad

from resnet_nb.core import claims
from resnet_nb.core.data import whitened_mnist
from resnet_nb.core.hessians import hessian, hessian_linear, loss_function, resolution_floor, spectrum
from resnet_nb.core.init import initialise
from resnet_nb.core.networks import ShortcutNetwork, flatten

__all__ = ["fixup_start", "fixup_point", "mixed_block_rank", "claim_fixup_not_flat"]

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


FIXUP_TITLE = (
    "zero-last-layer start of a linear 3-shortcut network: non-stationary, "
    "indefinite Hessian of inertia (k, k, {z_what})"
)
FIXUP_LINE = "at w = 0: ||grad L|| = {zero_grad_norm:.1e}, max |H| = {zero_max_H:.1e}"
#: the zero count: p - 2k (the book's), p - k (the falsifier: the zero block's size)
FIXUP_ZERO_COUNT = {False: "p - 2k", True: "p - k"}
_EXACT_COUNT = "exact count (floor P eps |lambda|max)"
FIXUP_TABLE = (
    claims.Part(
        "Hessian at the zero-last-layer start, two routes",
        "max |H_autograd - H_Kronecker|",
        "err_H",
        "tol",
        "{crit}",
        nontrivial="max_H",
        nontrivial_what="max |H|",
    ),
    claims.Part(
        "mixed block B has full column rank",
        "cols B - rank B",
        "rank_deficit",
        0,
        "exact rank (singular values above P eps |lambda|max)",
    ),
    claims.Part(
        "block of the W_{{r,l}}, l < n, of all units is zero",
        "max |H_block|",
        "lead_max",
        "tol",
        "{crit}",
        nontrivial="max_H",
        nontrivial_what="max |H|",
    ),
    claims.Part("gradient is not zero", "||grad L||", "grad_norm", "gtol", "{gcrit} (rounding level)", op=">="),
    claims.Part(
        "negative eigenvalues = rank of the mixed block B",
        "|#negative - rank B|",
        "neg_gap",
        0,
        _EXACT_COUNT,
        nontrivial="rank_B",
        nontrivial_what="rank B",
    ),
    claims.Part(
        "positive eigenvalues = rank of the mixed block B",
        "|#positive - rank B|",
        "pos_gap",
        0,
        _EXACT_COUNT,
        nontrivial="rank_B",
        nontrivial_what="rank B",
    ),
    claims.Part("zero eigenvalues = {z_what} = {z_pred}", "|#zero - ({z_what})|", "zero_gap", 0, _EXACT_COUNT),
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
def claim_fixup_not_flat(falsify: bool = False) -> claims.Check:
    p = fixup_point()
    P, k = p["net"].num_params, p["rank_B"]
    tol, crit = claims.eps_criterion(P, p["max_H"])
    gtol, gcrit = claims.eps_criterion(P, max(p["max_H"], 1.0))
    zeros = len(p["eigs"]) - p["negative"] - p["positive"]
    z_pred = P - k if falsify else P - 2 * k
    values = dict(
        p,
        err_H=float((p["H_autograd"] - p["H_kronecker"]).abs().max()),
        tol=tol,
        crit=crit,
        gtol=gtol,
        gcrit=gcrit,
        rank_deficit=p["cols_B"] - k,
        neg_gap=abs(p["negative"] - k),
        pos_gap=abs(p["positive"] - k),
        zeros=zeros,
        z_pred=z_pred,
        zero_gap=abs(zeros - z_pred),
        z_what=FIXUP_ZERO_COUNT[bool(falsify)],
    )
    res = claims.all_of(
        FIXUP_TITLE.format_map(values), claims.checks_from(FIXUP_TABLE, values), [FIXUP_LINE.format_map(values)]
    )
    res.values.update(values)
    return res
