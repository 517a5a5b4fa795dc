"""The numbers the prose of book/theorem1_dynamics.ipynb quotes, section by section: each function
selects them from the chapter's results and formats them as the page shows them."""

from __future__ import annotations

import numpy as np

from resnet_nb.book import show
from resnet_nb.core.init import SMALL_SCALE

__all__ = ["opening_facts", "long1_facts", "drift2_facts"]


def opening_facts(LR, long, long_rows, sweep, sweep_rows) -> show.Facts:
    """Gradient descent from the small start, eight seeds trained together."""
    small_scale = show.num(SMALL_SCALE)  # the paper's perturbation of the zero start (Section 4.1)
    n_spike = int(sweep_rows["spike"].sum())
    assert 1 <= n_spike < len(sweep_rows)
    n_seeds_s, n_spike_s = show.count(len(sweep_rows)), show.count(n_spike)
    n_calm = show.count(len(sweep_rows) - n_spike)
    lr_s, edge, sig_s = show.num(LR), show.num(sweep["edge"]), show.num(sweep["sigma_max"], 3)
    assert long["seeds"] == sweep["seeds"] and long["lr"] == LR
    n_spike_long = show.count(int(long_rows["spike"].sum()))
    ep_short, ep_long = show.count(sweep["gaps"].shape[1] - 1), show.count(long["gaps"].shape[1] - 1)
    # where the sharpness ends: runs that never reach 2/eta settle below it, at a run-dependent value
    reached = long_rows["first_above"] >= 0
    settled = long_rows.loc[~reached, "lam_final"]
    assert int(reached.sum()) == 2 and settled.max() < long["edge"]  # one catapult, one hover (below)
    end_lo, end_hi = show.num(settled.min(), 2), show.num(settled.max(), 2)
    n_settled, n_reach = show.count(len(settled)), show.count(int(reached.sum()))
    # settled runs whose largest sampled sharpness is the last sample: still creeping up at the end
    n_creep = show.count(int((long_rows.loc[~reached, "peak_epoch"] == long["epochs"][-1]).sum()))
    return show.Facts(
        edge=edge,
        end_hi=end_hi,
        end_lo=end_lo,
        ep_long=ep_long,
        ep_short=ep_short,
        lr_s=lr_s,
        n_calm=n_calm,
        n_creep=n_creep,
        n_reach=n_reach,
        n_seeds_s=n_seeds_s,
        n_settled=n_settled,
        n_spike_long=n_spike_long,
        n_spike_s=n_spike_s,
        sig_s=sig_s,
        small_scale=small_scale,
    )


def long1_facts(law_slope, lg_slope, two) -> show.Facts:
    """Cond10 = top / 10th percentile, so the slopes add up."""
    lg_parts = (
        two.assign(top=np.log10(two["lam_max"]), p10=np.log10(two["lam_p10"])).groupby("depth")[["top", "p10"]].mean()
    )
    top_slope = np.polyfit(lg_parts.index.to_numpy() / 2, lg_parts["top"].to_numpy(), 1)[0]
    p10_slope = np.polyfit(lg_parts.index.to_numpy() / 2, lg_parts["p10"].to_numpy(), 1)[0]
    # cond10 = top / 10th percentile, so the slopes add up
    assert abs(top_slope - p10_slope - lg_slope) < 1e-3 * abs(lg_slope)
    assert p10_slope < 0 < top_slope
    top_slope_s, p10_fall_s = show.num(top_slope), show.num(-p10_slope)
    law_share = show.pct(law_slope / lg_slope)
    return show.Facts(
        law_share=law_share,
        p10_fall_s=p10_fall_s,
        top_slope_s=top_slope_s,
    )


def drift2_facts(cases, ctrl, rand, res_tab) -> show.Facts:
    """Natural pairing: cond(M) follows cond(I - Q) up to the noise, large with a near-zero
    direction."""
    # natural pairing: cond(M) follows cond(I - Q) up to the noise, large with a near-zero direction
    assert (np.abs(np.log10(rand["cond_M"] / rand["cond_res"])) < 0.3).all()
    assert ctrl["cond_M"].iloc[1] > 10 * max(ctrl["cond_M"].iloc[0], ctrl["cond_M"].iloc[2])
    # for the random draws (Q near I) flipping every sign gives the minimum over all patterns
    assert np.allclose(rand["cond_M_flipped"], rand["sweep_min"], rtol=1e-10)
    rand_lo, rand_hi = show.num(rand["cond_res"].min()), show.num(rand["cond_res"].max())
    small_well, small_near = show.num(ctrl["cond_M"].iloc[0]), show.num(ctrl["cond_M"].iloc[1])
    large_well = show.num(ctrl["cond_M"].iloc[2])
    small_norm, large_norm = show.num(ctrl["res_norm"].iloc[0]), show.num(ctrl["res_norm"].iloc[2])
    max_lo, max_hi = show.sci(res_tab["sweep_max"].min(), 2), show.sci(res_tab["sweep_max"].max(), 2)
    # L(0) / L_min does not follow cond(M): the last two controlled residuals invert the order
    cM, lr0 = ctrl["cond_M"], ctrl["loss_ratio"]
    assert cM.iloc[1] > cM.iloc[2] and lr0.iloc[1] < lr0.iloc[2]
    ratio_near, ratio_large = show.num(lr0.iloc[1], 3), show.num(lr0.iloc[2], 3)
    near_identity = cases[0][1]
    return show.Facts(
        large_norm=large_norm,
        large_well=large_well,
        max_hi=max_hi,
        max_lo=max_lo,
        near_identity=near_identity,
        rand_hi=rand_hi,
        rand_lo=rand_lo,
        ratio_large=ratio_large,
        ratio_near=ratio_near,
        small_near=small_near,
        small_norm=small_norm,
        small_well=small_well,
    )
