"""The numbers book/notation.ipynb quotes (resnet_nb.book.facts.notation), on hand-made inputs."""

import numpy as np
import pandas as pd
import pytest

from resnet_nb.book.facts import notation as facts


def _span(dev=(0.05, 0.1, 0.2, 0.4)):
    return pd.DataFrame(
        {
            "depth": [8, 16, 32, 64],
            "smallest": [0.95, 0.9, 0.8, 0.6],
            "largest": [1.05, 1.1, 1.2, 1.4],
            "largest |sigma - 1|": list(dev),
        }
    )


def test_depth_spread_is_the_depth_64_range_and_the_growth_of_the_deviation_from_16_to_64():
    f = facts.depth_spread_facts(_span(dev=(0.05, 0.1, 0.2, 0.45)))
    assert f.span_lo == pytest.approx(0.6) and f.span_hi == pytest.approx(1.4)
    assert f.dev_growth == pytest.approx(0.45 / 0.1)


def test_depth_spread_refuses_a_deviation_that_shrinks_with_depth():
    with pytest.raises(AssertionError):
        facts.depth_spread_facts(_span(dev=(0.05, 0.1, 0.3, 0.2)))


def _convention(scale_neg=(1.10, 1.08, 1.05), cond_neg=None):
    # singular values of I - Syx under both conventions, largest first
    sv = np.array([2.0, 1.5, 1.0])
    svs = {"svd_flip": sv, "negative diagonal": sv * np.array(scale_neg)}
    conds = {"svd_flip": 2.0, "negative diagonal": 2.0 * 1.01 if cond_neg is None else cond_neg}
    rng = np.random.default_rng(0)
    Syx = rng.standard_normal((4, 4))
    flipped = Syx * np.array([1.0, -1.0, 1.0, -1.0])  # a sign flip of the inputs (columns)
    return Syx, conds, flipped, svs


def test_convention_moves_are_the_relative_changes_of_the_singular_values_and_the_condition_number():
    f = facts.convention_facts(*_convention())
    assert f.cond_svd == pytest.approx(2.0) and f.cond_neg == pytest.approx(2.02)
    assert f.sv_move_lo == pytest.approx(0.05) and f.sv_move_hi == pytest.approx(0.10)
    assert f.cond_move == pytest.approx(0.01)
    last = f.conv_table.iloc[-1]  # the table's last row: the relative changes
    assert last["largest"] == pytest.approx(0.10) and last["smallest"] == pytest.approx(0.05)
    assert last["condition number"] == pytest.approx(0.01)


def test_convention_cond_move_is_a_magnitude_when_the_condition_number_falls():
    f = facts.convention_facts(*_convention(cond_neg=2.0 * 0.98))
    assert f.cond_move == pytest.approx(0.02)


def test_convention_refuses_a_flip_that_changes_syx_singular_values():
    Syx, conds, _, svs = _convention()
    not_a_flip = Syx.copy()
    not_a_flip[0, 0] += 1.0
    with pytest.raises(AssertionError):
        facts.convention_facts(Syx, conds, not_a_flip, svs)


def test_convention_refuses_a_condition_number_that_moves_more_than_the_singular_values():
    with pytest.raises(AssertionError):
        facts.convention_facts(*_convention(cond_neg=2.0 * 1.2))


def test_convention_refuses_singular_values_that_barely_move():
    with pytest.raises(AssertionError):
        facts.convention_facts(*_convention(scale_neg=(1.03, 1.02, 1.01)))
