"""Figure 8 of Li et al.: the index (fraction of negative eigenvalues) along training, depth 16.

Left: the index against lg(loss - L_min) for orthogonal and 2-shortcut linear networks, each
run interpolated onto a common loss grid and averaged. Right: the gradient norm and the index
against the epoch in one 2-shortcut run. Both come from the runs of :mod:`.fig6`, whose
records this figure shares (the command line computes them once).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import engine, fig6
from .common import COLORS, LABELS

__all__ = ["SCALES", "SHARES_RECORDS_WITH", "configurations", "run_one", "run", "plot"]

SHARES_RECORDS_WITH = "fig6"
SCALES = fig6.SCALES


def configurations(config: dict) -> list[dict]:
    """The items of Figure 6 (the same runs)."""
    return fig6.configurations(config)


def run_one(item: dict, device: str = "cpu") -> list[dict]:
    """See :func:`resnet_nb.experiments.fig6.run_one`."""
    return fig6.run_one(item, device)


def run(config=None, device: str = "cpu", progress: bool = True, store=None) -> pd.DataFrame:
    """Run ``config`` (default scale if None) through the engine."""
    config = SCALES["default"] if config is None else config
    return engine.run_items(__import__(__name__, fromlist=["_"]), config, store_dir=store, device=device,
                            progress=progress)


def plot(table: pd.DataFrame, ax=None, run_index: int = 0):
    """Left: index against the loss. Right: gradient norm and index along one 2-shortcut run."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(1, 2, figsize=(10, 4))
    left, right = ax
    relu = bool(table["relu"].iloc[0])
    c = fig6.curves(table, "index", relu)
    for arch in fig6.ARCHS:
        g = c[c["arch"] == arch] if len(c) else c
        if len(g):
            left.plot(g["x"], g["index"], color=COLORS[arch], label=LABELS[arch])
    gap = None if relu else fig6.first_step_gap(table)
    if gap is not None:
        left.axvspan(*gap, color="0.85", zorder=0, label="orthogonal: interpolated (epochs 0-1)")
    left.set_xlabel("lg(loss)" if relu else r"lg(loss $-$ $\ell_{\min}$)")
    left.set_ylabel("index (fraction of negative eigenvalues)")
    left.set_title("Index along training (Fig. 8, left)")
    left.legend(fontsize=8)
    one = table[(table["arch"] == "2-shortcut") & (table["run"] == run_index)]
    traj = one[one["kind"] == "trajectory"].sort_values("epoch")
    hess = one[one["kind"] == "hessian"].sort_values("epoch")
    right.plot(traj["epoch"], traj["grad_norm"], color="tab:blue", label="gradient norm")
    right.set_xscale("symlog", linthresh=1)
    right.set_xlabel("epoch")
    right.set_ylabel("gradient norm", color="tab:blue")
    twin = right.twinx()
    twin.plot(hess["epoch"], hess["index"], "o-", ms=3, color="tab:red", label="index")
    twin.set_ylabel("index", color="tab:red")
    right.set_title("One 2-shortcut run (Fig. 8, right)")
    if len(traj):
        peak = traj.loc[traj["grad_norm"].idxmax(), "epoch"]
        right.axvline(peak, color="gray", lw=0.8, ls=":")
    return ax


# ------------------------------------------------------------------------------------------
# Claims (decided on the committed paper-scale table of Figure 6)
# ------------------------------------------------------------------------------------------
from .. import ledger  # noqa: E402
from .common import committed  # noqa: E402


@ledger.claim(
    "li-fig8-smaller-index", source="Li et al., Section 5.2, Figure 8 left",
    statement=r"At depth 16 (linear, learning rate 0.1, 5 runs each) the index of 2-shortcut networks is below "
              r"that of orthogonal plain networks at every loss both pass through (run means).",
    verdict="reproduced", falsifier="the orthogonal networks have the smaller index (the ordering reversed)",
    where=["tests/test_experiments_dynamics.py", "book/exp_dynamics.ipynb"])
def check_smaller_index(falsify: bool = False) -> ledger.Check:
    t = committed("fig6")
    small, large = ("orthogonal", "2-shortcut") if falsify else ("2-shortcut", "orthogonal")
    return fig6.ordering(t, "index", False, small, large, "index")


def peak_in_drop(table: pd.DataFrame, arch: str = "2-shortcut") -> ledger.Check:
    """Epochs between each run's gradient-norm peak and the interval (between two recorded Hessians)
    in which its index fell the most; 0 when the peak lies inside that interval."""
    worst, rows = 0, []
    for run, one in table[table["arch"] == arch].groupby("run"):
        traj = one[one["kind"] == "trajectory"].sort_values("epoch")
        hess = one[one["kind"] == "hessian"].sort_values("epoch")
        peak = int(traj.loc[traj["grad_norm"].idxmax(), "epoch"])
        e, ix = hess["epoch"].to_numpy(), hess["index"].to_numpy(dtype=float)
        k = int(np.argmin(np.diff(ix)))
        a, b = int(e[k]), int(e[k + 1])
        worst = max(worst, 0 if a <= peak <= b else min(abs(peak - a), abs(peak - b)))
        rows.append(dict(run=int(run), peak=peak, drop_from=a, drop_to=b, drop=float(ix[k] - ix[k + 1])))
    return ledger.Check(
        f"{arch}: gradient peak inside the steepest fall of the index", "largest distance (epochs) from the "
        "gradient peak to that interval, over runs", worst, 0,
        "exact: the peak lies between the two recorded Hessians that bracket the steepest fall",
        values=dict(rows=rows))


@ledger.claim(
    "li-fig8-gradient-peak-at-index-drop", source="Li et al., Section 5.2, Figure 8 right",
    statement=r"Along each 2-shortcut run (depth 16, linear, 5 runs) the gradient norm peaks inside the interval "
              r"between two recorded Hessians in which the index falls the most.",
    verdict="reproduced",
    falsifier="the same coincidence in the orthogonal runs (the index falls with the gradient peak there too)",
    where=["tests/test_experiments_dynamics.py", "book/exp_dynamics.ipynb"])
def check_peak_at_drop(falsify: bool = False) -> ledger.Check:
    return peak_in_drop(committed("fig6"), "orthogonal" if falsify else "2-shortcut")
