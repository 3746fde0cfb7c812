"""Every other file a user or an operator names is read bounded too (issue 30, Deliver 3): the inputs, summaries and
measures files, the CSV and JSONL files of `measure` and `quadruples` options (``text_file``), marker lexicons and
paired identifiers, a politicians table, a corpus file, a `power` bundle and the reproduction's reference files. Each
is read only if it is a regular file (a device or a named pipe is refused, never read), at most its size limit (a
file over it is refused before it is read, one line naming the file and the limit), and its JSON nested at most so
deep (one line, never a RecursionError)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys

import pytest

from bias_core.cli import main
from bias_core.common.records import Input
from bias_core.documents.decoding import DEFAULT_MAX_BYTES, text_file
from bias_core.documents.record_files import read_inputs, read_jsonl, read_measures, read_summaries
from bias_core.measures import check_lexicon_paths, check_paired_identifiers
from bias_core.measures.lexical_bias import read_bias_labels
from bias_core.measures.lexicons import LEXICON_MAX_BYTES, load_politicians
from bias_core.safety.errors import InputError
from bias_core.verdicts.power import results_of_bundle
from tests.conftest import REPO

DEVICE = "it is a character device, not a regular file; only a regular file is read"
PIPE = "it is a named pipe, not a regular file; only a regular file is read"
OVER_DEFAULT = (f"is {(DEFAULT_MAX_BYTES + 1) / 1e6:.1f} MB ({DEFAULT_MAX_BYTES + 1:,} bytes), over the 20 MB "
                "(20,000,000 bytes) limit")
DEEP = "[" * 100_000 + "]" * 100_000
# Each call in a fresh process under a memory cap: the old code read some of these files (a device, a named pipe)
# for ever or until memory ran out, so every case must be able to fail without harm.
READ_ELSEWHERE = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))
from pathlib import Path
from bias_core.safety.errors import BiasCoreError
from bias_core.documents.corpus import load_documents
from bias_core.documents.decoding import text_file
from bias_core.documents.record_files import read_inputs, read_measures, read_summaries
from bias_core.measures import check_lexicon_paths, check_paired_identifiers
from bias_core.measures.fairsumm_table10 import _jsonl_gz
from bias_core.measures.lexical_bias import read_bias_labels
from bias_core.measures.lexicons import load_politicians, word_lexicon
from bias_core.reference.reproduce import counter_gap_outcomes
from bias_core.verdicts.power import results_of_bundle
try:
    result = eval(sys.argv[1])
    print("returned:", str(result)[:200])
except BiasCoreError as error:
    print("refused:", error)
"""


def refused_elsewhere(call: str, tmp_path) -> str:
    """What ``call`` (a Python expression) says in a fresh process, run in ``tmp_path`` (killed after 60 s)."""
    try:
        done = subprocess.run([sys.executable, "-c", READ_ELSEWHERE, call], check=False, capture_output=True,
                              text=True, timeout=60, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)})
    except subprocess.TimeoutExpired:
        pytest.fail(f"{call} did not end in 60 s")
    assert done.returncode == 0, done.stderr[-2000:]
    (line,) = done.stdout.strip().splitlines()
    return line


def sparse(path, size: int):
    """A file of ``size`` bytes that takes no room: a limit refuses it by its size, before a byte is read."""
    with open(path, "wb") as stream:
        stream.truncate(size)
    return path


def one_line(error: InputError, path) -> str:
    text = str(error)
    assert "\n" not in text and text.startswith(f"{path}"), text
    return text


