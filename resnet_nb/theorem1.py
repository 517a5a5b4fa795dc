"""Theorem 1 of Li et al. (Demystifying ResNet), checked step by step.

Every public ``*_check`` function computes the two sides of one statement independently and
returns a :class:`CheckResult`: a verdict (``holds``), the worst discrepancy in words, and the
numbers behind it. A check is built so that it *can* fail: each one is also run, in the tests
and in the chapter, on an instance where the statement is false.

Statements and where they are checked
-------------------------------------
* Lemma 1 (a nonzero mixed partial at 0 needs one whole unit): :func:`lemma1_check`.
* Lemma 2 (only "same unit or not" matters for second derivatives): :func:`lemma2_check`.
* Definition 4 / Part 1 ((n-1)-th order stationarity, zero Hessian for n >= 3):
  :func:`part1_check`, :func:`taylor_remainder_check`.
* Part 2 (n = 2: Eq. 11, eigenvalues from Eq. 12, strict saddle): :func:`part2_check`,
  :func:`depth_table`.
* Part 3 (n = 1: block Toeplitz Eq. 13 with Eqs. 23-28): :func:`part3_check`, :func:`depth_table`.
* ReLU at 0: :func:`relu_kink_check`.
* Section 4.2 (Eq. 7, Figure 4) and Eqs. 15-16: :func:`eq7_check`,
  :func:`figure4_one_shortcut_check`, :func:`figure4_skip_all_check`, :func:`eq15_16_check`.
* The shortcut pairing convention: :func:`convention_table`.

Parameters are addressed in Definition 5 order: the flat index of ``W[r, l][i, j]`` (zero-based
unit r, matrix l, row i, column j) is ``((r n + l) d + j) d + i``.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import torch
from torch.func import jvp as _jvp
from tqdm.auto import tqdm

from ._checks import check_choice, check_float, check_int
from .data import Dataset, SufficientStats
from .hessians import (cond_max_min, cond_percentile, hessian, hessian_at_zero, hessian_linear,
                       directional_derivatives, loss_function, spectrum, theorem1_blocks)
from .init import initialise
from .losses import loss_end_to_end, optimum
from .networks import Activation, ShortcutNetwork, end_to_end, flatten, unflatten
from .train import gradient_descent

# torch's forward-mode AD loads its jvp decompositions on first use, and that import emits a
# DeprecationWarning about torch.jit.script from inside torch. Load them once here, quietly,
# so that no warning reaches a notebook (the book builds with warnings as errors).
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*torch.jit.script.*", category=DeprecationWarning)
    import torch._decomp.decompositions_for_jvp  # noqa: F401,E402

__all__ = [
    "CheckResult", "param_index", "param_coords", "covers_unit", "mixed_partial",
    "order_n_closed_form", "lemma1_tuples", "lemma1_check", "lemma2_check", "part1_check",
    "taylor_remainder_check", "shuffle_matrix", "eq21_A", "eq25_B", "eq28_A", "eq11_assemble",
    "eq13_assemble", "part2_check", "part3_check", "depth_table", "one_sided_derivatives",
    "relu_kink_check", "relu_first_order_check", "eq7_update", "eq7_check", "figure4_one_shortcut_check",
    "figure4_skip_all_check", "eq15_16_check", "convention_table", "shifted_sigmoid", "subsample",
    "relabel", "sign_sweep", "order_sweep",
]


# ------------------------------------------------------------------------------------------
# Results
# ------------------------------------------------------------------------------------------

@dataclass
class CheckResult:
    """The outcome of one check: verdict, sentences for the reader, and the raw numbers."""

    name: str
    holds: bool
    lines: list = field(default_factory=list)
    values: dict = field(default_factory=dict)

    def __str__(self) -> str:
        head = f"{self.name}: {'holds' if self.holds else 'FAILS'}"
        return "\n".join([head] + ["  " + s for s in self.lines])

    __repr__ = __str__


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


def lemma1_check(net: ShortcutNetwork, data, max_order: int | None = None, samples: int = 20,
                 seed: int = 0, rtol: float = 1e-10, progress: bool = False) -> CheckResult:
    """Lemma 1: at w = 0 a mixed partial that does not cover all n matrices of one unit is 0.

    Both sides: the mixed partial by nested forward-mode AD, and the Lemma's prediction
    (0 for a non-covering tuple). For tuples of order exactly n the prediction is sharper:
    our closed form :func:`order_n_closed_form` (so covering chains must be *nonzero*).
    Tolerance: ``rtol`` times the largest |entry| of ``Sigma_{Xs} - Sigma_{Ys}`` (or 1).
    """
    max_order = net.n + 1 if max_order is None else check_int("max_order", max_order)
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    Sxs, Sys = _data_matrices(net, data)
    scale = max(1.0, float((Sxs - Sys).abs().max()))
    tol = rtol * scale
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
        if len(t) == net.n and closed_ok:
            pred = order_n_closed_form(net, data, t)
            worst_closed = max(worst_closed, abs(val - pred))
            n_closed += 1
            if kind == "chain":
                min_chain = min(min_chain, abs(val))
    holds = worst_zero <= tol and worst_closed <= tol
    lines = [f"{n_zero} non-covering tuples (orders 1..{max_order}): max |partial| = {_fmt(worst_zero)} "
             f"(tolerance {_fmt(tol)})",
             (f"{n_closed} tuples of order n = {net.n} against our closed form: "
              f"max |AD - closed form| = {_fmt(worst_closed)}" if closed_ok else
              "closed form not applicable (it assumes sigma_mid(0) = sigma_post(0) = 0)"),
             (f"smallest |partial| over covering chains = {_fmt(min_chain)} (nonzero, as it must be)"
              if closed_ok else f"covering chains: {counts.get('chain', 0)}"),
             "tuples by kind: " + ", ".join(f"{k} {v}" for k, v in counts.items())]
    return CheckResult("Lemma 1", holds, lines,
                       dict(worst_noncovering=worst_zero, worst_closed_form=worst_closed,
                            min_chain=min_chain, tol=tol, counts=counts))


def shifted_sigmoid() -> Activation:
    """The logistic sigmoid, sigma(0) = 1/2: an activation that breaks sigma_post(0) = 0."""
    def grad(x):
        s = torch.sigmoid(x)
        return s * (1 - s)
    return Activation("sigmoid", torch.sigmoid, 0.5, 0.25, 0.0, grad)


# ------------------------------------------------------------------------------------------
# Lemma 2
# ------------------------------------------------------------------------------------------

def lemma2_check(net: ShortcutNetwork, data, samples: int = 30, seed: int = 0,
                 rtol: float = 1e-10) -> CheckResult:
    """Lemma 2: for r1 <= r2, d^2 L / dW[r1,l1]_{i1j1} dW[r2,l2]_{i2j2} at 0 depends on the
    units only through whether r1 = r2: it equals the same derivative for units (0, 0) or (0, 1).

    Both sides by AD at two different places of the network. Also the stronger statement the
    proof actually shows: the two-parameter restrictions L0(u, v) coincide as functions
    (compared at random (u, v)). Needs R >= 2.
    """
    if net.R < 2:
        raise ValueError(f"Lemma 2 compares different units: net.R must be >= 2, got {net.R}")
    rng = np.random.default_rng(seed)
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    Sxs, Sys = _data_matrices(net, data)
    tol = rtol * max(1.0, float((Sxs - Sys).abs().max()), float(Sxs.abs().max()))
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
    holds = worst_d2 <= tol and worst_fn <= tol
    lines = [f"{samples} parameter pairs: max |d2L(original units) - d2L(translated units)| = {_fmt(worst_d2)} "
             f"(tolerance {_fmt(tol)}); largest |d2L| among them = {_fmt(biggest)}",
             f"two-parameter restrictions at random (u, v): max |L0 - L0'| = {_fmt(worst_fn)}"]
    return CheckResult("Lemma 2", holds, lines, dict(worst_d2=worst_d2, worst_fn=worst_fn,
                                                     biggest=biggest, tol=tol))


# ------------------------------------------------------------------------------------------
# Part 1 and Definition 4
# ------------------------------------------------------------------------------------------

def _part1_directions(net, data, count, rng):
    """Unit directions: Gaussian, single-unit, aligned with M's top singular pair, one-short."""
    P, R, n, d = net.num_params, net.R, net.n, net.d
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
                rtol: float = 1e-10, hessian_max_params: int = 1200) -> CheckResult:
    """Theorem 1, part 1: for n >= 2 the origin is an (n-1)-th order stationary point.

    Along unit directions v (random and adversarial), the derivatives d^k/dt^k L(t v) at 0
    for k = 1..n-1 must vanish to rounding, and the n-th must equal our closed form (and so
    be nonzero along the aligned direction). For n >= 3 the exact autograd Hessian (when
    P <= ``hessian_max_params``) must be zero. For n = 1 the claim is empty; the check then
    verifies only the order-1 closed form.
    """
    rng = np.random.default_rng(seed)
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    Sxs, Sys = _data_matrices(net, data)
    tol = rtol * max(1.0, float((Sxs - Sys).abs().max())) * math.factorial(net.n)
    worst_low, worst_n, best_n = 0.0, 0.0, 0.0
    for kind, v in _part1_directions(net, data, directions, rng):
        ds = directional_derivatives(f, w0, v, net.n)
        if net.n >= 2:
            worst_low = max(worst_low, max(abs(x) for x in ds[:-1]))
        pred = _order_n_directional(net, data, v)
        worst_n = max(worst_n, abs(ds[-1] - pred))
        best_n = max(best_n, abs(ds[-1]))
    lines = [f"{directions} unit directions: max |d^k L| for k = 1..n-1 = {_fmt(worst_low)} "
             f"(tolerance {_fmt(tol)})",
             f"order n = {net.n}: max |AD - closed form| = {_fmt(worst_n)}, "
             f"largest |d^n L| = {_fmt(best_n)} (nonzero)"]
    holds = worst_low <= tol and worst_n <= tol and best_n > 100 * tol
    hmax = None
    if net.n >= 3 and net.num_params <= hessian_max_params:
        H = hessian(net, torch.zeros(net.shape, dtype=torch.float64), data)
        hmax = float(H.abs().max())
        holds = holds and hmax <= tol
        lines.append(f"exact Hessian at 0 (autograd, P = {net.num_params}): max |H| = {_fmt(hmax)}")
    return CheckResult(f"Theorem 1, part 1 (n = {net.n})", holds, lines,
                       dict(worst_low=worst_low, worst_n=worst_n, best_n=best_n, hmax=hmax, tol=tol))


