"""The numbers the prose of book/exp_learning.ipynb quotes, section by section: each function
selects them from the chapter's results (Figures 9 and 10, the He baseline, the floors) and
formats them as the page shows them."""

from __future__ import annotations

import inspect

import numpy as np
import torch

from resnet_nb.book import show
from resnet_nb.core.init import SMALL_SCALE
from resnet_nb.core.losses import loss_end_to_end
from resnet_nb.core.train import gradient_descent
from resnet_nb.experiments import fig9, fig10
from resnet_nb.shared import store
from resnet_nb.shared.common import mnist, mnist_optimum

__all__ = [
    "setup_facts",
    "fig9_rate_facts",
    "xavier96_facts",
    "settings_facts",
    "gap_facts",
    "fig10_facts",
    "he64_facts",
    "he_xavier_facts",
    "he_divergence_facts",
    "he_provenance_facts",
    "eos_facts",
    "floor4_facts",
    "fig9_facts",
    "floor_facts",
    "plateaus_solution_facts",
    "collapse_solution_facts",
    "escape_solution_facts",
    "rms_facts",
]


def setup_facts() -> show.Facts:
    """The settings the chapter quotes: the optimum L_min, the small initial scale, the rate grid, the
    flatness tolerance and the rounding floor."""
    L_min = show.num(mnist_optimum(), 4)
    small_scale = show.num(SMALL_SCALE)
    grid9 = fig9.SCALES["paper"]["lrs"]
    lr_lo, lr_hi = show.sci(grid9[0], 1), show.sci(grid9[-1], 1)
    flat_tol = show.sci(fig9.FLAT_TOL, 1)
    floor = show.sci(fig9.ROUNDING_FLOOR, 2)
    lg_floor = show.num(torch.log10(torch.tensor(fig9.ROUNDING_FLOOR)).item(), 4)
    n_digits = show.count(mnist().m)
    blowup = show.sci(inspect.signature(gradient_descent).parameters["blowup"].default)
    return show.Facts(
        L_min=L_min,
        blowup=blowup,
        flat_tol=flat_tol,
        floor=floor,
        lg_floor=lg_floor,
        lr_hi=lr_hi,
        lr_lo=lr_lo,
        n_digits=n_digits,
        small_scale=small_scale,
    )


def fig9_rate_facts(_lr9) -> show.Facts:
    """Figure 9's verdicts, and the best learning rates of the 2-shortcut networks against the others
    by depth."""
    verdict9 = show.verdict(fig9.claim_fig9_shortcut_lowest)
    verdict9_near = show.verdict(fig9.claim_fig9_near_optimal)
    verdict10, verdict10_flat = (
        show.verdict(fig10.claim_shortcut_lowest),
        show.verdict(fig10.claim_flat_at_64),
    )
    verdict10_deeper = show.verdict(fig10.claim_deeper_lower)
    _d9 = _lr9.index[_lr9["2-shortcut"].notna()]
    _sc, _oth = _lr9.loc[_d9, "2-shortcut"], _lr9.loc[_d9].drop(columns="2-shortcut").max(axis=1)
    rate_from_d = min(d for d in _d9 if (_sc[_d9 >= d] > _oth[_d9 >= d]).all())
    rate_from = show.count(rate_from_d)
    _sc_from = _sc[_d9 >= rate_from_d]
    rate_sc_lo, rate_sc_hi = show.num(_sc_from.min(), 3), show.num(_sc_from.max(), 3)
    rate_oth_hi = show.num(_oth[_d9 >= rate_from_d].max(), 3)
    rate_tie_d = [int(d) for d in _d9 if d < rate_from_d and _sc[d] == _oth[d]]
    rate_low_d = [int(d) for d in _d9 if _sc[d] < _lr9.loc[d].drop("2-shortcut").min()]
    assert rate_tie_d == [4] and rate_low_d == [2]
    rate_tie = show.count(rate_tie_d[0])
    rate_tie_lr = show.num(_sc[rate_tie_d[0]], 3)
    rate_low, rate_low_lr = show.count(rate_low_d[0]), show.num(_sc[rate_low_d[0]], 3)
    return show.Facts(
        rate_from=rate_from,
        rate_low=rate_low,
        rate_low_lr=rate_low_lr,
        rate_oth_hi=rate_oth_hi,
        rate_sc_hi=rate_sc_hi,
        rate_sc_lo=rate_sc_lo,
        rate_tie=rate_tie,
        rate_tie_lr=rate_tie_lr,
        verdict10=verdict10,
        verdict10_deeper=verdict10_deeper,
        verdict10_flat=verdict10_flat,
        verdict9=verdict9,
        verdict9_near=verdict9_near,
    )


