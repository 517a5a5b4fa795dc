"""The claims ledger (book/claims.ipynb): every claim run, summarised and shown as HTML.

The claims are declared in the modules of :data:`CLAIM_MODULES` with
:func:`resnet_nb.core.claims.claim`. :func:`run_all` imports those modules (which registers every
claim), runs each check and each falsifier, and returns one row per claim; :func:`require_all`
raises if a check fails or a falsifier is not rejected, so the ledger page fails the book build.
:func:`check_html` is how a :class:`~resnet_nb.core.claims.Check` looks in a chapter.
"""

from __future__ import annotations

import html
import importlib
import time
from pathlib import Path

from resnet_nb.core.claims import (
    FALSIFIER_KINDS,
    FRAGILE_NOTE,
    IMPLIED,
    LEDGER,
    PLAUSIBLE,
    REGRESSION,
    UNLABELLED,
    VERDICTS,
    Check,
    Claim,
    LedgerError,
    all_of,
    eps_criterion,
    falsifier_conflict,
    falsifier_kind_of,
    fmt,
    implied,
    says_reversed,
)

__all__ = [
    "CLAIM_MODULES",
    "check_and_falsifier",
    "chapter_claims",
    "claims_of",
    "all_claims",
    "run_all",
    "require_all",
    "ledger_html",
    "verdict_summary",
    "verdict_summary_html",
    "falsifier_kind_counts",
    "tolerance_rules",
    "tolerance_rules_html",
    "load_quotes",
    "quotes_html",
    "check_html",
    # the claim type, for the chapters that use both
    "Check",
    "Claim",
    "LedgerError",
    "all_of",
    "eps_criterion",
]

#: The modules that declare claims, in the order the ledger lists them.
CLAIM_MODULES = (
    "resnet_nb.core.losses",
    "resnet_nb.core.hessians",
    "resnet_nb.experiments.hm_analog",
    "resnet_nb.experiments.fig9",
    "resnet_nb.experiments.fig10",
    "resnet_nb.experiments.fig2",
    "resnet_nb.experiments.fig3",
    "resnet_nb.experiments.fig5",
    "resnet_nb.experiments.fig6",
    "resnet_nb.experiments.fig7",
    "resnet_nb.experiments.fig8",
    "resnet_nb.hardt_ma.interface",
    "resnet_nb.hardt_ma.linear.theorem21",
    "resnet_nb.hardt_ma.linear.theorem22",
    "resnet_nb.hardt_ma.linear.theorem21_appendix",
    "resnet_nb.hardt_ma.linear.gd_reflection",
    "resnet_nb.hardt_ma.relu.theorem32_width",
    "resnet_nb.hardt_ma.relu.lemma_b1",
    "resnet_nb.hardt_ma.relu.constant_width",
    "resnet_nb.li.limitations.fixup",
    "resnet_nb.li.limitations.variance",
    "resnet_nb.li.limitations.products",
    "resnet_nb.li.limitations.critical_points",
    "resnet_nb.li.theorem1.lemmas",
    "resnet_nb.li.theorem1.part1",
    "resnet_nb.li.theorem1.hessian_at_zero",
    "resnet_nb.li.theorem1.relu",
    "resnet_nb.li.dynamics.eq7_figure4",
    "resnet_nb.li.dynamics.eq15_16",
    "resnet_nb.li.dynamics.drift",
)


