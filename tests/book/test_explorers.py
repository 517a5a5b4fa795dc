"""The front ends of the experiment chapters (resnet_nb.book.views and explorers): widgets rerun the
right configuration and reuse a table already computed; the kernel-free explorers show every run in
the one palette; the offline site keeps them."""

import types

import matplotlib
import pandas as pd
import pytest

matplotlib.use("Agg")

widgets = pytest.importorskip("ipywidgets")

from resnet_nb.book import explorers, views  # noqa: E402
from resnet_nb.core import paths  # noqa: E402


def _fake_module():
    """A figure module with one item per configuration, whose run_one records the configuration,
    and a drawing function that records the table it draws."""
    calls = {"run": [], "plot": []}
    mod = types.ModuleType("fake_widget_figure")
    mod.SCALES = {"default": {"depth": 2, "lr": 0.1}}
    mod.configurations = lambda config: [dict(config)]
    mod.run_one = lambda item, device="cpu": calls["run"].append(dict(item)) or [{"x": item["depth"]}]
    return mod, calls, lambda table, ax=None: calls["plot"].append(table.copy())


def test_widget_reuses_given_table_then_reruns_with_changed_setting():
    mod, calls, plot = _fake_module()
    depth = widgets.IntSlider(value=2, min=2, max=8, continuous_update=False)
    given = pd.DataFrame({"x": [-1]})
    box = views.experiment_widget(mod, {"depth": depth}, table=given, plot=plot)
    assert isinstance(box, widgets.VBox)
    assert calls["run"] == []  # the first view came from the given table
    assert calls["plot"][0].equals(given)
    depth.value = 6
    assert calls["run"] == [{"depth": 6, "lr": 0.1}]
    assert calls["plot"][-1]["x"].tolist() == [6]


def test_widget_without_table_runs_once_and_uses_to_config_and_custom_plot():
    mod, calls, _ = _fake_module()
    drawn = []
    lr = widgets.FloatLogSlider(value=0.1, base=10, min=-2, max=0, continuous_update=False)
    views.experiment_widget(
        mod, {"lr": lr}, to_config=lambda c, v: dict(c, lr=v["lr"], depth=3), plot=lambda t, ax=None: drawn.append(t)
    )
    assert calls["run"] == [{"depth": 3, "lr": 0.1}] and calls["plot"] == [] and len(drawn) == 1
    lr.value = 0.01
    assert calls["run"][-1]["lr"] == pytest.approx(0.01) and len(drawn) == 2


def test_animation_refuses_no_frames():
    with pytest.raises(ValueError, match="at least one frame"):
        views.animation(lambda ax, v: None, [])


def test_paper_scale_bound_reads_its_row(tmp_path):
    import json

    info = {
        "machine": {"processor": "x86_64", "cpu": "Some CPU / AVX2", "cpu_count": 2, "matmul_gflops_f64": 31.4},
        "written_utc": "2026-11-23T10:00:00Z",
        "rows": [
            {
                "name": "train (Fig 9 grid)",
                "engine_s": 1.0,
                "baseline_s": 40.0,
                "ratio": 40.0,
                "met": True,
                "detail": "x",
            },
            {
                "name": "paper scale: lower bound",
                "engine_s": 5400.0,
                "baseline_s": 3600.0,
                "ratio": 1.5,
                "met": False,
                "detail": "Fig 5 at depth 96 alone: 40 min",
            },
        ],
    }
    path = tmp_path / "latest.json"
    path.write_text(json.dumps(info))
    text = views.paper_scale_bound(path)
    assert text.startswith("paper scale: lower bound: 90 min against the target of 60 min (ratio 1.50; target met: no)")
    assert "Some CPU / AVX2" in text and "31 GFLOP/s" in text and "Fig 5 at depth 96 alone" in text
    info["rows"] = info["rows"][:1]
    path.write_text(json.dumps(info))
    assert views.paper_scale_bound(path) is None
    assert views.paper_scale_bound(tmp_path / "absent.json") is None


def test_palette_frames_keeps_the_player_and_shrinks_frames():
    import re

    import numpy as np

    html = views.animation(lambda ax, v: ax.plot(np.sin(np.arange(200) * v)), [0.1, 0.2]).data
    assert html.count("anim-slider") >= 1
    frames = re.findall(r'"data:image/png;base64,([^"]+)"', html)
    assert len(frames) == 2 and all(len(f) > 1000 for f in frames)


