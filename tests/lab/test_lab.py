"""The live path in a real browser: JupyterLab + jupyterlab-myst on the students' working copy.

    make test-lab        (python -m pytest tests/lab -p no:cacheprovider -q)

Starts JupyterLab on 127.0.0.1 (a token set here, settings in a temporary folder) on a
working copy made by ``scripts/lab.py prepare`` (never on ``book/``), opens chapters in the
system Chromium through Playwright, runs all cells and checks what a student sees:

* no cell error;
* no raw MyST in the rendered Markdown (``{prf:``, ``{exercise}``, ``:label:``, ``{eval}``,
  ``{cite}``), no KaTeX error (an undefined macro);
* an ``{eval}`` role shows a computed value, not its variable name;
* solutions are folded (closed ``<details>``), and absent in the student edition;
* changing one widget control changes the widget's output.

Screenshots go to ``_build/screenshots/lab/`` (``LAB_SCREENSHOT_DIR`` overrides). The two
chapters are the cheap ones that between them hold theorem boxes, ``{eval}`` numbers,
exercises and a widget (``LAB_CHAPTERS`` overrides, comma-separated).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SHOTS = Path(os.environ.get("LAB_SCREENSHOT_DIR", ROOT / "_build" / "screenshots" / "lab"))
CHAPTERS = os.environ.get("LAB_CHAPTERS", "notation,theorem1").split(",")
RAW_MYST = [
    "{prf:",
    "{exercise}",
    "{solution}",
    ":label:",
    "{eval}",
    "{cite}",
    "{admonition}",
    "{dropdown}",
    ":::{",
    "```{",
]
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
RUN_TIMEOUT_MS = int(os.environ.get("LAB_RUN_TIMEOUT_S", "480")) * 1000

playwright = pytest.importorskip("playwright.sync_api")
if not Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} is missing (make chromium installs it)", allow_module_level=True)

_spec = importlib.util.spec_from_file_location("lab", ROOT / "scripts" / "lab.py")
lab = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lab)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    """A JupyterLab server on a fresh working copy of one edition."""

    def __init__(self, edition: str, tmp: Path):
        self.edition = edition
        self.dir = lab.prepare(edition, tmp / edition, quiet=True)
        self.port = _free_port()
        self.token = f"test-{os.getpid()}-{edition}"
        settings = tmp / "settings"
        overrides = {
            # no pop-up asking to fetch news from the internet
            "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
            # every cell in the DOM, so that what is checked is the whole notebook
            "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
        }
        for name, value in overrides.items():
            path = settings / f"{name}.jupyterlab-settings"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(value))
        env = dict(
            os.environ,
            JUPYTERLAB_SETTINGS_DIR=str(settings),
            JUPYTERLAB_WORKSPACES_DIR=str(tmp / "workspaces"),
            OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"),
        )
        jupyter = Path(sys.executable).parent / "jupyter"
        cmd = [
            str(jupyter),
            "lab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={self.port}",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.dir}",
        ]
        if os.geteuid() == 0:
            cmd.append("--allow-root")
        self.log = tmp / f"server-{edition}.log"
        self.proc = subprocess.Popen(cmd, env=env, stdout=self.log.open("w"), stderr=subprocess.STDOUT)
        deadline = time.time() + 120
        while True:
            try:
                urllib.request.urlopen(self.url("api/status"), timeout=2)
                break
            except OSError:
                if self.proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError("JupyterLab did not start:\n" + self.log.read_text()[-3000:]) from None
                time.sleep(0.5)

    def url(self, path: str, query: str = "") -> str:
        return f"http://127.0.0.1:{self.port}/{path}?{query}token={self.token}"

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def full_lab(tmp_path_factory):
    server = Lab("full", tmp_path_factory.mktemp("lab"))
    yield server
    server.close()


@pytest.fixture(scope="module")
def student_lab(tmp_path_factory):
    server = Lab("student", tmp_path_factory.mktemp("lab"))
    yield server
    server.close()


def open_notebook(browser, server: Lab, name: str):
    # a fresh context and workspace per notebook: nothing restored from the previous one
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    workspace = f"test-{name.removesuffix('.ipynb')}"
    page.goto(server.url(f"lab/workspaces/{workspace}/tree/{name}", "reset&"))
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
    page.get_by_text("| Idle").wait_for(timeout=120_000)  # the kernel is up
    page.wait_for_selector(".jp-MarkdownCell .myst", timeout=60_000)
    return page, errors


def run_all(page) -> float:
    start = time.time()
    page.click(".lm-MenuBar-itemLabel:text-is('Run')")
    page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
    page.wait_for_function(
        """() => {
            const p = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
                .map(e => e.textContent);
            return p.length > 0 && p.every(s => /\\[\\d+\\]/.test(s));
        }""",
        timeout=RUN_TIMEOUT_MS,
        polling=1000,
    )
    page.get_by_text("| Idle").wait_for(timeout=60_000)
    page.wait_for_timeout(1500)  # {eval} roles are filled in after the kernel answers
    return time.time() - start


def rendered_markdown(page) -> str:
    return "\n".join(page.locator(".jp-MarkdownCell .jp-MarkdownOutput, .jp-MarkdownCell .myst").all_inner_texts())


def shot(page, name: str, locator=None) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    if locator is not None:
        # JupyterLab 4 virtualises long notebooks: a cell far from the viewport can be detached
        # and re-attached while we scroll to it. The screenshot is for people to look at, not
        # an assertion, so a cell that will not hold still is photographed where the page is.
        try:
            locator.scroll_into_view_if_needed(timeout=10_000)
        except Exception as exc:  # noqa: BLE001 - playwright raises its own Error types
            print(f"screenshot {name}: could not scroll to the element ({type(exc).__name__})")
        page.wait_for_timeout(300)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def notebook_sources(server: Lab, name: str) -> list[dict]:
    return json.loads((server.dir / name).read_text(encoding="utf-8"))["cells"]


def check_rendering(page, server: Lab, name: str) -> None:
    text = rendered_markdown(page)
    raw = [r for r in RAW_MYST if r in text]
    assert not raw, f"{name}: raw MyST visible in the rendered Markdown: {raw}"
    assert page.locator(".jp-MarkdownCell .katex-error").count() == 0, f"{name}: KaTeX errors (an undefined macro?)"
    sources = "\n".join("".join(c["source"]) for c in notebook_sources(server, name) if c["cell_type"] == "markdown")
    if "{prf:" in sources:
        assert page.locator(
            ".jp-MarkdownCell .myst :text-matches('^(Theorem|Lemma|Definition|Proposition)')"
        ).count() or re.search(r"\b(Theorem|Lemma|Definition|Proposition)\b", text)


def check_eval(page, server: Lab, name: str) -> int:
    """Every ``{eval}`name``` preceded by plain words shows a value after those words."""
    text = " ".join(rendered_markdown(page).split())
    checked = 0
    for cell in notebook_sources(server, name):
        if cell["cell_type"] != "markdown":
            continue
        src = "".join(cell["source"])
        for m in re.finditer(r"([A-Za-z][A-Za-z ,]{10,})\{eval\}`(\w+)`", src):
            before = " ".join(m.group(1).split())
            i = text.find(before)
            if i < 0:
                continue
            after = text[i + len(before) :].lstrip()
            shown = after.split(" ")[0] if after else ""
            assert shown and shown != m.group(2) and not shown.startswith("`"), (
                f"{name}: {{eval}}`{m.group(2)}` after '{before}' shows {shown!r}"
            )
            checked += 1
    return checked


def check_widget(page, name: str) -> bool:
    """Move the first slider one step (or pick another dropdown entry); the output must change."""
    area = page.locator(".jp-OutputArea-output .widget-vbox, .jp-OutputArea-output .widget-box").first
    if area.count() == 0:
        return False
    output = area.locator(".widget-output").first

    def state() -> str:
        return output.inner_html() if output.count() else area.inner_html()

    before = state()
    shot(page, f"{name}-widget-before", area)
    slider = area.locator(".noUi-handle, .ui-slider-handle").first
    if slider.count():
        slider.focus()
        page.keyboard.press("ArrowRight")
    else:
        select = area.locator("select").first
        options = select.locator("option").all_inner_texts()
        current = select.input_value()
        select.select_option(next(o for o in options if o != current))
    page.wait_for_function(
        "([el, before]) => el.innerHTML !== before && !el.innerHTML.includes('jp-mod-busy')",
        arg=[output.element_handle() if output.count() else area.element_handle(), before],
        timeout=180_000,
        polling=500,
    )
    page.get_by_text("| Idle").wait_for(timeout=180_000)
    page.wait_for_timeout(1000)
    assert state() != before
    shot(page, f"{name}-widget-after", area)
    return True


def test_full_edition_runs_renders_and_folds(browser, full_lab):
    widgets = 0
    evals = 0
    for name in CHAPTERS:
        nb = f"{name}.ipynb"
        tracked = ROOT / "book" / nb
        stamp = tracked.stat().st_mtime_ns
        page, js_errors = open_notebook(browser, full_lab, nb)
        try:
            seconds = run_all(page)
        except Exception:
            shot(page, f"{name}-failure")
            raise
        print(f"{nb}: all cells ran in {seconds:.0f} s")
        errors = page.locator("[data-mime-type='application/vnd.jupyter.error']")
        assert errors.count() == 0, f"{nb}: a cell raised:\n" + "\n".join(errors.all_inner_texts())[:3000]
        check_rendering(page, full_lab, nb)
        evals += check_eval(page, full_lab, nb)
        box = page.locator(".jp-MarkdownCell .myst-exercise").first
        sol = page.locator(".jp-MarkdownCell details").filter(has_text="Solution")
        if box.count():
            shot(page, f"{name}-exercise", box)
            assert sol.count() > 0, f"{nb}: exercises without a folded solution"
            closed = sol.evaluate_all("els => els.every(e => !e.open)")
            assert closed, f"{nb}: a solution is unfolded"
        first_prf = page.locator(".jp-MarkdownCell .myst :text-matches('^(Theorem|Lemma|Definition)')").first
        if first_prf.count():
            shot(page, f"{name}-box", first_prf)
        if check_widget(page, name):
            widgets += 1
        assert not [e for e in js_errors if "myst" in e.lower()], js_errors
        # save (as autosave would): it must go to the working copy
        page.click(".lm-MenuBar-itemLabel:text-is('File')")
        page.click(".lm-Menu-itemLabel:text-matches('^Save( Notebook)?$')")
        page.wait_for_timeout(1000)
        page.context.close()
        saved = json.loads((full_lab.dir / nb).read_text(encoding="utf-8"))
        assert any(c.get("outputs") for c in saved["cells"] if c["cell_type"] == "code"), (
            f"{nb}: the working copy was not saved with outputs"
        )
        assert tracked.stat().st_mtime_ns == stamp, f"book/{nb} was written during the session"
    assert widgets >= 1, f"no widget found in {CHAPTERS}: the widget check did not run"
    if evals == 0:
        pytest.xfail(f"no {{eval}} role found after plain words in {CHAPTERS}")


def test_student_edition_has_no_solutions(browser, student_lab):
    for name in CHAPTERS:
        nb = f"{name}.ipynb"
        src = (student_lab.dir / nb).read_text(encoding="utf-8")
        assert "{solution" not in src
        page, _ = open_notebook(browser, student_lab, nb)
        text = rendered_markdown(page)
        assert "Solution to" not in text, f"{nb}: a solution in the student edition"
        box = page.locator(".jp-MarkdownCell .myst-exercise").first
        if box.count():
            shot(page, f"student-{name}-exercise", box)
        page.context.close()
