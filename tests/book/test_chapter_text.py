"""The chapters' text twins (scripts/chapter_text.py): a twin says what its notebook says, and an
edit made in the twin reaches the notebook without losing the cells' ids."""

import sys

import jupytext
import nbformat
import pytest

from resnet_nb.core import paths

ROOT = paths.ROOT
sys.path.insert(0, str(ROOT))
from scripts import chapter_text  # noqa: E402

CHAPTERS = sorted((ROOT / "book").glob("*.ipynb"))


def ids(nb):
    return [c["id"] for c in nb.cells]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_a_chapter_survives_the_trip_through_its_twin_unchanged(path):
    old = nbformat.read(path, as_version=4)
    back = chapter_text.merge(
        nbformat.read(path, as_version=4), jupytext.reads(chapter_text.as_text(path), fmt=chapter_text.FORMAT)
    )
    assert nbformat.writes(back) == nbformat.writes(old)


def test_the_committed_twins_say_what_the_notebooks_say():
    assert chapter_text.stale() == []


def small_notebook():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Title\n\nA sentence with {eval}`x`."),
        nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["remove-input"]}),
        nbformat.v4.new_markdown_cell("More prose."),
        nbformat.v4.new_code_cell("print(x + 1)"),
    ]
    for i, c in enumerate(nb.cells):
        c["id"] = f"cell-{i}"
    return nb


def twin(nb):
    nb = nbformat.from_dict(dict(nb))
    nb.metadata["jupytext"] = chapter_text.CONFIG
    return jupytext.writes(nb, fmt=chapter_text.FORMAT)


def test_an_edited_cell_keeps_its_id_and_every_other_cell_is_untouched():
    nb = small_notebook()
    text = twin(nb).replace("print(x + 1)", "print(x + 2)")
    out = chapter_text.merge(small_notebook(), jupytext.reads(text, fmt=chapter_text.FORMAT))
    assert ids(out) == ids(nb)
    assert out.cells[3].source == "print(x + 2)"
    assert [c.source for c in out.cells[:3]] == [c.source for c in nb.cells[:3]]


def test_a_tag_changed_in_the_twin_reaches_the_notebook():
    text = twin(small_notebook()).replace('tags=["remove-input"]', 'tags=["hide-input"]')
    out = chapter_text.merge(small_notebook(), jupytext.reads(text, fmt=chapter_text.FORMAT))
    assert out.cells[1].metadata["tags"] == ["hide-input"]


def test_a_new_cell_gets_a_fresh_id_and_the_old_cells_keep_theirs():
    text = twin(small_notebook()).replace(
        "# %% [markdown]\n# More prose.", "# %%\ny = 3\n\n# %% [markdown]\n# More prose."
    )
    out = chapter_text.merge(small_notebook(), jupytext.reads(text, fmt=chapter_text.FORMAT))
    assert [c.source for c in out.cells] == [
        "# Title\n\nA sentence with {eval}`x`.",
        "x = 1",
        "y = 3",
        "More prose.",
        "print(x + 1)",
    ]
    assert [out.cells[i]["id"] for i in (0, 1, 3, 4)] == ids(small_notebook())
    assert out.cells[2]["id"] not in ids(small_notebook())


def test_a_stale_twin_is_reported_with_its_first_difference(tmp_path, monkeypatch):
    book, text = tmp_path / "book", tmp_path / "book" / "text"
    text.mkdir(parents=True)
    nbformat.write(small_notebook(), book / "ch.ipynb")
    monkeypatch.setattr(chapter_text, "BOOK", book)
    monkeypatch.setattr(chapter_text, "TEXT", text)
    monkeypatch.setattr(chapter_text, "ROOT", tmp_path)
    assert chapter_text.stale() == ["book/text/ch.py: missing"]
    chapter_text.write_all()
    assert chapter_text.stale() == []
    (text / "ch.py").write_text((text / "ch.py").read_text().replace("x = 1", "x = 10"))
    (problem,) = chapter_text.stale()
    assert "book/text/ch.py: differs from book/ch.ipynb" in problem and "x = 10" in problem
