"""Course materials from the built book: ``make teach`` -> ``_build/teach/``.

    python -m scripts.teach.build        (after the book is built into _build/html)

Writes

* ``book.pdf``: every page of the table of contents in order, as the site shows it
  (numbered boxes, figures, math typeset by the site's own MathJax), printed by Chromium
  through Playwright; solutions are left out (they are in the answer keys);
* ``lecture-<n>-exercises.pdf`` and ``lecture-<n>-key.pdf``: the chosen problem set of each
  lecture (``scripts/teach/problems.yml``, the same list as the teachers' page) with
  difficulty marks, and a separate answer key with the book's solutions;
* ``slides/lecture-<n>.html``: reveal.js slides (served offline from ``slides/vendor/``) that
  follow the lecture's plan on the teachers' page (``book/teaching.md``): per row a titled slide
  with its minutes and what to show, the statement boxes the row names (titled once, without
  sphinx-proof's doubled "Lemma 3 (Lemma 2 of ...)"), the key figure where the row shows one, and
  after a chapter's last row the exercises of the problem set from it; the still of each live
  explorer of a row's chapter (its default setting); then the problem set;
* the keys add, under each solution, the hints of the notebook's check and the grader's rubric
  (``resnet_nb.book.exercises``); the sheets say which problems are checked in the notebook;
* ``src/``: the HTML each PDF was printed from, and ``manifest.json`` (what was written).

Nothing is fetched but reveal.js, once, from the npm registry (``npm pack``) into
``.cache/teach``. The pages are read from ``_build/html`` (``make teach`` builds it first if
it is missing).
"""

from __future__ import annotations

import copy
import functools
import html
import http.server
import json
import os
import re
import shutil
import subprocess
import tarfile
import threading
from pathlib import Path

import yaml
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(os.environ.get("TEACH_SITE", ROOT / "_build" / "html"))
OUT = Path(os.environ.get("TEACH_OUT", ROOT / "_build" / "teach"))
CACHE = ROOT / ".cache" / "teach"
REVEAL = "5.2.1"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
BOX_KINDS = ("theorem", "lemma", "proposition", "corollary", "definition")
STARS = {1: "●○○", 2: "●●○", 3: "●●●"}
WORDS = {1: "routine", 2: "standard", 3: "challenging"}

PRINT_CSS = """
@page { size: A4; margin: 16mm 15mm 18mm 15mm; }
html, body { background: white !important; }
body { font-size: 10.5pt; max-width: none; margin: 0; padding: 0; }
.teach-page { break-before: page; }
.teach-page:first-child { break-before: auto; }
pre, .highlight pre { white-space: pre-wrap !important; word-break: break-word; font-size: 8.5pt; }
.cell_output img, figure img { max-width: 100% !important; height: auto; }
div.admonition, .cell, figure, img { break-inside: avoid; }
a.headerlink, .toggle-button, button { display: none !important; }
details { display: block; }
.teach-title { font-size: 22pt; margin: 40mm 0 6mm; }
.teach-meta { color: #444; }
.problem { margin: 6mm 0; break-inside: avoid; }
.problem h3 { font-size: 12pt; margin-bottom: 2mm; }
.problem .from { color: #555; font-size: 9pt; }
.answer-space { height: 35mm; border-bottom: 1px dotted #aaa; }
"""


# ------------------------------------------------------------------------------------------
# reading the site
# ------------------------------------------------------------------------------------------


def toc_pages() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    pages = [toc["root"]]
    for part in toc.get("parts", []):
        pages += [c["file"] for c in part.get("chapters", [])]
    return pages


@functools.cache
def page(name: str) -> BeautifulSoup:
    path = SITE / f"{name}.html"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: build the book first (make book-build)")
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def article(name: str) -> BeautifulSoup:
    art = page(name).select_one("article.bd-article") or page(name).select_one("main")
    return copy.copy(art)


def title(name: str) -> str:
    h1 = page(name).select_one("article h1")
    return h1.get_text(" ", strip=True).rstrip("#¶ ").strip() if h1 else name


def head_parts(kind: str) -> str:
    """Stylesheets and the MathJax configuration + script of the site's pages."""
    head = page(toc_pages()[1] if len(toc_pages()) > 1 else toc_pages()[0]).head
    parts = []
    for tag in head.find_all(["link", "script"]):
        if tag.name == "link" and "stylesheet" in (tag.get("rel") or []) and kind == "full":
            parts.append(str(tag))
        elif tag.name == "script" and tag.get("src") and "mathjax/" in tag["src"]:
            parts.append(str(tag))
        elif tag.name == "script" and not tag.get("src") and "window.MathJax" in (tag.string or ""):
            parts.append(str(tag))
    return "\n".join(parts)


