"""One command for the performance table: ``python benchmarks/run.py [--quick] [--device cuda]``.

Every row is a ratio of two timings taken side by side in this one run, on this machine:

* ``train``, ``relu``, ``fig5``, ``fig6``: the engine's figure code against the straightforward baseline
  of :mod:`baseline` on a reduced grid (same items, same seeds; the results are compared too);
* ``hessian``: an exact Hessian spectrum at depth 96 (P = 9,600) -- build the Hessian with
  ``hessian_linear`` and take all its eigenvalues -- against ``eigvalsh`` alone on a random
  symmetric matrix of the same size; its peak memory is measured in a fresh process;
* ``floor``: a lower bound on the whole paper-scale reproduction on this machine, from its
  two largest parts as the engine computes them (see :func:`bench_floor`). The reproduction
  figure by figure against its irreducible kernels (sampled work items, engine and floor
  interleaved) is ``benchmarks/floor.py``, written to ``benchmarks/floor.json``.

The table is printed and written to ``benchmarks/latest.json`` (with the machine, its load
average and the device) for the Performance appendix of the book.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

HESSIAN_SCRIPT = r"""
import json, resource, sys, time, torch
from resnet_nb.core import hessians
from resnet_nb.shared.common import initial_weights, mnist, network
depth, device, what = int(sys.argv[1]), sys.argv[2], sys.argv[3]
net = network("orthogonal", depth)
stats = mnist().stats().to(device=device)
P = net.num_params
def sync():
    if device.startswith("cuda"):
        torch.cuda.synchronize()
def rss_gb():
    # Peak resident memory of THIS process image. ru_maxrss is not it: Linux carries the
    # parent's resident size at fork over into the child's ru_maxrss, through exec, so a
    # child started from a large benchmark process would report the parent's memory.
    # VmHWM belongs to the address space, which exec replaces.
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 2**20
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
small = network("orthogonal", 2)  # warm-up: first-call costs are not part of the measurement
hessians.spectrum(hessians.hessian_linear(small, initial_weights("orthogonal", small, seed=0, device=device), stats))
torch.linalg.eigvalsh(torch.eye(200, dtype=torch.float64, device=device))
before = rss_gb()
out = {"P": P, "rss_before_gb": before}
if what == "hessian":
    W = initial_weights("orthogonal", net, seed=0, device=device)
    sync(); t0 = time.perf_counter(); H = hessians.hessian_linear(net, W, stats); sync()
    out["build_s"] = time.perf_counter() - t0
    t0 = time.perf_counter(); eigs = hessians.spectrum(H); sync()
    out["eigvalsh_hessian_s"] = time.perf_counter() - t0
else:
    g = torch.Generator(device=device).manual_seed(0)
    S = torch.randn(P, P, dtype=torch.float64, device=device, generator=g)
    S = S + S.T
    sync(); t0 = time.perf_counter(); torch.linalg.eigvalsh(S); sync()
    out["eigvalsh_random_s"] = time.perf_counter() - t0
out["peak_rss_gb"] = rss_gb()
if device.startswith("cuda"):
    out["peak_gpu_gb"] = torch.cuda.max_memory_allocated() / 2**30
