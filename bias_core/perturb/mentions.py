"""Entities under construction while names are found, and which entity a bare name refers to (METHODS §1.1 steps
2–3; ``name_finding``).

A bare last name shared by several entities goes to the one a preceding title agrees with, else to the one most
recently named in full or with a title ("Jonathan Brandt ... Brandt said"), else to the one introduced first; a bare
first name goes to the entity with that first name mentioned most recently. A new entity takes the census gender of
its first name (§1.2 rule) until titles or pronouns say otherwise.

One person, one name (issue 27, ``name_forms``): a first name also matches the nickname forms the text wrote for a
person ("Marty" for Martin Hale), and a common nickname of it when no one bears it as written; initials before a
surname ("J. Smith") match only people whose first name starts with them, or who have none; a surname written with
diacritics matches the plain spelling when no one bears it as written ("Ḥadīd" for Hadid). A name given as a
person's alias ("better known as Jenna Marbles", ``non_person_kinds.alias_of``) adds its first name and surname to
that person's forms.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bias_core.perturb.entity_template import TemplateEntity
from bias_core.perturb.name_forms import fold_accents, same_given_name
from bias_core.perturb.lexicon import CONTENT_WORD_GENDER, RULER_TITLES, title_key
from bias_core.perturb.name_parts import ALL_TITLES, INITIALS, NamePart, NameSpan, ent_key, is_proper
from bias_core.perturb.names import first_name_gender
from bias_core.perturb.non_person_kinds import cited_as_word, is_role_noun
from bias_core.perturb.person_evidence import gazetteer_places

if TYPE_CHECKING:
    from spacy.tokens import Span, Token


class Entities:
    """Entities under construction, with every name mention found so far (by character start)."""

    def __init__(self) -> None:
        self.entities: list[TemplateEntity] = []
        self.mentions: dict[int, tuple[str, str, NamePart]] = {}  # start → (entity_id, kind, part)
        self.anchors: dict[str, list[int]] = {}  # entity_id → starts of its full-name and title + name mentions
        self.aliases: dict[str, set[str]] = {}  # entity_id → other first-name forms written for it ("Marty")
        self.surname_aliases: dict[str, set[str]] = {}  # entity_id → other surnames ("better known as Jenna Marbles")

    def new(self, first: str | None, last: str | None) -> TemplateEntity:
        entity = TemplateEntity(f"e{len(self.entities) + 1}", first, last)
        gender_from_first_name(entity)
        self.entities.append(entity)
        return entity

    def add_mention(self, entity: TemplateEntity, kind: str, part: NamePart) -> None:
        self.mentions.setdefault(part.start, (entity.entity_id, kind, part))

    def entity_of(self, start: int) -> TemplateEntity | None:
        """The entity with a name mention starting at character ``start``, if any."""
        mention = self.mentions.get(start)
        return next(e for e in self.entities if e.entity_id == mention[0]) if mention else None

    def entity_at(self, token: Token) -> TemplateEntity | None:
        """The entity a name mention at ``token`` or at a word of its name ("Jenna Nicole [Mourey]") belongs to."""
        words = [token, *(child for child in token.children if child.dep_ == "compound")]
        return next((e for e in map(self.entity_of, (word.idx for word in words)) if e is not None), None)

    def written(self, entity_id: str, kind: str) -> set[str]:
        """The name parts of one kind written for an entity ("middle_name": {"Charles"}, "initial": {"O.J."})."""
        return {part.text for eid, k, part in self.mentions.values() if eid == entity_id and k == kind}

    def own_names(self, entity: TemplateEntity) -> set[str]:
        """The words besides a first name that may follow it in this person's name: surnames and middle names."""
        return {entity.last_name or ""} | self.surname_aliases.get(entity.entity_id, set()) \
            | self.written(entity.entity_id, "middle_name")

    def by_first_and_middle(self, first: str, middle: str) -> TemplateEntity | None:
        """The person whose first name and one of whose middle names a two-word name spells ("Pierre Charles" of
        Pierre Charles L'Enfant)."""
        return next((e for e in self.entities if e.first_name == first
                     and middle in self.written(e.entity_id, "middle_name")), None)

    def by_full_name(self, span: NameSpan) -> TemplateEntity | None:
        """The person a parsed full name spells exactly: first and last name, or initials and last name."""
        if span.last is None or not (span.first or span.initial):
            return None
        return next((e for e in self.entities if e.last_name == span.last.text and (
            e.first_name == span.first.text if span.first
            else span.initial is not None and span.initial.text in self.written(e.entity_id, "initial"))), None)

    def add_alias(self, entity: TemplateEntity, first: str, last: str) -> None:
        """Record a first name and surname given as this person's alias ("better known as Jenna Marbles")."""
        if first != entity.first_name:
            self.aliases.setdefault(entity.entity_id, set()).add(first)
        if last != entity.last_name:
            self.surname_aliases.setdefault(entity.entity_id, set()).add(last)

    def mention_positions(self, entity_id: str) -> list[int]:
        return sorted(start for start, (eid, _, _) in self.mentions.items() if eid == entity_id)

    def first_names(self, entity: TemplateEntity) -> set[str]:
        """The first-name forms of an entity: its first name and the nickname forms the text wrote for it."""
        return ({entity.first_name} if entity.first_name else set()) | self.aliases.get(entity.entity_id, set())

    def by_last_name(
        self, last: str, title_gender: str | None, position: int, *, strict: bool = False, initial: str | None = None
    ) -> TemplateEntity | None:
        """The entity a bare last name refers to (module docstring, step 3); with ``strict``, none when a title's
        gender agrees with no candidate ("Lord Ashcombe" is not "Sophie Ashcombe"). With ``initial`` (the letter of
        "J. Smith"), only people without a first name or whose first name starts with it."""
        candidates = [e for e in self.entities if e.last_name == last
                      or last in self.surname_aliases.get(e.entity_id, ())
                      or (e.last_name and " " in last and e.last_name.lower() == last.lower())]  # "De Blasio"
        if not candidates and fold_accents(last) != last:  # "Ḥadīd" beside "Hadid": one surname, transliterated
            candidates = [e for e in self.entities if e.last_name and fold_accents(e.last_name) == fold_accents(last)]
        if initial is not None:
            candidates = [e for e in candidates if not e.first_name or e.first_name[:1].upper() == initial.upper()]
        agreeing = [e for e in candidates if title_gender is None or e.gender in (None, title_gender)]
        candidates = agreeing if agreeing or strict else candidates
        if len(candidates) < 2:
            return candidates[0] if candidates else None

        def last_anchor_before(entity: TemplateEntity) -> int:
            return max((p for p in self.anchors.get(entity.entity_id, []) if p < position), default=-1)

        def mentions_before(entity: TemplateEntity) -> int:
            return sum(1 for p in self.mention_positions(entity.entity_id) if p < position)

        # The person the text has named most so far is the one a bare surname means ("Moreau" of a biography of
        # Jeanne Moreau after "her father, Anatole-Désiré Moreau"); among equally named, the latest named in full.
        latest = max(candidates, key=lambda e: (mentions_before(e), last_anchor_before(e)))
        return latest if last_anchor_before(latest) >= 0 else candidates[0]

    def by_bare_name(self, word: str, title_gender: str | None, position: int, *, titled: bool
                     ) -> tuple[TemplateEntity | None, str]:
        """The entity a lone name word refers to and as which part ("last_name" or "first_name"). After a title it
        is a surname. A word that is one person's surname and another's first name goes to the one named last before
        it ("Mark Grace ... Grace said he ... his wife Grace Kelly": the first "Grace" is Mark Grace), the first name
        on a tie; a word no surname matches is a first name."""
        by_last = self.by_last_name(word, title_gender, position)
        if by_last is None or titled:
            return (by_last, "last_name") if by_last is not None else (self.by_first_name(word, position), "first_name")
        by_first = self.by_first_name(word, position) if any(word in self.first_names(e) for e in self.entities) \
            else None
        if by_first is None:  # a nickname form of somebody's first name ("Will") does not outweigh a surname
            return by_last, "last_name"
        if self.last_mention_before(by_last, position) > self.last_mention_before(by_first, position):
            return by_last, "last_name"
        return by_first, "first_name"

    def by_first_name(self, first: str, position: int) -> TemplateEntity | None:
        """The entity a bare first name refers to: one bearing it as written (or as a written nickname form), else
        one whose first name it is a common nickname of (module docstring)."""
        candidates = [e for e in self.entities if first in self.first_names(e)]
        if not candidates:
            candidates = [e for e in self.entities if e.first_name and not e.surname_first
                          and same_given_name(e.first_name, first)]
        if not candidates:
            return None
        return max(candidates, key=lambda entity: self.last_mention_before(entity, position))

    def last_mention_before(self, entity: TemplateEntity, position: int) -> int:
        """Where the entity's last mention before ``position`` starts, or -1 if it has none there."""
        return max((p for p in self.mention_positions(entity.entity_id) if p < position), default=-1)