def unlink(node) -> None:
    """Keep the text of links (sheets are read on paper); drop header anchors."""
    for a in node.select("a.headerlink"):
        a.decompose()
    for a in node.find_all("a"):
        a.unwrap()


def exercises(chapters: list[str]) -> dict[str, dict]:
    """label -> exercise and solution HTML, book number and chapter, for the chapters given."""
    found = {}
    for ch in chapters:
        art = article(f"book/{ch}")
        sols = {}
        for sol in art.select("div.solution"):
            link = sol.select_one(".admonition-title a[href]")
            if link:
                sols[link["href"].split("#")[-1]] = sol
        for ex in art.select("div.exercise"):
            label = ex.get("id")
            number = ex.select_one(".admonition-title").get_text(" ", strip=True)
            body = ex.select_one("section") or ex
            sol = sols.get(label)
            sol_body = (sol.select_one("section") or sol) if sol else None
            for node in (body, sol_body):
                if node is not None:
                    unlink(node)
            found[label] = {
                "chapter": ch,
                "chapter_title": title(f"book/{ch}"),
                "number": number,
                "exercise": body.decode_contents(),
                "solution": sol_body.decode_contents() if sol_body else None,
            }
    return found


# ------------------------------------------------------------------------------------------
# writing HTML
# ------------------------------------------------------------------------------------------


def document(body: str, head: str, base: str = "/site/book/", title_: str = "") -> str:
    return (
        f'<!DOCTYPE html><html lang="en" data-theme="light" data-mode="light"><head>'
        f'<meta charset="utf-8"><base href="{base}"><title>{html.escape(title_)}</title>'
        f'{head}<style>{PRINT_CSS}</style></head><body><div class="bd-article">{body}'
        f"</div></body></html>"
    )


def book_html() -> str:
    sections = []
    for name in toc_pages():
        art = article(name)
        for node in art.select("div.solution, script[type*='widget'], .thebe-launch-button"):
            node.decompose()
        # a widget's saved view is empty on paper: replace it by a sentence
        for out in art.select("div.cell_output"):
            if out.select("[class*='jupyter-widgets'], script[type*='widget-view']"):
                out.replace_with(
                    BeautifulSoup(
                        '<p class="teach-meta"><em>(An interactive widget: run the live notebook to use it.)</em></p>',
                        "html.parser",
                    )
                )
        for d in art.select("details"):
            d["open"] = ""
        base = name.rsplit("/", 1)[0] + "/" if "/" in name else ""
        for img in art.select("img[src]"):  # page-relative -> site-relative
            if not img["src"].startswith(("data:", "/", "http")):
                img["src"] = "/site/" + os.path.normpath(base + img["src"])
        sections.append(f'<section class="teach-page">{art.decode_contents()}</section>')
    cover = (
        '<section class="teach-page"><h1 class="teach-title">Why residual networks train</h1>'
        '<p class="teach-meta">The whole book as printed from the built site. Solutions to '
        "the exercises are in the answer keys.</p></section>"
    )
    return document(cover + "".join(sections), head_parts("full"), title_="Why residual networks train")


def sheet_html(lecture: dict, found: dict, key: bool) -> str:
    kind = "Answer key" if key else "Exercise sheet"
    items = []
    for k, prob in enumerate(lecture["problems"], 1):
        ex = found[prob["label"]]
        d = prob["difficulty"]
        body = ex["exercise"]
        if key:
            body += (
                '<div class="solution-text"><strong>Solution.</strong> '
                + (ex["solution"] or "<em>NO SOLUTION IN THE BOOK</em>")
                + "</div>"
                + grading_html(prob["label"])
            )
        else:
            body += checked_note(prob["label"]) + '<div class="answer-space"></div>'
        items.append(
            f'<div class="problem" id="{prob["label"]}"><h3>Problem {k} '
            f'<span title="difficulty {d} of 3">{STARS[d]}</span> ({WORDS[d]})</h3>'
            f'<div class="from">{html.escape(ex["number"])} of the book, chapter '
            f"“{html.escape(ex['chapter_title'])}”</div>{body}</div>"
        )
    legend = (
        "Difficulty: ●○○ routine (about 10 minutes), ●●○ standard (20-30 minutes), "
        "●●● challenging (45 minutes or more)."
    )
    body = (
        f"<h1>Lecture {lecture['number']}: {html.escape(lecture['title'])}</h1>"
        f'<p class="teach-meta">{kind}. {legend} Exercises marked with code are done in '
        "the live notebook (<code>make lab</code>).</p>" + "".join(items)
    )
    return document(body, head_parts("full"), title_=f"Lecture {lecture['number']}: {kind}")


