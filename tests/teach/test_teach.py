"""Checks of the course materials in _build/teach (run by `make teach`, or `make test-teach`).

* every problem on a lecture's exercise sheet has its answer in that lecture's key;
* no page of any PDF shows "??" (an unresolved reference) and no math error (MathJax merror);
  no image is broken;
* the chosen problem sets of scripts/teach/problems.yml are the ones the teachers' page lists;
* the slides load offline (every request goes to the local server), typeset their math and
  show every figure; screenshots of a few slides go to _build/screenshots/teach/.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(os.environ.get("TEACH_OUT", ROOT / "_build" / "teach"))
SHOTS = ROOT / "_build" / "screenshots" / "teach"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SPEC = yaml.safe_load((ROOT / "scripts" / "teach" / "problems.yml").read_text(encoding="utf-8"))

if not (OUT / "manifest.json").exists():
    pytest.skip("no _build/teach/manifest.json: run `make teach` first", allow_module_level=True)
MANIFEST = json.loads((OUT / "manifest.json").read_text())


def problems(html_path: Path) -> dict[str, BeautifulSoup]:
    soup = BeautifulSoup(html_path.read_text(encoding="utf-8"), "html.parser")
    return {div["id"]: div for div in soup.select("div.problem")}


@pytest.mark.parametrize("lecture", MANIFEST["lectures"], ids=lambda lec: f"lecture-{lec['number']}")
def test_every_exercise_has_its_answer_in_the_key(lecture):
    n = lecture["number"]
    sheet = problems(OUT / "src" / f"lecture-{n}-exercises.html")
    key = problems(OUT / "src" / f"lecture-{n}-key.html")
    assert sheet, f"lecture {n}: the exercise sheet is empty"
    assert list(sheet) == list(key), f"lecture {n}: sheet and key list different problems"
    for label, div in key.items():
        answer = div.select_one(".solution-text")
        assert answer is not None and "NO SOLUTION IN THE BOOK" not in answer.get_text(), (
            f"lecture {n}: no answer for {label} in the key"
        )
        assert len(answer.get_text(" ", strip=True)) > 40, f"lecture {n}: empty answer for {label}"
        assert div.select_one(".solution-text") and not sheet[label].select_one(".solution-text")
    for name in (lecture["exercises"], lecture["key"]):
        assert (OUT / name).stat().st_size > 10_000, name


def test_pdfs_show_no_unresolved_reference_or_math_error():
    checks = MANIFEST["checks"]
    assert "book.pdf" in checks and len(checks) == 1 + 2 * len(MANIFEST["lectures"])
    bad = {name: c for name, c in checks.items() if c["qq"] or c["merror"] or c["broken_images"]}
    assert not bad, f"pages with '??', math errors or broken images: {bad}"
    assert checks["book.pdf"]["images"] > 10
    if shutil.which("pdftotext"):  # the PDFs themselves, as a second reading
        for name in checks:
            text = subprocess.run(
                ["pdftotext", str(OUT / name), "-"], capture_output=True, text=True, check=True
            ).stdout
            assert "??" not in text, f"{name} shows '??'"
            assert len(text) > 500, f"{name} is (nearly) empty"


def test_problem_sets_match_the_teachers_page():
    page = (ROOT / "book" / "teaching.md").read_text(encoding="utf-8")
    for lec in SPEC["lectures"]:
        for p in lec["problems"]:
            assert p["label"] in page, f"{p['label']} (lecture {lec['number']}) is not on book/teaching.md"


def test_slides_load_offline_and_typeset():
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing")
    slides = OUT / "slides"
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(slides))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    SHOTS.mkdir(parents=True, exist_ok=True)
    outside: list[str] = []
    try:
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM,
                args=[
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--no-first-run",
                ],
            )
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.on(
                "request",
                lambda r: outside.append(r.url) if not re.match(r"^(http://127\.0\.0\.1|data:|blob:)", r.url) else None,
            )
            for lec in MANIFEST["lectures"]:
                port = server.server_address[1]
                page.goto(f"http://127.0.0.1:{port}/lecture-{lec['number']}.html")
                page.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=60_000)
                page.evaluate("async () => { if (window.MathJax && MathJax.startup) await MathJax.startup.promise; }")
                total = page.evaluate("() => Reveal.getTotalSlides()")
                assert total >= 5, f"lecture {lec['number']}: only {total} slides"
                assert page.locator("mjx-merror").count() == 0
                assert page.locator("mjx-container").count() > 0, "no typeset math on the slides"
                broken = page.evaluate(
                    "() => [...document.images].filter(i => !i.complete || !i.naturalWidth).map(i => i.src)"
                )
                assert not broken, broken
                page.evaluate("() => Reveal.configure({transition: 'none'})")
                for k in (0, 2, 3, total // 2, total - 1):
                    page.evaluate(f"() => Reveal.slide({k})")
                    page.wait_for_timeout(400)
                    page.screenshot(path=str(SHOTS / f"lecture-{lec['number']}-slide-{k}.png"))
            browser.close()
    finally:
        server.shutdown()
    assert not outside, f"the slides requested addresses outside the local server: {outside[:5]}"
