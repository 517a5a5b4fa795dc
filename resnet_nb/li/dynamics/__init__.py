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
``t1d.eq7_check``); the modules are imported in the ledger's order of the claims.
"""

from __future__ import annotations

from resnet_nb.li.dynamics.drift import drift_per_unit, drift_R_law_check, drift_table, evenness_check
from resnet_nb.li.dynamics.eq7_figure4 import eq7_check, eq7_update, figure4_one_shortcut_check, figure4_skip_all_check
from resnet_nb.li.dynamics.eq15_16 import (
    eq15_16_check,
    eq15_16_ginverse_check,
    generalized_inverse,
    rank_deficient_data,
)
from resnet_nb.li.dynamics.pairing import (
    controlled_residual,
    convention_table,
    order_sweep,
    relabel,
    residual_table,
    sign_sweep,
)
from resnet_nb.li.dynamics.sharpness import (
    LONG_SWEEP,
    LONG_SWEEP_DIR,
    SWEEP_ROW,
    SWEEP_SCALARS,
    TRACES,
    catapult_steps,
    lambda_max,
    load_sweep,
    long_sweep_reproduce,
    rise_factor,
    save_sweep,
    sharpness_sweep,
    sharpness_trace,
    sweep_item,
    sweep_records,
)

__all__ = [
    "eq7_update",
    "eq7_check",
    "figure4_one_shortcut_check",
    "figure4_skip_all_check",
    "eq15_16_check",
    "rank_deficient_data",
    "generalized_inverse",
    "eq15_16_ginverse_check",
    "lambda_max",
    "sharpness_trace",
    "rise_factor",
    "sharpness_sweep",
    "LONG_SWEEP_DIR",
    "LONG_SWEEP",
    "SWEEP_ROW",
    "SWEEP_SCALARS",
    "TRACES",
    "sweep_item",
    "sweep_records",
    "save_sweep",
    "load_sweep",
    "long_sweep_reproduce",
    "catapult_steps",
    "drift_table",
    "evenness_check",
    "drift_per_unit",
    "drift_R_law_check",
    "relabel",
    "convention_table",
    "sign_sweep",
    "order_sweep",
    "controlled_residual",
    "residual_table",
]
