"""Counterfactual inconsistency over quadruples: I_across, I_within, ΔI and Acc_Diff (METHODS §4.8; Counter-GAP §3).

A quadruple is (x_o, x_c, x̃_o, x̃_c): the original, its within-group control (names permuted inside the group) and
the two group-swapped instances (METHODS §1.3; Counter-GAP §2.2). The roles are called ``original``, ``control``,
``swap1`` and ``swap2`` (INTERFACES.md outcomes.csv). Any binary outcome f(x) works.

Decisions METHODS leaves open:
- I_across sums over all four cross-group pairs, so which swapped instance is x̃_o and which x̃_c does not matter.
- Acc_Diff = mean f over group-1 instances − mean f over group-2 instances, where the groups are the instances'
  own groups (Counter-GAP uses the target pronoun's gender). The order is ``group_order`` when given; otherwise
  (male, female) when those are the groups, matching Counter-GAP's Acc_M − Acc_F, else sorted order.
- The intervals are percentile bootstraps over quadruples, or over originals when the outcomes name their original
  (``Outcome.cluster``: summaries, where one article yields several correlated quadruples and the article is the
  unit of analysis, METHODS §5). The test of ΔI and of Acc_Diff (``details['test']``, issue 28) is a one-sample
  t-test over originals of each original's mean per-quadruple term, whose interval inverts it; Counter-GAP §4's
  one-sided paired bootstrap p (Graham et al. 2014) is not used: its p and the interval came from different
  resamplings (docs/fidelity.md).
- Incomplete quadruples (a role missing or repeated) are skipped and counted in ``details``; the breakdowns by
  group (within) and by direction (across, by the original's group: "M2F"/"F2M" in Counter-GAP Table 3) are in
  ``details`` too.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bias_core.common import stats
from bias_core.common.records import MeasureResult

logger = logging.getLogger(__name__)

QUADRUPLE_ROLES = ("original", "control", "swap1", "swap2")
QUADRUPLE_MEASURES = ("i_across", "i_within", "delta_i", "acc_diff")


@dataclass(frozen=True)
class Outcome:
    """One row of outcomes.csv: a binary outcome of one instance of a quadruple (INTERFACES.md)."""

    quadruple_id: str
    role: str
    group: str
    outcome: int
    cluster: str | None = None  # the original the quadruple comes from (the unit of resampling); None: itself


@dataclass(frozen=True)
class QuadrupleTable:
    """Complete quadruples as arrays: ``outcomes[q, r]`` and ``groups[q, r]`` for role r in QUADRUPLE_ROLES."""

    ids: list[str]
    outcomes: np.ndarray
    groups: np.ndarray
    skipped: dict[str, int]
    clusters: list[str]


def build_table(rows: Sequence[Outcome]) -> QuadrupleTable:
    """Return the complete quadruples of ``rows``; quadruples with a missing or repeated role are skipped."""
    by_quadruple: dict[str, dict[str, Outcome]] = {}
    repeated: set[str] = set()
    for row in rows:
        roles = by_quadruple.setdefault(row.quadruple_id, {})
        if row.role in roles:
            repeated.add(row.quadruple_id)
        roles[row.role] = row
    ids, outcomes, groups, clusters = [], [], [], []
    incomplete = 0
    for quadruple_id, roles in by_quadruple.items():
        if quadruple_id in repeated:
            continue
        if any(role not in roles for role in QUADRUPLE_ROLES):
            incomplete += 1
            continue
        ids.append(quadruple_id)
        cluster = roles[QUADRUPLE_ROLES[0]].cluster
        clusters.append(quadruple_id if cluster is None else str(cluster))
        outcomes.append([roles[role].outcome for role in QUADRUPLE_ROLES])
        groups.append([roles[role].group for role in QUADRUPLE_ROLES])
    skipped = {"missing_role": incomplete, "repeated_role": len(repeated)}
    if incomplete or repeated:
        logger.info("skipped %d incomplete and %d repeated quadruples", incomplete, len(repeated))
    return QuadrupleTable(ids, np.asarray(outcomes, dtype=float).reshape(-1, 4),
                          np.asarray(groups, dtype=object).reshape(-1, 4), skipped, clusters)


def default_group_order(groups: Sequence[str]) -> tuple[str, str]:
    """Return (group 1, group 2) for Acc_Diff: (male, female) when those are the groups, else sorted order."""
    present = sorted(set(groups))
    if set(present) == {"male", "female"}:
        return ("male", "female")
    if len(present) != 2:
        raise ValueError(f"Acc_Diff needs exactly two groups, found {len(present)}: {', '.join(present)}")
    return (present[0], present[1])


def _pair_terms(outcomes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-quadruple across (sum of 4 |differences|) and within (sum of 2 |differences|) inconsistency counts."""
    o, c, s1, s2 = outcomes.T
    across = np.abs(o - s1) + np.abs(c - s2) + np.abs(o - s2) + np.abs(c - s1)
    within = np.abs(o - c) + np.abs(s1 - s2)
    return across, within


