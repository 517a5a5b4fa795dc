r"""Every decimal number a reader sees in a chapter's text comes from the run or is a listed quote.

Issue 11, part 1. The Markdown of every ``book/*.ipynb`` (Markdown cells, exercise solutions
and math included) and of every ``book/*.md`` page is scanned for decimal numbers: ``0.182``,
``1e-3``, ``2.7e-12``, ``1.5e+3``. Each must be either

* inserted by MyST's ``{eval}`` role from a variable that a code cell *above* it assigns, or
* marked as a quote, ``{abbr}`0.182 (quoted from Li et al., Table 1)```, *and* listed in
  ``book/quotes/<chapter>.yml`` (keys value, source, context; every entry has a source).

An ``{abbr}`` quote whose number is not listed fails too, and so does an ``{eval}`` whose
content is not a name or a name's field (what myst-nb accepts, `_config.yml`) or whose variable no earlier
code cell assigns (a static check: the name is an assignment target, loop variable, import or
definition in an earlier code cell).

Not scanned, because they are not numbers of the book's results:

* code: inline code spans and fenced code blocks (but the bodies of MyST directives such as
  ``{exercise}``, ``{solution}``, ``{prf:theorem}`` and ``{dropdown}`` are prose and are scanned);
* addresses: URLs and the targets of Markdown links and images;
* references: the content of ``{cite}``, ``{doc}``, ``{ref}``, ``{numref}``, ``{prf:ref}``,
  ``{eq}``, ``{download}`` roles; numbers that name a part of a paper or of the book right after
  a reference word, in any case (Section 4.1, Theorem 2.1, Lemma B.1, Eq. (2.3), equation (2.3),
  inequality (2.3), Eqs. 3.2-3.6, Table 2, Figure 5, Appendix C.1, ...); arXiv identifiers
  (arXiv:1611.04231);
* dotted triples such as version numbers (``2.13.0``) and directive option lines (``:label:``);
* a decimal that is part of a symbol's name, in a parenthesised subscript: Li et al.'s
  ``|\lambda|_{(0.1)}`` for the 10th percentile of the eigenvalue moduli;
* HTML comments (a reader never sees them).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
import yaml

from resnet_nb.core import paths

ROOT = paths.ROOT
BOOK = ROOT / "book"
QUOTES = BOOK / "quotes"

DECIMAL = re.compile(r"(?<![\w.])(?:\d+(?:\.\d+)?[eE][-+]?\d+|\d+\.\d+)(?![\w])")
EVAL = re.compile(r"\{eval\}`([^`]*)`")
ABBR = re.compile(r"\{abbr\}`([^`]*)`")
# what myst-nb evaluates: a name or a dotted field of one (_config.yml's nb_eval_name_regex)
NAME = re.compile(
    yaml.safe_load((paths.ROOT / "_config.yml").read_text())["sphinx"]["config"]["nb_eval_name_regex"].strip("^$")
)
REF_ROLES = re.compile(r"\{(?:cite(?::[a-z]+)?|doc|ref|numref|prf:ref|eq|download|term)\}`[^`]*`")
REF_WORDS = (
    r"(?i:Sections?|Sec\.|§|Theorems?|Lemmas?|Corollar(?:y|ies)|Propositions?|Definitions?"
    r"|Claims?|Eqs?\.|Equations?|Tables?|Figures?|Figs?\.|Appendix|Appendices|Assumptions?"
    r"|Remarks?|Examples?|Algorithms?|Chapters?|Inequalit(?:y|ies)|printed\s+form)"
)
_REF_NUM = r"\(?[A-Z]?\d+(?:\.\d+)*(?:[a-z](?![-+\d]))?\)?"
REFERENCE = re.compile(REF_WORDS + r"\s*~?" + _REF_NUM + r"(?:\s*(?:-|–|—|,|and|or|to)\s*" + _REF_NUM + r")*")
ARXIV = re.compile(r"arXiv:?\s*\d+\.\d+(?:v\d+)?", re.IGNORECASE)
#: a decimal used as a name, not a value: the paper's 10th-percentile notation |lambda|_{(0.1)}
SUBSCRIPT_LABEL = re.compile(r"_\{?\(\d+\.\d+\)\}?")
TRIPLE = re.compile(r"(?<![\w.])\d+(?:\.\d+){2,}")
URL = re.compile(r"https?://\S+|www\.\S+")
LINK_TARGET = re.compile(r"\]\([^)]*\)")
CODE_SPAN = re.compile(r"(`+)(?!\s*$).*?(?<!`)\1(?!`)", re.DOTALL)
OPTION_LINE = re.compile(r"^\s*:[\w-]+:.*$", re.MULTILINE)
COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,}|:{3,})(.*)$")
CODE_DIRECTIVES = ("{code-cell}", "{code-block}", "{code}", "{literalinclude}", "{sourcecode}")


# ------------------------------------------------------------------------------ scanning
def drop_code_blocks(text: str) -> str:
    """Remove fenced code blocks; keep the bodies of MyST directives (prose)."""
    out, stack = [], []  # stack of (fence, is_code)
    for line in text.split("\n"):
        m = FENCE.match(line)
        if m:
            fence, info = m.group(2), m.group(3).strip()
            if stack and fence[0] == stack[-1][0][0] and len(fence) >= len(stack[-1][0]) and not info:
                stack.pop()
                out.append("")
                continue
            if not stack or not stack[-1][1]:
                is_code = fence[0] != ":" and not (info.startswith("{") and not info.startswith(CODE_DIRECTIVES))
                stack.append((fence, is_code))
                out.append(info if not is_code else "")  # a directive's title is prose
                continue
        out.append("" if any(code for _, code in stack) else line)
    return "\n".join(out)


def quote_values(chapter: str) -> set[str]:
    f = QUOTES / f"{chapter}.yml"
    if not f.exists():
        return set()
    return {str(q["value"]).strip() for q in (yaml.safe_load(f.read_text()) or [])}


def split_abbr(content: str):
    """``"0.182 (quoted from Li et al., Table 1)"`` -> ``("0.182", "quoted from Li et al., Table 1")``."""
    m = re.match(r"^(.*?)\s*\((quoted from.*)\)\s*$", content, re.DOTALL)
    if m:
        return m.group(1).strip(), m.group(2).strip()
    m = re.match(r"^(.*?)\s*\(([^()]*)\)\s*$", content, re.DOTALL)
    return (m.group(1).strip(), m.group(2).strip()) if m else (content.strip(), "")


def scan_markdown(text: str, assigned: set[str], quotes: set[str]) -> list[str]:
    """Problems in one Markdown cell: each a short sentence naming the number or the role."""
    problems = []
    text = COMMENT.sub(" ", text)
    text = drop_code_blocks(text)

    def eval_role(m):
        name = m.group(1).strip()
        if not NAME.fullmatch(name):
            problems.append(f"{{eval}}`{name}` is not a name or a name's field (myst-nb evaluates nothing else)")
        elif name.split(".")[0] not in assigned:
            problems.append(f"{{eval}}`{name}`: no code cell above assigns {name.split('.')[0]}")
        return " "

    def abbr_role(m):
        shown, title = split_abbr(m.group(1))
        if not title.lower().startswith("quoted from"):
            return " " + shown + " "  # an ordinary abbreviation: its text is scanned like prose
        nums = DECIMAL.findall(shown)
        listed = {n for v in quotes for n in DECIMAL.findall(v)}
        if shown not in quotes and not (nums and set(nums) <= listed):
            problems.append(f"quote {shown!r} ({title}) is not listed in the chapter's quotes file")
        return " "

    text = EVAL.sub(eval_role, text)
    text = ABBR.sub(abbr_role, text)
    for pat in (CODE_SPAN, URL, LINK_TARGET, REF_ROLES, OPTION_LINE, ARXIV, REFERENCE, TRIPLE, SUBSCRIPT_LABEL):
        text = pat.sub(" ", text)
    for m in DECIMAL.finditer(text):
        ctx = " ".join(text[max(0, m.start() - 40) : m.end() + 25].split())
        problems.append(f"{m.group(0)} typed by hand: ...{ctx}...")
    return problems


def assigned_names(source: str) -> set[str]:
    """Names a code cell binds (assignment targets, loop variables, imports, definitions)."""
    lines = []
    for line in source.split("\n"):  # IPython magics and shell escapes are not Python
        stripped = line.lstrip()
        lines.append(line[: len(line) - len(stripped)] + "pass" if stripped.startswith(("%", "!")) else line)
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return set(re.findall(r"^\s*([A-Za-z_]\w*)\s*(?:,\s*[A-Za-z_]\w*\s*)*=(?!=)", source, re.MULTILINE))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def scan_chapter(path: Path) -> list[str]:
    """Every problem of one chapter, as ``"<chapter> cell <id>: <problem>"``."""
    chapter = path.stem
    quotes = quote_values(chapter)
    out = []
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text())
        assigned: set[str] = set()
        for i, cell in enumerate(nb["cells"]):
            src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            if cell["cell_type"] == "code":
                assigned |= assigned_names(src)
            elif cell["cell_type"] == "markdown":
                cid = cell.get("id", f"#{i}")
                out += [f"{chapter} cell {cid}: {p}" for p in scan_markdown(src, assigned, quotes)]
    else:
        out += [f"{chapter}: {p}" for p in scan_markdown(path.read_text(), set(), quotes)]
    return out


CHAPTERS = sorted(BOOK.glob("*.ipynb")) + sorted(BOOK.glob("*.md"))


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.name for p in CHAPTERS])
def test_every_decimal_number_is_computed_or_a_listed_quote(path):
    problems = scan_chapter(path)
    assert not problems, f"{len(problems)} number(s) in {path.name}:\n" + "\n".join(problems)


def test_quote_files_are_complete():
    """Each entry of book/quotes/*.yml has a value (a string), a source and a context, and each
    file belongs to a chapter."""
    from resnet_nb.book import ledger

    df = ledger.load_quotes(QUOTES)
    chapters = {p.stem for p in CHAPTERS}
    assert set(df.chapter) <= chapters, f"quote files without a chapter: {set(df.chapter) - chapters}"


def chapter_markdown(path: Path) -> str:
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text())
        return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    return path.read_text()


QUOTE_FILES = sorted(QUOTES.glob("*.yml"))


@pytest.mark.parametrize("qfile", QUOTE_FILES, ids=[q.name for q in QUOTE_FILES])
def test_every_listed_quote_is_marked_in_its_chapter(qfile):
    """The list is the one place of quotes: an entry whose number no {abbr} quote of the chapter
    shows any more is stale."""
    chapter = next((p for p in CHAPTERS if p.stem == qfile.stem), None)
    assert chapter is not None, f"{qfile.name} has no chapter"
    shown = [
        split_abbr(m)[0]
        for m in ABBR.findall(chapter_markdown(chapter))
        if split_abbr(m)[1].lower().startswith("quoted from")
    ]
    tokens = {n for t in shown for n in DECIMAL.findall(t)} | set(shown)
    stale = [
        v
        for v in quote_values(qfile.stem)
        if v not in tokens and not (DECIMAL.findall(v) and set(DECIMAL.findall(v)) <= tokens)
    ]
    assert not stale, f"{qfile.name}: listed but not marked as a quote in {chapter.name}: {stale}"


# ------------------------------------------------------------------------------ the scanner itself
def test_scanner_flags_typed_numbers_and_accepts_eval_and_listed_quotes():
    q = {"0.182"}
    assert scan_markdown("the ratio is 0.54 here", set(), q)
    assert scan_markdown("worst error 2.7e-12", set(), q)
    assert scan_markdown("step 1e-3", set(), q)
    assert scan_markdown("in math $\\lambda = 0.628$", set(), q)
    assert not scan_markdown("worst error {eval}`worst`", {"worst"}, q)
    assert scan_markdown("worst error {eval}`worst`", set(), q)  # not assigned above
    assert not scan_markdown("worst {eval}`res.value`", {"res"}, q)  # a result's field
    assert scan_markdown("worst {eval}`res.value`", set(), q)  # res not assigned above
    assert scan_markdown("worst {eval}`res.value()`", {"res"}, q)  # a call: myst-nb refuses it
    assert scan_markdown("worst {eval}`res[0]`", {"res"}, q)  # indexing: refused too
    assert not scan_markdown("{abbr}`0.182 (quoted from Li et al., Table 1)`", set(), q)
    assert scan_markdown("{abbr}`0.183 (quoted from Li et al., Table 1)`", set(), q)  # not listed
    assert scan_markdown("{abbr}`0.182 (an abbreviation)`", set(), q)  # not a quote


def test_scanner_skips_code_urls_and_references():
    none = set()
    for text in [
        "`lr=0.1`",
        "```python\nx = 0.5\n```",
        "see https://x.org/a/1.2.html",
        "[p](files/v0.1.pdf)",
        "Theorem 2.1 and Lemma B.1",
        "Eqs. 3.2-3.6",
        "Eq. (2.3)",
        "Section 4.1",
        "the printed inequality (2.3)",
        "the printed\nform (2.3)",
        "$|\\lambda|_{(0.1)}$",
        "arXiv:1611.04231",
        "torch 2.13.0",
        "{cite}`he2016deep`",
        "<!-- 0.5 -->",
        "```{literalinclude} ../x.py\n:lines: 1\n```",
    ]:
        assert not scan_markdown(text, none, none), text
    # the bodies of directives are prose
    assert scan_markdown("```{solution} ex\n:class: dropdown\nThe ratio is 0.54.\n```", none, none)
    assert scan_markdown(":::{prf:theorem} Title\nwith 0.5\n:::", none, none)


def test_assigned_names_reads_python_with_magics():
    src = (
        "%matplotlib inline\ntry:\n    import x\nexcept ImportError:\n    %pip install x\n"
        "a, b = 1, 2\nfor i in []: pass\n"
    )
    assert {"a", "b", "i", "x"} <= assigned_names(src)


def _silenced_before_eval(nb: dict) -> list[str]:
    """Code cells whose last statement ends with ';' and that are followed, before the next code
    cell, by prose with an {eval} role."""
    cells, found = nb["cells"], []
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        lines = [s for s in "".join(cell["source"]).splitlines() if s.strip() and not s.strip().startswith("#")]
        if not lines or not lines[-1].rstrip().endswith(";"):
            continue
        for later in cells[i + 1 :]:
            if later["cell_type"] == "code":
                break
            if "{eval}" in "".join(later["source"]):
                found.append(f"cell {i} ({cell.get('id')}) ends with ';' before {{eval}} prose")
                break
    return found


@pytest.mark.parametrize("path", sorted(BOOK.glob("*.ipynb")), ids=lambda p: p.name)
def test_no_eval_follows_a_cell_silenced_by_a_semicolon(path):
    """myst-nb evaluates an {eval} expression without storing it in IPython's history, and IPython
    decides whether to silence a value by the last stored cell: after a cell ending with ';' the
    expression shows nothing and the page loses its number."""
    found = _silenced_before_eval(json.loads(path.read_text(encoding="utf8")))
    assert not found, f"{path.name}: " + "; ".join(found)


def test_semicolon_scan_finds_a_silenced_cell_before_eval_prose():
    nb = {
        "cells": [
            {"cell_type": "code", "source": ["ax.set_title('t');\n"]},
            {"cell_type": "markdown", "source": ["depth {eval}`d`"]},
            {"cell_type": "code", "source": ["x = 1;"]},
            {"cell_type": "code", "source": ["y"]},
        ]
    }
    assert _silenced_before_eval(nb) == ["cell 0 (None) ends with ';' before {eval} prose"]
