"""The command line (python -m resnet_nb reproduce): tables and provenance written, runs resumed,
finished records collected, several processes, clear errors."""

import json
import sys

import pandas as pd

from resnet_nb.experiments import engine


def test_command_line_writes_table_provenance_and_resumes(tmp_path, monkeypatch, fake_module):
    from resnet_nb import __main__ as cli

    calls = []
    mod = fake_module(calls)
    monkeypatch.setitem(sys.modules, "fake_fig_module", mod)
    monkeypatch.setitem(engine.FIGURES, "figfake", "fake_fig_module")
    assert (
        cli.main(["reproduce", "figfake", "--scale", "paper", "--out", str(tmp_path), "--no-progress", "--jobs", "1"])
        == 0
    )
    folder = tmp_path / "figfake" / "paper"
    table = pd.read_csv(folder / "table.csv")
    assert sorted(table["y"]) == [1, 4, 9, 16, 25, 36]
    prov = json.loads((folder / "provenance.json").read_text())
    assert prov["scale"] == "paper" and prov["items"] == 6 and prov["config"] == {"xs": [1, 2, 3, 4, 5, 6]}
    calls.clear()
    assert (
        cli.main(["reproduce", "figfake", "--scale", "paper", "--out", str(tmp_path), "--no-progress", "--jobs", "1"])
        == 0
    )
    assert calls == []
    assert cli.main(["reproduce", "figfake", "--device", "tpu", "--out", str(tmp_path)]) == 2


def test_collect_summarises_finished_records_only(tmp_path, monkeypatch, fake_module):
    from resnet_nb import __main__ as cli

    calls = []
    mod = fake_module(calls, fail_at=3)
    monkeypatch.setitem(sys.modules, "fake_fig_module", mod)
    monkeypatch.setitem(engine.FIGURES, "figfake", "fake_fig_module")
    assert (
        cli.main(["reproduce", "figfake", "--scale", "paper", "--out", str(tmp_path), "--no-progress", "--jobs", "1"])
        == 130
    )
    calls.clear()
    assert (
        cli.main(
            [
                "reproduce",
                "figfake",
                "--scale",
                "paper",
                "--out",
                str(tmp_path),
                "--no-progress",
                "--jobs",
                "1",
                "--collect",
            ]
        )
        == 0
    )
    assert calls == []
    prov = json.loads((tmp_path / "figfake" / "paper" / "provenance.json").read_text())
    assert prov["complete"] is False and prov["missing_items"] == 4 and prov["items"] == 2
    assert sorted(pd.read_csv(tmp_path / "figfake" / "paper" / "table.csv")["y"]) == [1, 4]


def test_command_line_runs_on_several_processes_and_refuses_an_unwritable_out(tmp_path, monkeypatch, capsys):
    from resnet_nb import __main__ as cli

    monkeypatch.setitem(engine.FIGURES, "figfake", "fake_figure")
    assert cli.main(["reproduce", "figfake", "--out", str(tmp_path), "--no-progress", "--jobs", "2"]) == 0
    assert len(list((tmp_path / "figfake" / "default" / "records").glob("*.json"))) == 6
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert cli.main(["reproduce", "figfake", "--out", str(blocked / "sub"), "--jobs", "1"]) == 2
    assert "is not a writable folder" in capsys.readouterr().err
