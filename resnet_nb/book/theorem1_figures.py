"""The key figure of the Theorem 1 chapter: the Hessian at zero for n = 1, 2, 3 beside its
condition number against depth.

Everything is computed live: the heat maps are the exact Hessians at ``w = 0`` of small linear
networks (matrix calculus, no autograd), and the curves come from :func:`resnet_nb.li.theorem1.depth_table`.
Colours are the book's palette, :data:`resnet_nb.book.plotting.COLORS`, keyed by architecture.
"""
from __future__ import annotations

import numpy as np
import torch

from resnet_nb.core.hessians import hessian_linear
from resnet_nb.core.networks import ShortcutNetwork
from resnet_nb.book.plotting import COLORS

__all__ = ["key_hessians", "key_figure"]


def key_hessians(data=None, R: int = 3) -> dict:
    """Exact Hessians at ``w = 0`` of linear n-shortcut networks with ``R`` units, n = 1, 2, 3.

    ``data`` defaults to the chapter's three-coordinate data set (not whitened, so no block is an
    identity by accident). Returns ``{n: (net, H)}`` with ``H`` in Definition-5 order.
    """
    from resnet_nb.li.theorem1 import _data3

    data = _data3() if data is None else data
    out = {}
    for n in (1, 2, 3):
        net = ShortcutNetwork(data.d, n, R)
        out[n] = (net, hessian_linear(net, torch.zeros(net.shape, dtype=torch.float64), data))
    return out


def _heat(ax, H, net, title):
    H = np.asarray(H)
    vmax = float(np.abs(H).max()) or 1.0
    im = ax.imshow(H, cmap="RdBu_r", vmin=-vmax, vmax=vmax, interpolation="nearest")
    q = net.d ** 2
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
    ax.set_title(title, fontsize=9, color=COLORS[f"{net.n}-shortcut"])
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
    fig = plt.figure(figsize=(12, 3.3))
    grid = fig.add_gridspec(1, 4, width_ratios=[1, 1, 1, 1.6], wspace=0.12)
    for k, n in enumerate((1, 2, 3)):
        net, H = hs[n]
        ax = fig.add_subplot(grid[0, k])
        what = {1: "blocks couple units", 2: "the same blocks per unit", 3: "H = 0"}[n]
        _heat(ax, H, net, f"n = {n}: {what}")
    ax = fig.add_subplot(grid[0, 3])
    ax.yaxis.set_label_position("right")
    ax.yaxis.tick_right()
    for n, rows in ((1, table1), (2, table2)):
        x = [r["depth"] for r in rows]
        y = [r["cond10"] for r in rows]
        ax.plot(x, y, "o-", ms=3.5, color=COLORS[f"{n}-shortcut"], label=f"n = {n}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("depth (weight matrices)")
    ax.set_ylabel("|λ|max / |λ|(10%) at 0")
    ax.set_title("condition number at 0 (whitened MNIST, d = 10)", fontsize=9)
    from matplotlib.lines import Line2D

    # n = 3 gets a legend entry without a mark: any height in the panel would read as a value
    n3 = Line2D([], [], ls="none", label="n = 3: H = 0,\nno condition number")
    handles = ax.get_legend_handles_labels()[0] + [n3]
    legend = ax.legend(handles=handles, fontsize=8, loc="lower right", bbox_to_anchor=(1, 0.2),
                       handlelength=1.2)
    legend.get_texts()[-1].set_color(COLORS["3-shortcut"])
    return fig
