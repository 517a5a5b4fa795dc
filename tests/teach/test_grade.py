"""The grader (scripts/teach/grade.py) over five fabricated submissions of lecture 1's assignment:
correct, partly correct (with deleted cells), wrong, crashing, endless loops, and one that leaves a
process running after it. Kept under two minutes by small time limits."""

import csv
import json
import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from resnet_nb.core import paths
from scripts.teach import assignment, grade

ROOT = paths.ROOT
LIMIT, CELL_LIMIT = 60.0, 15.0

RIGHT = {
    "ex-notation-depth": "units = 16\nparams = 4800",
    "ex-notation-loss": "def loss_from_stats(W, Sxx, Syx, trSyy):\n"
    "    return 0.5 * np.trace(W @ Sxx @ W.T) - np.trace(W @ Syx.T) + 0.5 * trSyy\n\n\n"
    "changed = {'linear', 'quadratic'}",
    "hm-ex-scalar": "import math\n\n\ndef smallest_max(gamma, l):\n    return math.exp(gamma / l) - 1\n\n\nfirst_l = 2",
    "hm-ex-pi": "import math\n\n\ndef norm_at_depth(l):\n    return 2 * math.sin(math.pi / (2 * l))",
    "hm-ex-tight": "def extremal_point(l, d, tau, Sigma):\n    w, V = np.linalg.eigh(Sigma)\n"
    "    return -tau * np.stack([np.eye(d)] * l), np.outer(np.ones(d), V[:, 0])",
    "hm-ex-margin": "points = np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 1.0]])",
    "hm-ex-count": "def blocks(n, k):\n    return -(-n // k)",
}
WRONG = {
    "ex-notation-depth": "units = 48\nparams = 4800",
    "ex-notation-loss": RIGHT["ex-notation-loss"]
    .replace("0.5 * np.trace(W @ Sxx", "np.trace(W @ Sxx")
    .replace("np.trace(W @ Syx.T) + 0.5", "2 * np.trace(W @ Syx.T) + 1.0"),
    "hm-ex-scalar": "def smallest_max(gamma, l):\n    return gamma / l\n\n\nfirst_l = 2",
    "hm-ex-pi": "import math\n\n\ndef norm_at_depth(l):\n    return math.pi / l",
    "hm-ex-tight": RIGHT["hm-ex-tight"].replace("-tau *", "tau *"),
    "hm-ex-margin": "points = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])",
    "hm-ex-count": "def blocks(n, k):\n    return n // k",
}
LOOP = "while True:\n    pass"
STUBBORN = "import time\n\nwhile True:\n    try:\n        time.sleep(0.1)\n    except KeyboardInterrupt:\n        pass"


def submission(nb: dict, answers: dict, drop: tuple = ()) -> dict:
    nb = json.loads(json.dumps(nb))
    cells = []
    for cell in nb["cells"]:
        label = cell.get("metadata", {}).get("exercise")
        if cell["id"] in drop:
            continue
        if cell["id"].startswith("ex-answer-") and label in answers:
            cell["source"] = answers[label]
        cells.append(cell)
    nb["cells"] = cells
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    from resnet_nb.book.exercises import specs

    tmp = tmp_path_factory.mktemp("grading")
    lecture = assignment.yaml.safe_load((ROOT / "scripts" / "teach" / "problems.yml").read_text())["lectures"][0]
    nb = assignment.lecture_notebook(lecture, specs())
    folder = tmp / "submissions"
    subs = {
        "ada": submission(nb, RIGHT),
        "ben": submission(
            nb,
            {**RIGHT, "hm-ex-margin": WRONG["hm-ex-margin"]},
            drop=("ex-answer-hm-ex-count", "ex-check-hm-ex-count", "ex-check-hm-ex-tight"),
        ),
        "cy": submission(nb, WRONG),
        "dee": submission(nb, {**RIGHT, "ex-notation-loss": "x = 1 / 0", "hm-ex-tight": "import os\n\nos._exit(1)"}),
        "eve": submission(nb, {**RIGHT, "hm-ex-scalar": LOOP, "hm-ex-count": STUBBORN}),
    }
    for name, sub in subs.items():
        (folder / name).mkdir(parents=True)
        (folder / name / "lecture-1.ipynb").write_text(json.dumps(sub))
    # gus answers right, and his first answer starts a process in a session of its own that
    # keeps the kernel's output open for ten minutes (as a kernel that hangs while closing does)
    marker = tmp / "gus-sleeper.pid"
    spawn = (
        "import subprocess\n"
        f"open({str(marker)!r}, 'w').write(str(subprocess.Popen(['sleep', '600'], start_new_session=True).pid))\n"
    )
    (folder / "gus").mkdir(parents=True)
    gus = submission(nb, {**RIGHT, "ex-notation-depth": spawn + RIGHT["ex-notation-depth"]})
    (folder / "gus" / "lecture-1.ipynb").write_text(json.dumps(gus))
    (folder / "fay.ipynb").write_text("{not json")
    start = time.monotonic()
    try:
        grade.grade(folder, tmp / "out", LIMIT, CELL_LIMIT, jobs=7)
    finally:
        if marker.exists():
            os.killpg(int(marker.read_text()), signal.SIGKILL)
    return tmp / "out", time.monotonic() - start


