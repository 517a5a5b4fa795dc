"""Hardt & Ma's convolutional experiment at CPU scale, for the expressivity chapter
(book/hardt_ma_expressivity.ipynb): two residual blocks of the paper's form trained from the
paper's small initialisation and from the standard one, and the claim that no difference of
held-out accuracy is detected. The network and its training are :mod:`resnet_nb.core.conv`'s;
the committed runs live in ``results/hm_conv/records`` (one record of the engine's store per run,
its provenance from the engine's routine, :func:`resnet_nb.experiments.store.provenance`).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from resnet_nb.core.checks import require_choice
from resnet_nb.core.claims import Check, all_of, claim
from resnet_nb.core.conv import INITS, ConvResNet, lr_schedule, mnist_tensors, train

__all__ = [
    "CONFIG",
    "EFFECT",
    "COMMAND",
    "run_one",
    "run_item",
    "reproduce",
    "load",
    "run_provenance",
    "summary",
    "difference",
    "claim_hm_analog",
    "claim_hm_analog_train_loss",
]

#: how the committed runs were made
COMMAND = "python -c \"from resnet_nb.experiments import hm_analog; hm_analog.reproduce('results/hm_conv')\""

#: The analog of Hardt & Ma's section 4 at CPU scale: two residual blocks of the paper's form
#: ``x + C2(relu(C1 x))`` (16 and 32 channels, one strided transition between them), no batch
#: norm, a fixed random last layer, 800 training and 200 held-out 14x14 digits.
CONFIG = dict(
    blocks=[1, 1],
    channels=[16, 32],
    block="hardt_ma",
    n_per_class=100,
    data_seed=0,
    epochs=40,
    lr=0.05,
    milestones=(26, 36),
    batch_size=64,
    momentum=0.9,
    runs={"hardt_ma_residual": [0, 1, 2, 3, 4], "standard": [0, 1, 2, 3, 4], "hardt_ma": [0, 1]},
)


#: the columns of a run's history (:func:`run_one`: the run, then :func:`resnet_nb.core.conv.train`'s)
HISTORY_COLUMNS = (
    "init",
    "seed",
    "epoch",
    "lr",
    "loss",
    "accuracy",
    "avg_weight_norm",
    "diverged",
    "batch_loss",
    "norm_residual_1",
    "norm_residual_2",
    "test_loss",
    "test_accuracy",
)


def run_one(init: str, seed: int, config: dict | None = None) -> pd.DataFrame:
    """One run of the analog (see :data:`CONFIG`): the training history with its settings."""
    cfg = dict(CONFIG, **(config or {}))
    require_choice("init", init, INITS)
    digits = mnist_tensors(downsample=True, seed=cfg["data_seed"], n_per_class=cfg["n_per_class"])
    model = ConvResNet(
        blocks=list(cfg["blocks"]),
        channels=list(cfg["channels"]),
        fixed_last_layer=True,
        init=init,
        seed=seed,
        block=cfg["block"],
    )
    lrs = lr_schedule(cfg["lr"], cfg["epochs"], cfg["milestones"])
    hist = train(
        model,
        digits.x_train,
        digits.y_train,
        epochs=cfg["epochs"],
        lr=lrs,
        batch_size=cfg["batch_size"],
        seed=seed,
        momentum=cfg["momentum"],
        test=(digits.x_test, digits.y_test),
        progress=False,
    )
    hist.insert(0, "seed", seed)
    hist.insert(0, "init", init)
    return hist


def run_item(init: str, seed: int, config: dict | None = None) -> dict:
    """The work item of one run of :func:`reproduce`: the initialisation, the seed and the
    settings (:data:`CONFIG` with ``config``) without the grid of runs."""
    cfg = dict(CONFIG, **(config or {}))
    settings = {k: (list(v) if isinstance(v, tuple) else v) for k, v in cfg.items() if k != "runs"}
    return dict(set="hm_conv", init=init, seed=int(seed), **settings)


def reproduce(out: str, config: dict | None = None) -> pd.DataFrame:
    """Run every (init, seed) of the analog, one record per run (item: :func:`run_item`, rows: its
    training history, provenance: the engine's with wall and finishing time, and
    :data:`COMMAND`) under ``out/records/``, written as each run ends; a run whose sound record
    is there is skipped, so an interrupted grid resumes. Returns :func:`load`'s table."""
    from resnet_nb.shared.store import record_item

    cfg = dict(CONFIG, **(config or {}))
    order = sorted(
        ((seed, init) for init, seeds in cfg["runs"].items() for seed in seeds), key=lambda t: t[0]
    )  # seed-major: an interrupted grid has every init at its first seeds
    store = Path(out) / "records"
    for seed, init in order:
        record_item(store, run_item(init, seed, config), lambda i=init, s=seed: run_one(i, s, cfg).to_dict("records"))
    return load(out)


