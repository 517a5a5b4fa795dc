"""Figure 3 of Li et al. (the weight norm along training): its rows, the depth reversals of the
norm curves, the loss spikes of the ReLU runs and the sharpness along a run."""

import numpy as np
import pandas as pd
import pytest
import torch

import resnet_nb as rn
from resnet_nb.experiments import fig3
from resnet_nb.shared.common import initial_weights, mnist, network


def test_fig3_norms_and_losses_at_epoch_zero():
    item = {"figure": "fig3", "depth": 4, "relu": False, "lr": 0.1, "epochs": 5, "runs": 2, "points": 4, "seed": 0}
    rows = pd.DataFrame(fig3.run_one(item))
    W0 = initial_weights("2-shortcut", network("2-shortcut", 4), seed=0, runs=2)
    first = rows[rows["epoch"] == 0].sort_values("run")
    ref = [np.mean([float(torch.linalg.norm(W0[r, u, l])) for u in range(2) for l in range(2)]) for r in range(2)]
    np.testing.assert_allclose(first["avg_norm"], ref, rtol=1e-12)
    net = network("2-shortcut", 4)
    np.testing.assert_allclose(first["loss"], [float(rn.loss(net, W0[r], mnist())) for r in range(2)], rtol=1e-12)
    assert fig3.record_epochs(1000, 20)[:3] == [0, 1, 2] and fig3.record_epochs(1000, 20)[-1] == 1000


def test_depth_reversals_of_a_toy_table_and_of_the_committed_figure3():
    import pandas as pd

    rows = [
        {"relu": False, "depth": d, "run": 0, "epoch": e, "loss": fig3.mnist_optimum() + 10.0**x, "avg_norm": n}
        for d, norms in ((2, (0.1, 1.0, 2.0)), (4, (0.1, 1.5, 1.0)))
        for e, (x, n) in enumerate(zip((1.0, 0.0, -1.0), norms))
    ]
    ((shallow, deep, lo, hi),) = fig3.depth_reversals(pd.DataFrame(rows), False)
    # the curves cross at x = -1/3; they tie at the start (x = 1), which is left out
    assert (shallow, deep) == (2, 4) and lo == pytest.approx(-1 / 3, abs=0.02) and hi < 1
    t = fig3.committed("fig3")
    assert [r[:2] for r in fig3.depth_reversals(t, False)] == [(2, 4)] and not fig3.depth_reversals(t, True)


def _loss_table(losses, relu=True, depth=4, run=0):
    import pandas as pd

    return pd.DataFrame(
        {"relu": relu, "depth": depth, "run": run, "epoch": range(0, 10 * len(losses), 10), "loss": losses}
    )


def test_spikes_finds_rises_above_the_threshold_only():
    import pandas as pd

    t = pd.concat(
        [
            _loss_table([1.0, 0.9, 0.96, 0.8, 0.7]),  # +6.7% at epoch 20
            _loss_table([1.0, 1.04, 0.5], run=1),  # +4%: below the 5% threshold
            _loss_table([1.0, 2.0, 0.5], relu=False),
        ]
    )  # linear: filtered by relu=True
    s = fig3.spikes(t)
    assert list(s.columns) == ["depth", "run", "epoch", "ratio"]
    assert s[["depth", "run", "epoch"]].values.tolist() == [[4, 0, 20]]
    assert s["ratio"].iloc[0] == pytest.approx(0.96 / 0.9)
    assert fig3.spikes(t, relu=False)["epoch"].tolist() == [10]
    assert len(fig3.spikes(t, rise=1.03)) == 2  # the 4% rise counts at a 3% threshold
    assert fig3.spikes(_loss_table([1.0, 0.5, 0.25])).empty


def test_spikes_of_the_committed_figure3_are_relu_depths_4_and_8():
    t = fig3.committed("fig3")
    assert set(fig3.spikes(t)["depth"]) == {4, 8}
    assert fig3.spikes(t, relu=False).empty


