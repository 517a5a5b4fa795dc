"""Checks that can fail, and the ledger of claims they decide.

One result type, :class:`Check`, serves the chapters and the ledger. A check compares two
independently computed quantities (or a statistic against a threshold) with a tolerance that
follows from a stated criterion, and it records the size of the part that *could* differ, so
that a comparison of zeros with zeros is reported as vacuous instead of passing.

A claim of one of the papers is declared beside the function that checks it, in the module of
its chapter, with the :func:`claim` decorator::

    @claim("li-lemma1", source="Li et al., Lemma 1",
           statement=r"All partial derivatives of order $< n$ vanish at $w = 0$ ...",
           verdict="holds", falsifier=r"the same with $\\sigma_{mid}(0) \\ne 0$",
           where=["book/theorem1.ipynb", "tests/test_theorem1.py"])
    def check_lemma1(falsify: bool = False) -> Check:
        ...

The decorated function takes one argument, ``falsify``: with ``falsify=False`` it checks the
statement the book makes (the paper's, or its corrected form); with ``falsify=True`` it runs
the *same* comparison on the falsifier, a plausible false statement (the printed form where
that is wrong, a wrong formula, a dropped hypothesis), and must return a failing
:class:`Check`. A claim whose only possible negative is a corrupted input is declared with
``kind="regression"``: it is then labelled a regression test of a measured value, not a check
of a claim.

:func:`run_all` imports every module of the package (which registers every claim), runs each
check and each falsifier, and returns one row per claim; :func:`require_all` raises if a check
fails or a falsifier is not rejected, so the ledger page fails the book build.
"""
from __future__ import annotations

import html
import importlib
import math
import pkgutil
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Check", "Claim", "LEDGER", "VERDICTS", "KINDS", "claim", "all_claims", "run_all",
           "require_all", "ledger_html", "LedgerError", "eps_criterion", "verdict_summary",
           "load_quotes", "quotes_html", "FALSIFIER_KINDS", "mirrored",
           "complement", "implied", "verdict_summary_html", "falsifier_kind_of", "falsifier_conflict",
           "falsifier_kind_counts", "UNLABELLED", "LEGACY_FALSIFIER_KINDS",
           "effective_verdict", "tolerance_rules", "tolerance_rules_html"]

#: verdicts on a precise statement (an equation, a lemma, a constant, an experimental claim).
VERDICTS = ("holds", "fails as printed", "reproduced", "partly reproduced", "not reproduced")
#: "claim": a statement with a falsifier that states something false; "regression": a measured
#: value whose only negative is an input corruption (labelled as such in the ledger).
KINDS = ("claim", "regression")
_OPS = ("<=", ">=")
#: what a falsifier is (``falsifier_kind=`` of :func:`claim`):
#: "plausible false statement": the printed form, a wrong formula, a dropped hypothesis, a
#: misreading someone could make, on which the check's own comparison fails;
#: "implied by the check": any passing check rejects it automatically (the reversed ordering of
#: a strict comparison, "gap >= spread" against "|gap| <= spread"), so it adds no evidence;
#: "regression test": the only negative is a corrupted input or a value constructed to fail.
FALSIFIER_KINDS = ("plausible false statement", "implied by the check", "regression test")
PLAUSIBLE, IMPLIED, REGRESSION = FALSIFIER_KINDS
#: what the ledger shows for a claim that declares no kind and whose kind it cannot infer.
UNLABELLED = "unlabelled"
#: legacy values still accepted as input: "" (not declared) and "reversed ordering" (= implied).
LEGACY_FALSIFIER_KINDS = {"": "", "reversed ordering": IMPLIED}
REVERSED = "reversed ordering"
FRAGILE_NOTE = "fragile: margin below the run-to-run spread"

EPS64 = 2.0 ** -52


def eps_criterion(P: int, scale: float, factor: float = 100.0) -> tuple[float, str]:
    """Tolerance for a float64 comparison of quantities of size ``scale`` built from ``P`` terms.

    Returns ``(tol, criterion)`` with ``tol = factor * P * eps * scale``: the rounding error a
    sum of ``P`` products of that size can accumulate, times a safety factor.
    """
    tol = factor * P * EPS64 * max(float(scale), 1e-300)
    return tol, f"{factor:g} P eps |scale| with P = {P}, |scale| = {scale:.2g}"


def _fmt(x) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if isinstance(x, (int,)) and not isinstance(x, bool):
        return f"{x:,}"
    x = float(x)
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e4:
        return f"{x:.4g}"
    return f"{x:.2e}"


