"""The numbers book/li_limitations.ipynb quotes (resnet_nb.book.facts.li_limitations), on
hand-made tables; the package computations the facts call (critical points, product table, the
2-shortcut start) are replaced by fabricated results of the same form."""

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from resnet_nb.book.facts import li_limitations as facts
from resnet_nb.li import limitations as lim

# -- products_facts -------------------------------------------------------------------------------


def _crit(index_2=0.25, zero_full=12, index_none=0.5):
    # d = 2, R = 2, n = 2: d^2 = 4 symmetry directions, (R - 1) n d^2 = 8 more from the idle unit
    df = pd.DataFrame(
        {
            "kept": ["1,2", "1", "2", "none"],
            "rank": [2, 1, 1, 0],
            "loss": [0.1, 0.5, 0.6, 1.0],
            "index": [0.0, 0.3, index_2, index_none],
            "negative": [0, 3, 2, 5],
            "zero": [zero_full, 2, 2, 0],
        }
    )
    df.attrs.update(net=SimpleNamespace(d=2, R=2, n=2))
    return df


def _patch_crit(monkeypatch, crit):
    monkeypatch.setattr(facts.lim, "critical_points", lambda R: crit)


def test_products_rank_correlation_and_the_widest_discordant_pair(monkeypatch):
    _patch_crit(monkeypatch, _crit())
    f = facts.products_facts()
    # ranks of the index in loss order: 1, 3, 2, 4; Spearman: 1 - 6 * 2 / (4 * 15)
    assert f.spearman_rho == pytest.approx(0.8)
    assert -1 <= f.spearman_thr <= 1
    assert f.n_crit == 4 and f.n_discordant == 1
    assert "not strictly" in f.strict
    assert f.top_index == pytest.approx(0.5)
    assert f.by_rank == "ordered"
    assert (f.low_kept, f.high_kept) == ("1", "2")
    assert f.low_loss == pytest.approx(0.5) and f.high_loss == pytest.approx(0.6)
    assert f.low_index == pytest.approx(0.3) and f.high_index == pytest.approx(0.25)


def test_products_zero_eigenvalue_counts_match_the_symmetry_and_idle_units(monkeypatch):
    _patch_crit(monkeypatch, _crit())
    f = facts.products_facts()
    assert f.zeros_full == 12 and f.zeros_none == 0
    assert f.zeros_sym == 4 and f.zeros_idle == 8


def test_products_refuses_a_full_fit_with_an_unexplained_zero_count(monkeypatch):
    _patch_crit(monkeypatch, _crit(zero_full=10))
    with pytest.raises(AssertionError):
        facts.products_facts()


def test_products_refuses_an_index_not_ordered_by_rank(monkeypatch):
    _patch_crit(monkeypatch, _crit(index_none=0.28))  # the all-zero point below a rank-1 point
    with pytest.raises(AssertionError):
        facts.products_facts()


def test_products_refuses_points_without_a_discordant_pair(monkeypatch):
    """The prose quotes the widest pair with the larger index at the smaller loss; without one,
    the function says the section no longer describes the points instead of inventing a pair."""
    _patch_crit(monkeypatch, _crit(index_2=0.35))  # index now increases with the loss
    with pytest.raises(ValueError, match="strictly increasing"):
        facts.products_facts()


# -- fixup_facts ----------------------------------------------------------------------------------


def _fixup(R_units=4, scaled_offset=0.01, se=0.02):
    g = lim.predicted_gain(2, "he")
    scaled_pred = (1 + (g - 1) / R_units) ** R_units
    profiles = {
        "He, linear": np.array([1.0, g, g**R_units * 1.05]),
        "He, branches / √R": np.array([1.0, 1.5, scaled_pred + scaled_offset]),
        "zero": np.array([1.0, 1.0, 1.0]),
    }
    errors = {"He, branches / √R": np.array([0.0, 0.01, se])}
    gains = pd.DataFrame(
        {
            "n": [2, 2, 3],
            "init": ["he", "he", "he"],
            "pre": ["identity", "relu", "relu"],
            "measured g": [1.9, 1.45, 9.0],
            "std. error": [0.01, 0.02, 0.1],
            "predicted g": [2.0, 1.5, 8.0],
            "symmetric inputs": [2.0, 1.75, 8.0],
        }
    )
    return R_units, errors, gains, profiles, g, scaled_pred


def test_fixup_growth_of_he_against_g_to_the_number_of_units():
    R_units, errors, gains, profiles, g, _ = _fixup()
    f = facts.fixup_facts(R_units, errors, gains, profiles)
    assert f.he_g == pytest.approx(g)
    assert f.he_growth == pytest.approx(g**4 * 1.05)
    assert f.he_growth_pred == pytest.approx(g**4)
    assert f.zero_end == pytest.approx(1.0)


def test_fixup_scaled_branches_against_their_exact_product_and_bound():
    R_units, errors, gains, profiles, g, pred = _fixup(scaled_offset=0.01, se=0.02)
    f = facts.fixup_facts(R_units, errors, gains, profiles)
    assert f.scaled_end == pytest.approx(pred + 0.01)
    assert f.scaled_exact == pytest.approx(pred)
    assert f.scaled_err == pytest.approx(0.02)
    assert f.scaled_bound == pytest.approx(math.exp(g - 1))


