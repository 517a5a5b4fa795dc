"""The tour (book/tour.ipynb) and the notation chapter: the links a reader follows must lead
somewhere, and the tour must stay a ten-minute read.

* every ledger entry the tour names, written ``{doc}`<claim id> <claims>```, is a declared claim
  (a renamed or removed claim would otherwise leave a link to the ledger with a dead name);
* every chapter it links with ``{doc}`` is in ``_toc.yml``;
* its Markdown has at most 1,500 words (roles count as one word), the limit of issue 22;
* the tour and the notation chapter open with at most ~120 words before their first code cell.
"""
import re
from pathlib import Path

import nbformat
import yaml

from resnet_nb import ledger

ROOT = Path(__file__).resolve().parents[1]
TOUR = ROOT / "book" / "tour.ipynb"
DOC = re.compile(r"\{doc\}`([^`<]*?)\s*<([^>]+)>`|\{doc\}`([^`<]+)`")
ROLE = re.compile(r"\{[a-z:]+\}`[^`]*`")


def _markdown(path):
    nb = nbformat.read(path, as_version=4)
    return [c.source for c in nb.cells if c.cell_type == "markdown"], nb


def _toc_files():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = {toc["root"]}
    for part in toc.get("parts", []):
        files |= {ch["file"] for ch in part.get("chapters", [])}
    return {Path(f).name for f in files}


def test_tour_ledger_links_name_declared_claims():
    text = "\n".join(_markdown(TOUR)[0])
    named = [m.group(1).strip() for m in DOC.finditer(text) if m.group(2) == "claims"]
    assert named, "the tour links no ledger entry"
    unknown = sorted(set(named) - set(ledger.all_claims()))
    assert not unknown, f"the tour names ledger entries that do not exist: {unknown}"


def test_tour_chapter_links_are_in_the_toc():
    text = "\n".join(_markdown(TOUR)[0])
    targets = {m.group(2) or m.group(3) for m in DOC.finditer(text)}
    missing = sorted(t for t in targets if t.strip() not in _toc_files())
    assert not missing, f"the tour links pages missing from _toc.yml: {missing}"


def test_tour_is_short():
    words = sum(len(ROLE.sub("X", s).split()) for s in _markdown(TOUR)[0])
    assert words <= 1500, f"the tour has {words} words of Markdown (limit 1,500)"


def test_openings_are_short():
    for path in (TOUR, ROOT / "book" / "notation.ipynb"):
        md, nb = _markdown(path)
        first = nb.cells[0]
        assert first.cell_type == "markdown" and first.source.startswith("# ")
        opening = first.source.split("\n", 1)[1]
        assert len(opening.split()) <= 120, f"{path.name}: opening of {len(opening.split())} words"
