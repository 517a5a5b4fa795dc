# %% [markdown]
# # The argument in ten minutes
#
# Deep networks train more easily when every layer adds a small correction to an identity
# shortcut. Two papers from 2016 explain why. Hardt and Ma show that, given enough layers, a deep
# linear residual network writes any matrix of positive determinant with small layers and has no
# bad critical points near the identity, and that residual ReLU networks can fit any $n$ labelled
# points. Li, Jiao, Han and Weissman show that shortcuts skipping two layers give the loss, at the
# zero start, a curvature whose condition number does not depend on depth. Five figures from this
# book's runs tell both stories; the last section lists what the book corrects.

# %% tags=["remove-input"]
# %matplotlib inline
try:
    import resnet_nb  # noqa: F401
except ImportError:  # e.g. on Colab
    # %pip install -q git+https://github.com/resnet-nb/resnet-book
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display

import resnet_nb as rn
from resnet_nb.book import tour_figures
from resnet_nb.book.facts import tour as facts
from resnet_nb.book.li_figures import plot_hessian
from resnet_nb.book.plotting import style
from resnet_nb.core import hessians
from resnet_nb.experiments import fig5, fig9, fig10
from resnet_nb.hardt_ma import relu as hmr
from resnet_nb.shared import common

style()
data = common.mnist()  # 5,000 whitened MNIST digits, d = 10 (Appendix B of Li et al.)
Lmin = rn.optimum(data)[1]  # the least-squares loss every linear network can reach

# %% tags=["remove-input"]
f_key = facts.key_figure_facts(data)
tour_figures.key_figure(f_key)
plt.show()

# %% [markdown]
# **Figure 1.** *Left:* a random $4 \times 4$ matrix $R$ with $\det R > 0$ and $\gamma =$
# {eval}`f_key.gamma_s` (how far its singular values are from 1, on a log scale) is written as
# $(I + A_\ell)\cdots(I + A_1)$ with every $\lVert A_i\rVert$ shrinking like $1/\ell$, within Hardt
# and Ma's bound (stated for $\ell \ge 3\gamma$); flip one column ($\det R < 0$) and no product of layers of
# norm below 1 reaches it. *Right:* the condition number of the Hessian of the loss at $w = 0$ (all weights zero) on
# whitened MNIST,
# $\mathrm{cond}_{10} = |\lambda|_{\max}/|\lambda|_{(10\%)}$ (over the 10th percentile of
# the eigenvalue moduli): the same at every depth for 2-shortcut networks, growing for
# 1-shortcut ones. Chapters: {doc}`Hardt & Ma, linear <hardt_ma_linear>`, {doc}`Theorem 1 <theorem1>`.
# Evidence: <a href="claims.html#claim-hm-thm21-bound" title="hm-thm21-bound">1</a>, <a href="claims.html#claim-hm-thm21-det" title="hm-thm21-det">2</a>, <a href="claims.html#claim-li-thm1-depth-invariant" title="li-thm1-depth-invariant">3</a>.

# %% [markdown]
# ## The setting
#
# A *plain* linear network multiplies its input by $L$ matrices, $W_L \cdots W_1 x$. A *residual*
# one adds the identity to each, $(I + A_\ell)\cdots(I + A_1)x$. Li et al. group matrices into
# units: an $n$-*shortcut network* has units $h \mapsto h + W_{r,n}\cdots W_{r,1}h$, so the depth is
# $L = nR$ for $R$ units. At $w = 0$ (all weights zero) a residual network is the identity. The
# loss is the squared error on samples $(X, Y)$; its smallest value over all linear maps is $\mathcal L_{\min}$. In Hardt & Ma's
# sections $R$ is a target matrix, $n$ a number of points.

# %% [markdown]
# ## Hardt & Ma 1: any matrix of positive determinant, with small layers
#
# Theorem 2.1 of {cite}`hardt2016identity`: if $\det R > 0$ and $\ell \ge 3\gamma$, then $R$ is a
# product of $\ell$ factors $I + A_i$ with $\max_i \lVert A_i\rVert \le 2(\sqrt\pi + \sqrt{3\gamma})^2/\ell$,
# where $\gamma = \max(|\log\sigma_{\max}(R)|, |\log\sigma_{\min}(R)|)$.
# In Figure 1 the book's construction reaches at most
# {eval}`f_key.built_ratio` of the bound ($\ell$ = {eval}`f_key.ell_lo` to {eval}`f_key.ell_hi`).
#
# Both hypotheses are needed. For $R = e^{10}$ ($1 \times 1$, $\gamma = 10$) and $\ell = 2 < 3\gamma$ the
# best factors are $A_i = e^5 - 1 =$ {eval}`f_key.few_opt_s`, above the bound's {eval}`f_key.few_bound_s`.
# The ICLR 2017 text omits $\det R > 0$ ({doc}`versions <hardt_ma_linear>`), but layers with $\lVert A_i\rVert < 1$ have
# $\det(I + A_i) > 0$: a reflection needs a layer of norm at least 1.

