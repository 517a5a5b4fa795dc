"""The numbers the prose of book/notation.ipynb quotes, section by section: each function
selects them from the chapter's results and formats them as the page shows them."""

from __future__ import annotations

import numpy as np
import pandas as pd

from resnet_nb.book import show

__all__ = ["depth_spread_facts", "convention_facts"]


def depth_spread_facts(span) -> show.Facts:
    """The singular values of the end-to-end map of small residual networks: their range at depth
    64, and how much the largest distance from 1 grows from depth 16 to depth 64."""
    at64 = span.set_index("depth").loc[64]
    span_lo, span_hi = show.fixed(at64.smallest, 3), show.fixed(at64.largest, 3)
    dev = span.set_index("depth")["largest |sigma - 1|"]
    dev_growth = show.num(dev[64] / dev[16], 2)
    assert dev.is_monotonic_increasing  # the prose says the spread grows with depth
    return show.Facts(
        dev_growth=dev_growth,
        span_hi=span_hi,
        span_lo=span_lo,
    )


def convention_facts(Syx, conds, flipped, svs) -> show.Facts:
    """What the convention changes (the singular values of I - Syx) and what it does not (Syx's
    own)."""
    cond_svd, cond_neg = show.num(conds["svd_flip"], 3), show.num(conds["negative diagonal"], 3)
    # what the convention changes (the singular values of I - Syx) and what it does not (Syx's own)
    move = svs["negative diagonal"] / svs["svd_flip"] - 1
    sv_move_lo, sv_move_hi = show.pct(move.min()), show.pct(move.max())
    cond_change = conds["negative diagonal"] / conds["svd_flip"] - 1
    cond_move = show.pct(abs(cond_change))
    svals = lambda M: np.linalg.svd(M, compute_uv=False)  # noqa: E731
    syx_same = np.abs(svals(Syx) - svals(flipped)).max()
    assert syx_same < 1e-12  # a sign flip of the inputs is orthogonal: Syx keeps its singular values
    assert move.min() > 0.02 and abs(cond_change) < move.min()
    conv_table = pd.DataFrame(
        {
            "convention": list(svs),
            "largest": [v[0] for v in svs.values()],
            "smallest": [v[-1] for v in svs.values()],
            "condition number": list(conds.values()),
        }
    )
    conv_table.loc[2] = ["relative change", move[0], move[-1], cond_change]
    return show.Facts(
        cond_move=cond_move,
        cond_neg=cond_neg,
        cond_svd=cond_svd,
        conv_table=conv_table,
        sv_move_hi=sv_move_hi,
        sv_move_lo=sv_move_lo,
    )
