"""Data, networks, initialisations, losses and training: each against an independent computation."""
import gzip
import hashlib
import struct

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import resnet_nb as rn
from resnet_nb.core import data as D

from helpers import random_dataset


# ---------------------------------------------------------------- data
@pytest.fixture(scope="module")
def mnist():
    return rn.whitened_mnist()


def test_whitened_mnist_shapes_and_whiteness(mnist):
    assert mnist.X.shape == (10, 5000) and mnist.Y.shape == (10, 5000)
    s = mnist.stats()
    assert (s.Sxx - torch.eye(10, dtype=torch.float64)).abs().max() <= 1e-12
    assert torch.all(mnist.Y.sum(0) == 1) and mnist.X.mean(1).abs().max() <= 1e-12
    assert s.trSyy == pytest.approx(1.0)


def test_svd_flip_convention(mnist):
    comps = mnist.info["components"]
    top = comps[np.arange(10), np.abs(comps).argmax(1)]
    assert np.all(top > 0)


def test_sign_conventions_change_syx_as_documented(mnist):
    pos = rn.whitened_mnist(signs="positive_diagonal").stats().Syx
    neg = rn.whitened_mnist(signs="negative_diagonal").stats().Syx
    assert torch.all(torch.diagonal(pos) >= 0) and torch.all(torch.diagonal(neg) <= 0)
    # flipping signs of inputs flips columns of Syx and nothing else
    assert torch.allclose(pos.abs(), mnist.stats().Syx.abs(), atol=1e-12)
    signs = np.array([1, -1] * 5, dtype=float)
    flipped = rn.whitened_mnist(signs=signs).stats().Syx
    assert torch.allclose(flipped, mnist.stats().Syx * torch.tensor(signs), atol=1e-12)


def test_order_permutes_inputs(mnist):
    order = [3, 1, 4, 0, 5, 9, 2, 6, 8, 7]
    perm = rn.whitened_mnist(order=order)
    assert torch.allclose(perm.X, mnist.X[order], atol=1e-12)


def test_whitened_mnist_errors():
    with pytest.raises(ValueError, match="order"):
        rn.whitened_mnist(order=[0, 0, 1, 2, 3, 4, 5, 6, 7, 8])
    with pytest.raises(ValueError, match="signs"):
        rn.whitened_mnist(signs="upside_down")
    with pytest.raises(ValueError, match="signs"):
        rn.whitened_mnist(signs=[1, 2] * 5)
    with pytest.raises(ValueError, match="k"):
        rn.whitened_mnist(k=0)
    with pytest.raises(ValueError, match="NaN"):
        D.whiten_pca(np.full((5, 4), np.nan), 2)


