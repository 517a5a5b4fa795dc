"""The figures of the experiment chapters (book/exp_initial_point, exp_dynamics, exp_learning,
exp_fig2_analog): matplotlib drawings of the tables of :mod:`resnet_nb.experiments`.

The experiments compute (``engine.run(fig5, config)`` and the committed tables under
``results/``); this module only draws what they return, in the book's one palette
(:mod:`resnet_nb.book.palette`). One function per figure of Li et al.:

* :func:`plot_fig5`, :func:`fig5_summary_view` (exp_initial_point);
* :func:`plot_fig3`, :func:`plot_fig6`, :func:`plot_fig7`, :func:`plot_fig8`,
  :func:`plot_fig8_dense`, :func:`dynamics_overview` (exp_dynamics);
* :func:`plot_fig9`, :func:`plot_fig9_at_lr`, :func:`plot_fig10`, :func:`learning_key_figure`
  (exp_learning);
* :func:`plot_fig2`, :func:`animate_fig2`, :func:`fig2_widget` (exp_fig2_analog).

:func:`plot` draws any figure by its name (``plot("fig5", table)``), as the command line
(``python -m resnet_nb reproduce``) and the live widgets of :mod:`resnet_nb.book.views` do.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from resnet_nb.book.palette import COLORS, LABELS, label
from resnet_nb.experiments import fig2, fig3, fig5, fig6, fig8, fig9
from resnet_nb.shared import store
from resnet_nb.shared.common import ARCHS, mnist_optimum

__all__ = [
    "plot",
    "plot_for",
    "PLOTS",
    "plot_fig2",
    "depth_colors",
    "DROP_MARKERS",
    "animate_fig2",
    "fig2_widget",
    "fig2_setting",
    "plot_fig3",
    "plot_fig5",
    "fig5_summary_view",
    "BEYOND_RESOLUTION",
    "ONE_RUN",
    "plot_fig6",
    "plot_fig7",
    "plot_fig8",
    "plot_fig8_dense",
    "dynamics_overview",
    "plot_fig9",
    "plot_fig9_at_lr",
    "plot_fig10",
    "learning_key_figure",
]

#: markers of the first, second, ... step-size drop in Figure 2 (the paper: circles, then triangles)
DROP_MARKERS = ("o", "^", "s", "D")
#: the He baseline of Figure 10 is a plain network: drawn dashed to tell it from Xavier
LINE_STYLES = {"he": "--"}


def _subplots(*args, **kwargs):
    import matplotlib.pyplot as plt

    return plt.subplots(*args, **kwargs)


# ---------------------------------------------------------------------------------------------
# Figure 2 (exp_fig2_analog)
# ---------------------------------------------------------------------------------------------


def depth_colors(blocks_values):
    """One colour per depth: shades of the palette's residual-network colour
    (:data:`resnet_nb.book.palette.COLORS`), light for the shallowest, dark for the deepest."""
    from matplotlib.colors import to_rgb

    base = np.array(to_rgb(COLORS["residual"]))
    light, dark = 1 - 0.45 * (1 - base), 0.55 * base
    k = len(blocks_values)
    return {b: tuple(light + (dark - light) * i / max(k - 1, 1)) for i, b in enumerate(blocks_values)}


def plot_fig2(
    table: pd.DataFrame,
    ax=None,
    upto: int | None = None,
    first_epoch: int = 1,
    column: str = "avg_weight_norm",
    legend: str = "best",
):
    """Average weight norm against lg(training loss), one curve per depth, step-size drops marked.

    Training runs from right to left (the loss falls). The first drop of the step size is
    marked with a circle, the second with a triangle, as in the paper. ``upto``: draw epochs
    up to this one only (for animations). ``first_epoch``: the first epoch drawn (default 1:
    with batch norm, the evaluation-mode loss of the untrained network uses running statistics
    that have not been estimated yet, so row 0 is not a meaningful loss). ``column``: which
    norm (see ``fig2.NORM_COLUMNS``). ``legend``: a matplotlib location, or ``"outside"`` (to the
    right of the axes, so that it covers no curve).
    """
    if ax is None:
        _, ax = _subplots(figsize=(6.4, 4.2))
    c = fig2.curves(table, column)
    drops = fig2.lr_drops(table)
    blocks_values = sorted(c["blocks"].unique())
    colors = depth_colors(blocks_values)
    for b in blocks_values:
        g = c[(c["blocks"] == b) & (c["epoch"] >= first_epoch)]
        if upto is not None:
            g = g[g["epoch"] <= upto]
        n_layers = int(g["layers"].iloc[0]) if len(g) else int(c[c["blocks"] == b]["layers"].iloc[0])
        ax.plot(
            g["lg_loss"],
            g["avg_weight_norm"],
            "-",
            color=colors[b],
            lw=1.6,
            label=f"{n_layers} layers ({b} block{'s' if b > 1 else ''}/stage)",
        )
        _mark_drops(ax, g, drops, colors[b])
    for j, e in enumerate(drops):
        ax.plot(
            [], [], DROP_MARKERS[j % len(DROP_MARKERS)], mfc="none", mec="k", label=f"step size divided after epoch {e}"
        )
    ax.set_xlabel("lg(training loss)")
    ax.set_ylabel(fig2.NORM_COLUMNS[column])
    if legend == "outside":
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    else:
        ax.legend(fontsize=8, loc=legend)
    ax.grid(alpha=0.3)
    return ax


def _mark_drops(ax, g, drops, color):
    """On one depth's curve ``g``, a hollow marker at each epoch after which the step size dropped
    (circle, then triangle)."""
    for j, e in enumerate(drops):
        hit = g[g["epoch"] == e]
        if len(hit):
            ax.plot(
                hit["lg_loss"],
                hit["avg_weight_norm"],
                DROP_MARKERS[j % len(DROP_MARKERS)],
                mfc="none",
                mec=color,
                ms=8,
                mew=1.5,
            )


def animate_fig2(table: pd.DataFrame, interval: int = 350):
    """A :class:`matplotlib.animation.FuncAnimation` whose frames are the epochs of ``table``.

    Returns ``(fig, animation)``; show it with ``HTML(animation.to_jshtml())`` and then close
    ``fig``: the frame slider works in a static page, without a kernel.
    """
    from matplotlib.animation import FuncAnimation

    c = fig2.curves(table)
    c = c[c["epoch"] >= 1]
    xlim = (c["lg_loss"].min() - 0.1, c["lg_loss"].max() + 0.1)
    ylim = (c["avg_weight_norm"].min() * 0.97, c["avg_weight_norm"].max() * 1.03)
    epochs = sorted(c["epoch"].unique())
    fig, ax = _subplots(figsize=(6.4, 4.2), dpi=80)  # 80 dpi: every frame is stored as an image

    def frame(e):
        ax.clear()
        plot_fig2(table, ax=ax, upto=e)
        ax.set_xlim(*xlim)
        ax.set_ylim(*ylim)
        ax.set_title(f"after epoch {e} (step size {c[c['epoch'] == e]['lr'].iloc[0]:g})")

    anim = FuncAnimation(fig, frame, frames=epochs, interval=interval)
    return fig, anim


def fig2_widget(table: pd.DataFrame | None = None, config: dict | None = None):
    """Controls for depths, epochs and step size; a change trains the missing runs and redraws.

    ``table`` (optional) is the result of ``engine.run(fig2, config)``: it is reused for the
    starting values, so displaying the widget trains nothing. The sliders use
    ``continuous_update=False``: a run starts only when a slider is released. Training
    follows the schedule of ``config`` with its milestones scaled to the chosen epochs.
    """
    import ipywidgets as W
    import matplotlib.pyplot as plt

    config = dict(fig2.SCALES["default"] if config is None else config)
    fig2.require_config(config)
    cache = _fig2_cache(table, config)
    blocks_w, epochs_w, lr_w = _fig2_controls(config)
    out = W.Output()

    def redraw(*_):
        cfg = fig2_setting(config, blocks_w.value, epochs_w.value, lr_w.value)
        frames = []
        for item in fig2.configurations(cfg):
            key = store.item_key(item)
            if key not in cache:
                cache[key] = pd.DataFrame(fig2.run_one(item, progress=True))
            frames.append(cache[key])
        # the figure goes into the Output widget's state directly, not through ``with out:``,
        # whose output capture can leave a non-interactive executor (nbclient, the book's build)
        # waiting forever for the cell to finish
        with plt.ioff():
            fig, ax = plt.subplots(figsize=(6.4, 4.2))
        plot_fig2(pd.concat(frames, ignore_index=True), ax=ax)
        ax.set_title(f"analog of Li et al. Fig. 2: {cfg['epochs']} epochs, step size {cfg['lr']:.3g}")
        out.outputs = ()
        out.append_display_data(fig)
        plt.close(fig)

    for w in (blocks_w, epochs_w, lr_w):
        w.observe(redraw, names="value")
    redraw()
    controls = W.VBox([blocks_w, epochs_w, lr_w], layout=W.Layout(min_width="300px", overflow="visible"))
    return W.HBox([controls, out], layout=W.Layout(flex_flow="row wrap"))


def _fig2_cache(table, config) -> dict:
    """The runs of ``table`` (the result of ``engine.run(fig2, config)``) by item key."""
    cache: dict = {}
    if table is not None:
        fig2.require_table(table)
        for item in fig2.configurations(config):
            rows = table[(table["blocks"] == item["blocks"]) & (table["seed"] == item["seed"])]
            if len(rows):
                cache[store.item_key(item)] = rows.drop(columns=["item_key"], errors="ignore")
    return cache


def _fig2_controls(config):
    """The widget's three controls, at the values of ``config``: depths, epochs and step size."""
    import ipywidgets as W

    options = sorted(set([1, 2, 3, 4, 6, 8]) | set(config["blocks"]))
    blocks_w = W.SelectMultiple(
        options=options,
        value=tuple(config["blocks"]),
        rows=len(options),
        description="blocks/stage",
        style={"description_width": "initial"},
        layout=W.Layout(width="190px", min_width="190px"),
    )
    epochs_w = W.IntSlider(value=config["epochs"], min=2, max=40, step=1, description="epochs", continuous_update=False)
    lr_w = W.FloatLogSlider(
        value=config["lr"],
        base=10,
        min=-3,
        max=0,
        step=0.25,
        description="step size",
        continuous_update=False,
        readout_format=".3g",
    )
    return blocks_w, epochs_w, lr_w


