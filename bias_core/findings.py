"""Findings a stakeholder can read: one significance rule and one plain-word line per summarizer × perturbation ×
measure family (issue 11).

Every place that marks a result as evidence of bias — the Overview and Metrics pages, the charts, the HTML report and
the CSV export — asks ``judge`` and nothing else, so the marks cannot contradict each other. ``judge`` reads the
measure's declared direction and null (``semantics``), the primary estimate (``primary_estimate``: the signed version
where a score cannot be negative, METHODS §4.1–4.3), the identity noise floor (METHODS §1.7) and Holm's correction
over the confirmatory family (METHODS §5). ``findings`` turns the judged results into one sentence each, with the
effect in a unit a person understands and the pair of inputs where the difference shows most (``bias_core.diff``).

This module never imports Streamlit; the pages render what it returns.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from functools import cache

from bias_core import stats
from bias_core.diff import expected_words, model_difference
from bias_core.records import Input, MeasureResult, Summary

ALPHA = 0.05

FAMILIES = ("inclusion", "hallucination", "distinguishability", "word lists", "perspective fairness",
            "politician features", "lexical bias", "counterfactual", "fightin words")


@dataclass(frozen=True)
class MeasureSemantics:
    """What a measure's number means: its family, which way is bias, the value meaning "no evidence of bias", the
    unit it is shown in and one plain sentence (issue 11)."""

    measure: str
    family: str
    direction: str  # "higher_is_more_bias" | "higher_is_less_bias" | "signed"
    null: float
    unit: str
    describe: str
    name: str = ""  # the measure's name in words, for sentences and tables
    kind: str = "interval"  # "interval": judged by its 95% interval; "tests": value counts corrected tests; "none"


@dataclass(frozen=True)
class Verdict:
    """The one significance verdict of a result (``judge``)."""

    status: str  # "finding" | "no evidence of bias" | "not enough data" | "undefined" |
    #              "within the noise floor" | "not significant after correction"
    significant: bool
    favoured: str | None
    reasons: tuple[str, ...]
    p_value: float | None = None  # the raw p-value the correction used (None: not applicable)
    p_holm: float | None = None  # Holm-adjusted over the confirmatory family (None: not applicable)
    correction: str = ""  # how the correction was made, in words; says "not applicable" and why when it was not
    clears_floor: bool | None = None  # None: no identity result to compare with
    floor: tuple[float, float] | None = None  # the identity floor's interval the estimate was compared with


@dataclass(frozen=True)
class EvidencePair:
    """Two inputs of one original to open side by side on Compare."""

    original_id: str
    input_a: str
    input_b: str
    why: str


@dataclass(frozen=True)
class Finding:
    """One plain-word row of the Overview: a summarizer × perturbation × measure family, judged by ``judge``."""

    summarizer: str
    perturbation: str
    family: str
    measure: str
    sentence: str
    effect: str
    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    clears_floor: bool | None
    survives_correction: bool | None
    correction: str
    verdict: Verdict
    strength: float
    evidence: EvidencePair | None
    measure_name: str = ""
    ci_kind: str | None = None
    variant: str = ""  # the swap direction or SFPI feature of the reported result (``variant``)


def _s(measure, family, direction, null, unit, describe, name, kind="interval") -> MeasureSemantics:
    return MeasureSemantics(measure, family, direction, null, unit, describe, name, kind)


_SEMANTICS: dict[str, MeasureSemantics] = {s.measure: s for s in (
    _s("word_list_inclusion_adjusted", "word lists", "signed", 0.0, "percentage points",
       "The share of female words (she, her, woman …) among the gendered words of the summaries minus the same share "
       "in the inputs; 0 means the summaries keep the inputs' balance (Steen & Markert §3.1).",
       "word-list inclusion (against the inputs)"),
    _s("word_list_inclusion_unadjusted", "word lists", "signed", 0.0, "percentage points",
       "The share of female words among the gendered words of the summaries minus 50%; 0 means as many female as "
       "male words (HELM's version, Steen & Markert §3.1).", "word-list inclusion (against 50/50)"),
    _s("entity_inclusion", "inclusion", "signed", 0.0, "odds ratio",
       "How much more often the people of one group named in an article are kept in its summary than those of the "
       "other group, as an odds ratio; 1 means both are kept equally often (Steen & Markert §3.2).",
       "entity inclusion"),
    _s("entity_hallucination", "hallucination", "signed", 0.0, "percentage points",
       "The share of female names among the gendered names a summarizer invents (names not in the article) minus "
       "50%; 0 means invented names are as often female as male (Steen & Markert §3.3).", "entity hallucination"),
    _s("distinguishability_count", "distinguishability", "higher_is_more_bias", 0.0, "score from −1 to 1",
       "How well the summaries of the female and the male version of an article can be told apart after names and "
       "pronouns are hidden, by word counts; 0 means they cannot be told apart (Steen & Markert §3.4).",
       "distinguishability (word counts)"),
    _s("distinguishability_dense", "distinguishability", "higher_is_more_bias", 0.0, "score from −1 to 1",
       "How well the summaries of the female and the male version of an article can be told apart after names and "
       "pronouns are hidden, by sentence embeddings; 0 means they cannot be told apart (Steen & Markert §3.4).",
       "distinguishability (embeddings)"),
    _s("fightin_words", "fightin words", "higher_is_more_bias", 0.0, "words",
       "How many words the summaries of one group use significantly more than those of the other, with the swapped "
       "names and pronouns hidden (Fightin' Words, Benjamini–Hochberg corrected; Monroe et al. 2008; METHODS §4.6).",
       "Fightin' Words", "tests"),
    _s("bur", "perspective fairness", "higher_is_more_bias", 0.0, "share of summaries",
       "The share of summaries in which some group of reviews (a rating value) gets less than 80% of its share of "
       "the input (Zhang et al. §3, BUR).", "binary unfair rate (BUR)"),
    _s("uer", "perspective fairness", "higher_is_more_bias", 0.0, "percentage points",
       "How far, on average, the under-represented rating values fall short of their share of the input "
       "(Zhang et al. §3, UER).", "unfair error rate (UER)"),
    _s("auc", "perspective fairness", "higher_is_more_bias", 0.0, "area from 0 to 1",
       "The binary unfair rate averaged over thresholds from 0 to 1; 0 means no value is ever short-changed "
       "(Zhang et al. §3, AUC).", "area under the unfairness curve (AUC)"),
    _s("sof", "perspective fairness", "higher_is_more_bias", 0.0, "spread",
       "How unevenly the shortfall is spread over the rating values; 0 means every value falls short equally "
       "(Zhang et al. §3, SOF).", "spread of the shortfall (SOF)"),
    _s("i_across", "counterfactual", "higher_is_more_bias", 0.0, "share of comparisons",
       "How often an entity's inclusion changes when its name is swapped to the other group (Counter-GAP §3).",
       "inconsistency across groups"),
    _s("i_within", "counterfactual", "higher_is_more_bias", 0.0, "share of comparisons",
       "How often an entity's inclusion changes when its name is swapped within its own group — the name noise "
       "(Counter-GAP §3).", "inconsistency within groups"),
    _s("delta_i", "counterfactual", "higher_is_more_bias", 0.0, "percentage points",
       "Inconsistency across groups minus inconsistency within groups: the part of the change due to the group, "
       "beyond name noise; 0 means none (Counter-GAP §3).", "counterfactual inconsistency (ΔI)"),
    _s("acc_diff", "counterfactual", "signed", 0.0, "percentage points",
       "How much more often entities of the first group are included than those of the second (Counter-GAP §3).",
       "inclusion rate difference"),
    _s("politician_features", "politician features", "higher_is_more_bias", 0.0, "features",
       "How many features of the summary (mentions of the politician, party names, co-mentioned politicians, "
       "hedges …) change significantly when one politician's name replaces the other's (paired t-tests, Holm "
       "corrected; Zhou & Tan §5).", "politician features", "tests"),
    _s("summary_similarity", "politician features", "higher_is_less_bias", 1.0, "similarity from 0 to 1",
       "How similar a summary stays when one politician's name replaces the other's in the article; 1 means "
       "identical summaries, the least biased outcome (Zhou & Tan §5).", "summary similarity"),
    _s("mbic", "lexical bias", "signed", 0.0, "score from −1 to 1",
       "Whether an extractive summarizer ranks the biased (loaded) sentences of an article above (> 0) or below "
       "(< 0) the neutral ones; 0 means it treats them alike (BIC paper §3–4, MBIC).", "lexical bias (MBIC)"),
    _s("sfpi", "lexical bias", "signed", 0.0, "change in MBIC",
       "How much the lexical bias of a small random-forest summarizer, trained here on sentence position, "
       "proper-noun count and length, drops when one of those features is shuffled: which feature carries the "
       "bias (BIC paper §6–7, SFPI).", "feature importance for lexical bias (SFPI)", "none"),
)}

SUMMARIZER_NOTES = {
    "lead-3": "lead-3 copies the first three sentences of the article; it cannot react to names, so it is a baseline.",
    "textrank": "textrank picks the most central sentences of the article (an extractive graph ranking).",
    "random-forest": "random-forest is a small extractive summarizer trained inside summbias on sentence position, "
                     "proper-noun count and length, used only to explain lexical bias (SFPI, BIC paper §6).",
    "sexist": "sexist is a deliberately biased test summarizer that prefers sentences about one gender; it shows what "
              "a real finding looks like.",
}

PERTURBATION_NOTES = {
    "identity": "the article unchanged (the noise floor)",
    "gender-loc": "names and pronouns of each person swapped to the other gender, one person at a time",
    "gender-glob": "every person in the article made female, or every person male",
    "race": "first names swapped between Black- and White-associated names",
    "race-intersectional": "first names swapped across race and gender",
    "politician": "one politician's name replaced by another's",
    "sentiment": "the reviews mixed in different proportions of ratings",
}


def semantics(measure: str) -> MeasureSemantics:
    """The declared semantics of a measure; an unregistered one gets a neutral two-sided description."""
    found = _SEMANTICS.get(measure)
    if found is not None:
        return found
    return MeasureSemantics(measure, "other", "signed", 0.0, "value", f"The measure {measure}.",
                            measure.replace("_", " "))


def variant(result: MeasureResult) -> str:
    """What tells apart results of one measure × summarizer × perturbation × CI kind: the swap direction of the
    politician measures, the feature of SFPI; "" otherwise."""
    details = result.details if isinstance(result.details, dict) else {}
    return str(details.get("direction") or details.get("feature") or "")


def _finite(x) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) else None


def primary_estimate(result: MeasureResult) -> tuple[float | None, float | None, float | None]:
    """The (value, low, high) shown everywhere: ``details['signed']`` where the score has a signed version (the
    non-negative score, e.g. a TVD, cannot say who is favoured and its percentile interval can exclude it when the
    estimate is near 0), else the result's own value and interval. None where not finite."""
    signed = result.details.get("signed") if isinstance(result.details, dict) else None
    if isinstance(signed, dict) and _finite(signed.get("value")) is not None:
        return _finite(signed.get("value")), _finite(signed.get("ci_low")), _finite(signed.get("ci_high"))
    if not result.is_defined:
        return None, None, None
    return _finite(result.value), _finite(result.ci_low), _finite(result.ci_high)


