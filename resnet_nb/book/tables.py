"""The tables of book/theorem1.ipynb, book/theorem1_dynamics.ipynb, book/notation.ipynb and
book/tour.ipynb: which columns, under which labels, at which precision.

A chapter cell displays a result's table with one call (``display(tables.sweep_table(rows))``);
the choices of what to show live here, as data, beside the one function that applies them."""

from __future__ import annotations

from resnet_nb.book import show

__all__ = [
    "styled",
    "sweep_table",
    "long_run_table",
    "residual_table",
    "growth_table",
    "convention_table",
    "activation_table",
    "figure_verdicts",
    "FIGURE_CLAIMS",
]


def styled(df, columns: dict, formats: dict, na_rep: str | None = None):
    """The columns of ``df`` named in ``columns`` ({column: label}, in that order; a label equal
    to the column keeps its name), without the index, each label in ``formats`` ({label: format
    string or function}) formatted by it and missing entries shown as ``na_rep``."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise KeyError(f"the table has no column {missing[0]!r}; it has {list(df.columns)}")
    labels = {c: label for c, label in columns.items() if label != c}
    return df[list(columns)].rename(columns=labels).style.hide(axis="index").format(formats, na_rep=na_rep)


#: the sweep of seeds at the edge of stability (book/theorem1_dynamics.ipynb)
SWEEP_COLUMNS = {
    "seed": "seed",
    "lam_peak": "largest λmax",
    "peak_epoch": "at epoch",
    "first_above": "first above 2/η",
    "rises": "epochs the loss rose",
    "rise": "rise factor",
    "lam_final": "final λmax",
    "final_gap": "final loss - L_min",
}
SWEEP_FORMATS = {
    "largest λmax": "{:.3f}",
    "first above 2/η": "{:.0f}",
    "rise factor": show.rise_factor,
    "final λmax": "{:.3f}",
    "final loss - L_min": "{:.1e}",
}
#: the same seeds, continued (the long run)
LONG_COLUMNS = {
    "seed": "seed",
    "lam_1500": "λmax, epoch 1,500",
    "first_above": "first above 2/η",
    "lam_peak": "largest λmax",
    "peak_epoch": "at epoch",
    "lam_final": "final λmax",
    "last1000": "change, last 1,000 epochs",
    "rises": "epochs the loss rose",
    "rise": "rise factor",
}
LONG_FORMATS = {
    "λmax, epoch 1,500": "{:.3f}",
    "first above 2/η": "{:.0f}",
    "largest λmax": "{:.3f}",
    "final λmax": "{:.3f}",
    "change, last 1,000 epochs": "{:+.4f}",
    "rise factor": show.rise_factor,
}
#: the residual I - Q against the condition number of M (other columns keep their names)
RESIDUAL_COLUMNS = {
    "res_norm": "||I-Q||",
    "res_min": "σmin(I-Q)",
    "cond_res": "cond(I-Q)",
    "cond_M": "cond(M)",
    "cond_M_flipped": "all flipped",
    "sweep_min": "min over signs",
    "sweep_max": "max over signs",
    "loss_ratio": "L(0) / L_min",
}
RESIDUAL_FORMATS = {
    "||I-Q||": "{:.2f}",
    "σmin(I-Q)": "{:.3f}",
    "cond(I-Q)": "{:.3g}",
    "cond(M)": "{:.3g}",
    "all flipped": "{:.3g}",
    "min over signs": "{:.3g}",
    "max over signs": "{:.1e}",
    "L(0) / L_min": "{:.3g}",
}


def _never_crossed(rows):
    """``rows`` with ``first_above`` missing (shown "never") where the run never crossed 2/eta (-1)."""
    first = rows["first_above"]
    return rows.assign(first_above=first.where(first >= 0))


def sweep_table(rows):
    """One row per seed of the sweep at the edge of stability (``li.dynamics`` rows)."""
    return styled(_never_crossed(rows), SWEEP_COLUMNS, SWEEP_FORMATS, na_rep="never")


def long_run_table(long_rows, sweep_rows, last1000):
    """The seeds continued: each seed's sharpness at the end of the sweep (``sweep_rows``), its
    course in the long run, and its change over the last 1,000 epochs (``last1000``, by seed)."""
    rows = _never_crossed(long_rows).assign(lam_1500=sweep_rows["lam_final"], last1000=last1000)
    return styled(rows, LONG_COLUMNS, LONG_FORMATS, na_rep="never")


def residual_table(rows):
    """One row per residual I - Q (``li.dynamics.residual_table``): its size and conditioning
    against cond(M) over the signs of the columns, and the loss at 0 over the minimum."""
    return styled(rows, {c: RESIDUAL_COLUMNS.get(c, c) for c in rows.columns}, RESIDUAL_FORMATS)


#: the Proposition's bounds against depth (book/theorem1.ipynb)
GROWTH_COLUMNS = {
    "depth": "depth",
    "P": "#params",
    "lam_max": "lam_max",
    "lower_bound": "lower_bound",
    "p10": "p10",
    "p10_bound": "p10_bound",
    "cond10": "cond10",
    "cond10_bound": "cond10_bound",
}


def growth_table(rows):
    """One row per depth of ``li.theorem1.growth_check``: lambda_max and |lambda|(10%) against the
    Proposition's bounds, and the condition number max/10% against its lower bound (4 decimals)."""
    return styled(rows, GROWTH_COLUMNS, {}).format(precision=4)


