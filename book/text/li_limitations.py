# %% [markdown]
# # Limitations of Demystifying ResNet
#
# {cite}`li2016demystifying` explain why 2-shortcut networks train well from the all-zero start
# ({prf:ref}`Theorem 1 <thm-li-1>`), backed by remarks in their Sections 1, 2, 4.1 and 5.2. We
# test these on the starts and networks used in practice. Theorem 1's flat saddle for $n \ge 3$
# matrices per residual unit belongs to $w = 0$ alone: Fixup's zero-last-layer start has a nonzero
# gradient and an indefinite Hessian (left panel). The variance remark holds: under He
# initialisation the output's second moment grows geometrically with depth (right panel). "Unit
# norm" holds read as "singular values near one", and "larger loss, larger index" holds as a rank
# trend. Each section shows how to recompute its result.

# %% tags=["remove-input"]
# %matplotlib inline
try:
    import resnet_nb  # noqa: F401
except ImportError:  # e.g. on Colab
    # %pip install -q git+https://github.com/resnet-nb/resnet-book

# %% tags=["remove-input"]
from IPython.display import HTML, display

from resnet_nb.book import plotting, show
from resnet_nb.book.facts import li_limitations as facts
from resnet_nb.book.li_figures import limitations_key_figure
from resnet_nb.li import limitations as lim

plotting.style()

# %% tags=["remove-input"]
import matplotlib.pyplot as plt

p = lim.fixup_point(n=3, R=2)
R_units = 20
fix_scale = R_units ** (-1 / 4)  # each matrix of an n = 2 branch: branch size / sqrt(R)
profiles, errors = {}, {}
for name, args, kw in [
    ("He, linear", ("he",), {}),
    ("He, ReLU mid", ("he", "relu"), {}),
    ("Xavier, linear", ("xavier",), {}),
    ("He, branches / √R", ("he",), {"scale": fix_scale}),
    ("zero", ("zero",), {"draws": 2}),
]:
    profiles[name], errors[name] = lim.depth_profile(2, *args, R=R_units, with_se=True, **kw)
limitations_key_figure(p, profiles)
plt.tight_layout()
plt.show()
rho_keep = show.num(lim.pre_relu_keep(), 3)

# %% [markdown]
# **Figure.** Left: the Hessian eigenvalues of a linear 3-shortcut network on whitened MNIST at
# the zero-last-layer start (every unit's last matrix zero, the others random) and at $w = 0$, where
# Theorem 1 makes the gradient and the Hessian vanish. Right: the second moment of the output of
# 2-shortcut networks against the number of units $r$, for He (MSRA) and Xavier starts, a start
# with each branch scaled by $R^{-1/4}$ per matrix, and the zero start (Section 2 below).

