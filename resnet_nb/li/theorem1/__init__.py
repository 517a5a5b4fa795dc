"""Theorem 1 of Li et al. at the zero initial point (chapter: book/theorem1.ipynb), checked step by step.

Every public ``*_check`` function computes the two sides of one statement independently and
returns a :class:`resnet_nb.core.claims.Check`: the largest discrepancy, a tolerance with its
stated criterion, and the size of the part that could differ (so that zeros compared with zeros
are reported as vacuous). Each module declares its claims beside its checks with
:func:`resnet_nb.core.claims.claim`, each with a falsifier that the same check must reject.

Statements and where they are checked
-------------------------------------
* Definition 5 (parameter order), mixed partials, the data matrices of Eq. 19:
  :mod:`.definition5`.
* Lemma 1 (a nonzero mixed partial at 0 needs one whole unit) and Lemma 2 (only "same unit or
  not" matters for second derivatives): :mod:`.lemmas`.
* Definition 4 / Part 1 ((n-1)-th order stationarity, zero Hessian for n >= 3): :mod:`.part1`.
* Part 2 (n = 2: Eqs. 11, 12, 21, strict saddle, depth invariance) and Part 3 (n = 1: block
  Toeplitz Eq. 13 with Eqs. 23-28, and the book's Proposition on its growth with depth):
  :mod:`.hessian_at_zero`.
* ReLU at 0 and the ReLU networks of the experiments at their small start: :mod:`.relu`.

The chapter's figures and widgets are drawn by :mod:`resnet_nb.book.li_figures`; Section 4.2
(Eq. 7, Figure 4, Eqs. 15-16) lives in :mod:`resnet_nb.li.dynamics`.

This package gathers the chapter's public names, so the chapter reads ``t1.part2_check``.
The ledger lists the claims in the order of :data:`resnet_nb.book.ledger.CLAIM_MODULES` (and, within
a module, in the order of declaration), whatever order these modules are imported in.
"""

from __future__ import annotations

# each module's __all__ builds the package's (one place per public name)
import resnet_nb.li.theorem1.definition5 as _definition5
import resnet_nb.li.theorem1.hessian_at_zero as _hessian_at_zero
import resnet_nb.li.theorem1.lemmas as _lemmas
import resnet_nb.li.theorem1.part1 as _part1
import resnet_nb.li.theorem1.relu as _relu
from resnet_nb.li.theorem1.definition5 import *  # noqa: F403
from resnet_nb.li.theorem1.hessian_at_zero import *  # noqa: F403
from resnet_nb.li.theorem1.lemmas import *  # noqa: F403
from resnet_nb.li.theorem1.part1 import *  # noqa: F403
from resnet_nb.li.theorem1.relu import *  # noqa: F403

__all__ = [*_definition5.__all__, *_hessian_at_zero.__all__, *_lemmas.__all__, *_part1.__all__, *_relu.__all__]
