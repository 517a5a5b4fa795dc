"""Theorem 1 of Li et al. (chapter: book/theorem1.ipynb): the Hessian at zero, parts 2 and 3.

* The paper's matrices, literally: Eq. 20's permutation (:func:`shuffle_matrix`), Eqs. 21, 25
  and 28 (:func:`eq21_A`, :func:`eq25_B`, :func:`eq28_A`); Eqs. 11 and 13 are assembled by
  :func:`resnet_nb.core.hessians.eq11_assemble` and :func:`~resnet_nb.core.hessians.eq13_assemble`.
* Part 2 (n = 2: Eq. 11, eigenvalues from Eq. 12, strict saddle): :func:`part2_check`,
  :func:`depth_table`, :func:`depth_invariance_check`.
* Part 3 (n = 1: block Toeplitz Eq. 13 with Eqs. 23-28): :func:`part3_check`; the growth of
  its condition number with depth (the book's Proposition): :func:`growth_bounds`,
  :func:`growth_check`.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from tqdm.auto import tqdm

from resnet_nb.core import claims
from resnet_nb.core.checks import require_choice, require_int
from resnet_nb.core.claims import PLAUSIBLE, Check, Part, all_of, checks_from, eps_criterion
from resnet_nb.core.data import Dataset, as_stats
from resnet_nb.core.hessians import (
    cond_max_min,
    cond_percentile,
    eq11_assemble,
    eq13_assemble,
    hessian,
    hessian_linear,
    loss_function,
    spectrum,
    theorem1_blocks,
)
from resnet_nb.core.networks import ShortcutNetwork
from resnet_nb.li.theorem1.definition5 import unfriendly_data3

__all__ = [
    "shuffle_matrix",
    "eq21_A",
    "eq25_B",
    "eq28_A",
    "exact_hessian_at_zero",
    "PART2_VARIANTS",
    "part2_check",
    "part3_check",
    "depth_table",
    "unitwise_spectrum",
    "depth_invariance_check",
    "GROWTH_VARIANTS",
    "growth_bounds",
    "growth_check",
    "same_picture",
]

# ------------------------------------------------------------------------------------------
# The paper's matrices, literally (Eqs. 11, 13, 20-21, 25, 28)
# ------------------------------------------------------------------------------------------


def shuffle_matrix(d: int) -> torch.Tensor:
    """Eq. 20's permutation P (d^2 x d^2): P_{ij} = 1 iff i = ((j-1) mod d) d + ceil(j/d), 1-based."""
    d = require_int("d", d)
    P = torch.zeros(d * d, d * d, dtype=torch.float64)
    for j in range(1, d * d + 1):
        i = ((j - 1) % d) * d + math.ceil(j / d)
        P[i - 1, j - 1] = 1.0
    return P


def _blockdiag(M: torch.Tensor, d: int) -> torch.Tensor:
    return torch.block_diag(*([M] * d))


def eq21_A(M: torch.Tensor) -> torch.Tensor:
    """Eq. 21: A = diag(M, ..., M) P^T, with M the (already scaled) matrix of Eq. 12."""
    d = M.shape[0]
    return _blockdiag(M, d) @ shuffle_matrix(d).T


def eq25_B(Sxx: torch.Tensor) -> torch.Tensor:
    """Eq. 25 (n = 1, linear): B = P diag(Sigma_XX, ..., Sigma_XX) P^T."""
    d = Sxx.shape[0]
    P = shuffle_matrix(d)
    return P @ _blockdiag(Sxx, d) @ P.T


def eq28_A(Sxx: torch.Tensor, Syx: torch.Tensor) -> torch.Tensor:
    """Eq. 28 (n = 1, linear): A = diag(Sigma_XX - Sigma_YX, ...) P^T + B."""
    d = Sxx.shape[0]
    return _blockdiag(Sxx - Syx, d) @ shuffle_matrix(d).T + eq25_B(Sxx)


def exact_hessian_at_zero(net: ShortcutNetwork, data, method: str = "auto"):
    """The exact Hessian at ``w = 0`` (Kronecker route for linear networks, autograd otherwise) and
    the route taken, ``(H, method)``."""
    W0 = torch.zeros(net.shape, dtype=torch.float64)
    if method == "auto":
        method = "kronecker" if net.is_linear else "autograd"
    require_choice("method", method, ["autograd", "kronecker"])
    if method == "kronecker":
        return hessian_linear(net, W0, data), method
    return hessian(net, W0, data), method


