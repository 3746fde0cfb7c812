"""Fuzzing the loaders with hypothesis: any bytes under any supported name either load into valid documents or
raise one InputError naming the file — never another exception, never a half-loaded corpus."""

from __future__ import annotations

import csv
import io
import json
import warnings
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bias_core.documents.corpus import load_documents_from_bytes
from bias_core.safety.errors import InputError

FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
names = st.sampled_from(["a.txt", "b.jsonl", "c.csv", "d.zip", "e.TXT", "f.pdf"])
texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200)


def check(name: str, data: bytes) -> None:
    try:
        documents = load_documents_from_bytes(name, data)
    except InputError as error:
        assert error.source.startswith(name) and str(error).startswith(name)  # a zip entry is "x.zip:entry"
        return
    assert documents, "a successful load returns at least one document"
    ids = [document.id for document in documents]
    assert len(ids) == len(set(ids))
    assert all(document.full_text.strip() for document in documents)


@FUZZ
@given(name=names, data=st.binary(max_size=400))
def test_arbitrary_bytes_load_or_fail_cleanly(name, data):
    check(name, data)


@FUZZ
@given(records=st.lists(st.one_of(
    st.fixed_dictionaries({"id": st.one_of(st.text(max_size=5), st.integers()), "text": texts}),
    st.fixed_dictionaries({"id": st.text(max_size=5), "units": st.lists(
        st.fixed_dictionaries({"text": texts, "value": st.one_of(st.none(), st.text(max_size=3))}), max_size=3)}),
    st.dictionaries(st.text(max_size=4), st.one_of(st.none(), st.integers(), texts), max_size=3),
    st.lists(st.integers(), max_size=2),
), max_size=5), junk=st.booleans())
def test_jsonl_records_of_any_shape_load_or_fail_cleanly(records, junk):
    lines = [json.dumps(record) for record in records]
    if junk:
        lines.insert(len(lines) // 2, "{not json")
    check("corpus.jsonl", "\n".join(lines).encode())


@FUZZ
@given(header=st.lists(st.sampled_from(["text", "id", "doc_id", "stars", "other"]), min_size=1, max_size=4),
       rows=st.lists(st.lists(texts, min_size=0, max_size=5), max_size=6))
def test_csv_files_of_any_shape_load_or_fail_cleanly(header, rows):
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    check("corpus.csv", buffer.getvalue().encode())


@settings(max_examples=200, deadline=None)
@given(entries=st.lists(st.tuples(st.sampled_from(["a.txt", "b/c.txt", "../x.txt", "/abs.txt", "n.zip", "d.md"]),
                                  st.binary(max_size=100)), max_size=4))
def test_zip_archives_of_any_content_load_or_fail_cleanly(entries):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # duplicate entry names are part of the fuzzing
        for name, data in entries:
            archive.writestr(name, data)
    check("corpus.zip", buffer.getvalue())


@FUZZ
@given(depth=st.one_of(st.integers(min_value=0, max_value=1_500), st.just(200_000)), objects=st.booleans(),
       line=st.integers(min_value=0, max_value=2))
def test_jsonl_lines_nested_to_any_depth_load_or_fail_cleanly(depth, objects, line):
    opener, closer = ('{"k": ', "}") if objects else ("[", "]")
    nested = opener * depth + "0" + closer * depth
    lines = [json.dumps({"id": f"d{k}", "text": "A short text."}) for k in range(2)]
    lines.insert(line, '{"id": "deep", "text": "x", "meta": {"k": ' + nested + "}}")
    data = "\n".join(lines).encode()
    check("corpus.jsonl", data)
    if depth <= 98:  # the line object and "meta" are two levels more: up to 100 levels in all are read
        assert len(load_documents_from_bytes("corpus.jsonl", data)) == 3
        return
    with pytest.raises(InputError, match="nests JSON more than 100 levels deep") as caught:
        load_documents_from_bytes("corpus.jsonl", data)
    assert caught.value.row == line + 1
