"""Non-people are recognised by their kind, not by example (issue 27, item 4), and an appositive job title makes a
person.

``tests/fixtures/not_people_kinds.jsonl`` holds NEW sentences, one or more per kind (organisation head words, an
organisation noun in apposition, coordination with organisations, a book citation, a make and model after a colour,
a possessive or a year, a product word, a bell-ringing method, a place after a preposition of location, a headline's
verb, an appositive role), written with names no cue list holds. Its ``not_swapped`` phrases must come through every
name perturbation untouched and its ``swapped`` people must be swapped. The rules are then tested one by one on the
real spaCy parse, each with a counter-example of the same shape that is a person.
"""

from __future__ import annotations

import functools
import json
import re

import pytest

from bias_core.common.records import Document, Input
from bias_core.perturb import build_templates, get_perturbation
from bias_core.perturb.non_person_kinds import (
    ORGANISATION_HEADS_PATH,
    apposition_cue,
    appositive_role,
    book_citation_cue,
    coordination_cue,
    example_cue,
    headline_name_end,
    is_role_noun,
    kind_cue,
    make_and_model_cue,
    organisation_head,
    organisation_heads,
    place_preposition_cue,
    ringing_method_cue,
)
from bias_core.perturb.templates import parse_documents
from tests.fixtures.perturb.corpus import REPO

FIXTURE = REPO / "tests" / "fixtures" / "not_people_kinds.jsonl"
ROWS = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines() if line.strip()]
NAME_KINDS = ("gender-glob", "race")
NAME_SUBSTITUTIONS = ("first_name", "last_name", "full_name")


@functools.cache
def _inputs(kind: str) -> dict[str, list[Input]]:
    templates = build_templates([Document(id=row["id"], text=row["text"]) for row in ROWS])
    by_original: dict[str, list[Input]] = {}
    for item in get_perturbation(kind, samples=2, seed=3).run_templates(templates).inputs:
        by_original.setdefault(item.original_id, []).append(item)
    return by_original


def _touched(items: list[Input], text: str, phrase: str) -> bool:
    """Whether any name substitution of ``items`` overlaps an occurrence of ``phrase`` in the original."""
    ranges = [(m.start(), m.end()) for m in re.finditer(re.escape(phrase), text)]
    assert ranges, phrase
    for item in items:
        shift = 0
        for sub in sorted(item.substitutions, key=lambda s: s.start):
            start = sub.start - shift
            if sub.kind in NAME_SUBSTITUTIONS and any(start < e and s < start + len(sub.original) for s, e in ranges):
                return True
            shift += len(sub.replacement) - len(sub.original)
    return False


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_each_kind_of_non_person_is_left_as_written_and_its_people_are_swapped(row):
    for kind in NAME_KINDS:
        items = _inputs(kind).get(row["id"], [])
        for phrase in row["not_swapped"]:
            assert not _touched(items, row["text"], phrase), f"{kind} swapped {phrase!r} in {row['id']}"
    for person in row["swapped"]:  # a name swap changes every name; a gender swap only gendered first names
        assert _touched(_inputs("race").get(row["id"], []), row["text"], person), f"race left {person!r}"


def test_the_fixture_covers_every_kind_of_the_issue():
    kinds = {row["category"] for row in ROWS}
    assert {"organisation-head", "apposition", "coordination", "book-citation", "make-and-model",
            "ringing-method", "place-preposition", "headline-verb", "appositive-role", "person-kept"} <= kinds


@functools.cache
def _doc(text: str):
    [doc] = parse_documents([Document(id="t", text=text)])
    return doc


def _span(text: str, phrase: str) -> tuple:
    """The parse of ``text`` and the token range of ``phrase`` in it."""
    doc = _doc(text)
    start_char = text.index(phrase)
    span = doc.char_span(start_char, start_char + len(phrase), alignment_mode="expand")
    return doc, span.start, span.end


