"""Theorem 1 of Li et al. (chapter: book/theorem1.ipynb): ReLU at the zero point.

* ReLU breaks the hypotheses of Theorem 1: :func:`one_sided_derivatives`, :func:`relu_kink_check`,
  :func:`relu_first_order_check`.
* The ReLU networks of the experiments at their small starting point, from the masked Eq. 19:
  :func:`relu_masked_singular_values`, :func:`relu_masked_prediction`, :func:`relu_start_check`,
  :func:`relu_shape_check` (the scale-free shape of the spectrum),
  :func:`relu_spectrum_spot_check` and, over depths and seeds in the paper's statistic
  |lambda|max/|lambda|(10%), :func:`relu_depth_table`, :func:`relu_depth_check` (flatness criterion
  of the Figure 5 ledger entry, :func:`figure5_flat_tolerance`).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import torch

from resnet_nb.core import claims
from resnet_nb.core.checks import require_choice, require_int
from resnet_nb.core.claims import PLAUSIBLE, Check, Part, all_of, checks_from, eps_criterion
from resnet_nb.core.data import Dataset
from resnet_nb.core.hessians import cond_percentile, hessian, hessian_linear, loss_function, spectrum
from resnet_nb.core.networks import ACTIVATIONS, ShortcutNetwork
from resnet_nb.li.theorem1.definition5 import unfriendly_data3

__all__ = [
    "one_sided_derivatives",
    "kink_threshold",
    "relu_kink_check",
    "relu_first_order_check",
    "relu_masked_singular_values",
    "relu_masked_prediction",
    "relu_depth_table",
    "figure5_flat_tolerance",
    "relu_depth_check",
    "relu_spectrum_spot_check",
    "relu_shape_check",
    "relu_start_check",
    "RELU_DEPTHS",
    "RELU_SEEDS",
]

# ------------------------------------------------------------------------------------------
# ReLU at 0
# ------------------------------------------------------------------------------------------


def one_sided_derivatives(f, w0, v, degree: int = 8, ts=None):
    """Taylor coefficients of t -> f(w0 + t v) for t > 0 only, by an exact polynomial fit.

    Valid when the restriction is a polynomial of degree <= ``degree`` for t > 0 (true for
    linear/ReLU networks along a ray); the fit residual is returned to prove it. Returns
    ``(derivs, residual)`` with ``derivs[k] = k! * coefficient of t^k`` (one-sided derivative).
    """
    degree = require_int("degree", degree)
    ts = np.linspace(0.1, 1.0, 2 * degree + 3) if ts is None else np.asarray(ts, dtype=float)
    vals = np.array([float(f(w0 + float(t) * v)) for t in ts])
    V = np.vander(ts, degree + 1, increasing=True)
    coef, *_ = np.linalg.lstsq(V, vals, rcond=None)
    residual = float(np.abs(V @ coef - vals).max())
    derivs = np.array([math.factorial(k) * c for k, c in enumerate(coef)])
    return derivs, residual


KINK_CRIT = "1000 x fit residual / t_min^2 + 100 eps |D2| (t_min = {t_min:g})"


def kink_threshold(resid, mags, ts):
    """What a one-sided derivative can be trusted to: the fit residual propagated to the
    coefficient of t^2 (divide by t_min^2), times 1000, and never below 100 eps |D2|."""
    t_min = float(np.min(ts))
    thr = 1e3 * resid / t_min**2 + 100 * claims.EPS64 * max(mags)
    return thr, KINK_CRIT.format(t_min=t_min)


KINK_LAW = {"mid": "D2+(v) - D2+(-v)", "post": "parallelogram defect"}
KINK_CONVENTION_LINE = (
    "autograd's Hessian at 0 changes with the convention relu'(0): max difference over "
    "relu'(0) in {{0, 1/2, 1}} = {spread:.3g}"
)
KINK_TABLE = (
    Part(
        "{act} at {position}: the loss is not twice differentiable at 0 (kink detected)",
        "smallest |{law}| over {pairs} directions",
        "min_gap",
        "thr",
        "{crit}",
        op=">=",
    ),
)


def relu_kink_check(
    data, position: str = "mid", d: int | None = None, seed: int = 0, pairs: int = 6, act: str = "relu"
) -> Check:
    """ReLU breaks the hypotheses of Theorem 1: the loss is not twice differentiable at 0.

    For a 2-shortcut network with one unit and ``act`` at ``position`` ("mid" or "post"), along
    random directions v the one-sided second derivatives D2+(v) (exact, from the polynomial
    restriction for t > 0) violate what any Hessian H would imply:
    for ``mid``, D2+(v) = D2+(-v) fails; for ``post``, the parallelogram law
    D2+(u+w) + D2+(u-w) = 2 D2+(u) + 2 D2+(w) fails with u, w supported on different matrices.
    The check *passes* when the smallest defect exceeds the fit's resolution, i.e. when the kink
    is detected. ``act="tanh"`` (fitted on a short interval) is the ledger's falsifier.
    Also reports how autograd's Hessian at 0 depends on the convention relu'(0) in {0, 1/2, 1}.
    """
    require_choice("position", position, ["mid", "post"])
    require_choice("act", act, ACTIVATIONS)
    pairs = require_int("pairs", pairs)  # none: no smallest defect
    dd = data.d if d is None else d
    net = ShortcutNetwork(d=dd, n=2, R=1, **{position: act})
    smooth = act != "relu"
    ts = np.linspace(1e-3, 1e-2, 19) if smooth else np.linspace(0.1, 1.0, 11)
    defects = _kink_defects(net, data, position, np.random.default_rng(seed), pairs, 8 if smooth else 4, ts)
    thr, crit = kink_threshold(defects["resid"], defects["mags"], ts)
    values = dict(
        thr=thr,
        crit=crit,
        act=act,
        position=position,
        pairs=pairs,
        law=KINK_LAW[position],
        min_gap=float(min(defects["gaps"])),
        **defects,
        **(_relu_conventions(data, dd, position) if act == "relu" else dict(spread=math.nan, hessians={})),
    )
    (res,) = checks_from(KINK_TABLE, values)
    if act == "relu":
        res.lines.append(KINK_CONVENTION_LINE.format_map(values))
    res.values.update(values)
    return res


def _kink_defects(net, data, position: str, rng, pairs: int, degree: int, ts) -> dict:
    """Along ``pairs`` random directions, the defect of the one-sided second derivatives from what a
    Hessian implies (``mid``: D2+(v) - D2+(-v); ``post``: the parallelogram law with u, w on the two
    matrices), the largest |D2+| of each, and the largest fit residual."""
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    gaps, resid, mags = [], 0.0, []
    for _ in range(pairs):
        if position == "mid":
            v = torch.as_tensor(rng.normal(size=net.num_params))
            zs, coef = (v, -v), (1.0, -1.0)  # D2+(v) - D2+(-v)
        else:
            q = net.d**2
            u = torch.zeros(net.num_params, dtype=torch.float64)
            w = torch.zeros(net.num_params, dtype=torch.float64)
            u[:q] = torch.as_tensor(rng.normal(size=q))
            w[q:] = torch.as_tensor(rng.normal(size=q))
            zs, coef = (u + w, u - w, u, w), (1.0, 1.0, -2.0, -2.0)  # the parallelogram law
        vals = []
        for z in zs:
            dz, r = one_sided_derivatives(f, w0, z, degree=degree, ts=ts)
            vals.append(dz[2])
            resid = max(resid, r)
        gaps.append(abs(sum(c * x for c, x in zip(coef, vals))))
        mags.append(max(abs(x) for x in vals))
    return dict(gaps=gaps, resid=resid, mags=mags)


def _relu_conventions(data, d: int, position: str) -> dict:
    """Autograd's Hessian at 0 of the one-unit 2-shortcut network with ReLU at ``position`` under
    each convention relu'(0) in {0, 1/2, 1}, and the largest difference between two of them."""
    hs = {}
    for c in (0.0, 0.5, 1.0):
        nc = ShortcutNetwork(d=d, n=2, R=1, relu_grad_at_zero=c, **{position: "relu"})
        hs[c] = hessian(nc, torch.zeros(nc.shape, dtype=torch.float64), data)
    return dict(hessians=hs, spread=float(max((hs[a] - hs[b]).abs().max() for a in hs for b in hs)))


