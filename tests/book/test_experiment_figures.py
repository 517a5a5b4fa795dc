"""The figures of the experiment chapters (resnet_nb.book.experiment_figures): the first-step gap
shaded, one palette, and every figure drawn by its name."""

import math

import matplotlib
import pytest

matplotlib.use("Agg")

from resnet_nb.book import experiment_figures as figures  # noqa: E402
from resnet_nb.experiments import fig6, fig9  # noqa: E402


def test_fig8_plot_shades_the_first_step_gap():
    import matplotlib

    matplotlib.use("Agg")
    t = fig6.committed("fig6")
    left = figures.plot_fig8(t)[0]
    lo, hi = fig6.first_step_gap(t)
    spans = [p for p in left.patches if p.get_label().startswith("orthogonal: interpolated")]
    assert len(spans) == 1
    x0, width = spans[0].get_x(), spans[0].get_width()
    assert x0 == pytest.approx(lo) and x0 + width == pytest.approx(hi)


def test_figures_use_the_one_palette():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    from resnet_nb.book.plotting import COLORS

    fig, ax = plt.subplots()
    figures.plot_fig9(fig9.committed(), ax=ax)  # one axis: the loss panel only
    used = {to_hex(line.get_color()) for line in ax.get_lines() if line.get_label()[:1] != "_"}
    assert used <= {to_hex(c) for c in COLORS.values()}, used
    plt.close(fig)
    shades = figures.depth_colors([1, 2, 4])
    assert len(set(shades.values())) == 3


@pytest.mark.parametrize("figure", ["fig5", "fig9", "fig10"])
def test_every_figure_is_drawn_by_its_name(figure):
    import matplotlib.pyplot as plt

    from resnet_nb.experiments import engine
    from resnet_nb.shared import common

    module = engine.load_figure(figure)
    assert figures.plot_for(module) is figures.PLOTS[figure]
    ax = figures.plot(figure, common.committed(figure))
    assert ax is not None
    plt.close("all")


def test_an_unknown_figure_is_refused_by_name():
    with pytest.raises(ValueError, match=r"\bfigure\b"):
        figures.plot("fig4", None)
    with pytest.raises(ValueError, match=r"\bmodule\b"):
        figures.plot_for(math)


def test_fig5_summary_view_has_no_nan_and_no_index():
    import numpy as np
    import pandas as pd

    s = pd.DataFrame(
        {
            "arch": ["xavier", "xavier", "orthogonal"],
            "depth": [48, 32, 2],
            "runs": [10, 10, 1],
            "unresolved": [10, 9, 0],
            "lg_cond_mean": [np.nan, 11.7, 1.2],
            "lg_cond_std": [np.nan, np.nan, np.nan],
            "lg_resolution_limit": [12.0, 12.1, 13.0],
        }
    )
    v = figures.fig5_summary_view(s)
    d = v.data
    assert d["lg cond (mean)"].tolist() == [figures.BEYOND_RESOLUTION, "11.700", "1.200"]
    assert d["lg cond (std)"].tolist() == [figures.BEYOND_RESOLUTION, figures.ONE_RUN, figures.ONE_RUN]
    html = v.to_html()
    assert "nan" not in html.lower() and "row_heading" not in html


def test_the_fig2_widget_scales_the_step_size_drops_to_the_chosen_epochs():
    from resnet_nb.book.experiment_figures import fig2_setting

    config = {"blocks": [1, 2], "epochs": 10, "lr": 0.1, "milestones": [5, 8], "seed": 0}
    cfg = fig2_setting(config, (3,), 20, 0.05)
    assert (cfg["blocks"], cfg["epochs"], cfg["lr"], cfg["milestones"]) == ([3], 20, 0.05, [10, 16])
    # fewer epochs: a drop never falls before epoch 2 nor after the last epoch; no depth chosen keeps the first
    short = fig2_setting(config, (), 3, 0.1)
    assert short["blocks"] == [1] and short["milestones"] == [2]
    assert config["milestones"] == [5, 8]  # the widget's config is not changed
