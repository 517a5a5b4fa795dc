"""Figure 6 of Li et al.: |lambda|max and the 10th percentile of |lambda| along training (linear, depth 16).

Orthogonally initialised plain networks and small-initialised 2-shortcut networks train by
full-batch gradient descent; at about ``points`` log-spaced epochs the exact Hessian is
computed (the Kronecker form :func:`resnet_nb.hessians.hessian_linear` for linear networks,
:func:`resnet_nb.experiments.relu_hessian.hessian_mid_relu` with ReLUs) and summarised by
``|lambda|max``, ``|lambda|(0.1)`` and the index. Each run's curves are interpolated onto a
common grid of lg(loss - L_min) (Figure 6) or lg(loss) (Figure 7, ReLU) and averaged.

A 10th percentile below the eigensolver's rounding floor ``P eps |lambda|max`` is not a
measurement: such points carry ``resolved = False`` and are left out of the curves.

One work item is one run (architecture, run); it returns rows of two kinds: ``"hessian"``
(one per recorded epoch) and ``"trajectory"`` (loss and gradient norm at every epoch, for
Figure 8, right).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import hessians
from .._checks import check_choice, check_float, check_int
from ..train import gradient_descent
from . import engine
from .common import COLORS, LABELS, initial_weights, interpolate_on_grid, mnist, mnist_optimum, network
from .fig3 import record_epochs
from .relu_hessian import hessian_mid_relu

__all__ = ["SCALES", "STABLE_SCALES", "ARCHS", "configurations", "run_one", "run", "curves", "plot",
           "reproduce_stable"]

ARCHS = ("orthogonal", "2-shortcut")
SCALES = {
    "default": {"archs": list(ARCHS), "depth": 6, "relu": False, "lr": 0.1, "epochs": 1000, "points": 6,
                "runs": 2, "seed": 0, "n_per_class": None},
    "paper": {"archs": list(ARCHS), "depth": 16, "relu": False, "lr": 0.1, "epochs": 1000, "points": 30,
              "runs": 5, "seed": 0, "n_per_class": None},
}
#: the same runs at a learning rate at which the first step is stable for both architectures
#: (eta lambda_max(0) < 2 at depth 16), trained ten times as many epochs so that they cover the
#: stretch of path that 1,000 epochs at 0.1 cover (the book's addition, referee item L3)
STABLE_SCALES = {"default": dict(SCALES["default"], lr=0.01, epochs=10000),
                 "paper": dict(SCALES["paper"], lr=0.01, epochs=10000)}


def configurations(config: dict, figure: str = "fig6") -> list[dict]:
    """One item per (run, architecture)."""
    for key in ("archs", "depth", "relu", "lr", "epochs", "points", "runs", "seed"):
        if key not in config:
            raise ValueError(f"config must have the key {key!r}; got keys {sorted(config)}")
    for a in config["archs"]:
        check_choice("archs entry", a, ARCHS)
    if check_int("depth", config["depth"]) % 2:
        raise ValueError(f"depth must be even (2-shortcut networks), got {config['depth']}")
    check_float("lr", config["lr"], low=0.0, low_open=True)
    items = []
    # run-major order: an interrupted run still has every architecture for its first runs
    for r in range(check_int("runs", config["runs"])):
        for a in config["archs"]:
            item = {"figure": figure, "arch": a, "depth": int(config["depth"]), "relu": bool(config["relu"]),
                    "lr": float(config["lr"]), "epochs": check_int("epochs", config["epochs"]),
                    "points": check_int("points", config["points"], minimum=2), "run": r,
                    "seed": check_int("seed", config["seed"], minimum=0) + r}
            if config.get("n_per_class") is not None:
                item["n_per_class"] = int(config["n_per_class"])
            items.append(item)
    return items


def run_one(item: dict, device: str = "cpu") -> list[dict]:
    """Train one run; the Hessian spectrum at the recorded epochs and the full trajectory."""
    net = network(item["arch"], item["depth"], relu=item["relu"])
    W0 = initial_weights(item["arch"], net, seed=item["seed"], device=device)
    data = mnist(item.get("n_per_class")).to(device=device)
    epochs = record_epochs(item["epochs"], item["points"])
    res = gradient_descent(net, W0, data, lr=item["lr"], epochs=item["epochs"], snapshot_epochs=epochs)
    base = {"arch": item["arch"], "depth": item["depth"], "relu": item["relu"], "run": item["run"]}
    rows = [dict(base, kind="trajectory", epoch=e, loss=float(res.losses[e]), grad_norm=float(res.grad_norms[e]))
            for e in range(item["epochs"] + 1)]
    stats = data.stats()
    for e in epochs:
        if not np.isfinite(res.losses[e]):
            break
        W = res.snapshots[e]
        H = hessian_mid_relu(net, W, data) if item["relu"] else hessians.hessian_linear(net, W, stats)
        eigs = hessians.spectrum(H)
        del H
        a = np.abs(eigs)
        p10 = float(np.percentile(a, 10))
        floor = hessians.resolution_floor(eigs)
        rows.append(dict(base, kind="hessian", epoch=int(e), loss=float(res.losses[e]),
                         grad_norm=float(res.grad_norms[e]), lam_max=float(a.max()), lam_p10=p10, floor=floor,
                         resolved=bool(p10 > floor), index=hessians.index(eigs)))
    return rows


def run(config=None, device: str = "cpu", progress: bool = True, store=None) -> pd.DataFrame:
    """Run ``config`` (default scale if None) through the engine."""
    config = SCALES["default"] if config is None else config
    return engine.run_items(__import__(__name__, fromlist=["_"]), config, store_dir=store, device=device,
                            progress=progress)


def curves(table: pd.DataFrame, column: str, relu: bool, grid_points: int = 50) -> pd.DataFrame:
    """``column`` of the Hessian rows (``lg_lam_max``, ``lg_lam_p10`` or ``index``) per architecture,
    each run interpolated onto a common grid of the x-axis and averaged over runs.

    The x-axis is lg(loss - L_min) for linear networks, lg(loss) with ReLU. The grid spans the
    losses that every run of the architecture passed through.
    """
    t = table[(table["kind"] == "hessian") & (table["relu"] == relu)].copy()
    loss = t["loss"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.log10(loss) if relu else np.log10(loss - mnist_optimum())
        t["x"] = np.where(np.isfinite(x), x, np.nan)
        t["lg_lam_max"] = np.log10(t["lam_max"].astype(float))
        t["lg_lam_p10"] = np.where(t["resolved"].astype(bool), np.log10(t["lam_p10"].astype(float)), np.nan)
    out = []
    for arch, g in t.groupby("arch", sort=False):
        runs = [r for _, r in g.groupby("run") if np.isfinite(r["x"]).sum() >= 2]
        if not runs:
            continue
        lo = max(np.nanmin(r["x"]) for r in runs)
        hi = min(np.nanmax(r["x"]) for r in runs)
        if not hi > lo:
            continue
        grid = np.linspace(lo, hi, grid_points)
        ys = np.array([interpolate_on_grid(r["x"], r[column], grid) for r in runs])
        with np.errstate(invalid="ignore"):
            mean = np.nanmean(np.where(np.isfinite(ys), ys, np.nan), axis=0) if ys.size else grid * np.nan
        for xv, m in zip(grid, mean):
            out.append({"arch": arch, "x": float(xv), column: float(m)})
    return pd.DataFrame(out)


def plot(table: pd.DataFrame, ax=None, relu: bool | None = None):
    """Two panels: lg|lambda|max and lg|lambda|(0.1) against lg(loss - L_min) (or lg(loss) with ReLU)."""
    import matplotlib.pyplot as plt

    relu = bool(table["relu"].iloc[0]) if relu is None else relu
    if ax is None:
        _, ax = plt.subplots(1, 2, figsize=(10, 4))
    for a, column, title in zip(ax, ("lg_lam_max", "lg_lam_p10"), ("Maximum", "10th percentile")):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns: nothing to average
            c = curves(table, column, relu)
        for arch in ARCHS:
            g = c[c["arch"] == arch] if len(c) else c
            if len(g):
                a.plot(g["x"], g[column], color=COLORS[arch], label=LABELS[arch] + ("-ReLU" if relu else ""))
        a.set_xlabel("lg(loss)" if relu else r"lg(loss $-$ $L_{\min}$)")
        a.set_ylabel(r"lg($|\lambda|$)")
        a.set_title(f"{title} of $|\\lambda|$ ({'Fig. 7' if relu else 'Fig. 6'})")
        a.legend(fontsize=8)
    return ax


def reproduce_stable(scale: str = "paper", out=None, compute: bool = True, progress: bool = True):
    """Run (or resume) :data:`STABLE_SCALES` ``[scale]`` into ``<out>/fig6_stable/<scale>/``
    (records, ``table.csv``, ``provenance.json``), as the command line does for a figure.

    ``python -c "from resnet_nb.experiments import fig6; fig6.reproduce_stable()"``;
    ``compute=False`` collects the finished items only. Returns the table.
    """
    import sys
    import time

    config = STABLE_SCALES[scale]
    folder = engine.results_dir("fig6_stable", scale, out)
    t0 = time.perf_counter()
    table = engine.run_items(sys.modules[__name__], config, store_dir=folder / "records", progress=progress,
                             compute=compute)
    engine.write_summary(folder, "fig6_stable", scale, config, table, "cpu", time.perf_counter() - t0,
                         folder / "records")
    return table
