"""The result store: records survive, resume, and damaged ones are detected and redone."""
import json
import sys
import types

import pandas as pd
import pytest

from resnet_nb.experiments import engine


def _fake_module(calls, fail_at=None):
    """A figure module whose run_one squares a number and counts its calls."""
    mod = types.ModuleType("fake_fig")
    mod.SCALES = {"default": {"xs": [1, 2, 3, 4]}, "paper": {"xs": [1, 2, 3, 4, 5, 6]}}
    mod.configurations = lambda config: [{"figure": "fake", "x": x} for x in config["xs"]]

    def run_one(item, device="cpu"):
        calls.append(item["x"])
        if fail_at is not None and item["x"] == fail_at:
            raise KeyboardInterrupt
        return [{"x": item["x"], "y": item["x"] ** 2}]

    mod.run_one = run_one
    mod.plot = lambda table, ax=None: None
    return mod


def test_item_key_depends_on_content_not_order():
    assert engine.item_key({"a": 1, "b": [1, 2]}) == engine.item_key({"b": [1, 2], "a": 1})
    assert engine.item_key({"a": 1}) != engine.item_key({"a": 2})
    with pytest.raises(ValueError, match="item must be a dict"):
        engine.item_key([1])


def test_records_round_trip_and_no_recompute(tmp_path):
    calls = []
    mod = _fake_module(calls)
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


def test_interrupted_run_resumes_without_losing_work(tmp_path):
    calls = []
    with pytest.raises(KeyboardInterrupt):
        engine.run_items(_fake_module(calls, fail_at=3), {"xs": [1, 2, 3, 4]}, store_dir=tmp_path, progress=False)
    assert calls == [1, 2, 3]
    assert len(list(tmp_path.glob("*.json"))) == 2
    calls.clear()
    table = engine.run_items(_fake_module(calls), {"xs": [1, 2, 3, 4]}, store_dir=tmp_path, progress=False)
    assert calls == [3, 4]
    assert sorted(table["y"]) == [1, 4, 9, 16]


@pytest.mark.parametrize("damage, reason", [("truncate", "truncated"), ("edit_number", "tampered"),
                                            ("garbage", "truncated"), ("old_format", "stale"),
                                            ("foreign_item", "foreign")])
def test_damaged_record_is_reported_by_kind_and_redone(tmp_path, capsys, damage, reason):
    calls = []
    mod = _fake_module(calls)
    engine.run_items(mod, {"xs": [1, 2]}, store_dir=tmp_path, progress=False)
    path = tmp_path / f"{engine.item_key({'figure': 'fake', 'x': 2})}.json"
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
        rec["body"]["format"] = engine.RECORD_FORMAT - 1
        rec["checksum"] = engine.record_checksum(rec["body"])
        path.write_text(json.dumps(rec))
    else:  # a valid record of item 1 under the name of item 2
        other = tmp_path / f"{engine.item_key({'figure': 'fake', 'x': 1})}.json"
        path.write_text(other.read_text())
    assert engine.inspect_record(tmp_path, {"figure": "fake", "x": 2}) == (None, reason)
    calls.clear()
    capsys.readouterr()
    table = engine.run_items(mod, {"xs": [1, 2]}, store_dir=tmp_path, progress=False)
    assert calls == [2]
    assert table.sort_values("x")["y"].tolist() == [1, 4]
    assert table.attrs["damaged"] == [(path.name, reason)]
    err = capsys.readouterr().err
    assert f"{path.name}: {reason}" in err and "redone" in err
    assert engine.read_record(tmp_path, {"figure": "fake", "x": 2}) is not None


def test_sound_records_are_not_reported(tmp_path, capsys):
    mod = _fake_module([])
    engine.run_items(mod, {"xs": [1, 2]}, store_dir=tmp_path, progress=False)
    capsys.readouterr()
    table = engine.run_items(mod, {"xs": [1, 2]}, store_dir=tmp_path, progress=False)
    assert table.attrs["damaged"] == [] and capsys.readouterr().err == ""


def test_no_store_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    calls = []
    engine.run_items(_fake_module(calls), {"xs": [1]}, store_dir=None, progress=False)
    assert list(tmp_path.iterdir()) == []


def test_get_config_and_bad_names():
    mod = _fake_module([])
    assert engine.get_config(mod, "paper", xs=[9]) == {"xs": [9]}
    with pytest.raises(ValueError, match="scale must be one of"):
        engine.get_config(mod, "huge")
    with pytest.raises(ValueError, match="not a setting"):
        engine.get_config(mod, "default", epochs=3)
    with pytest.raises(ValueError, match="figure must be one of"):
        engine.load_figure("fig4")
    with pytest.raises(ValueError, match="device must be"):
        engine.check_device("tpu")


def test_command_line_writes_table_provenance_and_resumes(tmp_path, monkeypatch):
    from resnet_nb import __main__ as cli

    calls = []
    mod = _fake_module(calls)
    monkeypatch.setitem(sys.modules, "fake_fig_module", mod)
    monkeypatch.setitem(engine.FIGURES, "figfake", "fake_fig_module")
    assert cli.main(["reproduce", "figfake", "--scale", "paper", "--out", str(tmp_path),
                     "--no-progress", "--jobs", "1"]) == 0
    folder = tmp_path / "figfake" / "paper"
    table = pd.read_csv(folder / "table.csv")
    assert sorted(table["y"]) == [1, 4, 9, 16, 25, 36]
    prov = json.loads((folder / "provenance.json").read_text())
    assert prov["scale"] == "paper" and prov["items"] == 6 and prov["config"] == {"xs": [1, 2, 3, 4, 5, 6]}
    calls.clear()
    assert cli.main(["reproduce", "figfake", "--scale", "paper", "--out", str(tmp_path),
                     "--no-progress", "--jobs", "1"]) == 0
    assert calls == []
    assert cli.main(["reproduce", "figfake", "--device", "tpu", "--out", str(tmp_path)]) == 2


def test_collect_summarises_finished_records_only(tmp_path, monkeypatch):
    from resnet_nb import __main__ as cli

    calls = []
    mod = _fake_module(calls, fail_at=3)
    monkeypatch.setitem(sys.modules, "fake_fig_module", mod)
    monkeypatch.setitem(engine.FIGURES, "figfake", "fake_fig_module")
    assert cli.main(["reproduce", "figfake", "--scale", "paper", "--out", str(tmp_path),
                     "--no-progress", "--jobs", "1"]) == 130
    calls.clear()
    assert cli.main(["reproduce", "figfake", "--scale", "paper", "--out", str(tmp_path),
                     "--no-progress", "--jobs", "1",
                     "--collect"]) == 0
    assert calls == []
    prov = json.loads((tmp_path / "figfake" / "paper" / "provenance.json").read_text())
    assert prov["complete"] is False and prov["missing_items"] == 4 and prov["items"] == 2
    assert sorted(pd.read_csv(tmp_path / "figfake" / "paper" / "table.csv")["y"]) == [1, 4]
