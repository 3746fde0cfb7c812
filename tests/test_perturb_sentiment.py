"""Sentiment / perspective split (METHODS §1.6; Zhang et al. §2, §4, App. A)."""

from __future__ import annotations

from collections import Counter

import pytest

from bias_core.common.records import UNIT_SEPARATOR, Document, Unit
from bias_core.documents.corpus import load_documents
from bias_core.perturb import PerspectiveSplit, SentimentConfig
from bias_core.perturb.sentiment import split_counts, unit_value, vader_value
from tests.fixtures.perturb.corpus import DEMO_REVIEWS

POSITIVE = ["Lovely staff and great food.", "The best pizza in town, truly excellent.", "Wonderful, friendly service.",
            "Great value and a beautiful room.", "I loved every minute, fantastic.", "Superb coffee, happy to return.",
            "Amazing view and a good breakfast.", "Perfect for families, very nice."]
NEGATIVE = ["Terrible service and cold food.", "The worst night, awful noise.", "Rude staff, I hated it.",
            "Dirty room and a horrible smell.", "Bad coffee, sad experience.", "Disgusting bathroom, never again.",
            "Broken heating and an angry manager.", "Overpriced, stale bread, a miserable stay."]


def _reviews(doc_id="hotel"):
    units = [Unit(text, "pos") for text in POSITIVE] + [Unit(text, "neg") for text in NEGATIVE]
    return Document(id=doc_id, units=units)


def test_vader_fairsumm_rule_takes_the_larger_of_pos_and_neg_and_neu_when_both_are_zero():
    assert vader_value("I love this wonderful hotel.") == "pos"
    assert vader_value("I hate this awful hotel.") == "neg"
    assert vader_value("The hotel is on Main Street.") == "neu"
    assert vader_value("good and bad") == "neg"  # pos == neg: a tie goes to neg, as in the FairSumm code


def test_vader_compound_rule_uses_the_plus_minus_0_05_thresholds():
    assert vader_value("I love this wonderful hotel.", "compound") == "pos"
    assert vader_value("I hate this awful hotel.", "compound") == "neg"
    assert vader_value("The hotel is on Main Street.", "compound") == "neu"


def test_values_come_from_a_column_a_star_rating_or_vader():
    unit = Unit("Fine.", "pos", extra={"stars": 4.0, "speaker": "Alito"})
    assert unit_value(unit, SentimentConfig()) == "pos"
    assert unit_value(unit, SentimentConfig(value_column="speaker")) == "Alito"
    assert unit_value(unit, SentimentConfig(value_source="stars", value_column="stars")) == "4"
    assert unit_value(Unit("Awful, broken."), SentimentConfig(value_source="vader")) == "neg"


@pytest.mark.parametrize("ratio", [0.2, 0.5, 0.8])
def test_inputs_hit_the_requested_ratio_exactly(ratio):
    result = PerspectiveSplit(ratios=(ratio,), units_per_input=10, samples=4, focus_value="pos").run([_reviews()])
    assert len(result.inputs) == 4
    for item in result.inputs:
        counts = Counter(unit.value for unit in item.units)
        assert counts["pos"] == round(ratio * 10) and sum(counts.values()) == 10
        assert item.extra["achieved_ratio"] == item.extra["target_ratio"] == ratio
        assert item.text == UNIT_SEPARATOR.join(unit.text for unit in item.units)
        assert item.arm == f"pos={ratio:g}" and item.id == f"hotel/sentiment/s{item.sample_id}/pos={ratio:g}"


def test_units_are_shuffled_and_samples_differ():
    result = PerspectiveSplit(ratios=(0.5,), units_per_input=6, samples=5).run([_reviews()])
    orders = {tuple(unit.value for unit in item.units) for item in result.inputs}
    assert len(orders) > 1
    assert len({item.text for item in result.inputs}) == 5


def test_an_input_shrinks_to_the_largest_size_the_units_allow():
    few_negative = Document(id="d", units=[Unit(t, "pos") for t in POSITIVE] + [Unit(NEGATIVE[0], "neg")])
    result = PerspectiveSplit(ratios=(0.5,), units_per_input=10, samples=1).run([few_negative])
    [item] = result.inputs
    assert Counter(unit.value for unit in item.units) == {"pos": 1, "neg": 1}


def test_ratios_the_units_cannot_reach_are_reported():
    only_positive = Document(id="p", units=[Unit(t, "pos") for t in POSITIVE])
    result = PerspectiveSplit().run([only_positive, Document(id="news", text="Just text.")])
    assert {s.original_id: s.reason.split(":")[0] for s in result.report.skipped} == {
        "p": "fewer than two values", "news": "no units"}
    partial = PerspectiveSplit(ratios=(0.5, 1 / 3), units_per_input=2, min_units=2).run([_reviews()])
    assert partial.inputs and partial.report.incomplete[0].reason.startswith("too few units for ratio 0.333")


def test_split_counts_spread_the_other_values_evenly():
    assert split_counts(0.2, 10, 2) == (2, [4, 4])
    assert split_counts(0.5, 5, 2) is None
    assert split_counts(0.5, 10, 2) == (5, [3, 2])


def test_demo_reviews_split_by_stars_with_the_table_11_template():
    documents = load_documents(DEMO_REVIEWS)
    result = PerspectiveSplit(value_source="stars", value_column="stars", focus_value="5", ratios=(0.5,),
                              units_per_input=4, perspective_template="amazon").run(documents)
    assert result.inputs
    for item in result.inputs:
        assert item.extra["perspective_template"] == "amazon"
        assert item.extra["value_counts"].get("5") == 2


def test_unknown_templates_and_sources_are_rejected():
    with pytest.raises(ValueError, match="perspective_template"):
        SentimentConfig(perspective_template="tweets")
    with pytest.raises(ValueError, match="value_source"):
        SentimentConfig(value_source="gpt")


def test_corpus_values_lists_each_value_with_its_unit_count_in_the_splits_order():
    from bias_core.common.records import Document, Unit
    from bias_core.perturb.sentiment import SentimentConfig, corpus_values

    document = Document(id="r", units=[Unit("Great.", "pos"), Unit("Bad.", "neg"), Unit("Fine.", "neu"),
                                       Unit("Superb.", "pos")])
    assert corpus_values([document], SentimentConfig()) == {"pos": 2, "neg": 1, "neu": 1}
    stars = Document(id="s", units=[Unit("a", "5"), Unit("b", "1"), Unit("c", "10")])
    assert list(corpus_values([stars], SentimentConfig(value_source="stars"))) == \
        sorted(list(corpus_values([stars], SentimentConfig(value_source="stars"))), key=int)