def check_html(chk: Check, open: bool = False) -> str:
    """A check as a ``<details>`` block: its one-line ``<summary>`` gives the verdict, the statement and
    the margin in words; opened, the full box (comparison, tolerance and its criterion, the
    part that could differ, run-to-run spread, notes and sub-checks, each a block of its own)."""
    ok = chk.passed
    color = "#1a7f37" if ok else ("#9a6700" if chk.vacuous else "#cf222e")
    e = html.escape
    frag = " <b style='color:#9a6700'>fragile</b>" if chk.fragile else ""
    summary = (
        f"<summary style='cursor:pointer'><b style='color:{color}'>{e(chk.verdict)}</b>"
        f" &nbsp;{e(chk.claim)} <span class='rn-check-margin' style='color:#57606a'>"
        f"&mdash; {e(chk.margin_words())}</span>{frag}</summary>"
    )
    rows = [
        f"<div>{e(chk.compared)} = <b>{e(fmt(chk.value))}</b> "
        f"<span style='white-space:nowrap'>(must be {e(chk.op)} {e(fmt(chk.tol))})</span></div>",
        f"<div style='color:#57606a'>tolerance: {e(chk.criterion)}</div>",
    ]
    if chk.nontrivial is not None:
        rows.append(
            f"<div style='color:#57606a'>nontrivial part: {e(chk.nontrivial_what or 'size')}"
            f" = {e(fmt(chk.nontrivial))} (must be &gt; {e(fmt(chk.nontrivial_min))})</div>"
        )
    if chk.spread is not None:
        rows.append(
            f"<div style='color:#57606a'>margin {e(fmt(chk.margin))} against run-to-run "
            f"spread {e(fmt(chk.spread))}{' (fragile)' if chk.fragile else ''}</div>"
        )
    rows += [f"<div>{e(s)}</div>" for s in chk.lines]
    inner = "".join(rows) + "".join(check_html(p, open=open) for p in chk.parts)
    return (
        f"<details class='rn-check' style='border-left:4px solid {color};padding:2px 8px;"
        f"margin:4px 0;overflow-wrap:anywhere;white-space:normal;font-size:0.9em'"
        f"{' open' if open else ''}>{summary}"
        f"<div class='rn-check-body' style='padding-left:1.2em'>{inner}</div></details>"
    )


def _import_claim_modules() -> None:
    """Import the modules of :data:`CLAIM_MODULES`, so that every claim is declared."""
    for name in CLAIM_MODULES:
        importlib.import_module(name)


def all_claims() -> dict[str, Claim]:
    """Every declared claim, in the order of :data:`CLAIM_MODULES` and, within a module, in the
    order of declaration (whatever order the modules happened to be imported in)."""
    _import_claim_modules()
    rank = {name: i for i, name in enumerate(CLAIM_MODULES)}
    declared = list(LEDGER.items())
    order = sorted(range(len(declared)), key=lambda i: (rank.get(declared[i][1].check.__module__, len(rank)), i))
    return dict(declared[i] for i in order)


def claims_of(chapter: str) -> list[str]:
    """The ids of the claims that name ``chapter`` (e.g. ``"book/hardt_ma_linear.ipynb"``) among
    the places they are checked, in the ledger's order."""
    return [cid for cid, c in all_claims().items() if chapter in c.where]


