"""The tokens an endpoint reported for a run's summaries (issue 31, Deliver 3): what a hosted summarizer cost, summed
per summarizer from each summary's ``meta["usage"]`` (``openai_compat.usage_meta``), for Runs, the Overview's quality
line and the report. A summary read from the cache carries the usage of the request that made it, once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bias_core.common.words import plural


@dataclass(frozen=True)
class TokenUsage:
    """One summarizer's reported tokens in a run: over ``summaries`` summaries whose answer reported its usage."""

    summarizer: str
    summaries: int
    prompt_tokens: int
    completion_tokens: int

    def describe(self) -> str:
        """"1.2 M prompt tokens, 80 k completion tokens"."""
        return f"{tokens(self.prompt_tokens)} prompt tokens, {tokens(self.completion_tokens)} completion tokens"


def tokens(count: int) -> str:
    """A token count as a reader takes it in: 950, 80 k, 1.2 M (three significant figures at most)."""
    for scale, unit in ((1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")):
        if count >= scale:
            value = count / scale
            return f"{value:.3g} {unit}" if value < 1000 else f"{value:,.0f} {unit}"
    return str(count)


def token_usage(summaries: Iterable) -> list[TokenUsage]:
    """Per summarizer (in name order) the tokens reported in its summaries' ``meta["usage"]``; summarizers whose
    answers reported none (every local model) are left out."""
    totals: dict[str, list[int]] = {}
    for summary in summaries:
        usage = (summary.meta or {}).get("usage")
        if not isinstance(usage, dict):
            continue
        row = totals.setdefault(summary.summarizer, [0, 0, 0])
        row[0] += 1
        row[1] += _count(usage.get("prompt_tokens"))
        row[2] += _count(usage.get("completion_tokens"))
    return [TokenUsage(name, *row) for name, row in sorted(totals.items())]


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def usage_line(usage: list[TokenUsage]) -> str | None:
    """The sentence the Overview and the report show: "Tokens the endpoints reported: openai:m: 1.2 M prompt tokens,
    80 k completion tokens over 256 summaries."; None when no summary reported any."""
    if not usage:
        return None
    parts = [f"{u.summarizer}: {u.describe()} over {u.summaries:,} {plural(u.summaries, 'summary')}" for u in usage]
    return "Tokens the endpoints reported: " + "; ".join(parts) + "."
