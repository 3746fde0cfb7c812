"""Build data/politicians.csv from the public rosters, so the politicians table is checked data, not memory.

Sources (data/README.md, "Lexicons and tables"):
- members of Congress who served at any time from December 2019 to June 2026, and presidents and vice presidents
  in office from 1977 (Carter) on: unitedstates/congress-legislators @ dfa9622 (CC0-1.0), as copied to
  ``/work/shared/reference/politicians/`` (``congress-2019-2026.json``, ``executive.yaml``);
- governors: the hand-maintained ``data/governors.csv`` (that source has no governors).

One row per person and office spell (consecutive terms in the same office and state). Party changes inside a
spell are kept with their dates in ``party_history``; ``party`` is the party at the end of the spell. The output
is deterministic (sorted rows, fixed columns), and ``tests/test_politicians_table.py`` checks that the shipped
CSV equals it.

Run: .venv/bin/python scripts/build_politicians.py [--reference DIR] [--out CSV]
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import io
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
REFERENCE = Path("/work/shared/reference/politicians")
GOVERNORS = REPO / "data" / "governors.csv"
OUT = REPO / "data" / "politicians.csv"

COLUMNS = ("name", "first_name", "middle_name", "last_name", "suffix", "nickname", "official_full_name", "gender",
           "party", "party_history", "office", "state", "start", "end", "years", "bioguide", "source")
CONGRESS_SOURCE = "unitedstates/congress-legislators (CC0-1.0)"
GOVERNORS_SOURCE = "data/governors.csv (hand-maintained)"
# Congress: office spells that end after the 116th Congress began (the JSON lists members serving from Dec 2019).
CONGRESS_FROM = "2019-01-03"
# Executive: presidents and vice presidents whose term ended after Ford's (Carter and Mondale on), the era of
# digitised news archives such as CNN/DailyMail and ABC news.
EXECUTIVE_FROM = "1977-01-20"
# Consecutive terms at most this many days apart form one spell (appointment, then special election).
SPELL_GAP_DAYS = 62

# USPS codes as used by congress-legislators; a 56-entry table is simpler than a dependency.
STATES = {
    "AL": "Alabama", "AK": "Alaska", "AZ": "Arizona", "AR": "Arkansas", "CA": "California", "CO": "Colorado",
    "CT": "Connecticut", "DE": "Delaware", "FL": "Florida", "GA": "Georgia", "HI": "Hawaii", "ID": "Idaho",
    "IL": "Illinois", "IN": "Indiana", "IA": "Iowa", "KS": "Kansas", "KY": "Kentucky", "LA": "Louisiana",
    "ME": "Maine", "MD": "Maryland", "MA": "Massachusetts", "MI": "Michigan", "MN": "Minnesota",
    "MS": "Mississippi", "MO": "Missouri", "MT": "Montana", "NE": "Nebraska", "NV": "Nevada",
    "NH": "New Hampshire", "NJ": "New Jersey", "NM": "New Mexico", "NY": "New York", "NC": "North Carolina",
    "ND": "North Dakota", "OH": "Ohio", "OK": "Oklahoma", "OR": "Oregon", "PA": "Pennsylvania",
    "RI": "Rhode Island", "SC": "South Carolina", "SD": "South Dakota", "TN": "Tennessee", "TX": "Texas",
    "UT": "Utah", "VT": "Vermont", "VA": "Virginia", "WA": "Washington", "WV": "West Virginia",
    "WI": "Wisconsin", "WY": "Wyoming", "DC": "District of Columbia", "PR": "Puerto Rico", "GU": "Guam",
    "VI": "U.S. Virgin Islands", "AS": "American Samoa", "MP": "Northern Mariana Islands",
}
OFFICE_ORDER = ("President", "Vice President", "US Senator", "US Representative", "US Delegate",
                "US Resident Commissioner", "Governor")
GENDERS = {"M": "male", "F": "female"}


def _office(term: dict) -> str:
    kind = term["type"]
    if kind == "prez":
        return "President"
    if kind == "viceprez":
        return "Vice President"
    state = STATES[term["state"]]
    if kind == "sen":
        return f"US Senator ({state})"
    if term["state"] == "PR":
        return f"US Resident Commissioner ({state})"
    if term["state"] in ("DC", "GU", "VI", "AS", "MP"):
        return f"US Delegate ({state})"
    return f"US Representative ({state})"


def _parties(term: dict) -> list[tuple[str, str]]:
    """Return (start date, party) of every affiliation within a term, in order."""
    spans = term.get("party_affiliations") or [{"start": term["start"], "party": term["party"]}]
    return [(span["start"], span["party"].lower()) for span in spans]


def _spells(terms: Iterable[dict]) -> list[list[dict]]:
    """Group terms into office spells: the same office, at most SPELL_GAP_DAYS between one end and the next start."""
    spells: list[list[dict]] = []
    for term in sorted(terms, key=lambda t: (t["start"], t["end"])):
        if spells:
            last = spells[-1][-1]
            gap = dt.date.fromisoformat(term["start"]) - dt.date.fromisoformat(last["end"])
            if _office(term) == _office(last) and gap.days <= SPELL_GAP_DAYS:
                spells[-1].append(term)
                continue
        spells.append([term])
    return spells


def _history(spell: list[dict]) -> list[tuple[str, str]]:
    history: list[tuple[str, str]] = []
    for term in spell:
        for start, party in _parties(term):
            if not history or history[-1][1] != party:
                history.append((start, party))
    return history


def _name_fields(name: dict) -> dict[str, str]:
    """Return first, middle, last, suffix and nickname; "Nicole (Nikki)" and "J.D. (James)", as some entries write
    a first name, become the legal first name (the longer one, not initials) and the nickname."""
    first, nickname = name["first"], name.get("nickname", "")
    parts = re.fullmatch(r"(.+?)\s*\((.+)\)", first)
    if parts:
        one, two = parts.groups()
        first, other = (one, two) if len(one.replace(".", "")) > len(two.replace(".", "")) else (two, one)
        nickname = nickname or other
    return {"first_name": first, "middle_name": name.get("middle", "").strip("()"), "last_name": name["last"],
            "suffix": name.get("suffix", ""), "nickname": nickname}


def _person_rows(person: dict, *, since: str, source: str) -> list[dict[str, str]]:
    name = person["name"]
    fields = _name_fields(name)
    rows = []
    for spell in _spells(person["terms"]):
        end = spell[-1]["end"]
        if end <= since:
            continue
        history = _history(spell)
        start = spell[0]["start"]
        rows.append({
            "name": f"{fields['nickname'] or fields['first_name']} {fields['last_name']}", **fields,
            "official_full_name": name.get("official_full", ""), "gender": GENDERS[person["bio"]["gender"]],
            "party": history[-1][1], "party_history": "; ".join(f"{p} from {d}" for d, p in history),
            "office": _office(spell[0]), "state": STATES.get(spell[0].get("state", ""), ""),
            "start": start, "end": end, "years": f"{start[:4]}-{end[:4]}",
            "bioguide": person.get("bioguide") or person.get("id", {}).get("bioguide", ""), "source": source,
        })
    return rows


def _distinct(people: list[dict]) -> list[dict]:
    """Drop the entries of early snapshots that list a new member before their bioguide ID (and sometimes a
    wikidata ID) was assigned: the same person appears with an ID, the same wikidata ID or a term in the same state
    from the same day under the same (last word of the) last name."""
    with_id = [person for person in people if person.get("bioguide")]
    wikidata = {person.get("wikidata") for person in with_id} - {None, ""}
    seats = {(term["state"], term["start"], person["name"]["last"].split()[-1])
             for person in with_id for term in person["terms"]}
    return with_id + [person for person in people if not person.get("bioguide")
                      and person.get("wikidata") not in wikidata
                      and (person["terms"][0]["state"], person["terms"][0]["start"],
                           person["name"]["last"].split()[-1]) not in seats]


def _initials(middle: str) -> str:
    return " ".join(f"{word[0]}." for word in middle.split())


def _disambiguate(rows: list[dict[str, str]]) -> None:
    """Where different people share a display name ("George Bush"), add their middle initials where they differ
    ("George H. W. Bush", "George W. Bush"), as the press does."""
    people: dict[str, dict[tuple[str, ...], list[dict[str, str]]]] = {}
    for row in rows:
        key = (row["bioguide"],) if row["bioguide"] else (row["first_name"], row["middle_name"], row["last_name"])
        people.setdefault(row["name"], {}).setdefault(key, []).append(row)
    for by_person in people.values():
        initials = {_initials(person_rows[0]["middle_name"]) for person_rows in by_person.values()}
        if len(by_person) < 2 or len(initials) < len(by_person):
            continue
        for person_rows in by_person.values():
            middle = person_rows[0]["middle_name"]
            for row in person_rows:
                first, last = row["name"].rsplit(" " + row["last_name"], 1)[0], row["last_name"]
                row["name"] = " ".join(part for part in (first, _initials(middle), last) if part)


def governor_rows(path: Path = GOVERNORS) -> list[dict[str, str]]:
    """Return the hand-maintained governors in the table's columns."""
    rows = []
    with path.open(newline="", encoding="utf-8") as stream:
        for record in csv.DictReader(stream):
            since = record["start"] or record["years"][:4]
            rows.append({
                **{column: "" for column in COLUMNS},
                **{column: record[column] for column in ("name", "first_name", "middle_name", "last_name", "suffix",
                                                          "nickname", "gender", "party", "state", "start", "end",
                                                          "years")},
                "party_history": f"{record['party']} from {since}",
                "office": f"{record['office']} ({record['state']})", "source": GOVERNORS_SOURCE,
            })
    return rows


