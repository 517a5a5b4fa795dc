"""Checks of the exercises of book/theorem1.ipynb, book/theorem1_dynamics.ipynb,
book/li_limitations.ipynb and the experiment chapters (book/exp_initial_point.ipynb,
book/exp_dynamics.ipynb, book/exp_learning.ipynb, book/exp_fig2_analog.ipynb).

References are computed on the book's data (whitened MNIST, 10 components) by the package's own
Hessians, training and predictions; see :mod:`resnet_nb.book.exercises.feedback`.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import torch
from scipy import stats as sps

from resnet_nb.book.exercises.feedback import Mismatch, Spec, as_array, compare, compare_function, register
from resnet_nb.core import hessians
from resnet_nb.core.data import synthetic_linear
from resnet_nb.core.init import initialise
from resnet_nb.core.losses import loss_end_to_end, optimum
from resnet_nb.core.networks import ShortcutNetwork
from resnet_nb.core.train import gradient_descent
from resnet_nb.experiments import fig3
from resnet_nb.li.limitations.variance import predicted_gain
from resnet_nb.li.theorem1.definition5 import (
    mixed_partial,
    order_n_closed_form,
    param_index,
    shifted_sigmoid,
    subsample,
)
from resnet_nb.li.theorem1.hessian_at_zero import eq21_A, eq25_B, eq28_A
from resnet_nb.shared.common import initial_weights, mnist, network

F64 = torch.float64


@functools.cache
def _stats():
    return mnist().stats()


def _np(t) -> np.ndarray:
    return t.detach().cpu().numpy() if hasattr(t, "detach") else np.asarray(t)


# -------------------------------------------------------------------------------- theorem1


def _singular(A_times) -> None:
    rng = np.random.default_rng(0)
    probes = [(rng.standard_normal((d, d)), rng.standard_normal((d, d))) for d in (2, 3, 4)]

    def eq11(M, U):  # A of Eq. 11 on u = vec(U), column-major, read back column-major
        d = M.shape[0]
        Au = _np(eq21_A(torch.as_tensor(M)) @ torch.as_tensor(U).T.reshape(-1))
        return Au.reshape(d, d).T

    compare_function(
        A_times,
        eq11,
        probes,
        {"no-transpose": lambda M, U: M @ U, "order": lambda M, U: U @ M, "both-transposed": lambda M, U: U.T @ M.T},
    )


register(
    Spec(
        "ex-t1-singular",
        "def A_times(M, U):\n"
        '    """A u of Eq. 11 written as a d x d matrix (u = vec(U), column-major), for numpy M and U."""\n'
        "    ...",
        _singular,
        {
            "no-transpose": "Follow the Kronecker delta: it ties the index of u's row to the result's column.",
            "order": "M acts from the left: the result's row index is M's row index.",
            "both-transposed": "Only U is transposed, not M.",
        },
        rubric=(
            "A u written as the matrix map T(U) = M U^T",
            "the adjoint T*(Z) = Z^T M under the Frobenius inner product",
            "T*T(U) = U M^T M: every row of U multiplied by M^T M",
            "hence the eigenvalues of M^T M, each d times, and singular values sigma_k(M) with multiplicity d",
        ),
        args=("A_times",),
    )
)


def _growth(cbar) -> None:
    s = _stats()
    C = eq28_A(s.Sxx, s.Syx) - eq25_B(s.Sxx)
    compare(
        cbar,
        float(torch.linalg.eigvalsh((C + C.T) / 2).max()),
        {
            "unsymmetrised": float(torch.linalg.eigvals(C).real.max()),
            "spectral-norm": float(torch.linalg.svdvals(C).max()),
        },
        rtol=1e-6,
    )


register(
    Spec(
        "ex-t1-growth",
        "cbar = ...  # max over unit z of z^T C z, on the whitened MNIST statistics `stats` of this chapter",
        _growth,
        {
            "unsymmetrised": "C is not symmetric: z^T C z only sees the symmetric part (C + C^T) / 2.",
            "spectral-norm": "The largest singular value bounds z^T C z from above but is not its maximum.",
        },
        rubric=(
            "B = I and A = I + C on whitened data",
            "the test vector (z, ..., z) / sqrt(R) and its Rayleigh quotient 1 + (R - 1)(1 + z^T C z)",
            "maximising over unit z gives the bound",
        ),
        args=("cbar",),
    )
)


def _order3(value, zero) -> None:
    net = ShortcutNetwork(10, 3, 2)
    chain = [param_index(net, 0, 2, 4, 1), param_index(net, 0, 1, 1, 2), param_index(net, 0, 0, 2, 7)]
    M = _np(_stats().Sxx - _stats().Syx)
    compare(value, order_n_closed_form(net, _stats(), chain), {"transposed-index": M[7, 4]}, rtol=1e-8)
    if zero not in ("chain", "moved"):
        raise Mismatch("type", ' Say which one is zero: "chain" or "moved".')
    f = hessians.loss_function(net, _stats())
    w0 = torch.zeros(net.num_params, dtype=F64)
    moved = [param_index(net, 1, 2, 4, 1), *chain[1:]]
    values = {"chain": mixed_partial(f, w0, chain), "moved": mixed_partial(f, w0, moved)}
    if abs(values[zero]) > 1e-12 * max(1.0, *map(abs, values.values())):
        raise Mismatch("lemma1")


register(
    Spec(
        "ex-t1-order3",
        "value = ...  # the third-order partial of the chain at 0 (on `stats`)\n"
        'zero = ...  # which one is zero: "chain" or "moved"',
        _order3,
        {
            "transposed-index": "The indices of (Sxx - Syx) are swapped: follow the chain from the last index.",
            "lemma1": "Lemma 1: a nonzero partial at 0 needs the tuple to cover a whole unit.",
        },
        args=("value", "zero"),
    )
)


def _quadratic_model(lam, eps, lr, t):
    x = eps
    for _ in range(int(t)):
        x = x - lr * lam * x  # gradient descent on 1/2 lam x^2
    return 0.5 * lam * x**2


@functools.cache
def _sigmoid_blocks() -> dict:
    """What the Hessian at 0 of a 2-shortcut network (R = 2) with a sigmoid at post shows."""
    net = ShortcutNetwork(10, 2, 2, post=shifted_sigmoid())
    H = hessians.hessian(net, torch.zeros(net.shape, dtype=F64), subsample(mnist(), every=25))
    q = net.d**2

    def block(a, b):
        return H[a * q : (a + 1) * q, b * q : (b + 1) * q]

    scale = float(H.abs().max())
    return {
        "couplings_vanish": float(H[: 2 * q, 2 * q :].abs().max()) < 1e-12 * scale,
        "same_matrix_vanish": max(float(block(k, k).abs().max()) for k in range(4)) < 1e-12 * scale,
        "units_equal": float((block(1, 0) - block(3, 2)).abs().max()) < 1e-9 * scale,
    }


def _sigmoid(couplings_vanish, same_matrix_vanish, units_equal) -> None:
    got = {"couplings_vanish": couplings_vanish, "same_matrix_vanish": same_matrix_vanish, "units_equal": units_equal}
    if not all(isinstance(v, bool | np.bool_) for v in got.values()):
        raise Mismatch("type", " Each answer is True or False.")
    truth = _sigmoid_blocks()
    for key in ("couplings_vanish", "same_matrix_vanish", "units_equal"):
        if bool(got[key]) != truth[key]:
            raise Mismatch(key)


register(
    Spec(
        "ex-t1-sigmoid",
        "# True or False, for the Hessian at 0 with a sigmoid at post:\n"
        "couplings_vanish = ...  # the blocks coupling the two units are zero\n"
        "same_matrix_vanish = ...  # the blocks of a matrix with itself are zero\n"
        "units_equal = ...  # the off-diagonal block A of unit 1 equals that of unit 2",
        _sigmoid,
        {
            "couplings_vanish": "Lemma 1 needs only sigma_mid(0) = 0, which still holds: which partials can survive?",
            "same_matrix_vanish": "A second derivative in one matrix alone covers no unit of two matrices.",
            "units_equal": "sigma_post(0) = 1/2: an idle unit adds a constant, so the second unit sees another input.",
        },
        rubric=(
            "Lemma 1 still holds (sigma_mid(0) = 0): no unit-coupling blocks, no same-matrix blocks",
            "sigma_post(0) = 1/2 != 0: each idle unit adds (1/2) 1 to the signal",
            "unit 2 sees x + (1/2) 1, so the two units' blocks A differ: Lemma 2's translation invariance is lost",
        ),
        args=("couplings_vanish", "same_matrix_vanish", "units_equal"),
    )
)


def _saddle(predicted) -> None:
    compare_function(
        predicted,
        _quadratic_model,
        [(-0.3, 1e-3, 0.5, 0), (-0.3, 1e-3, 0.5, 4), (-1.2, 1e-2, 0.1, 3)],
        {
            "not-squared": lambda lam, e, lr, t: 0.5 * lam * e**2 * (1 - lr * lam) ** t,
            "growth-sign": lambda lam, e, lr, t: 0.5 * lam * (e * (1 + lr * lam) ** t) ** 2,
        },
    )


register(
    Spec(
        "ex-t1-saddle",
        "def predicted(lam, eps, lr, t):\n"
        '    """The quadratic model\'s loss change after t steps from eps v (v: eigenvector of lam < 0)."""\n'
        "    ...",
        _saddle,
        {
            "not-squared": "The loss is quadratic in the distance: square the whole factor, growth included.",
            "growth-sign": "A step subtracts lr times the gradient lam_min x: the factor is 1 - lr lam_min.",
        },
        rubric=(
            "at w = 0 the gradient vanishes, so gradient descent never moves",
            "from eps v the component along v is multiplied by 1 - alpha lam_min > 1 per step",
            "the measured decrease agrees with 1/2 lam_min (eps (1 - alpha lam_min)^t)^2 while small",
        ),
        args=("predicted",),
    )
)

