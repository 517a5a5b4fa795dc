"""Quick static estimate of a chapter's reading path, from its notebook file, without a build.

For each notebook given (default: every chapter in book/), prints:

- visible words (issue 29's definition: every paragraph and list item a reader sees before any
  click, captions and admonitions included; code cells, cell outputs and tables left out):
  markdown text outside dropdown admonitions / ``{dropdown}`` / ``{toggle}`` blocks, outside
  Markdown tables and headings, and outside cells tagged ``remove-cell`` / ``hide-cell`` /
  ``remove-input`` (a markdown cell with ``remove-input`` is hidden), each ``{eval}`` role and
  each ``$...$`` formula counted as one word;
- visible code lines: non-blank source lines of code cells that are not tagged remove-input,
  hide-input, remove-cell or hide-cell;
- plumbing lines among them: a line with ``show.``, ``assert``, ``display(``, ipywidgets or
  ``interact``, ``%pip``, ``.require()`` or ``.refute()``; its share of the visible code lines;
- words and visible code lines before the first figure-producing cell. A cell produces a figure
  when its stored outputs hold an image, an SVG, a Vega-Lite or widget view, or an HTML figure; in
  a notebook stored without outputs, when its source calls matplotlib (``plt.``, ``.plot(``,
  ``subplots``), one of the package's figure or explorer functions (``plotting.``, ``views.``,
  ``figures.``, ``..._figure(``, ``explore(``, ``show_committed(``), or a markdown cell holds an image
  (``![..](..)``, ``{figure}``, ``{image}``, ``<img``).

Targets (issue 22): words before the first figure <= ~120 (plus the title), no visible code
before it, plumbing <= 5% of visible code lines, visible words <= 4,000. The estimate leaves cell
outputs out, as the definition does; the browser test (tests/browser) measures the built
page.

Usage: python scripts/reading_stats.py [book/NAME.ipynb ...] [--json]
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

HIDDEN_CELL = {"remove-cell", "hide-cell"}
HIDDEN_INPUT = {"remove-input", "hide-input"} | HIDDEN_CELL
HIDDEN_OUTPUT = {"remove-output", "hide-output"} | HIDDEN_CELL

PLUMBING = re.compile(r"show\.|\bassert\b|\bdisplay\(|ipywidgets|\binteract|%pip|\.require\(\)|\.refute\(\)")
FIG_SOURCE = re.compile(
    r"plt\.|\.plot\(|subplots|plotting\.|views\.|figures\.|_figure\(|\bexplore\(|"
    r"show_committed\(|experiment_widget\(|animation\("
)
FIG_MARKDOWN = re.compile(r"!\[[^\]]*\]\(|\{figure\}|\{image\}|<img\b|\{glue:figure\}")
FIG_MIME = (
    "image/png",
    "image/svg+xml",
    "image/jpeg",
    "application/vnd.vegalite.v5+json",
    "application/vnd.vegalite.v4+json",
    "application/vnd.jupyter.widget-view+json",
)
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’\-.,]*")


def _tags(cell) -> set:
    return set(cell.get("metadata", {}).get("tags", []))


def _src(cell) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def strip_folded(md: str) -> str:
    """Markdown without dropdown admonitions, {dropdown} and {toggle} blocks (fenced with ``` or
    :::, any fence length, nested blocks inside them dropped with them)."""
    out, stack = [], []  # stack of (fence, folded)
    lines = md.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^\s*(`{3,}|:{3,})\{([^}]*)\}", line)
        if m:
            fence, name = m.group(1), m.group(2).strip()
            # options follow the opening line (":class: dropdown")
            j, opts = i + 1, []
            while j < len(lines) and re.match(r"^\s*:[\w-]+:", lines[j]):
                opts.append(lines[j])
                j += 1
            folded = (
                name in ("dropdown", "toggle")
                or any(re.search(r":class:.*\bdropdown\b", o) for o in opts)
                or any(f for _, f in stack)
            )
            stack.append((fence, folded))
            if not folded:
                out.append(line)  # the title of an open admonition is read
            i = j
            continue
        if stack and re.match(r"^\s*" + re.escape(stack[-1][0]) + r"\s*$", line):
            stack.pop()
            i += 1
            continue
        if not any(f for _, f in stack):
            out.append(line)
        i += 1
    return "\n".join(out)


