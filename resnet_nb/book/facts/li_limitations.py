"""The numbers the prose of book/li_limitations.ipynb quotes, section by section: each function
selects them from the chapter's results and formats them as the page shows them."""

from __future__ import annotations

import numpy as np

from resnet_nb.book import show
from resnet_nb.li import limitations as lim

__all__ = ["products_facts", "fixup_facts", "variance_facts", "opening_facts"]


def products_facts() -> show.Facts:
    """The critical points of a linear 2-shortcut network (Section 5.2): loss against index, the rank
    correlation and its discordant pairs."""
    crit = lim.critical_points(R=2)
    rho, rho_99 = lim.spearman_test(crit["loss"].to_numpy(), crit["index"].to_numpy())
    n_crit = len(crit)
    n_discordant = lim.discordant_pairs(crit)
    spearman_rho, spearman_thr = show.num(rho), show.num(rho_99)
    if n_discordant == 0:
        raise ValueError(
            "the index is strictly increasing in the loss at these critical points: the section's "
            "widest discordant pair does not exist, so its prose no longer describes them"
        )
    strict = show.text("not strictly increasing")
    top_index = show.num(crit["index"].iloc[-1])
    assert crit["index"].iloc[0] == 0 and crit["index"].iloc[-1] == crit["index"].max()
    by_rank = show.text("ordered" if lim.index_ordered_by_rank(crit) else "not ordered")
    assert lim.index_ordered_by_rank(crit)
    low, high = lim.widest_discordant_pair(crit)
    low_kept, high_kept = show.text(low["kept"]), show.text(high["kept"])
    low_loss, high_loss = show.num(low["loss"]), show.num(high["loss"])
    low_index, high_index = show.num(low["index"]), show.num(high["index"])
    zeros = lim.zero_eigen_counts(crit)
    assert zeros["full"] == zeros["predicted_full"] and zeros["none"] == 0
    zeros_full, zeros_none = zeros["full"], zeros["none"]
    zeros_sym, zeros_idle = zeros["symmetry"], zeros["idle"]
    table = crit[["kept", "loss", "index", "negative", "zero"]]
    return show.Facts(
        by_rank=by_rank,
        high_index=high_index,
        high_kept=high_kept,
        high_loss=high_loss,
        low_index=low_index,
        low_kept=low_kept,
        low_loss=low_loss,
        n_crit=n_crit,
        n_discordant=n_discordant,
        spearman_rho=spearman_rho,
        spearman_thr=spearman_thr,
        strict=strict,
        table=table,
        top_index=top_index,
        zeros_full=zeros_full,
        zeros_idle=zeros_idle,
        zeros_none=zeros_none,
        zeros_sym=zeros_sym,
    )


def fixup_facts(R_units, errors, gains, profiles) -> show.Facts:
    """Fixup and He at the start: predicted and measured gains by depth, and the scaled products' errors."""
    g_he = lim.predicted_gain(2, "he")
    he_g = show.num(g_he)
    he_growth = show.sci(profiles["He, linear"][-1])
    he_growth_pred = show.sci(g_he**R_units)
    scaled = profiles["He, branches / √R"][-1]
    scaled_pred = (1 + (g_he - 1) / R_units) ** R_units
    scaled_se = errors["He, branches / √R"][-1]
    assert abs(scaled - scaled_pred) <= 4 * scaled_se < scaled_pred / 2
    assert scaled_pred < np.exp(g_he - 1)
    scaled_end, scaled_exact = show.num(scaled, 3), show.num(scaled_pred, 3)
    scaled_err = show.num(scaled_se, 2)
    scaled_bound = show.num(np.exp(g_he - 1), 3)
    zero_end = show.num(profiles["zero"][-1])
    pre_row = gains[(gains["n"] == 2) & (gains["init"] == "he") & (gains["pre"] == "relu")].iloc[0]
    pre_meas, pre_se = show.num(pre_row["measured g"], 3), show.num(pre_row["std. error"], 2)
    pre_pred, pre_sym = show.num(pre_row["predicted g"], 3), show.num(pre_row["symmetric inputs"])
    return show.Facts(
        he_g=he_g,
        he_growth=he_growth,
        he_growth_pred=he_growth_pred,
        pre_meas=pre_meas,
        pre_pred=pre_pred,
        pre_se=pre_se,
        pre_sym=pre_sym,
        scaled_bound=scaled_bound,
        scaled_end=scaled_end,
        scaled_err=scaled_err,
        scaled_exact=scaled_exact,
        zero_end=zero_end,
    )