def gender_from_first_name(entity: TemplateEntity) -> None:
    """Give an entity the census gender of its first name (§1.2 rule), until titles or pronouns say otherwise."""
    gender = first_name_gender(entity.first_name) if entity.first_name else None
    if gender:
        entity.gender, entity.gender_source = gender, "first_name"


# Entity types a person's name may carry: none, PERSON, or a one-word ORG (the small model tags "Smith's" as ORG);
# any other type means the string is something else ("Virginia" the state, "May" the month).
_MAYBE_PERSON = frozenset({"", "PERSON", "ORG"})
_PERSON_LIKE_DEPS = frozenset({"nsubj", "nsubjpass", "appos", "poss", "conj", "dobj", "dative"})


def may_be_name(token: Token, found: Entities, non_person_tokens: set[int], ent_of: dict[int, Span]) -> bool:
    """Whether an occurrence of a known name string is a mention (``name_finding`` step 3). ``non_person_tokens``
    are the tokens of spans found to name no person; ``ent_of`` maps a token index to its NER entity.

    The string is capitalised (matching is case-sensitive), so inside a sentence it is the name even when the tagger
    calls it a noun ("Sandoval" often is). At the start of a sentence it must also be tagged a proper noun, act as a
    subject or possessor, or stand alone (a letter's sign-off), so "Young people" is not a mention of Ms. Young. Tagged
    as a place, date or the like, it must act as a person would ("Sofia had been born", not "flew to Sofia"), unless it
    is a named person's first name and no gazetteer place ("from Diana"); inside a longer non-person entity it is part
    of that entity's name ("Trump Tower"), except a person's whole name in either order (also as the start of a thing
    named after them: "the George Washington Bridge") and a first name in the title of a work ("The Jenna Julien
    Podcast"). A name cited as a word ("changing his first name from Pierre to Peter",
    ``non_person_kinds.cited_as_word``) is nobody's mention.
    """
    if token.i in non_person_tokens or cited_as_word(token):
        return False
    if token.ent_type_ == "PERSON":
        return True
    if token.ent_type_:
        ent = ent_of.get(token.i)
        if ent is not None and len(ent) > 1 and (_is_known_name(ent, found) or in_full_name(token, found, ent)):
            return True  # "DENZEL WASHINGTON" (ORG) in a headline; "the George Floyd Justice in Policing Act"
        if ent is not None and ent.label_ == "WORK_OF_ART" and _first_name_only(token.text, found):
            return True  # "The Jenna Julien Podcast": a show titled by its hosts' first names names them
        if ent is not None and _words(ent) > 1 and not _set_apart(token, ent):
            return False
        if token.ent_type_ not in _MAYBE_PERSON:
            return (token.dep_ in _PERSON_LIKE_DEPS or _no_place(token.text, found)) and _named_before(token, found)
    if is_proper(token) or not token.is_sent_start:
        return True
    following = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    return token.dep_ in ("nsubj", "nsubjpass", "poss") or (following is not None and following.text == ",") \
        or all(other.i == token.i or other.is_punct or other.is_space for other in token.sent)  # a sign-off "Marcie"


