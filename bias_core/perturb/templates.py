"""Entity templates: each original parsed once into people, their mentions and every span a perturbation may rewrite.

METHODS §1.1; Steen & Markert §5.1 and App. D. A template holds the original text and a sorted list of
non-overlapping *slots* (first name, last name, pronoun, title, content word), each with its character span and the
entity it belongs to. Perturbations never re-parse: they choose a gender and names per entity and call
:meth:`EntityTemplate.fill`, which assembles the input text by string concatenation and records the substitution map
with offsets into the new text.

Building entities from spaCy (NER + tagger + parser), per METHODS §1.1:

1. Candidate name spans are PERSON entities plus a gendered or surname title (Mr., Mrs., Ms., Miss, Dr., Sir, Lady,
   Lord, Dame) followed by proper nouns the NER missed. Leading titles ("President", "Judge"), trailing suffixes
   ("Jr.") and initials ("J.") are not name parts.
2. A span with two or more name parts gives a first-name candidate (its first part) and a last-name candidate (its
   last part); middle names stay unchanged. Spans that share the last name join one entity — *unless* both carry
   different first names ("Daniel Whitaker" and "Linda Whitaker" are two people; the paper's rule would merge them).
   A single name part after a surname title is a last name (METHODS §1.1 step 2). Other single parts join the entity
   whose last name, else first name, they equal; an unknown single part starts an entity of its own, as a first
   name when it is a census first name and as a last name otherwise.
3. Every later occurrence of an entity's first or last name is a mention too, whether or not the NER tagged it
   (the small model misses names, e.g. "Okafor"), provided the token is a proper noun or PERSON and not inside a
   place, nationality or multi-word organisation. A bare last name shared by several entities goes to the one a
   preceding title agrees with, else to the entity introduced first (the article's subject, as a rule); a bare
   first name goes to the entity with that first name mentioned most recently.
4. An entity's original gender comes from its titles, else its census first name (§1.2 rule), else the pronouns
   attributed to it.
5. Pronouns (he/him/his/himself, she/her/hers/herself) go to the nearest preceding entity whose gender agrees; when
   no preceding entity agrees, to the nearest preceding entity of unknown gender (which then takes the pronoun's
   gender); when no entity precedes, to the first entity of the same sentence that agrees or is unknown. Others are
   *unattributed*: reported, rewritten only where every entity gets one gender (C_glob). ``her`` is possessive when
   tagged PRP$ (→ *his*) and an object otherwise (→ *him*); ``his`` with no noun after it is independent (→ *hers*).
6. Content words (Steen & Markert App. J, Table 18) belong to an entity only when the parse ties them to one of its
   mentions: a compound or apposition ("Chairman Diane Sasser", "Sasser, the chairwoman"), or a predicate noun
   ("She is the chairwoman"). Kinship words reached through a possessive ("Smith's mother") are somebody else and are
   left alone; so is every content word not tied to an entity.

Pre-annotated documents (gold coreference) skip steps 1–3 and 5: a document's ``entities`` field lists each
entity's mention spans (``{"entity_id": "e1", "mentions": [{"start": 0, "end": 12}, ...]}``, optionally with
``first_name``, ``last_name`` and ``gender``); names inside mentions are found with the step-2 heuristic (most
frequent candidate), and pronouns outside every mention are unattributed.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bias_core import nlp
from bias_core.errors import InputError
from bias_core.names import first_name_gender
from bias_core.perturb.lexicon import (
    CONTENT_WORD_GENDER,
    NAME_SUFFIXES,
    NEUTRAL_TITLES,
    PRONOUN_GENDER,
    SURNAME_TITLES,
    TITLE_GENDER,
    content_word_for,
    match_case,
    pronoun_for,
    title_for,
    title_key,
)
from bias_core.records import Document, Substitution

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

logger = logging.getLogger(__name__)

SLOT_KINDS = ("first_name", "last_name", "pronoun", "title", "content_word")
GENDER_SLOT_KINDS = frozenset({"pronoun", "title", "content_word"})
# Single-token entity types that are never a person's name even when the string equals one ("Virginia" the state).
_NOT_A_PERSON = frozenset({"GPE", "LOC", "NORP", "FAC", "EVENT", "LANGUAGE", "LAW", "WORK_OF_ART", "PRODUCT"})
_NAME_WORD = re.compile(r"[A-Z][A-Za-z'’-]*[A-Za-z]|[A-Z]")
_INITIALS = re.compile(r"(?:[A-Z]\.)+[A-Z]?\.?|[A-Z]")
_SPACY_DISABLE = ("lemmatizer",)


@dataclass(frozen=True)
class Slot:
    """A span of the original that a perturbation may rewrite, with the entity it belongs to (None: unattributed)."""

    start: int
    end: int
    kind: str
    text: str
    entity_id: str | None
    form: str | None = None  # pronoun form: subject, object, possessive, independent or reflexive


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

    @property
    def label(self) -> str:
        """The entity's fullest name as written, for reports."""
        return " ".join(part for part in (self.first_name, self.last_name) if part)


