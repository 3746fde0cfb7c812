"""Load the lexicons and tables shipped in ``data/`` (provenance in data/README.md, "Lexicons and tables").

Files are plain text so users can read, edit and replace them: one entry per line, lines starting with ``#`` are
headers or comments. Users may pass their own file wherever a default path is used.
"""

from __future__ import annotations

import csv
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bias_core.common.paths import DATA_DIR
from bias_core.documents.decoding import DEFAULT_MAX_BYTES
from bias_core.safety.errors import InputError
from bias_core.safety.operator_files import read_operator_file

LEXICON_DIR = DATA_DIR / "lexicons"
POLITICIANS_CSV = DATA_DIR / "politicians.csv"
POLITICIAN_COLUMNS = ("name", "party", "gender", "office", "years")
POLITICIAN_GENDERS = ("male", "female", "")
# A lexicon or a paired-identifiers file is a list of words: the shipped ones are under 2 KB, and 1 MB (some 100,000
# entries) is far past any published list. A file over it is refused before it is read (issue 30).
LEXICON_MAX_BYTES = 1_000_000
# A politicians table is read as strictly as a corpus, within the documents' limit: the shipped one is 0.2 MB.
POLITICIANS_MAX_BYTES = DEFAULT_MAX_BYTES


def read_lexicon_text(path: str | Path, what: str = "lexicon file") -> str:
    """The UTF-8 text of a lexicon or paired-identifiers file (``what`` names it): only a regular file of at most
    ``LEXICON_MAX_BYTES`` is read, else one ``InputError`` line naming the file and the limit (issue 30). Raises
    ``UnicodeDecodeError`` for a file that is not UTF-8, which the callers word."""
    data = read_operator_file(path, what=what, max_bytes=LEXICON_MAX_BYTES)
    return data.decode("utf-8")


def _entries(path: Path, what: str = "lexicon file") -> list[list[str]]:
    """Return the entries of a lexicon file: lines that are not empty and do not start with ``#``, split on tabs.

    ``splitlines`` also splits on a lone carriage return, which the published lists' headers contain.
    """
    if not path.exists():
        raise InputError(str(path), "lexicon file not found", hint="pass an existing file or reinstall summbias")
    rows = []
    for line in read_lexicon_text(path, what).splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            rows.append(line.split("\t") if "\t" in line else [line])
    return rows


@functools.cache
def paired_identifiers(path: Path = LEXICON_DIR / "paired_identifiers.tsv") -> dict[str, str]:
    """Return word → "male/female" for the paired identifiers of a TSV file (male<TAB>female per line).

    The shipped file is the extended list (METHODS §4.6); Fightin' Words chooses the list with
    ``paired_identifier_map``.
    """
    mapping: dict[str, str] = {}
    for line, row in enumerate(_entries(path, "paired identifiers file"), start=1):
        if len(row) != 2:
            raise InputError(str(path), "each entry needs a male and a female word separated by a tab", row=line)
        male, female = (word.strip().lower() for word in row)
        joined = f"{male}/{female}"
        for word in (male, female):
            if word in mapping and mapping[word] != joined:
                raise InputError(str(path), f"'{word}' belongs to two pairs", row=line)
            mapping[word] = joined
    return mapping


PAIRED_IDENTIFIER_CHOICES = ("steen-markert", "extended", "none")
DEFAULT_PAIRED_IDENTIFIERS = "steen-markert"
# In Table 10 the possessive/object pronouns pair as hers/his and her/him, but "her" is both object and possessive
# (so it answers "his" as often as "him"): the four are merged into one token instead of two pairs.
_AMBIGUOUS_PRONOUNS = ("his", "him", "her", "hers")


def steen_markert_pairs() -> dict[str, str]:
    """Return word → "male/female" for the pairs of Steen & Markert Table 10 (HELM lists, same position = pair).

    Only these are normalised in their Fightin' Words analysis (§4, Table 1): "husband" and "wife" are not in
    Table 10 and stay apart. The HELM typo pair "femen"/"males" is kept as the table has it; his/him/her/hers
    become one token (see ``_AMBIGUOUS_PRONOUNS``).
    """
    from bias_core.common.wordlists import HELM_FEMALE_WORDS, HELM_MALE_WORDS

    mapping: dict[str, str] = {}
    for male, female in zip(HELM_MALE_WORDS, HELM_FEMALE_WORDS, strict=True):
        if male in _AMBIGUOUS_PRONOUNS:
            continue
        mapping[male] = mapping[female] = f"{male}/{female}"
    merged = "/".join(_AMBIGUOUS_PRONOUNS)
    mapping.update(dict.fromkeys(_AMBIGUOUS_PRONOUNS, merged))
    return mapping