FIRST_ORDER_TABLE = (
    Part(
        "{act} at post, n = 1: the loss is not differentiable at 0 (kink detected)",
        "smallest |D1+(v) + D1+(-v)| over {directions} directions",
        "min_sum",
        "thr",
        "1000 x fit residual / t_min + 100 eps |D1| (t_min = {t_min:g})",
        op=">=",
    ),
)


def relu_first_order_check(data, seed: int = 0, directions: int = 6, act: str = "relu") -> Check:
    """n = 1 with ReLU at post: the loss is not even differentiable at 0.

    A differentiable loss has one-sided first derivatives with D1+(v) = -D1+(-v). Along
    random v, for a 1-shortcut unit with sigma_post = ReLU, the sum D1+(v) + D1+(-v) equals
    -<(Y - X), |V s|> / m, which is nonzero. Passes when the kink is detected.
    """
    require_choice("act", act, ACTIVATIONS)
    directions = require_int("directions", directions)  # none: no smallest sum
    rng = np.random.default_rng(seed)
    net = ShortcutNetwork(data.d, 1, 1, post=act)
    f = loss_function(net, data)
    w0 = torch.zeros(net.num_params, dtype=torch.float64)
    smooth = act != "relu"
    ts = np.linspace(1e-3, 1e-2, 19) if smooth else np.linspace(0.1, 1.0, 7)
    degree = 8 if smooth else 2
    sums, mags, resid = [], [], 0.0
    for _ in range(directions):
        v = torch.as_tensor(rng.normal(size=net.num_params))
        dp, r1 = one_sided_derivatives(f, w0, v, degree=degree, ts=ts)
        dm, r2 = one_sided_derivatives(f, w0, -v, degree=degree, ts=ts)
        sums.append(abs(dp[1] + dm[1]))
        mags.append(max(abs(dp[1]), abs(dm[1])))
        resid = max(resid, r1, r2)
    t_min = float(np.min(ts))
    values = dict(
        sums=sums,
        resid=resid,
        min_sum=float(min(sums)),
        thr=1e3 * resid / t_min + 100 * claims.EPS64 * max(mags),
        t_min=t_min,
        act=act,
        directions=directions,
    )
    (res,) = checks_from(FIRST_ORDER_TABLE, values)
    res.values.update(values)
    return res


