"""Issue 27, round ten: one person under two spellings of a first name, a "her" the tagger reads as an object before
a noun, and female-marked nouns whose male counterpart is neutral (found with sentences written for the tests)."""

from __future__ import annotations

import pytest

from bias_core.common.records import Document
from bias_core.perturb import build_templates, get_perturbation
from bias_core.perturb.lexicon import CONTENT_WORD_GENDER, content_word_for
from bias_core.perturb.name_forms import same_given_name
from bias_core.perturb.names import first_name_gender

TEXTS = {
    "accents": "José Mourinho was sacked on Monday. Jose Mourinho said he would return; Mourinho's agent agreed.",
    "stepfather": "Anna Berg, a lawyer, said her stepfather and her mother-in-law were at the wedding.",
    "marked": "Tina Fey is a comedienne and a hostess. Emma Stone, the heroine of the film, said she was proud.",
    "neutral": "John Lund, the hero of the rescue, said he was tired. Lund is a host on local radio.",
    "king": ("Martin Luther King Jr. spoke in Washington. King said he had a dream, and Dr. King thanked his wife, "
             "Coretta Scott King."),
    "knight": "Gladys Knight sang on Sunday. Knight said she was thrilled.",
    "leyen": ("Ursula von der Leyen spoke in Brussels on Monday. She said the union was strong. Von der Leyen thanked "
              "her staff."),
    "gaulle": "Charles de Gaulle led France after the war. He was proud of it. De Gaulle died in 1970.",
    "leo": "Leonardo DiCaprio won the award. Leo said he was happy, and DiCaprio thanked his mother.",
    "stefani": ("Stefani Joanne Angelina Germanotta (born March 28, 1986), known professionally as Lady Gaga, is an "
                "American singer. Germanotta began performing as a teenager. Gaga said she was shy."),
    "franklin": "Eleanor Roosevelt was first lady. Roosevelt said she was proud of her husband, Franklin.",
    "leonard": "Naomi Wolf said her father, Leonard, inspired her.",
    "william": "The author Henry James died in 1916. Henry's brother William was a philosopher.",
    "bocelli": "Andrea Bocelli sang in Rome. Bocelli said he was moved by the crowd.",
    "sells": "My name is Amy Sells. The hearing began at nine and ran late. At noon he left the room.",
    "ana": "Police named the victims as Maria Gonzalez, 34, and her daughter, Ana, 12. Ana was a student.",
    "radio": ("Blake Aaron's album was played on KTWV The Wave Los Angeles, KIFM San Diego, KKSF San Francisco and "
              "WNUA Chicago. Aaron said he was pleased."),
    "brother": ("With deep sadness the parents of Jules Bianchi, Philippe and Christine, his brother Tom and sister "
                "Mélanie, wish to make it known that Jules passed away."),
    "barlow": ("Born to Republican state legislator Norman Barlow and his wife Miriam, Barlow was raised on the Bar "
               "Cross Ranch in Pinedale, Wyoming."),
    "president": ('Lee Bollinger turned to Mahmoud Ahmadinejad: "Mr. President, you exhibit all the signs of a petty '
                  'dictator." Ahmadinejad said he was insulted.'),
    "caption": ("Adam Kokesh is running for president.\n\nAdam Kokesh Image: The Adam Kokesh Referendum Project.\n\n"
                "Kokesh said he would win."),
    "suharto": ('Suharto was buried in Surakarta, Central Java. His daughter said, "May God bless him and forgive '
                'all of his mistakes."'),
    "corps": "Turner joined the Reserve Officer Training Corps in college. Abraham Turner said he loved it.",
    "mom": ("Andrea Muizelaar grew up in Whitby. My Dad works in the nuclear industry and my Mom is a stay-at-home "
            "mom, she said."),
    "englishman": "Francis Barrett, an Englishman, claimed himself to be a student of chemistry.",
    "dylan": ("Robert Allen Zimmerman, better known as Bob Dylan, was born in Duluth. Dylan said he disliked "
              "interviews. Zimmerman's father owned a shop."),
}


@pytest.fixture(scope="module")
def arms() -> dict[str, dict[str, str]]:
    templates = build_templates([Document(id=key, text=text) for key, text in TEXTS.items()])
    texts: dict[str, dict[str, str]] = {}
    for name in ("gender-glob", "race"):
        for item in get_perturbation(name, samples=1, seed=0).run_templates(templates).inputs:
            if item.arm is not None:
                texts.setdefault(item.original_id, {})[f"{name}:{item.arm}"] = item.text
    return texts


