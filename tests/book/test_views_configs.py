"""The experiment widgets' settings become the figure's configuration (resnet_nb.book.views)."""

import pandas as pd
import pytest

from resnet_nb.book import views


def test_within_keeps_the_grid_values_between_the_slider_ends_both_included():
    assert views.within([2, 4, 8, 16, 32], (4, 16)) == [4, 8, 16]
    assert views.within([0.01, 0.1, 1.0], (0.1, 0.1)) == [0.1]


def test_figure_configurations_take_the_widgets_values_and_keep_the_rest():
    base = {"seed": 0, "archs": ["xavier"], "depths": [2], "runs": 1}
    c3 = views.fig3_config(base, {"nets": "ReLU", "depths": (4, 8), "runs": 3, "epochs": 200}, depths=[2, 4, 8, 16])
    assert c3 == dict(base, relu=[True], runs=3, epochs=200, depths=[4, 8])
    c5 = views.fig5_config(
        base, {"archs": ("xavier", "2-shortcut"), "depths": (3, 6), "runs": 2}, depths=[2, 3, 4, 6, 8]
    )
    assert c5 == dict(base, archs=["xavier", "2-shortcut"], runs=2, depths=[3, 4, 6])
    assert views.fig8_config(base, {"depth": 6, "lr": 0.1, "runs": 2, "run_shown": 1}) == dict(
        base, depth=6, lr=0.1, runs=2
    )
    c9 = views.fig9_config(
        base, {"archs": ("xavier",), "lrs": (0.01, 0.1), "runs": 2, "epochs": 50}, lrs=[0.001, 0.01, 0.1, 1]
    )
    assert c9 == dict(base, archs=["xavier"], runs=2, epochs=50, depths=[2, 4, 8, 16], lrs=[0.01, 0.1])
    v10 = {"archs": ("he",), "depths": (2, 4), "lrs": (0.1, 1), "runs": 1, "n_per_class": 20}
    c10 = views.fig10_config(base, v10, depths=[2, 4, 8], lrs=[0.01, 0.1, 1])
    assert c10 == dict(base, archs=["he"], runs=1, n_per_class=20, depths=[2, 4], lrs=[0.1, 1])
    assert base == {"seed": 0, "archs": ["xavier"], "depths": [2], "runs": 1}  # not changed in place


def test_fig8_run_plot_draws_the_run_the_control_picks_or_the_last_one(monkeypatch):
    from types import SimpleNamespace

    from resnet_nb.book import experiment_figures

    drawn = []
    monkeypatch.setattr(experiment_figures, "plot_fig8", lambda table, ax, run_index: drawn.append(run_index))
    table = pd.DataFrame({"run": [0, 0, 1, 1, 2]})
    control = SimpleNamespace(value=1)
    plot = views.fig8_run_plot(control)
    plot(table, None)
    control.value = 7
    plot(table, None)
    assert drawn == [1, 2]


def test_hours_are_seconds_over_3600_to_two_decimals():
    assert views.hours(5400) == 1.5
    assert views.hours(100) == pytest.approx(0.03)


def test_floor_table_has_one_row_per_figure_and_a_total_from_the_benchmark_file():
    import json

    from resnet_nb.core import paths

    info = json.loads(paths.benchmark_file("floor.json").read_text())
    t = views.floor_table(info)
    assert list(t.figure) == [views.FIGURE_NAMES[f["figure"]] for f in info["figures"]] + ["all (reproduce all)"]
    for row, f in zip(t.itertuples(index=False), info["figures"]):
        assert row[2] == round(f["sample_engine_s"], 1) and row[4] == round(f["ratio"], 2)
        assert row[6] == round(f["paper_engine_core_s"] / 3600, 2)
        assert row[8] == pytest.approx(f["paper_engine_core_s"] / f["paper_floor_core_s"], abs=0.006)
    total = t.iloc[-1]
    assert total["paper: ours (core-h)"] == round(info["total"]["paper_engine_core_s"] / 3600, 2)
    assert total["items sampled"] == ""
