"""Figure 9 of Li et al.: the best learning rate's final loss and the best learning rate, against depth.

For each architecture and depth, every run of a log grid of learning rates trains for
``epochs`` full-batch steps on whitened MNIST (linear networks, on sufficient statistics).
All runs x learning rates of one (architecture, depth) are one work item and one batched
tensor computation. The final losses are averaged over runs for each learning rate; the best
learning rate minimises that average; the figure shows lg(average final loss - L_min) and
lg(best learning rate).

A learning rate with a diverged run (loss non-finite or above ``blowup``) is not eligible.
Like the paper (caption of Fig. 9), when the averages of all eligible learning rates agree
to a relative ``flat_tol``, the best learning rate is not defined and is reported as NaN
(``lr_unstable = True``).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from .._checks import check_choice, check_float, check_int
from ..train import gradient_descent
from . import engine
from .common import ARCHS, COLORS, LABELS, depths_for, initial_weights, log_grid, mnist, mnist_optimum, network

__all__ = ["SCALES", "configurations", "run_one", "run", "summarise", "plot", "RELU"]

RELU = False
SCALES = {
    "default": {"archs": list(ARCHS), "depths": [2, 3, 4, 6, 8, 12, 16], "lrs": log_grid(1e-3, 10, 2),
                "runs": 3, "epochs": 1000, "seed": 0},
    "paper": {"archs": list(ARCHS), "depths": [2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96],
              "lrs": log_grid(1e-3, 10, 2), "runs": 10, "epochs": 1000, "seed": 0},
}
FLAT_TOL = 1e-3
#: architectures outside Li et al.'s five that the book adds (Figure 10's He-scaled plain ReLU net)
EXTRA_ARCHS = ("he",)
EXTRA_LABELS = {"he": "He (plain, gain sqrt 2)"}
EXTRA_COLORS = {"he": "tab:brown"}


def _label(arch):
    return LABELS.get(arch, EXTRA_LABELS.get(arch, arch))


def _color(arch):
    return COLORS.get(arch, EXTRA_COLORS.get(arch, "gray"))


def _archs_in(archs):
    present = set(archs)
    return [a for a in ARCHS + EXTRA_ARCHS if a in present]
#: below this (times max(1, L_min)) a difference of two float64 losses is rounding, not a gap:
#: the loss is a sum of terms of size ~1 computed with relative error ~eps each
ROUNDING_FLOOR = 64 * float(np.finfo(np.float64).eps)


def _check_config(config, archs_allowed=ARCHS):
    for key in ("archs", "depths", "lrs", "runs", "epochs", "seed"):
        if key not in config:
            raise ValueError(f"config must have the key {key!r}; got keys {sorted(config)}")
    for a in config["archs"]:
        check_choice("archs entry", a, archs_allowed)
    for L in config["depths"]:
        check_int("depths entry", L)
    for lr in config["lrs"]:
        check_float("lrs entry", lr, low=0.0, low_open=True)
    check_int("runs", config["runs"])
    check_int("epochs", config["epochs"])
    check_int("seed", config["seed"], minimum=0)


def configurations(config: dict, figure: str = "fig9", relu: bool = False, archs_allowed=ARCHS) -> list[dict]:
    """One item per (architecture, depth): all runs and learning rates together.

    Shallow depths come first for every architecture, so an interrupted run covers every
    architecture up to some depth."""
    _check_config(config, archs_allowed)
    return [{"figure": figure, "arch": a, "depth": L, "relu": relu, "lrs": [float(x) for x in config["lrs"]],
             "runs": int(config["runs"]), "epochs": int(config["epochs"]), "seed": int(config["seed"])}
            for L in sorted(set(int(x) for x in config["depths"])) for a in config["archs"]
            if L in depths_for(a, [L], relu)]


def train_grid(item: dict, device: str = "cpu"):
    """Train every run x learning rate of ``item`` at once; returns the :class:`TrainResult`.

    The runs share their initial points across learning rates (the same ``runs`` draws from
    ``seed``), so learning rates are compared on equal terms.
    """
    net = network(item["arch"], item["depth"], relu=item["relu"])
    runs = item["runs"]
    lrs = torch.tensor(item["lrs"], dtype=torch.float64, device=device)
    W0 = initial_weights(item["arch"], net, seed=item["seed"], runs=runs, device=device)
    W0 = W0[:, None].expand(runs, len(lrs), *net.shape)
    data = mnist(item.get("n_per_class")).to(device=device)
    return gradient_descent(net, W0, data, lr=lrs, epochs=item["epochs"])


def run_one(item: dict, device: str = "cpu") -> list[dict]:
    """Final loss of every run at every learning rate of one (architecture, depth)."""
    res = train_grid(item, device)
    final = res.losses[..., -1]
    rows = []
    for r in range(item["runs"]):
        for j, lr in enumerate(item["lrs"]):
            diverged = bool(res.diverged[r, j])
            rows.append({"arch": item["arch"], "depth": item["depth"], "relu": item["relu"], "run": r,
                         "lr": lr, "epochs": item["epochs"], "diverged": diverged,
                         "final_loss": float("nan") if diverged else float(final[r, j])})
    return rows


def run(config=None, device: str = "cpu", progress: bool = True, store=None) -> pd.DataFrame:
    """Run ``config`` (default scale if None) through the engine; rows as in :func:`run_one`."""
    config = SCALES["default"] if config is None else config
    return engine.run_items(__import__(__name__, fromlist=["_"]), config, store_dir=store, device=device,
                            progress=progress)


def summarise(table: pd.DataFrame, loss_opt: float | None = None, flat_tol: float = FLAT_TOL) -> pd.DataFrame:
    """Per (architecture, depth): best learning rate and its average final loss.

    ``loss_opt``: subtracted from the loss (L_min of Eq. 16 for linear networks; pass 0 for
    ReLU networks, whose optimum is unknown). Columns: ``best_lr`` (NaN when every eligible
    learning rate gives the same average to ``flat_tol``, or none is eligible), ``final_loss``,
    ``lg_excess`` = lg(final_loss - loss_opt) (raised to the rounding floor, with
    ``at_rounding_floor = True``, when the gap is below what float64 resolves),
    ``lr_unstable``, ``eligible_lrs``, ``lr_at_grid_edge`` (the best rate is the only eligible
    one and lies at an end of the grid: the true best rate may lie outside the grid).
    """
    if loss_opt is None:
        loss_opt = mnist_optimum()
    out = []
    for (arch, depth), g in table.groupby(["arch", "depth"], sort=False):
        per_lr = g.groupby("lr").agg(mean=("final_loss", "mean"), diverged=("diverged", "any"))
        ok = per_lr[~per_lr["diverged"] & np.isfinite(per_lr["mean"])]
        if len(ok) == 0:
            out.append({"arch": arch, "depth": int(depth), "best_lr": np.nan, "lr_at_grid_edge": False,
                        "final_loss": np.nan,
                        "lg_excess": np.nan, "at_rounding_floor": False, "lr_unstable": True, "eligible_lrs": 0})
            continue
        best = ok["mean"].idxmin()
        lo, hi = ok["mean"].min(), ok["mean"].max()
        flat = len(ok) > 1 and (hi - lo) <= flat_tol * abs(hi - loss_opt)
        excess = ok.loc[best, "mean"] - loss_opt
        floor = ROUNDING_FLOOR * max(1.0, abs(loss_opt))
        grid = sorted(per_lr.index)
        at_edge = (not flat) and len(ok) == 1 and float(best) in (grid[0], grid[-1])
        out.append({"arch": arch, "depth": int(depth), "best_lr": np.nan if flat else float(best),
                    "lr_at_grid_edge": bool(at_edge),
                    "final_loss": float(ok.loc[best, "mean"]),
                    "lg_excess": float(np.log10(max(excess, floor))), "at_rounding_floor": bool(excess < floor),
                    "lr_unstable": bool(flat), "eligible_lrs": int(len(ok))})
    order = {a: i for i, a in enumerate(ARCHS + EXTRA_ARCHS)}
    s = pd.DataFrame(out)
    return s.sort_values(["arch", "depth"], key=lambda c: c.map(order) if c.name == "arch" else c
                         ).reset_index(drop=True)


def plot(table: pd.DataFrame, ax=None, loss_opt: float | None = None, relu: bool = False):
    """Two panels: lg(best final loss - L_min) and lg(best learning rate) against lg(depth).

    ``ax``: None (a new figure) or a pair of axes.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(1, 2, figsize=(10, 4))
    ax_loss, ax_lr = ax
    if relu and loss_opt is None:
        loss_opt = 0.0
    s = summarise(table, loss_opt=loss_opt)
    suffix = "-ReLU" if relu else ""
    for arch in _archs_in(s["arch"]):
        g = s[s["arch"] == arch]
        label = _label(arch) + suffix
        ax_loss.plot(np.log10(g["depth"]), g["lg_excess"], "o-", ms=4, color=_color(arch), label=label)
        f = g[g["at_rounding_floor"]]
        if len(f):
            ax_loss.plot(np.log10(f["depth"]), f["lg_excess"], "v", ms=9, mfc="none", color=_color(arch))
        ax_lr.plot(np.log10(g["depth"]), np.log10(g["best_lr"]), "o-", ms=4, color=_color(arch), label=label)
        e = g[g["lr_at_grid_edge"]]
        if len(e):  # the only eligible rate, at the end of the grid: drawn hollow
            ax_lr.plot(np.log10(e["depth"]), np.log10(e["best_lr"]), "o", ms=9, mfc="white",
                       color=_color(arch), zorder=3)
    if s["lr_at_grid_edge"].any():
        ax_lr.plot([], [], "o", ms=9, mfc="white", color="gray", label="only eligible rate, at the grid's edge")
        ax_lr.legend(fontsize=8)
    ax_loss.set_xlabel("lg(depth)")
    ax_loss.set_ylabel("lg(final loss)" if relu else r"lg(final loss $-$ $L_{\min}$)")
    ax_lr.set_xlabel("lg(depth)")
    ax_lr.set_ylabel("lg(optimal learning rate)")
    ax_loss.set_title(f"Best final loss ({'Fig. 10' if relu else 'Fig. 9'})")
    ax_lr.set_title("Best learning rate")
    if s["at_rounding_floor"].any():
        ax_loss.plot([], [], "v", mfc="none", color="gray", label="at the float64 rounding floor")
    ax_loss.legend(fontsize=8)
    return ax


