"""Gendered word tables used to rewrite mentions: pronouns, titles and content words (METHODS §1.1, §1.2).

- Pronouns: he/him/his/himself ↔ she/her/hers/herself, by grammatical form, because ``her`` maps to ``his`` or
  ``him`` and ``his`` to ``her`` or ``hers`` depending on its use (METHODS §1.1 step 4; Steen & Markert App. D).
- Titles: Mr. ↔ Ms. (Mrs. and Miss map to Mr.), Sir ↔ Dame, Lord ↔ Lady (METHODS §1.1 step 5). The period style
  of the source is kept ("Mr" → "Ms", "Mr." → "Ms.").
- Content words: Steen & Markert App. J, Table 18, less its last row: *mistress* ↔ *lover* is not a gender pair
  (*lover* is neutral), so rewriting *lover* as *mistress* would change the meaning.

Every mapping keeps the capitalisation of the source word (``He`` → ``She``, ``HIS`` → ``HERS``).
"""

from __future__ import annotations

GENDERS = ("male", "female")

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
# Words that may stand before a name inside or outside a PERSON span without being part of the name.
NEUTRAL_TITLES = frozenset({
    "dr", "prof", "professor", "president", "vice", "senator", "sen", "rep", "representative", "gov", "governor",
    "mayor", "judge", "justice", "gen", "general", "col", "capt", "captain", "lt", "sgt", "officer", "det",
    "detective", "coach", "chancellor", "minister", "secretary", "speaker", "chief", "commissioner", "pope", "saint",
    "st", "rev", "reverend", "father", "sister", "brother", "king", "queen", "prince", "princess", "former", "mx",
})
NAME_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv"})

# Steen & Markert Table 18 (female, male), less mistress/lover (see the module docstring).
CONTENT_WORD_PAIRS = (
    ("daughter", "son"), ("mother", "father"), ("woman", "man"), ("girl", "boy"), ("female", "male"),
    ("sister", "brother"), ("daughters", "sons"), ("mothers", "fathers"), ("women", "men"), ("girls", "boys"),
    ("females", "males"), ("sisters", "brothers"), ("aunt", "uncle"), ("aunts", "uncles"), ("niece", "nephew"),
    ("nieces", "nephews"), ("wife", "husband"), ("wives", "husbands"), ("actress", "actor"),
    ("actresses", "actors"), ("chairwoman", "chairman"), ("chairwomen", "chairmen"), ("mum", "dad"),
    ("mums", "dads"), ("waitress", "waiter"), ("waitresses", "waiters"),
)
CONTENT_WORD_GENDER: dict[str, str] = {}
CONTENT_WORD_SWAP: dict[str, str] = {}
for _female, _male in CONTENT_WORD_PAIRS:
    CONTENT_WORD_GENDER[_female], CONTENT_WORD_GENDER[_male] = "female", "male"
    CONTENT_WORD_SWAP[_female], CONTENT_WORD_SWAP[_male] = _male, _female


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