def xavier96_facts(paper9) -> show.Facts:
    """Xavier networks at depth 96: which rates diverge, and where the surviving runs end."""
    # Xavier at depth 96: which rates have a diverged run, and where the others end
    x96 = paper9[(paper9["arch"] == "xavier") & (paper9["depth"] == 96)]
    by_lr = x96.groupby("lr").agg(div=("diverged", "any"), lo=("final_loss", "min"), hi=("final_loss", "max"))
    xav96_first_div = show.num(by_lr.index[by_lr["div"]].min(), 3)
    xav96_only = show.num(by_lr.index[~by_lr["div"]].max(), 3)
    assert (~by_lr["div"]).sum() == 1 and by_lr.index[~by_lr["div"]].min() == by_lr.index.min()
    # mean final loss over the runs that did not diverge, at every rate where some run survived
    m96 = x96[~x96["diverged"]].groupby("lr")["final_loss"].mean()
    xav96_lo, xav96_hi = show.num(m96.min(), 3), show.num(m96.max(), 3)
    xav96_top = show.num(m96.index.max(), 3)
    xav96_rel = (m96.max() - m96.min()) / (m96.max() - mnist_optimum())
    xav96_rel_s = show.num(xav96_rel, 2)
    assert xav96_rel > fig9.FLAT_TOL  # by the chapter's own rule the rates do not end alike
    return show.Facts(
        xav96_first_div=xav96_first_div,
        xav96_hi=xav96_hi,
        xav96_lo=xav96_lo,
        xav96_only=xav96_only,
        xav96_rel_s=xav96_rel_s,
        xav96_top=xav96_top,
    )


def settings_facts(gap9, paper9) -> show.Facts:
    """The paper-scale settings of Figures 9 and 10, and the depth from which orthogonal networks at
    rate 1 collapse to the zero map."""
    # the settings table
    p9, p10 = fig9.SCALES["paper"], fig10.SCALES["paper"]
    depths9, depths10 = (show.text(", ".join(map(str, p["depths"]))) for p in (p9, p10))
    runs9, runs10 = show.count(p9["runs"]), show.count(p10["runs"])
    epochs9, epochs10 = show.count(p9["epochs"]), show.count(p10["epochs"])
    n_arch10, n_lrs10 = show.count(len(p10["archs"])), show.count(len(p10["lrs"]))
    _L0 = float(loss_end_to_end(torch.zeros(10, 10, dtype=torch.float64), mnist().stats()))
    _o1 = paper9[(paper9["arch"] == "orthogonal") & np.isclose(paper9["lr"], 1.0)]
    _o1_at0 = _o1.groupby("depth").apply(
        lambda g: bool(((g["final_loss"] - _L0).abs() < 1e-3).all() and not g["diverged"].any())
    )
    assert not _o1["diverged"].any()
    collapse_from = show.count(min(dd for dd in _o1_at0.index if _o1_at0[_o1_at0.index >= dd].all()))
    fragile9 = show.text(", ".join(str(d) for d in gap9["fragile"]))
    depth9_max = show.count(max(fig9.SCALES["paper"]["depths"]))
    return show.Facts(
        collapse_from=collapse_from,
        depth9_max=depth9_max,
        depths10=depths10,
        depths9=depths9,
        epochs10=epochs10,
        epochs9=epochs9,
        fragile9=fragile9,
        n_arch10=n_arch10,
        n_lrs10=n_lrs10,
        runs10=runs10,
        runs9=runs9,
    )


