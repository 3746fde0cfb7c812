"""The summary cache: SQLite in WAL mode, keyed by everything that determines a summary (METHODS §2).

The key hashes the summarizer id, model revision, parameters, prompt version, input text and code version. Only
successful summaries are stored; failures are never cached, so a retry always calls the model again.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from bias_core import __version__
from bias_core.records import Input, Summary
from bias_core.summarize.base import Summarizer

_SCHEMA = """
CREATE TABLE IF NOT EXISTS summaries (
    key TEXT PRIMARY KEY,
    summarizer TEXT NOT NULL,
    summary TEXT NOT NULL,
    created REAL NOT NULL
)
"""


def default_cache_path() -> Path:
    """The cache file: ``$SUMMBIAS_CACHE`` if set, else ``summaries.sqlite`` in the user's cache folder."""
    from platformdirs import user_cache_dir

    return Path(os.environ.get("SUMMBIAS_CACHE") or Path(user_cache_dir("summbias")) / "summaries.sqlite")


def cache_key(summarizer: Summarizer, item: Input) -> str:
    """Return the hex SHA-256 of everything that determines this summarizer's output on this input."""
    material = {
        "summarizer": summarizer.name,
        "revision": summarizer.revision(),
        "parameters": summarizer.parameters(),
        "prompt_version": summarizer.prompt_version,
        "code_version": f"{__version__}/{summarizer.code_version}",
        "text": item.text,
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True, default=str).encode()).hexdigest()


class SummaryCache:
    """A process- and thread-safe key → summary store; a hit is one indexed SELECT."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path else default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._connection = sqlite3.connect(self.path, timeout=60, check_same_thread=False, isolation_level=None)
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.execute("PRAGMA synchronous=NORMAL")
        self._connection.execute(_SCHEMA)

    def get_many(self, keys: Iterable[str]) -> dict[str, Summary]:
        """Return the cached summaries among ``keys`` (input ids as stored; callers re-point them)."""
        keys = list(dict.fromkeys(keys))
        found: dict[str, Summary] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                placeholders = ",".join("?" * len(chunk))
                rows = self._connection.execute(
                    f"SELECT key, summary FROM summaries WHERE key IN ({placeholders})", chunk
                ).fetchall()
                found.update({key: Summary.from_dict(json.loads(blob)) for key, blob in rows})
        return found

    def put_many(self, items: Iterable[tuple[str, Summary]]) -> None:
        """Store successful summaries under their keys in one transaction."""
        rows = [(key, summary.summarizer, json.dumps(summary.to_dict(), ensure_ascii=False), time.time())
                for key, summary in items]
        if not rows:
            return
        with self._lock:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                self._connection.executemany(
                    "INSERT OR REPLACE INTO summaries (key, summarizer, summary, created) VALUES (?, ?, ?, ?)", rows
                )
                self._connection.execute("COMMIT")
            except BaseException:
                self._connection.execute("ROLLBACK")
                raise

    def __len__(self) -> int:
        with self._lock:
            return self._connection.execute("SELECT COUNT(*) FROM summaries").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._connection.close()
