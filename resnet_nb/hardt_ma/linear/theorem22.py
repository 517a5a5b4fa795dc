"""Theorem 2.2 of Hardt & Ma, Lemma 2.4 and Eq. (2.3) (chapter: book/hardt_ma_linear.ipynb): the
landscape of the population risk inside the ball ``|||A||| <= tau < 1``.

The population risk is ``f(A) = E ||y - (I + A_l) ... (I + A_1) x||^2 = ||E(A) Sigma^{1/2}||_F^2 + C``
with ``E(A) = (I + A_l) ... (I + A_1) - R`` and ``C = d s^2``: the minimum value ``C_opt = C`` is
reached exactly when ``E(A) = 0``. :func:`risk_gradient` is its gradient in closed form (Lemma 2.4),
:func:`gradient_bound_sides` both sides of the gradient lower bound (Eq. (2.3)) in four forms and
:func:`adversarial_gradient_ratio` an optimiser that hunts for violations. The claims ``hm-lemma24-order``,
``hm-eq23`` and ``hm-thm22`` are declared here.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from tqdm.auto import tqdm

from resnet_nb.core.checks import require_float, require_int
from resnet_nb.core.claims import Check, Part, checks_from, claim, eps_criterion
from resnet_nb.hardt_ma.linear.network import (
    as_factors,
    as_square,
    max_spectral_norm,
    random_positive_det,
    residual_product,
)

WHERE = ["book/hardt_ma_linear.ipynb", "tests/hardt_ma/test_theorem2_2_landscape.py"]

__all__ = [
    "worst_error",
    "adversarial_survey",
    "population_risk",
    "risk_gradient",
    "FORMS",
    "gradient_bound_sides",
    "bound_sides_from_error",
    "gradient_from_error",
    "random_ball_point",
    "adversarial_gradient_ratio",
    "critical_point_at_tau_one",
    "gradient_bound_survey",
    "bound_ratios",
    "lemma24_worst",
    "claim_lemma24",
    "claim_eq23",
    "theorem22_rate",
    "theorem22_points",
    "claim_theorem22",
]


def population_risk(A, R, Sigma, noise: float = 1.0) -> float:
    """``f(A) = ||E(A) Sigma^{1/2}||_F^2 + d noise^2`` (closed form of the population risk)."""
    A = as_factors(A)
    R, Sigma = as_square("R", R), as_square("Sigma", Sigma)
    E = residual_product(A) - R
    return float(np.trace(E @ Sigma @ E.T) + R.shape[0] * noise**2)


def risk_gradient(A, R, Sigma) -> np.ndarray:
    """Lemma 2.4 (ICLR text): ``df/dA_i = 2 [(I+A_l)...(I+A_{i+1})]^T E Sigma [(I+A_{i-1})...(I+A_1)]^T``
    (the paper prints the transposed products in the reverse order; see the chapter)."""
    A = as_factors(A)
    R, Sigma = as_square("R", R), as_square("Sigma", Sigma)
    return gradient_from_error(A, residual_product(A) - R, Sigma)


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
    A = as_factors(A)
    tau = require_float("tau", tau, low=0.0, high=1.0, high_open=True)
    if max_spectral_norm(A) > tau * (1 + 1e-12):
        raise ValueError(f"tau must be >= |||A||| = {max_spectral_norm(A):.6g}, got {tau}")
    Sigma = as_square("Sigma", Sigma)
    if not np.allclose(Sigma, Sigma.T, atol=1e-12):
        raise ValueError("Sigma must be symmetric")
    w = np.linalg.eigvalsh(Sigma)
    if w[0] <= 0:
        raise ValueError(f"Sigma must be positive definite, got smallest eigenvalue {w[0]:.3g}")
    return bound_sides_from_error(A, residual_product(A) - as_square("R", R), Sigma, tau, w[0])


def bound_sides_from_error(A, E, Sigma, tau, smin):
    """Both sides of the bound from the error ``E`` itself (no cancellation in ``prod - R``)."""
    excess = float(np.trace(E @ Sigma @ E.T))
    k = _rhs_constants(A.shape[0], tau, smin)
    return dict(
        lhs=float((gradient_from_error(A, E, Sigma) ** 2).sum()),
        printed=k["printed"] * excess,
        exponent_only=k["exponent_only"] * excess,
        via_E=k["via_E"] * float((E**2).sum()),
        corrected=k["corrected"] * excess,
        excess=excess,
    )


def _rhs_constants(l, tau, smin) -> dict:
    """The constant of each form's right-hand side: it multiplies ``||E||_F^2`` (``"via_E"``) or
    ``f - C_opt`` (the others)."""
    c = 4 * l * (1 - tau) ** (2 * l - 2)
    return dict(
        printed=4 * l * (1 - tau) ** (l - 1) * smin**2,
        exponent_only=c * smin**2,
        via_E=c * smin**2,
        corrected=c * smin,
    )


def gradient_from_error(A, E, Sigma):
    """Lemma 2.4's gradient ``df/dA_i`` (all ``i``, shape ``(l, d, d)``) from the error ``E = prod - R``."""
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
    l, d = require_int("l", l), require_int("d", d)
    tau = require_float("tau", tau, low=0.0)
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