def gap_facts(_lr9, paper9) -> show.Facts:
    """Figure 9's gaps to L_min: how close 1-shortcut and orthogonal networks end, how far Xavier and
    3-shortcut networks end, and the ratio of the gaps of the 2-shortcut networks to the nearest
    others."""
    # the robust contrast behind "close to optimal": best-rate gaps to L_min, and their ratio
    _gap9 = 10 ** fig9.summarise(paper9).pivot(index="depth", columns="arch", values="lg_excess")
    _near = _gap9.loc[_gap9.index >= 4, ["1-shortcut", "orthogonal"]]
    near_hi = show.sci(_near.max().max(), 1)  # 1-shortcut and orthogonal end within this of L_min
    xav_far = show.num(_gap9["xavier"].max(), 2)
    # the 3-shortcut networks end far too: on the plateau at depth 3, above the others deeper
    sc3_gap3 = show.num(_gap9.loc[3, "3-shortcut"], 2)
    _sc3 = _gap9.loc[_gap9.index >= 4, "3-shortcut"].dropna()
    sc3_far, sc3_far_d = show.sci(_sc3.max(), 2), show.count(int(_sc3.idxmax()))
    sc3_times = show.count(round(_sc3.max() / _near.max().max()))
    assert _sc3.max() > 2 * _near.max().max()
    # the ratio of the gaps, 2-shortcut against the nearest of the four other architectures: point
    # estimates, and the lower end at two standard errors of the difference of the mean lg gaps
    _rt = fig9.gap_ratio(paper9, "2-shortcut", mnist_optimum(), from_depth=fig9.FIG9_FROM_DEPTH)
    _rt = _rt.set_index("depth")
    _pt, _lo2 = _rt["ratio"], _rt["ratio_2se"]
    # the depth from which every point estimate exceeds 10: read off this run, not fixed in advance
    ratio_from_d = min(d for d in _pt.index if (_pt[_pt.index >= d] > 10).all())
    _from = _rt.index >= ratio_from_d
    ratio_2se = float(_lo2[_from].min())
    assert ratio_2se > 1  # the contrast holds at two standard errors, at every depth from there on
    ratio_from = show.count(ratio_from_d)
    ratio_lo, ratio_hi = show.count(int(round(_pt[_from].min()))), show.count(int(round(_pt[_from].max())))
    ratio_k = show.num(np.floor(ratio_2se * 10) / 10, 2)  # rounded down: "more than"
    # the opening's answer: the best depth-16 2-shortcut rate against lambda_max(0), the largest
    # Hessian eigenvalue at the start (the same cached runs as the section on the condition number)
    _eos16 = fig9.stability_run("2-shortcut", 16, float(_lr9.loc[16, "2-shortcut"]))
    assert (_eos16["eta_lam0"] > 2).all()
    etalam0_open = show.num(_eos16["eta_lam0"].max(), 3)
    return show.Facts(
        etalam0_open=etalam0_open,
        near_hi=near_hi,
        ratio_from=ratio_from,
        ratio_hi=ratio_hi,
        ratio_k=ratio_k,
        ratio_lo=ratio_lo,
        sc3_far=sc3_far,
        sc3_far_d=sc3_far_d,
        sc3_gap3=sc3_gap3,
        sc3_times=sc3_times,
        xav_far=xav_far,
    )


def fig10_facts(best10, paper10, s10) -> show.Facts:
    """Figure 10's numbers: the 2-shortcut networks' gaps and losses, the plain networks' flat end
    at depth 64, the runs from a modified working tree."""
    lg10 = s10.pivot(index="depth", columns="arch", values="lg_excess")
    sc_lg = {L: show.num(lg10.loc[L, "2-shortcut"]) for L in (2, 8, 64)}
    sc10_lg2, sc10_lg64 = sc_lg[2], sc_lg[64]
    sc10_loss64 = show.num(best10.loc[64, "2-shortcut"], 2)
    sc10_loss2 = show.num(best10.loc[2, "2-shortcut"], 3)
    plain10_loss2 = show.num(best10.loc[2, ["xavier", "orthogonal"]].min(), 2)
    flat64 = show.num(fig10.flat_spread(paper10, "xavier", 64)[1], 3)
    start_loss2 = show.num(
        paper10[(paper10["arch"] == "2-shortcut") & (paper10["depth"] == 2)].groupby("lr")["final_loss"].mean().max(),
        3,
    )
    n_mod10, n_rec10, _ = fig9.modified_records("fig10")
    mod10 = show.text(f"{n_mod10} of {n_rec10}")
    return show.Facts(
        flat64=flat64,
        mod10=mod10,
        plain10_loss2=plain10_loss2,
        sc10_lg2=sc10_lg2,
        sc10_lg64=sc10_lg64,
        sc10_loss2=sc10_loss2,
        sc10_loss64=sc10_loss64,
        start_loss2=start_loss2,
    )


def he64_facts(best10, he_s, paper_he) -> show.Facts:
    """The He baseline at depth 64 against Xavier, and whether it ends alike at every eligible
    rate."""
    # the He baseline (the book's addition), committed at every depth of the grid
    he_grid = fig10.SCALES["paper"]["depths"]
    assert paper_he is not None and sorted(paper_he["depth"].unique()) == he_grid
    he_n_depths = show.count(len(he_s))
    he_loss, he_lr = show.num(he_s.loc[64, "final_loss"], 3), show.num(he_s.loc[64, "best_lr"], 3)
    xav_same = best10.loc[64, "xavier"]
    he_xav = show.num(xav_same, 3)
    he64_spread, _, _ = fig10.flat_spread(paper_he, "he", 64)
    he64_flat = he64_spread <= fig9.FLAT_TOL
    he64_rule = show.text(
        "ends at the same loss at every eligible rate, as the plain networks do"
        if he64_flat
        else "does not end at the same loss at every eligible rate, unlike the paper's plain networks"
    )
    he64_spread_s = show.num(he64_spread, 2)
    return show.Facts(
        he64_rule=he64_rule,
        he64_spread_s=he64_spread_s,
        he_loss=he_loss,
        he_lr=he_lr,
        he_n_depths=he_n_depths,
        he_xav=he_xav,
    )


