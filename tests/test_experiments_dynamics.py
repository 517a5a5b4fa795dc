"""Claims of the experiment chapters (Figures 3, 5-8): each check passes and its falsifier is
rejected on its comparison (not for being vacuous)."""
import pytest

from resnet_nb.experiments import fig3, fig5, fig6, fig7, fig8

CLAIMS = [fig5.check_flat_to_depth_96, fig5.check_one_shortcut_like_plain, fig3.check_deeper_smaller,
          fig6.check_minimiser_zeros, fig7.check_shortcut_better_conditioned_relu, fig8.check_smaller_index,
          fig8.check_peak_at_drop]
SLOW = [fig5.check_flat_live, fig6.check_first_step, fig6.check_shortcut_better_conditioned]


@pytest.mark.parametrize("check", CLAIMS + SLOW, ids=lambda f: f.claim.id)
def test_claim_holds_and_falsifier_is_rejected(check):
    assert check().passed, str(check())
    assert check(falsify=True).rejected_on_value


def test_minimiser_is_a_minimiser():
    from resnet_nb.experiments.common import mnist, network
    from resnet_nb.core.losses import loss_stats

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


def test_depth_reversals_of_a_toy_table_and_of_the_committed_figure3():
    import pandas as pd

    rows = [{"relu": False, "depth": d, "run": 0, "epoch": e, "loss": fig3.mnist_optimum() + 10.0 ** x,
             "avg_norm": n}
            for d, norms in ((2, (0.1, 1.0, 2.0)), (4, (0.1, 1.5, 1.0)))
            for e, (x, n) in enumerate(zip((1.0, 0.0, -1.0), norms))]
    (shallow, deep, lo, hi), = fig3.depth_reversals(pd.DataFrame(rows), False)
    # the curves cross at x = -1/3; they tie at the start (x = 1), which is left out
    assert (shallow, deep) == (2, 4) and lo == pytest.approx(-1 / 3, abs=0.02) and hi < 1
    t = fig3.committed("fig3")
    assert [r[:2] for r in fig3.depth_reversals(t, False)] == [(2, 4)] and not fig3.depth_reversals(t, True)


def test_fig8_plot_shades_the_first_step_gap():
    import matplotlib

    matplotlib.use("Agg")
    t = fig6.committed("fig6")
    left = fig8.plot(t)[0]
    lo, hi = fig6.first_step_gap(t)
    spans = [p for p in left.patches if p.get_label().startswith("orthogonal: interpolated")]
    assert len(spans) == 1
    x0, width = spans[0].get_x(), spans[0].get_width()
    assert x0 == pytest.approx(lo) and x0 + width == pytest.approx(hi)


def test_fig7_has_one_resolved_orthogonal_run():
    assert fig7.resolved_runs(fig7.committed("fig7")) == {"2-shortcut": 2, "orthogonal": 1}


# --- fig3.spikes, fig3.top_eigenvalue, fig6.first_step_gap (fast) ---------------------------------

def _loss_table(losses, relu=True, depth=4, run=0):
    import pandas as pd

    return pd.DataFrame({"relu": relu, "depth": depth, "run": run, "epoch": range(0, 10 * len(losses), 10),
                         "loss": losses})


def test_spikes_finds_rises_above_the_threshold_only():
    import pandas as pd

    t = pd.concat([_loss_table([1.0, 0.9, 0.96, 0.8, 0.7]),       # +6.7% at epoch 20
                   _loss_table([1.0, 1.04, 0.5], run=1),           # +4%: below the 5% threshold
                   _loss_table([1.0, 2.0, 0.5], relu=False)])      # linear: filtered by relu=True
    s = fig3.spikes(t)
    assert list(s.columns) == ["depth", "run", "epoch", "ratio"]
    assert s[["depth", "run", "epoch"]].values.tolist() == [[4, 0, 20]]
    assert s["ratio"].iloc[0] == pytest.approx(0.96 / 0.9)
    assert fig3.spikes(t, relu=False)["epoch"].tolist() == [10]
    assert len(fig3.spikes(t, rise=1.03)) == 2            # the 4% rise counts at a 3% threshold
    assert fig3.spikes(_loss_table([1.0, 0.5, 0.25])).empty


def test_spikes_of_the_committed_figure3_are_relu_depths_4_and_8():
    t = fig3.committed("fig3")
    assert set(fig3.spikes(t)["depth"]) == {4, 8}
    assert fig3.spikes(t, relu=False).empty


