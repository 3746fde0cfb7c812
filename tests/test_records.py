"""Records (bias_core/common/records.py): lossless, validated conversion to and from the JSON objects of
INTERFACES.md."""

from __future__ import annotations

import copy
import json
import math

import pytest

from bias_core.common.records import (
    ROLES,
    SUBSTITUTION_KINDS,
    UNIT_SEPARATOR,
    Document,
    Entity,
    Input,
    MeasureResult,
    RecordError,
    Substitution,
    Summary,
    Unit,
    undo_substitutions,
)

# ---------------------------------------------------------------------------------------------------------------
# The examples of INTERFACES.md, made concrete (the "..." texts filled in so that the substitution map holds).
# ---------------------------------------------------------------------------------------------------------------

ORIGINAL_TEXT = "Yesterday Robert Moore said that Robert would run again."
PERTURBED_TEXT = "Yesterday Linda Moore said that Linda would run again."

NEWS_DOCUMENT = {
    "id": "doc7",
    "text": ORIGINAL_TEXT,
    "meta": {"date": "2021-03-04", "source": "Daily Planet", "title": "Moore to run again"},
}

PERSPECTIVE_DOCUMENT = {
    "id": "hotel-12",
    "units": [{"text": "Great room, friendly staff.", "value": "pos"}, {"text": "Noisy at night.", "value": "neg"}],
    "meta": {"source": "reviews"},
}

INPUT_EXAMPLE = {
    "id": "doc7/gender-loc/s3/a",
    "original_id": "doc7",
    "sample_id": 3,
    "perturbation": "gender-loc",
    "arm": "a",
    "role": "swap1",
    "quadruple_id": "doc7/s3",
    "text": PERTURBED_TEXT,
    "entities": [
        {
            "entity_id": "e1",
            "group": "female",
            "first_name": "Linda",
            "last_name": "Moore",
            "original_first_name": "Robert",
            "original_last_name": "Moore",
        }
    ],
    "substitutions": [
        {"start": 10, "end": 15, "original": "Robert", "replacement": "Linda", "entity_id": "e1", "kind": "first_name"},
        {"start": 32, "end": 37, "original": "Robert", "replacement": "Linda", "entity_id": "e1", "kind": "first_name"},
    ],
    "units": [{"text": "...", "value": "pos"}],
}

SUMMARY_EXTRACTIVE = {
    "input_id": "doc7/gender-loc/s3/a",
    "summarizer": "textrank",
    "text": "Yesterday Linda Moore said that Linda would run again.",
    "sentences": ["Yesterday Linda Moore said that Linda would run again.", "She declined to comment."],
    "sentence_scores": [0.75, 0.25],
    "meta": {"model": "textrank", "revision": None, "parameters": {"k": 1}, "seconds": 0.004},
}

SUMMARY_ABSTRACTIVE = {"input_id": "doc7/identity", "summarizer": "hf:t5-small", "text": "Moore will run again."}

MEASURES_EXAMPLE = {
    "results": [
        {
            "measure": "entity_inclusion",
            "perturbation": "gender-loc",
            "summarizer": "lead-3",
            "value": 0.12,
            "ci_low": 0.01,
            "ci_high": 0.25,
            "ci_kind": "d",
            "n": 683,
            "reason": None,
            "details": {"favoured": "male"},
        }
    ]
}


def json_round_trip(obj):
    return json.loads(json.dumps(obj, allow_nan=False))


# ---------------------------------------------------------------------------------------------------------------
# Lossless round trips of the documented examples
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("record_type", "example"),
    [
        pytest.param(Document, NEWS_DOCUMENT, id="document-news"),
        pytest.param(Document, PERSPECTIVE_DOCUMENT, id="document-perspective"),
        pytest.param(Input, INPUT_EXAMPLE, id="input"),
        pytest.param(Summary, SUMMARY_EXTRACTIVE, id="summary-extractive"),
        pytest.param(Summary, SUMMARY_ABSTRACTIVE, id="summary-abstractive"),
        pytest.param(MeasureResult, MEASURES_EXAMPLE["results"][0], id="measure"),
    ],
)
def test_interfaces_example_round_trips_losslessly(record_type, example):
    original = copy.deepcopy(example)
    record = record_type.from_dict(example)
    assert record.to_dict() == original
    assert example == original, "from_dict must not mutate its input"


