"""The analog of Figure 2 of Li et al. (weight norm against loss while training): the path of the
norm, the crossings of the depths' curves, and the committed larger run."""

import math

from resnet_nb.experiments import fig2


def test_fig2_norm_path_peaks_before_the_first_drop_and_falls():
    t = fig2.committed()
    p = fig2.norm_path(t)
    assert (p["peak_epoch"] < fig2.lr_drops(t)[0]).all()
    assert (p["fall_before_drop"] > 0).all() and (p["fall_after_drop"] > 0).all()
    assert (p["final_minus_initial"] < 0).sum() == 2


def test_fig2_crossings_and_same_epoch_worst():
    t = fig2.committed()
    ct = fig2.crossing_table(t)
    n = sum(len(v) for s in sorted(t["seed"].unique()) for v in fig2.ordering(t[t["seed"] == s])["crossings"].values())
    assert len(ct) == n
    w = fig2.same_epoch_worst(t)
    assert math.isclose(w["ratio"], fig2.ordering(t)["same_epoch_worst_ratio"])
    assert w["spread"] > 0
