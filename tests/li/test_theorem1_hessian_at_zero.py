"""Theorem 1 parts 2 and 3 (resnet_nb.li.theorem1.hessian_at_zero): Eqs. 11-13, 20-21, 25 and 28,
the spectrum and its depth invariance, the depth table and the book's Proposition on 1-shortcut growth."""

import math
import warnings

import numpy as np
import pytest
import torch
from helpers import labelled, random_dataset, shared_scope

import resnet_nb.li.theorem1 as t1
from resnet_nb import Dataset, ShortcutNetwork
from resnet_nb.core.data import SufficientStats
from resnet_nb.core.hessians import (
    eq11_assemble,
    eq13_assemble,
    hessian,
    hessian_linear,
    loss_function,
    spectrum,
    theorem1_blocks,
)
from resnet_nb.li.theorem1 import depth_table, eq21_A, eq25_B, eq28_A, part2_check, part3_check, shuffle_matrix

EPS = 2.0**-52


F64 = torch.float64


def test_shuffle_matrix_is_the_commutation_permutation():
    d = 4
    P = shuffle_matrix(d)
    assert torch.equal(P @ P.T, torch.eye(d * d, dtype=torch.float64))
    X = torch.arange(d * d, dtype=torch.float64).reshape(d, d)

    def vec(A):
        return A.T.reshape(-1)  # column-major, as Definition 5

    assert torch.equal(P.T @ vec(X), vec(X.T))


def test_eq21_matches_closed_form_A(data3):
    net = ShortcutNetwork(3, 2, 1, pre="tanh", post="silu")
    b = theorem1_blocks(net, data3)
    assert float((b["A"] - eq21_A(b["M"])).abs().max()) == 0.0


def test_eq25_eq28_match_closed_form(data3):
    net = ShortcutNetwork(3, 1, 1)
    s = data3.stats()
    b = theorem1_blocks(net, s)
    assert float((b["B"] - eq25_B(s.Sxx)).abs().max()) < 1e-15
    assert float((b["A"] - eq28_A(s.Sxx, s.Syx)).abs().max()) < 1e-15


def test_assemblers_reject_bad_R():
    A = torch.eye(4, dtype=torch.float64)
    with pytest.raises(ValueError, match=r"\bR must"):
        eq11_assemble(A, 0)
    with pytest.raises(ValueError, match=r"\bR must"):
        eq13_assemble(A, A, 0)


@pytest.mark.parametrize("acts", [{}, {"pre": "tanh", "mid": "tanh", "post": "silu"}, {"pre": "relu"}])
def test_part2_holds(data3, acts):
    res = part2_check(ShortcutNetwork(3, 2, 3, **acts), data3)
    assert res.passed, str(res)
    assert res.values["lam_min"] < 0
    assert abs(res.values["cond_H"] - res.values["cond_M"]) <= 1e-10 * res.values["cond_M"]


def test_part2_fails_on_a_perturbed_hessian(data3):
    net = ShortcutNetwork(3, 2, 2)
    H = hessian(net, torch.zeros(net.shape, dtype=torch.float64), data3)
    E = torch.zeros_like(H)
    E[0, 20] = E[20, 0] = 1e-3  # a coupling between unit 0 and unit 1
    assert part2_check(net, data3, H=H).passed
    assert part2_check(net, data3, H=H + E).rejected_on_value


def test_part2_rejects_wrong_n(data3):
    with pytest.raises(ValueError, match="n = 2"):
        part2_check(ShortcutNetwork(3, 1, 2), data3)


def test_depth_table_two_shortcut_invariant(data3):
    rows = depth_table(2, [1, 2, 5], data3.stats(), progress=False)
    conds = [r["cond"] for r in rows]
    assert max(conds) - min(conds) <= 1e-10 * conds[0]
    assert abs(conds[0] - rows[0]["predicted"]) <= 1e-10 * conds[0]
    assert all(r["off_unit_max"] == 0.0 for r in rows)


@pytest.mark.parametrize("acts", [{}, {"pre": "tanh", "post": "silu"}])
def test_part3_holds(data3, acts):
    res = part3_check(ShortcutNetwork(3, 1, 4, **acts), data3)
    assert res.passed, str(res)


