"""Per-sample perspective-fairness scores (METHODS §4.7; Zhang et al. §3): the matchings and nulls on offer, each
sample's units (``sample_units``), and its p_x, p_y, p_g, BUR, UER, AUC and shortfalls, for the observed summary and
for K null rows (value shuffles or null summaries) at once."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bias_core.common import nlp
from bias_core.measures import fairsumm_ngram
from bias_core.measures.common import Pair
from bias_core.measures.matching import (
    SELECTION_NULLS,
    SampleUnits,
    content_tokens,
    sentence_content_tokens,
    source_sentences,
)
from bias_core.safety.errors import InputError

PERSPECTIVE_MEASURES = ("bur", "uer", "auc", "sof")
# How p_y is matched (METHODS §4.7): spaCy lemmas (default), the FairSumm authors' NLTK pipeline, MiniLM embeddings.
MATCHINGS = ("ngram", fairsumm_ngram.FAIRSUMM_NGRAM, "embedding")
DEFAULT_TAU = 0.8
DEFAULT_TEMPERATURE = 0.1
AUC_GRID = tuple(round(0.05 + 0.1 * i, 2) for i in range(10))
# The nulls (perspective_null): 'shape' (default) — value-blind extractive summaries of the same shape as the
# summary: the sentences at the positions it draws from, in as many randomly chosen units; 'selection' — as many
# sentences as the summary, read from the units put in a random order; 'sentences' — the same with the sentences in
# a random order; 'shuffle' — the values shuffled among the units, summary kept.
NULLS = (*SELECTION_NULLS, "shuffle")
DEFAULT_NULL = "shape"


def check_perspective_matching(value: object, where: str = "perspective_matching") -> str:
    """Return ``value`` when it is one of ``MATCHINGS`` and what it needs is installed; else raise ``InputError``
    in one line (the choices, or for 'fairsumm-ngram' the missing NLTK data and how to install it)."""
    if value not in MATCHINGS:
        raise InputError(where, f"{value!r} is not a perspective matching; choose {', '.join(MATCHINGS)}")
    if value == fairsumm_ngram.FAIRSUMM_NGRAM:
        fairsumm_ngram.check_nltk_data(where)
    return value


@dataclass(frozen=True)
class SampleFairness:
    """One sample's distributions and fairness scores (BUR and UER as 0–1 here); ``shortfall`` is
    max(0, p_g(v) − p_y(v)) per value, the sample's contribution to the corpus SOF."""

    values: tuple[str, ...]
    source: np.ndarray
    target: np.ndarray
    goal: np.ndarray
    bur: float
    uer: float
    auc: float
    shortfall: np.ndarray


def fairness_target(source: np.ndarray, values: Sequence[str], target: str | Mapping[str, float]) -> np.ndarray:
    """Return p_g: the source ('ratio'), uniform ('equal') or a user distribution restricted to ``values``."""
    if isinstance(target, str):
        if target == "ratio":
            return source
        if target == "equal":
            return np.full(len(values), 1.0 / len(values))
        raise ValueError("target must be 'ratio', 'equal' or a mapping value → share")
    goal = np.array([float(target.get(v, 0.0)) for v in values])
    if goal.sum() <= 0:
        raise ValueError("the custom target gives no mass to any value present in the source")
    return goal / goal.sum()


def fairness_scores(source: np.ndarray, target: np.ndarray, goal: np.ndarray, tau: float = DEFAULT_TAU
                    ) -> tuple[float, float, float, np.ndarray]:
    """Return (BUR(τ), UER, AUC, shortfall per value) of one sample (Zhang et al. eq. 1–3), BUR and UER as
    fractions; the shortfalls feed the corpus-level SOF (``second_order_fairness``)."""
    shortfall = np.maximum(0.0, goal - target)
    bur = float(np.any(target < tau * goal))
    uer = float(shortfall.mean())
    auc = float(np.mean([np.any(target < t * goal) for t in AUC_GRID]))
    return bur, uer, auc, shortfall


def second_order_fairness(mean_shortfall: np.ndarray) -> np.ndarray:
    """Return SOF = mean_v |s̄_v − mean(s̄)| per row of per-value mean shortfalls (Zhang et al. eq. 4, FairSumm
    code); nan entries (a value absent from a bootstrap resample) are left out."""
    mean_shortfall = np.atleast_2d(np.asarray(mean_shortfall, dtype=float))
    with np.errstate(invalid="ignore"):
        centre = np.nanmean(mean_shortfall, axis=1, keepdims=True)
        return np.nanmean(np.abs(mean_shortfall - centre), axis=1)


