"""The numbers the prose of book/theorem1_dynamics.ipynb quotes, section by section: each function
selects them from the chapter's results and formats them as the page shows them."""

from __future__ import annotations

import numpy as np

from resnet_nb.book import show
from resnet_nb.core.init import SMALL_SCALE
from resnet_nb.experiments import fig5
from resnet_nb.li import dynamics as t1d

__all__ = ["opening_facts", "long1_facts", "drift2_facts", "long_run_facts", "catapult_facts", "drift_law_facts"]


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


def _require_one_seed_order(long, long_rows, sweep_rows, last1000) -> None:
    """The long run's rows, the sweep's rows and last1000 are read by position: the same seeds in
    the same order, or a ValueError that shows them."""
    seeds = list(long["seeds"])
    if not (list(long_rows["seed"]) == list(sweep_rows["seed"]) == seeds and len(last1000) == len(seeds)):
        raise ValueError(
            "the long run's rows, the sweep's rows and last1000 are read by position: they must list "
            f"the same seeds in the same order (long run {seeds}, rows {list(long_rows['seed'])}, "
            f"sweep rows {list(sweep_rows['seed'])}, {len(last1000)} changes)"
        )


def long_run_facts(ep_l, last1000, long, long_rows, spiky, sweep, sweep_rows) -> show.Facts:
    """The long run (seeds continued to the end of the stored run): the seed that spiked only after
    epoch 1,500, when it first went above 2/eta, how often its sharpness dropped back below, its
    loss gap; the calm seeds still sharpening at the end, how many moved by more than MOVE in the
    last 1,000 epochs, and the one that ends closest to 2/eta."""
    _require_one_seed_order(long, long_rows, sweep_rows, last1000)
    spiky_long = long_rows[long_rows["spike"]]
    new = spiky_long[~spiky_long["seed"].isin(spiky["seed"])]
    assert len(new) == 1
    s2 = new.iloc[0]
    i2 = long["seeds"].index(int(s2["seed"]))
    after = ep_l >= s2["first_above"]
    lam2 = long["lam_max"][i2]
    la = lam2[after]
    # falls from above 2/eta to below it between consecutive samples
    drops = int(((la[:-1] > long["edge"]) & (la[1:] < long["edge"])).sum())
    assert drops >= 2 and la.min() < long["edge"] < la.max()
    gap2 = long["gaps"][i2]
    rises2 = np.flatnonzero(np.diff(gap2) > 0) + 1
    assert gap2[-1] < gap2[sweep["epochs"][-1]]  # the gap still falls overall
    new_seed, new_1500 = show.count(int(s2["seed"])), show.num(sweep_rows["lam_final"][i2], 3)
    new_first, new_rises = show.count(int(s2["first_above"])), show.count(int(s2["rises"]))
    new_rise, new_rise_from = show.num(s2["rise"], 3), show.count(int(rises2[0]))
    new_lo, new_hi, new_drops = show.fixed(la.min(), 3), show.fixed(la.max(), 3), show.count(drops)
    new_gap_a, new_gap_b = show.sci(gap2[sweep["epochs"][-1]], 2), show.sci(gap2[-1], 2)
    calm_long = long_rows[~long_rows["spike"]]
    n_calm_long = show.count(len(calm_long))
    at_end = calm_long[calm_long["peak_epoch"] == ep_l[-1]]
    n_end = show.count(len(at_end))
    MOVE = 1e-3  # "moved": a change of the sharpness above this in the last 1,000 epochs
    move_tol = show.num(MOVE)
    moving = last1000[calm_long.index] > MOVE
    n_moving, max_move = show.count(int(moving.sum())), show.num(last1000[calm_long.index].max(), 2)
    closest = calm_long.loc[calm_long["lam_final"].idxmax()]
    close_seed, close_lam = show.count(int(closest["seed"])), show.fixed(closest["lam_final"], 3)
    # the catapulted seed: the one that spiked within the short run
    cat_seed = show.count(int(spiky.iloc[0]["seed"]))
    return show.Facts(
        cat_seed=cat_seed,
        close_lam=close_lam,
        close_seed=close_seed,
        max_move=max_move,
        move_tol=move_tol,
        n_calm_long=n_calm_long,
        n_end=n_end,
        n_moving=n_moving,
        new_1500=new_1500,
        new_drops=new_drops,
        new_first=new_first,
        new_gap_a=new_gap_a,
        new_gap_b=new_gap_b,
        new_hi=new_hi,
        new_lo=new_lo,
        new_rise=new_rise,
        new_rise_from=new_rise_from,
        new_rises=new_rises,
        new_seed=new_seed,
    )


