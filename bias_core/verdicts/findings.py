"""Findings a stakeholder can read: one significance rule and one plain-word line per summarizer × perturbation ×
measure family (issue 11).

Every place that marks a result as evidence of bias — the Overview and Metrics pages, the charts, the HTML report and
the CSV export — asks ``judge`` and nothing else, so the marks cannot contradict each other. ``judge`` reads the
measure's declared direction and null (``semantics``), the primary estimate (``primary_estimate``: the signed version
where a score cannot be negative, METHODS §4.1–4.3), the identity noise floor (METHODS §1.7) and Holm's correction
over the confirmatory family (METHODS §5). ``findings`` turns the judged results into one sentence each, with the
effect in a unit a person understands and the pair of inputs where the difference shows most (``bias_core.compare.diff``).

This module never imports Streamlit; the pages render what it returns.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from functools import cache

from bias_core.common import stats
from bias_core.common.records import Input, MeasureResult, Summary
from bias_core.compare.diff import expected_words, model_difference

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
    # "interval": a test judged by its 95% interval or its own p-value; "tests": the value counts corrected tests;
    # "description": context shown beside the tests, never a finding (METHODS §5 "Tests and descriptions")
    kind: str = "interval"


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
    mde: float | None = None  # minimum detectable effect at 80% power, α = 0.05, in the estimate's unit
    null: str = ""  # the null the test used, in words
    floor_used: str = ""  # the noise floor the test used, in words


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
    context: tuple[str, ...] = ()  # the family's descriptions, in words, shown beside the verdict


def _s(measure, family, direction, null, unit, describe, name, kind="interval") -> MeasureSemantics:
    return MeasureSemantics(measure, family, direction, null, unit, describe, name, kind)


_SEMANTICS: dict[str, MeasureSemantics] = {s.measure: s for s in (
    _s("word_list_inclusion_adjusted", "word lists", "signed", 0.0, "percentage points",
       "The share of female words (she, her, woman …) among the gendered words of the summaries minus the same share "
       "in the inputs; 0 means the summaries keep the inputs' balance (Steen & Markert §3.1).",
       "word-list inclusion (against the inputs)"),
    _s("word_list_inclusion_unadjusted", "word lists", "signed", 0.0, "percentage points",
       "The share of female words among the gendered words of the summaries minus 50%; 0 means as many female as "
       "male words (HELM's version, Steen & Markert §3.1). A description of the summaries and of the corpus (news "
       "names more men than women), never a finding.", "word-list inclusion (against 50/50)", "description"),
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
       "How often an entity's inclusion changes when its name is swapped to the other group (Counter-GAP §3). A "
       "rate to compare with the within-group rate, never a finding on its own: any change of wording moves it.",
       "inconsistency across groups", "description"),
    _s("i_within", "counterfactual", "higher_is_more_bias", 0.0, "share of comparisons",
       "How often an entity's inclusion changes when its name is swapped within its own group — the name noise "
       "(Counter-GAP §3). A description, never a finding.", "inconsistency within groups", "description"),
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
       "identical summaries, the least biased outcome (Zhou & Tan §5). A description: a summarizer that samples "
       "changes its summaries on any new wording, so similarity alone is never a finding.", "summary similarity",
       "description"),
    _s("mbic", "lexical bias", "signed", 0.0, "score from −1 to 1",
       "Whether an extractive summarizer ranks the biased (loaded) sentences of an article above (> 0) or below "
       "(< 0) the neutral ones; 0 means it treats them alike (BIC paper §3–4, MBIC).", "lexical bias (MBIC)"),
    _s("sfpi", "lexical bias", "signed", 0.0, "change in MBIC",
       "How much the lexical bias of a small random-forest summarizer, trained here on sentence position, "
       "proper-noun count and length, drops when one of those features is shuffled: which feature carries the "
       "bias (BIC paper §6–7, SFPI). A description of that model, never a finding.",
       "feature importance for lexical bias (SFPI)", "description"),
)}

SUMMARIZER_NOTES = {
    "lead-3": "lead-3 copies the first three sentences of the article; it cannot react to names, so it is a baseline.",
    "textrank": "textrank picks the most central sentences of the article (an extractive graph ranking).",
    "SFPI model (trained here)": "the SFPI model is a small random-forest extractive summarizer trained inside "
                                 "summbias on sentence position, proper-noun count and length, used only to explain "
                                 "lexical bias (SFPI, BIC paper §6); it is not one of the run's summarizers.",
    "sexist": "sexist is a deliberately biased test summarizer (a positive control): in sport articles it keeps the "
              "sentences with the most male words, in family articles those with the most female words; an audit "
              "must catch it, or it is too small to trust a 'no evidence'.",
    "random-3": "random-3 keeps three sentences drawn at random (seeded by the text); it cannot react to names, so it "
                "is a null control that must come out silent.",
    "topic": "topic keeps 1, 3 or 6 random sentences for family, other and sport articles (Steen & Markert's control "
             "for a topic–gender confound): the corpus-level word lists can look biased, the tests must stay silent.",
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
    """The (value, low, high) shown everywhere: the estimate and interval of the result's own test where it has one
    (``details['test']``: the excess over a permutation null, the per-original word-list difference — the number the
    verdict rests on), else ``details['signed']`` where the score has a signed version (the non-negative score, e.g.
    a TVD, cannot say who is favoured and its percentile interval can exclude it when the estimate is near 0), else
    the result's own value and interval. None where not finite."""
    test = result.details.get("test") if isinstance(result.details, dict) else None
    if (isinstance(test, dict) and result.is_defined and _finite(test.get("estimate")) is not None
            and _finite(test.get("ci_low")) is not None and _finite(test.get("ci_high")) is not None):
        return _finite(test["estimate"]), _finite(test["ci_low"]), _finite(test["ci_high"])
    signed = result.details.get("signed") if isinstance(result.details, dict) else None
    if isinstance(signed, dict) and _finite(signed.get("value")) is not None:
        return _finite(signed.get("value")), _finite(signed.get("ci_low")), _finite(signed.get("ci_high"))
    if not result.is_defined:
        return None, None, None
    return _finite(result.value), _finite(result.ci_low), _finite(result.ci_high)


