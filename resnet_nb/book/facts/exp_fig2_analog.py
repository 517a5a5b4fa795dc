"""The numbers the prose of book/exp_fig2_analog.ipynb quotes, section by section: each function
selects them from the chapter's results and formats them as the page shows them."""

from __future__ import annotations

import numpy as np

from resnet_nb.book import show
from resnet_nb.experiments import fig2, fig9

__all__ = ["ordering_facts", "growth_ratio_facts", "evals_facts", "nobn_facts", "setup_facts", "prov_facts"]


def ordering_facts(below_start, fa, fb, npath, paper_table) -> show.Facts:
    """The convolutional analog's norms: where the mean norm peaks, how far it falls around the first
    drop of the rate, and the final ordering by depth."""
    ps = fig2.summarise(paper_table)
    order = fig2.ordering(paper_table)
    per_seed = {
        s: fig2.ordering(paper_table[paper_table["seed"] == s])["crossings"]
        for s in sorted(paper_table["seed"].unique())
    }
    init_lo, init_hi = show.num(ps.initial_norm.min(), 3), show.num(ps.initial_norm.max(), 3)
    fin = [show.num(x, 3) for x in ps.final_norm]
    fin10, fin16, fin22, fin28, fin40, fin52 = fin
    lgl = np.log10(ps.final_loss)
    lg_lo, lg_hi = show.num(lgl.min(), 2), show.num(lgl.max(), 2)
    assert lgl.max() < -3.0 and lgl.min() > -4.0  # below the paper's axis, which stops at -3
    same_epoch = show.num(order["same_epoch_worst_ratio"], 4)
    n_cross_mean = sum(len(v) for v in order["crossings"].values())
    cross_4052 = show.text(", ".join(str(len(c[(40, 52)])) for c in per_seed.values()))
    n_cross_all = show.count(sum(len(v) for c in per_seed.values() for v in c.values()))
    r = fig2.successive_ratios(paper_table)
    last_ratio = show.num(r[:, -1].max(), 3)
    assert n_cross_mean == 0
    peak_ep = show.text(", ".join(str(e) for e in npath.peak_epoch))
    fall_lo, fall_hi = show.num(fb.min(), 2), show.num(fb.max(), 2)
    after_lo, after_hi = show.num(fa.min(), 2), show.num(fa.max(), 2)
    net = show.text(", ".join(f"{x:+.2f}" for x in npath.final_minus_initial))
    n_below = show.count(len(below_start))
    return show.Facts(
        after_hi=after_hi,
        after_lo=after_lo,
        cross_4052=cross_4052,
        fall_hi=fall_hi,
        fall_lo=fall_lo,
        fin10=fin10,
        fin16=fin16,
        fin22=fin22,
        fin28=fin28,
        fin40=fin40,
        fin52=fin52,
        init_hi=init_hi,
        init_lo=init_lo,
        last_ratio=last_ratio,
        lg_hi=lg_hi,
        lg_lo=lg_lo,
        n_below=n_below,
        n_cross_all=n_cross_all,
        net=net,
        peak_ep=peak_ep,
        same_epoch=same_epoch,
    )


def growth_ratio_facts(below_start, fb, npath, paper_table) -> show.Facts:
    """The growth of the norms early in training against what weight decay alone would give, and the
    first rate drop."""
    below_what = show.text(" and ".join(str(x) for x in below_start))
    first_drop = show.count(fig2.lr_drops(paper_table)[0])
    assert (npath.peak_epoch < fig2.lr_drops(paper_table)[0]).all() and (fb > 0).all()
    # weight decay alone: the factor per epoch on a kernel the loss does not push back
    pc = fig2.SCALES["paper"]
    steps = pc["n_train"] // pc["batch_size"]
    wd_shrink = (1 - pc["lr"] * pc["weight_decay"] / (1 - pc["momentum"])) ** steps
    wd_pct = show.pct(1 - wd_shrink)
    wd, mom, n_steps = show.sci(pc["weight_decay"]), show.num(pc["momentum"]), show.count(steps)
    lr0p = show.num(pc["lr"])
    # crossings: which pairs, at what loss
    ct = fig2.crossing_table(paper_table)
    early = ct[ct["pair"].isin(["10-16", "22-28"])]
    n_early = show.count(len(early))
    early_lo, early_hi = show.num(early.lg_loss.max(), 2), show.num(early.lg_loss.min(), 2)
    n_deep = show.count(int((ct["pair"] == "40-52").sum()))
    assert len(early) + int((ct["pair"] == "40-52").sum()) == len(ct)
    sew = fig2.same_epoch_worst(paper_table)
    sew_where = show.text(f"seed {sew['seed']}, epoch {sew['epoch']}, {sew['deep']} against {sew['shallow']} layers")
    sew_spread = show.num(sew["spread"], 2)
    assert 1 - sew["ratio"] < sew["spread"]  # fragile: margin below the spread over seeds
    return show.Facts(
        below_what=below_what,
        early_hi=early_hi,
        early_lo=early_lo,
        first_drop=first_drop,
        lr0p=lr0p,
        mom=mom,
        n_deep=n_deep,
        n_early=n_early,
        n_steps=n_steps,
        sew_spread=sew_spread,
        sew_where=sew_where,
        wd=wd,
        wd_pct=wd_pct,
    )


