"""The entity template of one original and how it is filled (METHODS §1.1; Steen & Markert §5.1 and App. D).

A template holds the original text and a sorted list of non-overlapping *slots* (first name, last name, pronoun,
title, content word, and the name forms of ``name_forms``: middle name, initials, generational suffix, plural
title), each with its character span and the entity it belongs to. Perturbations never re-parse: they
choose a gender and names per entity and call :meth:`EntityTemplate.fill`, which assembles the input text by string
concatenation and records the substitution map with offsets into the new text.

How the entities and slots are found is in ``name_finding`` (names, from spaCy), ``person_evidence`` (which names are
people), ``pronouns`` (pronoun and content-word attribution) and ``gold_coreference`` (pre-annotated documents);
``templates.build_templates`` is the entry point.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass, field
from typing import Any

from bias_core.common.records import Substitution
from bias_core.perturb.lexicon import content_word_for, match_case, pronoun_for, title_for, title_key
from bias_core.perturb.name_forms import (
    UNSWAPPED_SURNAME_FIRST,
    drop_middle_name,
    drop_suffix,
    has_given_names,
    initials_for,
    plural_title_for,
    taken_words,
)

# Kept when an entity gathers several kinds of evidence: the lower the rank, the stronger (issue 10).
EVIDENCE_RANK = {"gold": 0, "title": 1, "first-name+surname": 2, "initials+surname": 2, "appositive-role": 2,
                 "first-name+unlisted-surname": 3, "pronoun": 4}
# The substitution kind (INTERFACES.md) each slot kind of ``name_forms`` is recorded as: a middle name or initials
# are part of the name ("full_name", so that first-name reports count only first names), a generational suffix and
# a plural title are titles.
SUBSTITUTION_KIND = {"middle_name": "full_name", "initial": "full_name", "suffix": "title", "plural_title": "title"}


@dataclass(frozen=True)
class Slot:
    """A span of the original that a perturbation may rewrite, with the entity it belongs to (None: unattributed)."""

    start: int
    end: int
    kind: str
    text: str
    entity_id: str | None
    form: str | None = None  # pronoun form: subject, object, possessive, independent or reflexive
    ner_label: str | None = None  # spaCy's label of the span ("" untagged; None where no parse was consulted)
    # A plural title's people ("Messrs. Levy and Cohen"; entity_id is the first), or the people an ambiguous
    # pronoun (entity_id None) may refer to.
    group: tuple[str, ...] = ()
    # What a one-gender world (C_glob under "coherent", ``fill(world_gender=…)``, where every person has the arm's
    # gender) does with a word no swapped person holds (issue 27): "unnamed", a gendered word of an unnamed person (a
    # "spokesman" and the pronouns that refer to him), rewritten only there; "free", an unattributed pronoun with no
    # name kept as written near it, rewritten there too (and by C_glob's strict scope, as every unattributed one).
    world: str | None = None


@dataclass(frozen=True)
class EntityChoice:
    """What one input does to one entity: its gender (None keeps gendered words) and new names (None keeps them)."""

    gender: str | None = None
    first_name: str | None = None
    last_name: str | None = None


@dataclass
class TemplateEntity:
    """A person of an original: names, original gender and where that gender came from (METHODS §1.1)."""

    entity_id: str
    first_name: str | None
    last_name: str | None
    gender: str | None = None
    gender_source: str | None = None
    # Why it is a person: "title", "first-name+surname", "initials+surname", "first-name+unlisted-surname",
    # "appositive-role", "pronoun" or "gold" (issue 10).
    evidence: str | None = None
    # How sure that is — "high", "medium" or "low" — and why (issue 21; ``person_evidence.confidence``).
    confidence: str | None = None
    confidence_reason: str | None = None
    # Why this person is kept as written by every name swap (a Korean or Vietnamese surname-first name; ``name_forms``).
    unswapped_reason: str | None = None
    surname_first: bool = False  # the name is written surname first ("Wang Jianguo": last_name "Wang")
    tradition: str | None = None  # the naming tradition of a surname-first name ("chinese"), for its new given name
    # The text also writes the surname where no slot is ("Norton I", "the Emperor Norton Bridge", a mention the
    # finder missed, a city of that name): a coherent swap keeps it (``mark_surnames_elsewhere``).
    surname_elsewhere: bool = False

    def mark_surname_first(self, tradition: str) -> None:
        """Make this a person named surname first in ``tradition`` (``name_forms``): the census says nothing of the
        gender of an East-Asian given name, and a person of a tradition without a given-name list is kept as
        written."""
        self.surname_first, self.tradition, self.gender, self.gender_source = True, tradition, None, None
        if not has_given_names(tradition):
            self.unswapped_reason = UNSWAPPED_SURNAME_FIRST.format(tradition=tradition)

    def add_evidence(self, evidence: str) -> None:
        """Keep the strongest evidence seen: a title, then a first name with a surname, then a pronoun."""
        if self.evidence is None or EVIDENCE_RANK[evidence] < EVIDENCE_RANK[self.evidence]:
            self.evidence = evidence

    @property
    def label(self) -> str:
        """The entity's fullest name as written, for reports."""
        parts = (self.last_name, self.first_name) if self.surname_first else (self.first_name, self.last_name)
        return " ".join(part for part in parts if part)


