"""Which gendered words the parse ties to which names, for checking gender agreement after a swap (issue 21).

A swap that gives a person another gender must leave no pronoun or gendered noun (man, woman, boy, mother …) that
still refers to the old gender. The perturbation rewrites the words it attributes to the person (``pronouns``); this
module asks spaCy's parse, independently, which names each gendered word of an original refers to, so the swap review
(``bias_core.perturb.review_checks.gender_agreement``) can list a word whose gender in an input disagrees with the
person the parse ties it to, in the same sentence or the next:

- a subject pronoun of a reported or continued clause belongs to the subject of the clause it hangs from ("Nick
  told Channel Ten she is sure": *she* → Nick); a reflexive, or a possessive on the clause's object, to the clause's
  own subject ("Nick hurt himself", "Nick lost his wallet"); never an object pronoun of the verb whose subject the
  name is, which binding rules out ("Nick approached her" is somebody else);
- the subject pronoun of a sentence belongs to the subject of the sentence before, when that sentence names no one
  else and its own names no one before it ("Nick spoke to reporters. She said …");
- a gendered noun belongs to a name tied to it by a compound, an apposition, a copula or a clause that names it ("a
  man known as Nick", "Nick, the chairman", "Nick is a father"), and "the woman" as the subject of a sentence to the
  previous sentence's subject as above; a kinship noun with a possessive ("Nick's mother") is somebody else.

Owners are given as the character offsets of the names' proper-noun tokens in the original.

**The coherence check** (issue 27, item 5; ``check_coherence``) runs after every name-swap perturbation, on each input
and the ties of its original, taken from the one parse the template was built from (``remember_ties``; mapped into the
input through the substitution offsets, no re-parse). It flags, per input:

- ``gender``: a pronoun or gendered noun tied to a swapped person whose gender in the input differs from that
  person's there (the review's ``gender_agreement`` before issue 27);
- ``pronoun``: a pronoun attribution left as written because it was ambiguous (``pronouns``) whose gender in the input
  is that of none of the people it may refer to;
- ``name``: a person with two names in one input — an original first or last name the input replaced elsewhere but
  still holds, or two mentions replaced differently;
- ``title``: a gendered title (Mr., Mrs., Ms., Miss, Sir, Dame, Lord, Lady, in any spelling) right before a mention of
  a person of the other gender in the input, or a generational suffix (Jr., Sr.) after a woman's name.

A flag cannot be fixed by rewriting one word safely, so it lowers the swap confidence of the person it concerns in that
input by one level (high → medium → low) with the reason "coherence: …", caps it at ``medium`` in the original's other
inputs ("coherence: flagged in another input …": a person whose swap went wrong once is doubtful in every input), and is
stored with the input (``extra["coherence"]``) for the swap review, which lists these first with the share of inputs
carrying any. Before the flags, the swap confidence is capped at ``medium`` where the original's attribution rested on
a guess (``person_evidence.swap_confidence_caps``: a nearest-person pronoun, an ambiguous one, a surname shared or
nearly spelled alike), so that ``high`` means right — a person, and coherent — on the tuning gold (issue 27, Deliver 5).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bias_core.common import nlp
from bias_core.common.nlp import sentence_of
from bias_core.common.records import Entity, Input, Substitution
from bias_core.perturb.lexicon import CONTENT_WORD_GENDER, GENDERS, PRONOUN_GENDER, TITLE_GENDER, title_key
from bias_core.perturb.names import first_name_gender
from bias_core.perturb.person_evidence import swap_confidence_caps
from bias_core.perturb.pronoun_referents import PronounReading, readings_of

if TYPE_CHECKING:
    from spacy.tokens import Token

    from bias_core.perturb.entity_template import EntityTemplate

_CLAUSE_DEPS = frozenset({"ccomp", "xcomp", "advcl", "conj"})
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
_PROPER = frozenset({"NNP", "NNPS"})
_NAMING_VERBS = frozenset({"known", "named", "called", "identified", "dubbed"})  # "a man known as Nick"
_PARSE_CACHE = 4096  # originals whose ties are kept between calls (a perturbation's chunk; the Audit page's corpus)
NAME_KINDS = frozenset({"first_name", "last_name", "full_name", "politician_name"})
# Gendered role nouns that Steen & Markert's Table 18 does not list; the gendered-word table of ``lexicon`` (issue 27)
# holds most of them, and those it lacks are still checked.
ROLE_NOUNS_OUTSIDE_TABLE_18 = {
    **dict.fromkeys(("spokesman", "spokesmen", "congressman", "congressmen", "businessman", "businessmen",
                     "councilman", "councilmen", "assemblyman", "alderman", "policeman", "policemen", "fireman",
                     "firemen", "salesman", "sportsman", "chairmen", "headmaster", "grandfather", "grandson",
                     "boyfriend", "widower", "stepfather", "stepson"), "male"),
    **dict.fromkeys(("spokeswoman", "spokeswomen", "congresswoman", "congresswomen", "businesswoman",
                     "businesswomen", "councilwoman", "councilwomen", "assemblywoman", "alderwoman", "policewoman",
                     "policewomen", "firewoman", "saleswoman", "sportswoman", "chairwomen", "headmistress",
                     "grandmother", "granddaughter", "girlfriend", "widow", "stepmother", "stepdaughter", "mom",
                     "hostess", "ballerina", "ballerinas", "seamstress", "seamstresses"), "female"),
    # no counterpart of one word: flagged beside a person of the other gender, never rewritten
    **dict.fromkeys(("doorman", "doormen"), "male"),
}
ROLE_NOUNS_OUTSIDE_TABLE_18 = {word: gender for word, gender in ROLE_NOUNS_OUTSIDE_TABLE_18.items()
                               if word not in CONTENT_WORD_GENDER and word not in TITLE_GENDER}
GENDERED_NOUNS = {**ROLE_NOUNS_OUTSIDE_TABLE_18, **CONTENT_WORD_GENDER}
CONFIDENCE_DOWN = {"high": "medium", "medium": "low", "low": "low"}
_TITLE_BEFORE = re.compile(r"(?<![\w.])(?P<title>" + "|".join(word.capitalize() for word in TITLE_GENDER)
                           + r")(?:\.|\b)\s+$")
_SUFFIX_AFTER = re.compile(r"^,?\s+(?P<suffix>Jr|Sr|Jnr|Snr)\b\.?")


@dataclass(frozen=True)
class GenderedWord:
    """A pronoun or gendered noun of an original, its gender, and the names the parse ties it to."""

    start: int
    end: int
    word: str
    gender: str
    owners: frozenset[int]  # character offsets of proper-noun tokens of the names it refers to


def gendered_word_ties(texts: Sequence[str], nouns: dict[str, str]) -> dict[str, tuple[GenderedWord, ...]]:
    """Per text, its gendered words that the parse ties to at least one name. ``nouns`` maps gendered nouns (lower
    case) to their gender; the texts not seen before are parsed in one batched call."""
    key = frozenset(nouns.items())
    missing = [text for text in dict.fromkeys(texts) if (text, key) not in _cached]
    if missing:
        for text, doc in zip(missing, nlp.parse(missing, disable=("lemmatizer", "attribute_ruler"),
                                                  blank_lines_split=True), strict=True):
            _remember((text, key), tuple(_ties(doc, nouns)))
    return {text: _cached[text, key] for text in texts}


_cached: dict[tuple[str, frozenset], tuple[GenderedWord, ...]] = {}


def remember_ties(tokens: Sequence[Token], nouns: dict[str, str] = GENDERED_NOUNS) -> None:
    """Keep the ties of an original from the parse its template is built from (its tokens, already made), so the
    coherence check after the perturbation (and the swap review) need not parse it again."""
    if tokens:
        _remember((tokens[0].doc.text, frozenset(nouns.items())), tuple(_ties(tokens, nouns)))


def _remember(key: tuple[str, frozenset], value: tuple[GenderedWord, ...]) -> None:
    if len(_cached) >= _PARSE_CACHE:
        _cached.pop(next(iter(_cached)))
    _cached[key] = value


def _ties(tokens: Iterable[Token], nouns: dict[str, str]):
    for token in tokens:
        word = token.text.lower()
        gender = PRONOUN_GENDER.get(word) or nouns.get(word)
        if gender is None:
            continue
        owners = _pronoun_owners(token) if word in PRONOUN_GENDER else _noun_owners(token)
        if owners:
            yield GenderedWord(token.idx, token.idx + len(token.text), token.text, gender, frozenset(owners))


def _names_in(tokens) -> set[int]:
    """Offsets of the proper nouns among ``tokens`` (whatever the NER calls them: the review matches them with the
    person's mentions)."""
    return {token.idx for token in tokens if token.tag_ in _PROPER}


def _subject_names(verb: Token, exclude: Token | None = None) -> set[int]:
    """The names a verb's subject stands for: the subject's own name, or those a subject noun is tied to ("a man
    known as Nick"); not a possessor ("Smith's mother")."""
    subject = _subject(verb, exclude)
    return set() if subject is None else _names_of(subject)


def _subject(verb: Token, exclude: Token | None = None) -> Token | None:
    return next((child for child in verb.children
                 if child.dep_ in _SUBJECT_DEPS and (exclude is None or child.i != exclude.i)), None)


def _names_of(subject: Token) -> set[int]:
    return _full_name(subject) if subject.tag_ in _PROPER else _noun_owners(subject)


def _clause_verb(token: Token) -> Token:
    """The verb of the clause a word is in (the word's head, climbing over nouns and prepositions)."""
    head = token.head
    while head.tag_[:2] not in ("VB", "MD") and head.head.i != head.i:
        head = head.head
    return head


def _reporting_subject(verb: Token, exclude: Token, climb: frozenset[str]) -> Token | None:
    """The first subject met from ``verb`` upwards through clauses of the kinds in ``climb``: a reported or
    continued clause belongs to the subject of the clause it hangs from ("Nick told Ten she is sure")."""
    clause = verb
    while True:
        subject = _subject(clause, exclude)
        if subject is not None or clause.dep_ not in climb or clause.head.i == clause.i:
            return subject
        clause = clause.head


def _pronoun_owners(pronoun: Token) -> set[int]:
    word = pronoun.text.lower()
    verb = _clause_verb(pronoun)
    if pronoun.dep_ in _SUBJECT_DEPS:
        subject = _reporting_subject(verb.head, pronoun, _CLAUSE_DEPS) \
            if verb.dep_ in _CLAUSE_DEPS and verb.head.i != verb.i else None
        owners = set() if subject is None else _names_of(subject)
        if not owners and verb.dep_ == "ROOT":
            owners = _previous_subject(pronoun)
        return owners
    if word in ("himself", "herself") or (pronoun.dep_ == "poss" and pronoun.head.dep_ in ("dobj", "attr")):
        subject = _reporting_subject(verb, pronoun, frozenset({"conj"}))
        return set() if subject is None else _names_of(subject)
    return set()  # an object pronoun (binding), or a possessive away from the clause's object


def _previous_subject(pronoun: Token) -> set[int]:
    """The names of the previous sentence's subject (or of the subject of what it reports), when that sentence names
    no one else and the word's own sentence names no one before it."""
    sentence = sentence_of(pronoun)
    if sentence.start == 0 or any(token.ent_type_ == "PERSON" for token in pronoun.doc[sentence.start:pronoun.i]):
        return set()
    previous = sentence_of(pronoun.doc[sentence.start - 1])
    # the subject of the sentence, or of what it reports ("Police said Jane Cole was driving")
    clauses = [previous.root, *(child for child in previous.root.children if child.dep_ == "ccomp")]
    owners = next((names for clause in clauses if (names := _subject_names(clause))), set())
    others = _names_in(token for token in previous if token.ent_type_ == "PERSON") - owners
    return owners if owners and not others else set()


def _noun_owners(noun: Token) -> set[int]:
    if any(child.dep_ == "poss" for child in noun.children):
        return set()  # "Nick's mother" is somebody else
    owners: set[int] = set()
    if noun.dep_ in ("compound", "appos") and noun.head.tag_ in _PROPER:
        owners |= _full_name(noun.head)
    for child in noun.children:
        if child.dep_ in ("appos", "compound") and child.tag_ in _PROPER:
            owners |= _full_name(child)
        elif child.dep_ == "acl" and child.text.lower() in _NAMING_VERBS:
            owners |= _names_in(child.subtree)
    if noun.dep_ == "attr":
        owners |= _subject_names(noun.head)
    if not owners and noun.dep_ in _SUBJECT_DEPS and noun.head.dep_ == "ROOT" \
            and any(child.lower_ == "the" for child in noun.children):
        owners = _previous_subject(noun)  # "Jane Cole was driving. The woman was taken to hospital."
    return owners


def _full_name(token: Token) -> set[int]:
    """A proper noun with the proper nouns compounded with it ("Diane" and "Sasser" of "Sasser")."""
    return _names_in([token, *(child for child in token.children if child.dep_ == "compound")])


def gender_of(word: str, nouns: dict[str, str]) -> str | None:
    """The gender of a pronoun or gendered noun as written (None for other words)."""
    lower = word.lower()
    return PRONOUN_GENDER.get(lower) or nouns.get(lower)


@dataclass(frozen=True)
class CoherenceFlag:
    """One place where an input contradicts itself (module docstring): its kind, the person it concerns, the span in
    the input and what is wrong."""

    kind: str  # "gender", "pronoun", "name" or "title"
    entity_ids: tuple[str, ...]
    start: int
    end: int
    span: str
    note: str

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "entity_ids": list(self.entity_ids), "start": self.start, "end": self.end,
                "span": self.span, "note": self.note}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CoherenceFlag:
        return cls(str(data.get("kind", "")), tuple(data.get("entity_ids") or ()), int(data.get("start", 0)),
                   int(data.get("end", 0)), str(data.get("span", "")), str(data.get("note", "")))


