"""The numbers the prose of book/hardt_ma_expressivity.ipynb quotes, section by section: each function
selects them from the chapter's results and formats them as the page shows them."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from resnet_nb.book import hardt_ma_figures as hmf
from resnet_nb.book import show
from resnet_nb.core.paths import RESULTS
from resnet_nb.experiments import hm_analog
from resnet_nb.hardt_ma import interface as hi
from resnet_nb.hardt_ma import relu as hr

__all__ = [
    "analog_test_facts",
    "analog_runs_facts",
    "width_readings_facts",
    "lemma_b1_facts",
    "interface_numbers_facts",
    "narrow_widths_facts",
    "count2000_facts",
    "refusals_facts",
    "analog_setup_facts",
]


def analog_test_facts(an_diff, by, checks, n_held, small, std) -> show.Facts:
    """The CIFAR-style analog: the test of a benefit of the small initialisation, in words."""
    an_check, an_falsifier = checks("hm-analog-small-init")
    null_in = an_diff["low"] <= 0 <= an_diff["high"]
    effect_out = not (an_diff["low"] <= hm_analog.EFFECT <= an_diff["high"])
    assert an_check.passed == null_in and effect_out == (not an_falsifier.passed)
    verdict = show.text("contains 0: no difference is detected" if null_in else "excludes 0")
    conclusion = show.text(
        "detects no benefit of the small initialisation, and rules out one"
        if null_in and effect_out
        else "cannot decide about a benefit of the small initialisation of"
    )
    effect_pts, effect_digits = (
        show.num(100 * hm_analog.EFFECT),
        show.count(round(hm_analog.EFFECT * n_held)),
    )
    drift = show.num(by.last_epochs_loss_change.max())
    n_seeds = show.count(min(small.runs, std.runs))
    return show.Facts(
        conclusion=conclusion,
        drift=drift,
        effect_digits=effect_digits,
        effect_pts=effect_pts,
        effect_verdict=show.text("excludes" if effect_out else "does not exclude"),
        n_seeds=n_seeds,
        verdict=verdict,
    )


def analog_runs_facts(an_diff, at8, by, cfg, checks, inits, n_held, runs, small, std) -> show.Facts:
    """The analog's runs: accuracy of each initialisation early on, the learning-rate schedule, and the
    train-loss ratio with its interval."""
    early = show.text(", ".join(f"{100 * at8[i]:.0f}% ({i})" for i in inits))
    assert at8.idxmin() == "hardt_ma"
    n_hm_all = show.count(int(by.loc["hardt_ma", "runs"]))
    ms1, ms2 = cfg["milestones"]
    mean_loss = runs[runs.init == "hardt_ma_residual"].groupby("epoch").loss.mean()
    late_fall = show.num(mean_loss[ms1] / mean_loss[ms2], 2)
    final_lr = show.num(cfg["lr"] / 100)
    tl_check, tl_falsifier = checks("hm-analog-train-loss")
    assert small.train_loss > std.train_loss and tl_check.passed and not tl_falsifier.passed
    tl = tl_check.parts[0].values
    loss_ratio = show.num(tl["ratio"], 3)
    tl_low, tl_high = show.num(tl["ratio_low"], 2), show.num(tl["ratio_high"], 3)
    tl_interval = show.text("includes 1" if tl["ratio_low"] < 1 < tl["ratio_high"] else "excludes 1")
    diff_table = pd.DataFrame(
        [
            {
                "quantity": "held-out accuracy, small minus standard (points)",
                "mean": 100 * an_diff["diff"],
                "standard error": 100 * an_diff["se"],
                "95% interval, low": 100 * an_diff["low"],
                "95% interval, high": 100 * an_diff["high"],
                "effect tested": 100 * hm_analog.EFFECT,
            }
        ]
    )
    return show.Facts(
        diff_table=diff_table,
        early=early,
        final_lr=final_lr,
        late_fall=late_fall,
        loss_ratio=loss_ratio,
        n_hm_all=n_hm_all,
        tl_check=tl_check,
        tl_falsifier=tl_falsifier,
        tl_high=tl_high,
        tl_interval=tl_interval,
        tl_low=tl_low,
    )


def width_readings_facts(cell, k_mn, k_mn_d, k_syn, k_syn_d, mn_at, syn_at) -> show.Facts:
    """Theorem 3.2's width under the two readings of the separation, on both data sets."""
    k_syn_s, k_mn_s, k_mn_d_s = show.count(k_syn), show.count(k_mn), show.count(k_mn_d)
    mn_readings = show.num(k_mn / k_mn_d, 2)
    n_proj = show.count(syn_at.projections)
    syn_exp = show.count(syn_at.every_point_exposed)
    mn_exp, mn_fit = show.count(mn_at.every_point_exposed), show.count(mn_at.paper_order_fits)
    return show.Facts(
        k_mn_d_s=k_mn_d_s,
        k_mn_s=k_mn_s,
        k_syn_s=k_syn_s,
        mn_exp=mn_exp,
        mn_fit=mn_fit,
        mn_readings=mn_readings,
        n_proj=n_proj,
        syn_exp=syn_exp,
    )


