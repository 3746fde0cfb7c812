"""Pronouns go to their referent (issue 27, item 2), on short texts of our own with spaCy's real parse: a pronoun of an
unnamed person is left alone, binding keeps an object pronoun off its clause's subject, two people of the pronoun's
gender make it ambiguous (unattributed and recorded), and a person noun tied to the name does not block."""

from __future__ import annotations

import pytest

from bias_core.common.records import Document
from bias_core.perturb import get_perturbation
from bias_core.perturb.pronoun_referents import person_nouns, readings_of
from bias_core.perturb.templates import build_templates


def _template(text: str):
    [template] = build_templates([Document(id="t", text=text)])
    return template


def _pronoun_slot(template, word: str, occurrence: int = 0):
    slots = [slot for slot in template.slots if slot.kind == "pronoun" and slot.text == word]
    return slots[occurrence] if occurrence < len(slots) else None


def _reading(text: str, word: str, occurrence: int = 0):
    return [reading for reading in readings_of(text) if reading.word == word][occurrence]


def _entity_id(template, last_name: str) -> str:
    return next(entity.entity_id for entity in template.entities if entity.last_name == last_name)


UNNAMED = ("Maria Lopez founded the firm in 2001. A spokesman for the firm declined to comment on the sale. "
           "He said the firm would reply next week.")


def test_a_pronoun_whose_antecedent_is_an_unnamed_spokesman_is_not_given_to_the_named_person():
    template = _template(UNNAMED)
    slot = _pronoun_slot(template, "He")
    assert slot is not None and slot.entity_id is None and slot.world == "unnamed"  # nobody's but the spokesman's
    reading = _reading(UNNAMED, "He")
    assert reading.status == "unnamed" and reading.referent == "spokesman"
    for item in get_perturbation("gender-loc", samples=2, seed=0).run([Document(id="t", text=UNNAMED)]).inputs:
        assert "A spokesman for the firm" in item.text and "He said the firm would reply" in item.text
    for item in get_perturbation("gender-glob", samples=2, seed=0).run([Document(id="t", text=UNNAMED)]).inputs:
        # a one-gender world: the spokesman takes the arm's gender with his pronoun, whatever Maria Lopez becomes
        expected = ("A spokesman for the firm", "He said") if item.arm == "male" else ("A spokeswoman", "She said")
        assert all(part in item.text for part in expected), item.text


def test_a_person_noun_tied_to_the_name_by_apposition_does_not_block():
    text = "Mary Jones, a lawyer from Leeds, said she would appeal the ruling."
    template = _template(text)
    slot = _pronoun_slot(template, "she")
    assert slot is not None and slot.entity_id == _entity_id(template, "Jones")


def test_the_clause_subject_above_a_possessive_wins_over_a_nearer_possessor():
    text = ("Tom Baker has praised Governor Bob McDonnell in the past. On Monday, Baker discussed "
            "McDonnell's tenure and his plan to cut taxes.")
    template = _template(text)
    assert _pronoun_slot(template, "his").entity_id == _entity_id(template, "Baker")


def test_an_object_pronoun_is_not_the_person_its_clause_subject_names():
    text = "Peter Hall and Mr. Abel argued for an hour on Friday. Mr. Abel says he defended him."
    template = _template(text)
    abel, hall = _entity_id(template, "Abel"), _entity_id(template, "Hall")
    assert _pronoun_slot(template, "he").entity_id == abel  # the subject of the clause it is reported from
    assert _pronoun_slot(template, "him").entity_id == hall  # binding: not Abel, who defended


def test_two_people_of_the_pronouns_gender_in_scope_leave_it_unattributed_and_recorded():
    text = "Robert King thanked David Stone on Monday. The deal gave his company a new contract."
    template = _template(text)
    slot = _pronoun_slot(template, "his")
    assert slot is not None and slot.entity_id is None  # unattributed: C_loc leaves it, C_glob gives it the arm's
    assert slot in template.unattributed_pronouns
    reading = _reading(text, "his")
    assert reading.status == "ambiguous"
    assert set(reading.candidates) == {_entity_id(template, "King"), _entity_id(template, "Stone")}


def test_a_sentence_subject_pronoun_continues_the_previous_sentences_subject():
    text = ("Daniel Bernoulli taught in Basel. He was a close friend of Leonhard Euler. "
            "He went to St. Petersburg in 1724.")
    template = _template(text)
    bernoulli = _entity_id(template, "Bernoulli")
    assert [slot.entity_id for slot in template.slots if slot.kind == "pronoun"] == [bernoulli, bernoulli]


@pytest.mark.parametrize("noun", ["judge", "lawyer", "spokesman", "vicar"])
def test_the_person_noun_table_holds_wordnet_person_nouns(noun):
    assert noun in person_nouns()



def test_a_first_name_the_finder_left_out_keeps_its_pronoun_from_the_person_named_before():
    """A single word the NER calls a person, a census first name of the pronoun's gender, is somebody else even when
    the name finder declined it: the pronoun is hers, not the swapped person's from the sentence before ("Sue said
    since she was getting up"); a man's pronoun is not hers."""
    from bias_core.perturb.pronoun_referents import search_clauses
    from bias_core.perturb.templates import parse_documents

    text = "Marcie Rickenbacker wrote home on Sunday. Sue said since she was getting up early, we could go."
    [doc] = parse_documents([Document(id="t", text=text)])
    name_of = {token.i: "e1" for token in doc[:2]}  # Marcie Rickenbacker; Sue declined
    she = next(token for token in doc if token.text == "she")
    assert doc[she.i - 3].text == "Sue" and doc[she.i - 3].ent_type_ == "PERSON"
    found = search_clauses(she, "female", name_of, {"e1": "female"}, {})
    assert found is not None and found.entity_id is None and found.word == "Sue"
    assert search_clauses(she, "male", name_of, {"e1": "female"}, {}) is None  # Sue is no man's name
