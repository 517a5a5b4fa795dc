"""Properties of Theorem 1's proof-step checks (resnet_nb/li/theorem1.py) that the other tests left
unchecked: the values each ledger check reports, its tolerance, the labels it prints, the
falsifier it must reject and its sampling design, each recomputed independently at small sizes.
Each was found by a mutant that survived the suite (see results/mutation/report.md)."""
import math
import warnings

import numpy as np
import pytest
import torch

import resnet_nb.li.theorem1 as t1
from resnet_nb import Dataset, ShortcutNetwork
from resnet_nb.core.data import SufficientStats
from resnet_nb.core.hessians import hessian, hessian_linear, loss_function, spectrum, theorem1_blocks

from helpers import random_dataset

F64 = torch.float64
EPS = 2.0 ** -52


def _labelled(chk):
    """Every check and sub-check names what it checks, what it compares and its criterion."""
    for s in (chk.claim, chk.compared, chk.criterion):
        assert isinstance(s, str) and s
    if chk.nontrivial is not None:
        assert isinstance(chk.nontrivial_what, str) and chk.nontrivial_what
    for p in chk.parts:
        _labelled(p)


def _stats(Syx):
    """Sufficient statistics with Sxx = I and a chosen Syx (M = Sxx - Syx), for a linear network."""
    d = Syx.shape[0]
    return SufficientStats(torch.eye(d, dtype=F64), Syx.to(F64), 1.0, 10)


# -- small helpers: _fmt, subsample --------------------------------------------------------------

def test_fmt():
    assert t1._fmt(0) == "0"
    assert t1._fmt(0.0) == "0"
    assert t1._fmt(-0.0) == "0"
    assert t1._fmt(1.0) == "1"
    assert t1._fmt(0.123456) == "0.12"
    assert t1._fmt(-1234.5) == "-1.2e+03"


def test_subsample_takes_every_kth_sample_from_the_first():
    X = torch.arange(14, dtype=F64).reshape(2, 7)
    Y = -X
    data = Dataset(X, Y, labels=np.arange(7) * 10, info={"source": "toy"})
    s = t1.subsample(data, 3)
    assert torch.equal(s.X, X[:, [0, 3, 6]])
    assert torch.equal(s.Y, Y[:, [0, 3, 6]])
    assert list(s.labels) == [0, 30, 60]
    assert s.info == {"source": "toy", "subsample": 3}
    s1 = t1.subsample(data, 1)
    assert torch.equal(s1.X, X) and torch.equal(s1.Y, Y)
    s7 = t1.subsample(data, 7)  # every = m is allowed: the first sample alone
    assert torch.equal(s7.X, X[:, :1])
    nolab = t1.subsample(Dataset(X, Y), 2)
    assert nolab.labels is None and nolab.info == {"subsample": 2}
    assert torch.equal(nolab.X, X[:, [0, 2, 4, 6]])


def test_subsample_refuses_bad_input():
    data = Dataset(torch.zeros(2, 5, dtype=F64), torch.zeros(2, 5, dtype=F64))
    with pytest.raises(ValueError, match="^data must be a Dataset"):
        t1.subsample(data.stats(), 2)
    with pytest.raises(ValueError, match="^every must be an integer"):
        t1.subsample(data, 0)
    with pytest.raises(ValueError, match="^every must be an integer"):
        t1.subsample(data, 1.0)
    with pytest.raises(ValueError, match="^every must be at most the number of samples 5"):
        t1.subsample(data, 6)


# -- the paper's matrices ------------------------------------------------------------------------

def test_shuffle_matrix_names_its_argument():
    with pytest.raises(ValueError, match="^d must be an integer"):
        t1.shuffle_matrix(0)


def test_eq21_A_needs_a_square_M():
    # M is d x d (Eq. 12); a non-square M has no Eq. 21
    with pytest.raises(RuntimeError):
        t1.eq21_A(torch.ones(2, 3, dtype=F64))


# -- _unitwise_spectrum: the off-unit maximum and the shortcut --------------------------------------

def test_unitwise_spectrum_reports_every_entry_outside_the_unit_blocks():
    net = ShortcutNetwork(1, 1, 2)  # q = 1: units are single coordinates
    for a, b in ((1, 0), (0, 1)):
        H = torch.diag(torch.tensor([1.0, 2.0], dtype=F64))
        H[a, b] = 0.25
        eigs, off = t1._unitwise_spectrum(H, net)
        assert off == 0.25
    # a coupling of exactly 1: the spectrum of the whole matrix, not the units' spectra
    H = torch.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=F64)
    eigs, off = t1._unitwise_spectrum(H, net)
    assert off == 1.0
    assert np.allclose(eigs, [-1.0, 1.0])
    net3 = ShortcutNetwork(1, 1, 3)
    H = torch.diag(torch.tensor([1.0, 2.0, 3.0], dtype=F64))
    eigs, off = t1._unitwise_spectrum(H, net3)
    assert off == 0.0 and np.allclose(eigs, [1.0, 2.0, 3.0])


# -- depth invariance (part 2) ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def dst():
    g = torch.Generator().manual_seed(7)
    return Dataset(torch.randn(2, 20, generator=g, dtype=F64), torch.randn(2, 20, generator=g, dtype=F64)).stats()


def test_depth_invariance_reports_the_conditions(dst):
    res = t1.depth_invariance_check(2, (1, 2, 3), dst)
    assert res.passed
    _labelled(res)
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
    assert res.claim == "cond(H) at 0 does not depend on depth (n = 2, R = 1..3)"
    assert res.criterion.endswith(" (resolution of |lambda|min relative to |lambda|max)")
    assert res.criterion.startswith("100 P eps")
    assert res.lines == ["full eigendecompositions, #params = 8..24: cond(H) = " + ", ".join(f"{x:.6g}" for x in c)]