def paired_identifier_map(choice: str | Path = DEFAULT_PAIRED_IDENTIFIERS) -> dict[str, str]:
    """Return the normalisation map for ``choice``: 'steen-markert' (default, Table 10 pairs), 'extended' (the
    shipped 60-pair list, Table 10 + Table 18 + more), 'none', or the path of a user's own male<TAB>female file."""
    if choice == "steen-markert":
        return steen_markert_pairs()
    if choice == "extended":
        return dict(paired_identifiers())
    if choice == "none":
        return {}
    if isinstance(choice, Path) or Path(choice).suffix.lower() in (".tsv", ".txt"):
        return dict(paired_identifiers(Path(choice)))
    raise ValueError(f"paired_identifiers must be one of {', '.join(PAIRED_IDENTIFIER_CHOICES)} or a file path, "
                     f"got {choice!r}")


# The four published marker lexicons (data/README.md): Hooper (1975) assertives and factives, Recasens et al. (2013)
# report verbs, Hyland (2005) hedges, as redistributed by rpryzant/neutralizing-bias.
MARKER_LEXICON_FILES = {
    "assertives": "assertives_hooper1975.txt",
    "factives": "factives_hooper1975.txt",
    "report_verbs": "report_verbs.txt",
    "hedges": "hedges_hyland2005.txt",
}


@dataclass(frozen=True)
class Lexicon:
    """A lexicon: its entries as listed, and the lowercased single words and word sequences (phrases) to match."""

    name: str
    words: frozenset[str]
    phrases: tuple[tuple[str, ...], ...]
    entries: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.entries)

    @functools.cached_property
    def _phrases_by_head(self) -> dict[str, list[tuple[str, ...]]]:
        by_head: dict[str, list[tuple[str, ...]]] = {}
        for phrase in sorted(self.phrases, key=len, reverse=True):
            by_head.setdefault(phrase[0], []).append(phrase)
        return by_head

    def count(self, tokens_lower: Sequence[str]) -> int:
        """Return how many entries occur in a lowercased token list; a phrase counts once and its words are not
        counted again ("pointed out" is one report verb, though "point" is listed too): longest match first."""
        by_head = self._phrases_by_head
        total, i = 0, 0
        while i < len(tokens_lower):
            token = tokens_lower[i]
            width = next((len(p) for p in by_head.get(token, ()) if tuple(tokens_lower[i:i + len(p)]) == p), 0)
            if width:
                total, i = total + 1, i + width
                continue
            total += token in self.words
            i += 1
        return total


def _regular_inflections(base: str) -> set[str]:
    """Regular English verb forms of ``base`` (3rd person, past, -ing)."""
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
def _verb_tables() -> tuple[frozenset[str], dict[str, tuple[str, ...]]]:
    """Verb lemmas and lemma → irregular forms, from the lemmatizer tables of the spaCy pipeline we already ship.

    The published lists give base forms only; spaCy's exception table supplies "said", "thought", "found",
    "admitted" …, and its verb index tells verbs from the adjectives in the lists ("odd" must not match "odds").
    """
    from bias_core.common.nlp import spacy_pipeline

    lookups = spacy_pipeline().get_pipe("lemmatizer").lookups
    index = lookups.get_table("lemma_index")
    exceptions = lookups.get_table("lemma_exc")["verb"]
    irregular: dict[str, list[str]] = {}
    for form, lemmas in exceptions.items():
        for lemma in lemmas:
            irregular.setdefault(lemma, []).append(form)
    verbs = frozenset(index["verb"]) | frozenset(irregular)
    return verbs, {lemma: tuple(sorted(forms)) for lemma, forms in irregular.items()}


def verb_forms(word: str) -> set[str]:
    """Return ``word`` and, when it is a verb, its regular and irregular inflections."""
    verbs, irregular = _verb_tables()
    if word not in verbs:
        return {word}
    return _regular_inflections(word) | set(irregular.get(word, ()))


