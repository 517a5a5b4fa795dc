"""Write results/hm_thm32/: the per-draw and per-projection tables the Hardt & Ma expressivity chapter
reads (the paper's order at the paper's width under both readings of rho, the proof's JL step, the
margins after projection of the chapter's two point sets over many projections).

    PYTHONPATH=. OMP_NUM_THREADS=1 python scripts/hm_thm32.py [OUT]      (a few minutes on one core)

``tests/hardt_ma/test_theorem3_2_width.py`` recomputes some rows and compares them with the committed ones."""

import datetime
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np
import pandas as pd

from resnet_nb.hardt_ma import relu as hr


def main(out="results/hm_thm32"):
    os.makedirs(out, exist_ok=True)
    t0 = time.time()
    cfg = hr.THM32_RESULTS
    draws = pd.DataFrame([hr.thm32_draw_row(s, greedy=s < cfg["greedy_draws"]) for s in range(hr.THM32_DRAWS["draws"])])
    draws.to_csv(os.path.join(out, "draws.csv"), index=False, float_format="%.17g")
    t1 = time.time()
    rows = []
    for name, (X, _) in hr.chapter_point_sets().items():
        k_paper = hr.paper_width(X.shape[1], hr.paper_rho(X))
        for k in sorted({*cfg["widths"], k_paper}):
            if k >= X.shape[0]:  # no projection below d: the paper's width for MNIST exceeds 784
                continue
            rows.extend(dict(data=name, **hr.projection_row(X, k, s)) for s in range(cfg["projections"]))
    pd.DataFrame(rows).to_csv(os.path.join(out, "projections.csv"), index=False, float_format="%.17g")
    t2 = time.time()
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = bool(
        subprocess.run(
            ["git", "status", "--porcelain", "resnet_nb/hardt_ma/relu"], capture_output=True, text=True
        ).stdout.strip()
    )
    prov = dict(
        git_commit=commit,
        hardt_ma_relu_modified=dirty,
        numpy=np.__version__,
        python=platform.python_version(),
        machine=f"{platform.machine()} {os.cpu_count()} cores",
        load_average=[round(x, 2) for x in os.getloadavg()],
        finished=datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        seconds=dict(draws=round(t1 - t0, 1), projections=round(t2 - t1, 1)),
        thm32_draws=hr.THM32_DRAWS,
        thm32_results=hr.THM32_RESULTS,
    )
    with open(os.path.join(out, "provenance.json"), "w") as f:
        json.dump(prov, f, indent=1, default=list)


if __name__ == "__main__":
    main(*sys.argv[1:])
