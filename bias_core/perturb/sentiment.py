"""Sentiment / perspective split: inputs mixing units of different values at controlled ratios (METHODS §1.6;
Zhang et al. §2, §4, App. A).

An original is a set of *units* (reviews, tweets, dialogue turns). Each unit's value comes from

- ``label``: a column the user names (``value_column``; the loader's ``value`` field by default), e.g. a speaker,
  party or gender label;
- ``stars``: a star rating, written as the integer 1–5 (Zhang et al.'s Amazon setting, values = ratings);
- ``vader``: VADER sentiment as in the FairSumm code — the larger of ``pos`` and ``neg`` (a tie goes to ``neg``),
  ``neu`` when both are 0;
- ``vader-compound``: VADER's compound-score rule — ``pos`` if compound ≥ 0.05, ``neg`` if ≤ −0.05, else ``neu``.

For every ratio r in ``ratios`` and every sample, an input takes ``units_per_input`` units of which a share r has the
*focus* value (``focus_value``; default the first value in sorted order, ``pos`` for sentiment, ``female`` before
``male``) and the rest is split as evenly as possible over the other values, drawn without replacement, shuffled and
joined with " || " (Zhang et al. App. A: "randomly sample ... with a certain ratio and then combine them").

Ratios are hit exactly where the unit counts allow: when r·n is not a whole number, or an original has too few units
of a value, the input shrinks to the largest size n' ≤ n with r·n' whole and enough units; if none of at least
``min_units`` exists, that (original, ratio) is skipped with a reason. Each input records ``target_ratio``,
``achieved_ratio`` and the value counts; ``perspective_template`` names the Zhang et al. Table 11 template (kept in
``bias_core.summarize.prompts.PERSPECTIVE_TEMPLATES``) a prompted summarizer should use. Perspective inputs have
no substitution map: they select units, they do not rewrite them.
"""

from __future__ import annotations

import functools
import logging
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from bias_core.common.records import UNIT_SEPARATOR, Document, Input, Unit
from bias_core.perturb.base import Perturbation, PerturbationResult, SkippedOriginal, SkipReport, seeded_random
from bias_core.safety.validation import SAMPLES, UNITS_PER_INPUT, Param, check_list_length

logger = logging.getLogger(__name__)

VALUE_SOURCES = ("label", "stars", "vader", "vader-compound")
SENTIMENT_ORDER = ("pos", "neg", "neu")


@dataclass(frozen=True)
class SentimentConfig:
    """Settings of the perspective split: value source, ratios, units per input, samples and seed (METHODS §1.6)."""

    value_source: str = "label"
    value_column: str = "value"
    ratios: tuple[float, ...] = (0.2, 0.5, 0.8)
    focus_value: str | None = None
    units_per_input: int = 10
    min_units: int = 2
    samples: int = 5
    seed: int = 0
    perspective_template: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "ratios", tuple(self.ratios))
        if self.value_source not in VALUE_SOURCES:
            raise ValueError(f"value_source must be one of {', '.join(VALUE_SOURCES)}, got {self.value_source!r}")
        check_list_length("ratios", self.ratios)
        for index, ratio in enumerate(self.ratios):
            Param(float).check(f"ratios[{index}]", ratio)  # "ratios[0] = 'a' is not a number", not a TypeError
        UNITS_PER_INPUT.check("units_per_input", self.units_per_input)
        UNITS_PER_INPUT.check("min_units", self.min_units)
        SAMPLES.check("samples", self.samples)
        if not self.ratios or any(not 0.0 <= r <= 1.0 for r in self.ratios):
            raise ValueError(f"ratios must be shares between 0 and 1, got {self.ratios}")
        if not 2 <= self.min_units <= self.units_per_input:
            raise ValueError(f"need 2 ≤ min_units ≤ units_per_input, got {self.min_units} and "
                             f"{self.units_per_input}")
        if self.perspective_template is not None:
            from bias_core.summarize.prompts import PERSPECTIVE_TEMPLATES

            if self.perspective_template not in PERSPECTIVE_TEMPLATES:
                raise ValueError(f"perspective_template must be one of {', '.join(PERSPECTIVE_TEMPLATES)}")


