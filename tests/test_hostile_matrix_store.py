"""The hostile-input matrix, store and output side (issue 23, items 12-13): a damaged run, a read-only store, an
unknown run id, hostile measure files and summarizer parameters, an invalid base URL, `cache --reset` on a file that
is not a cache and `--out` onto a symbolic link. Each ends in one line naming the run, file or parameter (or in the
right result), in the CLI and in the app, never in a traceback."""

from __future__ import annotations

import copy
import gzip
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bias_core.reference.demo import DEMO_RUN, ensure_demo_run
from bias_core.runs.store import RunStore
from tests.conftest import REPO, open_app
from tests.test_store_schema import _drop_file_permission_override, digest

DAMAGED_ID = "20991231-000000-damage"

# The stored config column as a careless edit or a bad disk leaves it, and the line each gives.
DAMAGED_CONFIGS = {
    "not JSON": ("{not json", "its stored configuration is not JSON"),
    "a JSON list": ("[1, 2]", "its stored configuration is a JSON list, not an object"),
    "summarizers not a list": ('{"summarizers": 5, "perturbations": []}',
                               "its stored configuration's summarizers are not a list of named stages"),
}


def store_with_a_damaged_run(path: Path, config_text: str) -> str:
    """A store holding the demo run and a newer copy of it whose stored config is ``config_text``; the demo run's
    id is returned."""
    store = RunStore(path)
    good = ensure_demo_run(store)
    with gzip.open(DEMO_RUN, "rt", encoding="utf-8") as stream:
        bundle = json.load(stream)
    damaged = copy.deepcopy(bundle)
    damaged["run"].update(id=DAMAGED_ID, name="the damaged run", created=time.time(), updated=time.time())
    store.import_run(damaged)
    store.close()
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE runs SET config = ? WHERE id = ?", (config_text, DAMAGED_ID))
    connection.close()
    return good


def damaged_line(problem: str) -> str:
    return f"run {DAMAGED_ID}: {problem}, so it cannot be read — delete it on the Runs page"


def plain(markdown: str) -> str:
    """Text written by ``md_escape`` back to the characters it shows."""
    return markdown.replace("\\", "")


@pytest.mark.parametrize("case", sorted(DAMAGED_CONFIGS))
def test_a_run_with_a_damaged_config_is_listed_as_damaged_and_every_other_run_reads(case, tmp_path):
    config_text, problem = DAMAGED_CONFIGS[case]
    path = tmp_path / "runs.sqlite"
    good = store_with_a_damaged_run(path, config_text)
    store = RunStore(path)
    runs = {run.id: run for run in store.list_runs()}
    assert runs[DAMAGED_ID].shown_status == "damaged" and runs[DAMAGED_ID].message == damaged_line(problem)
    assert runs[good].damaged is None and runs[good].config["summarizers"]
    with pytest.raises(Exception, match="^" + damaged_line(problem).replace("(", r"\(").replace(")", r"\)")):
        store.get_run(DAMAGED_ID)
    assert store.get_run(good).id == good