def test_depth_invariance_falsifier_and_arguments(dst):
    r = t1.depth_invariance_check(1, (1, 3), dst)
    assert not r.passed and r.values["spread"] > 1e-3
    c = r.values["conds"]
    assert r.values["spread"] == (max(c) - min(c)) / min(c) and min(c) != 1
    with pytest.raises(ValueError, match="^Rs must hold at least two depths"):
        t1.depth_invariance_check(2, (2,), dst)
    with pytest.raises(ValueError, match="^R must be an integer"):
        t1.depth_invariance_check(2, (1, 0), dst)


# -- part 3 ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
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
    _labelled(res)
    H = hessian_linear(net, torch.zeros(net.shape, dtype=F64), st)
    q = 4
    v = res.values
    assert torch.equal(v["H"], H)
    hmax = float(H.abs().max())
    assert hmax < 1
    P = net.num_params
    for p in res.parts:
        assert p.tol == pytest.approx(100 * P * EPS * hmax, rel=1e-12, abs=0)
    coupling = float(H[q:2 * q, :q].abs().max())
    assert v["coupling"] == coupling and res.parts[0].nontrivial == coupling
    assert float(H[2 * q:, :q].abs().max()) > 0
    assert res.parts[1].nontrivial == hmax
    blocks = theorem1_blocks(net, st)
    assert v["err"] == float((H - t1.eq13_assemble(blocks["A"], blocks["B"], net.R)).abs().max())
    toe = max(float((H[a * q:(a + 1) * q, b * q:(b + 1) * q]
                     - (H[:q, :q] if a == b else H[q:2 * q, :q] if a > b else H[q:2 * q, :q].T)).abs().max())
              for a in range(3) for b in range(3))
    assert v["toeplitz"] == toe
    assert [p.claim for p in res.parts[2:]] == ["the paper's Eq. 25", "the paper's Eq. 28"]
    assert "kronecker" in res.parts[1].claim


def test_part3_toeplitz_uses_the_first_subdiagonal_block(p3):
    net, st, res = p3
    H = res.values["H"].clone()
    q = 4
    H[2 * q:3 * q, :q] += 0.5  # block (2, 0) only: breaks Toeplitz, block (1, 0) is the reference
    r = t1.part3_check(net, st, H=H)
    assert r.values["toeplitz"] == pytest.approx(0.5, rel=1e-12, abs=0)
    assert r.values["coupling"] == res.values["coupling"]
    H = res.values["H"].clone()
    H[q:2 * q, q:2 * q] += 0.25  # diagonal block (1, 1) only
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
    assert r.parts[2].claim == "the paper's Eq. 25 without P" and not r.parts[2].passed
    with pytest.raises(ValueError, match="variant"):
        t1.part3_check(net, st, variant="bogus")
    with pytest.raises(ValueError, match="^part 3 is about n = 1"):
        t1.part3_check(ShortcutNetwork(2, 2, 1), st)


# -- part 2 ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def p2lin():
    # M = diag(0.8, 0.6): cond(M) = 4/3 < 2, max |H| < 1
    st = _stats(Syx=torch.diag(torch.tensor([0.2, 0.4], dtype=F64)))
    net = ShortcutNetwork(2, 2, 2)
    return net, st, t1.part2_check(net, st)


def test_part2_reports_what_it_compares(p2lin):
    net, st, res = p2lin
    assert res.passed
    _labelled(res)
    P = net.num_params
    H = hessian_linear(net, torch.zeros(net.shape, dtype=F64), st)
    v = res.values
    assert torch.equal(v["H"], H)
    hmax = float(H.abs().max())
    assert v["hmax"] == hmax and hmax == pytest.approx(0.8, abs=0)
    # tolerance: 100 P eps max|H| (not max(max|H|, 1))
    assert res.parts[0].tol == pytest.approx(100 * P * EPS * hmax, rel=1e-12, abs=0)
    assert res.parts[0].nontrivial == hmax
    assert res.parts[0].nontrivial_what == "max |H|"
    assert "kronecker" in res.parts[0].claim and "[A without P]" not in res.parts[0].claim
    assert res.parts[2].claim == f"each level +-sigma_k(M) holds {net.d * net.R} eigenvalues"
    assert res.parts[5].claim == "eigenvalues lie at the levels +-sigma_k(M)" and res.parts[5].nontrivial == 0.8
    assert "sqrt(cond(M^T M))" in res.parts[3].claim
    # relative tolerance of Eq. 12: 100 P eps, whatever cond(H) (here cond(H) = 4/3 < 2)
    assert v["cond_H"] == pytest.approx(4 / 3, rel=1e-12, abs=0)
    assert res.parts[3].tol == pytest.approx(100 * P * EPS, rel=1e-12, abs=0)
    assert v["cond_M"] == pytest.approx(4 / 3, rel=1e-12, abs=0)
    assert v["cond_eq12"] == pytest.approx(4 / 3, rel=1e-12, abs=0)
    assert v["rel_cond"] == pytest.approx(abs(v["cond_H"] - v["cond_eq12"]) / v["cond_eq12"], abs=1e-15)
    assert res.parts[3].value == v["rel_cond"]
    blocks = theorem1_blocks(net, st)
    assert v["err_H"] == float((H - t1.eq11_assemble(blocks["A"], net.R)).abs().max())
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
    assert res.lines == [f"cond(H) = {v['cond_H']:.6g}; sigma_max/sigma_min(M) = {v['cond_M']:.6g}; "
                         f"lambda_min = {float(lam[0]):.4g}"]