@dataclass
class EntityTemplate:
    """An original parsed once: its text, entities and rewritable slots (METHODS §1.1)."""

    document_id: str
    text: str
    entities: list[TemplateEntity]
    slots: list[Slot]
    # Capitalised words of the text (``name_forms.taken_words``): no drawn name may equal one (issue 27, item 3).
    capitalized_words: frozenset[str] = field(default_factory=frozenset)
    meta: dict[str, Any] = field(default_factory=dict)  # the document's meta (date, source, title), for inputs
    # Names the builder did not take for people, each with the reason ({"name", "reason"}), for the run's report.
    declined: list[dict[str, str]] = field(default_factory=list)
    # Why no perturbation can use this original (set without parsing it, e.g. a text over MAX_PERTURB_CHARS).
    skip_reason: str | None = None
    # Names the analyst excluded from swapping in this original (issue 21; ``exclude``).
    excluded_names: list[str] = field(default_factory=list)
    # The original genders of the people ``exclude`` removed, for the plural titles they share with others.
    excluded_genders: dict[str, str | None] = field(default_factory=dict)

    def exclude(self, names: list[str]) -> None:
        """Leave the people named ``names`` (as the review lists them: first and last name, or the one name written)
        unswapped: their name, title and content-word slots go, their pronouns become unattributed, and each is
        noted as declined. The names are kept in ``excluded_names`` for perturbations that do not use entities
        (the politician swap)."""
        wanted = set(names)
        gone = {entity.entity_id for entity in self.entities
                if entity.label in wanted or entity.first_name in wanted or entity.last_name in wanted}
        self.excluded_names = sorted(wanted)
        self.declined += [{"name": entity.label, "reason": "excluded by the analyst"}
                          for entity in self.entities if entity.entity_id in gone]
        self.excluded_genders |= {entity.entity_id: entity.gender for entity in self.entities
                                  if entity.entity_id in gone}
        self.entities = [entity for entity in self.entities if entity.entity_id not in gone]
        self.slots = [dataclasses.replace(slot, entity_id=None) if slot.entity_id in gone and slot.kind == "pronoun"
                      else slot for slot in self.slots
                      if slot.entity_id not in gone or slot.kind in ("pronoun", "plural_title")]
        for cached in ("_kinds_by_entity", "_entity"):
            self.__dict__.pop(cached, None)

    def slot_kinds(self, entity_id: str) -> frozenset[str]:
        """Return the kinds of slots an entity has (which of its mentions can be rewritten)."""
        return self._kinds_by_entity.get(entity_id, frozenset())

    @functools.cached_property
    def _kinds_by_entity(self) -> dict[str | None, frozenset[str]]:
        kinds: dict[str | None, set[str]] = {}
        for slot in self.slots:
            kinds.setdefault(slot.entity_id, set()).add(slot.kind)
        return {entity_id: frozenset(found) for entity_id, found in kinds.items()}

    @functools.cached_property
    def _entity(self) -> dict[str, TemplateEntity]:
        return {entity.entity_id: entity for entity in self.entities}

    @property
    def unattributed_pronouns(self) -> list[Slot]:
        """Pronoun slots that no entity could take (METHODS §1.1 step 3)."""
        return [slot for slot in self.slots if slot.kind == "pronoun" and slot.entity_id is None]

    def gendered_entities(self, *, content_words: bool = False) -> list[TemplateEntity]:
        """Entities a gender perturbation can change: with a first name, gendered pronoun or title (§1.1 step 6);
        people kept as written (``unswapped_reason``) are left out."""
        kinds = {"first_name", "pronoun", "title"} | ({"content_word"} if content_words else set())
        return [entity for entity in self.entities
                if self.slot_kinds(entity.entity_id) & kinds and entity.unswapped_reason is None]

    def named_entities(self) -> list[TemplateEntity]:
        """Entities with a first or last name mention (those a name swap such as race can change), less people kept
        as written."""
        return [entity for entity in self.entities if self.slot_kinds(entity.entity_id) & {"first_name", "last_name"}
                and entity.unswapped_reason is None]

    def fill(
        self,
        choices: dict[str, EntityChoice],
        *,
        unattributed_gender: str | None = None,
        content_words: bool = False,
        world_gender: str | None = None,
    ) -> tuple[str, list[Substitution]]:
        """Return the input text and its substitution map for one assignment of genders and names.

        Entities missing from ``choices`` stay as they are. An ambiguous pronoun takes the gender all the people it
        may refer to are given, when they agree; other unattributed pronouns take ``unattributed_gender`` when given
        (C_glob's strict scope, where every entity has one gender). Content-word slots are rewritten only when
        ``content_words`` is on (Steen & Markert App. J; off by default in METHODS §1.2). The name forms follow the
        person (``name_forms``): initials take the new first name's, a Jr./Sr. and a middle given name are dropped
        with the space or comma before them when the person gets a new first name or the other gender, a plural title takes its people's common gender or
        is dropped when they differ. ``world_gender`` gives every person no entity holds (``Slot.world``: an unnamed
        "spokesman" and his pronouns, a pronoun with no person and no name kept as written near it) that gender, for
        the one-gender world of C_glob under "coherent"; without it an unnamed person's words stay. Only spans
        whose text changes get a substitution; offsets are into the returned text.
        """
        pieces: list[str] = []
        substitutions: list[Substitution] = []
        cursor = 0
        length = 0
        for slot in self.slots:
            if slot.world and world_gender:
                replacement = self._world_replacement(slot, world_gender)
            elif slot.world == "unnamed":
                continue
            else:
                replacement = self._replacement(slot, choices, unattributed_gender, content_words)
            if replacement is None or replacement == slot.text:
                continue
            gap = self.text[cursor : slot.start]
            pieces.append(gap)
            length += len(gap)
            entity = self._entity.get(slot.entity_id) if slot.entity_id is not None else None
            substitutions.append(Substitution(
                length, length + len(replacement), slot.text, replacement, SUBSTITUTION_KIND.get(slot.kind, slot.kind),
                slot.entity_id,
                entity_label="PERSON" if slot.entity_id is not None else None,
                evidence=entity.evidence if entity else ("unattributed" if slot.entity_id is None else None),
                ner_label=slot.ner_label, swap_confidence=entity.confidence if entity else None,
                swap_confidence_reason=entity.confidence_reason if entity else None,
            ))
            pieces.append(replacement)
            length += len(replacement)
            cursor = slot.end
        pieces.append(self.text[cursor:])
        return "".join(pieces), substitutions

    def _replacement(
        self, slot: Slot, choices: dict[str, EntityChoice], unattributed_gender: str | None, content_words: bool
    ) -> str | None:
        choice = choices.get(slot.entity_id) if slot.entity_id is not None else None
        if slot.kind == "first_name":
            return match_case(slot.text, choice.first_name) if choice and choice.first_name else None
        if slot.kind == "last_name":
            return match_case(slot.text, choice.last_name) if choice and choice.last_name else None
        if slot.kind == "alias_last_name":  # a stage or pen name's surname stays as written (``name_finding``)
            return None
        if slot.kind == "initial":
            return initials_for(choice.first_name, slot.text) if choice and choice.first_name else None
        if slot.kind == "plural_title":
            if not any(entity_id in choices for entity_id in slot.group):
                return None
            return plural_title_for([self._gender_in(entity_id, choices) for entity_id in slot.group], slot.text)
        gender = choice.gender if choice else (unattributed_gender if slot.entity_id is None else None)
        if slot.kind == "pronoun" and slot.entity_id is None and slot.group:
            gender = self._common_gender(slot.group, choices) or gender
        if gender is None:
            return None
        # A person given a new first name is somebody else: their Jr./Sr. and middle given name go in every arm, not
        # only where the new gender contradicts them, so that the arms name people in the same shape (a summary-side
        # alignment that misses "First Middle Last" must miss it in both arms alike).
        renamed = choice is not None and choice.first_name is not None
        if slot.kind == "suffix":
            return "" if renamed or drop_suffix(gender, slot.text) else None
        if slot.kind == "middle_name":
            return "" if renamed or drop_middle_name(gender, slot.text) else None
        if slot.kind == "pronoun":
            return pronoun_for(gender, slot.form or "subject", slot.text)
        if slot.kind == "title":
            return title_for(gender, slot.text)
        return content_word_for(gender, slot.text) if content_words else None

    @staticmethod
    def _world_replacement(slot: Slot, gender: str) -> str:
        if slot.kind == "pronoun":
            return pronoun_for(gender, slot.form or "subject", slot.text)
        if slot.kind == "title" and slot.form == "address":  # "Mr. President" ↔ "Madam President" (``gendered_nouns``)
            if gender == "female":
                return slot.text if title_key(slot.text) in ("madam", "madame") else "Madam"
            return slot.text if title_key(slot.text) == "mr" else "Mr."
        return content_word_for(gender, slot.text)

    def _common_gender(self, entity_ids: tuple[str, ...], choices: dict[str, EntityChoice]) -> str | None:
        """The gender every one of an ambiguous pronoun's candidates has in one input, if they agree: the pronoun
        then reads right whichever of them it refers to. A candidate the finder later dropped as no person is none."""
        people = [e for e in entity_ids if e in self._entity or e in self.excluded_genders]
        genders = {self._gender_in(e, choices) for e in people}
        return next(iter(genders)) if len(genders) == 1 else None

    def _gender_in(self, entity_id: str, choices: dict[str, EntityChoice]) -> str | None:
        """The gender a person has in one input: the chosen one, else the original one."""
        choice = choices.get(entity_id)
        if choice is not None and choice.gender is not None:
            return choice.gender
        entity = self._entity.get(entity_id)
        return entity.gender if entity is not None else self.excluded_genders.get(entity_id)