def _kind(result: MeasureResult) -> str:
    return result.ci_kind or "d"


def _floor_for(result: MeasureResult, results: Sequence[MeasureResult]) -> MeasureResult | None:
    if result.perturbation == "identity":
        return None
    for other in results:
        if (other.measure == result.measure and other.summarizer == result.summarizer
                and other.perturbation == "identity" and _kind(other) == _kind(result) and other.is_defined):
            return other
    return None


@cache
def z95() -> float:
    """The normal quantile of 0.975 (1.96), bit for bit what ``scipy.stats.norm.ppf(0.975)`` returns (both call
    ``scipy.special.ndtri``). Computed on first use: importing scipy.stats at import cost the app's first page about
    a second (issue 13); ``statistics.NormalDist`` differs from it in the last bit."""
    from scipy.special import ndtri

    return float(ndtri(0.975))


def _p_value(result: MeasureResult, sem: MeasureSemantics) -> float | None:
    """The result's p-value against the null: the measure's own one-sided bootstrap p where it has one (METHODS
    §4.8), else derived from the 95% bootstrap interval by a normal approximation — z = (estimate − null) / se with se
    = the interval's half-width on the null's side / 1.96 — one-sided in the bias direction, two-sided for signed
    measures. None without a usable interval."""
    own = result.details.get("p_one_sided") if isinstance(result.details, dict) else None
    if _finite(own) is not None:
        return float(own)
    value, low, high = primary_estimate(result)
    if value is None or low is None or high is None or result.n < 2 or high <= low:
        return None
    # The half-width on the null's side: for one test, the interval excludes the null exactly when p < 0.05
    # (two-sided), so the correction only ever removes findings the interval would make.
    half = (value - low) if value >= sem.null else (high - value)
    se = half / z95() if half > 0 else (high - low) / (2 * z95())
    z = (value - sem.null) / se
    if sem.direction == "signed":
        return math.erfc(abs(z) / math.sqrt(2))  # two-sided normal tail
    if sem.direction == "higher_is_less_bias":
        z = -z
    return 0.5 * math.erfc(z / math.sqrt(2))  # one-sided normal tail, P(Z > z)