def taylor_remainder_check(net: ShortcutNetwork, data, v=None, ts=(1e-1, 1e-2, 1e-3),
                           seed: int = 0) -> CheckResult:
    """Definition 4 read off the loss itself: (L(t v) - L(0)) / t^(n-1) -> 0 while
    (L(t v) - L(0)) / t^n -> d^n L / n! (the closed form), as t -> 0.

    Returns the ratios; ``holds`` when the order-n ratio approaches the closed form
    (relative error at the smallest t below 10 t) and the order-(n-1) ratio shrinks like t.
    """
    rng = np.random.default_rng(seed)
    if v is None:
        v = [d for k, d in _part1_directions(net, data, 3, rng) if k == "aligned"][0]
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    L0 = float(f(w0))
    limit = _order_n_directional(net, data, v) / math.factorial(net.n)
    rows = []
    for t in ts:
        diff = float(f(w0 + t * v)) - L0
        rows.append((t, diff / t ** (net.n - 1), diff / t ** net.n))
    rel = abs(rows[-1][2] - limit) / abs(limit)
    shrink = abs(rows[-1][1]) <= 10 * ts[-1] * abs(limit) + 1e-12 if net.n >= 2 else True
    holds = rel <= 10 * ts[-1] and shrink
    lines = [f"t = {t:.0e}: (L(tv)-L(0))/t^{net.n - 1} = {a:+.3e}, (L(tv)-L(0))/t^{net.n} = {b:+.6e}"
             for t, a, b in rows]
    lines.append(f"closed-form limit d^nL/n! = {limit:+.6e}; relative gap at the smallest t = {_fmt(rel)}")
    return CheckResult(f"Definition 4 remainder (n = {net.n})", holds, lines,
                       dict(rows=rows, limit=limit, rel=rel))


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


