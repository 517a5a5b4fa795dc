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

Modules mirror the papers: :mod:`data`, :mod:`networks` (Definitions 2-3), :mod:`init`,
:mod:`losses` (Eqs. 6, 15-16), :mod:`hessians` (Theorem 1), :mod:`train` (Eq. 7). The
machinery of the book: :mod:`ledger` (checks and the claims they decide), :mod:`show` (numbers
as the prose shows them), :mod:`paths` (where results and benchmarks live).
"""
from resnet_nb.core import data, hessians, init, losses, networks, paths, train
from resnet_nb.book import ledger, show
from resnet_nb.core.data import Dataset, SufficientStats, synthetic_linear, whitened_mnist
from resnet_nb.core.hessians import (cond_max_min, cond_percentile, hessian, hessian_at_zero, hessian_linear,
                       index, spectrum, theorem1_blocks)
from resnet_nb.core.init import initialise
from resnet_nb.core.losses import loss, loss_samples, loss_stats, optimum
from resnet_nb.core.networks import ShortcutNetwork, activation, end_to_end, flatten, plain_network, unflatten
from resnet_nb.core.train import gradient_descent

__version__ = "0.1.0"
