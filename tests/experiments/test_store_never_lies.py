"""The result store never lies and never deletes: a record is reused only if it was made by the
same code (its figure's source, torch, numpy), the provenance says which records came from
which commit, and whatever cannot be used is named and moved to ``quarantine/``, never deleted.
``--collect`` (``compute=False``) changes nothing."""

import importlib
import json
import os
import sys
import threading

import pandas as pd
import pytest

from resnet_nb.experiments import engine
from resnet_nb.shared import store

FIGURE_SOURCE = """
SCALES = {"default": {"xs": [1, 2, 3]}}
CALLS = []


def configurations(config):
    return [{"figure": "figsrc", "x": x} for x in config["xs"]]


def run_one(item, device="cpu"):
    CALLS.append(item["x"])
    return [{"x": item["x"], "y": item["x"] * FACTOR}]


FACTOR = 2
"""


@pytest.fixture
def source_figure(tmp_path, monkeypatch):
    """A figure module with a source file that the test can edit."""
    folder = tmp_path / "src"
    folder.mkdir()
    (folder / "figsrc.py").write_text(FIGURE_SOURCE)
    monkeypatch.syspath_prepend(str(folder))
    sys.modules.pop("figsrc", None)
    module = importlib.import_module("figsrc")
    yield module, folder / "figsrc.py"
    sys.modules.pop("figsrc", None)


def _edit(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))


def _snapshot(folder):
    """Every path under ``folder`` with its bytes (None for what is not a regular file)."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = os.path.join(root, name)
            out[p] = open(p, "rb").read() if os.path.isfile(p) and not os.path.islink(p) else None
    return out


def _rewrite(path, change):
    """Apply ``change`` to a record's body and recompute its checksum (a sound record)."""
    rec = json.loads(path.read_text())
    change(rec["body"])
    rec["checksum"] = store.record_checksum(rec["body"])
    path.write_text(json.dumps(rec))


def test_a_record_made_by_other_code_of_its_figure_is_named_set_aside_and_recomputed(tmp_path, source_figure, capsys):
    module, path = source_figure
    store_dir = tmp_path / "records"
    engine.run_items(module, module.SCALES["default"], store_dir=store_dir, progress=False)
    assert module.CALLS == [1, 2, 3]
    _edit(path, "FACTOR = 2", "FACTOR = 3")  # the code changes (a docstring edit would not count)
    module = importlib.reload(module)
    capsys.readouterr()
    table = engine.run_items(module, module.SCALES["default"], store_dir=store_dir, progress=False)
    assert module.CALLS == [1, 2, 3]  # every item recomputed with the new code
    assert table["y"].tolist() == [3, 6, 9]
    err = capsys.readouterr().err
    assert "3 record(s) made by other code" in err and "made by other code of figsrc" in err
    kept = sorted(p.name for p in (store_dir / store.QUARANTINE).iterdir())
    assert len(kept) == 3 and all(n.endswith(".json.outdated") for n in kept)  # nothing deleted


def test_a_prose_edit_of_the_figure_keeps_its_records(tmp_path, source_figure):
    module, path = source_figure
    store_dir = tmp_path / "records"
    engine.run_items(module, module.SCALES["default"], store_dir=store_dir, progress=False)
    _edit(path, 'def run_one(item, device="cpu"):\n', 'def run_one(item, device="cpu"):\n    """Prose."""\n')
    module = importlib.reload(module)
    engine.run_items(module, module.SCALES["default"], store_dir=store_dir, progress=False)
    assert module.CALLS == []


def test_a_record_made_with_another_torch_is_named_and_recomputed_and_provenance_names_commits(
    tmp_path, fake_module, capsys
):
    calls = []
    mod = fake_module(calls)
    engine.run_items(mod, {"xs": [1, 2, 3]}, store_dir=tmp_path, progress=False)
    old = tmp_path / f"{store.item_key({'figure': 'fake', 'x': 2})}.json"

    def older(body):  # review case d06: another commit, a modified package, torch 1.0.0
        body["provenance"]["git"] = {"commit": "0" * 40, "package_modified": True}
        body["provenance"]["versions"]["torch"] = "1.0.0"

    _rewrite(old, older)
    calls.clear()
    capsys.readouterr()
    table = engine.run_items(mod, {"xs": [1, 2, 3]}, store_dir=tmp_path, progress=False)
    assert calls == [2]
    assert f"{old.name}: torch 1.0.0 (now " in capsys.readouterr().err
    prov = engine.write_summary(tmp_path / "out", "fake", "default", {}, table, "cpu", 0.0, tmp_path)
    assert prov["items"] == 3 and prov["stale_records"] == [] and prov["outdated_records"] == [old.name]
    assert "0" * 40 + " (modified)" not in prov["records_by_commit"]