def _words(ent: Span) -> int:
    """How many words an entity has, not counting a possessive ending ("Daniel's", tagged ORG, is one word)."""
    return sum(1 for token in ent if token.text not in ("'s", "’s", "'", "’"))


def _is_known_name(ent: Span, found: Entities) -> bool:
    """Whether a multi-word entity is exactly the full name of a person found ("Denzel Washington" tagged ORG in a
    headline), in either order: a Japanese, Chinese or Hungarian name is also written surname first beside the
    Western order ("Natsuko Higuchi (樋口 夏子 Higuchi Natsuko)", the second tagged FAC)."""
    key = ent_key(ent.text)
    return any(e.first_name and e.last_name and key in (ent_key(e.label), ent_key(f"{e.last_name} {e.first_name}"))
               for e in found.entities)


def in_full_name(token: Token, found: Entities, ent: Span | None = None) -> bool:
    """Whether a token and its neighbour (inside ``ent``, if given) spell a found person's whole name, first name (or
    its initials: "J.K. Rowling" tagged ORG beside "Joanne Rowling") then surname: a thing named after the person ("the
    George Floyd Justice in Policing Act", "the George Washington Bridge" beside George Washington) is renamed with
    them, or the counterfactual gives that person two names. A surname alone ("Trump Tower") or a first name alone is no
    mention: it may be anybody's."""
    start, end = (ent.start, ent.end) if ent is not None else (0, len(token.doc))
    pairs = [(token.doc[i].text, token.doc[i + 1].text) for i in (token.i - 1, token.i) if start <= i and i + 1 < end]
    return any(e.first_name and e.last_name and any(b == e.last_name and (a == e.first_name or (
        INITIALS.fullmatch(a) and a[0] == e.first_name[0])) for a, b in pairs) for e in found.entities)