def build_rows(reference: Path = REFERENCE, governors: Path = GOVERNORS) -> list[dict[str, str]]:
    """Return every row of the politicians table, sorted by office, state, start and name."""
    congress = json.loads((reference / "congress-2019-2026.json").read_text(encoding="utf-8"))
    executive = yaml.safe_load((reference / "executive.yaml").read_text(encoding="utf-8"))
    rows = [row for person in executive
            for row in _person_rows(person, since=EXECUTIVE_FROM, source=CONGRESS_SOURCE)]
    rows += [row for person in _distinct(congress)
             for row in _person_rows(person, since=CONGRESS_FROM, source=CONGRESS_SOURCE)]
    rows += governor_rows(governors)
    _disambiguate(rows)

    def order(row: dict[str, str]) -> tuple:
        kind = next(i for i, prefix in enumerate(OFFICE_ORDER) if row["office"].startswith(prefix))
        return kind, row["state"], row["start"] or row["years"], row["last_name"], row["first_name"], row["bioguide"]

    return sorted(rows, key=order)


def render(rows: list[dict[str, str]]) -> str:
    """Return the CSV text of the table (LF line ends, minimal quoting)."""
    stream = io.StringIO()
    writer = csv.DictWriter(stream, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return stream.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", type=Path, default=REFERENCE, help="folder with congress-2019-2026.json "
                        "and executive.yaml (default: %(default)s)")
    parser.add_argument("--governors", type=Path, default=GOVERNORS, help="hand-maintained governors CSV")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the table (default: %(default)s)")
    args = parser.parse_args(argv)
    missing = [name for name in ("congress-2019-2026.json", "executive.yaml") if not (args.reference / name).is_file()]
    if missing:
        print(f"{args.reference}: missing {', '.join(missing)} — pass --reference with the congress-legislators "
              "files (see data/README.md)", file=sys.stderr)
        return 2
    rows = build_rows(args.reference, args.governors)
    args.out.write_text(render(rows), encoding="utf-8")
    print(f"wrote {len(rows)} rows to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
