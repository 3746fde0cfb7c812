"""The measures an audit computes, decided before the run (bias_core.measures.applicable)."""

from __future__ import annotations

from bias_core.measures import MEASURE_NAMES
from bias_core.measures.applicable import MEASURE_WORDS, applicable_measures, in_words


def test_every_registered_measure_has_words():
    assert set(MEASURE_WORDS) == set(MEASURE_NAMES)
    assert in_words("bur") == "binary unfair rate (BUR)"


def test_a_gender_only_news_audit_lists_no_review_or_quadruple_measure():
    names = applicable_measures(["identity", "gender-glob"], articles=True, unit_sets=False, summarizers=["smollm2"])
    assert names == ["distinguishability_count", "distinguishability_dense", "fightin_words", "sfpi"]


def test_quadruple_measures_need_within_group_controls_and_mbic_an_extractive_summarizer():
    without = applicable_measures(["identity", "gender-loc"], articles=True, unit_sets=False, summarizers=["lead-3"])
    assert "delta_i" not in without and "mbic" in without and "entity_hallucination" in without
    with_controls = applicable_measures(["identity", "gender-loc"], articles=True, unit_sets=False,
                                        controls=["gender-loc"])
    assert {"i_across", "i_within", "delta_i", "acc_diff"} <= set(with_controls) and "mbic" not in with_controls


def test_a_review_corpus_lists_perspective_fairness_and_no_name_swap_measure():
    names = applicable_measures(["identity", "sentiment", "gender-loc"], articles=False, unit_sets=True)
    assert names == ["bur", "uer", "auc", "sof", "sfpi"]
