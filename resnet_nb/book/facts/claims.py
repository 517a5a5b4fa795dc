"""The numbers the prose of book/claims.ipynb quotes, section by section: each function
selects them from the chapter's results and formats them as the page shows them."""

from __future__ import annotations

from resnet_nb.book import ledger, show

__all__ = ["ledger_facts"]


def ledger_facts(table) -> show.Facts:
    """The ledger's totals: claims checked, checks passed, falsifiers rejected, falsifier kinds, time."""
    n_claims = show.count(len(table))
    n_passed = show.count(table.passed.sum())
    n_rejected = show.count(table.falsifier_rejected.sum())
    kinds = ledger.falsifier_kind_counts(table).set_index("falsifier kind")
    n_plausible = show.count(kinds.claims["plausible false statement"])
    n_regression_fal = show.count(kinds.claims["regression test"])
    n_implied_kind = show.count(kinds.claims["implied by the check"])
    n_unlabelled = show.count(kinds.claims["unlabelled"])
    n_conflict = show.count(kinds["declared kind in conflict with the numbers"].sum())
    run_seconds = show.num(table.seconds.sum(), 2)
    return show.Facts(
        n_claims=n_claims,
        n_conflict=n_conflict,
        n_implied_kind=n_implied_kind,
        n_passed=n_passed,
        n_plausible=n_plausible,
        n_regression_fal=n_regression_fal,
        n_rejected=n_rejected,
        n_unlabelled=n_unlabelled,
        run_seconds=run_seconds,
    )
