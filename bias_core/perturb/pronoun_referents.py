"""What the parse says a gendered pronoun refers to, before any named person is considered (issue 27, item 2).

A pronoun is re-gendered with a swapped person only when it resolves to that person without ambiguity
(``pronouns.attribute``); this module reads the clues the parse gives:

- **the clause subject above the pronoun** (a simplified Hobbs search): climbing from the pronoun's clause through
  reported, continued, adverbial, relative and controlled clauses, the first subject that could be the pronoun's
  antecedent is it ("Sarvis discusses his background", "Nick told reporters he was sure"). Binding: a reflexive goes to
  its own clause's subject; an object pronoun never does ("Mr. Abel says he defended him": *him* is somebody else),
  so its search starts one clause up; a subject pronoun starts one clause up too.
- **person nouns**: a singular common noun that names a person — a gendered noun of ``lexicon`` (spokesman, widow) or
  one of the WordNet nouns whose every sense is a person (judge, lawyer, vicar; ``data/perturb/person_nouns.tsv``) —
  that no compound, apposition, copula or "known as" ties to a name is an *unnamed person*: a pronoun whose antecedent
  it is belongs to nobody a swap renames ("A spokesman for Acme declined. He said …").
- a person's full name (a PERSON span of two words or more) that is no swapped entity (a name the finder left out) is
  somebody else too, and so is a single PERSON word that is a census first name of the pronoun's gender ("Sue said
  since she was getting up", Sue declined).

Gender: a gendered noun agrees with a pronoun of its gender only; the other person nouns agree with both.
"""

from __future__ import annotations

import csv
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bias_core.common.nlp import sentence_of
from bias_core.common.paths import DATA_DIR
from bias_core.perturb.lexicon import CONTENT_WORD_GENDER, CONTENT_WORD_KIND, PRONOUN_GENDER
from bias_core.perturb.names import first_name_gender
from bias_core.safety.errors import InputError

if TYPE_CHECKING:
    from spacy.tokens import Token

PERSON_NOUNS_PATH = DATA_DIR / "perturb" / "person_nouns.tsv"
SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
OBJECT_DEPS = frozenset({"dobj", "dative", "iobj", "obj"})
# The clauses a search climbs out of to the clause they hang from: reported (ccomp), controlled (xcomp), adverbial
# (advcl), coordinated (conj), relative (relcl, acl) and loosely attached (parataxis) clauses.
CLIMB_DEPS = frozenset({"ccomp", "xcomp", "advcl", "conj", "relcl", "acl", "parataxis", "pcomp"})
# A subject pronoun climbs only out of reported, controlled, adverbial and coordinated clauses: the subject of a
# relative clause is its relative pronoun, whose antecedent is a noun, not the pronoun's.
SUBJECT_CLIMB_DEPS = frozenset({"ccomp", "xcomp", "advcl", "conj", "parataxis"})
# The most clauses the search climbs above a pronoun. On the tuning half of the issue-27 gold no antecedent lies more
# than 3 clauses up; without a bound, a run-on sentence of thousands of coordinated clauses ("…, and item 7999
# mattered to him") made the search quadratic: 4.8 minutes for one 40,000-word sentence.
MAX_CLAUSES_UP = 12
# Where a person noun stands as a participant of a clause: its subject or object (issue 27, item 2).
PARTICIPANT_DEPS = frozenset({*SUBJECT_DEPS, *OBJECT_DEPS})
_NAMING_VERBS = frozenset({"known", "named", "called", "identified", "dubbed"})
_PROPER = frozenset({"NNP", "NNPS"})


@dataclass(frozen=True)
class Referent:
    """What a pronoun's search found: a swapped entity (``entity_id``), or an unnamed person (``entity_id`` None)
    with the word that shows it (``word``, ``start``: its offset in the original)."""

    entity_id: str | None
    word: str = ""
    start: int = -1


UNRESOLVED = Referent(None)  # a pronoun left unresolved (ambiguous): one that continues it is unresolved too


@dataclass(frozen=True)
class PronounReading:
    """What attribution made of one gendered pronoun of an original: ``status`` "entity" (given to ``entity_id``),
    "unnamed" (an unnamed person's, ``referent`` the word that shows it: left alone), "ambiguous" (``candidates``, the
    swapped people it may be, nearest first: left as written and flagged) or "none" (no person it can refer to)."""

    start: int
    end: int
    word: str
    gender: str
    status: str
    entity_id: str | None
    candidates: tuple[str, ...]
    note: str
    referent: str = ""
    referent_start: int = -1


