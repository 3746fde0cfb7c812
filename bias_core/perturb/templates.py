"""Entity templates: each original parsed once into people, their mentions and every span a perturbation may rewrite.

METHODS §1.1; Steen & Markert §5.1 and App. D. A template holds the original text and a sorted list of
non-overlapping *slots* (first name, last name, pronoun, title, content word), each with its character span and the
entity it belongs to. Perturbations never re-parse: they choose a gender and names per entity and call
:meth:`EntityTemplate.fill`, which assembles the input text by string concatenation and records the substitution map
with offsets into the new text.

Building entities from spaCy (NER + tagger + parser), per METHODS §1.1, with the decisions METHODS leaves open:

1. Candidate name spans are PERSON entities, ORG/NORP entities of two or three proper nouns made of a census first
   name, initials or first names and a listed surname ("Marcus Bell" tagged ORG), and proper nouns after a
   capitalised gendered or surname title that the NER missed. A one-word PERSON span takes in a neighbouring proper
   noun when together they make a first + last name. Leading titles ("President", "Judge"), a job word before a
   first name ("Historian"), trailing suffixes ("Jr.") and initials ("J.") are no name parts. A PERSON span names a
   place, organisation or thing, not a person, when it starts with a place prefix ("Santa", "San", "Fort"), ends in
   an organisation or place word ("FC", "High", "Beach", "Falls", "Yards", "Post", "State"), follows "the" (two
   words or more, or a plural: "the Aztecs"), stands before a capitalised title ("Baltimore Mayor ..."), or — two
   words or more — the document labels the same string a non-person more often than PERSON ("Virginia Beach": GPE
   twice, PERSON once). GPE, LOC and FAC entities are never taken for people; spans in an all-caps headline start
   no entity (their tags are unreliable) but can be mentions of known people (step 3).
2. A span with two or more name parts gives a first name (its first part) and a last name (its last part); middle
   names stay unchanged. The first part counts as a first name only if it is a census or voter-file (Rosenman)
   first name and the last part can be a surname — listed in the census or voter-file surnames, or a word the text
   never writes in lower case ("Norris Software" is a company because the article also says "software"). Spans
   that share the last name join one entity — *unless* they carry different first names ("Daniel Whitaker" and
   "Linda Whitaker" are two people; the paper's rule would merge them). A single part after a title is a last
   name (METHODS §1.1 step 2), except after Sir and Dame, which in British usage precede the given name ("Sir
   Richard"). Other single parts join the entity whose last name, else first name, they equal; an unknown single
   part starts an entity of its own, as a first name when it is a census first name and as a last name otherwise.
3. Every later occurrence of an entity's first or last name is a mention too, whether or not the NER tagged it
   (the small model misses names, e.g. "Okafor"); see ``_NerBuilder._may_be_name`` for when a capitalised string is
   the name and not a place, a date or part of an organisation. A mention may be written in capitals ("DENZEL
   WASHINGTON" in a headline). **A name that is also a place** ("Washington", "Jordan", "Sofia"): where the NER
   labels the occurrence a place or the like, it is the person only as a subject, possessor or object and only
   after that person was named ("George Washington ... Washington said" is him; "Jordan will host talks" before
   "Michael Jordan" appears is the country; "drama in Washington" is the city); after a title it is always the
   person ("Mr. Washington"). A bare last name shared by several entities goes to
   the one a preceding title agrees with, else to the one most recently named in full or with a title ("Jonathan
   Brandt ... Brandt said"), else to the one introduced first; a bare first name goes to the entity with that
   first name mentioned most recently.
4. An entity's original gender comes from its titles, else its census first name (§1.2 rule), else the pronouns
   attributed to it.
5. A subject pronoun (he, she) goes to the person named last when that person's gender is still unknown, a title
   or full name already shows it is a person (step 6), and the mention is in the same or the previous sentence
   ("Dr. Lin said she"), unless the pronoun's clause is a relative one ("introduced J.D. Vance, the author he
   backed"). Other pronouns (he/him/his/himself,
   she/her/hers/herself) go to the nearest preceding entity whose gender agrees; when
   no preceding entity agrees, to the nearest preceding entity of unknown gender (which then takes the pronoun's
   gender); when no entity precedes, to the first entity of the same sentence that agrees or is unknown. Others are
   *unattributed*: reported, rewritten only where every entity gets one gender (C_glob). ``her`` is possessive when
   tagged PRP$ (→ *his*) and an object otherwise (→ *him*); ``his`` with no noun after it is independent (→ *hers*).
   Known limit: a pronoun for an unnamed person ("the judge ... she") goes to the nearest named person of that
   gender.
6. **Only people are swapped** (issue 10). An entity is kept only with positive evidence, recorded on it and on
   every substitution made for it (``evidence``): ``title`` (a gendered, surname or office title before a
   mention: Mr, Mrs, Ms, Sen., President, Mayor, Coach ...; not "St." or "former"), ``first-name+surname`` (a
   PERSON span of a census or voter-file first name and a census or voter-file surname), ``initials+surname``
   ("J.D. Vance", "George W Bush" in a PERSON span) or ``pronoun`` (a pronoun attributed to it by step 5). Other
   candidates — a lone PERSON-labelled word ("Jamestown"), an ORG-labelled "Paige Ellis", a full name with an
   unlisted surname — must win a pronoun; and before pronouns are attributed, a candidate named by a word of a
   multi-word place or organisation ("Rivermouth" of "Rivermouth FC", "Greenfield" of "Greenfield Market") or by
   a word the document mostly labels a place is dropped, so it cannot take a real person's pronoun. Known limit: a
   brand named like a person that the NER tags PERSON ("Victoria Bitter", a beer) has the first-name+surname
   evidence and is swapped.
7. Content words (Steen & Markert App. J, Table 18) belong to an entity only when the parse ties them to one of its
   mentions: a compound or apposition ("Chairman Diane Sasser", "Sasser, the chairwoman"), or a predicate noun
   ("She is the chairwoman"). Kinship words reached through a possessive ("Smith's mother") are somebody else and are
   left alone; so is every content word not tied to an entity.

Pre-annotated documents (gold coreference) skip steps 1–3 and 5: a document's ``entities`` field lists each
entity's mention spans (``{"entity_id": "e1", "mentions": [{"start": 0, "end": 12}, ...]}``, optionally with
``first_name``, ``last_name`` and ``gender``); names inside mentions are found with the step-2 heuristic (most
frequent candidate), and pronouns outside every mention are unattributed.
"""

