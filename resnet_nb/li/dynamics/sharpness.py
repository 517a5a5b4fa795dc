"""Gradient descent from the small start (chapter: book/theorem1_dynamics.ipynb): sharpness and spikes.

Over several seeds, the sharpness lambda_max (:func:`lambda_max`) of the exact Hessian against 2/lr and the loss
spikes: :func:`sharpness_trace`, :func:`sharpness_sweep`, :func:`rise_factor` (the figure is drawn
by :func:`resnet_nb.book.li_figures.plot_sharpness_sweep`); the longer run stored under
``results/t1d_long_sweep/records`` (one record of the engine's store per seed):
:func:`long_sweep_reproduce`, :func:`save_sweep`, :func:`load_sweep`;
the mechanism of a catapult: :func:`catapult_steps`.
"""

from __future__ import annotations

import numpy as np
import torch

from resnet_nb.core.checks import require_float, require_int
from resnet_nb.core.data import as_stats
from resnet_nb.core.hessians import hessian_linear, spectrum
from resnet_nb.core.init import initialise
from resnet_nb.core.losses import optimum
from resnet_nb.core.networks import ShortcutNetwork
from resnet_nb.core.train import gradient_descent

__all__ = [
    "lambda_max",
    "sharpness_trace",
    "rise_factor",
    "sharpness_sweep",
    "LONG_SWEEP_DIR",
    "LONG_SWEEP",
    "SWEEP_ROW",
    "SWEEP_SCALARS",
    "TRACES",
    "sweep_item",
    "sweep_records",
    "save_sweep",
    "load_sweep",
    "long_sweep_reproduce",
    "catapult_steps",
]


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
    seeds = [require_int("seed", s, minimum=0) for s in seeds]
    if not seeds:
        raise ValueError("seeds must not be empty")
    spike = require_float("spike", spike, low=1.0, low_open=True)
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
    return dict(
        epochs=np.array(snaps),
        seeds=seeds,
        lam_max=lam,
        gaps=gaps,
        Lmin=Lmin,
        edge=edge,
        lr=lr,
        sigma_max=float(torch.linalg.svdvals(stats.Sxx - stats.Syx).max()),
        rows=[_sweep_row(s, snaps, lam[i], losses[i], gaps[i], edge, spike) for i, s in enumerate(seeds)],
        spike=spike,
    )


def _sweep_row(seed: int, snaps, lam, losses, gaps, edge: float, spike: float) -> dict:
    """One seed's row of :func:`sharpness_sweep` (the columns of :data:`SWEEP_ROW`, in order)
    from its lambda_max at the sampled epochs ``snaps``, its losses and its gaps to L_min."""
    above = [e for e, v in zip(snaps, lam) if v > edge]
    rf = rise_factor(gaps)
    return dict(
        seed=seed,
        lam_peak=float(lam.max()),
        peak_epoch=int(snaps[int(np.argmax(lam))]),
        first_above=int(above[0]) if above else -1,
        rises=int((np.diff(losses) > 0).sum()),
        rise=rf,
        spike=bool(rf > spike),
        final_gap=float(gaps[-1]),
        lam_final=float(lam[-1]),
    )


#: the longer run of the seed sweep, stored under ``results/<LONG_SWEEP_DIR>/`` by
#: :func:`long_sweep_reproduce` (``scripts/t1d_long_sweep.py``) and read by :func:`load_sweep`
LONG_SWEEP_DIR = "t1d_long_sweep"
LONG_SWEEP = dict(seeds=list(range(8)), n=2, R=4, lr=0.5, epochs=6000, every=250, spike=10.0)
#: the columns of a row of :func:`sharpness_sweep`, in its order
SWEEP_ROW = ("seed", "lam_peak", "peak_epoch", "first_above", "rises", "rise", "spike", "final_gap", "lam_final")
#: the traces a stored seed carries beside its row of :func:`sharpness_sweep` (lists, one value
#: per sampled epoch or per epoch)
TRACES = ("epochs", "lam_max", "gaps")
#: the scalars of a sweep that every stored seed carries in its row's ``sweep`` entry (they must
#: agree between seeds)
SWEEP_SCALARS = ("Lmin", "edge", "lr", "sigma_max", "spike")


def sweep_item(seed: int, config: dict) -> dict:
    """The work item of one seed of a stored sweep: the seed and the other arguments of
    :func:`sharpness_sweep` (``n``, ``R``, ``lr``, ``epochs``, ``every``, ``spike``)."""
    settings = {k: config[k] for k in ("n", "R", "lr", "epochs", "every", "spike")}
    return dict(set=LONG_SWEEP_DIR, seed=int(seed), **settings)


def sweep_records(sweep: dict) -> list[tuple[int, list[dict]]]:
    """The record rows of a :func:`sharpness_sweep` result, per seed: one row, the seed's row of
    ``sweep["rows"]`` with the sweep's scalars (:data:`SWEEP_SCALARS`, as ``sweep``) and its traces
    (:data:`TRACES`: the sampled epochs, lambda_max there, loss - L_min at every epoch)."""
    scalars = {k: float(sweep[k]) for k in SWEEP_SCALARS}
    out = []
    for i, row in enumerate(sweep["rows"]):
        traces = dict(
            epochs=[int(e) for e in sweep["epochs"]],
            lam_max=[float(v) for v in np.asarray(sweep["lam_max"])[i]],
            gaps=[float(v) for v in np.asarray(sweep["gaps"])[i]],
        )
        out.append((int(row["seed"]), [dict(row, sweep=scalars, **traces)]))
    return out


