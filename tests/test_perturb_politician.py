"""Politician swap (METHODS §1.5; Zhou & Tan §3–4, Table 1) on real articles about Trump only and Biden only."""

from __future__ import annotations

import pytest

from bias_core.common.records import Document
from bias_core.perturb import PoliticianSwap, back_replace, build_templates, parse_pair
from bias_core.perturb.politician_forms import BIDEN, TRUMP, TRUMP_BIDEN, PairError, count_forms
from bias_core.safety.errors import InputError
from tests.fixtures.perturb.corpus import news_templates, template


@pytest.fixture(scope="module")
def swap_result():
    return PoliticianSwap().run_templates(news_templates())


def _swapped(result, original_id):
    return next(i for i in result.inputs if i.original_id == original_id and i.role == "swap1")


def test_table_1_mapping_sends_every_form_to_the_first_form_of_its_tier():
    mapping = TRUMP_BIDEN.mapping(TRUMP, BIDEN)
    assert {"Trump": "Biden", "Donald Trump": "Joe Biden", "D. Trump": "Joe Biden",
            "Donald J. Trump": "Joe R. Biden", "Donald John Trump": "Joe R. Biden"}.items() <= mapping.items()
    assert TRUMP_BIDEN.mapping(BIDEN, TRUMP)["Joseph Robinette Biden"] == "Donald J. Trump"
    firsts = {tier[0] for tier in BIDEN.tiers}
    assert set(mapping.values()) == firsts | {first.upper() for first in firsts}
    assert mapping["Donald J Trump"] == "Joe R. Biden" and mapping["TRUMP"] == "BIDEN"


@pytest.mark.parametrize(("original_id", "source", "target"), [
    ("politics_trump", TRUMP, BIDEN),
    ("politics_biden", BIDEN, TRUMP),
    ("shared-politics_trump_rally", TRUMP, BIDEN),
])
def test_swap_leaves_no_e1_form_and_one_e2_form_per_mention(swap_result, original_id, source, target):
    original = template(original_id).text
    swapped = _swapped(swap_result, original_id)
    assert count_forms(swapped.text, source) == 0
    assert count_forms(swapped.text, target) == count_forms(original, source) == len(swapped.substitutions)
    assert swapped.original_text() == original
    assert swapped.arm == target.name and swapped.entities[0].group == target.name


def test_titles_and_possessives_survive(swap_result):
    biden_article = _swapped(swap_result, "politics_biden").text
    assert "President Donald Trump on Tuesday" in biden_article
    assert "Mr. Trump's visit" in biden_article
    assert "Donald J. Trump first ran for the Senate" in biden_article  # "Joseph R. Biden Jr.": his own suffix
    trump_article = _swapped(swap_result, "politics_trump").text
    assert "Former President Joe Biden told" in trump_article and "Biden's endorsement" in trump_article


def test_both_directions_come_with_the_unchanged_original(swap_result):
    directions = {i.extra["direction"] for i in swap_result.inputs}
    assert directions == {"Donald Trump -> Joe Biden", "Joe Biden -> Donald Trump"}
    unchanged = next(i for i in swap_result.inputs if i.original_id == "politics_trump" and i.role == "original")
    assert unchanged.text == template("politics_trump").text and unchanged.arm == "Donald Trump"


def test_only_originals_mentioning_one_of_the_two_are_used(swap_result):
    reasons = {s.original_id: s.reason for s in swap_result.report.skipped}
    assert reasons["court_report"].startswith("mentions neither")
    both = build_templates([Document(id="both", text="Joe Biden met Donald Trump at the White House.")])
    result = PoliticianSwap().run_templates(both)
    assert not result.inputs and result.report.skipped[0].reason.startswith("mentions both")


def test_another_person_sharing_the_last_name_skips_the_original():
    texts = {"son": "Donald Trump Jr. spoke before his father. Trump then took the stage.",
             "daughter": "Ivanka Trump introduced Donald Trump at the rally. Trump thanked her."}
    result = PoliticianSwap().run_templates(build_templates([Document(id=k, text=v) for k, v in texts.items()]))
    assert not result.inputs
    assert [s.reason for s in result.report.skipped] == [
        "mentions another person named Trump: Donald Trump Jr.",
        "mentions another person named Trump: Ivanka Trump"]


def test_user_pairs_derive_last_name_full_name_and_initial_forms():
    pair = parse_pair("Mitch McConnell=Chuck Schumer")
    assert {"McConnell": "Schumer", "Mitch McConnell": "Chuck Schumer",
            "M. McConnell": "Chuck Schumer"}.items() <= pair.mapping(pair.e1, pair.e2).items()
    [tpl] = build_templates([Document(id="m", text="Senator Mitch McConnell said McConnell's bill would pass.")])
    result = PoliticianSwap(pairs=("Mitch McConnell=Chuck Schumer",)).run_templates([tpl])
    assert result.inputs[1].text == "Senator Chuck Schumer said Schumer's bill would pass."
    with pytest.raises(ValueError, match="First Last"):
        parse_pair("Trump-Biden=Harris")


@pytest.mark.parametrize(("text", "problem"), [
    ("Trump-Biden", "exactly one '='"),
    ("George W. Bush=Al Gore=Bill Clinton", "exactly one '='"),
    ("George W. Bush==Al Gore", "exactly one '='"),
    ("=Al Gore", "a first and a last name"),
    ("George W. Bush=", "a first and a last name"),
    ("George Bush=Laura Bush", "different last names"),
])
def test_a_malformed_pair_is_one_clear_input_error(text, problem):
    with pytest.raises(PairError) as caught:
        parse_pair(text)
    assert isinstance(caught.value, InputError) and isinstance(caught.value, ValueError)
    message = str(caught.value)
    assert problem in message and repr(text) in message and "\n" not in message
    assert "Donald Trump=Joe Biden" in message or "different" in message


def test_back_replace_maps_e2_forms_in_a_summary_back_to_e1():
    summary = "President Joe Biden said Biden's plan works. Joseph R. Biden Jr. smiled."
    assert back_replace(summary, TRUMP_BIDEN) == \
        "President Donald Trump said Trump's plan works. Donald J. Trump smiled."
    assert back_replace("Trump spoke.", "Donald Trump=Joe Biden", swapped_to="Donald Trump") == "Biden spoke."


def test_several_pairs_get_one_sample_each():
    [tpl] = build_templates([Document(id="t", text="Donald Trump spoke. Trump left.")])
    result = PoliticianSwap(pairs=("Donald Trump=Joe Biden", "Donald Trump=Kamala Harris")).run_templates([tpl])
    assert [(i.sample_id, i.arm) for i in result.inputs] == [
        (0, "Donald Trump"), (0, "Joe Biden"), (1, "Donald Trump"), (1, "Kamala Harris")]
    assert len({i.id for i in result.inputs}) == 4
    assert result.inputs[3].text == "Kamala Harris spoke. Harris left."
