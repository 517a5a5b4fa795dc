"""The numbers the prose of book/exp_dynamics.ipynb quotes, section by section: each function
selects them from the chapter's results and formats them as the page shows them."""

from __future__ import annotations

import numpy as np
import pandas as pd

from resnet_nb.book import show
from resnet_nb.experiments import fig3, fig6, fig7, fig8
from resnet_nb.shared import store
from resnet_nb.shared.common import mnist, mnist_optimum

__all__ = [
    "dynamics_summary_facts",
    "verdict_facts",
    "eos_facts",
    "fig6_rates_facts",
    "fig6_stable_facts",
    "fig7_facts",
    "spike_counts_facts",
    "depth_norms_facts",
    "eos_end_facts",
    "lr_solution_facts",
    "flat_solution_facts",
    "stable_live_facts",
    "first_step_facts",
    "provenance_facts",
]


def dynamics_summary_facts(paper6, paper7, rate) -> show.Facts:
    """The committed paper-scale runs, on which the claims are decided."""
    assert fig3.SCALES["paper"]["lr"] == rate == fig8.SCALES["paper"]["lr"]
    stable_paper_cfg = fig6.STABLE_SCALES["paper"]
    st_depth, st_epochs = show.count(stable_paper_cfg["depth"]), show.count(stable_paper_cfg["epochs"])
    sp_runs, sp_points = show.count(stable_paper_cfg["runs"]), show.count(stable_paper_cfg["points"])
    # run and Hessian counts of the committed runs, for the prose
    h6 = paper6[paper6["kind"] == "hessian"]
    runs6 = show.count(h6.groupby("arch")["run"].nunique().min())
    hess6 = show.count(int(h6.groupby(["arch", "run"]).size().median()))
    hess6_live = show.count(fig6.SCALES["default"]["points"])
    orth_res7 = show.count(fig7.resolved_runs(paper7)["orthogonal"])
    return show.Facts(
        hess6=hess6,
        hess6_live=hess6_live,
        orth_res7=orth_res7,
        runs6=runs6,
        sp_points=sp_points,
        sp_runs=sp_runs,
        st_depth=st_depth,
        st_epochs=st_epochs,
    )


def verdict_facts(claims) -> show.Facts:
    """The ledger's verdicts on the claims of Figures 3, 6, 7 and 8."""
    v3, v6, v7, v8a, v8b = (
        show.text(claims[k].verdict)
        for k in (
            "li-fig3-deeper-smaller-norms",
            "li-fig6-shortcut-better-conditioned",
            "li-fig7-shortcut-better-conditioned-relu",
            "li-fig8-smaller-index",
            "li-fig8-gradient-peak-at-index-drop",
        )
    )
    return show.Facts(
        v3=v3,
        v6=v6,
        v7=v7,
        v8a=v8a,
        v8b=v8b,
    )


