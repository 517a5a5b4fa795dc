"""The student edition's solution stripper (scripts/build_student.py)."""

import importlib.util
import json
import shutil
import subprocess

from resnet_nb.core import paths

ROOT = paths.ROOT
_spec = importlib.util.spec_from_file_location("build_student", ROOT / "scripts" / "build_student.py")
build_student = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_student)
_lab_spec = importlib.util.spec_from_file_location("lab", ROOT / "scripts" / "lab.py")
lab = importlib.util.module_from_spec(_lab_spec)
_lab_spec.loader.exec_module(lab)


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


def test_tracked_notebooks_have_no_outputs():
    """Notebooks are committed without outputs: JupyterLab works on lab/, never on book/."""
    files = subprocess.run(["git", "ls-files", "*.ipynb"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    if not files:  # not a git checkout (an unpacked archive): check book/ directly
        files = [str(p.relative_to(ROOT)) for p in (ROOT / "book").glob("*.ipynb")]
    dirty = []
    for name in files:
        nb = json.loads((ROOT / name).read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            if cell["cell_type"] == "code" and (cell.get("outputs") or cell.get("execution_count")):
                dirty.append(name)
                break
    assert not dirty, f"notebooks with outputs (clear them before committing): {dirty}"


def test_lab_working_copy_is_ignored_by_git():
    out = subprocess.run(["git", "check-ignore", "-q", "lab/full/notation.ipynb"], cwd=ROOT)
    assert out.returncode in (0, 128)  # 128: not a git checkout


def test_student_lab_copy_has_no_solutions(tmp_path):
    dest = lab.prepare("student", tmp_path / "student", quiet=True)
    for path in dest.glob("*.ipynb"):
        assert "{solution" not in path.read_text(encoding="utf-8"), path.name
    full = lab.prepare("full", tmp_path / "full", quiet=True)
    assert any("{solution" in p.read_text(encoding="utf-8") for p in full.glob("*.ipynb"))


def test_working_copy_refresh_keeps_edits(tmp_path, monkeypatch):
    """prepare() twice: unedited files follow the chapter, edited ones are kept (.new beside)."""
    book = tmp_path / "book"
    book.mkdir()
    nb = {
        "cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": "# One"}],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (book / "a.ipynb").write_text(json.dumps(nb))
    (book / "b.ipynb").write_text(json.dumps(nb))
    monkeypatch.setattr(lab, "BOOK", book)
    monkeypatch.setattr(lab, "_sign", lambda path: None)
    dest = lab.prepare("full", tmp_path / "lab", quiet=True)
    front = json.loads((dest / "a.ipynb").read_text())["cells"][0]["source"]
    assert front.startswith("---\nmath:") and "\\Sxx" in front
    # the student edits b and runs a (outputs only), then the chapters change
    b = json.loads((dest / "b.ipynb").read_text())
    b["cells"].append(
        {"cell_type": "code", "id": "s", "metadata": {}, "source": "mine = 1", "outputs": [], "execution_count": None}
    )
    (dest / "b.ipynb").write_text(json.dumps(b))
    nb["cells"][0]["source"] = "# Two"
    (book / "a.ipynb").write_text(json.dumps(nb))
    (book / "b.ipynb").write_text(json.dumps(nb))
    lab.prepare("full", dest, quiet=True)
    assert "# Two" in json.loads((dest / "a.ipynb").read_text())["cells"][0]["source"]
    kept = json.loads((dest / "b.ipynb").read_text())
    assert kept["cells"][-1]["source"] == "mine = 1"
    assert "# Two" in json.loads((dest / "b.new.ipynb").read_text())["cells"][0]["source"]
    shutil.rmtree(dest)


def test_lab_copy_writes_out_citations():
    cites = lab.citations()
    assert cites["li2016demystifying"] == "Li et al., 2016"
    text = lab.write_citations("see {cite}`li2016demystifying` and {cite:p}`hardt2016identity, nokey`", cites)
    assert text == "see [Li et al., 2016] and [Hardt & Ma, 2016; nokey]"
