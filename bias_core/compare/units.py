"""Comparing two summaries of unit-composition inputs (a sentiment split of reviews, METHODS §1.6): by which units each
summary draws from, not by a word diff.

Two inputs of a sentiment split hold different reviews, so their summaries differ in words whatever the model does;
a word diff would call that input change a model change. What the model decides is which of its input's units it
reports. So each summary sentence is attributed to the unit of its own input it overlaps most (word overlap, see
``attribute``), the value shares of those units are compared with the input's shares, and two summaries differ by
how differently they shift the shares:

    shift(s)   = p_summary(v) − p_input(v)            for every value v
    D(s1, s2)  = ½ Σ_v |shift(s1)(v) − shift(s2)(v)|   in [0, 2]

D is 0 when both summaries over- or under-represent each value by the same amount, whatever their inputs hold. Over
the inputs of one original, the mean shift of the focus value (``focus_shift``) says whether a summarizer reports
the value the split controls more or less often than its inputs hold it: a summarizer that picks reviews regardless
of their value (lead-3) shifts at random and averages near 0, one that prefers a value does not. It
borrows the value shares of Zhang et al.'s fairness measures (METHODS §4.7) but attributes sentences by word overlap,
which is exact for extractive summaries and approximate for abstractive ones (the measures use sentence embeddings).
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass

from bias_core.common.records import Input

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")
# A sentence is attributed to a unit only when at least this share of its words appear there in order: below it
# the sentence is the model's own wording (a preamble such as "The reviews say:") and counts for no value.
MIN_OVERLAP = 0.5


def _words(text: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(text)]


def summary_sentences(text: str) -> list[str]:
    """A summary's sentences (split after . ! ? … and at line breaks), empty pieces dropped."""
    return [piece.strip() for piece in _SENTENCE_END.split(text) if piece.strip()]


@dataclass(frozen=True)
class UnitMatch:
    """One summary sentence and the input unit it overlaps most (None below ``MIN_OVERLAP``)."""

    sentence: str
    unit_index: int | None
    value: str | None
    overlap: float


@dataclass(frozen=True)
class UnitCoverage:
    """Which units of its input a summary draws from, and the value shares of the input and of the summary."""

    input_id: str
    matches: list[UnitMatch]
    input_shares: dict[str, float]
    summary_shares: dict[str, float]

    @property
    def covered(self) -> set[int]:
        return {match.unit_index for match in self.matches if match.unit_index is not None}

    @property
    def shift(self) -> dict[str, float]:
        """Each value's share in the summary minus its share in the input (only sentences attributed to a unit count;
        a summary attributed to none shifts nothing)."""
        if not self.summary_shares:
            return {value: 0.0 for value in self.input_shares}
        values = self.input_shares.keys() | self.summary_shares.keys()
        return {value: self.summary_shares.get(value, 0.0) - self.input_shares.get(value, 0.0) for value in values}


def attribute(sentence: str, units: list[str]) -> tuple[int | None, float]:
    """The index of the unit whose words cover most of the sentence's words in order (difflib matching blocks over
    lowercased words), and that share; (None, share) below ``MIN_OVERLAP``."""
    words = _words(sentence)
    if not words:
        return None, 0.0
    best, best_share = None, 0.0
    for index, unit in enumerate(units):
        matcher = difflib.SequenceMatcher(None, words, _words(unit), autojunk=False)
        share = sum(block.size for block in matcher.get_matching_blocks()) / len(words)
        if share > best_share:
            best, best_share = index, share
    return (best, best_share) if best_share >= MIN_OVERLAP else (None, best_share)


def _shares(values: list[str]) -> dict[str, float]:
    counts = Counter(values)
    total = sum(counts.values())
    return {value: count / total for value, count in counts.items()} if total else {}


def unit_coverage(item: Input, summary_text: str) -> UnitCoverage:
    """Attribute every sentence of ``summary_text`` to a unit of ``item`` (which must have units)."""
    if not item.units:
        raise ValueError(f"input {item.id} has no units to compare a summary with")
    texts = [unit.text for unit in item.units]
    matches = []
    for sentence in summary_sentences(summary_text):
        index, overlap = attribute(sentence, texts)
        value = None if index is None else str(item.units[index].value)
        matches.append(UnitMatch(sentence, index, value, overlap))
    return UnitCoverage(item.id, matches, _shares([str(unit.value) for unit in item.units]),
                        _shares([match.value for match in matches if match.value is not None]))


def composition_difference(a: UnitCoverage, b: UnitCoverage) -> float:
    """D(a, b) = ½ Σ_v |shift_a(v) − shift_b(v)| (module docstring): how differently two summaries re-weight the
    values of their own inputs; the inputs' own difference in composition is taken out."""
    shift_a, shift_b = a.shift, b.shift
    return 0.5 * sum(abs(shift_a.get(v, 0.0) - shift_b.get(v, 0.0)) for v in shift_a.keys() | shift_b.keys())


def focus_value(item: Input) -> str | None:
    """The value a sentiment split controls the share of (``focus_value``, else the part of the arm before "=")."""
    value = item.extra.get("focus_value")
    if value is None and item.arm and "=" in item.arm:
        value = item.arm.split("=", 1)[0]
    return None if value is None else str(value)


def focus_shift(item: Input, summary_text: str) -> float | None:
    """How much more (> 0) or less the summary reports the input's focus value than the input holds it:
    shift(s)(focus), the model's own re-weighting (the input's composition is subtracted). None without a focus
    value or when no sentence is attributed to a unit."""
    value = focus_value(item)
    if value is None:
        return None
    coverage = unit_coverage(item, summary_text)
    if not coverage.summary_shares:
        return None
    return coverage.shift.get(value, 0.0)


def is_unit_composition(item: Input) -> bool:
    """True for inputs that differ by which units they hold (sentiment splits and their identity documents)."""
    return bool(item.units) and not item.substitutions