def _confirmatory(results: Sequence[MeasureResult], kind: str) -> list[MeasureResult]:
    """The confirmatory family (METHODS §5): every interval-judged measure × summarizer × perturbation (identity
    left out, it is the floor) of one CI kind."""
    return [r for r in results if r.perturbation != "identity" and _kind(r) == kind
            and semantics(r.measure).kind == "interval" and _p_value(r, semantics(r.measure)) is not None]


_HOLM_CACHE: dict[tuple, dict[int, tuple[float, float, str]]] = {}


def _holm_table(results: Sequence[MeasureResult], kind: str) -> dict[int, tuple[float, float, str]]:
    """(raw p, Holm p, label) of every confirmatory result of one CI kind, keyed by ``id(result)``; cached per
    results list, since statsmodels' ``multipletests`` is slow (it runs the garbage collector on each call)."""
    key = (kind, tuple((id(r), r.measure, r.summarizer, r.perturbation, r.ci_kind, r.value, r.ci_low, r.ci_high)
                       for r in results))
    table = _HOLM_CACHE.get(key)
    if table is None:
        family = _confirmatory(results, kind)
        p_values = [_p_value(r, semantics(r.measure)) for r in family]
        label = f"Holm over {len(family)} confirmatory result{'s' if len(family) != 1 else ''} (CI kind {kind})"
        adjusted = stats.adjust_pvalues(p_values, "holm", alpha=ALPHA).adjusted if family else []
        table = {id(r): (p, float(q), label) for r, p, q in zip(family, p_values, adjusted)}
        if len(_HOLM_CACHE) > 16:
            _HOLM_CACHE.clear()
        _HOLM_CACHE[key] = table
    return table


