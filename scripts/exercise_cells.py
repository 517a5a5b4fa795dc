"""Answer and check cells under the chapters' exercises, written from resnet_nb.book.exercises.

    python scripts/exercise_cells.py            # insert or update the cells in book/*.ipynb
    python scripts/exercise_cells.py --check    # exit 1 if a chapter's cells differ from the package

For every exercise with a check, two code cells follow the exercise (after its solution, so that
the student edition, which drops the solution, shows them right under the statement):

* the answer cell (id ``ex-answer-<label>``, tag ``exercise-answer``): the template the student
  fills in, with ``...`` where the answer goes;
* the check cell (id ``ex-check-<label>``, tag ``exercise-check``): ``exercises.check(label, ...)``,
  which says correct or names the mistake.

Both are also tagged ``remove-cell``: the site shows the statement and the folded solution, not an
empty answer; the notebooks (JupyterLab, downloads, the student edition's sources) keep them.

On the site the check's hints appear inside the folded solution, after it: a block between the
comment lines ``% check hints <label>`` and ``% end check hints`` at the end of a ``{solution}``
directive, or a Markdown cell (id ``ex-hints-<label>``) just before a gated solution's
``{solution-end}``. The student edition drops them with the solution.
The grader (``scripts/teach/grade.py``) finds the cells by these ids and tags.
Only these cells are written; every other cell, and its id, is left as it is.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
ANSWER_TAG, CHECK_TAG = "exercise-answer", "exercise-check"
SOLUTION = re.compile(r"^`{3,}\{solution(?P<gate>-start)?\}\s+(?P<label>\S+)", re.MULTILINE)
LABEL = re.compile(r"^:label:\s+(\S+)", re.MULTILINE)


def _source(cell) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def answer_source(spec, opening: str = "") -> str:
    said = f': "{opening}"' if opening else ""
    return (
        f"# Your answer to {spec.label}{said}\n"
        f"# replace every ... below, run this cell, then the check under it.\n{spec.template}"
    )


def openings(cells: list[dict]) -> dict[str, str]:
    """label -> the first words of the exercise's statement (to name it in its answer cell)."""
    out = {}
    for cell in cells:
        if cell["cell_type"] != "markdown":
            continue
        lines = _source(cell).splitlines()
        for i, line in enumerate(lines):
            if not re.match(r"^`{3,}\{exercise\}", line):
                continue
            label, body = None, []
            for nxt in lines[i + 1 :]:
                if nxt.startswith("```"):
                    break
                if nxt.startswith(":label:"):
                    label = nxt.split()[1]
                elif not nxt.startswith(":"):
                    body.append(nxt)
            text = re.sub(r"\{[a-z:]+\}`([^`<]*)[^`]*`", r"\1", " ".join(body))  # roles: their text
            text = re.sub(r"\\(operatorname|math[a-z]+|text[a-z]*)\b", "", text)  # TeX fonts
            text = re.sub(r"\\([A-Za-z]+)", r"\1", text)  # \gamma -> gamma
            words = " ".join(re.sub(r"[$`*{}\\]", "", text).split())
            if label:
                out[label] = words if len(words) <= 40 else words[:40].rsplit(" ", 1)[0] + " ..."
    return out


def check_source(spec) -> str:
    args = "".join(f", {a}" for a in spec.args)
    return f'from resnet_nb.book import exercises\n\nexercises.check("{spec.label}"{args})'


def cells_for(spec, opening: str = "") -> list[dict]:
    def code(kind, tag, source):
        return {
            "cell_type": "code",
            "execution_count": None,
            "id": f"ex-{kind}-{spec.label}",
            "metadata": {"exercise": spec.label, "tags": [tag, "remove-cell"]},
            "outputs": [],
            "source": source.splitlines(keepends=True),
        }

    return [code("answer", ANSWER_TAG, answer_source(spec, opening)), code("check", CHECK_TAG, check_source(spec))]


HINTS_START, HINTS_END = "% check hints ", "% end check hints"
# the block and the blank line written before it, so that removing it restores the text exactly
HINTS_BLOCK = re.compile(r"\n% check hints \S+[^\n]*\n.*?^% end check hints\n", re.MULTILINE | re.DOTALL)