@dataclass
class Check:
    """The outcome of one comparison.

    Passed when ``value <op> tol`` holds, the nontrivial part (if given) exceeds
    ``nontrivial_min``, and every sub-check in ``parts`` passed.

    Attributes
    ----------
    claim : what is checked, in words ("Eq. 11: Hessian at 0 for n = 2").
    compared : the two computations compared, or the statistic ("max |H_autograd - H_Eq.11|").
    value : the measured discrepancy or statistic.
    tol : the tolerance; ``criterion`` says where it comes from.
    op : "<=" (a discrepancy below a tolerance) or ">=" (a statistic above a threshold).
    nontrivial : size of the part that could differ (e.g. ``max |H|``); ``nontrivial_what`` names
        it and ``nontrivial_min`` is the size it must exceed for the comparison to mean anything.
    spread : run-to-run spread of ``value`` (experimental checks); the check is *fragile* when
        its margin is smaller.
    lines : further sentences for the reader; ``values`` : raw numbers for the prose.
    parts : sub-checks that must all pass.
    """

    claim: str
    compared: str
    value: float
    tol: float
    criterion: str
    op: str = "<="
    nontrivial: float | None = None
    nontrivial_what: str = ""
    nontrivial_min: float = 0.0
    spread: float | None = None
    lines: list = field(default_factory=list)
    values: dict = field(default_factory=dict)
    parts: list = field(default_factory=list)

    def __post_init__(self):
        if self.op not in _OPS:
            raise ValueError(f"op must be one of {_OPS}, got {self.op!r}")
        self.value = float(self.value)
        self.tol = float(self.tol)
        if not self.criterion:
            raise ValueError("a check needs a stated criterion for its tolerance")

    # -- verdict ----------------------------------------------------------------------------
    @property
    def within(self) -> bool:
        """The comparison itself: ``value <op> tol`` (NaN never passes)."""
        if math.isnan(self.value):
            return False
        return self.value <= self.tol if self.op == "<=" else self.value >= self.tol

    @property
    def vacuous(self) -> bool:
        """True when the part that could differ is too small for the comparison to mean anything."""
        return self.nontrivial is not None and not (abs(self.nontrivial) > self.nontrivial_min)

    @property
    def passed(self) -> bool:
        return self.within and not self.vacuous and all(p.passed for p in self.parts)

    @property
    def rejected_on_value(self) -> bool:
        """For a falsifier: it failed because the comparison failed, not because it was vacuous."""
        return (not self.within or any(p.rejected_on_value for p in self.parts)) and not self.vacuous

    @property
    def margin(self) -> float:
        """How far the value is from the tolerance on the passing side (negative: failing)."""
        own = self.tol - self.value if self.op == "<=" else self.value - self.tol
        return own

    @property
    def rel_margin(self) -> float:
        """The margin as a fraction of the tolerance."""
        return self.margin / abs(self.tol) if self.tol else math.inf

    @property
    def fragile(self) -> bool:
        """Passed, but by less than the run-to-run spread, here or in one of its parts."""
        if not self.passed:
            return False
        own = self.spread is not None and self.margin < self.spread
        return own or any(p.fragile for p in self.parts)

    def leaves(self) -> list:
        """This check and every sub-check that has no parts of its own, depth first."""
        if not self.parts:
            return [self]
        return [q for p in self.parts for q in p.leaves()]

    def require(self) -> "Check":
        """Raise :class:`AssertionError` unless the check passed; return it otherwise."""
        if not self.passed:
            raise AssertionError(str(self))
        return self

    def refute(self) -> "Check":
        """Raise unless the check failed on its comparison (use on a falsifier)."""
        if not self.rejected_on_value:
            raise AssertionError("the falsifier was not rejected:\n" + str(self))
        return self

    # -- display ----------------------------------------------------------------------------
    @property
    def verdict(self) -> str:
        if self.vacuous:
            return "VACUOUS"
        return "holds" if self.passed else "FAILS"

    def summary(self) -> str:
        """One line: value, tolerance and margin."""
        s = f"{self.compared} = {_fmt(self.value)} (must be {self.op} {_fmt(self.tol)})"
        return s

    def __str__(self) -> str:
        w = 88
        out = [f"[{self.verdict}] {self.claim}"]
        body = [self.summary(), f"tolerance: {self.criterion}"]
        if self.nontrivial is not None:
            body.append(f"nontrivial part: {self.nontrivial_what or 'size'} = {_fmt(self.nontrivial)}"
                        f" (must be > {_fmt(self.nontrivial_min)})")
        if self.spread is not None:
            body.append(f"margin {_fmt(self.margin)} against run-to-run spread {_fmt(self.spread)}"
                        + (" (fragile)" if self.fragile else ""))
        body += list(self.lines)
        for b in body:
            out += textwrap.wrap(b, w, initial_indent="  ", subsequent_indent="    ")
        for p in self.parts:
            out += ["  " + ln for ln in str(p).splitlines()]
        return "\n".join(out)

    __repr__ = __str__

    def margin_words(self) -> str:
        """The outcome in words for the one-line summary: the value, on which side of its bound,
        and by how much ("2.1e-15, below the tolerance 3.6e-12 by 3.6e-12")."""
        if self.vacuous:
            return (f"vacuous: {self.nontrivial_what or 'the part that could differ'} = "
                    f"{_fmt(self.nontrivial)}, not above {_fmt(self.nontrivial_min)}")
        if self.parts:
            leaves = self.leaves()
            bad = [p for p in leaves if not p.passed]
            if bad:
                return f"{len(bad)} of {len(leaves)} parts fail: {bad[0].claim}"
            tight = min(leaves, key=lambda p: (p.rel_margin, p.margin))
            return f"all {len(leaves)} parts hold; the tightest, {tight.claim}: {tight.margin_words()}"
        if math.isnan(self.value):
            return "no value (NaN)"
        bound = "tolerance" if self.op == "<=" else "threshold"
        if self.op == "<=":
            side = "below" if self.within else "above"
        else:
            side = "above" if self.within else "below"
        words = f"value {_fmt(self.value)}, {side} the {bound} {_fmt(self.tol)}"
        if self.margin != 0:
            words += f" by {_fmt(abs(self.margin))}"
        return words

    def html(self, open: bool = False) -> str:
        """A ``<details>`` block: its one-line ``<summary>`` gives the verdict, the statement and
        the margin in words; opened, the full box (comparison, tolerance and its criterion, the
        part that could differ, run-to-run spread, notes and sub-checks, each a block of its own)."""
        ok = self.passed
        color = "#1a7f37" if ok else ("#9a6700" if self.vacuous else "#cf222e")
        e = html.escape
        frag = " <b style='color:#9a6700'>fragile</b>" if self.fragile else ""
        summary = (f"<summary style='cursor:pointer'><b style='color:{color}'>{e(self.verdict)}</b>"
                   f" &nbsp;{e(self.claim)} <span class='rn-check-margin' style='color:#57606a'>"
                   f"&mdash; {e(self.margin_words())}</span>{frag}</summary>")
        rows = [f"<div>{e(self.compared)} = <b>{e(_fmt(self.value))}</b> "
                f"<span style='white-space:nowrap'>(must be {e(self.op)} {e(_fmt(self.tol))})</span></div>",
                f"<div style='color:#57606a'>tolerance: {e(self.criterion)}</div>"]
        if self.nontrivial is not None:
            rows.append(f"<div style='color:#57606a'>nontrivial part: {e(self.nontrivial_what or 'size')}"
                        f" = {e(_fmt(self.nontrivial))} (must be &gt; {e(_fmt(self.nontrivial_min))})</div>")
        if self.spread is not None:
            rows.append(f"<div style='color:#57606a'>margin {e(_fmt(self.margin))} against run-to-run "
                        f"spread {e(_fmt(self.spread))}{' (fragile)' if self.fragile else ''}</div>")
        rows += [f"<div>{e(s)}</div>" for s in self.lines]
        inner = "".join(rows) + "".join(p.html(open=open) for p in self.parts)
        return (f"<details class='rn-check' style='border-left:4px solid {color};padding:2px 8px;"
                f"margin:4px 0;overflow-wrap:anywhere;white-space:normal;font-size:0.9em'"
                f"{' open' if open else ''}>{summary}"
                f"<div class='rn-check-body' style='padding-left:1.2em'>{inner}</div></details>")

    def _repr_html_(self) -> str:
        return self.html(open=False)


