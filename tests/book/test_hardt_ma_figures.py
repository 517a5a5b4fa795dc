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
