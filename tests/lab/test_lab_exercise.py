"""An exercise that answers back, in JupyterLab as a student meets it (make test-lab).

Opens lecture 1's assignment (scripts/teach/assignment.py) in the student edition's working copy,
answers hm-ex-pi wrongly (pi / l, the upper bound), sees the check's hint, corrects the answer and
sees the check pass. Uses the JupyterLab harness of test_lab.py."""

from __future__ import annotations

import json

import yaml

from scripts.teach import assignment
from tests.lab.test_lab import ROOT, browser, open_notebook, shot, student_lab  # noqa: F401 - fixtures

WRONG = "import math\n\n\ndef norm_at_depth(l):\n    return math.pi / l\n"
RIGHT = "import math\n\n\ndef norm_at_depth(l):\n    return 2 * math.sin(math.pi / (2 * l))\n"


def answer_and_check(page, index: int, source: str) -> str:
    """Replace the answer cell's text, run it and the check under it; the check's output text."""
    cells = page.locator(".jp-Notebook .jp-Cell")
    editor = cells.nth(index).locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(source)
    page.keyboard.press("Shift+Enter")  # runs the answer cell, selects the check cell
    page.keyboard.press("Shift+Enter")  # runs the check
    out = cells.nth(index + 1).locator(".jp-OutputArea-output")
    out.first.wait_for(timeout=240_000)
    page.get_by_text("| Idle").wait_for(timeout=240_000)
    return out.first.inner_text()


def test_a_wrong_answer_gets_its_hint_and_the_corrected_one_passes(browser, student_lab):  # noqa: F811
    from resnet_nb.book.exercises import hint, specs

    lecture = yaml.safe_load((ROOT / "scripts" / "teach" / "problems.yml").read_text())["lectures"][0]
    nb = assignment.lecture_notebook(lecture, specs())
    (student_lab.dir / "lecture-1.ipynb").write_text(json.dumps(nb))
    index = next(i for i, c in enumerate(nb["cells"]) if c["id"] == "ex-answer-hm-ex-pi")
    page, _ = open_notebook(browser, student_lab, "lecture-1.ipynb")
    try:
        setup = page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".cm-content")
        setup.click()
        page.keyboard.press("Shift+Enter")
        wrong = answer_and_check(page, index, WRONG)
        shot(page, "exercise-wrong", page.locator(".jp-Notebook .jp-Cell").nth(index + 1))
        assert "Not yet" in wrong and hint("hm-ex-pi", "bound") in " ".join(wrong.split())
        right = answer_and_check(page, index, RIGHT)
        shot(page, "exercise-right", page.locator(".jp-Notebook .jp-Cell").nth(index + 1))
        assert "Correct" in right and "Not yet" not in right
    finally:
        page.context.close()
