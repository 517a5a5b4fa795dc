"""A notebook whose first kernel never answers is run by a fresh kernel, not reported as all errors
(``tests/nbval_kernels.py``, installed by the root ``conftest.py``)."""

import os
import textwrap

import nbval.kernel
import pytest
from nbval_kernels import KernelStartRetried, start_with_retries

#: nbval's own start function (the root conftest.py has wrapped the module's name)
nbval_start = getattr(nbval.kernel.start_new_kernel, "__wrapped__", nbval.kernel.start_new_kernel)


class _Silent:
    """A stand-in for nbval's start function: silent for the first ``silent`` calls."""

    def __init__(self, silent):
        self.silent, self.calls = silent, []

    def __call__(self, startup_timeout, kernel_name, **kwargs):
        self.calls.append(kwargs)
        print(f"start {len(self.calls)}", file=kwargs["stderr"], flush=True)
        if len(self.calls) <= self.silent:
            raise RuntimeError(f"Kernel didn't respond in {startup_timeout} seconds")
        return "manager", "client"


def test_a_silent_first_kernel_is_replaced_and_the_retry_is_reported(tmp_path):
    start = _Silent(silent=1)
    with pytest.warns(KernelStartRetried, match="kernel start 1 of 3 failed"):
        assert start_with_retries(start, log_dir=tmp_path)(60, "python3") == ("manager", "client")
    assert len(start.calls) == 2


def test_each_kernel_writes_its_stderr_to_its_own_log(tmp_path):
    start = _Silent(silent=2)
    with pytest.warns(KernelStartRetried):
        start_with_retries(start, log_dir=tmp_path)(60, "python3", cwd="book")
    logs = sorted(p.read_text() for p in tmp_path.glob("kernel-*.log"))
    assert logs == ["start 1\n", "start 2\n", "start 3\n"]
    assert all(call["cwd"] == "book" for call in start.calls)  # other arguments pass through


def test_a_kernel_silent_every_time_fails_with_the_count_and_its_last_log(tmp_path):
    start = _Silent(silent=5)
    with pytest.warns(KernelStartRetried), pytest.raises(RuntimeError, match="no kernel answered in 3 starts") as err:
        start_with_retries(start, log_dir=tmp_path)(60, "python3")
    assert len(start.calls) == 3
    assert "start 3" in str(err.value)


def test_a_healthy_kernel_starts_once_without_a_warning(tmp_path, recwarn):
    start = _Silent(silent=0)
    start_with_retries(start, log_dir=tmp_path)(60, "python3")
    assert len(start.calls) == 1 and not recwarn.list


def test_attempts_must_be_positive():
    with pytest.raises(ValueError, match=r"attempts.*got 0"):
        start_with_retries(_Silent(0), attempts=0)


def test_a_real_kernel_stuck_at_import_is_replaced_by_one_that_runs_code(tmp_path):
    """The first kernel imports a sitecustomize that sleeps; nbval gives up on it after 3 s and
    shuts it down; the second kernel starts normally and executes a cell."""
    stuck = tmp_path / "stuck"
    stuck.mkdir()
    (stuck / "sitecustomize.py").write_text(
        textwrap.dedent("""\
            import sys, time
            print("stuck on purpose", file=sys.stderr, flush=True)
            time.sleep(600)
            """)
    )
    attempts = []

    def start(startup_timeout, kernel_name, **kwargs):
        attempts.append(startup_timeout)
        if len(attempts) == 1:
            return nbval_start(3, kernel_name, env={**os.environ, "PYTHONPATH": str(stuck)}, **kwargs)
        return nbval_start(startup_timeout, kernel_name, **kwargs)

    with pytest.warns(KernelStartRetried, match="failed"):
        km, kc = start_with_retries(start, log_dir=tmp_path / "logs")(60, ":nbval-parent-env")
    try:
        reply = kc.execute_interactive("print(6 * 7)", timeout=30, output_hook=lambda msg: None)
        assert reply["content"]["status"] == "ok"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert len(attempts) == 2
    logs = sorted((tmp_path / "logs").glob("kernel-*.log"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))
    assert "stuck on purpose" in logs[0].read_text()
    assert "stuck on purpose" not in logs[1].read_text()
