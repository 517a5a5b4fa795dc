"""Eqs. 15-16 of Li et al. (chapter: book/theorem1_dynamics.ipynb): the optimum and the least loss.

:func:`eq15_16_check` (W* and L_min against a 2-shortcut network trained from the small start) and,
with a rank-deficient X and any generalized inverse, :func:`rank_deficient_data`,
:func:`generalized_inverse`, :func:`eq15_16_ginverse_check`.
"""

from __future__ import annotations

import numpy as np
import torch

from resnet_nb.core import claims
from resnet_nb.core.checks import require_int
from resnet_nb.core.claims import PLAUSIBLE, Check, Part, all_of, checks_from, eps_criterion
from resnet_nb.core.data import Dataset
from resnet_nb.core.init import initialise
from resnet_nb.core.losses import loss_end_to_end, optimum
from resnet_nb.core.networks import ShortcutNetwork, end_to_end
from resnet_nb.core.train import gradient_descent

__all__ = [
    "eq15_16_check",
    "rank_deficient_data",
    "generalized_inverse",
    "eq15_16_ginverse_check",
]

# ------------------------------------------------------------------------------------------
# Eqs. 15-16
# ------------------------------------------------------------------------------------------


EQ15_16_TITLE = "Eqs. 15-16 on whitened MNIST"
EQ15_16_LINE = "max |W_end - W*| = {eW:.2e}"
EQ15_16_TABLE = (
    Part(
        "Eq. 15: Syx Sxx^+ against a least-squares solve",
        "max |difference|",
        "e15",
        "tol",
        "{crit}",
        nontrivial="Wstar_max",
        nontrivial_what="max |W*|",
    ),
    Part("Eq. 16: L_min from the statistics against the samples", "|difference|", "e16", "tolL", "{critL}"),
    Part("no epoch below L_min", "lowest loss - L_min", "below", "below_bound", "{critL}", op=">="),
    Part(
        "{n}-shortcut network, R = {R}, {epochs} epochs reaches L_min",
        "final loss - L_min",
        "gap_L",
        1e-4,
        "a setting: the gap this many epochs must close",
    ),
)


def eq15_16_check(data, n: int = 2, R: int = 4, lr: float = 0.1, epochs: int = 2000, seed: int = 0) -> Check:
    """Eqs. 15-16 on whitened data, against a 2-shortcut linear network trained by gradient
    descent from the paper's small start: W* (Eq. 15) against a least-squares solve on the
    samples; L_min (Eq. 16) against the samples; no epoch below L_min; final gap below 1e-4
    (a setting of this check: how far ``epochs`` epochs get, not a rounding criterion)."""
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a Dataset, got {type(data).__name__}")
    X, Y, m = data.X, data.Y, data.m
    Wls = torch.linalg.lstsq(X.T, Y.T).solution.T  # min ||Y - W X||: independent of Eq. 15
    Lmin_samples = float(((Y - Wls @ X) ** 2).sum() / (2 * m))
    Wstar, Lmin = optimum(data)
    net = ShortcutNetwork(data.d, n, R)
    res = gradient_descent(net, initialise(net, "small", seed=seed), data, lr, epochs)
    Wstar_max = float(Wstar.abs().max())
    tol, crit = eps_criterion(m, max(1.0, Wstar_max))
    tolL, critL = eps_criterion(m, max(1.0, Lmin))
    values = dict(
        e15=float((Wstar - Wls).abs().max()),
        e16=abs(Lmin - Lmin_samples),
        gap_L=float(res.losses[-1] - Lmin),
        eW=float((end_to_end(net, res.W) - Wstar).abs().max()),
        losses=res.losses,
        Lmin=Lmin,
        below=float(np.nanmin(res.losses) - Lmin),
        below_bound=-tolL,
        Wstar_max=Wstar_max,
        tol=tol,
        crit=crit,
        tolL=tolL,
        critL=critL,
        n=n,
        R=R,
        epochs=epochs,
    )
    out = all_of(EQ15_16_TITLE, checks_from(EQ15_16_TABLE, values), [EQ15_16_LINE.format_map(values)])
    out.values.update(values)
    return out