def test_part3_fails_on_a_perturbed_hessian(data3):
    net = ShortcutNetwork(3, 1, 3)
    H = hessian(net, torch.zeros(net.shape, dtype=torch.float64), data3)
    E = torch.zeros_like(H)
    E[25, 1] = E[1, 25] = 1e-3  # block (2, 0) no longer equals block (1, 0)
    assert part3_check(net, data3, H=H + E).rejected_on_value


def test_one_shortcut_condition_grows(data3):
    rows = depth_table(1, [1, 4, 16], data3.stats(), progress=False)
    c = [r["cond10"] for r in rows]
    assert c[0] < c[1] < c[2]


def test_growth_bounds_hold_and_reject_depth_invariance(data3):
    from resnet_nb.li.theorem1 import growth_check

    assert growth_check(data3.stats(), (2, 4, 8)).passed
    assert growth_check(data3.stats(), (2, 4, 8), variant="pairs_once").parts[1].rejected_on_value


def _stats(Syx):
    """Sufficient statistics with Sxx = I and a chosen Syx (M = Sxx - Syx), for a linear network."""
    d = Syx.shape[0]
    return SufficientStats(torch.eye(d, dtype=F64), Syx.to(F64), 1.0, 10)


def test_shuffle_matrix_names_its_argument():
    with pytest.raises(ValueError, match=r"\bd must"):
        t1.shuffle_matrix(0)


def test_eq21_A_needs_a_square_M():
    # M is d x d (Eq. 12); a non-square M has no Eq. 21
    with pytest.raises(RuntimeError):
        t1.eq21_A(torch.ones(2, 3, dtype=F64))


def test_unitwise_spectrum_reports_every_entry_outside_the_unit_blocks():
    net = ShortcutNetwork(1, 1, 2)  # q = 1: units are single coordinates
    for a, b in ((1, 0), (0, 1)):
        H = torch.diag(torch.tensor([1.0, 2.0], dtype=F64))
        H[a, b] = 0.25
        eigs, off = t1.unitwise_spectrum(H, net)
        assert off == 0.25
    # a coupling of exactly 1: the spectrum of the whole matrix, not the units' spectra
    H = torch.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=F64)
    eigs, off = t1.unitwise_spectrum(H, net)
    assert off == 1.0
    assert np.allclose(eigs, [-1.0, 1.0])
    net3 = ShortcutNetwork(1, 1, 3)
    H = torch.diag(torch.tensor([1.0, 2.0, 3.0], dtype=F64))
    eigs, off = t1.unitwise_spectrum(H, net3)
    assert off == 0.0 and np.allclose(eigs, [1.0, 2.0, 3.0])


@pytest.fixture(scope=shared_scope)
def dst():
    g = torch.Generator().manual_seed(7)
    return Dataset(torch.randn(2, 20, generator=g, dtype=F64), torch.randn(2, 20, generator=g, dtype=F64)).stats()


def test_depth_invariance_reports_the_conditions(dst):
    res = t1.depth_invariance_check(2, (1, 2, 3), dst)
    assert res.passed
    labelled(res)
    conds = []
    for R in (1, 2, 3):
        net = ShortcutNetwork(2, 2, R)
        a = np.abs(spectrum(hessian_linear(net, torch.zeros(net.shape, dtype=F64), dst)))
        conds.append(float(a.max() / a.min()))
    assert res.values["conds"] == pytest.approx(conds, rel=1e-9, abs=0)
    assert res.values["Rs"] == [1, 2, 3]
    c = res.values["conds"]
    assert res.values["spread"] == (max(c) - min(c)) / min(c) == res.value
    assert res.tol == pytest.approx(100 * 24 * EPS * max(c), rel=1e-12, abs=0)
    # the depths and parameter counts it reports: R = 1..3, #params = 8..24
    v = res.values
    assert (v["n"], v["R_lo"], v["R_hi"], v["P_lo"], v["P_hi"]) == (2, 1, 3, 8, 24)
    assert len(res.lines) == 1 and not res.parts


def test_depth_invariance_falsifier_and_arguments(dst):
    r = t1.depth_invariance_check(1, (1, 3), dst)
    assert not r.passed and r.values["spread"] > 1e-3
    c = r.values["conds"]
    assert r.values["spread"] == (max(c) - min(c)) / min(c) and min(c) != 1
    with pytest.raises(ValueError, match=r"\bRs\b"):
        t1.depth_invariance_check(2, (2,), dst)
    with pytest.raises(ValueError, match=r"\bR must"):
        t1.depth_invariance_check(2, (1, 0), dst)


