"""`python -m bias_core export` and `runs`: the Runs page's exports headless, formula-safe CSVs, and the run list
with dead workers shown as stopped."""

from __future__ import annotations

import csv
import ctypes
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bias_core.cli import main
from bias_core.common.records import Input, MeasureResult, Summary
from bias_core.runs.store import RunStore
from bias_core.views.export import EXPORT_FORMATS, html_report, measures_csv, run_json, spreadsheet_safe, summaries_csv

REPO = Path(__file__).resolve().parent.parent

HOSTILE = ["=HYPERLINK(\"http://evil\",\"x\")", "+cmd|'/C calc'!A0", "@SUM(1)", "-x", "\t=1", "\r=1", "-1+cmd|' /C "
           "calc'!A0", "=1"]


@pytest.mark.parametrize("text", HOSTILE)
def test_formula_starts_get_a_leading_quote(text):
    assert spreadsheet_safe(text) == "'" + text


@pytest.mark.parametrize("value", ["-0.5", "-3", "-3e2", "plain text", "a=b", "", -0.5, -3, None, 0.25])
def test_numbers_and_ordinary_text_are_left_as_they_are(value):
    assert spreadsheet_safe(value) == value


def hostile_store(path: Path) -> tuple[RunStore, str]:
    """A store with one run whose ids, original ids, summarizer names and summaries are all formula-like."""
    store = RunStore(path)
    run_id = store.create_run({"summarizers": [{"name": "@SUM(1)"}]}, "hash", {"seed": 0}, name="=evil()")
    inputs = [Input(id=text, original_id=HOSTILE[(k + 1) % len(HOSTILE)], text="Some text.", perturbation="-x")
              for k, text in enumerate(HOSTILE)]
    store.add_inputs(run_id, inputs)
    store.add_summaries(run_id, [Summary(item.id, HOSTILE[(k + 2) % len(HOSTILE)], HOSTILE[(k + 3) % len(HOSTILE)])
                                 for k, item in enumerate(inputs)])
    store.replace_measures(run_id, [MeasureResult("entity_inclusion", -0.5, 12, summarizer="+cmd|'/C calc'!A0",
                                                  perturbation="=1", ci_low=-0.75, ci_high=-0.25, ci_kind="d",
                                                  reason="@SUM(1)")])
    store.update_run(run_id, status="completed")
    return store, run_id


def assert_no_cell_evaluates(rows: list[list[str]]) -> None:
    for row in rows:
        for cell in row:
            assert not cell[:1] in ("=", "+", "@", "\t", "\r") and not (cell[:1] == "-" and cell != "-0.5"
                                                                         and not cell[1:2].isdigit()), row


def test_every_hostile_cell_of_both_csv_exports_is_neutralised_through_the_cli(tmp_path, capsys):
    store, run_id = hostile_store(tmp_path / "runs.sqlite")
    summaries_out, measures_out = tmp_path / "summaries.csv", tmp_path / "measures.csv"
    assert main(["export", "--run", run_id, "--format", "summaries-csv", "--out", str(summaries_out),
                 "--store", str(store.path)]) == 0
    assert main(["export", "--run", run_id, "--format", "csv", "--out", str(measures_out),
                 "--store", str(store.path)]) == 0
    summaries = list(csv.reader(io.StringIO(summaries_out.read_bytes().decode("utf-8"), newline="")))
    measures = list(csv.reader(io.StringIO(measures_out.read_bytes().decode("utf-8"), newline="")))
    assert summaries[0] == ["input_id", "original_id", "perturbation", "arm", "summarizer", "summary"]
    assert len(summaries) == 1 + len(HOSTILE)
    cells = {cell for row in summaries[1:] for cell in row}
    assert {"'" + text for text in HOSTILE} <= cells and "'-x" in cells  # ids, original ids, names, summaries
    assert_no_cell_evaluates(summaries[1:])
    row = dict(zip(measures[0], measures[1]))
    assert (row["summarizer"], row["perturbation"], row["reason"]) == ("'+cmd|'/C calc'!A0", "'=1", "'@SUM(1)")
    assert (row["value"], row["ci_low"], row["ci_high"]) == ("-0.5", "-0.75", "-0.25")  # numbers stay numbers
    assert_no_cell_evaluates(measures[1:])


