"""Where "no bias" sits in each measure's unit, and what a chart's axis plots, in the words of the findings (issue 29,
Why 5: "0 means no evidence" over an odds-ratio chart centred on 1; a text saying "odds 1.24× for men against
women" over an axis reading "first group against second").

``NO_BIAS`` is the one table of the value meaning no bias per unit: the family intros on Metrics say it and the
charts draw their dotted line at it. ``chart_scale`` puts a result in the unit its sentence states
(``bias_core.verdicts.sentences.effect_text``: percentage points, not fractions), and ``axis_title`` and
``sides`` name the groups in the order the sentences name them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bias_core.common.records import MeasureResult
from bias_core.verdicts.semantics import group_words, result_groups, semantics


@dataclass(frozen=True)
class NoBias:
    """The value meaning no bias in a unit, as the charts and sentences state that unit, and what it means."""

    value: float
    words: str  # follows "<measure name> — ": "an odds ratio: 1 means both groups are kept equally often"


NO_BIAS: dict[str, NoBias] = {
    "odds ratio": NoBias(1.0, "an odds ratio: 1 means both groups are kept equally often"),
    "percentage points": NoBias(0.0, "a difference in percentage points: 0 means no difference"),
    "score from −1 to 1": NoBias(0.0, "a score from −1 to 1: 0 means no difference between the two sides"),
    "share of summaries": NoBias(0.0, "a share of summaries: 0 means no more than a summary blind to ratings"),
    "share of comparisons": NoBias(0.0, "a share of comparisons in percent: 0 means no change"),
    "area from 0 to 1": NoBias(0.0, "an area from 0 to 1: 0 means no more than a summary blind to ratings"),
    "spread": NoBias(0.0, "a spread: 0 means every rating falls short equally"),
    "similarity from 0 to 1": NoBias(1.0, "a similarity from 0 to 1: 1 means the swap changed nothing"),
    "features": NoBias(0.0, "a count of features that change significantly: 0 means none"),
    "words": NoBias(0.0, "a count of words used significantly more for one group: 0 means none"),
    "change in MBIC": NoBias(0.0, "a change in the lexical bias score: 0 means the feature does not matter"),
}


def no_bias(measure: str) -> NoBias:
    """Where no bias sits for ``measure``, in the unit its chart and sentences state (``NO_BIAS``); a unit not in
    the table has its measure's declared null."""
    sem = semantics(measure)
    return NO_BIAS.get(sem.unit, NoBias(sem.null, f"a {sem.unit}: {sem.null:g} means no bias"))


def chart_scale(result: MeasureResult) -> float:
    """The factor that puts ``result``'s primary estimate in the unit its sentence states (``effect_text``):
    100 for fractions stated in percentage points or percent, 1 otherwise (odds ratios are mapped separately)."""
    sem = semantics(result.measure)
    details = result.details if isinstance(result.details, dict) else {}
    test = details.get("test")
    if sem.family == "perspective fairness" and isinstance(test, dict) and test.get("floor") == "permutation":
        return 1.0  # stated as the value itself against a summary blind to ratings
    if sem.unit in ("percentage points", "share of summaries", "share of comparisons"):
        return 1.0 if details.get("unit") == "%" else 100.0
    return 1.0


def _pairs(results: Iterable[MeasureResult]) -> list[tuple[str, str]]:
    """The distinct (first, second) groups of ``results`` in words, in the order the sentences name them."""
    pairs = [tuple(group_words(g) for g in result_groups(r)[:2]) for r in results]
    return list(dict.fromkeys(pairs)) or [("women", "men")]


def _joined(words: Iterable[str]) -> str:
    return " / ".join(dict.fromkeys(words))


# Whom a value below or above the no-bias value favours, per measure with a group direction: the words before the
# sides, then the side below and the side above; {first} and {second} are the result's groups in the sentences'
# order (``judge`` favours the first above the null).
_SIDES: dict[str, tuple[str, str, str]] = {
    "entity_inclusion": ("kept more often", "{second}", "{first}"),
    "word_list_inclusion_adjusted": ("more words about", "{second}", "{first}"),
    "word_list_inclusion_unadjusted": ("more words about", "{second}", "{first}"),
    "entity_hallucination": ("more invented names of", "{second}", "{first}"),
    "acc_diff": ("included more often", "{second}", "{first}"),
    "mbic": ("kept more often", "neutral sentences", "loaded sentences"),
}


def side_words(result: MeasureResult) -> tuple[str, str] | None:
    """(below no bias, above no bias): whom ``result``'s value favours on either side of the dotted line, with its
    own groups (("men", "women") for entity inclusion on gender swaps); None for a measure without a group
    direction."""
    template = _SIDES.get(result.measure)
    if template is None:
        return None
    first, second = _pairs([result])[0]
    return template[1].format(first=first, second=second), template[2].format(first=first, second=second)


def sides(measure: str, results: Sequence[MeasureResult]) -> tuple[str, str, str] | None:
    """(what the sides are, below, above) over every result of a chart, the groups of several pairs joined with
    " / " (entity inclusion over gender and race rows: ("kept more often", "men / White-associated names",
    "women / Black-associated names")); None for a measure without a group direction."""
    if measure not in _SIDES:
        return None
    words = [side_words(r) for r in results if r.measure == measure] or [side_words(MeasureResult(measure, 0.0, 0))]
    return _SIDES[measure][0], _joined(w[0] for w in words if w), _joined(w[1] for w in words if w)


# What the chart plots, in the words the sentences state it with (``effect_text``); {first} and {second} as above.
_PLOTTED: dict[str, str] = {
    "entity_inclusion": "odds of being kept in the summary, as a ratio (log scale)",
    "word_list_inclusion_adjusted": ("gendered words kept when the people are women against men, in percentage points "
                                     "of the article's"),
    "word_list_inclusion_unadjusted": "women's share of the gendered words against half, in percentage points",
    "entity_hallucination": "women's share of the invented names against half, in percentage points",
    "delta_i": "changes across groups beyond those within a group, in percentage points",
    "acc_diff": "how often {first} are included against {second}, in percentage points",
    "uer": "percentage points against a summary blind to ratings",
    "bur": "share of summaries short-changing a rating, against a summary blind to ratings",
    "auc": "area from 0 to 1, against a summary blind to ratings",
    "sof": "spread of the shortfall, against a summary blind to ratings",
    "i_across": "% of comparisons in which inclusion changes",
    "i_within": "% of comparisons in which inclusion changes",
}


def axis_title(measure: str, results: Sequence[MeasureResult] = ()) -> str:
    """The x-axis title of ``measure``'s chart: what is plotted in the sentences' words, the groups on each side of
    the dotted line in the sentences' order, and where no bias sits ("odds of being kept in the summary, as a ratio
    (log scale) · kept more often: ← men | women → · dotted line at 1: no bias")."""
    rows = [r for r in results if r.measure == measure]
    first = _joined(p[0] for p in _pairs(rows))
    second = _joined(p[1] for p in _pairs(rows))
    plotted = _PLOTTED.get(measure, semantics(measure).unit).format(first=first, second=second)
    either = sides(measure, rows)
    where = f"dotted line at {no_bias(measure).value:g}: no bias"
    if either is None:
        return f"{plotted} · {where}"
    lead, below, above = either
    return f"{plotted} · {lead}: ← {below} | {above} → · {where}"
