"""Paper-scale reproduction against its floor: ``python benchmarks/floor.py [--repeats 3] [--quick]``.

For every figure of ``python -m resnet_nb reproduce all --scale paper``, a sample of its work
items is run in this one process, twice over in alternation (``--repeats`` times, the order of
the two swapped every repeat; the median of each item is kept):

(a) **engine**: the item exactly as ``reproduce`` runs it, through
    :func:`resnet_nb.experiments.engine.run_items` (record written to a fresh temporary store,
    one item at a time, torch on one thread, as each ``--jobs`` worker process runs);
(b) **floor**: the irreducible kernels of the same item, with no bookkeeping:

    * training on sufficient statistics (linear networks; Figures 3, 6, 9): the batched
      products of the forward sweep, the closed-form gradient (Eq. 7) and the update, for the
      same weights, batch of runs x learning rates and number of steps;
    * training on the samples (ReLU networks; Figures 3, 7, 10): the bare batched forward and
      backward products on the 5,000 samples, the ReLU and its mask, and the update;
    * the convolutional network of Figure 2: ``model(x)``, the loss, ``backward`` and the
      SGD step (momentum, weight decay) over the same mini-batches; the per-epoch evaluation
      on the whole training set and the weight norms are left out (bookkeeping);
    * Hessians (Figures 5, 6, 7): float64 ``eigvalsh`` of a random symmetric matrix of each
      Hessian's size (the figures need eigenvalues only), drawn before the clock starts.

    A run that diverges leaves the floor's batch at the step it diverges (its further steps
    are not needed); the floor follows the engine's trajectory exactly, which is checked: its
    final losses equal the engine's (to rounding) for the runs that did not diverge.

The update is counted in the floor: a training step that does not update the weights is
not a step of the same run, and without it the runs would not diverge where the engine's do.

**Sample and extrapolation.** A sampled item is a paper item, except that training is
shortened (fewer epochs; Hessian snapshots reduced in proportion, so the sample keeps the
paper item's mix of training and Hessians). Items are chosen per figure to cover its range
(depths, architectures, with and without ReLU; see :data:`PLAN`). The paper version of a
sampled item is estimated from the shortened one: for Figures 3, 9 and 10 (:data:`ZERO_EPOCH`)
the item is also run with 0 epochs, both ways, and its time is taken as that constant plus
the paper's epochs times the measured rate per epoch; for the others in proportion to the
epochs. Every paper item is then assigned to the sampled item of the same group
(architecture, or ReLU or not) with the nearest depth, and is estimated as the time of that
item's paper version times the ratio of their costs:
:func:`resnet_nb.experiments.progress.item_cost` for training (linear in epochs, depth, runs and
learning rates; weight layers times epochs for Figure 2), ``P^3`` for Figure 5's Hessians
(the cost of ``eigvalsh``). The ratio of a shortened sample (engine / floor) does not depend on
this extrapolation; the paper-scale ratio does, through the weights of the items. How good
the assignment is, is measured on the committed paper records: the same estimator applied to
the committed item times of the sampled items, against the committed total.

Per figure the JSON holds the sample's engine and floor times, their ratio, the extrapolated
paper-scale core-seconds of both, and the wall time on two worker processes (``--jobs 2``,
longest item first, as the engine schedules) against half the floor. Written to
``benchmarks/floor.json`` with the machine, its load average, torch threads, date and commit.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from resnet_nb.core import conv  # noqa: E402
from resnet_nb.experiments import engine, progress  # noqa: E402
from resnet_nb.shared import store  # noqa: E402
from resnet_nb.shared.common import initial_weights, mnist, network  # noqa: E402

BLOWUP = 1e12  # the engine's default (train.gradient_descent)
#: figures whose sampled items are also run with 0 epochs: an item's time is a constant (initial
#: weights, data, the first loss, the record) plus a rate per epoch, and only the rate is
#: multiplied up to the paper's epochs
ZERO_EPOCH = {"fig3", "fig9", "fig10"}

#: per figure: which paper items are sampled (``pick(item) -> bool``), how they are shortened
#: (epochs kept, snapshots kept) and the group key of the extrapolation
PLAN = {
    # 18 items (blocks 1..8 x 3 seeds, 60 epochs): blocks 2 and 6 of seed 0, 2 of 60 epochs
    "fig2": dict(
        pick=lambda it: it["seed"] == 0 and it["blocks"] in (2, 6),
        epochs=2,
        repeats=2,
        group=lambda it: "conv",
        depth=lambda it: it["blocks"],
    ),
    # 12 items (depths 2..64, with and without ReLU; 10 runs, 1,000 epochs, 100 snapshots)
    "fig3": dict(
        pick=lambda it: it["depth"] in (2, 16, 64),
        epochs=6,
        points=2,
        group=lambda it: "relu" if it["relu"] else "linear",
        depth=lambda it: it["depth"],
    ),
    # 530 Hessians (5 architectures, depths 2..96, 10 runs): one per depth up to 48, whole
    "fig5": dict(
        pick=lambda it: (
            it["run"] == 0
            and it["depth"] in (2, 4, 8, 16, 32, 48)
            and it["arch"]
            == {2: "xavier", 4: "orthogonal", 8: "1-shortcut", 16: "2-shortcut", 32: "xavier", 48: "3-shortcut"}[
                it["depth"]
            ]
        ),
        group=lambda it: "hessian",
        depth=lambda it: it["depth"],
    ),
    # 10 runs (2 architectures x 5 runs, depth 16, 1,000 epochs, 27 Hessians): run 0, 1/9 of it
    "fig6": dict(
        pick=lambda it: it["run"] == 0, epochs=111, points=3, group=lambda it: it["arch"], depth=lambda it: it["depth"]
    ),
    # 4 runs (ReLU, 2 architectures x 2 runs, 12 Hessians): run 0, 1/6 of it
    "fig7": dict(
        pick=lambda it: it["run"] == 0,
        epochs=167,
        points=2,
        repeats=2,
        group=lambda it: it["arch"],
        depth=lambda it: it["depth"],
    ),
    # 53 items (5 architectures x 12 depths, 10 runs x 9 learning rates, 1,000 epochs)
    "fig9": dict(
        pick=lambda it: it["depth"] in (2, 12, 96), epochs=20, group=lambda it: it["arch"], depth=lambda it: it["depth"]
    ),
    # 18 items (3 architectures x depths 2..64, 3 runs x 9 learning rates, 1,000 epochs)
    "fig10": dict(
        pick=lambda it: it["depth"] in (2, 8, 32), epochs=4, group=lambda it: it["arch"], depth=lambda it: it["depth"]
    ),
}
QUICK = {
    "fig2": dict(pick=lambda it: it["seed"] == 0 and it["blocks"] in (1, 3), epochs=1, repeats=1),
    "fig3": dict(pick=lambda it: it["depth"] in (2, 16), epochs=5),
    "fig5": dict(pick=lambda it: it["run"] == 0 and it["depth"] in (2, 8, 16) and it["arch"] == "xavier"),
    "fig6": dict(epochs=50, points=2),
    "fig7": dict(epochs=50, points=2, repeats=1),
    "fig9": dict(pick=lambda it: it["depth"] in (2, 12), epochs=5),
    "fig10": dict(pick=lambda it: it["depth"] in (2, 8), epochs=2),
}


# ------------------------------------------------------------------------------------------
# the floors
# ------------------------------------------------------------------------------------------


def _linear_train_floor(net, W0, stats, lr, epochs):
    """Bare gradient descent of a linear network on (Sxx, Syx): per step the forward sweep of
    d x d products, the gradient of every matrix (Eq. 7) and the update; a diverged run leaves
    the batch. ``W0`` (B, R, n, d, d), ``lr`` (B,). Returns the final loss per run (NaN: diverged)."""
    B, R, n, d = W0.shape[0], net.R, net.n, net.d
    Wu = W0.permute(1, 2, 0, 3, 4).contiguous()  # (R, n, B, d, d)
    Sxx, Syx, c = stats.Sxx.to(W0), stats.Syx.to(W0), 0.5 * float(stats.trSyy)
    eye = torch.eye(d, dtype=W0.dtype)
    lr = lr.reshape(1, 1, -1, 1, 1).clone()
    alive = torch.arange(B)
    final = torch.full((B,), float("nan"), dtype=W0.dtype)
    for epoch in range(epochs + 1):
        # forward: the map of every unit, and the products before it
        inner = [None] * n
        if n > 1:
            inner[1] = Wu[:, 0]
            for l in range(2, n):
                inner[l] = Wu[:, l - 1] @ inner[l - 1]
            T = Wu[:, n - 1] @ inner[n - 1]
        else:
            T = Wu[:, 0]
        if net.shortcut:
            T = T + eye
        before = [eye.expand_as(T[0])]
        for r in range(1, R):
            before.append(T[r - 1] @ before[-1])
        E = T[R - 1] @ before[-1]
        ES = E @ Sxx
        loss = 0.5 * (ES * E).sum((-2, -1)) - (E * Syx).sum((-2, -1)) + c
        bad = ~torch.isfinite(loss) | (loss > BLOWUP)
        if bool(bad.any()):
            keep = ~bad
            alive, Wu, lr = alive[keep], Wu[:, :, keep], lr[:, :, keep]
            ES, E, loss, before = ES[keep], E[keep], loss[keep], [b[keep] for b in before]
            T = T[:, keep]
            inner = [None if x is None else x[:, keep] for x in inner]
            if alive.numel() == 0:
                return final.numpy()
        if epoch == epochs:
            final[alive] = loss
            break
        # backward: (dL/dT_r)^T = (T_{r-1} .. T_0) (dL/dE)^T (T_{R-1} .. T_{r+1}), then within units
        back = [None] * R
        back[R - 1] = (ES - Syx).transpose(-1, -2)
        for r in range(R - 1, 0, -1):
            back[r - 1] = back[r] @ T[r]
        Dt = torch.stack(before) @ torch.stack(back)  # (R, B, d, d)
        outer, grads = None, [None] * n
        for l in range(n - 1, -1, -1):
            right = Dt if outer is None else Dt @ outer
            grads[l] = inner[l] @ right if l > 0 else right  # (dL/dW_l)^T
            if l > 0:
                outer = Wu[:, l] if outer is None else outer @ Wu[:, l]
        for l in range(n):  # the update, after every gradient
            Wu[:, l] -= lr[:, 0] * grads[l].transpose(-1, -2)
    return final.numpy()


def _samples_train_floor(net, W0, X, Y, lr, epochs):
    """Bare gradient descent of a network with ReLUs at the mid positions on the samples: per
    step the batched forward products (keeping the pre-activations), the backward products,
    the ReLU masks and the update; a diverged run leaves the batch. ``W0`` (B, R, n, d, d)."""
    assert net.pre.is_identity and net.post.is_identity and net.mid.name in ("relu", "identity")
    relu = net.mid.name == "relu"
    keep_zero = net.mid.d1_at_zero == 1.0  # sigma'(0): 1 (the default) or 0
    B, R, n = W0.shape[0], net.R, net.n
    m = X.shape[1]
    Wu = W0.permute(1, 2, 0, 3, 4).contiguous()  # (R, n, B, d, d)
    lr = lr.reshape(-1, 1, 1).clone()
    alive = torch.arange(B)
    final = torch.full((B,), float("nan"), dtype=W0.dtype)
    for epoch in range(epochs + 1):
        h = X.expand(alive.numel(), *X.shape)
        us, zs = [], []  # inputs and pre-activations of each matrix
        for r in range(R):
            u = h
            for l in range(n):
                us.append(u)
                z = Wu[r, l] @ u
                zs.append(z)
                u = torch.relu(z) if (relu and l < n - 1) else z
            h = h + u if net.shortcut else u
        res = h - Y
        loss = 0.5 * (res * res).sum((-2, -1)) / m
        bad = ~torch.isfinite(loss) | (loss > BLOWUP)
        if bool(bad.any()):
            keep = ~bad
            alive, Wu, lr, loss, res = alive[keep], Wu[:, :, keep], lr[keep], loss[keep], res[keep]
            us, zs = [u[keep] for u in us], [z[keep] for z in zs]
            if alive.numel() == 0:
                return final.numpy()
        if epoch == epochs:
            final[alive] = loss
            break
        g = res / m
        for r in range(R - 1, -1, -1):
            g_u = g
            for l in range(n - 1, -1, -1):
                k = r * n + l
                g_z = g_u
                if relu and l < n - 1:
                    g_z = g_u.masked_fill(zs[k] < 0 if keep_zero else zs[k] <= 0, 0.0)
                gW = g_z @ us[k].transpose(-1, -2)
                g_u = Wu[r, l].transpose(-1, -2) @ g_z
                Wu[r, l] -= lr * gW
            g = g + g_u if net.shortcut else g_u
    return final.numpy()


def _train_floor(item, W0, lrs, epochs):
    net = network(item["arch"] if item["arch"] != "he" else "xavier", item["depth"], relu=item["relu"])
    data = mnist(item.get("n_per_class"))
    W0 = W0.reshape((-1,) + tuple(W0.shape[-4:])).to(torch.float64)
    lr = torch.as_tensor(lrs, dtype=torch.float64).expand(W0.shape[0]).contiguous()
    if net.is_linear:
        return _linear_train_floor(net, W0, data.stats(), lr, epochs)
    return _samples_train_floor(net, W0, data.X.to(torch.float64), data.Y.to(torch.float64), lr, epochs)


def _grid_weights(item):
    """The initial weights (runs x learning rates) and learning rates of a Figure 9/10 item."""
    net = network(item["arch"], item["depth"], relu=item["relu"])
    runs, lrs = item["runs"], item["lrs"]
    W0 = initial_weights(item["arch"], net, seed=item["seed"], runs=runs)
    W0 = W0[:, None].expand(runs, len(lrs), *net.shape)
    return W0, torch.tensor(lrs, dtype=torch.float64)[None].expand(runs, len(lrs))


class Eigs:
    """Random symmetric float64 matrices of each size, drawn once, before any clock starts."""

    def __init__(self):
        self.cache = {}

    def prepare(self, P):
        if P not in self.cache:
            g = torch.Generator().manual_seed(P)
            S = torch.randn(P, P, dtype=torch.float64, generator=g)
            self.cache[P] = (S + S.T) / 2

    def __call__(self, P):
        torch.linalg.eigvalsh(self.cache[P])


EIGS = Eigs()


def floor_fig2(item, _engine_rows):
    data = conv.mnist_tensors(downsample=item["downsample"], seed=item["data_seed"])
    x, y = data.x_train[: item["n_train"]], data.y_train[: item["n_train"]]
    model = conv.ConvResNet(
        blocks=item["blocks"],
        channels=list(item["channels"]),
        batch_norm=item["batch_norm"],
        init=item["init"],
        seed=item["seed"],
    )
    lrs = conv.lr_schedule(item["lr"], item["epochs"], item["milestones"], item["factor"])
    opt = torch.optim.SGD(
        [p for p in model.parameters() if p.requires_grad],
        lr=lrs[0],
        momentum=item["momentum"],
        weight_decay=item["weight_decay"],
    )
    g = torch.Generator().manual_seed(item["seed"])
    n, bs = x.shape[0], item["batch_size"]
    torch.set_flush_denormal(True)
    try:
        t0 = time.perf_counter()
        model.train()
        for lr in lrs:
            for group in opt.param_groups:
                group["lr"] = lr
            order = torch.randperm(n, generator=g)
            for start in range(0, n, bs):
                idx = order[start : start + bs]
                loss = F.cross_entropy(model(x[idx]), y[idx])
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
        return time.perf_counter() - t0, None
    finally:
        torch.set_flush_denormal(False)


def floor_grid(item, engine_rows):
    """Figures 9 and 10: all runs x learning rates of one (architecture, depth)."""
    if item["arch"] == "he":
        raise NotImplementedError("the He variant is not part of reproduce all")
    W0, lrs = _grid_weights(item)
    t0 = time.perf_counter()
    final = _train_floor(item, W0, lrs.reshape(-1), item["epochs"])
    wall = time.perf_counter() - t0
    eng = np.array([r["final_loss"] for r in engine_rows], dtype=float)  # run-major, like ours
    return wall, _compare(eng, final)


def floor_fig3(item, engine_rows):
    net = network("2-shortcut", item["depth"], relu=item["relu"])
    W0 = initial_weights("2-shortcut", net, seed=item["seed"], runs=item["runs"])
    it = dict(item, arch="2-shortcut")
    t0 = time.perf_counter()
    final = _train_floor(it, W0, [item["lr"]] * item["runs"], item["epochs"])
    wall = time.perf_counter() - t0
    last = max(r["epoch"] for r in engine_rows)
    eng = np.array([r["loss"] if not r["diverged"] else np.nan for r in engine_rows if r["epoch"] == last])
    return wall, _compare(eng, final)


def floor_fig5(item, _engine_rows):
    P = network(item["arch"], item["depth"]).num_params
    t0 = time.perf_counter()
    EIGS(P)
    return time.perf_counter() - t0, None


def floor_dynamics(item, engine_rows):
    """Figures 6 and 7: one run trained, and eigvalsh at each Hessian the engine computed."""
    net = network(item["arch"], item["depth"], relu=item["relu"])
    W0 = initial_weights(item["arch"], net, seed=item["seed"])[None]
    hess = [r for r in engine_rows if r["kind"] == "hessian"]
    t0 = time.perf_counter()
    final = _train_floor(item, W0, [item["lr"]], item["epochs"])
    for _ in hess:
        EIGS(net.num_params)
    wall = time.perf_counter() - t0
    traj = {r["epoch"]: r["loss"] for r in engine_rows if r["kind"] == "trajectory"}
    return wall, _compare(np.array([traj[item["epochs"]]], dtype=float), final)


def _compare(engine_final, floor_final):
    """Largest relative difference of the final losses of the runs alive in both, and whether
    the same runs diverged."""
    a, b = np.asarray(engine_final, dtype=float), np.asarray(floor_final, dtype=float)
    ok = np.isfinite(a) & np.isfinite(b)
    err = float(np.max(np.abs(a[ok] - b[ok]) / np.abs(a[ok]))) if ok.any() else 0.0
    return {"max_rel_diff": err, "same_divergences": bool((np.isfinite(a) == np.isfinite(b)).all())}


FLOORS = {
    "fig2": floor_fig2,
    "fig3": floor_fig3,
    "fig5": floor_fig5,
    "fig6": floor_dynamics,
    "fig7": floor_dynamics,
    "fig9": floor_grid,
    "fig10": floor_grid,
}


# ------------------------------------------------------------------------------------------
# sample, measurement, extrapolation
# ------------------------------------------------------------------------------------------


def shorten(figure, item, plan):
    """The sampled version of a paper item: ``epochs`` (and ``points``) of ``plan`` if given."""
    out = dict(item)
    if "epochs" in plan:
        out["epochs"] = int(plan["epochs"])
        if figure == "fig2":
            out["milestones"] = [m for m in item["milestones"] if m < out["epochs"]]
    if "points" in plan:
        out["points"] = int(plan["points"])
    return out


def cost(figure, module, item):
    """What the extrapolation scales by: P^3 for a Figure 5 Hessian; for Figure 2 the weight
    layers (6 n + 4) times epochs (item_cost counts blocks + 8, which understates deep
    networks); else the engine's item_cost."""
    if figure == "fig5":
        return float(network(item["arch"], item["depth"]).num_params) ** 3
    if figure == "fig2":
        from resnet_nb.experiments import fig2

        return float(fig2.layers(item["blocks"], len(item["channels"]))) * item["epochs"]
    return progress.item_cost(module, item)


