"""The counts issue 33 is judged by, and the caps ``make lint`` enforces on the chapters.

    python scripts/code_metrics.py            # print the counts
    python scripts/code_metrics.py --check    # exit 1 on a chapter cell or a package function over the caps
    python scripts/code_metrics.py --per-chapter

Counts:

* chapter code lines: non-blank lines of the chapters' code cells (``book/*.ipynb``);
* ``def`` in chapters: function and class definitions in code cells, outside the answers to
  exercises (a cell tagged ``exercise-answer``, or a code cell between a ``{solution-start}`` and
  its ``{solution-end}``: a student's function is the point there);
* ``{eval}``-feeding lines: code lines that call ``show.`` or bind a name that only ``{eval}``
  expressions read (the lines that exist to put a number into the prose);
* functions over 60 lines in ``resnet_nb``;
* ``# pragma: no mutate`` lines in ``resnet_nb``;
* imports between the sibling packages ``li``, ``hardt_ma`` and ``experiments`` (inside functions
  included).

Caps (``--check``): no ``def`` in a chapter outside exercise answers, no code cell over
``MAX_CELL`` non-blank lines, visible or not, except the cells listed in ``ALLOWANCE`` (the ones
not yet cut down, each with the length it had when listed): a listed cell may shrink, never grow,
and a listed cell that meets the cap must leave the list, so the list only gets shorter; no
function of the package over ``MAX_FUNCTION`` lines.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
MAX_CELL = 25
MAX_FUNCTION = 60
ALLOWANCE = ROOT / "scripts" / "cell_allowance.txt"
EVAL = re.compile(r"\{eval\}`([^`]+)`")
SIBLINGS = ("li", "hardt_ma", "experiments")


def _source(cell) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def _lines(source: str) -> list[str]:
    return [ln for ln in source.splitlines() if ln.strip()]


def _names(tree: ast.AST, ctx) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}


def _parse(source: str) -> ast.AST | None:
    clean = "\n".join(
        ln[: len(ln) - len(ln.lstrip())] + "pass" if ln.lstrip().startswith(("%", "!")) else ln
        for ln in source.splitlines()
    )
    try:
        return ast.parse(clean)
    except SyntaxError:
        return None


def chapter_cells(path: Path):
    """(cell, is_exercise_answer) for every code cell of a chapter."""
    inside = False
    for cell in json.loads(path.read_text())["cells"]:
        src = _source(cell)
        if cell["cell_type"] == "markdown":
            if re.search(r"\{solution-start\}", src):
                inside = True
            if re.search(r"\{solution-end\}", src):
                inside = False
            continue
        if cell["cell_type"] != "code":
            continue
        tags = cell.get("metadata", {}).get("tags", [])
        yield cell, inside or "exercise-answer" in tags


_ALLOWANCE: dict | None = None


def allowance() -> dict:
    """{(chapter, cell id): lines} of the cells still over the cap (read once per check)."""
    global _ALLOWANCE
    if _ALLOWANCE is None:
        _ALLOWANCE = {}
        if ALLOWANCE.exists():
            for line in ALLOWANCE.read_text().splitlines():
                if line.strip() and not line.startswith("#"):
                    chapter, cid, n = line.split()
                    _ALLOWANCE[(chapter, cid)] = int(n)
    return _ALLOWANCE


def chapter_counts(paths=None) -> tuple[dict, list[str]]:
    code = defs = feeding = 0
    problems = []
    for path in paths or sorted(BOOK.glob("*.ipynb")):
        cells = list(chapter_cells(path))
        nb = json.loads(path.read_text())
        eval_names: set[str] = set()
        for cell in nb["cells"]:
            if cell["cell_type"] == "markdown":
                for expr in EVAL.findall(_source(cell)):
                    tree = _parse(expr)
                    if tree is not None:
                        eval_names |= _names(tree, ast.Load)
        loaded: set[str] = set()
        for cell, _ in cells:
            tree = _parse(_source(cell))
            if tree is not None:
                loaded |= _names(tree, ast.Load)
        only_eval = eval_names - loaded
        for cell, answer in cells:
            src = _source(cell)
            lines = _lines(src)
            code += len(lines)
            cid = cell.get("id", "?")
            allowed = allowance().pop((path.stem, cid), None) if len(lines) > MAX_CELL else None
            if len(lines) > MAX_CELL and (allowed is None or len(lines) > allowed):
                limit = MAX_CELL if allowed is None else f"{allowed}, its listed allowance"
                problems.append(f"{path.relative_to(ROOT)} cell {cid}: {len(lines)} lines (at most {limit})")
            tree = _parse(src)
            if tree is None:
                continue
            cell_defs = [
                n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            ]
            if not answer:
                defs += len(cell_defs)
                for n in cell_defs:
                    problems.append(
                        f"{path.relative_to(ROOT)} cell {cid}: defines {n.name} "
                        "(move it to the package; a chapter cell calls it)"
                    )
            src_lines = src.splitlines()
            feeding_lines = set()
            for node in ast.walk(tree):
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "show":
                    feeding_lines.add(node.lineno)
                if isinstance(node, (ast.Assign, ast.AnnAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    bound = set().union(*(_names(t, ast.Store) for t in targets))
                    if bound and bound <= only_eval:
                        feeding_lines.update(range(node.lineno, node.end_lineno + 1))
            feeding += sum(1 for i in feeding_lines if i - 1 < len(src_lines) and src_lines[i - 1].strip())
    return {"chapter code lines": code, "def in chapters": defs, "{eval}-feeding lines": feeding}, problems


def long_functions() -> list[str]:
    """``path:line name: N lines`` for every function of the package over ``MAX_FUNCTION`` lines."""
    found = []
    for path in sorted((ROOT / "resnet_nb").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION:
                    rel = path.relative_to(ROOT)
                    found.append(f"{rel}:{node.lineno} {node.name}: {n} lines (at most {MAX_FUNCTION})")
    return found


def package_counts() -> dict:
    pragmas = sibling = 0
    for path in sorted((ROOT / "resnet_nb").rglob("*.py")):
        text = path.read_text()
        pragmas += sum("pragma: no mutate" in ln for ln in text.splitlines())
        tree = ast.parse(text)
        rel = path.relative_to(ROOT / "resnet_nb").parts
        own = rel[0] if rel[0] in SIBLINGS else None
        if own is None:
            continue
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = list(rel[:-1])[: len(rel) - node.level]
                    mod = ".".join(["resnet_nb", *base, *(node.module.split(".") if node.module else [])])
                else:
                    mod = node.module or ""
                targets = [mod]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for mod in targets:
                parts = mod.split(".")
                if len(parts) > 1 and parts[0] == "resnet_nb" and parts[1] in SIBLINGS and parts[1] != own:
                    sibling += 1
    return {
        f"functions over {MAX_FUNCTION} lines": len(long_functions()),
        "pragma lines": pragmas,
        "imports between sibling packages": sibling,
    }


def main(argv: list[str]) -> int:
    counts, problems = chapter_counts()
    if "--per-chapter" in argv:
        for path in sorted(BOOK.glob("*.ipynb")):
            c, p = chapter_counts([path])
            print(f"{path.stem:<24}", "  ".join(f"{k} {v:,}" for k, v in c.items()), f"  over caps {len(p)}")
        return 0
    if "--check" in argv:
        problems += [
            f"{ALLOWANCE.relative_to(ROOT)}: {ch} cell {cid} is within the cap or gone: remove it from the list"
            for ch, cid in allowance()
        ]
        problems += long_functions()
        for p in problems:
            print(p)
        return 1 if problems else 0
    counts.update(package_counts())
    width = max(map(len, counts))
    for k, v in counts.items():
        print(f"{k:<{width}}  {v:>6,}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
