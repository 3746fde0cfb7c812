"""Name forms of one person (issue 27, items 1 and 3): generational suffixes, middle names, initials, nicknames,
plural titles and surname-first East-Asian names — so that a swapped person keeps one name in every mention.

- **Generational suffixes.** "Jr." and "Sr." (also written ", Jr.") mark a son named after his father in US usage
  and are used for men only, so they are dropped when the person is made a woman: the suffix slot covers the comma
  or space before it, and leaves a sentence's full stop in place ("met Karl Lund Jr. Then" → "met Diane Lund.
  Then"). Numerals (II, III, IV) are not gendered and stay. A person given a new first name loses the suffix in
  every arm (``EntityTemplate.fill``): the new person is nobody's junior, and both arms then name people alike.
- **Middle names.** A middle given name with a census gender ("Henry *James* Pike") is dropped when the person
  takes the other gender ("Jessica Pike"), and in every arm where the person gets a new first name ("Mark Pike"),
  so that the arms name people in the same shape — a summary-side alignment that misses "First Middle Last" then
  misses it in both arms alike (a middle name kept only in the male arm made a value-blind summarizer's entity
  inclusion lean to women in the calibration rerun). An ungendered middle name of a person keeping their first
  name (a surname used as middle name, "John *Fitzgerald* Kennedy") and a middle initial ("Henry J. Pike") stay. Dropping rather than
  drawing a new middle name: it inserts no name the summary-side entity alignment does not know, and it draws
  nothing from the name pools, which are small (BBQ holds 10 first names per race and gender cell), so no original
  is skipped for want of names; "Jessica Pike" is still the full, natural name of one person.
- **Initials** standing for a first name ("J. Smith", "J.D. Smith") join the person whose first name starts with
  that letter and take the initial of the new first name ("M. Smith", "M.D. Smith"); initials that disagree with
  the first name of every person of that surname name someone else (as different first names do).
- **Nicknames.** A first name and a common nickname of it (Martin / Marty, after the ``nicknames`` package, as the
  politician swap uses it) with the same surname are one person, and every mention gets the same new name; two
  first names of opposite census genders are never merged.
- **Plural titles.** "Messrs." (men) ↔ "Mmes." (women; "Mses." is read as women too) before two or more
  surnames: the title follows the genders its people get; where they get mixed genders the title is dropped with
  its space ("Messrs. Levy and Cohen" → "Levy and Cohen"), which reads correctly whoever they are.
- **Surname-first names** (Chinese, Korean, Japanese, Vietnamese): a name whose first word is a common East-Asian
  surname (``data/perturb/east_asian_surnames.tsv``, each row with its source) is read surname first when the text
  says so — the surname alone names the person elsewhere ("Wang Jianguo ... Mr. Wang", "Wang said") while the last
  word never stands alone — or, without such a mention, when the given name is hyphenated ("Kim Jong-un", "Lee
  Cheuk-yan") or neither word is a common English first name ("Xi Jinping"; "Kim Clijsters" is read in Western
  order); a Vietnamese name of three words always is. Such a person is one entity whose given name is the last
  word(s) and whose surname is the first. A gender swap gives a Chinese or Japanese person a new given name of their
  own tradition and the arm's gender (``data/perturb/east_asian_given_names.tsv``, Faker's romanised lists: "Cheng
  Chung-tai" → "Cheng Shu-fen", written without the hyphen where the text writes the given name as one word,
  "Wang Jianguo" → "Wang Shufen") and keeps the surname, so "Mr. Cheng" stays the same person. A Korean or
  Vietnamese person is **left unswapped**, with the reason in the report: no list holds romanised given names of
  that tradition by gender, and a census name in its place ("Kim Jennifer") would be another incoherence. Race swaps
  keep every surname-first person as written: their names are Black- and White-associated given names written given
  name first, which such a mention would read backwards ("Jackson Jamal" beside "Mr. Jackson").
- **Transliterations.** A surname written with diacritics ("Ḥadīd", a scholarly transliteration given beside the
  article's "Hadid") is the same surname as the plain one when no person bears it as written (``fold_accents``).
"""

from __future__ import annotations

import csv
import functools
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from nicknames import NickNamer

from bias_core.common.paths import DATA_DIR
from bias_core.perturb.lexicon import NAME_SUFFIXES, match_case, title_key
from bias_core.perturb.name_parts import ALL_TITLES, is_proper
from bias_core.perturb.names import census_first_name, first_name_gender, fold_accents
from bias_core.safety.errors import InputError

if TYPE_CHECKING:
    from spacy.tokens import Token

EAST_ASIAN_SURNAMES_PATH = DATA_DIR / "perturb" / "east_asian_surnames.tsv"
EAST_ASIAN_GIVEN_NAMES_PATH = DATA_DIR / "perturb" / "east_asian_given_names.tsv"
# Suffixes used only for men (US usage); II, III and IV are not gendered and are never rewritten.
GENDERED_SUFFIXES = frozenset({"jr", "sr"})
_SUFFIX_AFTER = re.compile(r"(,?[ \t]+)(Jr|JR|Sr|SR)(\.?)(?![\w])")
# A period that also ends the sentence: followed by a line break, the end of the text, or a space and a capital.
_SENTENCE_END = re.compile(r"\s*$|\s*\n|\s+[\"“'‘(]?[A-Z]")
PLURAL_TITLE_GENDER = {"messrs": "male", "mmes": "female", "mses": "female"}
PLURAL_TITLE_SWAP = {"messrs": "mmes", "mmes": "messrs", "mses": "messrs"}
UNSWAPPED_SURNAME_FIRST = ("surname-first ({tradition}) name: the name lists hold no given name of that tradition, "
                           "so the person is left as written")