def _run_bodies(out) -> list[dict]:
    from resnet_nb.shared.store import iter_records

    bodies = list(iter_records(Path(out) / "records", strict=True))
    if not bodies:
        raise FileNotFoundError(f"out: no finished runs under {out}/records")
    # by run name, "<init>-<seed>" (the order the chapter's tables and legends follow)
    return sorted(bodies, key=lambda b: f"{b['item']['init']}-{b['item']['seed']}")


def load(out) -> pd.DataFrame:
    """Every finished run of the analog under ``out/records`` as one table (runs ordered by
    ``<init>-<seed>``). A damaged record is refused (``ValueError``)."""
    from resnet_nb.shared.store import records_table

    return records_table(_run_bodies(out), HISTORY_COLUMNS)


def run_provenance(out) -> dict:
    """The provenance of the finished runs under ``out/records``: per run (``<init>-<seed>``)
    its wall time in seconds and when it finished, and the commits, torch versions and machines
    the runs were made with (each listed once)."""
    bodies = _run_bodies(out)

    def once(values):
        return ", ".join(dict.fromkeys(str(v) for v in values))

    provs = [b["provenance"] for b in bodies]
    return dict(
        runs={
            f"{b['item']['init']}-{b['item']['seed']}": dict(
                seconds=b["provenance"]["wall_time_s"], finished=b["provenance"]["finished_utc"]
            )
            for b in bodies
        },
        git_commit=once(p["git"]["commit"] or "unknown" for p in provs),
        torch=once(p["versions"]["torch"] for p in provs),
        machine=once(_machine(p["machine"]) for p in provs),
    )


def _machine(m: dict) -> str:
    """A machine in words: as recorded (a converted record), or from the engine's fields."""
    if "description" in m:
        return m["description"]
    return f"{m['processor']} {m['cpu'].split(' / ')[0]} {m['cpu_count']} cores"


def summary(table: pd.DataFrame, last: int = 5) -> pd.DataFrame:
    """Per initialisation: runs, final training loss and accuracy, held-out accuracy (mean and
    range over seeds), and the largest change of the training loss over the ``last`` epochs
    (how close to convergence the runs are)."""
    rows = []
    for init, g in table.groupby("init", sort=False):
        finals = g[g.epoch == g.epoch.max()]
        drift = []
        for _, r in g.groupby("seed"):
            tail = r.sort_values("epoch").loss.to_numpy()[-(last + 1) :]
            drift.append(float(abs(tail[-1] - tail[0])))
        rows.append(
            dict(
                init=init,
                runs=len(finals),
                epochs=int(g.epoch.max()),
                train_loss=finals.loss.mean(),
                train_loss_min=finals.loss.min(),
                train_loss_max=finals.loss.max(),
                train_acc=finals.accuracy.mean(),
                test_acc=finals.test_accuracy.mean(),
                test_acc_min=finals.test_accuracy.min(),
                test_acc_max=finals.test_accuracy.max(),
                last_epochs_loss_change=max(drift),
            )
        )
    return pd.DataFrame(rows)


