"""Words that say a capitalised span names a place, organisation or thing rather than a person (METHODS §1.1 step 1;
issue 10). The rules that use them are in ``person_evidence``.
"""

from __future__ import annotations

# spaCy labels of things that are not people (OntoNotes). A name string the document labels with one of these more
# often than PERSON is a place, organisation, building, event or product, whatever its first word.
NON_PERSON_LABELS = frozenset({"GPE", "LOC", "ORG", "FAC", "EVENT", "WORK_OF_ART", "PRODUCT", "NORP", "LAW",
                               "LANGUAGE"})
# First words of place names that are also census first names ("Santa Barbara", "San Diego", "St. Louis"); a span
# starting with one is no person's name.
PLACE_PREFIXES = frozenset({
    "san", "santa", "santo", "sao", "st", "ste", "saint", "fort", "ft", "port", "mount", "mt", "lake", "new", "los",
    "las", "el", "la", "le", "des", "cape", "north", "south", "east", "west", "upper", "lower",
})
# Words before a name that do not make it a person's name ("St. John's", "former Virginia ...").
NO_EVIDENCE_TITLES = frozenset({"st", "saint", "former"})
# A span ending in one of these names an organisation or place the NER took for a person ("Rivermouth FC"). Words
# that are also common surnames (Park, Hall, Church) are not listed.
ORGANISATION_WORDS = frozenset({
    "fc", "united", "city", "club", "high", "school", "elementary", "academy", "college", "university", "inc",
    "corp", "co", "company", "llc", "ltd", "foundation", "council", "street", "avenue", "road", "center", "centre",
    "hospital", "county", "institute", "association", "stadium",
    # places, buildings and newspapers ("Virginia Beach", "Harmon Falls", "Camden Yards", "Lincoln Memorial",
    # "Washington Post", "San Diego State"); issue 10
    "beach", "falls", "yards", "valley", "springs", "heights", "harbor", "harbour", "island", "islands",
    "river", "creek", "canyon", "mountain", "mountains", "forest", "memorial", "monument", "mission",
    "boulevard", "blvd", "drive", "parkway", "highway", "plaza", "square", "arena", "airport", "station",
    "cathedral", "chapel", "museum", "library", "gallery", "theater", "theatre", "hotel", "tower", "towers",
    "district", "province", "state", "post", "times", "herald", "tribune", "gazette", "journal", "energy", "group",
    "partners", "holdings", "bank", "motors", "airlines", "records", "studios", "network", "news", "market",
    "markets", "foods", "stores",
})