def check_coherence(template: EntityTemplate, inputs: Iterable[Input]) -> list[Input]:
    """Scan each input of one original for incoherence (module docstring), store the flags with it and lower the
    confidence of the people they concern; return the inputs. The template gives the original, its people's
    original genders (for those an input leaves as they were) and, through its text, the ties and pronoun readings
    kept from its parse."""
    original = template.text
    genders = {entity.entity_id: entity.gender for entity in template.entities}
    ties = gendered_word_ties([original], GENDERED_NOUNS)[original]
    readings = readings_of(original) or ()
    checked = list(inputs)
    flagged = [coherence_flags(item, ties, original, readings, genders) for item in checked]
    caps = swap_confidence_caps(template, readings)
    elsewhere = {entity_id: f"coherence: flagged in another input of this original: {flag.note}"
                 for flags in reversed(flagged) for flag in reversed(flags) for entity_id in flag.entity_ids}
    for item, flags in zip(checked, flagged, strict=True):
        if flags:
            item.extra["coherence"] = [flag.to_dict() for flag in flags]
        here = {entity_id for flag in flags for entity_id in flag.entity_ids}
        item.substitutions = lowered(capped(item.substitutions, {**caps, **{
            entity_id: note for entity_id, note in elsewhere.items() if entity_id not in here}}), flags)
    return checked


