"""Pronoun attribution: which person each gendered pronoun refers to (METHODS §1.1 steps 4–5; Steen & Markert
App. D; issue 27, item 2: a pronoun goes to its referent).

A pronoun is re-gendered with a swapped person only when it resolves to that person without ambiguity; otherwise it is
left as written and recorded (``PronounReading``, for the coherence check of ``agreement``). In order:

1. **The parse** (``pronoun_referents.search_clauses``): the first clause subject above the pronoun that can be its
   antecedent — a swapped person of a fitting gender ("Sarvis discusses his background"), or an *unnamed person*
   ("A spokesman for Acme said he", "his lawyer said he": the pronoun is left alone). Binding: a reflexive takes its
   own clause's subject, an object pronoun never does ("Mr. Abel says he defended him": not Abel). A pronoun in the
   subject of its sentence's main clause with no such subject continues the previous sentence's topic: the subject of
   that sentence's main clause (centering: "He was a friend of Leonhard Euler. He went to St. Petersburg").
2. **Recency**, as before issue 27: a subject pronoun (he, she) goes to the person named last when that person's
   gender is still unknown, a title or full name already shows it is a person (``person_evidence``), and the mention
   is in the same or the previous sentence ("Dr. Lin said she"), unless the pronoun's clause is a relative one.
   Other pronouns go to the nearest preceding person whose gender agrees, else to the nearest of unknown gender (who
   then takes the pronoun's gender); with no person before, to the first of the same sentence that agrees. An object
   pronoun skips the person its clause's subject names (binding).
3. **What blocks recency**: a person noun that agrees with the pronoun and that no name is tied to, or a person's
   name that no swap renames, standing as a participant of a clause (subject, object, object of a preposition,
   possessor) between the chosen person's last mention and the pronoun is a nearer antecedent: the pronoun is
   somebody else's and is left alone ("The county is named after a vicar's parish. He …"). Another swapped person of
   the pronoun's gender named since the start of the previous sentence makes it **ambiguous**: left as written
   (C_glob still gives it the arm's gender, as every person there has it) and flagged.

A pronoun left to an unnamed person gets an unattributed slot that only C_glob's one-gender world rewrites
(``Slot.world`` "unnamed"); an ambiguous one, or one with no person at all, gets an unattributed slot (METHODS §1.1
step 3), which that world rewrites too unless a name no swap renames stands near it ("the Petitioner", a person noun
with a capital, is none). ``her`` is possessive when tagged PRP$ (→ *his*) and an object otherwise (→ *him*); ``his``
with no noun after it is independent (→ *hers*).

Gendered nouns (content words) tied to a person are found in ``gendered_nouns``.
"""

from __future__ import annotations

import bisect
import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bias_core.common.nlp import sentence_of
from bias_core.perturb.agreement import remember_ties
from bias_core.perturb.entity_template import Slot, TemplateEntity
from bias_core.perturb.lexicon import OTHER_GENDER, PRONOUN_GENDER
from bias_core.perturb.names import census_gender_is_weak, first_name_gender
from bias_core.perturb.pronoun_referents import (
    PARTICIPANT_DEPS,
    UNRESOLVED,
    PronounReading,
    Referent,
    clause_verb,
    described_person,
    is_object_pronoun,
    is_person_noun,
    previous_subject,
    remember_readings,
    search_clauses,
    subject_of,
    unnamed_person,
)

if TYPE_CHECKING:
    from spacy.tokens import Token

_NOMINAL_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS", "JJ", "JJR", "JJS", "CD"})


def pronoun_slots(tokens: Sequence[Token], entities: Sequence[TemplateEntity],
                  positions: dict[str, list[int]]) -> list[Slot]:
    """A slot per gendered pronoun that is not an unnamed person's, attributed to an entity (which gains ``pronoun``
    evidence) or to none. ``positions`` gives each entity's mention starts. What each pronoun was read as is kept
    for the coherence check (``pronoun_referents.readings_of``)."""
    at = {token.idx: token for token in tokens}
    name_of: dict[int, str] = {}
    for entity_id, starts in positions.items():
        for start in starts:
            token = at.get(start)
            if token is not None:
                name_of[token.i] = entity_id
                if token.dep_ == "compound" and token.head.tag_ in ("NNP", "NNPS"):
                    name_of.setdefault(token.head.i, entity_id)  # "Diane" of "Diane Sasser": Sasser too
    _link_bare_names(tokens, entities, name_of)
    _let_pronouns_overrule_census(tokens, entities, positions, name_of)
    slots, readings = _pronoun_pass(tokens, entities, positions, dict(name_of))
    if tokens:
        remember_readings(tokens[0].doc.text, readings)
        remember_ties(tokens)  # for the coherence check after the perturbation (``agreement``)
    return slots