# ------------------------------------------------------------------------------------------
# Part 2 (n = 2)
# ------------------------------------------------------------------------------------------

PART2_VARIANTS = (None, "eq21_without_P", "multiplicity_d", "multiplicity_R", "eq12_without_sqrt")


PART2_TITLE = "Theorem 1, part 2 ({network})"
PART2_LINE = "cond(H) = {cond_H:.6g}; sigma_max/sigma_min(M) = {cond_M:.6g}; lambda_min = {lam_min:.4g}"
PART2_WITHOUT_P = {"eq21_without_P": " [A without P]"}
PART2_EQ12_FORM = {None: "sqrt(cond(M^T M))", "eq12_without_sqrt": "cond(M^T M)"}
PART2_TABLE = (
    Part(
        "Eq. 11 with A from Eq. 21 ({method}, #params = {num_params}){without_P}",
        "max |H_exact - H_Eq.11|",
        "err_H",
        "tol",
        "{crit}",
        nontrivial="hmax",
        nontrivial_what="max |H|",
    ),
    Part("the closed form of A (Eq. 19) equals Eq. 21", "max |A_Eq.19 - A_Eq.21|", "err_A", "tol", "{crit}"),
    Part(
        "each level +-sigma_k(M) holds {mult} eigenvalues",
        "max over levels |#eigenvalues nearest to it - predicted count|",
        "err_mult",
        0.0,
        "counts are integers: exact",
    ),
    Part(
        "Eq. 12: cond(H) = {eq12_form}", "|cond(H) - Eq. 12| / Eq. 12", "rel_cond", "rtol_cond", "100 P eps (relative)"
    ),
    Part(
        "strict saddle: L(tv) - L(0) = t^2 lambda_min / 2 at t = 1e-3",
        "|drop - quadratic model| / |quadratic model|",
        "saddle_value",
        "saddle_bound",
        "next Taylor term: 10 t at t = 1e-3",
    ),
    Part(
        "eigenvalues lie at the levels +-sigma_k(M)",
        "max |eig(H) - nearest level|",
        "err_eigs",
        "tol",
        "{crit}",
        nontrivial="sv_max",
        nontrivial_what="sigma_max(M)",
    ),
)


def part2_check(net: ShortcutNetwork, data, method: str = "auto", H=None, variant=None) -> Check:
    """Theorem 1, part 2 (n = 2) at w = 0, five statements against the exact Hessian:

    1. Eq. 11 with A from Eq. 21 (A = diag(M..M) P^T, M = sigma_mid'(0) sigma_post'(0)
       (Sigma_{Xs} - Sigma_{Ys}), Eq. 12): max |H_exact - H_Eq11|.
    2. our closed form of A (Eq. 19) against Eq. 21.
    3. multiplicities: each eigenvalue of H is assigned to the nearest of the 2d levels
       +-sigma_k(M); every level must hold exactly d R of them (largest count mismatch, tolerance 0).
    4. cond(H) = sqrt(cond(M^T M)) (Eq. 12), relative difference.
    5. strict saddle: the loss along the eigenvector of lambda_min drops as t^2 lambda_min / 2.
    6. levels: every eigenvalue lies at its level +-sigma_k(M) (largest distance).

    ``variant`` states a false version instead (the ledger's falsifiers): "eq21_without_P"
    (A = diag(M..M)), "multiplicity_R" (R copies of each +-sigma_k(M), the paper's words "copies
    equal to the number of shortcut connections" read as copies of the singular values),
    "multiplicity_d" (each singular value d times, not d R), "eq12_without_sqrt" (cond(H) = cond(M^T M)).
    """
    if net.n != 2:
        raise ValueError(f"part 2 is about n = 2, got a network with n = {net.n}")
    require_choice("variant", variant, PART2_VARIANTS)
    if H is None:
        H, method = exact_hessian_at_zero(net, data, method)
    blocks = theorem1_blocks(net, data)
    M = blocks["M"]
    A21 = _blockdiag(M, net.d) if variant == "eq21_without_P" else eq21_A(M)
    hmax = float(H.abs().max())
    tol, crit = eps_criterion(net.num_params, max(hmax, 1e-300))
    eigs = spectrum(H)
    sv = torch.linalg.svdvals(M).numpy()
    mult = {"multiplicity_d": net.d, "multiplicity_R": net.R}.get(variant, net.d * net.R)
    values = dict(
        err_H=float((H - eq11_assemble(A21, net.R)).abs().max()),
        err_A=float((blocks["A"] - A21).abs().max()),
        sv=sv,
        sv_max=float(sv.max()),
        eigs=eigs,
        H=H,
        hmax=hmax,
        tol=tol,
        crit=crit,
        method=method,
        num_params=net.num_params,
        mult=mult,
        without_P=PART2_WITHOUT_P.get(variant, ""),
        eq12_form=PART2_EQ12_FORM.get(variant, PART2_EQ12_FORM[None]),
        network=net.describe(),
        **_levels_held(eigs, sv, mult),
        **_eq12_condition(eigs, M, net.num_params, squared=variant == "eq12_without_sqrt"),
        **_strict_saddle(net, data, H),
    )
    res = all_of(PART2_TITLE.format_map(values), checks_from(PART2_TABLE, values), [PART2_LINE.format_map(values)])
    res.values.update(values)
    return res


