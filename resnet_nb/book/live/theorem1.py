"""The live explorer of book/theorem1.ipynb: the Hessian at zero of linear n-shortcut networks.

The page (``scripts/site_static/live-theorem1-hessian.js``) computes, for n in {1, 2, 3}, R units
and a data set, the Hessian at w = 0 (Theorem 1 of Li et al.), its eigenvalues, cond10 and
cond10 against depth. This module exports what the page needs and the package's outputs on
chosen inputs:

* data: whitened MNIST's moments at d = 10 (``Sxx``, ``Syx`` of all 5,000 digits), the
  synthetic set's target map, and for n = 1 on MNIST beyond the sizes the page diagonalises
  (R > ``DENSE_R_MNIST``) the package's spectra (``QUANTILES`` quantiles each) and cond10;
* cases: the exact Hessian by autograd where it is small (on d samples that have the data's
  moments: :func:`samples_with_moments`), the Kronecker Hessian of
  :func:`resnet_nb.core.hessians.hessian_linear` at medium size, and Theorem 1's closed form
  (each unit's spectrum, repeated R times) for 2-shortcut networks of 32 units, zero for n = 3.

The synthetic set: inputs x ~ N(0, C) with C[i, j] = rho^|i - j| (d = 3; the reader sets rho)
and targets y = T x, so that Sxx = C and Syx = T C, with T fixed (:data:`SYNTH_T`), not
symmetric, so that no block is symmetric by accident.
"""

from __future__ import annotations

import numpy as np
import torch

from resnet_nb.core.checks import require_choice, require_float, require_int
from resnet_nb.core.data import Dataset, SufficientStats
from resnet_nb.core.hessians import (
    cond_percentile,
    eq11_assemble,
    hessian,
    hessian_linear,
    spectrum,
    theorem1_blocks,
)
from resnet_nb.core.networks import ShortcutNetwork
from resnet_nb.shared.common import mnist

EXPLORERS = ("theorem1-hessian",)
NAME = EXPLORERS[0]

#: the synthetic set's target map y = T x (d = 3)
SYNTH_T = ((0.5, 0.4, 0.0), (-0.3, 0.2, 0.5), (0.2, -0.4, -0.3))
#: the depths (units R) of the page's cond10-against-depth curve
R_GRID = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)
#: at d = 10 the page diagonalises 1-shortcut Hessians up to this many units (P = 100 R)
DENSE_R_MNIST = 3
#: quantiles kept of each precomputed spectrum (MNIST, n = 1, R > DENSE_R_MNIST)
QUANTILES = 201
#: relative tolerance of every float64 comparison (the issue's bound)
RTOL = 1e-9


def synthetic_moments(rho: float) -> SufficientStats:
    """Moments of the synthetic set: ``Sxx[i, j] = rho^|i-j|`` (d = 3), ``Syx = T Sxx``,
    ``tr Syy = tr(T Sxx T^T)``; ``rho`` in (-1, 1)."""
    rho = require_float("rho", rho, low=-1.0, high=1.0, low_open=True, high_open=True)
    d = len(SYNTH_T)
    idx = np.arange(d)
    Sxx = torch.tensor(rho ** np.abs(idx[:, None] - idx[None, :]).astype(np.float64), dtype=torch.float64)
    T = torch.tensor(SYNTH_T, dtype=torch.float64)
    return SufficientStats(Sxx, T @ Sxx, float(torch.trace(T @ Sxx @ T.T)), m=d)


def samples_with_moments(st: SufficientStats) -> Dataset:
    """d samples with the moments ``st`` (for autograd Hessians, which need samples; the loss of
    a linear network, hence its Hessian, depends on the data only through Sxx and Syx):
    ``X = sqrt(d) chol(Sxx)``, ``Y = Syx Sxx^-1 X``."""
    d = st.d
    L = torch.linalg.cholesky(st.Sxx)
    X = np.sqrt(d) * L
    return Dataset(X, st.Syx @ torch.cholesky_solve(X, L))


def mnist_moments() -> SufficientStats:
    """Whitened MNIST's moments at d = 10 (all 5,000 digits), as the chapter uses them."""
    return mnist().stats()


def moments(data: str, rho: float = 0.5) -> SufficientStats:
    require_choice("data", data, ("synthetic", "mnist"))
    return mnist_moments() if data == "mnist" else synthetic_moments(rho)


def hessian_zero(n: int, R: int, data: str, rho: float = 0.5, method: str = "kronecker") -> torch.Tensor:
    """The exact Hessian at 0 of the linear n-shortcut network of R units: by autograd
    (``method="autograd"``, on samples with the data's moments) or by the Kronecker route."""
    require_choice("method", method, ("autograd", "kronecker"))
    st = moments(data, rho)
    net = ShortcutNetwork(st.d, require_int("n", n), require_int("R", R))
    W0 = torch.zeros(net.shape, dtype=torch.float64)
    if method == "kronecker":
        return hessian_linear(net, W0, st)
    return hessian(net, W0, samples_with_moments(st))


