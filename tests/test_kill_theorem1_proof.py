"""More properties of Theorem 1's proof-step helpers (resnet_nb/li/theorem1.py) that the suite left
unchecked: the progress bars of the long loops, the rows of the depth table against eigenvalues
computed here, the sampling design of Lemma 1's tuples and Part 1's directions, the closed form's
chain test at n = 3, the Proposition's count k at a size where the rounding matters, the limit of
Part 2's strict-saddle statement, and the widgets' network-and-data helper. Each was found by a
mutant that survived the suite (see results/mutation/report.md). Kept fast: tiny networks only.
"""
import math

import numpy as np
import pytest
import torch

import resnet_nb.li.theorem1 as t1
from resnet_nb import Dataset, ShortcutNetwork
from resnet_nb.core.data import synthetic_linear
from resnet_nb.core.hessians import hessian, loss_function, theorem1_blocks


F64 = torch.float64


@pytest.fixture(scope="module")
def data3():
    return t1._data3()


def _eigs_by_autograd(net, data):
    H = hessian(net, torch.zeros(net.shape, dtype=F64), data)
    return np.linalg.eigvalsh(H.numpy())


# -- depth_table -----------------------------------------------------------------------------------

def test_depth_table_shows_a_progress_bar_by_default_and_none_when_asked(data3, capsys):
    """progress=True (the default) draws a bar labelled with n on stderr; progress=False draws
    nothing; the rows are the same either way."""
    rows = t1.depth_table(2, [1, 2], data3)
    err = capsys.readouterr().err
    assert "Hessians at 0, n = 2" in err
    quiet = t1.depth_table(2, [1, 2], data3, progress=False)
    assert capsys.readouterr().err == ""
    assert [r["R"] for r in rows] == [r["R"] for r in quiet] == [1, 2]
    for a, b in zip(rows, quiet):
        assert a["cond"] == b["cond"] and a["lam_max"] == b["lam_max"]


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


# -- Lemma 1 ----------------------------------------------------------------------------------------

def test_lemma1_check_progress_bar_only_when_asked(data3, capsys):
    net = ShortcutNetwork(3, 2, 1)
    a = t1.lemma1_check(net, data3, samples=2)
    assert capsys.readouterr().err == ""
    b = t1.lemma1_check(net, data3, samples=2, progress=True)
    assert "Lemma 1 partials" in capsys.readouterr().err
    assert a.value == b.value and a.values["counts"] == b.values["counts"]


def test_lemma1_check_uses_twenty_samples_aimed_at_the_data(data3):
    """By default 20 samples of each kind; the chains are those of lemma1_tuples with the data
    (half of them aimed at the largest entry of M), so the smallest covering-chain partial is
    the one recomputed here from those tuples."""
    net = ShortcutNetwork(3, 2, 2)
    res = t1.lemma1_check(net, data3)
    assert res.values["counts"] == {"random": 20, "one_short": 20, "repeated": 20, "chain": 20,
                                    "broken_chain": 20}
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
        coords = [t1.param_coords(net, a) for a in t1._chain(net, rng, 1, Mabs)]
        assert [c[0] for c in coords] == [1, 1, 1] and [c[1] for c in coords] == [0, 1, 2]
        assert coords[-1][2] == 2 and coords[0][3] == 1
        assert all(hi[3] == lo[2] for lo, hi in zip(coords[:-1], coords[1:]))


def test_param_index_names_the_coordinate_out_of_range():
    net = ShortcutNetwork(3, 2, 2)
    with pytest.raises(ValueError, match=r"^i must be an integer in \[0, 2\]"):
        t1.param_index(net, 0, 0, 3, 0)
    with pytest.raises(ValueError, match=r"^j must be an integer in \[0, 2\]"):
        t1.param_index(net, 0, 0, 0, -1)


def test_order_n_closed_form_needs_every_link_of_the_chain(data3):
    """n = 3: a tuple whose first two matrices chain but whose last does not is zero; the chained
    tuple is the Sigma_XX - Sigma_YX entry of its ends (both against the AD partial)."""
    net = ShortcutNetwork(3, 3, 1)
    f = loss_function(net, data3)
    w0 = torch.zeros(net.num_params, dtype=F64)
    good = [t1.param_index(net, 0, 0, 1, 2), t1.param_index(net, 0, 1, 0, 1), t1.param_index(net, 0, 2, 2, 0)]
    bad = good[:2] + [t1.param_index(net, 0, 2, 2, 1)]
    st = data3.stats()
    assert t1.order_n_closed_form(net, data3, good) == pytest.approx(float((st.Sxx - st.Syx)[2, 2]), rel=1e-12)
    assert abs(float((st.Sxx - st.Syx)[2, 2])) > 0.1
    assert t1.order_n_closed_form(net, data3, bad) == 0.0
    assert t1.mixed_partial(f, w0, good) == pytest.approx(t1.order_n_closed_form(net, data3, good), rel=1e-10)
    assert abs(t1.mixed_partial(f, w0, bad)) < 1e-12


