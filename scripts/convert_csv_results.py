"""Convert the last result sets kept in their own CSV format into records of the engine's store.

    PYTHONPATH=$PWD python scripts/convert_csv_results.py [--root RESULTS] [--keep]

Five committed sets were written as CSV files before every result became a record of
``resnet_nb/experiments/records.py`` (one checksummed JSON file per work item):

* ``fig3_sharpness/`` (``losses.csv``, ``sharpness.csv``, ``config.json``): one record, the run
  (item ``fig3.sharpness_item(**config)``, one row per epoch, ``lam_max`` and ``eta_lam`` at the
  sampled epochs);
* ``fig8/dense/`` (``index.csv``, ``config.json``): one record per architecture
  (``fig8.dense_item``);
* ``hm_conv/`` (``runs/<init>-<seed>.csv``, ``histories.csv``, ``provenance.json``): one record
  per run (``hm_analog.run_item``), its provenance the run's from ``provenance.json``;
* ``t1d_long_sweep/`` (``rows.csv``, ``lam_max.csv``, ``gaps.csv``, ``config.json``): one record
  per seed (``li.dynamics.sweep_item``), its row with the seed's traces;
* ``hm_thm32/`` (``draws.csv``, ``projections.csv``, ``provenance.json``): one record per draw
  (``hardt_ma.relu.thm32_draw_item``, its row) and per point set and width
  (``hardt_ma.relu.thm32_projection_item``, its projections' rows), the provenance the tables'
  from ``provenance.json`` (with the table's computing time).

Each set's records go to ``<set>/records/``. The numbers are those the old readers read
(``pandas.read_csv``); JSON keeps a float's repr, so they come back exactly, and the script
checks it: the data frame read back through the new reader (``iter_records``, through
``fig3.load_sharpness``, ``fig8.load_dense``, ``hm_analog.load``, ``dynamics.load_sweep`` and ``hr.load_thm32``)
equals the CSV's with ``pandas.testing.assert_frame_equal(check_exact=True)``. The original
provenance (git commit, versions, machine, times, settings) is kept in each record's provenance,
with ``converted_from`` (the files) and ``committed_in`` (the commit that last changed the CSV
file, where git knows it). Only after every check passes are the CSV files (and the sets'
``config.json`` / ``provenance.json``) deleted; ``--keep`` keeps them.

Idempotent: a set whose CSV files are gone is reported as converted and left alone; run again on
the CSV files, it writes the same records (no time of conversion is stored).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from pandas.testing import assert_frame_equal

from resnet_nb.core.paths import RESULTS
from resnet_nb.experiments import fig3, fig8, hm_analog
from resnet_nb.hardt_ma import relu as hr
from resnet_nb.li import dynamics
from resnet_nb.shared.store import write_record

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = "scripts/convert_csv_results.py"


def committed_in(path: Path) -> str:
    """The commit that last changed ``path`` ("unknown" outside a git checkout)."""
    try:
        out = subprocess.run(
            ["git", "log", "-1", "--format=%H", "--", str(path)], cwd=ROOT, capture_output=True, text=True
        )
    except OSError:
        return "unknown"
    return out.stdout.strip() or "unknown"


def origin(files: list[Path], root: Path) -> dict:
    """What a converted record was made from."""
    return dict(
        converted_from=[str(f.relative_to(root)) for f in files],
        converted_by=SCRIPT,
        committed_in=committed_in(files[0]),
    )


def convert_fig3_sharpness(root: Path) -> list[Path]:
    d = root / fig3.SHARPNESS_DIR
    files = [d / "sharpness.csv", d / "losses.csv", d / "config.json"]
    sharp, losses = pd.read_csv(files[0]), pd.read_csv(files[1])
    config = json.loads(files[2].read_text())
    # the sampled losses are the every-epoch losses at those epochs: one table holds both
    assert_frame_equal(
        sharp[["epoch", "loss"]], losses.set_index("epoch").loc[sharp["epoch"]].reset_index(), check_exact=True
    )
    rows = losses.join(sharp.set_index("epoch")[["lam_max", "eta_lam"]], on="epoch").to_dict("records")
    prov = dict(origin(files, root), settings=config, note="written without provenance beyond its arguments")
    write_record(d / "records", fig3.sharpness_item(**config), rows, prov)
    back_sharp, back_losses = fig3.load_sharpness(root)
    assert_frame_equal(back_sharp, sharp, check_exact=True)
    assert_frame_equal(back_losses, losses, check_exact=True)
    return files


def convert_fig8_dense(root: Path) -> list[Path]:
    d = root.joinpath(*fig8.DENSE_DIR)
    files = [d / "index.csv", d / "config.json"]
    table, config = pd.read_csv(files[0]), json.loads(files[1].read_text())
    if config != fig8.DENSE:
        raise ValueError(f"{files[1]} is not fig8.DENSE: the records' items would not be the settings")
    prov = dict(origin(files, root), settings=config, note="written without provenance beyond its settings")
    for arch, g in table.groupby("arch", sort=False):
        write_record(d / "records", fig8.dense_item(arch), g.to_dict("records"), prov)
    assert_frame_equal(fig8.load_dense(root), table, check_exact=True)
    return files


def convert_hm_conv(root: Path) -> list[Path]:
    d = root / "hm_conv"
    runs = sorted((d / "runs").glob("*.csv"))
    files = [*runs, d / "histories.csv", d / "provenance.json"]
    meta = json.loads((d / "provenance.json").read_text())
    config = {k: (list(v) if isinstance(v, tuple) else v) for k, v in hm_analog.CONFIG.items()}
    if meta["config"] != config:
        raise ValueError(f"{d / 'provenance.json'}: its config is not hm_analog.CONFIG")
    shared = dict(
        git=dict(commit=meta["git_commit"], conv_py_modified=meta["conv_py_modified"]),
        versions=dict(torch=meta["torch"], numpy=meta["numpy"], python=meta["python"]),
        machine=dict(description=meta["machine"], torch_threads=meta["threads"]),
        command=meta["command"],
        note=meta["note"],
    )
    for f in runs:
        init, seed = f.stem.rsplit("-", 1)
        run = meta["runs"][f.stem]
        prov = dict(
            shared,
            wall_time_s=run["seconds"],
            finished_utc=run["finished"],
            **origin([f, d / "provenance.json"], root),
        )
        write_record(d / "records", hm_analog.run_item(init, int(seed)), pd.read_csv(f).to_dict("records"), prov)
    back = hm_analog.load(d)
    # what the chapter read (the runs' files, in name order) and the collected table
    assert_frame_equal(back, pd.concat([pd.read_csv(f) for f in runs], ignore_index=True), check_exact=True)
    assert_frame_equal(back, pd.read_csv(d / "histories.csv"), check_exact=True)
    got = hm_analog.run_provenance(d)
    assert got["runs"] == {k: dict(seconds=v["seconds"], finished=v["finished"]) for k, v in meta["runs"].items()}
    assert (got["git_commit"], got["torch"], got["machine"]) == (meta["git_commit"], meta["torch"], meta["machine"])
    return files


def convert_t1d_long_sweep(root: Path) -> list[Path]:
    d = root / dynamics.LONG_SWEEP_DIR
    files = [d / "rows.csv", d / "lam_max.csv", d / "gaps.csv", d / "config.json"]
    rows, lam, gaps = (pd.read_csv(f) for f in files[:3])
    meta = json.loads(files[3].read_text())
    types = dict(seed=int, peak_epoch=int, first_above=int, rises=int, spike=bool)
    prov = dict(
        git=dict(commit=meta["git_commit"]),
        versions=dict(torch=meta["torch"], numpy=meta["numpy"], python=meta["python"]),
        machine=dict(torch_threads=meta["threads"]),
        sweep={k: v for k, v in meta["config"].items() if k != "seeds"},
        **origin(files, root),
    )
    scalars = {k: meta[k] for k in dynamics.SWEEP_SCALARS}
    for r in rows.to_dict("records"):
        seed = int(r["seed"])
        row = {k: types.get(k, float)(v) for k, v in r.items()}
        col = f"seed{seed}"
        traces = dict(
            epochs=[int(e) for e in lam["epoch"]],
            lam_max=[float(v) for v in lam[col]],
            gaps=[float(v) for v in gaps[col]],
        )
        write_record(
            d / "records", dynamics.sweep_item(seed, meta["config"]), [dict(row, sweep=scalars, **traces)], prov
        )
    back = dynamics.load_sweep(d)
    cols = [f"seed{s}" for s in back["seeds"]]
    back_lam = pd.DataFrame(back["lam_max"].T, columns=cols)
    back_lam.insert(0, "epoch", back["epochs"])
    back_gaps = pd.DataFrame(back["gaps"].T, columns=cols)
    back_gaps.insert(0, "epoch", np.arange(back_gaps.shape[0]))
    assert_frame_equal(back_lam, lam, check_exact=True)
    assert_frame_equal(back_gaps, gaps, check_exact=True)
    assert_frame_equal(pd.DataFrame(back["rows"]), rows, check_exact=True)
    assert back["seeds"] == meta["seeds"] and {k: back[k] for k in scalars} == scalars
    return files


def convert_hm_thm32(root: Path) -> list[Path]:
    d = root / hr.THM32_DIR
    files = [d / "draws.csv", d / "projections.csv", d / "provenance.json"]
    draws, proj = pd.read_csv(files[0]), pd.read_csv(files[1])
    meta = json.loads(files[2].read_text())
    for key, value in (("thm32_draws", hr.THM32_DRAWS), ("thm32_results", hr.THM32_RESULTS)):
        if meta[key] != json.loads(json.dumps(value)):
            raise ValueError(
                f"{files[2]}: its {key} is not hr.{key.upper()}: the records' items would not be the settings"
            )
    shared = dict(
        git=dict(commit=meta["git_commit"], hardt_ma_relu_modified=meta["hardt_ma_relu_modified"]),
        versions=dict(numpy=meta["numpy"], python=meta["python"]),
        machine=dict(description=meta["machine"]),
        load_average=meta["load_average"],
        finished_utc=meta["finished"],
        settings=dict(thm32_draws=meta["thm32_draws"], thm32_results=meta["thm32_results"]),
    )
    prov = dict(shared, table_wall_time_s=meta["seconds"]["draws"], **origin([files[0], files[2]], root))
    for row in draws.to_dict("records"):
        item = hr.thm32_draw_item(int(row["seed"]))
        if not item["greedy"]:  # the greedy order was fitted on the first draws only: no value, not NaN
            assert np.isnan(row.pop("greedy_error"))
        write_record(d / "records", item, [row], prov)
    prov = dict(shared, table_wall_time_s=meta["seconds"]["projections"], **origin([files[1], files[2]], root))
    sets = hr.chapter_point_sets()
    for (name, k), g in proj.groupby(["data", "k"], sort=False):
        item = hr.thm32_projection_item(name, sets[name][0], int(k))
        if list(g["seed"]) != list(range(item["projections"])):
            raise ValueError(f"{files[1]}: {name} at k = {k} is not seeds 0 to {item['projections'] - 1}")
        write_record(d / "records", item, g.to_dict("records"), prov)
    back_draws, back_proj = hr.load_thm32(d)
    assert_frame_equal(back_draws, draws, check_exact=True)
    assert_frame_equal(back_proj, proj, check_exact=True)
    return files


SETS = {
    "fig3_sharpness": (fig3.SHARPNESS_DIR + "/sharpness.csv", convert_fig3_sharpness),
    "fig8/dense": ("fig8/dense/index.csv", convert_fig8_dense),
    "hm_conv": ("hm_conv/histories.csv", convert_hm_conv),
    "t1d_long_sweep": ("t1d_long_sweep/rows.csv", convert_t1d_long_sweep),
    "hm_thm32": ("hm_thm32/draws.csv", convert_hm_thm32),
}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=RESULTS, help="the results folder (default: results/)")
    parser.add_argument("--keep", action="store_true", help="keep the CSV files after the checks")
    args = parser.parse_args(argv)
    for name, (marker, convert) in SETS.items():
        if not (args.root / marker).exists():
            print(f"{name}: no CSV files (converted already), left alone")
            continue
        files = convert(args.root)
        print(f"{name}: {len(files)} files converted, read back equal (check_exact)")
        if not args.keep:
            for f in files:
                f.unlink()
            runs = args.root / "hm_conv" / "runs"
            if name == "hm_conv" and runs.is_dir() and not any(runs.iterdir()):
                runs.rmdir()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
