"""Name words (METHODS §1.1 step 2): how a capitalised span splits into title, first, middle and last name, and the
name tables that say whether a word can be a first name or a surname.

A span with two or more name parts gives a first name (its first part) and a last name (its last part); middle given
names with a census gender are kept as such (``NameSpan.middle``), initials before a surname as the initials of the
first name (``NameSpan.initial``), and a name written surname first ("Wang Jianguo", ``name_forms``) as a surname
(its first part) and a given name (the rest). The first part counts as a first name only if it is a census or
voter-file (Rosenman) first name and the last part can be a surname — listed in the census or voter-file surnames, or a
word the text never writes in lower case ("Norris Software" is a company because the article also says "software").
A single part after a title is a last name (METHODS §1.1 step 2), except after Sir and Dame, which in British usage
precede the given name ("Sir Richard"); after them the first of several parts is the given name whether or not the
name tables list it ("Dame Zaha Mohammad Hadid"). Leading titles ("President", "Judge"), a job word before a first name
("Historian"), trailing suffixes ("Jr.") and initials ("J.") are no name parts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bias_core.perturb.lexicon import (
    CONTENT_WORD_KIND,
    GIVEN_NAME_TITLES,
    NAME_SUFFIXES,
    NEUTRAL_TITLES,
    SURNAME_TITLES,
    TITLE_GENDER,
    title_key,
)
from bias_core.perturb.names import census_first_name, first_name_gender, is_census_surname
from bias_core.perturb.person_cues import NO_EVIDENCE_TITLES, ORGANISATION_WORDS, PLACE_PREFIXES, ROLE_TITLES
from bias_core.perturb.rosenman import is_voter_first_name, is_voter_surname

if TYPE_CHECKING:
    from spacy.tokens import Token

# Office and role titles that may stand before a name: the lexicon's, and the role words of the cue table that the
# name tables also list as first names ("Vicar", "Bishop", "Constable"; issue 21).
OFFICE_TITLES = NEUTRAL_TITLES | ROLE_TITLES
ALL_TITLES = TITLE_GENDER.keys() | SURNAME_TITLES | OFFICE_TITLES
NAME_TITLES = TITLE_GENDER.keys() | SURNAME_TITLES  # titles that, capitalised, announce a name the NER may miss
# A name word: a capitalised run of letters (any script, accents included) with inner apostrophes or hyphens.
NAME_WORD = re.compile(r"(?=[^\W\d_])(?:[^\W\d_]|['’-](?=[^\W\d_]))+")
INITIALS = re.compile(r"(?:[A-Z]\.)+[A-Z]?\.?|[A-Z]")
# A surname with an elided particle, written lower case: "Patrizia d'Ettorre", "Jean le Rond d’Alembert".
ELIDED_SURNAME = re.compile(r"[dl]['’][A-Z][^\W\d_]+")
QUOTED_NICKNAME = re.compile(r"[\"“‘'][A-Z][^\W\d_]+[\"”’']")
PROPER_NOUN_TAGS = frozenset({"NNP", "NNPS"})
# Words that begin a surname ("Farouk Ben Mustapha", "Ludwig van Beethoven") and so are no middle given names, even
# where the census lists them as first names ("Ben", "Van", "Del").
SURNAME_PARTICLES = frozenset({"ben", "bin", "bint", "ibn", "abu", "al", "el", "van", "von", "der", "den", "de", "del",
                               "della", "di", "da", "dos", "du", "la", "le", "mac", "st", "ter"})
# Words that label a caption's credit, written right after the caption with a colon ("… in 2006 Image: White House").
CAPTION_LABELS = frozenset({"image", "photo", "photograph", "picture", "credit", "video", "source", "file", "courtesy"})
# A first name is *rare* below this share of its gender in the 1990 census (percent; "Tora" 0.001, "Diego" 0.011),
# or when only the voter files list it (issue 21): a rare first name is weak evidence of a person.
RARE_FIRST_NAME_PERCENT = 0.005

# Post-nominal letters after a name ("Daniel Bernoulli FRS", "Jane Roe QC", "John Doe PhD"): honours, degrees and
# offices, written in capitals (a lower-case letter may follow the first: "PhD"). They are no part of the name.
POST_NOMINAL = re.compile(r"(?:[A-Z]{2,5}|Ph\.?D\.?|M\.?D\.)")


@dataclass
class NamePart:
    start: int
    end: int
    text: str


@dataclass
class NameSpan:
    """A name as written: its first and last name parts and whether a surname title stands before it."""

    start: int
    end: int
    first: NamePart | None
    last: NamePart | None
    title_gender: str | None
    surname_certain: bool  # a lone part after a title or after initials ("Mr. Whitaker", "J.D. Vance")
    titled: bool = False  # a title stands before it or inside the span ("Sen.", "President", "Mr")
    initials: bool = False  # initials stand for the first name ("J.D. Vance", "George W Bush")
    person_label: bool = False  # spaCy labelled the span PERSON, or a gendered or surname title announced it
    middle: list[NamePart] = field(default_factory=list)  # middle given names with a census gender ("James")
    initial: NamePart | None = None  # initials standing for the first name ("J." of "J. Smith", "J.D.")
    surname_first: str | None = None  # the tradition of a name written surname first ("chinese"); first = given
    title: str | None = None  # the title right before the name ("mr", "queen"), as ``title_key`` gives it

    @property
    def parts(self) -> list[NamePart]:
        return [part for part in (self.first, self.last) if part is not None]


def parse_name(text: str, start: int, end: int, title: str | None, common_words: frozenset[str],
               surname_first: Callable[[list[str]], str | None] | None = None, *,
               after_role: bool = False) -> NameSpan | None:
    """Split ``text[start:end]`` into title, first, middle and last name parts (METHODS §1.1 step 2).

    A lone part after Sir or Dame is a given name, after any other title a last name. ``common_words`` are the
    words the document also writes in lower case (see ``is_surname``). ``surname_first`` says, from the name's
    words, whether the text writes it surname first and in which tradition (``name_forms.surname_first_tradition``);
    ``after_role``, that a role noun stands right before it (``non_person_kinds.role_before``).
    """
    words = [(m.start() + start, m.group()) for m in re.finditer(r"\S+", text[start:end])]
    words = [(s, w.rstrip(",;:")) for s, w in words]
    # A possessive ending: "Bezos's", and the bare apostrophe after an s ("Jeff Bezos' midlife crisis").
    words = [(s, w[:-2] if w.endswith(("'s", "’s")) else w[:-1] if w.endswith(("s'", "s’")) else w)
             for s, w in words]
    # A sentence's full stop that the NER kept in the span ("Thomas Jefferson."); titles and initials keep theirs.
    words = [(s, w[:-1] if len(w) > 3 and w.endswith(".") and title_key(w) not in ALL_TITLES | NAME_SUFFIXES
              and not INITIALS.fullmatch(w) else w) for s, w in words]
    # A caption's credit label after a name is no part of it: "Adam Kokesh Image: The Adam Kokesh …" (Wikinews).
    while len(words) > 1 and words[-1][1].lower() in CAPTION_LABELS \
            and text[words[-1][0] + len(words[-1][1]):][:1] == ":":
        words = words[:-1]
    # A territorial designation ends the name: "Patrick Leopold Gordon of Auchleuchries", "Catherine of Aragon".
    cut = next((i for i, (_, w) in enumerate(words) if w in ("of", "from") and i > 0), None)
    words = words[:cut] if cut is not None else words
    titles = [title] if title else []
    while words and title_key(words[0][1]) in ALL_TITLES:
        titles.append(title_key(words[0][1]))
        words = words[1:]
    while len(words) > 1 and (title_key(words[-1][1]) in NAME_SUFFIXES or POST_NOMINAL.fullmatch(words[-1][1])
                              and not words[-2][1].isupper()):  # "JOHN SMITH" in a headline keeps SMITH
        words = words[:-1]
    words, joined = _join_particle_surname(text, words)
    tradition = surname_first([w for _, w in words]) if surname_first and len(words) > 1 and not joined else None
    if tradition and all(NAME_WORD.fullmatch(w) and w[0].isupper() for _, w in words):
        # A Vietnamese person is called by the last word ("Nguyen Tan Dung ... Mr. Dung"), others by all after
        # the surname ("Lee Hsien Loong").
        first_given = words[-1] if tradition == "vietnamese" else words[1]
        given_end = words[-1][0] + len(words[-1][1])
        given = NamePart(first_given[0], given_end, text[first_given[0]:given_end])
        surname = NamePart(words[0][0], words[0][0] + len(words[0][1]), words[0][1])
        return NameSpan(surname.start, given.end, given, surname, _title_gender(titles), surname_certain=True,
                        titled=any(t not in NO_EVIDENCE_TITLES for t in titles), surname_first=tradition)
    # A job word the NER took into the span ("Historian Margaret Ellis", "Nurse Tracy Woodson"): drop it when a
    # first name follows and the span still has a first and a last part.
    # After Sir or Dame the next word is the given name, listed or not ("Dame Zaha Mohammad Hadid").
    given_title = bool(titles) and titles[-1] in GIVEN_NAME_TITLES
    if len(words) >= 3 and not given_title and not is_first_name(words[0][1]) and _opens_name(words[1][1]):
        words = words[1:]
    if words and title_key(words[-1][1]) in ORGANISATION_WORDS:
        return None
    if not words or any(not (NAME_WORD.fullmatch(w) and w[0].isupper()) and not INITIALS.fullmatch(w)
                        and not (0 < i < len(words) - 1 and QUOTED_NICKNAME.fullmatch(w))
                        and not ELIDED_SURNAME.fullmatch(w) and not (joined and i == len(words) - 1)
                        for i, (_, w) in enumerate(words)):
        return None
    parts = [NamePart(s, s + len(w), w) for s, w in words]
    if INITIALS.fullmatch(parts[-1].text):
        return None
    title_gender = _title_gender(titles)
    titled = any(t not in NO_EVIDENCE_TITLES for t in titles)
    if len(parts) == 1 and titles and titles[-1] in GIVEN_NAME_TITLES:
        return NameSpan(parts[0].start, parts[0].end, parts[0], None, title_gender, surname_certain=False,
                        titled=titled)
    last = parts[-1]
    # After any title, or a role noun (``after_role``: "team member Rodaba Noori"), a two-word name is a given name
    # and a surname, listed or not ("Ambassador … Hamdullah Mohib").
    titled_pair = (bool(titles) or after_role) and len(parts) == 2 and parts[0].text.lower() not in common_words
    is_full = len(parts) > 1 and ((given_title or titled_pair) and not INITIALS.fullmatch(parts[0].text) or (
        _opens_name(parts[0].text) and is_surname(last.text, common_words)
        and not is_common_word_more_than_name(parts[0].text, common_words)
        and not is_common_word_more_than_surname(last.text, common_words)))
    # A quoted nickname ("William "Bill" Clinton") is a middle part: it goes with the first name it shortens.
    middle = [part for part in parts[1:-1] if is_full and not INITIALS.fullmatch(part.text)
              and (first_name_gender(part.text) or QUOTED_NICKNAME.fullmatch(part.text))
              and part.text.lower() not in SURNAME_PARTICLES]
    initial = None
    if not is_full and len(parts) > 1 and all(INITIALS.fullmatch(part.text) for part in parts[:-1]):
        initial = NamePart(parts[0].start, parts[-2].end, text[parts[0].start:parts[-2].end])
    return NameSpan(parts[0].start, parts[-1].end, parts[0] if is_full else None, last, title_gender,
                    surname_certain=len(parts) > 1 or bool(titles), titled=titled,
                    initials=any(INITIALS.fullmatch(part.text) for part in parts[:-1]), middle=middle,
                    initial=initial, title=titles[-1] if titles else None)


def _join_particle_surname(text: str, words: list[tuple[int, str]]) -> tuple[list[tuple[int, str]], bool]:
    """The name's words with a surname that begins with a particle joined into one last word ("Bill de Blasio" →
    Bill, "de Blasio"; "Ursula von der Leyen"; "De Blasio said", where a capitalised particle no census lists as a
    first name, or one followed by another particle, starts the span), and whether one was joined. A particle
    starts the surname only where every word after it is another particle or a capitalised name word."""
    for i, (start, word) in enumerate(words[:-1]):
        if word.lower() not in SURNAME_PARTICLES:
            continue
        if not ((i > 0 and word.islower()) or (i == 0 and word[0].isupper() and (
                not is_census_first_name(word) or words[1][1].lower() in SURNAME_PARTICLES))):
            continue
        rest = words[i + 1:]
        named = [bool(ELIDED_SURNAME.fullmatch(w) or (NAME_WORD.fullmatch(w) and w[0].isupper())) for _, w in rest]
        if named[-1] and all(ok or w.lower() in SURNAME_PARTICLES for ok, (_, w) in zip(named, rest)):
            end = rest[-1][0] + len(rest[-1][1])
            return words[:i] + [(start, text[start:end])], True
        return words, False
    return words, False


def _opens_name(word: str) -> bool:
    """Whether a word can be the first name a full name opens with: a first name, but not a rare one that opens
    place names ("KKSF San Francisco", tagged PERSON: "San" is a census first name, 0.001 percent)."""
    return is_first_name(word) and not (title_key(word) in PLACE_PREFIXES and is_rare_first_name(word))


def particle_surname_end(tokens: Sequence[Token], end: int) -> int:
    """Where a name span ends once a surname particle it ends on takes the capitalised word after it: the NER cuts
    "[Ursula von der] Leyen" (labelling "Leyen" a place), and a particle never ends a name."""
    if 0 < end < len(tokens) and tokens[end - 1].lower_ in SURNAME_PARTICLES and tokens[end - 1].text.islower() \
            and is_proper(tokens[end]) and tokens[end].text[:1].isupper():
        return end + 1
    return end


def _title_gender(titles: list[str]) -> str | None:
    return next((TITLE_GENDER[t] for t in titles if t in TITLE_GENDER), None)


def lowercase_words(text: str) -> frozenset[str]:
    """The words a text writes in lower case at least once."""
    return frozenset(re.findall(r"\b[a-z][a-z'-]*\b", text))


def is_first_name(word: str) -> bool:
    """Whether a word before a last name is a first name: a census first name or a voter-file one (Rosenman)."""
    if INITIALS.fullmatch(word):
        return False
    if "-" in word.strip("-"):  # "Mary-Kate", "Jean-Pierre": every part a first name
        return all(is_first_name(part) for part in word.split("-"))
    return census_first_name(word) is not None or is_voter_first_name(word)


def is_rare_first_name(word: str) -> bool:
    """Whether a first name is rare: below ``RARE_FIRST_NAME_PERCENT`` of its gender in the 1990 census, or listed
    only by the voter files (every part of a hyphenated name must be common for it to be common)."""
    parts = [part for part in word.split("-") if part]
    records = [census_first_name(part) for part in parts]
    return not parts or any(record is None or record.frequency < RARE_FIRST_NAME_PERCENT for record in records)


def is_common_word_more_than_name(word: str, common_words: frozenset[str]) -> bool:
    """Whether a first-name candidate is far more often something else than a given name (issue 21): a rare first
    name that the same document also writes in lower case ("the Midwest Magic Jubilee ... magic tricks")."""
    return word.lower() in common_words and is_rare_first_name(word)


def is_common_word_more_than_surname(word: str, common_words: frozenset[str]) -> bool:
    """Whether a last-name candidate is far more often a common word than a surname: no census surname, listed
    only by the voter files, and written in lower case in the same document ("the theory of Case Grammar ... a
    grammar"; the census has no "Grammar", the voter files do)."""
    return word.lower() in common_words and not is_census_surname(word)


def is_census_first_name(word: str) -> bool:
    """Whether a word is a 1990 census first name (every part of a hyphenated one)."""
    return all(census_first_name(part) is not None for part in word.split("-")) if word.strip("-") else False


def is_listed_surname(word: str) -> bool:
    """Whether a word is a surname of the 1990 census or the voter files (every part of a hyphenated one): the
    *plausible surname* that, after a known first name in a PERSON span, is evidence of a person (issue 10)."""
    parts = [part for part in word.split("-") if part]
    return bool(parts) and all(is_census_surname(part) or is_voter_surname(part) for part in parts)


def is_surname(word: str, common_words: frozenset[str]) -> bool:
    """Whether a word can be a last name: a surname of the 1990 census or the voter files (Rosenman), every part of
    a hyphenated one; or an unlisted word ("Ashcombe") that the document never writes in lower case. "Norris
    Software" is a company: the article also says "software", so "Norris" is no first name there."""
    parts = [part for part in word.split("-") if part]
    if all(is_census_surname(part) or is_voter_surname(part) for part in parts):
        return True
    return word.lower() not in common_words and title_key(word) not in ORGANISATION_WORDS


def ent_key(text: str) -> str:
    """A name string compared across mentions: lower case, without a leading article, possessive or full stop."""
    key = re.sub(r"^the\s+", "", text.strip().lower())
    key = re.sub(r"['’]s$", "", key)
    return key.rstrip(".,;: ")


def is_proper(token: Token) -> bool:
    """Whether a token is a capitalised proper noun (tag NNP/NNPS)."""
    return token.tag_ in PROPER_NOUN_TAGS and token.text[:1].isupper()


_INITIAL = re.compile(r"[A-Z]\.")


def title_before(token: Token) -> Token | None:
    """The title right before a name: gendered or surname titles capitalised, others ("coach") in any case but a
    kinship word, which is a title only capitalised ("Brother John", not "his brother William"); spaces and initials
    between them are skipped ("Mr  Levy", "Mr. W. Lansing Gleason")."""
    i = token.i - 1
    initials = 0
    while i >= 0 and (token.doc[i].is_space or initials < 2 and _INITIAL.fullmatch(token.doc[i].text)):
        # "Mr  Levy": a doubled space is a token of its own; "Mr. W. Lansing Gleason": up to two initials
        initials += not token.doc[i].is_space
        i -= 1
    if i < 0:
        return None
    previous = token.doc[i]
    key = title_key(previous.text)
    if previous.text[:1].isupper() and key in NAME_TITLES:
        return previous
    if key in OFFICE_TITLES and (previous.text[:1].isupper() or CONTENT_WORD_KIND.get(key) != "relation"):
        return previous
    # An office of a place or portfolio between the title and the name: "Ambassador to the United States Hamdullah
    # Mohib", "Minister of Finance Ngozi Okonjo-Iweala" (up to four words after the preposition).
    j = i
    while j > 0 and i - j < 4 and (token.doc[j].tag_ in ("NNP", "NNPS") or token.doc[j].lower_ == "the"):
        j -= 1
    office = token.doc[j - 1] if j < i and j > 0 and token.doc[j].lower_ in ("of", "to", "for") else None
    return office if office is not None and office.text[:1].isupper() and title_key(office.text) in OFFICE_TITLES \
        else None
