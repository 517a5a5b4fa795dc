"""The key figure of the Theorem 1 chapter: the Hessians it draws are the theorem's, and the
panel uses the book's palette."""
import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from resnet_nb.core.hessians import hessian  # noqa: E402
from resnet_nb.book.plotting import COLORS  # noqa: E402
from resnet_nb.book.theorem1_figures import key_figure, key_hessians  # noqa: E402


def test_key_hessians_are_zero_for_n3_block_diagonal_for_n2_and_coupled_for_n1():
    hs = key_hessians(R=3)
    net1, H1 = hs[1]
    net2, H2 = hs[2]
    net3, H3 = hs[3]
    assert float(H3.abs().max()) == 0.0
    q2 = net2.n * net2.d ** 2
    assert float(H2[:q2, q2:].abs().max()) == 0.0  # no coupling between units for n = 2
    for r in range(1, 3):  # every unit's block is the first one (Lemma 2)
        torch.testing.assert_close(H2[r * q2:(r + 1) * q2, r * q2:(r + 1) * q2], H2[:q2, :q2], rtol=0, atol=1e-15)
    q1 = net1.d ** 2
    assert float(H1[q1:2 * q1, :q1].abs().max()) > 1e-3  # n = 1: units couple
    # the drawn matrices are the exact Hessians (autograd agrees)
    torch.testing.assert_close(H2, hessian(net2, torch.zeros(net2.shape, dtype=torch.float64),
                                           __import__("resnet_nb.li.theorem1", fromlist=["_data3"])._data3()),
                               rtol=0, atol=1e-12)


def test_key_figure_panels_and_palette():
    t1rows = [dict(depth=d, cond10=c) for d, c in ((1, 1.0), (2, 3.0), (4, 9.0))]
    t2rows = [dict(depth=d, cond10=1.5) for d in (2, 4, 8)]
    fig = key_figure(t1rows, t2rows)
    axes = fig.axes
    assert len(axes) == 4
    lines = axes[3].get_lines()
    colors = [matplotlib.colors.to_hex(ln.get_color()) for ln in lines]
    assert colors == [COLORS["1-shortcut"], COLORS["2-shortcut"]]  # n = 3 has no value to draw
    np.testing.assert_allclose(lines[0].get_ydata(), [1.0, 3.0, 9.0])
    (label,) = [t for t in axes[3].get_legend().get_texts() if "n = 3" in t.get_text()]  # words, no mark
    assert "no condition number" in label.get_text()
    assert matplotlib.colors.to_hex(label.get_color()) == COLORS["3-shortcut"]
    assert [ax.get_title().split(":")[0] for ax in axes[:3]] == ["n = 1", "n = 2", "n = 3"]
    import matplotlib.pyplot as plt
    plt.close(fig)


@pytest.mark.parametrize("R", [2])
def test_key_hessians_size(R):
    hs = key_hessians(R=R)
    assert [hs[n][1].shape[0] for n in (1, 2, 3)] == [n * R * 9 for n in (1, 2, 3)]
