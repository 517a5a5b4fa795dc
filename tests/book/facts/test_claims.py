"""The totals book/claims.ipynb quotes (resnet_nb.book.facts.claims), on a hand-made ledger table."""

import pandas as pd
import pytest

from resnet_nb.book.facts import claims as facts
from resnet_nb.core.claims import IMPLIED, PLAUSIBLE, REGRESSION, UNLABELLED


def _table():
    kinds = [PLAUSIBLE, PLAUSIBLE, PLAUSIBLE, REGRESSION, IMPLIED, IMPLIED, UNLABELLED]
    return pd.DataFrame(
        {
            "passed": [True, True, True, True, True, False, True],
            "falsifier_rejected": [True, True, False, True, True, True, False],
            "seconds": [0.5, 1.25, 0.25, 2.0, 0.5, 0.25, 0.25],
            "falsifier_kind_shown": kinds,
            "falsifier_conflict": ["", "declared ...", "", "", "", "", ""],
        }
    )


def test_ledger_totals_count_claims_passes_rejections_and_time():
    f = facts.ledger_facts(_table())
    assert f.n_claims == 7
    assert f.n_passed == 6
    assert f.n_rejected == 5
    assert f.run_seconds == pytest.approx(5.0)


def test_ledger_totals_count_each_falsifier_kind_and_the_conflicts():
    f = facts.ledger_facts(_table())
    assert (f.n_plausible, f.n_regression_fal, f.n_implied_kind, f.n_unlabelled) == (3, 1, 2, 1)
    assert f.n_conflict == 1


def test_ledger_totals_show_zero_for_a_kind_no_claim_has():
    t = _table()
    t["falsifier_kind_shown"] = PLAUSIBLE
    f = facts.ledger_facts(t)
    assert f.n_plausible == 7 and f.n_regression_fal == 0 and f.n_unlabelled == 0