def test_keep_stale_reuses_records_of_other_versions_and_lists_them_in_the_provenance(tmp_path, fake_module):
    calls = []
    mod = fake_module(calls)
    engine.run_items(mod, {"xs": [1, 2]}, store_dir=tmp_path, progress=False)
    old = tmp_path / f"{store.item_key({'figure': 'fake', 'x': 2})}.json"

    def older(body):
        body["provenance"]["git"] = {"commit": "a" * 40, "package_modified": False}
        body["provenance"]["versions"]["numpy"] = "1.0"

    _rewrite(old, older)
    calls.clear()
    table = engine.run_items(mod, {"xs": [1, 2]}, store_dir=tmp_path, progress=False, keep_stale=True)
    assert calls == [] and table["y"].tolist() == [1, 4]
    prov = engine.write_summary(tmp_path / "out", "fake", "default", {}, table, "cpu", 0.0, tmp_path)
    assert prov["stale_records"] == [old.name]
    assert prov["records_by_commit"]["a" * 40] == [old.stem]
    assert sum(len(v) for v in prov["records_by_commit"].values()) == 2
    assert any("numpy 1.0" in v for v in prov["records_by_versions"])


@pytest.mark.parametrize("damage, reason", [("newer_format", "newer"), ("swapped", "foreign"), ("half", "truncated")])
def test_an_unusable_record_is_moved_to_quarantine_never_deleted(tmp_path, fake_module, damage, reason):
    mod = fake_module([])
    engine.run_items(mod, {"xs": [1, 2]}, store_dir=tmp_path, progress=False)
    path = tmp_path / f"{store.item_key({'figure': 'fake', 'x': 2})}.json"
    if damage == "newer_format":  # review case d-h: as a newer version would write it
        _rewrite(path, lambda body: body.update(format=store.RECORD_FORMAT + 1))
    elif damage == "swapped":  # review case d-k: the sound record of another item
        path.write_bytes((tmp_path / f"{store.item_key({'figure': 'fake', 'x': 1})}.json").read_bytes())
    else:
        path.write_text(path.read_text()[:40])
    before = path.read_bytes()
    table = engine.run_items(mod, {"xs": [1, 2]}, store_dir=tmp_path, progress=False)
    assert table["y"].tolist() == [1, 4]
    assert (tmp_path / store.QUARANTINE / f"{path.name}.{reason}").read_bytes() == before


def test_collect_changes_nothing_in_the_store(tmp_path, fake_module, capsys):
    calls = []
    mod = fake_module(calls)
    engine.run_items(mod, {"xs": [1, 2, 3, 4]}, store_dir=tmp_path, progress=False)
    keys = [store.item_key({"figure": "fake", "x": x}) for x in (1, 2, 3)]
    (tmp_path / f"{keys[0]}.json").write_text("{")  # truncated
    _rewrite(tmp_path / f"{keys[1]}.json", lambda b: b.update(format=store.RECORD_FORMAT + 1))  # newer
    _rewrite(tmp_path / f"{keys[2]}.json", lambda b: b["provenance"]["versions"].update(torch="1.0.0"))  # outdated
    (tmp_path / "notes.txt").write_text("mine")  # a stray file
    before = _snapshot(tmp_path)
    calls.clear()
    capsys.readouterr()
    table = engine.run_items(mod, {"xs": [1, 2, 3, 4]}, store_dir=tmp_path, progress=False, compute=False)
    assert calls == [] and _snapshot(tmp_path) == before
    assert table["x"].tolist() == [4] and table.attrs["missing"] == 3
    err = capsys.readouterr().err
    assert "left in place (collect changes nothing)" in err
    assert all(k in err for k in keys) and "notes.txt" in err


def test_stray_files_are_reported_set_aside_and_not_counted_as_items(tmp_path, fake_module, capsys):
    mod = fake_module([])
    engine.run_items(mod, {"xs": [1, 2]}, store_dir=tmp_path, progress=False)
    real = next(tmp_path.glob("*.json"))
    (tmp_path / "0000000000copyofrec.json").write_bytes(real.read_bytes())  # review case d-f
    (tmp_path / "stray.json").write_text("{}")
    (tmp_path / ".tmp-leftover.json").write_bytes(real.read_bytes())  # a write in progress elsewhere
    capsys.readouterr()
    table = engine.run_items(mod, {"xs": [1, 2]}, store_dir=tmp_path, progress=False)
    err = capsys.readouterr().err
    assert "0000000000copyofrec.json" in err and "stray.json" in err and ".tmp-leftover" not in err
    assert sorted(p.name for p in (tmp_path / store.QUARANTINE).iterdir()) == [
        "0000000000copyofrec.json.stray",
        "stray.json.stray",
    ]
    assert (tmp_path / ".tmp-leftover.json").exists()
    prov = engine.write_summary(tmp_path / "out", "fake", "default", {}, table, "cpu", 0.0, tmp_path)
    assert prov["items"] == 2


