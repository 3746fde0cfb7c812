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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bias_core.common import nlp
from bias_core.perturb.lexicon import PRONOUN_GENDER

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

_CLAUSE_DEPS = frozenset({"ccomp", "xcomp", "advcl", "conj"})
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
_PROPER = frozenset({"NNP", "NNPS"})
_NAMING_VERBS = frozenset({"known", "named", "called", "identified", "dubbed"})  # "a man known as Nick"
_PARSE_CACHE = 256  # originals whose ties are kept between calls (the Audit page reviews the same corpus again)


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
        for text, doc in zip(missing, nlp.parse(missing, disable=("lemmatizer", "attribute_ruler")), strict=True):
            _remember((text, key), tuple(_ties(doc, nouns)))
    return {text: _cached[text, key] for text in texts}


_cached: dict[tuple[str, frozenset], tuple[GenderedWord, ...]] = {}


def _remember(key: tuple[str, frozenset], value: tuple[GenderedWord, ...]) -> None:
    if len(_cached) >= _PARSE_CACHE:
        _cached.pop(next(iter(_cached)))
    _cached[key] = value


def _ties(doc: Doc, nouns: dict[str, str]):
    for token in doc:
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
    sentence = pronoun.sent
    if sentence.start == 0 or any(token.ent_type_ == "PERSON" for token in pronoun.doc[sentence.start:pronoun.i]):
        return set()
    previous = pronoun.doc[sentence.start - 1].sent
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
