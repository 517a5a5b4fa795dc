"""Exercises that answer back (every chapter with exercises: book/*.ipynb).

``check(label, *answer)`` under an exercise's answer cell says whether the answer is right or
names the mistake; ``specs()`` lists the checked exercises with their answer cells, hints and
graders' rubrics; :data:`UNCHECKED` says why the others have no check.
"""

from resnet_nb.book.exercises.feedback import GENERIC_HINTS, Feedback, check, grade_check, hint, spec, specs
from resnet_nb.book.exercises.rubrics import RUBRICS, UNCHECKED, rubric

__all__ = [
    "GENERIC_HINTS",
    "RUBRICS",
    "UNCHECKED",
    "Feedback",
    "check",
    "grade_check",
    "hint",
    "rubric",
    "spec",
    "specs",
]
