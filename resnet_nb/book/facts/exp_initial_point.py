"""The numbers the prose of book/exp_initial_point.ipynb quotes, section by section: each function
selects them from the chapter's results and formats them as the page shows them."""

from __future__ import annotations

import numpy as np

from resnet_nb.book import experiment_figures as figures
from resnet_nb.book import show
from resnet_nb.core.init import SMALL_SCALE
from resnet_nb.experiments import fig5

__all__ = ["growth_facts", "flatness_facts", "scale_facts", "live_start_facts"]


def growth_facts(ends2, paper, three) -> show.Facts:
    """How fast lg cond drifts with depth for 2-shortcut and orthogonal networks, and the depth at
    which 'flat' would stop holding (fig5.flat_until)."""
    until = fig5.flat_until(paper)
    break_depth = show.count(int(round(until["depth"], -2)))
    drift_per_layer, orth_per_lg = show.num(until["slope"], 2), show.fixed(until["per_lg"], 2)
    stretch = show.count(int(round(until["depth"] / until["deepest"])))
    lam2 = paper[paper["arch"] == "2-shortcut"].groupby("depth")["lam_max"].mean()
    c_drift = np.polyfit(lam2.index.to_numpy() / 2, lam2.to_numpy(), 1)[0] / SMALL_SCALE**2
    drift_c = show.fixed(c_drift, 2)
    lo_d, hi_d = ends2.index.min(), ends2.index.max()
    up_max = np.log10(ends2.loc[hi_d, "lam_max"] / ends2.loc[lo_d, "lam_max"])  # lambda_max rises
    up_p10 = -np.log10(ends2.loc[hi_d, "lam_p10"] / ends2.loc[lo_d, "lam_p10"])  # the 10th pct falls
    # both ends matter: each gives more than a quarter of the rise
    assert up_max > 0 and up_p10 > 0 and min(up_max, up_p10) > 0.25 * (up_max + up_p10)
    lmax_lo, lmax_hi, p10_lo2, p10_hi2 = (
        show.fixed(ends2.loc[d, k], 4)
        for k, d in (("lam_max", lo_d), ("lam_max", hi_d), ("lam_p10", lo_d), ("lam_p10", hi_d))
    )
    up_max_s, up_p10_s = show.fixed(up_max, 4), show.fixed(up_p10, 4)
    assert until["slope"] > 0 and until["per_lg"] > 0 and c_drift > 0
    assert until["depth"] > 10 * until["deepest"]  # an extrapolation far beyond the measured depths
    three_range, three_tol = show.fixed(three.value, 3), show.fixed(three.tol, 3)
    return show.Facts(
        break_depth=break_depth,
        drift_c=drift_c,
        drift_per_layer=drift_per_layer,
        lmax_hi=lmax_hi,
        lmax_lo=lmax_lo,
        orth_per_lg=orth_per_lg,
        p10_hi2=p10_hi2,
        p10_lo2=p10_lo2,
        stretch=stretch,
        three_range=three_range,
        three_tol=three_tol,
        up_max_s=up_max_s,
        up_p10_s=up_p10_s,
    )


def flatness_facts(ends2, paper, three) -> show.Facts:
    """The curvature cond10 does not see: lambda_max of the 3-shortcut networks against the 2-shortcut
    ones (run means)."""
    three_spread = show.fixed(three.spread, 3)
    three_word = show.text("below" if three.fragile else "above")
    p3 = fig5.percentile_table(paper, "3-shortcut")
    p10_3_spread = show.pct(p3["lam_p10"].max() / p3["lam_p10"].min() - 1, 0)
    max_3_rise = show.pct(p3["lam_max"].iloc[-1] / p3["lam_max"].iloc[0] - 1, 0)
    p10_ratio = p3["lam_p10"].max() / p3["lam_p10"].min()
    # the scale cond10 does not see: the 3-shortcut curvature against the 2-shortcut one (run means)
    curv3 = float(ends2["lam_max"].mean() / p3["lam_max"].mean())
    assert curv3 > 10  # the 3-shortcut Hessian is of order eps, the 2-shortcut one of order 1
    curv_ratio3 = show.num(curv3, 2)
    lam3_lo, lam3_hi = show.num(p3["lam_max"].min(), 2), show.num(p3["lam_max"].max(), 2)
    lam2_mean = show.num(ends2["lam_max"].mean(), 3)
    assert three.passed and p10_ratio < 1.1 < p3["lam_max"].iloc[-1] / p3["lam_max"].iloc[0]
    names = {"lam_max": "|λ|max", "lam_p10": "|λ|(10%)", "lg": "lg cond"}
    return show.Facts(
        curv_ratio3=curv_ratio3,
        lam2_mean=lam2_mean,
        lam3_hi=lam3_hi,
        lam3_lo=lam3_lo,
        max_3_rise=max_3_rise,
        names=names,
        p10_3_spread=p10_3_spread,
        p3=p3,
        three_spread=three_spread,
        three_word=three_word,
    )