def _levels_held(eigs, sv, mult) -> dict:
    """Assign each eigenvalue to the nearest level +-sigma_k(M); how far it lies from it, and how
    far each level's count is from ``mult``."""
    levels = np.concatenate([sv, -sv])
    nearest = np.abs(eigs[:, None] - levels[None, :]).argmin(axis=1)
    counts = np.bincount(nearest, minlength=levels.size)
    return dict(
        err_eigs=float(np.abs(eigs - levels[nearest]).max()),
        counts=counts,
        err_mult=float(np.abs(counts - mult).max()),
    )


def _eq12_condition(eigs, M, num_params: int, squared: bool = False) -> dict:
    """cond(H) against Eq. 12's sqrt(cond(M^T M)) (``squared``: against cond(M^T M), a false form)."""
    sv = torch.linalg.svdvals(M).numpy()
    cond_H = cond_max_min(eigs)
    MtM = torch.linalg.eigvalsh(M.T @ M).numpy()
    cond_MtM = MtM.max() / MtM.min() if MtM.min() > 0 else math.inf
    cond_eq12 = cond_MtM if squared else math.sqrt(cond_MtM)
    rtol_cond, _ = eps_criterion(num_params, max(cond_H, 1.0))
    return dict(
        cond_H=cond_H,
        cond_M=float(sv.max() / sv.min()) if sv.min() > 0 else math.inf,
        cond_eq12=cond_eq12,
        rel_cond=abs(cond_H - cond_eq12) / cond_eq12 if math.isfinite(cond_eq12) else math.nan,
        rtol_cond=rtol_cond / max(cond_H, 1.0),
    )


def _strict_saddle(net, data, H, t: float = 1e-3) -> dict:
    """The loss along the eigenvector of lambda_min against its quadratic model t^2 lambda_min / 2.

    The gap is the drop's distance from a negative quadratic model, relative to it (no negative
    curvature: no strict saddle, an infinite gap); a gap below 10 t < 1 makes the drop negative."""
    lam, vecs = torch.linalg.eigh(H)
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    drop = float(f(w0 + t * vecs[:, 0]) - f(w0))
    quad = 0.5 * t**2 * float(lam[0])
    saddle_gap = abs(drop - quad) / -quad if quad < 0 else math.inf
    saddle_ok = saddle_gap <= 10 * t
    return dict(
        lam_min=float(lam[0]),
        drop=drop,
        quad=quad,
        saddle_gap=saddle_gap,
        saddle_ok=saddle_ok,
        saddle_value=saddle_gap if saddle_ok else math.inf,
        saddle_bound=10 * t,
    )


# ------------------------------------------------------------------------------------------
# Part 3 (n = 1)
# ------------------------------------------------------------------------------------------


