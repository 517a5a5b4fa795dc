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