def test_fixup_pre_relu_gain_is_the_n2_he_relu_row():
    R_units, errors, gains, profiles, _, _ = _fixup()
    f = facts.fixup_facts(R_units, errors, gains, profiles)
    assert f.pre_meas == pytest.approx(1.45) and f.pre_se == pytest.approx(0.02)
    assert f.pre_pred == pytest.approx(1.5) and f.pre_sym == pytest.approx(1.75)


def test_fixup_refuses_a_scaled_product_more_than_four_errors_from_its_prediction():
    R_units, errors, gains, profiles, _, _ = _fixup(scaled_offset=0.1, se=0.02)
    with pytest.raises(AssertionError):
        facts.fixup_facts(R_units, errors, gains, profiles)


# -- variance_facts -------------------------------------------------------------------------------


def _products(std_log=(0.1, 0.3, 0.9, 2.8), max_log_top=0.5):
    return pd.DataFrame(
        {
            "L": [10, 100, 1000, 10000],
            "c/L: max |log|": [0.4, 0.45, 0.48, max_log_top],
            "c/L: bound": [1.0, 1.0, 1.0, 1.0],
            "a: std log": list(std_log),
            "a: median prod": [0.9, 0.5, 1e-3, 2.5e-9],
            "a: √L atanh a": [0.64, 2.03, 6.4, 20.27],
            "c/√L: std log": [0.9, 0.95, 0.98, 0.99],
            "c/√L: predicted": [1.0, 1.0, 1.0, 1.0],
        }
    )


def test_variance_numbers_are_the_deepest_row_of_the_product_table(monkeypatch):
    monkeypatch.setattr(facts.lim, "product_table", lambda: _products())
    f = facts.variance_facts()
    assert f.prod_c == pytest.approx(lim.PRODUCT_C) and f.prod_a == pytest.approx(lim.PRODUCT_A)
    assert f.L_top == lim.PRODUCT_DEPTHS[-1] and f.n_draws == lim.PRODUCT_DRAWS
    assert f.fixed_median == pytest.approx(2.5e-9)
    assert f.fixed_std == pytest.approx(2.8) and f.fixed_pred == pytest.approx(20.27)
    assert f.sqrt_std == pytest.approx(0.99) and f.sqrt_pred == pytest.approx(1.0)
    assert f.shrink_max == pytest.approx(0.5)


def test_variance_refuses_a_shrunk_product_beyond_its_bound(monkeypatch):
    monkeypatch.setattr(facts.lim, "product_table", lambda: _products(max_log_top=1.2))
    with pytest.raises(AssertionError):
        facts.variance_facts()


def test_variance_refuses_a_spread_that_does_not_grow_with_depth(monkeypatch):
    monkeypatch.setattr(facts.lim, "product_table", lambda: _products(std_log=(0.1, 0.3, 0.9, 0.8)))
    with pytest.raises(AssertionError):
        facts.variance_facts()


# -- opening_facts --------------------------------------------------------------------------------


def _start(P, k, zeros, zero_max_H=0.0, lead_max=0.0):
    net = SimpleNamespace(num_params=P, describe=lambda: "a 3-shortcut network")
    return dict(
        net=net,
        grad_norm=0.123,
        max_H=4.5,
        negative=k,
        positive=k,
        eigs=np.zeros(2 * k + zeros),
        lead_block=P - k,
        rank_B=k,
        cols_B=k,
        lead_max=lead_max,
        zero_grad_norm=0.0,
        zero_max_H=zero_max_H,
    )


def _patch_n2(monkeypatch, zeros=0):
    n2 = _start(40, 20, zeros)
    n2["grad_norm"] = 0.0456
    monkeypatch.setattr(facts.lim, "fixup_point", lambda n, R: n2)


def test_opening_fixup_start_has_inertia_k_k_and_p_minus_2k_zeros(monkeypatch):
    _patch_n2(monkeypatch)
    f = facts.opening_facts(_start(300, 10, 280))
    assert f.fixup_desc == "a 3-shortcut network"
    assert f.fixup_grad == pytest.approx(0.123) and f.fixup_maxH == pytest.approx(4.5)
    assert (f.fixup_neg, f.fixup_pos, f.fixup_rankB) == (10, 10, 10)
    assert f.fixup_zero_eigs == 280 and f.fixup_block == 290
    assert (f.p_count, f.two_k, f.p_minus_k) == (300, 20, 290)
    assert f.zero_grad == 0 and f.zero_maxH == 0


def test_opening_two_shortcut_start_has_no_zero_eigenvalue(monkeypatch):
    _patch_n2(monkeypatch)
    f = facts.opening_facts(_start(300, 10, 280))
    assert (f.n2_neg, f.n2_pos, f.n2_zero) == (20, 20, 0)
    assert f.n2_grad == pytest.approx(0.0456)


def test_opening_refuses_a_zero_count_other_than_p_minus_2k(monkeypatch):
    _patch_n2(monkeypatch)
    with pytest.raises(AssertionError):
        facts.opening_facts(_start(300, 10, 270))  # the eigenvalues do not add up to P


def test_opening_refuses_a_nonzero_hessian_at_the_zero_point(monkeypatch):
    _patch_n2(monkeypatch)
    with pytest.raises(AssertionError):
        facts.opening_facts(_start(300, 10, 280, zero_max_H=1e-3))


def test_opening_refuses_a_two_shortcut_start_with_zero_eigenvalues(monkeypatch):
    _patch_n2(monkeypatch, zeros=4)
    with pytest.raises(AssertionError):
        facts.opening_facts(_start(300, 10, 280))
