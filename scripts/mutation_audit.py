"""The mutation audit: can the tests tell when the mathematics changes?

    python scripts/mutation_audit.py                    # every mutant (hours), then the report
    python scripts/mutation_audit.py --sample 60        # 60 mutants per module, drawn with --seed
    python scripts/mutation_audit.py --report-only      # the report from mutmut's stored results

mutmut 3 (configured in ``setup.cfg``: which modules are mutated, which tests form the suite)
changes the code one small edit at a time and runs the tests that reach the edited function
against each changed copy. This script drives it through its command line only (``mutmut run
[NAMES]``, ``mutmut results --all true``) and writes ``results/mutation/report.md``: per module
the mutants run, killed and not killed, the score killed / run with a 95% Wilson interval, the
functions covered, the commit measured, and every mutant not killed (``mutmut show NAME`` prints
its diff). Results live in ``mutants/`` (git-ignored): an interrupted run resumes, and a function
whose source changed gets new mutants. ``--sample`` draws a seeded random sample of each
module's mutants: an estimate of the score with its interval, in minutes instead of hours.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import subprocess
import sys
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "results" / "mutation" / "report.md"
MUTMUT = [str(Path(sys.executable).parent / "mutmut")]
#: mutmut's statuses; every one but "killed" counts against the score.
KILLED = "killed"


def results() -> dict[str, str]:
    """{mutant name: status} as ``mutmut results --all true`` prints them."""
    out = subprocess.run(
        MUTMUT + ["results", "--all", "true"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    found = {}
    for line in out.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and "__mutmut_" in name:
            found[name] = status.strip()
    return found


def module_of(name: str) -> str:
    """``resnet_nb.core.losses.x_optimum__mutmut_3`` -> ``resnet_nb.core.losses``."""
    return name.split(".xǁ")[0] if ".xǁ" in name else name.split(".x_")[0]


def function_of(name: str) -> str:
    """``...losses.x_optimum__mutmut_3`` -> ``optimum``; ``...xǁCheckǁmargin__mutmut_1`` -> ``Check.margin``."""
    tail = name[len(module_of(name)) + 1 :].split("__mutmut_")[0]
    if tail.startswith("xǁ"):
        return ".".join(part for part in tail[2:].split("ǁ") if part)
    return tail[2:] if tail.startswith("x_") else tail


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (math.nan, math.nan)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def commit() -> str:
    head = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", "resnet_nb", "tests"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    return head.stdout.strip() + (" (with uncommitted changes)" if dirty else "")


PRAGMA = "# pragma: no mutate"
PRAGMA_SECTION = "## Lines the pragmas exclude"


def pragma_lines(source: str) -> int:
    """How many lines of ``source`` a ``# pragma: no mutate`` keeps from being mutated: the line
    itself, or, for ``# pragma: no mutate block`` on a ``def`` line, every line of the function."""
    import ast

    tree = ast.parse(source)
    lines = source.splitlines()
    blocks = {
        n.lineno: n.end_lineno - n.lineno + 1
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and "no mutate block" in lines[n.lineno - 1]
    }
    total = 0
    for number, line in enumerate(lines, 1):
        if PRAGMA in line:
            total += blocks.get(number, 1)
    return total


def pragma_section(root: Path = ROOT) -> list[str]:
    """The report's table of pragma-excluded lines per module of ``resnet_nb``, from the source."""
    rows = []
    for path in sorted((root / "resnet_nb").rglob("*.py")):
        n = pragma_lines(path.read_text())
        if n:
            rows.append((".".join(path.relative_to(root).with_suffix("").parts), n))
    out = [
        PRAGMA_SECTION,
        "",
        f"Counted from the source at commit `{commit()}` (`# pragma: no mutate` lines; a `no mutate block`",
        "counts every line of its function). These lines are in no module's mutants. The scores above",
        "are from the commit named at the top; where that differs from this one, this source has not",
        "been re-measured.",
        "",
        "| module | excluded lines |",
        "| --- | --- |",
    ]
    out += [f"| {m} | {n} |" for m, n in rows]
    out += [f"| total | {sum(n for _, n in rows)} |"]
    return out