#: the effect size the analog's falsifier asserts: an improvement of held-out accuracy by three
#: percentage points (six of the 200 held-out digits) from the small initialisation
EFFECT = 0.03


def difference(
    table: pd.DataFrame,
    a: str = "hardt_ma_residual",
    b: str = "standard",
    level: float = 0.95,
    quantity: str = "test_accuracy",
) -> dict:
    """Mean difference of a final quantity, ``a`` minus ``b``, over the seeds of each
    initialisation, with its standard error and Welch's ``level`` confidence interval (unequal
    variances, Welch-Satterthwaite degrees of freedom; the runs are treated as unpaired).

    ``quantity`` is ``"test_accuracy"`` (held-out accuracy) or ``"log_loss"`` (the natural log of
    the final training cross-entropy, so that the difference is the log of a ratio of losses)."""
    from scipy.stats import t as student_t

    if quantity not in ("test_accuracy", "log_loss"):
        raise ValueError(f"quantity must be 'test_accuracy' or 'log_loss', got {quantity!r}")
    finals = table[table.epoch == table.epoch.max()]
    col = "test_accuracy" if quantity == "test_accuracy" else "loss"
    xa = finals[finals.init == a][col].to_numpy(dtype=float)
    xb = finals[finals.init == b][col].to_numpy(dtype=float)
    if quantity == "log_loss":
        if (xa <= 0).any() or (xb <= 0).any():
            raise ValueError("log_loss needs positive final training losses")
        xa, xb = np.log(xa), np.log(xb)
    if xa.size < 2 or xb.size < 2:
        raise ValueError(f"need at least two runs of each initialisation, got {xa.size} ({a}) and {xb.size} ({b})")
    va, vb = xa.var(ddof=1) / xa.size, xb.var(ddof=1) / xb.size
    se = float(math.sqrt(va + vb))
    df = float((va + vb) ** 2 / (va**2 / (xa.size - 1) + vb**2 / (xb.size - 1))) if se > 0 else math.inf
    diff = float(xa.mean() - xb.mean())
    half = float(student_t.ppf(0.5 + level / 2, df)) * se if se > 0 else 0.0
    return dict(
        diff=diff,
        se=se,
        df=df,
        low=diff - half,
        high=diff + half,
        runs_a=int(xa.size),
        runs_b=int(xb.size),
        level=level,
    )


@claim(
    "hm-analog-small-init",
    source="the book: CPU analog of Hardt & Ma's Section 4 architecture (the initialisation is the paper's choice)",
    statement=r"In the book's CPU analog (two residual blocks $x + C_2(\mathrm{ReLU}(C_1x))$, fixed random "
    r"last layer, 800 MNIST digits, 40 epochs, no weight decay, five seeds per initialisation), the "
    r"mean held-out accuracy of the paper's standard deviation $1/(k^2c)$ on the residual convolutions "
    r"minus that of the standard initialisation has a 95% (Welch) confidence interval that contains 0: "
    r"no difference is detected (200 held-out digits: one digit is half a percent).",
    verdict="holds",
    falsifier="the book's hypothesised effect size (the paper claims none for held-out accuracy): the small "
    "initialisation improves mean held-out accuracy by 3 percentage points (six held-out digits); the same "
    "interval, on the same committed runs, must contain +0.03",
    falsifier_kind="plausible false statement",
    where=["book/hardt_ma_expressivity.ipynb", "tests/experiments/test_hm_analog.py"],
)
def claim_hm_analog(falsify: bool = False) -> Check:
    """The committed analog (``results/hm_conv``): is a hypothesised mean difference of held-out
    accuracy (0 for the check, :data:`EFFECT` for the falsifier) inside the 95% interval?"""
    from resnet_nb.core.paths import RESULTS

    d = difference(load(RESULTS / "hm_conv"))
    h = EFFECT if falsify else 0.0
    outside = max(0.0, d["low"] - h, h - d["high"])
    crit = (
        f"the {int(100 * d['level'])}% Welch interval of the mean difference ({d['runs_a']} and {d['runs_b']} "
        f"seeds, standard error {d['se']:.4f}, {d['df']:.1f} degrees of freedom): inside means distance 0"
    )
    lines = [f"mean difference (small - standard) {d['diff']:+.4f}, interval [{d['low']:+.4f}, {d['high']:+.4f}]"]
    return Check(
        f"a mean difference of {h:+.2f} in held-out accuracy is consistent with the runs",
        "distance of the hypothesised difference from the 95% interval",
        outside,
        0.0,
        crit,
        lines=lines,
        values=d,
    )


