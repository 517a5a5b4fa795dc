"""Numbers as every chapter's prose shows them (book/*.ipynb).

A number a reader sees in a chapter's text is inserted from the cell that computes it with
MyST's ``{eval}`` role, which works both in the built book (myst-nb, inline execution) and in a
live notebook (jupyterlab-myst). The role inserts a variable's plain-text representation, so
the chapters store each such number as a :class:`Num`: a float that prints at the precision
the reader needs::

    worst = show.num(check.value, 2)        # prose: {eval}`worst`  ->  2.7e-12
    share = show.pct(0.254)                 # {eval}`share`         ->  25%

A section's prose usually quotes several numbers of one result; a package function then returns
them together as :class:`Facts`, and the chapter binds it once::

    f = facts.fig10_he(paper10, paper_he)   # prose: {eval}`f.loss` at rate {eval}`f.lr`
"""

from __future__ import annotations

import math

__all__ = ["Num", "Facts", "num", "sci", "pct", "fixed", "count", "text", "verdict", "x_of_n", "rise_factor", "table"]

_SUP = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


class Num(float):
    """A float whose ``repr`` is its formatted text (what ``{eval}`` inserts)."""

    def __new__(cls, value, text: str):
        obj = super().__new__(cls, value)
        obj._text = text
        return obj

    def __repr__(self) -> str:
        return self._text

    __str__ = __repr__

    def _repr_pretty_(self, p, cycle):  # IPython's plain-text formatter
        p.text(self._text)

    def __format__(self, spec: str) -> str:
        return self._text if not spec else float.__format__(float(self), spec)


class Text(str):
    """A string shown without quotes (a word chosen by a computation: "larger", "holds")."""

    def __repr__(self) -> str:
        return str.__str__(self)

    def _repr_pretty_(self, p, cycle):
        p.text(str.__str__(self))


def _finite(x) -> float:
    x = float(x)
    if math.isnan(x):
        raise ValueError("a number shown in the prose is NaN: the computation behind it failed")
    return x


def num(x, digits: int = 2) -> Num:
    """``digits`` significant digits; scientific notation (``2.7e-12``) below 1e-3 or from 1e6."""
    x = _finite(x)
    if x == 0:
        return Num(x, "0")
    if 1e-3 <= abs(x) < 1e6:
        text = f"{x:.{digits}g}"
        if "e" in text:  # e.g. 1.2e+03 for 1234 at 2 digits: write it out
            text = f"{round(x, -int(math.floor(math.log10(abs(x)))) + digits - 1):,.0f}"
        return Num(x, text)
    return Num(x, f"{x:.{max(digits - 1, 0)}e}".replace("e-0", "e-").replace("e+0", "e+").replace("e+", "e"))


def sci(x, digits: int = 2) -> Num:
    """Scientific notation with a typeset power: ``2.7 × 10⁻¹²``."""
    x = _finite(x)
    if x == 0:
        return Num(x, "0")
    exp = int(math.floor(math.log10(abs(x))))
    mant = x / 10**exp
    if round(abs(mant), digits - 1) >= 10:
        exp, mant = exp + 1, mant / 10
    m = f"{mant:.{max(digits - 1, 0)}f}"
    if m in ("1", "1.0", "-1", "-1.0") and digits <= 1:
        return Num(x, ("-" if x < 0 else "") + "10" + str(exp).translate(_SUP))
    return Num(x, f"{m} \u00d7 10" + str(exp).translate(_SUP))


def pct(x, digits: int = 0) -> Num:
    """A fraction shown as a percentage: ``pct(0.254) -> 25%``."""
    x = _finite(x)
    return Num(x, f"{100 * x:.{digits}f}%")


def fixed(x, decimals: int = 2) -> Num:
    """A fixed number of decimals: ``fixed(1.5195, 3) -> 1.520``."""
    x = _finite(x)
    return Num(x, f"{x:,.{decimals}f}")


def count(x) -> Num:
    """An integer with thousands separators: ``count(14210) -> 14,210``."""
    x = _finite(x)
    if x != round(x):
        raise ValueError(f"count expects an integer, got {x}")
    return Num(x, f"{int(round(x)):,}")


def text(s: str) -> Text:
    """A word or phrase chosen by a computation, inserted without quotes."""
    return Text(s)


def verdict(claim_fn) -> Text:
    """A ledger claim's verdict as the ledger shows it: ``holds``, or ``holds, fragile`` when the
    check's margin is below its run-to-run spread (the claim is run once to read that)."""
    claim = getattr(claim_fn, "claim", None)
    if claim is None:
        raise TypeError(f"verdict expects a ledger claim function, got {claim_fn!r}")
    return Text(claim.verdict + (", fragile" if claim_fn().fragile else ""))


class Facts:
    """The numbers one section's prose quotes, by name: ``{eval}`f.loss```.

    Built by a package function from a result; every value is already formatted (a :class:`Num`,
    a :class:`Text`) or is a plain value a chapter tests (a bool, a list). Reading a name the
    result does not carry raises an ``AttributeError`` that lists the names it does carry.
    """

    def __init__(self, **values):
        if not values:
            raise ValueError("Facts needs at least one named value")
        self.__dict__["_values"] = dict(values)

    def __getattr__(self, name: str):
        values = self.__dict__["_values"]
        if name in values:
            return values[name]
        raise AttributeError(f"these facts carry no {name!r}; they carry {sorted(values)}")

    def __setattr__(self, name, value):
        raise AttributeError("Facts are read-only: compute them again instead")

    def __contains__(self, name: str) -> bool:
        return name in self._values

    def __dir__(self):
        return sorted(self._values)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self._values.items())
        return f"Facts({inner})"


def x_of_n(k, n) -> Text:
    """A count out of a total, in words: ``x_of_n(3, 20) -> 3 of 20`` (integers as they are)."""
    k, n = int(k), int(n)
    if not 0 <= k <= n:
        raise ValueError(f"x_of_n needs 0 <= k <= n, got k = {k}, n = {n}")
    return Text(f"{k} of {n}")


def rise_factor(x) -> str:
    """A factor by which a loss rose: ``.3g``, except that a factor below 1 (the loss never rose)
    reads "below 1" (``.3g`` would round 0.9996 up to 1)."""
    x = _finite(x)
    return "below 1" if x < 1 else f"{x:.3g}"


def table(df, precision: int = 4, sci=(), na_rep: str | None = None):
    """A DataFrame as a chapter shows it: without its index, ``precision`` decimals, the columns in
    ``sci`` in scientific notation (tiny errors and margins), missing entries as ``na_rep``."""
    style = df.style.hide(axis="index").format(precision=precision, na_rep=na_rep)
    if sci:  # only these columns: a formatter dict would reset the others' precision
        style = style.format("{:.1e}", subset=list(sci), na_rep=na_rep)
    return style
