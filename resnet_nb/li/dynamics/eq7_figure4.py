"""Section 4.2 of Li et al. (chapter: book/theorem1_dynamics.ipynb): Eq. 7 and Figure 4.

* Eq. 7 (the gradient-descent update written with products): :func:`eq7_update`, :func:`eq7_check`;
* Figure 4 (left, Eq. 14): :func:`figure4_one_shortcut_check`; Figure 4 (right):
  :func:`figure4_skip_all_check` (an implementation test: both sides run one code path).
"""

from __future__ import annotations

import numpy as np
import torch

from resnet_nb.core import claims
from resnet_nb.core.checks import require_float, require_int
from resnet_nb.core.claims import PLAUSIBLE, REGRESSION, Check, Part, all_of, checks_from, eps_criterion, fmt
from resnet_nb.core.data import Dataset, SufficientStats, as_stats
from resnet_nb.core.init import initialise
from resnet_nb.core.losses import loss_end_to_end
from resnet_nb.core.networks import ShortcutNetwork, end_to_end
from resnet_nb.core.train import gradient_descent
from resnet_nb.li.theorem1.definition5 import unfriendly_data3

__all__ = [
    "eq7_update",
    "eq7_check",
    "figure4_one_shortcut_check",
    "figure4_skip_all_check",
]

# ------------------------------------------------------------------------------------------
# Section 4.2: Eq. 7 and Figure 4
# ------------------------------------------------------------------------------------------


EQ7_TRANSPOSES = {True: "", False: " without transposes"}
EQ7_PART = Part(
    "Eq. 7{without} ({network})",
    "max |Delta W_Eq.7 - (-lr grad L)| over {samples} weight tensors",
    "worst",
    "tol",
    "{crit}",
    nontrivial="size",
    nontrivial_what="largest |lr grad L|",
)
FIG4_ONE_PART = Part(
    "Figure 4 (left): 1-shortcut = {plain_init}-initialised plain network, R = {R}",
    "max over {epochs} epochs of |I + W_r - V_r|",
    "gap",
    "tol",
    "{crit} (P x epochs terms)",
    nontrivial="move",
    nontrivial_what="how far the weights moved",
)
FIG4_ONE_LINE = "max |loss difference| = {lgap_text}"
#: the plain network's targets: Y - X (Figure 4, right) or Y (the falsifier)
FIG4_SKIP_TARGET = {True: "Y - X", False: "Y"}
FIG4_SKIP_PART = Part(
    "Figure 4 (right): skip-all shortcut = plain network on {target}, n = {n}",
    "max over {epochs} epochs of |W_shortcut - W_plain|",
    "gap",
    "tol",
    "{crit} (P x epochs terms)",
    nontrivial="move",
    nontrivial_what="how far the weights moved",
)


def eq7_update(
    net: ShortcutNetwork, W: torch.Tensor, stats: SufficientStats, lr: float, transposes: bool = True
) -> torch.Tensor:
    """Eq. 7: Delta W_{r,l} = lr (W_after W^{r,l}_after)^T (Sigma_YX - W Sigma_XX) (W^{r,l}_before W_before)^T,
    written with explicit products (linear networks). ``transposes=False`` drops the two
    transposes (a plausible misprint; the ledger's falsifier)."""
    if not net.is_linear:
        raise ValueError(f"net must be a linear network (Eq. 7 is for linear networks), got {net.describe()}")
    W = net.require_weights(W).to(torch.float64)
    lr = require_float("lr", lr, low=0.0, low_open=True)
    d = net.d
    eye = torch.eye(d, dtype=torch.float64)
    unit = []
    for r in range(net.R):
        U = eye.clone()
        for l in range(net.n):
            U = W[r, l] @ U
        unit.append(eye + U if net.shortcut else U)
    Wend = eye.clone()
    for T in unit:
        Wend = T @ Wend
    G = stats.Syx - Wend @ stats.Sxx
    out = torch.zeros_like(W)
    for r in range(net.R):
        before, after = eye.clone(), eye.clone()
        for k in range(r):
            before = unit[k] @ before
        for k in range(r + 1, net.R):
            after = unit[k] @ after
        for l in range(net.n):
            bl, al = eye.clone(), eye.clone()
            for k in range(l):
                bl = W[r, k] @ bl
            for k in range(l + 1, net.n):
                al = W[r, k] @ al
            left, right = after @ al, bl @ before
            out[r, l] = lr * (left.T @ G @ right.T if transposes else left @ G @ right)
    return out


