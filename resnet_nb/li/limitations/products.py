"""Limitations of Li et al. (chapter: book/li_limitations.ipynb), (c): Section 2, products of
factors ``1 + eps_i`` close to one."""

from __future__ import annotations

import math

import numpy as np

from resnet_nb.core import claims
from resnet_nb.core.checks import require_choice, require_int
from resnet_nb.li.limitations.variance import GAIN_CASES, pre_relu_keep, predicted_gain, unit_gain

__all__ = [
    "product_log_spread",
    "predicted_log_std",
    "deviation",
    "product_table",
    "gain_table",
    "claim_product_band",
    "SCALINGS",
    "PRODUCT_DEPTHS",
    "PRODUCT_C",
    "PRODUCT_A",
    "PRODUCT_DRAWS",
]

# ==========================================================================================
# (c) Section 2: products of factors close to one
# ==========================================================================================

#: how the deviation of each factor scales with the number of factors L
SCALINGS = ("fixed", "sqrt", "linear")


def deviation(L: int, size: float, scaling: str) -> float:
    """The deviation ``a`` of each factor ``1 +- a``: ``size``, ``size / sqrt(L)`` or ``size / L``."""
    require_choice("scaling", scaling, SCALINGS)
    return size / {"fixed": 1.0, "sqrt": math.sqrt(L), "linear": float(L)}[scaling]


def product_log_spread(L: int, size: float, scaling: str = "fixed", draws: int = 200, seed: int = 0) -> np.ndarray:
    """``log prod_i (1 + eps_i)`` for ``draws`` draws of L factors with random signs.

    ``eps_i = +-a`` with independent fair signs and ``a = deviation(L, size, scaling)``: a
    deviation of fixed size, one that shrinks like ``1/sqrt(L)`` (a residual branch of size
    ``1/sqrt(R)``) or like ``1/L``. The products are multiplied factor by factor (in logs, so
    that they neither overflow nor underflow).
    """
    L, draws = require_int("L", L), require_int("draws", draws)
    a = deviation(L, size, scaling)
    if not 0 < a < 1:
        raise ValueError(f"size must give a deviation a = deviation(L, size, scaling) in (0, 1), got a = {a}")
    rng = np.random.default_rng(seed)
    signs = rng.integers(0, 2, size=(draws, L), dtype=np.int8) * 2 - 1
    return np.log1p(a * signs).sum(1)


def predicted_log_std(L: int, a: float) -> float:
    """Standard deviation of ``sum_i log(1 +- a)`` over L fair signs: ``sqrt(L) atanh(a)``
    (each term is ``(log(1+a) + log(1-a))/2 +- atanh(a)``); about ``sqrt(L) a`` for small a."""
    return math.sqrt(L) * math.atanh(a)


#: the depths of (c) and the deviation sizes: a fixed, c / sqrt(L) and c / L
PRODUCT_DEPTHS = (10, 100, 1000, 10000)
PRODUCT_C = 1.0
PRODUCT_A = 0.2
PRODUCT_DRAWS = 2000


def product_table(depths=None, a: float = None, c: float = None, draws: int = PRODUCT_DRAWS):
    """One row per depth L: the measured and predicted spread of ``log prod`` for deviations of
    fixed size ``a`` and of size ``c / sqrt(L)``, the median product for fixed ``a``, and the
    largest ``|log prod|`` for deviations ``c / L`` beside its bound ``c / (1 - c/L)``. The spreads
    are sample standard deviations (ddof 1) over ``draws`` draws of :func:`product_log_spread`, seeded
    L, L + 1 and L + 2 for the three scalings."""
    import pandas as pd

    depths = PRODUCT_DEPTHS if depths is None else depths
    a = PRODUCT_A if a is None else a
    c = PRODUCT_C if c is None else c
    rows = []
    for L in depths:
        fixed = product_log_spread(L, a, "fixed", draws=draws, seed=L)
        sqrt_ = product_log_spread(L, c, "sqrt", draws=draws, seed=L + 1)
        lin = product_log_spread(L, c, "linear", draws=draws, seed=L + 2)
        rows.append(
            {
                "L": L,
                "a: std log": fixed.std(ddof=1),
                "a: √L atanh a": predicted_log_std(L, a),
                "a: median prod": np.exp(np.median(fixed)),
                "c/√L: std log": sqrt_.std(ddof=1),
                "c/√L: predicted": predicted_log_std(L, deviation(L, c, "sqrt")),
                "c/L: max |log|": np.abs(lin).max(),
                "c/L: bound": c / (1 - c / L),
            }
        )
    return pd.DataFrame(rows)


