"""The Dask path of the experiment chapters' engine (book/exp_*.ipynb): the work items of a figure on
a Dask cluster (``python -m resnet_nb reproduce ... --scheduler tcp://host:8786``), with the
scheduler's address checked and reached before any work.
"""

from __future__ import annotations

from pathlib import Path

from resnet_nb.experiments.progress import item_cost
from resnet_nb.shared.store import inspect_record, item_key, write_record

__all__ = ["EngineError", "run_on_dask", "require_scheduler_address", "connect_scheduler"]


class EngineError(RuntimeError):
    """A run that cannot go on (a store it cannot write, a Dask scheduler lost); the message
    names what was wrong and says what was kept."""


def run_on_dask(module, todo, device, store_dir, scheduler, bar=None) -> dict:
    """Run the items ``todo`` on a Dask cluster; return ``{item key: (rows, wall, provenance)}``.

    Each item is one task. The worker that runs it writes its record to ``store_dir`` made
    absolute here (a folder every worker reaches, e.g. a shared file system, spares the
    transfer), and the client writes every record it receives that it does not find in its own
    store: the records land in the client's store whatever the workers' working folders. Dask
    reschedules the task of a worker that is lost mid-item on another worker (its records
    already written are kept), up to the scheduler's ``allowed-failures``. Losing the
    scheduler raises :class:`EngineError` (finished records are kept; rerun to resume). Needs
    the optional extra ``distributed`` (``pip install 'resnet_nb[dask]'``).
    """
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ImportError(
            "scheduler= needs the optional package 'distributed' (pip install 'resnet_nb[dask]')"
        ) from None
    from resnet_nb.experiments import engine
    from resnet_nb.experiments.identity import code_identity

    name = engine.importable_name(module, "a Dask run")
    own = not isinstance(scheduler, Client)
    client = connect_scheduler(scheduler) if own else scheduler
    address = getattr(client, "scheduler", None) and client.scheduler.address
    store = None if store_dir is None else str(Path(store_dir).resolve())
    try:
        queue = sorted(todo, key=lambda i: -item_cost(module, i))
        expected = code_identity(module)
        futures = {}
        for item in queue:
            fut = client.submit(
                engine.compute_item,
                name,
                item,
                device,
                store,
                expected,
                True,
                pure=False,
                key=f"{name.rsplit('.', 1)[-1]}-{item_key(item)}",
            )
            futures[fut] = item
            if bar is not None:
                bar.start(item)
        return _gather(futures, as_completed, store, bar, address, len(queue))
    finally:
        if own:
            client.close()


def _gather(futures, as_completed, store, bar, address, n_items) -> dict:
    """Collect the items' results as they finish, writing into the client's ``store`` each record
    it does not hold (the worker's folder is not the client's); a lost scheduler is an
    :class:`EngineError` that says how many items are stored."""
    from concurrent.futures import CancelledError

    out = {}
    try:
        for fut in as_completed(list(futures)):
            item = futures[fut]
            rows, wall, prov = fut.result()
            if store is not None and prov is not None and inspect_record(store, item)[0] is None:
                write_record(store, item, rows, prov)
            out[item_key(item)] = (rows, wall, prov)
            if bar is not None:
                bar.finish(item, wall, computed=prov is not None)
    except (CancelledError, OSError, TimeoutError) as exc:
        reason = str(exc).split("\n")[0][:200] or type(exc).__name__
        raise EngineError(
            f"lost the Dask scheduler at {address} ({type(exc).__name__}: {reason}); "
            f"{len(out)} of {n_items} items of this run are stored, run the same command to resume"
        ) from None
    return out


def require_scheduler_address(address) -> str:
    """``address`` if it is a Dask scheduler address ``tcp://host:port`` (or ``tls://``), else
    ValueError naming it and what is wrong."""
    import re

    if not isinstance(address, str):
        raise ValueError(f"scheduler must be an address like tcp://host:8786, got {address!r}")
    m = re.fullmatch(r"(?:(tcp|tls)://)?(\[[0-9a-fA-F:]+\]|[A-Za-z0-9_.-]+):([^:/]*)/?", address.strip())
    if not address.strip():
        raise ValueError("scheduler must be an address like tcp://host:8786, got ''")
    if "://" in address and not address.startswith(("tcp://", "tls://")):
        raise ValueError(f"scheduler {address!r}: unknown scheme {address.split('://')[0]!r} (use tcp:// or tls://)")
    if m is None:
        raise ValueError(f"scheduler {address!r} is not an address like tcp://host:8786 (host and port)")
    if not m.group(3).isdigit() or not 1 <= int(m.group(3)) <= 65535:
        raise ValueError(f"scheduler {address!r}: the port must be a number from 1 to 65535, got {m.group(3)!r}")
    return address.strip() if m.group(1) else f"tcp://{address.strip()}"


def connect_scheduler(address, timeout_s: float = 10.0):
    """A ``distributed.Client`` connected to the scheduler at ``address`` (checked first by
    :func:`require_scheduler_address`); ValueError naming the address if it cannot be reached
    within ``timeout_s`` seconds, ImportError if distributed is not installed."""
    address = require_scheduler_address(address)
    try:
        from distributed import Client
    except ImportError:
        raise ImportError(
            "--scheduler needs the optional package 'distributed' (pip install 'resnet_nb[dask]')"
        ) from None
    import logging

    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)
    try:
        return Client(address, timeout=timeout_s)
    except (OSError, TimeoutError) as exc:
        raise ValueError(
            f"cannot reach the Dask scheduler at {address} within {timeout_s:g} s "
            f"({type(exc).__name__}); is it running, and is the address right?"
        ) from None
    finally:
        quiet.setLevel(level)