@dataclass
class EntityTemplate:
    """An original parsed once: its text, entities and rewritable slots (METHODS §1.1)."""

    document_id: str
    text: str
    entities: list[TemplateEntity]
    slots: list[Slot]
    capitalized_words: frozenset[str] = field(default_factory=frozenset)

    def entity(self, entity_id: str) -> TemplateEntity:
        """Return the entity with this id."""
        return next(entity for entity in self.entities if entity.entity_id == entity_id)

    def slot_kinds(self, entity_id: str) -> set[str]:
        """Return the kinds of slots an entity has (which of its mentions can be rewritten)."""
        return {slot.kind for slot in self.slots if slot.entity_id == entity_id}

    @property
    def unattributed_pronouns(self) -> list[Slot]:
        """Pronoun slots that no entity could take (METHODS §1.1 step 3)."""
        return [slot for slot in self.slots if slot.kind == "pronoun" and slot.entity_id is None]

    def gendered_entities(self, *, content_words: bool = False) -> list[TemplateEntity]:
        """Entities a gender perturbation can change: with a first name, gendered pronoun or title (§1.1 step 6)."""
        kinds = {"first_name", "pronoun", "title"} | ({"content_word"} if content_words else set())
        return [entity for entity in self.entities if self.slot_kinds(entity.entity_id) & kinds]

    def named_entities(self) -> list[TemplateEntity]:
        """Entities with a first or last name mention (those a name swap such as race can change)."""
        return [entity for entity in self.entities if self.slot_kinds(entity.entity_id) & {"first_name", "last_name"}]

    def fill(
        self,
        choices: dict[str, EntityChoice],
        *,
        unattributed_gender: str | None = None,
        content_words: bool = False,
    ) -> tuple[str, list[Substitution]]:
        """Return the input text and its substitution map for one assignment of genders and names.

        Entities missing from ``choices`` stay as they are. Unattributed pronouns take ``unattributed_gender`` when
        given (C_glob, where every entity has one gender). Content-word slots are rewritten only when
        ``content_words`` is on (Steen & Markert App. J; off by default in METHODS §1.2). Only spans whose text
        changes get a substitution; offsets are into the returned text.
        """
        pieces: list[str] = []
        substitutions: list[Substitution] = []
        cursor = 0
        length = 0
        for slot in self.slots:
            replacement = self._replacement(slot, choices, unattributed_gender, content_words)
            if replacement is None or replacement == slot.text:
                continue
            gap = self.text[cursor : slot.start]
            pieces.append(gap)
            length += len(gap)
            substitutions.append(
                Substitution(length, length + len(replacement), slot.text, replacement, slot.kind, slot.entity_id)
            )
            pieces.append(replacement)
            length += len(replacement)
            cursor = slot.end
        pieces.append(self.text[cursor:])
        return "".join(pieces), substitutions

    @staticmethod
    def _replacement(
        slot: Slot, choices: dict[str, EntityChoice], unattributed_gender: str | None, content_words: bool
    ) -> str | None:
        choice = choices.get(slot.entity_id) if slot.entity_id is not None else None
        if slot.kind == "first_name":
            return match_case(slot.text, choice.first_name) if choice and choice.first_name else None
        if slot.kind == "last_name":
            return match_case(slot.text, choice.last_name) if choice and choice.last_name else None
        gender = choice.gender if choice else (unattributed_gender if slot.entity_id is None else None)
        if gender is None:
            return None
        if slot.kind == "pronoun":
            return pronoun_for(gender, slot.form or "subject", slot.text)
        if slot.kind == "title":
            return title_for(gender, slot.text)
        return content_word_for(gender, slot.text) if content_words else None