def eos_facts(paper7, rate) -> show.Facts:
    """Figure 7 (ReLU networks): which runs have resolved condition numbers, the ledger's check, the
    range of lg cond of each architecture, the loss per output at the start."""
    relu_check = fig7.claim_shortcut_better_conditioned_relu()
    resolved = fig7.resolved_runs(paper7)
    orth_resolved = show.count(resolved["orthogonal"])
    two_resolved = show.count(resolved["2-shortcut"])
    lmin_per_output = show.num(fig7.per_output_optimum(), 3)
    lg_lmin_per_output = show.fixed(np.log10(fig7.per_output_optimum()), 2)
    relu_lowest = show.fixed(np.log10(paper7["loss"].min()), 2)
    h7 = paper7[paper7["kind"] == "hessian"]
    start7 = h7[(h7["epoch"] == 0) & (h7["arch"] == "orthogonal")]["loss"].sort_values()
    zero_out = 0.5 * mnist().stats().trSyy  # the loss of the zero output
    o7_l0a, o7_l0b = (show.fixed(v, 3) for v in start7)
    zero_loss = show.fixed(zero_out, 3)
    assert (start7 > zero_out).all() and (start7 - zero_out < 0.1 * zero_out).all()
    end7 = h7[h7["epoch"] == h7["epoch"].max()].set_index(["arch", "run"])["lam_max"] * rate
    e7_two = (show.fixed(end7["2-shortcut"].min(), 2), show.fixed(end7["2-shortcut"].max(), 2))
    e7_orth = (show.fixed(end7["orthogonal"].min(), 2), show.fixed(end7["orthogonal"].max(), 2))
    e7_two_lo, e7_two_hi = e7_two
    e7_orth_lo, e7_orth_hi = e7_orth
    epochs7 = show.count(int(h7["epoch"].max()))
    runs7 = show.count(h7.groupby("arch")["run"].nunique().min())
    hess7 = show.count(int(h7.groupby(["arch", "run"]).size().median()))
    assert (end7 > 2).all() and (end7 < 2.5).all()  # at the edge of stability
    return show.Facts(
        e7_orth_hi=e7_orth_hi,
        e7_orth_lo=e7_orth_lo,
        e7_two_hi=e7_two_hi,
        e7_two_lo=e7_two_lo,
        epochs7=epochs7,
        hess7=hess7,
        lg_lmin_per_output=lg_lmin_per_output,
        lmin_per_output=lmin_per_output,
        o7_l0a=o7_l0a,
        o7_l0b=o7_l0b,
        orth_resolved=orth_resolved,
        relu_check=relu_check,
        relu_lowest=relu_lowest,
        runs7=runs7,
        two_resolved=two_resolved,
        zero_loss=zero_loss,
    )


def fig6_rates_facts(lr_book, lr_stable, paper6, stable6) -> show.Facts:
    """Figure 6's orthogonal networks: how far the loss falls between the first two Hessians, the index
    at the stable rate, and the ranges of lg cond."""
    h = paper6[(paper6["kind"] == "hessian") & (paper6["arch"] == "orthogonal")]
    x = np.log10(h["loss"] - mnist_optimum())
    gap_hi, gap_lo = x[h["epoch"] == 0].min(), x[h["epoch"] == 1].max()  # no Hessian in between
    x_hi, x_lo = show.fixed(gap_hi, 1), show.fixed(gap_lo, 1)
    grid = np.linspace(gap_lo, gap_hi, 20)
    st = fig6.run_curves(stable6, "lgc", False, grid)
    mean_o, mean_2 = st["orthogonal"].mean(0), st["2-shortcut"].mean(0)
    orth_lo, orth_hi = show.fixed(np.nanmin(mean_o), 2), show.fixed(np.nanmax(mean_o), 2)
    two_lo, two_hi = show.fixed(np.nanmin(mean_2), 2), show.fixed(np.nanmax(mean_2), 2)
    assert float(orth_lo) > float(two_hi)
    stable_index = fig6.ordering(
        stable6, "index", False, "2-shortcut", "orthogonal", f"index (learning rate {lr_stable})"
    )
    assert stable_index.passed  # the sentence below says "below at every loss"
    sidx_margin, sidx_spread = show.num(-stable_index.value, 2), show.num(stable_index.spread, 2)
    fast = fig6.ordering(paper6, "lgc", False, "2-shortcut", "orthogonal", f"lg cond (learning rate {lr_book})")
    assert fast.value > 0 and fast.value < fast.spread  # the run means cross, within the spread
    return show.Facts(
        cross_max=show.num(fast.value, 2),
        cross_x=show.fixed(fast.values["x_closest"], 2),
        cross_spread=show.num(fast.spread, 2),
        fast=fast,
        orth_hi=orth_hi,
        orth_lo=orth_lo,
        sidx_margin=sidx_margin,
        sidx_spread=sidx_spread,
        stable_index=stable_index,
        two_hi=two_hi,
        two_lo=two_lo,
        x_hi=x_hi,
        x_lo=x_lo,
    )