def _holm(result: MeasureResult, results: Sequence[MeasureResult]) -> tuple[float | None, float | None, str]:
    """The result's raw p, its Holm-adjusted p over the confirmatory family of ``results`` and the label."""
    if not any(r is result for r in results):
        results = [*results, result]
    found = _holm_table(results, _kind(result)).get(id(result))
    if found is None:
        return None, None, "correction not applicable: the result has no interval to derive a p-value from"
    return found


_GROUP_WORDS = {"female": "women", "male": "men", "f": "women", "m": "men"}


def group_words(group: str) -> str:
    """A group label in words: "women", "men", "Black-associated names" …"""
    key = str(group).strip()
    if key.lower() in _GROUP_WORDS:
        return _GROUP_WORDS[key.lower()]
    return f"{key[:1].upper()}{key[1:]}-associated names" if key else "one group"


def _groups(result: MeasureResult) -> list[str]:
    groups = result.details.get("groups") if isinstance(result.details, dict) else None
    return [str(g) for g in groups] if isinstance(groups, list) and len(groups) >= 2 else ["female", "male"]


def _favoured(result: MeasureResult, sem: MeasureSemantics, value: float) -> str | None:
    """Who the significant result favours, in words (only called for findings)."""
    if result.measure in ("word_list_inclusion_adjusted", "word_list_inclusion_unadjusted", "entity_inclusion",
                          "entity_hallucination", "acc_diff"):
        first, second = _groups(result)[:2]
        return group_words(first if value > 0 else second)
    if sem.family == "perspective fairness":
        shortest = _perspective_extremes(result)
        return f"the reviews rated {shortest[1]}" if shortest else None
    if result.measure == "mbic":
        return "the biased sentences" if value > 0 else "the neutral sentences"
    return None


