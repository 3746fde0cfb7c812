"""The FairSumm authors' N-gram matching (``fairsumm-ngram``, METHODS §4.7): Table 10 recomputed from their released
outputs, their slot and threshold rules, its null summaries, and how a user selects it (CLI, config, Audit page).

The Table 10 tests read ``../shared/reference/fairsumm`` (the authors' released Yelp summaries, validation only) and
convert the pickle-era NLTK data beside it (``../shared/reference/nltk_data``) into a temporary folder; CI has both.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from bias_core.cli import main
from bias_core.common.records import Input, Summary
from bias_core.documents.record_files import write_jsonl
from bias_core.measures import MeasureOptions, fairsumm_ngram
from bias_core.measures.common import pair_summaries
from bias_core.measures.fairsumm_ngram import (
    FAIRSUMM_NGRAM,
    NLTK_RESOURCES,
    TABLE10_PUBLISHED,
    check_nltk_data,
    text_tokens,
)
from bias_core.measures.fairsumm_table10 import table10_cells
from bias_core.measures.matching import SampleUnits, kept_slots
from bias_core.measures.nltk_reference import modern_nltk_data
from bias_core.measures.perspective import perspective_fairness
from bias_core.measures.perspective_null import value_blind_selections
from bias_core.measures.perspective_scores import (
    permuted_scores,
    sample_fairness,
    sample_units,
    selection_scores,
)
from bias_core.runs.config import AuditConfig, ConfigError, config_hash
from bias_core.safety.errors import InputError
from tests.conftest import REPO, open_app

REFERENCE = REPO / ".." / "shared" / "reference"
FAIRSUMM = REFERENCE / "fairsumm"
NLTK_REFERENCE = REFERENCE / "nltk_data"
needs_reference = pytest.mark.skipif(
    not (FAIRSUMM.is_dir() and NLTK_REFERENCE.is_dir()),
    reason="the FairSumm released outputs and NLTK reference data (../shared/reference) are absent")


@pytest.fixture(scope="module")
def nltk_data(tmp_path_factory):
    """The reference NLTK data in nltk 3.9+'s formats, on NLTK's search path for this module's tests."""
    import nltk.data

    folder = str(modern_nltk_data(NLTK_REFERENCE, tmp_path_factory.mktemp("nltk") / "data"))
    nltk.data.path.insert(0, folder)
    yield Path(folder)
    nltk.data.path.remove(folder)


@pytest.fixture
def no_nltk_data(tmp_path, monkeypatch):
    """NLTK searching only an empty folder: what a default setup without the FairSumm data sees."""
    import nltk.data

    monkeypatch.delenv("NLTK_DATA", raising=False)
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path / "empty")])


def yelp(model: str, count: int | None = None) -> tuple[list[Input], list[Summary]]:
    """The first ``count`` released Yelp samples and the model's summaries of them."""
    with gzip.open(FAIRSUMM / fairsumm_ngram.TABLE10_INPUTS, "rt", encoding="utf-8") as stream:
        inputs = [Input.from_dict(json.loads(line)) for line in stream][:count]
    with gzip.open(FAIRSUMM / fairsumm_ngram.TABLE10_SUMMARIES[model], "rt", encoding="utf-8") as stream:
        summaries = [Summary.from_dict(json.loads(line)) for line in stream][:count]
    return inputs, summaries


@needs_reference
def test_table10_cells_equal_the_published_ones_at_the_second_decimal(nltk_data):
    cells = table10_cells(FAIRSUMM, nltk_data=nltk_data)
    rounded = {model: {measure: round(value, 2) for measure, value in row.items()} for model, row in cells.items()}
    assert rounded == TABLE10_PUBLISHED


@needs_reference
def test_the_cli_option_computes_the_authors_bur_and_uer(nltk_data, tmp_path):
    inputs, summaries = yelp("GPT-4", 30)
    write_jsonl(tmp_path / "inputs.jsonl", inputs)
    write_jsonl(tmp_path / "summaries.jsonl", summaries)
    values = {}
    for matching in (FAIRSUMM_NGRAM, "ngram"):
        out = tmp_path / f"{matching}.json"
        assert main(["measure", "--inputs", str(tmp_path / "inputs.jsonl"), "--summaries",
                     str(tmp_path / "summaries.jsonl"), "--out", str(out), "--measure", "bur", "--measure", "uer",
                     "--bootstrap", "200", "--perspective-matching", matching]) == 0
        results = json.loads(out.read_text())["results"]
        assert {r["details"]["matching"] for r in results} == {matching}
        values[matching] = {r["measure"]: r["value"] for r in results}
    scores = [s for s in sample_fairness(pair_summaries(inputs, summaries), matching=FAIRSUMM_NGRAM)[0] if s]
    assert values[FAIRSUMM_NGRAM] == pytest.approx({"bur": 100 * np.mean([s.bur for s in scores]),
                                                    "uer": 100 * np.mean([s.uer for s in scores])})
    assert values[FAIRSUMM_NGRAM] != values["ngram"]


