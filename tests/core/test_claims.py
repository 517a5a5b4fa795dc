"""The check-and-claim type (resnet_nb.core.claims): when a check passes, is vacuous or fragile;
how a claim must be declared; which falsifiers the numbers show to be implied by the check."""

import math

import pytest

from resnet_nb.core import claims
from resnet_nb.core.claims import Check, all_of


# ---------------------------------------------------------------------------- Check semantics
def test_check_passes_below_tolerance_and_reports_margin():
    c = Check("x", "a - b", 1e-3, 1e-2, "a stated criterion")
    assert c.passed and c.within and not c.vacuous
    assert c.margin == pytest.approx(9e-3) and c.rel_margin == pytest.approx(0.9)
    c = Check("x", "stat", 3.0, 2.0, "threshold", op=">=")
    assert c.passed and c.margin == pytest.approx(1.0)
    assert not Check("x", "stat", 1.0, 2.0, "threshold", op=">=").passed


def test_check_needs_criterion_and_known_op():
    with pytest.raises(ValueError):
        Check("x", "a", 0.0, 1.0, "")
    with pytest.raises(ValueError):
        Check("x", "a", 0.0, 1.0, "c", op="<")


def test_nan_never_passes():
    assert not Check("x", "a", math.nan, 1.0, "c").passed


def test_zeros_against_zeros_is_vacuous_and_neither_passes_nor_counts_as_rejection():
    c = Check("x", "max |a - b|", 0.0, 1e-12, "c", nontrivial=0.0, nontrivial_what="max |a|", nontrivial_min=1e-12)
    assert c.vacuous and not c.passed and c.verdict == "VACUOUS"
    bad = Check("x", "max |a - b|", 1.0, 1e-12, "c", nontrivial=0.0, nontrivial_min=1e-12)
    assert not bad.rejected_on_value  # a vacuous comparison cannot reject a falsifier either


def test_fragile_when_margin_below_spread():
    assert Check("x", "gap", 0.9, 1.0, "c", spread=0.5).fragile
    assert not Check("x", "gap", 0.1, 1.0, "c", spread=0.5).fragile
    assert not Check("x", "gap", 1.1, 1.0, "c", spread=0.5).fragile  # failing, not fragile


def test_fragile_part_makes_the_whole_check_fragile():
    weak = Check("weak", "gap", 0.1, 0.0, "strict (tolerance 0)", op=">=", spread=0.5)
    firm = Check("firm", "gap", 2.0, 0.0, "strict (tolerance 0)", op=">=", spread=0.5)
    assert all_of("both", [weak, firm]).fragile and not all_of("firm only", [firm]).fragile
    assert [c.claim for c in all_of("both", [weak, all_of("inner", [firm])]).leaves()] == ["weak", "firm"]


def test_mirrored_falsifier_is_detected():
    chk = Check("rank trend", "rho(loss, index)", 0.9, 0.5, "99th percentile", op=">=")
    assert claims.mirrored(chk, Check("reversed", "rho(loss, -index)", -0.9, 0.55, "99th pct", op=">="))
    assert claims.mirrored(Check("a", "v", -0.3, 0.0, "c"), Check("b", "v", 0.3, 0.0, "c"))
    # another statistic, or tolerances that let both pass, is a real falsifier
    assert not claims.mirrored(chk, Check("other", "rho(loss, size)", 0.2, 0.5, "c", op=">="))
    assert not claims.mirrored(Check("x", "v", 0.1, 0.5, "c"), Check("x", "v", -0.1, 0.5, "c"))
    assert not claims.mirrored(chk, None)
    same = Check("critical", "grad", 1e-15, 1e-12, "c")
    assert claims.mirrored(all_of("p", [same, chk]), all_of("q", [same, Check("r", "v", -0.9, 0.5, "c", op=">=")]))
    assert not claims.mirrored(all_of("p", [same]), all_of("q", [same]))


def test_all_of_needs_every_part_and_reports_the_worst():
    good = Check("a", "v", 0.0, 1.0, "c")
    half = Check("b", "v", 0.5, 1.0, "c")
    bad = Check("c", "v", 2.0, 1.0, "c")
    ok = all_of("both", [good, half])
    assert ok.passed and ok.value == pytest.approx(0.5)
    no = all_of("with a failure", [good, bad])
    assert not no.passed and no.rejected_on_value
    with pytest.raises(ValueError):
        all_of("none", [])


def test_require_and_refute():
    c = Check("x", "v", 0.0, 1.0, "c")
    assert c.require() is c
    with pytest.raises(AssertionError):
        c.refute()
    with pytest.raises(AssertionError):
        Check("x", "v", 2.0, 1.0, "c").require()