PART3_VARIANTS = (None, "eq25_without_P")
PART3_TITLE = "Theorem 1, part 3 ({network})"
PART3_WITHOUT_P = {"eq25_without_P": " without P"}
PART3_TABLE = (
    Part(
        "block Toeplitz, read off the exact Hessian",
        "max |block - its diagonal's representative|",
        "toeplitz",
        "tol",
        "{crit}",
        nontrivial="coupling",
        nontrivial_what="max |block (2, 1)|",
    ),
    Part(
        "Eq. 13 with the closed forms A, B ({method}, #params = {num_params})",
        "max |H_exact - H_Eq.13|",
        "err",
        "tol",
        "{crit}",
        nontrivial="hmax",
        nontrivial_what="max |H|",
    ),
    Part("the paper's Eq. 25{without_P}", "max |B - Eq.25|", "err_B25", "tol", "{crit}", when="linear"),
    Part("the paper's Eq. 28", "max |A - Eq.28|", "err_A28", "tol", "{crit}", when="linear"),
)


def part3_check(net: ShortcutNetwork, data, method: str = "auto", H=None, variant=None) -> Check:
    """Theorem 1, part 3 (n = 1) at w = 0.

    1. block Toeplitz: every block below the diagonal of the exact Hessian equals block (1, 0),
       every diagonal block equals block (0, 0) (read off H itself, no formula involved);
       the nontrivial part is max |block (1, 0)| (the coupling between units);
    2. H equals Eq. 13 assembled from our closed forms A, B (activations included);
    3. for a linear network, A and B also equal the paper's Eqs. 25 and 28, written with the
       permutation P of Eq. 20. ``variant="eq25_without_P"`` states the false form
       B = diag(Sxx, ..., Sxx) (I (x) Sxx for Sxx (x) I).
    """
    if net.n != 1:
        raise ValueError(f"part 3 is about n = 1, got a network with n = {net.n}")
    require_choice("variant", variant, PART3_VARIANTS)
    if H is None:
        H, method = exact_hessian_at_zero(net, data, method)
    blocks = theorem1_blocks(net, data)
    A, B = blocks["A"], blocks["B"]
    hmax = float(H.abs().max())
    tol, crit = eps_criterion(net.num_params, max(hmax, 1e-300))
    values = dict(
        err=float((H - eq13_assemble(A, B, net.R)).abs().max()),
        H=H,
        hmax=hmax,
        tol=tol,
        crit=crit,
        method=method,
        num_params=net.num_params,
        linear=net.is_linear,
        without_P=PART3_WITHOUT_P.get(variant, ""),
        network=net.describe(),
        **_toeplitz_defect(H, net.d**2, net.R),
        **(_eq25_eq28_errors(net, data, A, B, without_P=variant == "eq25_without_P") if net.is_linear else {}),
    )
    res = all_of(PART3_TITLE.format_map(values), checks_from(PART3_TABLE, values))
    res.values.update(values)
    return res


def _toeplitz_defect(H, q: int, R: int) -> dict:
    """How far the R x R blocks (q x q) of H are from block Toeplitz: every diagonal block against
    block (0, 0), every block below the diagonal against block (1, 0) and above it against its
    transpose; and the coupling max |block (1, 0)| (0 for one unit)."""
    blk = lambda a, b: H[a * q : (a + 1) * q, b * q : (b + 1) * q]  # noqa: E731
    toe = 0.0
    for r1 in range(R):
        toe = max(toe, float((blk(r1, r1) - blk(0, 0)).abs().max()))
        for r2 in range(r1):
            toe = max(toe, float((blk(r1, r2) - blk(1, 0)).abs().max()))
            toe = max(toe, float((blk(r2, r1) - blk(1, 0).T).abs().max()))
    return dict(toeplitz=toe, coupling=float(blk(1, 0).abs().max()) if R > 1 else 0.0)


def _eq25_eq28_errors(net, data, A, B, without_P: bool = False) -> dict:
    """Our closed forms B, A against the paper's Eqs. 25 and 28 (``without_P``: Eq. 25 without the
    permutation, a false form, used in both)."""
    stats = as_stats(data)
    B25 = _blockdiag(stats.Sxx, net.d) if without_P else eq25_B(stats.Sxx)
    A28 = _blockdiag(stats.Sxx - stats.Syx, net.d) @ shuffle_matrix(net.d).T + B25
    return dict(err_B25=float((B - B25).abs().max()), err_A28=float((A - A28).abs().max()))


