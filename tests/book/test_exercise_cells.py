"""The exercises' answer and check cells are the same in the package, the chapters, the student
edition and the lecture assignments (scripts/exercise_cells.py, scripts/build_student.py,
scripts/teach/assignment.py)."""

import importlib.util
import json
import re
import subprocess
import sys

import pytest

from resnet_nb.book import exercises
from resnet_nb.core import paths

ROOT = paths.ROOT
sys.path.insert(0, str(ROOT))
from scripts import exercise_cells  # noqa: E402
from scripts.teach import assignment  # noqa: E402

_spec = importlib.util.spec_from_file_location("build_student", ROOT / "scripts" / "build_student.py")
build_student = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_student)


def chapters():
    return {p.name: json.loads(p.read_text()) for p in sorted((ROOT / "book").glob("*.ipynb"))}


def src(cell):
    return "".join(cell["source"])


def test_the_chapters_cells_are_what_the_package_writes():
    out = subprocess.run(
        [sys.executable, "scripts/exercise_cells.py", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("label", sorted(exercises.specs()))
def test_answer_and_check_cells_follow_the_exercise_solution(label):
    found = [
        (name, i)
        for name, nb in chapters().items()
        for i, c in enumerate(nb["cells"])
        if c.get("id") == f"ex-answer-{label}"
    ]
    assert len(found) == 1, found
    name, i = found[0]
    cells = chapters()[name]["cells"]
    assert cells[i + 1]["id"] == f"ex-check-{label}"
    assert f'exercises.check("{label}"' in src(cells[i + 1])
    # everything between the solution's closing cell and the answer cell is another exercise's cells
    end = exercise_cells.solution_end(cells, label)
    assert end is not None and end < i
    assert all(c.get("id", "").startswith(("ex-answer-", "ex-check-")) for c in cells[end + 1 : i])
    assert f":label: {label}" in "".join(src(c) for c in cells[: end + 1])


def test_a_template_run_as_it_is_reports_no_answer_yet():
    for spec in exercises.specs().values():
        ns = {"signs_syn": [3.0, 1.0, 2.0]}  # the chapter's sweep, which ex-t1d-sign passes along
        exec(exercise_cells.answer_source(spec), ns)  # the student has not written anything
        fb = eval(f"exercises.check({spec.label!r}, {', '.join(spec.args)})", {**ns, "exercises": exercises})
        # a value left as ... is unanswered; a function whose body is ... returns None
        assert fb.mistake in ("unanswered", "returned-none"), spec.label


def test_the_student_edition_keeps_the_answer_cells_and_drops_the_solutions(tmp_path):
    for name in ("hardt_ma_linear.ipynb", "exp_learning.ipynb"):
        path = tmp_path / name
        path.write_text((ROOT / "book" / name).read_text())
        assert build_student.strip_notebook(path) > 0
        nb = json.loads(path.read_text())
        ids = [c.get("id", "") for c in nb["cells"]]
        text = "".join(src(c) for c in nb["cells"])
        assert "{solution" not in text and "check hints" not in text
        labels = [i[len("ex-answer-") :] for i in ids if i.startswith("ex-answer-")]
        assert labels and all(f"ex-check-{lab}" in ids for lab in labels)
        for lab in labels:  # the statement comes before its answer cell
            stated = next(k for k, c in enumerate(nb["cells"]) if f":label: {lab}" in src(c))
            assert stated < ids.index(f"ex-answer-{lab}")


def test_every_lecture_problem_appears_in_its_assignment_as_in_the_chapter():
    spec = assignment.yaml.safe_load((ROOT / "scripts" / "teach" / "problems.yml").read_text())
    for lecture in spec["lectures"]:
        nb = assignment.lecture_notebook(lecture, exercises.specs())
        text = "".join(src(c) if isinstance(c["source"], list) else c["source"] for c in nb["cells"])
        for prob in lecture["problems"]:
            label = prob["label"]
            assert assignment.statement(assignment.chapter_of(label, lecture["chapters"]), label) in text
            if label in exercises.specs():
                assert exercise_cells.answer_source(exercises.spec(label)) in text


def test_every_exercise_of_the_book_is_checked_or_has_a_reason():
    labels = {
        lab
        for nb in chapters().values()
        for c in nb["cells"]
        if c["cell_type"] == "markdown"
        for lab in exercise_cells.LABEL.findall(src(c))
        if "{exercise" in src(c)
    }
    stated = set()
    for nb in chapters().values():
        for c in nb["cells"]:
            stated |= set(exercise_cells.openings([c]))
    assert len(stated) == 30
    assert stated == set(exercises.specs()) | set(exercises.UNCHECKED)
    assert labels >= stated


@pytest.mark.parametrize("label", sorted(exercises.specs()))
def test_the_site_shows_the_checks_hints_inside_the_folded_solution(label):
    spec = exercises.spec(label)
    for nb in chapters().values():
        cells = nb["cells"]
        end = exercise_cells.solution_end(cells, label)
        if end is None:
            continue
        if "{solution-end}" in src(cells[end]):  # gated: the hint cell is the gate's last cell
            assert cells[end - 1]["id"] == f"ex-hints-{label}"
            text = src(cells[end - 1])
        else:  # inside the {solution} directive, before its closing fence
            opening = re.search(rf"^(`{{3,}})\{{solution\}} {label}\b", src(cells[end]), re.MULTILINE)
            body = src(cells[end])[opening.end() :]
            fence = re.search(rf"^{opening.group(1)}\s*$", body, re.MULTILINE)
            text = body[: fence.start()]
        assert all(h in text for h in spec.hints.values())
        return
    raise AssertionError(f"no chapter has a solution of {label}")