def ngram_target(summary_tokens: Sequence[str], unit_tokens_by_value: Sequence[set[str]]) -> np.ndarray:
    """Return N-gram (k = 1) target counts: each summary token adds 1 to every value whose units contain it."""
    return np.array([sum(token in vocabulary for token in summary_tokens) for vocabulary in unit_tokens_by_value],
                    dtype=float)


def softmax(scores: np.ndarray, temperature: float) -> np.ndarray:
    """Return softmax(scores / temperature), computed stably."""
    scaled = np.asarray(scores, dtype=float) / temperature
    scaled -= scaled.max()
    weights = np.exp(scaled)
    return weights / weights.sum()


@dataclass(frozen=True)
class PermutedScores:
    """Scores of one sample under K value assignments or K null summaries (rows), over the sample's
    ``SampleUnits.values`` (columns); a value whose units have no content tokens under an assignment is not
    ``present`` there (and has 0 source, target and shortfall). BUR and UER are fractions, as in
    ``SampleFairness``."""

    present: np.ndarray
    source: np.ndarray
    target: np.ndarray
    goal: np.ndarray
    bur: np.ndarray
    uer: np.ndarray
    auc: np.ndarray
    shortfall: np.ndarray


def sample_units(pairs: Sequence[Pair], *, matching: str = "ngram", null: str = DEFAULT_NULL
                 ) -> tuple[list[SampleUnits | None], list[str]]:
    """Return each pair's ``SampleUnits`` (None for a skipped sample) and the reasons samples were skipped: one
    batched spaCy pass over the units (with sentence boundaries for the selection null) and one over the summaries,
    and for embedding matching one encoder pass (units, their sentences for the selection null, summaries)."""
    if matching not in MATCHINGS:
        raise ValueError(f"matching must be one of {', '.join(MATCHINGS)}")
    if null not in NULLS:
        raise ValueError(f"null must be one of {', '.join(NULLS)}")
    if matching == fairsumm_ngram.FAIRSUMM_NGRAM:
        return fairsumm_ngram.sample_units(pairs, null=null)
    unit_texts, owners, values_of_unit = [], [], []
    for index, pair in enumerate(pairs):
        for unit in pair.input.units or []:
            unit_texts.append(unit.text)
            owners.append(index)
            values_of_unit.append(unit.value)
    summary_texts = [pair.summary.text for pair in pairs]
    selection = null in SELECTION_NULLS
    if selection:
        unit_sentences = sentence_content_tokens(unit_texts)
        unit_tokens = [[token for _, tokens in sentences for token in tokens] for sentences in unit_sentences]
        summary_tokens = content_tokens(summary_texts)
        summary_sentences = [[tokens for _, tokens in sentences]
                             for sentences in sentence_content_tokens(summary_texts)]
        summary_sentence_counts = [len(sentences) for sentences in summary_sentences]
    else:
        tokens = content_tokens(unit_texts + summary_texts)
        unit_tokens, summary_tokens = tokens[: len(unit_texts)], tokens[len(unit_texts):]
    if matching == "embedding":
        sentence_texts = [text for sentences in unit_sentences for text, _ in sentences] if selection else []
        vectors = nlp.embed(unit_texts + sentence_texts + summary_texts)
        unit_vectors = vectors[: len(unit_texts)]
        sentence_vectors = vectors[len(unit_texts): len(unit_texts) + len(sentence_texts)].astype(float)
        summary_vectors = vectors[len(unit_texts) + len(sentence_texts):]
        first_sentence = np.cumsum([0] + [len(s) for s in unit_sentences]) if selection else None
    by_sample: dict[int, list[int]] = {}
    for unit_index, owner in enumerate(owners):
        by_sample.setdefault(owner, []).append(unit_index)
    results: list[SampleUnits | None] = []
    skipped: list[str] = []
    for index, pair in enumerate(pairs):
        members = [u for u in by_sample.get(index, []) if values_of_unit[u] is not None]
        mass = np.array([len(unit_tokens[u]) for u in members], dtype=float)
        if not members or mass.sum() <= 0:
            results.append(None)
            skipped.append(f"{pair.input.id}: no unit with a value and content tokens")
            continue
        values = tuple(sorted({values_of_unit[u] for u in members}))
        column = {value: i for i, value in enumerate(values)}
        labels = np.array([column[values_of_unit[u]] for u in members], dtype=np.int64)
        vocabularies = [set(unit_tokens[u]) for u in members]
        occurs = weights = similarity = None
        if matching == "ngram":
            counted: dict[str, int] = {}
            for token in summary_tokens[index]:
                counted[token] = counted.get(token, 0) + 1
            found = [token for token in counted if any(token in vocabulary for vocabulary in vocabularies)]
            occurs = np.array([[token in vocabulary for vocabulary in vocabularies] for token in found],
                              dtype=float).reshape(len(found), len(members))
            weights = np.array([counted[token] for token in found], dtype=float)
        else:
            similarity = (unit_vectors[members] @ summary_vectors[index]).astype(float)
        extra = {}
        if selection:
            sentences = [(position, text, tokens) for position, u in enumerate(members)
                         for text, tokens in unit_sentences[u]]
            extra = {"budget": len(summary_tokens[index]), "budget_sentences": summary_sentence_counts[index],
                     "sentences": tuple(text for _, text, _ in sentences),
                     "sentence_unit": np.array([position for position, _, _ in sentences], dtype=np.int64),
                     "sentence_mass": np.array([len(tokens) for _, _, tokens in sentences], dtype=float),
                     "summary_sources": source_sentences(summary_sentences[index],
                                                         [tokens for _, _, tokens in sentences])}
            if matching == "ngram":
                by_value = [set().union(*(vocabularies[p] for p in np.flatnonzero(labels == v)))
                            for v in range(len(values))]
                extra["sentence_counts"] = np.array(
                    [[sum(token in vocabulary for token in tokens) for vocabulary in by_value]
                     for _, _, tokens in sentences], dtype=float).reshape(len(sentences), len(values))
            else:
                rows = [row for u in members for row in range(first_sentence[u], first_sentence[u + 1])]
                extra["sentence_vectors"] = sentence_vectors[rows]
                extra["unit_vectors"] = unit_vectors[members].astype(float)
        results.append(SampleUnits(pair.input.original_id, pair.input.id, values, labels, mass, occurs, weights,
                                   similarity, **extra))
    return results, skipped


