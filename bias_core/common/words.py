"""Counts in words: "1 original", "12 originals", never "1 originals" (and no "0 sets of units" clause); negative
numbers with one minus sign everywhere text shows them."""

from __future__ import annotations

import re

# A hyphen-minus that starts a number: not inside a word or a range ("1990-91", "x-1"), not an exponent.
ASCII_MINUS = re.compile(r"(?<![\w.\-−])-(?=\d)")

# Words whose plural is not the singular + "s" (a verb after a count takes its plural-subject form).
IRREGULAR = {"summary": "summaries", "set of units": "sets of units", "entity": "entities", "this": "these",
             "does": "do", "mentions": "mention", "its": "their",
             "was": "were", "is": "are", "echo": "echoes"}


def plural(count: int, noun: str) -> str:
    """``noun`` for a count of one, its plural otherwise."""
    if count == 1:
        return noun
    return IRREGULAR.get(noun, noun + "s")


def counted(count: int, noun: str) -> str:
    """"1 article", "12 articles", "3 summaries"; thousands separated ("1,204 inputs")."""
    return f"{count:,} {plural(count, noun)}"


def counted_parts(*parts: tuple[int, str]) -> str:
    """The non-zero counts joined with "and": ((12, "article"), (0, "set of units")) → "12 articles"; all zero →
    the first part with its zero ("0 articles")."""
    shown = [counted(count, noun) for count, noun in parts if count]
    if not shown:
        return counted(*parts[0]) if parts else ""
    return " and ".join([", ".join(shown[:-1]), shown[-1]] if len(shown) > 2 else shown)


def minus_signs(text: str) -> str:
    """``text`` with the minus of every negative number written as "−" (U+2212), as the scales ("from −1 to 1") and
    the charts write it, so one line never mixes "-4.9" and "−1" (issue 29). For shown text only: exports keep
    the numbers a spreadsheet parses."""
    return ASCII_MINUS.sub("−", text)