# ---------------------------------------------------------------------------------------------------------------
# A device or a named pipe: refused, never read
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call, what", [
    ("read_inputs('/dev/zero')", f"/dev/zero: cannot read the file: {DEVICE}"),
    ("read_summaries('pipe')", f"pipe: cannot read the file: {PIPE}"),
    ("read_measures('/dev/zero')", f"/dev/zero: cannot read the file: {DEVICE}"),
    ("text_file('pipe')", f"pipe: cannot read the file: {PIPE}"),
    ("read_bias_labels('/dev/zero')", f"/dev/zero: cannot read the file: {DEVICE}"),
    ("check_lexicon_paths({'hedges': '/dev/zero'})", f"/dev/zero: cannot read the lexicon file: {DEVICE}"),
    ("word_lexicon('hedges', path='pipe')", f"pipe: cannot read the lexicon file: {PIPE}"),
    ("check_paired_identifiers('/dev/zero')", f"/dev/zero: cannot read the paired identifiers file: {DEVICE}"),
    ("load_politicians('pipe')", f"pipe: cannot read the file: {PIPE}"),
    ("load_documents('pipe.txt')", f"pipe.txt: cannot read the file: {PIPE}"),
    ("results_of_bundle(Path('/dev/zero'))", f"/dev/zero: cannot read the file: {DEVICE}"),
    ("counter_gap_outcomes(Path('reference'), 'bert_base')",
     f"reference/cgap_gold_labels.tsv: cannot read the file: {DEVICE}"),
    ("_jsonl_gz(Path('reference/inputs.jsonl.gz'))", f"reference/inputs.jsonl.gz: cannot read the file: {DEVICE}"),
])
def test_a_device_or_a_named_pipe_is_refused_in_one_line_without_reading_it(call, what, tmp_path):
    os.mkfifo(tmp_path / "pipe")
    os.mkfifo(tmp_path / "pipe.txt")
    (tmp_path / "reference").mkdir()
    for name in ("cgap_gold_labels.tsv", "inputs.jsonl.gz"):
        (tmp_path / "reference" / name).symlink_to("/dev/zero")
    assert refused_elsewhere(call, tmp_path) == f"refused: {what}"


# ---------------------------------------------------------------------------------------------------------------
# Over a size limit: refused before it is read, one line naming the file and the limit
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("reader", [read_inputs, read_summaries, read_measures, text_file, read_bias_labels],
                         ids=lambda reader: reader.__name__)
def test_a_record_or_option_file_over_the_documents_limit_is_one_line_naming_the_limit(reader, tmp_path):
    path = sparse(tmp_path / "big.jsonl", DEFAULT_MAX_BYTES + 1)
    with pytest.raises(InputError) as caught:
        reader(str(path))
    assert one_line(caught.value, path).startswith(f"{path}: {OVER_DEFAULT}")


def test_a_records_file_takes_a_lower_limit_as_the_command_line_gives_it(tmp_path):
    path = tmp_path / "inputs.jsonl"
    path.write_text(json.dumps({"id": "a", "original_id": "a", "text": "x" * 1_000}) + "\n")
    with pytest.raises(InputError, match=r"over the 0\.001 MB \(1,000 bytes\) limit"):
        read_jsonl(path, Input, max_bytes=1_000)
    assert len(read_jsonl(path, Input, max_bytes=2_000)) == 1


def test_a_lexicon_or_paired_identifiers_file_over_its_limit_is_one_line(tmp_path):
    path = sparse(tmp_path / "hedges.txt", LEXICON_MAX_BYTES + 1)
    with pytest.raises(InputError) as caught:
        check_lexicon_paths({"hedges": str(path)})
    assert one_line(caught.value, path).startswith(
        f"{path}: the lexicon file is {LEXICON_MAX_BYTES + 1:,} bytes, over its limit of {LEXICON_MAX_BYTES:,} bytes")
    pairs = sparse(tmp_path / "pairs.tsv", LEXICON_MAX_BYTES + 1)
    with pytest.raises(InputError) as caught:
        check_paired_identifiers(str(pairs))
    assert one_line(caught.value, pairs).startswith(
        f"{pairs}: the paired identifiers file is {LEXICON_MAX_BYTES + 1:,} bytes, over its limit of "
        f"{LEXICON_MAX_BYTES:,} bytes")


def test_a_politicians_table_over_the_documents_limit_is_one_line(tmp_path):
    path = sparse(tmp_path / "politicians.csv", DEFAULT_MAX_BYTES + 1)
    with pytest.raises(InputError) as caught:
        load_politicians(path)
    assert one_line(caught.value, path).startswith(f"{path}: {OVER_DEFAULT}")


def test_a_bundle_over_its_limit_or_decompressing_past_it_is_one_line(tmp_path):
    bundle = tmp_path / "bundle.json"
    bundle.write_text(json.dumps({"measures": []}) + " " * 2_000)
    with pytest.raises(InputError) as caught:
        results_of_bundle(bundle, max_bytes=1_000)
    assert "over the 0.001 MB (1,000 bytes) limit" in one_line(caught.value, bundle)
    bomb = tmp_path / "bundle.json.gz"
    bomb.write_bytes(gzip.compress(b" " * 100_000 + b'{"measures": []}'))
    assert bomb.stat().st_size < 1_000
    with pytest.raises(InputError) as caught:
        results_of_bundle(bomb, max_bytes=1_000)
    assert one_line(caught.value, bomb) == f"{bomb}: decompresses to more than 0.001 MB (1,000 bytes), its limit"
    assert results_of_bundle(bomb, max_bytes=200_000) == []