# %% [markdown]
# ## Hardt & Ma 2: no bad critical points near the identity
#
# With inputs $x$ of covariance $\Sigma$ and targets $y = Rx + \xi$ (noise $\xi$), the risk
# $f(A) = \mathbb E\lVert (I + A_\ell)\cdots(I + A_1)x - y\rVert^2$ is not convex, yet
# (Theorem 2.2) for any $\tau < 1$ every critical point with all $\lVert A_i\rVert \le \tau$ is a
# global minimum. The hypothesis $\tau < 1$ is needed: at
# $A_1 = A_2 = -I$ the gradient vanishes and the risk is not minimal. Chapter:
# {doc}`Hardt & Ma, linear <hardt_ma_linear>`. Evidence: <a href="claims.html#claim-hm-thm22" title="hm-thm22">1</a>, <a href="claims.html#claim-hm-eq23" title="hm-eq23">2</a>.

# %% tags=["hide-input"]
g = np.random.default_rng(0)
n_pts, r_lab = 40, 3
X = hmr.unit_norm_columns(g.standard_normal((2, n_pts)))
labels = g.integers(0, r_lab, n_pts)
net, report = hmr.theorem32_construction(X, labels, k=2, r=r_lab, seed=0)
fit_err = np.abs(net(X) - np.eye(r_lab)[:, labels]).max()
assert fit_err < 1e-6  # every label fitted
tour_figures.construction_steps(X, labels, net.trajectory(X), r_lab)
plt.show()
f_fig2 = facts.construction_facts(net, report, fit_err, n_pts, r_lab)

# %% [markdown]
# **Figure 2.** {eval}`f_fig2.n_s` points with {eval}`f_fig2.r_s` labels (colours) as a residual ReLU network of
# width 2 moves them: each block moves at most two points to a position that encodes their label
# and leaves every other point exactly where it is. After {eval}`f_fig2.blocks_s` blocks
# ({eval}`f_fig2.params_s` trainable parameters) a last ReLU block maps every point to its label, up to
# {eval}`f_fig2.fit_s`. Chapter: {doc}`Hardt & Ma, expressivity <hardt_ma_expressivity>`. Evidence: <a href="claims.html#claim-hm-constant-width" title="hm-constant-width">1</a>, <a href="claims.html#claim-hm-thm32" title="hm-thm32">2</a>, <a href="claims.html#claim-hm-lemma-b1" title="hm-lemma-b1">3</a>.
#

# %% [markdown]
# ## Hardt & Ma 3: fitting any $n$ points
#
# Theorem 3.2: if $n$ unit-norm inputs are separated, $\lVert x_i - x_j\rVert^2 \ge \rho$
# (Assumption 3.1), a residual network with ReLU blocks $h \mapsto h + V\,\mathrm{ReLU}(Uh + b)$ and
# $O(n\log n + r^2)$ parameters gives each input any of $r$ labels. The proof projects the data
# to width $k = c\log n/\rho^2$, then each block moves $k$ points in a given order. At the paper's $c = 10$ the projection breaks the proof's
# $1 \pm \rho/3$ tolerance on all {eval}`f_fig2.jl_draws` random draws; the theorem still holds, with another
# order of moves ({ref}`tour-corrects`).
#

# %% tags=["hide-input"]
hess = {n: hessians.hessian_at_zero(rn.ShortcutNetwork(10, n, 2), data) for n in (1, 2, 3)}
fig, axes = plt.subplots(1, 2, figsize=(10, 5))  # n = 3 is all zero (asserted below)
for ax, n in zip(axes, (1, 2)):
    plot_hessian(hess[n], rn.ShortcutNetwork(10, n, 2), ax=ax, title=f"n = {n}, R = 2 units")
plt.tight_layout()
plt.show()
assert hess[3].abs().max() == 0 and hess[2].abs().max() > 0

