"""The drift of Theorem 1's spectrum at the small start (resnet_nb.li.dynamics.drift): evenness in eps,
the drift table against hand-computed Hessians, and the factor R on the runs' table."""

import numpy as np
import pandas as pd
import pytest
import torch
from helpers import labelled, tol_of

import resnet_nb.li.dynamics as dyn
from resnet_nb import ShortcutNetwork, synthetic_linear
from resnet_nb.core.hessians import hessian_linear
from resnet_nb.core.init import initialise

F64 = torch.float64


def linear_loss(data, shortcut):
    """The loss of a linear network on the samples, 0.5 |Y - E X|^2 / m."""
    return lambda W: 0.5 * ((data.Y - own_end_to_end(W, shortcut) @ data.X) ** 2).sum() / data.m


def own_hessian(loss, W):
    """The Hessian of ``loss`` at ``W``: autograd on the flat weight vector (numpy)."""
    return torch.autograd.functional.hessian(lambda w: loss(w.reshape(W.shape)), W.reshape(-1)).numpy()


def own_end_to_end(W, shortcut):
    """prod_r (I + W_{r,n} ... W_{r,1}) (or without the I for a plain network), multiplied out."""
    d = W.shape[-1]
    eye = torch.eye(d, dtype=F64)
    E = eye
    for r in range(W.shape[0]):
        U = eye
        for l in range(W.shape[1]):
            U = W[r, l] @ U
        E = (eye + U if shortcut else U) @ E
    return E


def test_evenness_holds_for_n_even_and_fails_for_n_odd(data2):
    even = dyn.evenness_check(data2, n=2, R=2)
    assert even.passed and even.value == 0.0 and even.values["odd"] == 0.0
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
            rows.append(dict(arch="2-shortcut", depth=depth, run=k, lam_max=sigma + c_of_R(R) * R * eps**2 * wiggle))
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
    with pytest.raises(ValueError, match=r"\btable\b.*2-shortcut"):
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
    with pytest.raises(ValueError, match=r"\btable\b.*two depths"):
        dyn.drift_R_law_check(_runs_table(lambda R: 2.5, depths=(4,)), sigma_max=1.0)


def test_drift_table_refuses_R_and_eps_out_of_range():
    data = synthetic_linear(2, 10, seed=0)
    with pytest.raises(ValueError, match=r"\bR\b"):
        dyn.drift_table((0,), (0.1,), data)
    for eps in (0.0, -0.01):
        with pytest.raises(ValueError, match=r"\beps\b"):
            dyn.drift_table((1,), (eps,), data)
    (row,) = dyn.drift_table((1,), (1e-12,), data)  # just inside: accepted
    assert row["eps"] == 1e-12 and row["R"] == 1


def test_drift_table_rows_against_hand_computed_hessians():
    data = synthetic_linear(2, 20, seed=0)
    Rs, epss = (1, 2), (0.05, 0.1)
    Sxx, Syx = data.stats().Sxx.numpy(), data.stats().Syx.numpy()
    sig = np.linalg.svd(Sxx - Syx, compute_uv=False).max()
    loss = linear_loss(data, True)
    for seed, rows in [(0, dyn.drift_table(Rs, epss, data)), (1, dyn.drift_table(Rs, epss, data, seed=1))]:
        V = initialise(ShortcutNetwork(2, 2, max(Rs)), "xavier", seed=seed)
        assert [(r["R"], r["eps"]) for r in rows] == [(R, e) for R in Rs for e in epss]
        for r in rows:
            R, eps = r["R"], r["eps"]
            assert set(r) == {"depth", "R", "eps", "lam_max", "sigma_max", "drift", "c"}
            assert r["depth"] == 2 * R
            H = own_hessian(loss, eps * V[:R])
            tol = tol_of(H.shape[0], max(1.0, np.abs(H).max()))
            assert abs(r["lam_max"] - np.linalg.eigvalsh(H).max()) <= tol
            assert abs(r["sigma_max"] - sig) <= tol_of(4, max(1.0, sig))
            assert r["drift"] == r["lam_max"] - r["sigma_max"] and r["drift"] > 10 * tol
            assert r["c"] == pytest.approx(r["drift"] / (R * eps**2), rel=1e-14, abs=0)


