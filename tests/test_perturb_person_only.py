"""Only people are swapped (issue 10, item 0): a span becomes a person only with positive evidence (a title, a known
first name with a listed surname in a PERSON span, or a pronoun), so places, organisations and buildings whose first
word is a census first name stay intact — checked with the real spaCy pipeline on real-style sentences, on the demo
corpus and on the hand-annotated tricky-names fixture, for every perturbation that swaps names."""

from __future__ import annotations

import functools
import json
import re

import pytest

from bias_core.common.records import Document, Input, Substitution
from bias_core.documents.corpus import load_documents
from bias_core.perturb import build_templates, get_perturbation
from tests.fixtures.perturb.corpus import DEMO_NEWS, HERE

NAME_KINDS = ("gender-loc", "gender-glob", "race", "race-intersectional")
EVIDENCE = {"title", "first-name+surname", "pronoun"}


STRICT = "names-pronouns-titles"


def _inputs(text: str, kind: str = "race", **params) -> list[Input]:
    [template] = build_templates([Document(id="t", text=text)])
    return get_perturbation(kind, samples=2, seed=3, **params).run_templates([template]).inputs


def _untouched(items: list[Input], text: str, phrase: str) -> bool:
    """Whether no substitution of any input touches any occurrence of ``phrase`` in the original ``text``."""
    spans = [(m.start(), m.end()) for m in re.finditer(re.escape(phrase), text)]
    assert spans, phrase
    for item in items:
        for start, end in _original_spans(item):
            if any(start < e and s < end for s, e in spans):
                return False
    return True


def _original_spans(item: Input) -> list[tuple[int, int]]:
    """Each substitution's span in the original text (undoing the shifts of the earlier ones)."""
    shift, spans = 0, []
    for sub in sorted(item.substitutions, key=lambda s: s.start):
        start = sub.start - shift
        spans.append((start, start + len(sub.original)))
        shift += len(sub.replacement) - len(sub.original)
    return spans


def _swapped(items: list[Input], word: str) -> bool:
    return any(sub.original == word for item in items for sub in item.substitutions)


def test_organisation_with_a_first_name_first_word_stays_intact_with_its_possessive():
    text = ("Al Jazeera's Doha bureau chief, Karen Holloway, received the prize on Monday. Holloway said she would "
            "share it with her colleagues at Al Jazeera English. Al Jazeera declined to comment.")
    for kind in NAME_KINDS:
        items = _inputs(text, kind)
        assert items and _untouched(items, text, "Al Jazeera")
        assert _swapped(items, "Karen")


def test_virginia_woolf_is_a_person_and_virginia_beach_a_place():
    text = ("Virginia Beach Mayor Robert Dyer defended the budget. Dyer said he expected it to pass. An exhibition "
            "about Virginia Woolf opened in Virginia Beach on Friday. Woolf kept a diary, and she wanted readers.")
    items = _inputs(text, "gender-glob")
    assert _untouched(items, text, "Virginia Beach")
    assert any("Virginia Woolf" not in item.text for item in items)  # her first name is swapped
    assert _swapped(items, "Robert")


def test_all_caps_headline_place_stays_intact():
    text = ("VIRGINIA BEACH MAYOR DEFENDS BUDGET\n\nVirginia Beach Mayor Robert Dyer defended the plan on Tuesday. "
            "Councilwoman Linda Carver said she would vote against it. \"Virginia Beach deserves better,\" Carver "
            "said.")
    for kind in ("gender-loc", "race"):
        items = _inputs(text, kind)
        assert _untouched(items, text, "VIRGINIA BEACH") and _untouched(items, text, "Virginia Beach")
        assert _swapped(items, "Linda") and _swapped(items, "Robert")


def test_jordan_the_country_stays_and_michael_jordan_is_swapped():
    text = ("Jordan will host a new round of talks, Foreign Minister Ayman Safadi said. Safadi said he had spoken to "
            "both sides at a hotel near the Jordan Valley. Former basketball star Michael Jordan visited Amman. "
            "Jordan told reporters he was impressed.")
    items = _inputs(text, "race", agreement=STRICT)  # every surname renamed: the mentions show
    assert _untouched(items, text, "Jordan will host") and _untouched(items, text, "Jordan Valley")
    assert _swapped(items, "Michael")
    # the later bare "Jordan" (after "Michael Jordan" is introduced) is the player, so race replaces it too
    told = text.index("Jordan told")
    assert all(any(start == told for start, _ in _original_spans(item)) for item in items)


