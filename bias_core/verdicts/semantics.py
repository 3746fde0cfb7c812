"""What a measure's number means (issue 11): its family, which way is bias, its null and unit, the plain sentence
per measure and the notes on summarizers and perturbations, with the primary estimate every page shows (the signed
version where a score cannot be negative, METHODS §4.1–4.3) and the groups in words.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from bias_core.common.records import MeasureResult

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


def _s(measure, family, direction, null, unit, describe, name, kind="interval") -> MeasureSemantics:
    return MeasureSemantics(measure, family, direction, null, unit, describe, name, kind)


SEMANTICS: dict[str, MeasureSemantics] = {s.measure: s for s in (
    _s("word_list_inclusion_adjusted", "word lists", "signed", 0.0, "percentage points",
       "How many more of an article's gendered words (she, her, woman …) the summaries keep when its people are "
       "women than when the same people are men, in percentage points of the article's gendered words; 0 means as "
       "many either way (Steen & Markert §3.1, tested as the contrast of the two versions, METHODS §4.1).",
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


# What each name means, as the report's glossary states it: one sentence each, starting with what it does (the
# name stands before it), so the entries read alike (issue 29).
SUMMARIZER_NOTES = {
    "lead-3": "Copies the first three sentences of the article; it cannot react to names, so it is a baseline.",
    "textrank": "Picks the most central sentences of the article (an extractive graph ranking).",
    "smollm2": "Writes a summary with SmolLM2-135M-Instruct, a small language model that runs offline (Apache-2.0); "
               "it may stop at its token limit, which the Overview's caveat counts.",
    "SFPI model (trained here)": "A small random-forest extractive summarizer trained inside summbias on sentence "
                                 "position, proper-noun count and length, used only to explain lexical bias (SFPI, "
                                 "BIC paper §6); it is not one of the run's summarizers.",
    "sexist": "A deliberately biased test summarizer (a positive control): in sport articles it keeps the sentences "
              "with the most male words, in family articles those with the most female words; an audit must catch "
              "it, or it is too small to trust a 'no evidence'.",
    "random-3": "Keeps three sentences drawn at random (seeded by the text); it cannot react to names, so it is a null "
                "control that must come out silent.",
    "topic": "Keeps 1, 3 or 6 random sentences for family, other and sport articles (Steen & Markert's control for a "
             "topic–gender confound): the corpus-level word lists can look biased, the tests must stay silent.",
}
UNKNOWN_SUMMARIZER_NOTE = "A summarizer configured in this run (its model and settings are in the appendix)."


PERTURBATION_NOTES = {
    "identity": "The article unchanged (the noise floor).",
    "gender-loc": "Names and pronouns of each person swapped to the other gender, one person at a time.",
    "gender-glob": "Every person in the article made female, or every person male.",
    "race": "First names swapped between Black- and White-associated names.",
    "race-intersectional": "First names swapped across race and gender.",
    "politician": "One politician's name replaced by another's.",
    "sentiment": "The reviews mixed in different proportions of ratings.",
}
UNKNOWN_PERTURBATION_NOTE = "A perturbation of this run."


# Each family in words (issue 29): the topic names it where a label is needed ("how often women and men are
# included"); the claim completes "no evidence that …" and "too little data to judge whether …". {both} is the two
# groups of the result ("women and men"), {either} the same with "or".
FAMILY_WORDS: dict[str, tuple[str, str]] = {
    "inclusion": ("how often {both} are included", "it keeps {both} in its summaries at different rates"),
    "hallucination": ("the gender of the names it invents", "the names it invents favour {either}"),
    "distinguishability": ("whether summaries about {both} can be told apart",
                           "its summaries about {both} can be told apart"),
    "word lists": ("how many words about {both} the summaries use",
                   "its summaries shift the balance of words about {both} away from the articles'"),
    "perspective fairness": ("how fairly each rating of the reviews is represented",
                             "it short-changes the reviews of some rating"),
    "politician features": ("how one politician is written about against another",
                            "it writes differently about the two politicians"),
    "lexical bias": ("whether loaded sentences are kept more or less often than neutral ones",
                     "loaded sentences are kept more or less often than neutral ones"),
    "counterfactual": ("whether a person's group changes whether they are included",
                       "a person's group changes whether it keeps them, beyond what any change of name does"),
    "fightin words": ("words used more for one group", "it uses some words more for one group than the other"),
}


def _groups_phrase(groups: list[str], joiner: str) -> str:
    """Two groups in words: "women and men", "people whose names are Black- or White-associated". Name groups end
    on "-associated", not on "names": an effect then says "odds 1.00× for Black- against White-associated names"
    after it without the line saying "White-associated names" twice (issue 29, Why 3)."""
    first, second = (group_words(g) for g in groups[:2])
    suffix = "-associated names"
    if first.endswith(suffix) and second.endswith(suffix):
        return f"people whose names are {first[:-len(suffix)]}- {joiner} {second[:-len(' names')]}"
    return f"{first} {joiner} {second}"


def family_words(family: str, result: MeasureResult | None = None) -> tuple[str, str]:
    """(topic, claim) of a family in words, with the result's groups (women and men by default)."""
    groups = result_groups(result) if result is not None else ["female", "male"]
    topic, claim = FAMILY_WORDS.get(family, (f"{family}", f"its summaries show bias in {family}"))
    both, either = _groups_phrase(groups, "and"), _groups_phrase(groups, "or")
    return topic.format(both=both, either=either), claim.format(both=both, either=either)


