"""Front ends of the experiment chapters (book/exp_*.ipynb, performance): kernel-free animations,
widgets, provenance notes, computation times.

* :func:`animation`: frames drawn by a function, as a ``to_jshtml`` player that works in the
  static page (no kernel); the figure is closed so that it does not also show as an image.
* :func:`experiment_widget`: controls (``continuous_update=False``) that rerun a figure
  (``engine.run``) with changed settings and redraw it (:mod:`resnet_nb.book.experiment_figures`).
* :func:`provenance_note`: where and how a committed table was computed, in one paragraph;
* :func:`explore`: the kernel-free chart of a committed table (from :mod:`resnet_nb.book.explorers`).
"""

from __future__ import annotations

import copy

from resnet_nb.book import experiment_figures
from resnet_nb.book.explorers import explore  # the kernel-free explorers, as the chapters call them
from resnet_nb.core import paths
from resnet_nb.experiments import engine, progress
from resnet_nb.shared import store

__all__ = [
    "CHAPTERS",
    "rerun_times",
    "animation",
    "benchmark_report",
    "experiment_widget",
    "explore",
    "item_times",
    "palette_frames",
    "paper_scale_bound",
    "paper_scale_times",
    "provenance_note",
    "show_committed",
    "within",
    "fig3_config",
    "fig5_config",
    "fig8_config",
    "fig8_run_plot",
    "fig9_config",
    "fig10_config",
    "hours",
    "FIGURE_NAMES",
    "floor_table",
]


def animation(draw, values, figsize=(6.0, 4.0), ncols: int = 1, interval: int = 700):
    """An HTML player of ``draw(axes, value)`` for each value (``axes`` is one Axes or a list)."""
    import matplotlib.pyplot as plt
    from IPython.display import HTML
    from matplotlib.animation import FuncAnimation

    values = list(values)
    if not values:
        raise ValueError("values must hold at least one frame value, got none")
    fig, axes = plt.subplots(1, ncols, figsize=figsize, squeeze=False)
    axes = list(axes[0])

    def update(i):
        for a in axes:
            a.clear()
        draw(axes[0] if ncols == 1 else axes, values[i])
        fig.tight_layout()
        return axes

    anim = FuncAnimation(fig, update, frames=len(values), interval=interval, blit=False)
    html = anim.to_jshtml(default_mode="once")
    plt.close(fig)
    return HTML(palette_frames(html))


_FRAME = None


def palette_frames(html: str, colors: int = 64) -> str:
    """``html`` of ``to_jshtml`` with each PNG frame stored as a palette PNG of ``colors`` colours.

    Line plots use a few colours, so this keeps them visually identical while storing each
    frame in about a third of the bytes (the pages with animations weighed several MB).
    """
    import base64
    import io
    import re

    from PIL import Image

    global _FRAME
    if _FRAME is None:
        _FRAME = re.compile(r'"data:image/png;base64,((?:[A-Za-z0-9+/=]|\\\n)+)"')

    def smaller(match):
        raw = base64.b64decode(match.group(1).replace("\\\n", ""))
        image = Image.open(io.BytesIO(raw)).convert("RGB")
        out = io.BytesIO()
        image.quantize(colors=colors, method=Image.Quantize.MEDIANCUT).save(out, "PNG", optimize=True)
        data = out.getvalue() if len(out.getvalue()) < len(raw) else raw
        return '"data:image/png;base64,' + base64.b64encode(data).decode("ascii") + '"'

    return _FRAME.sub(smaller, html)


