# %% [markdown]
# # Performance: what it costs to rerun
#
# Every number in the experiment chapters can be recomputed on your own machine. This page says
# how long that takes, at the two scales the book uses:
#
# * the **default scale** is what a chapter runs when the book is built or when you run its
#   notebook: reduced grids (fewer depths, runs or samples) that finish in minutes;
# * the **paper scale** is the full grid of the paper's figure. Its results are committed under
#   `results/` with their provenance, and the chapters show them beside the live run.
#
# The times below are minutes of one CPU core of the machine kind the committed results were
# computed on (a virtual machine with two cores of an AMD EPYC processor). Nothing on this page
# runs an experiment: it reads the committed records and `benchmarks/latest.json`.

# %%
# %matplotlib inline
try:
    import resnet_nb  # noqa: F401
except ImportError:  # e.g. on Colab
    # %pip install -q git+https://github.com/resnet-nb/resnet-book

# %% [markdown]
# ## How long each figure takes
#

# %% tags=["hide-input"]
from IPython.display import Markdown, display

from resnet_nb.book import show, views
from resnet_nb.book.facts import performance as facts

f_bench = facts.bench_facts()
f_bench.rerun.style.hide(axis="index").format(precision=1)

# %% [markdown]
# Reading the table: at the default scale the figures together need about
# {eval}`f_bench.default_total_min` core-minutes, so each chapter runs in a few minutes. At the paper
# scale they need about {eval}`f_bench.paper_total_h` core-hours in all; with the work split over two
# worker processes on a two-core machine (`--jobs 2`) that is about {eval}`f_bench.paper_two_cores_h`
# hours of waiting. The
# largest is {eval}`f_bench.slowest_paper`, about {eval}`f_bench.slowest_paper_min` core-minutes.
#
# *How the times were obtained.* The paper-scale column adds up the computation time stored in
# each committed record. The default grid of Figure 5 is part of its paper grid, so its default
# time is the sum of the same records. For the other figures the default time is an estimate: the
# engine's cost model (the one behind the remaining-time display, which grows with depth,
# epochs, runs, learning rates and samples) applied to the default grid, with the seconds per
# unit of cost measured on that figure's paper-scale records. Figure 8 reuses the runs of
# Figure 6 and costs nothing of its own.
#
# To rerun a figure:
#
# ```bash
# python -m resnet_nb reproduce fig5 --scale default --out results-mine   # minutes
# python -m resnet_nb reproduce fig5 --scale paper --out results-mine     # hours for some figures
# python -m resnet_nb reproduce fig5 --scale paper --out results-mine --jobs 2   # over two processes
# ```
#
# Each finished work item is written as a checksummed record at once, so an interrupted run
# resumes where it stopped, and `--collect` writes the table of the items finished so far.

# %% [markdown]
# ## On your machine
#
# The times above scale roughly with how fast your machine multiplies matrices in double
# precision (float64). The machine of the benchmark below is described under its table, with
# that speed; `python benchmarks/run.py --quick` measures yours and prints it: if your machine
# multiplies matrices twice as fast, expect about half the times above. A GPU (`--device cuda`)
# is supported by the code but has not been tried on these experiments yet.

# %% tags=["hide-input"]
table, note = views.benchmark_report(targets=False)
rows = table.set_index("benchmark")["ratio"]
train_ratio = show.text(rows.get("train (Fig 9 grid)", "not measured"))
hessian_ratio = show.text(rows.get("Hessian spectra (Fig 5 grid)", "not measured"))
relu_ratio = show.text(rows.get("ReLU training (Fig 10 grid)", "not measured"))
display(Markdown(note))
table[table["benchmark"] != "paper scale: lower bound"].style.hide(axis="index")

# %% [markdown]
# ## Why it is fast enough to rerun
#
# The table compares the book's code with a straightforward implementation of the same
# computation (`benchmarks/baseline.py`), timed side by side in one run; the ratios matter, not
# the seconds. Training the linear networks of Figure 9 runs {eval}`train_ratio` faster than the
# baseline, and the Hessian spectra of Figure 5 {eval}`hessian_ratio` faster. Training the ReLU
# networks of Figure 10 on the samples runs at {eval}`relu_ratio` the baseline's speed: for those
# networks there is no shortcut, which is why Figures 7 and 10 are the slow ones. What the
# book's code does differently:

