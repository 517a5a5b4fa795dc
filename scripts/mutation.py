"""Mutation testing of the modules that implement the papers' mathematics (issue 11, part 3).

    python scripts/mutation.py                 # every module, in order, resumable
    python scripts/mutation.py losses train    # some modules
    python scripts/mutation.py --report-only   # rewrite the report from mutmut's stored results
    python scripts/mutation.py --generate hardt_ma_relu   # only rebuild that module's mutated copy

The tester is mutmut 3 (configured in ``setup.cfg``: which files are mutated, which tests form
the suite). This script adds what mutmut does not do:

* EXCLUSION BY FUNCTION NAME. Plotting, widget and display functions are not mathematics; their
  mutants are never run and are counted as ``excluded`` (rule: ``EXCLUDED_NAME``).
* RESUMABLE, MODULE BY MODULE. A module's mutants that already have a result are not run again
  (mutmut keeps them under ``mutants/``, and invalidates the results of a function whose source
  changed); the report is rewritten after every module.
* EQUIVALENT MUTANTS, each with a one-line reason, are listed in ``results/mutation/
  equivalent/<module>.json`` ({mutant name: reason}) and leave the denominator of the score.
  One file per module, so that modules can be worked on side by side.
* PROVENANCE: the git commit and the blob hash of every module measured, and wall times.

Score = killed / (total - excluded - equivalent), where total counts every mutant of the module;
survived, timeout, "no tests" and not-yet-run mutants all count against it.
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import re
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results" / "mutation"
BIN = Path(sys.executable).parent
SEP = "ǁ"  # mutmut's separator in mangled method names

# Module -> files it is made of (a module split in two keeps one line of the report).
MODULES = {
    "losses": ["resnet_nb/core/losses.py"],
    "train": ["resnet_nb/core/train.py"],
    "hessians": ["resnet_nb/core/hessians.py"],
    "theorem1": ["resnet_nb/li/theorem1.py", "resnet_nb/li/dynamics.py"],
    "hardt_ma_linear": ["resnet_nb/hardt_ma/linear.py"],
    "hardt_ma_relu": ["resnet_nb/hardt_ma/relu.py"],
}

# Functions whose mutants are not run: pictures, widgets, animations, HTML and text rendering.
# A function is excluded when its name matches this pattern; the report lists every one.
# "table" and "figure" are not in it: drift_table, depth_table, convention_table, figure4_*_check
# and figure5_break_depth compute the numbers of tables and figures (mathematics, with claims).
EXCLUDED_NAME = re.compile(
    r"(plot|widget|interact|animat|view|draw|_repr_|html|display|show|markdown|"
    r"progress|explorer|histogram)", re.IGNORECASE)

STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped",
          35: "suspicious", 36: "timeout", 24: "timeout", -24: "timeout", 152: "timeout",
          255: "timeout", 37: "caught by type check", -11: "segfault", -9: "segfault",
          None: "not run"}


def git(*args) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def dotted(path: str) -> str:
    return path[:-3].replace("/", ".")


def functions(path: str) -> list[str]:
    """Mangled names (mutmut's) of the top-level functions and methods of a source file."""
    tree = ast.parse((ROOT / path).read_text())
    mod, out = dotted(path), []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append(f"{mod}.x_{node.name}")
        elif isinstance(node, ast.ClassDef):
            out += [f"{mod}.x{SEP}{node.name}{SEP}{f.name}" for f in node.body
                    if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return out


def short(mangled: str) -> str:
    return mangled.rpartition(".")[2].removeprefix("x_").replace(SEP, ".").strip(".")


def excluded(mangled: str) -> bool:
    return bool(EXCLUDED_NAME.search(short(mangled)))


def load_meta(path: str) -> dict:
    meta = ROOT / "mutants" / (path + ".meta")
    if not meta.exists():
        return {}
    return json.loads(meta.read_text()).get("exit_code_by_key", {})


TEXT_CALLS = {"Check", "all_of", "claim", "warn", "print", "ValueError", "TypeError", "RuntimeError"}


def _operators(node) -> list[str]:
    """The operator(s) of a BinOp/UnaryOp/BoolOp/AugAssign (``op``) or a Compare (``ops``)."""
    ops = node.op if hasattr(node, "op") else node.ops
    return [ast.dump(o) for o in (ops if isinstance(ops, list) else [ops])]


def _text_only_reason(key: str, path: str) -> str | None:
    """A reason if the mutant changes nothing but the text of a message or label, else None.

    The original and the mutated function are parsed; they must be identical apart from one
    string constant, and that constant must sit inside a ``raise`` statement, a docstring, or a
    call that renders text for the reader (``ledger.Check``/``all_of``/``claim`` labels and
    criteria, ``warnings.warn``, ``print``). Any other string (an einsum subscript, an
    activation's name, a dictionary key) is not text and is left to the reader.
    """
    import textwrap

    import libcst as cst
    from mutmut.mutation.diff_apply import (read_functions_from_index, read_mutants_module,
                                            read_mutant_function, read_original_function)
    try:
        funcs = read_functions_from_index(key, path)
        if funcs is None:
            module = read_mutants_module(path)
            funcs = (read_original_function(module, key), read_mutant_function(module, key))
        a, b = (ast.parse(textwrap.dedent(cst.Module([f]).code)) for f in funcs)
    except Exception:  # noqa: BLE001 - a mutant we cannot read is simply not classified
        return None
    def without_messages(tree):
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                node.exc.args, node.exc.keywords = [], []
        return ast.dump(tree)

    if ast.dump(a) != ast.dump(b) and without_messages(a) == without_messages(b):
        return "changes only the message of a raised exception"
    a = ast.parse(textwrap.dedent(cst.Module([funcs[0]]).code))
    b = ast.parse(textwrap.dedent(cst.Module([funcs[1]]).code))
    parents = {}
    for node in ast.walk(a):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    na, nb = list(ast.walk(a)), list(ast.walk(b))
    if len(na) != len(nb):
        return None
    changed = []
    for x, y in zip(na, nb):
        if type(x) is not type(y):
            return None
        if isinstance(x, ast.Constant):
            if x.value != y.value:
                if not (isinstance(x.value, str) and isinstance(y.value, str)):
                    return None
                changed.append(x)
        elif isinstance(x, ast.Name) and x.id != y.id:
            return None
        elif isinstance(x, ast.Attribute) and x.attr != y.attr:
            return None
        elif isinstance(x, (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.AugAssign)):
            if _operators(x) != _operators(y):
                return None
        elif isinstance(x, ast.keyword) and x.arg != y.arg:
            return None
    if len(changed) != 1:
        return None
    node = changed[0]
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.Raise):
            return "changes only the text of an error message"
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            return "changes only a docstring"
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name in TEXT_CALLS:
                return f"changes only the text of a label shown to the reader ({name}(...))"
    return None


# mutmut reads `only_mutate` from setup.cfg; to regenerate only the module under test (the others
# change while the book is written, and regenerating theorem1's 3,600 mutants costs minutes) the
# run restricts it (environment variable MUTATION_ONLY) before mutmut reads its configuration.
def _mutmut_restricted(args: list[str]) -> None:
    import mutmut.configuration as c

    load = c._load_config

    def restricted():
        cfg = load()
        if os.environ.get("MUTATION_ONLY"):
            cfg.only_mutate = json.loads(os.environ["MUTATION_ONLY"])
        return cfg

    c._load_config = restricted
    sys.argv = ["mutmut", "run", *args]
    from mutmut.__main__ import cli

    cli()


GENERATE_DRIVER = """
import json, os, sys
from pathlib import Path
import mutmut.__main__ as m
from mutmut.configuration import config
paths = json.loads(sys.argv[1])
m.set_mutant_under_test("mutant_generation")
for p in paths:
    r = m.create_file_mutants(Path(p))
    if r.error:
        raise r.error
    print("generated", p, "changed functions:", sorted(r.changed_functions or []))
"""


def generate(name: str) -> None:
    """Write the mutated copy of one module under ``mutants/`` without running anything, keeping
    the stored result of every mutant whose function did not change (mutmut's own rule). After a
    run of another module, or in a second working copy that was given this ``mutants/`` folder,
    this is what ``mutmut show`` and ``--verify-kills`` need; seconds instead of a run."""
    paths = [p for p in MODULES[name] if (ROOT / p).exists()]
    for p in paths:  # a plain copy has the source's mtime and would pass for up to date
        m = ROOT / "mutants" / p
        if m.exists() and "mutmut" not in m.read_text():
            m.unlink()
    subprocess.run([sys.executable, "-c", GENERATE_DRIVER, json.dumps(paths)], cwd=ROOT,
                   check=True)


def mutmut_run(names: list[str], paths: list[str], log) -> int:
    for p in paths:  # a plain copy left by a run of another module would pass for up to date
        m = ROOT / "mutants" / p
        if m.exists() and "mutmut" not in m.read_text():
            m.unlink()
    cmd = [sys.executable, str(Path(__file__).resolve()), "--mutmut-run", "--max-children",
           os.environ.get("MUTATION_JOBS", "2"), *names]
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               MUTATION_ONLY=json.dumps(paths))
    return subprocess.run(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT).returncode