def test_synthetic_linear_model():
    R = torch.tensor([[1.0, 0.5], [0.0, 2.0]], dtype=torch.float64)
    ds = rn.synthetic_linear(2, 200_000, R=R, noise=0.0, seed=3)
    assert torch.allclose(ds.Y, R @ ds.X)
    noisy = rn.synthetic_linear(2, 200_000, R=R, noise=0.5, seed=3)
    resid = noisy.Y - R @ noisy.X
    assert abs(resid.std().item() - 0.5) < 0.01  # statistical: 200k samples, sd of sd ~ 0.001
    cov = torch.tensor([[4.0, 1.0], [1.0, 2.0]], dtype=torch.float64)
    c = rn.synthetic_linear(2, 200_000, cov=cov, seed=1).stats().Sxx
    assert (c - cov).abs().max() < 0.05
    with pytest.raises(ValueError, match="positive definite"):
        rn.synthetic_linear(2, 10, cov=[[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match="noise"):
        rn.synthetic_linear(2, 10, noise=-1.0)


def _write_idx(path, array, code=0x08):
    header = bytes([0, 0, code, array.ndim]) + struct.pack(">" + "I" * array.ndim, *array.shape)
    with gzip.open(path, "wb") as f:
        f.write(header + array.astype(">u1" if code == 0x08 else ">i4").tobytes())


def test_idx_parsing_and_checksum(tmp_path):
    imgs = np.arange(2 * 28 * 28, dtype=np.uint8).reshape(2, 28, 28)
    p = tmp_path / "x-images-idx3-ubyte.gz"
    _write_idx(p, imgs)
    assert np.array_equal(D.parse_idx(p), imgs)
    md5 = hashlib.md5(p.read_bytes()).hexdigest()
    assert D.verify_checksum(p, md5) and not D.verify_checksum(p, "0" * 32)
    bad = tmp_path / "bad.gz"
    with gzip.open(bad, "wb") as f:
        f.write(bytes([0, 0, 8, 1]) + struct.pack(">I", 10) + b"\x00" * 3)
    with pytest.raises(ValueError, match="announces"):
        D.parse_idx(bad)
    junk = tmp_path / "junk"
    junk.write_bytes(b"\x12\x34\x08\x01")
    with pytest.raises(ValueError, match="magic"):
        D.parse_idx(junk)


def test_download_mnist_from_a_local_mirror(tmp_path):
    """The download path end to end with a file:// mirror holding tiny files the test made."""
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    imgs = np.random.default_rng(0).integers(0, 256, size=(3, 28, 28)).astype(np.uint8)
    labels = np.array([7, 2, 1], dtype=np.uint8)
    _write_idx(mirror / "train-images-idx3-ubyte.gz", imgs)
    _write_idx(mirror / "train-labels-idx1-ubyte.gz", labels)
    files = {name: hashlib.md5((mirror / name).read_bytes()).hexdigest()
             for name in ["train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"]}
    cache = tmp_path / "cache"
    x, y = D.download_mnist(cache, mirror=mirror.as_uri() + "/", files=files)
    assert x.shape == (3, 784) and np.array_equal(y, labels)
    assert np.array_equal(x.reshape(3, 28, 28), imgs)
    # a corrupt cached file is detected and fetched again
    (cache / "train-labels-idx1-ubyte.gz").write_bytes(b"garbage")
    x2, y2 = D.download_mnist(cache, mirror=mirror.as_uri() + "/", files=files)
    assert np.array_equal(y2, labels)
    # a mirror serving the wrong bytes is refused
    wrong = dict(files, **{"train-labels-idx1-ubyte.gz": "0" * 32})
    with pytest.raises(ValueError, match="checksum"):
        D.download_mnist(tmp_path / "cache2", mirror=mirror.as_uri() + "/", files=wrong)


# ---------------------------------------------------------------- networks
def test_flatten_follows_definition_5():
    net = rn.ShortcutNetwork(3, 2, 2)
    W = torch.arange(net.num_params, dtype=torch.float64)
    Wt = rn.unflatten(W, net)
    d, n = 3, 2
    for r in range(2):
        for l in range(2):
            for i in range(3):
                for j in range(3):
                    assert Wt[r, l, i, j].item() == ((r * n + l) * d + j) * d + i
    assert torch.equal(rn.flatten(Wt), W)


@settings(max_examples=25, deadline=None)
@given(d=st.integers(1, 5), n=st.integers(1, 3), R=st.integers(1, 4), shortcut=st.booleans(),
       seed=st.integers(0, 1000))
def test_end_to_end_matches_forward(d, n, R, shortcut, seed):
    net = rn.ShortcutNetwork(d, n, R, shortcut=shortcut)
    W = rn.initialise(net, "xavier", seed=seed)
    X = torch.randn(d, 7, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    assert torch.allclose(net.forward(W, X), rn.end_to_end(net, W) @ X, atol=1e-10)


def test_plain_network_is_product_and_unit_formula():
    net = rn.plain_network(3, 4)
    W = rn.initialise(net, "xavier", seed=0)
    prod = W[3, 0] @ W[2, 0] @ W[1, 0] @ W[0, 0]
    assert torch.allclose(rn.end_to_end(net, W), prod)
    res = rn.ShortcutNetwork(3, 2, 2, pre="tanh", mid="relu", post="tanh")
    W = rn.initialise(res, "xavier", seed=1)
    x = torch.randn(3, 5, dtype=torch.float64)
    h = x
    for r in range(2):
        h = h + torch.tanh(W[r, 1] @ torch.relu(W[r, 0] @ torch.tanh(h)))
    assert torch.allclose(res.forward(W, x), h)


def test_network_errors():
    for bad in [dict(d=0, n=1, R=1), dict(d=2, n=0, R=1), dict(d=2, n=1, R=0), dict(d=2.5, n=1, R=1)]:
        with pytest.raises(ValueError, match=next(k for k, v in bad.items() if v in (0, 2.5))):
            rn.ShortcutNetwork(**bad)
    with pytest.raises(ValueError, match="activation"):
        rn.ShortcutNetwork(2, 1, 1, mid="sigmoidish")
    net = rn.ShortcutNetwork(2, 1, 1)
    with pytest.raises(ValueError, match="shape"):
        net.forward(torch.zeros(1, 1, 3, 3), torch.zeros(2, 4))
    with pytest.raises(ValueError, match="NaN"):
        net.forward(torch.zeros(1, 1, 2, 2, dtype=torch.float64), torch.full((2, 4), float("nan")))
    with pytest.raises(ValueError, match="rows"):
        net.forward(torch.zeros(1, 1, 2, 2, dtype=torch.float64), torch.zeros(3, 4))
    with pytest.raises(ValueError, match="linear"):
        rn.end_to_end(rn.ShortcutNetwork(2, 1, 1, mid="tanh"), torch.zeros(1, 1, 2, 2))
    with pytest.raises(ValueError, match="relu_grad_at_zero"):
        rn.activation("relu", relu_grad_at_zero=0.3)


# ---------------------------------------------------------------- initialisations
def test_initialisations():
    net = rn.ShortcutNetwork(8, 2, 50)
    xav = rn.initialise(net, "xavier", seed=4)
    assert abs(xav.var().item() - 1 / 8) < 0.01  # 6,400 entries: sd of the estimate ~ 0.002
    assert torch.allclose(rn.initialise(net, "small", seed=4), 0.01 * xav)
    orth = rn.initialise(net, "orthogonal", seed=4)
    eye = torch.eye(8, dtype=torch.float64)
    assert (orth @ orth.transpose(-1, -2) - eye).abs().max() < 1e-12
    assert torch.equal(rn.initialise(net, "zero"), torch.zeros(net.shape, dtype=torch.float64))
    assert torch.equal(rn.initialise(net, "identity"), eye.expand(net.shape))
    assert torch.equal(rn.initialise(net, "xavier", seed=4), xav)  # deterministic
    assert not torch.equal(rn.initialise(net, "xavier", seed=5), xav)
    assert rn.initialise(net, "orthogonal", seed=1, runs=3).shape == (3,) + net.shape
    with pytest.raises(ValueError, match="scheme"):
        rn.initialise(net, "he")


# ---------------------------------------------------------------- losses and the optimum
@settings(max_examples=25, deadline=None)
@given(d=st.integers(1, 6), m=st.integers(1, 40), n=st.integers(1, 3), R=st.integers(1, 3),
       seed=st.integers(0, 10_000), scale=st.sampled_from([1e-2, 1.0, 10.0]))
def test_sample_loss_equals_sufficient_statistics_loss(d, m, n, R, seed, scale):
    data = random_dataset(d, m, seed=seed, scale=scale)
    net = rn.ShortcutNetwork(d, n, R)
    W = rn.initialise(net, "xavier", seed=seed)
    a = rn.loss_samples(net, W, data).item()
    b = rn.loss_stats(net, W, data.stats()).item()
    assert abs(a - b) <= 1e-12 * max(1.0, abs(a))


def test_optimum_is_least_squares_and_gradient_descent_reaches_it():
    data = rn.whitened_mnist()
    Wstar, Lmin = rn.optimum(data)
    # independent route: numpy's least-squares solver on the samples
    sol, *_ = np.linalg.lstsq(data.X.numpy().T, data.Y.numpy().T, rcond=None)
    assert np.abs(Wstar.numpy() - sol.T).max() <= 1e-10
    assert Lmin == pytest.approx(0.5 * np.mean(np.sum((data.Y.numpy() - sol.T @ data.X.numpy()) ** 2, 0)), abs=1e-12)
    # a depth-1 plain network is convex: long gradient descent must reach L_min
    net = rn.plain_network(10, 1)
    res = rn.gradient_descent(net, rn.initialise(net, "zero"), data, lr=0.5, epochs=200)
    assert res.losses[-1] - Lmin <= 1e-12
    # a 2-shortcut network of depth 8 from the small initialisation gets there too (slowly:
    # the last digits take long because the smallest nonzero curvature near the optimum is small)
    net = rn.ShortcutNetwork(10, 2, 4)
    res = rn.gradient_descent(net, rn.initialise(net, "small", seed=0), data, lr=1.0, epochs=3000)
    assert 0 <= res.losses[-1] - Lmin <= 1e-6
    assert np.all(res.losses >= Lmin - 1e-12)  # L_min is a lower bound along the whole path


def test_rank_deficient_optimum():
    X = torch.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]], dtype=torch.float64)  # rank 1
    Y = torch.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]], dtype=torch.float64)
    W, Lmin = rn.optimum(rn.Dataset(X, Y))
    sol, *_ = np.linalg.lstsq(X.numpy().T, Y.numpy().T, rcond=None)
    assert Lmin == pytest.approx(0.5 * np.sum((Y.numpy() - sol.T @ X.numpy()) ** 2) / 3, abs=1e-12)