def all_of(claim: str, parts: list, lines=()) -> Check:
    """A check that passes when every one of ``parts`` passes; its value is the smallest
    relative margin among them (a number >= 0 when all pass)."""
    if not parts:
        raise ValueError("all_of needs at least one part")
    worst = min(p.rel_margin for p in parts)
    return Check(claim, "smallest relative margin of the parts", worst, 0.0,
                 "each part states its own tolerance", op=">=", lines=list(lines), parts=list(parts))


__all__.append("all_of")


# ==========================================================================================
# Claims
# ==========================================================================================

class LedgerError(AssertionError):
    """Raised by :func:`require_all` when a claim fails or a falsifier is not rejected."""


@dataclass
class Claim:
    id: str
    source: str
    statement: str
    verdict: str
    falsifier: str
    check: callable
    kind: str = "claim"
    printed: str = ""
    where: list = field(default_factory=list)
    falsifier_kind: str = ""


LEDGER: dict[str, Claim] = {}


def claim(id: str, *, source: str, statement: str, verdict: str, falsifier: str,
          kind: str = "claim", printed: str = "", where=(), falsifier_kind: str = ""):
    """Decorator: declare the claim ``id`` decided by ``fn(falsify=False) -> Check``.

    ``statement`` is what the book asserts (MyST/TeX allowed, ``$...$`` for math);
    ``verdict`` one of :data:`VERDICTS` and applies to ``source``, a precise reference (an
    equation, a lemma, a constant, a figure); ``printed`` is the printed form when the verdict
    is "fails as printed"; ``falsifier`` says in words what false statement ``fn(True)``
    checks (or, for ``kind="regression"``, which input corruption). ``falsifier_kind`` is one
    of :data:`FALSIFIER_KINDS` ("plausible false statement", "implied by the check", "regression
    test"); the legacy ``"reversed ordering"`` is read as "implied by the check" and ``""`` as
    not declared. The ledger infers the kind of an undeclared falsifier where it can (see
    :func:`falsifier_kind_of`) and shows a conflict where a declared "plausible false statement"
    is one that any passing check rejects (see :func:`implied`).
    """
    if verdict not in VERDICTS:
        raise ValueError(f"verdict must be one of {VERDICTS}, got {verdict!r}")
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if verdict == "fails as printed" and not printed:
        raise ValueError(f"claim {id!r}: a 'fails as printed' verdict needs the printed form")
    if not falsifier:
        raise ValueError(f"claim {id!r} needs a falsifier")
    if falsifier_kind not in FALSIFIER_KINDS and falsifier_kind not in LEGACY_FALSIFIER_KINDS:
        raise ValueError(f"falsifier_kind must be one of {FALSIFIER_KINDS}, got {falsifier_kind!r}")
    falsifier_kind = LEGACY_FALSIFIER_KINDS.get(falsifier_kind, falsifier_kind)

    def deco(fn):
        if id in LEDGER and LEDGER[id].check.__qualname__ != fn.__qualname__:
            raise ValueError(f"claim id {id!r} is declared twice")
        c = Claim(id, source, statement, verdict, falsifier, fn, kind, printed, list(where), falsifier_kind)
        LEDGER[id] = c
        fn.claim = c
        return fn

    return deco


