"""Entity templates from raw text (METHODS §1.1): names, pronoun forms, titles, content words, gold clusters."""

from __future__ import annotations

import json

import pytest

from bias_core.common.records import Document, Unit
from bias_core.perturb import build_templates
from bias_core.perturb.lexicon import content_word_for, pronoun_for, title_for
from bias_core.perturb.templates import EntityChoice
from bias_core.safety.errors import InputError
from tests.fixtures.perturb.corpus import GOLD, template


def _entity(tpl, label):
    return next(e for e in tpl.entities if e.label == label)


def _slots(tpl, entity, kind):
    return [s.text for s in tpl.slots if s.entity_id == entity.entity_id and s.kind == kind]


def test_entities_get_first_and_last_names_and_census_or_title_gender():
    court = template("court_report")
    labels = {e.label for e in court.entities}
    assert {"Daniel Whitaker", "Rebecca Alvarez", "Patricia Monroe", "Karen Lindqvist", "Linda Whitaker"} <= labels
    assert _entity(court, "Daniel Whitaker").gender == "male"
    assert _entity(court, "Dorothy Fenwick").gender_source == "title"  # "Mrs. Fenwick"


def test_same_last_name_with_different_first_names_gives_two_people():
    court = template("court_report")
    daniel, linda = _entity(court, "Daniel Whitaker"), _entity(court, "Linda Whitaker")
    assert daniel.entity_id != linda.entity_id
    assert len(_slots(court, daniel, "last_name")) > len(_slots(court, linda, "last_name"))


def test_bare_last_name_goes_to_the_person_most_recently_named_in_full():
    merger = template("business_merger")
    jonathan = _entity(merger, "Jonathan Brandt")
    start = merger.text.index("Brandt said in an interview")
    owner = next(s.entity_id for s in merger.slots if s.start == start)
    assert owner == jonathan.entity_id


def test_names_the_ner_misses_are_found_by_their_known_strings():
    sports = template("sports_match")
    okafor = _entity(sports, "Emily Okafor")
    assert len(_slots(sports, okafor, "last_name")) == sports.text.count("Okafor")


def test_organisations_tagged_as_people_get_no_first_name():
    merger = template("shared-business_merger")  # "Norris Software" is a company, the Norrises are siblings
    assert all(e.first_name != "Norris" for e in merger.entities)
    assert {"Alan Norris", "Beth Norris"} <= {e.label for e in merger.entities}


def test_sir_and_dame_take_given_names_lord_and_lady_take_surnames():
    honours = template("theatre_honours")
    helen = _entity(honours, "Helen Carter")
    assert _slots(honours, helen, "title") == ["Dame", "Dame"]
    assert _slots(honours, helen, "first_name") == ["Helen", "Helen"]  # "Dame Helen Carter", "Dame Helen said"
    lord = next(e for e in honours.entities if e.last_name == "Ashcombe" and e.first_name is None)
    assert lord.gender == "male" and _slots(honours, lord, "title") == ["Lord"]


def test_her_is_rewritten_as_his_or_him_by_part_of_speech():
    [tpl] = build_templates([Document(id="d", text="Maria Lopez said the court gave her book back to her.")])
    maria = tpl.entities[0]
    text, _ = tpl.fill({maria.entity_id: EntityChoice("male", "James")})
    assert text == "James Lopez said the court gave his book back to him."


def test_stand_alone_his_becomes_hers_and_capitals_are_kept():
    [tpl] = build_templates([Document(id="d", text="Mr. Ellis said the idea was his. His lawyer agreed with him.")])
    ellis = tpl.entities[0]
    text, _ = tpl.fill({ellis.entity_id: EntityChoice("female")})
    assert text == "Ms. Ellis said the idea was hers. Her lawyer agreed with her."


def test_title_mapping_keeps_the_period_style():
    assert title_for("female", "Mr.") == "Ms." and title_for("female", "Mr") == "Ms"
    assert title_for("male", "Mrs.") == "Mr." and title_for("male", "Miss") == "Mr"
    assert title_for("female", "Sir") == "Dame" and title_for("male", "Lady") == "Lord"
    assert pronoun_for("female", "possessive", "HIS") == "HER" and pronoun_for("male", "independent", "hers") == "his"
    assert content_word_for("female", "Chairman") == "Chairwoman"


def test_content_words_belong_to_a_person_only_through_the_parse():
    honours = template("theatre_honours")
    raman = _entity(honours, "Priya Raman")
    assert _slots(honours, raman, "content_word") == ["chairwoman"]  # "Priya Raman, the chairwoman of ..."
    ferreira = template("news-06-family-nursing-graduates")
    sofia = _entity(ferreira, "Sofia Ferreira")
    # "his daughter, Sofia Ferreira", and later "Luis pointed at his daughter" (the same possessor: issue 27)
    assert _slots(ferreira, sofia, "content_word") == ["daughter", "daughter"]
    unowned = [s for s in honours.slots if s.kind == "content_word" and s.text == "wife" and s.entity_id is None]
    # "My wife laughed" is tied to nobody: only a one-gender world rewrites it (``Slot.world``)
    assert unowned and all(s.world == "unnamed" for s in unowned)


def test_content_words_change_only_when_asked():
    court = template("court_report")
    linda = _entity(court, "Linda Whitaker")
    choice = {linda.entity_id: EntityChoice("male", "Paul")}
    plain, _ = court.fill(choice)
    with_words, subs = court.fill(choice, content_words=True)
    assert "Whitaker's wife, Paul Whitaker" in plain
    assert "Whitaker's husband, Paul Whitaker" in with_words
    assert any(s.kind == "content_word" and s.original == "wife" for s in subs)


def test_pre_annotated_clusters_are_used_instead_of_ner():
    record = json.loads(GOLD.read_text(encoding="utf-8"))
    [tpl] = build_templates([Document.from_dict(record)])
    torres = next(e for e in tpl.entities if e.entity_id == "torres")
    assert (torres.first_name, torres.last_name, torres.gender) == ("Angela", "Torres", "female")
    assert sorted(_slots(tpl, torres, "pronoun")) == ["Her", "her", "her", "hers"]
    assert [s.text for s in tpl.unattributed_pronouns] == ["he"]  # the unnamed resident
    text, _ = tpl.fill({"torres": EntityChoice("male", "Mark"), "greene": EntityChoice("female", "Ruth")})
    assert text.startswith("Mayor Mark Torres opened") and "Ruth Greene" in text and "was his." in text


def test_bad_gold_spans_name_the_document_and_entity():
    bad = Document(id="g", text="Ann Lee spoke.", extra={"entities": [{"mentions": [{"start": 5, "end": 99}]}]})
    with pytest.raises(InputError, match="document 'g'.*entity 1"):
        build_templates([bad])


def test_perspective_documents_have_no_entity_template():
    with pytest.raises(InputError, match="has units"):
        build_templates([Document(id="r", units=[Unit("Great.", "pos")])])
