"""Figure 6 of Li et al. (the spectrum of the Hessian along training, linear networks): its rows
against autograd, the first step of the orthogonal networks, the minimiser, and the ordering of
the condition numbers that the claims decide."""

import numpy as np
import pandas as pd
import pytest

from resnet_nb.core import hessians
from resnet_nb.experiments import fig6
from resnet_nb.shared.common import initial_weights, mnist, network


def test_fig6_spectrum_rows_against_autograd():
    item = {
        "figure": "fig6",
        "arch": "orthogonal",
        "depth": 2,
        "relu": True,
        "lr": 0.1,
        "epochs": 3,
        "points": 2,
        "run": 0,
        "seed": 0,
        "n_per_class": 5,
    }
    rows = pd.DataFrame(fig6.run_one(item))
    h = rows[rows["kind"] == "hessian"].sort_values("epoch")
    assert h["epoch"].tolist() == [0, 3] and len(rows[rows["kind"] == "trajectory"]) == 4
    net = network("orthogonal", 2, relu=True)
    W0 = initial_weights("orthogonal", net, seed=0)
    eigs = hessians.spectrum(hessians.hessian(net, W0, mnist(5)))
    assert h["lam_max"].iloc[0] == pytest.approx(np.abs(eigs).max(), rel=1e-9)
    assert h["index"].iloc[0] == pytest.approx(hessians.index(eigs), abs=1e-12)


def test_minimiser_is_a_minimiser():
    from resnet_nb.core.losses import loss_stats
    from resnet_nb.shared.common import mnist, network

    for arch in ("orthogonal", "2-shortcut"):
        W = fig6.minimiser(arch, 6)
        assert abs(float(loss_stats(network(arch, 6), W, mnist().stats())) - fig6.mnist_optimum()) < 1e-12


def test_first_step_collapses_the_end_to_end_map():
    f = fig6.first_step()
    assert f["eta_lam"] > 2 and f["loss1"] < f["loss0"] / 5
    assert abs(f["shrink"] - f["shrink_pred"]) < 0.05
    # lambda_max from the exact spectrum: the committed run 0 (seed 0) at epochs 0 and 1, to rounding
    h = fig6.committed("fig6")
    h = h[(h["kind"] == "hessian") & (h["arch"] == "orthogonal") & (h["run"] == 0)].set_index("epoch")
    for e in (0, 1):
        assert f[f"loss{e}"] == pytest.approx(h.loc[e, "loss"], rel=1e-9)
        assert f[f"lam_max{e}"] == pytest.approx(h.loc[e, "lam_max"], rel=1e-8)


def _hessian_table(x0, x1, arch="orthogonal"):
    import numpy as np
    import pandas as pd

    opt = fig6.mnist_optimum()
    rows = [
        {"kind": "hessian", "arch": arch, "run": r, "epoch": e, "loss": opt + 10.0**x}
        for e, xs in ((0, x0), (1, x1))
        for r, x in enumerate(xs)
    ]
    rows.append({"kind": "trajectory", "arch": arch, "run": 0, "epoch": 5, "loss": np.nan})
    return pd.DataFrame(rows)


def test_first_step_gap_spans_lowest_start_to_highest_after_one_step():
    lo, hi = fig6.first_step_gap(_hessian_table([0.3, 0.1, 0.2], [-1.5, -1.2, -1.4]))
    assert lo == pytest.approx(-1.2) and hi == pytest.approx(0.1)
    assert fig6.first_step_gap(_hessian_table([0.1], [-0.2])) is None  # narrower than 0.5
    assert fig6.first_step_gap(_hessian_table([0.1], [-0.2]), min_width=0.2) is not None
    assert fig6.first_step_gap(_hessian_table([0.1], [-1.0]), arch="2-shortcut") is None  # no such runs
    t = _hessian_table([0.1], [-1.0])
    assert fig6.first_step_gap(t[t["epoch"] != 1]) is None  # no Hessian at epoch 1


def test_first_step_gap_of_the_committed_figure6():
    import numpy as np

    t = fig6.committed("fig6")
    lo, hi = fig6.first_step_gap(t)
    h = t[(t["kind"] == "hessian") & (t["arch"] == "orthogonal")]
    x = np.log10(h["loss"] - fig6.mnist_optimum())
    assert (lo, hi) == (x[h["epoch"] == 1].max(), x[h["epoch"] == 0].min()) and hi - lo >= 0.5


def test_the_stable_rate_keeps_the_first_step_stable():
    p = fig6.STABLE_SCALES["paper"]
    assert fig6.first_step(depth=p["depth"], lr=p["lr"])["eta_lam"] < 2  # eta lambda_max(0) below 2


# --- what fig6.ordering reports: the raw difference, and losses left out ---------------------
def _two_arch_table(diffs, spread=0.1, x=None):
    """A toy Hessian table: 2 runs per architecture with index curves 0.5 and 0.5 + diff (+- spread/2)
    at the losses l_min + 10**x."""
    import numpy as np
    import pandas as pd

    x = np.linspace(0, -3, len(diffs)) if x is None else x  # the loss falls along a run
    rows = []
    for run, s in enumerate((-spread / 2, spread / 2)):
        for e, (xv, dv) in enumerate(zip(x, diffs)):
            loss = fig6.mnist_optimum() + 10**xv
            for arch, v in (("orthogonal", 0.5), ("2-shortcut", 0.5 + dv + s)):
                rows.append(
                    dict(
                        kind="hessian",
                        relu=False,
                        arch=arch,
                        run=run,
                        epoch=e,
                        loss=loss,
                        index=v,
                        lam_max=1.0,
                        lam_p10=0.1,
                        resolved=True,
                    )
                )
    return pd.DataFrame(rows)


def test_ordering_stores_the_raw_difference_and_tests_it_minus_the_spread():
    import numpy as np

    t = _two_arch_table([-0.3, -0.2, 0.05, -0.2, -0.3])
    c = fig6.ordering(t, "index", False, "2-shortcut", "orthogonal", "index", spreads=1.0)
    v = c.values
    exact = np.interp(v["grid"], np.linspace(-3, 0, 5), [-0.3, -0.2, 0.05, -0.2, -0.3])
    assert np.allclose(v["diff"], exact)  # raw: the run-mean difference, which crosses zero
    assert np.allclose(v["margin"], v["diff"] - v["sd"], equal_nan=True)
    assert c.passed and c.value < 0  # within one spread (0.1 * sqrt(2) > 0.05)
    assert v["excess"] == pytest.approx(exact.max()) and -1.65 <= v["cross_lo"] <= v["cross_hi"] <= -1.35
    strict = fig6.ordering(t, "index", False, "2-shortcut", "orthogonal", "index")
    assert not strict.passed  # the same table fails the strict ordering: the raw means do cross


def test_ordering_leaves_out_an_excluded_range():
    import numpy as np

    t = _two_arch_table([-0.3, -0.3, 0.2, -0.3, -0.3], spread=0.01)  # crosses at lg = -1.5
    assert not fig6.ordering(t, "index", False, "2-shortcut", "orthogonal", "index").passed
    c = fig6.ordering(t, "index", False, "2-shortcut", "orthogonal", "index", exclude=(-2.0, -1.0))
    assert c.passed and np.isnan(c.values["diff"][(c.values["grid"] >= -2) & (c.values["grid"] <= -1)]).all()


def test_fig6_stable_raw_means_cross_at_intermediate_loss_within_the_spread():
    v = fig6.claim_shortcut_better_conditioned().values
    assert -2.5 < v["cross_lo"] < v["cross_hi"] < 0 and 0 < v["excess"] < v["sd_excess"]
