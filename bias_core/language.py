"""A cheap check that a text is English, since the spaCy model, the census name lists and the word lists are.

Documents in another language are not refused (a mixed corpus may be intended), but users are told, because
perturbations and measures will silently find no people or identifiers in them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from spacy.lang.en.stop_words import STOP_WORDS

from bias_core.records import Document

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
# English prose has 35-55% stop words; even terse headlines have more than 15%.
MIN_STOP_WORD_SHARE = 0.15
MIN_WORDS = 20


def english_share(text: str) -> float:
    """Share of the text's words that are English stop words (0 for a text without words)."""
    words = [w.lower() for w in _WORD.findall(text)]
    return sum(w in STOP_WORDS for w in words) / len(words) if words else 0.0


def looks_english(text: str) -> bool:
    """False when a text of at least ``MIN_WORDS`` words has too few English stop words to be English prose."""
    return len(_WORD.findall(text)) < MIN_WORDS or english_share(text) >= MIN_STOP_WORD_SHARE


def non_english_documents(documents: Iterable[Document]) -> list[str]:
    """Ids of the documents that do not look like English."""
    return [d.id for d in documents if not looks_english(d.full_text)]
