"""Read and write documents, inputs, summaries and measures in the formats of INTERFACES.md.

Loading is all-or-nothing: every problem raises one ``InputError`` naming the file, the row or entry and what to do,
and no partial list of documents is ever returned.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import math
import os
import re
import tempfile
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from bias_core.common.records import Document, Input, MeasureResult, RecordError, Summary, Unit
from bias_core.safety.errors import InputError

# One megabyte is 1,000,000 bytes here, as in the app's upload widget (Streamlit counts so in every browser but
# Windows ones, and says "File must be 20.0MB or smaller"): the app, the command line and an audit config state one
# limit, 20 MB = 20,000,000 bytes (.streamlit/config.toml's maxUploadSize; issue 23).
BYTES_PER_MB = 1_000_000
DEFAULT_MAX_MB = 20
DEFAULT_MAX_BYTES = DEFAULT_MAX_MB * BYTES_PER_MB
SUPPORTED_SUFFIXES = (".txt", ".jsonl", ".csv", ".zip")
VALUE_COLUMN_CANDIDATES = ("value", "label", "stars", "rating")
# A zip whose entries inflate more than this many times their compressed size is treated as a zip bomb.
MAX_ZIP_RATIO = 200
# Byte-order marks, longest first: the UTF-32 LE mark begins with the UTF-16 LE one.
BYTE_ORDER_MARKS = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32 text"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32 text"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8 text"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16 text"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16 text"),
)
# A JSON line nested deeper than this is refused: no record of INTERFACES.md nests more than a few levels, and deeper
# structures would exhaust Python's recursion limit in json and in every function that walks records.
MAX_JSON_DEPTH = 100
# A lone UTF-16 surrogate: what JSON's "\ud800" escape decodes to; not a character, and no UTF-8 encoder writes it.
SURROGATE = re.compile("[\ud800-\udfff]")

RecordT = TypeVar("RecordT", Input, Summary, Document)


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
    size = path.stat().st_size
    _check_size(str(path), size, max_bytes)
    return load_documents_from_bytes(path.name, path.read_bytes(), columns=columns, max_bytes=max_bytes,
                                     source=str(path))


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
    _check_size(source, len(data), max_bytes)
    suffix = Path(filename).suffix.lower()
    if suffix == ".zip":
        documents = _load_zip(source, data, max_bytes=max_bytes)
    elif suffix == ".txt":
        documents = [_text_document(Path(filename).stem, data, source)]
    elif suffix == ".jsonl":
        documents = [_jsonl_document(record, source, line) for line, record in _jsonl_objects(source, data)]
    elif suffix == ".csv":
        documents = _csv_documents(source, data, columns or CsvColumns())
    else:
        raise InputError(source, f"unsupported file type '{suffix or 'none'}'",
                         hint=f"upload one of {', '.join(SUPPORTED_SUFFIXES)}")
    if not documents:
        raise InputError(source, "contains no documents", hint="check that the file is not empty")
    _check_unique_ids(source, documents)
    return documents


def megabytes(max_mb: float) -> int:
    """The bytes of a ``max_mb`` limit (an audit config's ``max_mb``, ``--max-mb``): ``max_mb`` × 1,000,000."""
    return int(max_mb * BYTES_PER_MB)


def describe_limit(max_bytes: int) -> str:
    """'20 MB (20,000,000 bytes)': a size limit in the words every message about it uses."""
    return f"{max_bytes / BYTES_PER_MB:g} MB ({max_bytes:,} bytes)"


def _check_size(source: str, size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise InputError(
            source,
            f"is {size / BYTES_PER_MB:.1f} MB ({size:,} bytes), over the {describe_limit(max_bytes)} limit",
            hint="split the corpus into smaller files, or raise the limit (max_mb in an audit config, --max-mb on "
                 "the command line)",
        )
    if size == 0:
        raise InputError(source, "is empty", hint="choose a file that contains text")


def decode_text(source: str, data: bytes) -> str:
    """Return the text of UTF-8 data, or of UTF-8, UTF-16 or UTF-32 data with a byte-order mark (which is dropped).

    UTF-16 without a byte-order mark (a NUL byte at every other position) is decoded too when it decodes cleanly.
    Other data with NUL bytes or many control characters is refused as binary; other encodings are refused with a
    message to re-save the file as UTF-8.
    """
    if not data.strip():
        raise InputError(source, "is empty", hint="choose a file that contains text")
    # FF FE 00 00 is the UTF-32 LE mark or the UTF-16 LE mark before a NUL character: try both, in that order.
    candidates = [(mark, codec, label) for mark, codec, label in BYTE_ORDER_MARKS if data.startswith(mark)]
    for position, (mark, codec, label) in enumerate(candidates):
        try:
            return _decode_checked(source, data[len(mark):], codec, label)
        except InputError:
            if position == len(candidates) - 1:
                raise
    sample = data[:8192]
    if b"\x00" in sample:
        codec = _bomless_utf16(sample)
        if codec is None:
            raise InputError(source, "looks like a binary file (an image, PDF or archive?), not text",
                             hint="upload plain UTF-8 text, .jsonl, .csv or a .zip of .txt files")
        return _decode_checked(source, data, codec, "UTF-16 text without a byte-order mark")
    if _control_share(sample) > 0.1:
        raise InputError(source, "looks like a binary file (an image, PDF or archive?), not text",
                         hint="upload plain UTF-8 text, .jsonl, .csv or a .zip of .txt files")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(source, f"is not UTF-8 text (invalid byte at offset {error.start})",
                         hint="re-save the file as UTF-8") from None


def _decode_checked(source: str, data: bytes, codec: str, label: str) -> str:
    """Decode ``data`` with ``codec``; refuse undecodable or binary-looking results with a message naming ``label``."""
    try:
        text = data.decode(codec)
    except UnicodeDecodeError as error:
        raise InputError(source, f"looks like {label} but does not decode (invalid data at byte {error.start})",
                         hint="re-save the file as UTF-8") from None
    if "\x00" in text[:8192] or _control_share(text[:8192].encode("utf-8", "surrogatepass")) > 0.1:
        raise InputError(source, f"looks like {label} but holds binary data (NUL or control characters)",
                         hint="re-save the file as UTF-8 text")
    if not text.strip():
        raise InputError(source, "is empty", hint="choose a file that contains text")
    return text


def _bomless_utf16(sample: bytes) -> str | None:
    """The UTF-16 codec of text without a byte-order mark, judged by NUL bytes: mostly Latin-script UTF-16 has a NUL
    as the high byte of nearly every character (odd positions for little-endian, even for big-endian) and nowhere
    else; None for anything else."""
    sample = sample[: len(sample) // 2 * 2]
    if len(sample) < 4:
        return None
    even, odd = sample[0::2], sample[1::2]
    even_nuls, odd_nuls = even.count(0) / len(even), odd.count(0) / len(odd)
    if odd_nuls >= 0.7 and even_nuls == 0:
        return "utf-16-le"
    if even_nuls >= 0.7 and odd_nuls == 0:
        return "utf-16-be"
    return None


def _control_share(sample: bytes) -> float:
    allowed = {9, 10, 12, 13}
    controls = sum(1 for byte in sample if byte < 32 and byte not in allowed)
    return controls / max(1, len(sample))


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
    _check_size(str(folder), total, max_bytes)
    documents = [_text_document(p.stem, p.read_bytes(), str(p)) for p in files]
    _check_unique_ids(str(folder), documents)
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


def _jsonl_objects(source: str, data: bytes | str) -> Iterator[tuple[int, dict[str, Any]]]:
    text = decode_text(source, data) if isinstance(data, bytes) else data
    # Split on line breaks only: str.splitlines() also splits on U+2028, U+0085 etc., which json.dumps(ensure_ascii=
    # False) writes raw inside strings, so a file write_jsonl wrote could not be read back.
    for number, line in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            too_deep = _json_depth(record) > MAX_JSON_DEPTH
        except json.JSONDecodeError as error:
            raise InputError(source, f"is not valid JSON ({error.msg} at column {error.colno})", row=number,
                             hint="each line must be one JSON object") from None
        except RecursionError:  # json's own limit (about 1,000 levels) came first
            too_deep = True
        if too_deep:
            raise InputError(source, f"nests JSON more than {MAX_JSON_DEPTH} levels deep", row=number,
                             hint="each line must be one flat JSON object (INTERFACES.md)")
        if not isinstance(record, dict):
            raise InputError(source, f"holds a JSON {type(record).__name__}, not an object", row=number,
                             hint="each line must be one JSON object")
        surrogate = lone_surrogate(record)
        if surrogate is not None:
            field_name, character = surrogate
            raise InputError(source, f"field '{field_name}' holds \\u{ord(character):04x}, half of a UTF-16 surrogate "
                             "pair, which is not a character", row=number,
                             hint="the tool that wrote the file cut a character in two; fix or remove it and save the "
                                  "file again")
        yield number, record


def lone_surrogate(record: dict[str, Any]) -> tuple[str, str] | None:
    """The field (top-level key) and character of the first lone surrogate in a JSON object's keys or strings, or
    None. JSON's ``\\ud800`` escape parses to a string no UTF-8 encoder accepts: the store, the cache, the app and
    every file written later would fail on it, so it is refused at load (issue 23)."""
    for key, value in record.items():
        stack = [key, value]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                found = SURROGATE.search(item)
                if found:
                    return str(key).encode("utf-8", "backslashreplace").decode("utf-8"), found.group()
            elif isinstance(item, dict):
                stack.extend(item.keys())
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
    return None


def _json_depth(value: Any) -> int:
    """How many levels of objects and arrays ``value`` nests (0 for a scalar), counted without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        if depth > MAX_JSON_DEPTH:
            break
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return deepest


# The fields of a JSONL record that identify it or another record (INTERFACES.md).
ID_FIELDS = ("id", "original_id", "input_id")


def _check_ids(record: dict[str, Any], source: str, line: int) -> None:
    """Refuse an id that is neither non-blank text nor an integer: ``true`` (read as the id "True"), ``""`` and
    ``"   "`` were accepted and showed as blanks on Compare (issue 23)."""
    for key in ID_FIELDS:
        value = record.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, str | int) or isinstance(value, str) and not value.strip():
            raise InputError(source, f"field '{key}' is {json.dumps(value)[:40]}, not an id", row=line,
                             hint="give every record an id of non-blank text or an integer")


def _jsonl_document(record: dict[str, Any], source: str, line: int) -> Document:
    _check_ids(record, source, line)
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


def _check_unique_ids(source: str, records: Iterable[Document | Input]) -> None:
    seen: set[str] = set()
    for record in records:
        if record.id in seen:
            raise InputError(source, f"the id '{record.id}' appears more than once",
                             hint="give every document a unique id")
        seen.add(record.id)


def read_jsonl(path: str | os.PathLike, record_type: type[RecordT]) -> list[RecordT]:
    """Read a JSONL file of inputs, summaries or documents; errors name the line."""
    path = Path(path)
    if not path.is_file():
        raise InputError(str(path), "no such file")
    records = []
    for line, obj in _jsonl_objects(str(path), path.read_bytes()):
        _check_ids(obj, str(path), line)
        try:
            records.append(record_type.from_dict(obj))
        except RecordError as error:
            raise InputError(str(path), str(error), row=line) from None
    if not records:
        raise InputError(str(path), "contains no records")
    return records


def read_inputs(path: str | os.PathLike) -> list[Input]:
    """Read ``inputs.jsonl`` (INTERFACES.md); ids must be unique."""
    inputs = read_jsonl(path, Input)
    _check_unique_ids(str(path), inputs)
    return inputs


def read_summaries(path: str | os.PathLike) -> list[Summary]:
    """Read ``summaries.jsonl`` (INTERFACES.md)."""
    return read_jsonl(path, Summary)


def write_jsonl(path: str | os.PathLike, records: Iterable[Document | Input | Summary]) -> int:
    """Write records as JSONL atomically (a temp file renamed into place); return how many were written."""
    lines = [json.dumps(record.to_dict(), ensure_ascii=False) + "\n" for record in records]
    _atomic_write(Path(path), "".join(lines))
    return len(lines)


def write_measures(path: str | os.PathLike, results: Iterable[MeasureResult]) -> None:
    """Write ``measures.json`` (INTERFACES.md) atomically."""
    payload = {"results": [json_safe(result.to_dict()) for result in results]}
    _atomic_write(Path(path), json.dumps(payload, ensure_ascii=False, indent=1, allow_nan=False) + "\n")


def json_safe(value: Any) -> Any:
    """Replace non-finite floats (nan, inf) anywhere in a structure by None, which JSON can represent."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(item) for item in value]
    return value


def read_measures(path: str | os.PathLike) -> list[MeasureResult]:
    """Read ``measures.json`` (INTERFACES.md)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(str(path), "no such file")
    try:
        payload = json.loads(decode_text(str(path), path.read_bytes()))
        return [MeasureResult.from_dict(item) for item in payload["results"]]
    except (json.JSONDecodeError, KeyError, TypeError, RecordError) as error:
        raise InputError(str(path), f"is not a valid measures file ({error})") from None
    except RecursionError:
        raise InputError(str(path), "is not a valid measures file (JSON nested too deep)") from None


def _atomic_write(path: Path, content: str) -> None:
    from bias_core.safety.validation import output_file

    path = output_file(path)  # through a symbolic link: the link stays, its target is replaced
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(content)
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def text_file(path: str | Path) -> io.StringIO:
    """The text of a file an option names, for ``csv`` or line reading; one ``InputError`` line naming the file when
    it is missing or not text ("is not UTF-8 text", binary, empty), decoded as corpus files are
    (``decode_text``)."""
    file = Path(path)
    if not file.is_file():
        raise InputError(str(path), "no such file")
    try:
        data = file.read_bytes()
    except OSError as error:
        raise InputError(str(path), f"cannot be read ({error.strerror or error})") from None
    return io.StringIO(decode_text(str(path), data), newline="")
