"""The FairSumm authors' N-gram matching for perspective fairness, ``fairsumm-ngram`` (METHODS §4.7; Zhang et al.
§3.2, Table 10), reproducing their released code (psunlpgroup/FairSumm at 09ed7c3: ``metrics/eval.py``,
``metrics/score/basic.py``, ``metrics/score/bur_uer.py``) step by step:

1. One string per value slot: the units of that value joined by " || " in input order; the empty string when the
   sample has no unit of that value. The slots are the values seen in any input of the call (the authors' value
   mapping, e.g. pos / neu / neg for Yelp: every sample has every slot).
2. Lowercase; NLTK ``word_tokenize`` (Punkt sentences, then the Treebank word tokenizer).
3. Drop the tokens that are one punctuation character, NLTK's ``stopwords.words()`` of *all* languages (9,380 words
   in the 2023 lists, not spaCy's 326 English ones) and ``||``, ``people``, ``''``, ````` ``, ``...``, ``..``.
4. Lemmatise each token with WordNet, the part of speech being what ``nltk.pos_tag([token])`` gives the token alone
   (NN / JJ / VB / RB → noun / adjective / verb / adverb, anything else the lemmatizer's default, noun); then Porter
   stem (NLTK's ``PorterStemmer``, NLTK extensions).
5. p_x(v) = slot v's share of the tokens. p_y: every summary token (repeats included) adds 1 to every value whose
   token list contains it; normalised; uniform over the kept slots when no summary token matches.
6. Kept slots (``matching.kept_slots``): the slots sorted by token count, largest first, are kept while the float
   running sum of their shares is below 1.0. A slot with no tokens is therefore dropped only when the sum reached
   exactly 1.0 before it (always with one non-empty slot; with two or more, only when the float additions happen to
   give 1.0); otherwise it stays, with p_x = 0 and p_y = 0 unless nothing matched, so 0 ≤ 0.8 · 0 makes the sample
   unfair, and it counts in UER's divisor.
7. A sample is unfair when some kept value has p_y ≤ τ · p_x (``≤``, τ = 0.8); UER is the mean over kept values of
   max(0, p_x − p_y); BUR and UER are plain means over samples × 100. A summary that is empty or blank is skipped, as
   ``eval.py`` does (``skip_empty``).

Only the tokens, the kept slots and ``≤`` differ from summbias's own ``ngram`` matching; the rest (target, AUC,
SOF, intervals, the permutation null) is that of ``perspective_scores``, ``perspective_null`` and ``perspective``.
The units are tokenised as their slot string is, then split at the " || " tokens, so every unit gets exactly its
share of the slot's tokens: the shuffle null re-assigns those units to values, and the selection null's sentences
are the Punkt sentences of those pieces, their tokens counted against the slots' token lists as a summary's are (a
null summary's p_y uses this pipeline).

The NLTK data this needs (stop words, WordNet, the English Punkt parameters and the perceptron tagger) is not part of
the default setup; ``check_nltk_data`` says in one line what is missing and how to install it, before any work.
``fairsumm_table10.table10_cells`` recomputes the published Table 10 N-gram cells from the authors' released Yelp
outputs.
"""

from __future__ import annotations

import functools
import string
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from bias_core.safety.errors import InputError

if TYPE_CHECKING:
    from bias_core.measures.common import Pair
    from bias_core.measures.matching import SampleUnits

FAIRSUMM_NGRAM = "fairsumm-ngram"
UNIT_SEPARATOR = " || "
SEPARATOR_TOKEN = "||"
# eval.py's ST_WORDS beyond NLTK's stop words and the punctuation characters.
EXTRA_STOP_WORDS = ("||", "people", "''", "``", "...", "..")
# Penn tag prefix → WordNet part of speech (basic.py ``pos_to_wordnet_pos``); any other tag lemmatises as a noun.
WORDNET_POS = {"NN": "n", "JJ": "a", "VB": "v", "RB": "r"}
# What nltk 3.9+ reads (nltk.data.find names), by the name ``nltk.downloader`` installs it under.
NLTK_RESOURCES = {
    "stopwords": "corpora/stopwords",
    "wordnet": "corpora/wordnet",
    "punkt_tab": "tokenizers/punkt_tab/english/",
    "averaged_perceptron_tagger_eng": "taggers/averaged_perceptron_tagger_eng/",
}
INSTALL_COMMAND = f"python -m nltk.downloader {' '.join(NLTK_RESOURCES)}"
# Zhang et al., Table 10, Yelp, N-gram score, τ = 0.8, in %.
TABLE10_PUBLISHED = {"GPT-4": {"BUR": 20.27, "UER": 2.50}, "Alpaca": {"BUR": 34.47, "UER": 3.71}}
TABLE10_SUMMARIES = {"GPT-4": "yelp1500_gpt4_summaries.jsonl.gz", "Alpaca": "yelp1500_alpaca_summaries.jsonl.gz"}
TABLE10_INPUTS = "yelp1500_inputs.jsonl.gz"