def _forget(paths: list[str], which) -> int:
    """Clear the stored result of every mutant with ``which(key, code)`` true, so that the next
    run tries it again; return how many were cleared."""
    n = 0
    for p in paths:
        meta = ROOT / "mutants" / (p + ".meta")
        if not meta.exists():
            continue
        data = json.loads(meta.read_text())
        for key, code in data["exit_code_by_key"].items():
            if code is not None and which(key, code):
                data["exit_code_by_key"][key] = None
                n += 1
        meta.write_text(json.dumps(data, indent=4))
    return n


def forget_survivors(paths: list[str]) -> int:
    """Clear the result of every mutant not killed, so that the next run tries it again (after
    tests were added to kill survivors)."""
    return _forget(paths, lambda key, code: STATUS.get(code) != "killed")


KILLS_DIR = OUT / "killed_by_new_tests"  # <module>.json: {mutant: test file}
EQUIV_DIR = OUT / "equivalent"  # <module>.json: {mutant: reason}


def _read_json_dir(folder: Path) -> dict:
    out = {}
    for f in sorted(folder.glob("*.json")):
        out.update(json.loads(f.read_text()))
    return out


@contextlib.contextmanager
def _locked():
    """One writer at a time for the shared report and mutmut's meta files."""
    import fcntl

    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / ".lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