def initials_before(token: Token, entity: TemplateEntity, found: Entities) -> NamePart | None:
    """The initials written right before a person's surname that start their first name and are no mention yet
    ("J.K. Rowling" beside "Joanne Rowling"), so that they are rewritten with the first name (issue 27, item 3)."""
    before = token.doc[token.i - 1] if token.i > 0 else None
    if before is None or not entity.first_name or before.idx in found.mentions or not INITIALS.fullmatch(before.text) \
            or before.text[0] != entity.first_name[0]:
        return None
    return NamePart(before.idx, before.idx + len(before.text), before.text)


def another_given_name_before(token: Token, entity: TemplateEntity, found: Entities) -> bool:
    """Whether a surname occurrence follows a given name that is not this person's, so names somebody else of that
    surname ("pro-establishment nonpartisan Junius Ho" beside "Cyd Ho"; "Youngspiration's Baggio Leung" beside "Leung
    Kwok-hung"): the word before is a capitalised proper noun joined to it (one PERSON entity, or a compound) that is
    no name or initial of this person and no title, ruler's title ("Emperor Norton"), gendered or role noun. Such a
    mention is left to that other person, or the counterfactual gives two people one new surname."""
    before = token.doc[token.i - 1] if token.i > 0 else None
    if before is None or not is_proper(before) or before.idx in found.mentions or INITIALS.fullmatch(before.text):
        return False
    joined = (before.ent_type_ == token.ent_type_ == "PERSON" and token.ent_iob_ == "I") \
        or (before.dep_ == "compound" and before.head.i == token.i)
    own = {name.lower() for name in found.first_names(entity) | found.own_names(entity) if name}
    word = before.lower_
    return joined and word not in own and title_key(before.text) not in ALL_TITLES | RULER_TITLES \
        and word not in CONTENT_WORD_GENDER and not is_role_noun(word) \
        and not (before.is_sent_start and not before.ent_type_)  # "Veteran Ho said": a first word capitalised


def _no_place(word: str, found: Entities) -> bool:
    """Whether a word is a found person's first name, nobody's surname, and no place of the GeoNames gazetteer: the
    NER's place label on it is a mistake in any role ("lights away from Cara", "from Diana" after Cara or Diana was
    named), while "flew to Sofia" may be the city."""
    return _first_name_only(word, found) and word.lower() not in gazetteer_places()


def _first_name_only(word: str, found: Entities) -> bool:
    """Whether a word is the first name of a person found and nobody's surname: a first name in the title of a
    work ("The Jenna Julien Podcast") is its host's, while a surname in a name ("Trump Tower", "Washington Post")
    may be anybody's."""
    return any(word in found.first_names(e) for e in found.entities) \
        and not any(word == e.last_name for e in found.entities)


def _named_before(token: Token, found: Entities) -> bool:
    """Whether a person bearing this name was mentioned before ``token``. A place-labelled occurrence of a person's
    name is that person only then, and only as a subject, possessor or object ("George Washington ... Washington
    said"); "Jordan will host talks" before "Michael Jordan" appears is the country."""
    for start, (eid, _, _) in found.mentions.items():
        if start >= token.idx:
            continue
        entity = next(e for e in found.entities if e.entity_id == eid)
        if token.text.lower() in (name.lower() for name in (entity.first_name, entity.last_name) if name):
            return True
    return False


def _set_apart(token: Token, ent: Span) -> bool:
    """Whether punctuation separates a token from the rest of a multi-word entity ("Lakeview General, Sofia")."""
    neighbours = [token.doc[i] for i in (token.i - 1, token.i + 1) if ent.start <= i < ent.end]
    return all(neighbour.is_punct for neighbour in neighbours)