def _fairness_rows(present: np.ndarray, source: np.ndarray, predicted: np.ndarray, values: Sequence[str],
                   target: str | Mapping[str, float], tau: float, inclusive: bool = False) -> PermutedScores:
    """p_g, BUR, UER, AUC and shortfalls of K rows of (present, source, predicted) distributions over ``values``;
    a value is under-represented when p_y < τ·p_g, or p_y ≤ τ·p_g when ``inclusive`` (the FairSumm code)."""
    n_present = present.sum(axis=1, keepdims=True)
    if isinstance(target, str):
        if target == "ratio":
            goal = source
        elif target == "equal":
            goal = present / n_present
        else:
            raise ValueError("target must be 'ratio', 'equal' or a mapping value → share")
    else:
        wanted = np.array([float(target.get(v, 0.0)) for v in values]) * present
        total = wanted.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            goal = np.where(total > 0, wanted / total, np.nan)
    shortfall = np.where(present, np.maximum(0.0, goal - predicted), 0.0)
    compare = np.less_equal if inclusive else np.less
    with np.errstate(invalid="ignore"):
        below = present[None] & compare(predicted[None], np.array(AUC_GRID + (tau,))[:, None, None] * goal[None])
    bur = below[-1].any(axis=1).astype(float)
    auc = below[:-1].any(axis=2).mean(axis=0)
    uer = shortfall.sum(axis=1) / n_present[:, 0]
    undefined = np.isnan(goal).any(axis=1)  # a custom target with no mass on the values present here
    if undefined.any():
        bur, uer, auc = (np.where(undefined, np.nan, x) for x in (bur, uer, auc))
    return PermutedScores(present, source, predicted, goal, bur, uer, auc, shortfall)


def _softmax_present(scores: np.ndarray, present: np.ndarray, temperature: float) -> np.ndarray:
    scaled = np.where(present, scores / temperature, -np.inf)
    scaled = scaled - scaled.max(axis=1, keepdims=True)
    weights = np.where(present, np.exp(scaled), 0.0)
    return weights / weights.sum(axis=1, keepdims=True)


def permuted_scores(
    sample: SampleUnits,
    labels: np.ndarray,
    *,
    target: str | Mapping[str, float] = "ratio",
    tau: float = DEFAULT_TAU,
    temperature: float = DEFAULT_TEMPERATURE,
) -> PermutedScores:
    """Return the sample's p_x, p_y, p_g, BUR, UER, AUC and shortfalls under each row of ``labels`` (K value
    assignments of its units, as indices into ``sample.values``), all rows at once.

    Per assignment the units of value v are those labelled v: p_x(v) is their share of the content tokens;
    N-gram p_y counts each summary token once for every value that has a unit containing it (the OR over a value's
    units is a matrix product of the token × unit occurrences with the unit × value one-hot, > 0); embedding p_y is
    the softmax over the present values of the mean cosine of their units. Row k with the observed labels gives
    exactly the observed sample's scores (``sample_fairness`` is this with K = 1); other rows are the shuffle null.
    """
    labels = np.atleast_2d(labels)
    r = len(sample.values)
    onehot = (labels[:, :, None] == np.arange(r)[None, None, :]).astype(float)  # K × m × r
    mass = np.matmul(sample.mass, onehot)  # K × r
    present = sample.present(mass)
    uniform = present / present.sum(axis=1, keepdims=True)
    source = mass / sample.mass.sum()
    if sample.occurs is not None:
        hits = np.matmul(sample.occurs, onehot) > 0  # K × tokens × r
        counts = np.einsum("kjr,j->kr", hits.astype(float), sample.weights)
        total = counts.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            predicted = np.where(total > 0, counts / total, uniform)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            mean_similarity = np.matmul(sample.similarity, onehot) / onehot.sum(axis=1)
        predicted = _softmax_present(mean_similarity, present, temperature)
    return _fairness_rows(present, source, predicted, sample.values, target, tau, inclusive=sample.inclusive)


