"""One person, one name, one gender (issue 27, round 2): the rules of name finding that keep every mention of a
swapped person in step, and names that are no person's mention (a name cited as a word)."""

from __future__ import annotations

import pytest

from bias_core.common.records import Document
from bias_core.perturb import build_templates, get_perturbation
from bias_core.perturb.name_forms import fold_accents


def _template(text: str):
    [template] = build_templates([Document(id="t", text=text)])
    return template


def _slots(template, entity_id: str) -> list[tuple[str, str]]:
    return [(slot.kind, slot.text) for slot in template.slots if slot.entity_id == entity_id]


def _entity(template, label: str):
    return next(entity for entity in template.entities if entity.label == label)


def test_a_whole_name_used_as_a_modifier_after_the_is_still_that_person():
    """"the Tom Cruise video" was declined ("after 'the'") and kept as written while "Tom Cruise" was swapped."""
    text = ("The protest targets a promotional video featuring Scientologist Tom Cruise. Critics said the Tom Cruise "
            "video was made for members. Cruise has not commented.")
    template = _template(text)
    cruise = _entity(template, "Tom Cruise")
    assert _slots(template, cruise.entity_id).count(("first_name", "Tom")) == 2
    assert _slots(template, cruise.entity_id).count(("last_name", "Cruise")) == 3
    for item in get_perturbation("race", samples=2, seed=0).run_templates([template]).inputs:
        if item.arm is not None:  # race renames first and last names
            assert "Tom" not in item.text and "Cruise" not in item.text


def test_a_name_cited_as_a_word_is_nobody_s_mention():
    text = ("Pierre Charles L'Enfant was a French-born engineer. L'Enfant identified with the United States, changing "
            "his first name from Pierre to Peter when he first came to the colonies.")
    template = _template(text)
    words = {slot.text for slot in template.slots if slot.start > text.index("changing")}
    assert "Pierre" not in words and "Peter" not in words


def test_a_name_given_as_an_alias_joins_the_person_it_is_given_for():
    text = ("Jenna Nicole Mourey, better known by her pseudonym Jenna Marbles, is an American YouTube personality. "
            "Marbles began posting videos in 2010, and she became famous.")
    template = _template(text)
    assert len(template.entities) == 1
    [person] = template.entities
    assert ("alias_last_name", "Marbles") in _slots(template, person.entity_id)  # kept as written (round ten)
    assert _slots(template, person.entity_id).count(("first_name", "Jenna")) == 2


def test_a_first_name_with_a_middle_name_is_the_person_and_a_longer_other_name_is_not():
    text = ("Pierre Charles L'Enfant was born in Paris. His brother died young, and Pierre Charles became the eldest "
            "son. L'Enfant was recruited by Pierre Augustin Caron de Beaumarchais to serve in the war.")
    template = _template(text)
    person = _entity(template, "Pierre L'Enfant")
    slots = _slots(template, person.entity_id)
    assert slots.count(("first_name", "Pierre")) == 2 and ("middle_name", " Charles") in slots
    assert not any(entity.label == "Pierre Charles" for entity in template.entities)
    beaumarchais = text.index("Pierre Augustin")  # somebody else: a person of his own since "de Beaumarchais" is read
    assert all(slot.entity_id != person.entity_id for slot in template.slots if slot.start == beaumarchais)
    assert _entity(template, "Pierre de Beaumarchais").entity_id != person.entity_id


def test_after_dame_the_next_word_is_the_given_name_and_the_title_gives_the_gender():
    template = _template("Dame Zaha Mohammad Hadid was an Iraqi-British architect. She won the Stirling Prize.")
    person = _entity(template, "Zaha Hadid")
    assert person.gender == "female" and person.gender_source == "title"


@pytest.mark.parametrize(("written", "plain"), [("Ḥadīd", "Hadid"), ("Zahā", "Zaha"), ("Hadid", "Hadid")])
def test_a_transliteration_with_diacritics_folds_to_the_plain_spelling(written, plain):
    assert fold_accents(written) == plain


def test_a_surname_with_diacritics_is_the_plain_surname_of_a_person_found():
    text = ("Dame Zaha Hadid (Arabic: Zahā Ḥadīd) was an Iraqi-British architect. She was the first woman to receive "
            "the prize.")
    template = _template(text)
    person = _entity(template, "Zaha Hadid")
    assert ("last_name", "Ḥadīd") in _slots(template, person.entity_id)
    assert len(template.entities) == 1


def test_a_pronoun_chain_keeps_its_person_nearer_than_a_name_mentioned_in_passing():
    """"Her major works" after a run of she/her belongs to the woman of the chain, not to Elizabeth II, named once
    in passing between her last name mention and the pronoun."""
    text = ("Dame Zaha Hadid was an architect. In 2012, she was made a Dame by Queen Elizabeth for services to "
            "architecture. She was described by The Guardian as the queen of the curve. She designed many buildings. "
            "Her major works include the aquatic centre.")
    template = _template(text)
    person = _entity(template, "Zaha Hadid")
    assert ("pronoun", "Her") in _slots(template, person.entity_id)


def test_a_last_word_the_text_writes_as_a_common_noun_and_the_census_lacks_makes_no_full_name():
    """"Case Grammar" (a theory): "Grammar" is only a voter-file surname and the text says "a grammar"."""
    text = ("In 1968, Charles Fillmore published his theory of Case Grammar, which held that a grammar should "
            "describe the roles of nouns. He taught at Berkeley.")
    template = _template(text)
    assert not any("Grammar" in entity.label for entity in template.entities)


def test_a_first_name_in_the_title_of_a_show_named_after_its_hosts_is_theirs():
    text = ("Jenna Mourey said she met her boyfriend Julien Solomita in 2013. She and Julien Solomita started a "
            "weekly podcast called \"The Jenna Julien Podcast\" in 2016. The podcast ended in 2020.")
    template = _template(text)
    julien = _entity(template, "Julien Solomita")
    title = text.index("The Jenna Julien")
    assert any(slot.start > title and slot.text == "Julien" for slot in template.slots
               if slot.entity_id == julien.entity_id)