def fig2_setting(config, blocks, epochs, lr) -> dict:
    """``config`` with the chosen depths (the first of ``config`` if none), epochs and step size;
    its milestones scaled to the chosen epochs (at least 2, none beyond the last epoch)."""
    cfg = dict(config)
    cfg["blocks"] = sorted(blocks) or [config["blocks"][0]]
    cfg["epochs"] = int(epochs)
    cfg["lr"] = float(lr)
    scale = cfg["epochs"] / config["epochs"]
    ms = sorted({max(2, int(round(m * scale))) for m in config["milestones"]})
    cfg["milestones"] = [m for m in ms if m <= cfg["epochs"]]
    return cfg


# ---------------------------------------------------------------------------------------------
# Figure 5 (exp_initial_point)
# ---------------------------------------------------------------------------------------------


def plot_fig5(table: pd.DataFrame, ax=None, archs=None):
    """lg(condition number) against lg(depth), mean +- std over resolved runs.

    Depths where some run was beyond float64 resolution are drawn as open triangles at the
    resolution limit ``1/(P eps)`` (a lower bound), not as numbers.
    """
    if ax is None:
        _, ax = _subplots(figsize=(5.5, 4))
    s = fig5.summarise(table)
    archs = [a for a in ARCHS if a in set(s["arch"])] if archs is None else archs
    flagged = False
    for arch in archs:
        g = s[(s["arch"] == arch) & (s["unresolved"] == 0)]
        ax.errorbar(
            np.log10(g["depth"]),
            g["lg_cond_mean"],
            yerr=g["lg_cond_std"].fillna(0),
            marker="o",
            ms=4,
            capsize=2,
            color=COLORS[arch],
            label=LABELS[arch],
        )
        u = s[(s["arch"] == arch) & (s["unresolved"] > 0)]
        if len(u):
            flagged = True
            ax.plot(np.log10(u["depth"]), u["lg_resolution_limit"], "^", mfc="none", color=COLORS[arch])
    if flagged:
        ax.plot([], [], "^", mfc="none", color="gray", label=r"$\geq 1/(P\,\epsilon)$: beyond float64")
    ax.set_xlabel("lg(depth)")
    ax.set_ylabel(r"lg($|\lambda|_{\max} / |\lambda|_{(10\%)}$)")
    ax.set_title("Initial condition number (Fig. 5)")
    ax.legend(fontsize=8)
    return ax


