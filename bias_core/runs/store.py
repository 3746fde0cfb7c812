"""The run store: one SQLite file (WAL) holding every audit run and its records (runs, documents, inputs,
summaries, failures, measure results).

Every write is one transaction, so a run killed mid-write leaves the store consistent; progress is written to the
store, so the app (or a second terminal) can follow a run it did not start. Several processes may write at once:
WAL mode and a generous busy timeout serialise them without "database is locked" errors.

A run is worked on by one process at a time: ``claim_run`` records the worker (its process id and start time) in
the same transaction that checks that no other live process holds the run. A worker is alive while a process with
that id *and* that start time exists, so a dead worker whose id now belongs to another process is seen as dead.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from bias_core.common.records import Document, Input, MeasureResult, Summary
from bias_core.common.sqlite_files import damaged_message, describe_error, open_database, rollback
from bias_core.runs.run_info import (
    STATUSES,
    Owner,
    RunBusyError,
    RunInfo,
    StoreError,
    damaged_run,
    decode_run,
    run_problem,
    worker_record,
)
from bias_core.runs.store_schema import STORE_SCHEMA
from bias_core.runs.usage import TokenUsage

T = TypeVar("T")
# Every column of a run's row, with its owner's subject and label (NULL: the operator's run); the second for a store
# opened read-only that predates owners (schema 2).
_RUNS_WITH_OWNERS = ("SELECT runs.*, owners.subject AS owner, owners.label AS owner_label FROM runs "
                     "LEFT JOIN owners ON owners.run_id = runs.id")
_RUNS_WITHOUT_OWNERS = "SELECT runs.*, NULL AS owner, NULL AS owner_label FROM runs"


def default_store_path() -> Path:
    """The store file: ``$SUMMBIAS_STORE`` if set, else ``runs.sqlite`` in the user's data folder."""
    from platformdirs import user_data_dir

    return Path(os.environ.get("SUMMBIAS_STORE") or Path(user_data_dir("summbias")) / "runs.sqlite")


