"""The numbers book/hardt_ma_linear.ipynb quotes (resnet_nb.book.facts.hardt_ma_linear): closed
forms where the facts are constants of the theorems, hand-made constructions and runs where they
read the chapter's results, and fabricated results where the package computation is slow (the
reflection runs, the adversarial searches, the det claim)."""

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import torch
from scipy.optimize import brentq

from resnet_nb.book.facts import hardt_ma_linear as facts
from resnet_nb.core.claims import Check
from resnet_nb.hardt_ma import linear as hm


def iclr(gamma, l):
    """Theorem 2.1's bound as the ICLR text prints it: 2 (sqrt(pi) + sqrt(3 gamma))^2 / l."""
    return 2 * (math.sqrt(math.pi) + math.sqrt(3 * gamma)) ** 2 / l


# -- gd_facts -------------------------------------------------------------------------------------


def _escape_table(zero_small_escaped=0, excess5=None):
    excess5 = hm.symmetric_excess(5, 0.3)[-1] if excess5 is None else excess5
    rows = []
    for l in (3, 4, 5, 6):
        rows.append(
            dict(l=l, start="A = 0", lr=0.05, runs=1, escaped=zero_small_escaped, excess=1.0 + l / 100, norm=0.5)
        )
        big = {3: (1, 1e-9, 2.25), 4: (0, 3.0, 1.5), 5: (0, excess5, 1.4), 6: (0, 2.5, 1.3)}[l]
        rows.append(dict(l=l, start="A = 0", lr=0.3, runs=1, escaped=big[0], excess=big[1], norm=big[2]))
        for lr in (0.05, 0.3):
            rows.append(dict(l=l, start="small random", lr=lr, runs=4, escaped=l - 3, excess=0.1, norm=0.9))
    return pd.DataFrame(rows)


def test_gd_stall_and_escape_numbers_come_from_the_reflection_runs(monkeypatch):
    monkeypatch.setattr(facts.hm, "reflection_escape_table", lambda *a, **k: _escape_table())
    f = facts.gd_facts()
    assert f.stall_excess == pytest.approx(1.03)  # the smallest excess from A = 0 at the small rate
    assert f.big_norm3 == pytest.approx(2.25)
    assert f.big_excess5 == pytest.approx(hm.symmetric_excess(5, 0.3)[-1])
    assert f.gd_small_s == pytest.approx(0.05) and f.gd_big_s == pytest.approx(0.3)
    assert f.n_eta == 100
    assert "2 of 4 at depth 5" in f.escape_text and "0 of 4 at depth 3" in f.escape_text


def test_gd_refuses_an_escape_from_zero_at_the_small_rate(monkeypatch):
    monkeypatch.setattr(facts.hm, "reflection_escape_table", lambda *a, **k: _escape_table(zero_small_escaped=1))
    with pytest.raises(AssertionError):
        facts.gd_facts()


def test_gd_refuses_a_depth_5_run_that_does_not_follow_the_symmetric_path(monkeypatch):
    monkeypatch.setattr(facts.hm, "reflection_escape_table", lambda *a, **k: _escape_table(excess5=0.5))
    with pytest.raises(AssertionError):
        facts.gd_facts()


# -- signs_facts ----------------------------------------------------------------------------------


def _paper(inflate=2.0, shrink_first=False):
    """Entries (R, l, A, info) whose A has a chosen largest factor norm: ``inflate`` times the
    sign-aligned norm for the first, equal to it for the second; the third has l < 3 gamma."""
    rng = np.random.default_rng(3)
    R1, R2 = hm.random_positive_det(3, rng, gamma=1.0), hm.random_positive_det(3, rng, gamma=0.5)
    R3 = hm.random_positive_det(3, rng, gamma=4.0)
    a1, a2 = hm.sign_aligned_recipe_norm(R1, 10), hm.sign_aligned_recipe_norm(R2, 10)
    scale1 = 0.5 if shrink_first else inflate

    def stack(norm, l):
        return np.stack([norm * np.eye(3)] * l)

    paper = [
        (R1, 10, stack(scale1 * a1, 10), {"gamma": 1.0}),
        (R2, 10, stack(a2, 10), {"gamma": 0.5}),
        (R3, 10, stack(1.0, 10), {"gamma": 4.0}),  # l = 10 < 12: outside the theorem
    ]
    ratio = max(a1 / iclr(1.0, 10), a2 / iclr(0.5, 10))
    return paper, ratio


