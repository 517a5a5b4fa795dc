"""One notebook per lecture with its checked problems: ``make assignments`` -> ``_build/teach/assignments``.

    python -m scripts.teach.assignment [OUT]

Each ``lecture-<n>.ipynb`` holds, for every problem of the lecture (``scripts/teach/problems.yml``,
the list the teachers' page, the sheets and the keys use), the exercise's statement as the chapter
states it, and for the checked ones the same answer and check cells as the chapter
(``scripts/exercise_cells.py``). Students fill it in JupyterLab; ``make grade`` grades a folder of
them. The statements' ``{eval}`` numbers need their chapter's run: the chapter itself is the place
to read them.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import yaml

from scripts import exercise_cells

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
SETUP = """import numpy as np
import torch

from resnet_nb import ShortcutNetwork
from resnet_nb.book import exercises
"""
STATS = """
from resnet_nb.shared.common import mnist

stats = mnist().stats()  # whitened MNIST, 10 components: the data of the chapters"""
NEEDS_STATS = ("theorem1", "theorem1_dynamics", "exp_initial_point", "exp_dynamics", "exp_learning")


def statement(chapter: str, label: str) -> str:
    """The ``{exercise}`` block of ``label`` in ``book/<chapter>.ipynb``, as written there."""
    nb = json.loads((BOOK / f"{chapter}.ipynb").read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        for m in re.finditer(r"^(`{3,})\{exercise\}.*?^\1\s*$", text, re.MULTILINE | re.DOTALL):
            if re.search(rf"^:label:\s+{re.escape(label)}\s*$", m.group(0), re.MULTILINE):
                return m.group(0)
    raise SystemExit(f"assignment: {label} is not an exercise of book/{chapter}.ipynb")


def chapter_of(label: str, chapters: list[str]) -> str:
    for ch in chapters:
        if f":label: {label}" in (BOOK / f"{ch}.ipynb").read_text(encoding="utf-8"):
            return ch
    raise SystemExit(f"assignment: no chapter of the lecture states {label}")


def lecture_notebook(lecture: dict, specs: dict) -> dict:
    def md(i, s):
        return {"cell_type": "markdown", "id": f"md-{i}", "metadata": {}, "source": s}

    cells = [
        md(
            "title",
            f"# Lecture {lecture['number']}: {lecture['title']}\n\nWrite each answer in the cell under "
            "the exercise and run the check beneath it: it says whether the answer is right, or what "
            "is wrong. Exercises without a check are graded by hand.",
        ),
        {
            "cell_type": "code",
            "id": "setup",
            "metadata": {},
            "source": SETUP + (STATS if set(lecture["chapters"]) & set(NEEDS_STATS) else ""),
            "outputs": [],
            "execution_count": None,
        },
    ]
    for k, prob in enumerate(lecture["problems"], 1):
        label = prob["label"]
        cells.append(md(label, f"## Problem {k}\n\n" + statement(chapter_of(label, lecture["chapters"]), label)))
        if label in specs:
            cells += exercise_cells.cells_for(specs[label])
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
            "resnet_nb": {"exercises": [p["label"] for p in lecture["problems"]], "lecture": lecture["number"]},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def main(argv: list[str]) -> int:
    from resnet_nb.book.exercises import specs

    out = Path(argv[0]) if argv else ROOT / "_build" / "teach" / "assignments"
    out.mkdir(parents=True, exist_ok=True)
    spec = yaml.safe_load((Path(__file__).parent / "problems.yml").read_text(encoding="utf-8"))
    for lecture in spec["lectures"]:
        path = out / f"lecture-{lecture['number']}.ipynb"
        path.write_text(json.dumps(lecture_notebook(lecture, specs()), indent=1, ensure_ascii=False) + "\n")
        print(f"assignment: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
