"""Entities under construction while names are found, and which entity a bare name refers to (METHODS §1.1 steps
2–3; ``name_finding``).

A bare last name shared by several entities goes to the one a preceding title agrees with, else to the one most
recently named in full or with a title ("Jonathan Brandt ... Brandt said"), else to the one introduced first; a bare
first name goes to the entity with that first name mentioned most recently. A new entity takes the census gender of
its first name (§1.2 rule) until titles or pronouns say otherwise.

One person, one name (issue 27, ``name_forms``): a first name also matches the nickname forms the text wrote for a
person ("Marty" for Martin Hale), and a common nickname of it when no one bears it as written; initials before a
surname ("J. Smith") match only people whose first name starts with them, or who have none.
"""

from __future__ import annotations

from bias_core.perturb.entity_template import TemplateEntity
from bias_core.perturb.name_forms import same_given_name
from bias_core.perturb.name_parts import NamePart
from bias_core.perturb.names import first_name_gender


class Entities:
    """Entities under construction, with every name mention found so far (by character start)."""

    def __init__(self) -> None:
        self.entities: list[TemplateEntity] = []
        self.mentions: dict[int, tuple[str, str, NamePart]] = {}  # start → (entity_id, kind, part)
        self.anchors: dict[str, list[int]] = {}  # entity_id → starts of its full-name and title + name mentions
        self.aliases: dict[str, set[str]] = {}  # entity_id → other first-name forms written for it ("Marty")

    def new(self, first: str | None, last: str | None) -> TemplateEntity:
        entity = TemplateEntity(f"e{len(self.entities) + 1}", first, last)
        gender_from_first_name(entity)
        self.entities.append(entity)
        return entity

    def add_mention(self, entity: TemplateEntity, kind: str, part: NamePart) -> None:
        self.mentions.setdefault(part.start, (entity.entity_id, kind, part))

    def mention_positions(self, entity_id: str) -> list[int]:
        return sorted(start for start, (eid, _, _) in self.mentions.items() if eid == entity_id)

    def first_names(self, entity: TemplateEntity) -> set[str]:
        """The first-name forms of an entity: its first name and the nickname forms the text wrote for it."""
        return ({entity.first_name} if entity.first_name else set()) | self.aliases.get(entity.entity_id, set())

    def by_last_name(
        self, last: str, title_gender: str | None, position: int, *, strict: bool = False, initial: str | None = None
    ) -> TemplateEntity | None:
        """The entity a bare last name refers to (module docstring, step 3); with ``strict``, none when a title's
        gender agrees with no candidate ("Lord Ashcombe" is not "Sophie Ashcombe"). With ``initial`` (the letter of
        "J. Smith"), only people without a first name or whose first name starts with it."""
        candidates = [e for e in self.entities if e.last_name == last]
        if initial is not None:
            candidates = [e for e in candidates if not e.first_name or e.first_name[:1].upper() == initial.upper()]
        agreeing = [e for e in candidates if title_gender is None or e.gender in (None, title_gender)]
        candidates = agreeing if agreeing or strict else candidates
        if len(candidates) < 2:
            return candidates[0] if candidates else None

        def last_anchor_before(entity: TemplateEntity) -> int:
            return max((p for p in self.anchors.get(entity.entity_id, []) if p < position), default=-1)

        latest = max(candidates, key=last_anchor_before)
        return latest if last_anchor_before(latest) >= 0 else candidates[0]

    def by_first_name(self, first: str, position: int) -> TemplateEntity | None:
        """The entity a bare first name refers to: one bearing it as written (or as a written nickname form), else
        one whose first name it is a common nickname of (module docstring)."""
        candidates = [e for e in self.entities if first in self.first_names(e)]
        if not candidates:
            candidates = [e for e in self.entities if e.first_name and not e.surname_first
                          and same_given_name(e.first_name, first)]
        if not candidates:
            return None

        def last_before(entity: TemplateEntity) -> int:
            return max((p for p in self.mention_positions(entity.entity_id) if p < position), default=-1)

        return max(candidates, key=last_before)


def gender_from_first_name(entity: TemplateEntity) -> None:
    """Give an entity the census gender of its first name (§1.2 rule), until titles or pronouns say otherwise."""
    gender = first_name_gender(entity.first_name) if entity.first_name else None
    if gender:
        entity.gender, entity.gender_source = gender, "first_name"
