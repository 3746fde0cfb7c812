"""Results and verdicts in plain words (issues 11 and 29): the effect in one unit a person understands, the effect the
audit could have detected in one clause, the one sentence of a row, its context and the paragraph on how to read the
findings. No measure code (MBIC, ΔI …) and no nested parentheses: codes stay on Metrics and in tooltips.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

from bias_core.common.records import MeasureResult
from bias_core.common.words import counted, minus_signs
from bias_core.verdicts.judge import IDENTICAL, Verdict, format_number
from bias_core.verdicts.semantics import (
    family_words,
    group_words,
    perspective_extremes,
    plain_name,
    primary_estimate,
    result_groups,
    semantics,
    variant,
)

UNCHANGED = "identity"  # the perturbation of the unchanged articles



def _shared_suffix(first: str, second: str) -> str:
    """The ending two group names share from a hyphen on ("-associated names"), else ""."""
    if "-" not in first or "-" not in second:
        return ""
    suffix = first[first.index("-"):]
    return suffix if second.endswith(suffix) and second != suffix else ""


def _against(first: str, second: str) -> str:
    """"women against men"; groups sharing an ending name it once ("White- against Black-associated names"), so a line
    that already named both groups does not say "White-associated names" twice."""
    suffix = _shared_suffix(first, second)
    return f"{first[:-len(suffix)]}- against {second}" if suffix else f"{first} against {second}"

def odds_ratio(signed: float) -> float:
    """The odds ratio (first group / second) from the signed score: OR − 1 when OR ≥ 1, else −(1/OR − 1)."""
    return 1.0 + signed if signed >= 0 else 1.0 / (1.0 - signed)


def _pp(x: float | None, percent: bool) -> str:
    if x is None:
        return "—"
    value = x if percent else 100 * x
    text = f"{value:+.1f}"
    return "0.0" if text in ("+0.0", "-0.0") else text


# What a percentage-point effect is a difference of, per measure ("women's share of the gendered words against the
# articles'"); the groups are female and male wherever a measure counts gendered words or names.
_POINTS_OF = {
    "word_list_inclusion_adjusted": "the article's gendered words kept when its people are women against men",
    "word_list_inclusion_unadjusted": "women's share of the gendered words against half",
    "entity_hallucination": "women's share of the invented names against half",
    "delta_i": "changes across groups beyond those within a group",
}
# A score's unit as the phrase after its number ("0.07 on a scale from −1 to 1").
_SCALES = {"score from −1 to 1": "on a scale from −1 to 1", "area from 0 to 1": "on a scale from 0 to 1",
           "similarity from 0 to 1": "on a scale from 0 to 1", "spread": "in spread",
           "change in MBIC": "change in the lexical bias score", "value": ""}


def _unit_singular(unit: str) -> str:
    return unit.removesuffix("s")


def _with_interval(text: str, low: str | None, high: str | None, result: MeasureResult, dash: str = " to ") -> str:
    """``text`` with its 95% interval in one pair of parentheses; one original has no interval."""
    if result.n < 2:
        return f"{text} (one article: no interval)"
    return text + (f" (95% interval {low}{dash}{high})" if low is not None and high is not None else "")


def effect_text(result: MeasureResult, verdict: Verdict | None = None) -> str:
    """The primary estimate and its 95% interval in the measure's unit, in words: no raw measure id, no code, at
    most one pair of parentheses, negative numbers with "−". "—" where there is no estimate (an undefined result, or
    ``verdict`` says there are not enough data to state one). A count of corrected tests counts only what survives
    the row's own correction: none when the verdict is not a finding (issue 29: never "no evidence" beside "1
    significant")."""
    return minus_signs(_effect_text(result, verdict))


