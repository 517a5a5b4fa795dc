"""The numbers the prose of book/tour.ipynb quotes, and the data of its figures: each function
computes one figure's data from the papers' packages and formats the numbers the text quotes."""

from __future__ import annotations

import numpy as np

import resnet_nb as rn
from resnet_nb.book import show
from resnet_nb.core import hessians
from resnet_nb.experiments import fig5
from resnet_nb.hardt_ma import linear as hml
from resnet_nb.hardt_ma import relu as hmr

__all__ = ["key_figure_facts", "fig5_facts", "construction_facts", "final_losses_facts"]


def key_figure_facts(data) -> show.Facts:
    """The tour's first figure: Hardt & Ma's construction against Theorem 2.1's bound and the
    floor of a reflection (left), and the condition number at w = 0 of 1- and 2-shortcut networks
    on ``data`` by depth (right); with the numbers the text quotes."""
    # left: Hardt & Ma, Theorem 2.1 -- the largest layer norm needed to write R as a product
    R_pos = hml.random_positive_det(4, np.random.default_rng(1), gamma=1.0)
    gamma = hml.gamma_of(R_pos)
    R_neg = R_pos.copy()
    R_neg[:, 0] *= -1  # one column flipped: det R < 0, same singular values
    ells = [3, 4, 6, 8, 12, 16, 24, 32, 48, 64]
    built = [hml.max_spectral_norm(hml.theorem21_construction(R_pos, ell)[0]) for ell in ells]
    bound = [hml.theorem21_bound(gamma, ell) for ell in ells]
    floor = hml.min_max_norm_lower_bound(R_neg)
    assert np.linalg.det(R_neg) < 0 and floor == 1 and all(b <= c for b, c in zip(built, bound))
    # right: Li et al., Theorem 1 -- condition number of the Hessian at w = 0 against depth
    cond_at_zero = {
        n: [
            (
                n * R,
                hessians.cond_percentile(
                    hessians.spectrum(hessians.hessian_at_zero(rn.ShortcutNetwork(10, n, R), data))
                ),
            )
            for R in Rs
        ]
        for n, Rs in [(1, [1, 2, 4, 8, 16]), (2, [1, 2, 4, 8])]
    }
    # gamma = 1 by construction (to rounding), so every depth plotted has l >= 3 gamma
    assert abs(gamma - 1) < 1e-12 and min(ells) >= 3
    # without l >= 3 gamma: R = e^10 (1 x 1, gamma = 10) with l = 2 layers, whose best factors are
    # equal, 1 + a = e^5 (the ledger's falsifier of hm-thm21-bound)
    few_opt, few_bound = np.expm1(10 / 2), hml.theorem21_bound(10.0, 2)
    assert few_opt > few_bound
    # Theorem 1's own condition number at w = 0 (Eq. 12): |lambda|max / |lambda|min = smax(M) / smin(M)
    lam2 = np.abs(hessians.spectrum(hessians.hessian_at_zero(rn.ShortcutNetwork(10, 2, 1), data)))
    spread2 = np.ptp([c for _, c in cond_at_zero[2]]) / cond_at_zero[2][0][1]
    assert spread2 < 1e-9  # the 2-shortcut value is the same at every depth (to rounding)
    return show.Facts(
        ells=ells,
        built=built,
        bound=bound,
        floor=floor,
        cond_at_zero=cond_at_zero,
        gamma_s=show.num(gamma),
        ell_lo=show.count(ells[0]),
        ell_hi=show.count(ells[-1]),
        built_ratio=show.pct(max(b / c for b, c in zip(built, bound)), 1),
        few_opt_s=show.num(few_opt, 3),
        few_bound_s=show.num(few_bound, 3),
        cond2=show.num(cond_at_zero[2][0][1], 3),
        cond2_exact=show.num(lam2.max() / lam2.min(), 4),
        cond1_lo=show.num(cond_at_zero[1][0][1], 3),
        cond1_hi=show.num(cond_at_zero[1][-1][1], 3),
        depth1_hi=show.count(cond_at_zero[1][-1][0]),
        depth2_hi=show.count(cond_at_zero[2][-1][0]),
    )


def fig5_facts(T5, s5) -> show.Facts:
    """Figure 5 in words: how far lg cond of each architecture moves over the depths, where
    Xavier's condition number leaves float64's resolution, and how much smaller the 3-shortcut
    networks' curvature is (``T5``: the committed table, ``s5``: its summary)."""
    by = s5.set_index(["arch", "depth"]).lg_cond_mean
    lam_by = T5.groupby(["arch", "depth"]).lam_max.mean()
    scale_ratio = lam_by["2-shortcut"].mean() / lam_by["3-shortcut"].mean()
    assert scale_ratio > 10  # the 3-shortcut curvature is much smaller, not comparable
    return show.Facts(
        two_range=show.fixed(fig5.claim_flat_to_depth_96().value, 4),  # as The initial point quotes it
        ortho_growth=show.fixed(by["orthogonal"].iloc[-1] - by["orthogonal"].iloc[0], 1),
        one_growth=show.fixed(by["1-shortcut"].iloc[-1] - by["1-shortcut"].iloc[0], 1),
        xav_lost=show.count(s5[(s5.arch == "xavier") & (s5.unresolved > 0)].depth.min()),
        depth_max=show.count(s5.depth.max()),
        small=show.num(rn.core.init.SMALL_SCALE),
        runs5=show.count(s5.runs.max()),
        three_scale=show.num(scale_ratio, 2),
        three_range=show.fixed(by["3-shortcut"].max() - by["3-shortcut"].min(), 2),
    )