def test_signs_counts_the_constructions_inflated_by_lapacks_signs():
    paper, ratio = _paper(inflate=2.0)
    f = facts.signs_facts(paper, ratio)
    assert f.n_pairs == 2  # the third entry has l < 3 gamma
    assert f.n_inflated == 1 and f.inflation_shown == pytest.approx(1.5)
    paper, ratio = _paper(inflate=1.2)
    assert facts.signs_facts(paper, ratio).n_inflated == 0


def test_signs_minus_identity_example_against_the_iclr_bound():
    paper, ratio = _paper()
    f = facts.signs_facts(paper, ratio)
    # R = -I, l = 10: rotations by pi/2 in q = 5 factors each, ||I - rotation by pi/10|| = 2 sin(pi/20)
    assert f.minus_I_10 == pytest.approx(20 * math.sin(math.pi / 20), abs=5e-4)
    assert f.iclr_10 == pytest.approx(10 * iclr(0.0, 10), abs=5e-4)  # 2 pi
    assert f.near_aligned < 0.5 * f.near_lapack


def test_signs_refuses_a_paper_ratio_other_than_the_worst_aligned_one():
    paper, ratio = _paper()
    with pytest.raises(AssertionError):
        facts.signs_facts(paper, ratio * 1.01)


def test_signs_refuses_a_recipe_norm_below_the_best_signs():
    paper, ratio = _paper(shrink_first=True)
    with pytest.raises(AssertionError):
        facts.signs_facts(paper, ratio)


# -- rounding_facts -------------------------------------------------------------------------------


def test_rounding_down_at_gamma_2_depth_6_gives_p_1_and_breaks_the_estimate():
    f = facts.rounding_facts()
    x0 = brentq(lambda x: math.expm1(x) - 3 * x, 0.5, 3)  # e^x - 1 = 3x
    assert f.x_3x == pytest.approx(x0, abs=5e-3)
    assert f.p_print_ex == pytest.approx(hm.p_printed(2, 6), abs=5e-3) and f.p_print_ex < 2
    assert f.p_floor_s == 1
    assert f.floor_ratio == pytest.approx(2.0) and f.floor_3x == pytest.approx(6.0)
    assert f.floor_est == pytest.approx(math.e**2 - 1, abs=5e-3)
    assert f.iclr_26 == pytest.approx(iclr(2, 6), abs=5e-3)
    assert f.floor_est > f.iclr_26


def test_rounding_up_keeps_gamma_over_p_below_the_root():
    f = facts.rounding_facts()
    x0 = brentq(lambda x: math.expm1(x) - 3 * x, 0.5, 3)
    assert 1 <= f.max_ratio_gap < x0
    assert 0 < f.worst_ceil_s < x0


# -- det_facts ------------------------------------------------------------------------------------


def _det_claims(excess3=4.5e-6, wrong=1e-6):
    def claim(falsify=False):
        if falsify:
            return Check("det falsifier", "x", wrong, 1e-3, "c", op=">=")
        parts = [Check("d = 2", "x", 1 - 2e-16, 1.0, "c", op=">="), Check("d = 3", "x", 1 + excess3, 1.0, "c", op=">=")]
        return Check("det", "x", 1, 0, "c", op=">=", parts=parts)

    return claim


def test_det_claim_numbers_and_the_constructions_for_minus_i_and_diag_minus_1_minus_2(monkeypatch):
    monkeypatch.setattr(facts.hm, "claim_theorem21_det", _det_claims())
    f = facts.det_facts(np.random.default_rng(0))
    assert f.det_excess2 == pytest.approx(2e-16, abs=1e-16)
    assert f.det_excess3 == pytest.approx(4.5e-6)
    assert f.det_wrong == pytest.approx(1e-6)
    assert f.pi_norm == pytest.approx(2 * math.sin(math.pi / 20))
    assert f.pi_err < 1e-12 and f.m2_err < 1e-10
    assert f.m2_bound == pytest.approx(iclr(math.log(2), 20))  # gamma of diag(-1, -2) is ln 2
    assert f.m2_norm < f.m2_bound
    assert 0 < f.smallest_det < 1  # inside the ball the determinant stays positive
    assert np.linalg.det(f.R_reflect) == pytest.approx(-1.0)