@pytest.mark.parametrize(
    ("record_type", "example"),
    [
        pytest.param(Document, NEWS_DOCUMENT, id="document-news"),
        pytest.param(Document, PERSPECTIVE_DOCUMENT, id="document-perspective"),
        pytest.param(Input, INPUT_EXAMPLE, id="input"),
        pytest.param(Summary, SUMMARY_EXTRACTIVE, id="summary"),
        pytest.param(MeasureResult, MEASURES_EXAMPLE["results"][0], id="measure"),
    ],
)
def test_interfaces_example_survives_json_serialisation(record_type, example):
    record = record_type.from_dict(json_round_trip(example))
    again = record_type.from_dict(json_round_trip(record.to_dict()))
    assert again == record
    assert again.to_dict() == example


def test_input_example_parses_into_typed_fields():
    record = Input.from_dict(INPUT_EXAMPLE)
    assert record.sample_id == 3 and record.role == "swap1" and record.quadruple_id == "doc7/s3"
    assert record.entities == [Entity("e1", "female", "Linda", "Moore", "Robert", "Moore")]
    assert record.substitutions[0] == Substitution(10, 15, "Robert", "Linda", "first_name", "e1")
    assert record.units == [Unit("...", "pos")]
    assert record.extra == {}


def test_measures_example_parses_into_typed_fields():
    result = MeasureResult.from_dict(MEASURES_EXAMPLE["results"][0])
    assert result.value == 0.12 and result.n == 683 and result.ci_kind == "d"
    assert result.details == {"favoured": "male"}
    assert result.is_defined


def test_summary_example_parses_scores_as_floats():
    summary = Summary.from_dict({**SUMMARY_EXTRACTIVE, "sentence_scores": [1, 0]})
    assert summary.sentence_scores == [1.0, 0.0]
    assert all(isinstance(score, float) for score in summary.sentence_scores)


# ---------------------------------------------------------------------------------------------------------------
# Extra fields are kept at every level
# ---------------------------------------------------------------------------------------------------------------


def test_document_extras_are_preserved_at_document_and_unit_level():
    data = {
        "id": "hotel-12",
        "units": [{"text": "Nice.", "value": "pos", "stars": 5, "author": {"name": "x"}}],
        "meta": {"source": "reviews"},
        "license": "cc-by",
        "tags": ["a", "b"],
    }
    document = Document.from_dict(data)
    assert document.extra == {"license": "cc-by", "tags": ["a", "b"]}
    assert document.units[0].extra == {"stars": 5, "author": {"name": "x"}}
    assert document.to_dict() == data
    assert Document.from_dict(json_round_trip(document.to_dict())).to_dict() == data


def test_input_extras_are_preserved_at_input_entity_substitution_and_unit_level():
    data = copy.deepcopy(INPUT_EXAMPLE)
    data["pipeline"] = {"version": 2}
    data["entities"][0]["mentions"] = 2
    data["substitutions"][0]["confidence"] = 0.9
    data["units"][0]["stars"] = 4
    record = Input.from_dict(data)
    assert record.extra == {"pipeline": {"version": 2}}
    assert record.entities[0].extra == {"mentions": 2}
    assert record.substitutions[0].extra == {"confidence": 0.9}
    assert record.substitutions[1].extra == {}
    assert record.units[0].extra == {"stars": 4}
    assert record.to_dict() == data
    assert Input.from_dict(json_round_trip(record.to_dict())).to_dict() == data


def test_summary_extras_are_preserved():
    data = {**SUMMARY_EXTRACTIVE, "cost_usd": 0.002, "finish_reason": "stop"}
    summary = Summary.from_dict(data)
    assert summary.extra == {"cost_usd": 0.002, "finish_reason": "stop"}
    assert summary.to_dict() == data


def test_measure_extras_are_preserved():
    data = {**MEASURES_EXAMPLE["results"][0], "bootstrap": 1000, "seed": 7}
    result = MeasureResult.from_dict(data)
    assert result.extra == {"bootstrap": 1000, "seed": 7}
    assert result.to_dict() == data