# %% [markdown]
# ## 1. The zero point is not where residual networks start
#
# Theorem 1 of Li et al. says that for $n \ge 3$ the gradient and the Hessian of the loss vanish
# at $w = 0$ (every derivative of order below $n$ does). The paper uses this to explain why
# 3-shortcuts should train badly. Its introduction reads He et al.'s remark on bottleneck blocks
# as evidence: after quoting {cite}`he2016deep`, it writes that since bottleneck ResNets use
# 3-shortcuts, "one sees that shortcuts with depth three also do not work" (Section 1).
#
# Two facts sit uneasily with that reading.
#
# * A bottleneck block (a 1×1, a 3×3 and a 1×1 convolution inside one shortcut) is a
#   3-shortcut, and the bottleneck networks ResNet-50, ResNet-101 and ResNet-152 of
#   {cite}`he2016deep` reach a lower ImageNet error than the 34-layer network built from
#   2-shortcuts (their Tables 3 and 4). The passage Li et al. quote says that the bottleneck
#   design was chosen for economy, and that the *plain* bottleneck networks degrade; it does not
#   say that bottleneck *residual* networks fail. Reading it as "3-shortcuts do not work" is, in
#   our view, a misreading: this is our inference from the quoted passage and He et al.'s
#   tables, not something either paper states.
# * Practical networks do not start at $w = 0$. He et al. start from MSRA (He) initialisation
#   {cite}`he2015delving`. The starts that *do* put zeros into a block zero only its last layer:
#   zero-$\gamma$ sets the scale of each block's last batch normalisation to zero
#   {cite}`goyal2017accurate`, and Fixup sets each branch's last layer to zero and rescales the
#   others {cite}`zhang2019fixup`. The other layers of the branch stay random.
#
# So the question is what the loss looks like at such a *zero-last-layer* start. Take a linear
# $n$-shortcut network with $W_{r,n} = 0$ in every unit and the other matrices random. Every unit
# is then the identity, so the end-to-end map is $I$ and the residual
# $G = W_{\text{end}}\Sigma_{XX} - \Sigma_{YX} = I - \Sigma_{YX}$ (whitened inputs) is not zero.
# The derivative of the loss $\mathcal L$ (the book's letter; $L$ is the depth) with respect to
# $W_{r,n}$ is
#
# $$
# \frac{\partial \mathcal L}{\partial W_{r,n}} = G\,\big(W_{r,n-1}\cdots W_{r,1}\big)^{\top},
# $$
#
# which is not zero when the product of the random matrices has full rank. Now take any two
# matrices $W_{r,l}$ and $W_{r',l'}$ with $l, l' < n$, in the same unit or in different units.
# The second derivative of $\mathcal L$ has two terms: one pairs the first derivatives of the
# end-to-end map with respect to each matrix, the other weights its mixed second derivative by
# $G$. Every derivative of the end-to-end map with respect to $W_{r,l}$, $l < n$, still contains
# the factor $W_{r,n} = 0$ of its own unit (for $r \ne r'$ the mixed one contains both
# $W_{r,n}$ and $W_{r',n}$), so both terms vanish: the whole block of these matrices, across
# units, is zero. The mixed block $B$ between them and the last matrices $W_{r,n}$ is not. A
# symmetric matrix $\begin{pmatrix} 0 & B \\ B^\top & C \end{pmatrix}$ whose block $B$ has full
# column rank $k$ has exactly $k$ negative, $k$ positive and the rest zero eigenvalues (on the
# null space of $B^\top$ it vanishes; on the rest it is congruent to a matrix with eigenvalues
# $\pm s_i(B)$). So the zero-last-layer start is not a critical point at all, let alone a flat one:
# it is a *non-stationary point with an indefinite Hessian of inertia $(k, k, p - 2k)$* ($k$
# negative, $k$ positive and $p - 2k$ zero eigenvalues, $p$ the number of parameters, $k$ the rank
# of $B$). The zeros are the null space of $B^\top$ inside the zero block, whose size is $p - k$
# when $B$ has $k$ columns; with $d \times d$ matrices, $R$ units and $B$ of full column rank
# $k = R d^2$ (one column per entry of a last matrix), $p = nRd^2$ and $p - 2k = (n - 2)Rd^2$. The
# check below computes the rank of $B$ and the eigenvalues separately, for $n = 3$ on whitened
# MNIST; its falsifier is the count one gets by taking the zero block's size for the number of zero
# eigenvalues, inertia $(k, k, p - k)$.

# %% tags=["remove-input"]
f_opening = facts.opening_facts(p)
print(f_opening.fixup_desc)

# %% [markdown]
# At the zero-last-layer start of this network the gradient has norm {eval}`f_opening.fixup_grad` and the
# largest Hessian entry is {eval}`f_opening.fixup_maxH`. The block of the {eval}`f_opening.fixup_block` parameters of
# the matrices $W_{r,l}$, $l < n$, is exactly zero, and the mixed block $B$ has rank
# {eval}`f_opening.fixup_rankB`, its full column rank. The spectrum has {eval}`f_opening.fixup_neg` negative,
# {eval}`f_opening.fixup_pos` positive and {eval}`f_opening.fixup_zero_eigs` zero eigenvalues, the inertia that the
# rank of $B$ predicts: $p - 2k$ with $p =$ {eval}`f_opening.p_count` and $2k =$ {eval}`f_opening.two_k`, not the
# zero block's size $p - k =$ {eval}`f_opening.p_minus_k`. The same start with $n = 2$ (same $R$ and data) has
# gradient norm {eval}`f_opening.n2_grad` and {eval}`f_opening.n2_neg` negative, {eval}`f_opening.n2_pos` positive and
# {eval}`f_opening.n2_zero` zero eigenvalues: a 2-shortcut network's zero-last-layer start is a
# non-stationary point with a nondegenerate Hessian, while the 3-shortcut one keeps a flat
# subspace of dimension $(n - 2)Rd^2$. At $w = 0$ the same computation gives a gradient of norm
# {eval}`f_opening.zero_grad` and a largest Hessian entry of {eval}`f_opening.zero_maxH`, as Theorem 1 says.