LABELS = [
    "ex-notation-depth",
    "ex-notation-loss",
    "hm-ex-scalar",
    "hm-ex-pi",
    "hm-ex-tight",
    "hm-ex-margin",
    "hm-ex-count",
]
EXPECTED = {
    "ada": [1, 1, 1, 1, 1, 1, 1],
    "ben": [1, 1, 1, 1, 1, 0, 0],
    "cy": [0, 0, 0, 0, 0, 0, 0],
    "dee": [1, 0, 1, 1, 0, 0, 0],
    "eve": [1, 1, 0, 1, 1, 1, 0],
    "gus": [1, 1, 1, 1, 1, 1, 1],
}


def table(out):
    with open(out / "scores.csv") as fh:
        return {row["student"]: row for row in csv.DictReader(fh)}


def details(out):
    with open(out / "details.csv") as fh:
        return {(r["student"], r["exercise"]): r for r in csv.DictReader(fh)}


def test_the_score_table_is_the_expected_one(graded):
    out, _ = graded
    rows = table(out)
    for student, scores in EXPECTED.items():
        assert [int(rows[student][lab]) for lab in LABELS] == scores, student
        assert int(rows[student]["total"]) == sum(scores) and int(rows[student]["max"]) == 7


def test_each_failure_is_reported_with_its_cause(graded):
    out, _ = graded
    d = details(out)
    assert d["ben", "hm-ex-count"]["status"] == "answer cell deleted"
    assert d["ben", "hm-ex-margin"]["status"] == "on-circle"
    assert d["cy", "ex-notation-depth"]["status"] == "units-are-matrices"
    assert d["cy", "ex-notation-loss"]["status"] == "factor-2"
    assert d["cy", "hm-ex-tight"]["status"] == "sign"
    assert d["dee", "ex-notation-loss"]["status"] == "undefined"
    assert d["dee", "hm-ex-count"]["status"] == "not reached"
    assert d["eve", "hm-ex-scalar"]["status"] == "undefined"
    assert d["eve", "hm-ex-count"]["status"] == "not reached"
    assert d["fay", ""]["status"] == "no exercises"


def test_reports_name_crashes_and_time_limits(graded):
    out, _ = graded
    dee = (out / "reports" / "dee.md").read_text()
    eve = (out / "reports" / "eve.md").read_text()
    assert "ZeroDivisionError" in dee and "run stopped" in dee
    assert "time limit" in eve and dee.startswith("# dee: 3 of 7")
    assert "was interrupted (cell: while True:" in eve  # the first loop, stopped at the cell limit


def test_the_whole_run_takes_well_under_two_minutes(graded):
    """Not five times the time limit (the submissions run side by side), and not the ten minutes of
    gus's left-over process: the grader waits for the runner, not for the end of its output."""
    _, seconds = graded
    assert seconds < 110


def test_a_kernel_left_running_is_stopped_and_only_that_process(tmp_path):
    kernel = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
    try:
        record = tmp_path / grade.KERNEL_FILE
        started = psutil.Process(kernel.pid).create_time()
        record.write_text(json.dumps({"pid": kernel.pid, "started": started}))
        assert grade.stop_kernel(record)
        assert kernel.wait(timeout=10) == -signal.SIGKILL
        # a recorded pid now held by another process (another start time) is left alone
        record.write_text(json.dumps({"pid": other.pid, "started": started - 60.0}))
        assert not grade.stop_kernel(record) and other.poll() is None
        assert not grade.stop_kernel(tmp_path / "missing.json")
    finally:
        for p in (kernel, other):
            p.kill()
            p.wait()