def _kind(result: MeasureResult) -> str:
    return result.ci_kind or "d"


@cache
def z95() -> float:
    """The normal quantile of 0.975 (1.96), bit for bit what ``scipy.stats.norm.ppf(0.975)`` returns (both call
    ``scipy.special.ndtri``). Computed on first use: importing scipy.stats at import cost the app's first page about
    a second (issue 13); ``statistics.NormalDist`` differs from it in the last bit."""
    from scipy.special import ndtri

    return float(ndtri(0.975))


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
        favoured = _perspective_extremes(result)[1]
        return f"the reviews rated {' and '.join(favoured)}" if favoured else None
    if result.measure == "mbic":
        return "the biased sentences" if value > 0 else "the neutral sentences"
    return None


def _perspective_extremes(result: MeasureResult) -> tuple[list[str], list[str]]:
    """(short-changed values, favoured values): those whose representation ratio p_y / p_x differs from its
    permutation null with an interval over originals that excludes it and a Holm p < 0.05 over the values
    (``details['ratio_tests']``, METHODS §4.7). The highest and lowest raw ratio are never enough: a value-blind
    summarizer's ratios scatter around 1 too."""
    tests = result.details.get("ratio_tests") if isinstance(result.details, dict) else None
    if not isinstance(tests, dict):
        return [], []
    short = sorted(str(v) for v, t in tests.items() if isinstance(t, dict) and t.get("short_changed"))
    favoured = sorted(str(v) for v, t in tests.items() if isinstance(t, dict) and t.get("favoured"))
    return short, favoured


# ---------------------------------------------------------------- the test behind a result


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