def _effect_text(result: MeasureResult, verdict: Verdict | None) -> str:
    sem = semantics(result.measure)
    if verdict is not None and verdict.status in ("undefined", "not enough data"):
        return "—"
    value, low, high = primary_estimate(result)
    if value is None:
        return "—"
    interval = low is not None and high is not None
    test = result.details.get("test") if isinstance(result.details, dict) else None
    percent = isinstance(result.details, dict) and result.details.get("unit") == "%"
    if (isinstance(test, dict) and test.get("floor") == "permutation" and interval
            and sem.family == "perspective fairness"):
        digits, unit = (1, " percentage points") if percent else (2, "")
        return _with_interval(f"{value:+.{digits}f}{unit} against a summary blind to ratings",
                              f"{low:+.{digits}f}", f"{high:+.{digits}f}", result)
    if sem.kind == "tests":
        noun = _unit_singular(sem.unit)
        if verdict is not None and not verdict.significant:
            # nothing to correct when nothing is significant (issue 28): "no word differs significantly"; an item
            # significant in its own test that the summarizer's correction removes is "no … after correction"
            if round(value) == 0:
                return f"no {noun} differs significantly"
            return f"no {noun} significant after correction"
        return f"{counted(round(value), noun)} significant after correction"
    if sem.unit == "odds ratio":
        first, second = (group_words(g) for g in result_groups(result)[:2])
        if value >= 0:
            text = f"odds {odds_ratio(value):.2f}× for {_against(first, second)}"
            bounds = (odds_ratio(low), odds_ratio(high)) if interval else None
        else:
            text = f"odds {1 / odds_ratio(value):.2f}× for {_against(second, first)}"
            bounds = (1 / odds_ratio(high), 1 / odds_ratio(low)) if interval else None
        return _with_interval(text, *((f"{bounds[0]:.2f}", f"{bounds[1]:.2f}") if bounds else (None, None)), result,
                              dash="–")
    if sem.unit == "percentage points":
        what = _POINTS_OF.get(result.measure)
        if result.measure == "acc_diff":
            first, second = (group_words(g) for g in result_groups(result)[:2])
            shared = _shared_suffix(first, second)
            what = (f"how often {_against(first, second)} are included" if shared
                    else f"how often {first} are included against {second}")
        text = f"{what}: " if what else ""
        return _with_interval(f"{text}{_pp(value, percent)} percentage points",
                              *((_pp(low, percent), _pp(high, percent)) if interval else (None, None)), result)
    if sem.unit in ("share of summaries", "share of comparisons"):
        scale = 1 if percent else 100
        noun = "summaries" if sem.unit == "share of summaries" else "comparisons"
        return _with_interval(f"{value * scale:.0f}% of {noun}",
                              *((f"{low * scale:.0f}", f"{high * scale:.0f}%") if interval else (None, None)), result,
                              dash="–")
    scale = _SCALES.get(sem.unit, f"in {sem.unit}")
    return _with_interval(f"{format_number(value)} {scale}".strip(),
                          *((format_number(low), format_number(high)) if interval else (None, None)), result)


def mde_text(result: MeasureResult, verdict: Verdict, scale: bool = True) -> str | None:
    """The verdict's minimum detectable effect in the measure's plain unit ("odds ratios beyond 1.80× either way",
    "a difference of 4.2 percentage points or more" …), or None where the test has no spread to derive it from.
    ``scale=False`` leaves out the scale of a score, where the effect beside it names it already."""
    m = verdict.mde
    if m is None or not math.isfinite(m):
        return None
    sem = semantics(result.measure)
    percent = isinstance(result.details, dict) and result.details.get("unit") == "%"
    if sem.unit == "odds ratio":
        return f"odds ratios beyond {odds_ratio(m):.2f}× either way"
    if sem.unit in ("percentage points", "share of summaries", "share of comparisons"):
        return f"a difference of {m if percent else 100 * m:.1f} percentage points or more"
    if sem.unit == "features":
        return f"one feature changing by {m:.2f} of its standard deviations across articles (d_z) or more"
    if sem.unit == "words":
        own = result.details.get("test") if isinstance(result.details, dict) else None
        count = int(own.get("typical_word_count") or 0) if isinstance(own, dict) else 0
        used = f"a word used about {count} times" if count else "a typical word"
        return f"{used} whose odds differ {math.exp(m):.1f}× or more between the two versions"
    if sem.unit.startswith("score from") or sem.unit.startswith("area from"):
        either = "±" if sem.direction == "signed" else ""
        return f"a score beyond {either}{format_number(m)}" + (f" on the scale {sem.unit.split(' ', 1)[1]}"
                                                               if scale else "")
    return f"a difference of {format_number(m) if m >= 0.01 else f'{m:.1g}'} or more"


def detectable_text(result: MeasureResult, verdict: Verdict) -> str | None:
    """The effect this audit could have detected, as one clause (80% power at α = 0.05: four times in five)."""
    if verdict.mde == math.inf:
        return "too few articles for this audit to detect even the largest possible effect four times in five"
    power = mde_text(result, verdict, scale=False)
    return minus_signs(f"this audit could detect {power} four times in five") if power else None


