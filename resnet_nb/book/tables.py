"""The tables of book/theorem1.ipynb and book/theorem1_dynamics.ipynb: which columns, under
which labels, at which precision.

A chapter cell displays a result's table with one call (``display(tables.sweep_table(rows))``);
the choices of what to show live here, as data, beside the one function that applies them."""

from __future__ import annotations

from resnet_nb.book import show

__all__ = ["styled", "sweep_table", "long_run_table", "residual_table", "growth_table"]


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
