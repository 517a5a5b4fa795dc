# %% [markdown]
# # Theorem 1: why two-layer shortcuts are special
#
# An $n$-shortcut network stacks $R$ units, each adding $n$ weight matrices to an identity shortcut.
# Theorem 1 of {cite}`li2016demystifying` describes its loss where all weights are zero, with
# $M = \Sigma_{XX} - \Sigma_{YX}$ (input and input-target correlations):
#
# - $n = 2$: the Hessian is block diagonal with the same block in every unit, because a second
#   derivative must touch both matrices of one unit, so units decouple. Its eigenvalues are
#   $\pm\sigma_k(M)$ whatever the depth: the condition number is depth-invariant.
# - $n \ge 3$: the Hessian is zero, because every derivative of order below $n$ misses a matrix of
#   each unit; the point is flat to order $n - 1$.
# - $n = 1$: a unit is one plain layer started at the identity, so the units' blocks couple and the
#   condition number grows with depth (figure below).
#
# We prove and check each step and list where the printed text errs.

# %% tags=["remove-input"]
# %matplotlib inline
try:
    import resnet_nb  # noqa: F401
except ImportError:  # e.g. on Colab
    # %pip install -q git+https://github.com/resnet-nb/resnet-book

# %% tags=["remove-input"]
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch
from IPython.display import HTML, display

from resnet_nb import ShortcutNetwork, whitened_mnist
from resnet_nb.book import li_figures, plotting, show, tables
from resnet_nb.book.facts import theorem1 as facts
from resnet_nb.book.li_figures import (
    depth_animation,
    hessian_explorer,
    key_figure,
    plot_hessian,
    plot_spectrum,
)
from resnet_nb.core.hessians import hessian_linear
from resnet_nb.core.init import SMALL_SCALE
from resnet_nb.li import theorem1 as t1

plotting.style()
mnist = whitened_mnist()  # 5,000 digits, 10 whitened principal components
stats = mnist.stats()  # linear networks need only Sxx, Syx, tr Syy
small = t1.subsample(mnist, every=25)  # 200 digits (20 per class): autograd stays cheap
small_scale = show.num(SMALL_SCALE)  # the paper's perturbation of the zero start (Section 4.1)

# %% tags=["remove-input"]
# exact Hessians at 0 (matrix calculus), linear networks on whitened MNIST
table1 = pd.DataFrame(t1.depth_table(1, [1, 2, 3, 4, 6, 8, 12, 16, 20], stats, progress=False))
table2 = pd.DataFrame(t1.depth_table(2, [1, 2, 4, 8, 16, 32], stats, progress=False))
assert table1["cond10"].is_monotonic_increasing
assert np.ptp(table2["cond10"]) < 1e-9 * table2["cond10"].min()
fig = key_figure(table1.to_dict("records"), table2.to_dict("records"))
plt.show()
cond10_two = show.num(table2["cond10"].iloc[0], 3)
# the value the opening and the tour quote: depth 16
cond10_one16 = show.num(table1.loc[table1["depth"] == 16, "cond10"].item(), 3)

# %% [markdown]
# **The Hessian at zero for $n = 1, 2, 3$.** Top: exact Hessians $H$ (second derivatives of the loss,
# red positive, blue negative) of linear $n$-shortcut networks with $R = 3$ units, on a synthetic data
# set of three coordinates (40 samples with correlated inputs, not whitened, so that no block is an
# identity by accident); thick lines separate units, thin lines the $n$ weight matrices of a unit.
# Bottom: the condition number of the paper's experiments,
# $\mathrm{cond}_{10} = |\lambda|_{\max}/|\lambda|_{(10\%)}$ (largest absolute eigenvalue of $H$ over
# the 10th percentile of absolute eigenvalues), against depth (the number of weight matrices, $nR$),
# on whitened MNIST with $d = 10$ coordinates. It stays at {eval}`cond10_two` for $n = 2$ and reaches
# {eval}`cond10_one16` at depth 16 for $n = 1$; for $n = 3$ it is undefined, because $H = 0$.
#
# What we find beyond the printed text:
#
# 1. Lemma 1 needs only $\sigma_{mid}(0)=0$, Lemma 2 only $\sigma_{post}(0)=0$.
# 2. With activations, the $n = 1$ Hessian also involves $\sigma_{pre}'$ at the data and
#    $\sigma_{post}''(0)$.
# 3. ReLU violates the hypotheses, although the paper includes it: the loss is not twice
#    differentiable at zero.
# 4. At the experiments' small start, the ReLU networks' Hessian is not Theorem 1's
#    $c\cdot(\pm\sigma_k(M))$ for any convention $\mathrm{relu}'(0) = c$: its $\mathrm{cond}_{10}$,
#    which no $c$ changes, is about twice the linear value, and still nearly flat in depth.
# 5. The growth for $n = 1$ gets a short proof (the paper's Toeplitz argument does not apply).
#
# :::{admonition} How every check in this chapter works
# :class: dropdown
#
# After each statement a check computes both sides separately and shows the largest difference
# beside a tolerance whose criterion it states. For float64 identities the tolerance is 100 times
# the number of parameters times the machine epsilon times the size of the quantity. The check also
# reports the size of the part that could differ, so that zeros compared with zeros would be
# reported as vacuous. Every check is also run on a plausible false statement (a misreading of an
# equation, a dropped hypothesis), and must reject it; these runs are the falsifiers of the
# claims ledger.
#
# Only the widget cell in the section *Explore it yourself* needs a running kernel. Every other
# output, including the frame slider over depth, is stored in the page.
# :::

# %% [markdown]
# ## The setting
#
# An $n$-shortcut network on $\mathbb R^d$ has $R$ residual units of $n$ weight matrices each
# (Definitions 2 and 3 of the paper). Unit $r$ maps its input $h$ to
#
# $$
# T_r(h) = h + \sigma_{post}\Big(W_{r,n}\,\sigma_{mid}\big(W_{r,n-1}\cdots\sigma_{mid}(W_{r,1}\,\sigma_{pre}(h))\cdots\big)\Big),
# $$
#
# and the network is $F(x) = T_R\circ\cdots\circ T_1(x)$. The activations act coordinatewise; a
# linear network has all three equal to the identity. With $m$ samples stored as the columns of
# $X, Y \in \mathbb R^{d\times m}$, the loss is (Eq. 6)
#
# $$
# \mathcal L(w) = \frac1{2m}\sum_{\mu=1}^m \|y^\mu - F(x^\mu)\|^2 .
# $$
#
# We use two kinds of correlation matrix: $\Sigma_{XX} = XX^\top/m$ and $\Sigma_{YX} = YX^\top/m$
# (Eqs. 8-9), and, with $s = \sigma_{pre}(X)$ applied entrywise, $\Sigma_{Xs} = Xs^\top/m$ and
# $\Sigma_{Ys} = Ys^\top/m$. The data here are 10 whitened principal components of MNIST digits
# with one-hot targets, as in the paper's Appendix B, so $\Sigma_{XX} = I$.

# %% [markdown]
# :::{admonition} Details: Definition 5 of Li et al., the order of the parameters
# :class: dropdown
#
# ```{prf:definition} Definition 5 of Li et al. (parameter order)
# :label: def-li-5
# :nonumber:
#
# Write $w^{r,l}_{i,j}$ for entry $(i,j)$ of $W_{r,l}$. The parameter vector $w$ lists these
# entries lexicographically by (unit $r$, matrix $l$, column $j$, row $i$). In other words,
# each matrix is flattened column by column, matrices follow one another in forward order, and
# the Hessian $H_{ab} = \partial^2 \mathcal L / \partial w_a \partial w_b$ is indexed in this order.
# With zero-based indices, entry $(i, j)$ of matrix $l$ in unit $r$ sits at position
# $((r n + l) d + j) d + i$.
# ```
# :::

# %% tags=["hide-input", "hide-output"]
net = ShortcutNetwork(d=10, n=2, R=3)
print(net.describe())
print(
    "W[1, 0][3, 7] (unit 2, matrix 1, row 4, column 8 in the paper's 1-based names) is parameter",
    t1.param_index(net, 1, 0, 3, 7),
    "=",
    ((1 * 2 + 0) * 10 + 7) * 10 + 3,
)

# %% [markdown]
# ```{prf:definition} Definition 4 of Li et al. ($k$-th order stationary point)
# :label: def-li-4
# :nonumber:
#
# Let $f$ have a Taylor expansion of order $k$ at $x_0$. The point $x_0$ is a *$k$-th order
# stationary point* of $f$ if that expansion is the constant $f(x_0)$, that is,
# $f(x) = f(x_0) + o(\|x - x_0\|_2^k)$. Equivalently, every derivative of $f$ at $x_0$ of order
# $1, \dots, k$ vanishes.
# ```
#
# :::{admonition} How the check of Definition 4 works
# :class: dropdown
#
# The check follows the loss along a line $t \mapsto tv$: the quotient
# $Q(t) = (\mathcal L(tv) - \mathcal L(0))/t^n$ must tend to the coefficient
# $c = \frac1{n!}\frac{d^n}{dt^n}\mathcal L(tv)$ derived with the proof of Part 1, and the gap
# $|Q(t) - c|$ must vanish at least like $t$, the rate of the next Taylor term. For a linear network it
# vanishes like $t^n$, because the next term of $\mathcal L(tv)$ has order $2n$. The other half of the line
# adds nothing here: $w \mapsto -w$ multiplies each unit's product $W_{r,n}\cdots W_{r,1}$ by $(-1)^n$, so
# $\mathcal L(-tv)$ is $\mathcal L(tv)$ with $t^n$ replaced by $(-t)^n$ (for $n = 2$ the loss is even).
# For $n = 1$, Definition 4 with $k = 0$ holds for every continuous loss, so we check $n = 2, 3$.
# :::
#
# :::{admonition} The exponent of Definition 4
# :class: dropdown
#
# The preprint writes the remainder as $o(\|x - x_0\|_2^k)$, the order of the expansion, as
# "Taylor expansion of order $k$ is constant" requires. A reader could instead take the exponent to be
# $2k$. That reading makes Part 1 false: for $n = 2$ it would claim $\mathcal L(tv) - \mathcal L(0)
# = o(t^2)$, so that $Q(t) \to 0$, while the loss behaves like $c\,t^2$ with $c \ne 0$. The second
# box runs the same check on this reading: the gap to its limit $0$ does not shrink (exponent about
# $0$ instead of at least $1$). The check also rejects a different false statement,
# that the order is not sharp (zero an $n$-th order stationary point), but that statement is the
# complement of the check's own guard that the order-$n$ derivative exceeds rounding: every passing
# check rejects it, so it adds no evidence. The ledger's falsifier of Part 1 drops a hypothesis
# instead: with a logistic sigmoid at mid ($\sigma_{mid}(0) = 1/2$) the order-1 derivative does not
# vanish, and the stated order fails.
# :::