# %% [markdown]
# **Figure 3.** The Hessian of the loss at $w = 0$ for 1-, 2- and 3-shortcut linear networks with
# two units on whitened MNIST ($d = 10$; lines separate matrices, thick lines units). $n = 1$: a
# block Toeplitz matrix;
# $n = 2$: one off-diagonal block pair per unit, with eigenvalues $\pm\sigma_k(M)$,
# $M = \Sigma_{XX} - \Sigma_{YX}$ ($XX^\top/m$ and $YX^\top/m$ over $m$ samples); $n = 3$ (not drawn): every entry is zero. Chapter:
# {doc}`Theorem 1 <theorem1>`. Evidence: <a href="claims.html#claim-li-thm1-closed-forms" title="li-thm1-closed-forms">1</a>, <a href="claims.html#claim-li-thm1-part2-spectrum" title="li-thm1-part2-spectrum">2</a>, <a href="claims.html#claim-li-thm1-eq12-cond" title="li-thm1-eq12-cond">3</a>.
#

# %% [markdown]
# ## Li et al. 1: the Hessian at zero
#
# Theorem 1 of {cite}`li2016demystifying` describes the loss near $w = 0$ when the
# activations have the derivatives it needs at 0 (not ReLU's).
# With $n = 2$ the Hessian's eigenvalues are $\pm\sigma_k(M)$, whatever the depth, so Theorem 1's
# condition number $|\lambda|_{\max}/|\lambda|_{\min} = \sigma_{\max}(M)/\sigma_{\min}(M)$ is
# {eval}`f_key.cond2_exact` at every depth, and the experiments' $\mathrm{cond}_{10}$ stays at
# {eval}`f_key.cond2` from depth 2 to {eval}`f_key.depth2_hi` in Figure 1. With $n = 1$ $\mathrm{cond}_{10}$
# grows, from {eval}`f_key.cond1_lo` at depth 1 to {eval}`f_key.cond1_hi` at depth {eval}`f_key.depth1_hi`. With
# $n \ge 3$ every derivative below order $n$ vanishes: a flat saddle.

# %% tags=["hide-input"]
T5 = common.committed("fig5")
s5 = fig5.summarise(T5)
tour_figures.figure5(s5, common.ARCHS)
plt.show()
f_fig5 = facts.fig5_facts(T5, s5)

# %% [markdown]
# **Figure 4** (Li et al.'s Figure 5, from the book's stored run: {eval}`f_fig5.runs5` runs per depth,
# mean and standard deviation of the lg). At the small start, Xavier's weights times {eval}`f_fig5.small`,
# the 2-shortcut networks' $\mathrm{cond}_{10}$ stays flat (range {eval}`f_fig5.two_range` in lg over
# depths 2 to {eval}`f_fig5.depth_max`); the 1-shortcut and orthogonal plain networks' grows by about
# {eval}`f_fig5.one_growth` and {eval}`f_fig5.ortho_growth` in lg; Xavier's leaves float64's resolution from
# depth {eval}`f_fig5.xav_lost` (triangles: lower bounds). The 3-shortcut curve, not in the paper, is
# nearly flat too (range {eval}`f_fig5.three_range`), at a curvature about {eval}`f_fig5.three_scale` times
# smaller, proportional to the start: $\mathrm{cond}_{10}$, a ratio, misses the flatness Theorem 1
# predicts for $n \ge 3$. Chapter:
# {doc}`The initial point <exp_initial_point>`.
# Evidence: <a href="claims.html#claim-li-fig5-flat-to-depth-96" title="li-fig5-flat-to-depth-96">1</a>, <a href="claims.html#claim-li-fig5-one-shortcut-like-plain" title="li-fig5-one-shortcut-like-plain">2</a>.

# %% tags=["hide-input"]
T9, T10 = common.committed("fig9"), fig10.committed()
s9, s10 = fig9.summarise(T9, loss_opt=Lmin), fig10.summarise(T10)
tour_figures.final_losses(s9, s10, common.ARCHS, fig10.PAPER_ARCHS)
plt.show()
f_final_losses = facts.final_losses_facts(T10, T9, s10, s9)

# %% [markdown]
# **Figure 5** (Li et al.'s Figures 9 and 10, from the book's stored runs: the best final loss
# over a grid of learning rates, {eval}`f_final_losses.epochs9` epochs, {eval}`f_final_losses.runs9` runs per rate on the left,
# {eval}`f_final_losses.runs10` on the right). *Left:* the 2-shortcut linear networks end closest to
# $\mathcal L_{\min}$ at every even depth from 2 to {eval}`f_final_losses.d9_max`, at some depths by less than the
# run-to-run spread; at depth
# {eval}`f_final_losses.d9_max` the next best is {eval}`f_final_losses.gap96` orders of magnitude farther. *Right:* with ReLUs,
# 2-shortcut networks reach the lowest loss from depth {eval}`f_final_losses.win_lo` to {eval}`f_final_losses.win_hi`, not at
# depths {eval}`f_final_losses.lose_a` and {eval}`f_final_losses.lose_b`; at depth {eval}`f_final_losses.d10_max` Xavier- and
# orthogonal-ReLU networks have no best rate.
# Chapter: {doc}`Learning <exp_learning>`. Evidence: <a href="claims.html#claim-li-fig9-near-optimal" title="li-fig9-near-optimal">1</a>, <a href="claims.html#claim-li-fig10-shortcut-lowest-relu" title="li-fig10-shortcut-lowest-relu">2</a>, <a href="claims.html#claim-li-fig10-deeper-shortcut-lower-loss" title="li-fig10-deeper-shortcut-lower-loss">3</a>, <a href="claims.html#claim-li-fig10-plain-relu-flat-at-64" title="li-fig10-plain-relu-flat-at-64">4</a>.