def capped(substitutions: list[Substitution], caps: dict[str, str]) -> list[Substitution]:
    """The substitutions with a ``high`` swap confidence of each person in ``caps`` (entity id → why) set to
    ``medium``, the reason added after the evidence's (``person_evidence.swap_confidence_caps``; a person flagged in
    another input of the same original)."""
    return [dataclasses.replace(sub, swap_confidence="medium",
                                swap_confidence_reason=f"{sub.swap_confidence_reason}; but {caps[sub.entity_id]}"
                                if sub.swap_confidence_reason else caps[sub.entity_id])
            if sub.entity_id in caps and sub.swap_confidence == "high" else sub for sub in substitutions]


def lowered(substitutions: list[Substitution], flags: Sequence[CoherenceFlag]) -> list[Substitution]:
    """The substitutions with the swap confidence of every flagged person one level lower, the first flag's note
    as the reason."""
    notes: dict[str, str] = {}
    for flag in flags:
        for entity_id in flag.entity_ids:
            notes.setdefault(entity_id, f"coherence: {flag.note}")
    return [dataclasses.replace(sub, swap_confidence=CONFIDENCE_DOWN[sub.swap_confidence],
                                swap_confidence_reason=notes[sub.entity_id])
            if sub.entity_id in notes and sub.swap_confidence in CONFIDENCE_DOWN else sub for sub in substitutions]


