"""The tour's first figure and the numbers its text quotes (resnet_nb.book.facts.tour,
resnet_nb.book.tour_figures)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from resnet_nb.book import tour_figures  # noqa: E402
from resnet_nb.book.facts import tour  # noqa: E402
from resnet_nb.book.palette import LABELS  # noqa: E402
from resnet_nb.core.data import synthetic_linear  # noqa: E402


def test_key_figure_facts_follow_theorem_2_1_and_theorem_1():
    data = synthetic_linear(d=10, m=400, seed=3)
    f = tour.key_figure_facts(data)
    assert all(b <= c for b, c in zip(f.built, f.bound)) and f.floor == 1
    # Theorem 1, n = 2: the condition number at 0 is the same at every depth ...
    c2 = [c for _, c in f.cond_at_zero[2]]
    assert np.ptp(c2) <= 1e-9 * c2[0]
    # ... and n = 1 grows with depth
    c1 = [c for _, c in f.cond_at_zero[1]]
    assert all(a < b for a, b in zip(c1, c1[1:]))
    # the quoted |lambda|max / |lambda|min at n = 2 is smax(M) / smin(M), M = Sxx - Syx (Eq. 12)
    stats = data.stats()
    sv = np.linalg.svd((stats.Sxx - stats.Syx).numpy(), compute_uv=False)
    assert repr(f.cond2_exact) == f"{sv.max() / sv.min():.4g}"


def test_key_figure_draws_both_panels():
    data = synthetic_linear(d=10, m=400, seed=3)
    fig = tour_figures.key_figure(tour.key_figure_facts(data))
    ax1, ax2 = fig.axes
    assert len(ax1.lines) == 3 and len(ax2.lines) == 2  # construction, bound, floor; n = 1, 2
    plt.close(fig)


def test_figure5_draws_each_architecture_and_the_facts_read_the_same_summary():
    from resnet_nb.experiments import fig5
    from resnet_nb.shared import common

    T5 = common.committed("fig5")
    s5 = fig5.summarise(T5)
    fig = tour_figures.figure5(s5, common.ARCHS)
    (ax,) = fig.axes
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [LABELS[a] for a in common.ARCHS]
    plt.close(fig)
    f = tour.fig5_facts(T5, s5)
    assert repr(f.depth_max) == f"{int(s5.depth.max()):,}"
    mean = s5.set_index(["arch", "depth"]).lg_cond_mean["orthogonal"]
    assert repr(f.ortho_growth) == f"{mean.iloc[-1] - mean.iloc[0]:,.1f}"


def test_construction_steps_show_the_inputs_halfway_and_the_end():
    from resnet_nb.hardt_ma import relu as hmr

    g = np.random.default_rng(0)
    X = hmr.unit_norm_columns(g.standard_normal((2, 20)))
    labels = g.integers(0, 3, 20)
    net, report = hmr.theorem32_construction(X, labels, k=2, r=3, seed=0)
    states = net.trajectory(X)
    fig = tour_figures.construction_steps(X, labels, states, 3)
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == [
        "the inputs",
        f"after block {len(states) // 2} of {len(states) - 1}",
        f"after block {len(states) - 1} of {len(states) - 1}",
    ]
    plt.close(fig)
    fit_err = np.abs(net(X) - np.eye(3)[:, labels]).max()
    f = tour.construction_facts(net, report, fit_err, 20, 3)
    assert repr(f.blocks_s) == str(report["blocks"]) and repr(f.n_s) == "20"


def test_final_losses_draws_one_curve_per_architecture_in_each_panel():
    import pandas as pd

    from resnet_nb.book.tour_figures import final_losses

    s9 = pd.DataFrame({"arch": ["2-shortcut"] * 2 + ["xavier"] * 2, "depth": [2, 4] * 2, "lg_excess": [-9, -8, -2, -1]})
    s10 = pd.DataFrame({"arch": ["2-shortcut", "xavier"], "depth": [2, 2], "final_loss": [0.1, 1.0]})
    a9, a10 = final_losses(s9, s10, ["2-shortcut", "xavier"], ["2-shortcut", "xavier"]).axes
    assert len(a9.lines) == 2 and len(a10.lines) == 2
    assert list(a9.lines[1].get_ydata()) == [-2, -1] and list(a10.lines[0].get_ydata()) == [-1.0]
    assert a10.lines[1].get_label().endswith("-ReLU")
