"""The figures of Hardt & Ma's two chapters (chapters: book/hardt_ma_linear.ipynb and
book/hardt_ma_expressivity.ipynb): matplotlib drawings of what :mod:`resnet_nb.hardt_ma` computes.

* linear chapter: :func:`ratio_histogram` (Eq. (2.3)'s two forms at random points,
  :func:`~resnet_nb.hardt_ma.linear.theorem22.bound_ratios`), :func:`factor_norms_plot` (Theorem 2.1's
  factors) and :func:`det_sign_figure`, the key figure
  (:func:`~resnet_nb.hardt_ma.linear.theorem21.det_sign_data`);
* expressivity chapter: :func:`construction_view` (the Theorem 3.2 network moving random points) and
  :func:`construction_figure`, the key figure
  (:func:`~resnet_nb.hardt_ma.relu.theorem32.construction_steps`).

Colours are the book's palette, :data:`resnet_nb.book.palette.COLORS`, keyed by architecture.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from resnet_nb.book.palette import COLORS
from resnet_nb.hardt_ma.linear.network import max_spectral_norm, random_positive_det, residual_product
from resnet_nb.hardt_ma.linear.theorem21 import det_sign_data, theorem21_bound, theorem21_construction
from resnet_nb.hardt_ma.linear.theorem22 import FORMS, bound_ratios
from resnet_nb.hardt_ma.relu.network import parameter_count, unit_norm_columns
from resnet_nb.hardt_ma.relu.theorem32 import construction_steps, theorem32_construction
from resnet_nb.hardt_ma.relu.theorem32_width import RHO_READINGS

__all__ = [
    "fit_size_figure",
    "margin_table",
    "constant_figure",
    "gd_runs_figure",
    "hessians_at_zero_figure",
    "worst_forms_table",
    "contraction_table",
    "analog_figure",
    "survey_summary",
    "refusal_rates",
    "jl_rates",
    "ratio_histogram",
    "factor_norms_plot",
    "det_sign_figure",
    "construction_view",
    "construction_figure",
    "show_factor_norms",
    "show_ratios",
    "show_construction",
    "width_span",
    "refusal_row",
    "extra_blocks_text",
    "failures_of",
    "table",
]


def ratio_histogram(l: int, tau: float, Sigma, ax=None, seed: int = 0, label: str = "Sigma"):
    """Histogram of :func:`bound_ratios` on a log axis; left of the dashed line the bound fails."""
    import matplotlib.pyplot as plt

    ratios = bound_ratios(l, tau, Sigma, d=np.asarray(Sigma).shape[0], seed=seed)
    ax = ax or plt.gca()
    ax.clear()
    bins = np.logspace(-4, 4, 50)
    for name, v in ratios.items():
        ax.hist(
            v,
            bins=bins,
            alpha=0.6,
            label=f"{name}: min {v.min():.3g}",
            color=COLORS["1-shortcut" if name == "printed" else "residual"],
        )
    ax.axvline(1.0, color="k", ls="--")
    ax.set(
        xscale="log",
        xlabel="||grad f||^2 / right-hand side",
        ylabel="points",
        title=f"l={l}, tau={tau}, {label}  (left of the dashed line: violated)",
    )
    ax.legend(fontsize=8)
    return ax


def factor_norms_plot(l: int, gamma: float, d: int = 4, seed: int = 1, ax=None):
    """Bar chart of ||A_i|| for the Theorem 2.1 construction of a random R (det R > 0) of the given
    gamma, with the two forms of the bound; the title gives the split and the product's error."""
    import matplotlib.pyplot as plt

    R = random_positive_det(d, np.random.default_rng(seed), gamma=gamma)
    A, info = theorem21_construction(R, l)
    ax = ax or plt.gca()
    ax.clear()
    ax.bar(np.arange(1, l + 1), np.linalg.norm(A, ord=2, axis=(1, 2)), color=COLORS["residual"])
    ax.axhline(
        theorem21_bound(info["gamma"], l, "summary"),
        color=COLORS["1-shortcut"],
        ls="--",
        label="(4 pi + 3 gamma)/l (June-2017 summary; unverified)",
    )
    ax.axhline(
        theorem21_bound(info["gamma"], l, "iclr"),
        color=COLORS["3-shortcut"],
        ls="--",
        label="2(sqrt(pi)+sqrt(3 gamma))^2/l (ICLR text)",
    )
    err = np.abs(residual_product(A) - R).max()
    ax.set(
        xlabel="factor i",
        ylabel="||A_i||",
        ylim=(0, 6),
        title=f"l={l}, gamma={info['gamma']:.2f}: p={info['p']} stretch, q={info['q']} rotation, error {err:.0e}",
    )
    ax.legend(loc="upper right", fontsize=8)
    return ax


