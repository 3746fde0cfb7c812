"""A run as the store records it: ``RunInfo`` (one decoded row of the runs table, with its worker's liveness), the
run statuses, why a stored row cannot be read (``damaged_run_message``) and the store's errors (``StoreError``)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from bias_core.safety.errors import BiasCoreError

STATUSES = ("created", "running", "completed", "failed", "interrupted")


class StoreError(BiasCoreError):
    """The run store cannot be opened or written (disk full, read-only, corrupt file) or a run is unknown."""


class RunBusyError(StoreError):
    """The run is being worked on by another live process."""


# Process start times are read to 1/100 s and derived from the boot time, which clock corrections can move a little.
START_TIME_TOLERANCE = 1.0


def process_start_time(pid: int) -> float | None:
    """When process ``pid`` started (seconds since the epoch), or None if no such process is running (gone, or a
    zombie that has finished but not been reaped); ``PermissionError`` if it exists but may not be inspected."""
    import psutil  # imported here, as only the liveness check needs it

    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return None
        return process.create_time()
    except psutil.NoSuchProcess:
        return None
    except psutil.AccessDenied as error:  # it exists, owned by someone else (Linux lets anyone read the start time)
        raise PermissionError(f"process {pid} may not be inspected") from error


@dataclass(frozen=True)
class Owner:
    """Who launched a run from the app with sign-in on: their subject at the sign-in provider (what access is
    decided on) and the name or e-mail the provider gave for them (what the Runs page shows)."""

    subject: str
    label: str


@dataclass
class RunInfo:
    """One row of the runs table, decoded."""

    id: str
    name: str | None
    created: float
    updated: float
    status: str
    config: dict[str, Any]
    config_hash: str
    environment: dict[str, Any]
    model_revisions: dict[str, str]
    stage: str | None
    progress_done: int
    progress_total: int
    message: str | None
    worker_pid: int | None = None
    reports: dict[str, Any] = field(default_factory=dict)
    damaged: str | None = None  # why the stored row cannot be read (``list_runs`` keeps such a run, to be deleted)
    owner: Owner | None = None  # None: the operator's run (the command line, the demo run, or sign-in off)

    @property
    def progress(self) -> float:
        return self.progress_done / self.progress_total if self.progress_total else 0.0

    @property
    def shown_status(self) -> str:
        """The status to show: 'stopped' for a run stored as running whose worker process has died (killed, or its
        machine restarted), else the stored status."""
        if self.damaged:
            return "damaged"
        return "stopped" if self.status == "running" and not self.worker_alive else self.status

    @property
    def resumable(self) -> bool:
        """Whether the run stopped unfinished with no process working on it (killed, Ctrl-C, SIGTERM): running it
        again resumes it."""
        return self.status in ("running", "interrupted") and not self.worker_alive

    @property
    def worker_started(self) -> float | None:
        """The recorded start time of the worker process ``worker_pid`` (None for runs recorded without one)."""
        worker = self.reports.get("worker")
        if isinstance(worker, dict) and worker.get("pid") == self.worker_pid:
            started = worker.get("started")
            return float(started) if isinstance(started, (int, float)) else None
        return None

    @property
    def worker_alive(self) -> bool:
        """Whether the process that runs this audit (on this machine) is still alive: a process with the worker's id
        exists and it is the same process, started when the worker started. For a run recorded without a start time,
        a process that started after the run was last written cannot be its worker."""
        if not self.worker_pid:
            return False
        try:
            started = process_start_time(self.worker_pid)
        except PermissionError:  # it exists and cannot be told apart from the worker
            return True
        if started is None:
            return False
        recorded = self.worker_started
        if recorded is not None:
            return abs(started - recorded) <= START_TIME_TOLERANCE
        return started <= self.updated + START_TIME_TOLERANCE


def worker_record(pid: int) -> dict[str, Any]:
    """What identifies a worker process: its id and start time (None when it is gone or may not be inspected)."""
    try:
        started = process_start_time(pid)
    except PermissionError:
        started = None
    return {"pid": pid, "started": started}


# What a run row's JSON columns hold, in words for messages.
RUN_JSON_COLUMNS = {"config": "configuration", "environment": "environment", "model_revisions": "model revisions",
                    "reports": "reports"}


def run_problem(row: sqlite3.Row) -> str | None:
    """Why a run row cannot be read, in a few words, or None: each JSON column must hold a JSON object, the
    config's summarizers and perturbations (what the pages list) lists of objects with a text name, and the times
    and counters numbers."""
    for column, what in RUN_JSON_COLUMNS.items():
        try:
            value = json.loads(row[column])
        except (TypeError, ValueError):
            return f"its stored {what} is not JSON"
        if not isinstance(value, dict):
            return f"its stored {what} is a JSON {type(value).__name__}, not an object"
        if column == "config":
            for stage in ("summarizers", "perturbations"):
                specs = value.get(stage, [])
                if not isinstance(specs, list) or not all(
                        isinstance(spec, dict) and isinstance(spec.get("name"), str) for spec in specs):
                    return f"its stored configuration's {stage} are not a list of named stages"
    for column in ("created", "updated", "progress_done", "progress_total"):
        if not isinstance(row[column], (int, float)):
            return f"its stored {column.replace('_', ' ')} is not a number"
    return None


def damaged_run_message(run_id: object, problem: str) -> str:
    """One line: run ``run_id`` cannot be read because of ``problem``, and what to do."""
    return f"run {run_id}: {problem}, so it cannot be read — delete it on the Runs page"


def decode_run(row: sqlite3.Row) -> RunInfo:
    """The row as a ``RunInfo``; one ``StoreError`` line naming the run and the part of it that cannot be read
    (see ``run_problem``)."""
    problem = run_problem(row)
    if problem:
        raise StoreError(damaged_run_message(row["id"], problem))
    return RunInfo(
        id=row["id"], name=row["name"], created=row["created"], updated=row["updated"], status=row["status"],
        config=json.loads(row["config"]), config_hash=row["config_hash"],
        environment=json.loads(row["environment"]), model_revisions=json.loads(row["model_revisions"]),
        stage=row["stage"], progress_done=row["progress_done"], progress_total=row["progress_total"],
        message=row["message"], worker_pid=row["worker_pid"], reports=json.loads(row["reports"]),
        owner=_owner(row),
    )


def damaged_run(row: sqlite3.Row, problem: str) -> RunInfo:
    """A run whose row cannot be read, as ``list_runs`` lists it: its id, what of its name and times reads, and
    ``damaged`` saying why; no config, so nothing can be done with it but delete it."""
    def number(value: Any) -> float:
        return float(value) if isinstance(value, (int, float)) else 0.0

    return RunInfo(
        id=str(row["id"]), name=row["name"] if isinstance(row["name"], str) else None,
        created=number(row["created"]), updated=number(row["updated"]), status=str(row["status"]), config={},
        config_hash=str(row["config_hash"]), environment={}, model_revisions={}, stage=None, progress_done=0,
        progress_total=0, message=damaged_run_message(row["id"], problem), damaged=problem, owner=_owner(row))


def _owner(row: sqlite3.Row) -> Owner | None:
    """The owner a row read with its owner's columns names (``RunStore``'s join), or None."""
    keys = row.keys()
    if "owner" not in keys or row["owner"] is None:
        return None
    return Owner(str(row["owner"]), str(row["owner_label"] or row["owner"]))