def gain_table(ns=(2, 3), draws: int = 200):
    """Predicted and measured second-moment factor per unit for the cases of :data:`GAIN_CASES`; the
    prediction uses the fraction a pre ReLU keeps on the data (:func:`pre_relu_keep`), the column
    "symmetric inputs" the idealised 1/2. The measured factor and its standard error are
    :func:`unit_gain` over ``draws`` units, seeded n."""
    import pandas as pd

    rows = []
    for n in ns:
        for scheme, mid, pre in GAIN_CASES:
            est, se = unit_gain(n, scheme, mid, draws=draws, seed=n, pre=pre)
            rows.append(
                {
                    "n": n,
                    "init": scheme,
                    "pre": pre,
                    "mid": mid,
                    "predicted g": predicted_gain(n, scheme, mid, pre, keep=pre_relu_keep()),
                    "symmetric inputs": predicted_gain(n, scheme, mid, pre),
                    "measured g": est,
                    "std. error": se,
                }
            )
    return pd.DataFrame(rows)


PRODUCT_TITLE = "Section 2: products of factors 1 +- a"
#: the deviation as a part names it, by scaling
PRODUCT_DEVIATION = {"fixed": "a = {size:g}", "sqrt": "a = {size:g}/sqrt(L)"}
PRODUCT_PART = claims.Part(
    "L = {L:,}, {what}: spread of log prod = {pred:.3g}",
    "|measured - predicted| std",
    "err",
    "bound",
    "4 standard errors of a sample std over {draws:,} draws",
    nontrivial="sd",
    nontrivial_what="measured std",
    spread="se",
)
PRODUCT_LITERAL = claims.Part(
    "literal reading: with a = {c:g}/sqrt(L) the spread of log prod grows from L = {L0:,} to L = {L1:,}",
    "std(L_max) - std(L_min)",
    "growth",
    "bound",
    "4 standard errors of the difference of two sample stds over {draws:,} draws",
    op=">=",
    nontrivial="sd_max",
    nontrivial_what="measured std at L_max",
    spread="se",
)


@claims.claim(
    "li-2-unit-norm",
    source="Li et al., Section 2 (singular values near one; unit-norm remark)",
    statement=r"Read with the sentence before it (singular values 'are not supposed to be deviating "
    r"too much from one'): a product of $L$ factors $1 \pm a$ with random signs explodes or "
    r"vanishes when $a$ is fixed (the spread of its logarithm is $\sqrt L\,\operatorname{atanh} a"
    r"\approx \sqrt L\,a$) and stays bounded when $a = c/\sqrt L$ (spread about $c$) or "
    r"$a = c/L$; factors need not have exactly unit norm.",
    verdict="holds",
    falsifier=r"the literal reading, unit norm exactly: factors that are not 1 cannot keep the product "
    r"bounded, so with $a = c/\sqrt L$ the spread of the log still grows with $L$ (from "
    r"$L = 10$ to $L = 10{,}000$ by more than 4 standard errors)",
    falsifier_kind="implied by the check",
    where=["book/li_limitations.ipynb", "tests/li/test_limitations.py"],
)
def claim_product_band(falsify: bool = False) -> claims.Check:
    if falsify:
        return _literal_reading()
    parts = []
    for scaling, size in (("fixed", PRODUCT_A), ("sqrt", PRODUCT_C)):
        for L in (PRODUCT_DEPTHS[0], PRODUCT_DEPTHS[-1]):
            logs = product_log_spread(L, size, scaling, draws=PRODUCT_DRAWS, seed=L + (scaling == "sqrt"))
            sd = float(logs.std(ddof=1))
            pred = predicted_log_std(L, deviation(L, size, scaling))
            se = sd / math.sqrt(2 * (PRODUCT_DRAWS - 1))  # standard error of a sample std
            values = dict(
                L=L,
                what=PRODUCT_DEVIATION[scaling].format(size=size),
                pred=pred,
                sd=sd,
                se=se,
                err=abs(sd - pred),
                bound=4 * se,
                draws=PRODUCT_DRAWS,
            )
            parts += claims.checks_from([PRODUCT_PART], values)
    return claims.all_of(PRODUCT_TITLE, parts)


def _literal_reading() -> claims.Check:
    """The falsifier: with a = c/sqrt(L) the spread of the log grows from the smallest to the
    largest depth by more than 4 standard errors of the difference."""
    L0, L1 = PRODUCT_DEPTHS[0], PRODUCT_DEPTHS[-1]
    sd = [
        float(product_log_spread(L, PRODUCT_C, "sqrt", draws=PRODUCT_DRAWS, seed=L + 1).std(ddof=1)) for L in (L0, L1)
    ]
    se = math.hypot(*sd) / math.sqrt(2 * (PRODUCT_DRAWS - 1))
    values = dict(
        c=PRODUCT_C, L0=L0, L1=L1, sd_max=sd[1], se=se, growth=sd[1] - sd[0], bound=4 * se, draws=PRODUCT_DRAWS
    )
    (res,) = claims.checks_from([PRODUCT_LITERAL], values)
    res.values.update(values, sd=sd)
    return res
