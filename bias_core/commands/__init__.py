"""Subcommands of `python -m bias_core`: each module defines ``add_parser(subparsers)`` and sets ``func``.

A subcommand is listed in ``COMMANDS`` only once the capability behind it works; there are no placeholders.
"""

import re
from io import StringIO
from pathlib import Path

COMMANDS = ("summarize", "audit", "measure", "quadruples", "perturb", "runs", "export", "cache", "power",
            "reproduce")

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def text_file(path: str | Path) -> StringIO:
    """The text of a file an option names, for ``csv`` or line reading; one ``InputError`` line naming the file when
    it is missing or not text ("is not UTF-8 text", binary, empty), decoded as corpus files are
    (``bias_core.io.decode_text``)."""
    from bias_core.errors import InputError
    from bias_core.io import decode_text

    file = Path(path)
    if not file.is_file():
        raise InputError(str(path), "no such file")
    try:
        data = file.read_bytes()
    except OSError as error:
        raise InputError(str(path), f"cannot be read ({error.strerror or error})") from None
    return StringIO(decode_text(str(path), data), newline="")


def terminal_text(value: object) -> str:
    """Text from users or models as a terminal line: control characters escaped (``\\x1b`` …), so a run or model
    name cannot move the cursor or recolour the terminal; None is empty."""
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", "" if value is None else str(value))
