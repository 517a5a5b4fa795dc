"""Gradient descent from the small start (chapter: book/theorem1_dynamics.ipynb): sharpness and spikes.

Over several seeds, the sharpness lambda_max (:func:`lambda_max`) of the exact Hessian against 2/lr and the loss
spikes: :func:`sharpness_trace`, :func:`sharpness_sweep`, :func:`rise_factor` (the figure is drawn
by :func:`resnet_nb.book.li_figures.plot_sharpness_sweep`); the longer run stored under
``results/t1d_long_sweep``: :func:`long_sweep_reproduce`, :func:`save_sweep`, :func:`load_sweep`;
the mechanism of a catapult: :func:`catapult_steps`.
"""

from __future__ import annotations

import numpy as np
import torch

from resnet_nb.core.checks import check_float, check_int
from resnet_nb.core.data import as_stats
from resnet_nb.core.hessians import hessian_linear, spectrum
from resnet_nb.core.init import initialise
from resnet_nb.core.losses import optimum
from resnet_nb.core.networks import ShortcutNetwork
from resnet_nb.core.train import gradient_descent


def lambda_max(H: torch.Tensor) -> float:
    """The largest eigenvalue of a symmetric matrix (dense up to 400 rows, else Lanczos through
    scipy from a fixed start vector: ARPACK's own random start made repeated calls differ in the
    last digits)."""
    from scipy.sparse.linalg import eigsh

    if H.shape[0] <= 400:
        return float(torch.linalg.eigvalsh(H)[-1])
    v0 = np.random.default_rng(0).standard_normal(H.shape[0])
    return float(eigsh(H.numpy(), k=1, which="LA", return_eigenvectors=False, tol=1e-13, v0=v0)[0])


def sharpness_trace(
    data, n: int = 2, R: int = 4, lr: float = 0.5, epochs: int = 1500, every: int = 25, seed: int = 0
) -> dict:
    """lambda_max of the exact Hessian along the gradient-descent run of :func:`eq15_16_check`.

    Returns the epochs, lambda_max there, the losses, and the edge-of-stability threshold 2/lr
    (above it, gradient descent on the local quadratic model is unstable along the top eigenvector).
    """
    stats = as_stats(data)
    net = ShortcutNetwork(stats.d, n, R)
    snaps = list(range(0, epochs + 1, every))
    res = gradient_descent(net, initialise(net, "small", seed=seed), stats, lr, epochs, snapshot_epochs=snaps)
    lam = [float(spectrum(hessian_linear(net, res.snapshots[e], stats)).max()) for e in snaps]
    return dict(epochs=np.array(snaps), lam_max=np.array(lam), losses=np.asarray(res.losses), edge=2.0 / lr)


def rise_factor(gaps) -> float:
    """The largest jump of a positive sequence above its running minimum: max over t >= 1 of
    gaps[t] / min(gaps[:t]). At most 1 when the sequence never rises (monotone descent)."""
    g = np.asarray(gaps, dtype=float)
    if g.ndim != 1 or g.size < 2:
        raise ValueError(f"gaps must be a 1-d sequence of at least 2 values, got shape {g.shape}")
    if not (np.isfinite(g).all() and (g > 0).all()):
        raise ValueError("gaps must be positive and finite (loss minus L_min)")
    return float((g[1:] / np.minimum.accumulate(g)[:-1]).max())


