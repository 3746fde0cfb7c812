"""Which name strings of a document are people: the evidence for and against (METHODS §1.1 step 6; issue 10).

**Only people are swapped.** An entity is kept only with positive evidence, recorded on it and on every substitution
made for it (``evidence``): ``title`` (a gendered, surname or office title before a mention: Mr, Mrs, Ms, Sen.,
President, Mayor, Coach ...; not "St." or "former"), ``first-name+surname`` (a PERSON span of a census or voter-file
first name and a census or voter-file surname), ``initials+surname`` ("J.D. Vance", "George W Bush" in a PERSON span)
or ``pronoun`` (a pronoun attributed to it, ``pronouns``). Other candidates — a lone PERSON-labelled word
("Jamestown"), an ORG-labelled "Paige Ellis", a full name with an unlisted surname — must win a pronoun; and before
pronouns are attributed, a candidate named by a word of a multi-word place or organisation ("Rivermouth" of
"Rivermouth FC", "Greenfield" of "Greenfield Market") or by a word the document mostly labels a place is dropped, so
it cannot take a real person's pronoun.

Evidence against: a PERSON span names a place, organisation or thing, not a person, when it starts with a place
prefix ("Santa", "San", "Fort"), ends in an organisation or place word ("FC", "High", "Beach", "Falls", "Yards",
"Post", "State"), follows "the" (two words or more, or a plural: "the Aztecs"), stands before a capitalised title
("Baltimore Mayor ..."), or — two words or more — the document labels the same string a non-person more often than
PERSON ("Virginia Beach": GPE twice, PERSON once). GPE, LOC and FAC entities are never taken for people. The words
these rules look for are in ``person_cues``. Known limit: a brand named like a person that the NER tags PERSON
("Victoria Bitter", a beer) has the first-name+surname evidence and is swapped.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from bias_core.perturb.entity_template import TemplateEntity
from bias_core.perturb.lexicon import title_key
from bias_core.perturb.name_parts import (
    ALL_TITLES,
    INITIALS,
    ent_key,
    is_census_first_name,
    is_listed_surname,
    is_proper,
    title_before,
)
from bias_core.perturb.person_cues import NON_PERSON_LABELS, ORGANISATION_WORDS, PLACE_PREFIXES

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span


class PersonEvidence:
    """What one parsed document says against its name strings being people: how the NER labels each string across
    the document, and the tokens and words of spans found to name a place or organisation."""

    def __init__(self, doc: Doc):
        self.doc = doc
        self.text = doc.text
        self.tokens = list(doc)
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
        a word of a multi-word non-person entity ("Greenfield" of "Greenfield Market"), or a string the NER labels
        a non-person more often than a person. Such an entity may not collect pronouns ("Rivermouth ... her")."""
        if entity.evidence is not None:
            return False
        names = [name for name in (entity.first_name, entity.last_name) if name]
        return any(name in self.non_person_words or self.mostly_non_person(name, count_org=False)
                   for name in names)

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
        if title_before(self.tokens[start]) is not None:
            return None
        before = self.tokens[start - 1] if start > 0 else None
        if (words[0].lower_ == "the" or (before is not None and before.lower_ == "the")) \
                and (len(words) > 1 or words[0].tag_ == "NNPS"):  # not "the Whitaker case"
            return "after 'the'"
        after = self.tokens[end] if end < len(self.tokens) else None
        if after is not None and after.text[:1].isupper() and title_key(after.text) in ALL_TITLES:
            return f"before the title '{after.text}'"
        if len(words) > 1 and self.mostly_non_person(
                self.text[self.tokens[start].idx:words[-1].idx + len(words[-1].text)]):
            return "labelled a place or organisation in most mentions"
        return None


def looks_like_name(ent: Span) -> bool:
    """Whether an ORG or NORP entity may be a person the NER mislabelled ("Marcus Bell" tagged ORG): two or three
    capitalised proper nouns, a census first name, then initials or first names, then a listed surname, with no
    place or organisation word. This is a candidate only: it becomes a person with a title or a pronoun. Places and
    buildings (GPE, LOC, FAC) are never taken for people this way: "Virginia Beach", "Santa Barbara"."""
    words = ent.text.split()  # "Jean-Pierre" is three tokens but one word
    if len(words) >= 3 and not is_census_first_name(words[0]) and is_census_first_name(words[1]):
        words = words[1:]  # a job word before the name ("Historian Margaret Ellis"), dropped by parse_name
    return (ent.label_ in ("ORG", "NORP") and 2 <= len(words) <= 3
            and all(is_proper(token) for token in ent if token.text != "-")
            and is_census_first_name(words[0]) and title_key(words[0]) not in PLACE_PREFIXES
            and all(INITIALS.fullmatch(w) or is_census_first_name(w) for w in words[1:-1])
            and is_listed_surname(words[-1])
            and title_key(words[-1]) not in ORGANISATION_WORDS)