def stored_flags(item: Input) -> list[CoherenceFlag] | None:
    """The coherence flags the perturbation stored with an input (None when it stored none)."""
    stored = item.extra.get("coherence")
    return [CoherenceFlag.from_dict(flag) for flag in stored] if isinstance(stored, list) else None


def coherence_flags(item: Input, ties: Sequence[GenderedWord], original: str,
                    readings: Sequence[PronounReading] = (), genders: dict[str, str | None] | None = None,
                    ) -> list[CoherenceFlag]:
    """Every flag of one input (module docstring), in the order of the text."""
    placed = original_positions(item)
    flags = gender_disagreements(item, ties, original, placed)
    flags += _unresolved_pronouns(item, readings, placed, genders or {})
    flags += _two_names(item, placed)
    flags += _wrong_titles(item, original, placed)
    return sorted(flags, key=lambda flag: (flag.start, flag.kind))


def gender_disagreements(item: Input, ties: Sequence[GenderedWord], original: str,
                         placed: list[tuple[Substitution, int]]) -> list[CoherenceFlag]:
    """Pronouns and gendered nouns tied to a swapped person whose gender in the input is not that person's there."""
    flags = []
    at = {start: sub for sub, start in placed}
    for entity in item.entities:
        gender = entity_gender(entity)
        mentions = mention_offsets(original, entity, placed)
        if gender is None or not mentions:
            continue
        before = original_gender(item, entity)
        for word in ties:
            sub = at.get(word.start)
            written = sub.replacement if sub is not None else word.word
            now = gender_of(written, GENDERED_NOUNS)
            if now is None or now == gender or not word.owners & mentions:
                continue
            if before is not None and word.gender != before:
                continue  # the word disagreed with this person before the swap too: it is somebody else's
            start = to_input(placed, word.start)
            other = f"; the perturbation gave it to {sub.entity_id}" if sub is not None and sub.entity_id \
                and sub.entity_id != entity.entity_id else ""
            flags.append(CoherenceFlag("gender", (entity.entity_id,), start, start + len(written), written,
                                       f"'{written}' ({now}) refers to {_name(entity)}, who is {gender} in this "
                                       f"input{other}"))
    return flags