def test_first_names_that_differ_only_in_diacritics_can_name_one_person():
    assert same_given_name("José", "Jose") and same_given_name("Zoë", "Zoe") and same_given_name("Chloé", "Chloe")
    assert not same_given_name("José", "Josefa")


@pytest.mark.parametrize("arm", ["gender-glob:male", "gender-glob:female", "race:a", "race:b"])
def test_a_person_written_with_and_without_accents_gets_one_new_name(arms, arm):
    text = arms["accents"][arm]
    first, second = text.split(" was sacked")[0], text.split("Monday. ")[1].split(" said")[0]
    assert first == second, text
    assert "José" not in text and "Jose " not in text
    if arm.startswith("race"):
        assert "Mourinho" not in text, text


def test_her_before_a_noun_is_the_possessive_even_where_the_tagger_reads_an_object(arms):
    male = arms["stepfather"]["gender-glob:male"]
    assert "his stepfather" in male and "him stepfather" not in male, male


def test_female_marked_nouns_become_their_neutral_form_for_a_man(arms):
    male = arms["marked"]["gender-glob:male"]
    assert "a comedian and a host" in male and "the hero of the film" in male, male
    assert "heroine" not in male and "hostess" not in male


def test_the_neutral_side_of_a_marked_pair_stays_for_a_woman(arms):
    female = arms["neutral"]["gender-glob:female"]
    assert "the hero of the rescue" in female and "a host on local radio" in female, female
    assert " she " in female


def test_a_marked_row_maps_one_way_only():
    assert CONTENT_WORD_GENDER["heroine"] == "female" and "hero" not in CONTENT_WORD_GENDER
    assert content_word_for("male", "Hostess") == "Host"
    assert CONTENT_WORD_GENDER["motherhood"] == "female" and CONTENT_WORD_GENDER["fatherhood"] == "male"


@pytest.mark.parametrize("arm", ["gender-glob:male", "gender-glob:female", "race:a", "race:b"])
def test_a_surname_that_is_a_gendered_noun_stays_a_surname(arms, arm):
    for key, kept in (("king", "King"), ("knight", "Knight")):
        text = arms[key][arm]
        assert not any(word in text for word in ("Queen", "Dame")), text
        if arm.startswith("gender"):
            assert text.count(kept) == TEXTS[key].count(kept), text


@pytest.mark.parametrize("arm", ["race:a", "race:b"])
def test_a_surname_with_particles_is_one_name_where_the_ner_cut_or_mislabelled_it(arms, arm):
    for key, surname in (("leyen", "Leyen"), ("gaulle", "Gaulle")):
        text = arms[key][arm]
        assert surname not in text and "Ursula" not in text and "Charles" not in text, text


def test_the_given_name_before_a_particle_surname_is_swapped_in_a_gender_swap(arms):
    assert arms["leyen"]["gender-glob:male"].split()[0] != "Ursula"
    assert arms["gaulle"]["gender-glob:female"].split()[0] != "Charles"


def test_a_first_name_written_short_by_its_first_letters_is_the_same_person(arms):
    assert same_given_name("Leonardo", "Leo") and same_given_name("Natsuko", "Natsu")
    assert not same_given_name("Chris", "Christodoulos")  # a later, longer name is somebody else
    assert not same_given_name("Joel", "Joe") and not same_given_name("Christina", "Chris")
    for arm in ("gender-glob:male", "gender-glob:female"):
        text = arms["leo"][arm]
        assert "Leo" not in text and text.split()[0] == text.split(". ")[1].split()[0], text


@pytest.mark.parametrize("arm", ["gender-glob:male", "gender-glob:female", "race:a", "race:b"])
def test_a_first_name_the_ner_tagged_apart_before_a_full_name_is_that_persons(arms, arm):
    text = arms["stefani"][arm]  # the NER tags "Stefani" NORP and "Joanne Angelina Germanotta" PERSON
    assert "Stefani" not in text and "Joanne" not in text, text


def test_a_world_noun_in_apposition_with_a_given_name_no_swap_renames_stays(arms):
    assert "her husband, Franklin" in arms["franklin"]["gender-glob:female"]
    assert "his husband, Franklin" in arms["franklin"]["gender-glob:male"]


def test_a_lower_case_kinship_noun_the_tagger_called_proper_is_tied_to_its_apposition(arms):
    female = arms["leonard"]["gender-glob:female"]  # the tagger reads "father" as NNP here
    assert "her mother, " in female and "Leonard" not in female, female


