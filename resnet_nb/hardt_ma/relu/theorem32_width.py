"""The width of Hardt & Ma's Theorem 3.2 (chapter: book/hardt_ma_expressivity.ipynb): the proof's
``k = c log n / rho^2``, its Johnson-Lindenstrauss step under the two readings of ``rho``, and the
draws of the ledger and of ``scripts/hm_thm32.py``.

The claim ``hm-thm32`` is declared here.
"""

from __future__ import annotations

import math

import numpy as np

from resnet_nb.core.checks import require_float, require_int
from resnet_nb.core.claims import Check, all_of, claim
from resnet_nb.hardt_ma.relu.network import as_points, projection_A0, random_unit_draw, separation, unit_norm_columns
from resnet_nb.hardt_ma.relu.theorem32 import construction_fit_error, paper_order_failure, projected_margins

WHERE = ["book/hardt_ma_expressivity.ipynb", "tests/hardt_ma/test_theorem3_2_width.py"]

__all__ = [
    "paper_width",
    "clopper_pearson",
    "failure_rate",
    "THM32_DRAWS",
    "RHO_READINGS",
    "jl_distortion",
    "thm32_draw",
    "jl_step_rates",
    "chapter_point_sets",
    "THM32_RESULTS",
    "thm32_draw_row",
    "projection_row",
    "claim_theorem32",
    "THM32_DIR",
    "thm32_draw_item",
    "thm32_projection_item",
    "reproduce_thm32",
    "load_thm32",
]


def paper_width(n: int, rho_paper: float, c: float = 10.0) -> int:
    """The width ``k = ceil(c log n / rho^2)`` of the paper's proof of Theorem 3.2.

    ``rho_paper`` is the paper's separation read as in Assumption 3.1, a bound on squared
    distances (:func:`paper_rho`); the proof also uses ``rho`` as a distance, and passing
    :func:`separation` instead gives that second reading's width. ``c = 10`` is the paper's own
    constant (appendix B: "for example, c = 10 works")."""
    n = require_int("n", n, minimum=2)
    rho_paper = require_float("rho_paper", rho_paper, low=0.0, low_open=True)
    return int(math.ceil(require_float("c", c, low=0.0, low_open=True) * math.log(n) / rho_paper**2))


def clopper_pearson(x: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper-Pearson) two-sided confidence interval of a rate seen ``x`` times in ``n``."""
    from scipy.stats import beta

    x, n = require_int("x", x, minimum=0), require_int("n", n)
    if x > n:
        raise ValueError(f"x must be at most n = {n}, got {x}")
    a = 1 - require_float("level", level, low=0.0, high=1.0, low_open=True, high_open=True)
    low = 0.0 if x == 0 else float(beta.ppf(a / 2, x, n - x + 1))
    high = 1.0 if x == n else float(beta.ppf(1 - a / 2, x + 1, n - x))
    return low, high


def failure_rate(fails, level: float = 0.95) -> dict:
    """Count, rate and Clopper-Pearson interval of a sequence of booleans (True: a failure)."""
    fails = np.asarray(fails, dtype=bool)
    x, n = int(fails.sum()), int(fails.size)
    low, high = clopper_pearson(x, n, level)
    return dict(failures=x, draws=n, rate=x / n, low=low, high=high)


#: the ledger's draws for ``hm-thm32``: random unit points, the paper's width ``k = ceil(c ln n / rho^2)``
#: at the printed constant ``c_paper`` and at a larger one; the projection of draw ``s`` is drawn from
#: seed ``projection_offset + s``, independent of the data (drawn from seed ``s``)
THM32_DRAWS = dict(n=600, d=200, draws=100, level=0.95, rare=0.05, c_paper=10.0, c_larger=30.0, projection_offset=10**6)


#: the two readings of the paper's rho: Assumption 3.1 (squared distances) and the proof's (distances)
RHO_READINGS = ("squared distance", "distance")


def jl_distortion(X, k: int, seed: int = 0) -> float:
    """The worst relative change of a distance among ``{0, x_1, ..., x_n}`` under the projection
    ``A0 = G / sqrt(k)`` of :func:`theorem32_construction` (same ``seed``): the largest
    ``| ||A0 (u - v)|| / ||u - v|| - 1 |`` over the norms ``||x_i||`` and the pairwise distances.
    The proof of Theorem 3.2 asks that it be at most ``rho / 3`` ("with high probability")."""
    X = as_points("X", X)
    k = require_int("k", k)
    H = projection_A0(X.shape[0], k, seed) @ X
    sq0, sq = (X**2).sum(0), (H**2).sum(0)
    if np.any(sq0 == 0):
        raise ValueError("X has a zero column: its distance to 0 is 0")
    D0 = sq0[:, None] + sq0[None, :] - 2 * X.T @ X
    D = sq[:, None] + sq[None, :] - 2 * H.T @ H
    np.fill_diagonal(D0, 1.0)
    np.fill_diagonal(D, 1.0)
    if D0.min() <= 0:
        raise ValueError("X has two equal columns")
    ratio = np.sqrt(np.maximum(np.concatenate([sq / sq0, (D / D0).ravel()]), 0.0))
    return float(np.abs(ratio - 1).max())


def thm32_draw(seed: int) -> dict:
    """Draw ``seed`` of the ledger's ``hm-thm32`` set: points ``X``, labels ``y``, the smallest distance
    ``separation``, the projection seed, and the paper's rho under both readings (``RHO_READINGS``)."""
    cfg = THM32_DRAWS
    X, y = random_unit_draw(seed, cfg["n"], cfg["d"])
    sep = separation(X)
    return dict(
        X=X,
        y=y,
        separation=sep,
        projection_seed=cfg["projection_offset"] + seed,
        rho={"squared distance": sep**2, "distance": sep},
    )


