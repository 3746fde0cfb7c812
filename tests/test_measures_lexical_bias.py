"""Lexical-bias amplification (METHODS §4.10; BIC paper §3–7): NMD, BIC, MBIC, SFPI, shuffle test, label formats."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from bias_core.measures.lexical_bias import (
    LEXICON_LABELLER,
    LabelledDocument,
    bias_independence_criterion,
    bin_pmf,
    labels_from_record,
    lexicon_labels,
    mbic_result,
    normalise_scores,
    normalized_match_distance,
    random_forest_sfpi,
    read_bias_labels,
    sentence_order_shuffle_test,
)
from bias_core.safety.errors import InputError


def test_min_max_normalisation_and_bins():
    assert list(normalise_scores([2, 4, 6])) == [0.0, 0.5, 1.0]
    assert list(normalise_scores([3, 3])) == [0.0, 0.0]
    pmf = bin_pmf(np.array([0.0, 0.049, 0.05, 1.0]))
    assert pmf[0] == 0.5 and pmf[1] == 0.25 and pmf[19] == 0.25


def test_nmd_by_hand():
    low, high = np.zeros(20), np.zeros(20)
    low[0], high[19] = 1.0, 1.0
    assert normalized_match_distance(low, high) == 1.0  # 19 cumulative gaps of 1, divided by 19
    mid = np.zeros(20)
    mid[10] = 1.0
    assert normalized_match_distance(low, mid) == pytest.approx(10 / 19)


def test_bic_sign_follows_the_biased_sentences():
    assert bias_independence_criterion([0.0, 1.0], [0, 1]) == 1.0   # biased sentence scored highest
    assert bias_independence_criterion([1.0, 0.0], [0, 1]) == -1.0
    # scores 0, 0.5, 1 with labels 1, 0, 1: D_B = {0, 1}, D_N = {0.5}: CP_B = .5 for bins 0..18, CP_N = 0 below
    # bin 10 and 1 from bin 10 -> (10 * .5 + 9 * .5) / 19 = .5; mean(D_B) = .5 >= .5 -> d = +1
    assert bias_independence_criterion([0, 1, 2], [1, 0, 1]) == pytest.approx(0.5)
    assert bias_independence_criterion([5, 5, 5], [1, 0, 1]) == 0.0


def test_a_class_missing_leaves_the_document_out_and_none_left_is_undefined():
    assert math.isnan(bias_independence_criterion([0.1, 0.9], [1, 1]))
    documents = [LabelledDocument("a", ("x", "y"), (1, 1), (0.1, 0.9)),
                 LabelledDocument("b", ("x", "y"), (0, 0), (0.1, 0.9))]
    [result] = mbic_result(documents, label_source="user labels", n_resamples=20)
    assert math.isnan(result.value) and "both a biased and a non-biased" in result.reason
    assert result.details["documents_skipped_one_class"] == 2


def test_mbic_is_the_mean_over_documents_with_both_classes():
    documents = [LabelledDocument("a", ("x", "y"), (0, 1), (0.0, 1.0)),
                 LabelledDocument("b", ("x", "y"), (0, 1), (1.0, 0.0)),
                 LabelledDocument("c", ("x", "y", "z"), (0, 1, 0), (0.0, 1.0, 0.5)),
                 LabelledDocument("d", ("x",), (1,), (0.3,))]
    [result] = mbic_result(documents, label_source="user labels", n_resamples=50)
    # BICs: +1, -1, and for c: D_B = {1}, D_N = {0, .5}: CP gaps .5 on bins 0..9, 1 on 10..18 -> (5 + 9)/19
    assert result.value == pytest.approx((1 - 1 + 14 / 19) / 3)
    assert result.details["documents_skipped_one_class"] == 1 and result.n == 3


def test_per_sentence_and_basil_span_label_formats():
    document = labels_from_record({"id": "d", "sentences": ["A.", "B."], "labels": [0, 1]})
    assert document.labels == (0, 1)
    text = "The senator spoke today. Critics called the plan a disastrous sham. It passed."
    start = text.index("disastrous")
    spans = labels_from_record({"id": "d", "text": text, "spans": [
        {"start": start, "end": start + 10, "bias": "lexical"},
        {"start": 0, "end": 5, "bias": "informational"}]})
    assert spans.labels == (0, 1, 0)
    with pytest.raises(InputError):
        labels_from_record({"id": "d", "sentences": ["A."], "labels": [2]})


def test_read_bias_labels_names_the_bad_line(tmp_path):
    path = tmp_path / "labels.jsonl"
    path.write_text(json.dumps({"id": "a", "sentences": ["x"], "labels": [1]}) + "\n{broken\n")
    with pytest.raises(InputError, match="line 2"):
        read_bias_labels(str(path))


def test_lexicon_labeller_flags_polarised_sentences():
    assert lexicon_labels(["The plan is a disastrous, horrible sham.", "The vote is on Tuesday."]) == [1, 0]


def make_corpus(n_docs=40, seed=0):
    """Documents whose early sentences are loaded (biased) and long; later ones neutral."""
    rng = np.random.default_rng(seed)
    documents = []
    for d in range(n_docs):
        sentences, labels = [], []
        for i in range(8):
            biased = i < 2 or rng.random() < 0.1
            text = ("Critics blasted the disastrous plan by Senator Moore in Washington on Monday."
                    if biased else f"The committee will meet again on day {i} to review the budget.")
            sentences.append(text)
            labels.append(int(biased))
        documents.append(LabelledDocument(f"doc{d}", tuple(sentences), tuple(labels)))
    return documents


def test_random_forest_sfpi_reports_each_feature_with_shuffle_test():
    results = random_forest_sfpi(make_corpus(), label_source="user labels", shuffles=3, n_resamples=20)
    assert [r.details["feature"] for r in results] == ["position", "proper_nouns", "length"]
    assert all(r.summarizer == "SFPI model (trained here)" and math.isfinite(r.value) for r in results)
    assert results[0].details["mbic"]["value"] > 0  # the forest favours the loaded lead sentences
    assert len(results[0].details["sentence_order_shuffle"]["per_trial"]) == 5


def test_shuffle_test_of_a_lead_scorer_removes_its_bias():
    documents = make_corpus(30)

    def lead_scores(docs):
        return [np.arange(len(d), 0, -1, dtype=float) for d in docs]

    unshuffled = np.mean([bias_independence_criterion(s, d.labels) for s, d in
                          zip(lead_scores([list(d.sentences) for d in documents]), documents)])
    shuffled, per_trial = sentence_order_shuffle_test(documents, lead_scores, trials=5)
    assert unshuffled > 0.5 and abs(shuffled) < 0.25 and len(per_trial) == 5


def test_lexicon_label_source_is_flagged_approximate():
    documents = [LabelledDocument("a", ("x", "y"), (0, 1), (0.0, 1.0))]
    [result] = mbic_result(documents, label_source=LEXICON_LABELLER, n_resamples=20)
    assert result.details["approximate_labels"] is True


def test_mbic_is_computed_once_on_the_unchanged_originals_when_the_run_has_them():
    from bias_core.common.records import Input
    from bias_core.measures import compute_measures
    from bias_core.summarize import get_summarizer

    text = ("The senator said the plan was a disaster. The vote is on Monday. Critics claimed it was a scandal. "
            "The budget grows by two percent. Officials described the outcome as shocking.")
    inputs = [Input(id=f"d{n}/{kind}", original_id=f"d{n}", text=text.replace("Monday", f"day {n}"),
                    perturbation=kind) for n in range(3) for kind in ("identity", "gender-loc")]
    summaries = get_summarizer("textrank").summarize(inputs)
    results = [r for r in compute_measures(inputs, summaries, names=["mbic"]) if r.measure == "mbic"]
    assert {r.perturbation for r in results} == {"identity"}
    without_identity = [i for i in inputs if i.perturbation != "identity"]
    kept = [s for s in summaries if s.input_id.endswith("gender-loc")]
    assert {r.perturbation for r in compute_measures(without_identity, kept, names=["mbic"])} == {"gender-loc"}
