"""Theorem 1 of Li et al. (Demystifying ResNet), checked step by step.

Every public ``*_check`` function computes the two sides of one statement independently and
returns a :class:`resnet_nb.book.claims.Check`: the largest discrepancy, a tolerance with its stated
criterion, and the size of the part that could differ (so that zeros compared with zeros are
reported as vacuous). The claims of the chapter are declared at the bottom of this module with
:func:`resnet_nb.book.claims.claim`, each with a falsifier that the same check must reject.

Statements and where they are checked
-------------------------------------
* Lemma 1 (a nonzero mixed partial at 0 needs one whole unit): :func:`lemma1_check`.
* Lemma 2 (only "same unit or not" matters for second derivatives): :func:`lemma2_check`.
* Definition 4 / Part 1 ((n-1)-th order stationarity, zero Hessian for n >= 3):
  :func:`part1_check`, :func:`taylor_remainder_check`.
* Part 2 (n = 2: Eq. 11, eigenvalues from Eq. 12, strict saddle): :func:`part2_check`,
  :func:`depth_table`, :func:`depth_invariance_check`.
* Part 3 (n = 1: block Toeplitz Eq. 13 with Eqs. 23-28): :func:`part3_check`; the growth of
  its condition number with depth (the book's Proposition): :func:`growth_check`.
* ReLU at 0: :func:`relu_kink_check`, :func:`relu_first_order_check`, and the ReLU networks
  of the experiments at their small starting point: :func:`relu_start_check`,
  :func:`relu_spectrum_spot_check` and, over depths and seeds in the paper's statistic
  |lambda|max/|lambda|(10%), :func:`relu_depth_check` (flatness criterion of the Figure 5 ledger
  entry, :func:`figure5_flat_tolerance`).

The chapter's key figure is drawn by :mod:`resnet_nb.book.theorem1_figures`.

Section 4.2 (Eq. 7, Figure 4, Eqs. 15-16) and the shortcut pairing convention live in
:mod:`resnet_nb.li.dynamics`.

Parameters are addressed in Definition 5 order: the flat index of ``W[r, l][i, j]`` (zero-based
unit r, matrix l, row i, column j) is ``((r n + l) d + j) d + i``.
"""
from __future__ import annotations

import functools
import math
import warnings

import numpy as np
import torch
from torch.func import jvp as _jvp
from tqdm.auto import tqdm

from resnet_nb.core import claims
from resnet_nb.core.checks import check_choice, check_int
from resnet_nb.core.data import Dataset, SufficientStats, as_stats
from resnet_nb.core.hessians import (cond_max_min, cond_percentile, directional_derivatives, eq11_assemble,
                       eq13_assemble, hessian, hessian_linear, loss_function, spectrum, theorem1_blocks)
from resnet_nb.core.claims import Check, all_of, eps_criterion
from resnet_nb.core.networks import Activation, ShortcutNetwork, flatten, unflatten

# torch's forward-mode AD loads its jvp decompositions on first use, and that import emits a
# DeprecationWarning about torch.jit.script from inside torch. Load them once here, quietly,
# so that no warning reaches a notebook (the book builds with warnings as errors).
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*torch.jit.script.*", category=DeprecationWarning)
    import torch._decomp.decompositions_for_jvp  # noqa: F401,E402

__all__ = [
    "param_index", "param_coords", "covers_unit", "mixed_partial",
    "order_n_closed_form", "lemma1_tuples", "lemma1_check", "lemma2_check", "part1_check",
    "taylor_remainder_check", "shuffle_matrix", "eq21_A", "eq25_B", "eq28_A", "eq11_assemble",
    "eq13_assemble", "part2_check", "part3_check", "depth_table", "depth_invariance_check",
    "growth_check", "one_sided_derivatives", "relu_kink_check", "relu_first_order_check",
    "relu_start_check", "relu_depth_table", "relu_depth_check",
    "figure5_flat_tolerance", "relu_spectrum_spot_check", "shifted_sigmoid", "subsample", "plot_hessian",
    "plot_spectrum",
    "hessian_explorer", "depth_animation", "explorer_title", "same_picture",
]


def _fmt(x: float) -> str:
    return f"{x:.2g}" if x != 0 else "0"


def subsample(data: Dataset, every: int) -> Dataset:
    """Every ``every``-th sample of ``data`` (no new PCA: the coordinates stay those of ``data``)."""
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a Dataset, got {type(data).__name__}")
    every = check_int("every", every)
    if every > data.m:
        raise ValueError(f"every must be at most the number of samples {data.m}, got {every}")
    idx = torch.arange(0, data.m, every)
    labels = None if data.labels is None else data.labels[idx.numpy()]
    return Dataset(data.X[:, idx], data.Y[:, idx], labels=labels, info=dict(data.info, subsample=every))


# ------------------------------------------------------------------------------------------
# Parameter bookkeeping (Definition 5)
# ------------------------------------------------------------------------------------------

def param_index(net: ShortcutNetwork, r: int, l: int, i: int, j: int) -> int:
    """Flat Definition-5 index of ``W[r, l][i, j]`` (zero-based unit, matrix, row, column)."""
    for name, val, top in (("r", r, net.R), ("l", l, net.n), ("i", i, net.d), ("j", j, net.d)):
        if isinstance(val, bool) or not isinstance(val, (int, np.integer)) or not 0 <= val < top:
            raise ValueError(f"{name} must be an integer in [0, {top - 1}], got {val!r}")
    return int(((r * net.n + l) * net.d + j) * net.d + i)


def param_coords(net: ShortcutNetwork, a: int) -> tuple[int, int, int, int]:
    """Inverse of :func:`param_index`: ``(r, l, i, j)`` of flat index ``a``."""
    if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or not 0 <= a < net.num_params:
        raise ValueError(f"a must be an integer in [0, {net.num_params - 1}], got {a!r}")
    a = int(a)
    i = a % net.d
    a //= net.d
    j = a % net.d
    a //= net.d
    l = a % net.n
    r = a // net.n
    return r, l, i, j


def covers_unit(net: ShortcutNetwork, indices) -> bool:
    """True when the parameters ``indices`` include an entry of every matrix of some unit."""
    seen = {}
    for a in indices:
        r, l, _, _ = param_coords(net, a)
        seen.setdefault(r, set()).add(l)
    return any(len(ls) == net.n for ls in seen.values())


def mixed_partial(f, w0: torch.Tensor, indices) -> float:
    """``d^N f / dw_{a_1} ... dw_{a_N}`` at ``w0`` by N nested forward-mode derivatives.

    ``indices`` may repeat (a repeated index is a higher pure derivative). Exact up to
    rounding; the cost grows like 2^N evaluations of ``f``.
    """
    indices = [int(a) for a in indices]
    if not indices:
        raise ValueError("indices must name at least one parameter, got an empty list")
    P = w0.numel()
    for a in indices:
        if not 0 <= a < P:
            raise ValueError(f"indices must lie in [0, {P - 1}], got {a}")
    g = f
    for a in indices:
        e = torch.zeros_like(w0)
        e[a] = 1.0
        g = (lambda h, u: (lambda w: _jvp(h, (w,), (u,))[1]))(g, e)
    return float(g(w0))


def _data_matrices(net: ShortcutNetwork, data):
    """``Sigma_{X s}`` and ``Sigma_{Y s}`` with ``s = sigma_pre(X)``: (1/m) X s^T and (1/m) Y s^T."""
    if isinstance(data, SufficientStats):
        if not net.pre.is_identity:
            raise ValueError("a network with a pre-activation needs the samples (a Dataset)")
        return data.Sxx, data.Syx
    s = net.pre(data.X)
    return data.X @ s.T / data.m, data.Y @ s.T / data.m


def order_n_closed_form(net: ShortcutNetwork, data, indices) -> float:
    """Our closed form of an order-n mixed partial at 0 (n = matrices per unit).

    Nonzero only if the n parameters are one entry of each matrix of one unit r that chain,
    ``W[r, l+1][i_{l+1}, j_{l+1}]`` with ``j_{l+1} = i_l``; then it equals
    ``sigma_post'(0) sigma_mid'(0)^(n-1) (Sigma_{Xs} - Sigma_{Ys})[i_{n-1}, j_0]``.
    """
    indices = list(indices)
    if len(indices) != net.n:
        raise ValueError(f"indices must hold exactly n = {net.n} parameters, got {len(indices)}")
    coords = [param_coords(net, a) for a in indices]
    if len({c[0] for c in coords}) != 1 or sorted(c[1] for c in coords) != list(range(net.n)):
        return 0.0
    coords.sort(key=lambda c: c[1])
    for lo, hi in zip(coords[:-1], coords[1:]):
        if hi[3] != lo[2]:
            return 0.0
    Sxs, Sys = _data_matrices(net, data)
    c = net.post.d1_at_zero * net.mid.d1_at_zero ** (net.n - 1)
    return float(c * (Sxs - Sys)[coords[-1][2], coords[0][3]])


# ------------------------------------------------------------------------------------------
# Lemma 1
# ------------------------------------------------------------------------------------------

def _random_param(net, rng, r=None, l=None):
    r = int(rng.integers(net.R)) if r is None else r
    l = int(rng.integers(net.n)) if l is None else l
    return param_index(net, r, l, int(rng.integers(net.d)), int(rng.integers(net.d)))


def _chain(net, rng, r, Mabs=None):
    """n parameters, one per matrix of unit r, whose indices chain (so the product survives)."""
    d = net.d
    if Mabs is not None:  # adversarial: aim at the largest entry of M
        i_last, j0 = np.unravel_index(int(np.argmax(Mabs)), Mabs.shape)
    else:
        i_last, j0 = int(rng.integers(d)), int(rng.integers(d))
    rows = [int(rng.integers(d)) for _ in range(net.n - 1)] + [int(i_last)]
    cols = [int(j0)] + rows[:-1]
    return [param_index(net, r, l, rows[l], cols[l]) for l in range(net.n)]