def construction_facts(net, report, fit_err: float, n_pts: int, r_lab: int) -> show.Facts:
    """Theorem 3.2's construction on the tour's points, and the refusals and JL failures of the
    stored draws at the printed constant c = 10 under both readings of rho."""
    draws32 = hmr.load_thm32()[0]
    refuse_sq = hmr.failure_rate(draws32.refuses_sq_c10)  # Assumption 3.1's reading of rho
    refuse_dist = hmr.failure_rate(draws32.refuses_dist_c10)  # the proof's reading
    jl_c10 = (draws32[["jl_excess_sq_c10", "jl_excess_dist_c10"]] > 1).all(axis=1)
    assert jl_c10.all()  # the projection broke its tolerance on every stored draw, both readings
    return show.Facts(
        n_s=show.count(n_pts),
        r_s=show.count(r_lab),
        blocks_s=show.count(report["blocks"]),
        jl_draws=show.count(len(draws32)),
        ref_sq=show.text(f"{refuse_sq['failures']} of {refuse_sq['draws']}"),
        ref_dist=show.text(f"{refuse_dist['failures']} of {refuse_dist['draws']}"),
        params_s=show.count(hmr.parameter_count(net)["trainable"]),
        fit_s=show.num(fit_err),
    )


def final_losses_facts(T10, T9, s10, s9) -> show.Facts:
    """Figures 9 and 10 in the tour: the runs and epochs behind them, the depth where the best
    linear 2-shortcut run sits at float64's rounding floor, the range of depths where the 2-shortcut
    ReLU network ends lowest (and the two where it does not), and how far each architecture ends
    above the optimum."""
    even = s9[s9.depth.isin(s9[s9.arch == "2-shortcut"].depth)]
    best9 = even.loc[even.groupby("depth").lg_excess.idxmin()]
    # the caption: the best 2-shortcut run ends closest to L_min at every even depth ...
    assert (best9.arch == "2-shortcut").all()
    # ... but at the shallowest depth it sits at float64's rounding floor
    two9 = s9[s9.arch == "2-shortcut"]
    assert len(two9) and two9[two9.depth == two9.depth.min()].at_rounding_floor.all()
    runs9, runs10 = show.count(T9.run.nunique()), show.count(T10.run.nunique())
    # Figure 10 at its largest depth: Xavier- and orthogonal-ReLU have no rate without divergence
    deep10 = s10[(s10.depth == s10.depth.max()) & (s10.arch != "2-shortcut")]
    assert deep10.lr_unstable.all()
    d10_max = show.count(s10.depth.max())
    best10 = s10.loc[s10.groupby("depth").final_loss.idxmin()]
    wins10 = sorted(best10[best10.arch == "2-shortcut"].depth)
    win_lo, win_hi = show.count(wins10[0]), show.count(wins10[-1])
    depths10 = sorted(set(s10.depth))
    assert wins10 == [d for d in depths10 if wins10[0] <= d <= wins10[-1]]  # one unbroken range
    lose10 = [show.count(d) for d in depths10 if d not in wins10]
    lose_a, lose_b = lose10
    d9_max = show.count(s9.depth.max())
    assert T9.epochs.nunique() == 1 and (T10.epochs == T9.epochs.iloc[0]).all()
    epochs9 = show.count(T9.epochs.iloc[0])
    at96 = s9[s9.depth == s9.depth.max()].set_index("arch").lg_excess
    gap_of = s9.assign(gap=10**s9.lg_excess).groupby("arch").gap.max()
    xavier_gap = show.num(gap_of["xavier"], 2)
    near_gap = show.num(max(gap_of["orthogonal"], gap_of["1-shortcut"]), 1)
    three_gap = show.num(gap_of["3-shortcut"], 2)
    assert gap_of["3-shortcut"] > 100 * max(gap_of["orthogonal"], gap_of["1-shortcut"])
    assert gap_of["xavier"] > 100 * max(gap_of["orthogonal"], gap_of["1-shortcut"])
    gap96 = show.fixed(at96.drop("2-shortcut").min() - at96["2-shortcut"], 1)
    return show.Facts(
        d10_max=d10_max,
        d9_max=d9_max,
        epochs9=epochs9,
        gap96=gap96,
        lose_a=lose_a,
        lose_b=lose_b,
        near_gap=near_gap,
        runs10=runs10,
        runs9=runs9,
        three_gap=three_gap,
        win_hi=win_hi,
        win_lo=win_lo,
        xavier_gap=xavier_gap,
    )