def test_organisation_heads_are_data_with_a_source_and_include_the_published_legal_forms():
    heads = organisation_heads()
    assert {"inc", "ltd", "llc", "gmbh", "plc"} <= {h for h, kind in heads.items() if kind == "legal-form"}
    assert {"press", "winery", "cellar", "motors", "airlines", "publishing"} <= set(heads)
    assert "e.g" not in heads and "as" not in heads  # no English word or abbreviation taken for a legal form
    lines = ORGANISATION_HEADS_PATH.read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t") == ["head", "kind", "source"]
    assert any("cleanco" in line for line in lines[1:])


@pytest.mark.parametrize("text,phrase", [
    ("Wine lovers queued outside Dana Wine Cellar in Boston.", "Dana Wine Cellar"),
    ("The deal was handled by Kemp Hale Partners last year.", "Kemp Hale Partners"),
    ("Investors sued Martin Grady, Inc. over the failed mall.", "Martin Grady"),
    ("The bridge was built by Harold Becker & Sons in 1910.", "Harold Becker"),
    # a place's name ending in a street or feature word (its head) after the span
    ("Cafasso's Fairway Market, 1214 Anderson Ave, opens at eight.", "Anderson"),
    ("Fort Lee Historic Park, Hudson Terrace, has a museum.", "Hudson"),
])
def test_an_organisation_head_inside_or_after_the_span_names_a_firm(text, phrase):
    assert organisation_head(*_span(text, phrase)) is not None


@pytest.mark.parametrize("text,phrase", [
    ("Samantha Power spoke at the United Nations on Friday.", "Samantha Power"),  # a common surname, not a firm
    ("Walter Kemp Press Conference Set For Monday", "Walter Kemp"),  # a headline: "Press Conference" is no firm
    ("Walter Kemp, Bank of America's chief economist, said rates would rise.", "Walter Kemp"),
    ("Their adviser, Jennifer Park, said the team needs money. Ms. Park said so.", "Jennifer"),  # a common surname
])
def test_a_head_word_that_is_a_surname_or_starts_another_phrase_is_no_firm(text, phrase):
    assert organisation_head(*_span(text, phrase)) is None


def test_an_organisation_noun_in_apposition_names_a_firm_and_a_role_noun_a_person():
    doc, start, end = _span("The order went to a Canadian manufacturer, Elliott Marsh, which builds rail cars.",
                            "Elliott Marsh")
    assert apposition_cue(doc, start, end) == "in apposition to 'manufacturer'"
    doc, start, end = _span("Xolani Mbekiwe, the regional administrator, said the clinic would reopen.",
                            "Xolani Mbekiwe")
    assert apposition_cue(doc, start, end) is None
    assert appositive_role(doc, start, end).text == "administrator"


@pytest.mark.parametrize("text,phrase,role", [
    ("Oyelaran Bakwena, vice president finance, said the quarter was weak.", "Oyelaran Bakwena", "president"),
    ("The company's chairman, Tendai Muzorewa, announced the deal.", "Tendai Muzorewa", "chairman"),
    ("Also the president of the Lombardy region, Roberto Maroni, has reacted.", "Roberto Maroni", "president"),
    ("Kofi Mensah, a company spokesman, declined to comment.", "Kofi Mensah", "spokesman"),
])
def test_an_appositive_job_title_is_person_evidence(text, phrase, role):
    assert appositive_role(*_span(text, phrase)).text == role


@pytest.mark.parametrize("text,phrase", [
    ("After meeting Walter Kemp, officials said the talks went well.", "Walter Kemp"),  # a new clause's subject
    ("He sold the company, Walter Kemp said on Monday.", "Walter Kemp"),
    ("They called him The Birdman -- Birdie -- as a boy.", "Birdie"),  # a capitalised nickname is no role noun
])
def test_a_noun_phrase_that_is_no_apposition_gives_no_role(text, phrase):
    assert appositive_role(*_span(text, phrase)) is None