def run_all(ids=None, progress: bool = True):
    """Run every check and every falsifier; return a pandas DataFrame, one row per claim."""
    import pandas as pd
    from tqdm.auto import tqdm

    claims = all_claims()
    chosen = list(claims) if ids is None else list(ids)
    unknown = [i for i in chosen if i not in claims]
    if unknown:
        raise ValueError(f"unknown claim ids {unknown}; known: {sorted(claims)}")
    rows = []
    for cid in tqdm(chosen, desc="claims", disable=not progress):
        c = claims[cid]
        t0 = time.perf_counter()
        row = dict(
            id=c.id,
            source=c.source,
            statement=c.statement,
            verdict=c.verdict,
            kind=c.kind,
            printed=c.printed,
            falsifier=c.falsifier,
            where="; ".join(c.where),
            falsifier_kind=c.falsifier_kind,
        )
        # columns: "check" / "falsifier_check" hold the Check objects (None when the function
        # raised), "check_error" / "falsifier_error" the exception; "falsifier" stays the text.
        for tag, err, falsify in (("check", "check_error", False), ("falsifier_check", "falsifier_error", True)):
            try:
                res = c.check(falsify=falsify)
                if not isinstance(res, Check):
                    raise TypeError(f"{cid}: check returned {type(res).__name__}, not Check")
                row[tag] = res
                row[err] = ""
            except Exception as exc:  # a crashing check is a failed check, reported as such
                row[tag] = None
                row[err] = f"{type(exc).__name__}: {exc}"
        chk, fal = row["check"], row["falsifier_check"]
        row["passed"] = bool(chk is not None and chk.passed)
        row["falsifier_rejected"] = bool(fal is not None and fal.rejected_on_value)
        row["fragile"] = bool(chk is not None and chk.fragile)
        # "implied": the numbers show that any passing check rejects the falsifier (its statistic
        # negated, or the complement of the check's comparison); "mirrored": implied, declared
        # so, or said so in the falsifier's own words (the ordering reversed)
        row["falsifier_implied"] = bool(implied(chk, fal))
        row["falsifier_mirrored"] = bool(
            c.falsifier_kind == IMPLIED or says_reversed(c.falsifier) or row["falsifier_implied"]
        )
        row["falsifier_kind_shown"] = falsifier_kind_of(c.falsifier_kind, c.kind, c.falsifier, row["falsifier_implied"])
        row["falsifier_conflict"] = falsifier_conflict(c.falsifier_kind, row["falsifier_implied"])
        row["seconds"] = round(time.perf_counter() - t0, 2)
        rows.append(row)
    return pd.DataFrame(rows)


def require_all(df) -> None:
    """Raise :class:`LedgerError` listing every failed claim, every accepted falsifier, every
    falsifier without a kind and every declared kind the numbers contradict."""
    bad = []
    for r in df.itertuples():
        if not r.passed:
            bad.append(f"{r.id}: the check failed {r.check_error or ''}\n{r.check}")
        if not r.falsifier_rejected:
            bad.append(
                f"{r.id}: the falsifier ({r.falsifier}) was not rejected {r.falsifier_error or ''}\n{r.falsifier_check}"
            )
        if getattr(r, "falsifier_kind_shown", None) == UNLABELLED:
            bad.append(f"{r.id}: the falsifier has no kind; declare falsifier_kind= (one of {FALSIFIER_KINDS})")
        if getattr(r, "falsifier_conflict", ""):
            bad.append(f"{r.id}: falsifier kind {r.falsifier_conflict}")
    if bad:
        raise LedgerError("\n\n".join(bad))


def _result(chk: Check | None, err: str, role: str) -> str:
    """One line block: what was compared, the value against the tolerance, the margin, the criterion."""
    e = html.escape
    if chk is None:
        return f"<div><b style='color:#cf222e'>error</b> {e(err)}</div>"
    if chk.parts:  # all_of: show the parts, not their smallest relative margin
        out = ""
        for p in chk.parts:
            word = p.verdict if role == "check" else ("fails" if p.rejected_on_value else "passes")
            out += (
                f"<div><i>{e(p.claim)}</i> &mdash; {e(word)}</div>"
                f"<div style='padding-left:1.2em'>{_result(p, '', role)}</div>"
            )
        return out + "".join(f"<div>{e(x)}</div>" for x in chk.lines)
    s = (
        f"<div>{e(chk.compared)} = <b>{e(fmt(chk.value))}</b> "
        f"<span style='white-space:nowrap'>(must be {e(chk.op)} {e(fmt(chk.tol))})</span>"
    )
    if role == "check":
        s += f", margin {e(fmt(chk.margin))}"
    s += "</div>"
    if role == "check":
        s += f"<div style='color:#57606a'>tolerance: {e(chk.criterion)}</div>"
        if chk.nontrivial is not None:
            s += (
                f"<div style='color:#57606a'>nontrivial part: {e(chk.nontrivial_what or 'size')} = "
                f"{e(fmt(chk.nontrivial))} (must be &gt; {e(fmt(chk.nontrivial_min))})</div>"
            )
        if chk.spread is not None:
            s += (
                f"<div style='color:#57606a'>run-to-run spread {e(fmt(chk.spread))}"
                + (" &mdash; <b style='color:#9a6700'>fragile</b>: the margin is smaller" if chk.fragile else "")
                + "</div>"
            )
    return s


