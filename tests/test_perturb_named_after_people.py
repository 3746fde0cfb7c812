"""Issue 27, round six: a thing named after a swapped person is renamed with them, and a person's first name the NER
mislabels a place is still theirs — so one person keeps one name (rules found on GUM's speech, voyage, conversation
and fiction documents, tested here on sentences written for the test, through the real spaCy parse)."""

from __future__ import annotations

import pytest

from bias_core.common.records import Document
from bias_core.perturb import build_templates, get_perturbation
from bias_core.perturb.name_parts import parse_name


def _arms(text: str) -> list[str]:
    result = get_perturbation("gender-glob", samples=2, seed=0).run([Document(id="d", text=text)])
    return [item.text for item in result.inputs if item.arm]


def _template(text: str):
    [template] = build_templates([Document(id="t", text=text)])
    return template


def _first_name_slots(text: str, first: str) -> list[int]:
    return [slot.start for slot in _template(text).slots if slot.kind == "first_name" and slot.text == first]


def test_a_law_named_after_a_person_is_renamed_with_that_person():
    text = ("George Floyd died in Minneapolis in May. The House will pass the George Floyd Justice in Policing Act "
            "this week. Lawmakers said George Floyd's family had asked for the bill.")
    assert len(_first_name_slots(text, "George")) == text.count("George")
    for arm in _arms(text):
        assert "George" not in arm  # the Act carries the counterfactual name too


def test_a_bridge_named_after_a_person_of_the_text_is_renamed_with_them():
    text = ("General George Washington evacuated Fort Lee in 1776. Today traffic crosses the George Washington Bridge "
            "into the town, and a museum tells how George Washington left.")
    assert len(_first_name_slots(text, "George")) == text.count("George")


def test_a_surname_alone_in_an_organisation_is_no_mention():
    text = "Donald Trump spoke in Ohio. He later flew back to Trump Tower in New York."
    template = _template(text)
    assert not any(slot.text == "Trump" and slot.start == text.index("Trump Tower") for slot in template.slots)


def test_a_first_name_the_ner_calls_a_place_after_the_person_was_named_is_still_hers():
    text = ("Diana sent the cards this year, and she signed them all. Are all the rest of these from Diana? Uh, to "
            "Diana, and from Diana. Oh, I see.")
    assert len(_first_name_slots(text, "Diana")) == text.count("Diana")


def test_a_first_name_that_is_also_a_gazetteer_place_keeps_the_place_reading():
    text = "Dr. Sofia Petrova was born in Bulgaria. After the war she flew to Sofia with her brother."
    starts = _first_name_slots(text, "Sofia")
    assert text.index("Sofia Petrova") in starts
    assert text.rindex("Sofia") not in starts


def test_a_whole_name_before_a_describing_noun_is_renamed_with_the_person():
    text = ("George Washington crossed the river in 1776. Buses leave from the Port Authority George Washington Bus "
            "Station every hour.")
    assert len(_first_name_slots(text, "George")) == text.count("George")


def test_a_first_name_alone_as_a_letters_sign_off_is_the_writers():
    text = ("Dear Mom, Miss Marcie Rickenbacker is well and she writes every week. Please write soon. Love to all,\n\n"
            "Marcie")
    assert len(_first_name_slots(text, "Marcie")) == text.count("Marcie")


def test_a_word_that_is_one_persons_surname_and_anothers_first_name_goes_to_the_one_named_before():
    text = "Mark Grace played first base. Grace said he would retire. His wife Grace Kelly cheered."
    template = _template(text)
    second = text.index("Grace said")
    (slot,) = [s for s in template.slots if s.start == second]
    assert slot.kind == "last_name" and slot.entity_id == next(e.entity_id for e in template.entities
                                                               if e.first_name == "Mark")


def test_a_common_word_capitalised_only_where_it_begins_a_sentence_is_no_person():
    text = ("Temples ask visitors to dress modestly. Wear shoes that slip on and off easily, as she told us. "
            "Visitors who wear sandals are welcome.")
    template = _template(text)
    assert not template.entities
    assert any("begins a sentence" in entry["reason"] for entry in template.declined)


@pytest.mark.parametrize("text", [
    "And then the Cab, the Cabernet is known for its thick skin, and she said it ages well.",  # after an article
    "It's about a hundred and eleven degrees. Okay. Fahrenheit. Okay. And she said it was hot.",  # an utterance
    "I was thinking, I'm still thinking — Jeez. And she won't have any antibiotics.",
    "I'm going to Saxby's right after to do the work she gave me. We're heading to Saxby's now.",  # a shop
])
def test_a_capital_that_says_nothing_of_a_name_makes_no_person_of_a_word_with_only_a_pronoun(text):
    template = _template(text)
    assert not template.entities
    assert any("says nothing of a name" in entry["reason"] for entry in template.declined)