def test_part2_falsifiers_are_labelled_and_rejected(p2lin):
    net, st, _ = p2lin
    r = t1.part2_check(net, st, variant="eq21_without_P")
    assert "[A without P]" in r.parts[0].claim and not r.parts[0].passed
    ok = t1.part2_check(net, st)
    assert ok.parts[2].value == 0 and ok.parts[2].tol == 0 and ok.parts[5].passed
    assert list(ok.values["counts"]) == [net.d * net.R] * (2 * net.d)
    for variant, mult in (("multiplicity_d", net.d), ("multiplicity_R", net.R)):
        r = t1.part2_check(net, st, variant=variant)
        assert r.parts[2].claim == f"each level +-sigma_k(M) holds {mult} eigenvalues"
        # the values still sit at the levels: only the counts reject the misreading
        assert r.parts[5].passed and r.parts[2].rejected_on_value
        assert r.values["err_mult"] == abs(net.d * net.R - mult)
    r = t1.part2_check(net, st, variant="eq12_without_sqrt")
    assert "= cond(M^T M)" in r.parts[3].claim and not r.parts[3].passed
    assert r.values["cond_eq12"] == pytest.approx((4 / 3) ** 2, rel=1e-12, abs=0)
    with pytest.raises(ValueError, match="variant"):
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
    assert r.lines[0].endswith(f"lambda_min = {float(lam[0]):.4g}")
    # lowest eigenvalue positive along a direction where the loss curves upwards by exactly that
    w = vecs[:, -1]
    Hp = float(lam[-1]) * torch.outer(w, w) + K * (torch.eye(net.num_params, dtype=F64) - torch.outer(w, w))
    r = t1.part2_check(net, st, H=Hp)
    assert r.values["saddle_gap"] < 1e-2
    assert r.values["saddle_ok"] is False and r.parts[4].value == math.inf
    # H = 0: no quadratic model, the saddle part fails (no division by zero)
    r = t1.part2_check(net, st, H=torch.zeros_like(H))
    assert r.values["quad"] == 0 and r.values["saddle_gap"] == math.inf and not r.parts[4].passed


def test_part2_saddle_drop_is_measured_forwards_along_the_eigenvector():
    # silu at mid is not odd: L(tv) and L(-tv) differ at order t^3
    data = random_dataset(2, 12, seed=4)
    net = ShortcutNetwork(2, 2, 1, mid="silu")
    r = t1.part2_check(net, data)
    assert "autograd" in r.parts[0].claim
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
    with pytest.raises(ValueError, match="^part 2 is about n = 2"):
        t1.part2_check(ShortcutNetwork(2, 1, 1), random_dataset(2, 5))


# -- Definition 4 remainder -------------------------------------------------------------------------

def _taylor(net, data):
    return t1.taylor_remainder_check(net, data, seed=0)


def test_taylor_remainder_rows_and_criterion():
    data = random_dataset(2, 12, seed=2)
    net = ShortcutNetwork(2, 2, 1)
    res = _taylor(net, data)
    assert res.passed
    _labelled(res)
    rng = np.random.default_rng(0)
    v = [d for k, d in t1._part1_directions(net, data, 3, rng) if k == "aligned"][0]
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=F64)
    L0 = float(f(w0))
    M = theorem1_blocks(net, data)["M"]
    limit = t1._order_n_directional(net, data, v) / 2
    assert res.values["limit"] == limit
    ts = (1e-1, 1e-2, 1e-3)
    for (t, a, b), tt in zip(res.values["rows"], ts):
        assert t == tt
        assert a == pytest.approx((float(f(w0 + tt * v)) - L0) / tt ** 2, abs=0)
        assert b == pytest.approx((float(f(w0 - tt * v)) - L0) / tt ** 2, abs=0)
    rel = abs(res.values["rows"][-1][1] - limit) / abs(limit)
    rel_back = abs(res.values["rows"][-1][2] - limit) / abs(limit)  # (-1)^2 = 1
    assert res.values["rel"] == rel and res.parts[0].value == rel
    assert res.values["rel_back"] == rel_back
    gaps = [abs(a - limit) / abs(limit) for _, a, _ in res.values["rows"]]
    assert res.values["gaps"] == gaps
    rate = math.log(gaps[0] / gaps[1]) / math.log(10.0)
    assert res.values["rate"] == pytest.approx(rate, rel=1e-12, abs=0) and res.parts[1].value == res.values["rate"]
    assert res.parts[0].tol == pytest.approx(1e-2, abs=0) and res.parts[1].tol == 0.5
    assert res.parts[1].op == ">=" and res.parts[1].passed
    assert res.parts[0].nontrivial == abs(limit)
    assert "at least like t" in res.parts[1].claim and "t = 0.1 and 0.01" in res.parts[1].compared
    assert res.lines[0].startswith("t = 1e-01: (L(tv) - L(0)) / t^2 = ")
    # the default direction is the aligned one: V2 V1 = u1 v1^T / 2 (two unit matrices, |v| = 1),
    # so the limit is sigma_max(M) / 2, as large as a unit direction allows
    assert abs(limit) == pytest.approx(float(torch.linalg.svdvals(M).max()) / 2, rel=1e-12, abs=0)


def test_taylor_remainder_other_orders_and_ts():
    data = random_dataset(2, 12, seed=2)
    net = ShortcutNetwork(2, 3, 1)
    res = t1.taylor_remainder_check(net, data, ts=(1e-1, 1e-2, 5e-3))
    assert res.parts[0].tol == pytest.approx(5e-2, abs=0)
    assert res.values["rate"] >= 1
    assert res.lines[0].startswith("t = 1e-01: (L(tv) - L(0)) / t^3 = ")
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=F64)
    rng = np.random.default_rng(0)
    v = [d for k, d in t1._part1_directions(net, data, 3, rng) if k == "aligned"][0]
    back = float(f(w0 - 5e-3 * v)) - float(f(w0))
    assert res.values["rows"][-1][2] == pytest.approx(back / 5e-3 ** 3, rel=1e-9, abs=0)
    # odd n: the backward ratio tends to minus the limit
    assert res.values["rel_back"] == pytest.approx(
        abs(res.values["rows"][-1][2] + res.values["limit"]) / abs(res.values["limit"]), rel=1e-12, abs=0)
    # n = 1: Definition 4 with k = 0 says nothing, and the check says so
    r1 = t1.taylor_remainder_check(ShortcutNetwork(2, 1, 1), data)
    assert len(r1.parts) == 2 and r1.parts[0].claim == "(L(tv) - L(0)) / t^1 tends to the closed form"
    assert any("k = 0" in ln for ln in r1.lines)
    assert not any("k = 0" in ln for ln in res.lines)


