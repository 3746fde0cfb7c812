"""Perspective fairness: BUR, UER, AUC and SOF of value distributions (METHODS §4.7; Zhang et al. §3, §5).

For each sample (an input made of units with values, METHODS §1.6):
- Source distribution p_x(v): share of the content tokens that belong to units of value v (lowercased spaCy lemmas,
  stop words and punctuation removed).
- Target distribution p_y: **N-gram** (k = 1, Zhang et al. §3.2): every content token of the summary that occurs in
  the units of value v counts 1 for every such v; **embedding**: softmax over v of sim(units_v, summary) / T with
  T = 0.1, sim = the mean cosine between the summary and the units of value v (all-MiniLM-L6-v2; BERTScore and
  BARTScore, which Zhang et al. also use, need models this offline build does not ship). Empty target (no summary token found in any unit) →
  uniform.
- Values with zero source mass are dropped. (The reference code keeps them because a float comparison lets an
  exact 0 through; dropping them is what the definition means: a value absent from the source cannot be
  under-represented.)
- ``fairsumm-ngram`` is the authors' N-gram matching exactly (``fairsumm_ngram``): NLTK tokens, stop words of all
  languages, WordNet lemma + Porter stem, empty value slots kept unless a float sum reaches 1.0, and ``≤`` instead
  of ``<`` (BUR and AUC); it reproduces their Table 10. Everything below applies to it too: its null summaries are
  tokenised and counted with its own pipeline.
- Fairness target p_g: 'ratio' (p_g = p_x, default), 'equal' (uniform over the values present) or a user mapping
  (restricted to the values present and renormalised; a present value the mapping omits gets 0).
- BUR(τ) = 1 if any v has p_y(v) < τ·p_g(v) (τ = 0.8); UER = (1/r) Σ_v max(0, p_g(v) − p_y(v));
  AUC = ∫₀¹ BUR(τ) dτ by the midpoint rule on ten evenly spaced τ (0.05, 0.15, …, 0.95; reported in details) —
  Zhang et al. "sample ten points evenly".
- SOF (second-order fairness) is corpus-level, as the FairSumm code computes it (``compute_second_order_fairness``
  over ``unfair_distance``): per value v, the mean shortfall s̄_v = mean over the samples containing v of
  s_v = max(0, p_g(v) − p_y(v)); then SOF = (1/r) Σ_v |s̄_v − mean(s̄)| over the r values seen in the corpus.
  ``details['per_value_mean_shortfall']`` lists s̄_v and ``details['most_short_changed']`` names the value with the
  largest one: the value the summaries treat unfairly (Zhang et al. §3.3). A per-sample SOF (spread of one sample's
  shortfalls, averaged over samples) is not offered: with two values it equals UER exactly and cannot say which value
  is short-changed.

BUR, UER and AUC are means over samples; BUR and UER are in % (as Zhang et al. Table 2), AUC and SOF are fractions.
Intervals resample originals (d); SOF's resamples recompute s̄_v from the resampled originals. ``value``, ``ci_low``
and ``ci_high`` describe the raw measure; they are not a test against 0.

**The test (METHODS §4.7, §5).** Any value-blind choice of a few units (lead-3 keeps the first three sentences) has
BUR, UER and AUC > 0, so 0 is not the null. The question is whether the summary represents the values less fairly
than a value-blind summary *of the same length* of the same input would, so the null keeps every unit's text with
its value and makes only the selection value-blind (``null='selection'``, the default): for every kept sample, K
(``n_permutations``, default ``DEFAULT_PERMUTATIONS``) extractive summaries of its input, each made of the units'
sentences read in a random order, as many whole sentences as the summary has (``SELECTION_LENGTH = "sentences"``,
the default; ``"tokens"`` takes them until their content tokens reach the summary's, the sentence that crosses that
budget in part — see ``SELECTION_LENGTH`` for why the sentence count is the default). The units are put in a random order and each unit's sentences read in its own order
— the lead of the input with its units shuffled, what lead-k is on inputs whose units come in a value-blind order;
``null='sentences'`` shuffles the sentences themselves (what random-k does). p_x and p_g are the input's; p_y of a
null summary is computed from per-sentence parts made once per call (``selection_scores``): N-gram counts per
sentence and value, summed over the chosen sentences (a K × sentences by sentences × values product), or for
embedding matching the normalised mean of the chosen sentences' vectors, which approximates embedding their
concatenation. The units are parsed once with sentence boundaries (spaCy's parser, as the extractive summarizers
split them; the content tokens are the same as without it) and every sentence embedded once, in the same encoder
pass as the units and summaries. Draws are seeded by ``seed`` and the input id, so the same input gets the same
null summaries in every call.

Why not shuffle the values among the units (``null='shuffle'``, the previous null, kept as an option): reviews of
one rating share words (amazing, delicious / rude, cold), so a summary copied from one 5-star review matches the
other 5-star reviews too; shuffled values break that link, so *any* summary that copies review text looks more
concentrated than the shuffles — lead-3 was called biased in 5 of 5 seeds on 40 Yelp review sets. Why not random
sentences (``null='sentences'``): a three-sentence lead comes from one review, so it is more concentrated on one
value than sentences drawn from all reviews; against that null lead-3 had UER p < 0.05 in 10 of 10 demo seeds.
Against the default null random-k (spread over the reviews) comes out below the null mean; the test is one-sided.

Per original o, m_o is the mean of its samples' scores and m_o^(k) the same under the k-th null draw (draw k of
every sample together):

- BUR, UER, AUC: estimate = mean over originals of (m_o − mean_k m_o^(k)) = observed − null mean, in the measure's
  own unit; 95% percentile interval from 1,000 resamples of originals (d) of that mean of per-original excesses;
  one-sided p = (1 + #{k: T_k ≥ T_obs}) / (K + 1) with T = mean over originals of m_o (pooled over originals).
- SOF is corpus-level, so its statistic is the corpus SOF of the pooled shortfalls: SOF_obs from the observed
  shortfalls, SOF_k from every sample's k-th null draw; estimate = SOF_obs − mean_k SOF_k, p = (1 + #{SOF_k ≥
  SOF_obs}) / (K + 1). Interval: originals are resampled (d) and *both* terms recomputed on the resample — the SOF of
  the resampled observed shortfall tables minus the mean over the K draws of the SOF of the same resampled
  originals' null tables — so it is the bootstrap distribution of the estimate itself, nonlinearity included.

Each measure's result carries ``details['test']`` = {estimate, ci_low, ci_high, p_value, sided: 'greater', null
(in words), floor: 'permutation', observed (T_obs; for BUR/UER/AUC a mean over originals, so it can differ from
``value``, a mean over samples), null_mean (mean_k T_k), n_permutations, n_resamples, ci_kind, method,
n_undefined_resamples}; ``details['null']`` names the null. The smallest possible p is 1 / (K + 1): K = 1000 reaches 0.001, below 0.05 / 20 = 0.0025.

**Direction.** Per value v the representation ratio r_v = p_y(v) / p_x(v), per original the ratio of the means
over its samples (those where v is present), against the same ratio under the null (mean over k per original):
excess_v = mean over originals of (r_o,v − r̄_o,v^0), d interval, two-sided permutation p pooled over originals
(|T_k − E| ≥ |T_obs − E|, E = mean_k T_k), Holm over the values. ``details['ratio_tests']`` = {v: {ratio (mean over
originals of r_o,v), null_ratio, excess, ci_low, ci_high, p_value, p_holm, n_originals, favoured, short_changed}},
favoured (short_changed) when the interval lies above (below) 0 and p_holm < 0.05; every result of a call shares it.

Calibration (n-gram matching, K = 1000 unless said; raw p < 0.05 with the interval above 0). Yelp, 40 FairSumm
review sets, sentiment seeds 0-2, 4 tests each: lead-3 3 of 12 against the shuffle null (AUC every seed), 3 of 12
against the selection null (AUC again: p 0.022, 0.002, 0.010; excess about +0.03; 2 of 12 after Holm), 9 of 12
against random sentences ('sentences'); random-3 2 (shuffle), 0 (selection) and 2 (sentences) of 12. Demo reviews, 10 seeds, K = 500: lead-3 0-1 of
10 per measure, random-3 0. Open: lead-3's token budget is set by the one review it reads (three of its sentences),
so a null summary of that many tokens from a random review more often runs into a second review and is spread
over more values; that is the likeliest source of lead-3's remaining AUC and SOF excess.
"""