def _falsifier_note(r) -> str:
    """The falsifier's kind, in words, after its text; a conflict between the declared kind and
    the numbers in red."""
    e = html.escape
    detected = bool(getattr(r, "falsifier_implied", False))
    shown = getattr(r, "falsifier_kind_shown", None)
    if not isinstance(shown, str):  # a table from an older run: infer what can be inferred
        shown = falsifier_kind_of(
            getattr(r, "falsifier_kind", "") or "", getattr(r, "kind", "claim"), getattr(r, "falsifier", ""), detected
        )
    if shown == IMPLIED:
        words = (
            "any passing check rejects it, as the numbers show, so the rejection adds no evidence"
            if detected
            else "declared so by the claim: a passing check rejects it, so its rejection "
            "shows only that the comparison can fail"
        )
    else:
        words = {
            REGRESSION: "its negative is a corrupted input or a value constructed to fail",
            UNLABELLED: "the claim does not say what its falsifier is",
        }.get(shown, "")
    color = {PLAUSIBLE: "#57606a", UNLABELLED: "#cf222e"}.get(shown, "#9a6700")
    note = (
        f" <span class='falsifier-kind' style='color:{color}'>(<b>{e(shown)}</b>"
        + (f": {e(words)}" if words else "")
        + ")</span>"
    )
    conflict = getattr(r, "falsifier_conflict", "")
    if isinstance(conflict, str) and conflict:
        note += f" <b class='falsifier-conflict' style='color:#cf222e'>conflict: {e(conflict)}</b>"
    return note


def falsifier_kind_counts(df):
    """How many falsifiers the ledger shows of each kind (plausible false statement, regression
    test, implied by the check, unlabelled), and how many declared kinds conflict with the numbers."""
    import pandas as pd

    order = [PLAUSIBLE, REGRESSION, IMPLIED, UNLABELLED]
    if "falsifier_kind_shown" in df:
        shown = df["falsifier_kind_shown"]
    else:
        shown = pd.Series(
            [
                falsifier_kind_of(r.falsifier_kind, r.kind, r.falsifier, bool(getattr(r, "falsifier_implied", False)))
                for r in df.itertuples()
            ],
            index=df.index,
        )
    conflict = df["falsifier_conflict"].astype(bool) if "falsifier_conflict" in df else pd.Series(False, index=df.index)
    rows = [
        {
            "falsifier kind": k,
            "claims": int((shown == k).sum()),
            "declared kind in conflict with the numbers": int(conflict[shown == k].sum()),
        }
        for k in order
    ]
    return pd.DataFrame(rows)


