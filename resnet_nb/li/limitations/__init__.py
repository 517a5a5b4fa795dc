"""Limitations of Li et al. (chapter: book/li_limitations.ipynb): four of their remarks checked on the
book's networks.

The chapter calls these functions (its key figure is drawn by
:func:`resnet_nb.book.li_figures.limitations_key_figure`); each section's claim is
declared here, beside the function that checks it (see :mod:`resnet_nb.book.ledger`).

* (a) :func:`fixup_start`, :func:`fixup_point`: the zero-last-layer start of Fixup and zero-gamma
  (a unit's last matrix zero, the others random) is not the flat all-zero point of Theorem 1.
* (b) :func:`unit_gain`, :func:`depth_profile`: Section 4.1, the output second moment under
  He / Xavier initialisation grows geometrically with the number of units.
* (c) :func:`product_log_spread`: Section 2, products of factors ``1 + eps_i``.
* (d) :func:`critical_points`: Section 5.2, loss and index at the exact critical points of a
  linear 2-shortcut network.
"""

from resnet_nb.li.limitations.critical_points import (
    check_index_vs_loss,
    critical_points,
    discordant_pairs,
    index_ordered_by_rank,
    spearman_test,
    whitened_synthetic,
    widest_discordant_pair,
    zero_eigen_counts,
)
from resnet_nb.li.limitations.fixup import check_fixup_not_flat, fixup_point, fixup_start, mixed_block_rank
from resnet_nb.li.limitations.products import (
    PRODUCT_A,
    PRODUCT_C,
    PRODUCT_DEPTHS,
    PRODUCT_DRAWS,
    SCALINGS,
    check_product_band,
    deviation,
    gain_table,
    predicted_log_std,
    product_log_spread,
    product_table,
)
from resnet_nb.li.limitations.variance import (
    GAIN_CASES,
    GAINS,
    check_variance_growth,
    depth_profile,
    pre_relu_keep,
    predicted_gain,
    unhalved_gain,
    unit_gain,
)

__all__ = [
    "fixup_start",
    "fixup_point",
    "mixed_block_rank",
    "check_fixup_not_flat",
    "predicted_gain",
    "pre_relu_keep",
    "unhalved_gain",
    "GAIN_CASES",
    "unit_gain",
    "depth_profile",
    "check_variance_growth",
    "GAINS",
    "product_log_spread",
    "predicted_log_std",
    "deviation",
    "product_table",
    "gain_table",
    "check_product_band",
    "SCALINGS",
    "PRODUCT_DEPTHS",
    "PRODUCT_C",
    "PRODUCT_A",
    "PRODUCT_DRAWS",
    "whitened_synthetic",
    "critical_points",
    "zero_eigen_counts",
    "spearman_test",
    "discordant_pairs",
    "widest_discordant_pair",
    "index_ordered_by_rank",
    "check_index_vs_loss",
]
