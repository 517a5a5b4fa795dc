"""The engine's result store (resnet_nb.experiments.engine): records survive, resume, and damaged
ones are detected and redone; the one figure runner and the one record reader."""

import json

import pandas as pd
import pytest

from resnet_nb.experiments import engine
from resnet_nb.shared import store


def test_item_key_depends_on_content_not_order():
    assert store.item_key({"a": 1, "b": [1, 2]}) == store.item_key({"b": [1, 2], "a": 1})
    assert store.item_key({"a": 1}) != store.item_key({"a": 2})
    with pytest.raises(ValueError, match=r"\bitem must"):
        store.item_key([1])


def test_records_round_trip_and_no_recompute(tmp_path, fake_module):
    calls = []
    mod = fake_module(calls)
    t1 = engine.run_items(mod, mod.SCALES["default"], store_dir=tmp_path, progress=False)
    assert calls == [1, 2, 3, 4]
    t2 = engine.run_items(mod, mod.SCALES["default"], store_dir=tmp_path, progress=False)
    assert calls == [1, 2, 3, 4]  # nothing recomputed
    pd.testing.assert_frame_equal(t1, t2)
    assert t1["y"].tolist() == [1, 4, 9, 16]
    rec = json.loads(next(tmp_path.glob("*.json")).read_text())
    prov = rec["body"]["provenance"]
    for key in ("git", "versions", "machine", "device", "wall_time_s", "finished_utc"):
        assert key in prov
    assert "torch" in prov["versions"]


def test_interrupted_run_resumes_without_losing_work(tmp_path, fake_module):
    calls = []
    with pytest.raises(KeyboardInterrupt):
        engine.run_items(fake_module(calls, fail_at=3), {"xs": [1, 2, 3, 4]}, store_dir=tmp_path, progress=False)
    assert calls == [1, 2, 3]
    assert len(list(tmp_path.glob("*.json"))) == 2
    calls.clear()
    table = engine.run_items(fake_module(calls), {"xs": [1, 2, 3, 4]}, store_dir=tmp_path, progress=False)
    assert calls == [3, 4]
    assert sorted(table["y"]) == [1, 4, 9, 16]


