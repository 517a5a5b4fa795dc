"""Hardt & Ma, section 2 (chapter: book/hardt_ma_linear.ipynb): linear residual networks
``x -> (I + A_l) ... (I + A_1) x``, one module per statement, and the chapter's namespace.

* :mod:`.network`: the factors, their product, ``|||A|||`` and ``gamma`` (the notation);
* :mod:`.theorem21`: Theorem 2.1's construction and bound, and its hypothesis ``det R > 0``;
* :mod:`.theorem22`: Lemma 2.4's gradient, Eq. (2.3) and Theorem 2.2's landscape;
* :mod:`.theorem21_appendix`: two steps of Theorem 2.1's proof (the rotation step, the SPD case);
* :mod:`.gd_reflection`: gradient descent when ``det R < 0``.

The modules are imported in this order, which is the order of the chapter's claims in the ledger.
The chapter imports this package as ``hm``; its figures are :mod:`resnet_nb.book.hardt_ma_figures`.
"""

from resnet_nb.hardt_ma.linear.gd_reflection import (
    GD_STEP_LIMIT,
    check_gd_reflection,
    population_gd,
    population_gd_batch,
)
from resnet_nb.hardt_ma.linear.network import (
    as_factors,
    as_square,
    gamma_of,
    max_spectral_norm,
    random_positive_det,
    residual_product,
)
from resnet_nb.hardt_ma.linear.theorem21 import (
    VERSIONS,
    check_theorem21_bound,
    check_theorem21_det,
    det_lemma_search,
    det_sign_data,
    min_max_norm_lower_bound,
    min_max_norm_search,
    polar_factors,
    reflection_factorisation,
    rotation_root,
    scalar_optimum,
    theorem21_bound,
    theorem21_construction,
    theorem21_paper_recipe,
    theorem21_survey,
)
from resnet_nb.hardt_ma.linear.theorem21_appendix import check_psd_case, check_rotation_step, rotation_step_norm
from resnet_nb.hardt_ma.linear.theorem22 import (
    FORMS,
    adversarial_gradient_ratio,
    bound_ratios,
    bound_sides_from_error,
    check_eq23,
    check_lemma24,
    check_theorem22,
    critical_point_at_tau_one,
    gradient_bound_sides,
    gradient_bound_survey,
    gradient_from_error,
    lemma24_worst,
    population_risk,
    random_ball_point,
    risk_gradient,
    theorem22_points,
    theorem22_rate,
)

__all__ = [
    "as_square",
    "as_factors",
    "gamma_of",
    "residual_product",
    "max_spectral_norm",
    "random_positive_det",
    "VERSIONS",
    "theorem21_bound",
    "polar_factors",
    "rotation_root",
    "theorem21_construction",
    "theorem21_paper_recipe",
    "scalar_optimum",
    "theorem21_survey",
    "min_max_norm_lower_bound",
    "min_max_norm_search",
    "reflection_factorisation",
    "det_sign_data",
    "check_theorem21_bound",
    "check_theorem21_det",
    "det_lemma_search",
    "population_risk",
    "risk_gradient",
    "FORMS",
    "gradient_bound_sides",
    "bound_sides_from_error",
    "gradient_from_error",
    "random_ball_point",
    "adversarial_gradient_ratio",
    "critical_point_at_tau_one",
    "gradient_bound_survey",
    "bound_ratios",
    "lemma24_worst",
    "check_lemma24",
    "check_eq23",
    "theorem22_rate",
    "theorem22_points",
    "check_theorem22",
    "rotation_step_norm",
    "check_rotation_step",
    "check_psd_case",
    "population_gd_batch",
    "population_gd",
    "GD_STEP_LIMIT",
    "check_gd_reflection",
]
