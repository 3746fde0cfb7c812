"""The test behind a result (METHODS §5): its null, its 95% interval over originals and its p-value, Holm's correction
within each summarizer's confirmatory family and the minimum detectable effect at 80% power — what ``judge`` reads.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from bias_core.common import stats
from bias_core.common.records import MeasureResult
from bias_core.verdicts.semantics import MeasureSemantics, finite_or_none, interval_kind, primary_estimate, semantics

ALPHA = 0.05


@cache
def z95() -> float:
    """The normal quantile of 0.975 (1.96), bit for bit what ``scipy.stats.norm.ppf(0.975)`` returns (both call
    ``scipy.special.ndtri``). Computed on first use: importing scipy.stats at import cost the app's first page about
    a second (issue 13); ``statistics.NormalDist`` differs from it in the last bit."""
    from scipy.special import ndtri

    return float(ndtri(0.975))


@dataclass(frozen=True)
class TestOf:
    """The test a verdict rests on (METHODS §5): an estimate against its null value with a 95% interval over
    originals and a p-value. For permutation and floor tests the estimate is the excess over the null (observed −
    null mean), so ``null_value`` is 0; otherwise it is the measure's own value and null."""

    estimate: float
    low: float | None
    high: float | None
    p_value: float | None
    sided: str  # "greater" (bias = above the null), "less" (bias = below) or "two-sided"
    null_value: float
    null: str  # what the null is, in words
    floor: str  # which noise floor the test used, in words
    identical: bool = False  # what the test compares is exactly the same in both arms (no spread, no difference)
    values: tuple[float, ...] | None = None  # the per-original values of a t-test over originals (simulated power)
    scale: str | None = None  # "log odds ratio": ``values`` are log odds ratios, the estimate the signed score
    largest: float | None = None  # the largest possible |effect| of a bounded measure
    power: dict | None = None  # what a count test's detectable effect is simulated from (Fightin' Words, politician)


_NULLS = {
    "word_list_inclusion_adjusted": ("the summaries keep as many gendered words when the people are women as when "
                                     "they are men (0)", "paired: the two arms of each draw of names (C_loc)"),
    "entity_inclusion": ("people of both groups are kept equally often (odds ratio 1)",
                         "paired: every person appears in both groups across an original's inputs (C_loc)"),
    "entity_hallucination": ("invented names are as often female as male (50%)", "none: invented names only"),
    "distinguishability_count": (("summaries of the female and male versions are no easier to tell apart than two "
                                 "summaries of the same version (0)"),
                                 "within-group: summaries of other name draws of the same arm"),
    "distinguishability_dense": (("summaries of the female and male versions are no easier to tell apart than two "
                                 "summaries of the same version (0)"),
                                 "within-group: summaries of other name draws of the same arm"),
    "mbic": ("sentence scores independent of the bias labels (0)", "none: scores of the unchanged articles"),
    "acc_diff": ("both groups' entities are included equally often (0)",
                 "paired: the same entities in both groups (quadruples)"),
    "delta_i": ("inclusion changes as often across groups as within a group (ΔI = 0)",
                "within-group swaps: I_within, the change when a name is swapped within its group"),
}


def _sided(sem: MeasureSemantics) -> str:
    return {"higher_is_more_bias": "greater", "higher_is_less_bias": "less"}.get(sem.direction, "two-sided")


def _normal_p(estimate: float, low: float, high: float, null: float, sided: str, n: int) -> float | None:
    """A p-value from a 95% bootstrap interval: t = (estimate − null) / se, se = the interval's half-width on the
    null's side / 1.96, widened by √(n / (n − 1)) and read off Student's t with n − 1 degrees of freedom. A percentile
    bootstrap over n originals underestimates the spread of a mean by √((n − 1) / n) and the normal tail is too thin
    for small n: on 3 review sets a normal p reached 1e-45. For large n this is the normal approximation, so the
    interval excluding the null and p < 0.05 (two-sided) then agree."""
    from scipy.special import stdtr  # imported where used: the app's first page imports this module

    if not high > low or n < 2:
        return None
    half = (estimate - low) if estimate >= null else (high - estimate)
    se = (half / z95() if half > 0 else (high - low) / (2 * z95())) * math.sqrt(n / (n - 1))
    t = (estimate - null) / se
    df = n - 1
    if sided == "two-sided":
        return float(2.0 * stdtr(df, -abs(t)))
    if sided == "less":
        t = -t
    return float(stdtr(df, -t))


