"""Figure 5 of Li et al. (chapter: book/exp_initial_point.ipynb):
the initial condition number ``|lambda|max / |lambda|(10%)`` against depth.

Plain linear networks with Xavier and with orthogonal initialisation, and 1-, 2- and
3-shortcut linear networks with the small initialisation, on whitened MNIST; mean and spread
over runs. One work item is one Hessian: (architecture, depth, run).

A condition number above ``1 / (P eps)`` is not a measurement: the 10th-percentile
eigenvalue is then below the rounding floor of the eigensolver
(:func:`resnet_nb.core.hessians.resolution_floor`). Such rows carry ``resolved = False``; the
summary and the plot show them as lower bounds, never as numbers.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd

from resnet_nb.core import claims, hessians
from resnet_nb.core.checks import require_choice, require_int
from resnet_nb.experiments import engine
from resnet_nb.shared.common import (
    ARCHS,
    FLAT_FRACTION,
    committed,
    depths_for,
    initial_weights,
    lg_cond_by_depth,
    mnist,
    network,
)

__all__ = [
    "SCALES",
    "configurations",
    "run_one",
    "summarise",
    "flatness",
    "flat_until",
    "percentile_table",
]

SCALES = {
    "default": {"archs": list(ARCHS), "depths": [2, 3, 4, 6, 8, 12], "runs": 2, "seed": 0},
    "paper": {"archs": list(ARCHS), "depths": [2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96], "runs": 10, "seed": 0},
}


def _check_config(config):
    for key in ("archs", "depths", "runs", "seed"):
        if key not in config:
            raise ValueError(f"config must have the key {key!r}; got keys {sorted(config)}")
    for a in config["archs"]:
        require_choice("archs entry", a, ARCHS)
    for L in config["depths"]:
        require_int("depths entry", L)
    require_int("runs", config["runs"])
    require_int("seed", config["seed"], minimum=0)


def configurations(config: dict) -> list[dict]:
    """One item per (architecture, depth, run); depths an n-shortcut cannot have are skipped.

    Items come depth by depth (shallow first), and within a depth run by run, so that an
    interrupted run has every architecture up to some depth, and some runs of every
    architecture at the next, rather than some architectures at every depth.
    """
    _check_config(config)
    return [
        {"figure": "fig5", "arch": a, "depth": L, "run": r, "seed": int(config["seed"]) + r}
        for L in sorted(set(int(x) for x in config["depths"]))
        for r in range(int(config["runs"]))
        for a in config["archs"]
        if L in depths_for(a, [L])
    ]


def run_one(item: dict, device: str = "cpu") -> list[dict]:
    """The Hessian spectrum of one initial point: |lambda|max, |lambda|(10%), condition number, index."""
    net = network(item["arch"], item["depth"])
    W = initial_weights(item["arch"], net, seed=item["seed"], device=device)
    stats = mnist().stats().to(device=device)
    t0 = time.perf_counter()
    H = hessians.hessian_linear(net, W, stats)
    t1 = time.perf_counter()
    eigs = hessians.spectrum(H)
    t2 = time.perf_counter()
    del H
    a = np.abs(eigs)
    floor = hessians.resolution_floor(eigs)
    p10 = float(np.percentile(a, 10))
    return [
        {
            "arch": item["arch"],
            "depth": item["depth"],
            "run": item["run"],
            "seed": item["seed"],
            "P": net.num_params,
            "lam_max": float(a.max()),
            "lam_p10": p10,
            "cond": float(a.max() / p10) if p10 > 0 else float("inf"),
            "floor": floor,
            "resolved": bool(p10 > floor),
            "index": hessians.index(eigs),
            "hessian_s": round(t1 - t0, 4),
            "eigvalsh_s": round(t2 - t1, 4),
        }
    ]


def summarise(table: pd.DataFrame) -> pd.DataFrame:
    """Per (architecture, depth): mean and std of lg(cond) over the resolved runs, and how many
    runs were beyond float64 resolution (their condition number is only a lower bound)."""
    out = []
    for (arch, depth), g in table.groupby(["arch", "depth"], sort=False):
        res = g[g["resolved"].astype(bool)]
        lg = np.log10(res["cond"].to_numpy(dtype=float))
        bound = float(np.log10(1.0 / (g["P"].iloc[0] * np.finfo(np.float64).eps)))
        out.append(
            {
                "arch": arch,
                "depth": int(depth),
                "runs": len(g),
                "unresolved": int(len(g) - len(res)),
                "lg_cond_mean": float(lg.mean()) if lg.size else np.nan,
                "lg_cond_std": float(lg.std(ddof=1)) if lg.size > 1 else np.nan,
                "lg_resolution_limit": bound,
            }
        )
    return (
        pd.DataFrame(out)
        .sort_values(
            ["arch", "depth"], key=lambda s: s.map({a: i for i, a in enumerate(ARCHS)}) if s.name == "arch" else s
        )
        .reset_index(drop=True)
    )


# ------------------------------------------------------------------------------------------
# Claims (decided on the committed paper-scale table, and on a small live run)
# ------------------------------------------------------------------------------------------


def flatness(table: pd.DataFrame, arch: str = "2-shortcut") -> claims.Check:
    """Range over depths of the mean lg cond of ``arch`` against a fraction of the orthogonal growth."""
    own, ref = lg_cond_by_depth(table, arch), lg_cond_by_depth(table, "orthogonal")
    depths = [L for L in own.index if L in ref.index]
    own, ref = own.loc[depths], ref.loc[depths]
    rng = float(own["mean"].max() - own["mean"].min())
    growth = float(ref["mean"].iloc[-1] - ref["mean"].iloc[0])
    tol = FLAT_FRACTION * growth
    return claims.Check(
        f"{arch}: lg cond flat in depth ({min(depths)} to {max(depths)})",
        "range over depths of the mean lg cond",
        rng,
        tol,
        f"{FLAT_FRACTION:g} x the growth of the orthogonal networks' mean lg cond over the same depths "
        "(flat at the scale of the figure)",
        nontrivial=growth,
        nontrivial_what="growth of the orthogonal lg cond",
        nontrivial_min=0.0,
        spread=float(own["std"].max()),
        values=dict(
            low=float(own["mean"].min()),
            high=float(own["mean"].max()),
            growth_ref=growth,
            first=float(own["mean"].iloc[0]),
            last=float(own["mean"].iloc[-1]),
        ),
    )


@claims.claim(
    "li-fig5-flat-to-depth-96",
    source="Li et al., Section 5.1, Figure 5",
    statement=r"At the small initial point the condition number $|\lambda|_{\max}/|\lambda|_{(10\%)}$ of "
    r"2-shortcut linear networks does not change with depth (2 to 96, 10 runs each): the range of "
    r"its mean $\lg$ is below 5% of the growth of the orthogonal networks' curve.",
    verdict="reproduced",
    falsifier="the 1-shortcut condition number is flat in depth too (any shortcut keeps the start well conditioned)",
    falsifier_kind="plausible false statement",
    where=["tests/experiments/test_claims.py", "book/exp_initial_point.ipynb"],
)
def claim_flat_to_depth_96(falsify: bool = False) -> claims.Check:
    return flatness(committed("fig5"), "1-shortcut" if falsify else "2-shortcut")


@claims.claim(
    "li-fig5-flat-initial-condition",
    source="Li et al., Section 5.1, Figure 5",
    statement=r"The same flatness in a live run of the book (depths 2 to 8, 2 runs): the range of the "
    r"2-shortcut mean $\lg$ condition number is below 5% of the orthogonal growth.",
    verdict="reproduced",
    falsifier="the 1-shortcut condition number is flat in depth too (any shortcut keeps the start well conditioned)",
    falsifier_kind="plausible false statement",
    where=["tests/experiments/test_claims.py", "book/exp_initial_point.ipynb"],
)
def claim_flat_live(falsify: bool = False) -> claims.Check:
    arch = "1-shortcut" if falsify else "2-shortcut"
    config = dict(archs=[arch, "orthogonal"], depths=[2, 4, 8], runs=2, seed=0)
    tab = engine.run(sys.modules[__name__], config, progress=False)
    return flatness(tab, arch)


def flat_until(table: pd.DataFrame, arch: str = "2-shortcut") -> dict:
    """Where :func:`flatness` would stop holding if the measured trends went on: the depth at which a
    straight-line fit of the mean lg cond of ``arch`` against the depth has risen by
    :data:`FLAT_FRACTION` times a fit of the orthogonal mean lg cond against lg(depth) (the ledger's
    criterion, extrapolated). An extrapolation of a drift that is tiny over the measured depths, not
    a measurement."""
    from scipy.optimize import brentq

    own, ref = lg_cond_by_depth(table, arch)["mean"], lg_cond_by_depth(table, "orthogonal")["mean"]
    depths = [L for L in own.index if L in ref.index]
    own, ref = own.loc[depths], ref.loc[depths]
    L0 = float(min(depths))
    slope = float(np.polyfit(np.asarray(depths, dtype=float), own.to_numpy(), 1)[0])
    per_lg = float(np.polyfit(np.log10(np.asarray(depths, dtype=float)), ref.to_numpy(), 1)[0])
    if not (slope > 0 and per_lg > 0):
        return dict(slope=slope, per_lg=per_lg, depth=float("inf"), drift=float(own.max() - own.min()))
    a = FLAT_FRACTION * per_lg
    excess = lambda L: slope * (L - L0) - a * np.log10(L / L0)  # noqa: E731
    lowest = a / (slope * np.log(10))  # where the excess is smallest; it is 0 at L0, and grows past lowest
    depth = L0 if lowest <= L0 else float(brentq(excess, lowest, 1e12))
    return dict(slope=slope, per_lg=per_lg, depth=depth, drift=float(own.max() - own.min()), deepest=int(max(depths)))


def percentile_table(table: pd.DataFrame, arch: str) -> pd.DataFrame:
    """Per depth, the means over runs of |lambda|max, |lambda|(10%) and lg cond of ``arch``."""
    g = table[table["arch"] == arch]
    return g.assign(lg=np.log10(g["cond"].astype(float))).groupby("depth")[["lam_max", "lam_p10", "lg"]].mean()


def growth_like_plain(table: pd.DataFrame, arch: str = "1-shortcut") -> claims.Check:
    """Growth of the mean lg cond of ``arch`` from the smallest to the largest depth, against half the
    orthogonal networks' growth over the same depths."""
    own, ref = lg_cond_by_depth(table, arch), lg_cond_by_depth(table, "orthogonal")
    depths = [L for L in own.index if L in ref.index]
    own, ref = own.loc[depths], ref.loc[depths]
    growth = float(own["mean"].iloc[-1] - own["mean"].iloc[0])
    ref_growth = float(ref["mean"].iloc[-1] - ref["mean"].iloc[0])
    gap = own["mean"] - ref["mean"]
    slope = lambda s: float(np.polyfit(np.log10(s.index[s.index >= 8]), s["mean"][s.index >= 8], 1)[0])  # noqa: E731
    return claims.Check(
        f"{arch}: lg cond grows with depth like a plain orthogonal network ({min(depths)} to {max(depths)})",
        "growth of the mean lg cond",
        growth,
        0.5 * ref_growth,
        "half the growth of the orthogonal networks over the same depths",
        op=">=",
        nontrivial=ref_growth,
        nontrivial_what="growth of the orthogonal lg cond",
        nontrivial_min=0.0,
        spread=float(own["std"].max()),
        values=dict(
            growth=growth,
            ref_growth=ref_growth,
            gap_first=float(gap.iloc[0]),
            gap_last=float(gap.iloc[-1]),
            gap_monotone=bool(np.all(np.diff(gap.to_numpy()[gap.index >= 8]) > 0)),
            slope=slope(own) if len(own) > 2 else float("nan"),
            slope_ref=slope(ref) if len(ref) > 2 else float("nan"),
        ),
    )


@claims.claim(
    "li-fig5-one-shortcut-like-plain",
    source="Li et al., Sections 2 and 5.1, Figure 5",
    statement=r"The condition number of 1-shortcut networks at the small initial point grows with depth as a "
    r"plain orthogonal network's does (the increase of its mean $\lg$ from depth 2 to 96 is at least "
    r"half the orthogonal increase); it is not flat like the 2-shortcut one.",
    verdict="reproduced",
    falsifier="the 2-shortcut condition number grows like a plain network's too (every residual network "
    "degrades with depth as the 1-shortcut one does)",
    falsifier_kind="plausible false statement",
    where=["tests/experiments/test_claims.py", "book/exp_initial_point.ipynb"],
)
def claim_one_shortcut_like_plain(falsify: bool = False) -> claims.Check:
    return growth_like_plain(committed("fig5"), "2-shortcut" if falsify else "1-shortcut")
