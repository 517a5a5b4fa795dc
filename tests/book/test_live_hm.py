"""The exports of the live explorers of Hardt & Ma's Theorems 2.1 and 3.2 (resnet_nb/book/live/hm_theorem21.py,
hm_theorem32.py): what the browser test compares the page with must itself be right."""

import json
import math

import numpy as np
import pytest

from resnet_nb.book.live import explorers, to_json
from resnet_nb.book.live import hm_theorem21 as h21
from resnet_nb.book.live import hm_theorem32 as h32
from resnet_nb.hardt_ma.linear.network import residual_product
from tests.helpers import shared_scope


@pytest.fixture(scope=shared_scope)
def cases21():
    return h21.export_cases()["hm-theorem21"]


@pytest.fixture(scope=shared_scope)
def cases32():
    return h32.export_cases()["hm-theorem32"]


def test_both_explorers_are_found_by_the_live_package():
    found = explorers()
    assert found["hm-theorem21"] is h21 and found["hm-theorem32"] is h32


def test_every_case_is_json_with_the_relative_tolerance_of_float64_algebra(cases21, cases32):
    for case in cases21 + cases32:
        assert set(case) == {"label", "input", "output", "rtol"} and case["rtol"] == 1e-9
        json.dumps(to_json(case), allow_nan=False)


def test_the_controls_set_a_target_with_that_rotation_stretch_and_determinant_sign():
    for angle, stretch, axis, sign in [(150.0, 0.5, 30.0, 1), (-40.0, 1.5, 100.0, -1), (0.0, 0.0, 0.0, -1)]:
        R = h21.target(angle, stretch, axis, sign)
        s = np.linalg.svd(R, compute_uv=False)
        assert np.allclose(s, [math.exp(stretch), math.exp(-stretch)], rtol=1e-12)
        assert np.sign(np.linalg.det(R)) == sign
    # without a stretch and with det > 0, R is the rotation by the angle
    R = h21.target(150.0, 0.0, 70.0, 1)
    assert math.isclose(math.degrees(math.atan2(R[1, 0], R[0, 0])), 150.0, rel_tol=1e-12)


def test_positive_determinant_factors_multiply_to_r_under_the_printed_bound(cases21):
    positive = [c for c in cases21 if c["output"]["det"] > 0]
    assert len(positive) >= 20
    for case in positive:
        out = case["output"]
        A, R = np.array(out["A"]), np.array(out["R"])
        assert len(A) == case["input"]["l"] and "refusal" not in out
        assert np.abs(residual_product(A) - R).max() <= 1e-12 * max(1.0, np.abs(A).max()) * len(A)
        assert math.isclose(max(out["norms"]), out["norm"]) and out["p"] + out["q"] in (0, len(A))
        if out["hypothesis"]:
            assert out["norm"] <= out["bound_iclr"], case["label"]
    assert not next(c["output"] for c in cases21 if c["label"] == "stretch 3.0, l = 2")["hypothesis"]


def test_negative_determinant_is_refused_and_every_exported_factorisation_has_a_factor_of_norm_at_least_one(cases21):
    negative = [c for c in cases21 if c["output"]["det"] < 0]
    assert len(negative) >= 5
    for case in negative:
        out = case["output"]
        A, R = np.array(out["A"]), np.array(out["R"])
        assert "positive determinant" in out["refusal"]
        assert np.abs(residual_product(A) - R).max() <= 1e-8  # the crossing factor's delta is >= 2^-19
        crossing = [i for i, d in enumerate(out["factor_dets"]) if d <= 0]
        assert crossing and all(out["norms"][i] >= 1 for i in crossing)
        assert out["running_dets"][-1] < 0 and out["norm"] >= 1
    # the explicit factorisation's |||A||| tends to 1 from above, as the lemma allows, while the
    # printed bound goes below 1
    deep = next(c["output"] for c in cases21 if c["label"] == "diag(-1, 1), l = 16")
    assert deep["bound_iclr"] < 1 <= deep["norm"] < 1.001


def test_the_explicit_factorisation_refuses_a_positive_determinant():
    with pytest.raises(ValueError, match=r"\bdet R < 0\b"):
        h21.negative_factorisation(np.eye(2), 4)


def test_the_exported_search_finds_nothing_below_one_for_the_reflection():
    found = h21.export_data(ls=(2, 4))["hm-theorem21"]["search"]
    for l, row in found.items():
        assert row["norm"] >= 1 and len(row["norms"]) == int(l) and row["product_error"] < 1e-9
        assert min(row["factor_dets"]) <= 0


def test_every_point_lands_on_its_surrogate_and_then_on_its_one_hot_label(cases32):
    built = [c for c in cases32 if "refusal" not in c["output"]]
    assert len(built) >= 20
    for case in built:
        out, labels = case["output"], np.array(case["input"]["labels"])
        final, Q = np.array(out["states"][-1]), np.array(out["Q"])
        assert np.abs(final - Q[:, labels]).max() <= 1e-9 * max(1.0, np.abs(out["states"][0]).max())
        assert np.abs(np.array(out["outputs"]) - np.eye(out["r"])[:, labels]).max() <= 1e-6


def test_each_block_moves_new_points_once_each_listed_in_index_order(cases32):
    for case in cases32:
        out = case["output"]
        if "refusal" in out:
            continue
        moved = [i for row in out["idx"] for i in row if i >= 0]
        assert sorted(moved) == list(range(out["n"]))
        for row in out["idx"]:
            used = [i for i in row if i >= 0]
            assert used == sorted(used) and row[: len(used)] == used


def test_the_parameter_count_is_blocks_times_2k2_plus_k_and_the_last_block(cases32):
    for case in cases32:
        out = case["output"]
        if "refusal" in out:
            continue
        k, r, blocks = out["k"], out["r"], len(out["U"])
        assert k == 2 and blocks >= math.ceil(out["n"] / k)
        assert out["trainable"] == blocks * (2 * k * k + k) + r * k + r * r + r
        assert out["projection"] == k * 2


def test_identical_points_and_a_point_at_the_origin_are_refused_with_the_packages_reason(cases32):
    reasons = {c["label"]: c["output"].get("refusal", "") for c in cases32}
    assert "identical" in reasons["identical, seed 0"] and "identical" in reasons["identical points, different labels"]
    assert "radius" in reasons["origin, seed 0"]


def test_the_page_data_holds_numpys_stream_for_every_seed_and_the_next():
    data = h32.export_data()["hm-theorem32"]
    for s in [*h32.SEEDS, max(h32.SEEDS) + 1]:
        assert data["normals"][str(s)] == np.random.default_rng(s).standard_normal(2 * h32.CLASSES).tolist()
    assert set(data["presets"]) >= {"figure", "xor", "grid", "identical", "origin"}
