"""Execute each chapter once, on every core, and replay it while nothing it depends on changed.

A Sphinx extension (listed under ``local_extensions`` in ``_config.yml``). The chapters need
myst-nb's *inline* execution, because their ``{eval}`` roles read variables of the running
kernel; myst-nb's own cache (jupyter-cache) does not support ``{eval}``. This extension wraps the
inline client:

* **record**: the notebook is executed inline as before; every code cell's outputs and every
  ``{eval}`` result are recorded in the order the page asks for them, and written to
  ``.cache/exec/<chapter>.json`` when the notebook ran without an error;
* **replay**: when a record exists whose key matches, nothing is executed: the outputs and the
  ``{eval}`` results are served from the record, in the same order.

The key is a SHA-256 of the notebook's cells, of every file of the package ``resnet_nb``, of the
committed results the chapters read (``results/``, mutation records aside), of the lock
``requirements.txt`` and of the ``RESNET_NB_*`` environment variables; so a change to the
package invalidates every chapter, not only a change to a cell. ``RESNET_NB_EXEC_CACHE=0``
turns replay off (every chapter executes and is recorded again).

It also makes the read phase parallel-friendly: each document is its own task, the longest
(by the last recorded time) first, so that ``sphinx -j N`` keeps every core busy; and it writes
one line per executed or replayed chapter to ``_build/exec_times.tsv``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
from pathlib import Path

import nbformat
from sphinx.util import logging

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "exec"
TIMES = ROOT / "_build" / "exec_times.tsv"
_DEPENDENCIES = ("resnet_nb", "results", "requirements.txt", "pyproject.toml")
_SKIP_PARTS = {"__pycache__", "mutation", ".ipynb_checkpoints"}

log = logging.getLogger(__name__)
_dep_hash: str | None = None


def dependency_hash() -> str:
    """SHA-256 over the package, the committed results, the lock and RESNET_NB_* variables."""
    global _dep_hash
    if _dep_hash is None:
        h = hashlib.sha256()
        for name in _DEPENDENCIES:
            base = ROOT / name
            files = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
            for p in files:
                rel = p.relative_to(ROOT)
                if _SKIP_PARTS & set(rel.parts) or p.suffix == ".pyc":
                    continue
                h.update(str(rel).encode() + b"\0" + p.read_bytes() + b"\0")
        for k in sorted(os.environ):
            if k.startswith("RESNET_NB_") and k != "RESNET_NB_EXEC_CACHE":
                h.update(f"{k}={os.environ[k]}\0".encode())
        _dep_hash = h.hexdigest()
    return _dep_hash


def notebook_key(notebook) -> str:
    """SHA-256 of what executing the notebook depends on: its cells and the dependencies."""
    cells = [(c["cell_type"], c["source"], c.get("metadata", {})) for c in notebook.cells]
    kernel = notebook.metadata.get("kernelspec", {}).get("name", "")
    blob = json.dumps([cells, kernel, dependency_hash()], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def _record_path(path: Path) -> Path:
    return CACHE / (path.stem + ".json")


def _load(path: Path, key: str):
    """The record for ``path`` if it exists, is complete and matches ``key``; else None."""
    f = _record_path(path)
    if not f.is_file():
        return None
    try:
        rec = json.loads(f.read_text(encoding="utf8"))
    except (OSError, ValueError):
        log.warning(f"exec-cache: unreadable record {f} ignored; the chapter runs again")
        return None
    if rec.get("key") != key or rec.get("complete") is not True:
        return None
    return rec


def _time_line(path: Path, how: str, seconds: float) -> None:
    TIMES.parent.mkdir(parents=True, exist_ok=True)
    with open(TIMES, "a", encoding="utf8") as fh:
        fh.write(f"{path.stem}\t{how}\t{seconds:.1f}\n")


def _kill(process, path) -> None:
    """Kill a kernel process that did not stop when asked (see ``close_client``)."""
    if process is not None and process.poll() is None:
        log.info(f"exec-cache: the kernel of {path.stem} did not stop within 30 s; killing it")
        process.kill()


def wait_in_slices(get_msg, step: float = 1.0):
    """``get_msg(timeout)`` of a kernel channel, waiting at most ``step`` seconds at a time."""
    from queue import Empty

    async def get_msg_in_slices(timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = step if deadline is None else max(0.0, min(step, deadline - time.monotonic()))
            try:
                return await get_msg(timeout=left)
            except Empty:
                if deadline is not None and time.monotonic() >= deadline:
                    raise

    return get_msg_in_slices


#: kernels started for one chapter before its execution is given up
KERNEL_STARTS = 3


def _install() -> None:
    """Wrap myst-nb's client factory (once per process)."""
    from myst_nb import sphinx_ as mystnb_sphinx
    from myst_nb.core.execute import NotebookClientBase
    from myst_nb.core.execute.base import EvalNameError
    from myst_nb.core.execute.inline import NotebookClientInline

    if getattr(mystnb_sphinx, "_exec_cache_installed", False):
        return
    original = mystnb_sphinx.create_client

    class RecordingClient(NotebookClientInline):
        """Inline execution that records outputs and ``{eval}`` results."""

        def start_client(self):
            self._evals: list = []
            self._t0 = time.perf_counter()
            # A kernel that does not answer its first request within nbclient's start-up limit
            # (60 s; a healthy one answers in under a second) is shut down by nbclient, which
            # raises RuntimeError: start a fresh one instead of failing the build (twice at most).
            for attempt in range(1, KERNEL_STARTS + 1):
                try:
                    super().start_client()
                    break
                except RuntimeError as exc:
                    if attempt == KERNEL_STARTS:
                        raise
                    log.info(f"exec-cache: kernel start {attempt} of {self.path.stem} failed ({exc}); starting anew")
            # The chapter is recorded before the kernel stops; a graceful shutdown request was
            # seen to leave the build waiting about 300 s for a kernel that had finished
            # (hardt_ma_expressivity, twice). Stop the kernel at once instead.
            self._client.shutdown_kernel = "immediate"
            # A widget cell could leave the client waiting on a reply that had arrived: a wait on
            # a zmq.asyncio socket that misses its wake-up sleeps until its timeout (300 s here;
            # nbclient issue 312). Waiting in one-second slices looks again every second.
            for channel in (self._client.kc.shell_channel, self._client.kc.iopub_channel):
                channel.get_msg = wait_in_slices(channel.get_msg)

        def code_cell_outputs(self, cell_index):
            from myst_nb.core.execute import ExecutionError

            try:
                return super().code_cell_outputs(cell_index)
            except ExecutionError as err:
                # a parallel build passes only the message to the main process: put the cell's
                # error (source and traceback) into it
                raise ExecutionError(f"{self.path}: cell {cell_index} failed:\n{err.__cause__}") from err

        def eval_variable(self, name: str):
            outputs = super().eval_variable(name)
            self._evals.append([name, [dict(o) for o in outputs]])
            return outputs

        def close_client(self, exc_type, exc_val, exc_tb):
            # a watchdog: should stopping the kernel still hang, kill its process after 30 s
            process = getattr(getattr(getattr(self._client, "km", None), "provisioner", None), "process", None)
            watchdog = threading.Timer(30.0, _kill, args=(process, self.path))
            watchdog.start()
            try:
                super().close_client(exc_type, exc_val, exc_tb)
            finally:
                watchdog.cancel()
            seconds = time.perf_counter() - self._t0
            _time_line(self.path, "executed", seconds)
            log.info(f"exec-cache: {self.path.stem} executed in {seconds:.1f} s")
            if exc_type is not None or self._cell_error is not None:
                return
            cells = self.notebook.cells
            rec = {
                "key": self._key,
                "complete": True,
                "seconds": round(seconds, 2),
                "cells": [
                    {"execution_count": c.get("execution_count"), "outputs": c.get("outputs", [])}
                    if c["cell_type"] == "code"
                    else None
                    for c in cells
                ],
                "evals": self._evals,
                "metadata": {k: v for k, v in self.notebook.metadata.items() if k in ("widgets", "language_info")},
            }
            CACHE.mkdir(parents=True, exist_ok=True)
            tmp = _record_path(self.path).with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(rec, default=_jsonable), encoding="utf8")
            os.replace(tmp, _record_path(self.path))

    class ReplayClient(NotebookClientBase):
        """Serve a recorded execution: no kernel, the same outputs and ``{eval}`` values."""

        def start_client(self):
            rec = self._record
            for cell, saved in zip(self.notebook.cells, rec["cells"]):
                if cell["cell_type"] == "code" and saved is not None:
                    cell["outputs"] = [nbformat.from_dict(o) for o in saved["outputs"]]
                    cell["execution_count"] = saved["execution_count"]
            self.notebook.metadata.update(nbformat.from_dict(rec["metadata"]))
            self._evals = list(rec["evals"])
            self._t0 = time.perf_counter()

        def eval_variable(self, name: str):
            if not re.match(self.nb_config.eval_name_regex, name):
                raise EvalNameError(name)
            if not self._evals or self._evals[0][0] != name:
                want = self._evals[0][0] if self._evals else "nothing"
                raise RuntimeError(
                    f"exec-cache: the record of {self.path.name} expected the "
                    f"expression {want!r} next, the page asked for {name!r}; "
                    f"delete {_record_path(self.path)} and build again"
                )
            return [nbformat.from_dict(o) for o in self._evals.pop(0)[1]]

        def close_client(self, exc_type, exc_val, exc_tb):
            seconds = time.perf_counter() - self._t0
            _time_line(self.path, "replayed", seconds)
            self.exec_metadata = {
                "mtime": time.time(),
                "runtime": self._record.get("seconds", 0.0),
                "method": "inline (replayed)",
                "succeeded": True,
                "error": None,
                "traceback": None,
            }

    def create_client(notebook, source, nb_config, logger, read_fmt=None):
        client = original(notebook, source, nb_config, logger, read_fmt)
        if not isinstance(client, NotebookClientInline) or client.path is None:
            return client
        key = notebook_key(notebook)
        rec = None if os.environ.get("RESNET_NB_EXEC_CACHE", "1") == "0" else _load(client.path, key)
        if rec is not None:
            replay = ReplayClient(notebook, client.path, nb_config, logger)
            replay._record = rec
            log.info(f"exec-cache: {client.path.stem} replayed from {_record_path(client.path)}")
            return replay
        recording = RecordingClient(notebook, client.path, nb_config, logger)
        recording._key = key
        return recording

    mystnb_sphinx.create_client = create_client
    mystnb_sphinx._exec_cache_installed = True


