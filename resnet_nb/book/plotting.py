"""One plotting style for every chapter (book/*.ipynb), and the few drawings the Notation chapter
(book/notation.ipynb) needs."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from cycler import cycler
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

# colours and display names by architecture, used by every chapter: defined once in
# resnet_nb/book/palette.py (also re-exported by resnet_nb.shared.common)
from resnet_nb.book.palette import COLORS, CYCLE, LABELS

__all__ = ["COLORS", "LABELS", "style", "draw_shortcut_unit", "heatmap", "end_to_end_singular_values"]


def style():
    """Apply the book's matplotlib defaults (small, legible, no chart junk); the default colour
    cycle is the palette's (:data:`resnet_nb.book.palette.CYCLE`)."""
    plt.rcParams.update(
        {
            "figure.dpi": 100,
            "savefig.dpi": 100,
            "font.size": 10,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "legend.frameon": False,
            "axes.prop_cycle": cycler(color=list(CYCLE)),
        }
    )


def _box(ax, x, y, text, color):
    ax.add_patch(
        FancyBboxPatch((x - 0.32, y - 0.22), 0.64, 0.44, boxstyle="round,pad=0.02", fc=color, ec="black", lw=1)
    )
    ax.text(x, y, text, ha="center", va="center", fontsize=10)


def _arrow(ax, p, q, **kw):
    ax.add_patch(FancyArrowPatch(p, q, arrowstyle="-|>", mutation_scale=12, lw=1.2, **kw))


def draw_shortcut_unit(ax, n: int = 2, pre=True, mid=True, post=True, r: str = "r"):
    """Draw one residual unit of an n-shortcut network (Definition 3): the transformation
    path W_{r,1} .. W_{r,n} with the activation positions, and the identity shortcut."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    xs = []
    x = 0.0
    _box(ax, x, 0, "$h$", "white")
    xs.append(x)
    items = []
    if pre:
        items.append((r"$\sigma_{pre}$", "#fde0c5"))
    for l in range(1, n + 1):
        items.append((f"$W_{{{r},{l}}}$", "#c6dbef"))
        if l < n and mid:
            items.append((r"$\sigma_{mid}$", "#fde0c5"))
    if post:
        items.append((r"$\sigma_{post}$", "#fde0c5"))
    items.append(("$+$", "white"))
    for text, color in items:
        x += 1.0
        _box(ax, x, 0, text, color)
        _arrow(ax, (x - 0.68, 0), (x - 0.33, 0))
    plus = x
    _arrow(ax, (plus + 0.33, 0), (plus + 0.75, 0))
    ax.text(plus + 0.85, 0, "next unit", va="center", fontsize=9)
    # shortcut arc
    ax.annotate(
        "",
        xy=(plus, 0.25),
        xytext=(0, 0.25),
        arrowprops=dict(arrowstyle="-|>", connectionstyle="arc3,rad=-0.25", lw=1.2, color="#d62728"),
    )
    ax.text(plus / 2, 1.2, "identity shortcut", color="#d62728", ha="center", fontsize=9)
    ax.set_xlim(-0.6, plus + 2.0)
    ax.set_ylim(-0.5, 1.5)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax


def heatmap(ax, M, title=None, symmetric=True, cmap="RdBu_r"):
    """Show a matrix with a diverging colour map centred at zero."""
    M = np.asarray(M)
    vmax = float(np.abs(M).max()) or 1.0
    im = ax.imshow(
        M, cmap=cmap, vmin=-vmax if symmetric else None, vmax=vmax if symmetric else None, interpolation="nearest"
    )
    if title:
        ax.set_title(title)
    ax.grid(False)
    return im


def end_to_end_singular_values(ax, make_net, scheme: str, depths, runs: int = 20, seed: int = 0, title=None):
    """Scatter the singular values of the end-to-end map of ``make_net(L)`` initialised with
    ``scheme``, ``runs`` draws at each depth L (x jittered so the points do not overlap)."""
    import torch  # local: plotting stays importable without torch in tools that only draw

    from resnet_nb.core.init import initialise
    from resnet_nb.core.networks import end_to_end

    rng = np.random.default_rng(seed)
    for L in depths:
        net = make_net(L)
        Ws = initialise(net, scheme, seed=seed + L, runs=runs)
        sv = torch.linalg.svdvals(end_to_end(net, Ws)).flatten().numpy()
        ax.scatter(L * np.exp(rng.normal(0, 0.05, sv.size)), sv, s=3, alpha=0.4, color="k")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("depth L")
    if title:
        ax.set_title(title)
    return ax
