"""The summary cache: SQLite in WAL mode, keyed by everything that determines a summary (METHODS §2).

The key hashes the summarizer id, model revision, parameters, prompt version, input text and code version. Only
successful summaries are stored; failures are never cached, so a retry always calls the model again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Iterable
from pathlib import Path

from bias_core import __version__
from bias_core.common.records import Input, RecordError, Summary
from bias_core.common.sqlite_files import (
    SchemaSpec,
    describe_error,
    expected_columns,
    has_sqlite_header,
    open_database,
    rollback,
)
from bias_core.safety.errors import BiasCoreError
from bias_core.summarize.base import Summarizer

logger = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS summaries (
    key TEXT PRIMARY KEY,
    summarizer TEXT NOT NULL,
    summary TEXT NOT NULL,
    created REAL NOT NULL
)
"""

# The cache's schema version (PRAGMA user_version); raise it with every change to _SCHEMA. Caches written before
# versions existed (user_version 0, same table) are version 1.
SCHEMA_VERSION = 1

RESET_COMMAND = "python -m bias_core cache --reset --cache {path}"


class CacheError(BiasCoreError):
    """The summary cache cannot be opened, read or written (damaged, newer schema, read-only, a folder)."""


CACHE_SCHEMA = SchemaSpec(
    kind="summary cache", schema=_SCHEMA, version=SCHEMA_VERSION, option="--cache",
    damaged_hint=f"move it aside and start a fresh cache with `{RESET_COMMAND}`", error=CacheError)


def default_cache_path() -> Path:
    """The cache file: ``$SUMMBIAS_CACHE`` if set, else ``summaries.sqlite`` in the user's cache folder."""
    from platformdirs import user_cache_dir

    return Path(os.environ.get("SUMMBIAS_CACHE") or Path(user_cache_dir("summbias")) / "summaries.sqlite")


def cache_key(summarizer: Summarizer, item: Input) -> str:
    """Return the hex SHA-256 of everything that determines this summarizer's output on this input: for a
    summarizer that reads the original (``reads_original``), the original text of a perturbed input too."""
    material = {
        "summarizer": summarizer.name,
        "revision": summarizer.revision(),
        "parameters": summarizer.parameters(),
        "prompt_version": summarizer.prompt_version,
        "code_version": f"{__version__}/{summarizer.code_version}",
        "text": item.text,
    }
    if summarizer.reads_original and item.substitutions:
        try:
            material["original"] = item.original_text()
        except RecordError:
            pass  # a map that does not describe the text: the summarizer splits the text as it stands
    return hashlib.sha256(json.dumps(material, sort_keys=True, default=str).encode()).hexdigest()


class SummaryCache:
    """A process- and thread-safe key → summary store; a hit is one indexed SELECT.

    Opening checks the file (``bias_core.common.sqlite_files``); a damaged cache raises one ``CacheError`` line naming
    ``python -m bias_core cache --reset``, which moves it aside so the next run rebuilds it.
    """

    def __init__(self, path: str | os.PathLike | None = None, *, read_only: bool = False):
        self.path = Path(path) if path else default_cache_path()
        self._lock = threading.Lock()
        self._connection = open_database(self.path, CACHE_SCHEMA, timeout=60, read_only=read_only)

    def _error(self, error: sqlite3.Error, doing: str) -> CacheError:
        return CacheError(describe_error(CACHE_SCHEMA, self.path, error, doing))

    def get_many(self, keys: Iterable[str]) -> dict[str, Summary]:
        """Return the cached summaries among ``keys`` (input ids as stored; callers re-point them)."""
        keys = list(dict.fromkeys(keys))
        found: dict[str, Summary] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                placeholders = ",".join("?" * len(chunk))
                try:
                    rows = self._connection.execute(
                        f"SELECT key, summary FROM summaries WHERE key IN ({placeholders})", chunk
                    ).fetchall()
                except sqlite3.Error as error:
                    raise self._error(error, "reading") from None
                for key, blob in rows:
                    try:
                        found[key] = Summary.from_dict(json.loads(blob))
                    except (ValueError, TypeError, RecordError) as error:
                        # A cache entry is only ever a shortcut: an unreadable one is recomputed and overwritten.
                        logger.warning("ignoring an unreadable entry of the summary cache %s (%s)", self.path, error)
        return found

    def put_many(self, items: Iterable[tuple[str, Summary]]) -> None:
        """Store successful summaries under their keys in one transaction."""
        rows = [(key, summary.summarizer, json.dumps(summary.to_dict(), ensure_ascii=False), time.time())
                for key, summary in items]
        if not rows:
            return
        with self._lock:
            try:
                self._connection.execute("BEGIN IMMEDIATE")
                self._connection.executemany(
                    "INSERT OR REPLACE INTO summaries (key, summarizer, summary, created) VALUES (?, ?, ?, ?)", rows
                )
                self._connection.execute("COMMIT")
            except sqlite3.Error as error:
                rollback(self._connection)
                raise self._error(error, "writing to") from None
            except BaseException:
                rollback(self._connection)
                raise

    def __len__(self) -> int:
        with self._lock:
            try:
                return self._connection.execute("SELECT COUNT(*) FROM summaries").fetchone()[0]
            except sqlite3.Error as error:
                raise self._error(error, "reading") from None

    def close(self) -> None:
        with self._lock:
            self._connection.close()