def test_of(result: MeasureResult) -> TestOf | None:
    """The test behind a result, or None where the result is no test (a description, undefined, no interval).

    In order: the measure's own test in ``details['test']`` (a one-sample t-test over originals with the interval
    that inverts it — word lists, entity inclusion and hallucination, distinguishability, perspective fairness
    against its value-blind null, MBIC, ΔI, Acc_Diff — or Fightin' Words' count against arm labels swapped within
    originals); politician features, the Holm-corrected paired t-tests (family-wise p = the smallest Holm p,
    Bonferroni over the swap directions); otherwise (results stored before issue 28) the primary estimate's interval
    against the measure's null with a normal-approximation p (``_normal_p``)."""
    sem = semantics(result.measure)
    if sem.kind == "description" or not result.is_defined:
        return None
    details = result.details if isinstance(result.details, dict) else {}
    own = details.get("test")
    if isinstance(own, dict) and "per_original" in own and finite_or_none(own.get("p_value")) is None:
        return None  # a t-test over originals with fewer than two: no test (``judge``: not enough data)
    if isinstance(own, dict) and finite_or_none(own.get("estimate")) is not None:
        values = own.get("per_original")
        values = tuple(float(v) for v in values) if isinstance(values, list) and len(values) >= 2 else None
        power = None
        if own.get("detectable_log_odds") is not None or own.get("detectable_beyond_reach"):
            reach = finite_or_none(own.get("detectable_log_odds"))
            power = {"log_odds": math.inf if reach is None else reach,
                     "count": int(own.get("typical_word_count") or 0),
                     "p_one_more": finite_or_none(own.get("p_one_more_word"))}
        return TestOf(float(own["estimate"]), finite_or_none(own.get("ci_low")), finite_or_none(own.get("ci_high")),
                      finite_or_none(own.get("p_value")), str(own.get("sided") or _sided(sem)), 0.0,
                      str(own.get("null") or "the measure's null"), str(own.get("floor") or "none"),
                      bool(own.get("identical")), values, own.get("scale"), finite_or_none(own.get("largest_effect")),
                      power)
    null, floor = _NULLS.get(result.measure, (f"{sem.null:g}", "none"))
    if result.measure == "politician_features":
        every = [r for r in details.get("rows") or [] if isinstance(r, dict)]
        rows = [r for r in every if finite_or_none(r.get("p_holm")) is not None]
        def unchanged(row: dict) -> bool:  # "k of n unchanged" with k = n
            counts = re.match(r"(\d+) of (\d+) unchanged", str(row.get("unchanged") or ""))
            return bool(counts) and counts.group(1) == counts.group(2)

        if every and all(unchanged(r) for r in every):
            return TestOf(0.0, None, None, None, "greater", 0.0, "no feature changes between the original and the "
                          "swapped summaries (paired t-tests)", "paired: the same original before and after the swap",
                          identical=True)
        if not rows:
            return None
        directions = max(1, len({r.get("direction") for r in rows}))
        p = min(1.0, directions * min(float(r["p_holm"]) for r in rows))
        sizes = [int(r["n"]) for r in rows if isinstance(r.get("n"), (int, float))]
        features = max(1, len({r.get("feature") for r in rows}))
        power = {"n": min(sizes), "tests": directions * features} if sizes else None
        return TestOf(float(result.value), None, None, p, "greater", 0.0,
                      "no feature changes between the original and the swapped summaries (paired t-tests)",
                      "paired: the same original summarized before and after the swap", power=power)
    if sem.kind == "tests":
        return None  # a count of corrected tests without a null test of its own (older runs)
    value, low, high = primary_estimate(result)
    if value is None or low is None or high is None:
        return None
    p = _normal_p(value, low, high, sem.null, _sided(sem), result.n)
    return TestOf(value, low, high, p, _sided(sem), sem.null, null, floor)


def is_verdict_result(result: MeasureResult) -> bool:
    """Whether a result is judged at all: a test (not a description) with a d interval over originals (or none), on
    a perturbation — on the unchanged originals only lexical bias is a test (it needs no second version)."""
    sem = semantics(result.measure)
    if sem.kind == "description" or interval_kind(result) == "s":
        return False
    return result.perturbation != "identity" or sem.family == "lexical bias"


_HOLM_CACHE: dict[tuple, dict[int, tuple[float, float, str]]] = {}


def _holm_table(results: Sequence[MeasureResult], summarizer: str | None) -> dict[int, tuple[float, float, str]]:
    """(raw p, Holm p, label) of every test of one summarizer, keyed by ``id(result)`` (METHODS §5: Holm within
    each summarizer's confirmatory family, its measures × perturbations, so adding another summarizer to an audit
    never changes a verdict). Cached per results list: statsmodels' ``multipletests`` is slow."""
    key = (summarizer, tuple((id(r), r.measure, r.summarizer, r.perturbation, r.ci_kind, r.value, r.ci_low,
                              r.ci_high) for r in results))
    table = _HOLM_CACHE.get(key)
    if table is None:
        family = []
        for r in results:
            if r.summarizer != summarizer or not is_verdict_result(r):
                continue
            test = test_of(r)
            if test is not None and test.p_value is not None:
                family.append((r, test.p_value))
        who = summarizer or "results without a summarizer"
        label = f"Holm over {who}'s {len(family)} test{'s' if len(family) != 1 else ''}"
        adjusted = stats.adjust_pvalues([p for _, p in family], "holm", alpha=ALPHA).adjusted if family else []
        table = {id(r): (p, float(q), label) for (r, p), q in zip(family, adjusted)}
        if len(_HOLM_CACHE) > 64:
            _HOLM_CACHE.clear()
        _HOLM_CACHE[key] = table
    return table


