"""Politicians and pairs for the politician swap (METHODS §1.5; Zhou & Tan Table 1): the politicians table and its
office terms, each politician's name forms in tiers, pair parsing and the pattern that finds the forms in a text."""

from __future__ import annotations

import csv
import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from nicknames import NickNamer

from bias_core.common.paths import DATA_DIR
from bias_core.perturb.names import first_name_gender
from bias_core.safety.errors import InputError

POLITICIANS_CSV = DATA_DIR / "politicians.csv"
_SUFFIX = r"(?:,?\s+(?P<suffix>Jr\.?|Sr\.?|JR\.?|SR\.?|II|III|IV)(?![\w]))?"
_SUFFIX_WORDS = frozenset({"jr", "sr", "ii", "iii", "iv"})


class PairError(InputError, ValueError):
    """A politician pair that is not 'First Last=First Last' (an input error that is also a bad config value)."""


@dataclass(frozen=True)
class PoliticianRecord:
    """One person of the politicians table: the name parts the swap needs and the gender (data/README.md)."""

    name: str
    first_name: str
    middle_name: str
    last_name: str
    suffix: str
    nickname: str
    gender: str


@dataclass(frozen=True)
class OfficeTerm:
    """One office a person of the politicians table held, from ``start`` to ``end`` (ISO dates; "" when open)."""

    name: str
    last_name: str
    office: str  # without the state: "President", "US Senator", "Governor" …
    start: str
    end: str

    def held_on(self, date: str) -> bool:
        return bool(self.start) and self.start <= date and (not self.end or date < self.end)


@dataclass(frozen=True)
class Politician:
    """A politician's name forms in tiers (Zhou & Tan Table 1 rows), own suffixes, given names and gender."""

    name: str
    first_name: str
    last_name: str
    tiers: tuple[tuple[str, ...], ...]
    own_suffixes: tuple[str, ...] = ()
    given_names: frozenset[str] = frozenset()  # first names, nicknames, middle names and initials, without dots
    gender: str | None = None

    @property
    def forms(self) -> list[str]:
        """Every name form, longest first (the order in which they are matched)."""
        return sorted({form for tier in self.tiers for form in tier}, key=lambda form: (-len(form), form))

    @property
    def slug(self) -> str:
        return re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")

    def is_own_given_name(self, word: str) -> bool:
        """Return whether ``word`` is one of this politician's first names, nicknames, middle names or initials."""
        return _bare(word) in self.given_names


@dataclass(frozen=True)
class PoliticianPair:
    """Two politicians whose tiers correspond row by row (Zhou & Tan Table 1)."""

    e1: Politician
    e2: Politician

    def __post_init__(self) -> None:
        if len(self.e1.tiers) != len(self.e2.tiers):
            raise ValueError("both politicians need the same number of name-form tiers")

    def mapping(self, source: Politician, target: Politician) -> dict[str, str]:
        """Map every form of ``source`` to the first form of the same tier of ``target`` (in capitals for a form
        written in capitals); the name as given in the pair maps to the other name as given ("Al Gore" →
        "George W. Bush" for the pair "George W. Bush=Al Gore")."""
        mapping = {form: _cased(form, target_tier[0])
                   for tier, target_tier in zip(source.tiers, target.tiers, strict=True) for form in tier}
        for form in (source.name, source.name.upper()):
            if form in mapping:
                mapping[form] = _cased(form, target.name)
        return mapping

    @property
    def label(self) -> str:
        return f"{self.e1.name}={self.e2.name}"


def _cased(form: str, replacement: str) -> str:
    return replacement.upper() if form.isupper() and sum(c.isalpha() for c in form) > 1 else replacement


def _bare(word: str) -> str:
    return word.replace(".", "").replace(" ", "").lower()


@functools.cache
def _nicknamer() -> NickNamer:
    return NickNamer()


@functools.cache
def politician_records(path: Path = POLITICIANS_CSV) -> tuple[PoliticianRecord, ...]:
    """Return the distinct people of the politicians table, ordered by the last date they held an office.

    A person's rows (one per office) are merged by bioguide ID, else by name parts: a roster may give the middle
    name in one office's entry and not in another's (Kamala Harris as senator and as vice president).
    """
    if not path.is_file():
        raise InputError(str(path), "politicians table not found", hint="reinstall summbias or rebuild it with "
                         "scripts/build_politicians.py")
    people: dict[tuple[str, ...], dict[str, str]] = {}
    with path.open(newline="", encoding="utf-8") as stream:
        for row in csv.DictReader(stream):
            key = (row["bioguide"],) if row.get("bioguide") else (row["first_name"], row["last_name"], row["gender"])
            person = people.setdefault(key, dict(row, latest=""))
            for column in ("middle_name", "nickname", "suffix"):
                person[column] = person[column] or row[column]
            if len(row["first_name"].split()) < len(person["first_name"].split()):  # "James David" vs "James"
                person["first_name"] = row["first_name"]
            person["latest"] = max(person["latest"], row.get("end") or row.get("start") or row.get("years", ""))
    ordered = sorted(people.values(), key=lambda person: person["latest"])
    return tuple(PoliticianRecord(person["name"], person["first_name"], person["middle_name"], person["last_name"],
                                  person["suffix"], person["nickname"], person["gender"]) for person in ordered)


