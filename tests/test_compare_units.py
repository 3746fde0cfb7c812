"""Compare per perturbation kind (issue 14): sentiment splits are compared by the units each summary draws from, so
a summarizer that picks reviews regardless of their value no longer tops the ranking for the inputs' own change."""

from __future__ import annotations

import pytest

from bias_core.common.records import Input, Summary, Unit
from bias_core.compare.diff import rank_originals
from bias_core.compare.units import attribute, composition_difference, focus_shift, is_unit_composition, unit_coverage
from tests.conftest import open_app

GOOD = ["Great sound and a battery that lasts all week.", "Comfortable for long sessions and easy to pair.",
        "Best headphones I have owned at this price.", "The case is sturdy and the cable is long."]
BAD = ["The left ear cup broke after three weeks.", "Support never answered my emails about the refund.",
       "The app insists that I create an account.", "Static noise on every call I made."]


def split_input(original: str, sample: int, bad_share: float, order: list[str]) -> Input:
    units = [Unit(text, "1" if text in BAD else "5") for text in order]
    return Input(id=f"{original}/sentiment/s{sample}/1={bad_share}", original_id=original, text=" ".join(order),
                 perturbation="sentiment", sample_id=sample, arm=f"1={bad_share}", units=units,
                 extra={"focus_value": "1"})


def test_each_summary_sentence_is_attributed_to_the_unit_it_comes_from():
    index, overlap = attribute("Static noise on every call I made.", GOOD + BAD)
    assert (index, overlap) == (7, 1.0)
    assert attribute("The reviews are mixed.", GOOD + BAD)[0] is None  # the model's own words count for no value


def test_shares_and_shift_of_a_summary_against_its_own_input():
    item = split_input("o", 0, 0.5, [GOOD[0], BAD[0], GOOD[1], BAD[1]])
    coverage = unit_coverage(item, f"{GOOD[0]} {GOOD[1]} Overall fine.")
    assert coverage.input_shares == {"5": 0.5, "1": 0.5}
    assert coverage.summary_shares == {"5": 1.0}
    assert coverage.shift == {"5": 0.5, "1": -0.5}
    assert coverage.covered == {0, 2}
    assert focus_shift(item, f"{GOOD[0]} {GOOD[1]}") == -0.5


def test_summaries_that_reweight_their_inputs_alike_do_not_differ_whatever_the_inputs_hold():
    a = split_input("o", 0, 0.25, [GOOD[0], GOOD[1], GOOD[2], BAD[0]])
    b = split_input("o", 1, 0.5, [GOOD[0], BAD[0], GOOD[1], BAD[1]])
    # Each summary reports its input's values in the input's proportions: no model-made difference.
    same = composition_difference(unit_coverage(a, f"{GOOD[0]} {GOOD[1]} {GOOD[2]} {BAD[0]}"),
                                  unit_coverage(b, f"{GOOD[0]} {BAD[0]}"))
    assert same == pytest.approx(0.0)
    # One keeps the input's balance, the other drops the bad reviews: a difference.
    different = composition_difference(unit_coverage(a, f"{GOOD[0]} {GOOD[1]} {GOOD[2]} {BAD[0]}"),
                                       unit_coverage(b, f"{GOOD[0]} {GOOD[1]}"))
    assert different == pytest.approx(0.5)


def test_a_value_blind_summarizer_ranks_below_one_that_drops_the_focus_value():
    inputs, summaries = [], []
    identity = Input(id="o/identity", original_id="o", text=" ".join(GOOD + BAD),
                     units=[Unit(t, "1" if t in BAD else "5") for t in GOOD + BAD])
    inputs.append(identity)
    orders = [[GOOD[0], BAD[0], GOOD[1], BAD[1]], [BAD[2], GOOD[2], BAD[3], GOOD[3]],
              [GOOD[1], BAD[1], GOOD[0], BAD[0]], [BAD[0], GOOD[3], BAD[2], GOOD[1]]]
    for sample, order in enumerate(orders):
        item = split_input("o", sample, 0.5, order)
        inputs.append(item)
        # lead-2 takes the first two units, whatever their value; "positive" keeps only the good ones.
        summaries.append(Summary(item.id, "lead-2", " ".join(order[:2])))
        summaries.append(Summary(item.id, "positive", " ".join(t for t in order if t in GOOD)))
    for name in ("lead-2", "positive"):
        summaries.append(Summary(identity.id, name, " ".join(GOOD[:2])))
    assert all(is_unit_composition(item) for item in inputs)
    ranking = rank_originals(inputs, summaries, perturbation="sentiment")
    assert [row.summarizer for row in ranking] == ["positive", "lead-2"]
    assert ranking[0].mean_difference == pytest.approx(0.5)  # always 0% bad reviews where inputs hold 50%
    assert ranking[1].mean_difference == pytest.approx(0.0)  # first two units: one good, one bad each time


def test_compare_shows_sentiment_pairs_by_units_and_values_not_as_a_word_diff(monkeypatch, tmp_path):
    monkeypatch.setenv("SUMMBIAS_NO_DEMO", "0")
    at = open_app("pages/compare.py")
    at.selectbox(key="compare_perturbation").set_value("sentiment").run()
    assert not at.exception
    assert at.selectbox(key="compare_original").value.startswith("reviews-")
    captions = [caption.value for caption in at.caption]
    assert any("ranked by how much more or less often a summary reports the value" in c for c in captions)
    assert any("compared with its own input" in c for c in captions)
    assert not any(c.startswith("Model-made difference") for c in captions)
    shares = [frame.value for frame in at.dataframe if "share in input" in frame.value.columns]
    assert shares and all(set(frame.columns) == {"value", "share in input", "share in summary", "shift"}
                          for frame in shares)
