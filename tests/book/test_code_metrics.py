"""The chapters' caps (scripts/code_metrics.py --check, run by make lint): no function defined in
a chapter outside exercise answers, no code cell over 25 lines unless listed, and the list of
listed cells only shrinks."""

import sys

import nbformat
import pytest

from resnet_nb.core import paths

sys.path.insert(0, str(paths.ROOT))
from scripts import code_metrics  # noqa: E402


@pytest.fixture
def book(tmp_path, monkeypatch):
    (tmp_path / "book").mkdir()
    (tmp_path / "scripts").mkdir()
    monkeypatch.setattr(code_metrics, "ROOT", tmp_path)
    monkeypatch.setattr(code_metrics, "BOOK", tmp_path / "book")
    monkeypatch.setattr(code_metrics, "ALLOWANCE", tmp_path / "scripts" / "allow.txt")
    monkeypatch.setattr(code_metrics, "_ALLOWANCE", None)
    return tmp_path


def chapter(book, *cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells)
    for i, c in enumerate(nb.cells):
        c["id"] = f"c{i}"
    nbformat.write(nb, book / "book" / "ch.ipynb")


def code(n_lines, extra=""):
    return nbformat.v4.new_code_cell(extra + "\n".join(f"x{i} = {i}" for i in range(n_lines)))


def test_a_function_in_a_chapter_is_refused_but_not_in_an_exercise_answer(book):
    answer = nbformat.v4.new_code_cell("def mine(x):\n    return x", metadata={"tags": ["exercise-answer"]})
    chapter(book, code(2, "def helper():\n    return 1\n"), answer)
    counts, problems = code_metrics.chapter_counts()
    assert counts["def in chapters"] == 1
    assert problems == ["book/ch.ipynb cell c0: defines helper (move it to the package; a chapter cell calls it)"]


def test_a_long_cell_is_refused_unless_listed_and_a_listed_cell_may_not_grow(book):
    chapter(book, code(26))
    assert code_metrics.chapter_counts()[1] == ["book/ch.ipynb cell c0: 26 lines (at most 25)"]
    (book / "scripts" / "allow.txt").write_text("# listed\nch c0 26\n")
    code_metrics._ALLOWANCE = None
    assert code_metrics.chapter_counts()[1] == []
    chapter(book, code(27))
    code_metrics._ALLOWANCE = None
    assert code_metrics.chapter_counts()[1] == ["book/ch.ipynb cell c0: 27 lines (at most 26, its listed allowance)"]


def test_a_listed_cell_within_the_cap_must_leave_the_list(book, capsys):
    chapter(book, code(10))
    (book / "scripts" / "allow.txt").write_text("ch c0 40\n")
    assert code_metrics.main(["--check"]) == 1
    assert "is within the cap or gone: remove it from the list" in capsys.readouterr().out


def test_a_package_function_over_60_lines_is_refused(book, capsys):
    pkg = book / "resnet_nb"
    pkg.mkdir()
    body = "".join(f"    x{i} = {i}\n" for i in range(59))
    (pkg / "m.py").write_text(f"def short():\n{body}\n\ndef long():\n{body}    x = 0\n")
    assert code_metrics.long_functions() == ["resnet_nb/m.py:63 long: 61 lines (at most 60)"]
    assert code_metrics.main(["--check"]) == 1
    assert "long: 61 lines" in capsys.readouterr().out


def test_eval_feeding_lines_are_those_that_format_or_only_feed_the_prose(book):
    chapter(
        book,
        nbformat.v4.new_code_cell("t = 3\nshown = show.num(t)\nonly = t + 1\nused = t * 2\nprint(used)"),
        nbformat.v4.new_markdown_cell("value {eval}`shown`, {eval}`only`, {eval}`f.field`"),
    )
    counts, _ = code_metrics.chapter_counts()
    assert counts["{eval}-feeding lines"] == 2  # `shown = show.num(t)` and `only = t + 1`