def sharpness_sweep(
    data,
    seeds=range(8),
    n: int = 2,
    R: int = 4,
    lr: float = 0.5,
    epochs: int = 1500,
    every: int = 50,
    spike: float = 10.0,
) -> dict:
    """:func:`sharpness_trace` for several seeds of the small start, trained together.

    Returns the sampled ``epochs``, ``lam_max`` (seeds x samples), ``gaps`` (loss - L_min, seeds x
    epochs + 1), ``edge`` = 2 / lr, ``Lmin``, and one row per seed: the largest sampled lambda_max and
    its epoch, the first sampled epoch above 2 / lr (-1 if none), the number of epochs at which the
    loss rose, the :func:`rise_factor` of the gap, ``spike`` (that factor above ``spike``, a setting:
    a jump by an order of magnitude), the final gap and the final lambda_max.
    """
    stats = as_stats(data)
    seeds = [check_int("seed", s, minimum=0) for s in seeds]
    if not seeds:
        raise ValueError("seeds must not be empty")
    spike = check_float("spike", spike, low=1.0, low_open=True)
    net = ShortcutNetwork(stats.d, n, R)
    snaps = list(range(0, epochs + 1, every))
    W0 = torch.stack([initialise(net, "small", seed=s) for s in seeds])
    res = gradient_descent(net, W0, stats, lr, epochs, snapshot_epochs=snaps)
    losses = np.asarray(res.losses).reshape(len(seeds), epochs + 1)  # float64, as W0
    bad = [s for s, row in zip(seeds, losses) if not np.isfinite(row).all()]
    if bad:
        raise ValueError(f"gradient descent diverged at lr = {lr} for seeds {bad}; use a smaller learning rate")
    lam = np.array(
        [[lambda_max(hessian_linear(net, res.snapshots[e][i], stats)) for e in snaps] for i in range(len(seeds))]
    )
    Lmin = float(optimum(stats)[1])
    gaps = losses - Lmin
    edge = 2.0 / lr
    rows = []
    for i, s in enumerate(seeds):
        above = [e for e, v in zip(snaps, lam[i]) if v > edge]
        rf = rise_factor(gaps[i])
        rows.append(
            dict(
                seed=s,
                lam_peak=float(lam[i].max()),
                peak_epoch=int(snaps[int(np.argmax(lam[i]))]),
                first_above=int(above[0]) if above else -1,
                rises=int((np.diff(losses[i]) > 0).sum()),
                rise=rf,
                spike=bool(rf > spike),
                final_gap=float(gaps[i, -1]),
                lam_final=float(lam[i, -1]),
            )
        )
    return dict(
        epochs=np.array(snaps),
        seeds=seeds,
        lam_max=lam,
        gaps=gaps,
        Lmin=Lmin,
        edge=edge,
        lr=lr,
        sigma_max=float(torch.linalg.svdvals(stats.Sxx - stats.Syx).max()),
        rows=rows,
        spike=spike,
    )


#: the longer run of the seed sweep, stored under ``results/<LONG_SWEEP_DIR>/`` by
#: :func:`long_sweep_reproduce` (``scripts/t1d_long_sweep.py``) and read by :func:`load_sweep`
LONG_SWEEP_DIR = "t1d_long_sweep"
LONG_SWEEP = dict(seeds=list(range(8)), n=2, R=4, lr=0.5, epochs=6000, every=250, spike=10.0)
_SWEEP_ROW_TYPES = dict(
    seed=int,
    lam_peak=float,
    peak_epoch=int,
    first_above=int,
    rises=int,
    rise=float,
    spike=bool,
    final_gap=float,
    lam_final=float,
)


def save_sweep(sweep: dict, out, config: dict | None = None) -> None:
    """Write a :func:`sharpness_sweep` result to the folder ``out``: ``rows.csv`` (one row per
    seed), ``lam_max.csv`` (the sampled epochs, one column of lambda_max per seed), ``gaps.csv``
    (loss - L_min at every epoch, one column per seed) and ``config.json`` (the arguments, the
    scalars of the sweep and the provenance: git commit, versions, wall time if given)."""
    import json
    import os

    import pandas as pd

    os.makedirs(out, exist_ok=True)
    seeds = [int(s) for s in sweep["seeds"]]
    pd.DataFrame(sweep["rows"]).to_csv(os.path.join(out, "rows.csv"), index=False)
    cols = [f"seed{s}" for s in seeds]
    lam = pd.DataFrame(np.asarray(sweep["lam_max"]).T, columns=cols)
    lam.insert(0, "epoch", np.asarray(sweep["epochs"], dtype=int))
    lam.to_csv(os.path.join(out, "lam_max.csv"), index=False, float_format="%.17g")
    gaps = pd.DataFrame(np.asarray(sweep["gaps"]).T, columns=cols)
    gaps.insert(0, "epoch", np.arange(gaps.shape[0]))
    gaps.to_csv(os.path.join(out, "gaps.csv"), index=False, float_format="%.6e")
    from resnet_nb.experiments.engine import provenance

    prov = provenance()
    meta = dict(
        config=dict(config or {}),
        seeds=seeds,
        Lmin=float(sweep["Lmin"]),
        edge=float(sweep["edge"]),
        lr=float(sweep["lr"]),
        sigma_max=float(sweep["sigma_max"]),
        spike=float(sweep["spike"]),
        git_commit=prov["git"]["commit"] or "unknown",
        torch=prov["versions"]["torch"],
        numpy=prov["versions"]["numpy"],
        python=prov["versions"]["python"],
        threads=prov["machine"]["torch_threads"],
    )
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(meta, f, indent=1)


