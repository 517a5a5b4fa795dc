"""Draw the introduction's figure, ``book/figures/intro_overview.png``.

The introduction is a Markdown page (no kernel), so its figure is a file made by this script:

    PYTHONPATH=. .venv/bin/python scripts/intro_figure.py

Left, Hardt & Ma's Theorem 2.1: the largest layer norm the book's construction needs to write a
random 4 x 4 matrix R (det R > 0, gamma = 1, l >= 3 gamma) as (I + A_l)...(I + A_1), against the theorem's
bound, and the floor 1 that no factorisation can go below when det R < 0. Right, Li et al.: the
initial condition number |lambda|_max / |lambda|_(10%) against depth, from the committed run of
Figure 5 (``results/fig5/paper/table.csv``). The tour (book/tour.ipynb) draws both live.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from resnet_nb.book.plotting import COLORS, LABELS, style  # noqa: E402
from resnet_nb.experiments import fig5  # noqa: E402
from resnet_nb.hardt_ma import linear as hml  # noqa: E402
from resnet_nb.shared import common  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "book" / "figures" / "intro_overview.png"


def main(out: Path = OUT) -> Path:
    style()
    R = hml.random_positive_det(4, np.random.default_rng(1), gamma=1.0)
    gamma = hml.gamma_of(R)
    R_neg = R.copy()
    R_neg[:, 0] *= -1
    ells = [3, 4, 6, 8, 12, 16, 24, 32, 48, 64]
    built = [hml.max_spectral_norm(hml.theorem21_construction(R, ell)[0]) for ell in ells]
    bound = [hml.theorem21_bound(gamma, ell) for ell in ells]
    floor = hml.min_max_norm_lower_bound(R_neg)

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.4))
    ax1.loglog(ells, built, "o-", color=COLORS["1-shortcut"], label=r"det $R > 0$: a factorisation")
    ax1.loglog(ells, bound, "k--", lw=1, label="bound of Theorem 2.1")
    ax1.axhspan(1e-2, floor, color=COLORS["plain"], alpha=0.15)
    ax1.axhline(floor, color=COLORS["plain"], lw=2, label=r"det $R < 0$: none below 1")
    ax1.set(
        xlabel=r"number of layers $\ell$",
        ylabel=r"$\max_i \|A_i\|$",
        ylim=(0.02, 12),
        title=r"Hardt & Ma: $\det R > 0$, small layers",
    )
    ax1.set_xticks([3, 10, 30, 64], ["3", "10", "30", "64"])
    ax1.minorticks_off()
    ax1.legend(fontsize=8, loc="lower left")

    s5 = fig5.summarise(common.committed("fig5"))
    for arch in common.ARCHS:
        g = s5[(s5.arch == arch) & (s5.unresolved == 0)]
        ax2.plot(np.log10(g.depth), g.lg_cond_mean, "o-", ms=4, color=COLORS[arch], label=LABELS[arch])
        u = s5[(s5.arch == arch) & (s5.unresolved > 0)]
        ax2.plot(np.log10(u.depth), u.lg_resolution_limit, "^", mfc="none", color=COLORS[arch])
    ax2.set(
        xlabel="lg(depth)",
        ylabel=r"lg($|\lambda|_{\max}/|\lambda|_{(10\%)}$)",
        title="Li et al.: curvature at the start (Figure 5)",
    )
    ax2.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


if __name__ == "__main__":
    print(main())