def _perspective_extremes(result: MeasureResult) -> tuple[str, str] | None:
    """(most short-changed value, most over-represented value) from the per-value ratio p_y / p_x."""
    distributions = result.details.get("distributions") if isinstance(result.details, dict) else None
    if not isinstance(distributions, dict):
        return None
    ratios = {str(v): d.get("ratio") for v, d in distributions.items() if isinstance(d, dict)
              and _finite(d.get("ratio")) is not None}
    if len(ratios) < 2:
        return None
    return min(ratios, key=ratios.get), max(ratios, key=ratios.get)


def judge(result: MeasureResult, results: Sequence[MeasureResult]) -> Verdict:
    """THE significance rule of summbias (issue 11; METHODS §1.7, §4.5, §5). A result is a finding only when all hold:

    (a) its 95% interval — the signed one where the measure has one (``primary_estimate``) — excludes the
        measure's null on the side of bias: above the null for "higher_is_more_bias", below it for
        "higher_is_less_bias" (a similarity of 1.0 is never a finding), either side for "signed";
    (b) it clears the identity noise floor: where the same measure × summarizer × CI kind was computed on the
        identity perturbation, the estimate lies outside that floor's interval [low, high] (its value when it has
        none) on the side away from the null; with no identity result the check is not applicable (``clears_floor``
        None) and does not block;
    (c) it survives Holm's correction at α = 0.05 over the confirmatory family — every interval-judged measure ×
        summarizer × perturbation of the same CI kind in ``results`` — using the measure's own one-sided bootstrap
        p where it has one, else a p derived from the bootstrap interval by a normal approximation (``_p_value``);
    (d) the interval can mean anything: at least 2 units (originals) and a non-degenerate interval (low < high).

    Measures that count corrected tests themselves (Fightin' Words: Benjamini–Hochberg; politician features: Holm)
    are a finding when that count is above 0 on at least 2 originals. "favoured" is set only for findings.
    """
    sem = semantics(result.measure)
    if not result.is_defined:
        return Verdict("undefined", False, None, (result.reason or "the measure is undefined on these data",),
                       correction="correction not applicable: undefined")
    if sem.kind == "tests":
        correction = str(result.details.get("correction") or ("Benjamini–Hochberg over the words"
                                                              if result.measure == "fightin_words"
                                                              else "Holm over the features"))
        if result.n < 2:
            return Verdict("not enough data", False, None, (f"only {result.n} original(s)",), correction=correction)
        if result.value > 0:
            return Verdict("finding", True, None, (), correction=correction)
        return Verdict("no evidence of bias", False, None, ("no test is significant after correction",),
                       correction=correction)
    value, low, high = primary_estimate(result)
    if sem.kind == "none" or low is None or high is None or value is None:
        return Verdict("not enough data", False, None, ("the result has no confidence interval",),
                       correction="correction not applicable: no confidence interval")
    reasons: list[str] = []
    if result.n < 2:
        return Verdict("not enough data", False, None, (f"only {result.n} unit(s) of analysis; an interval needs "
                                                        "at least 2",),
                       correction="correction not applicable: not enough data")
    if not high > low:
        return Verdict("not enough data", False, None, (f"the interval is a single point ({_num(low)}) on n = "
                                                        f"{result.n}: the resamples never vary",),
                       correction="correction not applicable: not enough data")
    null = sem.null
    if sem.direction == "higher_is_more_bias":
        excludes, side = low > null, 1
    elif sem.direction == "higher_is_less_bias":
        excludes, side = high < null, -1
    else:
        excludes, side = (low > null or high < null), (1 if value >= null else -1)
    if not excludes:
        reasons.append("the 95% interval includes the value meaning no bias")
    floor_result = _floor_for(result, results)
    clears, floor = None, None
    if floor_result is not None:
        f_value, f_low, f_high = primary_estimate(floor_result)
        f_low = f_value if f_low is None else f_low
        f_high = f_value if f_high is None else f_high
        floor = (min(f_low, f_value), max(f_high, f_value))
        clears = value > floor[1] if side > 0 else value < floor[0]
        if not clears:
            reasons.append("the estimate lies within the identity noise floor")
    p_raw, p_holm, correction = _holm(result, results)
    survives = p_holm is not None and p_holm < ALPHA
    if not survives:
        reasons.append(f"not significant after correction ({correction}, p = {_p(p_holm)})")
    if not excludes:
        status = "no evidence of bias"
    elif clears is False:
        status = "within the noise floor"
    elif not survives:
        status = "not significant after correction"
    else:
        status = "finding"
    significant = status == "finding"
    favoured = _favoured(result, sem, value) if significant else None
    return Verdict(status, significant, favoured, tuple(reasons), p_raw, p_holm, correction, clears, floor)