def relu_masked_singular_values(net: ShortcutNetwork, W, data: Dataset) -> torch.Tensor:
    """All singular values of the masked Eq. 19 blocks M_r^(j) (r over units, j over hidden units).

    Near a small ``W`` the cross blocks of a 2-shortcut network with ReLU at mid are block diagonal
    with these blocks (see :func:`relu_masked_prediction`), so the Hessian's eigenvalues are, up to
    O(eps), plus and minus these values: R d^2 of them in all.
    """
    X, Y = data.X, data.Y
    out = []
    for r in range(net.R):
        mask = (W[r, 0] @ X > 0).to(torch.float64)  # (d, m)
        Ms = torch.einsum("im,jm,km->jik", X - Y, mask, X) / data.m  # (j, i, k)
        out.append(torch.linalg.svdvals(Ms).flatten())
    return torch.cat(out)


def relu_masked_prediction(net: ShortcutNetwork, W, data: Dataset) -> float:
    """Largest singular value of the cross block of a 2-shortcut network with ReLU at mid near 0.

    Near ``W`` small, unit r's input is x (up to O(eps)) and hidden unit j passes x only where
    (W_{r,1} x)_j > 0. The block d2L/dW_{r,2} dW_{r,1} is then block diagonal over j with blocks
    M_r^(j) = (1/m) sum_mu [(W_{r,1} x_mu)_j > 0] (x_mu - y_mu) x_mu^T (Eq. 19 with a mask), so
    its largest singular value is max over r, j of sigma_max(M_r^(j)).
    """
    return float(relu_masked_singular_values(net, W, data).max())


def relu_depth_table(depths, seeds, data: Dataset) -> list[dict]:
    """The spectrum at the experiments' small start, from the masked Eq. 19, for 2-shortcut networks
    with ReLU at mid, per depth and seed: lambda_max, cond = |lambda|max/|lambda|min, the paper's
    cond10 = |lambda|max/|lambda|(10%) and |lambda|(10%) itself (the eigenvalues are plus and minus
    the masked singular values); beside them the linear network's Theorem 1 values (the same at
    every depth and seed). Different depths and seeds draw their masks independently."""
    from resnet_nb.shared.common import initial_weights, network

    stats = data.stats()
    sv_lin = torch.linalg.svdvals(stats.Sxx - stats.Syx).numpy()
    eig_lin = np.concatenate([sv_lin, -sv_lin])
    rows = []
    for depth in depths:
        for seed in seeds:
            net = network("2-shortcut", depth, relu=True)
            W = initial_weights("2-shortcut", network("2-shortcut", depth), seed=seed)
            s = relu_masked_singular_values(net, W, data).numpy()
            eigs = np.concatenate([s, -s])
            rows.append(
                dict(
                    depth=depth,
                    seed=seed,
                    lam_max=float(s.max()),
                    cond=float(s.max() / s.min()),
                    cond10=cond_percentile(eigs, 10),
                    p10=float(np.percentile(np.abs(eigs), 10)),
                    lam_max_linear=float(sv_lin.max()),
                    cond_linear=float(sv_lin.max() / sv_lin.min()),
                    cond10_linear=cond_percentile(eig_lin, 10),
                )
            )
    return rows


