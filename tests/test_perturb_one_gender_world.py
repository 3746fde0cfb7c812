"""C_glob under "coherent" is one world of one gender, and a race swap keeps one name per person (issue 27)."""

from __future__ import annotations

from bias_core.common.records import Document
from bias_core.perturb import build_templates, get_perturbation

STRICT = "names-pronouns-titles"


def _arms(text: str, kind: str = "gender-glob", **params) -> dict[str, str]:
    result = get_perturbation(kind, samples=1, seed=0, **params).run([Document(id="d", text=text)])
    return {item.arm: item.text for item in result.inputs}


def test_a_one_gender_world_gives_every_unnamed_person_the_arms_gender():
    # C_glob under "coherent": everybody of the all-female input is a woman, the unnamed spokesman and the wife of a
    # man too, so that no word contradicts another (issue 27, Deliver 1)
    text = ("A spokesman for Acme said he was sorry. John Smith's wife also works there, and her husband agrees, "
            "Smith said. Men and women applied.")
    arms = _arms(text)
    assert "A spokeswoman for Acme said she was sorry." in arms["female"]
    assert "Smith's wife also works there, and her wife agrees" in arms["female"]
    assert "A spokesman for Acme said he was sorry." in arms["male"]
    assert "Smith's husband also works there, and his husband agrees" in arms["male"]
    assert all("Men and women applied" in arm for arm in arms.values())  # both genders meant: not "women and women"
    # a husband quoted by his wife: his noun and pronoun follow; the paper's scope rewrites the pronoun only
    text = ("Linda Park runs the shop. \"My husband has met many buyers, and he says they all want the same thing,\" "
            "Park said.")
    arms = _arms(text)
    assert "My wife has met many buyers, and she says" in arms["female"]
    assert "My husband has met many buyers, and he says" in arms["male"]
    strict = _arms(text, agreement=STRICT)
    assert "My husband has met many buyers" in strict["male"] and "My husband" in strict["female"]


def test_a_noun_beside_a_name_no_swap_renames_keeps_its_gender_in_every_world():
    # the father's name is no census name and has no pronoun or title: not swapped, so he stays her father
    for text in ("Zaha Hadid was born in Baghdad, Iraq. Her father Mohammed Hadid Muhammad al-Hajj Husayn Hadid was "
                 "a wealthy industrialist from Mosul.",
                 "Zaha Hadid was born in Baghdad. Her father, Muhammad al-Hajj Husayn, was an industrialist."):
        assert all(" father" in arm and "mother" not in arm for arm in _arms(text).values())


def test_a_pronoun_beside_a_name_no_swap_renames_keeps_its_gender():
    # spaCy's PERSON "Mohammed Hadid Muhammad al-Hajj" is no person the finder can swap (no census first name and
    # surname, title or pronoun of its own): "He" may be his, so no world rewrites it
    text = ("Ruth Okafor chairs the board. The plan was drafted by Mohammed Hadid Muhammad al-Hajj in May. He said it "
            "would pass.")
    [template] = build_templates([Document(id="d", text=text)])
    assert [entity.label for entity in template.entities] == ["Ruth Okafor"]
    he = next(slot for slot in template.slots if slot.text == "He")
    assert he.entity_id is None and he.world is None
    assert all("He said it would pass" in arm for arm in _arms(text).values())


def test_a_pronoun_of_the_other_gender_than_a_kept_name_is_still_the_worlds():
    text = ("Mary Gordon wrote a history of Peter the Great, Emperor of Russia. She lived until 1739.")
    arms = _arms(text)
    assert "He lived until 1739" in arms["male"]


def test_a_race_swap_keeps_a_surname_the_text_also_writes_outside_the_persons_mentions():
    text = ("Joshua Norton was a citizen of San Francisco who proclaimed himself Norton I, Emperor of the United "
            "States. Norton issued many decrees. A campaign wants to rename the bridge the Emperor Norton Bridge.")
    result = get_perturbation("race", samples=2, seed=0).run([Document(id="d", text=text)])
    assert result.inputs
    for item in result.inputs:
        assert item.text.count("Norton") == text.count("Norton")  # one name in every mention
        assert not item.text.startswith("Joshua")  # the first name still carries the race signal
    strict = get_perturbation("race", samples=2, seed=0, agreement=STRICT).run([Document(id="d", text=text)])
    assert any(item.text.count("Norton") < text.count("Norton") for item in strict.inputs)


def test_an_unnamed_monk_is_a_nun_in_the_female_world():
    # "a monk so she can pick it up" contradicted itself: monk/nun is a row of the gendered-word table now
    text = ("Mary Lee visited the temple. Objects should be placed in front of a monk so he can pick it up, Lee said.")
    arms = _arms(text)
    assert "in front of a nun so she can pick it up" in arms["female"]
    assert "in front of a monk so he can pick it up" in arms["male"]