def rank_deficient_data(d: int = 5, rank: int = 3, m: int = 40, seed: int = 0) -> Dataset:
    """Inputs of rank ``rank`` < d (X = U Z with U of shape (d, rank)), Gaussian targets."""
    d, rank, m = require_int("d", d), require_int("rank", rank), require_int("m", m)
    if rank >= d:
        raise ValueError(f"rank must be below d = {d} for a rank-deficient X, got {rank}")
    g = torch.Generator().manual_seed(int(seed))
    U = torch.randn(d, rank, generator=g, dtype=torch.float64)
    X = U @ torch.randn(rank, m, generator=g, dtype=torch.float64)
    Y = torch.randn(d, m, generator=g, dtype=torch.float64)
    return Dataset(X, Y)


def generalized_inverse(S: torch.Tensor, seed: int = 0, size: float = 1.0) -> torch.Tensor:
    """A generalized inverse G of S (S G S = S) that is not the Moore-Penrose one:
    G = S^+ + (I - S^+ S) Z1 + Z2 (I - S S^+) with random Z1, Z2 (Rao & Mitra's general form)."""
    g = torch.Generator().manual_seed(int(seed))
    Sp = torch.linalg.pinv(S)
    eye = torch.eye(S.shape[0], dtype=S.dtype)
    Z1 = size * torch.randn(S.shape, generator=g, dtype=S.dtype)
    Z2 = size * torch.randn(S.shape, generator=g, dtype=S.dtype)
    return Sp + (eye - Sp @ S) @ Z1 + Z2 @ (eye - S @ Sp)


#: which statement eq15_16_ginverse_check makes: None (the true one) or the falsifier's keyword
GINV_TITLE = {
    None: "Eqs. 15-16 with a non-Moore-Penrose generalized inverse",
    "not_ginverse": "Falsifier: W = Syx G attains L_min for a G that is not a generalized inverse",
    "left": "Falsifier: W = G Syx (the generalized inverse on the other side) attains L_min",
    "unique": "Falsifier: Syx G is the same matrix for every generalized inverse G (a unique minimiser)",
}
GINV_FORM = {None: "Syx G", "left": "G Syx"}
#: the sentence the last part carries: G's defect beside the loss, or the loss beside the matrices
GINV_PART_LINE = {
    "not_ginverse": "max |Sxx G Sxx - Sxx| = {is_ginv:.2e}: G is not a generalized inverse",
    "unique": "|L(Syx G) - L_min| = {gap:.2e}: both attain L_min",
}
GINV_TABLE = (
    Part(
        "G is a generalized inverse of Sxx (rank {rank} of {d})",
        "max |Sxx G Sxx - Sxx|",
        "is_ginv",
        "tol",
        "{crit}",
        nontrivial="dG",
        nontrivial_what="max |G - Sxx^+|",
        when="states_ginverse",
    ),
    Part(
        "Eq. 16 with W = {form}",
        "|L(W) - L_min(least squares)|",
        "gap",
        "tol",
        "{crit}",
        nontrivial="dW",
        nontrivial_what="max |W - Syx Sxx^+|",
        when="states_loss",
    ),
    Part(
        "Syx G equals Syx Sxx^+",
        "max |Syx G - Syx Sxx^+|",
        "dW",
        "tol",
        "{crit}",
        nontrivial="Wmp_max",
        nontrivial_what="max |Syx Sxx^+|",
        when="states_unique",
    ),
)


