"""The prose numbers of book/exp_learning.ipynb (resnet_nb.book.facts.exp_learning)."""

import pandas as pd
import pytest

from resnet_nb.book.facts import exp_learning as facts


def test_he_against_xavier_text_lists_each_depth_with_its_spread():
    hx = pd.DataFrame(dict(he=[0.5, 0.25], xavier=[0.4, 0.3], spread=[0.01, 0.02]), index=[2, 4])
    text = facts.he_against_xavier_text(hx, [2, 4])
    assert repr(text) == "0.500 against 0.400 at depth 2 (spread 0.010); 0.250 against 0.300 at depth 4 (spread 0.020)"
    with pytest.raises(ValueError, match="depths"):
        facts.he_against_xavier_text(hx, [8])
