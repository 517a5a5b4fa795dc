"""Figure 8 of Li et al. (chapter: book/exp_dynamics.ipynb):
the index (fraction of negative eigenvalues) along training, depth 16.

Left: the index against lg(loss - L_min) for orthogonal and 2-shortcut linear networks, each
run interpolated onto a common loss grid and averaged. Right: the gradient norm and the index
against the epoch in one 2-shortcut run. Both come from the runs of :mod:`.fig6`, whose
records this figure shares (the command line computes them once).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from resnet_nb.core import claims
from resnet_nb.experiments import fig6
from resnet_nb.shared.common import committed

__all__ = [
    "SCALES",
    "SHARES_RECORDS_WITH",
    "configurations",
    "run_one",
    "DENSE",
    "dense_index",
    "dense_item",
    "reproduce_dense",
    "load_dense",
    "index_fall",
    "peak_lag",
]

SHARES_RECORDS_WITH = "fig6"
SCALES = fig6.SCALES


def configurations(config: dict) -> list[dict]:
    """The items of Figure 6 (the same runs)."""
    return fig6.configurations(config)


def run_one(item: dict, device: str = "cpu") -> list[dict]:
    """See :func:`resnet_nb.experiments.fig6.run_one`."""
    return fig6.run_one(item, device)


# ------------------------------------------------------------------------------------------
# Claims (decided on the committed paper-scale table of Figure 6)
# ------------------------------------------------------------------------------------------


@claims.claim(
    "li-fig8-smaller-index",
    source="Li et al., Section 5.2, Figure 8 left",
    statement=r"At depth 16 (linear, learning rate 0.1, 5 runs each) the index of 2-shortcut networks is below "
    r"that of orthogonal plain networks (run means) at every measured loss of the range both pass "
    r"through; the stretch that the orthogonal networks' first step jumps over, where no Hessian is "
    r"recorded and the curve is a straight line between epochs 0 and 1, is left out.",
    verdict="reproduced",
    falsifier="the orthogonal networks have the smaller index (the ordering reversed)",
    falsifier_kind="implied by the check",
    where=["tests/experiments/test_claims.py", "book/exp_dynamics.ipynb"],
)
def claim_smaller_index(falsify: bool = False) -> claims.Check:
    t = committed("fig6")
    small, large = ("orthogonal", "2-shortcut") if falsify else ("2-shortcut", "orthogonal")
    return fig6.ordering(t, "index", False, small, large, "index", exclude=fig6.first_step_gap(t))


def peak_in_drop(table: pd.DataFrame, arch: str = "2-shortcut") -> claims.Check:
    """Each run's gradient-norm peak against the interval (between two recorded Hessians) in which
    its index fell the most. The value is the smallest distance, in epochs, from a run's peak to the
    nearer end of its interval, negative when the peak lies outside it: the margin by which the peak
    is inside, which the log-spaced Hessian epochs make a matter of one or two epochs."""
    rows = []
    for run, one in table[table["arch"] == arch].groupby("run"):
        traj = one[one["kind"] == "trajectory"].sort_values("epoch")
        hess = one[one["kind"] == "hessian"].sort_values("epoch")
        peak = int(traj.loc[traj["grad_norm"].idxmax(), "epoch"])
        e, ix = hess["epoch"].to_numpy(), hess["index"].to_numpy(dtype=float)
        k = int(np.argmin(np.diff(ix)))
        a, b = int(e[k]), int(e[k + 1])
        inside = min(peak - a, b - peak)  # > 0 strictly inside, 0 on an end, < 0 outside
        rows.append(dict(run=int(run), peak=peak, drop_from=a, drop_to=b, drop=float(ix[k] - ix[k + 1]), inside=inside))
    worst = min(r["inside"] for r in rows)
    peaks = sorted({r["peak"] for r in rows})
    ends = sorted({(r["drop_from"], r["drop_to"]) for r in rows})
    return claims.Check(
        f"{arch}: gradient peak inside the steepest fall of the index ({len(rows)} runs)",
        "smallest distance (epochs) from a run's gradient peak to the nearer end of its interval (negative: outside)",
        float(worst),
        0.0,
        "the peak lies inside the interval between the two recorded Hessians that bracket the steepest "
        "fall (or on one end)",
        op=">=",
        lines=[
            f"gradient peaks at epochs {peaks}; steepest-fall intervals {ends}"
            + (
                ": the runs nearly coincide (one observation), and the margin is set by the Hessian epochs"
                if len(peaks) == 1 and len(ends) == 1
                else ""
            )
        ],
        values=dict(rows=rows, peaks=peaks, intervals=ends),
    )


# ------------------------------------------------------------------------------------------
# Dense Hessians around the gradient peak (one run, every epoch; committed, about a minute)
# ------------------------------------------------------------------------------------------
#: the run of the committed table that is retrained with a Hessian at every epoch of the window
DENSE = {
    "archs": ["2-shortcut", "orthogonal"],
    "depth": 16,
    "lr": fig6.SCALES["paper"]["lr"],
    "run": 0,
    "seed": fig6.SCALES["paper"]["seed"],
    "first": 20,
    "last": 60,
}
DENSE_DIR = ("fig8", "dense")
#: the columns of :func:`dense_index`'s table, in its order
DENSE_COLUMNS = ("arch", "epoch", "loss", "grad_norm", "index", "negatives", "P")


def dense_index(
    arch: str = "2-shortcut",
    depth: int = DENSE["depth"],
    lr: float = DENSE["lr"],
    run: int = DENSE["run"],
    seed: int = DENSE["seed"],
    first: int = DENSE["first"],
    last: int = DENSE["last"],
) -> pd.DataFrame:
    """Retrain run ``run`` of Figure 8 (linear, the seed that :func:`fig6.configurations` gives it) for
    ``last`` epochs; one row per epoch with the loss and the gradient norm, and for epochs ``first`` to
    ``last`` the index of the exact Hessian and its number of negative eigenvalues."""
    from resnet_nb.core import hessians
    from resnet_nb.core.train import gradient_descent
    from resnet_nb.shared.common import initial_weights, mnist, network

    net = network(arch, depth)
    stats = mnist().stats()
    W0 = initial_weights(arch, net, seed=seed + run)
    window = list(range(first, last + 1))
    res = gradient_descent(net, W0, stats, lr=lr, epochs=last, snapshot_epochs=window)
    rows = []
    for e in range(last + 1):
        row = {
            "arch": arch,
            "epoch": e,
            "loss": float(res.losses[e]),
            "grad_norm": float(res.grad_norms[e]),
            "index": np.nan,
            "negatives": -1,
            "P": net.num_params,
        }
        if e in res.snapshots:
            ev = hessians.spectrum(hessians.hessian_linear(net, res.snapshots[e], stats))
            row["index"], row["negatives"] = hessians.index(ev), int((ev < 0).sum())
        rows.append(row)
    return pd.DataFrame(rows)


def _dense_store(out=None):
    from pathlib import Path

    from resnet_nb.core.paths import RESULTS

    return (Path(out) if out is not None else RESULTS).joinpath(*DENSE_DIR, "records")


def dense_item(arch: str) -> dict:
    """The work item of one architecture of :func:`reproduce_dense`: the set, the architecture
    and the settings of :data:`DENSE`."""
    return dict(set="/".join(DENSE_DIR), arch=arch, **{k: v for k, v in DENSE.items() if k != "archs"})


def reproduce_dense(out=None) -> pd.DataFrame:
    """Run :func:`dense_index` for every architecture of :data:`DENSE`, one record per
    architecture (item: :func:`dense_item`) under ``<out>/fig8/dense/records/`` (``results`` by
    default; about a minute per architecture on one core); an architecture whose sound record is
    there is read back, not recomputed. Returns :func:`load_dense`'s table."""
    from resnet_nb.shared.store import record_item

    kw = {k: v for k, v in DENSE.items() if k != "archs"}
    for arch in DENSE["archs"]:
        record_item(_dense_store(out), dense_item(arch), lambda a=arch: dense_index(a, **kw).to_dict("records"))
    return load_dense(out)


