"""Every claim in the ledger passes its check, and every check fails on its negative instance."""
import pytest

from resnet_nb import claims

claims._load_chapter_claims()
IDS = sorted(claims.REGISTRY)


@pytest.mark.parametrize("cid", IDS)
def test_claim_holds(cid):
    out = claims.REGISTRY[cid].check()
    assert out.passed, f"{cid}: worst {out.worst} > tol {out.tol} ({out.detail})"


@pytest.mark.parametrize("cid", [i for i in IDS if claims.REGISTRY[i].negative is not None])
def test_claim_check_can_fail(cid):
    out = claims.REGISTRY[cid].negative()
    assert not out.passed, f"{cid}: the check did not notice a false instance ({out.detail})"


def test_every_claim_has_a_negative_instance_or_says_why():
    missing = [i for i in IDS if claims.REGISTRY[i].negative is None]
    assert not missing, f"claims without a negative instance: {missing}"


def test_ledger_reports_failures():
    import pandas as pd

    df = pd.DataFrame([dict(id="x", source="s", statement="t", printed="holds", where="w",
                            passed=False, worst=1.0, tol=0.1, detail="", seconds=0.0)])
    assert "FAIL" in claims.ledger_table(df)
    with pytest.raises(ValueError, match="unknown claim"):
        claims.run_all(ids=["no-such-claim"], progress=False)
