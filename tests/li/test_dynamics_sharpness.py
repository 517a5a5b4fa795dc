"""Gradient descent from the small start (resnet_nb.li.dynamics.sharpness): lambda_max, the sharpness
trace and sweep over seeds, the stored longer sweep and the catapult's mechanism."""

import numpy as np
import pytest
import torch
from helpers import Stop, shared_scope, tol_of

import resnet_nb.li.dynamics as dyn
from resnet_nb import ShortcutNetwork, synthetic_linear
from resnet_nb.core.hessians import hessian_linear
from resnet_nb.core.init import initialise
from resnet_nb.core.train import gradient_descent

F64 = torch.float64


def sym(n, seed, shift=0.0):
    g = torch.Generator().manual_seed(seed)
    A = torch.randn(n, n, generator=g, dtype=F64)
    return (A + A.T) / 2 + shift * torch.eye(n, dtype=F64)


def test_sharpness_trace_crosses_the_edge_before_the_spike():
    from resnet_nb.li.dynamics import sharpness_trace

    data = synthetic_linear(4, 200, seed=0)
    tr = sharpness_trace(data, n=2, R=2, lr=0.1, epochs=100, every=50)
    assert list(tr["epochs"]) == [0, 50, 100] and tr["edge"] == pytest.approx(20.0)
    assert len(tr["losses"]) == 101 and np.all(np.isfinite(tr["lam_max"]))


def test_rise_factor_of_monotone_and_spiking_sequences():
    assert dyn.rise_factor([4.0, 2.0, 1.0, 0.5]) == pytest.approx(0.5)
    # a jump from a running minimum of 0.5 to 5: factor 10, whatever came before
    assert dyn.rise_factor([4.0, 0.5, 5.0, 0.1]) == pytest.approx(10.0)
    assert dyn.rise_factor([1.0, 1.0]) == 1.0
    with pytest.raises(ValueError, match=r"\bpositive\b"):
        dyn.rise_factor([1.0, 0.0, 2.0])
    with pytest.raises(ValueError, match="at least 2"):
        dyn.rise_factor([1.0])


@pytest.fixture(scope=shared_scope)
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
    with pytest.raises(ValueError, match=r"\bdiverged\b"):
        dyn.sharpness_sweep(data2, seeds=(0,), n=2, R=2, lr=3.0, epochs=50, every=10)
    with pytest.raises(ValueError, match=r"\bempty\b"):
        dyn.sharpness_sweep(data2, seeds=(), epochs=10, every=5)
    with pytest.raises(ValueError, match=r"\bspike\b"):
        dyn.sharpness_sweep(data2, seeds=(0,), epochs=10, every=5, spike=1.0)


def test_a_stored_sweep_reads_back_as_it_was_computed(sweep2, tmp_path):
    dyn.save_sweep(sweep2, tmp_path / "s", config=dict(n=2, R=2, note="test"))
    assert len(list((tmp_path / "s" / "records").glob("*.json"))) == 2  # one record per seed
    back = dyn.load_sweep(tmp_path / "s")
    assert back["seeds"] == [0, 1] and back["config"]["provenance"]["sweep"]["note"] == "test"
    assert {k: back["config"][k] for k in ("n", "R", "lr", "epochs", "every", "spike")} == dict(
        n=2, R=2, lr=1.0, epochs=200, every=20, spike=10.0
    )
    # the config holds the sweep's arguments, its seeds and the provenance, nothing else
    assert set(back["config"]) == {"n", "R", "lr", "epochs", "every", "spike", "seeds", "provenance"}
    np.testing.assert_array_equal(back["epochs"], sweep2["epochs"])
    assert back["epochs"].dtype.kind == "i"  # epochs are counts
    np.testing.assert_array_equal(back["lam_max"], sweep2["lam_max"])  # floats kept exactly
    np.testing.assert_array_equal(back["gaps"], sweep2["gaps"])
    for k in ("Lmin", "edge", "lr", "sigma_max", "spike"):
        assert back[k] == sweep2[k]
    assert back["rows"] == sweep2["rows"]
    assert all(type(a) is type(b) for r, q in zip(back["rows"], sweep2["rows"]) for a, b in zip(r.values(), q.values()))
    with pytest.raises(FileNotFoundError, match=r"\bpath\b"):
        dyn.load_sweep(tmp_path / "empty")
    with pytest.raises(ValueError, match=r"\bconfig\b"):
        dyn.save_sweep(sweep2, tmp_path / "t", config=dict(R=2))


