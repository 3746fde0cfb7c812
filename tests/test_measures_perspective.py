"""Perspective fairness (METHODS §4.7; Zhang et al. §3, §5) with hand-computed BUR, UER, AUC and SOF."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bias_core.common.records import Input, Summary, Unit
from bias_core.measures.common import Pair
from bias_core.measures.perspective import perspective_fairness
from bias_core.measures.perspective_scores import (
    AUC_GRID,
    fairness_scores,
    fairness_target,
    softmax,
)

UNITS = [Unit("The food was delicious.", "pos"), Unit("The service was terrible.", "neg"), Unit("It was.", "neu")]


def sample(input_id, original, summary_text, units=UNITS, arm="0.5"):
    item = Input(id=input_id, original_id=original, text=" || ".join(u.text for u in units), units=list(units),
                 perturbation="sentiment", arm=arm)
    return Pair(item, Summary(input_id, "test", summary_text))


def by_name(results):
    return {r.measure: r for r in results}


def test_fairness_scores_by_hand():
    source = np.array([0.5, 0.5])
    # target (0, 1): value 0 gets nothing -> BUR 1, UER = (0.5 + 0)/2, AUC = 1 (0 < tau * 0.5 for every tau),
    # shortfalls (0.5, 0)
    bur, uer, auc, shortfall = fairness_scores(source, np.array([0.0, 1.0]), source)
    assert (bur, uer, auc, list(shortfall)) == (1.0, 0.25, 1.0, [0.5, 0.0])
    # target (0.45, 0.55): 0.45 < 0.8*0.5 is False -> BUR 0; BUR(tau) = 1 only for tau > 0.9 -> AUC = 1/10
    bur, uer, auc, shortfall = fairness_scores(source, np.array([0.45, 0.55]), source)
    assert (bur, auc) == (0.0, 0.1)
    assert uer == pytest.approx(0.025) and shortfall == pytest.approx([0.05, 0.0])
    assert AUC_GRID[0] == 0.05 and AUC_GRID[-1] == 0.95


def fairsumm_second_order_fairness(unfair_distance):
    """The FairSumm authors' SOF, re-implemented from psunlpgroup/FairSumm metrics/eval.py
    (``compute_second_order_fairness`` over the ``unfair_distance`` lists that ``detect_unfair`` fills: per value,
    every sample's max(0, source ratio − target ratio)); used only to compare numbers."""
    per_value = [sum(abs(x) for x in shortfalls) / len(shortfalls) for shortfalls in unfair_distance.values()]
    centre = sum(per_value) / len(per_value)
    return sum(abs(x - centre) for x in per_value) / len(per_value)


def test_sof_is_corpus_level_and_differs_from_uer_with_two_values():
    # s1 short-changes 'neg' (summary only about food), s2 short-changes 'pos' (only about service): each sample's
    # own shortfalls are spread by 0.25 = its UER, but over the corpus both values are short by 0.25 on average, so
    # the corpus SOF is 0 while UER is 25 %.
    pairs = [sample("s1", "o1", "Delicious food."), sample("s2", "o2", "Terrible service.")]
    results = by_name(perspective_fairness(pairs, n_resamples=50))
    assert results["uer"].value == pytest.approx(25.0)
    assert results["sof"].value == pytest.approx(0.0)
    assert results["sof"].details["per_value_mean_shortfall"] == pytest.approx({"neg": 0.25, "pos": 0.25})
    assert results["sof"].details["most_short_changed"] is None
    assert results["sof"].value == pytest.approx(fairsumm_second_order_fairness({"neg": [0.5, 0.0],
                                                                               "pos": [0.0, 0.5]}))


def test_sof_names_the_value_the_summaries_short_change():
    # s1, s3: 'neg' short by 0.5; s2: nothing missing. Per value: neg 1/3, pos 0 -> SOF = 1/6, UER = 1/6 * 100 / 2
    pairs = [sample("s1", "o1", "Delicious food."), sample("s2", "o2", "Delicious food, terrible service."),
             sample("s3", "o3", "The food was delicious.")]
    results = by_name(perspective_fairness(pairs, n_resamples=200))
    sof = results["sof"]
    assert sof.details["most_short_changed"] == "neg"
    assert sof.details["per_value_mean_shortfall"] == pytest.approx({"neg": 1 / 3, "pos": 0.0})
    assert sof.details["per_value_samples"] == {"neg": 3, "pos": 3}
    assert sof.value == pytest.approx(fairsumm_second_order_fairness({"neg": [0.5, 0.0, 0.5],
                                                                     "pos": [0.0, 0.0, 0.0]}))
    assert sof.value == pytest.approx(1 / 6)
    assert sof.ci_low <= sof.value <= sof.ci_high and sof.ci_kind == "d"


def test_sof_matches_the_authors_function_with_three_values_of_uneven_presence():
    units = UNITS[:2] + [Unit("Parking was easy.", "neu")]
    # s1: three values, summary about food only; s2: no 'neu' unit, summary about service only
    pairs = [sample("s1", "o1", "Delicious food.", units), sample("s2", "o2", "Terrible service.", UNITS[:2])]
    results = by_name(perspective_fairness(pairs, n_resamples=20))
    shortfalls = {"neg": [2 / 6, 0.0], "neu": [2 / 6], "pos": [0.0, 0.5]}
    assert results["sof"].value == pytest.approx(fairsumm_second_order_fairness(shortfalls))
    assert results["sof"].details["most_short_changed"] == "neu"


def test_equal_and_custom_targets():
    source = np.array([0.2, 0.8])
    assert list(fairness_target(source, ["neg", "pos"], "equal")) == [0.5, 0.5]
    assert list(fairness_target(source, ["neg", "pos"], "ratio")) == [0.2, 0.8]
    assert list(fairness_target(source, ["neg", "pos"], {"neg": 1, "pos": 3, "neu": 5})) == [0.25, 0.75]


def test_ngram_corpus_values_are_means_over_samples_in_percent():
    # sample 1: summary tokens {delicious, food} both in pos units -> p_y = (neg 0, pos 1) -> BUR 1, UER .25,
    #           AUC 1, shortfall (neg .5, pos 0); sample 2: empty target -> uniform = source -> all 0. 'neu' has no
    #           content: dropped. SOF: per-value mean shortfall (neg .25, pos 0) -> mean |. − .125| = .125
    pairs = [sample("s1", "o1", "Delicious food."), sample("s2", "o2", "Nothing here.")]
    results = by_name(perspective_fairness(pairs, n_resamples=50))
    assert results["bur"].value == pytest.approx(50.0)
    assert results["uer"].value == pytest.approx(12.5)
    assert results["auc"].value == pytest.approx(0.5)
    assert results["sof"].value == pytest.approx(0.125)
    assert results["bur"].n == 2 and results["bur"].ci_kind == "d"
    assert results["uer"].details["unit"] == "%"


def test_equal_target_flags_a_summary_that_follows_a_skewed_source():
    units = [Unit("Great food.", "pos"), Unit("Lovely staff.", "pos"), Unit("Bad parking.", "neg")]
    summary = "Great food, lovely staff, bad parking."
    ratio = by_name(perspective_fairness([sample("s", "o", summary, units)], n_resamples=20))
    equal = by_name(perspective_fairness([sample("s", "o", summary, units)], target="equal", n_resamples=20))
    assert ratio["bur"].value == 0.0
    assert equal["bur"].value == 100.0


def test_samples_without_values_are_undefined_with_reason():
    pairs = [sample("s", "o", "Anything.", units=[Unit("Plain text.", None)])]
    results = perspective_fairness(pairs, n_resamples=20)
    assert all(math.isnan(r.value) and "units with values" in r.reason for r in results)


def test_softmax_temperature_sharpens():
    assert softmax(np.array([0.5, 0.4]), 0.1)[0] == pytest.approx(math.e / (math.e + 1))


def test_embedding_matching_prefers_the_value_the_summary_talks_about():
    units = [Unit("The pasta was delicious and the dessert amazing.", "pos"),
             Unit("The waiter was rude and the bill was wrong.", "neg")]
    pairs = [sample("s", "o", "Delicious pasta and an amazing dessert.", units)]
    results = by_name(perspective_fairness(pairs, matching="embedding", n_resamples=20))
    assert results["bur"].value == 100.0  # negative perspective under-represented
    assert results["bur"].details["temperature"] == 0.1


def test_identity_review_documents_give_perspective_measures_a_noise_floor_and_articles_are_left_out():
    from bias_core.measures import compute_measures
    from bias_core.verdicts.judge import judge

    reviews = [Unit("The battery is great and lasts all day", "pos"), Unit("Awful strap, it broke in a week", "neg"),
               Unit("Great sound and a great price", "pos")]
    inputs, summaries = [], []
    for n in range(4):
        document_units = reviews[n % 3:] + reviews[: n % 3]
        joined = " || ".join(unit.text for unit in document_units)
        identity = Input(id=f"r{n}/identity", original_id=f"r{n}", text=joined, perturbation="identity",
                         units=document_units)
        mix = Input(id=f"r{n}/mix", original_id=f"r{n}", text=joined, perturbation="sentiment", arm="pos=0.5",
                    units=document_units)
        article = Input(id=f"a{n}/identity", original_id=f"a{n}", perturbation="identity",
                        text="The council met on Monday. Anna Berg chaired it.")
        for item in (identity, mix, article):
            first = item.units[0].text if item.units else item.text
            inputs.append(item)
            summaries.append(Summary(item.id, "lead-1", first))
    results = compute_measures(inputs, summaries, names=["uer"])
    floor = [r for r in results if r.perturbation == "identity"]
    assert len(floor) == 1 and floor[0].details["samples_skipped"] == 0 and floor[0].n == 4
    mix_result = next(r for r in results if r.perturbation == "sentiment")
    assert mix_result.value == pytest.approx(floor[0].value)
    # The verdict rests on the permutation null (details['test'], METHODS §4.7): the same value-blind lead-1 on both
    # perturbations is no finding.
    assert mix_result.details["test"]["floor"] == "permutation"
    verdict = judge(mix_result, results)
    assert not verdict.significant and verdict.status in ("no evidence of bias", "not significant after correction")