def assign(figure, plan, paper_items, sampled):
    """For every paper item, the index of its sampled item (same group, nearest depth in log
    scale) and the factor cost(paper item) / cost(the sampled item's paper version)."""
    module = engine.load_figure(figure)
    out = []
    for it in paper_items:
        same = [j for j, (p, _s) in enumerate(sampled) if plan["group"](p) == plan["group"](it)] or list(
            range(len(sampled))
        )
        j = min(
            same,
            key=lambda j: (abs(np.log(plan["depth"](sampled[j][0]) / plan["depth"](it))), plan["depth"](sampled[j][0])),
        )
        out.append((j, cost(figure, module, it) / cost(figure, module, sampled[j][0])))
    return out


def makespan(times, costs, jobs=2):
    """Wall time of the items on ``jobs`` processes, longest estimated cost first (the engine's order)."""
    load = [0.0] * jobs
    for _c, t in sorted(zip(costs, times), key=lambda ct: -ct[0]):
        k = int(np.argmin(load))
        load[k] += t
    return max(load)


def committed_check(figure, plan, paper_items, sampled, pairs):
    """The estimator applied to the committed paper records: estimated / committed total."""
    folder = store.results_dir(figure, "paper") / "records"
    if not folder.is_dir():
        return None
    walls = {}
    for p in folder.glob("*.json"):
        try:
            body = json.loads(p.read_text())["body"]
            walls[store.item_key(body["item"])] = float(body["provenance"]["wall_time_s"])
        except (ValueError, KeyError):
            continue
    keys = [store.item_key(it) for it in paper_items]
    if not all(k in walls for k in keys):
        return None
    module = engine.load_figure(figure)
    # the estimator with the committed times of the sampled (whole) paper items
    rate = [walls[store.item_key(p)] / cost(figure, module, p) for p, _s in sampled]
    est = sum(rate[j] * cost(figure, module, it) for it, (j, _f) in zip(paper_items, pairs))
    return {
        "committed_s": sum(walls[k] for k in keys),
        "estimated_s": est,
        "estimated_over_committed": est / sum(walls[k] for k in keys),
    }