# %% [markdown]
# * **Sufficient statistics.** For a linear network the loss depends on the data only through
#   $\Sigma_{XX}$, $\Sigma_{YX}$ and $\operatorname{tr}\Sigma_{YY}$ (Eqs. 8-9 of
#   {cite}`li2016demystifying`), so training never touches the 5,000 samples.
# * **The gradient in closed form.** Eq. 7 of the paper writes the gradient of every matrix
#   as a product of the maps before and after it with $W\Sigma_{XX} - \Sigma_{YX}$;
#   `resnet_nb.core.train` computes it with one forward and one backward sweep of $d \times d$
#   products, with no autograd graph.
# * **Batching.** All runs $\times$ learning rates of one (architecture, depth) are one tensor
#   with leading axes and advance together; the residual-unit axis is stored first so that each
#   sweep step is one contiguous batched product. These products are tiny, and splitting
#   them over threads costs more than it gains, so training of small networks runs on one
#   thread.
# * **Backpropagation written out, for networks on samples.** A network with ReLUs must see
#   the samples. `resnet_nb.core.train.samples_loss_and_grad` keeps each unit's input and
#   pre-activations in the forward sweep and applies the chain rule by hand in the backward
#   sweep: fewer intermediate tensors than autograd's graph, and none of its bookkeeping.
#   The tests check it against autograd for every activation at every position and for all three
#   conventions for ReLU's derivative at 0.
# * **Diverged runs leave the batch.** A run whose loss blows up is frozen; from then on it is
#   no longer computed. The live runs' numbers do not change, bit for bit (tested), because every product
#   and sum is taken per run.
# * **Exact Hessians from structure.** For linear networks the Hessian is assembled from its
#   Kronecker blocks (`resnet_nb.core.hessians.hessian_linear`); for networks with ReLUs at the mid
#   positions, as a Gauss-Newton part plus a coupling between pairs of matrices
#   (`resnet_nb.core.relu_hessian`), instead of one Hessian-vector product per parameter.
# * **A resumable store.** Each finished work item is a checksummed record; an interrupted
#   paper-scale run resumes and never recomputes a finished item.

# %% [markdown]
# ## Against the floor of the hardware
#
# How close does the paper-scale reproduction come to the least this machine must do for it? The
# *floor* of a figure is the time of its irreducible kernels, run bare in the same process as the
# book's engine: the float64 eigenvalues (`eigvalsh`) of a random symmetric matrix of every
# Hessian's size, and, for training, the batched forward and backward products and the weight
# update of every configuration at its shapes, batch of runs and learning rates and number of
# steps, with no histories, checks or records. `python benchmarks/floor.py` runs a sample of every
# figure's work items both ways, in alternation and repeatedly (the median is kept), and
# extrapolates to the whole paper grid; the floor follows the engine's trajectory exactly (its
# final losses equal the engine's for every run that did not diverge, which the script checks).

# %%
import json

import pandas as pd

from resnet_nb.core import paths

floor_info = json.loads(paths.benchmark_file("floor.json").read_text())
by_fig = {f["figure"]: f for f in floor_info["figures"]}
FLOOR_TARGET, TRAIN_TARGET = 1.5, 2.0  # the project's targets (issue 15)
f_floor = facts.floor_facts(FLOOR_TARGET, TRAIN_TARGET, by_fig, floor_info)
views.floor_table(floor_info).style.hide(axis="index")

# %% tags=["remove-input"]
f_hessian = facts.hessian_facts(FLOOR_TARGET, by_fig, floor_info)

