"""The ledger's claims of the Theorem 1 chapters (and of the Hessians they rest on): each passes, each
falsifier is rejected, each states its falsifier's kind."""

import pytest

import resnet_nb.li.dynamics as dyn
from resnet_nb.core import claims

THEOREM1_CLAIMS = [
    "core-kronecker-hessian",
    "li-thm1-closed-forms",
    "li-lemma1",
    "li-lemma2",
    "li-thm1-part1-stationary",
    "li-thm1-eq11",
    "li-thm1-part2-spectrum",
    "li-thm1-eq12-cond",
    "li-thm1-eq13",
    "li-thm1-depth-invariant",
    "book-one-shortcut-growth",
    "li-thm1-relu-hypothesis",
    "li-thm1-relu-experiments",
    "li-eq7-update",
    "li-fig4-one-shortcut",
    "li-fig4-skip-all",
    "li-eq15-16-any-g-inverse",
    "book-depth-drift",
    "li-thm1-relu-depth",
]


@pytest.mark.parametrize("cid", THEOREM1_CLAIMS)
def test_claim_and_falsifier(cid):
    import resnet_nb.core.hessians  # noqa: F401  (declares its claims)
    import resnet_nb.li.dynamics  # noqa: F401
    import resnet_nb.li.theorem1  # noqa: F401

    c = claims.LEDGER[cid]
    res = c.check(falsify=False)
    assert isinstance(res, claims.Check) and res.passed, str(res)
    assert c.check(falsify=True).rejected_on_value


def test_every_claim_of_theorem1_and_hessians_states_its_falsifier_kind():
    import resnet_nb.core.hessians as hs
    import resnet_nb.li.theorem1 as t1m

    mine = [
        c
        for c in claims.LEDGER.values()
        if c.check.__module__ == hs.__name__ or c.check.__module__.startswith(t1m.__name__ + ".")
    ]
    assert len(mine) == 14
    kinds = {"plausible false statement", "regression test", "implied by the check"}
    assert all(c.falsifier_kind in kinds for c in mine), [c.id for c in mine if c.falsifier_kind not in kinds]


def test_every_claim_of_the_module_states_its_falsifier_kind():
    mine = [c for c in claims.LEDGER.values() if c.check.__module__.startswith(dyn.__name__ + ".")]
    assert len(mine) == 5
    kinds = {"plausible false statement", "regression test", "implied by the check"}
    assert all(c.falsifier_kind in kinds for c in mine)
    # both Figure 4 entries compare two trainers on algebraically equal losses: implementation tests
    for cid in ("li-fig4-skip-all", "li-fig4-one-shortcut"):
        assert claims.LEDGER[cid].falsifier_kind == "regression test" and claims.LEDGER[cid].kind == "regression"
    assert "referee" not in " ".join(c.source + c.statement for c in mine)


def test_part1_not_sharp_reading_fails_on_the_order_n_derivative():
    """The reading "zero is an n-th order stationary point" (the order not sharp) is refuted by the
    order-n derivative that the check requires to exceed rounding, for n = 2 and n = 3; the ledger's
    falsifier is another one (a sigmoid at mid, tests/li/test_theorem1_part1.py)."""
    import resnet_nb.li.theorem1 as t1
    from resnet_nb import ShortcutNetwork

    for n in (2, 3):
        part = t1.part1_check(ShortcutNetwork(3, n, 2), t1.unfriendly_data3(), directions=4, stationary_order=n)
        vanish = part.parts[0]
        assert not vanish.within and vanish.value == part.values["best_n"] > vanish.tol