def test_extras_never_shadow_known_fields():
    document = Document.from_dict({"id": "d", "text": "t", "x": 1})
    assert set(document.extra) == {"x"}
    entity = Entity.from_dict({"entity_id": "e1", "group": "male", "note": "n"})
    assert entity.extra == {"note": "n"}


# ---------------------------------------------------------------------------------------------------------------
# Omitted optional fields and coercions
# ---------------------------------------------------------------------------------------------------------------


def test_optional_fields_that_are_absent_are_not_written():
    assert Document.from_dict({"id": "d", "text": "t"}).to_dict() == {"id": "d", "text": "t"}
    assert Unit.from_dict({"text": "u"}).to_dict() == {"text": "u"}
    assert Entity.from_dict({"entity_id": "e1"}).to_dict() == {"entity_id": "e1"}
    minimal_sub = {"start": 0, "end": 1, "original": "A", "replacement": "B", "kind": "title"}
    assert Substitution.from_dict(minimal_sub).to_dict() == minimal_sub
    assert Summary.from_dict(SUMMARY_ABSTRACTIVE).to_dict() == SUMMARY_ABSTRACTIVE


def test_minimal_input_gets_identity_defaults_and_empty_maps():
    record = Input.from_dict({"id": "d/identity", "original_id": "d", "text": "t"})
    assert record.perturbation == "identity"
    assert record.entities == [] and record.substitutions == [] and record.units is None
    assert record.to_dict() == {
        "id": "d/identity",
        "original_id": "d",
        "perturbation": "identity",
        "text": "t",
        "entities": [],
        "substitutions": [],
    }


def test_integer_ids_and_unit_values_are_read_as_strings():
    document = Document.from_dict({"id": 7, "units": [{"text": "Fine.", "value": 4}]})
    assert document.id == "7"
    assert document.units[0].value == "4"
    record = Input.from_dict({"id": 1, "original_id": 2, "text": "t", "entities": [{"entity_id": 3}]})
    assert (record.id, record.original_id, record.entities[0].entity_id) == ("1", "2", "3")
    assert Summary.from_dict({"input_id": 5, "summarizer": "s", "text": "t"}).input_id == "5"


# ---------------------------------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------------------------------


def test_document_with_neither_text_nor_units_is_rejected():
    with pytest.raises(RecordError, match="exactly one of 'text' or 'units'"):
        Document.from_dict({"id": "d"})


def test_document_with_both_text_and_units_is_rejected():
    with pytest.raises(RecordError, match="exactly one of 'text' or 'units'"):
        Document.from_dict({"id": "d", "text": "t", "units": [{"text": "u"}]})
    with pytest.raises(RecordError):
        Document(id="d", text="t", units=[Unit("u")])


@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param({"text": "t"}, "missing the required field 'id'", id="no-id"),
        pytest.param({"id": 1.5, "text": "t"}, "field 'id' must be str or int", id="float-id"),
        pytest.param({"id": "d", "text": 3}, "field 'text' must be str", id="text-not-str"),
        pytest.param({"id": "d", "units": "u"}, "'units' must be a list", id="units-not-list"),
        pytest.param({"id": "d", "units": [{"value": "pos"}]}, "unit is missing the required field 'text'", id="unit"),
        pytest.param({"id": "d", "units": ["just text"]}, "unit must be a JSON object", id="unit-not-object"),
        pytest.param({"id": "d", "text": "t", "meta": []}, "field 'meta' must be dict", id="meta-not-dict"),
        pytest.param(["d", "t"], "must be a JSON object", id="not-an-object"),
    ],
)
def test_malformed_document_is_rejected_with_record_error(data, message):
    with pytest.raises(RecordError, match=message):
        Document.from_dict(data)


@pytest.mark.parametrize("kind", ["first-name", "name", "", "FIRST_NAME"])
def test_substitution_with_unknown_kind_is_rejected(kind):
    with pytest.raises(RecordError, match="is not one of"):
        Substitution(0, 1, "a", "b", kind)
    with pytest.raises(RecordError, match="is not one of"):
        Substitution.from_dict({"start": 0, "end": 1, "original": "a", "replacement": "b", "kind": kind})