# %% tags=["remove-input"]
fixup_check = lim.claim_fixup_not_flat()
fixup_check.require()
assert lim.claim_fixup_not_flat(falsify=True).rejected_on_value
display(fixup_check)

# %% [markdown]
# ````{dropdown} The code: the zero-last-layer start
# ```{literalinclude} ../resnet_nb/li/limitations/fixup.py
# :pyobject: fixup_start
# ```
# ````
#
# **What this limits.** Theorem 1 is a statement about one point. It explains why a 3-shortcut
# network started *at* (or very near) zero, as in Li et al.'s own experiments, is slow to leave
# it. It says nothing about networks started the way He et al.'s bottleneck ResNets are (MSRA
# initialisation everywhere), and the zero-last-layer start, the practical analogue of "zero
# initialisation", is not flat: it is not even stationary, for $n = 2$ and $n = 3$ alike. A
# difference between the two depths survives there, in a weaker form: the 3-shortcut Hessian has
# $(n - 2)Rd^2$ zero eigenvalues, the 2-shortcut one none (above, one seed, $R = 2$, $d = 10$).
# Whether that flat subspace slows training from this start is not tested here; the gap between
# $n = 2$ and $n \ge 3$ that Theorem 1 describes at $w = 0$ (flat to order $n - 1$ in every
# direction) shrinks at this start to a subspace of flat directions beside directions of
# descent.

# %% [markdown]
# ## 2. Section 4.1: the output variance under He initialisation
#
# Section 4.1 motivates the zero start: with MSRA (He) initialisation and identity shortcuts
# "the output variance of the entire network will actually explode as the network becomes
# deeper", while with all weights zero the variance of each unit's output stays that of its
# input. The paper states this without a computation. Here is one.
#
# Let a unit map $h$ to $h + W_n\,s(W_{n-1}\cdots s(W_1 h))$ with independent matrices whose
# entries are $N(0, v/d)$: $v = 1$ for Xavier, $v = 2$ for He. For a fixed $h$,
# $\mathbb E\|W u\|^2 = v\|u\|^2$, and the cross term $\mathbb E\langle h, W_n\cdots\rangle$ is
# zero because $W_n$ has mean zero. A ReLU in the middle halves the second moment (its input is
# symmetric). Hence one unit multiplies $\mathbb E\|h\|^2$ by
#
# $$
# g_{\text{linear}} = 1 + v^n, \qquad g_{\text{ReLU}} = 1 + \frac{v^n}{2^{\,n-1}},
# $$
#
# for every input, and $R$ units multiply it by $g^R$: geometric growth. Pre-activation units
# {cite}`he2016identity`, the setting the paper calls "the latest ResNet", also put a ReLU at the
# *pre* position, in front of the first matrix. It keeps a fraction $\rho$ of the second moment
# of $h$, one half when the coordinates of $h$ are symmetric about zero, so
#
# $$
# g_{\text{pre-activation}} = 1 + \rho\,\frac{v^n}{2^{\,n-1}} = 1 + \Big(\frac v2\Big)^{n}
# \quad\text{for } \rho = \tfrac12,
# $$
#
# which is 2 for He initialisation with $n = 2$: still growth. Here $g^R$ is exact only when the
# factor per unit does not depend on the unit's input; $\rho$ depends on the distribution of
# $h_r$, which changes from unit to unit, so for pre-activation units the depth curve is a product
# of factors $1 + \rho_r v^n/2^{n-1}$, with $\rho_r$ the fraction the pre ReLU keeps at unit $r$,
# not exactly geometric. With all weights zero
# every unit is the identity and $g = 1$. The table compares each formula with the average over
# random units on whitened MNIST inputs; for the pre-activation rows it uses the fraction measured
# on these inputs, $\rho =$ {eval}`rho_keep` (the column "symmetric inputs" gives $\rho = \tfrac12$).

# %% tags=["remove-input"]
gains = lim.gain_table()
assert (abs(gains["measured g"] - gains["predicted g"]) <= 4 * gains["std. error"]).all()
display(HTML(gains.to_html(index=False, float_format="{:.3f}".format)))

# %% tags=["remove-input"]
f_fixup = facts.fixup_facts(R_units, errors, gains, profiles)