# ----------------------------------------------------------------------- theorem1_dynamics


def _orth(H_plain) -> None:
    plain = ShortcutNetwork(10, 1, 4, shortcut=False)
    eye = torch.eye(10, dtype=F64).expand(plain.shape).clone()
    ref = hessian_linear_np(plain, eye)
    compare(H_plain, ref, {"at-zero": hessian_linear_np(plain, torch.zeros(plain.shape, dtype=F64))}, rtol=1e-8)


def hessian_linear_np(net, W) -> np.ndarray:
    return _np(hessians.hessian_linear(net, W, _stats()))


register(
    Spec(
        "ex-t1d-orth",
        "# the Hessian of the plain network ShortcutNetwork(10, 1, 4, shortcut=False) at the identity\nH_plain = ...",
        _orth,
        {"at-zero": "The plain network is compared at the identity, not at zero."},
        rubric=("L_res(W) = L_plain(I + W)", "a shift of the argument leaves second derivatives unchanged"),
        args=("H_plain",),
    )
)


def _sign(k, signs) -> None:
    s = as_array(signs)
    if s.ndim != 1:
        raise Mismatch("type", " Pass the chapter's sweep `signs_syn` as the second argument.")
    compare(k, int(np.argmin(s)), {"argmax": int(np.argmax(s)), "none-flipped": 0}, rtol=0, atol=0.5)


