"""Figure 5 of Li et al. (the initial condition number against depth): the rows against autograd
and Theorem 1, unresolved condition numbers, the summary shown in the chapter, and where the
2-shortcut flatness would end."""

import numpy as np
import pandas as pd
import pytest

from resnet_nb.core import hessians
from resnet_nb.experiments import fig5
from resnet_nb.shared.common import initial_weights, mnist, network


def test_fig5_two_shortcut_small_init_is_near_theorem1():
    """Small initialisation (0.01 x Xavier) stays close to the zero point of Theorem 1."""
    (row,) = fig5.run_one({"figure": "fig5", "arch": "2-shortcut", "depth": 4, "run": 0, "seed": 0})
    net = network("2-shortcut", 4)
    eigs = hessians.spectrum(hessians.hessian_at_zero(net, mnist()))
    assert row["cond"] == pytest.approx(hessians.cond_percentile(eigs), rel=0.02)
    assert row["resolved"]


def test_fig5_row_against_autograd_hessian():
    item = {"figure": "fig5", "arch": "xavier", "depth": 3, "run": 1, "seed": 1}
    (row,) = fig5.run_one(item)
    net = network("xavier", 3)
    W = initial_weights("xavier", net, seed=1)
    a = np.abs(hessians.spectrum(hessians.hessian(net, W, mnist())))
    assert row["lam_max"] == pytest.approx(a.max(), rel=1e-9)
    assert row["lam_p10"] == pytest.approx(np.percentile(a, 10), rel=1e-7)
    assert row["P"] == 300


def test_fig5_marks_unresolved_condition_numbers():
    table = pd.DataFrame(
        [{"arch": "xavier", "depth": 64, "run": r, "P": 6400, "cond": 1e17, "resolved": False} for r in range(2)]
        + [
            {"arch": "xavier", "depth": 2, "run": r, "P": 200, "cond": 10.0 ** (1 + r), "resolved": True}
            for r in range(2)
        ]
    )
    s = fig5.summarise(table).set_index("depth")
    assert s.loc[64, "unresolved"] == 2 and np.isnan(s.loc[64, "lg_cond_mean"])
    assert s.loc[2, "lg_cond_mean"] == pytest.approx(1.5)
    assert s.loc[64, "lg_resolution_limit"] == pytest.approx(-np.log10(6400 * np.finfo(float).eps))


def _fig5_table(two_slope, orth_per_lg, depths=(2, 4, 8, 16, 32, 64, 96)):
    import numpy as np
    import pandas as pd

    rows = []
    for L in depths:
        two, orth = 0.2 + two_slope * (L - 2), 0.3 + orth_per_lg * np.log10(L / 2)
        for arch, lg in (("2-shortcut", two), ("orthogonal", orth)):
            for run, noise in enumerate((-1e-4, 1e-4)):
                rows.append({"arch": arch, "depth": L, "run": run, "cond": 10 ** (lg + noise), "resolved": True})
    return pd.DataFrame(rows)


def test_fig5_flat_until_solves_the_ledger_criterion_on_exact_trends():
    import numpy as np

    until = fig5.flat_until(_fig5_table(1e-4, 1.0))
    L = until["depth"]
    # at the returned depth the extrapolated drift equals FLAT_FRACTION x the extrapolated growth
    assert until["slope"] == pytest.approx(1e-4) and until["per_lg"] == pytest.approx(1.0)
    assert 1e-4 * (L - 2) == pytest.approx(fig5.FLAT_FRACTION * np.log10(L / 2), rel=1e-9)
    assert 1000 < L < 5000 and until["deepest"] == 96
    # a steeper drift breaks flatness sooner; no drift never does
    assert fig5.flat_until(_fig5_table(1e-3, 1.0))["depth"] < L
    assert fig5.flat_until(_fig5_table(0.0, 1.0))["depth"] == float("inf")


def test_fig5_committed_flatness_extrapolates_to_about_two_thousand():
    until = fig5.flat_until(fig5.committed("fig5"))
    assert 1500 < until["depth"] < 2500 and until["drift"] < 0.01
