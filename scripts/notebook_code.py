"""Write the chapters' code (code cells and ``{eval}`` expressions) to one Python file.

    python scripts/notebook_code.py OUT.py

For the dead-code finder (``make lint`` runs vulture over the package, the tests, the scripts and
this file): a function that only a chapter calls is used, not dead. IPython magics and shell
lines are left out; the file is never run.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EVAL = re.compile(r"\{eval\}`([^`]+)`")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    parts = []
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            source = "".join(cell["source"])
            if cell["cell_type"] == "code":
                lines = [ln for ln in source.splitlines() if not ln.lstrip().startswith(("%", "!"))]
                parts.append(f"# {path.name}\n" + "\n".join(lines))
            else:
                parts += [f"# {path.name}\n{expr}" for expr in EVAL.findall(source)]
    out = Path(argv[0])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n\n".join(parts) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
