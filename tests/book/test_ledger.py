"""The claims ledger: every claim declared completely, passes its check and has its falsifier
rejected on the comparison itself; the summaries and the HTML the ledger page shows; the quotes
and the prose numbers (show)."""

import math

import pandas as pd
import pytest

from resnet_nb.book import ledger, show
from resnet_nb.core import claims
from resnet_nb.core.claims import Check, all_of

CLAIMS = ledger.all_claims()


IDS = sorted(CLAIMS)


# ---------------------------------------------------------------------------- every claim
# Running every check and falsifier is `slow`: `make test` runs them on the claims page
# (book/claims.ipynb, `ledger.require_all`), which the book build and nbval both execute and
# which fails on a failed check, a vacuous one or an accepted falsifier. `make test-slow` (or
# `pytest -m slow`) runs them here, one test per claim.
@pytest.mark.parametrize("cid", IDS)
def test_claim_is_declared_completely(cid):
    c = CLAIMS[cid]
    assert c.source.strip() and c.statement.strip() and c.falsifier.strip()
    assert c.verdict in claims.VERDICTS and c.kind in claims.KINDS
    if c.verdict == "fails as printed":
        assert c.printed.strip()


@pytest.mark.slow
@pytest.mark.parametrize("cid", IDS)
def test_claim_check_passes_and_is_not_vacuous(cid):
    res = CLAIMS[cid].check(falsify=False)
    assert isinstance(res, Check)
    assert not res.vacuous, f"{cid}: the compared part is trivial\n{res}"
    assert res.passed, f"{cid}: the check failed\n{res}"


@pytest.mark.slow
@pytest.mark.parametrize("cid", IDS)
def test_claim_falsifier_is_rejected_on_its_comparison(cid):
    res = CLAIMS[cid].check(falsify=True)
    assert isinstance(res, Check)
    assert res.rejected_on_value, f"{cid}: the falsifier was not rejected on its value\n{res}"


def test_ledger_has_the_core_claims():
    assert {"core-loss-statistics", "li-eq15-16-optimum"} <= set(IDS)


def test_require_all_reports_failures_and_accepted_falsifiers(monkeypatch):
    @claims.claim("test-only-bad", source="nowhere", statement="s", verdict="holds", falsifier="f")
    def bad(falsify=False):
        return Check("x", "v", 0.0, 1.0, "c")  # the falsifier passes too: not rejected

    try:
        df = ledger.run_all(ids=["test-only-bad"], progress=False)
        assert df.passed.all() and not df.falsifier_rejected.any()
        with pytest.raises(claims.LedgerError, match="not rejected"):
            ledger.require_all(df)
        assert "NOT rejected" in ledger.ledger_html(df)
    finally:
        claims.LEDGER.pop("test-only-bad")
    with pytest.raises(ValueError, match="unknown claim"):
        ledger.run_all(ids=["no-such-claim"], progress=False)


def test_require_all_refuses_unlabelled_and_contradicted_falsifier_kinds():
    def make(kind, implied):
        # implied: the falsifier states the check's comparison from the other side (gap <= spread
        # against gap >= spread), so any passing check rejects it; otherwise a different value
        @claims.claim(
            "test-only-kind",
            source="nowhere",
            statement="s",
            verdict="holds",
            falsifier="another statement",
            falsifier_kind=kind,
        )
        def fn(falsify=False):
            if falsify:
                return (
                    Check("g", "gap", 0.4, 1.0, "spread", op=">=") if implied else Check("g", "gap", 2.0, 1.0, "spread")
                )
            return Check("g", "gap", 0.4, 1.0, "spread")

    cases = (
        ("", False, "has no kind"),
        ("plausible false statement", True, "implied by the check"),
        ("plausible false statement", False, None),
        ("implied by the check", True, None),
    )
    for kind, implied, message in cases:
        make(kind, implied)
        try:
            df = ledger.run_all(ids=["test-only-kind"], progress=False)
            assert df.passed.all() and df.falsifier_rejected.all()
            if message is None:
                ledger.require_all(df)
            else:
                with pytest.raises(claims.LedgerError, match=message):
                    ledger.require_all(df)
        finally:
            claims.LEDGER.pop("test-only-kind")


def test_verdict_summary_counts():
    df = pd.DataFrame(
        dict(
            verdict=["holds", "holds", "reproduced", "reproduced"],
            passed=[True] * 4,
            falsifier_rejected=[True, False, True, True],
            kind=["claim"] * 3 + ["regression"],
            falsifier=["f"] * 4,
            fragile=[False, False, True, False],
            falsifier_kind=["plausible false statement", "", "", ""],
            falsifier_mirrored=[False, False, True, False],
        )
    )
    s = ledger.verdict_summary(df)
    assert s.verdict.tolist() == ["holds", "reproduced", "reproduced (fragile)", "all claims"]
    assert s.claims.tolist() == [2, 1, 1, 4] and s["falsifier rejected"].tolist() == [1, 1, 1, 3]
    assert s["implied by the check"].tolist() == [0, 0, 1, 1]
    assert s["regression test"].tolist() == [0, 1, 0, 1]
    assert s["plausible false statement"].tolist() == [1, 0, 0, 1] and s["unlabelled"].tolist() == [1, 0, 0, 1]
    h = ledger.verdict_summary_html(s)
    assert "falsifiers by kind" in h and "all claims" in h and h.count("<tr") == 2 + len(s)


