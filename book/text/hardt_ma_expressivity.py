# %% [markdown]
# # Hardt & Ma: what a ReLU residual network can fit

# %% tags=["remove-input"]
# %matplotlib inline
try:
    import resnet_nb  # noqa: F401
except ImportError:  # e.g. on Colab
    # %pip install -q git+https://github.com/resnet-nb/resnet-book
import math

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import HTML, display
from matplotlib.animation import FuncAnimation

from resnet_nb.book import hardt_ma_figures as hmf
from resnet_nb.book import ledger, show
from resnet_nb.book.facts import hardt_ma_expressivity as facts
from resnet_nb.experiments import hm_analog
from resnet_nb.hardt_ma import interface as hi
from resnet_nb.hardt_ma import relu as hr

rng = np.random.default_rng(0)

table = hmf.table

# every claim of this chapter, run once (check and falsifier); the cells below show them
claims_run, checks = ledger.chapter_claims("book/hardt_ma_expressivity.ipynb")

# %% tags=["remove-input"]
# hm-thm32: the proof's JL step at c = 30 (the claim) and at the printed c = 10 (its falsifier)
thm32_jl30, thm32_jl10 = (chk.values for chk in checks("hm-thm32"))
SQ, DIST = hr.RHO_READINGS  # Assumption 3.1's reading (squared distances), the proof's (distances)
# per-draw and per-projection tables stored by scripts/hm_thm32.py (recomputed in part below)
draws, proj_all = hr.load_thm32()
refuse = {SQ: hr.failure_rate(draws.refuses_sq_c10), DIST: hr.failure_rate(draws.refuses_dist_c10)}

of = hmf.failures_of
open_sq, open_dist = of(refuse[SQ]), of(refuse[DIST])

# %% [markdown]
# Theorem 3.2 of {cite}`hardt2016identity`: residual blocks
# $h \mapsto h + V\,\mathrm{ReLU}(Uh + b)$ can map $n$ unit vectors separated from one another by
# a margin $\rho$ exactly onto labels from $r$ classes with
# $O(n\log n + r^2)$ parameters (the paper's count). Each block moves a few points and leaves the
# rest in place (figure). The theorem holds; its printed proof does not. The proof of Lemma B.1,
# which builds one block, fails (its statement too, if a hypothesis is read as a bound on
# distances rather than squared distances), and so does the constant in the width the paper picks
# for its first layer, a random projection. The book proves the theorem another way: it chooses
# which points each block moves so that the construction never gets stuck, at any width
# $k \ge 2$ and for any distinct points, with $O(n + r^2)$ parameters at a fixed width (the
# book's count).

# %% tags=["remove-input"]
key_steps = hr.construction_steps()
key_fig = hmf.construction_figure()
plt.show()
key_blocks = show.count(len(key_steps["moved"]))
key_points, key_classes = show.count(key_steps["labels"].size), show.count(key_steps["Q"].shape[1])

# %% [markdown]
# **Figure.** The construction in the plane: {eval}`key_points` unit vectors, coloured by
# their {eval}`key_classes` labels. Each panel is one residual block of width $k = 2$. A unit
# fires only beyond its dashed line (shaded side), which passes just inside the point $z_a$ it
# serves; it sends $z_a$ to the star of its label (its *surrogate*), and every other point stays
# put. After {eval}`key_blocks` blocks every point sits on a star, and a last block maps each
# star to its one-hot label.

# %% [markdown]
# ## The network and the theorem
#
# Inputs $x^{(i)} \in \mathbb R^d$ with labels $y^{(i)} \in \{1,\dots,r\}$, $i = 1,\dots,n$.
# The network first projects, $h_0 = A_0x$ with $A_0 \in \mathbb R^{k\times d}$, and then
# applies $\ell$ residual blocks of constant width $k$,
#
# $$
# h_j = h_{j-1} + V_j\,\mathrm{ReLU}(U_jh_{j-1} + b_j), \qquad U_j, V_j \in \mathbb R^{k\times k},\ b_j\in\mathbb R^k,
# $$
#
# followed by a last ReLU block that maps $\mathbb R^k$ to $\mathbb R^r$ (no batch
# normalisation). The data are assumed normalised, $\|x^{(i)}\| = 1$, and separated (Assumption 3.1 of the paper):
#
# $$
# \|x^{(i)} - x^{(j)}\|^2 \ge \rho \quad\text{for } i \ne j .
# $$
#
# So $\rho$ bounds *squared* distances, the meaning we keep; the proof of Theorem 3.2 also
# uses it as a distance (the width section gives both readings).
#
# :::{admonition} Details: notation
# :class: dropdown
# The paper names the block weights $A_j, B_j, b_j$; we write $U_j, V_j, b_j$,
# as the package does, because $A$ is taken by the linear chapter. The letter $k$ is the
# width here; in the convolution section it is also the kernel size, as in the paper.
# :::
#
# The last block maps $\mathbb R^k$ to $\mathbb R^r$ without a skip connection (folded: why).
#
# :::{admonition} Details: the last block
# :class: dropdown
# The paper writes the last layer as a residual block too,
# $\hat y = h_\ell + V\,\mathrm{ReLU}(Uh_\ell + s)$, with $h_\ell\in\mathbb R^k$ and
# $\hat y\in\mathbb R^r$. The sum is not defined when $k \ne r$, and the construction needs
# $k$ of order $\log n$, which is unrelated to $r$. We drop the skip connection in the last
# block, $\hat y = V\,\mathrm{ReLU}(Uh_\ell + s)$ with $U\in\mathbb R^{r\times k}$ and
# $V\in\mathbb R^{r\times r}$, which leaves the parameter count unchanged.
#
# As we read the main-text copy of the paper, it also gives the output layer's matrix the shape
# $k\times r$; a map from $\mathbb R^k$ to $\mathbb R^r$ needs $r\times k$.
# :::
#
# ```{prf:theorem} Theorem 3.2 of Hardt & Ma
# :label: hm-thm32
# :nonumber:
#
# Suppose the training examples satisfy Assumption 3.1. Then there exists a residual network
# with $O(n\log n + r^2)$ parameters that perfectly expresses the training data: it maps
# every $x^{(i)}$ to its one-hot label $y^{(i)}$.
# ```
#
# The recipe: pick $k = O(\log n)$. Give every class $c$ a *surrogate* vector
# $q_c\in\mathbb R^k$. Let each of $\ell = \lceil n/k\rceil$ blocks move $k$ points onto the
# surrogates of their labels while leaving all other points where they are. Let the last
# block send $q_c$ to $e_c$. The count is $\ell(2k^2 + k) = O(nk) = O(n\log n)$ for the
# residual blocks, plus $O(rk + r^2)$ for the last: the paper's $O(n\log n + r^2)$, whose
# constant depends on $\rho$ through $k$.