def scale_facts(one_like_plain, s) -> show.Facts:
    """The gap 1-shortcut - orthogonal at the first and last depth, and lg cond of the 2- and
    3-shortcut networks at the ends of the grid."""
    lg = s.set_index(["arch", "depth"])["lg_cond_mean"]
    two_2, two_96 = (show.fixed(lg["2-shortcut", L], 3) for L in (2, 96))
    two_spread = show.num(s.loc[s["arch"] == "2-shortcut", "lg_cond_std"].max(), 1)
    xav_2, xav_24 = show.fixed(lg["xavier", 2], 1), show.fixed(lg["xavier", 24], 1)
    unres = s.set_index(["arch", "depth"])["unresolved"]
    xav_32_unresolved = show.count(unres["xavier", 32])
    three_3, three_96 = show.fixed(lg["3-shortcut", 3], 2), show.fixed(lg["3-shortcut", 96], 2)
    assert float(two_96) > float(two_2) and float(three_96) > float(three_3)
    # the gap 1-shortcut - orthogonal (the second box checks the growth, not the gap)
    gap_v = one_like_plain.values
    gap_first, gap_last = show.fixed(gap_v["gap_first"], 3), show.fixed(gap_v["gap_last"], 3)
    assert 0 < gap_v["gap_first"] < gap_v["gap_last"] and gap_v["gap_monotone"]  # widens from depth 8
    # the means at a few depths, as a table
    pick = [2, 8, 24, 64, 96]
    wide = s[s["depth"].isin(pick)].pivot(index="arch", columns="depth", values="lg_cond_mean")
    wide = wide.loc[[a for a in fig5.ARCHS if a in wide.index]]
    view = wide.apply(lambda col: col.map(lambda v: f"{v:.3f}" if np.isfinite(v) else figures.BEYOND_RESOLUTION))
    view.columns = [f"depth {L}" for L in view.columns]
    return show.Facts(
        gap_first=gap_first,
        gap_last=gap_last,
        three_3=three_3,
        three_96=three_96,
        two_2=two_2,
        two_96=two_96,
        two_spread=two_spread,
        view=view,
        xav_2=xav_2,
        xav_24=xav_24,
        xav_32_unresolved=xav_32_unresolved,
    )


def live_start_facts(both, live_cfg, os_p, paper, xs_p) -> show.Facts:
    """The live run's depth and runs, and the largest parameter count, with the ordering of Xavier and
    orthogonal networks asserted."""
    x_deep = both.max()
    assert (xs_p.loc[both, "lg_cond_mean"] > os_p.loc[both, "lg_cond_mean"]).all()
    assert (
        xs_p.loc[x_deep, "lg_cond_mean"] - xs_p.loc[2, "lg_cond_mean"]
        > os_p.loc[x_deep, "lg_cond_mean"] - os_p.loc[2, "lg_cond_mean"]
    )
    P_max = show.count(int(paper["P"].max()))
    live_runs, live_depth = show.count(live_cfg["runs"]), show.count(max(live_cfg["depths"]))
    return show.Facts(
        P_max=P_max,
        live_depth=live_depth,
        live_runs=live_runs,
    )