def count_words(md: str) -> int:
    md = re.sub(r"^\s*\|.*$", " ", md, flags=re.M)  # Markdown tables
    md = re.sub(r"^\s*#{1,6}\s.*$", " ", md, flags=re.M)  # headings
    md = re.sub(r"\$\$.*?\$\$", " F ", md, flags=re.S)
    md = re.sub(r"\$[^$\n]+\$", " F ", md)
    md = re.sub(r"\{eval\}`[^`]*`", " N ", md)
    md = re.sub(r"\{[a-z:-]+\}`([^`<]*)(<[^>]*>)?`", r" \1 ", md)  # roles: keep their text
    md = re.sub(r"^\s*(```|:::).*$", " ", md, flags=re.M)  # directive fences
    md = re.sub(r"^\s*:[\w-]+:.*$", " ", md, flags=re.M)  # directive options
    md = re.sub(r"<[^>]+>", " ", md)  # html tags
    md = re.sub(r"\]\([^)]*\)", "] ", md)  # link targets
    md = re.sub(r"^\s*\(([\w-]+)\)=\s*$", " ", md, flags=re.M)  # labels
    return len(WORD.findall(md))


def _makes_figure(cell, has_outputs: bool) -> bool:
    if cell["cell_type"] == "markdown":
        return bool(FIG_MARKDOWN.search(strip_folded(_src(cell)))) and not (_tags(cell) & HIDDEN_INPUT)
    if _tags(cell) & HIDDEN_OUTPUT:
        return False
    if has_outputs:
        for o in cell.get("outputs", []):
            data = o.get("data", {})
            if any(k in data for k in FIG_MIME):
                return True
            html_ = "".join(data.get("text/html", ""))
            if re.search(r"<svg|<img|vega|<canvas", html_):
                return True
        return False
    return bool(FIG_SOURCE.search(_src(cell)))


def stats(path) -> dict:
    nb = json.loads(Path(path).read_text())
    cells = nb["cells"]
    has_outputs = any(c.get("outputs") for c in cells if c["cell_type"] == "code")
    words = code = plumbing = 0
    before = None
    title = ""
    for cell in cells:
        tags = _tags(cell)
        w = c = p = 0
        if cell["cell_type"] == "markdown" and not tags & HIDDEN_INPUT:
            text = strip_folded(_src(cell))
            if not title:
                m = re.search(r"^#\s+(.*)$", text, flags=re.M)
                if m:
                    title = m.group(1).strip()
                    text = text.replace(m.group(0), "", 1)
            w = count_words(text)
        elif cell["cell_type"] == "code":
            if not tags & HIDDEN_INPUT:
                lines = [ln for ln in _src(cell).splitlines() if ln.strip()]
                c = len(lines)
                p = sum(bool(PLUMBING.search(ln)) for ln in lines)
        if before is None and _makes_figure(cell, has_outputs):
            before = {"words": words, "code lines": code}
        words, code, plumbing = words + w, code + c, plumbing + p
    return {
        "notebook": str(path),
        "title": title,
        "with outputs": has_outputs,
        "visible words": words,
        "visible code lines": code,
        "plumbing lines": plumbing,
        "plumbing share": plumbing / code if code else 0.0,
        "words before first figure": None if before is None else before["words"],
        "code lines before first figure": None if before is None else before["code lines"],
    }


def _flags(s: dict) -> list[str]:
    bad = []
    if s["words before first figure"] is None:
        bad.append("no figure found")
    else:
        if s["words before first figure"] > 150:
            bad.append("long opening")
        if s["code lines before first figure"]:
            bad.append("code above the first figure")
    if s["plumbing share"] > 0.05:
        bad.append("plumbing > 5%")
    if s["visible words"] > 4000:
        bad.append("> 4,000 words")
    return bad


def main(argv) -> int:
    as_json = "--json" in argv
    paths = [a for a in argv if not a.startswith("--")]
    if not paths:
        paths = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "book").glob("*.ipynb") if not p.name.startswith("_"))
    rows = [stats(p) for p in paths]
    if as_json:
        print(json.dumps(rows, indent=1))
        return 0
    head = f"{'notebook':34} {'words':>6} {'code':>5} {'plumb':>5} {'share':>6} {'w<fig':>6} {'c<fig':>6}  flags"
    print(head)
    for s in rows:
        wf = "-" if s["words before first figure"] is None else s["words before first figure"]
        cf = "-" if s["code lines before first figure"] is None else s["code lines before first figure"]
        print(
            f"{Path(s['notebook']).name:34} {s['visible words']:>6} {s['visible code lines']:>5} "
            f"{s['plumbing lines']:>5} {s['plumbing share']:>6.1%} {wf!s:>6} {cf!s:>6}  " + ", ".join(_flags(s))
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
