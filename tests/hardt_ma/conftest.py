"""Fixtures shared by the tests of Hardt & Ma (resnet_nb.hardt_ma)."""

import pytest


@pytest.fixture
def check_claim():
    """Run the ledger claim ``cid``: its check must pass and its falsifier be rejected on its value.
    Returns the claim."""
    from resnet_nb.book import ledger

    def run(cid):
        c = ledger.all_claims()[cid]
        assert c.check(falsify=False).require().passed
        assert c.check(falsify=True).rejected_on_value
        return c

    return run
