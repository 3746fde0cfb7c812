"""Word-level diffs between two summaries, telling the perturbation's own swaps apart from what the model changed.

When inputs differ by a name or pronoun swap, their summaries differ in those words too. Those differences are
*expected*: the perturbation made them. Every other inserted or deleted word is a change the summarizer made. The
Compare page marks the two kinds differently and ranks originals by the model-made difference only.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from bias_core.common.records import Input
from bias_core.compare.units import focus_shift, is_unit_composition

# Display tokens are whitespace-separated words with their punctuation, so joining them with spaces reproduces a
# readable summary; comparison uses a normalised key (lowercase, no punctuation, no possessive 's). A side-by-side
# diff keeps each word's own following whitespace, so each side reads exactly as its summary.
_WORD = re.compile(r"\S+")
_SPACED_WORD = re.compile(r"(\S+)(\s*)")
_EDGE_PUNCTUATION = re.compile(r"^[^\w]+|[^\w]+$")
_POSSESSIVE = re.compile(r"['’]s$")


def normalise(token: str) -> str:
    """The comparison key of a display token: 'Moore's,' → 'moore'."""
    return _POSSESSIVE.sub("", _EDGE_PUNCTUATION.sub("", token.lower()))


@dataclass(frozen=True)
class DiffToken:
    """One display token: ``op`` is 'equal', 'delete' (only in A) or 'insert' (only in B); ``expected`` marks a
    changed token that the perturbation explains (a swapped name, pronoun or title); ``space`` is the whitespace that
    follows the word in its own summary (``side_by_side_diff`` only)."""

    text: str
    op: str
    expected: bool = False
    space: str = ""


def expected_words(*inputs: Input) -> set[str]:
    """The normalised words that the inputs' substitutions put in or took out (names, pronouns, titles)."""
    words: set[str] = set()
    for item in inputs:
        for substitution in item.substitutions:
            for text in (substitution.original, substitution.replacement):
                words.update(normalise(token) for token in _WORD.findall(text))
    words.discard("")
    return words


def _opcodes(tokens_a: list[str], tokens_b: list[str]) -> list[tuple[str, int, int, int, int]]:
    """difflib's opcodes between two token lists, compared by their normalised keys."""
    return difflib.SequenceMatcher(None, [normalise(t) for t in tokens_a], [normalise(t) for t in tokens_b],
                                   autojunk=False).get_opcodes()


def word_diff(a: str, b: str, expected: Iterable[str] = ()) -> list[DiffToken]:
    """Return the tokens of A and B merged into one sequence of equal, deleted and inserted tokens."""
    expected = set(expected)
    tokens_a, tokens_b = _WORD.findall(a), _WORD.findall(b)
    merged: list[DiffToken] = []
    for tag, i1, i2, j1, j2 in _opcodes(tokens_a, tokens_b):
        if tag == "equal":
            merged.extend(DiffToken(t, "equal") for t in tokens_b[j1:j2])
            continue
        merged.extend(DiffToken(t, "delete", normalise(t) in expected) for t in tokens_a[i1:i2])
        merged.extend(DiffToken(t, "insert", normalise(t) in expected) for t in tokens_b[j1:j2])
    return merged


def side_by_side_diff(a: str, b: str, expected: Iterable[str] = ()) -> tuple[list[DiffToken], list[DiffToken]]:
    """Return each summary as its own tokens marked against the other: A's 'equal' or 'delete', B's 'equal' or
    'insert', matched as ``word_diff`` matches them. Every token keeps its own spelling and the whitespace after it
    (``space``), so a side's ``text + space`` joined is its summary as written (leading whitespace aside): "games.
    Earlier" stays "games. Earlier" where the other side has "games earlier"."""
    expected = set(expected)
    spaced_a, spaced_b = _SPACED_WORD.findall(a), _SPACED_WORD.findall(b)
    side_a: list[DiffToken] = []
    side_b: list[DiffToken] = []
    for tag, i1, i2, j1, j2 in _opcodes([word for word, _ in spaced_a], [word for word, _ in spaced_b]):
        changed = tag != "equal"
        side_a += [DiffToken(word, "delete" if changed else "equal", changed and normalise(word) in expected, space)
                   for word, space in spaced_a[i1:i2]]
        side_b += [DiffToken(word, "insert" if changed else "equal", changed and normalise(word) in expected, space)
                   for word, space in spaced_b[j1:j2]]
    return side_a, side_b


