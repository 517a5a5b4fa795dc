"""The numbers the prose of book/hardt_ma_expressivity.ipynb quotes, section by section: each function
selects them from the chapter's results and formats them as the page shows them."""

from __future__ import annotations

import numpy as np
import pandas as pd

from resnet_nb.book import show
from resnet_nb.experiments import hm_analog
from resnet_nb.hardt_ma import relu as hr

__all__ = ["analog_test_facts", "analog_runs_facts", "width_readings_facts", "lemma_b1_facts"]


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
            dict(
                quantity="held-out accuracy, small minus standard (points)",
                mean=100 * an_diff["diff"],
                standard_error=100 * an_diff["se"],
                low_95=100 * an_diff["low"],
                high_95=100 * an_diff["high"],
                effect_tested=100 * hm_analog.EFFECT,
            )
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