def mirrored(chk: Check | None, fal: Check | None) -> bool:
    """True when the falsifier's comparison is the check's own statistic negated, so that any
    passing check rejects its falsifier automatically and the rejection adds no evidence.

    Detected from the numbers: the same operator, opposite values (``rho(loss, index)`` against
    ``rho(loss, -index)``), and tolerances such that ``value >= t`` implies ``-value < t'`` (or
    ``value <= t`` implies ``-value > t'``). A check with parts is mirrored when at least one
    pair of parts is and no other part of the falsifier fails. Orderings written as
    ``max(a - b)`` against ``max(b - a)`` are not negations of each other in value; their
    authors declare them with ``falsifier_kind="reversed ordering"``.
    """
    if chk is None or fal is None:
        return False
    if chk.parts or fal.parts:
        return _pairwise(chk, fal, mirrored)
    if chk.op != fal.op or not (math.isfinite(chk.value) and math.isfinite(fal.value)):
        return False
    scale = max(abs(chk.value), abs(fal.value), 1e-300)
    if abs(chk.value + fal.value) > 1e-12 * scale or chk.value == 0:
        return False
    return chk.tol + fal.tol >= 0 if chk.op == ">=" else chk.tol + fal.tol <= 0


def _close(a: float, b: float, rel: float = 1e-9) -> bool:
    return a == b or abs(a - b) <= rel * max(abs(a), abs(b))


def complement(chk: Check | None, fal: Check | None) -> bool:
    """True when the falsifier's comparison is the logical complement of the check's on the same
    statistic, so that any check that passes (other than on a tie) rejects it.

    Detected from the numbers, leaf by leaf (a check with parts as in :func:`mirrored`):

    - the same value compared with the opposite operator against a bound at least as strict:
      ``v <= t`` against ``v >= t'`` with ``t' >= t`` (or ``v >= t`` against ``v <= t'``, ``t' <= t``);
    - the same quantity against the same bound from the other side, one side in magnitude:
      ``|g| <= t`` against ``+-g >= t'`` with ``t' >= t`` (``hm-analog-small-init``: "|gap| <=
      spread" against "gap >= spread"), or ``g >= t`` against ``|g| <= t'`` with ``t' <= t``.
    """
    if chk is None or fal is None:
        return False
    if chk.parts or fal.parts:
        return _pairwise(chk, fal, complement)
    if chk.op == fal.op:
        return False
    vc, vf, tc, tf = chk.value, fal.value, chk.tol, fal.tol
    if not all(math.isfinite(x) for x in (vc, vf, tc, tf)):
        return False
    stricter = (tf >= tc or _close(tf, tc)) if chk.op == "<=" else (tf <= tc or _close(tf, tc))
    if not stricter:
        return False
    if _close(vc, vf):
        return True
    if chk.op == "<=":  # |g| <= t against +-g >= t'
        return vc >= 0 and _close(abs(vf), vc)
    return vf >= 0 and _close(vf, abs(vc))  # g >= t against |g| <= t'


def _pairwise(chk: Check, fal: Check, rule) -> bool:
    """A check with parts: at least one pair of parts satisfies ``rule`` and no other part of the
    falsifier is rejected on its own."""
    if len(chk.parts) != len(fal.parts) or not chk.parts:
        return False
    pairs = [rule(a, b) for a, b in zip(chk.parts, fal.parts)]
    return any(pairs) and all(m or not b.rejected_on_value for m, b in zip(pairs, fal.parts))


def implied(chk: Check | None, fal: Check | None) -> bool:
    """True when any passing check rejects the falsifier automatically, as the numbers show: its
    statistic is the check's negated (:func:`mirrored`) or its comparison is the check's
    complement (:func:`complement`); part by part for checks with parts."""
    if chk is None or fal is None:
        return False
    if chk.parts or fal.parts:
        return _pairwise(chk, fal, implied)
    return mirrored(chk, fal) or complement(chk, fal)


