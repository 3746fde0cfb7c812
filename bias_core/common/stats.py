"""Statistics used by every measure: bootstrap intervals, paired tests, effect sizes and corrections (METHODS §5).

- The unit of analysis is the original document; pairs are paired (METHODS §5).
- Confidence intervals are 95% percentile bootstrap intervals over 1,000 seeded resamples with the point estimate
  taken on the full data (METHODS §4.5; Steen & Markert Table 3 caption). Two resampling schemes:
  **d** resamples originals with replacement, keeping all of each original's inputs; **s** resamples the assignment
  samples *within* each original (a stratified bootstrap).
- Corpus-level bias scores pool counts over the corpus before computing the score (METHODS §4), so their bootstrap
  resamples pooled counts. We hand-roll that with numpy instead of calling ``scipy.stats.bootstrap``: scipy resamples
  independent observations of whole samples, so it has no stratified (within-original, "s") scheme, and for "d" it
  would rebuild every resampled count table, whereas a resample of a pooled count is a weighted sum of per-cluster
  counts — one matrix product ``weights @ counts`` for all resamples at once (``pooled_bootstrap``).
- For means of paired differences ``bootstrap_ci`` does use ``scipy.stats.bootstrap``. Percentile is the default;
  BCa may be asked for, and when it degenerates (many paired differences are 0, so the jackknife acceleration is
  undefined) we fall back to the percentile interval and say so in the interval's ``note`` (METHODS §5). Every paired
  comparison reports "k of n unchanged".
- Multiple comparisons: Holm for a confirmatory family, Benjamini–Hochberg for term tables, always through
  ``statsmodels.stats.multitest.multipletests`` with ``method=`` set explicitly (its default is Holm–Šidák) and the
  method named in the output.

scipy.stats and statsmodels (which loads pandas) are imported inside the functions that use them: together they cost
about a second to import, and the app's first page imports this module without computing anything (issue 13).
"""

from __future__ import annotations

import logging
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

logger = logging.getLogger(__name__)

DEFAULT_RESAMPLES = 1000
DEFAULT_CONFIDENCE = 0.95
# Resamples are processed in chunks so that a weight matrix never holds more than this many cells.
_MAX_WEIGHT_CELLS = 4_000_000

CORRECTION_LABELS = {"holm": "Holm", "fdr_bh": "Benjamini-Hochberg"}


@dataclass(frozen=True)
class Interval:
    """A bootstrap confidence interval: bounds, how it was resampled and anything the reader must know.

    ``kind`` is 'd' (originals resampled) or 's' (assignment samples resampled within originals) or None for
    intervals over plain paired values. ``n_undefined`` counts resamples on which the statistic was undefined (nan);
    they are left out of the percentiles and the count is reported.
    """

    low: float
    high: float
    kind: str | None
    method: str
    n_resamples: int
    confidence: float = DEFAULT_CONFIDENCE
    n_undefined: int = 0
    note: str | None = None

    def as_details(self) -> dict:
        """Return the interval's metadata as plain JSON-ready values (for a result's ``details``)."""
        out = {"method": self.method, "n_resamples": self.n_resamples, "confidence": self.confidence,
               "n_undefined_resamples": self.n_undefined}
        if self.note:
            out["note"] = self.note
        return out


def percentile_interval(samples: np.ndarray, confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float, int]:
    """Return (low, high, n_undefined) percentile bounds of bootstrap ``samples``, ignoring nan resamples.

    Infinite resamples (an odds ratio with p = 0 or 1) are kept: they sort to the ends, and the bounds are then taken
    with the 'inverted_cdf' rule, which never interpolates between an infinite and a finite value.
    """
    samples = np.asarray(samples, dtype=float)
    defined = samples[~np.isnan(samples)]
    n_undefined = int(samples.size - defined.size)
    if defined.size == 0:
        return math.nan, math.nan, n_undefined
    tail = (1.0 - confidence) / 2.0
    method = "linear" if np.all(np.isfinite(defined)) else "inverted_cdf"
    low, high = np.quantile(defined, [tail, 1.0 - tail], method=method)
    return float(low), float(high), n_undefined


