"""Subcommands of `python -m bias_core`: each module defines ``add_parser(subparsers)`` and sets ``func``.

A subcommand is listed in ``COMMANDS`` only once the capability behind it works; there are no placeholders.
"""

import re

COMMANDS = ("summarize", "audit", "measure", "quadruples", "perturb", "runs", "export", "cache", "power",
            "reproduce")

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def terminal_text(value: object) -> str:
    """Text from users or models as a terminal line: control characters escaped (``\\x1b`` …), so a run or model
    name cannot move the cursor or recolour the terminal; None is empty."""
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", "" if value is None else str(value))
