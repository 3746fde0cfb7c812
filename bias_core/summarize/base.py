"""The one summarizer interface and the name registry (METHODS §2).

Every summarizer takes a batch of inputs and returns, per input, a ``Summary`` or a ``SummaryFailure``. Names map to
summarizers through patterns (``lead-3`` → Lead with k=3, ``hf:<id>`` → a Hugging Face model), so a run's config
can name summarizers as plain strings.
"""

from __future__ import annotations

import hashlib
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from bias_core.errors import SummarizerError
from bias_core.records import Input, Summary


@dataclass(frozen=True)
class SummaryFailure:
    """A summary that could not be produced; failures are reported and never cached."""

    input_id: str
    summarizer: str
    error: str


SummaryOutcome = Summary | SummaryFailure


class Summarizer(ABC):
    """Base class: subclasses set ``name`` and implement ``summarize_batch``.

    ``parameters()`` and ``revision()`` go into every summary's ``meta`` and into the cache key, so two runs that
    differ in any setting never share a cached summary.
    """

    name: str
    code_version: ClassVar[str] = "1"
    prompt_version: str | None = None
    default_batch_size: int = 64
    extractive: ClassVar[bool] = False

    @abstractmethod
    def parameters(self) -> dict[str, Any]:
        """Return the settings that determine the output (recorded and hashed into the cache key)."""

    def revision(self) -> str:
        """Return the model revision (a hash or commit id); algorithmic summarizers have none."""
        return "none"

    @abstractmethod
    def summarize_batch(self, inputs: Sequence[Input]) -> list[SummaryOutcome]:
        """Summarize a batch; return one outcome per input, in order."""

    def summarize(self, inputs: Sequence[Input]) -> list[SummaryOutcome]:
        """Summarize any number of inputs in batches of ``default_batch_size`` (no cache; see ``runner``)."""
        outcomes: list[SummaryOutcome] = []
        for start in range(0, len(inputs), self.default_batch_size):
            outcomes.extend(self.summarize_batch(inputs[start : start + self.default_batch_size]))
        return outcomes

    def meta(self) -> dict[str, Any]:
        return {
            "summarizer": self.name,
            "revision": self.revision(),
            "parameters": self.parameters(),
            "prompt_version": self.prompt_version,
            "code_version": self.code_version,
        }


def clean_output(text: str) -> str:
    """Model output as storable text: lone surrogates (which cannot be written as UTF-8) become U+FFFD and NUL
    characters are dropped; everything else, markup included, is kept (pages and exports escape it)."""
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace").replace("\x00", "")


def text_seed(seed: int, text: str) -> int:
    """A 64-bit seed derived from a run seed and an input text.

    Randomness keyed on the text (not the input id) keeps seeded summarizers consistent with the cache, whose key
    hashes the text: the same text under the same seed always gets the same draw.
    """
    digest = hashlib.sha256(f"{seed}\x00{text}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


Factory = Callable[[re.Match[str], dict[str, Any]], Summarizer]
_REGISTRY: list[tuple[re.Pattern[str], str, Factory]] = []


def register(pattern: str, example: str) -> Callable[[Factory], Factory]:
    """Register a factory for summarizer names matching ``pattern`` (a full-match regex)."""

    def decorator(factory: Factory) -> Factory:
        _REGISTRY.append((re.compile(pattern), example, factory))
        return factory

    return decorator


def get_summarizer(name: str, **params: Any) -> Summarizer:
    """Build the summarizer a name stands for, e.g. ``get_summarizer("lead-3")`` or ``("openai:gpt-4o", base_url=…)``."""
    for pattern, _, factory in _REGISTRY:
        match = pattern.fullmatch(name)
        if match:
            try:
                return factory(match, dict(params))
            except TypeError as error:
                raise SummarizerError(f"summarizer '{name}': bad parameters ({error})") from None
    known = ", ".join(example for _, example, _ in _REGISTRY)
    raise SummarizerError(f"unknown summarizer '{name}'; known forms: {known}")


def summarizer_examples() -> list[str]:
    """Return one example name per registered summarizer family, in registration order."""
    return [example for _, example, _ in _REGISTRY]