# %% tags=["hide-input"]
taylor_ts = (1e-1, 3e-2, 1e-3)  # the exponent is read at the two largest t, far above rounding
for n in (2, 3):
    res = t1.taylor_remainder_check(ShortcutNetwork(10, n, 4), stats, ts=taylor_ts)
    assert res.passed
    display(res)
# the exponent 2k instead of k: the limit of Q(t) would be 0, and the gap to it does not shrink
reading_2k = t1.taylor_remainder_check(ShortcutNetwork(10, 3, 4), stats, ts=taylor_ts, reading="2k")
assert reading_2k.parts[1].rejected_on_value
display(reading_2k)

# %% [markdown]
# ## Lemma 1: a derivative at zero must touch a whole unit
#
# ```{prf:lemma} Lemma 1 of Li et al., with the hypothesis it actually uses
# :label: lem-li-1
# :nonumber:
#
# Assume $\sigma_{mid}(0) = 0$ (only relevant when $n \ge 2$). Let $w_1,\dots,w_N$ be parameters,
# repetitions allowed, with $w_k = w^{r_k,l_k}_{i_k,j_k}$. If
# $\dfrac{\partial^N \mathcal L}{\partial w_1\cdots\partial w_N}\Big|_{w=0} \ne 0$, then some unit $r$ has
# all its matrices among them: $\{\,l_k : r_k = r\,\} = \{1,\dots,n\}$.
# ```
#
# The paper also assumes $\sigma_{post}(0) = 0$; Lemma 1 does not need it, since a unit that does
# not depend on its parameters is enough, even one that shifts its input by a constant.
#
# :::{admonition} Proof of Lemma 1
# :class: dropdown
#
# ```{prf:proof}
# A mixed partial derivative at $0$ depends only on how $\mathcal L$ behaves on the coordinate subspace
# spanned by the parameters that appear in it. So fix every other parameter at $0$ and let
# only $w_1, \dots, w_N$ vary. Suppose no unit is covered. Then in every unit $r$ some matrix
# $W_{r,l(r)}$ contains none of the $w_k$, so it stays zero on the subspace. Follow a signal
# through unit $r$. Whatever reaches $W_{r,l(r)}$ is sent to $0$. If $l(r) < n$, the next
# activation is $\sigma_{mid}(0) = 0$, and each later matrix maps $0$ to $0$. Either way the
# argument of $\sigma_{post}$ is the zero vector, and the unit computes
# $T_r(h) = h + \sigma_{post}(0)\mathbf 1$, whatever the values of its other parameters. So every
# unit is a fixed map, $F$ does not depend on $w_1,\dots,w_N$, and $\mathcal L$ is constant on the
# subspace. Every derivative of a constant vanishes, including this one.
# ```
# :::
#
# In particular, a unit has $n$ matrices, so fewer than $n$ parameters can never cover one.
# Every derivative of order $1,\dots,n-1$ vanishes at $0$, and that is Part 1 of the theorem.
#
# :::{admonition} How the check of Lemma 1 works
# :class: dropdown
#
# `lemma1_check` draws index tuples of orders $1$ to $n+1$ and computes each
# mixed partial exactly with nested forward-mode automatic differentiation. The tuples come in
# several kinds. Some are uniformly random. Some cover every matrix of a unit but one, the
# closest a tuple can come to covering. Some repeat a single parameter. Some cover a unit and
# chain, $w^{r,n}_{i_n, i_{n-1}}\cdots w^{r,1}_{i_1, j_0}$. The rest cover a unit but break the
# chain. A non-covering tuple must give $0$. For tuples of order exactly $n$ we also compare
# with a closed form that follows from the proof of Part 1: the derivative is
# $\sigma_{post}'(0)\sigma_{mid}'(0)^{n-1}(\Sigma_{Xs}-\Sigma_{Ys})_{i_n j_0}$ for a chain and $0$
# otherwise. So a covering chain must give exactly this value, which is nonzero whenever
# $\sigma_{post}'(0)\sigma_{mid}'(0)^{n-1} \ne 0$ and $(\Sigma_{Xs}-\Sigma_{Ys})_{i_n j_0} \ne 0$.
# :::

# %% tags=["hide-input"]
lemma1_cases = {
    "linear, n = 3": (ShortcutNetwork(10, 3, 3), stats),
    "tanh / silu / tanh, n = 2": (
        ShortcutNetwork(10, 2, 3, pre="tanh", mid="silu", post="tanh"),
        small,
    ),
    "ReLU at mid, n = 3": (ShortcutNetwork(10, 3, 2, mid="relu"), small),
}
for _name, (net, data) in lemma1_cases.items():
    res = t1.lemma1_check(net, data, samples=4, seed=1)
    assert res.passed, str(res)
    display(res)

# %% [markdown]
# **The hypothesis is needed.** With the logistic sigmoid at mid ($\sigma(0) = 1/2$) a single
# parameter of $W_{r,2}$ already moves the loss, and the same check rejects the statement (the
# ledger's falsifier of Lemma 1).

# %% tags=["hide-input"]
lemma1_counterexample = t1.lemma1_check(
    ShortcutNetwork(10, 2, 2, mid=t1.shifted_sigmoid()), small, samples=4
)
assert lemma1_counterexample.rejected_on_value
display(lemma1_counterexample)

# %% [markdown]
# ## Lemma 2: only "same unit or not" matters
#
# ```{prf:lemma} Lemma 2 of Li et al. (translation invariance)
# :label: lem-li-2
# :nonumber:
#
# Assume $\sigma_{post}(0) = 0$. Let $w_1 = w^{r_1,l_1}_{i_1,j_1}$ and
# $w_2 = w^{r_2,l_2}_{i_2,j_2}$ with $r_1 \le r_2$, and move them to the front of the network:
# $w_1' = w^{1,l_1}_{i_1,j_1}$ and $w_2' = w^{1+[r_1\ne r_2],\,l_2}_{i_2,j_2}$. Write
# $\mathcal L_0(u,v)$ for the loss when $w_1=u$, $w_2=v$ and every other parameter is $0$, and $\mathcal L_0'$
# for the same with $w_1', w_2'$. Then $\mathcal L_0 = \mathcal L_0'$ as functions. In particular
# $\dfrac{\partial^2 \mathcal L}{\partial w_1\partial w_2}\Big|_0 = \dfrac{\partial^2 \mathcal L}{\partial w_1'\partial w_2'}\Big|_0$.
# ```
#
# :::{admonition} Proof of Lemma 2
# :class: dropdown
#
# ```{prf:proof}
# A unit whose parameters are all zero computes $h + \sigma_{post}(0\cdot\text{anything}) = h$,
# so it is the identity. When only $w_1, w_2$ can be nonzero, every unit except $r_1$ and $r_2$
# is the identity, and $F = T_{r_2}\circ T_{r_1}$ (just $T_{r_1}$ when $r_1 = r_2$). The map
# $T_{r}$ depends on the position $r$ only through which of its entries are set, so unit $r_1$
# with $w_1 = u$ computes the same function as unit $1$ with $w_1' = u$. Likewise unit $r_2$
# with $w_2 = v$ computes the same function as unit $1 + [r_1 \ne r_2]$ with $w_2' = v$. Hence $F$,
# and therefore the loss, are the same functions of $(u, v)$ in both placements.
# ```
# :::
#
# Read as a statement about the Hessian at $0$: every diagonal block (unit $r$ with itself)
# equals the first one, and every off-diagonal block (units $r_1 < r_2$) equals block $(1, 2)$,
# however far apart the units are. This is why the blocks of Eqs. 11 and 13 repeat.
#
# :::{admonition} How the check of Lemma 2 works
# :class: dropdown
#
# The check
# compares the second derivative at the original place with the one at the translated place,
# for random pairs and for adversarial ones (the last unit with itself, the first unit with the
# last, indices chained so that the value is nonzero). It also compares $\mathcal L_0$ and $\mathcal L_0'$ at
# random points $(u, v)$.
# :::

# %% tags=["hide-input"]
for n, acts in [(1, dict(pre="tanh", post="silu")), (2, dict(pre="relu", mid="tanh", post="silu"))]:
    res = t1.lemma2_check(ShortcutNetwork(10, n, 4, **acts), small, samples=9)
    assert res.passed, str(res)
    display(res)