def _jsonable(obj):
    if isinstance(obj, bytes):
        return obj.decode("utf8", "replace")
    raise TypeError(f"cannot store {type(obj).__name__} in an execution record")


def _expected_seconds(docname: str) -> float:
    f = CACHE / (Path(docname).name + ".json")
    try:
        return float(json.loads(f.read_text(encoding="utf8")).get("seconds", 0.0))
    except (OSError, ValueError):
        return 60.0 if docname.endswith(".ipynb") or "/" in docname else 0.0


def _one_task_per_document(arguments, nproc, maxbatch=10):
    """Sphinx's chunks, one document each, the longest first (dynamic load balancing)."""
    return [[d] for d in sorted(arguments, key=_expected_seconds, reverse=True)]


def _builder_inited(app) -> None:
    # Two extensions of Jupyter Book do not declare parallel safety; both only register nodes,
    # transforms and a section-numbering hook that runs in the main process.
    for name in ("sphinx_multitoc_numbering", "sphinx_jupyterbook_latex"):
        ext = app.extensions.get(name)
        if ext is not None and ext.parallel_read_safe is None:
            ext.parallel_read_safe = True
    if app.parallel > 1:
        import sphinx.builders as builders
        from sphinx_proof.domain import ProofDomain

        # sphinx-proof declares parallel reading safe but its domain lacks merge_domaindata;
        # its domain data is empty (the proofs live in env.proof_list, merged by its own
        # env-merge-info handler), so there is nothing to merge.
        if "merge_domaindata" not in ProofDomain.__dict__:
            ProofDomain.merge_domaindata = lambda self, docnames, otherdata: None

        builders.make_chunks = _one_task_per_document


def setup(app):
    _install()
    app.connect("builder-inited", _builder_inited)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