#: what the summary table of Figure 5 writes where a number is not defined
BEYOND_RESOLUTION = "n/a: unresolved"
ONE_RUN = "n/a: one run"


def fig5_summary_view(summary: pd.DataFrame, decimals: int = 3):
    """The :func:`resnet_nb.experiments.fig5.summarise` table for display: no index column, readable
    headers, numbers at ``decimals`` places and no NaN cells. A mean is missing only when every run
    of the cell was beyond float64 resolution (its condition number is then only a lower bound, the
    column ``lg_resolution_limit``); a spread is missing when fewer than two runs were resolved.
    Both cases are written out in words."""
    d = summary.copy()
    for col in ("lg_cond_mean", "lg_cond_std", "lg_resolution_limit"):
        d[col] = d[col].map(lambda v: f"{v:.{decimals}f}" if np.isfinite(v) else "")
    none = d["runs"] == d["unresolved"]
    d.loc[none, "lg_cond_mean"] = BEYOND_RESOLUTION
    d.loc[none, "lg_cond_std"] = BEYOND_RESOLUTION
    d.loc[~none & (d["lg_cond_std"] == ""), "lg_cond_std"] = ONE_RUN
    assert not (d == "").any().any()
    # headers with spaces wrap, so the table fits the page column
    d = d.rename(
        columns={
            "arch": "network",
            "lg_cond_mean": "lg cond (mean)",
            "lg_cond_std": "lg cond (std)",
            "lg_resolution_limit": "lg resolution limit",
        }
    )
    return d.style.hide(axis="index")


