"""The lecture slides (scripts/teach/build.py) follow the teachers' plan: a title on every slide,
the statements a row names, the key figure where the plan shows one, the exercises to set, no
doubled label. Run on small pages shaped like the built site's, so no book build is needed."""

import re

import pytest
from bs4 import BeautifulSoup

from scripts.teach import build

PAGES = {
    "notation": ("Notation", [], ["End-to-end singular values"], ["ex-notation-depth"]),
    "hardt_ma_linear": (
        "Linear residual networks",
        [
            ("lemma", "Lemma 1 (Small factors have positive determinant)"),
            ("theorem", "Theorem 2 (Theorem 2.1 of Hardt & Ma (ICLR text), with det R > 0 added)"),
            ("lemma", "Lemma 3 (Lemma 2.4 of Hardt & Ma (the gradient), in the corrected order)"),
            ("theorem", "Theorem 4 (Theorem 2.2 of Hardt & Ma)"),
        ],
        ["Gradient descent from zero"],
        ["hm-ex-pi"],
    ),
    "hardt_ma_expressivity": (
        "Expressivity",
        [("theorem", "Theorem 5 (Theorem 3.2 of Hardt & Ma)"), ("lemma", "Lemma 6 (One block, k moves)")],
        [],
        ["hm-ex-margin"],
    ),
}


def page(title, boxes, figures, labels):
    parts = [f"<h1>{title}</h1>"]
    for kind, head in boxes:
        parts.append(
            f'<div class="proof {kind} admonition"><p class="admonition-title">{head}</p>'
            f"<section><p>Statement of {head}.</p></section></div>"
        )
    for cap in figures:
        parts.append(f'<h2>{cap}</h2><div class="cell_output"><img src="data:image/png;base64,AAAA" alt="{cap}"></div>')
    for i, label in enumerate(labels, 1):
        parts.append(
            f'<div class="exercise admonition" id="{label}"><p class="admonition-title">Exercise {i}</p>'
            f"<section><p>Do {label}.</p></section></div>"
        )
    return f'<html><head></head><body><article class="bd-article">{"".join(parts)}</article></body></html>'


@pytest.fixture
def slides(tmp_path, monkeypatch):
    (tmp_path / "book").mkdir()
    for name, spec in PAGES.items():
        (tmp_path / "book" / f"{name}.html").write_text(page(*spec))
    monkeypatch.setattr(build, "SITE", tmp_path)
    build.page.cache_clear()
    lecture = {
        "number": 1,
        "title": "The landscape near the identity",
        "chapters": list(PAGES),
        "problems": [
            {"label": "ex-notation-depth", "difficulty": 1},
            {"label": "hm-ex-pi", "difficulty": 2},
            {"label": "hm-ex-margin", "difficulty": 1},
        ],
    }
    found = build.exercises(lecture["chapters"])
    (tmp_path / "img").mkdir()
    out = build.slides_html(lecture, found, tmp_path / "img", "", build.lecture_plan(1))
    build.page.cache_clear()
    return BeautifulSoup(out, "html.parser").select("div.slides > section")


def titles(slides):
    return [s.find(["h2", "h3"]).get_text(" ", strip=True) if s.find(["h2", "h3"]) else None for s in slides]


def test_every_slide_has_a_title(slides):
    assert slides and all(titles(slides))


def test_no_doubled_label(slides):
    doubled = re.compile(
        r"(Theorem|Lemma|Proposition|Definition)\s*[\d.]*\s*\(\s*(Theorem|Lemma|Proposition|Definition)"
    )
    assert not [t for t in titles(slides) if doubled.search(t)]


def test_the_slides_follow_the_plan_rows_in_order(slides):
    plan = build.lecture_plan(1)
    t = titles(slides)
    positions = [t.index(build.plain(row["title"])) for row in plan]
    assert positions == sorted(positions)


def test_a_row_shows_the_statement_it_names_right_after_its_title(slides):
    t = titles(slides)
    i = next(k for k, x in enumerate(t) if x.endswith("Theorem 2.1"))
    assert t[i + 1].startswith("Theorem 2.1 of Hardt & Ma")
    j = next(k for k, x in enumerate(t) if "Lemma 2.4 and the gradient bound" in x)
    assert t[j + 1].startswith("Lemma 2.4 of Hardt & Ma")


def test_the_key_figure_where_the_plan_shows_one(slides):
    figs = [titles(slides)[k] for k, s in enumerate(slides) if s.select_one("img.fig")]
    assert any("End-to-end singular values" in f for f in figs)  # the notation row names a figure
    assert not any("Gradient descent from zero" in f for f in figs)  # no row there shows a figure


def test_each_exercise_is_set_once_after_its_chapter(slides):
    t = titles(slides)
    set_at = {
        lab: [k for k, s in enumerate(slides) if f"Do {lab}." in s.get_text()]
        for lab in ("ex-notation-depth", "hm-ex-pi", "hm-ex-margin")
    }
    assert all(len(v) == 1 for v in set_at.values())
    last_linear = max(k for k, x in enumerate(t) if "Linear residual" in x)
    assert set_at["hm-ex-pi"][0] > last_linear
    assert all(t[v[0]].startswith("Exercise to set") for v in set_at.values())


@pytest.mark.parametrize(
    ("kind", "head", "title"),
    [
        (
            "lemma",
            "Lemma 3 (Lemma 2 of Li et al. (translation invariance))",
            "Lemma 2 of Li et al. (translation invariance)",
        ),
        (
            "proposition",
            "Proposition 2 (Proposition (Figure 4, right extreme))",
            "Proposition (Figure 4, right extreme)",
        ),
        ("lemma", "Lemma 6 (One block, k moves)", "Lemma: One block, k moves"),
        ("definition", "Definition 1", "Definition"),
    ],
)
def test_a_box_title_says_its_label_once(kind, head, title):
    assert build.box_title(kind, head) == title
