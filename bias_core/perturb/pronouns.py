"""Pronoun attribution: which person each gendered pronoun refers to (METHODS §1.1 steps 4–5; Steen & Markert
App. D).

A subject pronoun (he, she) goes to the person named last when that person's gender is still unknown, a title or
full name already shows it is a person (``person_evidence``), and the mention is in the same or the previous
sentence ("Dr. Lin said she"), unless the pronoun's clause is a relative one ("introduced J.D. Vance, the author he
backed"). Other pronouns (he/him/his/himself, she/her/hers/herself) go to the nearest preceding entity whose gender
agrees; when no preceding entity agrees, to the nearest preceding entity of unknown gender (which then takes the
pronoun's gender); when no entity precedes, to the first entity of the same sentence that agrees or is unknown.
Others are *unattributed*: reported, rewritten only where every entity gets one gender (C_glob). ``her`` is
possessive when tagged PRP$ (→ *his*) and an object otherwise (→ *him*); ``his`` with no noun after it is
independent (→ *hers*). Known limit: a pronoun for an unnamed person ("the judge ... she") goes to the nearest named
person of that gender.

Gendered nouns (content words) tied to a person are found in ``gendered_nouns``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from bias_core.perturb.entity_template import Slot, TemplateEntity
from bias_core.perturb.lexicon import PRONOUN_GENDER

if TYPE_CHECKING:
    from spacy.tokens import Token

_NOMINAL_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS", "JJ", "JJR", "JJS", "CD"})


def pronoun_slots(tokens: Sequence[Token], entities: Sequence[TemplateEntity],
                  positions: dict[str, list[int]]) -> list[Slot]:
    """A slot per gendered pronoun, attributed to an entity (which gains ``pronoun`` evidence) or to none.
    ``positions`` gives each entity's mention starts."""
    slots = []
    for token in tokens:
        gender = PRONOUN_GENDER.get(token.text.lower())
        if gender is None:
            continue
        entity = attribute(token, gender, entities, positions)
        if entity is not None:
            entity.add_evidence("pronoun")
        slots.append(Slot(token.idx, token.idx + len(token.text), "pronoun", token.text,
                          entity.entity_id if entity else None, pronoun_form(token), token.ent_type_))
    return slots


def previous_sentence_start(token: Token) -> int:
    """Character offset where the sentence before the token's sentence starts (its own start when first)."""
    sentence = token.sent
    return token.doc[sentence.start - 1].sent.start_char if sentence.start > 0 else sentence.start_char


def attribute(token: Token, gender: str, entities: Sequence[TemplateEntity],
              positions: dict[str, list[int]]) -> TemplateEntity | None:
    """The entity a pronoun of ``gender`` refers to (module docstring), giving an entity of unknown gender the
    pronoun's gender; None when it is unattributed."""
    preceding = []
    for entity in entities:
        before = [p for p in positions[entity.entity_id] if p < token.idx]
        if before:
            preceding.append((before[-1], entity))
    preceding.sort(key=lambda item: item[0], reverse=True)
    if preceding and preceding[0][1].gender is None and preceding[0][1].evidence is not None \
            and token.text.lower() in ("he", "she") and token.head.dep_ not in ("relcl", "acl") \
            and preceding[0][0] >= previous_sentence_start(token):
        # The person just named, of unknown gender, is the subject pronoun's antecedent ("Dr. Lin said she",
        # "Priya Nair ... called the price generous. She noted"), not an older person of the same gender.
        entity = preceding[0][1]
        entity.gender, entity.gender_source = gender, "pronoun"
        return entity
    for _, entity in preceding:
        if entity.gender == gender:
            return entity
    for _, entity in preceding:
        if entity.gender is None:
            entity.gender, entity.gender_source = gender, "pronoun"
            return entity
    if preceding:
        return None
    sentence = token.sent
    following = sorted(
        (p, e) for e in entities for p in positions[e.entity_id]
        if token.idx < p < sentence.end_char and e.gender in (None, gender)
    )
    if not following:
        return None
    entity = following[0][1]
    if entity.gender is None:
        entity.gender, entity.gender_source = gender, "pronoun"
    return entity


def pronoun_form(token: Token) -> str:
    """Return a gendered pronoun's grammatical form, using the tagger for her/his (METHODS §1.1 step 4)."""
    word = token.text.lower()
    if word in ("he", "she"):
        return "subject"
    if word == "him":
        return "object"
    if word in ("himself", "herself"):
        return "reflexive"
    if word == "hers":
        return "independent"
    if word == "her":
        return "possessive" if token.tag_ == "PRP$" or token.dep_ == "poss" else "object"
    following = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    has_head_noun = token.dep_ == "poss" or (
        following is not None and following.tag_ in _NOMINAL_TAGS and token.dep_ != "attr"
    )
    return "possessive" if has_head_noun else "independent"