@pytest.mark.parametrize("kind", SUBSTITUTION_KINDS)
def test_every_documented_substitution_kind_is_accepted(kind):
    assert Substitution(0, 1, "a", "b", kind).kind == kind


@pytest.mark.parametrize(("start", "end"), [(-1, 2), (5, 4)])
def test_substitution_with_invalid_span_is_rejected(start, end):
    with pytest.raises(RecordError, match="not a valid range"):
        Substitution(start, end, "a", "b", "pronoun")


@pytest.mark.parametrize(
    "data",
    [
        pytest.param({"start": "0", "end": 1, "original": "a", "replacement": "b", "kind": "title"}, id="str-start"),
        pytest.param({"start": True, "end": 1, "original": "a", "replacement": "b", "kind": "title"}, id="bool-start"),
        pytest.param({"start": 0, "end": 1, "original": "a", "kind": "title"}, id="no-replacement"),
        pytest.param({"start": 0, "end": 1, "original": "a", "replacement": "b"}, id="no-kind"),
        pytest.param("0-1", id="not-an-object"),
    ],
)
def test_malformed_substitution_is_rejected_with_record_error(data):
    with pytest.raises(RecordError):
        Substitution.from_dict(data)


@pytest.mark.parametrize("role", ["swap3", "Original", "treatment"])
def test_input_with_unknown_role_is_rejected(role):
    with pytest.raises(RecordError, match=f"role '{role}'"):
        Input.from_dict({**INPUT_EXAMPLE, "role": role})
    with pytest.raises(RecordError):
        Input(id="i", original_id="d", text="t", role=role)


@pytest.mark.parametrize("role", ROLES)
def test_every_documented_role_is_accepted(role):
    assert Input.from_dict({**INPUT_EXAMPLE, "role": role}).role == role


@pytest.mark.parametrize(
    ("field_name", "value", "message"),
    [
        ("entities", {"entity_id": "e1"}, "'entities' must be a list"),
        ("substitutions", "none", "'substitutions' must be a list"),
        ("units", {"text": "u"}, "'units' must be a list"),
        ("sample_id", "3", "'sample_id' must be int"),
        ("sample_id", True, "'sample_id' must be int"),
        ("text", None, "'text' must be str"),
        ("entities", ["e1"], "entity must be a JSON object"),
        ("substitutions", [[10, 15]], "substitution must be a JSON object"),
    ],
)
def test_malformed_input_field_is_rejected_with_record_error(field_name, value, message):
    with pytest.raises(RecordError, match=message):
        Input.from_dict({**INPUT_EXAMPLE, field_name: value})


def test_input_missing_original_id_is_rejected():
    data = {key: value for key, value in INPUT_EXAMPLE.items() if key != "original_id"}
    with pytest.raises(RecordError, match="missing the required field 'original_id'"):
        Input.from_dict(data)


def test_summary_with_more_sentences_than_scores_is_rejected():
    with pytest.raises(RecordError, match="2 sentences but 1 sentence scores"):
        Summary.from_dict({**SUMMARY_EXTRACTIVE, "sentence_scores": [0.5]})
    with pytest.raises(RecordError, match="sentences but"):
        Summary("i", "s", "t", sentences=["a"], sentence_scores=[0.1, 0.2])


def test_summary_with_sentences_but_no_scores_is_rejected():
    with pytest.raises(RecordError, match="both 'sentences' and 'sentence_scores' or neither"):
        Summary.from_dict({**SUMMARY_ABSTRACTIVE, "sentences": ["a"]})
    with pytest.raises(RecordError, match="or neither"):
        Summary("i", "s", "t", sentence_scores=[0.3])


