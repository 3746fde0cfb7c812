"""The run store's SQLite schema: its tables (``SCHEMA``), their version (``SCHEMA_VERSION``) and what the checks on
opening need to know of them (``STORE_SCHEMA``)."""

from __future__ import annotations

from bias_core.common.sqlite_files import SchemaSpec
from bias_core.runs.run_info import StoreError

# The store's schema version (PRAGMA user_version). Raise it with every change to SCHEMA; a store written by a
# higher version is refused rather than written into. Stores written before versions existed (user_version 0, same
# tables) are version 1. Version 2 added ``views`` (what the result pages need first, ``views.precomputed``),
# version 3 ``owners`` (who launched a run from the app with sign-in on, ``runs.access``).
SCHEMA_VERSION = 3

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY,
    name TEXT,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    status TEXT NOT NULL,
    config TEXT NOT NULL,
    config_hash TEXT NOT NULL,
    environment TEXT NOT NULL,
    model_revisions TEXT NOT NULL DEFAULT '{}',
    stage TEXT,
    progress_done INTEGER NOT NULL DEFAULT 0,
    progress_total INTEGER NOT NULL DEFAULT 0,
    message TEXT,
    worker_pid INTEGER,
    reports TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS documents (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    doc_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (run_id, doc_id)
);
CREATE TABLE IF NOT EXISTS inputs (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    input_id TEXT NOT NULL,
    original_id TEXT NOT NULL,
    perturbation TEXT NOT NULL,
    position INTEGER NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (run_id, input_id)
);
CREATE TABLE IF NOT EXISTS summaries (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    input_id TEXT NOT NULL,
    summarizer TEXT NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (run_id, input_id, summarizer)
);
CREATE TABLE IF NOT EXISTS failures (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    input_id TEXT NOT NULL,
    summarizer TEXT NOT NULL,
    error TEXT NOT NULL,
    PRIMARY KEY (run_id, input_id, summarizer)
);
CREATE TABLE IF NOT EXISTS measures (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (run_id, position)
);
CREATE TABLE IF NOT EXISTS views (
    run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    fingerprint TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS owners (
    run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    subject TEXT NOT NULL,
    label TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_config ON runs(config_hash, status);
"""


STORE_SCHEMA = SchemaSpec(
    kind="run store", schema=SCHEMA, version=SCHEMA_VERSION, option="--store",
    damaged_hint="move it aside (e.g. `mv {path} {path}.corrupt`) or choose another --store",
    error=StoreError, added=(("views", 2), ("owners", 3)))
