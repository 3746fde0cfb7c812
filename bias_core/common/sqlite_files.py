"""Open the SQLite files summbias keeps (the run store and the summary cache) without ever damaging them.

Before anything is written, a file is checked in this order: it is a file (not a folder), it is an SQLite database,
its schema version (``PRAGMA user_version``) is one this code reads, its pages are intact (``PRAGMA quick_check``,
skipped above ``QUICK_CHECK_MAX_BYTES`` where errors are caught on first use instead), and its tables have exactly the
expected columns. A file that fails any check is left as it was and the caller gets one line naming the file and what
to do. A file with the right tables but no version (written before versions existed) is stamped with the current one.
"""

from __future__ import annotations

import os
import sqlite3
import urllib.parse
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bias_core.safety.errors import BiasCoreError

# quick_check reads every page: 0.08 s at 16 MB, 0.27 s at 100 MB, 1.4 s at 300 MB on the 2-core reference machine
# (benchmarks/sqlite_open.py); above this size damage is caught on first use instead.
QUICK_CHECK_MAX_BYTES = 256 * 2**20


@dataclass(frozen=True)
class SchemaSpec:
    """What one kind of file must hold, and how its errors are worded."""

    kind: str  # "run store", "summary cache": the file's name in messages
    schema: str  # CREATE statements, separated by ";" and all "IF NOT EXISTS"
    version: int  # written to PRAGMA user_version; files with a higher one are refused
    option: str  # the command-line option that picks another file, e.g. "--store"
    damaged_hint: str  # what to do with a damaged file; "{path}" is replaced by the file's path
    error: type[BiasCoreError]
    # Tables added by a later version (table -> the version that added it): a file of an earlier version lacks them,
    # and opening it for writing creates them and stamps the new version.
    added: tuple[tuple[str, int], ...] = ()


@cache
def expected_columns(schema: str) -> dict[str, tuple[str, ...]]:
    """Each table of ``schema`` with its column names in order, read from an in-memory database built from it."""
    connection = sqlite3.connect(":memory:")
    try:
        connection.executescript(schema)
        tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {table: tuple(row[1] for row in connection.execute(f"PRAGMA table_info({table})"))
                for table in tables}
    finally:
        connection.close()


# The first 16 bytes of every SQLite database file.
SQLITE_HEADER = b"SQLite format 3\x00"


def has_sqlite_header(path: Path) -> bool:
    """Whether the file starts as every SQLite database does (False for text, other formats or an empty file)."""
    with path.open("rb") as stream:
        return stream.read(len(SQLITE_HEADER)) == SQLITE_HEADER


def _uri(path: Path, mode: str) -> str:
    return "file:" + urllib.parse.quote(str(path.absolute())) + f"?mode={mode}"


def damaged_message(spec: SchemaSpec, path: Path, detail: object) -> str:
    """One line: the file is damaged (``detail``, whitespace collapsed, at most 300 characters) and what to do."""
    detail = " ".join(str(detail).split())
    detail = detail if len(detail) <= 300 else detail[:299] + "…"
    return f"the {spec.kind} {path} is damaged ({detail}) — {spec.damaged_hint.format(path=path)}"


def describe_error(spec: SchemaSpec, path: Path, error: sqlite3.Error, doing: str) -> str:
    """One line for an sqlite3 error met while ``doing`` (e.g. "writing to"): damage, read-only or other."""
    text = str(error)
    if any(word in text for word in ("malformed", "not a database", "database corrupt", "Could not decode")):
        return damaged_message(spec, path, text)
    if "readonly" in text or "read-only" in text:
        return (f"the {spec.kind} {path} is read-only ({text}) — make it and its folder writable or choose "
                f"another {spec.option}")
    return f"{doing} the {spec.kind} {path} failed: {text}"


def rollback(connection: sqlite3.Connection) -> None:
    """Roll back an open transaction; SQLite may already have rolled back (e.g. after a full disk)."""
    if connection.in_transaction:
        try:
            connection.execute("ROLLBACK")
        except sqlite3.Error:  # nothing is left to undo
            pass