register(
    Spec(
        "ex-t1d-sign",
        "k = ...  # the sign pattern (an integer, bit i set = coordinate i flipped) minimising cond(M)",
        _sign,
        {
            "argmax": "That pattern maximises the condition number; the exercise asks for the smallest.",
            "none-flipped": "Flipping no coordinate keeps the residual I - Q, which is badly conditioned here.",
        },
        args=("k", "signs_syn"),
    )
)

# -------------------------------------------------------------------------- li_limitations


def _relu_gain(factor, grows) -> None:
    ref = predicted_gain(3, "xavier", "relu")
    compare(
        factor,
        ref,
        {"no-relu": predicted_gain(3, "xavier"), "three-halvings": 1 + 0.5**3, "one-halving": 1 + 0.5},
    )
    if not isinstance(grows, bool | np.bool_):
        raise Mismatch("type", " `grows` is True or False.")
    if bool(grows) != (ref > 1):
        raise Mismatch("grows")


register(
    Spec(
        "ex-lim-relu-gain",
        "factor = ...  # the expected factor per unit of the output second moment\n"
        "grows = ...  # True or False: does the second moment still grow with depth?",
        _relu_gain,
        {
            "no-relu": "Each ReLU in the middle halves the second moment of a symmetric input.",
            "three-halvings": "A 3-shortcut unit has two mid positions, so two ReLUs, not three.",
            "one-halving": "There are two mid ReLUs in a unit of three matrices.",
            "grows": "A factor per unit above one compounds over the units.",
        },
        args=("factor", "grows"),
    )
)

