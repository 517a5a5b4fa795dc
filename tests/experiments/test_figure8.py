"""Figure 8 of Li et al. (the index along training): the fall of the index around the gradient
peak, in a toy run, in the committed runs and in the densely sampled run."""

import pandas as pd
import pytest

from resnet_nb.experiments import fig6, fig8


def _dense(neg, grad, first=0):
    import numpy as np
    import pandas as pd

    n = len(grad)
    return pd.DataFrame(
        {
            "arch": "2-shortcut",
            "epoch": np.arange(n),
            "grad_norm": grad,
            "P": 100,
            "negatives": [-1] * first + list(neg),
            "index": [np.nan] * first + [k / 100 for k in neg],
        }
    )


def test_index_fall_quartiles_ties_and_lag_on_a_toy_run():
    # 50 negative eigenvalues falling to 42 over epochs 2..6, two one-epoch falls of 3 (a tie)
    neg = [50, 50, 50, 47, 45, 42, 42, 42]
    grad = [0.1, 0.2, 0.5, 0.9, 1.0, 0.7, 0.4, 0.2]
    f = fig8.index_fall(_dense(neg, grad), "2-shortcut")
    assert f["peak"] == 4 and f["fall"] == 8 and f["steepest_drop"] == 3
    assert f["steepest"] == [(2, 3), (4, 5)]
    assert f["t25"] == pytest.approx(2 + 2 / 3) and f["t50"] == pytest.approx(3.5)
    assert f["t75"] == pytest.approx(4 + 1 / 3) and f["lag"] == pytest.approx(-0.5)
    chk = fig8.peak_lag(_dense(neg, grad))
    assert chk.passed and chk.value == pytest.approx(0.5) and chk.tol == pytest.approx((4 + 1 / 3 - 2 - 2 / 3) / 2)
    # the peak at the first epoch lies far outside the middle half of the fall
    assert not fig8.peak_lag(_dense(neg, [1.0] + grad[1:])).passed


def test_peak_in_drop_reports_the_margin_to_the_nearer_end():
    t = fig6.committed("fig6")
    chk = fig8.peak_in_drop(t)
    assert chk.value == 1 and chk.values["peaks"] == [36] and chk.values["intervals"] == [(35, 44)]
    assert len(chk.lines) == 1


def test_dense_run_matches_the_committed_run_0():
    d = fig8.load_dense()
    assert d is not None and set(d["arch"]) == set(fig8.DENSE["archs"])
    t = fig6.committed("fig6")
    for arch in fig8.DENSE["archs"]:
        traj = t[(t["kind"] == "trajectory") & (t["arch"] == arch) & (t["run"] == 0)].set_index("epoch")
        mine = d[d["arch"] == arch].set_index("epoch")
        assert mine["grad_norm"].to_numpy() == pytest.approx(traj.loc[mine.index, "grad_norm"].to_numpy(), rel=1e-9)


def test_fig8_index_claim_is_decided_outside_the_first_step_gap():
    c = fig8.claim_smaller_index()
    lo, hi = fig6.first_step_gap(fig6.committed("fig6"))
    assert c.values["exclude"] == (lo, hi)
    assert not lo <= c.values["x_closest"] <= hi
    assert c.spread < -c.value  # the margin exceeds the run-to-run spread (not fragile)


@pytest.fixture
def fake_dense(monkeypatch):
    """fig8.dense_index replaced by a cheap table (NaN index before epoch 1); the architectures
    computed are appended to the returned list."""
    import numpy as np
    import pandas as pd

    calls = []

    def dense_index(arch, **kw):
        calls.append(arch)
        return pd.DataFrame(
            {
                "arch": arch,
                "epoch": [0, 1, 2],
                "loss": [1.0, 0.5, 1 / 3],
                "grad_norm": [0.1, 0.2, 0.30000000000000004],
                "index": [np.nan, 0.5, 0.25],
                "negatives": [-1, 8, 4],
                "P": 16,
            }
        )

    monkeypatch.setattr(fig8, "dense_index", dense_index)
    return calls


def test_dense_records_written_then_read_give_the_same_table(tmp_path, fake_dense):
    from pandas.testing import assert_frame_equal

    table = fig8.reproduce_dense(tmp_path)
    expected = pd.concat([fig8.dense_index(a) for a in fig8.DENSE["archs"]], ignore_index=True)
    assert_frame_equal(table, expected, check_exact=True)
    assert_frame_equal(fig8.load_dense(tmp_path), expected, check_exact=True)
    assert len(list((tmp_path / "fig8" / "dense" / "records").glob("*.json"))) == len(fig8.DENSE["archs"])
    assert fig8.load_dense(tmp_path / "nothing") is None


def test_reproduce_dense_skips_the_architectures_already_stored(tmp_path, fake_dense):
    from resnet_nb.shared.store import item_key

    fig8.reproduce_dense(tmp_path)
    assert fake_dense == fig8.DENSE["archs"]
    fig8.reproduce_dense(tmp_path)
    assert fake_dense == fig8.DENSE["archs"]  # nothing recomputed
    last = fig8.DENSE["archs"][-1]
    (tmp_path / "fig8" / "dense" / "records" / f"{item_key(fig8.dense_item(last))}.json").unlink()
    fig8.reproduce_dense(tmp_path)
    assert fake_dense == [*fig8.DENSE["archs"], last]


def test_a_damaged_dense_record_is_refused(tmp_path, fake_dense):
    import json

    fig8.reproduce_dense(tmp_path)
    path = sorted((tmp_path / "fig8" / "dense" / "records").glob("*.json"))[0]
    rec = json.loads(path.read_text())
    rec["body"]["rows"][0]["loss"] = 2.0  # a number changed, the checksum kept
    path.write_text(json.dumps(rec))
    with pytest.raises(ValueError, match="damaged record .*tampered"):
        fig8.load_dense(tmp_path)