def test_the_pronouns_of_a_word_found_to_be_no_person_go_to_whom_they_refer_to():
    # "the Cabernet" took the pronoun after it; it is no person before the pronouns are read, so "her" is Mary
    # Hill's and every world re-genders it with her
    text = "Mary Hill visited the winery on Monday. The Cabernet impressed her, and she bought a case."
    template = _template(text)
    assert [e.label for e in template.entities] == ["Mary Hill"]
    assert all(slot.entity_id == template.entities[0].entity_id for slot in template.slots if slot.kind == "pronoun")
    arms = _arms(text)
    assert all("impressed her, and she" in arm or "impressed him, and he" in arm for arm in arms)
    assert any("impressed him, and he" in arm for arm in arms)


def test_a_surname_the_tagger_reads_as_a_plural_at_a_sentence_start_stays_a_person():
    # the small model tags "Sanders" and "Simmons" NNS where they begin a sentence, as it tags "Feet moved": the tag
    # says nothing against a name
    for name in ("Sanders", "Simmons"):
        template = _template(f"The meeting ended late. {name} said he was tired of it.")
        assert [e.last_name for e in template.entities] == [name]


def test_a_rare_name_written_mid_sentence_with_a_pronoun_stays_a_person():
    text = "Kethlan was tired. Later that night the crew found Kethlan asleep, and she woke at dawn."
    template = _template(text)
    assert [e.last_name or e.first_name for e in template.entities] == ["Kethlan"]


@pytest.mark.parametrize("written", ["Imam Mosque", "Walter Kemp Cemetery", "Sultan Palace",
                                     "Brooklyn Botanic Gardens"])
def test_a_building_or_grounds_word_ending_a_span_makes_it_no_name(written):
    # a title before it ("Imam Mosque") had made a person of GUM's mosque in Isfahan
    assert parse_name(written, 0, len(written), None, frozenset()) is None


def test_an_author_cited_with_a_year_after_a_sentence_initial_role_noun_is_a_person():
    text = ("Anthropologist Ken Barger (1971) discovered this when he conducted research in an Inuit community. "
            "Barger hesitated when invited to join a game.")
    template = _template(text)
    assert [(e.first_name, e.last_name) for e in template.entities] == [("Ken", "Barger")]


def test_a_title_at_a_sentences_start_is_no_role_noun_for_a_firm():
    text = "General Electric reported its results on Monday. General Electric said profits rose."
    template = _template(text)
    assert not template.entities


def test_a_quoted_nickname_goes_with_the_first_name_it_shortens():
    text = "William \"Bill\" Clinton visited Little Rock. Clinton said he loved the city. Bill waved."
    template = _template(text)
    assert [(e.first_name, e.last_name) for e in template.entities] == [("William", "Clinton")]
    for arm in _arms(text):
        assert "Bill" not in arm and arm.count("Clinton") == 2  # the nickname goes with the old first name


def test_initials_before_the_surname_follow_the_first_name_they_stand_for():
    text = "J.K. Rowling wrote the books. Rowling said she began in a cafe. Joanne Rowling is her real name."
    arms = _arms(text)
    for arm in arms:
        new_first = arm.split(" Rowling is")[0].split()[-1]
        assert arm.startswith(new_first[0] + ".K. Rowling wrote")


def test_a_food_or_ware_named_after_a_person_is_no_person():
    text = ("Most cups here are filled with coffee, not Earl Grey tea, a favorite in England. He drank it daily. "
            "She bought Adidas Terrex shoes for the hike.")
    template = _template(text)
    assert not any(e.first_name in ("Earl", "Adidas") for e in template.entities)


def test_a_surname_that_is_also_a_food_keeps_its_person():
    # "Burger" was a product noun for an hour and cost the magician Eugene Burger his swap on the demo corpus
    text = "My major influences on performance are Eugene Burger and Jeff McBride. Burger said he agreed."
    template = _template(text)
    assert ("Eugene", "Burger") in [(e.first_name, e.last_name) for e in template.entities]


def test_the_arabic_article_before_a_gazetteer_place_names_the_place_not_a_person_called_al():
    template = _template("There are flights from Sana'a via Al Mukalla. John Smith said he liked it.")
    assert [e.label for e in template.entities] == ["John Smith"]
    assert any("Arabic article" in entry["reason"] for entry in template.declined)
    template = _template("Al Gore spoke in Ohio. Gore said he would run.")  # Gore: a listed surname
    assert [e.label for e in template.entities] == ["Al Gore"]