@functools.cache
def _vader():
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    return SentimentIntensityAnalyzer()


def vader_value(text: str, rule: str = "fairsumm") -> str:
    """Return pos, neg or neu for a text by VADER: the FairSumm rule (default) or the compound rule (§1.6)."""
    scores = _vader().polarity_scores(text)
    if rule == "compound":
        if scores["compound"] >= 0.05:
            return "pos"
        return "neg" if scores["compound"] <= -0.05 else "neu"
    if scores["pos"] == 0 and scores["neg"] == 0:
        return "neu"
    return "pos" if scores["pos"] > scores["neg"] else "neg"


def unit_value(unit: Unit, config: SentimentConfig) -> str | None:
    """Return a unit's value under the configured source (None when the unit has none)."""
    if config.value_source == "vader":
        return vader_value(unit.text)
    if config.value_source == "vader-compound":
        return vader_value(unit.text, "compound")
    raw = unit.extra.get(config.value_column) if config.value_column in unit.extra else unit.value
    if raw is None or str(raw).strip() == "":
        return None
    if config.value_source == "stars":
        try:
            stars = float(raw)
        except ValueError:
            return None
        return str(int(round(stars))) if math.isfinite(stars) else None
    return str(raw).strip()


def split_counts(ratio: float, size: int, others: int) -> tuple[int, list[int]] | None:
    """Return (focus count, counts of the other values) for ``size`` units, or None when ratio·size is not whole.

    The non-focus units are spread as evenly as possible, the first values taking the remainder.
    """
    focus = Fraction(ratio).limit_denominator(1000) * size
    if focus.denominator != 1:
        return None
    rest = size - int(focus)
    if others == 0:
        return (int(focus), []) if rest == 0 else None
    base, extra = divmod(rest, others)
    return int(focus), [base + (1 if i < extra else 0) for i in range(others)]


