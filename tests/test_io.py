"""Loading and writing (bias_core/documents/): every accepted format of INTERFACES.md, and one clear error for bad
input.

Loading is all-or-nothing, so every error test asserts that the call raises (and therefore returns nothing).
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from pathlib import Path

import pytest

from bias_core.common.records import Document, Entity, Input, MeasureResult, Substitution, Summary, Unit
from bias_core.documents.corpus import MAX_ZIP_RATIO, CsvColumns, load_documents, load_documents_from_bytes
from bias_core.documents.decoding import decode_text
from bias_core.documents.record_files import (
    read_inputs,
    read_jsonl,
    read_measures,
    read_summaries,
    write_jsonl,
    write_measures,
)
from bias_core.safety.errors import InputError

PNG_HEADER = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00"
BOM = b"\xef\xbb\xbf"


def write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    return path


def make_zip(entries: dict[str, bytes | str | None], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip archive in memory; a ``None`` value makes a directory entry. Names are stored exactly as given."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
        for name, content in entries.items():
            if content is None:
                archive.writestr(zipfile.ZipInfo(name if name.endswith("/") else name + "/"), b"")
            else:
                archive.writestr(zipfile.ZipInfo(name) if compression == zipfile.ZIP_STORED else name, content)
    return buffer.getvalue()


def jsonl(*records) -> str:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


def files_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# ---------------------------------------------------------------------------------------------------------------
# Plain text, folders and zip archives
# ---------------------------------------------------------------------------------------------------------------


def test_txt_file_is_one_document_named_by_its_stem(tmp_path):
    text = "Angela Merkel met Emmanuel Macron.\n\nThey spoke for an hour — über alles.\n"
    path = write(tmp_path / "merkel-2019.txt", text)
    documents = load_documents(path)
    assert documents == [Document(id="merkel-2019", text=text)]
    assert not documents[0].is_perspective


def test_txt_file_with_utf8_bom_loses_the_bom(tmp_path):
    path = write(tmp_path / "bom.txt", BOM + "Zoë spoke.".encode())
    assert load_documents(path)[0].text == "Zoë spoke."


def test_txt_file_accepts_a_str_path_and_upper_case_suffix(tmp_path):
    path = write(tmp_path / "LOUD.TXT", "Hello.")
    assert load_documents(str(path)) == [Document(id="LOUD", text="Hello.")]


def test_folder_of_txt_files_gives_one_document_per_file_sorted_by_name(tmp_path):
    folder = tmp_path / "corpus"
    for name in ("c", "a", "b"):
        write(folder / f"{name}.txt", f"Text of {name}.")
    write(folder / "notes.md", "not a document")
    write(folder / "table.csv", "text\nnot loaded\n")
    write(folder / "sub" / "d.txt", "subfolders are not read")
    documents = load_documents(folder)
    assert [d.id for d in documents] == ["a", "b", "c"]
    assert [d.text for d in documents] == ["Text of a.", "Text of b.", "Text of c."]


def test_folder_without_txt_files_is_rejected(tmp_path):
    folder = tmp_path / "empty-corpus"
    write(folder / "readme.md", "nothing here")
    with pytest.raises(InputError, match="contains no .txt files") as caught:
        load_documents(folder)
    assert caught.value.source == str(folder)


def test_folder_with_one_empty_file_is_rejected_naming_that_file(tmp_path):
    folder = tmp_path / "corpus"
    write(folder / "a.txt", "Fine.")
    write(folder / "b.txt", "   \n\t\n")
    with pytest.raises(InputError, match="is empty") as caught:
        load_documents(folder)
    assert caught.value.source == str(folder / "b.txt")


def test_folder_with_one_binary_file_is_rejected_naming_that_file(tmp_path):
    folder = tmp_path / "corpus"
    write(folder / "a.txt", "Fine.")
    write(folder / "photo.txt", PNG_HEADER)
    with pytest.raises(InputError, match="binary") as caught:
        load_documents(folder)
    assert "photo.txt" in str(caught.value)


def test_folder_larger_than_max_bytes_is_rejected(tmp_path):
    folder = tmp_path / "corpus"
    write(folder / "a.txt", "x" * 600)
    write(folder / "b.txt", "y" * 600)
    with pytest.raises(InputError, match="over the") as caught:
        load_documents(folder, max_bytes=1000)
    assert caught.value.source == str(folder)


def test_zip_of_txt_files_uses_stems_and_ignores_other_files_and_macos_junk(tmp_path):
    data = make_zip({
        "corpus/": None,
        "corpus/beta.txt": "Beta text.",
        "corpus/alpha.txt": "Alpha text.",
        "corpus/readme.md": "# not a document",
        "corpus/data.json": "{}",
        "__MACOSX/": None,
        "__MACOSX/corpus/._alpha.txt": b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        ",
        "__MACOSX/._x": b"\x00\x05\x16\x07junk",
        "._stray.txt": b"\x00\x05\x16\x07",
    })
    path = write(tmp_path / "corpus.zip", data)
    documents = load_documents(path)
    assert sorted((d.id, d.text) for d in documents) == [("alpha", "Alpha text."), ("beta", "Beta text.")]


def test_zip_bytes_load_the_same_as_the_zip_file(tmp_path):
    data = make_zip({"a.txt": "A.", "b.txt": "B."})
    path = write(tmp_path / "upload.zip", data)
    assert load_documents_from_bytes("upload.zip", data) == load_documents(path)


def test_stored_uncompressed_zip_is_accepted(tmp_path):
    data = make_zip({"a.txt": "Stored, not deflated."}, compression=zipfile.ZIP_STORED)
    assert load_documents_from_bytes("plain.zip", data) == [Document(id="a", text="Stored, not deflated.")]


def test_zip_without_txt_files_is_rejected(tmp_path):
    data = make_zip({"notes.md": "x", "__MACOSX/._a.txt": b"\x00\x05"})
    with pytest.raises(InputError, match="contains no .txt files") as caught:
        load_documents(write(tmp_path / "nothing.zip", data))
    assert caught.value.source.endswith("nothing.zip")


def test_zip_with_the_same_stem_in_two_folders_is_rejected_as_duplicate_id():
    data = make_zip({"2020/report.txt": "One.", "2021/report.txt": "Two."})
    with pytest.raises(InputError, match="the id 'report' appears more than once"):
        load_documents_from_bytes("years.zip", data)


def test_zip_entry_that_is_not_utf8_is_named_with_archive_and_entry():
    data = make_zip({"good.txt": "Fine.", "docs/bad.txt": "café".encode("latin-1")})
    with pytest.raises(InputError, match="not UTF-8") as caught:
        load_documents_from_bytes("upload.zip", data)
    assert caught.value.source == "upload.zip:docs/bad.txt"


def test_zip_entry_that_is_empty_is_named_with_archive_and_entry():
    data = make_zip({"good.txt": "Fine.", "blank.txt": "  \n"})
    with pytest.raises(InputError, match="is empty") as caught:
        load_documents_from_bytes("upload.zip", data)
    assert caught.value.source == "upload.zip:blank.txt"


def test_file_named_zip_that_is_not_an_archive_is_rejected():
    with pytest.raises(InputError, match="is not a valid zip archive") as caught:
        load_documents_from_bytes("fake.zip", b"this is plain text, not a zip")
    assert caught.value.source == "fake.zip"


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("../evil.txt", id="parent"),
        pytest.param("docs/../../evil.txt", id="nested-parent"),
        pytest.param("..\\evil.txt", id="backslash-parent"),
    ],
)
def test_zip_entry_outside_archive_is_rejected_with_its_name(name):
    data = make_zip({"ok.txt": "Fine.", name: "pwned"})
    with pytest.raises(InputError, match="points outside the archive") as caught:
        load_documents_from_bytes("upload.zip", data)
    assert f"entry '{name}'" in caught.value.problem
    assert caught.value.source == "upload.zip"
    assert caught.value.hint


@pytest.mark.parametrize("name", ["/etc/x.txt", "C:/Windows/x.txt", "C:\\x.txt"])
def test_zip_entry_with_absolute_path_is_rejected_with_its_name(name):
    data = make_zip({name: "pwned"})
    assert zipfile.ZipFile(io.BytesIO(data)).namelist() == [name]  # the archive really holds that name
    with pytest.raises(InputError, match="points outside the archive") as caught:
        load_documents_from_bytes("upload.zip", data)
    assert name in str(caught.value)


def test_nested_zip_is_rejected_with_its_name():
    inner = make_zip({"a.txt": "inside"})
    data = make_zip({"outer.txt": "Fine.", "more/inner.zip": inner})
    with pytest.raises(InputError, match="nested zip") as caught:
        load_documents_from_bytes("upload.zip", data)
    assert "'more/inner.zip'" in caught.value.problem


def test_zip_bomb_is_rejected_by_its_compression_ratio():
    data = make_zip({"bomb.txt": b"0" * (5 * 1024 * 1024)})
    assert len(data) < 50_000  # keep the test's file small
    with pytest.raises(InputError, match="looks like a zip bomb") as caught:
        # max_bytes well above both the archive and its unpacked size, so only the ratio check can trigger.
        load_documents_from_bytes("bomb.zip", data, max_bytes=50 * 1024 * 1024)
    assert "'bomb.txt'" in caught.value.problem
    ratio = int(caught.value.problem.split("compressed ")[1].split(":")[0])
    assert ratio > MAX_ZIP_RATIO


def test_zip_that_unpacks_past_max_bytes_is_rejected():
    text = " ".join(str(i) for i in range(3000))  # compresses a few times: under the ratio limit
    data = make_zip({"a.txt": text, "b.txt": text[::-1]})
    max_bytes = len(data) + 100
    assert len(text) * 2 > max_bytes  # the archive fits under the limit, its contents do not
    with pytest.raises(InputError, match="unpacks to more than") as caught:
        load_documents_from_bytes("big.zip", data, max_bytes=max_bytes)
    assert caught.value.source == "big.zip"


def test_zip_of_ordinary_text_is_well_under_the_ratio_limit():
    text = "Ordinary news prose compresses only a few times, nowhere near a bomb. " * 50
    assert load_documents_from_bytes("ok.zip", make_zip({"a.txt": text}))[0].text == text


# ---------------------------------------------------------------------------------------------------------------
# JSONL documents
# ---------------------------------------------------------------------------------------------------------------


def test_jsonl_loads_news_and_units_documents_with_meta_and_extras(tmp_path):
    records = [
        {"id": "n1", "text": "Linda Moore won.", "meta": {"date": "2020-01-02", "source": "AP", "title": "Win"}},
        {"id": "h1", "units": [{"text": "Great.", "value": "pos"}, {"text": "Bad.", "value": "neg", "stars": 1}],
         "meta": {"source": "reviews"}, "lang": "en"},
    ]
    path = write(tmp_path / "docs.jsonl", jsonl(*records))
    documents = load_documents(path)
    assert [d.to_dict() for d in documents] == records
    assert documents[0].meta["title"] == "Win" and not documents[0].is_perspective
    assert documents[1].is_perspective and documents[1].units[1] == Unit("Bad.", "neg", {"stars": 1})
    assert documents[1].extra == {"lang": "en"}


def test_jsonl_with_bom_crlf_and_blank_lines_is_accepted(tmp_path):
    body = '{"id": "a", "text": "A."}\r\n\r\n   \r\n{"id": "b", "text": "B."}\r\n'
    path = write(tmp_path / "docs.jsonl", BOM + body.encode())
    assert [(d.id, d.text) for d in load_documents(path)] == [("a", "A."), ("b", "B.")]


def test_jsonl_text_with_unicode_line_separators_is_one_record(tmp_path):
    # U+2028, U+2029 and NEL are legal unescaped inside JSON strings and must not split a line.
    text = "First\u2028second\u2029third\x85fourth"
    path = write(tmp_path / "docs.jsonl", jsonl({"id": "a", "text": text}, {"id": "b", "text": "B."}))
    assert [d.text for d in load_documents(path)] == [text, "B."]


def test_malformed_jsonl_names_the_file_and_line(tmp_path):
    body = '{"id": "a", "text": "A."}\n{"id": "b", "text": "B."}\n{"id": "c", "text": \n{"id": "d", "text": "D."}\n'
    path = write(tmp_path / "broken.jsonl", body)
    with pytest.raises(InputError, match="is not valid JSON") as caught:
        load_documents(path)
    error = caught.value
    assert error.row == 3
    assert error.source == str(path)
    assert str(error).startswith(f"{path}, line 3: ")
    assert error.hint == "each line must be one JSON object"


def test_jsonl_line_numbers_count_blank_lines(tmp_path):
    path = write(tmp_path / "gaps.jsonl", '{"id": "a", "text": "A."}\n\n\n{oops}\n')
    with pytest.raises(InputError) as caught:
        load_documents(path)
    assert caught.value.row == 4


def test_jsonl_line_that_is_a_list_is_rejected_naming_the_line(tmp_path):
    path = write(tmp_path / "list.jsonl", '{"id": "a", "text": "A."}\n["b", "B."]\n')
    with pytest.raises(InputError, match="holds a JSON list, not an object") as caught:
        load_documents(path)
    assert caught.value.row == 2


def test_jsonl_record_missing_id_is_rejected_naming_the_line(tmp_path):
    path = write(tmp_path / "noid.jsonl", '{"id": "a", "text": "A."}\n{"text": "B."}\n')
    with pytest.raises(InputError, match="missing the required field 'id'") as caught:
        load_documents(path)
    assert caught.value.row == 2
    assert "noid.jsonl, line 2" in str(caught.value)


def test_jsonl_record_with_both_text_and_units_is_rejected_naming_the_line(tmp_path):
    path = write(tmp_path / "both.jsonl", jsonl({"id": "a", "text": "A.", "units": [{"text": "u"}]}))
    with pytest.raises(InputError, match="exactly one of 'text' or 'units'") as caught:
        load_documents(path)
    assert caught.value.row == 1


def test_jsonl_document_with_blank_text_is_rejected(tmp_path):
    path = write(tmp_path / "blank.jsonl", jsonl({"id": "a", "text": "A."}, {"id": "b", "text": "  "}))
    with pytest.raises(InputError, match="document 'b' has no text") as caught:
        load_documents(path)
    assert caught.value.row == 2


def test_jsonl_with_duplicate_ids_is_rejected(tmp_path):
    path = write(tmp_path / "dup.jsonl", jsonl({"id": "a", "text": "A."}, {"id": "a", "text": "Again."}))
    with pytest.raises(InputError, match="the id 'a' appears more than once") as caught:
        load_documents(path)
    assert caught.value.source == str(path)


def test_jsonl_integer_and_string_ids_that_collide_are_duplicates(tmp_path):
    path = write(tmp_path / "dup.jsonl", jsonl({"id": 1, "text": "A."}, {"id": "1", "text": "B."}))
    with pytest.raises(InputError, match="appears more than once"):
        load_documents(path)


# ---------------------------------------------------------------------------------------------------------------
# CSV documents
# ---------------------------------------------------------------------------------------------------------------


def test_csv_news_uses_text_and_id_columns_and_keeps_other_columns_as_meta(tmp_path):
    path = write(tmp_path / "news.csv", 'id,title,text\nn1,Win,"Linda Moore won, narrowly."\nn2,Loss,Bob lost.\n')
    documents = load_documents(path)
    assert documents == [
        Document(id="n1", text="Linda Moore won, narrowly.", meta={"title": "Win"}),
        Document(id="n2", text="Bob lost.", meta={"title": "Loss"}),
    ]


def test_csv_news_with_custom_text_and_id_columns(tmp_path):
    path = write(tmp_path / "news.csv", "article,body,date\nx1,First body.,2020\nx2,Second body.,2021\n")
    documents = load_documents(path, columns=CsvColumns(text="body", id="article"))
    assert [(d.id, d.text, d.meta) for d in documents] == [
        ("x1", "First body.", {"date": "2020"}),
        ("x2", "Second body.", {"date": "2021"}),
    ]


def test_csv_news_with_custom_text_column_and_default_id(tmp_path):
    path = write(tmp_path / "news.csv", "id,body\na,Alpha.\nb,Beta.\n")
    assert [(d.id, d.text) for d in load_documents(path, columns=CsvColumns(text="body"))] == [
        ("a", "Alpha."), ("b", "Beta.")]


def test_csv_without_id_column_numbers_documents_by_line(tmp_path):
    path = write(tmp_path / "news.csv", "text\nFirst.\nSecond.\nThird.\n")
    assert [d.id for d in load_documents(path)] == ["row-2", "row-3", "row-4"]


def test_csv_blank_id_cell_falls_back_to_the_line_number(tmp_path):
    path = write(tmp_path / "news.csv", "id,text\na,First.\n ,Second.\n")
    assert [d.id for d in load_documents(path)] == ["a", "row-3"]


def test_csv_multiline_cells_are_kept_and_rows_are_numbered_by_their_first_line(tmp_path):
    body = 'text\n"Para one.\n\nPara two."\nSingle line.\r\n"Windows\r\nbreak."\nLast.\n'
    documents = load_documents(write(tmp_path / "news.csv", body))
    assert [d.text for d in documents] == ["Para one.\n\nPara two.", "Single line.", "Windows\r\nbreak.", "Last."]
    assert [d.id for d in documents] == ["row-2", "row-5", "row-6", "row-8"]


def test_csv_with_utf8_bom_finds_the_first_column(tmp_path):
    path = write(tmp_path / "excel.csv", BOM + "text,id\nÉté chaud.,e1\n".encode())
    assert load_documents(path) == [Document(id="e1", text="Été chaud.")]


def test_csv_units_are_grouped_by_doc_id_with_value_column_detected(tmp_path):
    body = ("doc_id,text,stars,author\n"
            "hotel-1,Great room.,5,ann\n"
            "hotel-2,Dirty.,1,bob\n"
            "hotel-1,Noisy.,2,cy\n")
    documents = load_documents(write(tmp_path / "reviews.csv", body))
    assert [d.id for d in documents] == ["hotel-1", "hotel-2"]  # order of first appearance
    assert documents[0].units == [Unit("Great room.", "5", {"author": "ann"}), Unit("Noisy.", "2", {"author": "cy"})]
    assert documents[1].units == [Unit("Dirty.", "1", {"author": "bob"})]
    assert documents[0].full_text == "Great room. || Noisy."


@pytest.mark.parametrize("column", ["value", "label", "stars", "rating"])
def test_csv_units_value_column_is_detected_by_its_usual_names(tmp_path, column):
    path = write(tmp_path / "units.csv", f"doc_id,text,{column}\nd1,Fine.,pos\n")
    assert load_documents(path)[0].units == [Unit("Fine.", "pos")]


def test_csv_units_with_explicit_group_and_value_columns(tmp_path):
    body = "hotel,review,sentiment,stars\nh1,Lovely.,pos,5\nh1,Awful.,neg,1\nh2,Okay.,neu,3\n"
    columns = CsvColumns(text="review", group="hotel", value="sentiment")
    documents = load_documents(write(tmp_path / "r.csv", body), columns=columns)
    assert [(d.id, [(u.text, u.value, u.extra) for u in d.units]) for d in documents] == [
        ("h1", [("Lovely.", "pos", {"stars": "5"}), ("Awful.", "neg", {"stars": "1"})]),
        ("h2", [("Okay.", "neu", {"stars": "3"})]),
    ]


def test_csv_units_without_a_value_column_have_no_values(tmp_path):
    documents = load_documents(write(tmp_path / "turns.csv", "doc_id,text\nd1,Hi.\nd1,Hello.\n"))
    assert documents[0].units == [Unit("Hi."), Unit("Hello.")]


def test_csv_units_blank_value_cell_is_no_value(tmp_path):
    documents = load_documents(write(tmp_path / "r.csv", "doc_id,text,value\nd1,Hi., \n"))
    assert documents[0].units[0].value is None


def test_csv_without_the_text_column_lists_the_available_columns(tmp_path):
    path = write(tmp_path / "news.csv", "id,body,date\na,Alpha.,2020\n")
    with pytest.raises(InputError, match=r"has no column 'text' \(columns: id, body, date\)") as caught:
        load_documents(path)
    assert caught.value.source == str(path)
    assert caught.value.hint == "choose the column that holds the text"


def test_csv_without_the_chosen_text_column_names_it(tmp_path):
    path = write(tmp_path / "news.csv", "id,text\na,Alpha.\n")
    with pytest.raises(InputError, match=r"has no column 'content' \(columns: id, text\)"):
        load_documents(path, columns=CsvColumns(text="content"))


@pytest.mark.parametrize("columns", [CsvColumns(id="key"), CsvColumns(value="score"), CsvColumns(group="hotel")])
def test_csv_without_a_chosen_optional_column_names_it(tmp_path, columns):
    path = write(tmp_path / "news.csv", "id,text\na,Alpha.\n")
    missing = columns.id or columns.value or columns.group
    with pytest.raises(InputError, match=f"has no column '{missing}'"):
        load_documents(path, columns=columns)


def test_csv_empty_text_cell_names_the_line(tmp_path):
    path = write(tmp_path / "news.csv", "id,text\na,Alpha.\nb,Beta.\nc,\nd,Delta.\n")
    with pytest.raises(InputError, match="column 'text' is empty") as caught:
        load_documents(path)
    assert caught.value.row == 4
    assert str(caught.value).startswith(f"{path}, line 4: ")


def test_csv_empty_text_cell_after_a_multiline_cell_names_its_real_line(tmp_path):
    path = write(tmp_path / "news.csv", 'id,text\na,"Line one\nline two"\nb,\n')
    with pytest.raises(InputError, match="column 'text' is empty") as caught:
        load_documents(path)
    assert caught.value.row == 4


def test_csv_units_empty_group_cell_names_the_line(tmp_path):
    path = write(tmp_path / "r.csv", "doc_id,text\nd1,Hi.\n,Orphan.\n")
    with pytest.raises(InputError, match="column 'doc_id' is empty") as caught:
        load_documents(path)
    assert caught.value.row == 3


def test_csv_units_empty_text_cell_names_the_line(tmp_path):
    path = write(tmp_path / "r.csv", "doc_id,text,stars\nd1,Hi.,5\nd1,  ,4\n")
    with pytest.raises(InputError, match="column 'text' is empty") as caught:
        load_documents(path)
    assert caught.value.row == 3


def test_csv_with_duplicate_ids_is_rejected(tmp_path):
    path = write(tmp_path / "news.csv", "id,text\na,Alpha.\nb,Beta.\na,Again.\n")
    with pytest.raises(InputError, match="the id 'a' appears more than once") as caught:
        load_documents(path)
    assert caught.value.source == str(path)


def test_csv_with_header_only_has_no_documents(tmp_path):
    with pytest.raises(InputError, match="contains no documents"):
        load_documents(write(tmp_path / "news.csv", "id,text\n"))


# ---------------------------------------------------------------------------------------------------------------
# Bad files of any kind
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".txt", ".jsonl", ".csv", ".zip"])
def test_empty_file_is_rejected_naming_it(tmp_path, suffix):
    path = write(tmp_path / f"empty{suffix}", b"")
    with pytest.raises(InputError, match="is empty") as caught:
        load_documents(path)
    assert caught.value.source == str(path)
    assert caught.value.row is None


@pytest.mark.parametrize("suffix", [".txt", ".jsonl", ".csv"])
def test_whitespace_only_file_is_rejected_as_empty(tmp_path, suffix):
    path = write(tmp_path / f"blank{suffix}", " \n\t\r\n  \n")
    with pytest.raises(InputError, match="is empty") as caught:
        load_documents(path)
    assert caught.value.source == str(path)


def test_png_renamed_to_txt_is_rejected_as_binary(tmp_path):
    path = write(tmp_path / "holiday.txt", PNG_HEADER + bytes(range(256)) * 4)
    with pytest.raises(InputError, match="looks like a binary file") as caught:
        load_documents(path)
    assert caught.value.source == str(path)
    assert "UTF-8" in caught.value.hint


def test_png_renamed_to_jsonl_or_csv_is_rejected_as_binary():
    for name in ("x.jsonl", "x.csv"):
        with pytest.raises(InputError, match="binary"):
            load_documents_from_bytes(name, PNG_HEADER)


def test_latin1_file_is_rejected_with_the_offset_of_the_bad_byte(tmp_path):
    data = "Le café de la gare.".encode("latin-1")
    path = write(tmp_path / "french.txt", data)
    with pytest.raises(InputError, match=r"is not UTF-8 text \(invalid byte at offset 6\)") as caught:
        load_documents(path)
    assert data[6] == 0xE9
    assert caught.value.source == str(path)
    assert caught.value.hint == "re-save the file as UTF-8"


def test_latin1_csv_is_rejected_as_not_utf8():
    with pytest.raises(InputError, match="not UTF-8"):
        load_documents_from_bytes("news.csv", "text\nNaïve.\n".encode("latin-1"))


def test_file_over_max_bytes_is_rejected(tmp_path):
    path = write(tmp_path / "big.txt", "x" * 2_000)
    with pytest.raises(InputError, match="over the") as caught:
        load_documents(path, max_bytes=1_000)
    assert caught.value.source == str(path)
    assert "--max-mb" in caught.value.hint
    assert load_documents(path, max_bytes=2_000)[0].text == "x" * 2_000  # the limit itself is allowed


def test_uploaded_bytes_over_max_bytes_are_rejected():
    with pytest.raises(InputError, match="over the"):
        load_documents_from_bytes("big.jsonl", b'{"id": "a", "text": "' + b"x" * 100 + b'"}', max_bytes=50)


@pytest.mark.parametrize("name", ["paper.pdf", "notes.docx", "README", "data.json"])
def test_unsupported_suffix_is_rejected_listing_the_supported_ones(tmp_path, name):
    path = write(tmp_path / name, "some text")
    with pytest.raises(InputError, match="unsupported file type") as caught:
        load_documents(path)
    assert caught.value.source == str(path)
    assert ".txt" in caught.value.hint and ".jsonl" in caught.value.hint and ".zip" in caught.value.hint


def test_missing_path_is_rejected_naming_it(tmp_path):
    path = tmp_path / "nowhere" / "docs.jsonl"
    with pytest.raises(InputError, match="no such file or folder") as caught:
        load_documents(path)
    assert caught.value.source == str(path)


def test_source_overrides_the_name_in_messages_for_uploads():
    with pytest.raises(InputError) as caught:
        load_documents_from_bytes("docs.jsonl", b"[1]\n", source="upload 'docs.jsonl'")
    assert caught.value.source == "upload 'docs.jsonl'"
    assert caught.value.row == 1


def test_input_error_message_has_source_row_problem_and_hint():
    error = InputError("f.jsonl", "is broken", row=7, hint="fix it")
    assert (error.source, error.row, error.problem, error.hint) == ("f.jsonl", 7, "is broken", "fix it")
    assert str(error) == "f.jsonl, line 7: is broken — fix it"
    assert str(InputError("f.zip", "is odd", row="entry 'a.txt'")) == "f.zip, entry 'a.txt': is odd"
    assert str(InputError("f.txt", "is empty")) == "f.txt: is empty"


# ---------------------------------------------------------------------------------------------------------------
# decode_text
# ---------------------------------------------------------------------------------------------------------------


def test_decode_text_drops_a_bom_and_keeps_everything_else():
    assert decode_text("s", BOM + "\tα\r\nβ\f".encode()) == "\tα\r\nβ\f"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "is empty"),
        (b" \n\t ", "is empty"),
        (b"abc\x00def", "binary"),
        (b"\x01\x02\x03\x04 text", "binary"),
        (b"caf\xe9", "offset 3"),
        (b"ok \xff\xfe", "offset 3"),
    ],
)
def test_decode_text_rejects_empty_binary_and_non_utf8_data(data, message):
    with pytest.raises(InputError, match=message) as caught:
        decode_text("where.txt", data)
    assert caught.value.source == "where.txt"


ARTICLE = "Robert Moore met Linda Clark in Kraków. He said she was right — «très» bien.\r\nSecond line.\n"


@pytest.mark.parametrize(
    "data",
    [
        ARTICLE.encode("utf-16"),  # Python writes the byte-order mark of the machine (little-endian here)
        b"\xff\xfe" + ARTICLE.encode("utf-16-le"),
        b"\xfe\xff" + ARTICLE.encode("utf-16-be"),
        b"\xff\xfe\x00\x00" + ARTICLE.encode("utf-32-le"),
        b"\x00\x00\xfe\xff" + ARTICLE.encode("utf-32-be"),
        BOM + ARTICLE.encode("utf-8"),
    ],
    ids=["utf-16", "utf-16-le-bom", "utf-16-be-bom", "utf-32-le-bom", "utf-32-be-bom", "utf-8-bom"],
)
def test_decode_text_reads_utf16_utf32_and_utf8_with_a_byte_order_mark(data):
    assert decode_text("s.txt", data) == ARTICLE


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_decode_text_reads_utf16_without_a_byte_order_mark(codec):
    assert decode_text("s.txt", ARTICLE.encode(codec)) == ARTICLE


def test_utf16_without_a_byte_order_mark_that_does_not_decode_says_it_looks_like_utf16():
    message = "looks like UTF-16 text without a byte-order mark but does not decode"
    with pytest.raises(InputError, match=message) as caught:
        decode_text("s.txt", ARTICLE.encode("utf-16-le")[:-1] + b"\x00\xd8")  # an odd number of bytes
    assert caught.value.hint == "re-save the file as UTF-8"


def test_utf16_with_a_bom_that_holds_binary_data_is_refused_as_such():
    with pytest.raises(InputError, match="looks like UTF-16 text but holds binary data"):
        decode_text("s.txt", "\x00\x01\x02\x03 abc".encode("utf-16"))


@pytest.mark.parametrize("data", [b"abc\x00def" * 20, PNG_HEADER + bytes(range(256)), b"\x00\x00\x00\x00" * 30])
def test_other_data_with_nul_bytes_keeps_the_binary_message(data):
    with pytest.raises(InputError, match="looks like a binary file"):
        decode_text("s.txt", data)


@pytest.mark.parametrize("suffix", [".txt", ".jsonl", ".csv"])
def test_every_loader_reads_utf16_files(tmp_path, suffix):
    text = "Robert Moore met Linda Clark. He said she was right."
    content = {".txt": text, ".jsonl": jsonl({"id": "d", "text": text}), ".csv": f"id,text\nd,{text}\n"}[suffix]
    path = write(tmp_path / f"d{suffix}", content.encode("utf-16"))
    (document,) = load_documents(path)
    assert document.text == text


def test_folders_zip_entries_and_uploads_read_utf16_files(tmp_path):
    text = "Robert Moore met Linda Clark."
    write(tmp_path / "folder" / "a.txt", text.encode("utf-16"))
    write(tmp_path / "folder" / "b.txt", text.encode("utf-16-be"))
    assert [d.text for d in load_documents(tmp_path / "folder")] == [text, text]
    archive = make_zip({"a.txt": text.encode("utf-32"), "b.txt": BOM + text.encode()})
    assert [d.text for d in load_documents_from_bytes("c.zip", archive)] == [text, text]
    assert load_documents_from_bytes("upload.txt", text.encode("utf-16"))[0].text == text


def test_jsonl_line_nested_200000_deep_is_refused_naming_the_line(tmp_path):
    deep = '{"id": "b", "text": "x", "meta": {"k": ' + "[" * 200_000 + "]" * 200_000 + "}}"
    path = write(tmp_path / "docs.jsonl", jsonl({"id": "a", "text": "fine"}) + deep + "\n")
    with pytest.raises(InputError, match="nests JSON more than 100 levels deep") as caught:
        load_documents(path)
    assert (caught.value.source, caught.value.row) == (str(path), 2)
    inputs = write(tmp_path / "inputs.jsonl", "\n\n" + deep + "\n")
    with pytest.raises(InputError, match="nests JSON") as caught:
        read_inputs(inputs)
    assert caught.value.row == 3


def test_jsonl_nesting_below_the_limit_loads_and_above_it_is_refused(tmp_path):
    def nested(depth: int) -> str:  # the line object itself is level 1, "meta" level 2
        return '{"id": "a", "text": "x", "meta": {"k": ' + "[" * (depth - 2) + "]" * (depth - 2) + "}}\n"

    assert load_documents_from_bytes("ok.jsonl", nested(100).encode())[0].id == "a"
    with pytest.raises(InputError, match="nests JSON"):
        load_documents_from_bytes("deep.jsonl", nested(101).encode())


def test_measures_file_nested_200000_deep_is_refused(tmp_path):
    path = write(tmp_path / "measures.json", "[" * 200_000 + "]" * 200_000)
    with pytest.raises(InputError, match="nested too deep"):
        read_measures(path)


# ---------------------------------------------------------------------------------------------------------------
# inputs.jsonl and summaries.jsonl
# ---------------------------------------------------------------------------------------------------------------


def sample_inputs() -> list[Input]:
    text = "Yesterday Linda Moore said that she would run."
    return [
        Input(
            id="doc7/gender-loc/s3/a", original_id="doc7", text=text, perturbation="gender-loc", sample_id=3,
            arm="a", role="swap1", quadruple_id="doc7/s3",
            entities=[Entity("e1", "female", "Linda", "Moore", "Robert", "Moore", {"mentions": 2})],
            substitutions=[Substitution(10, 15, "Robert", "Linda", "first_name", "e1"),
                           Substitution(32, 35, "he", "she", "pronoun", "e1", {"note": "ok"})],
            extra={"pipeline": "v1"},
        ),
        Input(id="hotel-1/identity", original_id="hotel-1", text="Great. || Bad — très.", sample_id=0,
              role="identity", units=[Unit("Great.", "pos"), Unit("Bad — très.", "neg", {"stars": 1})]),
    ]


def sample_summaries() -> list[Summary]:
    return [
        Summary("doc7/gender-loc/s3/a", "textrank", "Linda Moore said that she would run.",
                sentences=["Yesterday Linda Moore said that she would run."], sentence_scores=[1.0],
                meta={"seconds": 0.01, "parameters": {"k": 1}}),
        Summary("hotel-1/identity", "openai:gpt-4o-mini", "Mixed — «très» bad.\u2028Line two.",
                meta={"model": "gpt-4o-mini", "revision": None}, extra={"cost_usd": 0.0001}),
    ]


def test_inputs_write_then_read_equals_the_originals(tmp_path):
    inputs = sample_inputs()
    path = tmp_path / "run" / "inputs.jsonl"  # parent folder is created
    assert write_jsonl(path, inputs) == 2
    assert read_inputs(path) == inputs
    assert read_inputs(path)[0].original_text() == "Yesterday Robert Moore said that he would run."


def test_summaries_write_then_read_equals_the_originals(tmp_path):
    summaries = sample_summaries()
    path = tmp_path / "summaries.jsonl"
    assert write_jsonl(path, summaries) == 2
    assert read_summaries(path) == summaries


def test_written_jsonl_is_one_utf8_object_per_line_matching_to_dict(tmp_path):
    path = tmp_path / "inputs.jsonl"
    inputs = sample_inputs()
    write_jsonl(path, inputs)
    raw = path.read_bytes()
    assert raw.endswith(b"\n") and not raw.startswith(BOM)
    lines = raw.decode("utf-8").split("\n")[:-1]
    assert [json.loads(line) for line in lines] == [record.to_dict() for record in inputs]
    assert "très" in lines[1]  # written as UTF-8, not \u escapes


def test_documents_written_as_jsonl_load_back_unchanged(tmp_path):
    documents = [Document(id="n1", text="News.", meta={"source": "AP"}),
                 Document(id="h1", units=[Unit("Good.", "pos")], extra={"lang": "en"})]
    path = tmp_path / "docs.jsonl"
    write_jsonl(path, documents)
    assert load_documents(path) == documents
    assert read_jsonl(path, Document) == documents


def test_write_jsonl_of_no_records_writes_an_empty_file(tmp_path):
    path = tmp_path / "none.jsonl"
    assert write_jsonl(path, []) == 0
    assert path.read_bytes() == b""


def test_read_inputs_rejects_duplicate_input_ids(tmp_path):
    first = sample_inputs()[0]
    path = tmp_path / "inputs.jsonl"
    write_jsonl(path, [first, sample_inputs()[1], first])
    with pytest.raises(InputError, match=f"the id '{first.id}' appears more than once") as caught:
        read_inputs(path)
    assert caught.value.source == str(path)


def test_read_summaries_allows_one_input_summarised_by_several_summarizers(tmp_path):
    path = tmp_path / "summaries.jsonl"
    write_jsonl(path, [Summary("i1", "lead-3", "A."), Summary("i1", "textrank", "B.")])
    assert [s.summarizer for s in read_summaries(path)] == ["lead-3", "textrank"]


@pytest.mark.parametrize("content", [b"", b"\n\n", b"  \r\n"])
def test_read_jsonl_of_an_empty_file_is_rejected(tmp_path, content):
    path = write(tmp_path / "summaries.jsonl", content)
    with pytest.raises(InputError, match="is empty") as caught:
        read_summaries(path)
    assert caught.value.source == str(path)


def test_read_jsonl_of_a_missing_file_is_rejected(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_inputs(tmp_path / "inputs.jsonl")
    with pytest.raises(InputError, match="no such file"):
        read_jsonl(tmp_path, Input)  # a folder is not a file


def test_read_jsonl_record_error_names_the_line(tmp_path):
    path = write(tmp_path / "summaries.jsonl",
                 jsonl({"input_id": "a", "summarizer": "s", "text": "t"}, {"input_id": "b", "summarizer": "s"}))
    with pytest.raises(InputError, match="missing the required field 'text'") as caught:
        read_summaries(path)
    assert caught.value.row == 2
    assert str(caught.value).startswith(f"{path}, line 2: ")


def test_read_inputs_with_a_non_object_entity_is_an_input_error_not_a_crash(tmp_path):
    path = write(tmp_path / "inputs.jsonl", jsonl({"id": "a", "original_id": "a", "text": "t", "entities": ["e1"]}))
    with pytest.raises(InputError, match="entity must be a JSON object") as caught:
        read_inputs(path)
    assert caught.value.row == 1


def test_read_inputs_with_a_bad_role_names_the_line(tmp_path):
    path = write(tmp_path / "inputs.jsonl", jsonl({"id": "a", "original_id": "a", "text": "t"},
                                                  {"id": "b", "original_id": "b", "text": "t", "role": "swap9"}))
    with pytest.raises(InputError, match="role 'swap9'") as caught:
        read_inputs(path)
    assert caught.value.row == 2


def test_read_summaries_with_mismatched_scores_names_the_line(tmp_path):
    bad = {"input_id": "a", "summarizer": "textrank", "text": "t", "sentences": ["x", "y"], "sentence_scores": [1]}
    path = write(tmp_path / "summaries.jsonl", jsonl(bad))
    with pytest.raises(InputError, match="2 sentences but 1 sentence scores") as caught:
        read_summaries(path)
    assert caught.value.row == 1


def test_read_jsonl_malformed_line_names_the_line(tmp_path):
    path = write(tmp_path / "inputs.jsonl", '{"id": "a", "original_id": "a", "text": "t"}\nnot json\n')
    with pytest.raises(InputError, match="is not valid JSON") as caught:
        read_inputs(path)
    assert caught.value.row == 2


# ---------------------------------------------------------------------------------------------------------------
# Atomic writes
# ---------------------------------------------------------------------------------------------------------------


def test_write_jsonl_leaves_only_the_target_file(tmp_path):
    write_jsonl(tmp_path / "inputs.jsonl", sample_inputs())
    write_jsonl(tmp_path / "inputs.jsonl", sample_inputs()[:1])  # overwrite
    assert files_in(tmp_path) == ["inputs.jsonl"]
    assert len(read_inputs(tmp_path / "inputs.jsonl")) == 1


def test_write_jsonl_keeps_the_existing_file_when_records_fail_midway(tmp_path):
    path = tmp_path / "inputs.jsonl"
    write_jsonl(path, sample_inputs())
    before = path.read_bytes()

    def records():
        yield sample_inputs()[0]
        raise RuntimeError("summarizer crashed")

    with pytest.raises(RuntimeError, match="summarizer crashed"):
        write_jsonl(path, records())
    assert path.read_bytes() == before
    assert files_in(tmp_path) == ["inputs.jsonl"]


def test_write_jsonl_keeps_the_existing_file_when_encoding_fails_during_the_write(tmp_path):
    path = tmp_path / "summaries.jsonl"
    write_jsonl(path, sample_summaries())
    before = path.read_bytes()
    with pytest.raises(UnicodeEncodeError):
        write_jsonl(path, [Summary("i", "s", "ok"), Summary("i", "s", "lone surrogate \ud800")])
    assert path.read_bytes() == before
    assert files_in(tmp_path) == ["summaries.jsonl"]


def test_write_jsonl_that_fails_creates_no_file(tmp_path):
    def records():
        raise ValueError("nothing to write")
        yield  # pragma: no cover

    with pytest.raises(ValueError):
        write_jsonl(tmp_path / "new.jsonl", records())
    assert files_in(tmp_path) == []


# ---------------------------------------------------------------------------------------------------------------
# measures.json
# ---------------------------------------------------------------------------------------------------------------


def sample_measures() -> list[MeasureResult]:
    return [
        MeasureResult(measure="entity_inclusion", perturbation="gender-loc", summarizer="lead-3", value=0.12,
                      ci_low=0.01, ci_high=0.25, ci_kind="d", n=683, details={"favoured": "male"}),
        MeasureResult(measure="entity_inclusion", perturbation="gender-loc", summarizer="lead-3", value=0.12,
                      ci_low=0.02, ci_high=0.22, ci_kind="s", n=683, details={"favoured": "male"}),
        MeasureResult(measure="auc", perturbation="gender-glob", summarizer="textrank", value=math.nan, n=0,
                      reason="every summary includes every entity", extra={"bootstrap": 1000}),
    ]


def test_measures_write_then_read_round_trips_with_nan_as_null(tmp_path):
    path = tmp_path / "out" / "measures.json"
    measures = sample_measures()
    write_measures(path, measures)
    payload = json.loads(path.read_text(encoding="utf-8"))  # strict JSON: json.loads would accept NaN, so also:
    assert "NaN" not in path.read_text(encoding="utf-8")
    assert list(payload) == ["results"]
    assert payload["results"][0] == {
        "measure": "entity_inclusion", "perturbation": "gender-loc", "summarizer": "lead-3", "value": 0.12,
        "ci_low": 0.01, "ci_high": 0.25, "ci_kind": "d", "n": 683, "reason": None, "details": {"favoured": "male"},
    }
    assert payload["results"][2]["value"] is None
    assert payload["results"][2]["reason"] == "every summary includes every entity"
    assert payload["results"][2]["bootstrap"] == 1000
    back = read_measures(path)
    assert back[:2] == measures[:2]
    assert math.isnan(back[2].value) and back[2].reason == measures[2].reason and back[2].extra == {"bootstrap": 1000}
    assert [r.to_dict() for r in back] == payload["results"]
    assert files_in(path.parent) == ["measures.json"]


def test_read_measures_reads_the_interfaces_example(tmp_path):
    example = {"results": [{"measure": "entity_inclusion", "perturbation": "gender-loc", "summarizer": "lead-3",
                            "value": 0.12, "ci_low": 0.01, "ci_high": 0.25, "ci_kind": "d", "n": 683,
                            "reason": None, "details": {"favoured": "male"}}]}
    path = write(tmp_path / "measures.json", json.dumps(example))
    assert {"results": [r.to_dict() for r in read_measures(path)]} == example


@pytest.mark.parametrize(
    "content",
    [
        pytest.param("{not json", id="malformed"),
        pytest.param('{"measures": []}', id="no-results-key"),
        pytest.param("[1, 2]", id="top-level-list"),
        pytest.param('{"results": [1]}', id="result-not-object"),
        pytest.param('{"results": [{"measure": "auc", "value": null, "n": 3}]}', id="null-without-reason"),
        pytest.param('{"results": [{"measure": "auc", "value": 0.5}]}', id="no-n"),
    ],
)
def test_read_measures_rejects_invalid_files_with_input_error(tmp_path, content):
    path = write(tmp_path / "measures.json", content)
    with pytest.raises(InputError, match="is not a valid measures file") as caught:
        read_measures(path)
    assert caught.value.source == str(path)


def test_read_measures_of_missing_or_empty_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_measures(tmp_path / "measures.json")
    with pytest.raises(InputError, match="is empty"):
        read_measures(write(tmp_path / "empty.json", b""))


def test_write_measures_keeps_the_existing_file_when_results_fail_midway(tmp_path):
    path = tmp_path / "measures.json"
    write_measures(path, sample_measures())
    before = path.read_bytes()

    def results():
        yield sample_measures()[0]
        raise RuntimeError("bootstrap failed")

    with pytest.raises(RuntimeError):
        write_measures(path, results())
    assert path.read_bytes() == before
    assert files_in(tmp_path) == ["measures.json"]


def test_nan_inside_measure_details_is_written_as_null(tmp_path):
    from bias_core.common.records import MeasureResult
    from bias_core.documents.record_files import read_measures, write_measures

    path = tmp_path / "m.json"
    write_measures(path, [MeasureResult("bur", 0.5, 3, details={"p_y": [float("nan"), 0.5], "z": float("inf")})])
    assert "NaN" not in path.read_text() and "Infinity" not in path.read_text()
    assert read_measures(path)[0].details == {"p_y": [None, 0.5], "z": None}


def test_a_corrupt_zip_entry_is_an_input_error_naming_the_entry(tmp_path):
    import io as std_io
    import zipfile

    from bias_core.documents.corpus import load_documents_from_bytes
    from bias_core.safety.errors import InputError

    buffer = std_io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a.txt", "An article about a council vote. " * 20)
    data = bytearray(buffer.getvalue())
    start = data.find(b"PK\x03\x04") + 30 + len("a.txt")
    data[start + 5 : start + 25] = b"\xff" * 20  # corrupt the compressed stream
    with pytest.raises(InputError, match="entry 'a.txt' cannot be unpacked"):
        load_documents_from_bytes("corpus.zip", bytes(data))