def test_a_noun_predicated_of_a_pronoun_no_world_rewrites_keeps_its_gender():
    # an all-caps name is no person the finder takes, so "she" stays hers in every world, and so do the nouns the
    # copula predicates of her, however the parser chains them ("the first—the first … woman, …, the first woman")
    text = ("Joe Biden and KAMALA HARRIS were administered the oaths. KAMALA HARRIS is now the 49th Vice President. "
            "In more ways than one, she is not the 49th but the first—the first African-American woman, the first "
            "Asian-American woman, and the first woman, period, to hold the office. Joe Biden said his son was proud.")
    arms = _arms(text)
    assert all(arm.count("woman") == 3 and " man" not in arm for arm in arms.values())
    assert "said his son was proud" in arms["male"] and "said her daughter was proud" in arms["female"]


def test_a_noun_whose_copula_names_somebody_no_swap_renames_keeps_its_gender():
    # the curly apostrophe leaves "D’Alesandro" no surname the finder reads: he is not swapped, so his brother noun
    # stays; the unnamed sister of the next sentence is the world's
    text = ("Nancy Pelosi spoke. My brother was Mayor later, Thomas D’Alesandro, in Baltimore. My sister is a "
            "doctor.")
    arms = _arms(text)
    assert all("My brother was Mayor later, Thomas D’Alesandro" in arm for arm in arms.values())
    assert "My brother is a doctor" in arms["male"] and "My sister is a doctor" in arms["female"]


def test_a_kinship_word_used_as_a_name_is_the_worlds_like_the_unnamed_person_it_names():
    # "Mom" names the narrator's mother as "my mom" does: one person, who takes the world's gender in both spellings;
    # "Mother Teresa" is a title before a name, not the kinship word
    text = ("John Smith came home. Oh Mom, I love it. Mom has Cara on a diet, so she said no. My mom said she was "
            "tired. Then Mother Teresa came.")
    arms = _arms(text)
    assert "Oh Dad, I love it. Dad has" in arms["male"] and "My dad said he was tired" in arms["male"]
    assert "Oh Mom, I love it. Mom has" in arms["female"]
    assert all("Mother Teresa" in arm for arm in arms.values())


def test_a_kinship_word_taken_for_a_persons_name_is_re_gendered_with_them():
    # "Dad" with a pronoun of his own is a person to the finder: his "him" was re-gendered while "Dad" stayed
    text = ("Mae Smith came. I don't have my own equipment at all. Dad, you know, has done some of it. I had a "
            "general idea of how to do it, just watching him.")
    for kind in ("gender-glob", "gender-loc"):
        for arm in _arms(text, kind).values():
            assert ("Dad, you know" in arm) == ("watching him" in arm)
            assert "Dad, you know" in arm or "Mum, you know" in arm


def test_a_noun_predicated_of_an_unattributed_pronoun_every_world_keeps_keeps_its_gender_too():
    # "He" may be the man no swap renames, so no world rewrites it (as above); "he was the first man" had still
    # become "the first woman" in the female world
    text = ("Ruth Okafor chairs the board. The plan was drafted by Mohammed Hadid Muhammad al-Hajj in May. He said "
            "he was the first man to draft one.")
    for arm in _arms(text).values():
        assert "He said he was the first man to draft one." in arm


def test_a_capitalised_role_noun_is_an_unnamed_person_whose_pronouns_follow_the_world():
    # a court transcript's "the Petitioner" is a person noun with a capital, not a name no swap renames: his pronouns
    # take the arm's gender with the titled "Mr. Jones" he is (GUM court genre); an office is no such noun
    text = ("Mr. Chief Justice, may it please the Court: In September 1975 the Petitioner was arrested when he tried "
            "to steal a coat. Petitioner did not plead guilty. Instead, he raised an insanity defense. The Government "
            "has yet to prove that with respect to Mr. Jones. If it cannot do so now, Petitioner submits, he is entitled to release.")
    arms = _arms(text)
    assert "arrested when she tried" in arms["female"] and "Instead, she raised" in arms["female"]
    assert "Ms. Jones" in arms["female"] and "submits, she is entitled" in arms["female"]
    assert "arrested when he tried" in arms["male"]
    [template] = build_templates([Document(id="d", text=(
        "Yvette Cooper said her party backed the idea after the United Nations High Commissioner for Refugees "
        "recommended it. She continued: \"Labour has a plan.\""))])
    she = next(slot for slot in template.slots if slot.text == "She")
    assert she.entity_id == template.entities[0].entity_id  # the office blocks nothing


def test_a_pronoun_after_a_preposition_of_place_may_be_its_own_clauses_subject():
    # "about her" hangs from a noun: binding does not rule out the grandmother who has the peace, so the pronoun is
    # hers and takes the world's gender with her other words, though a name no swap renames stands near (GUM fiction)
    text = ("When Tyler was young, his grandmother was his favorite person. She would fill in the gaps in his "
            "knowledge — Santa Claus, the Easter Bunny, God. His parents were busy, but his "
            "grandmother had a sense of peace about her, a lightness that lifted his spirit. She took him to church.")
    arms = _arms(text)
    assert "his grandfather had a sense of peace about him" in arms["male"]
    assert "He took him to church" in arms["male"]
    assert "her grandmother had a sense of peace about her" in arms["female"]
