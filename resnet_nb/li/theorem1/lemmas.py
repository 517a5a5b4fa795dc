"""Theorem 1 of Li et al. (chapter: book/theorem1.ipynb): Lemmas 1 and 2 at the zero point.

* Lemma 1 (a nonzero mixed partial at 0 needs one whole unit): :func:`lemma1_tuples`,
  :func:`lemma1_check`.
* Lemma 2 (only "same unit or not" matters for second derivatives): :func:`lemma2_check`.

Each check computes the two sides independently and returns a :class:`resnet_nb.core.claims.Check`;
the two claims of the ledger are declared at the bottom.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from tqdm.auto import tqdm

from resnet_nb.core import claims
from resnet_nb.core.checks import require_int
from resnet_nb.core.claims import PLAUSIBLE, Check, Part, all_of, checks_from, eps_criterion
from resnet_nb.core.hessians import loss_function
from resnet_nb.core.networks import ShortcutNetwork
from resnet_nb.li.theorem1.definition5 import (
    covers_unit,
    data_matrices,
    mixed_partial,
    order_n_closed_form,
    param_coords,
    param_index,
    partial_scale,
    shifted_sigmoid,
    unfriendly_data3,
)

__all__ = [
    "covering_chain",
    "lemma1_tuples",
    "lemma1_check",
    "lemma2_check",
]

# ------------------------------------------------------------------------------------------
# Lemma 1
# ------------------------------------------------------------------------------------------


def _random_param(net, rng, r=None, l=None):
    r = int(rng.integers(net.R)) if r is None else r
    l = int(rng.integers(net.n)) if l is None else l
    return param_index(net, r, l, int(rng.integers(net.d)), int(rng.integers(net.d)))


def covering_chain(net, rng, r, Mabs=None):
    """n parameters, one per matrix of unit r, whose indices chain (so the product survives)."""
    d = net.d
    if Mabs is not None:  # adversarial: aim at the largest entry of M
        i_last, j0 = np.unravel_index(int(np.argmax(Mabs)), Mabs.shape)
    else:
        i_last, j0 = int(rng.integers(d)), int(rng.integers(d))
    rows = [int(rng.integers(d)) for _ in range(net.n - 1)] + [int(i_last)]
    cols = [int(j0)] + rows[:-1]
    return [param_index(net, r, l, rows[l], cols[l]) for l in range(net.n)]


def lemma1_tuples(net: ShortcutNetwork, max_order: int, samples: int, seed: int = 0, data=None):
    """Index tuples for Lemma 1: random ones and adversarial ones, labelled by kind.

    Kinds: ``random`` (uniform, orders 1..max_order), ``one_short`` (every matrix of a unit
    but one, padded with other parameters: as close to covering as possible), ``repeated``
    (one parameter differentiated several times), ``chain`` (a covering, chaining n-tuple:
    Lemma 1 allows it to be nonzero and our closed form says it is), ``broken_chain``
    (covering but not chaining: zero although it covers).
    """
    max_order = require_int("max_order", max_order)
    samples = require_int("samples", samples)
    rng = np.random.default_rng(seed)
    Mabs = None
    if data is not None:
        Sxs, Sys = data_matrices(net, data)
        Mabs = (Sxs - Sys).abs().numpy()
    out = []
    for _ in range(samples):
        k = int(rng.integers(1, max_order + 1))
        out.append(("random", [_random_param(net, rng) for _ in range(k)]))
        r = int(rng.integers(net.R))
        if net.n >= 2:
            skip = int(rng.integers(net.n))
            t = [_random_param(net, rng, r, l) for l in range(net.n) if l != skip]
            while len(t) < max_order:  # pad with parameters that never complete a unit
                rr = int(rng.integers(net.R))
                if rr == r:  # another entry of a matrix unit r already has
                    ll = int(rng.choice([l for l in range(net.n) if l != skip]))
                else:  # only matrix 0 of another unit: a single matrix never covers (n >= 2)
                    ll = 0
                t.append(_random_param(net, rng, rr, ll))
            out.append(("one_short", t[: max(len(t) - int(rng.integers(0, 2)), 1)]))
        a = _random_param(net, rng)
        out.append(("repeated", [a] * int(rng.integers(1, max_order + 1))))
        out.append(("chain", covering_chain(net, rng, r, Mabs if rng.random() < 0.5 else None)))
        if net.n >= 2 and net.d >= 2:
            bad = covering_chain(net, rng, r)
            rr, ll, i, j = param_coords(net, bad[1])
            bad[1] = param_index(net, rr, ll, i, (j + 1 + int(rng.integers(net.d - 1))) % net.d)
            out.append(("broken_chain", bad))
    return out


LIST_SEP = ", "
LEMMA1_TITLE = "Lemma 1 ({network})"
LEMMA1_LINE = "tuples by kind: {kinds}"
LEMMA1_KIND = "{} {}"
LEMMA1_TABLE = (
    Part(
        "Lemma 1 ({network}): non-covering partials vanish",
        "max |partial| over {n_zero} non-covering tuples (orders 1..{max_order})",
        "worst_noncovering",
        "tol",
        "{crit}",
        nontrivial="min_chain",
        nontrivial_what="smallest |partial| over covering chains",
    ),
    Part(
        "order-n partials equal the closed form ({n_closed} tuples)",
        "max |AD - closed form|",
        "worst_closed_form",
        "tol",
        "{crit}",
        when="closed_ok",
    ),
)


def lemma1_check(
    net: ShortcutNetwork, data, max_order: int | None = None, samples: int = 20, seed: int = 0, progress: bool = False
) -> Check:
    """Lemma 1: at w = 0 a mixed partial that does not cover all n matrices of one unit is 0.

    Both sides: the mixed partial by nested forward-mode AD, and the Lemma's prediction
    (0 for a non-covering tuple). For tuples of order exactly n the prediction is sharper:
    our closed form :func:`order_n_closed_form`. The nontrivial part is the smallest
    |partial| over covering chains: the comparison means something only if those are nonzero.
    Tolerance: ``100 P eps`` times the size of the data matrices.
    """
    max_order = net.n + 1 if max_order is None else require_int("max_order", max_order)
    tol, crit = eps_criterion(net.num_params, partial_scale(net, data))
    tuples = lemma1_tuples(net, max_order, samples, seed, data)
    it = (
        tqdm(
            tuples,
            desc="Lemma 1 partials",  # pragma: no mutate
            leave=False,  # pragma: no mutate (whether the finished bar stays on screen)
        )
        if progress
        else tuples
    )
    # the closed form assumes units with a zero matrix are the identity: sigma_mid(0) = sigma_post(0) = 0
    closed_ok = net.mid.value_at_zero == 0.0 and net.post.value_at_zero == 0.0
    values = dict(
        tol=tol,
        crit=crit,
        max_order=max_order,
        closed_ok=closed_ok,
        network=net.describe(),
        **_lemma1_partials(net, data, it, closed_ok),
    )
    values["kinds"] = LIST_SEP.join(LEMMA1_KIND.format(k, v) for k, v in values["counts"].items())
    parts = checks_from(LEMMA1_TABLE, values)
    res = (
        parts[0]
        if len(parts) == 1
        else all_of(LEMMA1_TITLE.format_map(values), parts, [LEMMA1_LINE.format_map(values)])
    )
    res.values.update(values)
    return res


def _lemma1_partials(net, data, tuples, closed_ok: bool) -> dict:
    """Each mixed partial at 0 of the (kind, tuple) pairs by AD: the largest |partial| over the
    non-covering tuples, the smallest over the chains, and (``closed_ok``) the largest distance of an
    order-n partial from its closed form; with the counts behind them."""
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    worst_zero, n_zero = 0.0, 0
    worst_closed, n_closed, min_chain = 0.0, 0, math.inf
    counts = {}
    for kind, t in tuples:
        val = mixed_partial(f, w0, t)
        counts[kind] = counts.get(kind, 0) + 1
        if not covers_unit(net, t):
            worst_zero = max(worst_zero, abs(val))
            n_zero += 1
        if kind == "chain":
            min_chain = min(min_chain, abs(val))
        if len(t) == net.n and closed_ok:
            worst_closed = max(worst_closed, abs(val - order_n_closed_form(net, data, t)))
            n_closed += 1
    return dict(
        worst_noncovering=worst_zero,
        n_zero=n_zero,
        worst_closed_form=worst_closed,
        n_closed=n_closed,
        min_chain=min_chain,
        counts=counts,
    )


# ------------------------------------------------------------------------------------------
# Lemma 2
# ------------------------------------------------------------------------------------------

LEMMA2_TITLE = "Lemma 2 ({network})"
LEMMA2_TABLE = (
    Part(
        "second derivatives at 0 ({samples} pairs)",
        "max |d2L(original units) - d2L(translated units)|",
        "worst_d2",
        "tol",
        "{crit}",
        nontrivial="biggest",
        nontrivial_what="largest |d2L| among the pairs",
    ),
    Part("two-parameter restrictions at random (u, v)", "max |L0 - L0'|", "worst_fn", "tol", "{crit}"),
)


def lemma2_check(net: ShortcutNetwork, data, samples: int = 30, seed: int = 0) -> Check:
    """Lemma 2: for r1 <= r2, d^2 L / dW[r1,l1]_{i1j1} dW[r2,l2]_{i2j2} at 0 depends on the
    units only through whether r1 = r2: it equals the same derivative for units (0, 0) or (0, 1).

    Both sides by AD at two different places of the network. Also the stronger statement the
    proof actually shows: the two-parameter restrictions L0(u, v) coincide as functions
    (compared at random (u, v)). Needs R >= 2. The nontrivial part is the largest |d2L|.
    """
    if net.R < 2:
        raise ValueError(f"Lemma 2 compares different units: net.R must be >= 2, got {net.R}")
    tol, crit = eps_criterion(net.num_params, max(1.0, partial_scale(net, data)))
    values = dict(
        tol=tol,
        crit=crit,
        samples=samples,
        network=net.describe(),
        **_lemma2_samples(net, data, samples, np.random.default_rng(seed)),
    )
    res = all_of(LEMMA2_TITLE.format_map(values), checks_from(LEMMA2_TABLE, values))
    res.values.update(values)
    return res


def _lemma2_pair(net, rng, s: int):
    """Sample ``s``'s pair of parameters (a1, a2) and the same pair translated to units (0, 0)
    or (0, 1), (b1, b2): every third pair in one unit (the last), every third in the first and the
    last unit, the others at random; indices chained (a nonzero derivative) half of the time or more."""
    kind = s % 3
    if kind == 0:  # adversarial: the same unit, as far from unit 0 as possible
        r1 = r2 = net.R - 1
    elif kind == 1:  # adversarial: the first and the last unit, far apart
        r1, r2 = 0, net.R - 1
    else:
        r1 = int(rng.integers(net.R))
        r2 = int(rng.integers(r1, net.R))
    l1, l2 = int(rng.integers(net.n)), int(rng.integers(net.n))
    if kind == 0 and net.n == 2:  # a pair that covers the unit: nonzero for n = 2 (Eq. 19)
        l1, l2 = 1, 0
    i1, j1, i2 = (int(rng.integers(net.d)) for _ in range(3))
    j2 = int(rng.integers(net.d))
    if s % 2 == 0 or rng.random() < 0.5:  # chain the indices so that the derivative is nonzero
        i2 = j1
    a1, a2 = param_index(net, r1, l1, i1, j1), param_index(net, r2, l2, i2, j2)
    t2 = 0 if r1 == r2 else 1
    return a1, a2, param_index(net, 0, l1, i1, j1), param_index(net, t2, l2, i2, j2)


def _lemma2_samples(net, data, samples: int, rng) -> dict:
    """Over ``samples`` pairs (:func:`_lemma2_pair`): the largest |d2L(pair) - d2L(translated pair)|,
    the largest |d2L|, and the largest |L0(u, v) - L0'(u, v)| at two random (u, v) per pair of two
    different parameters."""
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    worst_d2, worst_fn, biggest = 0.0, 0.0, 0.0
    for s in range(samples):
        a1, a2, b1, b2 = _lemma2_pair(net, rng, s)
        v, vt = mixed_partial(f, w0, [a1, a2]), mixed_partial(f, w0, [b1, b2])
        worst_d2 = max(worst_d2, abs(v - vt))
        biggest = max(biggest, abs(v))
        if a1 != a2:
            for _ in range(2):
                u_, v_ = (float(x) for x in rng.normal(size=2))
                e = torch.zeros(net.num_params, dtype=torch.float64)
                et = e.clone()
                e[a1], e[a2] = u_, v_
                et[b1], et[b2] = u_, v_
                worst_fn = max(worst_fn, abs(float(f(e)) - float(f(et))))
    return dict(worst_d2=worst_d2, worst_fn=worst_fn, biggest=biggest)


# ------------------------------------------------------------------------------------------
# Claims (see resnet_nb.book.ledger)
# ------------------------------------------------------------------------------------------

WHERE = ["book/theorem1.ipynb", "tests/li/test_theorem1_lemmas.py"]


@claims.claim(
    "li-lemma1",
    source="Li et al., Lemma 1",
    statement=r"At $w = 0$ a mixed partial derivative vanishes unless its parameters cover all $n$ "
    r"matrices of one unit; this needs only $\sigma_{mid}(0) = 0$.",
    verdict="holds",
    falsifier=r"the same with $\sigma_{mid}(0) \ne 0$ (logistic sigmoid at mid)",
    where=WHERE,
    falsifier_kind=PLAUSIBLE,
)
def claim_lemma1(falsify: bool = False) -> Check:
    mid = shifted_sigmoid() if falsify else "tanh"
    return lemma1_check(ShortcutNetwork(3, 2, 2, mid=mid), unfriendly_data3(), samples=6, seed=2)


@claims.claim(
    "li-lemma2",
    source="Li et al., Lemma 2",
    statement=r"At $w = 0$ a second derivative depends on the two units only through whether they "
    r"coincide; this needs only $\sigma_{post}(0) = 0$.",
    verdict="holds",
    falsifier=r"the same with $\sigma_{post}(0) \ne 0$ (logistic sigmoid at post)",
    where=WHERE,
    falsifier_kind=PLAUSIBLE,
)
def claim_lemma2(falsify: bool = False) -> Check:
    post = shifted_sigmoid() if falsify else "silu"
    return lemma2_check(ShortcutNetwork(3, 1, 3, pre="tanh", post=post), unfriendly_data3(), samples=9)