@pytest.mark.parametrize(
    "data",
    [
        pytest.param({"summarizer": "s", "text": "t"}, id="no-input-id"),
        pytest.param({"input_id": "i", "text": "t"}, id="no-summarizer"),
        pytest.param({"input_id": "i", "summarizer": "s"}, id="no-text"),
        pytest.param({"input_id": "i", "summarizer": "s", "text": "t", "sentences": "a"}, id="sentences-not-list"),
        pytest.param({"input_id": "i", "summarizer": "s", "text": "t", "meta": "m"}, id="meta-not-dict"),
        pytest.param(["i", "s", "t"], id="not-an-object"),
    ],
)
def test_malformed_summary_is_rejected_with_record_error(data):
    with pytest.raises(RecordError):
        Summary.from_dict(data)


# ---------------------------------------------------------------------------------------------------------------
# Measure results: undefined values
# ---------------------------------------------------------------------------------------------------------------


def test_undefined_measure_without_reason_is_rejected():
    with pytest.raises(RecordError, match="gives no reason"):
        MeasureResult(measure="auc", value=math.nan, n=0)
    with pytest.raises(RecordError, match="gives no reason"):
        MeasureResult(measure="auc", value=math.inf, n=3, reason="")
    with pytest.raises(RecordError, match="gives no reason"):
        MeasureResult.from_dict({"measure": "auc", "value": None, "n": 0})


def test_undefined_measure_is_written_as_json_null_and_read_back_as_nan():
    result = MeasureResult(measure="auc", value=math.nan, n=0, ci_low=math.nan, ci_high=math.inf,
                           reason="no pairs where the entity appears in exactly one summary")
    data = result.to_dict()
    assert data["value"] is None and data["ci_low"] is None and data["ci_high"] is None
    assert data["reason"] == "no pairs where the entity appears in exactly one summary"
    text = json.dumps(data, allow_nan=False)  # strict JSON: no NaN token
    assert '"value": null' in text
    back = MeasureResult.from_dict(json.loads(text))
    assert math.isnan(back.value)
    assert not back.is_defined
    assert back.reason == result.reason
    assert back.to_dict() == data


def test_measure_values_are_read_as_floats_and_n_must_be_an_integer():
    result = MeasureResult.from_dict({"measure": "bur", "value": 1, "ci_low": 0, "ci_high": 2, "n": 4})
    assert isinstance(result.value, float) and isinstance(result.ci_low, float)
    with pytest.raises(RecordError, match="'n' must be int"):
        MeasureResult.from_dict({"measure": "bur", "value": 1.0, "n": 4.0})
    with pytest.raises(RecordError, match="missing the required field 'n'"):
        MeasureResult.from_dict({"measure": "bur", "value": 1.0})
    with pytest.raises(RecordError, match="'value' must be int or float"):
        MeasureResult.from_dict({"measure": "bur", "value": "0.5", "n": 4})
    with pytest.raises(RecordError, match="must be a JSON object"):
        MeasureResult.from_dict([1, 2])


def test_measure_to_dict_always_writes_every_documented_field():
    data = MeasureResult(measure="sof", value=0.5, n=10).to_dict()
    assert list(data) == ["measure", "perturbation", "summarizer", "value", "ci_low", "ci_high", "ci_kind", "n",
                          "reason", "details"]
    assert data["details"] == {} and data["reason"] is None


# ---------------------------------------------------------------------------------------------------------------
# Undoing substitutions
# ---------------------------------------------------------------------------------------------------------------


def test_original_text_of_the_interfaces_example_is_restored_exactly():
    assert Input.from_dict(INPUT_EXAMPLE).original_text() == ORIGINAL_TEXT


def test_undo_substitutions_restores_spans_of_different_lengths_in_any_order():
    original = "Mr. Robert Smith met her. He said she was right."
    text = "Ms. Jennifer Smith met him. She said he was right."
    subs = [
        Substitution(start=text.index("She"), end=text.index("She") + 3, original="He", replacement="She",
                     kind="pronoun"),
        Substitution(0, 3, "Mr.", "Ms.", "title"),
        Substitution(4, 12, "Robert", "Jennifer", "first_name", "e1"),
        Substitution(text.index("him"), text.index("him") + 3, "her", "him", "pronoun"),
        Substitution(text.index(" he ") + 1, text.index(" he ") + 3, "she", "he", "pronoun"),
    ]
    assert undo_substitutions(text, subs) == original
    assert undo_substitutions(text, list(reversed(subs))) == original