def lemma_b1_facts(checks, rng) -> show.Facts:
    """Lemma B.1: where the printed hypothesis fails, the searched smallest margin under the squared
    reading, and the rounding scale of the prose."""
    worst_moved, worst_fixed, worst_scaled = 0.0, 0.0, 0.0
    for trial in range(300):
        k, n = int(rng.integers(2, 16)), int(rng.integers(2, 200))
        H = hr.unit_norm_columns(rng.standard_normal((k, n)))
        if trial % 3 == 0:  # adversarial: a near-duplicate of point 0
            H[:, 1] = hr.unit_norm_columns((H[:, 0] + 1e-4 * rng.standard_normal(k))[:, None])[:, 0]
        idx = rng.choice(n, min(k, n), replace=False)
        T = rng.standard_normal((k, idx.size))
        U, V, b, rep = hr.lemma_block(H, idx, T)
        # rounding scale of the prose: eps ||t - z|| / delta, with delta = margin / 2
        scale = np.finfo(float).eps * np.abs(T - H[:, idx]).max() / (0.5 * rep["margins"].min())
        worst_scaled = max(worst_scaled, rep["moved_error"] / scale)
        worst_moved, worst_fixed = (
            max(worst_moved, rep["moved_error"]),
            max(worst_fixed, rep["fixed_error"]),
        )
    assert worst_fixed == 0.0 and worst_scaled < 100 * 16  # 100 P eps-scale, P <= 16 terms per unit
    block_moved, block_scaled = show.num(worst_moved), show.num(worst_scaled, 2)
    rho_prime = show.num(0.1)  # the constant of the Lemma B.1 counterexamples below
    b1_chk, b1_fal = checks("hm-lemma-b1")
    at6, below6 = b1_chk.parts[2], b1_fal.parts[2]  # the extremal pair at 6 rho' and 0.1% below
    assert "exactly 6 rho'" in at6.claim and "1 - 1e-3" in below6.claim
    b1_at6, b1_below6 = show.num(at6.value), show.num(below6.value, 2)
    b1sq_search, b1sq_draws = (p.values for p in checks("hm-lemma-b1-squared")[0].parts)
    assert b1sq_draws["min_margin"] >= 0.05 and b1sq_search["violation"] <= 1e-12
    b1sq_found = show.text(f"{b1sq_search['min_margin']:.13f}")
    b1sq_gap = show.num(abs(b1sq_search["min_margin"] - 0.05))
    b1sq_n, b1sq_min = show.count(b1sq_draws["draws"]), show.num(b1sq_draws["min_margin"], 3)
    return show.Facts(
        b1_at6=b1_at6,
        b1_below6=b1_below6,
        b1sq_found=b1sq_found,
        b1sq_gap=b1sq_gap,
        b1sq_min=b1sq_min,
        b1sq_n=b1sq_n,
        block_moved=block_moved,
        block_scaled=block_scaled,
        rho_prime=rho_prime,
    )