def eq11_assemble(A: torch.Tensor, R: int) -> torch.Tensor:
    """Eq. 11: block diagonal over R units, each unit [[0, A^T], [A, 0]]."""
    R = check_int("R", R)
    unit = torch.zeros(2 * A.shape[0], 2 * A.shape[0], dtype=A.dtype)
    q = A.shape[0]
    unit[q:, :q] = A
    unit[:q, q:] = A.T
    return torch.block_diag(*([unit] * R))


def eq13_assemble(A: torch.Tensor, B: torch.Tensor, R: int) -> torch.Tensor:
    """Eq. 13: block Toeplitz, B on the diagonal, A below it and A^T above it."""
    R = check_int("R", R)
    q = A.shape[0]
    H = torch.zeros(R * q, R * q, dtype=A.dtype)
    for r1 in range(R):
        for r2 in range(R):
            blk = B if r1 == r2 else (A if r1 > r2 else A.T)
            H[r1 * q:(r1 + 1) * q, r2 * q:(r2 + 1) * q] = blk
    return H


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

def part2_check(net: ShortcutNetwork, data, method: str = "auto", rtol: float = 1e-10,
                H=None) -> CheckResult:
    """Theorem 1, part 2 (n = 2) at w = 0, four statements against the exact Hessian:

    1. Eq. 11 with A from Eq. 21 (A = diag(M..M) P^T, M = sigma_mid'(0) sigma_post'(0)
       (Sigma_{Xs} - Sigma_{Ys}), Eq. 12): max |H_exact - H_Eq11|.
    2. eigenvalues = +-singular values of M, each with multiplicity d R (sorted lists compared).
    3. cond(H) = sigma_max(M) / sigma_min(M) = sqrt(cond(M^T M)) (Eq. 12).
    4. strict saddle: lambda_min(H) = -sigma_max(M) < 0, and the loss drops along its eigenvector.

    ``method``: "autograd" (any network) or "kronecker" (linear networks, no autograd); "auto"
    picks the latter for linear networks. ``H`` may be given to avoid recomputing it.
    """
    if net.n != 2:
        raise ValueError(f"part 2 is about n = 2, got a network with n = {net.n}")
    if H is None:
        H, method = _exact_hessian_at_zero(net, data, method)
    blocks = theorem1_blocks(net, data)
    M = blocks["M"]
    H11 = eq11_assemble(eq21_A(M), net.R)
    scale = max(1.0, float(H.abs().max()))
    err_H = float((H - H11).abs().max())
    err_A = float((blocks["A"] - eq21_A(M)).abs().max())
    eigs = spectrum(H)
    sv = torch.linalg.svdvals(M).numpy()
    pred = np.sort(np.concatenate([np.repeat(sv, net.d * net.R), -np.repeat(sv, net.d * net.R)]))
    err_eigs = float(np.abs(eigs - pred).max())
    cond_H = cond_max_min(eigs)
    cond_M = float(sv.max() / sv.min()) if sv.min() > 0 else math.inf
    MtM = torch.linalg.eigvalsh(M.T @ M).numpy()
    cond_eq12 = math.sqrt(MtM.max() / MtM.min()) if MtM.min() > 0 else math.inf
    rel_cond = abs(cond_H - cond_M) / cond_M if math.isfinite(cond_M) else math.nan
    # strict saddle: the most negative eigenvalue and the loss along its eigenvector
    lam, vecs = torch.linalg.eigh(H)
    v = vecs[:, 0]
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    t = 1e-3
    drop = float(f(w0 + t * v) - f(w0))
    quad = 0.5 * t ** 2 * float(lam[0])
    tol = rtol * scale
    saddle_ok = float(lam[0]) < 0 and drop < 0 and abs(drop - quad) <= 1e-2 * abs(quad)
    holds = err_H <= tol and err_A <= tol and err_eigs <= tol * net.num_params and saddle_ok
    lines = [f"max |H_exact - H_Eq.11| = {_fmt(err_H)} ({method}, P = {net.num_params}); "
             f"max |A_closed form - A_Eq.21| = {_fmt(err_A)}",
             f"max |eig(H) - (+-sigma(M), each d R = {net.d * net.R} times)| = {_fmt(err_eigs)}",
             f"cond(H) = {cond_H:.6g}; sigma_max/sigma_min(M) = {cond_M:.6g}; "
             f"sqrt(cond(M^T M)) = {cond_eq12:.6g}",
             f"strict saddle: lambda_min = {float(lam[0]):.4g} = -sigma_max(M) = {-sv.max():.4g}; "
             f"L(t v) - L(0) at t = 1e-3 is {drop:.4e} vs t^2 lambda_min / 2 = {quad:.4e}"]
    return CheckResult(f"Theorem 1, part 2 ({net.describe()})", holds, lines,
                       dict(err_H=err_H, err_A=err_A, err_eigs=err_eigs, cond_H=cond_H, cond_M=cond_M,
                            cond_eq12=cond_eq12, rel_cond=rel_cond, lam_min=float(lam[0]),
                            saddle_ok=saddle_ok, drop=drop, quad=quad,
                            sv=sv, eigs=eigs, H=H))