@pytest.mark.parametrize("case", sorted(DAMAGED_CONFIGS))
def test_the_runs_and_export_commands_name_the_damaged_run_in_one_line(case, tmp_path, capsys):
    from bias_core.cli import main

    config_text, problem = DAMAGED_CONFIGS[case]
    path = tmp_path / "runs.sqlite"
    good = store_with_a_damaged_run(path, config_text)
    assert main(["runs", "--json", "--store", str(path)]) == 0
    listed = {row["id"]: row for row in json.loads(capsys.readouterr().out)}
    assert listed[DAMAGED_ID]["status"] == "damaged" and listed[DAMAGED_ID]["message"] == damaged_line(problem)
    assert listed[good]["status"] == "completed"
    out = tmp_path / "damaged.json"
    assert main(["export", "--run", DAMAGED_ID, "--format", "json", "--out", str(out), "--store", str(path)]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [f"error: {damaged_line(problem)}"]
    assert not out.exists()


@pytest.mark.parametrize("case", ["not JSON", "summarizers not a list"])  # about 30 s each
def test_the_app_shows_the_damaged_run_as_damaged_and_the_others_keep_working(case, tmp_path, monkeypatch):
    config_text, problem = DAMAGED_CONFIGS[case]
    path = tmp_path / "runs.sqlite"
    good = store_with_a_damaged_run(path, config_text)
    monkeypatch.setenv("SUMMBIAS_STORE", str(path))
    at = open_app()  # the Overview of the newest run that reads, although the damaged one is newer
    assert at.session_state["run_id"] == good and not at.error
    sidebar = at.sidebar.selectbox(key="sidebar_run")
    assert f"the damaged run · {DAMAGED_ID} · damaged" in sidebar.options
    sidebar.set_value(DAMAGED_ID).run()
    assert not at.exception and [plain(e.value) for e in at.error] == [damaged_line(problem)]
    for page in ("pages/compare.py", "pages/metrics.py", "pages/fightin_words.py"):
        at.switch_page(page).run()
        assert not at.exception and [plain(e.value) for e in at.error] == [damaged_line(problem)], page
        at.sidebar.selectbox(key="sidebar_run").set_value(good).run()
        assert not at.exception and not at.error and at.session_state["run_id"] == good, page
        at.sidebar.selectbox(key="sidebar_run").set_value(DAMAGED_ID).run()
    at.switch_page("pages/runs.py").run()
    assert not at.exception
    table = at.dataframe[0].value.set_index("run")
    assert table.loc[DAMAGED_ID, "status"] == "damaged" and table.loc[good, "status"] == "completed"
    at.selectbox(key="runs_selected").set_value(DAMAGED_ID).run()
    assert [plain(e.value) for e in at.error] == [damaged_line(problem)]
    assert not at.get("download_button")  # nothing of it to export
    at.checkbox(key="runs_confirm_delete").check().run()
    at.button(key="runs_delete").click().run()
    assert not at.exception
    assert [run.id for run in RunStore(path).list_runs()] == [good]
    at.selectbox(key="runs_selected").set_value(good).run()
    assert not at.exception and not at.error and len(at.get("download_button")) == 4


# a read-only store ------------------------------------------------------------------------------------------------

APP_ON_A_READ_ONLY_STORE = """
import json
from tests.conftest import open_app

def lines(at):
    return {"exceptions": [e.value for e in at.exception], "errors": [e.value.replace("\\\\", "") for e in at.error]}

seen = {}
at = open_app("pages/runs.py")
at.checkbox(key="runs_confirm_delete").check().run()
at.button(key="runs_delete").click().run()
seen["delete"] = lines(at)
at = open_app("pages/corpus.py")
at.switch_page("pages/audit.py").run()
at.button(key="audit_run").click().run()
seen["audit"] = lines(at)
print(json.dumps(seen))
"""


def test_the_app_on_a_read_only_store_gives_the_cli_line_on_run_audit_and_delete(tmp_path):
    """The app in a real process whose file modes are enforced (as root, after dropping the capabilities that let
    root ignore them): the store file and its folder are read-only."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    path = folder / "runs.sqlite"
    store = RunStore(path)
    ensure_demo_run(store)
    store.close()
    before = digest(path)
    path.chmod(0o444)
    folder.chmod(0o555)
    environment = {**os.environ, "SUMMBIAS_STORE": str(path), "SUMMBIAS_CACHE": str(tmp_path / "cache.sqlite"),
                   "SUMMBIAS_NO_DEMO": "1", "PYTHONPATH": str(REPO)}
    try:
        result = subprocess.run([sys.executable, "-c", APP_ON_A_READ_ONLY_STORE], cwd=REPO, capture_output=True,
                                text=True, timeout=400, env=environment,
                                preexec_fn=_drop_file_permission_override if os.geteuid() == 0 else None)
    finally:
        folder.chmod(0o755)
        path.chmod(0o644)
    assert result.returncode == 0, result.stderr[-3000:]
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    line = (f"the run store {path} is read-only (attempt to write a readonly database) — make it and its folder "
            "writable or choose another --store")  # the CLI's line (tests/test_store_schema.py)
    assert seen == {"delete": {"exceptions": [], "errors": [line]}, "audit": {"exceptions": [], "errors": [line]}}
    assert digest(path) == before and sorted(p.name for p in folder.iterdir()) == ["runs.sqlite"]


# an unknown run id ------------------------------------------------------------------------------------------------

def test_audit_with_an_unknown_run_id_is_one_line_naming_it(tmp_path):
    path = tmp_path / "runs.sqlite"
    RunStore(path).close()
    config = tmp_path / "audit.toml"
    config.write_text('[corpus]\npath = "no-such-corpus.jsonl"\n\n[[summarizers]]\nname = "lead-3"\n')
    environment = {**os.environ, "SUMMBIAS_STORE": str(path), "SUMMBIAS_CACHE": str(tmp_path / "cache.sqlite")}
    result = subprocess.run([sys.executable, "-m", "bias_core", "audit", "--config", str(config), "--run", "nope",
                             "--quiet"], cwd=REPO, capture_output=True, text=True, timeout=120, env=environment)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"error: no run with id 'nope' in {path} — list the runs with `python -m bias_core runs --store {path}`"]
    missing = tmp_path / "elsewhere" / "runs.sqlite"
    result = subprocess.run([sys.executable, "-m", "bias_core", "audit", "--config", str(config), "--run", "nope",
                             "--store", str(missing), "--quiet"], cwd=REPO, capture_output=True, text=True,
                            timeout=120, env=environment)
    assert result.returncode == 2 and not missing.parent.exists()
    assert result.stderr.strip().splitlines() == [
        f"error: there is no run store at {missing} — check the path or choose another with --store"]


# hostile option files and parameters ---------------------------------------------------------------------------

def small_inputs_and_summaries(folder: Path) -> tuple[Path, Path]:
    """inputs.jsonl and summaries.jsonl of one input and its lead-3 summary, as perturb and summarize write them."""
    inputs, summaries = folder / "inputs.jsonl", folder / "summaries.jsonl"
    inputs.write_text(json.dumps({"id": "a", "original_id": "a", "text": "Tom went home. He slept. She read."}) + "\n")
    summaries.write_text(json.dumps({"input_id": "a", "summarizer": "lead-3", "text": "Tom went home.",
                                     "sentences": ["Tom went home."], "sentence_scores": [1.0]}) + "\n")
    return inputs, summaries


LATIN1 = "Zoë,female\nJosé,male\n".encode("latin-1")


@pytest.mark.parametrize(("option", "name", "data"), [
    ("--hallucination-genders", "genders.csv", b"name,gender\n" + LATIN1),
    ("--bias-labels", "labels.jsonl", '{"id": "a", "sentences": ["Café"], "labels": [0]}\n'.encode("latin-1")),
])
def test_a_measure_option_file_that_is_not_utf8_is_one_line_naming_it(option, name, data, tmp_path, capsys):
    from bias_core.cli import main

    inputs, summaries = small_inputs_and_summaries(tmp_path)
    hostile = tmp_path / name
    hostile.write_bytes(data)
    out = tmp_path / "measures.json"
    code = main(["measure", "--inputs", str(inputs), "--summaries", str(summaries), "--out", str(out),
                 option, str(hostile)])
    error = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(error) == 1 and error[0].startswith(f"error: {hostile}: is not UTF-8 text")
    assert not out.exists()


def test_an_outcomes_file_that_is_not_utf8_is_one_line_naming_it(tmp_path, capsys):
    from bias_core.cli import main

    outcomes = tmp_path / "outcomes.csv"
    outcomes.write_bytes(b"quadruple_id,role,group,outcome\n" + "q1-é,original,male,1\n".encode("latin-1"))
    code = main(["quadruples", "--outcomes", str(outcomes), "--out", str(tmp_path / "q.json")])
    error = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(error) == 1 and error[0].startswith(f"error: {outcomes}: is not UTF-8 text")


def test_sentence_scores_that_are_not_numbers_are_one_line_naming_the_file_line_and_field(tmp_path, capsys):
    from bias_core.cli import main

    inputs, summaries = small_inputs_and_summaries(tmp_path)
    record = json.loads(summaries.read_text())
    summaries.write_text(json.dumps({**record, "sentence_scores": ["abc"]}) + "\n")
    code = main(["measure", "--inputs", str(inputs), "--summaries", str(summaries), "--out",
                 str(tmp_path / "m.json")])
    assert code == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"error: {summaries}, line 1: summary field 'sentence_scores' must be a list of numbers, but item 1 is "
        '"abc"']


@pytest.mark.parametrize("base_url", ["http://[::1", "http://user:secret@[::1/v1", "http://host:99999/v1",
                                      "ftp://host/v1", "http://exa mple.com/v1"])
def test_an_invalid_base_url_is_refused_before_a_run_is_created_in_one_redacted_line(base_url, tmp_path):
    store, config = tmp_path / "runs.sqlite", tmp_path / "audit.toml"
    config.write_text(f'[corpus]\npath = "{REPO / "data/demo/news.jsonl"}"\n\n[[summarizers]]\nname = "openai:m"\n'
                      f'base_url = "{base_url}"\nretries = 0\n')
    result = subprocess.run([sys.executable, "-m", "bias_core", "audit", "--config", str(config), "--store",
                             str(store), "--quiet"], cwd=REPO, capture_output=True, text=True, timeout=120,
                            env={**os.environ, "SUMMBIAS_CACHE": str(tmp_path / "cache.sqlite")})
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: {config}: summarizer 'openai:m' has bad parameters: base_url = '")
    assert "is not an http:// or https:// URL (" in lines[0] and "secret" not in lines[0]
    assert not store.exists()  # no run was created


def test_an_endpoints_file_with_an_invalid_base_url_names_the_entry(tmp_path):
    from bias_core.safety.endpoints import browser_endpoints
    from bias_core.safety.errors import InputError

    endpoints = tmp_path / "endpoints.toml"
    endpoints.write_text('[[endpoints]]\nname = "lab"\nbase_url = "http://[::1"\n')
    with pytest.raises(InputError) as caught:
        browser_endpoints(endpoints)
    assert str(caught.value) == (f"{endpoints}, endpoint 1: base_url = 'http://[::1' is not an http:// or https:// "
                                 "URL (Invalid IPv6 URL)")


# cache --reset on a file that is not a cache ----------------------------------------------------------------------

def test_cache_reset_refuses_a_file_that_is_not_a_summary_cache_and_leaves_it_as_it_is(tmp_path, capsys):
    from bias_core.cli import main

    text = tmp_path / "notes.txt"
    text.write_text("my notes, not a cache\n")
    store = tmp_path / "runs-copy.sqlite"
    RunStore(store).close()
    for path, problem in ((text, "not an SQLite file"),
                          (store, "it holds the tables documents, failures, inputs, measures, owners, runs, summaries, views")):
        before = digest(path)
        assert main(["cache", "--reset", "--cache", str(path)]) == 2
        assert capsys.readouterr().err.strip().splitlines() == [
            f"error: {path} is not a summary cache ({problem}), so --reset leaves it as it is — check the path "
            "given to --cache"]
        assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "runs-copy.sqlite"]


# --out onto a symbolic link ---------------------------------------------------------------------------------------

def test_every_out_writer_writes_through_a_symbolic_link_and_keeps_it(tmp_path, capsys):
    """perturb, summarize, measure, quadruples and export: the link stays a link and its target gets the output."""
    from bias_core.cli import main

    results = tmp_path / "results"
    results.mkdir()
    store = tmp_path / "runs.sqlite"
    run_id = ensure_demo_run(RunStore(store))
    outcomes = tmp_path / "outcomes.csv"
    outcomes.write_text("quadruple_id,role,group,outcome\n" + "".join(
        f"q{k},{role},{group},{(k + index) % 2}\n" for k in range(6)
        for index, (role, group) in enumerate([("original", "male"), ("control", "male"), ("swap1", "female"),
                                                ("swap2", "female")])))
    news = str(REPO / "data/demo/news.jsonl")

    def link(name: str) -> Path:
        target = results / name
        target.write_text("old content\n")
        (tmp_path / name).symlink_to(target)
        return tmp_path / name

    commands = {
        "inputs.jsonl": ["perturb", "--kind", "identity", "--documents", news, "--quiet"],
        "summaries.jsonl": ["summarize", "--summarizer", "lead-3", "--inputs", news, "--no-cache"],
        "measures.json": ["measure", "--inputs", str(tmp_path / "inputs.jsonl"), "--summaries",
                          str(tmp_path / "summaries.jsonl"), "--measure", "distinguishability_count",
                          "--bootstrap", "50"],
        "quadruples.json": ["quadruples", "--outcomes", str(outcomes), "--bootstrap", "50"],
        "export.csv": ["export", "--run", run_id, "--format", "csv", "--store", str(store)],
    }
    for name, argv in commands.items():
        out = link(name)
        assert main([*argv, "--out", str(out)]) == 0, capsys.readouterr().err
        assert out.is_symlink() and out.resolve() == results / name, name
        assert (results / name).read_text() != "old content\n", name
    assert json.loads((results / "measures.json").read_text())["results"]
    assert (results / "export.csv").read_text().startswith("measure,perturbation")
