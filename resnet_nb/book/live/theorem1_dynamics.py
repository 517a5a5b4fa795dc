"""Live explorer of the chapter on training from the zero point (book/theorem1_dynamics.ipynb):
``data-live="training-from-zero"``, full-batch gradient descent on a small linear network in the page.

* :func:`export_data`: the moments (``Sxx``, ``Syx``, ``tr Syy``) and the optimal loss ``L_min`` of
  the page's two small data sets at widths 1 to 4, the only data the page needs (the loss of a linear
  network depends on the samples only through them).
* :func:`export_cases`: inputs (network, moments, learning rate, the package's starting weights) and
  the package's outputs: the loss over :data:`STEPS` steps of :func:`resnet_nb.core.train.gradient_descent`
  (compared to :data:`CURVE_RTOL`), the sharpness (top eigenvalue of
  :func:`resnet_nb.core.hessians.hessian_linear`) at chosen steps, the gradient at the start and, for
  the small networks, the whole Hessian there (compared to :data:`ALGEBRA_RTOL`).
"""

from __future__ import annotations

import torch

from resnet_nb.core.data import synthetic_linear
from resnet_nb.core.hessians import hessian_linear
from resnet_nb.core.init import SMALL_SCALE, initialise
from resnet_nb.core.losses import optimum
from resnet_nb.core.networks import ShortcutNetwork
from resnet_nb.core.train import gradient_descent, linear_loss_and_grad
from resnet_nb.li.dynamics.sharpness import lambda_max

EXPLORERS = ("training-from-zero",)
#: the number of gradient steps of every cross-check case
STEPS = 50
#: relative tolerance of a loss curve over :data:`STEPS` steps (the issue's criterion)
CURVE_RTOL = 1e-6
#: relative tolerance of float64 linear algebra at one point (gradient, Hessian, its top eigenvalue)
ALGEBRA_RTOL = 1e-9
#: the steps at which a case compares the sharpness
SHARP_AT = (0, 10, 25, 50)
#: samples of each small data set of the page
SAMPLES = 200
#: the page's data sets: name -> sign of the target map's identity part (Q = s I + G / (2 sqrt d))
DATASETS = {"near": 1.0, "far": -1.0}

# The cross-check cases: (label, architecture, d, n, R, learning rate, start, seed, data set,
# whole Hessian). Starts: "xavier", "orthogonal" (plain networks), "zero" (exactly 0), "small"
# (SMALL_SCALE times a Xavier draw, the paper's small start).
CASES = (
    ("plain, Xavier start, depth 16, d = 4", False, 4, 1, 16, 0.02, "xavier", 0, "near", False),
    ("plain, orthogonal start, depth 16, d = 4", False, 4, 1, 16, 0.02, "orthogonal", 1, "near", False),
    ("plain, orthogonal start, depth 6, d = 2 (whole Hessian)", False, 2, 1, 6, 0.1, "orthogonal", 2, "far", True),
    ("1-shortcut, zero start, depth 16, d = 4", True, 4, 1, 16, 0.05, "zero", 0, "near", False),
    ("1-shortcut, zero start, depth 16, d = 4, far target", True, 4, 1, 16, 0.04, "zero", 0, "far", False),
    ("2-shortcut, exactly zero start, depth 16, d = 4", True, 4, 2, 8, 0.5, "zero", 0, "near", False),
    ("2-shortcut, small start, depth 16, d = 4", True, 4, 2, 8, 1.0, "small", 0, "near", False),
    ("2-shortcut, small start, depth 8, d = 3, past 2/lr (whole Hessian)", True, 3, 2, 4, 0.2, "small", 3, "far", True),
    ("3-shortcut, small start, depth 15, d = 4", True, 4, 3, 5, 1.0, "small", 0, "near", False),
    ("3-shortcut, Xavier start, depth 12, d = 4", True, 4, 3, 4, 0.01, "xavier", 5, "near", False),
    ("3-shortcut, small start, depth 6, d = 2 (whole Hessian)", True, 2, 3, 2, 1.0, "small", 4, "near", True),
)


