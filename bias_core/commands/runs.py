"""`python -m bias_core runs`: the run history of a store, as a plain table or JSON.

A run stored as running whose worker process has died shows as "stopped" (``RunInfo.shown_status``), as on the
Runs page. Text from users (run names, messages) is printed with control characters escaped, so a name cannot move
the cursor or recolour the terminal.
"""

from __future__ import annotations

import argparse
import datetime
import json
from pathlib import Path

from bias_core.commands import terminal_text
from bias_core.runs.run_info import RunInfo
from bias_core.runs.store import RunStore, default_store_path

COLUMNS = ("id", "name", "status", "stage", "progress", "created", "message")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "runs", help="list the runs in the run store",
        description="List every run, newest first: id, name, status (a run whose process died is 'stopped'), "
                    "stage, progress, creation time and message.")
    parser.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    parser.add_argument("--store", type=Path, help="run store file (default: $SUMMBIAS_STORE or the user data folder)")
    parser.set_defaults(func=run)


def run_row(info: RunInfo) -> dict:
    """One run as the JSON object `runs --json` prints."""
    return {
        "id": info.id, "name": info.name, "status": info.shown_status, "stored_status": info.status,
        "stage": info.stage, "progress_done": info.progress_done, "progress_total": info.progress_total,
        "created": datetime.datetime.fromtimestamp(info.created).isoformat(timespec="seconds"),
        "message": info.message,
        # Who launched it from the app with sign-in on (issue 30); null: the operator's run.
        "owner": None if info.owner is None else {"subject": info.owner.subject, "label": info.owner.label},
    }


def _plain(value: object, width: int | None = None) -> str:
    text = terminal_text(value)
    return text if width is None or len(text) <= width else text[: width - 1] + "…"


def runs_table(runs: list[RunInfo]) -> str:
    """A plain-text table, one line per run, columns padded to their widest cell."""
    rows = [[_plain(row["id"]), _plain(row["name"], 40), row["status"], _plain(row["stage"]),
             f"{row['progress_done']}/{row['progress_total']}", row["created"].replace("T", " "),
             _plain(row["message"], 100)] for row in map(run_row, runs)]
    widths = [max(len(str(cell)) for cell in column) for column in zip(COLUMNS, *rows)]
    lines = ["  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip()
             for row in (COLUMNS, *rows)]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    path = args.store or default_store_path()
    if not path.exists():
        print("[]" if args.json else f"no runs: there is no run store at {path} yet")
        return 0
    store = RunStore(path, read_only=True)
    try:
        runs = store.list_runs()
    finally:
        store.close()
    if args.json:
        print(json.dumps([run_row(info) for info in runs], ensure_ascii=False, indent=1))
    elif runs:
        print(runs_table(runs))
    else:
        print(f"no runs in {path}")
    return 0