FLAT_CRIT = (
    "{fraction:g} x the growth of the orthogonal networks' mean lg cond10 over depths {lo} to {hi} "
    "(the flatness criterion of the Figure 5 ledger entry)"
)


def figure5_flat_tolerance() -> tuple[float, str]:
    """The ledger's criterion for "flat in depth" (entry li-fig5-flat-to-depth-96): a fraction
    ``FLAT_FRACTION`` of the growth of the orthogonal networks' mean lg cond10 over depths
    2 to 96, read from the committed Figure 5 table. Returns ``(tol, criterion)``."""
    from resnet_nb.shared.common import FLAT_FRACTION, committed, lg_cond_by_depth

    ref = lg_cond_by_depth(committed("fig5"), "orthogonal")
    growth = float(ref["mean"].iloc[-1] - ref["mean"].iloc[0])
    words = FLAT_CRIT.format(fraction=FLAT_FRACTION, lo=int(ref.index[0]), hi=int(ref.index[-1]))
    return FLAT_FRACTION * growth, words


LIST_SEP = ", "
RELU_DEPTH_NAME = {"cond10": "|lambda|max/|lambda|(10%)", "cond": "|lambda|max/|lambda|min"}
RELU_DEPTH_GIVEN_CRIT = "the given flatness tolerance in lg"
RELU_DEPTH_TITLE = (
    "2-shortcut-ReLU (masked Eq. 19), small start: {name} depth-invariant, but not Theorem 1's value{fragile_words}"
)
RELU_DEPTH_FRAGILE_WORDS = {True: " (fragile rejection)", False: ""}
RELU_DEPTH_ROW = "depth {depth}: {statistic} {s_min:.3f}..{s_max:.3f}"
RELU_DEPTH_LINEAR = "linear network (Theorem 1): {statistic} = {linear:.3f} at every depth"
RELU_DEPTH_CREEP = "mean {statistic} from {mean_lo:.3f} at depth {lo} to {mean_hi:.3f} at depth {hi}: {creep:+.1%}"
RELU_DEPTH_FRAGILE_LINE = (
    "fragile rejection: the flatness comparison fails by {miss:.3g}, "
    "less than the single-run spread over seeds {spread:.3g}"
)
RELU_DEPTH_TABLE = (
    Part(
        "{name} is flat in depth, {lo} to {hi} (seeds {seeds_txt})",
        "range over depths of the mean lg {statistic}",
        "range",
        "flat_tol",
        "{crit}",
        spread="spread",
    ),
    Part(
        "{name} is not Theorem 1's value at any depth or seed",
        "min over depths and seeds of lg {statistic} - lg {statistic}(linear)",
        "gap",
        "flat_tol",
        "{crit}",
        op=">=",
    ),
)