_READINGS_KEPT = 4096  # originals whose readings are kept for the coherence check (a perturbation's chunk is 500)
_readings: dict[str, tuple[PronounReading, ...]] = {}


def remember_readings(text: str, readings: Sequence[PronounReading]) -> None:
    """Keep what attribution made of an original's pronouns, for the coherence check after the perturbation (the
    template is built from the one parse; the check must not parse again)."""
    _readings.pop(text, None)
    if len(_readings) >= _READINGS_KEPT:
        _readings.pop(next(iter(_readings)))
    _readings[text] = tuple(readings)


def readings_of(text: str) -> tuple[PronounReading, ...] | None:
    """The pronoun readings of an original built in this process (None when not built here or forgotten)."""
    return _readings.get(text)


@functools.cache
def person_nouns(path: Path = PERSON_NOUNS_PATH) -> frozenset[str]:
    """The common nouns all of whose senses are people (lower case), read from ``person_nouns.tsv``."""
    if not path.is_file():
        raise InputError(str(path), "person-noun table not found", hint="reinstall summbias")
    with path.open(newline="", encoding="utf-8") as stream:
        return frozenset(row["noun"].strip().lower() for row in csv.DictReader(stream, delimiter="\t")
                         if row.get("noun", "").strip())


def noun_gender(token: Token) -> str | None:
    """The gender of a gendered person noun (None for a neutral one or any other word)."""
    return CONTENT_WORD_GENDER.get(token.text.lower())


def is_person_noun(token: Token) -> bool:
    """Whether a token is a singular common noun naming a person (module docstring), also capitalised as a role
    ("the Petitioner was arrested when he", "Petitioner contends"): a proper-noun tag on a person noun that is in no
    entity, is no title before a name ("Senator Ames" is a name) and names no office ("the United Nations High
    Commissioner for Refugees")."""
    word = token.text.lower()
    if token.tag_ == "NNP":
        return not token.ent_type_ and token.dep_ != "compound" and word in person_nouns() \
            and not any(child.dep_ in ("compound", "amod", "prep", "appos") for child in token.children)
    return token.tag_ == "NN" and (word in CONTENT_WORD_GENDER or word in person_nouns())


def agrees(token: Token, gender: str) -> bool:
    """Whether a person noun may be the antecedent of a pronoun of ``gender``."""
    return noun_gender(token) in (None, gender)


def clause_verb(token: Token) -> Token:
    """The verb of the clause a word is in (its head, climbing over nouns and prepositions)."""
    head = token.head
    while head.tag_[:2] not in ("VB", "MD") and head.head.i != head.i:
        head = head.head
    return head


def subject_of(verb: Token) -> Token | None:
    return next((child for child in verb.children if child.dep_ in SUBJECT_DEPS), None)


def is_object_pronoun(pronoun: Token) -> bool:
    """An object of its clause's verb, directly or through a preposition hanging from the verb ("gave it to him")."""
    if pronoun.dep_ in OBJECT_DEPS:
        return True
    return pronoun.dep_ == "pobj" and pronoun.head.dep_ in ("prep", "dative") \
        and pronoun.head.head.tag_[:2] == "VB"


def name_tied(noun: Token, name_of: dict[int, str]) -> str | None:
    """The entity a person noun is tied to by a compound, an apposition, a copula or "known as" (None: unnamed)."""
    if noun.dep_ in ("compound", "appos") and noun.head.i in name_of:
        return name_of[noun.head.i]
    for child in noun.children:
        if child.dep_ in ("appos", "compound") and child.i in name_of:
            return name_of[child.i]
        if child.dep_ == "acl" and child.text.lower() in _NAMING_VERBS:
            found = next((name_of[t.i] for t in child.subtree if t.i in name_of), None)
            if found is not None:
                return found
    if noun.dep_ == "attr":
        subject = subject_of(noun.head)
        if subject is not None and subject.i in name_of:
            return name_of[subject.i]
    if noun.dep_ in SUBJECT_DEPS:  # "The last player to … in his career was Jack Merson"
        named = next((c for c in noun.head.children if c.dep_ == "attr" and c.i in name_of), None)
        if named is not None:
            return name_of[named.i]
    return None