# %% [markdown]
# ## The key lemma: one block moves $k$ points and fixes the rest
#
# For a point $z$ among the current points $\{h_i\}$, define its **margin**
#
# $$
# \mu(z) = \min_{h_i \ne z}\ \big(\|z\|^2 - \langle z, h_i\rangle\big).
# $$
#
# ```{prf:lemma} One block, k moves (the book's form of the key lemma)
# :label: hm-lemma-block
# :nonumber:
#
# Let $z_1,\dots,z_k$ be current points with positive margins, and let $t_1,\dots,t_k$ be
# arbitrary targets. Put $\delta_a \in (0, \mu(z_a)]$, let row $a$ of $U$ be $z_a^\top$, let
# $b_a = -(\|z_a\|^2 - \delta_a)$, and let column $a$ of $V$ be $(t_a - z_a)/\delta_a$. Then
# $z_a + V\,\mathrm{ReLU}(Uz_a + b) = t_a$ for every $a$, and
# $h + V\,\mathrm{ReLU}(Uh + b) = h$ for every other current point $h$.
# ```
#
# ```{prf:proof}
# Unit $a$ computes $\mathrm{ReLU}(\langle z_a, h\rangle - \|z_a\|^2 + \delta_a)$. At $h = z_a$
# this is $\delta_a$. At any other point $h$ (including the other centres),
# $\langle z_a, h\rangle \le \|z_a\|^2 - \mu(z_a) \le \|z_a\|^2 - \delta_a$, so the unit is
# $0$. Hence $\mathrm{ReLU}(Uz_a + b) = \delta_ae_a$, which $V$ maps to $t_a - z_a$, and at
# every other point all units are $0$.
# ```
#
# ```{literalinclude} ../resnet_nb/hardt_ma/relu/theorem32.py
# :pyobject: lemma_block
# ```
#
# For unit vectors the margin is $\|z\|^2 - \langle z, h\rangle = \tfrac12\|z - h\|^2 \ge
# \rho/2$: on the sphere, every point is isolated by its tangent plane. We take
# $\delta_a = \mu(z_a)/2$ and check the lemma on random and near-duplicate instances.

# %% tags=["hide-input"]
f_analog = facts.lemma_b1_facts(checks, rng)

# %% [markdown]
# Over 300 blocks the points that should stay fixed do not move at all (their units receive
# negative inputs, and $\mathrm{ReLU}$ returns an exact $0$); the moved points land within
# {eval}`f_analog.block_moved` of their targets.
#
# :::{admonition} Details: the rounding scale
# :class: dropdown
# Measured in units of $\varepsilon_{\rm mach}\,\|t - z\|/\delta$, a scale that grows as the
# margin shrinks (the near-duplicates), the worst error is {eval}`f_analog.block_scaled` units, and the
# cell asserts it stays below 100 units per term of the sums.
# :::
#
# ### The paper's Lemma B.1, as printed
#
# The paper's version of the lemma uses one bias for all units. Its hypotheses, for
# a constant $\rho'$, are (a) $1-\rho' \le \|\alpha_i\|^2 \le 1+\rho'$ for every point, and
# (b) a separation whenever $i \ne j$ and one of them is to be moved. The copy we read prints
# (b) as $\|\alpha_i - \alpha_j\| \ge 3\rho'$, a bound on *distances*; a superscript lost in
# extraction would make it $\|\alpha_i - \alpha_j\|^2 \ge 3\rho'$, a bound on *squared* distances.
# We give both readings. The construction sets row $i$ of $U$ to $\alpha_i$, every bias to
# $-(1-2\rho')$, and column $i$ of $V$ to $(\beta_i - \alpha_i)/(\|\alpha_i\|^2 - (1-2\rho'))$. Its
# proof bounds $\langle\alpha_j, \alpha_i\rangle = \tfrac12(\|\alpha_i\|^2 + \|\alpha_j\|^2 -
# \|\alpha_i - \alpha_j\|^2) \le 1 + \rho' - 3\rho'$, a step that needs
# $\|\alpha_i - \alpha_j\|^2 \ge 6\rho'$.
#
# * **The proof fails under both readings.** Two points of squared norm $1 + \rho'$ at squared
#   distance $6\rho'$ are the tight case: the printed unit for the first is exactly silent at the
#   second, and the construction moves nothing else (displacement {eval}`f_analog.b1_at6`). At squared
#   distance $6\rho'(1 - 10^{-3})$, which meets (b) under either reading, it moves the second
#   point by {eval}`f_analog.b1_below6` (<a href="claims.html#claim-hm-lemma-b1">evidence</a>).
# * **The statement fails under the distance reading only.** With $\rho' =$ {eval}`f_analog.rho_prime`, a
#   point of squared norm $1 - \rho'$ inside the convex hull of four points of squared norm
#   $1 + \rho'$ (the *hull*) meets (a) and (b) as distances. Any ReLU unit positive at a convex
#   combination of points is positive at one of them, so no block that must move $k$ points to
#   arbitrary targets, this one among them, can leave the four others in place (argument folded).
#   Under the squared reading the hull is excluded, and polarisation gives every point to be moved
#   a margin $\|z\|^2 - \langle z, h\rangle = \tfrac12(\|z\|^2 - \|h\|^2 + \|z - h\|^2) \ge
#   \tfrac12(-2\rho' + 3\rho') = \rho'/2$ ((b) says nothing about two points outside $S$, which
#   may coincide), so the book's lemma above moves any $k$ points. A constrained search over pairs
#   in $\mathbb{R}^3$, from 200 random starts, finds the smallest margin {eval}`f_analog.b1sq_found`, within
#   {eval}`f_analog.b1sq_gap` of $\rho'/2$ (below it by less than the search's tolerance on its constraints):
#   the bound is reached, and nothing below it beyond rounding is found. Random
#   admissible configurations stay far from it (smallest margin {eval}`f_analog.b1sq_min` over
#   {eval}`f_analog.b1sq_n`) (<a href="claims.html#claim-hm-lemma-b1-squared">evidence</a>).
#
# :::{admonition} Details: why the hull refutes the lemma, not only its proof
# :class: dropdown
# The lemma moves $k$ points at once, so pad the
# hull to $k = 4$ points to be moved (adding points far from the plane, as the ledger's check
# does) and take generic targets $\beta_j$. The block must satisfy
# $V\,[\mathrm{ReLU}(U\alpha_j + s)]_{j\in S} = [\beta_j - \alpha_j]_{j\in S}$, a product of
# $k\times k$ matrices whose right side is invertible, so $V$ is invertible; a point that stays
# put then needs $\mathrm{ReLU}(U\alpha + s) = 0$, so every unit is silent at the four outer
# points. Pre-activations are affine, so every unit is also silent at the inner point, a convex
# combination of them, and the block cannot move it. (Without the $k$ generic targets a block can
# move the inner point alone: two units with opposite columns of $V$ do.)
# :::
#
# :::{admonition} Details: the pair, and which reading the proof suggests
# :class: dropdown
# A second configuration, the *pair*, has two points of squared norm $1 + \rho'$ at distance
# $3\rho'$: the unit meant for the first fires at the second, so the printed construction moves
# both. It breaks only the construction: its first point has a positive margin (table), and the
# book's lemma moves it. Which reading did the authors mean? The printed step
# $\langle\alpha_j, \alpha_i\rangle \le 1 + \rho' - 3\rho'$ follows from the squared reading after one
# slip (a lost $\tfrac12$), from the distance reading after two. But only the distance reading lets
# Lemma B.2's hypothesis imply B.1's (for $\rho' \le 1/9$, next section). We cannot settle it from
# the copy we have.
# :::
#

# %% tags=["hide-input"]
ce = hr.lemma_b1_counterexamples(0.1)
rows = []
for name in ("pair", "hull"):
    h = hr.lemma_b1_hypotheses(ce[name], [0], 0.1)
    _, _, _, printed = hr.lemma_b1_paper(ce[name], np.array([0]), np.array([[0.0], [2.0]]), 0.1)
    rows.append(
        dict(
            configuration=name,
            hypothesis_a=h["norms_ok"],
            b_as_distance=h["separation_ok"],
            b_as_squared=hr.lemma_b1_hypotheses(ce[name], [0], 0.1, "squared")["separation_ok"],
            displacement_of_others=printed["fixed_error"],
            margin=hr.margins(ce[name], [0])[0],
        )
    )
display(table(pd.DataFrame(rows)))
display(*checks("hm-lemma-b1"), *checks("hm-lemma-b1-squared"))