# %% [markdown]
# The right panel of the figure at the top of the chapter shows the growth. Each curve is an
# average over random networks on a sample of the MNIST inputs. For
# linear 2-shortcuts under He initialisation one unit multiplies the second moment by
# {eval}`f_fixup.he_g`, so after {eval}`R_units` units it has grown by {eval}`f_fixup.he_growth` (predicted:
# {eval}`f_fixup.he_growth_pred`; the average over draws is noisy because the product of random factors
# is heavy-tailed). With all weights zero the ratio is {eval}`f_fixup.zero_end` at every depth. For
# pre-activation units with He initialisation and $n = 2$ the measured factor is {eval}`f_fixup.pre_meas`
# (standard error {eval}`f_fixup.pre_se`) against the predicted {eval}`f_fixup.pre_pred` ({eval}`f_fixup.pre_sym` for
# symmetric inputs). The
# fourth curve is the point of Section 3 below: zero is not the only start that keeps the
# variance in check. Scaling each of the two matrices of every branch by $R^{-1/4}$ divides the
# branch's second moment by the number of units $R$: a branch of size about $1/\sqrt R$, not
# $1/R$ (a Fixup-like rescaling, here without the zero last layer). This turns $g^R$ into
# $(1 + v^n/R)^R$, which stays below $e^{v^n}$ at every depth. The run ends at
# {eval}`f_fixup.scaled_end` (standard error {eval}`f_fixup.scaled_err` over the draws), against the exact
# expectation {eval}`f_fixup.scaled_exact` and the depth-free bound {eval}`f_fixup.scaled_bound`.

# %% tags=["remove-input"]
variance_check = lim.claim_variance_growth()
variance_check.require()
assert lim.claim_variance_growth(falsify=True).rejected_on_value
display(variance_check)

# %% [markdown]
# ````{dropdown} The code: the predicted factor per unit
# ```{literalinclude} ../resnet_nb/li/limitations/variance.py
# :pyobject: predicted_gain
# ```
# ````
#
# The remark of Section 4.1 holds for networks without normalisation. The paper adds that batch
# normalisation "partly" solves the problem; we do not check that part, since the book's
# networks have no normalisation.

# %% [markdown]
# ## 3. Section 2: must the factors have unit norm?
#
# Section 2 justifies looking at the zero point in two sentences: "in order for the outputs of
# deep neural networks not explode, the singular values of the mapping of each layer are not
# supposed to be deviating too much from one. Indeed, it is because it is extremely challenging
# to keep $\prod_{i=1}^L \lambda_i$ of layers $\lambda_i$ from exploding or vanishing without
# keeping all of the $\lambda_i$ having unit norm". Here $L$ is the number of factors, one per
# layer, as in the book's depth $L$; in a residual network the factors near one are the $R$
# units. The first sentence says "not deviating too much from one", the second "unit norm". We
# read the second as a reason for the first (singular values *near* one), and check that reading;
# read literally (*exactly* one), it would be false, and the check's falsifier is that literal
# reading.
#
# Write $\lambda_i = 1 + \epsilon_i$ with independent random signs, $\epsilon_i = \pm a$, and take
# logarithms: $\log\prod_i\lambda_i = \sum_i \log(1 + \epsilon_i)$, a sum of $L$ independent terms,
# each $\tfrac12\log(1 - a^2) \pm \operatorname{atanh} a$. Its spread is
# $\sqrt L \operatorname{atanh} a \approx \sqrt L\,a$ and its mean $\tfrac L2 \log(1 - a^2)$.
#
# * **Deviations of fixed size** ($a$ does not shrink with $L$): the spread grows like
#   $\sqrt L\,a$ and the mean drifts down like $-La^2/2$. The typical product vanishes while its
#   expectation stays one: exploding and vanishing at once.
# * **Deviations of size $c/\sqrt L$**: the spread tends to $c$ and the mean to $-c^2/2$: the
#   product stays in a band of fixed width at every depth, though no factor is one.
# * **Deviations of size $c/L$** (any signs): since $|\log(1+e)| \le |e|/(1-|e|)$,
#   $\big|\log\prod_i\lambda_i\big| \le c/(1 - c/L)$ deterministically.
#
# Identity shortcuts with small branches provide the last two cases, as the paper's next
# sentence says ("ResNet ... forces the mappings inside the shortcuts to have small operator
# norms"). A branch of size $1/\sqrt R$ is the $c/\sqrt L$ case, the fourth curve of Section 2
# above, and a branch of size $1/R$ the $c/L$ case. Both support starting *near* zero, as Fixup
# does; neither singles out zero itself.