def test_washington_the_city_stays_and_denzel_washington_is_swapped():
    text = ("Actor Denzel Washington will film a political drama in Washington, the producers said. Washington, "
            "69, plays a senator who loses his seat. The Washington Post reported that scenes will be shot near the "
            "Lincoln Memorial.")
    items = _inputs(text, "race", agreement=STRICT)  # every surname renamed: the mentions show
    for phrase in ("drama in Washington", "The Washington Post", "Lincoln Memorial"):
        assert _untouched(items, text, phrase), phrase
    assert _swapped(items, "Denzel")
    person = text.index("Washington, 69")
    assert all(any(start == person for start, _ in _original_spans(item)) for item in items)


def test_a_coherent_race_swap_keeps_a_surname_the_text_also_writes_as_a_place():
    # one person, one name (issue 27): "Washington" stays in every mention, the person gets a new first name
    text = ("Actor Kevin Washington will film a political drama in Washington, the producers said. Washington, "
            "69, plays a senator who loses his seat.")
    items = _inputs(text, "race")
    assert items and all(item.text.count("Washington") == 3 and "Kevin" not in item.text for item in items)
    # a rare first name gives no gender: it stays, and so do the words of the person's gender
    for item in _inputs(text.replace("Kevin", "Denzel"), "race"):
        assert item.text.startswith("Actor Denzel Washington") and item.text.count("Washington") == 3


def test_a_place_named_surname_after_the_person_is_the_person():
    """The decision for "Washington said": a bare surname the NER labels a place is the person when that person was
    named before and the word acts as a person (subject, possessor, object) or follows a title."""
    text = ("Historian Margaret Ellis has studied George Washington's farewell address. Washington said in the "
            "address that he feared parties, Ellis writes. She said Mr. Washington was a careful editor of his words. "
            "Ellis teaches in Fairfax, near Washington.")
    items = _inputs(text, "race", agreement=STRICT)  # every surname renamed: the mentions show
    said, mister = text.index("Washington said"), text.index("Mr. Washington") + 4
    for item in items:
        starts = {start for start, _ in _original_spans(item)}
        assert said in starts and mister in starts
    assert _untouched(items, text, "near Washington")
    assert _swapped(items, "Margaret")  # the job word "Historian" is no part of her name


def test_initial_without_full_stop_keeps_the_initial_and_swaps_the_first_name():
    text = ("George W Bush said in a statement that he hoped historians would use the papers. The George W Bush "
            "Presidential Center in Dallas is run by Southern Methodist University.")
    items = _inputs(text, "gender-glob")
    assert _untouched(items, text, "The George W Bush Presidential Center")
    female = [item for item in items if item.arm == "female"]
    assert female and all(re.match(r"[A-Z][a-z]+ W Bush said in a statement that she", item.text) for item in female)
    assert all(sub.evidence == "first-name+surname" for item in items for sub in item.substitutions
               if sub.kind == "first_name")


def test_nickname_hyphenated_names_and_titles_give_evidence():
    text = ("Sen. Dick Durbin said Tuesday that he would back the bill. Chelsea signed Mary-Kate Donnelly from "
            "Victoria FC. Donnelly said she had dreamed of it. Chelsea manager Emma Hayes said her squad was ready.")
    [template] = build_templates([Document(id="t", text=text)])
    evidence = {entity.label: entity.evidence for entity in template.entities}
    assert evidence["Dick Durbin"] == "title"
    assert evidence["Mary-Kate Donnelly"] == "first-name+surname"
    items = get_perturbation("gender-glob", samples=1).run_templates([template]).inputs
    assert _untouched(items, text, "Chelsea") and _untouched(items, text, "Victoria FC")
    assert _swapped(items, "Mary-Kate") and _swapped(items, "Dick")