# %% [markdown]
# ### Where Lemma B.2 meets Lemma B.1
#
# Lemma B.2's separation hypothesis is six times too weak for Lemma B.1's proof as printed (<a href="claims.html#claim-hm-b2-meets-b1">evidence</a>); the argument, a numerical search and two further gaps in B.2's proof are folded here.
#
# :::{admonition} Details: the largest inner product under B.2's hypotheses
# :class: dropdown
# Lemma B.2 (appendix B of the ICLR text) assumes of its points $z_1,\dots,z_n$
# (a) $1-\rho' \le \|z_i\|^2 \le 1+\rho'$ and (b) $\|z_i - z_j\|^2 \ge \rho'$ for $i \ne j$, and its
# proof applies Lemma B.1 block after block, to the points not yet moved and to the surrogates of
# those already moved. (Lemma B.1's hypothesis (b) is printed there as
# $\|\alpha^{(i)} - \beta^{(j)}\| \ge 3\rho'$; we read $\alpha^{(j)}$ for $\beta^{(j)}$, the only reading
# under which its proof uses it.) On paper the two meet: for $\rho' \le 1/9$, B.2's (b) implies B.1's
# printed (b). But B.1's proof, its Eq. (B.1), needs $\langle\alpha_j, \alpha_i\rangle \le 1 - 2\rho'$, so
# that the unit with bias $-(1-2\rho')$ stays silent at every other point, and that takes squared
# distances of at least $6\rho'$ (previous section). How far apart are the two? By polarisation,
# $\langle a, b\rangle = \tfrac12(\|a\|^2 + \|b\|^2 - \|a - b\|^2)$, so the largest inner product that
# B.2's hypotheses allow is $\tfrac12(2(1+\rho') - \rho') = 1 + \rho'/2$, reached by two points of
# squared norm $1+\rho'$ at squared distance $\rho'$. The unit meant for the first then fires at the
# second with pre-activation $5\rho'/2$. The cell computes the largest inner product twice, from
# this closed form and by a constrained numerical search over pairs that satisfy B.2's
# hypotheses (`resnet_nb.hardt_ma.interface`), and runs the printed construction of Lemma B.1
# on the extremal pair.
# :::

# %% tags=["hide-cell"]
iface = []
for rp in (0.02, 0.1, 0.2):
    found = hi.max_inner_product_search(rp, rp, seed=1)
    pair = hi.extremal_pair(rp, rp)
    _, _, _, rep_b1 = hr.lemma_b1_paper(pair, np.array([0]), np.array([[0.0], [2.0]]), rp)
    iface.append(
        dict(
            rho_prime=rp,
            closed_form=hi.worst_inner_product(rp, rp),
            search=found["value"],
            eq_b1_bound=1 - 2 * rp,
            preactivation_outside_S=hi.b1_preactivations(pair, [0], rp)[0, 1],
            displacement_outside_S=rep_b1["fixed_error"],
        )
    )
iface = pd.DataFrame(iface)
display(table(iface, 4))
display(*checks("hm-b2-meets-b1"))
f_interface_numbers = facts.interface_numbers_facts(iface)

# %% [markdown]
# :::{admonition} Details: what the search shows, and two further steps of B.2's proof
# :class: dropdown
# The search and the closed form agree to {eval}`f_interface_numbers.iface_dev` (the tolerance, {eval}`f_interface_numbers.iface_tol`,
# is a thousand times the search's stopping tolerance), and the search never finds a larger inner
# product. At $\rho' =$ {eval}`f_interface_numbers.iface_rp` the unit meant for the first point of the extremal pair has
# pre-activation {eval}`f_interface_numbers.iface_pre` at the second, and the printed construction moves that second
# point by {eval}`f_interface_numbers.iface_move`. So Lemma B.2's hypothesis (b) is six times too weak for Lemma B.1's
# proof as printed; with $\|z_i - z_j\|^2 \ge 6\rho'$ the largest inner product is exactly
# $1 - 2\rho'$ (the check's second part). The ledger entry `hm-b2-meets-b1` runs this comparison;
# its falsifier is the bound the printed proof relies on, Eq. (B.1)'s $1 - 2\rho'$ taken as the
# largest inner product under B.2's hypotheses. What fails is a step of B.2's *proof*, not B.2's
# conclusion (our construction reaches the same conclusion by other means, below). It is the
# defect of Lemma B.1's proof (ledger `hm-lemma-b1`) seen from B.2's side: B.2's
# stronger separation does not rescue it.
#
# Two further steps of B.2's proof do not meet B.1 either. The surrogates: the proof argues that
# "w.h.p." $\langle q_s, z_i\rangle \le 1 - \rho'$ for every $s$ and $i$, but a unit of B.1 fires when the
# inner product exceeds its bias $1 - 2\rho'$, and values between $1 - 2\rho'$ and $1 - \rho'$ are
# allowed by that bound; a bound that holds with high probability for each pair must also be made
# to hold for all pairs and blocks at once (a union bound). And the proof of Theorem 3.2 feeds
# B.2 with $\rho' = \rho/3$ after a projection that keeps norms within $1 \pm \rho/3$, which gives
# squared norms between $1 - 2\rho/3 + \rho^2/9$ and $1 + 2\rho/3 + \rho^2/9$, a range wider than
# the $1 \pm \rho/3$ of B.2's (a). Our construction replaces all three
# steps by quantities that are checked after the projection (the margins) and by surrogates of
# norm $s$, for which the needed inequality holds deterministically.
# :::

# %% [markdown]
# ## Where the paper's choices must be adjusted
#
# Three of the proof's choices must change before the construction runs; each is tested below.
#
# 1. **Margins after the projection.** A Gaussian $A_0$ with $k$ rows keeps norms and
#    distances within a factor $1 \pm \varepsilon$, $\varepsilon \approx \sqrt{\log n / k}$
#    (Johnson-Lindenstrauss {cite}`johnson1984extensions`), so a margin of $\rho/2$ survives when
#    $k \gtrsim \log n/\rho^2$: the paper's width $k = c\log n/\rho^2$, with "for example,
#    $c = 10$ works" (appendix B). We use $c = 10$ (`hr.paper_width`) and measure the margins
#    after the projection instead of assuming them.
# 2. **Surrogates that never fire a later unit.** All surrogates get the norm
#    $s = \tfrac12\min_i\|h_0^{(i)}\|$, so $\langle z, q_c\rangle \le \tfrac12\|z\|^2$ for every
#    later centre $z$; the paper's random unit surrogates manage this only on some draws (table below).
# 3. **Per-unit biases** $-(\|z_a\|^2 - \delta_a)$, since projected points no longer share one norm.
#
# :::{admonition} Details: two constants of the proof
# :class: dropdown
# The paper draws $A_0$ with standard normal entries and then claims norms within
# $1 \pm \rho/3$; that needs the scaling $1/\sqrt k$, which we add (`A0 = G / sqrt(k)`). And a
# distortion $\rho/3$ of the norms gives squared norms between $1 - 2\rho/3 + \rho^2/9$ and
# $1 + 2\rho/3 + \rho^2/9$, wider than the range $1 \pm \rho/3$ that its Lemma B.2 assumes: a
# constant of the proof, not of the theorem.
# :::
#
# (hm-width)=
# ### The width, and how often the paper's order works there
#
# For 2,000 random unit vectors in $\mathbb R^{100}$ and 2,000 MNIST digits scaled to unit
# norm, the width table gives the paper's width under both readings of $\rho$. A point is
# *exposed* when its margin is positive. A negative margin means some point lies beyond its
# tangent plane, so no unit of the construction's form (weight $z$, threshold below $\|z\|^2$)
# can isolate it. The margin table counts, over many projections to $k$ dimensions, those that
# expose every point and those on which the paper's order fits.