# %% tags=["remove-input"]
f_variance = facts.variance_facts()
display(HTML(f_variance.products.to_html(index=False, float_format="{:.4g}".format)))

# %% [markdown]
# Over {eval}`f_variance.n_draws` draws, with deviations of fixed size $a =$ {eval}`f_variance.prod_a`, the spread
# of the logarithm at $L =$ {eval}`f_variance.L_top` is {eval}`f_variance.fixed_std` (predicted {eval}`f_variance.fixed_pred`) and
# the median product is {eval}`f_variance.fixed_median`. With deviations $c/\sqrt L$, $c =$
# {eval}`f_variance.prod_c`, the spread at the same depth is {eval}`f_variance.sqrt_std` (predicted {eval}`f_variance.sqrt_pred`),
# and with deviations $c/L$ the largest $|\log\prod\lambda_i|$ is {eval}`f_variance.shrink_max`, inside the
# bound. The check compares measured and predicted spreads at the smallest and the largest
# depth, for $a$ fixed and for $a = c/\sqrt L$. Its falsifier is the literal reading, "exactly
# unit norm": then factors $1 \pm c/\sqrt L$ could not keep the product bounded, and the spread at
# $a = c/\sqrt L$ would grow from the smallest to the largest depth. A check that finds the
# spread equal to its prediction, about $c$, at both depths already rules that out, so this
# falsifier adds no evidence beyond the check itself; the ledger labels it so.

# %% tags=["remove-input"]
product_check = lim.claim_product_band()
product_check.require()
assert lim.claim_product_band(falsify=True).rejected_on_value
display(product_check)

# %% [markdown]
# ## 4. Section 5.2: larger loss, larger index?
#
# Section 5.2 explains Figure 8 with a statement borrowed from {cite}`dauphin2014identifying`:
# "Usually for the critical points of a neural network, the larger the loss the larger the
# index", where the index is the fraction of negative Hessian eigenvalues. "Usually" makes it a
# tendency, not a law; a rank trend with exceptions is what it predicts. The paper applies it to points
# along training runs, which are not critical points. We check it where it is meant to hold, at
# critical points, and on the only critical points the book can write down exactly.
#
# With whitened inputs, $\Sigma_{XX} = I$, the loss of a linear 2-shortcut network depends on
# $M = W_{\text{end}} - I$ as $\tfrac12\|M - T\|_F^2$ plus a constant, with
# $T = \Sigma_{YX} - I = \sum_i s_i u_i v_i^\top$. For any subset $S$ of the singular directions,
# set, in the first unit,
#
# $$
# W_{1,1} = \sum_{i\in S}\sqrt{s_i}\,e_i v_i^\top,\qquad W_{1,2} = \sum_{i\in S}\sqrt{s_i}\,u_i e_i^\top,
# $$
#
# and every other unit to zero. Then $M = \sum_{i\in S} s_i u_i v_i^\top$, the gradient vanishes
# (the classical critical points of a two-layer linear network; a zero 2-shortcut unit adds no
# gradient), and the loss is that of the full fit plus $\tfrac12\sum_{i\notin S}s_i^2$. With
# $d = 4$ and $R = 2$ units there are $2^d$ such points and $2Rd^2$ parameters, so exact
# Hessians are cheap. The data are Hardt and Ma's synthetic linear model with the inputs whitened exactly. Hardt
# and Ma call their model's target map $R$; here $R$ counts units, as everywhere in the chapters
# on Li et al., and the target map enters only through $\Sigma_{YX}$ and $T$.

# %% tags=["hide-input"]
f_products = facts.products_facts()
display(HTML(f_products.table.to_html(index=False, float_format="{:.4f}".format)))