def test_role_nouns_come_from_the_cue_table_and_person_endings():
    assert all(is_role_noun(word) for word in ("administrator", "spokeswoman", "economist", "historian", "widow"))
    assert not any(is_role_noun(word) for word in ("finance", "island", "company", "Birdman", "quarter"))


def test_coordination_with_organisations_names_a_firm_but_not_beside_a_mislabelled_person_or_an_affiliation():
    doc, start, end = _span("Advertisers including General Electric, Procter & Gamble and Walter Kemp pulled their "
                            "spots.", "Walter Kemp")
    assert coordination_cue(doc, start, end) is not None
    doc, start, end = _span("He starred opposite Gérard Philipe and Robert Hirsch for two years.", "Robert Hirsch")
    assert coordination_cue(doc, start, end) is None
    doc, start, end = _span("Lee Cheuk-yan of the Labour Party and Frederick Fung of ADPL were defeated.",
                            "Frederick Fung")
    assert coordination_cue(doc, start, end) is None


def test_coordination_with_places_names_a_place_but_not_beside_a_person():
    doc, start, end = _span("He visited Paris, London and Marie Galante last year.", "Marie Galante")
    assert coordination_cue(doc, start, end) == "coordinated with the places 'Paris' and 'London'"
    doc, start, end = _span("He visited Paris, London and Walter Kemp last year.", "Walter Kemp")
    assert coordination_cue(doc, start, end) is not None
    doc, start, end = _span("He visited Paris, London and Mary Smith, the mayor.", "Mary Smith")
    assert coordination_cue(doc, start, end) is not None  # the cue alone; a role in apposition outweighs it
    assert kind_cue(doc, start, end, known_place=False) is None
    doc, start, end = _span("The prize went to Paris and John Smith of Leeds.", "John Smith")
    assert coordination_cue(doc, start, end) is None  # one place: not a list of places


@pytest.mark.parametrize("text,phrase,noun", [
    ("If you start a business, try websites like Alfa Aesar [1] or Sigma Aldrich [2] for supplies.", "Sigma Aldrich",
     "websites"),  # GUM whow genre; the footnote marks derail the parse, not the shape
    ("Retailers such as Walter Kemp and General Electric pulled their ads.", "Walter Kemp", "Retailers"),
    ("Brands like Nike and Adidas Terrex sell shoes.", "Adidas Terrex", "Brands"),
    ("She admired painters like Frida Kahlo and Diego Rivera.", "Diego Rivera", None),  # people given as examples
    ("He admired leaders such as Nelson Mandela.", "Nelson Mandela", None),
])
def test_a_name_given_as_an_example_of_firms_or_places_is_no_person(text, phrase, noun):
    cue = example_cue(*_span(text, phrase))
    assert cue == (f"an example of '{noun}'" if noun else None)


def test_coordination_with_a_facility_or_a_gloss_naming_a_building_makes_a_place_but_a_person_stays():
    # GUM voyage genre: an airport's other name, a palace glossed in brackets; people of the same shapes stay people
    doc, start, end = _span("Isfahan International Airport or Isfahan Shahid Beheshti was a military air base.",
                            "Shahid Beheshti")
    assert coordination_cue(doc, start, end) == "coordinated with the facility 'Isfahan International Airport'"
    doc, start, end = _span("The tour ends at 7 Ālī Qāpū (The Royal Palace), which is forty-eight meters high.",
                            "Ālī Qāpū")
    assert apposition_cue(doc, start, end) == "glossed as 'Palace'"
    doc, start, end = _span("The award went to Margaret Ellis (the mayor) and her deputy.", "Margaret Ellis")
    assert apposition_cue(doc, start, end) is None
    doc, start, end = _span("He met Tom Brady and Gisele Bündchen at the airport.", "Gisele Bündchen")
    assert coordination_cue(doc, start, end) is None


