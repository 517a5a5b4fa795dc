"""The chapters as text: a twin of every chapter in jupytext's percent format, for review and tools.

    python scripts/chapter_text.py                          # write book/text/<chapter>.py
    python scripts/chapter_text.py --check                  # exit 1 if a twin is missing or stale
    python scripts/chapter_text.py --to-notebook book/text/<chapter>.py
                                                            # carry a twin's edits into its notebook

The notebooks (``book/*.ipynb``) are what the book builds, what JupyterLab opens, what the
download button and Colab serve. Their JSON hides the code from ``grep -n``, from a review's diff
and from duplicate-code finders; the twin ``book/text/<chapter>.py`` shows it as Python: a
Markdown cell as a block of ``#`` comments under ``# %% [markdown]``, a code cell as code under
``# %%`` with its tags (``# %% tags=["remove-input"]``), IPython magics commented out. ``make
lint`` runs ``--check``, so a twin always says what its notebook says.

Either side can be edited. After editing a notebook, run this script to rewrite the twins. After
editing a twin, ``--to-notebook`` writes its cells into the notebook: a cell whose source and
kind are unchanged keeps its id, an edited cell keeps the id of the cell it replaces
(matched in order), a new cell gets a new id; outputs are not kept (chapters are committed
without them). The notebook's own metadata is kept.
"""

from __future__ import annotations

import difflib
import hashlib
import sys
from pathlib import Path

import jupytext
import nbformat

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
TEXT = BOOK / "text"
FORMAT = "py:percent"
#: no header: the notebook's metadata (kernel) stays in the notebook
CONFIG = {"notebook_metadata_filter": "-all"}


def twin_of(notebook: Path) -> Path:
    return TEXT / f"{notebook.stem}.py"


def notebook_of(twin: Path) -> Path:
    return BOOK / f"{twin.stem}.ipynb"


def as_text(notebook: Path) -> str:
    """The twin's text for a notebook."""
    nb = nbformat.read(notebook, as_version=4)
    nb.metadata.setdefault("jupytext", {}).update(CONFIG)
    return jupytext.writes(nb, fmt=FORMAT)


def write_all() -> list[Path]:
    TEXT.mkdir(exist_ok=True)
    written = []
    for nb in sorted(BOOK.glob("*.ipynb")):
        twin, text = twin_of(nb), as_text(nb)
        if not twin.exists() or twin.read_text() != text:
            twin.write_text(text)
            written.append(twin)
    for twin in sorted(TEXT.glob("*.py")):
        if not notebook_of(twin).exists():
            twin.unlink()
            written.append(twin)
    return written


def stale() -> list[str]:
    """One line per twin that does not say what its notebook says."""
    out = []
    for nb in sorted(BOOK.glob("*.ipynb")):
        twin = twin_of(nb)
        if not twin.exists():
            out.append(f"{twin.relative_to(ROOT)}: missing")
        elif twin.read_text() != as_text(nb):
            diff = difflib.unified_diff(
                twin.read_text().splitlines(), as_text(nb).splitlines(), "twin", "notebook", lineterm="", n=0
            )
            first = next((ln for ln in list(diff)[2:] if ln[:1] in "+-"), "")
            out.append(f"{twin.relative_to(ROOT)}: differs from {nb.relative_to(ROOT)} (first: {first[:100]!r})")
    for twin in sorted(TEXT.glob("*.py")):
        if not notebook_of(twin).exists():
            out.append(f"{twin.relative_to(ROOT)}: no notebook {notebook_of(twin).relative_to(ROOT)}")
    return out


def _key(cell) -> tuple[str, str]:
    return cell.cell_type, cell.source


def _new_id(cell, position: int) -> str:
    return hashlib.sha1(f"{position}:{cell.cell_type}:{cell.source}".encode()).hexdigest()[:8]


def merge(old, edited):
    """``edited``'s cells with ``old``'s ids and metadata where they match (see the module's doc)."""
    a, b = [_key(c) for c in old.cells], [_key(c) for c in edited.cells]
    cells = []
    taken = {c.get("id") for c in old.cells}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        for k, j in enumerate(range(j1, j2)):
            new = edited.cells[j]
            i = i1 + k
            if tag in ("equal", "replace") and i < i2 and old.cells[i].cell_type == new.cell_type:
                new["id"] = old.cells[i]["id"]
            else:
                cid = _new_id(new, j)
                while cid in taken:
                    cid = _new_id(new, j + len(taken))
                new["id"] = cid
            taken.add(new["id"])
            if new.cell_type == "code":
                new["outputs"], new["execution_count"] = [], None
            cells.append(new)
    out = nbformat.from_dict(dict(old))
    out.cells = cells
    out.metadata.pop("jupytext", None)
    return out


def to_notebook(twin: Path) -> Path:
    if twin.suffix != ".py" or twin.parent.resolve() != TEXT.resolve():
        raise SystemExit(f"{twin}: not a chapter twin (expected book/text/<chapter>.py)")
    notebook = notebook_of(twin)
    if not notebook.exists():
        raise SystemExit(f"{twin}: no notebook {notebook.relative_to(ROOT)} to write into")
    old = nbformat.read(notebook, as_version=4)
    edited = jupytext.reads(twin.read_text(), fmt=FORMAT)
    nbformat.write(merge(old, edited), notebook)
    if as_text(notebook) != twin.read_text():
        twin.write_text(as_text(notebook))
        print(f"{twin.relative_to(ROOT)}: rewritten in the canonical form")
    return notebook


def main(argv: list[str]) -> int:
    if argv[:1] == ["--check"]:
        problems = stale()
        for p in problems:
            print(p)
        if problems:
            print("the chapters' text twins are stale: run `python scripts/chapter_text.py`")
        return 1 if problems else 0
    if argv[:1] == ["--to-notebook"] and len(argv) == 2:
        print(f"wrote {to_notebook(Path(argv[1]).resolve()).relative_to(ROOT)}")
        return 0
    if argv:
        print(__doc__, file=sys.stderr)
        return 2
    for p in write_all():
        print(f"wrote {p.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