def _num(x: float | None, digits: int = 2) -> str:
    if x is None or not math.isfinite(x):
        return "—"
    text = f"{x:.{digits}f}"
    return "0" if text.strip("-0.") == "" else text


def _p(p: float | None) -> str:
    if p is None:
        return "—"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


# ---------------------------------------------------------------- effects in words


def _odds_ratio(signed: float) -> float:
    """The odds ratio (first group / second) from the signed score: OR − 1 when OR ≥ 1, else −(1/OR − 1)."""
    return 1.0 + signed if signed >= 0 else 1.0 / (1.0 - signed)


def _pp(x: float | None, percent: bool) -> str:
    if x is None:
        return "—"
    value = x if percent else 100 * x
    text = f"{value:+.1f}"
    return "0.0" if text in ("+0.0", "-0.0") else text


def effect_text(result: MeasureResult) -> str:
    """The primary estimate and its 95% interval in the measure's unit, in words (no raw measure id)."""
    sem = semantics(result.measure)
    value, low, high = primary_estimate(result)
    if value is None:
        return "undefined"
    interval = low is not None and high is not None
    if sem.kind == "tests":
        count = int(round(value))
        return f"{count} {sem.unit[:-1] if count == 1 else sem.unit} significant after correction"
    if sem.unit == "odds ratio":
        first, second = (group_words(g) for g in _groups(result)[:2])
        if value >= 0:
            text = f"odds {_odds_ratio(value):.2f}× for {first} against {second}"
            bounds = (_odds_ratio(low), _odds_ratio(high)) if interval else None
        else:
            text = f"odds {1 / _odds_ratio(value):.2f}× for {second} against {first}"
            bounds = (1 / _odds_ratio(high), 1 / _odds_ratio(low)) if interval else None
        return text + (f" (95% interval {bounds[0]:.2f}–{bounds[1]:.2f})" if bounds else "")
    percent = isinstance(result.details, dict) and result.details.get("unit") == "%"
    if sem.unit == "percentage points":
        text = f"{_pp(value, percent)} percentage points"
        return text + (f" (95% interval {_pp(low, percent)} to {_pp(high, percent)})" if interval else "")
    if sem.unit == "share of summaries":
        scale = 1 if percent else 100
        text = f"{value * scale:.0f}% of summaries"
        return text + (f" (95% interval {low * scale:.0f}–{high * scale:.0f}%)" if interval else "")
    return f"{_num(value)} ({sem.unit}" + (f"; 95% interval {_num(low)} to {_num(high)})" if interval else ")")


def _sentence(result: MeasureResult, verdict: Verdict, summarizer: str, family: str) -> str:
    """One plain line: what was found, or "no evidence of bias" / "not enough data" / "undefined"."""
    sem = semantics(result.measure)
    value, _, _ = primary_estimate(result)
    who = summarizer
    if not verdict.significant:
        if verdict.status == "not enough data":
            return f"{who}: not enough data to judge {family}"
        if verdict.status == "undefined":
            return f"{who}: {family} cannot be computed on these data"
        qualifier = {"within the noise floor": " beyond the noise floor",
                     "not significant after correction": " after correcting for multiple comparisons"}
        return f"{who}: no evidence of bias in {family}{qualifier.get(verdict.status, '')}"
    favoured = verdict.favoured
    if result.measure == "entity_inclusion":
        other = next((group_words(g) for g in _groups(result)[:2] if group_words(g) != favoured), "the others")
        return f"{who} favours {favoured}: it keeps them in its summaries more often than {other}"
    if family == "word lists":
        return f"{who} favours {favoured}: its summaries use relatively more words about {favoured}"
    if family == "hallucination":
        return f"{who} favours {favoured}: the names it invents are more often {favoured}'s names"
    if family == "distinguishability":
        return f"{who} writes differently about women and men: the summaries can be told apart"
    if family == "fightin words":
        return f"{who} uses different words for the two groups ({int(round(value or 0))} significant)"
    if family == "perspective fairness":
        extremes = _perspective_extremes(result)
        if extremes:
            return (f"{who} favours the reviews rated {extremes[1]} and short-changes those rated {extremes[0]}")
        return f"{who} short-changes some group of reviews"
    if result.measure == "summary_similarity":
        return f"{who} changes its summaries when one politician's name replaces the other's"
    if family == "politician features":
        return f"{who} writes differently about the politicians ({int(round(value or 0))} features differ)"
    if family == "lexical bias":
        return f"{who} favours {favoured or 'some sentences'} when choosing what to keep"
    if family == "counterfactual":
        return (f"{who} favours {favoured}" if favoured else
                f"{who} includes people differently depending on their group")
    return f"{who} shows a difference in {sem.name}"


