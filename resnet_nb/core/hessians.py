"""Hessians of the loss, for the Theorem 1 chapter (book/theorem1.ipynb) and the experiments: exact
(autograd), exact for linear networks (Kronecker form), and the closed forms of Theorem 1 of Li et
al. at the zero point; spectral summaries; a check of k-th order stationarity (Definition 4) through
directional derivatives.

All Hessians are laid out in the paper's parameter order (Definition 5: unit, matrix within the
unit, column, row), so block (a, b) of size d^2 x d^2 belongs to matrices a and b, counted in
forward order a = r n + l.

Three independent routes
------------------------
* :func:`hessian` differentiates the loss twice with autograd (forward-over-reverse Hessian-
  vector products, vmapped over chunks of basis vectors so memory stays bounded). Any network.
* :func:`hessian_linear` assembles the Hessian of a *linear* network from matrix calculus:
  with ``G = W Sxx - Syx``, ``dW = A_a d_a B_a`` for each matrix a and
  ``d^2 W = A_b d_b M_ab d_a B_a`` for a pair a < b,

      H_ab = (B_a Sxx B_b^T) (x) (A_a^T A_b)  +  [second-order term built from M_ab, A_b^T G B_a^T].

  No autograd, no samples: O(P^2) work once the small products are known.
* :func:`hessian_at_zero` is Theorem 1's closed form at w = 0 (n = 1, n = 2, n >= 3).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import torch
from torch.func import grad as _fgrad
from torch.func import jvp as _jvp
from torch.func import vmap as _vmap

from resnet_nb.core import claims
from resnet_nb.core.checks import require_float, require_int
from resnet_nb.core.data import Dataset, SufficientStats, as_stats, gaussian_data
from resnet_nb.core.losses import loss_end_to_end, loss_samples
from resnet_nb.core.networks import ShortcutNetwork, end_to_end, flatten, unflatten

# torch 2.13 registers its forward-mode decompositions with the deprecated torch.jit.script the
# first time forward AD runs, which prints a DeprecationWarning into every notebook that takes a
# Hessian. Load them once here, with that one warning silenced.
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*torch.jit.script.*", category=DeprecationWarning)
    try:
        from torch.autograd import forward_ad as _forward_ad

        _forward_ad._maybe_load_decompositions()
    except (ImportError, AttributeError):  # pragma: no cover - other torch versions
        pass

__all__ = [
    "hvp_chunk_size",
    "loss_function",
    "hessian",
    "hessian_linear",
    "theorem1_blocks",
    "hessian_at_zero",
    "eq11_assemble",
    "eq13_assemble",
    "spectrum",
    "cond_max_min",
    "cond_percentile",
    "index",
    "resolution_floor",
    "directional_derivatives",
    "stationarity_profile",
]


def _check_net_data(net, data, need_samples=False):
    if not isinstance(net, ShortcutNetwork):
        raise ValueError(f"net must be a ShortcutNetwork, got {type(net).__name__}")
    if isinstance(data, SufficientStats):
        if need_samples or not net.is_linear:
            raise ValueError("this network has activations: pass the samples (a Dataset), not SufficientStats")
        if data.Syx.shape != (net.d, net.d):
            raise ValueError(f"data has d_y x d_x = {tuple(data.Syx.shape)}, the network needs {(net.d, net.d)}")
        return data
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a Dataset or SufficientStats, got {type(data).__name__}")
    if data.X.shape[0] != net.d or data.Y.shape[0] != net.d:
        raise ValueError(
            f"data has d_x={data.X.shape[0]}, d_y={data.Y.shape[0]}; the network needs "
            f"d_x = d_y = d = {net.d} (identity shortcuts pair coordinate i with i)"
        )
    return data


def loss_function(net: ShortcutNetwork, data, device=None, dtype=torch.float64):
    """``w -> L(w)`` on flat parameter vectors (Definition 5 order); pure, for torch.func.

    A linear network uses the sufficient statistics, any other network the samples.
    """
    data = _check_net_data(net, data)
    if net.is_linear:
        stats = as_stats(data)
        stats = stats.to(device=device, dtype=dtype)
        return lambda w: loss_end_to_end(end_to_end(net, unflatten(w, net)), stats)
    data = data.to(device=device, dtype=dtype)
    return lambda w: loss_samples(net, unflatten(w, net), data)


def hvp_chunk_size(net, data, budget_bytes=1.5e9):
    """How many Hessian-vector products to batch (vmap) so that their working memory stays
    within ``budget_bytes``; at least one."""
    # Working memory of one vmapped Hessian-vector product, estimated from the tensors that
    # forward-over-reverse keeps alive (primal and tangent activations of every layer).
    P = net.num_params
    if net.is_linear:
        per = 8 * net.num_params * 6 + 8 * net.depth * net.d * net.d * 8
    else:
        per = 8 * net.d * data.m * (net.depth + net.R) * 4
    return int(max(1, min(P, budget_bytes // max(per, 1))))


def hessian(net: ShortcutNetwork, W, data, chunk: int | None = None) -> torch.Tensor:
    """The exact Hessian (P, P) of the loss at ``W`` by automatic differentiation.

    Rows are computed as Hessian-vector products with basis vectors (forward-over-reverse),
    ``chunk`` at a time under ``vmap``; the default chunk keeps the working memory near 1 GB
    beyond the P x P result. Works for every network (activations need a Dataset).
    """
    W = net.require_weights(W)
    data = _check_net_data(net, data)
    if chunk is None:
        chunk = hvp_chunk_size(net, data)
    chunk = require_int("chunk", chunk)
    w0 = flatten(W).detach().to(torch.float64)
    f = loss_function(net, data, device=w0.device, dtype=w0.dtype)
    g = _fgrad(f)

    def hvp(v):
        return _jvp(g, (w0,), (v,))[1]

    batched = _vmap(hvp)
    P = w0.numel()
    H = torch.empty(P, P, dtype=w0.dtype, device=w0.device)
    for start in range(0, P, chunk):
        stop = min(P, start + chunk)
        E = torch.zeros(stop - start, P, dtype=w0.dtype, device=w0.device)
        E[torch.arange(stop - start, device=w0.device), torch.arange(start, stop, device=w0.device)] = 1.0
        H[start:stop] = batched(E)
    return H


def _chain_products(net, W):
    """For each matrix a (forward order): A_a (after), B_a (before), and helpers."""
    R, n, d = net.R, net.n, net.d
    eye = torch.eye(d, dtype=W.dtype, device=W.device)
    # within-unit partial products
    before_in = torch.empty(R, n, d, d, dtype=W.dtype, device=W.device)  # W_{l-1}..W_0
    after_in = torch.empty(R, n, d, d, dtype=W.dtype, device=W.device)  # W_{n-1}..W_{l+1}
    for r in range(R):
        acc = eye
        for l in range(n):
            before_in[r, l] = acc
            acc = W[r, l] @ acc
        acc = eye
        for l in reversed(range(n)):
            after_in[r, l] = acc
            acc = acc @ W[r, l]
    U = W[:, n - 1] @ before_in[:, n - 1]  # product of the unit, (R, d, d)
    T = eye + U if net.shortcut else U
    prefix = torch.empty(R, d, d, dtype=W.dtype, device=W.device)  # T_{r-1}..T_0
    suffix = torch.empty(R, d, d, dtype=W.dtype, device=W.device)  # T_{R-1}..T_{r+1}
    acc = eye
    for r in range(R):
        prefix[r] = acc
        acc = T[r] @ acc
    Wend = acc
    acc = eye
    for r in reversed(range(R)):
        suffix[r] = acc
        acc = acc @ T[r]
    A = (suffix[:, None] @ after_in).reshape(R * n, d, d)
    B = (before_in @ prefix[:, None]).reshape(R * n, d, d)
    return A, B, before_in, after_in, T, Wend


def hessian_linear(net: ShortcutNetwork, W, data, second_order: bool = True) -> torch.Tensor:
    """The exact Hessian of a linear network at ``W`` from its Kronecker structure (no autograd).

    ``data``: a Dataset or SufficientStats. Memory: the P x P result plus O(L d^4) workspace.
    ``second_order=False`` drops the term built from the residual ``G`` and returns the
    Gauss-Newton matrix alone (used only as the ledger's falsifier).
    """
    if not net.is_linear:
        raise ValueError(f"hessian_linear needs a linear network; got {net.describe()}. Use hessian().")
    W = net.require_weights(W).detach().to(torch.float64)
    data = _check_net_data(net, data)
    stats = as_stats(data).to(device=W.device, dtype=W.dtype)
    R, n, d = net.R, net.n, net.d
    L, q = R * n, d * d
    A, B, before_in, after_in, T, Wend = _chain_products(net, W)
    Sxx = stats.Sxx
    G = Wend @ Sxx - stats.Syx
    H = torch.empty(L * q, L * q, dtype=W.dtype, device=W.device)
    BS = B @ Sxx  # (L, d, d)
    for a in range(L):
        ra, la = divmod(a, n)
        # Gauss-Newton part for all b >= a: (B_a Sxx B_b^T) kron (A_a^T A_b)
        X = torch.einsum("pj,bqj->bpq", BS[a], B[a:])  # (nb, d, d)
        Y = torch.einsum("ji,bjk->bik", A[a], A[a:])  # (nb, d, d)
        slab = torch.einsum("bpq,bik->pibqk", X, Y)  # (d, d, nb, d, d)
        if a + 1 < L and second_order:
            # second-order part for b > a: M_ab (between) and C_ab = A_b^T G B_a^T
            M = torch.empty(L - a - 1, d, d, dtype=W.dtype, device=W.device)
            # same unit: M = W_{r,lb-1} .. W_{r,la+1}
            acc = torch.eye(d, dtype=W.dtype, device=W.device)
            k = 0
            for lb in range(la + 1, n):
                M[k] = acc
                acc = W[ra, lb] @ acc
                k += 1
            # later units: Q = T_{rb-1} .. T_{ra+1} after_in[ra, la]; M = before_in[rb, lb] Q
            Q = after_in[ra, la]
            for rb in range(ra + 1, R):
                M[k : k + n] = before_in[rb] @ Q
                k += n
                Q = T[rb] @ Q
            C = torch.einsum("bji,jk,lk->bil", A[a + 1 :], G, B[a])  # (nb-1, d, d)
            slab[:, :, 1:] += torch.einsum("bjk,bil->lkbji", M, C)
        H[a * q : (a + 1) * q, a * q :] = slab.reshape(q, -1)
    for a in range(L):  # mirror the upper block triangle; make diagonal blocks exactly symmetric
        blk = H[a * q : (a + 1) * q, a * q : (a + 1) * q]
        H[a * q : (a + 1) * q, a * q : (a + 1) * q] = 0.5 * (blk + blk.T)
        H[(a + 1) * q :, a * q : (a + 1) * q] = H[a * q : (a + 1) * q, (a + 1) * q :].T
    return H


def _theorem1_hypotheses(net):
    if not net.shortcut:
        raise ValueError("Theorem 1 is about n-shortcut networks: net.shortcut must be True")
    for pos in ("mid", "post"):
        act = getattr(net, pos)
        if act.value_at_zero != 0.0:
            raise ValueError(f"Theorem 1 needs sigma_{pos}(0) = 0; {act.name} has {act.value_at_zero}")


def theorem1_blocks(net: ShortcutNetwork, data) -> dict:
    """The building blocks of Theorem 1's Hessian at w = 0, from the data alone.

    n = 2: ``M = sigma_mid'(0) sigma_post'(0) (Sigma_{X s} - Sigma_{Y s})`` with
    ``s = sigma_pre(X)`` (Eq. 12), and ``A`` (d^2 x d^2), the block coupling W_{r,2} (rows) with
    W_{r,1} (columns) in Eq. 11: ``A[(j1,i1),(j2,i2)] = delta_{j1 i2} M[i1, j2]``.

    n = 1: ``B`` (diagonal blocks) and ``A`` (block (r1, r2) for r1 > r2) of Eq. 13:
    ``B[(j1,i1),(j2,i2)] = delta_{i1 i2} (c1^2 Sigma_ss[j1,j2] - c2 <(y-x)_{i1} s_{j1} s_{j2}>)``,
    ``A[(j1,i1),(j2,i2)] = c1^2 (delta_{i1 i2} Sigma_ss[j1,j2] + delta_{j1 i2} <(x-y)_{i1} sigma_pre'(x_{j1}) s_{j2}>)``
    with ``c1 = sigma_post'(0)``, ``c2 = sigma_post''(0)``, ``<.>`` the sample mean. For
    identity activations these are Eqs. 23-28 of the paper; the general form is ours.

    n >= 3: the Hessian is zero; the dict holds nothing but ``n``.
    Index pairs (j, i) are (column, row), flattened as j d + i (Definition 5).
    """
    _theorem1_hypotheses(net)
    data = _check_net_data(net, data)
    d, n = net.d, net.n
    out = {"n": n}
    if n >= 3:
        return out
    if isinstance(data, SufficientStats):  # linear network
        Sxs, Sys, Sss = data.Sxx, data.Syx, data.Sxx
        X = Y = None
    else:
        X, Y = data.X, data.Y
        s = net.pre(X)
        m = data.m
        Sxs, Sys, Sss = X @ s.T / m, Y @ s.T / m, s @ s.T / m
    dev = Sxs.device
    if n == 2:
        M = net.mid.d1_at_zero * net.post.d1_at_zero * (Sxs - Sys)
        A4 = torch.zeros(d, d, d, d, dtype=torch.float64, device=dev)
        for j1 in range(d):
            A4[j1, :, :, j1] = M  # A4[j1, i1, j2, i2=j1] = M[i1, j2]
        out.update(M=M, A=A4.reshape(d * d, d * d))
        return out
    A, B = _eq13_blocks(net, data, X, Y, Sxs, Sys, Sss)
    out.update(A=A, B=B)
    return out


def _eq13_blocks(net, data, X, Y, Sxs, Sys, Sss):
    """The blocks A (below the diagonal) and B (on it) of Eq. 13 for n = 1, as d^2 x d^2 matrices
    (see :func:`theorem1_blocks`); ``X is None`` for a linear network given by its statistics."""
    d = net.d
    dev = Sxs.device
    eye = torch.eye(d, dtype=torch.float64, device=dev)
    c1, c2 = net.post.d1_at_zero, net.post.d2_at_zero
    if X is None:  # linear: sigma_pre = id, c1 = 1, c2 = 0
        Bm = torch.einsum("ab,jk->jakb", eye, Sss)
        N = Sxs - Sys  # <(x-y)_i x_k>, with sigma_pre' = 1 the j-dependence disappears
        Nfull = N[:, None, :].expand(d, d, d)  # [i, j, k]
    else:
        s = net.pre(X)
        r = Y - X
        m = data.m
        trip = torch.einsum("im,jm,km->ijk", r, s, s) / m  # <(y-x)_i s_j s_k>
        Bm = c1**2 * torch.einsum("ab,jk->jakb", eye, Sss)
        if c2 != 0.0:
            # B[j1,i1,j2,i2] -= c2 delta(i1,i2) trip[i1,j1,j2]
            corr = torch.zeros(d, d, d, d, dtype=torch.float64, device=dev)
            for i in range(d):
                corr[:, i, :, i] = trip[i]
            Bm = Bm - c2 * corr
        Nfull = torch.einsum("im,jm,km->ijk", X - Y, net.pre.grad(X), s) / m
    A4 = c1**2 * torch.einsum("ab,jk->jakb", eye, Sss)  # delta(i1,i2) Sss[j1,j2]
    extra = torch.zeros(d, d, d, d, dtype=torch.float64, device=dev)
    for j1 in range(d):
        extra[j1, :, :, j1] = Nfull[:, j1, :]  # [j1, i1, j2, i2=j1] = N[i1, j1, j2]
    A4 = A4 + c1**2 * extra
    return A4.reshape(d * d, d * d), Bm.reshape(d * d, d * d)


def eq11_assemble(A: torch.Tensor, R: int) -> torch.Tensor:
    """Eq. 11: block diagonal over R units, each unit ``[[0, A^T], [A, 0]]``."""
    R = require_int("R", R)
    q = A.shape[0]
    unit = torch.zeros(2 * q, 2 * q, dtype=A.dtype, device=A.device)
    unit[q:, :q] = A
    unit[:q, q:] = A.T
    return torch.block_diag(*([unit] * R))


def eq13_assemble(A: torch.Tensor, B: torch.Tensor, R: int) -> torch.Tensor:
    """Eq. 13: block Toeplitz over R units, ``B`` on the diagonal, ``A`` below it, ``A^T`` above."""
    R = require_int("R", R)
    q = A.shape[0]
    H = torch.zeros(R * q, R * q, dtype=A.dtype, device=A.device)
    for r1 in range(R):
        for r2 in range(R):
            blk = B if r1 == r2 else (A if r1 > r2 else A.T)
            H[r1 * q : (r1 + 1) * q, r2 * q : (r2 + 1) * q] = blk
    return H


def hessian_at_zero(net: ShortcutNetwork, data) -> torch.Tensor:
    """Theorem 1's closed form of the Hessian at w = 0 (P x P), assembled from :func:`theorem1_blocks`.

    n >= 3: zero. n = 2: :func:`eq11_assemble`. n = 1: :func:`eq13_assemble`.
    """
    blocks = theorem1_blocks(net, data)
    if net.n >= 3:
        data = _check_net_data(net, data)
        device = (data.Sxx if isinstance(data, SufficientStats) else data.X).device
        return torch.zeros(net.num_params, net.num_params, dtype=torch.float64, device=device)
    if net.n == 2:
        return eq11_assemble(blocks["A"], net.R)
    return eq13_assemble(blocks["A"], blocks["B"], net.R)


# ------------------------------------------------------------------------------------------
# Spectral summaries
# ------------------------------------------------------------------------------------------


def spectrum(H) -> np.ndarray:
    """Eigenvalues of the symmetric matrix ``H`` in ascending order (float64 numpy array)."""
    H = torch.as_tensor(H)
    if H.ndim != 2 or H.shape[0] != H.shape[1]:
        raise ValueError(f"H must be a square matrix, got shape {tuple(H.shape)}")
    if not torch.isfinite(H).all():
        raise ValueError("H contains NaN or infinite entries")
    return torch.linalg.eigvalsh(H.to(torch.float64)).cpu().numpy()


def _eigs(eigs):
    e = np.asarray(eigs, dtype=np.float64).ravel()
    if e.size == 0:
        raise ValueError("eigs must hold at least one eigenvalue")
    if not np.isfinite(e).all():
        raise ValueError("eigs contains NaN or infinite values")
    return e


def cond_max_min(eigs) -> float:
    """``|lambda|max / |lambda|min`` (Definition 1, Eq. 3); ``inf`` when some eigenvalue is 0."""
    a = np.abs(_eigs(eigs))
    return float(a.max() / a.min()) if a.min() > 0 else math.inf


def cond_percentile(eigs, q: float = 10.0) -> float:
    """``|lambda|max / |lambda|(q/100)``: the paper's robust condition number (q = 10).

    ``|lambda|(q/100)`` is the q-th percentile of the absolute eigenvalues, computed with
    numpy's default "linear" interpolation between order statistics (the paper does not say
    which convention it used). The convention matters when the spectrum is clustered: at the
    zero point of a 2-shortcut network each of the d singular values of Theorem 1's matrix
    fills exactly 1/d of the spectrum, and with d = 10 the 10th percentile falls 90% of the
    way from the smallest to the second smallest, not on the smallest.
    """
    q = require_float("q", q, low=0.0, high=100.0, low_open=True, high_open=True)
    a = np.abs(_eigs(eigs))
    p = float(np.percentile(a, q))
    return float(a.max() / p) if p > 0 else math.inf


def index(eigs) -> float:
    """The index: the fraction of negative eigenvalues."""
    e = _eigs(eigs)
    return float((e < 0).mean())


def resolution_floor(eigs) -> float:
    """The size below which an eigenvalue of a float64 Hessian is rounding noise.

    A backward-stable symmetric eigensolver returns each eigenvalue with an error of order
    ``P eps |lambda|max``; a denominator below this floor makes a condition number a
    statement about rounding, not about the loss surface. Ratios larger than
    ``|lambda|max / floor = 1 / (P eps)`` are therefore reported as unresolved.
    """
    e = _eigs(eigs)
    return float(e.size * np.finfo(np.float64).eps * np.abs(e).max())


# ------------------------------------------------------------------------------------------
# Directional derivatives and k-th order stationarity (Definition 4)
# ------------------------------------------------------------------------------------------


def directional_derivatives(f, w0: torch.Tensor, v: torch.Tensor, order: int) -> list[float]:
    """``[d^k/dt^k f(w0 + t v) at t = 0 for k = 1..order]``, exact, by nested forward-mode AD."""
    order = require_int("order", order)
    w0 = torch.as_tensor(w0, dtype=torch.float64)
    v = torch.as_tensor(v, dtype=torch.float64)
    if w0.shape != v.shape:
        raise ValueError(f"v must have the shape of w0 {tuple(w0.shape)}, got {tuple(v.shape)}")

    def g(t):
        return f(w0 + t * v)

    out = []
    fn = g
    for _ in range(order):
        fn = (lambda h: lambda t: _jvp(h, (t,), (torch.ones_like(t),))[1])(fn)
        out.append(float(fn(torch.zeros((), dtype=torch.float64))))
    return out


def stationarity_profile(net: ShortcutNetwork, W, data, order: int, directions: int = 8, seed: int = 0) -> np.ndarray:
    """Largest ``|d^k/dt^k L(w + t v)|`` over random unit directions v, for k = 1..order.

    A point is a k-th order stationary point (Definition 4) when the Taylor polynomial of
    order k is constant, i.e. all directional derivatives of orders 1..k vanish in every
    direction (a homogeneous polynomial that vanishes on random directions is zero with
    probability one). Returns an array of length ``order``.
    """
    directions = require_int("directions", directions)
    W = net.require_weights(W)
    f = loss_function(net, data)
    w0 = flatten(W).detach().to(torch.float64)
    g = torch.Generator().manual_seed(int(seed))
    worst = np.zeros(order)
    for _ in range(directions):
        v = torch.randn(w0.shape, generator=g, dtype=torch.float64)
        v = v / v.norm()
        worst = np.maximum(worst, np.abs(directional_derivatives(f, w0, v, order)))
    return worst


# ------------------------------------------------------------------------------------------
# Claims decided here (see resnet_nb.book.ledger)
# ------------------------------------------------------------------------------------------


@claims.claim(
    "core-kronecker-hessian",
    source="matrix calculus (the book's derivation)",
    statement=r"The Hessian of a linear network assembled from Kronecker products, Gauss-Newton part "
    r"plus the second-order part built from the residual $G = W\Sigma_{XX} - \Sigma_{YX}$, equals "
    r"autograd's Hessian at random points, with and without shortcuts.",
    verdict="holds",
    falsifier="the Hessian of a linear network is its Gauss-Newton part alone (second-order term dropped)",
    where=["tests/core/test_hessians.py", "book/theorem1.ipynb"],
    falsifier_kind="plausible false statement",
)
def claim_kronecker_hessian(falsify: bool = False) -> claims.Check:
    from resnet_nb.core.init import initialise

    worst, size, P = 0.0, 0.0, 0
    for n, R, sc in [(1, 3, True), (2, 2, True), (3, 2, True), (2, 2, False)]:
        data = gaussian_data(3, 20, seed=n + R)
        net = ShortcutNetwork(3, n, R, shortcut=sc)
        W = initialise(net, "xavier", seed=R)
        Ha = hessian(net, W, data)
        Hk = hessian_linear(net, W, data, second_order=not falsify)
        worst = max(worst, float((Ha - Hk).abs().max()))
        size = max(size, float(Ha.abs().max()))
        P = max(P, net.num_params)
    tol, crit = claims.eps_criterion(P, size)
    return claims.Check(
        "Kronecker Hessian of linear networks" + (" (Gauss-Newton only)" if falsify else ""),
        "max |H_autograd - H_Kronecker| over 4 networks at Xavier points",
        worst,
        tol,
        crit,
        nontrivial=size,
        nontrivial_what="max |H_autograd|",
    )


@claims.claim(
    "li-thm1-closed-forms",
    source="Li et al., Theorem 1 (Eqs. 11 and 13)",
    statement=r"At $w = 0$ the Hessian equals the closed forms: zero for $n \ge 3$, Eq. 11 for $n = 2$, "
    r"Eq. 13 for $n = 1$ (with the book's general $A$ and $B$ when activations are present).",
    verdict="holds",
    falsifier=r"Eqs. 11 and 13 with $A$ and $A^\top$ exchanged (A above the diagonal)",
    where=["tests/core/test_hessians.py", "book/theorem1.ipynb"],
    falsifier_kind="plausible false statement",
)
def claim_closed_forms(falsify: bool = False) -> claims.Check:
    worst, size, P = 0.0, 0.0, 0
    for n in (1, 2, 3):
        for acts in ({}, {"pre": "tanh", "mid": "tanh", "post": "tanh"}, {"post": "silu"}):
            data = gaussian_data(3, 25, seed=n)
            net = ShortcutNetwork(3, n, 2, **acts)
            Ha = hessian(net, torch.zeros(net.shape, dtype=torch.float64), data)
            if falsify and n < 3:
                b = theorem1_blocks(net, data)
                Hc = eq11_assemble(b["A"].T, net.R) if n == 2 else eq13_assemble(b["A"].T, b["B"], net.R)
            else:
                Hc = hessian_at_zero(net, data)
            worst = max(worst, float((Ha - Hc).abs().max()))
            size = max(size, float(Ha.abs().max()))
            P = max(P, net.num_params)
    tol, crit = claims.eps_criterion(P, size)
    return claims.Check(
        "Theorem 1 closed forms at 0" + (", A transposed" if falsify else ""),
        "max |H_autograd - H_closed form|, n = 1, 2, 3, three activation settings",
        worst,
        tol,
        crit,
        nontrivial=size,
        nontrivial_what="max |H_autograd|",
    )
