"""Which politicians a corpus names, and which pairs to swap (METHODS §1.5; Zhou & Tan §3).

Zhou & Tan swap Trump and Biden in articles that mention one of them and not the other; on a user's corpus that pair
may cover nothing. This module counts, per person of the politicians table (``data/politicians.csv``), the originals
that name them, and suggests pairs of the same office and opposite parties that cover the most originals, so the
Audit page can offer pairs the corpus supports instead of a blind guess.

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
from bias_core.perturb.politician_forms import POLITICIANS_CSV, form_pattern, politician, politician_records

# The offices a pair must share; a table office "US Senator (Ohio)" is "US Senator".
OFFICES = ("President", "Vice President", "US Senator", "US Representative", "Governor")
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
    (originals naming one of the two and not the other)."""

    e1: str
    e2: str
    office: str
    e1_only: int
    e2_only: int

    @property
    def label(self) -> str:
        """The pair as the politician swap takes it ("First Last=First Last")."""
        return f"{self.e1}={self.e2}"

    @property
    def covered(self) -> int:
        return self.e1_only + self.e2_only

    def describe(self) -> str:
        """"Donald Trump = Joe Biden (President): 7 originals (5 name only Trump, 2 only Biden)"."""
        last = (self.e1.split()[-1], self.e2.split()[-1])
        return (f"{self.e1} = {self.e2} ({self.office}): {self.covered} original{'s' if self.covered != 1 else ''} "
                f"({self.e1_only} name only {last[0]}, {self.e2_only} only {last[1]})")


@functools.cache
def _table() -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """Person → (offices, parties) from every row of the politicians table."""
    offices: dict[str, set[str]] = defaultdict(set)
    parties: dict[str, set[str]] = defaultdict(set)
    with POLITICIANS_CSV.open(newline="", encoding="utf-8") as stream:
        for row in csv.DictReader(stream):
            offices[row["name"]].add(row["office"].split(" (")[0])
            if row.get("party"):
                parties[row["name"]].add(row["party"])
    return {name: (tuple(sorted(offices[name])), tuple(sorted(parties[name]))) for name in offices}


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
    """Pairs of people the corpus names who held the same office for opposite parties (a Democrat and a
    Republican) and have different last names, those covering the most originals first (ties: the more balanced
    pair, then by name)."""
    named = list(named) if named is not None else named_politicians(documents)
    suggestions = []
    for i, a in enumerate(named):
        for b in named[i + 1:]:
            shared = [office for office in OFFICES if office in a.offices and office in b.offices]
            if not shared or a.name.split()[-1] == b.name.split()[-1]:
                continue
            if not ({"democrat", "republican"} <= set(a.parties) | set(b.parties)) \
                    or set(a.parties) == set(b.parties):
                continue
            suggestions.append(PairSuggestion(a.name, b.name, shared[0], len(a.originals - b.originals),
                                              len(b.originals - a.originals)))
    suggestions.sort(key=lambda s: (-s.covered, abs(s.e1_only - s.e2_only), s.label))
    return suggestions[:limit]


def pair_coverage(label: str, documents: Sequence[Document]) -> tuple[int, int]:
    """For a pair "A=B": the originals naming only A and only B by a full name form (before the swap's own checks)."""
    from bias_core.perturb.politician_forms import parse_pair

    pair = parse_pair(label)
    hits = []
    for person in (pair.e1, pair.e2):
        pattern = form_pattern([form for tier in person.tiers[1:] for form in tier])
        hits.append({document.id for document in documents if pattern.search(document.text)})
    return len(hits[0] - hits[1]), len(hits[1] - hits[0])
