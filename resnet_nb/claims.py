"""The claims ledger: every statement the book relies on, where it is checked, and how it fared.

Each :class:`Claim` names its source (paper and equation), states what we check in our own
words, says whether the statement *as printed* holds, and carries two functions:

* ``check()`` computes both sides of the statement independently on small but unfriendly
  instances and returns an :class:`Outcome` (passed, worst discrepancy, tolerance);
* ``negative()`` runs the same comparison on an instance where the statement is false and
  must report a failure, so that the check is shown to be able to fail.

The book's ledger page runs :func:`run_all` at build time and fails the build if any claim
fails; ``tests/test_claims.py`` runs every ``check`` and every ``negative`` under pytest.
Chapter modules register their own claims through :func:`register` (see the bottom of this
file for the core ones).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import torch

__all__ = ["Outcome", "Claim", "REGISTRY", "register", "run_all", "ledger_table"]


@dataclass
class Outcome:
    """Result of one comparison: ``passed`` when ``worst <= tol`` (or the stated criterion)."""

    passed: bool
    worst: float
    tol: float
    detail: str = ""


@dataclass
class Claim:
    id: str
    source: str
    statement: str
    printed: str  # see PRINTED
    where: list = field(default_factory=list)
    check: callable = None
    negative: callable = None


REGISTRY: dict[str, Claim] = {}

#: verdicts on a statement as its source prints it: "holds"; "fails" (false as printed: the
#: ledger states and checks a corrected form); "not a theorem" (an experimental observation or
#: our own derivation, checked as stated); "not reproduced" (an experimental observation that
#: our reproduction contradicts: the ledger states and checks what we measured instead).
PRINTED = ("holds", "fails", "not a theorem", "not reproduced")


def register(id: str, source: str, statement: str, where, printed: str = "holds", negative=None):
    """Decorator: register ``fn`` (returning an :class:`Outcome`) as the check of a claim."""
    if printed not in PRINTED:
        raise ValueError(f"printed must be one of {PRINTED}, got {printed!r}")

    def deco(fn):
        if id in REGISTRY:
            raise ValueError(f"claim id {id!r} is registered twice")
        REGISTRY[id] = Claim(id, source, statement, printed, list(where), fn, negative)
        return fn

    return deco


def _load_chapter_claims():
    # chapter modules register their claims on import; a missing module is simply skipped
    import importlib

    for mod in ("resnet_nb.claims_chapters",):
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as exc:  # pragma: no cover
            if exc.name != mod:
                raise


def run_all(ids=None, progress: bool = True):
    """Run the checks (all, or those in ``ids``); return a pandas DataFrame, one row per claim."""
    import pandas as pd
    from tqdm.auto import tqdm

    _load_chapter_claims()
    chosen = list(REGISTRY) if ids is None else list(ids)
    unknown = [i for i in chosen if i not in REGISTRY]
    if unknown:
        raise ValueError(f"unknown claim ids {unknown}; known: {sorted(REGISTRY)}")
    rows = []
    for cid in tqdm(chosen, desc="claims", disable=not progress):
        c = REGISTRY[cid]
        t0 = time.perf_counter()
        try:
            out = c.check()
            err = ""
        except Exception as exc:  # a crashing check is a failed check, reported as such
            out = Outcome(False, float("nan"), float("nan"))
            err = f"{type(exc).__name__}: {exc}"
        rows.append(dict(id=c.id, source=c.source, statement=c.statement, printed=c.printed,
                         where="; ".join(c.where), passed=bool(out.passed), worst=out.worst,
                         tol=out.tol, detail=err or out.detail,
                         seconds=round(time.perf_counter() - t0, 2)))
    return pd.DataFrame(rows)


def ledger_table(df) -> str:
    """The ledger as an HTML table (the book's appendix page): four columns that fit a page."""
    import html

    def fmt(x):
        return "n/a" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.1e}"

    head = ("<table class='claims-ledger' style='table-layout:fixed;width:100%;font-size:0.85em'>"
            "<colgroup><col style='width:22%'><col style='width:14%'><col style='width:11%'>"
            "<col style='width:53%'></colgroup><thead><tr><th>claim and source</th><th>last run</th>"
            "<th>as printed</th><th>statement checked, and where</th></tr></thead><tbody>")
    body = []
    for r in df.itertuples():
        verdict = "pass" if r.passed else "FAIL"
        color = "#1a7f37" if r.passed else "#cf222e"
        where = "<br>".join(html.escape(w) for w in r.where.split("; "))
        body.append(
            f"<tr><td><code style='word-break:break-all'>{html.escape(r.id)}</code><br>"
            f"<small>{html.escape(r.source)}</small></td>"
            f"<td><b style='color:{color}'>{verdict}</b><br><small>worst {fmt(r.worst)}<br>"
            f"tolerance {fmt(r.tol)}</small></td><td>{html.escape(r.printed)}</td>"
            f"<td>{html.escape(r.statement)}"
            + (f"<br><small><i>{html.escape(r.detail)}</i></small>" if r.detail else "")
            + f"<br><small style='word-break:break-all'>{where}</small></td></tr>")
    return head + "".join(body) + "</tbody></table>"