def selection_scores(
    sample: SampleUnits,
    choices: np.ndarray,
    *,
    target: str | Mapping[str, float] = "ratio",
    tau: float = DEFAULT_TAU,
    temperature: float = DEFAULT_TEMPERATURE,
) -> PermutedScores:
    """Return the scores of K null summaries, the rows of ``choices`` (K × sentences weights from
    ``value_blind_selections``: 1 takes a sentence, 0 leaves it, a fraction takes that share), all at once.

    p_x and p_g are the input's (the observed values: they depend only on the input). N-gram p_y is the normalised
    weighted sum of the chosen sentences' ``sentence_counts`` (one K × sentences by sentences × r product): a null
    summary's tokens are its sentences' tokens, counted as the summary's are, and a sentence taken in part adds that
    share of its counts. Embedding p_y is the softmax over the values of the mean cosine of their units with the
    normalised weighted mean of the chosen sentences' vectors, which approximates embedding the concatenated
    sentences (the encoder is not linear; each sentence is embedded once per call). A null summary that matches
    nothing (or takes no sentence) gets the uniform target, as an observed one does."""
    choices = np.atleast_2d(np.asarray(choices, dtype=float))
    r = len(sample.values)
    onehot = (sample.labels[:, None] == np.arange(r)[None, :]).astype(float)  # m × r
    mass = sample.mass @ onehot
    present = np.broadcast_to(sample.present(mass), (choices.shape[0], r))
    source = np.broadcast_to(mass / sample.mass.sum(), (choices.shape[0], r))
    uniform = present / present.sum(axis=1, keepdims=True)
    if sample.sentence_counts is not None:
        counts = choices @ sample.sentence_counts
        total = counts.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            predicted = np.where(total > 0, counts / total, uniform)
    else:
        summed = choices @ sample.sentence_vectors  # K × dim
        norm = np.linalg.norm(summed, axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            cosines = (summed / norm) @ sample.unit_vectors.T  # K × m
            mean_similarity = cosines @ onehot / onehot.sum(axis=0)
        predicted = np.where(norm > 0, _softmax_present(np.nan_to_num(mean_similarity), present, temperature),
                             uniform)
    return _fairness_rows(present, source, predicted, sample.values, target, tau, inclusive=sample.inclusive)


def sample_fairness(
    pairs: Sequence[Pair],
    *,
    matching: str = "ngram",
    target: str | Mapping[str, float] = "ratio",
    tau: float = DEFAULT_TAU,
    temperature: float = DEFAULT_TEMPERATURE,
    prepared: tuple[list[SampleUnits | None], list[str]] | None = None,
) -> tuple[list[SampleFairness | None], list[str]]:
    """Return per-sample fairness (None for a skipped sample) and the reasons samples were skipped.

    ``prepared`` is ``sample_units(pairs, matching=matching)`` when the caller has it already.
    """
    units, skipped = prepared if prepared is not None else sample_units(pairs, matching=matching)
    return [None if sample is None else _observed(sample, target, tau, temperature) for sample in units], skipped


def _observed(sample: SampleUnits, target: str | Mapping[str, float], tau: float, temperature: float
              ) -> SampleFairness:
    scores = permuted_scores(sample, sample.labels[None, :], target=target, tau=tau, temperature=temperature)
    keep = scores.present[0]
    if not isinstance(target, str) and np.isnan(scores.goal[0]).any():
        raise ValueError("the custom target gives no mass to any value present in the source")
    values = tuple(v for v, k in zip(sample.values, keep) if k)
    return SampleFairness(values, scores.source[0, keep], scores.target[0, keep], scores.goal[0, keep],
                          float(scores.bur[0]), float(scores.uer[0]), float(scores.auc[0]),
                          scores.shortfall[0, keep])