# ---------------------------------------------------------------------------------------------------------------
# JSON nested 100,000 deep: one line, not a RecursionError
# ---------------------------------------------------------------------------------------------------------------
def test_json_nested_100000_deep_is_one_line_in_every_json_reader(tmp_path):
    from bias_core.measures.fairsumm_table10 import _jsonl_gz

    lines = tmp_path / "deep.jsonl"
    lines.write_text(json.dumps({"id": "a", "sentences": ["x"], "labels": [1]}) + "\n" + DEEP + "\n")
    with pytest.raises(InputError) as caught:
        read_bias_labels(str(lines))
    assert one_line(caught.value, lines) == (f"{lines}, line 2: nests JSON more than 100 levels deep — each line must "
                                             "be one flat JSON object")
    records = tmp_path / "summaries.jsonl"
    records.write_text(json.dumps({"input_id": "a", "summarizer": "lead-3", "text": "x"}) + "\n" + DEEP + "\n")
    with pytest.raises(InputError, match="line 2: nests JSON more than 100 levels deep"):
        read_summaries(records)
    packed = tmp_path / "deep.jsonl.gz"
    packed.write_bytes(gzip.compress(records.read_bytes()))
    with pytest.raises(InputError, match="line 2: nests JSON more than 100 levels deep"):
        _jsonl_gz(packed)
    whole = tmp_path / "deep.json"
    whole.write_text(DEEP)
    with pytest.raises(InputError, match="nested too deep"):
        read_measures(whole)
    with pytest.raises(InputError) as caught:
        results_of_bundle(whole)
    assert one_line(caught.value, whole) == (f"{whole}: is not a valid run bundle (JSON nested too deep) — give a "
                                             "bundle written by `python -m bias_core export`")


def test_a_bundle_that_is_not_json_is_one_line(tmp_path):
    path = tmp_path / "bundle.json"
    path.write_text("{not json")
    with pytest.raises(InputError, match="is not a valid run bundle"):
        results_of_bundle(path)


# ---------------------------------------------------------------------------------------------------------------
# The command line: exit 2 and one line
# ---------------------------------------------------------------------------------------------------------------
def summaries_jsonl(path):
    path.write_text(json.dumps({"input_id": "a", "summarizer": "lead-3", "text": "x"}) + "\n")
    return path


@pytest.mark.parametrize("inputs", ["/dev/zero", "pipe"])
def test_measure_with_a_device_or_a_pipe_as_inputs_exits_2_with_one_line(inputs, tmp_path):
    os.mkfifo(tmp_path / "pipe")
    summaries = summaries_jsonl(tmp_path / "summaries.jsonl")
    try:
        done = subprocess.run([sys.executable, "-m", "bias_core", "measure", "--inputs", inputs, "--summaries",
                               str(summaries), "--out", str(tmp_path / "m.json")], check=False, capture_output=True,
                              text=True, timeout=120, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)})
    except subprocess.TimeoutExpired:
        pytest.fail(f"measure --inputs {inputs} did not end in 120 s")
    kind = DEVICE if inputs == "/dev/zero" else PIPE
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [f"error: {inputs}: cannot read the file: {kind}"]
    assert not (tmp_path / "m.json").exists()


def test_measure_takes_max_mb_for_its_inputs_and_summaries(tmp_path, capsys):
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text(json.dumps({"id": "a", "original_id": "a", "text": "x" * 2_000}) + "\n")
    summaries = summaries_jsonl(tmp_path / "summaries.jsonl")
    code = main(["measure", "--inputs", str(inputs), "--summaries", str(summaries), "--out",
                 str(tmp_path / "m.json"), "--max-mb", "0.001"])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1, lines
    assert lines[0].startswith(f"error: {inputs}: is 0.0 MB ({inputs.stat().st_size:,} bytes), over the 0.001 MB "
                               "(1,000 bytes) limit")


def test_power_with_a_deeply_nested_bundle_exits_2_with_one_line(tmp_path, capsys):
    bundle = tmp_path / "bundle.json"
    bundle.write_text(DEEP)
    code = main(["power", "--originals", "50", "--bundle", str(bundle)])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and lines == [(f"error: {bundle}: is not a valid run bundle (JSON nested too deep) — give a "
                                    "bundle written by `python -m bias_core export`")]