def det_sign_figure(data: dict | None = None):
    """The chapter's key figure from :func:`det_sign_data`: left, ``|||A|||`` against depth for
    targets with ``det R > 0`` (falling like ``1/l``, under the ICLR bound) and for
    ``R = diag(-1, 1)`` (never below 1); right, every factor's norm against its determinant: a factor
    with ``det(I + A_k) < 0`` has ``||A_k|| >= 1``, and a target with ``det R < 0`` needs one."""
    import matplotlib.pyplot as plt

    data = det_sign_data() if data is None else data
    fig, ax = plt.subplots(1, 2, figsize=(11, 3.8), gridspec_kw=dict(width_ratios=[1.25, 1]))
    _depth_panel(ax[0], data)
    _factor_panel(ax[1], data)
    fig.tight_layout()
    return fig


def _depth_panel(a, data):
    """Left panel of :func:`det_sign_figure`: the largest factor's norm against depth."""
    ls = data["ls"]
    a.axhspan(1e-3, 1.0, color=COLORS["1-shortcut"], alpha=0.08, label="|||A||| < 1: unreachable when det R < 0")
    a.loglog(ls, data["-I_2"], "o-", ms=4, color=COLORS["residual"], label="R = -I_2 (det +1): construction")
    a.loglog(
        ls,
        data["diag(-1, -2)"],
        "s-",
        ms=4,
        color=COLORS["3-shortcut"],
        label="R = diag(-1, -2) (det +2): construction",
    )
    a.loglog(ls, data["-I_2 bound"], "--", color=COLORS["residual"], lw=1, label="ICLR bound, gamma = 0")
    a.loglog(ls, data["diag(-1, -2) bound"], "--", color=COLORS["3-shortcut"], lw=1, label="ICLR bound, gamma = log 2")
    a.loglog(ls, data["explicit"], "^-", ms=4, color=COLORS["1-shortcut"], label="R = diag(-1, 1) (det -1): explicit")
    a.loglog(
        data["search_ls"],
        data["search"],
        "x",
        ms=8,
        mew=2,
        color=COLORS["1-shortcut"],
        label="R = diag(-1, 1): best found by search",
    )
    a.set(xlabel="depth l", ylabel="|||A||| = max_i ||A_i||", ylim=(0.02, 40), title="the largest factor against depth")
    a.legend(fontsize=7.5, loc="lower left")


def _factor_panel(b, data):
    """Right panel of :func:`det_sign_figure`: every factor's norm against its determinant."""
    b.axvspan(0, 1, ymin=0, ymax=0.5, color=COLORS["1-shortcut"], alpha=0.08)
    b.text(
        0.5,
        -0.5,
        "impossible:\n||A|| < 1 and det(I + A) <= 0",
        ha="center",
        va="center",
        fontsize=8,
        color=COLORS["1-shortcut"],
    )
    style = {
        "det R > 0: construction": ("o", COLORS["residual"]),
        "det R < 0: search": ("x", COLORS["1-shortcut"]),
        "det R < 0: explicit": ("^", COLORS["1-shortcut"]),
    }
    for name, (norms, dets) in data["factors"].items():
        m, c = style[name]
        b.scatter(norms, dets, marker=m, s=22, color=c, label=name, facecolors="none" if m == "o" else None)
    b.axhline(0, color=COLORS["plain"], lw=0.8)
    b.axvline(1, color=COLORS["plain"], lw=0.8, ls=":")
    b.set(
        xlabel="||A_k|| (one factor)",
        ylabel="det(I + A_k)",
        yscale="symlog",
        xlim=(0, 2.2),
        title="every factor: its norm against its determinant",
    )
    b.set_yscale("symlog", linthresh=1.0)
    b.set_ylim(-1e2, 1e2)
    b.legend(fontsize=7.5, loc="upper left")


