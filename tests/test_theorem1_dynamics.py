"""The chapter ``theorem1_dynamics``: the seed sweep of the sharpness, the evenness of the Hessian
(the eps^2 drift), the factor R on a table of runs, the controlled residual and the residual
table, and the ledger's claims of the module (falsifier kinds, the g-inverse misreading).

Public names only; every number is compared with a computation written here."""
import matplotlib
import numpy as np
import pandas as pd
import pytest
import torch

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from resnet_nb.core import claims
from resnet_nb.li import dynamics as dyn  # noqa: E402
from resnet_nb.core.data import Dataset, synthetic_linear  # noqa: E402
from resnet_nb.core.hessians import hessian_linear  # noqa: E402
from resnet_nb.core.init import initialise  # noqa: E402
from resnet_nb.core.networks import ShortcutNetwork  # noqa: E402
from resnet_nb.book.plotting import COLORS  # noqa: E402

torch.set_num_threads(1)
F64 = torch.float64


@pytest.fixture(scope="module")
def data2():
    return synthetic_linear(2, 20, seed=0)


# -- rise factor and the seed sweep ------------------------------------------------------------------

def test_rise_factor_of_monotone_and_spiking_sequences():
    assert dyn.rise_factor([4.0, 2.0, 1.0, 0.5]) == pytest.approx(0.5)
    # a jump from a running minimum of 0.5 to 5: factor 10, whatever came before
    assert dyn.rise_factor([4.0, 0.5, 5.0, 0.1]) == pytest.approx(10.0)
    assert dyn.rise_factor([1.0, 1.0]) == 1.0
    with pytest.raises(ValueError, match="positive"):
        dyn.rise_factor([1.0, 0.0, 2.0])
    with pytest.raises(ValueError, match="at least 2"):
        dyn.rise_factor([1.0])


@pytest.fixture(scope="module")
def sweep2(data2):
    # lr = 1 on this small problem: seed 0 spikes (its loss rises a hundredfold), seed 1 rises a little
    return dyn.sharpness_sweep(data2, seeds=(0, 1), n=2, R=2, lr=1.0, epochs=200, every=20)


def test_sharpness_sweep_runs_each_seed_as_its_own_run(data2, sweep2):
    assert list(sweep2["epochs"]) == list(range(0, 201, 20)) and sweep2["edge"] == 2.0
    assert sweep2["lam_max"].shape == (2, 11) and sweep2["gaps"].shape == (2, 201)
    for i, seed in enumerate((0, 1)):
        one = dyn.sharpness_trace(data2, n=2, R=2, lr=1.0, epochs=200, every=20, seed=seed)
        np.testing.assert_allclose(sweep2["lam_max"][i], one["lam_max"], rtol=1e-8)
        np.testing.assert_allclose(sweep2["gaps"][i] + sweep2["Lmin"], one["losses"], rtol=1e-8)
    st = data2.stats()
    assert sweep2["sigma_max"] == pytest.approx(float(torch.linalg.svdvals(st.Sxx - st.Syx).max()))
    # at the small start the sharpness is Theorem 1's sigma_max(M)
    assert sweep2["lam_max"][0, 0] == pytest.approx(sweep2["sigma_max"], rel=1e-2)


def test_sharpness_sweep_rows(sweep2):
    r0, r1 = sweep2["rows"]
    assert [r0["seed"], r1["seed"]] == [0, 1]
    for i, r in enumerate((r0, r1)):
        gaps, lam = sweep2["gaps"][i], sweep2["lam_max"][i]
        assert r["rise"] == pytest.approx(dyn.rise_factor(gaps))
        assert r["rises"] == int((np.diff(gaps) > 0).sum())
        assert r["lam_peak"] == lam.max() and r["lam_final"] == lam[-1] and r["final_gap"] == gaps[-1]
        above = [e for e, v in zip(sweep2["epochs"], lam) if v > 2.0]
        assert r["first_above"] == (above[0] if above else -1)
        assert r["spike"] == (r["rise"] > 10)
    assert r0["spike"] and r0["rise"] > 50
    assert not r1["spike"] and 1 < r1["rise"] < 10  # a rise below the threshold is not a spike