@pytest.fixture(scope=shared_scope)
def p3():
    g = torch.Generator().manual_seed(3)
    X = 0.3 * torch.randn(2, 30, generator=g, dtype=F64)
    Y = 0.3 * torch.randn(2, 30, generator=g, dtype=F64)
    st = Dataset(X, Y).stats()
    net = ShortcutNetwork(2, 1, 3)
    return net, st, t1.part3_check(net, st)


def test_part3_reports_what_it_compares(p3):
    net, st, res = p3
    assert res.passed
    labelled(res)
    H = hessian_linear(net, torch.zeros(net.shape, dtype=F64), st)
    q = 4
    v = res.values
    assert torch.equal(v["H"], H)
    hmax = float(H.abs().max())
    assert hmax < 1
    P = net.num_params
    for p in res.parts:
        assert p.tol == pytest.approx(100 * P * EPS * hmax, rel=1e-12, abs=0)
    coupling = float(H[q : 2 * q, :q].abs().max())
    assert v["coupling"] == coupling and res.parts[0].nontrivial == coupling
    assert float(H[2 * q :, :q].abs().max()) > 0
    assert res.parts[1].nontrivial == hmax
    blocks = theorem1_blocks(net, st)
    assert v["err"] == float((H - eq13_assemble(blocks["A"], blocks["B"], net.R)).abs().max())
    toe = max(
        float(
            (
                H[a * q : (a + 1) * q, b * q : (b + 1) * q]
                - (H[:q, :q] if a == b else H[q : 2 * q, :q] if a > b else H[q : 2 * q, :q].T)
            )
            .abs()
            .max()
        )
        for a in range(3)
        for b in range(3)
    )
    assert v["toeplitz"] == toe
    # a linear network: the paper's Eqs. 25 and 28 are compared too, by the Kronecker route
    assert len(res.parts) == 4 and v["linear"] and v["method"] == "kronecker"
    assert res.parts[2].value == v["err_B25"] and res.parts[3].value == v["err_A28"]
    assert v["err_B25"] == float((blocks["B"] - eq25_B(st.Sxx)).abs().max()) < 1e-15
    assert v["err_A28"] == float((blocks["A"] - eq28_A(st.Sxx, st.Syx)).abs().max()) < 1e-15


def test_part3_toeplitz_uses_the_first_subdiagonal_block(p3):
    net, st, res = p3
    H = res.values["H"].clone()
    q = 4
    H[2 * q : 3 * q, :q] += 0.5  # block (2, 0) only: breaks Toeplitz, block (1, 0) is the reference
    r = t1.part3_check(net, st, H=H)
    assert r.values["toeplitz"] == pytest.approx(0.5, rel=1e-12, abs=0)
    assert r.values["coupling"] == res.values["coupling"]
    H = res.values["H"].clone()
    H[q : 2 * q, q : 2 * q] += 0.25  # diagonal block (1, 1) only
    r = t1.part3_check(net, st, H=H)
    assert r.values["toeplitz"] == pytest.approx(0.25, rel=1e-12, abs=0)
    assert r.values["coupling"] == res.values["coupling"]


def test_part3_one_unit_has_no_coupling():
    st = random_dataset(2, 10).stats()
    r = t1.part3_check(ShortcutNetwork(2, 1, 1), st)
    assert r.values["coupling"] == 0.0 and r.values["toeplitz"] == 0.0
    r2 = t1.part3_check(ShortcutNetwork(2, 1, 2), st)
    assert r2.values["coupling"] == float(r2.values["H"][4:, :4].abs().max()) > 0


def test_part3_falsifier_is_labelled_and_rejected(p3):
    net, st, _ = p3
    r = t1.part3_check(net, st, variant="eq25_without_P")
    # Eq. 25 without P fails, and with it Eq. 28 built on it; the closed forms still hold
    assert [p.passed for p in r.parts] == [True, True, False, False]
    assert r.parts[2].rejected_on_value and r.values["err_B25"] > 1e-3
    with pytest.raises(ValueError, match=r"\bvariant\b"):
        t1.part3_check(net, st, variant="bogus")
    with pytest.raises(ValueError, match="part 3"):
        t1.part3_check(ShortcutNetwork(2, 2, 1), st)