def construction_view(n: int, k: int, r: int, axes=None, step=None, seed: int = 0, dim: int = 20):
    """Scatter ``n`` random unit points with ``r`` labels as the Theorem 3.2 network moves them,
    in a random 2-D view of its k-dimensional hidden space: the input and the output of the
    blocks (``step=None``), or the state after block ``step``."""
    import matplotlib.pyplot as plt

    palette = list(dict.fromkeys(COLORS.values()))  # the book's distinct colours, repeated beyond them
    g = np.random.default_rng(seed)
    X = unit_norm_columns(g.standard_normal((dim, n)))
    y = g.integers(0, r, n)
    net, rep = theorem32_construction(X, y, k=k, r=r, seed=seed)
    states = net.trajectory(X)
    view = np.linalg.qr(g.standard_normal((k, 2)))[0].T
    err = np.abs(net(X) - np.eye(r)[:, y]).max()
    shown = [0, len(states) - 1] if step is None else [step]
    axes = np.atleast_1d(axes if axes is not None else plt.subplots(1, 2, figsize=(9, 4))[1])
    for ax, j in zip(axes, shown):
        ax.clear()
        P = view @ states[j]
        ax.scatter(P[0], P[1], c=[palette[c % len(palette)] for c in y], s=12)
        ax.set(
            xlim=(-2, 2),
            ylim=(-2, 2),
            aspect="equal",
            title=f"after block {j} of {len(states) - 1} (n={n}, k={k}, r={r})",
        )
    axes[-1].set_xlabel(f"{rep['blocks']} blocks, {parameter_count(net)['trainable']} parameters, max error {err:.0e}")
    return axes


def construction_figure(n: int = 6, r: int = 3, seed: int = 3):
    """The chapter's key figure: one panel per residual block of :func:`construction_steps`.
    Each panel shows the points before the block (faint), arrows to where the block sends them,
    the region where each of the block's units fires (beyond a line orthogonal to its centre),
    the surrogates (stars), the unit circle (faint) and, in every panel, the number of each point
    where it sits before the block. Returns the figure."""
    import matplotlib.pyplot as plt

    steps = construction_steps(n, r, seed)
    palette = [COLORS[key] for key in ("2-shortcut", "1-shortcut", "3-shortcut", "orthogonal")]
    grey = COLORS["plain"]
    S, Q = steps["states"], steps["Q"]
    nb = len(steps["moved"])
    fig, axes = plt.subplots(1, nb, figsize=(3.2 * nb, 3.4))
    axes = np.atleast_1d(axes)
    t = np.linspace(-1.6, 1.6, 2)
    for j, ax in enumerate(axes):
        before, idx = S[j], steps["moved"][j]
        _shade_firing_regions(ax, steps, j, palette, t)
        _draw_moves(ax, steps, j, palette)
        ax.scatter(
            *Q,
            marker="*",
            s=150,
            c=[palette[c % len(palette)] for c in range(Q.shape[1])],
            edgecolors="black",
            lw=0.5,
            zorder=4,
        )
        ax.set(
            xlim=(-1.35, 1.35),
            ylim=(-1.35, 1.35),
            aspect="equal",
            xticks=[],
            yticks=[],
            title=f"block {j + 1} moves point{'s' if idx.size > 1 else ''} {' and '.join(str(i) for i in idx)}",
        )
        ax.add_patch(plt.Circle((0, 0), 1.0, fill=False, color=grey, lw=0.6, alpha=0.35))
        _number_points(ax, before, grey)
    axes[0].set_xlabel("arrows: the block's move; shaded: where its unit fires", fontsize=8)
    axes[-1].set_xlabel("stars: the surrogates q_c, one per label", fontsize=8)
    fig.tight_layout()
    return fig


def _shade_firing_regions(ax, steps, j, palette, t):
    """Block ``j``'s units: the line beyond which each fires (dashed) and that side (shaded)."""
    labels = steps["labels"]
    for i_z, z, delta in zip(steps["moved"][j], steps["centres"][j], steps["deltas"][j]):
        col = palette[labels[i_z] % len(palette)]
        # the unit fires where <z, h> > ||z||^2 - delta: beyond this line, shaded
        u = z / np.linalg.norm(z)
        c = (z @ z - delta) / np.linalg.norm(z)
        perp = np.array([-u[1], u[0]])
        p0, p1 = c * u + t[0] * perp, c * u + t[1] * perp
        ax.plot([p0[0], p1[0]], [p0[1], p1[1]], color=col, lw=1, ls="--")
        far = 3 * u
        ax.fill(
            [p0[0], p1[0], p1[0] + far[0], p0[0] + far[0]],
            [p0[1], p1[1], p1[1] + far[1], p0[1] + far[1]],
            color=col,
            alpha=0.12,
            lw=0,
        )