def _unresolved_pronouns(item: Input, readings: Sequence[PronounReading], placed: list[tuple[Substitution, int]],
                         genders: dict[str, str | None]) -> list[CoherenceFlag]:
    """Ambiguous pronouns left as written whose gender in the input is that of none of the people they may be."""
    at = {start: sub for sub, start in placed}
    in_input = {entity.entity_id: entity for entity in item.entities}
    flags = []
    for reading in readings:
        if reading.status != "ambiguous" or not reading.candidates:
            continue
        sub = at.get(reading.start)
        written = sub.replacement if sub is not None else reading.word
        now = PRONOUN_GENDER.get(written.lower())
        theirs = {entity_gender(in_input[c]) if c in in_input else genders.get(c) for c in reading.candidates}
        if now is None or now in theirs or None in theirs:
            continue
        start = to_input(placed, reading.start)
        names = " or ".join(_name(in_input[c]) if c in in_input else c for c in reading.candidates)
        flags.append(CoherenceFlag("pronoun", tuple(reading.candidates), start, start + len(written), written,
                                   f"'{written}' was left as written ({reading.note}); it may refer to {names}, "
                                   f"not {now} in this input"))
    return flags


def _two_names(item: Input, placed: list[tuple[Substitution, int]]) -> list[CoherenceFlag]:
    """A person with two names in one input: an original name the input replaced but still holds elsewhere, or two
    mentions replaced differently."""
    flags = []
    current = {part for entity in item.entities for name in (entity.first_name, entity.last_name) if name
               for part in name.split()}
    spans = [(sub.start, sub.end) for sub in item.substitutions]
    for entity in item.entities:
        for old, new in ((entity.original_first_name, entity.first_name),
                         (entity.original_last_name, entity.last_name)):
            if not old or not new or old == new or old in current or old not in item.text:
                continue
            for match in re.finditer(r"(?<![\w'’-])" + re.escape(old) + r"(?![\w-])", item.text):
                if any(s <= match.start() < e for s, e in spans) or _starts_sentence_before_lowercase(item.text, match):
                    continue
                flags.append(CoherenceFlag("name", (entity.entity_id,), match.start(), match.end(), old,
                                           f"'{old}' is still written for {_name(entity)}, renamed '{new}' elsewhere"))
        seen: dict[tuple[str, str], str] = {}
        for sub in item.substitutions:
            if sub.entity_id == entity.entity_id and sub.kind in ("first_name", "last_name"):
                kept = seen.setdefault((sub.kind, sub.original), sub.replacement)
                if kept != sub.replacement:
                    flags.append(CoherenceFlag("name", (entity.entity_id,), sub.start, sub.end, sub.replacement,
                                               f"'{sub.original}' became both '{kept}' and '{sub.replacement}'"))
    return flags