# ------------------------------------------------------------------------------------------
# Part 3 (n = 1)
# ------------------------------------------------------------------------------------------

def part3_check(net: ShortcutNetwork, data, method: str = "auto", rtol: float = 1e-10,
                H=None) -> CheckResult:
    """Theorem 1, part 3 (n = 1) at w = 0.

    1. block Toeplitz: every block below the diagonal of the exact Hessian equals block (1, 0),
       every diagonal block equals block (0, 0) (read off H itself, no formula involved);
    2. those blocks equal our closed forms A, B (activations included);
    3. for a linear network, A and B also equal the paper's Eqs. 25 and 28, written with the
       permutation P of Eq. 20.
    """
    if net.n != 1:
        raise ValueError(f"part 3 is about n = 1, got a network with n = {net.n}")
    if H is None:
        H, method = _exact_hessian_at_zero(net, data, method)
    q, R = net.d ** 2, net.R
    blk = lambda a, b: H[a * q:(a + 1) * q, b * q:(b + 1) * q]
    toe = 0.0
    for r1 in range(R):
        toe = max(toe, float((blk(r1, r1) - blk(0, 0)).abs().max()))
        for r2 in range(r1):
            toe = max(toe, float((blk(r1, r2) - blk(1, 0)).abs().max()) if R > 1 else 0.0)
            toe = max(toe, float((blk(r2, r1) - blk(1, 0).T).abs().max()))
    blocks = theorem1_blocks(net, data)
    A, B = blocks["A"], blocks["B"]
    err = float((H - eq13_assemble(A, B, R)).abs().max())
    lines = [f"block Toeplitz: max deviation of any block from its diagonal's representative = {_fmt(toe)}",
             f"max |H_exact - H_Eq.13(A, B)| = {_fmt(err)} ({method}, P = {net.num_params})"]
    errs = [toe, err]
    if net.is_linear:
        stats = data.stats() if isinstance(data, Dataset) else data
        eA = float((A - eq28_A(stats.Sxx, stats.Syx)).abs().max())
        eB = float((B - eq25_B(stats.Sxx)).abs().max())
        errs += [eA, eB]
        lines.append(f"paper's Eqs. 25/28: max |B - Eq.25| = {_fmt(eB)}, max |A - Eq.28| = {_fmt(eA)}")
    tol = rtol * max(1.0, float(H.abs().max()))
    return CheckResult(f"Theorem 1, part 3 ({net.describe()})", max(errs) <= tol, lines,
                       dict(toeplitz=toe, err=err, H=H))


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


