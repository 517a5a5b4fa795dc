"""Hardt & Ma, section 2: linear residual networks ``x -> (I + A_l) ... (I + A_1) x``.

Notation of the paper (and of this module): ``A`` is an array of shape ``(l, d, d)``,
``A[i]`` is the paper's ``A_{i+1}``; ``|||A||| = max_i ||A_i||`` (spectral norms);
the data model is ``y = R x + xi`` with ``E[x x^T] = Sigma`` and noise ``xi ~ N(0, s^2 I)``.
The population risk is ``f(A) = E ||y - (I + A_l) ... (I + A_1) x||^2
= ||E(A) Sigma^{1/2}||_F^2 + C`` with ``E(A) = (I + A_l) ... (I + A_1) - R`` and
``C = d s^2``: the minimum value ``C_opt = C`` is reached exactly when ``E(A) = 0``.

* Theorem 2.1: :func:`theorem21_construction` builds ``A`` with product ``R`` and small
  ``|||A|||``; :func:`theorem21_bound` is the printed bound.
* Theorem 2.2 and the gradient lower bound: :func:`risk_gradient` (closed form, Lemma 2.4),
  :func:`gradient_bound_sides` (both sides of the inequality in three forms) and
  :func:`adversarial_gradient_ratio` (an optimiser that hunts for violations).
"""
from __future__ import annotations

import math

import numpy as np
import scipy.linalg
import torch
from tqdm.auto import tqdm

from resnet_nb.core.checks import check_float, check_int
from resnet_nb.core.claims import Check, all_of, claim, eps_criterion
from resnet_nb.book.plotting import COLORS

__all__ = [
    "as_square", "gamma_of", "theorem21_bound", "residual_product", "max_spectral_norm",
    "polar_factors", "theorem21_construction", "theorem21_paper_recipe", "rotation_step_norm",
    "min_max_norm_lower_bound", "min_max_norm_search", "FORMS", "population_gd", "GD_STEP_LIMIT",
    "population_risk", "risk_gradient", "gradient_bound_sides", "adversarial_gradient_ratio",
    "random_ball_point", "critical_point_at_tau_one", "scalar_optimum", "random_positive_det",
    "theorem21_survey", "gradient_bound_survey", "bound_ratios", "factor_norms_plot", "ratio_histogram",
    "population_gd_batch", "reflection_factorisation", "det_sign_data", "det_sign_figure",
    "theorem22_points", "theorem22_rate",
]


def as_square(name: str, M) -> np.ndarray:
    """``M`` as a finite float64 square matrix, or a ValueError naming ``name``."""
    M = np.asarray(M.detach().cpu().numpy() if isinstance(M, torch.Tensor) else M, dtype=np.float64)
    if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty square matrix, got shape {M.shape}")
    if not np.isfinite(M).all():
        raise ValueError(f"{name} must have finite entries, got {int((~np.isfinite(M)).sum())} NaN/inf")
    return M


def _as_stack(A) -> np.ndarray:
    A = np.asarray(A.detach().cpu().numpy() if isinstance(A, torch.Tensor) else A, dtype=np.float64)
    if A.ndim != 3 or A.shape[1] != A.shape[2] or A.shape[0] == 0:
        raise ValueError(f"A must have shape (l, d, d) with l >= 1, got {A.shape}")
    if not np.isfinite(A).all():
        raise ValueError("A must have finite entries")
    return A


def gamma_of(R) -> float:
    """``gamma = max(|log sigma_max(R)|, |log sigma_min(R)|)`` (Hardt & Ma, section 2)."""
    s = np.linalg.svd(as_square("R", R), compute_uv=False)
    if s[-1] <= 0:
        raise ValueError("R must be invertible: gamma is infinite for a singular R")
    return float(max(abs(math.log(s[0])), abs(math.log(s[-1]))))


#: The two constants of Theorem 2.1 the book knows of: ``"iclr"``, ``2 (sqrt(pi) + sqrt(3 gamma))^2``,
#: read in the ICLR 2017 text; ``"summary"``, ``4 pi + 3 gamma``, from a June-2017 summary of the
#: paper; which version of the paper that summary read is unknown, and the constant is unverified.
#: No arXiv version number is attached to either, since the book cannot say which one has which.
VERSIONS = ("iclr", "summary")


def theorem21_bound(gamma: float, l: int, version: str = "iclr") -> float:
    """The bound on ``|||A*|||`` of Theorem 2.1: ``2 (sqrt(pi) + sqrt(3 gamma))^2 / l`` (``"iclr"``,
    the ICLR text) or ``(4 pi + 3 gamma) / l`` (``"summary"``: from a June-2017 summary,
    which version it read is unknown; unverified)."""
    gamma = check_float("gamma", gamma, low=0.0)
    l = check_int("l", l)
    if version == "summary":
        return (4 * math.pi + 3 * gamma) / l
    if version == "iclr":
        return 2 * (math.sqrt(math.pi) + math.sqrt(3 * gamma)) ** 2 / l
    raise ValueError(f"version must be one of {list(VERSIONS)}, got {version!r}")


def residual_product(A) -> np.ndarray:
    """``(I + A_l) ... (I + A_1)`` for ``A`` of shape (l, d, d)."""
    A = _as_stack(A)
    M = np.eye(A.shape[1])
    for Ai in A:
        M = (np.eye(A.shape[1]) + Ai) @ M
    return M


def max_spectral_norm(A) -> float:
    """``|||A||| = max_i ||A_i||_2``."""
    return float(np.linalg.norm(_as_stack(A), ord=2, axis=(1, 2)).max())


def polar_factors(R):
    """``R = Q P`` with ``Q`` orthogonal and ``P = (R^T R)^{1/2}`` symmetric positive definite.

    Returns ``(Q, P, s)`` with ``s`` the singular values of ``R`` (the eigenvalues of ``P``).
    """
    R = as_square("R", R)
    U, s, Vt = np.linalg.svd(R)
    return U @ Vt, Vt.T @ np.diag(s) @ Vt, s


def _rotation_root(Q: np.ndarray, q: int):
    """An orthogonal ``F`` with ``F^q = Q`` and ``||F - I|| = max |2 sin(theta / 2q)|``.

    ``Q`` must be a rotation (``det Q = +1``). Uses the real Schur form ``Q = Z T Z^T``: ``T``
    is block diagonal with 2x2 rotations by angles ``theta`` in (-pi, pi], and 1x1 blocks
    +1 or -1; the -1 blocks come in pairs (``det = +1``) and each pair is a rotation by pi.
    Returns ``(F, largest |theta|)``.
    """
    d = Q.shape[0]
    T, Z = scipy.linalg.schur(Q, output="real")
    G = np.zeros((d, d))  # generator: Q = Z expm(G) Z^T, G skew-symmetric
    minus, i = [], 0
    while i < d:
        if i + 1 < d and abs(T[i + 1, i]) > 1e-12:
            theta = math.atan2(T[i + 1, i], T[i, i])
            G[i + 1, i], G[i, i + 1] = theta, -theta
            i += 2
        else:
            if T[i, i] < 0:
                minus.append(i)
            i += 1
    if len(minus) % 2:
        raise ValueError("Q has an odd number of eigenvalues -1: its determinant is -1, not +1")
    for a, b in zip(minus[::2], minus[1::2]):
        G[b, a], G[a, b] = math.pi, -math.pi
    theta_max = float(np.abs(G).max()) if d > 1 else 0.0
    F = Z @ scipy.linalg.expm(G / q) @ Z.T
    return F, theta_max


