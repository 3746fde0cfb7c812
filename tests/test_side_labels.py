"""Compare labels each side by what it is (issue 29, Deliver 6): "original" for the unchanged article, else the arm
in words and the sample; a perturbed text is never labelled "original" (bias_core.views.sides)."""

from __future__ import annotations

from bias_core.common.records import Input
from bias_core.views.sides import side_label, side_labels


def variant(input_id: str, perturbation: str, **fields) -> Input:
    return Input(id=input_id, original_id="doc", text="text", perturbation=perturbation, **fields)


def test_the_unchanged_article_is_the_original_and_a_perturbed_one_its_arm_and_sample():
    assert side_label(variant("doc", "identity", role="identity")) == "original"
    assert side_label(variant("doc/g", "gender-glob", sample_id=1, arm="female")) == \
        "gender-glob · all people women, sample 1"
    assert side_label(variant("doc/r", "race", sample_id=2, arm="b")) == \
        "race · arm b: every person's race inverted, sample 2"


def test_a_quadruples_original_position_is_a_perturbed_text_and_is_not_called_original():
    arm_a = variant("doc/l/a", "gender-loc", sample_id=0, arm="a", role="original", quadruple_id="q")
    control = variant("doc/l/a/control", "gender-loc", sample_id=0, arm="a", role="control", quadruple_id="q")
    labels = side_labels([arm_a, control])
    assert labels["doc/l/a"] == "gender-loc · arm a: half the people women, half men, sample 0"
    assert labels["doc/l/a/control"] == "gender-loc · arm a: half the people women, half men, sample 0, " \
                                        "within-group control"
    assert not any("original" in label for label in labels.values())


def test_the_politician_swaps_sides_name_the_politician_as_written_or_swapped_in():
    written = variant("doc/p/s0/trump", "politician", sample_id=0, arm="Donald Trump", role="original")
    swapped = variant("doc/p/s0/biden", "politician", sample_id=0, arm="Joe Biden", role="swap1")
    assert side_label(written) == "politician · Donald Trump as written, sample 0"
    assert side_label(swapped) == "politician · Joe Biden swapped in, sample 0"


def test_a_sentiment_arm_reads_as_its_share_and_two_alike_sides_get_their_ids():
    share = variant("doc/s", "sentiment", sample_id=1, arm="1=0.2", extra={"meta": {"value_kind": "stars"}})
    assert side_label(share) == "sentiment · 20% of the reviews rated 1 star, sample 1"
    twins = side_labels([variant("doc/x", "race", sample_id=1, arm="a"), variant("doc/y", "race", sample_id=1, arm="a")])
    assert twins["doc/x"].endswith("(doc/x)") and twins["doc/y"].endswith("(doc/y)")