def _draw_moves(ax, steps, j, palette):
    """Block ``j``'s moves: an arrow from each moved point (hollow) to where the block sends it;
    the other points where they are (faint if an earlier block moved them)."""
    before, after, idx, labels = steps["states"][j], steps["states"][j + 1], steps["moved"][j], steps["labels"]
    for i in range(before.shape[1]):
        col = palette[labels[i] % len(palette)]
        if i in idx:
            ax.scatter(*before[:, i], s=40, facecolors="none", edgecolors=col, lw=1.5, zorder=3)
            ax.annotate(
                "",
                xy=after[:, i],
                xytext=before[:, i],
                arrowprops=dict(arrowstyle="-|>", color=col, lw=1.6, shrinkA=4, shrinkB=2),
            )
        else:
            ax.scatter(
                *after[:, i],
                s=40,
                color=col,
                alpha=1.0 if j == 0 or i not in np.concatenate(steps["moved"][:j] or [np.array([], int)]) else 0.55,
                zorder=3,
            )


def _number_points(ax, before, grey):
    """Every point numbered where it sits before the block; points on one surrogate share a label."""
    spots = {}
    for i in range(before.shape[1]):
        spots.setdefault(tuple(np.round(before[:, i], 9)), []).append(str(i))
    for p, names in spots.items():
        p = np.array(p)
        ax.annotate(
            ",".join(names),
            p + 0.19 * p / max(np.linalg.norm(p), 1e-12),
            ha="center",
            va="center",
            fontsize=8,
            color=grey,
        )


# -- what the chapters' widgets call: draw, then show (an ipywidgets.interact callback) ----------
def show_factor_norms(l: int, gamma: float):
    """:func:`factor_norms_plot`, shown."""
    import matplotlib.pyplot as plt

    factor_norms_plot(l, gamma)
    plt.show()


def show_ratios(l: int, tau: float, log10_c: float, D):
    """:func:`ratio_histogram` for ``Sigma = 10^log10_c D``, shown."""
    import matplotlib.pyplot as plt

    ratio_histogram(l, tau, 10.0**log10_c * D, label=f"Sigma = 10^{log10_c:g} D")
    plt.show()


def show_construction(n: int, k: int, r: int):
    """:func:`construction_view`, shown."""
    import matplotlib.pyplot as plt

    construction_view(n, k, r)
    plt.show()


# -- the refusal-rate table of Theorem 3.2's width (book/hardt_ma_expressivity.ipynb) -------------
def width_span(ks) -> str:
    """The range of the widths drawn, ``"lo-hi"``."""
    return f"{int(min(ks))}-{int(max(ks))}"


def refusal_row(points: str, order: str, reading, c, ks: str, drawn: str, fails) -> dict:
    """One row of the refusal-rate table: the setting, and the count, rate and interval of
    :func:`resnet_nb.hardt_ma.relu.failure_rate` over ``fails``."""
    from resnet_nb.hardt_ma.relu import failure_rate

    return dict(points=points, order=order, rho=reading, c=c, widths=ks, drawn=drawn, **failure_rate(fails))


def extra_blocks_text(results, data: str):
    """How many blocks the greedy order used beyond ``ceil(n / k)`` on ``data``, at most, in words
    (``results``: one row per construction, with columns ``data``, ``blocks``, ``ceil_n_over_k``)."""
    from resnet_nb.book import show

    rows = results[results.data == data]
    if rows.empty:
        raise ValueError(f"no construction on data {data!r}; the table has {sorted(set(results.data))}")
    e = int((rows.blocks - rows.ceil_n_over_k).max())
    return show.text("no more than ⌈n/k⌉ blocks" if e == 0 else f"at most {e} more block{'s' * (e > 1)} than ⌈n/k⌉")