def test_sharpness_sweep_refuses_bad_arguments(data2):
    with pytest.raises(ValueError, match="diverged"):
        dyn.sharpness_sweep(data2, seeds=(0,), n=2, R=2, lr=3.0, epochs=50, every=10)
    with pytest.raises(ValueError, match="empty"):
        dyn.sharpness_sweep(data2, seeds=(), epochs=10, every=5)
    with pytest.raises(ValueError, match="spike"):
        dyn.sharpness_sweep(data2, seeds=(0,), epochs=10, every=5, spike=1.0)


def test_plot_sharpness_sweep_uses_the_palette(sweep2):
    axes = dyn.plot_sharpness_sweep(sweep2)
    lines = axes[0].get_lines()
    assert len(lines) == 2
    assert all(matplotlib.colors.to_hex(ln.get_color()) == COLORS["2-shortcut"] for ln in lines)
    labels = [t.get_text() for t in axes[0].get_legend().get_texts()]
    assert labels == ["1 seed with a spike", "1 seed without a spike"]
    assert lines[0].get_linewidth() > lines[1].get_linewidth()  # the spiking run is bold
    plt.close("all")


# -- the drift at the small start ----------------------------------------------------------------------

def test_evenness_holds_for_n_even_and_fails_for_n_odd(data2):
    even = dyn.evenness_check(data2, n=2, R=2)
    assert even.passed and even.value == 0.0 and "even in eps" in even.claim
    net = ShortcutNetwork(2, 2, 2)
    V = initialise(net, "xavier", seed=0)
    H0 = hessian_linear(net, torch.zeros(net.shape, dtype=F64), data2.stats())
    moved = min(float((hessian_linear(net, e * V, data2.stats()) - H0).abs().max()) for e in (0.01, 0.02, 0.04))
    assert even.nontrivial == pytest.approx(moved)
    for n in (1, 3):
        odd = dyn.evenness_check(data2, n=n, R=2)
        assert odd.rejected_on_value and odd.value > 1e-4


def _runs_table(c_of_R, sigma=1.0, eps=0.01, runs=4, depths=(2, 4, 8, 16)):
    """A Figure 5 table of 2-shortcut runs with |lambda|max = sigma + c(R) R eps^2 (1 +- 10%)."""
    rows = []
    for depth in depths:
        R = depth // 2
        for k in range(runs):
            wiggle = 1 + 0.1 * (-1) ** k
            rows.append(dict(arch="2-shortcut", depth=depth, run=k, lam_max=sigma + c_of_R(R) * R * eps ** 2 * wiggle))
            rows.append(dict(arch="orthogonal", depth=depth, run=k, lam_max=99.0))
    return pd.DataFrame(rows)


def test_drift_per_unit_recovers_c():
    t = _runs_table(lambda R: 2.5)
    df = dyn.drift_per_unit(t, eps=0.01, sigma_max=1.0)
    assert list(df["depth"]) == [2, 4, 8, 16] and (df["runs"] == 4).all()
    np.testing.assert_allclose(df["c"], 2.5, rtol=1e-6)
    np.testing.assert_allclose(df["k"], 2.5 * df["R"], rtol=1e-6)
    c_runs = 2.5 * np.array([1.1, 0.9, 1.1, 0.9])
    assert df["c_se"].iloc[0] == pytest.approx(c_runs.std(ddof=1) / 2, rel=1e-6)
    with pytest.raises(ValueError, match="2-shortcut"):
        dyn.drift_per_unit(t[t["arch"] == "orthogonal"], eps=0.01, sigma_max=1.0)


def test_drift_R_law_check_and_its_falsifier():
    linear = _runs_table(lambda R: 2.5)
    ok = dyn.drift_R_law_check(linear, sigma_max=1.0)
    assert ok.passed and ok.values["slope"] == pytest.approx(1.0, abs=1e-6)
    assert dyn.drift_R_law_check(linear, falsify=True, sigma_max=1.0).rejected_on_value
    # a depth-free drift: the law fails and the falsifier's statement holds
    flat = _runs_table(lambda R: 2.5 / R)
    assert dyn.drift_R_law_check(flat, sigma_max=1.0).rejected_on_value
    assert dyn.drift_R_law_check(flat, falsify=True, sigma_max=1.0).passed
    with pytest.raises(ValueError, match="two depths"):
        dyn.drift_R_law_check(_runs_table(lambda R: 2.5, depths=(4,)), sigma_max=1.0)