def _result(measure, value, n, interval, details, reason=None, **labels) -> MeasureResult:
    return MeasureResult(measure=measure, value=value, n=n, ci_low=interval.low if interval else None,
                         ci_high=interval.high if interval else None, ci_kind=interval.kind if interval else None,
                         reason=reason, details=stats.json_ready(details), **labels)


def quadruple_inconsistency(
    rows: Sequence[Outcome],
    *,
    group_order: tuple[str, str] | None = None,
    n_resamples: int = stats.DEFAULT_RESAMPLES,
    seed: int = 0,
    perturbation: str | None = None,
    summarizer: str | None = None,
) -> list[MeasureResult]:
    """Return I_across, I_within, ΔI and Acc_Diff with d-bootstrap CIs over quadruples (METHODS §4.8).

    Values are fractions (Counter-GAP prints them ×100 as %). With no complete quadruple every value is nan with a
    reason.
    """
    table = build_table(rows)
    labels = {"perturbation": perturbation, "summarizer": summarizer}
    n = len(table.ids)
    base_details = {"skipped_quadruples": table.skipped, "unit": "fraction", "resampling": "quadruples (d)"}
    if n == 0:
        reason = "no complete quadruple (each needs original, control, swap1 and swap2)"
        return [_result(name, math.nan, 0, None, base_details, reason, **labels) for name in QUADRUPLE_MEASURES]

    across, within = _pair_terms(table.outcomes)
    all_groups = table.groups.ravel().tolist()
    try:
        first, second = group_order or default_group_order(all_groups)
    except ValueError as error:
        first = second = None
        group_error = str(error)
    in_first = (table.groups == first).astype(float)
    in_second = (table.groups == second).astype(float)
    # Per-quadruple counts; every statistic below is a ratio of pooled counts, so one weighted sum per resample.
    counts = np.column_stack([
        across, within, np.full(n, 4.0), np.full(n, 2.0),
        (table.outcomes * in_first).sum(axis=1), in_first.sum(axis=1),
        (table.outcomes * in_second).sum(axis=1), in_second.sum(axis=1),
    ])

    def i_across(p):
        return p[:, 0] / p[:, 2]

    def i_within(p):
        return p[:, 1] / p[:, 3]

    def delta(p):
        return i_across(p) - i_within(p)

    def acc_diff(p):
        return p[:, 4] / p[:, 5] - p[:, 6] / p[:, 7]

    pooled = counts.sum(axis=0, keepdims=True)
    ids = np.asarray(table.clusters)
    n_units = len(set(table.clusters))
    if n_units != n:
        base_details["resampling"] = "originals (d), all quadruples of an original together"
        base_details["n_quadruples"] = n
    results = []
    for name, function in (("i_across", i_across), ("i_within", i_within), ("delta_i", delta)):
        interval, _ = stats.pooled_bootstrap(counts, ids, function, kind="d",
                                                        n_resamples=n_resamples, seed=seed)
        details = {**base_details, "ci": interval.as_details(), **_breakdown(name, table, across, within)}
        if name == "delta_i":
            details["test"] = _test_over_originals(
                ids, across / 4.0 - within / 2.0, sided="greater",
                null="inclusion changes as often when a name moves across groups as within one (ΔI = 0)",
                floor="within-group swaps: I_within, the change when a name is swapped within its group",
                statistic="per quadruple: across changes / 4 − within changes / 2; per original the mean")
        results.append(_result(name, float(function(pooled)[0]), n_units, interval, details, **labels))

    if first is None:
        results.append(_result("acc_diff", math.nan, n, None, base_details, group_error, **labels))
        return results
    if pooled[0, 5] == 0 or pooled[0, 7] == 0:
        missing = first if pooled[0, 5] == 0 else second
        results.append(_result("acc_diff", math.nan, n, None, base_details,
                               f"no instance of group '{missing}'", **labels))
        return results
    interval, _ = stats.pooled_bootstrap(counts, ids, acc_diff, kind="d", n_resamples=n_resamples, seed=seed)
    value = float(acc_diff(pooled)[0])
    both = (counts[:, 5] > 0) & (counts[:, 7] > 0)
    per_quadruple = counts[both, 4] / counts[both, 5] - counts[both, 6] / counts[both, 7]
    details = {**base_details, "ci": interval.as_details(), "groups": [first, second],
               f"accuracy_{first}": float(pooled[0, 4] / pooled[0, 5]),
               f"accuracy_{second}": float(pooled[0, 6] / pooled[0, 7]),
               "test": _test_over_originals(
                   ids[both], per_quadruple, sided="two-sided",
                   null=f"{first} and {second} entities are included equally often (0)",
                   floor="paired: the same entities in both groups (quadruples)",
                   statistic=f"per quadruple: inclusion of its {first} instances − of its {second} instances; per "
                             "original the mean")}
    results.append(_result("acc_diff", value, n_units, interval, details, **labels))
    return results


