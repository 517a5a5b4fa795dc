"""The exact Hessian of a network with ReLUs at the mid positions, from its piecewise-multilinear
form, for Figure 7 (book/exp_dynamics.ipynb) and the performance chapter (book/performance.ipynb).

Autograd's Hessian (``resnet_nb.core.hessians.hessian``) needs one Hessian-vector product over all
samples per parameter; at depth 16 on 5,000 digits that took minutes per Hessian on two
cores. With ReLU (or no activation) at the mid positions and none at pre and post, the network
is, around a point where no pre-activation is exactly 0, a *multilinear* function of its
matrices with the ReLU masks held fixed: every second derivative of the output with respect
to a single matrix vanishes, and the Hessian of ``L = 1/(2m) sum_mu ||f(x_mu) - y_mu||^2`` is

    H = (1/m) J^T J  +  (1/m) sum_mu sum_i e_{i mu} d^2 f_i(x_mu),      e = f(X) - Y,

a Gauss-Newton part from the Jacobian ``J`` of the outputs (all samples stacked) and a part
that couples two *different* matrices a < b only:

    d^2 L / dW_a[p, q] dW_b[s, t] = (1/m) sum_mu g_b[s, mu] M_ab[t, p, mu] z_a[q, mu],

with ``z_a`` the input of matrix a, ``M_ab`` the Jacobian of the input of matrix b with
respect to the output of matrix a (masks, later matrices and shortcuts), and ``g_b`` the
derivative of ``sum_mu e_mu^T f(x_mu)`` with respect to the output of matrix b. All of these
come from pushing the d unit directions forward from each matrix's output (forward-mode by
hand), so the cost is one d-direction sweep per matrix plus one ``J^T J`` product.

The ReLU derivative at exactly 0 follows the network's ``relu_grad_at_zero`` convention,
as autograd does for the same network.
"""

from __future__ import annotations

import torch

from resnet_nb.core.data import Dataset
from resnet_nb.core.networks import ShortcutNetwork

__all__ = ["hessian_mid_relu"]


def _check(net: ShortcutNetwork, data):
    if not isinstance(net, ShortcutNetwork):
        raise ValueError(f"net must be a ShortcutNetwork, got {type(net).__name__}")
    if not (net.pre.is_identity and net.post.is_identity and net.mid.name in ("identity", "relu")):
        raise ValueError(
            "hessian_mid_relu needs identity pre/post activations and an identity or ReLU "
            f"mid activation; got {net.describe()}"
        )
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a Dataset (the samples), got {type(data).__name__}")
    if data.d != net.d or data.Y.shape[0] != net.d:
        raise ValueError(f"data has d_x={data.d}, d_y={data.Y.shape[0]} but the network has d={net.d}")


def _forward(net, W, X):
    """Inputs ``z[a]`` (d, m) of every matrix (forward order), the mid-activation derivative
    ``mask[a]`` (d, m) after matrix a (ones where no activation follows), and the output."""
    z, mask = [], []
    h = X
    for r in range(net.R):
        u = h
        for l in range(net.n):
            z.append(u)
            v = W[r, l] @ u
            if l < net.n - 1:
                if net.mid.is_identity:
                    mask.append(torch.ones_like(v))
                else:
                    c = net.relu_grad_at_zero
                    mask.append(torch.where(v > 0, 1.0, torch.where(v == 0, c, 0.0)).to(v.dtype))
                u = net.mid(v)
            else:
                mask.append(torch.ones_like(v))
                u = v
        h = h + u if net.shortcut else u
    return z, mask, h


def _push(net, W, mask, a, U):
    """Push tangents ``U`` (k, d, m) placed at the output of matrix ``a`` to the end.

    Yields ``(b, tangent of the input of matrix b)`` for every b > a, then returns the
    tangent of the network's output (k, d, m)."""
    n = net.n
    ra, la = divmod(a, n)
    branch = U * mask[a]
    # finish the unit of matrix a
    for l in range(la + 1, n):
        yield ra * n + l, branch
        branch = (W[ra, l] @ branch) * mask[ra * n + l]
    h = branch  # tangent of h_{ra+1}: the shortcut carries no tangent from inside unit ra
    for r in range(ra + 1, net.R):
        u = h
        for l in range(n):
            yield r * n + l, u
            u = (W[r, l] @ u) * mask[r * n + l]
        h = h + u if net.shortcut else u
    return h


