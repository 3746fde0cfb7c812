"""A spending limit for the endpoint requests of a run (issue 31, Deliver 3): ``[budget] requests`` and ``tokens``.

A hosted summarizer costs money per request and per token. With a budget, each go of a run (a start or a resume)
sends at most ``requests`` requests to its endpoints and stops sending once they have reported ``tokens`` tokens
(prompt and completion); the run then stops cleanly, everything answered kept, and running it again resumes it with a
new budget. Summaries already stored or in the cache cost nothing and are not counted; local models are not limited.

A request's tokens are known only once it is answered, so a token budget sends requests in rounds that the tokens left
cover at the largest count one request has reported so far (the first round is one request): the last round can pass
the budget only by what a request costs beyond that largest count.
"""

from __future__ import annotations

from dataclasses import dataclass

from bias_core.common.words import plural
from bias_core.runs.usage import token_count
from bias_core.runs.usage import tokens as tokens_text
from bias_core.safety.validation import Param

BUDGET_KEYS = ("requests", "tokens")
LIMIT = Param(int, minimum=1)


def limited(summarizer_name: str) -> bool:
    """Whether a budget counts this summarizer's work: endpoints (``openai:``), whose requests are paid for."""
    return summarizer_name.startswith("openai:")


@dataclass
class Budget:
    """What one go of a run may still spend, and what it has spent."""

    requests: int | None = None
    tokens: int | None = None
    sent: int = 0
    used: int = 0
    largest: int = 0  # the most tokens one request has reported in this go

    @classmethod
    def from_config(cls, table: dict[str, int] | None) -> Budget | None:
        """The budget of a config's ``[budget]`` table (None when it sets none)."""
        if not table:
            return None
        return cls(requests=table.get("requests"), tokens=table.get("tokens"))

    def allowed(self, waiting: int) -> int:
        """How many of ``waiting`` requests may be sent now (0: the budget is spent)."""
        count = waiting
        if self.requests is not None:
            count = min(count, self.requests - self.sent)
        if self.tokens is not None:
            left = self.tokens - self.used
            if left <= 0:
                return 0
            count = min(count, max(1, left // self.largest) if self.largest else 1)
        return max(0, count)

    def spend(self, usage: dict | None) -> None:
        """One request was answered, with ``usage`` (the summary's ``meta["usage"]``; None for a failure)."""
        self.sent += 1
        counted = sum(token_count(value) for value in (usage or {}).values())
        self.used += counted
        self.largest = max(self.largest, counted)

    def spent(self) -> str:
        """Why sending stopped: "the budget of 500 requests is spent (500 sent)"."""
        if self.requests is not None and self.sent >= self.requests:
            return f"the budget of {self.requests:,} {plural(self.requests, 'request')} is spent ({self.sent:,} sent)"
        return (f"the budget of {tokens_text(self.tokens or 0)} tokens is spent ({tokens_text(self.used)} reported "
                f"by {self.sent:,} {plural(self.sent, 'request')})")
