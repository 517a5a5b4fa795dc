"""The figures of the tour (book/tour.ipynb) that put the two papers side by side."""

from __future__ import annotations

from resnet_nb.book.palette import COLORS

__all__ = ["key_figure"]


def key_figure(f):
    """The tour's first figure from :func:`resnet_nb.book.facts.tour.key_figure_facts`: the largest
    layer norm of Hardt & Ma's construction against Theorem 2.1's bound and the floor of a
    reflection (left); the condition number at w = 0 by depth for 1- and 2-shortcut networks
    (right). Returns the figure."""
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.6))
    ax1.loglog(f.ells, f.built, "o-", color=COLORS["1-shortcut"], label=r"det $R > 0$: the book's construction")
    ax1.loglog(f.ells, f.bound, "k--", lw=1, label="bound of Theorem 2.1")
    ax1.axhspan(1e-2, f.floor, color=COLORS["plain"], alpha=0.15)
    ax1.axhline(f.floor, color=COLORS["plain"], lw=2, label=r"det $R < 0$: no factorisation below 1")
    ax1.set(
        xlabel=r"number of layers $\ell$",
        ylabel=r"$\max_i \|A_i\|$",
        ylim=(0.02, 12),
        title=r"Hardt & Ma: writing R ($\det R > 0$) with small layers",
    )
    ax1.legend(fontsize=8, loc="lower left")
    ax1.set_xticks([3, 10, 30, 64], ["3", "10", "30", "64"])
    ax1.minorticks_off()
    for n, key in [(1, "1-shortcut"), (2, "2-shortcut")]:
        L, c = zip(*f.cond_at_zero[n])
        ax2.loglog(L, c, "o-", color=COLORS[key], label=f"{n}-shortcut")
    ax2.text(
        0.97,
        0.5,
        "3-shortcut: the Hessian\nat 0 is zero",
        transform=ax2.transAxes,
        ha="right",
        color=COLORS["3-shortcut"],
        fontsize=9,
    )
    ax2.set(
        xlabel="depth L",
        ylabel=r"$|\lambda|_{\max} / |\lambda|_{(10\%)}$ at $w = 0$",
        title="Li et al.: curvature at the zero start",
    )
    ax2.legend(fontsize=8, loc="upper left")
    plt.tight_layout()
    return fig
