"""Claims of the experiment chapters (Figures 3, 5-8): each check passes and its falsifier is
rejected on its comparison (not for being vacuous)."""
import pytest

from resnet_nb.experiments import fig3, fig5, fig6, fig7, fig8

CLAIMS = [fig5.check_flat_to_depth_96, fig5.check_one_shortcut_like_plain, fig3.check_deeper_smaller,
          fig6.check_minimiser_zeros, fig7.check_shortcut_better_conditioned_relu, fig8.check_smaller_index,
          fig8.check_peak_at_drop]
SLOW = [fig5.check_flat_live, fig6.check_first_step, fig6.check_shortcut_better_conditioned]


@pytest.mark.parametrize("check", CLAIMS + SLOW, ids=lambda f: f.claim.id)
def test_claim_holds_and_falsifier_is_rejected(check):
    assert check().passed, str(check())
    assert check(falsify=True).rejected_on_value


def test_minimiser_is_a_minimiser():
    from resnet_nb.experiments.common import mnist, network
    from resnet_nb.losses import loss_stats

    for arch in ("orthogonal", "2-shortcut"):
        W = fig6.minimiser(arch, 6)
        assert abs(float(loss_stats(network(arch, 6), W, mnist().stats())) - fig6.mnist_optimum()) < 1e-12


def test_first_step_collapses_the_end_to_end_map():
    f = fig6.first_step()
    assert f["eta_lam"] > 2 and f["loss1"] < f["loss0"] / 5
    assert abs(f["shrink"] - f["shrink_pred"]) < 0.05


def test_fig7_has_one_resolved_orthogonal_run():
    assert fig7.resolved_runs(fig7.committed("fig7")) == {"2-shortcut": 2, "orthogonal": 1}
