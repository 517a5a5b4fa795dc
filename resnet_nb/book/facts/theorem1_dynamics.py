"""The numbers the prose of book/theorem1_dynamics.ipynb quotes, section by section: each function
selects them from the chapter's results and formats them as the page shows them."""

from __future__ import annotations

from resnet_nb.book import show
from resnet_nb.core.init import SMALL_SCALE

__all__ = ["opening_facts"]


def opening_facts(LR, long, long_rows, sweep, sweep_rows) -> show.Facts:
    """Gradient descent from the small start, eight seeds trained together."""
    small_scale = show.num(SMALL_SCALE)  # the paper's perturbation of the zero start (Section 4.1)
    n_spike = int(sweep_rows["spike"].sum())
    assert 1 <= n_spike < len(sweep_rows)
    n_seeds_s, n_spike_s = show.count(len(sweep_rows)), show.count(n_spike)
    n_calm = show.count(len(sweep_rows) - n_spike)
    lr_s, edge, sig_s = show.num(LR), show.num(sweep["edge"]), show.num(sweep["sigma_max"], 3)
    assert long["seeds"] == sweep["seeds"] and long["lr"] == LR
    n_spike_long = show.count(int(long_rows["spike"].sum()))
    ep_short, ep_long = show.count(sweep["gaps"].shape[1] - 1), show.count(long["gaps"].shape[1] - 1)
    # where the sharpness ends: runs that never reach 2/eta settle below it, at a run-dependent value
    reached = long_rows["first_above"] >= 0
    settled = long_rows.loc[~reached, "lam_final"]
    assert int(reached.sum()) == 2 and settled.max() < long["edge"]  # one catapult, one hover (below)
    end_lo, end_hi = show.num(settled.min(), 2), show.num(settled.max(), 2)
    n_settled, n_reach = show.count(len(settled)), show.count(int(reached.sum()))
    # settled runs whose largest sampled sharpness is the last sample: still creeping up at the end
    n_creep = show.count(int((long_rows.loc[~reached, "peak_epoch"] == long["epochs"][-1]).sum()))
    return show.Facts(
        edge=edge,
        end_hi=end_hi,
        end_lo=end_lo,
        ep_long=ep_long,
        ep_short=ep_short,
        lr_s=lr_s,
        n_calm=n_calm,
        n_creep=n_creep,
        n_reach=n_reach,
        n_seeds_s=n_seeds_s,
        n_settled=n_settled,
        n_spike_long=n_spike_long,
        n_spike_s=n_spike_s,
        sig_s=sig_s,
        small_scale=small_scale,
    )
