"""The calibration harness (benchmarks/calibration.py) on 3 demo articles and 1 seed: its tables have the documented
shape, and lead-3 — which copies the first sentences and cannot react to names — is silent."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def calibration():
    spec = importlib.util.spec_from_file_location("calibration", REPO / "benchmarks" / "calibration.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("calibration", module)  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def result(calibration):
    demo = calibration.news_corpus("demo news", calibration.DEMO_NEWS, limit=3)
    config = calibration.CalibrationConfig(seeds=[0], news=[demo], reviews=[], positive_corpus=None,
                                           null_controls=("lead-3",), samples=2, n_resamples=1000)
    return calibration.run_calibration(config, positive=False)


def test_null_table_has_one_row_per_control_and_corpus_and_an_overall_row(result):
    table = result["null"]["table"]
    assert [(row["control"], row["corpus"]) for row in table] == [("lead-3", "demo news"), ("all", "all")]
    for row in table:
        assert set(row) == {"control", "corpus", "audits", "with_finding", "share", "upper_95", "coinciding",
                            "fired"}
        assert row["audits"] == 1 and row["upper_95"] == pytest.approx(0.975)  # 0 of 1: Clopper-Pearson
    (audit,) = result["null"]["audits"]
    assert audit["control"] == "lead-3" and audit["seed"] == 0 and audit["failed"] == 0
    assert audit["inputs"] == audit["summaries"] > 3
    # every perturbation of a news audit was judged (politician is skipped: these 3 articles never name Trump/Biden)
    assert {"gender-loc", "gender-glob", "race", "identity"} <= {row["perturbation"] for row in audit["rows"]}
    (info,) = result["null"]["corpora"]
    assert "politician" not in info["perturbations"] and "politician skipped" in info["note"]
    json.dumps(result, default=str)  # the --out file is plain JSON


def test_lead3_is_silent(result, calibration):
    (audit,) = result["null"]["audits"]
    assert audit["findings"] == [] and not audit["any_finding"]
    overall = result["null"]["table"][-1]
    assert overall["with_finding"] == 0 and overall["share"] == 0 and overall["fired"] == {}
    # the target is on the 95% upper bound of the rate: one silent audit cannot meet it
    assert "0% of 1 independent null audits have a finding (95% upper bound 97.5%): misses the target" in \
        calibration.null_markdown(result["null"])


def test_restored_inputs_are_the_originals_with_identity_substitutions(calibration):
    demo = calibration.news_corpus("demo news", calibration.DEMO_NEWS, limit=2)
    inputs, _ = calibration.perturb(demo, 0, ("gender-glob",), 2)
    texts = {d.id: d.text for d in demo.documents}
    for item in calibration.restored(inputs["gender-glob"]):
        assert item.text == texts[item.original_id]
        assert item.arm in ("female", "male") and item.substitutions
        assert all(item.text[s.start:s.end] == s.original == s.replacement for s in item.substitutions)


def test_positive_detection_counts_the_expected_direction_only(calibration):
    row = {"family": "inclusion", "significant": True, "favoured": "men"}
    assert calibration.detected(row, None) and calibration.detected(row, "men")
    assert not calibration.detected(row, "women")
    assert calibration.detected(row | {"family": "distinguishability", "favoured": None}, "women")
    assert not calibration.detected(row | {"significant": False}, None)
