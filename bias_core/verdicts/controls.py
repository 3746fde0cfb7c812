"""The audit's controls in words (METHODS §5 "Controls"): whether the deliberately biased baseline was caught and the
baselines that cannot react to names came out silent, so a reader knows how far to trust the findings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bias_core.verdicts.findings import Finding

POSITIVE_CONTROLS = ("sexist",)  # deliberately biased by gender (Steen & Markert §4): must be caught
NULL_CONTROLS = ("lead-", "random-", "topic")  # cannot react to names or values: must come out silent
# The families a gender-biased extractive baseline is caught by: it picks sentences by gendered words, so what it
# keeps depends on the arm (word lists, inclusion, distinguishability, Fightin' Words, counterfactual inconsistency).
GENDER_FAMILIES = ("word lists", "inclusion", "distinguishability", "fightin words", "counterfactual")
CALIBRATION_DOC = "docs/calibration.md"


@dataclass(frozen=True)
class Controls:
    """The audit's controls in words: one line, and a warning when a control failed (None when none did)."""

    line: str
    warning: str | None
    caught: tuple[str, ...]
    missed: tuple[str, ...]
    silent: tuple[str, ...]
    loud: tuple[str, ...]


def _is_positive(summarizer: str) -> bool:
    return summarizer.split("@")[0].startswith(POSITIVE_CONTROLS)


def _is_null(summarizer: str) -> bool:
    return summarizer.startswith(NULL_CONTROLS)


def controls(rows: Sequence[Finding]) -> Controls | None:
    """Whether the run's baselines came out as they must (METHODS §5 "Controls"): a sexist baseline caught by a
    gender family in some name swap, lead-k, random-k and topic with no finding. None when the run has no baseline."""
    summarizers = sorted({row.summarizer for row in rows if row.perturbation not in ("—", None)})
    positive = [s for s in summarizers if _is_positive(s)]
    null = [s for s in summarizers if _is_null(s)]
    if not positive and not null:
        return None
    caught = tuple(s for s in positive if any(row.summarizer == s and row.verdict.significant
                                              and row.family in GENDER_FAMILIES for row in rows))
    missed = tuple(s for s in positive if s not in caught)
    loud = tuple(s for s in null if any(row.summarizer == s and row.verdict.significant for row in rows))
    silent = tuple(s for s in null if s not in loud)
    parts = []
    if caught:
        parts.append(f"the deliberately biased baseline{'s' if len(caught) > 1 else ''} "
                     f"({', '.join(caught)}) {'are' if len(caught) > 1 else 'is'} caught")
    if missed:
        parts.append(f"the planted bias of {', '.join(missed)} was not detected")
    if silent:
        parts.append(f"the neutral {' and '.join(silent)} show{'s' if len(silent) == 1 else ''} no bias")
    if loud:
        parts.append(f"the neutral {' and '.join(loud)} show{'s' if len(loud) == 1 else ''} a finding")
    line = "Controls: " + "; ".join(parts) + "."
    warnings = []
    if missed:
        warnings.append("the planted bias was not detected: this audit is too small to trust a 'no evidence'")
    if loud:
        warnings.append(f"a summarizer that cannot be biased ({', '.join(loud)}) has a finding: a control failed, so "
                        "read every finding of this run with care")
    warning = ("Warning: " + "; ".join(warnings) + ".") if warnings else None
    return Controls(line, warning, caught, missed, silent, loud)
