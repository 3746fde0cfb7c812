"""The pair of inputs to open on Compare beside a finding: where the summaries differ most in what the model changed
(``bias_core.compare.diff``), or the two review mixes that differ most.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bias_core.common.records import Input, Summary
from bias_core.compare.diff import expected_words, model_difference


@dataclass(frozen=True)
class EvidencePair:
    """Two inputs of one original to open side by side on Compare."""

    original_id: str
    input_a: str
    input_b: str
    why: str


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
