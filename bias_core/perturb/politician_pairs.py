"""Which politicians a corpus names, and which pairs to swap (METHODS §1.5; Zhou & Tan §3).

Zhou & Tan swap Trump and Biden in articles that mention one of them and not the other; on a user's corpus that pair
may cover nothing. This module counts, per person of the politicians table (``data/politicians.csv``), the originals
that name them, and suggests for each a counterpart of the same office and the opposite party, whether the corpus names
the counterpart or not (a corpus naming only George W. Bush gets Bush = Obama, Bush = Clinton, Bush = Gore …), the
pairs covering the most originals first, so the Audit page can offer pairs the corpus supports instead of a blind
guess.

A person counts as named by an original when the text holds one of their full name forms (a given name and the last
name, with the forms of ``politician_forms.politician``) that no other person of the table shares: "George Bush"
could be either President Bush and counts for neither; a surname alone ("Bush", "President Bush") does not count. The
counts are therefore a floor; the swap itself decides each original (``PoliticianSwap``), and may still skip one
(another person of the same last name, a surname it cannot resolve).
"""

from __future__ import annotations

import csv
import functools
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from bias_core.common.records import Document
from bias_core.common.words import counted
from bias_core.perturb.politician_forms import POLITICIANS_CSV, form_pattern, politician, politician_records

# The offices a pair must share; a table office "US Senator (Ohio)" is "US Senator". A president and a vice
# president are counterparts too (the national ticket: Bush against Gore in 2000, against Kerry in 2004).
OFFICES = ("President", "Vice President", "US Senator", "US Representative", "Governor")
OFFICE_GROUPS = {"President": "President or Vice President", "Vice President": "President or Vice President"}
OPPOSITE = {"democrat": "republican", "republican": "democrat"}
DEFAULT_SUGGESTIONS = 5


@dataclass(frozen=True)
class NamedPolitician:
    """A person of the politicians table and the originals of a corpus that name them."""

    name: str
    offices: tuple[str, ...]
    parties: tuple[str, ...]
    originals: frozenset[str]

    @property
    def n_originals(self) -> int:
        return len(self.originals)


@dataclass(frozen=True)
class PairSuggestion:
    """A pair of the same office and opposite parties, and how many originals each direction of the swap covers
    (originals naming one of the two and not the other). ``e1`` is named by the corpus; ``e2`` may not be."""

    e1: str
    e2: str
    office: str
    e1_only: int
    e2_only: int
    years: tuple[str, str] = ("", "")  # each person's years in the shared office ("2001–2009"), "" when unknown

    @property
    def label(self) -> str:
        """The pair as the politician swap takes it ("First Last=First Last")."""
        return f"{self.e1}={self.e2}"

    @property
    def covered(self) -> int:
        return self.e1_only + self.e2_only

    def describe(self) -> str:
        """"Donald Trump = Joe Biden (President): 7 originals (5 name only Trump, 2 only Biden)"; with a counterpart
        the corpus does not name, "George W. Bush = Al Gore (President or Vice President, 2001–2009 and 1993–2001):
        8 originals naming Bush, none naming Gore"."""
        last = (self.e1.split()[-1], self.e2.split()[-1])
        office = self.office + (f", {self.years[0]} and {self.years[1]}" if all(self.years) else "")
        head = f"{self.e1} = {self.e2} ({office}): {counted(self.covered, 'original')}"
        if not (self.e1_only and self.e2_only):
            named, absent = last if self.e1_only else last[::-1]
            return f"{head} naming {named}, none naming {absent}"
        return f"{head} ({self.e1_only} name only {last[0]}, {self.e2_only} only {last[1]})"


@dataclass(frozen=True)
class _Spell:
    office: str
    party: str
    start: int | None
    end: int | None

    @property
    def years(self) -> str:
        return f"{self.start}–{self.end}" if self.start and self.end else ""


@dataclass(frozen=True)
class _Person:
    gender: str
    spells: tuple[_Spell, ...]

    @property
    def offices(self) -> tuple[str, ...]:
        return tuple(sorted({spell.office for spell in self.spells}))

    @property
    def parties(self) -> tuple[str, ...]:
        return tuple(sorted({spell.party for spell in self.spells if spell.party}))


def _year(date: str) -> int | None:
    return int(date[:4]) if date[:4].isdigit() else None


@functools.cache
def _people() -> dict[str, _Person]:
    """Person → gender and office spells (office without the state, party at the end of the spell, years)."""
    spells: dict[str, list[_Spell]] = defaultdict(list)
    genders: dict[str, str] = {}
    with POLITICIANS_CSV.open(newline="", encoding="utf-8") as stream:
        for row in csv.DictReader(stream):
            spells[row["name"]].append(_Spell(row["office"].split(" (")[0], row.get("party") or "",
                                              _year(row.get("start") or ""), _year(row.get("end") or "")))
            genders.setdefault(row["name"], row.get("gender") or "")
    return {name: _Person(genders[name], tuple(person_spells)) for name, person_spells in spells.items()}


def _table() -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """Person → (offices, parties) from every row of the politicians table."""
    return {name: (person.offices, person.parties) for name, person in _people().items()}


