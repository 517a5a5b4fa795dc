"""The command line fails before the work, not after it: every bad input gets one line naming
what was wrong and a non-zero exit, before any item runs (cases of the reliability review)."""

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from resnet_nb import __main__ as cli
from resnet_nb.experiments import cluster, engine
from resnet_nb.shared import store

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


@pytest.fixture
def figfake(monkeypatch, fake_module):
    """The stand-in figure ``figfake`` whose computed items are listed in the returned list."""
    calls = []
    monkeypatch.setitem(sys.modules, "fake_fig_module", fake_module(calls))
    monkeypatch.setitem(engine.FIGURES, "figfake", "fake_fig_module")
    return calls


def _main(*args):
    return cli.main(["reproduce", "figfake", "--no-progress", "--jobs", "1", *args])


def test_an_empty_out_is_refused(figfake, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # review case b12: it wrote into the current folder
    assert _main("--out", "") == 2
    assert "--out must name a folder" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == [] and figfake == []


@pytest.mark.parametrize("jobs", ["99999999999999999999", str(engine.MAX_JOBS + 1)])
def test_jobs_above_the_bound_is_refused(figfake, tmp_path, capsys, jobs):
    assert cli.main(["reproduce", "figfake", "--out", str(tmp_path), "--jobs", jobs]) == 2  # review b11
    assert f"jobs must be an integer from 1 to {engine.MAX_JOBS}" in capsys.readouterr().err


def test_a_file_where_the_figure_folder_should_be_is_refused_before_any_item_runs(figfake, tmp_path, capsys):
    (tmp_path / "figfake").write_text("a file")  # review case b08
    assert _main("--out", str(tmp_path)) == 2
    err = capsys.readouterr().err
    assert "figfake" in err and "not a writable folder" in err and "Traceback" not in err
    assert figfake == []  # nothing computed and thrown away


def test_a_file_where_the_records_folder_should_be_is_refused_before_any_item_runs(figfake, tmp_path, capsys):
    (tmp_path / "figfake" / "default").mkdir(parents=True)
    (tmp_path / "figfake" / "default" / "records").write_text("a file")
    assert _main("--out", str(tmp_path)) == 2
    assert "records" in capsys.readouterr().err and figfake == []


def _as_a_user_that_obeys_permissions():
    """The command prefix that makes file permissions apply (root drops its override)."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: file permissions cannot be made to apply")
    return ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"]


def test_a_read_only_records_folder_is_refused_before_any_item_runs(tmp_path):
    records = tmp_path / "out" / "figfake" / "default" / "records"  # review case b09
    records.mkdir(parents=True)
    records.chmod(0o555)
    code = (
        "import sys, fake_figure; from resnet_nb.experiments import engine; from resnet_nb import __main__ as cli;"
        "engine.FIGURES['figfake'] = 'fake_figure';"
        "sys.exit(cli.main(['reproduce', 'figfake', '--jobs', '1', '--no-progress', '--out', "
        f"{str(tmp_path / 'out')!r}]))"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), str(ROOT)]))
    try:
        p = subprocess.run(
            [*_as_a_user_that_obeys_permissions(), sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
    finally:
        records.chmod(0o755)
    assert p.returncode == 2, p.stderr
    assert "records" in p.stderr and "not a writable folder" in p.stderr and "Traceback" not in p.stderr
    assert list(records.iterdir()) == []


def test_collect_with_nothing_to_collect_exits_non_zero(figfake, tmp_path, capsys):
    assert _main("--out", str(tmp_path), "--collect") == 1  # review case a17
    assert "nothing collected" in capsys.readouterr().err


def test_collect_refuses_a_scheduler(figfake, tmp_path, capsys):
    assert _main("--out", str(tmp_path)) == 0
    for address in ("tcp://127.0.0.1:1", "bogus:::"):  # review cases c06, c07
        assert _main("--out", str(tmp_path), "--collect", "--scheduler", address) == 2
        assert "--collect computes nothing" in capsys.readouterr().err


@pytest.mark.parametrize(
    "address, named",
    [
        ("foo", "not an address"),  # review c02
        ("tcp://127.0.0.1:notaport", "port must be a number"),  # c03
        ("http://127.0.0.1:8786", "unknown scheme 'http'"),  # c04
        ("", "got ''"),  # c05
        ("tcp://127.0.0.1:70000", "port must be a number"),
    ],
)
def test_a_malformed_scheduler_address_is_refused_at_once_before_anything_is_written(
    figfake, tmp_path, capsys, address, named
):
    out = tmp_path / "out"
    assert _main("--out", str(out), "--scheduler", address) == 2
    err = capsys.readouterr().err
    assert named in err and "Traceback" not in err
    assert not out.exists() and figfake == []


def test_an_unreachable_scheduler_is_named_quickly(monkeypatch):
    pytest.importorskip("distributed")
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"cannot reach the Dask scheduler at tcp://127\.0\.0\.1:1 "):
        cluster.connect_scheduler("tcp://127.0.0.1:1", timeout_s=2)  # review case c01
    assert time.perf_counter() - t0 < 15


def test_a_write_failure_mid_run_is_one_line_and_keeps_the_finished_items(figfake, tmp_path, capsys, monkeypatch):
    real = store.write_record

    def disk_full(store_dir, item, rows, prov):
        if item["x"] == 3:
            raise OSError(28, "No space left on device", str(Path(store_dir) / "x.json"))
        return real(store_dir, item, rows, prov)

    monkeypatch.setattr(engine, "write_record", disk_full)
    assert _main("--out", str(tmp_path)) == 1
    err = capsys.readouterr().err
    assert "No space left on device" in err and "run the same command to resume" in err
    assert len(list((tmp_path / "figfake" / "default" / "records").glob("*.json"))) == 2


@pytest.mark.parametrize(
    "device, named",
    [("cudafoo", "cuda:N"), ("cuda:abc", "cuda:N"), ("cuda:-1", "cuda:N"), ("cuda ", "cuda:N"), ("cuda:2", "2 CUDA")],
)
def test_a_malformed_or_absent_cuda_device_is_refused_where_cuda_exists(monkeypatch, device, named):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)  # review case a11 (a static finding)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    with pytest.raises(ValueError, match=re.escape(named)):
        engine.require_device(device)
    assert engine.require_device("cuda:1") == "cuda:1" and engine.require_device("cuda") == "cuda"