def build_templates(documents: Sequence[Document]) -> list[EntityTemplate]:
    """Return one entity template per news document, parsing all of them in one batched spaCy call (§1.1).

    Documents with an ``entities`` field are taken as pre-annotated (gold mention clusters). Perspective documents
    (units) have no entities and are rejected with an ``InputError``.
    """
    for document in documents:
        if document.text is None:
            raise InputError(f"document '{document.id}'", "has units, not a news text",
                             hint="name-based perturbations need news documents with a 'text' field")
    parsed = nlp.parse([document.text or "" for document in documents], disable=_SPACY_DISABLE)
    templates = []
    for document, doc in zip(documents, parsed, strict=True):
        gold = document.extra.get("entities")
        builder = _GoldBuilder(document, doc, gold) if gold is not None else _NerBuilder(document.id, doc)
        templates.append(builder.build())
    return templates


@dataclass
class _NamePart:
    start: int
    end: int
    text: str


@dataclass
class _NameSpan:
    """A name as written: its first and last name parts and whether a surname title stands before it."""

    start: int
    end: int
    first: _NamePart | None
    last: _NamePart | None
    title_gender: str | None
    surname_certain: bool  # a lone part after a surname title or after initials ("Mr. Whitaker", "J.D. Vance")

    @property
    def parts(self) -> list[_NamePart]:
        return [part for part in (self.first, self.last) if part is not None]


def _parse_name(text: str, start: int, end: int, title_before: str | None) -> _NameSpan | None:
    """Split ``text[start:end]`` into title, first, middle and last name parts (METHODS §1.1 step 2)."""
    words = [(m.start() + start, m.group()) for m in re.finditer(r"\S+", text[start:end])]
    words = [(s, w.rstrip(",;:")) for s, w in words]
    words = [(s, w[:-2] if w.endswith(("'s", "’s")) else w) for s, w in words]
    titles = [title_before] if title_before else []
    while words and (title_key(words[0][1]) in TITLE_GENDER or title_key(words[0][1]) in NEUTRAL_TITLES
                     or title_key(words[0][1]) in SURNAME_TITLES):
        titles.append(title_key(words[0][1]))
        words = words[1:]
    while words and title_key(words[-1][1]) in NAME_SUFFIXES:
        words = words[:-1]
    if not words or any(not _NAME_WORD.fullmatch(w) and not _INITIALS.fullmatch(w) for _, w in words):
        return None
    parts = [_NamePart(s, s + len(w), w) for s, w in words]
    last = parts[-1] if not _INITIALS.fullmatch(parts[-1].text) else None
    if last is None:
        return None
    first = parts[0] if len(parts) > 1 and not _INITIALS.fullmatch(parts[0].text) else None
    title_gender = next((TITLE_GENDER[t] for t in titles if t in TITLE_GENDER), None)
    surname_certain = len(parts) > 1 or any(t in SURNAME_TITLES for t in titles)
    return _NameSpan(parts[0].start, parts[-1].end, first, last, title_gender, surname_certain)


