"""`python -m bias_core measure` over hand-made inputs and summaries of every perturbation (INTERFACES.md)."""

from __future__ import annotations

import json

import pytest

from bias_core.cli import main
from bias_core.common.records import Entity, Input, Substitution, Summary, Unit
from bias_core.documents.record_files import write_jsonl
from bias_core.measures import MEASURE_NAMES

ARTICLE = ("Linda Moore won the city council seat on Tuesday. She thanked her volunteers. John Smith, her rival, "
           "called the result a disgraceful sham. He said his campaign would continue. Turnout was low.")
SENTENCES = ["Linda Moore won the city council seat on Tuesday.", "She thanked her volunteers.",
             "John Smith, her rival, called the result a disgraceful sham.", "He said his campaign would continue.",
             "Turnout was low."]


def loc_inputs():
    """One original, two samples; each sample is a quadruple (original/control/swap1/swap2)."""
    inputs = []
    for sample in range(2):
        for role, arm, female_first, male_first in (("original", "a", "Linda", "John"),
                                                    ("control", "a", "Mary", "James"),
                                                    ("swap1", "b", "Linda", "John"),
                                                    ("swap2", "b", "Mary", "James")):
            groups = ("female", "male") if arm == "a" else ("male", "female")
            first_e1 = female_first if arm == "a" else male_first
            first_e2 = male_first if arm == "a" else female_first
            text = ARTICLE.replace("Linda", "{e1}").replace("John", "{e2}").format(e1=first_e1, e2=first_e2)
            inputs.append(Input(
                id=f"d1/loc/s{sample}/{role}", original_id="d1", sample_id=sample, perturbation="gender-loc",
                arm=arm, role=role, quadruple_id=f"d1/s{sample}", text=text,
                entities=[Entity("e1", groups[0], first_e1, "Moore"), Entity("e2", groups[1], first_e2, "Smith")]))
    return inputs


def glob_inputs():
    inputs = []
    for index, group in enumerate(("female", "female", "male", "male")):
        first = "Linda" if group == "female" else "John"
        inputs.append(Input(id=f"d1/glob/{index}", original_id="d1", sample_id=index, perturbation="gender-glob",
                            arm=group, text=ARTICLE, entities=[Entity("e1", group, first, "Moore")]))
    return inputs


def sentiment_inputs():
    units = [Unit("The food was delicious.", "pos"), Unit("The service was terrible.", "neg")]
    return [Input(id=f"r{i}/sent", original_id=f"r{i}", perturbation="sentiment", arm="0.5",
                  text=" || ".join(u.text for u in units), units=units) for i in range(3)]


def politician_inputs():
    text = "Donald Trump spoke in Ohio. Republicans cheered."
    original = Input(id="p1/orig", original_id="p1", sample_id=0, perturbation="politician", role="original",
                     arm="Donald Trump", text=text, extra={"pair": "Donald Trump=Joe Biden"})
    swapped = Input(id="p1/swap", original_id="p1", sample_id=0, perturbation="politician", role="swap1",
                    arm="Joe Biden", text=text.replace("Donald Trump", "Joe Biden"),
                    substitutions=[Substitution(0, 9, "Donald Trump", "Joe Biden", "politician_name", "politician")],
                    extra={"pair": "Donald Trump=Joe Biden"})
    return [original, swapped]


def summaries_for(inputs):
    out = []
    for item in inputs:
        if item.units:
            out.append(Summary(item.id, "lead-3", "Delicious food."))
            continue
        first = item.text.split(".")[0] + "."
        scores = [5.0, 4.0, 3.0, 2.0, 1.0]
        if item.perturbation in ("gender-loc", "gender-glob"):
            out.append(Summary(item.id, "lead-3", first, sentences=list(SENTENCES), sentence_scores=scores))
        else:
            out.append(Summary(item.id, "lead-3", first))
    return out


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    folder = tmp_path_factory.mktemp("measure")
    inputs = loc_inputs() + glob_inputs() + sentiment_inputs() + politician_inputs()
    write_jsonl(folder / "inputs.jsonl", inputs)
    write_jsonl(folder / "summaries.jsonl", summaries_for(inputs))
    out = folder / "measures.json"
    code = main(["measure", "--inputs", str(folder / "inputs.jsonl"), "--summaries",
                 str(folder / "summaries.jsonl"), "--out", str(out), "--bootstrap", "50", "--seed", "3"])
    return code, json.loads(out.read_text())["results"], folder


def test_measure_command_covers_every_measure(measured):
    code, results, _ = measured
    assert code == 0
    assert {r["measure"] for r in results} == set(MEASURE_NAMES)


def test_results_with_two_intervals_appear_once_per_ci_kind(measured):
    _, results, _ = measured
    kinds = sorted(r["ci_kind"] for r in results if r["measure"] == "entity_inclusion")
    assert kinds == ["d", "s"]
    assert all(r["summarizer"] == "lead-3" for r in results if r["measure"] != "sfpi")


def test_entity_inclusion_of_a_lead_summarizer_is_zero(measured):
    _, results, _ = measured
    inclusion = next(r for r in results if r["measure"] == "entity_inclusion")
    # e1 (first sentence) is always included, e2 never: p_female = p_male = 1/2 in every pair
    assert inclusion["value"] == 0.0 and inclusion["details"]["p"] == {"female": 0.5, "male": 0.5}


def test_quadruples_from_summaries_have_no_inconsistency_for_a_lead_summarizer(measured):
    _, results, _ = measured
    delta = next(r for r in results if r["measure"] == "delta_i")
    test = delta["details"]["test"]  # the verdict's test: a t-test over originals, exactly 0 in every one
    assert delta["value"] == 0.0 and test["per_original"] and set(test["per_original"]) == {0.0}


def test_undefined_values_are_null_with_reason(measured):
    _, results, _ = measured
    for result in results:
        if result["value"] is None:
            assert result["reason"]


def test_requested_measure_without_matching_inputs_is_null_with_reason(tmp_path):
    inputs = sentiment_inputs()
    write_jsonl(tmp_path / "inputs.jsonl", inputs)
    write_jsonl(tmp_path / "summaries.jsonl", summaries_for(inputs))
    out = tmp_path / "m.json"
    assert main(["measure", "--inputs", str(tmp_path / "inputs.jsonl"), "--summaries",
                 str(tmp_path / "summaries.jsonl"), "--out", str(out), "--measure", "entity_inclusion",
                 "--measure", "bur", "--bootstrap", "20"]) == 0
    results = {r["measure"]: r for r in json.loads(out.read_text())["results"]}
    assert results["entity_inclusion"]["value"] is None
    assert "gender-loc" in results["entity_inclusion"]["reason"]
    assert results["bur"]["value"] is not None


def test_measure_command_rejects_summaries_of_unknown_inputs(tmp_path, capsys):
    write_jsonl(tmp_path / "inputs.jsonl", sentiment_inputs())
    write_jsonl(tmp_path / "summaries.jsonl", [Summary("nope", "lead-3", "x")])
    assert main(["measure", "--inputs", str(tmp_path / "inputs.jsonl"), "--summaries",
                 str(tmp_path / "summaries.jsonl"), "--out", str(tmp_path / "m.json")]) == 2
    assert "no summary refers to an input" in capsys.readouterr().err
