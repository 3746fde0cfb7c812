"""Shared plumbing of the measures: pairing summaries with inputs, resampling units and building results.

Resampling units follow METHODS §4.5: an original's inputs that share a ``sample_id`` (a C_loc pair, or one draw of
names) form one assignment sample; d-intervals resample originals, s-intervals resample samples within originals.
An input without ``sample_id`` is its own sample.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from bias_core.common import nlp, stats
from bias_core.common.records import Input, MeasureResult, Summary


@dataclass(frozen=True)
class Pair:
    """One summary with the input it summarises."""

    input: Input
    summary: Summary


def pair_summaries(inputs: Sequence[Input], summaries: Sequence[Summary]) -> list[Pair]:
    """Return (input, summary) pairs for the summaries whose input is among ``inputs``, in summary order."""
    by_id = {item.id: item for item in inputs}
    return [Pair(by_id[summary.input_id], summary) for summary in summaries if summary.input_id in by_id]


def sample_key(item: Input) -> tuple[str, str]:
    """Return the (original, assignment sample) an input belongs to, the unit of s-resampling."""
    sample = item.id if item.sample_id is None else str(item.sample_id)
    return (item.original_id, sample)


@dataclass
class UnitCounts:
    """Count vectors summed per assignment sample, with each sample's original (for d/s resampling)."""

    keys: list[tuple[str, str]]
    counts: np.ndarray

    @property
    def originals(self) -> list[str]:
        return [key[0] for key in self.keys]

    @property
    def n_originals(self) -> int:
        return len(set(self.originals))

    @property
    def pooled(self) -> np.ndarray:
        return self.counts.sum(axis=0)

    def per_original(self) -> np.ndarray:
        """The count vectors summed per original, in the order the originals first appear (the unit of the tests
        over originals, METHODS §5)."""
        index: dict[str, int] = {}
        owners = [index.setdefault(original, len(index)) for original in self.originals]
        out = np.zeros((len(index), self.counts.shape[1]))
        np.add.at(out, owners, self.counts)
        return out


def sum_by_sample(items: Sequence[Input], rows: np.ndarray) -> UnitCounts:
    """Sum per-input count rows into per-sample rows (METHODS §4.5 s-units)."""
    index: dict[tuple[str, str], int] = {}
    owners = np.array([index.setdefault(sample_key(item), len(index)) for item in items], dtype=int)
    counts = np.zeros((len(index), rows.shape[1] if rows.ndim == 2 else 0))
    if len(items):
        np.add.at(counts, owners, rows)
    return UnitCounts(list(index), counts)


def tokenize_lower(texts: Sequence[str]) -> list[list[str]]:
    """Return spaCy tokens, lowercased, of each text (tokenizer only: every pipe disabled)."""
    docs = nlp.parse(texts, disable=nlp.spacy_pipeline().pipe_names)
    return [[token.lower_ for token in doc if not token.is_space] for doc in docs]


def interval_results(
    measure: str,
    value: float,
    units: UnitCounts,
    statistic: Callable[[np.ndarray], np.ndarray],
    *,
    kinds: Sequence[str],
    details: dict,
    reason: str | None,
    n_resamples: int,
    seed: int,
    signed: tuple[Callable[[np.ndarray], np.ndarray], str] | None = None,
    n: int | None = None,
    labels: dict | None = None,
) -> list[MeasureResult]:
    """Return one MeasureResult per CI kind ('d', 's') for a statistic of pooled counts (METHODS §4.5).

    ``signed`` is an optional (statistic, meaning) pair: a directional version of a non-negative score whose
    interval can contain 0 (e.g. the entity inclusion odds ratio with a sign for the favoured group); its value and
    interval go into ``details['signed']``.
    """
    labels = labels or {}
    n = units.n_originals if n is None else n
    results = []
    signed_value = None
    if signed is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            signed_value = float(signed[0](units.pooled[None, :])[0])
    for kind in kinds:
        row = dict(details)
        interval = None
        if not math.isnan(value) and units.counts.shape[0] > 0:
            interval, _ = stats.pooled_bootstrap(units.counts, units.originals, statistic, kind=kind,
                                                 n_resamples=n_resamples, seed=seed)
            row["ci"] = interval.as_details()
            if signed is not None:
                signed_interval, _ = stats.pooled_bootstrap(units.counts, units.originals, signed[0], kind=kind,
                                                            n_resamples=n_resamples, seed=seed)
                row["signed"] = {"value": signed_value, "ci_low": signed_interval.low,
                                 "ci_high": signed_interval.high, "meaning": signed[1]}
                folded = _folded_interval(value, signed_value, signed_interval)
                if folded is not None:
                    interval = folded
                    row["ci"] = interval.as_details()
        results.append(MeasureResult(
            measure=measure, value=value, n=n, ci_low=interval.low if interval else None,
            ci_high=interval.high if interval else None, ci_kind=kind, reason=reason,
            details=stats.json_ready(row), **labels))
    return results


def _folded_interval(value: float, signed_value: float | None, signed_interval: stats.Interval
                     ) -> stats.Interval | None:
    """The score's interval as the image of the signed interval under |·|, where the score is |signed|.

    A non-negative score near 0 (TVD, the odds-ratio score) has a skewed bootstrap: every resample folds to a
    positive value, so its percentile interval can lie wholly above the estimate (e.g. 0.0003 with [0.0038, 0.2442],
    issue 11). The signed statistic is smooth through 0 and its percentile interval is the one METHODS §4.5
    prescribes; since the score equals |signed|, {|s| : s in the signed interval} covers |true| whenever the signed
    interval covers the true signed value, so it is a valid 95% interval that always contains the estimate:
    [0, max(|low|, |high|)] when the signed interval contains 0, else [min(|low|, |high|), max(|low|, |high|)].
    Returns None (keep the percentile interval) where the score is not |signed| or a bound is not finite.
    """
    low, high = signed_interval.low, signed_interval.high
    if (signed_value is None or not all(math.isfinite(x) for x in (value, signed_value, low, high))
            or abs(abs(signed_value) - value) > 1e-9 * max(1.0, abs(value))):
        return None
    top = max(abs(low), abs(high))
    bottom = 0.0 if low <= 0.0 <= high else min(abs(low), abs(high))
    # the score and |signed| are computed by different float paths and can differ in the last bit (0.0329506802721089
    # against 0.03295068027210868); the interval must still contain its estimate
    bottom, top = min(bottom, value), max(top, value)
    note = "the image of the signed percentile interval under |·| (the score is |signed|; METHODS §4.5)"
    return stats.Interval(bottom, top, signed_interval.kind, "signed percentile, folded", signed_interval.n_resamples,
                          signed_interval.confidence, signed_interval.n_undefined,
                          f"{signed_interval.note}; {note}" if signed_interval.note else note)


def undefined_results(measure: str, reason: str, kinds: Sequence[str], n: int = 0, details: dict | None = None,
                      labels: dict | None = None) -> list[MeasureResult]:
    """Return nan results (one per CI kind) carrying ``reason`` (METHODS §0)."""
    return [MeasureResult(measure=measure, value=math.nan, n=n, ci_kind=kind, reason=reason,
                          details=stats.json_ready(details or {}), **(labels or {})) for kind in kinds]
