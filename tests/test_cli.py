"""`python -m bias_core summarize` and `audit` as a user runs them: real processes, exit codes, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from bias_core.runs.store import RunStore

REPO = Path(__file__).resolve().parent.parent


def cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bias_core", *args], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300)


def test_summarize_writes_one_summary_per_document(tmp_path):
    out = tmp_path / "s.jsonl"
    result = cli("summarize", "--summarizer", "lead-3", "--inputs", "data/demo/news.jsonl", "--out", str(out))
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 16 and rows[0]["summarizer"] == "lead-3"
    assert len(rows[0]["sentences"]) == len(rows[0]["sentence_scores"])
    assert "wrote 16 summaries" in result.stderr


def test_summarize_reads_inputs_jsonl_and_passes_parameters(tmp_path):
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text(json.dumps({"id": "d/identity", "original_id": "d", "perturbation": "identity",
                                  "text": "One. Two. Three. Four.", "entities": [], "substitutions": []}) + "\n")
    out = tmp_path / "s.jsonl"
    result = cli("summarize", "--summarizer", "random-2", "--param", "seed=5", "--inputs", str(inputs),
                 "--out", str(out))
    assert result.returncode == 0, result.stderr
    row = json.loads(out.read_text())
    assert row["input_id"] == "d/identity" and row["meta"]["parameters"] == {"k": 2, "seed": 5}


def test_bad_input_exits_2_with_one_line_naming_file_and_line(tmp_path):
    bad = tmp_path / "docs.jsonl"
    bad.write_text('{"id": "a", "text": "fine"}\n{"id": "b", "text": \n')
    result = cli("summarize", "--summarizer", "lead-3", "--inputs", str(bad), "--out", str(tmp_path / "s.jsonl"))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"error: {bad}, line 2: is not valid JSON (Expecting value at column 21) — each line must be one JSON object"]
    assert not (tmp_path / "s.jsonl").exists()


def test_unknown_summarizer_is_a_one_line_error(tmp_path):
    result = cli("summarize", "--summarizer", "gpt5", "--inputs", "data/demo/news.jsonl", "--out", str(tmp_path / "s"))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith("error: unknown summarizer 'gpt5'")


def test_audit_from_a_config_prints_the_run_id_and_resumes_on_a_second_call(tmp_path):
    config = tmp_path / "audit.toml"
    config.write_text(f'name = "cli test"\nseed = 1\n[corpus]\npath = "{REPO / "data/demo/news.jsonl"}"\n'
                      '[[summarizers]]\nname = "lead-3"\n[[summarizers]]\nname = "random-3"\nseed = 2\n')
    store = tmp_path / "runs.sqlite"
    first = cli("audit", "--config", str(config), "--store", str(store))
    assert first.returncode == 0, first.stderr
    run_id = first.stdout.strip()
    info = RunStore(store).get_run(run_id)
    assert info.status == "completed" and info.name == "cli test" and info.config["seed"] == 1
    assert info.config["summarizers"][1] == {"name": "random-3", "params": {"seed": 2}}
    again = cli("audit", "--config", str(config), "--store", str(store), "--new")
    assert again.returncode == 0 and again.stdout.strip() != run_id


def test_audit_with_an_invalid_config_names_the_file(tmp_path):
    config = tmp_path / "audit.toml"
    config.write_text("[corpus\n")
    result = cli("audit", "--config", str(config), "--store", str(tmp_path / "r.sqlite"))
    assert result.returncode == 2 and result.stderr.startswith(f"error: {config}: is not valid TOML")


def test_every_subcommand_has_help():
    result = cli("--help")
    assert result.returncode == 0
    for command in ("summarize", "audit"):
        assert cli(command, "--help").returncode == 0


def test_the_readme_example_config_runs_to_completion_and_separates_biased_from_unbiased(tmp_path):
    store = tmp_path / "runs.sqlite"
    result = cli("audit", "--config", "examples/demo_audit.toml", "--store", str(store))
    assert result.returncode == 0, result.stderr
    # written to a pipe, progress is plain lines (count, rate, elapsed, remaining), not carriage returns (issue 31)
    assert "\r" not in result.stderr
    progress = [line for line in result.stderr.splitlines() if " summaries" in line and " elapsed" in line]
    done, total = progress[-1].split(": ", 1)[1].split(" ", 1)[0].split("/")
    assert done == total
    run_id = result.stdout.strip()
    info = RunStore(store).get_run(run_id)
    assert info.status == "completed" and info.name == "demo audit"
    inclusion = {(m.summarizer, m.ci_kind): m for m in RunStore(store).measures(run_id)
                 if m.measure == "entity_inclusion" and m.perturbation == "gender-loc"}
    lead, biased = inclusion[("lead-3", "d")], inclusion[("sexist-female", "d")]
    assert lead.details["signed"]["ci_low"] <= 0 <= lead.details["signed"]["ci_high"]
    assert biased.details["signed"]["ci_low"] > 0 and biased.details["favoured"] == "female"


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path):
    """`python -m bias_core runs --json | head` must not print an error or a traceback when head stops reading."""
    store = RunStore(tmp_path / "runs.sqlite")
    for index in range(3):
        store.create_run({"seed": index}, f"hash{index}", {}, name=f"run {index}")
    env = {**os.environ, "SUMMBIAS_STORE": str(tmp_path / "runs.sqlite")}
    process = subprocess.Popen([sys.executable, "-m", "bias_core", "runs", "--json"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=env, cwd=REPO)
    process.stdout.close()  # the reader is gone before the command writes anything
    stderr = process.stderr.read().decode()
    assert process.wait() == 141
    assert stderr == ""