def experiment_widget(
    module,
    controls: dict,
    scale: str = "default",
    ncols: int = 1,
    figsize=(6.0, 4.0),
    to_config=None,
    table=None,
    plot=None,
):
    """Widgets that rerun ``engine.run(module, ...)`` with the chosen settings and redraw the figure.

    ``controls``: setting name -> ipywidgets control (created with ``continuous_update=False``).
    ``to_config(config, values)``: optional mapping from control values to the configuration
    (default: each control replaces the setting of the same name).
    ``table``: the table of the controls' initial settings, if the page has already computed
    it: the first view is drawn from it instead of being computed a second time.
    ``plot(table, ax)``: what to draw (default the figure's drawing in
    :mod:`resnet_nb.book.experiment_figures`).
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    from IPython.display import display

    base = engine.get_config(module, scale)
    out = widgets.Output()

    draw = experiment_figures.plot_for(module) if plot is None else plot

    def redraw(_=None, table=None):
        values = {k: w.value for k, w in controls.items()}
        config = copy.deepcopy(base)
        if to_config is None:
            config.update({k: list(v) if isinstance(v, tuple) else v for k, v in values.items()})
        else:
            config = to_config(config, values)
        with out:
            out.clear_output(wait=True)
            if table is None:
                table = engine.run(module, config, progress=False)
            fig, axes = plt.subplots(1, ncols, figsize=figsize, squeeze=False)
            draw(table, ax=axes[0][0] if ncols == 1 else list(axes[0]))
            fig.tight_layout()
            display(fig)
            plt.close(fig)

    for w in controls.values():
        w.observe(redraw, names="value")
    redraw(table=table)
    # Wrapping row: without it a row of four sliders squeezes each track to zero width.
    row = widgets.HBox(list(controls.values()), layout=widgets.Layout(flex_flow="row wrap"))
    return widgets.VBox([row, out])


def provenance_note(prov: dict) -> str:
    """One Markdown paragraph: commit, machine, device, versions, wall time, date, items."""
    if not prov:
        return "*No committed paper-scale result for this figure yet.*"
    git = prov.get("git", {})
    v = prov.get("versions", {})
    m = prov.get("machine", {})
    commit = (git.get("commit") or "unknown")[:10] + (" (package modified)" if git.get("package_modified") else "")
    return (
        f"Computed by `python -m resnet_nb reproduce {prov.get('figure')} --scale {prov.get('scale')}` at commit "
        f"`{commit}` on {m.get('cpu_count')} logical cores ({m.get('processor')}, {m.get('platform')}), "
        f"device {prov.get('device')}; torch {v.get('torch')}, numpy {v.get('numpy')}, "
        f"Python {v.get('python')}. {prov.get('items')} work items, "
        f"{prov.get('items_wall_time_s')} s of computation in all; table written "
        f"{prov.get('written_utc')}."
        + (
            f" **Incomplete:** {prov.get('missing_items')} work items of the paper-scale grid were not "
            f"finished in the time available; the table holds the finished ones only."
            if prov.get("complete") is False
            else ""
        )
    )


def show_committed(figure: str, scale: str = "paper"):
    """Load a committed table and display its provenance note; returns the table (or None)."""
    from IPython.display import Markdown, display

    table, prov = store.load_results(figure, scale)
    display(Markdown(provenance_note(prov)))
    return table


def benchmark_report(path=None, targets: bool = True):
    """The table of ``benchmarks/latest.json`` (written by ``python benchmarks/run.py``) and a
    one-paragraph description of the machine it was measured on; ``(None, note)`` if absent.
    ``targets=False`` leaves out the project's target columns (for readers)."""
    import json
    from pathlib import Path

    import pandas as pd

    path = Path(path) if path is not None else paths.BENCHMARKS / "latest.json"
    if not path.exists():
        return None, "*No benchmark has been recorded yet: run `python benchmarks/run.py`.*"
    info = json.loads(path.read_text())
    table = pd.DataFrame(
        [
            {
                "benchmark": r["name"],
                "ours (s)": round(r["engine_s"], 2),
                "reference (s)": round(r["baseline_s"], 2),
                "ratio": f"{r['ratio']:.2f}x",
                "ratio is": r["ratio_kind"],
                "target": r["target"],
                "met": "yes" if r["met"] else "no",
                "details": r["detail"],
            }
            for r in info["rows"]
        ]
    )
    if not targets:
        table = table.drop(columns=["target", "met"])
    m = info["machine"]
    load = m.get("load_average")
    cpu = m.get("cpu", m["processor"])
    speed = (
        f"; a float64 product of two 3,000 x 3,000 matrices ran at {m['matmul_gflops_f64']:.0f} GFLOP/s"
        if m.get("matmul_gflops_f64")
        else ""
    )
    note = (
        f"Measured {info['written_utc']} on {m['cpu_count']} logical cores ({cpu}, "
        f"{m['platform']}), device {info['device']}, torch {info['torch']}{speed}"
        + (
            f"; load average {load[0]:.1f} at the end of the run (the benchmark's own threads count; "
            f"well above {m['cpu_count']} means other jobs shared the machine)"
            if load
            else ""
        )
        + (". Quick mode (reduced grids)." if info.get("quick") else ".")
    )
    return table, note


