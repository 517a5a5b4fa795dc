"""Figures 9, 10 and the Figure 2 analog: their ledger claims (each check passes, each falsifier is
rejected on its comparison), the He baseline, the L-BFGS floor, and gradient descent's input check."""
import math

import pytest
import torch

from resnet_nb.experiments import fig2, fig9, fig10
from resnet_nb.experiments.common import initial_weights, mnist, network
from resnet_nb.core.train import gradient_descent

CLAIMS = [fig9.check_fig9_shortcut_lowest, fig9.check_fig9_near_optimal, fig9.check_escape_rate,
          fig9.check_edge_of_stability,
          fig10.check_shortcut_lowest, fig10.check_deeper_lower, fig10.check_flat_at_64, fig10.check_depth2_floor,
          fig10.check_depth4_floor,
          fig2.check_larger_run_ordered, fig2.check_growth_shrinks]


@pytest.mark.parametrize("check", CLAIMS, ids=lambda f: f.claim.id)
def test_claim_holds_and_falsifier_is_rejected(check):
    assert check().passed, str(check())
    assert check(falsify=True).rejected_on_value, str(check(falsify=True))


def test_gradient_descent_rejects_nan_initial_weights():
    net = network("2-shortcut", 2)
    W0 = initial_weights("2-shortcut", net, seed=0)
    W0[0, 0, 0, 0] = float("nan")
    with pytest.raises(ValueError, match="W0 must be finite"):
        gradient_descent(net, W0, mnist().stats(), lr=0.1, epochs=2)


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
    t = fig10.run(cfg, progress=False)
    assert set(t["arch"]) == {"he", "2-shortcut"} and t["final_loss"].notna().all()


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
    assert fig9.check_fig9_shortcut_lowest.claim.verdict == "partly reproduced"


def test_fig9_near_optimal_reading_and_its_falsifier():
    assert fig9.check_fig9_near_optimal.claim.verdict == "reproduced"
    assert fig9.check_fig9_near_optimal().passed
    assert fig9.check_fig9_near_optimal(falsify=True).rejected_on_value


def test_escape_check_is_declared_an_implementation_check():
    assert fig9.check_escape_rate.claim.kind == "regression"


def test_rank_limited_linear_loss_ends_at_the_optimum_and_bounds_ten_relus():
    full, half = fig10.rank_limited_linear_loss(10), fig10.rank_limited_linear_loss(5)
    assert math.isclose(full, fig9.mnist_optimum(), rel_tol=1e-9)
    assert half > full


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
    f = fig10.check_depth4_floor(falsify=True)
    assert "depth 4" in f.claim and f.op == "<=" and not f.passed
    assert f.value == pytest.approx(abs(fig10.check_depth4_floor().value))
    c = fig10.depth4_floor_negative_control()
    assert "depth 2" in c.claim and not c.passed


def test_floor_breakeven_is_where_the_depth4_verdict_would_flip():
    v = fig10.check_depth4_floor().values
    be = fig10.floor_breakeven(v["gd"], v["range"], v["lo"])
    assert be > fig10.FLOOR_ACCURACY
    assert (v["gd"] - v["lo"]) == pytest.approx(be * v["lo"] + v["range"])


def test_he_against_xavier_decides_with_one_run_to_run_spread():
    hx = fig10.he_against_xavier(fig10.committed(), fig10.committed_he()).set_index("depth")
    for L, r in hx.iterrows():
        if abs(r["diff"]) <= r["spread"]:
            assert r["verdict"] == "unresolved"
        else:
            assert r["verdict"] == ("worse" if r["diff"] > 0 else "better")
    assert hx.loc[32, "verdict"] == "unresolved"      # runs 0.388-0.500 against 0.453-0.500


def test_every_claim_states_its_falsifier_kind():
    kinds = {c.claim.id: c.claim.falsifier_kind for c in CLAIMS}
    assert all(k in ("plausible false statement", "implied by the check", "regression test")
               for k in kinds.values()), kinds
    assert kinds["li-escape-rate-2shortcut"] == "regression test"
    assert kinds["li-eos-2shortcut-depth16"] == "implied by the check"


def test_rate_scale_band_is_narrow_while_lambda_max_grows():
    from resnet_nb.experiments import engine

    rs = fig9.rate_scale(fig9.committed(), engine.load_results("fig5", "paper")[0])
    assert set(rs["arch"]) == {"orthogonal", "1-shortcut"} and rs["depth"].max() == 96
    assert rs["eta_lam0"].max() / rs["eta_lam0"].min() < 10
    assert rs["lam_max0"].max() / rs["lam_max0"].min() > 50


def test_figures_use_the_one_palette():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    from resnet_nb.book.plotting import COLORS

    fig, ax = plt.subplots()
    fig9.plot(fig9.committed(), ax=ax)  # one axis: the loss panel only
    used = {to_hex(line.get_color()) for line in ax.get_lines() if line.get_label()[:1] != "_"}
    assert used <= {to_hex(c) for c in COLORS.values()}, used
    plt.close(fig)
    shades = fig2.depth_colors([1, 2, 4])
    assert len(set(shades.values())) == 3