# ==========================================================================================
# Core claims (the package's own machinery and Theorem 1 of Li et al.)
# ==========================================================================================

def _rand_data(d, m, seed):
    from .data import Dataset

    g = torch.Generator().manual_seed(seed)
    return Dataset(torch.randn(d, m, generator=g, dtype=torch.float64),
                   torch.randn(d, m, generator=g, dtype=torch.float64))


def _loss_routes(perturb=0.0):
    from . import initialise, loss_samples, loss_stats
    from .data import SufficientStats
    from .networks import ShortcutNetwork

    worst = 0.0
    for seed, (n, R, scale) in enumerate([(1, 3, 1.0), (2, 2, 1e-2), (3, 2, 3.0), (2, 4, 1.0)]):
        data = _rand_data(4, 30, seed)
        s = data.stats()
        if perturb:
            s = SufficientStats(s.Sxx, s.Syx + perturb, s.trSyy, s.m)
        net = ShortcutNetwork(4, n, R)
        W = scale * initialise(net, "xavier", seed=seed)
        a, b = loss_samples(net, W, data).item(), loss_stats(net, W, s).item()
        worst = max(worst, abs(a - b) / max(1.0, abs(a)))
    return Outcome(worst <= 1e-12, worst, 1e-12, "relative difference, 4 random networks")


register("core-loss-statistics", "Li et al., Eqs. 6, 8-9",
         "The Frobenius loss of a linear network computed from the samples equals the one computed "
         "from Sxx, Syx and tr Syy.", ["tests/test_core.py::test_sample_loss_equals_sufficient_statistics_loss",
                                       "book/notation.ipynb"],
         negative=lambda: _loss_routes(perturb=1e-6))(_loss_routes)


def _optimum(shift=0.0):
    from .data import whitened_mnist
    from .losses import optimum

    data = whitened_mnist(n_per_class=100)
    W, Lmin = optimum(data)
    sol, *_ = np.linalg.lstsq(data.X.numpy().T, data.Y.numpy().T, rcond=None)
    worst = float(np.abs(W.numpy() + shift - sol.T).max())
    return Outcome(worst <= 1e-10, worst, 1e-10, "max |W* - lstsq|, whitened MNIST (1,000 digits)")


register("li-eq15-16-optimum", "Li et al., Eqs. 15-16",
         "The least-squares map Syx Sxx^+ minimises the loss; it matches numpy's least-squares solver.",
         ["tests/test_core.py::test_optimum_is_least_squares_and_gradient_descent_reaches_it",
          "book/notation.ipynb"], negative=lambda: _optimum(shift=1e-6))(_optimum)


def _stationarity(at_zero=True):
    from .hessians import stationarity_profile
    from .init import initialise
    from .networks import ShortcutNetwork

    worst_low, smallest_n = 0.0, np.inf
    for n in (2, 3, 4):
        data = _rand_data(2, 20, n)
        net = ShortcutNetwork(2, n, 2)
        W = initialise(net, "zero" if at_zero else "xavier", seed=n)
        prof = stationarity_profile(net, W, data, order=n, directions=5, seed=n)
        worst_low = max(worst_low, float(prof[: n - 1].max()))
        smallest_n = min(smallest_n, float(prof[n - 1]))
    ok = worst_low <= 1e-12 and smallest_n > 1e-4
    return Outcome(ok, worst_low, 1e-12,
                   f"largest derivative of order < n: {worst_low:.1e}; smallest order-n derivative {smallest_n:.1e}")


register("li-thm1-part1-stationary", "Li et al., Theorem 1.1 and Definition 4",
         "For n >= 2 the zero point is an (n-1)-th order stationary point: directional derivatives of "
         "orders 1..n-1 vanish, order n does not (n = 2, 3, 4).",
         ["tests/test_hessians.py::test_zero_is_stationary_of_order_n_minus_1", "book/theorem1.ipynb"],
         negative=lambda: _stationarity(at_zero=False))(_stationarity)


def _closed_form(wrong=False):
    from .hessians import hessian, hessian_at_zero
    from .init import initialise
    from .networks import ShortcutNetwork

    worst, smallest = 0.0, np.inf
    for n in (1, 2, 3):
        for acts in ({}, {"pre": "tanh", "mid": "tanh", "post": "tanh"}, {"mid": "relu"}, {"post": "silu"}):
            data = _rand_data(3, 25, seed=n)
            net = ShortcutNetwork(3, n, 2, **acts)
            Ha = hessian(net, initialise(net, "zero"), data)
            Hc = hessian_at_zero(net, _rand_data(3, 25, seed=99) if wrong else data)
            worst = max(worst, (Ha - Hc).abs().max().item())
    return Outcome(worst <= 1e-10, worst, 1e-10, "max |H_autograd - H_closed_form| over n = 1, 2, 3 and 4 activation settings")