@functools.cache
def office_terms(last_name: str, path: Path = POLITICIANS_CSV) -> tuple[OfficeTerm, ...]:
    """Every office term in the politicians table of people with this last name."""
    return tuple(term for term in _all_office_terms(path) if term.last_name == last_name)


@functools.cache
def _all_office_terms(path: Path) -> tuple[OfficeTerm, ...]:
    with path.open(newline="", encoding="utf-8") as stream:
        return tuple(OfficeTerm(row["name"], row["last_name"], row["office"].split(" (")[0], row.get("start") or "",
                                row.get("end") or "") for row in csv.DictReader(stream))


def first_name_variants(first: str) -> set[str]:
    """A first name with its common nicknames and the names it is a nickname of (Richard ↔ Dick, Joe ↔ Joseph)."""
    return {first} | _nicknames_of(first) | _canonicals_of(first)


def _nicknames_of(name: str) -> set[str]:
    return {_title_case(alias) for alias in _nicknamer().nicknames_of(name.lower())}


def _canonicals_of(name: str) -> set[str]:
    return {_title_case(alias) for alias in _nicknamer().canonicals_of(name.lower())}


def _title_case(name: str) -> str:
    return "-".join(part[:1].upper() + part[1:] for part in name.split("-"))


def _is_initials(name: str) -> bool:
    return all(len(word.rstrip(".")) == 1 for word in name.replace(".", ". ").split())


def _dotted_variants(name: str) -> set[str]:
    """Return a name with its initials written with and without full stops ("J.D." → "J.D.", "J. D.", "JD";
    "W." → "W.", "W"; "Herbert Walker" → itself, "H. W.", "H.W.", "H W")."""
    words = name.replace(".", ". ").split()
    letters = [word.rstrip(".") for word in words]
    variants = {" ".join(words)}
    if all(len(letter) == 1 for letter in letters):
        variants |= {" ".join(f"{letter}." for letter in letters), "".join(f"{letter}." for letter in letters),
                     " ".join(letters), *(("".join(letters),) if len(letters) > 1 else ())}
    else:
        initials = [letter[0] for letter in letters]
        variants |= {" ".join(f"{letter}." for letter in initials), "".join(f"{letter}." for letter in initials),
                     " ".join(initials)}
    return variants


def _parts(name: str, last: str | None = None) -> tuple[list[str], str, str]:
    """Split a name as given in a pair into the given names, the last name (``last`` when the name ends with it,
    for last names of several words such as "Van Hollen") and a name suffix ("Jr.")."""
    # Written here rather than with a name parser (nameparser): pair names carry no titles or quoted nicknames,
    # and the split must follow the table's last name, which a general parser does not know.
    words = name.split()
    suffix = ""
    if len(words) > 2 and _bare(words[-1].rstrip(",")) in _SUFFIX_WORDS:
        suffix = words.pop().rstrip(",")
        words[-1] = words[-1].rstrip(",")
    if last and len(last.split()) < len(words) and words[-len(last.split()):] == last.split():
        return words[: -len(last.split())], last, suffix
    return words[:-1], words[-1], suffix


def _initials(names: Iterable[str]) -> str:
    return "".join(word[0] for name in names for word in name.replace(".", ". ").split()).lower()


def find_record(name: str, records: Sequence[PoliticianRecord] | None = None) -> PoliticianRecord | None:
    """Return the table's person a pair name refers to, or None.

    The last name must agree, the first name must be the legal first name, the nickname or a common nickname of
    either, and middle names or initials, where both have them, must have the same initials ("George W. Bush" is
    George Walker Bush, not George Herbert Walker Bush). Among several, a record whose display name is ``name``
    wins, then the one who held an office most recently.
    """
    records = politician_records() if records is None else records
    candidates = []
    for record in records:
        given, last, _ = _parts(name, record.last_name)
        if last != record.last_name or not given:
            continue
        if _bare(given[0]) not in {_bare(alias) for alias in _record_first_names(record)}:
            continue
        if given[1:] and record.middle_name and _initials(given[1:]) != _initials([record.middle_name]):
            continue
        candidates.append(record)
    exact = [record for record in candidates if record.name == name]
    return (exact or candidates or [None])[-1]


def _record_first_names(record: PoliticianRecord) -> set[str]:
    names = {record.first_name, record.first_name.split()[0]} | ({record.nickname} if record.nickname else set())
    for name in list(names):
        names |= _nicknames_of(name)
    return names