def ledger_html(df) -> str:
    """The ledger as one block per claim, stacked so that it fits any column; ``$...$`` math in
    statements and falsifiers is typeset by MathJax (the block is marked ``mathjax_process``)."""
    e = html.escape
    blocks = []
    for r in df.itertuples():
        ok = r.passed and r.falsifier_rejected
        color = "#1a7f37" if ok else "#cf222e"
        kind = (
            ""
            if r.kind == "claim"
            else " &middot; <b>regression test</b> of a measured value (its negative corrupts an input)"
        )
        is_fragile = bool(getattr(r, "fragile", False))
        verdict = (
            f"<i>{e(r.verdict)}</i> <b style='color:#9a6700'>({e(FRAGILE_NOTE)})</b>"
            if is_fragile
            else f"<i>{e(r.verdict)}</i>"
        )
        fal_note = _falsifier_note(r)
        secs = f" &middot; {r.seconds:.1f} s" if hasattr(r, "seconds") else ""
        printed = f"<div><span style='color:#57606a'>printed:</span> {e(r.printed)}</div>" if r.printed else ""
        where = ", ".join(f"<code>{e(w)}</code>" for w in r.where.split("; ") if w)
        chk_word = "holds" if r.passed else ("VACUOUS" if (r.check is not None and r.check.vacuous) else "FAILS")
        chk_color = "#1a7f37" if r.passed else "#cf222e"
        fal_word = "rejected" if r.falsifier_rejected else "NOT rejected"
        fal_color = "#1a7f37" if r.falsifier_rejected else "#cf222e"
        blocks.append(
            f"<div class='ledger-claim' id='claim-{e(r.id)}' style='border-left:4px solid {color};"
            f"padding:4px 10px;margin:10px 0;overflow-wrap:anywhere;scroll-margin-top:70px'>"
            f"<div><b>{e(r.source)}</b> &mdash; {verdict}{kind}"
            f"<span style='color:#57606a;font-size:0.9em'> &middot; <code>{e(r.id)}</code>{secs}</span></div>"
            f"<div style='margin:2px 0'>{e(r.statement)}</div>{printed}"
            f"<div style='margin-top:3px'><b style='color:{chk_color}'>check {chk_word}</b></div>"
            f"<div style='padding-left:1.2em'>{_result(r.check, r.check_error, 'check')}</div>"
            f"<div style='margin-top:3px'><b style='color:{fal_color}'>falsifier {fal_word}</b>: "
            f"{e(r.falsifier)}{fal_note}</div>"
            f"<div style='padding-left:1.2em'>{_result(r.falsifier_check, r.falsifier_error, 'falsifier')}</div>"
            + (f"<div style='color:#57606a;font-size:0.9em'>checked in {where}</div>" if where else "")
            + "</div>"
        )
    return (
        "<div class='mathjax_process claims-ledger' style='font-size:0.88em;max-width:100%'>"
        + "".join(blocks)
        + "</div>"
    )


# ==========================================================================================
# Summaries for the ledger page: verdicts, falsifier kinds, tolerances, quoted numbers
# ==========================================================================================


def verdict_summary(df, total: bool = True):
    """How many claims carry each verdict, how many of them passed and had their falsifier
    rejected, and of what kind their falsifiers are (one column per kind of
    :func:`falsifier_kind_counts`); a last row "all claims" when ``total``.

    Fragile claims (margin below the run-to-run spread) are counted on a row of their own,
    "<verdict> (fragile)", below the row of the same verdict, which then counts the others.
    """
    import pandas as pd

    fragile = df["fragile"].astype(bool) if "fragile" in df else pd.Series(False, index=df.index)
    if "falsifier_kind_shown" in df:
        shown = df["falsifier_kind_shown"]
    else:
        shown = pd.Series(
            [
                falsifier_kind_of(
                    getattr(r, "falsifier_kind", "") or "",
                    r.kind,
                    getattr(r, "falsifier", ""),
                    bool(getattr(r, "falsifier_mirrored", False)),
                )
                for r in df.itertuples()
            ],
            index=df.index,
        )

    def row(name, sub):
        out = {
            "verdict": name,
            "claims": len(sub),
            "check passed": int(sub.passed.sum()),
            "falsifier rejected": int(sub.falsifier_rejected.sum()),
        }
        for k in (PLAUSIBLE, REGRESSION, IMPLIED, UNLABELLED):
            out[k] = int((shown[sub.index] == k).sum())
        return out

    rows = []
    for v in VERDICTS:
        for frag in (False, True):
            sub = df[(df.verdict == v) & (fragile == frag)]
            if len(sub):
                rows.append(row(f"{v} (fragile)" if frag else v, sub))
    if total and rows:
        rows.append(row("all claims", df))
    return pd.DataFrame(rows)