# %% [markdown]
# Measured on {eval}`f_floor.floor_date` (commit {eval}`f_floor.floor_commit`) with torch on {eval}`f_floor.floor_threads`
# thread per process, as each `--jobs` worker computes; the load average was {eval}`f_floor.floor_load` at
# the end of the run. {eval}`f_floor.floor_runs_note` The machine was shared, so the seconds are slower than on an idle machine
# and noisy; the ratios, taken side by side, are what carries over.
#
# *Reading the table.* "Sample ratio" is the engine's time over the floor's on the sampled items
# (medians of the repetitions); "paired ratio" takes the ratio within each repetition, where engine
# and floor ran back to back, and then the median, which a load that changes between repetitions
# disturbs less; "paper ratio" is the ratio for the whole paper grid, extrapolated (below). A
# ratio below 1 means the measurement did not resolve the difference on the shared machine. Over the whole
# reproduction the engine needs {eval}`f_floor.floor_ours_h` core-hours against a floor of
# {eval}`f_floor.floor_floor_h`, a ratio of {eval}`f_floor.floor_ratio`: {eval}`f_floor.floor_met` the project's target of
# {eval}`f_floor.floor_target`. On two worker processes (`--jobs 2`, longest item first, as the engine
# schedules them) that is about {eval}`f_floor.floor_wall_h` hours of waiting against
# {eval}`f_floor.floor_floor_wall_h` for the floor split perfectly over both cores (ratio
# {eval}`f_floor.floor_ratio_2jobs`). Figures above the target: {eval}`f_floor.floor_over`. Of the figures that only
# train, the farthest from its floor is {eval}`f_floor.floor_train_worst_fig` at {eval}`f_floor.floor_train_worst`,
# {eval}`f_floor.floor_train_met` the target of 2 for training.
#
# *Where the rest goes.* Figure 7 (paper ratio {eval}`f_hessian.fig7_ratio`) computes the exact Hessian of a
# ReLU network on all {eval}`f_hessian.fig7_m` digits at the recorded epochs of every run. Its floor counts
# only the eigenvalues of a matrix of that size, about $\tfrac43 P^3$ = {eval}`f_hessian.fig7_eig_flops`
# floating-point operations for $P$ = {eval}`f_hessian.fig7_P` parameters; the matrix has to be built first,
# and building it from the samples costs more than its eigenvalues. Every entry of the
# Hessian is a sum over the $m$ samples of a Gauss-Newton term and, where the two parameters belong
# to different matrices $a < b$, of a second-order term (`resnet_nb.core.relu_hessian`):
#
# $$
# \frac{1}{m}\sum_\mu z_a[q]\, z_b[t]\, K_{ab}[p, s]
# \;+\; \frac{1}{m}\sum_\mu z_a[q]\, g_b[s]\, M_{ab}[t, p],
# $$
#
# with $z_a$ the input of matrix $a$, $K_{ab} = F_a^\top F_b$ the product of the Jacobians of the
# output with respect to the outputs of matrices $a$ and $b$, $g_b$ the error pulled back to the
# output of $b$ and $M_{ab}$ the Jacobian of the input of $b$ with respect to the output of $a$, all
# taken per sample $\mu$. For one pair of matrices each sum is a single product of a
# $d^2 \times m$ matrix with an $m \times d^2$ one (rows $(q, t)$ against columns $(p, s)$ for the
# first, $(q, s)$ against $(p, t)$ for the second), so the assembly does $L^2$ = {eval}`f_hessian.fig7_nprod`
# such products for $L$ = {eval}`f_hessian.fig7_L` matrices of size $d$ = {eval}`f_hessian.fig7_d`: $L^2 d^4 m = P^2 m$
# = {eval}`f_hessian.fig7_madds` multiply-adds, {eval}`f_hessian.fig7_arith_x` times the arithmetic of the eigenvalues.
# Neither sum has a shortcut: each is a product of two matrices that change with every pair of
# matrices and every point of the training, with the samples as the inner dimension, and the two
# share only the factor $z_a$: making them one product, of half the multiply-adds, means
# forming for every pair a per-sample tensor of $d^3$ entries first, an element-wise pass over
# $d^3 m$ numbers that costs more than the product it saves (measured below on one pair:
# {eval}`f_hessian.fig7_merged_x` times the time of the two products). The products are
# already as large as the shapes allow, and a dense matrix product runs faster per operation than
# the reduction to tridiagonal form inside `eigvalsh`, half of whose work is matrix-vector
# products; that is why the measured gap is smaller than the gap in arithmetic.
#
# `benchmarks/floor.py --hessian-only` times, in turn and {eval}`f_hessian.fig7_hess_repeats` times over
# (on {eval}`f_hessian.fig7_hess_date`, load average {eval}`f_hessian.fig7_hess_load`), the build of one such Hessian
# ({eval}`f_hessian.fig7_build` s), the {eval}`f_hessian.fig7_nprod` bare products alone on random operands of the same
# shapes ({eval}`f_hessian.fig7_prod` s), the eigenvalues ({eval}`f_hessian.fig7_eig` s), and one pair of matrices
# both ways (two products, or the per-sample tensor and one product). Taken within each
# repetition, the build is {eval}`f_hessian.fig7_build_x` times the eigenvalues, and the bare products alone
# are {eval}`f_hessian.fig7_prod_x` times: with nothing else done, the Hessian part of Figure 7 would still take
# {eval}`f_hessian.fig7_hess_part_x` times its floor, so no assembly built on these products brings it to the
# target of {eval}`f_floor.floor_target`. The whole build takes {eval}`f_hessian.fig7_build_over_prod` times as long
# as its products alone; the rest is pushing the $d$ unit directions forward from every
# matrix's output through the later matrices and ReLU masks (which gives $F_a$, $g_a$ and
# $M_{ab}$), contracting $K_{ab}$ over the outputs sample by sample, forming the per-sample outer
# products and writing the blocks into the matrix; each is an operation on $d^2 m$ or $d^3 m$
# numbers, a $d$-th or less of a product's work but without a matrix product's speed. Contracting
# the Gauss-Newton part over the outputs before summing over the samples is already the cheaper
# order: forming $J^\top J$ over the $d m$ rows of the Jacobian does $d$ times the work. For the linear networks
# of Figures 3, 6 and 9 the $d \times d$ products are so small that each tensor operation costs
# more to dispatch than to compute, and the engine's bookkeeping in every step (the histories of
# the loss and the gradient norm, freezing diverged runs) adds operations of the same size.
#
# *How the sample is drawn and extrapolated* (`PLAN` in `benchmarks/floor.py`). Figure 2 trains 2
# and 6 blocks per stage for 2 of the 60 epochs; Figures 3, 9 and 10 take three depths of every
# architecture (and both with and without ReLU for Figure 3), shortened to a few epochs and also
# run with none, so that a constant part (initial weights, the first loss, the record) is told
# apart from the cost per epoch; Figure 5 takes one whole Hessian at each depth from 2 to 48;
# Figures 6 and 7 take run 0 of each architecture with a ninth and a sixth of the epochs and the
# same share of the Hessians. Every paper item then counts as the sampled item of its architecture
# with the nearest depth, scaled by the engine's cost model (`progress.item_cost`; $P^3$ for the
# Hessians of Figure 5, weight layers times epochs for Figure 2). The last column checks the
# choice of items on the committed paper records: the same estimator applied to the committed
# times of the sampled items, over the committed total (from {eval}`f_floor.floor_check_lo` to
# {eval}`f_floor.floor_check_hi`; 1 is exact). It cannot check the shortening: in the first epochs the runs
# that later diverge are still computed, which weighs them more than in the whole run. Figure 8
# reuses the runs of Figure 6 and computes nothing of its own.