def _sweep(net, W, mask, a, U, on_input=None):
    gen = _push(net, W, mask, a, U)
    while True:
        try:
            b, t = next(gen)
        except StopIteration as stop:
            return stop.value
        if on_input is not None:
            on_input(b, t)


def hessian_mid_relu(net: ShortcutNetwork, W, data: Dataset) -> torch.Tensor:
    """The exact (P, P) Hessian of the loss of ``net`` (ReLU or nothing at mid) at ``W``.

    Parameter order as in :func:`resnet_nb.core.networks.flatten` (Definition 5 of Li et al.):
    matrix a, then column q, then row p, i.e. index ``a d^2 + q d + p``.
    """
    _check(net, data)
    W = net.require_weights(W).detach().to(torch.float64)
    if W.ndim != 4:
        raise ValueError(f"W must be one point of shape {net.shape}, got {tuple(W.shape)}")
    X = data.X.to(W)
    Y = data.Y.to(W)
    d, m, L = net.d, X.shape[1], net.depth
    q2 = d * d
    z, mask, out = _forward(net, W, X)
    E = out - Y  # e = f - y, (d, m)
    eye = torch.eye(d, dtype=W.dtype, device=W.device)[:, :, None].expand(d, d, m)  # tangent k = e_k
    H = torch.zeros(L * q2, L * q2, dtype=W.dtype, device=W.device)
    # Ft[a][mu, i, p] = d f_i(x_mu) / d out_a[p]: the tangent of the output that the sweep from
    # matrix a returns; g[a][p, mu] = sum_i e[i, mu] Ft[a][mu, i, p]. The sweeps run from the last
    # matrix to the first, so that when matrix a is swept, Ft and g of every later matrix are known.
    Ft, g = [None] * L, [None] * L

    def add_second_order(a):
        def on_input(b, Mab):  # Mab[p, t, mu]: tangent of in_b (row t) from unit direction p at out_a
            # sum over mu of g_b[s] z_a[q] Mab[p, t] as one matrix product, (s q) x (p t)
            gz = (g[b][:, None, :] * z[a][None, :, :]).reshape(q2, m)
            blk = (gz @ Mab.reshape(q2, m).T / m).reshape(d, d, d, d).permute(1, 2, 3, 0)  # q p t s
            H[a * q2 : (a + 1) * q2, b * q2 : (b + 1) * q2] += blk.reshape(q2, q2)

        return on_input

    for a in range(L - 1, -1, -1):
        Fa = _sweep(net, W, mask, a, eye, on_input=add_second_order(a))  # (p, i, mu)
        g[a] = (Fa * E[None]).sum(1)  # (p, mu)
        Ft[a] = Fa.permute(2, 1, 0).contiguous()  # (mu, i, p)
        # Gauss-Newton blocks a <= b: (1/m) sum_mu z_a[q] z_b[t] K_ab[p, s] with
        # K_ab[mu, p, s] = sum_i Ft_a[mu, i, p] Ft_b[mu, i, s]: contracting over i per sample first
        # makes each block one (q t) x (p s) product over the m samples, instead of one over the
        # d m rows of the Jacobian (d times fewer operations)
        FaT = Ft[a].transpose(1, 2)  # (mu, p, i)
        for b in range(a, L):
            K = torch.bmm(FaT, Ft[b]).reshape(m, q2)  # (mu, p s)
            zz = (z[a][:, None, :] * z[b][None, :, :]).reshape(q2, m)  # (q t, mu)
            blk = (zz @ K / m).reshape(d, d, d, d).permute(0, 2, 1, 3)  # q p t s
            H[a * q2 : (a + 1) * q2, b * q2 : (b + 1) * q2] += blk.reshape(q2, q2)
    for a in range(L):  # mirror the upper block triangle; diagonal blocks exactly symmetric
        H[(a + 1) * q2 :, a * q2 : (a + 1) * q2] = H[a * q2 : (a + 1) * q2, (a + 1) * q2 :].T
        diag = H[a * q2 : (a + 1) * q2, a * q2 : (a + 1) * q2]
        H[a * q2 : (a + 1) * q2, a * q2 : (a + 1) * q2] = (diag + diag.T) / 2
    return H