def test_top_eigenvalue_is_the_top_of_the_spectrum_not_the_largest_magnitude(monkeypatch):
    import torch

    import resnet_nb.core.losses as losses

    # a quadratic loss 1/2 w^T A w whose largest |eigenvalue| is negative: the top is 2, not -5
    Q, _ = torch.linalg.qr(torch.randn(6, 6, generator=torch.Generator().manual_seed(1), dtype=torch.float64))
    A = Q @ torch.diag(torch.tensor([-5.0, 2.0, 1.0, 0.5, -0.5, 0.1], dtype=torch.float64)) @ Q.T
    monkeypatch.setattr(losses, "loss_samples", lambda net, w, data: 0.5 * w.reshape(-1) @ A @ w.reshape(-1))
    assert fig3.top_eigenvalue(None, torch.zeros(2, 3), None, iters=100) == pytest.approx(2.0, rel=1e-6)
    B = Q @ torch.diag(torch.tensor([3.0, -1.0, 1.0, 0.5, -0.5, 0.1], dtype=torch.float64)) @ Q.T
    monkeypatch.setattr(losses, "loss_samples", lambda net, w, data: 0.5 * w.reshape(-1) @ B @ w.reshape(-1))
    assert fig3.top_eigenvalue(None, torch.zeros(2, 3), None, iters=100) == pytest.approx(3.0, rel=1e-6)


