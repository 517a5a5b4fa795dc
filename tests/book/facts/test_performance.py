"""The numbers book/performance.ipynb quotes (resnet_nb.book.facts.performance), on a hand-made
floor.json record and a fabricated rerun table."""

import pandas as pd
import pytest

from resnet_nb.book.facts import performance as facts

FLOOR_TARGET, TRAIN_TARGET = 1.5, 2.0


def _hess7(**over):
    P, samples, flops = 100, 50, 5.0e5
    h = dict(
        build_s=3.0,
        eigvalsh_s=1.5,
        products_s=2.5,
        build_over_eigvalsh=2.0,
        products_over_eigvalsh=2.5 / 1.5,
        build_over_products=1.2,
        P=P,
        samples=samples,
        matrices=16,
        d=10,
        products=120,
        product_madds=P**2 * samples,  # 5e5
        eigvalsh_flops=flops,
        pair_merged_over_two=1.3,
        repeats=5,
        load_average=[0.75, 0.5, 0.25],
        written_utc="2026-03-04T05:06:07Z",
    )
    h.update(over)
    return h


def _item(same=True, diff=0.0):
    return {"check": {"same_divergences": same, "max_rel_diff": diff}}


def _floor_info(ratios=None, separate=(), hess7=None, total_ratio=1.4, items_fig3=None):
    ratios = ratios or {"fig2": 1.2, "fig3": 1.8, "fig5": 1.1, "fig7": 1.7, "fig9": 1.3, "fig10": 1.6}
    checks = {"fig2": 0.9, "fig3": 1.1, "fig7": 1.05}
    figures = []
    for name, r in ratios.items():
        f = {
            "figure": name,
            "paper_ratio": r,
            "committed_check": {"estimated_over_committed": checks[name]} if name in checks else None,
            "items": [_item(), {"check": None}],
        }
        if name in separate:
            f["separate_run"] = "2026-03-04T01:23:45Z"
        figures.append(f)
    if items_fig3 is not None:
        next(f for f in figures if f["figure"] == "fig3")["items"] = items_fig3
    return {
        "total": dict(
            paper_ratio=total_ratio,
            paper_ratio_2jobs=1.45,
            paper_engine_core_s=7200.0,
            paper_floor_core_s=5400.0,
            paper_engine_wall_2jobs_s=3960.0,
            paper_floor_wall_2jobs_s=2880.0,
        ),
        "machine": {"load_average_end": [1.25, 1.0, 0.5], "torch_threads": 2},
        "figures": figures,
        "written_utc": "2026-03-04T09:10:11Z",
        "git": {"commit": "abcdef0123456789"},
        "diagnostics": {"fig7_hessian": hess7 if hess7 is not None else _hess7()},
    }


def _by_fig(info):
    return {f["figure"]: f for f in info["figures"]}


# -- hessian_facts --------------------------------------------------------------------------------


def test_hessian_times_and_sizes_are_read_from_the_fig7_diagnostics():
    info = _floor_info()
    f = facts.hessian_facts(FLOOR_TARGET, _by_fig(info), info)
    assert f.fig7_ratio == pytest.approx(1.7)
    assert f.fig7_build == pytest.approx(3.0) and f.fig7_eig == pytest.approx(1.5)
    assert f.fig7_prod == pytest.approx(2.5)
    assert (f.fig7_P, f.fig7_m, f.fig7_L, f.fig7_d, f.fig7_nprod) == (100, 50, 16, 10, 120)
    assert f.fig7_madds == pytest.approx(5e5) and f.fig7_eig_flops == pytest.approx(5e5)
    assert f.fig7_hess_repeats == 5 and f.fig7_hess_load == pytest.approx(0.75)
    assert f.fig7_hess_date == "2026-03-04"


def test_hessian_ratios_are_the_arithmetic_and_time_ratios():
    info = _floor_info()
    f = facts.hessian_facts(FLOOR_TARGET, _by_fig(info), info)
    assert f.fig7_arith_x == pytest.approx(2 * 5e5 / 5e5)
    assert f.fig7_hess_part_x == pytest.approx(1 + 2.5 / 1.5)
    assert f.fig7_prod_x == pytest.approx(2.5 / 1.5) and f.fig7_build_x == pytest.approx(2.0)
    assert f.fig7_merged_x == pytest.approx(1.3) and f.fig7_build_over_prod == pytest.approx(1.2)


def test_hessian_refuses_products_within_the_floor_target():
    info = _floor_info(hess7=_hess7(products_over_eigvalsh=1.2))
    with pytest.raises(AssertionError):
        facts.hessian_facts(FLOOR_TARGET, _by_fig(info), info)


def test_hessian_refuses_a_madds_count_that_is_not_p_squared_times_samples():
    info = _floor_info(hess7=_hess7(product_madds=4e5))
    with pytest.raises(AssertionError):
        facts.hessian_facts(FLOOR_TARGET, _by_fig(info), info)


def test_hessian_refuses_a_merged_pair_that_is_not_slower():
    info = _floor_info(hess7=_hess7(pair_merged_over_two=0.9))
    with pytest.raises(AssertionError):
        facts.hessian_facts(FLOOR_TARGET, _by_fig(info), info)


# -- bench_facts ----------------------------------------------------------------------------------