def he_xavier_facts(he_s, hx, paper10, paper_he) -> show.Facts:
    """He against Xavier at every depth, decided with one run-to-run spread, and the runs of He
    that leave the zero-output loss."""
    he_worse_at = [int(L) for L in hx.index if hx.loc[L, "verdict"] == "worse"]
    he_better_at = [int(L) for L in hx.index if hx.loc[L, "verdict"] == "better"]
    he_unres_at = [int(L) for L in hx.index if hx.loc[L, "verdict"] == "unresolved"]
    # the text says "up to depth ... worse, ... unresolved, from depth ... on better"
    assert he_worse_at and he_unres_at and he_better_at and max(he_worse_at) < min(he_better_at)
    assert all(max(he_worse_at) < L < min(he_better_at) for L in he_unres_at)
    he_unres_n = show.text("depth " + ", ".join(str(L) for L in he_unres_at))
    he_worse_to, he_better_from = show.count(max(he_worse_at)), show.count(min(he_better_at))
    he_margin_min = show.num(min(abs(hx.loc[L, "diff"]) / hx.loc[L, "spread"] for L in he_worse_at + he_better_at), 2)
    # at the deepest depth where He ends better: how many of its runs at the best rate leave
    # the zero-output loss
    L_b = max(he_better_at)
    hb = paper_he[(paper_he["depth"] == L_b) & np.isclose(paper_he["lr"], he_s.loc[L_b, "best_lr"])]
    zero_out = fig10.flat_spread(paper10, "xavier", L_b)[1]
    n_left = int((hb["final_loss"] < zero_out * (1 - fig9.FLAT_TOL)).sum())
    he_left = show.text(f"{n_left} of {len(hb)}")
    assert 0 < n_left < len(hb)
    return show.Facts(
        he_better_from=he_better_from,
        he_left=he_left,
        he_margin_min=he_margin_min,
        he_unres_n=he_unres_n,
        he_worse_to=he_worse_to,
    )


def he_divergence_facts(paper10, paper_he, s10) -> show.Facts:
    """Why He's larger scale lowers the rates it trains at: where every run diverges, and the
    surviving runs at depth 16."""
    # the divergence mechanism: He's larger scale lowers the rates at which it trains
    he8_div_from = fig10.first_all_diverged(paper_he, "he", 8)
    xav8_lr = float(s10[(s10["arch"] == "xavier") & (s10["depth"] == 8)]["best_lr"].iloc[0])
    x8 = paper10[(paper10["arch"] == "xavier") & (paper10["depth"] == 8)]
    x8 = x8[np.isclose(x8["lr"], xav8_lr)]
    assert he8_div_from <= xav8_lr and not x8["diverged"].any()
    he8_div_from_s, xav8_lr_s = show.num(he8_div_from, 3), show.num(xav8_lr, 3)
    he_div_le16 = [
        int(L)
        for L in (2, 4, 8, 16)
        if fig10.first_all_diverged(paper_he, "he", L) < fig10.first_all_diverged(paper10, "xavier", L)
    ]
    assert he_div_le16 == [2, 4, 8, 16]
    # the He runs that diverged at depth 16 (the eligibility rule), compared run with run
    h16 = paper_he[paper_he["depth"] == 16]
    hd = h16.groupby("lr").agg(
        div=("diverged", "sum"), runs=("diverged", "size"), lo=("final_loss", "min"), n=("final_loss", "count")
    )
    part = hd[(hd["div"] > 0) & (hd["div"] < hd["div"].max())]
    assert len(part)
    he_div = show.text(", ".join(f"{int(r['div'])} of {int(r['runs'])} at {lr:.3g}" for lr, r in part.iterrows()))
    k16 = hd.loc[part.index, "lo"].idxmin()
    n16 = int(hd.loc[k16, "n"])
    he_surv_n = show.text("one surviving run" if n16 == 1 else f"{n16} surviving runs")
    he_surv, he_surv_lr = show.num(hd.loc[k16, "lo"], 3), show.num(k16, 3)
    x16 = paper10[(paper10["arch"] == "xavier") & (paper10["depth"] == 16) & ~paper10["diverged"]]
    x16_best = x16.loc[x16["final_loss"].idxmin()]
    xav16_run, xav16_run_lr = show.num(x16_best["final_loss"], 3), show.num(x16_best["lr"], 3)
    he_surv_below = show.text("below" if hd.loc[k16, "lo"] < x16_best["final_loss"] else "above")
    return show.Facts(
        he8_div_from_s=he8_div_from_s,
        he_div=he_div,
        he_surv=he_surv,
        he_surv_below=he_surv_below,
        he_surv_lr=he_surv_lr,
        he_surv_n=he_surv_n,
        xav16_run=xav16_run,
        xav16_run_lr=xav16_run_lr,
        xav8_lr_s=xav8_lr_s,
    )


