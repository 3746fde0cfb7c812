"""The tokens an endpoint reported for a run's summaries (issue 31, Deliver 3): what a hosted summarizer cost, summed
per summarizer from each summary's ``meta["usage"]`` (``openai_compat.usage_meta``), for Runs, the Overview's quality
line and the report. A summary read from the summary cache cost this run nothing: its request's tokens move to
``meta["cached_usage"]`` (``summarize.cache.hit_meta``) and are counted apart, so a run's totals are what it spent.
Before a run, ``estimate_requests`` states what an endpoint will be asked.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bias_core.common.records import Input
from bias_core.common.words import plural


@dataclass(frozen=True)
class TokenUsage:
    """One summarizer's reported tokens in a run: over ``summaries`` summaries whose answer reported its usage,
    requested by this run; ``from_cache`` more were read from the summary cache (made, and paid for, before)."""

    summarizer: str
    summaries: int
    prompt_tokens: int
    completion_tokens: int
    from_cache: int = 0

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
    """Per summarizer (in name order) the tokens reported in its summaries' ``meta["usage"]``, and how many more
    were read from the cache (``meta["cached_usage"]``); summarizers whose answers reported none (every local model)
    are left out."""
    totals: dict[str, list[int]] = {}
    for summary in summaries:
        meta = summary.meta or {}
        usage = meta.get("usage")
        if isinstance(usage, dict):
            row = totals.setdefault(summary.summarizer, [0, 0, 0, 0])
            row[0] += 1
            row[1] += token_count(usage.get("prompt_tokens"))
            row[2] += token_count(usage.get("completion_tokens"))
        elif isinstance(meta.get("cached_usage"), dict):
            totals.setdefault(summary.summarizer, [0, 0, 0, 0])[3] += 1
    return [TokenUsage(name, *row) for name, row in sorted(totals.items())]


def token_count(value: object) -> int:
    """A reported token count as a number: 0 for anything that is not a count (missing, negative, a bool, text)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def usage_line(usage: list[TokenUsage]) -> str | None:
    """The sentence the Overview and the report show: "Tokens the endpoints reported: openai:m: 1.2 M prompt tokens,
    80 k completion tokens over 256 summaries."; None when no summary reported any."""
    if not usage:
        return None
    parts = [f"{u.summarizer}: {u.describe()} over {u.summaries:,} {plural(u.summaries, 'summary')}"
             + (f" ({u.from_cache:,} more read from the cache cost nothing this time)" if u.from_cache else "")
             for u in usage]
    return "Tokens the endpoints reported: " + "; ".join(parts) + "."


# Characters per token of English prose in the BPE vocabularies of today's chat models: about four (OpenAI's rule of
# thumb); the range covers denser and sparser tokenizers, since the endpoint's own tokenizer is not known here.
CHARS_PER_TOKEN = (3.0, 5.0)


@dataclass(frozen=True)
class RequestEstimate:
    """What an endpoint summarizer will be asked before a run: requests, and the tokens they will take."""

    summarizer: str
    requests: int
    prompt_low: int
    prompt_high: int
    completion_most: int
    max_tokens: int

    def describe(self) -> str:
        """"openai:m: up to 256 requests, about 60–100 k prompt tokens and at most 66 k completion tokens"."""
        low, high = tokens(self.prompt_low), tokens(self.prompt_high)
        prompt = low if low == high else f"{low}–{high}"
        return (f"{self.summarizer}: up to {self.requests:,} {plural(self.requests, 'request')} (fewer where a "
                f"summary is cached), about {prompt} prompt tokens ({CHARS_PER_TOKEN[0]:g}–{CHARS_PER_TOKEN[1]:g} "
                f"characters a token) and at most {tokens(self.completion_most)} completion tokens "
                f"({self.max_tokens:,} a request)")


def estimate_requests(summarizer, inputs: Sequence[Input]) -> RequestEstimate | None:
    """The requests and tokens of ``inputs`` for an endpoint summarizer (``openai_compat``): its exact prompts measured
    in characters; None for a summarizer that sends no requests (a local model)."""
    settings = getattr(summarizer, "prompt", None)
    max_tokens = getattr(summarizer, "max_tokens", None)
    if not summarizer.name.startswith("openai:") or settings is None or max_tokens is None:
        return None
    # imported here: the summarize package loads the extractive summarizers' libraries, and the run store (which
    # imports this module for TokenUsage) opens on every page
    from bias_core.summarize.prompts import build_prompt

    characters = sum(len(build_prompt(item, settings)[0]) for item in inputs)
    return RequestEstimate(summarizer.name, len(inputs), round(characters / CHARS_PER_TOKEN[1]),
                           round(characters / CHARS_PER_TOKEN[0]), max_tokens * len(inputs), max_tokens)
