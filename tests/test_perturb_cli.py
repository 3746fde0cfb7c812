"""`python -m bias_core perturb` (INTERFACES.md "Command line"), the registry and the identity perturbation."""

from __future__ import annotations

import json

import pytest

from bias_core.cli import main
from bias_core.common.records import PERTURBATIONS as INTERFACE_NAMES
from bias_core.common.records import Document, Unit
from bias_core.documents.record_files import read_inputs
from bias_core.perturb import PERTURBATIONS, get_perturbation
from tests.fixtures.perturb.corpus import DEMO_NEWS, DEMO_REVIEWS, HERE


def test_every_interfaces_perturbation_name_is_registered():
    assert set(PERTURBATIONS) == set(INTERFACE_NAMES)
    with pytest.raises(ValueError, match="unknown perturbation"):
        get_perturbation("dialect")


def test_identity_keeps_every_original_unchanged_with_optional_repeats():
    documents = [Document(id="n", text="Some news.", meta={"date": "2021-01-05"}),
                 Document(id="r", units=[Unit("Great.", "pos"), Unit("Bad.", "neg")])]
    result = get_perturbation("identity", repeats=2).run(documents)
    assert [item.id for item in result.inputs] == ["n/identity", "n/identity/s1", "r/identity", "r/identity/s1"]
    assert [item.text for item in result.inputs] == ["Some news.", "Some news.", "Great. || Bad.", "Great. || Bad."]
    assert result.inputs[0].extra["meta"] == {"date": "2021-01-05"} and result.inputs[0].role == "identity"


def test_cli_writes_inputs_skip_report_and_run_record(tmp_path, capsys):
    out = tmp_path / "inputs.jsonl"
    code = main(["perturb", "--kind", "gender-loc", "--documents", str(DEMO_NEWS), "--out", str(out),
                 "--samples", "2", "--seed", "5", "--controls"])
    assert code == 0
    inputs = read_inputs(out)
    assert inputs and all(item.perturbation == "gender-loc" and item.role for item in inputs)
    assert inputs[0].id.endswith("/gender-loc/s0/a") and inputs[0].quadruple_id == inputs[0].id.rsplit("/", 1)[0]
    skips = json.loads((tmp_path / "inputs.jsonl.skips.json").read_text())
    assert skips["n_originals"] == 16 and skips["n_skipped"] == len(skips["skipped"]) == 1
    run = json.loads((tmp_path / "inputs.jsonl.run.json").read_text())
    assert run["perturbation"] == "gender-loc" and run["config"]["seed"] == 5 and "first/male" in run["names"]
    stderr = capsys.readouterr().err
    assert "1 of 16 originals skipped" in stderr and "no gendered entity" in stderr


def test_cli_politician_pairs_and_sentiment_options(tmp_path):
    articles = HERE
    out = tmp_path / "pol.jsonl"
    assert main(["perturb", "--kind", "politician", "--documents", str(articles), "--out", str(out),
                 "--pair", "Donald Trump=Joe Biden"]) == 0
    assert {item.arm for item in read_inputs(out)} == {"Donald Trump", "Joe Biden"}
    out = tmp_path / "sent.jsonl"
    assert main(["perturb", "--kind", "sentiment", "--documents", str(DEMO_REVIEWS), "--out", str(out),
                 "--value-source", "vader", "--ratios", "0.5", "--units-per-input", "4"]) == 0
    assert all(item.extra["achieved_ratio"] == 0.5 for item in read_inputs(out))


def test_cli_rejects_options_the_perturbation_does_not_have(tmp_path, capsys):
    code = main(["perturb", "--kind", "politician", "--documents", str(DEMO_NEWS), "--out",
                 str(tmp_path / "x.jsonl"), "--controls"])
    assert code == 2
    assert "--controls does not apply to --kind politician" in capsys.readouterr().err


def test_cli_reports_bad_values_and_unperturbable_corpora(tmp_path, capsys):
    assert main(["perturb", "--kind", "sentiment", "--documents", str(DEMO_REVIEWS), "--out",
                 str(tmp_path / "x.jsonl"), "--ratios", "1.5"]) == 2
    assert "ratios must be shares" in capsys.readouterr().err
    assert main(["perturb", "--kind", "sentiment", "--documents", str(DEMO_NEWS), "--out",
                 str(tmp_path / "y.jsonl")]) == 2
    assert "no document could be perturbed" in capsys.readouterr().err
