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

# each module's __all__ builds the package's (one place per public name)
import resnet_nb.li.limitations.critical_points as _critical_points
import resnet_nb.li.limitations.fixup as _fixup
import resnet_nb.li.limitations.products as _products
import resnet_nb.li.limitations.variance as _variance
from resnet_nb.li.limitations.critical_points import *  # noqa: F403
from resnet_nb.li.limitations.fixup import *  # noqa: F403
from resnet_nb.li.limitations.products import *  # noqa: F403
from resnet_nb.li.limitations.variance import *  # noqa: F403

__all__ = [*_critical_points.__all__, *_fixup.__all__, *_products.__all__, *_variance.__all__]
