"""ReLU at the zero point (resnet_nb.li.theorem1.relu).

The kink's defects have closed forms: along v with ReLU at mid the one-sided second derivatives
differ; with ReLU at post (n = 1) the loss is not even differentiable, D1+(v) = (1/m) sum <x - y, relu(V x)>.
The masked Eq. 19 and the experiments' networks at their small start are recomputed here independently."""

import math

import numpy as np
import pytest
import torch
from helpers import shared_scope

import resnet_nb.li.theorem1 as t1
from resnet_nb import ShortcutNetwork, synthetic_linear
from resnet_nb.core.hessians import hessian, hessian_linear, loss_function
from resnet_nb.core.init import initialise
from resnet_nb.core.networks import unflatten
from resnet_nb.li.theorem1 import one_sided_derivatives, relu_kink_check


@pytest.mark.parametrize("position", ["mid", "post"])
def test_relu_kink_detected(data3, position):
    res = relu_kink_check(data3, position, pairs=3)
    assert res.passed, str(res)
    assert res.values["spread"] > 1e-3


def test_one_sided_derivatives_of_a_smooth_loss_are_two_sided(data3):
    # control for the ReLU check: a linear network's loss is a polynomial, D2+(v) = D2+(-v) = v^T H v
    net = ShortcutNetwork(3, 2, 1)
    f = loss_function(net, data3)
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    v = torch.randn(net.num_params, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    dp, rp = one_sided_derivatives(f, w0, v, degree=4)
    dm, rm = one_sided_derivatives(f, w0, -v, degree=4)
    H = hessian(net, torch.zeros(net.shape, dtype=torch.float64), data3)
    assert rp < 1e-10 and rm < 1e-10
    assert abs(dp[2] - dm[2]) < 1e-8
    assert abs(dp[2] - float(v @ H @ v)) < 1e-8


def test_relu_kink_rejects_bad_position(data3):
    with pytest.raises(ValueError, match=r"\bposition must"):
        relu_kink_check(data3, "pre")


def test_relu_first_order_kink(data3):
    from resnet_nb.li.theorem1 import relu_first_order_check

    res = relu_first_order_check(data3, directions=3)
    assert res.passed, str(res)


def test_relu_masked_spectrum_and_depth_table(data3):
    from resnet_nb.li.theorem1 import relu_masked_prediction, relu_masked_singular_values

    net = ShortcutNetwork(3, 2, 3, mid="relu")
    W = 0.01 * torch.randn(net.shape, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    s = relu_masked_singular_values(net, W, data3)
    assert s.numel() == net.R * net.d * net.d  # R d blocks of d singular values
    assert relu_masked_prediction(net, W, data3) == float(s.max())


def test_relu_start_prediction_choices():
    from resnet_nb.li.theorem1 import relu_start_check

    with pytest.raises(ValueError):
        relu_start_check(depth=2, n_per_class=20, prediction="quarter")


F64 = torch.float64


EPS = 2.0**-52


@pytest.fixture(scope=shared_scope)
def data15():
    return synthetic_linear(2, 15, seed=4)


def _poly(coef, a):
    """f(w) = sum_k coef[k] (a . w)^k, so that f(t v) has Taylor coefficients coef[k] (a . v)^k."""

    def f(w):
        s = float(a @ w)
        return sum(c * s**k for k, c in enumerate(coef))

    return f


def test_one_sided_derivatives_of_a_polynomial_are_k_factorial_times_its_coefficients():
    coef = [0.5, -1.0, 2.0, 0.75, -0.3, 0.2, 0.1, -0.05, 0.02]  # degree 8, odd terms included
    a = torch.tensor([1.0, 0.0], dtype=F64)
    v = torch.tensor([1.0, 0.0], dtype=F64)
    w0 = torch.zeros(2, dtype=F64)
    derivs, resid = t1.one_sided_derivatives(_poly(coef, a), w0, v, degree=8)
    assert derivs.shape == (9,)
    want = [math.factorial(k) * c for k, c in enumerate(coef)]
    np.testing.assert_allclose(derivs, want, rtol=1e-6, atol=1e-6)
    assert resid < 1e-11
    d3, r3 = t1.one_sided_derivatives(_poly(coef[:4], a), w0, v, degree=3)
    assert d3.shape == (4,)
    np.testing.assert_allclose(d3, want[:4], rtol=1e-9, atol=1e-10)
    # a degree too small leaves a residual
    _, r2 = t1.one_sided_derivatives(_poly(coef[:4], a), w0, v, degree=2)
    assert r2 > 1e-4


def test_one_sided_derivatives_sample_the_documented_grid():
    seen = []

    def f(w):
        seen.append(float(w[0]))
        return float(w[0]) ** 2

    w0, v = torch.zeros(1, dtype=F64), torch.ones(1, dtype=F64)
    t1.one_sided_derivatives(f, w0, v)  # degree 8: 19 points on [0.1, 1]
    np.testing.assert_array_equal(seen, np.linspace(0.1, 1.0, 19))
    seen.clear()
    t1.one_sided_derivatives(f, w0, v, degree=3)
    np.testing.assert_array_equal(seen, np.linspace(0.1, 1.0, 9))
    seen.clear()
    t1.one_sided_derivatives(f, w0, v, degree=2, ts=[0.2, 0.4, 0.5, 0.7])
    assert seen == [0.2, 0.4, 0.5, 0.7]
    seen.clear()
    t1.one_sided_derivatives(f, torch.full((1,), 2.0, dtype=F64), -v, degree=2, ts=[0.5, 1.0, 1.5])
    assert seen == [1.5, 1.0, 0.5]  # w0 + t v, t > 0 only


def test_one_sided_derivatives_fit_in_float64_whatever_the_grid_dtype():
    coef = [0.3, -0.7, 1.1, 0.4, -0.9]
    a = torch.tensor([1.0], dtype=F64)
    ts = np.linspace(0.1, 1.0, 11).astype(np.float32)
    derivs, resid = t1.one_sided_derivatives(
        _poly(coef, a), torch.zeros(1, dtype=F64), torch.ones(1, dtype=F64), degree=4, ts=ts
    )
    assert resid < 1e-12
    np.testing.assert_allclose(derivs, [math.factorial(k) * c for k, c in enumerate(coef)], rtol=1e-9)


def test_one_sided_derivatives_refuse_a_bad_degree_by_name():
    f = _poly([1.0], torch.ones(1, dtype=F64))
    for bad in (0, 2.5):
        with pytest.raises(ValueError, match=r"\bdegree\b"):
            t1.one_sided_derivatives(f, torch.zeros(1, dtype=F64), torch.ones(1, dtype=F64), degree=bad)


def test_kink_threshold_is_the_stated_formula():
    thr, crit = t1.kink_threshold(2e-9, [3.0, 5.0e3, 1.0], np.array([0.5, 0.2, 0.9]))
    assert thr == pytest.approx(1e3 * 2e-9 / 0.2**2 + 100 * EPS * 5.0e3, rel=1e-13)
    assert "t_min = 0.2" in crit
    # each term alone
    thr0, _ = t1.kink_threshold(0.0, [2.0, 7.0], [0.1, 0.3])
    assert thr0 == pytest.approx(100 * EPS * 7.0, rel=1e-13, abs=0)
    thr1, _ = t1.kink_threshold(1e-6, [0.0], [0.5, 0.25])
    assert thr1 == pytest.approx(1e3 * 1e-6 / 0.25**2, rel=1e-13)


def _mid_defect(net, data, v):
    """(D2+(v), D2+(-v)) for ReLU at mid, n = 2, R = 1, in closed form."""
    W = unflatten(v, net)[0]
    X, Y = data.X, data.Y
    dp = 2 * float(((X - Y) * (W[1] @ torch.relu(W[0] @ X))).sum()) / data.m
    dm = 2 * float(((X - Y) * (-W[1] @ torch.relu(-W[0] @ X))).sum()) / data.m
    return dp, dm


def _post_values(net, data, u, w):
    """D2+ along u + w, u - w, u, w for ReLU at post, u on the first matrix, w on the second."""
    X, Y = data.X, data.Y
    out = []
    for z in (u + w, u - w, u, w):
        W = unflatten(z, net)[0]
        out.append(2 * float(((X - Y) * torch.relu(W[1] @ W[0] @ X)).sum()) / data.m)
    return out


def _mid_directions(net, seed, pairs):
    rng = np.random.default_rng(seed)
    return [torch.as_tensor(rng.normal(size=net.num_params)) for _ in range(pairs)]


def _fit_residual(f, v, degree, ts):
    return t1.one_sided_derivatives(f, torch.zeros(v.numel(), dtype=F64), v, degree=degree, ts=ts)[1]


@pytest.fixture
def kink_mid(data3):
    """Computed in each test that uses it, so that the mutation audit counts every test's assertions."""
    return t1.relu_kink_check(data3, "mid", pairs=3)


def test_relu_kink_mid_reports_the_closed_form_defects(data3, kink_mid):
    res = kink_mid
    net = ShortcutNetwork(3, 2, 1, mid="relu")
    f = loss_function(net, data3)
    gaps, mags, resid = [], [], 0.0
    ts = np.linspace(0.1, 1.0, 11)
    for v in _mid_directions(net, 0, 3):
        dp, dm = _mid_defect(net, data3, v)
        gaps.append(abs(dp - dm))
        mags.append(max(abs(dp), abs(dm)))
        resid = max(resid, _fit_residual(f, v, 4, ts), _fit_residual(f, -v, 4, ts))
    np.testing.assert_allclose(res.values["gaps"], gaps, rtol=1e-9)
    np.testing.assert_allclose(res.values["mags"], mags, rtol=1e-9)
    assert res.value == pytest.approx(min(gaps), rel=1e-9)
    assert res.values["resid"] == resid  # the largest residual of all 2 x pairs exact degree-4 fits
    assert res.tol == pytest.approx(1e3 * resid / 0.1**2 + 100 * EPS * max(mags), rel=1e-12, abs=0)
    assert res.op == ">=" and res.passed
    assert res.values["pairs"] == len(res.values["gaps"]) == 3


def test_relu_kink_reports_how_autograd_depends_on_relu_prime_at_zero(data3, kink_mid):
    hs = kink_mid.values["hessians"]
    assert sorted(hs) == [0.0, 0.5, 1.0]
    want = {}
    for c in (0.0, 0.5, 1.0):
        net = ShortcutNetwork(3, 2, 1, mid="relu", relu_grad_at_zero=c)
        want[c] = hessian(net, torch.zeros(net.shape, dtype=F64), data3)
        assert hs[c].shape == (net.num_params, net.num_params)
        torch.testing.assert_close(hs[c], want[c], rtol=0, atol=1e-12)
    spread = max(float((want[a] - want[b]).abs().max()) for a in want for b in want)
    assert spread > 1e-2
    assert kink_mid.values["spread"] == pytest.approx(spread, rel=1e-12)
    assert len(kink_mid.lines) == 1


def test_relu_kink_post_reports_the_parallelogram_defects(data15):
    res = t1.relu_kink_check(data15, "post", seed=2, pairs=2)
    net = ShortcutNetwork(2, 2, 1, post="relu")
    f = loss_function(net, data15)
    rng = np.random.default_rng(2)
    q = 4
    gaps, mags, resid = [], [], 0.0
    ts = np.linspace(0.1, 1.0, 11)
    for _ in range(2):
        u = torch.zeros(net.num_params, dtype=F64)
        w = torch.zeros(net.num_params, dtype=F64)
        u[:q] = torch.as_tensor(rng.normal(size=q))
        w[q:] = torch.as_tensor(rng.normal(size=q))
        vals = _post_values(net, data15, u, w)
        assert vals[2] == 0.0 and vals[3] == 0.0  # one matrix alone does not move the output
        gaps.append(abs(vals[0] + vals[1] - 2 * vals[2] - 2 * vals[3]))
        mags.append(max(abs(x) for x in vals))
        for z in (u + w, u - w, u, w):
            resid = max(resid, _fit_residual(f, z, 4, ts))
    np.testing.assert_allclose(res.values["gaps"], gaps, rtol=1e-9)
    np.testing.assert_allclose(res.values["mags"], mags, rtol=1e-9)
    assert res.values["resid"] == resid
    assert res.tol == pytest.approx(1e3 * resid / 0.1**2 + 100 * EPS * max(mags), rel=1e-12, abs=0)
    assert res.value == pytest.approx(min(gaps), rel=1e-9) and res.passed
    assert sorted(res.values["hessians"]) == [0.0, 0.5, 1.0]


def test_relu_kink_smooth_falsifier_fits_a_short_interval(data3):
    res = t1.relu_kink_check(data3, "mid", pairs=2, act="tanh")
    net = ShortcutNetwork(3, 2, 1, mid="tanh")
    H = hessian(net, torch.zeros(net.shape, dtype=F64), data3)
    f = loss_function(net, data3)
    ts = np.linspace(1e-3, 1e-2, 19)
    resid = 0.0
    for v, mag in zip(_mid_directions(net, 0, 2), res.values["mags"]):
        assert mag == pytest.approx(abs(float(v @ H @ v)), rel=1e-4)  # D2+(v) = D2+(-v) = v^T H v
        resid = max(resid, _fit_residual(f, v, 8, ts), _fit_residual(f, -v, 8, ts))
    assert res.values["resid"] == resid
    assert res.tol == pytest.approx(1e3 * resid / 1e-3**2 + 100 * EPS * max(res.values["mags"]), rel=1e-12)
    assert max(res.values["gaps"]) < 1e-6 * max(res.values["mags"])
    assert not res.passed
    assert math.isnan(res.values["spread"]) and res.values["hessians"] == {} and res.lines == []


def test_relu_kink_refuses_a_width_other_than_the_datas(data15):
    with pytest.raises(ValueError, match="d = 3"):
        t1.relu_kink_check(data15, "mid", d=3, pairs=1)


def test_relu_first_order_reports_the_closed_form_sums(data3):
    res = t1.relu_first_order_check(data3, seed=0, directions=3)
    net = ShortcutNetwork(3, 1, 1, post="relu")
    f = loss_function(net, data3)
    ts = np.linspace(0.1, 1.0, 7)
    X, Y = data3.X, data3.Y
    sums, mags, resid = [], [], 0.0
    for v in _mid_directions(net, 0, 3):
        V = unflatten(v, net)[0, 0]
        dp = float(((X - Y) * torch.relu(V @ X)).sum()) / data3.m
        dm = float(((X - Y) * torch.relu(-V @ X)).sum()) / data3.m
        sums.append(abs(dp + dm))
        assert abs(dp + dm) == pytest.approx(abs(float(((Y - X) * (V @ X).abs()).sum())) / data3.m)
        mags.append(max(abs(dp), abs(dm)))
        resid = max(resid, _fit_residual(f, v, 2, ts), _fit_residual(f, -v, 2, ts))
    np.testing.assert_allclose(res.values["sums"], sums, rtol=1e-9)
    assert res.value == pytest.approx(min(sums), rel=1e-9)
    assert res.values["resid"] == resid
    assert res.tol == pytest.approx(1e3 * resid / 0.1 + 100 * EPS * max(mags), rel=1e-12, abs=0)
    assert res.values["t_min"] == 0.1 and res.op == ">=" and res.passed
    assert res.values["directions"] == len(res.values["sums"]) == 3


def test_relu_first_order_smooth_falsifier(data3):
    res = t1.relu_first_order_check(data3, seed=1, directions=2, act="tanh")
    net = ShortcutNetwork(3, 1, 1, post="tanh")
    f = loss_function(net, data3)
    ts = np.linspace(1e-3, 1e-2, 19)
    resid = 0.0
    for v in _mid_directions(net, 1, 2):
        resid = max(resid, _fit_residual(f, v, 8, ts), _fit_residual(f, -v, 8, ts))
    assert res.values["resid"] == resid
    assert res.values["t_min"] == 1e-3
    assert max(res.values["sums"]) < 1e-8 and not res.passed


def _masked_blocks(W, data):
    """sigma(M_r^(j)) with M_r^(j) = (1/m) sum_mu [(W_{r,1} x_mu)_j > 0] (x_mu - y_mu) x_mu^T, by loops."""
    X, Y = data.X, data.Y
    out = []
    for r in range(W.shape[0]):
        Z = W[r, 0] @ X
        for j in range(X.shape[0]):
            keep = Z[j] > 0
            M = (X - Y)[:, keep] @ X[:, keep].T
            out.append(torch.linalg.svdvals(M / data.m))
    return torch.cat(out)


def test_masked_singular_values_are_those_of_the_masked_eq19_blocks(data3):
    net = ShortcutNetwork(3, 2, 2, mid="relu")
    W = 0.01 * torch.randn(net.shape, generator=torch.Generator().manual_seed(7), dtype=F64)
    W[1, 1] = 5.0  # the second matrix of a unit plays no part in the masks
    s = t1.relu_masked_singular_values(net, W, data3)
    assert s.dtype == F64 and s.shape == (net.R * 3 * 3,)
    torch.testing.assert_close(s, _masked_blocks(W, data3), rtol=1e-12, atol=1e-14)
    assert t1.relu_masked_prediction(net, W, data3) == pytest.approx(float(_masked_blocks(W, data3).max()), rel=1e-12)
    # a hidden unit with a zero row passes nothing: the mask is (W x)_j > 0, strictly
    W[0, 0, 1] = 0.0
    s0 = t1.relu_masked_singular_values(net, W, data3)
    assert float(s0[3:6].abs().max()) == 0.0
    torch.testing.assert_close(s0, _masked_blocks(W, data3), rtol=1e-12, atol=1e-14)


_MNIST_CALLS = []


def _fake_mnist(n_per_class=None):
    _MNIST_CALLS.append(n_per_class)
    m = 90 if n_per_class is None else 70 + n_per_class % 17
    seed = 11 if n_per_class is None else n_per_class
    return synthetic_linear(10, m, noise=0.5, seed=seed)


@pytest.fixture(scope=shared_scope)
def fake_mnist():
    import resnet_nb.shared.common as common

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(common, "mnist", _fake_mnist)
        yield _fake_mnist


def _start(depth, seed):
    lin = ShortcutNetwork(10, 2, depth // 2)
    return lin, ShortcutNetwork(10, 2, depth // 2, mid="relu"), initialise(lin, "small", seed=seed)


def _cond10(eigs):
    a = np.abs(np.asarray(eigs))
    return float(a.max() / np.percentile(a, 10))


def _depth_rows(depths, seeds, data):
    st = data.stats()
    sv = torch.linalg.svdvals(st.Sxx - st.Syx)
    lin = torch.cat([sv, -sv]).numpy()
    rows = []
    for depth in depths:
        for seed in seeds:
            _, _, W = _start(depth, seed)
            s = _masked_blocks(W, data)
            e = torch.cat([s, -s]).numpy()
            rows.append(
                dict(
                    depth=depth,
                    seed=seed,
                    lam_max=float(s.max()),
                    cond=float(s.max() / s.min()),
                    cond10=_cond10(e),
                    p10=float(np.percentile(np.abs(e), 10)),
                    lam_max_linear=float(sv.max()),
                    cond_linear=float(sv.max() / sv.min()),
                    cond10_linear=_cond10(lin),
                )
            )
    return rows


_KEYS = ("lam_max", "cond", "cond10", "p10", "lam_max_linear", "cond_linear", "cond10_linear")


def _same_rows(got, want):
    assert [sorted(r) for r in got] == [sorted(r) for r in want]
    for g, w in zip(got, want):
        assert g["depth"] == w["depth"] and g["seed"] == w["seed"]
        for k in _KEYS:
            assert g[k] == pytest.approx(w[k], rel=1e-10), k


def test_relu_depth_table_rows(fake_mnist):
    data = fake_mnist(3)
    _same_rows(t1.relu_depth_table((2, 6), (0, 4), data), _depth_rows((2, 6), (0, 4), data))


def _flatness(rows, depths, stat):
    lg = {dep: np.log10([r[stat] for r in rows if r["depth"] == dep]) for dep in depths}
    means = [v.mean() for v in lg.values()]
    spread = max(v.std(ddof=1) for v in lg.values())
    gap = min(math.log10(r[stat]) - math.log10(r[stat + "_linear"]) for r in rows)
    return max(means) - min(means), spread, gap


def test_relu_depth_check_in_the_paper_statistic_on_all_digits(fake_mnist):
    _MNIST_CALLS.clear()
    res = t1.relu_depth_check(depths=(2, 8, 96), seeds=(0, 1, 2), n_per_class=None, statistic="cond10", flat_tol=0.05)
    assert _MNIST_CALLS == [None]
    rows = _depth_rows((2, 8, 96), (0, 1, 2), fake_mnist(None))
    _same_rows(res.values["rows"], rows)
    rng, spread, gap = _flatness(rows, (2, 8, 96), "cond10")
    flat, far = res.parts
    assert flat.value == pytest.approx(rng, rel=1e-9) and flat.tol == 0.05 and flat.op == "<="
    assert flat.spread == pytest.approx(spread, rel=1e-9) and res.values["spread"] == flat.spread
    assert far.value == pytest.approx(gap, rel=1e-9) and far.tol == 0.05 and far.op == ">="
    assert res.passed == (rng <= 0.05 and gap >= 0.05)
    v = res.values
    assert (v["lo"], v["hi"], v["linear"]) == (2, 96, rows[0]["cond10_linear"])
    assert v["mean_hi"] == pytest.approx(np.mean([r["cond10"] for r in rows if r["depth"] == 96]), rel=1e-9)
    # one line per depth, the linear network's value, the creep (and a fragile rejection's miss)
    assert len(res.lines) == 5 + v["fragile_rejection"]


def test_relu_depth_check_falsifier_is_eq12_statistic_on_the_same_rows(fake_mnist):
    _MNIST_CALLS.clear()
    res = t1.relu_depth_check((6, 2), (1, 0), n_per_class=5, statistic="cond", flat_tol=0.01)
    assert _MNIST_CALLS == [5]
    rows = _depth_rows((6, 2), (1, 0), fake_mnist(5))
    _same_rows(res.values["rows"], rows)
    rng, spread, gap = _flatness(rows, (6, 2), "cond")
    assert res.parts[0].value == pytest.approx(rng, rel=1e-9) and res.parts[1].value == pytest.approx(gap, rel=1e-9)
    # rows are reused, not recomputed
    _MNIST_CALLS.clear()
    again = t1.relu_depth_check((6, 2), (1, 0), statistic="cond10", flat_tol=0.01, rows=res.values["rows"])
    assert _MNIST_CALLS == [] and again.values["rows"] is res.values["rows"]
    with pytest.raises(ValueError, match=r"\bstatistic\b"):
        t1.relu_depth_check((6, 2), (1, 0), statistic="max", rows=rows)
    # one seed per depth: no run-to-run spread to report
    one = t1.relu_depth_check((6, 2), (1,), statistic="cond", flat_tol=0.01, rows=[r for r in rows if r["seed"] == 1])
    assert one.values["spread"] == 0.0 and one.parts[0].spread == 0.0


def test_figure5_flat_tolerance_is_the_fig5_ledger_criterion():
    from resnet_nb.experiments import fig5

    tol, crit = t1.figure5_flat_tolerance()
    chk = fig5.flatness(fig5.committed("fig5"), "2-shortcut")
    assert tol == pytest.approx(chk.tol, rel=1e-12) and isinstance(crit, str) and crit


def _exact_relu_spectrum(depth, seed, data):
    from resnet_nb.core.relu_hessian import hessian_mid_relu

    lin, net, W = _start(depth, seed)
    st = data.stats()
    sig = float(torch.linalg.svdvals(st.Sxx - st.Syx).max())
    lam_lin = float(torch.linalg.eigvalsh(hessian_linear(lin, W, st)).max())
    ev = torch.linalg.eigvalsh(hessian_mid_relu(net, W, data)).numpy()
    return sig, lam_lin, ev, _masked_blocks(W, data)


def test_relu_spectrum_spot_check_compares_both_ends(fake_mnist):
    _MNIST_CALLS.clear()
    res = t1.relu_spectrum_spot_check(depth=2, n_per_class=4, seed=3)
    assert _MNIST_CALLS == [4]
    sig, lam_lin, ev, s = _exact_relu_spectrum(2, 3, fake_mnist(4))
    a = np.abs(ev)
    err = max(abs(a.max() - float(s.max())), abs(a.min() - float(s.min())))
    drift = abs(lam_lin - sig)
    assert drift > 0
    assert res.value == pytest.approx(err, rel=1e-6, abs=1e-13)
    assert res.tol == pytest.approx(drift, rel=1e-9)
    assert res.nontrivial == pytest.approx(float(s.max() - s.min()), rel=1e-12) and res.nontrivial > 0
    assert res.op == "<=" and res.nontrivial_what and isinstance(res.claim, str) and res.compared
    assert res.values["cond_exact"] == pytest.approx(a.max() / a.min(), rel=1e-9)
    assert res.values["cond_masked"] == pytest.approx(float(s.max() / s.min()), rel=1e-12)
    assert res.values["drift"] == res.tol
    assert len(res.lines) == 1
    assert res.values["s_min"] == pytest.approx(float(s.min()), rel=1e-9)
    assert res.values["s_max"] == pytest.approx(float(s.max()), rel=1e-9)
    assert res.values["a_max"] == pytest.approx(a.max(), rel=1e-9) and res.values["a_min"] == pytest.approx(a.min())


def test_relu_start_check_predictions(fake_mnist):
    sig, lam_lin, ev, s = _exact_relu_spectrum(2, 2, fake_mnist(6))
    lam, drift = float(ev.max()), abs(lam_lin - sig)
    preds = {"masked": float(s.max()), "half": sig / 2, "one": sig}
    for name, pred in preds.items():
        _MNIST_CALLS.clear()
        res = t1.relu_start_check(depth=2, n_per_class=6, seed=2, prediction=name)
        assert _MNIST_CALLS == [6]
        assert res.value == pytest.approx(abs(lam - pred), rel=1e-6, abs=1e-12)
        assert res.tol == pytest.approx(drift, rel=1e-9) and res.op == "<="
        v = res.values
        assert v["lam"] == pytest.approx(lam, rel=1e-9) and v["masked"] == pytest.approx(preds["masked"], rel=1e-12)
        assert v["theorem1_c1"] == pytest.approx(sig, rel=1e-12)
        assert v["theorem1_half"] == pytest.approx(sig / 2, rel=1e-12)
        assert v["lam_linear"] == pytest.approx(lam_lin, rel=1e-9) and v["drift"] == res.tol
        assert res.values["err"] == res.value and res.values["depth"] == 2
        assert len(res.lines) == 1
    # without a prediction the check states its claim: the masked Eq. 19
    default = t1.relu_start_check(depth=2, n_per_class=6, seed=2)
    assert default.value == pytest.approx(abs(lam - preds["masked"]), rel=1e-6, abs=1e-12)
    with pytest.raises(ValueError, match=r"\bprediction\b"):
        t1.relu_start_check(depth=2, n_per_class=6, prediction="quarter")


@pytest.mark.parametrize(
    ("check", "kwargs", "name"),
    [
        ("relu_kink_check", dict(pairs=0), "pairs"),
        ("relu_kink_check", dict(act="gelu"), "act"),
        ("relu_first_order_check", dict(directions=0), "directions"),
        ("relu_first_order_check", dict(act="gelu"), "act"),
    ],
)
def test_relu_checks_refuse_no_directions_and_unknown_activations(data3, check, kwargs, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        getattr(t1, check)(data3, **kwargs)


def test_relu_checks_accept_a_single_direction(data3):
    assert t1.relu_kink_check(data3, "mid", pairs=1).passed
    assert t1.relu_first_order_check(data3, directions=1).passed


def test_relu_shape_check_is_scale_free_and_rejects_every_convention(fake_mnist):
    """The shape check compares lg cond10 of the exact start Hessian with the masked Eq. 19's and with
    Theorem 1's +-sigma_k(M): scaling the latter by any relu'(0) = c leaves the compared ratio as it is."""
    from resnet_nb.core.hessians import cond_percentile

    sig, lam_lin, ev, s = _exact_relu_spectrum(2, 2, fake_mnist(6))
    st = fake_mnist(6).stats()
    sv = torch.linalg.svdvals(st.Sxx - st.Syx).numpy()
    masked = cond_percentile(np.concatenate([s, -s]), 10)
    for c in (1.0, 0.5, 0.732):
        assert cond_percentile(c * np.concatenate([sv, -sv]), 10) == pytest.approx(
            cond_percentile(np.concatenate([sv, -sv]), 10), rel=1e-12
        )
    exact = cond_percentile(ev, 10)
    res = t1.relu_shape_check(depth=2, n_per_class=6, seed=2, prediction="masked")
    assert res.value == pytest.approx(abs(np.log10(exact) - np.log10(masked)), rel=1e-6, abs=1e-12)
    assert res.values["cond10_masked"] == pytest.approx(masked, rel=1e-12)
    scaled = t1.relu_shape_check(depth=2, n_per_class=6, seed=2, prediction="scaled")
    theorem1 = cond_percentile(np.concatenate([sv, -sv]), 10)
    assert scaled.value == pytest.approx(abs(np.log10(exact) - np.log10(theorem1)), rel=1e-6, abs=1e-12)
    assert scaled.tol == res.tol and scaled.nontrivial == res.nontrivial
    with pytest.raises(ValueError, match=r"\bprediction\b"):
        t1.relu_shape_check(depth=2, n_per_class=6, prediction="half")


def test_relu_depth_check_reports_the_creep_and_a_fragile_rejection(fake_mnist):
    rows = _depth_rows((6, 2), (1, 0), fake_mnist(5))
    mean = {d: float(np.mean([r["cond"] for r in rows if r["depth"] == d])) for d in (2, 6)}
    rng, spread, _ = _flatness(rows, (6, 2), "cond")
    # a tolerance just below the range: rejected by less than the spread, so the rejection is fragile
    tight = t1.relu_depth_check((6, 2), (1, 0), statistic="cond", flat_tol=rng - spread / 2, rows=rows)
    assert tight.values["creep"] == pytest.approx(mean[6] / mean[2] - 1, rel=1e-12)
    assert not tight.parts[0].within and tight.values["fragile_rejection"]
    # far below the range: a clear rejection
    clear = t1.relu_depth_check((6, 2), (1, 0), statistic="cond", flat_tol=rng - 2 * spread, rows=rows)
    assert not clear.values["fragile_rejection"]
    # a pass is never a fragile rejection
    loose = t1.relu_depth_check((6, 2), (1, 0), statistic="cond", flat_tol=rng + spread, rows=rows)
    assert loose.parts[0].within and not loose.values["fragile_rejection"]


def _synthetic_rows(means_lg, offsets_lg):
    """Rows of the ReLU depth table with lg cond = mean of the depth + offset of the seed."""
    return [
        {
            "depth": dep,
            "seed": s,
            "cond": 10 ** (m + o),
            "cond_linear": 1.0,
            "cond10": 10 ** (m + o),
            "cond10_linear": 1.0,
        }
        for dep, m in means_lg.items()
        for s, o in enumerate(offsets_lg)
    ]


@pytest.mark.parametrize(
    ("top_mean", "fragile"),
    [(0.15, True), (0.5, False)],  # misses the tolerance 0.1 by 0.05 (< spread 0.1) or by 0.4 (> it)
)
def test_relu_depth_check_flags_a_fragile_rejection_exactly_when_it_misses_by_less_than_the_seed_spread(
    top_mean, fragile
):
    # two seeds at lg offsets -+0.05 sqrt(2): their sample standard deviation (ddof=1) is 0.1
    offsets = [-0.05 * math.sqrt(2), 0.05 * math.sqrt(2)]
    rows = _synthetic_rows({2: 1.0, 8: 1.0 + top_mean}, offsets)
    res = t1.relu_depth_check((2, 8), (0, 1), statistic="cond", flat_tol=0.1, rows=rows)
    assert res.values["spread"] == pytest.approx(0.1)
    assert res.parts[0].rejected_on_value
    assert res.values["fragile_rejection"] is fragile
    assert res.values["miss"] == pytest.approx(top_mean - 0.1)
    # the title carries the flag, and a fragile rejection adds a line (2 depths, linear, creep)
    assert (t1.relu.RELU_DEPTH_FRAGILE_WORDS[True] in res.claim) is fragile
    assert len(res.lines) == 4 + fragile


def test_relu_depth_check_creep_runs_from_the_shallowest_to_the_deepest_depth_in_any_order():
    # depths given out of order: the creep is the mean at depth 8 over the mean at depth 2, minus 1
    rows = _synthetic_rows({8: 1.2, 2: 1.0, 4: 1.1}, [0.0, 0.01])
    res = t1.relu_depth_check((8, 2, 4), (0, 1), statistic="cond", flat_tol=1.0, rows=rows)
    mean = {d: np.mean([r["cond"] for r in rows if r["depth"] == d]) for d in (2, 4, 8)}
    assert (res.values["lo"], res.values["hi"]) == (2, 8)
    assert res.values["creep"] == pytest.approx(mean[8] / mean[2] - 1, rel=1e-12)
    assert res.values["mean_stat"] == pytest.approx(mean, rel=1e-12)


def test_relu_shape_check_tolerance_is_the_linear_drift_or_rounding_whichever_is_larger(fake_mnist, monkeypatch):
    res = t1.relu_shape_check(depth=2, n_per_class=6, seed=2)
    assert res.values["drift"] > 0 and res.tol == res.values["drift"] == res.nontrivial_min
    # a rounding bound above the drift replaces it, as the tolerance and as the nontrivial threshold
    monkeypatch.setattr(t1.relu, "eps_criterion", lambda P, scale: (1e9, "rounding"))
    big = t1.relu_shape_check(depth=2, n_per_class=6, seed=2)
    assert big.tol == 1e9 == big.nontrivial_min and big.values["drift"] == res.values["drift"]
    assert big.value == res.value and not big.passed