def described_person(noun: Token, name_of: dict[int, str]) -> str | None:
    """The entity a person noun is tied to (``name_tied``), or that another mention of the same noun is tied to
    when this one repeats it: "his brother, George Whitman … telling him his brother was injured" (a relation noun
    whose possessor is the same person), "Ahmed, a 14-year-old boy … the boy" (a definite repeat)."""
    tied = name_tied(noun, name_of)
    if tied is not None or noun.tag_ != "NN":
        return tied
    word = noun.text.lower()
    possessor = next((child for child in noun.children if child.dep_ == "poss"), None)
    if CONTENT_WORD_KIND.get(word) == "relation":
        if possessor is None or possessor.i not in name_of:
            return None
    elif possessor is not None or not any(c.dep_ == "det" and c.text.lower() in ("the", "this", "that")
                                          for c in noun.children):
        return None
    found = set()
    for earlier in noun.doc:  # a later tie counts too: "his father carried … his father, Johann, encouraged him"
        if earlier.i == noun.i or earlier.text.lower() != word:
            continue
        before = next((child for child in earlier.children if child.dep_ == "poss"), None)
        if possessor is not None and (before is None or name_of.get(before.i) != name_of[possessor.i]):
            continue
        entity = name_tied(earlier, name_of)
        if entity is not None:
            found.add(entity)
    return next(iter(found)) if len(found) == 1 else None


def unnamed_person(token: Token, gender: str, name_of: dict[int, str]) -> bool:
    """Whether a token stands for a person of ``gender`` that no swapped entity names: an unnamed person noun, or a
    proper noun the NER calls a person but the name finder did not take."""
    if token.i in name_of:
        return False
    if is_person_noun(token):
        return agrees(token, gender) and described_person(token, name_of) is None
    return _full_person_name(token) or _first_name_of(token, gender)


def _full_person_name(token: Token) -> bool:
    """A proper noun of a PERSON span of two words or more ("Cyd Ho"): a person's full name; a single word the NER
    calls a person is too often a firm or place the name finder declined ("Harlow")."""
    if token.tag_ not in _PROPER or token.ent_type_ != "PERSON":
        return False
    if token.ent_iob_ == "I":
        return True
    following = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    return following is not None and following.ent_iob_ == "I" and following.ent_type_ == "PERSON"


def _first_name_of(token: Token, gender: str) -> bool:
    """A single proper noun the NER calls a person that is a census first name of the pronoun's gender ("Sue said
    since she was getting up"): a person the name finder left out, not a firm or place ("Harlow" is no first name)."""
    return token.tag_ in _PROPER and token.ent_type_ == "PERSON" and first_name_gender(token.text) == gender


def search_clauses(pronoun: Token, gender: str, name_of: dict[int, str], genders: dict[str, str | None],
                   earlier: dict[int, Referent], bound: frozenset[str] = frozenset()) -> Referent | None:
    """The first clause subject above the pronoun that can be its antecedent (module docstring), as a swapped entity
    of a fitting gender (``genders``: each entity's gender, None unknown), an unnamed person or ``UNRESOLVED`` (the
    subject is a pronoun of the same gender that was left unresolved); None when the search meets none in the
    sentence. ``name_of`` maps the token index of every name mention to its entity; ``earlier`` holds the referents
    of the pronouns before this one; ``bound`` the entities binding rules out (an object pronoun's clause subject:
    "Abel says he defended him", *him* is not Abel)."""
    word = pronoun.text.lower()
    verb = clause_verb(pronoun)
    climb = SUBJECT_CLIMB_DEPS if pronoun.dep_ in SUBJECT_DEPS else CLIMB_DEPS
    if word in ("himself", "herself"):
        return _candidate(subject_of(verb), gender, name_of, genders, earlier)
    clause = verb if pronoun.dep_ == "poss" or _placed_by_noun(pronoun) else _up(verb, climb)
    for _ in range(MAX_CLAUSES_UP):
        if clause is None:
            break
        subject = subject_of(clause)
        relative = subject is not None and subject.tag_ == "WP" and clause.dep_ == "relcl"
        # not the pronoun itself, nor the noun it is the possessor of ("his father carried …")
        if subject is not None and subject.i != pronoun.i and pronoun not in subject.subtree:
            if relative:
                subject = clause.head  # "a young woman who has lost her parents": the relative pronoun's antecedent
            found = _candidate(subject, gender, name_of, genders, earlier)
            if found is not None and found.entity_id not in bound:
                return found
        clause = _up(clause, climb)
    return None