def run_engine(figure, item):
    module = engine.load_figure(figure)
    with tempfile.TemporaryDirectory(prefix="floor-") as tmp:
        t0 = time.perf_counter()
        table = engine.run_items(module, {}, store_dir=Path(tmp) / "records", items=[item], progress=False)
        wall = time.perf_counter() - t0
    rows = table.drop(columns=["item_key"]).to_dict("records")
    return wall, rows


def measure_figure(figure, plan, repeats, log):
    module = engine.load_figure(figure)
    paper_items = module.configurations(module.SCALES["paper"])
    sampled = [(it, shorten(figure, it, plan)) for it in paper_items if plan["pick"](it)]
    if figure in ("fig5", "fig6", "fig7"):
        for _p, s in sampled:
            EIGS.prepare(network(s["arch"], s["depth"]).num_params)
    walls = [[] for _ in sampled]
    floors = [[] for _ in sampled]
    walls0 = [[] for _ in sampled]
    floors0 = [[] for _ in sampled]
    checks = [None] * len(sampled)
    repeats = plan.get("repeats", repeats)
    zero = figure in ZERO_EPOCH
    for rep in range(repeats):
        for i, (_p, s) in enumerate(sampled):
            variants = [(s, walls, floors)] + ([(dict(s, epochs=0), walls0, floors0)] if zero else [])
            for v, (s_v, w_out, f_out) in enumerate(variants):
                order = ("engine", "floor") if (rep + i + v) % 2 == 0 else ("floor", "engine")
                rows = None
                for what in order:
                    if what == "engine":
                        w, rows = run_engine(figure, s_v)
                        w_out[i].append(w)
                    else:
                        if rows is None:  # the floor needs the engine's result to compare with
                            rows = run_engine(figure, s_v)[1]
                        f, chk = FLOORS[figure](s_v, rows)
                        f_out[i].append(f)
                        if v == 0:
                            checks[i] = chk
            log(
                f"  {figure} rep {rep + 1}/{repeats} item {i + 1}/{len(sampled)}: "
                f"engine {walls[i][-1]:.2f} s, floor {floors[i][-1]:.2f} s"
                + (f" (0 epochs: {walls0[i][-1]:.2f} s, {floors0[i][-1]:.2f} s)" if zero else "")
            )
    wall_m = [statistics.median(w) for w in walls]
    floor_m = [statistics.median(f) for f in floors]
    # the time of each sampled item's paper version (whole epochs and snapshots)
    if zero:  # a constant (0 epochs: set-up, first loss) plus a rate per epoch
        wall0_m = [statistics.median(w) for w in walls0]
        floor0_m = [statistics.median(f) for f in floors0]
        paper_wall = [c + p["epochs"] * max(t - c, 0.0) / s["epochs"] for (p, s), t, c in zip(sampled, wall_m, wall0_m)]
        paper_floor = [
            c + p["epochs"] * max(t - c, 0.0) / s["epochs"] for (p, s), t, c in zip(sampled, floor_m, floor0_m)
        ]
    else:  # in proportion to the cost
        wall0_m = floor0_m = [None] * len(sampled)
        scale = [cost(figure, module, p) / cost(figure, module, s) for p, s in sampled]
        paper_wall = [t * k for t, k in zip(wall_m, scale)]
        paper_floor = [t * k for t, k in zip(floor_m, scale)]
    pairs = assign(figure, plan, paper_items, sampled)
    est_wall = [paper_wall[j] * fac for j, fac in pairs]
    est_floor = [paper_floor[j] * fac for j, fac in pairs]
    costs = [progress.item_cost(module, it) for it in paper_items]
    items_out = []
    for i, (p, s) in enumerate(sampled):
        desc = {k: s[k] for k in ("arch", "depth", "blocks", "relu", "run", "seed", "epochs", "points") if k in s}
        items_out.append(
            dict(
                desc,
                paper_epochs=p.get("epochs"),
                engine_s=walls[i],
                floor_s=floors[i],
                engine_median_s=wall_m[i],
                floor_median_s=floor_m[i],
                ratio=wall_m[i] / floor_m[i],
                engine_0_epochs_s=walls0[i] or None,
                floor_0_epochs_s=floors0[i] or None,
                paper_engine_s=paper_wall[i],
                paper_floor_s=paper_floor[i],
                represents=sum(1 for j, _f in pairs if j == i),
                check=checks[i],
            )
        )
    # the ratio of each repetition (its engine times over its floor times, run back to back),
    # median over repetitions: robust to a load that changes between repetitions
    paired = statistics.median(sum(w[k] for w in walls) / sum(f[k] for f in floors) for k in range(repeats))
    return {
        "figure": figure,
        "paper_items": len(paper_items),
        "sampled_items": len(sampled),
        "repeats": repeats,
        "paired_ratio": paired,
        "sample_engine_s": sum(wall_m),
        "sample_floor_s": sum(floor_m),
        "ratio": sum(wall_m) / sum(floor_m),
        "paper_engine_core_s": sum(est_wall),
        "paper_floor_core_s": sum(est_floor),
        "paper_ratio": sum(est_wall) / sum(est_floor),
        "paper_engine_wall_2jobs_s": makespan(est_wall, costs),
        "paper_floor_wall_2jobs_s": sum(est_floor) / 2,
        "committed_check": committed_check(figure, plan, paper_items, sampled, pairs),
        "items": items_out,
    }