KILL_DRIVER = """
import json, os, sys
sys.path.insert(0, os.getcwd())
import pytest
names, tests = json.loads(sys.argv[1]), json.loads(sys.argv[2])
out = {}
for name in ["fail"] + names:
    os.environ["MUTANT_UNDER_TEST"] = name
    rc = int(pytest.main(["-x", "-q", "--rootdir=.", "-p", "no:cacheprovider", "-p", "no:xdist",
                          "-W", "ignore", *tests]))
    out[name] = rc
import resnet_nb
assert resnet_nb.__file__.startswith(os.getcwd()), resnet_nb.__file__
print("KILLS" + json.dumps(out))
"""


def verify_kills(name: str, log) -> int:
    """Run only the module's kill tests (tests/test_kill_<module>[_*].py) against each mutant not killed, in
    mutmut's copy (``MUTANT_UNDER_TEST`` selects the mutant, as in mutmut's own runs). A mutant
    these tests reject is recorded as killed, and listed in ``killed_by_new_tests/<module>.json`` with
    the test file, so that the report says which kills came from this shortcut. The driver
    first checks that the mutmut copy is the one imported and that the forced failure fails."""
    # The module's kill tests: tests/test_kill_<module>.py and tests/test_kill_<module>_*.py (one
    # file per person when several work on one module's survivors); MUTATION_KILL_FILE picks one.
    if os.environ.get("MUTATION_KILL_FILE"):
        tests = [os.environ["MUTATION_KILL_FILE"]]
    else:
        tests = [str(f.relative_to(ROOT)) for f in sorted((ROOT / "tests").glob(f"test_kill_{name}*.py"))
                 if f.stem == f"test_kill_{name}" or f.stem.startswith(f"test_kill_{name}_")]
    tests = [t for t in tests if (ROOT / t).exists()]
    if not tests:
        return 0
    test = " ".join(tests)
    (ROOT / "mutants" / "tests").mkdir(parents=True, exist_ok=True)
    for t in tests + [str(f.relative_to(ROOT)) for f in (ROOT / "tests").glob("*.py")
                      if f.name in ("helpers.py", "conftest.py")]:  # what the kill files import
        (ROOT / "mutants" / t).write_text((ROOT / t).read_text())
    paths = [p for p in MODULES[name] if (ROOT / p).exists()]
    todo = [k for p in paths for k, c in load_meta(p).items()
            if c is not None and STATUS.get(c) != "killed" and not excluded(k.partition("__mutmut_")[0])]
    only = os.environ.get("MUTATION_KILL_ONLY")  # a regex: try only the survivors it matches
    if only:
        todo = [k for k in todo if re.search(only, k)]
    if not todo:
        return 0
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    r = subprocess.run([sys.executable, "-c", KILL_DRIVER, json.dumps(todo), json.dumps(tests)],
                       cwd=ROOT / "mutants", env=env, capture_output=True, text=True)
    log.write(r.stdout[-20000:] + r.stderr[-5000:])
    line = [x for x in r.stdout.splitlines() if x.startswith("KILLS")]
    if not line:
        raise RuntimeError(f"kill driver failed: {r.stderr[-2000:]}")
    rc = json.loads(line[-1][5:])
    if rc.pop("fail") == 0:
        raise RuntimeError("the forced failure passed: the mutants are not active")
    killed = {k for k, v in rc.items() if v == 1}
    with _locked():
        kills = KILLS_DIR / f"{name}.json"
        KILLS_DIR.mkdir(parents=True, exist_ok=True)
        record = json.loads(kills.read_text()) if kills.exists() else {}
        for p in paths:
            meta = ROOT / "mutants" / (p + ".meta")
            data = json.loads(meta.read_text())
            for k in killed & set(data["exit_code_by_key"]):
                data["exit_code_by_key"][k] = 1
                record[k] = test
            meta.write_text(json.dumps(data, indent=4))
        kills.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return len(killed)