def test_a_sound_record_of_another_configuration_in_a_shared_store_is_left_alone(tmp_path, fake_module, capsys):
    mod = fake_module([])
    engine.run_items(mod, {"xs": [1, 2, 3]}, store_dir=tmp_path, progress=False)
    capsys.readouterr()
    engine.run_items(mod, {"xs": [1]}, store_dir=tmp_path, progress=False)  # fig8 reads fig6's store
    assert capsys.readouterr().err == "" and len(list(tmp_path.glob("*.json"))) == 3


def test_a_folder_or_fifo_where_a_record_should_be_is_named_not_a_hang_or_traceback(tmp_path, fake_module, capsys):
    mod = fake_module([])
    engine.run_items(mod, {"xs": [1, 2]}, store_dir=tmp_path, progress=False)
    k1, k2 = (store.item_key({"figure": "fake", "x": x}) for x in (1, 2))
    (tmp_path / f"{k1}.json").unlink()
    (tmp_path / f"{k1}.json").mkdir()  # review case d03
    (tmp_path / f"{k2}.json").unlink()
    os.mkfifo(tmp_path / f"{k2}.json")  # review case d05: reading it would block forever
    assert store.inspect_record(tmp_path, {"figure": "fake", "x": 2}) == (None, "not a file")
    result = {}
    worker = threading.Thread(
        target=lambda: result.update(t=engine.run_items(mod, {"xs": [1, 2]}, store_dir=tmp_path, progress=False)),
        daemon=True,
    )
    worker.start()
    worker.join(30)
    assert not worker.is_alive(), "the run hangs on a FIFO"
    assert result["t"]["y"].tolist() == [1, 4]
    err = capsys.readouterr().err
    assert f"{k1}.json: not a file" in err and f"{k2}.json: not a file" in err
    assert (tmp_path / store.QUARANTINE / f"{k1}.json.not-a-file").is_dir()


def test_an_unreadable_record_is_named_and_redone(tmp_path, fake_module, capsys, monkeypatch):
    mod = fake_module([])
    engine.run_items(mod, {"xs": [1, 2]}, store_dir=tmp_path, progress=False)
    key = store.item_key({"figure": "fake", "x": 2})
    real_open = open

    def no_permission(path, *args, **kwargs):  # review case d01 (mode 000 for a user without root)
        if str(path).endswith(f"{key}.json"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", no_permission)
    assert store.inspect_record(tmp_path, {"figure": "fake", "x": 2}) == (None, "unreadable")
    capsys.readouterr()
    table = engine.run_items(mod, {"xs": [1, 2]}, store_dir=tmp_path, progress=False)
    assert table["y"].tolist() == [1, 4] and f"{key}.json: unreadable" in capsys.readouterr().err


def test_invalid_utf8_is_named_corrupt_not_truncated(tmp_path, fake_module):
    mod = fake_module([])
    engine.run_items(mod, {"xs": [1]}, store_dir=tmp_path, progress=False)
    (path,) = tmp_path.glob("*.json")
    raw = bytearray(path.read_bytes())
    raw[10] = 0xFF  # review case d-l
    path.write_bytes(bytes(raw))
    assert store.inspect_record(tmp_path, {"figure": "fake", "x": 1}) == (None, "corrupt")


def test_summaries_are_written_atomically_under_unique_temporary_names(tmp_path):
    table = pd.DataFrame({"x": range(2000), "item_key": ["k"] * 2000})
    errors, partial = [], []
    stop = threading.Event()

    def writer():
        try:
            for _ in range(40):
                engine.write_summary(tmp_path, "fake", "default", {}, table, "cpu", 0.0, tmp_path)
        except Exception as exc:  # review case x4: FileNotFoundError from a shared temporary name
            errors.append(exc)

    def reader():  # review case x5: a reader must never see a part of table.csv
        while not stop.is_set():
            if (tmp_path / "table.csv").exists():
                n = (tmp_path / "table.csv").read_text().count("\n")
                if n != 2001:
                    partial.append(n)

    threads = [threading.Thread(target=writer) for _ in range(3)]
    r = threading.Thread(target=reader)
    r.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    r.join()
    assert errors == [] and partial == []
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp")]
