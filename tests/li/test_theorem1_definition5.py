"""Definition 5's bookkeeping for Theorem 1 (resnet_nb.li.theorem1.definition5): parameter
indices, mixed partials, the data matrices, our closed form of an order-n partial at 0, subsampling,
the shifted sigmoid and the claims' small data set."""

import numpy as np
import pytest
import torch
from helpers import random_dataset

import resnet_nb.li.theorem1 as t1
from resnet_nb import Dataset, ShortcutNetwork
from resnet_nb.core.hessians import directional_derivatives, hessian, loss_function
from resnet_nb.li.theorem1 import covers_unit, mixed_partial, order_n_closed_form, param_coords, param_index

F64 = torch.float64


def test_param_index_roundtrip_and_definition5_order():
    net = ShortcutNetwork(3, 2, 2)
    seen = []
    for r in range(2):
        for l in range(2):
            for j in range(3):
                for i in range(3):
                    seen.append(param_index(net, r, l, i, j))
    assert seen == list(range(net.num_params))  # lexicographic in (r, l, j, i)
    for a in range(net.num_params):
        assert param_index(net, *param_coords(net, a)) == a


def test_param_index_rejects_bad_input():
    net = ShortcutNetwork(3, 2, 2)
    with pytest.raises(ValueError, match=r"\br must"):  # the allowed range
        param_index(net, 2, 0, 0, 0)
    with pytest.raises(ValueError, match=r"\bi must"):
        param_index(net, 0, 0, 3, 0)
    with pytest.raises(ValueError, match=r"\ba must"):
        param_coords(net, net.num_params)
    with pytest.raises(ValueError, match=r"\bindices must"):
        mixed_partial(lambda w: w.sum(), torch.zeros(3, dtype=torch.float64), [])


def test_covers_unit():
    net = ShortcutNetwork(3, 2, 2)
    a = param_index(net, 1, 0, 0, 0)
    b = param_index(net, 1, 1, 2, 1)
    c = param_index(net, 0, 1, 0, 0)
    assert covers_unit(net, [a, b])
    assert not covers_unit(net, [a, c])
    assert not covers_unit(net, [a, a, a])


def test_mixed_partial_matches_autograd_hessian_entries(data3):
    net = ShortcutNetwork(3, 2, 2, pre="tanh", mid="silu")
    W = torch.randn(net.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(0)) * 0.3
    H = hessian(net, W, data3)
    f = loss_function(net, data3)
    from resnet_nb import flatten

    w = flatten(W)
    rng = np.random.default_rng(0)
    for _ in range(6):
        a, b = (int(x) for x in rng.integers(net.num_params, size=2))
        assert abs(mixed_partial(f, w, [a, b]) - float(H[a, b])) < 1e-12


def test_mixed_partial_repeated_index_is_pure_derivative(data3):
    net = ShortcutNetwork(3, 3, 1, mid="tanh")
    f = loss_function(net, data3)
    w = torch.full((net.num_params,), 0.2, dtype=torch.float64)
    e = torch.zeros(net.num_params, dtype=torch.float64)
    e[5] = 1.0
    dd = directional_derivatives(f, w, e, 3)
    assert abs(mixed_partial(f, w, [5, 5, 5]) - dd[2]) < 1e-12


def test_order_n_closed_form_rejects_wrong_length(data3):
    with pytest.raises(ValueError, match="exactly n = 2"):
        order_n_closed_form(ShortcutNetwork(3, 2, 1), data3, [0])


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
    with pytest.raises(ValueError, match=r"\bdata\b"):
        t1.subsample(data.stats(), 2)
    with pytest.raises(ValueError, match=r"\bevery\b"):
        t1.subsample(data, 0)
    with pytest.raises(ValueError, match=r"\bevery\b"):
        t1.subsample(data, 1.0)
    with pytest.raises(ValueError, match=r"\bevery\b"):
        t1.subsample(data, 6)


def test_param_index_and_coords_validate_their_arguments():
    net = ShortcutNetwork(3, 2, 2)
    assert t1.param_index(net, np.int64(1), 1, 2, 2) == net.num_params - 1
    assert t1.param_index(net, 0, 0, 0, 0) == 0
    assert t1.param_index(net, 0, 0, 1, 0) == 1 and t1.param_index(net, 0, 0, 0, 1) == 3
    assert t1.param_index(net, 0, 1, 0, 0) == 9 and t1.param_index(net, 1, 0, 0, 0) == 18
    for bad in ((True, 0, 0, 0), (0, 2, 0, 0), (0, 0, 3, 0), (0, 0, 0, 3), (0, 0, 0, -1), (0, 0, 1.0, 0)):
        with pytest.raises(ValueError, match="must be an integer in"):
            t1.param_index(net, *bad)
    with pytest.raises(ValueError, match=r"\bl must"):
        t1.param_index(net, 0, 2, 0, 0)
    assert t1.param_coords(net, np.int64(net.num_params - 1)) == (1, 1, 2, 2)
    assert t1.param_coords(net, 0) == (0, 0, 0, 0)
    assert t1.param_coords(net, 22) == (1, 0, 1, 1)
    assert all(isinstance(x, int) for x in t1.param_coords(net, np.int64(22)))
    for bad in (True, -1, net.num_params, 2.0):
        with pytest.raises(ValueError, match=r"\ba must"):
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
        with pytest.raises(ValueError, match=r"\bindices\b"):
            t1.mixed_partial(f, w0, bad)