def load_dense(out=None):
    """The stored table of :func:`reproduce_dense` (the architectures in the order of
    :data:`DENSE`, others after them by name), or None if nothing is stored. A damaged record is
    refused (``ValueError``)."""
    from resnet_nb.shared.store import iter_records, records_table

    bodies = list(iter_records(_dense_store(out), strict=True))
    if not bodies:
        return None
    archs = list(DENSE["archs"])
    bodies.sort(
        key=lambda b: (archs.index(b["item"]["arch"]) if b["item"]["arch"] in archs else len(archs), b["item"]["arch"])
    )
    return records_table(bodies, DENSE_COLUMNS)


def index_fall(dense: pd.DataFrame, arch: str = "2-shortcut") -> dict:
    """Where, in epochs, the index of one densely sampled run falls, and where its gradient norm peaks.

    The fall is measured from the index at the first sampled epoch to its lowest value in the
    window; ``t25``, ``t50`` and ``t75`` are the epochs (linearly interpolated) at which it has made a
    quarter, half and three quarters of that fall. ``steepest`` lists the one-epoch steps with the
    largest fall (several tie: the index moves by whole eigenvalues); ``lag`` is ``t50 - peak``."""
    g = dense[dense["arch"] == arch].sort_values("epoch")
    peak = int(g.loc[g["grad_norm"].idxmax(), "epoch"])
    h = g[g["negatives"] >= 0]
    e, neg = h["epoch"].to_numpy(), h["negatives"].to_numpy(dtype=float)
    fall = neg[0] - neg.min()
    out = {
        "arch": arch,
        "peak": peak,
        "first": int(e[0]),
        "last": int(e[-1]),
        "fall": int(fall),
        "P": int(h["P"].iloc[0]),
        "index0": float(h["index"].iloc[0]),
        "index_min": float(h["index"].min()),
    }
    if fall <= 0:
        return dict(out, t25=np.nan, t50=np.nan, t75=np.nan, lag=np.nan, steepest=[], steepest_drop=0)
    stop = int(np.argmin(neg))
    for q in (25, 50, 75):
        level = neg[0] - q / 100 * fall
        k = int(np.flatnonzero(neg[: stop + 1] <= level)[0])
        out[f"t{q}"] = float(e[k - 1] + (neg[k - 1] - level) / (neg[k - 1] - neg[k]) * (e[k] - e[k - 1]))
    d = -np.diff(neg)
    out["steepest_drop"] = int(d.max())
    out["steepest"] = [(int(e[i]), int(e[i + 1])) for i in np.flatnonzero(d == d.max())]
    out["lag"] = out["t50"] - peak
    return out


