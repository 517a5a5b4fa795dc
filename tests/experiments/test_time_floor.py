"""benchmarks/floor.py: the floor computes what the engine computes (same final losses, same
divergences), and the extrapolation helpers do what they say."""

import sys

import numpy as np
import pytest

from resnet_nb.core.paths import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
floor = pytest.importorskip("floor")

from resnet_nb.experiments import fig3, fig9, fig10  # noqa: E402


def _item(module, arch, depth, **kw):
    cfg = dict(module.SCALES["paper"], archs=[arch], depths=[depth], runs=2, epochs=40, lrs=[0.01, 0.3, 30.0], **kw)
    return module.configurations(cfg)[0]


@pytest.mark.parametrize("arch", ["xavier", "2-shortcut", "3-shortcut"])
def test_linear_floor_follows_engine(arch):
    item = _item(fig9, arch, 6)
    rows = fig9.run_one(item)
    _, chk = floor.floor_grid(item, rows)
    assert chk["same_divergences"] and chk["max_rel_diff"] < 1e-12
    assert any(r["diverged"] for r in rows) and not all(r["diverged"] for r in rows)


@pytest.mark.parametrize("arch", ["orthogonal", "2-shortcut"])
def test_relu_floor_follows_engine(arch):
    item = dict(_item(fig10, arch, 4), n_per_class=10)
    rows = fig10.run_one(item)
    _, chk = floor.floor_grid(item, rows)
    assert chk["same_divergences"] and chk["max_rel_diff"] < 1e-12
    assert any(r["diverged"] for r in rows)


def test_fig3_floor_follows_engine():
    item = dict(fig3.configurations(dict(fig3.SCALES["default"], depths=[4], relu=[True]))[0], epochs=20)
    _, chk = floor.floor_fig3(item, fig3.run_one(item))
    assert chk["same_divergences"] and chk["max_rel_diff"] < 1e-12


def test_makespan_longest_first():
    assert floor.makespan([3.0, 3.0, 2.0, 2.0, 2.0], [3, 3, 2, 2, 2]) == pytest.approx(7.0)
    assert floor.makespan([10.0, 1.0, 1.0], [10, 1, 1]) == pytest.approx(10.0)


def test_assign_nearest_depth_same_group():
    module = fig9
    paper = module.configurations(module.SCALES["paper"])
    plan = floor.PLAN["fig9"]
    sampled = [(p, floor.shorten("fig9", p, plan)) for p in paper if plan["pick"](p)]
    pairs = floor.assign("fig9", plan, paper, sampled)
    for it, (j, fac) in zip(paper, pairs):
        s = sampled[j][0]
        assert s["arch"] == it["arch"] and fac > 0
        others = [p["depth"] for p, _ in sampled if p["arch"] == it["arch"]]
        assert abs(np.log(s["depth"] / it["depth"])) == min(abs(np.log(d / it["depth"])) for d in others)


@pytest.mark.parametrize("n,R,shortcut", [(2, 3, True), (3, 2, False)])
def test_relu_hessian_does_the_products_the_diagnostic_times(n, R, shortcut):
    """hessian_build_diagnostic times L^2 products (d^2 x m) @ (m x d^2) as the least the ReLU
    Hessian's assembly does (the chapter's P^2 m multiply-adds): the assembly does exactly those."""
    import torch

    import resnet_nb as rn
    from resnet_nb.core.relu_hessian import hessian_mid_relu

    d, m = 3, 40
    net = rn.ShortcutNetwork(d, n, R, shortcut=shortcut, mid="relu")
    W = rn.initialise(net, "xavier", seed=2)
    with torch.profiler.profile(record_shapes=True) as prof:
        hessian_mid_relu(net, W, rn.synthetic_linear(d=d, m=m, seed=1))
    shapes = [e.input_shapes for e in prof.events() if e.name == "aten::mm"]
    assert sum(s[:2] == [[d * d, m], [m, d * d]] for s in shapes) == net.depth**2
