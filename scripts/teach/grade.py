"""Grade a folder of submitted notebooks: ``make grade SUBMISSIONS=dir`` -> ``_build/grades/``.

    python -m scripts.teach.grade SUBMISSIONS [--out DIR] [--limit S] [--cell-limit S] [--jobs N]

A submission is any ``.ipynb`` under SUBMISSIONS: a chapter from ``make lab EDITION=student``, or a
lecture's assignment (``make assignments``). The student is the first folder under SUBMISSIONS
(``SUBMISSIONS/<student>/<notebook>.ipynb``), or the file's name for a file directly in it.

For each notebook:

1. the exercises it is graded on are the checked ones (``resnet_nb.book.exercises``) that it
   states, that its chapter (same file name in ``book/``) has, or that its metadata lists, so a
   deleted exercise still counts, with zero;
2. every check cell is replaced by the grader's own (``exercises.grade_check``), placed under the
   exercise's answer cell (found by its id ``ex-answer-<label>``, its tag or its first line); a
   student's edited or deleted check cell changes nothing, a deleted answer cell scores zero;
3. the copy is executed in a fresh kernel in its own temporary folder, in a separate process, with
   errors allowed (a failing cell does not stop the run), each cell interrupted after
   ``--cell-limit`` seconds and the whole process killed after ``--limit`` seconds; the grader's
   check cells write their verdicts to a log as they run, so what ran before a crash or a time-out
   is scored.

Writes ``scores.csv`` (one row per student, one column per exercise, 1 or 0, then the total),
``details.csv`` (student, notebook, exercise, score, status, message) and ``reports/<student>.md``
(what each exercise got and why, the errors and time-outs of the run). The run never stops on a
submission: a notebook that cannot even be read is reported and scored zero.

Why not otter-grader or nbgrader: both need the assignment written in their own format (otter's
question and test cells, nbgrader's cell metadata with checksums, course folder and gradebook
database), while the exercises here live in the book's chapters, edited by many authors; otter's
``grade`` runs submissions in Docker, which the course machines lack, and nbgrader would add a
web server, a database layer and a notebook server pinned beside the book's lock. Both execute
notebooks with nbclient, which this grader uses directly.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
LABEL = re.compile(r"^:label:\s+(\S+)", re.MULTILINE)
EXERCISE = re.compile(r"^`{3,}\{exercise\}[^\n]*\n((?::[^\n]*\n)*)", re.MULTILINE)
ANSWER_LINE = re.compile(r"^# Your answer to (\S+?)[:\s]", re.MULTILINE)


def _source(cell) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def stated_labels(nb: dict) -> list[str]:
    """Labels of the exercises stated in the notebook's Markdown cells, in order."""
    out = []
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            for m in EXERCISE.finditer(_source(cell)):
                out += LABEL.findall(m.group(1))
    return out


def expected_labels(nb: dict, name: str, checked: set[str]) -> list[str]:
    labels = stated_labels(nb)
    chapter = BOOK / name
    if chapter.exists():
        labels += stated_labels(json.loads(chapter.read_text(encoding="utf-8")))
    labels += list(nb.get("metadata", {}).get("resnet_nb", {}).get("exercises", []))
    return [lab for lab in dict.fromkeys(labels) if lab in checked]


def answer_index(cells: list[dict], label: str) -> int | None:
    for i, cell in enumerate(cells):
        if cell.get("cell_type") != "code":
            continue
        meta = cell.get("metadata", {})
        if cell.get("id") == f"ex-answer-{label}" or (
            meta.get("exercise") == label and "exercise-answer" in meta.get("tags", [])
        ):
            return i
        m = ANSWER_LINE.search(_source(cell))
        if m and m.group(1) == label:
            return i
    return None