def he_provenance_facts() -> show.Facts:
    """Where the He baseline's records come from, commit by commit."""
    # provenance of the He baseline, per commit
    _gits = [body["provenance"]["git"] for body in store.committed_records("fig10_he", "paper")]
    _by = {}
    for g in _gits:
        m, n = _by.get((g.get("commit") or "unknown")[:7], (0, 0))
        _by[(g.get("commit") or "unknown")[:7]] = (m + bool(g.get("package_modified")), n + 1)
    prov_he = show.text(
        "; ".join(
            f"{n} from commit {k}, {'all' if m == n else m if m else 'none'} of them from a modified working tree"
            for k, (m, n) in sorted(_by.items())
        )
    )
    n_mod_he, n_rec_he, _ = fig9.modified_records("fig10_he")
    assert n_mod_he == sum(m for m, _ in _by.values()) and n_rec_he == len(_gits)
    return show.Facts(
        prov_he=prov_he,
    )


def eos_facts(eos, eos_table, paper9) -> show.Facts:
    """The stability bound eta lambda_max < 2 along the runs, and the escape factor 1 + eta
    |lambda_min| predicted and measured."""
    eos_check = fig9.claim_edge_of_stability(data=eos[eos["arch"] == "2-shortcut"])
    escape = fig9.escape_factor()
    r2 = eos_table.set_index("arch").loc["2-shortcut"]
    ro = eos_table.set_index("arch").loc["orthogonal"]
    eta2, lam0_2 = show.num(r2["lr"], 3), show.num(r2["lam_max0"], 3)
    etalam0_2 = show.num(r2["eta_lam0"], 3)
    lamend_2, two_eta_2 = show.num(r2["lam_max_end"], 3), show.num(r2["two_over_eta"], 3)
    etalamend_2 = show.num(r2["eta_lam_end"], 3)
    eta_o, lam0_o = show.num(ro["lr"], 2), show.num(ro["lam_max0"], 3)
    etalam0_o = show.num(ro["eta_lam0"], 2)
    lamend_o = show.num(ro["lam_max_end"], 3)
    assert r2["eta_lam0"] > 2 and ro["eta_lam0"] > 2 and ro["eta_lam_end"] < 1
    esc_measured = show.fixed(escape["measured"], 6)
    esc_pred = show.fixed(1 + escape["lr"] * escape["sigma"][0], 6)
    # where the stability bound holds, the escape factor 1 + eta |lambda_min| is at most
    # 1 + 2 |lambda_min| / lambda_max: 3 for the 2-shortcut start, whose spectrum is symmetric
    lam_min0_2 = float(eos[eos["arch"] == "2-shortcut"]["lam_min0"].mean())
    sym_ratio = show.num(abs(lam_min0_2) / r2["lam_max0"], 4)
    esc_bound = show.num(1 + 2 * abs(lam_min0_2) / r2["lam_max0"], 3)
    # the scale of the usable rate: eta_best lambda_max(0) by depth (committed Figures 5 and 9)
    rs = fig9.rate_scale(paper9, store.load_results("fig5", "paper")[0])
    rs_lo, rs_hi = show.num(rs["eta_lam0"].min(), 2), show.num(rs["eta_lam0"].max(), 2)
    rs_grow = show.count(round(rs["lam_max0"].max() / rs["lam_max0"].min()))
    rs_steps = show.num(np.log10(rs["eta_lam0"].max() / rs["eta_lam0"].min()) / 0.5, 2)
    rs_dmin, rs_dmax = show.count(rs["depth"].min()), show.count(rs["depth"].max())
    band, growth = rs["eta_lam0"].agg(["min", "max"]), rs["lam_max0"].agg(["min", "max"])
    assert band["max"] / band["min"] < 10 < growth["max"] / growth["min"]
    esc_lr = show.num(escape["lr"])
    return show.Facts(
        eos_check=eos_check,
        esc_bound=esc_bound,
        esc_lr=esc_lr,
        esc_measured=esc_measured,
        esc_pred=esc_pred,
        eta2=eta2,
        eta_o=eta_o,
        etalam0_2=etalam0_2,
        etalam0_o=etalam0_o,
        etalamend_2=etalamend_2,
        lam0_2=lam0_2,
        lam0_o=lam0_o,
        lamend_2=lamend_2,
        lamend_o=lamend_o,
        rs_dmax=rs_dmax,
        rs_dmin=rs_dmin,
        rs_grow=rs_grow,
        rs_hi=rs_hi,
        rs_lo=rs_lo,
        rs_steps=rs_steps,
        sym_ratio=sym_ratio,
        two_eta_2=two_eta_2,
    )