def fig6_stable_facts(stable_check) -> show.Facts:
    """Figure 6 at the stable rate: the run-mean difference 2-shortcut - orthogonal of lg cond, where
    it changes sign, and its range near and far from the start."""
    # the raw run-mean difference 2-shortcut - orthogonal of lg cond at the stable rate (the check
    # itself compares it minus one run-to-run spread): below zero at large loss and near the minimum,
    # above zero in between
    sv = stable_check.values
    sg, sd = sv["grid"], sv["diff"]
    large = np.isfinite(sd) & (sg >= 0)
    near_cut = -2.5  # "near the minimum": below this lg(l - l_min)
    near_x = show.fixed(near_cut, 1)
    near_min = np.isfinite(sd) & (sg < near_cut)
    d_large_lo, d_large_hi = show.fixed(-sd[large].max(), 2), show.fixed(-sd[large].min(), 2)
    d_near_lo, d_near_hi = show.fixed(-sd[near_min].max(), 2), show.fixed(-sd[near_min].min(), 2)
    assert (sd[large] < 0).all() and (sd[near_min] < 0).all()
    # where the raw run means are in the other order: one stretch at intermediate loss, within the
    # spread
    worse = np.isfinite(sd) & (sd > 0)
    assert worse.any() and near_cut < sg[worse].min() and sg[worse].max() < 0
    assert np.all(np.diff(np.flatnonzero(worse)) == 1)  # one contiguous stretch of the grid
    assert sv["excess"] < sv["sd_excess"]  # the 2-shortcut mean is above by less than one spread
    cross_lo, cross_hi = show.fixed(sv["cross_lo"], 2), show.fixed(sv["cross_hi"], 2)
    excess, excess_x, excess_sd = (show.fixed(sv[k], 2) for k in ("excess", "x_excess", "sd_excess"))
    return show.Facts(
        cross_hi=cross_hi,
        cross_lo=cross_lo,
        d_large_hi=d_large_hi,
        d_large_lo=d_large_lo,
        d_near_hi=d_near_hi,
        d_near_lo=d_near_lo,
        excess=excess,
        excess_sd=excess_sd,
        excess_x=excess_x,
        near_x=near_x,
    )


def fig7_facts(paper6) -> show.Facts:
    """Figure 8: the index at the first and last Hessian of each architecture, and when it peaks and
    falls."""
    idx = paper6[paper6["kind"] == "hessian"].sort_values("epoch")
    first_idx = idx.groupby(["arch", "run"]).head(1).groupby("arch")["index"].mean()
    last_idx = idx.groupby(["arch", "run"]).tail(1).groupby("arch")["index"].mean()
    i_orth0, i_orth1 = show.fixed(first_idx["orthogonal"], 2), show.fixed(last_idx["orthogonal"], 2)
    i_two0, i_two1 = show.fixed(first_idx["2-shortcut"], 2), show.fixed(last_idx["2-shortcut"], 2)
    peak_check = fig8.claim_peak_at_drop()
    sparse_part, dense_part = peak_check.parts
    (peak5,), ((drop_a, drop_b),) = sparse_part.values["peaks"], sparse_part.values["intervals"]
    fall = dense_part.values
    assert fall["peak"] == peak5  # the retrained run 0 peaks where the committed runs do
    d_peak, d_t25, d_t50, d_t75 = (show.fixed(fall[k], 1) for k in ("peak", "t25", "t50", "t75"))
    d_lag, d_fall, d_P = show.fixed(fall["lag"], 1), show.count(fall["fall"]), show.count(fall["P"])
    d_steep = show.count(fall["steepest_drop"])
    d_ties = show.text(", ".join(f"{a} to {b}" for a, b in fall["steepest"]))
    peak5, drop_a, drop_b = show.count(peak5), show.count(drop_a), show.count(drop_b)
    assert len(fall["steepest"]) > 1 and 0 < fall["lag"] < (fall["t75"] - fall["t25"]) / 2
    return show.Facts(
        d_P=d_P,
        d_fall=d_fall,
        d_lag=d_lag,
        d_peak=d_peak,
        d_steep=d_steep,
        d_t25=d_t25,
        d_t50=d_t50,
        d_t75=d_t75,
        d_ties=d_ties,
        drop_a=drop_a,
        drop_b=drop_b,
        i_orth0=i_orth0,
        i_orth1=i_orth1,
        i_two0=i_two0,
        i_two1=i_two1,
        peak5=peak5,
        peak_check=peak_check,
    )


