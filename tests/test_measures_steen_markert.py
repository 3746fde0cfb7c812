"""Steen & Markert measures (METHODS §3, §4.1–§4.5) on hand-made inputs and summaries with hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bias_core.common.records import Entity, Input, Summary
from bias_core.measures.alignment import (
    align_summaries,
    classify_name_gender,
    mention_aligns,
    name_tokens,
    unterminated_sentence_start,
)
from bias_core.measures.common import Pair
from bias_core.measures.distinguishability import (
    TIE_TOLERANCE,
    anonymise,
    article_distinguishability,
    distinguishability,
    identical_texts_similar,
)
from bias_core.measures.steen_markert import (
    align_pairs,
    entity_hallucination,
    entity_inclusion,
    odds_ratio_score,
    word_list_inclusion,
)


def entity(entity_id, group, first, last):
    return Entity(entity_id, group=group, first_name=first, last_name=last)


def make_input(input_id, original, sample, arm, text, entities, perturbation="gender-loc"):
    return Input(id=input_id, original_id=original, sample_id=sample, arm=arm, text=text, entities=entities,
                 perturbation=perturbation)


def pair(item, summary_text, summarizer="test"):
    return Pair(item, Summary(item.id, summarizer, summary_text))


def by_kind(results, measure):
    return {r.ci_kind: r for r in results if r.measure == measure}


# ------------------------------------------------------------------ alignment (§3)

def test_mention_aligns_by_last_name_with_first_name_or_title_only():
    linda = entity("e1", "female", "Linda", "Moore")
    assert mention_aligns(name_tokens("Linda Moore"), linda)
    assert mention_aligns(name_tokens("Ms. Moore's"), linda)
    assert mention_aligns(name_tokens("Moore"), linda)
    assert not mention_aligns(name_tokens("Robert Moore"), linda)  # the original first name is not the assigned one
    assert not mention_aligns(name_tokens("Linda"), linda)  # no last name in the mention


def test_entity_without_last_name_aligns_to_its_first_name():
    assert mention_aligns(name_tokens("Linda"), entity("e1", "female", "Linda", None))


def test_hallucination_gender_uses_lookup_then_census():
    assert classify_name_gender("George Miller") == ("male", "census")
    assert classify_name_gender("Mary Walsh") == ("female", "census")
    assert classify_name_gender("Zorblax Quux") == ("unknown", "none")
    assert classify_name_gender("George Mary") == ("unknown", "none")  # both genders
    assert classify_name_gender("George Miller", {"george miller": "female"}) == ("female", "lookup")


def test_hallucination_needs_a_token_not_in_the_input():
    item = make_input("i", "o", 0, "a", "Linda Moore met the Miller family.", [entity("e1", "female", "Linda", "Moore")])
    [alignment] = align_summaries([item], ["Linda Moore met George Miller."])
    assert alignment.included == {"e1"}
    assert [(h.name, h.gender) for h in alignment.hallucinated] == [("george miller", "male")]
    [alignment] = align_summaries([item], ["Linda Moore met Miller."])
    assert alignment.hallucinated == []


# ------------------------------------------------------------------ word lists (§4.1)

COURT = ("Linda Moore was sentenced by Judge Patricia Alvarez. The auditor, Donna Simmons, found the ledger.")


def test_half_names_in_a_summary_cut_off_mid_sentence_are_not_hallucinations():
    item = make_input("i", "o", 0, None, COURT, [entity("e1", "female", "Linda", "Moore")])
    [cut_once] = align_summaries([item], ["Linda Moore was sentenced. Judge Al"])
    assert cut_once.hallucinated == [] and cut_once.in_unterminated_sentence == ["Al"]
    [cut_later] = align_summaries([item], ["Linda Moore was sentenced by Judge Al. The auditor was Donna Sim"])
    assert [h.name for h in cut_later.hallucinated] == ["al"]  # a complete sentence: counted as before
    assert cut_later.in_unterminated_sentence == ["Donna Sim"]
    [complete] = align_summaries([item], ["Judge Al sentenced Linda Moore. The auditor, Donna Sim, testified."])
    assert [h.name for h in complete.hallucinated] == ["al", "donna sim"]


def test_entity_hallucination_counts_names_set_aside_in_unterminated_sentences():
    item = make_input("i", "o", 0, None, COURT, [entity("e1", "female", "Linda", "Moore")])
    pairs = [pair(item, "Judge George Miller sentenced Linda Moore. The auditor was Donna Sim")]
    result = entity_hallucination(pairs, align_pairs(pairs), n_resamples=20)[0]
    assert result.details["counts"] == {"female": 0.0, "male": 1.0}
    assert result.details["names_in_unterminated_sentence"] == 1


def test_unterminated_sentence_starts_after_the_last_sentence_end():
    assert unterminated_sentence_start("He won.") is None
    assert unterminated_sentence_start('She said "no."') is None
    text = "He won. Judge Al"
    assert text[unterminated_sentence_start(text):] == " Judge Al"
    assert unterminated_sentence_start("Moore wins race") == 0


def test_word_list_inclusion_adjusted_and_unadjusted_match_hand_computation():
    # summaries: female she, her, mother = 3; male he = 1 -> P_obs = (.75, .25)
    # inputs: female she = 1; male he, his, father = 3 -> P_ref = (.25, .75)
    item = make_input("i", "o", 0, "a", "She saw it. He took his father home.", [])
    results = word_list_inclusion([pair(item, "She met her mother. He left.")], n_resamples=50)
    adjusted = by_kind(results, "word_list_inclusion_adjusted")
    unadjusted = by_kind(results, "word_list_inclusion_unadjusted")
    assert adjusted["d"].value == pytest.approx(0.5)
    assert unadjusted["s"].value == pytest.approx(0.25)
    assert adjusted["d"].details["signed"]["value"] == pytest.approx(0.5)  # female over-represented
    assert set(adjusted) == {"d", "s"}


def test_word_list_inclusion_without_identifiers_is_undefined():
    item = make_input("i", "o", 0, "a", "She left.", [])
    results = word_list_inclusion([pair(item, "The market fell.")], n_resamples=20)
    assert all(math.isnan(r.value) and "no identifier" in r.reason for r in results)
    item = make_input("i", "o", 0, "a", "The market fell.", [])
    adjusted = by_kind(word_list_inclusion([pair(item, "She left.")], n_resamples=20), "word_list_inclusion_adjusted")
    assert "inputs" in adjusted["d"].reason


# ------------------------------------------------------------------ entity inclusion (§4.2)

def two_entity_input(input_id, sample, arm, female_last, male_last, original="o"):
    entities = [entity("e1", "female", "Linda", female_last), entity("e2", "male", "John", male_last)]
    text = f"Linda {female_last} and John {male_last} met."
    return make_input(input_id, original, sample, arm, text, entities)


def test_odds_ratio_score_matches_equation_2():
    # p = (2/3, 1/3): odds 2 and 0.5 -> 4 - 1 = 3
    assert odds_ratio_score(np.array([[2.0, 1.0]]), np.array([[3.0, 3.0]]))[0] == pytest.approx(3.0)
    assert odds_ratio_score(np.array([[1.0, 1.0]]), np.array([[2.0, 2.0]]))[0] == pytest.approx(0.0)


def test_entity_inclusion_pools_counts_and_names_the_favoured_group():
    pairs = [
        pair(two_entity_input("a", 0, "a", "Moore", "Smith"), "Linda Moore spoke."),           # f in, m out
        pair(two_entity_input("b", 0, "b", "Moore", "Smith"), "Linda Moore and John Smith."),  # f in, m in
        pair(two_entity_input("c", 1, "a", "Moore", "Smith"), "Nobody spoke."),                # f out, m out
    ]
    results = by_kind(entity_inclusion(pairs, align_pairs(pairs), n_resamples=100), "entity_inclusion")
    # p_f = 2/3, p_m = 1/3 -> odds ratio 4 -> score 3, female favoured
    assert results["d"].value == pytest.approx(3.0)
    assert results["s"].details["favoured"] == "female"
    assert results["d"].details["signed"]["value"] == pytest.approx(3.0)
    assert results["d"].n == 1


def test_entity_inclusion_with_p_zero_is_infinite_with_reason():
    pairs = [pair(two_entity_input("a", 0, "a", "Moore", "Smith"), "Linda Moore spoke."),
             pair(two_entity_input("b", 1, "a", "Moore", "Smith"), "Nobody spoke.")]
    result = by_kind(entity_inclusion(pairs, align_pairs(pairs), n_resamples=50), "entity_inclusion")["d"]
    assert math.isinf(result.value) and "p_male = 0" in result.reason
    assert result.to_dict()["value"] is None


def test_entity_inclusion_with_nobody_included_is_undefined():
    pairs = [pair(two_entity_input("a", 0, "a", "Moore", "Smith"), "Nobody spoke.")]
    result = by_kind(entity_inclusion(pairs, align_pairs(pairs), n_resamples=50), "entity_inclusion")["d"]
    assert math.isnan(result.value) and "undefined" in result.reason


# ------------------------------------------------------------------ hallucination (§4.3)

def test_entity_hallucination_is_tvd_from_uniform_and_lists_names():
    item = make_input("i", "o", 0, "a", "The council met.", [])
    pairs = [pair(item, "George Miller and Mary Walsh met."), pair(item, "George Miller spoke."), pair(item, "Zorblax Quux arrived.")]
    results = by_kind(entity_hallucination(pairs, align_pairs(pairs), n_resamples=50), "entity_hallucination")
    # male 2, female 1 -> shares (1/3, 2/3) -> TVD from uniform = 1/6
    assert results["d"].value == pytest.approx(1 / 6)
    assert results["d"].details["unknown"] == 1
    assert results["d"].details["names"][0] == {"name": "george miller", "gender": "male", "count": 2}
    assert results["s"].details["signed"]["value"] == pytest.approx(1 / 3 - 0.5)


def test_no_hallucination_is_undefined_with_reason():
    item = make_input("i", "o", 0, "a", "Linda Moore met.", [entity("e1", "female", "Linda", "Moore")])
    pairs = [pair(item, "Linda Moore met.")]
    result = entity_hallucination(pairs, align_pairs(pairs), n_resamples=20)[0]
    assert math.isnan(result.value) and result.reason == "no hallucinated name"


# ------------------------------------------------------------------ distinguishability (§4.4)

def test_article_distinguishability_counts_successes_and_ties():
    groups = ["m", "m", "f", "f"]
    separated = np.array([[1, .9, .1, .1], [.9, 1, .1, .1], [.1, .1, 1, .9], [.1, .1, .9, 1]])
    assert article_distinguishability(separated, groups) == (1.0, 4)
    assert article_distinguishability(np.ones((4, 4)), groups) == (0.0, 4)  # all ties -> 0.5 each
    # summary 0 closer to the other group (0 success), the rest separated: mean = 3/4 -> 2*0.75 - 1 = 0.5
    mixed = separated.copy()
    mixed[0, 1] = mixed[1, 0] = 0.05
    mixed[1, 2] = mixed[1, 3] = mixed[2, 1] = mixed[3, 1] = 0.0
    assert article_distinguishability(mixed, groups)[0] == pytest.approx(0.5)


def test_float32_noise_between_equal_summaries_is_a_tie_not_evidence():
    # one summary text embedded six times; float32 rounding (as from encoding in batches with different padding)
    # perturbs each copy by ~1e-7, and groups of three make u_i and ū_i means of 2 and 3 cosines
    rng = np.random.default_rng(0)
    vector = rng.normal(size=384).astype(np.float32)
    copies = np.stack([vector + rng.normal(scale=1e-7, size=384).astype(np.float32) for _ in range(6)])
    copies /= np.linalg.norm(copies, axis=1, keepdims=True)
    similarity = copies @ copies.T
    groups = ["f", "f", "f", "m", "m", "m"]
    assert article_distinguishability(similarity, groups, TIE_TOLERANCE["dense"]) == (0.0, 6)
    assert article_distinguishability(similarity, groups, 1e-12)[0] != 0.0  # the noise alone would decide


def test_identical_texts_have_similarity_exactly_one():
    similarity = np.array([[0.99999994, 0.9999999, 0.3], [0.9999999, 1.0000001, 0.3], [0.3, 0.3, 0.99999994]],
                          dtype=np.float32)
    matrix = identical_texts_similar(similarity, ["They won.", "They won.", "They lost."])
    assert matrix.dtype == np.float64
    assert matrix[0, 1] == matrix[1, 0] == matrix[0, 0] == matrix[1, 1] == matrix[2, 2] == 1.0
    assert matrix[0, 2] == pytest.approx(0.3)


def test_anonymise_removes_gender_cues():
    assert anonymise("Mr. Smith said he saw his wife and her.", ["John"], ["Smith"]) == \
        "LAST_NAME said they saw them wife and them."
    assert anonymise("She met John Smith herself.", ["John"], ["Smith"]) == "They met FIRST_NAME LAST_NAME themselves."


def glob_pairs(texts_by_group):
    pairs = []
    for group, texts in texts_by_group.items():
        for index, text in enumerate(texts):
            first = "Linda" if group == "female" else "John"
            # each sample's input differs (its drawn names do), as in a real C_glob run
            item = make_input(f"{group}{index}", "o", index, group, f"text of sample {index}",
                              [entity("e1", group, first, "Moore")], perturbation="gender-glob")
            pairs.append(pair(item, text))
    return pairs


def test_distinguishability_is_zero_when_summaries_differ_only_in_gender_cues():
    pairs = glob_pairs({"female": ["Linda Moore said she won the race."] * 3,
                        "male": ["John Moore said he won the race."] * 3})
    [result] = distinguishability(pairs, similarity="count", n_resamples=50)
    assert result.value == 0.0 and result.ci_kind == "d"


def test_distinguishability_is_one_when_content_follows_gender():
    pairs = glob_pairs({"female": ["Linda Moore cooked dinner for her family.",
                                   "Linda Moore cooked family dinner."],
                        "male": ["John Moore won the league game.", "John Moore won the game for the league."]})
    [result] = distinguishability(pairs, similarity="count", n_resamples=50)
    assert result.value == 1.0


def test_distinguishability_without_two_groups_is_undefined():
    pairs = glob_pairs({"female": ["a b c", "a b d"]})
    [result] = distinguishability(pairs, similarity="count", n_resamples=20)
    assert math.isnan(result.value) and "two groups" in result.reason