register("li-thm1-closed-forms", "Li et al., Theorem 1 (Eqs. 11, 13, 19-28)",
         "At w = 0 the Hessian equals the closed forms: zero for n >= 3, Eq. 11 for n = 2, Eq. 13 for n = 1 "
         "(with our general A and B when activations are present).",
         ["tests/test_hessians.py::test_theorem1_closed_form_matches_autograd_at_zero", "book/theorem1.ipynb"],
         negative=lambda: _closed_form(wrong=True))(_closed_form)


def _n2_spectrum(multiplicity_factor=1):
    from .hessians import hessian, spectrum, theorem1_blocks
    from .init import initialise
    from .networks import ShortcutNetwork

    d, R = 3, 3
    data = _rand_data(d, 40, seed=5)
    net = ShortcutNetwork(d, 2, R, pre="tanh", mid="silu")
    sv = torch.linalg.svdvals(theorem1_blocks(net, data)["M"]).numpy()
    k = d * R * multiplicity_factor
    pred = np.sort(np.concatenate([np.repeat(sv, k), -np.repeat(sv, k)]))
    got = spectrum(hessian(net, initialise(net, "zero"), data))
    if pred.size != got.size:
        return Outcome(False, float("inf"), 1e-10, f"predicted {pred.size} eigenvalues, found {got.size}")
    worst = float(np.abs(got - pred).max())
    return Outcome(worst <= 1e-10, worst, 1e-10, "eigenvalues vs +-singular values of M, each d R times")


register("li-thm1-part2-spectrum", "Li et al., Theorem 1.2, Eqs. 12 and 18",
         "For n = 2 the eigenvalues at zero are plus and minus the singular values of "
         "sigma_mid'(0) sigma_post'(0) (Sigma_{X s} - Sigma_{Y s}), each with multiplicity d R.",
         ["tests/test_hessians.py::test_n2_spectrum_is_plus_minus_singular_values_with_multiplicity",
          "book/theorem1.ipynb"], negative=lambda: _n2_spectrum(multiplicity_factor=2))(_n2_spectrum)


def _depth_invariance(n=2):
    from .data import whitened_mnist
    from .hessians import cond_max_min, hessian_linear, spectrum
    from .init import initialise
    from .networks import ShortcutNetwork

    stats = whitened_mnist(n_per_class=100).stats()
    conds = []
    for R in (1, 2, 4, 8):
        net = ShortcutNetwork(10, n, R)
        conds.append(cond_max_min(spectrum(hessian_linear(net, initialise(net, "zero"), stats))))
    spread = (max(conds) - min(conds)) / min(conds)
    return Outcome(spread <= 1e-9, spread, 1e-9,
                   f"cond(H) at zero for R = 1, 2, 4, 8 units: " + ", ".join(f"{c:.6g}" for c in conds))


register("li-thm1-depth-invariant", "Li et al., Theorem 1.2 and Eq. 1",
         "For 2-shortcut linear networks the condition number of the Hessian at zero does not depend on "
         "depth (whitened MNIST, 1 to 8 units, Hessian from the independent Kronecker route).",
         ["book/theorem1.ipynb", "book/exp_initial_point.ipynb"],
         negative=lambda: _depth_invariance(n=1))(_depth_invariance)


def _kron(wrong=False):
    from .hessians import hessian, hessian_linear
    from .init import initialise
    from .networks import ShortcutNetwork

    worst = 0.0
    for n, R, sc in [(1, 3, True), (2, 2, True), (3, 2, True), (2, 2, False)]:
        data = _rand_data(3, 20, seed=n + R)
        net = ShortcutNetwork(3, n, R, shortcut=sc)
        W = initialise(net, "xavier", seed=R)
        Ha = hessian(net, W, data)
        Hk = hessian_linear(net, W + (1e-4 if wrong else 0.0), data)
        worst = max(worst, (Ha - Hk).abs().max().item() / max(1.0, Ha.abs().max().item()))
    return Outcome(worst <= 1e-10, worst, 1e-10, "relative max difference at Xavier points")


register("core-kronecker-hessian", "matrix calculus (our derivation)",
         "The Hessian of a linear network assembled from Kronecker products equals autograd's at "
         "random points, with and without shortcuts.",
         ["tests/test_hessians.py::test_kronecker_hessian_matches_autograd_at_random_points"],
         printed="not a theorem", negative=lambda: _kron(wrong=True))(_kron)