@claim(
    "hm-analog-train-loss",
    source='Hardt & Ma, Section 4.1: the smaller initialisation "helped training" (tested in the book\'s CPU analog)',
    statement=r"In the book's CPU analog (the runs of hm-analog-small-init), with \"helped training\" read as a "
    r"lower training loss at the end of the fixed budget of 40 epochs, the paper's small initialisation on the "
    r"residual convolutions does not help: the ratio of geometric means of the final training cross-entropy, "
    r"small over standard, $\exp(\text{mean}\,\ln\text{ratio})$, is above 1 (a higher loss). Its 95% "
    r"(Welch) interval reaches below 1, so a higher loss is not established either; a lower one is not seen.",
    verdict="not reproduced",
    falsifier="the paper's direction: the small initialisation ends with a lower training loss than the standard "
    "one (the whole 95% interval of the ratio of geometric means of the final training loss below 1)",
    falsifier_kind="plausible false statement",
    where=["book/hardt_ma_expressivity.ipynb", "tests/experiments/test_hm_analog.py"],
)
def claim_hm_analog_train_loss(falsify: bool = False) -> Check:
    """The committed analog, final training loss after the fixed budget, small over standard, as a
    ratio of geometric means ``exp(mean ln ratio)`` with the 95% Welch interval of the mean log ratio
    mapped through ``exp``. The check: the ratio is at least 1 (no training benefit in the mean) and
    the interval's lower end is below 1 (a higher loss is not established). The falsifier, the
    paper's direction: the interval's upper end below 1 (a benefit shown)."""
    from resnet_nb.core.paths import RESULTS

    d = difference(load(RESULTS / "hm_conv"), quantity="log_loss")
    ratio, low, high = math.exp(d["diff"]), math.exp(d["low"]), math.exp(d["high"])
    values = dict(d, ratio=ratio, ratio_low=low, ratio_high=high)
    crit = (
        f"{d['runs_a']} and {d['runs_b']} seeds, standard error of the mean ln ratio {d['se']:.3f}, "
        f"{d['df']:.1f} degrees of freedom (Welch)"
    )
    lines = [
        f"mean ln(loss ratio) (small - standard) {d['diff']:+.3f}, 95% interval [{d['low']:+.3f}, "
        f"{d['high']:+.3f}]; ratio of geometric means {ratio:.2f}, interval [{low:.2f}, {high:.1f}]"
    ]
    if falsify:
        return Check(
            "the small initialisation ends with a lower training loss than the standard one",
            "upper end of the 95% interval of the ratio of geometric means (small / standard)",
            high,
            1.0,
            crit + ": a lower loss is shown when the whole interval is below 1",
            lines=lines,
            values=values,
        )
    return all_of(
        "the small initialisation does not end with a lower training loss than the standard one "
        "(final training loss after the fixed budget of epochs)",
        [
            Check(
                "no benefit in the mean: the ratio of geometric means is at least 1",
                "ratio of geometric means of the final training loss, small / standard",
                ratio,
                1.0,
                crit,
                op=">=",
                values=values,
            ),
            Check(
                "a higher loss is not established either: the 95% interval of the ratio reaches below 1",
                "lower end of the 95% interval of the ratio",
                low,
                1.0,
                crit,
                values=values,
            ),
        ],
        lines=lines,
    )
