"""Live notebooks for students: a working copy of the chapters that git does not track.

    python scripts/lab.py prepare [--edition full|student]   # (re)fresh lab/<edition>/
    python scripts/lab.py open    [--edition full|student]   # prepare, then start JupyterLab
                                                                # (what `make lab` runs)

The chapters in ``book/`` are the tracked sources; JupyterLab never opens them. ``prepare``
copies them to ``lab/full/`` (or ``lab/student/``, without the solutions: the same stripping
as ``scripts/build_student.py``), which ``.gitignore`` excludes, so that running cells and
JupyterLab's autosave write outputs only there and ``git status`` stays clean.

Each copied notebook gets two changes that only the live copy needs:

* the book's TeX macros (``\\Sxx``, ``\\norm``, ... from ``_config.yml``'s MathJax settings)
  as MyST front matter ``math:`` in the first Markdown cell, which jupyterlab-myst reads;
* citations ``{cite}`key``` written out as "[Li et al., 2016]" from ``book/references.bib``
  (jupyterlab-myst does not read BibTeX files and would show the bare key);
* a trust signature (``jupyter trust``), so that jupyterlab-myst evaluates the ``{eval}``
  roles that insert computed numbers into the text.

Refreshing without clobbering a student's work. ``lab/<edition>/.lab-manifest.json``
records, for every file, a hash of what ``prepare`` wrote (for notebooks: the cells' types and
sources, not their outputs). On the next ``prepare``:

* a file the student has not edited (its sources still hash to the manifest entry; outputs
  do not count) is replaced by the current chapter if the chapter changed;
* a file the student has edited is left alone; if the chapter changed meanwhile, the new
  version is written beside it as ``<name>.new.ipynb`` and a line says so;
* a deleted file is copied again.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import re
import shutil
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
LAB = ROOT / "lab"
MANIFEST = ".lab-manifest.json"
# Besides the notebooks: the Markdown pages, the bibliography and the quote lists.
EXTRA = ("*.md", "references.bib", "favicon.svg", "quotes/*.yml", "live/*.png")


def _build_student():
    spec = importlib.util.spec_from_file_location("build_student", ROOT / "scripts" / "build_student.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def book_macros() -> dict[str, str]:
    """The MathJax macros of ``_config.yml`` in MyST front-matter form (``\\name[n]: body``)."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    tex = config["sphinx"]["config"].get("mathjax3_config", {}).get("tex", {})
    out = {}
    for name, body in tex.get("macros", {}).items():
        if isinstance(body, list):
            out[f"\\{name}[{body[1]}]"] = body[0]
        else:
            out[f"\\{name}"] = body
    return out


def citations() -> dict[str, str]:
    """BibTeX key -> "Li et al., 2016" (author-year, as the built book labels citations)."""
    from pybtex.database import parse_file

    out = {}
    bib = BOOK / "references.bib"
    if not bib.exists():
        return out
    for key, entry in parse_file(str(bib)).entries.items():
        people = entry.persons.get("author", [])
        last = [" ".join(p.last_names).replace("{", "").replace("}", "") for p in people]
        names = (
            (last[0] if len(last) == 1 else f"{last[0]} & {last[1]}" if len(last) == 2 else f"{last[0]} et al.")
            if last
            else key
        )
        out[key] = f"{names}, {entry.fields.get('year', 'n.d.')}"
    return out