def load_sweep(path=None) -> dict:
    """A sweep stored by :func:`save_sweep` (default: the committed longer run,
    ``results/t1d_long_sweep``), as the dict :func:`sharpness_sweep` returns, plus ``config``."""
    import json
    from pathlib import Path

    import pandas as pd

    from resnet_nb.core.paths import results_dir

    d = results_dir(LONG_SWEEP_DIR) if path is None else Path(path)
    if not (d / "config.json").exists():
        raise FileNotFoundError(
            f"{d} holds no stored sweep: run `python scripts/t1d_long_sweep.py` from the repository root"
        )
    meta = json.loads((d / "config.json").read_text())
    rows = [
        {k: _SWEEP_ROW_TYPES.get(k, float)(v) for k, v in r.items()}
        for r in pd.read_csv(d / "rows.csv").to_dict("records")
    ]
    lam, gaps = pd.read_csv(d / "lam_max.csv"), pd.read_csv(d / "gaps.csv")
    cols = [f"seed{s}" for s in meta["seeds"]]
    return dict(
        epochs=lam["epoch"].to_numpy(dtype=int),
        seeds=list(meta["seeds"]),
        lam_max=lam[cols].to_numpy(dtype=float).T,
        gaps=gaps[cols].to_numpy(dtype=float).T,
        Lmin=meta["Lmin"],
        edge=meta["edge"],
        lr=meta["lr"],
        sigma_max=meta["sigma_max"],
        rows=rows,
        spike=meta["spike"],
        config=meta,
    )


def long_sweep_reproduce(out=None, data=None, **overrides) -> dict:
    """Run the longer seed sweep (:data:`LONG_SWEEP`: 8 seeds, 6,000 epochs, exact Hessian every
    250 epochs) and store it with :func:`save_sweep` under ``out`` (default
    ``results/t1d_long_sweep``). ``data`` defaults to whitened MNIST, the chapter's data."""
    import time

    from resnet_nb.core.data import whitened_mnist
    from resnet_nb.core.paths import results_dir

    cfg = dict(LONG_SWEEP, **overrides)
    source = "whitened_mnist()" if data is None else "given"
    data = whitened_mnist() if data is None else data
    t0 = time.time()
    sweep = sharpness_sweep(data, **cfg)
    save_sweep(
        sweep,
        results_dir(LONG_SWEEP_DIR) if out is None else out,
        dict(cfg, wall_s=round(time.time() - t0, 1), data=source),
    )
    return sweep


def catapult_steps(
    data, seed: int = 0, start: int = 400, steps: int = 15, n: int = 2, R: int = 4, lr: float = 0.5
) -> dict:
    """The mechanism of a catapult: gradient descent from the small start (one seed alone),
    the top eigenpair (lambda, v) of the exact Hessian at epoch ``start``, and the projections
    p_t = <w_{t+1} - w_t, v> of the next ``steps`` + 1 steps.

    On the local quadratic model the component along v is multiplied by 1 - lr lambda at every
    step, so consecutive steps have the ratio p_{t+1} / p_t = 1 - lr lambda: below -1 (a sign flip
    and growth) when lambda > 2 / lr. Returns ``epochs`` (t), ``proj``, ``ratio`` (p_{t+1} / p_t),
    ``lam``, ``predicted`` = 1 - lr lambda, ``growth`` (geometric mean of |ratio|) and ``losses``.
    """
    stats = as_stats(data)
    start, steps = check_int("start", start, minimum=0), check_int("steps", steps, minimum=2)
    net = ShortcutNetwork(stats.d, n, R)
    ep = list(range(start, start + steps + 2))
    res = gradient_descent(net, initialise(net, "small", seed=seed), stats, lr, ep[-1], snapshot_epochs=ep)
    ev, vec = torch.linalg.eigh(hessian_linear(net, res.snapshots[start], stats))
    v, lam = vec[:, -1], float(ev[-1])
    proj = np.array([float((res.snapshots[e + 1] - res.snapshots[e]).reshape(-1) @ v) for e in ep[:-1]])
    ratio = proj[1:] / proj[:-1]
    return dict(
        epochs=np.array(ep[:-1]),
        proj=proj,
        ratio=ratio,
        lam=lam,
        predicted=1.0 - lr * lam,
        growth=float(np.exp(np.log(np.abs(ratio)).mean())),
        losses=np.asarray(res.losses),
        lr=lr,
    )
