"""The cases of the live explorer "training-from-zero" (resnet_nb/book/live/theorem1_dynamics.py) hold
the package's numbers, checked here against an independent computation: gradient descent by torch
autograd on the loss of the end-to-end product (not the trainer's closed-form Eq. 7), the autograd
Hessian (not the Kronecker assembly), and a least-squares solve on the samples for L_min."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from resnet_nb.book.live import theorem1_dynamics as live
from resnet_nb.book.live import to_json
from resnet_nb.core.data import SufficientStats
from resnet_nb.core.hessians import hessian
from resnet_nb.core.losses import loss_end_to_end
from resnet_nb.core.networks import ShortcutNetwork, end_to_end
from tests.helpers import shared_scope


@pytest.fixture(scope=shared_scope)
def exported():
    return to_json(live.export_cases())["training-from-zero"]


def _net_stats_w0(inp):
    net = ShortcutNetwork(inp["d"], inp["n"], inp["R"], shortcut=inp["shortcut"])
    t = lambda x: torch.tensor(x, dtype=torch.float64)  # noqa: E731
    stats = SufficientStats(Sxx=t(inp["Sxx"]), Syx=t(inp["Syx"]), trSyy=inp["trSyy"], m=live.SAMPLES)
    return net, stats, t(inp["W0"])


def _autograd_descent(net, stats, W0, lr, steps, transpose_syx=False):
    """Gradient descent by autograd on the loss of the end-to-end matrix; the loss before every step
    and the weights after every step. ``transpose_syx``: the slip tr(W Syx) for tr(W Syx^T)."""
    W = W0.clone().requires_grad_(True)
    losses, path = [], [W0.clone()]
    for _ in range(steps + 1):
        E = end_to_end(net, W)
        if transpose_syx:
            L = 0.5 * torch.trace(E @ stats.Sxx @ E.T) - torch.trace(E @ stats.Syx) + 0.5 * stats.trSyy
        else:
            L = loss_end_to_end(E, stats)
        losses.append(float(L.detach()))
        (g,) = torch.autograd.grad(L, W)
        with torch.no_grad():
            W = (W - lr * g).requires_grad_(True)
        path.append(W.detach().clone())
    return np.array(losses[: steps + 1]), path


def _rel(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.abs(a - b).max() / np.abs(b).max())


def test_every_architecture_is_exported_with_a_curve_and_its_algebra(exported):
    kinds = {(c["input"]["shortcut"], c["input"]["n"]) for c in exported}
    assert kinds == {(False, 1), (True, 1), (True, 2), (True, 3)}
    curves = [c for c in exported if set(c["output"]) == {"loss"}]
    assert len(curves) == len(live.CASES) and all(c["rtol"] == live.CURVE_RTOL for c in curves)
    assert all(len(c["output"]["loss"]) == live.STEPS + 1 for c in curves)
    algebra = [c for c in exported if "sharpness" in c["output"]]
    assert len(algebra) == len(live.CASES) and all(c["rtol"] == live.ALGEBRA_RTOL for c in algebra)
    assert max(c["input"]["n"] * c["input"]["R"] for c in curves) >= 16
    assert max(c["input"]["d"] for c in curves) == 4


def test_exported_loss_curves_match_autograd_gradient_descent(exported):
    worst = 0.0
    for c in (c for c in exported if "loss" in c["output"]):
        inp = c["input"]
        net, stats, W0 = _net_stats_w0(inp)
        ref, _ = _autograd_descent(net, stats, W0, inp["lr"], inp["steps"])
        worst = max(worst, _rel(c["output"]["loss"], ref))
        # the curve moves (by a margin of 10 over the tolerance): a page that returned the starting
        # loss at every step would fail the comparison
        moved = abs(ref[-1] - ref[0]) / abs(ref).max()
        assert moved > 10 * live.CURVE_RTOL or "exactly zero" in c["label"], c["label"]
    assert worst < 1e-10


def test_a_transposed_target_moment_fails_the_curve_comparison(exported):
    """The same comparison rejects the slip tr(W Syx) for tr(W Syx^T) in the reference."""
    c = next(c for c in exported if c["label"].startswith("plain, Xavier") and "loss" in c["output"])
    inp = c["input"]
    net, stats, W0 = _net_stats_w0(inp)
    wrong, _ = _autograd_descent(net, stats, W0, inp["lr"], inp["steps"], transpose_syx=True)
    assert _rel(c["output"]["loss"], wrong) > 1e3 * live.CURVE_RTOL


def test_exported_sharpness_gradient_and_hessian_match_autograd(exported):
    for c in (c for c in exported if "sharpness" in c["output"]):
        inp = c["input"]
        net, stats, W0 = _net_stats_w0(inp)
        _, path = _autograd_descent(net, stats, W0, inp["lr"], inp["steps"])
        lam = [float(torch.linalg.eigvalsh(hessian(net, path[t], stats))[-1]) for t in inp["sharpness_at"]]
        assert _rel(c["output"]["sharpness"], lam) < 1e-9, c["label"]
        W = W0.clone().requires_grad_(True)
        (g,) = torch.autograd.grad(loss_end_to_end(end_to_end(net, W), stats), W)
        assert np.abs(np.array(c["output"]["grad0"]) - g.numpy()).max() <= 1e-12 * max(1.0, float(g.abs().max()))
        if inp["hessian"]:
            assert _rel(c["output"]["hessian0"], hessian(net, W0, stats).numpy()) < 1e-12, c["label"]


def test_the_past_the_edge_case_crosses_two_over_eta(exported):
    """One case runs past the stability limit 2/lr (the figure's subject), within 50 steps."""
    c = next(c for c in exported if "past 2/lr" in c["label"] and "sharpness" in c["output"])
    assert max(c["output"]["sharpness"]) > 2 / c["input"]["lr"] > min(c["output"]["sharpness"])


def test_page_data_hold_the_least_squares_optimum():
    sets = to_json(live.export_data())["training-from-zero"]["datasets"]
    assert set(sets) == set(live.DATASETS)
    for name, by_d in sets.items():
        for d in range(1, 5):
            data = live.dataset(name, d)
            X, Y = data.X.numpy(), data.Y.numpy()
            sol, *_ = np.linalg.lstsq(X.T, Y.T, rcond=None)
            lmin = float(((Y - sol.T @ X) ** 2).sum() / (2 * data.m))
            assert by_d[str(d)]["Lmin"] == pytest.approx(lmin, rel=1e-10)
            # the target map is near +I ("near") or near -I ("far")
            Q = data.info["R"].numpy()
            sign = live.DATASETS[name]
            assert np.linalg.norm(Q - sign * np.eye(d), 2) < np.linalg.norm(Q + sign * np.eye(d), 2)


def test_a_diverging_case_is_refused_naming_the_learning_rate():
    with pytest.raises(ValueError, match=r"\blr\b"):
        live.case("too fast", False, 2, 1, 4, 50.0, "orthogonal", 0, "near", False)


def test_an_unknown_data_set_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"\bname\b"):
        live.dataset("mnist", 2)