from __future__ import annotations

import math
import warnings
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bias_core.common import nlp, stats
from bias_core.common.records import MeasureResult
from bias_core.measures import fairsumm_ngram
from bias_core.measures.common import Pair, UnitCounts, interval_results, undefined_results
from bias_core.safety.errors import InputError

PERSPECTIVE_MEASURES = ("bur", "uer", "auc", "sof")
# How p_y is matched (METHODS §4.7): spaCy lemmas (default), the FairSumm authors' NLTK pipeline, MiniLM embeddings.
MATCHINGS = ("ngram", fairsumm_ngram.FAIRSUMM_NGRAM, "embedding")
DEFAULT_TAU = 0.8
DEFAULT_TEMPERATURE = 0.1
AUC_GRID = tuple(round(0.05 + 0.1 * i, 2) for i in range(10))
PARSE_DISABLED = ("parser", "ner")
# The selection null splits the units into sentences with the parser, as the extractive summarizers do.
SENTENCE_PARSE_DISABLED = ("ner",)
# The nulls (module docstring): 'selection' (default) — value-blind extractive summaries of the same input with as
# many content tokens as the summary, read from the units put in a random order; 'sentences' — the same with the
# sentences in a random order; 'shuffle' — the values shuffled among the units, summary kept.
NULLS = ("selection", "sentences", "shuffle")
DEFAULT_NULL = "selection"
# Permutations of the null (METHODS §4.7): the smallest p is 1 / (K + 1), so K = 1000 reaches 0.001, below the
# 0.05 / 20 = 0.0025 a Holm family of 20 tests needs.
DEFAULT_PERMUTATIONS = 1000
# Arrays of the null are built in chunks of at most about this many cells; the SOF bootstrap (resamples ×
# permutations × values) runs fastest in chunks that stay in the CPU cache.
_MAX_CELLS = 4_000_000
_SOF_CHUNK_CELLS = 65_536
_FEW_ORIGINALS = 20


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


