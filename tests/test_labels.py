"""Input variants in words (bias_core.views.labels.variant_label/variant_labels): the form Compare's links carry, so a
label must name exactly one variant of an original."""

from __future__ import annotations

from bias_core.common.records import Input
from bias_core.views.labels import variant_label, variant_labels


def variant(input_id: str, perturbation: str, **fields) -> Input:
    return Input(id=input_id, original_id="doc", text="t", perturbation=perturbation, **fields)


def test_a_variant_reads_as_perturbation_draw_arm_and_role():
    assert variant_label(variant("doc", "identity")) == "identity"
    assert variant_label(variant("doc/r", "race", sample_id=2, arm="b")) == "race · sample 2 · arm b"
    assert variant_label(variant("doc/c", "gender-loc", sample_id=0, arm="a", role="control")) == \
        "gender-loc · sample 0 · arm a · control"


def test_two_variants_that_would_read_the_same_are_told_apart_by_their_ids():
    items = [variant("doc", "identity"), variant("doc/x", "race", sample_id=1, arm="a"),
             variant("doc/y", "race", sample_id=1, arm="a")]
    labels = variant_labels(items)
    assert labels["doc"] == "identity"
    assert labels["doc/x"] == "race · sample 1 · arm a (doc/x)"
    assert len(set(labels.values())) == len(items)