def make_politician(name: str, record: PoliticianRecord | None = None) -> Politician:
    """Return a politician's tiers built from the name as given and, when found, the table's record.

    Tier 0 is the last name; tier 1 every first name, nickname or initial before it; tier 2 every first name with
    every written form of the middle name. The first form of each tier is the one a swap writes: the last name,
    "First Last" with the first name as given, and the name as given when it has a middle part.
    """
    given, last, suffix = _parts(name, record.last_name if record else None)
    first = given[0]
    middles = [" ".join(given[1:])] if given[1:] else []
    if record is not None:
        first_names = {first} | _record_first_names(record)
        middles += [record.middle_name] if record.middle_name else []
        initials = {first[0], record.first_name[0], *record.nickname[:1]}
        suffixes = {suffix, record.suffix} - {""}
        gender = record.gender or None
    else:
        first_names = {first} | _nicknames_of(first) | _canonicals_of(first)
        initials = {first[0]}
        suffixes = {suffix} - {""}
        gender = first_name_gender(first)
    first_forms = set().union(*(_dotted_variants(alias) if _is_initials(alias) else {alias} for alias in first_names))
    middle_forms = set().union(set(), *(_dotted_variants(middle) for middle in middles))
    canonical = f"{first} {last}"
    written = " ".join([*given, last])
    tiers = (
        [last],
        [canonical, *sorted(f"{form} {last}" for form in first_forms | {f"{i}." for i in initials if i.isalpha()})],
        [written if given[1:] else canonical, *sorted(f"{f} {m} {last}" for f in first_forms for m in middle_forms)],
    )
    with_capitals = tuple(tuple(_dedupe([*tier, *(form.upper() for form in tier)])) for tier in tiers)
    given_names = {_bare(word) for form in first_forms | middle_forms for word in [form, *form.split()]}
    return Politician(name, first, last, with_capitals, tuple(sorted(_suffix_forms(suffixes))),
                      frozenset(given_names), gender)


def _suffix_forms(suffixes: Iterable[str]) -> set[str]:
    forms = set()
    for suffix in suffixes:
        bare = suffix.rstrip(".")
        forms |= {bare, f"{bare}.", bare.upper(), f"{bare.upper()}."}
    return forms


def _dedupe(forms: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(forms))


def _with_table_1(politician: Politician, table_1: tuple[tuple[str, ...], ...]) -> Politician:
    """Put Zhou & Tan's Table 1 forms first in each tier (the first is the one mapped to); generated forms that
    Table 1 places in another tier stay there."""
    listed = {form for tier in table_1 for form in tier}
    tiers = tuple(tuple(_dedupe([*mine, *(form for form in generated if form not in listed)]))
                  for mine, generated in zip(table_1, politician.tiers, strict=True))
    return Politician(politician.name, politician.first_name, politician.last_name, tiers,
                      politician.own_suffixes, politician.given_names, politician.gender)


_TABLE_1 = {
    "Donald Trump": (("Trump",), ("Donald Trump", "D. Trump"), ("Donald J. Trump", "Donald John Trump")),
    "Joe Biden": (("Biden",), ("Joe Biden", "Joseph Biden", "J. Biden"),
                  ("Joe R. Biden", "Joseph R. Biden", "Joe Robinette Biden", "Joseph Robinette Biden")),
}


@functools.cache
def politician(name: str) -> Politician:
    """Return the politician a pair names: the table's record when found (Table 1 forms first for Trump and
    Biden), else forms derived from the name alone."""
    name = " ".join(name.split())
    made = make_politician(name, find_record(name))
    return _with_table_1(made, _TABLE_1[name]) if name in _TABLE_1 else made


TRUMP = politician("Donald Trump")
BIDEN = politician("Joe Biden")
TRUMP_BIDEN = PoliticianPair(TRUMP, BIDEN)


def parse_pair(text: str) -> PoliticianPair:
    """Parse "Donald Trump=Joe Biden" into a pair; anything but two names of two words or more around exactly one
    "=" is a :class:`PairError` (one line, says what to write)."""
    if not isinstance(text, str) or text.count("=") != 1:
        raise PairError(f"politician pair {text!r}", "needs exactly one '=' between two names",
                        hint="write it as 'Donald Trump=Joe Biden'")
    names = [" ".join(side.split()) for side in text.split("=")]
    if any(len(name.split()) < 2 for name in names):
        raise PairError(f"politician pair {text!r}", "each side needs a first and a last name",
                        hint="a pair is 'First Last=First Last', e.g. 'Donald Trump=Joe Biden'")
    e1, e2 = (politician(name) for name in names)
    if e1.last_name == e2.last_name:
        raise PairError(f"politician pair {text!r}", "the two people need different last names",
                        hint="pick two politicians whose last names differ")
    return PoliticianPair(e1, e2)


def form_pattern(forms: Sequence[str]) -> re.Pattern[str]:
    return _compiled(tuple(sorted(forms, key=lambda form: (-len(form), form))))


@functools.cache
def _compiled(forms: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(form) for form in forms)
    return re.compile(r"(?<![\w.])(?P<form>" + alternatives + r")(?![\w])" + _SUFFIX)


def count_forms(text: str, politician: Politician) -> int:
    """Return how many name forms of ``politician`` a text contains (whole words, longest match)."""
    return sum(1 for _ in form_pattern(politician.forms).finditer(text))