class PerspectiveSplit(Perturbation):
    """Sample units at controlled value ratios into " || "-joined inputs (METHODS §1.6; Zhang et al. App. A)."""

    name = "sentiment"
    config_class = SentimentConfig
    config: SentimentConfig

    def run(self, documents: Sequence[Document]) -> PerturbationResult:
        """Return ``samples`` inputs per ratio per original; originals without units or values are skipped."""
        report = SkipReport(n_originals=len(documents))
        inputs: list[Input] = []
        for document in documents:
            if not document.units:
                report.skip(document.id, "no units: a perspective split needs reviews, tweets or turns")
                continue
            made, reasons = self._document_inputs(document)
            inputs += made
            if not made:
                report.skip(document.id, "; ".join(reasons))
            elif reasons:
                report.incomplete.append(SkippedOriginal(document.id, "; ".join(reasons)))
        logger.info("%s: %d inputs from %d originals, %d skipped", self.name, len(inputs), len(documents),
                    len(report.skipped))
        return PerturbationResult(inputs, report, {**self.run_info(), "n_inputs": len(inputs)})

    def _document_inputs(self, document: Document) -> tuple[list[Input], list[str]]:
        config = self.config
        by_value: dict[str, list[Unit]] = {}
        for unit in document.units or []:
            value = unit_value(unit, config)
            if value is not None:
                by_value.setdefault(value, []).append(Unit(unit.text, value, dict(unit.extra)))
        if len(by_value) < 2:
            return [], [f"fewer than two values: units have {sorted(by_value) or 'no values'}"]
        values = _ordered(by_value)
        focus = config.focus_value or values[0]
        if focus not in by_value:
            return [], [f"no unit has the focus value: {focus!r} (values: {', '.join(values)})"]
        others = [value for value in values if value != focus]
        rng = seeded_random(config.seed, self.name, document.id)
        inputs: list[Input] = []
        reasons: list[str] = []
        for ratio in config.ratios:
            plan = self._plan(ratio, focus, others, by_value)
            if plan is None:
                reasons.append(f"too few units for ratio {ratio:g}: "
                               + ", ".join(f"{v}={len(by_value[v])}" for v in values))
                continue
            arm = f"{focus}={ratio:g}"
            for sample_id in range(config.samples):
                chosen = [unit for value, count in plan.items() for unit in rng.sample(by_value[value], count)]
                rng.shuffle(chosen)
                inputs.append(self._input(document, chosen, arm, sample_id, ratio, focus))
        return inputs, reasons

    def _plan(self, ratio: float, focus: str, others: list[str], by_value: dict[str, list[Unit]]) -> dict | None:
        for size in range(self.config.units_per_input, self.config.min_units - 1, -1):
            counts = split_counts(ratio, size, len(others))
            if counts is None:
                continue
            focus_count, other_counts = counts
            plan = {focus: focus_count, **dict(zip(others, other_counts, strict=True))}
            if all(len(by_value[value]) >= count for value, count in plan.items()):
                return {value: count for value, count in plan.items() if count}
        return None

    def _input(self, document: Document, units: list[Unit], arm: str, sample_id: int, ratio: float,
               focus: str) -> Input:
        counts = Counter(unit.value for unit in units)
        extra = {"target_ratio": ratio, "achieved_ratio": counts[focus] / len(units), "focus_value": focus,
                 "value_counts": dict(sorted(counts.items()))}
        if self.config.perspective_template:
            extra["perspective_template"] = self.config.perspective_template
        if document.meta:
            extra["meta"] = document.meta
        return Input(
            id=f"{document.id}/{self.name}/s{sample_id}/{arm}",
            original_id=document.id,
            text=UNIT_SEPARATOR.join(unit.text for unit in units),
            perturbation=self.name,
            sample_id=sample_id,
            arm=arm,
            units=units,
            extra=extra,
        )


def _ordered(by_value: dict[str, list[Unit]]) -> list[str]:
    """Values in a stable order: sentiment labels as pos, neg, neu; star ratings numerically; others sorted."""
    values = list(by_value)
    if set(values) <= set(SENTIMENT_ORDER):
        return [v for v in SENTIMENT_ORDER if v in by_value]
    if all(v.isdigit() for v in values):
        return sorted(values, key=int)
    return sorted(values)


def corpus_values(documents: Sequence[Document], config: SentimentConfig) -> dict[str, int]:
    """The values the corpus's units have under ``config``'s source, with how many units hold each, in the order the
    split uses (the first is the default focus value): what the analyst chooses the focus value from."""
    by_value: dict[str, list[Unit]] = {}
    for document in documents:
        for unit in document.units or []:
            value = unit_value(unit, config)
            if value is not None:
                by_value.setdefault(value, []).append(unit)
    return {value: len(by_value[value]) for value in _ordered(by_value)}


def unknown_value_column(documents: Sequence[Document], config: SentimentConfig,
                         loaded_as: str | None = None) -> str | None:
    """A one-line problem when ``value_column`` names a field no unit of the corpus has, else None. Without this
    check, ``value_column = "nope"`` fell back to every unit's ``value`` without a word (issue 23). ``loaded_as`` is
    the CSV column the loader already made each unit's value (it is then not among the units' other fields)."""
    if config.value_source not in ("label", "stars") or config.value_column in ("value", loaded_as):
        return None
    units = [unit for document in documents for unit in document.units or []]
    if not units or any(config.value_column in unit.extra for unit in units):
        return None
    fields = sorted({key for unit in units for key in unit.extra})
    return (f"value_column '{config.value_column}' is not a field of any unit; the units have: "
            f"{', '.join(['value', *fields])}")