def _test_over_originals(clusters: np.ndarray, values: np.ndarray, *, sided: str, null: str, floor: str,
                         statistic: str, largest: float = 1.0) -> dict:
    """A one-sample t-test over originals of the mean of ``values`` (one per quadruple) within each original, with the
    interval that inverts it (METHODS §5, issue 28: one procedure gives the interval and p; before, a percentile
    bootstrap of the pooled ratio gave both, anti-conservative at small n). Every value 0 is "no difference"."""
    per_original = [float(values[clusters == cluster].mean()) for cluster in dict.fromkeys(clusters.tolist())]
    return {"null": null, "floor": floor, "sided": sided, "statistic": statistic,
            "identical": bool(len(per_original) >= 2 and all(v == 0 for v in per_original)),
            **stats.t_test_fields(per_original, largest=largest)}


def _breakdown(name: str, table: QuadrupleTable, across: np.ndarray, within: np.ndarray) -> dict:
    """Counter-GAP Table 3 breakdowns: within-group inconsistency per group, across per original group."""
    if name == "i_within":
        out = {}
        o, c, s1, s2 = table.outcomes.T
        for group in sorted(set(table.groups.ravel().tolist())):
            terms = np.concatenate([np.abs(o - c)[table.groups[:, 0] == group],
                                    np.abs(s1 - s2)[table.groups[:, 2] == group]])
            out[f"within_{group}"] = float(terms.mean()) if terms.size else None
        return {"by_group": out}
    if name == "i_across":
        out = {}
        for group in sorted(set(table.groups[:, 0].tolist())):
            mask = table.groups[:, 0] == group
            out[f"from_{group}"] = float(across[mask].sum() / (4 * mask.sum()))
        return {"by_original_group": out}
    return {}
