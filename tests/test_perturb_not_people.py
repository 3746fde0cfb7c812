"""No place, facility, work or character becomes a person (issue 21): negative evidence beats positive evidence.

Checked with the real spaCy pipeline on ``tests/fixtures/not_people.jsonl``, a set of real-style sentences written
before the rules changed: each names places, facilities, songs, films, cartoon characters or firms named after
people ("near Tora Bora mountain", "Diego Garcia, the Indian Ocean island", "Bugs Bunny reruns", "Ford Motor Co."),
or people named like places ("Jordan Henderson", "Madison Keys"). Its ``not_swapped`` phrases must come through every
name perturbation untouched and its ``swapped`` people must be swapped. Its politician rows name a politician by
surname only, to be resolved by the article's date or flagged. Every swap carries a confidence.
"""

from __future__ import annotations

import csv
import functools
import json
import re

import pytest

from bias_core.common.records import Document, Input
from bias_core.perturb import build_templates, get_perturbation
from bias_core.perturb.person_cues import CUES_PATH, POSITIONS
from tests.fixtures.perturb.corpus import REPO

FIXTURE = REPO / "tests" / "fixtures" / "not_people.jsonl"
NAME_KINDS = ("gender-loc", "gender-glob", "race")
NAME_SUBSTITUTIONS = ("first_name", "last_name", "full_name")
ROWS = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines() if line.strip()]
SENTENCES = [row for row in ROWS if "politician_pair" not in row]
POLITICIAN_ROWS = {row["id"]: row for row in ROWS if "politician_pair" in row}
# People the builder does not find, with why: a missed swap costs recall, not a reader's trust.
KNOWN_MISSES = {("paris-hilton", "Paris Hilton"): "tagged ORG, and 'Paris' is no census first name, so it is no "
                                                   "person candidate"}


@functools.cache
def _inputs(kind: str) -> dict[str, list[Input]]:
    templates = build_templates([Document(id=row["id"], text=row["text"]) for row in SENTENCES])
    by_original: dict[str, list[Input]] = {}
    for item in get_perturbation(kind, samples=3, seed=5).run_templates(templates).inputs:
        by_original.setdefault(item.original_id, []).append(item)
    return by_original


def _original_spans(item: Input, kinds=NAME_SUBSTITUTIONS) -> list[tuple[int, int]]:
    """Each name substitution's span in the original text."""
    shift, spans = 0, []
    for sub in sorted(item.substitutions, key=lambda s: s.start):
        start = sub.start - shift
        if sub.kind in kinds:
            spans.append((start, start + len(sub.original)))
        shift += len(sub.replacement) - len(sub.original)
    return spans


def _occurrences(text: str, phrase: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(re.escape(phrase), text)]


def _touched(items: list[Input], text: str, phrase: str) -> bool:
    ranges = _occurrences(text, phrase)
    assert ranges, phrase
    return any(s < e2 and s2 < e for item in items for s2, e2 in _original_spans(item) for s, e in ranges)


@pytest.mark.parametrize("row", SENTENCES, ids=[row["id"] for row in SENTENCES])
def test_no_place_work_character_or_firm_is_swapped_as_a_person(row):
    for kind in NAME_KINDS:
        items = _inputs(kind).get(row["id"], [])
        for phrase in row["not_swapped"]:
            assert not _touched(items, row["text"], phrase), f"{kind} swapped {phrase!r} in {row['id']}"


PEOPLE = [(row, person) for row in SENTENCES for person in row["swapped"]]


@pytest.mark.parametrize("row,person", [
    pytest.param(row, person, marks=pytest.mark.xfail(reason=KNOWN_MISSES[row["id"], person], strict=True))
    if (row["id"], person) in KNOWN_MISSES else (row, person) for row, person in PEOPLE
], ids=[f"{row['id']}:{person}" for row, person in PEOPLE])
def test_people_named_like_places_or_beside_them_are_still_swapped(row, person):
    assert _touched(_inputs("race").get(row["id"], []), row["text"], person)


def test_every_person_swap_carries_a_confidence_with_its_reason():
    subs = [sub for items in _inputs("race").values() for item in items for sub in item.substitutions
            if sub.entity_id is not None]
    assert subs
    assert all(sub.swap_confidence in ("high", "medium", "low") and sub.swap_confidence_reason for sub in subs)


