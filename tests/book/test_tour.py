"""The tour (book/tour.ipynb), the introduction and the notation chapter: the links a reader follows
must lead somewhere, and the tour must stay a ten-minute read.

* every ledger entry the tour or the introduction names is linked to its own entry, as raw HTML
  ``<a href="claims.html#claim-<id>"><id></a>`` or, in captions, as a numbered evidence link
  ``<a href="claims.html#claim-<id>" title="<id>">1</a>`` (a ``{doc}`` link would open the top of the ledger
  page), and is a declared claim (a renamed or removed claim would otherwise leave a dead link);
* every figure caption of the tour links its chapter and at least one ledger entry;
* every chapter it links with ``{doc}`` is in ``_toc.yml``;
* its Markdown has at most 1,500 words (roles and ledger links count as one word), the limit of
  issue 22;
* the tour and the notation chapter open with at most ~120 words before their first code cell;
* ``book/figures/intro_overview.png`` is what ``scripts/intro_figure.py`` draws now.
"""

import importlib.util
import re
from pathlib import Path

import matplotlib.image as mpimg
import nbformat
import numpy as np
import yaml

from resnet_nb.book import ledger
from resnet_nb.core import paths

ROOT = paths.ROOT
TOUR = ROOT / "book" / "tour.ipynb"
INTRO = ROOT / "book" / "intro.md"
DOC = re.compile(r"\{doc\}`([^`<]*?)\s*<([^>]+)>`|\{doc\}`([^`<]+)`")
ROLE = re.compile(r"\{[a-z:]+\}`[^`]*`")
ANCHOR = re.compile(r'<a href="([^"]*)"(?: title="([^"]*)")?>([^<]*)</a>')
LEDGER_HREF = re.compile(r"claims\.html#claim-(.+)")


def _markdown(path):
    nb = nbformat.read(path, as_version=4)
    return [c.source for c in nb.cells if c.cell_type == "markdown"], nb


def _toc_files():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = {toc["root"]}
    for part in toc.get("parts", []):
        files |= {ch["file"] for ch in part.get("chapters", [])}
    return {Path(f).name for f in files}


def _ledger_links(text):
    """The claim ids of the raw-HTML ledger links in ``text``; asserts each shows its own id, either
    as its text or, for a short evidence link ("1", "2", ...), as its tooltip."""
    ids = []
    for href, title, shown in ANCHOR.findall(text):
        m = LEDGER_HREF.fullmatch(href)
        assert m, f"a raw link that is not a ledger entry: {href}"
        named = title or shown
        assert named == m.group(1), f"the link to {m.group(1)} names {named!r}"
        if title:
            assert shown.isdigit(), f"the evidence link to {title} shows {shown!r}, not a number"
        ids.append(m.group(1))
    return ids


def _captions():
    return [s for s in _markdown(TOUR)[0] if s.startswith("**Figure")]


def test_ledger_links_open_declared_entries():
    claims = set(ledger.all_claims())
    for path, text in ((TOUR, "\n".join(_markdown(TOUR)[0])), (INTRO, INTRO.read_text())):
        named = _ledger_links(text)
        assert named, f"{path.name} links no ledger entry"
        unknown = sorted(set(named) - claims)
        assert not unknown, f"{path.name} names ledger entries that do not exist: {unknown}"
        # a {doc} link to the ledger page named after a claim opens the page, not the entry
        by_page = [m.group(1).strip() for m in DOC.finditer(text) if m.group(2) == "claims"]
        assert not set(by_page) & claims, f"{path.name}: page links where entry links are due"


def test_every_tour_caption_links_a_chapter_and_the_ledger():
    captions = _captions()
    assert len(captions) == 5
    for cap in captions:
        chapters = [m.group(2) or m.group(3) for m in DOC.finditer(cap)]
        assert [c for c in chapters if c.strip() != "claims"], f"no chapter link: {cap[:40]}"
        assert _ledger_links(cap), f"no ledger link: {cap[:40]}"


def test_tour_chapter_links_are_in_the_toc():
    text = "\n".join(_markdown(TOUR)[0])
    targets = {m.group(2) or m.group(3) for m in DOC.finditer(text)}
    missing = sorted(t for t in targets if t.strip() not in _toc_files())
    assert not missing, f"the tour links pages missing from _toc.yml: {missing}"


def test_tour_is_short():
    words = sum(len(ROLE.sub("X", ANCHOR.sub("X", s)).split()) for s in _markdown(TOUR)[0])
    assert words <= 1500, f"the tour has {words} words of Markdown (limit 1,500)"


def test_openings_are_short():
    for path in (TOUR, ROOT / "book" / "notation.ipynb"):
        md, nb = _markdown(path)
        first = nb.cells[0]
        assert first.cell_type == "markdown" and first.source.startswith("# ")
        opening = first.source.split("\n", 1)[1]
        assert len(opening.split()) <= 120, f"{path.name}: opening of {len(opening.split())} words"


def test_intro_figure_is_current(tmp_path):
    """Redraw the introduction's figure and compare it with the stored PNG: at most 0.1% of the
    pixels may differ (font hinting); a changed title alone changes about 0.7% of them."""
    spec = importlib.util.spec_from_file_location("intro_figure", ROOT / "scripts" / "intro_figure.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fresh = mpimg.imread(mod.main(tmp_path / "intro.png"))
    stored = mpimg.imread(ROOT / "book" / "figures" / "intro_overview.png")
    assert fresh.shape == stored.shape
    differ = (np.abs(fresh - stored).max(axis=2) > 0.02).mean()
    assert differ <= 1e-3, f"{differ:.2%} of the pixels differ: run scripts/intro_figure.py"