class _Entities:
    """Entities under construction, with every name mention found so far (by character start)."""

    def __init__(self) -> None:
        self.entities: list[TemplateEntity] = []
        self.mentions: dict[int, tuple[str, str, _NamePart]] = {}  # start → (entity_id, kind, part)
        self.full_names: dict[str, list[int]] = {}  # entity_id → starts of its first-and-last-name mentions

    def new(self, first: str | None, last: str | None) -> TemplateEntity:
        entity = TemplateEntity(f"e{len(self.entities) + 1}", first, last)
        self.entities.append(entity)
        return entity

    def add_mention(self, entity: TemplateEntity, kind: str, part: _NamePart) -> None:
        self.mentions.setdefault(part.start, (entity.entity_id, kind, part))

    def mention_positions(self, entity_id: str) -> list[int]:
        return sorted(start for start, (eid, _, _) in self.mentions.items() if eid == entity_id)

    def by_last_name(self, last: str, title_gender: str | None, position: int) -> TemplateEntity | None:
        candidates = [e for e in self.entities if e.last_name == last]
        candidates = [e for e in candidates if title_gender is None or e.gender in (None, title_gender)] or candidates
        if len(candidates) < 2:
            return candidates[0] if candidates else None

        def last_full_name_before(entity: TemplateEntity) -> int:
            return max((p for p in self.full_names.get(entity.entity_id, []) if p < position), default=-1)

        latest = max(candidates, key=last_full_name_before)
        return latest if last_full_name_before(latest) >= 0 else candidates[0]

    def by_first_name(self, first: str, position: int) -> TemplateEntity | None:
        candidates = [e for e in self.entities if e.first_name == first]
        if not candidates:
            return None

        def last_before(entity: TemplateEntity) -> int:
            return max((p for p in self.mention_positions(entity.entity_id) if p < position), default=-1)

        return max(candidates, key=last_before)