def depth_table(n: int, Rs, data, progress: bool = True, **net_kwargs) -> list[dict]:
    """Condition numbers of the exact Hessian at 0 for n-shortcut networks of R units, R in Rs.

    Each row: depth L = n R, P, cond = |lambda|max/|lambda|min, the paper's 10th-percentile
    version, and (n = 2) the prediction sigma_max(M)/sigma_min(M) of Eq. 12.
    Linear networks use the Kronecker Hessian, others autograd.
    """
    rows = []
    pred = None
    bar = (
        tqdm(
            list(Rs),
            desc=f"Hessians at 0, n = {n}",  # pragma: no mutate
            leave=False,  # pragma: no mutate (whether the finished bar stays on screen)
        )
        if progress
        else Rs
    )
    for R in bar:
        net = ShortcutNetwork(d=data.d, n=n, R=R, **net_kwargs)  # a Dataset and its SufficientStats both have d
        H, _ = exact_hessian_at_zero(net, data, "auto")
        eigs, off = unitwise_spectrum(H, net)
        if n == 2 and pred is None:
            sv = torch.linalg.svdvals(theorem1_blocks(net, data)["M"]).numpy()
            pred = float(sv.max() / sv.min())
        rows.append(
            dict(
                depth=n * R,
                R=R,
                P=net.num_params,
                cond=cond_max_min(eigs),
                cond10=cond_percentile(eigs, 10),
                lam_min=float(eigs[0]),
                lam_max=float(eigs[-1]),
                predicted=pred,
                off_unit_max=off,
            )
        )
    return rows


def unitwise_spectrum(H, net: ShortcutNetwork):
    """Eigenvalues of H; when every block coupling two different units is exactly zero (as
    Lemma 1 predicts for n >= 2), the spectrum is the union of the units' spectra, which is
    much cheaper. Returns (eigenvalues ascending, max |entry| outside the unit blocks)."""
    q = net.n * net.d**2
    off = 0.0
    for r in range(net.R):
        rows = H[r * q : (r + 1) * q]
        if r > 0:
            off = max(off, float(rows[:, : r * q].abs().max()))
        if r < net.R - 1:
            off = max(off, float(rows[:, (r + 1) * q :].abs().max()))
    if off == 0.0:
        eigs = np.sort(np.concatenate([spectrum(H[r * q : (r + 1) * q, r * q : (r + 1) * q]) for r in range(net.R)]))
    else:
        eigs = spectrum(H)
    return eigs, off


LIST_SEP = ", "
DEPTH_INVARIANCE_COND = "{:.6g}"
DEPTH_INVARIANCE_LINE = "full eigendecompositions, #params = {P_lo}..{P_hi}: cond(H) = {conds_txt}"
DEPTH_INVARIANCE_TABLE = (
    Part(
        "cond(H) at 0 does not depend on depth (n = {n}, R = {R_lo}..{R_hi})",
        "(max - min) / min of cond(H) over depths",
        "spread",
        "tol",
        "{crit} (resolution of |lambda|min relative to |lambda|max)",
    ),
)


def depth_invariance_check(n: int, Rs, data) -> Check:
    """Part 2's depth invariance, from independent eigendecompositions of the *full* Hessians.

    For each R the exact Hessian at 0 of the linear n-shortcut network (Kronecker route) is
    decomposed as a whole (not unit by unit), and cond(H) = |lambda|max / |lambda|min is
    compared across R: the relative spread must be below 100 P eps cond (the resolution of the
    smallest eigenvalue). The ledger's falsifier runs the same comparison for n = 1.
    """
    Rs = [require_int("R", R) for R in Rs]
    if len(Rs) < 2:
        raise ValueError(f"Rs must hold at least two depths, got {Rs}")
    conds, Ps = [], []
    for R in Rs:
        net = ShortcutNetwork(data.d, n, R)
        H = hessian_linear(net, torch.zeros(net.shape, dtype=torch.float64), data)
        conds.append(cond_max_min(spectrum(H)))
        Ps.append(net.num_params)
    spread = (max(conds) - min(conds)) / min(conds)
    tol, crit = eps_criterion(max(Ps), max(conds))
    values = dict(
        conds=conds,
        Rs=Rs,
        spread=spread,
        tol=tol,
        crit=crit,
        n=n,
        R_lo=Rs[0],
        R_hi=Rs[-1],
        P_lo=Ps[0],
        P_hi=Ps[-1],
        conds_txt=LIST_SEP.join(map(DEPTH_INVARIANCE_COND.format, conds)),
    )
    (res,) = checks_from(DEPTH_INVARIANCE_TABLE, values)
    res.lines.append(DEPTH_INVARIANCE_LINE.format_map(values))
    res.values.update(values)
    return res