# %% [markdown]
# With $\sigma_{post}(0) \ne 0$, each idle unit adds a constant vector. Where a unit sits then
# decides which input it sees, and the translated derivative differs.

# %% tags=["hide-input"]
lemma2_counterexample = t1.lemma2_check(
    ShortcutNetwork(10, 1, 4, post=t1.shifted_sigmoid()), small, samples=9
)
assert lemma2_counterexample.rejected_on_value
display(lemma2_counterexample)

# %% [markdown]
# ## Theorem 1
#
# ```{prf:theorem} Theorem 1 of Li et al. (2016)
# :label: thm-li-1
# :nonumber:
#
# Assume $\sigma_{mid}(0) = \sigma_{post}(0) = 0$, and that the derivatives
# $\sigma_{pre}^{(k)}(0)$, $\sigma_{mid}^{(k)}(0)$ and $\sigma_{post}^{(k)}(0)$ exist for
# $1\le k\le\max(n-1, 2)$. For the loss of an $n$-shortcut network, at $w = 0$:
#
# 1. if $n \ge 2$, zero is an $(n-1)$-th order stationary point, and if $n\ge3$ the Hessian is
#    the zero matrix;
# 2. if $n = 2$, the Hessian is block diagonal with $R$ copies of
#    $\begin{pmatrix}0 & A^\top\\ A & 0\end{pmatrix}$ (Eq. 11), and its condition number is
#    $\sqrt{\operatorname{cond}\big(M^\top M\big)}$ with
#    $M = \sigma_{mid}'(0)\sigma_{post}'(0)\,(\Sigma_{Xs} - \Sigma_{Ys})$ (Eq. 12). This number
#    does not depend on $R$, and except in degenerate cases zero is a strict saddle point
#    {cite}`ge2015escaping`;
# 3. if $n = 1$, the Hessian is block Toeplitz: $B$ on the diagonal, $A$ below it and $A^\top$
#    above it (Eq. 13), where $A$ and $B$ depend only on the data and the activations.
# ```
#
# :::{admonition} Three remarks on the hypotheses
# :class: dropdown
#
# (i) and (iii) are checked further down.
# *(i)* $\sigma_{pre}$ is never evaluated at $0$. It acts on the data, so what matters is
# $\sigma_{pre}$ at the data points (and for $n = 1$ also $\sigma_{pre}'$ there).
# *(ii)* For $\sigma_{mid}$ and $\sigma_{post}$, the existence of $\sigma^{(k)}(0)$ already
# gives $\sigma^{(k-1)}$ on a neighbourhood of $0$, which is enough for the Taylor expansion that
# {prf:ref}`Definition 4 of Li et al. <def-li-4>` presupposes. What the hypotheses miss is $\sigma_{pre}$: it must be $k$
# times differentiable at the data coordinates, not at $0$ (see (i)).
# *(iii)* The paper lists ReLU among the activations that satisfy the assumptions, noting that
# ReLU has no derivative at $0$ and that "one may do a local polynomial approximation to yield
# $\sigma^{(k)}$". Such an approximation changes the network. For ReLU itself at the mid or post
# position the loss is not twice differentiable at $0$: it inherits the kink (see the ReLU
# section below). At the pre position ReLU is harmless. Our ReLU uses the right derivative, $\mathrm{relu}'(0) = 1$, whenever a value
# at $0$ is needed; PyTorch's own convention is $0$.
# :::

# %% [markdown]
# ### Part 1: a flat start for $n \ge 3$
#
# :::{admonition} Proof of Part 1
# :class: dropdown
#
# ```{prf:proof} Part 1
# By {prf:ref}`Lemma 1 of Li et al. <lem-li-1>`, every mixed partial of order $k < n$ vanishes at $0$, since $k$
# parameters cannot cover the $n$ matrices of any unit. The Taylor polynomial of order $n-1$ is
# therefore the constant $\mathcal L(0)$, which is {prf:ref}`Definition 4 of Li et al. <def-li-4>` with $k = n-1$. For $n \ge 3$ the
# Hessian consists of mixed partials of order $2 < n$, so it is zero.
# The order is sharp: the first nonzero term, derived in the dropdown below, is of order $n$.
# ```
# :::
#
# :::{admonition} The first nonzero term of $\mathcal L(tv)$
# :class: dropdown
#
# Along a direction
# $v = (V_{r,l})$, put $w = tv$. Inside unit $r$ each matrix contributes a factor $t$, each
# $\sigma_{mid}$ contributes $\sigma'_{mid}(0)$ up to terms of higher order in $t$ (its argument
# is $O(t)$ and $\sigma_{mid}(0) = 0$), and $\sigma_{post}$ contributes $\sigma'_{post}(0)$ in the
# same way. Unit $r$ therefore adds
# $t^n c\,V_{r,n}\cdots V_{r,1}s + O(t^{n+1})$ with $c = \sigma_{post}'(0)\sigma_{mid}'(0)^{n-1}$.
# Products of corrections from two units are $O(t^{2n})$. Expanding the square,
#
# $$
# \mathcal L(tv) = \mathcal L(0) + t^n\,c\sum_{r=1}^R \big\langle V_{r,n}\cdots V_{r,1},\ \Sigma_{Xs}-\Sigma_{Ys}\big\rangle_F + O(t^{n+1}),
# $$
#
# so $\frac{d^n}{dt^n}\mathcal L(tv)|_0 = n!\,c\sum_r\langle V_{r,n}\cdots V_{r,1}, \Sigma_{Xs}-\Sigma_{Ys}\rangle$.
# Taking $v$ to be one entry per matrix gives the order-$n$ closed form used in the Lemma 1 check.
# :::
#
# :::{admonition} How the check of Part 1 works
# :class: dropdown
#
# The check takes unit directions $v$ of four kinds: Gaussian, supported on a single unit,
# aligned with the top singular pair of $\Sigma_{Xs}-\Sigma_{Ys}$ (this maximises the order-$n$
# term), and with one matrix per unit set to zero (every derivative up to order $n$ must vanish).
# Along each it computes $\frac{d^k}{dt^k}\mathcal L(tv)$ for $k=1..n$ by nested forward-mode
# differentiation. Orders below $n$ must vanish to rounding, order $n$ must match the closed form,
# and for $n\ge3$ the exact autograd Hessian must be zero.
# :::

# %% tags=["hide-input"]
for n, acts, data in [
    (2, {}, stats),
    (3, {}, stats),
    (4, {}, stats),
    (3, dict(pre="tanh", mid="tanh", post="silu"), small),
]:
    res = t1.part1_check(ShortcutNetwork(10, n, 2, **acts), data, directions=8)
    assert res.passed, str(res)
    display(res)

# %% [markdown]
# With $\sigma_{mid} =$ sigmoid ($\sigma_{mid}(0) = 1/2$) the gradient at zero is no longer
# zero, and the check rejects the statement on its comparison.

# %% tags=["hide-input"]
part1_counterexample = t1.part1_check(
    ShortcutNetwork(10, 2, 2, mid=t1.shifted_sigmoid()), small, directions=4
)
assert part1_counterexample.rejected_on_value
display(part1_counterexample)