def closed_form_spectrum(n: int, R: int, st: SufficientStats) -> np.ndarray:
    """Eigenvalues at 0 from Theorem 1's structure, for sizes where the dense Hessian is large:
    n = 2, one unit's block of Eq. 11 diagonalised, its spectrum repeated R times; n >= 3, zeros."""
    d = st.d
    if n >= 3:
        return np.zeros(R * n * d * d)
    if n != 2:
        raise ValueError(f"the closed-form spectrum covers n = 2 and n >= 3, got n = {n}")
    A = theorem1_blocks(ShortcutNetwork(d, 2, 1), st)["A"]
    return np.sort(np.tile(spectrum(eq11_assemble(A, 1)), R))


def _outputs(n: int, R: int, st: SufficientStats, eigs: np.ndarray, H=None) -> dict:
    out = {"eigs": eigs, "cond10": cond_percentile(eigs, 10) if np.abs(eigs).max() > 0 else float("inf")}
    if n <= 2:
        blocks = theorem1_blocks(ShortcutNetwork(st.d, n, 1), st)
        out.update({k: v for k, v in blocks.items() if k in ("A", "B", "M")})
    if H is not None:
        out["H"] = H
    return out


def _case(label: str, inp: dict, out: dict) -> dict:
    return {"label": label, "input": inp, "output": out, "rtol": RTOL}


def depth_curve(n: int, st: SufficientStats, Rs=R_GRID) -> list[float]:
    """cond10 of the exact (Kronecker) Hessian at 0 for each R in ``Rs``."""
    out = []
    for R in Rs:
        net = ShortcutNetwork(st.d, n, R)
        H = hessian_linear(net, torch.zeros(net.shape, dtype=torch.float64), st)
        out.append(cond_percentile(spectrum(H), 10))
    return out


def mnist_n1_precomputed(Rs=None) -> dict:
    """The package's spectra of 1-shortcut Hessians on MNIST beyond the page's dense limit:
    ``{"R": [...], "cond10": [...], "quantiles": [[QUANTILES values], ...]}``."""
    Rs = [R for R in R_GRID if R > DENSE_R_MNIST] if Rs is None else list(Rs)
    st = mnist_moments()
    rows = {"R": [], "cond10": [], "quantiles": []}
    q = np.linspace(0.0, 1.0, QUANTILES)
    for R in Rs:
        net = ShortcutNetwork(st.d, 1, R)
        eigs = spectrum(hessian_linear(net, torch.zeros(net.shape, dtype=torch.float64), st))
        rows["R"].append(R)
        rows["cond10"].append(cond_percentile(eigs, 10))
        rows["quantiles"].append(np.quantile(eigs, q))
    return rows


def export_data() -> dict:
    st = mnist_moments()
    return {
        NAME: {
            "mnist": {"Sxx": st.Sxx, "Syx": st.Syx},
            "synthetic": {"T": SYNTH_T},
            "R_grid": R_GRID,
            "dense_R_mnist": DENSE_R_MNIST,
            "mnist_n1": mnist_n1_precomputed(),
        }
    }


def export_cases() -> dict:
    cases = []
    # 1. dense autograd Hessians, synthetic data (three correlations), every n, one and two units;
    #    the matrix itself where it is not zero and has two units (the site keeps this file)
    for rho in (0.5, -0.7, 0.0):
        for n in (1, 2, 3):
            for R in (1, 2):
                st = synthetic_moments(rho)
                H = hessian_zero(n, R, "synthetic", rho, method="autograd")
                dense = R == 2 and n <= 2
                inp = {"n": n, "R": R, "data": "synthetic", "rho": rho, "dense": dense}
                out = _outputs(n, R, st, spectrum(H), H if dense else None)
                cases.append(_case(f"autograd, synthetic rho={rho}, n={n}, R={R}", inp, out))
    # 2. autograd on MNIST's moments, one unit of n = 1 and n = 2
    mn = mnist_moments()
    for n in (1, 2):
        H = hessian_zero(n, 1, "mnist", method="autograd")
        inp = {"n": n, "R": 1, "data": "mnist"}
        cases.append(_case(f"autograd, MNIST, n={n}, R=1", inp, _outputs(n, 1, mn, spectrum(H))))
    # 3. Kronecker Hessians at the page's largest dense sizes, with the depth curve for n = 1
    for n, R, data in ((1, 32, "synthetic"), (1, DENSE_R_MNIST, "mnist"), (2, 2, "mnist")):
        st = moments(data)
        out = _outputs(n, R, st, spectrum(hessian_zero(n, R, data)))
        if data == "synthetic":
            out["curve_cond10"] = depth_curve(n, st)
        cases.append(_case(f"Kronecker, {data}, n={n}, R={R}", {"n": n, "R": R, "data": data, "rho": 0.5}, out))
    # 4. Theorem 1's closed form where the dense Hessian is large (32 units)
    # (n = 3 at 8 units: its 2,400 zeros say what 9,600 would)
    for n, R, data in ((2, 32, "mnist"), (3, 8, "mnist"), (2, 32, "synthetic")):
        st = moments(data)
        out = _outputs(n, R, st, closed_form_spectrum(n, R, st))
        cases.append(_case(f"closed form, {data}, n={n}, R={R}", {"n": n, "R": R, "data": data, "rho": 0.5}, out))
    # the blocks once per data set and n: the site keeps this file, and MNIST's blocks are 10^4 numbers
    seen = set()
    for c in cases:
        key = (c["input"]["data"], c["input"]["n"])
        if key in seen:
            for k in ("A", "B", "M"):
                c["output"].pop(k, None)
        seen.add(key)
    return {NAME: cases}
