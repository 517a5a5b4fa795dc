"""Compare the executed chapters of two builds: the same printed numbers, figures aside.

    python scripts/compare_outputs.py OLD_EXEC_DIR [NEW_EXEC_DIR]

Both folders hold the execution records that ``scripts/exec_cache.py`` writes
(``.cache/exec/<chapter>.json``, NEW defaults to this checkout's). For every chapter the text
each cell prints (plain text, HTML, Markdown, streams) and every inline ``{eval}`` value (not
the expression that reads it) are put in order, the volatile parts are masked with the rules of
``tests/nbval_sanitize.cfg`` (memory addresses, random ids, timings), rounding residues below
1e-12 are reconciled as nbval does (``tests/nbval_numbers.py``: at most one order of magnitude
apart), images are left out, and the two sequences are compared. A
restructuring of the code that changes no number leaves no difference; the script prints each
difference it finds and exits 1 if there is one.
"""

from __future__ import annotations

import configparser
import difflib
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from nbval_numbers import reconcile  # noqa: E402

TEXT = ("text/plain", "text/html", "text/markdown", "text/latex")
# The Matplotlib repr of a figure names its size only; the picture itself is not compared.
FIGURE = re.compile(r"<Figure size [^>]*>")


def _rules() -> list[tuple[re.Pattern, str]]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(ROOT / "tests" / "nbval_sanitize.cfg")
    return [(re.compile(parser[s]["regex"]), parser[s]["replace"]) for s in parser.sections()]


def _texts(output: dict) -> list[str]:
    if output.get("output_type") == "stream":
        return [output.get("text", "")]
    data = output.get("data", {})
    return [data[kind] if isinstance(data[kind], str) else "".join(data[kind]) for kind in TEXT if kind in data]


def printed(record: dict, rules) -> list[str]:
    """The chapter's printed text in order, one line per element, volatile parts masked."""
    lines = []
    for cell in record.get("cells", []):
        if not cell:
            continue
        for output in cell.get("outputs", []):
            for text in _texts(output):
                for line in text.splitlines():
                    for pattern, replace in rules:
                        line = pattern.sub(replace, line)
                    lines.append(FIGURE.sub("<Figure>", line))
    for _name, outputs in record.get("evals", []):
        for output in outputs:
            for text in _texts(output):
                # the value, in the order the page shows it: a number that moved from a variable
                # into a result's field (`f.loss` for `loss`) is the same number
                lines.append(f"{{eval}} {text}")
    return lines


def reconciled(a: list[str], b: list[str]) -> list[str]:
    """``b`` with each line's rounding residues reconciled against the line of ``a`` it stands
    for (lines paired by a diff that ignores the residues' digits)."""
    masked = [[RESIDUE.sub("R", x) for x in lines] for lines in (a, b)]
    out = list(b)
    for tag, i0, i1, j0, j1 in difflib.SequenceMatcher(None, *masked, autojunk=False).get_opcodes():
        if tag == "equal" or (tag == "replace" and i1 - i0 == j1 - j0):
            for i, j in zip(range(i0, i1), range(j0, j1)):
                out[j] = reconcile(a[i], b[j])
    return out


RESIDUE = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)[eE]-\d+(?![\w.])")


def main(argv: list[str]) -> int:
    if not argv or len(argv) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    old = Path(argv[0])
    new = Path(argv[1]) if len(argv) > 1 else ROOT / ".cache" / "exec"
    rules = _rules()
    differ = 0
    for path in sorted(old.glob("*.json")):
        other = new / path.name
        if not other.exists():
            print(f"{path.stem}: not in {new}, not compared")
            continue
        a = printed(json.loads(path.read_text()), rules)
        b = reconciled(a, printed(json.loads(other.read_text()), rules))
        diff = list(difflib.unified_diff(a, b, "before", "after", lineterm="", n=1))
        print(
            f"{path.stem}: {len(a)} printed lines, "
            + ("the same" if not diff else f"{sum(1 for d in diff if d[:1] in '+-') - 2} lines differ")
        )
        if diff:
            differ += 1
            print("\n".join(diff[:80]))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