def test_top_eigenvalue_is_the_top_of_the_spectrum_not_the_largest_magnitude(monkeypatch):
    import torch

    import resnet_nb.core.losses as losses

    # a quadratic loss 1/2 w^T A w whose largest |eigenvalue| is negative: the top is 2, not -5
    Q, _ = torch.linalg.qr(torch.randn(6, 6, generator=torch.Generator().manual_seed(1), dtype=torch.float64))
    A = Q @ torch.diag(torch.tensor([-5.0, 2.0, 1.0, 0.5, -0.5, 0.1], dtype=torch.float64)) @ Q.T
    monkeypatch.setattr(losses, "loss_samples", lambda net, w, data: 0.5 * w.reshape(-1) @ A @ w.reshape(-1))
    assert fig3.top_eigenvalue(None, torch.zeros(2, 3), None, iters=100) == pytest.approx(2.0, rel=1e-6)
    B = Q @ torch.diag(torch.tensor([3.0, -1.0, 1.0, 0.5, -0.5, 0.1], dtype=torch.float64)) @ Q.T
    monkeypatch.setattr(losses, "loss_samples", lambda net, w, data: 0.5 * w.reshape(-1) @ B @ w.reshape(-1))
    assert fig3.top_eigenvalue(None, torch.zeros(2, 3), None, iters=100) == pytest.approx(3.0, rel=1e-6)


def test_top_eigenvalue_matches_the_exact_hessian_of_a_small_relu_network():
    import torch

    from resnet_nb.core.losses import loss_samples
    from resnet_nb.shared.common import initial_weights, mnist, network

    net = network("2-shortcut", 2, relu=True)
    data = mnist(5)
    W = initial_weights("2-shortcut", net, seed=0) + 0.05 * torch.randn(
        net.shape, generator=torch.Generator().manual_seed(0), dtype=torch.float64
    )
    H = torch.autograd.functional.hessian(lambda w: loss_samples(net, w.reshape(net.shape), data), W.reshape(-1))
    exact = float(torch.linalg.eigvalsh(H).max())
    assert fig3.top_eigenvalue(net, W, data, iters=200) == pytest.approx(exact, rel=1e-4)


@pytest.fixture
def fake_sharpness(monkeypatch):
    """fig3.sharpness_along replaced by a five-epoch run sampled at epochs 2 and 4; its calls
    are appended to the returned list."""
    import functools

    calls = []

    @functools.wraps(fig3.sharpness_along)  # its signature: the record's item names its arguments
    def sharpness_along(**kw):
        calls.append(kw)
        out = pd.DataFrame({"epoch": [2, 4], "loss": [0.5, 0.1], "lam_max": [19.5, 21.25], "eta_lam": [1.95, 2.125]})
        out.attrs["losses"] = np.array([1.0, 0.7, 0.5, 0.3, 0.1, 0.1 + 1e-17])
        return out

    monkeypatch.setattr(fig3, "sharpness_along", sharpness_along)
    return calls


def test_the_sharpness_record_written_then_read_gives_the_same_tables(tmp_path, fake_sharpness):
    from pandas.testing import assert_frame_equal

    sharp = fig3.reproduce_sharpness(tmp_path, epochs=[2, 4])
    run = fig3.sharpness_along()
    assert_frame_equal(sharp, run, check_exact=True)
    stored, losses = fig3.load_sharpness(tmp_path)
    assert_frame_equal(stored, run, check_exact=True)
    assert_frame_equal(losses, pd.DataFrame({"epoch": np.arange(6), "loss": run.attrs["losses"]}), check_exact=True)
    assert fig3.load_sharpness(tmp_path / "nothing") is None


def test_reproduce_sharpness_reads_a_stored_run_back(tmp_path, fake_sharpness):
    fig3.reproduce_sharpness(tmp_path, epochs=[2, 4])
    fig3.reproduce_sharpness(tmp_path, epochs=[2, 4])
    assert len(fake_sharpness) == 1
    fig3.reproduce_sharpness(tmp_path, epochs=[2, 4], depth=8)  # another run: computed, stored beside
    with pytest.raises(ValueError, match=r"\bout\b"):
        fig3.load_sharpness(tmp_path)
    with pytest.raises(ValueError, match=r"\bkwargs\b"):
        fig3.sharpness_item(depht=8)


def test_a_damaged_sharpness_record_is_refused(tmp_path, fake_sharpness):
    fig3.reproduce_sharpness(tmp_path, epochs=[2, 4])
    (path,) = (tmp_path / "fig3_sharpness" / "records").glob("*.json")
    path.write_text(path.read_text()[:-10])
    with pytest.raises(ValueError, match="damaged record .*truncated"):
        fig3.load_sharpness(tmp_path)
