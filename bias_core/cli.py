"""The command line: `python -m bias_core SUBCOMMAND …` (INTERFACES.md "Command line").

Bad input ends with exit code 2 and one line naming the file, row and problem; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

from bias_core import __version__
from bias_core.commands import COMMANDS
from bias_core.errors import BiasCoreError

logger = logging.getLogger("bias_core")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bias_core", description="Audit text summarizers for bias (summbias)."
    )
    parser.add_argument("--version", action="version", version=f"bias_core {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks and debug logging")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"bias_core.commands.{name}").add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.debug else logging.INFO, format="%(levelname)s %(name)s: %(message)s"
    )
    try:
        return int(args.func(args) or 0)
    except BiasCoreError as error:
        if args.debug:
            raise
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; completed work is kept in the cache and store — run the same command to resume",
              file=sys.stderr)
        return 130