def test_data_matrices_and_partial_scale():
    data = random_dataset(2, 10, seed=1)
    lin = ShortcutNetwork(2, 2, 1)
    st = data.stats()
    Sxs, Sys = t1.data_matrices(lin, st)
    assert torch.equal(Sxs, st.Sxx) and torch.equal(Sys, st.Syx)
    net = ShortcutNetwork(2, 2, 1, pre="tanh")
    Sxs, Sys = t1.data_matrices(net, data)
    s = torch.tanh(data.X)
    assert torch.allclose(Sxs, data.X @ s.T / 10, atol=1e-15) and torch.allclose(Sys, data.Y @ s.T / 10, atol=1e-15)
    with pytest.raises(ValueError, match="pre-activation"):
        t1.data_matrices(net, st)
    # the scale of the partials: the larger of max |Sxs - Sys| and max |Sxs|
    sc = t1.partial_scale(net, data)
    assert sc == max(float((Sxs - Sys).abs().max()), float(Sxs.abs().max()))
    big = Dataset(data.X, 10 * data.Y)
    assert t1.partial_scale(net, big) == float(
        (t1.data_matrices(net, big)[0] - t1.data_matrices(net, big)[1]).abs().max()
    )
    assert t1.partial_scale(net, Dataset(data.X, 0 * data.Y)) == float(Sxs.abs().max())


@pytest.mark.parametrize("n, kw", [(2, {}), (3, {"mid": "silu"}), (2, {"post": "silu", "pre": "tanh"}), (1, {})])
def test_order_n_closed_form_against_autodiff(n, kw):
    data = random_dataset(2, 10, seed=1)
    net = ShortcutNetwork(2, n, 2, **kw)
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=F64)
    Sxs, Sys = t1.data_matrices(net, data)
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
    with pytest.raises(ValueError, match=r"\bindices\b"):
        t1.order_n_closed_form(net, data, chain + [0])


def test_shifted_sigmoid():
    a = t1.shifted_sigmoid()
    assert a.name == "sigmoid" and not a.is_identity
    assert (a.value_at_zero, a.d1_at_zero, a.d2_at_zero) == (0.5, 0.25, 0.0)
    x = torch.tensor([-1.0, 0.0, 2.0], dtype=F64)
    assert torch.equal(a(x), torch.sigmoid(x))
    assert torch.allclose(a.grad(x), torch.sigmoid(x) * (1 - torch.sigmoid(x)), atol=1e-16)


def test_param_index_names_the_coordinate_out_of_range():
    net = ShortcutNetwork(3, 2, 2)
    with pytest.raises(ValueError, match=r"\bi must"):
        t1.param_index(net, 0, 0, 3, 0)
    with pytest.raises(ValueError, match=r"\bj must"):
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


def test_data3_is_drawn_from_its_stated_covariance():
    """_data3's inputs come from the covariance written in it (not the identity): the sample
    covariance is closer to it than to I, and the targets make Syx non-symmetric."""
    cov = torch.tensor([[2.0, 0.5, 0.0], [0.5, 1.0, 0.3], [0.0, 0.3, 0.5]], dtype=F64)
    st = t1.unfriendly_data3().stats()
    assert float((st.Sxx - cov).norm()) < 0.5 * float((st.Sxx - torch.eye(3, dtype=F64)).norm())
    assert float((st.Syx - st.Syx.T).abs().max()) > 0.05
    assert st.Sxx.dtype == F64 and t1.unfriendly_data3().m == 40


def test_shifted_sigmoid_values_and_derivative():
    """The sigmoid activation of the ledger's falsifiers: sigma(0) = 1/2, sigma'(0) = 1/4,
    sigma''(0) = 0, and its elementwise derivative equals autograd's on a grid."""
    act = t1.shifted_sigmoid()
    assert (act.name, act.value_at_zero, act.d1_at_zero, act.d2_at_zero) == ("sigmoid", 0.5, 0.25, 0.0)
    x = torch.linspace(-4, 4, 17, dtype=F64, requires_grad=True)
    (g,) = torch.autograd.grad(act(x).sum(), x)
    assert torch.allclose(act.grad(x.detach()), g, rtol=1e-14, atol=0)
    assert float(act(torch.zeros((), dtype=F64))) == 0.5


def test_claim_data_are_not_whitened():
    # _data3: three coordinates, unequal variances and correlations (Sxx far from I), Syx not symmetric
    data = t1.unfriendly_data3()
    st = data.stats()
    assert data.X.dtype == F64 and data.d == 3 and data.m == 40
    S = st.Sxx
    assert S[0, 0] > S[1, 1] > S[2, 2] and min(float(S[0, 1]), float(S[1, 2])) > 0.2  # like cov
    assert float((st.Syx - st.Syx.T).abs().max()) > 0.05