def theorem21_construction(R, l: int, split: str = "best"):
    """Theorem 2.1 made constructive: ``A`` (l, d, d) with ``(I + A_l) ... (I + A_1) = R``.

    The proof's recipe. Write ``R = Q P`` (polar decomposition). ``det R > 0`` makes ``Q`` a
    rotation, the product of planar rotations by angles ``|theta| <= pi``; ``P`` is symmetric
    positive definite with eigenvalues ``s_j = sigma_j(R)`` in ``[e^-gamma, e^gamma]``.
    Spend ``p`` layers on ``P`` (each ``I + A = P^{1/p}``, so ``||A|| = max_j |s_j^{1/p} - 1|
    <= e^{gamma/p} - 1``) and ``q = l - p`` layers on ``Q`` (each ``I + A = Q^{1/q}``, so
    ``||A|| = 2 sin(theta_max / 2q) <= pi / q``).

    split : ``"best"`` tries every ``p`` and keeps the one with the smallest ``|||A|||``;
        ``"proof"`` takes ``p = round(3 gamma l / (pi + 3 gamma))`` (balancing ``pi/q`` against
        ``3 gamma / p``, the proof's two estimates).

    Returns ``(A, info)``; ``info`` holds ``p``, ``q``, ``gamma``, ``theta_max`` and the
    norms of the two kinds of factors. Raises ValueError if ``det R <= 0`` (no such
    product exists: see :func:`min_max_norm_lower_bound`).
    """
    R = as_square("R", R)
    l = check_int("l", l)
    if split not in ("best", "proof"):
        raise ValueError(f"split must be one of ['best', 'proof'], got {split!r}")
    sign, logdet = np.linalg.slogdet(R)
    if sign <= 0:
        raise ValueError(f"R must have positive determinant, got det R = {np.linalg.det(R):.3g}: every "
                         "factor I + A_i with ||A_i|| < 1 has positive determinant, so no product of "
                         "such factors equals R")
    d = R.shape[0]
    if l == 1:  # one factor: I + A_1 = R, nothing to split
        gamma = gamma_of(R)
        return (R - np.eye(d))[None], dict(p=0, q=0, gamma=gamma, theta_max=math.nan,
                                           norm_stretch=math.nan, norm_rotation=math.nan)
    Q, P, s = polar_factors(R)
    gamma = float(np.abs(np.log(s)).max())
    theta_max = _rotation_root(Q, 1)[1]
    rot_needed = theta_max > 1e-15
    sym_needed = gamma > 1e-15

    def norms(p):
        q = l - p
        a_sym = float(np.abs(s ** (1.0 / p) - 1).max()) if p > 0 else (0.0 if not sym_needed else math.inf)
        a_rot = 2 * math.sin(theta_max / (2 * q)) if q > 0 else (0.0 if not rot_needed else math.inf)
        return a_sym, a_rot

    if split == "best":
        p = min(range(l + 1), key=lambda p: max(norms(p)))
    else:
        p = int(round(3 * gamma * l / (math.pi + 3 * gamma))) if sym_needed else 0
        p = min(max(p, 1 if sym_needed else 0), l - (1 if rot_needed else 0))
    q = l - p
    if (p == 0 and sym_needed) or (q == 0 and rot_needed):
        raise ValueError(f"l = {l} is too small: R needs at least one factor for its rotation and one "
                         "for its stretch")
    eye = np.eye(d)
    A = np.zeros((l, d, d))
    if p > 0:
        w, V = np.linalg.eigh(P)
        A[:p] = V @ np.diag(w ** (1.0 / p)) @ V.T - eye
    if q > 0:
        F, _ = _rotation_root(Q, q)
        A[p:] = F - eye
    a_sym, a_rot = norms(p)
    info = dict(p=p, q=q, gamma=gamma, theta_max=theta_max, norm_stretch=a_sym, norm_rotation=a_rot)
    return A, info


