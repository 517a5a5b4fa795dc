"""Lemmas 1 and 2 of Li et al. (resnet_nb.li.theorem1.lemmas): the sampled index tuples and pairs,
the values each check reports, and that each check fails where its hypothesis fails."""

import numpy as np
import pytest
import torch
from helpers import labelled, random_dataset, shared_scope
from hypothesis import given, settings
from hypothesis import strategies as st

import resnet_nb.li.theorem1 as t1
from resnet_nb import ShortcutNetwork, synthetic_linear
from resnet_nb.core.hessians import hessian, loss_function
from resnet_nb.li.theorem1 import covers_unit, lemma1_check, lemma2_check, lemmas, shifted_sigmoid

EPS = 2.0**-52


F64 = torch.float64


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("acts", [{}, {"pre": "tanh", "mid": "silu", "post": "tanh"}, {"mid": "relu"}])
def test_lemma1_holds(data3, n, acts):
    res = lemma1_check(ShortcutNetwork(3, n, 2, **acts), data3, samples=4, seed=n)
    assert res.passed, str(res)
    if n >= 2:
        assert res.values["worst_noncovering"] <= 1e-12
    assert res.values["min_chain"] > 1e-6  # covering chains are nonzero


def test_lemma1_fails_without_sigma_mid_zero(data3):
    res = lemma1_check(ShortcutNetwork(3, 2, 2, mid=shifted_sigmoid()), data3, samples=6)
    assert res.rejected_on_value
    assert res.values["worst_noncovering"] > 1e-3


@settings(max_examples=8, deadline=None)
@given(n=st.integers(1, 3), R=st.integers(1, 3), d=st.integers(2, 3), seed=st.integers(0, 10_000))
def test_lemma1_random_networks(n, R, d, seed):
    data = synthetic_linear(d, 12, seed=seed)
    res = lemma1_check(ShortcutNetwork(d, n, R, mid="tanh"), data, samples=3, seed=seed)
    assert res.passed, str(res)


@pytest.mark.parametrize("n", [1, 2])
def test_lemma2_holds(data3, n):
    res = lemma2_check(ShortcutNetwork(3, n, 3, pre="tanh", post="silu"), data3, samples=9)
    assert res.passed, str(res)
    assert res.values["biggest"] > 1e-3  # not a comparison of zeros


def test_lemma2_fails_without_sigma_post_zero(data3):
    res = lemma2_check(ShortcutNetwork(3, 1, 3, post=shifted_sigmoid()), data3, samples=9)
    assert res.rejected_on_value


def test_lemma2_needs_two_units(data3):
    with pytest.raises(ValueError, match=r"\bnet\.R\b must be >= 2"):
        lemma2_check(ShortcutNetwork(3, 2, 1), data3)


def test_one_short_tuples_never_cover():
    from resnet_nb.li.theorem1 import lemma1_tuples

    for n in (2, 3):
        net = ShortcutNetwork(3, n, 3)
        tuples = lemma1_tuples(net, n + 1, 30, seed=n)
        short = [t for kind, t in tuples if kind == "one_short"]
        assert short and not any(covers_unit(net, t) for t in short)
        chains = [t for kind, t in tuples if kind == "chain"]
        assert all(covers_unit(net, t) for t in chains)


class _Recorder:
    """Wraps mixed_partial and the loss function of lemma2_check to record what it evaluates."""

    def __init__(self, monkeypatch):
        self.partials, self.points = [], []
        orig_mp, orig_lf = lemmas.mixed_partial, lemmas.loss_function

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

        monkeypatch.setattr(lemmas, "mixed_partial", mp)
        monkeypatch.setattr(lemmas, "loss_function", lf)


@pytest.fixture(scope=shared_scope)
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
    labelled(res)
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
        abs=1e-12,
    )
    assert res.values["worst_d2"] < 1e-12
    # the restrictions: two random points (u, v) per pair of distinct parameters, placed identically
    distinct = [(p, q) for p, q in zip(rec.partials[0::2], rec.partials[1::2]) if p[0] != p[1]]
    assert len(rec.points) == 4 * len(distinct)
    worst = 0.0
    for k, (p, q) in enumerate(distinct):
        for e, et in (rec.points[4 * k : 4 * k + 2], rec.points[4 * k + 2 : 4 * k + 4]):
            assert e.dtype == F64 and et.dtype == F64
            assert set(torch.nonzero(e).flatten().tolist()) == set(p)
            assert set(torch.nonzero(et).flatten().tolist()) == set(q)
            assert e[p[0]] == et[q[0]] and e[p[1]] == et[q[1]]
            worst = max(worst, abs(float(f(e)) - float(f(et))))
    assert res.values["worst_fn"] == worst and res.parts[1].value == worst
    P = net.num_params
    scale = t1.partial_scale(net, l2data)
    assert scale < 1
    assert res.values["tol"] == pytest.approx(100 * P * EPS, rel=1e-12, abs=0) == res.parts[0].tol