print(json.dumps(out))
"""


def _time(fn, *args, **kw):
    t0 = time.perf_counter()
    out = fn(*args, **kw)
    return time.perf_counter() - t0, out


def bench_train(device, quick):
    import baseline

    from resnet_nb.experiments import fig9

    config = {
        "archs": ["xavier", "2-shortcut"],
        "depths": [8] if quick else [8, 16],
        "lrs": [0.01, 0.1, 1.0],
        "runs": 2,
        "epochs": 100,
        "seed": 0,
    }
    items = fig9.configurations(config)
    t_new, new = _time(lambda: [r for it in items for r in fig9.run_one(it, device)])
    t_old, old = _time(lambda: [r for it in items for r in baseline.fig9_item(it, device)])
    a = np.array([r["final_loss"] for r in new], dtype=float)
    b = np.array([r["final_loss"] for r in old], dtype=float)
    ok = np.isfinite(a) & np.isfinite(b)
    err = float(np.max(np.abs(a[ok] - b[ok]) / np.abs(b[ok]))) if ok.any() else float("nan")
    same_div = bool((np.isfinite(a) == np.isfinite(b)).all())
    return {
        "name": "train (Fig 9 grid)",
        "engine_s": t_new,
        "baseline_s": t_old,
        "detail": f"{len(items)} items, {sum(len(i['lrs']) * i['runs'] for i in items)} runs x "
        f"{config['epochs']} epochs; max rel. difference of final losses {err:.1e}, "
        f"same divergences: {same_div}",
        "target": ">= 10x",
        "met": t_old / t_new >= 10 and err < 1e-8 and same_div,
    }


def bench_relu_train(device, quick):
    """Figure 10's computation (ReLU networks on the 5,000 samples) against the per-configuration
    loop; the engine as it was before backpropagation was written out (batched autograd, diverged
    runs still computed) is timed in the same run, to show what that change bought."""
    import baseline
    import torch

    from resnet_nb.core import train
    from resnet_nb.experiments import fig10

    config = {
        "archs": ["xavier", "2-shortcut"],
        "depths": [8] if quick else [8, 16],
        "lrs": [0.01, 0.1, 1.0, 10.0],
        "runs": 2,
        "epochs": 10 if quick else 30,
        "seed": 0,
    }
    items = fig10.configurations(config)

    def autograd_step(net, W, X, Y, alive):  # the previous engine's step
        W = W.detach().requires_grad_(True)
        L = train.batched_sample_loss(net, W, X, Y)
        (g,) = torch.autograd.grad(L.sum(), W)
        return L.detach(), g

    t_new, new = _time(lambda: [r for it in items for r in fig10.run_one(it, device)])
    step = train._samples_step
    train._samples_step = autograd_step
    try:
        t_prev, prev = _time(lambda: [r for it in items for r in fig10.run_one(it, device)])
    finally:
        train._samples_step = step
    t_old, old = _time(lambda: [r for it in items for r in baseline.fig9_item(it, device)])
    a, p, b = (np.array([r["final_loss"] for r in rows], dtype=float) for rows in (new, prev, old))
    ok = np.isfinite(a) & np.isfinite(b)
    err = float(np.max(np.abs(a[ok] - b[ok]) / np.abs(b[ok]))) if ok.any() else float("nan")
    same_div = bool((np.isfinite(a) == np.isfinite(b)).all() and (np.isfinite(a) == np.isfinite(p)).all())
    return {
        "name": "ReLU training (Fig 10 grid)",
        "engine_s": t_new,
        "baseline_s": t_old,
        "detail": f"{len(items)} items, {sum(len(i['lrs']) * i['runs'] for i in items)} runs x "
        f"{config['epochs']} epochs on 5,000 digits; batched autograd (the engine before "
        f"backpropagation was written out) {t_prev:.2f} s, {t_prev / t_new:.2f}x the engine; "
        f"max rel. difference of final losses {err:.1e}, same divergences: {same_div}",
        "target": ">= 10x",
        "met": t_old / t_new >= 10 and err < 1e-8 and same_div,
    }


def bench_fig5(device, quick):
    import baseline

    from resnet_nb.experiments import fig5

    config = {"archs": ["xavier", "2-shortcut"], "depths": [4] if quick else [4, 8], "runs": 1, "seed": 0}
    items = fig5.configurations(config)
    t_new, new = _time(lambda: [r for it in items for r in fig5.run_one(it, device)])
    t_old, old = _time(lambda: [r for it in items for r in baseline.fig5_item(it, device)])
    err = max(abs(x["cond"] - y["cond"]) / y["cond"] for x, y in zip(new, old))
    return {
        "name": "Hessian spectra (Fig 5 grid)",
        "engine_s": t_new,
        "baseline_s": t_old,
        "detail": f"{len(items)} Hessians up to P = {max(100 * it['depth'] for it in items)}; "
        f"max rel. difference of condition numbers {err:.1e}",
        "target": ">= 10x",
        "met": t_old / t_new >= 10 and err < 1e-6,
    }


def bench_fig6(device, quick):
    import baseline

    from resnet_nb.experiments import fig6
    from resnet_nb.experiments.fig3 import record_epochs

    item = fig6.configurations(
        {
            "archs": ["2-shortcut"],
            "depth": 4 if quick else 8,
            "relu": False,
            "lr": 0.1,
            "epochs": 50,
            "points": 5,
            "runs": 1,
            "seed": 0,
        }
    )[0]
    snaps = record_epochs(item["epochs"], item["points"])
    t_new, new = _time(fig6.run_one, item, device)
    t_old, old = _time(baseline.fig6_item, item, snaps, device)
    hess = [r for r in new if r["kind"] == "hessian"]
    err = max(abs(x["lam_max"] - y["lam_max"]) / y["lam_max"] for x, y in zip(hess, old))
    return {
        "name": "dynamics (Fig 6 run)",
        "engine_s": t_new,
        "baseline_s": t_old,
        "detail": f"depth {item['depth']}, {item['epochs']} epochs, {len(snaps)} Hessians; "
        f"max rel. difference of |lambda|max {err:.1e}",
        "target": ">= 10x",
        "met": t_old / t_new >= 10 and err < 1e-8,
    }


def bench_hessian(device, quick):
    """Exact spectrum (build + eigvalsh) and eigvalsh of a random symmetric matrix of the same
    size, each in a fresh process so that each peak memory is its own."""
    depth = 32 if quick else 96

    def child(what):
        res = subprocess.run(
            [sys.executable, "-c", HESSIAN_SCRIPT, str(depth), device, what], capture_output=True, text=True, check=True
        )
        return json.loads(res.stdout.strip().splitlines()[-1])

    h, ref = child("hessian"), child("reference")
    total = h["build_s"] + h["eigvalsh_hessian_s"]
    ratio = total / ref["eigvalsh_random_s"]
    mem = h.get("peak_gpu_gb", h["peak_rss_gb"])
    kind = "GPU" if "peak_gpu_gb" in h else f"process RSS, of which {h['rss_before_gb']:.2f} GB before the build"
    return {
        "name": f"exact spectrum at P = {h['P']}",
        "engine_s": total,
        "baseline_s": ref["eigvalsh_random_s"],
        "detail": f"build {h['build_s']:.2f} s + eigvalsh {h['eigvalsh_hessian_s']:.2f} s vs eigvalsh of a "
        f"random symmetric matrix {ref['eigvalsh_random_s']:.2f} s; peak memory {mem:.2f} GB ({kind})",
        "ratio_kind": "cost / eigvalsh",
        "ratio": ratio,
        "target": "<= 1.3x, <= 3 GB",
        "met": ratio <= 1.3 and mem <= 3.0,
    }


def bench_floor(device, quick, rows):
    """A lower bound on the paper-scale reproduction on this machine, from two of its parts alone.

    * Figure 5's 50 spectra at depth 96 (P = 9,600): 50 x the time of ``eigvalsh`` on a random
      symmetric matrix of that size, taken from the ``hessian`` row of this run (scaled as P^3
      from P = 3,200 in quick mode). They use both cores.
    * Figure 10's training: every item at depth 64 (three architectures, 3 runs x 9 learning
      rates on 5,000 digits) for a few epochs, per-epoch time times 1,000 epochs, times
      126 / 64 for the depths 2..64 (an item's cost grows linearly with depth). Items run one
      thread each, two at a time, so half of it counts.

    Everything else (Figures 2, 3, 6, 7, 9, the smaller spectra) is left out, so the true time
    is larger. The target is 60 minutes."""
    from resnet_nb.experiments import fig10

    h = next((r for r in rows if r["name"].startswith("exact spectrum")), None)
    if h is None:
        raise ValueError("the floor needs the hessian row of the same run (--only ... hessian floor)")
    P = int(h["name"].rsplit("=", 1)[1].replace(",", ""))
    eig96 = h["baseline_s"] * (9600 / P) ** 3
    cfg = dict(fig10.SCALES["paper"], depths=[64], epochs=3 if quick else 10)
    items = fig10.configurations(cfg)
    t_train, _ = _time(lambda: [fig10.run_one(it, device) for it in items])
    per_epoch = t_train / cfg["epochs"]
    fig10_s = per_epoch * 1000 * sum(fig10.SCALES["paper"]["depths"]) / 64
    floor_s = 50 * eig96 + fig10_s / 2
    return {
        "name": "paper scale: lower bound",
        "engine_s": floor_s,
        "baseline_s": 3600.0,
        "ratio_kind": "bound / 60 min",
        "ratio": floor_s / 3600.0,
        "detail": f"Fig 5 at depth 96 alone: 50 x {eig96:.1f} s eigvalsh = {50 * eig96 / 60:.0f} min; "
        f"Fig 10 training alone: {per_epoch:.2f} s per epoch for the three depth-64 items, "
        f"projected {fig10_s / 60:.0f} core-min, {fig10_s / 120:.0f} min on two cores; "
        f"the other figures not counted",
        "target": "<= 1.0 (60 min)",
        "met": floor_s <= 3600.0,
    }


def matmul_rate(device, n=3000):
    """float64 matrix-product speed of this machine in GFLOP/s (best of three), to compare machines:
    every absolute time on the Performance page scales roughly with it."""
    import torch

    A = torch.randn(n, n, dtype=torch.float64, device=device)
    best = float("inf")
    for _ in range(3):
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        A @ A
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - t0)
    return 2 * n**3 / best / 1e9


def committed_paper_times():
    """Wall time of the committed paper-scale results, from their provenance files."""
    out = {}
    for p in sorted((HERE.parent / "results").glob("*/paper/provenance.json")):
        prov = json.loads(p.read_text())
        out[prov["figure"]] = {"items": prov["items"], "wall_s": prov["items_wall_time_s"], "device": prov["device"]}
    return out


def _warm_up(device):
    """Load the data and touch every code path once, so that no timing includes first-call costs."""
    import baseline

    from resnet_nb.experiments import fig5, fig9
    from resnet_nb.shared.common import mnist

    mnist()
    item = fig9.configurations(
        {"archs": ["2-shortcut"], "depths": [2], "lrs": [0.1], "runs": 1, "epochs": 2, "seed": 0}
    )[0]
    fig9.run_one(item, device)
    baseline.fig9_item(item, device)
    item5 = fig5.configurations({"archs": ["2-shortcut"], "depths": [2], "runs": 1, "seed": 0})[0]
    fig5.run_one(item5, device)
    baseline.fig5_item(item5, device)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller grids (about a minute)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--only", nargs="*", choices=["train", "relu", "fig5", "fig6", "hessian", "floor"], default=None)
    ap.add_argument("--out", default=str(HERE / "latest.json"))
    args = ap.parse_args(argv)
    import torch

    from resnet_nb.experiments import engine
    from resnet_nb.shared import store

    engine.require_device(args.device)
    _warm_up(args.device)
    gflops = matmul_rate(args.device)
    print(f"  float64 matrix product: {gflops:.0f} GFLOP/s", file=sys.stderr)
    rows = []
    for name, fn in [
        ("train", bench_train),
        ("relu", bench_relu_train),
        ("fig5", bench_fig5),
        ("fig6", bench_fig6),
        ("hessian", bench_hessian),
        ("floor", bench_floor),
    ]:
        if args.only is None or name in args.only:
            rows.append(fn(args.device, args.quick, rows) if name == "floor" else fn(args.device, args.quick))
            print(f"  done: {rows[-1]['name']}", file=sys.stderr)
    for r in rows:
        r.setdefault("ratio_kind", "baseline / engine")
        r.setdefault("ratio", r["baseline_s"] / r["engine_s"])
    print(f"{'benchmark':32s} {'engine s':>9s} {'reference s':>11s} {'ratio':>8s}  {'target':18s} met")
    for r in rows:
        print(
            f"{r['name']:32s} {r['engine_s']:9.2f} {r['baseline_s']:11.2f} {r['ratio']:7.2f}x  "
            f"{r['target']:18s} {'yes' if r['met'] else 'NO'}"
        )
        print(f"    {r['detail']}")
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    if args.only is not None and Path(args.out).exists():  # keep the rows not rerun
        kept = [r for r in json.loads(Path(args.out).read_text())["rows"] if r["name"] not in {x["name"] for x in rows}]
        rows = kept + rows
    info = {
        "machine": {
            "node": platform.node(),
            "processor": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count(),
            "platform": platform.platform(),
            "torch_threads": torch.get_num_threads(),
            "load_average": load,
            "cpu": store.cpu_fingerprint(),
            "matmul_gflops_f64": gflops,
        },
        "device": store.device_description(args.device),
        "quick": args.quick,
        "torch": torch.__version__,
        "rows": rows,
        "paper_scale": committed_paper_times(),
        "written_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    Path(args.out).write_text(json.dumps(info, indent=1, default=float))
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
