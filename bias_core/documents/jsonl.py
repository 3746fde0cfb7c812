"""JSON Lines parsing shared by the corpus and record readers: one object per line, refusing bad JSON, deep nesting,
lone surrogates, malformed ids and repeated ids, each with one ``InputError`` line naming the row."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from bias_core.common.records import Document, Input
from bias_core.documents.decoding import decode_text
from bias_core.safety.errors import InputError
from bias_core.safety.operator_files import value_depth

# A JSON line nested deeper than this is refused: no record of INTERFACES.md nests more than a few levels, and deeper
# structures would exhaust Python's recursion limit in json and in every function that walks records.
MAX_JSON_DEPTH = 100
# A lone UTF-16 surrogate: what JSON's "\ud800" escape decodes to; not a character, and no UTF-8 encoder writes it.
SURROGATE = re.compile("[\ud800-\udfff]")


def jsonl_objects(source: str, data: bytes | str) -> Iterator[tuple[int, dict[str, Any]]]:
    text = decode_text(source, data) if isinstance(data, bytes) else data
    # Split on line breaks only: str.splitlines() also splits on U+2028, U+0085 etc., which json.dumps(ensure_ascii=
    # False) writes raw inside strings, so a file write_jsonl wrote could not be read back.
    for number, line in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            too_deep = value_depth(record, MAX_JSON_DEPTH) > MAX_JSON_DEPTH
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


# The fields of a JSONL record that identify it or another record (INTERFACES.md).
ID_FIELDS = ("id", "original_id", "input_id")


def check_ids(record: dict[str, Any], source: str, line: int) -> None:
    """Refuse an id that is neither non-blank text nor an integer: ``true`` (read as the id "True"), ``""`` and
    ``"   "`` were accepted and showed as blanks on Compare (issue 23)."""
    for key in ID_FIELDS:
        value = record.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, str | int) or isinstance(value, str) and not value.strip():
            raise InputError(source, f"field '{key}' is {json.dumps(value)[:40]}, not an id", row=line,
                             hint="give every record an id of non-blank text or an integer")


def check_unique_ids(source: str, records: Iterable[Document | Input]) -> None:
    seen: set[str] = set()
    for record in records:
        if record.id in seen:
            raise InputError(source, f"the id '{record.id}' appears more than once",
                             hint="give every document a unique id")
        seen.add(record.id)
