"""Write ``east_asian_given_names.tsv``: romanised given names by gender for the surname-first names of
``east_asian_surnames.tsv`` that a gender swap can give a new given name of their own tradition (issue 27, item 3).

The names are the lists of the Faker package (MIT; joke2k/faker), read from an unpacked copy of its wheel so that
Faker is not a dependency of summbias:

- ``chinese``: ``faker/providers/person/zh_TW`` ``first_romanized_names_male`` / ``_female`` (Wade–Giles, the
  Taiwanese household-registration statistics of March 2025 named there), written as English text writes such names
  ("CHIA-HAO" → "Chia-hao"); the three names on both lists are left out.
- ``japanese``: ``faker/providers/person/ja_JP`` ``first_romanized_names_male`` / ``_female`` (Hepburn).

Korean and Vietnamese have no romanised gendered list there (Faker's ko_KR names are in Hangul), so those people
stay as written.

    python data/perturb/build_east_asian_given_names.py /path/to/unpacked/faker-40.54.0
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = {
    "chinese": ("zh_TW", "Faker 40.54.0 faker/providers/person/zh_TW first_romanized_names (Wade-Giles; MIT, "
                "Copyright (c) 2012 Daniele Faraglia)"),
    "japanese": ("ja_JP", "Faker 40.54.0 faker/providers/person/ja_JP first_romanized_names (Hepburn; MIT, "
                 "Copyright (c) 2012 Daniele Faraglia)"),
}


def _written(name: str) -> str:
    """"CHIA-HAO" → "Chia-hao": a capital for the name's first letter only, as English text writes it."""
    return name[:1].upper() + name[1:].lower()


def main(faker_dir: str) -> None:
    sys.path.insert(0, faker_dir)
    import importlib

    rows = []
    for tradition, (locale, source) in SOURCES.items():
        provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        male, female = (list(dict.fromkeys(getattr(provider, f"first_romanized_names_{gender}")))
                        for gender in ("male", "female"))
        both = set(male) & set(female)
        for gender, names in (("male", male), ("female", female)):
            rows += [(_written(n), tradition, gender, source) for n in names if n not in both]
    with (HERE / "east_asian_given_names.tsv").open("w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_NONE)
        writer.writerow(("given_name", "tradition", "gender", "source"))
        writer.writerows(rows)
    print(f"{len(rows)} names", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