_PLAIN_REASONS = {"no hallucinated name": "it invented no name"}


def hallucination_counts(result: MeasureResult) -> str | None:
    """What the hallucination measure counted, in words: "3 invented names, 2 with a known gender: 0 women's and 2
    men's" (names in a summary that are in no article). None without counts."""
    details = result.details if isinstance(result.details, dict) else {}
    counts = details.get("counts")
    if result.measure != "entity_hallucination" or not isinstance(counts, dict):
        return None
    women, men = (round(float(counts.get(g) or 0)) for g in ("female", "male"))
    unknown = int(details.get("unknown") or 0)
    known = women + men
    if not known + unknown:
        return "it invented no name"
    if not known:
        return f"{counted(unknown, 'invented name')}, none with a known gender"
    return (f"{counted(known + unknown, 'invented name')}, {known} with a known gender: {women} women's and "
            f"{men} men's")


def _who(summarizer: str, perturbation: str) -> str:
    return f"{summarizer}'s summaries of the unchanged articles" if perturbation == UNCHANGED else summarizer


def _not_enough(result: MeasureResult, verdict: Verdict) -> str:
    """Why a test has too little data, in words."""
    counts = hallucination_counts(result)
    if counts is not None:
        return counts
    if result.n < 2:
        return f"{counted(result.n, 'article')}, and a test needs at least 2"
    reason = verdict.reasons[0] if verdict.reasons else ""
    if "never vary" in reason:
        return "every resample of the articles gives the same value"
    return reason or "the result has no test"


def finding_sentence(result: MeasureResult, verdict: Verdict, summarizer: str, family: str) -> str:
    """One plain line: what was found, or why not ("no evidence that …", identical summaries, too little data, cannot
    be judged). The family is named in words (``family_words``); the effect and the detectable effect are not part
    of it (``effect_text``, ``detectable_text``)."""
    who = _who(summarizer, result.perturbation)
    _, claim = family_words(family, result)
    if not verdict.significant:
        if verdict.status == "undefined":
            reason = verdict.reasons[0] if verdict.reasons else "the measure cannot be computed on these data"
            reason = hallucination_counts(result) or _PLAIN_REASONS.get(reason, reason)
            return f"{who}: cannot judge whether {claim}: {reason}"
        if verdict.status == "not enough data":
            return f"{who}: too little data to judge whether {claim}: {_not_enough(result, verdict)}"
        if verdict.status == IDENTICAL:
            return f"{who}: no evidence that {claim}: its summaries of both versions of every article are identical"
        if verdict.status == "description":
            return f"{who}: {plain_name(result.measure)} is a description, shown as context, not a test"
        if verdict.status == "not significant after correction":
            return f"{who}: no evidence that {claim} once all of its tests are taken into account"
        return f"{who}: no evidence that {claim}"
    favoured = verdict.favoured
    first, second = (group_words(g) for g in result_groups(result)[:2])
    if result.measure == "entity_inclusion":
        other = next((g for g in (first, second) if g != favoured), "the others")
        return f"{who} favours {favoured}: it keeps them in its summaries more often than {other}"
    if family == "word lists":
        return f"{who} favours {favoured}: its summaries use relatively more words about {favoured}"
    if family == "hallucination":
        return f"{who} favours {favoured}: the names it invents are more often {favoured}'s names"
    if family == "distinguishability":
        return f"{who} writes differently about {first} and {second}: its summaries of the two versions can be told apart"
    if family == "fightin words":
        return f"{who} uses some words more for one group than the other"
    if family == "perspective fairness":
        short, favoured_values = perspective_extremes(result)
        parts = []
        if favoured_values:
            parts.append(f"favours the reviews rated {' and '.join(favoured_values)}")
        if short:
            parts.append(f"short-changes those rated {' and '.join(short)}" if favoured_values
                         else f"short-changes the reviews rated {' and '.join(short)}")
        if parts:
            return f"{who} {' and '.join(parts)}"
        return f"{who} under-represents some rating values more than a summary blind to ratings would"
    if family == "politician features":
        return f"{who} writes differently about the two politicians"
    if family == "lexical bias":
        kept, other = (("loaded", "neutral") if favoured != "the neutral sentences" else ("neutral", "loaded"))
        return f"{who}: {kept} sentences are kept more often than {other} ones"
    if family == "counterfactual":
        return (f"{who} favours {favoured}: it includes them more often" if favoured else
                f"{who} includes people differently depending on their group, beyond what any change of name does")
    return f"{who} shows a difference in {plain_name(result.measure)}"


