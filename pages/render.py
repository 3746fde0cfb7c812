"""HTML fragments for the pages. Every piece of article, summary or name text is escaped here before it is
embedded, because all of it is untrusted; only the tags written in this module reach the browser."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from bias_core.diff import DiffToken
from bias_core.records import Input

SWAP_STYLE = "background:#dbe9ff;border-bottom:2px solid #3b6fd8;padding:0 2px;border-radius:2px"
INSERT_STYLE = "background:#d7f5dd;color:#0b5d1e;text-decoration:none;padding:0 2px;border-radius:2px"
DELETE_STYLE = "background:#fde0e0;color:#8a1c1c;padding:0 2px;border-radius:2px"
HALLUCINATION_STYLE = "background:#fff1c2;border:1px dashed #b7791f;padding:0 2px;border-radius:2px"

LEGEND = (
    f"<span style='{INSERT_STYLE}'>inserted by the model</span> "
    f"<del style='{DELETE_STYLE}'>deleted by the model</del> "
    f"<span style='{SWAP_STYLE}'>swapped by the perturbation</span> "
    f"<span style='{HALLUCINATION_STYLE}'>hallucinated name</span>"
)


def highlighted_input(item: Input) -> str:
    """The input text with every substituted span marked; the hover shows what the span was originally."""
    parts: list[str] = []
    cursor = 0
    for sub in sorted(item.substitutions, key=lambda s: s.start):
        parts.append(html.escape(item.text[cursor:sub.start]))
        title = html.escape(f"{sub.kind}: was '{sub.original}'", quote=True)
        parts.append(f"<span style='{SWAP_STYLE}' title=\"{title}\">{html.escape(sub.replacement)}</span>")
        cursor = sub.end
    parts.append(html.escape(item.text[cursor:]))
    return "<div style='white-space:pre-wrap;line-height:1.6'>" + "".join(parts) + "</div>"


def diff_html(tokens: Iterable[DiffToken]) -> str:
    """Tokens of a word diff as one paragraph: model insertions/deletions and perturbation swaps styled apart."""
    pieces = []
    for token in tokens:
        text = html.escape(token.text)
        if token.op == "equal":
            pieces.append(text)
        elif token.expected:
            style = SWAP_STYLE + (";text-decoration:line-through" if token.op == "delete" else "")
            pieces.append(f"<span style='{style}' title='{token.op} (perturbation)'>{text}</span>")
        elif token.op == "insert":
            pieces.append(f"<ins style='{INSERT_STYLE}' title='inserted by the model'>{text}</ins>")
        else:
            pieces.append(f"<del style='{DELETE_STYLE}' title='deleted by the model'>{text}</del>")
    return "<p style='line-height:1.8'>" + " ".join(pieces) + "</p>"


def marked_names(text: str, names: Iterable[str]) -> str:
    """A summary with every occurrence of the given (hallucinated) names marked; everything escaped."""
    names = sorted({name for name in names if name.strip()}, key=len, reverse=True)
    parts: list[str] = []
    cursor = 0
    if names:
        pattern = re.compile("|".join(re.escape(name) for name in names), re.IGNORECASE)
        for match in pattern.finditer(text):
            parts.append(html.escape(text[cursor:match.start()]))
            parts.append(f"<span style='{HALLUCINATION_STYLE}' title='hallucinated: not in the input'>"
                         f"{html.escape(match.group())}</span>")
            cursor = match.end()
    parts.append(html.escape(text[cursor:]))
    return "<div style='white-space:pre-wrap;line-height:1.6'>" + "".join(parts) + "</div>"