def variance_facts() -> show.Facts:
    """Products of random units: the constants of their log-norm and how its spread grows with depth."""
    prod_c, prod_a = show.num(lim.PRODUCT_C), show.num(lim.PRODUCT_A)
    products = lim.product_table()
    assert (products["c/L: max |log|"] <= products["c/L: bound"]).all()
    assert products["a: std log"].is_monotonic_increasing
    L_top, n_draws = show.count(lim.PRODUCT_DEPTHS[-1]), show.count(lim.PRODUCT_DRAWS)
    top = products.iloc[-1]
    fixed_median = show.sci(top["a: median prod"])
    fixed_std, fixed_pred = show.num(top["a: std log"], 3), show.num(top["a: √L atanh a"], 3)
    sqrt_std, sqrt_pred = show.num(top["c/√L: std log"], 3), show.num(top["c/√L: predicted"], 3)
    shrink_max = show.num(top["c/L: max |log|"])
    return show.Facts(
        L_top=L_top,
        fixed_median=fixed_median,
        fixed_pred=fixed_pred,
        fixed_std=fixed_std,
        n_draws=n_draws,
        prod_a=prod_a,
        prod_c=prod_c,
        products=products,
        shrink_max=shrink_max,
        sqrt_pred=sqrt_pred,
        sqrt_std=sqrt_std,
    )


def opening_facts(p) -> show.Facts:
    """The opening: the zero start of a Fixup block and of a 2-shortcut network, its gradient and
    Hessian signature."""
    fixup_desc = p["net"].describe()
    fixup_grad = show.num(p["grad_norm"])
    fixup_maxH = show.num(p["max_H"])
    fixup_neg, fixup_pos = p["negative"], p["positive"]
    fixup_zero_eigs = len(p["eigs"]) - fixup_neg - fixup_pos
    fixup_block, fixup_rankB = p["lead_block"], p["rank_B"]
    zero_grad, zero_maxH = show.num(p["zero_grad_norm"]), show.num(p["zero_max_H"])
    assert fixup_neg == fixup_pos == fixup_rankB == p["cols_B"] and p["lead_max"] == 0
    assert p["zero_max_H"] == 0
    P3 = p["net"].num_params
    assert fixup_zero_eigs == P3 - 2 * fixup_rankB
    p_count, two_k, p_minus_k = P3, 2 * fixup_rankB, P3 - fixup_rankB
    p2 = lim.fixup_point(n=2, R=2)  # the same start with 2-shortcuts
    n2_neg, n2_pos = p2["negative"], p2["positive"]
    n2_zero = len(p2["eigs"]) - n2_neg - n2_pos
    n2_grad = show.num(p2["grad_norm"])
    assert n2_neg == n2_pos == p2["rank_B"] and n2_zero == 0 < fixup_zero_eigs
    return show.Facts(
        fixup_block=fixup_block,
        fixup_desc=fixup_desc,
        fixup_grad=fixup_grad,
        fixup_maxH=fixup_maxH,
        fixup_neg=fixup_neg,
        fixup_pos=fixup_pos,
        fixup_rankB=fixup_rankB,
        fixup_zero_eigs=fixup_zero_eigs,
        n2_grad=n2_grad,
        n2_neg=n2_neg,
        n2_pos=n2_pos,
        n2_zero=n2_zero,
        p_count=p_count,
        p_minus_k=p_minus_k,
        two_k=two_k,
        zero_grad=zero_grad,
        zero_maxH=zero_maxH,
    )
