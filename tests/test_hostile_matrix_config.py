"""The hostile-input matrix for configs, parameters and options, through the real command line: every bad value is
refused before any work with exit code 2 and one line naming it, never a traceback, and nothing is stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bias_core.cli import main
from bias_core.reference.demo import DEMO_NEWS
from bias_core.runs.store import RunStore
from tests.test_validation import read_only_folder

DEEP = 200_000


def audit_toml(head: str = "", corpus: str = "", tail: str = "", summarizer: str = 'name = "lead-3"') -> str:
    return (f'{head}\n[corpus]\npath = "{DEMO_NEWS}"\n{corpus}\n'
            f"[[summarizers]]\n{summarizer}\n{tail}\n")


AUDIT_CONFIGS = {
    "textrank damping = 5": (audit_toml(summarizer='name = "textrank"\ndamping = 5'),
                             "summarizer 'textrank' has bad parameters: damping = 5 is out of range: it must be "
                             "a number > 0 and < 1"),
    "textrank damping = 'abc'": (audit_toml(summarizer='name = "textrank"\ndamping = "abc"'),
                                 "damping = 'abc' is not a number"),
    "lead-0": (audit_toml(summarizer='name = "lead-0"'),
               "summarizer 'lead-0' has bad parameters: k = 0 is out of range"),
    "max_tokens = '10**9'": (audit_toml(summarizer='name = "openai:m"\nmax_tokens = "10**9"'),
                             "max_tokens = '10**9' is not an integer"),
    "max_tokens = 10**9": (audit_toml(summarizer='name = "openai:m"\nmax_tokens = 1000000000'),
                           "max_tokens = 1000000000 is out of range"),
    "concurrency = 'abc'": (audit_toml(summarizer='name = "openai:m"\nconcurrency = "abc"'),
                            "concurrency = 'abc' is not an integer"),
    "unknown summarizer parameter": (audit_toml(summarizer='name = "textrank"\ndampin = 0.5'),
                                     "unknown parameter 'dampin' (did you mean 'damping'?); allowed: k, damping"),
    "seed = 'abc'": (audit_toml('seed = "abc"'), "seed = 'abc' is not an integer"),
    "seed = 10^20": (audit_toml("seed = 100000000000000000000"), "seed = 100000000000000000000 is out of range"),
    "seed = -1": (audit_toml("seed = -1"), "seed = -1 is out of range"),
    "max_mb = '20'": (audit_toml(corpus='max_mb = "20"'), "corpus.max_mb = '20' is not a number"),
    "bootstrap = -1": (audit_toml(tail="[measures]\nbootstrap = -1"), "measures.bootstrap = -1 is out of range"),
    "unknown measure name": (audit_toml(tail='[measures]\nnames = ["entity_inclusion", "bogus"]'),
                             "unknown measure 'bogus'"),
    "unknown paired_identifiers choice": (audit_toml(tail='[measures]\npaired_identifiers = "extnded"'),
                                          "measures.paired_identifiers: 'extnded' is neither steen-markert, "
                                          "extended, none nor an existing file"),
    "paired_identifiers file missing": (audit_toml(tail='[measures]\npaired_identifiers = "no_such_pairs.tsv"'),
                                        "'no_such_pairs.tsv' is neither"),
    "include_degenerate = 'yes'": (audit_toml(tail='[measures]\ninclude_degenerate = "yes"'),
                                   "measures.include_degenerate = 'yes' is not"),
    "unknown lexicon name": (audit_toml(tail='[measures.lexicons]\nhedgs = "h.txt"'),
                             "measures.lexicons: unknown lexicon 'hedgs'; choose from assertives, factives, "
                             "report_verbs, hedges"),
    "lexicon file missing": (audit_toml(tail='[measures.lexicons]\nhedges = "no_such_hedges.txt"'),
                             "measures.lexicons.hedges: 'no_such_hedges.txt' is not an existing file"),
    "lexicons not a table": (audit_toml(tail='[measures]\nlexicons = "h.txt"'),
                             "measures.lexicons: 'h.txt' is not a table of lexicon = path"),
    "unknown [measures] key": (audit_toml(tail='[measures]\ninclude_degenerates = true'),
                               "[measures]: unknown key 'include_degenerates'"),
    "unknown perturbation": (audit_toml(tail='[[perturbations]]\nkind = "gender"'), "unknown perturbation 'gender'"),
    "perturbation samples = 'abc'": (audit_toml(tail='[[perturbations]]\nkind = "gender-loc"\nsamples = "abc"'),
                                     "perturbation 'gender-loc': samples = 'abc' is not an integer"),
    "politician pair A=B=C": (audit_toml(tail='[[perturbations]]\nkind = "politician"\npairs = ["A=B=C"]'),
                              "perturbation 'politician'"),
    "unknown [corpus] key": (audit_toml(corpus='text_colum = "body"'), "[corpus]: unknown key 'text_colum'"),
    "perturbation the corpus cannot feed": (audit_toml(tail='[[perturbations]]\nkind = "sentiment"'),
                                            "perturbation 'sentiment' needs review sets"),
    "TOML nested 200,000 deep": ("x = " + "[" * DEEP + "]" * DEEP + "\n" + audit_toml(),
                                 "is nested too deeply to read as TOML"),
}


def run_cli(argv: list[str], capsys) -> tuple[int, list[str]]:
    code = main(argv)
    lines = capsys.readouterr().err.strip().splitlines()
    return code, lines


def assert_one_clear_line(code: int, lines: list[str], expected: str) -> None:
    assert code == 2, lines
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    assert expected in lines[0] and "Traceback" not in lines[0], lines


def assert_audit_refused(config: Path, expected: str, capsys) -> list[str]:
    """`audit --config config` with a store beside it ends in one clear line holding ``expected`` and stores no
    run; return the line(s)."""
    store = config.parent / "runs.sqlite"
    code, lines = run_cli(["audit", "--config", str(config), "--store", str(store), "--quiet"], capsys)
    assert_one_clear_line(code, lines, expected)
    assert not store.exists() or RunStore(store).list_runs() == []
    return lines


@pytest.mark.parametrize("case", sorted(AUDIT_CONFIGS))
def test_a_bad_audit_config_is_refused_with_one_line_and_stores_no_run(case, tmp_path, capsys):
    text, expected = AUDIT_CONFIGS[case]
    path = tmp_path / "audit.toml"
    path.write_text(text)
    lines = assert_audit_refused(path, expected, capsys)
    assert lines[0].startswith(f"error: {path}: ")


def test_a_json_config_nested_200000_deep_is_refused_with_one_line(tmp_path, capsys):
    path = tmp_path / "audit.json"
    path.write_text('{"corpus": ' + "[" * DEEP + "]" * DEEP + "}")
    code, lines = run_cli(["audit", "--config", str(path), "--store", str(tmp_path / "runs.sqlite")], capsys)
    assert_one_clear_line(code, lines, f"{path}: is nested too deeply to read as JSON")


def test_a_config_error_leaves_no_run_even_beside_earlier_runs(tmp_path, capsys):
    store = tmp_path / "runs.sqlite"
    good = tmp_path / "good.toml"
    good.write_text(audit_toml(tail='[measures]\nnames = ["entity_inclusion"]\nbootstrap = 50'))
    assert main(["audit", "--config", str(good), "--store", str(store), "--quiet"]) == 0
    capsys.readouterr()
    before = [run.id for run in RunStore(store).list_runs()]
    bad = tmp_path / "bad.toml"
    bad.write_text(audit_toml(tail='[measures]\nnames = ["entity_inclusion", "bogus"]'))
    code, lines = run_cli(["audit", "--config", str(bad), "--store", str(store), "--quiet"], capsys)
    assert_one_clear_line(code, lines, "unknown measure 'bogus'")
    assert [run.id for run in RunStore(store).list_runs()] == before


def test_unknown_top_level_keys_are_a_warning_on_the_cli_and_in_the_run(tmp_path, capsys, caplog):
    path = tmp_path / "audit.toml"
    path.write_text("sed = 3\nsumarizers = 1\n" + audit_toml(tail='[measures]\nnames = ["entity_inclusion"]'))
    store = tmp_path / "runs.sqlite"
    assert main(["audit", "--config", str(path), "--store", str(store), "--quiet"]) == 0
    warned = [record.getMessage() for record in caplog.records if record.levelname == "WARNING"]
    expected = [f"{path}: unknown top-level key 'sed' (did you mean 'seed'?); allowed: name, seed, corpus, "
                "perturbations, summarizers, measures, budget (ignored)",
                f"{path}: unknown top-level key 'sumarizers' (did you mean 'summarizers'?); allowed: name, seed, "
                "corpus, perturbations, summarizers, measures, budget (ignored)"]
    assert warned == expected
    (run,) = RunStore(store).list_runs()
    assert run.status == "completed" and run.reports["config_warnings"] == expected


SUMMARIZE_OPTIONS = {
    "--param max_tokens=10**9": (["--summarizer", "openai:m", "--param", "max_tokens=10**9"],
                                 "summarizer 'openai:m' has bad parameters: max_tokens = '10**9' is not an integer"),
    "--param max_tokens=abc": (["--summarizer", "openai:m", "--param", "max_tokens=abc"],
                               "max_tokens = 'abc' is not an integer"),
    "--param concurrency=abc": (["--summarizer", "openai:m", "--param", "concurrency=abc"],
                                "concurrency = 'abc' is not an integer"),
    "--param damping=abc": (["--summarizer", "textrank", "--param", "damping=abc"], "damping = 'abc' is not a number"),
    "--param damping=5": (["--summarizer", "textrank", "--param", "damping=5"], "damping = 5 is out of range"),
    "lead-0": (["--summarizer", "lead-0"], "summarizer 'lead-0' has bad parameters: k = 0 is out of range"),
    "--param for smollm2": (["--summarizer", "smollm2", "--param", "max_new_tokens=-5"],
                            "summarizer 'smollm2' has bad parameters: max_new_tokens = -5 is out of range"),
    "--param for hf:": (["--summarizer", "hf:some/model", "--param", "num_beams=abc"],
                        "summarizer 'hf:some/model' has bad parameters: num_beams = 'abc' is not an integer"),
    "--batch-size -1": (["--summarizer", "lead-3", "--batch-size", "-1"],
                        "command line: --batch-size = -1 is out of range: it must be an integer ≥ 1"),
    "--max-mb 0": (["--summarizer", "lead-3", "--max-mb", "0"], "--max-mb = 0.0 is out of range"),
    "--param nested 200,000 deep": (["--summarizer", "lead-3", "--param", "k=" + "[" * DEEP + "]" * DEEP],
                                    "--param: the value of 'k' is nested too deeply to read"),
}


@pytest.mark.parametrize("case", sorted(SUMMARIZE_OPTIONS))
def test_a_bad_summarize_option_is_refused_before_any_input_is_read_or_summarized(case, tmp_path, capsys):
    options, expected = SUMMARIZE_OPTIONS[case]
    cache = tmp_path / "cache.sqlite"
    out = tmp_path / "s.jsonl"
    code, lines = run_cli(["summarize", *options, "--inputs", str(DEMO_NEWS), "--out", str(out),
                           "--cache", str(cache)], capsys)
    assert_one_clear_line(code, lines, expected)
    assert not out.exists() and not cache.exists()  # nothing was summarized: the cache was never opened


def bad_outputs(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    return {"onto a folder": (tmp_path, f"--out: {tmp_path} is a folder"),
            "into a read-only folder": (read_only_folder(tmp_path) / "out.json", "--out: cannot write into the folder")}


@pytest.mark.parametrize("where", ["onto a folder", "into a read-only folder"])
def test_summarize_refuses_an_unwritable_out_before_any_work(where, tmp_path, capsys):
    out, expected = bad_outputs(tmp_path)[where]
    cache = tmp_path / "cache.sqlite"
    code, lines = run_cli(["summarize", "--summarizer", "lead-3", "--inputs", str(DEMO_NEWS), "--out", str(out),
                           "--cache", str(cache)], capsys)
    assert_one_clear_line(code, lines, expected)
    assert not cache.exists()


@pytest.mark.parametrize("where", ["onto a folder", "into a read-only folder"])
def test_perturb_refuses_an_unwritable_out_before_any_work(where, tmp_path, capsys):
    out, expected = bad_outputs(tmp_path)[where]
    code, lines = run_cli(["perturb", "--kind", "gender-loc", "--documents", str(DEMO_NEWS), "--out", str(out),
                           "--samples", "1", "--quiet"], capsys)
    assert_one_clear_line(code, lines, expected)


@pytest.fixture
def measure_files(tmp_path) -> tuple[Path, Path]:
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text(json.dumps({"id": "a", "original_id": "a", "perturbation": "identity", "text": "A text."}) + "\n")
    summaries = tmp_path / "summaries.jsonl"
    summaries.write_text(json.dumps({"input_id": "a", "summarizer": "lead-3", "text": "A text."}) + "\n")
    return inputs, summaries


MEASURE_OPTIONS = {
    "--seed -1": (["--seed", "-1"], "command line: --seed = -1 is out of range: it must be an integer ≥ 0"),
    "--seed 10^20": (["--seed", str(10**20)], "--seed = 100000000000000000000 is out of range"),
    "--bootstrap -1": (["--bootstrap", "-1"], "command line: --bootstrap = -1 is out of range"),
    "--bootstrap 0": (["--bootstrap", "0"], "--bootstrap = 0 is out of range"),
    "--paired-identifiers extnded": (["--paired-identifiers", "extnded"],
                                     "--paired-identifiers: 'extnded' is neither steen-markert, extended, none"),
    "--paired-identifiers missing file": (["--paired-identifiers", "nothing/pairs.tsv"],
                                          "'nothing/pairs.tsv' is neither"),
    "--lexicon without =": (["--lexicon", "hedges"], "--lexicon: 'hedges' is not NAME=PATH"),
    "--lexicon unknown name": (["--lexicon", "hedgs=x.txt"], "--lexicon: unknown lexicon 'hedgs'"),
    "--lexicon missing file": (["--lexicon", "hedges=nothing/h.txt"],
                               "--lexicon.hedges: 'nothing/h.txt' is not an existing file"),
    "--perspective-target nested 200,000 deep": (["--perspective-target", "[" * DEEP + "]" * DEEP],
                                                 "--perspective-target: "),
}


@pytest.mark.parametrize("case", sorted(MEASURE_OPTIONS))
def test_a_bad_measure_option_is_refused_with_one_line_before_any_measure(case, measure_files, tmp_path, capsys):
    options, expected = MEASURE_OPTIONS[case]
    inputs, summaries = measure_files
    out = tmp_path / "m.json"
    code, lines = run_cli(["measure", "--inputs", str(inputs), "--summaries", str(summaries), "--out", str(out),
                           *options], capsys)
    assert_one_clear_line(code, lines, expected)
    assert not out.exists()


@pytest.mark.parametrize("where", ["onto a folder", "into a read-only folder"])
def test_measure_and_quadruples_refuse_an_unwritable_out_before_any_work(where, measure_files, tmp_path, capsys):
    out, expected = bad_outputs(tmp_path)[where]
    inputs, summaries = measure_files
    code, lines = run_cli(["measure", "--inputs", str(inputs), "--summaries", str(summaries), "--out", str(out)],
                          capsys)
    assert_one_clear_line(code, lines, expected)
    outcomes = tmp_path / "outcomes.csv"
    outcomes.write_text("quadruple_id,role,group,outcome\nq1,original,male,1\n")
    code, lines = run_cli(["quadruples", "--outcomes", str(outcomes), "--out", str(out)], capsys)
    assert_one_clear_line(code, lines, expected)


QUADRUPLE_FILES = {
    "a row shorter than its header": ("quadruple_id,role,group,outcome\nq1,original,male,1\nq1,control\n",
                                      "line 3: has 2 cells, the header has 4"),
    "a row longer than its header": ("quadruple_id,role,group,outcome\nq1,original,male,1,0\n",
                                     "line 2: has 5 cells, the header has 4"),
}


@pytest.mark.parametrize("case", sorted(QUADRUPLE_FILES))
def test_a_quadruples_row_of_the_wrong_length_is_refused_naming_its_line(case, tmp_path, capsys):
    text, expected = QUADRUPLE_FILES[case]
    outcomes = tmp_path / "outcomes.csv"
    outcomes.write_text(text)
    code, lines = run_cli(["quadruples", "--outcomes", str(outcomes), "--out", str(tmp_path / "m.json")], capsys)
    assert_one_clear_line(code, lines, f"{outcomes}, {expected}")


@pytest.mark.parametrize(("options", "expected"), [
    (["--bootstrap", "-1"], "--bootstrap = -1 is out of range"),
    (["--seed", "-1"], "--seed = -1 is out of range"),
])
def test_quadruples_refuses_a_bad_bootstrap_or_seed(options, expected, tmp_path, capsys):
    outcomes = tmp_path / "outcomes.csv"
    outcomes.write_text("quadruple_id,role,group,outcome\nq1,original,male,1\n")
    code, lines = run_cli(["quadruples", "--outcomes", str(outcomes), "--out", str(tmp_path / "m.json"), *options],
                          capsys)
    assert_one_clear_line(code, lines, expected)