@pytest.mark.parametrize(
    "damage, reason",
    [
        ("truncate", "truncated"),
        ("edit_number", "tampered"),
        ("garbage", "corrupt"),
        ("old_format", "stale"),
        ("foreign_item", "foreign"),
    ],
)
def test_damaged_record_is_reported_by_kind_and_redone(tmp_path, capsys, damage, reason, fake_module):
    calls = []
    mod = fake_module(calls)
    engine.run_items(mod, {"xs": [1, 2]}, store_dir=tmp_path, progress=False)
    path = tmp_path / f"{store.item_key({'figure': 'fake', 'x': 2})}.json"
    text = path.read_text()
    if damage == "truncate":
        path.write_text(text[: len(text) // 2])
    elif damage == "edit_number":
        path.write_text(text.replace('"y":4', '"y":5'))
        assert '"y":5' in path.read_text()
    elif damage == "garbage":
        path.write_bytes(b"\x00\xff not json")
    elif damage == "old_format":  # a sound record of an earlier record format
        rec = json.loads(text)
        rec["body"]["format"] = store.RECORD_FORMAT - 1
        rec["checksum"] = store.record_checksum(rec["body"])
        path.write_text(json.dumps(rec))
    else:  # a valid record of item 1 under the name of item 2
        other = tmp_path / f"{store.item_key({'figure': 'fake', 'x': 1})}.json"
        path.write_text(other.read_text())
    assert store.inspect_record(tmp_path, {"figure": "fake", "x": 2}) == (None, reason)
    calls.clear()
    capsys.readouterr()
    table = engine.run_items(mod, {"xs": [1, 2]}, store_dir=tmp_path, progress=False)
    assert calls == [2]
    assert table.sort_values("x")["y"].tolist() == [1, 4]
    assert table.attrs["damaged"] == [(path.name, reason)]
    err = capsys.readouterr().err
    assert f"{path.name}: {reason}" in err and "redone" in err
    assert store.read_record(tmp_path, {"figure": "fake", "x": 2}) is not None


def test_sound_records_are_not_reported(tmp_path, capsys, fake_module):
    mod = fake_module([])
    engine.run_items(mod, {"xs": [1, 2]}, store_dir=tmp_path, progress=False)
    capsys.readouterr()
    table = engine.run_items(mod, {"xs": [1, 2]}, store_dir=tmp_path, progress=False)
    assert table.attrs["damaged"] == [] and capsys.readouterr().err == ""


def test_no_store_writes_nothing(tmp_path, monkeypatch, fake_module):
    monkeypatch.chdir(tmp_path)
    calls = []
    engine.run_items(fake_module(calls), {"xs": [1]}, store_dir=None, progress=False)
    assert list(tmp_path.iterdir()) == []


def test_get_config_and_bad_names(fake_module):
    mod = fake_module([])
    assert engine.get_config(mod, "paper", xs=[9]) == {"xs": [9]}
    with pytest.raises(ValueError, match=r"\bscale must"):
        engine.get_config(mod, "huge")
    with pytest.raises(ValueError, match="not a setting"):
        engine.get_config(mod, "default", epochs=3)
    with pytest.raises(ValueError, match=r"\bfigure must"):
        engine.load_figure("fig4")
    with pytest.raises(ValueError, match=r"\bdevice must"):
        engine.require_device("tpu")


def test_run_runs_a_figure_at_its_default_scale_or_the_given_config(fake_module):
    calls = []
    mod = fake_module(calls)
    assert engine.run(mod, progress=False)["y"].tolist() == [1, 4, 9, 16]
    assert engine.run(mod, {"xs": [5]}, progress=False)["y"].tolist() == [25]


def test_iter_records_reads_every_sound_record_and_skips_other_files(tmp_path, fake_module):
    engine.run_items(fake_module([]), {"xs": [1, 2, 3]}, store_dir=tmp_path, progress=False)
    (tmp_path / "notes.json").write_text("not a record")
    bodies = list(store.iter_records(tmp_path))
    assert sorted(b["rows"][0]["y"] for b in bodies) == [1, 4, 9]
    assert all("wall_time_s" in b["provenance"] for b in bodies)
    assert list(store.iter_records(tmp_path / "absent")) == []


def test_strict_iter_records_refuses_a_renamed_or_damaged_record(tmp_path, fake_module):
    engine.run_items(fake_module([]), {"xs": [1, 2]}, store_dir=tmp_path, progress=False)
    assert len(list(store.iter_records(tmp_path, strict=True))) == 2
    first, second = sorted(tmp_path.glob("*.json"))
    first.rename(tmp_path / "0000.json")  # a record under another item's name
    with pytest.raises(ValueError, match="damaged record .*foreign"):
        list(store.iter_records(tmp_path, strict=True))
    (tmp_path / "0000.json").unlink()
    rec = json.loads(second.read_text())
    rec["body"]["format"] = 0  # another record format, its checksum made to match
    rec["checksum"] = store.record_checksum(rec["body"])
    second.write_text(json.dumps(rec))
    with pytest.raises(ValueError, match="damaged record .*stale"):
        list(store.iter_records(tmp_path, strict=True))


def test_record_item_computes_once_and_redoes_a_damaged_record(tmp_path, capsys):
    calls = []

    def compute():
        calls.append(1)
        return [{"x": 1, "y": float("nan")}]

    rows = store.record_item(tmp_path, {"x": 1}, compute)
    assert store.record_item(tmp_path, {"x": 1}, compute) == rows and len(calls) == 1
    (path,) = tmp_path.glob("*.json")
    path.write_text(path.read_text()[:20])
    store.record_item(tmp_path, {"x": 1}, compute)
    assert len(calls) == 2 and "truncated" in capsys.readouterr().err
    (body,) = store.iter_records(tmp_path, strict=True)
    assert "wall_time_s" in body["provenance"] and "git" in body["provenance"]


def test_provenance_names_the_installed_package_version():
    from importlib import metadata

    assert store.provenance()["versions"]["resnet_nb"] == metadata.version("resnet_nb")
