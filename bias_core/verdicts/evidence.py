"""The pair of inputs to open on Compare beside a finding: the two arms of one draw whose summaries differ most in what
the model changed (``bias_core.compare.diff``), or the two review mixes of one sample that differ most. Both summaries
of a pair are ones the measures count: a degenerate summary (``measures.quality.summary_degenerate_reason``, left out
of every measure) is never evidence (issue 29).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bias_core.common.records import CONTROL_ROLES, Input, Summary
from bias_core.compare.diff import expected_words, model_difference
from bias_core.measures.quality import summary_degenerate_reason


@dataclass(frozen=True)
class EvidencePair:
    """Two inputs of one original to open side by side on Compare."""

    original_id: str
    input_a: str
    input_b: str
    why: str


# A race-intersectional arm: its race × gender setting, then ".a" or ".b" (``perturb.race.RaceIntersectional``).
_SETTING_ARM = re.compile(r"^(?P<setting>.+)\.[ab]$")


def _value_shares(item: Input) -> dict[str, float]:
    values = [str(unit.value) for unit in item.units or [] if unit.value is not None]
    return {v: values.count(v) / len(values) for v in set(values)} if values else {}


def draw_key(item: Input) -> tuple:
    """The draw of names an input belongs to: its original, its sample, whether it holds a within-group control's
    names (a quadruple's control and swap2 share a second draw) and, for race-intersectional, its race × gender
    setting (each of the four settings of a sample draws its own names; its arms are ``<setting>.a`` and
    ``<setting>.b``). The two arms of one draw carry the same drawn names; arms of two draws differ in the names too."""
    setting = ""
    if item.perturbation == "race-intersectional" and item.arm and (match := _SETTING_ARM.match(item.arm)):
        setting = match["setting"]
    return item.original_id, item.sample_id, item.role in CONTROL_ROLES, setting


def evidence_pair(summarizer: str, perturbation: str, inputs: Sequence[Input],
                  summaries: Sequence[Summary]) -> EvidencePair | None:
    """The most telling pair of inputs to open on Compare.

    Name swaps: among the pairs of inputs in opposite arms of one draw (``draw_key``: the same original, sample and
    drawn names), the two whose summaries by ``summarizer`` differ most in what the model changed
    (``bias_core.compare.diff.model_difference``, the swapped words masked — the same measure the Compare page ranks
    originals by). Sentiment: the two inputs of one original and sample, in different arms, whose mixes of rating
    values differ most (total variation distance of the value shares). A summary the measures leave out as degenerate
    is never one side; None when no pair is left.
    """
    by_input = {s.input_id: s for s in summaries if s.summarizer == summarizer}
    texts = {input_id: summary.text for input_id, summary in by_input.items()}
    chosen = [item for item in inputs if item.perturbation == perturbation and item.id in texts]
    by_draw: dict[tuple, list[Input]] = {}
    for item in chosen:
        key = (item.original_id, item.sample_id) if perturbation == "sentiment" else draw_key(item)
        by_draw.setdefault(key, []).append(item)
    candidates: list[tuple[float, str, str, str]] = []
    for items in by_draw.values():
        for i, a in enumerate(items):
            for b in items[i + 1:]:
                if a.arm == b.arm:
                    continue
                if perturbation == "sentiment":
                    shares_a, shares_b = _value_shares(a), _value_shares(b)
                    keys = set(shares_a) | set(shares_b)
                    score = 0.5 * sum(abs(shares_a.get(k, 0) - shares_b.get(k, 0)) for k in keys)
                    score += 1e-3 * model_difference(texts[a.id], texts[b.id])  # ties: the summaries that differ
                else:
                    score = model_difference(texts[a.id], texts[b.id], expected_words(a, b))
                candidates.append((score, a.original_id, a.id, b.id))
    # Most different first; a pair with a degenerate side is passed over. Checking only the pairs on the way to the
    # first usable one keeps this cheap: the loop check costs milliseconds a summary.
    degenerate: dict[str, bool] = {}
    best = None
    for candidate in sorted(candidates, key=lambda c: (-c[0], *c[1:])):
        for input_id in candidate[2:]:
            if input_id not in degenerate:
                degenerate[input_id] = summary_degenerate_reason(by_input[input_id]) is not None
        if not (degenerate[candidate[2]] or degenerate[candidate[3]]):
            best = candidate
            break
    if best is None:
        return None
    if perturbation == "sentiment":
        why = "the two inputs of one sample whose mixes of ratings differ most"
    else:
        why = (f"the two arms of one name draw whose {summarizer} summaries differ most in what the model changed "
               f"({100 * best[0]:.0f}% of the words, swapped words not counted)")
    return EvidencePair(best[1], best[2], best[3], why)
