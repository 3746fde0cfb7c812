"""Summarizers behind one batched interface and a name registry (METHODS §2), and the summary cache.

>>> summarizer = get_summarizer("lead-3")
>>> report = summarize_inputs(summarizer, inputs, cache=SummaryCache())
"""

from bias_core.summarize import extractive, hf, openai_compat, smollm2  # noqa: F401  (registers the names)
from bias_core.summarize.base import Summarizer, SummaryFailure, get_summarizer, summarizer_examples
from bias_core.summarize.cache import SummaryCache, cache_key
from bias_core.summarize.runner import SummarizeReport, summarize_inputs

__all__ = [
    "Summarizer",
    "SummaryFailure",
    "SummaryCache",
    "SummarizeReport",
    "cache_key",
    "get_summarizer",
    "summarize_inputs",
    "summarizer_examples",
]
