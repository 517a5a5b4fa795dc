"""Figure 10 of Li et al. (chapter: book/exp_learning.ipynb): Figure 9 with ReLUs at the mid positions.

2-shortcut networks (small initialisation) against plain networks with Xavier and with
orthogonal initialisation that carry ReLUs at the same positions (after every odd-numbered
matrix, Appendix B); 1- and 3-shortcut networks are left out, as in the paper, because they
would hold a different number of ReLUs. The networks train on the samples (the loss of a
ReLU network is not a function of Sxx and Syx), all runs x learning rates of one
(architecture, depth) batched in one autograd graph.

The optimum of a ReLU network is unknown, so the figure shows lg(final loss), not the gap to
the optimum. The default scale whitens a subset of the digits (``n_per_class`` per class) to
fit the book's time budget; the paper scale uses all 5,000.

The book adds a fourth architecture the paper does not have, ``"he"``: the plain ReLU network
with He initialisation (He et al. 2015, which the paper cites): drawn from the same random
numbers as the Xavier runs, and every matrix that a ReLU follows multiplied by ``sqrt(2)``
(variance ``2 / fan_in``). Xavier and orthogonal matrices of gain 1 halve the second moment of the signal at
every ReLU, so a deep plain ReLU network starts with a vanishing output
(:func:`initial_output_rms`). The He scaling keeps the *expected* second moment, but at the
book's width 10 a typical draw still shrinks: the logarithm of the signal's norm drifts down by
an amount that grows like depth / width, so at depth 64 the He network's output starts far
below its input (the chapter prints the factor).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd
import torch

from resnet_nb.core import claims
from resnet_nb.core.checks import require_float
from resnet_nb.experiments import engine, fig9
from resnet_nb.shared import common, store
from resnet_nb.shared.common import initial_weights, log_grid, mnist, network

__all__ = [
    "floor_comparison",
    "first_all_diverged",
    "SCALES",
    "ARCHS",
    "PAPER_ARCHS",
    "HE_GAIN",
    "configurations",
    "run_one",
    "summarise",
    "he_weights",
    "initial_output_rms",
    "reproduce_floor",
    "committed_floor",
    "gd_at_best",
    "FLOOR_CONFIG",
    "depth4_floor_negative_control",
    "floor_breakeven",
    "he_against_xavier",
]

#: the paper's three architectures of Figure 10
PAPER_ARCHS = ("2-shortcut", "xavier", "orthogonal")
#: ... and the book's He-scaled plain ReLU baseline
ARCHS = PAPER_ARCHS + ("he",)
#: He et al.'s gain for ReLU: entries of variance gain^2 / fan_in
HE_GAIN = math.sqrt(2.0)
SCALES = {
    # the live run of the chapter: the paper's three networks (the He baseline is committed), depths
    # 2 to 8 (the 2-shortcut networks are worst at 2 and 4, lowest from 8), 20 digits per class
    "default": {
        "archs": list(PAPER_ARCHS),
        "depths": [2, 4, 8],
        "lrs": log_grid(1e-2, 1, 2),
        "runs": 2,
        "epochs": 1000,
        "seed": 0,
        "n_per_class": 20,
    },
    "paper": {
        "archs": list(PAPER_ARCHS),
        "depths": [2, 4, 8, 16, 32, 64],
        "lrs": log_grid(1e-3, 10, 2),
        "runs": 3,
        "epochs": 1000,
        "seed": 0,
        "n_per_class": None,
    },
}


def configurations(config: dict) -> list[dict]:
    """One item per (architecture, depth), all runs and learning rates together.

    An ``"he"`` item is the Xavier item of the same depth with ``arch = "he"``."""
    cfg = {k: v for k, v in config.items() if k != "n_per_class"}
    archs = list(cfg.get("archs", []))
    he = "he" in archs
    plain = [a for a in archs if a != "he"]
    if he and "xavier" not in plain:
        plain.append("xavier")
    items = fig9.configurations(dict(cfg, archs=plain), figure="fig10", relu=True, archs_allowed=PAPER_ARCHS)
    if he:
        extra = [dict(it, arch="he") for it in items if it["arch"] == "xavier"]
        items = [it for it in items if it["arch"] in archs] + extra
        order = {a: i for i, a in enumerate(ARCHS)}
        items.sort(key=lambda it: (it["depth"], order[it["arch"]]))
    if config.get("n_per_class") is not None:
        items = [dict(it, n_per_class=int(config["n_per_class"])) for it in items]
    return items


def he_weights(depth: int, seed: int, runs: int | None = None, device=None, gain_all: bool = False) -> torch.Tensor:
    """He-initialised plain ReLU weights from the Xavier draw of ``seed``.

    For square d x d matrices Xavier's variance is ``1/d``. He et al. scale a matrix by
    ``sqrt(2)`` (variance ``2/fan_in``) when a ReLU follows it, which in these networks is every
    odd-numbered matrix (the first of each pair); the even-numbered ones feed the next matrix
    directly and keep variance ``1/d``. Then the expected second moment of the signal is the
    same after every pair. ``gain_all=True`` scales every matrix (the second moment then doubles
    at every pair).
    """
    net = network("xavier", depth, relu=True)
    W = initial_weights("xavier", net, seed=seed, runs=runs, device=device).clone()
    if gain_all:
        return HE_GAIN * W
    W[..., 0, :, :] *= HE_GAIN
    return W


def _train_grid_he(item: dict, device: str = "cpu"):
    from resnet_nb.core.train import gradient_descent

    net = network("xavier", item["depth"], relu=True)
    runs = item["runs"]
    lrs = torch.tensor(item["lrs"], dtype=torch.float64, device=device)
    W0 = he_weights(item["depth"], item["seed"], runs=runs, device=device)
    W0 = W0[:, None].expand(runs, len(lrs), *net.shape)
    data = mnist(item.get("n_per_class")).to(device=device)
    return gradient_descent(net, W0, data, lr=lrs, epochs=item["epochs"])


def run_one(item: dict, device: str = "cpu") -> list[dict]:
    """Final loss of every run at every learning rate (see :func:`resnet_nb.experiments.fig9.run_one`)."""
    if item["arch"] != "he":
        return fig9.run_one(item, device)
    res = _train_grid_he(item, device)
    final = res.losses[..., -1]
    rows = []
    for r in range(item["runs"]):
        for j, lr in enumerate(item["lrs"]):
            diverged = bool(res.diverged[r, j])
            rows.append(
                {
                    "arch": "he",
                    "depth": item["depth"],
                    "relu": True,
                    "run": r,
                    "lr": lr,
                    "epochs": item["epochs"],
                    "diverged": diverged,
                    "final_loss": float("nan") if diverged else float(final[r, j]),
                }
            )
    return rows


def initial_output_rms(
    arch: str, depth: int, seed: int = 0, runs: int = 3, n_per_class: int | None = None, gain_all: bool = False
) -> float:
    """Root mean square of the network's output on the whitened digits at initialisation,
    averaged (as a mean square) over ``runs`` draws. ``arch``: one of :data:`ARCHS`."""
    if arch not in ARCHS:
        raise ValueError(f"arch must be one of {ARCHS}, got {arch!r}")
    net = network("xavier" if arch == "he" else arch, depth, relu=True)
    if arch == "he":
        W = he_weights(depth, seed, runs=runs, gain_all=gain_all)
    else:
        W = initial_weights(arch, net, seed=seed, runs=runs)
    X = (mnist() if n_per_class is None else mnist(n_per_class)).X.to(torch.float64)
    ms = [float((net.forward(W[r], X) ** 2).mean()) for r in range(runs)]
    return math.sqrt(sum(ms) / runs)


def summarise(table: pd.DataFrame) -> pd.DataFrame:
    """Best learning rate and lg(final loss) per (architecture, depth) (no optimum subtracted)."""
    return fig9.summarise(table, loss_opt=0.0)


#: the He-scaled plain ReLU baseline alone (the book's addition), at the paper's grid
HE_SCALES = {"default": dict(SCALES["default"], archs=["he"]), "paper": dict(SCALES["paper"], archs=["he"])}


def reproduce_he(scale: str = "paper", out=None, compute: bool = True, progress: bool = True):
    """Run (or resume) the He baseline at ``scale`` into ``<out>/fig10_he/<scale>/`` (records,
    ``table.csv``, ``provenance.json``), like the command line does for a figure.

    Run it as ``python -c "from resnet_nb.experiments import fig10; fig10.reproduce_he()"``;
    ``compute=False`` collects the finished items only. Returns the table.
    """
    import sys

    return engine.reproduce_variant(
        sys.modules[__name__], "fig10_he", HE_SCALES[scale], scale, out, compute=compute, progress=progress
    )


def lbfgs_floor(
    arch: str,
    depth: int = 2,
    scales=(0.01, 1.0, 3.0),
    starts_per_scale: int = 4,
    seed: int = 0,
    max_iter: int = 500,
    n_per_class: int | None = None,
) -> pd.DataFrame:
    """The lowest training loss a ReLU network of Figure 10 reaches with a second-order method.

    Minimises the loss of ``arch`` at ``depth`` on the whitened digits with
    :class:`torch.optim.LBFGS` (float64, strong-Wolfe line search) from
    ``len(scales) * starts_per_scale`` random starts: Xavier draws times each scale (times the
    He gains for ``"he"``). Gradient descent of Figure 10 cannot end below the smallest value
    found except by finding a better minimum; a spread of the ends over very different starts
    that is small says the value is the architecture's floor, a property of what it can
    represent, not of the optimiser. One row per start: ``scale``, ``start``, ``loss``.
    """
    if arch not in ARCHS:
        raise ValueError(f"arch must be one of {ARCHS}, got {arch!r}")
    net = network("xavier" if arch == "he" else arch, depth, relu=True)
    data = mnist(n_per_class)
    rows = []
    for scale in scales:
        base = (
            he_weights(depth, seed, runs=starts_per_scale)
            if arch == "he"
            else initial_weights("xavier", net, seed=seed, runs=starts_per_scale)
        )
        for k in range(starts_per_scale):
            loss = _lbfgs_minimise(net, data, float(scale) * base[k], max_iter)
            rows.append({"arch": arch, "depth": depth, "scale": float(scale), "start": k, "loss": loss})
    return pd.DataFrame(rows)


def _lbfgs_minimise(net, data, w0, max_iter: int) -> float:
    """The training loss L-BFGS (strong-Wolfe line search, float64) reaches from ``w0``."""
    from resnet_nb.core.losses import loss_samples
    from resnet_nb.core.train import torch_threads

    w = w0.clone().requires_grad_(True)
    opt = torch.optim.LBFGS(
        [w],
        lr=1.0,
        max_iter=max_iter,
        history_size=50,
        tolerance_grad=1e-12,
        tolerance_change=1e-15,
        line_search_fn="strong_wolfe",
    )

    def closure():
        opt.zero_grad()
        f = loss_samples(net, w, data)
        f.backward()
        return f

    with torch_threads(1):  # 10 x 5,000 products: more threads only wait on each other
        opt.step(closure)
    with torch.no_grad():
        return float(loss_samples(net, w, data))


# ---------------------------------------------------------------------------------------------
# Claims (the ledger): declared beside their checks
# ---------------------------------------------------------------------------------------------
_WHERE = ["book/exp_learning.ipynb", "tests/experiments/test_claims.py"]


@functools.lru_cache(maxsize=1)
def committed() -> pd.DataFrame:
    """The committed paper-scale table of Figure 10 (``results/fig10/paper``; see :func:`common.committed`)."""
    return common.committed("fig10")


@functools.lru_cache(maxsize=1)
def committed_he() -> pd.DataFrame:
    """The committed He baseline (``results/fig10_he/paper``; see :func:`common.committed`)."""
    return common.committed("fig10_he")


@claims.claim(
    "li-fig10-shortcut-lowest-relu",
    source="Li et al., Section 5.3, Figure 10",
    statement="With ReLUs at the mid positions (committed run: 3 runs per rate, 9 rates, 1,000 epochs, "
    "5,000 digits), the 2-shortcut networks reach the lowest best final loss of the paper's "
    "three architectures at every depth from 8 to 64, but not at depths 2 and 4.",
    verdict="partly reproduced",
    falsifier="the 2-shortcut networks are lowest at every depth from 2 on (what the paper's figure would "
    "show if its axis covers depths 2 and 4, which the text we have does not settle)",
    falsifier_kind="plausible false statement",
    where=_WHERE,
)
def claim_shortcut_lowest(falsify: bool = False) -> claims.Check:
    g = fig9.lowest_gap(committed(), "2-shortcut", 0.0, from_depth=2 if falsify else 8, others=["xavier", "orthogonal"])
    return claims.Check(
        f"Figure 10: 2-shortcut-ReLU lowest from depth {2 if falsify else 8}",
        "smallest gap lg(rival) - lg(2-shortcut)",
        g["gap"],
        0.0,
        "strictly lowest (gap > 0); fragile when below 2 standard errors of the difference "
        "of the means over runs of lg(final loss)",
        op=">=",
        spread=g["margin_2se"],
        lines=[f"smallest at depth {g['depth']}, against {g['rival']}"],
    )


def _best_by_depth(table, arch):
    s = summarise(table)
    return s[s["arch"] == arch].sort_values("depth")


@claims.claim(
    "li-fig10-deeper-shortcut-lower-loss",
    source="Li et al., Section 5.3, Figure 10 (the book's reading of the plotted curve; the text says only "
    "that deeper networks are usually thought to have smaller optimal losses, which the "
    "2-shortcut networks find easily)",
    statement="The 2-shortcut-ReLU networks find lower losses as they get deeper: in the committed run "
    "their best final loss falls at every step of depth from 2 to 64.",
    verdict="reproduced",
    falsifier="plain Xavier-ReLU networks, too, improve at every step of depth",
    falsifier_kind="plausible false statement",
    where=_WHERE,
)
def claim_deeper_lower(falsify: bool = False) -> claims.Check:
    t = committed()
    arch = "xavier" if falsify else "2-shortcut"
    s = _best_by_depth(t, arch)
    steps = np.diff(s["lg_excess"].to_numpy(dtype=float))
    spreads = [
        fig9.lg_final_loss_spread(t, arch, d, lr, 0.0) for d, lr in zip(s["depth"], s["best_lr"]) if np.isfinite(lr)
    ]
    worst = float(np.max(np.where(np.isfinite(steps), steps, np.inf)))
    return claims.Check(
        f"Figure 10: {arch} best loss against depth",
        "largest step of lg(best final loss)",
        worst,
        0.0,
        "falls at every step (step < 0); fragile when a step is smaller than the std over runs",
        op="<=",
        spread=float(max(spreads)) if spreads else None,
        lines=[
            "lg(best final loss) by depth: "
            + ", ".join(f"{int(d)}: {v:.2f}" for d, v in zip(s["depth"], s["lg_excess"]))
        ],
    )


def flat_spread(table, arch, depth):
    """Relative spread of the mean final losses over the rates at which no run diverged."""
    g = table[(table["arch"] == arch) & (table["depth"] == depth)]
    per_lr = g.groupby("lr").agg(mean=("final_loss", "mean"), diverged=("diverged", "any"))
    means = per_lr.loc[~per_lr["diverged"], "mean"]
    return float((means.max() - means.min()) / abs(means.max())), float(means.mean()), int(len(means))


@claims.claim(
    "li-fig10-plain-relu-flat-at-64",
    source="Li et al., Section 5.3, caption of Figure 10",
    statement="At depth 64 the Xavier-ReLU and orthogonal-ReLU networks end at the same loss at every "
    "rate at which no run diverged (0.5, the loss of the zero output), so no best rate can "
    "be named.",
    verdict="reproduced",
    falsifier="the 2-shortcut-ReLU networks of depth 64 are as insensitive to the rate",
    falsifier_kind="plausible false statement",
    where=_WHERE,
)
def claim_flat_at_64(falsify: bool = False) -> claims.Check:
    t = committed()
    archs = ["2-shortcut"] if falsify else ["xavier", "orthogonal"]
    parts = []
    for a in archs:
        spread, mean, n = flat_spread(t, a, 64)
        parts.append(
            claims.Check(
                f"{a}-ReLU at depth 64",
                "relative spread of the mean final losses",
                spread,
                fig9.FLAT_TOL,
                "Figure 9's rule for 'the same final loss' (FLAT_TOL)",
                lines=[f"mean {mean:.4f} over {n} rates"],
            )
        )
    return claims.all_of("Figure 10 at depth 64: the rate does not matter", parts)


@functools.lru_cache(maxsize=2)
def _floor_ends(arch: str) -> np.ndarray:
    # three starts (scales 0.01, 1, 3), cached within a process
    return lbfgs_floor(arch, 2, scales=(0.01, 1.0, 3.0), starts_per_scale=1, max_iter=200)["loss"].to_numpy()


def rank_limited_linear_loss(rank: int, n_per_class: int | None = None) -> float:
    """Lowest loss of a linear map ``x -> x + B x`` with ``rank(B) <= rank`` on the whitened digits
    (reduced-rank regression of ``Y - X`` on ``X``). A depth-2 2-shortcut ReLU network with ``h``
    hidden ReLUs can represent a linear map only with ``rank <= h // 2`` (the book's argument in the
    chapter); ``rank = 10`` gives ``L_min``."""
    data = mnist(n_per_class)
    X, Y = data.X.to(torch.float64), data.Y.to(torch.float64)
    R = Y - X
    Sxx = X @ X.T / data.m
    C = torch.linalg.solve(Sxx, X @ R.T / data.m).T  # R ~ C X, least squares
    _, U = torch.linalg.eigh(C @ Sxx @ C.T)
    P = U[:, -rank:] @ U[:, -rank:].T if rank > 0 else torch.zeros_like(C)
    B = P @ C
    return float(0.5 * ((R - B @ X) ** 2).sum() / data.m)


#: the accuracy asked of the L-BFGS floor estimate, relative to the best end found. A chosen
#: resolution, not a measurement: two losses that differ by less than 1% of the floor are read as
#: equal. The L-BFGS ends do not supply it (at depth 2 they spread by about 5% over three starts, at
#: depth 4 by a factor of 2.6: where L-BFGS ends depends on its start), so the chapter also prints
#: the largest accuracy at which each verdict would still stand (:func:`floor_breakeven`).
FLOOR_ACCURACY = 0.01


@claims.claim(
    "li-fig10-depth2-floor",
    source="the book's extended grid of Figure 10 (depth 2; Li et al., Section 5.3)",
    statement="The book's finding: at depth 2 the 2-shortcut-ReLU network, $x + W_2\\,\\mathrm{relu}(W_1 x)$ "
    "with 10 hidden ReLUs, ends Figure 10's gradient descent at its architecture's floor (the "
    "best L-BFGS end from several starts), so its high loss is representation, not "
    "optimisation. Whether the paper's figure covers depth 2 at all is undetermined.",
    verdict="holds",
    falsifier="equal ReLU counts give equal function classes: the 2-shortcut network's loss is the plain "
    "network's floor",
    falsifier_kind="plausible false statement",
    where=_WHERE,
)
def claim_depth2_floor(falsify: bool = False) -> claims.Check:
    s = summarise(committed())
    row = s[(s["arch"] == "2-shortcut") & (s["depth"] == 2)].iloc[0]
    t = committed()
    g = t[(t["arch"] == "2-shortcut") & (t["depth"] == 2) & np.isclose(t["lr"], row["best_lr"])]
    gd_spread = float(g["final_loss"].max() - g["final_loss"].min())
    fl = _floor_ends("xavier" if falsify else "2-shortcut")
    tol = FLOOR_ACCURACY * float(fl.min()) + gd_spread
    return claims.Check(
        "depth 2: Figure 10's loss against the floor",
        "|best GD final loss - min L-BFGS loss|",
        abs(float(row["final_loss"]) - float(fl.min())),
        tol,
        f"{FLOOR_ACCURACY:g} x the best L-BFGS end (the accuracy asked of the floor estimate) "
        "+ range of the GD runs at the best rate",
        nontrivial=float(row["final_loss"]),
        nontrivial_what="GD final loss",
        nontrivial_min=0.0,
        values={
            "gd": float(row["final_loss"]),
            "lo": float(fl.min()),
            "hi": float(fl.max()),
            "lr": float(row["best_lr"]),
        },
        lines=[
            f"GD {row['final_loss']:.4f}; L-BFGS ({'plain' if falsify else '2-shortcut'}) "
            f"{fl.min():.4f} to {fl.max():.4f}"
        ],
    )


#: where :func:`reproduce_floor` stores the depth-4 L-BFGS runs (``results/fig10_floor/paper``)
FLOOR_DIR = "fig10_floor"
#: the stored L-BFGS runs of the 2-shortcut-ReLU network at depth 4: two starts
#: per scale, 3,000 iterations each (minutes: too slow for the ledger page, so stored)
FLOOR_CONFIG = {
    "arch": "2-shortcut",
    "depth": 4,
    "scales": [0.01, 1.0, 3.0],
    "starts_per_scale": 2,
    "seed": 0,
    "max_iter": 3000,
    "n_per_class": None,
}


def reproduce_floor(config: dict | None = None, out=None) -> pd.DataFrame:
    """Run :func:`lbfgs_floor` with ``config`` (default :data:`FLOOR_CONFIG`) and store ``table.csv``
    (one row per start, with its wall time) and ``provenance.json`` under
    ``<out>/fig10_floor/paper/``. Run it as
    ``python -c "from resnet_nb.experiments import fig10; fig10.reproduce_floor()"``."""
    import datetime as _dt
    import json
    import os
    import time

    config = dict(FLOOR_CONFIG if config is None else config)
    folder = store.results_dir(FLOOR_DIR, "paper", out)
    folder.mkdir(parents=True, exist_ok=True)
    parts, t0 = [], time.perf_counter()
    for scale in config["scales"]:
        t = time.perf_counter()
        part = lbfgs_floor(
            config["arch"],
            config["depth"],
            scales=(float(scale),),
            starts_per_scale=config["starts_per_scale"],
            seed=config["seed"],
            max_iter=config["max_iter"],
            n_per_class=config["n_per_class"],
        )
        part["wall_time_s_per_start"] = round((time.perf_counter() - t) / len(part), 1)
        parts.append(part)
    table = pd.concat(parts, ignore_index=True)
    table.to_csv(folder / "table.csv", index=False)
    prov = dict(
        store.provenance("cpu"),
        figure=FLOOR_DIR,
        scale="paper",
        config=config,
        items=len(table),
        items_wall_time_s=round(time.perf_counter() - t0, 1),
        complete=True,
        command='python -c "from resnet_nb.experiments import fig10; fig10.reproduce_floor()"',
        written_utc=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    )
    tmp = folder / ".provenance.json.tmp"
    tmp.write_text(json.dumps(prov, indent=1, sort_keys=True))
    os.replace(tmp, folder / "provenance.json")
    return table


@functools.lru_cache(maxsize=1)
def committed_floor() -> pd.DataFrame:
    """The stored depth-4 L-BFGS runs of :func:`reproduce_floor` (see :func:`common.committed`)."""
    return common.committed(FLOOR_DIR)


def gd_at_best(arch: str, depth: int) -> dict:
    """Figure 10's committed gradient descent at the best rate of ``arch`` at ``depth``: the mean final
    loss (the figure's point), the best rate and the range (max - min) of the final losses of its runs."""
    t = committed()
    s = summarise(t)
    row = s[(s["arch"] == arch) & (s["depth"] == depth)].iloc[0]
    g = t[(t["arch"] == arch) & (t["depth"] == depth) & np.isclose(t["lr"], row["best_lr"])]["final_loss"]
    return {
        "loss": float(row["final_loss"]),
        "lr": float(row["best_lr"]),
        "lo": float(g.min()),
        "hi": float(g.max()),
        "range": float(g.max() - g.min()),
    }


@claims.claim(
    "li-fig10-depth4-above-floor",
    source="the book's extended grid of Figure 10 (depth 4; Li et al., Section 5.3)",
    statement="The book's finding: at depth 4, unlike depth 2, Figure 10's gradient descent (1,000 epochs "
    "at the best rate) ends the 2-shortcut-ReLU network above what its architecture can "
    "reach: L-BFGS (stored run, several starts) ends lower by more than the accuracy asked "
    "of a floor estimate plus the range of the gradient-descent runs. The depth-4 point of "
    "Figure 10 is therefore a result of the optimiser and its budget, not of what the "
    "architecture can represent.",
    verdict="holds",
    falsifier="as at depth 2, gradient descent at depth 4 ends at the architecture's floor: within the "
    "accuracy asked of a floor estimate plus the range of its runs of the best stored L-BFGS end "
    "(the check's complement on the same data; the chapter adds a negative control, the "
    "comparison at depth 2, where gradient descent does reach the floor)",
    falsifier_kind="implied by the check",
    where=_WHERE,
)
def claim_depth4_floor(falsify: bool = False) -> claims.Check:
    gd, fl = gd_at_best("2-shortcut", 4), _stored_floor4()
    tol = FLOOR_ACCURACY * float(fl.min()) + gd["range"]
    diff = gd["loss"] - float(fl.min())
    what = "at the floor (|difference| within it)" if falsify else "above the floor (difference exceeds it)"
    return claims.Check(
        "depth 4: Figure 10's gradient descent " + ("at" if falsify else "above") + " the L-BFGS floor",
        (
            "|best GD final loss (run mean) - min L-BFGS loss|"
            if falsify
            else "best GD final loss (run mean) - min L-BFGS loss"
        ),
        abs(diff) if falsify else diff,
        tol,
        f"{FLOOR_ACCURACY:g} x the best L-BFGS end (the accuracy asked of the floor estimate) "
        f"+ range of the GD runs at the best rate; GD is {what}",
        op="<=" if falsify else ">=",
        nontrivial=gd["loss"],
        nontrivial_what="GD final loss",
        nontrivial_min=0.0,
        values={
            "gd": gd["loss"],
            "gd_lo": gd["lo"],
            "gd_hi": gd["hi"],
            "lr": gd["lr"],
            "range": gd["range"],
            "lo": float(fl.min()),
            "hi": float(fl.max()),
            "n": int(len(fl)),
        },
        lines=[
            f"GD {gd['loss']:.4f} (runs {gd['lo']:.4f} to {gd['hi']:.4f}, rate {gd['lr']:.3g}); "
            f"L-BFGS {fl.min():.4f} to {fl.max():.4f} over {len(fl)} starts"
        ],
    )


def _stored_floor4() -> np.ndarray:
    stored = committed_floor()
    if stored is None:
        raise FileNotFoundError("no stored depth-4 L-BFGS run: run fig10.reproduce_floor()")
    return stored["loss"].to_numpy(dtype=float)


def depth4_floor_negative_control() -> claims.Check:
    """Negative control of :func:`claim_depth4_floor`: its comparison ("GD above the floor") applied at
    depth 2 (L-BFGS from three starts, computed live), where gradient descent does reach the floor,
    so it must fail."""
    gd, fl = gd_at_best("2-shortcut", 2), _floor_ends("2-shortcut")
    tol = FLOOR_ACCURACY * float(fl.min()) + gd["range"]
    return claims.Check(
        "negative control, depth 2: gradient descent above the L-BFGS floor",
        "best GD final loss (run mean) - min L-BFGS loss",
        gd["loss"] - float(fl.min()),
        tol,
        f"{FLOOR_ACCURACY:g} x the best L-BFGS end + range of the GD runs at the best rate",
        op=">=",
        nontrivial=gd["loss"],
        nontrivial_what="GD final loss",
        nontrivial_min=0.0,
        lines=[f"GD {gd['loss']:.4f}; L-BFGS {fl.min():.4f} to {fl.max():.4f}"],
    )


def floor_breakeven(gd_loss: float, gd_range: float, floor: float) -> float:
    """The relative floor accuracy at which ``gd_loss`` stops counting as different from ``floor``:
    the verdict "different" stands for every accuracy below it (negative: never different)."""
    return (abs(gd_loss - floor) - gd_range) / floor


def he_against_xavier(table: pd.DataFrame, he_table: pd.DataFrame) -> pd.DataFrame:
    """He against Xavier at every depth: the mean final loss of each at its best rate (the figure's
    point), the run-to-run spread of their difference (fig6.ordering's: the root sum of squares of
    the two standard deviations over runs, ddof 1) and the verdict "worse", "better" or
    "unresolved" (|difference| not larger than one spread). Where Xavier has no best rate (flat at
    depth 64) its spread is the largest over the rates at which no run diverged."""
    t = pd.concat([table, he_table], ignore_index=True)
    s = summarise(t)
    rows = []
    for depth in sorted(he_table["depth"].unique()):
        r, sd = {}, {}
        for a in ("xavier", "he"):
            row = s[(s["arch"] == a) & (s["depth"] == depth)].iloc[0]
            g = t[(t["arch"] == a) & (t["depth"] == depth)]
            if np.isfinite(row["best_lr"]):
                sd[a] = float(np.std(g[np.isclose(g["lr"], row["best_lr"])]["final_loss"], ddof=1))
            else:
                ok = g.groupby("lr").filter(lambda x: not x["diverged"].any())
                sd[a] = float(ok.groupby("lr")["final_loss"].std(ddof=1).max())
            r[a] = float(row["final_loss"])
        spread = math.hypot(sd["xavier"], sd["he"])
        d = r["he"] - r["xavier"]
        verdict = "unresolved" if abs(d) <= spread else ("worse" if d > 0 else "better")
        rows.append(
            {"depth": int(depth), "he": r["he"], "xavier": r["xavier"], "diff": d, "spread": spread, "verdict": verdict}
        )
    return pd.DataFrame(rows)


def floor_comparison(floor_loss: float, arch: str, depth: int = 4) -> str:
    """How the L-BFGS floor ``floor_loss`` compares with Figure 10's gradient descent of ``arch``
    at ``depth`` (:func:`gd_at_best`), decided like the floor checks: "about equal to" within
    :data:`FLOOR_ACCURACY` of the floor plus the range of the gradient-descent runs, else "below"
    or "above"."""
    floor_loss = require_float("floor_loss", floor_loss, low=0)
    g = gd_at_best(arch, depth)
    if abs(floor_loss - g["loss"]) <= FLOOR_ACCURACY * floor_loss + g["range"]:
        return "about equal to"
    return "below" if floor_loss < g["loss"] else "above"


def first_all_diverged(table: pd.DataFrame, arch: str, depth: int) -> float:
    """The smallest learning rate at which every run of ``arch`` at ``depth`` diverged (inf when
    no rate diverged in every run): where a larger initial scale lowers the rates a network
    trains at."""
    g = table[(table["arch"] == arch) & (table["depth"] == depth)]
    if g.empty:
        raise ValueError(f"no runs of {arch!r} at depth {depth} in the table")
    every = g.groupby("lr")["diverged"].all()
    return float(every[every].index.min()) if every.any() else math.inf