def adversarial_gradient_ratio(
    l: int,
    d: int,
    tau: float,
    Sigma,
    form: str = "corrected",
    steps: int = 300,
    lr: float = 0.02,
    seed: int = 0,
    start: str = "random",
    progress: bool = False,  # pragma: no mutate (display only: a progress bar)
) -> dict:
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
    l, d, tau, Sigma, smin = _adversary_inputs(l, d, tau, Sigma, form)
    steps = require_int("steps", steps)
    lr = require_float("lr", lr, low=0.0, low_open=True)
    A = _start_point(l, d, tau, seed, start)
    # The rhs of each form is its constant times vec(E)^T M vec(E), with M = I for "via_E" and
    # Sigma kron I otherwise: the search's eigenvalue is the ratio itself. (Mathematically the
    # constant moves neither the worst E nor Adam's steps on log r; in floating point it does, at
    # depth 8 and tau = 0.9.)
    S = torch.as_tensor(Sigma)
    M = torch.eye(d * d, dtype=torch.float64) if form == "via_E" else torch.kron(S, torch.eye(d, dtype=torch.float64))
    Linv = torch.linalg.inv(torch.linalg.cholesky(_rhs_constants(l, tau, smin)[form] * M))
    A.requires_grad_(True)
    opt = torch.optim.Adam([A], lr=lr)
    best = (math.inf, None, None)
    it = range(steps + 1)
    if progress:  # pragma: no mutate (display only: a progress bar)
        it = tqdm(it, desc=f"adversary l={l} tau={tau}", leave=False)  # pragma: no mutate (display only)
    for t in it:
        opt.zero_grad()
        r, v = worst_error(A, S, Linv)
        E = v.detach().reshape(d, d).T.numpy().copy()  # vec stacks columns
        An = A.detach().numpy().copy()
        sides = bound_sides_from_error(An, E / np.linalg.norm(E), Sigma, tau, smin)
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


def _start_point(l, d, tau, seed, start) -> torch.Tensor:
    """The search's first point: random in the ball, or (``"shrink"``) near ``A_i = -tau I``."""
    g = torch.Generator().manual_seed(int(seed))
    A = _project_ball(0.9 * tau * torch.randn(l, d, d, generator=g, dtype=torch.float64) / d**0.5, tau)
    if start == "shrink":  # near the suspected worst case A_i = -tau I
        return _project_ball(-tau * torch.eye(d, dtype=torch.float64) + 0.1 * A, tau)
    if start != "random":
        raise ValueError(f"start must be one of ['random', 'shrink'], got {start!r}")
    return A


