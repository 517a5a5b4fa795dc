"""Figure 10 of Li et al. (Figure 9 with ReLUs at the mid positions): its items, the He baseline,
and the floors of the depth-2 and depth-4 networks that the claims compare with."""

import math

import pytest
import torch

from resnet_nb.experiments import engine, fig9, fig10
from resnet_nb.shared.common import initial_weights, network


def test_fig10_items_use_relu_and_the_three_architectures():
    items = fig10.configurations(fig10.SCALES["paper"])
    assert {it["arch"] for it in items} == {"2-shortcut", "xavier", "orthogonal"}
    assert all(it["relu"] and it["depth"] % 2 == 0 for it in items)
    net = network("xavier", 4, relu=True)
    assert net.n == 2 and not net.shortcut and net.mid.name == "relu"
    with pytest.raises(ValueError, match="archs entry"):
        fig10.configurations(dict(fig10.SCALES["default"], archs=["1-shortcut"]))


def test_he_weights_scale_only_the_matrices_a_relu_follows():
    W = fig10.he_weights(4, seed=0)
    X = initial_weights("xavier", network("xavier", 4, relu=True), seed=0)
    assert torch.allclose(W[:, 0], math.sqrt(2) * X[:, 0])
    assert torch.equal(W[:, 1], X[:, 1])


def test_he_keeps_the_signal_where_xavier_loses_it():
    he, xa = fig10.initial_output_rms("he", 32), fig10.initial_output_rms("xavier", 32)
    assert he > 30 * xa, (he, xa)


def test_he_items_and_a_short_run():
    cfg = dict(fig10.SCALES["default"], archs=["he", "2-shortcut"], depths=[2], runs=1, lrs=[0.1], epochs=3)
    items = fig10.configurations(cfg)
    assert [it["arch"] for it in items] == ["2-shortcut", "he"]
    t = engine.run(fig10, cfg, progress=False)
    assert set(t["arch"]) == {"he", "2-shortcut"} and t["final_loss"].notna().all()


def test_rank_limited_linear_loss_ends_at_the_optimum_and_bounds_ten_relus():
    full, half = fig10.rank_limited_linear_loss(10), fig10.rank_limited_linear_loss(5)
    assert math.isclose(full, fig9.mnist_optimum(), rel_tol=1e-9)
    assert half > full


def test_reproduce_floor_stores_one_row_per_start_with_provenance(tmp_path):
    import json

    cfg = dict(fig10.FLOOR_CONFIG, depth=2, scales=[0.01, 1.0], starts_per_scale=1, max_iter=3, n_per_class=5)
    table = fig10.reproduce_floor(cfg, out=tmp_path)
    folder = tmp_path / fig10.FLOOR_DIR / "paper"
    prov = json.loads((folder / "provenance.json").read_text())
    assert len(table) == 2 and table["scale"].tolist() == [0.01, 1.0]
    assert prov["config"] == cfg and prov["complete"] and prov["git"]["commit"]
    assert (folder / "table.csv").read_text().count("\n") == 3


def test_gd_at_best_is_figure_10s_point():
    s = fig10.summarise(fig10.committed())
    row = s[(s["arch"] == "2-shortcut") & (s["depth"] == 4)].iloc[0]
    gd = fig10.gd_at_best("2-shortcut", 4)
    assert gd["loss"] == row["final_loss"] and gd["lr"] == row["best_lr"]
    assert gd["lo"] <= gd["loss"] <= gd["hi"]


def test_depth4_falsifier_is_a_false_statement_on_depth4_data_and_depth2_is_a_negative_control():
    f = fig10.claim_depth4_floor(falsify=True)
    assert f.op == "<=" and not f.passed
    assert f.value == pytest.approx(abs(fig10.claim_depth4_floor().value))
    c = fig10.depth4_floor_negative_control()
    # "above the floor" fails at depth 2: gradient descent ends within the tolerance of the floor
    assert c.op == ">=" and not c.passed and c.value < c.tol


def test_floor_breakeven_is_where_the_depth4_verdict_would_flip():
    v = fig10.claim_depth4_floor().values
    be = fig10.floor_breakeven(v["gd"], v["range"], v["lo"])
    assert be > fig10.FLOOR_ACCURACY
    assert (v["gd"] - v["lo"]) == pytest.approx(be * v["lo"] + v["range"])


def test_he_against_xavier_decides_with_one_run_to_run_spread():
    hx = fig10.he_against_xavier(fig10.committed(), fig10.committed_he()).set_index("depth")
    for _L, r in hx.iterrows():
        if abs(r["diff"]) <= r["spread"]:
            assert r["verdict"] == "unresolved"
        else:
            assert r["verdict"] == ("worse" if r["diff"] > 0 else "better")
    assert hx.loc[32, "verdict"] == "unresolved"  # runs 0.388-0.500 against 0.453-0.500


def test_first_all_diverged_is_the_smallest_rate_where_every_run_diverged():
    import pandas as pd

    t = pd.DataFrame(
        dict(
            arch=["he"] * 6 + ["xavier"] * 2,
            depth=[8] * 8,
            lr=[0.1, 0.1, 0.3, 0.3, 1.0, 1.0, 0.1, 0.1],
            diverged=[False, True, True, True, True, True, False, False],
        )
    )
    assert fig10.first_all_diverged(t, "he", 8) == 0.3  # at 0.1 only one of two runs diverged
    assert fig10.first_all_diverged(t, "xavier", 8) == math.inf  # never every run
    with pytest.raises(ValueError, match="no runs"):
        fig10.first_all_diverged(t, "he", 16)


def test_floor_comparison_reads_equal_within_the_accuracy_and_the_range_of_the_runs():
    g = fig10.gd_at_best("xavier", 4)
    tol = fig10.FLOOR_ACCURACY * g["loss"] + g["range"]
    assert fig10.floor_comparison(g["loss"], "xavier") == "about equal to"
    assert fig10.floor_comparison(g["loss"] - 2 * tol - 1e-6, "xavier") == "below"
    assert fig10.floor_comparison(g["loss"] + 2 * tol + 1e-6, "xavier") == "above"
    with pytest.raises(ValueError, match="floor_loss"):
        fig10.floor_comparison(-1.0, "xavier")