# %% tags=["hide-input", "hide-output"]
sets = hr.chapter_point_sets()
(X_syn, y_syn), (X_mn, y_mn) = sets["synthetic"], sets["MNIST"]
sep_syn, sep_mn = hr.separation(X_syn), hr.separation(X_mn)
rho_syn, rho_mn = sep_syn**2, sep_mn**2  # hr.paper_rho: Assumption 3.1, squared distances
k_syn, k_mn = hr.paper_width(2000, rho_syn), hr.paper_width(2000, rho_mn)
k_syn_d, k_mn_d = hr.paper_width(2000, sep_syn), hr.paper_width(2000, sep_mn)  # rho as a distance
widths = pd.DataFrame(
    dict(
        data=["synthetic", "MNIST"],
        d=[100, 784],
        rho_squared_distances=[rho_syn, rho_mn],
        k_assumption_31=[k_syn, k_mn],
        rho_as_distance=[sep_syn, sep_mn],
        k_proof_reading=[k_syn_d, k_mn_d],
    )
)
display(
    table(widths, 4).set_caption(
        "Width table: the paper's width k = 10 ln n / rho^2, "
        "under both readings of the separation rho"
    )
)

# %% tags=["hide-input", "hide-output"]
# the committed per-projection table, recomputed here on two of its rows
for name, X, k, s in (("MNIST", X_mn, 320, 0), ("synthetic", X_syn, k_syn, 1)):
    live = hr.projection_row(X, k, s)
    saved = proj_all[(proj_all.data == name) & (proj_all.k == k) & (proj_all.seed == s)].iloc[0]
    assert saved.refuses == live["refuses"]
    assert np.allclose(
        [saved.min_margin, saved.exposed], [live["min_margin"], live["exposed"]], rtol=1e-12
    )
proj = hmf.margin_table(proj_all)
display(
    table(proj, 4).set_caption(
        "Margin table: projections to k dimensions; a point is exposed when its margin is positive"
    )
)
cell = {(r.data, r.k): r for r in proj.itertuples()}
syn_at, mn_at = cell[("synthetic", k_syn)], cell[("MNIST", 320)]
assert min(k_mn, k_mn_d) > 784 and k_syn < 100
assert cell[("MNIST", 100)].every_point_exposed == 0 < mn_at.every_point_exposed < mn_at.projections
rho_syn_s, rho_mn_s = show.num(rho_syn, 3), show.num(rho_mn, 2)

# %% tags=["hide-input", "hide-output"]
f_construction2 = facts.width_readings_facts(cell, k_mn, k_mn_d, k_syn, k_syn_d, mn_at, syn_at)

# %% [markdown]
# The paper uses $\rho$ in two ways: Assumption 3.1 bounds *squared* distances, while the proof
# of Theorem 3.2 treats it as a distance ("$\|A_0x^{(i)} - A_0x^{(j)}\| \ge \rho(1-\rho/3)$"). For
# MNIST the second reading's width is {eval}`f_construction2.mn_readings` times smaller, {eval}`f_construction2.k_mn_d_s` against
# {eval}`f_construction2.k_mn_s`, and both exceed the 784 pixels: the $\rho$ hidden in the theorem's $O(\cdot)$
# is severe for real data. For the synthetic points Assumption 3.1's width is
# $k =$ {eval}`f_construction2.k_syn_s` $< d$, and {eval}`f_construction2.syn_exp` of {eval}`f_construction2.n_proj` projections expose every
# point. For MNIST, $k = 320$ exposes every digit on {eval}`f_construction2.mn_exp` of {eval}`f_construction2.n_proj` projections,
# and $k = 100$ on none (margin table). The paper's order (the points in the given order, $k$ per
# block) fails at the first block that contains a point it cannot isolate:

# %% tags=["hide-input"]
syn_p = proj_all[(proj_all.data == "synthetic") & (proj_all.k == k_syn)]
mn_p = proj_all[(proj_all.data == "MNIST") & (proj_all.k == 320)]
greedy = draws.dropna(subset=["greedy_error"])
rates = hmf.refusal_rates(syn_p, mn_p, draws, greedy, k_syn)
display(
    table(rates, 3).set_caption(
        "Refusal-rate table: how often the construction refuses (width k below the dimension d)"
    )
)
jl = hmf.jl_rates(thm32_jl10, thm32_jl30)
display(
    table(jl, 3).set_caption(
        "JL-step table: are all distances among 0 and the points x_i kept within a factor "
        "1 ± rho/3 (rho: the separation, under each reading)?"
    )
)
display(*checks("hm-thm32"))
f_refusals = facts.refusals_facts(draws, greedy, k_mn, refuse, syn_p, thm32_jl10, thm32_jl30)

# %% [markdown]
# **How often the paper's width works.** The width comes from a Johnson-Lindenstrauss step:
# "with high probability, all the pairwise distances between $\{0, x^{(1)}, \dots, x^{(n)}\}$ are
# preserved up to $1 \pm \rho/3$ factor", and "for example, $c = 10$ works" (appendix B). We test
# that step, which does not depend on the order of moves, on 100 independent draws of 600 random
# unit points in $\mathbb R^{200}$. At $c = 10$ it fails on every draw: on {eval}`f_refusals.jl10_sq` under
# Assumption 3.1's reading of $\rho$ and on {eval}`f_refusals.jl10_dist` under the proof's. At $c = 30$ it
# fails on {eval}`f_refusals.jl30_sq` and {eval}`f_refusals.jl30_dist` (JL-step table, <a href="claims.html#claim-hm-thm32">evidence</a>). A
# one-line estimate explains why (folded).
#
# :::{admonition} Details: what these draws test, and why $c = 10$ is too small
# :class: dropdown
# With tolerance $\varepsilon = \rho/3$ and $k = c\ln n/\rho^2$, we get $k\varepsilon^2 = (c/9)\ln n$,
# whatever $\rho$ is. A projected distance deviates by more than a factor $\varepsilon$ with
# probability about $e^{-k\varepsilon^2} = n^{-c/9}$, so over the $n^2/2$ pairs (two tails) about
# $n^{2 - c/9}$ pairs fail: {eval}`f_refusals.jl_pairs10` at $n = 600$ for $c = 10$, {eval}`f_refusals.jl_pairs30` for
# $c = 30$. The step needs $c \gtrsim 18$; reading $\log$ as $\log_2$ raises the effective $c$ only to
# {eval}`f_refusals.c_log2`. On every draw $\rho > 1$ under both readings (table), while the proof's next step,
# $\rho(1-\rho/3) \ge 2\rho/3$, needs $\rho \le 1$: the draws test the printed width and its
# projection step, not the rest of the proof's chain; the estimate above covers every $\rho$.
# :::
#
# The construction itself, in the paper's order at $c = 10$, then refuses on about one draw in
# five under Assumption 3.1's reading ({eval}`open_sq`, 95% interval {eval}`f_refusals.r_sq_ci`) and on
# {eval}`open_dist` ({eval}`f_refusals.r_dist_ci`) under the proof's reading, whose width is larger; at
# $c = 30$ on none (refusal-rate table). The greedy order below fitted every one of the first
# {eval}`f_refusals.greedy_n` draws.
#
# :::{admonition} Details: a refusal is also a failure of the paper's construction
# :class: dropdown
# A refusal is also a failure of the paper's own construction, whose unit for $z$ is
# $\mathrm{ReLU}(\langle z, h\rangle - \beta)$ with a threshold $\beta < \|z\|^2$: it fires at least as strongly at any $h$ with
# $\langle z, h\rangle \ge \|z\|^2$.
# :::
#
# On the synthetic set the paper's order refused on {eval}`f_refusals.syn_ref` projections at the paper's
# width; on MNIST, at $k = 320$ ({eval}`f_refusals.mn_below` times below the paper's width), it fits all the
# digits on {eval}`f_construction2.mn_fit` of {eval}`f_construction2.n_proj` projections. What fails as printed is therefore the proof of Lemma B.1 (and its statement under the distance
# reading), the constant $c = 10$, and, on a fraction of draws that depends on the reading of
# $\rho$, the paper's order at the paper's width. Theorem 3.2 itself holds, by the following order.
#
# ### A better order: move exposed points first
#
# Among the points not yet moved, the one of largest norm always has margin $> 0$, since
# $\langle z, h\rangle \le \|z\|\|h\| \le \|z\|^2$ with equality only for $h = z$. So each block
# can take the $k$ remaining points of largest positive margin. Moved points sit at surrogates of
# small norm (adjustment 2), which never take a remaining point's margin below zero, so the
# construction never gets stuck, *at any width* $k \ge 2$ (at $k = 1$ there is room for only two
# surrogate directions).
#
# The paper's random unit surrogates are meant to be pairwise nearly uncorrelated (inner products
# below one half) for $k > 4\log r$; the table shows how often that holds.

