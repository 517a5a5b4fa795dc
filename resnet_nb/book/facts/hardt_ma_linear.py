"""The numbers the prose of book/hardt_ma_linear.ipynb quotes, section by section: each function
selects them from the chapter's results and formats them as the page shows them."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import torch
from scipy.optimize import brentq

from resnet_nb.book import show
from resnet_nb.hardt_ma import linear as hm

__all__ = [
    "gd_facts",
    "signs_facts",
    "rounding_facts",
    "det_facts",
    "lemma24_facts",
    "survey_facts",
    "search_facts",
    "key_figure_numbers_facts",
    "survey_numbers_facts",
    "gd_gaps_facts",
]


def gd_facts() -> show.Facts:
    """Gradient descent on a reflection (det R < 0) from A = 0 and from small random starts, and the
    symmetric path that explains where it stalls."""
    gd_small, gd_big = 0.05, 0.3  # step sizes below and above hm.GD_STEP_LIMIT = 1/4
    assert gd_small < hm.GD_STEP_LIMIT < gd_big
    gd_neg = hm.reflection_escape_table((3, 4, 5, 6), (gd_small, gd_big), random_starts=4, steps=6000)
    zero_small = gd_neg[(gd_neg.start == "A = 0") & (gd_neg.lr == gd_small)]
    zero_big = gd_neg[(gd_neg.start == "A = 0") & (gd_neg.lr == gd_big)].set_index("l")
    assert (zero_small.escaped == 0).all() and (zero_small.norm < 1).all()
    assert zero_big.escaped[3] == 1 and zero_big.escaped[4] == 0 and zero_big.escaped[6] == 0
    # the symmetric path: u <- u - 2 eta u^(l-1) (u^l + 1), slope 1 - 2 eta l at u = -1
    path5 = hm.symmetric_excess(5, gd_big)
    assert gd_big > 1 / 5 and zero_big.escaped[5] == 0 and gd_big < 1 / 3
    assert math.isclose(path5[-1], zero_big.excess[5], rel_tol=1e-6)  # the batched run follows it
    assert path5[-3:].max() - path5[-3:].min() > 0.1  # still cycling after 6,000 steps
    # every step size on a grid: which ones take the symmetric path to u = -1 within 6,000 steps?
    eta_grid = np.arange(1, 101) / 100
    reached = {l: eta_grid[hm.symmetric_excess(l, eta_grid)[-1] < 1e-10] for l in (3, 5, 7)}
    assert list(reached[5]) == list(reached[7]) == [0.5]  # u = 1 - 4 eta = -1 in one step
    assert ((reached[3] > 0.25) & (reached[3] < 1 / 3) | (reached[3] == 0.5)).all()
    assert len(reached[3]) > 1
    n_eta = show.count(len(eta_grid))
    stall_excess = show.fixed(zero_small.excess.min(), 4)
    big_norm3, big_excess5 = show.num(zero_big.norm[3], 3), show.num(zero_big.excess[5], 3)
    gd_small_s, gd_big_s = show.num(gd_small), show.num(gd_big)
    escape_text = show.text(
        "; ".join(
            f"{int(r.escaped)} of 4 at depth {int(r.l)}" for r in gd_neg[gd_neg.start == "small random"].itertuples()
        )
    )
    return show.Facts(
        big_excess5=big_excess5,
        big_norm3=big_norm3,
        escape_text=escape_text,
        gd_big_s=gd_big_s,
        gd_neg=gd_neg,
        gd_small_s=gd_small_s,
        n_eta=n_eta,
        stall_excess=stall_excess,
    )


def signs_facts(paper, paper_ratio) -> show.Facts:
    """The recipe's norm with LAPACK's SVD signs against the best signs, and the R = -I example."""
    # An SVD is unique only up to the signs of matching singular pairs (and up to rotations inside
    # a repeated singular value). The recipe above uses LAPACK's. Flipping signs of matching columns
    # of U and rows of V^T (an even number, so that both stay rotations) can shrink their angles.
    # hm.sign_aligned_recipe_norm tries every even sign flip of matching pairs.
    R_near_diag = np.diag([3.0, 2.0, 1.0]) + 0.05 * np.random.default_rng(0).standard_normal((3, 3))
    A_lapack, i_lapack = hm.theorem21_paper_recipe(R_near_diag, 8)
    aligned_8 = hm.sign_aligned_recipe_norm(R_near_diag, 8)
    pairs = [
        (hm.max_spectral_norm(A), hm.sign_aligned_recipe_norm(R, l), hm.theorem21_bound(i["gamma"], l))
        for R, l, A, i in paper
        if l >= 3 * i["gamma"]
    ]
    # flipping never hurts: LAPACK's signs are one of the choices
    assert all(a <= lap * (1 + 1e-12) for lap, a, _ in pairs)
    worst_aligned = max(a / b for _, a, b in pairs)
    assert abs(worst_aligned - paper_ratio) < 1e-12
    assert aligned_8 < 0.5 * hm.max_spectral_norm(A_lapack)
    tU, tV = show.fixed(i_lapack["theta_U"], 2), show.fixed(i_lapack["theta_V"], 2)
    near_angles = show.text(f"{tU} and {tV}")
    near_lapack, near_aligned = show.fixed(hm.max_spectral_norm(A_lapack), 2), show.fixed(aligned_8, 2)
    inflation = 1.5  # "much worse": LAPACK's signs cost more than this factor
    n_inflated = show.count(sum(lap > inflation * a for lap, a, _ in pairs))
    inflation_shown = show.num(inflation)
    n_pairs = show.count(len(pairs))
    U_mI, _, Vt_mI = np.linalg.svd(-np.eye(2))
    assert np.array_equal(U_mI, np.eye(2)) and np.array_equal(Vt_mI, -np.eye(2))
    # R = -I, l = 10: U = V^T = rotation by pi/2, q = 5 factors each
    minus_I_10 = show.fixed(10 * 2 * math.sin(math.pi / 2 / (2 * 5)), 3)
    iclr_10 = show.fixed(10 * hm.theorem21_bound(0.0, 10), 3)
    return show.Facts(
        iclr_10=iclr_10,
        inflation_shown=inflation_shown,
        minus_I_10=minus_I_10,
        n_inflated=n_inflated,
        n_pairs=n_pairs,
        near_aligned=near_aligned,
        near_angles=near_angles,
        near_lapack=near_lapack,
    )


def rounding_facts() -> show.Facts:
    """Rounding p in Theorem 2.1's proof: where the printed p drops below gamma, what rounding down
    costs, and the worst ratio when rounding up."""
    # at the smallest allowed depth l = 3 gamma, p >= gamma exactly from these gammas on
    for p_of, closed in (
        (hm.p_printed, 4 * math.pi / 3),
        (hm.p_reading, math.pi / 12),
        (hm.p_balanced, math.pi / 6),
    ):
        assert math.isclose(brentq(lambda g, p_of=p_of: p_of(g, 3 * g) - g, 1e-6, 100), closed, rel_tol=1e-9)
    x0 = brentq(lambda x: math.expm1(x) - 3 * x, 0.5, 3)  # e^x - 1 <= 3x exactly for 0 <= x <= x0
    gap = np.linspace(1, 4 * math.pi / 3, 200, endpoint=False)
    worst_gap = max(g / hm.p_printed(g, 3 * g) for g in gap)  # gamma / p on [1, 4 pi / 3) at l = 3 gamma
    assert hm.p_printed(2, 6) < 2 and worst_gap < x0
    # the construction needs an integer p: rounded down at gamma = 2, l = 6 the estimate fails
    p_floor = math.floor(hm.p_printed(2, 6))
    assert p_floor == 1 and 2 / p_floor > x0 and math.expm1(2 / p_floor) > 3 * 2 / p_floor
    assert math.expm1(2 / p_floor) > hm.theorem21_bound(2, 6)  # norm of K^(1/p) - I if sigma_max = e^2
    # rounded up, gamma / p stays below x0 on [1, 4 pi / 3), at every depth 3 gamma <= l < 3 gamma + 20
    worst_ceil = max(
        g / math.ceil(hm.p_printed(g, l)) for g in gap for l in range(math.ceil(3 * g), math.ceil(3 * g) + 20)
    )
    assert worst_ceil < x0
    p_floor_s, floor_ratio, floor_3x = show.count(p_floor), show.num(2 / p_floor), show.num(6 / p_floor)
    floor_est, iclr_26 = show.fixed(math.expm1(2 / p_floor), 2), show.fixed(hm.theorem21_bound(2, 6), 2)
    worst_ceil_s = show.fixed(worst_ceil, 2)
    x_3x, p_print_ex, max_ratio_gap = (
        show.fixed(x0, 2),
        show.fixed(hm.p_printed(2, 6), 2),
        show.fixed(worst_gap, 2),
    )
    return show.Facts(
        floor_3x=floor_3x,
        floor_est=floor_est,
        floor_ratio=floor_ratio,
        iclr_26=iclr_26,
        max_ratio_gap=max_ratio_gap,
        p_floor_s=p_floor_s,
        p_print_ex=p_print_ex,
        worst_ceil_s=worst_ceil_s,
        x_3x=x_3x,
    )


def det_facts(rng) -> show.Facts:
    """Theorem 2.1 and det R: the smallest determinant inside the ball, and the reflection that no
    network of the ball reaches."""
    R_reflect = np.diag([-1.0, 1.0, 1.0])
    dets = [np.linalg.det(hm.residual_product(hm.random_ball_point(6, 3, 0.999, rng))) for _ in range(2000)]
    assert min(dets) > 0
    smallest_det = show.num(min(dets))
    A, info = hm.theorem21_construction(-np.eye(2), 10)
    assert abs(hm.max_spectral_norm(A) - 2 * math.sin(math.pi / 20)) < 1e-12
    pi_norm = show.fixed(hm.max_spectral_norm(A), 4)
    pi_err = show.num(np.abs(hm.residual_product(A) + np.eye(2)).max())
    R_m2 = np.diag([-1.0, -2.0])  # det > 0, no real logarithm
    A_m2, info_m2 = hm.theorem21_construction(R_m2, 20)
    assert hm.max_spectral_norm(A_m2) < hm.theorem21_bound(info_m2["gamma"], 20)
    m2_err = show.num(np.abs(hm.residual_product(A_m2) - R_m2).max())
    m2_norm = show.fixed(hm.max_spectral_norm(A_m2), 3)
    m2_bound = show.fixed(hm.theorem21_bound(info_m2["gamma"], 20), 3)
    det_check, det_false = hm.claim_theorem21_det(), hm.claim_theorem21_det(falsify=True)
    assert det_check.parts[1].value >= 1  # d = 3: above the bound; d = 2 lands on it up to rounding
    det_excess2, det_excess3 = (show.num(abs(p.value - 1)) for p in det_check.parts)
    det_wrong = show.num(det_false.value)
    return show.Facts(
        R_reflect=R_reflect,
        det_check=det_check,
        det_excess2=det_excess2,
        det_excess3=det_excess3,
        det_false=det_false,
        det_wrong=det_wrong,
        m2_bound=m2_bound,
        m2_err=m2_err,
        m2_norm=m2_norm,
        pi_err=pi_err,
        pi_norm=pi_norm,
        smallest_det=smallest_det,
    )


def lemma24_facts(D, rng) -> show.Facts:
    """The numbers the exercise solutions on Lemma 2.4 quote."""
    # numbers used in the exercise solutions
    ex_l1, ex_l2 = show.num(math.expm1(4), 3), show.num(math.expm1(2), 3)
    ex_b1, ex_b2 = (
        show.num(hm.theorem21_bound(4, 1, "summary"), 3),
        show.num(hm.theorem21_bound(4, 2, "summary"), 3),
    )
    assert hm.scalar_optimum(4, 1) > hm.theorem21_bound(4, 1, "summary") and hm.scalar_optimum(
        4, 2
    ) < hm.theorem21_bound(4, 2, "summary")
    l_w, tau_w = 4, 0.5
    for name, Sig in (("I", np.eye(3)), ("D/100", 0.01 * D)):
        A_w = hm.random_ball_point(l_w, 3, tau_w, rng, "shrink")
        v = np.linalg.eigh(Sig)[1][:, 0]
        s_w = hm.gradient_bound_sides(A_w, hm.residual_product(A_w) - np.outer(rng.standard_normal(3), v), Sig, tau_w)
        predicted = (1 - tau_w) ** (l_w - 1) / np.linalg.eigvalsh(Sig)[0]
        assert math.isclose(s_w["lhs"] / s_w["printed"], predicted, rel_tol=1e-9)
        if name == "I":
            whiten_I = show.num(predicted, 3)
        else:
            whiten_small = show.num(predicted, 3)
    return show.Facts(
        ex_b1=ex_b1,
        ex_b2=ex_b2,
        ex_l1=ex_l1,
        ex_l2=ex_l2,
        whiten_I=whiten_I,
        whiten_small=whiten_small,
    )


def survey_facts(D, Sigmas, rng) -> show.Facts:
    """Eq. (2.3) corrected, at the points an adversarial search stops, against the printed form and the
    exponent-only repair, each beside its infimum (attained at the extremal point)."""
    adv = hm.adversarial_survey({k: Sigmas[k] for k in ("100 D", "ill-conditioned")})
    expo = hm.adversarial_gradient_ratio(4, 3, 0.5, Sigmas["100 D"], form="exponent_only", steps=150)
    printed = hm.adversarial_gradient_ratio(4, 3, 0.5, np.eye(3), form="printed", steps=150)
    A_ext = hm.random_ball_point(4, 3, 0.5, rng, "shrink")
    ext = hm.gradient_bound_sides(
        A_ext, hm.residual_product(A_ext) - np.outer(rng.standard_normal(3), [1.0, 0, 0]), 100 * D, 0.5
    )
    assert adv.ratio.min() >= 1 - 1e-12 and expo["ratio"] < 1 and printed["ratio"] < 1
    n_adv, adv_excess = show.count(len(adv)), show.num(adv.ratio.min() - 1)
    far = adv.loc[adv.ratio.idxmax()]
    ext_dev = show.num(abs(ext["lhs"] / ext["corrected"] - 1))
    expo_min, printed_min = show.num(expo["ratio"]), show.num(printed["ratio"], 3)
    ext_I = hm.gradient_bound_sides(
        A_ext,
        hm.residual_product(A_ext) - np.outer(rng.standard_normal(3), [1.0, 0, 0]),
        np.eye(3),
        0.5,
    )
    # the infimum of each ratio is attained at the extremal point: lhs = corrected there, and
    # corrected / printed and corrected / exponent_only are constants of (l, tau, Sigma)
    inf_printed, inf_expo = ext_I["lhs"] / ext_I["printed"], ext["lhs"] / ext["exponent_only"]
    assert math.isclose(inf_printed, 0.5**3, rel_tol=1e-9) and math.isclose(inf_expo, 1 / 50, rel_tol=1e-9)
    search_vs = pd.DataFrame(
        [
            dict(form="printed (2.3)", Sigma="I", search=printed["ratio"], infimum=inf_printed),
            dict(form="exponent-only repair", Sigma="100 D", search=expo["ratio"], infimum=inf_expo),
            dict(
                form="corrected, smallest of the searches",
                Sigma="100 D, ill-cond.",
                search=adv.ratio.min(),
                infimum=1.0,
            ),
            dict(
                form="corrected, the search that stops furthest",
                Sigma=str(far.Sigma),
                search=far.ratio,
                infimum=1.0,
            ),
        ]
    )
    search_vs["search / infimum"] = search_vs.search / search_vs.infimum
    miss = [printed["ratio"] / inf_printed - 1, expo["ratio"] / inf_expo - 1]
    assert min(miss) > 0
    miss_range = show.text(f"{show.pct(min(miss))} to {show.pct(max(miss))}")
    return show.Facts(
        adv_excess=adv_excess,
        expo_min=expo_min,
        ext_dev=ext_dev,
        miss_range=miss_range,
        n_adv=n_adv,
        printed_min=printed_min,
        search_vs=search_vs,
    )


def search_facts(rng) -> show.Facts:
    """The ratio ||grad f||^2 / (f - C_opt) near the edge of the ball, against the proof's bound."""
    A = hm.critical_point_at_tau_one(4, 3)
    R = hm.random_positive_det(3, rng)
    grad_max = np.abs(hm.risk_gradient(A, R, np.eye(3))).max()
    excess = hm.population_risk(A, R, np.eye(3)) - 3
    assert grad_max == 0 and excess > 0  # exactly zero: every partial derivative has a zero factor
    crit_excess = show.fixed(excess, 3)
    # the ratio ||grad f||^2 / (f - C_opt) near the edge of the ball, against the proof's bound
    Sig_small, tau_edge = np.diag([0.05, 1.0]), 0.899
    rows = []
    for l in (6, 7, 8):
        A_l = hm.random_ball_point(l, 2, tau_edge, rng, "shrink")
        R_l = hm.residual_product(A_l) - np.outer([1.0, 0.3], [1.0, 0.0])
        g2 = float((hm.risk_gradient(A_l, R_l, Sig_small) ** 2).sum())
        ex = hm.population_risk(A_l, R_l, Sig_small, noise=0.0)
        mu = hm.theorem22_rate(l, tau_edge, Sig_small)
        rows.append(
            dict(
                l=l,
                ratio=g2 / ex,
                bound=mu,
                ratio_over_bound=g2 / (ex * mu),
            )
        )
    thm22_rows = pd.DataFrame(rows)
    assert thm22_rows.loc[thm22_rows.ratio.idxmin(), "l"] == 8
    assert (thm22_rows.ratio_over_bound >= 1 - 1e-9).all()
    shown = thm22_rows.copy()
    for col in ("ratio", "bound", "ratio_over_bound"):
        shown[col] = [str(show.num(x, 3)) for x in shown[col]]
    shown = shown.rename(
        columns={
            "ratio": "||grad f||^2 / (f - C_opt)",
            "bound": "the bound 4l(1-tau)^(2l-2) sigma_min",
            "ratio_over_bound": "ratio / bound",
        }
    )
    thm22_small = show.num(thm22_rows.ratio.min())
    tau_edge_s, sig_small_s = show.num(tau_edge, 3), show.num(Sig_small[0, 0])
    return show.Facts(
        crit_excess=crit_excess,
        shown=shown,
        sig_small_s=sig_small_s,
        tau_edge_s=tau_edge_s,
        thm22_small=thm22_small,
    )