def test_taylor_remainder_zero_limit_fails_without_dividing():
    # a direction along which the order-n term vanishes: the check has nothing to compare
    data = random_dataset(2, 12, seed=2)
    net = ShortcutNetwork(2, 2, 1)
    v = torch.zeros(net.num_params, dtype=F64)
    v[0] = 1.0  # only W[0,0]: the product W2 W1 is zero
    r = t1.taylor_remainder_check(net, data, v=v)
    assert r.values["limit"] == 0 and r.values["rel"] == math.inf
    assert r.values["rel_back"] == math.inf and r.parts[1].value == -math.inf and not r.passed
    with pytest.raises(ValueError, match="decreasing"):
        t1.taylor_remainder_check(net, data, ts=(1e-3, 1e-2))
    with pytest.raises(ValueError, match="reading"):
        t1.taylor_remainder_check(net, data, reading="3k")


def test_taylor_remainder_default_seed_is_zero():
    data = random_dataset(2, 12, seed=2)
    net = ShortcutNetwork(2, 3, 1, mid="tanh")  # n = 3 and nonlinear: the random middle vectors matter
    a = t1.taylor_remainder_check(net, data)
    b = t1.taylor_remainder_check(net, data, seed=0)
    assert a.values["rows"] == b.values["rows"]
    assert a.values["rows"] != t1.taylor_remainder_check(net, data, seed=1).values["rows"]


# -- Lemma 2: the sampled pairs, the reported values ------------------------------------------------

class _Recorder:
    """Wraps mixed_partial and the loss function of lemma2_check to record what it evaluates."""

    def __init__(self, monkeypatch):
        self.partials, self.points = [], []
        orig_mp, orig_lf = t1.mixed_partial, t1.loss_function

        def mp(f, w0, indices):
            self.partials.append(list(indices))
            return orig_mp(getattr(f, "inner", f), w0, indices)

        def lf(net, data):
            inner = orig_lf(net, data)

            def f(w):
                self.points.append(w.detach().clone())
                return inner(w)
            f.inner = inner
            return f
        monkeypatch.setattr(t1, "mixed_partial", mp)
        monkeypatch.setattr(t1, "loss_function", lf)


@pytest.fixture(scope="module")
def l2data():
    return random_dataset(2, 12, seed=5, scale=0.5)


def _lemma2(monkeypatch, net, data, **kw):
    rec = _Recorder(monkeypatch)
    res = t1.lemma2_check(net, data, **kw)
    monkeypatch.undo()
    return rec, res


def test_lemma2_samples_the_documented_pairs(monkeypatch, l2data):
    net = ShortcutNetwork(2, 2, 3, post="silu")
    rec, res = _lemma2(monkeypatch, net, l2data, samples=30, seed=0)
    assert res.passed
    _labelled(res)
    assert len(rec.partials) == 60
    chained_odd = 0
    for s in range(30):
        a1, a2 = rec.partials[2 * s]
        b1, b2 = rec.partials[2 * s + 1]
        (r1, l1, i1, j1), (r2, l2, i2, j2) = t1.param_coords(net, a1), t1.param_coords(net, a2)
        assert t1.param_coords(net, b1) == (0, l1, i1, j1)
        assert t1.param_coords(net, b2) == ((0 if r1 == r2 else 1), l2, i2, j2)
        assert r1 <= r2
        if s % 3 == 0:
            assert r1 == r2 == net.R - 1 and (l1, l2) == (1, 0)
        elif s % 3 == 1:
            assert (r1, r2) == (0, net.R - 1)
        if s % 2 == 0:
            assert i2 == j1
        else:
            chained_odd += i2 == j1
    assert 0 < chained_odd < 15
    assert any(t1.param_coords(net, p[0])[0] != t1.param_coords(net, p[1])[0] for p in rec.partials[4::6])


def test_lemma2_reports_its_values(monkeypatch, l2data):
    net = ShortcutNetwork(2, 2, 3, post="silu")
    rec, res = _lemma2(monkeypatch, net, l2data, samples=12, seed=3)
    f = loss_function(net, l2data)
    H = hessian(net, torch.zeros(net.shape, dtype=F64), l2data)
    pairs = rec.partials[0::2]
    biggest = max(abs(float(H[a, b])) for a, b in pairs)
    assert 0 < biggest < 1
    assert res.values["biggest"] == pytest.approx(biggest, rel=1e-9, abs=0)
    assert res.parts[0].nontrivial == res.values["biggest"]
    assert res.values["worst_d2"] == pytest.approx(
        max(abs(float(H[a, b]) - float(H[c, e])) for (a, b), (c, e) in zip(rec.partials[0::2], rec.partials[1::2])),
        abs=1e-12)
    assert res.values["worst_d2"] < 1e-12
    # the restrictions: two random points (u, v) per pair of distinct parameters, placed identically
    distinct = [(p, q) for p, q in zip(rec.partials[0::2], rec.partials[1::2]) if p[0] != p[1]]
    assert len(rec.points) == 4 * len(distinct)
    worst = 0.0
    for k, (p, q) in enumerate(distinct):
        for e, et in (rec.points[4 * k:4 * k + 2], rec.points[4 * k + 2:4 * k + 4]):
            assert e.dtype == F64 and et.dtype == F64
            assert set(torch.nonzero(e).flatten().tolist()) == set(p)
            assert set(torch.nonzero(et).flatten().tolist()) == set(q)
            assert e[p[0]] == et[q[0]] and e[p[1]] == et[q[1]]
            worst = max(worst, abs(float(f(e)) - float(f(et))))
    assert res.values["worst_fn"] == worst and res.parts[1].value == worst
    P = net.num_params
    scale = t1._partial_scale(net, l2data)
    assert scale < 1
    assert res.values["tol"] == pytest.approx(100 * P * EPS, rel=1e-12, abs=0) == res.parts[0].tol