def test_bench_totals_leave_out_figure_8_and_empty_entries(monkeypatch):
    rerun = pd.DataFrame(
        {
            "figure": ["Figure 2", "Figure 3", "Figure 7", "Figure 8"],
            "default: core-minutes": [3.0, "", 4.5, ""],
            "paper: core-minutes": [60.0, 300.0, "", 999.0],
        }
    )
    monkeypatch.setattr(facts.views, "rerun_times", lambda: rerun)
    f = facts.bench_facts()
    assert f.paper_total_h == pytest.approx(360 / 60)
    assert f.paper_two_cores_h == pytest.approx(360 / 120)
    assert f.default_total_min == pytest.approx(7.5)
    # the slowest counted figure; Figure 8's larger number does not count
    assert f.slowest_paper == "Figure 3" and f.slowest_paper_min == pytest.approx(300)


# -- floor_facts ----------------------------------------------------------------------------------


def test_floor_totals_are_converted_to_hours_and_the_worst_training_figure_is_found():
    info = _floor_info()
    f = facts.floor_facts(FLOOR_TARGET, TRAIN_TARGET, _by_fig(info), info)
    assert f.floor_target == pytest.approx(1.5) and f.floor_ratio == pytest.approx(1.4)
    assert f.floor_ratio_2jobs == pytest.approx(1.45)
    assert f.floor_ours_h == pytest.approx(2.0) and f.floor_floor_h == pytest.approx(1.5)
    assert f.floor_wall_h == pytest.approx(1.1) and f.floor_floor_wall_h == pytest.approx(0.8)
    # the worst of figures 2, 3, 9, 10 (Figure 7 is not a training figure)
    assert f.floor_train_worst == pytest.approx(1.8) and f.floor_train_worst_fig == "Figure 3"
    assert f.floor_check_lo == pytest.approx(0.9) and f.floor_check_hi == pytest.approx(1.1)
    assert f.floor_load == pytest.approx(1.25) and f.floor_threads == 2
    assert f.floor_date == "2026-03-04" and f.floor_commit == "abcdef0"


def test_floor_lists_the_figures_above_target_worst_first():
    info = _floor_info()
    text = facts.floor_facts(FLOOR_TARGET, TRAIN_TARGET, _by_fig(info), info).floor_over
    # above 1.5: Figure 3 (1.8), Figure 7 (1.7), Figure 10 (1.6); not Figure 2 (1.2)
    assert text.index("Figure 3") < text.index("Figure 7") < text.index("Figure 10")
    assert "Figure 2 " not in text and "Figure 5" not in text


def test_floor_says_none_when_no_figure_is_above_target():
    ratios = {"fig2": 1.2, "fig3": 1.3, "fig7": 1.1, "fig9": 1.0, "fig10": 1.4}
    info = _floor_info(ratios=ratios)
    f = facts.floor_facts(FLOOR_TARGET, TRAIN_TARGET, _by_fig(info), info)
    assert f.floor_over == "none"
    assert f.floor_train_met == "within"


def test_floor_met_words_follow_the_ratios_against_the_targets():
    info = _floor_info(total_ratio=1.4)
    f = facts.floor_facts(FLOOR_TARGET, TRAIN_TARGET, _by_fig(info), info)
    assert f.floor_met == "within" and f.floor_train_met == "within"  # 1.8 <= 2.0
    ratios = {"fig2": 1.2, "fig3": 2.5, "fig7": 1.1, "fig9": 1.0, "fig10": 1.4}
    info = _floor_info(ratios=ratios, total_ratio=1.6)
    f = facts.floor_facts(FLOOR_TARGET, TRAIN_TARGET, _by_fig(info), info)
    assert f.floor_met == "above" and f.floor_train_met == "above"


def test_floor_runs_note_names_the_remeasured_figures_only_when_some_came_from_earlier_runs():
    info = _floor_info()
    one_run = facts.floor_facts(FLOOR_TARGET, TRAIN_TARGET, _by_fig(info), info).floor_runs_note
    assert "01:23" not in one_run
    info = _floor_info(separate=("fig2", "fig9"))
    note = facts.floor_facts(FLOOR_TARGET, TRAIN_TARGET, _by_fig(info), info).floor_runs_note
    assert "01:23" in note  # the earlier run's time of day
    # it names the figures remeasured in this run, not those of the earlier runs
    assert "Figure 3" in note and "Figure 10" in note
    assert "Figure 2" not in note and "Figure 9" not in note


def test_floor_refuses_a_floor_that_left_the_engines_trajectory():
    info = _floor_info(items_fig3=[_item(diff=1e-6)])
    with pytest.raises(AssertionError):
        facts.floor_facts(FLOOR_TARGET, TRAIN_TARGET, _by_fig(info), info)
    info = _floor_info(items_fig3=[_item(same=False)])
    with pytest.raises(AssertionError):
        facts.floor_facts(FLOOR_TARGET, TRAIN_TARGET, _by_fig(info), info)


def test_hessian_refuses_products_slower_than_their_arithmetic_allows():
    info = _floor_info(hess7=_hess7(eigvalsh_flops=4e6))  # arithmetic ratio 0.25 < 1.67 measured
    with pytest.raises(AssertionError):
        facts.hessian_facts(FLOOR_TARGET, _by_fig(info), info)
