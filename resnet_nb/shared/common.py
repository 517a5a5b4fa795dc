"""What the experiment chapters (book/exp_*.ipynb) share for Li et al. section 5: the architectures,
the data, the committed tables, the summaries.

Architectures (section 5 and Appendix B):

* ``"xavier"``, ``"orthogonal"``: plain networks of depth L with Xavier (Glorot & Bengio) or
  orthogonal (Saxe et al.) initialisation;
* ``"1-shortcut"``, ``"2-shortcut"``, ``"3-shortcut"``: n-shortcut networks of depth L = n R,
  zero initialised with a small perturbation (Xavier times 0.01, section 4.1).

With ``relu=True`` ReLUs sit at the *mid* positions. Plain networks then get ReLUs "at the
same positions as in 2-shortcut networks" (Appendix B): after every odd-numbered matrix, so
that a plain network of depth L is the 2-shortcut network of depth L without its shortcuts.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd
import torch

from resnet_nb.core.checks import require_choice, require_int
from resnet_nb.core.data import whitened_mnist
from resnet_nb.core.init import initialise
from resnet_nb.core.losses import optimum
from resnet_nb.core.networks import ShortcutNetwork

__all__ = [
    "ARCHS",
    "network",
    "depth_allowed",
    "depths_for",
    "initial_weights",
    "mnist",
    "mnist_optimum",
    "log_grid",
    "interpolate_on_grid",
    "committed",
    "run_spread",
    "FLAT_FRACTION",
    "lg_cond_by_depth",
]

ARCHS = ("xavier", "orthogonal", "1-shortcut", "2-shortcut", "3-shortcut")
_N = {"1-shortcut": 1, "2-shortcut": 2, "3-shortcut": 3}


def depth_allowed(arch: str, depth: int, relu: bool = False) -> bool:
    """Whether ``arch`` has a network of depth ``depth``: an n-shortcut needs n | depth."""
    require_choice("arch", arch, ARCHS)
    if arch in _N:
        return depth % _N[arch] == 0
    return depth % 2 == 0 if relu else True


def depths_for(arch: str, depths, relu: bool = False) -> list[int]:
    """The depths of a grid that ``arch`` can have."""
    return [int(L) for L in depths if depth_allowed(arch, int(L), relu)]


def network(arch: str, depth: int, relu: bool = False, d: int = 10) -> ShortcutNetwork:
    """The network of Li et al. section 5 named ``arch`` at depth ``depth`` (number of matrices)."""
    require_choice("arch", arch, ARCHS)
    depth = require_int("depth", depth)
    if not depth_allowed(arch, depth, relu):
        raise ValueError(
            f"depth must be a multiple of {_N.get(arch, 2)} for {arch}{' with ReLU' if relu else ''}, got {depth}"
        )
    mid = "relu" if relu else "identity"
    if arch in _N:
        n = _N[arch]
        return ShortcutNetwork(d, n, depth // n, shortcut=True, mid=mid)
    if relu:
        return ShortcutNetwork(d, 2, depth // 2, shortcut=False, mid=mid)
    return ShortcutNetwork(d, 1, depth, shortcut=False)


def initial_weights(arch: str, net: ShortcutNetwork, seed: int, runs: int | None = None, device=None) -> torch.Tensor:
    """Initial weights: Xavier, orthogonal, or small (Xavier times 0.01) for shortcut networks."""
    scheme = arch if arch in ("xavier", "orthogonal") else "small"
    return initialise(net, scheme, seed=seed, runs=runs, device=device)


@functools.lru_cache(maxsize=4)
def mnist(n_per_class: int | None = None):
    """Whitened MNIST, 10 principal components, one-hot targets (Appendix B), computed once.

    ``n_per_class``: whiten only the first ``n_per_class`` digits of each class (default all 500).
    """
    return whitened_mnist(k=10, n_per_class=n_per_class)


@functools.lru_cache(maxsize=2)
def mnist_optimum() -> float:
    """``L_min`` of Eq. 16 on :func:`mnist` (what every linear network can reach)."""
    return optimum(mnist())[1]


def log_grid(lo: float, hi: float, per_decade: int) -> list[float]:
    """``10**k`` for k from lg(lo) to lg(hi) in steps of 1/per_decade (rounded to 12 digits)."""
    a, b = math.log10(lo), math.log10(hi)
    k = int(round((b - a) * per_decade))
    return [float(f"{10 ** (a + i / per_decade):.12g}") for i in range(k + 1)]


def interpolate_on_grid(x, y, grid):
    """Linear interpolation of one run's ``y`` against ``x`` onto ``grid`` (NaN outside its range).

    ``x`` need not be monotone (a loss can rise for a step): the curve is made monotone by
    keeping, from the start, only the points where ``x`` reaches a new minimum.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if x.size < 2:
        return np.full(len(grid), np.nan)
    keep = x <= np.minimum.accumulate(x)
    keep &= np.r_[True, np.diff(np.minimum.accumulate(x)) < 0]
    x, y = x[keep], y[keep]
    if x.size < 2:
        return np.full(len(grid), np.nan)
    order = np.argsort(x)
    return np.interp(grid, x[order], y[order], left=np.nan, right=np.nan)


def committed(figure: str, scale: str = "paper", require_complete: bool = True):
    """The committed table of ``figure`` (``results/<figure>/<scale>/table.csv``), or a clear error.

    The claims of the experiment chapters are decided on these tables; a partial run (the
    provenance says ``complete: false``) is refused unless ``require_complete=False``.
    """
    from resnet_nb.shared import store

    table, prov = store.load_results(figure, scale)
    if table is None:
        raise FileNotFoundError(
            f"results/{figure}/{scale} is missing: run `python -m resnet_nb reproduce "
            f"{figure} --scale {scale} --out results` from the repository root"
        )
    if require_complete and prov.get("complete") is False:
        raise RuntimeError(
            f"{figure}: the committed {scale}-scale run is incomplete ({prov.get('missing_items')} items missing)"
        )
    return table


def run_spread(values_by_run) -> float:
    """Run-to-run spread: the sample standard deviation over runs (ddof = 1), NaN-safe.

    ``values_by_run``: an array (runs, points); returns the largest standard deviation over the
    points (or the single one for a 1-d array). Fewer than two finite runs give NaN.
    """
    a = np.asarray(values_by_run, dtype=float)
    if a.ndim == 1:
        a = a[:, None]
    ok = np.isfinite(a).sum(axis=0) >= 2
    if not ok.any():
        return float("nan")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(np.nanmax(np.nanstd(a[:, ok], axis=0, ddof=1)))


#: "flat" means: its range over depths is below this fraction of the growth of the plain
#: orthogonal curve over the same depths (flat at the scale of the figure)
FLAT_FRACTION = 0.05


def lg_cond_by_depth(table: pd.DataFrame, arch: str) -> pd.DataFrame:
    """Per depth: mean and run-to-run standard deviation of lg cond over the resolved runs of ``arch``."""
    g = table[table["arch"] == arch]
    if not bool(g["resolved"].astype(bool).all()):
        raise ValueError(f"{arch}: some condition numbers are beyond float64 resolution")
    lg = np.log10(g["cond"].to_numpy(dtype=float))
    return g.assign(lg=lg).groupby("depth")["lg"].agg(["mean", "std"]).sort_index()
