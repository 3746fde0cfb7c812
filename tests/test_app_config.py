"""The app's Streamlit settings that protect users (README: untrusted strings stay plain text)."""

from __future__ import annotations

import tomllib
from pathlib import Path

CONFIG = Path(__file__).resolve().parents[1] / ".streamlit" / "config.toml"


def test_tables_offer_no_raw_csv_download_that_a_spreadsheet_would_evaluate():
    settings = tomllib.loads(CONFIG.read_text())
    assert settings["client"]["disableDataExport"] is True


def test_uploads_are_limited_to_the_same_size_as_bias_core_accepts():
    from bias_core.documents.decoding import DEFAULT_MAX_BYTES

    settings = tomllib.loads(CONFIG.read_text())
    assert settings["server"]["maxUploadSize"] * 10**6 == DEFAULT_MAX_BYTES