def hessian_build_diagnostic(repeats, log):
    """Figure 7's Hessian: the exact Hessian of the depth-16 ReLU network on the 5,000 digits
    (:func:`resnet_nb.core.relu_hessian.hessian_mid_relu`) against eigvalsh of its size, and
    against the matrix products that assembly cannot avoid, timed in turn in every repetition
    (medians; the ratio of each repetition, then its median).

    The products: every entry of the Hessian is a sum over the m samples. The assembly forms,
    for every pair of matrices a <= b, the Gauss-Newton block as one (d^2 x m) @ (m x d^2)
    product, and for every pair a < b the second-order coupling as another; L^2 products in
    all, P^2 m multiply-adds. Here they run on random operands of those shapes, drawn before
    the clock starts, with nothing else (no sweeps, no per-sample contractions, no writes into
    the matrix): the least the assembly must do, against the ``4/3 P^3`` flops of eigvalsh.
    Also one pair of matrices both ways: the two products, against one product of half the
    multiply-adds after forming a per-sample tensor of d^3 entries (``pair_merged_over_two``)."""
    from resnet_nb.core.relu_hessian import hessian_mid_relu

    net = network("2-shortcut", 16, relu=True)
    W = initial_weights("2-shortcut", net, seed=0)
    data = mnist()
    P, d, L, m = net.num_params, net.d, net.depth, int(data.X.shape[1])
    EIGS.prepare(P)
    g = torch.Generator().manual_seed(0)
    left = torch.randn(d * d, m, dtype=torch.float64, generator=g)
    right = torch.randn(m, d * d, dtype=torch.float64, generator=g)

    def products():
        for _ in range(L * L):
            left @ right

    # one pair of matrices a < b both ways, on random per-sample factors of the right shapes:
    # the two products (Gauss-Newton over rows (q, t), coupling over rows (q, s)), their left
    # factors formed from z_a, z_b, g_b, against one product z_a @ C with the per-sample tensor
    # C[mu, p, t, s] = z_b[t] K[p, s] + g_b[s] M[p, t] formed first (in chunks of samples that
    # stay in cache), which halves the multiply-adds
    za, zb, gb = (torch.randn(d, m, dtype=torch.float64, generator=g) for _ in range(3))
    K = torch.randn(m, d, d, dtype=torch.float64, generator=g)
    M = torch.randn(m, d, d, dtype=torch.float64, generator=g)

    def pair_two():
        (za[:, None, :] * zb[None, :, :]).reshape(d * d, m) @ K.reshape(m, d * d)
        (gb[:, None, :] * za[None, :, :]).reshape(d * d, m) @ M.reshape(m, d * d)

    def pair_merged(chunk=250):
        acc = torch.zeros(d, d**3, dtype=torch.float64)
        for i in range(0, m, chunk):
            c = slice(i, i + chunk)
            C = zb.T[c, None, :, None] * K[c, :, None, :] + gb.T[c, None, None, :] * M[c, :, :, None]
            acc += za[:, c] @ C.reshape(-1, d**3)

    def per_pair(f, times=10):
        t0 = time.perf_counter()
        for _ in range(times):
            f()
        return (time.perf_counter() - t0) / times

    build, eig, prod, two, merged = [], [], [], [], []
    for _ in range(repeats):
        two.append(per_pair(pair_two))
        merged.append(per_pair(pair_merged))
        t0 = time.perf_counter()
        hessian_mid_relu(net, W, data)
        build.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        products()
        prod.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        EIGS(P)
        eig.append(time.perf_counter() - t0)
    med = statistics.median
    out = {
        "P": P,
        "samples": m,
        "d": d,
        "matrices": L,
        "repeats": repeats,
        "build_s": med(build),
        "eigvalsh_s": med(eig),
        "products_s": med(prod),
        "products": L * L,
        "product_madds": L * L * d**4 * m,
        "eigvalsh_flops": 4 * P**3 / 3,
        "build_over_eigvalsh": med(b / e for b, e in zip(build, eig)),
        "products_over_eigvalsh": med(p / e for p, e in zip(prod, eig)),
        "build_over_products": med(b / p for b, p in zip(build, prod)),
        "pair_two_products_s": med(two),
        "pair_merged_s": med(merged),
        "pair_merged_over_two": med(x / y for x, y in zip(merged, two)),
        "load_average": list(os.getloadavg()),
    }
    log(
        f"  fig7 Hessian build {out['build_s']:.2f} s, its products {out['products_s']:.2f} s, "
        f"eigvalsh {out['eigvalsh_s']:.2f} s; one pair merged / two products {out['pair_merged_over_two']:.2f}"
    )
    return out


