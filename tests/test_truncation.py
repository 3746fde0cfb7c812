"""Generations cut off by the token limit end at their last complete sentence (docs/fidelity.md)."""

from __future__ import annotations

from bias_core.summarize.truncation import complete_sentences, ends_sentence


def test_an_unfinished_last_sentence_is_dropped_so_no_half_name_remains():
    [completed] = complete_sentences(["Robert Moore will not run again. His deputy, Judge Al"])
    assert completed.text == "Robert Moore will not run again."
    assert completed.dropped == "His deputy, Judge Al"


def test_an_abbreviated_title_is_not_taken_for_the_end_of_a_sentence():
    [completed] = complete_sentences(["The council met. Mr. Smith said the vote was close and Donna Sim"])
    assert completed.text == "The council met."


def test_a_finished_generation_is_kept_whole_including_closing_quotes():
    texts = ['She said: "We will win."', "Is it over?", "It ended (finally.)"]
    assert [c.text for c in complete_sentences(texts)] == texts
    assert all(ends_sentence(text) for text in texts)


def test_a_generation_without_any_complete_sentence_becomes_empty():
    [completed] = complete_sentences(["The mayor of Springfield, Robert Moore, who has served for"])
    assert completed.text == "" and completed.dropped.startswith("The mayor")
