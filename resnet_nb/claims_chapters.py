"""Claims of the chapters, registered in the ledger (see :mod:`resnet_nb.claims`).

Each entry reuses the chapter's own check (so the ledger and the chapter cannot drift apart)
and pairs it with a negative instance on which the statement is false.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from .claims import Outcome, register


def _outcome(res, worst_key, tol_key=None, tol=None):
    """Turn a chapter CheckResult into an Outcome (worst and tolerance read from its values)."""
    v = res.values
    worst = float(v.get(worst_key, math.nan))
    t = float(v[tol_key]) if tol_key and tol_key in v else (math.nan if tol is None else tol)
    return Outcome(bool(res.holds), worst, t, res.lines[0] if res.lines else "")


def _data3():
    # not whitened (Sxx != I): formulas that silently assume Sxx = I fail here
    from .data import synthetic_linear

    cov = torch.tensor([[2.0, 0.5, 0.0], [0.5, 1.0, 0.3], [0.0, 0.3, 0.5]], dtype=torch.float64)
    return synthetic_linear(3, 40, cov=cov, seed=1)


# ------------------------------------------------------------------------------ Theorem 1 chapter
def _lemma1(mid="tanh"):
    from .networks import ShortcutNetwork
    from .theorem1 import lemma1_check

    res = lemma1_check(ShortcutNetwork(3, 2, 2, mid=mid), _data3(), samples=6, seed=2)
    return _outcome(res, "worst_noncovering", "tol")


def _lemma1_negative():
    from .theorem1 import shifted_sigmoid

    return _lemma1(mid=shifted_sigmoid())


register("li-lemma1", "Li et al., Lemma 1",
         "At w = 0, a mixed partial derivative of order below n vanishes unless its parameters cover all n "
         "matrices of one unit (needs sigma_mid(0) = 0; the paper assumes sigma_post(0) = 0 as well, which Lemma 1 does not use).",
         ["tests/test_theorem1.py::test_lemma1_holds", "book/theorem1.ipynb"],
         negative=_lemma1_negative)(_lemma1)


def _lemma2(post="silu", n=1):
    from .networks import ShortcutNetwork
    from .theorem1 import lemma2_check

    res = lemma2_check(ShortcutNetwork(3, n, 3, pre="tanh", post=post), _data3(), samples=9)
    return _outcome(res, "worst_d2", "tol")


def _lemma2_negative():
    from .theorem1 import shifted_sigmoid

    return _lemma2(post=shifted_sigmoid(), n=1)


register("li-lemma2", "Li et al., Lemma 2",
         "At w = 0 a second derivative depends on the two units only through whether they coincide "
         "(translation invariance of the Hessian's blocks).",
         ["tests/test_theorem1.py::test_lemma2_holds", "book/theorem1.ipynb"],
         negative=_lemma2_negative)(_lemma2)


def _perturbed_part(n, perturb):
    from .hessians import hessian
    from .networks import ShortcutNetwork
    from .theorem1 import part2_check, part3_check

    data = _data3()
    net = ShortcutNetwork(3, n, 3, pre="tanh", mid="silu") if n == 2 else ShortcutNetwork(3, 1, 3, pre="tanh")
    H = hessian(net, torch.zeros(net.shape, dtype=torch.float64), data)
    if perturb:
        E = torch.zeros_like(H)
        a, b = (0, 20) if n == 2 else (25, 1)  # couples two units (n = 2) / breaks Toeplitz (n = 1)
        E[a, b] = E[b, a] = 1e-3
        H = H + E
    res = (part2_check if n == 2 else part3_check)(net, data, H=H)
    worst = max((float(v) for k, v in res.values.items() if k.startswith("worst") and np.isscalar(v)),
                default=math.nan)
    return Outcome(bool(res.holds), worst, 1e-10, res.lines[0] if res.lines else "")


register("li-thm1-part2-structure", "Li et al., Theorem 1.2 (Eqs. 11, 12, 18-22)",
         "For n = 2 the Hessian at zero is block diagonal over units with blocks [[0, A^T], [A, 0]], its "
         "eigenvalues are +- the singular values of the matrix of Eq. 12 and the origin is a strict saddle.",
         ["tests/test_theorem1.py::test_part2_holds", "book/theorem1.ipynb"],
         negative=lambda: _perturbed_part(2, True))(lambda: _perturbed_part(2, False))

register("li-thm1-part3-structure", "Li et al., Theorem 1.3 (Eqs. 13, 23-28)",
         "For n = 1 the Hessian at zero is block Toeplitz: B on the diagonal, A below and A^T above it, "
         "with A and B as in Eqs. 23-28 (general activations: our extension).",
         ["tests/test_theorem1.py::test_part3_holds", "book/theorem1.ipynb"],
         negative=lambda: _perturbed_part(1, True))(lambda: _perturbed_part(1, False))


def _relu_kink():
    from .theorem1 import relu_kink_check

    res = relu_kink_check(_data3(), "mid", pairs=3)
    return Outcome(bool(res.holds), float(res.values.get("spread", math.nan)), 1e-6,
                   "smallest |D2+(v) - D2+(-v)| must exceed the tolerance: " + (res.lines[0] if res.lines else ""))


def _relu_kink_negative():
    # the same one-sided comparison on a smooth (tanh) network finds no kink, so the check fails
    from .hessians import loss_function
    from .networks import ShortcutNetwork
    from .theorem1 import one_sided_derivatives

    net = ShortcutNetwork(3, 2, 2, mid="tanh")
    f = loss_function(net, _data3())
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    g = torch.Generator().manual_seed(0)
    spreads = []
    for _ in range(3):
        v = torch.randn(net.num_params, generator=g, dtype=torch.float64) * 0.1
        # tanh is not a polynomial: fit on a short interval where degree 8 is exact to rounding
        ts = np.linspace(1e-3, 1e-2, 19)
        dp, _ = one_sided_derivatives(f, w0, v, ts=ts)
        dm, _ = one_sided_derivatives(f, w0, -v, ts=ts)
        spreads.append(abs(dp[2] - dm[2]))
    spread = float(min(spreads))
    return Outcome(spread > 1e-6, spread, 1e-6, "tanh control: one-sided second derivatives agree")


register("li-thm1-relu-hypothesis", "Li et al., remark after Theorem 1",
         "As printed: the hypotheses of Theorem 1 hold for ReLU. False: with ReLU at the mid (or post) "
         "position the loss is not twice differentiable at 0 (one-sided second derivatives along v and -v "
         "differ), and autograd's Hessian there depends on the convention chosen for relu'(0). Corrected: "
         "Theorem 1 needs activations differentiable at 0 (tanh, SiLU) or a stated convention.",
         ["tests/test_theorem1.py::test_relu_kink_detected", "book/theorem1.ipynb"], printed="fails",
         negative=_relu_kink_negative)(_relu_kink)


def _eq7(wrong_sign=False):
    from .losses import loss_stats
    from .networks import ShortcutNetwork
    from .theorem1 import eq7_update

    data = _data3()
    worst, size = 0.0, 0.0
    for n, R, sc in [(1, 3, True), (2, 2, True), (3, 2, True), (1, 4, False)]:
        net = ShortcutNetwork(3, n, R, shortcut=sc)
        W = torch.randn(net.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(n + R)) * 0.5
        upd = eq7_update(net, W, data.stats(), 0.1)
        Wg = W.clone().requires_grad_(True)
        (g,) = torch.autograd.grad(loss_stats(net, Wg, data.stats()), Wg)
        ref = (0.1 if wrong_sign else -0.1) * g
        worst = max(worst, float((upd - ref).abs().max()))
        size = max(size, float(ref.abs().max()))
    tol = 1e-12 * max(1.0, size)
    return Outcome(worst <= tol, worst, tol, "Eq. 7 update vs -lr * autograd gradient, 4 networks")


register("li-eq7-update", "Li et al., Eq. 7",
         "The gradient-descent update of every matrix is lr (W_after)^T (Syx - W Sxx) (W_before)^T.",
         ["tests/test_theorem1.py::test_eq7", "book/theorem1_dynamics.ipynb"],
         negative=lambda: _eq7(wrong_sign=True))(_eq7)


def _fig4_one(plain_init="identity"):
    from .init import initialise
    from .networks import ShortcutNetwork
    from .train import gradient_descent

    stats = _data3().stats()
    R, lr, epochs = 4, 0.05, 40
    res_net, plain = ShortcutNetwork(3, 1, R), ShortcutNetwork(3, 1, R, shortcut=False)
    ep = list(range(epochs + 1))
    a = gradient_descent(res_net, initialise(res_net, "zero"), stats, lr, epochs, snapshot_epochs=ep)
    b = gradient_descent(plain, initialise(plain, plain_init, seed=1), stats, lr, epochs, snapshot_epochs=ep)
    eye = torch.eye(3, dtype=torch.float64)
    gap = max(float((a.snapshots[e] + eye - b.snapshots[e]).abs().max()) for e in ep)
    return Outcome(gap <= 1e-10, gap, 1e-10, "max over 40 epochs of |I + W_r - V_r|")


register("li-fig4-one-shortcut", "Li et al., Section 4.2, Eq. 14, Figure 4 (left)",
         "A zero-initialised 1-shortcut linear network follows the gradient-descent path of an "
         "identity-initialised plain linear network (V_r = I + W_r at every epoch).",
         ["tests/test_theorem1.py::test_figure4", "book/theorem1_dynamics.ipynb"],
         negative=lambda: _fig4_one(plain_init="orthogonal"))(_fig4_one)


def _fig4_skip(shift=True):
    from .data import Dataset
    from .init import initialise
    from .networks import ShortcutNetwork
    from .train import gradient_descent

    data = _data3()
    res_net, plain = ShortcutNetwork(3, 3, 1, mid="tanh"), ShortcutNetwork(3, 3, 1, shortcut=False, mid="tanh")
    target = Dataset(data.X, data.Y - data.X) if shift else data
    W0 = initialise(res_net, "xavier", seed=0) * 0.3
    ep = list(range(41))
    a = gradient_descent(res_net, W0, data, 0.05, 40, snapshot_epochs=ep)
    b = gradient_descent(plain, W0, target, 0.05, 40, snapshot_epochs=ep)
    gap = max(float((a.snapshots[e] - b.snapshots[e]).abs().max()) for e in ep)
    return Outcome(gap <= 1e-10, gap, 1e-10, "max over 40 epochs of |W_shortcut - W_plain| (tanh at mid)")


register("li-fig4-skip-all", "Li et al., Section 4.2, Figure 4 (right)",
         "A single shortcut around all layers trains exactly like the plain network fitting Y - X.",
         ["tests/test_theorem1.py::test_figure4", "book/theorem1_dynamics.ipynb"],
         negative=lambda: _fig4_skip(shift=False))(_fig4_skip)