def open_database(path: Path, spec: SchemaSpec, *, timeout: float, read_only: bool = False) -> sqlite3.Connection:
    """Return a connection (autocommit, WAL where writable) to a checked file, creating it unless ``read_only``.

    A file this process may not write is opened read-only: reading works, and the first write raises one line
    saying the file is read-only. Raises ``spec.error`` for every problem; the file is never modified then.
    """
    if path.is_dir():
        raise spec.error(f"the {spec.kind} {path} is a folder, not a file — choose a file with {spec.option}")
    exists = path.exists()
    if read_only and not exists:
        raise spec.error(f"there is no {spec.kind} at {path} — check the path or choose another with {spec.option}")
    if not exists:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise spec.error(f"cannot open the {spec.kind} {path}: cannot create its folder ({error})") from None
    writable = not read_only and (not exists or (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)))
    connection = _connect(path, "rwc" if writable else "ro", spec, timeout)
    if not writable and not _readable_in_wal(connection) and not path.with_name(path.name + "-wal").exists():
        # A WAL-mode file in a folder we may not write: SQLite cannot create the -shm index it needs to read it.
        # With no -wal file the main file holds every committed write, so read it directly ("immutable").
        connection.close()
        connection = _connect(path, "ro&immutable=1", spec, timeout)
    try:
        _check(connection, path, spec)
        if writable:
            _prepare(connection, spec)
    except sqlite3.Error as error:
        connection.close()
        raise spec.error(describe_error(spec, path, error, "opening")) from None
    except BaseException:
        connection.close()
        raise
    return connection


def _connect(path: Path, mode: str, spec: SchemaSpec, timeout: float) -> sqlite3.Connection:
    try:
        connection = sqlite3.connect(_uri(path, mode), uri=True, timeout=timeout, check_same_thread=False,
                                     isolation_level=None)
        connection.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
    except sqlite3.Error as error:
        raise spec.error(f"cannot open the {spec.kind} {path}: {error}") from None
    return connection


def _readable_in_wal(connection: sqlite3.Connection) -> bool:
    """False only when reading fails because SQLite may not create a WAL file's -shm index (read-only folder)."""
    try:
        connection.execute("PRAGMA user_version").fetchone()
    except sqlite3.OperationalError as error:
        return "readonly" not in str(error) and "unable to open" not in str(error)
    except sqlite3.DatabaseError:
        return True  # not a database at all: _check says so
    return True


def _check(connection: sqlite3.Connection, path: Path, spec: SchemaSpec) -> None:
    """Raise ``spec.error`` unless the file is a database of a version we read, undamaged, with our tables."""
    try:
        version = connection.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.OperationalError:
        raise  # locked, read-only, cannot open: worded by describe_error
    except sqlite3.DatabaseError as error:
        if "not a database" not in str(error):
            raise spec.error(damaged_message(spec, path, error)) from None
        if not has_sqlite_header(path):  # text or another format: nothing of ours to repair or move aside
            raise spec.error(f"{path} is not a {spec.kind} ({error}: not an SQLite file) — check the path or "
                             f"choose another {spec.option}") from None
        raise spec.error(f"{path} is not a {spec.kind} ({error}: its first page is damaged) "
                         f"— {spec.damaged_hint.format(path=path)}") from None
    if version > spec.version:
        raise spec.error(f"the {spec.kind} {path} was written by a newer summbias (schema {version}, this version "
                         f"reads up to {spec.version}) — upgrade summbias or choose another {spec.option}")
    if path.stat().st_size <= QUICK_CHECK_MAX_BYTES:
        problems = [row[0] for row in connection.execute("PRAGMA quick_check(3)").fetchall()]
        if problems != ["ok"]:
            raise spec.error(damaged_message(spec, path, "; ".join(problems)))
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        if version:
            raise spec.error(damaged_message(spec, path, f"schema {version} but no tables"))
        return  # a new, empty file: _prepare creates the tables
    added = dict(spec.added)
    for table, columns in expected_columns(spec.schema).items():
        if table not in tables and added.get(table, 1) > max(version, 1):
            continue  # added after this file's version: created when the file is opened for writing
        if table not in tables:
            raise spec.error(f"the {spec.kind} {path} has no table '{table}', so it was not written by this "
                             f"summbias — choose another {spec.option}")
        found = tuple(row[1] for row in connection.execute(f"PRAGMA table_info({table})"))
        if found != columns:
            missing = [c for c in columns if c not in found]
            unexpected = [c for c in found if c not in columns]
            raise spec.error(f"the {spec.kind} {path} has an unexpected table '{table}' (missing columns: "
                             f"{', '.join(missing) or 'none'}; unexpected: {', '.join(unexpected) or 'none'}), so it "
                             f"was not written by this summbias — choose another {spec.option}")


def _prepare(connection: sqlite3.Connection, spec: SchemaSpec) -> None:
    """Switch to WAL, create missing tables and stamp the schema version, in one write transaction."""
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    connection.execute("BEGIN IMMEDIATE")
    try:
        for statement in spec.schema.split(";"):
            if statement.strip():
                connection.execute(statement)
        if connection.execute("PRAGMA user_version").fetchone()[0] != spec.version:
            connection.execute(f"PRAGMA user_version = {int(spec.version)}")
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise
