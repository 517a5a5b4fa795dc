"""Exercises that answer back (every chapter with exercises: book/*.ipynb).

``check(label, *answer)`` under an exercise's answer cell says whether the answer is right or
names the mistake; ``specs()`` lists the checked exercises with their answer cells, hints and
graders' rubrics; :data:`UNCHECKED` says why the others have no check.
"""

# each module's __all__ builds the package's (one place per public name)
import resnet_nb.book.exercises.feedback as _feedback
import resnet_nb.book.exercises.rubrics as _rubrics
from resnet_nb.book.exercises.feedback import *  # noqa: F403
from resnet_nb.book.exercises.rubrics import *  # noqa: F403

__all__ = [*_feedback.__all__, *_rubrics.__all__]
