"""Checks and claims for every chapter, collected by the ledger (book/claims.ipynb): a comparison that
can fail, and the claim it decides.

A :class:`Check` compares two independently computed quantities (or a statistic against a
threshold) with a tolerance that follows from a stated criterion, and it records the size of the
part that *could* differ, so that a comparison of zeros with zeros is reported as vacuous instead
of passing.

A claim of one of the papers is declared beside the function that checks it, in the module of
its chapter, with the :func:`claim` decorator::

    @claim("li-lemma1", source="Li et al., Lemma 1",
           statement=r"All partial derivatives of order $< n$ vanish at $w = 0$ ...",
           verdict="holds", falsifier=r"the same with $\\sigma_{mid}(0) \\ne 0$",
           where=["book/theorem1.ipynb", "tests/li/test_theorem1.py"])
    def claim_lemma1(falsify: bool = False) -> Check:
        ...

The decorated function takes one argument, ``falsify``: with ``falsify=False`` it checks the
statement the book makes (the paper's, or its corrected form); with ``falsify=True`` it runs
the *same* comparison on the falsifier, a plausible false statement (the printed form where
that is wrong, a wrong formula, a dropped hypothesis), and must return a failing
:class:`Check`. A claim whose only possible negative is a corrupted input is declared with
``kind="regression"``: it is then labelled a regression test of a measured value, not a check
of a claim.

Running every claim, and showing checks and claims as HTML, is the book's job
(:mod:`resnet_nb.book.ledger`); nothing here renders or imports beyond the standard library.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass, field

__all__ = [
    "Check",
    "Part",
    "checks_from",
    "Claim",
    "LEDGER",
    "VERDICTS",
    "KINDS",
    "claim",
    "LedgerError",
    "eps_criterion",
    "FALSIFIER_KINDS",
    "mirrored",
    "complement",
    "implied",
    "falsifier_kind_of",
    "falsifier_conflict",
    "UNLABELLED",
    "LEGACY_FALSIFIER_KINDS",
    "effective_verdict",
    "all_of",
    "fmt",
    "says_reversed",
    "PLAUSIBLE",
    "IMPLIED",
    "REGRESSION",
    "FRAGILE_NOTE",
]

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
FRAGILE_NOTE = "fragile: margin below the run-to-run spread"

EPS64 = 2.0**-52


def eps_criterion(P: int, scale: float, factor: float = 100.0) -> tuple[float, str]:
    """Tolerance for a float64 comparison of quantities of size ``scale`` built from ``P`` terms.

    Returns ``(tol, criterion)`` with ``tol = factor * P * eps * scale``: the rounding error a
    sum of ``P`` products of that size can accumulate, times a safety factor.
    """
    tol = factor * P * EPS64 * max(float(scale), 1e-300)
    return tol, f"{factor:g} P eps |scale| with P = {P}, |scale| = {scale:.2g}"


def fmt(x, digits: int | None = None) -> str:
    """A number as a check prints it, the one formatter of the package's text.

    By default: thousands separators for integers, 4 significant digits between 1e-3 and 1e4,
    3 in scientific notation outside, "n/a" for None or NaN. With ``digits``: that many
    significant digits in Python's ``g`` format (``fmt(0.01234, 2) -> '0.012'``), "0" for zero.
    """
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if digits is not None:
        return f"{float(x):.{digits}g}" if x != 0 else "0"
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

    def require(self) -> Check:
        """Raise :class:`AssertionError` unless the check passed; return it otherwise."""
        if not self.passed:
            raise AssertionError(str(self))
        return self

    def refute(self) -> Check:
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
        s = f"{self.compared} = {fmt(self.value)} (must be {self.op} {fmt(self.tol)})"
        return s

    def __str__(self) -> str:
        w = 88
        out = [f"[{self.verdict}] {self.claim}"]
        body = [self.summary(), f"tolerance: {self.criterion}"]
        if self.nontrivial is not None:
            body.append(
                f"nontrivial part: {self.nontrivial_what or 'size'} = {fmt(self.nontrivial)}"
                f" (must be > {fmt(self.nontrivial_min)})"
            )
        if self.spread is not None:
            body.append(
                f"margin {fmt(self.margin)} against run-to-run spread {fmt(self.spread)}"
                + (" (fragile)" if self.fragile else "")
            )
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
            return (
                f"vacuous: {self.nontrivial_what or 'the part that could differ'} = "
                f"{fmt(self.nontrivial)}, not above {fmt(self.nontrivial_min)}"
            )
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
        words = f"value {fmt(self.value)}, {side} the {bound} {fmt(self.tol)}"
        if self.margin != 0:
            words += f" by {fmt(abs(self.margin))}"
        return words


@dataclass(frozen=True)
class Part:
    """One row of a claim's table: the statement, the value compared, its bound, and why.

    A module declares its claim's parts as a tuple of rows beside the function that computes the
    numbers; :func:`checks_from` turns the rows and that function's values into
    :class:`Check` objects. The words live in the table, so that a check function holds only the
    computation (and stays short), and a test of the numbers is not a test of the words.

    ``claim``, ``compared`` and ``criterion`` are ``str.format`` templates filled from the values
    (``"{method}"``; a literal brace is written twice). ``value``, ``bound``, ``nontrivial`` and
    ``spread`` name entries of the values; ``bound`` and ``nontrivial_min`` may also be numbers.
    ``when`` names a boolean value: the row is left out unless it is true.
    """

    claim: str
    compared: str
    value: str
    bound: str | float
    criterion: str
    op: str = "<="
    nontrivial: str | None = None
    nontrivial_what: str = ""
    nontrivial_min: str | float = 0.0
    spread: str | None = None
    when: str | None = None


def _entry(values: dict, ref, row: Part):
    if not isinstance(ref, str):
        return ref
    if ref not in values:
        raise KeyError(f"the row {row.claim!r} refers to {ref!r}, which the values do not hold: {sorted(values)}")
    return values[ref]


def checks_from(table, values: dict) -> list[Check]:
    """The :class:`Check` of every row of ``table`` (a sequence of :class:`Part`) whose ``when``
    holds, its words filled and its numbers read from ``values``."""
    out = []
    for row in table:
        if row.when is not None and not _entry(values, row.when, row):
            continue
        out.append(
            Check(
                row.claim.format_map(values),
                row.compared.format_map(values),
                _entry(values, row.value, row),
                _entry(values, row.bound, row),
                row.criterion.format_map(values),
                op=row.op,
                nontrivial=None if row.nontrivial is None else _entry(values, row.nontrivial, row),
                nontrivial_what=row.nontrivial_what.format_map(values),
                nontrivial_min=_entry(values, row.nontrivial_min, row),
                spread=None if row.spread is None else _entry(values, row.spread, row),
            )
        )
    return out


def all_of(claim: str, parts: list, lines=()) -> Check:
    """A check that passes when every one of ``parts`` passes; its value is the smallest
    relative margin among them (a number >= 0 when all pass)."""
    if not parts:
        raise ValueError("all_of needs at least one part")
    worst = min(p.rel_margin for p in parts)
    return Check(
        claim,
        "smallest relative margin of the parts",
        worst,
        0.0,
        "each part states its own tolerance",
        op=">=",
        lines=list(lines),
        parts=list(parts),
    )


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


def claim(
    id: str,
    *,
    source: str,
    statement: str,
    verdict: str,
    falsifier: str,
    kind: str = "claim",
    printed: str = "",
    where=(),
    falsifier_kind: str = "",
):
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
    if detected_implied or says_reversed(falsifier):
        return IMPLIED
    return UNLABELLED


def falsifier_conflict(declared: str, detected_implied: bool) -> str:
    """A sentence when the declared kind disagrees with what the numbers show, else ""."""
    declared = LEGACY_FALSIFIER_KINDS.get(declared, declared)
    if detected_implied and declared and declared != IMPLIED:
        return (
            f"declared a {declared}, but the numbers show that any passing check rejects it "
            f"(it is implied by the check)"
        )
    return ""


def says_reversed(text: str) -> bool:
    """The falsifier's own words say it is the ordering reversed."""
    t = " ".join(text.lower().split())
    return "ordering reversed" in t or "reversed ordering" in t


def effective_verdict(verdict: str, fragile: bool) -> str:
    """The verdict as the ledger shows it: a fragile claim carries the note after its verdict."""
    return f"{verdict} ({FRAGILE_NOTE})" if fragile else verdict
