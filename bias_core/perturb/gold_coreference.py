"""Templates of pre-annotated documents (gold coreference), which skip name finding and pronoun attribution
(METHODS §1.1).

A document's ``entities`` field lists each entity's mention spans (``{"entity_id": "e1", "mentions": [{"start": 0,
"end": 12}, ...]}``, optionally with ``first_name``, ``last_name`` and ``gender``); names inside mentions are found
with the name-part heuristic (``name_parts.parse_name``; the most frequent candidate), and pronouns outside every
mention are unattributed.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from bias_core.common.records import Document
from bias_core.perturb.entity_template import EntityTemplate, Slot, TemplateEntity, finish_template
from bias_core.perturb.lexicon import CONTENT_WORD_GENDER, PRONOUN_GENDER, TITLE_GENDER, title_key
from bias_core.perturb.name_parts import NAME_TITLES, NameSpan, is_proper, lowercase_words, parse_name
from bias_core.perturb.names import first_name_gender
from bias_core.perturb.pronouns import pronoun_form
from bias_core.safety.errors import InputError

if TYPE_CHECKING:
    from spacy.tokens import Doc


class GoldBuilder:
    """Builds a template from pre-annotated mention clusters (gold coreference); see the module docstring."""

    def __init__(self, document: Document, doc: Doc, gold: Any):
        self.document = document
        self.doc = doc
        self.text = doc.text
        self.gold = gold
        self.source = f"document '{document.id}'"

    def build(self) -> EntityTemplate:
        if not isinstance(self.gold, list):
            raise InputError(self.source, "field 'entities' must be a list of entities with 'mentions'")
        entities: list[TemplateEntity] = []
        slots: list[Slot] = []
        claimed: set[int] = set()
        for index, record in enumerate(self.gold):
            entity, entity_slots = self._entity(index, record)
            entities.append(entity)
            slots += entity_slots
            claimed.update(slot.start for slot in entity_slots)
        for token in self.doc:
            if token.text.lower() in PRONOUN_GENDER and token.idx not in claimed:
                slots.append(Slot(token.idx, token.idx + len(token.text), "pronoun", token.text, None,
                                  pronoun_form(token)))
        return finish_template(self.document.id, self.text, entities, slots)

    def _entity(self, index: int, record: Any) -> tuple[TemplateEntity, list[Slot]]:
        where = f"entity {index + 1}"
        if not isinstance(record, dict) or not isinstance(record.get("mentions"), list):
            raise InputError(self.source, f"{where} needs a 'mentions' list of {{'start', 'end'}} spans")
        spans = [self._span(where, mention) for mention in record["mentions"]]
        entity_id = str(record.get("entity_id", f"e{index + 1}"))
        names = [name for span in spans if (name := self._name_in(span))]
        first = record.get("first_name") or _most_common(n.first.text for n in names if n.first)
        last = record.get("last_name") or _most_common(n.last.text for n in names if n.last and n.first) \
            or _most_common(n.last.text for n in names if n.last)
        slots: list[Slot] = []
        genders: Counter[str] = Counter()
        for span in spans:
            for token in span:
                word = token.text
                key = title_key(word)
                if word.lower() in PRONOUN_GENDER:
                    slots.append(Slot(token.idx, token.idx + len(word), "pronoun", word, entity_id,
                                      pronoun_form(token)))
                    genders[PRONOUN_GENDER[word.lower()]] += 1
                elif key in TITLE_GENDER and word[:1].isupper():
                    slots.append(Slot(token.idx, token.idx + len(word), "title", word, entity_id))
                    genders[TITLE_GENDER[key]] += 10
                elif word.lower() in CONTENT_WORD_GENDER:
                    slots.append(Slot(token.idx, token.idx + len(word), "content_word", word, entity_id))
        for name in names:
            for part in name.parts:
                if part is name.last and part.text == last:
                    slots.append(Slot(part.start, part.end, "last_name", part.text, entity_id))
                elif part.text == first:
                    slots.append(Slot(part.start, part.end, "first_name", part.text, entity_id))
        entity = TemplateEntity(entity_id, first, last, evidence="gold", confidence="high",
                                confidence_reason="gold annotation")
        if record.get("gender") in ("male", "female"):
            entity.gender, entity.gender_source = record["gender"], "gold"
        elif genders:
            entity.gender = genders.most_common(1)[0][0]
            entity.gender_source = "title" if genders[entity.gender] >= 10 else "pronoun"
        elif first and first_name_gender(first):
            entity.gender, entity.gender_source = first_name_gender(first), "first_name"
        return entity, slots

    def _span(self, where: str, mention: Any):
        if isinstance(mention, dict):
            start, end = mention.get("start"), mention.get("end")
        elif isinstance(mention, list) and len(mention) == 2:
            start, end = mention
        else:
            start = end = None
        if not isinstance(start, int) or not isinstance(end, int) or not 0 <= start < end <= len(self.text):
            raise InputError(self.source, f"{where} has a mention that is not a valid [start, end) span: {mention!r}",
                             hint=f"offsets are characters into the text (length {len(self.text)})")
        span = self.doc.char_span(start, end, alignment_mode="expand")
        if span is None:
            raise InputError(self.source, f"{where} has a mention span {start}–{end} that does not align to words")
        return span

    def _name_in(self, span) -> NameSpan | None:
        proper = [token for token in span if is_proper(token)]
        if not proper:
            return None
        title = self.doc[proper[0].i - 1] if proper[0].i > 0 else None
        title_word = title_key(title.text) if title is not None and title_key(title.text) in NAME_TITLES else None
        return parse_name(self.text, proper[0].idx, proper[-1].idx + len(proper[-1].text), title_word,
                          lowercase_words(self.text))


def _most_common(values) -> str | None:
    counts = Counter(values)
    return counts.most_common(1)[0][0] if counts else None