def paper_scale_bound(path=None, name: str = "paper scale: lower bound"):
    """The lower-bound row of ``benchmarks/latest.json`` as sentences (``None`` when absent), with
    the float64 matrix-product speed of the machine that measured it."""
    import json
    from pathlib import Path

    path = Path(path) if path is not None else paths.BENCHMARKS / "latest.json"
    if not path.exists():
        return None
    info = json.loads(path.read_text())
    row = next((r for r in info["rows"] if r["name"] == name), None)
    if row is None:
        return None
    m = info["machine"]
    speed = f", float64 matrix product {m['matmul_gflops_f64']:.0f} GFLOP/s" if m.get("matmul_gflops_f64") else ""
    return (
        f"{row['name']}: {row['engine_s'] / 60:.0f} min against the target of {row['baseline_s'] / 60:.0f} min "
        f"(ratio {row['ratio']:.2f}; target met: {'yes' if row['met'] else 'no'}).\n{row['detail']}.\n"
        f"Measured {info['written_utc']} on {m.get('cpu', m['processor'])}, {m['cpu_count']} cores{speed}."
    )


def paper_scale_times(root=None, idle_load: float = 2.5):
    """Per figure: work items, missing items and computation time of the committed paper-scale
    results, summed over their records; also how many of those items were timed on an idle
    machine (load average below ``idle_load`` when the item finished; only records written
    since the load average was recorded carry it) and their time."""
    import json
    from pathlib import Path

    import pandas as pd

    root = Path(root) if root is not None else paths.RESULTS
    rows = []
    for p in sorted(root.glob("*/paper/provenance.json")):
        prov = json.loads(p.read_text())
        figure = prov["figure"]
        try:
            module = engine.load_figure(figure)
        except ValueError:  # a variant stored under its own name (e.g. fig6_stable)
            module = None
        records = root / getattr(module, "SHARES_RECORDS_WITH", figure) / "paper" / "records"
        wall, idle_n, idle_s = 0.0, 0, 0.0
        for body in store.iter_records(records):
            pv = body["provenance"]
            wall += pv["wall_time_s"]
            load = pv.get("load_average")
            if load is not None and load[0] < idle_load:
                idle_n += 1
                idle_s += pv["wall_time_s"]
        rows.append(
            {
                "figure": figure,
                "items": prov["items"],
                "missing items": prov.get("missing_items", 0),
                "computation (min)": round(wall / 60, 1),
                "items timed idle": idle_n,
                "their time (min)": round(idle_s / 60, 1),
                "device": prov["device"],
            }
        )
    return pd.DataFrame(rows)


def item_times(figure: str, root=None, idle_load: float = 2.5):
    """Per depth: number of committed paper-scale items of ``figure``, and the mean computation
    time of an item, over all of them and over those timed on an idle machine (see
    :func:`paper_scale_times`)."""
    from pathlib import Path

    import numpy as np
    import pandas as pd

    root = Path(root) if root is not None else paths.RESULTS
    module = engine.load_figure(figure)
    records = root / getattr(module, "SHARES_RECORDS_WITH", figure) / "paper" / "records"
    rows = []
    for body in store.iter_records(records):
        pv = body["provenance"]
        load = pv.get("load_average")
        rows.append(
            {
                "depth": body["item"].get("depth"),
                "seconds": pv["wall_time_s"],
                "idle": load is not None and load[0] < idle_load,
            }
        )
    if not rows:
        raise LookupError(f"no committed paper-scale records of {figure} under {records}")
    t = pd.DataFrame(rows)
    out = t.groupby("depth").agg(items=("seconds", "size"), mean_s=("seconds", "mean"))
    out["mean_idle_s"] = t[t["idle"]].groupby("depth")["seconds"].mean().reindex(out.index)
    return out.round(1).replace({np.nan: None})