def _entity_confidence(text: str, name: str) -> tuple[str | None, str | None]:
    [template] = build_templates([Document(id="t", text=text)])
    [entity] = [entity for entity in template.entities if entity.label == name]
    return entity.confidence, entity.confidence_reason


def test_a_title_or_an_agreeing_pronoun_is_high_and_a_bare_full_name_medium():
    text = ("Coach Maria Lopez praised the defence. Karen Walsh said she was relieved. Brian Collins and Sarah Lee "
            "also attended the game.")
    assert _entity_confidence(text, "Maria Lopez")[0] == "high"
    assert _entity_confidence(text, "Karen Walsh") == ("high", "a pronoun that agrees with the first name")
    assert _entity_confidence(text, "Brian Collins") == ("medium", "a first name and a surname only")


def test_a_rare_first_name_is_low_even_with_a_pronoun():
    confidence, reason = _entity_confidence("Walli Hanifi said he was approached near the market.", "Walli Hanifi")
    assert confidence == "low" and "rare first name ('Walli')" in reason


def test_a_name_declined_in_one_mention_is_low_where_it_is_swapped_anyway():
    text = "Stan Lee said he was proud of the work. A first Stan Lee comic sold for $5,000 on Friday."
    confidence, reason = _entity_confidence(text, "Stan Lee")
    assert confidence == "low" and "comic" in reason
    [item, *_] = get_perturbation("race", samples=1).run_templates(build_templates([Document(id="t", text=text)])).inputs
    assert "Stan Lee comic" in item.text  # the comic keeps its name; the person's mention is swapped and flagged
    assert {sub.swap_confidence for sub in item.substitutions if sub.kind in NAME_SUBSTITUTIONS} == {"low"}


def test_a_role_word_listed_as_a_first_name_is_a_title():
    confidence, reason = _entity_confidence("Vicar Jones said the bells would ring on Sunday.", "Jones")
    assert (confidence, reason) == ("high", "a title")


def _politician(row_id: str):
    row = POLITICIAN_ROWS[row_id]
    document = Document(id=row_id, text=row["text"], meta=row["meta"])
    return get_perturbation("politician", pairs=[row["politician_pair"]]).run([document])


def test_a_2001_president_bush_is_george_w_bush_by_the_article_date_and_is_not_swapped_as_his_father():
    result = _politician("bush-2001")
    assert not result.inputs
    [skipped] = result.report.skipped
    assert "George W. Bush" in skipped.reason and "2001-10-11" in skipped.reason


def test_a_1991_president_bush_is_swapped_with_high_confidence():
    [swapped] = [item for item in _politician("bush-1991").inputs if item.role == "swap1"]
    assert "President Clinton said" in swapped.text
    assert {sub.swap_confidence for sub in swapped.substitutions} == {"high"}


def test_a_surname_the_date_cannot_resolve_is_swapped_and_flagged_low():
    [swapped] = [item for item in _politician("bush-undated").inputs if item.role == "swap1"]
    assert swapped.text.startswith("Gore said")
    assert {sub.swap_confidence for sub in swapped.substitutions} == {"low"}
    assert "George H. W. Bush" in swapped.substitutions[0].swap_confidence_reason


def test_the_cue_table_rows_give_a_known_position_and_their_source():
    with CUES_PATH.open(newline="", encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream, delimiter="\t", quoting=csv.QUOTE_NONE))
    assert rows and all(row["position"] in POSITIONS and row["cue"] and row["kind"] and row["source"]
                        for row in rows)
    cues = {(row["cue"], row["position"]) for row in rows}
    assert {("mountain", "noun"), ("island", "noun"), ("reruns", "noun"), ("co", "noun"), ("vicar", "title")} <= cues


def test_a_person_span_the_ner_cut_off_a_place_prefix_from_is_the_places():
    """GUM's voyage to Fort Lee: the NER tags "Lee Historic Park" PERSON without its "Fort" (issue 27)."""
    text = ("See the views from Fort Lee Historic Park, a reconstruction of the old fort. We walked to Mount Vernon "
            "Place next. Later Lee Smith, a guide, said he liked the park.")
    template = build_templates([Document(id="t", text=text)])[0]
    assert [(e.first_name, e.last_name) for e in template.entities] == [("Lee", "Smith")]