GROWTH_VARIANTS = (None, "pairs_once")


def growth_bounds(Rs, stats, variant: str | None = None) -> list[dict]:
    """The quantities of the Proposition (1-shortcut growth) for linear 1-shortcut networks of R units.

    With A, B the blocks of Eq. 13 (Part 3, from the data alone): the test vector
    (z, ..., z)/sqrt(R) gives lambda_max(H) >= lb(R) = lambda_max(B + (R-1)(A + A^T)/2); at least
    k = N - ceil((N-1)/10) >= 0.9 N - 1 of the N = R d^2 eigenvalues have |lambda| >= |lambda|(0.1)
    (numpy's interpolated 10th percentile), so |lambda|(0.1) <= ub(R) = sqrt(tr(H^2) / k) with
    tr(H^2) = R ||B||_F^2 + R(R-1) ||A||_F^2 (R(R-1) off-diagonal blocks, A below and A^T above).
    ``variant="pairs_once"`` states the slip R(R-1)/2 (each pair of units counted once) in the trace
    formula and in the bound built on it. Each row holds the measured values (exact Hessian) beside
    the bounds.
    """
    require_choice("variant", variant, GROWTH_VARIANTS)
    blocks = theorem1_blocks(ShortcutNetwork(stats.d, 1, 1), stats)
    A, B = blocks["A"], blocks["B"]
    Asym = (A + A.T) / 2
    nA, nB = float((A**2).sum()), float((B**2).sum())
    rows = []
    for R in Rs:
        net = ShortcutNetwork(stats.d, 1, require_int("R", R))
        H = hessian_linear(net, torch.zeros(net.shape, dtype=torch.float64), stats)
        eigs = spectrum(H)
        a = np.abs(eigs)
        N = a.size
        pairs = R * (R - 1) / 2 if variant == "pairs_once" else R * (R - 1)
        tr_formula = R * nB + pairs * nA
        lb = float(torch.linalg.eigvalsh(B + (R - 1) * Asym).max())
        k = N - math.ceil(0.1 * (N - 1))  # eigenvalues at or above numpy's 10th percentile (>= 0.9 N - 1)
        ub = math.sqrt(tr_formula / k)
        rows.append(
            dict(
                R=R,
                depth=R,
                P=N,
                lam_max=float(a.max()),
                lower_bound=lb,
                p10=float(np.percentile(a, 10)),
                p10_bound=ub,
                trH2=float((H**2).sum()),
                trH2_formula=tr_formula,
                cond10=float(a.max() / np.percentile(a, 10)),
                cond10_bound=lb / ub,
                c_prime=lb / ub / math.sqrt(R),
            )
        )
    return rows


GROWTH_TITLE = "Proposition (1-shortcut growth), 1-shortcut networks, R = {Rs}{slip}"
GROWTH_SLIP = {"pairs_once": " [pairs counted once]"}
GROWTH_PAIRS = {None: "R(R-1)", "pairs_once": "R(R-1)/2"}
GROWTH_LINE = "cond10 / lower bound: {bounds}"
GROWTH_BOUND = "R={R}: {cond10:.3g} >= {cond10_bound:.3g}"
GROWTH_TABLE = (
    Part(
        "lambda_max >= lambda_max(B + (R-1)(A + A^T)/2)",
        "min over R of lambda_max - bound",
        "slack",
        "neg_tol",
        "{crit}",
        op=">=",
    ),
    Part(
        "tr(H^2) = R ||B||^2 + {pairs} ||A||^2",
        "max over R of |tr(H^2) - formula|",
        "tr_err",
        "tol2",
        "{crit2}",
        nontrivial="trH2_max",
        nontrivial_what="tr(H^2)",
    ),
    Part("|lambda|(0.1) <= sqrt(tr(H^2) / k)", "max over R of |lambda|(0.1) - bound", "over", "tol", "{crit}"),
)


