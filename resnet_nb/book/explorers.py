"""Kernel-free explorers of the experiment chapters (book/exp_initial_point, exp_dynamics,
exp_learning, exp_fig2_analog, and the tour): Vega-Lite charts (through Altair) over the
committed paper-scale tables of :mod:`resnet_nb.experiments`.

:func:`explore` returns a :class:`Chart` that a reader can explore in the static book (no
kernel): every run, depth, initialisation and learning rate stored in
``results/<figure>/paper/``, with the choices of the chapter's live widget.
"""

from __future__ import annotations

from resnet_nb.shared import store

__all__ = ["Chart", "NETWORK", "MEAN_RUN", "color_scale", "explore"]


class Chart:
    """A Vega-Lite chart that renders without a kernel.

    In the built book its ``text/html`` output is a ``<div class="rn-vega">`` holding the spec
    as JSON; ``scripts/site_static/book.js`` renders it with the site's own copies of vega,
    vega-lite and vega-embed (controls included). JupyterLab renders the Vega-Lite mime type.
    """

    def __init__(self, spec: dict, note: str = ""):
        self.spec = spec
        self.note = note

    def _repr_mimebundle_(self, include=None, exclude=None):
        del include, exclude  # IPython's arguments: every format is offered, the front end chooses
        import html
        import json

        text = json.dumps(self.spec, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")
        note = f"<p class='rn-vega-note'>{html.escape(self.note)}</p>" if self.note else ""
        body = (
            f"<div class='rn-vega'>{note}<div class='rn-vega-chart'></div>"
            f"<script type='application/json'>{text}</script>"
            "<noscript>This chart needs JavaScript.</noscript></div>"
        )
        schema = self.spec.get("$schema", "")
        major = schema.rsplit("/v", 1)[-1].split(".")[0] if "/v" in schema else "6"
        return {
            "text/html": body,
            f"application/vnd.vegalite.v{major}+json": self.spec,
            "text/plain": f"<Chart: {self.note or 'Vega-Lite'}>",
        }


def _round(frame, digits: int = 4):
    """Numbers to ``digits`` significant digits (the charts' data is embedded in the page)."""
    import numpy as np

    out = frame.copy()
    for c in out.columns:
        if out[c].dtype.kind == "f":
            v = out[c].to_numpy()
            with np.errstate(divide="ignore", invalid="ignore"):
                mag = np.where(np.isfinite(v) & (v != 0), np.floor(np.log10(np.abs(v))), 0)
            scale = 10.0 ** (digits - 1 - mag)
            out[c] = np.round(v * scale) / scale
    return out


def _finish(chart, note: str) -> Chart:
    import altair as alt

    with alt.data_transformers.disable_max_rows():  # the data is rounded and trimmed to columns
        spec = chart.to_dict()
    _columnar(spec)
    return Chart(spec, note)


def _columnar(spec: dict) -> None:
    """Store each embedded data set as one row of columns and let every view flatten it back:
    the page then carries each column name once instead of once per row (about 2.5x smaller)."""
    columns = {}
    for name, rows in spec.get("datasets", {}).items():
        keys = list(rows[0]) if rows else []
        spec["datasets"][name] = [{k: [r.get(k) for r in rows] for k in keys}]
        columns[name] = keys

    def walk(node):
        if isinstance(node, dict):
            if "mark" in node:
                keys = sorted({k for ks in columns.values() for k in ks})
                node["transform"] = [{"flatten": keys}] + node.get("transform", [])
            for k, v in node.items():
                if k != "datasets":
                    walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    if len(columns) > 1:
        raise ValueError("a chart with more than one data set cannot be made columnar")
    if columns:
        walk(spec)


NETWORK = "network"  # the column of display names that colours a chart by architecture


def _with_names(data, field: str = "arch"):
    """``data`` with a ``network`` column: the palette's display name of each architecture."""
    from resnet_nb.book.palette import label

    out = data.copy()
    out[NETWORK] = [label(a) for a in out[field]]
    return out


def color_scale(values, by_arch: bool):
    """An explicit Vega-Lite colour scale: by architecture (``values`` are display names), the
    palette's colour of each, in the palette's order; otherwise an ordered quantity (depth,
    layers), the palette's sequential ramp over the sorted values."""
    import altair as alt

    from resnet_nb.book.palette import COLORS, LABELS, ORDER, sequential

    if by_arch:
        names = {LABELS.get(a, a): a for a in ORDER}
        present = set(values)
        domain = [LABELS.get(a, a) for a in ORDER if LABELS.get(a, a) in present]
        domain += sorted(v for v in present if v not in domain)
        return alt.Scale(domain=domain, range=[COLORS.get(names.get(v, v), "#7f7f7f") for v in domain])
    domain = sorted(set(values))
    return alt.Scale(domain=domain, range=sequential(len(domain)))


def _lg_chart(
    data,
    x,
    y,
    color,
    title,
    xlabel,
    ylabel,
    controls=(),
    detail=None,
    width=300,
    height=230,
    color_title=None,
    ranges=(),
    nets=False,
):
    """Lines of ``y`` against ``x`` coloured by ``color`` through an explicit scale (the palette's
    colour of each network when ``color`` is ``network``, its sequential ramp for an ordered
    quantity such as depth); the controls filter the data, as the live widget's do:
    ``controls``: (field, label, options, default[, labels]) as drop-down menus; ``ranges``:
    (field, label, options) as a pair of menus "from" / "to"; ``nets``: one check box per
    network. A click on the legend highlights."""
    import altair as alt

    base = alt.Chart(data)
    params, filters = _chart_filters(data, controls, ranges, nets)
    by_arch = color == NETWORK
    legend = alt.selection_point(fields=[color], bind="legend")
    enc = {
        "x": alt.X(f"{x}:Q", title=xlabel, scale=alt.Scale(zero=False)),
        "y": alt.Y(f"{y}:Q", title=ylabel, scale=alt.Scale(zero=False)),
        "color": alt.Color(
            f"{color}:{'N' if by_arch else 'O'}",
            title=color_title or color,
            scale=color_scale(data[color].unique(), by_arch),
        ),
        "opacity": alt.condition(legend, alt.value(0.9), alt.value(0.12)),
        "tooltip": [alt.Tooltip(c) for c in data.columns],
    }
    if detail is not None:
        enc["detail"] = alt.Detail(f"{detail}:N")
    chart = base.mark_line(point=alt.OverlayMarkDef(size=18), strokeWidth=1.2).encode(**enc)
    for f in filters:
        chart = chart.transform_filter(f)
    chart = chart.add_params(legend, *params).properties(title=title, width=width, height=height)
    return chart


def _chart_filters(data, controls=(), ranges=(), nets=False):
    """The parameters (menus, check boxes) of :func:`_lg_chart` and the filter expression each
    adds, in the order they appear above the chart."""
    import altair as alt

    params, filters = [], []
    if nets:
        present = color_scale(data[NETWORK].unique(), True).domain
        expr = []
        for i, name in enumerate(present):
            p = alt.param(name=f"p_net{i}", value=True, bind=alt.binding_checkbox(name=f"{name} "))
            params.append(p)
            expr.append(f"(datum.{NETWORK} === {name!r} && p_net{i})")
        filters.append(" || ".join(expr))
    for field, label, options in ranges:
        options = list(options)
        lo = alt.param(
            name=f"p_{field}_lo", value=options[0], bind=alt.binding_select(options=options, name=f"{label} from ")
        )
        hi = alt.param(name=f"p_{field}_hi", value=options[-1], bind=alt.binding_select(options=options, name="to "))
        params += [lo, hi]
        filters.append(f"datum[{field!r}] >= p_{field}_lo && datum[{field!r}] <= p_{field}_hi")
    for field, label, options, default, *labels in controls:
        bind = alt.binding_select(
            options=list(options), name=f"{label} ", **({"labels": list(labels[0])} if labels else {})
        )
        params.append(alt.param(name=f"p_{field}", value=default, bind=bind))
        filters.append(f"datum[{field!r}] == p_{field}")
    return params, filters


def explore(figure: str, root=None):
    """A chart of the committed paper-scale results of ``figure`` that a reader can explore in
    the static book (no kernel), with the choices of the chapter's live widget where the
    committed grid has them (network, depth range, learning rate, run): every run, depth,
    initialisation and learning rate stored in ``results/<figure>/paper/``. Returns a
    :class:`Chart` (display it), or a Markdown note when no committed table exists."""
    import numpy as np
    from IPython.display import Markdown

    figures = {
        "fig2": _explore_fig2,
        "fig3": _explore_fig3,
        "fig5": _explore_fig5,
        "fig6": _explore_fig6,
        "fig7": _explore_fig6,
        "fig8": _explore_fig8,
        "fig9": _explore_fig9,
        "fig10": _explore_fig9,
    }
    if figure not in figures:
        raise ValueError(f"figure must be one of {sorted(figures)}, got {figure!r}")
    table, _ = store.load_results(figure, "paper", root)
    if table is None or len(table) == 0:
        return Markdown(f"*No committed paper-scale table of {figure}: nothing to explore.*")
    with np.errstate(divide="ignore", invalid="ignore"):
        return figures[figure](figure, table)


MEAN_RUN = -1  # the "run" of the rows that hold the mean over the runs


def _run_menu(runs, with_mean: bool):
    """(options, labels, default) of a "run" menu: each run, and first the mean over runs."""
    runs = [int(r) for r in runs]
    if not with_mean:
        return runs, [str(r) for r in runs], runs[0]
    return [MEAN_RUN] + runs, ["mean over runs"] + [str(r) for r in runs], MEAN_RUN


def _explore_fig5(figure, t):
    import numpy as np
    import pandas as pd

    d = t[["arch", "depth", "run", "cond", "resolved"]].copy()
    d["lg_depth"] = np.log10(d["depth"])
    d["lg_cond"] = np.log10(d["cond"])
    d = d[np.isfinite(d["lg_cond"])]
    mean = d.groupby(["arch", "depth"], as_index=False).agg(lg_cond=("lg_cond", "mean"), resolved=("resolved", "all"))
    mean["lg_depth"], mean["run"] = np.log10(mean["depth"]), MEAN_RUN
    d = _with_names(_round(pd.concat([d.drop(columns="cond"), mean], ignore_index=True)))
    d["resolved"] = d["resolved"].map({True: "measured", False: "lower bound"})
    options, labels, default = _run_menu(sorted(t["run"].unique()), True)
    depths = sorted(int(v) for v in d["depth"].unique())
    chart = _lg_chart(
        d,
        "lg_depth",
        "lg_cond",
        NETWORK,
        "Initial condition number (Fig. 5)",
        "lg(depth)",
        "lg(|λ|max / |λ|(0.1))",
        controls=[("run", "run", options, default, labels)],
        ranges=[("depth", "depths", depths)],
        nets=True,
        color_title="network",
    )
    return _finish(
        chart,
        f"Every run of the committed grid ({len(options) - 1} runs per network and depth; "
        "the mean is over the lg of the condition number): choose the networks, the "
        "depths and a run, or the mean; click a network in the legend to pick it out.",
    )


def _explore_fig3(figure, t):
    import numpy as np

    from resnet_nb.shared.common import mnist_optimum

    d = t[["depth", "relu", "run", "epoch", "loss", "avg_norm"]].copy()
    opt = mnist_optimum()
    d["lg_x"] = np.where(d["relu"], np.log10(d["loss"]), np.log10(d["loss"] - opt))
    d["net"] = d["relu"].map({True: "ReLU at mid positions", False: "linear"})
    d = _round(d[np.isfinite(d["lg_x"])].drop(columns=["relu", "loss"]))
    runs = sorted(int(r) for r in d["run"].unique())
    depths = sorted(int(v) for v in d["depth"].unique())
    chart = _lg_chart(
        d,
        "lg_x",
        "avg_norm",
        "depth",
        "Average weight norm while training (Fig. 3)",
        "lg(loss − L_min) (linear) / lg(loss) (ReLU)",
        "average Frobenius norm",
        controls=[("net", "networks", ["linear", "ReLU at mid positions"], "linear"), ("run", "run", runs, runs[0])],
        ranges=[("depth", "depths", depths)],
    )
    return _finish(
        chart,
        "Every depth and run of the committed grid: choose the networks, the depths "
        "and a run; click a depth in the legend to pick it out.",
    )


def _single(t, column: str) -> str:
    values = sorted(t[column].unique()) if column in t else []
    return ", ".join(f"{v:g}" for v in values)


def _explore_fig6(figure, t):
    import numpy as np
    import pandas as pd

    from resnet_nb.shared.common import mnist_optimum

    h = t[t["kind"] == "hessian"].copy()
    relu = bool(h["relu"].iloc[0])
    x = np.log10(h["loss"]) if relu else np.log10(h["loss"] - mnist_optimum())
    rows = []
    for q, label in (("lam_max", "|λ|max"), ("lam_p10", "|λ|(0.1)")):
        part = h[["arch", "run", "epoch"]].copy()
        part["lg_x"] = x
        part["quantity"] = label
        v = h[q].where(h["resolved"].astype(bool) | (q == "lam_max"))
        part["lg_value"] = np.log10(v)
        rows.append(part)
    d = _with_names(_round(pd.concat(rows)))
    d = d[np.isfinite(d["lg_value"]) & np.isfinite(d["lg_x"])]
    runs = sorted(int(r) for r in d["run"].unique())
    chart = _lg_chart(
        d,
        "lg_x",
        "lg_value",
        NETWORK,
        f"Hessian spectrum along training ({'Fig. 7' if relu else 'Fig. 6'}), depth {int(h['depth'].iloc[0])}",
        "lg(loss)" if relu else "lg(loss − L_min)",
        "lg(value)",
        controls=[("quantity", "quantity", ["|λ|max", "|λ|(0.1)"], "|λ|max"), ("run", "run", runs, runs[0])],
        nets=True,
        color_title="network",
    )
    lr = _single(t, "lr")
    return _finish(
        chart,
        "Every run of the committed data: choose the networks, the quantity and a run "
        "(points where |λ|(0.1) is below the eigensolver's rounding floor are left out). "
        f"The committed runs are at depth {_single(h, 'depth')}"
        + (f" and learning rate {lr}" if lr else "")
        + "; other depths and learning rates need the live widget below.",
    )


def _explore_fig8(figure, t):
    import altair as alt
    import numpy as np

    from resnet_nb.book.palette import COLORS
    from resnet_nb.shared.common import mnist_optimum

    h = t[t["kind"] == "hessian"][["arch", "run", "epoch", "loss", "index", "grad_norm"]].copy()
    h["lg_x"] = np.log10(h["loss"] - mnist_optimum())
    h["lg_grad_norm"] = np.log10(h["grad_norm"])
    d = _with_names(_round(h[np.isfinite(h["lg_x"])].drop(columns=["loss", "grad_norm"])))
    runs = sorted(int(r) for r in d["run"].unique())
    left = _lg_chart(
        d,
        "lg_x",
        "index",
        NETWORK,
        "Index along training (Fig. 8, left)",
        "lg(loss − L_min)",
        "index",
        controls=[("run", "run", runs, runs[0])],
        width=230,
        nets=True,
        color_title="network",
    )
    run = alt.param(name="p_run2", value=runs[0], bind=alt.binding_select(options=runs, name="run (right) "))
    # one 2-shortcut run: its colour (set on the line, its points and the legend's symbols, which
    # would otherwise take Vega's default blue), the two quantities told apart by the stroke
    two = COLORS["2-shortcut"]
    right = (
        alt.Chart(d)
        .transform_filter(alt.datum.run == run)
        .transform_filter(alt.datum.arch == "2-shortcut")
        .transform_fold(["index", "lg_grad_norm"], as_=["quantity", "value"])
        .mark_line(point=alt.OverlayMarkDef(size=18, color=two), color=two)
        .encode(
            x=alt.X("epoch:Q", scale=alt.Scale(type="symlog")),
            y=alt.Y("value:Q", title="value"),
            strokeDash=alt.StrokeDash("quantity:N", title="2-shortcut run", legend=alt.Legend(symbolStrokeColor=two)),
            tooltip=["epoch:Q", "quantity:N", "value:Q"],
        )
        .add_params(run)
        .properties(title="Index and lg(gradient norm) against the epoch", width=230, height=230)
    )
    # Legends below the panels: side by side with two legends they would not fit a 700 px column.
    return _finish(
        alt.hconcat(left, right).resolve_scale(color="independent").configure_legend(orient="bottom"),
        "Every run of the committed data; choose the networks and a run for each panel. "
        f"The committed runs are at depth {_single(t, 'depth')}; other depths and learning "
        "rates need the live widget below.",
    )


def _explore_fig9(figure, t):
    import numpy as np
    import pandas as pd

    from resnet_nb.shared.common import mnist_optimum

    relu = bool(t["relu"].iloc[0])
    opt = 0.0 if relu else mnist_optimum()
    d = t[["arch", "depth", "lr", "run", "final_loss", "diverged"]].copy()
    d = d[~d["diverged"].astype(bool)].drop(columns="diverged")
    g = d.groupby(["arch", "depth", "lr"], as_index=False).agg(final_loss=("final_loss", "mean"), runs=("run", "size"))
    g["run"] = MEAN_RUN
    d["runs"] = 1
    g = pd.concat([g, d], ignore_index=True)
    g["lg_depth"] = np.log10(g["depth"])
    g["lg_y"] = np.log10(g["final_loss"] - opt)
    g["lr"] = [float(f"{v:.3g}") for v in g["lr"]]
    g = _with_names(_round(g[np.isfinite(g["lg_y"])].drop(columns="final_loss")))
    lrs = sorted(g["lr"].unique())
    default = min(lrs, key=lambda v: abs(np.log10(v) + 2))
    options, labels, run_default = _run_menu(sorted(t["run"].unique()), True)
    depths = sorted(int(v) for v in g["depth"].unique())
    chart = _lg_chart(
        g,
        "lg_depth",
        "lg_y",
        NETWORK,
        f"Final loss against depth at one learning rate ({'Fig. 10' if relu else 'Fig. 9'})",
        "lg(depth)",
        "lg(final loss)" if relu else "lg(final loss − L_min)",
        controls=[("lr", "learning rate", lrs, default), ("run", "run", options, run_default, labels)],
        ranges=[("depth", "depths", depths)],
        nets=True,
        color_title="network",
    )
    return _finish(
        chart,
        "Every network, depth, learning rate and run of the committed grid (runs that "
        "diverged are left out; the mean is over the others): choose the networks, the "
        "depths, a learning rate and a run, or the mean; click a network in the legend.",
    )


def _explore_fig2(figure, t):
    import numpy as np

    d = t[["layers", "lr", "seed", "epoch", "loss", "avg_weight_norm"]].copy()
    d["lg_loss"] = np.log10(d["loss"])
    d = _round(d[np.isfinite(d["lg_loss"])].drop(columns=["loss"]))
    d["lr"] = [float(f"{v:.3g}") for v in d["lr"]]
    lrs, seeds = sorted(d["lr"].unique()), sorted(int(v) for v in d["seed"].unique())
    layers = sorted(int(v) for v in d["layers"].unique())
    chart = _lg_chart(
        d,
        "lg_loss",
        "avg_weight_norm",
        "layers",
        "Average weight norm against lg(loss) (Fig. 2 analog)",
        "lg(training loss)",
        "average weight norm",
        controls=[("lr", "learning rate", lrs, max(lrs)), ("seed", "seed", seeds, seeds[0])],
        ranges=[("layers", "layers", layers)],
        color_title="layers",
    )
    return _finish(
        chart,
        "Every depth, learning rate and seed of the committed runs: choose the depths, a "
        "learning rate and a seed; click a depth in the legend.",
    )