# -- the pairing: residuals with a controlled spectrum --------------------------------------------------

def test_controlled_residual_has_the_chosen_norm_and_smallest_singular_value():
    Q = dyn.controlled_residual(6, size=0.3, smallest=0.01, seed=2)
    sv = torch.linalg.svdvals(torch.eye(6, dtype=F64) - Q)
    assert float(sv.max()) == pytest.approx(0.3) and float(sv.min()) == pytest.approx(0.003)
    assert not torch.allclose(Q, dyn.controlled_residual(6, size=0.3, smallest=0.01, seed=3))
    for bad in (dict(size=0.0), dict(smallest=0.0), dict(smallest=1.5)):
        with pytest.raises(ValueError):
            dyn.controlled_residual(4, **bad)


def test_residual_table_follows_the_residual_under_the_natural_pairing():
    Q = dyn.controlled_residual(4, size=0.1, smallest=0.02, seed=0)
    data = synthetic_linear(4, 500, R=Q, noise=1e-4, seed=0)
    (row,) = dyn.residual_table([("q", data)])
    assert row["case"] == "q" and row["res_norm"] == pytest.approx(0.1)
    assert row["res_min"] == pytest.approx(0.002) and row["cond_res"] == pytest.approx(50.0)
    # M = (I - Q) Sxx up to the noise; Sxx is near I for 500 Gaussian samples
    assert 0.5 < row["cond_M"] / row["cond_res"] < 2
    # every sign flipped: M = (I + Q) Sxx, near 2 Sxx
    assert row["cond_M_flipped"] < 3 and row["sweep_min"] <= row["cond_M_flipped"] * (1 + 1e-12)
    assert row["sweep_max"] >= row["cond_M"] * (1 - 1e-12)
    L0 = float(((data.Y - data.X) ** 2).sum()) / (2 * data.m)
    W = torch.linalg.lstsq(data.X.T, data.Y.T).solution.T
    Lmin = float(((data.Y - W @ data.X) ** 2).sum()) / (2 * data.m)
    assert row["loss_ratio"] == pytest.approx(L0 / Lmin, rel=1e-6)
    with pytest.raises(ValueError, match="synthetic_linear"):
        dyn.residual_table([("x", Dataset(data.X, data.Y))])


# -- the ledger's claims of the module ------------------------------------------------------------------

def test_every_claim_of_the_module_states_its_falsifier_kind():
    mine = [c for c in claims.LEDGER.values() if c.check.__module__ == dyn.__name__]
    assert len(mine) == 5
    kinds = {"plausible false statement", "regression test", "implied by the check"}
    assert all(c.falsifier_kind in kinds for c in mine)
    assert claims.LEDGER["li-fig4-skip-all"].falsifier_kind == "regression test"
    assert "referee" not in " ".join(c.source + c.statement for c in mine)


def test_g_inverse_claim_is_falsified_by_the_unique_minimiser_statement():
    c = claims.LEDGER["li-eq15-16-any-g-inverse"]
    assert "unique" in c.falsifier and c.falsifier_kind == "plausible false statement"
    fal = c.check(falsify=True)
    assert fal.rejected_on_value and fal.claim.startswith("Falsifier:")
    assert fal.parts[0].passed  # G is a generalized inverse
    same = fal.parts[1]
    assert "equals" in same.claim and not same.passed
    st = dyn.rank_deficient_data(seed=0).stats()
    G = dyn.generalized_inverse(st.Sxx, seed=1)
    dW = float((st.Syx @ G - st.Syx @ torch.linalg.pinv(st.Sxx)).abs().max())
    assert same.value == pytest.approx(dW, rel=1e-12) and dW > 0.1
    assert same.tol == fal.parts[0].tol  # the same rounding tolerance as the true statement
    # the true statement, with the same G: holds, and its title is not the falsifier's
    ok = c.check()
    assert ok.passed and not ok.claim.startswith("Falsifier")


def test_g_inverse_check_titles_its_falsifiers_and_refuses_two_at_once():
    for kw, word in ((dict(left=True), "other side"), (dict(not_ginverse=True), "not a generalized inverse"),
                     (dict(unique=True), "same matrix")):
        res = dyn.eq15_16_ginverse_check(**kw)
        assert res.rejected_on_value and res.claim.startswith("Falsifier:") and word in res.claim
    with pytest.raises(ValueError, match="at most one"):
        dyn.eq15_16_ginverse_check(left=True, unique=True)


