"""n-shortcut networks (Definitions 2-3, the parameter order of Definition 5) and their
initialisations."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import resnet_nb as rn
from resnet_nb.core.networks import ACTIVATIONS


# ---------------------------------------------------------------- networks
def test_flatten_follows_definition_5():
    net = rn.ShortcutNetwork(3, 2, 2)
    W = torch.arange(net.num_params, dtype=torch.float64)
    Wt = rn.unflatten(W, net)
    d, n = 3, 2
    for r in range(2):
        for l in range(2):
            for i in range(3):
                for j in range(3):
                    assert Wt[r, l, i, j].item() == ((r * n + l) * d + j) * d + i
    assert torch.equal(rn.flatten(Wt), W)


@settings(max_examples=25, deadline=None)
@given(d=st.integers(1, 5), n=st.integers(1, 3), R=st.integers(1, 4), shortcut=st.booleans(), seed=st.integers(0, 1000))
def test_end_to_end_matches_forward(d, n, R, shortcut, seed):
    net = rn.ShortcutNetwork(d, n, R, shortcut=shortcut)
    W = rn.initialise(net, "xavier", seed=seed)
    X = torch.randn(d, 7, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    assert torch.allclose(net.forward(W, X), rn.end_to_end(net, W) @ X, atol=1e-10)


def test_plain_network_is_product_and_unit_formula():
    net = rn.plain_network(3, 4)
    W = rn.initialise(net, "xavier", seed=0)
    prod = W[3, 0] @ W[2, 0] @ W[1, 0] @ W[0, 0]
    assert torch.allclose(rn.end_to_end(net, W), prod)
    res = rn.ShortcutNetwork(3, 2, 2, pre="tanh", mid="relu", post="tanh")
    W = rn.initialise(res, "xavier", seed=1)
    x = torch.randn(3, 5, dtype=torch.float64)
    h = x
    for r in range(2):
        h = h + torch.tanh(W[r, 1] @ torch.relu(W[r, 0] @ torch.tanh(h)))
    assert torch.allclose(res.forward(W, x), h)


def test_network_errors():
    for bad in [dict(d=0, n=1, R=1), dict(d=2, n=0, R=1), dict(d=2, n=1, R=0), dict(d=2.5, n=1, R=1)]:
        name = next(k for k, v in bad.items() if v in (0, 2.5))
        with pytest.raises(ValueError, match=rf"\b{name}\b"):
            rn.ShortcutNetwork(**bad)
    with pytest.raises(ValueError, match=r"\bactivation\b"):
        rn.ShortcutNetwork(2, 1, 1, mid="sigmoidish")
    net = rn.ShortcutNetwork(2, 1, 1)
    with pytest.raises(ValueError, match=r"\bshape\b"):
        net.forward(torch.zeros(1, 1, 3, 3), torch.zeros(2, 4))
    with pytest.raises(ValueError, match=r"\bNaN\b"):
        net.forward(torch.zeros(1, 1, 2, 2, dtype=torch.float64), torch.full((2, 4), float("nan")))
    with pytest.raises(ValueError, match=r"\brows\b"):
        net.forward(torch.zeros(1, 1, 2, 2, dtype=torch.float64), torch.zeros(3, 4))
    with pytest.raises(ValueError, match=r"\blinear\b"):
        rn.end_to_end(rn.ShortcutNetwork(2, 1, 1, mid="tanh"), torch.zeros(1, 1, 2, 2))
    with pytest.raises(ValueError, match=r"\brelu_grad_at_zero\b"):
        rn.activation("relu", relu_grad_at_zero=0.3)


# ---------------------------------------------------------------- initialisations
def test_initialisations():
    net = rn.ShortcutNetwork(8, 2, 50)
    xav = rn.initialise(net, "xavier", seed=4)
    assert abs(xav.var().item() - 1 / 8) < 0.01  # 6,400 entries: sd of the estimate ~ 0.002
    assert torch.allclose(rn.initialise(net, "small", seed=4), 0.01 * xav)
    orth = rn.initialise(net, "orthogonal", seed=4)
    eye = torch.eye(8, dtype=torch.float64)
    assert (orth @ orth.transpose(-1, -2) - eye).abs().max() < 1e-12
    assert torch.equal(rn.initialise(net, "zero"), torch.zeros(net.shape, dtype=torch.float64))
    assert torch.equal(rn.initialise(net, "identity"), eye.expand(net.shape))
    assert torch.equal(rn.initialise(net, "xavier", seed=4), xav)  # deterministic
    assert not torch.equal(rn.initialise(net, "xavier", seed=5), xav)
    assert rn.initialise(net, "orthogonal", seed=1, runs=3).shape == (3,) + net.shape
    with pytest.raises(ValueError, match=r"\bscheme\b"):
        rn.initialise(net, "he")


def test_orthogonal_initialisation_is_haar_the_q_factor_with_positive_diagonal_r():
    # Haar measure on O(d): Q of A = QR for a Gaussian A, with the signs fixed so that diag(R) > 0
    net = rn.ShortcutNetwork(5, 2, 3)
    Q = rn.initialise(net, "orthogonal", seed=7)
    A = torch.randn(net.R, net.n, 5, 5, generator=torch.Generator().manual_seed(7), dtype=torch.float64)
    R = Q.transpose(-1, -2) @ A
    assert torch.allclose(torch.tril(R, -1), torch.zeros_like(R), atol=1e-12)
    assert (torch.diagonal(R, dim1=-2, dim2=-1) > 0).all()
    assert torch.equal(rn.initialise(net, "orthogonal", seed=7), Q)  # the seed decides it


@pytest.mark.parametrize("scheme", ["identity", "zero", "xavier", "orthogonal"])
def test_initialisation_has_the_requested_dtype(scheme):
    W = rn.initialise(rn.ShortcutNetwork(3, 2, 2), scheme, seed=1, dtype=torch.float32)
    assert W.dtype == torch.float32


def test_initialisation_refuses_bad_arguments_naming_them():
    net = rn.ShortcutNetwork(3, 2, 2)
    with pytest.raises(ValueError, match="ShortcutNetwork, got int"):
        rn.initialise(3, "xavier")
    with pytest.raises(ValueError, match=r"\bscale\b"):
        rn.initialise(net, "small", scale=-0.1)
    with pytest.raises(ValueError, match=r"\bruns\b"):
        rn.initialise(net, "xavier", runs=0)


def test_flatten_keeps_leading_axes_and_unflatten_inverts_it():
    net = rn.ShortcutNetwork(3, 2, 2)
    W = rn.initialise(net, "xavier", seed=3, runs=4)
    w = rn.flatten(W)
    assert w.shape == (4, net.num_params)
    assert torch.equal(w[2], rn.flatten(W[2]))
    assert torch.equal(rn.unflatten(w, net), W)
    with pytest.raises(ValueError, match="got 5"):
        rn.unflatten(torch.zeros(2, 5), net)


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_an_activation_carries_the_name_it_was_asked_for(name):
    """The name is what a network's description and the Hessians' refusals print."""
    assert rn.activation(name).name == name


def test_integer_sizes_of_numpy_are_stored_as_python_integers():
    """Sizes from numpy arrays (a sweep over depths) become plain ints, as the records' JSON needs."""
    net = rn.ShortcutNetwork(np.int64(3), np.int64(2), np.int64(4))
    assert (net.d, net.n, net.R) == (3, 2, 4)
    assert all(type(v) is int for v in (net.d, net.n, net.R))