def lemma1_tuples(net: ShortcutNetwork, max_order: int, samples: int, seed: int = 0, data=None):
    """Index tuples for Lemma 1: random ones and adversarial ones, labelled by kind.

    Kinds: ``random`` (uniform, orders 1..max_order), ``one_short`` (every matrix of a unit
    but one, padded with other parameters: as close to covering as possible), ``repeated``
    (one parameter differentiated several times), ``chain`` (a covering, chaining n-tuple:
    Lemma 1 allows it to be nonzero and our closed form says it is), ``broken_chain``
    (covering but not chaining: zero although it covers).
    """
    max_order = check_int("max_order", max_order)
    samples = check_int("samples", samples)
    rng = np.random.default_rng(seed)
    Mabs = None
    if data is not None:
        Sxs, Sys = _data_matrices(net, data)
        Mabs = (Sxs - Sys).abs().numpy()
    out = []
    for _ in range(samples):
        k = int(rng.integers(1, max_order + 1))
        out.append(("random", [_random_param(net, rng) for _ in range(k)]))
        r = int(rng.integers(net.R))
        if net.n >= 2:
            skip = int(rng.integers(net.n))
            t = [_random_param(net, rng, r, l) for l in range(net.n) if l != skip]
            while len(t) < max_order:  # pad with parameters that never complete a unit
                rr = int(rng.integers(net.R))
                if rr == r:  # another entry of a matrix unit r already has
                    ll = int(rng.choice([l for l in range(net.n) if l != skip]))
                else:  # only matrix 0 of another unit: a single matrix never covers (n >= 2)
                    ll = 0
                t.append(_random_param(net, rng, rr, ll))
            out.append(("one_short", t[:max(len(t) - int(rng.integers(0, 2)), 1)]))
        a = _random_param(net, rng)
        out.append(("repeated", [a] * int(rng.integers(1, max_order + 1))))
        out.append(("chain", _chain(net, rng, r, Mabs if rng.random() < 0.5 else None)))
        if net.n >= 2 and net.d >= 2:
            bad = _chain(net, rng, r)
            rr, ll, i, j = param_coords(net, bad[1])
            bad[1] = param_index(net, rr, ll, i, (j + 1 + int(rng.integers(net.d - 1))) % net.d)
            out.append(("broken_chain", bad))
    return out


def _partial_scale(net, data):
    Sxs, Sys = _data_matrices(net, data)
    return max(float((Sxs - Sys).abs().max()), float(Sxs.abs().max()))


def lemma1_check(net: ShortcutNetwork, data, max_order: int | None = None, samples: int = 20,
                 seed: int = 0, progress: bool = False) -> Check:
    """Lemma 1: at w = 0 a mixed partial that does not cover all n matrices of one unit is 0.

    Both sides: the mixed partial by nested forward-mode AD, and the Lemma's prediction
    (0 for a non-covering tuple). For tuples of order exactly n the prediction is sharper:
    our closed form :func:`order_n_closed_form`. The nontrivial part is the smallest
    |partial| over covering chains: the comparison means something only if those are nonzero.
    Tolerance: ``100 P eps`` times the size of the data matrices.
    """
    max_order = net.n + 1 if max_order is None else check_int("max_order", max_order)
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    tol, crit = eps_criterion(net.num_params, _partial_scale(net, data))
    tuples = lemma1_tuples(net, max_order, samples, seed, data)
    worst_zero, n_zero = 0.0, 0
    worst_closed, n_closed, min_chain = 0.0, 0, math.inf
    counts = {}
    it = tqdm(tuples, desc="Lemma 1 partials", leave=False) if progress else tuples
    # the closed form assumes units with a zero matrix are the identity: sigma_mid(0) = sigma_post(0) = 0
    closed_ok = net.mid.value_at_zero == 0.0 and net.post.value_at_zero == 0.0
    for kind, t in it:
        val = mixed_partial(f, w0, t)
        counts[kind] = counts.get(kind, 0) + 1
        if not covers_unit(net, t):
            worst_zero = max(worst_zero, abs(val))
            n_zero += 1
        if kind == "chain":
            min_chain = min(min_chain, abs(val))
        if len(t) == net.n and closed_ok:
            pred = order_n_closed_form(net, data, t)
            worst_closed = max(worst_closed, abs(val - pred))
            n_closed += 1
    parts = [Check(f"Lemma 1 ({net.describe()}): non-covering partials vanish",
                   f"max |partial| over {n_zero} non-covering tuples (orders 1..{max_order})",
                   worst_zero, tol, crit, nontrivial=min_chain,
                   nontrivial_what="smallest |partial| over covering chains")]
    if closed_ok:
        parts.append(Check(f"order-n partials equal the closed form ({n_closed} tuples)",
                           "max |AD - closed form|", worst_closed, tol, crit))
    lines = ["tuples by kind: " + ", ".join(f"{k} {v}" for k, v in counts.items())]
    res = parts[0] if len(parts) == 1 else all_of(f"Lemma 1 ({net.describe()})", parts, lines)
    res.values.update(worst_noncovering=worst_zero, worst_closed_form=worst_closed,
                      min_chain=min_chain, tol=tol, counts=counts)
    return res


def shifted_sigmoid() -> Activation:
    """The logistic sigmoid, sigma(0) = 1/2: an activation that breaks sigma_post(0) = 0."""
    def grad(x):
        s = torch.sigmoid(x)
        return s * (1 - s)
    return Activation("sigmoid", torch.sigmoid, 0.5, 0.25, 0.0, grad)


# ------------------------------------------------------------------------------------------
# Lemma 2
# ------------------------------------------------------------------------------------------

def lemma2_check(net: ShortcutNetwork, data, samples: int = 30, seed: int = 0) -> Check:
    """Lemma 2: for r1 <= r2, d^2 L / dW[r1,l1]_{i1j1} dW[r2,l2]_{i2j2} at 0 depends on the
    units only through whether r1 = r2: it equals the same derivative for units (0, 0) or (0, 1).

    Both sides by AD at two different places of the network. Also the stronger statement the
    proof actually shows: the two-parameter restrictions L0(u, v) coincide as functions
    (compared at random (u, v)). Needs R >= 2. The nontrivial part is the largest |d2L|.
    """
    if net.R < 2:
        raise ValueError(f"Lemma 2 compares different units: net.R must be >= 2, got {net.R}")
    rng = np.random.default_rng(seed)
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    tol, crit = eps_criterion(net.num_params, max(1.0, _partial_scale(net, data)))
    worst_d2, worst_fn, biggest = 0.0, 0.0, 0.0
    for s in range(samples):
        kind = s % 3
        if kind == 0:  # adversarial: the same unit, as far from unit 0 as possible
            r1 = r2 = net.R - 1
        elif kind == 1:  # adversarial: the first and the last unit, far apart
            r1, r2 = 0, net.R - 1
        else:
            r1 = int(rng.integers(net.R))
            r2 = int(rng.integers(r1, net.R))
        l1, l2 = int(rng.integers(net.n)), int(rng.integers(net.n))
        if kind == 0 and net.n == 2:  # a pair that covers the unit: nonzero for n = 2 (Eq. 19)
            l1, l2 = 1, 0
        i1, j1, i2 = (int(rng.integers(net.d)) for _ in range(3))
        j2 = int(rng.integers(net.d))
        if s % 2 == 0 or rng.random() < 0.5:  # chain the indices so that the derivative is nonzero
            i2 = j1
        a1, a2 = param_index(net, r1, l1, i1, j1), param_index(net, r2, l2, i2, j2)
        t2 = 0 if r1 == r2 else 1
        b1, b2 = param_index(net, 0, l1, i1, j1), param_index(net, t2, l2, i2, j2)
        v, vt = mixed_partial(f, w0, [a1, a2]), mixed_partial(f, w0, [b1, b2])
        worst_d2 = max(worst_d2, abs(v - vt))
        biggest = max(biggest, abs(v))
        if a1 != a2:
            for _ in range(2):
                u_, v_ = (float(x) for x in rng.normal(size=2))
                e = torch.zeros(net.num_params, dtype=torch.float64)
                et = e.clone()
                e[a1], e[a2] = u_, v_
                et[b1], et[b2] = u_, v_
                worst_fn = max(worst_fn, abs(float(f(e)) - float(f(et))))
    parts = [Check(f"second derivatives at 0 ({samples} pairs)",
                   "max |d2L(original units) - d2L(translated units)|", worst_d2, tol, crit,
                   nontrivial=biggest, nontrivial_what="largest |d2L| among the pairs"),
             Check("two-parameter restrictions at random (u, v)", "max |L0 - L0'|", worst_fn, tol, crit)]
    res = all_of(f"Lemma 2 ({net.describe()})", parts)
    res.values.update(worst_d2=worst_d2, worst_fn=worst_fn, biggest=biggest, tol=tol)
    return res


# ------------------------------------------------------------------------------------------
# Part 1 and Definition 4
# ------------------------------------------------------------------------------------------

def _part1_directions(net, data, count, rng):
    """Unit directions: Gaussian, single-unit, aligned with M's top singular pair, one-short."""
    R, n, d = net.R, net.n, net.d
    Sxs, Sys = _data_matrices(net, data)
    U, S, Vh = torch.linalg.svd(Sxs - Sys)
    dirs = []
    for k in range(count):
        kind = ("gaussian", "single_unit", "aligned", "one_short")[k % 4]
        V = torch.zeros(R, n, d, d, dtype=torch.float64)
        if kind == "gaussian":
            V = torch.as_tensor(rng.normal(size=(R, n, d, d)))
        elif kind == "single_unit":
            V[int(rng.integers(R))] = torch.as_tensor(rng.normal(size=(n, d, d)))
        elif kind == "aligned":  # V_{r,n} ... V_{r,1} = u1 v1^T: maximises <prod, M>
            vecs = [Vh[0]] + [torch.as_tensor(rng.normal(size=d)) for _ in range(n - 1)] + [U[:, 0]]
            vecs = [v / v.norm() for v in vecs]
            for r in range(R):
                for l in range(n):
                    V[r, l] = torch.outer(vecs[l + 1], vecs[l])
        else:  # one matrix per unit left at zero: every derivative up to order n vanishes
            V = torch.as_tensor(rng.normal(size=(R, n, d, d)))
            if n >= 2:
                for r in range(R):
                    V[r, int(rng.integers(n))] = 0.0
        v = flatten(V)
        dirs.append((kind, v / v.norm()))
    return dirs