def relu_kink_check(data, position: str = "mid", d: int | None = None, seed: int = 0,
                    pairs: int = 6) -> CheckResult:
    """ReLU breaks the hypotheses of Theorem 1: the loss is not twice differentiable at 0.

    For a 2-shortcut network with one unit and ReLU at ``position`` ("mid" or "post"), along
    random directions v the one-sided second derivatives D2+(v) (exact, from the polynomial
    restriction for t > 0) violate what any Hessian H would imply:
    for ``mid``, D2+(v) = D2+(-v) fails; for ``post``, the parallelogram law
    D2+(u+w) + D2+(u-w) = 2 D2+(u) + 2 D2+(w) fails with u, w supported on different matrices.
    Also reports how autograd's Hessian at 0 depends on the convention relu'(0) in {0, 1/2, 1}.
    ``holds`` is True when the kink is detected (i.e. the paper's claim fails).
    """
    check_choice("position", position, ["mid", "post"])
    dd = data.d if d is None else d
    rng = np.random.default_rng(seed)
    net = ShortcutNetwork(d=dd, n=2, R=1, **{position: "relu"})
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    gaps, resid, mags = [], 0.0, []
    for _ in range(pairs):
        if position == "mid":
            v = torch.as_tensor(rng.normal(size=net.num_params))
            dp, r1 = one_sided_derivatives(f, w0, v, degree=4)
            dm, r2 = one_sided_derivatives(f, w0, -v, degree=4)
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
                dz, r = one_sided_derivatives(f, w0, z, degree=4)
                vals.append(dz[2])
                resid = max(resid, r)
            gaps.append(abs(vals[0] + vals[1] - 2 * vals[2] - 2 * vals[3]))
            mags.append(max(abs(x) for x in vals))
    hs = {}
    for c in (0.0, 0.5, 1.0):
        nc = ShortcutNetwork(d=dd, n=2, R=1, relu_grad_at_zero=c, **{position: "relu"})
        hs[c] = hessian(nc, torch.zeros(nc.shape, dtype=torch.float64), data)
    spread = float(max((hs[a] - hs[b]).abs().max() for a in hs for b in hs))
    worst = float(min(gaps))
    holds = worst > 1e-6 * max(mags) and resid < 1e-8 * max(1.0, max(mags))
    law = "D2+(v) - D2+(-v)" if position == "mid" else "parallelogram defect"
    lines = [f"ReLU at {position}: over {pairs} random directions the smallest |{law}| = {worst:.3g} "
             f"(largest |D2+| = {max(mags):.3g}; polynomial-fit residual {_fmt(resid)})",
             f"autograd's Hessian at 0 changes with the convention relu'(0): max difference over "
             f"relu'(0) in {{0, 1/2, 1}} = {spread:.3g}"]
    return CheckResult(f"ReLU at {position}: loss not twice differentiable at 0", holds, lines,
                       dict(gaps=gaps, spread=spread, resid=resid, hessians=hs))


def relu_first_order_check(data, seed: int = 0, directions: int = 6) -> CheckResult:
    """n = 1 with ReLU at post: the loss is not even differentiable at 0.

    A differentiable loss has one-sided first derivatives with D1+(v) = -D1+(-v). Along
    random v, for a 1-shortcut unit with sigma_post = ReLU, the sum D1+(v) + D1+(-v) equals
    -<(Y - X), |V s|> / m, which is nonzero. ``holds`` is True when the kink is detected.
    """
    rng = np.random.default_rng(seed)
    net = ShortcutNetwork(data.d, 1, 1, post="relu")
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    sums, mags, resid = [], [], 0.0
    for _ in range(directions):
        v = torch.as_tensor(rng.normal(size=net.num_params))
        dp, r1 = one_sided_derivatives(f, w0, v, degree=2)
        dm, r2 = one_sided_derivatives(f, w0, -v, degree=2)
        sums.append(abs(dp[1] + dm[1]))
        mags.append(max(abs(dp[1]), abs(dm[1])))
        resid = max(resid, r1, r2)
    holds = min(sums) > 1e-6 * max(mags) and resid < 1e-8 * max(1.0, max(mags))
    return CheckResult("ReLU at post, n = 1: loss not differentiable at 0", holds,
                       [f"over {directions} random directions the smallest |D1+(v) + D1+(-v)| = {min(sums):.3g} "
                        f"(largest |D1+| = {max(mags):.3g}; polynomial-fit residual {_fmt(resid)})"],
                       dict(sums=sums, resid=resid))


# ------------------------------------------------------------------------------------------
# Section 4.2: Eq. 7 and Figure 4; Eqs. 15-16
# ------------------------------------------------------------------------------------------

