"""The measure families as Metrics shows them (issue 29, Why 5): the family it opens on (the one with the Overview's
most significant finding) and each family's intro, saying where "no bias" sits in each of its units — the value
at which its charts draw their dotted line (``bias_core.views.scales.NO_BIAS``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bias_core.verdicts.findings import Finding
from bias_core.verdicts.semantics import plain_name, semantics
from bias_core.views.scales import NoBias, no_bias


def opening_family(findings: Sequence[Finding], families: Sequence[str]) -> str | None:
    """The family among ``families`` with the most significant finding of ``findings`` (the Overview's rows of
    ``bias_core.verdicts.findings.findings``: strongest evidence, i.e. smallest Holm p, first), or None when no
    family shown has a finding. A finding of a perturbation test comes before one on the unchanged articles, as the
    Overview's answers put it first (``summarizer_answers``)."""
    found = [f for f in findings if f.verdict.significant and f.family in families]
    tested = [f for f in found if f.perturbation not in ("identity", "—", None)]
    return max(tested or found, key=lambda f: f.strength).family if found else None


def family_intro(family: str, measures: Iterable[str]) -> list[str]:
    """Where no bias sits in each unit of ``family``'s ``measures``, one line per unit, at the value its charts draw
    their dotted line: ["entity inclusion — an odds ratio: 1 means both groups are kept equally often"]. Measures
    sharing a unit share a line; none for a family without measures."""
    by_scale: dict[NoBias, list[str]] = {}
    for measure in measures:
        if semantics(measure).family == family:
            by_scale.setdefault(no_bias(measure), []).append(plain_name(measure))
    return [f"{_names(names)} — {scale.words}" for scale, names in by_scale.items()]


def _names(names: list[str]) -> str:
    """Measure names joined, a shared stem said once: "distinguishability (word counts and embeddings)", not
    "distinguishability (word counts) and distinguishability (embeddings)"."""
    stems = {name.partition(" (")[0] for name in names}
    if len(names) > 1 and len(stems) == 1 and all(name.endswith(")") and " (" in name for name in names):
        qualifiers = [name.partition(" (")[2][:-1] for name in names]
        return f"{stems.pop()} ({_and(qualifiers)})"
    return _and(names)


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"