def _counterpart(a: _Person, b: _Person) -> tuple[int, int, str, tuple[str, str]] | None:
    """How well ``b`` stands in for ``a``: (years between their spells, 0 when they overlap or follow each other;
    0 for the same office, 1 for its group only; the office in words; each one's years), for the closest pair of
    spells in a shared office (or office group) held for opposite parties; None when there is none."""
    best = None
    for x in a.spells:
        for y in b.spells:
            if x.office not in OFFICES or OPPOSITE.get(x.party) != y.party:
                continue
            if x.office == y.office:
                same, office = 0, x.office
            elif OFFICE_GROUPS.get(x.office, x.office) == OFFICE_GROUPS.get(y.office, y.office):
                same, office = 1, OFFICE_GROUPS[x.office]
            else:
                continue
            known = None not in (x.start, x.end, y.start, y.end)
            gap = max(0, max(x.start, y.start) - min(x.end, y.end)) if known else 100  # type: ignore[type-var]
            key = (gap, same, office, (x.years, y.years))
            if best is None or key[:2] < best[:2]:
                best = key
    return best


@functools.cache
def _unique_forms() -> dict[str, tuple[str, ...]]:
    """Person → their full name forms (every tier but the surname alone) that no other person of the table has."""
    forms = {record.name: {form for tier in politician(record.name).tiers[1:] for form in tier}
             for record in politician_records()}
    owners = Counter(form for person_forms in forms.values() for form in person_forms)
    return {name: tuple(sorted(form for form in person_forms if owners[form] == 1))
            for name, person_forms in forms.items()}


@functools.cache
def _by_last_word() -> dict[str, tuple[str, ...]]:
    """The last word of a last name (lowercase) → the people who have it, to look only at people a text can name."""
    people: dict[str, list[str]] = defaultdict(list)
    for record in politician_records():
        people[record.last_name.split()[-1].lower()].append(record.name)
    return {word: tuple(names) for word, names in people.items()}


_WORD = re.compile(r"[^\W\d_][\w'’-]*")


def named_politicians(documents: Sequence[Document]) -> list[NamedPolitician]:
    """Every person of the politicians table that some original names by a full name form, most originals first."""
    found: dict[str, set[str]] = defaultdict(set)
    unique, by_last = _unique_forms(), _by_last_word()
    for document in documents:
        words = {word.lower() for word in _WORD.findall(document.text)}
        for name in {name for word in words for name in by_last.get(word, ())}:
            if unique[name] and form_pattern(unique[name]).search(document.text):
                found[name].add(document.id)
    table = _table()
    named = [NamedPolitician(name, *table.get(name, ((), ())), frozenset(ids)) for name, ids in found.items()]
    return sorted(named, key=lambda person: (-person.n_originals, person.name))


def suggest_pairs(documents: Sequence[Document], limit: int = DEFAULT_SUGGESTIONS,
                  named: Sequence[NamedPolitician] | None = None) -> list[PairSuggestion]:
    """Pairs of a person the corpus names and a counterpart from the whole politicians table, named by the corpus
    or not: the same office (a president's counterpart may be a vice president) held for the opposite party (a
    Democrat for a Republican), a different last name. Those covering the most originals come first (an original
    counts when it names one of the two and not the other, as the swap needs); ties go to the more balanced pair,
    then the same gender (a swap across genders changes more than the politician), then the nearest years in
    office, then the same office over its group, then by name. A corpus naming only George W. Bush gets Bush =
    Bill Clinton, Bush = Barack Obama, Bush = Al Gore …, each covering every original that names Bush."""
    named = list(named) if named is not None else named_politicians(documents)
    people, originals = _people(), {person.name: person.originals for person in named}
    ranked: dict[frozenset[str], tuple[tuple, PairSuggestion]] = {}
    for a in named:
        if a.name not in people:
            continue
        for name, b in people.items():
            if name == a.name or name.split()[-1] == a.name.split()[-1] or frozenset((a.name, name)) in ranked:
                continue
            match = _counterpart(people[a.name], b)
            if match is None:
                continue
            gap, same, office, years = match
            theirs = originals.get(name, frozenset())
            suggestion = PairSuggestion(a.name, name, office, len(a.originals - theirs), len(theirs - a.originals),
                                        years)
            key = (-suggestion.covered, abs(suggestion.e1_only - suggestion.e2_only),
                   people[a.name].gender != b.gender, gap, same, suggestion.label)
            ranked[frozenset((a.name, name))] = (key, suggestion)
    return [suggestion for _, suggestion in sorted(ranked.values(), key=lambda item: item[0])[:limit]]


def pair_coverage(label: str, documents: Sequence[Document]) -> tuple[int, int]:
    """For a pair "A=B": the originals naming only A and only B by a full name form (before the swap's own checks)."""
    from bias_core.perturb.politician_forms import parse_pair

    pair = parse_pair(label)
    hits = []
    for person in (pair.e1, pair.e2):
        pattern = form_pattern([form for tier in person.tiers[1:] for form in tier])
        hits.append({document.id for document in documents if pattern.search(document.text)})
    return len(hits[0] - hits[1]), len(hits[1] - hits[0])