def grading_html(label: str) -> str:
    """For the key: what the notebook's check recognises (each mistake's hint) and the rubric."""
    from resnet_nb.book import exercises

    parts = []
    if label in exercises.specs():
        spec = exercises.spec(label)
        hints = "".join(f"<li>{html.escape(h)}</li>" for h in spec.hints.values())
        parts.append(
            "<p><strong>Check in the notebook.</strong> <code>exercises.check</code> computes the answer "
            "and names these mistakes (besides a wrong shape, sign, factor of two or transpose):</p>"
            f"<ul>{hints}</ul>"
        )
    else:
        parts.append(f"<p><strong>No automatic check:</strong> {html.escape(exercises.UNCHECKED[label])}.</p>")
    steps = exercises.rubric(label)
    if steps:
        parts.append("<p><strong>Rubric</strong> (the steps a grader looks for):</p><ol>")
        parts.append("".join(f"<li>{html.escape(s)}</li>" for s in steps) + "</ol>")
    return f'<div class="grading">{"".join(parts)}</div>'


def checked_note(label: str) -> str:
    from resnet_nb.book import exercises

    if label not in exercises.specs():
        return ""
    return (
        '<p class="teach-meta"><em>In the notebook: write the answer in the cell under the exercise '
        "and run the check beneath it.</em></p>"
    )


# ------------------------------------------------------------------------------------------
# slides
# ------------------------------------------------------------------------------------------


def reveal_dist() -> Path:
    """reveal.js from the npm registry, unpacked once into .cache/teach/reveal.js-<version>."""
    target = CACHE / f"reveal.js-{REVEAL}"
    if (target / "dist" / "reveal.js").exists():
        return target
    CACHE.mkdir(parents=True, exist_ok=True)
    out = subprocess.run(
        ["npm", "pack", f"reveal.js@{REVEAL}", "--silent"], cwd=CACHE, capture_output=True, text=True, check=True
    )
    tgz = CACHE / out.stdout.strip().splitlines()[-1]
    with tarfile.open(tgz) as tar:
        tar.extractall(CACHE / "tmp", filter="data")
    shutil.rmtree(target, ignore_errors=True)
    (CACHE / "tmp" / "package").rename(target)
    tgz.unlink()
    return target


def lecture_plan(number: int, text: str | None = None) -> list[dict]:
    """The rows of lecture ``number``'s plan on the teachers' page (book/teaching.md): minutes,
    section (Markdown), what to show, and the chapters the section links."""
    text = text if text is not None else (ROOT / "book" / "teaching.md").read_text(encoding="utf-8")
    m = re.search(rf"^\*\*Lecture {number}:[^\n]*\n\n((?:\|[^\n]*\n)+)", text, re.MULTILINE)
    if not m:
        raise SystemExit(f"teach: the teachers' page has no plan for lecture {number}")
    rows, chapters = [], []
    for line in m.group(1).splitlines()[2:]:  # after the header and its rule
        minutes, section, what = (c.strip() for c in line.strip().strip("|").split("|"))
        linked = re.findall(r"\{doc\}`[^`<]*<([^>`]+)>`", section)
        same = section.startswith("same")
        chapters = linked or (chapters if same else [])
        # "same: Lemma 2.4 ..." continues the previous row's chapter: its title names the chapter
        title_ = rows[-1]["title"].split(":")[0] + section[len("same") :] if same and rows else section
        rows.append(
            {
                "minutes": minutes,
                "section": section,
                "title": title_[:1].upper() + title_[1:],
                "what": what,
                "chapters": list(chapters),
            }
        )
    return rows


def plain(markdown: str) -> str:
    """A plan cell as HTML: roles by their text, ``$x$`` as MathJax inline math."""
    text = re.sub(r"\{[a-z:]+\}`([^`<]*?)\s*(?:<[^>`]*>)?`", r"\1", markdown)
    text = html.escape(text, quote=False)
    return re.sub(r"\$([^$]+)\$", r"\\(\1\\)", text)


