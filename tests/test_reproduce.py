"""`python -m bias_core reproduce`: the papers' published numbers recomputed from the authors' released outputs."""

from __future__ import annotations

import pytest

from bias_core.cli import main
from bias_core.reference.reproduce import DEFAULT_REFERENCE, Cell, Reproduction, format_table, reproduce

COUNTER_GAP = DEFAULT_REFERENCE / "counter-gap"


def test_a_cell_differs_at_the_papers_rounding_only():
    assert Cell("p", "t", "r", "m", published=4.79, recomputed=4.7912).matches
    assert Cell("p", "t", "r", "m", published=20.27, recomputed=21.4667).difference == 1.20
    assert not Cell("p", "t", "r", "m", published=2.50, recomputed=2.546).matches


@pytest.mark.skipif(not COUNTER_GAP.is_dir(), reason="Counter-GAP reference data (../shared/reference) is absent")
def test_reproduce_gives_all_sixteen_counter_gap_values_exactly():
    result = reproduce(parts=("counter-gap",))
    assert len(result.cells) == 16
    assert [cell for cell in result.cells if not cell.matches] == []
    assert {cell.row for cell in result.cells} == {"bert_base", "bert_large", "spanbert_base", "spanbert_large"}


@pytest.mark.skipif(not COUNTER_GAP.is_dir(), reason="Counter-GAP reference data (../shared/reference) is absent")
def test_reproduce_command_prints_paper_against_summbias_and_exits_zero(capsys):
    assert main(["reproduce", "--only", "counter-gap"]) == 0
    out = capsys.readouterr().out
    assert "| Xie et al. 2023 (Counter-GAP) | Tables 2-3 | bert_base | delta_i | 4.79 | 4.79 | +0.00 |" in out
    assert "16 of 16 published numbers reproduced exactly" in out
    assert "Not reproducible, and why:" in out and "Harvard Dataverse" in out


def test_a_reference_folder_without_a_part_lists_it_as_skipped(tmp_path, capsys):
    assert main(["reproduce", "--reference", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "0 of 0 published numbers" in out
    assert f"counter-gap: no folder {tmp_path / 'counter-gap'}" in out


def test_a_missing_reference_folder_is_one_line(tmp_path, capsys):
    assert main(["reproduce", "--reference", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is not a folder" in err[0]


def test_a_mismatch_is_shown_with_its_difference():
    table = format_table(Reproduction(cells=[Cell("P", "T", "gpt-4", "bur", 20.27, 21.4667)]))
    assert "| P | T | gpt-4 | bur | 20.27 | 21.47 | +1.20 |" in table
    assert "0 of 1 published numbers reproduced exactly" in table


def test_fairsumm_cells_pair_each_published_table_10_cell_with_its_recomputation(monkeypatch, tmp_path):
    from bias_core.measures import fairsumm_table10
    from bias_core.reference.reproduce import fairsumm_cells

    recomputed = {"GPT-4": {"BUR": 20.2667, "UER": 2.5012}, "Alpaca": {"BUR": 34.4667, "UER": 3.7}}
    monkeypatch.setattr(fairsumm_table10, "table10_cells", lambda folder: recomputed)
    cells = {(cell.row, cell.measure): cell for cell in fairsumm_cells(tmp_path)}
    assert set(cells) == {("GPT-4", "BUR"), ("GPT-4", "UER"), ("Alpaca", "BUR"), ("Alpaca", "UER")}
    assert cells[("GPT-4", "BUR")].matches and cells[("GPT-4", "BUR")].published == 20.27
    assert cells[("Alpaca", "UER")].difference == -0.01