def eq7_check(
    net: ShortcutNetwork, data, samples: int = 3, seed: int = 0, lr: float = 0.1, transposes: bool = True
) -> Check:
    """Eq. 7 against autograd: Delta W = -lr grad L at random weights (Xavier, small, orthogonal)."""
    stats = as_stats(data)
    worst, size = 0.0, 0.0
    for s in range(samples):
        W = initialise(net, ("xavier", "small", "orthogonal")[s % 3], seed=seed + s)
        Wg = W.clone().requires_grad_(True)
        L = loss_end_to_end(end_to_end(net, Wg), stats)
        (g,) = torch.autograd.grad(L, Wg)
        upd = eq7_update(net, W, stats, lr, transposes=transposes)
        worst = max(worst, float((upd + lr * g).abs().max()))
        size = max(size, float((lr * g).abs().max()))
    tol, crit = eps_criterion(net.num_params, size)
    values = dict(
        worst=worst,
        size=size,
        tol=tol,
        crit=crit,
        samples=samples,
        transposes=bool(transposes),
        without=EQ7_TRANSPOSES[bool(transposes)],
        network=net.describe(),
    )
    (res,) = checks_from([EQ7_PART], values)
    res.values.update(values)
    return res


def figure4_one_shortcut_check(
    data, d: int | None = None, R: int = 6, lr: float = 0.05, epochs: int = 200, plain_init: str = "identity"
) -> Check:
    """Figure 4 (left): a zero-initialised 1-shortcut linear network and a plain linear
    network of depth R started at the identity follow the same gradient-descent path,
    V_r(t) = I + W_r(t) at every epoch (Eq. 14). ``plain_init="orthogonal"`` is the ledger's
    falsifier (the same equivalence claimed for a random orthogonal start)."""
    stats = as_stats(data)
    dd = stats.d if d is None else d
    res_net = ShortcutNetwork(dd, 1, R)
    plain = ShortcutNetwork(dd, 1, R, shortcut=False)
    ep = list(range(epochs + 1))
    a = gradient_descent(res_net, initialise(res_net, "zero"), stats, lr, epochs, snapshot_epochs=ep)
    b = gradient_descent(plain, initialise(plain, plain_init, seed=1), stats, lr, epochs, snapshot_epochs=ep)
    eye = torch.eye(dd, dtype=torch.float64)
    gap = max(float((a.snapshots[e] + eye - b.snapshots[e]).abs().max()) for e in ep)
    move = float((a.snapshots[epochs] - a.snapshots[0]).abs().max())
    lgap = float(np.nanmax(np.abs(a.losses - b.losses)))
    tol, crit = eps_criterion(res_net.num_params * epochs, 1.0 + move)
    values = dict(
        gap=gap,
        move=move,
        lgap=lgap,
        lgap_text=fmt(lgap, 2),
        losses=(a.losses, b.losses),
        tol=tol,
        crit=crit,
        plain_init=plain_init,
        R=R,
        epochs=epochs,
    )
    (res,) = checks_from([FIG4_ONE_PART], values)
    res.lines.append(FIG4_ONE_LINE.format_map(values))
    res.values.update(values)
    return res


def figure4_skip_all_check(
    data, n: int = 3, lr: float = 0.05, epochs: int = 200, seed: int = 0, shift: bool = True, **activations
) -> Check:
    """Figure 4 (right): one shortcut around n layers (R = 1) trained on (X, Y) follows the
    same path as the plain n-layer network trained on (X, Y - X), from the same start.

    Both sides run the same trainer on the same loss function, so this is an implementation
    test of the shortcut bookkeeping, not an independent check. ``shift=False`` trains the
    plain network on Y itself (the ledger's falsifier)."""
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a Dataset (the samples are changed), got {type(data).__name__}")
    n = require_int("n", n)
    res_net = ShortcutNetwork(data.d, n, 1, **activations)
    plain = ShortcutNetwork(data.d, n, 1, shortcut=False, **activations)
    target = Dataset(data.X, data.Y - data.X) if shift else data
    W0 = initialise(res_net, "xavier", seed=seed) * 0.3
    ep = list(range(epochs + 1))
    a = gradient_descent(res_net, W0, data, lr, epochs, snapshot_epochs=ep)
    b = gradient_descent(plain, W0, target, lr, epochs, snapshot_epochs=ep)
    gap = max(float((a.snapshots[e] - b.snapshots[e]).abs().max()) for e in ep)
    move = float((a.snapshots[epochs] - W0).abs().max())
    tol, crit = eps_criterion(res_net.num_params * epochs, 1.0 + move)
    values = dict(
        gap=gap,
        move=move,
        tol=tol,
        crit=crit,
        shift=bool(shift),
        target=FIG4_SKIP_TARGET[bool(shift)],
        n=n,
        epochs=epochs,
    )
    (res,) = checks_from([FIG4_SKIP_PART], values)
    res.values.update(values)
    return res


# ------------------------------------------------------------------------------------------
# Claims (see resnet_nb.book.ledger)
# ------------------------------------------------------------------------------------------

WHERE = ["book/theorem1_dynamics.ipynb", "tests/li/test_dynamics_eq7_figure4.py"]


@claims.claim(
    "li-eq7-update",
    source="Li et al., Eq. 7",
    statement=r"The gradient-descent update of every matrix is "
    r"$\alpha\,(W_{after}W^{r,l}_{after})^\top(\Sigma_{YX} - W\Sigma_{XX})"
    r"(W^{r,l}_{before}W_{before})^\top$.",
    verdict="holds",
    falsifier="Eq. 7 without the two transposes",
    where=WHERE,
    falsifier_kind=PLAUSIBLE,
)
def claim_eq7(falsify: bool = False) -> Check:
    data = unfriendly_data3()
    parts = [
        eq7_check(ShortcutNetwork(3, n, R, shortcut=sc), data, samples=3, transposes=not falsify)
        for n, R, sc in [(1, 3, True), (2, 2, True), (3, 2, True), (1, 4, False)]
    ]
    return all_of("Eq. 7 against autograd, four networks", parts)


@claims.claim(
    "li-fig4-one-shortcut",
    source="Li et al., Section 4.2, Eq. 14, Figure 4 (left)",
    statement="A zero-initialised 1-shortcut linear network follows the gradient-descent path of an "
    "identity-initialised plain linear network ($V_r = I + W_r$ at every epoch). The two losses are "
    "algebraically the same, $L_{res}(W) = L_{plain}(I + W)$: an implementation test of the two "
    "trainers (the statement itself is proved in the chapter).",
    verdict="holds",
    kind="regression",
    falsifier="the plain network started at a random orthogonal matrix instead of the identity (a changed input)",
    where=WHERE,
    falsifier_kind=REGRESSION,
)
def claim_fig4_one(falsify: bool = False) -> Check:
    return figure4_one_shortcut_check(
        unfriendly_data3(), R=4, epochs=40, plain_init="orthogonal" if falsify else "identity"
    )


@claims.claim(
    "li-fig4-skip-all",
    source="Li et al., Section 4.2, Figure 4 (right)",
    statement="A single shortcut around all layers trains exactly like the plain network fitting "
    "$Y - X$ (tanh at mid). Both sides run one trainer on one loss: an implementation test.",
    verdict="holds",
    kind="regression",
    falsifier="the plain network fitting $Y$ (targets not shifted)",
    where=WHERE,
    falsifier_kind=REGRESSION,
)
def claim_fig4_skip(falsify: bool = False) -> Check:
    return figure4_skip_all_check(unfriendly_data3(), n=3, lr=0.05, epochs=40, shift=not falsify, mid="tanh")
