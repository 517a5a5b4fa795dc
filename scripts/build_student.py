"""Build the student edition of the book: the same site without the exercise solutions.

    python scripts/build_student.py            # (what `make student` runs)

Steps:

1. copy the sources (everything but .git, .venv, _build and caches) to
   ``_build/student/src``;
2. remove every ``{solution}`` block, and every gated ``{solution-start}`` ...
   ``{solution-end}`` block with the notebook cells between them, from the copied Markdown
   files and notebooks, so that the downloadable ``.ipynb`` and Markdown sources hold no
   solutions either;
3. set sphinx-exercise's ``hide_solutions`` option in the copied ``_config.yml`` as a second
   guard, and mark the title as the student edition;
4. build the copy with warnings as errors, every notebook executed, into
   ``_build/student/html``;
5. fail if any page of the result still contains a solution block.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "_build" / "student"
SRC = OUT / "src"
HTML = OUT / "html"

IGNORE = shutil.ignore_patterns(
    ".git",
    ".venv",
    "_build",
    "node_modules",
    ".pytest_cache",
    ".hypothesis",
    ".ipynb_checkpoints",
    "__pycache__",
    "npm",
    "*.egg-info",
)

_OPEN = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|:{3,})\{(?P<name>solution(?:-start|-end)?)\}")


def strip_solutions(text: str, gated: bool = False) -> tuple[str, bool, int]:
    """Remove solution directives from MyST text.

    ``gated`` says whether the text starts inside a ``{solution-start}`` block (which may span
    several notebook cells). Returns the new text, whether it ends inside a gated block, and
    how many blocks were removed.
    """
    out: list[str] = []
    removed = 0
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _OPEN.match(line)
        if m and m.group("name") in ("solution", "solution-start", "solution-end"):
            fence = m.group("fence")
            # Skip to the closing fence: the same character, at least as long, alone on a line.
            j = i + 1
            close = re.compile(r"^\s*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
            while j < len(lines) and not close.match(lines[j]):
                j += 1
            name = m.group("name")
            if name == "solution":
                removed += 1
            elif name == "solution-start":
                removed += 1
                gated = True
            else:
                gated = False
            i = j + 1
            continue
        if not gated:
            out.append(line)
        i += 1
    return "".join(out), gated, removed


def strip_notebook(path: Path) -> int:
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = []
    gated = False
    removed = 0
    for cell in nb.get("cells", []):
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else source
        if cell.get("cell_type") == "markdown":
            was_gated = gated
            new, gated, n = strip_solutions(text, gated)
            removed += n
            if n or was_gated:
                if new.strip():
                    cell["source"] = new
                    cells.append(cell)
                continue
            cells.append(cell)
        elif gated:
            continue  # a code cell that belongs to a gated solution
        else:
            cells.append(cell)
    nb["cells"] = cells
    if removed:
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return removed


def strip_markdown(path: Path) -> int:
    text = path.read_text(encoding="utf-8")
    new, _, removed = strip_solutions(text)
    if removed:
        path.write_text(new, encoding="utf-8")
    return removed


def main() -> int:
    if OUT.exists():
        shutil.rmtree(OUT)
    SRC.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(ROOT, SRC, ignore=IGNORE, symlinks=True)
    # the chapters' text twins hold the solutions too, and the student edition builds from the notebooks
    shutil.rmtree(SRC / "book" / "text", ignore_errors=True)

    removed = 0
    for path in sorted((SRC / "book").rglob("*")):
        if path.suffix == ".ipynb":
            removed += strip_notebook(path)
        elif path.suffix == ".md":
            removed += strip_markdown(path)
    print(f"build_student: removed {removed} solution block(s) from the copied sources")

    config_path = SRC / "_config.yml"
    config = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    config["title"] = f"{config.get('title', 'Book')} (student edition)"
    config.setdefault("sphinx", {}).setdefault("config", {})["hide_solutions"] = True
    config_path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")

    # The jupyter-book next to this interpreter: `make student` runs .venv/bin/python without
    # activating the environment, so .venv/bin need not be on PATH.
    beside = Path(sys.executable).parent / "jupyter-book"
    jb = str(beside) if beside.exists() else (shutil.which("jupyter-book") or "jupyter-book")
    cmd = [jb, "build", str(SRC), "--warningiserror", "--nitpick", "--keep-going"]
    print("build_student:", " ".join(cmd), flush=True)
    result = subprocess.run(cmd, cwd=SRC)
    if result.returncode != 0:
        print("build_student: the student build failed", file=sys.stderr)
        return result.returncode
    shutil.move(str(SRC / "_build" / "html"), str(HTML))

    leaks = [
        p.relative_to(HTML)
        for p in HTML.rglob("*.html")
        if re.search(r'class="solution[ "]', p.read_text(encoding="utf-8"))
    ]
    if leaks:
        print(f"build_student: solutions still present in {leaks}", file=sys.stderr)
        return 1
    print(f"build_student: student edition in {HTML.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