def _order_n_directional(net, data, v):
    """Closed form of d^n/dt^n L(t v) at 0: n! c sum_r <V_{r,n} ... V_{r,1}, Sigma_{Xs} - Sigma_{Ys}>
    for n >= 2 (for n = 1 it is the gradient term, same formula)."""
    V = unflatten(v, net)
    Sxs, Sys = _data_matrices(net, data)
    c = net.post.d1_at_zero * net.mid.d1_at_zero ** (net.n - 1)
    tot = 0.0
    for r in range(net.R):
        Pr = V[r, 0]
        for l in range(1, net.n):
            Pr = V[r, l] @ Pr
        tot += float((Pr * (Sxs - Sys)).sum())
    return math.factorial(net.n) * c * tot


def part1_check(net: ShortcutNetwork, data, directions: int = 8, seed: int = 0,
                hessian_max_params: int = 1200, stationary_order: int | None = None) -> Check:
    """Theorem 1, part 1: for n >= 2 the origin is an (n-1)-th order stationary point.

    Along unit directions v (random and adversarial), the derivatives d^k/dt^k L(t v) at 0
    for k = 1..n-1 must vanish to rounding, and the n-th must equal our closed form (and so
    be nonzero along the aligned direction: the nontrivial part). For n >= 3 the exact autograd
    Hessian (when P <= ``hessian_max_params``) must be zero. ``stationary_order`` replaces
    n - 1 by another order k (the ledger's falsifier uses k = 2(n-1), Definition 4 read with a
    remainder o(|x|^(2k))).
    """
    k = net.n - 1 if stationary_order is None else check_int("stationary_order", stationary_order, 0)
    top = max(k, net.n)
    rng = np.random.default_rng(seed)
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    scale = max(1.0, _partial_scale(net, data)) * math.factorial(top)
    tol, crit = eps_criterion(net.num_params, scale)
    worst_low, worst_n, best_n = 0.0, 0.0, 0.0
    for kind, v in _part1_directions(net, data, directions, rng):
        ds = directional_derivatives(f, w0, v, top)
        if k >= 1:
            worst_low = max(worst_low, max(abs(x) for x in ds[:k]))
        pred = _order_n_directional(net, data, v)
        worst_n = max(worst_n, abs(ds[net.n - 1] - pred))
        best_n = max(best_n, abs(ds[net.n - 1]))
    parts = [Check(f"derivatives of orders 1..{k} vanish ({directions} directions)",
                   f"max |d^k L(tv)/dt^k| for k = 1..{k}", worst_low, tol, crit,
                   nontrivial=best_n, nontrivial_what=f"largest |d^{net.n} L| (order n)"),
             Check(f"order n = {net.n} equals the closed form", "max |AD - closed form|", worst_n, tol, crit)]
    hmax = None
    if net.n >= 3 and net.num_params <= hessian_max_params:
        H = hessian(net, torch.zeros(net.shape, dtype=torch.float64), data)
        hmax = float(H.abs().max())
        parts.append(Check(f"exact Hessian at 0 is zero (autograd, #params = {net.num_params})", "max |H|",
                           hmax, tol, crit))
    res = all_of(f"Theorem 1, part 1 ({net.describe()}): order-{k} stationary", parts)
    res.values.update(worst_low=worst_low, worst_n=worst_n, best_n=best_n, hmax=hmax, tol=tol)
    return res


TAYLOR_READINGS = ("k", "2k")


def taylor_remainder_check(net: ShortcutNetwork, data, v=None, ts=(1e-1, 1e-2, 1e-3),
                           seed: int = 0, reading: str = "k") -> Check:
    """Definition 4 read off the loss itself, along the line t -> t v.

    Along the direction ``v`` (default: the one that maximises the order-n term), the quotient
    Q(t) = (L(t v) - L(0)) / t^n is compared with the limit that a reading of Definition 4 gives:

    1. limit: at the smallest t, the relative gap |Q(t) - limit| / |c| (c = d^n L / n!, the closed
       form of the proof of Part 1) must be below 10 t (the next Taylor term is O(t) relative to c);
    2. rate: the remainder of the expansion must vanish at least like t. Its measured exponent,
       log(gap(t_1) / gap(t_2)) / log(t_1 / t_2) at the two largest t (far above rounding), must be
       at least 1/2: an exponent is 1 or more when the order-n term is right (the next Taylor term
       is of order n + 1 or higher) and 0 when the limit is wrong (the gap tends to a constant), and
       1/2 separates the two cases.

    ``reading="k"`` is Definition 4 as the book reads it (remainder o(||x - x0||^k), limit c);
    ``reading="2k"`` is the misreading o(||x - x0||^(2k)) with k = n - 1 >= n / 2, which makes the
    limit 0 for n >= 2 (a falsifier: both parts fail, the rate on its own).
    The loss at -t v is reported in the lines: for a linear network it carries no new information,
    because w -> -w multiplies each unit's product W_n...W_1 by (-1)^n, so L(-t v) is L(t v) with t^n
    replaced by (-t)^n. For n = 1, Definition 4 with k = n - 1 = 0 says nothing (every continuous
    function qualifies); the check then only confirms the first-order (gradient) term.
    """
    check_choice("reading", reading, TAYLOR_READINGS)
    ts = [float(t) for t in ts]
    if len(ts) < 2 or any(t <= 0 for t in ts) or sorted(ts, reverse=True) != ts or len(set(ts)) < len(ts):
        raise ValueError(f"ts must hold at least two positive values in decreasing order, got {ts}")
    rng = np.random.default_rng(seed)
    if v is None:
        v = [d for k, d in _part1_directions(net, data, 3, rng) if k == "aligned"][0]
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    L0 = float(f(w0))
    n = net.n
    closed = _order_n_directional(net, data, v) / math.factorial(n)
    limit = 0.0 if (reading == "2k" and n >= 2) else closed
    rows = []
    for t in ts:
        diff = float(f(w0 + t * v)) - L0
        back = float(f(w0 - t * v)) - L0
        rows.append((t, diff / t ** n, back / t ** n))
    scale = abs(closed)
    gaps = [abs(a - limit) / scale if scale else math.inf for _, a, _ in rows]
    t_min = ts[-1]
    rel = gaps[-1]
    rel_back = abs(rows[-1][2] - (-1) ** n * limit) / scale if scale else math.inf
    if all(math.isfinite(g) and g > 0 for g in gaps[:2]):
        rate = math.log(gaps[0] / gaps[1]) / math.log(ts[0] / ts[1])
    else:  # a gap of exactly 0 at the largest t's is no evidence of a rate
        rate = -math.inf if not all(math.isfinite(g) for g in gaps[:2]) else math.nan
    lim_txt = "0 (the 2k reading)" if limit == 0.0 and closed != 0.0 else "the closed form"
    crit = f"next Taylor term: 10 t at the smallest t = {t_min:g}"
    parts = [Check(f"(L(tv) - L(0)) / t^{n} tends to {lim_txt}", "|Q(t) - limit| / |c| at the smallest t",
                   rel, 10 * t_min, crit, nontrivial=scale, nontrivial_what="|c| = |d^n L / n!|"),
             Check(f"the remainder vanishes at least like t (limit: {lim_txt})",
                   f"exponent of the gap between t = {ts[0]:g} and {ts[1]:g}", rate if math.isfinite(rate) else
                   -math.inf, 0.5, "1/2 separates exponent >= 1 (order-n term right) from 0 (limit wrong)",
                   op=">=")]
    lines = [f"t = {t:.0e}: (L(tv) - L(0)) / t^{n} = {a:+.6e}, (L(-tv) - L(0)) / t^{n} = {b:+.6e}, gap {g:.2e}"
             for (t, a, b), g in zip(rows, gaps)]
    if n == 1:
        lines.append("n = 1: Definition 4 with k = 0 holds for every continuous loss; only the "
                     "gradient term is checked")
    res = all_of(f"Definition 4 remainder ({net.describe()}, reading {reading})", parts, lines)
    res.values.update(rows=rows, limit=limit, closed=closed, rel=rel, rel_back=rel_back, gaps=gaps, rate=rate)
    return res


# ------------------------------------------------------------------------------------------
# The paper's matrices, literally (Eqs. 11, 13, 20-21, 25, 28)
# ------------------------------------------------------------------------------------------

def shuffle_matrix(d: int) -> torch.Tensor:
    """Eq. 20's permutation P (d^2 x d^2): P_{ij} = 1 iff i = ((j-1) mod d) d + ceil(j/d), 1-based."""
    d = check_int("d", d)
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


def _exact_hessian_at_zero(net, data, method):
    W0 = torch.zeros(net.shape, dtype=torch.float64)
    if method == "auto":
        method = "kronecker" if net.is_linear else "autograd"
    check_choice("method", method, ["autograd", "kronecker"])
    if method == "kronecker":
        return hessian_linear(net, W0, data), method
    return hessian(net, W0, data), method


# ------------------------------------------------------------------------------------------
# Part 2 (n = 2)
# ------------------------------------------------------------------------------------------

