"""Figure 7 of Li et al.: Figure 6 with ReLUs at the mid positions, against lg(loss).

The same runs as :mod:`.fig6` (orthogonal plain networks with ReLUs at the 2-shortcut
positions, and 2-shortcut networks with ReLUs at mid), with the exact Hessian of the ReLU
network from :func:`resnet_nb.experiments.relu_hessian.hessian_mid_relu`. The optimum of a
ReLU network is unknown, so the x-axis is lg(loss). The default scale uses depth 6 and a
subset of the digits (``n_per_class`` per class) to fit the book's time budget.
"""
from __future__ import annotations

import pandas as pd

from . import engine, fig6

__all__ = ["SCALES", "configurations", "run_one", "run", "plot"]

SCALES = {
    "default": dict(fig6.SCALES["default"], relu=True, n_per_class=20),
    "paper": dict(fig6.SCALES["paper"], relu=True, points=12, runs=2),
}


def configurations(config: dict) -> list[dict]:
    """One item per (architecture, run), with ReLUs."""
    if not config.get("relu", False):
        raise ValueError(f"relu must be True for Figure 7, got {config.get('relu')!r}")
    return fig6.configurations(config, figure="fig7")


def run_one(item: dict, device: str = "cpu") -> list[dict]:
    """See :func:`resnet_nb.experiments.fig6.run_one`."""
    return fig6.run_one(item, device)


def run(config=None, device: str = "cpu", progress: bool = True, store=None) -> pd.DataFrame:
    """Run ``config`` (default scale if None) through the engine."""
    config = SCALES["default"] if config is None else config
    return engine.run_items(__import__(__name__, fromlist=["_"]), config, store_dir=store, device=device,
                            progress=progress)


def plot(table: pd.DataFrame, ax=None):
    """lg|lambda|max and lg|lambda|(0.1) against lg(loss)."""
    return fig6.plot(table, ax=ax, relu=True)