def _adversary_inputs(l, d, tau, Sigma, form):
    """The checked arguments of :func:`adversarial_gradient_ratio` and ``sigma_min(Sigma)``."""
    l, d = require_int("l", l, minimum=2), require_int("d", d)
    tau = require_float("tau", tau, low=0.0, high=1.0, high_open=True)
    if form not in FORMS:
        raise ValueError(f"form must be one of {list(FORMS)}, got {form!r}")
    Sigma = as_square("Sigma", Sigma)
    if len(Sigma) != d:
        raise ValueError(f"Sigma must be {d} x {d}, got {Sigma.shape}")
    w = np.linalg.eigvalsh(Sigma)
    if w[0] <= 0:
        raise ValueError("Sigma must be positive definite")
    return l, d, tau, Sigma, w[0]


def worst_error(A, S, Linv):
    """The smallest generalised eigenvalue of ``(K(A), L L^T)`` (``Linv = L^{-1}``) and its
    eigenvector: the error ``vec(E)`` that makes ``lhs / rhs`` smallest at ``A``, up to the rhs's constant."""
    l, d = A.shape[0], A.shape[1]
    eye = torch.eye(d, dtype=torch.float64)
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


def critical_point_at_tau_one(l: int, d: int) -> np.ndarray:
    """``A_1 = A_2 = -I`` and the rest 0: on the boundary ``|||A||| = 1`` of the ball, a critical
    point of ``f`` for every ``R`` (two singular factors kill every partial derivative),
    which is not a global minimum unless ``R = 0``."""
    l, d = require_int("l", l, minimum=2), require_int("d", d)
    A = np.zeros((l, d, d))
    A[0] = A[1] = -np.eye(d)
    return A


def gradient_bound_survey(
    ls,
    taus,
    Sigmas: dict,
    points: int = 20,
    seed: int = 0,
    progress: bool = False,  # pragma: no mutate (display only: a progress bar)
) -> list[dict]:
    """Evaluate both sides of the gradient bound at ``points`` random points of each kind
    (gaussian, shrink, rank_one) for every ``l``, ``tau`` and named covariance.

    One row per (l, tau, Sigma): the smallest ``lhs / rhs`` for each of the three forms."""
    rng = np.random.default_rng(seed)
    rows = []
    grid = [(l, t, name) for l in ls for t in taus for name in Sigmas]
    if progress:  # pragma: no mutate (display only: a progress bar)
        grid = tqdm(grid, desc="gradient bound survey", leave=False)  # pragma: no mutate (display only: a progress bar)
    for l, tau, name in grid:
        Sigma = as_square("Sigma", Sigmas[name])
        d = len(Sigma)
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


def bound_ratios(l: int, tau: float, Sigma, d: int = 3, per_kind: int = 60, seed: int = 0) -> dict:
    """``||grad f||_F^2 / right-hand side`` of Eq. (2.3), printed and corrected, at random points
    of the ball of radius ``tau`` (``per_kind`` of each kind of :func:`random_ball_point`), each
    with a random target R. A ratio below 1 is a point where that form of the bound fails."""
    l = require_int("l", l, minimum=1)
    tau = require_float("tau", tau, low=0.0, high=1.0, high_open=True)
    Sigma = as_square("Sigma", Sigma)
    if len(Sigma) != d:
        raise ValueError(f"Sigma must be {d} x {d} (d = {d}), got shape {Sigma.shape}")
    rng = np.random.default_rng(seed)
    out = {"printed": [], "corrected": []}
    for kind in ("gaussian", "shrink", "rank_one"):
        for _ in range(require_int("per_kind", per_kind, minimum=1)):
            A = random_ball_point(l, d, tau, rng, kind)
            s = gradient_bound_sides(A, residual_product(A) - rng.standard_normal((d, d)), Sigma, tau)
            for form in out:
                out[form].append(s["lhs"] / s[form])
    return {k: np.asarray(v) for k, v in out.items()}