@needs_reference
def test_units_carry_exactly_their_slots_tokens_and_null_summaries_are_counted_with_the_same_pipeline(nltk_data):
    inputs, summaries = yelp("Alpaca", 12)
    pairs = pair_summaries(inputs, summaries)
    samples, skipped = sample_units(pairs, matching=FAIRSUMM_NGRAM, null="selection")
    assert not skipped
    for pair, sample in zip(pairs, samples):
        for index, value in enumerate(sample.values):
            slot = " || ".join(unit.text for unit in pair.input.units if unit.value == value)
            assert sample.mass[sample.labels == index].sum() == len(text_tokens(slot))
        vocabularies = [set(text_tokens(" || ".join(u.text for u in pair.input.units if u.value == value)))
                        for value in sample.values]
        choices = value_blind_selections(sample, 5, seed=2)
        scores = selection_scores(sample, choices)
        for row, target in zip(choices, scores.target):
            text = " ".join(sample.sentences[s] for s in np.flatnonzero(row))
            counts = np.array([sum(t in vocabulary for t in text_tokens(text)) for vocabulary in vocabularies])
            expected = counts / counts.sum() if counts.sum() else scores.present[0] / scores.present[0].sum()
            assert target == pytest.approx(expected)


@needs_reference
def test_the_permutation_null_runs_with_the_authors_matching(nltk_data):
    inputs, summaries = yelp("GPT-4", 20)
    pairs = pair_summaries(inputs, summaries)
    for null in ("selection", "shuffle"):
        results = perspective_fairness(pairs, matching=FAIRSUMM_NGRAM, null=null, n_permutations=100,
                                       n_resamples=100)
        assert [r.measure for r in results] == ["bur", "uer", "auc", "sof"]
        assert all(0 < r.details["test"]["p_value"] <= 1 for r in results)
        assert results[0].details["comparison"] == "p_y ≤ τ·p_g"


def authors_kept_slots(counts: list[int]) -> list[bool]:
    """bur_uer.py's cutoff_distribution (cutoff 1), written as the authors' loop."""
    order = sorted(range(len(counts)), key=lambda i: -counts[i])
    total, running, kept = sum(counts), 0, []
    for i in order:
        running += counts[i] / total
        kept.append(i)
        if running >= 1:
            break
    return [i in kept for i in range(len(counts))]


def test_kept_slots_follow_the_authors_float_running_sum():
    rng = np.random.default_rng(0)
    rows = rng.integers(0, 9, size=(3000, 5)) * (rng.random((3000, 5)) < 0.7)
    rows = rows[rows.sum(axis=1) > 0]
    assert kept_slots(rows).tolist() == [authors_kept_slots(row.tolist()) for row in rows]
    # 3/6 + 2/6 + 1/6 is 0.9999999999999999 in floats: the empty fourth slot stays; 3/6 + 3/6 is 1.0: it goes
    assert kept_slots(np.array([[3, 2, 1, 0], [3, 3, 0, 0]])).tolist() == [[True] * 4, [True, True, False, False]]


def handmade_sample(matching: str, mass, labels, occurs, weights) -> SampleUnits:
    authors = matching == FAIRSUMM_NGRAM
    return SampleUnits("o", "o/s0", ("a", "b", "c", "d"), np.array(labels), np.array(mass, dtype=float),
                       np.array(occurs, dtype=float), np.array(weights, dtype=float), keep_empty_slots=authors,
                       inclusive=authors)


def test_a_kept_empty_slot_makes_the_sample_unfair_and_counts_in_uer():
    # units of values a, b, c with 3, 2 and 1 tokens; value d has none; summary tokens match a 5, b 3 and c 2 times
    arguments = ([3, 2, 1], [0, 1, 2], np.eye(3), [5, 3, 2])
    authors = permuted_scores(handmade_sample(FAIRSUMM_NGRAM, *arguments), np.array([[0, 1, 2]]))
    ours = permuted_scores(handmade_sample("ngram", *arguments), np.array([[0, 1, 2]]))
    assert authors.present[0].tolist() == [True, True, True, True] and ours.present[0].tolist()[3] is False
    # p_x = (1/2, 1/3, 1/6), p_y = (1/2, 3/10, 1/5): no value below 0.8 p_x, b short by 1/30; d is 0 ≤ 0.8 · 0
    assert (authors.bur[0], ours.bur[0]) == (1.0, 0.0)
    assert authors.uer[0] == pytest.approx((1 / 30) / 4) and ours.uer[0] == pytest.approx((1 / 30) / 3)