# ---------------------------------------------------------------------------------------------
# Figures 3, 6, 7 and 8 (exp_dynamics)
# ---------------------------------------------------------------------------------------------


def plot_fig3(table: pd.DataFrame, ax=None):
    """Average Frobenius norm against lg(loss - L_min) (linear) and lg(loss) (ReLU), one line per depth."""
    kinds = [r for r in (False, True) if r in set(table["relu"])]
    if ax is None:
        _, ax = _subplots(1, len(kinds), figsize=(5 * len(kinds), 4), squeeze=False)
        ax = ax[0]
    ax = np.atleast_1d(ax)
    depths = sorted(table["depth"].unique())
    for a, relu in zip(ax, kinds):
        c = fig3.curves(table, relu)
        for i, depth in enumerate(depths):
            g = c[c["depth"] == depth]
            a.plot(
                g["x"],
                g["avg_norm"],
                color=COLORS["2-shortcut"],
                alpha=0.25 + 0.75 * i / max(1, len(depths) - 1),
                label=f"depth = {depth}",
            )
        a.set_xlabel("lg(loss)" if relu else r"lg(loss $-$ $\ell_{\min}$)")
        a.set_ylabel("average Frobenius norm")
        a.set_title("2-shortcut, ReLU at mid positions" if relu else "2-shortcut, linear")
        a.legend(fontsize=8)
    return ax