def jl_step_rates(c: float, draws: int | None = None) -> dict:
    """For each reading of rho, over the ledger's draws: how often the proof's Johnson-Lindenstrauss
    step fails at ``k = ceil(c ln n / rho^2)`` (some distance among ``{0, x_i}`` changes by more than
    a factor ``1 +- rho / 3``), as :func:`failure_rate` plus the range of ``k`` and of
    ``distortion / (rho / 3)`` (above 1: the step fails on that draw) and of rho."""
    cfg = THM32_DRAWS
    out = {name: dict(fails=[], k=[], excess=[], rho=[]) for name in RHO_READINGS}
    for seed in range(cfg["draws"] if draws is None else require_int("draws", draws)):
        dr = thm32_draw(seed)
        for name in RHO_READINGS:
            rho = dr["rho"][name]
            k = paper_width(cfg["n"], rho, c)
            excess = jl_distortion(dr["X"], k, dr["projection_seed"]) / (rho / 3)
            o = out[name]
            o["fails"].append(excess > 1)
            o["k"].append(k)
            o["excess"].append(excess)
            o["rho"].append(rho)
    return {
        name: dict(
            failure_rate(o["fails"], cfg["level"]),
            k_min=min(o["k"]),
            k_max=max(o["k"]),
            excess_min=min(o["excess"]),
            excess_max=max(o["excess"]),
            rho_min=min(o["rho"]),
            rho_max=max(o["rho"]),
        )
        for name, o in out.items()
    }


def chapter_point_sets(n: int = 2000) -> dict:
    """The chapter's two point sets, ``{"synthetic": (X, y), "MNIST": (X, y)}``: ``n`` random unit
    vectors in R^100 with 10 random labels (seed 2), and ``n`` MNIST digits (a fixed random
    subset, seed 1) scaled to unit norm. Shared by the chapter and ``scripts/hm_thm32.py``."""
    from resnet_nb.core.data import mnist_digits

    n = require_int("n", n, minimum=2)
    g = np.random.default_rng(2)
    X_syn = unit_norm_columns(g.standard_normal((100, n)))
    y_syn = g.integers(0, 10, n)
    images, labels = mnist_digits()
    pick = np.random.default_rng(1).permutation(len(labels))[:n]
    return {"synthetic": (X_syn, y_syn), "MNIST": (unit_norm_columns(images[pick].T), labels[pick])}


#: what ``scripts/hm_thm32.py`` computes: the widths of the margin table, the number of projections
#: per width, the constants c of the per-draw table, and how many draws also get the greedy order
THM32_RESULTS = dict(widths=(20, 46, 100, 320), projections=40, c=(10.0, 30.0), greedy_draws=30)


