"""A swap's ``high`` confidence means right — a person, and coherent — (issue 27, Deliver 5): whatever its evidence, a
swap is at most ``medium`` when a pronoun was given to the person only as the nearest one of its gender while another
of that gender is named, when a pronoun that may be theirs was left ambiguous, when their surname also follows another
first name, or when it is spelled within two letters of another person's (``person_evidence.swap_confidence_caps``,
applied by ``agreement.check_coherence``); a coherence flag caps the person at ``medium`` in the original's other
inputs; and the judge of the gold counts an entity at the lowest level any of its inputs records."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from bias_core.common.records import Document, Input, Substitution
from bias_core.perturb import build_templates, get_perturbation
from bias_core.perturb.entity_template import EntityTemplate, Slot, TemplateEntity
from bias_core.perturb.person_evidence import CLAUSE_RULE_NOTE, swap_confidence_caps
from bias_core.perturb.pronoun_referents import PronounReading
from bias_core.perturb.review import review_inputs

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from coherence_gold import judge

FALLBACK_NOTE = "the nearest person of its gender"


def _entity(entity_id: str, first: str | None, last: str | None, gender: str = "female",
            evidence: str = "first-name+surname") -> TemplateEntity:
    return TemplateEntity(entity_id, first, last, gender, "first_name", evidence, "high", "a title")


def _reading(text: str, word: str, status: str, entity_id: str | None, note: str,
             candidates: tuple[str, ...] = ()) -> PronounReading:
    start = text.index(word)
    return PronounReading(start, start + len(word), word, "female", status, entity_id, candidates, note)


def _slots(text: str, entity_id: str, *names: tuple[str, str]) -> list[Slot]:
    """Name slots of one entity at each whole occurrence of the given (word, kind) pairs."""
    return [Slot(m.start(), m.end(), kind, word, entity_id)
            for word, kind in names for m in re.finditer(rf"\b{re.escape(word)}\b", text)]


TEXT = "Karen Walsh spoke. The town grew. Maria Lopez came. Her plan won."


def test_a_pronoun_given_by_recency_while_another_person_of_its_gender_is_named_caps_the_swap():
    entities = [_entity("e1", "Karen", "Walsh"), _entity("e2", "Maria", "Lopez")]
    template = EntityTemplate("d", TEXT, entities, [])
    caps = swap_confidence_caps(template, [_reading(TEXT, "Her", "entity", "e2", FALLBACK_NOTE)])
    assert set(caps) == {"e2"}
    assert caps["e2"] == "'Her' was given to it only as the nearest person of its gender, and Karen Walsh is female too"


def test_a_pronoun_given_by_the_clause_rules_or_with_nobody_else_of_its_gender_caps_nothing():
    both = [_entity("e1", "Karen", "Walsh"), _entity("e2", "Maria", "Lopez")]
    clause = _reading(TEXT, "Her", "entity", "e2", CLAUSE_RULE_NOTE)
    assert swap_confidence_caps(EntityTemplate("d", TEXT, both, []), [clause]) == {}
    alone = [_entity("e1", "Karen", "Walsh", gender="male"), _entity("e2", "Maria", "Lopez")]
    recency = _reading(TEXT, "Her", "entity", "e2", FALLBACK_NOTE)
    assert swap_confidence_caps(EntityTemplate("d", TEXT, alone, []), [recency]) == {}


def test_an_ambiguous_pronoun_caps_every_person_it_may_refer_to():
    entities = [_entity("e1", "Karen", "Walsh"), _entity("e2", "Maria", "Lopez")]
    reading = _reading(TEXT, "Her", "ambiguous", None, "two people of its gender before it", ("e2", "e1"))
    caps = swap_confidence_caps(EntityTemplate("d", TEXT, entities, []), [reading])
    assert set(caps) == {"e1", "e2"} and "'Her' may refer to it or to another" in caps["e1"]


def test_a_surname_that_also_follows_another_first_name_caps_the_swap():
    text = "Dame Zaha Mohammad Hadid was born in Baghdad. Her father Mohammed Hadid was an industrialist."
    entity = _entity("e1", "Mohammad", "Hadid", evidence="title")
    slots = _slots(text, "e1", ("Mohammad", "first_name"), ("Hadid", "last_name"))
    caps = swap_confidence_caps(EntityTemplate("d", text, [entity], slots), [])
    assert caps == {"e1": "its surname also follows another first name ('Mohammed Hadid')"}
    # its own first name, a title or a middle name of its own before the surname is no second person
    text = "Sen. Mohammad Hadid spoke. Mohammad Hadid left. President Hadid won."
    slots = _slots(text, "e1", ("Mohammad", "first_name"), ("Hadid", "last_name"))
    assert swap_confidence_caps(EntityTemplate("d", text, [entity], slots), []) == {}


def test_a_surname_spelled_within_two_letters_of_another_persons_caps_the_swap():
    text = "Lydia Buchtmann spoke for the agency. Ms Bauchtman said the plan was sound."
    entities = [_entity("e1", "Lydia", "Buchtmann"), _entity("e2", None, "Bauchtman", evidence="title")]
    caps = swap_confidence_caps(EntityTemplate("d", text, entities, []), [])
    assert caps == {"e1": "its surname is spelled nearly like another person's ('Bauchtman')",
                    "e2": "its surname is spelled nearly like another person's ('Buchtmann')"}
    # short surnames differ by two letters too often to say one is misspelled; distant ones are other people
    others = [_entity("e1", "Ann", "Smith"), _entity("e2", "Jo", "Smyth"), _entity("e3", "Lydia", "Buchanan")]
    assert swap_confidence_caps(EntityTemplate("d", text, others, []), []) == {}


def test_a_gold_annotation_is_never_capped():
    entities = [_entity("e1", "Karen", "Walsh", evidence="gold"), _entity("e2", "Maria", "Lopez", evidence="gold")]
    readings = [_reading(TEXT, "Her", "entity", "e2", FALLBACK_NOTE)]
    assert swap_confidence_caps(EntityTemplate("d", TEXT, entities, []), readings) == {}


RECENCY = Document(id="recency", text="Maria Lopez opened the bakery in 1990. The town grew quickly. Karen Walsh joined "
                                      "the council in 2001. The council met every week. Residents liked the new park. "
                                      "Her plan was approved in May.")
ALONE = Document(id="alone", text="Karen Walsh joined the council in 2001. The council met every week. Residents liked "
                                  "the new park. Her plan was approved in May.")


def test_a_capped_swap_records_medium_with_both_reasons_while_the_entity_keeps_its_evidence_and_the_review_lists_it():
    [template] = build_templates([RECENCY])
    karen = next(entity for entity in template.entities if entity.first_name == "Karen")
    assert karen.confidence == "high"  # the evidence: a pronoun that agrees with her first name
    result = get_perturbation("gender-glob", samples=1, seed=0).run([RECENCY, ALONE])
    subs = {(item.original_id, sub.swap_confidence, sub.swap_confidence_reason) for item in result.inputs
            for sub in item.substitutions if sub.original == "Karen"}
    assert ("alone", "high", "a pronoun that agrees with the first name") in subs
    capped = ("a pronoun that agrees with the first name; but 'Her' was given to it only as the nearest person of its "
              "gender, and Maria Lopez is female too")
    assert ("recency", "medium", capped) in subs
    assert {level for original, level, _ in subs if original == "recency"} == {"medium"}
    review = review_inputs(result.inputs, {"gender-glob": {"run_info": result.run_info}}).get("gender-glob")
    doubtful = next(check for check in review.checks if check.key == "doubtful_swaps")
    assert any(example.original_id == "recency" and example.span == "Karen Walsh" for example in doubtful.examples)
    assert not any(example.original_id == "alone" for example in doubtful.examples)


GOLD_TEXT = "Ann Lund spoke."
GOLD = {"id": "doc", "non_people": [], "people": [
    {"id": "1", "identity": "", "gender": "female", "named": True, "individual": True,
     "mentions": [{"start": 0, "end": 8, "text": "Ann Lund", "kind": "name", "names": [[0, 8]]}],
     "gendered_words": []}]}


def _gold_input(sample: int, level: str) -> Input:
    sub = Substitution(0, 3, "Ann", "Eve", "first_name", "e1", swap_confidence=level, swap_confidence_reason="x")
    return Input(id=f"doc/{sample}", original_id="doc", text="Eve Lund spoke.", perturbation="gender-glob",
                 sample_id=sample, arm="female", substitutions=[sub])


def test_the_judge_counts_an_entity_at_the_lowest_confidence_any_of_its_inputs_records():
    document = Document(id="doc", text=GOLD_TEXT)
    figures = judge("gender-glob", [_gold_input(0, "high"), _gold_input(1, "medium")], [document], {"doc": GOLD})
    assert figures.by_confidence == {"medium": [1, 1]}
    figures = judge("gender-glob", [_gold_input(0, "high"), _gold_input(1, "high")], [document], {"doc": GOLD})
    assert figures.by_confidence == {"high": [1, 1]}