def plot_fig6(table: pd.DataFrame, ax=None, relu: bool | None = None):
    """Two panels: lg|lambda|max and lg|lambda|(10%) against lg(loss - L_min) (or lg(loss) with ReLU)."""
    relu = bool(table["relu"].iloc[0]) if relu is None else relu
    if ax is None:
        _, ax = _subplots(1, 2, figsize=(10, 4))
    gap = None if relu else fig6.first_step_gap(table)
    for a, column, title in zip(ax, ("lg_lam_max", "lg_lam_p10"), ("Maximum", "10th percentile")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns: nothing to average
            c = fig6.curves(table, column, relu)
        for arch in fig6.ARCHS:
            g = c[c["arch"] == arch] if len(c) else c
            if len(g):
                a.plot(g["x"], g[column], color=COLORS[arch], label=LABELS[arch] + ("-ReLU" if relu else ""))
        if gap is not None:
            a.axvspan(*gap, color="0.85", zorder=0, label="orthogonal: interpolated (epochs 0-1)")
        a.set_xlabel("lg(loss)" if relu else r"lg(loss $-$ $\ell_{\min}$)")
        a.set_ylabel(r"lg($|\lambda|$)")
        a.set_title(f"{title} of $|\\lambda|$ ({'Fig. 7' if relu else 'Fig. 6'})")
        a.legend(fontsize=8)
    return ax


def plot_fig7(table: pd.DataFrame, ax=None):
    """lg|lambda|max and lg|lambda|(10%) against lg(loss): Figure 6 with ReLUs at the mid positions."""
    return plot_fig6(table, ax=ax, relu=True)


def plot_fig8(table: pd.DataFrame, ax=None, run_index: int = 0):
    """Left: index against the loss. Right: gradient norm and index along one 2-shortcut run."""
    if ax is None:
        _, ax = _subplots(1, 2, figsize=(10, 4))
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
    right.plot(traj["epoch"], traj["grad_norm"], color=COLORS["2-shortcut"], label="gradient norm")
    right.set_xscale("symlog", linthresh=1)
    right.set_xlabel("epoch")
    right.set_ylabel("gradient norm", color=COLORS["2-shortcut"])
    twin = right.twinx()
    twin.plot(hess["epoch"], hess["index"], "o-", ms=3, color="k", label="index")
    twin.set_ylabel("index (fraction of negative eigenvalues)")
    right.set_title("One 2-shortcut run (Fig. 8, right)")
    if len(traj):
        peak = traj.loc[traj["grad_norm"].idxmax(), "epoch"]
        right.axvline(peak, color="gray", lw=0.8, ls=":")
    return ax


def plot_fig8_dense(dense: pd.DataFrame, ax=None, arch: str = "2-shortcut"):
    """The gradient norm at every epoch and the index of the Hessian at every epoch of the window of
    one densely sampled run (:func:`resnet_nb.experiments.fig8.reproduce_dense`), the gradient peak
    dotted and the middle half of the index's fall shaded."""
    if ax is None:
        _, ax = _subplots(figsize=(5, 3.4))
    g = dense[dense["arch"] == arch].sort_values("epoch")
    h = g[g["negatives"] >= 0]
    f = fig8.index_fall(dense, arch)
    ax.plot(g["epoch"], g["grad_norm"], color=COLORS[arch], label="gradient norm")
    ax.set_xlabel("epoch")
    ax.set_ylabel("gradient norm", color=COLORS[arch])
    twin = ax.twinx()
    twin.plot(h["epoch"], h["index"], "o-", ms=2.5, lw=0.8, color="k", label="index")
    twin.set_ylabel("index")
    ax.axvline(f["peak"], color="gray", lw=0.8, ls=":")
    if np.isfinite(f["t25"]):
        ax.axvspan(f["t25"], f["t75"], color="0.9", zorder=0)
    ax.set_title(f"{LABELS[arch]}, depth {fig8.DENSE['depth']}: Hessian every epoch")
    return ax, twin


def dynamics_overview(fig3_table: pd.DataFrame, stable: pd.DataFrame, dense: pd.DataFrame):
    """The key figure of exp_dynamics, from committed tables: (a) Figure 3, the average weight norm
    of linear 2-shortcut networks against the loss, one line per depth; (b) Figure 6 at the stable
    rate, the run-mean lg condition number of both architectures against the loss; (c) Figure 8,
    the gradient norm and the index of one 2-shortcut run with a Hessian at every epoch around the
    peak."""
    import matplotlib.pyplot as plt

    # two panels side by side and the third below, so that at a page width of about 750 px each
    # panel is about 370 px wide and its axes and legends stay readable
    fig = plt.figure(figsize=(10, 7.6))
    grid = fig.add_gridspec(2, 4)
    ax = [fig.add_subplot(grid[0, :2]), fig.add_subplot(grid[0, 2:]), fig.add_subplot(grid[1, 1:3])]
    plot_fig3(fig3_table[~fig3_table["relu"].astype(bool)], ax=[ax[0]])
    ax[0].set_xlim(-4.5, None)  # depth 2 reaches the minimum; its norm is constant below this
    ax[0].set_title("(a) Fig. 3: weight norm, linear")
    ax[0].legend(fontsize=9, ncol=2)
    grid = fig6.shared_grid(stable, False, "lgc", points=80)
    curves = fig6.run_curves(stable, "lgc", False, grid)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for arch in fig6.ARCHS:
            ax[1].plot(grid, np.nanmean(curves[arch], axis=0), color=COLORS[arch], label=LABELS[arch])
    ax[1].set_xlabel(r"lg(loss $-$ $\ell_{\min}$)")
    ax[1].set_ylabel(r"lg($|\lambda|_{\max} / |\lambda|_{(10\%)}$)")
    ax[1].set_title(f"(b) Fig. 6: condition number, rate {fig6.STABLE_SCALES['paper']['lr']:g}")
    ax[1].legend(fontsize=9)
    plot_fig8_dense(dense, ax=ax[2])
    ax[2].set_title("(c) Fig. 8: gradient peak and index fall")
    fig.tight_layout()
    return np.array(ax)


# ---------------------------------------------------------------------------------------------
# Figures 9 and 10 (exp_learning)
# ---------------------------------------------------------------------------------------------


def _color(arch):
    return COLORS.get(arch, COLORS["plain"])


def _line(arch):
    return "o" + LINE_STYLES.get(arch, "-")


def _archs_in(archs):
    present = set(archs)
    return [a for a in fig9.ARCHS + fig9.EXTRA_ARCHS if a in present]


def plot_fig9(table: pd.DataFrame, ax=None, loss_opt: float | None = None, relu: bool = False):
    """Two panels: lg(best final loss - L_min) and lg(best learning rate) against lg(depth).

    ``ax``: None (a new figure), a pair of axes, or one axis (the loss panel only).
    """
    if ax is None:
        _, ax = _subplots(1, 2, figsize=(10, 4))
    ax_loss, ax_lr = (ax, None) if hasattr(ax, "plot") else ax
    if relu and loss_opt is None:
        loss_opt = 0.0
    s = fig9.summarise(table, loss_opt=loss_opt)
    suffix = "-ReLU" if relu else ""
    for arch in _archs_in(s["arch"]):
        g = s[s["arch"] == arch]
        name = label(arch) + suffix
        ax_loss.plot(np.log10(g["depth"]), g["lg_excess"], _line(arch), ms=4, color=_color(arch), label=name)
        f = g[g["at_rounding_floor"]]
        if len(f):
            ax_loss.plot(np.log10(f["depth"]), f["lg_excess"], "v", ms=9, mfc="none", color=_color(arch))
        if ax_lr is None:
            continue
        ax_lr.plot(np.log10(g["depth"]), np.log10(g["best_lr"]), _line(arch), ms=4, color=_color(arch), label=name)
        e = g[g["lr_at_grid_edge"]]
        if len(e):  # the only eligible rate, at the end of the grid: drawn hollow
            ax_lr.plot(
                np.log10(e["depth"]), np.log10(e["best_lr"]), "o", ms=9, mfc="white", color=_color(arch), zorder=3
            )
    if ax_lr is not None and s["lr_at_grid_edge"].any():
        ax_lr.plot(
            [], [], "o", ms=9, mfc="white", color=COLORS["plain"], label="only eligible rate, at the grid's edge"
        )
        ax_lr.legend(fontsize=8)
    ax_loss.set_xlabel("lg(depth)")
    ax_loss.set_ylabel("lg(final loss)" if relu else r"lg(final loss $-$ $L_{\min}$)")
    ax_loss.set_title(f"Best final loss ({'Fig. 10' if relu else 'Fig. 9'})")
    if ax_lr is not None:
        ax_lr.set_xlabel("lg(depth)")
        ax_lr.set_ylabel("lg(optimal learning rate)")
        ax_lr.set_title("Best learning rate")
    if s["at_rounding_floor"].any():
        ax_loss.plot([], [], "v", mfc="none", color=COLORS["plain"], label="at the float64 rounding floor")
    ax_loss.legend(fontsize=8)
    return ax


def plot_fig9_at_lr(table: pd.DataFrame, lr: float, ax=None, loss_opt: float | None = None, relu: bool = False):
    """One frame of the learning-rate view: lg(mean final loss [- L_min]) against lg(depth) at ``lr``.

    Diverged learning rates leave a gap (the mean over runs is not defined)."""
    if ax is None:
        _, ax = _subplots(figsize=(5.5, 4))
    loss_opt = (0.0 if relu else mnist_optimum()) if loss_opt is None else loss_opt
    t = table[np.isclose(table["lr"], lr)]
    for arch in _archs_in(t["arch"]):
        g = t[t["arch"] == arch].groupby("depth").agg(mean=("final_loss", "mean"), div=("diverged", "any"))
        y = np.where(g["div"], np.nan, g["mean"] - loss_opt)
        with np.errstate(divide="ignore", invalid="ignore"):
            ax.plot(
                np.log10(g.index.to_numpy(dtype=float)),
                np.log10(np.maximum(y, fig9.ROUNDING_FLOOR)),
                _line(arch),
                ms=4,
                color=_color(arch),
                label=label(arch) + ("-ReLU" if relu else ""),
            )
    ax.set_xlabel("lg(depth)")
    ax.set_ylabel("lg(final loss)" if relu else r"lg(final loss $-$ $L_{\min}$)")
    ax.set_title(f"learning rate {lr:.3g}")
    ax.legend(fontsize=8)
    return ax


def plot_fig10(table: pd.DataFrame, ax=None):
    """lg(best final loss) and lg(best learning rate) against lg(depth), ReLU at mid (no optimum subtracted)."""
    return plot_fig9(table, ax=ax, loss_opt=0.0, relu=True)


def learning_key_figure(table9: pd.DataFrame, table10: pd.DataFrame, axes=None):
    """The key figure of exp_learning: the best final loss against depth in Figure 9 (linear, lg of
    the gap to L_min) and Figure 10 (ReLU at mid, lg of the loss itself), side by side."""
    if axes is None:
        _, axes = _subplots(1, 2, figsize=(11, 3.9))
    plot_fig9(table9, ax=axes[0])
    plot_fig9(table10, ax=axes[1], loss_opt=0.0, relu=True)
    axes[0].set_title("Figure 9: linear networks")
    axes[1].set_title("Figure 10: ReLU at the mid positions")
    return axes


# ---------------------------------------------------------------------------------------------
# Any figure by name
# ---------------------------------------------------------------------------------------------

#: figure name -> the function drawing its table (``f(table, ax=None)``)
PLOTS = {
    "fig2": plot_fig2,
    "fig3": plot_fig3,
    "fig5": plot_fig5,
    "fig6": plot_fig6,
    "fig7": plot_fig7,
    "fig8": plot_fig8,
    "fig9": plot_fig9,
    "fig10": plot_fig10,
}


def plot_for(module):
    """The drawing function of the figure module ``module`` (e.g. ``fig5``)."""
    name = getattr(module, "__name__", "").rsplit(".", 1)[-1]
    if name not in PLOTS:
        raise ValueError(f"module must be one of the figure modules {sorted(PLOTS)}, got {name!r}")
    return PLOTS[name]


def plot(figure: str, table: pd.DataFrame, ax=None, **kwargs):
    """Draw ``table`` as figure ``figure`` (a name of :data:`resnet_nb.experiments.engine.FIGURES`)."""
    if figure not in PLOTS:
        raise ValueError(f"figure must be one of {sorted(PLOTS)}, got {figure!r}")
    return PLOTS[figure](table, ax=ax, **kwargs)