def missing_nltk_data() -> list[str]:
    """Return the names (as ``nltk.downloader`` knows them) of the NLTK packages this matching needs that NLTK cannot
    find on its data path (``NLTK_DATA``, ``~/nltk_data`` …); ``["nltk"]`` when NLTK itself is not installed."""
    try:
        import nltk.data
    except ImportError:
        return ["nltk"]
    missing = []
    for name, resource in NLTK_RESOURCES.items():
        top, _, rest = resource.rstrip("/").partition("/")
        leaf = rest.split("/")[0]
        # as a folder, or as the zip the downloader leaves (corpora/wordnet.zip holds wordnet/…)
        for candidate in (resource, f"{top}/{leaf}.zip/{rest}/"):
            try:
                nltk.data.find(candidate)
                break
            except LookupError:
                continue
        else:
            missing.append(name)
    return missing


def nltk_data_error(where: str, missing: Sequence[str]) -> InputError:
    """The one-line error for missing NLTK data: what is missing and the command that installs it."""
    if list(missing) == ["nltk"]:
        return InputError(where, "'fairsumm-ngram' needs NLTK, which is not installed",
                          hint=f"pip install nltk, then run `{INSTALL_COMMAND}`")
    return InputError(where, f"missing NLTK data for 'fairsumm-ngram': {', '.join(missing)}",
                      hint=f"run `python -m nltk.downloader {' '.join(missing)}` (or add -d DIR, then set "
                           f"NLTK_DATA=DIR)")


def check_nltk_data(where: str = "perspective matching 'fairsumm-ngram'") -> None:
    """Raise ``InputError`` (one line: what is missing, how to install it) unless the NLTK data is installed."""
    missing = missing_nltk_data()
    if missing:
        raise nltk_data_error(where, missing)


def _loading(function):
    """Turn NLTK's own loading errors (a resource it cannot find or read) into the one-line ``InputError``."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except (LookupError, OSError) as error:
            problem = " ".join(str(error).split())[:200]
            raise InputError("perspective matching 'fairsumm-ngram'", f"NLTK could not load its data ({problem})",
                             hint=f"install it with `{INSTALL_COMMAND}` or point NLTK_DATA at a folder that "
                                  f"holds it") from None
    return wrapper


@functools.cache
def stop_words() -> frozenset[str]:
    """Return eval.py's ``ST_WORDS``: the punctuation characters, NLTK's stop words of every language and the
    extra tokens."""
    from nltk.corpus import stopwords

    return frozenset(string.punctuation) | frozenset(stopwords.words()) | frozenset(EXTRA_STOP_WORDS)


@functools.cache
def _lemmatizer_and_stemmer():
    from nltk.stem import PorterStemmer, WordNetLemmatizer

    return WordNetLemmatizer(), PorterStemmer()


@functools.lru_cache(maxsize=1 << 18)
def normalise(token: str) -> str:
    """Return the token's WordNet lemma, with the part of speech ``pos_tag`` gives the token alone, Porter-stemmed
    (basic.py ``get_lemma`` then ``ps.stem``)."""
    import nltk

    lemmatizer, stemmer = _lemmatizer_and_stemmer()
    pos = WORDNET_POS.get(nltk.pos_tag([token])[0][1][:2])
    lemma = lemmatizer.lemmatize(token, pos) if pos else lemmatizer.lemmatize(token)
    return stemmer.stem(lemma)


# A piece is a stretch of one unit inside one Punkt sentence: (its raw tokens joined by spaces, its kept tokens).
Piece = tuple[str, list[str]]


def _pieces(text: str) -> list[list[Piece]]:
    """Return the lowercased ``text`` as units (split at " || " tokens), each a list of pieces (split at Punkt
    sentence boundaries); a unit's kept tokens are its pieces' tokens joined."""
    from nltk.tokenize import sent_tokenize, word_tokenize

    stop = stop_words()
    units: list[list[Piece]] = [[]]
    for sentence in sent_tokenize(text.lower()):
        raw: list[str] | None = None
        for token in word_tokenize(sentence, preserve_line=True):  # word_tokenize's own per-sentence step
            if token == SEPARATOR_TOKEN:
                units.append([])
                raw = None
                continue
            if raw is None:
                raw, kept = [], []
                units[-1].append((raw, kept))
            raw.append(token)
            if token not in stop:
                kept.append(normalise(token))
    return [[(" ".join(raw), kept) for raw, kept in unit] for unit in units]


@_loading
def text_tokens(text: str) -> list[str]:
    """Return the pipeline's tokens of one text (lowercase, ``word_tokenize``, stop words out, lemma, stem), as
    eval.py computes a summary's."""
    return [token for unit in _pieces(text) for _, kept in unit for token in kept]