def test_lemma2_draws_its_pairs_from_the_seed_and_needs_two_units(monkeypatch, l2data):
    net = ShortcutNetwork(2, 1, 2)
    rec0, _ = _lemma2(monkeypatch, net, l2data, samples=30, seed=0)
    assert len(rec0.partials) == 60  # two partials per sampled pair
    rec1, _ = _lemma2(monkeypatch, net, l2data, samples=4, seed=0)
    assert rec1.partials == rec0.partials[:8]
    with pytest.raises(ValueError, match="different units"):
        t1.lemma2_check(ShortcutNetwork(2, 1, 1), l2data)


def test_lemma2_large_data_scale_sets_the_tolerance():
    data = random_dataset(2, 12, seed=5, scale=1.0)
    net = ShortcutNetwork(2, 1, 2)
    res = t1.lemma2_check(net, data, samples=3)
    scale = t1.partial_scale(net, data)
    assert 1 < scale < 2
    assert res.values["tol"] == pytest.approx(100 * net.num_params * EPS * scale, rel=1e-12, abs=0)


def _lemma1_net():
    return ShortcutNetwork(3, 2, 2, mid="tanh"), random_dataset(3, 10, seed=2, scale=0.5)


def test_lemma1_tuples_have_their_documented_kinds():
    net, data = _lemma1_net()
    tuples = t1.lemma1_tuples(net, 3, 12, seed=1, data=data)
    kinds = [k for k, _ in tuples]
    assert kinds == ["random", "one_short", "repeated", "chain", "broken_chain"] * 12
    Sxs, Sys = t1.data_matrices(net, data)
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
    with pytest.raises(ValueError, match=r"\bmax_order\b"):
        t1.lemma1_tuples(net, 0, 3)
    with pytest.raises(ValueError, match=r"\bsamples\b"):
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
    labelled(res)
    tuples = t1.lemma1_tuples(net, 3, 4, 1, data)  # max_order = n + 1 by default
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=F64)
    chains = [abs(t1.order_n_closed_form(net, data, t)) for k, t in tuples if k == "chain"]
    v = res.values
    assert v["min_chain"] == pytest.approx(min(chains), rel=1e-9, abs=0) and min(chains) > 0
    assert res.parts[0].nontrivial == v["min_chain"]
    assert v["counts"] == {"random": 4, "one_short": 4, "repeated": 4, "chain": 4, "broken_chain": 4}
    n_zero = sum(not t1.covers_unit(net, t) for _, t in tuples)
    assert (v["n_zero"], v["max_order"]) == (n_zero, 3)
    n_closed = sum(len(t) == 2 for _, t in tuples)
    assert v["n_closed"] == n_closed > 0 and v["closed_ok"] and len(res.parts) == 2
    worst = max(abs(t1.mixed_partial(f, w0, t)) for _, t in tuples if not t1.covers_unit(net, t))
    assert v["worst_noncovering"] == worst
    worst_c = max(
        abs(t1.mixed_partial(f, w0, t) - t1.order_n_closed_form(net, data, t)) for _, t in tuples if len(t) == 2
    )
    assert v["worst_closed_form"] == worst_c
    scale = t1.partial_scale(net, data)
    assert v["tol"] == pytest.approx(100 * net.num_params * EPS * scale, rel=1e-12, abs=0)
    assert res.parts[0].tol == v["tol"] == res.parts[1].tol
    assert len(res.lines) == 1


