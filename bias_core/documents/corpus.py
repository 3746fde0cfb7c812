"""The corpus readers: documents from a ``.txt`` file, a folder or ``.zip`` of ``.txt`` files, ``.jsonl`` or ``.csv``
(``load_documents``, ``load_documents_from_bytes``, ``CsvColumns``, ``csv_header``).

Loading is all-or-nothing: every problem raises one ``InputError`` naming the file, the row or entry and what to do,
and no partial list of documents is ever returned.
"""

from __future__ import annotations

import csv
import io
import os
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from bias_core.common.records import Document, RecordError, Unit
from bias_core.documents.decoding import DEFAULT_MAX_BYTES, check_size, decode_text, describe_limit, read_named_file
from bias_core.documents.jsonl import check_ids, check_unique_ids, jsonl_objects
from bias_core.safety.errors import InputError

SUPPORTED_SUFFIXES = (".txt", ".jsonl", ".csv", ".zip")
VALUE_COLUMN_CANDIDATES = ("value", "label", "stars", "rating")
# A zip whose entries inflate more than this many times their compressed size is treated as a zip bomb.
MAX_ZIP_RATIO = 200


@dataclass(frozen=True)
class CsvColumns:
    """Which CSV columns hold the text, the id and, for perspective documents, the group (document) and value.

    With ``detect`` (the default) a column left as ``None`` is guessed from the header (``id``, ``doc_id``, and
    ``value``/``label``/``stars``/``rating``); with ``detect=False`` ``None`` means "no such column".
    """

    text: str = "text"
    id: str | None = None
    value: str | None = None
    group: str | None = None
    detect: bool = True


def load_documents(
    path: str | os.PathLike,
    *,
    columns: CsvColumns | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> list[Document]:
    """Load documents from a ``.txt`` file, a folder or ``.zip`` of ``.txt`` files, ``.jsonl`` or ``.csv``."""
    path = Path(path)
    if path.is_dir():
        return _load_folder(path, max_bytes=max_bytes)
    if not path.exists():
        raise InputError(str(path), "no such file or folder")
    # Only a regular file, refused over max_bytes before it is read (issue 30): a named pipe or a device is not read.
    return load_documents_from_bytes(path.name, read_named_file(path, max_bytes), columns=columns,
                                     max_bytes=max_bytes, source=str(path))


def load_documents_from_bytes(
    filename: str,
    data: bytes,
    *,
    columns: CsvColumns | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    source: str | None = None,
) -> list[Document]:
    """Load documents from an uploaded file's name and bytes (the app's path; same rules as ``load_documents``)."""
    source = source or filename
    check_size(source, len(data), max_bytes)
    suffix = Path(filename).suffix.lower()
    if suffix == ".zip":
        documents = _load_zip(source, data, max_bytes=max_bytes)
    elif suffix == ".txt":
        documents = [_text_document(Path(filename).stem, data, source)]
    elif suffix == ".jsonl":
        documents = [_jsonl_document(record, source, line) for line, record in jsonl_objects(source, data)]
    elif suffix == ".csv":
        documents = _csv_documents(source, data, columns or CsvColumns())
    else:
        raise InputError(source, f"unsupported file type '{suffix or 'none'}'",
                         hint=f"upload one of {', '.join(SUPPORTED_SUFFIXES)}")
    if not documents:
        raise InputError(source, "contains no documents", hint="check that the file is not empty")
    check_unique_ids(source, documents)
    return documents


def _text_document(doc_id: str, data: bytes, source: str) -> Document:
    text = decode_text(source, data)
    if not text.strip():
        raise InputError(source, "is empty", hint="choose a file that contains text")
    return Document(id=doc_id, text=text)


def _load_folder(folder: Path, *, max_bytes: int) -> list[Document]:
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() == ".txt")
    if not files:
        raise InputError(str(folder), "contains no .txt files", hint="put one article per .txt file in the folder")
    total = sum(p.stat().st_size for p in files)
    check_size(str(folder), total, max_bytes)
    documents = [_text_document(p.stem, read_named_file(p, max_bytes), str(p)) for p in files]
    check_unique_ids(str(folder), documents)
    return documents


def _load_zip(source: str, data: bytes, *, max_bytes: int) -> list[Document]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise InputError(source, "is not a valid zip archive", hint="re-create the archive") from None
    documents: list[Document] = []
    with archive:
        entries = [info for info in archive.infolist() if not info.is_dir()]
        total = 0
        for info in entries:
            name = info.filename
            pure = PurePosixPath(name.replace("\\", "/"))
            if pure.is_absolute() or ".." in pure.parts or (len(name) > 1 and name[1] == ":"):
                raise InputError(source, f"entry '{name}' points outside the archive",
                                 hint="re-create the archive with relative paths")
            if pure.suffix.lower() == ".zip":
                raise InputError(source, f"entry '{name}' is a nested zip archive, which is not supported",
                                 hint="unpack it and upload the inner archive on its own")
            total += info.file_size
            if total > max_bytes:
                raise InputError(source, f"unpacks to more than the {describe_limit(max_bytes)} limit",
                                 hint="split the archive into smaller ones")
            if info.compress_size and info.file_size / info.compress_size > MAX_ZIP_RATIO:
                raise InputError(source, f"entry '{name}' is compressed {info.file_size // info.compress_size}:1, "
                                 "which looks like a zip bomb", hint="upload the text files uncompressed")
        for info in entries:
            pure = PurePosixPath(info.filename.replace("\\", "/"))
            if pure.suffix.lower() != ".txt" or pure.name.startswith("._"):
                continue
            entry_source = f"{source}:{info.filename}"
            try:
                data = archive.read(info)
            except (zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError) as error:
                raise InputError(source, f"entry '{info.filename}' cannot be unpacked ({error})",
                                 hint="re-create the archive") from None
            documents.append(_text_document(pure.stem, data, entry_source))
    if not documents:
        raise InputError(source, "contains no .txt files", hint="put one article per .txt file in the archive")
    return documents


