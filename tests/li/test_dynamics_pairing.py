"""The pairing of inputs with outputs (resnet_nb.li.dynamics.pairing): relabelling, the convention
table, the sign and order sweeps, residuals with a controlled spectrum."""

import numpy as np
import pytest
import torch
from helpers import Stop, tol_of

import resnet_nb.li.dynamics as dyn
from resnet_nb import Dataset, synthetic_linear

F64 = torch.float64


def own_end_to_end(W, shortcut):
    """prod_r (I + W_{r,n} ... W_{r,1}) (or without the I for a plain network), multiplied out."""
    d = W.shape[-1]
    eye = torch.eye(d, dtype=F64)
    E = eye
    for r in range(W.shape[0]):
        U = eye
        for l in range(W.shape[1]):
            U = W[r, l] @ U
        E = (eye + U if shortcut else U) @ E
    return E


def own_hessian(loss, W):
    """The Hessian of ``loss`` at ``W``: autograd on the flat weight vector (numpy)."""
    return torch.autograd.functional.hessian(lambda w: loss(w.reshape(W.shape)), W.reshape(-1)).numpy()


def cond_tol(P, cond):
    """Rounding tolerance of a ratio of eigenvalues: each eigenvalue is off by up to 100 P eps |H|,
    i.e. by 100 P eps cond relative to the smallest one; the ratio by twice that."""
    return 2 * tol_of(P, cond)


def test_relabel_matches_whitened_mnist():
    from resnet_nb import whitened_mnist
    from resnet_nb.li.dynamics import relabel

    base = whitened_mnist(n_per_class=15)
    order = [3, 1, 0, 2, 4, 5, 9, 8, 7, 6]
    for signs in ("positive_diagonal", "negative_diagonal", [1, -1] * 5):
        a = relabel(base, signs, order)
        b = whitened_mnist(n_per_class=15, signs=signs, order=order)
        assert float((a.X - b.X).abs().max()) < 1e-10


def test_relabel_rejects_bad_input(data3):
    from resnet_nb.li.dynamics import relabel

    with pytest.raises(ValueError, match=r"\border must"):
        relabel(data3, order=[0, 0, 1])
    with pytest.raises(ValueError, match=r"\bsigns must"):
        relabel(data3, signs=[1, 2, 1])


def test_sign_and_order_sweeps_agree_with_relabel(data3):
    from resnet_nb.li.dynamics import order_sweep, relabel, sign_sweep

    conds = sign_sweep(data3)
    assert conds.shape == (8,)
    for k in (0, 5, 7):
        signs = [-1 if (k >> i) & 1 else 1 for i in range(3)]
        st = relabel(data3, signs).stats()
        sv = torch.linalg.svdvals(st.Sxx - st.Syx)
        assert abs(conds[k] - float(sv.max() / sv.min())) < 1e-10 * conds[k]
    oc = order_sweep(data3, count=5, seed=2)
    g = torch.Generator().manual_seed(2)
    p = torch.randperm(3, generator=g)
    st = relabel(data3, order=p.numpy()).stats()
    sv = torch.linalg.svdvals(st.Sxx - st.Syx)
    assert abs(oc[0] - float(sv.max() / sv.min())) < 1e-10 * oc[0]
    assert conds.max() > conds.min() * 1.01  # the convention matters


def test_controlled_residual_has_the_chosen_norm_and_smallest_singular_value():
    Q = dyn.controlled_residual(6, size=0.3, smallest=0.01, seed=2)
    sv = torch.linalg.svdvals(torch.eye(6, dtype=F64) - Q)
    assert float(sv.max()) == pytest.approx(0.3) and float(sv.min()) == pytest.approx(0.003)
    assert not torch.allclose(Q, dyn.controlled_residual(6, size=0.3, smallest=0.01, seed=3))
    for bad in (dict(size=0.0), dict(smallest=0.0), dict(smallest=1.5)):
        with pytest.raises(ValueError):
            dyn.controlled_residual(4, **bad)