# %% [markdown]
# ### Part 2: the Hessian of a 2-shortcut network
#
# :::{admonition} Proof of Part 2
# :class: dropdown
#
# ```{prf:proof} Part 2
# *Which blocks survive.* A Hessian entry is a mixed partial with $N = 2$. By
# {prf:ref}`Lemma 1 of Li et al. <lem-li-1>` it can be nonzero only when the two parameters cover a unit, that is, one
# lies in $W_{r,1}$ and the other in $W_{r,2}$ of the same unit. Blocks that couple two units
# vanish, and so do the blocks of a matrix with itself. By {prf:ref}`Lemma 2 of Li et al. <lem-li-2>` the surviving
# block $\partial^2 \mathcal L/\partial W_{r,2}\partial W_{r,1}$ is the same matrix $A$ in every unit, and
# symmetry puts $A^\top$ in the mirrored position. That gives Eq. 11.
#
# *The entries of $A$* (Eq. 19, derived in the dropdown below, which also shows that zero is a strict saddle) are $A_{(j_1,i_1),(j_2,i_2)} = \delta_{j_1 i_2}\, M_{i_1 j_2}$, so that $A = \operatorname{diag}(M,\dots,M)P^\top$ with the perfect-shuffle permutation $P$ of Eq. 20 (Eq. 21).
#
# *The spectrum.* $P$ is orthogonal, so $A^\top A = P\,\operatorname{diag}(M^\top M,\dots)P^\top$,
# and the singular values of $A$ are those of $M$, each repeated $d$ times. For any matrix
# $A = U\Sigma V^\top$, the symmetric matrix $\begin{pmatrix}0&A^\top\\A&0\end{pmatrix}$ has
# eigenvectors $(v_k, \pm u_k)/\sqrt2$ with eigenvalues $\pm\sigma_k$. With $R$ identical units,
# the eigenvalues of $H$ are $\pm\sigma_k(M)$, each with multiplicity $dR$. Hence
# $\operatorname{cond}(H) = \sigma_{\max}(M)/\sigma_{\min}(M) = \sqrt{\operatorname{cond}(M^\top M)}$
# for every $R$ (Eqs. 12 and 18).
# ```
# :::
#
# :::{admonition} Details: the entries of $A$ (Eqs. 19-21), and the strict saddle
# :class: dropdown
#
# *The entries of $A$* (Eq. 19). Let $w_1 = w^{r,2}_{i_1 j_1} = u$ and
# $w_2 = w^{r,1}_{i_2 j_2} = v$, with everything else zero. All other units are the identity, so
# unit $r$ receives $x$ and $s = \sigma_{pre}(x)$. Then $W_{r,1}s = v\,s_{j_2}e_{i_2}$, and
# $\sigma_{mid}$ of that is $\sigma_{mid}(v s_{j_2})e_{i_2}$ because $\sigma_{mid}(0)=0$.
# Applying $W_{r,2}$ gives $u\,\delta_{j_1 i_2}\,\sigma_{mid}(vs_{j_2})\,e_{i_1}$, so
# $F(x) = x + \varphi\,e_{i_1}$ with
# $\varphi = \sigma_{post}\big(u\,\delta_{j_1i_2}\sigma_{mid}(vs_{j_2})\big)$. Now
#
# $$
# \mathcal L_0(u,v) = \frac1{2m}\sum_\mu\Big(\|y-x\|^2 - 2(y-x)_{i_1}\varphi + \varphi^2\Big).
# $$
#
# Both $\varphi(u,0)$ and $\varphi(0,v)$ are zero, so $\partial_u\varphi = \partial_v\varphi = 0$
# at the origin, and $\partial_u\partial_v(\varphi^2) = 2(\partial_u\varphi\,\partial_v\varphi + \varphi\,\partial_u\partial_v\varphi) = 0$
# there. Also $\partial_u\partial_v\varphi|_0 = \sigma_{post}'(0)\,\delta_{j_1i_2}\,\sigma_{mid}'(0)\,s_{j_2}$. Hence
#
# $$
# A_{(j_1,i_1),(j_2,i_2)} = \delta_{j_1 i_2}\,\sigma'_{mid}(0)\sigma'_{post}(0)\,\frac1m\sum_\mu (x^\mu-y^\mu)_{i_1}s^\mu_{j_2}
# = \delta_{j_1 i_2}\, M_{i_1 j_2}.
# $$
#
# *Eqs. 20-21.* Moving column $(j_2, i_2)$ of $A$ to position $(i_2, j_2)$ with the perfect-shuffle
# permutation $P$ of Eq. 20 gives $AP = \operatorname{diag}(M,\dots,M)$, so
# $A = \operatorname{diag}(M,\dots,M)P^\top$.
#
# *Strict saddle.* The gradient at zero vanishes (Part 1 with $n = 2$), and
# $\lambda_{\min}(H) = -\sigma_{\max}(M) < 0$ unless $M = 0$. The degenerate cases are
# $M = 0$: $\Sigma_{Xs} = \Sigma_{Ys}$, or $\sigma'_{mid}(0)\sigma'_{post}(0) = 0$. Along the
# eigenvector of $\lambda_{\min}$ the loss decreases like $\tfrac12\lambda_{\min}t^2$. If
# $\sigma_{\min}(M) = 0$ the condition number is infinite but the saddle is still strict.
# :::
#
#
# In the package, Eqs. 21 and 11 are these lines; the check builds $H$ from them and from nothing else:
#
# ```{literalinclude} ../resnet_nb/li/theorem1/hessian_at_zero.py
# :pyobject: eq21_A
# ```
#
# ```{literalinclude} ../resnet_nb/core/hessians.py
# :pyobject: eq11_assemble
# ```
#
# :::{admonition} How the check of Part 2 works
# :class: dropdown
#
# The check compares an exact Hessian with Eq. 11 assembled from Eq. 21. For linear networks
# the exact Hessian comes from matrix calculus with no autograd; with activations it comes from
# autograd. The check then assigns every eigenvalue to the nearest level $\pm\sigma_k(M)$, checks that it lies there and
# that every level holds exactly $dR$ eigenvalues, compares the condition numbers, and follows the loss along the escape direction.
# :::

# %% tags=["hide-input"]
part2_linear = t1.part2_check(ShortcutNetwork(10, 2, 4), stats)
assert part2_linear.passed
display(part2_linear)

# %% tags=["hide-input"]
net4 = ShortcutNetwork(10, 2, 4)
fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
plot_hessian(
    part2_linear.values["H"],
    net4,
    axes[0],
    title="Hessian at 0, 2-shortcut, R = 4 (cf. the paper's Figure 11)",
)
sv = part2_linear.values["sv"]
plot_spectrum(
    part2_linear.values["eigs"],
    axes[1],
    np.concatenate([sv, -sv]),
    title="eigenvalues: plus and minus the singular values of M, each dR = 40 times",
)
plt.tight_layout()
plt.show()

# %% [markdown]
# The heatmap is the paper's Figure 11, computed rather than drawn: only the two off-diagonal
# sub-blocks of each unit are nonzero, the same in every unit.
#
# **Depth invariance.** The table gives `cond` ($|\lambda|_{\max}/|\lambda|_{\min}$) and `cond10` at
# depths 2 to 64 beside Eq. 12's $\sigma_{\max}(M)/\sigma_{\min}(M)$: both are constant.
#
# :::{admonition} Why the check decomposes the full Hessians
# :class: dropdown
#
# The table's Hessians are built by matrix calculus; the column `off_unit_max` shows that every entry
# coupling two different units is exactly zero, and the spectrum is then taken as the union of the
# units' spectra. Because the units' blocks are identical, that union is built from copies, and a
# spread over depths computed from it could not differ. The check under the table therefore
# decomposes each *full* Hessian on its own, for $R = 1, 2, 4, 8$.
# :::

# %% tags=["hide-input"]
display(
    table2.rename(columns={"P": "#params"})[
        ["depth", "#params", "cond", "cond10", "predicted", "off_unit_max"]
    ]
    .style.hide(axis="index")
    .format({"cond": "{:.6f}", "cond10": "{:.6f}", "predicted": "{:.6f}", "off_unit_max": "{:.1e}"})
)
depth_inv = t1.depth_invariance_check(2, [1, 2, 4, 8], stats)
assert depth_inv.passed
display(depth_inv)

# %% [markdown]
# **With activations.** The same check runs with identity, tanh and ReLU at each position (autograd,
# 200 digits, $R = 2$). The factor $\sigma'_{mid}(0)\sigma'_{post}(0)$ is $1$ in all these cases (ReLU
# by our convention), and $\sigma_{pre}$ enters through $s = \sigma_{pre}(X)$.

# %% tags=["hide-input", "hide-output"]
rows = []
for act in ("identity", "tanh", "relu"):
    for pos in ("pre", "mid", "post"):
        res = t1.part2_check(ShortcutNetwork(10, 2, 2, **{pos: act}), small, method="autograd")
        v = res.values
        rows.append(
            dict(
                activation=act,
                position=pos,
                max_err_H=v["err_H"],
                max_err_eigs=v["err_eigs"],
                cond_H=v["cond_H"],
                cond_Eq12=v["cond_M"],
                drop_over_model=v["drop"] / v["quad"],
                escape_as_predicted=v["saddle_ok"],
            )
        )
        structure_ok = max(v["err_H"], v["err_eigs"]) < 1e-12
        kink = act == "relu" and pos in ("mid", "post")
        assert structure_ok and v["saddle_ok"] != kink
activation_table = pd.DataFrame(rows)
display(tables.activation_table(activation_table))
ratio = activation_table.set_index(["activation", "position"])["drop_over_model"]
relu_mid_ratio, relu_post_ratio = show.num(ratio["relu", "mid"]), show.num(ratio["relu", "post"])

# %% [markdown]
# SiLU, with slope $1/2$ at $0$, shows the factor: at mid it halves every eigenvalue and leaves
# the condition number unchanged.

# %% tags=["hide-input"]
lin2 = t1.part2_check(ShortcutNetwork(10, 2, 2), small)
silu2 = t1.part2_check(ShortcutNetwork(10, 2, 2, mid="silu"), small, method="autograd")
gap = np.abs(silu2.values["eigs"] - lin2.values["eigs"] / 2).max()
assert silu2.passed and gap < 1e-12
silu_gap = show.num(gap)
print(
    f"max |eig(H, SiLU at mid) - eig(H, linear) / 2| = {gap:.1e}; "
    f"cond: {silu2.values['cond_H']:.6f} vs {lin2.values['cond_H']:.6f}"
)

# %% [markdown]
# Every structural claim holds, to rounding, in all nine cases. With ReLU at mid or post, however,
# the "Hessian" (autograd's, under $\mathrm{relu}'(0)=1$) does not describe the loss; the ReLU section below explains why.
#
# :::{admonition} Details: the escape columns and the falsifiers of Part 2
# :class: dropdown
#
# With ReLU at mid or post
# the loss along the eigenvector of $\lambda_{\min}$ drops by only part of what this "Hessian"
# predicts ({eval}`relu_mid_ratio` of it with ReLU at mid, {eval}`relu_post_ratio` at post, column
# `drop_over_model`). That matrix is autograd's answer under the convention $\mathrm{relu}'(0)=1$.
#
# The last three columns follow the loss from $0$ a distance $t = 10^{-3}$ along the eigenvector of
# $\lambda_{\min}$. Since $\mathrm{relu}(z) = (z + |z|)/2$, the one-sided curvature is half the
# linear one plus a term in $|V_1 x|$ that has no reason to vanish: one half of the line
# $t\mapsto tv$ sees the kink from the other side.
#
# The same comparisons, run on three plausible misreadings of the paper, reject each of them on its
# value (next table): Eq. 21 without the permutation $P$ ($A = \operatorname{diag}(M,\dots,M)$),
# $R$ copies of each $\pm\sigma_k(M)$ (the paper's "copies equal to the number of shortcut
# connections", read as copies of the singular values rather than of the blocks), and Eq. 12 without
# its square root. The multiplicity comparison assigns each eigenvalue of $H$ to the nearest level
# $\pm\sigma_k(M)$ and counts: every level holds $dR$ eigenvalues, not $R$. These are the ledger's
# falsifiers of Part 2.
# :::