def theorem21_paper_recipe(R, l: int):
    """The recipe of the paper's own proof (appendix A.1): ``R = U K V^T`` with ``q`` factors
    for ``V^T``, ``p`` for ``K`` and ``q`` for ``U`` (so ``l = 2q + p``).

    The proof takes an SVD and writes ``U`` and ``V`` as products of planar rotations; that is
    only possible when both have determinant +1, which we arrange by flipping the last
    singular pair (possible exactly when ``det R > 0``). Among the integer splits we keep the
    one with the smallest ``|||A|||``. Returns ``(A, info)`` like
    :func:`theorem21_construction`.
    """
    R = as_square("R", R)
    l = check_int("l", l)
    if np.linalg.det(R) <= 0:
        raise ValueError(f"R must have positive determinant, got det R = {np.linalg.det(R):.3g}")
    d = R.shape[0]
    U, k, Vt = np.linalg.svd(R)
    if np.linalg.det(U) < 0:  # then det V < 0 too: flip one singular pair
        U[:, -1] *= -1
        Vt[-1] *= -1
    gamma = float(np.abs(np.log(k)).max())
    tU, tV = _rotation_root(U, 1)[1], _rotation_root(Vt, 1)[1]
    best = None
    for q in range(0, l // 2 + 1):
        p = l - 2 * q
        if (q == 0 and max(tU, tV) > 1e-15) or (p == 0 and gamma > 1e-15):
            continue
        rot = 2 * math.sin(max(tU, tV) / (2 * q)) if q > 0 else 0.0
        sym = float(np.abs(k ** (1.0 / p) - 1).max()) if p > 0 else 0.0
        if best is None or max(rot, sym) < best[0]:
            best = (max(rot, sym), p, q)
    if best is None:
        raise ValueError(f"l = {l} is too small for the recipe: it needs 2 rotation factors and 1 stretch")
    _, p, q = best
    eye = np.eye(d)
    A = np.zeros((l, d, d))
    if q > 0:
        A[:q] = _rotation_root(Vt, q)[0] - eye
        A[q + p:] = _rotation_root(U, q)[0] - eye
    if p > 0:
        A[q:q + p] = np.diag(k ** (1.0 / p)) - eye
    return A, dict(p=p, q=q, gamma=gamma, theta_U=tU, theta_V=tV)


def rotation_step_norm(phi: float) -> dict:
    """``||I - T(phi)||`` for the planar rotation ``T(phi)``, beside the value ``|sin phi|`` printed
    in the proof of Theorem 2.1 and the true value ``2 |sin(phi / 2)|``."""
    phi = check_float("phi", phi)
    T = np.array([[math.cos(phi), -math.sin(phi)], [math.sin(phi), math.cos(phi)]])
    return dict(phi=phi, norm=float(np.linalg.norm(np.eye(2) - T, 2)), printed=abs(math.sin(phi)),
                formula=2 * abs(math.sin(phi / 2)))


def min_max_norm_lower_bound(R) -> float:
    """A lower bound on ``|||A|||`` over all factorisations ``R = (I + A_l) ... (I + A_1)``, any l.

    If ``det R <= 0`` some factor ``I + A_i`` must have ``det <= 0``; the path
    ``t -> I + t A_i`` then meets a singular matrix, so ``||A_i|| >= 1``: the bound is 1
    (and no factorisation has ``|||A||| < 1``, at any depth). If ``det R > 0`` the bound is 0.
    """
    R = as_square("R", R)
    return 1.0 if np.linalg.det(R) <= 0 else 0.0


def min_max_norm_search(R, l: int, restarts: int = 3, steps: int = 150, seed: int = 0) -> dict:
    """Numerically minimise ``|||A||| = max_i ||A_i||`` over factorisations ``R = prod (I + A_i)``.

    The first ``l - 1`` factors are free; the last is forced, ``I + A_l = R (prod_{i<l} (I + A_i))^{-1}``,
    so every candidate is an exact factorisation. The objective is a smooth surrogate of the
    maximum (the 16-norm of the factors' spectral norms), minimised with Adam from ``restarts``
    random starts; the result is the smallest true ``|||A|||`` seen. This is an upper bound on the
    infimum found by search, independent of the determinant lemma (which gives the lower bound 1
    when ``det R < 0``).
    """
    R = as_square("R", R)
    l, restarts, steps = check_int("l", l, minimum=2), check_int("restarts", restarts), check_int("steps", steps)
    d = R.shape[0]
    Rt = torch.as_tensor(R, dtype=torch.float64)
    eye = torch.eye(d, dtype=torch.float64)
    gen = torch.Generator().manual_seed(seed)
    best, best_A = math.inf, None
    for _ in range(restarts):
        free = (0.3 * torch.randn(l - 1, d, d, generator=gen, dtype=torch.float64)).requires_grad_(True)
        opt = torch.optim.Adam([free], lr=0.02)
        for _ in range(steps):
            P = eye
            for i in range(l - 1):
                P = (eye + free[i]) @ P
            last = Rt @ torch.linalg.inv(P) - eye
            norms = torch.linalg.matrix_norm(torch.cat([free, last[None]]), ord=2)
            value = float(norms.detach().max())
            if value < best:
                best, best_A = value, torch.cat([free, last[None]]).detach().numpy().copy()
            loss = (norms ** 16).sum() ** (1 / 16)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return dict(norm=best, A=best_A)


# ----------------------------------------------------------------------------------------------
# Theorem 2.2: the landscape inside the ball |||A||| <= tau < 1
# ----------------------------------------------------------------------------------------------

def _stack_t(A):
    return torch.as_tensor(_as_stack(A))


def population_risk(A, R, Sigma, noise: float = 1.0) -> float:
    """``f(A) = ||E(A) Sigma^{1/2}||_F^2 + d noise^2`` (closed form of the population risk)."""
    A = _as_stack(A)
    R, Sigma = as_square("R", R), as_square("Sigma", Sigma)
    E = residual_product(A) - R
    return float(np.trace(E @ Sigma @ E.T) + R.shape[0] * noise ** 2)


def risk_gradient(A, R, Sigma) -> np.ndarray:
    """Lemma 2.4 (ICLR text): ``df/dA_i = 2 [(I+A_l)...(I+A_{i+1})]^T E Sigma [(I+A_{i-1})...(I+A_1)]^T``
    (the paper prints the transposed products in the reverse order; see the chapter)."""
    A = _as_stack(A)
    R, Sigma = as_square("R", R), as_square("Sigma", Sigma)
    return _gradient_from_error(A, residual_product(A) - R, Sigma)


#: The forms of the gradient lower bound (see :func:`gradient_bound_sides`); ``"exponent_only"`` is the
#: exponent-only repair of the printed Eq. (2.3) (the power of sigma_min(Sigma) left as printed).
FORMS = ("printed", "exponent_only", "via_E", "corrected")


def gradient_bound_sides(A, R, Sigma, tau: float) -> dict:
    """Both sides of the gradient lower bound of Theorem 2.2's proof, in four forms.

    ``lhs = ||grad f(A)||_F^2`` and, with ``c = 4 l (1 - tau)^{2l-2}``,

    * ``"printed"``: ``4 l (1 - tau)^{l-1} sigma_min(Sigma)^2 (f(A) - C_opt)``: equation (2.3)
      of the paper as printed (ICLR 2017 text);
    * ``"exponent_only"``: ``c sigma_min(Sigma)^2 (f(A) - C_opt)``: the exponent-only repair (the
      exponent repaired, the power of ``sigma_min`` not);
    * ``"via_E"``: ``c sigma_min(Sigma)^2 ||E(A)||_F^2`` (the proof's intermediate step, with
      the exponent repaired);
    * ``"corrected"``: ``c sigma_min(Sigma) (f(A) - C_opt)``.

    ``tau`` must be at least ``|||A|||`` and below 1.
    """
    A = _as_stack(A)
    tau = check_float("tau", tau, low=0.0, high=1.0, high_open=True)
    if max_spectral_norm(A) > tau * (1 + 1e-12):
        raise ValueError(f"tau must be >= |||A||| = {max_spectral_norm(A):.6g}, got {tau}")
    Sigma = as_square("Sigma", Sigma)
    if not np.allclose(Sigma, Sigma.T, atol=1e-12):
        raise ValueError("Sigma must be symmetric")
    w = np.linalg.eigvalsh(Sigma)
    if w[0] <= 0:
        raise ValueError(f"Sigma must be positive definite, got smallest eigenvalue {w[0]:.3g}")
    return _sides_from_error(A, residual_product(A) - as_square("R", R), Sigma, tau, w[0])


def _sides_from_error(A, E, Sigma, tau, smin):
    """Both sides of the bound from the error ``E`` itself (no cancellation in ``prod - R``)."""
    l, d, _ = A.shape
    excess = float(np.trace(E @ Sigma @ E.T))
    c = 4 * l * (1 - tau) ** (2 * l - 2)
    g = _gradient_from_error(A, E, Sigma)
    c_printed = 4 * l * (1 - tau) ** (l - 1)
    return dict(lhs=float((g ** 2).sum()), printed=c_printed * smin ** 2 * excess,
                exponent_only=c * smin ** 2 * excess,
                via_E=c * smin ** 2 * float((E ** 2).sum()), corrected=c * smin * excess,
                excess=excess)


def _gradient_from_error(A, E, Sigma):
    l, d, _ = A.shape
    eye = np.eye(d)
    below = [eye]
    for i in range(l):
        below.append((eye + A[i]) @ below[-1])
    out, acc = [None] * l, eye
    for i in range(l - 1, -1, -1):
        out[i] = 2 * acc.T @ E @ Sigma @ below[i].T
        acc = acc @ (eye + A[i])
    return np.stack(out)


def random_ball_point(l: int, d: int, tau: float, rng, kind: str = "gaussian") -> np.ndarray:
    """A point of the ball ``|||A||| <= tau``: each ``A_i`` scaled to spectral norm ``tau``
    (``"gaussian"``), or the adversarial ``A_i = -tau I`` (``"shrink"``), or ``A_i = -tau u u^T``
    for one shared unit vector ``u`` (``"rank_one"``)."""
    l, d = check_int("l", l), check_int("d", d)
    tau = check_float("tau", tau, low=0.0)
    if kind == "gaussian":
        G = rng.standard_normal((l, d, d))
        return tau * G / np.linalg.norm(G, ord=2, axis=(1, 2))[:, None, None]
    if kind == "shrink":
        return -tau * np.broadcast_to(np.eye(d), (l, d, d)).copy()
    if kind == "rank_one":
        u = rng.standard_normal(d)
        u /= np.linalg.norm(u)
        return -tau * np.broadcast_to(np.outer(u, u), (l, d, d)).copy()
    raise ValueError(f"kind must be one of ['gaussian', 'shrink', 'rank_one'], got {kind!r}")


def _project_ball(A: torch.Tensor, tau: float) -> torch.Tensor:
    U, s, Vh = torch.linalg.svd(A)
    return U @ torch.diag_embed(s.clamp(max=tau)) @ Vh


def adversarial_gradient_ratio(l: int, d: int, tau: float, Sigma, form: str = "corrected",
                               steps: int = 300, lr: float = 0.02, seed: int = 0,
                               start: str = "random", progress: bool = False) -> dict:
    """Minimise ``lhs / rhs`` of the gradient bound over the ball ``|||A||| <= tau`` and over
    the error ``E`` (``R = product - E`` is free).

    For fixed ``A`` both sides are quadratic forms in ``vec(E)``:
    ``lhs = vec(E)^T K(A) vec(E)`` with ``K = 4 sum_i (Sigma Q_i^T Q_i Sigma) kron (P_i P_i^T)``
    (``P_i``, ``Q_i``: the products above and below factor ``i``), so the worst ``E`` is the
    bottom generalised eigenvector and the worst ratio its eigenvalue. The outer search over
    ``A`` is projected Adam on that eigenvalue (singular values clipped at ``tau``).

    A ratio below 1 is a counterexample to the chosen ``form`` (see
    :func:`gradient_bound_sides`). Returns the smallest ratio seen and the point reaching it.
    Needs ``l >= 2``: with one factor ``K`` does not depend on ``A``, so there is nothing to
    search over (the ratio is a generalised eigenvalue of fixed matrices).
    """
    l, d = check_int("l", l, minimum=2), check_int("d", d)
    tau = check_float("tau", tau, low=0.0, high=1.0, high_open=True)
    steps = check_int("steps", steps)
    lr = check_float("lr", lr, low=0.0, low_open=True)
    if form not in FORMS:
        raise ValueError(f"form must be one of {list(FORMS)}, got {form!r}")
    Sigma = as_square("Sigma", Sigma)
    if Sigma.shape[0] != d:
        raise ValueError(f"Sigma must be {d} x {d}, got {Sigma.shape}")
    w = np.linalg.eigvalsh(Sigma)
    if w[0] <= 0:
        raise ValueError("Sigma must be positive definite")
    S = torch.as_tensor(Sigma)
    g = torch.Generator().manual_seed(int(seed))
    A = _project_ball(0.9 * tau * torch.randn(l, d, d, generator=g, dtype=torch.float64) / d ** 0.5, tau)
    if start == "shrink":  # near the suspected worst case A_i = -tau I
        A = _project_ball(-tau * torch.eye(d, dtype=torch.float64) + 0.1 * A, tau)
    elif start != "random":
        raise ValueError(f"start must be one of ['random', 'shrink'], got {start!r}")
    c = 4 * l * (1 - tau) ** (2 * l - 2)
    eye = torch.eye(d, dtype=torch.float64)
    c_printed = 4 * l * (1 - tau) ** (l - 1)
    Mrhs = {"printed": c_printed * w[0] ** 2 * torch.kron(S, eye), "exponent_only": c * w[0] ** 2 * torch.kron(S, eye),
            "via_E": c * w[0] ** 2 * torch.eye(d * d, dtype=torch.float64),
            "corrected": c * w[0] * torch.kron(S, eye)}[form]
    Linv = torch.linalg.inv(torch.linalg.cholesky(Mrhs))

    def worst(A):
        below = [eye]
        for i in range(l):
            below.append((eye + A[i]) @ below[-1])
        K, acc = 0.0, eye
        for i in range(l - 1, -1, -1):
            K = K + 4 * torch.kron(S @ below[i].T @ below[i] @ S, acc @ acc.T)
            acc = acc @ (eye + A[i])
        B = Linv @ K @ Linv.T
        vals, vecs = torch.linalg.eigh(0.5 * (B + B.T))
        return vals[0], Linv.T @ vecs[:, 0]

    A.requires_grad_(True)
    opt = torch.optim.Adam([A], lr=lr)
    best = (math.inf, None, None)
    it = tqdm(range(steps + 1), desc=f"adversary l={l} tau={tau}", leave=False) if progress else range(steps + 1)
    for t in it:
        opt.zero_grad()
        r, v = worst(A)
        E = v.detach().reshape(d, d).T.numpy().copy()  # vec stacks columns
        An = A.detach().numpy().copy()
        sides = _sides_from_error(An, E / np.linalg.norm(E), Sigma, tau, w[0])
        direct = sides["lhs"] / sides[form]  # re-evaluated without the eigen-solver's rounding
        if direct < best[0]:
            best = (float(direct), An, E / np.linalg.norm(E))
        if t == steps:
            break
        torch.log(r).backward()
        opt.step()
        with torch.no_grad():
            A.copy_(_project_ball(A, tau))
    return dict(ratio=best[0], A=best[1], E=best[2], form=form, l=l, tau=tau)


def critical_point_at_tau_one(l: int, d: int) -> np.ndarray:
    """``A_1 = A_2 = -I`` and the rest 0: on the boundary ``|||A||| = 1`` of the ball, a critical
    point of ``f`` for every ``R`` (two singular factors kill every partial derivative),
    which is not a global minimum unless ``R = 0``."""
    l, d = check_int("l", l, minimum=2), check_int("d", d)
    A = np.zeros((l, d, d))
    A[0] = A[1] = -np.eye(d)
    return A


# ----------------------------------------------------------------------------------------------
# Surveys used by the chapter (loops over many instances, with their worst cases)
# ----------------------------------------------------------------------------------------------

def scalar_optimum(gamma: float, l: int) -> float:
    """The smallest ``|||A|||`` over all factorisations of the 1 x 1 matrix ``R = e^gamma`` into
    ``l`` factors ``1 + a_i``: ``e^{gamma / l} - 1`` (if every ``|a_i| <= a`` the product is at
    most ``(1 + a)^l``)."""
    gamma = check_float("gamma", gamma, low=0.0)
    return math.expm1(gamma / check_int("l", l))


def random_positive_det(d: int, rng, gamma: float | None = None) -> np.ndarray:
    """A random ``R`` with ``det R > 0``: Haar rotation times a stretch. With ``gamma`` the
    singular values are ``e^{+-gamma}`` (and ``e^{u gamma}``, ``u`` uniform in [-1, 1], between)."""
    d = check_int("d", d)
    Q, Rr = np.linalg.qr(rng.standard_normal((d, d)))
    Q = Q * np.sign(np.diag(Rr))
    if np.linalg.det(Q) < 0:
        Q[:, 0] *= -1
    if gamma is None:
        s = np.exp(rng.uniform(-1, 1, d))
    else:
        gamma = check_float("gamma", gamma, low=0.0)
        s = np.exp(gamma * np.concatenate([[1.0, -1.0], rng.uniform(-1, 1, max(d - 2, 0))])[:d])
    V, Rv = np.linalg.qr(rng.standard_normal((d, d)))
    return Q @ V @ np.diag(s) @ V.T


def theorem21_survey(Rs, ls, progress: bool = False) -> list[dict]:
    """Run :func:`theorem21_construction` on every ``R`` in ``Rs`` and depth in ``ls``.

    One row per (R, l): ``gamma``, ``l``, ``product_error`` (max entry of
    ``prod (I + A_i) - R``), ``norm`` (``|||A|||``), the two printed bounds, and whether
    ``l >= 3 gamma`` (the theorem's hypothesis)."""
    rows = []
    it = [(j, R, l) for j, R in enumerate(Rs) for l in ls]
    for j, R, l in (tqdm(it, desc="Theorem 2.1 survey", leave=False) if progress else it):
        A, info = theorem21_construction(R, l)
        g = info["gamma"]
        rows.append(dict(R=j, gamma=g, l=l, product_error=float(np.abs(residual_product(A) - R).max()),
                         norm=max_spectral_norm(A), bound_summary=theorem21_bound(g, l, "summary"),
                         bound_iclr=theorem21_bound(g, l, "iclr"), hypothesis=l >= 3 * g, p=info["p"], q=info["q"]))
    return rows


def gradient_bound_survey(ls, taus, Sigmas: dict, points: int = 20, seed: int = 0,
                          progress: bool = False) -> list[dict]:
    """Evaluate both sides of the gradient bound at ``points`` random points of each kind
    (gaussian, shrink, rank_one) for every ``l``, ``tau`` and named covariance.

    One row per (l, tau, Sigma): the smallest ``lhs / rhs`` for each of the three forms."""
    rng = np.random.default_rng(seed)
    rows = []
    grid = [(l, t, name) for l in ls for t in taus for name in Sigmas]
    for l, tau, name in (tqdm(grid, desc="gradient bound survey", leave=False) if progress else grid):
        Sigma = as_square("Sigma", Sigmas[name])
        d = Sigma.shape[0]
        worst = {form: math.inf for form in FORMS}
        for kind in ("gaussian", "shrink", "rank_one"):
            for _ in range(points):
                A = random_ball_point(l, d, tau, rng, kind)
                R = residual_product(A) - rng.standard_normal((d, d))
                s = gradient_bound_sides(A, R, Sigma, tau)
                for form in worst:
                    worst[form] = min(worst[form], s["lhs"] / s[form])
        rows.append(dict(l=l, tau=tau, Sigma=name, **{f"worst_{k}": v for k, v in worst.items()}))
    return rows


# ------------------------------------------------------------------------------------- views
def bound_ratios(l: int, tau: float, Sigma, d: int = 3, per_kind: int = 60, seed: int = 0) -> dict:
    """``||grad f||_F^2 / right-hand side`` of Eq. (2.3), printed and corrected, at random points
    of the ball of radius ``tau`` (``per_kind`` of each kind of :func:`random_ball_point`), each
    with a random target R. A ratio below 1 is a point where that form of the bound fails."""
    l = check_int("l", l, minimum=1)
    tau = check_float("tau", tau, low=0.0, high=1.0, high_open=True)
    Sigma = as_square("Sigma", Sigma)
    if Sigma.shape[0] != d:
        raise ValueError(f"Sigma must be {d} x {d} (d = {d}), got shape {Sigma.shape}")
    rng = np.random.default_rng(seed)
    out = {"printed": [], "corrected": []}
    for kind in ("gaussian", "shrink", "rank_one"):
        for _ in range(check_int("per_kind", per_kind, minimum=1)):
            A = random_ball_point(l, d, tau, rng, kind)
            s = gradient_bound_sides(A, residual_product(A) - rng.standard_normal((d, d)), Sigma, tau)
            for form in out:
                out[form].append(s["lhs"] / s[form])
    return {k: np.asarray(v) for k, v in out.items()}


def ratio_histogram(l: int, tau: float, Sigma, ax=None, seed: int = 0, label: str = "Sigma"):
    """Histogram of :func:`bound_ratios` on a log axis; left of the dashed line the bound fails."""
    import matplotlib.pyplot as plt

    ratios = bound_ratios(l, tau, Sigma, d=np.asarray(Sigma).shape[0], seed=seed)
    ax = ax or plt.gca()
    ax.clear()
    bins = np.logspace(-4, 4, 50)
    for name, v in ratios.items():
        ax.hist(v, bins=bins, alpha=0.6, label=f"{name}: min {v.min():.3g}",
                color=COLORS["1-shortcut" if name == "printed" else "residual"])
    ax.axvline(1.0, color="k", ls="--")
    ax.set(xscale="log", xlabel="||grad f||^2 / right-hand side", ylabel="points",
           title=f"l={l}, tau={tau}, {label}  (left of the dashed line: violated)")
    ax.legend(fontsize=8)
    return ax


def factor_norms_plot(l: int, gamma: float, d: int = 4, seed: int = 1, ax=None):
    """Bar chart of ||A_i|| for the Theorem 2.1 construction of a random R (det R > 0) of the given
    gamma, with the two forms of the bound; the title gives the split and the product's error."""
    import matplotlib.pyplot as plt

    R = random_positive_det(d, np.random.default_rng(seed), gamma=gamma)
    A, info = theorem21_construction(R, l)
    ax = ax or plt.gca()
    ax.clear()
    ax.bar(np.arange(1, l + 1), np.linalg.norm(A, ord=2, axis=(1, 2)), color=COLORS["residual"])
    ax.axhline(theorem21_bound(info["gamma"], l, "summary"), color=COLORS["1-shortcut"], ls="--",
               label="(4 pi + 3 gamma)/l (June-2017 summary; unverified)")
    ax.axhline(theorem21_bound(info["gamma"], l, "iclr"), color=COLORS["3-shortcut"], ls="--",
               label="2(sqrt(pi)+sqrt(3 gamma))^2/l (ICLR text)")
    err = np.abs(residual_product(A) - R).max()
    ax.set(xlabel="factor i", ylabel="||A_i||", ylim=(0, 6),
           title=f"l={l}, gamma={info['gamma']:.2f}: p={info['p']} stretch, q={info['q']} rotation, error {err:.0e}")
    ax.legend(loc="upper right", fontsize=8)
    return ax



# ----------------------------------------------------------------------------------------------
# What gradient descent does when det R < 0 (the case Theorem 2.1 must exclude)
# ----------------------------------------------------------------------------------------------

def population_gd_batch(R, l: int, A0s, lrs, Sigma=None, steps: int = 4000) -> list[dict]:
    """Gradient descent on the population risk ``f`` for several runs at once (one per start in
    ``A0s``, shape ``(B, l, d, d)``, each with its own step size in ``lrs``, shape ``(B,)``). The
    same iteration as :func:`population_gd`, vectorised over the runs; returns one dict per run."""
    R = as_square("R", R)
    d = R.shape[0]
    l = check_int("l", l)
    Sigma = np.eye(d) if Sigma is None else as_square("Sigma", Sigma)
    steps = check_int("steps", steps)
    A = np.array(A0s, dtype=np.float64)
    if A.ndim != 4 or A.shape[1:] != (l, d, d):
        raise ValueError(f"A0s must have shape (B, {l}, {d}, {d}), got {A.shape}")
    lrs = np.array([check_float("lr", float(x), low=0.0, low_open=True) for x in np.atleast_1d(lrs)])
    if lrs.shape != (A.shape[0],):
        raise ValueError(f"lrs must hold one step size per run ({A.shape[0]}), got {lrs.shape}")
    eye = np.eye(d)

    def error_and_below(A):
        below = [np.broadcast_to(eye, (A.shape[0], d, d))]
        for i in range(l):
            below.append((eye + A[:, i]) @ below[-1])
        return below[-1] - R, below

    def gradient(A, E, below):
        ES, g, acc = E @ Sigma, np.empty_like(A), np.broadcast_to(eye, A.shape[:1] + (d, d))
        for i in range(l - 1, -1, -1):
            g[:, i] = 2 * np.swapaxes(acc, 1, 2) @ ES @ np.swapaxes(below[i], 1, 2)
            acc = acc @ (eye + A[:, i])
        return g

    curves = np.empty((A.shape[0], steps + 1))
    for t in range(steps + 1):
        E, below = error_and_below(A)
        curves[:, t] = np.einsum("bij,jk,bik->b", E, Sigma, E)
        if t == steps:
            break
        A = A - lrs[:, None, None, None] * gradient(A, E, below)
    E, below = error_and_below(A)
    g = gradient(A, E, below)
    return [dict(A=A[b], excess=float(curves[b, -1]), norm=max_spectral_norm(A[b]),
                 grad_norm=float(np.sqrt((g[b] ** 2).sum())), curve=curves[b]) for b in range(A.shape[0])]


def population_gd(R, l: int, Sigma=None, lr: float = 0.05, steps: int = 4000, A0=None) -> dict:
    """Gradient descent on the population risk ``f`` (Lemma 2.4's gradient), from ``A0``
    (default 0, the identity network). Returns the final point, its excess risk
    ``f - C_opt = ||E Sigma^{1/2}||_F^2``, its ``|||A|||``, its gradient norm and the excess-risk
    curve (every step). One run of :func:`population_gd_batch`."""
    R = as_square("R", R)
    d = R.shape[0]
    l = check_int("l", l)
    Sigma = np.eye(d) if Sigma is None else as_square("Sigma", Sigma)
    lr = check_float("lr", lr, low=0.0, low_open=True)
    steps = check_int("steps", steps)
    A = np.zeros((l, d, d)) if A0 is None else _as_stack(A0).copy()
    return population_gd_batch(R, l, A[None], [lr], Sigma=Sigma, steps=steps)[0]


# ----------------------------------------------------------------------------------------------
# The chapter's key figure: what det R < 0 does to the factors and to the bound
# ----------------------------------------------------------------------------------------------

def reflection_factorisation(l: int) -> np.ndarray:
    """An explicit factorisation of ``R = diag(-1, 1)`` into ``l`` factors: the first factor is
    ``diag(-delta, 1)`` (it crosses the singular point, ``||A_1|| = 1 + delta``), the other
    ``l - 1`` stretch back by ``delta^{-1/(l-1)}`` each; ``delta`` balances the two norms. Its
    ``|||A|||`` tends to 1 from above as ``l`` grows, matching the determinant lemma's lower bound 1."""
    l = check_int("l", l)
    if l == 1:
        return np.diag([-2.0, 0.0])[None]
    # 1 + delta = delta^(-1/(l-1)) - 1: solve for delta in (0, 1) by bisection on the log scale
    lo, hi = 1e-300, 1.0
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if 1 + mid < mid ** (-1.0 / (l - 1)) - 1:
            lo = mid
        else:
            hi = mid
    delta = hi
    A = np.zeros((l, 2, 2))
    A[0] = np.diag([-1.0 - delta, 0.0])
    A[1:, 0, 0] = delta ** (-1.0 / (l - 1)) - 1
    return A


def det_sign_data(ls=(1, 2, 4, 8, 16, 32, 64), search_ls=(2, 4, 8, 16), factor_ls=(4, 16),
                  restarts: int = 2, steps: int = 60) -> dict:
    """The numbers of the chapter's key figure. For ``R = -I_2`` (``det R = +1``) and
    ``R = diag(-1, -2)`` (``det R = +2``): ``|||A|||`` of :func:`theorem21_construction` and the ICLR
    bound at each depth in ``ls``. For ``R = diag(-1, 1)`` (``det R = -1``): ``|||A|||`` of
    :func:`reflection_factorisation` at each depth and of :func:`min_max_norm_search` at the depths
    ``search_ls``. And every single factor's norm ``||A_k||`` and determinant ``det(I + A_k)``: of the
    constructions at the depths ``factor_ls`` (``det R > 0``), and of the search's and the explicit
    factorisations of ``diag(-1, 1)``."""
    ls = [check_int("l", x) for x in ls]
    plus = {"-I_2": -np.eye(2), "diag(-1, -2)": np.diag([-1.0, -2.0])}
    minus = np.diag([-1.0, 1.0])
    out = dict(ls=np.array(ls), search_ls=np.array(search_ls))
    factors = {"det R > 0: construction": [], "det R < 0: search": [], "det R < 0: explicit": []}
    for name, R in plus.items():
        out[name] = np.array([max_spectral_norm(theorem21_construction(R, x)[0]) for x in ls])
        out[name + " bound"] = np.array([theorem21_bound(gamma_of(R), x, "iclr") for x in ls])
        factors["det R > 0: construction"] += [theorem21_construction(R, x)[0] for x in factor_ls]
    out["explicit"] = np.array([max_spectral_norm(reflection_factorisation(x)) for x in ls])
    found = {x: min_max_norm_search(minus, x, restarts=restarts, steps=steps) for x in search_ls}
    out["search"] = np.array([found[x]["norm"] for x in search_ls])
    out["search_product_error"] = max(float(np.abs(residual_product(f["A"]) - minus).max()) for f in found.values())
    factors["det R < 0: search"] = [f["A"] for f in found.values()]
    factors["det R < 0: explicit"] = [reflection_factorisation(x) for x in factor_ls]
    out["factors"] = {k: (np.concatenate([np.linalg.norm(A, ord=2, axis=(1, 2)) for A in v]),
                          np.concatenate([np.linalg.det(np.eye(A.shape[1]) + A) for A in v]))
                      for k, v in factors.items()}
    return out


def det_sign_figure(data: dict | None = None):
    """The chapter's key figure from :func:`det_sign_data`: left, ``|||A|||`` against depth for
    targets with ``det R > 0`` (falling like ``1/l``, under the ICLR bound) and for
    ``R = diag(-1, 1)`` (never below 1); right, every factor's norm against its determinant: a factor
    with ``det(I + A_k) < 0`` has ``||A_k|| >= 1``, and a target with ``det R < 0`` needs one."""
    import matplotlib.pyplot as plt

    data = det_sign_data() if data is None else data
    fig, ax = plt.subplots(1, 2, figsize=(11, 3.8), gridspec_kw=dict(width_ratios=[1.25, 1]))
    ls = data["ls"]
    a = ax[0]
    a.axhspan(1e-3, 1.0, color=COLORS["1-shortcut"], alpha=0.08, label="|||A||| < 1: unreachable when det R < 0")
    a.loglog(ls, data["-I_2"], "o-", ms=4, color=COLORS["residual"], label="R = -I_2 (det +1): construction")
    a.loglog(ls, data["diag(-1, -2)"], "s-", ms=4, color=COLORS["3-shortcut"],
             label="R = diag(-1, -2) (det +2): construction")
    a.loglog(ls, data["-I_2 bound"], "--", color=COLORS["residual"], lw=1, label="ICLR bound, gamma = 0")
    a.loglog(ls, data["diag(-1, -2) bound"], "--", color=COLORS["3-shortcut"], lw=1,
             label="ICLR bound, gamma = log 2")
    a.loglog(ls, data["explicit"], "^-", ms=4, color=COLORS["1-shortcut"],
             label="R = diag(-1, 1) (det -1): explicit")
    a.loglog(data["search_ls"], data["search"], "x", ms=8, mew=2, color=COLORS["1-shortcut"],
             label="R = diag(-1, 1): best found by search")
    a.set(xlabel="depth l", ylabel="|||A||| = max_i ||A_i||", ylim=(0.02, 40),
          title="the largest factor against depth")
    a.legend(fontsize=7.5, loc="lower left")
    b = ax[1]
    b.axvspan(0, 1, ymin=0, ymax=0.5, color=COLORS["1-shortcut"], alpha=0.08)
    b.text(0.5, -0.5, "impossible:\n||A|| < 1 and det(I + A) <= 0", ha="center", va="center", fontsize=8,
           color=COLORS["1-shortcut"])
    style = {"det R > 0: construction": ("o", COLORS["residual"]), "det R < 0: search": ("x", COLORS["1-shortcut"]),
             "det R < 0: explicit": ("^", COLORS["1-shortcut"])}
    for name, (norms, dets) in data["factors"].items():
        m, c = style[name]
        b.scatter(norms, dets, marker=m, s=22, color=c, label=name, facecolors="none" if m == "o" else None)
    b.axhline(0, color=COLORS["plain"], lw=0.8)
    b.axvline(1, color=COLORS["plain"], lw=0.8, ls=":")
    b.set(xlabel="||A_k|| (one factor)", ylabel="det(I + A_k)", yscale="symlog", xlim=(0, 2.2),
          title="every factor: its norm against its determinant")
    b.set_yscale("symlog", linthresh=1.0)
    b.set_ylim(-1e2, 1e2)
    b.legend(fontsize=7.5, loc="upper left")
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------------------------
# Claims of the chapter (the ledger runs each check and its falsifier)
# ----------------------------------------------------------------------------------------------
_WHERE = ["book/hardt_ma_linear.ipynb", "tests/test_hardt_ma_linear.py"]


@claim("hm-thm21-bound", source="Hardt & Ma, Theorem 2.1 (ICLR text), with det R > 0",
       statement=r"If $\det R > 0$ and $\ell \ge 3\gamma$, there are $A_1,\dots,A_\ell$ with "
                 r"$(I+A_\ell)\cdots(I+A_1) = R$ and $|||A||| \le 2(\sqrt\pi + \sqrt{3\gamma})^2/\ell$.",
       verdict="holds",
       falsifier=r"the same bound without the hypothesis $\ell \ge 3\gamma$ ($R = e^{10}$, $\ell = 2$, where "
                 r"the construction is the exact optimum $e^{\gamma/\ell} - 1$)",
       falsifier_kind="plausible false statement",
       where=_WHERE)
def check_theorem21_bound(falsify: bool = False) -> Check:
    """Largest ``|||A||| / bound`` of the construction over random R with det R > 0 and l >= 3 gamma
    (a rotation by pi among them), and the error of the product."""
    if falsify:
        cases = [(np.array([[math.exp(10.0)]]), 2)]
    else:
        rng = np.random.default_rng(0)
        cases = []
        for trial in range(40):
            d = int(rng.integers(1, 6))
            R = random_positive_det(d, rng, gamma=float(rng.uniform(0, 3)))
            if trial % 4 == 0 and d % 2 == 0:
                R = -np.eye(d)  # rotation by pi: the hardest orthogonal part
            cases.append((R, max(2, int(np.ceil(3 * gamma_of(R)))) + int(rng.integers(0, 40))))
    ratio, prod_err, scale = 0.0, 0.0, 0.0
    for R, l in cases:
        A, _ = theorem21_construction(R, l)
        ratio = max(ratio, max_spectral_norm(A) / theorem21_bound(gamma_of(R), l, "iclr"))
        prod_err = max(prod_err, float(np.abs(residual_product(A) - R).max() / max(1.0, np.abs(R).max())))
        scale = max(scale, max_spectral_norm(A))
    tol, crit = eps_criterion(max(l for _, l in cases) * 5, 1.0)
    product = Check("the product of the factors is R", "max relative |prod(I + A_i) - R|", prod_err, tol, crit,
                    nontrivial=scale, nontrivial_what="largest |||A|||")
    bound = Check(f"|||A||| within the ICLR bound ({len(cases)} matrices)", "max |||A||| / bound", ratio, 1.0,
                  "the theorem's inequality |||A||| <= bound, i.e. a ratio <= 1",
                  lines=[f"an existence check: the construction reaches at most {ratio:.2f} of the bound, so a "
                         "printed constant that much smaller would pass too; it cannot detect a wrong constant"]
                  if not falsify else [])
    return all_of("Theorem 2.1 (ICLR constant), det R > 0" + (", l < 3 gamma" if falsify else ", l >= 3 gamma"),
                  [bound, product])


@claim("hm-thm21-det", source="Hardt & Ma, Theorem 2.1 (ICLR text): the hypothesis det R > 0",
       statement=r"The bound of Theorem 2.1 can be met only when $\det R > 0$: if $\|A_i\| < 1$ for every $i$ "
                 r"then $\det\prod_i(I + A_i) > 0$, so for $\det R < 0$ every factorisation has $|||A||| \ge 1$ "
                 r"at every depth, while the printed bound tends to 0.",
       verdict="fails as printed",
       printed=r"for every $R$ (no hypothesis on $\det R$) and $\ell \ge 3\gamma$ a global optimum has "
               r"$|||A^\star||| \le 2(\sqrt\pi + \sqrt{3\gamma})^2/\ell$",
       falsifier=r"the printed statement for $R = \mathrm{diag}(-1, 1)$ (dropped hypothesis: $\det R < 0$), "
                 r"same $\gamma = 0$ and $\ell = 20$; the smallest $|||A|||$ comes from a numerical search over "
                 r"exact factorisations (3 restarts), not from the lemma",
       falsifier_kind="plausible false statement",
       where=_WHERE)
def check_theorem21_det(falsify: bool = False) -> Check:
    """Smallest |||A||| reachable against the bound at l = 20, gamma = 0: the construction for
    det R > 0; for det R < 0 (the falsifier) a numerical search over exact factorisations
    (:func:`min_max_norm_search`), which does not use the determinant lemma. (The lemma itself is
    proven in the chapter and illustrated there on random products; it is not part of this check.)"""
    l = 20
    bound = theorem21_bound(0.0, l, "iclr")
    if falsify:
        R = np.diag([-1.0, 1.0])
        reach = min_max_norm_search(R, l)["norm"]  # a numerical search, independent of the lemma
        what = "smallest |||A||| found by a search over factorisations (det R = -1)"
    else:
        R = -np.eye(2)
        reach = max_spectral_norm(theorem21_construction(R, l)[0])
        what = "|||A||| of the construction (det R = +1)"
    return Check(f"Theorem 2.1 needs det R > 0. R = {'diag(-1, 1)' if falsify else '-I_2'}, l = {l}: {what} "
                 f"against the bound {bound:.3g}", "smallest reachable |||A||| / bound", reach / bound, 1.0,
                 "the theorem's inequality, ratio <= 1")


def _lemma24_worst(order: str):
    worst, differ, gmax = 0.0, 0.0, 0.0
    for seed in range(10):
        rng = np.random.default_rng(seed)
        l, d = 4 + seed % 3, 3
        A = 0.5 * rng.standard_normal((l, d, d))
        R, G = rng.standard_normal((d, d)), rng.standard_normal((d, d))
        Sigma = G @ G.T + 0.1 * np.eye(d)
        At = torch.tensor(A, requires_grad=True)
        M = torch.eye(d, dtype=torch.float64)
        for i in range(l):
            M = (torch.eye(d, dtype=torch.float64) + At[i]) @ M
        E_t = M - torch.tensor(R)
        torch.trace(E_t @ torch.tensor(Sigma) @ E_t.T).backward()
        E, eye = residual_product(A) - R, np.eye(d)
        for i in range(l):
            after = [eye + A[j].T for j in range(i + 1, l)]     # (I+A_{i+1}^T) ... (I+A_l^T)
            before = [eye + A[j].T for j in range(i)]           # (I+A_1^T) ... (I+A_{i-1}^T)
            g = {}
            for o in ("corrected", "printed"):
                a, b = (after[::-1], before[::-1]) if o == "printed" else (after, before)
                g[o] = 2 * np.linalg.multi_dot([eye, eye] + a) @ E @ Sigma @ np.linalg.multi_dot([eye, eye] + b)
            ref = At.grad[i].numpy()
            scale = max(1.0, np.abs(ref).max())
            worst = max(worst, float(np.abs(g[order] - ref).max() / scale))
            differ = max(differ, float(np.abs(g["printed"] - g["corrected"]).max() / scale))
            gmax = max(gmax, float(np.abs(ref).max()))
    return worst, differ, gmax


@claim("hm-lemma24-order", source="Hardt & Ma, Lemma 2.4 (ICLR text)",
       statement=r"$\partial f/\partial A_i = 2\,(I+A_{i+1}^\top)\cdots(I+A_\ell^\top)\,E\,\Sigma\,"
                 r"(I+A_1^\top)\cdots(I+A_{i-1}^\top)$: the transposes of the products after and before $A_i$.",
       verdict="fails as printed",
       printed=r"$2\,(I+A_\ell^\top)\cdots(I+A_{i+1}^\top)\,E\,\Sigma\,(I+A_{i-1}^\top)\cdots(I+A_1^\top)$ "
               r"(each transposed product in the reverse order)",
       falsifier="the printed order of the transposed products, against the same autograd gradient",
       falsifier_kind="plausible false statement",
       where=_WHERE)
def check_lemma24(falsify: bool = False) -> Check:
    worst, differ, gmax = _lemma24_worst("printed" if falsify else "corrected")
    tol, crit = eps_criterion(6 * 3 ** 3, 1.0)
    return Check(f"Lemma 2.4, {'printed' if falsify else 'corrected'} order, against autograd (10 points, l = 4-6)",
                 "max relative |dF/dA_i - autograd|", worst, tol, crit, nontrivial=differ,
                 nontrivial_what="largest relative difference between the two orders", nontrivial_min=1e-6,
                 lines=[f"largest gradient entry {gmax:.3g}"])


def _eq23_points(form: str):
    """Smallest lhs / rhs of the chosen form over random points and the extremal ones."""
    rng = np.random.default_rng(1)
    worst, excess = math.inf, math.inf
    for trial in range(60):
        l, d = int(rng.integers(1, 7)), int(rng.integers(1, 4))
        tau = float(rng.uniform(0, 0.9))
        A = random_ball_point(l, d, tau, rng, ["gaussian", "shrink", "rank_one"][trial % 3])
        C = rng.standard_normal((d, d))
        Sigma = [0.01, 1.0, 100.0][trial % 3] * (C @ C.T + 0.05 * np.eye(d))
        s = gradient_bound_sides(A, rng.standard_normal((d, d)), Sigma, tau)
        worst, excess = min(worst, s["lhs"] / s[form]), min(excess, s["excess"])
    for l, tau, c in ((4, 0.5, 1.0), (6, 0.8, 100.0), (3, 0.3, 0.01)):  # A_i = -tau I, E = e v^T
        S = c * np.diag([0.5, 1.0, 2.0])
        A = random_ball_point(l, 3, tau, rng, "shrink")
        s = gradient_bound_sides(A, residual_product(A) - np.outer(rng.standard_normal(3), [1.0, 0, 0]), S, tau)
        worst, excess = min(worst, s["lhs"] / s[form]), min(excess, s["excess"])
    return worst, excess


@claim("hm-eq23", source="Hardt & Ma, Eq. (2.3) (ICLR text)",
       statement=r"$\|\nabla f(A)\|_F^2 \ge 4\ell(1-\tau)^{2\ell-2}\,\sigma_{\min}(\Sigma)\,(f(A) - C_{\rm opt})$ "
                 r"for $|||A||| \le \tau < 1$, with equality at $A_i = -\tau I$, $E = e v^\top$.",
       verdict="fails as printed",
       printed=r"$\|\nabla f(A)\|_F^2 \ge 4\ell(1-\tau)^{\ell-1}\,\sigma_{\min}(\Sigma)^2\,(f(A) - C_{\rm opt})$",
       falsifier=r"the printed form (exponent $\ell - 1$ and $\sigma_{\min}(\Sigma)^2$) at the same points",
       falsifier_kind="plausible false statement",
       where=_WHERE)
def check_eq23(falsify: bool = False) -> Check:
    worst, excess = _eq23_points("printed" if falsify else "corrected")
    tol, crit = eps_criterion(6 * 3 ** 3, 1.0)
    return Check(f"Eq. (2.3), {'printed' if falsify else 'corrected'} form: 60 random points and 3 extremal ones",
                 "1 - smallest lhs / rhs", 1.0 - worst, tol, crit, nontrivial=excess,
                 nontrivial_what="smallest excess risk f - C_opt", nontrivial_min=0.0,
                 values=dict(worst_ratio=worst))


def theorem22_rate(l: int, tau: float, Sigma) -> float:
    """``mu = 4 l (1 - tau)^{2l-2} sigma_min(Sigma)``: the proof's bound ``||grad f||_F^2 >= mu (f - C_opt)``
    on the ball ``|||A||| <= tau`` (the corrected Eq. (2.3)). Positive for ``tau < 1``, 0 at ``tau = 1``."""
    l = check_int("l", l)
    tau = check_float("tau", tau, low=0.0, high=1.0)
    return 4 * l * (1 - tau) ** (2 * l - 2) * float(np.linalg.eigvalsh(as_square("Sigma", Sigma))[0])


def theorem22_points(seed: int = 7) -> list[tuple]:
    """The points of :func:`check_theorem22`: ``(A, R, Sigma, tau)`` for depths 2..8, radii 0.3, 0.6
    and 0.899, the three kinds of :func:`random_ball_point`, covariances with ``sigma_min`` down to
    0.05, and the extremal points ``A_i = -tau I``, ``E = e v^T`` (``v``: bottom eigenvector of
    ``Sigma``) at depths 6, 7 and 8, where ``||grad f||^2 / (f - C_opt)`` is as small as the bound
    allows (1.8e-14 at depth 8)."""
    rng = np.random.default_rng(seed)
    pts = []
    for l in range(2, 9):
        for tau in (0.3, 0.6, 0.899):
            for kind in ("gaussian", "shrink", "rank_one"):
                d = int(rng.integers(1, 4))
                C = rng.standard_normal((d, d))
                Sigma = C @ C.T + 0.05 * np.eye(d)
                A = random_ball_point(l, d, tau, rng, kind)
                pts.append((A, residual_product(A) - rng.standard_normal((d, d)), Sigma, tau))
    Sigma = np.diag([0.05, 1.0])
    for l in (6, 7, 8):
        A = random_ball_point(l, 2, 0.899, rng, "shrink")
        pts.append((A, residual_product(A) - np.outer([1.0, 0.3], [1.0, 0.0]), Sigma, 0.899))
    return pts


@claim("hm-thm22", source="Hardt & Ma, Theorem 2.2",
       statement=r"For every $\tau < 1$, every critical point $A$ of $f$ with $|||A||| \le \tau$ is a global "
                 r"minimum. Checked through the proof's bound: $\|\nabla f(A)\|_F^2 \ge 4\ell(1-\tau)^{2\ell-2}"
                 r"\sigma_{\min}(\Sigma)\,(f(A) - C_{\rm opt})$, positive wherever $f(A) > C_{\rm opt}$, so the "
                 r"gradient vanishes only at a global minimum.",
       verdict="holds",
       falsifier=r"the same statement at $\tau = 1$ (dropped hypothesis $\tau < 1$), refuted directly by its "
                 r"counterexample alone: $A_1 = A_2 = -I$, a critical point (gradient exactly 0) with "
                 r"$f - C_{\rm opt} > 0$. The bound's comparison is vacuous there ($\tau = 1$ makes its factor 0, "
                 r"so it reads $0 \ge 0$); the check rejects the point by the statement itself, as it would any "
                 r"critical point with $f > C_{\rm opt}$",
       falsifier_kind="plausible false statement",
       where=_WHERE)
def check_theorem22(falsify: bool = False) -> Check:
    """Largest relative shortfall ``1 - ||grad f||^2 / (mu (f - C_opt))`` of the gradient below the
    proof's bound ``mu = 4 l (1 - tau)^{2l-2} sigma_min(Sigma)`` (:func:`theorem22_rate`) over
    :func:`theorem22_points`; a critical point that is not a minimum (gradient exactly 0, ``f > C_opt``)
    has shortfall 1 whatever ``mu``: that is the statement of the theorem tested directly, not the bound.
    The falsifier evaluates that point at ``tau = 1`` and nothing else; there ``mu = 0``, so the bound's own
    comparison ``||grad f||^2 >= 0`` is vacuous and only the direct test can reject it."""
    if falsify:
        l, d = 4, 3
        A = critical_point_at_tau_one(l, d)
        C = np.random.default_rng(7).standard_normal((d, d))
        pts = [(A, random_positive_det(d, np.random.default_rng(8)), C @ C.T + 0.05 * np.eye(d), 1.0)]
    else:
        pts = theorem22_points()
    shortfall, excess, rate_min, ratio_min = -math.inf, math.inf, math.inf, math.inf
    for A, R, Sigma, tau in pts:
        g2 = float((risk_gradient(A, R, Sigma) ** 2).sum())
        ex = population_risk(A, R, Sigma, noise=0.0)
        mu = theorem22_rate(A.shape[0], tau, Sigma)
        if g2 == 0.0 and ex > 0:  # the statement itself: a critical point that is not a global minimum
            short = 1.0
        elif mu * ex == 0.0:  # a global minimum, or tau = 1 where the bound reads 0 >= 0: nothing to compare
            short = 0.0
        else:
            short = 1.0 - g2 / (mu * ex)
        shortfall, excess = max(shortfall, short), min(excess, ex)
        rate_min, ratio_min = min(rate_min, mu), min(ratio_min, g2 / ex)
    tol, crit = eps_criterion(8 * 3 ** 3, 1.0)
    where = ("|||A||| = 1: A_1 = A_2 = -I, l = 4, d = 3" if falsify else
             f"{len(pts)} points, l = 2..8, |||A||| <= 0.899, sigma_min(Sigma) >= 0.05")
    return Check(f"Theorem 2.2 through the proof's bound ({where})",
                 "largest 1 - ||grad f||^2 / (4 l (1 - tau)^(2l-2) sigma_min(Sigma) (f - C_opt)); "
                 "1 at a critical point with f > C_opt",
                 shortfall, tol, "a relative rounding slack on the bound: " + crit,
                 nontrivial=excess, nontrivial_what="smallest excess risk f - C_opt",
                 lines=[f"smallest ||grad f||^2 / (f - C_opt) among the points: {ratio_min:.2g} (the bound there: "
                        f"{rate_min:.2g}); the comparison is with the bound, not with 0"],
                 values=dict(smallest_ratio=ratio_min, smallest_rate=rate_min))


@claim("hm-thm21-rotation-step", source="Hardt & Ma, proof of Theorem 2.1 (appendix A): ||I - T(phi)||",
       statement=r"For the planar rotation $T(\phi)$, $\|I - T(\phi)\| = 2|\sin(\phi/2)|$ (so the proof's estimate "
                 r"$\le \pi/q$ survives, as $2|\sin(\phi/2)| \le |\phi|$).",
       verdict="fails as printed", printed=r"$\|I - T(\phi)\| = |\sin\phi|$",
       falsifier=r"the printed value $|\sin\phi|$ at the same angles",
       falsifier_kind="plausible false statement",
       where=_WHERE)
def check_rotation_step(falsify: bool = False) -> Check:
    rows = [rotation_step_norm(phi) for phi in np.linspace(0.1, math.pi, 12)]
    worst = max(abs(r["norm"] - (r["printed"] if falsify else r["formula"])) for r in rows)
    tol, crit = eps_criterion(4, 2.0)
    return Check("||I - T(phi)|| at 12 angles in [0.1, pi]", "max |spectral norm - formula|", worst, tol, crit,
                 nontrivial=max(r["norm"] for r in rows), nontrivial_what="largest ||I - T(phi)||")


@claim("hm-psd-special-case", source="Hardt & Ma, appendix A.1 (the symmetric positive definite case)",
       statement=r"If $R$ is symmetric positive definite, $A_i = R^{1/\ell} - I$ gives $|||A||| \le "
                 r"e^{\gamma/\ell} - 1 \le 3\gamma/\ell$ when $\ell \ge \gamma$.",
       verdict="holds",
       falsifier=r"the bound $3\gamma/\ell$ without $\ell \ge \gamma$ ($\gamma = 10$, $\ell = 2$)",
       falsifier_kind="plausible false statement",
       where=_WHERE)
def check_psd_case(falsify: bool = False) -> Check:
    rng = np.random.default_rng(11)
    worst = 0.0
    cases = [(10.0, 2)] if falsify else [(float(g), int(l)) for g, l in
                                         zip(rng.uniform(0.1, 5, 30), rng.integers(1, 60, 30)) if l >= g]
    for gamma, l in cases:
        R = random_positive_det(4, rng, gamma=gamma)
        R = R.T @ R  # symmetric positive definite; its gamma is twice that of the factor
        g = gamma_of(R)
        if falsify:
            R, g = np.diag([math.exp(gamma), 1.0, 1.0, math.exp(-gamma)]), gamma
        l = max(l, int(math.ceil(g))) if not falsify else l
        w, V = np.linalg.eigh(R)
        A = np.broadcast_to(V @ np.diag(w ** (1.0 / l)) @ V.T - np.eye(4), (l, 4, 4))
        worst = max(worst, max_spectral_norm(A) / (3 * g / l))
    return Check(f"A_i = R^(1/l) - I for {len(cases)} SPD matrices", "max |||A||| / (3 gamma / l)", worst, 1.0,
                 "the stated inequality, ratio <= 1")


#: step size below which gradient descent from A = 0 cannot cross the singular point when
#: R = diag(-1, 1), Sigma = I: with u = 1 + a, one step is u <- u (1 - 2 eta u^(l-2) (u^l + 1)) and
#: u^(l-2) (u^l + 1) <= 2 on (0, 1], so the factor stays above 1 - 4 eta > 0.
GD_STEP_LIMIT = 0.25


@claim("hm-gd-reflection", source="the book: gradient descent on the case Theorem 2.1 excludes (det R < 0)",
       statement=r"For $R = \mathrm{diag}(-1, 1)$, $\Sigma = I$ and step size $\eta < 1/4$, gradient descent on $f$ "
                 r"from $A = 0$ keeps every factor's $(1,1)$ entry $u = 1 + a$ in $(0, 1]$, so the excess risk "
                 r"$(u^\ell + 1)^2$ never drops below 1, at every depth $\ell \ge 2$.",
       verdict="holds",
       falsifier=r"the same statement at step size $\eta = 0.3 > 1/4$, $\ell = 3$ (the first step crosses $u = 0$ "
                 r"and, at odd depth, gradient descent reaches the global minimum)",
       falsifier_kind="plausible false statement",
       where=_WHERE)
def check_gd_reflection(falsify: bool = False) -> Check:
    """Smallest excess risk along gradient descent from A = 0 (every step), over depths 2..6 at
    eta = 0.24 (0.05 as well), or at eta = 0.3, l = 3 for the falsifier."""
    R = np.diag([-1.0, 1.0])
    cases = [(3, 0.3)] if falsify else [(l, eta) for l in (2, 3, 4, 5, 6) for eta in (0.05, 0.24)]
    lowest = min(float(population_gd(R, l, lr=eta, steps=300)["curve"].min()) for l, eta in cases)
    tol, crit = eps_criterion(8, 1.0)
    return Check(f"R = diag(-1, 1), Sigma = I, from A = 0, 300 steps, (depth, step size) in {cases}"
                 if falsify else "R = diag(-1, 1), Sigma = I, from A = 0, 300 steps, l = 2..6, eta = 0.05 and 0.24",
                 "smallest excess risk along the path", lowest, 1.0 - tol,
                 "the statement's bound, excess >= 1, less rounding: " + crit, op=">=")
