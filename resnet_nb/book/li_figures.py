"""The figures and widgets of Li et al.'s chapters (chapters: book/theorem1.ipynb,
book/theorem1_dynamics.ipynb, book/li_limitations.ipynb): the drawing only; what they draw is
computed in :mod:`resnet_nb.li`.

* Theorem 1: the key figure, the Hessian at zero for n = 1, 2, 3 beside its condition number
  against depth (:func:`key_hessians`, :func:`key_figure`; everything computed live: the heat maps
  are the exact Hessians at ``w = 0`` of small linear networks, matrix calculus, no autograd, and
  the curves come from :func:`resnet_nb.li.theorem1.depth_table`); a Hessian heat map in
  Definition-5 order (:func:`plot_hessian`) and a spectrum (:func:`plot_spectrum`); the explorer
  of the Hessian at 0 (:func:`hessian_explorer`, ipywidgets) and its kernel-free frame slider over
  depth (:func:`depth_animation`).
* Learning dynamics: loss and sharpness along gradient descent over seeds
  (:func:`plot_sharpness_sweep`, from :func:`resnet_nb.li.dynamics.sharpness_sweep`).
* Limitations: the zero-last-layer start against the zero point, and the output's second moment
  with depth (:func:`limitations_key_figure`).

Colours are the book's palette, :data:`resnet_nb.book.palette.COLORS`, keyed by architecture.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from resnet_nb.book.palette import COLORS
from resnet_nb.core.checks import require_int
from resnet_nb.core.data import Dataset
from resnet_nb.core.hessians import cond_percentile, hessian_linear, theorem1_blocks
from resnet_nb.core.networks import ShortcutNetwork
from resnet_nb.li.theorem1 import exact_hessian_at_zero, unfriendly_data3, unitwise_spectrum

__all__ = [
    "growth_figure",
    "catapult_figure",
    "key_hessians",
    "key_figure",
    "plot_hessian",
    "plot_spectrum",
    "explorer_title",
    "explorer_network_and_data",
    "hessian_explorer",
    "depth_animation",
    "plot_sharpness_sweep",
    "limitations_key_figure",
]


# ------------------------------------------------------------------------------------------
# Theorem 1: the key figure
# ------------------------------------------------------------------------------------------
def key_hessians(data=None, R: int = 3) -> dict:
    """Exact Hessians at ``w = 0`` of linear n-shortcut networks with ``R`` units, n = 1, 2, 3.

    ``data`` defaults to the chapter's three-coordinate data set (not whitened, so no block is an
    identity by accident). Returns ``{n: (net, H)}`` with ``H`` in Definition-5 order.
    """
    data = unfriendly_data3() if data is None else data
    out = {}
    for n in (1, 2, 3):
        net = ShortcutNetwork(data.d, n, R)
        out[n] = (net, hessian_linear(net, torch.zeros(net.shape, dtype=torch.float64), data))
    return out


def _heat(ax, H, net, title):
    H = np.asarray(H)
    vmax = float(np.abs(H).max()) or 1.0
    im = ax.imshow(H, cmap="RdBu_r", vmin=-vmax, vmax=vmax, interpolation="nearest")
    q = net.d**2
    P = H.shape[0]
    for a in range(1, net.R * net.n):
        lw = 1.4 if a % net.n == 0 else 0.3
        ax.axhline(a * q - 0.5, color="k", lw=lw)
        ax.axvline(a * q - 0.5, color="k", lw=lw)
    ax.set_xlim(-0.5, P - 0.5)
    ax.set_ylim(P - 0.5, -0.5)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.grid(False)
    ax.set_title(title, fontsize=11, color=COLORS[f"{net.n}-shortcut"])
    return im


def key_figure(table1, table2, data=None, R: int = 3):
    """Three heat maps (the Hessian at 0 for n = 1, 2, 3, ``R`` units, from :func:`key_hessians`)
    and one panel of the paper's condition number |lambda|max/|lambda|(10%) against depth:
    ``table1`` and ``table2`` are rows of :func:`resnet_nb.li.theorem1.depth_table` for n = 1 and
    n = 2; for n = 3 the Hessian is zero and the condition number is undefined, which the panel
    says in its legend (no point is drawn, since any height would read as a value).
    Returns the matplotlib figure."""
    import matplotlib.pyplot as plt

    hs = key_hessians(data, R)
    # two rows, so that at a page width of about 750 px each heat map is about 240 px wide and its
    # unit blocks (thick lines) and matrix blocks (thin lines) can be told apart
    fig = plt.figure(figsize=(10, 7.2))
    grid = fig.add_gridspec(2, 6, height_ratios=[1.3, 0.9], hspace=0.25, wspace=0.12, left=0.04, right=0.96)
    for k, n in enumerate((1, 2, 3)):
        net, H = hs[n]
        ax = fig.add_subplot(grid[0, 2 * k : 2 * k + 2])
        what = {1: "blocks couple units", 2: "the same blocks per unit", 3: "H = 0"}[n]
        _heat(ax, H, net, f"n = {n}: {what}")
    ax = fig.add_subplot(grid[1, 1:5])
    for n, rows in ((1, table1), (2, table2)):
        x = [r["depth"] for r in rows]
        y = [r["cond10"] for r in rows]
        ax.plot(x, y, "o-", ms=3.5, color=COLORS[f"{n}-shortcut"], label=f"n = {n}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("depth (weight matrices)")
    ax.set_ylabel("|λ|max / |λ|(10%) at 0")
    ax.set_title("condition number at 0 (whitened MNIST, d = 10)", fontsize=10)
    from matplotlib.lines import Line2D

    # n = 3 gets a legend entry without a mark: any height in the panel would read as a value
    n3 = Line2D([], [], ls="none", label="n = 3: H = 0,\nno condition number")
    handles = ax.get_legend_handles_labels()[0] + [n3]
    legend = ax.legend(handles=handles, fontsize=9, loc="upper left", handlelength=1.2)
    legend.get_texts()[-1].set_color(COLORS["3-shortcut"])
    return fig


# ------------------------------------------------------------------------------------------
# Theorem 1: the Hessian at zero, its spectrum, the explorer
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
    q = net.d**2
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


def explorer_network_and_data(n, R, d, act, position, source, mnist=None, seed=0):
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
    acts = [f"{pos}={getattr(net, pos).name}" for pos in ("pre", "mid", "post") if not getattr(net, pos).is_identity]
    return f"{net.n}-shortcut, R={net.R}, " + (", ".join(acts) if acts else "linear")


def _draw_case(fig, net, data):
    fig.clf()
    ax1, ax2 = fig.subplots(1, 2)
    H, _ = exact_hessian_at_zero(net, data, "auto")
    eigs, _ = unitwise_spectrum(H, net)
    pred = None
    if net.n == 2:
        sv = torch.linalg.svdvals(theorem1_blocks(net, data)["M"]).numpy()
        pred = np.concatenate([sv, -sv])
    plot_hessian(H, net, ax1, title=explorer_title(net))
    c = f"{cond_percentile(eigs, 10):.3g}" if np.abs(eigs).max() > 0 else "undefined (H = 0)"
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
        act=widgets.Dropdown(options=["identity", "tanh", "relu", "silu"], value="identity", description="activation"),
        position=widgets.Dropdown(options=["pre", "mid", "post"], value="mid", description="position"),
        source=widgets.Dropdown(options=["MNIST", "synthetic"], value="MNIST", description="data"),
    )
    out = widgets.Output()

    def redraw(_=None):
        with out:
            out.clear_output(wait=True)
            net, data = explorer_network_and_data(
                w["n"].value, w["R"].value, w["d"].value, w["act"].value, w["position"].value, w["source"].value, mnist
            )
            fig = plt.figure(figsize=(9, 4))
            _draw_case(fig, net, data)
            plt.show()

    for c in w.values():
        c.observe(redraw, names="value")
    box = widgets.VBox(
        [widgets.HBox([w["n"], w["R"], w["d"]]), widgets.HBox([w["act"], w["position"], w["source"]]), out]
    )
    redraw()
    display(box)
    return box


def depth_animation(n: int, Rs, data, **activations) -> str:
    """A frame slider over the number of units (kernel-free): for each R the Hessian at 0 and
    its spectrum. Returns the HTML of ``FuncAnimation.to_jshtml()``; the figure is closed."""
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation

    Rs = [require_int("R", R) for R in Rs]
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
# Learning dynamics: the sweep over seeds
# ------------------------------------------------------------------------------------------


def plot_sharpness_sweep(sweep: dict, axes=None):
    """The key figure of the chapter: loss - L_min (left) and lambda_max of the exact Hessian
    (right) along gradient descent, one line per seed; seeds with a spike drawn bold."""
    import matplotlib.pyplot as plt

    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(10, 3.4))
    col, grey = COLORS["2-shortcut"], COLORS["plain"]
    ep_all = np.arange(sweep["gaps"].shape[1])
    labelled = set()
    for row, gap, lam in zip(sweep["rows"], sweep["gaps"], sweep["lam_max"]):
        bold = row["spike"]
        kind = "with a spike" if bold else "without a spike"
        n_kind = sum(r["spike"] == bold for r in sweep["rows"])
        label = None if kind in labelled else f"{n_kind} seed{'s' if n_kind > 1 else ''} {kind}"
        labelled.add(kind)
        kw = dict(color=col, lw=1.8 if bold else 0.9, alpha=1.0 if bold else 0.45)
        axes[0].semilogy(ep_all, gap, label=label, **kw)
        axes[1].plot(sweep["epochs"], lam, marker="." if bold else None, **kw)
    axes[1].axhline(sweep["edge"], color=grey, ls="--", lw=1)
    axes[1].text(sweep["epochs"][-1], sweep["edge"], r"$2/\eta$", ha="right", va="bottom", color=grey)
    axes[1].axhline(sweep["sigma_max"], color=grey, ls=":", lw=1)
    axes[1].text(
        sweep["epochs"][-1], sweep["sigma_max"], r"$\sigma_{\max}(M)$ (Theorem 1)", ha="right", va="bottom", color=grey
    )
    axes[0].set_ylabel(r"loss $-\ L_{\min}$")
    axes[1].set_ylabel(r"sharpness $\lambda_{\max}(H)$")
    for ax in axes:
        ax.set_xlabel("epoch")
    axes[0].legend(fontsize=8)
    return axes


# ------------------------------------------------------------------------------------------
# Limitations: the chapter's key figure
# ------------------------------------------------------------------------------------------


def limitations_key_figure(point: dict, profiles: dict, axes=None):
    """Two panels: the sorted Hessian eigenvalues of a linear 3-shortcut network at the zero-last-layer
    start ``point`` (from :func:`resnet_nb.li.limitations.fixup_point`: k negative, k positive, the
    rest zero) beside the zero point of Theorem 1 (all zero); and the second moment of the output
    against the number of units for each start in ``profiles`` (name -> array over r = 0..R, from
    :func:`resnet_nb.li.limitations.depth_profile`).
    Colours come from :data:`resnet_nb.book.palette.COLORS` only."""
    import matplotlib.pyplot as plt

    palette = [COLORS[k] for k in ("2-shortcut", "3-shortcut", "xavier", "1-shortcut", "orthogonal")]
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(11, 3.6))
    ax_e, ax_v = axes
    eigs = np.sort(np.asarray(point["eigs"]))
    ax_e.plot(
        np.arange(eigs.size),
        eigs,
        ".",
        ms=3,
        color=COLORS["3-shortcut"],
        label=f"zero-last-layer start: {point['negative']} < 0, {point['positive']} > 0",
    )
    ax_e.plot(
        np.arange(eigs.size),
        np.zeros(eigs.size),
        "-",
        lw=2,
        color=COLORS["plain"],
        label="w = 0 (Theorem 1): all zero, gradient zero",
    )
    ax_e.set_xlabel("eigenvalue index (sorted)")
    ax_e.set_ylabel("Hessian eigenvalue")
    ax_e.set_title("Linear 3-shortcut, whitened MNIST: the two starts")
    ax_e.legend(fontsize=8, loc="upper left")
    for (name, prof), color in zip(profiles.items(), palette):
        ax_v.semilogy(range(len(prof)), prof, marker=".", color=color, label=name)
    ax_v.set_title("Second moment of the output, 2-shortcut units")
    ax_v.set_xlabel("residual units r")
    ax_v.set_ylabel("E||h_r||² / E||x||²")
    ax_v.legend(fontsize=8)
    return axes


def catapult_figure(cat: dict):
    """The catapult step by step (``li.dynamics.catapult_steps``): each step's projection on the top
    eigenvector v, which alternates in sign and grows, against the quadratic model's envelope
    +-|p_0| |1 - eta lambda_max|^t. Returns the figure."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 2.8))
    steps_ep = cat["epochs"]
    ax.axhline(0, color=COLORS["plain"], lw=0.6)
    env = np.abs(cat["proj"][0]) * np.abs(cat["predicted"]) ** (steps_ep - steps_ep[0])
    ax.plot(
        steps_ep,
        env,
        color=COLORS["plain"],
        ls="--",
        lw=1,
        label=r"$\pm|p_0|\,|1-\eta\lambda_{\max}|^{t}$ (quadratic model)",
    )
    ax.plot(steps_ep, -env, color=COLORS["plain"], ls="--", lw=1)
    ax.plot(
        steps_ep,
        cat["proj"],
        marker="o",
        ms=3,
        color=COLORS["2-shortcut"],
        label=r"step along $v$: $\langle w_{t+1} - w_t, v\rangle$",
    )
    ax.xaxis.set_major_locator(plt.MaxNLocator(integer=True))
    ax.set_xlabel("epoch (seed 0)")
    ax.set_ylabel("projection")
    ax.legend(fontsize=8, loc="upper left")
    plt.tight_layout()
    return fig


def growth_figure(table1, table2, growth_table):
    """The condition number at 0 against depth: 1-shortcut networks (max/10% and max/min, from
    ``table1``) rising above the Proposition's lower bound (``growth_table``), 2-shortcut networks
    (``table2``) flat. Returns the figure."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    one, two = COLORS["1-shortcut"], COLORS["2-shortcut"]
    ax.loglog(table1["depth"], table1["cond10"], "o-", color=one, label="1-shortcut: |λ|max / |λ|(10%)")
    ax.loglog(table1["depth"], table1["cond"], "x:", color=one, label="1-shortcut: |λ|max / |λ|min")
    ax.loglog(growth_table["depth"], growth_table["cond10_bound"], "k--", label="Proposition: lower bound")
    ax.loglog(table2["depth"], table2["cond"], "s-", color=two, label="2-shortcut: |λ|max / |λ|min")
    ax.set_xlabel("depth (number of weight matrices)")
    ax.set_ylabel("condition number at 0")
    ax.legend(fontsize=8)
    ax.set_title("Hessian at zero, whitened MNIST (d = 10)", fontsize=9)
    plt.tight_layout()
    return fig