def eq7_update(net: ShortcutNetwork, W: torch.Tensor, stats: SufficientStats, lr: float) -> torch.Tensor:
    """Eq. 7: Delta W_{r,l} = lr (W_after W^{r,l}_after)^T (Sigma_YX - W Sigma_XX) (W^{r,l}_before W_before)^T,
    written with explicit products (linear networks)."""
    if not net.is_linear:
        raise ValueError("Eq. 7 is for linear networks; got " + net.describe())
    W = net.check_weights(W).to(torch.float64)
    lr = check_float("lr", lr, low=0.0, low_open=True)
    d = net.d
    eye = torch.eye(d, dtype=torch.float64)
    unit = []
    for r in range(net.R):
        U = eye.clone()
        for l in range(net.n):
            U = W[r, l] @ U
        unit.append(eye + U if net.shortcut else U)
    Wend = eye.clone()
    for T in unit:
        Wend = T @ Wend
    G = stats.Syx - Wend @ stats.Sxx
    out = torch.zeros_like(W)
    for r in range(net.R):
        before, after = eye.clone(), eye.clone()
        for k in range(r):
            before = unit[k] @ before
        for k in range(r + 1, net.R):
            after = unit[k] @ after
        for l in range(net.n):
            bl, al = eye.clone(), eye.clone()
            for k in range(l):
                bl = W[r, k] @ bl
            for k in range(l + 1, net.n):
                al = W[r, k] @ al
            out[r, l] = lr * (after @ al).T @ G @ (bl @ before).T
    return out


def eq7_check(net: ShortcutNetwork, data, samples: int = 3, seed: int = 0, lr: float = 0.1,
              rtol: float = 1e-12) -> CheckResult:
    """Eq. 7 against autograd: Delta W = -lr grad L at random weights (Xavier and small)."""
    stats = data.stats() if isinstance(data, Dataset) else data
    worst, size = 0.0, 0.0
    for s in range(samples):
        W = initialise(net, ("xavier", "small", "orthogonal")[s % 3], seed=seed + s)
        Wg = W.clone().requires_grad_(True)
        L = loss_end_to_end(end_to_end(net, Wg), stats)
        (g,) = torch.autograd.grad(L, Wg)
        upd = eq7_update(net, W, stats, lr)
        worst = max(worst, float((upd + lr * g).abs().max()))
        size = max(size, float(upd.abs().max()))
    return CheckResult(f"Eq. 7 ({net.describe()})", worst <= rtol * max(1.0, size),
                       [f"{samples} random weight tensors: max |Delta W_Eq.7 - (-lr grad L)| = {_fmt(worst)} "
                        f"(largest |Delta W| = {size:.3g})"], dict(worst=worst, size=size))


def figure4_one_shortcut_check(data, d: int | None = None, R: int = 6, lr: float = 0.05,
                               epochs: int = 200, rtol: float = 1e-10) -> CheckResult:
    """Figure 4 (left): a zero-initialised 1-shortcut linear network and a plain linear
    network of depth R started at the identity follow the same gradient-descent path,
    V_r(t) = I + W_r(t) at every epoch (Eq. 14)."""
    stats = data.stats() if isinstance(data, Dataset) else data
    dd = stats.d if d is None else d
    res_net = ShortcutNetwork(dd, 1, R)
    plain = ShortcutNetwork(dd, 1, R, shortcut=False)
    ep = list(range(epochs + 1))
    a = gradient_descent(res_net, initialise(res_net, "zero"), stats, lr, epochs, snapshot_epochs=ep)
    b = gradient_descent(plain, initialise(plain, "identity"), stats, lr, epochs, snapshot_epochs=ep)
    eye = torch.eye(dd, dtype=torch.float64)
    gap = max(float((a.snapshots[e] + eye - b.snapshots[e]).abs().max()) for e in ep)
    move = float((a.snapshots[epochs] - a.snapshots[0]).abs().max())
    lgap = float(np.nanmax(np.abs(a.losses - b.losses)))
    return CheckResult("Figure 4, 1-shortcut = identity-initialised plain network",
                       gap <= rtol * max(1.0, move) and move > 0,
                       [f"{epochs} epochs, R = {R}: max over epochs of |I + W_r - V_r| = {_fmt(gap)} "
                        f"(the weights moved by up to {move:.3g}); max |loss difference| = {_fmt(lgap)}"],
                       dict(gap=gap, move=move, lgap=lgap, losses=(a.losses, b.losses)))