# ---------------------------------------------------------------------- exp_initial_point


@functools.cache
def _zero_probes():
    out = []
    for stats in (_stats(), synthetic_linear(10, 300, seed=1).stats()):
        sv = np.sort(_np(torch.linalg.svdvals(stats.Sxx - stats.Syx)))
        e = hessians.spectrum(hessians.hessian_at_zero(network("2-shortcut", 2), stats))
        out.append((sv, float(np.log10(hessians.cond_percentile(e)))))
    return out


def _fig5_zero(lg_ratio) -> None:
    probes = _zero_probes()
    by_id = {id(sv): lg for sv, lg in probes}
    compare_function(
        lg_ratio,
        lambda sv: by_id[id(sv)],
        [(sv,) for sv, _ in probes],
        {
            "theorem-ratio": lambda sv: np.log10(sv[-1] / sv[0]),
            "second-smallest": lambda sv: np.log10(sv[-1] / sv[1]),
            "natural-log": lambda sv: np.log(sv[-1] / (sv[0] + 0.9 * (sv[1] - sv[0]))),
        },
        rtol=1e-6,
    )


register(
    Spec(
        "ex-fig5-zero",
        "def lg_ratio(sv):\n"
        '    """lg(|lambda|max / |lambda|(10%)) at zero from the singular values sv of M (increasing)."""\n'
        "    ...",
        _fig5_zero,
        {
            "theorem-ratio": "That is the theorem's ratio max/min; the plot divides by the 10th percentile.",
            "second-smallest": "numpy's percentile interpolates between order statistics; "
            "find the position of the 10th percentile among 2Rd^2 values.",
            "natural-log": "The plot uses lg, the logarithm to base 10.",
        },
        args=("lg_ratio",),
    )
)


def _scale_power(arch: str) -> int:
    net = network(arch, 6 if arch == "2-shortcut" else 6)
    H0 = hessians.hessian_at_zero(net, _stats())
    size = []
    for scale in (1e-4, 1e-3):
        H = hessians.hessian_linear(net, initialise(net, "small", seed=0, scale=scale), _stats())
        size.append(float(torch.linalg.matrix_norm(H - H0)))
    return round(math.log10(size[1] / size[0]))


def _fig5_scale(power_2, power_3) -> None:
    ref = [_scale_power("2-shortcut"), _scale_power("3-shortcut")]
    compare(
        [power_2, power_3],
        ref,
        {"swapped": ref[::-1], "same-power": [ref[0], ref[0]], "first-order": [1, 1]},
        rtol=0,
        atol=0.01,
    )