def test_det_refuses_a_claim_whose_d3_part_lands_below_the_bound(monkeypatch):
    monkeypatch.setattr(facts.hm, "claim_theorem21_det", _det_claims(excess3=-1e-3))
    with pytest.raises(AssertionError):
        facts.det_facts(np.random.default_rng(0))


# -- lemma24_facts --------------------------------------------------------------------------------


def test_lemma24_exercise_numbers_are_the_closed_forms():
    D = np.diag([0.5, 1.0, 2.0])
    f = facts.lemma24_facts(D, np.random.default_rng(0))
    assert f.ex_l1 == pytest.approx(math.exp(4) - 1) and f.ex_l2 == pytest.approx(math.exp(2) - 1)
    assert f.ex_b1 == pytest.approx(4 * math.pi + 12) and f.ex_b2 == pytest.approx((4 * math.pi + 12) / 2)
    # (1 - tau)^(l - 1) / sigma_min(Sigma) with l = 4, tau = 1/2
    assert f.whiten_I == pytest.approx(0.125)
    assert f.whiten_small == pytest.approx(0.125 / (0.01 * 0.5))


# -- survey_facts ---------------------------------------------------------------------------------

D = np.diag([0.5, 1.0, 2.0])
SIGMAS = {"100 D": 100 * D, "ill-conditioned": np.diag([1e-3, 1.0, 1e3])}


def _patch_survey(monkeypatch, adv_min=1.002, printed=0.15, expo=0.025):
    adv = pd.DataFrame({"Sigma": ["100 D", "ill-conditioned", "100 D"], "ratio": [adv_min, 3.5, 1.7]})
    monkeypatch.setattr(facts.hm, "adversarial_survey", lambda *_, **__: adv)

    def ratio(l, d, tau, Sigma, form, steps):
        return {"ratio": printed if form == "printed" else expo}

    monkeypatch.setattr(facts.hm, "adversarial_gradient_ratio", ratio)


def test_survey_searches_against_their_infima(monkeypatch):
    _patch_survey(monkeypatch)
    f = facts.survey_facts(D, SIGMAS, np.random.default_rng(0))
    assert f.n_adv == 3 and f.adv_excess == pytest.approx(0.002)
    assert f.printed_min == pytest.approx(0.15) and f.expo_min == pytest.approx(0.025)
    assert f.ext_dev < 1e-9  # the corrected form is attained at the extremal point
    # printed: 0.15 over its infimum 1/2^3 = 0.125 is 20% above; exponent-only: 0.025 over 1/50, 25%
    assert "20%" in f.miss_range and "25%" in f.miss_range
    t = f.search_vs.set_index("form")
    assert t.loc["printed (2.3)", "infimum"] == pytest.approx(0.125)
    assert t.loc["exponent-only repair", "infimum"] == pytest.approx(1 / 50)
    assert t.loc["corrected, the search that stops furthest", "search"] == pytest.approx(3.5)


def test_survey_refuses_a_corrected_ratio_below_1(monkeypatch):
    _patch_survey(monkeypatch, adv_min=0.99)
    with pytest.raises(AssertionError):
        facts.survey_facts(D, SIGMAS, np.random.default_rng(0))


def test_survey_refuses_a_printed_search_below_its_infimum(monkeypatch):
    _patch_survey(monkeypatch, printed=0.1)
    with pytest.raises(AssertionError):
        facts.survey_facts(D, SIGMAS, np.random.default_rng(0))


# -- search_facts ---------------------------------------------------------------------------------


def test_search_critical_point_excess_is_the_squared_norm_of_r():
    R = hm.random_positive_det(3, np.random.default_rng(5))  # the facts' first draw from the same seed
    f = facts.search_facts(np.random.default_rng(5))
    # two zero factors: the product is 0, so f - C_opt = ||R||_F^2 with Sigma = I
    assert f.crit_excess == pytest.approx(np.sum(R**2), abs=5e-4)