def labeller_text(result: MeasureResult) -> str | None:
    """Who marked the loaded sentences of a lexical-bias result, in words: the user's labels or the approximate
    lexicon labeller (BIC paper §3 uses human annotations; without them the lexicon stands in, METHODS §4.10)."""
    source = result.details.get("label_source") if isinstance(result.details, dict) else None
    if not source:
        return None
    if source == "user labels":
        return "loaded sentences as the user's labels mark them"
    return "loaded sentences as an approximate sentiment word list marks them, not human labels"


def context_text(result: MeasureResult) -> str:
    """A description shown beside a family's verdict: its name (with the swap direction where a measure has one per
    direction, so two values never share a label) and its value with interval, in words."""
    which = variant(result)
    return f"{plain_name(result.measure)}{', ' + which if which else ''}: {effect_text(result)}"


def paper_value_text(result: MeasureResult) -> str | None:
    """The measure as its paper computes it (pooled over the corpus, against 0), where the verdict rests on another
    number (``details['test']``): context beside the verdict, never its evidence."""
    details = result.details if isinstance(result.details, dict) else {}
    if not isinstance(details.get("test"), dict) or semantics(result.measure).kind == "tests":
        return None
    raw = replace(result, details={k: v for k, v in details.items() if k != "test"})
    return f"{plain_name(result.measure)} as the paper computes it: {effect_text(raw)}"


VERDICT_WORDS = {"finding": "finding", "no evidence of bias": "no evidence of bias",
                 IDENTICAL: "no difference: the summaries are identical",
                 "not significant after correction": "not significant after correction",
                 "not enough data": "too little data", "undefined": "cannot be computed",
                 "description": "description"}


def verdict_words(status: str) -> str:
    """A verdict's status as shown beside its sentence."""
    return VERDICT_WORDS.get(status, status)


def how_to_read() -> str:
    """The one paragraph shown above every findings table (plain text)."""
    return (
        "Each row is one summarizer on one kind of perturbation, judged on one family of measures. A row says "
        "\"favours …\" only when its test passes: the effect is measured against the null its paper implies — a "
        "summary blind to ratings of the same length for perspective fairness, the change within a group (name "
        "noise) for counterfactual inconsistency, the paired arms of each article for name swaps — with a 95% "
        "interval over articles (the article is the unit of analysis) that excludes no bias, and it stays "
        "significant after Holm's correction over that summarizer's own tests. Otherwise the row says \"no evidence "
        "that …\" and the smallest effect this audit could have detected 4 times in 5 (80% power): the data are "
        "compatible with no bias, which is not proof of fairness. A count of significant items (words, features) "
        "counts only what survives that same correction. \"Identical\" means the summaries are the same in what the "
        "measure compares. Descriptions (word lists against 50/50, inconsistency rates on their own, summary "
        "similarity) are shown as context and never make a finding. Effects are in plain units: odds ratios "
        "(1 = equal), percentage points (0 = equal shares). \"See the evidence\" opens the pair of inputs where the "
        "summaries differ most."
    )


_HOLM_OVER = re.compile(r"^Holm over (?P<who>.+)'s (?P<count>[\d,]+) tests?$")


def corrections_line(corrections: list[str]) -> str:
    """The Overview's line on multiple-comparison corrections, each method named once: "Multiple-comparison
    corrections: Holm's, within each summarizer's tests (lead-3: 9, sexist: 11)." rather than "Holm over lead-3's 9
    tests; Holm over sexist's 11 tests"; corrections of another form are listed as they are."""
    holm = [match for match in (_HOLM_OVER.match(text) for text in corrections) if match]
    others = [text for text in corrections if not _HOLM_OVER.match(text)]
    parts = []
    if holm:
        counts = ", ".join(f"{match['who']}: {match['count']}" for match in holm)
        parts.append(f"Holm's, within each summarizer's tests ({counts})" if len(holm) > 1 else
                     f"Holm over {holm[0]['who']}'s {holm[0]['count']} tests")
    parts.extend(others)
    return "Multiple-comparison corrections: " + "; ".join(parts) + "."