def falsifier_kind_of(declared: str, kind: str, falsifier: str, detected_implied: bool) -> str:
    """The falsifier kind the ledger shows: the declared one if given (the legacy "reversed
    ordering" read as "implied by the check"); else "regression test" for ``kind="regression"``;
    else "implied by the check" when the falsifier's words say it is the ordering reversed or the
    numbers show it implied; else "unlabelled"."""
    declared = LEGACY_FALSIFIER_KINDS.get(declared, declared)
    if declared:
        return declared
    if kind == "regression":
        return REGRESSION
    if detected_implied or _says_reversed(falsifier):
        return IMPLIED
    return UNLABELLED


def falsifier_conflict(declared: str, detected_implied: bool) -> str:
    """A sentence when the declared kind disagrees with what the numbers show, else ""."""
    declared = LEGACY_FALSIFIER_KINDS.get(declared, declared)
    if detected_implied and declared and declared != IMPLIED:
        return (f"declared a {declared}, but the numbers show that any passing check rejects it "
                f"(it is implied by the check)")
    return ""


def _says_reversed(text: str) -> bool:
    """The falsifier's own words say it is the ordering reversed."""
    t = " ".join(text.lower().split())
    return "ordering reversed" in t or "reversed ordering" in t


def effective_verdict(verdict: str, fragile: bool) -> str:
    """The verdict as the ledger shows it: a fragile claim carries the note after its verdict."""
    return f"{verdict} ({FRAGILE_NOTE})" if fragile else verdict


def _import_package() -> None:
    """Import every module of the package, so that every claim is declared."""
    import resnet_nb

    for mod in pkgutil.walk_packages(resnet_nb.__path__, "resnet_nb."):
        if mod.name.endswith("__main__"):
            continue
        importlib.import_module(mod.name)


def all_claims() -> dict[str, Claim]:
    _import_package()
    return dict(LEDGER)


def run_all(ids=None, progress: bool = True):
    """Run every check and every falsifier; return a pandas DataFrame, one row per claim."""
    import pandas as pd
    from tqdm.auto import tqdm

    claims = all_claims()
    chosen = list(claims) if ids is None else list(ids)
    unknown = [i for i in chosen if i not in claims]
    if unknown:
        raise ValueError(f"unknown claim ids {unknown}; known: {sorted(claims)}")
    rows = []
    for cid in tqdm(chosen, desc="claims", disable=not progress):
        c = claims[cid]
        t0 = time.perf_counter()
        row = dict(id=c.id, source=c.source, statement=c.statement, verdict=c.verdict, kind=c.kind,
                   printed=c.printed, falsifier=c.falsifier, where="; ".join(c.where),
                   falsifier_kind=c.falsifier_kind)
        # columns: "check" / "falsifier_check" hold the Check objects (None when the function
        # raised), "check_error" / "falsifier_error" the exception; "falsifier" stays the text.
        for tag, err, falsify in (("check", "check_error", False), ("falsifier_check", "falsifier_error", True)):
            try:
                res = c.check(falsify=falsify)
                if not isinstance(res, Check):
                    raise TypeError(f"{cid}: check returned {type(res).__name__}, not Check")
                row[tag] = res
                row[err] = ""
            except Exception as exc:  # a crashing check is a failed check, reported as such
                row[tag] = None
                row[err] = f"{type(exc).__name__}: {exc}"
        chk, fal = row["check"], row["falsifier_check"]
        row["passed"] = bool(chk is not None and chk.passed)
        row["falsifier_rejected"] = bool(fal is not None and fal.rejected_on_value)
        row["fragile"] = bool(chk is not None and chk.fragile)
        # "implied": the numbers show that any passing check rejects the falsifier (its statistic
        # negated, or the complement of the check's comparison); "mirrored": implied, declared
        # so, or said so in the falsifier's own words (the ordering reversed)
        row["falsifier_implied"] = bool(implied(chk, fal))
        row["falsifier_mirrored"] = bool(c.falsifier_kind == IMPLIED or _says_reversed(c.falsifier)
                                         or row["falsifier_implied"])
        row["falsifier_kind_shown"] = falsifier_kind_of(c.falsifier_kind, c.kind, c.falsifier,
                                                        row["falsifier_implied"])
        row["falsifier_conflict"] = falsifier_conflict(c.falsifier_kind, row["falsifier_implied"])
        row["seconds"] = round(time.perf_counter() - t0, 2)
        rows.append(row)
    return pd.DataFrame(rows)


def require_all(df) -> None:
    """Raise :class:`LedgerError` listing every failed claim, every accepted falsifier, every
    falsifier without a kind and every declared kind the numbers contradict."""
    bad = []
    for r in df.itertuples():
        if not r.passed:
            bad.append(f"{r.id}: the check failed {r.check_error or ''}\n{r.check}")
        if not r.falsifier_rejected:
            bad.append(f"{r.id}: the falsifier ({r.falsifier}) was not rejected "
                       f"{r.falsifier_error or ''}\n{r.falsifier_check}")
        if getattr(r, "falsifier_kind_shown", None) == UNLABELLED:
            bad.append(f"{r.id}: the falsifier has no kind; declare falsifier_kind= "
                       f"(one of {FALSIFIER_KINDS})")
        if getattr(r, "falsifier_conflict", ""):
            bad.append(f"{r.id}: falsifier kind {r.falsifier_conflict}")
    if bad:
        raise LedgerError("\n\n".join(bad))