def model_difference(a: str, b: str, expected: Iterable[str] = ()) -> float:
    """1 − difflib ratio over normalised word tokens, with expected (perturbed) words masked on both sides.

    0 means the summaries are the same apart from the perturbation's own swaps; 1 means nothing in common.
    """
    expected = set(expected)

    def masked(text: str) -> list[str]:
        return ["<swap>" if (key := normalise(t)) in expected else key for t in _WORD.findall(text)]

    left, right = masked(a), masked(b)
    if not left and not right:
        return 0.0
    return 1.0 - difflib.SequenceMatcher(None, left, right, autojunk=False).ratio()


def change_counts(tokens: Iterable[DiffToken]) -> dict[str, int]:
    """How many tokens were inserted or deleted by the model and by the perturbation."""
    counts = {"model_inserted": 0, "model_deleted": 0, "swapped": 0}
    for token in tokens:
        if token.op == "equal":
            continue
        if token.expected:
            counts["swapped"] += 1
        else:
            counts["model_inserted" if token.op == "insert" else "model_deleted"] += 1
    return counts


@dataclass(frozen=True)
class OriginalDifference:
    """How much one summarizer's summaries of an original's perturbed inputs differ from its identity summary."""

    original_id: str
    perturbation: str
    summarizer: str
    mean_difference: float
    max_difference: float
    most_different_input: str
    n_inputs: int


def rank_originals(inputs: Iterable[Input], summaries: Iterable, *, summarizers: Iterable[str] | None = None,
                   perturbation: str | None = None) -> list[OriginalDifference]:
    """Rank (original, perturbation, summarizer) by the mean model-made difference, most different first.

    Name swaps: each perturbed input's summary is compared with the identity summary of its original by the same
    summarizer, with the perturbation's swapped words masked (``model_difference``). Unit-composition inputs
    (sentiment splits) differ in words by design, so a word diff would blame the model for the perturbation: each
    summary is set against its own input instead, by the shift of the focus value, summary share minus input share
    (``bias_core.compare.units.focus_shift``), and the size of the mean shift ranks them. Originals without an identity
    summary are left out, as before.
    """
    by_id = {item.id: item for item in inputs}
    wanted = set(summarizers) if summarizers is not None else None
    identity: dict[tuple[str, str], str] = {}
    perturbed: dict[tuple[str, str, str], list[tuple[str, float]]] = {}
    rows = [s for s in summaries if (wanted is None or s.summarizer in wanted) and s.input_id in by_id]
    for summary in rows:
        item = by_id[summary.input_id]
        if item.perturbation == "identity" and (item.original_id, summary.summarizer) not in identity:
            identity[(item.original_id, summary.summarizer)] = summary.text
    for summary in rows:
        item = by_id[summary.input_id]
        if item.perturbation == "identity" or (perturbation and item.perturbation != perturbation):
            continue
        reference = identity.get((item.original_id, summary.summarizer))
        if reference is None:
            continue
        if is_unit_composition(item):
            score = focus_shift(item, summary.text)
            if score is None:
                continue
        else:
            score = model_difference(reference, summary.text, expected_words(item))
        perturbed.setdefault((item.original_id, item.perturbation, summary.summarizer), []).append((item.id, score))
    ranked = []
    for (original_id, kind, summarizer), scores in perturbed.items():
        values = [score for _, score in scores]
        worst = max(scores, key=lambda pair: abs(pair[1]))
        # Signed focus shifts of a unit-composition split cancel when a summarizer picks units regardless of value;
        # the mean's size is what it does systematically (word differences are never negative).
        mean = abs(sum(values) / len(values))
        ranked.append(OriginalDifference(original_id, kind, summarizer, mean, abs(worst[1]), worst[0], len(values)))
    ranked.sort(key=lambda row: (-row.mean_difference, row.original_id, row.summarizer))
    return ranked
