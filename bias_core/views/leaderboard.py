"""The Runs page's leaderboard: per measure, every run × summarizer on one perturbation with its estimate, 95%
interval, n and the verdict of the one significance rule (``judge``), closest to no bias first. Every cell is text a
person reads: the verdict in words ("cannot be computed", never "undefined"), a missing value as "—" (issue 29,
Why 7), its reason in ``MISSING_NOTE``."""

from __future__ import annotations

from collections.abc import Sequence

from bias_core.common.records import MeasureResult
from bias_core.verdicts.judge import judge
from bias_core.verdicts.semantics import primary_estimate, semantics, variant
from bias_core.verdicts.sentences import verdict_words

MISSING = "—"
MISSING_NOTE = ("— : no value — the measure cannot be computed on these data or there is too little data to state "
                "one (the verdict says which); under \"favoured\", the result is not a finding.")


def _number(value: float | None) -> str:
    return MISSING if value is None else f"{value:.3f}"


def leaderboard_row(run_label: str, result: MeasureResult, results: Sequence[MeasureResult]) -> dict[str, object]:
    """One row: the primary estimate with its 95% interval, n, the verdict of ``judge`` in words and whom a finding
    favours; a missing value reads "—"."""
    value, low, high = primary_estimate(result)
    verdict = judge(result, results, detectable=False)  # the row shows the status, not the detectable effect
    if verdict.status in ("not enough data", "undefined"):
        value = low = high = None  # too little data states no value, as the findings do
    name = semantics(result.measure).name or result.measure
    which = variant(result)
    return {
        "measure": name + (f" ({which})" if which else ""),  # e.g. a politician swap direction
        "run": run_label, "summarizer": result.summarizer or MISSING, "estimate": _number(value),
        "95% interval": MISSING if low is None or high is None else f"[{low:.3f}, {high:.3f}]", "n": result.n,
        "verdict": verdict_words(verdict.status),
        "favoured": (verdict.favoured or MISSING) if verdict.significant else MISSING,
        "distance from no bias": _number(None if value is None else abs(value - semantics(result.measure).null)),
    }


def leaderboard(runs: Sequence[tuple[str, Sequence[MeasureResult]]], perturbation: str) -> list[dict[str, object]]:
    """The rows of every (run label, results) on ``perturbation`` (Fightin' Words and s intervals left out), grouped
    by measure in the order they first appear and, within a measure, closest to no bias first, the rows without a
    value last."""
    rows: list[tuple[float, dict[str, object]]] = []
    for label, results in runs:
        for result in results:
            if result.perturbation == perturbation and result.measure != "fightin_words" and result.ci_kind != "s":
                row = leaderboard_row(label, result, results)
                distance = row["distance from no bias"]
                rows.append((float(distance) if distance != MISSING else float("inf"), row))
    order = {measure: i for i, measure in enumerate(dict.fromkeys(row["measure"] for _, row in rows))}
    return [row for _, row in sorted(rows, key=lambda pair: (order[pair[1]["measure"]], pair[0]))]
