"""Lexical-bias amplification: BIC, MBIC, SFPI and the sentence-order shuffle test (METHODS §4.10; BIC paper §3–7).

Needs, per document, a score for every sentence from an extractive summarizer and a label biased/not per sentence.

- Per document: scores are min–max normalised to [0, 1]; pmfs over I = 20 bins [0, 0.05), …, [0.95, 1] for the
  biased (D_B) and non-biased (D_N) sentences; NMD = (1/(I−1)) Σ_{i=1}^{I−1} |CP_i(D_B) − CP_i(D_N)|;
  d = +1 if the mean normalised score of D_B ≥ that of D_N, else −1 (METHODS §4.10; the paper compares the pmf
  means, which can differ from the score means only inside a bin); BIC = d·NMD. A document whose scores are all
  equal normalises to all 0 (no preference): BIC = 0.
- MBIC = mean BIC over the documents having both classes; the others are skipped and counted. The interval is the
  d-bootstrap percentile interval over documents (METHODS §4.5); the paper's Student-t interval is in details.
- SFPI(f) = MBIC(G) − (1/K) Σ_k MBIC(G with feature column f shuffled), K = 20 (BIC paper §4.2, §6), for a
  feature-based extractive summarizer: a scikit-learn random forest over sentence position (0-based index), proper-
  noun count and length in tokens (§6). The column is shuffled across all sentences of G and the trained model
  re-scores them (permutation importance, no retraining).
- Training data we can generate here (the paper trained on CNN/DailyMail, which we do not ship): a pseudo-oracle
  labels the ``k`` sentences of each document that cover most of the document's ten most frequent content words
  (ties → earlier sentence) as summary-worthy. Users with reference extracts pass their own labels.
- Position test (§7.1): shuffle each document's sentence order, recompute the features, re-score, MBIC averaged over
  5 trials.
- Labels: per-sentence labels, or BASIL-style character spans (a sentence is biased when it overlaps a span of the
  chosen bias type, 'lexical' by default) — see ``labels_from_record``. Without labels, ``lexicon_labels`` marks a
  sentence biased when it holds a strongly polarised word of the VADER lexicon (|valence| ≥ 2.0). That labeller is
  **approximate**: BASIL annotators judged lexical bias in context, which a word list cannot do.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bias_core.common import nlp, stats
from bias_core.common.records import MeasureResult
from bias_core.measures.common import UnitCounts, interval_results, undefined_results
from bias_core.safety.errors import InputError

logger = logging.getLogger(__name__)

N_BINS = 20
SFPI_SHUFFLES = 20
POSITION_TRIALS = 5
FEATURES = ("position", "proper_nouns", "length")
LEXICON_THRESHOLD = 2.0
LEXICON_LABELLER = "VADER lexicon, |valence| >= 2.0 (approximate)"
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")


@dataclass(frozen=True)
class LabelledDocument:
    """A document's sentences, their bias labels (1 = biased) and, when known, a summarizer's sentence scores."""

    id: str
    sentences: tuple[str, ...]
    labels: tuple[int, ...]
    scores: tuple[float, ...] | None = None


def normalise_scores(scores: Sequence[float]) -> np.ndarray:
    """Return min–max normalised scores in [0, 1]; all-equal scores become all 0."""
    values = np.asarray(scores, dtype=float)
    span = values.max() - values.min()
    return np.zeros_like(values) if span == 0 else (values - values.min()) / span


def bin_pmf(normalised: np.ndarray, n_bins: int = N_BINS) -> np.ndarray:
    """Return the pmf over ``n_bins`` equal bins of [0, 1]; the last bin includes 1."""
    index = np.minimum((normalised * n_bins).astype(int), n_bins - 1)
    return np.bincount(index, minlength=n_bins) / normalised.size


def normalized_match_distance(pmf_a: np.ndarray, pmf_b: np.ndarray) -> float:
    """Return NMD = (1/(I−1)) Σ_{i=1}^{I−1} |CP_i(a) − CP_i(b)| (Sakai 2021; BIC paper eq. 2)."""
    cumulative = np.abs(np.cumsum(pmf_a) - np.cumsum(pmf_b))[:-1]
    return float(cumulative.sum() / (pmf_a.size - 1))


def bias_independence_criterion(scores: Sequence[float], labels: Sequence[int]) -> float:
    """Return BIC = d·NMD of one document, or nan when it lacks a biased or a non-biased sentence (eq. 3)."""
    labels_array = np.asarray(labels, dtype=bool)
    if labels_array.all() or not labels_array.any():
        return math.nan
    normalised = normalise_scores(scores)
    biased, neutral = normalised[labels_array], normalised[~labels_array]
    direction = 1.0 if biased.mean() >= neutral.mean() else -1.0
    return direction * normalized_match_distance(bin_pmf(biased), bin_pmf(neutral))


def mean_bic(documents: Sequence[LabelledDocument], scores: Sequence[Sequence[float]] | None = None
             ) -> tuple[float, list[float], list[str], int]:
    """Return (MBIC, per-document BICs, their ids, number skipped for lacking a class) (eq. 4)."""
    values, ids, skipped = [], [], 0
    for index, document in enumerate(documents):
        doc_scores = scores[index] if scores is not None else document.scores
        value = bias_independence_criterion(doc_scores, document.labels)
        if math.isnan(value):
            skipped += 1
            continue
        values.append(value)
        ids.append(document.id)
    return (float(np.mean(values)) if values else math.nan), values, ids, skipped


PERMUTATIONS = 1000


def permuted_bics(scores: Sequence[float], labels: Sequence[int], n_permutations: int,
                  rng: np.random.Generator) -> np.ndarray:
    """BIC of one document under ``n_permutations`` shuffles of its labels among its sentences, vectorised (the
    scores fixed): what a summarizer whose scores ignore the labels gives on this document."""
    normalised = normalise_scores(scores)
    labels_array = np.asarray(labels, dtype=float)
    n = labels_array.size
    shuffled = labels_array[np.argsort(rng.random((n_permutations, n)), axis=1)]
    bins = np.zeros((n, N_BINS))
    bins[np.arange(n), np.minimum((normalised * N_BINS).astype(int), N_BINS - 1)] = 1.0
    n_biased = shuffled.sum(axis=1, keepdims=True)
    pmf_biased = shuffled @ bins / n_biased
    pmf_neutral = (1.0 - shuffled) @ bins / (n - n_biased)
    distance = np.abs(np.cumsum(pmf_biased, axis=1) - np.cumsum(pmf_neutral, axis=1))[:, :-1].sum(axis=1)
    distance /= N_BINS - 1
    mean_biased = shuffled @ normalised / n_biased[:, 0]
    mean_neutral = (1.0 - shuffled) @ normalised / (n - n_biased[:, 0])
    return np.where(mean_biased >= mean_neutral, 1.0, -1.0) * distance


def mbic_permutation_test(documents: Sequence[LabelledDocument], *, n_permutations: int = PERMUTATIONS,
                          seed: int = 0) -> dict:
    """MBIC against its value-blind null (METHODS §4.10, §5): per document the labels are shuffled among its
    sentences, scores kept — a summarizer whose scores are independent of the labels (the Bias Independence
    Principle). Effect = mean over documents (the originals) of (BIC − its null mean); a two-sided one-sample t-test
    over documents with the interval that inverts it (issue 28: one test, not a permutation p beside a bootstrap
    interval). A BIC is never 0 for random
    scores (NMD > 0, d = ±1), so its mean over three documents can sit far from 0 with a tiny spread; only the
    permutation null says how far a label-blind summarizer would go."""
    rng = np.random.default_rng(seed)
    observed, null = [], []
    for document in documents:
        labels = np.asarray(document.labels, dtype=bool)
        if document.scores is None or labels.all() or not labels.any():
            continue
        observed.append(bias_independence_criterion(document.scores, document.labels))
        null.append(permuted_bics(document.scores, document.labels, n_permutations, rng))
    base = {"null": f"the labels shuffled among each document's sentences, scores kept ({n_permutations} shuffles): "
                    "a summarizer whose scores ignore the labels", "floor": "permutation", "sided": "two-sided",
            "n_permutations": n_permutations}
    if len(observed) < 2:
        return base
    observed_array, null_matrix = np.asarray(observed), np.vstack(null)
    null_means = null_matrix.mean(axis=1)
    # one test (issue 28): a t-test over documents of each document's excess, with the interval that inverts it
    return {**base, **stats.t_test_fields(observed_array - null_means), "null_mean": float(null_means.mean()),
            "method": "per document: BIC − mean under the shuffles; one-sample t-test over documents, its interval"}


def mbic_result(
    documents: Sequence[LabelledDocument],
    *,
    label_source: str,
    summarizer: str | None = None,
    perturbation: str | None = None,
    n_resamples: int = stats.DEFAULT_RESAMPLES,
    seed: int = 0,
) -> list[MeasureResult]:
    """Return MBIC with a d interval over documents, or nan with a reason when no document has both classes."""
    labels = {"summarizer": summarizer, "perturbation": perturbation}
    value, values, ids, skipped = mean_bic(documents)
    details = {"documents_used": len(values), "documents_skipped_one_class": skipped, "bins": N_BINS,
               "label_source": label_source, "approximate_labels": label_source == LEXICON_LABELLER}
    if not values:
        return undefined_results("mbic", "no document has both a biased and a non-biased sentence", ("d",), 0,
                                 details, labels)
    if len(values) > 1:
        from scipy import stats as scipy_stats  # imported where used: the measures registry loads at every CLI start

        sem = float(scipy_stats.sem(values))
        details["student_t_interval"] = ([value, value] if sem == 0 else
                                         list(scipy_stats.t.interval(0.95, len(values) - 1, loc=value, scale=sem)))
    units = UnitCounts([(i, i) for i in ids], np.column_stack([values, np.ones(len(values))]))
    details["test"] = mbic_permutation_test(documents, seed=seed)
    return interval_results("mbic", value, units, lambda p: p[:, 0] / p[:, 1], kinds=("d",), details=details,
                            reason=None, n_resamples=n_resamples, seed=seed, labels=labels)


# ---------------------------------------------------------------------------------------------------- labels


def _sentence_spans(text: str, sentences: Sequence[str]) -> list[tuple[int, int]]:
    spans, cursor = [], 0
    for sentence in sentences:
        start = text.find(sentence, cursor)
        if start < 0:
            start = cursor
        spans.append((start, start + len(sentence)))
        cursor = start + len(sentence)
    return spans


def labels_from_record(record: dict, *, bias_type: str = "lexical", source: str = "labels",
                       line: int | None = None) -> LabelledDocument:
    """Return a labelled document from one JSONL record of either accepted format.

    - per sentence: ``{"id": ..., "sentences": [str, ...], "labels": [0|1, ...]}``
    - BASIL-style spans: ``{"id": ..., "text": str, "spans": [{"start": int, "end": int, "bias": "lexical"}]}``;
      sentences come from spaCy and a sentence is biased when it overlaps a span whose ``bias`` is ``bias_type``
      (a span without ``bias`` counts).
    """
    if not isinstance(record, dict) or "id" not in record:
        raise InputError(source, "each record needs an 'id'", row=line)
    doc_id = str(record["id"])
    if "sentences" in record:
        sentences, labels = record.get("sentences"), record.get("labels")
        if not isinstance(sentences, list) or not isinstance(labels, list) or len(sentences) != len(labels):
            raise InputError(source, "'sentences' and 'labels' must be lists of the same length", row=line)
        if any(label not in (0, 1, True, False) for label in labels):
            raise InputError(source, "labels must be 0 or 1", row=line)
        return LabelledDocument(doc_id, tuple(map(str, sentences)), tuple(int(label) for label in labels))
    if "text" in record and "spans" in record:
        text, spans = record["text"], record["spans"]
        if not isinstance(text, str) or not isinstance(spans, list):
            raise InputError(source, "'text' must be a string and 'spans' a list", row=line)
        sentences = nlp.split_sentences([text])[0]
        chosen = []
        for span in spans:
            try:
                start, end = int(span["start"]), int(span["end"])
            except (KeyError, TypeError, ValueError):
                raise InputError(source, "every span needs integer 'start' and 'end'", row=line) from None
            if span.get("bias", bias_type) == bias_type:
                chosen.append((start, end))
        labels = [int(any(s < end and start < e for start, end in chosen)) for s, e in _sentence_spans(text,
                                                                                                      sentences)]
        return LabelledDocument(doc_id, tuple(sentences), tuple(labels))
    raise InputError(source, "a record needs 'sentences' and 'labels', or 'text' and 'spans'", row=line)


@functools.cache
def _polarised_words(threshold: float) -> frozenset[str]:
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    return frozenset(word for word, valence in SentimentIntensityAnalyzer().lexicon.items()
                     if abs(valence) >= threshold and _WORD.fullmatch(word))


def lexicon_labels(sentences: Sequence[str], threshold: float = LEXICON_THRESHOLD) -> list[int]:
    """Return approximate labels: 1 when a sentence holds a VADER word with |valence| ≥ ``threshold``."""
    words = _polarised_words(threshold)
    return [int(any(token in words for token in _WORD.findall(sentence.lower()))) for sentence in sentences]


def attach_scores(documents: Mapping[str, LabelledDocument], doc_id: str, sentences: Sequence[str],
                  scores: Sequence[float]) -> LabelledDocument | None:
    """Return the labelled document with a summary's sentence scores, matching sentences by position when the counts
    agree and by text otherwise; None when fewer than all labelled sentences can be matched."""
    document = documents.get(doc_id)
    if document is None:
        return None
    if len(sentences) == len(document.sentences):
        return LabelledDocument(doc_id, document.sentences, document.labels, tuple(scores))
    score_of = {" ".join(s.split()): score for s, score in zip(sentences, scores)}
    matched = [score_of.get(" ".join(s.split())) for s in document.sentences]
    if any(score is None for score in matched):
        return None
    return LabelledDocument(doc_id, document.sentences, document.labels, tuple(matched))


# ----------------------------------------------------------------------- feature-based summarizer and SFPI


def sentence_features(documents: Sequence[Sequence[str]],
                      known: dict[str, tuple[float, float]] | None = None) -> list[np.ndarray]:
    """Return, per document, a (sentences × 3) array: 0-based position, proper-noun count, length in tokens.

    ``known`` memoises the per-sentence counts, which do not depend on position: passing the same dict to later calls
    (training, scoring, the five sentence-order shuffles) parses every distinct sentence once.
    """
    known = {} if known is None else known
    missing = list(dict.fromkeys(sentence for document in documents for sentence in document
                                 if sentence not in known))
    for sentence, doc in zip(missing, nlp.parse(missing, disable=("parser", "ner", "lemmatizer")), strict=True):
        known[sentence] = (float(sum(t.pos_ == "PROPN" for t in doc)),
                           float(sum(not (t.is_space or t.is_punct) for t in doc)))
    return [np.column_stack([np.arange(len(document), dtype=float),
                             np.array([known[sentence] for sentence in document], dtype=float).reshape(-1, 2)])
            for document in documents]


def pseudo_oracle_labels(documents: Sequence[Sequence[str]], k: int = 3, top_words: int = 10) -> list[np.ndarray]:
    """Return training labels: the k sentences covering most of the document's most frequent content words."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS  # scikit-learn costs ~1 s to import

    labels = []
    for sentences in documents:
        tokens = [[w for w in _WORD.findall(s.lower()) if w not in ENGLISH_STOP_WORDS] for s in sentences]
        frequent = {w for w, _ in Counter(w for ts in tokens for w in ts).most_common(top_words)}
        coverage = np.array([len(frequent & set(ts)) for ts in tokens], dtype=float)
        chosen = np.argsort(-coverage, kind="stable")[:k]
        row = np.zeros(len(sentences))
        row[chosen] = 1
        labels.append(row)
    return labels