def mark_surnames_elsewhere(template: EntityTemplate) -> None:
    """Set ``surname_elsewhere`` on each entity whose surname the text also writes (capitalised, possessive or not)
    where no slot is (issue 27: one person, one name). A place or firm of that name counts too ("Washington" the
    city beside Denzel Washington): where the finder told them apart the kept surname reads right either way, and
    where it did not ("Washington" the president read as the city) renaming only some would give him two names."""
    covered = [(slot.start, slot.end) for slot in template.slots]
    for entity in template.entities:
        words = {slot.text for slot in template.slots if slot.entity_id == entity.entity_id
                 and slot.kind == "last_name"}
        entity.surname_elsewhere = any(
            not any(start <= match.start() < end for start, end in covered)
            for word in words for match in re.finditer(rf"(?<![\w'’.-]){re.escape(word)}(?![\w-])", template.text))


def finish_template(document_id: str, text: str, entities: list[TemplateEntity], slots: list[Slot]) -> EntityTemplate:
    """Sort slots, drop overlaps (the earlier, longer span wins) and entities left without any slot."""
    ordered: list[Slot] = []
    for slot in sorted(slots, key=lambda s: (s.start, -(s.end - s.start))):
        if ordered and slot.start < ordered[-1].end:
            continue
        ordered.append(slot)
    used = {slot.entity_id for slot in ordered}
    kept = [entity for entity in entities if entity.entity_id in used]
    return EntityTemplate(document_id, text, kept, ordered, taken_words(text))