def _ledger_of(check, fal, **kw):
    kw.setdefault("falsifier", "the ordering reversed")

    @claims.claim("test-only-shown", source="nowhere", statement="s", verdict="reproduced", **kw)
    def fn(falsify=False):
        return fal if falsify else check

    try:
        return ledger.run_all(ids=["test-only-shown"], progress=False)
    finally:
        claims.LEDGER.pop("test-only-shown")


def test_ledger_shows_fragile_verdict_and_reversed_falsifier():
    chk = Check("a below b", "max (a - b)", -0.1, 0.0, "strict (tolerance 0)", spread=0.5)
    df = _ledger_of(chk, Check("b below a", "max (b - a)", 0.1, 0.0, "strict (tolerance 0)"))
    assert df.fragile[0] and df.falsifier_mirrored[0] and df.falsifier_implied[0]
    h = ledger.ledger_html(df)
    assert "id='claim-test-only-shown'" in h  # each entry is a link target (claims.html#claim-<id>)
    assert "reproduced</i> <b style='color:#9a6700'>(fragile: margin below the run-to-run spread)" in h
    assert "implied by the check" in h and "adds no evidence" in h
    assert claims.effective_verdict("reproduced", True) == "reproduced (fragile: margin below the run-to-run spread)"
    rules = ledger.tolerance_rules(df)
    assert rules.rule.tolist() == ["strict ordering (tolerance 0)"] and rules.fragile.tolist() == [True]
    assert "fragile" in ledger.tolerance_rules_html(rules)
    # declared by the author, without a mirrored comparison; and a robust, real falsifier
    df = _ledger_of(Check("x", "v", 0.0, 1.0, "c"), Check("x", "v", 2.0, 1.0, "c"), falsifier_kind="reversed ordering")
    assert df.falsifier_mirrored[0] and not df.falsifier_implied[0] and not df.fragile[0]
    assert df.falsifier_kind[0] == "implied by the check"  # the legacy value, read as the new one
    assert "adds no evidence" not in ledger.ledger_html(df)
    df = _ledger_of(
        Check("x", "v", 0.0, 1.0, "c", spread=0.1), Check("x", "w", 2.0, 1.0, "c"), falsifier="a different statement"
    )
    h = ledger.ledger_html(df)
    assert not df.falsifier_mirrored[0] and "implied by the check" not in h and "fragile:" not in h
    assert df.falsifier_kind_shown[0] == "unlabelled" and "unlabelled" in h
    assert ledger.tolerance_rules(df).rule.tolist() == ["tolerance from its criterion"]


def test_falsifier_kinds_declared_inferred_and_in_conflict():
    kind_of = claims.falsifier_kind_of
    assert kind_of("plausible false statement", "claim", "f", False) == "plausible false statement"
    assert kind_of("reversed ordering", "claim", "f", False) == "implied by the check"
    assert kind_of("", "regression", "corrupted input", False) == "regression test"
    assert kind_of("", "claim", "the ordering reversed", False) == "implied by the check"
    assert kind_of("", "claim", "f", True) == "implied by the check"
    assert kind_of("", "claim", "f", False) == "unlabelled"
    assert claims.falsifier_conflict("plausible false statement", True)
    assert not claims.falsifier_conflict("plausible false statement", False)
    assert not claims.falsifier_conflict("implied by the check", True)
    # a declared plausible false statement that any passing check rejects: the ledger says so
    chk = Check("within", "|gap|", 0.006, 0.03, "spread")
    df = _ledger_of(
        chk,
        Check("better", "gap", 0.006, 0.03, "spread", op=">="),
        falsifier="the small init is better",
        falsifier_kind="plausible false statement",
    )
    assert df.falsifier_implied[0] and df.falsifier_kind_shown[0] == "plausible false statement"
    assert "conflict" in ledger.ledger_html(df) and df.falsifier_conflict[0]
    counts = ledger.falsifier_kind_counts(df).set_index("falsifier kind")
    assert counts.index.tolist() == [
        "plausible false statement",
        "regression test",
        "implied by the check",
        "unlabelled",
    ]
    assert counts.claims.tolist() == [1, 0, 0, 0]
    assert counts["declared kind in conflict with the numbers"].tolist() == [1, 0, 0, 0]


@pytest.mark.parametrize("cid", IDS)
def test_every_claim_labels_its_falsifier(cid):
    c = CLAIMS[cid]
    assert c.falsifier_kind in claims.FALSIFIER_KINDS, f"{cid}: declare falsifier_kind= explicitly"
    shown = claims.falsifier_kind_of(c.falsifier_kind, c.kind, c.falsifier, False)
    assert shown != claims.UNLABELLED, f"{cid}: set falsifier_kind= to one of {claims.FALSIFIER_KINDS}"


