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

This package gathers the chapter's public names, so the chapter reads ``t1.part2_check``; the
modules are imported in the ledger's order of the claims.
"""

from __future__ import annotations

from resnet_nb.li.theorem1.definition5 import (
    covers_unit,
    data_matrices,
    mixed_partial,
    order_n_closed_form,
    param_coords,
    param_index,
    partial_scale,
    shifted_sigmoid,
    subsample,
    unfriendly_data3,
)
from resnet_nb.li.theorem1.hessian_at_zero import (
    GROWTH_VARIANTS,
    PART2_VARIANTS,
    depth_invariance_check,
    depth_table,
    eq21_A,
    eq25_B,
    eq28_A,
    exact_hessian_at_zero,
    growth_bounds,
    growth_check,
    part2_check,
    part3_check,
    same_picture,
    shuffle_matrix,
    unitwise_spectrum,
)
from resnet_nb.li.theorem1.lemmas import covering_chain, lemma1_check, lemma1_tuples, lemma2_check
from resnet_nb.li.theorem1.part1 import (
    TAYLOR_READINGS,
    order_n_directional,
    part1_check,
    part1_directions,
    taylor_remainder_check,
)
from resnet_nb.li.theorem1.relu import (
    RELU_DEPTHS,
    RELU_SEEDS,
    figure5_flat_tolerance,
    kink_threshold,
    one_sided_derivatives,
    relu_depth_check,
    relu_depth_table,
    relu_first_order_check,
    relu_kink_check,
    relu_masked_prediction,
    relu_masked_singular_values,
    relu_shape_check,
    relu_spectrum_spot_check,
    relu_start_check,
)

__all__ = [
    "subsample",
    "param_index",
    "param_coords",
    "covers_unit",
    "mixed_partial",
    "data_matrices",
    "order_n_closed_form",
    "partial_scale",
    "shifted_sigmoid",
    "unfriendly_data3",
    "covering_chain",
    "lemma1_tuples",
    "lemma1_check",
    "lemma2_check",
    "part1_check",
    "part1_directions",
    "order_n_directional",
    "TAYLOR_READINGS",
    "taylor_remainder_check",
    "shuffle_matrix",
    "eq21_A",
    "eq25_B",
    "eq28_A",
    "exact_hessian_at_zero",
    "PART2_VARIANTS",
    "part2_check",
    "part3_check",
    "depth_table",
    "unitwise_spectrum",
    "depth_invariance_check",
    "GROWTH_VARIANTS",
    "growth_bounds",
    "growth_check",
    "same_picture",
    "one_sided_derivatives",
    "kink_threshold",
    "relu_kink_check",
    "relu_first_order_check",
    "relu_masked_singular_values",
    "relu_masked_prediction",
    "relu_depth_table",
    "figure5_flat_tolerance",
    "relu_depth_check",
    "relu_spectrum_spot_check",
    "relu_shape_check",
    "relu_start_check",
    "RELU_DEPTHS",
    "RELU_SEEDS",
]