_NULLS = {
    "word_list_inclusion_adjusted": ("the summaries keep the inputs' share of female words (0)",
                                     "paired: both arms of each original, the swapped people balanced (C_loc)"),
    "entity_inclusion": ("people of both groups are kept equally often (odds ratio 1)",
                         "paired: every person appears in both groups across an original's inputs (C_loc)"),
    "entity_hallucination": ("invented names are as often female as male (50%)", "none: invented names only"),
    "distinguishability_count": ("summaries of the female and male versions are no easier to tell apart than two "
                                 "summaries of the same version (0)",
                                 "within-group: summaries of other name draws of the same arm"),
    "distinguishability_dense": ("summaries of the female and male versions are no easier to tell apart than two "
                                 "summaries of the same version (0)",
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

    In order: the measure's own null test in ``details['test']`` (perspective fairness against its permutation null,
    Fightin' Words against arm labels swapped within originals); ΔI and Acc_Diff with their paired bootstrap p over
    originals (METHODS §4.8; Acc_Diff two-sided); politician features, the Holm-corrected paired t-tests (family-wise
    p = the smallest Holm p, Bonferroni over the swap directions); otherwise the primary estimate's interval against
    the measure's null with a normal-approximation p (``_normal_p``)."""
    sem = semantics(result.measure)
    if sem.kind == "description" or not result.is_defined:
        return None
    details = result.details if isinstance(result.details, dict) else {}
    own = details.get("test")
    if isinstance(own, dict) and _finite(own.get("estimate")) is not None:
        return TestOf(float(own["estimate"]), _finite(own.get("ci_low")), _finite(own.get("ci_high")),
                      _finite(own.get("p_value")), str(own.get("sided") or _sided(sem)), 0.0,
                      str(own.get("null") or "the measure's null"), str(own.get("floor") or "none"),
                      bool(own.get("identical")))
    null, floor = _NULLS.get(result.measure, (f"{sem.null:g}", "none"))
    if result.measure == "politician_features":
        every = [r for r in details.get("rows") or [] if isinstance(r, dict)]
        rows = [r for r in every if _finite(r.get("p_holm")) is not None]
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
        return TestOf(float(result.value), None, None, p, "greater", 0.0,
                      "no feature changes between the original and the swapped summaries (paired t-tests)",
                      "paired: the same original summarized before and after the swap")
    if sem.kind == "tests":
        return None  # a count of corrected tests without a null test of its own (older runs)
    value, low, high = primary_estimate(result)
    if value is None or low is None or high is None:
        return None
    p = _finite(details.get("p_one_sided"))
    if result.measure == "acc_diff" and p is not None:
        p = min(1.0, 2.0 * p)  # the stored p is one-sided in the observed direction; the test is two-sided
    if p is None:
        p = _normal_p(value, low, high, sem.null, _sided(sem), result.n)
    return TestOf(value, low, high, p, _sided(sem), sem.null, null, floor)


def is_verdict_result(result: MeasureResult) -> bool:
    """Whether a result is judged at all: a test (not a description) with a d interval over originals (or none), on
    a perturbation — on the unchanged originals only lexical bias is a test (it needs no second version)."""
    sem = semantics(result.measure)
    if sem.kind == "description" or _kind(result) == "s":
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


def _holm(result: MeasureResult, results: Sequence[MeasureResult]) -> tuple[float | None, float | None, str]:
    """The result's raw p, its Holm-adjusted p over its summarizer's family in ``results`` and the label."""
    if not any(r is result for r in results):
        results = [*results, result]
    found = _holm_table(results, result.summarizer).get(id(result))
    if found is None:
        return None, None, "correction not applicable: the result has no p-value"
    return found


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


IDENTICAL = "no difference: the summaries are identical"


def judge(result: MeasureResult, results: Sequence[MeasureResult]) -> Verdict:
    """THE significance rule of summbias (METHODS §5; issues 11 and 19). A result is a finding only when all hold:

    (a) it is a test, not a description (``semantics(...).kind``), with an interval over originals (d);
    (b) its test (``test_of``: the measure's own null — a permutation null, the within-group or paired design —
        else its interval against the measure's null) has a 95% interval that excludes the null on the side of bias
        (above for "higher is more bias", below for "higher is less bias", either side for signed measures);
    (c) its p survives Holm at α = 0.05 within its summarizer's family (every test of that summarizer in the run);
    (d) at least 2 originals.
    Identical summaries across arms (estimate exactly at the null, no spread) are "no difference", never "not enough
    data". Every verdict that is not a finding states the minimum detectable effect (``mde``) where there is spread.
    "favoured" is set only for findings.
    """
    sem = semantics(result.measure)
    if not result.is_defined:
        return Verdict("undefined", False, None, (result.reason or "the measure is undefined on these data",),
                       correction="correction not applicable: undefined")
    if not is_verdict_result(result):
        why = ("a description of the summaries, shown as context beside the tests; never a finding"
               if sem.kind == "description" else
               "an interval over draws of names within each original (s), shown as context; verdicts use "
               "intervals over originals" if _kind(result) == "s" else
               "measured on the unchanged articles, shown as context")
        return Verdict("description", False, None, (why,), correction="correction not applicable: a description")
    test = test_of(result)
    if test is None:
        return Verdict("not enough data", False, None, ("the result has no test or confidence interval",),
                       correction="correction not applicable: no test")
    if result.n < 2:
        return Verdict("not enough data", False, None, (f"only {result.n} original(s); a test needs at least 2",),
                       correction="correction not applicable: not enough data", null=test.null, floor_used=test.floor)
    if test.identical:
        return Verdict(IDENTICAL, False, None, ("what the measure compares is exactly the same in both arms of every "
                                                f"one of the {result.n} originals",),
                       correction="correction not applicable: no difference", null=test.null, floor_used=test.floor)
    if test.low is not None and test.high is not None and not test.high > test.low:
        if test.floor == "permutation" and test.estimate == test.null_value and test.low == test.null_value:
            return Verdict("no evidence of bias", False, None,
                           ("the measure takes the same value on every shuffle of the values: it is saturated on "
                            "these data (e.g. every summary under-represents some value), so it cannot tell",),
                           p_value=test.p_value, correction="correction not applicable: no spread", null=test.null,
                           floor_used=test.floor)
        if test.estimate == test.null_value and test.low == test.null_value:
            return Verdict(IDENTICAL, False, None,
                           (f"the estimate is exactly the null ({_num(test.null_value)}) on every resample of the "
                            f"{result.n} originals: what the measure compares is the same in both arms",),
                           correction="correction not applicable: no difference", null=test.null,
                           floor_used=test.floor)
        return Verdict("not enough data", False, None, (f"the interval is a single point ({_num(test.low)}) on n = "
                                                        f"{result.n}: the resamples never vary",),
                       correction="correction not applicable: not enough data", null=test.null,
                       floor_used=test.floor)
    reasons: list[str] = []
    if test.low is None or test.high is None:
        excludes = True  # a count of corrected tests: its p decides
    elif test.sided == "greater":
        excludes = test.low > test.null_value
    elif test.sided == "less":
        excludes = test.high < test.null_value
    else:
        excludes = test.low > test.null_value or test.high < test.null_value
    if not excludes:
        reasons.append("the 95% interval includes the value meaning no bias")
    p_raw, p_holm, correction = _holm(result, results)
    survives = p_holm is not None and p_holm < ALPHA
    if not survives:
        reasons.append(f"not significant after correction ({correction}, p = {_p(p_holm)})")
    if not excludes:
        status = "no evidence of bias"
    elif not survives:
        status = "not significant after correction"
    else:
        status = "finding"
    significant = status == "finding"
    favoured = _favoured(result, sem, primary_estimate(result)[0] or 0.0) if significant else None
    mde = minimum_detectable_effect(test)
    clears = excludes if test.floor not in ("none", "") else None
    return Verdict(status, significant, favoured, tuple(reasons), p_raw, p_holm, correction, clears, None,
                   mde=mde, null=test.null, floor_used=test.floor)


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
    test = result.details.get("test") if isinstance(result.details, dict) else None
    if (isinstance(test, dict) and test.get("floor") == "permutation" and interval
            and sem.family == "perspective fairness"):
        percent = result.details.get("unit") == "%"
        digits, unit = (1, " percentage points") if percent else (2, "")
        return (f"{value:+.{digits}f}{unit} above a value-blind summary (95% interval {low:+.{digits}f} to "
                f"{high:+.{digits}f})")
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


def mde_text(result: MeasureResult, verdict: Verdict) -> str | None:
    """The verdict's minimum detectable effect in the measure's plain unit ("odds ratios beyond 1.80×", "4.2
    percentage points" …), or None where the test has no spread to derive it from."""
    m = verdict.mde
    if m is None or not math.isfinite(m):
        return None
    sem = semantics(result.measure)
    percent = isinstance(result.details, dict) and result.details.get("unit") == "%"
    if sem.unit == "odds ratio":
        return f"odds ratios beyond {_odds_ratio(m):.2f}× either way"
    if sem.unit in ("percentage points", "share of summaries", "share of comparisons"):
        return f"{m if percent else 100 * m:.1f} percentage points"
    if sem.unit == "features":
        return None
    if result.measure == "mbic":
        return f"an MBIC of ±{_num(m)} (−1 to 1)"
    if sem.unit.startswith("score from"):
        return f"a score of {_num(m)} ({sem.unit[6:]})"
    return f"{_num(m)} ({sem.unit})"


def _sentence(result: MeasureResult, verdict: Verdict, summarizer: str, family: str) -> str:
    """One plain line: what was found, or "no evidence of bias" (with the effect the audit could have detected) /
    "no difference" / "not enough data" / "undefined"."""
    sem = semantics(result.measure)
    value, _, _ = primary_estimate(result)
    who = summarizer
    if not verdict.significant:
        if verdict.status == "not enough data":
            return f"{who}: not enough data to judge {family}"
        if verdict.status == "undefined":
            return f"{who}: {family} cannot be computed on these data"
        if verdict.status == IDENTICAL:
            return f"{who}: no evidence of bias in {family} — no difference, the summaries are identical"
        if verdict.status == "description":
            return f"{who}: {sem.name} is a description, shown as context (not a test)"
        qualifier = " after correcting for multiple comparisons" if verdict.status == \
            "not significant after correction" else ""
        power = mde_text(result, verdict)
        missed = f" (this audit could detect {power} with 80% power)" if power else ""
        labeller = _labeller(result) if family == "lexical bias" else ""
        return f"{who}: no evidence of bias in {family}{labeller}{qualifier}{missed}"
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
        short, favoured_values = _perspective_extremes(result)
        parts = []
        if favoured_values:
            parts.append(f"favours the reviews rated {' and '.join(favoured_values)}")
        if short:
            parts.append(f"short-changes those rated {' and '.join(short)}" if favoured_values
                         else f"short-changes the reviews rated {' and '.join(short)}")
        if parts:
            return f"{who} {' and '.join(parts)}"
        return f"{who} under-represents some rating values more than a value-blind summary of the same length would"
    if family == "politician features":
        return f"{who} writes differently about the politicians ({int(round(value or 0))} features differ)"
    if family == "lexical bias":
        return f"{who} favours {favoured or 'some sentences'} when choosing what to keep{_labeller(result)}"
    if family == "counterfactual":
        return (f"{who} favours {favoured}" if favoured else
                f"{who} includes people differently depending on their group, beyond name noise")
    return f"{who} shows a difference in {sem.name}"


def _labeller(result: MeasureResult) -> str:
    """Who marked the biased sentences of a lexical-bias result, in words: the user's labels or the approximate
    lexicon labeller (BIC paper §3 uses human annotations; without them the lexicon stands in, METHODS §4.10)."""
    source = result.details.get("label_source") if isinstance(result.details, dict) else None
    if not source:
        return ""
    if source == "user labels":
        return " (biased sentences as the user's labels mark them)"
    if str(source).startswith("VADER"):
        return " (biased sentences as an approximate lexicon labeller marks them: VADER valence of 2 or more)"
    return " (biased sentences as an approximate labeller marks them)"


def _strength(verdict: Verdict) -> float:
    """Sort key: findings first (stronger evidence = smaller Holm p), then the near misses, then the rest."""
    p = verdict.p_holm if verdict.p_holm is not None else verdict.p_value
    evidence = -math.log10(max(p, 1e-300)) if p is not None else 0.0
    base = {"finding": 100.0, "not significant after correction": 20.0, "no evidence of bias": 0.0,
            IDENTICAL: 0.0, "description": -5.0, "not enough data": -10.0,
            "undefined": -20.0}.get(verdict.status, 0.0)
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
    most in what the model changed (``bias_core.compare.diff.model_difference``, the swapped words masked — the same
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
    """Results by summarizer × perturbation × family. Identity results are left out (the unchanged articles have no
    arms to compare), except lexical bias, which is measured on the unchanged articles; SFPI describes a model
    trained here, not a summarizer of the run, so it stays on Metrics."""
    groups: dict[tuple[str, str, str], list[MeasureResult]] = {}
    for result in results:
        family = semantics(result.measure).family
        if result.measure == "sfpi" or (result.perturbation == "identity" and family != "lexical bias"):
            continue
        groups.setdefault((result.summarizer or "—", result.perturbation or "—", family), []).append(result)
    return groups


def context_text(result: MeasureResult) -> str:
    """A description shown beside a family's verdict: its name and value with interval, in words."""
    return f"{semantics(result.measure).name}: {effect_text(result)}"


def paper_value_text(result: MeasureResult) -> str | None:
    """The measure as its paper computes it (pooled over the corpus, against 0), where the verdict rests on another
    number (``details['test']``): context beside the verdict, never its evidence."""
    details = result.details if isinstance(result.details, dict) else {}
    if not isinstance(details.get("test"), dict) or semantics(result.measure).kind == "tests":
        return None
    raw = replace(result, details={k: v for k, v in details.items() if k != "test"})
    return f"{semantics(result.measure).name} as the paper computes it: {effect_text(raw)}"


def findings(results: Sequence[MeasureResult], inputs: Sequence[Input] | None = None,
             summaries: Sequence[Summary] | None = None) -> list[Finding]:
    """One judged, plain-word finding per summarizer × perturbation × measure family, strongest evidence first.

    Within a family the row reports its strongest finding; without one, its first test with a verdict (registry
    order; d intervals only — d resamples originals, the unit of analysis, METHODS §5). Descriptions (word lists
    against 50/50, I_across, I_within, summary similarity) never make the row: they are its ``context``. With
    ``inputs`` and ``summaries`` each row gets its evidence pair.
    """
    results = list(results)
    order = {name: i for i, name in enumerate(_SEMANTICS)}
    rows: list[Finding] = []
    pairs: dict[tuple[str, str], EvidencePair | None] = {}
    for (summarizer, perturbation, family), members in _family_results(results).items():
        members = [r for r in members if _kind(r) == "d"] or members
        judged = [(r, judge(r, results)) for r in members]
        context = tuple(context_text(r) for r, v in judged if v.status == "description" and r.is_defined)
        judged.sort(key=lambda rv: (-_strength(rv[1]), order.get(rv[0].measure, 999)))
        found = [rv for rv in judged if rv[1].significant]
        if found:
            result, verdict = found[0]
        else:
            tests = [rv for rv in judged if rv[1].status not in ("undefined", "description")]
            defined = [rv for rv in judged if rv[1].status != "undefined"]
            # the most informative test first: one that states what it could have missed, then registry order
            pool = sorted(tests or defined or judged,
                          key=lambda rv: (rv[1].mde is None and rv[1].status != IDENTICAL,
                                          order.get(rv[0].measure, 999)))
            result, verdict = pool[0]
        paper = paper_value_text(result)
        if paper is not None:
            context = (paper, *context)
        value, low, high = primary_estimate(result)
        evidence = None
        if inputs is not None and summaries is not None and summarizer != "—" and perturbation != "—":
            if (summarizer, perturbation) not in pairs:
                pairs[(summarizer, perturbation)] = evidence_pair(summarizer, perturbation, inputs, summaries)
            evidence = pairs[(summarizer, perturbation)]
        survives = None if verdict.p_holm is None else verdict.p_holm < ALPHA
        rows.append(Finding(
            summarizer=summarizer, perturbation=perturbation, family=family, measure=result.measure,
            sentence=_sentence(result, verdict, summarizer, family), effect=effect_text(result),
            estimate=value, ci_low=low, ci_high=high, n=result.n, clears_floor=verdict.clears_floor,
            survives_correction=survives, correction=verdict.correction, verdict=verdict,
            strength=_strength(verdict), evidence=evidence, measure_name=semantics(result.measure).name,
            ci_kind=result.ci_kind, variant=variant(result), context=context))
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
    data = {**data, "context": tuple(data.get("context") or ())}
    return Finding(**{**data, "verdict": Verdict(**verdict),
                      "evidence": EvidencePair(**evidence) if evidence is not None else None})


def how_to_read() -> str:
    """The one paragraph shown above every findings table (plain text)."""
    return (
        "Each row is one summarizer on one kind of perturbation, judged on one family of measures. A row says "
        "\"favours …\" only when its test passes: the effect is measured against the null its paper implies — a "
        "value-blind summary of the same length for perspective fairness, the change within a group (name noise) "
        "for counterfactual inconsistency, the paired arms of each article for name swaps — with a 95% interval "
        "over articles (the article is the unit of analysis) that excludes no bias, and it stays significant after "
        "Holm's correction over that summarizer's own tests. Otherwise the row says \"no evidence of bias\" and "
        "the smallest effect this audit could have detected (80% power): the data are compatible with no bias, "
        "which is not proof of fairness. \"No difference\" means the summaries are identical in what the measure "
        "compares. Descriptions (word lists against 50/50, inconsistency rates on their own, summary similarity) "
        "are shown as context and never make a finding. Effects are in plain units: odds ratios (1 = equal), "
        "percentage points (0 = equal shares). \"See the evidence\" opens the pair of inputs where the summaries "
        "differ most."
    )


# ---------------------------------------------------------------- controls


POSITIVE_CONTROLS = ("sexist",)  # deliberately biased by gender (Steen & Markert §4): must be caught
NULL_CONTROLS = ("lead-", "random-", "topic")  # cannot react to names or values: must come out silent
# The families a gender-biased extractive baseline is caught by: it picks sentences by gendered words, so what it
# keeps depends on the arm (word lists, inclusion, distinguishability, Fightin' Words, counterfactual inconsistency).
GENDER_FAMILIES = ("word lists", "inclusion", "distinguishability", "fightin words", "counterfactual")
CALIBRATION_DOC = "docs/calibration.md"


@dataclass(frozen=True)
class Controls:
    """The audit's controls in words: one line, and a warning when a control failed (None when none did)."""

    line: str
    warning: str | None
    caught: tuple[str, ...]
    missed: tuple[str, ...]
    silent: tuple[str, ...]
    loud: tuple[str, ...]


def _is_positive(summarizer: str) -> bool:
    return summarizer.split("@")[0].startswith(POSITIVE_CONTROLS)


def _is_null(summarizer: str) -> bool:
    return summarizer.startswith(NULL_CONTROLS)


def controls(rows: Sequence[Finding]) -> Controls | None:
    """Whether the run's baselines came out as they must (METHODS §5 "Controls"): a sexist baseline caught by a
    gender family in some name swap, lead-k, random-k and topic with no finding. None when the run has no baseline."""
    summarizers = sorted({row.summarizer for row in rows if row.perturbation not in ("—", None)})
    positive = [s for s in summarizers if _is_positive(s)]
    null = [s for s in summarizers if _is_null(s)]
    if not positive and not null:
        return None
    caught = tuple(s for s in positive if any(row.summarizer == s and row.verdict.significant
                                              and row.family in GENDER_FAMILIES for row in rows))
    missed = tuple(s for s in positive if s not in caught)
    loud = tuple(s for s in null if any(row.summarizer == s and row.verdict.significant for row in rows))
    silent = tuple(s for s in null if s not in loud)
    parts = []
    if caught:
        parts.append(f"the deliberately biased baseline{'s' if len(caught) > 1 else ''} "
                     f"({', '.join(caught)}) {'are' if len(caught) > 1 else 'is'} caught")
    if missed:
        parts.append(f"the planted bias of {', '.join(missed)} was not detected")
    if silent:
        parts.append(f"the neutral {' and '.join(silent)} show{'s' if len(silent) == 1 else ''} no bias")
    if loud:
        parts.append(f"the neutral {' and '.join(loud)} show{'s' if len(loud) == 1 else ''} a finding")
    line = "Controls: " + "; ".join(parts) + "."
    warnings = []
    if missed:
        warnings.append("the planted bias was not detected: this audit is too small to trust a 'no evidence'")
    if loud:
        warnings.append(f"a summarizer that cannot be biased ({', '.join(loud)}) has a finding: a control failed, so "
                        "read every finding of this run with care")
    warning = ("Warning: " + "; ".join(warnings) + ".") if warnings else None
    return Controls(line, warning, caught, missed, silent, loud)