def floor4_facts(best10) -> show.Facts:
    """Depth 4: the stored L-BFGS floor against Figure 10's gradient descent, its falsifier and
    negative control, and how the plain networks compare."""
    # depth 4: the stored L-BFGS runs (fig10.reproduce_floor, minutes) against Figure 10's gradient
    # descent; the falsifier ("GD at depth 4 ends at the floor") must fail on the same data, and the
    # negative control applies the comparison at depth 2, where gradient descent does reach the floor
    floor4 = fig10.claim_depth4_floor()
    floor4_false = fig10.claim_depth4_floor(falsify=True)
    floor4_control = fig10.depth4_floor_negative_control()
    f4 = floor4.values
    floor4_gd, floor4_lr = show.num(f4["gd"], 3), show.num(f4["lr"], 3)
    floor4_gd_lo, floor4_gd_hi = show.num(f4["gd_lo"], 3), show.num(f4["gd_hi"], 3)
    floor4_lo, floor4_hi = show.num(f4["lo"], 3), show.num(f4["hi"], 3)
    floor4_gap = show.num(f4["gd"] - f4["lo"], 2)
    floor4_rel = show.pct((f4["gd"] - f4["lo"]) / f4["gd"])
    cfg4 = fig10.FLOOR_CONFIG
    floor4_n = show.count(f4["n"])
    floor4_iter = show.count(cfg4["max_iter"])
    floor4_per = show.count(cfg4["starts_per_scale"])
    floor4_scales = show.text(", ".join(f"{s:g}" for s in cfg4["scales"]))
    assert cfg4["depth"] == 4 and cfg4["arch"] == "2-shortcut"
    assert f4["n"] == len(cfg4["scales"]) * cfg4["starts_per_scale"]
    plain4 = best10.loc[4, ["xavier", "orthogonal"]]
    plain4_x, plain4_o = show.num(plain4["xavier"], 3), show.num(plain4["orthogonal"], 3)
    # decided like the checks: equal within the floor accuracy plus the range of the GD runs
    cmp4_x, cmp4_o = (show.text(fig10.floor_comparison(f4["lo"], a)) for a in ("xavier", "orthogonal"))
    floor4_wall = show.count(round(fig10.committed_floor()["wall_time_s_per_start"].max()))
    floor4_be = show.pct(fig10.floor_breakeven(f4["gd"], f4["range"], f4["lo"]))
    assert fig10.floor_breakeven(f4["gd"], f4["range"], f4["lo"]) > fig10.FLOOR_ACCURACY
    return show.Facts(
        cmp4_o=cmp4_o,
        cmp4_x=cmp4_x,
        floor4=floor4,
        floor4_be=floor4_be,
        floor4_control=floor4_control,
        floor4_false=floor4_false,
        floor4_gap=floor4_gap,
        floor4_gd=floor4_gd,
        floor4_gd_hi=floor4_gd_hi,
        floor4_gd_lo=floor4_gd_lo,
        floor4_hi=floor4_hi,
        floor4_iter=floor4_iter,
        floor4_lo=floor4_lo,
        floor4_lr=floor4_lr,
        floor4_n=floor4_n,
        floor4_per=floor4_per,
        floor4_rel=floor4_rel,
        floor4_scales=floor4_scales,
        floor4_wall=floor4_wall,
        plain4_o=plain4_o,
        plain4_x=plain4_x,
    )


def fig9_facts(paper9, s9) -> show.Facts:
    """Figure 9 read at the paper's scale: the 2-shortcut gaps, the orthogonal and Xavier levels, the
    3-shortcut plateau at depth 3, and the records' commits."""
    lg9 = s9.pivot(index="depth", columns="arch", values="lg_excess")
    t9 = paper9
    sc2 = lg9.loc[lg9.index >= 4, "2-shortcut"]
    sc2_lo, sc2_hi = show.num(sc2.min()), show.num(sc2.max())
    xav_level = show.num(lg9.loc[lg9.index >= 24, "xavier"].mean())
    # 3-shortcut at depth 3: the plateau at the loss of the starting point
    s3 = t9[(t9["arch"] == "3-shortcut") & (t9["depth"] == 3)].groupby("lr")["final_loss"].mean()
    at_start = float(s3.iloc[0])
    plateau_rates = s3.index[(s3 - at_start).abs() < 1e-2]
    sc3_plateau_max = show.num(plateau_rates.max(), 2)
    sc3_start = show.num(at_start, 3)
    sc3_best = show.num(s9[(s9["arch"] == "3-shortcut") & (s9["depth"] == 3)]["final_loss"].iloc[0], 3)
    mid = lg9.loc[(lg9.index >= 6) & (lg9.index <= 48)]
    sc3_lo, sc3_hi = show.num(mid["3-shortcut"].min()), show.num(mid["3-shortcut"].max())
    oo = mid[["orthogonal", "1-shortcut"]]
    oo_lo, oo_hi = show.num(oo.min().min()), show.num(oo.max().max())
    assert mid["3-shortcut"].max() > oo.max().max()
    orth2 = show.sci(10 ** lg9.loc[2, "orthogonal"], 2)
    n_mod9, n_rec9, commits9 = fig9.modified_records("fig9")
    mod9 = show.text(f"{n_mod9} of its {n_rec9} work items")
    commit9 = show.text(", ".join(commits9))
    return show.Facts(
        commit9=commit9,
        mod9=mod9,
        oo_hi=oo_hi,
        oo_lo=oo_lo,
        orth2=orth2,
        sc2_hi=sc2_hi,
        sc2_lo=sc2_lo,
        sc3_best=sc3_best,
        sc3_hi=sc3_hi,
        sc3_lo=sc3_lo,
        sc3_plateau_max=sc3_plateau_max,
        sc3_start=sc3_start,
        xav_level=xav_level,
    )


def floor_facts() -> show.Facts:
    """The rank-limited floor: what each network can reach with its ten ReLUs against gradient
    descent's end, and the ledger check."""
    floor_check = fig10.claim_depth2_floor()
    floor_plain = fig10.claim_depth2_floor(falsify=True)
    fv, pv = floor_check.values, floor_plain.values
    floor_gd = show.num(fv["gd"], 3)
    floor_lo, floor_hi = show.num(fv["lo"], 3), show.num(fv["hi"], 3)
    plain_lo, plain_hi = show.num(pv["lo"], 2), show.num(pv["hi"], 2)
    assert pv["hi"] < fv["lo"]
    floor_range = show.num(fv["hi"] - fv["lo"], 2)
    floor_acc = show.pct(fig10.FLOOR_ACCURACY)
    floor_diff = show.num(floor_check.value, 2)
    lin5_v = fig10.rank_limited_linear_loss(5)
    lin5 = show.num(lin5_v, 3)
    assert lin5_v > fv["lo"] > mnist_optimum()
    # what each network must realise with its ten ReLUs: the shortcut network x + B x has to cancel
    # most of the identity (B near Syx - I), the plain network only W* = Syx (Sxx = I)
    _st = mnist().stats()
    sv_res = torch.linalg.svdvals(torch.eye(10, dtype=torch.float64) - _st.Syx)
    sv_w = torch.linalg.svdvals(_st.Syx)
    res_lo, res_hi = show.num(sv_res.min(), 2), show.num(sv_res.max(), 3)
    w_hi = show.num(sv_w.max(), 2)
    assert sv_res.min() > 2 * sv_w.max()
    assert pv["hi"] < mnist_optimum()  # the plain ReLU network ends below the linear optimum
    return show.Facts(
        floor_acc=floor_acc,
        floor_check=floor_check,
        floor_diff=floor_diff,
        floor_gd=floor_gd,
        floor_hi=floor_hi,
        floor_lo=floor_lo,
        floor_plain=floor_plain,
        floor_range=floor_range,
        lin5=lin5,
        plain_hi=plain_hi,
        plain_lo=plain_lo,
        res_hi=res_hi,
        res_lo=res_lo,
        w_hi=w_hi,
    )


def plateaus_solution_facts(hits) -> show.Facts:
    """The exercise on plateaus: the learning rates at which runs end at the loss of the map I or of
    the map 0, by architecture and depth."""
    hI, h0 = hits["I"], hits["0"]
    plat3_max = show.num(hI[hI["arch"] == "3-shortcut"]["lr"].max(), 3)
    h0o = h0[h0["arch"] == "orthogonal"]
    col_lr1 = show.count(h0o[h0o["lr"] == 1.0]["depth"].min())
    col_lr2 = show.num(sorted(h0o["lr"].unique())[0], 3)
    col_lr2_from = show.count(h0o[h0o["lr"] == sorted(h0o["lr"].unique())[0]]["depth"].min())
    return show.Facts(
        col_lr1=col_lr1,
        col_lr2=col_lr2,
        col_lr2_from=col_lr2_from,
        plat3_max=plat3_max,
    )


