"""A cheap check that a text is English, since the spaCy model, the census name lists and the word lists are.

Documents in another language are not refused (a mixed corpus may be intended), but users are told, because
perturbations and measures will silently find no people or identifiers in them.
"""

from __future__ import annotations

import functools
import importlib.util
import re
from collections.abc import Iterable
from pathlib import Path

from bias_core.common.records import Document

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
# English prose has 35-55% stop words; even terse headlines have more than 15%.
MIN_STOP_WORD_SHARE = 0.15
MIN_WORDS = 20


@functools.cache
def english_stop_words() -> frozenset[str]:
    """spaCy's English stop-word list (326 words), read from its module file without importing spaCy itself: the
    import loads the whole library (about 2 s, most of the CLI's start) and this list is all that is needed here."""
    spec = importlib.util.find_spec("spacy")
    if spec is None or not spec.submodule_search_locations:
        return frozenset()
    path = Path(next(iter(spec.submodule_search_locations))) / "lang" / "en" / "stop_words.py"
    module_spec = importlib.util.spec_from_file_location("summbias_spacy_en_stop_words", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return frozenset(module.STOP_WORDS)


def english_share(text: str) -> float:
    """Share of the text's words that are English stop words (0 for a text without words)."""
    words = [w.lower() for w in _WORD.findall(text)]
    stop_words = english_stop_words()
    return sum(w in stop_words for w in words) / len(words) if words else 0.0


def looks_english(text: str) -> bool:
    """False when a text of at least ``MIN_WORDS`` words has too few English stop words to be English prose."""
    return len(_WORD.findall(text)) < MIN_WORDS or english_share(text) >= MIN_STOP_WORD_SHARE


def non_english_documents(documents: Iterable[Document]) -> list[str]:
    """Ids of the documents that do not look like English."""
    return [d.id for d in documents if not looks_english(d.full_text)]