class FeatureSummarizer:
    """A random-forest extractive summarizer over (position, proper nouns, length) (BIC paper §6)."""

    # Not a summarizer of the run: a model trained here only to explain which feature carries lexical bias, so its
    # rows say so instead of reading as one more summarizer (issue 19).
    name = "SFPI model (trained here)"

    def __init__(self, n_estimators: int = 100, seed: int = 0):
        from sklearn.ensemble import RandomForestClassifier  # scikit-learn costs ~1 s to import

        self.model = RandomForestClassifier(n_estimators=n_estimators, min_samples_leaf=5, random_state=seed,
                                            n_jobs=1)

    def fit(self, features: Sequence[np.ndarray], targets: Sequence[np.ndarray]) -> FeatureSummarizer:
        """Train on per-document feature arrays and 0/1 summary-worthiness targets."""
        self.model.fit(np.vstack(features), np.concatenate(targets))
        return self

    def score(self, features: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Return per-document selection probabilities (the sentence scores)."""
        sizes = [len(f) for f in features]
        probabilities = self.model.predict_proba(np.vstack(features))[:, list(self.model.classes_).index(1)]
        return np.split(probabilities, np.cumsum(sizes)[:-1])


def sfpi(
    summarizer: FeatureSummarizer,
    documents: Sequence[LabelledDocument],
    features: Sequence[np.ndarray],
    *,
    shuffles: int = SFPI_SHUFFLES,
    seed: int = 0,
) -> dict[str, float]:
    """Return SFPI(f) = MBIC(G) − mean_k MBIC(G with column f shuffled) for every feature (BIC paper eq. 5)."""
    base = mean_bic(documents, summarizer.score(features))[0]
    rng = np.random.default_rng(seed)
    stacked = np.vstack(features)
    sizes = np.cumsum([len(f) for f in features])[:-1]
    out = {}
    for column, name in enumerate(FEATURES):
        shuffled_mbic = []
        for _ in range(shuffles):
            permuted = stacked.copy()
            permuted[:, column] = rng.permutation(permuted[:, column])
            shuffled_mbic.append(mean_bic(documents, summarizer.score(np.split(permuted, sizes)))[0])
        out[name] = base - float(np.nanmean(shuffled_mbic))
    return out


def sentence_order_shuffle_test(
    documents: Sequence[LabelledDocument],
    score_documents: Callable[[list[list[str]]], list[np.ndarray]],
    *,
    trials: int = POSITION_TRIALS,
    seed: int = 0,
) -> tuple[float, list[float]]:
    """Return (mean MBIC over trials, per-trial MBIC) after shuffling every document's sentence order (§7.1).

    ``score_documents`` re-runs the summarizer on lists of sentences and returns one score array per document.
    """
    rng = np.random.default_rng(seed)
    per_trial = []
    for _ in range(trials):
        orders = [rng.permutation(len(document.sentences)) for document in documents]
        shuffled = [LabelledDocument(d.id, tuple(d.sentences[i] for i in order), tuple(d.labels[i] for i in order))
                    for d, order in zip(documents, orders)]
        scores = score_documents([list(d.sentences) for d in shuffled])
        per_trial.append(mean_bic(shuffled, scores)[0])
    return float(np.nanmean(per_trial)), per_trial


def random_forest_sfpi(
    documents: Sequence[LabelledDocument],
    *,
    label_source: str,
    training_documents: Sequence[Sequence[str]] | None = None,
    seed: int = 0,
    shuffles: int = SFPI_SHUFFLES,
    n_resamples: int = stats.DEFAULT_RESAMPLES,
) -> list[MeasureResult]:
    """Train the random-forest summarizer on pseudo-oracle labels and return one SFPI result per feature, with the
    forest's MBIC and the sentence-order shuffle test in details (METHODS §4.10)."""
    labels = {"summarizer": FeatureSummarizer.name, "perturbation": None}
    training = training_documents or [list(d.sentences) for d in documents]
    known: dict[str, tuple[float, float]] = {}
    summarizer = FeatureSummarizer(seed=seed).fit(sentence_features(training, known),
                                                  pseudo_oracle_labels(training))
    features = sentence_features([list(d.sentences) for d in documents], known)
    scored = [LabelledDocument(d.id, d.sentences, d.labels, tuple(s))
              for d, s in zip(documents, summarizer.score(features))]
    [forest_mbic] = mbic_result(scored, label_source=label_source, summarizer=FeatureSummarizer.name,
                                n_resamples=n_resamples, seed=seed)
    details = {"features": list(FEATURES), "shuffles": shuffles, "label_source": label_source,
               "approximate_labels": label_source == LEXICON_LABELLER,
               "training": "pseudo-oracle: top-3 sentences by coverage of the 10 most frequent content words",
               "mbic": forest_mbic.to_dict()}
    if not forest_mbic.is_defined:
        return [MeasureResult("sfpi", math.nan, 0, reason=forest_mbic.reason, details={**details, "feature": f},
                              **labels) for f in FEATURES]
    mean_shuffled, per_trial = sentence_order_shuffle_test(
        documents, lambda docs: summarizer.score(sentence_features(docs, known)), seed=seed)
    details["sentence_order_shuffle"] = {"mbic_mean": mean_shuffled, "per_trial": per_trial,
                                         "trials": POSITION_TRIALS}
    importance = sfpi(summarizer, scored, features, shuffles=shuffles, seed=seed)
    return [MeasureResult("sfpi", value, forest_mbic.n, details=stats.json_ready({**details, "feature": name}),
                          **labels) for name, value in importance.items()]


def read_bias_labels(path: str, *, bias_type: str = "lexical",
                     max_bytes: int | None = None) -> dict[str, LabelledDocument]:
    """Read a JSONL file of per-sentence labels or BASIL-style spans, keyed by document id: a regular file of at most
    ``max_bytes`` (default: the documents' limit), each line nested at most ``MAX_JSON_DEPTH`` deep (issue 30)."""
    from bias_core.documents.decoding import DEFAULT_MAX_BYTES, text_file
    from bias_core.documents.jsonl import MAX_JSON_DEPTH
    from bias_core.safety.operator_files import nesting_depth

    too_deep = f"nests JSON more than {MAX_JSON_DEPTH} levels deep"
    documents = {}
    for line, raw in enumerate(text_file(path, max_bytes or DEFAULT_MAX_BYTES).read().splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            if nesting_depth(raw, MAX_JSON_DEPTH) > MAX_JSON_DEPTH:
                raise RecursionError  # refused before json recurses once per level
            record = json.loads(raw)
        except json.JSONDecodeError as error:
            raise InputError(path, f"not valid JSON ({error.msg})", row=line) from None
        except RecursionError:
            raise InputError(path, too_deep, row=line, hint="each line must be one flat JSON object") from None
        document = labels_from_record(record, bias_type=bias_type, source=path, line=line)
        documents[document.id] = document
    if not documents:
        raise InputError(path, "contains no labelled documents")
    return documents