def growth_check(stats, Rs=(2, 4, 8), variant: str | None = None) -> Check:
    """The book's Proposition (1-shortcut growth), checked on the exact Hessians at 0.

    Three comparisons over R in ``Rs`` (see :func:`growth_bounds`): lambda_max >= lb(R);
    tr(H^2) equals its block formula; |lambda|(0.1) <= ub(R). Together they give
    cond10 >= lb(R)/ub(R) >= c' sqrt(R).

    ``variant="pairs_once"`` runs the same comparisons on the ledger's falsifier, the slip
    tr(H^2) = R ||B||^2 + R(R-1)/2 ||A||^2 (each pair of units counted once, although A and A^T
    both occur): the trace comparison rejects it.
    """
    if isinstance(stats, Dataset):
        stats = stats.stats()
    rows = growth_bounds(Rs, stats, variant)
    tol, crit = eps_criterion(max(r["P"] for r in rows), max(r["lam_max"] for r in rows))
    tol2, crit2 = eps_criterion(max(r["P"] for r in rows), max(r["trH2"] for r in rows))
    values = dict(
        rows=rows,
        Rs=list(Rs),
        slip=GROWTH_SLIP.get(variant, ""),
        pairs=GROWTH_PAIRS[variant],
        tol=tol,
        crit=crit,
        neg_tol=-tol,
        tol2=tol2,
        crit2=crit2,
        slack=min(r["lam_max"] - r["lower_bound"] for r in rows),
        tr_err=max(abs(r["trH2"] - r["trH2_formula"]) for r in rows),
        trH2_max=max(r["trH2"] for r in rows),
        over=max(r["p10"] - r["p10_bound"] for r in rows),
        bounds=LIST_SEP.join(GROWTH_BOUND.format_map(r) for r in rows),
    )
    res = all_of(GROWTH_TITLE.format_map(values), checks_from(GROWTH_TABLE, values), [GROWTH_LINE.format_map(values)])
    res.values.update(values)
    return res


def same_picture(net_a: ShortcutNetwork, net_b: ShortcutNetwork, data) -> float:
    """max |H_a - H_b| between the exact Hessians at 0 of two networks on the same data (why
    two settings of the chapter's explorer draw the same picture, e.g. linear and tanh at mid)."""
    Ha, _ = exact_hessian_at_zero(net_a, data, "auto")
    Hb, _ = exact_hessian_at_zero(net_b, data, "auto")
    return float((Ha - Hb).abs().max())


# ------------------------------------------------------------------------------------------
# Claims (see resnet_nb.book.ledger)
# ------------------------------------------------------------------------------------------

WHERE = ["book/theorem1.ipynb", "tests/li/test_theorem1_hessian_at_zero.py"]


@claims.claim(
    "li-thm1-eq11",
    source="Li et al., Theorem 1 part 2, Eqs. 11 and 21",
    statement=r"For $n = 2$ the Hessian at $0$ is block diagonal over units with blocks "
    r"$\begin{pmatrix}0 & A^\top\\ A & 0\end{pmatrix}$, $A = \mathrm{diag}(M,\dots,M)P^\top$.",
    verdict="holds",
    falsifier=r"Eq. 21 without the permutation: $A = \mathrm{diag}(M,\dots,M)$",
    where=WHERE,
    falsifier_kind=PLAUSIBLE,
)
def claim_eq11(falsify: bool = False) -> Check:
    net = ShortcutNetwork(3, 2, 3, pre="tanh", mid="silu")
    res = part2_check(net, unfriendly_data3(), method="autograd", variant="eq21_without_P" if falsify else None)
    return res.parts[0]


PART2_SPECTRUM_TITLE = "Theorem 1, part 2: the spectrum (levels and their counts)"