register(
    Spec(
        "ex-fig5-scale",
        "power_2 = ...  # the power of the scale multiplying H - H(0) for a 2-shortcut network\n"
        "power_3 = ...  # the same for a 3-shortcut network",
        _fig5_scale,
        {
            "swapped": "Count the factors of the perturbation in each network's leading Hessian term again.",
            "same-power": "In a 3-shortcut unit a second derivative leaves one matrix of the unit, of size eps.",
            "first-order": "For n = 2 the derivative of a unit is the other matrix, and every term has two of them.",
        },
        args=("power_2", "power_3"),
    )
)

# --------------------------------------------------------------------------- exp_dynamics


def _balanced_norm(W_star) -> float:
    """||W_1||_F of the balanced factorisation W_2 W_1 = W* - I (W_1 W_1^T = W_2^T W_2)."""
    U, s, Vt = np.linalg.svd(np.asarray(W_star) - np.eye(len(W_star)))
    W1 = np.sqrt(s)[:, None] * Vt
    W2 = U * np.sqrt(s)
    assert np.allclose(W2 @ W1, np.asarray(W_star) - np.eye(len(W_star)))
    return float(np.linalg.norm(W1))


def _balance(predicted_norm) -> None:
    rng = np.random.default_rng(0)
    probes = [(_np(optimum(_stats())[0]),), (np.eye(6) + rng.standard_normal((6, 6)),)]
    compare_function(
        predicted_norm,
        _balanced_norm,
        probes,
        {
            "frobenius": lambda W: np.sqrt(np.linalg.norm(W - np.eye(len(W)))),
            "no-root": lambda W: np.linalg.norm(W - np.eye(len(W)), ord="nuc"),
            "spectral": lambda W: np.sqrt(np.linalg.norm(W - np.eye(len(W)), ord=2)),
        },
    )


register(
    Spec(
        "ex-dyn-balance",
        "def predicted_norm(W_star):\n"
        '    """The norm of either matrix of a balanced depth-2 unit whose map is W_star (numpy)."""\n'
        "    ...",
        _balance,
        {
            "frobenius": "||W_1||_F^2 is the sum of the singular values of W_2 W_1, not of their squares.",
            "no-root": "That is the squared norm; take the square root.",
            "spectral": "Every singular value counts, not only the largest.",
        },
        rubric=(
            "W_1 W_1^T - W_2^T W_2 is constant under gradient flow and starts near zero",
            "balanced factors: singular values of W_2 W_1 are the squares of those of W_1",
            "||W_1||_F = ||W* - I||_*^(1/2), compared with the measured norm",
        ),
        args=("predicted_norm",),
    )
)


def _flat(flat_fraction) -> None:
    def fraction(L):  # P - d^2 of P weights leave the end-to-end map unchanged at a minimum
        net = ShortcutNetwork(10, 1, L)
        return (net.num_params - net.d**2) / net.num_params

    compare_function(
        flat_fraction,
        fraction,
        [(2,), (3,), (6,), (16,)],
        {"inverse": lambda L: 1 / L, "squared": lambda L: 1 - 1 / L**2, "half": lambda L: 0.5},
    )


register(
    Spec(
        "ex-dyn-flat",
        "def flat_fraction(L):\n"
        '    """The fraction of Hessian eigenvalues that tend to zero for a linear network of depth L."""\n'
        "    ...",
        _flat,
        {
            "inverse": "1/L is the share the Gauss-Newton part can fill; the flat share is the rest.",
            "squared": "The end-to-end map has d^2 entries and the network L d^2 weights.",
            "half": "Half is the index at the zero saddle, not the flat share near a minimum.",
        },
        rubric=(
            "the Gauss-Newton part has rank at most d^2",
            "the residual part is linear in G, which vanishes at l_min",
            "so at least (L - 1) d^2 eigenvalues tend to zero, a fraction 1 - 1/L",
            "the index counts slight tilts of flat directions, not a saddle",
        ),
        args=("flat_fraction",),
    )
)


