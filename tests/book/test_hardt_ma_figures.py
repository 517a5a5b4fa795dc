"""The figures of the Hardt & Ma chapters (resnet_nb.book.hardt_ma_figures) draw without error."""

import matplotlib
import numpy as np
import pytest

from resnet_nb.book import hardt_ma_figures as hmf
from resnet_nb.hardt_ma import relu as hr

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def test_views_draw_without_error():
    fig, ax = plt.subplots()
    hmf.factor_norms_plot(6, 1.0, ax=ax)
    assert len(ax.patches) == 6  # one bar per factor
    hmf.ratio_histogram(2, 0.3, np.eye(3), ax=ax)
    axes = hmf.construction_view(20, 4, 2)
    assert len(axes) == 2 and "max error" in axes[-1].get_xlabel()
    plt.close("all")


def test_construction_figure_has_one_panel_per_block():
    fig = hmf.construction_figure(6, 3)
    assert len(fig.axes) == len(hr.construction_steps(6, 3)["moved"]) == 3
    assert fig.axes[0].get_title().startswith("block 1 moves points")
    plt.close(fig)


def test_refusal_row_counts_the_failures_with_their_interval_and_the_setting():
    row = hmf.refusal_row("points", "paper's", "squared", 10, hmf.width_span([12, 40, 33]), "projections", [1, 0, 0, 1])
    assert row["widths"] == "12-40" and row["c"] == 10 and row["order"] == "paper's"
    assert (row["failures"], row["draws"], row["rate"]) == (2, 4, 0.5)
    assert row["low"] < 0.5 < row["high"]


def test_extra_blocks_text_says_how_many_blocks_beyond_ceil_n_over_k():
    import pandas as pd

    results = pd.DataFrame(dict(data=["a", "a", "b"], blocks=[5, 7, 3], ceil_n_over_k=[5, 5, 3]))
    assert repr(hmf.extra_blocks_text(results, "a")) == "at most 2 more blocks than ⌈n/k⌉"
    assert repr(hmf.extra_blocks_text(results, "b")) == "no more than ⌈n/k⌉ blocks"
    results.loc[1, "blocks"] = 6
    assert repr(hmf.extra_blocks_text(results, "a")) == "at most 1 more block than ⌈n/k⌉"
    with pytest.raises(ValueError, match="data"):
        hmf.extra_blocks_text(results, "c")


def test_failures_of_writes_the_count_of_a_failure_rate():
    assert repr(hmf.failures_of(hr.failure_rate([True, False, True]))) == "2 of 3"


def test_the_refusal_table_counts_refusals_per_reading_and_constant_with_intervals():
    import pandas as pd

    from resnet_nb.book.hardt_ma_figures import refusal_rates

    draws = pd.DataFrame(
        {
            f"{col}_{tag}_c{c}": vals
            for c in (10, 30)
            for tag in ("sq", "dist")
            for col, vals in (
                ("k", [40, 44, 48, 52]),
                ("refuses", [True, False, False, False] if tag == "sq" and c == 10 else [False] * 4),
            )
        }
    ).assign(greedy_error=[0.0, 1e-12, None, None])
    projections = pd.DataFrame({"refuses": [False, False]})
    rates = refusal_rates(projections, projections, draws, draws.dropna(subset=["greedy_error"]), 30)
    assert {"N", "95% low", "95% high"} <= set(rates.columns)
    assert len(rates) == 7  # synthetic, MNIST, four random (two readings, two constants), greedy
    random_sq10 = rates.iloc[2]
    assert random_sq10["failures"] == 1 and random_sq10["N"] == 4
    assert random_sq10["95% low"] < 0.25 < random_sq10["95% high"]
    assert (rates.iloc[3:]["failures"] == 0).all()


def test_the_jl_table_has_a_row_per_constant_and_reading():
    from resnet_nb.book.hardt_ma_figures import jl_rates

    one = {"k_min": 40, "k_max": 52, "rho_min": 1.2, "rho_max": 1.9, "excess_min": 0.5, "excess_max": 2.0}
    one.update(failures=3, draws=10, low=0.1, high=0.6)
    table = {"c": 10, "squared distance": one, "distance": dict(one, failures=0, low=0.0, high=0.3)}
    rows = jl_rates(table, dict(table, c=30))
    assert list(rows["c"]) == [10, 10, 30, 30] and list(rows["rho"][:2]) == ["squared distance", "distance"]
    assert rows.iloc[0]["widths"] == "40-52" and rows.iloc[0]["distortion_over_tolerance"] == "0.50-2.00"


def test_the_survey_summary_states_each_count_with_its_bracketed_companion():
    from resnet_nb.book import show
    from resnet_nb.book.hardt_ma_figures import survey_summary

    f = show.Facts(
        n_constructions=show.count(120),
        n_hyp=show.count(90),
        worst_prod=show.num(3e-15),
        ratio_iclr=show.fixed(0.5, 3),
        ratio_summary=show.fixed(0.25, 3),
        n_paper=show.count(112),
        paper_err=show.num(2e-15),
        paper_gap=show.num(0.04),
    )
    rows = survey_summary(f)["value"].tolist()
    assert rows[0] == "120 (90)" and rows[4] == f"112 ({show.num(2e-15)})"
    assert rows[2] == "0.500" and rows[5] == str(show.num(0.04)) and len(rows) == 6