def test_residual_table_follows_the_residual_under_the_natural_pairing():
    Q = dyn.controlled_residual(4, size=0.1, smallest=0.02, seed=0)
    data = synthetic_linear(4, 500, R=Q, noise=1e-4, seed=0)
    (row,) = dyn.residual_table([("q", data)])
    assert row["case"] == "q" and row["res_norm"] == pytest.approx(0.1)
    assert row["res_min"] == pytest.approx(0.002) and row["cond_res"] == pytest.approx(50.0)
    # M = (I - Q) Sxx up to the noise; Sxx is near I for 500 Gaussian samples
    assert 0.5 < row["cond_M"] / row["cond_res"] < 2
    # every sign flipped: M = (I + Q) Sxx, near 2 Sxx
    assert row["cond_M_flipped"] < 3 and row["sweep_min"] <= row["cond_M_flipped"] * (1 + 1e-12)
    assert row["sweep_max"] >= row["cond_M"] * (1 - 1e-12)
    L0 = float(((data.Y - data.X) ** 2).sum()) / (2 * data.m)
    W = torch.linalg.lstsq(data.X.T, data.Y.T).solution.T
    Lmin = float(((data.Y - W @ data.X) ** 2).sum()) / (2 * data.m)
    assert row["loss_ratio"] == pytest.approx(L0 / Lmin, rel=1e-6)
    with pytest.raises(ValueError, match=r"\bsynthetic_linear\b"):
        dyn.residual_table([("x", Dataset(data.X, data.Y))])


class FakeData:
    """Only ``d``; asking for the statistics stops the test (the size check came first)."""

    def __init__(self, d):
        self.d = d

    def stats(self):
        raise Stop


def test_sign_sweep_accepts_d_up_to_16_only():
    with pytest.raises(Stop):
        dyn.sign_sweep(FakeData(16))
    with pytest.raises(ValueError, match=r"\bd must"):
        dyn.sign_sweep(FakeData(17))


def test_relabel_reorders_flips_and_records_the_convention():
    g = torch.Generator().manual_seed(4)
    X = torch.randn(3, 12, generator=g, dtype=F64)
    Y = torch.randn(3, 12, generator=g, dtype=F64)
    labels = np.arange(12) % 3
    data = Dataset(X, Y, labels=labels, info=dict(source="test"))
    order = [2, 0, 1]
    out = dyn.relabel(data, "positive_diagonal", order)
    Xo = X[order]
    diag = (Y * Xo).mean(dim=1)
    s = torch.where(diag >= 0, 1.0, -1.0).to(F64)
    assert (s < 0).any() and (s > 0).any()  # the convention flips some coordinates, not all
    assert torch.equal(out.X, Xo * s[:, None]) and torch.equal(out.Y, Y)
    assert out.labels is labels
    assert out.info == dict(source="test", relabel=dict(signs="positive_diagonal", order=[2, 0, 1]))
    # an explicit sign vector is recorded as the list of signs; no order is recorded as None
    out2 = dyn.relabel(data, (1, -1, 1))
    assert torch.equal(out2.X, X * torch.tensor([1.0, -1.0, 1.0], dtype=F64)[:, None])
    assert out2.info == dict(source="test", relabel=dict(signs=[1.0, -1.0, 1.0], order=None))
    assert isinstance(out2.info["relabel"]["signs"], list)


def _own_row(data, signs, order):
    X = data.X[list(order)] if order is not None else data.X
    if signs == "positive_diagonal":
        s = torch.where((data.Y * X).mean(dim=1) >= 0, 1.0, -1.0).to(F64)
    elif signs == "svd_flip":
        s = torch.ones(data.d, dtype=F64)
    else:
        s = torch.tensor(signs, dtype=F64)
    X = X * s[:, None]
    Y, m, d = data.Y, data.m, data.d
    Sxx, Syx = (X @ X.T / m).numpy(), (Y @ X.T / m).numpy()
    sv = np.linalg.svd(Sxx - Syx, compute_uv=False)
    out = dict(
        cond_M=sv.max() / sv.min(),
        trace_Syx=float(np.trace(Syx)),
    )

    def loss(W):
        return 0.5 * ((Y - own_end_to_end(W, True) @ X) ** 2).sum() / m

    # at 0: a 2-shortcut unit (R = 1), and a 1-shortcut network of 8 units
    e2 = np.abs(np.linalg.eigvalsh(own_hessian(loss, torch.zeros(1, 2, d, d, dtype=F64))))
    e1 = np.abs(np.linalg.eigvalsh(own_hessian(loss, torch.zeros(8, 1, d, d, dtype=F64))))
    out.update(
        cond_H=e2.max() / e2.min(),
        cond10=e1.max() / np.percentile(e1, 10),
        scale=float(data.X.abs().max() * data.Y.abs().max()),
    )
    return out


