"""The figures and widgets of Li et al.'s chapters (resnet_nb.book.li_figures)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

import resnet_nb.li.dynamics as dyn  # noqa: E402
from resnet_nb import Dataset, ShortcutNetwork, synthetic_linear  # noqa: E402
from resnet_nb.book import li_figures  # noqa: E402
from resnet_nb.book.li_figures import key_figure, key_hessians  # noqa: E402
from resnet_nb.book.palette import COLORS  # noqa: E402
from resnet_nb.core.hessians import hessian  # noqa: E402
from resnet_nb.li.theorem1 import unfriendly_data3  # noqa: E402


@pytest.fixture(scope="module")
def data3():
    # not whitened (Sxx != I): an adversarial setting for formulas that silently assume Sxx = I
    cov = torch.tensor([[2.0, 0.5, 0.0], [0.5, 1.0, 0.3], [0.0, 0.3, 0.5]], dtype=torch.float64)
    return synthetic_linear(3, 40, cov=cov, seed=1)


F64 = torch.float64


@pytest.fixture(scope="module")
def data2():
    return synthetic_linear(2, 20, seed=0)


@pytest.fixture(scope="module")
def sweep2(data2):
    # lr = 1 on this small problem: seed 0 spikes (its loss rises a hundredfold), seed 1 rises a little
    return dyn.sharpness_sweep(data2, seeds=(0, 1), n=2, R=2, lr=1.0, epochs=200, every=20)


def test_widget_and_animation(data3):
    import matplotlib

    matplotlib.use("Agg")
    import ipywidgets as widgets

    from resnet_nb.book.li_figures import depth_animation, hessian_explorer

    box = hessian_explorer(mnist=synthetic_linear(10, 30, seed=0))  # stands in for MNIST (d = 10)
    sliders = [w for row in box.children[:2] for w in row.children if isinstance(w, widgets.IntSlider)]
    assert len(sliders) == 3 and all(not s.continuous_update for s in sliders)
    html = depth_animation(2, [1, 2], data3)
    assert "<script" in html and "anim" in html.lower()
    with pytest.raises(ValueError, match=r"\bR must"):
        depth_animation(2, [0], data3)


def test_explorer_title_names_the_activation(data3):
    from resnet_nb.book.li_figures import explorer_title
    from resnet_nb.li.theorem1 import same_picture

    assert "mid=tanh" in explorer_title(ShortcutNetwork(3, 2, 2, mid="tanh"))
    assert explorer_title(ShortcutNetwork(3, 2, 2)).endswith("linear")
    # tanh'(0) = 1: the Hessian at 0 with tanh at mid is the linear one
    assert same_picture(ShortcutNetwork(3, 2, 2), ShortcutNetwork(3, 2, 2, mid="tanh"), data3) < 1e-14
    assert same_picture(ShortcutNetwork(3, 2, 2), ShortcutNetwork(3, 2, 2, mid="silu"), data3) > 1e-3


def test_plot_sharpness_sweep_uses_the_palette(sweep2):
    axes = li_figures.plot_sharpness_sweep(sweep2)
    lines = axes[0].get_lines()
    assert len(lines) == 2
    assert all(matplotlib.colors.to_hex(ln.get_color()) == COLORS["2-shortcut"] for ln in lines)
    labels = [t.get_text() for t in axes[0].get_legend().get_texts()]
    assert labels == ["1 seed with a spike", "1 seed without a spike"]
    assert lines[0].get_linewidth() > lines[1].get_linewidth()  # the spiking run is bold
    plt.close("all")


def test_key_hessians_are_zero_for_n3_block_diagonal_for_n2_and_coupled_for_n1():
    hs = key_hessians(R=3)
    net1, H1 = hs[1]
    net2, H2 = hs[2]
    net3, H3 = hs[3]
    assert float(H3.abs().max()) == 0.0
    q2 = net2.n * net2.d**2
    assert float(H2[:q2, q2:].abs().max()) == 0.0  # no coupling between units for n = 2
    for r in range(1, 3):  # every unit's block is the first one (Lemma 2)
        torch.testing.assert_close(H2[r * q2 : (r + 1) * q2, r * q2 : (r + 1) * q2], H2[:q2, :q2], rtol=0, atol=1e-15)
    q1 = net1.d**2
    assert float(H1[q1 : 2 * q1, :q1].abs().max()) > 1e-3  # n = 1: units couple
    # the drawn matrices are the exact Hessians (autograd agrees)
    torch.testing.assert_close(
        H2, hessian(net2, torch.zeros(net2.shape, dtype=torch.float64), unfriendly_data3()), rtol=0, atol=1e-12
    )


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


def test_network_and_data_builds_what_the_widget_describes():
    mn = Dataset(torch.randn(10, 30, dtype=F64), torch.randn(10, 30, dtype=F64))
    net, data = li_figures.explorer_network_and_data(2, 3, 5, "tanh", "mid", "MNIST", mnist=mn)
    assert data is mn and (net.d, net.n, net.R) == (10, 2, 3) and net.mid.name == "tanh"
    net, data = li_figures.explorer_network_and_data(2, 1, 4, "identity", "post", "synthetic", seed=2)
    ref = synthetic_linear(4, 200, seed=2)
    assert torch.equal(data.X, ref.X) and torch.equal(data.Y, ref.Y)
    assert net.post.is_identity and net.mid.is_identity and (net.d, net.R) == (4, 1)
    net, data = li_figures.explorer_network_and_data(1, 2, 3, "tanh", "mid", "synthetic")
    assert net.mid.is_identity and net.post.is_identity  # no mid position in a 1-shortcut unit
    net, _ = li_figures.explorer_network_and_data(1, 2, 3, "tanh", "post", "synthetic")
    assert net.post.name == "tanh"
    net, _ = li_figures.explorer_network_and_data(2, 2, 3, "tanh", "mid", "synthetic")
    assert net.mid.name == "tanh"


def test_the_catapult_figure_draws_the_steps_inside_their_envelope():
    import numpy as np

    from resnet_nb.book.li_figures import catapult_figure

    epochs = np.arange(10, 16)
    proj = 1e-3 * (-1.5) ** np.arange(6)
    fig = catapult_figure({"epochs": epochs, "proj": proj, "predicted": -1.5})
    envelope, lower, steps = fig.axes[0].lines[1:4]
    assert np.allclose(envelope.get_ydata(), np.abs(proj)) and np.allclose(lower.get_ydata(), -np.abs(proj))
    assert np.allclose(steps.get_ydata(), proj)


def test_the_growth_figure_draws_both_architectures_and_the_lower_bound_on_log_axes():
    import pandas as pd

    from resnet_nb.book.li_figures import growth_figure

    depths = [2, 4, 8]
    t1 = pd.DataFrame({"depth": depths, "cond10": [3.0, 6.0, 12.0], "cond": [30.0, 60.0, 120.0]})
    t2 = pd.DataFrame({"depth": depths, "cond": [5.0, 5.0, 5.0]})
    g = pd.DataFrame({"depth": depths, "cond10_bound": [2.0, 4.0, 8.0]})
    ax = growth_figure(t1, t2, g).axes[0]
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    labels = [line.get_label() for line in ax.lines]
    assert "Proposition: lower bound" in labels and len(labels) == 4
    assert list(ax.lines[3].get_ydata()) == [5.0, 5.0, 5.0]  # the 2-shortcut curve is flat
