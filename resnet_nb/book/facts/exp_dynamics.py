"""The numbers the prose of book/exp_dynamics.ipynb quotes, section by section: each function
selects them from the chapter's results and formats them as the page shows them."""

from __future__ import annotations

import numpy as np

from resnet_nb.book import show
from resnet_nb.experiments import fig3, fig6, fig7, fig8
from resnet_nb.shared.common import mnist, mnist_optimum

__all__ = [
    "dynamics_summary_facts",
    "verdict_facts",
    "eos_facts",
    "fig6_rates_facts",
    "fig6_stable_facts",
    "fig7_facts",
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