def lemma24_worst(order: str):
    """Lemma 2.4 in the ``"corrected"`` or ``"printed"`` order against autograd at 10 random points:
    ``(worst relative error of that order, largest relative difference between the orders,
    largest gradient entry)``."""
    worst, differ, gmax = 0.0, 0.0, 0.0
    for seed in range(10):
        rng = np.random.default_rng(seed)
        l, d = 4 + seed % 3, 3
        A = 0.5 * rng.standard_normal((l, d, d))
        R, G = rng.standard_normal((d, d)), rng.standard_normal((d, d))
        Sigma = G @ G.T + 0.1 * np.eye(d)
        At = torch.tensor(A, requires_grad=True)
        eye_t = torch.eye(d, dtype=torch.float64)
        M = eye_t
        for i in range(l):
            M = (eye_t + At[i]) @ M
        E_t = M - torch.tensor(R)
        torch.trace(E_t @ torch.tensor(Sigma) @ E_t.T).backward()
        E, eye = residual_product(A) - R, np.eye(d)
        for i in range(l):
            after = [eye + A[j].T for j in range(i + 1, l)]  # (I+A_{i+1}^T) ... (I+A_l^T)
            before = [eye + A[j].T for j in range(i)]  # (I+A_1^T) ... (I+A_{i-1}^T)
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


@claim(
    "hm-lemma24-order",
    source="Hardt & Ma, Lemma 2.4 (ICLR text)",
    statement=r"$\partial f/\partial A_i = 2\,(I+A_{i+1}^\top)\cdots(I+A_\ell^\top)\,E\,\Sigma\,"
    r"(I+A_1^\top)\cdots(I+A_{i-1}^\top)$: the transposes of the products after and before $A_i$.",
    verdict="fails as printed",
    printed=r"$2\,(I+A_\ell^\top)\cdots(I+A_{i+1}^\top)\,E\,\Sigma\,(I+A_{i-1}^\top)\cdots(I+A_1^\top)$ "
    r"(each transposed product in the reverse order)",
    falsifier="the printed order of the transposed products, against the same autograd gradient",
    falsifier_kind="plausible false statement",
    where=WHERE,
)
def claim_lemma24(falsify: bool = False) -> Check:
    worst, differ, gmax = lemma24_worst("printed" if falsify else "corrected")
    tol, crit = eps_criterion(6 * 3**3, 1.0)
    return Check(
        f"Lemma 2.4, {'printed' if falsify else 'corrected'} order, against autograd (10 points, l = 4-6)",
        "max relative |dF/dA_i - autograd|",
        worst,
        tol,
        crit,
        nontrivial=differ,
        nontrivial_what="largest relative difference between the two orders",
        nontrivial_min=1e-6,
        lines=[f"largest gradient entry {gmax:.3g}"],
    )


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


@claim(
    "hm-eq23",
    source="Hardt & Ma, Eq. (2.3) (ICLR text)",
    statement=r"$\|\nabla f(A)\|_F^2 \ge 4\ell(1-\tau)^{2\ell-2}\,\sigma_{\min}(\Sigma)\,(f(A) - C_{\rm opt})$ "
    r"for $|||A||| \le \tau < 1$, with equality at $A_i = -\tau I$, $E = e v^\top$.",
    verdict="fails as printed",
    printed=r"$\|\nabla f(A)\|_F^2 \ge 4\ell(1-\tau)^{\ell-1}\,\sigma_{\min}(\Sigma)^2\,(f(A) - C_{\rm opt})$",
    falsifier=r"the printed form (exponent $\ell - 1$ and $\sigma_{\min}(\Sigma)^2$) at the same points",
    falsifier_kind="plausible false statement",
    where=WHERE,
)
def claim_eq23(falsify: bool = False) -> Check:
    worst, excess = _eq23_points("printed" if falsify else "corrected")
    tol, crit = eps_criterion(6 * 3**3, 1.0)
    return Check(
        f"Eq. (2.3), {'printed' if falsify else 'corrected'} form: 60 random points and 3 extremal ones",
        "1 - smallest lhs / rhs",
        1.0 - worst,
        tol,
        crit,
        nontrivial=excess,
        nontrivial_what="smallest excess risk f - C_opt",
        nontrivial_min=0.0,
        values=dict(worst_ratio=worst),
    )


