"""Command line: ``python -m resnet_nb reproduce {fig2,fig3,fig5,...,fig10,all} --scale --device --out --jobs``.

Each figure runs through :mod:`resnet_nb.experiments.engine`: finished work items are kept as
checksummed records under ``<out>/<figure>/<scale>/records/``, so an interrupted run resumes
where it stopped. When a figure is complete, ``table.csv``, ``provenance.json`` and
``figure.png`` are written beside its records.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from resnet_nb.experiments import cluster, engine
from resnet_nb.shared import store


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m resnet_nb", description="Reproduce the experiments of Li et al. (Demystifying ResNet)."
    )
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("reproduce", help="run figures and store their tables with provenance")
    r.add_argument(
        "figures",
        nargs="+",
        choices=sorted(engine.FIGURES) + ["all"],
        metavar="FIGURE",
        help=f"one or more of {', '.join(engine.FIGURES)}, or all",
    )
    r.add_argument(
        "--scale",
        choices=engine.SCALE_NAMES,
        default="default",
        help="default: minutes (the book's live figures); paper: the full grids",
    )
    r.add_argument("--device", default="cpu", help="cpu or cuda (cuda:N)")
    r.add_argument("--out", default="results", help="folder of the result store (default: results/)")
    r.add_argument(
        "--jobs",
        type=int,
        default=None,
        help=f"worker processes, one thread each, at most {engine.MAX_JOBS} "
        f"(default: every core, {os.cpu_count()} here)",
    )
    r.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="run the work items on the Dask cluster whose scheduler is at ADDRESS "
        "(tcp://host:8786; needs the optional package distributed); the records "
        "go to --out, which every worker must be able to reach",
    )
    r.add_argument("--no-progress", action="store_true", help="no progress bars")
    r.add_argument(
        "--keep-stale",
        action="store_true",
        help="reuse records made by other code of the figure or other torch/numpy versions "
        "(listed as stale in provenance.json) instead of setting them aside and recomputing them",
    )
    r.add_argument(
        "--collect",
        action="store_true",
        help="compute nothing: write table, provenance and figure from the finished records only "
        "(marked incomplete if items are missing)",
    )
    sub.add_parser("list", help="list the figures and their scales")
    return p


def _store_name(module, figure):
    """Figures computed from another figure's items share its records (e.g. fig8 from fig6)."""
    return getattr(module, "SHARES_RECORDS_WITH", figure)


def require_out(out) -> Path:
    """Create ``out`` if needed and make sure files can be written there; else ValueError."""
    if not str(out).strip():
        raise ValueError("--out must name a folder, got an empty name")
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".write-test-"):
            pass
    except OSError as exc:
        raise ValueError(f"--out {str(out)!r} is not a writable folder: {exc.strerror or exc}") from None
    return out


def _folders(figure: str, scale: str, out):
    """The folder of ``figure``'s table and the folder of its records."""
    module = engine.load_figure(figure)
    return Path(out) / figure / scale, Path(out) / _store_name(module, figure) / scale / "records"


def require_folders(figures, scale: str, out, collect: bool) -> None:
    """Before any item runs: each figure's folder (and, unless collecting, its records folder)
    is a writable folder; else ValueError naming it."""
    for figure in figures:
        try:
            folder, records = _folders(figure, scale, out)
        except ImportError:
            continue  # reported when the figure's turn comes
        for f in (folder,) if collect else (folder, records):
            try:
                require_out(f)
            except ValueError as exc:
                raise ValueError(f"{figure}: {exc}".replace("--out ", "the folder ")) from None


def _write_figure(folder: Path, figure: str, table) -> None:
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from resnet_nb.book import experiment_figures

    # a figure the book does not draw (a test's stand-in figure) gets no picture
    ax = experiment_figures.plot(figure, table) if figure in experiment_figures.PLOTS else None
    if ax is not None:
        fig = np.ravel(np.asarray(ax, dtype=object))[0].figure
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
        plt.close(fig)
        store.write_atomic(folder / "figure.png", buf.getvalue())


