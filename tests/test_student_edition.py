"""The student edition's solution stripper (scripts/build_student.py)."""

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("build_student", ROOT / "scripts" / "build_student.py")
build_student = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_student)


def test_removes_fenced_and_colon_solutions_but_keeps_exercises():
    text = (
        "Intro.\n\n"
        "```{exercise}\n:label: ex-a\n\nDo it.\n```\n\n"
        "````{solution} ex-a\n:class: dropdown\n\n```python\nprint(42)\n```\n````\n\n"
        ":::{solution} ex-a\nColon fenced answer.\n:::\n\n"
        "After.\n"
    )
    new, gated, removed = build_student.strip_solutions(text)
    assert removed == 2 and not gated
    assert "{exercise}" in new and "Do it." in new and "After." in new
    assert "print(42)" not in new and "Colon fenced" not in new and "{solution}" not in new


def test_gated_solution_spanning_notebook_cells_is_removed(tmp_path):
    def md(s):
        return {"cell_type": "markdown", "metadata": {}, "source": s}

    def code(s):
        return {"cell_type": "code", "metadata": {}, "source": s, "outputs": [], "execution_count": None}

    nb = {
        "cells": [
            md("```{exercise}\n:label: ex-b\nTask.\n```"),
            md("```{solution-start} ex-b\n:class: dropdown\n```\nAnswer text."),
            code("secret = 1"),
            md("```{solution-end}\n```"),
            code("kept = 2"),
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / "chapter.ipynb"
    path.write_text(json.dumps(nb))
    assert build_student.strip_notebook(path) == 1
    sources = [c["source"] for c in json.loads(path.read_text())["cells"]]
    assert sources[0].startswith("```{exercise}")
    assert "kept = 2" in sources
    assert not any("secret" in s or "Answer text" in s or "solution" in s for s in sources)


def test_text_without_solutions_is_unchanged():
    text = "```{exercise}\nNo answer here.\n```\n"
    assert build_student.strip_solutions(text) == (text, False, 0)
