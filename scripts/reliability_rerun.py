"""Rerun the 76 cases of the reliability review of ``python -m resnet_nb reproduce`` and the
experiment engine (``/work/shared/reviews/reliability-4.md``) and classify each result:

* **clear**: a clean one-line error and a non-zero exit, or damage detected and named;
* **ok**: the right behaviour in a case that is not an error;
* **silent**: wrong or surprising behaviour without an error;
* **traceback**: a Python traceback;
* **lost**: a file the user stored is gone (its bytes are nowhere in the store any more);
* **hang**: no answer within the case's time limit.

Most cases run on a stand-in figure ``figtiny`` (12 items, each the condition number of a seeded
20 x 20 matrix, with an optional sleep so that a run can be interrupted) instead of fig5/fig7/fig9:
the engine and the command line are the same, the minutes are not. Cases a01-a16 use the real
figure names (they fail before any work) and r1 compares two real fig7 runs (``--jobs 1`` and
``2``). Run as root, the permission cases drop root's override with ``setpriv`` as the review did.

    python scripts/reliability_rerun.py [--keep DIR] [--only a01,b08,...] [--skip-real]

Prints a Markdown table (case, what ran, what happened, verdict) and the counts.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable

FIGTINY = '''"""A stand-in figure for the reliability rerun: 12 quick, deterministic items."""
import os
import time

import numpy as np

SCALES = {"default": {"xs": list(range(12))}, "paper": {"xs": list(range(24))}}


def configurations(config):
    return [{"figure": "figtiny", "x": x} for x in config["xs"]]


def cost(item):
    return 1.0


def run_one(item, device="cpu"):
    log = os.environ.get("FIGTINY_LOG")
    if log:
        with open(log, "a") as fh:
            fh.write(f"start {item['x']} {os.getpid()}\\n")
    time.sleep(float(os.environ.get("FIGTINY_SECONDS", "0")))
    a = np.random.default_rng(item["x"]).standard_normal((20, 20))
    return [{"x": item["x"], "cond": float(np.linalg.cond(a))}]
'''

CLI = (
    "import sys; from resnet_nb.experiments import engine; engine.FIGURES['figtiny'] = 'figtiny';"
    "from resnet_nb.__main__ import main; sys.exit(main(sys.argv[1:]))"
)


class Box:
    """The working folder of the rerun and its helpers."""

    def __init__(self, base: Path):
        self.base = base
        self.tiny = base / "tiny"
        self.tiny.mkdir(parents=True, exist_ok=True)
        (self.tiny / "figtiny.py").write_text(FIGTINY)
        self.env = dict(
            os.environ,
            PYTHONPATH=os.pathsep.join([str(self.tiny), str(ROOT)]),
            OMP_NUM_THREADS="1",
            PYTHONUNBUFFERED="1",
        )
        self.env.pop("MPLBACKEND", None)

    def path(self, name) -> Path:
        return self.base / name

    def cmd(self, *args, nodac=False):
        prefix = []
        if nodac and os.geteuid() == 0:
            prefix = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"]
        return [*prefix, PY, "-c", CLI, *args]

    def run(self, *args, timeout=400, cwd=None, nodac=False, env=None):
        t0 = time.time()
        try:
            p = subprocess.run(
                self.cmd(*args, nodac=nodac),
                capture_output=True,
                text=True,
                timeout=timeout,
                cwd=cwd or self.base,
                env=dict(self.env, **(env or {})),
            )
            return {"rc": p.returncode, "out": p.stdout, "err": p.stderr, "s": time.time() - t0, "hang": False}
        except subprocess.TimeoutExpired as exc:
            err = exc.stderr.decode() if isinstance(exc.stderr, bytes) else (exc.stderr or "")
            return {"rc": None, "out": "", "err": err, "s": time.time() - t0, "hang": True}

    def popen(self, *args, env=None, cwd=None):
        return subprocess.Popen(
            self.cmd(*args),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cwd or self.base,
            env=dict(self.env, **(env or {})),
            start_new_session=True,
            # a background shell starts its children with SIGINT ignored: restore the default,
            # so that Python turns SIGINT into KeyboardInterrupt as in a terminal
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )

    def store(self, name, seconds="0") -> Path:
        """A finished figtiny store under ``name``; returns its records folder."""
        out = self.path(name)
        r = self.run(
            "reproduce", "figtiny", "--jobs", "1", "--no-progress", "--out", str(out), env={"FIGTINY_SECONDS": seconds}
        )
        assert r["rc"] == 0, r["err"]
        return out / "figtiny" / "default" / "records"


def first_line(text: str) -> str:
    lines = [x.strip() for x in text.strip().splitlines() if x.strip()]
    for x in lines:
        if x.startswith(("error", "usage")) is False and ("error" in x.lower() or "Error" in x):
            return x[:160]
    return (lines[-1] if lines else "")[:160]


def err_verdict(r, fragment, rc=None):
    """An error case: clear when it exits non-zero without a traceback, naming ``fragment``."""
    if r["hang"]:
        return "hang", f"no answer in {r['s']:.0f} s"
    if "Traceback" in r["err"]:
        return "traceback", first_line(r["err"])
    msg = first_line(r["err"])
    if r["rc"] not in (0, None) and fragment.lower() in r["err"].lower() and (rc is None or r["rc"] == rc):
        return "clear", f"rc {r['rc']}: {msg}"
    return "silent", f"rc {r['rc']}: {msg or '(no message)'}"


def contents(folder: Path) -> Counter:
    """The bytes of every regular file under ``folder`` (a multiset)."""
    out = Counter()
    for root, _, files in os.walk(folder):
        for f in files:
            p = Path(root) / f
            if p.is_file() and not p.is_symlink():
                try:
                    out[p.read_bytes()] += 1
                except OSError:
                    out[("unreadable", p.name)] += 1
    return out


def lost(before: Counter, folder: Path) -> int:
    after = contents(folder)
    return sum(1 for b in before if after[b] == 0)


def rows_of(records: Path) -> dict:
    from resnet_nb.shared.store import item_key, iter_records

    return {item_key(b["item"]): b["rows"] for b in iter_records(records)}


def table_of(out: Path, fig="figtiny") -> bytes:
    p = out / fig / "default" / "table.csv"
    return p.read_bytes() if p.exists() else b""


def alive(pid) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def children(pid) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for q in os.listdir("/proc"):
            if q.isdigit():
                try:
                    with open(f"/proc/{q}/stat") as fh:
                        ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
                if ppid == p:
                    out.append(int(q))
                    todo.append(int(q))
    return out


def wait_records(records: Path, n: int, limit=120) -> bool:
    t0 = time.time()
    while time.time() - t0 < limit:
        if records.is_dir() and len(list(records.glob("*.json"))) >= n:
            return True
        time.sleep(0.05)
    return False


# --- section 1: bad input -----------------------------------------------------------------------


def section_a(box: Box, cases):
    argp = {
        "a01": (["reproduce", "fig4"], "invalid choice"),
        "a02": (["reproduce"], "required"),
        "a03": (["reproduce", "fig7", "--scale", "tiny"], "invalid choice"),
        "a04": (["reproduce", "fig7", "--scale", ""], "invalid choice"),
        "a05": (["reproduce", "fig7", "--jobs", "0"], "jobs must be"),
        "a06": (["reproduce", "fig7", "--jobs", "-1"], "jobs must be"),
        "a07": (["reproduce", "fig7", "--jobs", "abc"], "invalid int"),
        "a08": (["reproduce", "fig7", "--jobs", "1.5"], "invalid int"),
        "a09": (["reproduce", "fig7", "--device", "cuda"], "no CUDA device"),
        "a10": (["reproduce", "fig7", "--device", "tpu"], "device must be"),
        "a11": (["reproduce", "fig7", "--device", "cuda:abc"], "cuda"),
        "a12": (["reproduce", "fig7", "--device", "CPU"], "device must be"),
        "a13": (["reproduce", "fig7", "--device", ""], "device must be"),
        "a14": (["frobnicate"], "invalid choice"),
        "a15": (["list", "fig2"], "unrecognized arguments"),
        "a16": (["reproduce", "fig7", "--seed", "3"], "unrecognized arguments"),
    }
    for case, (args, frag) in argp.items():
        if case in cases:
            out = ["--out", str(box.path("bad"))] if args[0] == "reproduce" and len(args) > 1 else []
            r = box.run(*args, *out)
            yield case, "`" + " ".join(args) + "`", *err_verdict(r, frag)
    if "a17" in cases:
        r = box.run("reproduce", "all", "--collect", "--no-progress", "--out", str(box.path("emptyall")))
        yield "a17", "`reproduce all --collect` on an empty store", *err_verdict(r, "nothing collected")
    if "a18" in cases:
        box.store("a18")
        r = box.run("reproduce", "figtiny", "figtiny", "--collect", "--no-progress", "--out", str(box.path("a18")))
        ok = r["rc"] == 0 and r["out"].count("figtiny (default) ->") == 1 and "Traceback" not in r["err"]
        yield (
            "a18",
            "`reproduce figtiny figtiny --collect`",
            "ok" if ok else "silent",
            f"rc {r['rc']}, one summary: {ok}",
        )


def section_b(box: Box, cases):
    bad = box.path("bad")
    bad.mkdir(exist_ok=True)
    (bad / "afile").write_text("x")
    ro = bad / "ro"
    ro.mkdir(exist_ok=True)
    ro.chmod(0o555)
    simple = {
        "b01": ("--out bad/afile (a file)", [str(bad / "afile")], "not a writable folder", {}),
        "b02": ("--out bad/afile/sub", [str(bad / "afile" / "sub")], "not a writable folder", {}),
        "b03": ("--out bad/ro (mode 555, no DAC caps)", [str(ro)], "not a writable folder", {"nodac": True}),
        "b05": ("--out /dev/null", ["/dev/null"], "not a writable folder", {}),
        "b06": ("--out /proc/1/nope", ["/proc/1/nope"], "not a writable folder", {}),
        "b07": ("--out (300-character name)", [str(bad / ("x" * 300))], "not a writable folder", {}),
    }
    for case, (what, out, frag, kw) in simple.items():
        if case in cases:
            r = box.run("reproduce", "figtiny", "--jobs", "1", "--no-progress", "--out", *out, **kw)
            yield case, what, *err_verdict(r, frag)
    if "b04" in cases:
        r = box.run("reproduce", "figtiny", "--collect", "--no-progress", "--out", str(ro))
        yield "b04", "--out bad/ro --collect as plain root", *err_verdict(r, "nothing collected")
    if "b08" in cases:
        (bad / "ofile_inside").mkdir(exist_ok=True)
        (bad / "ofile_inside" / "figtiny").write_text("x")
        r = box.run(
            "reproduce",
            "figtiny",
            "--jobs",
            "1",
            "--no-progress",
            "--out",
            str(bad / "ofile_inside"),
            env={"FIGTINY_LOG": str(bad / "b08.log")},
        )
        v = err_verdict(r, "not a writable folder")
        if v[0] == "clear" and (bad / "b08.log").exists():
            v = ("silent", "refused, but only after computing items")
        yield "b08", "`<out>/figtiny` is a file", *v
    if "b09" in cases:
        rec = bad / "rorec" / "figtiny" / "default" / "records"
        rec.mkdir(parents=True, exist_ok=True)
        rec.chmod(0o555)
        r = box.run(
            "reproduce",
            "figtiny",
            "--jobs",
            "1",
            "--no-progress",
            "--out",
            str(bad / "rorec"),
            nodac=True,
            env={"FIGTINY_LOG": str(bad / "b09.log")},
        )
        rec.chmod(0o755)
        v = err_verdict(r, "not a writable folder")
        if v[0] == "clear" and (bad / "b09.log").exists():
            v = ("silent", "refused, but only after computing items")
        yield "b09", "records folder mode 555 (no DAC caps)", *v
    if "b10" in cases:
        ref = box.store("ref")
        out = bad / "with space" / "ü ñ 图"
        r = box.run("reproduce", "figtiny", "--jobs", "2", "--no-progress", "--out", str(out))
        ok = r["rc"] == 0 and table_of(out) == table_of(ref.parents[2])
        yield (
            "b10",
            "--out with spaces and unicode, --jobs 2",
            "ok" if ok else "silent",
            f"rc {r['rc']}, table identical: {ok}",
        )
    if "b11" in cases:
        r = box.run("reproduce", "figtiny", "--jobs", "99999999999999999999", "--out", str(bad / "b11"))
        yield "b11", "--jobs 99999999999999999999", *err_verdict(r, "jobs must be")
    if "b12" in cases:
        cwd = bad / "cwdtest"
        cwd.mkdir(exist_ok=True)
        r = box.run("reproduce", "figtiny", "--jobs", "1", "--out", "", cwd=cwd)
        v = err_verdict(r, "--out must name a folder")
        if list(cwd.iterdir()):
            v = ("silent", "wrote into the current folder")
        yield "b12", "--out '' in an empty folder", *v


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """A scheduler and two single-threaded workers (``--no-nanny``), started in their own folder."""

    def __init__(self, box: Box, n=2):
        self.port = free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        cwd = box.path("dask")
        cwd.mkdir(exist_ok=True)
        q = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": box.env, "cwd": cwd}
        self.scheduler = subprocess.Popen(
            [
                PY,
                "-m",
                "distributed.cli.dask_scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--no-dashboard",
            ],
            **q,
        )
        self.workers = [
            subprocess.Popen(
                [PY, "-m", "distributed.cli.dask_worker", self.address, "--nthreads", "1", "--no-nanny"], **q
            )
            for _ in range(n)
        ]
        from distributed import Client

        deadline = time.time() + 120
        while True:
            try:
                with Client(self.address, timeout=5) as c:
                    c.wait_for_workers(n, timeout=120)
                    break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(1)

    def stop(self):
        for p in [self.scheduler, *self.workers]:
            if p.poll() is None:
                p.kill()
            p.wait(10)


def section_c(box: Box, cases):
    bad = box.path("bad")
    malformed = {
        "c02": "foo",
        "c03": "tcp://127.0.0.1:notaport",
        "c04": "http://127.0.0.1:8786",
        "c05": "",
    }
    if "c01" in cases:
        r = box.run(
            "reproduce", "figtiny", "--no-progress", "--out", str(bad / "c01"), "--scheduler", "tcp://127.0.0.1:1"
        )
        v = err_verdict(r, "cannot reach the Dask scheduler at tcp://127.0.0.1:1")
        yield "c01", "--scheduler tcp://127.0.0.1:1 (nobody there)", v[0], f"{v[1]} ({r['s']:.0f} s)"
    for case, addr in malformed.items():
        if case in cases:
            out = bad / case
            r = box.run("reproduce", "figtiny", "--no-progress", "--out", str(out), "--scheduler", addr)
            v = err_verdict(r, "scheduler")
            if v[0] == "clear" and out.exists():
                v = ("silent", v[1] + " (but --out was created first)")
            yield case, f"--scheduler {addr!r}", *v
    for case, addr in (("c06", "tcp://127.0.0.1:1"), ("c07", "bogus:::")):
        if case in cases:
            box.store("c67")
            r = box.run(
                "reproduce", "figtiny", "--collect", "--no-progress", "--out", str(box.path("c67")), "--scheduler", addr
            )
            yield case, f"--collect --scheduler {addr} on a finished store", *err_verdict(r, "scheduler")


def section_dask(box: Box, cases):
    """c08 (= k5), k1, k2, k3, k3r, k4 on one local cluster (a new one after each lost scheduler)."""
    if not ({"c08", "k1", "k2", "k3", "k3r", "k4"} & set(cases)):
        return
    ref = box.store("ref")
    reference = rows_of(ref)
    cluster = Cluster(box)
    try:
        if "c08" in cases:
            cwd = box.path("relcwd")
            cwd.mkdir(exist_ok=True)
            r = box.run(
                "reproduce", "figtiny", "--no-progress", "--scheduler", cluster.address, "--out", "relout", cwd=cwd
            )
            mine = rows_of(cwd / "relout" / "figtiny" / "default" / "records")
            prov = (
                json.loads((cwd / "relout" / "figtiny" / "default" / "provenance.json").read_text())
                if r["rc"] == 0
                else {}
            )
            ok = (
                r["rc"] == 0
                and mine == reference
                and prov.get("items") == 12
                and not (box.path("dask") / "relout").exists()
            )
            note = f"rc {r['rc']}, {len(mine)} records in the client's store, provenance items {prov.get('items')}"
            yield "c08", "relative --out with a scheduler whose workers run elsewhere", "ok" if ok else "silent", note
        if "k1" in cases:
            out = box.path("dask9a")
            r = box.run("reproduce", "figtiny", "--no-progress", "--scheduler", cluster.address, "--out", str(out))
            ok = (
                r["rc"] == 0
                and rows_of(out / "figtiny" / "default" / "records") == reference
                and table_of(out) == table_of(ref.parents[2])
            )
            yield (
                "k1",
                "a run on the cluster",
                "ok" if ok else "silent",
                f"rc {r['rc']}, rows and table identical to local: {ok}",
            )
        if "k2" in cases:
            out = box.path("dask9k")
            rec = out / "figtiny" / "default" / "records"
            p = box.popen(
                "reproduce",
                "figtiny",
                "--no-progress",
                "--scheduler",
                cluster.address,
                "--out",
                str(out),
                env={"FIGTINY_SECONDS": "0.5"},
            )
            wait_records(rec, 3)
            cluster.workers[0].kill()
            o, e = p.communicate(timeout=300)
            ok = p.returncode == 0 and rows_of(rec) == reference and "Traceback" not in e
            yield (
                "k2",
                "kill -9 one of two workers after 3 records",
                "ok" if ok else "silent",
                f"rc {p.returncode}, rows identical: {ok}",
            )
            cluster.stop()
            cluster = Cluster(box)
        for case, sig in (("k3", signal.SIGTERM), ("k4", signal.SIGKILL)):
            if case not in cases:
                continue
            out = box.path(f"dask9{case}")
            rec = out / "figtiny" / "default" / "records"
            p = box.popen(
                "reproduce",
                "figtiny",
                "--no-progress",
                "--scheduler",
                cluster.address,
                "--out",
                str(out),
                env={"FIGTINY_SECONDS": "0.7"},
            )
            wait_records(rec, 3)
            cluster.scheduler.send_signal(sig)
            try:
                o, e = p.communicate(timeout=120)
                r = {"rc": p.returncode, "out": o, "err": e, "s": 0, "hang": False}
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                r = {"rc": None, "out": "", "err": "", "s": 120, "hang": True}
            v = err_verdict(r, "lost the Dask scheduler")
            yield case, f"kill -{sig.name[3:]} the scheduler after 3 records", *v
            cluster.stop()
            cluster = Cluster(box)
            if case == "k3" and "k3r" in cases:
                kept = {q.name: q.stat().st_mtime_ns for q in rec.glob("*.json")}
                r = box.run("reproduce", "figtiny", "--no-progress", "--scheduler", cluster.address, "--out", str(out))
                box.path("k3r.err").write_text(r["err"])
                same = all((rec / n).stat().st_mtime_ns == t for n, t in kept.items())
                ok = r["rc"] == 0 and same and rows_of(rec) == reference
                yield (
                    "k3r",
                    "rerun on a new cluster after k3",
                    "ok" if ok else "silent",
                    f"rc {r['rc']}, {len(kept)} kept untouched: {same}, rows identical: {ok}",
                )
    finally:
        cluster.stop()


# --- section 2: interrupt and resume ------------------------------------------------------------


def section_i(box: Box, cases):
    ref = box.store("ref")
    reference = rows_of(ref)
    out = box.path("int9")
    rec = out / "figtiny" / "default" / "records"
    slow = {"FIGTINY_SECONDS": "0.8"}
    if "i1" in cases:
        p = box.popen("reproduce", "figtiny", "--jobs", "1", "--no-progress", "--out", str(out), env=slow)
        wait_records(rec, 3)
        os.killpg(p.pid, signal.SIGINT)
        o, e = p.communicate(timeout=60)
        tmp = list(rec.glob(".tmp-*"))
        ok = p.returncode == 130 and "run the same command to resume" in e and not tmp and "Traceback" not in e
        yield (
            "i1",
            "SIGINT during a --jobs 1 run",
            "clear" if ok else "silent",
            f"rc {p.returncode}, {len(list(rec.glob('*.json')))} records, .tmp left: {len(tmp)}",
        )
    if "i2" in cases:
        p = box.popen("reproduce", "figtiny", "--jobs", "1", "--no-progress", "--out", str(out), env=slow)
        n0 = len(list(rec.glob("*.json")))
        wait_records(rec, n0 + 2)
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate(timeout=60)
        n = len(list(rec.glob("*.json")))
        ok = n >= n0 + 2 and not list(rec.glob(".tmp-*"))
        yield (
            "i2",
            "SIGKILL during the resumed run",
            "ok" if ok else "silent",
            f"{n0} -> {n} records, no .tmp left: {ok}",
        )
    if "i3" in cases:
        p = box.popen("reproduce", "figtiny", "--jobs", "2", "--no-progress", "--out", str(out), env=slow)
        n0 = len(list(rec.glob("*.json")))
        wait_records(rec, n0 + 1)
        kids = children(p.pid)
        os.killpg(p.pid, signal.SIGINT)
        o, e = p.communicate(timeout=60)
        time.sleep(2)
        orphans = [k for k in kids if alive(k)]
        ok = p.returncode == 130 and "resume" in e and not orphans and "Traceback" not in e
        yield (
            "i3",
            "SIGINT to the whole group, --jobs 2",
            "clear" if ok else "silent",
            f"rc {p.returncode}, orphans {len(orphans)}",
        )
    if "i4" in cases:
        p = box.popen("reproduce", "figtiny", "--jobs", "2", "--no-progress", "--out", str(out), env=slow)
        n0 = len(list(rec.glob("*.json")))
        wait_records(rec, n0 + 1)
        os.kill(p.pid, signal.SIGINT)
        o, e = p.communicate(timeout=60)
        ok = p.returncode == 130 and "resume" in e and "Traceback" not in e
        yield (
            "i4",
            "SIGINT to the main process only, --jobs 2",
            "clear" if ok else "silent",
            f"rc {p.returncode}: {first_line(e)}",
        )
    if "i6" in cases:
        orph = box.path("orph9")
        orec = orph / "figtiny" / "default" / "records"
        p = box.popen(
            "reproduce", "figtiny", "--jobs", "2", "--no-progress", "--out", str(orph), env={"FIGTINY_SECONDS": "3"}
        )
        deadline = time.time() + 120
        while time.time() < deadline and len([k for k in children(p.pid) if alive(k)]) < 3:
            time.sleep(0.2)
        time.sleep(2)
        kids = [k for k in children(p.pid) if alive(k)]
        os.kill(p.pid, signal.SIGKILL)
        p.wait(30)  # not communicate(): an orphan would hold the pipes open
        deadline = time.time() + 60  # a worker still importing ends at its first instruction
        while time.time() < deadline and any(alive(k) for k in kids):
            time.sleep(0.2)
        orphans = [k for k in kids if alive(k)]
        for k in orphans:
            os.kill(k, signal.SIGKILL)
        r = box.run("reproduce", "figtiny", "--jobs", "2", "--no-progress", "--out", str(orph))
        ok = not orphans and r["rc"] == 0 and rows_of(orec) == reference
        yield (
            "i6",
            "kill -9 of the main process only, --jobs 2",
            "ok" if ok else "silent",
            f"{len(kids)} child processes, alive 60 s later: {len(orphans)}; "
            f"resume rows identical: {rows_of(orec) == reference}",
        )
    if "i5" in cases:
        kept = {q.name: q.stat().st_mtime_ns for q in rec.glob("*.json")}
        r = box.run("reproduce", "figtiny", "--jobs", "1", "--no-progress", "--out", str(out))
        same = all((rec / n).stat().st_mtime_ns == t for n, t in kept.items())
        ok = r["rc"] == 0 and same and rows_of(rec) == reference and table_of(out) == table_of(ref.parents[2])
        yield (
            "i5",
            "final resume",
            "ok" if ok else "silent",
            f"{len(kept)} earlier records untouched: {same}; rows and table identical: {ok}",
        )


# --- section 3: damaged store -------------------------------------------------------------------


def _rewrite(path: Path, change):
    from resnet_nb.shared.store import record_checksum

    rec = json.loads(path.read_text())
    change(rec["body"])
    rec["checksum"] = record_checksum(rec["body"])
    path.write_text(json.dumps(rec))


def section_d(box: Box, cases):
    sound = box.store("dmg_src")
    reference = rows_of(sound)
    names = sorted(p.name for p in sound.glob("*.json"))

    def fresh(tag):
        out = box.path(f"dmg_{tag}")
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(sound.parents[2], out, symlinks=True)
        return out, out / "figtiny" / "default" / "records"

    def judged(case, what, out, rec, damage, name_of, collect=False, nodac=False, expect_rows=True):
        damage(rec)
        before = contents(rec)
        args = ["reproduce", "figtiny", "--jobs", "1", "--no-progress", "--out", str(out)]
        r = box.run(*args, *(["--collect"] if collect else []), nodac=nodac, timeout=400)
        gone = lost(before, rec)
        if r["hang"]:
            return case, what, "hang", f"no answer in {r['s']:.0f} s"
        if "Traceback" in r["err"]:
            return case, what, "traceback", first_line(r["err"])
        if gone:
            return case, what, "lost", f"{gone} stored file(s) gone"
        if r["rc"] != 0:
            return case, what, "silent", f"rc {r['rc']}: {first_line(r['err'])}"
        named = name_of is None or name_of in r["err"]
        right = not expect_rows or rows_of(rec) == reference
        line = next((x.strip() for x in r["err"].splitlines() if name_of and name_of in x), "")
        if named and right:
            return case, what, "clear" if name_of else "ok", (line or "redone, rows identical")[:160]
        return case, what, "silent", f"named: {named}, rows identical: {right}"

    def cond_edit(rec, new, keep_checksum=True):
        p = rec / names[1]
        if keep_checksum:
            t = p.read_text()
            old = json.loads(t)["body"]["rows"][0]["cond"]
            p.write_text(t.replace(repr(old), repr(new)))
        else:
            _rewrite(p, lambda b: b["rows"][0].update(cond=new))

    plan = {
        "d-a": (
            "truncated to half",
            lambda rec: (rec / names[0]).write_text((rec / names[0]).read_text()[:200]),
            names[0],
        ),
        "d-b": ("a number edited, old checksum kept", lambda rec: cond_edit(rec, 17997.918), names[1]),
        "d-d": ("checksum replaced by zeros", lambda rec: _rewrite_checksum(rec / names[3]), names[3]),
        "d-e": ("a record deleted", lambda rec: (rec / names[4]).unlink(), None),
        "d-h": (
            "format 2 with a valid checksum",
            lambda rec: _rewrite(rec / names[5], lambda b: b.update(format=2)),
            names[5],
        ),
        "d-i": ("zero length", lambda rec: (rec / names[6]).write_text(""), names[6]),
        "d-k": (
            "replaced by the sound record of another item",
            lambda rec: (rec / names[7]).write_bytes((rec / names[8]).read_bytes()),
            names[7],
        ),
        "d-l": ("one byte set to 0xff", lambda rec: _poke(rec / names[9]), names[9]),
        "d-m": ("one digit of rows changed", lambda rec: _digit(rec / names[10]), names[10]),
    }
    for case, (what, damage, name) in plan.items():
        if case in cases:
            out, rec = fresh(case)
            yield judged(case, what, out, rec, damage, name)
    if "d-c" in cases:
        out, rec = fresh("d-c")
        cond_edit(rec, 2.9448358184492176, keep_checksum=False)
        r = box.run("reproduce", "figtiny", "--jobs", "1", "--no-progress", "--out", str(out))
        accepted = "2.9448358184492176" in table_of(out).decode()
        v = "silent" if accepted else "clear"
        yield (
            "d-c",
            "a number edited with the checksum recomputed (a forgery)",
            v,
            f"rc {r['rc']}, forged number in table.csv: {accepted}",
        )
    if "d-f" in cases:
        out, rec = fresh("d-f")

        def strays(rec):
            (rec / "stray.json").write_text("{}")
            (rec / "notes.txt").write_text("mine")
            (rec / "0000000000copyofrec.json").write_bytes((rec / names[2]).read_bytes())
            (rec / ".tmp-leftover.json").write_bytes((rec / names[2]).read_bytes())

        c = judged(
            "d-f",
            "stray.json, notes.txt, a copy of a record, a .tmp leftover",
            out,
            rec,
            strays,
            "0000000000copyofrec.json",
        )
        prov = json.loads((out / "figtiny" / "default" / "provenance.json").read_text())
        if c[2] == "clear" and prov["items"] != 12:
            c = (*c[:2], "silent", f"provenance items {prov['items']}")
        yield (*c[:3], c[3] + f"; provenance items {prov['items']}")
    if "d-collect" in cases:
        out, rec = fresh("d-collect")
        (rec / names[0]).write_text("{")
        _rewrite(rec / names[5], lambda b: b.update(format=2))
        (rec / "notes.txt").write_text("mine")
        snap = {p: p.read_bytes() for p in rec.rglob("*") if p.is_file()}
        r = box.run("reproduce", "figtiny", "--collect", "--no-progress", "--out", str(out))
        after = {p: p.read_bytes() for p in rec.rglob("*") if p.is_file()}
        unchanged = snap == after
        v = (
            "ok"
            if unchanged and names[5] in r["err"] and "Traceback" not in r["err"]
            else ("lost" if not unchanged else "silent")
        )
        yield (
            "d-collect",
            "--collect on a damaged store",
            v,
            f"store unchanged: {unchanged}, damaged named: {names[5] in r['err']}, rc {r['rc']}",
        )
    if "d01" in cases:
        out, rec = fresh("d01")
        yield judged(
            "d01",
            "a record mode 000 (no DAC caps)",
            out,
            rec,
            lambda rec: (rec / names[1]).chmod(0),
            names[1],
            nodac=True,
            expect_rows=False,
        )
        for p in (rec / "quarantine").glob("*"):
            p.chmod(0o644)
    if "d02" in cases:
        out, rec = fresh("d02")
        (rec / names[1]).chmod(0)
        r = box.run("reproduce", "figtiny", "--collect", "--no-progress", "--out", str(out))
        ok = r["rc"] == 0 and table_of(out) == table_of(sound.parents[2])
        yield "d02", "the same, plain root, --collect", "ok" if ok else "silent", f"rc {r['rc']}, read normally: {ok}"
    if "d03" in cases:
        out, rec = fresh("d03")

        def as_dir(rec):
            (rec / names[1]).unlink()
            (rec / names[1]).mkdir()

        yield judged("d03", "a folder where a record should be", out, rec, as_dir, names[1])
    if "d04" in cases:
        out, rec = fresh("d04")

        def dangling(rec):
            (rec / names[1]).unlink()
            (rec / names[1]).symlink_to(rec / "nowhere.json")

        yield judged("d04", "a dangling symlink in place of a record", out, rec, dangling, None)
    if "d05" in cases:
        out, rec = fresh("d05")

        def fifo(rec):
            (rec / names[1]).unlink()
            os.mkfifo(rec / names[1])

        yield judged("d05", "a FIFO where a record should be", out, rec, fifo, names[1])
    if "d06" in cases:
        out, rec = fresh("d06")

        def older(body):
            body["provenance"]["git"] = {"commit": "0123456789abcdef0123456789abcdef01234567", "package_modified": True}
            body["provenance"]["versions"]["torch"] = "1.0.0"

        c = judged(
            "d06",
            "2 records of another commit and torch 1.0.0",
            out,
            rec,
            lambda rec: [_rewrite(rec / n, older) for n in names[:2]],
            names[0],
        )
        prov = json.loads((out / "figtiny" / "default" / "provenance.json").read_text())
        listed = set(prov.get("outdated_records", [])) == set(names[:2])
        yield (*c[:3], c[3] + f"; provenance lists them as outdated: {listed}")


def _rewrite_checksum(path: Path):
    rec = json.loads(path.read_text())
    rec["checksum"] = "0" * 64
    path.write_text(json.dumps(rec))


def _poke(path: Path):
    raw = bytearray(path.read_bytes())
    raw[30] = 0xFF
    path.write_bytes(bytes(raw))


def _digit(path: Path):
    t = path.read_text()
    i = t.index('"cond":') + 8
    d = t[i]
    path.write_text(t[:i] + ("1" if d != "1" else "2") + t[i + 1 :])


# --- section 4: two runs at once; section 6: determinism ------------------------------------------


def section_x(box: Box, cases):
    ref = box.store("ref")
    reference = rows_of(ref)
    for case in ("x1", "x2", "x3"):
        if case not in cases:
            continue
        out = box.path(f"conc_{case}")
        log = box.path(f"conc_{case}.log")
        env = {"FIGTINY_SECONDS": "0.3", "FIGTINY_LOG": str(log)}
        ps = [
            box.popen("reproduce", "figtiny", "--jobs", "1", "--no-progress", "--out", str(out), env=env)
            for _ in range(2)
        ]
        res = [p.communicate(timeout=300) for p in ps]
        starts = Counter(line.split()[1] for line in log.read_text().splitlines())
        twice = sum(1 for n in starts.values() if n > 1)
        rec = out / "figtiny" / "default" / "records"
        ok = (
            all(p.returncode == 0 for p in ps)
            and rows_of(rec) == reference
            and twice == 0
            and not any("Traceback" in e for _, e in res)
        )
        yield (
            case,
            "two runs on one --out at once",
            "ok" if ok else "silent",
            f"rc {[p.returncode for p in ps]}, items computed twice: {twice}, "
            f"rows identical: {rows_of(rec) == reference}",
        )
    if "x4" in cases:
        folder = box.path("stress")
        folder.mkdir(exist_ok=True)
        code = (
            "import sys, pandas as pd; from resnet_nb.experiments import engine\n"
            "t = pd.DataFrame({'x': range(500), 'item_key': ['k'] * 500}); bad = 0\n"
            "for _ in range(300):\n"
            "    try: engine.write_summary(sys.argv[1], 'f', 'default', {}, t, 'cpu', 0.0, sys.argv[1])\n"
            "    except Exception as exc: bad += 1\n"
            "print(bad)\n"
        )
        ps = [
            subprocess.Popen(
                [PY, "-c", code, str(folder)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=box.env
            )
            for _ in range(2)
        ]
        res = [p.communicate(timeout=600) for p in ps]
        bad = sum(int(o.strip() or 0) for o, _ in res)
        tb = any("Traceback" in e for _, e in res)
        yield (
            "x4",
            "two processes call write_summary 300 times each",
            "traceback" if tb or bad else "ok",
            f"{bad} of 600 calls failed",
        )
    if "x5" in cases:
        folder = box.path("stress5")
        folder.mkdir(exist_ok=True)
        code = (
            "import sys, pandas as pd; from resnet_nb.experiments import engine\n"
            "t = pd.DataFrame({'x': range(2000), 'item_key': ['k'] * 2000})\n"
            "for _ in range(200): engine.write_summary(sys.argv[1], 'f', 'default', {}, t, 'cpu', 0.0, sys.argv[1])\n"
        )
        w = subprocess.Popen([PY, "-c", code, str(folder)], env=box.env, stderr=subprocess.PIPE, text=True)
        reads = partial = 0
        while w.poll() is None:
            p = folder / "table.csv"
            if p.exists():
                reads += 1
                if p.read_text().count("\n") != 2001:
                    partial += 1
        yield (
            "x5",
            "a reader of table.csv while a writer loops",
            "ok" if reads and not partial else "silent",
            f"{partial} of {reads} reads empty or partial",
        )


def section_r(box: Box, cases, real: bool):
    ref = box.store("ref")
    if "r1" in cases:
        if real:
            a, b = box.path("t7a"), box.path("t7b")
            ra = box.run("reproduce", "fig7", "--jobs", "1", "--no-progress", "--out", str(a), timeout=900)
            rb = box.run("reproduce", "fig7", "--jobs", "2", "--no-progress", "--out", str(b / "ü ñ"), timeout=900)
            same = ra["rc"] == 0 and rb["rc"] == 0 and table_of(a, "fig7") == table_of(b / "ü ñ", "fig7")
            yield (
                "r1",
                "fig7 (real): --jobs 1 vs --jobs 2 into a unicode path",
                "ok" if same else "silent",
                f"rc {ra['rc']}/{rb['rc']}, table.csv byte-identical: {same}",
            )
        else:
            yield "r1", "fig7 (real) --jobs 1 vs 2", "skipped", "--skip-real"
    pairs = {
        "r2": ("int9", "an interrupted (4x) and resumed run vs an uninterrupted one"),
        "r3": ("dask9a", "a Dask run vs a local one"),
        "r4": ("conc_x1", "one of two concurrent runs vs a single run"),
    }
    for case, (name, what) in pairs.items():
        if case in cases:
            other = box.path(name)
            if not table_of(other):
                yield case, what, "skipped", f"{name} was not run"
                continue
            same = table_of(other) == table_of(ref.parents[2])
            yield case, what, "ok" if same else "silent", f"table.csv byte-identical: {same}"


ORDER = (
    [f"a{i:02d}" for i in range(1, 19)]
    + [f"b{i:02d}" for i in range(1, 13)]
    + [f"c{i:02d}" for i in range(1, 8)]
    + ["c08", "i1", "i2", "i3", "i4", "i6", "i5"]
    + ["d-a", "d-b", "d-c", "d-d", "d-e", "d-f", "d-h", "d-i", "d-k", "d-l", "d-m", "d-collect"]
    + [f"d0{i}" for i in range(1, 7)]
    + ["x1", "x2", "x3", "x4", "x5", "k1", "k2", "k3", "k3r", "k4", "r1", "r2", "r3", "r4"]
)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keep", default=None, help="work in this folder and keep it (default: a temporary one)")
    ap.add_argument("--only", default=None, help="comma-separated case names")
    ap.add_argument("--skip-real", action="store_true", help="skip r1 (two real fig7 runs)")
    args = ap.parse_args(argv)
    cases = ORDER if not args.only else [c for c in args.only.split(",") if c]
    unknown = sorted(set(cases) - set(ORDER))
    if unknown:
        ap.error(f"unknown cases {unknown}; cases are {', '.join(ORDER)}")
    base = Path(args.keep or tempfile.mkdtemp(prefix="reliability-"))
    base.mkdir(parents=True, exist_ok=True)
    box = Box(base)
    sys.path[:0] = [str(box.tiny), str(ROOT)]
    results = {}
    sections = [
        section_a(box, cases),
        section_b(box, cases),
        section_c(box, cases),
        section_i(box, cases),
        section_d(box, cases),
        section_x(box, cases),
        section_dask(box, cases),
        section_r(box, cases, not args.skip_real),
    ]
    for gen in sections:
        try:
            for case, what, verdict, note in gen:
                results[case] = (what, verdict, note)
                print(f"{case:10s} {verdict:9s} {note}", file=sys.stderr, flush=True)
        except Exception as exc:  # a broken harness step: say so, keep the other sections
            print(f"harness error in {gen.__name__}: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
    print("| # | case | result | verdict |\n|---|---|---|---|")
    for case in ORDER:
        if case in results:
            what, verdict, note = results[case]
            print(f"| {case} | {what} | {note.replace('|', '/')} | {verdict} |")
    print("\n| verdict | count | cases |\n|---|---|---|")
    for v in ("clear", "ok", "silent", "traceback", "lost", "hang", "skipped"):
        names = [c for c in ORDER if c in results and results[c][1] == v]
        if names or v != "skipped":
            print(f"| {v} | {len(names)} | {', '.join(names)} |")
    print(f"\n{len(results)} cases; work folder {base}{'' if args.keep else ' (temporary, removed)'}")
    if not args.keep:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
