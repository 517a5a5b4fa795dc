"""The code's shape, checked (``make lint``): what a reader of the package and its tests can rely on.

* every module of ``resnet_nb`` has at most ``MAX_LINES`` lines, and its docstring's first
  paragraph names the chapter it serves (a path ``book/<chapter>.ipynb``, or ``book/*.ipynb``
  for a module every chapter uses);
* the tests mirror the package: no test file at the top of ``tests/`` outside the folders
  ``core``, ``li``, ``hardt_ma``, ``experiments``, ``book`` (and the browser, lab and course
  materials tests), and no file named after the process that found its tests (``test_kill_*``);
* tests use the package's public names only: no ``from resnet_nb... import _name`` and no
  ``module._name`` on a module of the package;
* an expected error is matched on a fragment that names what was wrong, not on the whole message
  anchored with ``^`` or ``$``.

Exits 1 with one line per violation.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 800
TEST_FOLDERS = {"core", "shared", "li", "hardt_ma", "experiments", "book", "browser", "lab", "teach"}
CHAPTER = re.compile(r"book/[a-z0-9_*]+")
ANCHORED = re.compile(r"""match\s*=\s*r?(["'])(\^|.*\$\1)""")


def package_problems() -> list[str]:
    out = []
    for path in sorted((ROOT / "resnet_nb").rglob("*.py")):
        rel = path.relative_to(ROOT)
        text = path.read_text()
        lines = text.count("\n")
        if lines > MAX_LINES:
            out.append(f"{rel}: {lines} lines (at most {MAX_LINES}: split it along the chapter's statements)")
        if path.name in ("__init__.py", "__main__.py"):
            continue
        doc = ast.get_docstring(ast.parse(text)) or ""
        if not CHAPTER.search(doc.split("\n\n", 1)[0]):
            out.append(f"{rel}: the docstring's first paragraph names no chapter (book/<chapter>.ipynb)")
    return out


def _package_modules(tree: ast.AST) -> set[str]:
    """Names bound to a module of the package in a test file."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("resnet_nb"):
                    names.add(a.asname or a.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("resnet_nb"):
            for a in node.names:
                names.add(a.asname or a.name)
    return names


def test_problems() -> list[str]:
    out = []
    tests = ROOT / "tests"
    for path in sorted(tests.rglob("*.py")):
        rel = path.relative_to(ROOT)
        parts = path.relative_to(tests).parts
        if path.name.startswith("test_kill"):
            out.append(f"{rel}: named after the process that found its tests; name it after the statement")
        if len(parts) == 1 and path.name.startswith("test_"):
            out.append(f"{rel}: a test file outside the folders that mirror the package {sorted(TEST_FOLDERS)}")
        text = path.read_text()
        tree = ast.parse(text)
        modules = _package_modules(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("resnet_nb"):
                private = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
                if private:
                    out.append(f"{rel}:{node.lineno}: imports private names {private} of {node.module}")
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and isinstance(node.value, ast.Name)
                and node.value.id in modules
            ):
                out.append(f"{rel}:{node.lineno}: uses the private name {node.value.id}.{node.attr}")
        for number, line in enumerate(text.splitlines(), 1):
            if ANCHORED.search(line):
                out.append(f"{rel}:{number}: an anchored whole-message match; match a fragment that names the argument")
    return out


def main() -> int:
    problems = package_problems() + test_problems()
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