def _content(tokens) -> list[str]:
    return [t.lemma_.lower() for t in tokens if not (t.is_stop or t.is_punct or t.is_space)]


def content_tokens(texts: Sequence[str]) -> list[list[str]]:
    """Return lowercased lemmas without stop words, punctuation or spaces, one batched spaCy pass."""
    return [_content(doc) for doc in nlp.parse(texts, disable=PARSE_DISABLED)]


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
    Embedding matching: ``sentence_vectors`` and ``unit_vectors`` (L2-normalised, float64).

    The FairSumm authors' pipeline (``fairsumm_ngram.sample_units``) sets ``keep_empty_slots`` (``values`` are the
    slots of every input of the call, and a value counts when ``fairsumm_ngram.kept_slots`` keeps it, not when it has
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
    keep_empty_slots: bool = False
    inclusive: bool = False

    def present(self, mass: np.ndarray) -> np.ndarray:
        """Which values count, per row of per-value token counts: those with tokens, or the FairSumm kept slots."""
        return fairsumm_ngram.kept_slots(mass) if self.keep_empty_slots else mass > 0


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
    selection = null in ("selection", "sentences")
    if selection:
        unit_sentences = sentence_content_tokens(unit_texts)
        unit_tokens = [[token for _, tokens in sentences for token in tokens] for sentences in unit_sentences]
        summary_tokens = content_tokens(summary_texts)
        summary_sentence_counts = [len(sentences) for sentences in sentence_content_tokens(summary_texts)]
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
                     "sentence_mass": np.array([len(tokens) for _, _, tokens in sentences], dtype=float)}
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


# How long a null summary is: "sentences" (as many whole sentences as the summary has; the default) or "tokens" (the
# summary's content tokens). With the token budget lead-3 sat above its null on Yelp review sets (AUC p 0.002-0.022 in
# 3 of 12 tests): its budget comes from the one review it reads, and a null summary of that many tokens taken from a
# random review spills into a second review more often; with as many sentences, lead-k of the input with its units
# shuffled is one of the draws exactly (0 of 5 seeds significant on 40 Yelp sets, benchmarks/calibration.py).
SELECTION_LENGTH = "sentences"