# %% tags=["hide-input", "hide-output"]
net4 = ShortcutNetwork(10, 2, 4)
wrong_rows = []
for variant, part in (("eq21_without_P", 0), ("multiplicity_R", 2), ("eq12_without_sqrt", 3)):
    wrong = t1.part2_check(net4, stats, H=part2_linear.values["H"], variant=variant)
    assert wrong.rejected_on_value and wrong.parts[part].rejected_on_value
    p = wrong.parts[part]
    wrong_rows.append(dict(misreading=variant, compared=p.compared, value=p.value, tolerance=p.tol))
display(
    pd.DataFrame(wrong_rows)
    .style.hide(axis="index")
    .format({"value": "{:.3g}", "tolerance": "{:.1e}"})
)

# %% [markdown]
# ### Part 3: the 1-shortcut network
#
# :::{admonition} Proof of Part 3
# :class: dropdown
#
# ```{prf:proof} Part 3
# For $n = 1$ a single parameter covers its unit, so {prf:ref}`Lemma 1 of Li et al. <lem-li-1>` says nothing and every
# block can be nonzero. By {prf:ref}`Lemma 2 of Li et al. <lem-li-2>` the diagonal blocks all equal one matrix $B$, and
# the blocks below the diagonal all equal one matrix $A$, whatever the distance between the
# units. By symmetry the blocks above the diagonal are $A^\top$. That is Eq. 13, a block Toeplitz
# matrix. It is the special one whose subdiagonals are all equal. With activations the blocks are computed in the dropdown after this proof. For a linear network, $B = P\operatorname{diag}(\Sigma_{XX},\dots)P^\top$ (Eq. 25) and
# $A = \operatorname{diag}(\Sigma_{XX}-\Sigma_{YX},\dots)P^\top + B$ (Eq. 28), which are the
# paper's formulas.
# ```
# :::
#
# :::{admonition} Details: the blocks $A$ and $B$ with activations
# :class: dropdown
#
# We compute the blocks with
# $c_1 = \sigma'_{post}(0)$, $c_2 = \sigma''_{post}(0)$, $s = \sigma_{pre}(x)$ and
# $\langle\cdot\rangle$ the sample mean. The loss Hessian for a pair is
# $\langle \partial_1F\cdot\partial_2F\rangle - \langle (y-F)\cdot\partial_1\partial_2F\rangle$.
#
# *Same unit* ($B$). With $w_1 = w^{r}_{i_1j_1} = u$ and $w_2 = w^r_{i_2j_2} = v$,
# $F = x + \sigma_{post}(u s_{j_1}e_{i_1} + v s_{j_2}e_{i_2})$. If $i_1\ne i_2$ the two
# coordinates separate and the entry is $0$. If $i_1 = i_2$,
# $\partial_u F\cdot\partial_v F = c_1^2 s_{j_1}s_{j_2}$ and
# $\partial_u\partial_v F_{i_1} = c_2\,s_{j_1}s_{j_2}$, so
#
# $$
# B_{(j_1,i_1),(j_2,i_2)} = \delta_{i_1i_2}\Big(c_1^2\,(\Sigma_{ss})_{j_1j_2} - c_2\,\big\langle (y-x)_{i_1}s_{j_1}s_{j_2}\big\rangle\Big).
# $$
#
# *Different units* ($A$), with $r_1 > r_2$. Unit $r_2$ produces
# $h = x + \sigma_{post}(v s_{j_2})e_{i_2}$, and unit $r_1$ adds
# $\sigma_{post}\big(u\,\sigma_{pre}(h)_{j_1}\big)e_{i_1}$. At $0$,
# $\partial_uF = c_1 s_{j_1}e_{i_1}$, $\partial_vF = c_1 s_{j_2}e_{i_2}$, and
# $\partial_u\partial_vF = c_1\,\sigma'_{pre}(x_{j_1})\,\delta_{j_1i_2}\,c_1s_{j_2}\,e_{i_1}$. So
#
# $$
# A_{(j_1,i_1),(j_2,i_2)} = c_1^2\Big(\delta_{i_1i_2}(\Sigma_{ss})_{j_1j_2}
#  + \delta_{j_1i_2}\big\langle (x-y)_{i_1}\,\sigma'_{pre}(x_{j_1})\,s_{j_2}\big\rangle\Big).
# $$
# :::
#
# Eq. 13 is assembled by these lines (the same function builds the closed form used everywhere else in the book):
#
# ```{literalinclude} ../resnet_nb/core/hessians.py
# :pyobject: eq13_assemble
# ```
#
# The paper derives $A$ and $B$ only for $\sigma_{pre} = \sigma_{post} = \mathrm{id}$. In general two
# quantities enter that its formulas do not show: $\sigma'_{pre}$ *at the data points*, about which
# the hypotheses (stated at $0$) say nothing, and $\sigma''_{post}(0)$, whose existence the
# hypotheses require but which vanishes for a linear $\sigma_{post}$. We use SiLU,
# $x\,\mathrm{sigmoid}(x)$, with $\sigma''(0) = 1/2$, to exercise the second one.
#
# :::{admonition} How the check of Part 3 works
# :class: dropdown
#
# The check first reads the block Toeplitz structure off the exact Hessian alone, then compares
# with the closed forms, and for the linear case also with Eqs. 25 and 28 written with the
# permutation $P$ exactly as printed.
# :::

# %% tags=["hide-input"]
for net, data in [
    (ShortcutNetwork(10, 1, 6), stats),
    (ShortcutNetwork(10, 1, 4, pre="tanh", post="silu"), small),
    (ShortcutNetwork(10, 1, 4, pre="relu", post="tanh"), small),
]:
    res = t1.part3_check(net, data)
    assert res.passed, str(res)
    display(res)

# %% [markdown]
# **The condition number grows with depth, and here is a proof.** The paper appeals to Toeplitz
# theory (Gray 2006), which does not apply directly (all subdiagonal blocks are equal rather than
# decaying), so we prove a lower bound of our own.
#
# ```{prf:proposition} Proposition (1-shortcut growth)
# :label: prop-one-shortcut-growth
# :nonumber:
#
# Let $H$ be the Hessian at $0$ of a linear 1-shortcut network with $R$ units, with the blocks
# $A, B$ of Eq. 13, $A_s = (A + A^\top)/2$ and $N_\lambda = Rd^2$ eigenvalues. Let $N_{90} = N_\lambda - \lceil (N_\lambda-1)/10\rceil$,
# the number of eigenvalues at or above the 10th percentile $|\lambda|_{(10\%)}$ (so $N_{90} \ge 9N_\lambda/10 - 1$). Then
#
# 1. $\lambda_{\max}(H) \ge \ell(R) := \lambda_{\max}\big(B + (R-1)A_s\big) \ge \lambda_{\min}(B) + (R-1)\lambda_{\max}(A_s)$;
# 2. $\operatorname{tr}(H^2) = R\|B\|_F^2 + R(R-1)\|A\|_F^2$ and $|\lambda|_{(10\%)} \le u(R) := \sqrt{\operatorname{tr}(H^2)/N_{90}}$;
# 3. hence $|\lambda|_{\max}/|\lambda|_{(10\%)} \ge \ell(R)/u(R)$, which grows like $c'\sqrt R$ with
#    $c' = \lambda_{\max}(A_s)\,d\,\sqrt{9/10}\,/\,\|A\|_F$ whenever $\lambda_{\max}(A_s) > 0$.
# ```
#
# :::{admonition} Proof of the Proposition
# :class: dropdown
#
# ```{prf:proof}
# (1) Take the unit vector $(z, \dots, z)/\sqrt R$ with $\|z\| = 1$. Its Rayleigh quotient is
# $\frac1R\big(R\,z^\top Bz + \tfrac{R(R-1)}2(z^\top Az + z^\top A^\top z)\big) = z^\top\big(B + (R-1)A_s\big)z$;
# maximise over $z$. The second inequality takes $z$ the top eigenvector of $A_s$.
# (2) $\operatorname{tr}(H^2) = \|H\|_F^2$ is the sum of the squared norms of the blocks: $R$ copies of $B$
# and $R(R-1)$ copies of $A$ or $A^\top$. At least $N_{90}$ eigenvalues satisfy $|\lambda| \ge |\lambda|_{(10\%)}$,
# so $N_{90}\,|\lambda|_{(10\%)}^2 \le \sum\lambda^2 = \operatorname{tr}(H^2)$.
# (3) Divide. As $R$ grows, $\ell(R) \sim R\,\lambda_{\max}(A_s)$ and
# $u(R) \sim \sqrt{R^2\|A\|_F^2/(\tfrac9{10} R d^2)} = \sqrt R\,\|A\|_F/(d\sqrt{9/10})$.
# ```
# :::
#
# :::{admonition} How the check of the Proposition works
# :class: dropdown
#
# The check below computes
# all three statements on the exact Hessians. Its falsifier is a slip in (2): counting each pair of
# units once, $\operatorname{tr}(H^2) = R\|B\|_F^2 + \tfrac{R(R-1)}2\|A\|_F^2$, although $A$ sits
# below and $A^\top$ above the diagonal. The trace comparison rejects it (second box).
# :::
#
# :::{admonition} The bound on whitened data
# :class: dropdown
#
# On whitened data $B = I$ and $A = I + C$ with $C = \operatorname{diag}(I - \Sigma_{YX},\dots)P^\top$
# (Eqs. 25 and 28), so $\ell(R) = 1 + (R-1)(1 + \bar c)$ with $\bar c = \lambda_{\max}\big((C + C^\top)/2\big)$:
# the bound asked for in {ref}`the exercise on the Rayleigh bound <ex-t1-growth>`.
# :::