def test_the_long_sweep_trains_only_the_seeds_not_stored(data2, tmp_path, monkeypatch):
    from resnet_nb.core import paths
    from resnet_nb.li.dynamics import sharpness
    from resnet_nb.shared.store import item_key

    trained = []
    real = sharpness.sharpness_sweep

    def spy(data, **kw):
        trained.append(list(kw["seeds"]))
        return real(data, **kw)

    monkeypatch.setattr(sharpness, "sharpness_sweep", spy)
    # the committed results stay untouched: the default folder points into tmp_path
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "default")
    cfg = dict(seeds=[0, 1], n=2, R=2, lr=1.0, epochs=200, every=20, spike=10.0)
    first = dyn.long_sweep_reproduce(tmp_path, data=data2, **cfg)
    dyn.long_sweep_reproduce(tmp_path, data=data2, **cfg)
    assert trained == [[0, 1]]  # the second call found both seeds stored
    (tmp_path / "records" / f"{item_key(dyn.sweep_item(1, cfg))}.json").unlink()
    again = dyn.long_sweep_reproduce(tmp_path, data=data2, **cfg)
    assert trained == [[0, 1], [1]]
    np.testing.assert_allclose(again["gaps"], first["gaps"], rtol=1e-8)  # seed 1 alone or beside seed 0
    assert not (tmp_path / "default").exists()  # the folder given was used, never the default


def test_a_damaged_sweep_record_is_refused(sweep2, tmp_path):
    dyn.save_sweep(sweep2, tmp_path, config=dict(n=2, R=2))
    path = sorted((tmp_path / "records").glob("*.json"))[0]
    path.write_text(path.read_text()[:200])  # a write cut short
    with pytest.raises(ValueError, match="damaged record .*truncated"):
        dyn.load_sweep(tmp_path)


def test_committed_long_sweep_is_the_documented_run():
    long = dyn.load_sweep()
    cfg = long["config"]
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


def test_lambda_max_is_the_largest_eigenvalue_on_both_branches():
    H = sym(6, 0)
    assert dyn.lambda_max(H) == float(torch.linalg.eigvalsh(H)[-1])  # dense up to 400
    H400 = sym(400, 1)
    assert dyn.lambda_max(H400) == float(torch.linalg.eigvalsh(H400)[-1])  # 400 is still dense
    # above 400: Lanczos for the largest *algebraic* eigenvalue; this matrix's eigenvalues are all
    # negative, the one of largest magnitude is the smallest
    H401 = sym(401, 2, shift=-30.0)
    ev = torch.linalg.eigvalsh(H401)
    assert float(ev[-1]) < 0 and abs(float(ev[0])) > abs(float(ev[-1])) + 10
    assert dyn.lambda_max(H401) == pytest.approx(float(ev[-1]), abs=1e-9)
    assert abs(float(ev[-2]) - float(ev[-1])) > 1e-3  # the second largest is told apart


def test_sharpness_trace_trains_the_network_it_is_given(spy, data2):
    with pytest.raises(Stop):
        dyn.sharpness_trace(data2, n=2, R=4, lr=0.5, epochs=1500, every=25, seed=0)
    c = spy[-1]
    net = c["net"]
    assert (net.d, net.n, net.R) == (2, 2, 4) and c["lr"] == 0.5 and c["epochs"] == 1500
    assert c["snaps"] == list(range(0, 1501, 25))
    assert torch.equal(c["W0"], initialise(net, "small", seed=0))
    with pytest.raises(Stop):
        dyn.sharpness_trace(data2, epochs=49, every=25, seed=2)
    assert spy[-1]["snaps"] == [0, 25]  # no snapshot past the last epoch
    assert torch.equal(spy[-1]["W0"], initialise(net, "small", seed=2))


def test_lambda_max_is_reproducible_above_the_dense_size():
    """Above 400 rows lambda_max uses Lanczos from a fixed start: two calls give the same float,
    which is numpy's largest eigenvalue to 100 P eps |lambda|max."""
    g = torch.Generator().manual_seed(5)
    A = torch.randn(450, 450, generator=g, dtype=F64)
    H = (A + A.T) / 2
    a, b = dyn.lambda_max(H), dyn.lambda_max(H)
    assert a == b
    ref = float(np.linalg.eigvalsh(H.numpy())[-1])
    assert a == pytest.approx(ref, abs=tol_of(450, abs(ref)))


def test_rise_factor_refuses_gaps_that_are_not_a_positive_finite_sequence():
    assert dyn.rise_factor([2.0, 3.0]) == 1.5  # the shortest sequence accepted, and a rise
    assert dyn.rise_factor(np.array([1e-300, 1.0, 0.5])) == pytest.approx(1e300)
    for bad in ([1.0], [[1.0, 2.0], [3.0, 4.0]], [], [1.0, -1e-12], [1.0, 0.0], [1.0, np.nan], [np.inf, 1.0]):
        with pytest.raises(ValueError, match=r"\bgaps\b"):
            dyn.rise_factor(bad)