# %% [markdown]
# The table lists the {eval}`f_products.n_crit` critical points by increasing loss ("kept" names the
# singular directions in $S$; "zero" counts the eigenvalues within rounding of zero). The zeros
# have two sources. At the full fit there are {eval}`f_products.zeros_full`: {eval}`f_products.zeros_sym` from the
# symmetry $W_{1,1} \to AW_{1,1}$, $W_{1,2} \to W_{1,2}A^{-1}$ of the working unit ($A$ any
# invertible matrix), and {eval}`f_products.zeros_idle` from the idle zero unit, whose Hessian block is
# weighted by the residual $G$ alone and vanishes when the fit is exact. At the point with every
# unit zero there are {eval}`f_products.zeros_none`. The global minimum has index 0, and the point
# with every unit zero has the largest index, {eval}`f_products.top_index`. In between the trend holds as a
# ranking, as the paper's "usually" allows: Spearman's rank correlation of loss and index is {eval}`f_products.spearman_rho`, above
# {eval}`f_products.spearman_thr`, the 99th percentile of the correlation under random pairing. But the
# index is {eval}`f_products.strict` in the loss: {eval}`f_products.n_discordant` pairs of points have the larger index
# at the smaller loss. The widest such pair: keeping directions {eval}`f_products.low_kept` gives loss
# {eval}`f_products.low_loss` and index {eval}`f_products.low_index`, while keeping {eval}`f_products.high_kept` gives the larger
# loss {eval}`f_products.high_loss` but the smaller index {eval}`f_products.high_index`. The reason shows in the
# table: the index is {eval}`f_products.by_rank` by the *number* of kept directions (every point that keeps
# $k$ directions has a larger index than every point that keeps $k+1$), while the loss depends
# on *which* directions are dropped, through their singular values. Dropping a few strong
# directions can cost more loss than dropping many weak ones, and it leaves fewer directions of
# negative curvature.

# %% tags=["remove-input"]
index_check = lim.claim_index_vs_loss()
index_check.require()
assert lim.claim_index_vs_loss(falsify=True).rejected_on_value
display(index_check)

# %% [markdown]
# ## What the four checks change
#
# | Remark of Li et al. | What the book finds |
# | --- | --- |
# | Section 1: bottleneck ResNets show that 3-shortcuts "do not work" | He et al.'s own results contradict this reading; the flat saddle is a property of $w = 0$ only, and the zero-last-layer start of practical networks has a nonzero gradient and an indefinite Hessian |
# | Section 4.1: He initialisation makes the output variance explode | holds without normalisation: a factor $1 + v^n$ per unit ($1 + v^n/2^{n-1}$ with ReLU in the middle, $1 + (v/2)^n$ for pre-activation units) |
# | Section 2: singular values should not deviate much from one; bounded products need unit-norm factors | holds read as "near one": deviations of fixed size make the product explode or vanish, deviations of size $c/\sqrt L$ or $c/L$ keep it in a fixed band; false only if "unit norm" meant exactly one |
# | Section 5.2: "usually", larger loss, larger index | holds as the paper hedges it: a rank trend at exact critical points, not strict |
#
# ```{exercise} The variance factor with ReLU in the middle
# :label: ex-lim-relu-gain
#
# Derive the factor per unit for a 3-shortcut unit with ReLU at the mid position under Xavier
# initialisation, and say whether the output second moment still grows with depth.
# ```

# %% tags=["remove-input"]
xavier_relu_g3 = show.num(lim.predicted_gain(3, "xavier", "relu"), 3)
assert lim.predicted_gain(3, "xavier", "relu") > 1

# %% [markdown]
# ```{solution} ex-lim-relu-gain
# :class: dropdown
#
# Each of the three matrices multiplies the second moment by $v = 1$ and each of the two ReLUs
# halves it, so the branch contributes a quarter of the input's second moment and the factor is
# {eval}`xavier_relu_g3`. It is larger than one, so the second moment still grows geometrically,
# only more slowly than under He initialisation.
#
# % check hints ex-lim-relu-gain (written by scripts/exercise_cells.py from resnet_nb.book.exercises)
# **In the notebook** the answer cell under this exercise has a check. Besides a wrong shape, sign, factor of two or transpose, it recognises these mistakes and answers:
#
# - Each ReLU in the middle halves the second moment of a symmetric input.
# - A 3-shortcut unit has two mid positions, so two ReLUs, not three.
# - There are two mid ReLUs in a unit of three matrices.
# - A factor per unit above one compounds over the units.
# % end check hints
# ```

# %% exercise="ex-lim-relu-gain" tags=["exercise-answer", "remove-cell"]
# Your answer to ex-lim-relu-gain: "Derive the factor per unit for a ..."
# replace every ... below, run this cell, then the check under it.
factor = ...  # the expected factor per unit of the output second moment
grows = ...  # True or False: does the second moment still grow with depth?

# %% exercise="ex-lim-relu-gain" tags=["exercise-check", "remove-cell"]
from resnet_nb.book import exercises

exercises.check("ex-lim-relu-gain", factor, grows)
