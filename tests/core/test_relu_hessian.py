"""The exact Hessian of a network with ReLUs at the mid positions (resnet_nb.core.relu_hessian),
assembled from its piecewise-multilinear form, against autograd's."""

import pytest
import torch

import resnet_nb as rn
from resnet_nb.core import hessians
from resnet_nb.core.relu_hessian import hessian_mid_relu


@pytest.mark.parametrize(
    "n,R,shortcut,mid",
    [
        (2, 2, True, "relu"),
        (2, 3, False, "relu"),
        (3, 2, True, "relu"),
        (1, 3, True, "identity"),
        (2, 2, False, "identity"),
    ],
)
def test_relu_hessian_against_autograd(n, R, shortcut, mid):
    data = rn.synthetic_linear(d=3, m=40, seed=1)
    net = rn.ShortcutNetwork(3, n, R, shortcut=shortcut, mid=mid)
    W = rn.initialise(net, "xavier", seed=2)
    H = hessian_mid_relu(net, W, data)
    ref = hessians.hessian(net, W, data)
    assert torch.allclose(H, ref, rtol=1e-10, atol=1e-12 * float(ref.abs().max()))
    assert torch.equal(H, H.T)


def test_relu_hessian_rejects_other_activations():
    net = rn.ShortcutNetwork(3, 2, 2, mid="tanh")
    with pytest.raises(ValueError, match="mid activation"):
        hessian_mid_relu(net, rn.initialise(net, "xavier"), rn.synthetic_linear(d=3, m=10))


def test_relu_hessian_refuses_what_it_cannot_use_and_names_it():
    net = rn.ShortcutNetwork(3, 2, 2, mid="relu")
    W = rn.initialise(net, "xavier", seed=0)
    with pytest.raises(ValueError, match=r"\bnet\b.*\bstr\b"):
        hessian_mid_relu("a network", W, rn.synthetic_linear(d=3, m=10))
    with pytest.raises(ValueError, match=r"\bdata\b.*\btuple\b"):
        hessian_mid_relu(net, W, (torch.zeros(3, 10), torch.zeros(3, 10)))
    # inputs of the right width but targets of another: Theorem 1's identity shortcuts need d_y = d
    wide_targets = rn.Dataset(torch.randn(3, 10, dtype=torch.float64), torch.randn(4, 10, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"\bd_y=4\b"):
        hessian_mid_relu(net, W, wide_targets)