def figure4_skip_all_check(data, n: int = 3, lr: float = 0.05, epochs: int = 200, seed: int = 0,
                           rtol: float = 1e-10, **activations) -> CheckResult:
    """Figure 4 (right): one shortcut around n layers (R = 1) trained on (X, Y) follows the
    same path as the plain n-layer network trained on (X, Y - X), from the same start."""
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a Dataset (the samples are changed), got {type(data).__name__}")
    n = check_int("n", n)
    res_net = ShortcutNetwork(data.d, n, 1, **activations)
    plain = ShortcutNetwork(data.d, n, 1, shortcut=False, **activations)
    shifted = Dataset(data.X, data.Y - data.X)
    W0 = initialise(res_net, "xavier", seed=seed) * 0.3
    ep = list(range(epochs + 1))
    a = gradient_descent(res_net, W0, data, lr, epochs, snapshot_epochs=ep)
    b = gradient_descent(plain, W0, shifted, lr, epochs, snapshot_epochs=ep)
    gap = max(float((a.snapshots[e] - b.snapshots[e]).abs().max()) for e in ep)
    move = float((a.snapshots[epochs] - W0).abs().max())
    return CheckResult("Figure 4, skip-all shortcut = plain network on Y - X",
                       gap <= rtol * max(1.0, move) and move > 0,
                       [f"{epochs} epochs, n = {n}: max over epochs of |W_shortcut - W_plain| = {_fmt(gap)} "
                        f"(the weights moved by up to {move:.3g})"], dict(gap=gap, move=move))


def eq15_16_check(data, n: int = 2, R: int = 4, lr: float = 0.1, epochs: int = 2000,
                  seed: int = 0, rtol: float = 1e-4) -> CheckResult:
    """Eqs. 15-16: the least-squares optimum (from the samples, with a pseudo-inverse) against a
    2-shortcut linear network trained by gradient descent from a small start.

    Holds when both formulas match their sample-based counterparts, no epoch's loss is below
    L_min (it is a lower bound for every linear network), and the final gap is at most
    ``rtol * max(1, L_min)``."""
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a Dataset, got {type(data).__name__}")
    X, Y, m = data.X, data.Y, data.m
    Wls = torch.linalg.lstsq(X.T, Y.T).solution.T  # min ||Y - W X||: independent of Eq. 15
    Lmin_samples = float(((Y - Wls @ X) ** 2).sum() / (2 * m))
    Wstar, Lmin = optimum(data)
    net = ShortcutNetwork(data.d, n, R)
    res = gradient_descent(net, initialise(net, "small", seed=seed), data, lr, epochs)
    Wend = end_to_end(net, res.W)
    gap_L = float(res.losses[-1] - Lmin)
    e15 = float((Wstar - Wls).abs().max())
    e16 = abs(Lmin - Lmin_samples)
    eW = float((Wend - Wstar).abs().max())
    below = float(np.nanmin(res.losses) - Lmin)
    holds = e15 <= 1e-10 and e16 <= 1e-10 and below >= -1e-12 and gap_L <= rtol * max(1.0, Lmin)
    return CheckResult("Eqs. 15-16", holds,
                       [f"Eq. 15 (Syx Sxx^+) vs a least-squares solve on the samples: max |difference| = {_fmt(e15)}",
                        f"Eq. 16: L_min = {Lmin:.10f}; from the samples {Lmin_samples:.10f} (difference {_fmt(e16)})",
                        f"{n}-shortcut network, R = {R}, {epochs} GD epochs: loss - L_min = {gap_L:.2e}, "
                        f"max |W_end - W*| = {eW:.2e}; lowest loss over all epochs minus L_min = {below:.1e}"],
                       dict(e15=e15, e16=e16, gap_L=gap_L, eW=eW, losses=res.losses, Lmin=Lmin))


# ------------------------------------------------------------------------------------------
# The pairing convention
# ------------------------------------------------------------------------------------------

def relabel(data: Dataset, signs="svd_flip", order=None) -> Dataset:
    """Re-pair inputs with outputs: input coordinate i becomes ``signs[i] * X[order[i]]``.

    The same conventions as :func:`resnet_nb.data.whitened_mnist` (``order`` first, then
    ``signs``: "svd_flip" keeps ``data``'s signs, "positive_diagonal" / "negative_diagonal" make
    ``Syx[i, i]`` >= 0 / <= 0, or a vector of +-1), applied to an existing data set so that no
    new PCA is needed. Targets are unchanged.
    """
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a Dataset, got {type(data).__name__}")
    d = data.d
    X = data.X
    if order is not None:
        order = np.asarray(order)
        if sorted(order.tolist()) != list(range(d)):
            raise ValueError(f"order must be a permutation of range({d}), got {order.tolist()}")
        X = X[torch.as_tensor(order)]
    if isinstance(signs, str):
        check_choice("signs", signs, ["svd_flip", "positive_diagonal", "negative_diagonal"])
        if signs == "svd_flip":
            flip = torch.ones(d, dtype=torch.float64)
        else:
            k = min(d, data.Y.shape[0])
            diag = (data.Y[:k] * X[:k]).sum(dim=1) / data.m
            flip = torch.ones(d, dtype=torch.float64)
            sgn = torch.where(diag >= 0, 1.0, -1.0).to(torch.float64)
            flip[:k] = sgn if signs == "positive_diagonal" else -sgn
    else:
        flip = torch.as_tensor(np.asarray(signs, dtype=np.float64))
        if flip.shape != (d,) or not bool(((flip == 1) | (flip == -1)).all()):
            raise ValueError(f"signs must be a convention name or a vector of {d} entries in {{+1, -1}}, got {signs!r}")
    return Dataset(X * flip[:, None], data.Y, labels=data.labels,
                   info=dict(data.info, relabel=dict(signs=signs if isinstance(signs, str) else flip.tolist(),
                                                     order=None if order is None else order.tolist())))


