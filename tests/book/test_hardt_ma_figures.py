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