def value_blind_selections(sample: SampleUnits, n_draws: int, seed: int, *, order: str = "units",
                           partial: bool = True, length: str | None = None) -> np.ndarray:
    """Return ``n_draws`` × sentences choice weights: value-blind extractive summaries of the sample's input as
    long as its summary (a weight of 1 takes a sentence, 0 leaves it, a fraction takes that share of it).

    Per draw the sentences are read in a random order and taken until their content tokens reach the summary's
    (``budget``). ``order='units'`` (the 'selection' null) puts the units in a random order and reads each unit's
    sentences in its own order — the lead of the input with its units shuffled, which is what lead-k of an input
    whose units come in a value-blind order is; ``order='sentences'`` (the 'sentences' null) shuffles the sentences
    themselves, as random-k does. The sentence that crosses the budget counts in part, weight (budget − content
    tokens before it) / its content tokens (``partial``; with ``partial=False`` it is taken whole), so every draw has
    exactly the summary's content tokens — whole sentences overshoot by half a sentence on average, 15 % on the demo
    reviews' three-sentence summaries, and a longer summary is a fairer one. An input with fewer content tokens
    than the summary gives all its sentences; a summary without content tokens gives no sentence. Sentences without
    content tokens read before the budget is reached are taken (they count for embedding matching). Seeded by
    ``seed`` and the input id, as ``value_permutations``."""
    rng = np.random.default_rng([seed, zlib.crc32(sample.input_id.encode("utf-8"))])
    mass = sample.sentence_mass
    if order == "units":
        places = rng.permuted(np.tile(np.arange(sample.labels.size), (n_draws, 1)), axis=1)  # draw × unit
        read = np.argsort(places[:, sample.sentence_unit] * mass.size + np.arange(mass.size), axis=1)
    elif order == "sentences":
        read = np.argsort(rng.random((n_draws, mass.size)), axis=1)
    else:
        raise ValueError("order must be 'units' or 'sentences'")
    ordered = mass[read]
    if (length or SELECTION_LENGTH) == "sentences":
        # as many whole sentences as the summary has, read in that order: lead-k of the input with its units in a
        # random order is then one of the draws exactly
        taken = np.broadcast_to((np.arange(mass.size) < max(sample.budget_sentences, 1)).astype(float),
                                ordered.shape)
    else:
        before = np.cumsum(ordered, axis=1) - ordered
        taken = (before < sample.budget).astype(float)
        if partial:
            with np.errstate(divide="ignore", invalid="ignore"):
                share = np.where(ordered > 0, (sample.budget - before) / ordered, 1.0)
            taken *= np.clip(share, 0.0, 1.0)
    choices = np.zeros((n_draws, mass.size))
    np.put_along_axis(choices, read, taken, axis=1)
    return choices


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


def value_permutations(sample: SampleUnits, n_permutations: int, seed: int) -> np.ndarray:
    """Return ``n_permutations`` × units value labels: the sample's labels shuffled among its units, independently
    per row, seeded by ``seed`` and the input id (the same input gets the same shuffles in every call)."""
    rng = np.random.default_rng([seed, zlib.crc32(sample.input_id.encode("utf-8"))])
    return rng.permuted(np.tile(sample.labels, (n_permutations, 1)), axis=1)


def _null_scores(samples: Sequence[SampleUnits], n_permutations: int, seed: int, null: str = DEFAULT_NULL,
                 **options) -> list[PermutedScores]:
    """Row 0: the observed sample; rows 1..K: the null — K value-blind selections (``value_blind_selections``,
    ``selection_scores``) or K shuffles of the values (``value_permutations``, ``permuted_scores``) — chunked so
    that no intermediate array holds more than about four million cells."""
    out = []
    for sample in samples:
        observed = permuted_scores(sample, sample.labels[None, :], **options)
        if null in ("selection", "sentences"):
            draws = value_blind_selections(sample, n_permutations, seed,
                                           order="units" if null == "selection" else null)
            width = sample.sentence_counts.shape[1] if sample.sentence_counts is not None else (
                sample.sentence_vectors.shape[1] + sample.unit_vectors.shape[0])
            size = max(1, _MAX_CELLS // max(1, draws.shape[1] * width))
            parts = [observed] + [selection_scores(sample, draws[start:start + size], **options)
                                  for start in range(0, draws.shape[0], size)]
        else:
            labels = value_permutations(sample, n_permutations, seed)
            size = max(1, _MAX_CELLS // max(1, labels.shape[1] * len(sample.values)
                                             * (1 + (0 if sample.occurs is None else sample.occurs.shape[0]))))
            parts = [observed] + [permuted_scores(sample, labels[start:start + size], **options)
                                  for start in range(0, labels.shape[0], size)]
        out.append(PermutedScores(*(np.concatenate([np.asarray(getattr(p, f)) for p in parts])
                                    for f in PermutedScores.__dataclass_fields__)))
    return out


