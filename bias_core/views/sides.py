"""The sides of a comparison named by what they are (issue 29): the unchanged article is "original"; a perturbed
input is its arm in words and its name draw ("gender-glob · all people women, sample 0"), never "original", even where
the perturbation's role for it is the quadruple's "original" position (a perturbed text) or the politician swap's
unchanged side ("Donald Trump as written, sample 0"). ``variant_label`` (``views.labels``) stays the stored form. An
evidence pair reads as its article's title and its two sides, the perturbation named once."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from bias_core.common.records import CONTROL_ROLES, Document, Input
from bias_core.views.labels import arm_label


def _value_kind(item: Input) -> str | None:
    meta = item.extra.get("meta") if isinstance(item.extra, dict) else None
    return meta.get("value_kind") if isinstance(meta, dict) else None


def side_label(item: Input) -> str:
    """One input in words: "original" for the unchanged article; otherwise the perturbation, its arm in words and
    the sample ("race · arm b: every person's race inverted, sample 2"), with "within-group control" for a
    quadruple's second draw; the politician swap's sides name the politician, as written or swapped in."""
    if item.perturbation == "identity":
        return "original"
    sample = f", sample {item.sample_id}" if item.sample_id is not None else ""
    if item.perturbation == "politician" and item.arm:
        how = "as written" if item.role == "original" else "swapped in"
        return f"politician · {item.arm} {how}{sample}"
    arm = arm_label(item.perturbation, item.arm, _value_kind(item)) if item.arm else "no arm"
    control = ", within-group control" if item.role in CONTROL_ROLES else ""
    return f"{item.perturbation} · {arm}{sample}{control}"


def side_labels(items: Iterable[Input]) -> dict[str, str]:
    """``side_label`` by input id, made unique with the id where two inputs would read the same (Compare's links
    carry the label)."""
    items = list(items)
    labels = {item.id: side_label(item) for item in items}
    counts = Counter(labels.values())
    return {input_id: label if counts[label] == 1 else f"{label} ({input_id})" for input_id, label in labels.items()}


def original_title(original_id: str, documents: Iterable[Document] = (), inputs: Iterable[Input] = ()) -> str:
    """An original in words: its document's title (``meta['title']``, which its inputs also carry in
    ``extra['meta']``), else its id."""
    for document in documents:
        if document.id == original_id and str(document.meta.get("title") or "").strip():
            return str(document.meta["title"]).strip()
    for item in inputs:
        meta = item.extra.get("meta") if item.original_id == original_id and isinstance(item.extra, dict) else None
        if isinstance(meta, dict) and str(meta.get("title") or "").strip():
            return str(meta["title"]).strip()
    return original_id


def pair_label(a: Input, b: Input) -> str:
    """The two sides of a comparison in words, what they share named once: "gender-glob, sample 1 · all people women
    against all people men"; "sentiment, sample 0 · 20% against 50% of the reviews rated 1 star"."""
    label_a, label_b = side_label(a), side_label(b)
    prefix = f"{a.perturbation} · "
    if a.perturbation == b.perturbation and label_a.startswith(prefix) and label_b.startswith(prefix):
        side_a, side_b = label_a.removeprefix(prefix), label_b.removeprefix(prefix)
        sample = f", sample {a.sample_id}"
        if a.sample_id is not None and a.sample_id == b.sample_id and side_a.endswith(sample) \
                and side_b.endswith(sample):
            # One draw: its sample named once, and an ending both arms share ("… of the reviews rated 1 star") too.
            side_a, side_b = side_a.removesuffix(sample), side_b.removesuffix(sample)
            words_a, words_b = side_a.split(" "), side_b.split(" ")
            shared = 0
            while shared < min(len(words_a), len(words_b)) - 1 and words_a[-1 - shared] == words_b[-1 - shared]:
                shared += 1
            if shared >= 3:
                side_a = " ".join(words_a[:-shared])
            return f"{a.perturbation}, sample {a.sample_id} · {side_a} against {side_b}"
        return f"{prefix}{side_a} against {side_b}"
    return f"{label_a} against {label_b}"