# %% [markdown]
# ## Li et al. 2: training
#
# Figure 5 is the payoff: plain Xavier networks (up to {eval}`f_final_losses.xavier_gap` above
# $\mathcal L_{\min}$) and 3-shortcut networks (up to {eval}`f_final_losses.three_gap`, on their plateau at depth 3)
# end far from the optimum, orthogonal and 1-shortcut ones within about {eval}`f_final_losses.near_gap`, 2-shortcut
# networks nearest; with ReLUs, 2-shortcut
# networks improve with depth.

# %% tags=["remove-input"]
from resnet_nb.book import ledger, tables

# the papers' figures, as the experiment chapters judge them (the ledger's verdicts)
display(tables.figure_verdicts(ledger.all_claims()))

# %% [markdown]
# (tour-corrects)=
# ## What the book corrects
#
# - Theorem 2.1 needs $\det R > 0$, which the ICLR 2017 text omits; the {doc}`chapter <hardt_ma_linear>` says which versions state it (<a href="claims.html#claim-hm-thm21-det">hm-thm21-det</a>).
# - Lemma 2.4 prints the transposed products in the wrong order, a slip the proof survives (<a href="claims.html#claim-hm-lemma24-order">hm-lemma24-order</a>).
# - Eq. (2.3) prints $4\ell(1-\tau)^{\ell-1}\sigma_{\min}(\Sigma)^2$; the bound that holds has $4\ell(1-\tau)^{2\ell-2}\sigma_{\min}(\Sigma)$, and Theorem 2.2 holds with it (<a href="claims.html#claim-hm-eq23">hm-eq23</a>, <a href="claims.html#claim-hm-thm22">hm-thm22</a>).
# - In Theorem 2.1's proof, $\lVert I - T(\phi)\rVert = 2|\sin(\phi/2)|$, not $|\sin\phi|$; the estimate survives (<a href="claims.html#claim-hm-thm21-rotation-step">hm-thm21-rotation-step</a>).
# - Lemma B.1 (one ReLU block moves $k$ chosen points and fixes the rest) asks for a separation (b) of $3\rho'$, readable as a distance or a squared distance. Its proof needs squared separation $6\rho'$: it fails either way. Its statement fails for distances only: a point inside the hull of four others meets the hypotheses, yet no block moving it with $k - 1$ others to arbitrary targets leaves those four in place (<a href="claims.html#claim-hm-lemma-b1">hm-lemma-b1</a>, <a href="claims.html#claim-hm-b2-meets-b1">hm-b2-meets-b1</a>).
# - Theorem 3.2's proof at $c = 10$: the projection fails on every draw; the paper's order then meets a point it cannot isolate on {eval}`f_fig2.ref_sq` draws ($\rho$ as in Assumption 3.1) or {eval}`f_fig2.ref_dist` (the proof's reading). A greedy order proves the theorem at constant width with $O(n + r^2)$ parameters (the book's count; the paper's is $O(n \log n + r^2)$) (<a href="claims.html#claim-hm-thm32">hm-thm32</a>, <a href="claims.html#claim-hm-constant-width">hm-constant-width</a>).
# - ReLU, which the paper lists as covered, leaves the loss not twice differentiable at zero (<a href="claims.html#claim-li-thm1-relu-hypothesis">li-thm1-relu-hypothesis</a>). At the small start the Hessian is Li et al.'s ReLU formula (Eq. 19) on the samples each unit passes, not $c\cdot(\pm\sigma_k(M))$ for any $\mathrm{relu}'(0) = c$: its scale-free $\mathrm{cond}_{10}$ is about twice Theorem 1's (<a href="claims.html#claim-li-thm1-relu-experiments">li-thm1-relu-experiments</a>), flat in depth as the abstract says (<a href="claims.html#claim-li-thm1-relu-depth">li-thm1-relu-depth</a>).
# - Theorem 1's flat saddle belongs to the all-zero start: practical zero-last-layer starts have a nonzero gradient (<a href="claims.html#claim-lim-fixup-not-flat">lim-fixup-not-flat</a>).
