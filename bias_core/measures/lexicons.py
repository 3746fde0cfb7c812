"""Load the lexicons and tables shipped in ``data/`` (provenance in data/README.md, "Lexicons and tables").

Files are plain text so users can read, edit and replace them: one entry per line, ``#`` starts a comment.
Users may pass their own file wherever a default path is used.
"""

from __future__ import annotations

import csv
import functools
from dataclasses import dataclass
from pathlib import Path

from bias_core.errors import InputError

DATA_DIR = Path(__file__).resolve().parents[2] / "data"
LEXICON_DIR = DATA_DIR / "lexicons"
POLITICIANS_CSV = DATA_DIR / "politicians.csv"
POLITICIAN_COLUMNS = ("name", "party", "gender", "office", "years")


def _entries(path: Path) -> list[list[str]]:
    if not path.is_file():
        raise InputError(str(path), "lexicon file not found", hint="pass an existing file or reinstall summbias")
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            rows.append(line.split("\t") if "\t" in line else [line])
    return rows


@functools.cache
def paired_identifiers(path: Path = LEXICON_DIR / "paired_identifiers.tsv") -> dict[str, str]:
    """Return word → "male/female" for the paired identifiers normalised before Fightin' Words (METHODS §4.6)."""
    mapping: dict[str, str] = {}
    for line, row in enumerate(_entries(path), start=1):
        if len(row) != 2:
            raise InputError(str(path), "each entry needs a male and a female word separated by a tab", row=line)
        male, female = (word.strip().lower() for word in row)
        joined = f"{male}/{female}"
        for word in (male, female):
            if word in mapping and mapping[word] != joined:
                raise InputError(str(path), f"'{word}' belongs to two pairs", row=line)
            mapping[word] = joined
    return mapping


@dataclass(frozen=True)
class Lexicon:
    """A word lexicon: base forms with their inflections, and multi-word phrases, all lowercased."""

    name: str
    words: frozenset[str]
    phrases: tuple[tuple[str, ...], ...]

    def __len__(self) -> int:
        return len(self.words) + len(self.phrases)


def _inflections(base: str) -> set[str]:
    """Regular English verb forms of ``base`` (3rd person, past, -ing); irregular forms are listed in the files."""
    forms = {base}
    if base.endswith("e"):
        forms |= {base + "s", base + "d", base[:-1] + "ing"}
    elif base.endswith("y") and len(base) > 2 and base[-2] not in "aeiou":
        forms |= {base[:-1] + "ies", base[:-1] + "ied", base + "ing"}
    elif base.endswith(("s", "sh", "ch", "x", "z")):
        forms |= {base + "es", base + "ed", base + "ing"}
    else:
        forms |= {base + "s", base + "ed", base + "ing"}
    return forms


@functools.cache
def word_lexicon(name: str, *, inflect: bool = True, directory: Path = LEXICON_DIR) -> Lexicon:
    """Load ``data/lexicons/<name>.txt``.

    A line holds a base form followed by optional irregular forms (space-separated), or a multi-word phrase marked
    with a leading ``"`` (matched as a word sequence, no inflection). With ``inflect`` regular verb inflections of
    every base form are added.
    """
    words: set[str] = set()
    phrases: list[tuple[str, ...]] = []
    for row in _entries(directory / f"{name}.txt"):
        entry = row[0].strip().lower()
        if entry.startswith('"'):
            phrases.append(tuple(entry.strip('"').split()))
            continue
        base, *irregular = entry.split()
        words |= _inflections(base) if inflect else {base}
        words |= set(irregular)
    return Lexicon(name, frozenset(words), tuple(phrases))


@dataclass(frozen=True)
class Politician:
    """A row of the politicians table (name, party, gender, office, years)."""

    name: str
    party: str
    gender: str
    office: str
    years: str


def load_politicians(path: str | Path = POLITICIANS_CSV) -> list[Politician]:
    """Read a politicians table (CSV with columns name, party, gender, office, years); users may upload their own."""
    path = Path(path)
    if not path.is_file():
        raise InputError(str(path), "no such file")
    with path.open(newline="", encoding="utf-8-sig") as stream:
        reader = csv.DictReader(stream)
        missing = [c for c in POLITICIAN_COLUMNS[:4] if c not in (reader.fieldnames or [])]
        if missing:
            raise InputError(str(path), f"missing column(s) {', '.join(missing)}",
                             hint="the header must name name, party, gender, office (and optionally years)")
        rows = []
        for line, record in enumerate(reader, start=2):
            name = (record.get("name") or "").strip()
            if not name:
                raise InputError(str(path), "empty name", row=line)
            rows.append(Politician(name, (record["party"] or "").strip().lower(),
                                   (record["gender"] or "").strip().lower(), (record["office"] or "").strip(),
                                   (record.get("years") or "").strip()))
    return rows