#: Where each figure is shown in the book (for the Performance page's table).
CHAPTERS = {
    "fig2": "Figure 2 analog",
    "fig3": "Learning dynamics",
    "fig5": "The initial point",
    "fig6": "Learning dynamics",
    "fig7": "Learning dynamics",
    "fig8": "Learning dynamics",
    "fig9": "Learning results",
    "fig10": "Learning results",
}


def _cost(module, item) -> float:
    """:func:`progress.item_cost`, scaled by the share of the 5,000 digits an item trains on when
    it names a subset (``n_per_class``; the default scale of the ReLU figures): their time is
    proportional to the samples, which the engine's cost leaves out."""
    share = 10 * item["n_per_class"] / 5000 if "n_per_class" in item else 1.0
    return progress.item_cost(module, item) * share


def rerun_times(root=None):
    """Per figure: what rerunning it costs, on the machine kind of the committed records.

    Paper scale: the computation time of the committed records, summed (about half of it in
    wall time with two worker processes, ``reproduce --jobs 2``). Default scale (what the book
    runs): an estimate, the engine's own cost model (:func:`progress.item_cost`, the one behind
    the remaining-time display, scaled by the share of the samples an item trains on) applied to
    the default grid, with the seconds per unit of cost measured on the committed paper-scale
    records of the same figure. Minutes of one core.
    Where every default item is also a committed paper-scale item (Figure 5), the default time
    is the sum of their recorded times instead. Figure 8 reuses Figure 6's runs: its row is empty.
    """
    from pathlib import Path

    import pandas as pd

    root = Path(root) if root is not None else paths.RESULTS
    paper = paper_scale_times(root).set_index("figure") if any(root.glob("*/paper/provenance.json")) else None
    rows = []
    for fig, chapter in CHAPTERS.items():
        module = engine.load_figure(fig)
        shares = hasattr(module, "SHARES_RECORDS_WITH")
        p = None if paper is None or fig not in paper.index or shares else paper.loc[fig]
        spc = progress.seconds_per_cost(module, [root / fig / "paper" / "records"])
        items = module.configurations(engine.get_config(module, "default"))
        bodies = [store.inspect_record(root / fig / "paper" / "records", it)[0] for it in items]
        if bodies and all(b is not None for b in bodies):  # the default grid is part of the paper grid
            estimate = sum(b["provenance"]["wall_time_s"] for b in bodies) / 60
            how = "measured (its records)"
        else:
            estimate = None if spc is None else spc * sum(_cost(module, it) for it in items) / 60
            how = "estimated (cost model)"
        rows.append(
            {
                "figure": fig.replace("fig", "Figure "),
                "chapter": chapter,
                "default: items": "with Figure 6" if shares else len(items),
                "default: core-minutes": "" if shares or estimate is None else round(estimate, 1),
                "default: how": "" if shares or estimate is None else how,
                "paper: items": "with Figure 6" if shares else (int(p["items"]) if p is not None else "not committed"),
                "paper: core-minutes": "" if p is None else float(p["computation (min)"]),
            }
        )
    return pd.DataFrame(rows)


# -- the experiment widgets' settings -> the figure's configuration (experiment_widget's to_config)
def within(grid, lo_hi) -> list:
    """The values of ``grid`` between the two ends a range slider gives, both included."""
    lo, hi = lo_hi
    return [x for x in grid if lo <= x <= hi]


def fig3_config(config: dict, v: dict, depths) -> dict:
    """Figure 3's widget: which networks (``nets``), a depth range of ``depths``, runs, epochs."""
    relu = {"linear and ReLU": [False, True], "linear": [False], "ReLU": [True]}[v["nets"]]
    return dict(config, relu=relu, runs=v["runs"], epochs=v["epochs"], depths=within(depths, v["depths"]))