def plot_at_lr(table: pd.DataFrame, lr: float, ax=None, loss_opt: float | None = None, relu: bool = False):
    """One frame of the learning-rate view: lg(mean final loss [- L_min]) against lg(depth) at ``lr``.

    Diverged learning rates leave a gap (the mean over runs is not defined)."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(5.5, 4))
    loss_opt = (0.0 if relu else mnist_optimum()) if loss_opt is None else loss_opt
    t = table[np.isclose(table["lr"], lr)]
    for arch in _archs_in(t["arch"]):
        g = t[t["arch"] == arch].groupby("depth").agg(mean=("final_loss", "mean"), div=("diverged", "any"))
        y = np.where(g["div"], np.nan, g["mean"] - loss_opt)
        with np.errstate(divide="ignore", invalid="ignore"):
            ax.plot(np.log10(g.index.to_numpy(dtype=float)), np.log10(np.maximum(y, ROUNDING_FLOOR)), "o-", ms=4,
                    color=_color(arch), label=_label(arch) + ("-ReLU" if relu else ""))
    ax.set_xlabel("lg(depth)")
    ax.set_ylabel("lg(final loss)" if relu else r"lg(final loss $-$ $L_{\min}$)")
    ax.set_title(f"learning rate {lr:.3g}")
    ax.legend(fontsize=8)
    return ax