# %% tags=["hide-input"]
surr = pd.DataFrame(
    [
        hr.surrogate_inner_products(r, k)
        for r, k in (
            (10, math.floor(4 * math.log(10)) + 1),  # smallest integer above 4 ln r
            (10, 20),
            (10, 40),
            (100, math.floor(4 * math.log(100)) + 1),
            (10, math.floor(4 * math.log2(10)) + 1),  # log read as log2
        )
    ]
)
display(table(surr))
surr_10, surr_k10 = show.pct(surr.below[0], 1), show.count(surr.k[0])
assert surr.below[0] < 0.5 and surr.below[4] < 0.5
surr_log2, surr_k14 = show.pct(surr.below[4], 1), show.count(surr.k[4])

# %% [markdown]
# With $r = 10$ classes and the smallest integer width above $4\ln r$, $k =$ {eval}`surr_k10`,
# only {eval}`surr_10` of random draws have every pairwise inner product below one half: at that
# width the paper's surrogate step holds on a minority of draws, and it needs a larger $k$ (or a
# deterministic choice like ours). We read $\log$ as $\ln$; with $\log_2$, $k =$ {eval}`surr_k14`
# and the share is {eval}`surr_log2`, still a minority.
#
# :::{admonition} Details: how the paper's pieces map to the book's
# :class: dropdown
# The paper sets out the construction in its Section 3 (Lemma 3.3 and Eqs. (3.2)-(3.6)) and
# proves it in appendix B through Lemmas B.1 and B.2. We read both, and appendix C, in a second
# copy of the ICLR text that includes the appendices (a plain-text extraction in which some
# formulas are garbled; we say so where it matters).
#
# | paper | what it provides | the book's replacement | check |
# |---|---|---|---|
# | Eq. (3.6) / Lemma B.1 | one block moves $k$ points, fixes the rest | the book's one-block lemma (margins) | `hr.lemma_block`, 300 blocks above |
# | Lemma B.1's hypothesis (b) | separation for the common bias | $\|\alpha_i - \alpha_j\|^2 \ge 6\rho'$ | ledger `hm-lemma-b1` |
# | Lemma 3.3 / Lemma B.2 | given points with B.2's (a), (b), the $\ell$ blocks send every point to its surrogate | greedy order over points with positive margins | the exact fits below |
# | B.2's proof applying B.1 | B.2's separation $\rho'$ feeds B.1's proof | not needed: margins are checked directly | ledger `hm-b2-meets-b1` (B.1 needs $6\rho'$) |
# | proof of Theorem 3.2, projection | projected points satisfy B.2's (a), (b) w.h.p. ($\rho' = \rho/3$) | margins measured after projection; $A_0 = G/\sqrt k$ | the margin table; ledger `hm-thm32` (the JL step at $c = 10$ and $c = 30$) |
# | surrogates, $k > 4\log r$ | random $q_c$ with small inner products | norm $s$, deterministic | the inner-product table |
# | Eqs. (3.2)-(3.6) | the layers, $k$ and $\ell = \lceil n/k\rceil$ | same layers, last block without skip | the exact fits below |
# :::
#
# With these changes the construction, in the greedy order and at the package's default width
# $k = \lceil 6\ln n\rceil$ (a convenience: the greedy order needs no particular width), fits both data
# sets exactly:

# %% tags=["hide-input"]
results = pd.DataFrame(hr.exact_fits({"synthetic": (X_syn, y_syn), "MNIST": (X_mn, y_mn)}))
display(
    table(
        results[
            [
                "data",
                "n",
                "k",
                "blocks",
                "ceil_n_over_k",
                "trainable",
                "projection",
                "min_margin",
                "max_error",
            ]
        ],
        sci=["min_margin", "max_error"],
    )
)
assert results.max_error.max() <= 1e-8
fit_worst = show.num(results.max_error.max())

syn_extra, mn_extra = (hmf.extra_blocks_text(results, d) for d in ("synthetic", "MNIST"))

# %% [markdown]
# Every fit is exact to rounding error: the worst $|\text{output} - \text{one-hot}|$ is
# {eval}`fit_worst`, on MNIST, where the margins are smallest. The greedy order uses
# {eval}`syn_extra` on the synthetic points and {eval}`mn_extra` on MNIST.
#
# **Theorem 3.2 in general, in one line.** Project with a Gaussian $A_0$ to any width $k \ge 2$
# (distinct points stay distinct and non-zero with probability 1); among the points not yet
# moved, the one of largest norm has a positive margin ({ref}`exercise <hm-ex-largest>`), and
# surrogates of norm $s$ never take that margin to zero, so each block moves at least one point.
# At most $n$ blocks then fit every label, with at most $n(2k^2 + k) + rk + r^2 + r$ parameters:
# $O(n + r^2)$ at a fixed $k$ (the book's count, for the greedy order), within the paper's
# $O(n\log n + r^2)$. No separation constant $\rho$ enters the count, only the size of the
# weights. The paper's order uses exactly $\lceil n/k\rceil$ blocks; the greedy order stays close
# to that (`blocks` column), but that is measured, not proven.
#
# **Constant width.** Nothing forces $k$ to grow with $n$; the next cell fits the 2,000 MNIST
# digits at $k = 3$ and $k = 2$.
#
# :::{admonition} Details: memorisation with fewer parameters
# :class: dropdown
# A memorisation result of the same year points the same way: a two-layer ReLU network with
# $2n + d$ weights can represent any real-valued function on a sample of $n$ points in $d$
# dimensions (Theorem 1 of {cite}`zhang2017understanding`). With depth,
# and under a separation condition on the inputs, $O(n^{2/3})$ parameters suffice
# {cite}`park2021provable`, and $\tilde O(\sqrt n)$ {cite}`vardi2022optimal`, optimal up to
# logarithmic factors and only with weights of large bit complexity. Those networks are not
# residual networks of the paper's form.
# :::

# %% tags=["hide-input"]
narrow = []
for k in (3, 2):
    net, rep = hr.theorem32_construction(X_mn, y_mn, k=k, r=10)
    narrow.append(
        dict(
            k=k,
            blocks=rep["blocks"],
            ceil_n_over_k=math.ceil(2000 / k),
            trainable=hr.parameter_count(net)["trainable"],
            max_error=np.abs(net(X_mn) - np.eye(10)[:, y_mn]).max(),
        )
    )
narrow = pd.DataFrame(narrow)
display(table(narrow, sci=["max_error"]))
display(*checks("hm-constant-width"))
f_narrow_widths = facts.narrow_widths_facts(narrow, results)

