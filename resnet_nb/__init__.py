"""resnet_nb: the code behind the book *Why residual networks train*.

Notation (shared by the book, the code and Li et al. 2016 / Hardt & Ma 2016):

* ``d``: width; inputs and outputs live in R^d (identity shortcuts need d_x = d_y = d).
* ``m``: number of samples; ``X`` has shape (d, m), ``Y`` has shape (d, m): samples are columns.
* ``n``: number of weight matrices inside one shortcut (an "n-shortcut network").
* ``R``: number of residual units; ``L = n R`` is the depth (number of weight matrices).
* ``W``: weights, a tensor of shape (R, n, d, d); ``W[r, l]`` is the paper's ``W_{r+1, l+1}``.
* ``P = L d^2``: number of parameters.
* ``Sxx = X X^T / m``, ``Syx = Y X^T / m``, ``tr Syy`` with ``Syy = Y Y^T / m``: sufficient
  statistics (Eqs. 8-9).
* the loss ``||Y - f(X)||_F^2 / (2m)`` (Eq. 6), written with a script L in the book (plain ``L``
  is the depth).

The letters that Hardt & Ma use differently (R for the target map, n for the number of points,
...) are listed in the book's notation chapter.

The package has the shape of the book, in four layers; imports point only downward
(``.importlinter``, checked by ``make lint``):

* :mod:`resnet_nb.core`: the mathematics both papers share. ``data`` (whitened MNIST, the linear
  model; book/notation), ``networks`` (Definitions 2-3, 5), ``init``, ``losses`` (Eqs. 6,
  8-9, 15-16), ``hessians`` (Theorem 1's closed forms, the Kronecker form), ``relu_hessian``,
  ``train`` (Eq. 7), ``conv`` (the convolutional network), ``checks``, ``paths`` and ``claims``
  (the check-and-claim type).
* :mod:`resnet_nb.shared`: the set-up the papers' code shares (``common``: the five
  architectures of Li et al. section 5, cached MNIST, committed tables; ``store``: the record
  store and its provenance).
* the papers and the experiments, independent of one another: :mod:`resnet_nb.li` (``theorem1`` for book/theorem1,
  ``dynamics`` for book/theorem1_dynamics, ``limitations`` for book/li_limitations),
  :mod:`resnet_nb.hardt_ma` (``linear`` for book/hardt_ma_linear, ``relu`` for
  book/hardt_ma_expressivity, ``interface``), :mod:`resnet_nb.experiments` (``fig2`` ... ``fig10``
  for the exp_* chapters, ``hm_analog``, and the ``engine`` that runs, stores and resumes them).
* :mod:`resnet_nb.book`: what the chapters show: ``ledger`` (every claim run, its HTML),
  ``show`` (numbers in prose), ``facts`` (each chapter's prose numbers), ``tables`` (its
  tables' columns and formats), ``palette``, ``plotting``, the figures (``li_figures``,
  ``hardt_ma_figures``, ``experiment_figures``, ``tour_figures``), widgets (``views``) and
  ``explorers``.

README.md, "What is where", maps each chapter to its modules and tests.
"""

from resnet_nb import book, core  # book registers how a Check looks in a notebook
from resnet_nb.core.data import Dataset, SufficientStats, synthetic_linear, whitened_mnist
from resnet_nb.core.hessians import (
    cond_max_min,
    cond_percentile,
    hessian,
    hessian_at_zero,
    hessian_linear,
    index,
    spectrum,
    theorem1_blocks,
)
from resnet_nb.core.init import initialise
from resnet_nb.core.losses import loss, loss_samples, loss_stats, optimum
from resnet_nb.core.networks import ShortcutNetwork, activation, end_to_end, flatten, plain_network, unflatten
from resnet_nb.core.train import gradient_descent

__version__ = "0.1.0"
