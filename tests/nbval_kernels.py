"""Starting nbval's kernels: a kernel that does not answer is replaced, and its log is kept.

nbval starts one kernel per notebook and waits ``--nbval-kernel-startup-timeout`` seconds (60)
for its ``kernel_info_reply``; a kernel that stays silent turns every cell of that notebook into
an error, and nbval sends the kernel's stderr to ``/dev/null``, so nothing says why. A healthy
kernel here answers in about half a second (300 starts, two at a time, with both cores busy:
median 0.63 s, slowest 0.85 s), so a silent one is stuck, not slow.

``start_with_retries`` wraps nbval's own start function: the kernel's stderr goes to a log file;
a start that times out is shut down (nbval does that) and a fresh kernel is started, up to
``attempts`` times; each retry is reported as a warning that names the log; if every attempt
fails, the error says how many were made and quotes the end of the last log.
"""

from __future__ import annotations

import itertools
import os
import warnings
from collections.abc import Callable
from pathlib import Path

LOG_DIR = Path(__file__).resolve().parent.parent / "_build" / "nbval-kernels"
_counter = itertools.count(1)


class KernelStartRetried(UserWarning):
    """A notebook's first kernel did not answer and was replaced by a fresh one."""


def _tail(path: Path, lines: int = 20) -> str:
    try:
        text = path.read_text(errors="replace").splitlines()
    except OSError:
        return "(no log)"
    return "\n".join(text[-lines:]) or "(the kernel wrote nothing to stderr)"


def start_with_retries(
    start: Callable[..., tuple],
    attempts: int = 3,
    log_dir: Path = LOG_DIR,
) -> Callable[..., tuple]:
    """Return a start function that calls ``start`` up to ``attempts`` times.

    ``start(startup_timeout, kernel_name, **kwargs)`` is nbval's ``start_new_kernel``: it returns
    ``(manager, client)`` or raises ``RuntimeError`` after shutting the silent kernel down.
    """
    if attempts < 1:
        raise ValueError(f"attempts must be at least 1, got {attempts}")

    def start_kernel(startup_timeout=60, kernel_name="python", **kwargs):
        log_dir.mkdir(parents=True, exist_ok=True)
        error = None
        for attempt in range(1, attempts + 1):
            log = log_dir / f"kernel-{os.getpid()}-{next(_counter)}.log"
            with open(log, "w") as stderr:
                try:
                    started = start(startup_timeout, kernel_name, **{**kwargs, "stderr": stderr})
                except RuntimeError as exc:
                    error = exc
                    if attempt < attempts:
                        warnings.warn(
                            f"kernel start {attempt} of {attempts} failed ({exc}); starting a fresh "
                            f"kernel (its stderr: {log})",
                            KernelStartRetried,
                            stacklevel=2,
                        )
                    continue
            return started
        raise RuntimeError(
            f"no kernel answered in {attempts} starts of {startup_timeout} s each ({error}); "
            f"the last one's stderr ({log}):\n{_tail(log)}"
        )

    start_kernel.__wrapped__ = start
    return start_kernel
