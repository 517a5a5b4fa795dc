"""The numbers the prose of book/performance.ipynb quotes, section by section: each function
selects them from the chapter's results and formats them as the page shows them."""

from __future__ import annotations

from resnet_nb.book import show, views

__all__ = ["hessian_facts", "bench_facts", "floor_facts"]


def hessian_facts(FLOOR_TARGET, by_fig, floor_info) -> show.Facts:
    """Figure 7's Hessian build against its floor (benchmarks/floor.py --hessian-only)."""
    # Figure 7's Hessian build against its floor (benchmarks/floor.py --hessian-only)
    fig7_ratio = show.num(by_fig["fig7"]["paper_ratio"], 2)
    hess7 = floor_info["diagnostics"]["fig7_hessian"]
    fig7_build, fig7_eig = show.num(hess7["build_s"], 2), show.num(hess7["eigvalsh_s"], 2)
    fig7_prod = show.num(hess7["products_s"], 2)
    fig7_build_x = show.num(hess7["build_over_eigvalsh"], 2)
    fig7_prod_x = show.num(hess7["products_over_eigvalsh"], 2)
    fig7_build_over_prod = show.num(hess7["build_over_products"], 2)
    fig7_P, fig7_m = show.count(hess7["P"]), show.count(hess7["samples"])
    fig7_L, fig7_d = show.count(hess7["matrices"]), show.count(hess7["d"])
    fig7_nprod = show.count(hess7["products"])
    fig7_madds, fig7_eig_flops = show.sci(hess7["product_madds"]), show.sci(hess7["eigvalsh_flops"])
    fig7_arith_x = show.num(2 * hess7["product_madds"] / hess7["eigvalsh_flops"], 2)
    fig7_hess_part_x = show.num(1 + hess7["products_over_eigvalsh"], 2)
    fig7_merged_x = show.num(hess7["pair_merged_over_two"], 2)
    fig7_hess_repeats = show.count(hess7["repeats"])
    fig7_hess_load = show.num(hess7["load_average"][0], 1)
    fig7_hess_date = show.text(hess7["written_utc"][:10])
    # the products alone exceed the target, so no organisation of the build around them meets it
    assert hess7["products_over_eigvalsh"] > FLOOR_TARGET
    assert hess7["pair_merged_over_two"] > 1
    assert hess7["product_madds"] == hess7["P"] ** 2 * hess7["samples"]
    assert hess7["products_over_eigvalsh"] < 2 * hess7["product_madds"] / hess7["eigvalsh_flops"]
    return show.Facts(
        fig7_L=fig7_L,
        fig7_P=fig7_P,
        fig7_arith_x=fig7_arith_x,
        fig7_build=fig7_build,
        fig7_build_over_prod=fig7_build_over_prod,
        fig7_build_x=fig7_build_x,
        fig7_d=fig7_d,
        fig7_eig=fig7_eig,
        fig7_eig_flops=fig7_eig_flops,
        fig7_hess_date=fig7_hess_date,
        fig7_hess_load=fig7_hess_load,
        fig7_hess_part_x=fig7_hess_part_x,
        fig7_hess_repeats=fig7_hess_repeats,
        fig7_m=fig7_m,
        fig7_madds=fig7_madds,
        fig7_merged_x=fig7_merged_x,
        fig7_nprod=fig7_nprod,
        fig7_prod=fig7_prod,
        fig7_prod_x=fig7_prod_x,
        fig7_ratio=fig7_ratio,
    )