def test_top_eigenvalue_matches_the_exact_hessian_of_a_small_relu_network():
    import torch

    from resnet_nb.experiments.common import initial_weights, mnist, network
    from resnet_nb.core.losses import loss_samples

    net = network("2-shortcut", 2, relu=True)
    data = mnist(5)
    W = initial_weights("2-shortcut", net, seed=0) + 0.05 * torch.randn(
        net.shape, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    H = torch.autograd.functional.hessian(lambda w: loss_samples(net, w.reshape(net.shape), data),
                                          W.reshape(-1))
    exact = float(torch.linalg.eigvalsh(H).max())
    assert fig3.top_eigenvalue(net, W, data, iters=200) == pytest.approx(exact, rel=1e-4)


def _hessian_table(x0, x1, arch="orthogonal"):
    import numpy as np
    import pandas as pd

    opt = fig6.mnist_optimum()
    rows = [{"kind": "hessian", "arch": arch, "run": r, "epoch": e, "loss": opt + 10.0 ** x}
            for e, xs in ((0, x0), (1, x1)) for r, x in enumerate(xs)]
    rows.append({"kind": "trajectory", "arch": arch, "run": 0, "epoch": 5, "loss": np.nan})
    return pd.DataFrame(rows)


def test_first_step_gap_spans_lowest_start_to_highest_after_one_step():
    lo, hi = fig6.first_step_gap(_hessian_table([0.3, 0.1, 0.2], [-1.5, -1.2, -1.4]))
    assert lo == pytest.approx(-1.2) and hi == pytest.approx(0.1)
    assert fig6.first_step_gap(_hessian_table([0.1], [-0.2])) is None           # narrower than 0.5
    assert fig6.first_step_gap(_hessian_table([0.1], [-0.2]), min_width=0.2) is not None
    assert fig6.first_step_gap(_hessian_table([0.1], [-1.0]), arch="2-shortcut") is None  # no such runs
    t = _hessian_table([0.1], [-1.0])
    assert fig6.first_step_gap(t[t["epoch"] != 1]) is None                      # no Hessian at epoch 1


def test_first_step_gap_of_the_committed_figure6():
    import numpy as np

    t = fig6.committed("fig6")
    lo, hi = fig6.first_step_gap(t)
    h = t[(t["kind"] == "hessian") & (t["arch"] == "orthogonal")]
    x = np.log10(h["loss"] - fig6.mnist_optimum())
    assert (lo, hi) == (x[h["epoch"] == 1].max(), x[h["epoch"] == 0].min()) and hi - lo >= 0.5


def test_fig5_summary_view_has_no_nan_and_no_index():
    import numpy as np
    import pandas as pd

    s = pd.DataFrame({"arch": ["xavier", "xavier", "orthogonal"], "depth": [48, 32, 2], "runs": [10, 10, 1],
                      "unresolved": [10, 9, 0], "lg_cond_mean": [np.nan, 11.7, 1.2],
                      "lg_cond_std": [np.nan, np.nan, np.nan], "lg_resolution_limit": [12.0, 12.1, 13.0]})
    v = fig5.summary_view(s)
    d = v.data
    assert d["lg cond (mean)"].tolist() == [fig5.BEYOND_RESOLUTION, "11.700", "1.200"]
    assert d["lg cond (std)"].tolist() == [fig5.BEYOND_RESOLUTION, fig5.ONE_RUN, fig5.ONE_RUN]
    html = v.to_html()
    assert "nan" not in html.lower() and "row_heading" not in html


def test_stable_default_scale_is_the_paper_setting_with_fewer_runs():
    d, p = fig6.STABLE_SCALES["default"], fig6.STABLE_SCALES["paper"]
    keys = ("archs", "depth", "relu", "lr", "epochs", "seed", "n_per_class")
    assert {k: d[k] for k in keys} == {k: p[k] for k in keys}
    assert d["runs"] < p["runs"] and d["points"] < p["points"]
    assert fig6.first_step(depth=d["depth"], lr=d["lr"])["eta_lam"] < 2  # the first step is stable


# --- falsifier kinds, Figure 5's extrapolated depth, Figure 8's dense timing -------------------
def test_every_claim_of_the_experiment_figures_states_its_falsifier_kind():
    from resnet_nb.book import ledger

    mods = ("fig3", "fig5", "fig6", "fig7", "fig8")
    mine = [c for c in ledger.all_claims().values() if c.check.__module__.rsplit(".", 1)[-1] in mods]
    assert len(mine) == 10
    assert all(c.falsifier_kind in ("plausible false statement", "implied by the check") for c in mine)
    # the strict orderings (tolerance 0) are rejected reversed by any passing check
    implied = {c.id for c in mine if c.falsifier_kind == "implied by the check"}
    assert implied == {"li-fig7-shortcut-better-conditioned-relu", "li-fig8-smaller-index",
                       "book-fig6-first-step-unstable"}


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


def _dense(neg, grad, first=0):
    import numpy as np
    import pandas as pd

    n = len(grad)
    return pd.DataFrame({"arch": "2-shortcut", "epoch": np.arange(n), "grad_norm": grad, "P": 100,
                         "negatives": [-1] * first + list(neg), "index": [np.nan] * first + [k / 100 for k in neg]})


def test_index_fall_quartiles_ties_and_lag_on_a_toy_run():
    # 50 negative eigenvalues falling to 42 over epochs 2..6, two one-epoch falls of 3 (a tie)
    neg = [50, 50, 50, 47, 45, 42, 42, 42]
    grad = [0.1, 0.2, 0.5, 0.9, 1.0, 0.7, 0.4, 0.2]
    f = fig8.index_fall(_dense(neg, grad), "2-shortcut")
    assert f["peak"] == 4 and f["fall"] == 8 and f["steepest_drop"] == 3
    assert f["steepest"] == [(2, 3), (4, 5)]
    assert f["t25"] == pytest.approx(2 + 2 / 3) and f["t50"] == pytest.approx(3.5)
    assert f["t75"] == pytest.approx(4 + 1 / 3) and f["lag"] == pytest.approx(-0.5)
    chk = fig8.peak_lag(_dense(neg, grad))
    assert chk.passed and chk.value == pytest.approx(0.5) and chk.tol == pytest.approx((4 + 1 / 3 - 2 - 2 / 3) / 2)
    # the peak at the first epoch lies far outside the middle half of the fall
    assert not fig8.peak_lag(_dense(neg, [1.0] + grad[1:])).passed


def test_peak_in_drop_reports_the_margin_to_the_nearer_end():
    t = fig6.committed("fig6")
    chk = fig8.peak_in_drop(t)
    assert chk.value == 1 and chk.values["peaks"] == [36] and chk.values["intervals"] == [(35, 44)]
    assert "one observation" in chk.lines[0]


def test_dense_run_matches_the_committed_run_0():
    d = fig8.load_dense()
    assert d is not None and set(d["arch"]) == set(fig8.DENSE["archs"])
    t = fig6.committed("fig6")
    for arch in fig8.DENSE["archs"]:
        traj = t[(t["kind"] == "trajectory") & (t["arch"] == arch) & (t["run"] == 0)].set_index("epoch")
        mine = d[d["arch"] == arch].set_index("epoch")
        assert mine["grad_norm"].to_numpy() == pytest.approx(traj.loc[mine.index, "grad_norm"].to_numpy(), rel=1e-9)


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
            loss = fig6.mnist_optimum() + 10 ** xv
            for arch, v in (("orthogonal", 0.5), ("2-shortcut", 0.5 + dv + s)):
                rows.append(dict(kind="hessian", relu=False, arch=arch, run=run, epoch=e, loss=loss, index=v,
                                 lam_max=1.0, lam_p10=0.1, resolved=True))
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


def test_fig8_index_claim_is_decided_outside_the_first_step_gap():
    c = fig8.check_smaller_index()
    lo, hi = fig6.first_step_gap(fig6.committed("fig6"))
    assert c.values["exclude"] == (lo, hi)
    assert not lo <= c.values["x_closest"] <= hi
    assert c.spread < -c.value  # the margin exceeds the run-to-run spread (not fragile)


def test_fig6_stable_raw_means_cross_at_intermediate_loss_within_the_spread():
    v = fig6.check_shortcut_better_conditioned().values
    assert -2.5 < v["cross_lo"] < v["cross_hi"] < 0 and 0 < v["excess"] < v["sd_excess"]
