"""The adjusted word-list test is a contrast of the two arms of each draw of names (METHODS §4.1; issue 28): gendered
words the perturbation did not write cancel exactly, so a summarizer that ignores the swap scores exactly 0."""

from __future__ import annotations

import pytest

from bias_core.common.records import Input, Summary
from bias_core.measures.common import Pair
from bias_core.measures.steen_markert import word_list_inclusion
from bias_core.verdicts.judge import IDENTICAL, judge

# Per original: one swapped person (the pronouns the perturbation writes) and an unnamed man it leaves ("his").
ARTICLE = ("{name} runs the lab. {She} said the grant ends in May. A guard lost his keys. "
           "{She} thanked {her} team. The man who found them left.")
FORMS = {"female": {"name": "Ann Lee", "She": "She", "her": "her"},
         "male": {"name": "Tom Lee", "She": "He", "her": "his"}}


def version(original: str, sample: int, arm: str, group: str) -> Input:
    return Input(id=f"{original}/{sample}/{arm}", original_id=original, sample_id=sample, arm=arm,
                 text=ARTICLE.format(**FORMS[group]), perturbation="gender-loc")


def lead(text: str, k: int) -> str:
    return " ".join(text.split(". ")[:k]).strip() + ("" if text.split(". ")[:k][-1].endswith(".") else ".")


def audit(summarize, originals: int = 6) -> dict:
    """C_loc draws: in draw 0 arm a is the woman, in draw 1 arm b is (the complement design)."""
    pairs = []
    for number in range(originals):
        for sample, (group_a, group_b) in enumerate((("female", "male"), ("male", "female"))):
            for arm, group in (("a", group_a), ("b", group_b)):
                item = version(f"o{number}", sample, arm, group)
                pairs.append(Pair(item, Summary(item.id, "s", summarize(item.text, group, number))))
    results = word_list_inclusion(pairs, n_resamples=100)
    return {r.ci_kind: r for r in results if r.measure == "word_list_inclusion_adjusted"}


def test_a_summarizer_that_ignores_the_swap_scores_exactly_zero_beside_words_the_swap_left():
    found = audit(lambda text, group, number: lead(text, 3 + number % 2))
    test = found["d"].details["test"]
    assert test["estimate"] == 0.0 and test["identical"] and test["n_originals"] == 6
    assert judge(found["d"], list(found.values())).status == IDENTICAL
    # the paper's pooled score still sees the unnamed man's "his": it is the value, not the test
    assert found["d"].details["signed"]["value"] != 0.0


def test_a_summarizer_that_keeps_a_woman_s_sentences_more_is_positive_in_either_arm_order():
    def keeps_women(text, group, number):
        return lead(text, 4 if group == "female" else 2 + number % 2)

    test = audit(keeps_women)["d"].details["test"]
    assert test["estimate"] > 0 and test["ci_low"] > 0 and test["p_value"] < 0.05
    men = audit(lambda text, group, number: lead(text, 4 if group == "male" else 2 + number % 2))["d"]
    assert men.details["test"]["estimate"] == pytest.approx(-test["estimate"])


def test_the_interval_inverts_the_test_that_gives_the_p_value():
    def noisy(text, group, number):
        return lead(text, 4 if (group == "female") == (number % 3 != 0) else 2)

    test = audit(noisy, originals=9)["d"].details["test"]
    assert test["method"].startswith("one-sample t-test")
    assert (test["p_value"] < 0.05) == (test["ci_low"] > 0 or test["ci_high"] < 0)
    assert test["ci_low"] < test["estimate"] < test["ci_high"]


def test_with_within_group_controls_each_quadruple_gives_two_draws():
    """gender-loc with controls writes four inputs per draw (original, control in arm a; swap1, swap2 in arm b): the
    test pairs the original with swap1 and the control with swap2 rather than dropping the draw."""
    pairs = []
    for number in range(4):
        for role, arm, group in (("original", "a", "female"), ("control", "a", "female"), ("swap1", "b", "male"),
                                 ("swap2", "b", "male")):
            item = version(f"o{number}", 0, arm, group)
            item = Input(id=f"{item.id}/{role}", original_id=item.original_id, sample_id=0, arm=arm, text=item.text,
                         perturbation="gender-loc", role=role, quadruple_id=f"o{number}/0")
            kept = 4 if group == "female" else 2 + number % 2
            pairs.append(Pair(item, Summary(item.id, "s", lead(item.text, kept))))
    found = {r.ci_kind: r for r in word_list_inclusion(pairs, n_resamples=100)
             if r.measure == "word_list_inclusion_adjusted"}
    test = found["d"].details["test"]
    assert test["n_originals"] == 4 and test["estimate"] > 0 and test["draws_balanced"] == 0
