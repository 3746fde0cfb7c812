"""Numbers on screen are rounded, p-values keep their significant digits, and the data behind them keeps full
precision (issue 14)."""

from __future__ import annotations

import json

import pandas as pd

from pages.render import rounded
from tests.conftest import open_app


def test_float_columns_show_three_decimals_and_p_values_three_significant_digits():
    frame = pd.DataFrame({"estimate": [0.8000000000000002], "p": [0.000123], "Holm p": [0.5], "p_holm": [0.1],
                          "n": [3], "measure": ["bur"]})
    config = {column: json.dumps(value) for column, value in rounded(frame).items()}
    assert set(config) == {"estimate", "p", "Holm p", "p_holm"}
    assert '"%.3f"' in config["estimate"]
    assert all('"%.3g"' in config[column] for column in ("p", "Holm p", "p_holm"))


def test_metrics_tables_keep_full_precision_in_the_data_they_show(monkeypatch):
    monkeypatch.setenv("SUMMBIAS_NO_DEMO", "0")
    at = open_app("pages/metrics.py")
    at.radio(key="metrics_family").set_value("inclusion").run()  # its race names table holds the floats
    frames = [frame.value for frame in at.dataframe]
    assert frames
    # The frames are not rounded (the display is): exports and the Runs page's downloads see every digit.
    assert any(len(repr(value)) > 8 for frame in frames for column in frame.columns
               if str(frame[column].dtype).startswith("float") for value in frame[column].dropna())


def test_empty_text_cells_show_a_dash_not_the_word_none():
    import pandas as pd

    from pages.render import for_display

    frame = for_display(pd.DataFrame({"label": [None, "PERSON"], "score": [1.0, None], "flag": [True, None]}))
    assert list(frame["label"]) == ["—", "PERSON"] and list(frame["flag"]) == [True, "—"]
    assert frame["score"].isna().tolist() == [False, True]  # numbers stay numbers (Streamlit shows an empty cell)
