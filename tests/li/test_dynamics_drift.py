"""The drift of Theorem 1's spectrum at the small start (resnet_nb.li.dynamics.drift): evenness in eps,
the drift table against hand-computed Hessians, and the factor R on the runs' table."""

import numpy as np
import pandas as pd
import pytest
import torch
from helpers import tol_of

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


def test_drift_table_refuses_R_and_eps_out_of_range():
    data = synthetic_linear(2, 10, seed=0)
    with pytest.raises(ValueError, match="R must"):
        dyn.drift_table((0,), (0.1,), data)
    for eps in (0.0, -0.01):
        with pytest.raises(ValueError, match="eps"):
            dyn.drift_table((1,), (eps,), data)


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
