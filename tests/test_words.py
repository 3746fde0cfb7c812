"""Counts in words (bias_core.common.words): no "1 originals", no "0 sets of units" clause."""

from bias_core.common.words import counted, counted_parts, plural


def test_one_takes_the_singular_and_every_other_count_the_plural():
    assert counted(1, "original") == "1 original"
    assert counted(0, "original") == "0 originals"
    assert counted(3, "summary") == "3 summaries"
    assert counted(1204, "input") == "1,204 inputs"
    assert plural(2, "does") == "do" and plural(1, "does") == "does"


def test_zero_parts_are_left_out_unless_every_part_is_zero():
    assert counted_parts((12, "article"), (0, "set of units")) == "12 articles"
    assert counted_parts((1, "article"), (3, "set of units")) == "1 article and 3 sets of units"
    assert counted_parts((2, "a"), (3, "b"), (4, "c")) == "2 as, 3 bs and 4 cs"
    assert counted_parts((0, "article"), (0, "set of units")) == "0 articles"