def test_lemma2_defaults_and_determinism(monkeypatch, l2data):
    net = ShortcutNetwork(2, 1, 2)
    rec0, _ = _lemma2(monkeypatch, net, l2data)
    assert len(rec0.partials) == 60  # samples = 30 by default
    rec1, _ = _lemma2(monkeypatch, net, l2data, samples=4, seed=0)  # seed = 0 by default
    assert rec1.partials == rec0.partials[:8]
    with pytest.raises(ValueError, match="^Lemma 2 compares different units"):
        t1.lemma2_check(ShortcutNetwork(2, 1, 1), l2data)


def test_lemma2_large_data_scale_sets_the_tolerance():
    data = random_dataset(2, 12, seed=5, scale=1.0)
    net = ShortcutNetwork(2, 1, 2)
    res = t1.lemma2_check(net, data, samples=3)
    scale = t1._partial_scale(net, data)
    assert 1 < scale < 2
    assert res.values["tol"] == pytest.approx(100 * net.num_params * EPS * scale, rel=1e-12, abs=0)


# -- parameter bookkeeping (Definition 5) and the order-n closed form --------------------------------

def test_param_index_and_coords_validate_their_arguments():
    net = ShortcutNetwork(3, 2, 2)
    assert t1.param_index(net, np.int64(1), 1, 2, 2) == net.num_params - 1
    assert t1.param_index(net, 0, 0, 0, 0) == 0
    assert t1.param_index(net, 0, 0, 1, 0) == 1 and t1.param_index(net, 0, 0, 0, 1) == 3
    assert t1.param_index(net, 0, 1, 0, 0) == 9 and t1.param_index(net, 1, 0, 0, 0) == 18
    for bad in ((True, 0, 0, 0), (0, 2, 0, 0), (0, 0, 3, 0), (0, 0, 0, 3), (0, 0, 0, -1), (0, 0, 1.0, 0)):
        with pytest.raises(ValueError, match="must be an integer in"):
            t1.param_index(net, *bad)
    with pytest.raises(ValueError, match=r"^l must be an integer in \[0, 1\], got 2"):
        t1.param_index(net, 0, 2, 0, 0)
    assert t1.param_coords(net, np.int64(net.num_params - 1)) == (1, 1, 2, 2)
    assert t1.param_coords(net, 0) == (0, 0, 0, 0)
    assert t1.param_coords(net, 22) == (1, 0, 1, 1)
    assert all(isinstance(x, int) for x in t1.param_coords(net, np.int64(22)))
    for bad in (True, -1, net.num_params, 2.0):
        with pytest.raises(ValueError, match=r"^a must be an integer in \[0, 35\]"):
            t1.param_coords(net, bad)


def test_covers_unit_needs_every_matrix_of_one_unit():
    net = ShortcutNetwork(2, 3, 2)
    idx = lambda r, l: t1.param_index(net, r, l, 0, 1)  # noqa: E731
    assert t1.covers_unit(net, [idx(1, 0), idx(1, 1), idx(1, 2)])
    assert not t1.covers_unit(net, [idx(1, 0), idx(1, 1), idx(0, 2)])
    assert not t1.covers_unit(net, [idx(0, 0), idx(0, 0), idx(0, 1)])
    assert not t1.covers_unit(net, [])
    one = ShortcutNetwork(2, 1, 2)
    assert t1.covers_unit(one, [t1.param_index(one, 1, 0, 0, 1)])


def test_mixed_partial_against_known_derivatives():
    f = lambda w: w[0] ** 3 * w[1] + 2 * w[2]  # noqa: E731
    w0 = torch.tensor([2.0, 3.0, 5.0], dtype=F64)
    assert t1.mixed_partial(f, w0, [0]) == 3 * 4 * 3
    assert t1.mixed_partial(f, w0, [0, 0, 1]) == 6 * 2
    assert t1.mixed_partial(f, w0, [np.int64(2)]) == 2
    assert t1.mixed_partial(f, w0, [2, 2]) == 0
    for bad in ([3], [-1], [0, 5]):
        with pytest.raises(ValueError, match=r"^indices must lie in \[0, 2\]"):
            t1.mixed_partial(f, w0, bad)


def test_data_matrices_and_partial_scale():
    data = random_dataset(2, 10, seed=1)
    lin = ShortcutNetwork(2, 2, 1)
    st = data.stats()
    Sxs, Sys = t1._data_matrices(lin, st)
    assert torch.equal(Sxs, st.Sxx) and torch.equal(Sys, st.Syx)
    net = ShortcutNetwork(2, 2, 1, pre="tanh")
    Sxs, Sys = t1._data_matrices(net, data)
    s = torch.tanh(data.X)
    assert torch.allclose(Sxs, data.X @ s.T / 10, atol=1e-15) and torch.allclose(Sys, data.Y @ s.T / 10, atol=1e-15)
    with pytest.raises(ValueError, match="^a network with a pre-activation needs the samples"):
        t1._data_matrices(net, st)
    # the scale of the partials: the larger of max |Sxs - Sys| and max |Sxs|
    sc = t1._partial_scale(net, data)
    assert sc == max(float((Sxs - Sys).abs().max()), float(Sxs.abs().max()))
    big = Dataset(data.X, 10 * data.Y)
    assert t1._partial_scale(net, big) == float((t1._data_matrices(net, big)[0]
                                                 - t1._data_matrices(net, big)[1]).abs().max())
    assert t1._partial_scale(net, Dataset(data.X, 0 * data.Y)) == float(Sxs.abs().max())


