"""The perturbation-quality gold (issue 27): built from GUM's annotation, split once, and judged the way a reader would.

The judge in ``benchmarks/coherence_gold.py`` decides what the closing figures of issue 27 mean, so it is tested here
on small hand-made inputs: it must catch each kind of incoherence it names and stay silent on a coherent swap.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from bias_core.common.records import Input, Substitution

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from coherence_gold import Judge, _slot_people, judge, load

TEXT = "Ms. Ann Lund, the daughter of a baker, met Acme Lund Corp. She said her son agreed."
#       0123456789012345678901234567890123456789012345678901234567890123456789012345678901234
GOLD = {
    "id": "doc",
    "people": [
        {"id": "1", "identity": "", "gender": "female", "named": True, "individual": True,
         "mentions": [{"start": 0, "end": 12, "text": "Ms. Ann Lund", "kind": "name", "names": [[0, 12]]},
                      {"start": 14, "end": 38, "text": "the daughter of a baker", "kind": "nominal", "names": []},
                      {"start": 58, "end": 61, "text": "She", "kind": "pronoun", "names": []},
                      {"start": 67, "end": 70, "text": "her", "kind": "pronoun", "names": []}],
         "gendered_words": [{"start": 0, "end": 3, "word": "Ms.", "gender": "female"},
                            {"start": 18, "end": 26, "word": "daughter", "gender": "female"},
                            {"start": 58, "end": 61, "word": "She", "gender": "female"},
                            {"start": 67, "end": 70, "word": "her", "gender": "female"}]},
        {"id": "2", "identity": "", "gender": "male", "named": False, "individual": False,
         "mentions": [{"start": 67, "end": 74, "text": "her son", "kind": "nominal", "names": []}],
         "gendered_words": [{"start": 71, "end": 74, "word": "son", "gender": "male"}]},
    ],
    "non_people": [{"id": "3", "etype": "organization", "identity": "",
                    "mentions": [{"start": 43, "end": 57, "text": "Acme Lund Corp", "kind": "name",
                                  "names": [[43, 57]]}]}],
}


def _input(edits: list[tuple[int, int, str, str]], text: str = TEXT) -> Input:
    """An arm text made from (start, end, replacement, kind) edits of ``text``, with its substitution map."""
    pieces, subs, cursor, length = [], [], 0, 0
    for start, end, replacement, kind in sorted(edits):
        gap = text[cursor:start]
        pieces.append(gap)
        length += len(gap)
        subs.append(Substitution(length, length + len(replacement), text[start:end], replacement, kind, "e1",
                                 swap_confidence="high"))
        pieces.append(replacement)
        length += len(replacement)
        cursor = end
    pieces.append(text[cursor:])
    return Input(id="doc/a", original_id="doc", text="".join(pieces), perturbation="gender-glob", sample_id=0,
                 arm="male", substitutions=subs)


COHERENT = [(0, 3, "Mr.", "title"), (4, 7, "Tom", "first_name"), (18, 26, "son", "content_word"),
            (58, 61, "He", "pronoun"), (67, 70, "his", "pronoun")]


def test_a_coherent_swap_has_no_problem():
    lines, bad, owners = Judge(TEXT, GOLD).problems(_input(COHERENT))
    assert lines == [] and bad == set() and owners == {"e1": "1"}


def test_a_gendered_noun_left_behind_is_a_gender_incoherence():
    lines, bad, _ = Judge(TEXT, GOLD).problems(_input([e for e in COHERENT if e[1] != 26]))
    assert bad == {"1"} and lines == ["gender: female (daughter) / male (He, Mr., Tom)"]


def test_a_pronoun_moved_to_another_person_is_caught_on_that_person():
    lines, bad, _ = Judge(TEXT, GOLD).problems(_input([*COHERENT, (71, 74, "daughter", "content_word")]))
    assert bad == set()  # the son's only gendered word changed alone: that person still reads as one gender
    lines, bad, _ = Judge(TEXT, GOLD).problems(_input([(58, 61, "He", "pronoun")]))
    assert bad == {"1"} and lines[0].startswith("gender:")


def test_a_name_swapped_in_one_mention_only_reads_as_two_names():
    text_edits = [(4, 7, "Tom", "first_name"), (8, 12, "Moss", "last_name")]
    gold = json.loads(json.dumps(GOLD))
    gold["people"][0]["mentions"].append({"start": 48, "end": 52, "text": "Lund", "kind": "name",
                                          "names": [[48, 52]]})
    lines, _, _ = Judge(TEXT, gold).problems(_input(text_edits))
    assert any(line == "two names: 'Lund' reads Lund / Moss" for line in lines)


TWIN = "Ahmed Ahmed performed in Cairo. Ahmed said he was nervous."  # "Ahmed said" at 32, "he" at 43
TWIN_GOLD = {"id": "doc", "non_people": [], "people": [
    {"id": "1", "identity": "", "gender": "male", "named": True, "individual": True,
     "mentions": [{"start": 0, "end": 11, "text": "Ahmed Ahmed", "kind": "name", "names": [[0, 11]]},
                  {"start": 32, "end": 37, "text": "Ahmed", "kind": "name", "names": [[32, 37]]}],
     "gendered_words": [{"start": 43, "end": 45, "word": "he", "gender": "male"}]}]}


def test_a_first_name_equal_to_the_surname_may_read_two_ways_one_per_part():
    """"Ahmed Ahmed ... Ahmed said" → "John Ahmed ... Ahmed said" gives one person one name: the first name and the
    surname are two parts that happen to be written alike."""
    judge_twin = Judge(TWIN, TWIN_GOLD)
    assert judge_twin.problems(_input([(0, 5, "John", "first_name")], TWIN))[0] == []
    assert judge_twin.problems(_input([(0, 5, "John", "first_name"), (32, 37, "John", "first_name")], TWIN))[0] == []
    lines = judge_twin.problems(_input([(0, 5, "John", "first_name"), (32, 37, "Mark", "first_name")], TWIN))[0]
    assert lines == ["two names: 'Ahmed' reads Ahmed / John / Mark"]


def test_a_swapped_organisation_name_is_a_non_person():
    lines, _, owners = Judge(TEXT, GOLD).problems(_input([(48, 52, "Moss", "last_name")]))
    assert lines == ["non-person swapped: 'Lund' → 'Moss'"] and owners == {"e1": ""}


def test_figures_count_arm_texts_entities_and_confidence():
    figures = judge("gender-glob", [_input(COHERENT), _input(COHERENT[:2])],
                    [type("D", (), {"id": "doc", "text": TEXT})()], {"doc": GOLD})
    assert (figures.arm_texts, figures.incoherent, figures.swapped, figures.non_people) == (2, 1, 1, 0)
    assert figures.by_confidence == {"high": [0, 1]}  # incoherent in one input: not right
    assert (figures.named_people, figures.missed) == (1, 0)


def _template(*slots: tuple[str, int, int, str], unswapped: tuple[str, ...] = ()) -> SimpleNamespace:
    """A stand-in for an EntityTemplate: its entities (by id) and (entity, start, end, kind) slots."""
    ids = dict.fromkeys(slot[0] for slot in slots)
    return SimpleNamespace(document_id="doc", text=TEXT, slots=[SimpleNamespace(entity_id=e, start=a, end=b, kind=k)
                                                                for e, a, b, k in slots],
                           entities=[SimpleNamespace(entity_id=e, unswapped_reason="kept" if e in unswapped else None)
                                     for e in ids])


def test_a_person_swapped_by_title_and_pronouns_alone_is_not_missed():
    """"Mr. Lund ... he" → "Ms. Lund ... she": no name changes, yet the person was swapped."""
    title_only = _input([(0, 3, "Mr.", "title"), (58, 61, "He", "pronoun")])
    document = type("D", (), {"id": "doc", "text": TEXT})()
    assert judge("gender-glob", [title_only], [document], {"doc": GOLD}).missed == 1  # no template: no name slot
    template = _template(("e1", 8, 12, "last_name"))
    assert judge("gender-glob", [title_only], [document], {"doc": GOLD}, [template]).missed == 0
    kept = _template(("e1", 8, 12, "last_name"), unswapped=("e1",))  # left as written by a rule: still missed
    assert judge("gender-glob", [title_only], [document], {"doc": GOLD}, [kept]).missed == 1


def test_an_entity_belongs_to_the_person_of_its_first_name_not_of_a_shared_surname():
    """An entity one of whose surname slots lies in another person's name ("Junius Ho" beside "Cyd Ho") is the
    person of its first name, whichever slot comes first."""
    gold = json.loads(json.dumps(GOLD))
    gold["non_people"] = []
    gold["people"].append({"id": "9", "identity": "", "gender": "male", "named": True, "individual": True,
                           "mentions": [{"start": 43, "end": 52, "text": "Acme Lund", "kind": "name",
                                         "names": [[43, 52]]}], "gendered_words": []})
    template = _template(("e1", 48, 52, "last_name"), ("e1", 4, 7, "first_name"), ("e1", 8, 12, "last_name"))
    assert _slot_people([template], {"doc": Judge(TEXT, gold)}) == {("doc", "e1"): "1"}
    template = _template(("e1", 48, 52, "last_name"), ("e1", 8, 12, "last_name"), ("e1", 0, 3, "title"))
    assert _slot_people([template], {"doc": Judge(TEXT, gold)}) == {("doc", "e1"): "9"}  # a tie of surnames: the first; no title


@pytest.mark.parametrize("split", ["tune", "heldout"])
def test_the_gold_halves_load_with_their_articles(split):
    documents, golds = load(split)
    assert len(documents) == len(golds) >= 30
    for document in documents:
        for person in golds[document.id]["people"]:
            for mention in person["mentions"]:
                assert document.text[mention["start"]:mention["end"]] == mention["text"]


def test_the_split_is_disjoint_balanced_by_genre_and_covers_sixty_articles():
    halves = {split: [json.loads(line) for line in (REPO / f"tests/fixtures/perturb/gum_gold_{split}.jsonl")
                      .read_text().splitlines()] for split in ("tune", "heldout")}
    ids = {split: {gold["id"] for gold in rows} for split, rows in halves.items()}
    assert not ids["tune"] & ids["heldout"] and len(ids["tune"] | ids["heldout"]) >= 60
    for genre in ("news", "interview", "bio"):
        counts = [sum(gold["genre"] == genre for gold in rows) for rows in halves.values()]
        assert abs(counts[0] - counts[1]) <= 1