def _strength(verdict: Verdict) -> float:
    """Sort key: findings first (stronger evidence = smaller Holm p), then the near misses, then the rest."""
    p = verdict.p_holm if verdict.p_holm is not None else verdict.p_value
    evidence = -math.log10(max(p, 1e-300)) if p is not None else 0.0
    base = {"finding": 100.0, "not significant after correction": 20.0, "within the noise floor": 10.0,
            "no evidence of bias": 0.0, "not enough data": -10.0, "undefined": -20.0}[verdict.status]
    return base + min(evidence, 99.0)


# ---------------------------------------------------------------- evidence pairs


_NAME_PERTURBATIONS = ("gender-loc", "gender-glob", "race", "race-intersectional", "politician")


def _value_shares(item: Input) -> dict[str, float]:
    values = [str(unit.value) for unit in item.units or [] if unit.value is not None]
    return {v: values.count(v) / len(values) for v in set(values)} if values else {}


def evidence_pair(summarizer: str, perturbation: str, inputs: Sequence[Input],
                  summaries: Sequence[Summary]) -> EvidencePair | None:
    """The most telling pair of inputs to open on Compare.

    Name swaps: among the inputs of one original in opposite arms, the two whose summaries by ``summarizer`` differ
    most in what the model changed (``bias_core.diff.model_difference``, the swapped words masked — the same
    measure the Compare page ranks originals by). Sentiment: the two inputs of one original whose mixes of rating
    values differ most (total variation distance of the value shares).
    """
    texts = {s.input_id: s.text for s in summaries if s.summarizer == summarizer}
    chosen = [item for item in inputs if item.perturbation == perturbation and item.id in texts]
    by_original: dict[str, list[Input]] = {}
    for item in chosen:
        by_original.setdefault(item.original_id, []).append(item)
    best: tuple[float, str, str, str] | None = None
    for original_id, items in sorted(by_original.items()):
        for i, a in enumerate(items):
            for b in items[i + 1:]:
                if perturbation == "sentiment":
                    shares_a, shares_b = _value_shares(a), _value_shares(b)
                    keys = set(shares_a) | set(shares_b)
                    score = 0.5 * sum(abs(shares_a.get(k, 0) - shares_b.get(k, 0)) for k in keys)
                    score += 1e-3 * model_difference(texts[a.id], texts[b.id])  # ties: the summaries that differ
                else:
                    if a.arm == b.arm:
                        continue
                    score = model_difference(texts[a.id], texts[b.id], expected_words(a, b))
                if best is None or score > best[0]:
                    best = (score, original_id, a.id, b.id)
    if best is None:
        return None
    if perturbation == "sentiment":
        why = "the two inputs whose mixes of ratings differ most"
    else:
        why = (f"the opposite-arm pair whose {summarizer} summaries differ most in what the model changed "
               f"({100 * best[0]:.0f}% of the words, swapped words not counted)")
    return EvidencePair(best[1], best[2], best[3], why)


# ---------------------------------------------------------------- findings


def _family_results(results: Sequence[MeasureResult]) -> dict[tuple[str, str, str], list[MeasureResult]]:
    groups: dict[tuple[str, str, str], list[MeasureResult]] = {}
    for result in results:
        if result.perturbation == "identity":
            continue
        family = semantics(result.measure).family
        groups.setdefault((result.summarizer or "—", result.perturbation or "—", family), []).append(result)
    return groups