class _NerBuilder:
    """Builds a template from NER, a name heuristic and pronoun attribution (METHODS §1.1; module docstring)."""

    def __init__(self, document_id: str, doc: Doc):
        self.document_id = document_id
        self.doc = doc
        self.text = doc.text
        self.token_at = {token.idx: token for token in doc}
        self.found = _Entities()
        self.titles: dict[str, list[Token]] = {}

    def build(self) -> EntityTemplate:
        spans = self._name_spans()
        for span in sorted((s for s in spans if s.first), key=lambda s: s.start):
            self._add_full_name(span)
        for span in sorted((s for s in spans if not s.first), key=lambda s: s.start):
            self._add_single_name(span)
        self._scan_name_occurrences()
        slots = self._name_slots() + self._title_slots()
        self._set_gender_from_titles_and_names()
        pronoun_slots = self._pronoun_slots()
        slots += pronoun_slots + self._content_word_slots(pronoun_slots)
        return _finish(self.document_id, self.text, self.found.entities, slots)

    def _name_spans(self) -> list[_NameSpan]:
        spans = []
        covered: set[int] = set()
        for ent in self.doc.ents:
            if ent.label_ != "PERSON":
                continue
            covered.update(range(ent.start, ent.end))
            title = self._title_before(ent[0])
            span = _parse_name(self.text, ent.start_char, ent.end_char, title_key(title.text) if title else None)
            if span:
                spans.append(span)
        for token in self.doc:
            key = title_key(token.text)
            if not token.text[:1].isupper() or key not in (SURNAME_TITLES | TITLE_GENDER.keys()):
                continue
            end = token.i + 1
            while end < len(self.doc) and end - token.i <= 3 and end not in covered and self._is_name_token(end):
                end += 1
            if end > token.i + 1:
                span = _parse_name(self.text, self.doc[token.i + 1].idx, self.doc[end - 1].idx
                                   + len(self.doc[end - 1].text), key)
                if span:
                    spans.append(span)
        return spans

    def _is_name_token(self, i: int) -> bool:
        token = self.doc[i]
        return token.pos_ == "PROPN" and token.text[:1].isupper() and token.ent_type_ not in _NOT_A_PERSON

    def _title_before(self, token: Token) -> Token | None:
        if token.i == 0:
            return None
        previous = self.doc[token.i - 1]
        key = title_key(previous.text)
        if previous.text[:1].isupper() and (key in TITLE_GENDER or key in SURNAME_TITLES):
            return previous
        return None

    def _add_full_name(self, span: _NameSpan) -> None:
        assert span.first is not None and span.last is not None
        entity = next((e for e in self.found.entities if e.last_name == span.last.text
                       and e.first_name in (None, span.first.text)), None)
        if entity is None:
            entity = self.found.new(span.first.text, span.last.text)
        entity.first_name = entity.first_name or span.first.text
        self.found.add_mention(entity, "first_name", span.first)
        self.found.add_mention(entity, "last_name", span.last)
        self.found.full_names.setdefault(entity.entity_id, []).append(span.start)

    def _add_single_name(self, span: _NameSpan) -> None:
        part = span.last
        assert part is not None
        if span.surname_certain:
            entity = self.found.by_last_name(part.text, span.title_gender, part.start)
            self.found.add_mention(entity or self.found.new(None, part.text), "last_name", part)
            return
        entity = self.found.by_last_name(part.text, None, part.start)
        if entity is not None:
            self.found.add_mention(entity, "last_name", part)
            return
        entity = self.found.by_first_name(part.text, part.start)
        if entity is not None:
            self.found.add_mention(entity, "first_name", part)
        elif first_name_gender(part.text):
            self.found.add_mention(self.found.new(part.text, None), "first_name", part)
        else:
            self.found.add_mention(self.found.new(None, part.text), "last_name", part)

    def _scan_name_occurrences(self) -> None:
        names = {e.first_name for e in self.found.entities if e.first_name}
        names |= {e.last_name for e in self.found.entities if e.last_name}
        if not names:
            return
        pattern = re.compile(r"(?<![\w'’.-])(?:" + "|".join(map(re.escape, sorted(names, key=len, reverse=True)))
                             + r")(?![\w-])")
        for match in pattern.finditer(self.text):
            start, word = match.start(), match.group()
            token = self.token_at.get(start)
            if start in self.found.mentions or token is None or not self._may_be_name(token):
                continue
            part = _NamePart(start, match.end(), word)
            title = self._title_before(token)
            title_gender = TITLE_GENDER.get(title_key(title.text)) if title else None
            entity = self.found.by_last_name(word, title_gender, start)
            if entity is not None and (title or not any(e.first_name == word for e in self.found.entities)):
                self.found.add_mention(entity, "last_name", part)
                continue
            entity = self.found.by_first_name(word, start)
            if entity is not None:
                self.found.add_mention(entity, "first_name", part)

    def _may_be_name(self, token: Token) -> bool:
        if token.ent_type_ == "PERSON":
            return True
        if token.pos_ != "PROPN":
            return False
        if token.ent_type_ in _NOT_A_PERSON:
            return False
        if token.ent_type_:
            ent = next((e for e in self.doc.ents if e.start <= token.i < e.end), None)
            return ent is None or len(ent) == 1
        return True

    def _name_slots(self) -> list[Slot]:
        return [Slot(part.start, part.end, kind, part.text, eid) for eid, kind, part in self.found.mentions.values()]

    def _title_slots(self) -> list[Slot]:
        slots = []
        for eid, _, part in self.found.mentions.values():
            token = self.token_at.get(part.start)
            title = self._title_before(token) if token is not None else None
            if title is not None and title_key(title.text) in TITLE_GENDER:
                self.titles.setdefault(eid, []).append(title)
                slots.append(Slot(title.idx, title.idx + len(title.text), "title", title.text, eid))
        return slots

    def _set_gender_from_titles_and_names(self) -> None:
        for entity in self.found.entities:
            titles = Counter(TITLE_GENDER[title_key(t.text)] for t in self.titles.get(entity.entity_id, []))
            if titles:
                entity.gender, entity.gender_source = titles.most_common(1)[0][0], "title"
            elif entity.first_name and first_name_gender(entity.first_name):
                entity.gender, entity.gender_source = first_name_gender(entity.first_name), "first_name"

    def _pronoun_slots(self) -> list[Slot]:
        positions = {e.entity_id: self.found.mention_positions(e.entity_id) for e in self.found.entities}
        slots = []
        for token in self.doc:
            gender = PRONOUN_GENDER.get(token.text.lower())
            if gender is None:
                continue
            entity = self._attribute(token, gender, positions)
            slots.append(Slot(token.idx, token.idx + len(token.text), "pronoun", token.text,
                              entity.entity_id if entity else None, _pronoun_form(token)))
        return slots

    def _attribute(self, token: Token, gender: str, positions: dict[str, list[int]]) -> TemplateEntity | None:
        preceding = []
        for entity in self.found.entities:
            before = [p for p in positions[entity.entity_id] if p < token.idx]
            if before:
                preceding.append((before[-1], entity))
        preceding.sort(key=lambda item: item[0], reverse=True)
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
            (p, e) for e in self.found.entities for p in positions[e.entity_id]
            if token.idx < p < sentence.end_char and e.gender in (None, gender)
        )
        if not following:
            return None
        entity = following[0][1]
        if entity.gender is None:
            entity.gender, entity.gender_source = gender, "pronoun"
        return entity

    def _content_word_slots(self, pronoun_slots: list[Slot]) -> list[Slot]:
        owner: dict[int, str] = {}
        for eid, _, part in self.found.mentions.values():
            token = self.token_at.get(part.start)
            if token is not None:
                owner[token.i] = eid
        for slot in pronoun_slots:
            if slot.entity_id is not None:
                owner[self.token_at[slot.start].i] = slot.entity_id
        slots = []
        for token in self.doc:
            if token.text.lower() not in CONTENT_WORD_GENDER:
                continue
            eid = _syntactic_owner(token, owner)
            if eid is not None:
                slots.append(Slot(token.idx, token.idx + len(token.text), "content_word", token.text, eid))
        return slots