def interface_numbers_facts(iface) -> show.Facts:
    """The interface between Lemma B.1 and Lemma B.2: how far the search for the largest inner
    product lands from the closed form, and at rho' = 0.1 the preactivation and the displacement of
    a point outside S that the printed proof assumes are zero."""
    iface_gap = (iface.search - iface.closed_form).abs().max()
    assert iface_gap <= hi.SEARCH_TOL
    assert (iface.preactivation_outside_S > 0).all() and (iface.displacement_outside_S > 0).all()
    iface_dev, iface_tol = show.num(iface_gap), show.num(hi.SEARCH_TOL)
    iface_rp = show.num(iface.rho_prime[1])
    iface_pre = show.num(iface.preactivation_outside_S[1], 3)
    iface_move = show.num(iface.displacement_outside_S[1], 3)
    return show.Facts(
        iface_dev=iface_dev,
        iface_move=iface_move,
        iface_pre=iface_pre,
        iface_rp=iface_rp,
        iface_tol=iface_tol,
    )


def narrow_widths_facts(narrow, results) -> show.Facts:
    """Theorem 3.2 at widths 3 and 2 on 2,000 MNIST digits: the trainable parameters and worst
    errors of the exact fits, the O(n k^2) count at width 3, and the parameters at the width the
    theorem's log n asks for."""
    assert narrow.max_error.max() < 1e-4
    k3_params = show.count(narrow.trainable[0])
    k3_bound_int = 2000 * (2 * 3**2 + 3) + 10 * 3 + 10**2 + 10
    assert narrow.trainable[0] <= k3_bound_int and narrow.blocks.max() <= 2000
    k3_bound = show.count(k3_bound_int)
    k2_err = show.num(narrow.max_error[1])
    log_params = show.count(results[(results.data == "MNIST") & (results.n == 2000)].trainable.iloc[0])
    return show.Facts(
        k2_err=k2_err,
        k3_bound=k3_bound,
        k3_params=k3_params,
        log_params=log_params,
    )


def count2000_facts(results) -> show.Facts:
    """The parameter count of the synthetic fit with n = 2000 term by term: the width, the blocks,
    the residual blocks' and the last layer's parameters, and the total."""
    syn2000 = results[(results.data == "synthetic") & (results.n == 2000)].iloc[0]
    count_k_s, count_l_s = show.count(syn2000.k), show.count(syn2000.blocks)
    count_res = show.count(syn2000.blocks * (2 * syn2000.k**2 + syn2000.k))
    count_last = show.count(10 * syn2000.k + 10**2 + 10)
    assert syn2000.trainable == count_res + count_last
    count_total = show.count(syn2000.trainable)
    return show.Facts(
        count_k_s=count_k_s,
        count_l_s=count_l_s,
        count_last=count_last,
        count_res=count_res,
        count_total=count_total,
    )


