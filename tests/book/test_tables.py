"""The chapters' tables (resnet_nb.book.tables): the columns chosen, their labels and formats."""

import pandas as pd
import pytest

from resnet_nb.book import tables


def _rows():
    return pd.DataFrame(
        {
            "seed": [0, 1],
            "lam_peak": [2.123456, 1.5],
            "peak_epoch": [300, 1500],
            "first_above": [120, -1],
            "rises": [4, 0],
            "rise": [3.2, 0.5],
            "lam_final": [1.9876, 1.49],
            "final_gap": [1.234e-4, 5.6e-5],
            "spike": [True, False],
        }
    )


def test_a_styled_table_shows_the_chosen_columns_in_order_under_their_labels():
    df = pd.DataFrame({"a": [1.23456], "b": [2.0], "c": [3.0]})
    html = tables.styled(df, {"c": "gamma", "a": "a"}, {"gamma": "{:.1f}", "a": "{:.2f}"}).to_html()
    assert html.index("gamma") < html.index(">a<") and "b</th>" not in html
    assert ">3.0<" in html and ">1.23<" in html


def test_a_styled_table_names_a_missing_column():
    with pytest.raises(KeyError, match="'d'"):
        tables.styled(pd.DataFrame({"a": [1]}), {"d": "delta"}, {})


def test_the_sweep_table_says_never_for_a_seed_that_never_crossed_two_over_eta():
    html = tables.sweep_table(_rows()).to_html()
    assert "never" in html and "first above 2/η" in html
    assert ">2.123<" in html and ">1.2e-04<" in html  # three decimals, one significant digit after the point
    assert "spike" not in html  # a column the table does not show


def test_the_long_run_table_adds_the_sweeps_final_sharpness_and_the_last_change():
    long_rows = _rows()
    html = tables.long_run_table(long_rows, _rows().assign(lam_final=[1.111, 1.222]), [0.0123, -0.0004]).to_html()
    assert ">1.111<" in html and ">+0.0123<" in html and ">-0.0004<" in html


def test_the_residual_table_labels_the_known_columns_and_keeps_the_others():
    rows = pd.DataFrame({"case": ["random Q"], "res_norm": [0.1], "cond_M": [12.345]})
    html = tables.residual_table(rows).to_html()
    assert "case" in html and "||I-Q||" in html and ">12.3<" in html


def test_the_growth_table_labels_the_parameter_count_and_shows_four_decimals():
    rows = pd.DataFrame(
        {
            "depth": [2, 4],
            "P": [200, 400],
            "R": [2, 4],
            "lam_max": [1.234567, 2.5],
            "lower_bound": [1.2, 2.4],
            "p10": [0.5, 0.49],
            "p10_bound": [3.0, 3.1],
            "cond10": [2.469134, 5.1],
            "cond10_bound": [0.4, 0.8],
        }
    )
    html = tables.growth_table(rows).to_html()
    assert "#params" in html and ">R<" not in html and ">1.2346<" in html and ">2.4691<" in html


def test_the_figure_verdicts_read_each_claims_verdict_from_the_ledger():
    class Claim:
        def __init__(self, verdict):
            self.verdict = verdict

    pairs = (("Figure 2 (norms)", "a"), ("Figure 9 (lowest)", "b"))
    styled = tables.figure_verdicts({"a": Claim("holds"), "b": Claim("fails as printed")}, pairs)
    assert list(styled.data["verdict"]) == ["holds", "fails as printed"]
    assert list(styled.data["ledger entry"]) == ["a", "b"] and "rerun" in styled.caption


def test_every_figure_the_tour_lists_is_a_claim_of_the_ledger():
    from resnet_nb.book.ledger import all_claims

    claims = all_claims()
    assert all(cid in claims for _, cid in tables.FIGURE_CLAIMS)


def test_the_activation_table_shows_errors_in_scientific_notation_and_ratios_to_three_decimals():
    rows = pd.DataFrame(
        [
            dict(
                activation="tanh",
                position="mid",
                max_err_H=1.234e-15,
                max_err_eigs=2e-16,
                cond_H=2.5,
                cond_Eq12=2.5,
                drop_over_model=1.0004,
            )
        ]
    )
    html = tables.activation_table(rows).to_html()
    assert ">1.2e-15<" in html and ">1.000<" in html and ">2.500<" in html


def test_the_convention_table_has_its_caption_and_three_decimals():
    table = pd.DataFrame(
        {"convention": ["svd_flip"], "largest": [1.23456], "smallest": [0.1], "condition number": [12.3456]}
    )
    styled = tables.convention_table(table)
    assert "two conventions" in styled.caption and ">12.346<" in styled.to_html()