def not_a_cache(path: Path) -> str | None:
    """Why the file at ``path`` is not a summary cache, or None when it is one (or may be a damaged one): a cache
    is an SQLite file whose tables, where they can be read, are the cache's own (``_SCHEMA``). Read without writing
    anything (``immutable``: no -wal/-shm is made or read); an empty file or one with no tables yet is a new cache."""
    if path.stat().st_size == 0:
        return None
    if not has_sqlite_header(path):
        return "not an SQLite file"
    uri = "file:" + urllib.parse.quote(str(path.absolute())) + "?mode=ro&immutable=1"
    try:
        connection = sqlite3.connect(uri, uri=True)
    except sqlite3.Error:
        return None  # damaged beyond opening: what --reset is for
    try:
        names = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        tables = {name: tuple(row[0] for row in connection.execute("SELECT name FROM pragma_table_info(?)", (name,)))
                  for name in names}
    except sqlite3.Error:
        return None  # its schema cannot be read: a damaged file, and --cache named it
    finally:
        connection.close()
    expected = expected_columns(CACHE_SCHEMA.schema)
    if any(tables.get(name, columns) != columns for name, columns in expected.items()) or set(tables) - set(expected):
        return f"it holds the tables {', '.join(sorted(tables))}"
    return None


def move_cache_aside(path: str | os.PathLike | None = None) -> Path | None:
    """Rename the cache file and its ``-wal``/``-shm`` to ``<name>.corrupt-<timestamp>`` (keeping the suffixes, so
    SQLite can still open the moved copy) and return the new name; None if there was no file. The next open starts
    an empty cache, which audits then refill."""
    path = Path(path) if path else default_cache_path()
    if path.is_dir():
        raise CacheError(f"the summary cache {path} is a folder, not a file — choose a file with --cache")
    if not path.exists():
        return None
    problem = not_a_cache(path)
    if problem:
        raise CacheError(f"{path} is not a summary cache ({problem}), so --reset leaves it as it is — check the "
                         "path given to --cache")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    counter = 1
    while target.exists():
        counter += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{counter}")
    try:  # side files first: a fresh cache must never meet the old write-ahead log
        for suffix in ("-wal", "-shm"):
            side = path.with_name(path.name + suffix)
            if side.exists():
                os.rename(side, target.with_name(target.name + suffix))
        os.rename(path, target)
    except OSError as error:
        raise CacheError(f"cannot move the summary cache {path} aside: {error}") from None
    return target


def hit_meta(meta: dict | None) -> dict:
    """The meta of a summary read from the cache: the usage of the request that made it moves to ``cached_usage``,
    so a run that only read the summary is not counted as having spent its tokens (``runs.usage``)."""
    meta = dict(meta or {})
    usage = meta.pop("usage", None)
    if isinstance(usage, dict):
        meta["cached_usage"] = usage
    return meta