def collapse_solution_facts(collapse, lr_small, sv_syx) -> show.Facts:
    """The exercise on the collapse to the map 0: the top singular values of Sigma_YX, the gradient
    norms after one step at learning rate 1, the losses after 100 steps, and how much of the top
    direction survives 32 steps at a small rate."""
    s1, s2 = show.num(sv_syx[0], 3), show.num(sv_syx[1], 3)
    g16, g96 = show.sci(collapse[16].grad_norms[1], 2), show.sci(collapse[96].grad_norms[1], 1)
    g2, g3 = show.num(collapse[2].grad_norms[1], 2), show.num(collapse[3].grad_norms[1], 2)
    end2, end3 = show.num(collapse[2].losses[100], 4), show.num(collapse[3].losses[100], 4)
    start16 = show.num(collapse[16].losses[0], 2)
    after16 = show.num(collapse[16].losses[1], 3)
    keep = 1 - lr_small + lr_small * sv_syx[0]
    keep_n, keep_32, lr_small_s = show.num(keep, 2), show.sci(keep**32, 1), show.num(lr_small, 3)
    return show.Facts(
        after16=after16,
        end2=end2,
        end3=end3,
        g16=g16,
        g2=g2,
        g3=g3,
        g96=g96,
        keep_32=keep_32,
        keep_n=keep_n,
        lr_small_s=lr_small_s,
        s1=s1,
        s2=s2,
        start16=start16,
    )


def escape_solution_facts(first_below, scales, stats) -> show.Facts:
    """The exercise on escaping the zero point: the escape factor per step 1 + eta sigma_max near 0,
    the epochs after which the 2-shortcut (depth 2) and 3-shortcut (depth 3) networks fall below
    loss 4 from each initial scale, and what that predicts at the paper's rate."""
    sig = float(torch.linalg.svdvals(stats.Sxx - stats.Syx)[0])
    f2 = [first_below["2-shortcut", s] for s in scales]
    f3 = [first_below["3-shortcut", s] for s in scales]
    esc_sig, esc_fac = show.num(sig, 3), show.num(1 + 0.1 * sig, 4)
    esc_per10 = show.count(round(np.log(10) / np.log(1 + 0.1 * sig)))
    e2a, e2b, e2c = (show.count(x) for x in f2[::-1])
    d2a, d2b = show.count(f2[1] - f2[2]), show.count(f2[0] - f2[1])
    e3a, e3b = show.count(f3[2]), show.count(f3[1])
    r3 = show.num(f3[1] / f3[2], 3)
    assert f3[0] is None and f2[0] is not None
    e3_pred = show.count(round(f3[1] * 10, -3))
    e3_paper = show.count(round(f3[1] * 0.1 / fig9.SCALES["paper"]["lrs"][3], -2))
    rate_paper = show.num(fig9.SCALES["paper"]["lrs"][3], 3)
    return show.Facts(
        e3_paper=e3_paper,
        rate_paper=rate_paper,
        d2a=d2a,
        d2b=d2b,
        e2a=e2a,
        e2b=e2b,
        e2c=e2c,
        e3_pred=e3_pred,
        e3a=e3a,
        e3b=e3b,
        esc_fac=esc_fac,
        esc_per10=esc_per10,
        esc_sig=esc_sig,
        f3=f3,
        r3=r3,
    )


def rms_facts(rms) -> show.Facts:
    """The output's root mean square at depth 64 for the orthogonal, Xavier and He initialisations
    (He with its gain on every layer too), and how many times He shrinks the input's."""
    rms64 = rms.set_index("depth").loc[64]
    rms_orth64, rms_xav64, rms_he64 = (show.sci(rms64[a], 2) for a in ("orthogonal", "xavier", "he"))
    rms_in = float(mnist().X.to(torch.float64).pow(2).mean().sqrt())
    he_shrink = show.count(round(rms_in / rms64["he"]))
    assert rms64["he"] > 100 * rms64["orthogonal"]
    return show.Facts(
        he_shrink=he_shrink,
        rms_he_all64=show.sci(fig10.initial_output_rms("he", 64, gain_all=True), 2),
        rms_he64=rms_he64,
        rms_orth64=rms_orth64,
        rms_xav64=rms_xav64,
    )
