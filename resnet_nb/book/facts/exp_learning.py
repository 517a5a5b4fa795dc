"""The prose numbers of book/exp_learning.ipynb that need more than one ``show`` call: the He
baseline against Xavier, depth by depth."""

from __future__ import annotations

import pandas as pd

from resnet_nb.book import show

__all__ = ["he_against_xavier_text"]


def he_against_xavier_text(hx: pd.DataFrame, depths) -> show.Text:
    """``"<He> against <Xavier> at depth L (spread s)"`` for each depth, joined by ``"; "``
    (``hx``: :func:`resnet_nb.experiments.fig10.he_against_xavier`, indexed by depth)."""
    missing = [L for L in depths if L not in hx.index]
    if missing:
        raise ValueError(f"depths {missing} are not in the He-against-Xavier table (it has {list(hx.index)})")
    return show.text(
        "; ".join(
            f"{hx.loc[L, 'he']:.3f} against {hx.loc[L, 'xavier']:.3f} at depth {L} (spread {hx.loc[L, 'spread']:.3f})"
            for L in depths
        )
    )