def catapult_facts(LR, mnist, sweep, sweep_rows) -> show.Facts:
    """The short sweep: the calm seeds' final sharpness and which were still sharpening when the run
    was cut; seed 0's order of events (above 2/eta, the spike, back below) and the catapult's
    mechanism from the first rise of its loss to the spike, step by step against the predicted
    factor."""
    calm = sweep_rows[~sweep_rows["spike"]]
    assert (calm["lam_peak"] < sweep["edge"]).all() and (calm["rises"] == 0).all()
    spiky = sweep_rows[sweep_rows["spike"]]
    assert list(spiky["seed"]) == [0]
    calm_lo, calm_hi = show.num(calm["lam_final"].min(), 3), show.num(calm["lam_final"].max(), 3)
    assert (calm["rise"] < 1).all()
    # calm runs whose largest sampled sharpness is the last sample: still sharpening when the run is cut
    rising = calm[calm["peak_epoch"] == sweep["epochs"][-1]]
    n_rising = show.count(len(rising))
    rising_seeds = show.text(", ".join(str(s) for s in rising["seed"]))
    s0 = spiky.iloc[0]
    gap0 = sweep["gaps"][0]
    spike_epoch = 100 + int(np.argmax(gap0[100:]))
    after = [e for e in sweep["epochs"] if e > spike_epoch][0]
    lam_after = float(sweep["lam_max"][0][list(sweep["epochs"]).index(after)])
    # order of events in seed 0: above 2/eta, then the spike, then below 2/eta until the end
    assert 0 <= s0["first_above"] < spike_epoch
    assert lam_after < sweep["edge"] and s0["lam_final"] < sweep["edge"]
    first_above, lam_peak = show.count(int(s0["first_above"])), show.num(s0["lam_peak"], 3)
    spike_at, spike_rise = show.count(spike_epoch), show.num(s0["rise"], 2)
    lam_after_s, lam_end = show.num(lam_after, 3), show.num(s0["lam_final"], 3)
    # the catapult's mechanism: seed 0 alone, from the first epoch at which its loss rose to the peak
    rise_start = int(np.flatnonzero(np.diff(gap0) > 0)[0]) + 1
    cat = t1d.catapult_steps(mnist, seed=0, start=rise_start, steps=spike_epoch - rise_start, lr=LR)
    assert np.abs(cat["losses"] - sweep["Lmin"] - gap0[: cat["losses"].size]).max() < 1e-8  # same run
    assert (cat["ratio"] < 0).all()  # every step reverses the previous one along v
    first10 = float(np.exp(np.log(np.abs(cat["ratio"][:10])).mean()))
    assert abs(first10 - abs(cat["predicted"])) < 0.05 * abs(cat["predicted"])  # "close": a setting, 5%
    cat_from, cat_to = show.count(rise_start), show.count(spike_epoch)
    cat_steps = show.count(cat["ratio"].size + 1)
    cat_lam, cat_pred = show.num(cat["lam"], 3), show.num(cat["predicted"], 3)
    cat_g10, cat_last = show.num(first10, 3), show.num(cat["ratio"][-1], 2)
    return show.Facts(
        calm_hi=calm_hi,
        calm_lo=calm_lo,
        cat=cat,
        cat_from=cat_from,
        cat_g10=cat_g10,
        cat_lam=cat_lam,
        cat_last=cat_last,
        cat_pred=cat_pred,
        cat_steps=cat_steps,
        cat_to=cat_to,
        first_above=first_above,
        lam_after_s=lam_after_s,
        lam_end=lam_end,
        lam_peak=lam_peak,
        n_rising=n_rising,
        rising_seeds=rising_seeds,
        spike_at=spike_at,
        spike_rise=spike_rise,
        spiky=spiky,
    )


def drift_law_facts(rlaw, no_R, flat, lg_slope, law_slope) -> show.Facts:
    """The drift law's check (the constant c over R, against the law without R), Figure 5's
    flatness criterion from the experiment's own check, and the slope of lg cond per unit against
    the law's prediction."""
    return show.Facts(
        c_lo=show.num(rlaw.values["c_lo"], 3),
        c_hi=show.num(rlaw.values["c_hi"], 3),
        c_range=show.num(rlaw.value),
        c_tol=show.num(rlaw.tol),
        r_slope=show.num(rlaw.values["slope"], 3),
        k_range=show.num(no_R.value, 3),
        k_tol=show.num(no_R.tol),
        flat_range=show.fixed(flat.value, 4),  # as exp_initial_point
        flat_tol=show.fixed(flat.tol, 3),
        flat_frac=show.pct(fig5.FLAT_FRACTION),
        lg_slope_s=show.num(lg_slope),
        law_slope_s=show.num(law_slope),
    )
