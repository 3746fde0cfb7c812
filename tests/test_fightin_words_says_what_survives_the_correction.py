"""Fightin' Words says in a sentence what survives the correction on each side (issue 29, Why 4): a side where no
word survives, or that has no word at all, reads a sentence, never a bare table reading "empty"."""

from __future__ import annotations

from bias_core.measures import fightin_words as fw
from bias_core.views import fightin_words_view as fwv
from bias_core.views.fightin_words_view import side_sentence, side_terms

BALANCED = ["the council approved the budget for the new school"] * 20


def test_no_word_surviving_the_correction_is_said_with_the_number_of_words_tested():
    result = fw.fightin_words(BALANCED + ["budget plan"], BALANCED + ["school plan"], min_count=1)
    assert not any(t.significant_bh for t in result.terms)
    sentence = side_sentence(result, "a", "all people women", content_only=True)
    assert sentence == (f"No content word is used significantly more in A (all people women) after correcting for "
                        f"multiple comparisons: {len(result.terms)} words tested, Benjamini–Hochberg.")


def test_words_that_survive_are_counted_in_words_with_their_verb():
    side_a = ["the nurse nurse nurse and the smiling nurse met the pilot"] * 30
    side_b = ["the nurse met the pilot pilot pilot and the smiling pilot"] * 30
    result = fw.fightin_words(side_a, side_b)
    significant = [t for t in side_terms(result, "a", content_only=True) if t.significant_bh]
    sentence = side_sentence(result, "a", "women", content_only=True)
    assert sentence.startswith("1 content word is used significantly more in A (women) after correcting")
    assert side_sentence(result, "b", "men", content_only=True).startswith("1 content word is used significantly")
    both = fw.fightin_words([text + " doctor doctor doctor" for text in side_a], [text + " doctor" for text in side_b])
    assert side_sentence(both, "a", "women", content_only=True).startswith("2 content words are used significantly")
    assert [t.term for t in significant] == ["nurse"]


def test_a_side_with_no_word_at_all_says_so():
    result = fw.fightin_words(["budget budget school"] * 5, ["budget school school"] * 5)
    assert [t.term for t in side_terms(result, "b", content_only=True)] == ["school"]
    only_a = fw.fightin_words(["budget budget"] * 5, ["budget budget"] * 5)
    assert side_sentence(only_a, "b", "men", content_only=False) == (
        "No word is used more in B (men) than in the other side: 1 word tested.")


def test_no_word_reaching_the_minimum_count_says_nothing_was_tested():
    result = fw.fightin_words(["alpha"], ["beta"], min_count=5)
    assert side_sentence(result, "a", "women", content_only=True) == (
        "No word occurs at least 5 times in A and B together, so no word was tested and none is used more in A "
        "(women).")


def test_stop_words_are_left_out_of_the_count_only_in_the_content_words_view():
    result = fw.fightin_words(["the the the the the the the"] * 30, ["a a a a a a a"] * 30)
    assert side_sentence(result, "a", "women", content_only=True).startswith("No content word is used more in A")
    assert side_sentence(result, "a", "women", content_only=False).startswith("1 word is used significantly")


def test_a_stored_table_says_the_same_and_at_least_where_every_listed_word_survives():
    side_a = ["the nurse nurse nurse and the smiling nurse met the pilot"] * 30
    side_b = ["the nurse met the pilot pilot pilot and the smiling pilot"] * 30
    table = fw.fightin_words(side_a, side_b, label_a="highsim", label_b="lowsim").to_details(k=1)
    assert fwv.stored_side_sentence(table, "highsim") == (
        f"At least 1 word is used significantly more in highsim after correcting for multiple comparisons: "
        f"{table['vocabulary']} words tested, Benjamini–Hochberg.")
    none = fw.fightin_words(BALANCED + ["budget plan"], BALANCED + ["school plan"], label_a="highsim",
                            label_b="lowsim", min_count=1).to_details()
    assert fwv.stored_side_sentence(none, "lowsim").startswith("No word is used significantly more in lowsim after")
    assert fwv.stored_side_sentence({"top_lowsim": [], "vocabulary": 0}, "lowsim") == (
        "No word is used more in lowsim than in the other side: 0 words tested.")
