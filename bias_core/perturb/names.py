"""First names by gender from the 1990 US census, as shipped by the ``names`` package (METHODS §1.2, §3).

A name on both the male and the female list belongs to the gender whose frequency is at least twice the other's;
otherwise it is ambiguous and unused (Steen & Markert §5.1 and App. F).
"""

from __future__ import annotations

import functools
import importlib.util
import unicodedata
from dataclasses import dataclass
from pathlib import Path

AMBIGUITY_RATIO = 2.0


@dataclass(frozen=True)
class CensusName:
    """A census first name with its gender, its frequency (percent of that gender) and its rank in that list."""

    name: str
    gender: str
    frequency: float
    rank: int


def names_package_folder() -> Path:
    spec = importlib.util.find_spec("names")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the 'names' package (1990 census name lists) is missing; `pip install names==0.3.0`")
    return Path(spec.submodule_search_locations[0])


def read_census_file(path: Path) -> dict[str, tuple[float, int]]:
    table: dict[str, tuple[float, int]] = {}
    for line in path.read_text(encoding="ascii").splitlines():
        parts = line.split()
        if len(parts) == 4:
            table[parts[0].capitalize()] = (float(parts[1]), int(parts[3]))
    return table


@functools.cache
def census_lists() -> dict[str, dict[str, tuple[float, int]]]:
    """The census first-name lists as read: gender -> capitalised name -> (frequency in percent, rank)."""
    folder = names_package_folder()
    return {gender: read_census_file(folder / f"dist.{gender}.first") for gender in ("male", "female")}


@functools.cache
def census_first_names() -> dict[str, CensusName]:
    """Return every unambiguous census first name (capitalised) mapped to its gender record."""
    male, female = census_lists()["male"], census_lists()["female"]
    table: dict[str, CensusName] = {}
    for name in male.keys() | female.keys():
        male_freq, male_rank = male.get(name, (0.0, 0))
        female_freq, female_rank = female.get(name, (0.0, 0))
        if male_freq >= AMBIGUITY_RATIO * female_freq and male_freq > 0:
            table[name] = CensusName(name, "male", male_freq, male_rank)
        elif female_freq >= AMBIGUITY_RATIO * male_freq and female_freq > 0:
            table[name] = CensusName(name, "female", female_freq, female_rank)
    return table


# A census name whose rarer gender has at least this share of the commoner's frequency is given to both in earnest
# (Taylor 2:1, Jordan 5:1, Jean 9:1, Chris 8:1; not John 270:1, Carol 94:1): the text's pronouns outweigh it sooner.
WEAK_GENDER_SHARE = 1 / 20


@functools.cache
def census_gender_is_weak(name: str | None) -> bool:
    """Whether the census gives this first name to both genders in earnest (``WEAK_GENDER_SHARE``), though one
    list holds it at least twice as often (METHODS §1.2: so it has a gender)."""
    if not name:
        return False
    key = fold_accents(name.strip().capitalize())
    counts = [table.get(key, (0.0, 0))[0] for table in census_lists().values()]
    return min(counts) > 0 and min(counts) >= WEAK_GENDER_SHARE * max(counts)


def census_first_name(name: str) -> CensusName | None:
    """The census record of an unambiguous first name, if any. The census lists are plain ASCII, so accents are
    folded before the look-up ("José" → "Jose", "Jérôme" → "Jerome", "Zoë" → "Zoe")."""
    key = name.strip().capitalize()
    return census_first_names().get(key) or census_first_names().get(fold_accents(key))


def first_name_gender(name: str) -> str | None:
    """Return 'male' or 'female' for an unambiguous census first name (accents folded), else ``None``."""
    key = name.strip().capitalize()
    record = census_first_name(key)
    if record is None and "-" in key.strip("-"):
        # A hyphenated first name ("Mary-Kate", "Jean-Pierre") has the gender its parts agree on, else none.
        genders = {first_name_gender(part) for part in key.split("-")}
        return genders.pop() if len(genders) == 1 else None
    return record.gender if record else None


def fold_accents(word: str) -> str:
    """A name with its diacritics removed ("Ḥadīd" → "Hadid", "Zahā" → "Zaha", "José" → "Jose"): how a name is
    looked up in the plain-ASCII name lists, and how a transliteration with accents is told from the plain spelling
    an article uses elsewhere (Unicode NFKD, combining marks dropped)."""
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def top_first_names(gender: str, n: int = 50) -> list[str]:
    """Return the ``n`` most frequent unambiguous first names of a gender, most frequent first."""
    candidates = [record for record in census_first_names().values() if record.gender == gender]
    candidates.sort(key=lambda record: (record.rank, record.name))
    return [record.name for record in candidates[:n]]


# Irish surnames whose apostrophe the census files drop ("OBRIEN"); the stems after the "O".
_O_APOSTROPHE_STEMS = frozenset({
    "BRIEN", "BRYAN", "CONNOR", "CONNELL", "DONNELL", "NEAL", "NEIL", "NEILL", "KEEFE", "HARA", "ROURKE", "MALLEY",
    "LEARY", "SHEA", "REILLY", "GRADY", "TOOLE", "DONOGHUE", "CALLAGHAN", "BANNON", "BOYLE", "DOWD", "GORMAN",
    "HALLORAN", "LOUGHLIN", "MEARA", "DEA", "SULLIVAN", "HAIR", "NEALL",
})


def display_surname(name: str) -> str:
    """Return a census surname (upper case in the files) as written in text: "MCDONALD" → "McDonald",
    "OBRIEN" → "O'Brien"."""
    upper = name.strip().upper()
    if upper.startswith("O") and upper[1:] in _O_APOSTROPHE_STEMS:
        return "O'" + upper[1:].capitalize()
    if upper.startswith("MC") and len(upper) > 2:
        return "Mc" + upper[2:].capitalize()
    return upper.capitalize()


@functools.cache
def census_last_names() -> dict[str, int]:
    """Return the 1990 census surnames (``dist.all.last``, as written in text) mapped to their frequency rank."""
    table: dict[str, int] = {}
    for line in (names_package_folder() / "dist.all.last").read_text(encoding="ascii").splitlines():
        parts = line.split()
        if len(parts) == 4:
            table.setdefault(display_surname(parts[0]), int(parts[3]))
    return table


def is_census_surname(word: str) -> bool:
    """Whether a word is a census surname as written, or with its accents folded ("Muñoz" → "Munoz")."""
    return word in census_last_names() or fold_accents(word) in census_last_names()


def top_last_names(n: int = 50) -> list[str]:
    """Return the ``n`` most frequent census surnames that are not also census first names, most frequent first.

    Surnames that double as first names ("James", "Thomas") are left out so that a replaced last name cannot be
    mistaken for a first name when summaries are aligned to entities (METHODS §3).
    """
    first_names = census_first_names()
    ranked = sorted(census_last_names().items(), key=lambda item: item[1])
    return [name for name, _ in ranked if name not in first_names][:n]
