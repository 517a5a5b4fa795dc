"""Graders' rubrics of the exercises without an automatic check, and why they have none
(book/hardt_ma_expressivity.ipynb, book/exp_initial_point.ipynb,
book/exp_fig2_analog.ipynb); the checked exercises carry their rubric in their spec.
"""

from __future__ import annotations

__all__ = [
    "RUBRICS",
    "UNCHECKED",
    "rubric",
]

#: label -> why no check computes the answer
UNCHECKED = {
    "hm-ex-largest": "a proof with no number to compute (every instance of the statement is true, so a student's "
    "example cannot be wrong in a checkable way); graded by the rubric",
    "ex-fig5-growth": "a reading of the committed table in words (which quantity moves with depth, why the Xavier "
    "points stop being measurements); graded by the rubric",
    "ex-fig2-no-bn": "a training run of a minute whose verdict is an observation with two cautions; graded by the "
    "rubric",
}

#: label -> the steps a grader looks for, for the exercises without a check
RUBRICS = {
    "hm-ex-largest": (
        "Cauchy-Schwarz: <z, h> <= ||z|| ||h|| <= ||z||^2 for the point z of largest norm",
        "equality in both steps forces h = z, excluded by distinctness, so the margin is positive",
        "a surrogate q with ||q|| = s <= ||z|| / 2 gives ||z||^2 - <z, q> >= ||z||^2 / 2 > 0",
    ),
    "ex-fig5-growth": (
        "orthogonal and 1-shortcut: the 10th percentile stays put, |lambda|max grows in proportion to depth",
        "the slopes of lg cond against lg depth (from depth 8) are close to 1: cond grows like L",
        "Xavier: the 10th percentile collapses; from depth 24-32 the values reach the resolution limit",
    ),
    "ex-fig2-no-bn": (
        "runs the analog without batch norm from the zero-residual start at step 2e-2",
        "reports whether the final norms still fall with depth",
        "explains that without batch norm a block is near the identity exactly when its kernels are small",
        "the two cautions: zero-started kernels (bookkeeping) and unequal final losses",
    ),
}


def rubric(label: str) -> tuple[str, ...]:
    """The steps a grader looks for in exercise ``label`` (checked or not)."""
    from resnet_nb.book.exercises.feedback import specs

    found = specs()
    if label in found:
        return found[label].rubric
    if label in RUBRICS:
        return RUBRICS[label]
    raise ValueError(f"label {label!r} names no exercise with a rubric")