def forget_new_test_kills(name: str, paths: list[str]) -> int:
    """Clear the result of every mutant that ``--verify-kills`` recorded as killed (only the kill
    files were run against it), so that the next run confirms it with the whole suite."""
    kills_file = KILLS_DIR / f"{name}.json"
    kills = json.loads(kills_file.read_text()) if kills_file.exists() else {}
    return _forget(paths, lambda key, code: key in kills)


def run_module(name: str, log, retry: bool = False, confirm: bool = False) -> float:
    """Run the pending, non-excluded mutants of one module; return the wall time in seconds.

    mutmut maps tests to functions once per run of the whole suite and afterwards only adds new
    tests, not new or changed functions; the map is therefore rebuilt for every module (a few
    minutes). Functions with a mutant still without a result are named by pattern, so a function
    whose mutants were all run is not run again.
    """
    t0 = time.time()
    paths = [p for p in MODULES[name] if (ROOT / p).exists()]
    wanted = [f for p in paths for f in functions(p) if not excluded(f)]
    if confirm:
        print(f"[{name}] {forget_new_test_kills(name, paths)} kills by --verify-kills to confirm", flush=True)
    if retry:
        print(f"[{name}] {forget_survivors(paths)} survivors to try again", flush=True)
    known = {}
    for p in paths:
        for key, code in load_meta(p).items():
            fn = key.partition("__mutmut_")[0]
            known.setdefault(fn, []).append(code)
    todo = [f for f in wanted if f not in known or any(c is None for c in known[f])]
    if not todo:
        print(f"[{name}] nothing left to run", flush=True)
        return 0.0
    print(f"[{name}] {len(todo)} of {len(wanted)} functions to run", flush=True)
    (ROOT / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
    mutmut_run([f"{f}__mutmut_*" for f in todo], paths, log)
    return time.time() - t0


def summarise(name: str, equivalent: dict, wall: dict) -> dict:
    paths = [p for p in MODULES[name] if (ROOT / p).exists()]
    counts = {k: 0 for k in ("total", "killed", "survived", "timeout", "no tests", "not run",
                             "other", "excluded", "equivalent")}
    survivors, equiv, excl_fns = [], [], set()
    by_rule = {}
    for p in paths:
        for key, code in sorted(load_meta(p).items()):
            fn = key.partition("__mutmut_")[0]
            counts["total"] += 1
            if excluded(fn):
                counts["excluded"] += 1
                excl_fns.add(short(fn))
                continue
            status = STATUS.get(code, "other")
            reason = equivalent.get(key)
            if reason is None and status in ("survived", "no tests"):
                reason = _text_only_reason(key, p)
                if reason:
                    reason += " (classified by rule)"
                    by_rule[key] = reason
            if reason and status != "killed":
                counts["equivalent"] += 1
                equiv.append({"mutant": key, "reason": reason})
                continue
            counts[status if status in counts else "other"] += 1
            if status not in ("killed", "not run"):
                survivors.append({"mutant": key, "status": status})
    # mutmut keeps a module's mutated copy only until another module is run (it then writes a
    # plain copy), after which the rule can no longer read these mutants: keep its verdicts.
    if by_rule:
        f = EQUIV_DIR / f"{name}.json"
        EQUIV_DIR.mkdir(parents=True, exist_ok=True)
        known = json.loads(f.read_text()) if f.exists() else {}
        known.update({k: v for k, v in by_rule.items() if k not in known})
        f.write_text(json.dumps(known, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    generated = counts.pop("total")
    counts["total"] = generated - counts["excluded"]  # the mutants in scope
    denom = counts["total"] - counts["equivalent"]
    files = [{"path": p, "commit": git("log", "-1", "--format=%H", "--", p),
              "blob": git("hash-object", p),
              "matches_commit": git("status", "--porcelain", "--", p) == ""} for p in paths]
    new = _read_json_dir(KILLS_DIR)
    counts["killed by new tests"] = sum(1 for k in new if any(k.startswith(dotted(p) + ".")
                                                               for p in paths))
    return {"module": name, "commit": files[0]["commit"] if files else "", "files": files,
            "generated": generated, **counts,
            "score": counts["killed"] / denom if denom and counts["not run"] < denom else None,
            "wall_s": round(wall.get(name, 0.0), 1), "excluded_functions": sorted(excl_fns),
            "equivalent_mutants": equiv, "surviving_mutants": survivors}


def write_report(names: list[str], wall: dict) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    equivalent = _read_json_dir(EQUIV_DIR)
    old = {}
    if (OUT / "report.json").exists():
        old = {m["module"]: m for m in json.loads((OUT / "report.json").read_text())["modules"]}
    modules = []
    for name in MODULES:
        if name in names or name not in old:
            prev = old.get(name, {}).get("wall_s", 0.0)
            m = summarise(name, equivalent, {name: wall.get(name, 0.0) + prev})
            if m["total"] == 0 or m["not run"] == m["total"]:
                m["note"] = "not reached yet: no mutant of this module has been run"
        else:
            m = old[name]
        modules.append(m)
    report = {"tool": "mutmut " + subprocess.run([str(BIN / "mutmut"), "--version"],
                                                  capture_output=True, text=True
                                                  ).stdout.strip().split()[-1],
              "written": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "head": git("rev-parse", "HEAD"), "excluded_name_rule": EXCLUDED_NAME.pattern,
              "target": 0.9, "seconds": round(sum(m["wall_s"] for m in modules), 1),
              "modules": modules}
    (OUT / "report.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    (OUT / "report.md").write_text(markdown(report))


def markdown(report: dict) -> str:
    lines = ["# Mutation testing report", "",
             f"Wall time of the runs recorded here: {report['seconds'] / 60:.0f} minutes.", "",
             f"Tool: {report['tool']}; written {report['written']} at commit "
             f"`{report['head'][:10]}`. Total = mutants generated less those excluded by name; "
             "score = killed / (total - equivalent); "
             f"target {report['target']:.0%} per module. Survivors, timeouts, mutants no test "
             "reaches and mutants not yet run all count against the score.", "",
             "| module | generated | excluded | total | equivalent | killed | survived | timeout "
             "| no tests | not run | score | wall (s) |", "|" + " --- |" * 12]
    for m in report["modules"]:
        score = "–" if m["score"] is None else f"{m['score']:.1%}"
        lines.append(f"| {m['module']} | {m['generated']} | {m['excluded']} | {m['total']} | "
                     f"{m['equivalent']} | "
                     f"{m['killed']} | {m['survived']} | {m['timeout']} | {m['no tests']} | "
                     f"{m['not run']} | {score} | {m['wall_s']} |")
    lines += ["", "## Modules measured (git commit of the file, and whether the measured file "
              "was that commit's)", ""]
    for m in report["modules"]:
        for f in m["files"]:
            lines.append(f"- {m['module']}: `{f['path']}` commit `{f['commit'][:10]}` blob "
                         f"`{f['blob'][:10]}`" + ("" if f["matches_commit"] else
                                                   " (working copy differed from the commit)"))
    lines.append("\nKilled by the tests written for it (`tests/test_kill_<module>.py`, run against each "
                 "surviving mutant by `--verify-kills`, see `killed_by_new_tests/<module>.json`): " + ", ".join(
                     f"{m['module']} {m.get('killed by new tests', 0)}" for m in report["modules"]) + ".")
    for m in report["modules"]:
        if m.get("note"):
            lines.append(f"\n{m['module']}: {m['note']}.")
        if m["excluded_functions"]:
            lines.append(f"\n**{m['module']}**, functions excluded by name: "
                         + ", ".join(f"`{f}`" for f in m["excluded_functions"]))
        if m["equivalent_mutants"]:
            lines.append(f"\n**{m['module']}**, equivalent mutants:\n")
            lines += [f"- `{e['mutant'].rpartition('.')[2]}`: {e['reason']}"
                      for e in m["equivalent_mutants"]]
        if m["surviving_mutants"]:
            lines.append(f"\n**{m['module']}**, not killed ({len(m['surviving_mutants'])}):\n")
            lines += [f"- `{s['mutant'].rpartition('.')[2]}` ({s['status']})"
                      for s in m["surviving_mutants"]]
    return "\n".join(lines) + "\n"


def main() -> None:
    if sys.argv[1:2] == ["--mutmut-run"]:
        if (ROOT / "mutants" / "STOP").exists():  # let a running chain end after its module
            print("mutants/STOP exists: not starting mutmut", flush=True)
            return
        _mutmut_restricted(sys.argv[2:])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("modules", nargs="*", help=f"subset of {list(MODULES)}")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--verify-kills", action="store_true",
                    help="only run tests/test_kill_<module>.py against the mutants not killed")
    ap.add_argument("--confirm-kills", action="store_true",
                    help="run the mutants killed by --verify-kills again with the whole suite")
    ap.add_argument("--retry-survivors", action="store_true",
                    help="run the mutants not killed again (after adding tests)")
    ap.add_argument("--generate", action="store_true",
                    help="only write the module's mutated copy under mutants/ (keeps results)")
    args = ap.parse_args()
    names = args.modules or list(MODULES)
    unknown = set(names) - set(MODULES)
    if unknown:
        ap.error(f"unknown modules {sorted(unknown)}")
    os.chdir(ROOT)
    (ROOT / "mutants").mkdir(exist_ok=True)
    OUT.mkdir(parents=True, exist_ok=True)
    wall = {}
    with open(ROOT / "mutants" / "mutation.log", "a") as log:
        for name in names:
            if args.generate:
                generate(name)
                continue
            if args.verify_kills:
                t0 = time.time()
                print(f"[{name}] {verify_kills(name, log)} more mutants killed", flush=True)
                wall[name] = time.time() - t0
            elif not args.report_only:
                wall[name] = run_module(name, log, args.retry_survivors, args.confirm_kills)
                print(f"[{name}] {wall[name]:.0f} s", flush=True)
            with _locked():
                write_report([name] if not args.report_only else names, wall)
    print((OUT / "report.md").read_text())


if __name__ == "__main__":
    main()