def spike_counts_facts(paper3, sharp, spk) -> show.Facts:
    """Figure 3's loss jumps (ReLU, depths 4 and 8: how many, in how many runs, when) and the one
    measured run of depth 4: eta lambda_max around the bound 2, each sampled rise of the loss after
    a sample beyond 2, and how often a sample beyond 2 is followed by a fall instead."""
    spk4, spk8 = (spk[spk["depth"] == L] for L in (4, 8))
    n_sp4, n_sp8 = show.count(len(spk4)), show.count(len(spk8))
    runs_sp4, runs_sp8 = show.count(spk4["run"].nunique()), show.count(spk8["run"].nunique())
    sp_first, sp_last = show.count(spk["epoch"].min()), show.count(spk["epoch"].max())
    sp_median = show.count(int(spk["epoch"].median()))
    eta_lo, eta_hi = show.fixed(sharp["eta_lam"].min(), 2), show.fixed(sharp["eta_lam"].max(), 2)
    eta_l, lam_s = sharp["eta_lam"].to_numpy(), sharp["lam_max"].to_numpy()
    rose = sharp["loss"].diff().to_numpy()[1:] > 0  # the loss rose since the previous sampled epoch
    before = eta_l[:-1]
    assert sharp["eta_lam"].min() < 2 < sharp["eta_lam"].max()
    assert rose.any() and (before[rose] > 2).all()  # every sampled rise follows eta lambda_max > 2
    # ... and by the next sample lambda_max is below its value before the rise (last sample: no next)
    ri = [i + 1 for i in range(len(rose)) if rose[i] and i + 2 < len(lam_s)]
    assert ri and all(min(lam_s[i], lam_s[i + 1]) < lam_s[i - 1] for i in ri)
    # not selective: many samples beyond 2 are followed by a fall of the loss
    above = before > 2
    n_above, n_samples = show.count(int((eta_l > 2).sum())), show.count(len(eta_l))
    n_above_fall = show.count(int((above & ~rose).sum()))
    # how much the "every rise follows eta lambda_max > 2" says: the chance that all rises follow such a
    # sample if the rises fell on samples at random (the fraction of samples beyond 2, to the power
    # of the number of rises)
    chance = (above.mean()) ** int(rose.sum())
    n_rises, chance_all = show.count(int(rose.sum())), show.num(chance, 1)
    assert (above & ~rose).sum() > 0
    rise_epochs = show.text(", ".join(str(e) for e in sharp["epoch"].to_numpy()[1:][rose]))
    runs_total = paper3[paper3["relu"]].groupby("depth")["run"].nunique()
    runs_tot4, runs_tot8 = show.count(runs_total[4]), show.count(runs_total[8])
    return show.Facts(
        chance_all=chance_all,
        eta_hi=eta_hi,
        eta_lo=eta_lo,
        n_above=n_above,
        n_above_fall=n_above_fall,
        n_rises=n_rises,
        n_samples=n_samples,
        n_sp4=n_sp4,
        n_sp8=n_sp8,
        rise_epochs=rise_epochs,
        runs_sp4=runs_sp4,
        runs_sp8=runs_sp8,
        runs_tot4=runs_tot4,
        runs_tot8=runs_tot8,
        sp_first=sp_first,
        sp_last=sp_last,
        sp_median=sp_median,
    )


