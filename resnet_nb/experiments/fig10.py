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
"""
from __future__ import annotations

import pandas as pd

from . import engine, fig9
from .common import log_grid

__all__ = ["SCALES", "ARCHS", "configurations", "run_one", "run", "summarise", "plot"]

ARCHS = ("2-shortcut", "xavier", "orthogonal")
SCALES = {
    "default": {"archs": list(ARCHS), "depths": [2, 4, 8, 16], "lrs": log_grid(1e-2, 1, 2), "runs": 2,
                "epochs": 1000, "seed": 0, "n_per_class": 20},
    "paper": {"archs": list(ARCHS), "depths": [2, 4, 8, 16, 32, 64], "lrs": log_grid(1e-3, 10, 2), "runs": 3,
              "epochs": 1000, "seed": 0, "n_per_class": None},
}


def configurations(config: dict) -> list[dict]:
    """One item per (architecture, depth), all runs and learning rates together."""
    items = fig9.configurations({k: v for k, v in config.items() if k != "n_per_class"}, figure="fig10",
                                relu=True, archs_allowed=ARCHS)
    if config.get("n_per_class") is not None:
        items = [dict(it, n_per_class=int(config["n_per_class"])) for it in items]
    return items


def run_one(item: dict, device: str = "cpu") -> list[dict]:
    """Final loss of every run at every learning rate (see :func:`resnet_nb.experiments.fig9.run_one`)."""
    return fig9.run_one(item, device)


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