@pytest.fixture(scope=shared_scope)
def p2lin():
    # M = diag(0.8, 0.6): cond(M) = 4/3 < 2, max |H| < 1
    st = _stats(Syx=torch.diag(torch.tensor([0.2, 0.4], dtype=F64)))
    net = ShortcutNetwork(2, 2, 2)
    return net, st, t1.part2_check(net, st)


def test_part2_reports_what_it_compares(p2lin):
    net, st, res = p2lin
    assert res.passed
    labelled(res)
    P = net.num_params
    H = hessian_linear(net, torch.zeros(net.shape, dtype=F64), st)
    v = res.values
    assert torch.equal(v["H"], H)
    hmax = float(H.abs().max())
    assert v["hmax"] == hmax and hmax == pytest.approx(0.8, abs=0)
    # tolerance: 100 P eps max|H| (not max(max|H|, 1))
    assert res.parts[0].tol == pytest.approx(100 * P * EPS * hmax, rel=1e-12, abs=0)
    assert res.parts[0].nontrivial == hmax
    assert v["method"] == "kronecker" and v["mult"] == net.d * net.R
    assert res.parts[2].value == v["err_mult"] == 0 and res.parts[5].value == v["err_eigs"]
    assert res.parts[5].nontrivial == 0.8
    # relative tolerance of Eq. 12: 100 P eps, whatever cond(H) (here cond(H) = 4/3 < 2)
    assert v["cond_H"] == pytest.approx(4 / 3, rel=1e-12, abs=0)
    assert res.parts[3].tol == pytest.approx(100 * P * EPS, rel=1e-12, abs=0)
    assert v["cond_M"] == pytest.approx(4 / 3, rel=1e-12, abs=0)
    assert v["cond_eq12"] == pytest.approx(4 / 3, rel=1e-12, abs=0)
    assert v["rel_cond"] == pytest.approx(abs(v["cond_H"] - v["cond_eq12"]) / v["cond_eq12"], abs=1e-15)
    assert res.parts[3].value == v["rel_cond"]
    blocks = theorem1_blocks(net, st)
    assert v["err_H"] == float((H - eq11_assemble(blocks["A"], net.R)).abs().max())
    assert v["err_A"] == float((blocks["A"] - t1.eq21_A(blocks["M"])).abs().max())
    eigs = spectrum(H)
    assert np.array_equal(v["eigs"], eigs)
    assert np.allclose(v["sv"], [0.8, 0.6])
    pred = np.sort(np.repeat([0.8, 0.6, -0.8, -0.6], net.d * net.R))
    assert v["err_eigs"] == pytest.approx(float(np.abs(eigs - pred).max()), abs=1e-15)
    assert v["err_eigs"] < 1e-12
    # strict saddle at t = 1e-3 along the eigenvector of lambda_min
    lam, vecs = torch.linalg.eigh(H)
    f = loss_function(net, st)
    w0 = torch.zeros(net.num_params, dtype=F64)
    drop = float(f(w0 + 1e-3 * vecs[:, 0]) - f(w0))
    quad = 0.5e-6 * float(lam[0])
    assert v["lam_min"] == float(lam[0]) == pytest.approx(-0.8, abs=0)
    assert v["drop"] == drop and v["quad"] == quad
    assert v["saddle_gap"] == abs(drop - quad) / abs(quad)
    assert v["saddle_ok"] is True
    assert res.parts[4].value == v["saddle_gap"] and res.parts[4].tol == 10 * 1e-3
    assert len(res.lines) == 1


