"""The record files of INTERFACES.md: reading and writing inputs, summaries and documents as JSONL and measure results
as ``measures.json``, each written atomically."""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar

from bias_core.common.records import Document, Input, MeasureResult, RecordError, Summary
from bias_core.documents.decoding import DEFAULT_MAX_BYTES, decode_text, read_named_file
from bias_core.documents.jsonl import check_ids, check_unique_ids, jsonl_objects
from bias_core.safety.errors import InputError

RecordT = TypeVar("RecordT", Input, Summary, Document)


def read_jsonl(path: str | os.PathLike, record_type: type[RecordT],
               max_bytes: int = DEFAULT_MAX_BYTES) -> list[RecordT]:
    """Read a JSONL file of inputs, summaries or documents; errors name the line. Only a regular file of at most
    ``max_bytes`` (the documents' limit; ``--max-mb``) is read (``read_named_file``)."""
    path = Path(path)
    records = []
    for line, obj in jsonl_objects(str(path), read_named_file(path, max_bytes)):
        check_ids(obj, str(path), line)
        try:
            records.append(record_type.from_dict(obj))
        except RecordError as error:
            raise InputError(str(path), str(error), row=line) from None
    if not records:
        raise InputError(str(path), "contains no records")
    return records


def read_inputs(path: str | os.PathLike, max_bytes: int = DEFAULT_MAX_BYTES) -> list[Input]:
    """Read ``inputs.jsonl`` (INTERFACES.md); ids must be unique."""
    inputs = read_jsonl(path, Input, max_bytes)
    check_unique_ids(str(path), inputs)
    return inputs


def read_summaries(path: str | os.PathLike, max_bytes: int = DEFAULT_MAX_BYTES) -> list[Summary]:
    """Read ``summaries.jsonl`` (INTERFACES.md)."""
    return read_jsonl(path, Summary, max_bytes)


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


def read_measures(path: str | os.PathLike, max_bytes: int = DEFAULT_MAX_BYTES) -> list[MeasureResult]:
    """Read ``measures.json`` (INTERFACES.md): a regular file of at most ``max_bytes`` (``read_named_file``)."""
    data = read_named_file(path, max_bytes)
    try:
        payload = json.loads(decode_text(str(path), data))
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