def _syntactic_owner(token: Token, owner: dict[int, str]) -> str | None:
    """Return the entity a content word describes through compound, apposition or a copula, if any (§1.1)."""
    head = token.head
    if token.dep_ in ("compound", "appos", "amod", "nmod") and head.i in owner:
        return owner[head.i]
    for child in token.children:
        if child.dep_ in ("appos", "compound") and child.i in owner:
            return owner[child.i]
    if token.dep_ == "attr":
        for child in head.children:
            if child.dep_ in ("nsubj", "nsubjpass") and child.i in owner:
                return owner[child.i]
    return None


def _pronoun_form(token: Token) -> str:
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
        following is not None and following.pos_ in ("NOUN", "PROPN", "ADJ", "NUM") and token.dep_ != "attr"
    )
    return "possessive" if has_head_noun else "independent"


class _GoldBuilder:
    """Builds a template from pre-annotated mention clusters (gold coreference); see the module docstring."""

    def __init__(self, document: Document, doc: Doc, gold: Any):
        self.document = document
        self.doc = doc
        self.text = doc.text
        self.gold = gold
        self.source = f"document '{document.id}'"

    def build(self) -> EntityTemplate:
        if not isinstance(self.gold, list):
            raise InputError(self.source, "field 'entities' must be a list of entities with 'mentions'")
        entities: list[TemplateEntity] = []
        slots: list[Slot] = []
        claimed: set[int] = set()
        for index, record in enumerate(self.gold):
            entity, entity_slots = self._entity(index, record)
            entities.append(entity)
            slots += entity_slots
            claimed.update(slot.start for slot in entity_slots)
        for token in self.doc:
            if token.text.lower() in PRONOUN_GENDER and token.idx not in claimed:
                slots.append(Slot(token.idx, token.idx + len(token.text), "pronoun", token.text, None,
                                  _pronoun_form(token)))
        return _finish(self.document.id, self.text, entities, slots)

    def _entity(self, index: int, record: Any) -> tuple[TemplateEntity, list[Slot]]:
        where = f"entity {index + 1}"
        if not isinstance(record, dict) or not isinstance(record.get("mentions"), list):
            raise InputError(self.source, f"{where} needs a 'mentions' list of {{'start', 'end'}} spans")
        spans = [self._span(where, mention) for mention in record["mentions"]]
        entity_id = str(record.get("entity_id", f"e{index + 1}"))
        names = [name for span in spans if (name := self._name_in(span))]
        first = record.get("first_name") or _most_common(n.first.text for n in names if n.first)
        last = record.get("last_name") or _most_common(n.last.text for n in names if n.last and n.first) \
            or _most_common(n.last.text for n in names if n.last)
        slots: list[Slot] = []
        genders: Counter[str] = Counter()
        for span in spans:
            for token in span:
                word = token.text
                key = title_key(word)
                if word.lower() in PRONOUN_GENDER:
                    slots.append(Slot(token.idx, token.idx + len(word), "pronoun", word, entity_id,
                                      _pronoun_form(token)))
                    genders[PRONOUN_GENDER[word.lower()]] += 1
                elif key in TITLE_GENDER and word[:1].isupper():
                    slots.append(Slot(token.idx, token.idx + len(word), "title", word, entity_id))
                    genders[TITLE_GENDER[key]] += 10
                elif word.lower() in CONTENT_WORD_GENDER:
                    slots.append(Slot(token.idx, token.idx + len(word), "content_word", word, entity_id))
        for name in names:
            for part in name.parts:
                if part is name.last and part.text == last:
                    slots.append(Slot(part.start, part.end, "last_name", part.text, entity_id))
                elif part.text == first:
                    slots.append(Slot(part.start, part.end, "first_name", part.text, entity_id))
        entity = TemplateEntity(entity_id, first, last)
        if record.get("gender") in ("male", "female"):
            entity.gender, entity.gender_source = record["gender"], "gold"
        elif genders:
            entity.gender = genders.most_common(1)[0][0]
            entity.gender_source = "title" if genders[entity.gender] >= 10 else "pronoun"
        elif first and first_name_gender(first):
            entity.gender, entity.gender_source = first_name_gender(first), "first_name"
        return entity, slots

    def _span(self, where: str, mention: Any):
        if isinstance(mention, dict):
            start, end = mention.get("start"), mention.get("end")
        elif isinstance(mention, list) and len(mention) == 2:
            start, end = mention
        else:
            start = end = None
        if not isinstance(start, int) or not isinstance(end, int) or not 0 <= start < end <= len(self.text):
            raise InputError(self.source, f"{where} has a mention that is not a valid [start, end) span: {mention!r}",
                             hint=f"offsets are characters into the text (length {len(self.text)})")
        span = self.doc.char_span(start, end, alignment_mode="expand")
        if span is None:
            raise InputError(self.source, f"{where} has a mention span {start}–{end} that does not align to words")
        return span

    def _name_in(self, span) -> _NameSpan | None:
        proper = [token for token in span if token.pos_ == "PROPN" and token.text[:1].isupper()]
        if not proper:
            return None
        title = self.doc[proper[0].i - 1] if proper[0].i > 0 else None
        title_word = title_key(title.text) if title is not None and title_key(title.text) in SURNAME_TITLES else None
        return _parse_name(self.text, proper[0].idx, proper[-1].idx + len(proper[-1].text), title_word)


def _most_common(values) -> str | None:
    counts = Counter(values)
    return counts.most_common(1)[0][0] if counts else None


def _finish(document_id: str, text: str, entities: list[TemplateEntity], slots: list[Slot]) -> EntityTemplate:
    """Sort slots, drop overlaps (the earlier, longer span wins) and entities left without any slot."""
    ordered: list[Slot] = []
    for slot in sorted(slots, key=lambda s: (s.start, -(s.end - s.start))):
        if ordered and slot.start < ordered[-1].end:
            continue
        ordered.append(slot)
    used = {slot.entity_id for slot in ordered}
    kept = [entity for entity in entities if entity.entity_id in used]
    capitalized = frozenset(re.findall(r"\b[A-Z][a-zA-Z'-]+\b", text))
    return EntityTemplate(document_id, text, kept, ordered, capitalized)
