"""Every surface form of a politician is swapped and none survives (issue 10; METHODS §1.5; Zhou & Tan §3–4).

Real spaCy pipeline throughout: ABC-style articles (tests/fixtures/perturb/politician_articles.jsonl) and a
hypothesis property test over generated name forms — title, first name or nickname, middle name or initial with
or without the full stop, possessive, capitals, position in the sentence and surrounding text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bias_core.common.records import Document
from bias_core.perturb import PoliticianSwap, build_templates, parse_pair
from bias_core.perturb.politician_forms import find_record

ARTICLES = Path(__file__).resolve().parent / "fixtures" / "perturb" / "politician_articles.jsonl"


def _swap(text: str, pair: str):
    [template] = build_templates([Document(id="doc", text=text)])
    return PoliticianSwap(pairs=(pair,)).run_templates([template])


def _swapped_text(text: str, pair: str) -> str:
    result = _swap(text, pair)
    assert not result.report.skipped, result.report.skipped
    swapped = next(item for item in result.inputs if item.role == "swap1")
    assert swapped.original_text() == text
    return swapped.text


def _leftovers(text: str, tokens: list[str]) -> list[str]:
    pattern = r"(?<![\w])(?:" + "|".join(map(re.escape, tokens)) + r")(?![\w])"
    return re.findall(pattern, text, flags=re.IGNORECASE)


def _articles() -> list[dict]:
    return [json.loads(line) for line in ARTICLES.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("article", _articles(), ids=lambda article: article["id"])
def test_abc_articles_keep_no_token_of_the_original_and_none_is_skipped(article):
    swapped = _swapped_text(article["text"], article["pair"])
    assert _leftovers(swapped, article["alias"]) == []


def test_us_president_george_w_bush_without_the_stop_becomes_the_other_name_whole():
    text = "US President George W Bush has defended the war. Mr Bush said the Bush administration would not budge."
    assert _swapped_text(text, "George W. Bush=Al Gore") == (
        "US President Al Gore has defended the war. Mr Gore said the Gore administration would not budge.")


def test_legal_name_nickname_and_last_name_are_one_person_not_another_durbin():
    text = ("Senator Richard Durbin introduced the bill on Monday. Dick Durbin, the Senate's second-ranking Democrat, "
            "said it had support from both parties. Durbin's office expects a vote in May.")
    swapped = _swapped_text(text, "Dick Durbin=Chuck Schumer")
    assert swapped == ("Senator Chuck Schumer introduced the bill on Monday. Chuck Schumer, the Senate's "
                       "second-ranking Democrat, said it had support from both parties. Schumer's office expects a "
                       "vote in May.")


@pytest.mark.parametrize(("pair", "text", "other"), [
    ("George W. Bush=Al Gore", "George W. Bush thanked voters. Laura Bush stood beside him.", "Laura Bush"),
    ("Donald Trump=Joe Biden", "Ivanka Trump introduced Donald Trump at the rally. Trump thanked her.",
     "Ivanka Trump"),
    ("George W. Bush=Al Gore", "President George H. W. Bush and George W. Bush appeared together.",
     "George H. W. Bush"),
    ("George W. Bush=Al Gore", "GEORGE H. W. BUSH DIES AT 94. George W. Bush paid tribute.", "GEORGE H. W. BUSH"),
    ("George W. Bush=Al Gore", "Mrs. Bush opened the library. Bush was absent.", "Mrs. Bush"),
    ("Nancy Pelosi=Kevin McCarthy", "Mr. Pelosi, her husband, declined to comment. Pelosi did not.", "Mr. Pelosi"),
])
def test_only_a_really_different_person_is_another_person(pair, text, other):
    result = _swap(text, pair)
    assert not result.inputs
    last = parse_pair(pair).e1.last_name
    assert result.report.skipped[0].reason.endswith(f"mentions another person named {last}: {other}")


@pytest.mark.parametrize(("pair", "text", "expected"), [
    ("George W. Bush=Al Gore",
     "GEORGE W. BUSH VISITS IRAQ. George Walker Bush landed on Sunday; Bush' critics and the Bush-era cuts.",
     "AL GORE VISITS IRAQ. Al Gore landed on Sunday; Gore' critics and the Gore-era cuts."),
    ("Al Gore=George W. Bush", "Former vice president Al Gore spoke. Albert Gore Jr. won the prize. Gore's film won.",
     "Former vice president George W. Bush spoke. George Bush won the prize. Bush's film won."),
    ("Chuck Schumer=Mitch McConnell", "Sen. Charles E. Schumer and Mr. Schumer's staff met CHUCK SCHUMER's donors.",
     "Sen. Mitch McConnell and Mr. McConnell's staff met MITCH MCCONNELL's donors."),
    ("Bob Casey=Pat Toomey", "Robert P. Casey, Jr. said Bob Casey would run. ex-Senator Casey agreed.",
     "Pat Toomey said Pat Toomey would run. ex-Senator Toomey agreed."),
    ("George W. Bush=Al Gore", "A Bush aide said President-elect Bush would travel with Vice-President Bush.",
     "A Gore aide said President-elect Gore would travel with Vice-President Gore."),
])
def test_the_replacement_keeps_the_shape_of_each_mention(pair, text, expected):
    assert _swapped_text(text, pair) == expected


def test_titles_and_pronouns_follow_the_new_politician_when_the_genders_differ():
    text = ("House Speaker Nancy Pelosi said the vote would pass. Ms Pelosi told reporters she had the votes, "
            "and her deputies agreed.")
    result = _swap(text, "Nancy Pelosi=Kevin McCarthy")
    swapped = next(item for item in result.inputs if item.role == "swap1")
    assert swapped.text == ("House Speaker Kevin McCarthy said the vote would pass. Mr McCarthy told reporters he "
                            "had the votes, and his deputies agreed.")
    assert {sub.kind for sub in swapped.substitutions} == {"politician_name", "title", "pronoun"}
    assert swapped.original_text() == text
    assert _swapped_text("Wyoming congresswoman Liz Cheney lost. Congresswoman Cheney said she would run again.",
                         "Liz Cheney=Adam Kinzinger") == (
        "Wyoming congressman Adam Kinzinger lost. Congressman Kinzinger said he would run again.")
    same_gender = _swapped_text("Mr Bush said he would stay.", "George W. Bush=Al Gore")
    assert same_gender == "Mr Gore said he would stay."


@pytest.mark.parametrize(("name", "first", "middle"), [
    ("George W. Bush", "George", "Walker"),
    ("George H. W. Bush", "George", "Herbert Walker"),
    ("Dick Durbin", "Richard", "J."),
    ("Bob Casey", "Robert", "P."),
    ("J.D. Vance", "James", "David"),
])
def test_a_pair_name_finds_its_person_in_the_politicians_table(name, first, middle):
    record = find_record(name)
    assert record is not None and (record.first_name, record.middle_name) == (first, middle)
    assert find_record("Alexandra Nobody") is None


# Hypothesis: generated mentions of one politician in generated surroundings -------------------------------------

PEOPLE = {  # pair name: (legal first, nickname or None, middle, last, other side of the pair)
    "George W. Bush": ("George", None, "Walker", "Bush", "Al Gore"),
    "Dick Durbin": ("Richard", "Dick", "J.", "Durbin", "Lisa Murkowski"),
    "Chuck Schumer": ("Charles", "Chuck", "E.", "Schumer", "Mitch McConnell"),
    "Bob Casey": ("Robert", "Bob", "P.", "Casey", "Pat Toomey"),
    "Ed Markey": ("Edward", "Ed", "J.", "Markey", "Elizabeth Warren"),
    "Joe Biden": ("Joseph", "Joe", "Robinette", "Biden", "Donald Trump"),
}
TITLES = ["", "President ", "Vice President ", "Sen. ", "Senator ", "Rep. ", "Representative ", "Gov. ",
          "Governor ", "Mr ", "Mr. ", "Dr ", "former Senator ", "ex-President ", "US President "]
FILLERS = ["The committee met on Tuesday.", "Officials declined to comment.", "The vote was delayed again.",
           "Critics called the plan reckless.", "Markets rose after the announcement.", ""]
VERBS = ["said the plan would work.", "told reporters the talks had stalled.", "arrived in Sydney on Monday.",
         "spoke for an hour."]


@st.composite
def mention(draw, person: str) -> str:
    legal, nickname, middle, last, _ = PEOPLE[person]
    first = draw(st.sampled_from([legal, nickname or legal]))
    initial = middle[0]
    middle_form = draw(st.sampled_from(["", f"{initial}. ", f"{initial} ", f"{middle} " if len(middle) > 2 else ""]))
    shape = draw(st.sampled_from(["full", "first-last", "title-last", "last", "administration", "era"]))
    if shape == "full":
        name = f"{first} {middle_form}{last}"
    elif shape == "first-last":
        name = f"{first} {last}"
    elif shape == "title-last":
        name = f"{draw(st.sampled_from(TITLES[1:]))}{last}"
    elif shape == "administration":
        return f"the {last} administration"
    elif shape == "era":
        return f"{last}-era rules"
    else:
        name = last
    if shape in ("full", "first-last"):
        name = draw(st.sampled_from(TITLES)) + name
    name += draw(st.sampled_from(["", "'s aides", "' aides"]))
    return name.upper() if draw(st.booleans()) and draw(st.booleans()) else name


@st.composite
def article(draw) -> tuple[str, str]:
    person = draw(st.sampled_from(sorted(PEOPLE)))
    sentences = []
    for _ in range(draw(st.integers(1, 4))):
        name = draw(mention(person))
        where = draw(st.sampled_from(["start", "middle"]))
        verb = draw(st.sampled_from(VERBS))
        sentence = (f"{name[0].upper()}{name[1:]} {verb}" if where == "start"
                    else f"On Friday, {name} {verb}")
        sentences += [draw(st.sampled_from(FILLERS)), sentence]
    return person, " ".join(part for part in sentences if part)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(article())
def test_no_token_of_the_original_survives_any_generated_name_form(generated):
    person, text = generated
    legal, nickname, middle, last, other = PEOPLE[person]
    result = _swap(text, f"{person}={other}")
    assert not result.report.skipped, result.report.skipped
    swapped = next(item for item in result.inputs if item.role == "swap1")
    assert swapped.original_text() == text
    tokens = [legal, *([nickname] if nickname else []), middle.rstrip("."), last]
    assert _leftovers(swapped.text, tokens) == [], swapped.text
    left_in_front = r"(?<![\w.])(?:[A-Z]\.?|" + "|".join(map(re.escape, tokens[:-1])) + r")\s+\Z"
    for sub in swapped.substitutions:
        assert not re.search(left_in_front, swapped.text[: sub.start], flags=re.IGNORECASE), swapped.text