from __future__ import annotations

import functools
import logging
import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bias_core import nlp
from bias_core.errors import InputError
from bias_core.names import census_first_names, census_last_names, first_name_gender
from bias_core.perturb.lexicon import (
    CONTENT_WORD_GENDER,
    GIVEN_NAME_TITLES,
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
from bias_core.perturb.rosenman import is_voter_first_name, is_voter_surname
from bias_core.records import Document, Substitution

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

logger = logging.getLogger(__name__)

# Entity types a person's name may carry: none, PERSON, or a one-word ORG (the small model tags "Smith's" as ORG);
# any other type means the string is something else ("Virginia" the state, "May" the month).
_MAYBE_PERSON = frozenset({"", "PERSON", "ORG"})
# spaCy labels of things that are not people (OntoNotes). A name string the document labels with one of these more
# often than PERSON is a place, organisation, building, event or product, whatever its first word.
_NON_PERSON_LABELS = frozenset({"GPE", "LOC", "ORG", "FAC", "EVENT", "WORK_OF_ART", "PRODUCT", "NORP", "LAW",
                                "LANGUAGE"})
# First words of place names that are also census first names ("Santa Barbara", "San Diego", "St. Louis"); a span
# starting with one is no person's name.
_PLACE_PREFIXES = frozenset({
    "san", "santa", "santo", "sao", "st", "ste", "saint", "fort", "ft", "port", "mount", "mt", "lake", "new", "los",
    "las", "el", "la", "le", "des", "cape", "north", "south", "east", "west", "upper", "lower",
})
# Words before a name that do not make it a person's name ("St. John's", "former Virginia ...").
_NO_EVIDENCE_TITLES = frozenset({"st", "saint", "former"})
_PERSON_LIKE_DEPS = frozenset({"nsubj", "nsubjpass", "appos", "poss", "conj", "dobj", "dative"})
# A span ending in one of these names an organisation or place the NER took for a person ("Rivermouth FC"). Words
# that are also common surnames (Park, Hall, Church) are not listed.
_ORGANISATION_WORDS = frozenset({
    "fc", "united", "city", "club", "high", "school", "elementary", "academy", "college", "university", "inc",
    "corp", "co", "company", "llc", "ltd", "foundation", "council", "street", "avenue", "road", "center", "centre",
    "hospital", "county", "institute", "association", "stadium",
    # places, buildings and newspapers ("Virginia Beach", "Harmon Falls", "Camden Yards", "Lincoln Memorial",
    # "Washington Post", "San Diego State"); issue 10
    "beach", "falls", "yards", "valley", "springs", "heights", "harbor", "harbour", "island", "islands",
    "river", "creek", "canyon", "mountain", "mountains", "forest", "memorial", "monument", "mission",
    "boulevard", "blvd", "drive", "parkway", "highway", "plaza", "square", "arena", "airport", "station",
    "cathedral", "chapel", "museum", "library", "gallery", "theater", "theatre", "hotel", "tower", "towers",
    "district", "province", "state", "post", "times", "herald", "tribune", "gazette", "journal", "energy", "group",
    "partners", "holdings", "bank", "motors", "airlines", "records", "studios", "network", "news", "market",
    "markets", "foods", "stores",
})
_ALL_TITLES = TITLE_GENDER.keys() | SURNAME_TITLES | NEUTRAL_TITLES
_NAME_TITLES = TITLE_GENDER.keys() | SURNAME_TITLES  # titles that, capitalised, announce a name the NER may miss
# A name word: a capitalised run of letters (any script, accents included) with inner apostrophes or hyphens.
_NAME_WORD = re.compile(r"(?=[^\W\d_])(?:[^\W\d_]|['’-](?=[^\W\d_]))+")
_INITIALS = re.compile(r"(?:[A-Z]\.)+[A-Z]?\.?|[A-Z]")
# Lemmas and coarse POS (the attribute ruler) are not needed: fine-grained tags say "proper noun" (NNP) and
# "possessive pronoun" (PRP$). Skipping them makes parsing about a third faster.
_SPACY_DISABLE = ("lemmatizer", "attribute_ruler")
_PROPER_NOUN_TAGS = frozenset({"NNP", "NNPS"})
_NOMINAL_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS", "JJ", "JJR", "JJS", "CD"})


_EVIDENCE_RANK = {"gold": 0, "title": 1, "first-name+surname": 2, "initials+surname": 2, "pronoun": 3}


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
    # Why it is a person: "title", "first-name+surname", "initials+surname", "pronoun" or "gold" (issue 10).
    evidence: str | None = None

    def add_evidence(self, evidence: str) -> None:
        """Keep the strongest evidence seen: a title, then a first name with a surname, then a pronoun."""
        if self.evidence is None or _EVIDENCE_RANK[evidence] < _EVIDENCE_RANK[self.evidence]:
            self.evidence = evidence

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
    meta: dict[str, Any] = field(default_factory=dict)  # the document's meta (date, source, title), for inputs
    # Names the builder did not take for people, each with the reason ({"name", "reason"}), for the run's report.
    declined: list[dict[str, str]] = field(default_factory=list)
    # Why no perturbation can use this original (set without parsing it, e.g. a text over MAX_PERTURB_CHARS).
    skip_reason: str | None = None

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
    def _evidence(self) -> dict[str, str | None]:
        return {entity.entity_id: entity.evidence for entity in self.entities}

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
            evidence = self._evidence.get(slot.entity_id) if slot.entity_id is not None else "unattributed"
            substitutions.append(Substitution(
                length, length + len(replacement), slot.text, replacement, slot.kind, slot.entity_id,
                entity_label="PERSON" if slot.entity_id is not None else None, evidence=evidence,
                ner_label=slot.ner_label,
            ))
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


# Name perturbations need a whole document's people and pronouns. Building them grows faster than linearly with the
# text (a 5 MB text did not finish in an hour), so a longer original is skipped with a reason instead; it is also
# spaCy's own single-parse limit. Summarizers and measures still read such texts (in chunks, ``nlp.parse``).
MAX_PERTURB_CHARS = 1_000_000


def build_templates(documents: Sequence[Document], *, n_process: int | None = None) -> list[EntityTemplate]:
    """Return one entity template per news document, parsing all of them in one batched spaCy call (§1.1).

    Documents with an ``entities`` field are taken as pre-annotated (gold mention clusters). Perspective documents
    (units) have no entities and are rejected with an ``InputError``.
    """
    usable = [document for document in documents if len(document.text or "") <= MAX_PERTURB_CHARS]
    built = iter(templates_from_parses(usable, parse_documents(usable, n_process=n_process)))
    return [next(built) if len(document.text or "") <= MAX_PERTURB_CHARS else _too_long(document)
            for document in documents]


def _too_long(document: Document) -> EntityTemplate:
    reason = (f"too long for name perturbations: {len(document.text or ''):,} characters, over the limit of "
              f"{MAX_PERTURB_CHARS:,} — split the document into articles")
    return EntityTemplate(document.id, document.text or "", [], [], meta=dict(document.meta or {}),
                          skip_reason=reason)


def parse_documents(documents: Sequence[Document], *, n_process: int | None = None) -> list[Doc]:
    """Return the spaCy parses of news documents, in ``nlp.worker_count`` processes unless ``n_process`` says
    otherwise."""
    for document in documents:
        if document.text is None:
            raise InputError(f"document '{document.id}'", "has units, not a news text",
                             hint="name-based perturbations need news documents with a 'text' field")
    started = time.perf_counter()
    workers = n_process or nlp.worker_count(len(documents))
    parsed = nlp.parse([document.text or "" for document in documents], disable=_SPACY_DISABLE, n_process=workers,
                       batch_size=8 if workers > 1 else nlp.SPACY_BATCH_SIZE)
    logger.debug("parsed %d documents in %.2f s with %d process(es)", len(documents), time.perf_counter() - started,
                 workers)
    return parsed


def templates_from_parses(documents: Sequence[Document], parses: Sequence[Doc]) -> list[EntityTemplate]:
    """Return the entity templates of documents from their spaCy parses (``parse_documents``)."""
    templates = []
    for document, doc in zip(documents, parses, strict=True):
        gold = document.extra.get("entities")
        builder = _GoldBuilder(document, doc, gold) if gold is not None else _NerBuilder(document.id, doc)
        template = builder.build()
        template.meta = dict(document.meta)
        templates.append(template)
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
    surname_certain: bool  # a lone part after a title or after initials ("Mr. Whitaker", "J.D. Vance")
    titled: bool = False  # a title stands before it or inside the span ("Sen.", "President", "Mr")
    initials: bool = False  # initials stand for the first name ("J.D. Vance", "George W Bush")
    person_label: bool = False  # spaCy labelled the span PERSON, or a gendered or surname title announced it

    @property
    def parts(self) -> list[_NamePart]:
        return [part for part in (self.first, self.last) if part is not None]


def _parse_name(
    text: str, start: int, end: int, title_before: str | None, common_words: frozenset[str]
) -> _NameSpan | None:
    """Split ``text[start:end]`` into title, first, middle and last name parts (METHODS §1.1 step 2).

    A lone part after Sir or Dame is a given name, after any other title a last name. ``common_words`` are the
    words the document also writes in lower case (see ``_is_surname``).
    """
    words = [(m.start() + start, m.group()) for m in re.finditer(r"\S+", text[start:end])]
    words = [(s, w.rstrip(",;:")) for s, w in words]
    words = [(s, w[:-2] if w.endswith(("'s", "’s")) else w) for s, w in words]
    # A sentence's full stop that the NER kept in the span ("Thomas Jefferson."); titles and initials keep theirs.
    words = [(s, w[:-1] if len(w) > 3 and w.endswith(".") and title_key(w) not in _ALL_TITLES | NAME_SUFFIXES
              and not _INITIALS.fullmatch(w) else w) for s, w in words]
    titles = [title_before] if title_before else []
    while words and title_key(words[0][1]) in _ALL_TITLES:
        titles.append(title_key(words[0][1]))
        words = words[1:]
    # A job word the NER took into the span ("Historian Margaret Ellis", "Nurse Tracy Woodson"): drop it when a
    # first name follows and the span still has a first and a last part.
    if len(words) >= 3 and not _is_first_name(words[0][1]) and _is_first_name(words[1][1]):
        words = words[1:]
    while words and title_key(words[-1][1]) in NAME_SUFFIXES:
        words = words[:-1]
    if words and title_key(words[-1][1]) in _ORGANISATION_WORDS:
        return None
    if not words or any(not (_NAME_WORD.fullmatch(w) and w[0].isupper()) and not _INITIALS.fullmatch(w)
                        for _, w in words):
        return None
    parts = [_NamePart(s, s + len(w), w) for s, w in words]
    if _INITIALS.fullmatch(parts[-1].text):
        return None
    title_gender = next((TITLE_GENDER[t] for t in titles if t in TITLE_GENDER), None)
    titled = any(t not in _NO_EVIDENCE_TITLES for t in titles)
    if len(parts) == 1 and titles and titles[-1] in GIVEN_NAME_TITLES:
        return _NameSpan(parts[0].start, parts[0].end, parts[0], None, title_gender, surname_certain=False,
                         titled=titled)
    last = parts[-1]
    is_full = len(parts) > 1 and _is_first_name(parts[0].text) and _is_surname(last.text, common_words)
    return _NameSpan(parts[0].start, parts[-1].end, parts[0] if is_full else None, last, title_gender,
                     surname_certain=len(parts) > 1 or bool(titles), titled=titled,
                     initials=any(_INITIALS.fullmatch(part.text) for part in parts[:-1]))


def _lowercase_words(text: str) -> frozenset[str]:
    """The words a text writes in lower case at least once."""
    return frozenset(re.findall(r"\b[a-z][a-z'-]*\b", text))


def _is_first_name(word: str) -> bool:
    """Whether a word before a last name is a first name: a census first name or a voter-file one (Rosenman)."""
    if _INITIALS.fullmatch(word):
        return False
    if "-" in word.strip("-"):  # "Mary-Kate", "Jean-Pierre": every part a first name
        return all(_is_first_name(part) for part in word.split("-"))
    return word.capitalize() in census_first_names() or is_voter_first_name(word)


def _is_census_first_name(word: str) -> bool:
    """Whether a word is a 1990 census first name (every part of a hyphenated one)."""
    return all(part.capitalize() in census_first_names() for part in word.split("-")) if word.strip("-") else False


def _is_listed_surname(word: str) -> bool:
    """Whether a word is a surname of the 1990 census or the voter files (every part of a hyphenated one): the
    *plausible surname* that, after a known first name in a PERSON span, is evidence of a person (issue 10)."""
    parts = [part for part in word.split("-") if part]
    return bool(parts) and all(part in census_last_names() or is_voter_surname(part) for part in parts)


def _is_surname(word: str, common_words: frozenset[str]) -> bool:
    """Whether a word can be a last name: a surname of the 1990 census or the voter files (Rosenman), every part of
    a hyphenated one; or an unlisted word ("Ashcombe") that the document never writes in lower case. "Norris
    Software" is a company: the article also says "software", so "Norris" is no first name there."""
    parts = [part for part in word.split("-") if part]
    if all(part in census_last_names() or is_voter_surname(part) for part in parts):
        return True
    return word.lower() not in common_words and title_key(word) not in _ORGANISATION_WORDS


class _Entities:
    """Entities under construction, with every name mention found so far (by character start)."""

    def __init__(self) -> None:
        self.entities: list[TemplateEntity] = []
        self.mentions: dict[int, tuple[str, str, _NamePart]] = {}  # start → (entity_id, kind, part)
        self.anchors: dict[str, list[int]] = {}  # entity_id → starts of its full-name and title + name mentions

    def new(self, first: str | None, last: str | None) -> TemplateEntity:
        entity = TemplateEntity(f"e{len(self.entities) + 1}", first, last)
        _gender_from_first_name(entity)
        self.entities.append(entity)
        return entity

    def add_mention(self, entity: TemplateEntity, kind: str, part: _NamePart) -> None:
        self.mentions.setdefault(part.start, (entity.entity_id, kind, part))

    def mention_positions(self, entity_id: str) -> list[int]:
        return sorted(start for start, (eid, _, _) in self.mentions.items() if eid == entity_id)

    def by_last_name(
        self, last: str, title_gender: str | None, position: int, *, strict: bool = False
    ) -> TemplateEntity | None:
        """The entity a bare last name refers to (module docstring, step 3); with ``strict``, none when a title's
        gender agrees with no candidate ("Lord Ashcombe" is not "Sophie Ashcombe")."""
        candidates = [e for e in self.entities if e.last_name == last]
        agreeing = [e for e in candidates if title_gender is None or e.gender in (None, title_gender)]
        candidates = agreeing if agreeing or strict else candidates
        if len(candidates) < 2:
            return candidates[0] if candidates else None

        def last_anchor_before(entity: TemplateEntity) -> int:
            return max((p for p in self.anchors.get(entity.entity_id, []) if p < position), default=-1)

        latest = max(candidates, key=last_anchor_before)
        return latest if last_anchor_before(latest) >= 0 else candidates[0]

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
        self.text = doc.text
        self.tokens = list(doc)
        self.token_at = {token.idx: token for token in self.tokens}
        self.ents = list(doc.ents)
        self.ent_of = {i: ent for ent in self.ents for i in range(ent.start, ent.end)}
        self.found = _Entities()
        self.titles: dict[str, list[Token]] = {}
        self.common_words = _lowercase_words(self.text)
        # How the NER labels each name string across the document (majority label, issue 10).
        self.label_votes: dict[str, Counter[str]] = {}
        for ent in self.ents:
            self.label_votes.setdefault(_ent_key(ent.text), Counter())[ent.label_] += 1
        # Tokens of PERSON spans found to name a place or organisation ("Rivermouth FC", "Harmon Falls"), and every
        # word of such spans and of multi-word non-person entities: a bare occurrence of one is no evidence of a
        # person ("Rivermouth equalized").
        self.non_person_tokens: set[int] = set()
        self.non_person_words: set[str] = set()
        self.declined: list[dict[str, str]] = []

    def build(self) -> EntityTemplate:
        """Entities with positive evidence of being people, and their slots (module docstring, steps 1–7)."""
        spans = self._name_spans()
        for span in sorted((s for s in spans if s.first and s.last), key=lambda s: s.start):
            self._add_full_name(span)
        for span in sorted((s for s in spans if not (s.first and s.last)), key=lambda s: s.start):
            self._add_single_name(span)
        self._scan_name_occurrences()
        self._drop_entities(self._named_like_a_non_person, "named like a place or organisation in this text")
        title_slots = self._title_slots()
        self._set_gender_from_titles()
        pronoun_slots = self._pronoun_slots()
        self._drop_entities(lambda entity: entity.evidence is None, "no title, known first name with a listed "
                            "surname, or pronoun")
        kept = {entity.entity_id for entity in self.found.entities}
        slots = self._name_slots() + [slot for slot in title_slots if slot.entity_id in kept] + pronoun_slots
        slots += self._content_word_slots(pronoun_slots)
        template = _finish(self.document_id, self.text, self.found.entities, slots)
        template.declined = self.declined
        return template

    def _decline(self, name: str, reason: str) -> None:
        """Note a name not taken for a person, for the run's report (issue 10: a bad decision must be visible)."""
        entry = {"name": name, "reason": reason}
        if entry not in self.declined:
            self.declined.append(entry)

    def _drop_entities(self, condition, reason: str) -> None:
        """Forget the entities that meet ``condition`` and their name mentions, noting why."""
        dropped = {entity.entity_id for entity in self.found.entities if condition(entity)}
        if not dropped:
            return
        for entity in self.found.entities:
            if entity.entity_id in dropped:
                self._decline(entity.label, reason)
        self.found.entities = [entity for entity in self.found.entities if entity.entity_id not in dropped]
        self.found.mentions = {start: mention for start, mention in self.found.mentions.items()
                               if mention[0] not in dropped}

    def _named_like_a_non_person(self, entity: TemplateEntity) -> bool:
        """Whether an entity without evidence yet bears a name the document uses for a place or organisation:
        a word of a multi-word non-person entity ("Greenfield" of "Greenfield Market"), or a string the NER labels
        a non-person more often than a person. Such an entity may not collect pronouns ("Rivermouth ... her")."""
        if entity.evidence is not None:
            return False
        names = [name for name in (entity.first_name, entity.last_name) if name]
        return any(name in self.non_person_words or self._mostly_non_person(name, count_org=False)
                   for name in names)

    def _mostly_non_person(self, text: str, *, count_org: bool = True) -> bool:
        """Whether the NER labels this string (any mention of it in the document) a non-person more often than a
        person: the majority label across mentions decides, since the small model labels the same string
        differently from sentence to sentence ("Virginia Beach" GPE twice, PERSON once). ``count_org`` off leaves
        ORG votes out, for single words: the small model often tags a bare surname ORG ("Finch said")."""
        votes = self.label_votes.get(_ent_key(text))
        if not votes:
            return False
        labels = _NON_PERSON_LABELS if count_org else _NON_PERSON_LABELS - {"ORG"}
        return sum(n for label, n in votes.items() if label in labels) > votes["PERSON"]

    def _non_person_span(self, start: int, end: int) -> str | None:
        """Why tokens ``start:end`` (a PERSON span, perhaps widened) name a place, organisation or thing: a
        first word that begins place names ("Santa", "San", "Fort"), a last word that ends organisation or place
        names ("FC", "Beach", "Falls", "Post"), an article before it ("the Santa Barbara Mission", "the Aztecs";
        a single singular word after "the" is a person's name used as a modifier: "the Whitaker case"),
        a capitalised title right after it ("Baltimore Mayor Brandon Scott"), or, for two words or more, a majority
        of non-person labels for the same string in the document. A title before the span overrides all but the
        name's own words ("Mr. Washington" is a person wherever the city is mentioned). None: it may be a person."""
        words = [token for token in self.tokens[start:end] if not token.is_punct and token.text not in ("'s", "’s")]
        if not words:
            return "no name word"
        if title_key(words[0].text) in _PLACE_PREFIXES and len(words) > 1:
            return f"place prefix '{words[0].text}'"
        if title_key(words[-1].text) in _ORGANISATION_WORDS:
            return f"organisation or place word '{words[-1].text}'"
        if self._title_before(self.tokens[start]) is not None:
            return None
        before = self.tokens[start - 1] if start > 0 else None
        if (words[0].lower_ == "the" or (before is not None and before.lower_ == "the")) \
                and (len(words) > 1 or words[0].tag_ == "NNPS"):  # not "the Whitaker case"
            return "after 'the'"
        after = self.tokens[end] if end < len(self.tokens) else None
        if after is not None and after.text[:1].isupper() and title_key(after.text) in _ALL_TITLES:
            return f"before the title '{after.text}'"
        if len(words) > 1 and self._mostly_non_person(
                self.text[self.tokens[start].idx:words[-1].idx + len(words[-1].text)]):
            return "labelled a place or organisation in most mentions"
        return None

    def _name_spans(self) -> list[_NameSpan]:
        spans = []
        covered: set[int] = set()
        for ent in self.ents:
            if ent.text.isupper():  # an all-caps headline: no new person from it, but mentions of known ones
                continue
            is_person = ent.label_ == "PERSON"
            if not is_person and not self._looks_like_name(ent):
                if ent.label_ in _NON_PERSON_LABELS and len(ent) > 1:
                    self.non_person_words.update(token.text for token in ent if _is_proper(token))
                continue
            covered.update(range(ent.start, ent.end))
            start, end = self._extend_single_name(ent)
            reason = self._non_person_span(start, end) if is_person else None
            if reason is not None:
                self._decline(self.text[slice(*self._chars(start, end))], reason)
                self.non_person_tokens.update(range(start, end))
                self.non_person_words.update(t.text for t in self.tokens[start:end] if _is_proper(t))
                continue
            title = self._title_before(self.tokens[start])
            span = _parse_name(self.text, *self._chars(start, end), title_key(title.text) if title else None,
                               self.common_words)
            if span:
                span.person_label = is_person
                spans.append(span)
        for token in self.tokens:
            key = title_key(token.text)
            if not token.text[:1].isupper() or key not in _NAME_TITLES:
                continue
            end = token.i + 1
            while end < len(self.tokens) and end - token.i <= 3 and end not in covered and self._is_name_token(end):
                end += 1
            if end > token.i + 1:
                span = _parse_name(self.text, *self._chars(token.i + 1, end), key, self.common_words)
                if span:
                    span.person_label = True
                    spans.append(span)
        return spans

    def _chars(self, start: int, end: int) -> tuple[int, int]:
        """Character range of the tokens ``start`` up to (not including) ``end``."""
        last = self.tokens[end - 1]
        return self.tokens[start].idx, last.idx + len(last.text)

    def _looks_like_name(self, ent) -> bool:
        """Whether an ORG or NORP entity may be a person the NER mislabelled ("Marcus Bell" tagged ORG): two or
        three capitalised proper nouns, a census first name, then initials or first names, then a listed surname,
        with no place or organisation word. This is a candidate only: it becomes a person with a title or a
        pronoun (``build``). Places and buildings (GPE, LOC, FAC) are never taken for people this way: "Virginia
        Beach", "Santa Barbara"."""
        words = ent.text.split()  # "Jean-Pierre" is three tokens but one word
        if len(words) >= 3 and not _is_census_first_name(words[0]) and _is_census_first_name(words[1]):
            words = words[1:]  # a job word before the name ("Historian Margaret Ellis"), dropped by _parse_name
        return (ent.label_ in ("ORG", "NORP") and 2 <= len(words) <= 3
                and all(_is_proper(token) for token in ent if token.text != "-")
                and _is_census_first_name(words[0]) and title_key(words[0]) not in _PLACE_PREFIXES
                and all(_INITIALS.fullmatch(w) or _is_census_first_name(w) for w in words[1:-1])
                and _is_listed_surname(words[-1])
                and title_key(words[-1]) not in _ORGANISATION_WORDS)

    def _extend_single_name(self, ent) -> tuple[int, int]:
        """Token range of a PERSON span, widened when the NER cut a name in half ("Marcus [Bell]", "[Marcus] Bell")."""
        start, end = ent.start, ent.end
        if end - start != 1:
            return start, end
        before = self.tokens[start - 1] if start > 0 else None
        after = self.tokens[end] if end < len(self.tokens) else None
        if before is not None and self._is_name_token(before.i) and _is_first_name(before.text) \
                and title_key(before.text) not in NEUTRAL_TITLES and not before.ent_type_:
            return start - 1, end
        if after is not None and self._is_name_token(after.i) and _is_first_name(ent.text) and not after.ent_type_ \
                and title_key(after.text) not in NAME_SUFFIXES | _ALL_TITLES:
            return start, end + 1
        return start, end

    def _is_name_token(self, i: int) -> bool:
        token = self.tokens[i]
        return _is_proper(token) and token.ent_type_ in ("", "PERSON")

    def _title_before(self, token: Token) -> Token | None:
        """The title right before a name: gendered or surname titles capitalised, others ("coach") in any case."""
        if token.i == 0:
            return None
        previous = self.tokens[token.i - 1]
        key = title_key(previous.text)
        if previous.text[:1].isupper() and key in _NAME_TITLES:
            return previous
        return previous if key in NEUTRAL_TITLES else None

    def _add_full_name(self, span: _NameSpan) -> None:
        assert span.first is not None and span.last is not None
        entity = next((e for e in self.found.entities if e.last_name == span.last.text
                       and e.first_name in (None, span.first.text)), None)
        if entity is None:
            entity = self.found.new(span.first.text, span.last.text)
        if entity.first_name is None:
            entity.first_name = span.first.text
            _gender_from_first_name(entity)
        self.found.add_mention(entity, "first_name", span.first)
        self.found.add_mention(entity, "last_name", span.last)
        self.found.anchors.setdefault(entity.entity_id, []).append(span.start)
        if span.titled:
            entity.add_evidence("title")
        elif span.person_label and _is_listed_surname(span.last.text):
            entity.add_evidence("first-name+surname")

    def _add_single_name(self, span: _NameSpan) -> None:
        if span.first is not None:  # a given name after Sir or Dame
            entity = self.found.by_first_name(span.first.text, span.first.start) \
                or self.found.new(span.first.text, None)
            self.found.add_mention(entity, "first_name", span.first)
            entity.add_evidence("title")
            return
        part = span.last
        assert part is not None
        if span.surname_certain:
            entity = self.found.by_last_name(part.text, span.title_gender, part.start, strict=True)
            if entity is None:
                entity = self.found.new(None, part.text)
                if span.title_gender:
                    entity.gender, entity.gender_source = span.title_gender, "title"
            self.found.add_mention(entity, "last_name", part)
            self.found.anchors.setdefault(entity.entity_id, []).append(part.start)
            if span.titled:
                entity.add_evidence("title")
            elif span.initials and span.person_label and _is_listed_surname(part.text):
                entity.add_evidence("initials+surname")
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
        # All-caps headlines write names in capitals ("DENZEL WASHINGTON TO FILM"): the same name, in any case.
        canonical = {name.upper(): name for name in names} | {name: name for name in names}
        pattern = re.compile(r"(?<![\w'’.-])(?:" + "|".join(map(re.escape, sorted(canonical, key=len, reverse=True)))
                             + r")(?![\w-])")
        for match in pattern.finditer(self.text):
            start, written = match.start(), match.group()
            word = canonical[written]
            token = self.token_at.get(start)
            if start in self.found.mentions or token is None or not self._may_be_name(token):
                continue
            part = _NamePart(start, match.end(), written)
            title = self._title_before(token)
            title_gender = TITLE_GENDER.get(title_key(title.text)) if title else None
            titled = title is not None and title_key(title.text) not in _NO_EVIDENCE_TITLES
            entity = self.found.by_last_name(word, title_gender, start)
            if entity is not None and (title or not any(e.first_name == word for e in self.found.entities)):
                self.found.add_mention(entity, "last_name", part)
                if titled:
                    entity.add_evidence("title")
                continue
            entity = self.found.by_first_name(word, start)
            if entity is not None:
                self.found.add_mention(entity, "first_name", part)

    def _may_be_name(self, token: Token) -> bool:
        """Whether an occurrence of a known name string is a mention (step 3 of the module docstring).

        The string is capitalised (matching is case-sensitive), so inside a sentence it is the name even when the
        tagger calls it a noun ("Sandoval" often is). At the start of a sentence it must also be tagged a proper
        noun or act as a subject or possessor, so "Young people" is not a mention of Ms. Young. Tagged as a place,
        date or the like, it must act as a person would ("Sofia had been born", not "flew to Sofia"), and inside a
        longer non-person entity it is part of that entity's name ("Trump Tower").
        """
        if token.i in self.non_person_tokens:
            return False
        if token.ent_type_ == "PERSON":
            return True
        if token.ent_type_:
            ent = self.ent_of.get(token.i)
            if ent is not None and len(ent) > 1 and self._is_known_name(ent):
                return True  # "DENZEL WASHINGTON" (ORG) in a headline is the person named so in the text
            if ent is not None and len(ent) > 1 and not _set_apart(token, ent):
                return False
            if token.ent_type_ not in _MAYBE_PERSON:
                return token.dep_ in _PERSON_LIKE_DEPS and self._named_before(token)
        if _is_proper(token) or not token.is_sent_start:
            return True
        following = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
        return token.dep_ in ("nsubj", "nsubjpass", "poss") or (following is not None and following.text == ",")

    def _is_known_name(self, ent) -> bool:
        """Whether a multi-word entity is exactly the full name of a person found ("Denzel Washington" tagged ORG
        in a headline)."""
        key = _ent_key(ent.text)
        return any(e.first_name and e.last_name and _ent_key(f"{e.first_name} {e.last_name}") == key
                   for e in self.found.entities)

    def _named_before(self, token: Token) -> bool:
        """Whether a person bearing this name was mentioned before ``token``. A place-labelled occurrence of a
        person's name is that person only then, and only as a subject, possessor or object ("George Washington
        ... Washington said"); "Jordan will host talks" before "Michael Jordan" appears is the country."""
        for start, (eid, _, _) in self.found.mentions.items():
            if start >= token.idx:
                continue
            entity = next(e for e in self.found.entities if e.entity_id == eid)
            if token.text.lower() in (name.lower() for name in (entity.first_name, entity.last_name) if name):
                return True
        return False

    def _name_slots(self) -> list[Slot]:
        slots = []
        for eid, kind, part in self.found.mentions.values():
            token = self.token_at.get(part.start)
            slots.append(Slot(part.start, part.end, kind, part.text, eid,
                              ner_label=token.ent_type_ if token is not None else None))
        return slots

    def _title_slots(self) -> list[Slot]:
        slots = []
        for eid, _, part in self.found.mentions.values():
            token = self.token_at.get(part.start)
            title = self._title_before(token) if token is not None else None
            if title is not None and title_key(title.text) in TITLE_GENDER and title.text[:1].isupper():
                self.titles.setdefault(eid, []).append(title)
                slots.append(Slot(title.idx, title.idx + len(title.text), "title", title.text, eid,
                                  ner_label=title.ent_type_))
                next(e for e in self.found.entities if e.entity_id == eid).add_evidence("title")
        return slots

    def _set_gender_from_titles(self) -> None:
        for entity in self.found.entities:
            titles = Counter(TITLE_GENDER[title_key(t.text)] for t in self.titles.get(entity.entity_id, []))
            if titles:
                entity.gender, entity.gender_source = titles.most_common(1)[0][0], "title"

    def _pronoun_slots(self) -> list[Slot]:
        positions = {e.entity_id: self.found.mention_positions(e.entity_id) for e in self.found.entities}
        slots = []
        for token in self.tokens:
            gender = PRONOUN_GENDER.get(token.text.lower())
            if gender is None:
                continue
            entity = self._attribute(token, gender, positions)
            if entity is not None:
                entity.add_evidence("pronoun")
            slots.append(Slot(token.idx, token.idx + len(token.text), "pronoun", token.text,
                              entity.entity_id if entity else None, _pronoun_form(token), token.ent_type_))
        return slots

    @staticmethod
    def _previous_sentence_start(token: Token) -> int:
        """Character offset where the sentence before the token's sentence starts (its own start when first)."""
        sentence = token.sent
        return token.doc[sentence.start - 1].sent.start_char if sentence.start > 0 else sentence.start_char

    def _attribute(self, token: Token, gender: str, positions: dict[str, list[int]]) -> TemplateEntity | None:
        preceding = []
        for entity in self.found.entities:
            before = [p for p in positions[entity.entity_id] if p < token.idx]
            if before:
                preceding.append((before[-1], entity))
        preceding.sort(key=lambda item: item[0], reverse=True)
        if preceding and preceding[0][1].gender is None and preceding[0][1].evidence is not None \
                and token.text.lower() in ("he", "she") and token.head.dep_ not in ("relcl", "acl") \
                and preceding[0][0] >= self._previous_sentence_start(token):
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
        for token in self.tokens:
            if token.text.lower() not in CONTENT_WORD_GENDER:
                continue
            eid = _syntactic_owner(token, owner)
            if eid is not None:
                slots.append(Slot(token.idx, token.idx + len(token.text), "content_word", token.text, eid))
        return slots


def _ent_key(text: str) -> str:
    """A name string compared across mentions: lower case, without a leading article, possessive or full stop."""
    key = re.sub(r"^the\s+", "", text.strip().lower())
    key = re.sub(r"['’]s$", "", key)
    return key.rstrip(".,;: ")


def _is_proper(token: Token) -> bool:
    """Whether a token is a capitalised proper noun (tag NNP/NNPS)."""
    return token.tag_ in _PROPER_NOUN_TAGS and token.text[:1].isupper()


def _set_apart(token: Token, ent) -> bool:
    """Whether punctuation separates a token from the rest of a multi-word entity ("Lakeview General, Sofia")."""
    neighbours = [token.doc[i] for i in (token.i - 1, token.i + 1) if ent.start <= i < ent.end]
    return all(neighbour.is_punct for neighbour in neighbours)


def _gender_from_first_name(entity: TemplateEntity) -> None:
    """Give an entity the census gender of its first name (§1.2 rule), until titles or pronouns say otherwise."""
    gender = first_name_gender(entity.first_name) if entity.first_name else None
    if gender:
        entity.gender, entity.gender_source = gender, "first_name"


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
        following is not None and following.tag_ in _NOMINAL_TAGS and token.dep_ != "attr"
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
        entity = TemplateEntity(entity_id, first, last, evidence="gold")
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
        proper = [token for token in span if _is_proper(token)]
        if not proper:
            return None
        title = self.doc[proper[0].i - 1] if proper[0].i > 0 else None
        title_word = title_key(title.text) if title is not None and title_key(title.text) in _NAME_TITLES else None
        return _parse_name(self.text, proper[0].idx, proper[-1].idx + len(proper[-1].text), title_word,
                           _lowercase_words(self.text))


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
    capitalized = frozenset(w for w in re.findall(r"\b[^\W\d_][\w'-]+\b", text) if w[0].isupper())
    return EntityTemplate(document_id, text, kept, ordered, capitalized)