PART2_VARIANTS = (None, "eq21_without_P", "multiplicity_d", "multiplicity_R", "eq12_without_sqrt")


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
    check_choice("variant", variant, PART2_VARIANTS)
    if H is None:
        H, method = _exact_hessian_at_zero(net, data, method)
    blocks = theorem1_blocks(net, data)
    M = blocks["M"]
    A21 = _blockdiag(M, net.d) if variant == "eq21_without_P" else eq21_A(M)
    H11 = eq11_assemble(A21, net.R)
    hmax = float(H.abs().max())
    tol, crit = eps_criterion(net.num_params, max(hmax, 1e-300))
    err_H = float((H - H11).abs().max())
    err_A = float((blocks["A"] - A21).abs().max())
    eigs = spectrum(H)
    sv = torch.linalg.svdvals(M).numpy()
    mult = {"multiplicity_d": net.d, "multiplicity_R": net.R}.get(variant, net.d * net.R)
    levels = np.concatenate([sv, -sv])
    nearest = np.abs(eigs[:, None] - levels[None, :]).argmin(axis=1)
    err_eigs = float(np.abs(eigs - levels[nearest]).max())
    counts = np.bincount(nearest, minlength=levels.size)
    err_mult = float(np.abs(counts - mult).max())
    cond_H = cond_max_min(eigs)
    cond_M = float(sv.max() / sv.min()) if sv.min() > 0 else math.inf
    MtM = torch.linalg.eigvalsh(M.T @ M).numpy()
    cond_MtM = MtM.max() / MtM.min() if MtM.min() > 0 else math.inf
    cond_eq12 = cond_MtM if variant == "eq12_without_sqrt" else math.sqrt(cond_MtM)
    rel_cond = abs(cond_H - cond_eq12) / cond_eq12 if math.isfinite(cond_eq12) else math.nan
    rtol_cond, crit_cond = eps_criterion(net.num_params, max(cond_H, 1.0))
    # strict saddle: the most negative eigenvalue and the loss along its eigenvector
    lam, vecs = torch.linalg.eigh(H)
    v = vecs[:, 0]
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    t = 1e-3
    drop = float(f(w0 + t * v) - f(w0))
    quad = 0.5 * t ** 2 * float(lam[0])
    saddle_gap = abs(drop - quad) / abs(quad) if quad != 0 else math.inf
    saddle_ok = float(lam[0]) < 0 and drop < 0 and saddle_gap <= 10 * t
    parts = [Check(f"Eq. 11 with A from Eq. 21 ({method}, #params = {net.num_params})"
                   + (" [A without P]" if variant == "eq21_without_P" else ""),
                   "max |H_exact - H_Eq.11|", err_H, tol, crit, nontrivial=hmax, nontrivial_what="max |H|"),
             Check("the closed form of A (Eq. 19) equals Eq. 21", "max |A_Eq.19 - A_Eq.21|", err_A, tol, crit),
             Check(f"each level +-sigma_k(M) holds {mult} eigenvalues",
                   "max over levels |#eigenvalues nearest to it - predicted count|", err_mult, 0.0,
                   "counts are integers: exact"),
             Check("Eq. 12: cond(H) = " + ("cond(M^T M)" if variant == "eq12_without_sqrt" else "sqrt(cond(M^T M))"),
                   "|cond(H) - Eq. 12| / Eq. 12", rel_cond, rtol_cond / max(cond_H, 1.0),
                   "100 P eps (relative)"),
             Check("strict saddle: L(tv) - L(0) = t^2 lambda_min / 2 at t = 1e-3",
                   "|drop - quadratic model| / |quadratic model|", saddle_gap if saddle_ok else math.inf,
                   10 * t, "next Taylor term: 10 t at t = 1e-3"),
             Check("eigenvalues lie at the levels +-sigma_k(M)", "max |eig(H) - nearest level|",
                   err_eigs, tol, crit, nontrivial=float(sv.max()), nontrivial_what="sigma_max(M)")]
    res = all_of(f"Theorem 1, part 2 ({net.describe()})", parts,
                 [f"cond(H) = {cond_H:.6g}; sigma_max/sigma_min(M) = {cond_M:.6g}; "
                  f"lambda_min = {float(lam[0]):.4g}"])
    res.values.update(err_H=err_H, err_A=err_A, err_eigs=err_eigs, cond_H=cond_H, cond_M=cond_M,
                      cond_eq12=cond_eq12, rel_cond=rel_cond,
                      err_mult=err_mult, counts=counts, lam_min=float(lam[0]), saddle_ok=saddle_ok,
                      saddle_gap=saddle_gap, drop=drop, quad=quad, sv=sv, eigs=eigs, H=H, hmax=hmax)
    return res


# ------------------------------------------------------------------------------------------
# Part 3 (n = 1)
# ------------------------------------------------------------------------------------------

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
    check_choice("variant", variant, (None, "eq25_without_P"))
    if H is None:
        H, method = _exact_hessian_at_zero(net, data, method)
    q, R = net.d ** 2, net.R
    blk = lambda a, b: H[a * q:(a + 1) * q, b * q:(b + 1) * q]  # noqa: E731
    toe = 0.0
    for r1 in range(R):
        toe = max(toe, float((blk(r1, r1) - blk(0, 0)).abs().max()))
        for r2 in range(r1):
            toe = max(toe, float((blk(r1, r2) - blk(1, 0)).abs().max()))
            toe = max(toe, float((blk(r2, r1) - blk(1, 0).T).abs().max()))
    coupling = float(blk(1, 0).abs().max()) if R > 1 else 0.0
    blocks = theorem1_blocks(net, data)
    A, B = blocks["A"], blocks["B"]
    hmax = float(H.abs().max())
    tol, crit = eps_criterion(net.num_params, max(hmax, 1e-300))
    err = float((H - eq13_assemble(A, B, R)).abs().max())
    parts = [Check("block Toeplitz, read off the exact Hessian", "max |block - its diagonal's representative|",
                   toe, tol, crit, nontrivial=coupling, nontrivial_what="max |block (2, 1)|"),
             Check(f"Eq. 13 with the closed forms A, B ({method}, #params = {net.num_params})",
                   "max |H_exact - H_Eq.13|", err, tol, crit, nontrivial=hmax, nontrivial_what="max |H|")]
    if net.is_linear:
        stats = as_stats(data)
        B25 = _blockdiag(stats.Sxx, net.d) if variant == "eq25_without_P" else eq25_B(stats.Sxx)
        A28 = _blockdiag(stats.Sxx - stats.Syx, net.d) @ shuffle_matrix(net.d).T + B25
        parts.append(Check("the paper's Eq. 25" + (" without P" if variant else ""), "max |B - Eq.25|",
                           float((B - B25).abs().max()), tol, crit))
        parts.append(Check("the paper's Eq. 28", "max |A - Eq.28|", float((A - A28).abs().max()), tol, crit))
    res = all_of(f"Theorem 1, part 3 ({net.describe()})", parts)
    res.values.update(toeplitz=toe, err=err, H=H, coupling=coupling)
    return res


def depth_table(n: int, Rs, data, progress: bool = True, **net_kwargs) -> list[dict]:
    """Condition numbers of the exact Hessian at 0 for n-shortcut networks of R units, R in Rs.

    Each row: depth L = n R, P, cond = |lambda|max/|lambda|min, the paper's 10th-percentile
    version, and (n = 2) the prediction sigma_max(M)/sigma_min(M) of Eq. 12.
    Linear networks use the Kronecker Hessian, others autograd.
    """
    rows = []
    pred = None
    for R in (tqdm(list(Rs), desc=f"Hessians at 0, n = {n}", leave=False) if progress else Rs):
        net = ShortcutNetwork(d=data.d if not isinstance(data, SufficientStats) else data.d, n=n, R=R,
                              **net_kwargs)
        H, _ = _exact_hessian_at_zero(net, data, "auto")
        eigs, off = _unitwise_spectrum(H, net)
        if n == 2 and pred is None:
            sv = torch.linalg.svdvals(theorem1_blocks(net, data)["M"]).numpy()
            pred = float(sv.max() / sv.min())
        rows.append(dict(depth=n * R, R=R, P=net.num_params, cond=cond_max_min(eigs),
                         cond10=cond_percentile(eigs, 10), lam_min=float(eigs[0]),
                         lam_max=float(eigs[-1]), predicted=pred, off_unit_max=off))
    return rows


def _unitwise_spectrum(H, net):
    """Eigenvalues of H; when every block coupling two different units is exactly zero (as
    Lemma 1 predicts for n >= 2), the spectrum is the union of the units' spectra, which is
    much cheaper. Returns (eigenvalues ascending, max |entry| outside the unit blocks)."""
    q = net.n * net.d ** 2
    off = 0.0
    for r in range(net.R):
        rows = H[r * q:(r + 1) * q]
        if r > 0:
            off = max(off, float(rows[:, :r * q].abs().max()))
        if r < net.R - 1:
            off = max(off, float(rows[:, (r + 1) * q:].abs().max()))
    if off == 0.0:
        eigs = np.sort(np.concatenate([spectrum(H[r * q:(r + 1) * q, r * q:(r + 1) * q])
                                       for r in range(net.R)]))
    else:
        eigs = spectrum(H)
    return eigs, off