# %% [markdown]
# ## Time per Figure 10 item against depth
#
# The slowest figure trains ReLU networks on all 5,000 samples. The time of one of its work
# items (all runs and learning rates of one architecture and depth) grows about linearly with
# the depth. A dash means that no item of that depth was timed while the machine was otherwise
# idle.

# %% tags=["hide-input"]
items10 = views.item_times("fig10").reset_index().fillna("—")
items10.columns = ["depth", "items", "mean seconds", "mean seconds (idle machine)"]
items10.style.hide(axis="index")

# %% [markdown]
# ## Live explorers: redraw times in the browser
#
# The live explorers recompute their chapter's mathematics in the reader's browser. The table gives
# the time of each control move as the browser measured it (`performance.now()` around the redraw),
# in the order the browser tests move the controls (`tests/browser/test_live_*.py`), with the
# machine they ran on. A move that changes the data recomputes a whole depth curve and is the
# slowest; the target is a redraw within 100 ms.

# %% tags=["hide-input"]
import json

from resnet_nb.core import paths

live_file = paths.RESULTS / "live" / "redraw_times.json"
live_times = json.loads(live_file.read_text()) if live_file.is_file() else {}
live_rows = [
    {
        "explorer": name,
        "setting": ", ".join(f"{k} = {v}" for k, v in move["state"].items()),
        "ms": move["ms"],
    }
    for name, entry in sorted(live_times.items())
    for move in entry["redraws"]
]
if live_rows:
    display(pd.DataFrame(live_rows).style.hide(axis="index").format({"ms": "{:.0f}"}))
    for name, entry in sorted(live_times.items()):
        m = entry["machine"]
        browser = m["browser"] or "Chromium"
        load = m.get("load") or 0
        where = f"{m['cpu']}, {m['cores']} cores ({m['system']}), load average {load:.1f}"
        print(f"{name}: measured {entry['measured']} in {browser} on {where}")
else:
    print("No redraw times recorded yet: run the browser tests (tests/browser/test_live_*.py).")