def _result(chk: Check | None, err: str, role: str) -> str:
    """One line block: what was compared, the value against the tolerance, the margin, the criterion."""
    e = html.escape
    if chk is None:
        return f"<div><b style='color:#cf222e'>error</b> {e(err)}</div>"
    if chk.parts:  # all_of: show the parts, not their smallest relative margin
        out = ""
        for p in chk.parts:
            word = p.verdict if role == "check" else ("fails" if p.rejected_on_value else "passes")
            out += (f"<div><i>{e(p.claim)}</i> &mdash; {e(word)}</div>"
                    f"<div style='padding-left:1.2em'>{_result(p, '', role)}</div>")
        return out + "".join(f"<div>{e(x)}</div>" for x in chk.lines)
    s = (f"<div>{e(chk.compared)} = <b>{e(_fmt(chk.value))}</b> "
         f"<span style='white-space:nowrap'>(must be {e(chk.op)} {e(_fmt(chk.tol))})</span>")
    if role == "check":
        s += f", margin {e(_fmt(chk.margin))}"
    s += "</div>"
    if role == "check":
        s += f"<div style='color:#57606a'>tolerance: {e(chk.criterion)}</div>"
        if chk.nontrivial is not None:
            s += (f"<div style='color:#57606a'>nontrivial part: {e(chk.nontrivial_what or 'size')} = "
                  f"{e(_fmt(chk.nontrivial))} (must be &gt; {e(_fmt(chk.nontrivial_min))})</div>")
        if chk.spread is not None:
            s += (f"<div style='color:#57606a'>run-to-run spread {e(_fmt(chk.spread))}"
                  + (" &mdash; <b style='color:#9a6700'>fragile</b>: the margin is smaller"
                     if chk.fragile else "") + "</div>")
    return s


def _falsifier_note(r) -> str:
    """The falsifier's kind, in words, after its text; a conflict between the declared kind and
    the numbers in red."""
    e = html.escape
    detected = bool(getattr(r, "falsifier_implied", False))
    shown = getattr(r, "falsifier_kind_shown", None)
    if not isinstance(shown, str):  # a table from an older run: infer what can be inferred
        shown = falsifier_kind_of(getattr(r, "falsifier_kind", "") or "", getattr(r, "kind", "claim"),
                                  getattr(r, "falsifier", ""), detected)
    if shown == IMPLIED:
        words = ("any passing check rejects it, as the numbers show, so the rejection adds no evidence"
                 if detected else "declared so by the claim: a passing check rejects it, so its rejection "
                 "shows only that the comparison can fail")
    else:
        words = {REGRESSION: "its negative is a corrupted input or a value constructed to fail",
                 UNLABELLED: "the claim does not say what its falsifier is"}.get(shown, "")
    color = {PLAUSIBLE: "#57606a", UNLABELLED: "#cf222e"}.get(shown, "#9a6700")
    note = (f" <span class='falsifier-kind' style='color:{color}'>(<b>{e(shown)}</b>"
            + (f": {e(words)}" if words else "") + ")</span>")
    conflict = getattr(r, "falsifier_conflict", "")
    if isinstance(conflict, str) and conflict:
        note += f" <b class='falsifier-conflict' style='color:#cf222e'>conflict: {e(conflict)}</b>"
    return note


def falsifier_kind_counts(df):
    """How many falsifiers the ledger shows of each kind (plausible false statement, regression
    test, implied by the check, unlabelled), and how many declared kinds conflict with the numbers."""
    import pandas as pd

    order = [PLAUSIBLE, REGRESSION, IMPLIED, UNLABELLED]
    if "falsifier_kind_shown" in df:
        shown = df["falsifier_kind_shown"]
    else:
        shown = pd.Series([falsifier_kind_of(r.falsifier_kind, r.kind, r.falsifier,
                                             bool(getattr(r, "falsifier_implied", False)))
                           for r in df.itertuples()], index=df.index)
    conflict = (df["falsifier_conflict"].astype(bool) if "falsifier_conflict" in df
                else pd.Series(False, index=df.index))
    rows = [{"falsifier kind": k, "claims": int((shown == k).sum()),
             "declared kind in conflict with the numbers": int(conflict[shown == k].sum())} for k in order]
    return pd.DataFrame(rows)