def depth_norms_facts(norms, norms_relu, paper3, rev_lin, rev_relu) -> show.Facts:
    """Figure 3's final norms by depth (linear and ReLU), the one reversal of the depth order (depth
    4 over depth 2 in the first steps) and the ReLU networks' final losses at depths 32 and 64."""
    n2, n64 = show.fixed(norms[2], 2), show.fixed(norms[64], 2)
    r2, r64 = show.fixed(norms_relu[2], 1), show.fixed(norms_relu[64], 1)
    assert [r[:2] for r in rev_lin] == [(2, 4)] and not rev_relu  # the only reversal: 4 over 2
    rev_lo, rev_hi = (show.fixed(v, 2) for v in rev_lin[0][2:])
    relu_end = paper3[paper3["relu"] & (paper3["epoch"] == paper3["epoch"].max())]
    relu_loss = relu_end.groupby("depth")["loss"].mean()
    relu_l32, relu_l64 = show.fixed(relu_loss[32], 4), show.fixed(relu_loss[64], 4)
    assert relu_loss[64] < relu_loss[32] and relu_loss[32] - relu_loss[64] < 0.01 * relu_loss[32]
    ends = pd.DataFrame(
        {
            "depth": norms.index,
            "linear": norms.to_numpy(),
            "ReLU at mid": norms_relu.reindex(norms.index).to_numpy(),
        }
    )
    return show.Facts(
        ends=ends,
        n2=n2,
        n64=n64,
        r2=r2,
        r64=r64,
        relu_l32=relu_l32,
        relu_l64=relu_l64,
        rev_hi=rev_hi,
        rev_lo=rev_lo,
    )


def eos_end_facts(paper6, zeros) -> show.Facts:
    """Figure 6's ends at the fast rate: the 10% eigenvalue (lg, run means) and lambda_max at the
    last Hessian of each architecture, the gap between them, and the zero eigenvalues the Hessian
    has at the end against the count expected at a minimum."""
    last = paper6[paper6["kind"] == "hessian"].sort_values("epoch").groupby(["arch", "run"]).tail(1)
    p10_end = last.groupby("arch")["lam_p10"].apply(lambda v: np.log10(v).mean())
    max_end = last.groupby("arch")["lam_max"].mean()
    p10_orth_end, p10_two_end = (show.fixed(p10_end[a], 1) for a in ("orthogonal", "2-shortcut"))
    max_orth_end, max_two_end = show.num(max_end["orthogonal"], 2), show.num(max_end["2-shortcut"], 2)
    end_gap = show.count(int(round(p10_end["2-shortcut"] - p10_end["orthogonal"])))
    z = zeros.parts[0].values
    zero_count, zero_P = show.count(z["zeros"]), show.count(z["P"])
    return show.Facts(
        end_gap=end_gap,
        max_orth_end=max_orth_end,
        max_two_end=max_two_end,
        p10_orth_end=p10_orth_end,
        p10_two_end=p10_two_end,
        zero_P=zero_P,
        zero_count=zero_count,
    )


def lr_solution_facts(ends3, gaps, lows, norm_range, rate, slow_rate) -> show.Facts:
    """The exercise on the learning rate: with a five times smaller rate the norm curves of Figure 3
    barely move, the slow runs end at larger losses and lower norms at depths 4 to 16, and depth 2
    ends at the same norm."""
    lr_slow = show.num(slow_rate, 2)
    same_epochs = show.count(round(1000 * slow_rate / rate))
    gap_max = show.num(max(gaps.values()), 2)
    norm_lo, norm_hi = show.fixed(min(norm_range), 1), show.fixed(max(norm_range), 1)
    low4, low8, low16 = (show.fixed(lows[L][1], 2) for L in (4, 8, 16))
    low_fast = show.fixed(np.mean([lows[L][0] for L in (4, 8, 16)]), 1)
    s4, s8, s16 = (show.fixed(ends3["slow"][L], 2) for L in (4, 8, 16))
    f4, f8, f16 = (show.fixed(ends3["fast"][L], 2) for L in (4, 8, 16))
    end2_fast, end2_slow = show.fixed(ends3["fast"][2], 2), show.fixed(ends3["slow"][2], 2)
    assert all(ends3["slow"][L] < ends3["fast"][L] for L in (4, 8, 16))
    assert str(end2_fast) == str(end2_slow)
    assert all(lows[L][1] > lows[L][0] for L in (4, 8, 16))
    return show.Facts(
        end2_fast=end2_fast,
        f16=f16,
        f4=f4,
        f8=f8,
        gap_max=gap_max,
        low16=low16,
        low4=low4,
        low8=low8,
        low_fast=low_fast,
        lr_slow=lr_slow,
        norm_hi=norm_hi,
        norm_lo=norm_lo,
        s16=s16,
        s4=s4,
        s8=s8,
        same_epochs=same_epochs,
    )