def _chunks(n_resamples: int, n_columns: int) -> list[int]:
    size = max(1, min(n_resamples, _MAX_WEIGHT_CELLS // max(n_columns, 1)))
    return [min(size, n_resamples - start) for start in range(0, n_resamples, size)]


def cluster_weights(n_clusters: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Return a (n_resamples, n_clusters) matrix: how often each cluster is drawn in each resample (d-resampling)."""
    draws = rng.integers(0, n_clusters, size=(n_resamples, n_clusters))
    rows = np.repeat(np.arange(n_resamples), n_clusters)
    flat = np.bincount(rows * n_clusters + draws.ravel(), minlength=n_resamples * n_clusters)
    return flat.reshape(n_resamples, n_clusters).astype(float)


def stratified_weights(strata: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Return (n_resamples, n_units) draw counts when units are resampled *within* their stratum (s-resampling).

    ``strata`` gives each unit's stratum (its original); each stratum keeps its size in every resample.
    """
    strata = np.asarray(strata)
    order = np.argsort(strata, kind="stable")
    sorted_strata = strata[order]
    _, starts, sizes = np.unique(sorted_strata, return_index=True, return_counts=True)
    unit_start = np.repeat(starts, sizes)
    unit_size = np.repeat(sizes, sizes)
    n_units = strata.size
    draws_sorted = unit_start + np.floor(rng.random((n_resamples, n_units)) * unit_size).astype(np.int64)
    draws = order[draws_sorted]
    rows = np.repeat(np.arange(n_resamples), n_units)
    flat = np.bincount(rows * n_units + draws.ravel(), minlength=n_resamples * n_units)
    return flat.reshape(n_resamples, n_units).astype(float)


def pooled_bootstrap(
    counts: np.ndarray,
    clusters: Sequence,
    statistic: Callable[[np.ndarray], np.ndarray],
    *,
    kind: str,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> tuple[Interval, np.ndarray]:
    """Return the percentile interval and the bootstrap distribution of a statistic of pooled counts (METHODS §4.5).

    ``counts`` has one row per unit (an assignment sample, or an input) and one column per count; ``clusters`` gives
    each unit's original. ``statistic`` maps pooled count rows (shape (m, k)) to m values, so it is evaluated for all
    resamples at once. ``kind='d'`` resamples originals with replacement (all their units with them); ``kind='s'``
    resamples units within each original.
    """
    counts = np.asarray(counts, dtype=float)
    if counts.ndim != 2:
        raise ValueError("counts must be a 2-D array (units x counts)")
    rng = np.random.default_rng(seed)
    if kind == "d":
        cluster_ids, inverse = np.unique(np.asarray(clusters), return_inverse=True)
        table = np.zeros((cluster_ids.size, counts.shape[1]))
        np.add.at(table, inverse, counts)

        def draw(size: int) -> np.ndarray:
            return cluster_weights(cluster_ids.size, size, rng)
    elif kind == "s":
        table = counts
        strata = np.unique(np.asarray(clusters), return_inverse=True)[1]

        def draw(size: int) -> np.ndarray:
            return stratified_weights(strata, size, rng)
    else:
        raise ValueError("kind must be 'd' or 's'")
    pieces = []
    for size in _chunks(n_resamples, table.shape[0]):
        pooled = draw(size) @ table
        with np.errstate(divide="ignore", invalid="ignore"):
            pieces.append(np.asarray(statistic(pooled), dtype=float))
    distribution = np.concatenate(pieces) if pieces else np.zeros(0)
    low, high, n_undefined = percentile_interval(distribution, confidence)
    return Interval(low, high, kind, "percentile", n_resamples, confidence, n_undefined), distribution


def bootstrap_ci(
    values: Sequence[float],
    *,
    statistic: Callable[..., float] = np.mean,
    method: str = "percentile",
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Interval:
    """Return a bootstrap interval for ``statistic`` of one sample of values (e.g. paired differences), via scipy.

    ``method`` is 'percentile' (default) or 'BCa'. When every value is equal the interval is the point itself and
    the note says so; when BCa degenerates (nan bounds, typically because most paired differences are 0) the
    percentile interval is returned instead and the note says so (METHODS §5).
    """
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return Interval(math.nan, math.nan, None, method, n_resamples, confidence, note="no values")
    if np.all(data == data[0]):
        point = float(statistic(data))
        return Interval(point, point, None, "degenerate", n_resamples, confidence,
                        note=f"all {data.size} values are equal; the interval is the point estimate")
    from scipy import stats as scipy_stats

    rng = np.random.default_rng(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=scipy_stats.DegenerateDataWarning)
        warnings.simplefilter("ignore", category=RuntimeWarning)
        result = scipy_stats.bootstrap((data,), statistic, n_resamples=n_resamples, confidence_level=confidence,
                                       method=method, vectorized=False, rng=rng)
    low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
    if method.lower() == "bca" and not (math.isfinite(low) and math.isfinite(high)):
        logger.info("BCa interval degenerate (nan bounds); falling back to the percentile interval")
        low, high, _ = percentile_interval(result.bootstrap_distribution, confidence)
        return Interval(low, high, None, "percentile", n_resamples, confidence,
                        note="BCa degenerated (undefined acceleration); percentile interval reported instead")
    return Interval(low, high, None, method, n_resamples, confidence)


@dataclass(frozen=True)
class OneSampleT:
    """A two-sided one-sample t-test of a mean against 0 with the 95% interval that inverts it (METHODS §5: one test
    per measure, its interval and p from the same procedure, so the interval excludes 0 exactly when p < 0.05)."""

    estimate: float
    low: float
    high: float
    p_value: float


def one_sample_t(values: Sequence[float], confidence: float = DEFAULT_CONFIDENCE) -> OneSampleT | None:
    """Return the one-sample t-test of ``values`` against 0 and its inverted interval (``scipy.stats.ttest_1samp``);
    None with fewer than two values. No spread: the interval is the point, p = 1 at 0 and 0 elsewhere."""
    from scipy import stats as scipy_stats

    x = np.asarray(values, dtype=float)
    if x.size < 2:
        return None
    mean = float(x.mean())
    if np.all(x == x[0]):
        return OneSampleT(mean, mean, mean, 1.0 if mean == 0 else 0.0)
    result = scipy_stats.ttest_1samp(x, 0.0)
    interval = result.confidence_interval(confidence)
    return OneSampleT(mean, float(interval.low), float(interval.high), float(result.pvalue))


def t_test_fields(values: Sequence[float], largest: float | None = None) -> dict:
    """The one-sample t-test over originals of ``values`` as a measure records it in ``details['test']``: estimate,
    the interval that inverts the test, p, n, and the per-original values themselves (``per_original``), from which
    the verdict simulates the effect this audit could detect (``verdicts.simulated_power``). Where the test needs
    two values or more and has fewer: the estimate alone. ``largest``: the largest possible |effect| of a bounded
    measure; the interval is cut to it (on two originals a t interval reaches ±600 percentage points of a share),
    which never changes whether it holds 0."""
    x = np.asarray(values, dtype=float)
    fields = {"n_originals": int(x.size), "per_original": [float(v) for v in x], "ci_kind": "d",
              "method": "one-sample t-test over originals, its interval"}
    if largest is not None:
        fields["largest_effect"] = float(largest)
    found = one_sample_t(x)
    if found is None:
        return {**fields, "estimate": float(x.mean()) if x.size else None}
    low, high = found.low, found.high
    if largest is not None:
        low, high = max(low, -largest), min(high, largest)
    return {**fields, "estimate": found.estimate, "ci_low": low, "ci_high": high, "p_value": found.p_value}


def effect_size_dz(differences: Sequence[float]) -> float:
    """Return Cohen's d_z = mean(difference) / sd(difference) for paired data (METHODS §5).

    Undefined (nan) with fewer than two pairs or when every difference is 0; infinite (signed) when all differences
    are equal and non-zero.
    """
    diff = np.asarray(differences, dtype=float)
    if diff.size < 2:
        return math.nan
    mean = float(diff.mean())
    sd = float(diff.std(ddof=1))
    if sd == 0.0:
        return math.nan if mean == 0.0 else math.copysign(math.inf, mean)
    return mean / sd


@dataclass(frozen=True)
class PairedComparison:
    """A paired comparison of ``treated`` against ``control`` (e.g. replaced vs original summaries)."""

    n: int
    mean_control: float
    mean_treated: float
    mean_difference: float
    statistic: float
    p_value: float
    d_z: float
    n_unchanged: int
    interval: Interval
    test: str
    note: str | None = None

    @property
    def unchanged(self) -> str:
        """The "k of n unchanged" line of METHODS §5."""
        return f"{self.n_unchanged} of {self.n} unchanged"

    def as_details(self) -> dict:
        """Return the comparison as JSON-ready values (non-finite numbers become None)."""
        return json_ready({
            "n": self.n, "mean_control": self.mean_control, "mean_treated": self.mean_treated,
            "mean_difference": self.mean_difference, "statistic": self.statistic, "p": self.p_value,
            "d_z": self.d_z, "unchanged": self.unchanged, "ci_low": self.interval.low,
            "ci_high": self.interval.high, "ci": self.interval.as_details(), "test": self.test, "note": self.note,
        })


def paired_test(
    treated: Sequence[float],
    control: Sequence[float],
    *,
    test: str = "t",
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> PairedComparison:
    """Return a two-sided paired test of ``treated`` vs ``control`` with d_z and a bootstrap CI of the mean difference.

    ``test`` is 't' (``scipy.stats.ttest_rel``, as Zhou & Tan §5) or 'wilcoxon' (``scipy.stats.wilcoxon``). When every
    difference is 0 the test is undefined: p is nan and the note says so (the caller shows "—").
    """
    from scipy import stats as scipy_stats

    a = np.asarray(treated, dtype=float)
    b = np.asarray(control, dtype=float)
    if a.shape != b.shape:
        raise ValueError("paired samples must have the same length")
    diff = a - b
    n = int(diff.size)
    n_unchanged = int(np.sum(diff == 0))
    interval = bootstrap_ci(diff, n_resamples=n_resamples, seed=seed)
    mean_a = float(a.mean()) if n else math.nan
    mean_b = float(b.mean()) if n else math.nan
    note = None
    if n < 2:
        statistic, p_value, note = math.nan, math.nan, "fewer than two pairs"
    elif n_unchanged == n:
        statistic, p_value, note = math.nan, math.nan, "every pair is unchanged; the test is undefined"
    elif test == "t":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category=RuntimeWarning)
            result = scipy_stats.ttest_rel(a, b)
        statistic, p_value = float(result.statistic), float(result.pvalue)
        if math.isnan(p_value):
            note = "all differences are equal and non-zero; the t statistic is infinite"
            statistic, p_value = math.copysign(math.inf, float(diff.mean())), 0.0
    elif test == "wilcoxon":
        result = scipy_stats.wilcoxon(a, b, zero_method="wilcox")
        statistic, p_value = float(result.statistic), float(result.pvalue)
    else:
        raise ValueError("test must be 't' or 'wilcoxon'")
    return PairedComparison(n, mean_b, mean_a, mean_a - mean_b, statistic, p_value, effect_size_dz(diff),
                            n_unchanged, interval, "paired t-test" if test == "t" else "Wilcoxon signed-rank", note)


def arrow(p_value: float, difference: float) -> str:
    """Return Zhou & Tan's arrow (Table 2): ↑ = the replaced summaries have the larger mean, — when p ≥ 0.05 or nan."""
    if not math.isfinite(p_value) or p_value >= 0.05 or difference == 0:
        return "—"
    symbol = "↑" if difference > 0 else "↓"
    for threshold, count in ((1e-20, 4), (0.001, 3), (0.01, 2)):
        if p_value < threshold:
            return symbol * count
    return symbol


def permutation_p(observed: float, null: np.ndarray, *, sided: str = "greater") -> float:
    """The permutation p-value (1 + #{null at least as extreme as observed}) / (K + 1), K = the null's size.

    ``sided='greater'``: at least as large; ``'two-sided'``: at least as far from the null's mean. A relative
    tolerance of 1e-12 lets a permutation equal to the observed assignment count whatever the float path; nan
    permutations count as not extreme. nan for a non-finite observed value or an empty null."""
    null = np.asarray(null, dtype=float)
    if not math.isfinite(observed) or null.size == 0:
        return math.nan
    if sided == "greater":
        extreme = null >= observed - 1e-12 * max(1.0, abs(observed))
    elif sided == "two-sided":
        centre = float(np.nanmean(null))
        distance = abs(observed - centre)
        extreme = np.abs(null - centre) >= distance - 1e-12 * max(1.0, distance)
    else:
        raise ValueError("sided must be 'greater' or 'two-sided'")
    return float((1 + np.sum(extreme)) / (null.size + 1))


@dataclass(frozen=True)
class AdjustedPValues:
    """P-values after a multiple-comparison correction, with the method named as it must appear in tables."""

    adjusted: list[float]
    reject: list[bool]
    method: str
    family_size: int

    @property
    def label(self) -> str:
        return f"{CORRECTION_LABELS[self.method]} over {self.family_size} tests"


def holm_adjusted(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979): the i-th smallest times (m − i + 1), made non-decreasing in
    that order, at most 1 — what statsmodels' ``multipletests(method="holm")`` returns (a test holds them equal).
    Written here because statsmodels' Holm path calls ``gc.collect()`` on every call: about 80 ms each in the app's
    process, seconds on a page that judges every result (issue 31)."""
    order = np.argsort(p_values, kind="mergesort")
    m = len(p_values)
    stepped = np.maximum.accumulate(p_values[order] * np.arange(m, 0, -1))
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted


def adjust_pvalues(p_values: Sequence[float], method: str, alpha: float = 0.05) -> AdjustedPValues:
    """Return Holm ('holm') or Benjamini–Hochberg ('fdr_bh') adjusted p-values (METHODS §5).

    Undefined (nan) p-values are not part of the family; they stay nan and are never rejected.
    """
    if method not in CORRECTION_LABELS:
        raise ValueError(f"method must be one of {', '.join(CORRECTION_LABELS)}")
    p = np.asarray(p_values, dtype=float)
    adjusted = np.full(p.shape, math.nan)
    reject = np.zeros(p.shape, dtype=bool)
    defined = ~np.isnan(p)
    if defined.any() and method == "holm":
        adj = holm_adjusted(p[defined])
        adjusted[defined] = adj
        reject[defined] = adj <= alpha
    elif defined.any():
        from statsmodels.stats.multitest import multipletests

        rej, adj, _, _ = multipletests(p[defined], alpha=alpha, method=method)
        adjusted[defined] = adj
        reject[defined] = rej
    return AdjustedPValues([float(x) for x in adjusted], [bool(x) for x in reject], method, int(defined.sum()))


def json_ready(value):
    """Return ``value`` with numpy scalars made plain and non-finite floats made None, so it serialises as JSON."""
    if isinstance(value, dict):
        return {str(key): json_ready(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(item) for item in value]
    if isinstance(value, np.ndarray):
        return [json_ready(item) for item in value.tolist()]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else None
    return value