def _pronoun_pass(tokens: Sequence[Token], entities: Sequence[TemplateEntity], positions: dict[str, list[int]],
                  name_of: dict[int, str]) -> tuple[list[Slot], list[PronounReading]]:
    """One reading of every gendered pronoun in order (``pronoun_slots``); ``name_of`` gains the attributed ones."""
    at = {token.idx: token for token in tokens}
    positions = {entity_id: list(starts) for entity_id, starts in positions.items()}  # gains attributed pronouns
    by_id = {entity.entity_id: entity for entity in entities}
    earlier: dict[int, Referent] = {}
    chain_free: dict[str, bool] = {}  # per gender, whether the last unattributed pronoun was free (``Slot.world``)
    slots, readings = [], []
    for token in tokens:
        gender = PRONOUN_GENDER.get(token.text.lower())
        if gender is None:
            continue
        reading = resolve(token, gender, entities, positions, name_of, earlier)
        readings.append(reading)
        entity = by_id.get(reading.entity_id) if reading.entity_id else None
        if entity is not None:
            if entity.gender is None:
                entity.gender, entity.gender_source = gender, "pronoun"
            entity.add_evidence("pronoun")
            name_of[token.i] = entity.entity_id
            bisect.insort(positions[entity.entity_id], token.idx)  # a pronoun chain keeps its person salient
        earlier[token.i] = Referent(reading.entity_id) if entity is not None else \
            Referent(None, reading.referent, reading.referent_start) if reading.status == "unnamed" else UNRESOLVED
        if reading.status == "unnamed" and not _named(at.get(reading.referent_start)):
            # an unnamed person's ("a spokesman … he"): rewritten only in a one-gender world (``Slot.world``)
            slots.append(Slot(token.idx, token.idx + len(token.text), "pronoun", token.text, None,
                              pronoun_form(token), token.ent_type_, world="unnamed"))
        elif reading.status != "unnamed":
            # An ambiguous pronoun keeps the people it may refer to: where an input gives them all one gender it
            # takes that gender whichever it refers to (``EntityTemplate.fill``).
            candidates = tuple(reading.candidates) if entity is None and reading.status == "ambiguous" else ()
            if reading.status == "ambiguous" and not reading.candidates:
                free = chain_free.get(gender, True)  # continues an unresolved pronoun: as free as that one
            else:
                free = reading.status in ("none", "ambiguous") and not _kept_name_near(token, name_of)
            if entity is None:
                chain_free[gender] = free
            slots.append(Slot(token.idx, token.idx + len(token.text), "pronoun", token.text,
                              entity.entity_id if entity else None, pronoun_form(token), token.ent_type_,
                              group=candidates, world="free" if free else None))
    return slots, readings


def _let_pronouns_overrule_census(tokens: Sequence[Token], entities: Sequence[TemplateEntity],
                                  positions: dict[str, list[int]], name_of: dict[int, str]) -> None:
    """A census gender is a statistic about a name; the text's own pronouns are the better evidence about the person
    (METHODS §1.1 step 3 orders title, pronoun, census). "Jordan Smith scored. Jordan said she was happy" is a woman
    though the 1990 census gives Jordan to men: read with the census gender, "she" had nobody and a swap gave Jordan
    a man's name beside it. A person whose gender came only from the census, from a name it gives both genders in
    earnest (``names.census_gender_is_weak``), whom no pronoun of that gender reached, takes the other gender when,
    read so, a pronoun the first reading left to nobody resolves to them. Names the census gives one gender keep it:
    read with the other gender, Ivan Turgenev took the "she"s of the actress his biography's sentences were about —
    unless nobody of the other gender is named and the parse itself gives them every such pronoun ("Andrea Bocelli
    sang. Bocelli said he was moved": read with the census, "he" had nobody and a race swap gave him a woman's
    name)."""
    named = {entity.gender for entity in entities}
    # a name the census gives one gender yields only where nobody of the other gender is named (checked before the
    # costly trial readings), and only to the parse, every gained pronoun by it (below)
    candidates = [entity for entity in entities if entity.gender_source == "first_name" and entity.gender
                  and (census_gender_is_weak(entity.first_name) or OTHER_GENDER[entity.gender] not in named)]
    if not candidates:
        return
    trial = copy.deepcopy(list(entities))
    _, readings = _pronoun_pass(tokens, trial, positions, dict(name_of))
    reached = {(reading.entity_id, reading.gender) for reading in readings if reading.entity_id}
    unread = {reading.gender for reading in readings if reading.entity_id is None and reading.status != "unnamed"}
    for entity in candidates:
        other = OTHER_GENDER[entity.gender]
        if (entity.entity_id, entity.gender) in reached or other not in unread:
            continue
        trial = copy.deepcopy(list(entities))
        flipped = next(e for e in trial if e.entity_id == entity.entity_id)
        flipped.gender = other
        _, readings = _pronoun_pass(tokens, trial, positions, dict(name_of))
        gained = [reading for reading in readings if reading.entity_id == entity.entity_id and reading.gender == other]
        if not census_gender_is_weak(entity.first_name) and not all(r.note == _BY_PARSE for r in gained):
            continue
        if gained:
            entity.gender, entity.gender_source = other, "pronoun"