def thm32_draw_row(seed: int, greedy: bool = False) -> dict:
    """One row of the stored draws (:func:`load_thm32`): for draw ``seed`` of the ledger's set, per reading
    of rho and per constant c of ``THM32_RESULTS``: the width, whether the paper's order refuses
    (:func:`paper_order_failure`), the proof's JL distortion over rho/3; with ``greedy``, the greedy
    order's largest error at Assumption 3.1's width with c = 10 (``inf``: refused)."""
    dr = thm32_draw(seed)
    row = dict(seed=seed, projection_seed=dr["projection_seed"], separation=dr["separation"])
    for c in THM32_RESULTS["c"]:
        for name in RHO_READINGS:
            rho, tag = dr["rho"][name], f"{'sq' if name.startswith('squared') else 'dist'}_c{c:g}"
            k = paper_width(THM32_DRAWS["n"], rho, c)
            row[f"k_{tag}"] = k
            row[f"refuses_{tag}"] = paper_order_failure(dr["X"], k, seed=dr["projection_seed"])["fails"]
            row[f"jl_excess_{tag}"] = jl_distortion(dr["X"], k, dr["projection_seed"]) / (rho / 3)
    if greedy:
        k = row[f"k_sq_c{THM32_DRAWS['c_paper']:g}"]
        row["greedy_error"] = construction_fit_error(dr["X"], dr["y"], 10, k, "greedy", dr["projection_seed"])[0]
    return row


def projection_row(X, k: int, seed: int) -> dict:
    """One row of the stored projections (:func:`load_thm32`): the margins after the projection of ``seed``
    (:func:`projected_margins`) and whether the paper's order refuses there."""
    return dict(
        k=k,
        seed=seed,
        **{key: v for key, v in projected_margins(X, k, seed).items() if key != "k"},
        refuses=paper_order_failure(X, k, seed=seed)["fails"],
    )


@claim(
    "hm-thm32",
    source="Hardt & Ma, Theorem 3.2, proof (appendix B): k = c log n / rho^2, 'with high probability, "
    "all the pairwise distances between {0, x(1), ..., x(n)} are preserved up to 1 +- rho/3 "
    "factor', 'for example, c = 10 works'",
    statement=r"The proof's Johnson-Lindenstrauss step holds with high probability at this size once the constant "
    r"is raised to $c = 30$, but not at the printed $c = 10$, under either reading of $\rho$ "
    r"(Assumption 3.1's smallest squared distance, or the proof's smallest distance). For $n = 600$ "
    r"random unit points in $\mathbb R^{200}$, $A_0 = G/\sqrt k$ and $k = \lceil 30\ln n/\rho^2\rceil$, "
    r"every distance among $\{0, x^{(1)}, \dots, x^{(n)}\}$ is kept within a factor $1 \pm \rho/3$ on a "
    r"fraction of 100 independent draws whose 95% Clopper-Pearson interval of the failure rate ends "
    r"at or below 5%, under each reading.",
    verdict="fails as printed",
    printed=r"the same step at the printed constant, $k = \lceil 10\ln n/\rho^2\rceil$ ('for example, "
    r"$c = 10$ works')",
    falsifier=r"the printed constant $c = 10$: the same comparison on the same 100 draws, under each reading",
    falsifier_kind="plausible false statement",
    where=WHERE,
)
def claim_theorem32(falsify: bool = False) -> Check:
    cfg = THM32_DRAWS
    c = cfg["c_paper"] if falsify else cfg["c_larger"]
    rates = jl_step_rates(c)
    parts = []
    for name, rate in rates.items():
        lines = [
            f"{rate['failures']} of {rate['draws']} draws fail; {int(100 * cfg['level'])}% interval "
            f"[{rate['low']:.3f}, {rate['high']:.3f}]; k = {rate['k_min']}..{rate['k_max']} (d = {cfg['d']}); "
            f"worst distortion / (rho/3) = {rate['excess_min']:.2f}..{rate['excess_max']:.2f}; "
            f"rho = {rate['rho_min']:.3f}..{rate['rho_max']:.3f}"
        ]
        parts.append(
            Check(
                f"rho read as a {name}: distances among {{0, x_i}} within 1 +- rho/3 at c = {c:g}",
                "upper end of the 95% Clopper-Pearson interval of the failure rate",
                rate["high"],
                cfg["rare"],
                "'with high probability' read as: fails on at most 5% of draws",
                op="<=",
                lines=lines,
                values=rate,
            )
        )
    chk = all_of(
        f"{cfg['n']} random unit points in R^{cfg['d']}, {cfg['draws']} draws, the proof's JL step at "
        f"c = {c:g}, both readings of rho",
        parts,
    )
    chk.values = dict(c=c, **rates)
    return chk