def theorem22_rate(l: int, tau: float, Sigma) -> float:
    """``mu = 4 l (1 - tau)^{2l-2} sigma_min(Sigma)``: the proof's bound ``||grad f||_F^2 >= mu (f - C_opt)``
    on the ball ``|||A||| <= tau`` (the corrected Eq. (2.3)). Positive for ``tau < 1``, 0 at ``tau = 1``."""
    l = require_int("l", l)
    tau = require_float("tau", tau, low=0.0, high=1.0)
    return 4 * l * (1 - tau) ** (2 * l - 2) * float(np.linalg.eigvalsh(as_square("Sigma", Sigma))[0])


def theorem22_points(seed: int = 7) -> list[tuple]:
    """The points of :func:`claim_theorem22`: ``(A, R, Sigma, tau)`` for depths 2..8, radii 0.3, 0.6
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


@claim(
    "hm-thm22",
    source="Hardt & Ma, Theorem 2.2",
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
    where=WHERE,
)
def claim_theorem22(falsify: bool = False) -> Check:
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
    tol, crit = eps_criterion(8 * 3**3, 1.0)
    values = dict(
        shortfall=shortfall,
        excess=excess,
        tol=tol,
        crit=crit,
        where=THM22_WHERE[bool(falsify)].format(points=len(pts)),
        smallest_ratio=ratio_min,
        smallest_rate=rate_min,
    )
    (res,) = checks_from([THM22_PART], values)
    res.lines.append(THM22_LINE.format_map(values))
    res.values.update(smallest_ratio=ratio_min, smallest_rate=rate_min)
    return res


#: the points checked: the sample (``{points}`` of them), or the falsifier's single point at tau = 1
THM22_WHERE = {
    False: "{points} points, l = 2..8, |||A||| <= 0.899, sigma_min(Sigma) >= 0.05",
    True: "|||A||| = 1: A_1 = A_2 = -I, l = 4, d = 3",
}
THM22_PART = Part(
    "Theorem 2.2 through the proof's bound ({where})",
    "largest 1 - ||grad f||^2 / (4 l (1 - tau)^(2l-2) sigma_min(Sigma) (f - C_opt)); "
    "1 at a critical point with f > C_opt",
    "shortfall",
    "tol",
    "a relative rounding slack on the bound: {crit}",
    nontrivial="excess",
    nontrivial_what="smallest excess risk f - C_opt",
)
THM22_LINE = (
    "smallest ||grad f||^2 / (f - C_opt) among the points: {smallest_ratio:.2g} (the bound there: "
    "{smallest_rate:.2g}); the comparison is with the bound, not with 0"
)


def adversarial_survey(Sigmas: dict, ls=(2, 8), taus=(0.1, 0.5, 0.9), starts=("random", "shrink"), steps: int = 60):
    """The corrected Eq. (2.3)'s ratio lhs / rhs at the point :func:`adversarial_gradient_ratio`'s
    search stops, for every depth ``l``, radius ``tau``, covariance in ``Sigmas`` (name -> matrix,
    d = 3) and start: one row each (seed ``l``), in a table."""
    import pandas as pd

    rows = []
    for l in ls:
        for tau in taus:
            for name, Sigma in Sigmas.items():
                for start in starts:
                    r = adversarial_gradient_ratio(l, 3, tau, Sigma, steps=steps, seed=l, start=start)
                    rows.append(dict(l=l, tau=tau, Sigma=name, start=start, ratio=r["ratio"]))
    return pd.DataFrame(rows)