# ---------------------------------------------------------------------------- quotes
def test_quotes_are_read_and_checked(tmp_path):
    (tmp_path / "ch.yml").write_text('- value: "0.182"\n  source: "Li et al., Table 1"\n  context: "c"\n')
    q = ledger.load_quotes(tmp_path)
    assert q.to_dict("records") == [dict(chapter="ch", value="0.182", source="Li et al., Table 1", context="c")]
    (tmp_path / "bad.yml").write_text('- value: "0.1"\n  context: "no source"\n')
    with pytest.raises(ValueError, match=r"\bsource\b"):
        ledger.load_quotes(tmp_path)
    (tmp_path / "bad.yml").write_text('- value: 0.10\n  source: "s"\n  context: "unquoted"\n')
    with pytest.raises(ValueError, match="quoted string"):
        ledger.load_quotes(tmp_path)


def test_committed_quotes_are_well_formed():
    ledger.load_quotes()


def test_show_formats():
    assert repr(show.num(2.7e-12)) == "2.7e-12"
    assert repr(show.num(0.25)) == "0.25"
    assert repr(show.num(1234, 2)) == "1,200"
    assert repr(show.num(0)) == "0"
    assert repr(show.sci(2.7e-12)) == "2.7 \u00d7 10\u207b\u00b9\u00b2"
    assert repr(show.pct(0.254)) == "25%"
    assert repr(show.fixed(1.5195, 3)) == "1.520"
    assert repr(show.count(14210)) == "14,210"
    assert repr(show.text("larger")) == "larger"
    assert float(show.num(0.25)) == 0.25 and f"{show.num(0.25)}" == "0.25"


def test_show_refuses_nan_and_non_integers():
    with pytest.raises(ValueError):
        show.num(math.nan)
    with pytest.raises(ValueError):
        show.count(1.5)


def test_check_renders_compact_html_with_verdict_first():
    c = Check("Eq. 11", "max |H - H11|", 1e-15, 1e-12, "100 P eps |H|", nontrivial=2.0)
    h = ledger.check_html(c)
    assert h.index("holds") < h.index("Eq. 11") and "overflow-wrap" in h
    assert all(len(line) <= 90 for line in str(c).splitlines())
    # one line that opens: <details> closed, its <summary> the verdict, the statement, the margin
    assert h.startswith("<details") and " open" not in h.split(">", 1)[0]
    summary = h[h.index("<summary") : h.index("</summary>")]
    assert "holds" in summary and "Eq. 11" in summary and "below the tolerance" in summary
    body = h[h.index("</summary>") :]
    assert "tolerance: 100 P eps" in body and "nontrivial part" in body
    assert ledger.check_html(c, open=True).split(">", 1)[0].endswith(" open")
    assert str(c).splitlines()[0] == "[holds] Eq. 11"  # the text/plain form (PDF) is unchanged
    weak = Check("weak", "v", 0.9, 1.0, "c")
    both = all_of("both", [Check("firm", "v", 0.0, 1.0, "c"), weak])
    assert "<details" in ledger.check_html(both).split("</summary>", 1)[1]  # parts open one by one


def test_every_claim_is_declared_in_a_module_the_ledger_collects():
    import importlib
    import pkgutil

    import resnet_nb

    for mod in pkgutil.walk_packages(resnet_nb.__path__, "resnet_nb."):
        if not mod.name.endswith("__main__"):
            importlib.import_module(mod.name)
    outside = {
        cid: c.check.__module__
        for cid, c in claims.LEDGER.items()
        if c.check.__module__ not in ledger.CLAIM_MODULES and not cid.startswith("test-")
    }
    assert not outside, f"claims declared outside resnet_nb.book.ledger.CLAIM_MODULES: {outside}"
    assert set(ledger.all_claims()) >= {cid for cid in claims.LEDGER if not cid.startswith("test-")}


def test_a_chapters_claims_are_those_that_name_it_in_ledger_order():
    ids = ledger.claims_of("book/hardt_ma_expressivity.ipynb")
    assert "hm-thm32" in ids and "hm-lemma-b1" in ids and "li-lemma1" not in ids
    order = list(ledger.all_claims())
    assert ids == sorted(ids, key=order.index)
    assert ledger.claims_of("book/no_such_chapter.ipynb") == []


def test_check_and_falsifier_reads_a_claims_pair_from_the_run_table_and_names_a_missing_one():
    import pandas as pd

    rows = pd.DataFrame(dict(id=["x"], check=["chk"], falsifier_check=["fal"])).set_index("id")
    assert ledger.check_and_falsifier(rows, "x") == ("chk", "fal")
    with pytest.raises(KeyError, match="not run here"):
        ledger.check_and_falsifier(rows, "y")


def test_a_chapters_claims_are_run_once_and_each_shows_its_check_and_falsifier():
    table, checks = ledger.chapter_claims("book/notation.ipynb")
    assert list(table["id"]) == ledger.claims_of("book/notation.ipynb") and table["passed"].all()
    check, falsifier = checks(table["id"].iloc[0])
    assert check.passed and falsifier.rejected_on_value
    with pytest.raises(KeyError, match="was not run here"):
        checks("hm-thm32")