def test_margin_in_words():
    assert (
        Check("x", "v", 1e-15, 3.6e-12, "c").margin_words()
        == "value 1.00e-15, below the tolerance 3.60e-12 by 3.60e-12"
    )
    assert Check("x", "v", 0.006, 0.03, "c", op=">=").margin_words() == "value 0.006, below the threshold 0.03 by 0.024"
    assert Check("x", "v", 3.0, 2.0, "c", op=">=").margin_words() == "value 3, above the threshold 2 by 1"
    assert Check("x", "v", 0.0, 1.0, "c", nontrivial=0.0).margin_words().startswith("vacuous")
    weak = Check("weak", "v", 0.9, 1.0, "c")
    both = all_of("both", [Check("firm", "v", 0.0, 1.0, "c"), weak])
    assert both.margin_words() == "all 2 parts hold; the tightest, weak: value 0.9, below the tolerance 1 by 0.1"
    assert all_of("no", [weak, Check("bad", "v", 2.0, 1.0, "c")]).margin_words() == "1 of 2 parts fail: bad"


def test_eps_criterion():
    tol, crit = claims.eps_criterion(100, 2.0)
    assert tol == pytest.approx(100 * 100 * 2.0**-52 * 2.0) and "P = 100" in crit


def test_claim_decorator_rejects_incomplete_declarations():
    with pytest.raises(ValueError):
        claims.claim("t-x", source="s", statement="t", verdict="true", falsifier="f")
    with pytest.raises(ValueError):
        claims.claim("t-x", source="s", statement="t", verdict="fails as printed", falsifier="f")
    with pytest.raises(ValueError):
        claims.claim("t-x", source="s", statement="t", verdict="holds", falsifier="")
    with pytest.raises(ValueError):
        claims.claim("t-x", source="s", statement="t", verdict="holds", falsifier="f", falsifier_kind="reversed")
    assert claims.FALSIFIER_KINDS == ("plausible false statement", "implied by the check", "regression test")


def test_complement_falsifier_is_detected():
    # hm-analog-small-init: |gap| <= spread against gap >= spread (opposite sides of one bound)
    chk = Check("within", "|gap|", 0.006, 0.03, "spread")
    assert claims.complement(chk, Check("better", "gap", 0.006, 0.03, "spread", op=">="))
    assert claims.complement(chk, Check("worse", "-gap", -0.006, 0.03, "spread", op=">="))
    assert claims.implied(chk, Check("better", "gap", 0.006, 0.06, "2 spread", op=">="))  # stricter bound
    # the same value against the opposite operator: eta lambda >= 2 against eta lambda <= 2
    assert claims.complement(Check("a", "eta lam", 3.4, 2.0, "c", op=">="), Check("b", "eta lam", 3.4, 2.0, "c"))
    assert claims.complement(Check("a", "g", 0.4, 0.1, "c", op=">="), Check("b", "|g|", 0.4, 0.1, "c"))
    # a bound the check does not imply, another statistic, or the same operator: a real falsifier
    assert not claims.complement(chk, Check("better", "gap", 0.006, 0.01, "c", op=">="))
    assert not claims.complement(chk, Check("printed", "|gap'|", 0.2, 0.03, "c", op=">="))
    assert not claims.complement(chk, Check("printed", "|gap'|", 0.2, 0.03, "c"))
    assert not claims.complement(Check("a", "g", 0.4, 0.1, "c", op=">="), Check("b", "|g|", 0.4, 0.5, "c"))
    assert not claims.implied(chk, None)
    # part by part, as mirrored
    same = Check("critical", "grad", 1e-15, 1e-12, "c")
    assert claims.implied(all_of("p", [same, chk]), all_of("q", [same, Check("r", "gap", 0.006, 0.03, "c", op=">=")]))


def test_a_table_row_fills_its_words_and_reads_its_numbers_from_the_values():
    table = (
        claims.Part(
            "Eq. {eq} at {method}", "max |a - b|", "err", "tol", "{crit}", nontrivial="size", nontrivial_what="max |a|"
        ),
        claims.Part("a threshold", "statistic", "stat", 2.0, "stated", op=">="),
        claims.Part("only for n = 2", "x", "err", "tol", "c", when="is_n2"),
    )
    values = dict(eq=11, method="autograd", err=1e-3, tol=1e-2, crit="100 P eps", size=4.0, stat=1.5, is_n2=False)
    first, second = claims.checks_from(table, values)
    assert first.claim == "Eq. 11 at autograd" and first.criterion == "100 P eps"
    assert (first.value, first.tol, first.nontrivial, first.nontrivial_what) == (1e-3, 1e-2, 4.0, "max |a|")
    assert first.passed
    # the second row compares a statistic with a fixed threshold, above it to pass: 1.5 < 2 fails
    assert (second.op, second.tol) == (">=", 2.0) and not second.passed
    # a row whose condition holds is kept
    assert len(claims.checks_from(table, {**values, "is_n2": True})) == 3


def test_a_table_row_naming_a_missing_value_says_which():
    table = (claims.Part("claim", "compared", "err", "tolerance", "c"),)
    with pytest.raises(KeyError, match="'tolerance'"):
        claims.checks_from(table, {"err": 0.0})
