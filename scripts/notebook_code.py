"""Write the chapters' code (code cells and ``{eval}`` expressions) to one Python file.

    python scripts/notebook_code.py OUT.py

For the dead-code finder (``make lint`` runs vulture over the package, the tests, the scripts and
this file): a function that only a chapter calls is used, not dead. IPython magics and shell
lines become ``pass``; the names the chapters assign are listed in ``__all__`` (the finder looks
for dead code in the package, not in the chapters); the file is never run.
"""

from __future__ import annotations

import ast
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
                # a magic or shell line becomes `pass` at its indentation (it may be a block's body)
                lines = [
                    ln[: len(ln) - len(ln.lstrip())] + "pass" if ln.lstrip().startswith(("%", "!")) else ln
                    for ln in source.splitlines()
                ]
                parts.append(f"# {path.name}\n" + "\n".join(lines))
            else:
                parts += [f"# {path.name}\n{expr}" for expr in EVAL.findall(source)]
    # the chapters' own names count as used: the finder is after dead code in the package
    names = set()
    for part in parts:
        try:
            tree = ast.parse(part)
        except SyntaxError:
            continue
        names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    out = Path(argv[0])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n\n".join(parts) + f"\n\n__all__ = {sorted(names)!r}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
