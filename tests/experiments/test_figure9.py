"""Figure 9 of Li et al. (the best learning rate's final loss against depth, linear networks): one
item against a plain loop, the summary's choice of rate, the readings of the committed grid and the
scale of the usable rate."""

import numpy as np
import pandas as pd
import pytest
import torch

import resnet_nb as rn
from resnet_nb.core.train import gradient_descent
from resnet_nb.experiments import fig9
from resnet_nb.shared.common import initial_weights, mnist, network


def test_fig9_item_against_per_configuration_loop():
    item = {
        "figure": "fig9",
        "arch": "2-shortcut",
        "depth": 4,
        "relu": False,
        "lrs": [0.01, 0.3],
        "runs": 2,
        "epochs": 25,
        "seed": 4,
    }
    rows = pd.DataFrame(fig9.run_one(item))
    net = network("2-shortcut", 4)
    W0 = initial_weights("2-shortcut", net, seed=4, runs=2)
    stats = mnist().stats()
    for r in range(2):
        for lr in item["lrs"]:
            W = W0[r].clone()
            for _ in range(25):
                W.requires_grad_(True)
                (g,) = torch.autograd.grad(rn.loss_stats(net, W, stats), W)
                W = (W - lr * g).detach()
            ref = float(rn.loss_stats(net, W, stats))
            got = rows[(rows["run"] == r) & (rows["lr"] == lr)]["final_loss"].item()
            assert got == pytest.approx(ref, rel=1e-10)


def test_fig9_summary_picks_best_eligible_rate_and_flags_flat():
    rows = []
    for r in range(2):
        rows += [
            {"arch": "xavier", "depth": 2, "run": r, "lr": 0.1, "diverged": False, "final_loss": 1.0 + r},
            {
                "arch": "xavier",
                "depth": 2,
                "run": r,
                "lr": 1.0,
                "diverged": r == 1,
                "final_loss": 0.0 if r == 0 else np.nan,
            },
            {"arch": "xavier", "depth": 2, "run": r, "lr": 0.01, "diverged": False, "final_loss": 2.0},
        ]
        rows += [
            {"arch": "orthogonal", "depth": 2, "run": r, "lr": lr, "diverged": False, "final_loss": 3.0}
            for lr in (0.1, 1.0)
        ]
    s = fig9.summarise(pd.DataFrame(rows), loss_opt=0.5).set_index("arch")
    assert s.loc["xavier", "best_lr"] == 0.1  # lr 1.0 diverged in one run: not eligible
    assert s.loc["xavier", "lg_excess"] == pytest.approx(np.log10(1.5 - 0.5))
    assert np.isnan(s.loc["orthogonal", "best_lr"]) and s.loc["orthogonal", "lr_unstable"]


def test_gradient_descent_rejects_nan_initial_weights():
    net = network("2-shortcut", 2)
    W0 = initial_weights("2-shortcut", net, seed=0)
    W0[0, 0, 0, 0] = float("nan")
    with pytest.raises(ValueError, match=r"\bW0 must"):
        gradient_descent(net, W0, mnist().stats(), lr=0.1, epochs=2)


def test_summarise_flags_a_lone_rate_at_the_grid_edge():
    s = fig9.summarise(fig9.committed())
    edge = s[s["lr_at_grid_edge"]]
    assert list(zip(edge["arch"], edge["depth"])) == [("xavier", 96)]


def test_fig9_lists_the_depths_where_the_gap_is_below_two_standard_errors():
    g = fig9.lowest_gap(fig9.committed(), "2-shortcut", fig9.mnist_optimum(), from_depth=fig9.FIG9_FROM_DEPTH)
    tab = g["table"].set_index("depth")
    assert 2 not in tab.index and g["depth"] in g["fragile"]
    assert all(tab.loc[d, "gap"] < 2 * tab.loc[d, "se"] for d in g["fragile"])
    # the two-sample standard error is well below a single run's spread (10 runs per rate)
    assert (tab["se"] < 0.5 * tab["spread"]).all()
    assert g["fragile"] == [4, 6]
    assert fig9.claim_fig9_shortcut_lowest.claim.verdict == "partly reproduced"


def test_fig9_near_optimal_reading_and_its_falsifier():
    assert fig9.claim_fig9_near_optimal.claim.verdict == "reproduced"
    assert fig9.claim_fig9_near_optimal().passed
    assert fig9.claim_fig9_near_optimal(falsify=True).rejected_on_value


def test_escape_check_is_declared_an_implementation_check():
    assert fig9.claim_escape_rate.claim.kind == "regression"


def test_rate_scale_band_is_narrow_while_lambda_max_grows():
    from resnet_nb.shared import store

    rs = fig9.rate_scale(fig9.committed(), store.load_results("fig5", "paper")[0])
    assert set(rs["arch"]) == {"orthogonal", "1-shortcut"} and rs["depth"].max() == 96
    assert rs["eta_lam0"].max() / rs["eta_lam0"].min() < 10
    assert rs["lam_max0"].max() / rs["lam_max0"].min() > 50


def test_fig9_gap_ratio_takes_the_nearest_of_all_rivals_and_holds_at_two_standard_errors_from_depth_12():
    L = fig9.mnist_optimum()
    r = fig9.gap_ratio(fig9.committed(), "2-shortcut", L, from_depth=fig9.FIG9_FROM_DEPTH).set_index("depth")
    assert (r["ratio_2se"] < r["ratio"]).all()
    assert np.allclose(np.log10(r["ratio"]) - np.log10(r["ratio_2se"]), 2 * r["se"])
    # the nearest rival is not always a 1-shortcut or orthogonal network
    assert "3-shortcut" in set(r["rival"])
    two = fig9.gap_ratio(
        fig9.committed(), "2-shortcut", L, from_depth=fig9.FIG9_FROM_DEPTH, others=["1-shortcut", "orthogonal"]
    ).set_index("depth")
    assert (r["ratio"] <= two["ratio"] * (1 + 1e-12)).all() and (r["ratio"] < two["ratio"]).any()
    # the contrast the chapter states: more than twice smaller at two standard errors from depth 12 on,
    # though not at depths 4 and 6 (a bound on the point estimates alone would hide the difference)
    assert (r.loc[r.index >= 12, "ratio_2se"] > 2).all()
    assert (r.loc[[4, 6], "ratio_2se"] < 1).all()