_BY_PARSE = "the subject of a clause above it"


def _named(referent: Token | None) -> bool:
    """Whether an unnamed-person referent is in fact a name no swap renames (a blocker such as a declined PERSON):
    that person keeps their words in every world."""
    return referent is None or (referent.tag_ in ("NNP", "NNPS") and not is_person_noun(referent)) \
        or referent.ent_type_ == "PERSON"  # "the Petitioner" is a person noun, capitalised


def _kept_name_near(token: Token, name_of: dict[int, str]) -> bool:
    """Whether a person's name that no swap renames (spaCy's PERSON, no entity's) stands in the pronoun's sentence or
    the one before, before it, whose first name is not of the other gender ("Peter the Great … She" is somebody
    else's): the pronoun may be that person's, so a one-gender world keeps it."""
    start = previous_sentence_start(token)
    gender = PRONOUN_GENDER[token.text.lower()]
    doc = token.doc
    for i in range(token.i - 1, -1, -1):
        other = doc[i]
        if other.idx < start:
            return False
        if other.ent_type_ == "PERSON" and other.ent_iob_ == "B" and i not in name_of \
                and first_name_gender(other.text) in (None, gender):
            return True
    return False


def _link_bare_names(tokens: Sequence[Token], entities: Sequence[TemplateEntity], name_of: dict[int, str]) -> None:
    """Map every proper noun that spells a word of exactly one entity's name to that entity ("Daniel" of Daniel
    Bernoulli where the finder did not link it): it is that person, not somebody else who blocks a pronoun."""
    owners: dict[str, set[str]] = {}
    for entity in entities:
        for part in (entity.first_name, entity.last_name):
            for word in (part or "").split():
                owners.setdefault(word, set()).add(entity.entity_id)
    for token in tokens:
        found = owners.get(token.text)
        if found is not None and len(found) == 1 and token.tag_ in ("NNP", "NNPS"):
            name_of.setdefault(token.i, next(iter(found)))


def previous_sentence_start(token: Token) -> int:
    """Character offset where the sentence before the token's sentence starts (its own start when first)."""
    sentence = sentence_of(token)
    return sentence_of(token.doc[sentence.start - 1]).start_char if sentence.start > 0 else sentence.start_char


def resolve(token: Token, gender: str, entities: Sequence[TemplateEntity], positions: dict[str, list[int]],
            name_of: dict[int, str], earlier: dict[int, Referent]) -> PronounReading:
    """What a pronoun of ``gender`` refers to (module docstring): a swapped entity, an unnamed person, or nobody
    for sure (ambiguous, or no person at all). ``name_of`` maps the token index of every name mention and
    attributed pronoun to its entity; ``earlier`` the referents of the pronouns before it."""
    genders = {entity.entity_id: entity.gender for entity in entities}
    bound = _bound(token, name_of, earlier)
    found = search_clauses(token, gender, name_of, genders, earlier, frozenset(bound))
    if found is None:
        found = previous_subject(token, gender, name_of, genders, earlier)
    if found is not None:
        if found.entity_id is not None:
            return _reading(token, gender, "entity", found.entity_id, _BY_PARSE)
        if found is UNRESOLVED:
            return _reading(token, gender, "ambiguous", None, "continues a pronoun left unresolved",
                            candidates=_in_scope(token, gender, entities, positions, set()))
        return _reading(token, gender, "unnamed", None, f"the subject of a clause above it is '{found.word}'",
                        referent=found)
    entity, mention = attribute(token, gender, [e for e in entities if e.entity_id not in bound], positions)
    if entity is None:
        return _reading(token, gender, "none", None, "no person it can refer to")
    blocker = _blocker(token, gender, mention, name_of)
    if blocker is not None:
        return _reading(token, gender, "unnamed", None, f"'{blocker.text}' stands between it and {entity.label}",
                        referent=Referent(None, blocker.text, blocker.idx))
    others = [e for e in _in_scope(token, gender, entities, positions, bound) if e != entity.entity_id]
    if others:
        return _reading(token, gender, "ambiguous", None, "two people of its gender before it",
                        candidates=(entity.entity_id, *others))
    return _reading(token, gender, "entity", entity.entity_id, "the nearest person of its gender")


