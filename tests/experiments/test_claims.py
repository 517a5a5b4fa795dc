"""The claims of the experiment chapters (Figures 2, 3, 5-10): each check passes, its falsifier is
rejected on its comparison (not for being vacuous), and each states what kind of falsifier it has."""

import pytest

from resnet_nb.experiments import fig2, fig3, fig5, fig6, fig7, fig8, fig9, fig10

DYNAMICS = [
    fig5.claim_flat_to_depth_96,
    fig5.claim_one_shortcut_like_plain,
    fig5.claim_flat_live,
    fig3.claim_deeper_smaller,
    fig6.claim_minimiser_zeros,
    fig6.claim_first_step,
    fig6.claim_shortcut_better_conditioned,
    fig7.claim_shortcut_better_conditioned_relu,
    fig8.claim_smaller_index,
    fig8.claim_peak_at_drop,
]
LEARNING = [
    fig9.claim_fig9_shortcut_lowest,
    fig9.claim_fig9_near_optimal,
    fig9.claim_escape_rate,
    fig9.claim_edge_of_stability,
    fig10.claim_shortcut_lowest,
    fig10.claim_deeper_lower,
    fig10.claim_flat_at_64,
    fig10.claim_depth2_floor,
    fig10.claim_depth4_floor,
    fig2.claim_larger_run_ordered,
    fig2.claim_growth_shrinks,
]


@pytest.mark.parametrize("check", DYNAMICS + LEARNING, ids=lambda f: f.claim.id)
def test_claim_holds_and_falsifier_is_rejected(check):
    assert check().passed, str(check())
    assert check(falsify=True).rejected_on_value, str(check(falsify=True))


def test_every_claim_of_the_experiment_figures_is_tested_here():
    from resnet_nb.book import ledger

    mods = ("fig2", "fig3", "fig5", "fig6", "fig7", "fig8", "fig9", "fig10")
    mine = {c.id for c in ledger.all_claims().values() if c.check.__module__.rsplit(".", 1)[-1] in mods}
    assert mine == {c.claim.id for c in DYNAMICS + LEARNING}


def test_every_claim_states_its_falsifier_kind():
    kinds = {c.claim.id: c.claim.falsifier_kind for c in DYNAMICS + LEARNING}
    assert all(k in ("plausible false statement", "implied by the check", "regression test") for k in kinds.values()), (
        kinds
    )
    dynamics = {c.claim.id for c in DYNAMICS}
    assert all(kinds[k] in ("plausible false statement", "implied by the check") for k in dynamics)
    # the strict orderings (tolerance 0) are rejected reversed by any passing check
    assert {k for k in dynamics if kinds[k] == "implied by the check"} == {
        "li-fig7-shortcut-better-conditioned-relu",
        "li-fig8-smaller-index",
        "book-fig6-first-step-unstable",
    }
    assert kinds["li-escape-rate-2shortcut"] == "regression test"
    assert kinds["li-eos-2shortcut-depth16"] == "implied by the check"
