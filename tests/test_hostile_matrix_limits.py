"""The hostile-input matrix for limits and corpus inputs (issue 23, items 8, 12, 14 and 15): counts beyond their
stated maximum, lone surrogates, ids that are not ids, broken CSV quoting and headers, column names that do not
exist, a damaged politicians table and the upload limit. Each is refused before any work with exit code 2 and one
line naming the file, row or parameter (an error box in the app), and nothing is stored."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from bias_core.cli import main
from bias_core.documents.corpus import csv_header, load_documents, load_documents_from_bytes
from bias_core.documents.decoding import DEFAULT_MAX_BYTES
from bias_core.reference.demo import DEMO_NEWS
from tests.conftest import REPO, open_app
from tests.test_hostile_matrix_config import assert_audit_refused, assert_one_clear_line, audit_toml, run_cli

DEMO_REVIEWS = REPO / "data" / "demo" / "reviews.jsonl"
OUT_OF_RANGE = "is out of range: it must be an integer ≥ 1 and ≤ 1000"

PERTURB_OPTIONS = {
    "--samples 100000000": (["--kind", "gender-loc", "--samples", "100000000"],
                            f"command line: --samples = 100000000 {OUT_OF_RANGE}"),
    "--repeats 100000000": (["--kind", "identity", "--repeats", "100000000"],
                            f"command line: --repeats = 100000000 {OUT_OF_RANGE}"),
    "--units-per-input 10**7": (["--kind", "sentiment", "--units-per-input", "10000000"],
                                "command line: --units-per-input = 10000000 is out of range: it must be an integer "
                                "≥ 2 and ≤ 1000"),
}


@pytest.mark.timeout(60)  # before the maxima these ran for minutes and gigabytes
@pytest.mark.parametrize("case", sorted(PERTURB_OPTIONS))
def test_a_perturbation_count_beyond_its_maximum_is_refused_before_any_document_is_read(case, tmp_path, capsys):
    options, expected = PERTURB_OPTIONS[case]
    documents = DEMO_REVIEWS if "sentiment" in options else DEMO_NEWS
    out = tmp_path / "inputs.jsonl"
    code, lines = run_cli(["perturb", *options, "--documents", str(documents), "--out", str(out), "--quiet"], capsys)
    assert_one_clear_line(code, lines, expected)
    assert not out.exists()


def perturbation(kind: str, params: str, corpus: Path = DEMO_NEWS) -> str:
    return (f'[corpus]\npath = "{corpus}"\n[[summarizers]]\nname = "lead-3"\n'
            f'[[perturbations]]\nkind = "{kind}"\n{params}\n')


AUDIT_CONFIGS = {
    "samples = 2**63": (perturbation("gender-loc", "samples = 9223372036854775808"),
                        f"perturbation 'gender-loc': samples = 9223372036854775808 {OUT_OF_RANGE}"),
    "repeats = 10**8": (perturbation("identity", "repeats = 100000000"),
                        f"perturbation 'identity': repeats = 100000000 {OUT_OF_RANGE}"),
    "units_per_input = 10**7": (perturbation("sentiment", "units_per_input = 10000000", DEMO_REVIEWS),
                                "units_per_input = 10000000 is out of range: it must be an integer ≥ 2 and ≤ 1000"),
    "top_n_names = 10**9": (perturbation("gender-loc", "top_n_names = 1000000000"),
                            "top_n_names = 1000000000 is out of range: it must be an integer ≥ 2 and ≤ 100 000"),
    "101 ratios": (perturbation("sentiment", f"ratios = {[0.5] * 101}", DEMO_REVIEWS),
                   "perturbation 'sentiment': ratios has 101 entries; at most 100 are allowed"),
    "max_mb = 1e308": (audit_toml(corpus="max_mb = 1e308"),
                       "corpus.max_mb = 1e+308 is out of range: it must be a number > 0 and ≤ 1000"),
    "ratios = ['a']": (perturbation("sentiment", 'ratios = ["a"]', DEMO_REVIEWS),
                       "perturbation 'sentiment': ratios[0] = 'a' is not a number"),
    "ratios = 0.5": (perturbation("sentiment", "ratios = 0.5", DEMO_REVIEWS),
                     "perturbation 'sentiment': ratios = 0.5 is not a list of numbers"),
    "pairs = [1]": (perturbation("politician", "pairs = [1]"), "perturbation 'politician': pairs[0] = 1 is not text"),
    "corpus = ''": ('corpus = ""\n[[summarizers]]\nname = "lead-3"\n', "corpus is empty"),
    "[corpus] path = ''": ('[corpus]\npath = ""\n[[summarizers]]\nname = "lead-3"\n', "corpus is empty"),
    "value_column = 'nope' (sentiment)": (perturbation("sentiment", 'value_column = "nope"', DEMO_REVIEWS),
                                          "perturbation 'sentiment': value_column 'nope' is not a field of any unit; "
                                          "the units have: value, stars"),
    "[corpus] value_column of a JSONL corpus": (
        audit_toml(corpus='value_column = "nope"'),
        "corpus.value_column = 'nope' names a column, but news.jsonl is not a .csv file"),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("case", sorted(AUDIT_CONFIGS))
def test_a_config_value_beyond_its_limits_is_refused_with_one_line_and_stores_no_run(case, tmp_path, monkeypatch,
                                                                                     capsys):
    text, expected = AUDIT_CONFIGS[case]
    (tmp_path / "stray.txt").write_text("A stray note in the working folder. She said so.")
    monkeypatch.chdir(tmp_path)  # corpus = "" used to audit every .txt here
    path = tmp_path / "audit.toml"
    path.write_text(text)
    lines = assert_audit_refused(path, expected, capsys)
    assert lines[0].startswith(f"error: {path}: ")


@pytest.mark.parametrize("option", ["--ray-cpus", "--ray-actors"])
def test_ray_workers_beyond_their_maximum_are_refused_before_the_config_is_read(option, tmp_path, capsys):
    store = tmp_path / "runs.sqlite"
    code, lines = run_cli(["audit", "--config", str(tmp_path / "none.toml"), "--store", str(store), option,
                           "100000000"], capsys)
    assert_one_clear_line(code, lines, f"command line: {option} = 100000000 is out of range: it must be an integer "
                                       "≥ 1 and ≤ 1024")
    assert not store.exists()


SURROGATE_TEXT = '{"id": "a", "text": "She said \\ud800 hello."}\n'
BAD_FILES = {
    "lone surrogate in a JSONL text": ("docs.jsonl", '{"id": "ok", "text": "Fine."}\n' + SURROGATE_TEXT,
                                       "line 2: field 'text' holds \\ud800, half of a UTF-16 surrogate pair"),
    "lone surrogate in a JSONL id": ("docs.jsonl", '{"id": "a\\udfff", "text": "She said hello."}\n',
                                     "line 1: field 'id' holds \\udfff"),
    "lone surrogate in a unit": ("docs.jsonl", '{"id": "r", "units": [{"text": "ok \\ud83d", "value": "1"}]}\n',
                                 "line 1: field 'units' holds \\ud83d"),
    "id true": ("docs.jsonl", '{"id": true, "text": "She said hello."}\n', "line 1: field 'id' is true, not an id"),
    "id ''": ("docs.jsonl", '{"id": "", "text": "She said hello."}\n', "line 1: field 'id' is \"\", not an id"),
    "id '   '": ("docs.jsonl", '{"id": "   ", "text": "She said hello."}\n',
                 "line 1: field 'id' is \"   \", not an id"),
    "unterminated CSV quote": ("docs.csv", 'text,id\nFine.,1\n"She said hello.,2\nMore text,3\n',
                               "line 3: a quoted cell that starts here is never closed"),
    "text after a closing CSV quote": ("docs.csv", 'text,id\n"She said" hello,1\n',
                                       "line 2: is not a valid CSV file (',' expected after '\"')"),
    "duplicate CSV columns": ("docs.csv", "text,id,text\nShe said hello.,1,Other text\n",
                              "line 1: has two columns named 'text' (columns 1 and 3)"),
    "one byte over the upload limit": ("big.txt", "x" * (DEFAULT_MAX_BYTES + 1),
                                       "is 20.0 MB (20,000,001 bytes), over the 20 MB (20,000,000 bytes) limit"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_the_cli_refuses_a_bad_corpus_file_with_its_line_before_any_summary(case, tmp_path, capsys):
    name, text, expected = BAD_FILES[case]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    out = tmp_path / "s.jsonl"
    code, lines = run_cli(["summarize", "--summarizer", "lead-3", "--inputs", str(path), "--out", str(out),
                           "--cache", str(tmp_path / "cache.sqlite")], capsys)
    assert_one_clear_line(code, lines, f"{path}, {expected}" if expected.startswith("line") else expected)
    assert not out.exists()


def test_an_audit_of_a_jsonl_with_a_lone_surrogate_refuses_the_file_and_creates_no_run(tmp_path, capsys):
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text(SURROGATE_TEXT)
    config = tmp_path / "audit.toml"
    config.write_text(f'corpus = "{corpus}"\n[[summarizers]]\nname = "lead-3"\n')
    assert_audit_refused(config, f"{corpus}, line 1: field 'text' holds \\ud800", capsys)


def test_a_json_config_with_a_lone_surrogate_is_refused_naming_the_key(tmp_path, capsys):
    config = tmp_path / "audit.json"
    config.write_text(json.dumps({"corpus": str(DEMO_NEWS), "name": "x\ud800", "summarizers": [{"name": "lead-3"}]}))
    assert_audit_refused(config, f"{config}: 'name' holds \\ud800", capsys)


def test_a_param_with_a_lone_surrogate_is_refused_before_the_cache_is_opened(tmp_path, capsys):
    cache = tmp_path / "cache.sqlite"
    code, lines = run_cli(["summarize", "--summarizer", "openai:m", "--param", 'base_url="http://\\ud800"',
                           "--inputs", str(DEMO_NEWS), "--out", str(tmp_path / "s.jsonl"), "--cache", str(cache)],
                          capsys)
    assert_one_clear_line(code, lines, "--param: the value of 'base_url' holds half of a UTF-16 surrogate pair")
    assert not cache.exists()


def test_value_column_naming_no_field_of_a_jsonl_corpus_is_refused_by_perturb(tmp_path, capsys):
    out = tmp_path / "inputs.jsonl"
    code, lines = run_cli(["perturb", "--kind", "sentiment", "--documents", str(DEMO_REVIEWS), "--out", str(out),
                           "--value-column", "nope", "--quiet"], capsys)
    assert_one_clear_line(code, lines, f"{DEMO_REVIEWS}: --value-column 'nope' is not a field of any unit")
    assert not out.exists()


def test_value_column_naming_a_unit_field_still_splits_by_it(tmp_path, capsys):
    out = tmp_path / "inputs.jsonl"
    assert main(["perturb", "--kind", "sentiment", "--documents", str(DEMO_REVIEWS), "--out", str(out),
                 "--value-column", "stars", "--samples", "1", "--quiet"]) == 0
    first = json.loads(out.read_text().splitlines()[0])
    assert set(first["value_counts"]) <= {"1", "2", "3", "4", "5"}


POLITICIAN_TABLES = {
    "binary": (bytes(range(256)) * 8, "looks like a binary file"),
    "no header": (b"hello world\nfoo\n", "missing column(s) name, party, gender, office"),
    "empty name": (b"name,party,gender,office\n,democrat,male,Senator\n", "line 2: empty name"),
    "gender robot": (b"name,party,gender,office\nJo Smith,democrat,robot,Senator\n",
                     "line 2: gender 'robot' is not male, female or empty"),
    "unterminated quote": (b'name,party,gender,office\n"Jo Smith,democrat,male,Senator\n',
                           "line 2: a quoted cell that starts here is never closed"),
    "more cells than columns": (b"name,party,gender,office\nJo Smith,democrat,male,Senator,Ohio\n",
                                "line 2: has 5 cells, but the header names 4 columns"),
    "duplicate columns": (b"name,party,gender,office,party\nJo Smith,democrat,male,Senator,x\n",
                          "line 1: has two columns named 'party'"),
    "header only": (b"name,party,gender,office\n", "holds no politicians"),
}


@pytest.fixture
def measure_files(tmp_path) -> tuple[Path, Path]:
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text(json.dumps({"id": "a", "original_id": "a", "perturbation": "identity", "text": "A text."}) + "\n")
    summaries = tmp_path / "summaries.jsonl"
    summaries.write_text(json.dumps({"input_id": "a", "summarizer": "lead-3", "text": "A text."}) + "\n")
    return inputs, summaries


@pytest.mark.parametrize("case", sorted(POLITICIAN_TABLES))
def test_a_damaged_politicians_table_is_refused_even_when_no_politician_measure_runs(case, measure_files, tmp_path,
                                                                                    capsys):
    data, expected = POLITICIAN_TABLES[case]
    table = tmp_path / "politicians.csv"
    table.write_bytes(data)
    inputs, summaries = measure_files
    out = tmp_path / "m.json"
    code, lines = run_cli(["measure", "--inputs", str(inputs), "--summaries", str(summaries), "--out", str(out),
                           "--politicians", str(table), "--measure", "entity_inclusion"], capsys)
    assert_one_clear_line(code, lines, expected)
    assert lines[0].startswith(f"error: {table}")
    assert not out.exists()


def test_the_shipped_politicians_table_passes_the_checks(measure_files, tmp_path, capsys):
    inputs, summaries = measure_files
    assert main(["measure", "--inputs", str(inputs), "--summaries", str(summaries), "--out", str(tmp_path / "m.json"),
                 "--politicians", str(REPO / "data" / "politicians.csv"), "--measure", "entity_inclusion"]) == 0


def test_a_line_break_in_a_quoted_csv_header_reads_as_a_space_in_the_picker_and_the_loader(tmp_path):
    data = b'"article\ntext",id\nShe said hello.,1\n'
    assert csv_header("docs.csv", data) == ["article text", "id"]
    path = tmp_path / "docs.csv"
    path.write_bytes(data)
    from bias_core.documents.corpus import CsvColumns

    (document,) = load_documents(path, columns=CsvColumns(text="article text", id="id", detect=False))
    assert (document.id, document.text) == ("1", "She said hello.")


def test_a_file_of_exactly_the_upload_limit_is_loaded():
    data = b"She said hello. " * (DEFAULT_MAX_BYTES // 16)
    assert len(data) == DEFAULT_MAX_BYTES
    (document,) = load_documents_from_bytes("big.txt", data)
    assert len(document.text) == DEFAULT_MAX_BYTES


def test_the_app_and_the_cli_state_one_upload_limit_in_the_same_unit():
    config = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())
    # Streamlit's upload box counts 1 MB as 1,000,000 bytes ("File must be 20.0MB or smaller").
    assert config["server"]["maxUploadSize"] * 1_000_000 == DEFAULT_MAX_BYTES == 20_000_000
    at = open_app("pages/corpus.py")
    assert any("up to 20 MB (20,000,000 bytes), the limit of the command line too" in caption.value
               for caption in at.caption)
    assert "20 MB = 20,000,000 bytes" in (REPO / "README.md").read_text()


APP_UPLOADS = {
    # The error box's Markdown source, with the backslash escaped: it shows \ud800.
    "lone surrogate": ("docs.jsonl", SURROGATE_TEXT.encode(), "docs.jsonl, line 1: field 'text' holds \\\\ud800, half"),
    "id true": ("docs.jsonl", b'{"id": true, "text": "She said hello."}\n', "docs.jsonl, line 1: field 'id' is true"),
    "blank id": ("docs.jsonl", b'{"id": "  ", "text": "She said hello."}\n', "docs.jsonl, line 1: field 'id' is"),
    "unterminated CSV quote": ("docs.csv", b'text,id\n"She said hello.,1\n', "docs.csv, line 2: a quoted cell"),
    "duplicate CSV columns": ("docs.csv", b"text,id,text\nShe said hello.,1,x\n",
                              "docs.csv, line 1: has two columns named 'text'"),
}


@pytest.mark.parametrize("case", sorted(APP_UPLOADS))
def test_the_corpus_page_refuses_a_bad_upload_with_one_error_box(case):
    name, data, expected = APP_UPLOADS[case]
    at = open_app("pages/corpus.py")
    at.radio(key="corpus_choice").set_value("Upload a file").run()
    at.file_uploader(key="corpus_upload").upload(name, data, "application/octet-stream").run()
    assert not at.exception
    assert len(at.error) == 1 and expected in at.error[0].value, [e.value for e in at.error]
    assert "documents" not in at.session_state or not at.session_state["documents"]


def test_the_corpus_page_offers_a_csv_header_with_a_line_break_as_one_line_and_loads_it():
    at = open_app("pages/corpus.py")
    at.radio(key="corpus_choice").set_value("Upload a file").run()
    at.file_uploader(key="corpus_upload").upload("docs.csv", b'"article\ntext",id\nShe said hello.,1\n',
                                                 "text/csv").run()
    assert not at.exception and not at.error
    assert at.selectbox(key="csv_text").options == ["article text", "id"]
    at.selectbox(key="csv_text").set_value("article text").run()
    assert [d.text for d in at.session_state["documents"]] == ["She said hello."]