def depth_invariance_check(n: int, Rs, data) -> Check:
    """Part 2's depth invariance, from independent eigendecompositions of the *full* Hessians.

    For each R the exact Hessian at 0 of the linear n-shortcut network (Kronecker route) is
    decomposed as a whole (not unit by unit), and cond(H) = |lambda|max / |lambda|min is
    compared across R: the relative spread must be below 100 P eps cond (the resolution of the
    smallest eigenvalue). The ledger's falsifier runs the same comparison for n = 1.
    """
    Rs = [check_int("R", R) for R in Rs]
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
    res = Check(f"cond(H) at 0 does not depend on depth (n = {n}, R = {Rs[0]}..{Rs[-1]})",
                "(max - min) / min of cond(H) over depths", spread, tol,
                crit + " (resolution of |lambda|min relative to |lambda|max)",
                lines=[f"full eigendecompositions, #params = {Ps[0]}..{Ps[-1]}: cond(H) = "
                       + ", ".join(f"{c:.6g}" for c in conds)])
    res.values.update(conds=conds, Rs=Rs, spread=spread)
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
    check_choice("variant", variant, GROWTH_VARIANTS)
    blocks = theorem1_blocks(ShortcutNetwork(stats.d, 1, 1), stats)
    A, B = blocks["A"], blocks["B"]
    Asym = (A + A.T) / 2
    nA, nB = float((A ** 2).sum()), float((B ** 2).sum())
    rows = []
    for R in Rs:
        net = ShortcutNetwork(stats.d, 1, check_int("R", R))
        H = hessian_linear(net, torch.zeros(net.shape, dtype=torch.float64), stats)
        eigs = spectrum(H)
        a = np.abs(eigs)
        N = a.size
        pairs = R * (R - 1) / 2 if variant == "pairs_once" else R * (R - 1)
        tr_formula = R * nB + pairs * nA
        lb = float(torch.linalg.eigvalsh(B + (R - 1) * Asym).max())
        k = N - math.ceil(0.1 * (N - 1))  # eigenvalues at or above numpy's 10th percentile (>= 0.9 N - 1)
        ub = math.sqrt(tr_formula / k)
        rows.append(dict(R=R, depth=R, P=N, lam_max=float(a.max()), lower_bound=lb,
                         p10=float(np.percentile(a, 10)), p10_bound=ub, trH2=float((H ** 2).sum()),
                         trH2_formula=tr_formula, cond10=float(a.max() / np.percentile(a, 10)),
                         cond10_bound=lb / ub, c_prime=lb / ub / math.sqrt(R)))
    return rows


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
    P = max(r["P"] for r in rows)
    scale = max(r["lam_max"] for r in rows)
    summary = ["cond10 / lower bound: " + ", ".join(f"R={r['R']}: {r['cond10']:.3g} >= {r['cond10_bound']:.3g}"
                                                     for r in rows)]
    pairs = "R(R-1)/2" if variant == "pairs_once" else "R(R-1)"
    tol, crit = eps_criterion(P, scale)
    tol2, crit2 = eps_criterion(P, max(r["trH2"] for r in rows))
    slack = min(r["lam_max"] - r["lower_bound"] for r in rows)
    tr_err = max(abs(r["trH2"] - r["trH2_formula"]) for r in rows)
    over = max(r["p10"] - r["p10_bound"] for r in rows)
    parts = [Check("lambda_max >= lambda_max(B + (R-1)(A + A^T)/2)", "min over R of lambda_max - bound",
                   slack, -tol, crit, op=">="),
             Check(f"tr(H^2) = R ||B||^2 + {pairs} ||A||^2", "max over R of |tr(H^2) - formula|",
                   tr_err, tol2, crit2, nontrivial=max(r["trH2"] for r in rows), nontrivial_what="tr(H^2)"),
             Check("|lambda|(0.1) <= sqrt(tr(H^2) / k)", "max over R of |lambda|(0.1) - bound",
                   over, tol, crit)]
    res = all_of(f"Proposition (1-shortcut growth), 1-shortcut networks, R = {list(Rs)}"
                 + (" [pairs counted once]" if variant else ""), parts, summary)
    res.values.update(rows=rows)
    return res


# ------------------------------------------------------------------------------------------
# ReLU at 0
# ------------------------------------------------------------------------------------------

def one_sided_derivatives(f, w0, v, degree: int = 8, ts=None):
    """Taylor coefficients of t -> f(w0 + t v) for t > 0 only, by an exact polynomial fit.

    Valid when the restriction is a polynomial of degree <= ``degree`` for t > 0 (true for
    linear/ReLU networks along a ray); the fit residual is returned to prove it. Returns
    ``(derivs, residual)`` with ``derivs[k] = k! * coefficient of t^k`` (one-sided derivative).
    """
    degree = check_int("degree", degree)
    ts = np.linspace(0.1, 1.0, 2 * degree + 3) if ts is None else np.asarray(ts, dtype=float)
    vals = np.array([float(f(w0 + float(t) * v)) for t in ts])
    V = np.vander(ts, degree + 1, increasing=True)
    coef, *_ = np.linalg.lstsq(V, vals, rcond=None)
    residual = float(np.abs(V @ coef - vals).max())
    derivs = np.array([math.factorial(k) * c for k, c in enumerate(coef)])
    return derivs, residual


def _kink_threshold(resid, mags, ts):
    """What a one-sided derivative can be trusted to: the fit residual propagated to the
    coefficient of t^2 (divide by t_min^2), times 1000, and never below 100 eps |D2|."""
    t_min = float(np.min(ts))
    thr = 1e3 * resid / t_min ** 2 + 100 * claims.EPS64 * max(mags)
    return thr, f"1000 x fit residual / t_min^2 + 100 eps |D2| (t_min = {t_min:g})"


def relu_kink_check(data, position: str = "mid", d: int | None = None, seed: int = 0,
                    pairs: int = 6, act: str = "relu") -> Check:
    """ReLU breaks the hypotheses of Theorem 1: the loss is not twice differentiable at 0.

    For a 2-shortcut network with one unit and ``act`` at ``position`` ("mid" or "post"), along
    random directions v the one-sided second derivatives D2+(v) (exact, from the polynomial
    restriction for t > 0) violate what any Hessian H would imply:
    for ``mid``, D2+(v) = D2+(-v) fails; for ``post``, the parallelogram law
    D2+(u+w) + D2+(u-w) = 2 D2+(u) + 2 D2+(w) fails with u, w supported on different matrices.
    The check *passes* when the smallest defect exceeds the fit's resolution, i.e. when the kink
    is detected. ``act="tanh"`` (fitted on a short interval) is the ledger's falsifier.
    Also reports how autograd's Hessian at 0 depends on the convention relu'(0) in {0, 1/2, 1}.
    """
    check_choice("position", position, ["mid", "post"])
    dd = data.d if d is None else d
    rng = np.random.default_rng(seed)
    net = ShortcutNetwork(d=dd, n=2, R=1, **{position: act})
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    smooth = act != "relu"
    ts = np.linspace(1e-3, 1e-2, 19) if smooth else np.linspace(0.1, 1.0, 11)
    degree = 8 if smooth else 4
    gaps, resid, mags = [], 0.0, []
    for _ in range(pairs):
        if position == "mid":
            v = torch.as_tensor(rng.normal(size=net.num_params))
            dp, r1 = one_sided_derivatives(f, w0, v, degree=degree, ts=ts)
            dm, r2 = one_sided_derivatives(f, w0, -v, degree=degree, ts=ts)
            gaps.append(abs(dp[2] - dm[2]))
            mags.append(max(abs(dp[2]), abs(dm[2])))
            resid = max(resid, r1, r2)
        else:
            q = net.d ** 2
            u = torch.zeros(net.num_params, dtype=torch.float64)
            w = torch.zeros(net.num_params, dtype=torch.float64)
            u[:q] = torch.as_tensor(rng.normal(size=q))
            w[q:] = torch.as_tensor(rng.normal(size=q))
            vals = []
            for z in (u + w, u - w, u, w):
                dz, r = one_sided_derivatives(f, w0, z, degree=degree, ts=ts)
                vals.append(dz[2])
                resid = max(resid, r)
            gaps.append(abs(vals[0] + vals[1] - 2 * vals[2] - 2 * vals[3]))
            mags.append(max(abs(x) for x in vals))
    thr, crit = _kink_threshold(resid, mags, ts)
    law = "D2+(v) - D2+(-v)" if position == "mid" else "parallelogram defect"
    lines = []
    spread = math.nan
    hs = {}
    if act == "relu":
        for c in (0.0, 0.5, 1.0):
            nc = ShortcutNetwork(d=dd, n=2, R=1, relu_grad_at_zero=c, **{position: "relu"})
            hs[c] = hessian(nc, torch.zeros(nc.shape, dtype=torch.float64), data)
        spread = float(max((hs[a] - hs[b]).abs().max() for a in hs for b in hs))
        lines.append(f"autograd's Hessian at 0 changes with the convention relu'(0): max difference over "
                     f"relu'(0) in {{0, 1/2, 1}} = {spread:.3g}")
    res = Check(f"{act} at {position}: the loss is not twice differentiable at 0 (kink detected)",
                f"smallest |{law}| over {pairs} directions", float(min(gaps)), thr, crit, op=">=",
                lines=lines)
    res.values.update(gaps=gaps, spread=spread, resid=resid, hessians=hs, mags=mags)
    return res


def relu_first_order_check(data, seed: int = 0, directions: int = 6, act: str = "relu") -> Check:
    """n = 1 with ReLU at post: the loss is not even differentiable at 0.

    A differentiable loss has one-sided first derivatives with D1+(v) = -D1+(-v). Along
    random v, for a 1-shortcut unit with sigma_post = ReLU, the sum D1+(v) + D1+(-v) equals
    -<(Y - X), |V s|> / m, which is nonzero. Passes when the kink is detected.
    """
    rng = np.random.default_rng(seed)
    net = ShortcutNetwork(data.d, 1, 1, post=act)
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    smooth = act != "relu"
    ts = np.linspace(1e-3, 1e-2, 19) if smooth else np.linspace(0.1, 1.0, 7)
    degree = 8 if smooth else 2
    sums, mags, resid = [], [], 0.0
    for _ in range(directions):
        v = torch.as_tensor(rng.normal(size=net.num_params))
        dp, r1 = one_sided_derivatives(f, w0, v, degree=degree, ts=ts)
        dm, r2 = one_sided_derivatives(f, w0, -v, degree=degree, ts=ts)
        sums.append(abs(dp[1] + dm[1]))
        mags.append(max(abs(dp[1]), abs(dm[1])))
        resid = max(resid, r1, r2)
    t_min = float(np.min(ts))
    thr = 1e3 * resid / t_min + 100 * claims.EPS64 * max(mags)
    res = Check(f"{act} at post, n = 1: the loss is not differentiable at 0 (kink detected)",
                f"smallest |D1+(v) + D1+(-v)| over {directions} directions", float(min(sums)), thr,
                f"1000 x fit residual / t_min + 100 eps |D1| (t_min = {t_min:g})", op=">=")
    res.values.update(sums=sums, resid=resid)
    return res


def relu_masked_singular_values(net: ShortcutNetwork, W, data: Dataset) -> torch.Tensor:
    """All singular values of the masked Eq. 19 blocks M_r^(j) (r over units, j over hidden units).

    Near a small ``W`` the cross blocks of a 2-shortcut network with ReLU at mid are block diagonal
    with these blocks (see :func:`relu_masked_prediction`), so the Hessian's eigenvalues are, up to
    O(eps), plus and minus these values: R d^2 of them in all.
    """
    X, Y = data.X, data.Y
    out = []
    for r in range(net.R):
        mask = (W[r, 0] @ X > 0).to(torch.float64)  # (d, m)
        Ms = torch.einsum("im,jm,km->jik", X - Y, mask, X) / data.m  # (j, i, k)
        out.append(torch.linalg.svdvals(Ms).flatten())
    return torch.cat(out)