def test_lemma1_check_falsifier_and_options():
    net, data = _lemma1_net()
    r = t1.lemma1_check(net, data, max_order=2, samples=2)
    assert r.values["max_order"] == 2 and max(len(t) for _, t in t1.lemma1_tuples(net, 2, 2, 0, data)) <= 2
    r0 = t1.lemma1_check(net, data, samples=2)
    r0b = t1.lemma1_check(net, data, samples=2, seed=0)
    assert r0.values["min_chain"] == r0b.values["min_chain"]
    assert r0.values["counts"]["chain"] == 2
    # sigma_mid(0) != 0: no closed form, and the non-covering partials do not vanish
    bad = ShortcutNetwork(2, 2, 2, mid=t1.shifted_sigmoid())
    rb = t1.lemma1_check(bad, random_dataset(2, 10, seed=2), max_order=2, samples=2)
    assert rb.parts == [] and not rb.passed and rb.values["worst_closed_form"] == 0.0
    assert not rb.values["closed_ok"] and rb.values["n_closed"] == 0 and rb.value == rb.values["worst_noncovering"]
    assert rb.values["worst_noncovering"] > 1e3 * rb.values["tol"]
    assert t1.lemma1_check(ShortcutNetwork(3, 2, 2, post="silu"), data, max_order=2, samples=2).passed
    with pytest.raises(ValueError, match=r"\bmax_order\b"):
        t1.lemma1_check(net, data, max_order=0)


def test_lemma1_check_smallest_chain_partial_is_over_chains_aimed_at_the_data(data3):
    """``samples`` tuples of each kind; the chains are those of lemma1_tuples with the data
    (half of them aimed at the largest entry of M), so the smallest covering-chain partial is
    the one recomputed here from those tuples."""
    net = ShortcutNetwork(3, 2, 2)
    res = t1.lemma1_check(net, data3, samples=20, seed=0)
    assert res.values["counts"] == {"random": 20, "one_short": 20, "repeated": 20, "chain": 20, "broken_chain": 20}
    f = loss_function(net, data3)
    w0 = torch.zeros(net.num_params, dtype=F64)
    chains = [t for k, t in t1.lemma1_tuples(net, 3, 20, 0, data3) if k == "chain"]
    blind = [t for k, t in t1.lemma1_tuples(net, 3, 20, 0, None) if k == "chain"]
    assert chains != blind  # the data change which chains are drawn
    expect = min(abs(t1.mixed_partial(f, w0, t)) for t in chains)
    assert res.values["min_chain"] == pytest.approx(expect, rel=1e-12)


def test_lemma1_tuples_sampling_design():
    """The documented design: repeated parameters of every order 1..max_order; one-short tuples of
    max_order or max_order - 1 parameters in which every unit but one uses matrix 0 only (padding
    from other units never completes them); broken chains as soon as d >= 2."""
    net = ShortcutNetwork(2, 2, 3)
    tuples = t1.lemma1_tuples(net, 3, 60, seed=0)
    rep = [len(t) for k, t in tuples if k == "repeated"]
    assert set(rep) == {1, 2, 3}
    short = [t for k, t in tuples if k == "one_short"]
    assert {len(t) for t in short} == {2, 3}
    for t in short:
        mats = {}
        for a in t:
            r, l, _, _ = t1.param_coords(net, a)
            mats.setdefault(r, set()).add(l)
        assert sum(1 for ls in mats.values() if ls != {0}) <= 1, mats
        assert not t1.covers_unit(net, t)
    assert sum(1 for k, _ in tuples if k == "broken_chain") == 60
    two = t1.lemma1_tuples(ShortcutNetwork(2, 2, 1), 2, 40, seed=1)
    assert {len(t) for k, t in two if k == "one_short"} == {1, 2}


def test_chain_aims_at_the_largest_entry_of_M():
    """_chain with |M| given: the last matrix's row and the first matrix's column are those of
    the largest |M| entry, and consecutive matrices chain (column of l+1 = row of l)."""
    net = ShortcutNetwork(4, 3, 2)
    Mabs = np.zeros((4, 4))
    Mabs[2, 1] = 5.0
    rng = np.random.default_rng(0)
    for _ in range(10):
        coords = [t1.param_coords(net, a) for a in t1.covering_chain(net, rng, 1, Mabs)]
        assert [c[0] for c in coords] == [1, 1, 1] and [c[1] for c in coords] == [0, 1, 2]
        assert coords[-1][2] == 2 and coords[0][3] == 1
        assert all(hi[3] == lo[2] for lo, hi in zip(coords[:-1], coords[1:]))