def test_undo_substitutions_with_no_map_returns_text_unchanged():
    assert undo_substitutions("Nothing changed.", []) == "Nothing changed."


def test_undo_substitutions_handles_spans_at_text_edges_and_adjacent_spans():
    text = "LindaMoore"
    subs = [Substitution(0, 5, "Robert", "Linda", "first_name"), Substitution(5, 10, "Smith", "Moore", "last_name")]
    assert undo_substitutions(text, subs) == "RobertSmith"


def test_undo_substitutions_restores_an_empty_replacement():
    # An insertion-free deletion: the word was replaced by nothing at offset 4.
    assert undo_substitutions("The  cat", [Substitution(4, 4, "big", "", "content_word")]) == "The big cat"


def test_undo_substitutions_rejects_overlapping_spans():
    text = "Linda Moore spoke."
    subs = [Substitution(0, 11, "Robert Moore", "Linda Moore", "full_name"),
            Substitution(6, 11, "Smith", "Moore", "last_name")]
    with pytest.raises(RecordError, match="overlap at character 6"):
        undo_substitutions(text, subs)


def test_undo_substitutions_rejects_a_span_whose_text_does_not_match():
    with pytest.raises(RecordError, match=r"\[0, 5\) expects 'Linda', text holds 'Rober'"):
        undo_substitutions("Robert Moore spoke.", [Substitution(0, 5, "Robert", "Linda", "first_name")])


def test_undo_substitutions_rejects_a_span_past_the_end_of_the_text():
    # Slicing would clamp [3, 12) to "Linda" and silently accept a map that does not describe the text.
    with pytest.raises(RecordError, match="runs past the end of the text"):
        undo_substitutions("Hi Linda", [Substitution(3, 12, "Robert", "Linda", "first_name")])


def test_original_text_rejects_a_substitution_map_that_does_not_describe_the_text():
    data = copy.deepcopy(INPUT_EXAMPLE)
    data["substitutions"][1]["start"] += 1
    data["substitutions"][1]["end"] += 1
    with pytest.raises(RecordError):
        Input.from_dict(data).original_text()


# ---------------------------------------------------------------------------------------------------------------
# Identity inputs from documents
# ---------------------------------------------------------------------------------------------------------------


def test_identity_input_of_a_news_document_keeps_its_text():
    document = Document.from_dict(NEWS_DOCUMENT)
    record = Input.from_document(document)
    assert record.id == "doc7/identity"
    assert record.original_id == "doc7"
    assert record.text == ORIGINAL_TEXT
    assert record.perturbation == "identity" and record.role == "identity" and record.sample_id == 0
    assert record.units is None and record.entities == [] and record.substitutions == []
    assert record.original_text() == ORIGINAL_TEXT
    assert "units" not in record.to_dict()
    assert Input.from_dict(record.to_dict()) == record


def test_identity_input_of_a_units_document_joins_units_with_the_separator():
    data = copy.deepcopy(PERSPECTIVE_DOCUMENT)
    data["units"][0]["stars"] = 5
    document = Document.from_dict(data)
    record = Input.from_document(document)
    assert UNIT_SEPARATOR == " || "
    assert record.text == "Great room, friendly staff. || Noisy at night."
    assert record.text == document.full_text
    assert record.units == [Unit("Great room, friendly staff.", "pos", {"stars": 5}), Unit("Noisy at night.", "neg")]
    assert record.to_dict()["units"] == data["units"]


def test_identity_input_units_are_copies_not_shared_with_the_document():
    document = Document.from_dict(copy.deepcopy(PERSPECTIVE_DOCUMENT))
    record = Input.from_document(document)
    record.units[0].text = "changed"
    record.units[0].extra["x"] = 1
    assert document.units[0].text == "Great room, friendly staff."
    assert document.units[0].extra == {}


def test_document_full_text_and_perspective_flag():
    news = Document.from_dict(NEWS_DOCUMENT)
    units = Document.from_dict(PERSPECTIVE_DOCUMENT)
    assert not news.is_perspective and news.full_text == ORIGINAL_TEXT
    assert units.is_perspective and units.full_text == "Great room, friendly staff. || Noisy at night."
