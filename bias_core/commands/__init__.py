"""Subcommands of `python -m bias_core`: each module defines ``add_parser(subparsers)`` and sets ``func``.

A subcommand is listed in ``COMMANDS`` only once the capability behind it works; there are no placeholders.
"""

COMMANDS = ("summarize", "audit", "measure", "quadruples", "perturb", "runs", "export", "cache", "power")
