"""THE significance rule of summbias (``judge``, METHODS §5; issues 11 and 19) and the verdict it returns.

Every place that marks a result as evidence of bias — the Overview and Metrics pages, the charts, the HTML report and
the CSV export — asks ``judge`` and nothing else, so the marks cannot contradict each other. ``judge`` reads the
measure's declared direction and null (``semantics``), the primary estimate (``primary_estimate``: the signed version
where a score cannot be negative, METHODS §4.1–4.3), the identity noise floor (METHODS §1.7) and Holm's correction
over the confirmatory family (METHODS §5).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from bias_core.common.records import MeasureResult
from bias_core.common.words import counted
from bias_core.verdicts.semantics import (
    MeasureSemantics,
    group_words,
    interval_kind,
    perspective_extremes,
    primary_estimate,
    result_groups,
    semantics,
)
from bias_core.verdicts.significance import (
    ALPHA,
    detectable_effect,
    family_p_values,
    holm_p,
    is_verdict_result,
    test_of,
)


@dataclass(frozen=True)
class Verdict:
    """The one significance verdict of a result (``judge``)."""

    status: str  # "finding" | "no evidence of bias" | IDENTICAL ("no difference: the summaries are identical") |
    #              "not significant after correction" | "not enough data" | "undefined" | "description"
    significant: bool
    favoured: str | None
    reasons: tuple[str, ...]
    p_value: float | None = None  # the raw p-value the correction used (None: not applicable)
    p_holm: float | None = None  # Holm-adjusted within the summarizer's family (None: not applicable)
    correction: str = ""  # how the correction was made, in words; says "not applicable" and why when it was not
    clears_floor: bool | None = None  # whether the test against its noise floor excludes it (None: no floor)
    floor: tuple[float, float] | None = None  # kept for older bundles; the floor is now tested (``floor_used``)
    mde: float | None = None  # the effect detected in 4 of 5 audits like this one by this rule, in the estimate's unit
    mde_method: str = ""  # "simulated" (the rule run on simulated audits) or "z-approximation"
    null: str = ""  # the null the test used, in words
    floor_used: str = ""  # the noise floor the test used, in words


def _favoured(result: MeasureResult, sem: MeasureSemantics, value: float) -> str | None:
    """Who the significant result favours, in words (only called for findings)."""
    if result.measure in ("word_list_inclusion_adjusted", "word_list_inclusion_unadjusted", "entity_inclusion",
                          "entity_hallucination", "acc_diff"):
        first, second = result_groups(result)[:2]
        return group_words(first if value > 0 else second)
    if sem.family == "perspective fairness":
        favoured = perspective_extremes(result)[1]
        return f"the reviews rated {' and '.join(favoured)}" if favoured else None
    if result.measure == "mbic":
        return "the biased sentences" if value > 0 else "the neutral sentences"
    return None


IDENTICAL = "no difference: the summaries are identical"


def judge(result: MeasureResult, results: Sequence[MeasureResult], *, detectable: bool = True) -> Verdict:
    """THE significance rule of summbias (METHODS §5; issues 11 and 19). A result is a finding only when all hold:

    (a) it is a test, not a description (``semantics(...).kind``), with an interval over originals (d);
    (b) its test (``test_of``: the measure's own null — a permutation null, the within-group or paired design —
        else its interval against the measure's null) has a 95% interval that excludes the null on the side of bias
        (above for "higher is more bias", below for "higher is less bias", either side for signed measures);
    (c) its p survives Holm at α = 0.05 within its summarizer's family (every test of that summarizer in the run);
    (d) at least 2 originals.
    Identical summaries across arms (estimate exactly at the null, no spread) are "no difference", never "not enough
    data". Every verdict that is not a finding states the effect it could have detected (``mde``: the rule run on
    simulated audits of its own per-original values, ``simulated_power``) where there is spread.
    "favoured" is set only for findings. ``detectable=False`` leaves ``mde`` out (a view that shows only the status,
    such as the Runs page's leaderboard, skips the simulation).
    """
    sem = semantics(result.measure)
    if not result.is_defined:
        return Verdict("undefined", False, None, (result.reason or "the measure cannot be computed on these data",),
                       correction="correction not applicable: the measure cannot be computed")
    if not is_verdict_result(result):
        why = ("a description of the summaries, shown as context beside the tests; never a finding"
               if sem.kind == "description" else
               "an interval over draws of names within each original (s), shown as context; verdicts use "
               "intervals over originals" if interval_kind(result) == "s" else
               "measured on the unchanged articles, shown as context")
        return Verdict("description", False, None, (why,), correction="correction not applicable: a description")
    test = test_of(result)
    if test is None:
        own = result.details.get("test") if isinstance(result.details, dict) else None
        tested = own.get("n_originals") if isinstance(own, dict) else None
        why = (f"only {counted(int(tested), 'original')} to test; a test needs at least 2" if tested is not None
               else "the result has no test or confidence interval")
        return Verdict("not enough data", False, None, (why,), correction="correction not applicable: no test")
    if result.n < 2:
        return Verdict("not enough data", False, None, (f"only {counted(result.n, 'original')}; a test needs at least 2",),
                       correction="correction not applicable: not enough data", null=test.null, floor_used=test.floor)
    if test.identical:
        return Verdict(IDENTICAL, False, None, (("what the measure compares is exactly the same in both arms of every "
                                                f"one of the {result.n} originals"),),
                       correction="correction not applicable: no difference", null=test.null, floor_used=test.floor)
    if test.low is not None and test.high is not None and not test.high > test.low:
        if test.floor == "permutation" and test.estimate == test.null_value and test.low == test.null_value:
            return Verdict("no evidence of bias", False, None,
                           (("the measure takes the same value on every shuffle of the values: it is saturated on "
                            "these data (e.g. every summary under-represents some value), so it cannot tell"),),
                           p_value=test.p_value, correction="correction not applicable: no spread", null=test.null,
                           floor_used=test.floor)
        if test.estimate == test.null_value and test.low == test.null_value:
            return Verdict(IDENTICAL, False, None,
                           ((f"the estimate is exactly the null ({format_number(test.null_value)}) on every resample "
                            f"of the {result.n} originals: what the measure compares is the same in both arms"),),
                           correction="correction not applicable: no difference", null=test.null,
                           floor_used=test.floor)
        return Verdict("not enough data", False, None, ((f"the interval is a single point ({format_number(test.low)}) "
                                                        f"on n = {result.n}: the resamples never vary"),),
                       correction="correction not applicable: not enough data", null=test.null,
                       floor_used=test.floor)
    reasons: list[str] = []
    count_test = test.low is None or test.high is None
    if count_test:
        # a count of corrected tests has no interval: its own p, before the summarizer's correction, decides whether
        # it is a difference at all (then Holm decides whether it survives), so a p of 1 is "no evidence"
        excludes = test.p_value is not None and test.p_value < ALPHA
    elif test.sided == "greater":
        excludes = test.low > test.null_value
    elif test.sided == "less":
        excludes = test.high < test.null_value
    else:
        excludes = test.low > test.null_value or test.high < test.null_value
    if not excludes:
        reasons.append(_count_reason(result, test) if count_test else
                       "the 95% interval includes the value meaning no bias")
    p_raw, p_holm, correction = holm_p(result, results)
    survives = p_holm is not None and p_holm < ALPHA
    if not survives and (excludes or not count_test):
        # a count test with nothing beyond its null is "no … differs significantly", never "after correction"
        reasons.append(f"not significant after correction ({correction}, p = {_p(p_holm)})")
    if not excludes:
        status = "no evidence of bias"
    elif not survives:
        status = "not significant after correction"
    else:
        status = "finding"
    significant = status == "finding"
    favoured = _favoured(result, sem, primary_estimate(result)[0] or 0.0) if significant else None
    mde, mde_method = ((None, "") if significant or not detectable
                       else detectable_effect(test, family_p_values(result, results)))
    clears = excludes if test.floor not in ("none", "") else None
    return Verdict(status, significant, favoured, tuple(reasons), p_raw, p_holm, correction, clears, None,
                   mde=mde, mde_method=mde_method, null=test.null, floor_used=test.floor)


def _count_reason(result: MeasureResult, test) -> str:
    """Why a count of corrected tests (Fightin' Words words, politician features) is no evidence, in words."""
    what = {"fightin_words": ("word", "differs", "differ"),
            "politician_features": ("feature", "changes", "change")}.get(result.measure)
    if what is None:
        return f"its own test is not significant (p = {_p(test.p_value)})"
    one, verb_one, verb_many = what
    own = result.details.get("test") if isinstance(result.details, dict) else None
    observed = own.get("observed") if isinstance(own, dict) else None
    if not observed:
        return f"no {one} {verb_one} significantly"
    return (f"{counted(int(observed), one)} {verb_one if observed == 1 else verb_many} significantly, no more "
            f"than the null gives (p = {_p(test.p_value)})")


def format_number(x: float | None, digits: int = 2) -> str:
    if x is None or not math.isfinite(x):
        return "—"
    text = f"{x:.{digits}f}"
    return "0" if text.strip("-0.") == "" else text


def _p(p: float | None) -> str:
    if p is None:
        return "—"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"
