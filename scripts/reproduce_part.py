"""Run part of a figure's paper-scale grid into the shared result store (for using several cores).

    python scripts/reproduce_part.py fig10 --depths 4 8 --out results

Each invocation computes only the work items whose depth is listed; several invocations with
disjoint depth lists can run at once on one store (each record is written atomically, and a
finished record is never recomputed). Afterwards,
``python -m resnet_nb reproduce FIG --scale paper --out results --collect`` (or the plain
command, which computes whatever is still missing) writes the table, provenance and figure.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from resnet_nb.experiments import engine


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("figure", choices=sorted(engine.FIGURES))
    p.add_argument("--depths", type=int, nargs="+", required=True,
                   help="depths to compute (for fig2: residual blocks per stage)")
    p.add_argument("--scale", default="paper", choices=engine.SCALE_NAMES)
    p.add_argument("--out", default="results")
    p.add_argument("--device", default="cpu")
    a = p.parse_args(argv)
    module = engine.load_figure(a.figure)
    config = engine.get_config(module, a.scale)
    # Figure 2's items are indexed by blocks per stage instead of depth
    size = (lambda it: int(it["blocks"])) if a.figure == "fig2" else (lambda it: int(it.get("depth", -1)))
    items = [it for it in module.configurations(config) if size(it) in set(a.depths)]
    if not items:
        print(f"no work item of {a.figure} ({a.scale}) has a depth in {a.depths}", file=sys.stderr)
        return 2
    store = Path(a.out) / getattr(module, "SHARES_RECORDS_WITH", a.figure) / a.scale / "records"
    engine.run_items(module, config, store_dir=store, device=engine.check_device(a.device), items=items)
    print(f"{a.figure}: {len(items)} items with depths {a.depths} finished in {store}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
