"""`python -m bias_core reproduce`: the papers' published numbers recomputed from the authors' released outputs,
paper against summbias, with the difference per cell (``bias_core.reference.reproduce``)."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from bias_core.reference.reproduce import PARTS, format_table, reference_folder, reproduce
from bias_core.safety.errors import InputError


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "reproduce", help="recompute the papers' published numbers from the authors' released outputs",
        description="Print every published number summbias can recompute from the authors' released outputs "
                    "(Counter-GAP Tables 2-3, FairSumm Table 10), paper against summbias with the difference per "
                    "cell, then the tables that cannot be recomputed and why. The released outputs are third-party "
                    "data kept outside the project: ../shared/reference in a development checkout, or the folder "
                    "named by --reference or SUMMBIAS_REFERENCE.")
    parser.add_argument("--reference", help="folder holding counter-gap/ and fairsumm/ (default: SUMMBIAS_REFERENCE, "
                                            "else ../shared/reference next to the repository)")
    parser.add_argument("--only", action="append", choices=tuple(PARTS), help="recompute only this part (repeatable)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    folder = reference_folder(args.reference)
    if not folder.is_dir():
        raise InputError(str(folder), "is not a folder",
                         hint="give --reference (or SUMMBIAS_REFERENCE) the folder holding counter-gap/ and fairsumm/")
    result = reproduce(folder, tuple(args.only or PARTS))
    if args.json:
        print(json.dumps({"cells": [dict(asdict(cell), difference=cell.difference) for cell in result.cells],
                          "unreachable": [asdict(item) for item in result.unreachable],
                          "missing": result.missing, "seconds": result.seconds}, indent=2))
    else:
        print(format_table(result))
    # Exit 1 when a reachable number is not reproduced, so scripts and CI can rely on the status.
    return 0 if all(cell.matches for cell in result.cells) else 1