def box_title(kind: str, head: str) -> str:
    """A statement's slide title without the doubled label: sphinx-proof writes
    "Lemma 3 (Lemma 2 of Li et al. (translation invariance))" for a box titled "Lemma 2 of Li et al.
    (translation invariance)"; the slide says the title once, with the kind only where the title
    does not start with one."""
    head = " ".join(head.split())
    m = re.match(rf"^{kind}\s*[\d.]*\s*(?:\((?P<title>.*)\))?\s*$", head, re.IGNORECASE | re.DOTALL)
    title = (m.group("title") or "").strip() if m else head
    if not title:
        return kind.title()
    if re.match(rf"^({'|'.join(BOX_KINDS)})\b", title, re.IGNORECASE):
        return title
    return f"{kind.title()}: {title}"


def statement_boxes(ch: str) -> list[dict]:
    art = article(f"book/{ch}")
    unlink(art)
    boxes = []
    for box in art.select("div.proof"):
        kinds = [c for c in box.get("class", []) if c in BOX_KINDS]
        if not kinds:
            continue
        head = box.select_one(".admonition-title")
        body = box.select_one("section") or box
        boxes.append(
            {
                "kind": kinds[0],
                "title": box_title(kinds[0], head.get_text(" ", strip=True) if head else kinds[0]),
                "html": body.decode_contents(),
                "size": len(body.get_text(" ", strip=True)),
            }
        )
    return boxes


def chapter_figures(ch: str) -> list[dict]:
    art = article(f"book/{ch}")
    out = []
    for img in art.select("div.cell_output img"):
        heading = img.find_previous(["h2", "h3", "h1"])
        caption = heading.get_text(" ", strip=True).rstrip("#¶ ") if heading else ""
        out.append({"src": img.get("src", ""), "caption": caption})
    return out


def figure_slide(fig: dict, title_: str, img_dir: Path) -> str | None:
    src = fig["src"]
    if src.startswith("data:"):
        new = src
    else:
        path = (SITE / "book" / src).resolve()
        if not src or not path.is_file():
            return None
        shutil.copy(path, img_dir / path.name)
        new = f"img/{path.name}"
    return f'<section><h3>{title_}</h3><img class="fig" src="{new}"></section>'


REF = re.compile(r"\b(Theorem|Lemma|Proposition|Definition)s?\s+([\d.]*\d)(?:\s+and\s+([\d.]*\d))?")


def row_slides(row: dict, used: set, img_dir: Path) -> list[str]:
    """A plan row: its title slide (section, minutes, what to show), its statements, its figure."""
    title_ = plain(row["title"])
    slides = [
        f'<section data-background-color="#f3f6fa"><h2>{title_}</h2>'
        f'<p class="plan">{html.escape(row["minutes"])} minutes. Show: {plain(row["what"])}</p></section>'
    ]
    if not row["chapters"]:
        return slides
    ch = row["chapters"][0]
    boxes = statement_boxes(ch)
    tail = row["section"].split(":", 1)[1] if ":" in row["section"] else row["section"]
    wanted = [(k, n) for k, *ns in REF.findall(plain(tail)) for n in ns if n]
    chosen = [
        b
        for b in boxes
        if (ch, b["title"]) not in used
        and any(re.search(rf"\b{k}\s+{re.escape(n)}(?![.\d]*\d)", b["title"]) for k, n in wanted)
    ]
    if not chosen:
        chosen = [b for b in boxes if (ch, b["title"]) not in used][:1]
    for b in chosen:
        used.add((ch, b["title"]))
        size = "small" if b["size"] > 700 else ""
        slides.append(
            f'<section class="{size}"><h3>{html.escape(b["title"])}</h3>'
            f'<div class="box {b["kind"]}">{b["html"]}</div></section>'
        )
    shown = row["what"] + " " + row["section"]
    if re.search(r"figure", shown, re.IGNORECASE):
        figs = chapter_figures(ch)
        number = re.search(r"Figure\s+(\d+)", shown)
        if number:
            figs = [f for f in figs if f"Figure {number.group(1)}" in f["caption"]] or figs
        for fig in figs:
            made = figure_slide(fig, f"{title_}: {html.escape(fig['caption'])}" if fig["caption"] else title_, img_dir)
            if made:
                slides.append(made)
                break
    slides += explorer_stills(ch, used, img_dir)
    return slides


def still_title(alt: str) -> str:
    """A still's alt text without the words the slide's own title already says."""
    return re.sub(r"^the live explorer at its default setting:\s*", "", alt, flags=re.IGNORECASE)