def _starts_sentence_before_lowercase(text: str, match: re.Match) -> bool:
    """A capitalised common word starting a sentence ("Will the …"), not a name."""
    following = re.match(r"\s+(\w)", text[match.end():])
    return bool(re.search(r"(?:\A|[.!?:;\"“”]\s+|\n\s*)\Z", text[:match.start()])) \
        and bool(following and following.group(1).islower())


def _wrong_titles(item: Input, original: str, placed: list[tuple[Substitution, int]]) -> list[CoherenceFlag]:
    """A gendered title right before a mention of a person of the other gender, or Jr./Sr. after a woman's name."""
    flags = []
    for entity in item.entities:
        gender = entity_gender(entity)
        if gender is None:
            continue
        for position in sorted(to_input(placed, offset) for offset in mention_offsets(original, entity, placed)):
            title = _TITLE_BEFORE.search(item.text, max(0, position - 12), position)
            if title is not None and TITLE_GENDER[title_key(title["title"])] != gender:
                flags.append(CoherenceFlag("title", (entity.entity_id,), title.start(), title.end("title"),
                                           title["title"], f"'{title['title']}' before {_name(entity)}, who is "
                                           f"{gender} in this input"))
            end = position + len(item.text[position:].split(maxsplit=1)[0]) if item.text[position:].strip() else position
            suffix = _SUFFIX_AFTER.match(item.text[end:end + 8])
            if suffix is not None and gender == "female":
                flags.append(CoherenceFlag("title", (entity.entity_id,), end + suffix.start("suffix"),
                                           end + suffix.end("suffix"), suffix["suffix"],
                                           f"'{suffix['suffix']}' after {_name(entity)}, who is female in this input"))
    return flags


def _name(entity: Entity) -> str:
    return " ".join(n for n in (entity.first_name, entity.last_name) if n) or entity.entity_id


def original_positions(item: Input) -> list[tuple[Substitution, int]]:
    """Each substitution with the start of its span in the original text."""
    shift, placed = 0, []
    for sub in sorted(item.substitutions, key=lambda s: s.start):
        placed.append((sub, sub.start - shift))
        shift += len(sub.replacement) - len(sub.original)
    return placed


def to_input(placed: list[tuple[Substitution, int]], position: int) -> int:
    """Map a position of the original to the input through the substitutions before it."""
    shift = sum(len(sub.replacement) - len(sub.original) for sub, start in placed if start < position)
    return position + shift


def mention_offsets(original: str, entity: Entity, placed: list[tuple[Substitution, int]]) -> set[int]:
    """Where the original names a person: the starts of its swapped spans and of every whole-word occurrence of its
    original first or last name (a gender swap leaves the last name as it was)."""
    offsets = {start for sub, start in placed if sub.entity_id == entity.entity_id and sub.kind in NAME_KINDS}
    for name in (entity.original_first_name, entity.original_last_name):
        for word in (name or "").split():
            offsets.update(word_offsets(original, word))
    return offsets


@functools.lru_cache(maxsize=8192)
def word_offsets(text: str, word: str) -> tuple[int, ...]:
    """Where ``word`` stands in ``text`` as a whole word (kept: every input of an original asks the same)."""
    if word not in text:
        return ()
    return tuple(m.start() for m in re.finditer(r"(?<![\w'’-])" + re.escape(word) + r"(?![\w-])", text))


def original_gender(item: Input, entity: Entity) -> str | None:
    """The gender a person had in the original: that of the pronouns, titles or gendered nouns the input rewrote for
    them, else of their original first name in the census, else None."""
    for sub in item.substitutions:
        if sub.entity_id == entity.entity_id and sub.kind in ("pronoun", "title", "content_word"):
            gender = PRONOUN_GENDER.get(sub.original.lower()) or TITLE_GENDER.get(title_key(sub.original)) \
                or GENDERED_NOUNS.get(sub.original.lower())
            if gender:
                return gender
    return first_name_gender(entity.original_first_name) if entity.original_first_name else None


def entity_gender(entity: Entity) -> str | None:
    """The gender an input gives a person: the group of a gender perturbation, else the ``gender`` a race
    perturbation records with the entity."""
    if entity.group in GENDERS:
        return entity.group
    gender = entity.extra.get("gender")
    return gender if gender in GENDERS else None
