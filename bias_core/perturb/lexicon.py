"""Gendered word tables used to rewrite mentions: pronouns, titles and content words (METHODS §1.1, §1.2).

- Pronouns: he/him/his/himself ↔ she/her/hers/herself, by grammatical form, because ``her`` maps to ``his`` or
  ``him`` and ``his`` to ``her`` or ``hers`` depending on its use (METHODS §1.1 step 4; Steen & Markert App. D).
- Titles: Mr. ↔ Ms. (Mrs. and Miss map to Mr.), Sir ↔ Dame, Lord ↔ Lady (METHODS §1.1 step 5). The period style
  of the source is kept ("Mr" → "Ms", "Mr." → "Ms.").
- Content words (gendered nouns): read from ``data/perturb/gendered_words.tsv`` (issue 27), one female–male pair a
  row with its ``kind`` and ``source``: Steen & Markert App. J, Table 18 (``TABLE_18_PAIRS``), HELM's gender term
  mappings (after Garg et al. 2018 and Bolukbasi et al. 2016, Apache-2.0) and role nouns added by the summbias
  authors (congressman, spokesman, schoolboy, widower …). ``kind`` is ``relation`` for a noun that names someone by
  their tie to another person (son, wife, niece: "the mother" alone is somebody's mother) and ``person`` otherwise
  (man, girl, congressman); ``marked`` rows map one way only, a female word that is the marked form of a neutral
  one (*heroine* → *hero*, *hostess* → *host*, *comedienne* → *comedian*), so that a man is never "the heroine" while
  a woman may stay "the hero". Where a word has two counterparts (*dad*: *mum* in Table 18, *mom* in HELM) the first
  row wins. Left out on purpose, because one of the pair has a neutral reading that the swap would turn into another
  meaning: *mistress* ↔ *lover* (Table 18's last row; *lover* is neutral), *master* ↔ *mistress* (a master's degree,
  a chess master), *guy*/*gal*, *fellow*, *bachelor*/*spinster*, and the neutral side of the ``marked`` rows (*host*,
  *hero*, *priest*, *count*, *god* are not rewritten); *paternal*/*maternal* say which side a relative is on,
  not the person's gender. (*heir*, *steward*, *landlord* and *monk* were left out at first and are rows now: next to
  a woman their neutral reading contradicts her more often than it reads right — "a monk so she can pick it up".)

Every mapping keeps the capitalisation of the source word (``He`` → ``She``, ``HIS`` → ``HERS``).
"""

from __future__ import annotations

import csv
import functools
from pathlib import Path

from bias_core.common.paths import DATA_DIR
from bias_core.safety.errors import InputError

GENDERS = ("male", "female")
OTHER_GENDER = {"male": "female", "female": "male"}

# Pronoun forms: subject, object, possessive determiner, independent possessive, reflexive.
PRONOUN_FORMS: dict[str, dict[str, str]] = {
    "male": {"subject": "he", "object": "him", "possessive": "his", "independent": "his", "reflexive": "himself"},
    "female": {"subject": "she", "object": "her", "possessive": "her", "independent": "hers", "reflexive": "herself"},
}
PRONOUN_GENDER = {
    "he": "male", "him": "male", "his": "male", "himself": "male",
    "she": "female", "her": "female", "hers": "female", "herself": "female",
}

TITLE_GENDER = {"mr": "male", "sir": "male", "lord": "male", "ms": "female", "mrs": "female", "miss": "female",
                "dame": "female", "lady": "female"}
TITLE_SWAP = {"mr": "ms", "ms": "mr", "mrs": "mr", "miss": "mr", "sir": "dame", "dame": "sir", "lord": "lady",
              "lady": "lord"}
# Titles after which a single name token is a last name (METHODS §1.1 step 2). METHODS lists Sir there too, but in
# British usage Sir and Dame stand before the given name ("Sir Richard", "Dame Helen"), so they are given-name titles.
SURNAME_TITLES = frozenset({"mr", "mrs", "ms", "miss", "dr", "lady", "lord"})
GIVEN_NAME_TITLES = frozenset({"sir", "dame"})
# Titles of rulers that stand before a regnal or given name ("Queen Elizabeth", "Tsar Aleksei", "Empress Jingū"),
# never a surname — unless the text names somebody of that surname ("Emperor Norton" of Joshua Norton), so a lone
# name after them is a given name only where no one found bears it as a surname (``name_finding``).
RULER_TITLES = frozenset({"king", "queen", "prince", "princess", "emperor", "empress", "tsar", "czar", "tsarina",
                          "tsarevna", "tsarevich", "pope", "sultan", "shah"})
