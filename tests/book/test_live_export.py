"""The live explorers' exporters (resnet_nb.book.live): discovery, JSON, the files a build writes."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from resnet_nb.book import live


def test_every_exporter_module_is_found_and_names_its_explorers():
    found = live.explorers()
    assert "theorem1-hessian" in found
    for name, mod in found.items():
        assert name in mod.EXPLORERS
        assert (live.ROOT / "scripts" / "site_static" / f"live-{name}.js").is_file(), f"no page code for {name}"


def test_to_json_turns_arrays_into_lists_and_infinity_into_a_string():
    out = live.to_json({"a": np.arange(3.0), "t": torch.eye(2, dtype=torch.float64), "c": math.inf, "k": np.int64(4)})
    assert out == {"a": [0.0, 1.0, 2.0], "t": [[1.0, 0.0], [0.0, 1.0]], "c": "inf", "k": 4}
    json.dumps(out, allow_nan=False)


def test_to_json_refuses_nan_naming_where_it_is():
    with pytest.raises(ValueError, match=r"value\.x\[1\] is NaN"):
        live.to_json({"x": [1.0, float("nan")]})


def test_to_json_refuses_an_object_json_cannot_hold():
    with pytest.raises(TypeError, match=r"value\.f has type"):
        live.to_json({"f": object()})


def test_written_files_hold_every_explorers_data_and_cases(tmp_path):
    written = {p.name for p in live.write_all(tmp_path)}
    for name, mod in live.explorers().items():
        assert f"{name}.cases.json" in written
        cases = json.loads((tmp_path / f"{name}.cases.json").read_text())
        assert cases and all({"label", "input", "output", "rtol"} <= set(c) for c in cases)
        if hasattr(mod, "export_data"):
            assert f"{name}.data.json" in written


def test_the_cache_key_follows_the_package_sources_and_the_lock(tmp_path):
    (tmp_path / "resnet_nb").mkdir()
    src, lock = tmp_path / "resnet_nb" / "m.py", tmp_path / "requirements.txt"
    src.write_text("x = 1\n")
    lock.write_text("torch==2.13.0\n")
    keys = [live.source_key(tmp_path)]
    src.write_text("x = 2\n")
    keys.append(live.source_key(tmp_path))
    lock.write_text("torch==2.14.0\n")
    keys.append(live.source_key(tmp_path))
    assert len(set(keys)) == 3
