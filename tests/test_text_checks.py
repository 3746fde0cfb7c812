"""``reading_defects`` finds what a reader trips on in shown text (issue 29, Why 5 and 7), and nothing else."""

from __future__ import annotations

import pytest

from bias_core.views.text_checks import reading_defects


@pytest.mark.parametrize("text", [
    "Holm p: None",
    "estimate nan",
    "effect: NaN",
    "effect: undefined",
    "textrank: no evidence (this audit could detect an MBIC of ±0.08 (−1 to 1) with 80% power) (0.07 (score))",
    "f((x)",
    "no difference, the summaries are identical — lead-3 · no difference: the summaries are identical",
    "no hallucinated name; no hallucinated name",
    "a chart note<br>lead-3: cannot be computed — x<br>sexist: cannot be computed, cannot be computed",
    "-0.03 on a scale from −1 to 1 (95% interval -0.09 to 0.04)",
])
def test_each_defect_a_stakeholder_tripped_on_is_reported(text):
    assert reading_defects(text)


@pytest.mark.parametrize("text", [
    "None of the chosen runs has results on this perturbation.",
    ("sexist writes differently about women and men: its summaries of the two versions can be told apart — 0.37 on "
    "a scale from −1 to 1 (95% interval 0.14 to 0.60)"),
    "odds 1.24× for men against women (95% interval 0.81–1.85)",
    ("-2.4 percentage points against a summary blind to ratings (95% interval -4.4 to +0.9); this audit could detect "
    "a difference of 2.3 percentage points or more four times in five"),
    "Nancy and Nan wrote an annotated, undefeated report",
    "−0.03 on a scale from −1 to 1 (95% interval −0.09 to 0.04) · lead-3 · 1990-91",
    "",
])
def test_plain_sentences_numbers_and_words_that_contain_the_codes_are_not_defects(text):
    assert reading_defects(text) == []


def test_a_phrase_counts_within_one_line_only_and_needs_three_words():
    assert reading_defects("no difference here\nno difference here") == []
    assert reading_defects("no difference, and no difference") == []  # two words
    assert reading_defects("the summaries are the summaries") == []  # overlapping: "the summaries are" is once
    found = reading_defects("women and men are kept; women and men are kept")
    assert len(found) == 1 and "'women and men'" in found[0]


def test_each_missing_word_is_reported_once_by_name():
    found = reading_defects("None · None · nan\nundefined")
    assert found == ["the word 'None' where a value is missing", "the word 'nan' where a value is missing",
                     "the word 'undefined' where a value is missing"]