# %% [markdown]
# At $k = 3$ the digits are fitted exactly with {eval}`f_narrow_widths.k3_params` trainable parameters, within
# the proven bound {eval}`f_narrow_widths.k3_bound` (asserted), against {eval}`f_narrow_widths.log_params` at
# $k = \lceil 6\ln n\rceil$; at $k = 2$ the margins shrink and rounding grows (error
# {eval}`f_narrow_widths.k2_err`, table). The figure shows the block count against $\lceil n/k\rceil$ and the
# parameter count against $n$, with $n(2k^2 + k)$ for reference (the proven bound for the greedy
# order). (The fixed projection $A_0$ adds $kd$ numbers that are not trained.) What the check tests is folded (<a href="claims.html#claim-hm-constant-width">evidence</a>).
#
# :::{admonition} Details: what the check `hm-constant-width` is evidence for
# :class: dropdown
# In the ledger's
# check `hm-constant-width` only the exact fit is evidence; its second part, the parameter count
# within the bound, is an implementation test, since the code moves at least one point per block
# and only a bug could break it.
# :::

# %% tags=["hide-input"]
hmf.fit_size_figure(results, narrow)
plt.show()

# %% [markdown]
# *Widget* (needs a live kernel; on the static page it shows nothing; what it shows is folded),
# then a frame slider that works without a kernel.
#
# :::{admonition} Details: what the widget and the slider show
# :class: dropdown
# $n$ points of $r$ classes in $\mathbb R^{20}$ and a
# width $k$. The picture shows a fixed random 2-D view of the hidden states after the
# projection (left) and after the last residual block (right): every point has landed on the
# surrogate of its class. The frame slider after it steps through the blocks one by one
# without a kernel.
# :::

# %% tags=["hide-input", "nbval-ignore-output"]
widgets.interact(
    hmf.show_construction,
    n=widgets.IntSlider(value=60, min=10, max=300, step=10, continuous_update=False),
    k=widgets.IntSlider(value=6, min=2, max=20, continuous_update=False),
    r=widgets.IntSlider(value=3, min=1, max=10, continuous_update=False),
);

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(4.5, 4.5))
anim = FuncAnimation(fig, lambda j: hmf.construction_view(60, 6, 3, axes=ax, step=j), frames=11)
display(HTML(anim.to_jshtml()))
plt.close(fig)

# %% [markdown]
# <div data-live="hm-theorem32">
#
# ![The live explorer at its default setting: the figure's six points, and the hidden plane after the first block](live/hm-theorem32.png)
#
# </div>
#
# **Live, on the web page.** Place points in the plane (click; drag to move; the select sets the next label) or pick
# a preset. The page runs the construction with the greedy order, block by block, after a random
# projection (its draw is a control), counts the parameters, and says why when it refuses.

# %% tags=["hide-input"]
from resnet_nb.core.conv import conv_weight_count as conv_weights

stem = conv_weights(3, 16)
widths, prev, total = (64, 128, 256), 16, 0
for c in widths:  # 9 blocks per stage; the first block's first convolution changes the width
    total += conv_weights(prev, c) + conv_weights(c, c) + 8 * 2 * conv_weights(c, c)
    prev = c
cifar_params = show.fixed((stem + total) / 1e6, 2)

# %% [markdown]
# ## Their experiments
#
# The paper tests the idea on images with an architecture stripped down to residual
# convolutions $x + C_2(\mathrm{ReLU}(C_1x))$: no batch normalisation, no dropout, no max
# pooling, a **fixed random last layer**, and residual convolutions initialised from a Gaussian
# much smaller than the standard one, so that the blocks start close to the identity. Its
# ImageNet errors are very likely validation errors (folded below).
#
# :::{admonition} Details: the architecture and training, from the paper's Section 4
# :class: dropdown
# * Every residual block is $x + C_2(\mathrm{ReLU}(C_1x))$, with two $3\times3$ convolutions
#   $C_1$, $C_2$ and a single ReLU. There is **no batch normalisation, no dropout and no max
#   pooling**. Downsampling is a stride-2 first convolution, and the shortcut is then
#   average-pooled and padded.
# * CIFAR10 and CIFAR100 use the same network: a standard $3\times3$ convolution to 16
#   channels, then 9 residual blocks at 64 channels, 9 at 128 (stride 2), 9 at 256 (stride 2),
#   $8\times8$ global average pooling, and a $256\times$classes last layer. The paper reports
#   {abbr}`13.59 (quoted from Hardt & Ma, Section 4)` million trainable parameters; our count of the architecture as
#   described (the code cell above) gives {eval}`cifar_params` million, without biases.
# * **The last layer is a fixed random projection** and is not trained, so the convolutions
#   hold every trained weight. The authors report that this slightly improved test error.
# * **Initialisation**: the residual convolutions start from a Gaussian whose standard
#   deviation scales like $1/(k^2c)$ ($k\times k$ kernels, $c$ channels) instead of the
#   standard $1/(k\sqrt c)$, so the residual blocks start close to the identity, in the spirit
#   of the linear theory. Section 4.1 of the ICLR text states it for a residual convolution of
#   kernel size $k\times k$ with $c$ *output* channels (inside a residual block the input and
#   output channels are equal, so our reading of $c$ agrees there), and reports that this much
#   smaller initialisation helped training without affecting representation.
# * Training: momentum {abbr}`0.9 (quoted from Hardt & Ma, Section 4)`, batch size {abbr}`128 (quoted from Hardt & Ma, Section 4)`, weight decay {abbr}`10⁻⁴ (quoted from Hardt & Ma, Section 4)`, learning
#   rate {abbr}`0.05 (quoted from Hardt & Ma, Section 4)`, divided by 10 at {abbr}`30,000 (quoted from Hardt & Ma, Section 4)` and
#   {abbr}`50,000 (quoted from Hardt & Ma, Section 4)` steps.
# * ImageNet: an all-convolutional variant of the 34-layer network of {cite}`he2016deep`,
#   with {abbr}`35.7 (quoted from Hardt & Ma, Section 4)` million trainable parameters, trained asynchronously on {abbr}`6 (quoted from Hardt & Ma, Section 4)`
#   machines with {abbr}`8 (quoted from Hardt & Ma, Section 4)` GPUs each. It *underfits* and reaches {abbr}`35.29 (quoted from Hardt & Ma, Section 4)`% top-1 and
#   {abbr}`14.17 (quoted from Hardt & Ma, Section 4)`% top-5 error on what the paper calls "the test set (50000 data points)",
#   against {abbr}`25.03 (quoted from Hardt & Ma, Section 4)`% "classification error" (their words) for the original model.
#   50,000 is the size of the ILSVRC-2012 *validation* set (the test set's 100,000 labels are
#   withheld), so these are very likely validation errors.
# :::
#
# Their Table 2, top-1 errors in % (where the ResNet row comes from is folded below):
#
# | method | CIFAR10 | CIFAR100 | ImageNet | remarks |
# |---|---|---|---|---|
# | All-CNN | {abbr}`7.25 (quoted from Hardt & Ma, Table 2)` | {abbr}`32.39 (quoted from Hardt & Ma, Table 2)` | {abbr}`41.2 (quoted from Hardt & Ma, Table 2)` | all-convolutional, dropout, extra data processing |
# | **Hardt & Ma** | {abbr}`6.38 (quoted from Hardt & Ma, Table 2)` | {abbr}`24.64 (quoted from Hardt & Ma, Table 2)` | {abbr}`35.29 (quoted from Hardt & Ma, Table 2)` | all-convolutional |
# | ResNet (He et al., see below) | {abbr}`6.43 (quoted from Hardt & Ma, Table 2)` | {abbr}`25.16 (quoted from Hardt & Ma, Table 2)` | {abbr}`19.38 (quoted from Hardt & Ma, Table 2)` | |
# | DenseNet | {abbr}`3.74 (quoted from Hardt & Ma, Table 2)` | {abbr}`19.25 (quoted from Hardt & Ma, Table 2)` | N/A | |
#
# :::{admonition} Details: where the ResNet row comes from
# :class: dropdown
# The two ResNet numbers for ImageNet differ: the text's {abbr}`25.03 (quoted from Hardt & Ma, Section 4)` is the 34-layer
# original their network is derived from (it is the top-1 error of the 34-layer ResNet in
# {cite}`he2016deep`'s Table 2, 10-crop testing on the ImageNet validation set, listed again as
# "ResNet-34 A" in their Table 3), while Table 2's {abbr}`19.38 (quoted from Hardt & Ma, Table 2)` is the top-1 error of He et al.'s
# deepest, 152-layer ResNet in their Table 4 (single-model results on the validation set; their
# Table 3 lists the same network at a larger 10-crop error). We read both numbers in a copy of
# He et al.'s text. The paper does not say which model its table lists, so the matching is ours.
# Both He et al.'s numbers and, by the size of the set (above), Hardt & Ma's own are validation
# errors. The CIFAR-100 entry of the ResNet row, {abbr}`25.16 (quoted from Hardt & Ma, Table 2)`, is of unknown provenance: the paper
# attributes the row to "He et al. (2015)", the CVPR paper {cite}`he2016deep`, which reports no
# CIFAR-100 result. We believe, but have not verified, that it is the 164-layer network with
# the original residual unit of {cite}`he2016identity`.
# :::
#
# The stripped-down network beats the earlier all-convolutional network on all three
# benchmarks. On ImageNet it stays far behind ResNet, which the authors put down to a
# learning-rate schedule and hyperparameters that were not tuned.