def reproduce(
    figure: str,
    scale: str,
    device: str,
    out,
    progress: bool = True,
    collect: bool = False,
    jobs: int = 1,
    scheduler=None,
    keep_stale: bool = False,
) -> Path:
    """Run (or resume) one figure at one scale; return the folder of its results.

    ``collect``: compute nothing and change nothing in the store, summarise the records
    finished so far."""
    module = engine.load_figure(figure)
    config = engine.get_config(module, scale)
    folder, records = _folders(figure, scale, out)
    t0 = time.perf_counter()
    table = engine.run_items(
        module,
        config,
        store_dir=records,
        device=device,
        progress=progress,
        compute=not collect,
        jobs=jobs,
        scheduler=scheduler,
        keep_stale=keep_stale,
    )
    if table.empty:
        raise LookupError(f"{figure} ({scale}): no finished records under {records}")
    wall = time.perf_counter() - t0
    engine.write_summary(folder, figure, scale, config, table, device, wall, records)
    _write_figure(folder, figure, table)
    return folder


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "list":
        _list_figures()
        return 0
    figures = list(engine.FIGURES) if "all" in args.figures else list(dict.fromkeys(args.figures))
    try:
        device, jobs, out = _settings(args, figures)
        client = _connect(args.scheduler) if args.scheduler is not None else None
    except (ValueError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    produced, failed = 0, 0
    try:
        for figure in figures:
            status, folder = _reproduce_one(figure, args, device, out, jobs, client)
            if status in (1, 130):
                return status
            failed += status == "failed"
            if status == "produced":
                produced += 1
                print(f"{figure} ({args.scale}) -> {folder}")
    finally:
        if client is not None:
            client.close()
    if failed or not produced:
        what = "collected" if args.collect else "produced"
        print(f"error: {failed or len(figures)} figure(s) requested, nothing {what} for them", file=sys.stderr)
        return 1
    return 0


def _list_figures() -> None:
    """Print every figure, each scale and its number of work items."""
    for name in engine.FIGURES:
        try:
            module = engine.load_figure(name)
        except ImportError as exc:
            print(f"{name}: not available ({exc})")
            continue
        for scale in module.SCALES:
            n = len(module.configurations(module.SCALES[scale]))
            print(f"{name} --scale {scale}: {n} work items")


def _settings(args, figures):
    """Check the command line's settings before anything runs; return (device, jobs, out folder)."""
    device = engine.require_device(args.device)
    jobs = engine.require_jobs(args.jobs)
    if device != "cpu":
        jobs = 1
    if args.scheduler is not None and args.collect:
        raise ValueError("--collect computes nothing, so it takes no --scheduler")
    if args.scheduler is not None:
        cluster.require_scheduler_address(args.scheduler)
    require_out(args.out)
    out = Path(args.out).resolve()  # the workers of a cluster may run in other folders
    require_folders(figures, args.scale, out, args.collect)
    return device, jobs, out


def _connect(address):
    """A Dask client; distributed logs a lost scheduler as an error with a traceback on stderr,
    the command line says it in one line (cluster.EngineError) and what was kept."""
    import logging

    client = cluster.connect_scheduler(address)
    for name in ["distributed", *logging.root.manager.loggerDict]:
        if name.startswith("distributed"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
    return client


def _reproduce_one(figure, args, device, out, jobs, client):
    """Reproduce one figure; return ("produced", folder), ("skipped" | "failed", None), or an exit
    status (1, 130) with None when the whole command must stop, each said on stderr."""
    try:
        folder = reproduce(
            figure,
            args.scale,
            device,
            out,
            progress=not args.no_progress,
            collect=args.collect,
            jobs=jobs,
            scheduler=client,
            keep_stale=args.keep_stale,
        )
    except KeyboardInterrupt:
        print(
            f"\ninterrupted during {figure}; finished items are stored, run the same command to resume", file=sys.stderr
        )
        return 130, None
    except ImportError as exc:
        print(f"{figure}: skipped, its module is not available ({exc})", file=sys.stderr)
        return "skipped", None
    except LookupError as exc:
        print(f"{figure}: skipped, {exc}", file=sys.stderr)
        return "failed", None
    except cluster.EngineError as exc:
        print(f"error: {figure}: {exc}", file=sys.stderr)
        return 1, None
    except OSError as exc:
        name = f" {exc.filename}" if getattr(exc, "filename", None) else ""
        print(
            f"error: {figure}: cannot write{name}: {exc.strerror or exc}; finished items are stored, "
            "run the same command to resume once it is fixed",
            file=sys.stderr,
        )
        return 1, None
    return "produced", folder


if __name__ == "__main__":
    sys.exit(main())