def relu_depth_check(
    depths=(2, 8, 96),
    seeds=(0, 1, 2),
    n_per_class: int | None = None,
    statistic: str = "cond10",
    flat_tol: float | None = None,
    rows=None,
) -> Check:
    """Is the 2-shortcut-ReLU start's condition number depth-invariant, in the paper's statistic?

    From the masked Eq. 19 (:func:`relu_depth_table`), two parts:

    1. flat in depth: the range over depths of the mean over seeds of lg(statistic) is at most
       ``flat_tol`` (default: :func:`figure5_flat_tolerance`, the criterion by which the book
       calls the linear networks' Figure 5 curve flat); the run-to-run spread is the largest
       standard deviation of lg(statistic) over seeds at one depth (the check is fragile when its
       margin is smaller);
    2. not Theorem 1's value: at every depth and seed, lg(statistic) exceeds the linear network's
       lg(statistic) (Theorem 1, whatever relu'(0) is: the factor cancels in the ratio) by at
       least the same ``flat_tol``.

    ``statistic`` is "cond10" (|lambda|max/|lambda|(10%), the paper's) or "cond"
    (|lambda|max/|lambda|min, Eq. 12's). The ledger's falsifier is ``statistic="cond"``: the
    printed depth invariance read in Eq. 12's statistic, whose extremes spread with depth.
    ``rows`` reuses a table already computed for the same depths and seeds.
    """
    from resnet_nb.shared.common import mnist

    require_choice("statistic", statistic, ("cond10", "cond"))
    if rows is None:
        rows = relu_depth_table(depths, seeds, mnist(n_per_class))
    if flat_tol is None:
        flat_tol, crit = figure5_flat_tolerance()
    else:
        crit = RELU_DEPTH_GIVEN_CRIT
    values = dict(
        rows=rows,
        flat_tol=flat_tol,
        crit=crit,
        statistic=statistic,
        name=RELU_DEPTH_NAME[statistic],
        seeds_txt=LIST_SEP.join(map(str, seeds)),
        **_depth_flatness(rows, depths, statistic),
    )
    # a rejection by less than the single-run spread (the largest standard deviation of the
    # statistic over seeds at one depth) is as fragile as a pass by less than it
    values["miss"] = values["range"] - flat_tol
    values["fragile_rejection"] = bool(values["range"] > flat_tol and values["miss"] < values["spread"])
    values["fragile_words"] = RELU_DEPTH_FRAGILE_WORDS[values["fragile_rejection"]]
    res = all_of(
        RELU_DEPTH_TITLE.format_map(values), checks_from(RELU_DEPTH_TABLE, values), _depth_lines(rows, depths, values)
    )
    res.values.update(values)
    return res


def _depth_flatness(rows, depths, statistic: str) -> dict:
    """Over the rows of :func:`relu_depth_table`: the mean of lg(statistic) at each depth, the range
    of those means, the largest standard deviation over seeds at one depth (0 for one seed), the
    smallest lg(statistic) - lg(statistic of the linear network), and the creep: the mean statistic
    at the deepest over the shallowest depth, minus 1."""
    lg = {dep: np.log10([r[statistic] for r in rows if r["depth"] == dep]) for dep in depths}
    means = {dep: float(v.mean()) for dep, v in lg.items()}
    mean_stat = {dep: float(np.mean([r[statistic] for r in rows if r["depth"] == dep])) for dep in depths}
    lo, hi = min(depths), max(depths)
    return dict(
        means=means,
        spread=max(float(v.std(ddof=1)) if v.size > 1 else 0.0 for v in lg.values()),
        range=max(means.values()) - min(means.values()),
        gap=min(math.log10(r[statistic]) - math.log10(r[statistic + "_linear"]) for r in rows),
        mean_stat=mean_stat,
        creep=mean_stat[hi] / mean_stat[lo] - 1.0,
        lo=lo,
        hi=hi,
        mean_lo=mean_stat[lo],
        mean_hi=mean_stat[hi],
        linear=rows[0][statistic + "_linear"],
    )


def _depth_lines(rows, depths, values) -> list[str]:
    """The lines of :func:`relu_depth_check`: the statistic's range at each depth, the linear
    network's value, the creep, and (a fragile rejection) by how much the flatness fails."""
    stat = values["statistic"]
    lines = [
        RELU_DEPTH_ROW.format(
            depth=dep,
            statistic=stat,
            s_min=min(r[stat] for r in rows if r["depth"] == dep),
            s_max=max(r[stat] for r in rows if r["depth"] == dep),
        )
        for dep in depths
    ]
    lines += [RELU_DEPTH_LINEAR.format_map(values), RELU_DEPTH_CREEP.format_map(values)]
    if values["fragile_rejection"]:
        lines.append(RELU_DEPTH_FRAGILE_LINE.format_map(values))
    return lines


def _relu_start(depth: int, n_per_class: int | None, seed: int) -> dict:
    """The experiments' small start of the 2-shortcut networks of ``depth`` on MNIST (``n_per_class``
    digits a class, None: all): the spectrum of the linear network's Hessian there, of the ReLU
    network's exact Hessian (masks held fixed), the ReLU network's masked Eq. 19 singular values,
    and Theorem 1's sigma_k(M), all as numpy arrays."""
    from resnet_nb.core.relu_hessian import hessian_mid_relu
    from resnet_nb.shared.common import initial_weights, mnist, network

    data = mnist(n_per_class)
    stats = data.stats()
    lin = network("2-shortcut", depth, relu=False)
    W = initial_weights("2-shortcut", lin, seed=seed)
    net = network("2-shortcut", depth, relu=True)
    return dict(
        sv=torch.linalg.svdvals(stats.Sxx - stats.Syx).numpy(),
        eigs_linear=spectrum(hessian_linear(lin, W, stats)),
        eigs=spectrum(hessian_mid_relu(net, W, data)),
        s=relu_masked_singular_values(net, W, data).numpy(),
    )


