"""Results and verdicts in plain words (issue 11): the effect in a unit a person understands, the effect the audit
could have detected, the one sentence of a finding, its context and the paragraph on how to read the findings.
"""

from __future__ import annotations

import math
from dataclasses import replace

from bias_core.common.records import MeasureResult
from bias_core.verdicts.judge import IDENTICAL, Verdict, format_number
from bias_core.verdicts.semantics import group_words, perspective_extremes, primary_estimate, result_groups, semantics


def odds_ratio(signed: float) -> float:
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
        first, second = (group_words(g) for g in result_groups(result)[:2])
        if value >= 0:
            text = f"odds {odds_ratio(value):.2f}× for {first} against {second}"
            bounds = (odds_ratio(low), odds_ratio(high)) if interval else None
        else:
            text = f"odds {1 / odds_ratio(value):.2f}× for {second} against {first}"
            bounds = (1 / odds_ratio(high), 1 / odds_ratio(low)) if interval else None
        return text + (f" (95% interval {bounds[0]:.2f}–{bounds[1]:.2f})" if bounds else "")
    percent = isinstance(result.details, dict) and result.details.get("unit") == "%"
    if sem.unit == "percentage points":
        text = f"{_pp(value, percent)} percentage points"
        return text + (f" (95% interval {_pp(low, percent)} to {_pp(high, percent)})" if interval else "")
    if sem.unit == "share of summaries":
        scale = 1 if percent else 100
        text = f"{value * scale:.0f}% of summaries"
        return text + (f" (95% interval {low * scale:.0f}–{high * scale:.0f}%)" if interval else "")
    return f"{format_number(value)} ({sem.unit}" + (f"; 95% interval {format_number(low)} to {format_number(high)})"
                                                    if interval else ")")


def mde_text(result: MeasureResult, verdict: Verdict) -> str | None:
    """The verdict's minimum detectable effect in the measure's plain unit ("odds ratios beyond 1.80×", "4.2
    percentage points" …), or None where the test has no spread to derive it from."""
    m = verdict.mde
    if m is None or not math.isfinite(m):
        return None
    sem = semantics(result.measure)
    percent = isinstance(result.details, dict) and result.details.get("unit") == "%"
    if sem.unit == "odds ratio":
        return f"odds ratios beyond {odds_ratio(m):.2f}× either way"
    if sem.unit in ("percentage points", "share of summaries", "share of comparisons"):
        return f"{m if percent else 100 * m:.1f} percentage points"
    if sem.unit == "features":
        return None
    if result.measure == "mbic":
        return f"an MBIC of ±{format_number(m)} (−1 to 1)"
    if sem.unit.startswith("score from"):
        return f"a score of {format_number(m)} ({sem.unit[6:]})"
    return f"{format_number(m)} ({sem.unit})"


def finding_sentence(result: MeasureResult, verdict: Verdict, summarizer: str, family: str) -> str:
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
        other = next((group_words(g) for g in result_groups(result)[:2] if group_words(g) != favoured), "the others")
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
        short, favoured_values = perspective_extremes(result)
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