@pytest.mark.parametrize("figure", ["fig5", "fig9", "fig10", "fig8"])
def test_explore_embeds_every_run_as_columns(figure):
    import json

    chart = explorers.explore(figure)
    bundle = chart._repr_mimebundle_()
    html = bundle["text/html"]
    assert html.startswith("<div class='rn-vega'>") and "application/json" in html
    spec = json.loads(html.split("<script type='application/json'>")[1].split("</script>")[0].replace("<\\/", "</"))
    (rows,) = spec["datasets"].values()
    assert len(rows) == 1 and all(isinstance(v, list) for v in rows[0].values())  # columnar
    assert '"flatten"' in json.dumps(spec)
    assert spec["params"] or any("params" in c for c in spec.get("hconcat", []))
    assert any(k.startswith("application/vnd.vegalite") for k in bundle)


def test_explore_refuses_unknown_figure():
    with pytest.raises(ValueError, match=r"\bfigure must"):
        explorers.explore("fig4")


def _offline_site():
    import importlib.util

    path = paths.ROOT / "scripts" / "offline_site.py"
    spec = importlib.util.spec_from_file_location("offline_site", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_downloaded_notebook_keeps_outputs_but_not_widgets_or_huge_frames():
    import json

    site = _offline_site()
    view = "application/vnd.jupyter.widget-view+json"
    nb = {
        "metadata": {"widgets": {"state": {}}},
        "nbformat": 4,
        "nbformat_minor": 5,
        "cells": [
            {
                "cell_type": "code",
                "source": "",
                "metadata": {},
                "execution_count": 1,
                "outputs": [
                    {"output_type": "display_data", "metadata": {}, "data": {view: {}, "text/plain": " 50%|#  | 1/2"}},
                    {
                        "output_type": "display_data",
                        "metadata": {},
                        "data": {view: {}, "text/plain": "interactive(...)"},
                    },
                    {"output_type": "display_data", "metadata": {}, "data": {"text/html": "x" * 400_000}},
                    {"output_type": "stream", "name": "stdout", "text": "kept\n"},
                ],
            }
        ],
    }
    out = json.loads(site._downloadable(json.dumps(nb)))
    assert "widgets" not in out["metadata"]
    outputs = out["cells"][0]["outputs"]
    assert len(outputs) == 3  # the progress bar is gone
    assert "running kernel" in outputs[0]["data"]["text/markdown"]
    assert "left out of the download" in outputs[1]["data"]["text/markdown"]
    assert outputs[2]["text"] == "kept\n"


def test_saved_widgets_become_snapshots_with_settings_and_figure():
    """On the static site a saved widget is replaced by its settings, a note and its figure; the
    widget state and views are gone, and an empty view (a closed progress bar) leaves nothing."""
    import json

    site = _offline_site()
    state = {
        "version_major": 2,
        "version_minor": 0,
        "state": {
            "box": {"model_name": "VBoxModel", "state": {"children": ["IPY_MODEL_ctl", "IPY_MODEL_out"]}},
            "ctl": {
                "model_name": "HBoxModel",
                "state": {"children": ["IPY_MODEL_depth", "IPY_MODEL_lr", "IPY_MODEL_nets", "IPY_MODEL_range"]},
            },
            "depth": {"model_name": "IntSliderModel", "state": {"description": "depth", "value": 6}},
            "lr": {"model_name": "FloatLogSliderModel", "state": {"description": "lr", "value": 0.1}},
            "nets": {
                "model_name": "SelectMultipleModel",
                "state": {"description": "nets", "_options_labels": ["xavier", "2-shortcut", "he"], "index": [0, 2]},
            },
            "range": {
                "model_name": "SelectionRangeSliderModel",
                "state": {"description": "depths", "_options_labels": ["2", "4", "8", "16"], "index": [1, 3]},
            },
            "out": {
                "model_name": "OutputModel",
                "state": {
                    "outputs": [
                        {
                            "output_type": "display_data",
                            "metadata": {},
                            "data": {"text/plain": "<Figure>", "image/png": "iVBORw0KGgo="},
                        }
                    ]
                },
            },
            "bar": {"model_name": "HBoxModel", "state": {"children": []}},
        },
    }
    view = '<script type="application/vnd.jupyter.widget-view+json">{"model_id": "%s"}</script>'
    page = (
        "<html><body>"
        + view % "box"
        + "<p>between</p>"
        + view % "bar"
        + '<script type="application/vnd.jupyter.widget-state+json">'
        + json.dumps(state)
        + "</script></body></html>"
    )
    out = site.static_widgets(page)
    assert "application/vnd.jupyter.widget" not in out
    assert out.count('class="rn-widget-snapshot"') == 1  # the empty bar left nothing
    assert "depth = 6; lr = 0.1; nets = xavier, he; depths = 4 to 16" in out
    assert '<img src="data:image/png;base64,iVBORw0KGgo=" alt="&lt;Figure&gt;">' in out
    assert "<p>between</p>" in out
    assert site.static_widgets("<p>no widgets</p>") == "<p>no widgets</p>"


def test_bibliography_labels_are_author_year():

    from pybtex.database import parse_file
    from pybtex.plugin import find_plugin

    _offline_site()._register_authoryear_style()
    bib = parse_file(str(paths.ROOT / "book" / "references.bib"))
    labels = [e.label for e in find_plugin("pybtex.style.formatting", "authoryear")().format_bibliography(bib)]
    assert "Hardt & Ma 2016" in labels and "Li et al. 2016" in labels
    assert len(labels) == len(set(labels))  # equal labels get a, b
    # the two He et al. 2016 papers are told apart inline too, where the citation prints the year
    years = {key: bib.entries[key].fields["year"] for key in ("he2016deep", "he2016identity")}
    assert len(set(years.values())) == 2, years


def _specs(spec):
    """Every unit spec of a (possibly concatenated) chart."""
    if "mark" in spec:
        return [spec]
    return [u for key in ("hconcat", "vconcat", "layer", "concat") for s in spec.get(key, []) for u in _specs(s)]


def _params(spec):
    return [p for s in [spec, *_specs(spec)] for p in s.get("params", [])]


@pytest.mark.parametrize("figure", ["fig2", "fig3", "fig5", "fig6", "fig7", "fig8", "fig9", "fig10"])
def test_explorers_use_the_palette_through_an_explicit_scale(figure):
    from resnet_nb.book import palette

    spec = explorers.explore(figure).spec
    allowed = set(palette.COLORS.values()) | set(palette.SEQUENTIAL)
    for unit in _specs(spec):
        enc = unit.get("encoding", {})
        color = enc.get("color")
        if color is None:  # one colour, the palette's
            assert unit["mark"].get("color") in allowed, unit["mark"]
            continue
        scale = color.get("scale", {})
        assert scale.get("domain") and scale.get("range"), f"{figure}: colour without an explicit scale"
        assert set(scale["range"]) <= allowed
        if color["field"] == explorers.NETWORK:  # one colour and one name per network
            names = {v: k for k, v in palette.LABELS.items()}
            assert [palette.COLORS[names[d]] for d in scale["domain"]] == scale["range"]


@pytest.mark.parametrize(
    "figure, expected",
    [
        ("fig5", {"network", "depths", "run"}),
        ("fig9", {"network", "depths", "learning rate", "run"}),
        ("fig10", {"network", "depths", "learning rate", "run"}),
        ("fig3", {"networks", "depths", "run"}),
        ("fig6", {"network", "quantity", "run"}),
        ("fig7", {"network", "quantity", "run"}),
        ("fig8", {"network", "run"}),
        ("fig2", {"layers", "learning rate", "seed"}),
    ],
)
def test_explorers_offer_the_choices_of_their_widgets(figure, expected):
    from resnet_nb.book import palette

    names = set()
    for p in _params(explorers.explore(figure).spec):
        bind = p.get("bind")
        if not isinstance(bind, dict) or "name" not in bind:
            continue
        name = bind["name"].strip()
        if bind.get("input") == "checkbox" and name in palette.LABELS.values():
            name = "network"
        names.add(name.replace(" from", "").replace(" (right)", ""))
    assert expected <= names, f"{figure}: offers {sorted(names)}"


def test_explorer_run_menu_has_the_mean_over_runs():
    spec = explorers.explore("fig9").spec
    run = next(p for p in _params(spec) if p["name"] == "p_run")
    assert run["value"] == explorers.MEAN_RUN and run["bind"]["labels"][0] == "mean over runs"


def _reading_stats():
    import importlib.util

    path = paths.ROOT / "scripts" / "reading_stats.py"
    spec = importlib.util.spec_from_file_location("reading_stats", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reading_stats_counts_what_a_reader_sees(tmp_path):
    import nbformat

    rs = _reading_stats()
    folded = "Shown words here.\n\n:::{admonition} How we checked this\n:class: dropdown\nhidden hidden\n:::\nafter"
    assert rs.strip_folded(folded).split() == ["Shown", "words", "here.", "after"]
    assert rs.count_words("A value {eval}`x` and $a+b$ here.") == 6
    nb = nbformat.v4.new_notebook()
    install = nbformat.v4.new_code_cell("%pip install x\nimport y")
    install.metadata["tags"] = ["remove-input"]
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Title\n\nOne two three."),
        install,
        nbformat.v4.new_code_cell("fig, ax = plt.subplots()\nax.plot(x)"),
        nbformat.v4.new_code_cell("show.num(x)\nassert x > 0\ny = x + 1\nz = 2"),
    ]
    path = tmp_path / "ch.ipynb"
    nbformat.write(nb, path)
    s = rs.stats(path)
    assert s["title"] == "Title" and s["visible words"] == 3
    assert s["visible code lines"] == 6 and s["plumbing lines"] == 2
    assert s["words before first figure"] == 3 and s["code lines before first figure"] == 0