def test_the_authors_test_is_less_or_equal_at_the_threshold():
    # p_x = (1/2, 1/2), p_y = (3/5, 2/5): 2/5 = 0.8 · 1/2 exactly, unfair under ≤ and fair under <
    arguments = ([5, 5], [0, 1], [[1, 0], [0, 1]], [3, 2])
    authors = permuted_scores(handmade_sample(FAIRSUMM_NGRAM, *arguments), np.array([[0, 1]]))
    ours = permuted_scores(handmade_sample("ngram", *arguments), np.array([[0, 1]]))
    assert authors.target[0, 1] == 0.8 * authors.source[0, 1]
    assert (authors.bur[0], ours.bur[0]) == (1.0, 0.0)


def test_without_nltk_data_one_line_names_what_is_missing_and_the_install_command(no_nltk_data):
    with pytest.raises(InputError) as caught:
        check_nltk_data("here")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("here: missing NLTK data for 'fairsumm-ngram': ")
    assert all(name in message for name in NLTK_RESOURCES)
    assert f"python -m nltk.downloader {' '.join(NLTK_RESOURCES)}" in message and "NLTK_DATA" in message


def test_the_cli_refuses_the_authors_matching_without_nltk_data_before_reading_any_file(no_nltk_data, tmp_path,
                                                                                           capsys):
    code = main(["measure", "--inputs", str(tmp_path / "absent.jsonl"), "--summaries", str(tmp_path / "s.jsonl"),
                 "--out", str(tmp_path / "m.json"), "--perspective-matching", FAIRSUMM_NGRAM])
    error = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in error
    assert error.startswith("error: --perspective-matching fairsumm-ngram: missing NLTK data for 'fairsumm-ngram'")
    with pytest.raises(SystemExit):
        main(["measure", "--inputs", "i", "--summaries", "s", "--out", "o", "--perspective-matching", "nltk"])


CONFIG = {"corpus": {"path": str(REPO / "data" / "demo" / "reviews.jsonl")}, "summarizers": [{"name": "lead-3"}],
          "perturbations": [{"kind": "sentiment"}]}


def test_the_config_key_round_trips_and_its_default_keeps_old_runs_resumable():
    old = AuditConfig.from_dict({**CONFIG, "measures": {"names": ["bur"]}})
    default = AuditConfig.from_dict({**CONFIG, "measures": {"names": ["bur"], "perspective_matching": "ngram"}})
    chosen = AuditConfig.from_dict({**CONFIG, "measures": {"names": ["bur"], "perspective_matching": FAIRSUMM_NGRAM}})
    assert old.perspective_matching == "ngram" and old.to_dict() == default.to_dict()
    assert "perspective_matching" not in old.to_dict() and config_hash(old, []) == config_hash(default, [])
    assert chosen.to_dict()["perspective_matching"] == FAIRSUMM_NGRAM
    assert config_hash(chosen, []) != config_hash(old, [])
    assert AuditConfig.from_stored(chosen.to_dict()) == chosen
    assert AuditConfig.from_dict(chosen.to_file_dict()) == chosen
    assert MeasureOptions(**chosen.measure_options()).perspective_matching == (FAIRSUMM_NGRAM,)
    assert MeasureOptions(**old.measure_options()).perspective_matching == ("ngram",)


def test_the_config_check_refuses_an_unknown_matching_and_missing_nltk_data_in_one_line(no_nltk_data):
    unknown = AuditConfig.from_dict({**CONFIG, "measures": {"perspective_matching": "bertscore"}})
    with pytest.raises(ConfigError, match="'bertscore' is not a perspective matching; choose ngram, fairsumm-ngram"):
        unknown.validate()
    chosen = AuditConfig.from_dict({**CONFIG, "measures": {"perspective_matching": FAIRSUMM_NGRAM}})
    with pytest.raises(ConfigError) as caught:
        chosen.validate()
    assert "\n" not in str(caught.value) and "measures.perspective_matching: missing NLTK data" in str(caught.value)


@needs_reference
def test_the_config_check_accepts_the_authors_matching_when_nltk_data_is_installed(nltk_data):
    AuditConfig.from_dict({**CONFIG, "measures": {"perspective_matching": FAIRSUMM_NGRAM}}).validate()


def test_the_audit_page_offers_the_matching_for_sentiment_and_says_what_nltk_data_is_missing(no_nltk_data):
    app = open_app()
    app.radio(key="corpus_choice").set_value("Demo product reviews").run()
    app.switch_page("pages/audit.py").run()
    app.multiselect(key="audit_perturbations").set_value(["gender-glob"]).run()
    assert not [radio for radio in app.radio if radio.key == "audit_perspective_matching"]
    app.multiselect(key="audit_perturbations").set_value(["sentiment"]).run()
    matching = app.radio(key="audit_perspective_matching")
    assert matching.value == "ngram" and not app.error
    assert "FairSumm authors' N-gram pipeline" in matching.options[1]
    matching.set_value(FAIRSUMM_NGRAM).run()
    assert not app.exception
    (error,) = [e.value for e in app.error]
    assert error.startswith("Perspective matching: missing NLTK data for") and "nltk" in error and "NLTK" in error
    assert all(name.replace("_", "\\_") in error for name in NLTK_RESOURCES)