def test_pronoun_agreement_is_evidence_for_a_mislabelled_name():
    """spaCy sm tags "Dolores Finch" ORG; her pronoun makes her a person. "Camden Yards" (PERSON once, FAC twice)
    and "Baltimore" before "Mayor" are not people and take no pronoun."""
    text = ("Fans packed Camden Yards on Saturday. Baltimore Mayor Brandon Scott said he would attend every game. "
            "Season ticket holder Dolores Finch said she had waited since October. \"Camden Yards is the best park,\" "
            "Finch said.")
    [template] = build_templates([Document(id="t", text=text)])
    evidence = {entity.label: entity.evidence for entity in template.entities}
    assert evidence == {"Brandon Scott": "title", "Dolores Finch": "pronoun"}


def test_every_substitution_records_the_person_and_the_evidence_it_was_swapped_on():
    text = ("Mr. Moore met Linda Carver in Santa Barbara. She said he was late. Carver, 51, later told the court "
            "that Moore had apologised. He said she was right.")
    for kind in ("gender-loc", "gender-glob", "race"):
        for item in _inputs(text, kind, controls=True):
            for sub in item.substitutions:
                if sub.entity_id is None:
                    assert (sub.entity_label, sub.evidence) == (None, "unattributed")
                else:
                    assert sub.entity_label == "PERSON" and sub.evidence in EVIDENCE
                    assert sub.ner_label is not None
            assert _untouched([item], text, "Santa Barbara")


def test_substitution_evidence_fields_are_optional_and_round_trip():
    old = {"start": 0, "end": 5, "original": "Linda", "replacement": "Maria", "kind": "first_name", "entity_id": "e1"}
    assert Substitution.from_dict(old).evidence is None and Substitution.from_dict(old).to_dict() == old
    new = {**old, "entity_label": "PERSON", "evidence": "title", "ner_label": "PERSON"}
    record = Substitution.from_dict(new)
    assert (record.entity_label, record.evidence, record.ner_label) == ("PERSON", "title", "PERSON")
    assert record.to_dict() == new and record.extra == {}


@functools.cache
def _annotated() -> tuple[tuple[Document, ...], dict[str, dict]]:
    demo = tuple(load_documents(DEMO_NEWS))
    tricky = tuple(load_documents(HERE / "tricky_names.jsonl"))
    gold = json.loads((HERE / "demo_gold.json").read_text(encoding="utf-8"))
    gold.update({d.id: d.extra["gold"] for d in tricky})
    return demo + tricky, gold


@functools.cache
def _templates():
    documents, _ = _annotated()
    return tuple(build_templates(documents))