# Prepositions of place: after one, a pronoun hanging from a noun may be its own clause's subject ("his grandmother
# had a sense of peace about her", "she saw a snake near her"), which binding rules out for an object of the verb.
_PLACE_PREPOSITIONS = frozenset({"about", "around", "near", "beside", "behind", "beneath", "under", "above", "below"})


def _placed_by_noun(pronoun: Token) -> bool:
    """Whether a pronoun is the object of a preposition of place that hangs from a noun (``_PLACE_PREPOSITIONS``)."""
    return pronoun.dep_ == "pobj" and pronoun.head.lower_ in _PLACE_PREPOSITIONS \
        and pronoun.head.head.tag_ in ("NN", "NNS")


def _up(clause: Token, climb: frozenset[str]) -> Token | None:
    """The clause a clause hangs from through a clause of the kinds in ``climb``, or None."""
    if clause.dep_ not in climb or clause.head.i == clause.i:
        return None
    return clause_verb(clause) if clause.head.tag_[:2] not in ("VB", "MD") else clause.head


def _possessor_agrees(child: Token, gender: str, name_of: dict[int, str]) -> bool:
    return child.dep_ == "poss" and (PRONOUN_GENDER.get(child.text.lower()) == gender or child.i in name_of)


def _candidate(subject: Token | None, gender: str, name_of: dict[int, str], genders: dict[str, str | None],
               earlier: dict[int, Referent]) -> Referent | None:
    if subject is None:
        return None
    if subject.i in earlier:
        return earlier[subject.i] if PRONOUN_GENDER.get(subject.text.lower()) == gender else None
    tied = name_of.get(subject.i)
    if tied is None and is_person_noun(subject):
        tied = described_person(subject, name_of)
        if tied is None:
            if not agrees(subject, gender):
                return None
            # "Her mentor did not return her love": the possessor's person or the mentor: ambiguous
            return UNRESOLVED if any(_possessor_agrees(child, gender, name_of) for child in subject.children) \
                else Referent(None, subject.text, subject.idx)
    if tied is not None:
        return Referent(tied) if genders.get(tied) in (None, gender) else None
    if _full_person_name(subject) or _first_name_of(subject, gender):
        return Referent(None, subject.text, subject.idx)
    return None


def previous_subject(pronoun: Token, gender: str, name_of: dict[int, str], genders: dict[str, str | None],
                     earlier: dict[int, Referent]) -> Referent | None:
    """For a pronoun in the subject of its sentence's main clause ("He went …", "His chief work is …"), what the
    subject of the previous sentence's main clause (or of the clause it reports) stands for: the topic goes on
    (centering). None when the pronoun is elsewhere or that subject cannot be its antecedent."""
    sentence = sentence_of(pronoun)
    root = sentence.root
    subject = subject_of(root)
    if sentence.start == 0 or subject is None or pronoun not in subject.subtree:
        return None
    # As in Hobbs's search, the pronoun's own sentence comes first: "Despite Daniel's attempts at reconciliation,
    # his father carried the grudge" is Daniel's father, whoever the previous sentence was about.
    before = {name_of[t.i] for t in pronoun.doc[sentence.start:pronoun.i] if t.i in name_of
              and genders.get(name_of[t.i]) in (None, gender)}
    if before:
        return Referent(next(iter(before))) if len(before) == 1 else None
    previous = sentence_of(pronoun.doc[sentence.start - 1])
    for clause in (previous.root, *(c for c in previous.root.children if c.dep_ == "ccomp")):
        parallel = _parallel_possessor(pronoun, subject_of(clause), gender, name_of, earlier)
        if parallel is not None:
            return parallel
        found = _candidate(subject_of(clause), gender, name_of, genders, earlier)
        if found is not None:
            return found
    return None


def _parallel_possessor(pronoun: Token, subject: Token | None, gender: str, name_of: dict[int, str],
                        earlier: dict[int, Referent]) -> Referent | None:
    """For a possessive pronoun of the same noun as the previous sentence's subject ("his father carried … His father
    then asked"), what that subject's possessor referred to: the same relative of the same person."""
    if subject is None or pronoun.dep_ != "poss" or pronoun.head.text.lower() != subject.text.lower():
        return None
    possessor = next((child for child in subject.children if child.dep_ == "poss"), None)
    if possessor is None or PRONOUN_GENDER.get(possessor.text.lower()) != gender:
        return None
    if possessor.i in name_of:
        return Referent(name_of[possessor.i])
    return earlier.get(possessor.i)
