"""Hardt & Ma, appendix A (resnet_nb.hardt_ma.linear.theorem21_appendix): the rotation step of Theorem 2.1's
proof and the symmetric positive definite case."""

import math

import numpy as np
import pytest

from resnet_nb.hardt_ma.linear import rotation_step_norm


def test_rotation_step_norm_printed_formula_is_wrong_but_bound_holds():
    from resnet_nb.hardt_ma.linear import rotation_step_norm

    for phi in np.linspace(-math.pi, math.pi, 41):
        r = rotation_step_norm(float(phi))
        assert math.isclose(r["norm"], r["formula"], rel_tol=1e-9, abs_tol=1e-12)
        assert r["norm"] <= abs(phi) + 1e-12
    r = rotation_step_norm(math.pi)
    assert r["norm"] == pytest.approx(2.0) and r["printed"] < 1e-15


def test_rotation_step_norm_reports_its_angle():
    r = rotation_step_norm(0.75)
    assert r["phi"] == 0.75 and set(r) == {"phi", "norm", "printed", "formula"}
    assert r["norm"] == pytest.approx(2 * math.sin(0.375), rel=1e-12)


@pytest.mark.parametrize("cid", ["hm-thm21-rotation-step", "hm-psd-special-case"])
def test_claim_holds_and_its_falsifier_is_rejected(cid, check_claim):
    c = check_claim(cid)
    assert c.kind == "claim" and c.source.startswith(("Hardt & Ma", "the book"))