def explorer_stills(ch: str, used: set, img_dir: Path) -> list[str]:
    """The still (default setting) of each live explorer of the chapter, once per lecture."""
    out = []
    for img in article(f"book/{ch}").select("[data-live] img"):
        path = (SITE / "book" / img.get("src", "")).resolve()
        if (ch, path.name) in used or not path.is_file():
            continue
        used.add((ch, path.name))
        shutil.copy(path, img_dir / path.name)
        out.append(
            f"<section><h3>Live in the book: {html.escape(still_title(img.get('alt', '')))}</h3>"
            f'<img class="fig" src="img/{path.name}"></section>'
        )
    return out


def exercise_slide(prob: dict, ex: dict) -> str:
    return (
        f'<section class="small"><h3>Exercise to set {STARS[prob["difficulty"]]}: '
        f'{html.escape(ex["number"])}</h3><div class="box exercise">{ex["exercise"]}</div></section>'
    )


SLIDE_CSS = """
.reveal { font-size: 30px; }
.reveal h2 { font-size: 1.6em; } .reveal h3 { font-size: 1.05em; }
.reveal h1, .reveal h2, .reveal h3 { text-transform: none; }
.reveal .box { text-align: left; border-left: 6px solid #3b6ea8; padding: 0.3em 0.8em;
  background: #f7f9fc; }
.reveal .box.definition { border-color: #6a8f3b; }
.reveal section.small { font-size: 0.72em; }
.reveal img.fig { max-height: 520px; max-width: 95%; }
.reveal .caption-number { font-weight: bold; }
.reveal li { font-size: 0.8em; }
.reveal p.plan { font-size: 0.7em; color: #444; }
.reveal .box.exercise { border-color: #b35900; }
"""


def slides_html(lecture: dict, found: dict, img_dir: Path, mathjax: str, plan: list[dict] | None = None) -> str:
    """reveal.js slides following the lecture's plan on the teachers' page: per row a titled
    slide with the minutes and what to show, the statements it names, its key figure where the
    plan shows one, and after the last row of a chapter the exercises of the problem set from it."""
    plan = plan if plan is not None else lecture_plan(lecture["number"])
    sections = [
        f"<section><h2>Lecture {lecture['number']}</h2><h3>{html.escape(lecture['title'])}</h3>"
        "<p>Why residual networks train</p></section>"
    ]
    last = {ch: i for i, row in enumerate(plan) for ch in row["chapters"]}
    used, set_ = set(), set()
    for i, row in enumerate(plan):
        sections += row_slides(row, used, img_dir)
        for prob in lecture["problems"]:
            ch = found[prob["label"]]["chapter"]
            if prob["label"] not in set_ and last.get(ch) == i:
                sections.append(exercise_slide(prob, found[prob["label"]]))
                set_.add(prob["label"])
    items = "".join(
        f"<li>{STARS[p['difficulty']]} {html.escape(found[p['label']]['number'])}: "
        f"{html.escape(found[p['label']]['chapter_title'])}</li>"
        for p in lecture["problems"]
    )
    sections.append(f"<section><h3>Problem set</h3><ul>{items}</ul></section>")
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>Lecture {lecture['number']}</title>"
        '<link rel="stylesheet" href="vendor/reveal/reveal.css">'
        '<link rel="stylesheet" href="vendor/reveal/theme/white.css">'
        f"<style>{SLIDE_CSS}</style>{mathjax}</head><body>"
        f'<div class="reveal"><div class="slides">{"".join(sections)}</div></div>'
        '<script src="vendor/reveal/reveal.js"></script>'
        "<script>Reveal.initialize({hash: true, width: 1280, height: 800, margin: 0.04})"
        ".then(() => window.MathJax && MathJax.typesetPromise && MathJax.typesetPromise());"
        "</script></body></html>"
    )


# ------------------------------------------------------------------------------------------
# printing
# ------------------------------------------------------------------------------------------


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # noqa: D401 - silence the access log
        pass


