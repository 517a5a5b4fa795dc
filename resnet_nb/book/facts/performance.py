"""The numbers the prose of book/performance.ipynb quotes, section by section: each function
selects them from the chapter's results and formats them as the page shows them."""

from __future__ import annotations

from resnet_nb.book import show, views

__all__ = ["hessian_facts", "bench_facts"]


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