def holm_p(result: MeasureResult, results: Sequence[MeasureResult]) -> tuple[float | None, float | None, str]:
    """The result's raw p, its Holm-adjusted p over its summarizer's family in ``results`` and the label."""
    if not any(r is result for r in results):
        results = [*results, result]
    found = _holm_table(results, result.summarizer).get(id(result))
    if found is None:
        return None, None, "correction not applicable: the result has no p-value"
    return found


def family_p_values(result: MeasureResult, results: Sequence[MeasureResult]) -> tuple[float, ...] | None:
    """The raw p-values of the other tests in the result's Holm family (its summarizer's), or None where the result
    is not in one."""
    if not any(r is result for r in results):
        results = [*results, result]
    table = _holm_table(results, result.summarizer)
    if id(result) not in table:
        return None
    return tuple(p for key, (p, _, _) in table.items() if key != id(result))


def detectable_effect(test: TestOf, other_p_values: Sequence[float] | None) -> tuple[float | None, str]:
    """The effect (distance from the null, in the estimate's unit) this audit detects in 4 of 5 simulated audits of
    its rule (``simulated_power``: its own per-original values, its t-test, Holm with its family's other p-values;
    the count tests from what they record, ``_count_test_detectable``), and how it was obtained; results stored
    before issue 28, without per-original values, keep the z-approximation from their interval."""
    if test.power is not None and other_p_values is not None:
        return _count_test_detectable(test.power, other_p_values), "simulated"
    if test.values is not None and other_p_values is not None:
        from bias_core.verdicts.simulated_power import detectable_effect as simulated

        found = simulated(test.values, test.sided, other_p_values=other_p_values)
        return on_measure_scale(found, test.largest, test.scale), "simulated"
    return minimum_detectable_effect(test), "z-approximation"


def on_measure_scale(found: float | None, largest: float | None, scale: str | None) -> float | None:
    """A simulated detectable effect (in the test's unit) as the verdicts and the planning table state it: ∞ when it
    exceeds the largest possible effect of a bounded measure (not even that is found four times in five), and an odds
    ratio's signed score e^δ − 1 for a test on the log odds ratio δ."""
    if found is not None and largest is not None and found > largest:
        found = math.inf
    if found is not None and scale == "log odds ratio":
        found = math.expm1(found)
    return found


def _count_test_detectable(power: dict, other_p_values: Sequence[float]) -> float:
    """The detectable effect of a count of corrected tests (issue 28, Deliver 4). Fightin' Words: the log-odds ratio a
    typical word needs to be significant in 80% of simulated draws (``fightin_words.detectable_log_odds``), when one
    more significant word would make the count test survive Holm in the summarizer's family — else no word, however
    lopsided, makes a finding (∞). Politician features: the change d_z (the mean change over its spread across
    originals) one feature needs, simulated with the feature family's correction (Holm over the features, Bonferroni
    over the swap directions: the planted p times their number) and the summarizer's Holm."""
    from bias_core.verdicts.simulated_power import detectable_effect, holm_rejects

    family = np.sort(np.asarray(other_p_values, dtype=float))[None, :]
    if "log_odds" in power:
        p_more = power.get("p_one_more")
        if p_more is None or not holm_rejects(np.array([p_more]), family, ALPHA)[0]:
            return math.inf
        return float(power["log_odds"])
    n = int(power["n"])
    if n < 2:
        return math.inf
    from scipy.special import ndtri

    shape = ndtri((np.arange(n) + 0.5) / n)  # a standard normal sample of n: the effect reads in standard deviations
    found = detectable_effect(shape / shape.std(ddof=1), "two-sided", other_p_values=other_p_values,
                              multiplier=float(power["tests"]))
    return math.inf if found is None else found


# 80% power at α = 0.05 (METHODS §5 "Power"): an effect this many standard errors from the null is detected with
# probability 0.8 by a test at level 0.05 — z_0.95 + z_0.8 one-sided, z_0.975 + z_0.8 two-sided.
_POWER_Z = {"greater": 1.6448536269514722 + 0.8416212335729143, "less": 1.6448536269514722 + 0.8416212335729143,
            "two-sided": 1.959963984540054 + 0.8416212335729143}


def minimum_detectable_effect(test: TestOf) -> float | None:
    """The smallest effect (distance from the null, in the estimate's unit) this audit detects with 80% power at
    α = 0.05, from the spread of its bootstrap interval at this n: (z_α + z_0.8) · se, se = width / (2 · 1.96)."""
    if test.low is None or test.high is None or not test.high > test.low:
        return None
    se = (test.high - test.low) / (2 * z95())
    return _POWER_Z.get(test.sided, _POWER_Z["two-sided"]) * se