def refusals_facts(draws, greedy, k_mn, refuse, syn_p, thm32_jl10, thm32_jl30) -> show.Facts:
    """Theorem 3.2's construction on random points: the JL step's failures at c = 10 and 30 under
    both readings of rho (the ledger's live step and the committed table agree), the refusal
    rates' intervals, the greedy selection, and the numbers of pairs the JL bound allows."""
    SQ, DIST = hr.RHO_READINGS
    of = hmf.failures_of
    # the same draws: the ledger's live JL step at c = 10 and the committed table agree
    assert (draws.jl_excess_sq_c10 > 1).sum() == thm32_jl10[SQ]["failures"]
    assert (draws.jl_excess_dist_c10 > 1).sum() == thm32_jl10[DIST]["failures"]
    assert (draws.k_dist_c10 > draws.k_sq_c10).all()  # the proof's reading: the larger width
    assert refuse[SQ]["low"] > refuse[DIST]["high"]  # the reading of rho changes the refusal rate
    assert greedy.greedy_error.max() < 1e-8 and (draws.refuses_sq_c30 | draws.refuses_dist_c30).sum() == 0
    jl10_sq, jl10_dist = of(thm32_jl10[SQ]), of(thm32_jl10[DIST])
    jl30_sq, jl30_dist = of(thm32_jl30[SQ]), of(thm32_jl30[DIST])
    assert min(v[r]["rho_min"] for v in (thm32_jl10, thm32_jl30) for r in (SQ, DIST)) > 1  # rho > 1
    r_sq_ci = show.text(f"[{refuse[SQ]['low']:.3f}, {refuse[SQ]['high']:.3f}]")
    r_dist_ci = show.text(f"[{refuse[DIST]['low']:.3f}, {refuse[DIST]['high']:.3f}]")
    greedy_n = show.count(len(greedy))
    syn_ref = of(hr.failure_rate(syn_p.refuses))
    mn_below = show.count(round(k_mn / 320))
    assert 0.15 <= refuse[SQ]["failures"] / refuse[SQ]["draws"] <= 0.25  # "about one draw in five"
    jl10_all = thm32_jl10[SQ]["draws"]
    assert thm32_jl10[SQ]["failures"] == jl10_all == thm32_jl10[DIST]["failures"]  # "every draw"
    jl_pairs10, jl_pairs30 = show.num(600 ** (2 - 10 / 9), 3), show.num(600 ** (2 - 30 / 9), 2)
    c_log2 = show.num(10 / math.log(2), 3)
    return show.Facts(
        c_log2=c_log2,
        greedy_n=greedy_n,
        jl10_dist=jl10_dist,
        jl10_sq=jl10_sq,
        jl30_dist=jl30_dist,
        jl30_sq=jl30_sq,
        jl_pairs10=jl_pairs10,
        jl_pairs30=jl_pairs30,
        mn_below=mn_below,
        r_dist_ci=r_dist_ci,
        r_sq_ci=r_sq_ci,
        syn_ref=syn_ref,
    )


def analog_setup_facts() -> show.Facts:
    """The committed convolutional runs of Hardt & Ma's Section 5 analog: the configuration
    (channels, digits, momentum, rate, batch, milestones, epochs), the seeds per initialisation, and
    the minutes of computation they took."""
    cfg = hm_analog.CONFIG
    hm_dir = RESULTS / "hm_conv"
    prov = hm_analog.run_provenance(hm_dir)  # per run: seconds; the commits, torch, machines
    runs = hm_analog.load(hm_dir)
    summary = hm_analog.summary(runs)
    seed_counts = [f"{r.runs} for {r.init}" for r in summary.itertuples()]
    seeds_per_init = show.text(", ".join(seed_counts[:-1]) + " and " + seed_counts[-1])
    ch1, ch2 = show.count(cfg["channels"][0]), show.count(cfg["channels"][1])
    n_train, n_test = show.count(cfg["n_per_class"] * 8), show.count(cfg["n_per_class"] * 2)
    hm_momentum, hm_lr, hm_batch = (
        show.num(cfg["momentum"]),
        show.num(cfg["lr"]),
        show.count(cfg["batch_size"]),
    )
    hm_ms1, hm_ms2, hm_epochs = (
        show.count(cfg["milestones"][0]),
        show.count(cfg["milestones"][1]),
        show.count(cfg["epochs"]),
    )
    hm_minutes = show.count(math.ceil(sum(r["seconds"] for r in prov["runs"].values()) / 60))
    return show.Facts(
        cfg=cfg,
        ch1=ch1,
        ch2=ch2,
        hm_batch=hm_batch,
        hm_epochs=hm_epochs,
        hm_lr=hm_lr,
        hm_minutes=hm_minutes,
        hm_momentum=hm_momentum,
        hm_ms1=hm_ms1,
        hm_ms2=hm_ms2,
        n_test=n_test,
        n_train=n_train,
        prov=prov,
        runs=runs,
        seeds_per_init=seeds_per_init,
        summary=summary,
    )
