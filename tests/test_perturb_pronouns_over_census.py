"""Issue 27: a first name the census gives both genders yields to the text's own pronouns ("Jordan … she"), while a
name the census gives one gender keeps it; and a PERSON span of a census first name and a surname no list holds is a
person at low confidence ("Dean Kamen"), unless the text writes its words in lower case ("Basil Harvesting") —
through the real spaCy parse, on sentences written for the test."""

from __future__ import annotations

from bias_core.common.records import Document
from bias_core.perturb import build_templates, get_perturbation
from bias_core.perturb.names import census_gender_is_weak, first_name_gender


def _template(text: str):
    return build_templates([Document(id="t", text=text)])[0]


def test_names_the_census_gives_both_genders_in_earnest_are_weak_and_others_are_not():
    assert all(census_gender_is_weak(name) for name in ("Taylor", "Jordan", "Jean", "Chris", "Kim"))
    assert not any(census_gender_is_weak(name) for name in ("John", "Mary", "Carol", "Sarah", "Zzyzx", None))


def test_the_pronouns_of_a_woman_named_jordan_make_her_a_woman_and_are_hers():
    template = _template("Jordan Smith scored twice. Jordan said she was happy with her game.")
    (entity,) = template.entities
    assert (entity.gender, entity.gender_source) == ("female", "pronoun")
    assert all(s.entity_id == entity.entity_id for s in template.slots if s.kind == "pronoun")


def test_a_race_swap_of_taylor_swift_draws_her_a_womans_name_beside_her_pronoun():
    template = _template("Taylor Swift sang on Friday. Swift said she loved the crowd. Taylor thanked fans.")
    arms = [item for item in get_perturbation("race", samples=4, seed=0).run_templates([template]).inputs
            if item.arm is not None]
    assert arms
    for item in arms:  # race keeps each person's gender: the first name drawn is a woman's, like the pronoun
        assert " she " in item.text and first_name_gender(item.text.split()[0]) != "male", item.text


def test_a_name_the_census_gives_one_gender_keeps_it_beside_another_persons_pronouns():
    template = _template("Ivan Petrov met the actress at dinner. She said she admired his novels. She left early.")
    ivan = next(e for e in template.entities if e.first_name == "Ivan")
    assert ivan.gender == "male"


def test_a_weak_name_with_its_own_pronoun_of_the_census_gender_keeps_that_gender():
    template = _template("Chris Evans arrived late. He said he was tired. Later the host thanked her guests.")
    chris = next(e for e in template.entities if e.first_name == "Chris")
    assert chris.gender == "male"


def test_a_person_span_of_a_census_first_name_and_an_unlisted_surname_is_swapped_at_low_confidence():
    template = _template("Inventor Dean Vrbanic spoke at the event on Tuesday. Vrbanic praised the team of students.")
    (entity,) = template.entities
    assert (entity.first_name, entity.last_name, entity.evidence) == ("Dean", "Vrbanic", "first-name+unlisted-surname")
    assert entity.confidence == "low" and "no name list" in entity.confidence_reason
    arms = [item for item in get_perturbation("gender-glob", samples=2, seed=0).run_templates([template]).inputs
            if item.arm is not None]
    assert arms and all("Dean Vrbanic" not in item.text and "Vrbanic" in item.text for item in arms)


def test_a_first_name_and_an_unlisted_surname_the_text_writes_in_lower_case_are_no_person():
    # The NER tags both headings PERSON; the text then writes "basil" and "crumbling" as words.
    for text in ("Basil Harvesting is easy when you know how. Start harvesting the basil in the morning.",
                 "Ginger Crumbling takes ten minutes. Keep crumbling the ginger until it is fine."):
        assert not _template(text).entities, text


def test_an_unlisted_surname_after_a_first_name_is_still_no_person_where_a_place_word_says_so():
    template = _template("The Dean Vrbanic Bridge was closed on Tuesday for repairs to its deck.")
    assert not template.entities