def relu_masked_prediction(net: ShortcutNetwork, W, data: Dataset) -> float:
    """Largest singular value of the cross block of a 2-shortcut network with ReLU at mid near 0.

    Near ``W`` small, unit r's input is x (up to O(eps)) and hidden unit j passes x only where
    (W_{r,1} x)_j > 0. The block d2L/dW_{r,2} dW_{r,1} is then block diagonal over j with blocks
    M_r^(j) = (1/m) sum_mu [(W_{r,1} x_mu)_j > 0] (x_mu - y_mu) x_mu^T (Eq. 19 with a mask), so
    its largest singular value is max over r, j of sigma_max(M_r^(j)).
    """
    return float(relu_masked_singular_values(net, W, data).max())


def relu_depth_table(depths, seeds, data: Dataset) -> list[dict]:
    """The spectrum at the experiments' small start, from the masked Eq. 19, for 2-shortcut networks
    with ReLU at mid, per depth and seed: lambda_max, cond = |lambda|max/|lambda|min, the paper's
    cond10 = |lambda|max/|lambda|(10%) and |lambda|(10%) itself (the eigenvalues are plus and minus
    the masked singular values); beside them the linear network's Theorem 1 values (the same at
    every depth and seed). Different depths and seeds draw their masks independently."""
    from resnet_nb.experiments.common import initial_weights, network

    stats = data.stats()
    sv_lin = torch.linalg.svdvals(stats.Sxx - stats.Syx).numpy()
    eig_lin = np.concatenate([sv_lin, -sv_lin])
    rows = []
    for depth in depths:
        for seed in seeds:
            net = network("2-shortcut", depth, relu=True)
            W = initial_weights("2-shortcut", network("2-shortcut", depth), seed=seed)
            s = relu_masked_singular_values(net, W, data).numpy()
            eigs = np.concatenate([s, -s])
            rows.append(dict(depth=depth, seed=seed, lam_max=float(s.max()),
                             cond=float(s.max() / s.min()), cond10=cond_percentile(eigs, 10),
                             p10=float(np.percentile(np.abs(eigs), 10)),
                             lam_max_linear=float(sv_lin.max()),
                             cond_linear=float(sv_lin.max() / sv_lin.min()),
                             cond10_linear=cond_percentile(eig_lin, 10)))
    return rows


def figure5_flat_tolerance() -> tuple[float, str]:
    """The ledger's criterion for "flat in depth" (entry li-fig5-flat-to-depth-96): a fraction
    ``fig5.FLAT_FRACTION`` of the growth of the orthogonal networks' mean lg cond10 over depths
    2 to 96, read from the committed Figure 5 table. Returns ``(tol, criterion)``."""
    from resnet_nb.experiments import fig5

    ref = fig5.lg_cond_by_depth(fig5.committed("fig5"), "orthogonal")
    growth = float(ref["mean"].iloc[-1] - ref["mean"].iloc[0])
    return (fig5.FLAT_FRACTION * growth,
            f"{fig5.FLAT_FRACTION:g} x the growth of the orthogonal networks' mean lg cond10 over depths "
            f"{int(ref.index[0])} to {int(ref.index[-1])} (the flatness criterion of the Figure 5 ledger entry)")


def relu_depth_check(depths=(2, 8, 96), seeds=(0, 1, 2), n_per_class: int | None = None,
                     statistic: str = "cond10", flat_tol: float | None = None, rows=None) -> Check:
    """Is the 2-shortcut-ReLU start's condition number depth-invariant, in the paper's statistic?

    From the masked Eq. 19 (:func:`relu_depth_table`), two parts:

    1. flat in depth: the range over depths of the mean over seeds of lg(statistic) is at most
       ``flat_tol`` (default: :func:`figure5_flat_tolerance`, the criterion by which the book
       calls the linear networks' Figure 5 curve flat); the run-to-run spread is the largest
       standard deviation of lg(statistic) over seeds at one depth (the check is fragile when its
       margin is smaller);
    2. not Theorem 1's value: at every depth and seed, lg(statistic) exceeds the linear network's
       lg(statistic) (Theorem 1, whatever relu'(0) is: the factor cancels in the ratio) by at
       least the same ``flat_tol``.

    ``statistic`` is "cond10" (|lambda|max/|lambda|(10%), the paper's) or "cond"
    (|lambda|max/|lambda|min, Eq. 12's). The ledger's falsifier is ``statistic="cond"``: the
    printed depth invariance read in Eq. 12's statistic, whose extremes spread with depth.
    ``rows`` reuses a table already computed for the same depths and seeds.
    """
    from resnet_nb.experiments.common import mnist

    check_choice("statistic", statistic, ("cond10", "cond"))
    if rows is None:
        rows = relu_depth_table(depths, seeds, mnist(n_per_class))
    if flat_tol is None:
        flat_tol, crit = figure5_flat_tolerance()
    else:
        crit = "the given flatness tolerance in lg"
    lg = {dep: np.log10([r[statistic] for r in rows if r["depth"] == dep]) for dep in depths}
    means = {dep: float(v.mean()) for dep, v in lg.items()}
    spread = max(float(v.std(ddof=1)) if v.size > 1 else 0.0 for v in lg.values())
    rng = max(means.values()) - min(means.values())
    gap = min(math.log10(r[statistic]) - math.log10(r[statistic + "_linear"]) for r in rows)
    name = {"cond10": "|lambda|max/|lambda|(10%)", "cond": "|lambda|max/|lambda|min"}[statistic]
    lo, hi = min(depths), max(depths)
    seeds_txt = ", ".join(map(str, seeds))
    parts = [Check(f"{name} is flat in depth, {lo} to {hi} (seeds {seeds_txt})",
                   f"range over depths of the mean lg {statistic}", rng, flat_tol, crit, spread=spread),
             Check(f"{name} is not Theorem 1's value at any depth or seed",
                   f"min over depths and seeds of lg {statistic} - lg {statistic}(linear)", gap, flat_tol,
                   crit, op=">=")]
    lines = [f"depth {dep}: {statistic} {min(r[statistic] for r in rows if r['depth'] == dep):.3f}.."
             f"{max(r[statistic] for r in rows if r['depth'] == dep):.3f}" for dep in depths]
    lines.append(f"linear network (Theorem 1): {statistic} = {rows[0][statistic + '_linear']:.3f} at every depth")
    res = all_of(f"2-shortcut-ReLU (masked Eq. 19), small start: {name} depth-invariant, "
                 "but not Theorem 1's value", parts, lines)
    res.values.update(rows=rows, range=rng, spread=spread, gap=gap, means=means, flat_tol=flat_tol)
    return res


def relu_spectrum_spot_check(depth: int = 4, n_per_class: int | None = 100, seed: int = 0) -> Check:
    """The masked Eq. 19 against the exact Hessian at a small depth: both ends of the spectrum.

    Compares |lambda|max and |lambda|min of the exact Hessian (ReLU masks held fixed, as in the
    experiments) with the largest and smallest masked singular value; the tolerance is the distance
    the same start moves a linear 2-shortcut network's lambda_max away from Theorem 1 (its drift).
    """
    from resnet_nb.experiments.common import initial_weights, mnist, network
    from resnet_nb.core.relu_hessian import hessian_mid_relu

    data = mnist(n_per_class)
    stats = data.stats()
    lin = network("2-shortcut", depth)
    W = initial_weights("2-shortcut", lin, seed=seed)
    sig = float(torch.linalg.svdvals(stats.Sxx - stats.Syx).max())
    drift = abs(float(spectrum(hessian_linear(lin, W, stats)).max()) - sig)
    net = network("2-shortcut", depth, relu=True)
    a = np.abs(spectrum(hessian_mid_relu(net, W, data)))
    s = relu_masked_singular_values(net, W, data)
    err = max(abs(a.max() - float(s.max())), abs(a.min() - float(s.min())))
    res = Check(f"2-shortcut-ReLU, depth {depth}, small start: exact Hessian's extreme |lambda| "
                "are the masked Eq. 19's extreme singular values",
                "max(| |lambda|max - s_max |, | |lambda|min - s_min |)", err, drift,
                "the linear network's drift of lambda_max at the same start",
                nontrivial=float(s.max() - s.min()), nontrivial_what="s_max - s_min",
                lines=[f"exact: |lambda| from {a.min():.4f} to {a.max():.4f} (cond {a.max() / a.min():.3f}); "
                       f"masked Eq. 19: {float(s.min()):.4f} to {float(s.max()):.4f}"])
    res.values.update(cond_exact=float(a.max() / a.min()), cond_masked=float(s.max() / s.min()), drift=drift)
    return res


def relu_start_check(depth: int = 16, n_per_class: int | None = None, seed: int = 0,
                     prediction: str = "masked") -> Check:
    """The 2-shortcut-ReLU networks of Figures 3 (right) and 10 (and of Figure 7 if it shows ReLU
    networks) at their small starting point.

    Compares lambda_max of the exact Hessian (ReLU masks held fixed, as in the experiments) with a
    prediction: ``"masked"`` (Eq. 19 with the start's ReLU masks, :func:`relu_masked_prediction`),
    ``"half"`` (Theorem 1 with relu'(0) = 1/2, i.e. sigma_max(M)/2: the ledger's falsifier) or
    ``"one"`` (Theorem 1 with relu'(0) = 1). The tolerance is the distance the same start moves a
    *linear* 2-shortcut network's lambda_max away from Theorem 1 (the c R eps^2 drift).
    """
    from resnet_nb.experiments.common import initial_weights, mnist, network
    from resnet_nb.core.relu_hessian import hessian_mid_relu

    check_choice("prediction", prediction, ("masked", "half", "one"))
    data = mnist(n_per_class)
    stats = data.stats()
    sig = float(torch.linalg.svdvals(stats.Sxx - stats.Syx).max())
    lin = network("2-shortcut", depth, relu=False)
    W = initial_weights("2-shortcut", lin, seed=seed)
    lam_lin = float(spectrum(hessian_linear(lin, W, stats)).max())
    drift = abs(lam_lin - sig)
    net = network("2-shortcut", depth, relu=True)
    lam = float(spectrum(hessian_mid_relu(net, W, data)).max())
    masked = relu_masked_prediction(net, W, data)
    pred = {"masked": masked, "half": sig / 2, "one": sig}[prediction]
    name = {"masked": "the masked Eq. 19", "half": "Theorem 1 with relu'(0) = 1/2, sigma_max(M)/2",
            "one": "Theorem 1 with relu'(0) = 1, sigma_max(M)"}[prediction]
    res = Check(f"2-shortcut-ReLU network, depth {depth}, small start: lambda_max is {name}",
                "|lambda_max - prediction|", abs(lam - pred), drift,
                "the drift of the linear network's lambda_max at the same start",
                lines=[f"lambda_max = {lam:.4f}; masked Eq. 19: {masked:.4f}; Theorem 1 with relu'(0) = 1: "
                       f"{sig:.4f}, with 1/2: {sig / 2:.4f}"])
    res.values.update(lam=lam, theorem1_c1=sig, theorem1_half=sig / 2, lam_linear=lam_lin, drift=drift,
                      masked=masked)
    return res


