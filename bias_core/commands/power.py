"""`python -m bias_core power --originals N`: the effect an audit of N originals can detect, per measure, and the
originals a stated effect needs (``bias_core.verdicts.power``; METHODS §5 "Power")."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path

from bias_core.safety.errors import InputError
from bias_core.verdicts.power import format_table, planning_table, results_of_bundle


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "power", help="the smallest effect an audit of N originals detects (80%% power)",
        description="Print, per measure, the smallest effect an audit of N originals detects with 80%% power at "
                    "alpha = 0.05, and how many originals a stated effect needs. The spread comes from a reference "
                    "run (default: the shipped demo run), scaled by the square root of the number of originals.")
    parser.add_argument("--originals", type=int, required=True, help="number of original documents planned")
    parser.add_argument("--bundle", type=Path, help="reference run bundle (.json or .json.gz from `export`)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.originals < 2:
        raise InputError("--originals", f"{args.originals} is too few: a test needs at least 2 originals")
    if args.bundle is not None and not args.bundle.is_file():
        raise InputError(str(args.bundle), "is not a file", hint="give a bundle written by `python -m bias_core export`")
    rows = planning_table(args.originals, results_of_bundle(args.bundle) if args.bundle else None)
    print(json.dumps([asdict(row) for row in rows], indent=2) if args.json else format_table(rows))
    return 0