def _own_per_depth(table, eps, sigma):
    """Per depth of the 2-shortcut rows: the runs' drifts, c = drift / (R eps^2), k = drift / eps^2."""
    out = {}
    for depth in sorted(set(table["depth"])):
        lam = table[(table["arch"] == "2-shortcut") & (table["depth"] == depth)]["lam_max"].to_numpy(float)
        if lam.size:
            drift = lam - sigma
            out[depth] = dict(drift=drift, c=drift / (depth // 2 * eps**2), k=drift / eps**2)
    return out


def test_drift_per_unit_columns_against_the_runs_by_hand():
    # a drift that grows faster than R (c = R) and a sigma_max that is not 1: each column shows
    t = _runs_table(lambda R: float(R), sigma=0.7, eps=0.02, runs=3, depths=(2, 6, 12))
    df = dyn.drift_per_unit(t, eps=0.02, sigma_max=0.7)
    own = _own_per_depth(t, 0.02, 0.7)
    assert list(df["depth"]) == [2, 6, 12] and list(df["R"]) == [1, 3, 6] and (df["runs"] == 3).all()
    for (_, row), (depth, o) in zip(df.iterrows(), own.items()):
        assert row["depth"] == depth
        assert row["drift"] == pytest.approx(o["drift"].mean(), rel=1e-12)
        assert row["drift_std"] == pytest.approx(o["drift"].std(ddof=1), rel=1e-9)
        for q in ("c", "k"):
            assert row[q] == pytest.approx(o[q].mean(), rel=1e-12)
            assert row[q + "_std"] == pytest.approx(o[q].std(ddof=1), rel=1e-9)
            assert row[q + "_se"] == pytest.approx(o[q].std(ddof=1) / np.sqrt(3), rel=1e-9)
    assert df.attrs == dict(sigma_max=0.7, eps=0.02)


def test_drift_per_unit_eps_must_be_positive_and_sigma_max_not_negative():
    t = _runs_table(lambda R: 2.5)
    assert dyn.drift_per_unit(t, eps=1e-12, sigma_max=0.0).attrs == dict(sigma_max=0.0, eps=1e-12)
    for eps in (0.0, -0.01):
        with pytest.raises(ValueError, match=r"\beps\b"):
            dyn.drift_per_unit(t, eps=eps, sigma_max=1.0)
    with pytest.raises(ValueError, match=r"\bsigma_max\b"):
        dyn.drift_per_unit(t, eps=0.01, sigma_max=-1e-9)


def test_drift_R_law_check_reports_the_range_and_the_standard_error_it_compares():
    from resnet_nb.core.init import SMALL_SCALE

    t = _runs_table(lambda R: 2.0 + 0.01 * R, sigma=1.0, eps=SMALL_SCALE, runs=4, depths=(2, 4, 8))
    own = _own_per_depth(t, SMALL_SCALE, 1.0)
    means = {q: [o[q].mean() for o in own.values()] for q in ("c", "k")}
    ses = {q: [o[q].std(ddof=1) / 2 for o in own.values()] for q in ("c", "k")}
    drifts = [o["drift"].mean() for o in own.values()]
    slope = np.polyfit(np.log([1, 2, 4]), np.log(drifts), 1)[0]
    for falsify, q in ((False, "c"), (True, "k")):
        res = dyn.drift_R_law_check(t, falsify=falsify, sigma_max=1.0)
        labelled(res)
        rng, se = max(means[q]) - min(means[q]), max(ses[q])
        assert res.value == pytest.approx(rng, rel=1e-9) and res.tol == pytest.approx(3 * se, rel=1e-9)
        assert res.spread == pytest.approx(se, rel=1e-9) and res.op == "<="
        assert res.nontrivial == pytest.approx(min(drifts), rel=1e-12)
        v = res.values
        assert (v["range"], v["se"]) == (res.value, res.spread) and v["slope"] == pytest.approx(slope, rel=1e-9)
        assert v["c_lo"] == pytest.approx(min(means["c"]), rel=1e-12)
        assert v["c_hi"] == pytest.approx(max(means["c"]), rel=1e-12)
        assert len(res.lines) == 1 and v["q"] == q
    # two depths are enough
    two = dyn.drift_R_law_check(_runs_table(lambda R: 2.5, depths=(2, 4), eps=SMALL_SCALE), sigma_max=1.0)
    assert two.passed


def test_evenness_check_eps_must_be_positive():
    data = synthetic_linear(2, 10, seed=0)
    res = dyn.evenness_check(data, n=2, R=1, epss=(1e-12,))  # just inside: accepted
    assert res.value == 0.0
    for eps in (0.0, -0.01):
        with pytest.raises(ValueError, match=r"\beps\b"):
            dyn.evenness_check(data, n=2, R=1, epss=(0.01, eps))


def test_evenness_check_reports_the_odd_part_and_how_far_the_hessian_moved(data2):
    st = data2.stats()
    for n, seed, epss in ((2, 1, (0.03, 0.05)), (3, 0, (0.01, 0.02))):
        res = dyn.evenness_check(data2, n=n, R=2, epss=epss, seed=seed)
        labelled(res)
        net = ShortcutNetwork(2, n, 2)
        V = initialise(net, "xavier", seed=seed)
        H0 = hessian_linear(net, torch.zeros(net.shape, dtype=F64), st)
        Hp = {e: hessian_linear(net, e * V, st) for e in epss}
        Hm = {e: hessian_linear(net, -e * V, st) for e in epss}
        odd = max(float((Hp[e] - Hm[e]).abs().max()) for e in epss)
        moved = min(float((Hp[e] - H0).abs().max()) for e in epss)
        size = max(float(Hp[e].abs().max()) for e in epss)
        assert res.value == odd and res.nontrivial == moved
        assert (res.values["odd"], res.values["moved"], res.values["size"]) == (odd, moved, size)
        assert res.tol == pytest.approx(tol_of(net.num_params, size), rel=1e-12, abs=0)
        assert moved > 1e-6
        assert (odd == 0.0) == (n == 2)