def ledger_html(df) -> str:
    """The ledger as one block per claim, stacked so that it fits any column; ``$...$`` math in
    statements and falsifiers is typeset by MathJax (the block is marked ``mathjax_process``)."""
    e = html.escape
    blocks = []
    for r in df.itertuples():
        ok = r.passed and r.falsifier_rejected
        color = "#1a7f37" if ok else "#cf222e"
        kind = ("" if r.kind == "claim" else
                " &middot; <b>regression test</b> of a measured value (its negative corrupts an input)")
        is_fragile = bool(getattr(r, "fragile", False))
        verdict = (f"<i>{e(r.verdict)}</i> <b style='color:#9a6700'>({e(FRAGILE_NOTE)})</b>" if is_fragile
                   else f"<i>{e(r.verdict)}</i>")
        fal_note = _falsifier_note(r)
        secs = f" &middot; {r.seconds:.1f} s" if hasattr(r, "seconds") else ""
        printed = (f"<div><span style='color:#57606a'>printed:</span> {e(r.printed)}</div>" if r.printed else "")
        where = ", ".join(f"<code>{e(w)}</code>" for w in r.where.split("; ") if w)
        chk_word = "holds" if r.passed else ("VACUOUS" if (r.check is not None and r.check.vacuous) else "FAILS")
        chk_color = "#1a7f37" if r.passed else "#cf222e"
        fal_word = "rejected" if r.falsifier_rejected else "NOT rejected"
        fal_color = "#1a7f37" if r.falsifier_rejected else "#cf222e"
        blocks.append(
            f"<div class='ledger-claim' id='claim-{e(r.id)}' style='border-left:4px solid {color};"
            f"padding:4px 10px;margin:10px 0;overflow-wrap:anywhere;scroll-margin-top:70px'>"
            f"<div><b>{e(r.source)}</b> &mdash; {verdict}{kind}"
            f"<span style='color:#57606a;font-size:0.9em'> &middot; <code>{e(r.id)}</code>{secs}</span></div>"
            f"<div style='margin:2px 0'>{e(r.statement)}</div>{printed}"
            f"<div style='margin-top:3px'><b style='color:{chk_color}'>check {chk_word}</b></div>"
            f"<div style='padding-left:1.2em'>{_result(r.check, r.check_error, 'check')}</div>"
            f"<div style='margin-top:3px'><b style='color:{fal_color}'>falsifier {fal_word}</b>: "
            f"{e(r.falsifier)}{fal_note}</div>"
            f"<div style='padding-left:1.2em'>{_result(r.falsifier_check, r.falsifier_error, 'falsifier')}</div>"
            + (f"<div style='color:#57606a;font-size:0.9em'>checked in {where}</div>" if where else "")
            + "</div>")
    return ("<div class='mathjax_process claims-ledger' style='font-size:0.88em;max-width:100%'>"
            + "".join(blocks) + "</div>")


# ==========================================================================================
# Summaries for the ledger page: verdicts, falsifier kinds, tolerances, quoted numbers
# ==========================================================================================

def verdict_summary(df, total: bool = True):
    """How many claims carry each verdict, how many of them passed and had their falsifier
    rejected, and of what kind their falsifiers are (one column per kind of
    :func:`falsifier_kind_counts`); a last row "all claims" when ``total``.

    Fragile claims (margin below the run-to-run spread) are counted on a row of their own,
    "<verdict> (fragile)", below the row of the same verdict, which then counts the others.
    """
    import pandas as pd

    fragile = df["fragile"].astype(bool) if "fragile" in df else pd.Series(False, index=df.index)
    if "falsifier_kind_shown" in df:
        shown = df["falsifier_kind_shown"]
    else:
        shown = pd.Series([falsifier_kind_of(getattr(r, "falsifier_kind", "") or "", r.kind,
                                             getattr(r, "falsifier", ""), bool(getattr(r, "falsifier_mirrored", False)))
                           for r in df.itertuples()], index=df.index)

    def row(name, sub):
        out = {"verdict": name, "claims": len(sub), "check passed": int(sub.passed.sum()),
               "falsifier rejected": int(sub.falsifier_rejected.sum())}
        for k in (PLAUSIBLE, REGRESSION, IMPLIED, UNLABELLED):
            out[k] = int((shown[sub.index] == k).sum())
        return out

    rows = []
    for v in VERDICTS:
        for frag in (False, True):
            sub = df[(df.verdict == v) & (fragile == frag)]
            if len(sub):
                rows.append(row(f"{v} (fragile)" if frag else v, sub))
    if total and rows:
        rows.append(row("all claims", df))
    return pd.DataFrame(rows)


def verdict_summary_html(summary) -> str:
    """The table of :func:`verdict_summary` in a fixed layout that fits the page column: the
    falsifier kinds under one heading, headings that break between words only."""
    if not len(summary):
        return "<p><i>No claim has been checked.</i></p>"
    e = html.escape
    kinds = [PLAUSIBLE, REGRESSION, IMPLIED, UNLABELLED]
    counts = ["claims", "check passed", "falsifier rejected"]
    body = ""
    for r in summary.to_dict("records"):
        last = r["verdict"] == "all claims"
        cells = "".join(f"<td>{int(r[c])}</td>" for c in counts + kinds)
        style = " style='border-top:1px solid #57606a;font-weight:600'" if last else ""
        body += f"<tr{style}><td>{e(r['verdict'])}</td>{cells}</tr>"
    head = ("<thead><tr><th rowspan='2'>verdict</th>" + "".join(f"<th rowspan='2'>{e(c)}</th>" for c in counts)
            + f"<th colspan='{len(kinds)}' style='text-align:center'>falsifiers by kind</th></tr><tr>"
            + "".join(f"<th>{e(k)}</th>" for k in kinds) + "</tr></thead>")
    cols = "<col style='width:22%'>" + "<col style='width:8%'>" * 3 + "<col style='width:13.5%'>" * 4
    return ("<table class='ledger-summary' style='table-layout:fixed;width:100%;font-size:0.85em'>"
            f"<colgroup>{cols}</colgroup>{head}<tbody>{body}</tbody></table>")


