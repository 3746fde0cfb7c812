"""The cue words that say a capitalised span names a place, work, organisation or thing rather than a person, read
from ``data/perturb/person_cues.tsv`` (issues 10 and 21). The rules that use them are in ``person_evidence``.

The table has one cue a row with its ``kind`` (place, facility, work, organisation, product, thing, character, method,
title, label), its ``position`` — where the rule looks for it — and its ``source``:

- ``ner_label``: a spaCy label of things that are not people (GPE, ORG, FAC …);
- ``first_word`` / ``last_word``: the span's own first or last word ("Santa Barbara", "Rivermouth FC");
- ``noun``: a common noun tied to the span by a compound or an apposition, on either side ("Tora Bora mountain",
  "Diego Garcia, the Indian Ocean island", "the song Eleanor Rigby", "Ford Motor Co.");
- ``of_head``: the noun an "of" phrase holding the span hangs from ("a peal of Plain Bob Major");
- ``quote_mark``: quotation marks right around the span (a quoted title: "Johnny B. Goode");
- ``name``: a whole span that names a well-known fictional character ("Harry Potter");
- ``title``: a role word that the name tables also list as a first name, read as a title before a name ("Vicar
  Jones" is the vicar Mr or Ms Jones, not a person named Vicar);
- ``no_evidence_title``: a word before a name that is no evidence of a person ("St. John's", "former");
- ``role_noun`` / ``role_suffix``: a noun, or the ending of one, that heads an appositive naming a person ("Dale
  Moss, the regional administrator", "…, a company spokesman"): evidence *for* a person (issue 27);
- ``colour``: a colour adjective before a make and model ("a red Austin Healey");
- ``ringing_stage`` / ``ringing_class``: the stage and class words of a bell-ringing method ("Plain Bob Major");
- ``place_preposition``: a preposition of location before a place name ("near Diego Garcia").

The head words of organisation names ("Co.", "Inc.", "Press", "Winery") are a table of their own,
``data/perturb/organisation_heads.tsv`` (``non_person_kinds``).

Replace or extend the table to change the rules; cues are matched in lower case without a trailing full stop,
except the labels and quote marks, which are matched as written.
"""

from __future__ import annotations

import csv
import functools
from pathlib import Path

from bias_core.common.paths import DATA_DIR
from bias_core.safety.errors import InputError

CUES_PATH = DATA_DIR / "perturb" / "person_cues.tsv"
POSITIONS = ("ner_label", "first_word", "last_word", "noun", "of_head", "quote_mark", "name", "title",
             "no_evidence_title", "role_noun", "role_suffix", "colour", "ringing_stage", "ringing_class",
             "place_preposition")
_AS_WRITTEN = frozenset({"ner_label", "quote_mark"})


@functools.cache
def cue_table(path: Path = CUES_PATH) -> dict[str, dict[str, str]]:
    """Return, per position, each cue (normalised as it is matched) → its kind."""
    if not path.is_file():
        raise InputError(str(path), "person cue table not found", hint="reinstall summbias")
    table: dict[str, dict[str, str]] = {position: {} for position in POSITIONS}
    with path.open(newline="", encoding="utf-8") as stream:
        for line, row in enumerate(csv.DictReader(stream, delimiter="\t", quoting=csv.QUOTE_NONE), start=2):
            position = row.get("position")
            if position not in table or not row.get("cue"):
                raise InputError(f"{path}, line {line}", f"position {position!r} is not one of "
                                 f"{', '.join(POSITIONS)}, or the cue is empty")
            table[position][cue_key(row["cue"], position)] = row.get("kind") or ""
    return table


def cue_key(word: str, position: str = "noun") -> str:
    """A word as the table matches it: lower case without a trailing full stop (labels and quote marks as
    written)."""
    return word if position in _AS_WRITTEN else word.strip().rstrip(".").lower()


def cues(position: str) -> frozenset[str]:
    """The cues of one position."""
    return frozenset(cue_table()[position])


NON_PERSON_LABELS = cues("ner_label")
PLACE_PREFIXES = cues("first_word")
NO_EVIDENCE_TITLES = cues("no_evidence_title")
ORGANISATION_WORDS = cues("last_word")
ROLE_TITLES = cues("title")