def key_figure_numbers_facts(key) -> show.Facts:
    """The key figure's R = diag(-1, 1): the smallest largest factor the numerical search found
    (never below 1)."""
    return show.Facts(key_search_best=show.fixed(key["search"].min(), 3))


def survey_numbers_facts(R_g4, ok, paper, paper_ratio, survey) -> show.Facts:
    """The Theorem 2.1 survey: how many constructions (and how many meet l >= 3 gamma), their worst
    product error and largest factor against the ICLR bound and the summary's constant, the paper's
    recipe against the ICLR bound, and the gamma = 4 curve at l = 2 against the ICLR constant."""
    n_constructions, n_hyp, n_paper = (
        show.count(len(survey)),
        show.count(len(ok)),
        show.count(len(paper)),
    )
    worst_prod = show.num(survey.product_error.max())
    paper_err = show.num(max(np.abs(hm.residual_product(A) - R).max() for R, l, A, i in paper))
    ratio_iclr = show.fixed((ok.norm / ok.bound_iclr).max(), 3)
    ratio_summary = show.fixed((ok.norm / ok.bound_summary).max(), 3)
    paper_gap = show.num(1 - paper_ratio)
    g4_scaled = 2 * hm.max_spectral_norm(hm.theorem21_construction(R_g4, 2)[0])
    g4_const = 2 * (math.sqrt(math.pi) + math.sqrt(3 * 4.0)) ** 2
    assert g4_scaled > g4_const
    g4_scaled_s, g4_const_s = show.fixed(g4_scaled, 1), show.fixed(g4_const, 1)
    return show.Facts(
        g4_const_s=g4_const_s,
        g4_scaled_s=g4_scaled_s,
        n_constructions=n_constructions,
        n_hyp=n_hyp,
        n_paper=n_paper,
        paper_err=paper_err,
        paper_gap=paper_gap,
        ratio_iclr=ratio_iclr,
        ratio_summary=ratio_summary,
        worst_prod=worst_prod,
    )


def gd_gaps_facts(L_min, runs) -> show.Facts:
    """Gradient descent after 300 steps: the largest gap to the optimum of a residual network
    started at 0, the smallest of a plain network started small, and the largest spectral norm of
    any residual layer along the way (below 1: the run stays in Theorem 2.2's ball)."""
    gaps = {key: float(run.losses[-1] - L_min) for key, run in runs.items()}
    paths = {
        l: max(float(torch.linalg.matrix_norm(W, ord=2).max()) for W in runs[("residual from 0", l)].snapshots.values())
        for l in (3, 6, 10)
    }
    assert max(paths.values()) < 1
    res_gap = show.num(max(v for (kind, _), v in gaps.items() if kind.startswith("res")))
    plain_gap = show.num(min(v for (kind, _), v in gaps.items() if kind.startswith("plain")), 3)
    path_max = show.fixed(max(paths.values()), 3)
    return show.Facts(
        path_max=path_max,
        plain_gap=plain_gap,
        res_gap=res_gap,
    )