def verdict_summary_html(summary) -> str:
    """The table of :func:`verdict_summary` in a fixed layout that fits the page column: the
    falsifier kinds under one heading, headings that break between words only."""
    if not len(summary):
        return "<p><i>No claim has been checked.</i></p>"
    e = html.escape
    kinds = [PLAUSIBLE, REGRESSION, IMPLIED, UNLABELLED]
    counts = ["claims", "check passed", "falsifier rejected"]
    body = ""
    for r in summary.to_dict("records"):
        last = r["verdict"] == "all claims"
        cells = "".join(f"<td>{int(r[c])}</td>" for c in counts + kinds)
        style = " style='border-top:1px solid #57606a;font-weight:600'" if last else ""
        body += f"<tr{style}><td>{e(r['verdict'])}</td>{cells}</tr>"
    head = (
        "<thead><tr><th rowspan='2'>verdict</th>"
        + "".join(f"<th rowspan='2'>{e(c)}</th>" for c in counts)
        + f"<th colspan='{len(kinds)}' style='text-align:center'>falsifiers by kind</th></tr><tr>"
        + "".join(f"<th>{e(k)}</th>" for k in kinds)
        + "</tr></thead>"
    )
    cols = "<col style='width:22%'>" + "<col style='width:8%'>" * 3 + "<col style='width:13.5%'>" * 4
    return (
        "<table class='ledger-summary' style='table-layout:fixed;width:100%;font-size:0.85em'>"
        f"<colgroup>{cols}</colgroup>{head}<tbody>{body}</tbody></table>"
    )


def tolerance_rules(df):
    """How each experimental comparison (a check, or part of one, that measures a run-to-run
    spread) sets its tolerance: one row per such comparison.

    ``rule`` is "strict ordering (tolerance 0)" when the tolerance is zero, so the spread serves
    only to mark the claim fragile, and "tolerance from its criterion" otherwise (a multiple of
    the spread, or a fraction of a reference quantity; ``criterion`` says which).
    """
    import pandas as pd

    rows = []
    for r in df.itertuples():
        if r.check is None:
            continue
        for leaf in r.check.leaves():
            if leaf.spread is None:
                continue
            rows.append(
                {
                    "claim": r.id,
                    "comparison": leaf.claim,
                    "tolerance": leaf.tol,
                    "spread": leaf.spread,
                    "margin": leaf.margin,
                    "fragile": leaf.fragile,
                    "rule": "strict ordering (tolerance 0)" if leaf.tol == 0 else "tolerance from its criterion",
                    "criterion": leaf.criterion,
                }
            )
    return pd.DataFrame(
        rows, columns=["claim", "comparison", "tolerance", "spread", "margin", "fragile", "rule", "criterion"]
    )


def tolerance_rules_html(rules) -> str:
    """The table of :func:`tolerance_rules` in a fixed layout that wraps in the page column."""
    if not len(rules):
        return "<p><i>No experimental comparison measures a run-to-run spread.</i></p>"
    e = html.escape
    body = "".join(
        f"<tr><td><code>{e(r.claim)}</code><br>{e(r.comparison)}</td>"
        f"<td>{e(fmt(r.tolerance))}</td><td>{e(fmt(r.margin))}</td><td>{e(fmt(r.spread))}"
        + (" <b style='color:#9a6700'>fragile</b>" if r.fragile else "")
        + "</td>"
        f"<td>{e(r.criterion)}</td></tr>"
        for r in rules.itertuples()
    )
    return (
        "<table class='tolerance-table' style='table-layout:fixed;width:100%;font-size:0.82em;"
        "overflow-wrap:anywhere'><colgroup><col style='width:34%'><col style='width:10%'>"
        "<col style='width:10%'><col style='width:12%'><col style='width:34%'></colgroup><thead><tr>"
        "<th>claim and comparison</th><th>tolerance</th><th>margin</th><th>run-to-run spread</th>"
        "<th>criterion</th></tr></thead><tbody>" + body + "</tbody></table>"
    )