def fig5_config(config: dict, v: dict, depths) -> dict:
    """Figure 5's widget: the networks, a depth range of ``depths``, runs."""
    return dict(config, archs=list(v["archs"]), runs=v["runs"], depths=within(depths, v["depths"]))


def fig8_config(config: dict, v: dict) -> dict:
    """Figure 8's widget: one depth, one learning rate, runs (the run shown is the plot's)."""
    return dict(config, depth=v["depth"], lr=v["lr"], runs=v["runs"])


def fig8_run_plot(run_shown):
    """Figure 8's drawing of the run that the control ``run_shown`` picks (the last run if it
    picks one beyond the runs computed)."""

    def plot(table, ax):
        runs = sorted(table["run"].unique())
        shown = runs[min(run_shown.value, len(runs) - 1)]
        return experiment_figures.plot_fig8(table, ax=ax, run_index=shown)

    return plot


def fig9_config(config: dict, v: dict, lrs) -> dict:
    """Figure 9's widget: the networks, a learning-rate range of ``lrs``, runs, epochs, at the
    depths 2, 4, 8 and 16."""
    return dict(
        config,
        archs=list(v["archs"]),
        runs=v["runs"],
        epochs=v["epochs"],
        depths=[2, 4, 8, 16],
        lrs=within(lrs, v["lrs"]),
    )


def fig10_config(config: dict, v: dict, depths, lrs) -> dict:
    """Figure 10's widget: the networks, ranges of ``depths`` and ``lrs``, runs, digits per class."""
    return dict(
        config,
        archs=list(v["archs"]),
        runs=v["runs"],
        n_per_class=v["n_per_class"],
        depths=within(depths, v["depths"]),
        lrs=within(lrs, v["lrs"]),
    )


def hours(seconds: float) -> float:
    """Seconds in hours, to two decimals (the performance chapter's tables)."""
    return round(seconds / 3600, 2)


#: The figures' names as the Performance page's tables give them.
FIGURE_NAMES = {
    "fig2": "Figure 2 analog",
    "fig3": "Figure 3",
    "fig5": "Figure 5",
    "fig6": "Figure 6",
    "fig7": "Figure 7",
    "fig9": "Figure 9",
    "fig10": "Figure 10",
}


def floor_table(floor_info: dict):
    """The Performance page's table of the engine against its floor (``benchmarks/floor.py``'s
    ``floor.json``): per figure the sampled items, both times on the sample and their ratio, the
    paired ratio, the paper-scale core-hours of both and their ratio, the wall hours on two
    processes, and the sampling check (estimated over committed time); then the total."""
    import pandas as pd

    rows = []
    for f in floor_info["figures"]:
        chk = f["committed_check"]
        rows.append(
            {
                "figure": FIGURE_NAMES[f["figure"]],
                "items sampled": f"{f['sampled_items']} of {f['paper_items']}",
                "sample: ours (s)": round(f["sample_engine_s"], 1),
                "sample: floor (s)": round(f["sample_floor_s"], 1),
                "sample ratio": round(f["ratio"], 2),
                "paired ratio": round(f["paired_ratio"], 2) if "paired_ratio" in f else "",
                "paper: ours (core-h)": hours(f["paper_engine_core_s"]),
                "paper: floor (core-h)": hours(f["paper_floor_core_s"]),
                "paper ratio": round(f["paper_ratio"], 2),
                "paper, 2 processes (h)": hours(f["paper_engine_wall_2jobs_s"]),
                "sampling check": "" if chk is None else round(chk["estimated_over_committed"], 2),
            }
        )
    tot = floor_info["total"]
    blank = dict.fromkeys(
        ["items sampled", "sample: ours (s)", "sample: floor (s)", "sample ratio", "paired ratio"], ""
    )
    rows.append(
        {
            "figure": "all (reproduce all)",
            **blank,
            "paper: ours (core-h)": hours(tot["paper_engine_core_s"]),
            "paper: floor (core-h)": hours(tot["paper_floor_core_s"]),
            "paper ratio": round(tot["paper_ratio"], 2),
            "paper, 2 processes (h)": hours(tot["paper_engine_wall_2jobs_s"]),
            "sampling check": "",
        }
    )
    return pd.DataFrame(rows)