def test_the_analog_figure_draws_every_seed_and_labels_each_initialisation_once():
    import pandas as pd

    from resnet_nb.book.hardt_ma_figures import analog_figure

    runs = pd.DataFrame(
        {
            "init": ["standard"] * 4 + ["hardt_ma"] * 2,
            "seed": [0, 0, 1, 1, 0, 0],
            "epoch": [1, 2] * 3,
            "loss": [2.0, 1.0, 2.1, 1.1, 2.2, 0.9],
            "test_accuracy": [0.5, 0.7, 0.5, 0.6, 0.4, 0.8],
        }
    )
    left, right = analog_figure(runs).axes
    assert len(left.lines) == len(right.lines) == 3 and left.get_yscale() == "log"
    assert [h.get_label() for h in left.get_legend().legend_handles] == ["standard", "hardt_ma"]


def test_the_contraction_table_vanishes_with_depth_at_fixed_tau_but_not_at_one_over_l():
    from resnet_nb.book.hardt_ma_figures import contraction_table

    data = contraction_table((2, 128)).data
    assert data.fixed_tau.iloc[-1] < 1e-10 < 0.01 < data.tau_1_over_l.iloc[-1] < 0.14  # e^-2 from above


def test_the_worst_forms_table_keeps_each_sigmas_worst_and_renames_two_forms():
    import pandas as pd

    from resnet_nb.book.hardt_ma_figures import worst_forms_table
    from resnet_nb.hardt_ma.linear.theorem22 import FORMS

    rows = pd.DataFrame(
        [{"Sigma": s, **{f"worst_{f}": v for f in FORMS}} for s, v in (("I", 0.5), ("I", 0.2), ("D", 3.0))]
    )
    data = worst_forms_table(rows).data.set_index("Sigma")
    assert data.loc["I", "worst_printed"] == 0.2 and data.loc["D", "worst_step_ii"] == 3.0
    assert "worst_exponent_only_repair" in data.columns and "worst_via_E" not in data.columns


def test_the_hessians_at_zero_figure_shows_a_zero_plain_hessian_beside_a_nonzero_residual_one():
    from resnet_nb.book.hardt_ma_figures import hessians_at_zero_figure
    from resnet_nb.core.data import synthetic_linear

    fig = hessians_at_zero_figure(synthetic_linear(2, 50, noise=0.1, seed=0))
    plain, residual = (a.images[0].get_array() for a in fig.axes[:2])
    assert abs(plain).max() == 0 < abs(residual).max()


def test_the_gd_runs_figure_floors_the_gap_and_draws_residual_runs_solid():
    import numpy as np

    from resnet_nb.book.hardt_ma_figures import gd_runs_figure

    class Run:
        losses = np.array([2.0, 1.0, 1.0])

    ax = gd_runs_figure({("residual from 0", 3): Run(), ("plain from small", 6): Run()}, L_min=1.0).axes[0]
    solid, dashed = ax.lines
    assert solid.get_linestyle() == "-" and dashed.get_linestyle() == "--"
    assert list(solid.get_ydata()) == [1.0, 1e-16, 1e-16]


def test_the_constant_figure_marks_the_iclr_constant_and_three_gamma_for_each_curve():
    import numpy as np

    from resnet_nb.book.hardt_ma_figures import constant_figure
    from resnet_nb.hardt_ma.linear.network import random_positive_det

    R_of = {g: random_positive_det(2, np.random.default_rng(1), gamma=g) for g in (0.5, 2.0, 4.0)}
    left, right = constant_figure(R_of, [1, 10]).axes
    assert len(left.lines) == 9 and len(right.lines) == 4  # curve, constant and l = 3 gamma per gamma
    assert list(left.lines[2].get_xdata()) == [1.5, 1.5]


def test_the_margin_table_counts_exposed_projections_and_paper_order_fits_per_width():
    import pandas as pd

    from resnet_nb.book.hardt_ma_figures import margin_table

    proj = pd.DataFrame(
        {
            "data": ["MNIST"] * 3 + ["synthetic"],
            "k": [320, 320, 320, 30],
            "seed": [0, 1, 2, 0],
            "exposed": [1.0, 0.9, 1.0, 1.0],
            "refuses": [False, True, True, False],
            "min_margin": [0.1, -0.2, 0.3, 0.05],
        }
    )
    row = margin_table(proj).set_index("data").loc["MNIST"]
    assert (row.projections, row.every_point_exposed, row.paper_order_fits) == (3, 2, 1)
    assert row.median_min_margin == 0.1 and row.lowest_exposed == 0.9


def test_the_fit_size_figure_draws_the_diagonal_up_to_the_most_blocks_used():
    import pandas as pd

    from resnet_nb.book.hardt_ma_figures import fit_size_figure

    results = pd.DataFrame(
        {
            "data": ["MNIST", "synthetic"],
            "n": [250, 250],
            "ceil_n_over_k": [8, 9],
            "blocks": [9, 10],
            "trainable": [5e3, 6e3],
        }
    )
    narrow = pd.DataFrame({"ceil_n_over_k": [667, 1000], "blocks": [700, 1000], "trainable": [4e4, 3e4]})
    left, right = fit_size_figure(results, narrow).axes
    diagonal = [line for line in left.lines if line.get_label() == "blocks = ceil(n/k)"][0]
    assert list(diagonal.get_xdata()) == [1, 1000] and left.get_xscale() == "log"
    assert list(right.lines[-1].get_ydata()) == [250 * 21, 2000 * 21]  # n (2k^2 + k) at k = 3