SPOT_LINE = (
    "exact: |lambda| from {a_min:.4f} to {a_max:.4f} (cond {cond_exact:.3f}); masked Eq. 19: {s_min:.4f} to {s_max:.4f}"
)
SPOT_TABLE = (
    Part(
        "2-shortcut-ReLU, depth {depth}, small start: exact Hessian's extreme |lambda| "
        "are the masked Eq. 19's extreme singular values",
        "max(| |lambda|max - s_max |, | |lambda|min - s_min |)",
        "err",
        "drift",
        "the linear network's drift of lambda_max at the same start",
        nontrivial="s_range",
        nontrivial_what="s_max - s_min",
    ),
)


def relu_spectrum_spot_check(depth: int = 4, n_per_class: int | None = 100, seed: int = 0) -> Check:
    """The masked Eq. 19 against the exact Hessian at a small depth: both ends of the spectrum.

    Compares |lambda|max and |lambda|min of the exact Hessian (ReLU masks held fixed, as in the
    experiments) with the largest and smallest masked singular value; the tolerance is the distance
    the same start moves a linear 2-shortcut network's lambda_max away from Theorem 1 (its drift).
    """
    start = _relu_start(depth, n_per_class, seed)
    a, s = np.abs(start["eigs"]), start["s"]
    values = dict(
        depth=depth,
        err=max(abs(a.max() - float(s.max())), abs(a.min() - float(s.min()))),
        drift=abs(float(start["eigs_linear"].max()) - float(start["sv"].max())),
        s_range=float(s.max() - s.min()),
        a_min=a.min(),
        a_max=a.max(),
        s_min=float(s.min()),
        s_max=float(s.max()),
        cond_exact=float(a.max() / a.min()),
        cond_masked=float(s.max() / s.min()),
    )
    (res,) = checks_from(SPOT_TABLE, values)
    res.lines.append(SPOT_LINE.format_map(values))
    res.values.update(values)
    return res


RELU_START_PREDICTIONS = {
    "masked": "the masked Eq. 19",
    "half": "Theorem 1 with relu'(0) = 1/2, sigma_max(M)/2",
    "one": "Theorem 1 with relu'(0) = 1, sigma_max(M)",
}
RELU_START_LINE = (
    "lambda_max = {lam:.4f}; masked Eq. 19: {masked:.4f}; Theorem 1 with relu'(0) = 1: "
    "{theorem1_c1:.4f}, with 1/2: {theorem1_half:.4f}"
)
RELU_START_TABLE = (
    Part(
        "2-shortcut-ReLU network, depth {depth}, small start: lambda_max is {name}",
        "|lambda_max - prediction|",
        "err",
        "drift",
        "the drift of the linear network's lambda_max at the same start",
    ),
)


def relu_start_check(
    depth: int = 16, n_per_class: int | None = None, seed: int = 0, prediction: str = "masked"
) -> Check:
    """The 2-shortcut-ReLU networks of Figures 3 (right) and 10 (and of Figure 7 if it shows ReLU
    networks) at their small starting point.

    Compares lambda_max of the exact Hessian (ReLU masks held fixed, as in the experiments) with a
    prediction: ``"masked"`` (Eq. 19 with the start's ReLU masks, :func:`relu_masked_prediction`),
    ``"half"`` (Theorem 1 with relu'(0) = 1/2, i.e. sigma_max(M)/2: the ledger's falsifier) or
    ``"one"`` (Theorem 1 with relu'(0) = 1). The tolerance is the distance the same start moves a
    *linear* 2-shortcut network's lambda_max away from Theorem 1 (the c R eps^2 drift).
    """
    require_choice("prediction", prediction, tuple(RELU_START_PREDICTIONS))
    start = _relu_start(depth, n_per_class, seed)
    sig = float(start["sv"].max())
    lam_lin = float(start["eigs_linear"].max())
    lam = float(start["eigs"].max())
    masked = float(start["s"].max())
    pred = {"masked": masked, "half": sig / 2, "one": sig}[prediction]
    values = dict(
        lam=lam,
        theorem1_c1=sig,
        theorem1_half=sig / 2,
        lam_linear=lam_lin,
        drift=abs(lam_lin - sig),
        masked=masked,
        err=abs(lam - pred),
        depth=depth,
        name=RELU_START_PREDICTIONS[prediction],
    )
    (res,) = checks_from(RELU_START_TABLE, values)
    res.lines.append(RELU_START_LINE.format_map(values))
    res.values.update(values)
    return res