def test_part2_falsifiers_are_labelled_and_rejected(p2lin):
    net, st, _ = p2lin
    r = t1.part2_check(net, st, variant="eq21_without_P")
    assert not r.parts[0].passed and r.parts[0].rejected_on_value and r.parts[2].passed
    assert r.values["err_H"] > 0.1
    ok = t1.part2_check(net, st)
    assert ok.parts[2].value == 0 and ok.parts[2].tol == 0 and ok.parts[5].passed
    assert list(ok.values["counts"]) == [net.d * net.R] * (2 * net.d)
    for variant, mult in (("multiplicity_d", net.d), ("multiplicity_R", net.R)):
        r = t1.part2_check(net, st, variant=variant)
        assert r.values["mult"] == mult
        # the values still sit at the levels: only the counts reject the misreading
        assert r.parts[5].passed and r.parts[2].rejected_on_value
        assert r.values["err_mult"] == abs(net.d * net.R - mult)
    r = t1.part2_check(net, st, variant="eq12_without_sqrt")
    assert [p.passed for p in r.parts] == [True, True, True, False, True, True]
    assert r.values["cond_eq12"] == pytest.approx((4 / 3) ** 2, rel=1e-12, abs=0)
    with pytest.raises(ValueError, match=r"\bvariant\b"):
        t1.part2_check(net, st, variant="bogus")


def test_part2_saddle_verdict_reads_the_lowest_eigenvalue_and_the_loss():
    st = _stats(Syx=torch.diag(torch.tensor([0.2, 0.4], dtype=F64)))
    net = ShortcutNetwork(2, 2, 1)
    H = hessian_linear(net, torch.zeros(net.shape, dtype=F64), st)
    lam, vecs = torch.linalg.eigh(H)
    f = loss_function(net, st)
    w0 = torch.zeros(net.num_params, dtype=F64)
    # a wrong H: -H has the same spectrum, but its lowest eigenvector is a direction of ascent
    r = t1.part2_check(net, st, H=-H)
    assert r.values["saddle_ok"] is False and r.parts[4].value == math.inf
    assert r.values["drop"] > 0
    # lowest eigenvalue negative with eigenvector u (true descent), all others large and positive
    u = vecs[:, 0]
    K = 5.0
    Hf = float(lam[0]) * torch.outer(u, u) + K * (torch.eye(net.num_params, dtype=F64) - torch.outer(u, u))
    r = t1.part2_check(net, st, H=Hf)
    assert r.values["saddle_ok"] is True
    assert r.values["quad"] == pytest.approx(0.5e-6 * float(lam[0]), rel=1e-12, abs=0)
    assert r.values["drop"] == pytest.approx(float(f(w0 + 1e-3 * u) - f(w0)), rel=1e-12, abs=0)
    assert r.values["lam_min"] == pytest.approx(float(lam[0]), rel=1e-12, abs=0)
    # lowest eigenvalue positive along a direction where the loss curves upwards by exactly that
    w = vecs[:, -1]
    Hp = float(lam[-1]) * torch.outer(w, w) + K * (torch.eye(net.num_params, dtype=F64) - torch.outer(w, w))
    # is no saddle: the gap is measured only against a negative model
    r = t1.part2_check(net, st, H=Hp)
    assert r.values["quad"] > 0 and abs(r.values["drop"] - r.values["quad"]) < 1e-2 * r.values["quad"]
    assert r.values["saddle_gap"] == math.inf
    assert r.values["saddle_ok"] is False and r.parts[4].value == math.inf
    # H = 0: no quadratic model, the saddle part fails (no division by zero)
    r = t1.part2_check(net, st, H=torch.zeros_like(H))
    assert r.values["quad"] == 0 and r.values["saddle_gap"] == math.inf and not r.parts[4].passed


def test_part2_saddle_drop_is_measured_forwards_along_the_eigenvector():
    # silu at mid is not odd: L(tv) and L(-tv) differ at order t^3
    data = random_dataset(2, 12, seed=4)
    net = ShortcutNetwork(2, 2, 1, mid="silu")
    r = t1.part2_check(net, data)
    assert r.values["method"] == "autograd"
    H = r.values["H"]
    lam, vecs = torch.linalg.eigh(H)
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=F64)
    drop = float(f(w0 + 1e-3 * vecs[:, 0]) - f(w0))
    assert abs(drop - float(f(w0 - 1e-3 * vecs[:, 0]) - f(w0))) > 1e-9 * abs(drop)
    assert r.values["drop"] == pytest.approx(drop, rel=1e-12, abs=0)