def _lr(norm_at_loss_changes, same_path_epochs) -> None:
    if not isinstance(norm_at_loss_changes, bool | np.bool_):
        raise Mismatch("type", " `norm_at_loss_changes` is True or False.")
    if norm_at_loss_changes:
        raise Mismatch("path-depends")
    rate = fig3.SCALES["default"]["lr"]
    slow = rate / 5
    compare(same_path_epochs, 1000 * slow / rate, {"inverted": 1000 * rate / slow}, rtol=1e-6)


register(
    Spec(
        "ex-dyn-lr",
        "norm_at_loss_changes = ...  # True or False: does the norm at a given loss change with the rate?\n"
        "# epochs at the book's rate that cover the path of 1,000 epochs at the small one\n"
        "same_path_epochs = ...",
        _lr,
        {
            "path-depends": "With small steps the path follows gradient flow; the rate sets only the speed along it.",
            "inverted": "A smaller rate covers less of the path per epoch, so fewer epochs at the larger rate suffice.",
        },
        args=("norm_at_loss_changes", "same_path_epochs"),
    )
)

# --------------------------------------------------------------------------- exp_learning


def _plateaus(loss_I, loss_0) -> None:
    I = torch.eye(10, dtype=F64)
    ref = [float(loss_end_to_end(I, _stats())), float(loss_end_to_end(0 * I, _stats()))]
    compare([loss_I, loss_0], ref, {"swapped": ref[::-1], "half-missing": [2 * r for r in ref]}, rtol=1e-6)


register(
    Spec(
        "ex-learn-plateaus",
        "loss_I = ...  # the loss of the end-to-end map I on the whitened MNIST statistics\n"
        "loss_0 = ...  # the loss of the map 0",
        _plateaus,
        {
            "swapped": "You swapped the two maps.",
            "half-missing": "The loss carries a factor 1/2.",
        },
        args=("loss_I", "loss_0"),
    )
)


def _collapse(loss_after_one_step) -> None:
    net = network("orthogonal", 16)
    res = gradient_descent(net, initial_weights("orthogonal", net, seed=0), _stats(), lr=1.0, epochs=1)
    I = torch.eye(10, dtype=F64)
    compare(
        loss_after_one_step,
        float(res.losses[1]),
        {
            "identity": float(loss_end_to_end(I, _stats())),
            "start": float(res.losses[0]),
            "minimum": optimum(_stats())[1],
        },
        rtol=1e-3,
    )


register(
    Spec(
        "ex-learn-collapse",
        "loss_after_one_step = ...  # the loss of an orthogonal network of depth 16 after one step at rate 1",
        _collapse,
        {
            "identity": "After one step at rate 1 the matrices are no longer orthogonal: "
            "the term (1 - eta) W_l cancels.",
            "start": "That is the loss before the step.",
            "minimum": "One step does not reach L_min: look at what the product of 16 copies of Syx does.",
        },
        rubric=(
            "for orthogonal matrices A_l^T W B_l^T = W_l, so the step is (1 - eta) W_l + eta A_l^T Syx B_l^T",
            "at eta = 1 every matrix becomes a rotated copy of Syx",
            "the product of L such matrices has norm at most sigma_max(Syx)^L: the loss of the map 0",
            "each gradient is a product of L - 1 small matrices, so the run stays there",
        ),
        args=("loss_after_one_step",),
    )
)


def _escape(extra_epochs_2, factor_3) -> None:
    s = _stats()
    sig = float(torch.linalg.svdvals(s.Sxx - s.Syx)[0])
    lr = 0.1
    compare(extra_epochs_2, math.log(10) / math.log1p(lr * sig), {"linearised": math.log(10) / (lr * sig)}, rtol=0.02)

    def escape(eps):  # eps_{t+1} = eps_t + eta eps_t^2 until order one
        t = 0
        while eps < 1:
            eps, t = eps + lr * eps**2, t + 1
        return t

    compare(factor_3, escape(1e-3) / escape(1e-2), {"squared": 100.0}, rtol=0.05)


