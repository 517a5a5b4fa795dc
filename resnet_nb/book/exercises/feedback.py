"""What a check cell of an exercise says (every chapter with exercises: book/*.ipynb).

A student writes an answer in the marked cell under an exercise and runs the check cell beneath
it, ``exercises.check(label, answer)``. The check computes the right answer itself from the
package (never a stored number), compares, and returns a :class:`Feedback`: correct, or which
common mistake the answer matches (a wrong shape, the opposite sign, a factor of two, a
transposed matrix, or a mistake particular to the exercise) with its hint. The hint never shows
the right answer. When the environment variable ``RESNET_NB_GRADE_LOG`` names a file, every
check also appends its result there as one JSON line (what the grader reads).
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "GENERIC_HINTS",
    "Feedback",
    "check",
    "grade_check",
    "hint",
    "spec",
    "specs",
]

#: the hints every check may give, whatever the exercise
GENERIC_HINTS = {
    "unanswered": "No answer yet: replace every ... in the answer cell above, run it, then run this cell.",
    "error": "Your answer raised an error when the check used it",
    "type": "The answer has the wrong kind: the answer cell says what to give (a number, an array, a function).",
    "shape": "The shape is wrong",
    "not-finite": "The answer contains NaN or infinity.",
    "returned-none": "Your function returns None: replace its ... by the computation and end it with return.",
    "sign": "The size is right but the sign is wrong: check which way the quantity points (or a minus sign).",
    "factor-2": "Off by a factor of two: look for a missing or extra 1/2 (or a 2 from a derivative).",
    "transposed": "This is the transpose of the right matrix: check which index is the row.",
    "wrong": "Not correct yet. Check your derivation against the exercise's hint.",
}


@dataclass(frozen=True)
class Feedback:
    """The verdict of one check: ``passed``, and on failure the recognised ``mistake`` and its hint."""

    label: str
    passed: bool
    mistake: str | None = None
    message: str = ""

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        if self.passed:
            return f"Correct ({self.label}). {self.message}".strip()
        return f"Not yet ({self.label}): {self.message}"

    __repr__ = __str__

    def _repr_html_(self) -> str:
        colour, mark = ("#1a7f37", "&#10003;") if self.passed else ("#b35900", "&#10007;")
        return (
            f'<div class="exercise-feedback" data-label="{html.escape(self.label)}" '
            f'data-passed="{str(self.passed).lower()}" style="border-left:4px solid {colour};'
            f'padding:0.3em 0.7em"><strong style="color:{colour}">{mark} '
            f"{'Correct' if self.passed else 'Not yet'}</strong> {html.escape(self.message)}</div>"
        )


class Mismatch(Exception):
    """Raised by a comparison: the answer matched the mistake ``key`` (``detail`` adds to its hint)."""

    def __init__(self, key: str, detail: str = ""):
        super().__init__(key)
        self.key, self.detail = key, detail


@dataclass(frozen=True)
class Spec:
    """One checked exercise: its answer cell, its check and the hints of its known mistakes."""

    label: str
    template: str
    run: Callable[..., str | None]
    hints: dict[str, str] = field(default_factory=dict)
    rubric: tuple[str, ...] = ()
    args: tuple[str, ...] = ("answer",)


def is_blank(answer) -> bool:
    """True for an answer left as the template's ``...`` (also inside a tuple, list or dict)."""
    if answer is Ellipsis or answer is None:
        return True
    if isinstance(answer, tuple | list | set | frozenset):
        return any(is_blank(a) for a in answer)
    if isinstance(answer, dict):
        return any(is_blank(a) for a in answer.values())
    return False


def as_array(answer) -> np.ndarray:
    """The answer as a float array (a torch tensor, a list, a number); a wrong kind is a mistake."""
    if hasattr(answer, "detach"):
        answer = answer.detach().cpu().numpy()
    if isinstance(answer, bool) or callable(answer) or isinstance(answer, str | dict | set):
        raise Mismatch("type")
    try:
        arr = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        raise Mismatch("type") from None
    if not np.all(np.isfinite(arr)):
        raise Mismatch("not-finite")
    return arr


def close(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> bool:
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=atol))


def compare(
    answer, reference, mistakes: dict[str, object] | None = None, rtol: float = 1e-6, atol: float = 1e-9
) -> None:
    """Raise :class:`Mismatch` unless ``answer`` equals ``reference`` (arrays or numbers).

    ``mistakes`` maps a hint's key to the value a known wrong reasoning gives; they are tried
    first, then the generic ones: sign, factor of two, transpose.
    """
    ref = np.asarray(reference, dtype=float)
    ans = as_array(answer)
    if ans.shape != ref.shape and ans.size == ref.size == 1:
        ans = ans.reshape(ref.shape)
    if ans.shape != ref.shape:
        raise Mismatch("shape", f": expected shape {ref.shape}, got {ans.shape}.")
    if close(ans, ref, rtol, atol):
        return
    for key, wrong in (mistakes or {}).items():
        wrong = np.asarray(wrong, dtype=float)
        if close(ans, wrong, rtol, atol) and not close(wrong, ref, rtol, atol):
            raise Mismatch(key)
    generic = {"sign": -ref, "factor-2": 2 * ref}
    for key, wrong in generic.items():
        if close(ans, wrong, rtol, atol):
            raise Mismatch(key)
    if close(ans, ref / 2, rtol, atol):
        raise Mismatch("factor-2")
    if ref.ndim >= 2 and close(ans, np.swapaxes(ref, -1, -2), rtol, atol):
        raise Mismatch("transposed")
    raise Mismatch("wrong")