RACE_KEEPS_SURNAME_FIRST = ("surname-first ({tradition}) name: race names are written given name first, so race "
                            "swaps leave the person as written")
# Census first names below this share of their gender (percent) are no evidence of an English given name: "Kim" (0.178)
# and "Lee" (0.162) are, "Chi" (0.005), "Jae" (0.004) and "Jong" (0.001) are not.
COMMON_FIRST_NAME_PERCENT = 0.01
_HYPHENATED_GIVEN = re.compile(r"[A-Z][a-z]+-[A-Za-z][a-z]+")
_PLURAL_SEPARATORS = frozenset({",", "and", "&"})


def _table_rows(path: Path, what: str) -> list[dict[str, str]]:
    """The rows of one of the shipped name tables (tab-separated, with a header), or a clear error where it is
    missing."""
    if not path.is_file():
        raise InputError(str(path), f"{what} table not found", hint="reinstall summbias")
    with path.open(newline="", encoding="utf-8") as stream:
        return list(csv.DictReader(stream, delimiter="\t", quoting=csv.QUOTE_NONE))


@functools.cache
def east_asian_surnames() -> dict[str, frozenset[str]]:
    """Each common East-Asian surname (as written in English text) → its traditions ("chinese", "korean", …)."""
    table: dict[str, set[str]] = {}
    for row in _table_rows(EAST_ASIAN_SURNAMES_PATH, "East-Asian surname"):
        table.setdefault(row["surname"], set()).add(row["tradition"])
    return {surname: frozenset(traditions) for surname, traditions in table.items()}


@functools.cache
def given_name_table() -> dict[tuple[str, str], tuple[str, ...]]:
    """(tradition, gender) → the romanised given names ``data/perturb/east_asian_given_names.tsv`` lists."""
    table: dict[tuple[str, str], list[str]] = {}
    for row in _table_rows(EAST_ASIAN_GIVEN_NAMES_PATH, "East-Asian given-name"):
        table.setdefault((row["tradition"], row["gender"]), []).append(row["given_name"])
    return {key: tuple(names) for key, names in table.items()}


def given_names(tradition: str, gender: str) -> tuple[str, ...]:
    """Romanised given names of a surname-first tradition and gender (empty where no list holds that tradition)."""
    return given_name_table().get((tradition, gender), ())


def has_given_names(tradition: str) -> bool:
    """Whether a gender swap can give a person of this tradition a new given name of it (both genders listed)."""
    return all(given_names(tradition, gender) for gender in ("male", "female"))


def written_like(given_name: str, written: str) -> str:
    """A drawn given name ("Shu-fen") written in the shape of the one it replaces: one word where the text writes
    the given name as one ("Jianguo" → "Shufen"), hyphenated where it hyphenates ("Chung-tai"), capitals kept."""
    if "-" not in written:
        given_name = given_name.replace("-", "").lower().capitalize()
    return match_case(written, given_name)


def surname_first_tradition(words: Sequence[str], standalone: Callable[[str], bool]) -> str | None:
    """The naming tradition of a name written surname first ("Wang Jianguo"), else None (module docstring).

    ``words`` are the name's words without titles or suffixes; ``standalone(word)`` says whether the text also
    names someone by that word alone ("Mr. Wang", "Wang said").
    """
    if not 2 <= len(words) <= 3:
        return None
    traditions = east_asian_surnames().get(words[0])
    if not traditions:
        return None
    tradition = min(traditions)
    if "vietnamese" in traditions and len(words) == 3:
        return "vietnamese"
    surname_alone, given_alone = standalone(words[0]), standalone(words[-1])
    if given_alone and not surname_alone:
        return None
    if surname_alone and not given_alone:
        return tradition
    given = words[1:]
    if len(given) == 1 and _HYPHENATED_GIVEN.fullmatch(given[0]) \
            and not any(_common_first_name(part) for part in given[0].split("-")):
        return tradition
    if not _common_first_name(words[0]) and not any(_common_first_name(word) for word in given):
        return tradition
    return None


def _common_first_name(word: str) -> bool:
    """Whether a word is a common first name in English text: at least ``COMMON_FIRST_NAME_PERCENT`` of its gender
    in the 1990 census. The census also lists, rarely, romanised East-Asian syllables ("Jong", "Min", "Chan")."""
    record = census_first_name(word)
    return record is not None and record.frequency >= COMMON_FIRST_NAME_PERCENT