def _git():
    """The commit and whether the package was modified: the engine's provenance routine."""
    from resnet_nb.shared.store import provenance

    return provenance()["git"]


def _warm_up(log):
    """First calls (data, kernels) outside the clock."""
    from resnet_nb.experiments import fig10

    mnist()
    mnist().stats()
    conv.mnist_tensors(downsample=True, seed=0)
    item = fig10.configurations(dict(fig10.SCALES["paper"], depths=[2], archs=["2-shortcut"]))[0]
    item = dict(item, epochs=1)
    run_engine("fig10", item)
    floor_grid(item, run_engine("fig10", item)[1])
    from resnet_nb.experiments import fig2

    item2 = dict(fig2.configurations(fig2.SCALES["paper"])[0], epochs=1, n_train=256, milestones=[])
    run_engine("fig2", item2)
    floor_fig2(item2, None)
    log("  warmed up")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="a smaller sample (a few minutes), for testing")
    ap.add_argument("--only", nargs="*", choices=sorted(PLAN), default=None)
    ap.add_argument("--out", default=str(HERE / "floor.json"))
    ap.add_argument(
        "--merge", action="store_true", help="with --only: keep the other figures of --out from their earlier run"
    )
    ap.add_argument(
        "--hessian-only",
        action="store_true",
        help="measure only Figure 7's Hessian build (against its products and eigvalsh) "
        "and replace that diagnostic in --out, keeping everything else",
    )
    args = ap.parse_args(argv)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    torch.set_num_threads(1)  # each --jobs worker process computes on one thread
    if args.hessian_only:
        mnist()
        hessian_build_diagnostic(1, log)  # first calls (data, kernels) outside the clock
        diag = dict(
            hessian_build_diagnostic(args.repeats, log),
            torch_threads=torch.get_num_threads(),
            git=_git(),
            written_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        )
        info = json.loads(Path(args.out).read_text())
        info.setdefault("diagnostics", {})["fig7_hessian"] = diag
        Path(args.out).write_text(json.dumps(info, indent=1, default=float))
        print(
            f"build / eigvalsh {diag['build_over_eigvalsh']:.2f}, products / eigvalsh "
            f"{diag['products_over_eigvalsh']:.2f}, build / products {diag['build_over_products']:.2f}; "
            f"written {args.out}"
        )
        return
    t_start = time.perf_counter()
    load_before = list(os.getloadavg())
    _warm_up(log)
    figures = []
    for figure in PLAN:
        if args.only is not None and figure not in args.only:
            continue
        plan = dict(PLAN[figure], **(QUICK.get(figure, {}) if args.quick else {}))
        figures.append(measure_figure(figure, plan, args.repeats, log))
        f = figures[-1]
        log(
            f"{figure}: sample engine {f['sample_engine_s']:.1f} s, floor {f['sample_floor_s']:.1f} s, "
            f"ratio {f['ratio']:.2f}"
        )
    diagnostics = (
        {
            "fig7_hessian": dict(
                hessian_build_diagnostic(args.repeats, log),
                written_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            )
        }
        if args.only is None or "fig7" in args.only
        else {}
    )
    if args.merge and args.only and Path(args.out).exists():
        done = {f["figure"] for f in figures}
        old = json.loads(Path(args.out).read_text())
        kept = [
            dict(f, separate_run=f.get("separate_run", old["written_utc"]))
            for f in old["figures"]
            if f["figure"] not in done
        ]
        figures = sorted(kept + figures, key=lambda f: list(PLAN).index(f["figure"]))
        diagnostics = dict(json.loads(Path(args.out).read_text()).get("diagnostics", {}), **diagnostics)
    eng = sum(f["paper_engine_core_s"] for f in figures)
    flo = sum(f["paper_floor_core_s"] for f in figures)
    total = {
        "paper_engine_core_s": eng,
        "paper_floor_core_s": flo,
        "paper_ratio": eng / flo,
        "paper_engine_wall_2jobs_s": sum(f["paper_engine_wall_2jobs_s"] for f in figures),
        "paper_floor_wall_2jobs_s": flo / 2,
    }
    total["paper_ratio_2jobs"] = total["paper_engine_wall_2jobs_s"] / total["paper_floor_wall_2jobs_s"]
    info = {
        "what": "paper-scale reproduction against its floor (benchmarks/floor.py)",
        "figures": figures,
        "total": total,
        "diagnostics": diagnostics,
        "not_computed": {"fig8": "reuses the records of fig6 (reproduce computes nothing for it)"},
        "quick": args.quick,
        "repeats": args.repeats,
        "machine": {
            "node": platform.node(),
            "cpu": store.cpu_fingerprint(),
            "cpu_count": os.cpu_count(),
            "platform": platform.platform(),
            "torch_threads": torch.get_num_threads(),
            "load_average_start": load_before,
            "load_average_end": list(os.getloadavg()),
        },
        "torch": torch.__version__,
        "git": _git(),
        "benchmark_wall_s": time.perf_counter() - t_start,
        "written_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    Path(args.out).write_text(json.dumps(info, indent=1, default=float))
    print(
        f"{'figure':8s} {'sample s':>9s} {'floor s':>8s} {'ratio':>6s} {'paper core-h':>12s} "
        f"{'floor core-h':>12s} {'2-job wall h':>12s}"
    )
    for f in figures:
        print(
            f"{f['figure']:8s} {f['sample_engine_s']:9.1f} {f['sample_floor_s']:8.1f} {f['ratio']:6.2f} "
            f"{f['paper_engine_core_s'] / 3600:12.2f} {f['paper_floor_core_s'] / 3600:12.2f} "
            f"{f['paper_engine_wall_2jobs_s'] / 3600:12.2f}"
        )
    print(
        f"{'total':8s} {'':9s} {'':8s} {total['paper_ratio']:6.2f} {eng / 3600:12.2f} {flo / 3600:12.2f} "
        f"{total['paper_engine_wall_2jobs_s'] / 3600:12.2f}"
    )
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
