"""The tour's first figure and the numbers its text quotes (resnet_nb.book.facts.tour,
resnet_nb.book.tour_figures)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from resnet_nb.book import tour_figures  # noqa: E402
from resnet_nb.book.facts import tour  # noqa: E402
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
