"""How two executions of a chapter may differ in what they print, and nothing more (used by the
root ``conftest.py`` for nbval and by ``scripts/compare_outputs.py``).

Every number a reader sees is compared, digit for digit, with one exception: a number printed
in exponent form below ``1e-12`` (``2.22e-16``, ``4.2e-17``) is a float64 rounding residue,
whose last bits depend on how the BLAS kernels met the data in that process. Two such numbers at
the same place in the two texts agree when their orders of magnitude differ by at most
``DECADES`` (one): ``2.2e-16`` against ``4.4e-16`` or ``8.9e-17`` agree; ``1.2e-66`` against
``3.4e-14`` (a vanishing gradient that stopped vanishing) or ``1.1e-16`` against ``9.0e-13`` (a
route that lost four digits) do not. The text around the numbers must be the same, and a
residue against a number that is not one (or a missing one) is a difference.
"""

from __future__ import annotations

import math
import re

#: the largest |x| counted as a rounding residue
BAND = 1e-12
#: how many orders of magnitude two residues at the same place may differ by
DECADES = 1.0
#: a number in exponent form, with its sign: ``1.2e-66``, ``-4.16E-17``, ``1e-14``
EXPONENT_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)[eE][-+]?\d+(?![\w.])")


def residues(text: str):
    """The residues of ``text`` as ``(start, end, value)``."""
    out = []
    for m in EXPONENT_NUMBER.finditer(text):
        try:
            v = float(m.group())
        except ValueError:
            continue
        if v != 0 and abs(v) < BAND:
            out.append((m.start(), m.end(), v))
    return out


def agree(a: float, b: float) -> bool:
    """Whether two residues are the same rounding residue: same sign, orders of magnitude at most
    ``DECADES`` apart."""
    return (a > 0) == (b > 0) and abs(math.log10(abs(a)) - math.log10(abs(b))) <= DECADES


def reconcile(reference: str, test: str) -> str:
    """``test`` with each residue that agrees with the residue at the same place of
    ``reference`` replaced by the reference's text, so that an exact comparison of the two
    texts then sees every other difference. Texts whose residues do not pair up (other text
    between them, another count) are returned unchanged, and so compare unequal."""
    if not isinstance(reference, str) or not isinstance(test, str):
        return test
    ra, rb = residues(reference), residues(test)
    if not rb or len(ra) != len(rb):
        return test
    out, last = [], 0
    for (a0, a1, va), (b0, b1, vb) in zip(ra, rb):
        out.append(test[last:b0])
        out.append(reference[a0:a1] if agree(va, vb) else test[b0:b1])
        last = b1
    out.append(test[last:])
    return "".join(out)


TEXT_KINDS = ("text/plain", "text/html", "text/markdown", "text/latex")


def reconcile_outputs(reference: list, test: list) -> list:
    """The cell outputs ``test`` (nbformat dicts) with their residues reconciled against the
    outputs of ``reference`` at the same positions (:func:`reconcile`); other fields untouched."""
    import copy

    test = copy.deepcopy(test)
    for ref, out in zip(reference, test):
        if ref.get("output_type") != out.get("output_type"):
            continue
        if "text" in out and "text" in ref:
            out["text"] = reconcile(_joined(ref["text"]), _joined(out["text"]))
        data, rdata = out.get("data"), ref.get("data")
        if isinstance(data, dict) and isinstance(rdata, dict):
            for kind in TEXT_KINDS:
                if kind in data and kind in rdata:
                    data[kind] = reconcile(_joined(rdata[kind]), _joined(data[kind]))
    return test


def _joined(x):
    return "".join(x) if isinstance(x, list) else x