def report(statuses: dict[str, str], note: str, seconds: float | None) -> str:
    by_module: dict[str, dict[str, str]] = defaultdict(dict)
    for name, status in statuses.items():
        by_module[module_of(name)][name] = status
    lines = [
        "# Mutation audit",
        "",
        f"mutmut 3.8.1 via `scripts/mutation_audit.py`; written {datetime.now(UTC):%Y-%m-%d %H:%M} UTC "
        f"at commit `{commit()}`. {note}",
        "",
        "Score = killed / run; every mutant run and not killed (survived, timeout, no test reaches it) "
        "counts against it. Interval: 95% Wilson. Target: at least 90% per module.",
        "",
        "| module | mutants | run | killed | not killed | score | 95% interval |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    details = []
    for module in sorted(by_module):
        st = by_module[module]
        run = {k: v for k, v in st.items() if v != "not checked"}
        killed = sum(v == KILLED for v in run.values())
        lo, hi = wilson(killed, len(run))
        score = f"{100 * killed / len(run):.1f}%" if run else "n/a"
        interval = f"{100 * lo:.0f}-{100 * hi:.0f}%" if run else "n/a"
        lines.append(f"| {module} | {len(st)} | {len(run)} | {killed} | {len(run) - killed} | {score} | {interval} |")
        functions = sorted({function_of(k) for k in run})
        survivors = sorted(k for k, v in run.items() if v != KILLED)
        details += [
            "",
            f"## {module}",
            "",
            "Functions covered by the mutants run: " + (", ".join(f"`{f}`" for f in functions) or "none") + ".",
        ]
        if survivors:
            details += ["", "Not killed (`mutmut show NAME` prints the edit):", ""]
            details += [f"- `{k}`: {run[k]}" for k in survivors]
    packages: dict[str, list[str]] = defaultdict(list)
    for module, st in by_module.items():
        packages[".".join(module.split(".")[:2])] += [v for v in st.values() if v != "not checked"]
    lines += [
        "",
        "Pooled by package (every mutant run in its modules):",
        "",
        "| package | run | killed | score | 95% interval |",
        "| --- | --- | --- | --- | --- |",
    ]
    for package in sorted(packages):
        run = packages[package]
        killed = sum(v == KILLED for v in run)
        lo, hi = wilson(killed, len(run))
        if run:
            lines.append(
                f"| {package} | {len(run)} | {killed} | {100 * killed / len(run):.1f}% | "
                f"{100 * lo:.0f}-{100 * hi:.0f}% |"
            )
    if seconds is not None:
        lines += ["", f"Wall time of this run: {seconds / 60:.0f} minutes."]
    lines += ["", *pragma_section()]
    return "\n".join(lines + details) + "\n"


def with_pragma_section(text: str) -> str:
    """An existing report with its pragma table (re)written from today's source, the rest kept."""
    head, sep, tail = text.partition(PRAGMA_SECTION)
    rest = ""
    if sep:
        after = tail.split("\n## ", 1)
        rest = "\n## " + after[1] if len(after) > 1 else ""
    else:
        parts = head.split("\n## ", 1)
        head, rest = parts[0], ("\n## " + parts[1] if len(parts) > 1 else "")
    return head.rstrip("\n") + "\n\n" + "\n".join(pragma_section()) + "\n" + rest


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, help="mutants per module (a seeded random sample)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--modules", nargs="*", help="only these modules (dotted names, e.g. resnet_nb.core.losses)")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument(
        "--pragmas-only", action="store_true", help="only rewrite the report's table of pragma-excluded lines"
    )
    args = ap.parse_args(argv)
    start = time.time()
    if args.pragmas_only:
        REPORT.write_text(with_pragma_section(REPORT.read_text()))
        print("\n".join(pragma_section()))
        return 0
    note = "Rewritten from mutmut's stored results." if args.report_only else "Every mutant of every mutated module."
    if not args.report_only:
        # mutmut credits each function to the tests during which it ran; fixtures that tests
        # share are recomputed per test while it maps them (tests/helpers.py, shared_scope), and
        # the map is made afresh, so that every test that checks a function is run on its mutants
        (ROOT / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
        mapping = dict(os.environ, RESNET_NB_PER_TEST_FIXTURES="1")
        if args.sample is None and not args.modules:
            subprocess.run(MUTMUT + ["run"], cwd=ROOT, check=True, env=mapping)
        else:
            # mutmut generates every mutant and maps tests to functions on its first run; a pattern
            # that matches no mutant does that and runs none, so the names can be drawn from it
            subprocess.run(MUTMUT + ["run", "resnet_nb.no_such_module*"], cwd=ROOT, check=False, env=mapping)
            names = sorted(results())
            by_module = defaultdict(list)
            for name in names:
                if not args.modules or module_of(name) in args.modules:
                    by_module[module_of(name)].append(name)
            rng = random.Random(args.seed)
            chosen = []
            for module in sorted(by_module):
                pool = by_module[module]
                chosen += pool if args.sample is None else rng.sample(pool, min(args.sample, len(pool)))
            note = (
                f"A random sample (seed {args.seed}) of {args.sample} mutants per module."
                if args.sample
                else "Every mutant of the modules listed."
            )
            # one call: every call of `mutmut run` first runs the whole suite once
            for i in range(0, len(chosen), 2000):  # (a command line of some 150 kB at most)
                subprocess.run(MUTMUT + ["run"] + chosen[i : i + 2000], cwd=ROOT, check=False)
    statuses = results()
    if args.modules:
        statuses = {k: v for k, v in statuses.items() if module_of(k) in args.modules}
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(report(statuses, note, None if args.report_only else time.time() - start))
    print(REPORT.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