def failures_of(rate: dict):
    """``"x of n"`` for a :func:`resnet_nb.hardt_ma.relu.failure_rate` dict."""
    from resnet_nb.book import show

    return show.x_of_n(rate["failures"], rate["draws"])


def table(df, precision: int = 3, sci=()):
    """:func:`resnet_nb.book.show.table` as the expressivity chapter shows its tables: 3 decimals,
    missing entries as "-"."""
    from resnet_nb.book import show

    return show.table(df, precision=precision, sci=sci, na_rep="-")


def refusal_rates(syn_p, mn_p, draws, greedy, k_syn):
    """The refusal-rate table: how often Theorem 3.2's construction refuses (width below the
    dimension) on the synthetic set (``syn_p``, width ``k_syn``), on MNIST (``mn_p``, width 320)
    and on random points (``draws``) under both readings of rho at c = 10 and 30, and with the
    greedy selection (``greedy``), each with its 95% interval."""
    SQ, DIST = RHO_READINGS
    rnd = "random, n = 600, d = 200"
    both = "data and projection"
    rows = [
        refusal_row("synthetic set, n = 2000, d = 100", "paper's", SQ, 10, str(k_syn), "projections", syn_p.refuses),
        refusal_row("MNIST, n = 2000, d = 784", "paper's", "-", "-", "320", "projections", mn_p.refuses),
    ]
    for c in (10, 30):
        for reading, tag in ((SQ, "sq"), (DIST, "dist")):
            ks, fails = draws[f"k_{tag}_c{c}"], draws[f"refuses_{tag}_c{c}"]
            rows.append(refusal_row(rnd, "paper's", reading, c, width_span(ks), both, fails))
    rows.append(refusal_row(rnd, "greedy", SQ, 10, width_span(greedy.k_sq_c10), both, ~(greedy.greedy_error < 1e-8)))
    return pd.DataFrame(rows).rename(columns=dict(draws="N", low="95% low", high="95% high"))


def jl_rates(*tables):
    """The JL-step table: for each committed table (c = 10, 30) and each reading of rho, the widths,
    the range of rho, the distortion over its tolerance, and how often the step failed (95% interval)."""
    rows = [
        dict(
            c=int(v["c"]),
            rho=r,
            widths=f"{v[r]['k_min']}-{v[r]['k_max']}",
            rho_range=f"{v[r]['rho_min']:.3f}-{v[r]['rho_max']:.3f}",
            distortion_over_tolerance=f"{v[r]['excess_min']:.2f}-{v[r]['excess_max']:.2f}",
            **{c: v[r][c] for c in ("failures", "draws", "low", "high")},
        )
        for v in tables
        for r in RHO_READINGS
    ]
    return pd.DataFrame(rows).rename(columns=dict(draws="N", low="95% low", high="95% high"))


def survey_summary(f):
    """The Theorem 2.1 survey in six rows (``f``: ``facts.hardt_ma_linear.survey_numbers_facts``):
    how many constructions, their worst product error and largest factor against both constants,
    and the paper's recipe against the ICLR bound."""
    rows = [
        ("constructions of the one-rotation variant (with l >= 3 gamma)", f"{f.n_constructions} ({f.n_hyp})"),
        ("its worst entry of prod(I + A_i) - R", str(f.worst_prod)),
        ("its largest |||A||| / ICLR bound", str(f.ratio_iclr)),
        ("its largest |||A||| / summary's constant", str(f.ratio_summary)),
        ("runs of the paper's recipe (worst product error)", f"{f.n_paper} ({f.paper_err})"),
        ("the recipe's largest |||A||| / ICLR bound, below 1 by", str(f.paper_gap)),
    ]
    return pd.DataFrame([dict(quantity=q, value=v) for q, v in rows])


def analog_figure(runs):
    """The Section 5 analog, every seed: the training cross-entropy (left, log scale) and the
    held-out accuracy (right) against the epoch, one colour per initialisation (``runs``:
    ``experiments.hm_analog.load``). Returns the figure."""
    import matplotlib.pyplot as plt

    init_colors = {
        "hardt_ma_residual": COLORS["residual"],
        "standard": COLORS["plain"],
        "hardt_ma": COLORS["1-shortcut"],
    }
    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    for init, g in runs.groupby("init", sort=False):
        for seed, r in g.groupby("seed"):
            label = init if seed == g.seed.min() else None
            ax[0].semilogy(r.epoch, r.loss, color=init_colors[init], alpha=0.6, label=label)
            ax[1].plot(r.epoch, r.test_accuracy, color=init_colors[init], alpha=0.6, label=label)
    ax[0].set(xlabel="epoch", ylabel="training cross-entropy", title="analog on MNIST digits (not CIFAR), every seed")
    ax[1].set(xlabel="epoch", ylabel="held-out accuracy", title="held-out digits")
    ax[0].legend(fontsize=8)
    plt.tight_layout()
    return fig


