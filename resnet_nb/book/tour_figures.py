"""The figures of the tour (book/tour.ipynb) that put the two papers side by side."""

from __future__ import annotations

import numpy as np

from resnet_nb.book.palette import COLORS, LABELS

__all__ = ["key_figure", "figure5", "construction_steps", "final_losses"]


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


def figure5(s5, archs):
    """Figure 5 in the tour: mean lg cond10 at the small start by lg depth for each architecture in
    ``archs`` (error bars: run-to-run spread), and the depths where a network's condition number
    is beyond float64's resolution as open triangles at that limit. ``s5``: Figure 5's summary."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.6, 3.8))
    for arch in archs:
        g = s5[(s5.arch == arch) & (s5.unresolved == 0)]
        ax.errorbar(
            np.log10(g.depth),
            g.lg_cond_mean,
            yerr=g.lg_cond_std.fillna(0),
            marker="o",
            ms=4,
            capsize=2,
            color=COLORS[arch],
            label=LABELS[arch],
        )
        u = s5[(s5.arch == arch) & (s5.unresolved > 0)]
        ax.plot(np.log10(u.depth), u.lg_resolution_limit, "^", mfc="none", color=COLORS[arch])
    ax.set(
        xlabel="lg(depth)",
        ylabel=r"lg($|\lambda|_{\max}/|\lambda|_{(10\%)}$)",
        title="Condition number at the small start (Figure 5)",
    )
    ax.legend(fontsize=8)
    return fig


def construction_steps(X, labels, states, r_lab: int):
    """Theorem 3.2's construction at work: the inputs, the points halfway through the blocks and
    after the last block, coloured by label. Returns the figure."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(10, 3.3))
    keys = ["1-shortcut", "2-shortcut", "3-shortcut"]  # three label colours from the book's palette
    steps = [None, len(states) // 2, len(states) - 1]
    for ax, j in zip(axes, steps):
        pts = X if j is None else states[j]
        for lab in range(r_lab):
            P = pts[:, labels == lab]
            ax.scatter(P[0], P[1], s=14, color=COLORS[keys[lab]], label=f"label {lab}")
        lim = 1.15 * np.abs(pts).max()
        ax.set(
            aspect="equal",
            xlim=(-lim, lim),
            ylim=(-lim, lim),
            xticks=[],
            yticks=[],
            title="the inputs" if j is None else f"after block {j} of {len(states) - 1}",
        )
    axes[0].legend(fontsize=8, loc="lower left")
    plt.tight_layout()
    return fig


def final_losses(s9, s10, archs9, archs10):
    """Figures 9 and 10 side by side: the final loss against depth, linear networks above the
    optimum (``s9``, ``fig9.summarise``) and ReLU networks (``s10``, ``fig10.summarise``), one
    curve per architecture. Returns the figure."""
    import matplotlib.pyplot as plt

    fig, (a9, a10) = plt.subplots(1, 2, figsize=(10, 3.6))
    for arch in archs9:
        g = s9[s9.arch == arch]
        a9.plot(np.log10(g.depth), g.lg_excess, "o-", ms=4, color=COLORS[arch], label=LABELS[arch])
    for arch in archs10:
        g = s10[s10.arch == arch]
        a10.plot(
            np.log10(g.depth), np.log10(g.final_loss), "o-", ms=4, color=COLORS[arch], label=LABELS[arch] + "-ReLU"
        )
    a9.set(xlabel="lg(depth)", ylabel=r"lg(final loss $-\ \mathcal{L}_{\min}$)", title="linear (Figure 9)")
    a10.set(xlabel="lg(depth)", ylabel="lg(final loss)", title="ReLU at the mid positions (Figure 10)")
    a9.legend(fontsize=8)
    a10.legend(fontsize=8)
    plt.tight_layout()
    return fig