_CODE = re.compile(r" \((?:[A-Z]{2,}|Δ\w*)\)")


def plain_name(measure: str) -> str:
    """The measure's name without its code ("lexical bias", not "lexical bias (MBIC)"): codes stay on Metrics and
    in tooltips."""
    return _CODE.sub("", semantics(measure).name)


def semantics(measure: str) -> MeasureSemantics:
    """The declared semantics of a measure; an unregistered one gets a neutral two-sided description."""
    found = SEMANTICS.get(measure)
    if found is not None:
        return found
    return MeasureSemantics(measure, "other", "signed", 0.0, "value", f"The measure {measure}.",
                            measure.replace("_", " "))


def variant(result: MeasureResult) -> str:
    """What tells apart results of one measure × summarizer × perturbation × CI kind: the swap direction of the
    politician measures, the feature of SFPI; "" otherwise."""
    details = result.details if isinstance(result.details, dict) else {}
    return str(details.get("direction") or details.get("feature") or "")


def finite_or_none(x) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) else None


def primary_estimate(result: MeasureResult) -> tuple[float | None, float | None, float | None]:
    """The (value, low, high) shown everywhere: the estimate and interval of the result's own test where it has one
    (``details['test']``: the excess over a permutation null, the per-original word-list difference — the number the
    verdict rests on), else ``details['signed']`` where the score has a signed version (the non-negative score, e.g.
    a TVD, cannot say who is favoured and its percentile interval can exclude it when the estimate is near 0), else
    the result's own value and interval. None where not finite."""
    test = result.details.get("test") if isinstance(result.details, dict) else None
    if (isinstance(test, dict) and result.is_defined and finite_or_none(test.get("estimate")) is not None
            and finite_or_none(test.get("ci_low")) is not None and finite_or_none(test.get("ci_high")) is not None):
        return finite_or_none(test["estimate"]), finite_or_none(test["ci_low"]), finite_or_none(test["ci_high"])
    signed = result.details.get("signed") if isinstance(result.details, dict) else None
    if isinstance(signed, dict) and finite_or_none(signed.get("value")) is not None:
        return (finite_or_none(signed.get("value")), finite_or_none(signed.get("ci_low")),
                finite_or_none(signed.get("ci_high")))
    if not result.is_defined:
        return None, None, None
    return finite_or_none(result.value), finite_or_none(result.ci_low), finite_or_none(result.ci_high)


def interval_kind(result: MeasureResult) -> str:
    return result.ci_kind or "d"


_GROUP_WORDS = {"female": "women", "male": "men", "f": "women", "m": "men"}


def group_words(group: str) -> str:
    """A group label in words: "women", "men", "Black-associated names" …"""
    key = str(group).strip()
    if key.lower() in _GROUP_WORDS:
        return _GROUP_WORDS[key.lower()]
    return f"{key[:1].upper()}{key[1:]}-associated names" if key else "one group"


def result_groups(result: MeasureResult) -> list[str]:
    groups = result.details.get("groups") if isinstance(result.details, dict) else None
    return [str(g) for g in groups] if isinstance(groups, list) and len(groups) >= 2 else ["female", "male"]


def perspective_extremes(result: MeasureResult) -> tuple[list[str], list[str]]:
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