register(
    Spec(
        "ex-learn-escape",
        "extra_epochs_2 = ...  # predicted epochs that each tenfold smaller scale adds (2-shortcut, rate 0.1)\n"
        "# predicted factor by which the escape time grows per tenfold smaller scale (3-shortcut)\n"
        "factor_3 = ...",
        _escape,
        {
            "linearised": "Growth by (1 + eta sigma) per step: use its logarithm, not its first-order expansion.",
            "squared": "Near zero the 3-shortcut gradient is of size eps^2, so the escape time goes like 1/eps.",
        },
        args=("extra_epochs_2", "factor_3"),
    )
)

# -------------------------------------------------------------------------- exp_fig2_analog


def _init_moments(c_out, c_in, k):
    N, var = c_out * c_in * k * k, 2 / (k * k * c_in)
    chi = sps.chi2(N)
    return np.array([chi.mean() * var, chi.var() * var**2])


def _init_norm(moments) -> None:
    def n_s(c_out, c_in, k):
        return c_out * c_in * k * k, 2 / (k * k * c_in)

    compare_function(
        moments,
        _init_moments,
        [(16, 16, 3), (8, 1, 3), (4, 2, 5)],
        {
            "var-no-two": lambda *a: [n_s(*a)[0] * n_s(*a)[1], n_s(*a)[0] * n_s(*a)[1] ** 2],
            "std-for-var": lambda *a: [n_s(*a)[0] * n_s(*a)[1], math.sqrt(2 * n_s(*a)[0]) * n_s(*a)[1]],
        },
    )


register(
    Spec(
        "ex-fig2-init-norm",
        "def moments(c_out, c_in, k):\n"
        '    """(E ||W||_F^2, Var ||W||_F^2) for i.i.d. N(0, 2 / (k^2 c_in)) entries."""\n'
        "    ...",
        _init_norm,
        {
            "var-no-two": "A chi-squared variable with N degrees of freedom has variance 2N, not N.",
            "std-for-var": "That is the standard deviation; the exercise asks for the variance.",
        },
        rubric=(
            "||W||_F^2 / sigma^2 is chi-squared with N = c_out c_in k^2 degrees of freedom",
            "E = N sigma^2 = 2 c_out and Var = 2 N sigma^4",
            "relative spread of ||W||_F about 1 / sqrt(2N): small for N = 2304, large for the stem's 72",
        ),
        args=("moments",),
    )
)


def _scale_invariance(norm_sq_increase) -> None:
    rng = np.random.default_rng(0)
    probes = []
    for eta in (0.1, 0.5):
        W = rng.standard_normal((4, 3))
        g = rng.standard_normal((4, 3))
        g -= (g * W).sum() / (W * W).sum() * W  # a scale-invariant loss's gradient is orthogonal to W
        probes.append((eta, W, g))
    compare_function(
        norm_sq_increase,
        lambda eta, W, g: ((W - eta * g) ** 2).sum() - (W**2).sum(),
        probes,
        {
            "eta-not-squared": lambda eta, W, g: eta * (g**2).sum(),
            "norm-not-squared": lambda eta, W, g: np.linalg.norm(W - eta * g) - np.linalg.norm(W),
        },
    )


register(
    Spec(
        "ex-fig2-scale-invariance",
        "def norm_sq_increase(eta, W, grad):\n"
        '    """The increase of ||W||_F^2 in one step W -> W - eta grad (numpy arrays)."""\n'
        "    ...",
        _scale_invariance,
        {
            "eta-not-squared": "Expand ||W - eta g||^2: the surviving term carries eta twice.",
            "norm-not-squared": "The exercise asks for the increase of the squared norm ||W||_F^2.",
        },
        rubric=(
            "(a) differentiate L(alpha W) = L(W) in alpha at 1: <grad L, W> = 0",
            "(b) ||W - eta grad||^2 = ||W||^2 + eta^2 ||grad||^2: never smaller",
            "(c) weight decay shrinks by 1 - eta lambda per step; momentum breaks exact orthogonality",
        ),
        args=("norm_sq_increase",),
    )
)
