"""Fightin' Words (METHODS §4.6; Monroe et al. 2008) against a hand computation, with masks, pairs and priors."""

from __future__ import annotations

import math

import pytest

from bias_core.measures.fightin_words import (
    adaptive_min_count,
    fightin_words,
    fightin_words_measure,
    split_by_majority_identifiers,
)
from bias_core.measures.lexicons import paired_identifiers


def hand_z(y1, y2, n1, n2, alpha, alpha0):
    delta = math.log((y1 + alpha) / (n1 + alpha0 - y1 - alpha)) - math.log((y2 + alpha) / (n2 + alpha0 - y2 - alpha))
    return delta / math.sqrt(1 / (y1 + alpha) + 1 / (y2 + alpha))


def test_z_scores_match_the_formula_with_uninformative_prior():
    result = fightin_words(["a a b"], ["b c"], min_count=1, normalise_pairs=False)
    scores = {t.term: t for t in result.terms}
    # |V| = 3 -> alpha0 = 0.03; n1 = 3, n2 = 2
    assert scores["a"].z == pytest.approx(hand_z(2, 0, 3, 2, 0.01, 0.03))
    assert scores["b"].z == pytest.approx(hand_z(1, 1, 3, 2, 0.01, 0.03))
    assert scores["c"].z == pytest.approx(hand_z(0, 1, 3, 2, 0.01, 0.03))
    assert [t.term for t in result.terms] == ["a", "b", "c"]  # sorted by z, side A first
    assert (scores["a"].count_a, scores["a"].count_b) == (2, 0)


def test_paired_identifiers_are_normalised_and_masks_win():
    assert paired_identifiers()["mother"] == "father/mother"
    result = fightin_words(["Her mother met Linda."], ["His father met John."], min_count=1,
                           mask={"linda": "[first_name]", "john": "[first_name]"})
    terms = {t.term: t for t in result.terms}
    assert terms["father/mother"].count_a == 1 and terms["father/mother"].count_b == 1
    assert terms["[first_name]"].z == pytest.approx(0.0)
    assert "linda" not in terms and "mother" not in terms


def test_significance_flags_and_bh_correction():
    texts_a = ["league season goal"] * 150 + ["family dinner goal"] * 50
    texts_b = ["league season goal"] * 50 + ["family dinner goal"] * 150
    result = fightin_words(texts_a, texts_b)
    top_a, top_b = result.top(2)
    assert {t.term for t in top_a} == {"league", "season"}
    assert {t.term for t in top_b} == {"family", "dinner"}
    # words seen on one side only get z ~ delta / 10 under alpha = 0.01 (sigma is dominated by 1/alpha)
    exclusive = fightin_words(["league"] * 200, ["family"] * 200).terms[0]
    assert exclusive.z == pytest.approx(exclusive.delta / math.sqrt(1 / 200.01 + 1 / 0.01))
    assert all(t.significant and t.significant_bh for t in top_a + top_b)
    goal = next(t for t in result.terms if t.term == "goal")
    assert not goal.significant and not goal.significant_bh


def test_adaptive_min_count_grows_with_corpus_size():
    assert adaptive_min_count(1_000) == 2
    assert adaptive_min_count(1_000_000) == 20
    result = fightin_words(["rare common common"], ["common"])
    assert [t.term for t in result.terms] == ["common"]


def test_informative_prior_shrinks_words_frequent_in_the_background():
    texts_a, texts_b = ["x y"] * 5, ["y"] * 5
    flat = {t.term: t.z for t in fightin_words(texts_a, texts_b).terms}
    informed = {t.term: t.z for t in fightin_words(texts_a, texts_b, prior="informative",
                                                     background=["x"] * 500 + ["y"] * 5).terms}
    assert informed["x"] < flat["x"]
    with pytest.raises(ValueError):
        fightin_words(texts_a, texts_b, prior="informative")


def test_measure_result_counts_bh_significant_words_and_empty_is_undefined():
    result = fightin_words(["league season"] * 300 + ["family dinner"] * 100,
                           ["league season"] * 100 + ["family dinner"] * 300, label_a="male", label_b="female")
    measure = fightin_words_measure(result, top_k=1)
    assert measure.value == 4.0 and measure.details["top_male"][0]["term"] in {"league", "season"}
    empty = fightin_words_measure(fightin_words(["a"], ["b"], min_count=5))
    assert math.isnan(empty.value) and "minimum count" in empty.reason


def test_inputs_split_by_majority_identifiers_leave_ties_out():
    groups = split_by_majority_identifiers(["She and her mother won.", "He won.", "He and she won.", "Rain."])
    assert groups == {"female": ["She and her mother won."], "male": ["He won."]}


def test_husband_survives_as_its_own_term_under_the_default_steen_markert_pairs():
    female = ["Her husband and her mother came.", "The woman thanked her husband."]
    male = ["His wife and his father came.", "The man thanked his wife."]
    result = fightin_words(female, male, label_a="female", label_b="male", min_count=1)
    terms = {t.term: t for t in result.terms}
    assert terms["husband"].count_a == 2 and terms["husband"].count_b == 0 and terms["husband"].z > 0
    assert terms["wife"].z < 0
    assert terms["father/mother"].count_a == 1 and terms["father/mother"].count_b == 1  # a Table 10 pair
    assert terms["man/woman"].z == pytest.approx(0.0)
    assert terms["his/him/her/hers"].z == pytest.approx(0.0)  # "her" is object and possessive: one token
    assert result.to_details()["paired_identifiers"] == "steen-markert"


def test_default_pairs_are_exactly_the_table_10_pairs():
    from bias_core.common.wordlists import HELM_FEMALE_WORDS, HELM_MALE_WORDS
    from bias_core.measures.lexicons import steen_markert_pairs

    pairs = steen_markert_pairs()
    assert set(pairs) == set(HELM_FEMALE_WORDS) | set(HELM_MALE_WORDS)
    assert pairs["niece"] == pairs["nephew"] == "nephew/niece"
    assert pairs["femen"] == pairs["males"] == "males/femen"  # the HELM typo, kept as Table 10 has it
    assert "husband" not in pairs and "chairman" not in pairs


def test_extended_and_no_pairs_are_options_recorded_in_the_details():
    texts_a, texts_b = ["her husband left", "the chairwoman spoke"], ["his wife left", "the chairman spoke"]
    extended = fightin_words(texts_a, texts_b, min_count=1, paired_identifiers="extended")
    terms = {t.term for t in extended.terms}
    assert {"husband/wife", "chairman/chairwoman"} <= terms and "husband" not in terms
    assert extended.to_details()["paired_identifiers"] == "extended"
    none = fightin_words(texts_a, texts_b, min_count=1, paired_identifiers="none")
    assert {"husband", "wife", "her", "his"} <= {t.term for t in none.terms}
    assert none.to_details()["paired_identifiers"] == "none"
    with pytest.raises(ValueError, match="paired_identifiers must be one of"):
        fightin_words(texts_a, texts_b, paired_identifiers="helm")


def test_a_user_file_of_pairs_can_be_used(tmp_path):
    own = tmp_path / "pairs.tsv"
    own.write_text("# mine\nking\tqueen\n", encoding="utf-8")
    result = fightin_words(["the queen and her aunt"], ["the king and his uncle"], min_count=1,
                           paired_identifiers=own)
    terms = {t.term for t in result.terms}
    assert "king/queen" in terms and {"aunt", "uncle"} <= terms
