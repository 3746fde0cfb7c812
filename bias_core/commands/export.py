"""`python -m bias_core export`: one stored run as JSON, measures CSV, summaries CSV or the HTML report.

The same functions as the Runs page's download buttons (``bias_core.views.export.EXPORT_FORMATS``), so the file is
byte-for-byte what the app would give. The store is opened read-only: exporting never changes it.
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from bias_core.runs.store import RunStore
from bias_core.views.export import EXPORT_FORMATS, write_export

logger = logging.getLogger(__name__)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export", help="export a stored run as JSON, CSV or an HTML report",
        description="Export one run of the run store, as the Runs page does: json (everything: config, seeds, "
                    "versions, records), csv (measure results), summaries-csv (one row per summary) or html (a "
                    "self-contained report). List the run ids with `python -m bias_core runs`.")
    parser.add_argument("--run", required=True, metavar="ID", help="the run id (see `python -m bias_core runs`)")
    parser.add_argument("--format", required=True, choices=tuple(EXPORT_FORMATS), help="what to export")
    parser.add_argument("--out", required=True, type=Path, help="file to write (replaced if it exists)")
    parser.add_argument("--store", type=Path, help="run store file (default: $SUMMBIAS_STORE or the user data folder)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    store = RunStore(args.store, read_only=True)
    try:
        store.get_run(args.run)  # an unknown id is one line naming it and the `runs` command
        path = write_export(store, args.run, args.format, args.out)
    finally:
        store.close()
    logger.info("wrote the %s export of run %s to %s", args.format, args.run, path)
    return 0
