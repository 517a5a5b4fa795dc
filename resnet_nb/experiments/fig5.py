"""Figure 5 of Li et al.: the initial condition number ``|lambda|max / |lambda|(0.1)`` against depth.

Plain linear networks with Xavier and with orthogonal initialisation, and 1-, 2- and
3-shortcut linear networks with the small initialisation, on whitened MNIST; mean and spread
over runs. One work item is one Hessian: (architecture, depth, run).

A condition number above ``1 / (P eps)`` is not a measurement: the 10th-percentile
eigenvalue is then below the rounding floor of the eigensolver
(:func:`resnet_nb.hessians.resolution_floor`). Such rows carry ``resolved = False``; the
summary and the plot show them as lower bounds, never as numbers.
"""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from .. import hessians
from .._checks import check_choice, check_int
from . import engine
from .common import ARCHS, COLORS, LABELS, depths_for, initial_weights, mnist, network

__all__ = ["SCALES", "configurations", "run_one", "run", "summarise", "plot"]

SCALES = {
    "default": {"archs": list(ARCHS), "depths": [2, 3, 4, 6, 8, 12], "runs": 3, "seed": 0},
    "paper": {"archs": list(ARCHS), "depths": [2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96], "runs": 10,
              "seed": 0},
}


def _check_config(config):
    for key in ("archs", "depths", "runs", "seed"):
        if key not in config:
            raise ValueError(f"config must have the key {key!r}; got keys {sorted(config)}")
    for a in config["archs"]:
        check_choice("archs entry", a, ARCHS)
    for L in config["depths"]:
        check_int("depths entry", L)
    check_int("runs", config["runs"])
    check_int("seed", config["seed"], minimum=0)


def configurations(config: dict) -> list[dict]:
    """One item per (architecture, depth, run); depths an n-shortcut cannot have are skipped.

    Items come depth by depth (shallow first), and within a depth run by run, so that an
    interrupted run has every architecture up to some depth, and some runs of every
    architecture at the next, rather than some architectures at every depth.
    """
    _check_config(config)
    return [{"figure": "fig5", "arch": a, "depth": L, "run": r, "seed": int(config["seed"]) + r}
            for L in sorted(set(int(x) for x in config["depths"])) for r in range(int(config["runs"]))
            for a in config["archs"] if L in depths_for(a, [L])]


def run_one(item: dict, device: str = "cpu") -> list[dict]:
    """The Hessian spectrum of one initial point: |lambda|max, |lambda|(0.1), condition number, index."""
    net = network(item["arch"], item["depth"])
    W = initial_weights(item["arch"], net, seed=item["seed"], device=device)
    stats = mnist().stats().to(device=device)
    t0 = time.perf_counter()
    H = hessians.hessian_linear(net, W, stats)
    t1 = time.perf_counter()
    eigs = hessians.spectrum(H)
    t2 = time.perf_counter()
    del H
    a = np.abs(eigs)
    floor = hessians.resolution_floor(eigs)
    p10 = float(np.percentile(a, 10))
    return [{"arch": item["arch"], "depth": item["depth"], "run": item["run"], "seed": item["seed"],
             "P": net.num_params, "lam_max": float(a.max()), "lam_p10": p10,
             "cond": float(a.max() / p10) if p10 > 0 else float("inf"), "floor": floor,
             "resolved": bool(p10 > floor), "index": hessians.index(eigs),
             "hessian_s": round(t1 - t0, 4), "eigvalsh_s": round(t2 - t1, 4)}]


def run(config=None, device: str = "cpu", progress: bool = True, store=None) -> pd.DataFrame:
    """Run ``config`` (default scale if None) through the engine; rows as in :func:`run_one`."""
    config = SCALES["default"] if config is None else config
    return engine.run_items(__import__(__name__, fromlist=["_"]), config, store_dir=store, device=device,
                            progress=progress)


def summarise(table: pd.DataFrame) -> pd.DataFrame:
    """Per (architecture, depth): mean and std of lg(cond) over the resolved runs, and how many
    runs were beyond float64 resolution (their condition number is only a lower bound)."""
    out = []
    for (arch, depth), g in table.groupby(["arch", "depth"], sort=False):
        res = g[g["resolved"].astype(bool)]
        lg = np.log10(res["cond"].to_numpy(dtype=float))
        bound = float(np.log10(1.0 / (g["P"].iloc[0] * np.finfo(np.float64).eps)))
        out.append({"arch": arch, "depth": int(depth), "runs": len(g), "unresolved": int(len(g) - len(res)),
                    "lg_cond_mean": float(lg.mean()) if lg.size else np.nan,
                    "lg_cond_std": float(lg.std(ddof=1)) if lg.size > 1 else np.nan,
                    "lg_resolution_limit": bound})
    return pd.DataFrame(out).sort_values(["arch", "depth"], key=lambda s: s.map(
        {a: i for i, a in enumerate(ARCHS)}) if s.name == "arch" else s).reset_index(drop=True)


def plot(table: pd.DataFrame, ax=None, archs=None):
    """lg(condition number) against lg(depth), mean +- std over resolved runs.

    Depths where some run was beyond float64 resolution are drawn as open triangles at the
    resolution limit ``1/(P eps)`` (a lower bound), not as numbers.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(5.5, 4))
    s = summarise(table)
    archs = [a for a in ARCHS if a in set(s["arch"])] if archs is None else archs
    flagged = False
    for arch in archs:
        g = s[(s["arch"] == arch) & (s["unresolved"] == 0)]
        ax.errorbar(np.log10(g["depth"]), g["lg_cond_mean"], yerr=g["lg_cond_std"].fillna(0), marker="o",
                    ms=4, capsize=2, color=COLORS[arch], label=LABELS[arch])
        u = s[(s["arch"] == arch) & (s["unresolved"] > 0)]
        if len(u):
            flagged = True
            ax.plot(np.log10(u["depth"]), u["lg_resolution_limit"], "^", mfc="none", color=COLORS[arch])
    if flagged:
        ax.plot([], [], "^", mfc="none", color="gray", label=r"$\geq 1/(P\,\epsilon)$: beyond float64")
    ax.set_xlabel("lg(depth)")
    ax.set_ylabel(r"lg($|\lambda|_{\max} / |\lambda|_{(0.1)}$)")
    ax.set_title("Initial condition number (Fig. 5)")
    ax.legend(fontsize=8)
    return ax