def flat_solution_facts(flat) -> show.Facts:
    """The exercise on flat directions: at depth 6 the fraction of near-zero Hessian eigenvalues
    (predicted 5/6), the index and the largest negative eigenvalue relative to the largest, for both
    architectures."""
    flat_pred = show.fixed(5 / 6, 3)
    small_o, small_2 = (show.fixed(flat[a][0], 3) for a in ("orthogonal", "2-shortcut"))
    index_o, index_2 = (show.fixed(flat[a][1], 3) for a in ("orthogonal", "2-shortcut"))
    neg_o, neg_2 = (show.pct(flat[a][2], 1) for a in ("orthogonal", "2-shortcut"))
    assert all(v[0] >= 5 / 6 and 0.3 < v[1] < 0.5 and v[2] < 0.05 for v in flat.values())
    return show.Facts(
        flat_pred=flat_pred,
        index_2=index_2,
        index_o=index_o,
        neg_2=neg_2,
        neg_o=neg_o,
        small_2=small_2,
        small_o=small_o,
    )


def stable_live_facts(live_cond, live_index) -> show.Facts:
    """The diagnostic on sparser Hessians (runs 0 and 1, every third Hessian): whether the
    condition-number ordering still holds within one spread, by how much, and whether the index
    stays below."""
    live_cond_word = show.text("holds" if live_cond.passed else "fails")
    live_cond_margin, live_cond_spread = show.num(-live_cond.value, 2), show.num(live_cond.spread, 2)
    live_index_word = show.text("below" if live_index.passed else "not below")
    return show.Facts(
        live_cond_margin=live_cond_margin,
        live_cond_spread=live_cond_spread,
        live_cond_word=live_cond_word,
        live_index_word=live_index_word,
    )


def first_step_facts(f1) -> show.Facts:
    """The first gradient step at the fast rate: eta lambda_max, how much the step shrinks the loss
    against the quadratic prediction, and the loss and lambda_max before and after it."""
    eta_lam, shrink, shrink_pred = (show.num(f1[k], 2) for k in ("eta_lam", "shrink", "shrink_pred"))
    loss0, loss1 = show.num(f1["loss0"], 3), show.num(f1["loss1"], 3)
    lam0, lam1 = show.num(f1["lam_max0"], 3), show.num(f1["lam_max1"], 3)
    return show.Facts(
        eta_lam=eta_lam,
        lam0=lam0,
        lam1=lam1,
        loss0=loss0,
        loss1=loss1,
        shrink=shrink,
        shrink_pred=shrink_pred,
    )


def provenance_facts() -> show.Facts:
    """Which committed runs were computed from a package with uncommitted changes, and which from a
    clean one."""
    names = {
        "fig3": "Figure 3",
        "fig6": "Figures 6 and 8 (rate 0.1)",
        "fig6_stable": "Figure 6 (stable rate)",
        "fig7": "Figure 7",
    }
    prov = {f: store.load_results(f, "paper")[1]["git"] for f in names}
    modified = [names[f] for f, g in prov.items() if g.get("package_modified")]
    clean = [names[f] for f, g in prov.items() if not g.get("package_modified")]
    prov_modified, prov_clean = (show.text(", ".join(v) or "none") for v in (modified, clean))
    return show.Facts(
        prov_clean=prov_clean,
        prov_modified=prov_modified,
    )