# ------------------------------------------------------------------------------------------
# Pictures and widgets for the chapter
# ------------------------------------------------------------------------------------------

def plot_hessian(H, net: ShortcutNetwork, ax=None, title=None, max_pixels: int = 800):
    """Heatmap of a Hessian in Definition-5 order, thin lines between matrices and thick
    lines between units (the layout of the paper's Figure 11). Large Hessians are shown
    by block-maximum pooling to at most ``max_pixels`` pixels a side (nonzeros stay visible)."""
    import matplotlib.pyplot as plt

    H = torch.as_tensor(H, dtype=torch.float64)
    if ax is None:
        _, ax = plt.subplots(figsize=(4.5, 4.5))
    P = H.shape[0]
    k = max(1, math.ceil(P / max_pixels))
    if k > 1:
        pad = (-P) % k
        Hp = torch.nn.functional.pad(H, (0, pad, 0, pad))
        Hp = Hp.reshape((P + pad) // k, k, (P + pad) // k, k)
        idx = Hp.abs().amax(dim=(1, 3), keepdim=True)
        Hs = torch.where(Hp.abs() == idx, Hp, torch.zeros_like(Hp)).sum(dim=(1, 3))
    else:
        Hs = H
    vmax = float(H.abs().max()) or 1.0
    from matplotlib.colors import SymLogNorm

    # symmetric log scale: entries down to 1e-3 of the largest stay visible at page size
    norm = SymLogNorm(linthresh=1e-3 * vmax, vmin=-vmax, vmax=vmax, base=10)
    im = ax.imshow(Hs.numpy(), cmap="RdBu_r", norm=norm, interpolation="nearest", extent=(0, P, P, 0))
    ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.03, label="Hessian entry (symmetric log)")
    q = net.d ** 2
    for a in range(1, net.R * net.n):
        lw = 1.2 if a % net.n == 0 else 0.3
        ax.axhline(a * q, color="k", lw=lw)
        ax.axvline(a * q, color="k", lw=lw)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(title or f"Hessian at 0: n = {net.n}, R = {net.R}", fontsize=9)
    return ax


