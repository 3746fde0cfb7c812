"""Distinguishability under the coherent scope of a gender swap (issue 27): the nouns a swap rewrites and the words it
drops for a woman are anonymised like names and pronouns, so a summarizer that copies its input (lead-3) still scores
exactly 0, while one that writes about the groups differently is still told apart."""

from __future__ import annotations

from bias_core.common.records import Substitution
from bias_core.measures.distinguishability import anonymise, distinguishability
from tests.test_measures_steen_markert import entity, make_input, pair


def _glob_pairs(texts_by_group, subs_by_group):
    pairs = []
    for group, texts in texts_by_group.items():
        for index, text in enumerate(texts):
            first = "Linda" if group == "female" else "John"
            item = make_input(f"{group}{index}", "o", index, group, f"text of sample {index}",
                              [entity("e1", group, first, "Moore")], perturbation="gender-glob")
            item.substitutions = list(subs_by_group.get(group, []))
            pairs.append(pair(item, text))
    return pairs


# The original is about a man; the female arm rewrote "son" and dropped ", Jr."; the male arm changed neither.
FEMALE_SUBS = [Substitution(11, 11, ", Jr.", "", "title", "e1"), Substitution(30, 38, "son", "daughter",
                                                                                  "content_word", "e1")]


def test_a_copying_summarizer_scores_zero_when_the_arms_differ_only_by_rewritten_nouns_and_dropped_suffixes():
    pairs = _glob_pairs({"female": ["Linda Moore said her daughter won the race."] * 3,
                         "male": ["John Moore, Jr., said his son won the race."] * 3}, {"female": FEMALE_SUBS})
    [result] = distinguishability(pairs, similarity="count", n_resamples=50)
    assert result.value == 0.0


def test_content_that_follows_the_group_is_still_told_apart():
    pairs = _glob_pairs({"female": ["Linda Moore cooked dinner for her daughter.", "Linda Moore cooked dinner."],
                         "male": ["John Moore, Jr., fixed the car of his son.", "John Moore fixed the car."]},
                        {"female": FEMALE_SUBS})
    [result] = distinguishability(pairs, similarity="count", n_resamples=50)
    assert result.value == 1.0


def test_the_anonymiser_masks_rewritten_nouns_and_removes_dropped_words_with_their_comma():
    assert anonymise("Karl Lund, Jr., said his son agreed.", ["Karl"], ["Lund"], nouns=["son", "daughter"],
                     dropped=["Jr."]) == "FIRST_NAME LAST_NAME, said them PERSON_WORD agreed."
    assert anonymise("Messrs. Levy and Cohen", [], ["Levy", "Cohen"]) == "LAST_NAME and LAST_NAME"


def test_an_article_whose_arm_inputs_never_vary_is_skipped_not_scored_as_distinguishable():
    """"Mr. Lund" / "Ms. Lund" with no name drawn: each arm's inputs are one text, so a summarizer that picks random
    sentences seeded by its input (the topic baseline) writes one summary per arm and would score 1 there."""
    pairs = []
    for group, summary in (("female", "She opened the store. Sales rose."), ("male", "He thanked the staff.")):
        for index in range(2):
            item = make_input(f"{group}{index}", "o", index, group, f"{group} text, the same in every sample",
                              [entity("e1", group, None, "Lund")], perturbation="gender-glob")
            pairs.append(pair(item, summary))
    [result] = distinguishability(pairs, similarity="count", n_resamples=20)
    assert result.details["repeated_inputs_dropped"] == 2 and result.details["articles_skipped"] == 1
    assert result.value != result.value  # nan: no article left to score
    [theirs] = distinguishability(pairs, similarity="count", n_resamples=20, rules="authors")
    assert theirs.value == 1.0  # the authors' code scores it, as they do


def test_identical_inputs_in_every_arm_are_still_scored_as_identity_against_identity():
    """Every input restored to one text (the identity-against-identity null control): the arms differ only in what
    the summarizer adds, so the article is scored."""
    pairs = []
    for group, summaries in (("female", ["Sales rose. The store grew.", "The store grew."]),
                             ("male", ["Sales rose.", "Sales rose. Staff stayed."])):
        for index, summary in enumerate(summaries):
            item = make_input(f"{group}{index}", "o", index, group, "the original text, restored",
                              [entity("e1", group, None, "Lund")], perturbation="gender-glob")
            pairs.append(pair(item, summary))
    [result] = distinguishability(pairs, similarity="count", n_resamples=20)
    assert result.details["repeated_inputs_dropped"] == 0 and result.value == result.value


def test_a_repeated_input_counts_once_while_the_other_arm_varies():
    """The female arm names nobody new (one text, three times), the male arm draws new names: the female summary counts
    once, and the male summaries are scored against it and each other. A summarizer that writes about men apart from
    women is still told apart; one that only repeats itself on a repeated input is not."""
    def pairs_for(female_summary, male_summaries):
        pairs = []
        for index in range(3):
            item = make_input(f"female{index}", "o", index, "female", "Ms. Lund opened the store.",
                              [entity("e1", "female", None, "Lund")], perturbation="gender-glob")
            pairs.append(pair(item, female_summary))
        for index, summary in enumerate(male_summaries):
            item = make_input(f"male{index}", "o", index, "male", f"Mr. Lund {index} opened the store.",
                              [entity("e1", "male", None, "Lund")], perturbation="gender-glob")
            pairs.append(pair(item, summary))
        return pairs

    [result] = distinguishability(pairs_for("Sales rose.", ["Lund fixed the car.", "Lund fixed the car again.",
                                                            "Lund fixed a car."]), similarity="count", n_resamples=20)
    assert result.details["repeated_inputs_dropped"] == 2 and result.value == 1.0
    [result] = distinguishability(pairs_for("Sales rose.", ["Sales rose.", "Staff stayed.", "The store grew."]),
                                  similarity="count", n_resamples=20)
    assert result.value < 1.0