def test_sharpness_sweep_reports_its_settings_and_each_seeds_peak(data2, sweep2):
    from resnet_nb.core.losses import optimum

    assert sweep2["seeds"] == [0, 1] and sweep2["lr"] == 1.0 and sweep2["spike"] == 10.0
    assert sweep2["Lmin"] == pytest.approx(float(optimum(data2.stats())[1]), rel=1e-12)
    for i, row in enumerate(sweep2["rows"]):
        lam = sweep2["lam_max"][i]
        assert row["peak_epoch"] == sweep2["epochs"][int(np.argmax(lam))] and row["peak_epoch"] > 0
        assert set(row) == {
            "seed",
            "lam_peak",
            "peak_epoch",
            "first_above",
            "rises",
            "rise",
            "spike",
            "final_gap",
            "lam_final",
        }


def test_sharpness_sweep_spike_threshold_is_strict(data2, sweep2):
    rise = sweep2["rows"][1]["rise"]  # seed 1: a rise by a factor between 1 and 10
    at = dyn.sharpness_sweep(data2, seeds=(1,), n=2, R=2, lr=1.0, epochs=200, every=20, spike=rise)
    assert at["rows"][0]["rise"] == rise and not at["rows"][0]["spike"] and at["spike"] == rise
    below = dyn.sharpness_sweep(data2, seeds=(1,), n=2, R=2, lr=1.0, epochs=200, every=20, spike=rise * (1 - 1e-9))
    assert below["rows"][0]["spike"]


def test_sharpness_sweep_argument_bounds(data2, spy):
    kw = dict(n=2, R=2, epochs=10, every=5)
    # just inside: seed 0 and a spike threshold just above 1 reach the trainer
    with pytest.raises(Stop):
        dyn.sharpness_sweep(data2, seeds=(0,), spike=1.0 + 1e-9, **kw)
    for bad, name in [(dict(seeds=(0, -1)), "seed"), (dict(seeds=()), "seeds"), (dict(spike=1.0), "spike")]:
        with pytest.raises(ValueError, match=rf"\b{name}\b"):
            dyn.sharpness_sweep(data2, **dict(dict(seeds=(0,)), **bad), **kw)
    assert len(spy) == 1


def test_sharpness_sweep_diverging_names_lr_and_the_seeds(data2):
    with pytest.raises(ValueError, match=r"\blr = 3\.0\b.*\[0\]"):
        dyn.sharpness_sweep(data2, seeds=(0,), n=2, R=2, lr=3.0, epochs=50, every=10)


def test_sharpness_sweep_trains_sharpness_traces_network_from_every_seed(data2, spy):
    with pytest.raises(Stop):
        dyn.sharpness_trace(data2)
    trace = spy[-1]
    with pytest.raises(Stop):
        dyn.sharpness_sweep(data2)
    c = spy[-1]
    net, tnet = c["net"], trace["net"]
    # the defaults are those of one trace: the same network, learning rate and length
    assert (net.d, net.n, net.R, net.shortcut) == (tnet.d, tnet.n, tnet.R, tnet.shortcut)
    assert (c["lr"], c["epochs"]) == (trace["lr"], trace["epochs"])
    with pytest.raises(Stop):
        dyn.sharpness_sweep(data2, seeds=(3, 5), n=3, R=1, lr=0.2, epochs=30, every=7)
    c = spy[-1]
    assert (c["net"].n, c["net"].R, c["lr"], c["epochs"], c["snaps"]) == (3, 1, 0.2, 30, [0, 7, 14, 21, 28])
    assert torch.equal(c["W0"], torch.stack([initialise(c["net"], "small", seed=s) for s in (3, 5)]))


def test_catapult_steps_trains_from_the_seed_past_the_last_step(data2, spy):
    with pytest.raises(Stop):
        dyn.catapult_steps(data2, seed=3, start=0, steps=2, n=3, R=2, lr=0.3)  # the smallest start, steps
    c = spy[-1]
    assert (c["net"].d, c["net"].n, c["net"].R, c["lr"]) == (2, 3, 2, 0.3)
    assert c["epochs"] == 3 and c["snaps"] == [0, 1, 2, 3]
    assert torch.equal(c["W0"], initialise(c["net"], "small", seed=3))
    with pytest.raises(Stop):
        dyn.catapult_steps(data2, start=10, steps=4)
    c = spy[-1]
    assert c["epochs"] == 15 and c["snaps"] == list(range(10, 16))
    assert torch.equal(c["W0"], initialise(c["net"], "small", seed=0))
    for bad, name in [(dict(start=-1), "start"), (dict(steps=1), "steps")]:
        with pytest.raises(ValueError, match=rf"\b{name}\b"):
            dyn.catapult_steps(data2, **bad)