def save_sweep(sweep: dict, out, config: dict | None = None) -> None:
    """Write a :func:`sharpness_sweep` result to the folder ``out``: one record per seed
    (item: :func:`sweep_item` of ``config``, rows: :func:`sweep_records`) in ``out/records``, its
    provenance the engine's (git commit, versions, machine) with ``config``'s other entries
    (e.g. the wall time of the sweep and its data)."""
    from pathlib import Path

    from resnet_nb.shared.store import provenance, write_record

    cfg = dict(config or {})
    cfg.setdefault("lr", sweep["lr"])
    cfg.setdefault("spike", sweep["spike"])
    epochs = np.asarray(sweep["epochs"], dtype=int)
    cfg.setdefault("epochs", int(np.asarray(sweep["gaps"]).shape[1] - 1))
    cfg.setdefault("every", int(epochs[1] - epochs[0]) if epochs.size > 1 else 1)
    missing = [k for k in ("n", "R") if k not in cfg]
    if missing:
        raise ValueError(f"config: the stored sweep's item needs {missing[0]!r} (the network it trained)")
    prov = dict(provenance(), sweep={k: v for k, v in cfg.items() if k not in ("seeds",)})
    for seed, rows in sweep_records(sweep):
        write_record(Path(out) / "records", sweep_item(seed, cfg), rows, prov)


def load_sweep(path=None) -> dict:
    """A sweep stored by :func:`save_sweep` (default: the committed longer run,
    ``results/t1d_long_sweep``), as the dict :func:`sharpness_sweep` returns (seeds in increasing
    order), plus ``config`` (the arguments of the sweep, ``seeds`` included, and the first
    record's provenance). A damaged
    record, or seeds that disagree on the settings or the sweep's scalars, is refused
    (``ValueError``)."""
    from pathlib import Path

    from resnet_nb.core.paths import results_dir
    from resnet_nb.shared.store import iter_records

    d = results_dir(LONG_SWEEP_DIR) if path is None else Path(path)
    bodies = sorted(iter_records(d / "records", strict=True), key=lambda b: b["item"]["seed"])
    if not bodies:
        raise FileNotFoundError(
            f"path: {d} holds no stored sweep: run `python scripts/t1d_long_sweep.py` from the repository root"
        )
    settings = [{k: v for k, v in b["item"].items() if k != "seed"} for b in bodies]
    rows = [b["rows"][0] for b in bodies]
    for k in ("sweep", "epochs"):
        if any(r[k] != rows[0][k] for r in rows) or any(s != settings[0] for s in settings):
            raise ValueError(f"path: the seeds stored under {d} disagree on {k} or on the settings")
    return dict(
        epochs=np.array(rows[0]["epochs"], dtype=int),
        seeds=[int(b["item"]["seed"]) for b in bodies],
        lam_max=np.array([r["lam_max"] for r in rows], dtype=float),
        gaps=np.array([r["gaps"] for r in rows], dtype=float),
        rows=[
            {k: r[k] for k in SWEEP_ROW} | {k: v for k, v in r.items() if k not in (*SWEEP_ROW, *TRACES, "sweep")}
            for r in rows
        ],
        **rows[0]["sweep"],
        config=dict(
            {k: v for k, v in settings[0].items() if k != "set"},
            seeds=[int(b["item"]["seed"]) for b in bodies],
            provenance=bodies[0]["provenance"],
        ),
    )


def long_sweep_reproduce(out=None, data=None, **overrides) -> dict:
    """Run the longer seed sweep (:data:`LONG_SWEEP`: 8 seeds, 6,000 epochs, exact Hessian every
    250 epochs) and store it with :func:`save_sweep` under ``out`` (default
    ``results/t1d_long_sweep``), one record per seed; seeds whose sound record is stored are not
    trained again (the others are trained together), so an interrupted sweep resumes. Returns
    :func:`load_sweep` of ``out``. ``data`` defaults to whitened MNIST, the chapter's data."""
    import time
    from pathlib import Path

    from resnet_nb.core.data import whitened_mnist
    from resnet_nb.core.paths import results_dir
    from resnet_nb.shared.store import inspect_record

    cfg = dict(LONG_SWEEP, **overrides)
    out = results_dir(LONG_SWEEP_DIR) if out is None else Path(out)
    todo = [s for s in cfg["seeds"] if inspect_record(out / "records", sweep_item(s, cfg))[0] is None]
    if todo:
        source = "whitened_mnist()" if data is None else "given"
        data = whitened_mnist() if data is None else data
        t0 = time.time()
        sweep = sharpness_sweep(data, **dict(cfg, seeds=todo))
        save_sweep(sweep, out, dict(cfg, seeds=todo, wall_s=round(time.time() - t0, 1), data=source))
    return load_sweep(out)


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
    start, steps = require_int("start", start, minimum=0), require_int("steps", steps, minimum=2)
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
