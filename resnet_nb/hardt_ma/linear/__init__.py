"""Hardt & Ma, section 2 (chapter: book/hardt_ma_linear.ipynb): linear residual networks
``x -> (I + A_l) ... (I + A_1) x``, one module per statement, and the chapter's namespace.

* :mod:`.network`: the factors, their product, ``|||A|||`` and ``gamma`` (the notation);
* :mod:`.theorem21`: Theorem 2.1's construction and bound, and its hypothesis ``det R > 0``;
* :mod:`.theorem22`: Lemma 2.4's gradient, Eq. (2.3) and Theorem 2.2's landscape;
* :mod:`.theorem21_appendix`: two steps of Theorem 2.1's proof (the rotation step, the SPD case);
* :mod:`.gd_reflection`: gradient descent when ``det R < 0``.

The ledger lists the claims in the order of :data:`resnet_nb.book.ledger.CLAIM_MODULES` (and, within
a module, in the order of declaration), whatever order these modules are imported in.
The chapter imports this package as ``hm``; its figures are :mod:`resnet_nb.book.hardt_ma_figures`.
"""

# each module's __all__ builds the package's (one place per public name)
import resnet_nb.hardt_ma.linear.gd_reflection as _gd_reflection
import resnet_nb.hardt_ma.linear.network as _network
import resnet_nb.hardt_ma.linear.theorem21 as _theorem21
import resnet_nb.hardt_ma.linear.theorem21_appendix as _theorem21_appendix
import resnet_nb.hardt_ma.linear.theorem22 as _theorem22
from resnet_nb.hardt_ma.linear.gd_reflection import *  # noqa: F403
from resnet_nb.hardt_ma.linear.network import *  # noqa: F403
from resnet_nb.hardt_ma.linear.theorem21 import *  # noqa: F403
from resnet_nb.hardt_ma.linear.theorem21_appendix import *  # noqa: F403
from resnet_nb.hardt_ma.linear.theorem22 import *  # noqa: F403

__all__ = [
    *_gd_reflection.__all__,
    *_network.__all__,
    *_theorem21.__all__,
    *_theorem21_appendix.__all__,
    *_theorem22.__all__,
]
