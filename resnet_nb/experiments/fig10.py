"""Figure 10 of Li et al.: Figure 9 with ReLUs at the mid positions.

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
(:func:`initial_output_rms`); the He scaling keeps it.
"""
from __future__ import annotations

import math

import pandas as pd
import torch

from . import engine, fig9
from .common import initial_weights, log_grid, mnist, network

__all__ = ["SCALES", "ARCHS", "PAPER_ARCHS", "HE_GAIN", "configurations", "run_one", "run", "summarise",
           "plot", "he_weights", "initial_output_rms"]

#: the paper's three architectures of Figure 10
PAPER_ARCHS = ("2-shortcut", "xavier", "orthogonal")
#: ... and the book's He-scaled plain ReLU baseline
ARCHS = PAPER_ARCHS + ("he",)
#: He et al.'s gain for ReLU: entries of variance gain^2 / fan_in
HE_GAIN = math.sqrt(2.0)
SCALES = {
    "default": {"archs": list(PAPER_ARCHS), "depths": [2, 4, 8, 16], "lrs": log_grid(1e-2, 1, 2), "runs": 2,
                "epochs": 1000, "seed": 0, "n_per_class": 20},
    "paper": {"archs": list(PAPER_ARCHS), "depths": [2, 4, 8, 16, 32, 64], "lrs": log_grid(1e-3, 10, 2), "runs": 3,
              "epochs": 1000, "seed": 0, "n_per_class": None},
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
    items = fig9.configurations(dict(cfg, archs=plain), figure="fig10", relu=True,
                                archs_allowed=PAPER_ARCHS)
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
    from ..train import gradient_descent

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
            rows.append({"arch": "he", "depth": item["depth"], "relu": True, "run": r, "lr": lr,
                         "epochs": item["epochs"], "diverged": diverged,
                         "final_loss": float("nan") if diverged else float(final[r, j])})
    return rows


def initial_output_rms(arch: str, depth: int, seed: int = 0, runs: int = 3, n_per_class: int | None = None,
                       gain_all: bool = False) -> float:
    """Root mean square of the network's output on the whitened digits at initialisation,
    averaged (as a mean square) over ``runs`` draws. ``arch``: one of :data:`ARCHS`."""
    if arch not in ARCHS:
        raise ValueError(f"arch must be one of {ARCHS}, got {arch!r}")
    net = network("xavier" if arch == "he" else arch, depth, relu=True)
    if arch == "he":
        W = he_weights(depth, seed, runs=runs, gain_all=gain_all)
    else:
        W = initial_weights(arch, net, seed=seed, runs=runs)
    X = mnist(n_per_class).X.to(torch.float64)
    ms = [float((net.forward(W[r], X) ** 2).mean()) for r in range(runs)]
    return math.sqrt(sum(ms) / runs)


def run(config=None, device: str = "cpu", progress: bool = True, store=None) -> pd.DataFrame:
    """Run ``config`` (default scale if None) through the engine."""
    config = SCALES["default"] if config is None else config
    return engine.run_items(__import__(__name__, fromlist=["_"]), config, store_dir=store, device=device,
                            progress=progress)


def summarise(table: pd.DataFrame) -> pd.DataFrame:
    """Best learning rate and lg(final loss) per (architecture, depth) (no optimum subtracted)."""
    return fig9.summarise(table, loss_opt=0.0)


def plot(table: pd.DataFrame, ax=None):
    """lg(best final loss) and lg(best learning rate) against lg(depth)."""
    return fig9.plot(table, ax=ax, loss_opt=0.0, relu=True)


#: the He-scaled plain ReLU baseline alone (the book's addition), at the paper's grid
HE_SCALES = {"default": dict(SCALES["default"], archs=["he"]), "paper": dict(SCALES["paper"], archs=["he"])}


def reproduce_he(scale: str = "paper", out=None, compute: bool = True, progress: bool = True):
    """Run (or resume) the He baseline at ``scale`` into ``<out>/fig10_he/<scale>/`` (records,
    ``table.csv``, ``provenance.json``), like the command line does for a figure.

    Run it as ``python -c "from resnet_nb.experiments import fig10; fig10.reproduce_he()"``;
    ``compute=False`` collects the finished items only. Returns the table.
    """
    import sys
    import time

    config = HE_SCALES[scale]
    folder = engine.results_dir("fig10_he", scale, out)
    t0 = time.perf_counter()
    table = engine.run_items(sys.modules[__name__], config, store_dir=folder / "records", progress=progress,
                             compute=compute)
    engine.write_summary(folder, "fig10_he", scale, config, table, "cpu", time.perf_counter() - t0,
                         folder / "records")
    return table
