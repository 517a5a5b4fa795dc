"""Execute one chapter as the book does and write its execution record, without building the book.

    python scripts/run_chapter.py book/<chapter>.ipynb OUT_DIR

Code cells run in order in one kernel; each ``{eval}`` expression of a Markdown cell is
evaluated where the page asks for it (after the code cells above it), as myst-nb's inline
execution does. The record (``OUT_DIR/<chapter>.json``: every cell's outputs and every
``{eval}`` result in order) has the layout of ``scripts/exec_cache.py``'s, so
``scripts/compare_outputs.py`` compares it with a build's. For checking that a change of the
code leaves one chapter's printed numbers as they were, in a minute instead of a book build.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import nbformat
from exec_cache import wait_in_slices
from nbclient import NotebookClient

EVAL = re.compile(r"\{eval\}`([^`]+)`")


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    path, out = Path(argv[0]).resolve(), Path(argv[1])
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    cells, evals = [], []
    start = time.perf_counter()
    with client.setup_kernel():
        # wait on the kernel in one-second slices, as the book build does (scripts/exec_cache.py)
        for channel in (client.kc.shell_channel, client.kc.iopub_channel):
            channel.get_msg = wait_in_slices(channel.get_msg)
        for index, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                client.execute_cell(cell, index)
                cells.append({"execution_count": cell.get("execution_count"), "outputs": cell.outputs})
                continue
            cells.append(None)
            for expr in EVAL.findall(cell.source):
                probe = nbformat.v4.new_code_cell(expr)
                client.execute_cell(probe, index)
                evals.append([expr, [o for o in probe.outputs if o.get("output_type") == "execute_result"]])
    out.mkdir(parents=True, exist_ok=True)
    record = {
        "key": "",
        "complete": True,
        "seconds": round(time.perf_counter() - start, 1),
        "cells": cells,
        "evals": evals,
        "metadata": {},
    }
    (out / f"{path.stem}.json").write_text(json.dumps(record, default=str))
    print(f"{path.stem}: {record['seconds']} s, {len(evals)} inline values -> {out / (path.stem + '.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
