"""The numbers the prose of book/exp_initial_point.ipynb quotes, section by section: each function
selects them from the chapter's results and formats them as the page shows them."""

from __future__ import annotations

import numpy as np

from resnet_nb.book import experiment_figures as figures
from resnet_nb.book import ledger, show
from resnet_nb.core import hessians
from resnet_nb.core.init import SMALL_SCALE
from resnet_nb.experiments import fig5
from resnet_nb.shared.common import network

__all__ = [
    "growth_facts",
    "flatness_facts",
    "scale_facts",
    "live_start_facts",
    "growth_solution_facts",
    "scale_solution_facts",
    "opening_verdicts_facts",
]


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
    # a measured depth whose condition number is beyond resolution says so; a depth the network
    # does not have (a 3-shortcut network's depth is a multiple of 3) stays empty (NaN)
    rows = s[s["depth"].isin(pick)].assign(
        cell=lambda t: t["lg_cond_mean"].map(lambda v: f"{v:.3f}" if np.isfinite(v) else figures.BEYOND_RESOLUTION)
    )
    view = rows.pivot(index="arch", columns="depth", values="cell")
    view = view.loc[[a for a in fig5.ARCHS if a in view.index]]
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


def growth_solution_facts(means, s5, slopes) -> show.Facts:
    """The exercise on growth with depth: lambda_max and the 10% eigenvalue of the orthogonal,
    1-shortcut and Xavier networks at depths 2, 8 and 24, the slopes of lg cond against lg depth,
    Xavier's growth per layer, and where its condition numbers reach the resolution limit."""
    assert all(v > 0 for v in slopes.values())
    return show.Facts(**_growth_near_identity(means, slopes), **_growth_xavier(means, s5))


def _growth_near_identity(means, slopes) -> dict:
    """The orthogonal and 1-shortcut networks: the 10% eigenvalue's range, lambda_max at depths 2,
    8 and 24, and the slopes of lg cond against lg depth (per doubling, on average)."""
    near = means.loc[["orthogonal", "1-shortcut"], "lam_p10"]
    lam = means["lam_max"]
    out = dict(p10_lo=show.num(near.min(), 2), p10_hi=show.num(near.max(), 2))
    for arch, tag in (("orthogonal", "o"), ("1-shortcut", "one")):
        out.update({f"{tag}_max{L}": show.num(lam[arch, L], 3) for L in (2, 8, 24)})
    return dict(
        out,
        o_ratio24=show.num(lam["orthogonal", 24] / 24, 2),
        slope_o=show.fixed(slopes["orthogonal"], 2),
        slope_1=show.fixed(slopes["1-shortcut"], 2),
        per_doubling=show.fixed(np.log10(2) * np.mean(list(slopes.values())), 2),
    )


def _growth_xavier(means, s5) -> dict:
    """The Xavier networks: lambda_max and the 10% eigenvalue at depths 2, 8 and 24, lg cond at 8 to
    32 and its growth per layer, and the resolution limit reached from depth 32 on (every run
    unresolved from depth 48)."""
    xs = s5.loc["xavier"]
    per_layer = np.polyfit([8, 16, 24], xs.loc[[8, 16, 24], "lg_cond_mean"], 1)[0]
    assert per_layer > 0
    assert 0 < xs.loc[32, "unresolved"] < xs.loc[32, "runs"] and xs.loc[24, "unresolved"] == 0
    assert (xs.loc[xs.index >= 48, "unresolved"] == xs.loc[xs.index >= 48, "runs"]).all()
    out = {f"x_max{L}": show.num(means["lam_max"]["xavier", L], 2) for L in (2, 8, 24)}
    out.update({f"x_p10_{L}": show.sci(means.loc[("xavier", L), "lam_p10"], 1) for L in (2, 8, 24)})
    out.update({f"x_lg{L}": show.fixed(xs.loc[L, "lg_cond_mean"], 2) for L in (8, 16, 24, 32)})
    return dict(
        out,
        x_per_layer=show.fixed(per_layer, 2),
        lim_drop=show.fixed(np.log10(2), 2),
        x_std24=show.fixed(xs.loc[24, "lg_cond_std"], 2),
        lim24=show.fixed(xs.loc[24, "lg_resolution_limit"], 2),
        lim32=show.fixed(xs.loc[32, "lg_resolution_limit"], 2),
        unres32=show.count(xs.loc[32, "unresolved"]),
        runs32=show.count(xs.loc[32, "runs"]),
    )