# -- Part 1 directions, Part 2 saddle, the Proposition's k -----------------------------------------

def test_part1_directions_are_gaussian_and_one_short_leaves_a_matrix_at_zero(data3):
    net = ShortcutNetwork(3, 2, 3)
    dirs = t1._part1_directions(net, data3, 8, np.random.default_rng(0))
    for kind, v in dirs:
        V = v.reshape(net.shape)
        assert float(v.norm()) == pytest.approx(1.0, rel=1e-12)
        if kind == "single_unit":
            live = [r for r in range(net.R) if float(V[r].abs().max()) > 0]
            assert len(live) == 1
            assert len(torch.unique(V[live[0]])) == net.n * net.d * net.d  # Gaussian entries, all distinct
        if kind == "one_short":
            for r in range(net.R):
                assert sum(1 for l in range(net.n) if float(V[r, l].abs().max()) == 0.0) == 1


def test_part2_strict_saddle_is_not_claimed_when_the_quartic_term_dominates():
    """When M is tiny (Y almost X) the loss along the lambda_min eigenvector at t = 1e-3 is no
    longer the quadratic model: the check's fifth statement reports the relative gap and fails,
    its tolerance being the next Taylor term 10 t, while the four Hessian statements still hold."""
    g = torch.Generator().manual_seed(3)
    X = torch.randn(3, 200, generator=g, dtype=F64)
    Y = X + 1e-4 * torch.randn(3, 200, generator=g, dtype=F64)
    data = Dataset(X, Y)
    res = t1.part2_check(ShortcutNetwork(3, 2, 1), data)
    saddle = [p for p in res.parts if p.claim.startswith("strict saddle")][0]
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


# -- the widgets' helper and the ledger's small data ------------------------------------------------

def test_network_and_data_builds_what_the_widget_describes():
    mn = Dataset(torch.randn(10, 30, dtype=F64), torch.randn(10, 30, dtype=F64))
    net, data = t1._network_and_data(2, 3, 5, "tanh", "mid", "MNIST", mnist=mn)
    assert data is mn and (net.d, net.n, net.R) == (10, 2, 3) and net.mid.name == "tanh"
    net, data = t1._network_and_data(2, 1, 4, "identity", "post", "synthetic", seed=2)
    ref = synthetic_linear(4, 200, seed=2)
    assert torch.equal(data.X, ref.X) and torch.equal(data.Y, ref.Y)
    assert net.post.is_identity and net.mid.is_identity and (net.d, net.R) == (4, 1)
    net, data = t1._network_and_data(1, 2, 3, "tanh", "mid", "synthetic")
    assert net.mid.is_identity and net.post.is_identity  # no mid position in a 1-shortcut unit
    assert torch.equal(data.X, synthetic_linear(3, 200, seed=0).X)  # seed 0 by default
    net, _ = t1._network_and_data(1, 2, 3, "tanh", "post", "synthetic")
    assert net.post.name == "tanh"
    net, _ = t1._network_and_data(2, 2, 3, "tanh", "mid", "synthetic")
    assert net.mid.name == "tanh"


def test_data3_is_drawn_from_its_stated_covariance():
    """_data3's inputs come from the covariance written in it (not the identity): the sample
    covariance is closer to it than to I, and the targets make Syx non-symmetric."""
    cov = torch.tensor([[2.0, 0.5, 0.0], [0.5, 1.0, 0.3], [0.0, 0.3, 0.5]], dtype=F64)
    st = t1._data3().stats()
    assert float((st.Sxx - cov).norm()) < 0.5 * float((st.Sxx - torch.eye(3, dtype=F64)).norm())
    assert float((st.Syx - st.Syx.T).abs().max()) > 0.05
    assert st.Sxx.dtype == F64 and t1._data3().m == 40


def test_shifted_sigmoid_values_and_derivative():
    """The sigmoid activation of the ledger's falsifiers: sigma(0) = 1/2, sigma'(0) = 1/4,
    sigma''(0) = 0, and its elementwise derivative equals autograd's on a grid."""
    act = t1.shifted_sigmoid()
    assert (act.name, act.value_at_zero, act.d1_at_zero, act.d2_at_zero) == ("sigmoid", 0.5, 0.25, 0.0)
    x = torch.linspace(-4, 4, 17, dtype=F64, requires_grad=True)
    (g,) = torch.autograd.grad(act(x).sum(), x)
    assert torch.allclose(act.grad(x.detach()), g, rtol=1e-14, atol=0)
    assert float(act(torch.zeros((), dtype=F64))) == 0.5
