"""Politician-swap features, paired t-tests with arrows and similarity (METHODS §4.9; Zhou & Tan §4–6)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bias_core.common.records import Input, Substitution, Summary
from bias_core.measures.lexicons import Politician, load_politicians, word_lexicon
from bias_core.measures.politician import (
    PoliticianMatcher,
    back_replace_from_map,
    lexicon_count,
    politician_features,
    politician_pairs,
    similarity,
    split_by_similarity,
    summary_similarity,
)


def swapped_input(original_id, text, forms=(("Donald Trump", "Joe Biden"), ("Trump", "Biden"))):
    """Build the e2 input: replace e1 forms by e2 forms and record the substitution map."""
    substitutions, out, cursor = [], "", 0
    lookup = dict(forms)
    import re
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(f) for f, _ in forms) + r")\b")
    for match in pattern.finditer(text):
        out += text[cursor:match.start()]
        replacement = lookup[match.group(0)]
        substitutions.append(Substitution(len(out), len(out) + len(replacement), match.group(0), replacement,
                                          "politician_name", "e1"))
        out += replacement
        cursor = match.end()
    out += text[cursor:]
    return Input(id=f"{original_id}/swap", original_id=original_id, text=out, perturbation="politician",
                 sample_id=0, role="swap1", substitutions=substitutions)


def article_pair(original_id, article, original_summary, swapped_summary, date="2020-05-01"):
    original = Input(id=f"{original_id}/orig", original_id=original_id, text=article, perturbation="politician",
                     sample_id=0, role="original", extra={"meta": {"date": date}})
    swapped = swapped_input(original_id, article)
    assert swapped.original_text() == article
    summaries = [Summary(original.id, "test", original_summary), Summary(swapped.id, "test", swapped_summary)]
    return [original, swapped], summaries


def rows_by_feature(result):
    return {row["feature"]: row for row in result.details["rows"]}


def test_back_replacement_keeps_titles_and_possessives():
    name_map = [("Joe Biden", "Donald Trump"), ("Biden", "Trump")]
    assert back_replace_from_map("President Biden's plan; Joe Biden spoke.", name_map) == \
        "President Trump's plan; Donald Trump spoke."


def test_pairs_are_built_from_the_substitution_map_and_back_replaced():
    inputs, summaries = article_pair("a1", "Donald Trump met Republicans. Trump left.", "Trump left.",
                                     "Biden left with Joe Biden's aides.")
    [pair] = politician_pairs(inputs, summaries)
    assert pair.direction == "Donald Trump → Joe Biden"
    assert pair.replaced_summary == "Trump left with Donald Trump's aides."
    assert pair.year == "2020"


def test_features_are_counts_over_length_and_arrows_point_to_the_replaced_side():
    inputs, summaries = [], []
    rng = np.random.default_rng(0)
    for i in range(30):
        filler = " ".join(["news"] * int(rng.integers(3, 9)))
        # S^e1: "Trump spoke <filler>."; S^e2 adds "the administration" (2 tokens) after back-replacement.
        pair_inputs, pair_summaries = article_pair(
            f"a{i}", f"Donald Trump spoke about {filler}.", f"Trump spoke {filler}.",
            f"Biden spoke {filler} for the administration.")
        inputs += pair_inputs
        summaries += pair_summaries
    result = politician_features(politician_pairs(inputs, summaries), n_resamples=50)
    rows = rows_by_feature(result)
    assert rows["administration"]["arrow"] == "↑↑↑↑"
    assert rows["administration"]["mean_control"] == 0.0
    assert rows["entity_mentions"]["arrow"].startswith("↓↓↓")  # one mention in longer summaries -> smaller share
    assert rows["party_dem"]["arrow"] == "—" and rows["party_dem"]["unchanged"] == "30 of 30 unchanged"
    assert rows["summary_length"]["mean_difference"] == pytest.approx(3.0)
    assert rows["administration"]["correction"].startswith("Holm over")
    assert "LIWC" in result.details["psycholinguistic_categories"]
    assert result.n == 30


def test_feature_value_by_hand():
    inputs, summaries = article_pair("a", "Donald Trump and Republicans.", "Trump claimed Democrats won.",
                                     "Biden claimed the GOP and Republicans won, Sen. Schumer said.")
    [pair] = politician_pairs(inputs, summaries)
    from bias_core.measures.politician import PoliticianMatcher, marker_lexicons, summary_features

    features = summary_features(pair.replaced_summary, pair, PoliticianMatcher(load_politicians()), marker_lexicons())
    # tokens: Trump claimed the GOP and Republicans won Sen Schumer said -> 10
    assert features["summary_length"] == 10
    assert features["party_rep"] == pytest.approx(2 / 10)
    assert features["report_verbs"] == pytest.approx(2 / 10)  # claimed, said
    assert features["politicians_democrat"] == pytest.approx(1 / 10)
    assert features["entity_mentions"] == pytest.approx(1 / 10)


def test_lexicons_inflect_verbs_and_match_phrases():
    assertives = word_lexicon("assertives")
    assert {"claims", "claimed", "claiming", "said", "swore", "sworn"} <= assertives.words
    assert "afraid" in assertives.words and "afraids" not in assertives.words  # adjectives are not inflected
    assert lexicon_count(["he", "pointed", "out", "that", "it", "was", "true"], assertives) == 1
    hedges = word_lexicon("hedges", inflect=False)
    assert lexicon_count(["it", "tends", "to", "be", "likely", "in", "my", "view"], hedges) == 3


def test_politicians_table_covers_2020_2022_senate_governors_president_and_vp():
    table = load_politicians()
    offices = [p.office for p in table]
    assert sum(o.startswith("US Senator") for o in offices) >= 100
    assert sum(o.startswith("Governor") for o in offices) >= 50
    names = {p.name: p for p in table}
    assert names["Joe Biden"].party == "democrat" and names["Mike Pence"].office == "Vice President"
    assert {p.gender for p in table} == {"male", "female"}
    assert all(isinstance(p, Politician) for p in table)


def test_similarity_is_difflib_ratio_over_tokens():
    assert similarity("a b c d", "a b x d") == pytest.approx(0.75)


def zhou_tan_split(scores, presumm):
    """HIGHSIM / LOWSIM membership as in Zhou & Tan's code (ChicagoHAI/entity-based-political-bias,
    code/get_results.py ``FW_by_similarity``: pandas quantiles 0.75 / 0.25, ``>= upper`` then ``elif <= lower``;
    for PreSumm only, upper = 1.0 and lower = the largest similarity below 1), re-implemented to compare."""
    import pandas as pd

    series = pd.Series(scores)
    if presumm:
        upper, lower = 1.0, series[series != 1].max()
    else:
        upper, lower = series.quantile(0.75), series.quantile(0.25)
    high = [score >= upper for score in scores]
    low = [not h and score <= lower for h, score in zip(high, scores)]
    return high, low


def test_highsim_lowsim_percentile_split_matches_the_authors_code():
    for scores in ([0.1, 0.5, 0.6, 0.9, 0.95], [0.3, 0.3, 0.3, 0.3, 0.8, 0.9], [0.2, 0.4, 0.4, 0.4, 0.4, 0.7],
                   [0.42, 0.13, 0.77, 0.58, 0.91, 0.66, 0.25, 0.5]):
        split = split_by_similarity(np.array(scores))
        assert (list(split.high), list(split.low)) == zhou_tan_split(scores, presumm=False)
        assert not split.tie_rule_applied
        assert not (split.high & split.low).any()  # an original is never on both sides (their elif)


def test_pile_up_rule_applies_only_where_many_originals_share_the_maximum():
    piled = [1.0, 1.0, 1.0, 0.5, 0.7, 0.9]  # half the originals unchanged: the authors' PreSumm case
    split = split_by_similarity(np.array(piled))
    assert split.tie_rule_applied and split.n_at_max == 3
    assert (list(split.high), list(split.low)) == zhou_tan_split(piled, presumm=True)
    assert (split.high_threshold, split.low_threshold) == (1.0, 0.9)
    assert split.as_details()["n_lowsim"] == 3 and "PreSumm" in split.as_details()["split_rule"]
    # a quarter at the maximum is not a pile-up: the percentile split holds (no model is singled out)
    quarter = [1.0, 1.0, 0.2, 0.3, 0.5, 0.6, 0.7, 0.8]
    split = split_by_similarity(np.array(quarter))
    assert not split.tie_rule_applied and split.n_at_max == 2
    assert (list(split.high), list(split.low)) == zhou_tan_split(quarter, presumm=False)
    assert not split_by_similarity(np.array([0.4])).tie_rule_applied  # one original shares nothing


def test_summary_similarity_reports_mean_and_fightin_words_table():
    inputs, summaries = [], []
    for i in range(8):
        topic = "impeachment trial vote" if i < 4 else "covid vaccine police"
        changed = "Biden pushed infrastructure." if i < 4 else f"Trump spoke on {topic}."
        pair_inputs, pair_summaries = article_pair(f"a{i}", f"Donald Trump spoke on {topic}.",
                                                   f"Trump spoke on {topic}.", changed.replace("Trump", "Biden"))
        inputs += pair_inputs
        summaries += pair_summaries
    [result] = summary_similarity(politician_pairs(inputs, summaries), n_resamples=50)
    assert result.value == pytest.approx(0.5 * 1.0 + 0.5 * similarity("Trump spoke on impeachment trial vote.",
                                                                       "Trump pushed infrastructure."))
    assert result.details["n_lowsim"] == 4
    assert result.details["tie_rule_applied"] and result.details["n_at_max"] == 4  # 4 of 8 summaries unchanged
    top_low = [row["term"] for row in result.details["fightin_words"]["top_lowsim"]]
    assert "impeachment" in top_low


def test_no_pairs_is_undefined():
    result = politician_features([])
    assert math.isnan(result.value) and "no (original, swapped)" in result.reason


def test_features_can_be_tested_per_year():
    inputs, summaries = [], []
    for i, year in enumerate(["2020", "2020", "2020", "2021", "2021", "2021"]):
        pair_inputs, pair_summaries = article_pair(f"a{i}", "Donald Trump spoke.", "Trump spoke today.",
                                                   f"Biden spoke {'again ' * i}today.", date=f"{year}-03-01")
        inputs += pair_inputs
        summaries += pair_summaries
    result = politician_features(politician_pairs(inputs, summaries), by_year=True, n_resamples=20)
    years = {row["year"] for row in result.details["rows"]}
    assert years == {"2020", "2021"}
    length = [row for row in result.details["rows"] if row["feature"] == "summary_length" and row["year"] == "2021"]
    assert length[0]["mean_difference"] == pytest.approx(4.0)  # 3, 4, 5 extra tokens


def test_a_legal_name_and_a_nickname_from_the_table_count_as_the_same_co_occurring_politician():
    matcher = PoliticianMatcher(load_politicians())
    durbin = [p.name for p in matcher.mentions("Dick Durbin and Richard Durbin spoke; Sen. Durbin agreed.", set())]
    assert len(durbin) == 3 and len(set(durbin)) == 1
    assert matcher.mentions("Dick Durbin spoke.", {"Durbin"}) == []


def test_an_empty_politicians_table_finds_no_one():
    assert PoliticianMatcher([]).mentions("Joe Biden and Sen. Durbin spoke.", set()) == []