def test_batched_training_equals_separate_runs():
    data = rn.whitened_mnist(n_per_class=50)
    net = rn.ShortcutNetwork(10, 2, 3)
    W0 = rn.initialise(net, "small", seed=2, runs=3)
    lrs = torch.tensor([0.05, 0.2, 50.0], dtype=torch.float64)
    batched = rn.gradient_descent(net, W0, data, lr=lrs, epochs=30)
    for k in range(3):
        single = rn.gradient_descent(net, W0[k], data, lr=float(lrs[k]), epochs=30)
        assert np.allclose(single.losses, batched.losses[k], rtol=1e-12, equal_nan=True)
    assert batched.diverged.tolist() == [False, False, True]


def test_data_errors():
    with pytest.raises(ValueError, match="NaN"):
        rn.Dataset(torch.tensor([[float("inf"), 1.0]]), torch.zeros(1, 2))
    with pytest.raises(ValueError, match="columns"):
        rn.Dataset(torch.zeros(2, 3), torch.zeros(2, 4))
    with pytest.raises(ValueError, match="2-d"):
        rn.Dataset(torch.zeros(3), torch.zeros(3))
    net = rn.ShortcutNetwork(3, 1, 1)
    with pytest.raises(ValueError, match="d_x"):
        rn.loss_samples(net, torch.zeros(1, 1, 3, 3), random_dataset(2, 5))
    with pytest.raises(ValueError, match="lr"):
        rn.gradient_descent(net, torch.zeros(1, 1, 3, 3, dtype=torch.float64), random_dataset(3, 5), lr=-1, epochs=2)