def scale_solution_facts(lam_s, lg_s, scales, stats, t) -> show.Facts:
    """The exercise on the initial scale: lg cond and lambda_max of 2- and 3-shortcut networks of
    depth 12 at scales 1e-3, 1e-2 and 1e-1 against the zero point (the 2-shortcut moves at order
    eps^2, the 3-shortcut's lambda_max grows tenfold per step), and the 3-shortcut's lambda_max at
    depths 3 and 96."""
    e0 = hessians.spectrum(hessians.hessian_at_zero(network("2-shortcut", 12), stats))
    lg0 = np.log10(hessians.cond_percentile(e0))
    lam0_12, lg0_12 = show.fixed(np.abs(e0).max(), 4), show.fixed(lg0, 4)
    t2 = [lg_s["2-shortcut", s] for s in scales]
    lg2_a, lg2_b, lg2_c = (show.fixed(v, 4) for v in t2)
    shift_b = show.fixed(t2[1] - lg0, 4)
    far = (t2[2] - lg0) / (t2[1] - lg0)
    far_ratio = show.count(round(far))
    assert str(lg2_a) == str(lg0_12) and 30 < far < 100  # order eps^2: at most 100 times further
    lam3_a, lam3_b, lam3_c = (show.num(lam_s["3-shortcut", s], 2) for s in scales)
    lg3_a, lg3_b, lg3_c = (show.fixed(lg_s["3-shortcut", s], 4) for s in scales)
    lam3 = [lam_s["3-shortcut", s] for s in scales]
    assert all(9 < b / a < 11 for a, b in zip(lam3, lam3[1:]))
    three = t[t["arch"] == "3-shortcut"].groupby("depth")["lam_max"].mean()
    lam3_d3, lam3_d96 = (show.num(three[L], 2) for L in (3, 96))
    return show.Facts(
        far_ratio=far_ratio,
        lam0_12=lam0_12,
        lam3_a=lam3_a,
        lam3_b=lam3_b,
        lam3_c=lam3_c,
        lam3_d3=lam3_d3,
        lam3_d96=lam3_d96,
        lg0_12=lg0_12,
        lg2_a=lg2_a,
        lg2_b=lg2_b,
        lg2_c=lg2_c,
        lg3_a=lg3_a,
        lg3_b=lg3_b,
        lg3_c=lg3_c,
        shift_b=shift_b,
    )


def opening_verdicts_facts(flat, one_like_plain, xs_p) -> show.Facts:
    """The chapter's opening: the ledger's verdicts on Figure 5's two claims, the 2-shortcut
    networks' range of lg cond against the flatness tolerance, and the depths from which Xavier's
    condition numbers are partly, then wholly, beyond measurement."""
    claims = ledger.all_claims()
    v_flat = show.text(claims["li-fig5-flat-to-depth-96"].verdict)
    v_one = show.text(claims["li-fig5-one-shortcut-like-plain"].verdict)
    two_range, flat_tol = show.fixed(flat.value, 4), show.fixed(flat.tol, 3)
    assert flat.passed and one_like_plain.passed
    first_unres = xs_p.index[xs_p["unresolved"] > 0].min()  # first depth with a lower bound
    all_unres = xs_p.index[xs_p["unresolved"] == xs_p["runs"]].min()  # first with no measurement
    deep = xs_p[xs_p.index >= all_unres]
    assert (deep["unresolved"] == deep["runs"]).all()  # and none resolved beyond it
    x_first_unres, x_all_unres = show.count(first_unres), show.count(all_unres)
    return show.Facts(
        flat_tol=flat_tol,
        two_range=two_range,
        v_flat=v_flat,
        v_one=v_one,
        x_all_unres=x_all_unres,
        x_first_unres=x_first_unres,
    )
