"""Issue 27, round five: accented first names are first names, a ruler's title or an honorific before a first name
keeps one name per person, and an award named after a person is no person — on sentences written for the test,
through the real spaCy parse."""

from __future__ import annotations

from bias_core.common.records import Document
from bias_core.perturb import build_templates


def _template(text: str):
    return build_templates([Document(id="t", text=text)])[0]


def test_an_accented_first_name_is_the_persons_first_name():
    template = _template("Jérôme Richard, a French director, spoke. He left.")
    assert [(e.first_name, e.last_name) for e in template.entities] == [("Jérôme", "Richard")]


def test_an_honorific_before_a_known_first_name_joins_that_person():
    template = _template("Dr. Sarah Jones spoke on Monday. Later Dr. Sarah left the room.")
    assert len(template.entities) == 1
    assert [s.kind for s in template.slots if s.text == "Sarah"] == ["first_name", "first_name"]


def test_a_lone_name_after_a_rulers_title_is_a_given_name_and_the_title_follows_the_person():
    template = _template("Queen Elizabeth II visited the town. Elizabeth waved.")
    (entity,) = template.entities
    assert entity.first_name == "Elizabeth" and entity.last_name is None
    assert any(s.kind == "content_word" and s.text == "Queen" for s in template.slots)


def test_a_rulers_title_before_a_known_surname_stays_that_persons_surname():
    template = _template("Joshua Norton was a citizen, known as Emperor Norton. Norton said he ruled.")
    (entity,) = template.entities
    assert entity.first_name == "Joshua"
    assert all(s.kind == "last_name" for s in template.slots if s.text == "Norton")


def test_an_award_named_after_a_person_is_no_person():
    template = _template("She won the César Award for Best Actress in 1992.")
    assert not any(e.last_name == "Award" for e in template.entities)


def test_a_voter_file_word_before_a_surname_does_not_extend_the_name():
    template = _template("The project studies a collection of 17th Century Zurbarán paintings. They hang in Durham.")
    assert not any(e.first_name == "Century" for e in template.entities)


def test_a_bare_surname_shared_by_a_family_goes_to_the_person_named_most():
    template = _template("Jeanne Moreau was an actress. Moreau was born in Paris. Moreau acted in many films. "
                         "She was the daughter of Anatole Moreau, a restaurateur. Moreau's father was French.")
    jeanne = next(e for e in template.entities if e.first_name == "Jeanne")
    last = max((s for s in template.slots if s.text.startswith("Moreau")), key=lambda s: s.start)
    assert last.entity_id == jeanne.entity_id
