"""The exercises' checks (resnet_nb.book.exercises): each passes on the book's solution and names
the intended mistake on wrong answers a student would plausibly give."""

import math

import numpy as np
import pytest
import torch

from resnet_nb import ShortcutNetwork
from resnet_nb.book import exercises
from resnet_nb.core.hessians import hessian_linear
from resnet_nb.core.losses import loss_end_to_end
from resnet_nb.core.networks import ShortcutNetwork as Net
from resnet_nb.shared.common import mnist

F64 = torch.float64


def stats():
    return mnist().stats()


def loss_book(W, Sxx, Syx, trSyy):
    return 0.5 * np.trace(W @ Sxx @ W.T) - np.trace(W @ Syx.T) + 0.5 * trSyy


def tight_book(l, d, tau, Sigma):
    w, V = np.linalg.eigh(Sigma)
    return np.stack([-tau * np.eye(d)] * l), np.outer(np.ones(d), V[:, 0])


def tight_plus(l, d, tau, Sigma):
    return np.stack([tau * np.eye(d)] * l), np.outer(np.ones(d), np.linalg.eigh(Sigma)[1][:, 0])


def tight_top(l, d, tau, Sigma):
    return np.stack([-tau * np.eye(d)] * l), np.outer(np.ones(d), np.linalg.eigh(Sigma)[1][:, -1])


def cbar(kind):
    from resnet_nb.li import theorem1 as t1

    s = stats()
    C = t1.eq28_A(s.Sxx, s.Syx) - t1.eq25_B(s.Sxx)
    if kind == "book":
        return float(torch.linalg.eigvalsh((C + C.T) / 2).max())
    if kind == "eigvals":
        return float(torch.linalg.eigvals(C).real.max())
    return float(torch.linalg.matrix_norm(C, ord=2))


def chain_value(transposed=False):
    M = (stats().Sxx - stats().Syx).numpy()
    return M[7, 4] if transposed else M[4, 7]


def plain_hessian(at):
    plain = ShortcutNetwork(10, 1, 4, shortcut=False)
    W = torch.eye(10, dtype=F64).expand(plain.shape).clone() if at == "I" else torch.zeros(plain.shape, dtype=F64)
    return hessian_linear(plain, W, stats())


SIGNS = np.array([3.0, 2.5, 9.0, 1.2, 4.0])
SIG = float(torch.linalg.svdvals(mnist().stats().Sxx - mnist().stats().Syx)[0])
LOSS_I = float(loss_end_to_end(torch.eye(10, dtype=F64), mnist().stats()))
LOSS_0 = float(loss_end_to_end(torch.zeros(10, 10, dtype=F64), mnist().stats()))


def lg_p10(sv):
    return np.log10(sv[-1] / (sv[0] + 0.9 * (sv[1] - sv[0])))


def one_step_loss():
    from resnet_nb.core.train import gradient_descent
    from resnet_nb.shared.common import initial_weights, network

    net = network("orthogonal", 16)
    return float(gradient_descent(net, initial_weights("orthogonal", net, 0), stats(), lr=1.0, epochs=1).losses[1])


def nuc_root(W):
    return np.sqrt(np.linalg.norm(W - np.eye(len(W)), ord="nuc"))


