"""Tag every chapter cell that displays an ipywidget with ``nbval-ignore-output``.

A widget's output area (``interact``, an ``Output`` widget) is filled by messages that a live
front end routes into the widget; nbval does not model that routing and records them as the
cell's own outputs, so the two executions of such a cell cannot be compared output by output.
The cell still runs under nbval (an error still fails), only its outputs are not compared.
The cells are found from the book build's executed notebooks (``_build/jupyter_execute``):
those with a widget view among their outputs. ``--check`` only reports untagged ones.

    .venv/bin/python scripts/tag_widget_cells.py [--check]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXECUTED = ROOT / "_build" / "jupyter_execute" / "book"
TAG = "nbval-ignore-output"
WIDGET = "application/vnd.jupyter.widget-view+json"


def widget_cells(executed: Path) -> set[str]:
    nb = json.loads(executed.read_text(encoding="utf8"))
    return {
        c["id"]
        for c in nb["cells"]
        if c["cell_type"] == "code" and any(WIDGET in o.get("data", {}) for o in c.get("outputs", []))
    }


def main(check: bool = False) -> int:
    untagged = []
    for executed in sorted(EXECUTED.glob("*.ipynb")):
        ids = widget_cells(executed)
        source = ROOT / "book" / executed.name
        if not ids or not source.exists():
            continue
        raw = source.read_text(encoding="utf8")
        nb = json.loads(raw)
        changed = False
        for cell in nb["cells"]:
            tags = cell.setdefault("metadata", {}).setdefault("tags", [])
            if cell.get("id") in ids and TAG not in tags:
                untagged.append(f"{source.name} cell {cell['id']}")
                tags.append(TAG)
                changed = True
            if not tags:
                del cell["metadata"]["tags"]
        if changed and not check:
            source.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf8")
    for u in untagged:
        print(("untagged widget cell: " if check else "tagged: ") + u)
    return 1 if (check and untagged) else 0


if __name__ == "__main__":
    sys.exit(main(check="--check" in sys.argv[1:]))
