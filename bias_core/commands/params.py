"""Parsing of ``--param key=value`` options shared by subcommands."""

from __future__ import annotations

import json
from typing import Any

from bias_core.documents.jsonl import lone_surrogate
from bias_core.safety.errors import InputError


def parse_params(pairs: list[str] | None) -> dict[str, Any]:
    """Turn ``["k=3", "base_url=http://…"]`` into ``{"k": 3, "base_url": "http://…"}``; values are JSON if they parse."""
    params: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise InputError("--param", f"'{pair}' is not of the form key=value")
        try:
            params[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            params[key.strip()] = raw
        except RecursionError:  # json.loads recurses once per level of nesting
            raise InputError("--param", f"the value of '{key.strip()}' is nested too deeply to read",
                             hint="give a number, a string or a flat list") from None
        # JSON's "\ud800" escape, or bytes the shell's locale could not decode, give a lone surrogate: not a
        # character, and the cache, the store and every file would fail to write it (issue 23).
        if lone_surrogate({key.strip(): params[key.strip()]}) is not None:
            raise InputError("--param", f"the value of '{key.strip()}' holds half of a UTF-16 surrogate pair or an "
                             "undecodable byte, which is not a character", hint="give plain UTF-8 text")
    return params