# %% tags=["hide-input"]
growth = t1.growth_check(stats, (2, 4, 8, 16))
assert growth.passed
display(growth)
growth_false = t1.growth_check(stats, (2, 4, 8), variant="pairs_once")  # the falsifier
assert growth_false.parts[1].rejected_on_value
display(growth_false)
growth_table = pd.DataFrame(growth.values["rows"])
display(tables.growth_table(growth_table))
f_growth_numbers = facts.growth_numbers_facts(growth_table, stats)
li_figures.growth_figure(table1, table2, growth_table)
plt.show()

# %% [markdown]
# On whitened MNIST $c' =$ {eval}`f_growth_numbers.c_prime_theory`, and at depth 16 the bound $\ell(R)/u(R)$ is
# already {eval}`f_growth_numbers.c_prime_16` $\sqrt R$. The measured growth is faster: the paper's condition number grows about linearly, {eval}`f_growth_numbers.cond10_16` at depth 16
# ({eval}`f_growth_numbers.cond10_per_depth` per layer). We have not proved a bound on $|\lambda|_{(10\%)}$
# that does not grow with $R$, so the book claims $\sqrt R$ and shows the rest as a measurement.
#
# :::{admonition} Details: where the bound is loose
# :class: dropdown
#
# The table shows why the measured growth is faster. The bound on $\lambda_{\max}$ is tight
# ({eval}`f_growth_numbers.lam16` against $\ell(R) =$ {eval}`f_growth_numbers.lb16` at depth 16); only the trace bound on
# $|\lambda|_{(10\%)}$ is loose ({eval}`f_growth_numbers.p10b16` against a measured value between {eval}`f_growth_numbers.p10_min` and
# {eval}`f_growth_numbers.p10_max`, a factor {eval}`f_growth_numbers.p10_ratio16` at depth 16). Since $|\lambda|_{(10\%)}$ barely falls
# ({eval}`f_growth_numbers.p10_first` at depth {eval}`f_growth_numbers.depth_first`, {eval}`f_growth_numbers.p10_last` at depth 16, by less at each
# doubling), the condition number grows about linearly.
# :::

# %% [markdown]
# ## ReLU: the hypotheses fail
#
# The theorem needs derivatives of the activations at $0$. ReLU has none, and the paper's
# suggestion (a local polynomial approximation) amounts to choosing $\mathrm{relu}'(0)$. With ReLU at mid the one-sided second derivatives along $v$ and $-v$ differ, so the loss is not
# twice differentiable at $0$.
#
# :::{admonition} Details: the one-sided derivatives with ReLU at mid
# :class: dropdown
#
# With one unit, ReLU at the mid position and $w = tv$ with $t > 0$, the
# network computes $x + t^2\,V_2\,\mathrm{relu}(V_1x)$ exactly. So $\mathcal L(tv)$ is a polynomial in $t$,
# and its one-sided second derivative is
#
# $$
# D^2_+(v) = -\frac2m\sum_\mu (y-x)^\top V_2\,\mathrm{relu}(V_1 x).
# $$
#
# If $\mathcal L$ were twice differentiable at $0$ we would have $D^2_+(v) = v^\top Hv = D^2_+(-v)$. But
# $D^2_+(v) - D^2_+(-v) = -\frac2m\sum(y-x)^\top V_2\,|V_1x|$, which is not zero.
# :::
#
# :::{admonition} Details: ReLU at post
# :class: dropdown
#
# With ReLU at post
# the restriction is even in $t$, but $v\mapsto D^2_+(v)$ is no quadratic form: it breaks the
# parallelogram law. For $n = 1$ with ReLU at post, $\mathcal L$ is not even differentiable:
# $D^1_+(v) + D^1_+(-v) = -\frac1m\sum (y-x)^\top|Vs| \ne 0$.
# :::
#
# :::{admonition} How the ReLU checks work
# :class: dropdown
#
# The checks below compute the
# one-sided derivatives exactly, by fitting the polynomial restriction, and report the fit
# residual to show that the restriction is indeed a polynomial. They also show that autograd's
# "Hessian at 0" changes with the convention chosen for $\mathrm{relu}'(0)$. So the closed forms
# agree with autograd for ReLU only because both use the same convention.
# :::

# %% tags=["hide-input"]
for res in (
    t1.relu_kink_check(small, "mid"),
    t1.relu_kink_check(small, "post"),
    t1.relu_first_order_check(small),
):
    assert res.passed, str(res)
    display(res)

# %% [markdown]
# A smooth activation gives no such gap (tanh in the Part 2 table). ReLU at the *pre* position is
# harmless: $\sigma_{pre}$ acts on the data, whose coordinates are never exactly $0$.

# %% [markdown]
# ### What this means for the ReLU networks of the experiments
#
# The paper's abstract says its results hold "with or without nonlinearities". Figures 3 (right) and
# 10 (see {doc}`the dynamics chapter <exp_dynamics>`) use 2-shortcut networks with ReLU at mid, started
# at the zero point plus {eval}`small_scale` times Xavier. There hidden unit $j$ of unit $r$ passes the
# input only where $(W_{r,1}x)_j > 0$, so the cross block of the Hessian is Eq. 19 with a mask. The
# cell computes the exact Hessian of the depth-16 network at that start.
#
# :::{admonition} Details: the masked Eq. 19
# :class: dropdown
#
# The masked cross block is block diagonal over $j$ with blocks
# $M^{(j)}_r = \frac1m\sum_\mu [(W_{r,1}x^\mu)_j > 0]\,(x^\mu - y^\mu)\,x^{\mu\top}$. Each sees about
# half of the samples, but which half depends on $W_{r,1}$, so its largest singular value is neither
# $\sigma_{\max}(M)$ ($\mathrm{relu}'(0) = 1$) nor $\sigma_{\max}(M)/2$ ($\mathrm{relu}'(0) = 1/2$).
# :::

# %% tags=["hide-input"]
f_growth0 = facts.relu_lambda_facts()
display(f_growth0.relu_start)
display(f_growth0.relu_half)

# %% tags=["hide-input"]
f_growth1 = facts.relu_shape_facts()
display(f_growth1.relu_shape)
display(f_growth1.relu_scaled)

# %% [markdown]
# At the starting point $\lambda_{\max} =$ {eval}`f_growth0.lam_relu`, while Theorem 1 gives {eval}`f_growth0.lam_c1`
# under $\mathrm{relu}'(0) = 1$ and {eval}`f_growth0.lam_half` under $\mathrm{relu}'(0) = 1/2$. The masked Eq. 19
# predicts {eval}`f_growth0.lam_masked`, the largest singular value over the hidden units' masked blocks, to
# within the distance ({eval}`f_growth0.lam_drift`) that the same start moves a linear network away from
# Theorem 1: the gap is the kink, not the distance from $0$. Some convention
# $\mathrm{relu}'(0) = c$ would match $\lambda_{\max}$, but not the shape: the scale-free
# $\mathrm{cond}_{10}$ is {eval}`f_growth1.shape_exact` (the masked Eq. 19's), against {eval}`f_growth1.shape_theorem1` for
# $c\cdot(\pm\sigma_k(M))$ whatever $c$ (last box, the ledger's falsifier).
#
# **Does depth invariance survive?** The cell computes the spectrum at the start for depths 2 to 96 and ten seeds, in the paper's
# $\mathrm{cond}_{10}$ and in Eq. 12's $|\lambda|_{\max}/|\lambda|_{\min}$.
#
# :::{admonition} Why the extremes drift while the distribution settles
# :class: dropdown
#
# Up to $O(\varepsilon^2)$ the Hessian's eigenvalues at the start are
# plus and minus the singular values of the $Rd$ masked blocks $M^{(j)}_r$, and every unit draws its
# masks independently. The paper chose $\mathrm{cond}_{10}$ because "the $|\lambda|_{\min}$ of Hessian is usually very unstable"
# (its Appendix B).
#
# The blocks $M^{(j)}_r$ of one network are independent draws from one distribution, and networks of
# different depths are drawn independently too (nothing is nested: a deeper network does not
# contain a shallower one). As units are added, the empirical distribution of $|\lambda|$ therefore
# converges, while its extremes, the largest and smallest of more draws, drift slowly outward. The
# largest is bounded (by the largest $\sigma_{\max}$ over all half-space masks), so its drift slows
# down; the smallest can keep approaching $0$. Before the depth table, the first box checks the
# masked spectrum once against the exact Hessian, at depth 4.
# :::

# %% tags=["hide-input"]
relu_spot = t1.relu_spectrum_spot_check(depth=4, n_per_class=None)
assert relu_spot.passed
display(relu_spot)
relu_depths, relu_seeds = t1.RELU_DEPTHS, t1.RELU_SEEDS  # the ledger uses the same
relu_depth = t1.relu_depth_check(relu_depths, relu_seeds)
assert relu_depth.passed
display(relu_depth)
# the ledger's falsifier: the same flatness comparison in Eq. 12's statistic, max/min
relu_eq12 = t1.relu_depth_check(
    relu_depths, relu_seeds, statistic="cond", rows=relu_depth.values["rows"]
)
assert relu_eq12.rejected_on_value and relu_eq12.parts[0].rejected_on_value
display(relu_eq12)
relu_rows = pd.DataFrame(relu_depth.values["rows"])
relu_by_depth = relu_rows.groupby("depth")[["cond", "cond10", "p10"]].agg(["mean", "min", "max"])
shown = [("cond", "mean"), ("p10", "mean")] + [("cond10", s) for s in ("mean", "min", "max")]
display(relu_by_depth[shown].round(3))
relu_spot_exact = show.num(relu_spot.values["cond_exact"], 3)
relu_spot_masked = show.num(relu_spot.values["cond_masked"], 3)