def evals_facts(config, init_gap) -> show.Facts:
    """The convolutional analog's settings (data, epochs, widths, depths, rates, momentum, weight
    decay) and the largest gap between initialisations at the start."""
    init_gap_max = show.pct(max(init_gap), 1)
    n_train, n_epochs = show.count(config["n_train"]), show.count(config["epochs"])
    widths = show.text(", ".join(map(str, config["channels"])))
    depth_list = show.text(", ".join(str(fig2.layers(b)) for b in config["blocks"]))
    block_list = show.text(", ".join(map(str, config["blocks"])))
    momentum, wd = show.num(config["momentum"]), show.sci(config["weight_decay"], 1)
    lr0 = show.num(config["lr"])
    drops_text = show.text(" and ".join(map(str, config["milestones"])))
    frac_ours = show.text(" and ".join(f"{100 * (m - 1) / config['epochs']:.1f}%" for m in config["milestones"]))
    frac_paper = show.text(" and ".join(f"{100 * (m - 1) / 200:.1f}%" for m in (81, 122)))
    lr1, lr2 = show.num(config["lr"] * config["factor"]), show.num(config["lr"] * config["factor"] ** 2)
    return show.Facts(
        block_list=block_list,
        depth_list=depth_list,
        drops_text=drops_text,
        frac_ours=frac_ours,
        frac_paper=frac_paper,
        init_gap_max=init_gap_max,
        lr0=lr0,
        lr1=lr1,
        lr2=lr2,
        momentum=momentum,
        n_epochs=n_epochs,
        n_train=n_train,
        wd=wd,
        widths=widths,
    )


def nobn_facts(summary) -> show.Facts:
    """The run without batch normalisation: whether the ordering of the final norms survives."""
    growth = summary.final_norm - summary.initial_norm
    for (_, row), g in zip(summary.iterrows(), growth):
        print(
            f"{int(row.layers):2d} layers: average norm {row.initial_norm:.3f} -> "
            f"{row.final_norm:.3f} "
            f"(growth {g:.3f}), final training loss {row.final_loss:.4f}"
        )
    ordered = bool(np.all(np.diff(summary.final_norm.to_numpy()) < 0))
    growth_ratio = show.num(growth.iloc[-1] / growth.iloc[0], 2)
    live_order = show.text(
        "the deeper the network, the lower its final norm"
        if ordered
        else "the final norms are not strictly ordered by depth in this run"
    )
    live_gap = show.pct(1 - summary.final_norm.min() / summary.final_norm.max())
    live_lg_loss = show.num(np.log10(summary.final_loss.max()), 2)
    norm_lo, norm_hi = show.num(summary.final_norm.min(), 2), show.num(summary.final_norm.max(), 2)
    return show.Facts(
        growth_ratio=growth_ratio,
        live_gap=live_gap,
        live_lg_loss=live_lg_loss,
        live_order=live_order,
        norm_hi=norm_hi,
        norm_lo=norm_lo,
        ordered=ordered,
    )


def setup_facts(paper_table, pc) -> show.Facts:
    """The committed run's depths, digits and seeds, the live run's digits, and the closest pair of
    successive depths at the end."""
    p_depths = show.text(f"{fig2.layers(pc['blocks'][0])} to {fig2.layers(pc['blocks'][-1])}")
    p_digits, p_seeds = show.count(pc["n_train"]), show.count(len(pc["seeds"]))
    verdict_order = show.verdict(fig2.claim_larger_run_ordered)
    verdict_growth = show.verdict(fig2.claim_growth_shrinks)
    # the closest pair of successive depths at the end (largest ratio over seeds)
    _r_end = fig2.successive_ratios(paper_table)
    _layers = sorted(int(x) for x in paper_table["layers"].unique())
    _j = int(_r_end.max(axis=0).argmax())
    close_pair = show.text(f"{_layers[_j]} and {_layers[_j + 1]}")
    close_spread = show.num(_r_end.std(axis=0).max(), 2)
    assert 1 - _r_end.max() < _r_end.std(axis=0).max()  # the final ordering of that pair is fragile
    live_digits = show.count(fig2.SCALES["default"]["n_train"])
    return show.Facts(
        close_pair=close_pair,
        close_spread=close_spread,
        live_digits=live_digits,
        p_depths=p_depths,
        p_digits=p_digits,
        p_seeds=p_seeds,
        verdict_growth=verdict_growth,
        verdict_order=verdict_order,
    )


def prov_facts(paper_table, pc, provenance) -> show.Facts:
    """The committed Figure 2 analog: its summary, its wall times and the records from a modified
    working tree."""
    paper_summary = fig2.summarise(paper_table)
    item_times = fig2.item_wall_times()
    core_min = show.count(round(provenance["items_wall_time_s"] / 60))
    item_lo, item_hi = show.count(round(min(item_times))), show.count(round(max(item_times) / 60))
    n_mod2, n_rec2, _ = fig9.modified_records("fig2")
    mod2 = show.text(f"{n_mod2} of its {n_rec2} runs")
    n_runs2 = show.count(n_rec2)
    p_epochs = show.count(pc["epochs"])
    p_drops = show.text(" and ".join(str(m - 1) for m in pc["milestones"]))
    return show.Facts(
        core_min=core_min,
        item_hi=item_hi,
        item_lo=item_lo,
        mod2=mod2,
        n_runs2=n_runs2,
        p_drops=p_drops,
        p_epochs=p_epochs,
        paper_summary=paper_summary,
    )
