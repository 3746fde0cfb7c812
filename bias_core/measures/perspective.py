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

The scores of one sample and the units they are computed from are in ``perspective_scores`` and ``matching``; the
test against a value-blind null (``details['test']``, ``details['ratio_tests']``) is in ``perspective_null``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from bias_core.common import stats
from bias_core.common.records import MeasureResult
from bias_core.measures import fairsumm_ngram
from bias_core.measures.common import Pair, UnitCounts, interval_results, undefined_results
from bias_core.measures.perspective_null import DEFAULT_PERMUTATIONS, PermutationNull
from bias_core.measures.perspective_scores import (
    AUC_GRID,
    DEFAULT_NULL,
    DEFAULT_TAU,
    DEFAULT_TEMPERATURE,
    NULLS,
    PERSPECTIVE_MEASURES,
    SampleFairness,
    sample_fairness,
    sample_units,
    second_order_fairness,
)


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
    ``details['ratio_tests']`` (see ``perspective_null``); ``n_permutations`` = 0 leaves both out."""
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
        tests = {name: built.measure_test(name) for name in PERSPECTIVE_MEASURES}
        details["ratio_tests"] = built.ratio_tests()
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
