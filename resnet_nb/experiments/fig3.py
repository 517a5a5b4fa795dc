"""Figure 3 of Li et al. (chapter: book/exp_dynamics.ipynb):
average Frobenius norm of the weight matrices against the loss, while training.

2-shortcut networks of several depths, small initialisation (Xavier times 0.01, section 4.1:
the paper's caption says "zero initialized", and its text explains that zero is perturbed by
this small amount to leave the saddle), full-batch gradient descent on whitened MNIST;
without nonlinearities and with ReLUs at the mid positions. The claim under test: the deeper
the network, the smaller its average weight norm, during training and at its end.

One work item is one (depth, relu) with all runs batched. Rows: one per run and recorded
epoch (about ``points`` log-spaced epochs), with the loss and the average of
``||W_{r,l}||_F`` over the ``L`` matrices.

The x-axis is lg(loss - L_min) for linear networks. The optimum of a ReLU network is not
known (and the linear L_min is not a lower bound for it), so for ReLU networks the x-axis is
lg(loss), as the paper does for Figure 10.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from resnet_nb.core import claims
from resnet_nb.core.checks import require_float, require_int
from resnet_nb.core.paths import results_dir
from resnet_nb.core.train import gradient_descent
from resnet_nb.shared.common import committed, initial_weights, interpolate_on_grid, mnist, mnist_optimum, network

__all__ = ["SCALES", "configurations", "run_one", "curves", "record_epochs"]

SCALES = {
    "default": {
        "depths": [2, 4, 8, 16],
        "relu": [False, True],
        "lr": 0.1,
        "epochs": 1000,
        "runs": 2,
        "points": 60,
        "seed": 0,
        "n_per_class": 20,
    },
    "paper": {
        "depths": [2, 4, 8, 16, 32, 64],
        "relu": [False, True],
        "lr": 0.1,
        "epochs": 1000,
        "runs": 10,
        "points": 100,
        "seed": 0,
        "n_per_class": None,
    },
}


def record_epochs(epochs: int, points: int) -> list[int]:
    """About ``points`` epochs from 0 to ``epochs``, log-spaced (every epoch early on), distinct."""
    e = np.unique(np.round(np.geomspace(1, epochs + 1, points) - 1).astype(int))
    return sorted(set(e.tolist()) | {0, epochs})


def configurations(config: dict) -> list[dict]:
    """One item per (depth, with or without ReLU)."""
    for key in ("depths", "relu", "lr", "epochs", "runs", "points", "seed"):
        if key not in config:
            raise ValueError(f"config must have the key {key!r}; got keys {sorted(config)}")
    for L in config["depths"]:
        if require_int("depths entry", L) % 2:
            raise ValueError(f"depths must be even (2-shortcut networks), got {L}")
    require_float("lr", config["lr"], low=0.0, low_open=True)
    items = []
    for relu in config["relu"]:
        if not isinstance(relu, bool):
            raise ValueError(f"relu entries must be True or False, got {relu!r}")
        for L in config["depths"]:
            item = {
                "figure": "fig3",
                "depth": int(L),
                "relu": relu,
                "lr": float(config["lr"]),
                "epochs": require_int("epochs", config["epochs"]),
                "runs": require_int("runs", config["runs"]),
                "points": require_int("points", config["points"], minimum=2),
                "seed": require_int("seed", config["seed"], minimum=0),
            }
            if relu and config.get("n_per_class") is not None:
                item["n_per_class"] = int(config["n_per_class"])
            items.append(item)
    return items


def run_one(item: dict, device: str = "cpu") -> list[dict]:
    """Train the runs of one (depth, relu); loss and average weight norm at the recorded epochs."""
    net = network("2-shortcut", item["depth"], relu=item["relu"])
    W0 = initial_weights("2-shortcut", net, seed=item["seed"], runs=item["runs"], device=device)
    data = mnist(item.get("n_per_class")).to(device=device)
    epochs = record_epochs(item["epochs"], item["points"])
    res = gradient_descent(net, W0, data, lr=item["lr"], epochs=item["epochs"], snapshot_epochs=epochs)
    rows = []
    for e in epochs:
        norms = torch.linalg.matrix_norm(res.snapshots[e]).mean(dim=(-2, -1)).cpu().numpy()  # (runs,)
        for r in range(item["runs"]):
            rows.append(
                {
                    "depth": item["depth"],
                    "relu": item["relu"],
                    "run": r,
                    "epoch": int(e),
                    "loss": float(res.losses[r, e]),
                    "avg_norm": float(norms[r]),
                    "diverged": bool(res.diverged[r]),
                }
            )
    return rows


def _x(table: pd.DataFrame, relu: bool, loss_opt: float):
    loss = table["loss"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.log10(loss) if relu else np.log10(loss - loss_opt)
    return np.where(np.isfinite(x), x, np.nan)  # a loss at L_min to rounding has no logarithm


def curves(table: pd.DataFrame, relu: bool, grid_points: int = 60, loss_opt: float | None = None) -> pd.DataFrame:
    """Per depth: the average norm, averaged over runs after interpolating each run onto a common
    grid of the x-axis (lg(loss - L_min), or lg(loss) with ReLU). Grid points that not every run
    reached are dropped."""
    loss_opt = mnist_optimum() if loss_opt is None else loss_opt
    t = table[table["relu"] == relu]
    out = []
    for depth, g in t.groupby("depth"):
        x = _x(g, relu, loss_opt)
        per_run = [x[(g["run"] == r).to_numpy()] for r in g["run"].unique()]
        if any(np.isfinite(v).sum() < 2 for v in per_run):
            continue
        lo = max(np.nanmin(v) for v in per_run)
        hi = min(np.nanmax(v) for v in per_run)
        if not hi > lo:
            continue
        grid = np.linspace(lo, hi, grid_points)
        ys = [
            interpolate_on_grid(x[(g["run"] == r).to_numpy()], g.loc[g["run"] == r, "avg_norm"], grid)
            for r in g["run"].unique()
        ]
        ys = np.array(ys)
        keep = np.isfinite(ys).all(axis=0)
        for xv, m, s in zip(grid[keep], ys[:, keep].mean(0), ys[:, keep].std(0)):
            out.append({"depth": int(depth), "x": float(xv), "avg_norm": float(m), "std": float(s)})
    return pd.DataFrame(out)


def depth_reversals(table: pd.DataFrame, relu: bool, points: int = 200) -> list[tuple]:
    """Where the depth ordering of the run-mean curves fails: on a common grid of the x-axis that
    every depth reaches (without its last point, the initial loss), each (shallower, deeper, x_lo,
    x_hi) for which the deeper network's average norm is not smaller. An empty list means "at
    every loss level the norm falls with depth"."""
    c = curves(table, relu)
    depths = sorted(c["depth"].unique())
    lo = max(c.loc[c["depth"] == d, "x"].min() for d in depths)
    hi = min(c.loc[c["depth"] == d, "x"].max() for d in depths)
    grid = np.linspace(lo, hi, points)[:-1]  # the last point is the common start, where the norms tie
    y = [np.interp(grid, c.loc[c["depth"] == d, "x"], c.loc[c["depth"] == d, "avg_norm"]) for d in depths]
    out = []
    for i in range(len(depths) - 1):
        bad = grid[y[i + 1] >= y[i]]
        if bad.size:
            out.append((int(depths[i]), int(depths[i + 1]), float(bad.min()), float(bad.max())))
    return out