def call(fn, *args):
    """Call a student's function; an exception or a wrong kind of result is reported, not raised."""
    if fn is Ellipsis or fn is None:
        raise Mismatch("unanswered")
    if not callable(fn):
        raise Mismatch("type", " (a function was expected)")
    try:
        out = fn(*args)
    except Exception as exc:  # noqa: BLE001 - a student's code may raise anything
        raise Mismatch("error", f" ({type(exc).__name__}: {exc}).") from None
    if out is None:
        raise Mismatch("returned-none")
    return out


def compare_function(
    fn,
    reference: Callable,
    probes: Sequence[tuple],
    mistakes: dict[str, Callable] | None = None,
    rtol: float = 1e-6,
    atol: float = 1e-9,
) -> None:
    """Compare a student's function with ``reference`` at every probe (arguments tuple).

    A mistake's function must match at every probe to be recognised.
    """
    got = [as_array(call(fn, *p)) for p in probes]
    want = [np.asarray(reference(*p), dtype=float) for p in probes]
    for g, w in zip(got, want):
        if g.shape != w.shape and not (g.size == w.size == 1):
            raise Mismatch("shape", f": for the arguments tried the result should have shape {w.shape}, not {g.shape}.")
    got = [g.reshape(w.shape) for g, w in zip(got, want)]
    flat_got = np.concatenate([g.ravel() for g in got])
    flat_want = np.concatenate([w.ravel() for w in want])
    wrong = {
        k: np.concatenate([np.asarray(m(*p), dtype=float).ravel() for p in probes]) for k, m in (mistakes or {}).items()
    }
    if all(w.ndim >= 2 for w in want) and not close(flat_got, flat_want, rtol, atol):
        flipped = np.concatenate([np.swapaxes(w, -1, -2).ravel() for w in want])
        if close(flat_got, flipped, rtol, atol) and not any(close(flat_got, v, rtol, atol) for v in wrong.values()):
            raise Mismatch("transposed")
    compare(flat_got, flat_want, wrong, rtol=rtol, atol=atol)


_REGISTRY: dict[str, Spec] = {}


def register(spec: Spec) -> Spec:
    if spec.label in _REGISTRY:
        raise ValueError(f"label {spec.label!r} is registered twice")
    _REGISTRY[spec.label] = spec
    return spec


def specs() -> dict[str, Spec]:
    """Every checked exercise, by label (the modules that declare them are imported first)."""
    from resnet_nb.book.exercises import hardt_ma_checks, li_checks  # noqa: F401 - registers

    return dict(_REGISTRY)


def spec(label: str) -> Spec:
    found = specs()
    if label not in found:
        raise ValueError(f"label {label!r} names no checked exercise; checked ones: {sorted(found)}")
    return found[label]


def hint(label: str, key: str) -> str:
    """The hint of mistake ``key`` of exercise ``label`` (its own hint, else the generic one)."""
    return spec(label).hints.get(key) or GENERIC_HINTS[key]


def verdict(label: str, *answer) -> Feedback:
    """The feedback on ``answer`` without logging it (see :func:`check`)."""
    s = spec(label)
    try:
        if not answer or is_blank(answer):
            raise Mismatch("unanswered")
        note = s.run(*answer)
        return Feedback(label, True, None, note or "")
    except Mismatch as m:
        return Feedback(label, False, m.key, hint(label, m.key) + m.detail)


def check(label: str, *answer) -> Feedback:
    """Check the answer to exercise ``label``; see the answer cell for what to pass."""
    fb = verdict(label, *answer)
    log(fb)
    return fb


def grade_check(label: str, answer) -> Feedback:
    """The grader's check cell: ``answer`` is a function returning the arguments of :func:`check`,
    so that an answer whose cell failed, was skipped or was deleted is a verdict, not an error."""
    spec(label)
    try:
        args = answer()
    except NameError as exc:
        fb = Feedback(label, False, "undefined", f"The answer is not defined ({exc}): its cell failed or is missing.")
    except Exception as exc:  # noqa: BLE001 - whatever the student's names hold
        fb = Feedback(label, False, "error", f"{GENERIC_HINTS['error']} ({type(exc).__name__}: {exc}).")
    else:
        fb = verdict(label, *args)
    log(fb, graded=True)
    return fb


def log(fb: Feedback, graded: bool = False) -> None:
    """Append ``fb`` to the file named by ``RESNET_NB_GRADE_LOG`` (if set); ``graded`` marks the
    grader's own check cells, the only ones a grade counts."""
    path = os.environ.get("RESNET_NB_GRADE_LOG")
    if path:
        row = {"label": fb.label, "passed": fb.passed, "mistake": fb.mistake, "message": fb.message, "graded": graded}
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")