def perspective_fairness(
    pairs: Sequence[Pair],
    *,
    matching: str = "ngram",
    target: str | Mapping[str, float] = "ratio",
    tau: float = DEFAULT_TAU,
    temperature: float = DEFAULT_TEMPERATURE,
    n_resamples: int = stats.DEFAULT_RESAMPLES,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = 0,
    perturbation: str | None = None,
    null: str = DEFAULT_NULL,
) -> list[MeasureResult]:
    """Return corpus BUR (%), UER (%), AUC and SOF with d intervals (METHODS §4.7; Zhang et al. §5), each with its
    permutation test in ``details['test']`` and the per-value representation-ratio tests in
    ``details['ratio_tests']`` (see the module docstring); ``n_permutations`` = 0 leaves both out."""
    if n_permutations < 0:
        raise ValueError("n_permutations must be 0 (no permutation test) or more")
    if null not in NULLS:
        raise ValueError(f"null must be one of {', '.join(NULLS)}")
    summarizers = {pair.summary.summarizer for pair in pairs}
    labels = {"summarizer": summarizers.pop() if len(summarizers) == 1 else None,
              "perturbation": perturbation or "sentiment"}
    prepared = sample_units(pairs, matching=matching, null=null if n_permutations > 0 else "shuffle")
    per_sample, skipped = sample_fairness(pairs, matching=matching, target=target, tau=tau, temperature=temperature,
                                          prepared=prepared)
    kept = [(pair, score) for pair, score in zip(pairs, per_sample) if score is not None]
    details = {"matching": matching, "target": target if isinstance(target, str) else dict(target), "tau": tau,
               "auc_grid": list(AUC_GRID), "samples_skipped": len(skipped), "skipped_examples": skipped[:5],
               "n_samples": len(kept)}
    if matching == "embedding":
        details.update({"temperature": temperature, "similarity": "mean cosine, all-MiniLM-L6-v2"})
    if matching == fairsumm_ngram.FAIRSUMM_NGRAM:
        details.update({"comparison": "p_y ≤ τ·p_g", "tokens": "FairSumm code: NLTK word_tokenize, stop words of "
                        "all languages, WordNet lemma (single-token POS) + Porter stem; empty slots kept unless the "
                        "float sum of shares reaches 1"})
    if not kept:
        reason = "no sample has units with values (perspective inputs needed)"
        return [r for name in PERSPECTIVE_MEASURES for r in undefined_results(name, reason, ("d",), 0, details,
                                                                               labels)]
    details["distributions"] = value_distributions([score for _, score in kept])
    tests: dict[str, dict] = {}
    if n_permutations > 0:
        details["null"] = null
        built = PermutationNull.build([s for s in prepared[0] if s is not None], n_permutations, seed, null=null,
                                      target=target, tau=tau, temperature=temperature)
        tests = {name: built.measure_test(name, n_resamples, seed) for name in PERSPECTIVE_MEASURES}
        details["ratio_tests"] = built.ratio_tests(n_resamples, seed)
    results = []
    for position, name in enumerate(PERSPECTIVE_MEASURES[:3]):
        scale = 100.0 if name in ("bur", "uer") else 1.0
        values = np.array([(score.bur, score.uer, score.auc)[position] * scale for _, score in kept])
        units = _per_original([pair.input.original_id for pair, _ in kept], values)
        by_arm: dict[str, list[float]] = {}
        for (pair, _), value in zip(kept, values):
            by_arm.setdefault(pair.input.arm or "", []).append(value)
        row = {**details, "unit": "%" if scale == 100.0 else "fraction",
               "by_arm": {arm: float(np.mean(v)) for arm, v in sorted(by_arm.items())}}
        if name in tests:
            row["test"] = tests[name]
        results += interval_results(name, float(values.mean()), units, lambda p: p[:, 0] / p[:, 1], kinds=("d",),
                                    details=row, reason=None, n_resamples=n_resamples, seed=seed, labels=labels)
    sof_details = {**details, "test": tests["sof"]} if "sof" in tests else details
    results += _sof_results(kept, sof_details, labels, n_resamples, seed)
    return results


def _null_description(n_permutations: int, null: str = DEFAULT_NULL) -> str:
    if null in ("selection", "sentences"):
        how = ("the units in a random order, each unit's sentences in its order" if null == "selection" else
               "the sentences in a random order")
        length = ("as many sentences as the summary" if SELECTION_LENGTH == "sentences" else
                  "as many content tokens as the summary (the sentence that crosses that budget counts in part)")
        return (f"value-blind summaries of the same length: {n_permutations} random selections of the input's "
                f"sentences, {length} ({how}), per input, pooled over originals")
    return (f"values shuffled among the units of each input, summary and unit texts kept (a value-blind summarizer "
            f"of the same summaries); {n_permutations} permutations per input, pooled over originals")