def plot_spectrum(eigs, ax=None, predicted=None, title=None):
    """Sorted eigenvalues (dots); ``predicted`` values are drawn as horizontal lines."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(4.5, 3))
    eigs = np.asarray(eigs)
    ax.plot(np.arange(eigs.size), eigs, ".", ms=2, color="C0", label="eigenvalues of H")
    if predicted is not None:
        for k, p in enumerate(np.unique(np.round(np.asarray(predicted), 12))):
            ax.axhline(p, color="C3", lw=0.5, alpha=0.6, label="+-sigma_k(M)" if k == 0 else None)
        ax.legend(fontsize=7, loc="upper left")
    ax.axhline(0, color="k", lw=0.5)
    ax.set_xlabel("index (ascending)")
    ax.set_ylabel("eigenvalue")
    ax.set_title(title or "spectrum", fontsize=9)
    return ax


def _network_and_data(n, R, d, act, position, source, mnist=None, seed=0):
    """The network and data set the widgets describe (MNIST forces d = 10)."""
    from resnet_nb.core.data import synthetic_linear, whitened_mnist

    if source == "MNIST":
        data = whitened_mnist(n_per_class=20) if mnist is None else mnist
    else:
        data = synthetic_linear(d, 200, seed=seed)
    kw = {} if act == "identity" else {position: act}
    if n == 1 and position == "mid":
        kw = {}  # a 1-shortcut unit has no mid position
    net = ShortcutNetwork(data.d, n, R, **kw)
    return net, data


def explorer_title(net: ShortcutNetwork) -> str:
    """A short title naming the architecture and every activation that is not the identity."""
    acts = [f"{pos}={getattr(net, pos).name}" for pos in ("pre", "mid", "post")
            if not getattr(net, pos).is_identity]
    return f"{net.n}-shortcut, R={net.R}, " + (", ".join(acts) if acts else "linear")


def same_picture(net_a: ShortcutNetwork, net_b: ShortcutNetwork, data) -> float:
    """max |H_a - H_b| between the exact Hessians at 0 of two networks on the same data (why
    two settings of the explorer draw the same picture, e.g. linear and tanh at mid)."""
    Ha, _ = _exact_hessian_at_zero(net_a, data, "auto")
    Hb, _ = _exact_hessian_at_zero(net_b, data, "auto")
    return float((Ha - Hb).abs().max())


def _draw_case(fig, net, data):
    fig.clf()
    ax1, ax2 = fig.subplots(1, 2)
    H, _ = _exact_hessian_at_zero(net, data, "auto")
    eigs, _ = _unitwise_spectrum(H, net)
    pred = None
    if net.n == 2:
        sv = torch.linalg.svdvals(theorem1_blocks(net, data)["M"]).numpy()
        pred = np.concatenate([sv, -sv])
    plot_hessian(H, net, ax1, title=explorer_title(net))
    c = (f"{cond_percentile(eigs, 10):.3g}" if np.abs(eigs).max() > 0 else "undefined (H = 0)")
    plot_spectrum(eigs, ax2, pred, title=f"#params = {net.num_params}; |lambda|max/|lambda|(0.1) = {c}")
    fig.tight_layout()


def hessian_explorer(mnist: Dataset | None = None):
    """Widgets (n, R, d, activation and position, data) that redraw the Hessian at 0 and its
    spectrum. Needs a live kernel; every slider has continuous_update=False. ``mnist``: the
    MNIST data set to use (default: 200 whitened digits, computed on first use)."""
    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    from IPython.display import display

    style = dict(continuous_update=False, style={"description_width": "initial"})
    w = dict(
        n=widgets.IntSlider(value=2, min=1, max=3, description="n", **style),
        R=widgets.IntSlider(value=2, min=1, max=6, description="units R", **style),
        d=widgets.IntSlider(value=6, min=2, max=10, description="d (synthetic)", **style),
        act=widgets.Dropdown(options=["identity", "tanh", "relu", "silu"], value="identity",
                             description="activation"),
        position=widgets.Dropdown(options=["pre", "mid", "post"], value="mid", description="position"),
        source=widgets.Dropdown(options=["MNIST", "synthetic"], value="MNIST", description="data"),
    )
    out = widgets.Output()

    def redraw(_=None):
        with out:
            out.clear_output(wait=True)
            net, data = _network_and_data(w["n"].value, w["R"].value, w["d"].value, w["act"].value,
                                          w["position"].value, w["source"].value, mnist)
            fig = plt.figure(figsize=(9, 4))
            _draw_case(fig, net, data)
            plt.show()

    for c in w.values():
        c.observe(redraw, names="value")
    box = widgets.VBox([widgets.HBox([w["n"], w["R"], w["d"]]),
                        widgets.HBox([w["act"], w["position"], w["source"]]), out])
    redraw()
    display(box)
    return box


def depth_animation(n: int, Rs, data, **activations) -> str:
    """A frame slider over the number of units (kernel-free): for each R the Hessian at 0 and
    its spectrum. Returns the HTML of ``FuncAnimation.to_jshtml()``; the figure is closed."""
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation

    Rs = [check_int("R", R) for R in Rs]
    d = data.d
    fig = plt.figure(figsize=(9, 4))

    def frame(k):
        _draw_case(fig, ShortcutNetwork(d, n, Rs[k], **activations), data)
        return []

    anim = FuncAnimation(fig, frame, frames=len(Rs), interval=800, blit=False)
    html = anim.to_jshtml(default_mode="once")
    plt.close(fig)
    return html


# ------------------------------------------------------------------------------------------
# Claims of the chapter (see resnet_nb.book.ledger); small, unfriendly instances
# ------------------------------------------------------------------------------------------

def _data3():
    """Three coordinates, not whitened (Sxx != I, Syx not symmetric): formulas that silently
    assume Sxx = I or a symmetric M fail here."""
    from resnet_nb.core.data import synthetic_linear

    cov = torch.tensor([[2.0, 0.5, 0.0], [0.5, 1.0, 0.3], [0.0, 0.3, 0.5]], dtype=torch.float64)
    return synthetic_linear(3, 40, cov=cov, seed=1)


_WHERE = ["book/theorem1.ipynb", "tests/test_theorem1.py"]
PLAUSIBLE = "plausible false statement"


@claims.claim("li-lemma1", source="Li et al., Lemma 1",
              statement=r"At $w = 0$ a mixed partial derivative vanishes unless its parameters cover all $n$ "
                        r"matrices of one unit; this needs only $\sigma_{mid}(0) = 0$.",
              verdict="holds", falsifier=r"the same with $\sigma_{mid}(0) \ne 0$ (logistic sigmoid at mid)",
              where=_WHERE, falsifier_kind=PLAUSIBLE)
def claim_lemma1(falsify: bool = False) -> Check:
    mid = shifted_sigmoid() if falsify else "tanh"
    return lemma1_check(ShortcutNetwork(3, 2, 2, mid=mid), _data3(), samples=6, seed=2)


@claims.claim("li-lemma2", source="Li et al., Lemma 2",
              statement=r"At $w = 0$ a second derivative depends on the two units only through whether they "
                        r"coincide; this needs only $\sigma_{post}(0) = 0$.",
              verdict="holds", falsifier=r"the same with $\sigma_{post}(0) \ne 0$ (logistic sigmoid at post)",
              where=_WHERE, falsifier_kind=PLAUSIBLE)
def claim_lemma2(falsify: bool = False) -> Check:
    post = shifted_sigmoid() if falsify else "silu"
    return lemma2_check(ShortcutNetwork(3, 1, 3, pre="tanh", post=post), _data3(), samples=9)


@claims.claim("li-thm1-part1-stationary", source="Li et al., Theorem 1 part 1 and Definition 4",
              statement=r"For $n \ge 2$ the zero point is an $(n-1)$-th order stationary point: directional "
                        r"derivatives of orders $1..n-1$ vanish, order $n$ does not ($n = 2, 3$).",
              verdict="holds",
              falsifier=r"Definition 4 read with the remainder $o(\|x\|^{2k})$: derivatives up to order "
                        r"$2(n-1)$ vanish",
              where=_WHERE, falsifier_kind=PLAUSIBLE)
def claim_part1(falsify: bool = False) -> Check:
    data = _data3()
    parts = [part1_check(ShortcutNetwork(3, n, 2), data, directions=4,
                         stationary_order=2 * (n - 1) if falsify else None) for n in (2, 3)]
    return all_of("Theorem 1, part 1, n = 2 and 3", parts)


@claims.claim("li-thm1-eq11", source="Li et al., Theorem 1 part 2, Eqs. 11 and 21",
              statement=r"For $n = 2$ the Hessian at $0$ is block diagonal over units with blocks "
                        r"$\begin{pmatrix}0 & A^\top\\ A & 0\end{pmatrix}$, $A = \mathrm{diag}(M,\dots,M)P^\top$.",
              verdict="holds", falsifier=r"Eq. 21 without the permutation: $A = \mathrm{diag}(M,\dots,M)$",
              where=_WHERE, falsifier_kind=PLAUSIBLE)
def claim_eq11(falsify: bool = False) -> Check:
    net = ShortcutNetwork(3, 2, 3, pre="tanh", mid="silu")
    res = part2_check(net, _data3(), method="autograd", variant="eq21_without_P" if falsify else None)
    return res.parts[0]


@claims.claim("li-thm1-part2-spectrum", source="Li et al., Theorem 1 part 2, Eq. 18",
              statement=r"For $n = 2$ the eigenvalues at $0$ are $\pm\sigma_k(M)$, each with multiplicity $dR$.",
              verdict="holds", falsifier=r"$R$ copies of each $\pm\sigma_k(M)$ (the paper's 'copies equal to the "
                                         r"number of shortcut connections' read as copies of the singular values)",
              where=_WHERE, falsifier_kind=PLAUSIBLE)
def claim_part2_spectrum(falsify: bool = False) -> Check:
    net = ShortcutNetwork(3, 2, 3, pre="tanh", mid="silu")
    res = part2_check(net, _data3(), method="autograd", variant="multiplicity_R" if falsify else None)
    return all_of("Theorem 1, part 2: the spectrum (levels and their counts)", [res.parts[5], res.parts[2]])


@claims.claim("li-thm1-eq12-cond", source="Li et al., Theorem 1 part 2, Eq. 12",
              statement=r"For $n = 2$, $\mathrm{cond}(H) = \sqrt{\mathrm{cond}(M^\top M)}$ at $0$.",
              verdict="holds", falsifier=r"Eq. 12 without the square root: "
                        r"$\mathrm{cond}(H) = \mathrm{cond}(M^\top M)$",
              where=_WHERE, falsifier_kind=PLAUSIBLE)
def claim_eq12(falsify: bool = False) -> Check:
    net = ShortcutNetwork(3, 2, 2, mid="silu")
    res = part2_check(net, _data3(), method="autograd", variant="eq12_without_sqrt" if falsify else None)
    return res.parts[3]


@claims.claim("li-thm1-eq13", source="Li et al., Theorem 1 part 3, Eqs. 13, 25 and 28",
              statement=r"For $n = 1$ the Hessian at $0$ is block Toeplitz (Eq. 13) with "
                        r"$B = P\,\mathrm{diag}(\Sigma_{XX},\dots)P^\top$ (Eq. 25) and $A$ of Eq. 28.",
              verdict="holds",
              falsifier=r"Eq. 25 without the permutation: $B = \mathrm{diag}(\Sigma_{XX},\dots)$ "
                        r"($I\otimes\Sigma_{XX}$ for $\Sigma_{XX}\otimes I$)",
              where=_WHERE, falsifier_kind=PLAUSIBLE)
def claim_eq13(falsify: bool = False) -> Check:
    return part3_check(ShortcutNetwork(3, 1, 4), _data3().stats(),
                       variant="eq25_without_P" if falsify else None)


@claims.claim("li-thm1-depth-invariant", source="Li et al., Theorem 1 part 2 (depth invariance)",
              statement=r"For linear 2-shortcut networks cond$(H)$ at $0$ is the same at every depth "
                        r"(full eigendecompositions, $R = 1, 2, 4, 8$).",
              verdict="holds", falsifier=r"the same depth invariance for $n = 1$",
              where=_WHERE, falsifier_kind=PLAUSIBLE)
def claim_depth_invariant(falsify: bool = False) -> Check:
    return depth_invariance_check(1 if falsify else 2, (1, 2, 4, 8), _data3().stats())


@claims.claim("book-one-shortcut-growth", source="the book's Proposition (1-shortcut growth); Li et al., Section 4",
              statement=r"For a linear 1-shortcut network at $0$, "
                        r"$\lambda_{\max} \ge \lambda_{\max}(B + (R-1)(A+A^\top)/2)$ "
                        r"and $|\lambda|_{(10\%)} \le \sqrt{\mathrm{tr}(H^2)/N_{90}}$ "
                        r"($N_{90} \ge 9N_\lambda/10 - 1$ eigenvalues at or above it), with "
                        r"$\mathrm{tr}(H^2) = R\|B\|_F^2 + R(R-1)\|A\|_F^2$, so the paper's condition number "
                        r"grows at least like $\sqrt R$.",
              verdict="holds",
              falsifier=r"the slip $\mathrm{tr}(H^2) = R\|B\|_F^2 + \tfrac{R(R-1)}{2}\|A\|_F^2$ (each pair of units "
                        r"counted once, although $A$ and $A^\top$ both occur), same comparisons",
              where=_WHERE, falsifier_kind=PLAUSIBLE)
def claim_growth(falsify: bool = False) -> Check:
    from resnet_nb.experiments.common import mnist  # cached: 1,000 whitened digits

    return growth_check(mnist(100).stats(), (2, 4, 8), variant="pairs_once" if falsify else None)


@claims.claim("li-thm1-relu-hypothesis", source="Li et al., remark after Theorem 1 (ReLU)",
              statement=r"With ReLU at the mid position the loss is not twice differentiable at $0$: the "
                        r"one-sided second derivatives along $v$ and $-v$ differ, so Theorem 1's hypotheses fail.",
              verdict="fails as printed", printed="ReLU satisfies the assumptions of Theorem 1 (by a local "
                                                  "polynomial approximation at 0)",
              falsifier="the detected defect is an artefact of the polynomial fit, not the kink: the same defect "
                        "appears for tanh at mid (smooth)", where=_WHERE, falsifier_kind=PLAUSIBLE)
def claim_relu_kink(falsify: bool = False) -> Check:
    return relu_kink_check(_data3(), "mid", pairs=3, act="tanh" if falsify else "relu")


@claims.claim("li-thm1-relu-experiments", source="Li et al., abstract ('with or without nonlinearities')",
              statement=r"At the small starting point of the experiments, $\lambda_{\max}$ of a 2-shortcut network "
                        r"with ReLU at mid is the largest singular value of Eq. 19 with the start's ReLU masks, "
                        r"which is neither Theorem 1's value with $\mathrm{relu}'(0) = 1$ nor with $1/2$.",
              verdict="fails as printed",
              printed="Theorem 1 describes shortcut networks with or without nonlinearities",
              falsifier=r"$\lambda_{\max} = \sigma_{\max}(M)/2$ (Theorem 1 with $\mathrm{relu}'(0) = 1/2$)",
              where=_WHERE, falsifier_kind=PLAUSIBLE)
def claim_relu_experiments(falsify: bool = False) -> Check:
    return relu_start_check(depth=4, n_per_class=100, prediction="half" if falsify else "masked")


@claims.claim("li-thm1-relu-depth", source="Li et al., abstract ('with or without nonlinearities'); "
                                           "Theorem 1 part 2 (depth invariance); Appendix B (the statistic)",
              statement=r"At the small starting point, the paper's condition number "
                        r"$|\lambda|_{\max}/|\lambda|_{(10\%)}$ of a 2-shortcut network with ReLU at mid "
                        r"(masked Eq. 19, depths 2, 8, 32 and 96, seeds 0 to 9) is flat in depth by the Figure 5 "
                        r"criterion, and at every depth and seed it is farther from Theorem 1's value than "
                        r"that criterion allows.",
              verdict="holds",
              falsifier=r"the depth invariance read in Eq. 12's statistic $|\lambda|_{\max}/|\lambda|_{\min}$: "
                        r"the same flatness comparison run on it (it exceeds the criterion by about its "
                        r"run-to-run spread over the 10 seeds, so single draws of neighbouring depths overlap)",
              where=_WHERE, falsifier_kind=PLAUSIBLE)
def claim_relu_depth(falsify: bool = False) -> Check:
    depths, seeds = RELU_DEPTHS, RELU_SEEDS
    return relu_depth_check(depths, seeds, statistic="cond" if falsify else "cond10",
                            rows=_relu_rows_all_digits(depths, seeds))


#: the depths and seeds of the chapter's ReLU depth table (also the ledger's)
RELU_DEPTHS, RELU_SEEDS = (2, 8, 32, 96), tuple(range(10))


@functools.lru_cache(maxsize=2)
def _relu_rows_all_digits(depths, seeds):
    """:func:`relu_depth_table` on all 5,000 digits, cached: the claim and its falsifier read the
    same table (the falsifier only changes the statistic)."""
    from resnet_nb.experiments.common import mnist

    return relu_depth_table(depths, seeds, mnist(None))