def test_part2_singular_M_reports_infinite_conditions_without_dividing_by_zero():
    st = _stats(Syx=torch.diag(torch.tensor([0.0, 1.0], dtype=F64)))  # M = diag(1, 0)
    net = ShortcutNetwork(2, 2, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = t1.part2_check(net, st)
    assert r.values["cond_M"] == math.inf and r.values["cond_eq12"] == math.inf
    assert math.isnan(r.values["rel_cond"])


def test_part2_needs_n_2():
    with pytest.raises(ValueError, match="part 2"):
        t1.part2_check(ShortcutNetwork(2, 1, 1), random_dataset(2, 5))


def test_depth_table_rows():
    data = random_dataset(2, 12, seed=6)
    rows = t1.depth_table(2, [1, 2], data, progress=False)
    M = theorem1_blocks(ShortcutNetwork(2, 2, 1), data)["M"]
    sv = torch.linalg.svdvals(M)
    for row, R in zip(rows, (1, 2)):
        net = ShortcutNetwork(2, 2, R)
        eigs = spectrum(hessian_linear(net, torch.zeros(net.shape, dtype=F64), data))
        a = np.abs(eigs)
        assert row["depth"] == 2 * R and row["R"] == R and row["P"] == net.num_params
        assert row["cond"] == pytest.approx(a.max() / a.min(), rel=1e-9, abs=0)
        assert row["cond10"] == pytest.approx(a.max() / np.percentile(a, 10), rel=1e-9, abs=0)
        assert row["lam_min"] == pytest.approx(eigs[0], rel=1e-12, abs=0)
        assert row["lam_max"] == pytest.approx(eigs[-1], rel=1e-12, abs=0)
        assert row["predicted"] == pytest.approx(float(sv.max() / sv.min()), rel=1e-12, abs=0)
        assert row["off_unit_max"] == 0.0
    r1 = t1.depth_table(1, [2], data, progress=False)[0]
    assert r1["predicted"] is None and r1["off_unit_max"] > 0 and r1["depth"] == 2
    rt = t1.depth_table(2, [2], data, progress=False, mid="tanh")[0]
    assert rt["lam_max"] == pytest.approx(rows[1]["lam_max"], rel=1e-9, abs=0)
    cond_stats = t1.depth_table(2, [1], data.stats(), progress=False)[0]["cond"]
    assert cond_stats == pytest.approx(rows[0]["cond"], rel=1e-9, abs=0)


@pytest.fixture(scope=shared_scope)
def gstats():
    g = torch.Generator().manual_seed(8)
    X = torch.randn(2, 30, generator=g, dtype=F64)
    return Dataset(X, X + 0.7 * torch.randn(2, 30, generator=g, dtype=F64))


def test_growth_bounds_rows(gstats):
    st = gstats.stats()
    rows = t1.growth_bounds((1, 3), st)
    blocks = theorem1_blocks(ShortcutNetwork(2, 1, 1), st)
    A, B = blocks["A"], blocks["B"]
    for row, R in zip(rows, (1, 3)):
        net = ShortcutNetwork(2, 1, R)
        H = hessian_linear(net, torch.zeros(net.shape, dtype=F64), st)
        a = np.abs(spectrum(H))
        N = a.size
        assert row["R"] == R and row["depth"] == R and row["P"] == N == 4 * R
        assert row["lam_max"] == a.max()
        assert row["trH2"] == pytest.approx(float((H**2).sum()), rel=1e-14, abs=0)
        trf = R * float((B**2).sum()) + R * (R - 1) * float((A**2).sum())
        assert row["trH2_formula"] == pytest.approx(trf, rel=1e-14, abs=0)
        assert row["trH2"] == pytest.approx(trf, rel=1e-12, abs=0)  # the identity the Proposition uses
        # the lower bound is the Rayleigh quotient of the test vector (z, ..., z) / sqrt(R)
        lam, Z = torch.linalg.eigh(B + (R - 1) * (A + A.T) / 2)
        z = Z[:, -1].repeat(R) / math.sqrt(R)
        assert row["lower_bound"] == pytest.approx(float(z @ H @ z), rel=1e-12, abs=0)
        assert row["lower_bound"] == pytest.approx(float(lam[-1]), rel=1e-14, abs=0)
        k = N - math.ceil((N - 1) / 10)
        assert int((a >= np.percentile(a, 10)).sum()) >= k
        assert row["p10"] == np.percentile(a, 10)
        assert row["p10_bound"] == pytest.approx(math.sqrt(trf / k), rel=1e-14, abs=0)
        assert row["cond10"] == pytest.approx(a.max() / np.percentile(a, 10), rel=1e-14, abs=0)
        assert row["cond10_bound"] == pytest.approx(row["lower_bound"] / row["p10_bound"], rel=1e-14, abs=0)
        assert row["c_prime"] == pytest.approx(row["cond10_bound"] / math.sqrt(R), rel=1e-14, abs=0)
    with pytest.raises(ValueError, match=r"\bR must"):
        t1.growth_bounds((0,), st)


def test_growth_check_values_and_falsifier(gstats):
    res = t1.growth_check(gstats, (1, 3))  # a Dataset is reduced to its statistics
    assert res.passed
    labelled(res)
    rows = res.values["rows"]
    assert rows == t1.growth_bounds((1, 3), gstats.stats())
    P, lam = 12, max(r["lam_max"] for r in rows)
    tol = 100 * P * EPS * lam
    s0, s1, s2 = res.parts
    assert s0.value == min(r["lam_max"] - r["lower_bound"] for r in rows) and s0.op == ">="
    assert s0.tol == pytest.approx(-tol, rel=1e-12, abs=0)
    assert s1.value == max(abs(r["trH2"] - r["trH2_formula"]) for r in rows)
    assert s1.tol == pytest.approx(100 * P * EPS * max(r["trH2"] for r in rows), rel=1e-12, abs=0)
    assert s1.nontrivial == max(r["trH2"] for r in rows)
    assert s2.value == max(r["p10"] - r["p10_bound"] for r in rows) and s2.tol == pytest.approx(tol, rel=1e-12, abs=0)
    assert res.values["Rs"] == [1, 3] and len(res.lines) == 1
    assert t1.growth_check(gstats.stats(), (1, 3)).values["rows"] == rows
    assert [r["R"] for r in t1.growth_check(gstats.stats()).values["rows"]] == [2, 4, 8]
    # the falsifier: each pair of units counted once in tr(H^2); the trace comparison rejects it
    rf = t1.growth_check(gstats.stats(), (1, 3), variant="pairs_once")
    assert rf.rejected_on_value and rf.parts[1].rejected_on_value
    assert rf.parts[0].passed and not rf.parts[1].passed
    b = theorem1_blocks(ShortcutNetwork(2, 1, 1), gstats.stats())
    half = [r["R"] * float((b["B"] ** 2).sum()) + r["R"] * (r["R"] - 1) / 2 * float((b["A"] ** 2).sum()) for r in rows]
    assert [r["trH2_formula"] for r in rf.values["rows"]] == pytest.approx(half, rel=1e-14, abs=0)
    assert rf.parts[1].value == pytest.approx(max(abs(r["trH2"] - h) for r, h in zip(rows, half)), rel=1e-12)
    with pytest.raises(ValueError, match=r"\bvariant\b"):
        t1.growth_check(gstats.stats(), (1, 3), variant="invariant")


def test_exact_hessian_at_zero_routes_and_names_the_method():
    data = random_dataset(2, 10)
    lin = ShortcutNetwork(2, 2, 1)
    H, method = t1.exact_hessian_at_zero(lin, data, "auto")
    assert method == "kronecker"
    assert H.dtype == F64
    assert torch.allclose(H, hessian(lin, torch.zeros(lin.shape, dtype=F64), data), atol=1e-12)
    nl = ShortcutNetwork(2, 2, 1, mid="tanh")
    _, method = t1.exact_hessian_at_zero(nl, data, "auto")
    assert method == "autograd"
    with pytest.raises(ValueError, match=r"\bmethod\b"):
        t1.exact_hessian_at_zero(lin, data, "bogus")


def _eigs_by_autograd(net, data):
    H = hessian(net, torch.zeros(net.shape, dtype=F64), data)
    return np.linalg.eigvalsh(H.numpy())


def test_depth_table_rows_are_the_spectrum_computed_here(data3):
    """lam_min, lam_max and the 10th-percentile condition number of each row against numpy's
    eigenvalues of the autograd Hessian (tolerance 100 P eps |lambda|max)."""
    for n, R in ((2, 2), (1, 3)):
        (row,) = t1.depth_table(n, [R], data3, progress=False)
        eigs = _eigs_by_autograd(ShortcutNetwork(3, n, R), data3)
        tol = 100 * eigs.size * np.finfo(float).eps * np.abs(eigs).max()
        assert row["lam_min"] == pytest.approx(eigs[0], abs=tol)
        assert row["lam_max"] == pytest.approx(eigs[-1], abs=tol)
        a = np.abs(eigs)
        assert row["cond10"] == pytest.approx(a.max() / np.percentile(a, 10), rel=1e-8)
        assert row["lam_min"] < row["lam_max"]


def test_depth_table_passes_activations_to_the_network(data3):
    """A silu between the two matrices halves M (silu'(0) = 1/2): the row's lambda_max is that of
    the silu network, half the linear one."""
    (lin,) = t1.depth_table(2, [1], data3, progress=False)
    (silu,) = t1.depth_table(2, [1], data3, progress=False, mid="silu")
    eigs = _eigs_by_autograd(ShortcutNetwork(3, 2, 1, mid="silu"), data3)
    assert silu["lam_max"] == pytest.approx(eigs[-1], rel=1e-10)
    assert silu["lam_max"] == pytest.approx(lin["lam_max"] / 2, rel=1e-10)


def test_part2_strict_saddle_is_not_claimed_when_the_quartic_term_dominates():
    """When M is tiny (Y almost X) the loss along the lambda_min eigenvector at t = 1e-3 is no
    longer the quadratic model: the check's fifth statement reports the relative gap and fails,
    its tolerance being the next Taylor term 10 t, while the four Hessian statements still hold."""
    g = torch.Generator().manual_seed(3)
    X = torch.randn(3, 200, generator=g, dtype=F64)
    Y = X + 1e-4 * torch.randn(3, 200, generator=g, dtype=F64)
    data = Dataset(X, Y)
    res = t1.part2_check(ShortcutNetwork(3, 2, 1), data)
    saddle = res.parts[4]
    assert not saddle.passed and saddle.tol == pytest.approx(1e-2)
    assert saddle.value == math.inf and res.values["saddle_ok"] is False
    assert res.values["lam_min"] < 0
    assert all(p.passed for p in res.parts if p is not saddle)


def test_growth_bounds_count_k_at_a_size_where_the_ceiling_matters(data3):
    """N = R d^2 = 81 (d = 3, R = 9): N - 1 = 80 is a multiple of 10, so k = N - ceil((N-1)/10)
    = 73 and not 72; ub = sqrt(tr(H^2) formula / k)."""
    st = data3.stats()
    (row,) = t1.growth_bounds([9], st)
    b = theorem1_blocks(ShortcutNetwork(3, 1, 1), st)
    trH2 = 9 * float((b["B"] ** 2).sum()) + 9 * 8 * float((b["A"] ** 2).sum())
    assert row["P"] == 81
    assert row["p10_bound"] == pytest.approx(math.sqrt(trH2 / 73), rel=1e-12)
    assert row["trH2"] == pytest.approx(trH2, rel=1e-10)


def test_exact_hessian_at_zero_takes_either_method_when_asked():
    data = random_dataset(2, 10)
    lin = ShortcutNetwork(2, 2, 1)
    H_a, m_a = t1.exact_hessian_at_zero(lin, data, "autograd")
    H_k, m_k = t1.exact_hessian_at_zero(lin, data, "kronecker")
    assert (m_a, m_k) == ("autograd", "kronecker")
    torch.testing.assert_close(H_a, H_k, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match=r"\bmethod\b"):
        t1.exact_hessian_at_zero(lin, data, "Autograd")


def test_same_picture_is_the_largest_difference_of_the_exact_hessians_at_zero(data3):
    lin, silu = ShortcutNetwork(3, 2, 2), ShortcutNetwork(3, 2, 2, mid="silu")
    H_lin = hessian(lin, torch.zeros(lin.shape, dtype=F64), data3)
    H_silu = hessian(silu, torch.zeros(silu.shape, dtype=F64), data3)
    assert t1.same_picture(lin, silu, data3) == pytest.approx(float((H_lin - H_silu).abs().max()), rel=1e-12)
    assert t1.same_picture(silu, lin, data3) == t1.same_picture(lin, silu, data3) > 1e-3
    # tanh'(0) = 1 and tanh(0) = tanh''(0) = 0: at w = 0 the tanh network's Hessian is the linear one's
    assert t1.same_picture(lin, ShortcutNetwork(3, 2, 2, mid="tanh"), data3) < 1e-14