@claims.claim(
    "li-thm1-part2-spectrum",
    source="Li et al., Theorem 1 part 2, Eq. 18",
    statement=r"For $n = 2$ the eigenvalues at $0$ are $\pm\sigma_k(M)$, each with multiplicity $dR$.",
    verdict="holds",
    falsifier=r"$R$ copies of each $\pm\sigma_k(M)$ (the paper's 'copies equal to the "
    r"number of shortcut connections' read as copies of the singular values)",
    where=WHERE,
    falsifier_kind=PLAUSIBLE,
)
def claim_part2_spectrum(falsify: bool = False) -> Check:
    net = ShortcutNetwork(3, 2, 3, pre="tanh", mid="silu")
    res = part2_check(net, unfriendly_data3(), method="autograd", variant="multiplicity_R" if falsify else None)
    return all_of(PART2_SPECTRUM_TITLE, [res.parts[5], res.parts[2]])


@claims.claim(
    "li-thm1-eq12-cond",
    source="Li et al., Theorem 1 part 2, Eq. 12",
    statement=r"For $n = 2$, $\mathrm{cond}(H) = \sqrt{\mathrm{cond}(M^\top M)}$ at $0$.",
    verdict="holds",
    falsifier=r"Eq. 12 without the square root: "
    r"$\mathrm{cond}(H) = \mathrm{cond}(M^\top M)$",
    where=WHERE,
    falsifier_kind=PLAUSIBLE,
)
def claim_eq12(falsify: bool = False) -> Check:
    net = ShortcutNetwork(3, 2, 2, mid="silu")
    res = part2_check(net, unfriendly_data3(), method="autograd", variant="eq12_without_sqrt" if falsify else None)
    return res.parts[3]


@claims.claim(
    "li-thm1-eq13",
    source="Li et al., Theorem 1 part 3, Eqs. 13, 25 and 28",
    statement=r"For $n = 1$ the Hessian at $0$ is block Toeplitz (Eq. 13) with "
    r"$B = P\,\mathrm{diag}(\Sigma_{XX},\dots)P^\top$ (Eq. 25) and $A$ of Eq. 28.",
    verdict="holds",
    falsifier=r"Eq. 25 without the permutation: $B = \mathrm{diag}(\Sigma_{XX},\dots)$ "
    r"($I\otimes\Sigma_{XX}$ for $\Sigma_{XX}\otimes I$)",
    where=WHERE,
    falsifier_kind=PLAUSIBLE,
)
def claim_eq13(falsify: bool = False) -> Check:
    return part3_check(
        ShortcutNetwork(3, 1, 4), unfriendly_data3().stats(), variant="eq25_without_P" if falsify else None
    )


@claims.claim(
    "li-thm1-depth-invariant",
    source="Li et al., Theorem 1 part 2 (depth invariance)",
    statement=r"For linear 2-shortcut networks cond$(H)$ at $0$ is the same at every depth "
    r"(full eigendecompositions, $R = 1, 2, 4, 8$).",
    verdict="holds",
    falsifier=r"the same depth invariance for $n = 1$",
    where=WHERE,
    falsifier_kind=PLAUSIBLE,
)
def claim_depth_invariant(falsify: bool = False) -> Check:
    return depth_invariance_check(1 if falsify else 2, (1, 2, 4, 8), unfriendly_data3().stats())


@claims.claim(
    "book-one-shortcut-growth",
    source="the book's Proposition (1-shortcut growth); Li et al., Section 4",
    statement=r"For a linear 1-shortcut network at $0$, "
    r"$\lambda_{\max} \ge \lambda_{\max}(B + (R-1)(A+A^\top)/2)$ "
    r"and $|\lambda|_{(10\%)} \le \sqrt{\mathrm{tr}(H^2)/N_{90}}$ "
    r"($N_{90} \ge 9N_\lambda/10 - 1$ eigenvalues at or above it), with "
    r"$\mathrm{tr}(H^2) = R\|B\|_F^2 + R(R-1)\|A\|_F^2$, so the paper's condition number "
    r"grows at least like $\sqrt R$.",
    verdict="holds",
    falsifier=r"the slip $\mathrm{tr}(H^2) = R\|B\|_F^2 + \tfrac{R(R-1)}{2}\|A\|_F^2$ (each pair of units "
    r"counted once, although $A$ and $A^\top$ both occur), same comparisons",
    where=WHERE,
    falsifier_kind=PLAUSIBLE,
)
def claim_growth(falsify: bool = False) -> Check:
    from resnet_nb.shared.common import mnist  # cached: 1,000 whitened digits

    return growth_check(mnist(100).stats(), (2, 4, 8), variant="pairs_once" if falsify else None)