def test_search_ratio_near_the_edge_of_the_ball_meets_the_proofs_bound():
    f = facts.search_facts(np.random.default_rng(0))
    assert f.tau_edge_s == pytest.approx(0.899) and f.sig_small_s == pytest.approx(0.05)
    Sig = np.diag([0.05, 1.0])
    bound8 = 4 * 8 * (1 - 0.899) ** 14 * 0.05  # 4 l (1 - tau)^(2l - 2) sigma_min at l = 8
    assert hm.theorem22_rate(8, 0.899, Sig) == pytest.approx(bound8)
    assert f.thm22_small >= bound8 * (1 - 1e-9)
    assert list(f.shown["l"]) == [6, 7, 8]


# -- key_figure_numbers_facts ---------------------------------------------------------------------


def test_key_figure_search_best_is_the_smallest_search_result():
    f = facts.key_figure_numbers_facts({"search": np.array([1.3, 1.0472, 2.0])})
    assert f.key_search_best == pytest.approx(1.0472)


# -- survey_numbers_facts -------------------------------------------------------------------------


def _survey_inputs():
    survey = pd.DataFrame(
        {
            "product_error": [1e-15, 3e-14, 2e-15],
            "hypothesis": [True, True, False],
            "norm": [0.5, 0.9, 5.0],
            "bound_iclr": [1.0, 1.5, 1.0],
            "bound_summary": [2.0, 1.2, 1.0],
        }
    )
    ok = survey[survey.hypothesis]
    A0 = np.zeros((3, 2, 2))  # the product of I + 0 is I
    paper = [(np.eye(2) + 1e-13, 3, A0, {"gamma": 0.0}), (np.eye(2), 10, A0, {"gamma": 0.0})]
    R_g4 = hm.random_positive_det(4, np.random.default_rng(1), gamma=4.0)
    return R_g4, ok, paper, 0.8, survey


def test_survey_numbers_counts_errors_and_ratios():
    f = facts.survey_numbers_facts(*_survey_inputs())
    assert (f.n_constructions, f.n_hyp, f.n_paper) == (3, 2, 2)
    assert f.worst_prod == pytest.approx(3e-14)
    assert f.paper_err == pytest.approx(1e-13, rel=1e-2)
    assert f.ratio_iclr == pytest.approx(0.6) and f.ratio_summary == pytest.approx(0.75)
    assert f.paper_gap == pytest.approx(0.2)


def test_survey_numbers_gamma_4_at_two_layers_exceeds_the_iclr_constant():
    f = facts.survey_numbers_facts(*_survey_inputs())
    assert f.g4_const_s == pytest.approx(2 * (math.sqrt(math.pi) + math.sqrt(12)) ** 2, abs=0.05)
    assert f.g4_scaled_s > f.g4_const_s


def test_survey_numbers_refuse_a_gamma_4_matrix_within_the_constant():
    R_g4, ok, paper, ratio, survey = _survey_inputs()
    stretch = np.diag([math.exp(4.0), 1.0, 1.0, 1.0])  # gamma = 4 without a rotation: 2 (e^2 - 1) < 54.8
    with pytest.raises(AssertionError):
        facts.survey_numbers_facts(stretch, ok, paper, ratio, survey)


# -- gd_gaps_facts --------------------------------------------------------------------------------


def _runs(path_norm=0.6):
    runs = {}
    for l, res_loss, plain_loss in ((3, 1.001, 1.3), (6, 1.004, 1.2), (10, 1.002, 1.5)):
        layer = torch.diag(torch.tensor([path_norm * l / 10, 0.1, 0.0, 0.0], dtype=torch.float64))
        snaps = {0: torch.zeros(l, 4, 4, dtype=torch.float64), 300: torch.stack([layer] * l)}
        runs[("residual from 0", l)] = SimpleNamespace(losses=[2.0, res_loss], snapshots=snaps)
        runs[("plain from small", l)] = SimpleNamespace(losses=[2.0, plain_loss], snapshots={})
    return runs


def test_gd_gaps_are_the_worst_residual_and_best_plain_gaps_and_the_largest_layer_norm():
    f = facts.gd_gaps_facts(1.0, _runs(path_norm=0.6))
    assert f.res_gap == pytest.approx(0.004)
    assert f.plain_gap == pytest.approx(0.2)
    assert f.path_max == pytest.approx(0.6)  # depth 10's layers: 0.6 * 10 / 10


def test_gd_gaps_refuse_a_residual_run_that_leaves_the_ball():
    with pytest.raises(AssertionError):
        facts.gd_gaps_facts(1.0, _runs(path_norm=1.2))