RELU_SHAPE_PREDICTIONS = {"masked": "the masked Eq. 19's", "scaled": "c (+-sigma_k(M))'s, for every c"}
RELU_SHAPE_DRIFT_CRIT = "the drift of the linear network's lg cond10 at the same start"
RELU_SHAPE_LINE = (
    "cond10: exact {cond10:.4f}; masked Eq. 19 {cond10_masked:.4f}; "
    "Theorem 1 (any relu'(0)) {cond10_theorem1:.4f}; linear network at the start {cond10_linear:.4f}"
)
RELU_SHAPE_TABLE = (
    Part(
        "2-shortcut-ReLU network, depth {depth}, small start: the spectrum's shape is {name}",
        "|lg cond10 - lg cond10(prediction)|",
        "err",
        "tol",
        "{crit}",
        nontrivial="separation",
        nontrivial_what="|lg cond10(masked) - lg cond10(Theorem 1)|",
        nontrivial_min="tol",
    ),
)


def relu_shape_check(depth: int = 4, n_per_class: int | None = 100, seed: int = 0, prediction: str = "masked") -> Check:
    """The shape of the 2-shortcut-ReLU start's spectrum, free of any scale factor.

    Compares lg cond10 = lg(|lambda|max/|lambda|(10%)) of the exact Hessian (ReLU masks held fixed)
    with that of a predicted spectrum: ``"masked"`` (plus and minus the masked Eq. 19's singular
    values) or ``"scaled"`` (c times plus and minus sigma_k(M), Theorem 1 with relu'(0) = c: the
    ratio does not depend on c, so one comparison rejects every convention). The tolerance is the
    distance the same start moves a *linear* 2-shortcut network's lg cond10 away from Theorem 1's
    value at 0 (its drift), or a float64 rounding bound if that is larger.
    """
    require_choice("prediction", prediction, tuple(RELU_SHAPE_PREDICTIONS))
    start = _relu_start(depth, n_per_class, seed)
    sv, s, eigs = start["sv"], start["s"], start["eigs"]
    lg_theorem1 = math.log10(cond_percentile(np.concatenate([sv, -sv]), 10))
    lg_linear = math.log10(cond_percentile(start["eigs_linear"], 10))
    drift = abs(lg_linear - lg_theorem1)
    lg_exact = math.log10(cond_percentile(eigs, 10))
    lg_masked = math.log10(cond_percentile(np.concatenate([s, -s]), 10))
    pred = lg_masked if prediction == "masked" else lg_theorem1
    eps_tol, eps_crit = eps_criterion(len(eigs), 1.0)
    tol, crit = (drift, RELU_SHAPE_DRIFT_CRIT) if drift >= eps_tol else (eps_tol, eps_crit)
    values = dict(
        cond10=10**lg_exact,
        cond10_masked=10**lg_masked,
        cond10_theorem1=10**lg_theorem1,
        cond10_linear=10**lg_linear,
        drift=drift,
        err=abs(lg_exact - pred),
        tol=tol,
        crit=crit,
        separation=abs(lg_masked - lg_theorem1),
        depth=depth,
        name=RELU_SHAPE_PREDICTIONS[prediction],
    )
    (res,) = checks_from(RELU_SHAPE_TABLE, values)
    res.lines.append(RELU_SHAPE_LINE.format_map(values))
    res.values.update(values)
    return res


# ------------------------------------------------------------------------------------------
# Claims (see resnet_nb.book.ledger)
# ------------------------------------------------------------------------------------------

WHERE = ["book/theorem1.ipynb", "tests/li/test_theorem1_relu.py"]


@claims.claim(
    "li-thm1-relu-hypothesis",
    source="Li et al., remark after Theorem 1 (ReLU)",
    statement=r"With ReLU at the mid position the loss is not twice differentiable at $0$: the "
    r"one-sided second derivatives along $v$ and $-v$ differ, so Theorem 1's hypotheses fail.",
    verdict="fails as printed",
    printed="ReLU satisfies the assumptions of Theorem 1 (by a local polynomial approximation at 0)",
    falsifier="the detected defect is an artefact of the polynomial fit, not the kink: the same defect "
    "appears for tanh at mid (smooth)",
    where=WHERE,
    falsifier_kind=PLAUSIBLE,
)
def claim_relu_kink(falsify: bool = False) -> Check:
    return relu_kink_check(unfriendly_data3(), "mid", pairs=3, act="tanh" if falsify else "relu")