def _reading(token: Token, gender: str, status: str, entity_id: str | None, note: str, *,
             candidates: Sequence[str] = (), referent: Referent | None = None) -> PronounReading:
    return PronounReading(token.idx, token.idx + len(token.text), token.text, gender, status, entity_id,
                          tuple(candidates), note, referent.word if referent else "",
                          referent.start if referent else -1)


def _bound(token: Token, name_of: dict[int, str], earlier: dict[int, Referent]) -> set[str]:
    """The entity an object pronoun cannot be: the one its own clause's subject names (binding)."""
    if not is_object_pronoun(token):
        return set()
    subject = subject_of(clause_verb(token))
    if subject is None:
        return set()
    if subject.i in name_of:
        return {name_of[subject.i]}
    described = described_person(subject, name_of) if is_person_noun(subject) else None
    if described is not None:
        return {described}  # "his father, Johann, encouraged him": not Johann
    referent = earlier.get(subject.i)
    return {referent.entity_id} if referent is not None and referent.entity_id else set()


def _blocker(token: Token, gender: str, mention: int, name_of: dict[int, str]) -> Token | None:
    """The nearest unnamed person between a candidate's mention (character offset) and the pronoun (module
    docstring, step 3), if any."""
    doc = token.doc
    bound = subject_of(clause_verb(token)) if is_object_pronoun(token) else None
    for i in range(token.i - 1, -1, -1):
        candidate = doc[i]
        if candidate.idx <= mention:
            return None
        if candidate.dep_ in PARTICIPANT_DEPS and candidate != bound and unnamed_person(candidate, gender, name_of):
            return candidate  # (not the subject of an object pronoun's own clause: binding rules it out)
    return None


def _in_scope(token: Token, gender: str, entities: Sequence[TemplateEntity], positions: dict[str, list[int]],
              bound: set[str]) -> tuple[str, ...]:
    """The swapped people of the pronoun's gender named since the start of the previous sentence, nearest first."""
    start = previous_sentence_start(token)
    near = sorted(((max(p for p in positions[e.entity_id] if start <= p < token.idx), e.entity_id)
                   for e in entities if e.gender == gender and e.entity_id not in bound
                   and any(start <= p < token.idx for p in positions[e.entity_id])), reverse=True)
    return tuple(entity_id for _, entity_id in near)


def attribute(token: Token, gender: str, entities: Sequence[TemplateEntity],
              positions: dict[str, list[int]]) -> tuple[TemplateEntity | None, int]:
    """The entity recency gives a pronoun of ``gender`` (module docstring, step 2) and the offset of the mention it
    was chosen by; (None, -1) when there is none. Genders are not set here."""
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
        return preceding[0][1], preceding[0][0]
    for wanted in (gender, None):
        for position, entity in preceding:
            if entity.gender == wanted:
                return entity, position
    if preceding:
        return None, -1
    sentence = sentence_of(token)
    following = sorted(
        (p, e.entity_id, e) for e in entities for p in positions[e.entity_id]
        if token.idx < p < sentence.end_char and e.gender in (None, gender)
    )
    return (following[0][2], token.idx) if following else (None, -1)


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
        # A "her" hanging from a noun just after it is that noun's possessor even where the tagger calls it an
        # object ("said her stepfather and …" parsed as a subject PRP of "stepfather"): an object form never has
        # a following noun for its head.
        head_noun = token.i < token.head.i <= token.i + 3 and token.head.tag_ in ("NN", "NNS", "NNP", "NNPS")
        return "possessive" if token.tag_ == "PRP$" or token.dep_ == "poss" or head_noun else "object"
    following = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    has_head_noun = token.dep_ == "poss" or (
        following is not None and following.tag_ in _NOMINAL_TAGS and token.dep_ != "attr"
    )
    return "possessive" if has_head_noun else "independent"