# %% tags=["remove-input"]
f_analog_setup = facts.analog_setup_facts()

# %% [markdown]
# ### A scaled-down analog on CPU (not a reproduction)
#
# We cannot train on CIFAR or ImageNet here. As an **analog** we train a small network of the
# paper's kind on MNIST digits, from three initialisations ({eval}`f_analog_setup.seeds_per_init`): the paper's
# small Gaussian on the residual convolutions only (`hardt_ma_residual`), He initialisation
# everywhere (`standard`), and the small one on every convolution (`hardt_ma`).
#
# :::{admonition} Details: the analog's settings and provenance
# :class: dropdown
# The network (`resnet_nb.core.conv`, settings in `hm_analog.CONFIG`) has a stem
# convolution, **two residual blocks** of the paper's form $x + C_2(\mathrm{ReLU}(C_1x))$ at
# {eval}`f_analog_setup.ch1` and {eval}`f_analog_setup.ch2` channels with a strided convolution between them, no batch
# normalisation, global average pooling and a **fixed random last layer**. The data are
# {eval}`f_analog_setup.n_train` training and {eval}`f_analog_setup.n_test` held-out digits of the book's 5,000-digit MNIST
# subset, downsampled to $14\times14$. Training is SGD with momentum {eval}`f_analog_setup.hm_momentum`,
# batch size {eval}`f_analog_setup.hm_batch`, learning rate {eval}`f_analog_setup.hm_lr` divided by 10 at epochs
# {eval}`f_analog_setup.hm_ms1` and {eval}`f_analog_setup.hm_ms2`, for {eval}`f_analog_setup.hm_epochs` epochs, and **no weight decay** (the
# paper uses {abbr}`10⁻⁴ (quoted from Hardt & Ma, Section 4)`). We compare three initialisations (seeds: {eval}`f_analog_setup.seeds_per_init`; the
# seed draws the weights and the data order):
#
# * `hardt_ma_residual`: Gaussian with standard deviation $1/(k^2c)$ on the residual
#   convolutions only, the paper's choice; the standard He initialisation on the stem and the
#   strided convolution;
# * `standard`: He initialisation everywhere;
# * `hardt_ma`: the small initialisation on *every* convolution, a variant for comparison (the
#   stem and the strided convolution then start tiny too, and the
#   logits start near zero).
#
# The runs are committed under `results/hm_conv/records/`, one record per run with its provenance (git commit,
# versions, machine, wall time); the cell below reads them. To recompute (about
# {eval}`f_analog_setup.hm_minutes` minutes of wall time on this shared two-core machine, one thread):
# `python -c "from resnet_nb.experiments import hm_analog; hm_analog.reproduce('results/hm_conv')"`
# after removing `results/hm_conv/records/` (a run whose record is there is skipped).
# :::

# %% tags=["hide-input"]
hmf.analog_figure(f_analog_setup.runs)
plt.show()
display(table(f_analog_setup.summary))
prov = f_analog_setup.prov
print(
    f"provenance: commit {prov['git_commit'][:10]}, torch {prov['torch']}, {prov['machine']}, "
    f"{len(prov['runs'])} runs"
)

# %% tags=["remove-input"]
by = f_analog_setup.summary.set_index("init")
small, std = by.loc["hardt_ma_residual"], by.loc["standard"]
an_diff = hm_analog.difference(f_analog_setup.runs)
n_held = f_analog_setup.cfg["n_per_class"] * 2
at8 = f_analog_setup.runs[f_analog_setup.runs.epoch == 8].groupby("init").test_accuracy.mean()
inits = ("hardt_ma", "hardt_ma_residual", "standard")
f_b10 = facts.analog_test_facts(an_diff, by, checks, n_held, small, std)

# %% tags=["remove-input"]
f_b11 = facts.analog_runs_facts(
    an_diff, at8, by, f_analog_setup.cfg, checks, inits, n_held, f_analog_setup.runs, small, std
)
display(table(f_b11.diff_table, 2))
display(f_b11.tl_check, f_b11.tl_falsifier)

# %% [markdown]
# **What the analog shows.** Over {eval}`f_b10.n_seeds` seeds each, the small initialisation on the
# residual convolutions and the standard one end at similar held-out accuracy (summary table). The
# 95% Welch interval of their mean difference {eval}`f_b10.verdict`. It {eval}`f_b10.effect_verdict` an improvement of
# {eval}`f_b10.effect_pts` points ({eval}`f_b10.effect_digits` held-out digits), an effect size the book chose
# to test, not one the paper claims (<a href="claims.html#claim-hm-analog-small-init">evidence</a>). The paper's claim
# is that the small initialisation "helped training" (Section 4.1), which we read as a lower
# training loss at the end of the {eval}`f_analog_setup.hm_epochs` epochs. In the analog it did not: the ratio of
# the geometric means of the final training losses, small over standard, is {eval}`f_b11.loss_ratio`
# (a *higher* loss), though with five seeds its 95% interval, {eval}`f_b11.tl_low` to {eval}`f_b11.tl_high`,
# {eval}`f_b11.tl_interval` (<a href="claims.html#claim-hm-analog-train-loss">evidence</a>).
#
# :::{admonition} Details: a fixed budget, not convergence
# :class: dropdown
# The comparison is made after a fixed budget of {eval}`f_analog_setup.hm_epochs` epochs, **not at
# convergence**. The learning rate in the last epochs is {eval}`f_b11.final_lr`, a hundredth of the
# initial one, so a small change of the loss there says more about the step size than about
# the distance to a minimum: over the last five epochs no run's training loss changes by more
# than {eval}`f_b10.drift`, but between epochs {eval}`f_analog_setup.hm_ms1` and {eval}`f_analog_setup.hm_ms2` the mean training loss
# of the small initialisation still fell by a factor of {eval}`f_b11.late_fall`. After eight epochs
# the mean held-out accuracies are {eval}`f_b11.early`, the variant with the small initialisation on
# every convolution being the slowest to leave chance (a mean over its {eval}`f_b11.n_hm_all` seeds only).
# :::
#
# At this scale, then, the analog {eval}`f_b10.conclusion` of {eval}`f_b10.effect_pts` points or more, and
# shows no training benefit. The paper trained networks hundreds of times larger on harder data,
# with weight decay, where depth may make the starting point matter more.
#
# ## What the paper leaves open
#
# The paper ends (its Section 5) with a conjecture: Theorem 2.2 has an analogue for non-linear
# residual networks. This chapter does not test it; later work is folded below.
#
# :::{admonition} Details: later work on the conjecture
# :class: dropdown
# We have read only the abstracts of
# these papers (and say nothing beyond them). {cite}`shamir2018resnets` considers a network with
# a single residual block whose residual unit may itself be an arbitrarily deep non-linear
# network, and proves that its optimisation landscape has no local minimum with a value above
# what a linear predictor attains, under minimal or no assumptions on the architecture, the data
# distribution and the loss. {cite}`kawaguchi2019depth` prove, for a type of arbitrarily deep
# ResNets with arbitrary non-linear activations, that no local minimum is worse than the global
# minimum of the corresponding classical model (a linear predictor on fixed features), which
# they present as an affirmative answer to an open question stated in a NeurIPS 2018 paper.
# {cite}`yun2019deep` show, under geometric conditions, that every critical point of a deep
# ResNet is either at least as good as the best linear predictor or has a Hessian with a strictly
# negative eigenvalue, and bound the risk at critical points in near-identity regions. The
# paper's conjecture is narrower in one way and wider in another: "a result analogous to
# Theorem 2.2", that is, no critical point in a region around the identity other than global
# minima. As their abstracts state them, these results compare local minima or critical points
# with linear predictors; none of them claims that every critical point near the identity is a
# global minimum.
# :::
#