def peak_lag(dense: pd.DataFrame, arch: str = "2-shortcut") -> claims.Check:
    """The gradient peak against the middle of the index's fall in one densely sampled run: the lag
    ``|t50 - peak|`` must not exceed half the width ``(t75 - t25)/2`` of the middle half of the fall."""
    f = index_fall(dense, arch)
    lag, half = abs(f["lag"]), (f["t75"] - f["t25"]) / 2
    ok = np.isfinite(lag)
    return claims.Check(
        f"{arch}: gradient peak within the middle half of the index's fall (one run, Hessian every epoch "
        f"{f['first']}-{f['last']})",
        "|epoch of half the fall - epoch of the gradient peak|",
        float(lag) if ok else float("inf"),
        float(half) if ok else 0.0,
        "half the width, in epochs, of the middle half of the fall (from a quarter to three quarters of it)",
        nontrivial=float(f["fall"]),
        nontrivial_what="negative eigenvalues lost in the window",
        nontrivial_min=0.0,
        lines=[
            f"gradient peak at epoch {f['peak']}; the index falls by {f['fall']} of {f['P']} eigenvalues, "
            f"a quarter of it by epoch {f['t25']:.1f}, half by {f['t50']:.1f}, three quarters by {f['t75']:.1f}"
            if ok
            else f"gradient peak at epoch {f['peak']}; the index does not fall in the window"
        ],
        values=f,
    )


@claims.claim(
    "li-fig8-gradient-peak-at-index-drop",
    source="Li et al., Section 5.2, Figure 8 right",
    statement=r"Along the 2-shortcut runs (depth 16, linear, learning rate 0.1) the gradient norm peaks while "
    r"the index falls: in each of the 5 committed runs (which nearly coincide: one observation) the "
    r"peak lies inside the interval between two recorded Hessians in which the index falls the "
    r"most, and in run 0 retrained with a Hessian at every epoch from 20 to 60 it lies within the "
    r"middle half of the fall.",
    verdict="reproduced",
    falsifier="the index falls whenever the gradient peaks, whatever the architecture: the same coincidence "
    "in the orthogonal runs",
    falsifier_kind="plausible false statement",
    where=["tests/experiments/test_claims.py", "book/exp_dynamics.ipynb"],
)
def claim_peak_at_drop(falsify: bool = False) -> claims.Check:
    arch = "orthogonal" if falsify else "2-shortcut"
    dense = load_dense()
    if dense is None:
        raise FileNotFoundError(
            "results/fig8/dense is missing: run "
            "`python -c 'from resnet_nb.experiments import fig8; fig8.reproduce_dense()'`"
        )
    return claims.all_of(
        f"{arch}: gradient peak at the fall of the index",
        [peak_in_drop(committed("fig6"), arch), peak_lag(dense, arch)],
    )


# ------------------------------------------------------------------------------------------
# Figures drawn from the committed tables
# ------------------------------------------------------------------------------------------
