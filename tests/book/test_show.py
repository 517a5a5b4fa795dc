"""resnet_nb.book.show: the numbers of the prose, as the reader sees them."""

from __future__ import annotations

import pytest

from resnet_nb.book import show


def test_facts_give_each_named_value_and_its_text():
    f = show.Facts(loss=show.num(0.012345, 3), word=show.text("below"))
    assert repr(f.loss) == "0.0123" and f.loss == pytest.approx(0.012345)
    assert repr(f.word) == "below"
    assert "loss" in f and "lr" not in f
    assert dir(f) == ["loss", "word"]


def test_facts_name_what_they_carry_when_a_name_is_missing():
    f = show.Facts(loss=show.num(1.0))
    with pytest.raises(AttributeError, match="carry no 'lr'"):
        _ = f.lr


def test_facts_are_read_only_and_not_empty():
    f = show.Facts(loss=show.num(1.0))
    with pytest.raises(AttributeError, match="read-only"):
        f.loss = 2
    with pytest.raises(ValueError, match="at least one"):
        show.Facts()


def test_verdict_reads_the_ledger_claim_and_its_fragility():
    from types import SimpleNamespace

    def fn():
        return fn.result

    fn.claim = SimpleNamespace(verdict="holds in the book's reading")
    fn.result = SimpleNamespace(fragile=False)
    assert repr(show.verdict(fn)) == "holds in the book's reading"
    fn.result = SimpleNamespace(fragile=True)
    assert repr(show.verdict(fn)) == "holds in the book's reading, fragile"


def test_verdict_rejects_a_function_that_is_no_claim():
    with pytest.raises(TypeError, match="ledger claim"):
        show.verdict(print)


def test_x_of_n_writes_a_count_out_of_a_total_and_refuses_an_impossible_one():
    assert repr(show.x_of_n(3, 20)) == "3 of 20"
    assert repr(show.x_of_n(1000, 1000)) == "1000 of 1000"
    with pytest.raises(ValueError, match="k <= n"):
        show.x_of_n(5, 4)


def test_rise_factor_says_below_one_where_three_digits_would_round_up_to_one():
    assert show.rise_factor(0.9996) == "below 1"
    assert show.rise_factor(1.0) == "1"
    assert show.rise_factor(12.345) == "12.3"
    with pytest.raises(ValueError, match="NaN"):
        show.rise_factor(float("nan"))


def test_table_hides_the_index_rounds_and_writes_chosen_columns_in_scientific_notation():
    import pandas as pd

    df = pd.DataFrame({"a": [1.23456, None], "err": [1.5e-12, 2e-9]})
    import re

    html = show.table(df, precision=2, sci=["err"], na_rep="-").to_html()
    assert re.findall(r">([^<]+)</td>", html) == ["1.23", "1.5e-12", "-", "2.0e-09"]
    assert "row_heading" not in html  # no index column
    assert "row_heading" in df.style.to_html()