def _jsonl_document(record: dict[str, Any], source: str, line: int) -> Document:
    check_ids(record, source, line)
    try:
        document = Document.from_dict(record)
    except RecordError as error:
        raise InputError(source, str(error), row=line) from None
    if not document.full_text.strip():
        raise InputError(source, f"document '{document.id}' has no text", row=line)
    return document


def csv_header(source: str, data: bytes) -> list[str]:
    """The column names of a CSV file (its first row), so a user can map text / id / group / value columns; a line
    break inside a quoted name is read as a space, as the documents' columns are."""
    return csv_dict_reader(source, decode_text(source, data)).fieldnames or []


def csv_dict_reader(source: str, text: str) -> csv.DictReader:
    """A strict reader over CSV text whose header is read and checked: line breaks in a quoted column name become a
    space (the app's column picker shows one line per name), and two columns of the same name are refused — a
    dictionary row would silently keep only the last (issue 23). Strict, so an unterminated quote is an error, not a
    cell that swallows the rest of the file."""
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    try:
        raw = reader.fieldnames or []
    except csv.Error as error:
        raise csv_error(source, error, 1) from None
    header = [" ".join(name.splitlines()) for name in raw]
    first_position: dict[str, int] = {}
    for position, name in enumerate(header, start=1):
        if name.strip() and name in first_position:
            raise InputError(source, f"has two columns named '{name}' (columns {first_position[name]} and "
                             f"{position})", row=1, hint="rename one of them, so that every column has its own name")
        first_position.setdefault(name, position)
    reader.fieldnames = header
    return reader


def csv_error(source: str, error: csv.Error, line: int) -> InputError:
    """One line for the csv module's error at the record starting on ``line``."""
    if str(error) == "unexpected end of data":
        return InputError(source, "a quoted cell that starts here is never closed: the file ends inside it",
                          row=line, hint='close the quote (") or remove it, and save the file again')
    return InputError(source, f"is not a valid CSV file ({error})", row=line)


def _csv_documents(source: str, data: bytes, columns: CsvColumns) -> list[Document]:
    reader = csv_dict_reader(source, decode_text(source, data))
    header = reader.fieldnames or []
    if columns.text not in header:
        raise InputError(source, f"has no column '{columns.text}' (columns: {', '.join(header) or 'none'})",
                         hint="choose the column that holds the text")
    for name in (columns.id, columns.value, columns.group):
        if name is not None and name not in header:
            raise InputError(source, f"has no column '{name}' (columns: {', '.join(header)})")
    group, value, id_column = columns.group, columns.value, columns.id
    if columns.detect:
        group = group or ("doc_id" if "doc_id" in header and columns.id != "doc_id" else None)
        value = value or next((c for c in VALUE_COLUMN_CANDIDATES if c in header), None)
        id_column = id_column or ("id" if "id" in header else None)
    try:
        # Number each row by the file line it starts on, so quoted cells spanning several lines do not shift the count.
        rows = []
        record_end = reader.line_num
        for row in reader:
            breaks = sum(v.count("\n") + v.count("\r") - v.count("\r\n") for v in row.values() if isinstance(v, str))
            rows.append((reader.line_num - breaks, row))
            record_end = reader.line_num
    except csv.Error as error:  # the record that failed starts on the line after the last one read
        raise csv_error(source, error, record_end + 1) from None
    if group is None:
        documents = []
        for line, row in rows:
            row_text = row.get(columns.text) or ""
            if not row_text.strip():
                raise InputError(source, f"column '{columns.text}' is empty", row=line)
            doc_id = (row.get(id_column) or "").strip() if id_column else ""
            meta = {k: v for k, v in row.items() if k not in (columns.text, id_column) and k is not None}
            documents.append(Document(id=doc_id or f"row-{line}", text=row_text, meta=meta))
        return documents
    grouped: dict[str, list[Unit]] = {}
    for line, row in rows:
        doc_id = (row.get(group) or "").strip()
        if not doc_id:
            raise InputError(source, f"column '{group}' is empty", row=line)
        row_text = row.get(columns.text) or ""
        if not row_text.strip():
            raise InputError(source, f"column '{columns.text}' is empty", row=line)
        unit_value = (row.get(value) or "").strip() or None if value else None
        extra = {k: v for k, v in row.items() if k not in (columns.text, group, value) and k is not None}
        grouped.setdefault(doc_id, []).append(Unit(text=row_text, value=unit_value, extra=extra))
    return [Document(id=doc_id, units=units) for doc_id, units in grouped.items()]