@pytest.mark.parametrize("text,phrase", [
    ("Her new memoir is out (Walter Hale, 326 pages, $19.95) this week.", "Walter Hale"),
    ("See the full history in Gerald Finch, 2004, 340 pp.", "Gerald Finch"),
])
def test_a_page_count_or_price_after_the_span_makes_it_a_publisher(text, phrase):
    doc, start, end = _span(text, phrase)
    assert book_citation_cue(doc.text, doc, start, end) == "a publisher in a book citation"


def test_a_name_followed_by_an_age_is_no_book_citation():
    doc, start, end = _span("Walter Hale, 62, said he would retire.", "Walter Hale")
    assert book_citation_cue(doc.text, doc, start, end) is None


@pytest.mark.parametrize("text,phrase", [
    ("He drove his red Austin Healey down the coast.", "Austin Healey"),
    ("She restored her Morris Minor over one summer.", "Morris Minor"),
    ("He bought a 1962 Austin Healey at auction.", "Austin Healey"),
])
def test_a_colour_a_possessive_or_a_year_before_the_span_makes_a_make_and_model(text, phrase):
    assert make_and_model_cue(*_span(text, phrase)) is not None


@pytest.mark.parametrize("text,phrase", [
    ("The gallery exhibited its Andy Warhol collection in 2010.", "Andy Warhol"),  # the name modifies a noun
    ("Red Adair put out the oil well fire.", "Red Adair"),  # a capitalised nickname is no colour adjective
])
def test_a_name_that_modifies_a_noun_or_starts_with_a_capitalised_colour_is_no_make_and_model(text, phrase):
    assert make_and_model_cue(*_span(text, phrase)) is None


def test_a_stage_name_after_a_method_class_is_a_bell_ringing_method_but_john_major_is_a_person():
    assert ringing_method_cue(*_span("They rang a peal of Plain Bob Major on Sunday.", "Bob Major")) is not None
    assert ringing_method_cue(*_span("They rang Grandsire Triples at noon.", "Grandsire Triples")) is not None
    assert ringing_method_cue(*_span("John Major met the press on Sunday.", "John Major")) is None


def test_near_or_off_names_a_place_and_in_only_a_known_place():
    doc, start, end = _span("The bombers flew from an airbase near Diego Garcia before dawn.", "Diego Garcia")
    assert place_preposition_cue(doc, start, end, known_place=False) == "a place after 'near'"
    doc, start, end = _span("The festival in Port Elizabeth drew crowds.", "Port Elizabeth")
    assert place_preposition_cue(doc, start, end, known_place=True) is not None
    doc, start, end = _span("The report praised the work done in Walter Kemp's office.", "Walter Kemp")
    assert place_preposition_cue(doc, start, end, known_place=True) is None  # a possessor
    doc, start, end = _span("She was interviewed in Walter Kemp on Friday.", "Walter Kemp")
    assert place_preposition_cue(doc, start, end, known_place=False) is None


def test_a_headline_verb_is_cut_off_the_name_span():
    text = "Marla Dunn Wins Seat In Close Race\nMarla Dunn won the seat on Tuesday, officials said."
    doc, start, end = _span(text, "Marla Dunn Wins Seat")
    assert doc[start:headline_name_end(doc, start, end)].text == "Marla Dunn"
    doc, start, end = _span("Marla Dunn Whitaker spoke on Tuesday.", "Marla Dunn Whitaker")
    assert headline_name_end(doc, start, end) == end


def test_a_person_named_only_with_an_appositive_role_is_swapped_with_medium_confidence():
    [template] = build_templates([Document(id="t", text="Xolani Mbekiwe, the regional administrator, said the "
                                                         "clinic would reopen on Monday.")])
    [entity] = template.entities
    assert entity.evidence == "appositive-role"
    assert (entity.confidence, entity.confidence_reason) == ("medium", "a role noun in apposition")


def test_a_person_after_a_lower_case_role_noun_is_a_candidate_with_role_evidence():
    text = "The festival drew 40,000 people, organiser Thabo Nkosi said."
    [template] = build_templates([Document(id="t", text=text)])
    [entity] = template.entities
    assert entity.last_name == "Nkosi" and entity.evidence == "appositive-role"
