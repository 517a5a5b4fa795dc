# %% [markdown]
# # Claims ledger
#
# Every statement the book checks by computation is listed here and checked again at each build:
# theorems, lemmas and equations of the two papers, their experimental claims, and the book's own
# machinery. Each claim has a **check**, a comparison with a stated tolerance, and a **falsifier**,
# a false statement that the same comparison must reject. The book does not build if a check fails
# or a falsifier is accepted.

# %% tags=["remove-input"]
try:
    import resnet_nb  # noqa: F401
except ImportError:  # e.g. on Colab
    # %pip install -q git+https://github.com/resnet-nb/resnet-book
from IPython.display import HTML

from resnet_nb.book import ledger, show
from resnet_nb.book.facts import claims as facts

table = ledger.run_all(progress=False)
f_ledger = facts.ledger_facts(table)

# %% [markdown]
# This build checked {eval}`f_ledger.n_claims` claims: {eval}`f_ledger.n_passed` checks passed and
# {eval}`f_ledger.n_rejected` falsifiers were rejected. The falsifiers are {eval}`f_ledger.n_plausible` plausible
# false statements, {eval}`f_ledger.n_regression_fal` regression tests, {eval}`f_ledger.n_implied_kind` implied by
# the check and {eval}`f_ledger.n_unlabelled` unlabelled ({eval}`f_ledger.n_conflict` declared kinds contradicted by
# the numbers). Running every check and falsifier took {eval}`f_ledger.run_seconds` s.

# %% tags=["remove-input"]
HTML(ledger.verdict_summary_html(ledger.verdict_summary(table)))

# %% [markdown]
# ::::{admonition} How to read the ledger
# :class: dropdown
#
# - **Source and verdict**: the precise statement of the paper (an equation, a lemma, a constant,
#   a figure) and the verdict on it: *holds*, *fails as printed* (the printed form is shown and the
#   corrected form is what is checked), *reproduced*, *partly reproduced* or *not reproduced*
#   (experimental claims). For a verdict *not reproduced* or *fails as printed*, the check tests
#   the book's corrected statement or its measured finding, which is why it passes, and the
#   falsifier is the paper's form, which is why it is rejected.
# - **Check**: the two quantities compared, the measured value, the tolerance and the criterion it
#   follows from, the margin, and the size of the part that could differ, so that a comparison of
#   zeros with zeros is reported as *vacuous* and fails. For exact identities in float64 the
#   tolerance is $100\,P\,\varepsilon\,|s|$ for a sum of $P$ terms of size $|s|$, with
#   $\varepsilon$ the machine epsilon. An experimental *ordering* ("the 2-shortcut networks end
#   lowest at every depth") is checked strictly, on the means over runs, with tolerance 0; the
#   run-to-run spread then only decides whether the claim is *fragile*. A statement of *size*
#   ("flat in depth", "ends at the edge of stability") takes its tolerance from its stated
#   criterion: a multiple of the spread, a number of standard errors, or a fraction of a reference
#   curve's growth. The table at the end of the page lists every experimental comparison with its
#   rule.
# - **Falsifier**, of one of three kinds. A *plausible false statement*: the paper's printed form
#   where that is wrong, a wrong formula, a dropped hypothesis, a misreading someone could make. A
#   *regression test*: the only negative available is a corrupted input or a value constructed to
#   fail, so the entry tests a measured value, not a claim. *Implied by the check*: any passing
#   check rejects it (the reversed ordering of a strict comparison, or "gap ≥ spread" against
#   "|gap| ≤ spread"); it shows that the comparison can fail, and adds no evidence of its own. The
#   ledger also finds such falsifiers from the numbers (the falsifier's statistic is the check's
#   negated, or its comparison is the complement of the check's), and marks a *conflict* where a
#   claim declares a plausible false statement that the numbers show to be implied. A claim that
#   does not say which kind its falsifier is shows it as *unlabelled*.
# - **Fragile**: an experimental claim whose margin (in any of its comparisons) is smaller than its
#   run-to-run spread carries the note after its verdict, and is counted on a row of its own in
#   the table above.
# ::::

# %% [markdown]
# ## The ledger
#
# Each block gives the claim's source, verdict and statement, then what the check measured and
# what the same comparison measured on the falsifier; the last line names where the book checks it.

# %% tags=["remove-input"]
HTML(ledger.ledger_html(table))

# %% [markdown]
# ## How the experimental checks set their tolerance
#
# Every comparison below, in a check or in one part of it, measures a run-to-run spread (the
# standard deviation over runs, seeds or Monte Carlo draws). *Tolerance* is the bound the
# measured value must meet; the *margin* is how far it stays from that bound, and the claim is
# fragile where the margin is smaller than the spread.

# %% tags=["remove-input"]
rules = ledger.tolerance_rules(table)
strict = rules.rule.str.startswith("strict")
n_compared, n_strict = show.count(len(rules)), show.count(strict.sum())
n_from_criterion = show.count((~strict).sum())
n_rules_fragile = show.count(rules.fragile.sum())
HTML(ledger.tolerance_rules_html(rules))

# %% [markdown]
# Of these {eval}`n_compared` comparisons, {eval}`n_strict` are orderings with tolerance 0, where
# the spread only marks fragility, and {eval}`n_from_criterion` take their tolerance from the
# criterion shown. {eval}`n_rules_fragile` of them have a margin below their spread.

# %% [markdown]
# ## Numbers quoted from the papers
#
# Every number in the book's text that is taken from one of the papers, rather than computed by
# the book, is marked where it appears (hover over it to see its source) and listed here, with
# the section, table, figure or equation it comes from. The lists live in `book/quotes/`, one file
# per chapter; a test fails on any decimal number in a chapter's text that is neither computed by
# a cell above it nor listed here.

# %% tags=["remove-input"]
quotes = ledger.load_quotes()
n_quotes = show.count(len(quotes))
HTML(ledger.quotes_html(quotes))

# %% [markdown]
# {eval}`n_quotes` numbers are quoted from the papers.
#

# %% tags=["remove-input"]
# raises, and so fails the build, on a failed check or an accepted falsifier
ledger.require_all(table)
print("every check passed and every falsifier was rejected")