@pytest.mark.parametrize("n, kw", [(2, {}), (3, {"mid": "silu"}), (2, {"post": "silu", "pre": "tanh"}), (1, {})])
def test_order_n_closed_form_against_autodiff(n, kw):
    data = random_dataset(2, 10, seed=1)
    net = ShortcutNetwork(2, n, 2, **kw)
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=F64)
    Sxs, Sys = t1._data_matrices(net, data)
    c = net.post.d1_at_zero * net.mid.d1_at_zero ** (n - 1)
    rows = [1, 0, 1][:n]
    cols = [0] + rows[:-1]
    chain = [t1.param_index(net, 1, l, rows[l], cols[l]) for l in range(n)]
    val = t1.order_n_closed_form(net, data, chain[::-1])
    assert val == pytest.approx(c * float((Sxs - Sys)[rows[-1], 0]), rel=1e-12, abs=0) and val != 0
    assert val == pytest.approx(t1.mixed_partial(f, w0, chain), rel=1e-9, abs=1e-15)
    if n >= 2:
        broken = list(chain)
        r, l, i, j = t1.param_coords(net, broken[1])
        broken[1] = t1.param_index(net, r, l, i, 1 - j)
        assert t1.order_n_closed_form(net, data, broken) == 0.0
        two_units = [chain[0]] + [t1.param_index(net, 0, l, rows[l], cols[l]) for l in range(1, n)]
        assert t1.order_n_closed_form(net, data, two_units) == 0.0
        same_matrix = [chain[0]] * n
        assert t1.order_n_closed_form(net, data, same_matrix) == 0.0
    with pytest.raises(ValueError, match=f"^indices must hold exactly n = {n} parameters, got {n + 1}"):
        t1.order_n_closed_form(net, data, chain + [0])


def test_shifted_sigmoid():
    a = t1.shifted_sigmoid()
    assert a.name == "sigmoid" and not a.is_identity
    assert (a.value_at_zero, a.d1_at_zero, a.d2_at_zero) == (0.5, 0.25, 0.0)
    x = torch.tensor([-1.0, 0.0, 2.0], dtype=F64)
    assert torch.equal(a(x), torch.sigmoid(x))
    assert torch.allclose(a.grad(x), torch.sigmoid(x) * (1 - torch.sigmoid(x)), atol=1e-16)


# -- Lemma 1 ---------------------------------------------------------------------------------------------

def _lemma1_net():
    return ShortcutNetwork(3, 2, 2, mid="tanh"), random_dataset(3, 10, seed=2, scale=0.5)


def test_lemma1_tuples_have_their_documented_kinds():
    net, data = _lemma1_net()
    tuples = t1.lemma1_tuples(net, 3, 12, seed=1, data=data)
    kinds = [k for k, _ in tuples]
    assert kinds == ["random", "one_short", "repeated", "chain", "broken_chain"] * 12
    Sxs, Sys = t1._data_matrices(net, data)
    Mabs = (Sxs - Sys).abs()
    top = np.unravel_index(int(torch.argmax(Mabs)), Mabs.shape)
    aimed = 0
    orders = set()
    for kind, t in tuples:
        assert all(0 <= a < net.num_params for a in t)
        coords = [t1.param_coords(net, a) for a in t]
        if kind == "random":
            assert 1 <= len(t) <= 3
            orders.add(len(t))
        elif kind == "one_short":
            assert not t1.covers_unit(net, t) and 1 <= len(t) <= 3
        elif kind == "repeated":
            assert len(set(t)) == 1 and 1 <= len(t) <= 3
        elif kind == "chain":
            assert len(t) == 2 and t1.covers_unit(net, t) and coords[0][0] == coords[1][0]
            assert [c[1] for c in coords] == [0, 1] and coords[1][3] == coords[0][2]
            aimed += (coords[1][2], coords[0][3]) == tuple(int(x) for x in top)
        else:
            assert len(t) == 2 and t1.covers_unit(net, t)
            assert coords[1][3] != coords[0][2]
            assert t1.order_n_closed_form(net, data, t) == 0.0
    assert orders == {1, 2, 3}
    assert 2 <= aimed < 12
    assert t1.lemma1_tuples(net, 3, 12, seed=1, data=data) == tuples
    assert t1.lemma1_tuples(net, 3, 12, data=data) == t1.lemma1_tuples(net, 3, 12, seed=0, data=data)
    with pytest.raises(ValueError, match="^max_order must be an integer"):
        t1.lemma1_tuples(net, 0, 3)
    with pytest.raises(ValueError, match="^samples must be an integer"):
        t1.lemma1_tuples(net, 2, 0)


def test_lemma1_tuples_one_short_pads_up_to_max_order():
    net = ShortcutNetwork(2, 3, 3)
    tuples = t1.lemma1_tuples(net, 5, 30, seed=0)
    short = [t for k, t in tuples if k == "one_short"]
    assert {len(t) for t in short} == {4, 5}
    assert not any(t1.covers_unit(net, t) for t in short)
    assert [k for k, _ in tuples[:4]] == ["random", "one_short", "repeated", "chain"]
    # d = 1: no broken chains; n = 1: no one-short tuples
    assert "broken_chain" not in {k for k, _ in t1.lemma1_tuples(ShortcutNetwork(1, 2, 2), 3, 5)}
    assert {k for k, _ in t1.lemma1_tuples(ShortcutNetwork(2, 1, 2), 3, 5)} == {"random", "repeated", "chain"}


