"""Every file the operator names is read bounded (issue 30): only a regular file, at most its size limit, nested at most
NESTING_MAX deep, each breach one line naming the file and the limit — the endpoints file, an audit config, and the
inputs file of `summarize` (the documents' size limit and message)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from bias_core.cli import main
from bias_core.safety.endpoints import ENDPOINTS_MAX_BYTES, browser_endpoints
from bias_core.safety.errors import InputError
from bias_core.safety.operator_files import NESTING_MAX, load_operator_file, nesting_depth
from tests.conftest import REPO

LAB_ENDPOINT = '[[endpoints]]\nname = "lab"\nbase_url = "http://127.0.0.1:9/v1"\n'
# browser_endpoints() in a fresh process, under a memory cap and a time limit: the old code read /dev/zero until
# the kernel stopped it and waited for ever on a named pipe, so each case must be able to fail without harm.
READ_ENDPOINTS = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))
from bias_core.safety.endpoints import browser_endpoints
from bias_core.safety.errors import BiasCoreError
try:
    print(browser_endpoints())
except BiasCoreError as error:
    print("refused:", error)
"""


def read_endpoints_elsewhere(path: str) -> str:
    """What ``browser_endpoints()`` says in a fresh process with ``SUMMBIAS_ENDPOINTS=path`` (killed after 60 s)."""
    environment = {**os.environ, "SUMMBIAS_ENDPOINTS": path}
    try:
        done = subprocess.run([sys.executable, "-c", READ_ENDPOINTS], check=False, capture_output=True, text=True,
                              timeout=60, cwd=REPO, env=environment)
    except subprocess.TimeoutExpired:
        pytest.fail(f"reading SUMMBIAS_ENDPOINTS={path} did not end in 60 s")
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def one_line_about(error: InputError, path) -> str:
    text = str(error)
    assert "\n" not in text and text.startswith(f"{path}: "), text
    return text


def test_an_endpoints_file_that_is_a_device_is_refused_at_once_not_read_for_ever():
    started = time.perf_counter()
    said = read_endpoints_elsewhere("/dev/zero")
    assert said == ("refused: /dev/zero: cannot read the endpoints file: it is a character device, not a regular "
                    "file; only a regular file is read — fix or unset SUMMBIAS_ENDPOINTS")
    assert time.perf_counter() - started < 30


def test_an_endpoints_file_that_is_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path):
    pipe = tmp_path / "endpoints.toml"
    os.mkfifo(pipe)
    said = read_endpoints_elsewhere(str(pipe))
    assert said.startswith(f"refused: {pipe}: cannot read the endpoints file: it is a named pipe, not a regular file")