def bench_facts() -> show.Facts:
    """The rerun times of the figures: core-hours at the paper's scale and the slowest figure."""
    rerun = views.rerun_times()
    counted = rerun[rerun["figure"] != "Figure 8"]
    paper_core_min = sum(v for v in counted["paper: core-minutes"] if v != "")
    default_core_min = sum(v for v in counted["default: core-minutes"] if v != "")
    paper_total_h = show.fixed(paper_core_min / 60, 1)
    paper_two_cores_h = show.fixed(paper_core_min / 120, 1)
    default_total_min = show.fixed(default_core_min, 0)
    slowest = counted.loc[counted["paper: core-minutes"].replace("", 0).astype(float).idxmax()]
    slowest_paper = show.text(slowest["figure"])
    slowest_paper_min = show.fixed(slowest["paper: core-minutes"], 0)
    return show.Facts(
        default_total_min=default_total_min,
        paper_total_h=paper_total_h,
        paper_two_cores_h=paper_two_cores_h,
        rerun=rerun,
        slowest_paper=slowest_paper,
        slowest_paper_min=slowest_paper_min,
    )


def floor_facts(FLOOR_TARGET, TRAIN_TARGET, by_fig, floor_info) -> show.Facts:
    """The engine against its floor in the prose: the total ratio and the targets, the figures above
    the target, the worst training figure, the sampling check, the machine and the runs; the floor
    must have followed the engine's trajectory (same final losses, same divergences)."""
    tot, m = floor_info["total"], floor_info["machine"]
    over = sorted(
        (f for f in floor_info["figures"] if f["paper_ratio"] > FLOOR_TARGET),
        key=lambda f: -f["paper_ratio"],
    )
    train_worst = max(["fig2", "fig3", "fig9", "fig10"], key=lambda k: by_fig[k]["paper_ratio"])
    checks = [f["committed_check"]["estimated_over_committed"] for f in floor_info["figures"] if f["committed_check"]]
    earlier = [f for f in floor_info["figures"] if f.get("separate_run")]
    now = [views.FIGURE_NAMES[f["figure"]] for f in floor_info["figures"] if not f.get("separate_run")]
    # the floor must follow the engine's trajectory: same final losses, same divergences
    same = all(
        it["check"] is None or (it["check"]["same_divergences"] and it["check"]["max_rel_diff"] < 1e-9)
        for f in floor_info["figures"]
        for it in f["items"]
    )
    assert same, "the floor did not follow the engine's trajectory"
    return show.Facts(
        floor_target=show.num(FLOOR_TARGET),
        floor_ratio=show.num(tot["paper_ratio"], 2),
        floor_ratio_2jobs=show.num(tot["paper_ratio_2jobs"], 2),
        floor_met=show.text("within" if tot["paper_ratio"] <= FLOOR_TARGET else "above"),
        floor_ours_h=show.fixed(tot["paper_engine_core_s"] / 3600, 1),
        floor_floor_h=show.fixed(tot["paper_floor_core_s"] / 3600, 1),
        floor_wall_h=show.fixed(tot["paper_engine_wall_2jobs_s"] / 3600, 1),
        floor_floor_wall_h=show.fixed(tot["paper_floor_wall_2jobs_s"] / 3600, 1),
        floor_over=show.text(
            ", ".join(f"{views.FIGURE_NAMES[f['figure']]} ({f['paper_ratio']:.2f})" for f in over) or "none"
        ),
        floor_train_worst=show.num(by_fig[train_worst]["paper_ratio"], 2),
        floor_train_worst_fig=show.text(views.FIGURE_NAMES[train_worst]),
        floor_train_met=show.text("within" if by_fig[train_worst]["paper_ratio"] <= TRAIN_TARGET else "above"),
        floor_check_lo=show.num(min(checks), 2),
        floor_check_hi=show.num(max(checks), 2),
        floor_load=show.num(m["load_average_end"][0], 1),
        floor_threads=show.count(m["torch_threads"]),
        floor_date=show.text(floor_info["written_utc"][:10]),
        floor_commit=show.text(floor_info["git"]["commit"][:7]),
        floor_runs_note=show.text(
            "All figures were measured in this one run."
            if not earlier
            else f"This run remeasured {', '.join(now)}; the other figures come from earlier runs of the "
            f"same script ({', '.join(sorted({f['separate_run'][11:16] for f in earlier}))} UTC, the "
            "same day), each figure with its engine and floor side by side."
        ),
    )
