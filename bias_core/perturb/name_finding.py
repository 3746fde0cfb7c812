"""Name finding: the people of a news original and their mentions, from spaCy's NER, tagger and parser (METHODS §1.1
steps 1–4, with the decisions METHODS leaves open).

1. Candidate name spans are PERSON entities, ORG/NORP entities of two or three proper nouns made of a census first name,
   initials or first names and a listed surname ("Marcus Bell" tagged ORG), and proper nouns after a capitalised
   gendered or surname title that the NER missed. A one-word PERSON span takes in a neighbouring proper noun when
   together they make a first + last name. A span the evidence against rules out (``person_evidence``: "Santa Barbara",
   "Rivermouth FC", "the Aztecs") is declined with its reason; spans in an all-caps headline start no entity (their tags
   are unreliable) but can be mentions of known people (step 3). A name cited as a word ("changing his first name from
   Pierre to Peter") is declined; a declined span after an article that starts with a person's whole name ("the Tom
   Cruise video") is made that person's mention once people are known.
2. Names split into parts as ``name_parts`` says. Spans that share the last name join one entity — *unless* they carry
   different first names ("Daniel Whitaker" and "Linda Whitaker" are two people; the paper's rule would merge them).
   Other single parts join the entity whose last name, else first name, they equal; an unknown single part starts an
   entity of its own, as a first name when it is a census first name and as a last name otherwise. A name given as an
   alias ("X, better known as Y", ``non_person_kinds.alias_of``) joins the person it is given for, and a first name with
   one of a person's middle names ("Pierre Charles" of Pierre Charles L'Enfant) is that person.
3. Every later occurrence of an entity's first or last name is a mention too, whether or not the NER tagged it (the
   small model misses names, e.g. "Okafor"), also in capitals ("DENZEL WASHINGTON"); ``mentions.may_be_name`` says when
   a capitalised string is the name and not a place, a date or part of an organisation: a place-labelled "Washington" is
   the person only as a subject, possessor or object after he was named, or always after a title; a first name that is
   no gazetteer place is the person in any role ("from Diana"); a person's whole name, in either order, is theirs inside
   a longer entity too ("Higuchi Natsuko" tagged FAC, "the George Washington Bridge"). A bare last name shared by
   several entities goes to the one a preceding title agrees with, else to the one most recently named in full or with a
   title ("Jonathan Brandt ... Brandt said"), else to the one introduced first; a bare first name goes to the entity
   with that first name mentioned most recently, unless proper nouns that are none of its names follow ("Pierre Augustin
   Caron" is somebody else).
4. An entity's original gender comes from its titles, else its census first name (§1.2 rule), else the pronouns
   attributed to it (``pronouns``).
5. One person, one name (issue 27; ``name_forms``): a full name whose first name is a nickname of another's with the
   same surname (Marty / Martin Hale) joins that person; initials before a surname ("J. Smith") join the person whose
   first name they start, and take a slot of their own; gendered middle names and Jr./Sr. after a surname get slots; a
   plural title ("Messrs. Levy and Cohen") is title evidence for each of its people and one slot for them all; a name
   written surname first ("Wang Jianguo ... Mr. Wang") is one person, kept as written, and noted among the declined
   names with the reason.

Entities are then kept only with evidence of being people (``person_evidence``).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING

from bias_core.perturb.entity_template import EntityTemplate, Slot, finish_template, mark_surnames_elsewhere
from bias_core.perturb.gendered_nouns import content_word_slots, world_noun_slots
from bias_core.perturb.lexicon import CONTENT_WORD_KIND, NAME_SUFFIXES, RULER_TITLES, TITLE_GENDER, title_key
from bias_core.perturb.mentions import (Entities, another_given_name_before, gender_from_first_name, in_full_name,
                                       initials_before, may_be_name)
from bias_core.perturb.name_candidates import candidate_entities
from bias_core.perturb.name_forms import (PLURAL_TITLE_GENDER, middle_name_span, named_alone, plural_title_members,
                                          same_given_name, suffix_span, surname_first_tradition)
from bias_core.perturb.name_parts import (ALL_TITLES, NAME_TITLES, OFFICE_TITLES, NamePart, NameSpan,
                                          is_census_first_name, is_first_name, is_listed_surname, is_proper,
                                          lowercase_words, parse_name, particle_surname_end, title_before)
from bias_core.perturb.names import census_first_name, first_name_gender
from bias_core.perturb.non_person_kinds import alias_of, cited_as_word, role_before
from bias_core.perturb.person_cues import NO_EVIDENCE_TITLES
from bias_core.perturb.person_evidence import SENTENCE_CAPITAL, PersonEvidence, assign_confidence, looks_like_name
from bias_core.perturb.pronouns import pronoun_slots

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

_PLURAL_TITLE = re.compile(r"\b(?:Messrs|Mmes|Mses|MESSRS|MMES|MSES)\b")


class NerBuilder:
    """Builds a template from NER, a name heuristic and pronoun attribution (METHODS §1.1; module docstring)."""

    def __init__(self, document_id: str, doc: Doc):
        self.document_id = document_id
        self.text = doc.text
        self.tokens = list(doc)
        self.token_at = {token.idx: token for token in self.tokens}
        self.ents = candidate_entities(doc)
        self.ent_of = {i: ent for ent in self.ents for i in range(ent.start, ent.end)}
        self.found = Entities()
        self.titles: dict[str, list[Token]] = {}
        self.common_words = lowercase_words(self.text)
        self.evidence = PersonEvidence(doc)
        self.declined: list[dict[str, str]] = []
        # Cues against a name that stayed a person elsewhere (issue 21): the name words of declined spans, and per
        # entity an occurrence left out because its context says it is no person ("a Stephen King novel").
        self.declined_names: list[tuple[tuple[str, ...], str]] = []
        self.cue_against: dict[str, str] = {}
        # Plural titles ("Messrs.") with the character starts of the surnames they stand before.
        self.plural_titles: list[tuple[Token, list[int]]] = []
        self._by_text: dict[str, list[Token]] | None = None
        self.declined_spans: list[tuple[int, int]] = []  # token ranges of PERSON spans declined in step 1

    def build(self) -> EntityTemplate:
        """Entities with positive evidence of being people, and their slots (module docstring, steps 1–7)."""
        spans = self._name_spans()
        for span in sorted((s for s in spans if s.first and s.last), key=lambda s: s.start):
            self._add_full_name(span)
        for span in sorted((s for s in spans if not (s.first and s.last)), key=lambda s: s.start):
            self._add_single_name(span)
        self._scan_name_occurrences()
        self._rejoin_full_names()
        self.evidence.add_role_evidence(self.found.entities, self.found.mentions)  # "X, the administrator"
        self._drop_entities(self.evidence.named_like_a_non_person, "named like a place or organisation in this text")
        title_slots = self._title_slots()
        self._set_gender_from_titles()
        # before the pronouns are read, so that none goes to such a word ("The Cabernet impressed her")
        self._drop_entities(lambda e: self.evidence.capital_says_nothing(
            e, self.found.mention_positions(e.entity_id), self.common_words), SENTENCE_CAPITAL)
        positions = {e.entity_id: self.found.mention_positions(e.entity_id) for e in self.found.entities}
        pronouns = pronoun_slots(self.tokens, self.found.entities, positions)
        self._drop_entities(lambda entity: entity.evidence is None, "no title, known first name with a listed "
                            "surname, or pronoun")
        assign_confidence(self.found.entities, pronouns, self.cue_against, self.declined_names)
        for entity in self.found.entities:
            if entity.unswapped_reason:
                self._decline(entity.label, entity.unswapped_reason)
        kept = {entity.entity_id for entity in self.found.entities}
        slots = self._name_slots() + [slot for slot in title_slots if slot.entity_id in kept] + pronouns
        slots += self._plural_title_slots()
        slots += self._content_word_slots(pronouns)
        taken = {token.i for slot in slots for token in (self.token_at.get(slot.start),) if token is not None}
        slots += world_noun_slots(self.tokens, taken, pronouns)
        template = finish_template(self.document_id, self.text, self.found.entities, slots)
        mark_surnames_elsewhere(template)
        template.declined = self.declined
        return template

    def _decline(self, name: str, reason: str) -> None:
        """Note a name not taken for a person, for the run's report (issue 10: a bad decision must be visible)."""
        if (entry := {"name": name, "reason": reason}) not in self.declined:
            self.declined.append(entry)

    def _drop_entities(self, condition, reason: str) -> None:
        """Forget the entities that meet ``condition`` and their name mentions, noting why."""
        dropped = {entity.entity_id for entity in self.found.entities if condition(entity)}
        if not dropped:
            return
        for entity in self.found.entities:
            if entity.entity_id in dropped:
                self._decline(entity.label, reason)
        self.found.entities = [entity for entity in self.found.entities if entity.entity_id not in dropped]
        self.found.mentions = {start: mention for start, mention in self.found.mentions.items()
                               if mention[0] not in dropped}

    def _name_spans(self) -> list[NameSpan]:
        spans = self._plural_title_spans()
        covered: set[int] = set()
        for ent in self.ents:
            if ent.text.isupper():  # an all-caps headline: no new person from it, but mentions of known ones
                continue
            is_person = ent.label_ == "PERSON"
            if not is_person and not looks_like_name(ent):
                self.evidence.note_non_person_entity(ent)
                continue
            covered.update(range(ent.start, ent.end))
            if any(is_proper(token) for token in ent) \
                    and all(cited_as_word(token) for token in ent if is_proper(token)):  # "from Pierre to Peter"
                self._decline(ent.text, "a name cited as a word")
                continue
            start, end = self._extend_single_name(ent)
            end = particle_surname_end(self.tokens, end)  # "[Ursula von der] Leyen": the NER cut the surname
            end = self.evidence.headline_name_end(start, end)  # "Walter Kemp | Resigns" (issue 27)
            reason = self.evidence.non_person_span(start, end) if is_person else self.evidence.context_cue(start, end)
            if reason is not None:
                written = self.text[slice(*self._chars(start, end))]
                self._decline(written, reason)
                self.declined_names.append((tuple(t.text for t in self.tokens[start:end] if is_proper(t)
                                                  and title_key(t.text) not in ALL_TITLES), f"'{written}' {reason}"))
                self.evidence.note_non_person_span(start, end)
                self.declined_spans.append((start, end))
                continue
            title = title_before(self.tokens[start])
            span = parse_name(self.text, *self._chars(start, end), title_key(title.text) if title else None,
                              self.common_words, self._surname_first, after_role=role_before(self.evidence.doc, start))
            if span:
                span.person_label = is_person
                spans.append(span)
        for token in self.tokens:
            key = title_key(token.text)
            if not token.text[:1].isupper() or key not in NAME_TITLES:
                continue
            end = token.i + 1
            while end < len(self.tokens) and end - token.i <= 3 and end not in covered and self._is_name_token(end):
                end += 1
            if end > token.i + 1:
                span = parse_name(self.text, *self._chars(token.i + 1, end), key, self.common_words,
                                  self._surname_first)
                if span:
                    span.person_label = True
                    spans.append(span)
        return spans

    def _plural_title_spans(self) -> list[NameSpan]:
        """The surnames after a capitalised plural title ("Messrs. Levy, Stein and Cohen"), each a titled span of
        the title's gender; the title and the surnames' starts are kept for its slot (``_plural_title_slots``)."""
        spans: list[NameSpan] = []
        if not _PLURAL_TITLE.search(self.text):
            return spans
        for token in self.tokens:
            gender = PLURAL_TITLE_GENDER.get(title_key(token.text))
            starts: list[int] = []
            for start, end in plural_title_members(self.tokens, token.i, self._is_name_token) if gender else ():
                span = parse_name(self.text, *self._chars(start, end), None, self.common_words)
                if span is None or span.last is None:
                    break
                span.title_gender, span.titled, span.surname_certain, span.person_label = gender, True, True, True
                spans.append(span)
                starts.append(span.last.start)
            if starts:
                self.plural_titles.append((token, starts))
        return spans

    def _surname_first(self, words: list[str]) -> str | None:
        """Whether a name is written surname first here, and in which tradition (``name_forms``)."""
        return surname_first_tradition(words, self._named_alone)

    def _named_alone(self, word: str) -> bool:
        if self._by_text is None:
            self._by_text = {}
            for token in self.tokens:
                self._by_text.setdefault(token.text, []).append(token)
        return named_alone(self._by_text.get(word, ()))

    def _chars(self, start: int, end: int) -> tuple[int, int]:
        """Character range of the tokens ``start`` up to (not including) ``end``."""
        return self.tokens[start].idx, self.tokens[end - 1].idx + len(self.tokens[end - 1].text)

    def _extend_single_name(self, ent) -> tuple[int, int]:
        """Token range of a PERSON span, widened when the NER cut a name in half ("Marcus [Bell]", "[Marcus] Bell",
        "Ebony [Marie Tate]", "Stefani [Joanne Angelina Germanotta]" with "Stefani" tagged NORP: a first name before
        a first and last name makes the span's first word a middle name)."""
        start, end = ent.start, ent.end
        before = self.tokens[start - 1] if start > 0 else None
        if end - start in (2, 3) and before is not None and is_first_name(self.tokens[start].text) \
                and is_proper(before) and is_first_name(before.text) and first_name_gender(before.text) \
                and title_key(before.text) not in ALL_TITLES and before.ent_type_ in ("", "NORP"):
            return start - 1, end
        if end - start != 1:
            return start, end
        after = self.tokens[end] if end < len(self.tokens) else None
        # A census first name, not a voter-file one: those list words too ("17th Century [Zurbarán]").
        if before is not None and self._is_name_token(before.i) and is_census_first_name(before.text) \
                and title_key(before.text) not in OFFICE_TITLES and not before.ent_type_:
            return start - 1, end
        if after is not None and self._is_name_token(after.i) and is_first_name(ent.text) and not after.ent_type_ \
                and title_key(after.text) not in NAME_SUFFIXES | ALL_TITLES:
            return start, end + 1
        return start, end

    def _is_name_token(self, i: int) -> bool:
        token = self.tokens[i]
        return is_proper(token) and token.ent_type_ in ("", "PERSON")

    def _add_full_name(self, span: NameSpan) -> None:
        assert span.first is not None and span.last is not None
        first, last = span.first.text, span.last.text
        same_surname = [e for e in self.found.entities if e.last_name == last
                        and e.surname_first == bool(span.surname_first)]
        entity = next((e for e in same_surname if e.first_name in (None, first)), None)
        known = self.found.by_first_and_middle(first, last) if entity is None and not span.middle else None
        if known is not None and not span.surname_first:  # "Pierre Charles" of Pierre Charles L'Enfant
            self.found.add_mention(known, "first_name", span.first)
            self.found.add_mention(known, "middle_name", span.last)
            return
        if entity is None and not span.surname_first:  # Marty Hale is Martin Hale (a nickname of the same name)
            entity = next((e for e in same_surname if e.first_name and same_given_name(e.first_name, first)), None)
            if entity is not None:
                self.found.aliases.setdefault(entity.entity_id, set()).add(first)
        if entity is None and not span.surname_first:  # "X, better known as / self-identified as Y": X is Y
            entity = alias_of(self.token_at.get(span.last.start), self.found.entity_at)
            if entity is not None:
                self.found.add_alias(entity, first, last)
        if entity is None:
            entity = self.found.new(first, last)
            if span.surname_first:
                entity.mark_surname_first(span.surname_first)
        if entity.first_name is None and not entity.surname_first:
            entity.first_name = first
            gender_from_first_name(entity)
        self.found.add_mention(entity, "first_name", span.first)
        self.found.add_mention(entity, "last_name", span.last)
        for part in span.middle:
            self.found.add_mention(entity, "middle_name", part)
        self.found.anchors.setdefault(entity.entity_id, []).append(span.start)
        if span.titled:
            entity.add_evidence("title")
        elif span.person_label and (is_listed_surname(last) or span.surname_first):
            entity.add_evidence("first-name+surname")
        elif span.person_label and census_first_name(first) and not {first.lower(), last.lower()} & self.common_words:
            # "Dean Kamen", at low confidence; not "Basil Harvesting" of a text on harvesting basil (calibrated:
            # docs/calibration.md, "Issue 27's fifth round").
            entity.add_evidence("first-name+unlisted-surname")

    def _add_single_name(self, span: NameSpan) -> None:
        if span.first is not None:  # a given name after Sir or Dame
            entity = self.found.by_first_name(span.first.text, span.first.start) \
                or self.found.new(span.first.text, None)
            self.found.add_mention(entity, "first_name", span.first)
            entity.add_evidence("title")
            return
        part = span.last
        assert part is not None
        if span.surname_certain:
            initial = span.initial.text[:1] if span.initial else None
            entity = self.found.by_last_name(part.text, span.title_gender, part.start, strict=True, initial=initial)
            kind = "last_name"
            if entity is None:  # "Mr. Dung" after "Nguyen Tan Dung": the given name of a surname-first name
                entity = next((e for e in self.found.entities if e.surname_first and e.first_name == part.text), None)
                kind = "first_name"
            if entity is None and span.initial is None:
                # "Dr. Sarah" after "Dr. Sarah Jones", "Queen Elizabeth" after "Elizabeth Windsor": a title before
                # the first name of somebody found, that nobody bears as a surname, is that person's (METHODS §1.1
                # step 1: a one-token name equal to an entity's first name joins it).
                entity = self.found.by_first_name(part.text, part.start)
                if entity is None and span.title in RULER_TITLES:
                    entity = self.found.new(part.text, None)  # "Tsar Aleksei", "Empress Jingū": a given name
                    if entity.gender is None and span.title_gender:
                        entity.gender, entity.gender_source = span.title_gender, "title"
            if entity is None:
                entity, kind = self.found.new(None, part.text), "last_name"
                if span.title_gender:
                    entity.gender, entity.gender_source = span.title_gender, "title"
            self.found.add_mention(entity, kind, part)
            if span.initial is not None:
                self.found.add_mention(entity, "initial", span.initial)
            self.found.anchors.setdefault(entity.entity_id, []).append(part.start)
            if span.titled:
                entity.add_evidence("title")
            elif span.initials and span.person_label and is_listed_surname(part.text):
                entity.add_evidence("initials+surname")
            return
        entity = self.found.by_last_name(part.text, None, part.start)
        if entity is not None:
            self.found.add_mention(entity, "last_name", part)
            return
        entity = self.found.by_first_name(part.text, part.start)
        if entity is not None:
            self.found.add_mention(entity, "first_name", part)
        elif first_name_gender(part.text):
            self.found.add_mention(self.found.new(part.text, None), "first_name", part)
        else:
            self.found.add_mention(self.found.new(None, part.text), "last_name", part)

    def _scan_name_occurrences(self) -> None:
        names = {name for e in self.found.entities for name in self.found.first_names(e)}
        names |= {e.last_name for e in self.found.entities if e.last_name}
        names |= {name for aliases in self.found.surname_aliases.values() for name in aliases}
        if not names:
            return
        # All-caps headlines write names in capitals ("DENZEL WASHINGTON TO FILM"), a sentence "De Blasio": the same.
        canonical = {form: name for name in names for form in (name.upper(), name[:1].upper() + name[1:], name)}
        pattern = re.compile(r"(?<![\w'’.-])(?:" + "|".join(map(re.escape, sorted(canonical, key=len, reverse=True)))
                             + r")(?![\w-])")
        for match in pattern.finditer(self.text):
            start, written = match.start(), match.group()
            word = canonical[written]
            token = self.token_at.get(start)
            if start in self.found.mentions or token is None \
                    or not may_be_name(token, self.found, self.evidence.non_person_tokens, self.ent_of):
                continue
            part = NamePart(start, match.end(), written)
            title = title_before(token)
            title_gender = TITLE_GENDER.get(title_key(title.text)) if title else None
            titled = title is not None and title_key(title.text) not in NO_EVIDENCE_TITLES
            entity, kind = self.found.by_bare_name(word, title_gender, start, titled=title is not None)
            if entity is None or (kind == "first_name" and self._another_name_after(token, entity)) \
                    or (kind == "last_name" and another_given_name_before(token, entity, self.found)):
                continue
            cue = self.evidence.context_cue(*self._name_run(token))
            if cue is not None:  # "a Stephen King novel": that mention is the novel, the entity is in doubt, and
                self.cue_against.setdefault(entity.entity_id, f"'{written}' {cue}")
                if not in_full_name(token, self.found):  # only a whole name still names them ("the George Washington
                    continue  # Bus Station"), or the person gets two names
            self.found.add_mention(entity, kind, part)
            if kind == "last_name" and (initials := initials_before(token, entity, self.found)) is not None:
                self.found.add_mention(entity, "initial", initials)  # "J.K. Rowling" (tagged ORG) before "Joanne"
            if titled and kind == "last_name":
                entity.add_evidence("title")

    def _rejoin_full_names(self) -> None:
        """Make a declined PERSON span after an article a mention of the person whose full name it spells, whole or
        in its first two words ("the Tom Cruise video", "the George Floyd Justice [in Policing Act]" beside "Tom
        Cruise", "George Floyd"): a whole name used as a modifier still names that person, who would otherwise get
        two names (step 1). The declining cue still counts against confidence (``assign_confidence``)."""
        for start, end in self.declined_spans:
            start += self.tokens[start].lower_ in ("the", "a", "an")  # the NER may take the article in
            if start == 0 or start == end or self.tokens[start - 1].lower_ not in ("the", "a", "an"):
                continue  # only a name after an article reads as a modifier; a quoted one is a title
            for stop in dict.fromkeys((end, min(end, start + 2))):  # the whole span, else its first two words
                span = parse_name(self.text, *self._chars(start, stop), None, self.common_words, self._surname_first)
                if (entity := self.found.by_full_name(span) if span is not None else None) is not None:
                    break
            if entity is None or any(part.start in self.found.mentions for part in span.parts):
                continue
            for kind, part in (("first_name", span.first), ("initial", None if span.first else span.initial),
                               ("last_name", span.last), *(("middle_name", middle) for middle in span.middle)):
                if part is not None:
                    self.found.add_mention(entity, kind, part)

    def _another_name_after(self, token: Token, entity) -> bool:
        """Whether a first name begins a run of proper nouns holding none of this person's other names, so begins
        somebody else's ("Pierre Augustin Caron de Beaumarchais" is not Pierre Charles L'Enfant; "Patrick Leopold
        Gordon" is Patrick Gordon): the word after it is no name of a person found and no word the text also writes
        in lower case ("Julien Podcast")."""
        after = self.tokens[token.i + 1] if token.i + 1 < len(self.tokens) else None
        if after is None or not is_proper(after) or title_key(after.text) in NAME_SUFFIXES:
            return False
        own = {name.lower() for name in self.found.own_names(entity)}  # "DENZEL WASHINGTON" in a headline too
        run = self.tokens[token.i + 1:self._name_run(token)[1]]
        known = {name for e in self.found.entities for name in self.found.first_names(e) | {e.last_name or ""}}
        return not any(word.lower_ in own for word in run) and after.text not in known \
            and after.lower_ not in self.common_words  # "The Jenna Julien Podcast" names its hosts

    def _name_run(self, token: Token) -> tuple[int, int]:
        """Token range of the run of capitalised proper nouns around a name word ("Stephen King" of "Stephen")."""
        start = end = token.i
        while start > 0 and is_proper(self.tokens[start - 1]):
            start -= 1
        while end + 1 < len(self.tokens) and is_proper(self.tokens[end + 1]):
            end += 1
        return start, end + 1

    def _name_slots(self) -> list[Slot]:
        """A slot per name mention; a middle name's takes the space before it, and a Jr./Sr. after a last name
        gets a slot of its own with its comma or space (``name_forms``). A kinship word taken for a name ("Dad, you
        know, has done it … watching him") is a gendered word of its person, re-gendered with them; a surname that
        is a gendered noun of another kind stays a surname (Martin Luther King, Gladys Knight, David Duke), and the
        surname of a stage or pen name is kept as written ("Robert Zimmerman, better known as Bob Dylan" would read
        "Brian Larson, better known as Brian Larson" with one new surname for both)."""
        slots = []
        for eid, kind, part in self.found.mentions.values():
            kind = "content_word" if kind == "last_name" and CONTENT_WORD_KIND.get(part.text.lower()) == "relation" \
                else kind
            if kind == "last_name" and part.text in self.found.surname_aliases.get(eid, ()):
                kind = "alias_last_name"  # "better known as Bob Dylan": a name of their own choosing, kept
            token = self.token_at.get(part.start)
            label = token.ent_type_ if token is not None else None
            start, end = middle_name_span(self.text, part.start, part.end) if kind == "middle_name" \
                else (part.start, part.end)
            slots.append(Slot(start, end, kind, self.text[start:end], eid, ner_label=label))
            suffix = suffix_span(self.text, part.end) if kind == "last_name" else None
            if suffix is not None:
                slots.append(Slot(*suffix, "suffix", self.text[slice(*suffix)], eid, ner_label=label))
        return slots

    def _plural_title_slots(self) -> list[Slot]:
        """One slot per plural title, with the space after it, for the people it stands before (``name_forms``)."""
        slots = []
        for token, starts in self.plural_titles:
            group = tuple(dict.fromkeys(self.found.mentions[start][0] for start in starts
                                        if start in self.found.mentions))
            if group:
                end = token.idx + len(token.text)
                end += len(self.text[end:]) - len(self.text[end:].lstrip(" "))
                slots.append(Slot(token.idx, end, "plural_title", self.text[token.idx:end], group[0],
                                  ner_label=token.ent_type_, group=group))
        return slots

    def _title_slots(self) -> list[Slot]:
        slots = []
        for eid, _, part in self.found.mentions.values():
            token = self.token_at.get(part.start)
            title = title_before(token) if token is not None else None
            if title is not None and title_key(title.text) in TITLE_GENDER and title.text[:1].isupper():
                self.titles.setdefault(eid, []).append(title)
                slots.append(Slot(title.idx, title.idx + len(title.text), "title", title.text, eid,
                                  ner_label=title.ent_type_))
                next(e for e in self.found.entities if e.entity_id == eid).add_evidence("title")
        return slots

    def _set_gender_from_titles(self) -> None:
        plural: dict[str, list[str]] = {}
        for token, starts in self.plural_titles:
            for start in starts:
                if start in self.found.mentions:
                    plural.setdefault(self.found.mentions[start][0], []).append(
                        PLURAL_TITLE_GENDER[title_key(token.text)])
        for entity in self.found.entities:
            titles = Counter(TITLE_GENDER[title_key(t.text)] for t in self.titles.get(entity.entity_id, []))
            titles.update(plural.get(entity.entity_id, []))
            if titles:
                entity.gender, entity.gender_source = titles.most_common(1)[0][0], "title"

    def _content_word_slots(self, pronoun_slots: list[Slot]) -> list[Slot]:
        owner: dict[int, str] = {}
        for eid, _, part in self.found.mentions.values():
            token = self.token_at.get(part.start)
            if token is not None:
                owner[token.i] = eid
        for slot in pronoun_slots:
            if slot.entity_id is not None:
                owner[self.token_at[slot.start].i] = slot.entity_id
        return content_word_slots(self.tokens, owner, {e.entity_id: e.gender for e in self.found.entities})