def test_lemma1_check_reports_its_values():
    net, data = _lemma1_net()
    res = t1.lemma1_check(net, data, samples=4, seed=1)
    assert res.passed
    _labelled(res)
    tuples = t1.lemma1_tuples(net, 3, 4, 1, data)  # max_order = n + 1 by default
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=F64)
    chains = [abs(t1.order_n_closed_form(net, data, t)) for k, t in tuples if k == "chain"]
    v = res.values
    assert v["min_chain"] == pytest.approx(min(chains), rel=1e-9, abs=0) and min(chains) > 0
    assert res.parts[0].nontrivial == v["min_chain"]
    assert v["counts"] == {"random": 4, "one_short": 4, "repeated": 4, "chain": 4, "broken_chain": 4}
    n_zero = sum(not t1.covers_unit(net, t) for _, t in tuples)
    assert res.parts[0].compared == f"max |partial| over {n_zero} non-covering tuples (orders 1..3)"
    n_closed = sum(len(t) == 2 for _, t in tuples)
    assert res.parts[1].claim == f"order-n partials equal the closed form ({n_closed} tuples)"
    worst = max(abs(t1.mixed_partial(f, w0, t)) for _, t in tuples if not t1.covers_unit(net, t))
    assert v["worst_noncovering"] == worst
    worst_c = max(abs(t1.mixed_partial(f, w0, t) - t1.order_n_closed_form(net, data, t))
                  for _, t in tuples if len(t) == 2)
    assert v["worst_closed_form"] == worst_c
    scale = t1._partial_scale(net, data)
    assert v["tol"] == pytest.approx(100 * net.num_params * EPS * scale, rel=1e-12, abs=0)
    assert res.parts[0].tol == v["tol"] == res.parts[1].tol
    assert res.lines == ["tuples by kind: random 4, one_short 4, repeated 4, chain 4, broken_chain 4"]


def test_lemma1_check_falsifier_and_options():
    net, data = _lemma1_net()
    r = t1.lemma1_check(net, data, max_order=2, samples=2)
    assert "(orders 1..2)" in r.parts[0].compared
    r0 = t1.lemma1_check(net, data, samples=2)
    r0b = t1.lemma1_check(net, data, samples=2, seed=0)
    assert r0.values["min_chain"] == r0b.values["min_chain"]
    assert r0.values["counts"]["chain"] == 2
    # sigma_mid(0) != 0: no closed form, and the non-covering partials do not vanish
    bad = ShortcutNetwork(2, 2, 2, mid=t1.shifted_sigmoid())
    rb = t1.lemma1_check(bad, random_dataset(2, 10, seed=2), max_order=2, samples=2)
    assert rb.parts == [] and not rb.passed and rb.values["worst_closed_form"] == 0.0
    assert rb.compared.startswith("max |partial| over ")
    assert rb.values["worst_noncovering"] > 1e3 * rb.values["tol"]
    assert t1.lemma1_check(ShortcutNetwork(3, 2, 2, post="silu"), data, max_order=2, samples=2).passed
    with pytest.raises(ValueError, match="^max_order must be an integer"):
        t1.lemma1_check(net, data, max_order=0)


# -- Part 1: directions, the order-n directional closed form, the check -------------------------------

def test_part1_directions_have_their_documented_kinds():
    net = ShortcutNetwork(2, 3, 2)
    data = random_dataset(2, 10, seed=3)
    dirs = t1._part1_directions(net, data, 8, np.random.default_rng(0))
    assert [k for k, _ in dirs] == ["gaussian", "single_unit", "aligned", "one_short"] * 2
    Sxs, Sys = t1._data_matrices(net, data)
    U, S, Vh = torch.linalg.svd(Sxs - Sys)
    for kind, v in dirs:
        assert v.dtype == F64 and v.shape == (net.num_params,)
        assert float(v.norm()) == pytest.approx(1.0, rel=1e-14, abs=0)
        V = v.reshape(2, 3, 2, 2).transpose(-1, -2)  # (R, n, d, d), Definition 5 order
        per_matrix = V.flatten(2).norm(dim=2)
        if kind == "gaussian":
            assert bool((per_matrix > 0).all())
        elif kind == "single_unit":
            assert int((per_matrix.sum(dim=1) > 0).sum()) == 1 and bool((per_matrix.max(dim=1).values > 0).any())
            assert bool((per_matrix[per_matrix.sum(dim=1) > 0] > 0).all())
        elif kind == "aligned":
            for r in range(2):
                prod = V[r, 2] @ V[r, 1] @ V[r, 0]
                # u1 v1^T scaled by 6^(-3/2) (six unit matrices, unit total norm)
                assert torch.allclose(prod.abs(), (torch.outer(U[:, 0], Vh[0]) * 6 ** -1.5).abs(), atol=1e-14)
        else:
            assert bool(((per_matrix == 0).sum(dim=1) == 1).all())
    assert t1._order_n_directional(net, data, dirs[3][1]) == pytest.approx(0.0, abs=1e-15)


@pytest.mark.parametrize("n, kw", [(1, {}), (2, {"mid": "silu"}), (3, {})])
def test_order_n_directional_against_autodiff(n, kw):
    from resnet_nb.core.hessians import directional_derivatives
    net = ShortcutNetwork(2, n, 2, **kw)
    data = random_dataset(2, 10, seed=3)
    g = torch.Generator().manual_seed(0)
    v = torch.randn(net.num_params, generator=g, dtype=F64)
    f = loss_function(net, data)
    ds = directional_derivatives(f, torch.zeros(net.num_params, dtype=F64), v, n)
    assert t1._order_n_directional(net, data, v) == pytest.approx(ds[n - 1], rel=1e-10, abs=0)