def _cond_of_M(Sxx, Syx):
    sv = torch.linalg.svdvals(Sxx - Syx)
    return sv.max(dim=-1).values / sv.min(dim=-1).values


def convention_table(data: Dataset, conventions) -> list[dict]:
    """Condition numbers at 0 for several pairings of input and output coordinates.

    ``conventions``: (name, signs, order) triples for :func:`relabel`. Each row: the
    2-shortcut condition number sigma_max/sigma_min of M = Sigma_XX - Sigma_YX (Part 2: the
    same at every depth), read from the exact Hessian of one unit as well, and the paper's
    10th-percentile condition number of a 1-shortcut network with 8 units.
    """
    rows = []
    for name, signs, order in conventions:
        dd = relabel(data, signs, order)
        st = dd.stats()
        net2 = ShortcutNetwork(dd.d, 2, 1)
        eigs2 = spectrum(hessian_linear(net2, torch.zeros(net2.shape, dtype=torch.float64), st))
        net1 = ShortcutNetwork(dd.d, 1, 8)
        eigs1 = spectrum(hessian_linear(net1, torch.zeros(net1.shape, dtype=torch.float64), st))
        rows.append(dict(convention=name, cond_M=float(_cond_of_M(st.Sxx, st.Syx)),
                         cond_H_2shortcut=cond_max_min(eigs2),
                         cond10_1shortcut_R8=cond_percentile(eigs1, 10),
                         trace_Syx=float(torch.trace(st.Syx))))
    return rows


def sign_sweep(data: Dataset) -> np.ndarray:
    """sigma_max/sigma_min of M = Sigma_XX - Sigma_YX D for every sign pattern D (2^d of them).

    Flipping input coordinate i flips column i of Sigma_YX and leaves Sigma_XX's diagonal;
    for whitened data Sigma_XX = I is unchanged. Returns an array of 2^d condition numbers,
    pattern k having sign -1 at coordinate i when bit i of k is set.
    """
    d = data.d
    if d > 16:
        raise ValueError(f"sign_sweep enumerates 2^d patterns; d must be <= 16, got {d}")
    st = data.stats()
    k = torch.arange(2 ** d)
    D = 1.0 - 2.0 * ((k[:, None] >> torch.arange(d)) & 1).to(torch.float64)  # (2^d, d)
    Sxx = D[:, :, None] * st.Sxx * D[:, None, :]
    Syx = st.Syx * D[:, None, :]
    return _cond_of_M(Sxx, Syx).numpy()


def order_sweep(data: Dataset, count: int = 2000, seed: int = 0) -> np.ndarray:
    """sigma_max/sigma_min of M for ``count`` random orders of the input coordinates."""
    count = check_int("count", count)
    st = data.stats()
    g = torch.Generator().manual_seed(int(seed))
    perms = torch.stack([torch.randperm(data.d, generator=g) for _ in range(count)])
    Sxx = st.Sxx[perms[:, :, None], perms[:, None, :]]
    Syx = st.Syx[:, perms].permute(1, 0, 2)
    return _cond_of_M(Sxx, Syx).numpy()


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
    ax.imshow(Hs.numpy(), cmap="RdBu_r", vmin=-vmax, vmax=vmax, interpolation="nearest",
              extent=(0, P, P, 0))
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
    from .data import synthetic_linear, whitened_mnist

    if source == "MNIST":
        data = whitened_mnist(n_per_class=20) if mnist is None else mnist
    else:
        data = synthetic_linear(d, 200, seed=seed)
    kw = {} if act == "identity" else {position: act}
    if n == 1 and position == "mid":
        kw = {}  # a 1-shortcut unit has no mid position
    net = ShortcutNetwork(data.d, n, R, **kw)
    return net, data


def _draw_case(fig, net, data):
    fig.clf()
    ax1, ax2 = fig.subplots(1, 2)
    H, _ = _exact_hessian_at_zero(net, data, "auto")
    eigs, _ = _unitwise_spectrum(H, net)
    pred = None
    if net.n == 2:
        sv = torch.linalg.svdvals(theorem1_blocks(net, data)["M"]).numpy()
        pred = np.concatenate([sv, -sv])
    plot_hessian(H, net, ax1, title=net.describe().split("(")[0] + f"R={net.R}")
    c = cond_percentile(eigs, 10) if np.abs(eigs).max() > 0 else math.nan
    plot_spectrum(eigs, ax2, pred, title=f"P = {net.num_params}; |lambda|max/|lambda|(0.1) = {c:.3g}")
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