def lexicon_path(name: str) -> Path:
    """The shipped file of a marker lexicon (``MARKER_LEXICON_FILES``) or ``data/lexicons/<name>.txt``."""
    return LEXICON_DIR / MARKER_LEXICON_FILES.get(name, f"{name}.txt")


@functools.cache
def word_lexicon(name: str, *, inflect: bool = True, path: str | Path | None = None) -> Lexicon:
    """Load a lexicon: the shipped list ``name`` or, with ``path``, a user's own file in the same format.

    Format (the published lists'): one entry a line, a word or a phrase; lines starting with ``#`` are headers.
    Phrases are matched as word sequences. With ``inflect``, entries (and a phrase's first word) that are verbs also
    match their inflected forms ("claimed", "said", "pointed out"); the hedges list spells its forms out and is
    loaded without.
    """
    source = Path(path) if path is not None else lexicon_path(name)
    entries = tuple(row[0].strip().lower() for row in _entries(source))
    words: set[str] = set()
    phrases: set[tuple[str, ...]] = set()
    for entry in entries:
        head, *rest = entry.split()
        heads = verb_forms(head) if inflect else {head}
        if rest:
            phrases |= {(form, *rest) for form in heads}
        else:
            words |= heads
    return Lexicon(name, frozenset(words), tuple(sorted(phrases)), entries)


@dataclass(frozen=True)
class Politician:
    """A row of the politicians table (name, party, gender, office, years)."""

    name: str
    party: str
    gender: str
    office: str
    years: str
    # Other ways the table writes the same person's full name (legal first name, nickname, official full name), so
    # "Dick Durbin" and "Richard Durbin" both count as one co-occurring politician.
    aliases: tuple[str, ...] = ()


def _aliases(name: str, record: dict[str, str | None]) -> tuple[str, ...]:
    """Full-name forms from the optional first_name / nickname / last_name / official_full_name columns."""
    def field_of(key: str) -> str:
        return (record.get(key) or "").strip()

    last = field_of("last_name")
    forms = {f"{first} {last}" for first in (field_of("first_name"), field_of("nickname")) if first and last}
    if field_of("official_full_name"):
        forms.add(field_of("official_full_name"))
    return tuple(sorted(forms - {name}))


def load_politicians(path: str | Path = POLITICIANS_CSV) -> list[Politician]:
    """Read a politicians table (CSV with columns name, party, gender, office, years); users may upload their own.

    Read as strictly as a corpus (``bias_core.documents.corpus``: UTF-8, no binary, no unterminated quote, no repeated
    column), and every row checked (a name, a gender of male, female or empty, no more cells than the header), so a
    damaged table is one line naming the file and the row, not co-occurrence counts silently computed from garbage
    (issue 23).
    """
    from bias_core.documents.corpus import csv_dict_reader, csv_error
    from bias_core.documents.decoding import decode_text, read_named_file

    path = Path(path)
    source = str(path)
    data = read_named_file(path, POLITICIANS_MAX_BYTES, hint="keep only the politicians the audit needs")
    reader = csv_dict_reader(source, decode_text(source, data))
    header = reader.fieldnames or []
    missing = [c for c in POLITICIAN_COLUMNS[:4] if c not in header]
    if missing:
        raise InputError(source, f"missing column(s) {', '.join(missing)}",
                         hint="the header must name name, party, gender, office (and optionally years)")
    rows = []
    line = reader.line_num + 1
    try:
        for record in reader:
            if record.get(None):
                raise InputError(source, f"has {len(header) + len(record[None])} cells, but the header names "
                                 f"{len(header)} columns", row=line, hint="quote cells that hold a comma")
            name = (record.get("name") or "").strip()
            if not name:
                raise InputError(source, "empty name", row=line)
            gender = (record["gender"] or "").strip().lower()
            if gender not in POLITICIAN_GENDERS:
                raise InputError(source, f"gender {record['gender']!r:.40} is not male, female or empty", row=line)
            rows.append(Politician(name, (record["party"] or "").strip().lower(), gender,
                                   (record["office"] or "").strip(), (record.get("years") or "").strip(),
                                   _aliases(name, record)))
            line = reader.line_num + 1
    except csv.Error as error:
        raise csv_error(source, error, line) from None
    if not rows:
        raise InputError(source, "holds no politicians", hint="add one row per politician below the header")
    return rows