# %% tags=["remove-input", "hide-output"]
display(HTML(ledger.ledger_html(claims_run)))
f_count2000 = facts.count2000_facts(results)

# %% [markdown]
# ## Exercises
#
# ```{exercise}
# :label: hm-ex-margin
#
# Show that for unit vectors $\|z\|^2 - \langle z, h\rangle = \tfrac12\|z-h\|^2$, so that every
# point of a set on the sphere with $\|x_i - x_j\|^2 \ge \rho$ has margin at least $\rho/2$.
# Then give three points in $\mathbb R^2$, not on a circle, where one of them has negative
# margin.
# ```
#
# ```{solution} hm-ex-margin
# :class: dropdown
#
# $\|z - h\|^2 = \|z\|^2 + \|h\|^2 - 2\langle z,h\rangle = 2(1 - \langle z,h\rangle)$ when
# $\|z\| = \|h\| = 1$. Off the sphere, take $z = (1,0)$, $h = (2,0)$ and $(0,1)$. Then
# $\|z\|^2 - \langle z,h\rangle = 1 - 2 < 0$: any unit $\mathrm{ReLU}(\langle u, x\rangle - c)$
# that is positive at $z$ with $u = z$ is larger still at $h$. The test
# `test_lemma_block_refuses_an_unexposed_centre` uses exactly these points.
#
# % check hints hm-ex-margin (written by scripts/exercise_cells.py from resnet_nb.book.exercises)
# **In the notebook** the answer cell under this exercise has a check. Besides a wrong shape, sign, factor of two or transpose, it recognises these mistakes and answers:
#
# - Two of your points coincide; the points must be distinct.
# - All your points have the same norm, so by the identity of the first part no margin is negative.
# - Every margin is still non-negative: a point's margin drops below zero when another point lies further out, roughly in its direction.
# % end check hints
# ```
#
# ```{exercise}
# :label: hm-ex-count
#
# A network with $\ell$ residual blocks of width $k$ and the last block of this chapter has
# $\ell(2k^2 + k) + rk + r^2 + r$ trainable parameters. How large is $\ell$ for the paper's
# order, and what does the greedy order guarantee? Compare with the `blocks` and
# `trainable` columns printed above for the synthetic points at $n = 2000$.
# ```
#
# ```{solution} hm-ex-count
# :class: dropdown
#
# Each block has $k^2$ ($U$) $+ k^2$ ($V$) $+ k$ ($b$) parameters; the last block has $rk$
# ($U$), $r^2$ ($V$) and $r$ ($b$). The paper's order moves exactly $k$ points per block, so
# $\ell = \lceil n/k\rceil$ and the count is at most $(n/k + 1)(2k^2 + k) + rk + r^2 + r
# = 2nk + n + O(k^2 + rk + r^2)$. The greedy order is only guaranteed one point per block,
# so the proven bound is $\ell \le n$, that is $n(2k^2 + k) + rk + r^2 + r$; the measured
# $\ell$ is close to $\lceil n/k\rceil$ but may exceed it. For the synthetic points at
# $n = 2000$: $k =$ {eval}`f_count2000.count_k_s` and $\ell =$ {eval}`f_count2000.count_l_s` blocks give {eval}`f_count2000.count_res` parameters in the blocks
# and {eval}`f_count2000.count_last` in the last block, {eval}`f_count2000.count_total` in all, as printed. The
# MNIST fit at $k = 3$, with more than $\lceil n/k\rceil$ blocks, shows that the paper-order
# count $2nk + n + \dots$ is not a bound for the greedy order.
#
# % check hints hm-ex-count (written by scripts/exercise_cells.py from resnet_nb.book.exercises)
# **In the notebook** the answer cell under this exercise has a check. Besides a wrong shape, sign, factor of two or transpose, it recognises these mistakes and answers:
#
# - The last block also moves the points left over when k does not divide n.
# - n is what the greedy order guarantees; the paper's order moves k points per block.
# % end check hints
# ```
#
# ```{exercise}
# :label: hm-ex-largest
#
# Prove that among distinct points $h_1,\dots,h_n$ the one of largest norm has a positive
# margin. Why does moving points onto surrogates of norm $s \le \tfrac12\min_i\|h_i\|$ never
# make the margin of a remaining point non-positive?
# ```
#
# ```{solution} hm-ex-largest
# :class: dropdown
#
# Let $\|z\| \ge \|h\|$ for every other point $h$. Then
# $\langle z,h\rangle \le \|z\|\|h\| \le \|z\|^2$. Equality in the first step needs $h = cz$
# with $c \ge 0$, and then $\langle z, h\rangle = c\|z\|^2$ with $c = \|h\|/\|z\| \le 1$;
# equality in the second step needs $c = 1$, that is $h = z$. Distinctness alone therefore
# makes the inequality strict. A moved point sits at $q$ with $\|q\| = s \le \tfrac12\|z\|$,
# so $\|z\|^2 - \langle z, q\rangle \ge \|z\|^2 - s\|z\| \ge \tfrac12\|z\|^2 > 0$. The margin
# of $z$ after a move is therefore at least the smaller of its margin before the move and
# $\tfrac12\|z\|^2$. It may drop, but it stays positive.
# ```

# %% exercise="hm-ex-margin" tags=["exercise-answer", "remove-cell"]
# Your answer to hm-ex-margin: "Show that for unit vectors |z|^2 - ..."
# replace every ... below, run this cell, then the check under it.
points = ...  # three points in R^2, an array of shape (3, 2), one of them with negative margin

# %% exercise="hm-ex-margin" tags=["exercise-check", "remove-cell"]
from resnet_nb.book import exercises

exercises.check("hm-ex-margin", points)


# %% exercise="hm-ex-count" tags=["exercise-answer", "remove-cell"]
# Your answer to hm-ex-count: "A network with ell residual blocks of ..."
# replace every ... below, run this cell, then the check under it.
def blocks(n, k):
    """The number l of residual blocks in the paper's order for n points and width k."""
    ...


# %% exercise="hm-ex-count" tags=["exercise-check", "remove-cell"]
from resnet_nb.book import exercises

exercises.check("hm-ex-count", blocks)