def eq15_16_ginverse_check(
    data: Dataset | None = None, seed: int = 0, left: bool = False, not_ginverse: bool = False, unique: bool = False
) -> Check:
    """Eqs. 15-16 with *any* generalized inverse, on a rank-deficient X.

    W_G = Sigma_YX G with G a non-Moore-Penrose generalized inverse of Sigma_XX reaches the
    least-squares loss L_min (computed independently by a least-squares solve on the samples),
    although W_G differs from the Moore-Penrose W* (the nontrivial part).

    ``unique=True`` (the ledger's falsifier) checks the false statement "Sigma_YX G is the same
    matrix for every generalized inverse G" (the minimiser is unique): max |W_G - Sigma_YX Sxx^+|
    against the same rounding tolerance. ``left=True`` states the form G Sigma_YX (the inverse on
    the other side). ``not_ginverse=True`` drops the hypothesis on G: G = Sxx^+ + Z with a random
    Z, for which Sxx G Sxx != Sxx, and checks "W = Sigma_YX G attains L_min for this G too".
    """
    if sum(map(bool, (left, not_ginverse, unique))) > 1:
        raise ValueError("choose at most one of left, not_ginverse and unique")
    data = rank_deficient_data(seed=seed) if data is None else data
    variant = "left" if left else "not_ginverse" if not_ginverse else "unique" if unique else None
    values = dict(
        _ginverse_numbers(data, seed, left=left, not_ginverse=not_ginverse),
        variant=variant,
        form=GINV_FORM.get(variant, GINV_FORM[None]),
        states_ginverse=not not_ginverse,  # the falsifier claims the loss only
        states_loss=not unique,
        states_unique=bool(unique),
    )
    parts = checks_from(GINV_TABLE, values)
    if variant in GINV_PART_LINE:
        parts[-1].lines.append(GINV_PART_LINE[variant].format_map(values))
    res = all_of(GINV_TITLE[variant], parts)
    res.values.update(values)
    return res


def _ginverse_numbers(data: Dataset, seed: int, left: bool = False, not_ginverse: bool = False) -> dict:
    """W = Syx G (``left``: G Syx) for a generalized inverse G of Sxx drawn with ``seed + 1``
    (``not_ginverse``: Sxx^+ plus a random matrix drawn with ``seed + 2``): its loss against the
    least-squares L_min, how far G is from one, how far W is from Syx Sxx^+, and the tolerance."""
    st = data.stats()
    G = generalized_inverse(st.Sxx, seed=seed + 1)
    Gp = torch.linalg.pinv(st.Sxx)
    if not_ginverse:
        g = torch.Generator().manual_seed(int(seed) + 2)
        G = Gp + torch.randn(st.Sxx.shape, generator=g, dtype=st.Sxx.dtype)
    W = G @ st.Syx if left else st.Syx @ G
    Wmp = st.Syx @ Gp
    LW = float(loss_end_to_end(W, st))
    Wls = torch.linalg.lstsq(data.X.T, data.Y.T, driver="gelsd").solution.T
    Lmin = float(((data.Y - Wls @ data.X) ** 2).sum() / (2 * data.m))
    tol, crit = eps_criterion(data.m, max(1.0, float(G.abs().max()) ** 2 * float(st.Sxx.abs().max())))
    return dict(
        LW=LW,
        Lmin=Lmin,
        gap=abs(LW - Lmin),
        rank=int(torch.linalg.matrix_rank(st.Sxx)),
        d=data.d,
        is_ginv=float((st.Sxx @ G @ st.Sxx - st.Sxx).abs().max()),
        dG=float((G - Gp).abs().max()),
        dW=float((W - Wmp).abs().max()),
        Wmp_max=float(Wmp.abs().max()),
        tol=tol,
        crit=crit,
    )


# ------------------------------------------------------------------------------------------
# Claims (see resnet_nb.book.ledger)
# ------------------------------------------------------------------------------------------

WHERE = ["book/theorem1_dynamics.ipynb", "tests/li/test_dynamics_eq15_16.py"]


@claims.claim(
    "li-eq15-16-any-g-inverse",
    source="Li et al., Eqs. 15-16",
    statement=r"With a rank-deficient $X$ and a generalized inverse that is not the Moore-Penrose one, "
    r"$W = \Sigma_{YX}\Sigma_{XX}^-$ attains the least-squares loss $L_{\min}$.",
    verdict="holds",
    falsifier=r"the minimiser is unique: $\Sigma_{YX}G$ is the same matrix for every generalized "
    r"inverse $G$ (it equals $\Sigma_{YX}\Sigma_{XX}^+$)",
    where=WHERE,
    falsifier_kind=PLAUSIBLE,
)
def claim_eq15_16(falsify: bool = False) -> Check:
    return eq15_16_ginverse_check(seed=0, unique=falsify)