def test_convention_table_rows_against_hand_computed_hessians(data3):
    conventions = [
        ("as is", "svd_flip", None),
        ("flipped and reordered", (1, -1, -1), [2, 0, 1]),
        ("positive diagonal", "positive_diagonal", [1, 2, 0]),
    ]
    rows = dyn.convention_table(data3, conventions)
    assert [r["convention"] for r in rows] == [c[0] for c in conventions]
    conds = []
    for row, (_, signs, order) in zip(rows, conventions):
        assert list(row) == ["convention", "cond_M", "cond_H_2shortcut", "cond10_1shortcut_R8", "trace_Syx"]
        own = _own_row(data3, signs, order)
        assert row["cond_M"] == pytest.approx(own["cond_M"], rel=cond_tol(9, own["cond_M"]), abs=0)
        # Theorem 1, Part 2: the Hessian of a 2-shortcut unit at 0 has the condition number of M
        assert row["cond_H_2shortcut"] == pytest.approx(own["cond_H"], rel=cond_tol(18, own["cond_H"]), abs=0)
        assert row["cond_H_2shortcut"] == pytest.approx(row["cond_M"], rel=cond_tol(18, own["cond_H"]), abs=0)
        assert row["cond10_1shortcut_R8"] == pytest.approx(own["cond10"], rel=cond_tol(72, own["cond10"]), abs=0)
        assert row["trace_Syx"] == pytest.approx(own["trace_Syx"], rel=0, abs=tol_of(data3.m, own["scale"]))
        assert all(isinstance(row[k], float) for k in list(row)[1:])
        conds.append(row["cond_M"])
    # the pairings really differ (else the table would not test the convention)
    assert min(abs(x - y) for i, x in enumerate(conds) for y in conds[i + 1 :]) > 1


def test_order_sweep_draws_its_orders_from_the_seed(data3):
    out = dyn.order_sweep(data3, count=2000, seed=0)
    assert out.shape == (2000,)
    st = data3.stats()
    g = torch.Generator().manual_seed(0)
    for k in range(12):
        p = torch.randperm(3, generator=g).numpy()
        M = st.Sxx.numpy()[np.ix_(p, p)] - st.Syx.numpy()[:, p]
        sv = np.linalg.svd(M, compute_uv=False)
        assert out[k] == pytest.approx(sv.max() / sv.min(), rel=1e-12, abs=0)
    with pytest.raises(ValueError, match=r"\bcount\b"):
        dyn.order_sweep(data3, count=0)
    assert dyn.order_sweep(data3, count=1, seed=0)[0] == out[0]  # one order is enough


def test_controlled_residual_argument_bounds_name_the_argument():
    eye = torch.eye(3, dtype=F64)
    # just inside each bound: d = 1, a tiny size, a tiny smallest, smallest = 1 (all singular values equal)
    Q = dyn.controlled_residual(1, size=0.5, smallest=1.0)
    assert Q.shape == (1, 1) and float((torch.eye(1, dtype=F64) - Q).abs().max()) == pytest.approx(0.5)
    sv = torch.linalg.svdvals(eye - dyn.controlled_residual(3, size=1e-9, smallest=1e-6))
    assert float(sv.max()) == pytest.approx(1e-9, rel=1e-9) and float(sv.min()) == pytest.approx(1e-15, rel=1e-6)
    sv = torch.linalg.svdvals(eye - dyn.controlled_residual(3, size=2.0, smallest=1.0, seed=1))
    np.testing.assert_allclose(sv.numpy(), 2.0, rtol=1e-12)  # smallest = 1: a multiple of an orthogonal map
    for bad, name in [
        (dict(d=0), "d"),
        (dict(size=0.0), "size"),
        (dict(size=-0.1), "size"),
        (dict(smallest=0.0), "smallest"),
        (dict(smallest=1.0 + 1e-12), "smallest"),
    ]:
        with pytest.raises(ValueError, match=rf"\b{name}\b"):
            dyn.controlled_residual(**dict(dict(d=3), **bad))


def test_controlled_residual_spectrum_is_geometric_and_float64():
    Q = dyn.controlled_residual(5, size=0.4, smallest=0.0625, seed=0)
    assert Q.dtype == F64
    sv = torch.linalg.svdvals(torch.eye(5, dtype=F64) - Q).numpy()
    np.testing.assert_allclose(sv, 0.4 * 0.5 ** np.arange(5), rtol=1e-12)  # 1, 1/2, ..., 1/16


def test_relabel_refuses_anything_but_samples_naming_data_and_what_it_got(data3):
    with pytest.raises(ValueError, match=r"\bdata\b.*\bSufficientStats\b"):
        dyn.relabel(data3.stats())