def test_as_stats_accepts_data_and_stats_and_refuses_the_rest():
    from resnet_nb.core.data import as_stats

    data = rn.synthetic_linear(3, 20, seed=0)
    s = as_stats(data)
    assert torch.equal(s.Sxx, data.stats().Sxx) and as_stats(s) is s
    with pytest.raises(ValueError, match="Dataset or SufficientStats"):
        as_stats(np.zeros((3, 3)))


def test_sign_convention_is_the_one_whitened_mnist_uses(mnist):
    from resnet_nb.core.data import sign_convention

    base = rn.whitened_mnist(n_per_class=50)
    for conv in ("positive_diagonal", "negative_diagonal"):
        flip = sign_convention(base.X, base.Y, conv)
        assert set(np.unique(flip)) <= {-1.0, 1.0}
        again = rn.whitened_mnist(n_per_class=50, signs=conv)
        assert torch.allclose(again.X, base.X * torch.as_tensor(flip)[:, None], atol=1e-12)
    assert np.array_equal(sign_convention(base.X, base.Y, "svd_flip"), np.ones(10))
    with pytest.raises(ValueError):
        sign_convention(base.X, base.Y, [1, -1])
    with pytest.raises(ValueError):
        sign_convention(base.X, base.Y, "upside_down")


def test_paths_point_into_the_repository():
    from resnet_nb.core import paths

    assert (paths.ROOT / "resnet_nb" / "core" / "paths.py").exists()
    assert paths.results_dir("fig5", "paper") == paths.RESULTS / "fig5" / "paper"
    assert paths.BOOK.is_dir() and paths.QUOTES.parent == paths.BOOK
    with pytest.raises(ValueError):
        paths.results_dir(scale="paper")


@pytest.mark.parametrize("check", ["check_loss_statistics", "check_optimum"])
def test_core_claims_pass_and_their_falsifiers_fail(check):
    from resnet_nb.core import losses

    fn = getattr(losses, check)
    assert fn().passed
    assert fn(falsify=True).rejected_on_value