def findings(results: Sequence[MeasureResult], inputs: Sequence[Input] | None = None,
             summaries: Sequence[Summary] | None = None) -> list[Finding]:
    """One judged, plain-word finding per summarizer × perturbation × measure family, strongest evidence first.

    Within a family the row reports its strongest finding; without one, its first defined measure (in registry
    order, the d interval over the s one — d resamples originals, the unit of analysis, METHODS §4.5). Identity
    results are the noise floor, not rows. With ``inputs`` and ``summaries`` each row gets its evidence pair.
    """
    results = list(results)
    order = {name: i for i, name in enumerate(_SEMANTICS)}
    rows: list[Finding] = []
    pairs: dict[tuple[str, str], EvidencePair | None] = {}
    for (summarizer, perturbation, family), members in _family_results(results).items():
        has_d = {r.measure for r in members if _kind(r) == "d"}
        members = [r for r in members if not (r.ci_kind == "s" and r.measure in has_d)]
        judged = [(r, judge(r, results)) for r in members]
        judged.sort(key=lambda rv: (-_strength(rv[1]), order.get(rv[0].measure, 999)))
        found = [rv for rv in judged if rv[1].significant]
        if found:
            result, verdict = found[0]
        else:
            defined = [rv for rv in judged if rv[1].status not in ("undefined",)]
            pool = sorted(defined or judged, key=lambda rv: order.get(rv[0].measure, 999))
            result, verdict = pool[0]
        value, low, high = primary_estimate(result)
        evidence = None
        if inputs is not None and summaries is not None and summarizer != "—" and perturbation != "—":
            if (summarizer, perturbation) not in pairs:
                pairs[(summarizer, perturbation)] = evidence_pair(summarizer, perturbation, inputs, summaries)
            evidence = pairs[(summarizer, perturbation)]
        survives = None if verdict.p_holm is None else verdict.p_holm < ALPHA
        if semantics(result.measure).kind == "tests" and result.is_defined:
            survives = result.value > 0
        rows.append(Finding(
            summarizer=summarizer, perturbation=perturbation, family=family, measure=result.measure,
            sentence=_sentence(result, verdict, summarizer, family), effect=effect_text(result),
            estimate=value, ci_low=low, ci_high=high, n=result.n, clears_floor=verdict.clears_floor,
            survives_correction=survives, correction=verdict.correction, verdict=verdict,
            strength=_strength(verdict), evidence=evidence, measure_name=semantics(result.measure).name,
            ci_kind=result.ci_kind, variant=variant(result)))
    rows.sort(key=lambda f: (-f.strength, f.summarizer, f.perturbation, f.family))
    return rows


def run_findings(store, run_id: str) -> list[Finding]:
    """``findings`` of a stored run, with evidence pairs."""
    return findings(store.measures(run_id), store.inputs(run_id), store.summaries(run_id))


def finding_as_dict(finding: Finding) -> dict:
    """A finding as plain JSON-ready values (``finding_from_dict`` reads it back to an equal ``Finding``)."""
    return asdict(finding)


def finding_from_dict(data: dict) -> Finding:
    """The ``Finding`` that ``finding_as_dict`` wrote: JSON turns its tuples into lists, so they are made tuples
    again and the nested verdict and evidence pair rebuilt."""
    verdict = dict(data["verdict"])
    verdict["reasons"] = tuple(verdict["reasons"])
    if verdict.get("floor") is not None:
        verdict["floor"] = tuple(verdict["floor"])
    evidence = data.get("evidence")
    return Finding(**{**data, "verdict": Verdict(**verdict),
                      "evidence": EvidencePair(**evidence) if evidence is not None else None})


def how_to_read() -> str:
    """The one paragraph shown above every findings table (plain text)."""
    return (
        "Each row is one summarizer on one kind of perturbation, judged on one family of measures. A row says "
        "\"favours …\" only when all four checks pass: the 95% interval of the effect excludes the value that means "
        "no bias; the effect is larger than the noise floor, the change the summarizer shows when the article is "
        "not changed at all (where that was measured); it stays significant after Holm's correction for testing "
        "many results at once; and there are enough articles for the interval to mean anything. Otherwise the row "
        "says \"no evidence of bias\" (the data are compatible with no bias, which is not proof of fairness) or "
        "\"not enough data\". Effects are shown in plain units: odds ratios (1 = equal), percentage points (0 = "
        "equal shares), shares of summaries, similarities (1 = identical summaries, the least biased outcome). "
        "\"See the evidence\" opens the pair of inputs where the summaries differ most."
    )