def test_an_endpoints_file_nested_100000_deep_is_one_line_naming_the_limit(tmp_path):
    path = tmp_path / "endpoints.toml"
    path.write_text(LAB_ENDPOINT + "x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(InputError) as caught:
        browser_endpoints(path)
    assert one_line_about(caught.value, path) == (
        f"{path}: is nested too deeply to read as TOML (more than {NESTING_MAX} levels of tables, lists or dotted "
        "keys) — fix or unset SUMMBIAS_ENDPOINTS")


def test_a_dotted_key_of_20000_parts_is_refused_before_tomllib_spends_quadratic_time_on_it(tmp_path):
    path = tmp_path / "endpoints.toml"
    path.write_text(LAB_ENDPOINT + "a" + ".a" * 20_000 + " = 1\n")  # tomllib: seconds, and minutes at 100,000
    started = time.perf_counter()
    with pytest.raises(InputError, match=f"is nested too deeply to read as TOML \\(more than {NESTING_MAX} levels"):
        browser_endpoints(path)
    assert time.perf_counter() - started < 1


def test_an_endpoints_file_over_its_size_limit_is_refused_before_it_is_parsed(tmp_path):
    path = tmp_path / "endpoints.toml"
    path.write_text(LAB_ENDPOINT + "# " + "x" * ENDPOINTS_MAX_BYTES + "\n")  # valid TOML, one long comment
    with pytest.raises(InputError) as caught:
        browser_endpoints(path)
    size = path.stat().st_size
    assert one_line_about(caught.value, path) == (
        f"{path}: the endpoints file is {size:,} bytes, over its limit of {ENDPOINTS_MAX_BYTES:,} bytes — fix or "
        "unset SUMMBIAS_ENDPOINTS")


def test_a_folder_or_a_missing_endpoints_file_is_one_line(tmp_path):
    with pytest.raises(InputError, match="cannot read the endpoints file: it is a folder, not a file"):
        browser_endpoints(tmp_path)
    with pytest.raises(InputError, match="cannot read the endpoints file: no such file"):
        browser_endpoints(tmp_path / "missing.toml")


def test_the_nesting_scan_skips_strings_and_comments_and_counts_dotted_keys():
    assert nesting_depth('x = "[[[[ a.b.c.d.e"\ny = \'{{{{\'\n# [[[[ a.b.c\nz = """\n[[[[\n"""\n') == 0
    assert nesting_depth('[[endpoints]]\nname = "a"\nmodels = ["m"]\nx = [1.5, 2.5, 3.5]\n') == 2
    assert nesting_depth('"a"."b".c = 1') == 3
    assert nesting_depth('{"a": [{"b": [1.5]}]}') == 4  # JSON too


def test_a_good_endpoints_file_still_reads_within_the_limits(tmp_path):
    path = tmp_path / "endpoints.toml"
    path.write_text(LAB_ENDPOINT + 'models = ["m"]\n[[models]]\nmodel = "org/name"\n')
    (endpoint,) = browser_endpoints(path)
    assert endpoint.models == ("m",)
    assert load_operator_file(path, what="endpoints file", max_bytes=path.stat().st_size)["models"] == [
        {"model": "org/name"}]


def audit_toml() -> str:
    return '[corpus]\nkind = "demo"\n[[summarizers]]\nname = "lead-3"\n'


def run_cli(argv: list[str], capsys) -> tuple[int, list[str]]:
    code = main(argv)
    return code, capsys.readouterr().err.strip().splitlines()


def test_an_audit_config_over_its_size_limit_is_one_line(tmp_path, capsys):
    from bias_core.runs.config import CONFIG_MAX_BYTES

    config = tmp_path / "audit.toml"
    config.write_text(audit_toml() + "# " + "x" * CONFIG_MAX_BYTES + "\n")
    code, lines = run_cli(["audit", "--config", str(config), "--store", str(tmp_path / "runs.sqlite")], capsys)
    assert code == 2 and lines == [(f"error: {config}: the audit config is {config.stat().st_size:,} bytes, over "
                                    f"its limit of {CONFIG_MAX_BYTES:,} bytes")]
    assert not (tmp_path / "runs.sqlite").exists()


def test_an_audit_config_with_a_20000_part_dotted_key_is_refused_at_once(tmp_path, capsys):
    config = tmp_path / "audit.toml"
    config.write_text("a" + ".a" * 20_000 + " = 1\n" + audit_toml())
    started = time.perf_counter()
    code, lines = run_cli(["audit", "--config", str(config), "--store", str(tmp_path / "runs.sqlite")], capsys)
    assert time.perf_counter() - started < 2
    assert code == 2 and lines == [(f"error: {config}: is nested too deeply to read as TOML (more than "
                                    f"{NESTING_MAX} levels of tables, lists or dotted keys)")]


def test_an_audit_config_that_is_a_named_pipe_is_refused_without_waiting(tmp_path):
    pipe = tmp_path / "audit.toml"
    os.mkfifo(pipe)
    try:
        done = subprocess.run([sys.executable, "-m", "bias_core", "audit", "--config", str(pipe), "--store",
                               str(tmp_path / "runs.sqlite")], check=False, capture_output=True, text=True, timeout=120,
                              cwd=REPO)
    except subprocess.TimeoutExpired:
        pytest.fail("audit --config <named pipe> waited for a writer")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (f"error: {pipe}: cannot read the audit config: it is a named "
                                                    "pipe, not a regular file; only a regular file is read")


def test_the_app_written_json_config_of_a_worker_still_reads(tmp_path):
    from bias_core.runs.config import AuditConfig, CorpusSpec, StageSpec

    path = tmp_path / "run.json"
    written = AuditConfig(corpus=CorpusSpec("demo"), summarizers=[StageSpec("lead-3")], name="json run")
    path.write_text(json.dumps(written.to_file_dict(), indent=1))
    assert AuditConfig.from_file(path).name == "json run"


def inputs_jsonl(path, count: int) -> None:
    path.write_text("".join(json.dumps({"id": f"d{n}/identity", "original_id": f"d{n}", "perturbation": "identity",
                                        "text": f"Robert Moore spoke on day {n}. He said more."}) + "\n"
                            for n in range(count)))


def test_summarize_applies_the_documents_size_limit_to_an_inputs_file_with_the_same_line(tmp_path, capsys):
    inputs = tmp_path / "inputs.jsonl"
    inputs_jsonl(inputs, 40)
    documents = tmp_path / "documents.txt"
    documents.write_bytes(inputs.read_bytes())  # the same bytes as a documents file
    size = inputs.stat().st_size
    said = {}
    for path in (inputs, documents):
        code, lines = run_cli(["summarize", "--summarizer", "lead-3", "--inputs", str(path), "--out",
                               str(tmp_path / "out.jsonl"), "--no-cache", "--max-mb", "0.001"], capsys)
        assert code == 2 and len(lines) == 1, lines
        said[path] = lines[0].replace(str(path), "FILE")
    assert said[inputs] == said[documents]
    assert said[inputs].startswith(f"error: FILE: is {size / 1e6:.1f} MB ({size:,} bytes), over the 0.001 MB (1,000 "
                                   "bytes) limit")
    assert not (tmp_path / "out.jsonl").exists()


def test_summarize_still_reads_an_inputs_file_within_the_limit(tmp_path, capsys):
    inputs = tmp_path / "inputs.jsonl"
    inputs_jsonl(inputs, 3)
    code, _ = run_cli(["summarize", "--summarizer", "lead-3", "--inputs", str(inputs), "--out",
                       str(tmp_path / "out.jsonl"), "--no-cache"], capsys)
    assert code == 0 and len((tmp_path / "out.jsonl").read_text().splitlines()) == 3