@_loading
def slot_pieces(unit_texts: Sequence[str]) -> list[list[Piece]]:
    """Return each unit's pieces, tokenised as the slot string (the units joined by " || ") is and split back at
    the separators, so the units' tokens are exactly the slot's. A unit whose own text holds a " || " token makes
    the split ambiguous; then each unit is tokenised alone (its tokens can differ at unit boundaries)."""
    key = tuple(unit_texts)
    found = _SLOTS.get(key)
    if found is None:
        units = _pieces(UNIT_SEPARATOR.join(unit_texts)) if unit_texts else []
        if len(units) != len(unit_texts):
            units = [[piece for part in _pieces(text) for piece in part] for text in unit_texts]
        found = _SLOTS[key] = units
        while len(_SLOTS) > _SLOTS_KEPT:  # oldest first
            del _SLOTS[next(iter(_SLOTS))]
    return found


# The slots of one audit recur in every summarizer's call (the same inputs); tokenising them is deterministic.
_SLOTS: dict[tuple[str, ...], list[list[Piece]]] = {}
_SLOTS_KEPT = 20_000


def _counted(tokens: Sequence[str]) -> dict[str, int]:
    counted: dict[str, int] = {}
    for token in tokens:
        counted[token] = counted.get(token, 0) + 1
    return counted


def sample_units(pairs: Sequence[Pair], *, null: str) -> tuple[list[SampleUnits | None], list[str]]:
    """Return each pair's ``matching.SampleUnits`` under this pipeline (None for a skipped sample) and the
    reasons samples were skipped, as ``perspective_scores.sample_units`` does for the spaCy matchings; the values are
    the slots of every input of the call, so a sample lacking one has it as an empty slot (``kept_slots``)."""
    from bias_core.measures.matching import SELECTION_NULLS, SampleUnits, source_sentences

    check_nltk_data()
    slots = tuple(sorted({unit.value for pair in pairs for unit in pair.input.units or [] if unit.value is not None}))
    column = {value: i for i, value in enumerate(slots)}
    selection = null in SELECTION_NULLS
    results: list[SampleUnits | None] = []
    skipped: list[str] = []
    for pair in pairs:
        members = [unit for unit in pair.input.units or [] if unit.value is not None]
        if not pair.summary.text.strip():
            results.append(None)
            skipped.append(f"{pair.input.id}: empty summary (skipped, as the FairSumm code does)")
            continue
        pieces: list[list[Piece]] = [[] for _ in members]
        for value in slots:
            positions = [i for i, unit in enumerate(members) if unit.value == value]
            for position, unit_pieces in zip(positions, slot_pieces([members[i].text for i in positions]),
                                              strict=True):
                pieces[position] = unit_pieces
        unit_tokens = [[token for _, kept in unit for token in kept] for unit in pieces]
        mass = np.array([len(tokens) for tokens in unit_tokens], dtype=float)
        if not members or mass.sum() <= 0:
            results.append(None)
            skipped.append(f"{pair.input.id}: no unit with a value and content tokens")
            continue
        labels = np.array([column[unit.value] for unit in members], dtype=np.int64)
        vocabularies = [set(tokens) for tokens in unit_tokens]
        summary = _summary_pieces(pair.summary.text)
        counted = _counted([token for _, kept in summary for token in kept])
        found = [token for token in counted if any(token in vocabulary for vocabulary in vocabularies)]
        occurs = np.array([[token in vocabulary for vocabulary in vocabularies] for token in found],
                          dtype=float).reshape(len(found), len(members))
        weights = np.array([counted[token] for token in found], dtype=float)
        extra = {}
        if selection:
            sentences = [(position, text, kept) for position, unit in enumerate(pieces) for text, kept in unit]
            by_value = [set().union(*(vocabularies[p] for p in np.flatnonzero(labels == v)))
                        for v in range(len(slots))]
            extra = {"budget": sum(counted.values()), "budget_sentences": len(summary),
                     "sentences": tuple(text for _, text, _ in sentences),
                     "sentence_unit": np.array([position for position, _, _ in sentences], dtype=np.int64),
                     "sentence_mass": np.array([len(kept) for _, _, kept in sentences], dtype=float),
                     "summary_sources": source_sentences([kept for _, kept in summary],
                                                         [kept for _, _, kept in sentences]),
                     "sentence_counts": np.array(
                         [[sum(token in vocabulary for token in kept) for vocabulary in by_value]
                          for _, _, kept in sentences], dtype=float).reshape(len(sentences), len(slots))}
        results.append(SampleUnits(pair.input.original_id, pair.input.id, slots, labels, mass, occurs, weights,
                                   keep_empty_slots=True, inclusive=True, **extra))
    return results, skipped


@_loading
def _summary_pieces(text: str) -> list[Piece]:
    """The summary's Punkt-sentence pieces (a summary's own " || " tokens are dropped as stop words, not split)."""
    return [piece for unit in _pieces(text) for piece in unit]


def prepend_nltk_path(folder: Path) -> None:
    import nltk.data

    path = str(folder.resolve())
    if path not in nltk.data.path:
        nltk.data.path.insert(0, path)
