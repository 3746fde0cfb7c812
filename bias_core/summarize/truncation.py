"""Generations cut off by the token limit end at their last complete sentence (fidelity: docs/fidelity.md).

A causal LM that reaches ``max_new_tokens`` stops mid-sentence, often mid-name ("Judge Al", "Donna Sim"); a half
name would then be counted as a hallucinated entity of the wrong gender. Dropping the unfinished sentence keeps
every measured word one the model meant to write; the summary records that it was cut and what was dropped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bias_core.common import nlp

# Characters that may close a sentence, possibly followed by closing quotes or brackets.
SENTENCE_END = ".!?…"
CLOSERS = "\"'”’)]»"
# Fallback when spaCy keeps the unfinished tail inside one sentence with complete ones: the last sentence-final
# punctuation mark that is followed by white space.
_LAST_END = re.compile(r"[.!?…][\"'”’)\]»]*(?=\s)")


@dataclass(frozen=True)
class Completed:
    """A generation reduced to its complete sentences: the kept text and the unfinished tail that was dropped."""

    text: str
    dropped: str


def ends_sentence(text: str) -> bool:
    """Whether ``text`` ends with sentence-final punctuation (ignoring closing quotes and brackets)."""
    stripped = text.rstrip().rstrip(CLOSERS)
    return bool(stripped) and stripped[-1] in SENTENCE_END


def complete_sentences(texts: Sequence[str]) -> list[Completed]:
    """Return each text up to the end of its last complete sentence (spaCy sentences, so "Mr." is not an end).

    A text whose final sentence already ends with sentence-final punctuation is kept whole; a text with no complete
    sentence at all becomes empty (everything in it was unfinished).
    """
    results: list[Completed] = []
    sentences_per_text = nlp.split_sentences(texts)
    for text, sentences in zip(texts, sentences_per_text, strict=True):
        stripped = text.strip()
        if not stripped or ends_sentence(stripped):
            results.append(Completed(stripped, ""))
            continue
        last = sentences[-1] if sentences else stripped
        cut = stripped.rfind(last.strip()) if last.strip() else -1
        if cut <= 0:
            ends = list(_LAST_END.finditer(stripped))
            cut = ends[-1].end() if ends else 0
        kept = stripped[:cut].rstrip()
        results.append(Completed(kept, stripped[cut:].strip()))
    return results