def constant_figure(R_of: dict, ls):
    """Theorem 2.1's constant: left, l max_i ||A_i|| of the construction against the depth ``ls``
    for gamma = 0.5, 2 and 4 (dashed: the ICLR constant; dotted: l = 3 gamma); right, the same at
    l = 100 against gamma (``R_of``: gamma -> R) beside the three constants in circulation. Returns
    the figure."""
    import math

    import matplotlib.pyplot as plt

    gammas = np.array(list(R_of))
    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    for g, col in zip((0.5, 2.0, 4.0), (COLORS["residual"], COLORS["3-shortcut"], COLORS["1-shortcut"])):
        scaled = [l * max_spectral_norm(theorem21_construction(R_of[g], l)[0]) for l in ls]
        ax[0].loglog(ls, scaled, "o-", ms=3, color=col, label=f"construction, gamma={g}")
        ax[0].axhline(2 * (math.sqrt(math.pi) + math.sqrt(3 * g)) ** 2, color=col, ls="--")
        ax[0].axvline(3 * g, color=col, ls=":")
    ax[0].set(xlabel="depth l", ylabel="l * max_i ||A_i||", title="dashed: ICLR constant; dotted: l = 3 gamma")
    ax[0].legend(fontsize=8)
    at_l = [100 * max_spectral_norm(theorem21_construction(R_of[g], 100)[0]) for g in gammas]
    ax[1].plot(gammas, at_l, "o-", color=COLORS["residual"], label="construction, l = 100")
    summary = "4 pi + 3 gamma (June-2017 summary; unverified)"
    ax[1].plot(gammas, 4 * np.pi + 3 * gammas, "--", color=COLORS["1-shortcut"], label=summary)
    iclr = 2 * (np.sqrt(np.pi) + np.sqrt(3 * gammas)) ** 2
    ax[1].plot(gammas, iclr, "--", color=COLORS["3-shortcut"], label="2(sqrt(pi)+sqrt(3 gamma))^2 (ICLR)")
    ax[1].plot(gammas, np.pi + gammas, ":", color=COLORS["plain"], label="pi + gamma")
    ax[1].set(xlabel="gamma", ylabel="l * max_i ||A_i||", title="the constant against gamma")
    ax[1].legend(fontsize=8)
    plt.tight_layout()
    return fig


