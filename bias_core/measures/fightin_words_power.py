"""The power of Fightin' Words' count test (METHODS §4.6, §5 "Power"; issue 28, Deliver 4): the log-odds ratio a word
needs between the arms to be significant after Benjamini–Hochberg, found by planting a word into the audit's own
pooled counts and running the correction on simulated draws of its counts.

Why simulation rather than z · σ: the correction's threshold depends on where the planted p falls among the
vocabulary's observed p-values (the step-up rule), and a word's counts are small integers, so its z is lumpy.
"""

from __future__ import annotations

import math

import numpy as np

POWER_RUNS = 400


def bh_rejects_planted(planted: np.ndarray, others: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """Whether Benjamini–Hochberg at ``alpha`` rejects a planted word's p-value (one per simulated draw) among the
    fixed p-values ``others`` of the rest of the vocabulary. With r others below it, the planted p is the (r+1)-th
    smallest of m: the step-up rule rejects it when it clears α (r+1) / m itself or when some later p clears its own
    step (the i-th smallest other, i ≥ r, then sits at position i + 2)."""
    m = others.size + 1
    ordered = np.sort(others)
    rank = np.searchsorted(ordered, planted, side="left")
    later = ordered <= alpha * (np.arange(ordered.size) + 2) / m
    any_later = np.append(np.flip(np.cumsum(np.flip(later)) > 0), False)  # any_later[r]: some later one clears
    return (planted <= alpha * (rank + 1) / m) | any_later[rank]


def detectable_log_odds(y_a: np.ndarray, y_b: np.ndarray, alpha: np.ndarray, p_values: np.ndarray,
                        counted: np.ndarray, seed: int = 0) -> tuple[float | None, int]:
    """The smallest log-odds ratio between the arms with which a word reaches Benjamini–Hochberg significance in 80%
    of simulated draws, and that word's pooled count (issue 28, Deliver 4). The planted word takes the place of a
    counted word — the one at the 75th percentile of pooled counts, else (when no log-odds makes a word that rare
    significant: under the uninformative prior a word absent from one side never is) the 90th, the 99th, the most
    frequent — its pooled counts drawn Poisson around the planted odds, the rest of the vocabulary's p-values as
    observed. (None, count of the most frequent) when no word of these counts can be significant; (None, 0) without
    a counted word."""
    from scipy.special import ndtr  # imported where used: the measures registry loads at every CLI start
    from scipy.stats import poisson

    totals = y_a + y_b
    candidates = np.flatnonzero(counted)
    if candidates.size == 0:
        return None, 0
    ranked = candidates[np.argsort(totals[candidates], kind="stable")]
    n_a, n_b = float(y_a.sum()), float(y_b.sum())
    uniforms = np.random.default_rng(seed).random((2, POWER_RUNS))
    a0 = alpha.sum()
    count = 0.0
    for quantile in (0.75, 0.9, 0.99, 1.0):
        j = ranked[round(quantile * (ranked.size - 1))]
        count = float(totals[j])
        others = np.delete(p_values, j)

        def rate(delta: float, j: int = j, count: float = count, others: np.ndarray = others) -> float:
            # expected counts c_a + c_b = count with log odds(c_a / n_a) − log odds(c_b / n_b) ≈ δ
            share = 1.0 / (1.0 + (n_b / n_a) * math.exp(-delta))
            ya, yb = poisson.ppf(uniforms[0], count * share), poisson.ppf(uniforms[1], count * (1.0 - share))
            with np.errstate(divide="ignore", invalid="ignore"):
                d = (np.log((ya + alpha[j]) / (n_a + a0 - ya - alpha[j]))
                     - np.log((yb + alpha[j]) / (n_b + a0 - yb - alpha[j])))
                z = d / np.sqrt(1.0 / (ya + alpha[j]) + 1.0 / (yb + alpha[j]))
            return float(np.mean(bh_rejects_planted(2.0 * ndtr(-np.abs(z)), others) & (z > 0)))

        high = 1.0
        while high <= 16 and rate(high) < 0.8:
            high *= 2.0
        if high > 16:  # odds beyond e^16 (nine million to one): no word this rare can be significant
            continue
        low = 0.0
        while high - low > 0.01:
            middle = (low + high) / 2.0
            low, high = (low, middle) if rate(middle) >= 0.8 else (middle, high)
        return high, round(count)
    return None, round(count)
