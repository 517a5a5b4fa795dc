"""Hardt & Ma, section 3 and appendix B (chapter: book/hardt_ma_expressivity.ipynb): finite-sample
expressivity of ReLU residual networks, one module per statement, and the chapter's namespace.

* :mod:`.network`: the network, separation, margins and the projection ``A_0``;
* :mod:`.theorem32`: the key lemma's block (Lemma 3.3 / B.2) and Theorem 3.2's construction;
* :mod:`.theorem32_width`: the proof's width ``k = c log n / rho^2`` and its Johnson-Lindenstrauss step;
* :mod:`.lemma_b1`: Lemma B.1 as printed, its hypotheses and its counterexamples;
* :mod:`.constant_width`: the construction at a constant width (the book's statement).

The ledger lists the claims in the order of :data:`resnet_nb.book.ledger.CLAIM_MODULES` (and, within
a module, in the order of declaration), whatever order these modules are imported in.

The chapter imports this package as ``hr``; its figures are :mod:`resnet_nb.book.hardt_ma_figures`.
"""

# each module's __all__ builds the package's (one place per public name)
import resnet_nb.hardt_ma.relu.constant_width as _constant_width
import resnet_nb.hardt_ma.relu.lemma_b1 as _lemma_b1
import resnet_nb.hardt_ma.relu.network as _network
import resnet_nb.hardt_ma.relu.theorem32 as _theorem32
import resnet_nb.hardt_ma.relu.theorem32_width as _theorem32_width
from resnet_nb.hardt_ma.relu.constant_width import *  # noqa: F403
from resnet_nb.hardt_ma.relu.lemma_b1 import *  # noqa: F403
from resnet_nb.hardt_ma.relu.network import *  # noqa: F403
from resnet_nb.hardt_ma.relu.theorem32 import *  # noqa: F403
from resnet_nb.hardt_ma.relu.theorem32_width import *  # noqa: F403

__all__ = [
    *_constant_width.__all__,
    *_lemma_b1.__all__,
    *_network.__all__,
    *_theorem32.__all__,
    *_theorem32_width.__all__,
]