@pytest.mark.parametrize("arm", ["race:a", "race:b"])
def test_the_surname_of_a_stage_name_stays_as_written_while_the_real_one_is_swapped(arms, arm):
    text = arms["dylan"][arm]
    assert "Zimmerman" not in text and text.count("Dylan") == 2, text


@pytest.mark.parametrize("arm", ["gender-glob:male", "gender-glob:female", "race:a", "race:b"])
def test_a_lower_case_kinship_word_before_a_given_name_is_no_title(arms, arm):
    text = arms["william"][arm]  # "his brother William" is a first name, not a surname after "Brother"
    assert "William" not in text, text
    if arm == "gender-glob:female":
        assert "sister" in text, text


def _first_word_gender(text: str) -> str | None:
    return first_name_gender(text.split()[0])


@pytest.mark.parametrize("arm", ["race:a", "race:b"])
def test_a_name_the_census_gives_one_gender_yields_to_pronouns_the_parse_gives_its_bearer(arms, arm):
    text = arms["bocelli"][arm]  # the census gives Andrea to women; "Bocelli said he" makes him a man
    assert _first_word_gender(text) == "male" and " he " in text, text


def test_a_pronoun_only_recency_would_give_does_not_overrule_the_census():
    [template] = build_templates([Document(id="sells", text=TEXTS["sells"])])
    [person] = template.entities
    assert (person.gender, person.gender_source) == ("female", "first_name")
    [bocelli] = build_templates([Document(id="bocelli", text=TEXTS["bocelli"])])[0].entities
    assert (bocelli.gender, bocelli.gender_source) == ("male", "pronoun")


@pytest.mark.parametrize("arm", ["gender-glob:male", "gender-glob:female", "race:a", "race:b"])
def test_an_untagged_given_name_in_apposition_with_a_kinship_noun_is_a_person(arms, arm):
    text = arms["ana"][arm]  # the small model tags no entity on "Ana"
    assert "Ana," not in text and "Ana was" not in text, text
    if arm == "gender-glob:male":
        assert "his son, " in text, text


@pytest.mark.parametrize("arm", ["gender-glob:male", "gender-glob:female", "race:a", "race:b"])
def test_a_rare_first_name_that_opens_place_names_opens_no_full_name(arms, arm):
    text = arms["radio"][arm]  # the NER tags "KKSF San Francisco" PERSON, and the census lists "San"
    assert "San Francisco" in text and "San Diego" in text and "Blake" not in text, text


def test_a_kinship_noun_in_apposition_to_a_word_that_names_nobody_ties_to_its_own_name(arms):
    female = arms["brother"]["gender-glob:female"]  # "brother" hangs from "parents", "Tom" from "brother"
    assert "her sister " in female and "brother" not in female, female


def test_the_name_right_after_a_possessed_kinship_noun_is_that_relative_where_the_parse_splits_them(arms):
    male = arms["barlow"]["gender-glob:male"]  # the parser makes "wife" a conjunct and "Miriam" a modifier
    assert "his husband " in male and "wife" not in male, male


def test_mr_before_an_office_with_no_name_is_the_office_holders_title_in_a_one_gender_world(arms):
    assert '"Madam President, you' in arms["president"]["gender-glob:female"]
    assert '"Mr. President, you' in arms["president"]["gender-glob:male"]
    assert '"Mr. President, you' in arms["president"]["race:a"]


def test_a_caption_credit_label_after_a_name_is_no_surname():
    [template] = build_templates([Document(id="caption", text=TEXTS["caption"])])
    assert [entity.label for entity in template.entities] == ["Adam Kokesh"]


def test_a_deity_a_place_after_central_and_an_organisation_of_corps_are_no_people():
    [suharto] = build_templates([Document(id="suharto", text=TEXTS["suharto"])])
    assert not any(word in entity.label for entity in suharto.entities for word in ("God", "Java"))
    [corps] = build_templates([Document(id="corps", text=TEXTS["corps"])])
    assert not any("Corps" in entity.label for entity in corps.entities)


def test_a_capitalised_kinship_word_after_a_possessive_is_a_common_noun_in_a_one_gender_world(arms):
    male = arms["mom"]["gender-glob:male"]
    assert "my Dad is a stay-at-home dad" in male, male


def test_a_capitalised_person_noun_with_an_article_in_apposition_agrees(arms):
    female = arms["englishman"]["gender-glob:female"]
    assert "an Englishwoman" in female and "herself" in female, female