# ------------------------------------------------------------------------------------------
# Claims (decided on the committed paper-scale table)
# ------------------------------------------------------------------------------------------

#: a decrease counts when it exceeds this many run-to-run standard deviations
SPREADS = 3


def final_norms(table: pd.DataFrame, relu: bool) -> pd.DataFrame:
    """Per depth: mean and run-to-run standard deviation of the average norm at the last epoch."""
    g = table[table["relu"] == relu]
    end = g[g["epoch"] == g["epoch"].max()]
    return end.groupby("depth")["avg_norm"].agg(["mean", "std"]).sort_index()


def deeper_smaller(table: pd.DataFrame, factor: float = 1.0) -> claims.Check:
    """Largest step ``norm(next depth) - factor * norm(depth)`` of the final mean average norm, over
    successive depths, linear and ReLU: it must be below ``-SPREADS`` run-to-run spreads.

    ``factor = 1``: deeper is smaller. ``factor = 1/2`` on a doubling of the depth: the norm falls
    like 1/L (the falsifier)."""
    worst, spread, parts = -np.inf, 0.0, {}
    for relu in (False, True):
        s = final_norms(table, relu)
        m = s["mean"].to_numpy()
        worst = max(worst, float((m[1:] - factor * m[:-1]).max()))
        spread = max(spread, float(s["std"].max()))
        parts["relu" if relu else "linear"] = s["mean"].to_dict()
    tol = -SPREADS * spread
    what = "norm(next depth) - norm(depth)" if factor == 1 else f"norm(next depth) - {factor:g} norm(depth)"
    return claims.Check(
        "deeper 2-shortcut networks end with smaller weights" if factor == 1 else "the average norm falls like 1/depth",
        f"largest {what} (linear and ReLU)",
        worst,
        tol,
        f"{SPREADS} x the run-to-run standard deviation of the final average norm below zero",
        op="<=",
        nontrivial=spread,
        nontrivial_what="run-to-run standard deviation (10 runs)",
        nontrivial_min=0.0,
        spread=spread,
        values=parts,
    )