def load_quotes(folder=None):
    """Every number quoted from the papers: the entries of ``book/quotes/<chapter>.yml``.

    Returns a DataFrame with columns chapter, value, source, context. Each file holds a list
    of mappings with the keys ``value``, ``source`` and ``context``; a missing key, an empty
    source or a value that is not a string raises ``ValueError`` (the number as printed must be
    kept exactly, so ``0.10`` must not become ``0.1``).
    """
    import pandas as pd
    import yaml

    from resnet_nb.core.paths import QUOTES

    folder = QUOTES if folder is None else folder
    rows = []
    for f in sorted(Path(folder).glob("*.yml")):
        entries = yaml.safe_load(f.read_text()) or []
        if not isinstance(entries, list):
            raise ValueError(f"{f.name}: expected a list of quotes, got {type(entries).__name__}")
        for i, q in enumerate(entries):
            if not isinstance(q, dict) or set(q) - {"value", "source", "context"}:
                raise ValueError(f"{f.name}, entry {i + 1}: keys must be value, source, context; got {q!r}")
            missing = [k for k in ("value", "source", "context") if not str(q.get(k) or "").strip()]
            if missing:
                raise ValueError(f"{f.name}, entry {i + 1}: missing {', '.join(missing)}")
            if not isinstance(q["value"], str):
                raise ValueError(f"{f.name}, entry {i + 1}: value must be a quoted string, got {q['value']!r}")
            rows.append(dict(chapter=f.stem, value=q["value"], source=q["source"], context=q["context"]))
    return pd.DataFrame(rows, columns=["chapter", "value", "source", "context"])


def quotes_html(df) -> str:
    """The quoted numbers as a table that fits the column (no index): chapter, number, source, context."""
    if not len(df):
        return "<p><i>No number is quoted from the papers yet.</i></p>"
    e = html.escape
    rows = "".join(
        f"<tr><td>{e(r.chapter)}</td><td><b>{e(r.value)}</b></td><td>{e(r.source)}</td><td>{e(r.context)}</td></tr>"
        for r in df.itertuples()
    )
    return (
        "<table class='quotes-table' style='table-layout:fixed;width:100%;font-size:0.85em;"
        "overflow-wrap:anywhere'><colgroup><col style='width:20%'><col style='width:11%'>"
        "<col style='width:27%'><col style='width:42%'></colgroup><thead><tr><th>chapter</th>"
        "<th>number</th><th>source</th><th>context</th></tr></thead><tbody>" + rows + "</tbody></table>"
    )


def _register_html() -> None:
    """Show a :class:`Check` as :func:`check_html` in IPython (a no-op outside IPython)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is a dependency of the package
        return
    shell = get_ipython()
    if shell is not None:
        shell.display_formatter.formatters["text/html"].for_type(Check, check_html)


_register_html()


def check_and_falsifier(rows, claim_id: str):
    """The check and the falsifier's check of ``claim_id`` in :func:`run_all`'s table indexed by
    ``id`` (what a chapter shows under the claim's statement)."""
    if claim_id not in rows.index:
        raise KeyError(f"claim {claim_id!r} was not run here; the table holds {sorted(rows.index)}")
    return rows.loc[claim_id, "check"], rows.loc[claim_id, "falsifier_check"]


def chapter_claims(chapter: str):
    """Run every claim of ``chapter`` (``"book/<name>.ipynb"``) once, check and falsifier, and
    require each to come out as declared; return :func:`run_all`'s table and a function
    ``checks(claim_id)`` giving a claim's check and its falsifier's check, to show under its
    statement."""
    from functools import partial

    table = run_all(claims_of(chapter), progress=False)
    require_all(table)
    return table, partial(check_and_falsifier, table.set_index("id"))