def test_part1_check_reports_its_values():
    from resnet_nb.core.hessians import directional_derivatives
    net = ShortcutNetwork(2, 3, 1)
    data = random_dataset(2, 10, seed=3)
    res = t1.part1_check(net, data, directions=4, seed=1)
    assert res.passed
    _labelled(res)
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=F64)
    low, gap, best = 0.0, 0.0, 0.0
    for kind, v in t1._part1_directions(net, data, 4, np.random.default_rng(1)):
        ds = directional_derivatives(f, w0, v, 3)
        low = max(low, abs(ds[0]), abs(ds[1]))
        gap = max(gap, abs(ds[2] - t1._order_n_directional(net, data, v)))
        best = max(best, abs(ds[2]))
    v = res.values
    assert v["worst_low"] == low and v["worst_n"] == gap and v["best_n"] == best > 0
    assert res.parts[0].nontrivial == best
    assert v["hmax"] == 0.0 and len(res.parts) == 3
    scale = max(1.0, t1._partial_scale(net, data)) * 6
    assert v["tol"] == pytest.approx(100 * net.num_params * EPS * scale, rel=1e-12, abs=0)
    assert all(p.tol == v["tol"] for p in res.parts)
    assert res.claim == f"Theorem 1, part 1 ({net.describe()}): order-2 stationary"
    assert res.parts[0].compared == "max |d^k L(tv)/dt^k| for k = 1..2"
    assert res.parts[1].claim == "order n = 3 equals the closed form"
    assert res.parts[2].claim == f"exact Hessian at 0 is zero (autograd, #params = {net.num_params})"
    # the Hessian part only while P <= hessian_max_params
    assert len(t1.part1_check(net, data, directions=1, hessian_max_params=net.num_params).parts) == 3
    r = t1.part1_check(net, data, directions=1, hessian_max_params=net.num_params - 1)
    assert len(r.parts) == 2 and r.values["hmax"] is None


def test_part1_check_orders_and_falsifier():
    data = random_dataset(2, 10, seed=3)
    net = ShortcutNetwork(2, 2, 1)
    r = t1.part1_check(net, data, directions=4)
    assert r.passed and len(r.parts) == 2
    # default seed 0: the same directions as seed=0
    assert r.values["best_n"] == t1.part1_check(net, data, directions=4, seed=0).values["best_n"]
    # the falsifier: stationary up to order 2(n-1) = 2 fails (order 2 is nonzero)
    rf = t1.part1_check(net, data, directions=4, stationary_order=2)
    assert not rf.parts[0].passed and rf.values["worst_low"] == pytest.approx(rf.values["best_n"], rel=1e-9, abs=0)
    scale = max(1.0, t1._partial_scale(net, data)) * 2
    assert rf.values["tol"] == pytest.approx(100 * net.num_params * EPS * scale, rel=1e-12, abs=0)
    rs = t1.part1_check(net, data, directions=2, stationary_order=3)
    assert rs.values["tol"] == pytest.approx(100 * net.num_params * EPS * scale * 3, rel=1e-12, abs=0)
    r0 = t1.part1_check(net, data, directions=2, stationary_order=0)
    assert r0.values["worst_low"] == 0.0
    with pytest.raises(ValueError, match="^stationary_order must be an integer >= 0"):
        t1.part1_check(net, data, stationary_order=-1)
    big = Dataset(3 * data.X, 3 * data.Y)
    rb = t1.part1_check(net, big, directions=1)
    tol_big = 100 * net.num_params * EPS * t1._partial_scale(net, big) * 2
    assert rb.values["tol"] == pytest.approx(tol_big, rel=1e-12, abs=0)


# -- depth table, growth bounds and check -----------------------------------------------------------------

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


@pytest.fixture(scope="module")
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
        assert row["trH2"] == pytest.approx(float((H ** 2).sum()), rel=1e-14, abs=0)
        trf = R * float((B ** 2).sum()) + R * (R - 1) * float((A ** 2).sum())
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
    with pytest.raises(ValueError, match="^R must be an integer"):
        t1.growth_bounds((0,), st)


def test_growth_check_values_and_falsifier(gstats):
    res = t1.growth_check(gstats, (1, 3))  # a Dataset is reduced to its statistics
    assert res.passed
    _labelled(res)
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
    assert res.claim == "Proposition (1-shortcut growth), 1-shortcut networks, R = [1, 3]"
    assert res.lines == ["cond10 / lower bound: " + ", ".join(
        f"R={r['R']}: {r['cond10']:.3g} >= {r['cond10_bound']:.3g}" for r in rows)]
    assert t1.growth_check(gstats.stats(), (1, 3)).values["rows"] == rows
    assert [r["R"] for r in t1.growth_check(gstats.stats()).values["rows"]] == [2, 4, 8]
    # the falsifier: each pair of units counted once in tr(H^2); the trace comparison rejects it
    rf = t1.growth_check(gstats.stats(), (1, 3), variant="pairs_once")
    assert rf.rejected_on_value and rf.parts[1].rejected_on_value and "[pairs counted once]" in rf.claim
    assert "R(R-1)/2" in rf.parts[1].claim
    b = theorem1_blocks(ShortcutNetwork(2, 1, 1), gstats.stats())
    half = [r["R"] * float((b["B"] ** 2).sum()) + r["R"] * (r["R"] - 1) / 2 * float((b["A"] ** 2).sum())
            for r in rows]
    assert [r["trH2_formula"] for r in rf.values["rows"]] == pytest.approx(half, rel=1e-14, abs=0)
    assert rf.parts[1].value == pytest.approx(max(abs(r["trH2"] - h) for r, h in zip(rows, half)), rel=1e-12)
    with pytest.raises(ValueError, match="variant"):
        t1.growth_check(gstats.stats(), (1, 3), variant="invariant")


# -- the exact Hessian at 0 (first autograd use: slow warm-up, so last) -------------------------

def test_exact_hessian_at_zero_routes_and_names_the_method():
    data = random_dataset(2, 10)
    lin = ShortcutNetwork(2, 2, 1)
    H, method = t1._exact_hessian_at_zero(lin, data, "auto")
    assert method == "kronecker"
    assert H.dtype == F64
    assert torch.allclose(H, hessian(lin, torch.zeros(lin.shape, dtype=F64), data), atol=1e-12)
    nl = ShortcutNetwork(2, 2, 1, mid="tanh")
    _, method = t1._exact_hessian_at_zero(nl, data, "auto")
    assert method == "autograd"
    with pytest.raises(ValueError, match="^method must be one of"):
        t1._exact_hessian_at_zero(lin, data, "bogus")