def grading_copy(nb: dict, labels: list[str], specs: dict) -> tuple[dict, list[str]]:
    """The notebook with the grader's check cells; returns it and the labels without an answer cell."""
    cells = [
        c
        for c in nb.get("cells", [])
        if not (
            str(c.get("id", "")).startswith("ex-check-")
            or "exercise-check" in c.get("metadata", {}).get("tags", [])
            or "exercises.check(" in _source(c)
        )
    ]
    missing = []
    for label in labels:
        i = answer_index(cells, label)
        if i is None:
            missing.append(label)
            continue
        args = ", ".join(specs[label].args)
        source = f'from resnet_nb.book import exercises as _grader\n\n_grader.grade_check("{label}", lambda: ({args},))'
        cells.insert(
            i + 1,
            {
                "cell_type": "code",
                "id": f"grader-{label}",
                "metadata": {},
                "source": source,
                "outputs": [],
                "execution_count": None,
            },
        )
    out = dict(nb, cells=cells)
    out.setdefault("metadata", {})["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    out["nbformat"], out["nbformat_minor"] = 4, max(5, nb.get("nbformat_minor", 5))
    return out, missing


def execute(path: Path, workdir: Path, cell_limit: float) -> None:
    """Run in the child process: execute ``path`` in place, errors allowed, long cells interrupted."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=cell_limit,
        interrupt_on_timeout=True,
        allow_errors=True,
        kernel_name="python3",
        resources={"metadata": {"path": str(workdir)}},
        # saved after every cell, so that a run killed at the time limit still shows its errors
        on_cell_executed=lambda **_: nbformat.write(nb, path),
        # once the kernel answers, its pid and start time, so that the grader can stop it
        on_notebook_start=lambda **_: record_kernel(client, path.parent / KERNEL_FILE),
    )
    try:
        client.execute()
    finally:
        nbformat.write(nb, path)


#: where the runner records its kernel's process (pid and start time), beside the submission
KERNEL_FILE = "kernel.json"


def record_kernel(client, path: Path) -> None:
    """Write the pid and start time of ``client``'s kernel to ``path`` (called once it answers)."""
    import psutil

    pid = client.km.provisioner.process.pid
    path.write_text(json.dumps({"pid": pid, "started": psutil.Process(pid).create_time()}), encoding="utf-8")


def stop_kernel(path: Path) -> bool:
    """Kill the kernel (and its process group) recorded in ``path`` if it still runs; True if it did.

    The start time must match the recorded one, so that a pid the system gave to another process
    after the kernel ended is left alone."""
    import psutil

    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
        proc = psutil.Process(rec["pid"])
        if proc.create_time() != rec["started"]:
            return False
        os.killpg(rec["pid"], signal.SIGKILL)
    except (OSError, ValueError, KeyError, psutil.Error):
        return False
    return True


def run_one(nb_path: Path, specs: dict, limit: float, cell_limit: float) -> dict:
    """Grade one submitted notebook; never raises."""
    result = {"notebook": nb_path.name, "verdicts": {}, "missing": [], "errors": [], "timed_out": False, "seconds": 0.0}
    start = time.monotonic()
    try:
        nb = json.loads(nb_path.read_text(encoding="utf-8"))
        if not isinstance(nb.get("cells"), list):
            raise ValueError("no cells")
    except (OSError, ValueError) as exc:
        result["errors"].append(f"the notebook could not be read ({type(exc).__name__}: {exc})")
        result["labels"] = []
        return result
    labels = expected_labels(nb, nb_path.name, set(specs))
    result["labels"] = labels
    copy, result["missing"] = grading_copy(nb, labels, specs)
    with tempfile.TemporaryDirectory(prefix="grade-") as tmp:
        work = Path(tmp)
        target, log = work / "submission.ipynb", work / "grades.jsonl"
        target.write_text(json.dumps(copy), encoding="utf-8")
        env = dict(os.environ, RESNET_NB_GRADE_LOG=str(log), PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
        env.pop("MPLBACKEND", None)
        cmd = [sys.executable, "-m", "scripts.teach.grade", "--execute", str(target), "--cell-limit", str(cell_limit)]
        # The runner's output goes to a file, not a pipe: its kernel inherits the file, and a pipe
        # is only at its end when every process holding it has exited, so a kernel that hangs
        # while closing (seen: ipykernel 7 blocked in zmq's Context.term after its runner was
        # killed) would keep the grader waiting for ever.
        with open(work / "runner.log", "wb") as runner_log:
            proc = subprocess.Popen(
                cmd, cwd=ROOT, env=env, stdout=runner_log, stderr=subprocess.STDOUT, start_new_session=True
            )
            try:
                proc.wait(timeout=limit)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)  # the runner and what it started in its session
                proc.wait()
                result["timed_out"] = True
            finally:
                # the kernel runs in a session of its own (jupyter_client starts it so): stop it too
                stop_kernel(work / KERNEL_FILE)
        out = (work / "runner.log").read_bytes()
        if proc.returncode and not result["timed_out"]:
            tail = out.decode(errors="replace").strip().splitlines()[-1:] or ["(no output)"]
            result["errors"].append(f"the run stopped: {tail[0][:300]}")
        if target.exists():
            try:
                ran = json.loads(target.read_text(encoding="utf-8"))
                for cell in ran.get("cells", []):
                    for o in cell.get("outputs", []):
                        if o.get("output_type") == "error":
                            first = _source(cell).strip().splitlines()[:1] or [""]
                            what = (
                                f"a cell ran past the limit of {cell_limit:g} s per cell and was interrupted"
                                if o.get("ename") == "KeyboardInterrupt"
                                else f"{o.get('ename')}: {str(o.get('evalue'))[:200]}"
                            )
                            result["errors"].append(f"{what} (cell: {first[0][:60]})")
            except ValueError:
                pass
        if log.exists():
            for line in log.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                if row.get("graded"):
                    result["verdicts"][row["label"]] = row
    result["seconds"] = time.monotonic() - start
    return result


def status_of(label: str, res: dict) -> tuple[int, str, str]:
    if label in res["missing"]:
        return 0, "answer cell deleted", "No answer cell for this exercise in the submission."
    v = res["verdicts"].get(label)
    if v is None:
        why = "time limit" if res["timed_out"] else "the run stopped before it"
        return 0, "not reached", f"The check did not run ({why})."
    return (1, "correct", v["message"]) if v["passed"] else (0, v["mistake"] or "wrong", v["message"])


def student_of(path: Path, root: Path) -> str:
    rel = path.relative_to(root)
    return rel.parts[0] if len(rel.parts) > 1 else path.stem


def grade(submissions: Path, out: Path, limit: float, cell_limit: float, jobs: int = 1) -> list[dict]:
    from concurrent.futures import ThreadPoolExecutor

    from resnet_nb.book.exercises import specs as all_specs

    specs = all_specs()
    paths = sorted(p for p in submissions.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    if not paths:
        raise SystemExit(f"grade: no .ipynb under {submissions}")
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(pool.map(lambda p: run_one(p, specs, limit, cell_limit), paths))
    rows = []
    for path, res in zip(paths, results):
        for label in res["labels"]:
            score, status, message = status_of(label, res)
            rows.append(
                dict(
                    student=student_of(path, submissions),
                    notebook=res["notebook"],
                    exercise=label,
                    score=score,
                    status=status,
                    message=message,
                )
            )
        if not res["labels"]:
            rows.append(
                dict(
                    student=student_of(path, submissions),
                    notebook=res["notebook"],
                    exercise="",
                    score=0,
                    status="no exercises",
                    message="; ".join(res["errors"]),
                )
            )
    write(out, rows, dict(zip(paths, results)), submissions)
    return rows


def write(out: Path, rows: list[dict], results: dict, submissions: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "reports").mkdir(exist_ok=True)
    with open(out / "details.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["student", "notebook", "exercise", "score", "status", "message"])
        w.writeheader()
        w.writerows(rows)
    students = sorted({r["student"] for r in rows})
    labels = list(dict.fromkeys(r["exercise"] for r in rows if r["exercise"]))
    table = {s: {} for s in students}
    for r in rows:
        if r["exercise"]:
            table[r["student"]][r["exercise"]] = r["score"]
    with open(out / "scores.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["student", *labels, "total", "max"])
        for s in students:
            got = table[s]
            w.writerow([s, *(got.get(lab, "") for lab in labels), sum(got.values()), len(got)])
    for s in students:
        mine = [r for r in rows if r["student"] == s]
        lines = [f"# {s}: {sum(r['score'] for r in mine)} of {sum(1 for r in mine if r['exercise'])}", ""]
        for path, res in results.items():
            if student_of(path, submissions) != s:
                continue
            lines.append(f"## {res['notebook']} (ran {res['seconds']:.0f} s)")
            lines.append("")
            for r in (r for r in mine if r["notebook"] == res["notebook"] and r["exercise"]):
                mark = "correct" if r["score"] else r["status"]
                lines.append(f"- **{r['exercise']}**: {mark}. {r['message']}".rstrip())
            if res["timed_out"]:
                lines.append("- The run was stopped at the time limit; the checks after that point did not run.")
            for e in res["errors"]:
                lines.append(f"- Error in the run: {e}")
            lines.append("")
        (out / "reports" / f"{s}.md").write_text("\n".join(lines), encoding="utf-8")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("submissions", nargs="?", type=Path)
    ap.add_argument("--out", type=Path, default=ROOT / "_build" / "grades")
    ap.add_argument("--limit", type=float, default=900.0, help="seconds per notebook (default 900)")
    ap.add_argument("--cell-limit", type=float, default=300.0, help="seconds per cell (default 300)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--execute", type=Path, help=argparse.SUPPRESS)  # the child process
    a = ap.parse_args(argv)
    if a.execute:
        execute(a.execute, a.execute.parent, a.cell_limit)
        return 0
    if a.submissions is None or not a.submissions.is_dir():
        ap.error(f"SUBMISSIONS must be a folder of notebooks, got {a.submissions}")
    start = time.monotonic()
    rows = grade(a.submissions.resolve(), a.out, a.limit, a.cell_limit, a.jobs)
    students = sorted({r["student"] for r in rows})
    for s in students:
        mine = [r for r in rows if r["student"] == s and r["exercise"]]
        bad = ", ".join(f"{r['exercise']} ({r['status']})" for r in mine if not r["score"])
        print(f"grade: {s}: {sum(r['score'] for r in mine)}/{len(mine)}" + (f"; not credited: {bad}" if bad else ""))
    print(f"grade: {len(students)} student(s) in {time.monotonic() - start:.0f} s -> {a.out}/scores.csv, reports/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