def _non_person_swaps(kind: str, **params) -> dict[str, set[str]]:
    """Per original, the original strings of the substitutions that fall inside a hand-annotated non-person phrase."""
    documents, gold = _annotated()
    texts = {d.id: d.text or "" for d in documents}
    found: dict[str, set[str]] = {}
    inputs = get_perturbation(kind, samples=2, seed=11, **params).run_templates(list(_templates())).inputs
    assert inputs
    for item in inputs:
        text = texts[item.original_id]
        phrases = [(m.start(), m.end()) for phrase in gold[item.original_id]["non_people"]
                   for m in re.finditer(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)", text)]
        for (start, end), sub in zip(_original_spans(item), sorted(item.substitutions, key=lambda s: s.start),
                                     strict=True):
            if any(s <= start and end <= e for s, e in phrases):
                found.setdefault(item.original_id, set()).add(sub.original)
    return found


@pytest.mark.parametrize("kind", NAME_KINDS)
@pytest.mark.parametrize("controls", [False, True])
def test_no_substitution_falls_inside_a_place_or_organisation_of_the_demo_and_tricky_corpora(kind, controls):
    """Known limit, kept visible: "Victoria Bitter" (a beer) is a PERSON span with a census first name and a listed
    surname, which is the positive evidence the rule accepts; nothing in the text says otherwise."""
    expected = {"Victoria", "Bitter"} if kind.startswith("race") else {"Victoria"}  # race swaps last names too
    assert _non_person_swaps(kind, controls=controls) == {"tricky-15": expected}


def test_identity_changes_nothing():
    documents, _ = _annotated()
    result = get_perturbation("identity").run(list(documents))
    assert all(not item.substitutions and item.text == doc.text for item, doc in zip(result.inputs, documents,
                                                                                      strict=True))


def test_names_in_an_all_caps_headline_follow_the_person_and_start_no_one_new():
    text = ("DENZEL WASHINGTON TO FILM IN WASHINGTON\n\nActor Denzel Washington will film a drama in Washington. "
            "MARY-KATE DONNELLY JOINS CHELSEA\n\nMary-Kate Donnelly said she was thrilled.")
    [template] = build_templates([Document(id="t", text=text)])
    assert {entity.label for entity in template.entities} == {"Denzel Washington", "Mary-Kate Donnelly"}
    assert template.entities[1].gender == "female"  # both parts of "Mary-Kate" are female census names
    for item in get_perturbation("race", samples=2, agreement=STRICT).run_templates([template]).inputs:
        headline = item.text.split("\n", 1)[0]
        assert headline.endswith(" TO FILM IN WASHINGTON") and "DENZEL" not in headline and headline.isupper()
        assert "Washington" not in item.text.split(".")[0].replace("drama in Washington", "")


def test_initials_with_a_listed_surname_are_evidence_and_a_name_used_as_a_modifier_stays_the_person():
    text = ("Trump introduced J.D. Vance, the author he backed. Vance thanked him. Prosecutor Karen Whitaker filed "
            "charges in March. Pryor said the Whitaker case showed the rules were weak.")
    [template] = build_templates([Document(id="t", text=text)])
    evidence = {entity.label: entity.evidence for entity in template.entities}
    assert evidence["Vance"] == "initials+surname"
    whitaker = next(e for e in template.entities if e.label == "Karen Whitaker")
    case = text.index("Whitaker case")
    assert any(slot.start == case and slot.entity_id == whitaker.entity_id for slot in template.slots)


def test_the_run_record_lists_each_original_s_people_with_evidence_and_the_names_declined_with_a_reason():
    documents = [
        Document(id="yards", text="Fans packed Camden Yards on Saturday. Baltimore Mayor Brandon Scott said he would "
                 "attend every game. Season ticket holder Dolores Finch said she had waited since October. "
                 "\"Camden Yards is the best park,\" Finch said."),
        Document(id="fc", text="Rivermouth FC ended an eight-game winless run on Saturday. Rivermouth manager Claire "
                 "Donovan, in her first season, praised the team. Rivermouth travels to face the league leaders next."),
    ]
    info = get_perturbation("gender-loc", samples=1).run(documents).run_info
    assert {(p["name"], p["evidence"]) for p in info["people"]["yards"]} == {("Brandon Scott", "title"),
                                                                             ("Dolores Finch", "pronoun")}
    assert info["not_people"]["yards"] == [{"name": "Camden Yards", "reason": "organisation or place word 'Yards'"}]
    assert [p["name"] for p in info["people"]["fc"]] == ["Claire Donovan"]
    assert info["not_people"]["fc"] == [
        {"name": "Rivermouth FC", "reason": "organisation or place word 'FC'"},
        {"name": "Rivermouth", "reason": "named like a place or organisation in this text"},
    ]


def test_a_subject_pronoun_goes_to_the_person_just_named_whose_gender_is_unknown():
    """Before, "Dr. Lin said she" went to an older woman (Ms. Tran) and Lin kept no gender, so her pronouns went
    astray whenever Tran was swapped; a relative clause still points past the apposition ("the author he backed")."""
    text = ("Ms. Tran said the board would vote. The board's chair, Dr. Lin, asked for a study. Dr. Lin said she "
            "was inclined to support it. Donald Trump used the event to introduce J.D. Vance, the author he backed.")
    [template] = build_templates([Document(id="t", text=text)])
    owner = {e.entity_id: e.label for e in template.entities}
    pronouns = {slot.start: owner.get(slot.entity_id) for slot in template.slots if slot.kind == "pronoun"}
    assert pronouns[text.index("she")] == "Lin"
    assert pronouns[text.index("he backed")] == "Donald Trump"
    assert next(e for e in template.entities if e.label == "Lin").gender == "female"
