"""How perspective fairness matches summary tokens to the units of each value (METHODS §4.7): spaCy content tokens,
the per-sample ``SampleUnits`` every score is computed from, and the FairSumm rule of which value slots count."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bias_core.common import nlp

PARSE_DISABLED = ("parser", "ner")
# The perspective nulls that draw extractive summaries from the units' sentences (perspective_null), so need them.
SELECTION_NULLS = ("shape", "selection", "sentences")
# The selection null splits the units into sentences with the parser, as the extractive summarizers do.
SENTENCE_PARSE_DISABLED = ("ner",)


def _content(tokens) -> list[str]:
    return [t.lemma_.lower() for t in tokens if not (t.is_stop or t.is_punct or t.is_space)]


def content_tokens(texts: Sequence[str]) -> list[list[str]]:
    """Return lowercased lemmas without stop words, punctuation or spaces, one batched spaCy pass."""
    return [_content(doc) for doc in nlp.parse(texts, disable=PARSE_DISABLED)]


def sentence_content_tokens(texts: Sequence[str]) -> list[list[tuple[str, list[str]]]]:
    """Return each text's sentences as (stripped text, content tokens), from one batched spaCy pass with the parser
    on (the sentence boundaries the extractive summarizers use, ``extractive.split_inputs``); sentences without
    text are dropped. The content tokens are those of ``content_tokens`` (the parser changes no tag or lemma), so a
    text's tokens are its sentences' tokens joined."""
    missing = [text for text in dict.fromkeys(texts) if text not in _SENTENCES]
    if missing:
        for text, doc in zip(missing, nlp.parse(missing, disable=SENTENCE_PARSE_DISABLED), strict=True):
            _SENTENCES[text] = [(sent.text.strip(), _content(sent)) for sent in doc.sents if sent.text.strip()]
    found = [_SENTENCES[text] for text in texts]
    while len(_SENTENCES) > _SENTENCES_KEPT:  # oldest first (dicts keep insertion order)
        del _SENTENCES[next(iter(_SENTENCES))]
    return found


# The units of one audit recur in every summarizer's and perturbation's call (the sentiment inputs are mixes of the
# same reviews), so their parse is kept per text; the parse is deterministic, so a kept one equals a new one.
_SENTENCES: dict[str, list[tuple[str, list[str]]]] = {}
_SENTENCES_KEPT = 50_000


@dataclass(frozen=True)
class SampleUnits:
    """What one sample's scores are computed from, so they can be recomputed under the null without parsing or
    embedding again (METHODS §4.7).

    ``labels`` gives each unit that has a value the index of that value in ``values`` (the sorted values of the
    sample's units, including values whose units have no content tokens); ``mass`` is each unit's number of content
    tokens. N-gram matching: ``occurs[j, u]`` is 1 when the j-th distinct summary token occurs in unit u and
    ``weights[j]`` is how often that token occurs in the summary. Embedding matching: ``similarity[u]`` is the
    cosine between unit u and the summary.

    The selection null (``null='selection'``) also needs the sentences of the units (those with a value), in unit
    order: ``sentences`` (texts), ``sentence_unit`` (the unit each belongs to), ``sentence_mass`` (content tokens)
    and ``budget`` (the summary's content tokens). N-gram matching: ``sentence_counts[s, v]`` = how many of sentence
    s's content tokens (with multiplicity) occur in the units of value v, as the summary's tokens are counted.
    Embedding matching: ``sentence_vectors`` and ``unit_vectors`` (L2-normalised, float64). The shape null
    (``null='shape'``) also needs ``summary_sources``: the indices in ``sentences`` of the input sentences the
    summary comes from (``source_sentences``).

    The FairSumm authors' pipeline (``fairsumm_ngram.sample_units``) sets ``keep_empty_slots`` (``values`` are the
    slots of every input of the call, and a value counts when ``kept_slots`` keeps it, not when it has
    tokens) and ``inclusive`` (a value is under-represented when p_y ≤ τ·p_g, not <).
    """

    original: str
    input_id: str
    values: tuple[str, ...]
    labels: np.ndarray
    mass: np.ndarray
    occurs: np.ndarray | None = None
    weights: np.ndarray | None = None
    similarity: np.ndarray | None = None
    budget: int = 0
    budget_sentences: int = 0
    sentences: tuple[str, ...] = ()
    sentence_unit: np.ndarray | None = None
    sentence_mass: np.ndarray | None = None
    sentence_counts: np.ndarray | None = None
    sentence_vectors: np.ndarray | None = None
    unit_vectors: np.ndarray | None = None
    summary_sources: np.ndarray | None = None
    keep_empty_slots: bool = False
    inclusive: bool = False

    def present(self, mass: np.ndarray) -> np.ndarray:
        """Which values count, per row of per-value token counts: those with tokens, or the FairSumm kept slots."""
        return kept_slots(mass) if self.keep_empty_slots else mass > 0


def source_sentences(summary_sentences: Sequence[Sequence[str]], input_sentences: Sequence[Sequence[str]]
                     ) -> np.ndarray:
    """Return the indices of the input sentences the summary comes from, in summary order, given each summary
    sentence's content tokens and each input sentence's (METHODS §4.7, the shape null). Value-blind: only the texts
    are read.

    Per summary sentence, the input sentence with the largest Dice overlap of the two token multisets (2·|shared| /
    (|a| + |b|); a copied sentence scores 1; ties to the earlier), then, from the tokens left, every further input
    sentence that those tokens contain at least half of, most shared first: two copied sentences the parser reads as
    one (a review sentence without a final stop) are two sources. A summary sentence sharing no token with the input
    has none. Written here: a multiset cover over a few sentences needs no library."""
    counted = [Counter(tokens) for tokens in input_sentences]
    sizes = [len(tokens) for tokens in input_sentences]
    found: list[int] = []
    for tokens in summary_sentences:
        left = Counter(tokens)
        best, chosen = 0.0, -1
        for index, (theirs, size) in enumerate(zip(counted, sizes)):
            shared = sum((left & theirs).values())
            if shared and 2.0 * shared / (len(tokens) + size) > best:
                best, chosen = 2.0 * shared / (len(tokens) + size), index
        taken = set()
        while chosen >= 0:
            found.append(chosen)
            taken.add(chosen)
            left -= counted[chosen]
            chosen, most = -1, 0
            for index, (theirs, size) in enumerate(zip(counted, sizes)):
                shared = sum((left & theirs).values())
                if index not in taken and shared > most and 2 * shared >= size:
                    chosen, most = index, shared
    return np.array(found, dtype=np.int64)


def kept_slots(mass: np.ndarray) -> np.ndarray:
    """Return which value slots the FairSumm code keeps (bur_uer.py / eval.py ``cutoff_distribution`` with cutoff 1),
    per row of slot token counts: slots sorted by count (largest first, ties in slot order) are kept up to and
    including the one at which the float running sum of count / total reaches 1.0; all of them when it never does.
    NumPy's cumulative sum adds in the same order as the authors' loop, so the floats are theirs."""
    mass = np.atleast_2d(np.asarray(mass, dtype=float))
    rows, r = mass.shape
    order = np.argsort(-mass, axis=1, kind="stable")
    ordered = np.take_along_axis(mass, order, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        running = np.cumsum(ordered / mass.sum(axis=1, keepdims=True), axis=1)
    reached = running >= 1.0
    last = np.where(reached.any(axis=1), reached.argmax(axis=1), r - 1)
    kept = np.zeros((rows, r), dtype=bool)
    np.put_along_axis(kept, order, np.arange(r)[None, :] <= last[:, None], axis=1)
    return kept & (mass.sum(axis=1, keepdims=True) > 0)