def convention_table(table):
    """The singular values of I - Syx under the two sign conventions and their relative change
    (``facts.notation.convention_facts``'s ``conv_table``; 3 decimals)."""
    caption = "singular values of I - Syx under the two conventions"
    return table.style.hide(axis="index").format(precision=3).set_caption(caption)


#: Theorem 1, part 2 with an activation at each position (book/theorem1.ipynb)
ACTIVATION_FORMATS = {
    "max_err_H": "{:.1e}",
    "max_err_eigs": "{:.1e}",
    "cond_H": "{:.3f}",
    "cond_Eq12": "{:.3f}",
    "drop_over_model": "{:.3f}",
}


def activation_table(rows):
    """One row per activation and position: the errors of Eq. 11 and of the levels, cond(H) against
    Eq. 12, and the escape along the lowest eigenvector against its quadratic model."""
    return rows.style.hide(axis="index").format(ACTIVATION_FORMATS)


#: the papers' figures as the experiment chapters judge them (book/tour.ipynb): figure, ledger entry
FIGURE_CLAIMS = (
    ("Figure 2 (weight norm against loss)", "li-fig2-analog-deeper-smaller-norms"),
    ("Figure 3 (deeper, smaller weights)", "li-fig3-deeper-smaller-norms"),
    ("Figure 5 (condition number at the start)", "li-fig5-flat-to-depth-96"),
    ("Figure 5 (1-shortcut like plain)", "li-fig5-one-shortcut-like-plain"),
    ("Figure 6 (conditioning during training)", "li-fig6-shortcut-better-conditioned"),
    ("Figure 7 (the same, with ReLUs)", "li-fig7-shortcut-better-conditioned-relu"),
    ("Figure 8 (index)", "li-fig8-smaller-index"),
    ("Figure 8 (gradient peak at the index drop)", "li-fig8-gradient-peak-at-index-drop"),
    ("Figure 9 (near the optimum)", "li-fig9-near-optimal"),
    ("Figure 9 (2-shortcut lowest)", "li-fig9-shortcut-lowest"),
    ("Figure 10 (2-shortcut lowest with ReLUs)", "li-fig10-shortcut-lowest-relu"),
    ("Figure 10 (deeper, lower loss)", "li-fig10-deeper-shortcut-lower-loss"),
)


def figure_verdicts(claims, figure_claims=FIGURE_CLAIMS):
    """The papers' figures rerun: each figure's claim with the ledger's verdict (``claims``:
    ``ledger.all_claims()``)."""
    import pandas as pd

    verdicts = pd.DataFrame(
        {
            "Li et al.": [f for f, _ in figure_claims],
            "verdict": [claims[c].verdict for _, c in figure_claims],
            "ledger entry": [c for _, c in figure_claims],
        }
    )
    caption = "The papers' figures rerun: the claims ledger's verdicts, argued in the experiment chapters"
    return verdicts.style.hide(axis="index").set_caption(caption)