def gd_runs_figure(runs: dict, L_min: float):
    """Gradient descent above the optimum, residual networks from 0 (solid) against plain networks
    from a small start (dashed), lighter for deeper (``runs``: (kind, depth) -> TrainResult, depths
    3, 6 and 10). Returns the figure."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for (kind, l), run in runs.items():
        residual = kind.startswith("res")
        ax.semilogy(
            np.maximum(run.losses - L_min, 1e-16),
            ls="-" if residual else "--",
            color=COLORS["residual"] if residual else COLORS["plain"],
            alpha=(1.0, 0.7, 0.4)[(3, 6, 10).index(l)],
            label=f"{kind}, l={l}",
        )
    ax.set(
        xlabel="gradient step", ylabel="loss - L_min (floored at 1e-16)", title="full-batch gradient descent, lr = 0.1"
    )
    ax.legend(fontsize=8)
    return fig


def hessians_at_zero_figure(data, l: int = 3):
    """The Hessian at 0 of a plain and of a residual linear network of depth ``l`` on ``data``, as
    heat maps on one colour scale (the plain one is zero). Returns the figure."""
    import matplotlib.pyplot as plt
    import torch

    from resnet_nb.core.hessians import hessian
    from resnet_nb.core.networks import ShortcutNetwork, plain_network

    d = data.d
    zero = torch.zeros(l, 1, d, d, dtype=torch.float64)
    panels = [(f"plain, l = {l}", plain_network(d, l)), (f"residual, l = {l}", ShortcutNetwork(d, 1, l))]
    fig, ax = plt.subplots(1, 2, figsize=(9, 4))
    for a, (name, net) in zip(ax, panels):
        im = a.imshow(hessian(net, zero, data).numpy(), cmap="RdBu_r", vmin=-2, vmax=2)
        a.set_title(f"Hessian at 0: {name}")
    fig.colorbar(im, ax=ax, shrink=0.8)
    return fig


def worst_forms_table(bound_table):
    """The gradient bound's four forms, each at its worst over the survey (``bound_table``:
    ``hardt_ma.linear.gradient_bound_survey``), one row per Sigma (3 significant digits)."""
    worst = bound_table.groupby("Sigma")[[f"worst_{f}" for f in FORMS]].min().reset_index()
    worst = worst.rename(columns={"worst_via_E": "worst_step_ii", "worst_exponent_only": "worst_exponent_only_repair"})
    return worst.style.hide(axis="index").format("{:.3g}", subset=[c for c in worst.columns if c != "Sigma"])


def contraction_table(ls=(2, 8, 32, 128)):
    """The factor (1 - tau)^(2l - 2) of the gradient bound at a fixed tau = 0.1 and at tau = 1/l,
    by depth (3 significant digits): at fixed tau it vanishes with depth, at tau = 1/l it does not."""
    rows = [dict(l=l, fixed_tau=(1 - 0.1) ** (2 * l - 2), tau_1_over_l=(1 - 1 / l) ** (2 * l - 2)) for l in ls]
    return pd.DataFrame(rows).style.hide(axis="index").format("{:.3g}", subset=["fixed_tau", "tau_1_over_l"])


def fit_size_figure(results, narrow):
    """Theorem 3.2's exact fits: left, the blocks the greedy order used against ceil(n / k); right,
    the trainable parameters against n beside n (2k^2 + k) at k = 3 (``results``: one row per fit at
    the theorem's width on each data set; ``narrow``: the fits at widths 3 and 2). Returns the figure."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    data_colors = {"synthetic": COLORS["2-shortcut"], "MNIST": COLORS["1-shortcut"]}
    for name, g in results.groupby("data"):
        c = data_colors[name]
        ax[0].plot(g.ceil_n_over_k, g.blocks, "o", color=c, label=f"k = ceil(6 ln n), {name}")
        ax[1].loglog(g.n, g.trainable, "o-", color=c, label=f"k = ceil(6 ln n), {name}")
    narrow_label = "k = 3 and 2, MNIST n = 2000"
    ax[0].plot(narrow.ceil_n_over_k, narrow.blocks, "s", color=COLORS["3-shortcut"], label=narrow_label)
    top = max(results.blocks.max(), narrow.blocks.max())
    ax[0].plot([1, top], [1, top], ":", color=COLORS["plain"], label="blocks = ceil(n/k)")
    ax[0].set(
        xscale="log", yscale="log", xlabel="ceil(n / k)", ylabel="blocks used", title="blocks of the greedy order"
    )
    ax[1].loglog([2000], narrow.trainable[:1], "s", color=COLORS["3-shortcut"], label="k = 3, MNIST")
    ns = np.array([250, 2000])
    ax[1].loglog(ns, ns * (2 * 3**2 + 3), ":", color=COLORS["plain"], label="n (2k^2 + k), k = 3")
    ax[1].set(xlabel="number of points n", ylabel="trainable parameters", title="Theorem 3.2: exact fits")
    for a in ax:
        a.legend(fontsize=8)
    plt.tight_layout()
    return fig


def margin_table(proj_all):
    """The margin table: per data set and width k, how many projections, in how many every point is
    exposed (positive margin), in how many the paper's order fits, the median smallest margin and
    the lowest share of exposed points (``proj_all``: ``hardt_ma.relu.load_thm32``'s projections)."""
    return (
        proj_all.groupby(["data", "k"], sort=False)
        .agg(
            projections=("seed", "size"),
            every_point_exposed=("exposed", lambda e: int((e == 1).sum())),
            paper_order_fits=("refuses", lambda r: int((~r).sum())),
            median_min_margin=("min_margin", "median"),
            lowest_exposed=("exposed", "min"),
        )
        .reset_index()
    )