def named_alone(occurrences: Iterable[Token]) -> bool:
    """Whether one of a word's occurrences names someone by that word alone ("Mr. Wang said", "Wang said"):
    neither the proper noun before it (other than a title) nor the one after it (other than a suffix) is part of
    the same name."""
    for token in occurrences:
        before, after = _neighbour(token, -1), _neighbour(token, 1)
        if after is not None and is_proper(after) and title_key(after.text) not in NAME_SUFFIXES:
            continue
        if before is not None and is_proper(before) and title_key(before.text) not in ALL_TITLES:
            continue
        return True
    return False


def _neighbour(token: Token, step: int) -> Token | None:
    i = token.i + step
    while 0 <= i < len(token.doc) and token.doc[i].is_space:
        i += step
    return token.doc[i] if 0 <= i < len(token.doc) else None


def plural_title_members(tokens: Sequence[Token], title: int, is_name_token: Callable[[int], bool]
                         ) -> list[tuple[int, int]]:
    """The token ranges of the names a capitalised plural title stands before, in a coordination ("Messrs.
    Levy, Stein and Cohen": three ranges)."""
    if not tokens[title].text[:1].isupper():
        return []
    members = []
    i = title + 1
    while i < len(tokens):
        while i < len(tokens) and tokens[i].is_space:
            i += 1
        end = i
        while end < len(tokens) and is_name_token(end):
            end += 1
        if end == i:
            break
        members.append((i, end))
        i = end
        while i < len(tokens) and (tokens[i].text in _PLURAL_SEPARATORS or tokens[i].is_space):
            i += 1
        if i == end:
            break
    return members


def suffix_span(text: str, end: int) -> tuple[int, int] | None:
    """The span of a gendered generational suffix right after a surname ending at ``end`` (", Jr." or " Sr."),
    separator included and a sentence-final full stop left out, or None."""
    match = _SUFFIX_AFTER.match(text, end)
    if match is None:
        return None
    stop = match.end()
    if match.group(3) and _SENTENCE_END.match(text, stop):
        stop -= 1  # the period also ends the sentence: keep it
    return match.start(), stop


def drop_suffix(gender: str | None, written: str) -> bool:
    """Whether a suffix slot (", Jr.") is dropped for a person of ``gender``: Jr./Sr. for a woman."""
    return gender == "female" and title_key(written.lstrip(", \t")) in GENDERED_SUFFIXES


def middle_name_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of a middle name with the space before it, so that dropping it leaves one space."""
    return (start - 1, end) if start > 0 and text[start - 1] == " " else (start, end)


def drop_middle_name(gender: str | None, written: str) -> bool:
    """Whether a middle given name is dropped for a person of ``gender``: it has the other census gender."""
    own = first_name_gender(written.strip())
    return gender is not None and own is not None and own != gender


def initials_for(first_name: str, written: str) -> str:
    """Initials standing for a first name, rewritten for a new first name ("J.D." with "Mark" → "M.D.")."""
    return match_case(written[:1], first_name[:1]) + written[1:]


def plural_title_for(genders: Sequence[str | None], written: str) -> str:
    """A plural title ("Messrs. " with its trailing space) for people of ``genders``: the title of their common
    gender, or "" (dropped with its space) when they differ or one is unknown."""
    key = title_key(written.strip())
    if len(set(genders)) != 1 or None in genders:
        return ""
    gender = genders[0]
    if PLURAL_TITLE_GENDER[key] == gender:
        return written
    title = written.rstrip()
    swapped = match_case(title, PLURAL_TITLE_SWAP[key].capitalize()) + ("." if title.endswith(".") else "")
    return swapped + written[len(title):]


@functools.cache
def _nicknamer() -> NickNamer:
    return NickNamer()


@functools.cache
def same_given_name(first: str, other: str) -> bool:
    """Whether two first names can name one person: equal, the same but for diacritics (José / Jose, Zoë / Zoe),
    or one a common nickname of the other (Martin / Marty), or ``other`` (the later mention) the first three or more
    letters of ``first`` where that is at least two letters longer (Leonardo … Leo, which the nickname table
    lacks; never the other way: "Archbishop Christodoulos" is not Chris McGreal), and not of opposite census
    genders."""
    a, b = fold_accents(first), fold_accents(other)
    if a == b:
        return True
    genders = {first_name_gender(first), first_name_gender(other)} - {None}
    if len(genders) > 1:
        return False
    a, b = a.lower(), b.lower()
    if len(b) >= 3 and len(a) >= len(b) + 2 and a.startswith(b):
        return True
    namer = _nicknamer()
    return b in namer.nicknames_of(a) or a in namer.nicknames_of(b)


def taken_words(text: str) -> frozenset[str]:
    """The capitalised words of a text, as a drawn name could collide with them: possessives stripped, hyphenated
    words also by part, words in capitals also capitalised ("JONES'S" → "Jones"), so that no new name equals the
    name of another person of the text (issue 27, item 3)."""
    words: set[str] = set()
    for word in re.findall(r"\b[^\W\d_][\w'’-]*\b", text):
        if not word[0].isupper():
            continue
        word = re.sub(r"['’][sS]$", "", word)
        for part in {word, *word.split("-")}:
            if part:
                words |= {part, part.capitalize()} if part.isupper() else {part}
    return frozenset(words)

