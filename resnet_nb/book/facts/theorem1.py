"""The numbers the prose of book/theorem1.ipynb quotes, section by section: each function
selects them from the chapter's results and formats them as the page shows them."""

from __future__ import annotations

from resnet_nb.book import show
from resnet_nb.li import theorem1 as t1
from resnet_nb.shared import store

__all__ = ["relu_facts", "relu_lambda_facts", "relu_shape_facts"]


def relu_facts(relu_by_depth, relu_depth, relu_eq12, relu_rows) -> show.Facts:
    """The ReLU networks at their small start: flatness in depth of cond10 and of max/min, with margins
    and spreads, and the masked Eq. 19's ratio."""
    flat = relu_depth.parts[0]
    relu_flat_range, relu_flat_tol = show.num(flat.value), show.num(flat.tol)
    relu_flat_spread = show.num(flat.spread)
    relu_flat_fragile = show.text("fragile: the margin is below" if flat.fragile else "not fragile: the margin exceeds")
    m = relu_by_depth
    c10_2, c10_96 = m.loc[2, ("cond10", "mean")], m.loc[96, ("cond10", "mean")]
    relu_c10_2, relu_c10_96 = show.num(c10_2, 3), show.num(c10_96, 3)
    relu_creep = show.pct(c10_96 / c10_2 - 1)
    relu_p10_lo, relu_p10_hi = show.num(relu_rows["p10"].min(), 2), show.num(relu_rows["p10"].max(), 2)
    relu_ratio = relu_rows["cond10"] / relu_rows["cond10_linear"]
    relu_ratio_lo, relu_ratio_hi = show.num(relu_ratio.min(), 2), show.num(relu_ratio.max(), 2)
    relu_lin10 = show.num(relu_rows["cond10_linear"].iloc[0], 3)
    mm_2, mm_96 = m.loc[2, ("cond", "mean")], m.loc[96, ("cond", "mean")]
    relu_mm_2, relu_mm_96 = show.num(mm_2, 3), show.num(mm_96, 3)
    relu_mm_excess = show.num(-relu_eq12.parts[0].margin)
    relu_mm_spread = show.num(relu_eq12.parts[0].spread)
    relu_mm_fragile = show.text(
        "the rejection is fragile (it misses by less than that spread), and single draws of neighbouring depths overlap"
        if relu_eq12.values["fragile_rejection"]
        else "the rejection is not fragile"
    )
    assert relu_ratio.min() > 1.5 and mm_96 > mm_2
    return show.Facts(
        relu_c10_2=relu_c10_2,
        relu_c10_96=relu_c10_96,
        relu_creep=relu_creep,
        relu_flat_fragile=relu_flat_fragile,
        relu_flat_range=relu_flat_range,
        relu_flat_spread=relu_flat_spread,
        relu_flat_tol=relu_flat_tol,
        relu_lin10=relu_lin10,
        relu_mm_2=relu_mm_2,
        relu_mm_96=relu_mm_96,
        relu_mm_excess=relu_mm_excess,
        relu_mm_fragile=relu_mm_fragile,
        relu_mm_spread=relu_mm_spread,
        relu_p10_hi=relu_p10_hi,
        relu_p10_lo=relu_p10_lo,
        relu_ratio_hi=relu_ratio_hi,
        relu_ratio_lo=relu_ratio_lo,
    )


def relu_lambda_facts() -> show.Facts:
    """The ReLU start's lambda_max: the masked Eq. 19's against the exact one, within the linear
    network's drift at the same start."""
    relu_start = t1.relu_start_check(depth=16)
    assert relu_start.passed
    fig7, _ = store.load_results("fig7", "paper")
    if fig7 is not None:
        start = fig7[(fig7["kind"] == "hessian") & (fig7["arch"] == "2-shortcut") & (fig7["epoch"] == 0)]
        lam_fig7 = show.num(float(start.loc[start["run"] == 0, "lam_max"].iloc[0]), 3)
    else:  # the committed results are absent: say so rather than invent a number
        lam_fig7 = show.text("(not available: results/fig7 is missing)")
    v = relu_start.values
    lam_relu, lam_c1, lam_half = (
        show.num(v["lam"], 3),
        show.num(v["theorem1_c1"], 3),
        show.num(v["theorem1_half"], 3),
    )
    # the masked Eq. 19 explains lambda_max to within the linear network's drift at the same start
    assert abs(v["masked"] - v["lam"]) < v["drift"]
    assert min(abs(v["lam"] - v["theorem1_c1"]), abs(v["lam"] - v["theorem1_half"])) > 10 * v["drift"]
    # the falsifier: lambda_max = sigma_max(M)/2 (relu'(0) = 1/2), same comparison, rejected
    relu_half = t1.relu_start_check(depth=16, prediction="half")
    assert relu_half.rejected_on_value
    lam_masked, lam_drift = show.num(v["masked"], 3), show.num(v["drift"])
    return show.Facts(
        lam_c1=lam_c1,
        lam_drift=lam_drift,
        lam_fig7=lam_fig7,
        lam_half=lam_half,
        lam_masked=lam_masked,
        lam_relu=lam_relu,
        relu_half=relu_half,
        relu_start=relu_start,
    )


def relu_shape_facts() -> show.Facts:
    """The ReLU start's spectrum free of scale: cond10 of the exact Hessian is the masked Eq. 19's, and
    not Theorem 1's."""
    # the shape, free of scale: cond10 of the exact Hessian is the masked Eq. 19's, and not that of
    # c (+-sigma_k(M)) for any c (relu'(0) = c cancels in the ratio): the ledger's falsifier
    relu_shape = t1.relu_shape_check(depth=16, n_per_class=None)
    assert relu_shape.passed
    relu_scaled = t1.relu_shape_check(depth=16, n_per_class=None, prediction="scaled")
    assert relu_scaled.rejected_on_value
    shape_exact = show.num(relu_shape.values["cond10"], 3)
    shape_theorem1 = show.num(relu_shape.values["cond10_theorem1"], 3)
    return show.Facts(
        relu_scaled=relu_scaled,
        relu_shape=relu_shape,
        shape_exact=shape_exact,
        shape_theorem1=shape_theorem1,
    )