class RunStore:
    """Read and write runs; safe to share between threads and between processes.

    ``read_only`` opens an existing store without creating or stamping anything (``runs`` and ``export`` use it).
    Opening checks the file first (``bias_core.common.sqlite_files``): a newer schema, a damaged file, a folder or a
    file with other tables raises one ``StoreError`` line and leaves the file untouched.
    """

    def __init__(self, path: str | os.PathLike | None = None, *, read_only: bool = False):
        self.path = Path(path) if path else default_store_path()
        self.read_only = read_only
        self._connection = open_database(self.path, STORE_SCHEMA, timeout=120, read_only=read_only)
        try:
            self._connection.execute("PRAGMA foreign_keys=ON")
            # Deleted and replaced records are overwritten with zeros, so a deleted run leaves no text in free space.
            self._connection.execute("PRAGMA secure_delete=ON")
        except sqlite3.Error as error:
            self._connection.close()
            raise StoreError(describe_error(STORE_SCHEMA, self.path, error, "opening")) from None
        owners = self._read("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'owners'")
        self._runs = _RUNS_WITH_OWNERS if owners else _RUNS_WITHOUT_OWNERS

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        try:
            self._connection.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise StoreError(describe_error(STORE_SCHEMA, self.path, error, "starting a write to")) from None
        try:
            yield self._connection
            self._connection.execute("COMMIT")
        except sqlite3.Error as error:
            rollback(self._connection)
            raise StoreError(describe_error(STORE_SCHEMA, self.path, error, "writing to")) from None
        except BaseException:
            rollback(self._connection)
            raise

    def _read(self, query: str, params: tuple[Any, ...] = (), *, rows: bool = False) -> list[Any]:
        """Run one SELECT and return all its rows (``sqlite3.Row`` if ``rows``); damage found here, in a file too
        big to check on open, becomes one StoreError line."""
        try:
            cursor = self._connection.execute(query, params)
            if rows:
                cursor.row_factory = sqlite3.Row
            return cursor.fetchall()
        except sqlite3.Error as error:
            raise StoreError(describe_error(STORE_SCHEMA, self.path, error, "reading")) from None

    def close(self) -> None:
        self._connection.close()

    # runs -----------------------------------------------------------------------------------------------------

    def create_run(self, config: dict[str, Any], config_hash: str, environment: dict[str, Any],
                   name: str | None = None) -> str:
        """Create a run in status 'created' and return its id."""
        run_id = time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6]
        now = time.time()
        with self._transaction() as connection:
            connection.execute(
                "INSERT INTO runs (id, name, created, updated, status, config, config_hash, environment) "
                "VALUES (?, ?, ?, ?, 'created', ?, ?, ?)",
                (run_id, name, now, now, json.dumps(config), config_hash, json.dumps(environment)),
            )
        return run_id

    def resumable_run(self, config_hash: str, owner: Owner | None = None) -> str | None:
        """Return the newest unfinished run with this config hash, if any; with ``owner``, only among the runs that
        person launched (a signed-in user never resumes, so takes over, another's run by starting the same audit)."""
        mine = "" if owner is None else " AND id IN (SELECT run_id FROM owners WHERE subject = ?)"
        rows = self._read(f"SELECT id FROM runs WHERE config_hash = ? AND status != 'completed'{mine} "
                          "ORDER BY created DESC LIMIT 1", (config_hash,) + (() if owner is None else (owner.subject,)))
        return rows[0][0] if rows else None

    def resume_or_create_run(self, config: dict[str, Any], config_hash: str, environment: dict[str, Any],
                             name: str | None = None, owner: Owner | None = None) -> tuple[str, bool]:
        """The newest unfinished run with this config hash (with ``owner``: of theirs), or a new one (then
        ``True``, owned by ``owner``), found or made in one transaction: identical audits started together get the
        same run, and ``claim_run`` lets one work on it."""
        with self._transaction() as connection:
            found = self.resumable_run(config_hash, owner)
            if found:
                return found, False
            run_id = time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6]
            now = time.time()
            connection.execute(
                "INSERT INTO runs (id, name, created, updated, status, config, config_hash, environment) "
                "VALUES (?, ?, ?, ?, 'created', ?, ?, ?)",
                (run_id, name, now, now, json.dumps(config), config_hash, json.dumps(environment)))
            if owner is not None:
                connection.execute("INSERT INTO owners (run_id, subject, label) VALUES (?, ?, ?)",
                                   (run_id, owner.subject, owner.label))
        return run_id, True

    def claim_run(self, run_id: str, pid: int | None = None, *, stage: str | None = None) -> None:
        """Make process ``pid`` (default: this one) the run's worker and mark the run running, in one transaction;
        raise ``RunBusyError`` (changing nothing) if another live process is its worker."""
        pid = os.getpid() if pid is None else pid
        with self._transaction() as connection:
            holder = decode_run(self._run_row(run_id))
            if holder.worker_pid not in (None, pid) and holder.status in ("running", "created") \
                    and holder.worker_alive:
                raise RunBusyError(
                    f"run {run_id} is already being worked on by process {holder.worker_pid} — follow it with "
                    f"`python -m bias_core runs --store {self.path}`; once it stops, run the same audit again to "
                    "resume it")
            reports = {**holder.reports, "worker": worker_record(pid)}
            connection.execute(
                "UPDATE runs SET status = 'running', message = NULL, worker_pid = ?, reports = ?, updated = ?"
                + (", stage = ?" if stage is not None else "") + " WHERE id = ?",
                (pid, json.dumps(reports, default=str), time.time(), *([stage] if stage is not None else []),
                 run_id))

    def update_run(self, run_id: str, *, status: str | None = None, stage: str | None = None,
                   done: int | None = None, total: int | None = None, message: str | None = None,
                   model_revisions: dict[str, str] | None = None, worker_pid: int | None = None) -> None:
        """Update a run's status, stage, progress counters, message, model revisions or worker process id."""
        if status is not None and status not in STATUSES:
            raise ValueError(f"unknown run status {status!r}")
        fields: dict[str, Any] = {"updated": time.time()}
        for column, value in (("status", status), ("stage", stage), ("progress_done", done),
                              ("progress_total", total), ("message", message), ("worker_pid", worker_pid)):
            if value is not None:
                fields[column] = value
        with self._transaction() as connection:
            if model_revisions:
                current = json.loads(self._run_row(run_id)["model_revisions"])
                fields["model_revisions"] = json.dumps({**current, **model_revisions})
            if worker_pid is not None:  # the worker is known by its process id and start time (RunInfo.worker_alive)
                reports = json.loads(self._run_row(run_id)["reports"])
                fields["reports"] = json.dumps({**reports, "worker": worker_record(worker_pid)}, default=str)
            assignments = ", ".join(f"{column} = ?" for column in fields)
            connection.execute(f"UPDATE runs SET {assignments} WHERE id = ?", (*fields.values(), run_id))

    def _run_row(self, run_id: str) -> sqlite3.Row:
        """The run's row with its owner's columns; one StoreError line when there is no such run."""
        found = self._read(f"{self._runs} WHERE runs.id = ?", (run_id,), rows=True)
        if not found:
            raise StoreError(f"no run with id '{run_id}' in {self.path} — list the runs with "
                             f"`python -m bias_core runs --store {self.path}`")
        return found[0]

    def _decoded(self, decode: Callable[[Any], T], rows: Iterable[Any]) -> list[T]:
        """``decode`` applied to each row; a row that does not decode (its bytes were damaged) is one StoreError."""
        try:
            return [decode(row) for row in rows]
        except (ValueError, KeyError, TypeError) as error:
            raise StoreError(damaged_message(STORE_SCHEMA, self.path, f"an unreadable record: {error}")) from None

    def set_reports(self, run_id: str, reports: dict[str, Any]) -> None:
        """Store reports of the run's stages (e.g. each perturbation's skip report, each summarizer's cache use);
        top-level keys replace the stored ones of the same name and leave the others."""
        with self._transaction() as connection:
            current = json.loads(self._run_row(run_id)["reports"])
            connection.execute("UPDATE runs SET reports = ?, updated = ? WHERE id = ?",
                               (json.dumps({**current, **reports}, default=str), time.time(), run_id))

    def set_progress(self, run_id: str, done: int, progress: dict[str, Any]) -> None:
        """Record summarize progress in one write: the done counter and ``reports["progress"]`` (stage, the
        remaining-time range and its basis; see ``progress.SummarizeProgress``)."""
        with self._transaction() as connection:
            current = json.loads(self._run_row(run_id)["reports"])
            now = time.time()
            connection.execute("UPDATE runs SET progress_done = ?, reports = ?, updated = ? WHERE id = ?",
                               (done, json.dumps({**current, "progress": progress}, default=str), now, run_id))

    def throughput_history(self) -> list[dict[str, Any]]:
        """Every run's measured throughput records (``reports["throughput"]``, one per summarizer that computed
        summaries), oldest run first: what estimates of later runs on this machine are based on."""
        rows = self._read("SELECT reports FROM runs WHERE reports LIKE '%\"throughput\"%' ORDER BY created")
        records: list[dict[str, Any]] = []
        for (reports,) in rows:
            try:
                throughput = json.loads(reports).get("throughput", {})
            except ValueError:
                continue  # a damaged row: other readers report it; an estimate can do without it
            if isinstance(throughput, dict):
                records.extend(record for record in throughput.values() if isinstance(record, dict))
        return records

    def get_run(self, run_id: str) -> RunInfo:
        """The run; one ``StoreError`` line naming it when its stored row cannot be read (delete it)."""
        return decode_run(self._run_row(run_id))

    def list_runs(self) -> list[RunInfo]:
        """All runs, newest first. A run whose stored row cannot be read is listed with ``damaged`` set (and no
        config), so one damaged run neither hides the others nor stops them being read."""
        rows = self._read(f"{self._runs} ORDER BY runs.created DESC", rows=True)
        return [damaged_run(row, problem) if (problem := run_problem(row)) else decode_run(row) for row in rows]

    def set_owner(self, run_id: str, owner: Owner) -> None:
        """Record who launched the run; a run with no owner recorded is the operator's (the command line, the demo
        run)."""
        self._run_row(run_id)
        with self._transaction() as connection:
            connection.execute("INSERT OR REPLACE INTO owners (run_id, subject, label) VALUES (?, ?, ?)",
                               (run_id, owner.subject, owner.label))

    def rename_run(self, run_id: str, name: str | None) -> None:
        """Give the run another name (None or empty: unnamed)."""
        self._run_row(run_id)
        with self._transaction() as connection:
            connection.execute("UPDATE runs SET name = ?, updated = ? WHERE id = ?", (name or None, time.time(), run_id))

    def check_writable(self) -> None:
        """Return if this store can be written, else raise the one line a write would (the CLI's): a store whose
        file or folder is read-only is opened for reading only. Tried with a write that is rolled back."""
        try:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                version = self._connection.execute("PRAGMA user_version").fetchone()[0]
                self._connection.execute(f"PRAGMA user_version = {int(version)}")
            finally:
                rollback(self._connection)
        except sqlite3.Error as error:
            raise StoreError(describe_error(STORE_SCHEMA, self.path, error, "writing to")) from None

    def delete_run(self, run_id: str) -> None:
        """Delete a run and everything recorded under it, leaving no copy of its records in the store's files: their
        space is overwritten with zeros (``PRAGMA secure_delete``), and the write-ahead log, which still holds the
        pages as they were, is copied into the main file and truncated to nothing."""
        self._run_row(run_id)
        with self._transaction() as connection:
            for table in ("views", "owners", "measures", "failures", "summaries", "inputs", "documents", "runs"):
                column = "id" if table == "runs" else "run_id"
                connection.execute(f"DELETE FROM {table} WHERE {column} = ?", (run_id,))
        try:
            busy = self._connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        except sqlite3.Error as error:
            raise StoreError(describe_error(STORE_SCHEMA, self.path, error, "checkpointing")) from None
        if busy:
            raise StoreError(f"run {run_id} was deleted, but its old pages are still in {self.path}-wal because "
                             "another process is reading the store — delete again once its audits have finished")

    def runs_mentioning(self, text: str, *, besides: str) -> list[str]:
        """The ids of the runs other than ``besides`` whose stored config contains ``text`` (e.g. a corpus file's
        name); read as text, so a damaged config still counts."""
        return [row[0] for row in self._read("SELECT id FROM runs WHERE id != ? AND instr(config, ?) > 0",
                                             (besides, text))]

    def import_run(self, bundle: dict[str, Any]) -> str:
        """Insert a run exported by ``export.run_bundle`` (same id, config and records) in one transaction."""
        run = bundle["run"]
        documents = [Document.from_dict(d) for d in bundle["documents"]]
        inputs = [Input.from_dict(i) for i in bundle["inputs"]]
        summaries = [Summary.from_dict(s) for s in bundle["summaries"]]
        measures = [MeasureResult.from_dict(m) for m in bundle["measures"]]
        with self._transaction() as connection:
            connection.execute(
                "INSERT INTO runs (id, name, created, updated, status, config, config_hash, environment, "
                "model_revisions, stage, progress_done, progress_total, message, reports) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run["id"], run["name"], run["created"], run["updated"], run["status"], json.dumps(run["config"]),
                 run["config_hash"], json.dumps(run["environment"]), json.dumps(run["model_revisions"]),
                 run["stage"], run["progress_done"], run["progress_total"], run["message"],
                 json.dumps(run.get("reports", {}))))
            connection.executemany("INSERT INTO documents VALUES (?, ?, ?, ?)", [
                (run["id"], d.id, i, json.dumps(d.to_dict(), ensure_ascii=False)) for i, d in enumerate(documents)])
            connection.executemany("INSERT INTO inputs VALUES (?, ?, ?, ?, ?, ?)", [
                (run["id"], x.id, x.original_id, x.perturbation, i, json.dumps(x.to_dict(), ensure_ascii=False))
                for i, x in enumerate(inputs)])
            connection.executemany("INSERT INTO summaries VALUES (?, ?, ?, ?)", [
                (run["id"], s.input_id, s.summarizer, json.dumps(s.to_dict(), ensure_ascii=False))
                for s in summaries])
            connection.executemany("INSERT INTO failures VALUES (?, ?, ?, ?)", [
                (run["id"], f["input_id"], f["summarizer"], f["error"]) for f in bundle.get("failures", [])])
            connection.executemany("INSERT INTO measures VALUES (?, ?, ?)", [
                (run["id"], i, json.dumps(m.to_dict(), ensure_ascii=False)) for i, m in enumerate(measures)])
        return run["id"]

    def has_run(self, run_id: str) -> bool:
        return bool(self._read("SELECT 1 FROM runs WHERE id = ?", (run_id,)))

    # records --------------------------------------------------------------------------------------------------

    def add_documents(self, run_id: str, documents: Iterable[Document]) -> None:
        rows = [(run_id, d.id, i, json.dumps(d.to_dict(), ensure_ascii=False)) for i, d in enumerate(documents)]
        with self._transaction() as connection:
            connection.executemany("INSERT OR REPLACE INTO documents VALUES (?, ?, ?, ?)", rows)

    def add_inputs(self, run_id: str, inputs: Iterable[Input]) -> None:
        offset = self._read("SELECT COUNT(*) FROM inputs WHERE run_id = ?", (run_id,))[0][0]
        rows = [(run_id, item.id, item.original_id, item.perturbation, offset + i,
                 json.dumps(item.to_dict(), ensure_ascii=False)) for i, item in enumerate(inputs)]
        with self._transaction() as connection:
            connection.executemany("INSERT OR IGNORE INTO inputs VALUES (?, ?, ?, ?, ?, ?)", rows)

    def add_summaries(self, run_id: str, summaries: Iterable[Summary]) -> None:
        rows = [(run_id, s.input_id, s.summarizer, json.dumps(s.to_dict(), ensure_ascii=False)) for s in summaries]
        with self._transaction() as connection:
            connection.executemany("INSERT OR REPLACE INTO summaries VALUES (?, ?, ?, ?)", rows)
            connection.executemany("DELETE FROM failures WHERE run_id = ? AND input_id = ? AND summarizer = ?",
                                   [row[:3] for row in rows])

    def add_failures(self, run_id: str, failures: Iterable[tuple[str, str, str]]) -> None:
        """Record (input_id, summarizer, error) triples for summaries that could not be made."""
        rows = [(run_id, input_id, summarizer, error) for input_id, summarizer, error in failures]
        with self._transaction() as connection:
            connection.executemany("INSERT OR REPLACE INTO failures VALUES (?, ?, ?, ?)", rows)

    def replace_measures(self, run_id: str, results: Iterable[MeasureResult]) -> None:
        rows = [(run_id, i, json.dumps(r.to_dict(), ensure_ascii=False)) for i, r in enumerate(results)]
        with self._transaction() as connection:
            connection.execute("DELETE FROM measures WHERE run_id = ?", (run_id,))
            connection.executemany("INSERT INTO measures VALUES (?, ?, ?)", rows)

    def documents(self, run_id: str) -> list[Document]:
        rows = self._read("SELECT record FROM documents WHERE run_id = ? ORDER BY position", (run_id,))
        return self._decoded(lambda row: Document.from_dict(json.loads(row[0])), rows)

    def inputs(self, run_id: str, *, perturbation: str | None = None, original_id: str | None = None) -> list[Input]:
        query = "SELECT record FROM inputs WHERE run_id = ?"
        params: tuple[Any, ...] = (run_id,)
        if perturbation is not None:
            query += " AND perturbation = ?"
            params += (perturbation,)
        if original_id is not None:
            query += " AND original_id = ?"
            params += (original_id,)
        rows = self._read(query + " ORDER BY position", params)
        return self._decoded(lambda row: Input.from_dict(json.loads(row[0])), rows)

    def input_index(self, run_id: str) -> list[tuple[str, str, str]]:
        """(input id, original id, perturbation) of every input, in order, without reading the records: what a page
        lists before it reads the inputs of one original."""
        return [tuple(row) for row in self._read(
            "SELECT input_id, original_id, perturbation FROM inputs WHERE run_id = ? ORDER BY position", (run_id,))]

    def arms(self, run_id: str) -> dict[str, set[str]]:
        """Each perturbation of the run with the arms of its inputs (none for identity), without reading the
        records."""
        found: dict[str, set[str]] = {}
        for perturbation, arm in self._read("SELECT DISTINCT perturbation, json_extract(record, '$.arm') FROM inputs "
                                            "WHERE run_id = ?", (run_id,)):
            arms = found.setdefault(perturbation, set())
            if isinstance(arm, str) and arm:
                arms.add(arm)
        return found

    def summarizer_names(self, run_id: str) -> list[str]:
        """The summarizers with a stored summary in the run, sorted."""
        return [row[0] for row in self._read(
            "SELECT DISTINCT summarizer FROM summaries WHERE run_id = ? ORDER BY summarizer", (run_id,))]

    def summaries_of(self, run_id: str, input_ids: Iterable[str], summarizer: str | None = None) -> list[Summary]:
        """The stored summaries of the given inputs (by ``summarizer``, or by every summarizer)."""
        ids = list(dict.fromkeys(input_ids))
        which = "" if summarizer is None else " AND summarizer = ?"
        rows = []
        for start in range(0, len(ids), 500):  # SQLite's limit on bound parameters
            chunk = ids[start : start + 500]
            rows += self._read(f"SELECT record FROM summaries WHERE run_id = ?{which} AND input_id IN "
                               f"({', '.join('?' * len(chunk))}) ORDER BY summarizer, input_id",
                               (run_id, *([summarizer] if summarizer is not None else []), *chunk))
        return self._decoded(lambda row: Summary.from_dict(json.loads(row[0])), rows)

    def summaries(self, run_id: str, *, summarizer: str | None = None) -> list[Summary]:
        query = "SELECT record FROM summaries WHERE run_id = ?"
        params: tuple[Any, ...] = (run_id,)
        if summarizer is not None:
            query += " AND summarizer = ?"
            params += (summarizer,)
        rows = self._read(query + " ORDER BY summarizer, input_id", params)
        return self._decoded(lambda row: Summary.from_dict(json.loads(row[0])), rows)

    def set_views(self, run_id: str, fingerprint: str, data: dict[str, Any], *, merge: bool = False) -> None:
        """Keep what the result pages need first (``views.precomputed``) for the run's state ``fingerprint``;
        ``merge`` adds ``data``'s pieces to those kept for the same fingerprint, in one transaction (a page keeping a
        piece while the whole set is written from another thread loses neither)."""
        with self._transaction() as connection:
            if merge:
                kept = connection.execute("SELECT data FROM views WHERE run_id = ? AND fingerprint = ?",
                                          (run_id, fingerprint)).fetchone()
                data = {**(json.loads(kept[0]) if kept else {}), **data}
            connection.execute("INSERT OR REPLACE INTO views VALUES (?, ?, ?)",
                               (run_id, fingerprint, json.dumps(data, ensure_ascii=False)))

    def views(self, run_id: str, fingerprint: str) -> dict[str, Any] | None:
        """The kept views of the run if they were computed for ``fingerprint`` (None otherwise, or in a store opened
        read-only that predates them)."""
        try:
            rows = self._read("SELECT data FROM views WHERE run_id = ? AND fingerprint = ?", (run_id, fingerprint))
        except StoreError:
            if self.read_only:
                return None
            raise
        return json.loads(rows[0][0]) if rows else None

    def views_fingerprints(self, run_id: str) -> list[str]:
        """The fingerprints the run's views are kept for (none in a store opened read-only that predates them)."""
        try:
            return [row[0] for row in self._read("SELECT fingerprint FROM views WHERE run_id = ?", (run_id,))]
        except StoreError:
            if self.read_only:
                return []
            raise

    def record_counts(self, run_id: str) -> tuple[int, int, int]:
        """How many inputs, summaries and measure results the run holds (a views fingerprint)."""
        row = self._read("SELECT (SELECT COUNT(*) FROM inputs WHERE run_id = ?), (SELECT COUNT(*) FROM summaries "
                         "WHERE run_id = ?), (SELECT COUNT(*) FROM measures WHERE run_id = ?)", (run_id,) * 3)[0]
        return int(row[0]), int(row[1]), int(row[2])

    def token_usage(self, run_id: str) -> list[TokenUsage]:
        """The tokens the endpoints reported for the run's summaries, per summarizer (``usage.token_usage``), summed
        in SQLite: the Runs table asks this of every run."""
        count = ("SUM(CASE WHEN json_type(record, '$.meta.usage.{0}') = 'integer' "
                 "THEN MAX(json_extract(record, '$.meta.usage.{0}'), 0) ELSE 0 END)")
        spent = "json_type(record, '$.meta.usage') IS 'object'"  # IS: a missing path is false, never NULL
        cached = f"NOT {spent} AND json_type(record, '$.meta.cached_usage') IS 'object'"
        rows = self._read(f"SELECT summarizer, SUM({spent}), {count.format('prompt_tokens')}, "
                          f"{count.format('completion_tokens')}, SUM({cached}) FROM summaries WHERE run_id = ? AND "
                          f"({spent} OR {cached}) GROUP BY summarizer ORDER BY summarizer", (run_id,))
        return [TokenUsage(name, int(n or 0), int(prompt or 0), int(completion or 0), int(hits or 0))
                for name, n, prompt, completion, hits in rows]

    def saved_count(self, run_id: str) -> tuple[int, int]:
        """How many summaries and how many failures of the run are stored: the progress of a run is counted from
        these rows, never ahead of them."""
        summaries = self._read("SELECT COUNT(*) FROM summaries WHERE run_id = ?", (run_id,))[0][0]
        failures = self._read("SELECT COUNT(*) FROM failures WHERE run_id = ?", (run_id,))[0][0]
        return summaries, failures

    def clear_failures(self, run_id: str, summarizer: str) -> None:
        """Forget the stored failures of ``summarizer`` (before it is tried again on them)."""
        with self._transaction() as connection:
            connection.execute("DELETE FROM failures WHERE run_id = ? AND summarizer = ?", (run_id, summarizer))

    def summarized_ids(self, run_id: str, summarizer: str) -> set[str]:
        rows = self._read("SELECT input_id FROM summaries WHERE run_id = ? AND summarizer = ?", (run_id, summarizer))
        return {row[0] for row in rows}

    def failures(self, run_id: str) -> list[tuple[str, str, str]]:
        return [tuple(row) for row in self._read(
            "SELECT input_id, summarizer, error FROM failures WHERE run_id = ? ORDER BY summarizer, input_id",
            (run_id,))]

    def measures(self, run_id: str) -> list[MeasureResult]:
        rows = self._read("SELECT record FROM measures WHERE run_id = ? ORDER BY position", (run_id,))
        return self._decoded(lambda row: MeasureResult.from_dict(json.loads(row[0])), rows)
