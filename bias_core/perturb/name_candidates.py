"""Candidate name spans for the name finder (``name_finding`` step 1; issue 27): the NER's entities, repaired where
the small model runs one over a line break, plus the people it left untagged."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bias_core.perturb.lexicon import CONTENT_WORD_KIND, title_key
from bias_core.perturb.name_parts import INITIALS, NAME_WORD, is_census_first_name, is_listed_surname
from bias_core.perturb.person_cues import ORGANISATION_WORDS
from bias_core.perturb.person_evidence import gazetteer_places

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token


def candidate_entities(doc: Doc) -> list[Span]:
    """The NER's entities, each split where it runs over a line break ("Brock Holt\n\nHolt", a title line and the
    caption under it, tagged as one ORG), plus the runs of proper nouns the NER left untagged that read as a census
    first name, then first names or initials, then a listed surname ("Brock Wyatt Holt (born June 11, 1988)"): those
    are candidates labelled ORG, which ``looks_like_name`` checks and which still need a title, role or pronoun, or
    PERSON when a biography's "(born …)" follows; and an untagged given name in apposition with a kinship noun,
    labelled PERSON ("her daughter, Ana, 12")."""
    from spacy.tokens import Span

    ents: list[Span] = []
    for ent in doc.ents:
        start = ent.start
        for token in ent:
            if token.is_space and "\n" in token.text:
                if token.i > start:
                    ents.append(Span(doc, start, token.i, label=ent.label_))
                start = token.i + 1
        if start < ent.end:
            ents.append(ent if start == ent.start else Span(doc, start, ent.end, label=ent.label_))
    tagged = {i for ent in doc.ents for i in range(ent.start, ent.end)}
    i = 0
    while i < len(doc):
        end = i
        while end < len(doc) and end - i < 3 and end not in tagged and doc[end].tag_ == "NNP" \
                and NAME_WORD.fullmatch(doc[end].text):
            end += 1
        words = [t.text for t in doc[i:end]]
        if len(words) >= 2 and (end >= len(doc) or doc[end].tag_ != "NNP") and is_census_first_name(words[0]) \
                and all(INITIALS.fullmatch(w) or is_census_first_name(w) for w in words[1:-1]) \
                and is_listed_surname(words[-1]) and words[0].lower() not in gazetteer_places() \
                and title_key(words[-1]) not in ORGANISATION_WORDS:
            born = end + 1 < len(doc) and doc[end].text == "(" and doc[end + 1].lower_ in ("born", "née", "nee")
            ents.append(Span(doc, i, end, label="PERSON" if born else "ORG"))
        elif len(words) == 1 and _kin_apposition(doc[i]):
            ents.append(Span(doc, i, end, label="PERSON"))
        i = max(end, i + 1)
    return sorted(ents, key=lambda span: span.start)


def _kin_apposition(token: Token) -> bool:
    """Whether an untagged word is a census given name in apposition with a kinship noun ("her daughter, Ana, 12";
    "his son Charles"; "sons Clarence, Edward and Ted", each conjunct): that relative's name, which the small model
    often leaves untagged."""
    first = token
    while first.dep_ == "conj" and first.head.i < first.i:  # "survived by sons Clarence, Edward, Ted, and Kecalf"
        first = first.head
    kin = first.head if first.dep_ == "appos" else next((c for c in first.children if c.dep_ in ("compound", "appos")
                                                         and c.i == first.i - 1), None)
    return kin is not None and CONTENT_WORD_KIND.get(kin.lower_) == "relation" and kin.text.islower() \
        and is_census_first_name(token.text) and token.text[:1].isupper()