# Words that may stand before a name inside or outside a PERSON span without being part of the name.
NEUTRAL_TITLES = frozenset({
    "dr", "prof", "professor", "president", "vice", "senator", "sen", "rep", "representative", "gov", "governor",
    "mayor", "judge", "justice", "gen", "general", "col", "capt", "captain", "lt", "sgt", "officer", "det",
    "detective", "coach", "chancellor", "minister", "secretary", "speaker", "chief", "commissioner", "pope", "saint",
    "st", "rev", "reverend", "father", "sister", "brother", "king", "queen", "prince", "princess", "former", "mx",
    "ambassador",
})
NAME_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv"})

# Steen & Markert Table 18 (female, male), less mistress/lover (see the module docstring): the words their optional
# content-word adaptation rewrote. The table rewritten now is the larger ``gendered_words.tsv``, which holds these.
TABLE_18_PAIRS = (
    ("daughter", "son"), ("mother", "father"), ("woman", "man"), ("girl", "boy"), ("female", "male"),
    ("sister", "brother"), ("daughters", "sons"), ("mothers", "fathers"), ("women", "men"), ("girls", "boys"),
    ("females", "males"), ("sisters", "brothers"), ("aunt", "uncle"), ("aunts", "uncles"), ("niece", "nephew"),
    ("nieces", "nephews"), ("wife", "husband"), ("wives", "husbands"), ("actress", "actor"),
    ("actresses", "actors"), ("chairwoman", "chairman"), ("chairwomen", "chairmen"), ("mum", "dad"),
    ("mums", "dads"), ("waitress", "waiter"), ("waitresses", "waiters"),
)
CONTENT_WORD_PAIRS = TABLE_18_PAIRS  # the name used before issue 27
GENDERED_WORDS_PATH = DATA_DIR / "perturb" / "gendered_words.tsv"
NOUN_KINDS = ("relation", "person", "marked")


@functools.cache
def gendered_word_table(path: Path = GENDERED_WORDS_PATH) -> tuple[tuple[str, str, str], ...]:
    """Return the (female, male, kind) rows of the gendered-word table, lower case, in file order."""
    if not path.is_file():
        raise InputError(str(path), "gendered-word table not found", hint="reinstall summbias")
    rows = []
    with path.open(newline="", encoding="utf-8") as stream:
        for line, row in enumerate(csv.DictReader(stream, delimiter="\t", quoting=csv.QUOTE_NONE), start=2):
            female, male, kind = (row.get(column, "").strip().lower() for column in ("female", "male", "kind"))
            if not female or not male or kind not in NOUN_KINDS:
                raise InputError(f"{path}, line {line}", f"a row needs a female and a male word and a kind "
                                 f"({', '.join(NOUN_KINDS)}), got {female!r}, {male!r}, {kind!r}")
            rows.append((female, male, kind))
    return tuple(rows)


CONTENT_WORD_GENDER: dict[str, str] = {}  # every gendered noun of the table → its gender
CONTENT_WORD_SWAP: dict[str, str] = {}  # → its counterpart (the first row listing the word wins)
CONTENT_WORD_KIND: dict[str, str] = {}  # → "relation" or "person"
for _female, _male, _kind in gendered_word_table():
    # A "marked" row maps one way: its female word is a marked form of a neutral one (heroine → hero), which is
    # never read as male, so a woman who is "the hero" stays so.
    _pairs = [(_female, "female", _male)] + ([] if _kind == "marked" else [(_male, "male", _female)])
    for _word, _gender, _other in _pairs:
        CONTENT_WORD_GENDER.setdefault(_word, _gender)
        CONTENT_WORD_SWAP.setdefault(_word, _other)
        CONTENT_WORD_KIND.setdefault(_word, "person" if _kind == "marked" else _kind)


def title_key(word: str) -> str:
    """Return a title's lookup key: lowercase without a trailing period ("Mrs." → "mrs")."""
    return word.rstrip(".").lower()


def match_case(template: str, word: str) -> str:
    """Return ``word`` in the capitalisation style of ``template`` (all caps, capitalised or lowercase)."""
    if len(template) > 1 and template.isupper():
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def pronoun_for(gender: str, form: str, source: str) -> str:
    """Return the pronoun of ``gender`` in grammatical ``form``, cased like ``source``."""
    return match_case(source, PRONOUN_FORMS[gender][form])


def title_for(gender: str, source: str) -> str:
    """Return the title of ``gender`` that corresponds to ``source`` (e.g. "Mrs." → "Mr."), keeping its period."""
    key = title_key(source)
    if TITLE_GENDER[key] == gender:
        return source
    swapped = TITLE_SWAP[key]
    return match_case(source, swapped) + ("." if source.endswith(".") else "")


def content_word_for(gender: str, source: str) -> str:
    """Return the content word of ``gender`` paired with ``source`` (e.g. "Chairman" → "Chairwoman")."""
    key = source.lower()
    if CONTENT_WORD_GENDER[key] == gender:
        return source
    return match_case(source, CONTENT_WORD_SWAP[key])