# label -> (the book's solution, [(a wrong answer, the mistake it must be named as), ...]); answers
# are thunks returning the arguments of check()
CASES = {
    "ex-notation-depth": (
        lambda: (16, 4800),
        [(lambda: (48, 4800), "units-are-matrices"), (lambda: (16, 1600), "one-matrix-per-unit")],
    ),
    "ex-notation-loss": (
        lambda: (loss_book, {"linear", "quadratic"}),
        [
            (lambda: (lambda W, Sxx, Syx, t: 2 * loss_book(W, Sxx, Syx, t), {"linear", "quadratic"}), "factor-2"),
            (
                lambda: (
                    lambda W, Sxx, Syx, t: 0.5 * np.trace(W @ Sxx @ W.T) - np.trace(W @ Syx) + 0.5 * t,
                    {"linear"},
                ),
                "linear-transposed",
            ),
            (lambda: (loss_book, {"linear"}), "quadratic-fixed"),
            (lambda: (loss_book, {"linear", "quadratic", "constant"}), "constant-changes"),
        ],
    ),
    "ex-notation-ortho": (
        lambda: (lambda l: 1 - 2 ** (-1 / l),),
        [(lambda: (lambda l: math.log(2) / l,), "approximation"), (lambda: (lambda l: 2 ** (1 / l) - 1,), "growth")],
    ),
    "hm-ex-scalar": (
        lambda: (lambda g, l: math.exp(g / l) - 1, 2),
        [
            (lambda: (lambda g, l: g / l, 2), "linearised"),
            (lambda: (lambda g, l: math.exp(g / l) - 1, 12), "three-gamma"),
        ],
    ),
    "hm-ex-pi": (
        lambda: (lambda l: 2 * math.sin(math.pi / (2 * l)),),
        [(lambda: (lambda l: math.pi / l,), "bound"), (lambda: (lambda l: 2 * math.sin(math.pi / l),), "full-angle")],
    ),
    "hm-ex-whiten": (lambda: (0.5**3 / 1.0,), [(lambda: (8.0,), "inverted"), (lambda: (0.5**6,), "exponent")]),
    "hm-ex-tight": (
        lambda: (tight_book,),
        [(lambda: (tight_plus,), "sign"), (lambda: (tight_top,), "largest-eigenvector")],
    ),
    "hm-ex-margin": (
        lambda: (np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 1.0]]),),
        [
            (lambda: (np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]]),), "on-circle"),
            (lambda: (np.array([[1.0, 0.0], [0.0, 2.0], [-3.0, 0.0]]),), "no-negative"),
            (lambda: (np.array([[1.0, 0.0], [2.0, 0.0]]),), "shape"),
        ],
    ),
    "hm-ex-count": (
        lambda: (lambda n, k: math.ceil(n / k),),
        [(lambda: (lambda n, k: n // k,), "floor"), (lambda: (lambda n, k: n,), "greedy")],
    ),
    "ex-t1-singular": (
        lambda: (lambda M, U: M @ U.T,),
        [(lambda: (lambda M, U: U @ M.T,), "transposed"), (lambda: (lambda M, U: M @ U,), "no-transpose")],
    ),
    "ex-t1-growth": (
        lambda: (cbar("book"),),
        [(lambda: (cbar("eigvals"),), "unsymmetrised"), (lambda: (cbar("norm"),), "spectral-norm")],
    ),
    "ex-t1-order3": (
        lambda: (chain_value(), "moved"),
        [
            (lambda: (chain_value(True), "moved"), "transposed-index"),
            (lambda: (-chain_value(), "moved"), "sign"),
            (lambda: (chain_value(), "chain"), "lemma1"),
        ],
    ),
    "ex-t1-sigmoid": (
        lambda: (True, True, False),
        [(lambda: (True, True, True), "units_equal"), (lambda: (False, True, False), "couplings_vanish")],
    ),
    "ex-t1-saddle": (
        lambda: (lambda lam, e, lr, t: 0.5 * lam * (e * (1 - lr * lam) ** t) ** 2,),
        [
            (lambda: (lambda lam, e, lr, t: lam * (e * (1 - lr * lam) ** t) ** 2,), "factor-2"),
            (lambda: (lambda lam, e, lr, t: 0.5 * lam * e**2 * (1 - lr * lam) ** t,), "not-squared"),
        ],
    ),
    "ex-t1d-orth": (
        lambda: (plain_hessian("I"),),
        [(lambda: (plain_hessian("0"),), "at-zero"), (lambda: (plain_hessian("I")[:100, :100],), "shape")],
    ),
    "ex-t1d-sign": (
        lambda: (int(np.argmin(SIGNS)), SIGNS),
        [(lambda: (int(np.argmax(SIGNS)), SIGNS), "argmax"), (lambda: (0, SIGNS), "none-flipped")],
    ),
    "ex-lim-relu-gain": (
        lambda: (1.25, True),
        [(lambda: (2.0, True), "no-relu"), (lambda: (1.125, True), "three-halvings"), (lambda: (1.25, False), "grows")],
    ),
    "ex-fig5-zero": (
        lambda: (lg_p10,),
        [
            (lambda: (lambda sv: np.log10(sv[-1] / sv[0]),), "theorem-ratio"),
            (lambda: (lambda sv: np.log10(sv[-1] / sv[1]),), "second-smallest"),
        ],
    ),
    "ex-fig5-scale": (lambda: (2, 1), [(lambda: (1, 2), "swapped"), (lambda: (2, 2), "same-power")]),
    "ex-dyn-balance": (
        lambda: (nuc_root,),
        [
            (lambda: (lambda W: np.sqrt(np.linalg.norm(W - np.eye(len(W)))),), "frobenius"),
            (lambda: (lambda W: np.linalg.norm(W - np.eye(len(W)), ord="nuc"),), "no-root"),
        ],
    ),
    "ex-dyn-flat": (
        lambda: (lambda L: 1 - 1 / L,),
        [(lambda: (lambda L: 1 / L,), "inverse"), (lambda: (lambda L: 0.5,), "half")],
    ),
    "ex-dyn-lr": (lambda: (False, 200), [(lambda: (False, 5000), "inverted"), (lambda: (True, 200), "path-depends")]),
    "ex-learn-plateaus": (
        lambda: (LOSS_I, LOSS_0),
        [(lambda: (LOSS_0, LOSS_I), "swapped"), (lambda: (2 * LOSS_I, 2 * LOSS_0), "half-missing")],
    ),
    "ex-learn-collapse": (lambda: (one_step_loss(),), [(lambda: (LOSS_I,), "identity"), (lambda: (0.0,), "wrong")]),
    "ex-learn-escape": (
        lambda: (math.log(10) / math.log(1 + 0.1 * SIG), 10),
        [
            (lambda: (math.log(10) / (0.1 * SIG), 10), "linearised"),
            (lambda: (math.log(10) / math.log(1 + 0.1 * SIG), 100), "squared"),
        ],
    ),
    "ex-fig2-init-norm": (
        lambda: (lambda co, ci, k: (2 * co, 2 * co * ci * k * k * (2 / (k * k * ci)) ** 2),),
        [
            (lambda: (lambda co, ci, k: (2 * co, co * ci * k * k * (2 / (k * k * ci)) ** 2),), "var-no-two"),
            (lambda: (lambda co, ci, k: (2 * co,),), "shape"),
        ],
    ),
    "ex-fig2-scale-invariance": (
        lambda: (lambda eta, W, g: eta**2 * (g**2).sum(),),
        [
            (lambda: (lambda eta, W, g: eta * (g**2).sum(),), "eta-not-squared"),
            (lambda: (lambda eta, W, g: 2 * eta**2 * (g**2).sum(),), "factor-2"),
        ],
    ),
}


def test_every_checked_exercise_has_cases_and_every_exercise_is_checked_or_explained():
    assert set(CASES) == set(exercises.specs())
    assert not set(exercises.UNCHECKED) & set(CASES)
    assert len(CASES) + len(exercises.UNCHECKED) == 30


@pytest.mark.parametrize("label", sorted(CASES))
def test_the_books_solution_passes(label):
    fb = exercises.check(label, *CASES[label][0]())
    assert fb.passed, fb.message


WRONG = [(label, i) for label, (_, wrongs) in sorted(CASES.items()) for i in range(len(wrongs))]


@pytest.mark.parametrize(("label", "i"), WRONG)
def test_a_plausible_wrong_answer_gets_its_hint(label, i):
    answer, mistake = CASES[label][1][i]
    fb = exercises.check(label, *answer())
    assert not fb.passed and fb.mistake == mistake, fb.message
    assert fb.message.startswith(exercises.hint(label, mistake))


def test_every_label_has_at_least_two_wrong_answers():
    assert all(len(w) >= 2 for _, w in CASES.values())


def test_a_blank_answer_is_reported_as_unanswered():
    fb = exercises.check("hm-ex-pi", ...)
    assert not fb.passed and fb.mistake == "unanswered"


def test_a_function_that_raises_is_reported_with_its_error():
    def broken(l):
        raise ZeroDivisionError("oops")

    fb = exercises.check("hm-ex-pi", broken)
    assert fb.mistake == "error" and "ZeroDivisionError" in fb.message


def test_a_hint_never_shows_the_reference_value():
    fb = exercises.check("ex-lim-relu-gain", 2.0, True)
    assert "1.25" not in fb.message


def test_an_unknown_label_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"\blabel\b"):
        exercises.check("ex-none", 1)


def test_checks_append_to_the_grade_log(tmp_path, monkeypatch):
    log = tmp_path / "log.jsonl"
    monkeypatch.setenv("RESNET_NB_GRADE_LOG", str(log))
    exercises.check("ex-dyn-flat", lambda L: 1 - 1 / L)
    exercises.check("ex-dyn-flat", lambda L: 1 / L)
    lines = log.read_text().splitlines()
    assert len(lines) == 2 and '"passed": true' in lines[0] and '"inverse"' in lines[1]


def test_every_exercise_has_a_rubric_or_a_check():
    for label in list(CASES) + list(exercises.UNCHECKED):
        assert exercises.rubric(label) or label in CASES


def test_the_net_size_reference_follows_the_network():
    assert Net(10, 3, 16).num_params == 4800
