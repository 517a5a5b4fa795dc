"""Figure 9 of Li et al. (chapter: book/exp_learning.ipynb):
the best learning rate's final loss and the best learning rate, against depth.

For each architecture and depth, every run of a log grid of learning rates trains for
``epochs`` full-batch steps on whitened MNIST (linear networks, on sufficient statistics).
All runs x learning rates of one (architecture, depth) are one work item and one batched
tensor computation. The final losses are averaged over runs for each learning rate; the best
learning rate minimises that average; the figure shows lg(average final loss - L_min) and
lg(best learning rate).

A learning rate with a diverged run (loss non-finite or above ``blowup``) is not eligible.
Like the paper (caption of Fig. 9), when the averages of all eligible learning rates agree
to a relative ``flat_tol``, the best learning rate is not defined and is reported as NaN
(``lr_unstable = True``).
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import torch

from resnet_nb.core import claims
from resnet_nb.core.checks import require_choice, require_float, require_int
from resnet_nb.core.train import gradient_descent
from resnet_nb.shared import common, store
from resnet_nb.shared.common import ARCHS, depths_for, initial_weights, log_grid, mnist, mnist_optimum, network

__all__ = [
    "SCALES",
    "configurations",
    "run_one",
    "summarise",
    "RELU",
    "lg_final_losses",
    "lg_final_loss_spread",
    "gap_ratio",
]

RELU = False
SCALES = {
    # the live run of the chapter: every architecture (3 | depth for the 3-shortcut), 2 runs per rate
    "default": {
        "archs": list(ARCHS),
        "depths": [2, 6, 12],
        "lrs": log_grid(1e-3, 10, 2),
        "runs": 2,
        "epochs": 1000,
        "seed": 0,
    },
    "paper": {
        "archs": list(ARCHS),
        "depths": [2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96],
        "lrs": log_grid(1e-3, 10, 2),
        "runs": 10,
        "epochs": 1000,
        "seed": 0,
    },
}
FLAT_TOL = 1e-3
#: architectures outside Li et al.'s five that the book adds (Figure 10's He-scaled plain ReLU net)
EXTRA_ARCHS = ("he",)


#: below this (times max(1, L_min)) a difference of two float64 losses is rounding, not a gap:
#: the loss is a sum of terms of size ~1 computed with relative error ~eps each
ROUNDING_FLOOR = 64 * float(np.finfo(np.float64).eps)


def _check_config(config, archs_allowed=ARCHS):
    for key in ("archs", "depths", "lrs", "runs", "epochs", "seed"):
        if key not in config:
            raise ValueError(f"config must have the key {key!r}; got keys {sorted(config)}")
    for a in config["archs"]:
        require_choice("archs entry", a, archs_allowed)
    for L in config["depths"]:
        require_int("depths entry", L)
    for lr in config["lrs"]:
        require_float("lrs entry", lr, low=0.0, low_open=True)
    require_int("runs", config["runs"])
    require_int("epochs", config["epochs"])
    require_int("seed", config["seed"], minimum=0)


def configurations(config: dict, figure: str = "fig9", relu: bool = False, archs_allowed=ARCHS) -> list[dict]:
    """One item per (architecture, depth): all runs and learning rates together.

    Shallow depths come first for every architecture, so an interrupted run covers every
    architecture up to some depth."""
    _check_config(config, archs_allowed)
    return [
        {
            "figure": figure,
            "arch": a,
            "depth": L,
            "relu": relu,
            "lrs": [float(x) for x in config["lrs"]],
            "runs": int(config["runs"]),
            "epochs": int(config["epochs"]),
            "seed": int(config["seed"]),
        }
        for L in sorted(set(int(x) for x in config["depths"]))
        for a in config["archs"]
        if L in depths_for(a, [L], relu)
    ]


def train_grid(item: dict, device: str = "cpu"):
    """Train every run x learning rate of ``item`` at once; returns the :class:`TrainResult`.

    The runs share their initial points across learning rates (the same ``runs`` draws from
    ``seed``), so learning rates are compared on equal terms.
    """
    net = network(item["arch"], item["depth"], relu=item["relu"])
    runs = item["runs"]
    lrs = torch.tensor(item["lrs"], dtype=torch.float64, device=device)
    W0 = initial_weights(item["arch"], net, seed=item["seed"], runs=runs, device=device)
    W0 = W0[:, None].expand(runs, len(lrs), *net.shape)
    n = item.get("n_per_class")
    data = (mnist() if n is None else mnist(n)).to(device=device)  # mnist() and mnist(None): one cache entry
    return gradient_descent(net, W0, data, lr=lrs, epochs=item["epochs"])


def run_one(item: dict, device: str = "cpu") -> list[dict]:
    """Final loss of every run at every learning rate of one (architecture, depth)."""
    res = train_grid(item, device)
    final = res.losses[..., -1]
    rows = []
    for r in range(item["runs"]):
        for j, lr in enumerate(item["lrs"]):
            diverged = bool(res.diverged[r, j])
            rows.append(
                {
                    "arch": item["arch"],
                    "depth": item["depth"],
                    "relu": item["relu"],
                    "run": r,
                    "lr": lr,
                    "epochs": item["epochs"],
                    "diverged": diverged,
                    "final_loss": float("nan") if diverged else float(final[r, j]),
                }
            )
    return rows


def summarise(table: pd.DataFrame, loss_opt: float | None = None, flat_tol: float = FLAT_TOL) -> pd.DataFrame:
    """Per (architecture, depth): best learning rate and its average final loss.

    ``loss_opt``: subtracted from the loss (L_min of Eq. 16 for linear networks; pass 0 for
    ReLU networks, whose optimum is unknown). Columns: ``best_lr`` (NaN when every eligible
    learning rate gives the same average to ``flat_tol``, or none is eligible), ``final_loss``,
    ``lg_excess`` = lg(final_loss - loss_opt) (raised to the rounding floor, with
    ``at_rounding_floor = True``, when the gap is below what float64 resolves),
    ``lr_unstable``, ``eligible_lrs``, ``lr_at_grid_edge`` (the best rate is the only eligible
    one and lies at an end of the grid: the true best rate may lie outside the grid).
    """
    if loss_opt is None:
        loss_opt = mnist_optimum()
    out = []
    for (arch, depth), g in table.groupby(["arch", "depth"], sort=False):
        per_lr = g.groupby("lr").agg(mean=("final_loss", "mean"), diverged=("diverged", "any"))
        ok = per_lr[~per_lr["diverged"] & np.isfinite(per_lr["mean"])]
        if len(ok) == 0:
            out.append(
                {
                    "arch": arch,
                    "depth": int(depth),
                    "best_lr": np.nan,
                    "lr_at_grid_edge": False,
                    "final_loss": np.nan,
                    "lg_excess": np.nan,
                    "at_rounding_floor": False,
                    "lr_unstable": True,
                    "eligible_lrs": 0,
                }
            )
            continue
        best = ok["mean"].idxmin()
        lo, hi = ok["mean"].min(), ok["mean"].max()
        flat = len(ok) > 1 and (hi - lo) <= flat_tol * abs(hi - loss_opt)
        excess = ok.loc[best, "mean"] - loss_opt
        floor = ROUNDING_FLOOR * max(1.0, abs(loss_opt))
        grid = sorted(per_lr.index)
        at_edge = (not flat) and len(ok) == 1 and float(best) in (grid[0], grid[-1])
        out.append(
            {
                "arch": arch,
                "depth": int(depth),
                "best_lr": np.nan if flat else float(best),
                "lr_at_grid_edge": bool(at_edge),
                "final_loss": float(ok.loc[best, "mean"]),
                "lg_excess": float(np.log10(max(excess, floor))),
                "at_rounding_floor": bool(excess < floor),
                "lr_unstable": bool(flat),
                "eligible_lrs": int(len(ok)),
            }
        )
    order = {a: i for i, a in enumerate(ARCHS + EXTRA_ARCHS)}
    s = pd.DataFrame(out)
    return s.sort_values(["arch", "depth"], key=lambda c: c.map(order) if c.name == "arch" else c).reset_index(
        drop=True
    )


# ---------------------------------------------------------------------------------------------
# What the condition number at zero does and does not tell gradient descent
# ---------------------------------------------------------------------------------------------


def rate_scale(table9: pd.DataFrame, table5: pd.DataFrame, archs=("orthogonal", "1-shortcut")) -> pd.DataFrame:
    """Per depth and architecture: the best rate of Figure 9 (``table9``), the mean largest Hessian
    eigenvalue at the start over the runs of Figure 5 (``table5``, column ``lam_max``) and their
    product ``eta_lam0 = best_lr * lam_max0``. Where gradient descent converges to a nondegenerate
    minimum through a region whose curvature is about lambda_max(0), stability asks
    ``eta_lam0 < 2``; a product that stays within a fixed band while lambda_max(0) grows with depth
    says that lambda_max(0) sets the scale of the usable rate."""
    lam = table5.groupby(["arch", "depth"])["lam_max"].mean().rename("lam_max0")
    s = summarise(table9).set_index(["arch", "depth"])["best_lr"]
    out = pd.concat([s, lam], axis=1, join="inner").reset_index()
    out = out[out["arch"].isin(archs) & out["best_lr"].notna()]
    return out.assign(eta_lam0=out["best_lr"] * out["lam_max0"]).reset_index(drop=True)


def stability_run(arch: str, depth: int, lr: float, seed: int = 0, runs: int = 3, epochs: int = 1000) -> pd.DataFrame:
    """Train ``runs`` linear networks of Figure 9 at one rate ``lr`` and measure the Hessian's
    extreme eigenvalues at the start and at the end (exact Hessians, float64).

    One row per run: ``lam_max0``, ``lam_min0`` (at the initial point), ``lam_max_end`` (after
    ``epochs`` steps), ``final_loss``, ``diverged``, and the products ``eta_lam0 = lr lam_max0``
    and ``eta_lam_end = lr lam_max_end`` to compare with the classical stability bound 2.
    """
    return _stability_run(arch, int(depth), float(lr), int(seed), int(runs), int(epochs)).copy()


@functools.lru_cache(maxsize=4)
def _stability_run(arch, depth, lr, seed, runs, epochs):
    # cached: the ledger runs the check and its falsifier on the same training runs
    from resnet_nb.core.hessians import hessian_linear

    net = network(arch, depth)
    data = mnist()
    W0 = initial_weights(arch, net, seed=seed, runs=runs)
    res = gradient_descent(net, W0, data, lr=float(lr), epochs=epochs)
    rows = []
    for r in range(runs):
        e0 = torch.linalg.eigvalsh(hessian_linear(net, W0[r], data))
        e1 = torch.linalg.eigvalsh(hessian_linear(net, res.W[r], data))
        rows.append(
            {
                "arch": arch,
                "depth": depth,
                "lr": float(lr),
                "run": r,
                "lam_max0": float(e0[-1]),
                "lam_min0": float(e0[0]),
                "lam_max_end": float(e1[-1]),
                "final_loss": float(res.losses[r, -1]),
                "diverged": bool(res.diverged[r]),
                "eta_lam0": float(lr * e0[-1]),
                "eta_lam_end": float(lr * e1[-1]),
            }
        )
    return pd.DataFrame(rows)


def escape_factor(
    depth: int = 2,
    lr: float = 0.1,
    scale: float = 1e-8,
    epochs: int = 80,
    seed: int = 0,
    window: tuple[int, int] = (20, 80),
) -> dict:
    """The growth factor per step of a 2-shortcut network's escape from the saddle at zero.

    Near 0 the step is linear, ``w <- (I - lr H(0)) w`` up to terms of relative size ``||w||``,
    so the component of ``w`` along the eigenvector ``v`` of the most negative eigenvalue of
    ``H(0)``, ``-sigma_max(M)`` with ``M = Sxx - Syx`` (Theorem 1), grows by ``1 + lr sigma_max(M)``
    per step. Returns the measured factor ``(<w_b, v> / <w_a, v>)^(1/(b-a))`` over ``window = (a, b)``
    of a run from the small initial point at ``scale``, the eigenvalue, the singular values of
    ``M`` and ``||w_b||``.
    """
    e = _escape_factor(int(depth), float(lr), float(scale), int(epochs), int(seed), tuple(window))
    return dict(e, sigma=e["sigma"].copy())


@functools.lru_cache(maxsize=4)
def _escape_factor(depth, lr, scale, epochs, seed, window):
    # cached: the ledger runs the check and its falsifier on the same run
    from resnet_nb.core.hessians import hessian_at_zero
    from resnet_nb.core.init import initialise
    from resnet_nb.core.networks import flatten

    net = network("2-shortcut", depth)
    data = mnist()
    stats = data.stats()
    sv = torch.linalg.svdvals(stats.Sxx - stats.Syx)
    evals, evecs = torch.linalg.eigh(hessian_at_zero(net, data))
    v = evecs[:, 0]
    a, b = window
    W0 = initialise(net, "small", seed=seed, scale=scale)
    res = gradient_descent(net, W0, data, lr=float(lr), epochs=epochs, snapshot_epochs=[a, b])
    pa = float(flatten(res.snapshots[a].reshape(net.shape)) @ v)
    pb = float(flatten(res.snapshots[b].reshape(net.shape)) @ v)
    return {
        "measured": (pb / pa) ** (1.0 / (b - a)),
        "lam_min": float(evals[0]),
        "sigma": sv.numpy(),
        "lr": float(lr),
        "norm_end": float(res.snapshots[b].norm()),
    }


# ---------------------------------------------------------------------------------------------
# Claims (the ledger): declared beside their checks
# ---------------------------------------------------------------------------------------------

_WHERE = ["book/exp_learning.ipynb", "tests/experiments/test_claims.py"]


@functools.lru_cache(maxsize=1)
def committed() -> pd.DataFrame:
    """The committed paper-scale table of Figure 9 (``results/fig9/paper``; see :func:`common.committed`)."""
    return common.committed("fig9")


def lg_final_losses(table, arch, depth, lr, loss_opt):
    """lg(final loss - loss_opt) of every run at one rate (rounding floor applied)."""
    g = table[(table["arch"] == arch) & (table["depth"] == depth) & np.isclose(table["lr"], lr)]
    floor = ROUNDING_FLOOR * max(1.0, abs(loss_opt))
    return np.log10(np.maximum(g["final_loss"].to_numpy(dtype=float) - loss_opt, floor))


def lg_final_loss_spread(table, arch, depth, lr, loss_opt):
    """Standard deviation over runs of lg(final loss - loss_opt) at one rate (rounding floor applied)."""
    return float(np.std(lg_final_losses(table, arch, depth, lr, loss_opt)))


def lowest_gap(table: pd.DataFrame, arch: str, loss_opt: float, from_depth: int = 1, others=None) -> dict:
    """Per depth >= ``from_depth``: lg(best final loss - loss_opt) of ``arch`` against the lowest of
    ``others`` (default: every other architecture of the table). ``gap`` > 0 where ``arch`` is lower.

    ``spread`` is the larger std over single runs of the two compared architectures at their best
    rates; ``se`` the two-sample standard error of the difference of their means over runs,
    sqrt(s_a^2 / n_a + s_b^2 / n_b). A depth is ``fragile`` (order not established) when the gap is
    below 2 se. Returns the smallest gap, its depth, 2 se there (``margin_2se``) and the table."""
    s = summarise(table, loss_opt=loss_opt)
    pv = s.pivot(index="depth", columns="arch", values="lg_excess")
    lr = s.pivot(index="depth", columns="arch", values="best_lr")
    others = [a for a in pv.columns if a != arch] if others is None else list(others)
    pv = pv[(pv.index >= from_depth) & pv[arch].notna()]
    rows = []
    for depth, r in pv.iterrows():
        o = r[others].dropna()
        if o.empty:
            continue
        rival = o.idxmin()
        runs = [
            lg_final_losses(table, a, depth, lr.loc[depth, a], loss_opt)
            for a in (arch, rival)
            if np.isfinite(lr.loc[depth, a])
        ]
        spread = max(float(np.std(x)) for x in runs)
        se = float(np.sqrt(sum(np.var(x, ddof=1) / len(x) for x in runs if len(x) > 1)))
        rows.append({"depth": int(depth), "gap": float(o.min() - r[arch]), "rival": rival, "spread": spread, "se": se})
    g = pd.DataFrame(rows)
    g["fragile"] = g["gap"] < 2 * g["se"]
    worst = g.loc[g["gap"].idxmin()]
    return {
        "gap": float(worst["gap"]),
        "depth": int(worst["depth"]),
        "rival": worst["rival"],
        "spread": float(worst["spread"]),
        "margin_2se": float(2 * worst["se"]),
        "table": g,
        "fragile": [int(d) for d in g.loc[g["fragile"], "depth"]],
    }


def gap_ratio(table: pd.DataFrame, arch: str, loss_opt: float, from_depth: int = 1, others=None) -> pd.DataFrame:
    """Per depth >= ``from_depth``: how many times smaller the gap to ``loss_opt`` of ``arch`` is than
    that of the nearest of ``others`` (default: every other architecture), from :func:`lowest_gap`.
    ``ratio`` is the point estimate ``10**gap``; ``ratio_2se`` its lower end at two standard errors
    of the difference of the mean lg gaps over runs, ``10**(gap - 2 se)``."""
    g = lowest_gap(table, arch, loss_opt, from_depth=from_depth, others=others)["table"]
    return g.assign(ratio=10 ** g["gap"], ratio_2se=10 ** (g["gap"] - 2 * g["se"]))


#: depths from which Figure 9's comparison is read: at depth 2 the best runs of the 2-shortcut and
#: the orthogonal networks both end at lg excess below -12, where the order compares rounding errors
FIG9_FROM_DEPTH = 3
#: our reading of the paper's "stay close to optimal": the final loss within 1e-4 of L_min
#: (about 3e-4 of L_min itself), from depth 4 on (at depths 2 and 3 every trainable network does)
NEAR_OPT_EXCESS = 1e-4


def near_optimal(table: pd.DataFrame, arch: str, loss_opt: float, from_depth: int = 4) -> dict:
    """The largest lg(best mean final loss - loss_opt) of ``arch`` over depths >= ``from_depth``,
    its depth, and two standard errors of the mean over runs of lg(final loss - loss_opt) there."""
    s = summarise(table, loss_opt=loss_opt)
    s = s[(s["arch"] == arch) & (s["depth"] >= from_depth)].dropna(subset=["lg_excess"])
    worst = s.loc[s["lg_excess"].idxmax()]
    x = lg_final_losses(table, arch, int(worst["depth"]), float(worst["best_lr"]), loss_opt)
    margin_2se = float(2 * np.std(x, ddof=1) / np.sqrt(len(x)))
    return {
        "lg_excess": float(worst["lg_excess"]),
        "depth": int(worst["depth"]),
        "margin_2se": margin_2se,
        "depths": [int(d) for d in s["depth"]],
    }


@claims.claim(
    "li-fig9-near-optimal",
    source="Li et al., Section 5.3, Figure 9",
    statement="At every depth from 4 to 96 (committed run, 10 runs per rate, 1,000 epochs), the "
    "2-shortcut linear networks at their best rate end with a mean final loss within "
    '$10^{-4}$ of $L_{\\min}$ (our reading of the paper\'s "stay close to optimal"). The line '
    "$10^{-4}$ is a choice between families that end close: 1-shortcut and orthogonal networks "
    "end a few times $10^{-4}$ above $L_{\\min}$; the plain Xavier networks end far, and so do the "
    "3-shortcut networks (on the plateau near their start at depth 3, several times the 1-shortcut "
    "and orthogonal gaps deeper). The robust contrast is the ratio of the 2-shortcut gap to that of "
    "the nearest of the four other architectures, which the Learning chapter reports with its lower "
    "end at two standard errors.",
    verdict="reproduced",
    falsifier="1-shortcut networks (the plain-ResNet case the paper contrasts) also end within "
    "$10^{-4}$ of $L_{\\min}$ at every depth from 4 to 96",
    falsifier_kind="plausible false statement",
    where=_WHERE,
)
def claim_fig9_near_optimal(falsify: bool = False) -> claims.Check:
    arch = "1-shortcut" if falsify else "2-shortcut"
    w = near_optimal(committed(), arch, mnist_optimum())
    bound = float(np.log10(NEAR_OPT_EXCESS))
    return claims.Check(
        f"Figure 9: {arch} within 1e-4 of L_min from depth 4 on",
        f"largest lg(final loss - L_min) of {arch}",
        w["lg_excess"],
        bound,
        "lg 1e-4 (our reading of 'close to optimal'); fragile when the margin is below "
        "2 standard errors of the mean over runs of lg(final loss - L_min) at that depth",
        op="<=",
        spread=w["margin_2se"],
        lines=[f"largest at depth {w['depth']}"],
        values={"lg_excess": w["lg_excess"], "depth": w["depth"]},
    )


@claims.claim(
    "li-fig9-shortcut-lowest",
    source="Li et al., Section 5.3, Figure 9",
    statement="At every even depth from 4 to 96 (2-shortcut networks exist only at even depths; "
    "committed run, 10 runs per rate, 1,000 epochs), the "
    "2-shortcut linear networks at their best rate end closest to $L_{\\min}$ of the five "
    "architectures; at the depths listed by the check the gap to the next is below two "
    "standard errors of the difference of the means over runs, so there the order is not "
    "established (depth 2 is left out: both best architectures end at rounding level).",
    verdict="partly reproduced",
    falsifier="orthogonal plain networks (dynamical isometry) end closest at every depth",
    falsifier_kind="plausible false statement",
    where=_WHERE,
)
def claim_fig9_shortcut_lowest(falsify: bool = False) -> claims.Check:
    t = committed()
    arch = "orthogonal" if falsify else "2-shortcut"
    g = lowest_gap(t, arch, mnist_optimum(), from_depth=FIG9_FROM_DEPTH)
    return claims.Check(
        f"Figure 9: {arch} lowest at every depth from {FIG9_FROM_DEPTH} where it exists",
        "smallest gap lg(rival) - lg(" + arch + ")",
        g["gap"],
        0.0,
        "strictly lowest (gap > 0); fragile when the gap is below 2 standard "
        "errors of the difference of the means over runs of lg(final loss - L_min)",
        op=">=",
        spread=g["margin_2se"],
        lines=[
            f"smallest at depth {g['depth']}, against {g['rival']}",
            "gap below 2 standard errors at depths " + (", ".join(map(str, g["fragile"])) or "none"),
        ],
        values={"gap": g["gap"], "depth": g["depth"], "fragile": g["fragile"]},
    )


@claims.claim(
    "li-eos-2shortcut-depth16",
    source="Li et al., Section 5.3, Figure 9 (best rate at depth 16)",
    statement="The depth-16 2-shortcut networks converge at their best rate $\\eta$ although "
    "$\\eta\\lambda_{\\max}(0) > 2$, and end at a minimum with $\\eta\\lambda_{\\max} \\approx 2$ "
    "(the edge of stability of Cohen et al. 2021): the condition at the start does not "
    "bound the usable rate.",
    verdict="reproduced",
    falsifier="$\\eta\\lambda_{\\max}(0) < 2$ is necessary for gradient descent to converge (the "
    "check's first part reversed)",
    falsifier_kind="implied by the check",
    where=_WHERE,
)
def claim_edge_of_stability(falsify: bool = False, runs: int = 3, data: pd.DataFrame | None = None) -> claims.Check:
    """``data``: the rows of :func:`stability_run` for the depth-16 2-shortcut networks at their
    best committed rate, if already computed (the chapter passes them)."""
    t = committed()
    s = summarise(t)
    lr = float(s[(s["arch"] == "2-shortcut") & (s["depth"] == 16)]["best_lr"].iloc[0])
    d = stability_run("2-shortcut", 16, lr, runs=runs) if data is None else data
    if not (np.isclose(d["lr"], lr).all() and (d["arch"] == "2-shortcut").all() and (d["depth"] == 16).all()):
        raise ValueError("data must be stability_run('2-shortcut', 16, best rate) rows")
    e0 = float(d["eta_lam0"].min())
    start = claims.Check(
        "start beyond the classical bound",
        "min over runs of eta lambda_max(0)",
        e0,
        2.0,
        "GD on a quadratic with curvature lambda is stable only for eta lambda < 2",
        op="<=" if falsify else ">=",
    )
    excess = float(d["final_loss"].max() - mnist_optimum())
    conv = claims.Check(
        "converged",
        "max over runs of final loss - L_min",
        excess,
        float(d["final_loss"].std() + 1e-3 * mnist_optimum()),
        "1e-3 L_min plus the std over runs of the final loss",
        op="<=",
    )
    end = d["eta_lam_end"].to_numpy()
    spread = float(np.std(end))
    edge = claims.Check(
        "ends at the edge",
        "|mean eta lambda_max(end) - 2|",
        abs(float(end.mean()) - 2.0),
        3 * spread,
        "3 x the std over runs of eta lambda_max(end)",
        op="<=",
        spread=spread,
    )
    return claims.all_of(
        f"depth-16 2-shortcut at eta = {lr:.3g}",
        [start, conv, edge],
        lines=[f"eta lambda_max(0) = {e0:.3g}, eta lambda_max(end) = {end.mean():.4g}"],
    )


@claims.claim(
    "li-escape-rate-2shortcut",
    source="Li et al., Theorem 1 (n = 2), applied to gradient descent",
    statement="Implementation check: near the 2-shortcut saddle at zero, the book's gradient descent at "
    "rate $\\eta$ moves away along the most negative curvature direction by the factor "
    "$1 + \\eta\\,\\sigma_{\\max}(M)$ per step, $M = \\Sigma_{XX} - \\Sigma_{YX}$, which is "
    "what $\\lambda_{\\min}(H(0)) = -\\sigma_{\\max}(M)$ (Theorem 1) implies in the linear "
    "regime.",
    verdict="holds",
    kind="regression",
    falsifier="a wrong prediction, $1 + \\eta\\,\\sigma_{\\max}(M)/\\sigma_{\\min}(M)$, in place of "
    "$1 + \\eta\\,\\sigma_{\\max}(M)$ (constructed to fail, not a reading anyone makes: it "
    "shows that the comparison resolves a difference of a few percent)",
    falsifier_kind="regression test",
    where=_WHERE,
)
def claim_escape_rate(falsify: bool = False) -> claims.Check:
    e = escape_factor()
    sig = e["sigma"]
    predicted = 1 + e["lr"] * (sig[0] / sig[-1] if falsify else sig[0])
    tol = 10 * e["lr"] * e["norm_end"] * sig[0]
    return claims.Check(
        "escape factor per step (depth 2, eta = 0.1)",
        "|measured - predicted factor|",
        abs(e["measured"] - predicted),
        tol,
        "10 eta ||w|| sigma_max(M): the gradient's second-order terms near 0",
        nontrivial=e["measured"] - 1,
        nontrivial_what="measured factor - 1",
        nontrivial_min=1e-3,
        lines=[f"measured {e['measured']:.10f}, predicted {predicted:.10f}"],
    )


def modified_records(figure: str = "fig9", scale: str = "paper") -> tuple[int, int, list]:
    """How many committed records of ``figure`` were computed from a working tree whose package
    differed from its git commit: ``(modified, total, commits)``. Such a record cannot be
    recomputed from a commit alone (see the recompute test)."""
    gits = [body["provenance"]["git"] for body in store.committed_records(figure, scale)]
    return (
        sum(bool(g.get("package_modified")) for g in gits),
        len(gits),
        sorted({(g.get("commit") or "unknown")[:7] for g in gits}),
    )
