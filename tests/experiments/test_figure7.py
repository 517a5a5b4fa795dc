"""Figure 7 of Li et al. (Figure 6 with ReLUs at the mid positions): the resolved runs of the
committed table (the exact Hessian of the ReLU network is tested in tests/core/test_relu_hessian.py)."""

from resnet_nb.experiments import fig7


def test_fig7_has_one_resolved_orthogonal_run():
    assert fig7.resolved_runs(fig7.committed("fig7")) == {"2-shortcut": 2, "orthogonal": 1}
