"""The command line: `python -m bias_core SUBCOMMAND …` (INTERFACES.md "Command line").

Bad input, and any other failure, ends with exit code 2 and one line naming the file, row or stage and the problem;
``--debug`` shows the traceback.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
import traceback

from bias_core import __version__
from bias_core.commands import COMMANDS
from bias_core.runs.stopping import exit_code, stop_signals
from bias_core.safety.errors import BiasCoreError, StageError, one_line
from bias_core.safety.redact import redact_log_handlers, redact_urls

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
    """Run one subcommand; any exception ends as one line ``error: …`` on stderr and exit code 2, and Ctrl-C or
    SIGTERM as one line and exit code 130 or 143 (``bias_core.runs.stopping``).

    A ``BiasCoreError`` already names the file, row or stage; any other exception is shown as
    ``error: <command>: <Type>: <message>``. ``--debug`` prints the traceback first; otherwise it goes to the log
    at debug level only.
    """
    with stop_signals():
        try:
            parser = build_parser()
            args = parser.parse_args(argv)
        except KeyboardInterrupt as interrupt:  # before any work started
            print("interrupted before anything was done", file=sys.stderr)
            return exit_code(interrupt)
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    try:
        logging.basicConfig(
            level=logging.DEBUG if args.debug else logging.INFO, format="%(levelname)s %(name)s: %(message)s"
        )
        redact_log_handlers()  # no URL credentials in the log (an audit worker's log file included)
        if not args.debug:  # a line per endpoint request is noise on a terminal; --debug shows them
            for name in ("httpx", "httpx2"):
                logging.getLogger(name).setLevel(logging.WARNING)
        return int(args.func(args) or 0)
    except KeyboardInterrupt as interrupt:  # Ctrl-C or SIGTERM (``bias_core.runs.stopping``);
        # `audit` says what it saved
        print("stopped; summaries finished so far are kept in the cache — run the same command to go on",
              file=sys.stderr)
        return exit_code(interrupt)
    except BrokenPipeError:
        # The reader went away (`… | head`): stop quietly as Unix tools do. stdout is pointed at /dev/null so the
        # interpreter's final flush does not raise again (the recipe of the Python docs, "Note on SIGPIPE").
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as error:  # the one error path: every failure reaches the user as one line
        if args.debug:
            print(redact_urls("".join(traceback.format_exception(error))), end="", file=sys.stderr)
        else:
            logger.debug("%s failed", args.command, exc_info=True)
        unexpected = not isinstance(error, BiasCoreError) or isinstance(error, StageError)
        hint = " (run again with --debug for the traceback)" if unexpected and not args.debug else ""
        where = f"{args.command}: " if not isinstance(error, BiasCoreError) else ""
        print(f"error: {where}{one_line(error, limit=2000)}{hint}", file=sys.stderr)
        return 2