def dataset(name: str, d: int):
    """The page's data set ``name`` at width ``d``: ``y = Qx + noise`` with ``Q = s I + G/(2 sqrt d)``
    (``s`` = :data:`DATASETS` [name], ``G`` the Gaussian draw of :func:`resnet_nb.core.data.synthetic_linear`,
    seed 0), :data:`SAMPLES` samples, noise 0.1."""
    if name not in DATASETS:
        raise ValueError(f"name must be one of {sorted(DATASETS)}, got {name!r}")
    near = synthetic_linear(d, SAMPLES, noise=0.1, seed=0)
    if DATASETS[name] > 0:
        return near
    Q = near.info["R"] - 2 * torch.eye(d, dtype=torch.float64)
    return synthetic_linear(d, SAMPLES, R=Q, noise=0.1, seed=0)


def start(net: ShortcutNetwork, scheme: str, seed: int) -> torch.Tensor:
    """The package's starting weights: ``initialise(net, scheme, seed)``; ``"small"`` is the paper's
    small start (:data:`resnet_nb.core.init.SMALL_SCALE` times a Xavier draw)."""
    return initialise(net, scheme, seed=seed)


def moments(stats) -> dict:
    return dict(Sxx=stats.Sxx, Syx=stats.Syx, trSyy=float(stats.trSyy))


def export_data() -> dict:
    """``{"training-from-zero": {"datasets": {name: {d: {Sxx, Syx, trSyy, Lmin}}}, "small_scale"}}``."""
    sets = {}
    for name in DATASETS:
        sets[name] = {}
        for d in range(1, 5):
            data = dataset(name, d)
            sets[name][str(d)] = dict(moments(data.stats()), Lmin=optimum(data)[1])
    return {"training-from-zero": dict(datasets=sets, small_scale=SMALL_SCALE)}


def case(label, shortcut, d, n, R, lr, scheme, seed, data_name, whole_hessian, steps=STEPS, sharp_at=SHARP_AT):
    """The two cross-check cases of one run of the package's gradient descent from its own start: the
    loss curve (to :data:`CURVE_RTOL`), and the sharpness at ``sharp_at``, the gradient at the start
    and, with ``whole_hessian``, the Hessian there (to :data:`ALGEBRA_RTOL`)."""
    net = ShortcutNetwork(d, n, R, shortcut=shortcut)
    stats = dataset(data_name, d).stats()
    W0 = start(net, scheme, seed)
    res = gradient_descent(net, W0, stats, lr, steps, snapshot_epochs=sharp_at)
    if res.diverged.any():
        raise ValueError(f"case {label!r}: gradient descent diverged at lr = {lr}; a case must converge")
    out = dict(
        loss=res.losses,
        sharpness=[lambda_max(hessian_linear(net, res.snapshots[t], stats)) for t in sharp_at],
        grad0=linear_loss_and_grad(net, W0, stats)[1],
        diverged_at=-1,
    )
    if whole_hessian:
        out["hessian0"] = hessian_linear(net, W0, stats)
    inp = dict(d=d, n=n, R=R, shortcut=shortcut, **moments(stats), lr=lr, steps=steps, W0=W0)
    inp.update(sharpness_at=list(sharp_at), hessian=whole_hessian)
    # two comparisons of the same run: the curve at the tolerance of a training run, the rest
    # (one point's linear algebra) at float64's
    loss = dict(loss=out.pop("loss"))
    curve = dict(label=f"{label}: loss over {steps} steps", input=inp, output=loss, rtol=CURVE_RTOL)
    algebra = dict(label=f"{label}: sharpness, gradient, Hessian", input=inp, output=out, rtol=ALGEBRA_RTOL)
    return [curve, algebra]


def export_cases() -> dict:
    """``{"training-from-zero": [case, ...]}``: two cases (curve, algebra) for every entry of :data:`CASES`."""
    return {"training-from-zero": [part for c in CASES for part in case(*c)]}