def tolerance_rules(df):
    """How each experimental comparison (a check, or part of one, that measures a run-to-run
    spread) sets its tolerance: one row per such comparison.

    ``rule`` is "strict ordering (tolerance 0)" when the tolerance is zero, so the spread serves
    only to mark the claim fragile, and "tolerance from its criterion" otherwise (a multiple of
    the spread, or a fraction of a reference quantity; ``criterion`` says which).
    """
    import pandas as pd

    rows = []
    for r in df.itertuples():
        if r.check is None:
            continue
        for leaf in r.check.leaves():
            if leaf.spread is None:
                continue
            rows.append({"claim": r.id, "comparison": leaf.claim, "tolerance": leaf.tol,
                         "spread": leaf.spread, "margin": leaf.margin, "fragile": leaf.fragile,
                         "rule": "strict ordering (tolerance 0)" if leaf.tol == 0
                         else "tolerance from its criterion", "criterion": leaf.criterion})
    return pd.DataFrame(rows, columns=["claim", "comparison", "tolerance", "spread", "margin", "fragile",
                                       "rule", "criterion"])


def tolerance_rules_html(rules) -> str:
    """The table of :func:`tolerance_rules` in a fixed layout that wraps in the page column."""
    if not len(rules):
        return "<p><i>No experimental comparison measures a run-to-run spread.</i></p>"
    e = html.escape
    body = "".join(
        f"<tr><td><code>{e(r.claim)}</code><br>{e(r.comparison)}</td>"
        f"<td>{e(_fmt(r.tolerance))}</td><td>{e(_fmt(r.margin))}</td><td>{e(_fmt(r.spread))}"
        + (" <b style='color:#9a6700'>fragile</b>" if r.fragile else "") + "</td>"
        f"<td>{e(r.criterion)}</td></tr>" for r in rules.itertuples())
    return ("<table class='tolerance-table' style='table-layout:fixed;width:100%;font-size:0.82em;"
            "overflow-wrap:anywhere'><colgroup><col style='width:34%'><col style='width:10%'>"
            "<col style='width:10%'><col style='width:12%'><col style='width:34%'></colgroup><thead><tr>"
            "<th>claim and comparison</th><th>tolerance</th><th>margin</th><th>run-to-run spread</th>"
            "<th>criterion</th></tr></thead><tbody>" + body + "</tbody></table>")


def load_quotes(folder=None):
    """Every number quoted from the papers: the entries of ``book/quotes/<chapter>.yml``.

    Returns a DataFrame with columns chapter, value, source, context. Each file holds a list
    of mappings with the keys ``value``, ``source`` and ``context``; a missing key, an empty
    source or a value that is not a string raises ``ValueError`` (the number as printed must be
    kept exactly, so ``0.10`` must not become ``0.1``).
    """
    import pandas as pd
    import yaml

    from .paths import QUOTES

    folder = QUOTES if folder is None else folder
    rows = []
    for f in sorted(Path(folder).glob("*.yml")):
        entries = yaml.safe_load(f.read_text()) or []
        if not isinstance(entries, list):
            raise ValueError(f"{f.name}: expected a list of quotes, got {type(entries).__name__}")
        for i, q in enumerate(entries):
            if not isinstance(q, dict) or set(q) - {"value", "source", "context"}:
                raise ValueError(f"{f.name}, entry {i + 1}: keys must be value, source, context; got {q!r}")
            missing = [k for k in ("value", "source", "context") if not str(q.get(k) or "").strip()]
            if missing:
                raise ValueError(f"{f.name}, entry {i + 1}: missing {', '.join(missing)}")
            if not isinstance(q["value"], str):
                raise ValueError(f"{f.name}, entry {i + 1}: value must be a quoted string, got {q['value']!r}")
            rows.append(dict(chapter=f.stem, value=q["value"], source=q["source"], context=q["context"]))
    return pd.DataFrame(rows, columns=["chapter", "value", "source", "context"])


def quotes_html(df) -> str:
    """The quoted numbers as a table that fits the column (no index): chapter, number, source, context."""
    if not len(df):
        return "<p><i>No number is quoted from the papers yet.</i></p>"
    e = html.escape
    rows = "".join(f"<tr><td>{e(r.chapter)}</td><td><b>{e(r.value)}</b></td><td>{e(r.source)}</td>"
                   f"<td>{e(r.context)}</td></tr>" for r in df.itertuples())
    return ("<table class='quotes-table' style='table-layout:fixed;width:100%;font-size:0.85em;"
            "overflow-wrap:anywhere'><colgroup><col style='width:20%'><col style='width:11%'>"
            "<col style='width:27%'><col style='width:42%'></colgroup><thead><tr><th>chapter</th>"
            "<th>number</th><th>source</th><th>context</th></tr></thead><tbody>" + rows + "</tbody></table>")
