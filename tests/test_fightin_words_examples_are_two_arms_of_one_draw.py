"""The texts shown under a Fightin' Words word are the two arms of one draw (issue 29, Why 2 and 4): the same
original and sample summarized in each arm, never arm A of one draw beside arm B of another."""

from __future__ import annotations

from bias_core.common.records import Input, Summary
from bias_core.measures import fightin_words as fw
from bias_core.views.fightin_words_view import example_draws


def pairs() -> list[tuple[Summary, Input]]:
    out = []
    texts = {("o1", 0, "female"): "The nurse spoke.", ("o1", 0, "male"): "The doctor spoke.",
             ("o1", 1, "female"): "A nurse and a nurse.", ("o1", 1, "male"): "A nurse.",
             ("o2", 0, "female"): "Nothing here.", ("o2", 0, "male"): "Nothing there.",
             ("o3", 0, "male"): "The nurse came."}
    for (original, sample, arm), text in texts.items():
        item = Input(id=f"{original}/gender-glob/s{sample}/{arm}", original_id=original, text=text,
                     perturbation="gender-glob", sample_id=sample, arm=arm)
        out.append((Summary(item.id, "m", text), item))
    return out


def test_each_example_holds_both_arms_of_the_same_original_and_sample():
    draws = example_draws(pairs(), "female", "male", "nurse", fw.build_replacements({}))
    by_draw = {(d.original_id, d.sample_id): d for d in draws}
    assert list(by_draw) == [("o1", 1), ("o1", 0), ("o3", 0)], "most occurrences first, then original and sample"
    assert (by_draw["o1", 1].text_a, by_draw["o1", 1].text_b) == ("A nurse and a nurse.", "A nurse.")
    assert (by_draw["o1", 0].text_a, by_draw["o1", 0].text_b) == ("The nurse spoke.", "The doctor spoke.")
    assert len(by_draw["o1", 1].spans_a) == 2 and len(by_draw["o1", 0].spans_b) == 0
    assert by_draw["o3", 0].text_a is None, "an arm without a summary of that draw says so, it is not borrowed"


def test_a_masked_word_is_found_as_its_marker():
    items = pairs()
    draws = example_draws(items, "female", "male", "[title]", fw.build_replacements({"nurse": "[title]"}))
    assert {(d.original_id, d.sample_id) for d in draws} == {("o1", 0), ("o1", 1), ("o3", 0)}