# %% tags=["remove-input"]
f_relu = facts.relu_facts(relu_by_depth, relu_depth, relu_eq12, relu_rows)

# %% [markdown]
# :::{admonition} The Figure 7 table and the exact Hessian
# :class: dropdown
#
# The book's Figure 7 reproduction, read as ReLU networks (depth 16, seed 0), has
# $\lambda_{\max} =$ {eval}`f_growth0.lam_fig7` at epoch 0. At depth 4 the exact Hessian's $|\lambda|_{\max}/|\lambda|_{\min}$ is
# {eval}`relu_spot_exact` and the masked Eq. 19 gives {eval}`relu_spot_masked`; both ends of the
# spectrum agree within the linear drift (first box above).
# :::
#
# In the paper's statistic the ReLU start is nearly flat in depth: its mean $\mathrm{cond}_{10}$ creeps
# up by {eval}`f_relu.relu_creep` from depth 2 to 96, steadily. Over seeds 0 to 9 and depths 2 to 96,
# the mean $\lg\mathrm{cond}_{10}$ varies by {eval}`f_relu.relu_flat_range`, below the criterion
# {eval}`f_relu.relu_flat_tol` by which the book calls the paper's Figure 5 flat for linear networks; the
# check is {eval}`f_relu.relu_flat_fragile` the single-run spread {eval}`f_relu.relu_flat_spread` (the largest standard
# deviation of $\lg\mathrm{cond}_{10}$ over the 10 seeds at one depth; second box). The value does not survive:
# $\mathrm{cond}_{10}$ is {eval}`f_relu.relu_ratio_lo` to {eval}`f_relu.relu_ratio_hi` times Theorem 1's {eval}`f_relu.relu_lin10`.
#
# :::{admonition} Details: the creep of the mean, and Eq. 12's statistic (the falsifier)
# :class: dropdown
#
# The mean
# creeps up, from {eval}`f_relu.relu_c10_2` at depth 2 to {eval}`f_relu.relu_c10_96` at depth 96, because its
# numerator is an extreme; the 10th percentile stays between
# {eval}`f_relu.relu_p10_lo` and {eval}`f_relu.relu_p10_hi` at every depth and seed.
#
# Eq. 12's $|\lambda|_{\max}/|\lambda|_{\min}$ fails the same flatness comparison
# (third box, the ledger's falsifier): its mean grows from {eval}`f_relu.relu_mm_2` to {eval}`f_relu.relu_mm_96`,
# because the smallest of more masked singular values keeps shrinking. It exceeds the criterion by
# {eval}`f_relu.relu_mm_excess`, against its single-run spread over seeds of {eval}`f_relu.relu_mm_spread` (the same
# yardstick, not the standard error of a difference of means): {eval}`f_relu.relu_mm_fragile`.
# :::
#
# So at the experiments' start the ReLU Hessian is the masked Eq. 19, not Theorem 1: it keeps
# Theorem 1's form (nearly flat in depth) but not its value (about twice the linear
# $\mathrm{cond}_{10}$).
#
# ## Explore it yourself
#
# The widget below (it needs a live kernel) redraws the Hessian at zero and its spectrum for a
# choice of $n$, the number of units $R$, the width $d$ and an activation at one position.

# %% tags=["hide-input", "nbval-ignore-output"]
explorer = hessian_explorer(mnist=small)

# %% tags=["remove-input"]
same_tanh = t1.same_picture(ShortcutNetwork(10, 2, 2), ShortcutNetwork(10, 2, 2, mid="tanh"), small)
same_silu = t1.same_picture(ShortcutNetwork(10, 2, 2), ShortcutNetwork(10, 2, 2, mid="silu"), small)
assert same_tanh < 1e-12 < same_silu
same_tanh, same_silu = show.num(same_tanh), show.num(same_silu)

# %% [markdown]
# :::{admonition} Why some settings draw the same picture
# :class: dropdown
#
# Some settings draw the same picture, and that is the theorem, not a broken widget. At $w = 0$ the
# Hessian of a 2-shortcut network depends on $\sigma_{mid}$ and $\sigma_{post}$ only through
# $\sigma'_{mid}(0)\sigma'_{post}(0)$ (Eq. 12), and $\tanh'(0) = 1$: with tanh at mid the largest
# difference from the linear Hessian is {eval}`same_tanh`. SiLU, with slope $1/2$ at $0$, halves the
# picture (largest difference {eval}`same_silu`). At the pre position an activation changes the data
# $s = \sigma_{pre}(x)$ and therefore the picture.
# :::

# %% [markdown]
# Without a kernel, the slider below steps through $R = 1, \dots, 5$ for a 2-shortcut network: the
# spectrum keeps its levels, only their multiplicities grow. The figure after it shows the key
# figure's heat maps on MNIST.

# %% tags=["remove-input"]
display(HTML(depth_animation(2, [1, 2, 3, 4, 5], small)))

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 3, figsize=(12, 4))
for ax, n in zip(axes, (1, 2, 3)):
    net = ShortcutNetwork(10, n, 3)
    plot_hessian(
        hessian_linear(net, torch.zeros(net.shape, dtype=torch.float64), stats),
        net,
        ax,
        title=f"n = {n}, R = 3" + (" (all zero)" if n == 3 else ""),
    )
plt.tight_layout()
plt.show()


# %% [markdown]
# <div data-live="theorem1-hessian">
#
# ![The live explorer at its default setting: a 2-shortcut network of three units on the synthetic data](live/theorem1-hessian.png)
#
# </div>
#
# **Live: the Hessian at zero, computed in your browser.** Choose $n$, the number of units $R$ and
# the data (for the synthetic set, its input correlation $\rho$). For $n = 2$ the units decouple and
# $\mathrm{cond}_{10}$ stays flat in depth; for $n = 1$ every unit couples to every other and it
# grows; for $n = 3$ the Hessian vanishes.