#: where :func:`reproduce_thm32` keeps its records by default: ``results/hm_thm32/records``
THM32_DIR = "hm_thm32"


def thm32_draw_item(seed: int) -> dict:
    """The work item of draw ``seed`` of :func:`reproduce_thm32` (one row of
    :func:`thm32_draw_row`): the seed, whether the greedy order is fitted, and the settings the row
    depends on."""
    settings = {k: THM32_DRAWS[k] for k in ("n", "d", "c_paper", "projection_offset")}
    greedy = seed < THM32_RESULTS["greedy_draws"]
    return dict(set=THM32_DIR, table="draws", seed=seed, greedy=greedy, c=list(THM32_RESULTS["c"]), **settings)


def thm32_projection_item(data: str, X, k: int) -> dict:
    """The work item of point set ``data`` (points ``X``) at width ``k`` of :func:`reproduce_thm32`:
    its ``THM32_RESULTS["projections"]`` rows of :func:`projection_row`, seeds 0, 1, ..."""
    d, n = np.shape(X)
    return dict(set=THM32_DIR, table="projections", data=data, d=d, n=n, k=k, projections=THM32_RESULTS["projections"])


def _store(out):
    from pathlib import Path

    from resnet_nb.core.paths import results_dir

    return (results_dir(THM32_DIR) if out is None else Path(out)) / "records"


def reproduce_thm32(out=None, seeds=None, point_sets=None):
    """Compute and store the tables of :func:`load_thm32` in ``out`` (default ``results/hm_thm32``):
    one record per draw (``seeds``, default all of ``THM32_DRAWS``) and per point set and width
    (``point_sets``, default :func:`chapter_point_sets`; the widths of ``THM32_RESULTS`` and the
    paper's, those below the dimension). An item whose sound record is stored is not recomputed."""
    from resnet_nb.hardt_ma.relu.network import paper_rho
    from resnet_nb.shared.store import record_item

    store, cfg = _store(out), THM32_RESULTS
    for s in range(THM32_DRAWS["draws"]) if seeds is None else seeds:
        record_item(store, thm32_draw_item(s), lambda s=s: [thm32_draw_row(s, greedy=s < cfg["greedy_draws"])])
    for name, (X, _) in (chapter_point_sets() if point_sets is None else point_sets).items():
        for k in sorted({*cfg["widths"], paper_width(X.shape[1], paper_rho(X))}):
            if k >= X.shape[0]:  # no projection below d: the paper's width for MNIST exceeds 784
                continue
            item = thm32_projection_item(name, X, k)
            record_item(
                store,
                item,
                lambda i=item, X=X: [
                    dict(data=i["data"], **projection_row(X, i["k"], s)) for s in range(i["projections"])
                ],
            )
    return load_thm32(out)


def load_thm32(out=None):
    """The stored tables of :func:`reproduce_thm32` (default: the committed ``results/hm_thm32``),
    ``(draws, projections)``: one row per draw by seed (``greedy_error`` missing where not fitted),
    one per projection by point set (in the order stored first: synthetic, MNIST), width and seed.
    A damaged record is refused (``ValueError``), an empty folder too (``FileNotFoundError``)."""
    from resnet_nb.shared.store import iter_records, records_table

    bodies = list(iter_records(_store(out), strict=True))
    if not bodies:
        raise FileNotFoundError(f"out: {_store(out)} holds no records: run `python scripts/hm_thm32.py`")
    draws = sorted((b for b in bodies if b["item"]["table"] == "draws"), key=lambda b: b["item"]["seed"])
    order = {"synthetic": 0, "MNIST": 1}
    proj = [b for b in bodies if b["item"]["table"] == "projections"]
    proj.sort(key=lambda b: (order.get(b["item"]["data"], 2), b["item"]["data"], b["item"]["k"]))
    # the order of the columns shown (a record stores each row's keys sorted); a name missing
    # here moves its column to the end, nothing else
    tags = [f"{'sq' if r.startswith('squared') else 'dist'}_c{c:g}" for c in THM32_RESULTS["c"] for r in RHO_READINGS]
    lead = (
        "seed",
        "projection_seed",
        "separation",
        *(f"{p}_{t}" for t in tags for p in ("k", "refuses", "jl_excess")),
    )
    columns = ("data", "k", "seed", "min_margin", "exposed", "min_norm", "max_norm", "refuses")
    return records_table(draws, (*lead, "greedy_error")), records_table(proj, columns)
