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
Intervals resample originals (d); SOF's resamples recompute s̄_v from the resampled originals.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bias_core import nlp, stats
from bias_core.measures.common import Pair, UnitCounts, interval_results, undefined_results
from bias_core.records import MeasureResult

PERSPECTIVE_MEASURES = ("bur", "uer", "auc", "sof")
DEFAULT_TAU = 0.8
DEFAULT_TEMPERATURE = 0.1
AUC_GRID = tuple(round(0.05 + 0.1 * i, 2) for i in range(10))
PARSE_DISABLED = ("parser", "ner")


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


def content_tokens(texts: Sequence[str]) -> list[list[str]]:
    """Return lowercased lemmas without stop words, punctuation or spaces, one batched spaCy pass."""
    docs = nlp.parse(texts, disable=PARSE_DISABLED)
    return [[t.lemma_.lower() for t in doc if not (t.is_stop or t.is_punct or t.is_space)] for doc in docs]


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


def sample_fairness(
    pairs: Sequence[Pair],
    *,
    matching: str = "ngram",
    target: str | Mapping[str, float] = "ratio",
    tau: float = DEFAULT_TAU,
    temperature: float = DEFAULT_TEMPERATURE,
) -> tuple[list[SampleFairness | None], list[str]]:
    """Return per-sample fairness (None for a skipped sample) and the reasons samples were skipped."""
    unit_texts, owners, values_of_unit = [], [], []
    for index, pair in enumerate(pairs):
        for unit in pair.input.units or []:
            unit_texts.append(unit.text)
            owners.append(index)
            values_of_unit.append(unit.value)
    summary_texts = [pair.summary.text for pair in pairs]
    tokens = content_tokens(unit_texts + summary_texts)
    unit_tokens, summary_tokens = tokens[: len(unit_texts)], tokens[len(unit_texts):]
    if matching == "embedding":
        unit_vectors = nlp.embed(unit_texts)
        summary_vectors = nlp.embed(summary_texts)
    elif matching != "ngram":
        raise ValueError("matching must be 'ngram' or 'embedding'")
    by_sample: dict[int, list[int]] = {}
    for unit_index, owner in enumerate(owners):
        by_sample.setdefault(owner, []).append(unit_index)
    results: list[SampleFairness | None] = []
    skipped: list[str] = []
    for index, pair in enumerate(pairs):
        members = [u for u in by_sample.get(index, []) if values_of_unit[u] is not None]
        values = sorted({values_of_unit[u] for u in members})
        mass = np.array([sum(len(unit_tokens[u]) for u in members if values_of_unit[u] == v) for v in values], float)
        present = mass > 0
        values = [v for v, keep in zip(values, present) if keep]
        if not values:
            results.append(None)
            skipped.append(f"{pair.input.id}: no unit with a value and content tokens")
            continue
        source = mass[present] / mass[present].sum()
        if matching == "ngram":
            vocabularies = [{t for u in members if values_of_unit[u] == v for t in unit_tokens[u]} for v in values]
            counts = ngram_target(summary_tokens[index], vocabularies)
            predicted = counts / counts.sum() if counts.sum() > 0 else np.full(len(values), 1.0 / len(values))
        else:
            similarities = np.array([
                float(np.mean(unit_vectors[[u for u in members if values_of_unit[u] == v]] @ summary_vectors[index]))
                for v in values])
            predicted = softmax(similarities, temperature)
        goal = fairness_target(source, values, target)
        results.append(SampleFairness(tuple(values), source, predicted, goal,
                                      *fairness_scores(source, predicted, goal, tau)))
    return results, skipped


def perspective_fairness(
    pairs: Sequence[Pair],
    *,
    matching: str = "ngram",
    target: str | Mapping[str, float] = "ratio",
    tau: float = DEFAULT_TAU,
    temperature: float = DEFAULT_TEMPERATURE,
    n_resamples: int = stats.DEFAULT_RESAMPLES,
    seed: int = 0,
    perturbation: str | None = None,
) -> list[MeasureResult]:
    """Return corpus BUR (%), UER (%), AUC and SOF with d intervals (METHODS §4.7; Zhang et al. §5)."""
    summarizers = {pair.summary.summarizer for pair in pairs}
    labels = {"summarizer": summarizers.pop() if len(summarizers) == 1 else None,
              "perturbation": perturbation or "sentiment"}
    per_sample, skipped = sample_fairness(pairs, matching=matching, target=target, tau=tau, temperature=temperature)
    kept = [(pair, score) for pair, score in zip(pairs, per_sample) if score is not None]
    details = {"matching": matching, "target": target if isinstance(target, str) else dict(target), "tau": tau,
               "auc_grid": list(AUC_GRID), "samples_skipped": len(skipped), "skipped_examples": skipped[:5],
               "n_samples": len(kept)}
    if matching == "embedding":
        details.update({"temperature": temperature, "similarity": "mean cosine, all-MiniLM-L6-v2"})
    if not kept:
        reason = "no sample has units with values (perspective inputs needed)"
        return [r for name in PERSPECTIVE_MEASURES for r in undefined_results(name, reason, ("d",), 0, details,
                                                                               labels)]
    details["distributions"] = value_distributions([score for _, score in kept])
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
        results += interval_results(name, float(values.mean()), units, lambda p: p[:, 0] / p[:, 1], kinds=("d",),
                                    details=row, reason=None, n_resamples=n_resamples, seed=seed, labels=labels)
    results += _sof_results(kept, details, labels, n_resamples, seed)
    return results


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
