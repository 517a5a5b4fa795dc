"""Hardt & Ma, section 3 and appendix B (chapter: book/hardt_ma_expressivity.ipynb): finite-sample
expressivity of ReLU residual networks, one module per statement, and the chapter's namespace.

* :mod:`.network`: the network, separation, margins and the projection ``A_0``;
* :mod:`.theorem32`: the key lemma's block (Lemma 3.3 / B.2) and Theorem 3.2's construction;
* :mod:`.theorem32_width`: the proof's width ``k = c log n / rho^2`` and its Johnson-Lindenstrauss step;
* :mod:`.lemma_b1`: Lemma B.1 as printed, its hypotheses and its counterexamples;
* :mod:`.constant_width`: the construction at a constant width (the book's statement).

The modules are imported in this order, which is the order of the chapter's claims in the ledger.

The chapter imports this package as ``hr``; its figures are :mod:`resnet_nb.book.hardt_ma_figures`.
"""

from resnet_nb.hardt_ma.relu.constant_width import check_constant_width
from resnet_nb.hardt_ma.relu.lemma_b1 import (
    check_lemma_b1,
    check_lemma_b1_squared,
    extremal_b1_pair,
    lemma_b1_counterexamples,
    lemma_b1_hypotheses,
    lemma_b1_paper,
    pad_configuration,
    random_lemma_b1_configuration,
    squared_reading_margin_search,
    squared_reading_min_margin,
)
from resnet_nb.hardt_ma.relu.network import (
    ReLUResNet,
    as_points,
    margins,
    paper_rho,
    parameter_count,
    projection_A0,
    random_unit_draw,
    relu_block,
    separation,
    unit_norm_columns,
)
from resnet_nb.hardt_ma.relu.theorem32 import (
    construction_fit_error,
    construction_steps,
    lemma_block,
    paper_order_failure,
    projected_margins,
    surrogate_inner_products,
    surrogate_vectors,
    theorem32_construction,
)
from resnet_nb.hardt_ma.relu.theorem32_width import (
    RHO_READINGS,
    THM32_DIR,
    THM32_DRAWS,
    THM32_RESULTS,
    chapter_point_sets,
    check_theorem32,
    clopper_pearson,
    failure_rate,
    jl_distortion,
    jl_step_rates,
    load_thm32,
    paper_width,
    projection_row,
    reproduce_thm32,
    thm32_draw,
    thm32_draw_item,
    thm32_draw_row,
    thm32_projection_item,
)

__all__ = [
    "as_points",
    "unit_norm_columns",
    "relu_block",
    "separation",
    "paper_rho",
    "margins",
    "ReLUResNet",
    "parameter_count",
    "projection_A0",
    "random_unit_draw",
    "lemma_block",
    "surrogate_vectors",
    "theorem32_construction",
    "projected_margins",
    "paper_order_failure",
    "surrogate_inner_products",
    "construction_steps",
    "construction_fit_error",
    "paper_width",
    "clopper_pearson",
    "failure_rate",
    "THM32_DRAWS",
    "RHO_READINGS",
    "jl_distortion",
    "thm32_draw",
    "jl_step_rates",
    "chapter_point_sets",
    "THM32_RESULTS",
    "thm32_draw_row",
    "projection_row",
    "check_theorem32",
    "THM32_DIR",
    "thm32_draw_item",
    "thm32_projection_item",
    "reproduce_thm32",
    "load_thm32",
    "lemma_b1_hypotheses",
    "lemma_b1_paper",
    "lemma_b1_counterexamples",
    "pad_configuration",
    "random_lemma_b1_configuration",
    "check_lemma_b1",
    "check_lemma_b1_squared",
    "extremal_b1_pair",
    "squared_reading_margin_search",
    "squared_reading_min_margin",
    "check_constant_width",
]