@claims.claim(
    "li-fig3-deeper-smaller-norms",
    source="Li et al., Section 4.1, Figure 3",
    statement=r"Deeper 2-shortcut networks end training with smaller weights: after 1,000 epochs from the "
    r"small initialisation (depths 2 to 64, 10 runs, linear and ReLU at mid) the mean average "
    r"Frobenius norm falls at every doubling of the depth, by more than 3 run-to-run spreads.",
    verdict="reproduced",
    falsifier=r"the norm falls like $1/L$ (each doubling halves it), as if the end-to-end change were split "
    r"equally among the matrices",
    falsifier_kind="plausible false statement",
    where=["tests/experiments/test_claims.py", "book/exp_dynamics.ipynb"],
)
def claim_deeper_smaller(falsify: bool = False) -> claims.Check:
    return deeper_smaller(committed("fig3"), factor=0.5 if falsify else 1.0)


# ------------------------------------------------------------------------------------------
# The loss spikes of the ReLU runs (edge of stability)
# ------------------------------------------------------------------------------------------
def spikes(table: pd.DataFrame, relu: bool = True, rise: float = 1.05) -> pd.DataFrame:
    """Every recorded epoch at which a run's loss is more than ``rise`` times its loss at the
    previous recorded epoch: one row per (depth, run, epoch)."""
    rows = []
    for (depth, run), g in table[table["relu"] == relu].groupby(["depth", "run"]):
        g = g.sort_values("epoch")
        loss, ep = g["loss"].to_numpy(), g["epoch"].to_numpy()
        for i in np.flatnonzero(loss[1:] > rise * loss[:-1]):
            rows.append(
                {"depth": int(depth), "run": int(run), "epoch": int(ep[i + 1]), "ratio": float(loss[i + 1] / loss[i])}
            )
    return pd.DataFrame(rows, columns=["depth", "run", "epoch", "ratio"])


def top_eigenvalue(net, W, data, iters: int = 40) -> float:
    """The largest eigenvalue of the Hessian of the sample loss at ``W``, by power iteration on
    Hessian-vector products (forward over reverse), shifted so that it converges to the top of the
    spectrum even when a negative eigenvalue is larger in size."""
    from resnet_nb.core.losses import loss_samples

    f = lambda w: loss_samples(net, w, data)  # noqa: E731
    W = W.detach().to(torch.float64)
    hvp = lambda v: torch.func.jvp(torch.func.grad(f), (W,), (v,))[1]  # noqa: E731
    gen = torch.Generator().manual_seed(0)
    v = torch.randn(W.shape, generator=gen, dtype=W.dtype)
    v = v / torch.linalg.vector_norm(v)
    lam = 0.0
    for _ in range(iters):  # |lambda| max first
        w = hvp(v)
        lam = float(torch.linalg.vector_norm(w))
        v = w / lam
    top = float((v * hvp(v)).sum())
    if top > 0:
        return top
    shift = lam  # the largest |lambda| was negative: iterate on H + shift I
    for _ in range(iters):
        w = hvp(v) + shift * v
        v = w / torch.linalg.vector_norm(w)
    return float((v * hvp(v)).sum())