def test_end_to_end_reads_a_flat_parameter_vector_in_definition_5_order():
    """A flat vector of P entries is the same point as its (R, n, d, d) form."""
    net = rn.ShortcutNetwork(3, 2, 2)
    W = rn.initialise(net, "xavier", seed=4)
    flat = rn.flatten(W)
    assert flat.ndim == 1
    assert torch.allclose(rn.end_to_end(net, flat), rn.end_to_end(net, W))
    assert not torch.allclose(rn.end_to_end(net, W.reshape(-1)), rn.end_to_end(net, W))


def test_a_network_refuses_a_shortcut_flag_that_is_not_a_bool_naming_it():
    with pytest.raises(ValueError, match=r"\bshortcut\b.*\b1\b"):
        rn.ShortcutNetwork(2, 1, 1, shortcut=1)


def test_weights_given_as_numpy_or_lists_are_read_as_tensors():
    net = rn.ShortcutNetwork(2, 1, 2)
    W = rn.initialise(net, "xavier", seed=3)
    assert torch.equal(net.require_weights(W.numpy()), W)
    assert torch.equal(net.require_weights(W.tolist()), W)
    assert torch.equal(net.require_weights(rn.flatten(W).numpy()), W)
    assert torch.equal(rn.end_to_end(net, W.tolist()), rn.end_to_end(net, W))
    with pytest.raises(ValueError, match=r"\bW must"):
        net.require_weights(W.numpy() + 1j)
    with pytest.raises(ValueError, match=r"\bW must"):
        rn.end_to_end(net, W.to(torch.complex128))


def test_initialise_puts_the_weights_on_the_device_asked_for():
    """ "meta" stands for any device other than the CPU: the weights are drawn on the CPU (the
    same numbers whatever the device) and moved there; without a device they stay on the CPU."""
    net = rn.ShortcutNetwork(2, 1, 2)
    assert rn.initialise(net, "xavier", seed=3, device="meta").device.type == "meta"
    assert rn.initialise(net, "xavier", seed=3).device.type == "cpu"


def test_the_relu_derivative_at_zero_must_be_a_finite_number_named_in_the_refusal():
    with pytest.raises(ValueError, match=r"\brelu_grad_at_zero\b"):
        rn.activation("relu", relu_grad_at_zero=float("nan"))


def test_inputs_of_the_wrong_width_are_refused_naming_X():
    net = rn.ShortcutNetwork(3, 1, 1)
    W = rn.initialise(net, "xavier", seed=0)
    with pytest.raises(ValueError, match=r"\bX\b"):
        net.forward(W, torch.zeros(2, 5, dtype=torch.float64))
