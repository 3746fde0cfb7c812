"""The politicians table is the output of scripts/build_politicians.py over the public rosters (issue 10).

The builder reads unitedstates/congress-legislators (CC0-1.0) from /work/shared/reference/politicians/ and the
hand-maintained data/governors.csv; the shipped data/politicians.csv must equal its output byte for byte.
"""

from __future__ import annotations

import csv
import importlib.util
from pathlib import Path

import pytest

from bias_core.measures.lexicons import load_politicians

REPO = Path(__file__).resolve().parent.parent
SHIPPED = REPO / "data" / "politicians.csv"
REFERENCE = Path("/work/shared/reference/politicians")


def _builder():
    spec = importlib.util.spec_from_file_location("build_politicians", REPO / "scripts" / "build_politicians.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows() -> list[dict[str, str]]:
    with SHIPPED.open(newline="", encoding="utf-8") as stream:
        return list(csv.DictReader(stream))


@pytest.mark.skipif(not (REFERENCE / "congress-2019-2026.json").is_file(),
                    reason="the congress-legislators reference files are not on this machine")
def test_shipped_table_equals_the_builder_output_and_is_deterministic(tmp_path):
    builder = _builder()
    out = tmp_path / "politicians.csv"
    assert builder.main(["--reference", str(REFERENCE), "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == SHIPPED.read_text(encoding="utf-8")
    assert builder.render(builder.build_rows(REFERENCE)) == SHIPPED.read_text(encoding="utf-8")


def test_builder_without_the_reference_folder_says_what_to_pass(tmp_path, capsys):
    assert _builder().main(["--reference", str(tmp_path), "--out", str(tmp_path / "x.csv")]) == 2
    message = capsys.readouterr().err.strip()
    assert "missing congress-2019-2026.json, executive.yaml" in message and "\n" not in message
    assert not (tmp_path / "x.csv").exists()


def test_party_changes_are_dated():
    rows = {(row["name"], row["office"]): row for row in _rows()}
    sinema = rows["Kyrsten Sinema", "US Senator (Arizona)"]
    assert sinema["party"] == "independent"
    assert sinema["party_history"] == "democrat from 2019-01-03; independent from 2022-12-09"
    assert sinema["end"] == "2025-01-03"
    manchin = rows["Joe Manchin", "US Senator (West Virginia)"]
    assert manchin["party_history"].endswith("independent from 2024-05-31")


def test_legal_first_name_nickname_and_official_name_come_from_the_roster():
    rows = {row["name"]: row for row in _rows()}
    assert (rows["Chuck Schumer"]["first_name"], rows["Chuck Schumer"]["nickname"]) == ("Charles", "Chuck")
    assert rows["Richard Durbin"]["official_full_name"] == "Richard J. Durbin"
    assert (rows["Bob Casey"]["first_name"], rows["Bob Casey"]["suffix"]) == ("Robert", "Jr.")
    assert rows["Nikki Budzinski"]["first_name"] == "Nicole"  # written "Nicole (Nikki)" in the roster
    assert rows["George W. Bush"]["middle_name"] == "Walker"
    assert rows["George H. W. Bush"]["middle_name"] == "Herbert Walker"
    assert rows["Al Gore"]["office"] == "Vice President" and rows["Al Gore"]["first_name"] == "Albert"


def test_governors_carry_the_checked_corrections():
    rows = {row["name"]: row for row in _rows() if row["office"].startswith("Governor")}
    assert (rows["Josh Green"]["party"], rows["Josh Green"]["office"], rows["Josh Green"]["start"]) == (
        "democrat", "Governor (Hawaii)", "2022-12-05")
    assert rows["David Ige"]["end"] == "2022-12-05"
    assert rows["Glenn Youngkin"]["years"] == "2022-2026" and rows["Phil Murphy"]["years"] == "2018-2026"


def test_every_row_has_name_parts_gender_party_and_office():
    rows = _rows()
    assert len(rows) > 800
    for row in rows:
        assert row["name"] and row["first_name"] and row["last_name"] and row["office"], row
        assert row["gender"] in {"male", "female"}, row
        assert row["party"] in {"democrat", "republican", "independent", "libertarian"}, row
        assert row["name"].endswith(row["last_name"]), row
    senators = {row["name"] for row in rows if row["office"].startswith("US Senator") and row["end"] >= "2021-01-03"
                and row["start"] <= "2021-01-03"}
    assert len(senators) >= 100


def test_the_measures_loader_reads_the_table_with_party_and_gender():
    table = load_politicians()
    assert len(table) == len(_rows())
    by_name = {p.name: p for p in table}
    assert by_name["Kamala Harris"].gender == "female" and by_name["Mitch McConnell"].party == "republican"