# -- the stored longer sweep and the catapult's mechanism ----------------------------------------------

def test_save_and_load_sweep_round_trip(sweep2, tmp_path):
    dyn.save_sweep(sweep2, tmp_path / "s", config=dict(note="test"))
    back = dyn.load_sweep(tmp_path / "s")
    assert back["seeds"] == [0, 1] and back["config"]["config"] == dict(note="test")
    np.testing.assert_array_equal(back["epochs"], sweep2["epochs"])
    np.testing.assert_allclose(back["lam_max"], sweep2["lam_max"], rtol=1e-15)
    np.testing.assert_allclose(back["gaps"], sweep2["gaps"], rtol=1e-6)  # stored with 7 digits
    for k in ("Lmin", "edge", "lr", "sigma_max", "spike"):
        assert back[k] == sweep2[k]
    assert back["rows"] == sweep2["rows"]
    assert all(type(a) is type(b) for r, q in zip(back["rows"], sweep2["rows"]) for a, b in zip(r.values(), q.values()))
    with pytest.raises(FileNotFoundError, match="t1d_long_sweep"):
        dyn.load_sweep(tmp_path / "empty")


def test_committed_long_sweep_is_the_documented_run():
    long = dyn.load_sweep()
    cfg = long["config"]["config"]
    assert {k: cfg[k] for k in dyn.LONG_SWEEP} == dyn.LONG_SWEEP
    assert list(long["epochs"]) == list(range(0, cfg["epochs"] + 1, cfg["every"]))
    assert long["gaps"].shape == (len(cfg["seeds"]), cfg["epochs"] + 1)
    for row, gaps, lam in zip(long["rows"], long["gaps"], long["lam_max"]):
        assert row["rise"] == pytest.approx(dyn.rise_factor(gaps), rel=1e-5)
        assert row["spike"] == (row["rise"] > long["spike"])
        assert row["lam_peak"] == pytest.approx(lam.max(), rel=1e-15)
        assert row["lam_final"] == pytest.approx(lam[-1], rel=1e-15)
        above = long["epochs"][lam > long["edge"]]
        assert row["first_above"] == (int(above[0]) if above.size else -1)


def test_catapult_steps_alternate_and_grow_as_the_quadratic_model_says(data2, sweep2):
    gap = sweep2["gaps"][0]
    start = int(np.flatnonzero(np.diff(gap) > 0)[0]) + 1  # the first epoch at which seed 0's loss rose
    cat = dyn.catapult_steps(data2, seed=0, start=start, steps=8, n=2, R=2, lr=1.0)
    assert list(cat["epochs"]) == list(range(start, start + 9))
    np.testing.assert_allclose(cat["losses"] - sweep2["Lmin"], gap[: cat["losses"].size], rtol=1e-8)
    # own computation of the projections
    net = ShortcutNetwork(2, 2, 2)
    from resnet_nb.core.train import gradient_descent

    ep = list(range(start, start + 10))
    res = gradient_descent(net, initialise(net, "small", seed=0), data2.stats(), 1.0, ep[-1], snapshot_epochs=ep)
    ev, vec = torch.linalg.eigh(hessian_linear(net, res.snapshots[start], data2.stats()))
    v = vec[:, -1]
    proj = np.array([float((res.snapshots[e + 1] - res.snapshots[e]).reshape(-1) @ v) for e in ep[:-1]])
    sign = np.sign(proj[0] * cat["proj"][0])  # an eigenvector is defined up to sign
    np.testing.assert_allclose(sign * cat["proj"], proj, rtol=1e-8, atol=1e-14)
    assert cat["lam"] == pytest.approx(float(ev[-1])) and cat["predicted"] == pytest.approx(1 - float(ev[-1]))
    assert cat["lam"] > 2.0  # above 2 / lr: the quadratic model is unstable along v
    assert (cat["ratio"] < 0).all()  # every step reverses the previous one
    assert cat["growth"] == pytest.approx(abs(cat["predicted"]), rel=0.1)
    with pytest.raises(ValueError):
        dyn.catapult_steps(data2, steps=1)
