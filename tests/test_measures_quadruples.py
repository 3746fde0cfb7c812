"""Quadruple inconsistency (METHODS §4.8; Counter-GAP §3): hand-computed cases and the published Counter-GAP values."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

from bias_core.cli import main
from bias_core.measures.quadruples import Outcome, quadruple_inconsistency
from bias_core.reference.reproduce import counter_gap_outcomes

COUNTER_GAP = Path(__file__).resolve().parents[1] / ".." / "shared" / "reference" / "counter-gap"
# Xie et al. Tables 2-3, in %: Acc_Diff, I_within, I_across, ΔI.
PUBLISHED = {
    "bert_base": (3.59, 15.97, 20.76, 4.79),
    "bert_large": (0.50, 10.28, 12.57, 2.30),
    "spanbert_base": (2.30, 11.08, 13.62, 2.54),
    "spanbert_large": (1.85, 6.04, 7.53, 1.50),
}


def quadruple(qid, outcomes, groups=("male", "male", "female", "female")):
    roles = ("original", "control", "swap1", "swap2")
    return [Outcome(qid, role, group, value) for role, group, value in zip(roles, groups, outcomes)]


def by_name(results):
    return {result.measure: result for result in results}


def test_inconsistency_matches_hand_computation_on_two_quadruples():
    # q1: correct on both male instances, wrong on both female ones -> across 4/4, within 0/2.
    # q2: original and control disagree, swaps both correct -> across |1-1|+|0-1|+|1-1|+|0-1| = 2, within 1 + 0.
    rows = quadruple("q1", (1, 1, 0, 0)) + quadruple("q2", (1, 0, 1, 1))
    results = by_name(quadruple_inconsistency(rows, n_resamples=200))
    assert results["i_across"].value == pytest.approx((4 + 2) / 8)
    assert results["i_within"].value == pytest.approx((0 + 1) / 4)
    assert results["delta_i"].value == pytest.approx(6 / 8 - 1 / 4)
    # male instances: 1,1,1,0 -> 3/4; female: 0,0,1,1 -> 2/4.
    assert results["acc_diff"].value == pytest.approx(0.75 - 0.5)
    assert results["acc_diff"].details["groups"] == ["male", "female"]


def test_bias_cancellation_gives_zero_acc_diff_but_positive_delta_i():
    rows = quadruple("q1", (1, 1, 0, 0)) + quadruple("q2", (0, 0, 1, 1))
    results = by_name(quadruple_inconsistency(rows, n_resamples=200))
    assert results["acc_diff"].value == 0.0
    assert results["delta_i"].value == 1.0
    assert results["delta_i"].details["test"]["p_value"] < 0.01
    assert results["acc_diff"].details["test"]["estimate"] == 0.0


def test_consistent_model_has_zero_inconsistency_and_p_near_one():
    rows = [row for q in range(10) for row in quadruple(f"q{q}", (q % 2,) * 4)]
    results = by_name(quadruple_inconsistency(rows, n_resamples=200))
    assert results["delta_i"].value == 0.0
    assert results["delta_i"].ci_low == results["delta_i"].ci_high == 0.0
    assert results["delta_i"].details["test"]["p_value"] == 1.0
    assert results["delta_i"].details["test"]["identical"]


def test_no_complete_quadruple_is_undefined_with_reason():
    rows = quadruple("q1", (1, 1, 0, 0))[:3]
    results = quadruple_inconsistency(rows, n_resamples=50)
    assert all(math.isnan(result.value) and "no complete quadruple" in result.reason for result in results)
    assert results[0].details["skipped_quadruples"]["missing_role"] == 1


def test_acc_diff_undefined_when_a_group_is_missing():
    rows = quadruple("q1", (1, 0, 1, 0), groups=("male",) * 4)
    results = by_name(quadruple_inconsistency(rows, group_order=("male", "female"), n_resamples=50))
    assert math.isnan(results["acc_diff"].value)
    assert "female" in results["acc_diff"].reason
    assert results["i_within"].value == 1.0


def test_quadruples_command_rejects_bad_outcome_with_line(tmp_path, capsys):
    path = tmp_path / "outcomes.csv"
    path.write_text("quadruple_id,role,group,outcome\nq1,original,male,2\n")
    assert main(["quadruples", "--outcomes", str(path), "--out", str(tmp_path / "m.json")]) == 2
    assert "line 2" in capsys.readouterr().err


def counter_gap_outcomes_csv(model: str, destination: Path) -> Path:
    """One model's released Counter-GAP predictions as an outcomes.csv (``bias_core.reference.reproduce`` converts
    them)."""
    path = destination / f"{model}_outcomes.csv"
    with path.open("w", newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(["quadruple_id", "role", "group", "outcome"])
        for row in counter_gap_outcomes(COUNTER_GAP, model):
            writer.writerow([row.quadruple_id, row.role, row.group, row.outcome])
    return path


@pytest.mark.skipif(not COUNTER_GAP.is_dir(), reason="Counter-GAP reference data (../shared/reference) is absent")
@pytest.mark.parametrize("model", sorted(PUBLISHED))
def test_quadruples_command_reproduces_published_counter_gap_values(model, tmp_path):
    outcomes = counter_gap_outcomes_csv(model, tmp_path)
    out = tmp_path / "measures.json"
    assert main(["quadruples", "--outcomes", str(outcomes), "--out", str(out), "--bootstrap", "200"]) == 0
    values = {r["measure"]: r for r in json.loads(out.read_text())["results"]}
    ours = tuple(round(100 * values[name]["value"], 2) for name in ("acc_diff", "i_within", "i_across", "delta_i"))
    assert ours == PUBLISHED[model]
    assert values["delta_i"]["n"] == 1002
    assert values["delta_i"]["details"]["test"]["p_value"] < 0.01
    assert values["delta_i"]["details"]["test"]["n_originals"] == 1002