def serve(root: Path):
    handler = functools.partial(_Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def print_pdfs(jobs: list[tuple[str, Path]], port: int) -> dict:
    """Print each page to PDF after MathJax has finished; returns what each page showed."""
    from playwright.sync_api import sync_playwright

    footer = (
        '<div style="font-size:8px;width:100%;text-align:center;color:#666">'
        '<span class="pageNumber"></span> / <span class="totalPages"></span></div>'
    )
    checks = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page_ = browser.new_page()
        for url, pdf in jobs:
            page_.goto(f"http://127.0.0.1:{port}/{url}", wait_until="load", timeout=180_000)
            page_.wait_for_function(
                "() => !window.MathJax || (MathJax.startup && MathJax.startup.promise)", timeout=60_000
            )
            page_.evaluate("async () => { if (window.MathJax && MathJax.startup) { await MathJax.startup.promise; } }")
            checks[pdf.name] = page_.evaluate(
                "() => ({merror: document.querySelectorAll('mjx-merror, .katex-error').length,"
                " qq: (document.body.innerText.match(/\\?\\?/g) || []).length,"
                " images: document.images.length,"
                " broken_images: [...document.images].filter(i => !i.naturalWidth).length})"
            )
            page_.emulate_media(media="print")
            page_.pdf(
                path=str(pdf),
                format="A4",
                print_background=True,
                display_header_footer=True,
                header_template="<div></div>",
                footer_template=footer,
                margin={"top": "14mm", "bottom": "16mm", "left": "14mm", "right": "14mm"},
            )
            print(f"teach: {pdf.relative_to(ROOT) if pdf.is_relative_to(ROOT) else pdf} {checks[pdf.name]}", flush=True)
        browser.close()
    return checks


def main() -> int:
    spec = yaml.safe_load((Path(__file__).parent / "problems.yml").read_text(encoding="utf-8"))
    if OUT.exists():
        shutil.rmtree(OUT)
    src = OUT / "src"
    src.mkdir(parents=True)
    # one server root: /site -> the built book, /teach -> _build/teach
    serve_root = OUT / ".serve"
    serve_root.mkdir()
    (serve_root / "site").symlink_to(SITE.resolve())
    (serve_root / "teach").symlink_to(OUT.resolve())

    every = [ch for lec in spec["lectures"] for ch in lec["chapters"]]
    found = exercises(every)
    missing = [p["label"] for lec in spec["lectures"] for p in lec["problems"] if p["label"] not in found]
    if missing:
        raise SystemExit(f"teach: problems.yml names exercises the book does not have: {missing}")

    (src / "book.html").write_text(book_html(), encoding="utf-8")
    jobs = [("teach/src/book.html", OUT / "book.pdf")]
    manifest = {"book": "book.pdf", "lectures": []}

    # slides: reveal.js and the site's MathJax copied beside them, so the folder works offline
    slides = OUT / "slides"
    (slides / "img").mkdir(parents=True)
    shutil.copytree(reveal_dist() / "dist", slides / "vendor" / "reveal")
    mj_src = SITE / "_static" / "vendor" / "mathjax"
    mathjax = ""
    if mj_src.exists():
        shutil.copytree(mj_src, slides / "vendor" / "mathjax")
        cfg = [t for t in head_parts("math").split("\n") if "window.MathJax" in t]
        js = (
            next(p for p in mj_src.rglob("*.js") if p.name.startswith("tex-"))
            if not (mj_src / "es5" / "tex-mml-chtml.js").exists()
            else mj_src / "es5" / "tex-mml-chtml.js"
        )
        mathjax = "".join(cfg) + f'<script src="vendor/mathjax/{js.relative_to(mj_src).as_posix()}"></script>'

    for lec in spec["lectures"]:
        n = lec["number"]
        for key in (False, True):
            name = f"lecture-{n}-{'key' if key else 'exercises'}"
            (src / f"{name}.html").write_text(sheet_html(lec, found, key), encoding="utf-8")
            jobs.append((f"teach/src/{name}.html", OUT / f"{name}.pdf"))
        (slides / f"lecture-{n}.html").write_text(slides_html(lec, found, slides / "img", mathjax), encoding="utf-8")
        manifest["lectures"].append(
            {
                "number": n,
                "title": lec["title"],
                "exercises": f"lecture-{n}-exercises.pdf",
                "key": f"lecture-{n}-key.pdf",
                "slides": f"slides/lecture-{n}.html",
                "problems": [
                    {"label": p["label"], "book_number": found[p["label"]]["number"], "difficulty": p["difficulty"]}
                    for p in lec["problems"]
                ],
            }
        )

    server = serve(serve_root)
    try:
        manifest["checks"] = print_pdfs(jobs, server.server_address[1])
    finally:
        server.shutdown()
    shutil.rmtree(serve_root)
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(
        f"teach: slides in {slides.relative_to(ROOT) if slides.is_relative_to(ROOT) else slides}"
        " (open lecture-<n>.html in a browser; works offline)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