@dataclass
class PermutationNull:
    """The permutation null of one call (METHODS §4.7): every kept sample's scores under its observed values
    (column 0) and K shuffles of its values among its units (columns 1..K), aggregated per original.

    ``per_original[name]`` is originals × (K + 1) of the mean over the original's samples of BUR (%), UER (%) or AUC;
    ``shortfall_sums`` / ``shortfall_counts`` are originals × (K + 1) × values of the summed shortfall of each value
    and the number of samples in which it is present (SOF); ``source_sums`` / ``target_sums`` the same for p_x and
    p_y (representation ratios)."""

    originals: list[str]
    values: list[str]
    n_permutations: int
    null: str
    per_original: dict[str, np.ndarray]
    shortfall_sums: np.ndarray
    shortfall_counts: np.ndarray
    source_sums: np.ndarray
    target_sums: np.ndarray

    @classmethod
    def build(cls, samples: Sequence[SampleUnits], n_permutations: int, seed: int, null: str = DEFAULT_NULL,
              **options) -> PermutationNull:
        scores = _null_scores(samples, n_permutations, seed, null, **options)
        originals = list(dict.fromkeys(sample.original for sample in samples))
        values = sorted({value for sample in samples for value in sample.values})
        row = {original: i for i, original in enumerate(originals)}
        column = {value: i for i, value in enumerate(values)}
        size = (len(originals), n_permutations + 1)
        per_sample = {name: np.zeros(size) for name in PERSPECTIVE_MEASURES[:3]}
        n_samples = np.zeros(len(originals))
        tables = [np.zeros((*size, len(values))) for _ in range(4)]
        for sample, score in zip(samples, scores):
            o = row[sample.original]
            n_samples[o] += 1
            for name, scale in (("bur", 100.0), ("uer", 100.0), ("auc", 1.0)):
                per_sample[name][o] += getattr(score, name) * scale
            columns = [column[value] for value in sample.values]
            for table, part in zip(tables, (score.shortfall, score.present, score.source, score.target)):
                table[o][:, columns] += part
        per_original = {name: sums / n_samples[:, None] for name, sums in per_sample.items()}
        return cls(originals, values, n_permutations, null, per_original, *tables)

    def measure_test(self, name: str, n_resamples: int, seed: int) -> dict:
        """The test of one measure against the null: estimate = observed − null mean, d interval, one-sided p."""
        if name == "sof":
            return self._sof_test(n_resamples, seed)
        table = self.per_original[name]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category=RuntimeWarning)
            null_by_original = np.nanmean(table[:, 1:], axis=1)
            pooled = np.nanmean(table, axis=0)
        observed, null = float(pooled[0]), pooled[1:]
        excess = table[:, 0] - null_by_original
        interval, _ = stats.pooled_bootstrap(np.column_stack([excess, np.ones_like(excess)]), self.originals,
                                             lambda p: p[:, 0] / p[:, 1], kind="d", n_resamples=n_resamples,
                                             seed=seed)
        return self._test(float(np.mean(excess)), interval, stats.permutation_p(observed, null), observed,
                          float(np.nanmean(null)), n_resamples,
                          "mean over originals of (observed − mean over permutations) of the mean over the "
                          "original's samples; p = (1 + #{T_k ≥ T_obs}) / (K + 1), T = mean over originals")

    def _test(self, estimate: float, interval: stats.Interval, p: float, observed: float, null_mean: float,
              n_resamples: int, method: str) -> dict:
        return {"estimate": estimate, "ci_low": interval.low, "ci_high": interval.high, "p_value": p,
                "sided": "greater", "null": _null_description(self.n_permutations, self.null), "floor": "permutation",
                "observed": observed, "null_mean": null_mean, "n_permutations": self.n_permutations,
                "n_resamples": n_resamples, "ci_kind": "d", "method": method,
                "n_undefined_resamples": interval.n_undefined}

    def _sof_test(self, n_resamples: int, seed: int) -> dict:
        """SOF against its null: SOF of the pooled observed shortfalls vs the SOF of each permutation's pooled
        shortfalls; the interval resamples originals and recomputes both (every permutation's SOF on the same
        resampled originals), so it is the bootstrap of observed SOF − null-mean SOF."""
        sof = _sof_of(self.shortfall_sums.sum(axis=0), self.shortfall_counts.sum(axis=0))
        observed, null = float(sof[0]), sof[1:]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category=RuntimeWarning)
            null_mean = float(np.nanmean(null))
        rng = np.random.default_rng(seed)
        n, k, r = self.shortfall_sums.shape
        flat_sums = self.shortfall_sums.reshape(n, -1)
        flat_counts = self.shortfall_counts.reshape(n, -1)
        step = max(1, _SOF_CHUNK_CELLS // max(1, k * r))

        def excess(weights: np.ndarray) -> np.ndarray:
            out = np.empty(weights.shape[0])
            for start in range(0, weights.shape[0], step):
                chosen = weights[start:start + step]
                resampled = _sof_of((chosen @ flat_sums).reshape(-1, k, r),
                                    (chosen @ flat_counts).reshape(-1, k, r))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", category=RuntimeWarning)
                    out[start:start + step] = resampled[:, 0] - np.nanmean(resampled[:, 1:], axis=1)
            return out

        if n <= _FEW_ORIGINALS:
            # Few originals give few distinct resamples (10 for 3 originals): compute each once.
            weights = stats.cluster_weights(n, n_resamples, rng)
            distinct, inverse = np.unique(weights, axis=0, return_inverse=True)
            pieces = [excess(distinct)[inverse.ravel()]]
        else:
            size = max(step, _MAX_CELLS // n)
            pieces = [excess(stats.cluster_weights(n, min(size, n_resamples - start), rng))
                      for start in range(0, n_resamples, size)]
        low, high, undefined = stats.percentile_interval(np.concatenate(pieces))
        interval = stats.Interval(low, high, "d", "percentile", n_resamples, n_undefined=undefined)
        return self._test(observed - null_mean, interval, stats.permutation_p(observed, null), observed, null_mean,
                          n_resamples, "corpus SOF of the pooled shortfalls − mean over permutations of the corpus "
                                       "SOF; interval: originals resampled, both recomputed; "
                                       "p = (1 + #{SOF_k ≥ SOF_obs}) / (K + 1)")

    def ratio_tests(self, n_resamples: int, seed: int) -> dict[str, dict]:
        """Per value v: r = p_y(v) / p_x(v) per original (means over its samples), against the same ratio under the
        permutations; excess = mean over originals of (r − mean over permutations), d interval, two-sided
        permutation p pooled over originals, Holm over the values; favoured / short-changed when the interval
        excludes 0 on that side and the Holm p < 0.05."""
        with np.errstate(divide="ignore", invalid="ignore"):
            ratios = np.where(self.source_sums > 0, self.target_sums / self.source_sums, np.nan)  # o × (K+1) × v
        out: dict[str, dict] = {}
        p_values = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category=RuntimeWarning)
            for i, value in enumerate(self.values):
                table = ratios[:, :, i]
                seen = ~np.isnan(table[:, 0])
                if not seen.any():
                    continue
                null_by_original = np.nanmean(table[seen, 1:], axis=1)
                excess = np.where(seen, table[:, 0] - np.nanmean(table[:, 1:], axis=1), 0.0)
                interval, _ = stats.pooled_bootstrap(np.column_stack([excess, seen.astype(float)]), self.originals,
                                                     lambda p: p[:, 0] / p[:, 1], kind="d",
                                                     n_resamples=n_resamples, seed=seed)
                pooled = np.nanmean(table[seen], axis=0)
                observed, null = float(pooled[0]), pooled[1:]
                p = stats.permutation_p(observed, null, sided="two-sided")
                p_values.append(p)
                out[value] = {"ratio": observed, "null_ratio": float(np.mean(null_by_original)),
                              "excess": float(np.mean(excess[seen])), "ci_low": interval.low,
                              "ci_high": interval.high, "p_value": p, "n_originals": int(seen.sum())}
        adjusted = holm(p_values)
        for entry, p_holm in zip(out.values(), adjusted):
            significant = math.isfinite(p_holm) and p_holm < 0.05
            entry["p_holm"] = p_holm
            entry["favoured"] = bool(significant and entry["ci_low"] > 0)
            entry["short_changed"] = bool(significant and entry["ci_high"] < 0)
        return out


def _sof_of(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """SOF (``second_order_fairness``) over the last axis of pooled (summed shortfall, samples) tables, for any
    leading shape; a value in no sample is left out (nan when no value is left). Masked sums instead of nanmean:
    this runs on resamples × permutations × values arrays."""
    seen = counts > 0
    if seen.all():
        mean_shortfall = sums / counts
        return np.abs(mean_shortfall - mean_shortfall.mean(axis=-1, keepdims=True)).mean(axis=-1)
    n_seen = seen.sum(axis=-1)
    mean_shortfall = np.divide(sums, counts, out=np.zeros_like(sums, dtype=float), where=seen)
    with np.errstate(divide="ignore", invalid="ignore"):
        centre = mean_shortfall.sum(axis=-1) / n_seen
        spread = np.abs(mean_shortfall - centre[..., None])
        spread *= seen
        return spread.sum(axis=-1) / n_seen


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values (step-down: sorted p times (m − rank), running maximum, capped at 1); nan stays nan
    and is not counted. The same numbers as ``stats.adjust_pvalues(p, 'holm')`` (statsmodels), which a test checks;
    statsmodels' Holm runs ``gc.collect()`` on every call, 0.3 s with spaCy loaded, more than the whole null costs."""
    p = np.asarray(p_values, dtype=float)
    adjusted = np.full(p.shape, math.nan)
    defined = np.flatnonzero(~np.isnan(p))
    order = defined[np.argsort(p[defined], kind="stable")]
    m = order.size
    if m:
        adjusted[order] = np.minimum(1.0, np.maximum.accumulate(p[order] * np.arange(m, 0, -1)))
    return [float(x) for x in adjusted]


def _shortfall_units(kept: Sequence[tuple[Pair, SampleFairness]], values: Sequence[str]) -> UnitCounts:
    """Per original: the summed shortfall of each value, then how many samples had that value (2r columns)."""
    column = {value: i for i, value in enumerate(values)}
    index: dict[str, int] = {}
    counts = np.zeros((len({pair.input.original_id for pair, _ in kept}), 2 * len(values)))
    for pair, score in kept:
        row = index.setdefault(pair.input.original_id, len(index))
        for value, shortfall in zip(score.values, score.shortfall):
            counts[row, column[value]] += shortfall
            counts[row, len(values) + column[value]] += 1
    return UnitCounts([(o, o) for o in index], counts)


def _sof_results(kept: Sequence[tuple[Pair, SampleFairness]], details: dict, labels: dict, n_resamples: int,
                 seed: int) -> list[MeasureResult]:
    """Return the corpus-level SOF with its d interval and the per-value mean shortfall (METHODS §4.7)."""
    values = sorted({value for _, score in kept for value in score.values})
    r = len(values)

    def statistic(pooled: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return second_order_fairness(np.where(pooled[:, r:] > 0, pooled[:, :r] / pooled[:, r:], np.nan))

    def corpus_sof(chosen: Sequence[tuple[Pair, SampleFairness]]) -> float:
        return float(statistic(_shortfall_units(chosen, values).pooled[None, :])[0])

    units = _shortfall_units(kept, values)
    pooled = units.pooled
    mean_shortfall = dict(zip(values, (pooled[:r] / pooled[r:]).tolist()))
    largest = max(mean_shortfall.values())
    worst = [value for value, shortfall in mean_shortfall.items() if shortfall == largest]
    by_arm: dict[str, list[tuple[Pair, SampleFairness]]] = {}
    for item in kept:
        by_arm.setdefault(item[0].input.arm or "", []).append(item)
    row = {**details, "unit": "fraction",
           "per_value_mean_shortfall": mean_shortfall,
           "per_value_samples": dict(zip(values, pooled[r:].astype(int).tolist())),
           "most_short_changed": worst[0] if len(worst) == 1 and largest > 0 else None,
           "sof_definition": "per value v, mean over samples of max(0, p_g(v) − p_y(v)); SOF = mean over values of "
                             "|that mean − the mean over values| (FairSumm code, corpus level)",
           "by_arm": {arm: corpus_sof(chosen) for arm, chosen in sorted(by_arm.items())}}
    value = float(statistic(pooled[None, :])[0])
    return interval_results("sof", value, units, statistic, kinds=("d",), details=row, reason=None,
                            n_resamples=n_resamples, seed=seed, labels=labels)


def value_distributions(scores: Sequence[SampleFairness]) -> dict[str, dict[str, float]]:
    """Mean source share p_x(v), target share p_y(v) and their ratio per value over samples (Zhang et al. Fig. 4).

    The ratio is of the means (pooled), so values that are rare in some samples do not blow it up; a ratio below 1
    means the summaries under-represent that value relative to the inputs.
    """
    sums: dict[str, list[float]] = {}
    for score in scores:
        for value, source, target in zip(score.values, score.source, score.target):
            entry = sums.setdefault(value, [0.0, 0.0, 0.0])
            entry[0] += float(source)
            entry[1] += float(target)
            entry[2] += 1
    return {value: {"p_x": source / count, "p_y": target / count,
                    "ratio": (target / source) if source > 0 else math.nan, "n_samples": int(count)}
            for value, (source, target, count) in sorted(sums.items())}


def _per_original(originals: Sequence[str], values: np.ndarray) -> UnitCounts:
    index: dict[str, int] = {}
    owner = np.array([index.setdefault(o, len(index)) for o in originals])
    counts = np.zeros((len(index), 2))
    np.add.at(counts, owner, np.column_stack([values, np.ones_like(values)]))
    return UnitCounts([(o, o) for o in index], counts)