def sharpness_along(
    depth: int = 4,
    run: int = 0,
    epochs=range(200, 521, 20),
    lr: float = SCALES["paper"]["lr"],
    n_per_class=SCALES["paper"]["n_per_class"],
    seed: int = SCALES["paper"]["seed"],
    runs: int = SCALES["paper"]["runs"],
) -> pd.DataFrame:
    """Retrain run ``run`` of the ReLU networks of depth ``depth`` (the committed paper-scale setting)
    and record, at ``epochs``, the loss and ``lr * lambda_max`` of the Hessian: gradient descent is
    stable on a quadratic only while ``lr * lambda_max < 2``."""
    net = network("2-shortcut", depth, relu=True)
    W0 = initial_weights("2-shortcut", net, seed=seed, runs=runs)[run]
    data = mnist(n_per_class)
    epochs = sorted(int(e) for e in epochs)
    res = gradient_descent(net, W0, data, lr=lr, epochs=epochs[-1], snapshot_epochs=epochs)
    losses = np.asarray(res.losses)
    rows = []
    for e in epochs:
        lam = top_eigenvalue(net, res.snapshots[e], data)
        rows.append({"epoch": e, "loss": float(losses[e]), "lam_max": lam, "eta_lam": lr * lam})
    out = pd.DataFrame(rows)
    out.attrs["losses"] = losses
    return out


#: where :func:`reproduce_sharpness` stores its record (a single run: minutes on one core)
SHARPNESS_DIR = "fig3_sharpness"


def sharpness_item(**kwargs) -> dict:
    """The work item of :func:`reproduce_sharpness`: the set's name and every argument of
    :func:`sharpness_along` (its defaults, overridden by ``kwargs``)."""
    import inspect

    defaults = {k: v.default for k, v in inspect.signature(sharpness_along).parameters.items()}
    unknown = sorted(set(kwargs) - set(defaults))
    if unknown:
        raise ValueError(f"kwargs: sharpness_along has no argument {unknown[0]!r}")
    config = dict(defaults, **kwargs)
    config["epochs"] = sorted(int(e) for e in config["epochs"])
    return dict(set=SHARPNESS_DIR, **config)


def sharpness_rows(table: pd.DataFrame) -> list[dict]:
    """The record rows of a :func:`sharpness_along` table: one per epoch with its loss, and at the
    sampled epochs ``lam_max`` and ``eta_lam`` (NaN at the others)."""
    losses = pd.DataFrame({"epoch": np.arange(len(table.attrs["losses"])), "loss": table.attrs["losses"]})
    sampled = table.set_index("epoch")[["lam_max", "eta_lam"]]
    return losses.join(sampled, on="epoch").to_dict("records")


def reproduce_sharpness(out=None, **kwargs) -> pd.DataFrame:
    """Run :func:`sharpness_along` and store it as one record (its item: :func:`sharpness_item`,
    its rows: :func:`sharpness_rows`) under ``<out>/fig3_sharpness/records/``; a run whose sound
    record is there is read back, not recomputed. Returns the sampled table (epoch, loss, lam_max,
    eta_lam) of this run."""
    from resnet_nb.shared.store import record_item

    item = sharpness_item(**kwargs)
    store = results_dir(SHARPNESS_DIR, root=out) / "records"
    return _sharpness_tables(record_item(store, item, lambda: sharpness_rows(sharpness_along(**kwargs))))[0]


def load_sharpness(out=None):
    """The stored run of :func:`reproduce_sharpness` as two tables, the sampled epochs (epoch,
    loss, lam_max, eta_lam) and every epoch's loss (epoch, loss), or None if nothing is stored.
    A damaged record, or more than one stored run, is refused (``ValueError``)."""
    from resnet_nb.shared.store import iter_records

    store = results_dir(SHARPNESS_DIR, root=out) / "records"
    bodies = list(iter_records(store, strict=True))
    if not bodies:
        return None
    if len(bodies) > 1:
        raise ValueError(f"out: {store} holds {len(bodies)} runs, load_sharpness reads a folder of one")
    return _sharpness_tables(bodies[0]["rows"])


def _sharpness_tables(rows: list[dict]):
    """The sampled epochs and every epoch's loss, from the rows of :func:`sharpness_rows`."""
    table = pd.DataFrame(rows)
    sharp = table.dropna(subset=["lam_max"]).reset_index(drop=True)
    return sharp[["epoch", "loss", "lam_max", "eta_lam"]], table[["epoch", "loss"]]