def hints_block(spec) -> str:
    items = "".join(f"- {h}\n" for h in spec.hints.values())
    return (
        f"{HINTS_START}{spec.label} (written by scripts/exercise_cells.py from resnet_nb.book.exercises)\n"
        "**In the notebook** the answer cell under this exercise has a check. Besides a wrong shape, "
        "sign, factor of two or transpose, it recognises these mistakes and answers:\n\n"
        f"{items}{HINTS_END}\n"
    )


def with_hints(text: str, label: str, block: str) -> str:
    """``text`` with ``block`` before the closing fence of the ``{solution}`` of ``label``."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        m = re.match(r"^(`{3,})\{solution\}\s+(\S+)", line)
        if not m or m.group(2) != label:
            continue
        close = re.compile(rf"^{m.group(1)}\s*$")
        j = next(k for k in range(i + 1, len(lines)) if close.match(lines[k]))
        return "".join(lines[:j]) + "\n" + block + "".join(lines[j:])
    raise ValueError(f"no {{solution}} block of {label}")


def solution_end(cells: list[dict], label: str) -> int | None:
    """Index of the cell that closes the solution of ``label`` (None if it has none)."""
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        for m in SOLUTION.finditer(_source(cell)):
            if m.group("label") != label:
                continue
            if not m.group("gate"):
                return i
            for j in range(i, len(cells)):
                if cells[j]["cell_type"] == "markdown" and "{solution-end}" in _source(cells[j]):
                    return j
    return None


def place(nb: dict, specs: dict) -> int:
    """Insert or refresh the cells of every checked exercise of ``nb``; returns the cells written."""
    cells = nb["cells"]
    ours = {c.get("id") for s in specs.values() for c in cells_for(s)} | {f"ex-hints-{lab}" for lab in specs}
    for cell in cells:  # the hints written into solutions are rewritten below
        if cell["cell_type"] == "markdown" and HINTS_START in _source(cell):
            cell["source"] = HINTS_BLOCK.sub("", _source(cell)).splitlines(keepends=True)
    said = openings(cells)
    cells[:] = [c for c in cells if c.get("id") not in ours]
    labels = [lab for c in cells if c["cell_type"] == "markdown" for lab in LABEL.findall(_source(c))]
    written = 0
    for label in reversed(labels):  # reversed: inserting keeps the earlier indices valid
        if label not in specs:
            continue
        end = solution_end(cells, label)
        if end is None:
            raise SystemExit(f"exercise_cells: {label} has no solution block to place the cells after")
        # after the closing cell and after the cells already placed there for later labels of it
        cells[end + 1 : end + 1] = cells_for(specs[label], said.get(label, ""))
        written += 2
        block = hints_block(specs[label])
        if "{solution-end}" in _source(cells[end]):  # gated: a cell inside the gate, before its end
            hint_cell = {"cell_type": "markdown", "id": f"ex-hints-{label}", "metadata": {}}
            cells.insert(end, dict(hint_cell, source=block.splitlines(keepends=True)))
        else:
            cells[end]["source"] = with_hints(_source(cells[end]), label, block).splitlines(keepends=True)
    return written


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    from resnet_nb.book.exercises import specs as all_specs

    specs = all_specs()
    check = "--check" in argv
    stale, seen = [], set()
    for path in sorted(BOOK.glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        before = json.dumps(nb["cells"], sort_keys=True)
        n = place(nb, specs)
        seen |= {c["metadata"].get("exercise") for c in nb["cells"] if c.get("id", "").startswith("ex-answer-")}
        if json.dumps(nb["cells"], sort_keys=True) != before:
            stale.append(path.name)
            if not check:
                path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
                print(f"exercise_cells: {path.name}: {n // 2} exercise(s) with answer and check cells")
    missing = sorted(set(specs) - seen)
    if missing:
        print(f"exercise_cells: no chapter has the exercises {missing}", file=sys.stderr)
        return 1
    if check and stale:
        print(f"exercise_cells: answer or check cells differ from the package in {stale}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