def same_export(written: str, offered: str) -> bool:
    """Equal, but for the random element ids plotly gives each chart in the HTML report."""
    uuid = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
    return uuid.sub("ID", written) == uuid.sub("ID", offered)


def test_each_export_format_writes_exactly_what_the_runs_page_offers(tmp_path):
    store, run_id = hostile_store(tmp_path / "runs.sqlite")
    page = {"json": run_json(store, run_id), "csv": measures_csv(store.measures(run_id)),
            "summaries-csv": summaries_csv(store, run_id), "html": html_report(store, run_id)}
    assert set(page) == set(EXPORT_FORMATS)
    for name, text in page.items():
        out = tmp_path / f"out.{name}"
        assert main(["export", "--run", run_id, "--format", name, "--out", str(out), "--store", str(store.path)]) == 0
        assert same_export(out.read_bytes().decode("utf-8"), text), name
    bundle = json.loads((tmp_path / "out.json").read_text())
    assert bundle["run"]["name"] == "=evil()"  # JSON keeps the data as it is; only spreadsheets need the quote
    assert "<h1>summbias audit report: =evil()</h1>" in (tmp_path / "out.html").read_text()


def test_an_unknown_run_names_the_id_and_the_runs_command(tmp_path, capsys):
    store, _ = hostile_store(tmp_path / "runs.sqlite")
    assert main(["export", "--run", "20990101-000000-abcdef", "--format", "html", "--out", str(tmp_path / "r.html"),
                 "--store", str(store.path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no run with id '20990101-000000-abcdef'" in err[0]
    assert "`python -m bias_core runs --store" in err[0] and not (tmp_path / "r.html").exists()


def test_out_onto_a_folder_or_into_a_missing_folder_is_one_line_and_writes_nothing(tmp_path, capsys):
    store, run_id = hostile_store(tmp_path / "runs.sqlite")
    folder = tmp_path / "exports"
    folder.mkdir()
    assert main(["export", "--run", run_id, "--format", "json", "--out", str(folder), "--store", str(store.path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert f"{folder}: is a folder — give a file name, e.g. {folder}/summbias-{run_id}.json" in err[0]
    missing = tmp_path / "no" / "such" / "r.json"
    assert main(["export", "--run", run_id, "--format", "json", "--out", str(missing), "--store", str(store.path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"the folder {missing.parent} does not exist — create it first" in err[0]
    assert not list(folder.iterdir()) and not (tmp_path / "no").exists()


def test_an_existing_export_is_replaced_whole(tmp_path):
    store, run_id = hostile_store(tmp_path / "runs.sqlite")
    out = tmp_path / "r.html"
    out.write_text("old " * 100_000)
    assert main(["export", "--run", run_id, "--format", "html", "--out", str(out), "--store", str(store.path)]) == 0
    assert out.read_text().startswith("<!DOCTYPE html>") and "old old" not in out.read_text()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")] == []


def _drop_file_permission_override() -> None:
    """In the child: drop the capabilities that let root ignore file modes, so chmod works as for any user."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2, 3):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


def test_export_into_a_read_only_folder_is_one_line_from_a_real_process(tmp_path):
    """`python -m bias_core export` as a user runs it. Tests run as root, which ignores chmod: the child drops
    CAP_DAC_OVERRIDE before exec so the folder's mode applies (for other users chmod alone is enough)."""
    store, run_id = hostile_store(tmp_path / "runs.sqlite")
    store.close()
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "bias_core", "export", "--run", run_id, "--format", "html", "--out",
             str(folder / "r.html"), "--store", str(tmp_path / "runs.sqlite")],
            cwd=REPO, capture_output=True, text=True, timeout=300,
            preexec_fn=_drop_file_permission_override if os.geteuid() == 0 else None)
    finally:
        folder.chmod(0o755)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        f"error: {folder / 'r.html'}: cannot write into the folder {folder} (Permission denied) — choose a folder "
        f"you can write to"]
    assert not list(folder.iterdir())


# runs ------------------------------------------------------------------------------------------------------------

def dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_runs_lists_every_run_and_shows_a_run_whose_worker_died_as_stopped(tmp_path, capsys):
    store = RunStore(tmp_path / "runs.sqlite")
    finished = store.create_run({}, "a", {}, name="finished")
    store.update_run(finished, status="completed", stage="done", done=8, total=8)
    dead = store.create_run({}, "b", {}, name="killed\x1b[31m red")
    store.update_run(dead, status="running", stage="summarize", done=3, total=8, worker_pid=dead_pid())
    alive = store.create_run({}, "c", {}, name="alive")
    store.update_run(alive, status="running", stage="perturb", done=1, total=8, worker_pid=os.getpid())

    assert main(["runs", "--json", "--store", str(store.path)]) == 0
    listed = {run["id"]: run for run in json.loads(capsys.readouterr().out)}
    assert list(listed) == [alive, dead, finished]  # newest first
    assert (listed[dead]["status"], listed[dead]["stored_status"]) == ("stopped", "running")
    assert (listed[alive]["status"], listed[finished]["status"]) == ("running", "completed")
    assert (listed[dead]["stage"], listed[dead]["progress_done"], listed[dead]["progress_total"]) == ("summarize", 3, 8)
    assert listed[dead]["name"] == "killed\x1b[31m red"

    assert main(["runs", "--store", str(store.path)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["id", "name", "status", "stage", "progress", "created", "message"]
    dead_line = next(line for line in table if line.startswith(dead))
    assert "stopped" in dead_line and "3/8" in dead_line and "summarize" in dead_line
    assert "killed\\x1b[31m red" in dead_line and "\x1b" not in "\n".join(table)  # no terminal escapes get through
    assert next(line for line in table if line.startswith(finished)).split()[2:4] == ["completed", "done"]


def test_runs_on_a_store_that_does_not_exist_says_so_and_creates_nothing(tmp_path, capsys):
    path = tmp_path / "nowhere" / "runs.sqlite"
    assert main(["runs", "--store", str(path)]) == 0
    assert capsys.readouterr().out.strip() == f"no runs: there is no run store at {path} yet"
    assert main(["runs", "--json", "--store", str(path)]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert not (tmp_path / "nowhere").exists()


def test_the_measures_csv_states_raw_p_detectable_effect_and_what_a_positive_estimate_favours():
    """Issue 28: every row names its groups and the sign convention ("positive favours the first group named"),
    and carries the raw p beside the Holm p and the detectable effect of a non-finding."""
    import gzip

    from bias_core.reference.demo import DEMO_RUN

    with gzip.open(DEMO_RUN, "rt", encoding="utf-8") as stream:
        bundle = json.load(stream)
    results = [MeasureResult.from_dict(m) for m in bundle["measures"]]
    rows = list(csv.DictReader(io.StringIO(measures_csv(results))))
    signs = {(r["measure"], r["estimate_sign"]) for r in rows if r["estimate_sign"]}
    assert ("entity_inclusion", "female vs male: positive favours female") in signs
    assert ("entity_inclusion", "black vs white: positive favours black") in signs
    acc = MeasureResult("acc_diff", 0.1, 5, "gender-loc", "m", 0.0, 0.2, "d", details={"groups": ["male", "female"]})
    (row,) = csv.DictReader(io.StringIO(measures_csv([acc])))
    assert row["estimate_sign"] == "male vs female: positive favours male"
    tested = [r for r in rows if r["p_holm"]]
    assert tested and all(r["p_raw"] and float(r["p_raw"]) <= float(r["p_holm"]) for r in tested)
    assert any(r["detectable_effect"] for r in rows if r["verdict"] == "no evidence of bias")