# %% [markdown]
# ## Exercises
#
# Each exercise and its solution open with a click.
#
# ```{exercise} Singular values of $A$ without $P$
# :label: ex-t1-singular
# :class: dropdown
#
# Show without the permutation $P$ that the singular values of $A$ in Eq. 11 are those of $M$,
# each repeated $d$ times. *Hint:* identify $u\in\mathbb R^{d^2}$ with a $d\times d$ matrix $U$
# (column-major, as {prf:ref}`Definition 5 of Li et al. <def-li-5>`) and write $Au$ as a matrix.
# ```
#
# ```{solution} ex-t1-singular
# :class: dropdown
#
# Write $(Au)_{(j_1,i_1)} = \sum_{j_2,i_2}\delta_{j_1i_2}M_{i_1j_2}U_{i_2j_2} = \sum_{j_2}M_{i_1j_2}U_{j_1j_2} = (MU^\top)_{i_1j_1}$.
# So $A$ acts as $T(U) = MU^\top$. Under the Frobenius inner product its adjoint is
# $T^*(Z) = Z^\top M$, and $T^*T(U) = (MU^\top)^\top M = U\,M^\top M$. Multiplying every row of
# $U$ by $M^\top M$ has the eigenvalues of $M^\top M$, each $d$ times (once per row). So the
# singular values of $A$ are $\sigma_k(M)$ with multiplicity $d$.
#
# % check hints ex-t1-singular (written by scripts/exercise_cells.py from resnet_nb.book.exercises)
# **In the notebook** the answer cell under this exercise has a check. Besides a wrong shape, sign, factor of two or transpose, it recognises these mistakes and answers:
#
# - Follow the Kronecker delta: it ties the index of u's row to the result's column.
# - M acts from the left: the result's row index is M's row index.
# - Only U is transposed, not M.
# % end check hints
# ```
#
# ```{exercise} The Rayleigh bound for $n = 1$
# :label: ex-t1-growth
# :class: dropdown
#
# This exercise is the first step of {prf:ref}`Proposition (1-shortcut growth) <prop-one-shortcut-growth>`. For a linear 1-shortcut network on whitened data ($\Sigma_{XX} = I$), show that
# $\lambda_{\max}(H) \ge 1 + (R-1)\big(1 + \bar c\big)$ with
# $\bar c = \max_{\|z\|=1} z^\top C z$ and $C = \operatorname{diag}(I-\Sigma_{YX},\dots)P^\top$.
# Then check the bound numerically for a few values of $R$.
# ```
#
# ````{solution} ex-t1-growth
# :class: dropdown
#
# Here $B = I$ and $A = I + C$ (Eqs. 25 and 28). Take the test vector $(z, \dots, z)/\sqrt R$ with
# $\|z\| = 1$. Its Rayleigh quotient is
# $\frac1R\big(R\,z^\top Bz + \binom R2 z^\top(A + A^\top)z\big) = 1 + (R-1)(1 + z^\top Cz)$,
# because $z^\top A^\top z = z^\top A z$. Maximising over $z$ gives the bound, which grows
# linearly in $R$ when $1+\bar c > 0$. Numerically:
#
# ```python
# s = mnist.stats()
# C = t1.eq28_A(s.Sxx, s.Syx) - t1.eq25_B(s.Sxx)
# cbar = float(torch.linalg.eigvalsh((C + C.T) / 2).max())
# for R in (1, 4, 16):
#     lam = t1.depth_table(1, [R], s, progress=False)[0]["lam_max"]
#     print(R, lam, ">=", 1 + (R - 1) * (1 + cbar))
# ```
#
# % check hints ex-t1-growth (written by scripts/exercise_cells.py from resnet_nb.book.exercises)
# **In the notebook** the answer cell under this exercise has a check. Besides a wrong shape, sign, factor of two or transpose, it recognises these mistakes and answers:
#
# - C is not symmetric: z^T C z only sees the symmetric part (C + C^T) / 2.
# - The largest singular value bounds z^T C z from above but is not its maximum.
# % end check hints
# ````
#
# ```{exercise} A third-order partial
# :label: ex-t1-order3
# :class: dropdown
#
# Take a linear 3-shortcut network with $R = 2$. Use `t1.mixed_partial` to compute a third-order
# mixed partial at $0$ for a chain $w^{1,3}_{a,b}\,w^{1,2}_{b,c}\,w^{1,1}_{c,e}$ and for the same
# tuple with $w^{1,3}$ moved to unit 2. Which one is zero, and why, according to
# {prf:ref}`Lemma 1 of Li et al. <lem-li-1>`?
# ```
#
# ````{solution} ex-t1-order3
# :class: dropdown
#
# ```python
# from resnet_nb.core.hessians import loss_function
# net = ShortcutNetwork(10, 3, 2)
# f = loss_function(net, stats)
# w0 = torch.zeros(net.num_params, dtype=torch.float64)
# chain = [t1.param_index(net, 0, 2, 4, 1), t1.param_index(net, 0, 1, 1, 2), t1.param_index(net, 0, 0, 2, 7)]
# moved = [t1.param_index(net, 1, 2, 4, 1)] + chain[1:]
# print(t1.mixed_partial(f, w0, chain), t1.order_n_closed_form(net, stats, chain))
# print(t1.mixed_partial(f, w0, moved))
# ```
#
# The chain covers unit 1, and its value is $(\Sigma_{XX}-\Sigma_{YX})_{4,7}$ (zero-based indices),
# which is nonzero. The moved tuple covers no unit: unit 1 lacks its third matrix, and unit 2
# has only that one. Lemma 1 forces the value to be $0$.
#
# % check hints ex-t1-order3 (written by scripts/exercise_cells.py from resnet_nb.book.exercises)
# **In the notebook** the answer cell under this exercise has a check. Besides a wrong shape, sign, factor of two or transpose, it recognises these mistakes and answers:
#
# - The indices of (Sxx - Syx) are swapped: follow the chain from the last index.
# - Lemma 1: a nonzero partial at 0 needs the tuple to cover a whole unit.
# % end check hints
# ````
#
# ```{exercise} A sigmoid at post
# :label: ex-t1-sigmoid
# :class: dropdown
#
# Lemma 1 needs $\sigma_{mid}(0) = 0$ and Lemma 2 needs $\sigma_{post}(0) = 0$. Compute the
# Hessian at $0$ of a 2-shortcut network with $R = 2$ and $\sigma_{post} =$ sigmoid on `small`,
# and explain which blocks of Eq. 11 survive and which repetition breaks.
# ```
#
# ````{solution} ex-t1-sigmoid
# :class: dropdown
#
# ```python
# from resnet_nb.core.hessians import hessian
# net = ShortcutNetwork(10, 2, 2, post=t1.shifted_sigmoid())
# H = hessian(net, torch.zeros(net.shape, dtype=torch.float64), small)
# q = 100
# blocks = lambda a, b: H[a*q:(a+1)*q, b*q:(b+1)*q]
# print("unit-coupling blocks:", float(H[:200, 200:].abs().max()))
# print("same-matrix blocks:", float(blocks(0, 0).abs().max()), float(blocks(1, 1).abs().max()))
# print("A in unit 1 vs unit 2:", float((blocks(1, 0) - blocks(3, 2)).abs().max()))
# ```
#
# Lemma 1 still holds, so the zero pattern of Eq. 11 survives: there are no couplings between
# units and no same-matrix blocks. Each idle unit now adds $\tfrac12\mathbf 1$, so unit 2 sees
# $x + \tfrac12\mathbf 1$ as input while unit 1 sees $x$, and the residual $y - F(x)$ includes
# both shifts. The two units' blocks $A$ differ, and Lemma 2's translation invariance is lost.
#
# % check hints ex-t1-sigmoid (written by scripts/exercise_cells.py from resnet_nb.book.exercises)
# **In the notebook** the answer cell under this exercise has a check. Besides a wrong shape, sign, factor of two or transpose, it recognises these mistakes and answers:
#
# - Lemma 1 needs only sigma_mid(0) = 0, which still holds: which partials can survive?
# - A second derivative in one matrix alone covers no unit of two matrices.
# - sigma_post(0) = 1/2: an idle unit adds a constant, so the second unit sees another input.
# % end check hints
# ````
#
# ```{exercise} Escaping the saddle
# :label: ex-t1-saddle
# :class: dropdown
#
# Starting at $w = \epsilon v$, with $v$ the eigenvector of $\lambda_{\min}$ of a 2-shortcut
# Hessian, run a few steps of gradient descent (`resnet_nb.gradient_descent`) and compare the
# loss decrease with the prediction $\tfrac12\lambda_{\min}\epsilon^2$ of the quadratic model.
# Why can gradient descent not start from exactly $w = 0$?
# ```
#
# ````{solution} ex-t1-saddle
# :class: dropdown
#
# At $w = 0$ the gradient is exactly zero (Part 1), so gradient descent never moves. That is why
# the paper perturbs the zero start by {eval}`small_scale` times Xavier. From $\epsilon v$ the gradient is
# $\epsilon\lambda_{\min}v + O(\epsilon^2)$, so each step multiplies the component along $v$ by
# $1 - \alpha\lambda_{\min} > 1$, and the iterate escapes at a geometric rate:
#
# ```python
# from resnet_nb import gradient_descent, loss, unflatten
# lam, eps, lr = part2_linear.values["lam_min"], 1e-3, 0.5
# v = torch.linalg.eigh(part2_linear.values["H"]).eigenvectors[:, 0]
# run = gradient_descent(net4, unflatten(eps * v, net4), stats, lr=lr, epochs=6)
# L0 = float(loss(net4, torch.zeros(net4.shape, dtype=torch.float64), stats))
# for t in range(7):
#     print(t, run.losses[t] - L0, 0.5 * lam * (eps * (1 - lr * lam) ** t) ** 2)
# ```
#
# The two columns agree while the iterate is still small, and both grow by the factor
# $(1 - \alpha\lambda_{\min})^2$ per step.
#
# % check hints ex-t1-saddle (written by scripts/exercise_cells.py from resnet_nb.book.exercises)
# **In the notebook** the answer cell under this exercise has a check. Besides a wrong shape, sign, factor of two or transpose, it recognises these mistakes and answers:
#
# - The loss is quadratic in the distance: square the whole factor, growth included.
# - A step subtracts lr times the gradient lam_min x: the factor is 1 - lr lam_min.
# % end check hints
# ````

# %% exercise="ex-t1-singular" tags=["exercise-answer", "remove-cell"]
# Your answer to ex-t1-singular: "Show without the permutation P that the ..."
# replace every ... below, run this cell, then the check under it.
def A_times(M, U):
    """A u of Eq. 11 written as a d x d matrix (u = vec(U), column-major), for numpy M and U."""
    ...


# %% exercise="ex-t1-singular" tags=["exercise-check", "remove-cell"]
from resnet_nb.book import exercises

exercises.check("ex-t1-singular", A_times)

# %% exercise="ex-t1-growth" tags=["exercise-answer", "remove-cell"]
# Your answer to ex-t1-growth: "This exercise is the first step of ..."
# replace every ... below, run this cell, then the check under it.
cbar = ...  # max over unit z of z^T C z, on the whitened MNIST statistics `stats` of this chapter

# %% exercise="ex-t1-growth" tags=["exercise-check", "remove-cell"]
from resnet_nb.book import exercises

exercises.check("ex-t1-growth", cbar)

# %% exercise="ex-t1-order3" tags=["exercise-answer", "remove-cell"]
# Your answer to ex-t1-order3: "Take a linear 3-shortcut network with R ..."
# replace every ... below, run this cell, then the check under it.
value = ...  # the third-order partial of the chain at 0 (on `stats`)
zero = ...  # which one is zero: "chain" or "moved"

# %% exercise="ex-t1-order3" tags=["exercise-check", "remove-cell"]
from resnet_nb.book import exercises

exercises.check("ex-t1-order3", value, zero)

# %% exercise="ex-t1-sigmoid" tags=["exercise-answer", "remove-cell"]
# Your answer to ex-t1-sigmoid: "Lemma 1 needs sigma_mid(0) = 0 and ..."
# replace every ... below, run this cell, then the check under it.
# True or False, for the Hessian at 0 with a sigmoid at post:
couplings_vanish = ...  # the blocks coupling the two units are zero
same_matrix_vanish = ...  # the blocks of a matrix with itself are zero
units_equal = ...  # the off-diagonal block A of unit 1 equals that of unit 2

# %% exercise="ex-t1-sigmoid" tags=["exercise-check", "remove-cell"]
from resnet_nb.book import exercises

exercises.check("ex-t1-sigmoid", couplings_vanish, same_matrix_vanish, units_equal)


# %% exercise="ex-t1-saddle" tags=["exercise-answer", "remove-cell"]
# Your answer to ex-t1-saddle: "Starting at w = epsilon v, with v the ..."
# replace every ... below, run this cell, then the check under it.
def predicted(lam, eps, lr, t):
    """The quadratic model's loss change after t steps from eps v (v: eigenvector of lam < 0)."""
    ...


# %% exercise="ex-t1-saddle" tags=["exercise-check", "remove-cell"]
from resnet_nb.book import exercises

exercises.check("ex-t1-saddle", predicted)
