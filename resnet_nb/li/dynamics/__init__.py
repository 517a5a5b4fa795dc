"""Section 4.2 of Li et al. and what follows from Theorem 1 along training (chapter:
book/theorem1_dynamics.ipynb), the companion of :mod:`resnet_nb.li.theorem1`.

* Eq. 7 and Figure 4: :mod:`.eq7_figure4`;
* Eqs. 15-16 (the optimum with any generalized inverse): :mod:`.eq15_16`;
* gradient descent from the small start over several seeds (sharpness against 2/lr, loss
  spikes, the longer stored run, a catapult's mechanism): :mod:`.sharpness`;
* the drift lambda_max(H(eps V)) - sigma_max(M) = c R eps^2: :mod:`.drift`;
* the pairing of inputs with outputs: :mod:`.pairing`.

Every check returns a :class:`resnet_nb.core.claims.Check`; each module declares its claims
beside its checks. This package gathers the chapter's public names (the chapter reads
``t1d.eq7_check``). The ledger lists the claims in the order of :data:`resnet_nb.book.ledger.CLAIM_MODULES` (and, within
a module, in the order of declaration), whatever order these modules are imported in.
"""

from __future__ import annotations

# each module's __all__ builds the package's (one place per public name)
import resnet_nb.li.dynamics.drift as _drift
import resnet_nb.li.dynamics.eq7_figure4 as _eq7_figure4
import resnet_nb.li.dynamics.eq15_16 as _eq15_16
import resnet_nb.li.dynamics.pairing as _pairing
import resnet_nb.li.dynamics.sharpness as _sharpness
from resnet_nb.li.dynamics.drift import *  # noqa: F403
from resnet_nb.li.dynamics.eq7_figure4 import *  # noqa: F403
from resnet_nb.li.dynamics.eq15_16 import *  # noqa: F403
from resnet_nb.li.dynamics.pairing import *  # noqa: F403
from resnet_nb.li.dynamics.sharpness import *  # noqa: F403

__all__ = [*_drift.__all__, *_eq7_figure4.__all__, *_eq15_16.__all__, *_pairing.__all__, *_sharpness.__all__]