RELU_EXPERIMENTS_TITLE = "2-shortcut-ReLU network, depth 4, small start: the masked Eq. 19 in value and in shape"


@claims.claim(
    "li-thm1-relu-experiments",
    source="Li et al., remark after Theorem 1 (ReLU listed as satisfying its assumptions) and Eq. 12's value",
    statement=r"At the small starting point of the experiments, the Hessian of a 2-shortcut network "
    r"with ReLU at mid is the masked Eq. 19: $\lambda_{\max}$ is its largest singular value, and the "
    r"spectrum's shape (the scale-free $|\lambda|_{\max}/|\lambda|_{(10\%)}$) is the masked one, not "
    r"Theorem 1's $\pm\sigma_k(M)$ under any convention for $\mathrm{relu}'(0)$. Theorem 1 holds in "
    r"form at this start (flat in depth, entry li-thm1-relu-depth), not in value.",
    verdict="fails as printed",
    printed=r"ReLU satisfies the assumptions of Theorem 1, so at the zero start the Hessian's "
    r"eigenvalues are Eq. 12's $\pm\sigma_k(M)$ (with $\mathrm{relu}'(0)$ as the factor)",
    falsifier=r"the masked spectrum is $c\cdot(\pm\sigma_k(M))$ for some $c$ (Theorem 1 with "
    r"$\mathrm{relu}'(0) = c$), tested scale-free: $|\lambda|_{\max}/|\lambda|_{(10\%)}$ of the exact "
    r"Hessian equals that of $\pm\sigma_k(M)$, whatever $c$",
    where=WHERE,
    falsifier_kind=PLAUSIBLE,
)
def claim_relu_experiments(falsify: bool = False) -> Check:
    if falsify:
        return relu_shape_check(depth=4, n_per_class=100, prediction="scaled")
    return all_of(
        RELU_EXPERIMENTS_TITLE,
        [
            relu_start_check(depth=4, n_per_class=100, prediction="masked"),
            relu_shape_check(depth=4, n_per_class=100, prediction="masked"),
        ],
    )


@claims.claim(
    "li-thm1-relu-depth",
    source="Li et al., abstract ('with or without nonlinearities'); "
    "Theorem 1 part 2 (depth invariance); Appendix B (the statistic)",
    statement=r"At the small starting point, the paper's condition number "
    r"$|\lambda|_{\max}/|\lambda|_{(10\%)}$ of a 2-shortcut network with ReLU at mid "
    r"(masked Eq. 19, depths 2, 8, 32 and 96, seeds 0 to 9) is flat in depth by the Figure 5 "
    r"criterion, and at every depth and seed it is farther from Theorem 1's value than "
    r"that criterion allows.",
    verdict="holds",
    falsifier=r"the depth invariance read in Eq. 12's statistic $|\lambda|_{\max}/|\lambda|_{\min}$: "
    r"the same flatness comparison run on it. The check's title says 'fragile rejection' when it "
    r"is rejected by less than the single-run spread (the largest standard deviation of lg cond "
    r"over the 10 seeds at one depth, not the standard error of a difference of means), so that "
    r"single draws of neighbouring depths overlap; and the flat cond10 itself creeps up with "
    r"depth (the check prints the rise from depth 2 to 96)",
    where=WHERE,
    falsifier_kind=PLAUSIBLE,
)
def claim_relu_depth(falsify: bool = False) -> Check:
    depths, seeds = RELU_DEPTHS, RELU_SEEDS
    return relu_depth_check(
        depths, seeds, statistic="cond" if falsify else "cond10", rows=_relu_rows_all_digits(depths, seeds)
    )


#: the depths and seeds of the chapter's ReLU depth table (also the ledger's)
RELU_DEPTHS, RELU_SEEDS = (2, 8, 32, 96), tuple(range(10))


@functools.lru_cache(maxsize=2)
def _relu_rows_all_digits(depths, seeds):
    """:func:`relu_depth_table` on all 5,000 digits, cached: the claim and its falsifier read the
    same table (the falsifier only changes the statistic)."""
    from resnet_nb.shared.common import mnist

    return relu_depth_table(depths, seeds, mnist(None))
