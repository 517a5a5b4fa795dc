"""The figures of the Hardt & Ma chapters (resnet_nb.book.hardt_ma_figures) draw without error."""

import matplotlib
import numpy as np

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
