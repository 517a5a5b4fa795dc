"""Hardt & Ma, the width of Theorem 3.2 (resnet_nb.hardt_ma.relu.theorem32_width): k = c log n / rho^2, the
proof's Johnson-Lindenstrauss step under both readings of rho, the committed tables."""

import math

import numpy as np
import pytest

import resnet_nb.hardt_ma.relu as hr
from resnet_nb.hardt_ma.relu import paper_width, separation, theorem32_construction, unit_norm_columns


def test_construction_fits_1000_points_and_paper_order_needs_the_papers_width():
    """Greedy fits at k = 30; the paper's order fails at k = 30 and fits at the proof's width
    k = 10 ln n / rho^2 (rho: the paper's bound on squared distances). That width exceeds d = 50
    here, where the projection reduces nothing: a regression test of the construction, not
    evidence for Theorem 3.2's width (see test_paper_order_fails_on_some_draws_below_d)."""
    from resnet_nb.hardt_ma.relu import paper_width

    rng = np.random.default_rng(2)
    X = unit_norm_columns(rng.standard_normal((50, 1000)))
    y = rng.integers(0, 10, 1000)
    net, rep = theorem32_construction(X, y, k=30)
    assert np.abs(net(X) - np.eye(10)[:, y]).max() <= 1e-8
    with pytest.raises(ValueError, match=r"\bmargin\b"):
        theorem32_construction(X, y, k=30, selection="paper")
    k = paper_width(1000, separation(X) ** 2)
    assert k > 30
    net, rep = theorem32_construction(X, y, k=k, selection="paper")
    assert np.abs(net(X) - np.eye(10)[:, y]).max() <= 1e-8
    assert rep["blocks"] == -(-1000 // k)  # the paper's order: ceil(n / k) blocks


def test_paper_order_fails_on_some_draws_below_d():
    """Theorem 3.2's width is a probability statement: at k < d some draws fail, and the greedy
    order fits those same draws."""
    fails = []
    for seed in range(20):
        X, y = hr.random_unit_draw(seed)
        k = hr.paper_width(600, hr.paper_rho(X))
        f = hr.paper_order_failure(X, k, seed=seed)
        fails.append(f["fails"])
        if f["fails"] and sum(fails) <= 2:
            net, _ = theorem32_construction(X, y, k=k, r=10, seed=seed)
            assert np.abs(net(X) - np.eye(10)[:, y]).max() <= 1e-8
    rate = hr.failure_rate(fails)
    assert 0 < rate["failures"] < 20 and rate["low"] < rate["rate"] < rate["high"]


def test_clopper_pearson_known_values():
    low, high = hr.clopper_pearson(0, 100)
    assert low == 0.0 and high == pytest.approx(1 - 0.025 ** (1 / 100), rel=1e-9)
    low, high = hr.clopper_pearson(100, 100)
    assert high == 1.0 and low == pytest.approx(0.025 ** (1 / 100), rel=1e-9)
    low, high = hr.clopper_pearson(19, 100)
    assert 0.11 < low < 0.12 and 0.28 < high < 0.29
    for bad in ((5, 4), (-1, 4)):
        with pytest.raises(ValueError):
            hr.clopper_pearson(*bad)
    with pytest.raises(ValueError, match=r"\blevel\b"):
        hr.clopper_pearson(1, 4, level=1.0)


def test_theorem32_falsifier_is_the_printed_constant_under_both_readings():
    """The falsifier is the printed c = 10; its comparison fails under each reading of rho, and
    the claim's c = 30 widths stay below d (a projection that reduces the dimension)."""
    cfg = hr.THM32_DRAWS
    bad = hr.claim_theorem32(falsify=True)
    assert not bad.passed and bad.values["c"] == cfg["c_paper"] == 10
    assert all(not p.passed for p in bad.parts) and len(bad.parts) == len(hr.RHO_READINGS) == 2
    good = hr.claim_theorem32()
    assert good.passed and good.values["c"] == cfg["c_larger"]
    for r in hr.RHO_READINGS:
        assert good.values[r]["k_max"] < cfg["d"] and good.values[r]["draws"] == cfg["draws"]
        assert bad.values[r]["k_min"] < good.values[r]["k_min"]


def test_jl_distortion_against_a_direct_computation():
    """Every distance among {0, x_i}, one pair at a time, with the construction's projection."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((7, 9))
    k, seed = 4, 11
    A0 = hr.projection_A0(7, k, seed)
    worst = max(abs(np.linalg.norm(A0 @ X[:, i]) / np.linalg.norm(X[:, i]) - 1) for i in range(9))
    for i in range(9):
        for j in range(i + 1, 9):
            u = X[:, i] - X[:, j]
            worst = max(worst, abs(np.linalg.norm(A0 @ u) / np.linalg.norm(u) - 1))
    assert hr.jl_distortion(X, k, seed) == pytest.approx(worst, rel=1e-9)
    with pytest.raises(ValueError, match="equal columns"):
        hr.jl_distortion(X[:, [0, 0, 1]], k, seed)


def test_jl_step_reads_rho_both_ways():
    """rho is the squared smallest distance under Assumption 3.1 and the distance itself under the
    proof's reading; on these draws the smallest distance exceeds 1, so the proof's reading gives
    the larger width."""
    dr = hr.thm32_draw(0)
    sq, dist = dr["rho"][hr.RHO_READINGS[0]], dr["rho"][hr.RHO_READINGS[1]]
    assert sq == pytest.approx(dist**2) and hr.paper_width(600, dist) > hr.paper_width(600, sq)
    assert dist > 1 and dr["projection_seed"] != 0  # the projection is not drawn from the data's seed


def test_committed_thm32_tables_recompute():
    """Rows of results/hm_thm32/ (scripts/hm_thm32.py) recomputed here agree with the stored ones."""
    draws, proj = hr.load_thm32()
    assert len(draws) == hr.THM32_DRAWS["draws"]
    for seed in (0, 7):
        live = hr.thm32_draw_row(seed, greedy=seed == 0)
        saved = draws.iloc[seed]
        for key, value in live.items():
            if isinstance(value, (bool, np.bool_, int, np.integer)):
                assert saved[key] == value, key
            elif key == "greedy_error":
                assert saved[key] < 1e-8 and value < 1e-8
            else:
                assert saved[key] == pytest.approx(value, rel=1e-12), key
    X = hr.chapter_point_sets()["synthetic"][0]
    live = hr.projection_row(X, 46, 3)
    saved = proj[(proj.data == "synthetic") & (proj.k == 46) & (proj.seed == 3)].iloc[0]
    assert saved.refuses == live["refuses"] and saved.min_margin == pytest.approx(live["min_margin"], rel=1e-12)
    assert proj.groupby(["data", "k"]).size().eq(hr.THM32_RESULTS["projections"]).all()


def _small_point_sets():
    return {"synthetic": (unit_norm_columns(np.random.default_rng(5).standard_normal((30, 40))), None)}


def test_thm32_store_write_then_read_gives_the_computed_rows(tmp_path):
    """reproduce_thm32 stores one record per draw and per point set and width; load_thm32 reads
    back the rows that thm32_draw_row and projection_row compute, under the committed items' keys."""
    from resnet_nb.core.paths import RESULTS
    from resnet_nb.shared.store import item_key

    X = _small_point_sets()["synthetic"][0]
    draws, proj = hr.reproduce_thm32(tmp_path, seeds=(31, 30), point_sets=_small_point_sets())
    assert list(draws.seed) == [30, 31] and "greedy_error" not in draws
    for i, seed in enumerate((30, 31)):
        assert draws.iloc[i].to_dict() == hr.thm32_draw_row(seed)
    assert set(proj.k) == {20} and list(proj.seed) == list(range(hr.THM32_RESULTS["projections"]))
    assert proj.iloc[3].to_dict() == dict(data="synthetic", **hr.projection_row(X, 20, 3))
    assert (RESULTS / hr.THM32_DIR / "records" / f"{item_key(hr.thm32_draw_item(30))}.json").exists()


def test_thm32_store_resumes_with_the_items_not_stored(tmp_path, monkeypatch):
    import resnet_nb.hardt_ma.relu.theorem32_width as tw

    first = hr.reproduce_thm32(tmp_path, seeds=(30,), point_sets=_small_point_sets())
    calls = []
    monkeypatch.setattr(tw, "thm32_draw_row", lambda seed, greedy=False: calls.append(seed) or dict(seed=seed))
    monkeypatch.setattr(tw, "projection_row", lambda X, k, seed: calls.append((k, seed)) or dict(k=k, seed=seed))
    again = hr.reproduce_thm32(tmp_path, seeds=(30,), point_sets=_small_point_sets())
    assert calls == []
    for a, b in zip(first, again, strict=True):
        assert a.equals(b)
    hr.reproduce_thm32(tmp_path, seeds=(30, 32), point_sets=_small_point_sets())
    assert calls == [32]


def test_thm32_store_refuses_a_damaged_record_and_an_empty_folder(tmp_path):
    from resnet_nb.shared.store import item_key

    with pytest.raises(FileNotFoundError, match="out: .* holds no records"):
        hr.load_thm32(tmp_path)
    hr.reproduce_thm32(tmp_path, seeds=(30,), point_sets={})
    path = tmp_path / "records" / f"{item_key(hr.thm32_draw_item(30))}.json"
    path.write_text(path.read_text().replace('"seed":30', '"seed":31'))
    with pytest.raises(ValueError, match="damaged record .*tampered"):
        hr.load_thm32(tmp_path)


def test_paper_width_is_the_proofs_formula_with_the_papers_constant_c_10():
    for n, rho in ((2, 1.0), (100, 0.5), (600, 0.3)):
        assert paper_width(n, rho) == math.ceil(10 * math.log(n) / rho**2)
        assert paper_width(n, rho, c=0.5) == math.ceil(0.5 * math.log(n) / rho**2)
    assert paper_width(2, 1.0) == 7


def test_paper_width_arguments():
    with pytest.raises(ValueError, match=r"\bn must"):
        paper_width(1, 0.5)
    for rho in (0.0, -0.5):
        with pytest.raises(ValueError, match=r"\brho_paper must"):
            paper_width(10, rho)
    for c in (0.0, -1.0):
        with pytest.raises(ValueError, match=r"\bc must"):
            paper_width(10, 0.5, c=c)


def test_claim_holds_and_its_falsifier_is_rejected(check_claim):
    check_claim("hm-thm32")


def test_jl_step_rates_summarise_each_reading_over_the_draws_at_the_configured_level(monkeypatch):
    # a smaller configuration (read at call time) keeps this fast; a small c makes some draws fail
    for key, value in (("n", 60), ("d", 30), ("level", 0.8)):
        monkeypatch.setitem(hr.THM32_DRAWS, key, value)
    c, draws = 0.3, 3
    rates = hr.jl_step_rates(c, draws=draws)
    assert set(rates) == set(hr.RHO_READINGS)
    for name in hr.RHO_READINGS:
        fails, ks, excess, rhos = [], [], [], []
        for seed in range(draws):
            X, _ = hr.random_unit_draw(seed, 60, 30)
            rho = separation(X) ** 2 if name == "squared distance" else separation(X)
            k = paper_width(60, rho, c)
            e = hr.jl_distortion(X, k, hr.THM32_DRAWS["projection_offset"] + seed) / (rho / 3)
            fails.append(e > 1)
            ks.append(k)
            excess.append(e)
            rhos.append(rho)
        got = rates[name]
        x = sum(fails)
        assert (got["failures"], got["draws"], got["rate"]) == (x, draws, x / draws)
        assert (got["low"], got["high"]) == pytest.approx(hr.clopper_pearson(x, draws, 0.8), rel=1e-12)
        assert (got["k_min"], got["k_max"]) == (min(ks), max(ks))
        assert (got["excess_min"], got["excess_max"]) == pytest.approx((min(excess), max(excess)), rel=1e-12)
        assert (got["rho_min"], got["rho_max"]) == pytest.approx((min(rhos), max(rhos)), rel=1e-12)
    assert 0 < rates["distance"]["failures"] or 0 < rates["squared distance"]["failures"]
    with pytest.raises(ValueError, match=r"\bdraws\b"):
        hr.jl_step_rates(c, draws=0)


def test_failure_rate_counts_the_true_entries_and_takes_the_interval_at_its_level():
    got = hr.failure_rate([0, 2, 0, 1, 0], level=0.9)  # any non-zero entry is a failure
    assert (got["failures"], got["draws"], got["rate"]) == (2, 5, 0.4)
    assert (got["low"], got["high"]) == hr.clopper_pearson(2, 5, 0.9)
    assert hr.failure_rate(np.array([False, True, True]))["failures"] == 2


def test_chapter_point_sets_are_n_unit_points_of_each_kind():
    sets = hr.chapter_point_sets(2)  # the smallest n accepted
    for name, dim in (("synthetic", 100), ("MNIST", 784)):
        X, y = sets[name]
        assert X.shape == (dim, 2) and y.shape == (2,)
        assert np.linalg.norm(X, axis=0) == pytest.approx([1.0, 1.0], rel=1e-12)
    with pytest.raises(ValueError, match=r"\bn\b"):
        hr.chapter_point_sets(1)


def test_projection_row_holds_every_column_of_the_committed_table():
    _, proj = hr.load_thm32()
    X = hr.chapter_point_sets()["synthetic"][0]
    for k, seed in ((20, 0), (46, 3)):
        live = hr.projection_row(X, k, seed)
        saved = proj[(proj.data == "synthetic") & (proj.k == k) & (proj.seed == seed)].iloc[0]
        assert set(live) == set(proj.columns) - {"data"}
        assert (live["k"], live["seed"], bool(live["refuses"])) == (k, seed, bool(saved.refuses))
        for key in ("min_margin", "min_norm", "max_norm"):
            assert live[key] == pytest.approx(saved[key], rel=1e-12), key
        assert live["exposed"] == saved.exposed


def test_clopper_pearson_checks_its_counts_and_level_by_name():
    for call, name in (
        (lambda: hr.clopper_pearson(-1, 4), "x"),
        (lambda: hr.clopper_pearson(5, 4), "x"),
        (lambda: hr.clopper_pearson(0, 0), "n"),
        (lambda: hr.clopper_pearson(1, 4, level=0.0), "level"),
        (lambda: hr.clopper_pearson(1, 4, level=1.0), "level"),
    ):
        with pytest.raises(ValueError, match=rf"\b{name}\b"):
            call()
    # just inside: a level near 0 gives a short interval around the rate, near 1 one reaching 0 and 1
    low, high = hr.clopper_pearson(2, 4, level=1e-9)
    assert 0.3 < low < 0.5 < high < 0.7
    low, high = hr.clopper_pearson(2, 4, level=1 - 1e-12)
    assert low < 1e-3 and high > 1 - 1e-3
    assert hr.clopper_pearson(0, 1) == (0.0, pytest.approx(0.975))


def test_jl_distortion_refuses_a_zero_width_and_a_zero_column_by_name():
    X = np.random.default_rng(0).standard_normal((5, 4))
    with pytest.raises(ValueError, match=r"\bk\b"):
        hr.jl_distortion(X, 0)
    X[:, 2] = 0.0
    with pytest.raises(ValueError, match=r"\bX has a zero column"):
        hr.jl_distortion(X, 3)


def test_draw_row_holds_the_tables_columns_and_the_greedy_error_at_assumption_31s_width():
    columns = set(hr.load_thm32()[0].columns)
    row = hr.thm32_draw_row(0, greedy=True)
    assert set(row) == columns
    dr = hr.thm32_draw(0)
    assert (row["seed"], row["projection_seed"], row["separation"]) == (0, dr["projection_seed"], dr["separation"])
    k = paper_width(600, dr["rho"]["squared distance"], 10.0)  # Assumption 3.1's reading, c = 10
    assert row["k_sq_c10"] == k
    assert row["greedy_error"] == hr.construction_fit_error(dr["X"], dr["y"], 10, k, "greedy", dr["projection_seed"])[0]
    assert set(hr.thm32_draw_row(1)) == columns - {"greedy_error"}


def test_chapter_point_sets_carry_ten_labels():
    for name, (_, y) in hr.chapter_point_sets(300).items():
        assert sorted(set(y.tolist())) == list(range(10)), name  # 300 draws of 10 labels: all seen, none beyond


def test_stored_projection_rows_come_synthetic_then_mnist_then_others_by_name_each_by_width(tmp_path, monkeypatch):
    import resnet_nb.hardt_ma.relu.theorem32_width as tw

    monkeypatch.setattr(tw, "projection_row", lambda X, k, seed: dict(k=k, seed=seed))
    X = unit_norm_columns(np.random.default_rng(5).standard_normal((60, 40)))  # widths 20 and 46 below d
    sets = {name: (X, None) for name in ("zebra", "MNIST", "Aardvark", "synthetic")}
    _, proj = hr.reproduce_thm32(tmp_path, seeds=(), point_sets=sets)
    assert list(dict.fromkeys(proj.data)) == ["synthetic", "MNIST", "Aardvark", "zebra"]
    for name in sets:
        ks = list(proj[proj.data == name].k)
        assert ks == sorted(ks) and len(set(ks)) >= 2


def test_stored_tables_lead_with_the_draw_and_then_each_reading_and_constant_in_turn():
    draws, proj = hr.load_thm32()
    tags = [f"{reading}_c{c}" for c in (10, 30) for reading in ("sq", "dist")]
    per_tag = [f"{p}_{t}" for t in tags for p in ("k", "refuses", "jl_excess")]
    assert list(draws.columns) == ["seed", "projection_seed", "separation", *per_tag, "greedy_error"]
    assert list(proj.columns) == ["data", "k", "seed", "min_margin", "exposed", "min_norm", "max_norm", "refuses"]