_CITE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]+)`")


def write_citations(text: str, cites: dict[str, str]) -> str:
    """Replace each ``{cite}`a,b``` by "[A et al., 2016; B, 2015]" (unknown keys kept as keys)."""

    def one(m: re.Match) -> str:
        keys = [k.strip() for k in m.group(1).split(",")]
        return "[" + "; ".join(cites.get(k, k) for k in keys) + "]"

    return _CITE.sub(one, text)


def _text(source) -> str:
    return "".join(source) if isinstance(source, list) else source


def source_hash(nb: dict) -> str:
    """Hash of a notebook's cell types and sources: what a student edits, not the outputs."""
    parts = [[c.get("cell_type"), _text(c.get("source", ""))] for c in nb.get("cells", [])]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def file_hash(path: Path) -> str:
    if path.suffix == ".ipynb":
        return source_hash(json.loads(path.read_text(encoding="utf-8")))
    return hashlib.sha256(path.read_bytes()).hexdigest()


def add_front_matter(nb: dict, macros: dict[str, str]) -> None:
    """Put the macros in front matter at the top of the first Markdown cell (or a new one)."""
    front = "---\n" + yaml.safe_dump({"math": macros}, allow_unicode=True, sort_keys=True) + "---\n"
    cells = nb["cells"]
    if cells and cells[0]["cell_type"] == "markdown":
        text = _text(cells[0]["source"])
        if text.startswith("---\n"):
            return  # the chapter has front matter of its own: leave it
        cells[0]["source"] = front + text
    else:
        cells.insert(0, {"cell_type": "markdown", "id": "lab-front-matter", "metadata": {}, "source": front})


def live_notebook(src: Path, edition: str, macros: dict[str, str]) -> dict:
    """The working-copy version of chapter ``src``: stripped for students, macros added."""
    if edition == "student":
        tmp = Path(os.environ.get("TMPDIR", "/tmp")) / f"lab-{os.getpid()}-{src.name}"
        shutil.copyfile(src, tmp)
        try:
            _build_student().strip_notebook(tmp)
            nb = json.loads(tmp.read_text(encoding="utf-8"))
        finally:
            tmp.unlink()
    else:
        nb = json.loads(src.read_text(encoding="utf-8"))
    cites = citations()
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            cell["source"] = write_citations(_text(cell["source"]), cites)
    add_front_matter(nb, macros)
    return nb


def _sign(path: Path) -> None:
    import nbformat
    from nbformat.sign import NotebookNotary

    nb = nbformat.read(path, as_version=4)
    NotebookNotary().sign(nb)


def _write(path: Path, content: str | bytes) -> None:
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")


def prepare(edition: str = "full", dest: Path | None = None, quiet: bool = False) -> Path:
    """Create or refresh the working copy ``lab/<edition>/``; returns its path."""
    if edition not in ("full", "student"):
        raise ValueError(f"edition must be 'full' or 'student', got {edition!r}")
    dest = Path(dest) if dest else LAB / edition
    dest.mkdir(parents=True, exist_ok=True)
    manifest_path = dest / MANIFEST
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    macros = book_macros()
    say = (lambda *a: None) if quiet else print
    strip_md = _build_student().strip_solutions

    sources = sorted(BOOK.glob("*.ipynb"))
    for pattern in EXTRA:
        sources += sorted(BOOK.glob(pattern))
    counts = {"new": 0, "updated": 0, "kept": 0, "unchanged": 0}
    for src in sources:
        rel = src.relative_to(BOOK).as_posix()
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if src.suffix == ".ipynb":
            nb = live_notebook(src, edition, macros)
            content = json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
            new_hash = source_hash(nb)
        elif src.suffix == ".png":  # the live explorers' stills, shown by the chapters' Markdown
            content = src.read_bytes()
            new_hash = hashlib.sha256(content).hexdigest()
        else:
            content = src.read_text(encoding="utf-8")
            if edition == "student" and src.suffix == ".md":
                content = strip_md(content)[0]
            new_hash = hashlib.sha256(content.encode()).hexdigest()
        old_hash = manifest.get(rel)
        if not target.exists():
            state = "new"
        elif old_hash == new_hash:
            state = "unchanged"
        elif old_hash is not None and file_hash(target) == old_hash:
            state = "updated"  # the student did not edit it; the chapter changed
        else:
            state = "kept"
        if state == "unchanged":
            counts[state] += 1
            continue
        if state == "kept":
            if file_hash(target) == new_hash:  # the student's copy already is the new version
                manifest[rel] = new_hash
                counts["unchanged"] += 1
                continue
            side = target.with_name(target.stem + ".new" + target.suffix)
            _write(side, content)
            if side.suffix == ".ipynb":
                _sign(side)
            say(f"lab: kept your edited {rel}; the chapter changed, its new version is {side.relative_to(dest)}")
            counts[state] += 1
            continue  # the manifest keeps the old hash: the file is still the student's
        _write(target, content)
        if target.suffix == ".ipynb":
            _sign(target)
        manifest[rel] = new_hash
        counts[state] += 1
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    say(
        f"lab: {dest.relative_to(ROOT) if dest.is_relative_to(ROOT) else dest}: "
        + ", ".join(f"{v} {k}" for k, v in counts.items())
    )
    return dest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["prepare", "open"])
    parser.add_argument("--edition", default=os.environ.get("EDITION") or "full", choices=["full", "student"])
    parser.add_argument("--dest", type=Path, default=None)
    parser.add_argument("--port", default=os.environ.get("LAB_PORT", "8888"))
    args, extra = parser.parse_known_args(argv)
    dest = prepare(args.edition, args.dest)
    if args.command == "prepare":
        return 0
    jupyter = Path(sys.executable).parent / "jupyter"
    cmd = [
        str(jupyter if jupyter.exists() else "jupyter"),
        "lab",
        f"--notebook-dir={dest}",
        f"--ServerApp.port={args.port}",
        *extra,
    ]
    if getattr(os, "geteuid", lambda: 1)() == 0:
        cmd.append("--allow-root")  # JupyterLab refuses root otherwise (containers, CI)
    print("lab:", " ".join(cmd), flush=True)
    os.execv(cmd[0], cmd) if jupyter.exists() else os.execvp(cmd[0], cmd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
