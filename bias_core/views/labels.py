"""Arms of a perturbation described in words, for the sides of a comparison ("all people women", "20% rated 1
star") instead of their ids ("female", "1=0.2"). The ids stay what is stored and exported; these are for display."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from bias_core.common.records import Input

_SENTIMENT_ARM = re.compile(r"^(?P<value>.+)=(?P<ratio>0(?:\.\d+)?|1(?:\.0+)?)$")
_SETTING_ARM = re.compile(r"^(?P<setting>.+)\.(?P<arm>[ab])$")


def arm_label(perturbation: str, arm: str, value_kind: str | None = None) -> str:
    """Describe one arm of ``perturbation`` in words; unknown arms are returned unchanged.

    Name perturbations in the C_loc design (gender-loc, race) hold both groups in every input, so an arm is not a
    group: arm a is the draw as made, arm b the same people with each one's gender or race inverted (METHODS §1).
    gender-glob arms are one gender for everyone; sentiment arms are a share of the focus value (METHODS §2);
    politician arms are the politician the input names.
    """
    if perturbation == "gender-glob" and arm in ("female", "male"):
        return "all people women" if arm == "female" else "all people men"
    if perturbation == "gender-loc" and arm in ("a", "b"):
        return ("arm a: half the people women, half men" if arm == "a"
                else "arm b: every person's gender inverted")
    if perturbation == "race" and arm in ("a", "b"):
        return ("arm a: half Black-, half White-associated names" if arm == "a"
                else "arm b: every person's race inverted")
    if perturbation == "race-intersectional":
        match = _SETTING_ARM.match(arm)
        if match:
            inverted = " (races inverted)" if match["arm"] == "b" else ""
            return f"setting {match['setting']}, arm {match['arm']}{inverted}"
    if perturbation == "sentiment":
        match = _SENTIMENT_ARM.match(arm)
        if match:
            share = f"{float(match['ratio']):.0%}"
            value = match["value"]
            if value_kind == "stars":
                unit = "star" if value == "1" else "stars"
                return f"{share} of the reviews rated {value} {unit}"
            return f"{share} of the units valued {value}"
    if perturbation == "politician":
        return f"inputs naming {arm}"
    return arm


def arm_labels(perturbation: str, arms: list[str], value_kind: str | None = None) -> dict[str, str]:
    """``arm_label`` for several arms, made unique: two arms never read the same."""
    labels = {arm: arm_label(perturbation, arm, value_kind) for arm in arms}
    if len(set(labels.values())) < len(labels):
        labels = {arm: f"{label} ({arm})" for arm, label in labels.items()}
    return labels


def variant_label(item: Input) -> str:
    """One input variant of an original in words: its perturbation, name draw, arm and role ("race · sample 2 ·
    arm b"); the unchanged original reads "identity"."""
    parts = [item.perturbation]
    if item.sample_id is not None and item.perturbation != "identity":
        parts.append(f"sample {item.sample_id}")
    if item.arm:
        parts.append(f"arm {item.arm}")
    if item.role and item.role != "identity":
        parts.append(item.role)
    return " · ".join(parts)


def variant_labels(items: Iterable[Input]) -> dict[str, str]:
    """``variant_label`` by input id, made unique with the id where two variants would read the same, so a label
    names one variant (the app's links carry labels)."""
    items = list(items)
    labels = {item.id: variant_label(item) for item in items}
    counts = Counter(labels.values())
    return {input_id: label if counts[label] == 1 else f"{label} ({input_id})" for input_id, label in labels.items()}
