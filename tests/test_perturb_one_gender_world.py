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
