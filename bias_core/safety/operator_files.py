"""Bounded reading of the files an operator names (issue 30): the endpoints file, an audit config.

Each is read only if it is a regular file (not a device such as ``/dev/zero``, a named pipe or a folder), at most a
size limit of it (``limit + 1`` bytes are read, so a file that grows while it is read is caught too), and its TOML or
JSON is parsed only after a scan that never recurses has found no nesting deeper than ``NESTING_MAX`` levels of
brackets, braces or dotted keys. ``tomllib`` recurses once per level of nesting and takes time quadratic in the
parts of a dotted key (a 100,000-part key ran for minutes): both are refused before it runs. Every breach is one
``InputError`` line naming the file and the limit.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tomllib
from typing import Any

from bias_core.safety.errors import InputError

# Levels of tables, lists and dotted-key parts: an audit config uses five or six, an endpoints file three.
NESTING_MAX = 32
# The characters the nesting scan stops at: quotes, comments, brackets, braces and dots; all else is skipped in C.
_SPECIAL = re.compile(r"[\"'#\[\]{}.]")
# What ends a dotted key between two dots: a new line, an assignment or a separator (``x = [1.5, 2.5]``).
_KEY_BREAK = re.compile(r"[\n=,]")
_BASIC_STRING_STOP = re.compile(r"[\"\\\n]")
_LITERAL_STRING_STOP = re.compile(r"['\n]")
_MULTILINE_BASIC_STOP = re.compile(r'\\.|"""', re.DOTALL)
_FILE_KINDS = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
               (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"))


def read_operator_file(path: str | os.PathLike, *, what: str, max_bytes: int, hint: str | None = None) -> bytes:
    """The bytes of the regular file ``path`` (``what`` names it in messages, e.g. "endpoints file").

    Raises ``InputError`` (naming the file, and the limit where one was passed) for a missing file, a folder, a
    device, pipe or socket, a file that cannot be read, and a file over ``max_bytes``.
    """
    source = str(path)
    try:
        status = os.stat(path)
    except FileNotFoundError:
        raise InputError(source, f"cannot read the {what}: no such file", hint=hint) from None
    except (OSError, ValueError) as error:  # ValueError: a NUL byte in the path
        raise InputError(source, f"cannot read the {what} ({_reason(error)})", hint=hint) from None
    _check_regular(source, status, what, hint)
    if status.st_size > max_bytes:
        raise _too_large(source, what, max_bytes, hint, status.st_size)
    try:
        # O_NONBLOCK: a path swapped for a named pipe after the check above does not block the open.
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise InputError(source, f"cannot read the {what} ({_reason(error)})", hint=hint) from None
    try:
        _check_regular(source, os.fstat(descriptor), what, hint)  # what was opened, not what was looked at
        chunks: list[bytes] = []
        left = max_bytes + 1
        while left > 0:
            chunk = os.read(descriptor, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as error:
        raise InputError(source, f"cannot read the {what} ({_reason(error)})", hint=hint) from None
    finally:
        os.close(descriptor)
    data = b"".join(chunks)
    if len(data) > max_bytes:  # it grew after it was looked at
        raise _too_large(source, what, max_bytes, hint)
    return data


def load_operator_file(path: str | os.PathLike, *, what: str, max_bytes: int, kind: str = "TOML",
                       hint: str | None = None) -> Any:
    """The parsed TOML (``kind="TOML"``) or JSON (``kind="JSON"``) of the operator's file ``path``, read by
    ``read_operator_file`` and refused when nested more than ``NESTING_MAX`` levels deep (checked before parsing,
    without recursion, and again on the parsed value)."""
    source = str(path)
    data = read_operator_file(path, what=what, max_bytes=max_bytes, hint=hint)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(source, f"is not UTF-8 text (invalid byte at offset {error.start})",
                         hint=hint or "re-save the file as UTF-8") from None
    too_deep = InputError(source, f"is nested too deeply to read as {kind} (more than {NESTING_MAX} levels of "
                                  "tables, lists or dotted keys)", hint=hint)
    if nesting_depth(text) > NESTING_MAX:
        raise too_deep
    try:
        value = json.loads(text) if kind == "JSON" else tomllib.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as error:
        raise InputError(source, f"is not valid {kind} ({error})", hint=hint) from None
    except RecursionError:  # not reached after the scan above; kept so that no parser's recursion escapes
        raise too_deep from None
    if value_depth(value) > NESTING_MAX:
        raise too_deep
    return value


def nesting_depth(text: str, stop_above: int = NESTING_MAX) -> int:
    """The deepest nesting of brackets and braces in TOML or JSON ``text``, or the most parts of one dotted key
    if more, outside strings and comments; the scan stops as soon as it passes ``stop_above``. Linear in the
    text and free of recursion (strings are skipped with ``str.find`` and regular expressions)."""
    depth = deepest = 0
    key_parts, last_dot = 1, -1
    position, end = 0, len(text)
    while deepest <= stop_above:
        found = _SPECIAL.search(text, position)
        if found is None:
            break
        character, position = found.group(), found.end()
        if character in "[{":
            depth += 1
            deepest = max(deepest, depth)
            last_dot = -1
        elif character in "]}":
            depth = max(0, depth - 1)
            last_dot = -1
        elif character == "#":
            line_end = text.find("\n", position)
            position = end if line_end < 0 else line_end
            last_dot = -1
        elif character == ".":
            key_parts = key_parts + 1 if last_dot >= 0 and not _KEY_BREAK.search(text, last_dot, position) else 2
            last_dot = position
            deepest = max(deepest, key_parts)
        else:
            position = _string_end(text, position, character)
    return deepest


def _string_end(text: str, position: int, quote: str) -> int:
    """Where the string opened by ``quote`` just before ``position`` ends (the end of the line when it does not)."""
    end = len(text)
    if text.startswith(quote * 2, position):  # ''' or """: a multi-line string
        if quote == "'":
            close = text.find("'''", position + 2)
            return end if close < 0 else close + 3
        position += 2
        while True:
            found = _MULTILINE_BASIC_STOP.search(text, position)
            if found is None:
                return end
            position = found.end()
            if found.group() == '"""':
                return position
    if quote == "'":
        found = _LITERAL_STRING_STOP.search(text, position)
        return end if found is None else found.end()
    while True:
        found = _BASIC_STRING_STOP.search(text, position)
        if found is None:
            return end
        position = found.end() + (1 if found.group() == "\\" else 0)
        if found.group() != "\\":
            return position


def value_depth(value: Any, stop_above: int = NESTING_MAX) -> int:
    """How deeply a parsed value nests tables (dicts) and lists (0 for a scalar), counted without recursion; the
    count stops once it passes ``stop_above``."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        if deepest > stop_above:
            break
        stack.extend((child, level + 1) for child in children)
    return deepest


def _check_regular(source: str, status: os.stat_result, what: str, hint: str | None) -> None:
    if stat.S_ISREG(status.st_mode):
        return
    if stat.S_ISDIR(status.st_mode):
        raise InputError(source, f"cannot read the {what}: it is a folder, not a file", hint=hint)
    kind = next((name for test, name in _FILE_KINDS if test(status.st_mode)), "not a regular file")
    raise InputError(source, f"cannot read the {what}: it is {kind}, not a regular file; only a regular file is read",
                     hint=hint)


def _too_large(source: str, what: str, max_bytes: int, hint: str | None, size: int | None = None) -> InputError:
    size_words = f"is {size:,} bytes, over" if size is not None else "is over"
    return InputError(source, f"the {what} {size_words} its limit of {max_bytes:,} bytes", hint=hint)


def _reason(error: BaseException) -> str:
    return (error.strerror if isinstance(error, OSError) and error.strerror else str(error)) or type(error).__name__
