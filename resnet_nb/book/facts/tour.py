"""The numbers the prose of book/tour.ipynb quotes, and the data of its figures: each function
computes one figure's data from the papers' packages and formats the numbers the text quotes."""

from __future__ import annotations

import numpy as np

import resnet_nb as rn
from resnet_nb.book import show
from resnet_nb.core import hessians
from resnet_nb.hardt_ma import linear as hml

__all__ = ["key_figure_facts"]


def key_figure_facts(data) -> show.Facts:
    """The tour's first figure: Hardt & Ma's construction against Theorem 2.1's bound and the
    floor of a reflection (left), and the condition number at w = 0 of 1- and 2-shortcut networks
    on ``data`` by depth (right); with the numbers the text quotes."""
    # left: Hardt & Ma, Theorem 2.1 -- the largest layer norm needed to write R as a product
    R_pos = hml.random_positive_det(4, np.random.default_rng(1), gamma=1.0)
    gamma = hml.gamma_of(R_pos)
    R_neg = R_pos.copy()
    R_neg[:, 0] *= -1  # one column flipped: det R < 0, same singular values
    ells = [3, 4, 6, 8, 12, 16, 24, 32, 48, 64]
    built = [hml.max_spectral_norm(hml.theorem21_construction(R_pos, ell)[0]) for ell in ells]
    bound = [hml.theorem21_bound(gamma, ell) for ell in ells]
    floor = hml.min_max_norm_lower_bound(R_neg)
    assert np.linalg.det(R_neg) < 0 and floor == 1 and all(b <= c for b, c in zip(built, bound))
    # right: Li et al., Theorem 1 -- condition number of the Hessian at w = 0 against depth
    cond_at_zero = {
        n: [
            (
                n * R,
                hessians.cond_percentile(
                    hessians.spectrum(hessians.hessian_at_zero(rn.ShortcutNetwork(10, n, R), data))
                ),
            )
            for R in Rs
        ]
        for n, Rs in [(1, [1, 2, 4, 8, 16]), (2, [1, 2, 4, 8])]
    }
    # gamma = 1 by construction (to rounding), so every depth plotted has l >= 3 gamma
    assert abs(gamma - 1) < 1e-12 and min(ells) >= 3
    # without l >= 3 gamma: R = e^10 (1 x 1, gamma = 10) with l = 2 layers, whose best factors are
    # equal, 1 + a = e^5 (the ledger's falsifier of hm-thm21-bound)
    few_opt, few_bound = np.expm1(10 / 2), hml.theorem21_bound(10.0, 2)
    assert few_opt > few_bound
    # Theorem 1's own condition number at w = 0 (Eq. 12): |lambda|max / |lambda|min = smax(M) / smin(M)
    lam2 = np.abs(hessians.spectrum(hessians.hessian_at_zero(rn.ShortcutNetwork(10, 2, 1), data)))
    spread2 = np.ptp([c for _, c in cond_at_zero[2]]) / cond_at_zero[2][0][1]
    assert spread2 < 1e-9  # the 2-shortcut value is the same at every depth (to rounding)
    return show.Facts(
        ells=ells,
        built=built,
        bound=bound,
        floor=floor,
        cond_at_zero=cond_at_zero,
        gamma_s=show.num(gamma),
        ell_lo=show.count(ells[0]),
        ell_hi=show.count(ells[-1]),
        built_ratio=show.pct(max(b / c for b, c in zip(built, bound)), 1),
        few_opt_s=show.num(few_opt, 3),
        few_bound_s=show.num(few_bound, 3),
        cond2=show.num(cond_at_zero[2][0][1], 3),
        cond2_exact=show.num(lam2.max() / lam2.min(), 4),
        cond1_lo=show.num(cond_at_zero[1][0][1], 3),
        cond1_hi=show.num(cond_at_zero[1][-1][1], 3),
        depth1_hi=show.count(cond_at_zero[1][-1][0]),
        depth2_hi=show.count(cond_at_zero[2][-1][0]),
    )
