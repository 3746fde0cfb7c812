"""Shared machinery of the name-based perturbations (gender, race): samples, inverted pairs and within-group controls.

One *sample* of an original (METHODS §0) fixes, for every assignable entity, a *cell* (group and gender) in each of
the two arms of a pair, and the names used for those cells. Arm b gives every entity the other group (C_loc, race),
or is the other all-one-group setting (C_glob). Names are shared across the pair (Steen & Markert App. D, last
paragraph; Counter-GAP §2.2): two entities whose cells swap between the arms ("partners") share one name per cell,
so the pair uses the same names with every entity's group inverted — entity x is *James* in arm a and *Linda* in
arm b while its partner y is *Linda* in a and *James* in b. Entities without a partner (an odd count, or partners
that would need different genders in race) get names of their own for both cells.

Within-group controls (METHODS §1.3; Counter-GAP §2.2) permute the names of the entities that share a cell, so the
control differs from its arm only in *which* name of the same group each entity carries. Where a cell holds a single
entity there is nothing to permute, and that entity gets a fresh name of the same cell instead (a decision: the
quadruple must vary the name of every entity for I_within to measure name noise). Each sample then yields the
quadruple (x_o, x_c, x̃_o, x̃_c) with roles ``original`` (arm a), ``control`` (arm a, names permuted), ``swap1``
(arm b) and ``swap2`` (arm b, with the control's names), all sharing ``quadruple_id`` = the sample's id.
"""

from __future__ import annotations

import logging
import random
from abc import abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bias_core.common.records import Document, Entity, Input
from bias_core.perturb.agreement import check_coherence
from bias_core.perturb.base import (
    EntityWithoutFirstName,
    Perturbation,
    PerturbationResult,
    SkipReport,
    UnattributedPronoun,
    seeded_random,
)
from bias_core.perturb.name_forms import written_like
from bias_core.perturb.templates import EntityChoice, EntityTemplate, TemplateEntity, build_templates

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Cell:
    """Where an entity is put in one input: its group (male, black, …) and the gender its words take."""

    group: str
    gender: str

    @property
    def label(self) -> str:
        return self.group if self.group == self.gender else f"{self.group}-{self.gender}"


@dataclass(frozen=True)
class Name:
    """A drawn name: first and/or last (None where the perturbation keeps that part)."""

    first: str | None
    last: str | None


@dataclass(frozen=True)
class Arm:
    """One input setting of a sample: its label (the ``arm`` field) and each entity's cell."""

    label: str
    cells: dict[str, Cell]
    unattributed_gender: str | None = None
    world_gender: str | None = None  # every unnamed person's gender in a one-gender world (``Slot.world``)


@dataclass(frozen=True)
class PairPlan:
    """The two arms of one sample; ``prefix`` names the setting when an original has several (intersectional)."""

    arm_a: Arm
    arm_b: Arm
    prefix: str = ""


class NamePool:
    """Names to draw per cell: first names (and last names where they are replaced), without repeats in a sample.
    ``given`` holds the given names of surname-first traditions by (tradition, gender) (``name_forms``): a person
    of such a tradition draws their new given name from it and keeps their surname."""

    def __init__(self, first: dict[Cell, Sequence[str]], last: dict[str, Sequence[str]] | None = None,
                 given: dict[tuple[str, str], Sequence[str]] | None = None):
        self.first = first
        self.last = last
        self.given = given or {}

    def draw(self, cell: Cell, rng: random.Random, taken: set[str], *, first: bool, last: bool,
             tradition: str | None = None) -> Name:
        """Draw an unused name for ``cell``; ``taken`` (names in the text or this sample) is updated."""
        if tradition is not None:
            return Name(_draw(self.given[(tradition, cell.gender)], rng, taken) if first else None, None)
        first_name = _draw(self.first[cell], rng, taken) if first else None
        last_name = _draw(self.last[cell.group], rng, taken) if last and self.last is not None else None
        return Name(first_name, last_name)


def _draw(candidates: Sequence[str], rng: random.Random, taken: set[str]) -> str:
    available = [name for name in candidates if name not in taken]
    if not available:
        raise _PoolExhausted
    name = rng.choice(available)
    taken.add(name)
    return name


class _PoolExhausted(Exception):
    """Raised inside a sample when a cell has no unused name left; the original is then skipped."""


class NameSwapPerturbation(Perturbation):
    """Base of gender and race: per original, ``samples`` pairs of inputs, optionally with controls (quadruples)."""

    # Whether a person of unknown gender who keeps their first name keeps their gendered words (``Race``).
    keeps_unknown_genders = False

    @property
    def replaces_last_names(self) -> bool:
        """Whether last names are replaced too (race always; gender as an option)."""
        return False

    @property
    def coherent(self) -> bool:
        """Whether the swap keeps one consistent world (``agreement = "coherent"``, the default of gender and race)
        rather than Steen & Markert's strict names-pronouns-titles scope (issue 27)."""
        return self.config.agreement == "coherent"

    @property
    def rewrites_content_words(self) -> bool:
        """Whether gendered nouns tied to a swapped person are rewritten: always when ``coherent``, otherwise only
        with the older ``content_words`` switch."""
        return self.coherent or self.config.content_words

    @abstractmethod
    def members(self, template: EntityTemplate) -> list[TemplateEntity]:
        """The entities this perturbation assigns to groups."""

    @abstractmethod
    def plans(self, template: EntityTemplate, members: list[TemplateEntity], rng: random.Random) -> list[PairPlan]:
        """The pairs of arms of one sample (one pair, or one per setting for intersectional)."""

    @abstractmethod
    def pool(self) -> NamePool:
        """The names this perturbation draws from."""

    @abstractmethod
    def no_member_reason(self) -> str:
        """Why an original without members is skipped."""

    def run(self, documents: Sequence[Document]) -> PerturbationResult:
        """Return ``samples`` pairs (or quadruples) of inputs per original, parsing every original once."""
        return self.run_templates(build_templates(documents))

    def run_templates(self, templates: Sequence[EntityTemplate]) -> PerturbationResult:
        """Return the inputs built from already parsed templates (so one parse can serve several perturbations)."""
        report = SkipReport(n_originals=len(templates))
        inputs: list[Input] = []
        pool = self.pool()
        for template in templates:
            if template.skip_reason:
                report.skip(template.document_id, template.skip_reason)
                continue
            _report_template(template, report)
            members = self.members(template)
            if not members:
                report.skip(template.document_id, self.no_member_reason())
                continue
            try:
                inputs += check_coherence(template, self._original_inputs(template, members, pool))
            except _PoolExhausted:
                report.skip(template.document_id, f"not enough names: {len(members)} people need more distinct "
                                                  "names per group than the name lists hold")
        info = {**self.run_info(), "names": self.names_used(pool), "n_inputs": len(inputs),
                **people_report(templates, self.kept_reason)}
        logger.info("%s: %d inputs from %d originals, %d skipped", self.name, len(inputs), len(templates),
                    len(report.skipped))
        return PerturbationResult(inputs, report, info)

    def kept_reason(self, entity: TemplateEntity) -> str | None:
        """Why this perturbation leaves a person found as written (None when it swaps them), for the run record."""
        return entity.unswapped_reason

    def names_used(self, pool: NamePool) -> dict[str, list[str]]:
        """The name lists drawn from, by cell (and by group for last names), for the run record."""
        names = {f"first/{cell.label}": list(first) for cell, first in pool.first.items()}
        for group, last in (pool.last or {}).items():
            names[f"last/{group}"] = list(last)
        return names

    def _original_inputs(self, template: EntityTemplate, members: list[TemplateEntity], pool: NamePool) -> list[Input]:
        rng = seeded_random(self.config.seed, self.name, template.document_id)
        inputs = []
        for sample_id in range(self.config.samples):
            for plan in self.plans(template, members, rng):
                inputs += self._sample_inputs(template, members, plan, sample_id, pool, rng)
        return inputs

    def _sample_inputs(
        self,
        template: EntityTemplate,
        members: list[TemplateEntity],
        plan: PairPlan,
        sample_id: int,
        pool: NamePool,
        rng: random.Random,
    ) -> list[Input]:
        taken = set(template.capitalized_words)
        names = self._draw_shared_names(template, members, plan, pool, rng, taken)
        sample_key = f"{template.document_id}/{self.name}/s{sample_id}" + (f"/{plan.prefix}" if plan.prefix else "")
        arms = [(plan.arm_a, names, "original"), (plan.arm_b, names, "swap1")]
        if self.config.controls:
            control = self._control_names(template, members, plan, names, pool, rng, taken)
            arms = [arms[0], (plan.arm_a, control, "control"), arms[1], (plan.arm_b, control, "swap2")]
        inputs = []
        for arm, arm_names, role in arms:
            suffix = "/control" if role in ("control", "swap2") else ""
            inputs.append(self._input(template, members, arm, arm_names, sample_id, sample_key, suffix,
                                      role if self.config.controls else None))
        return inputs

    def _needs(self, template: EntityTemplate, entity: TemplateEntity) -> tuple[bool, bool]:
        """Whether an entity's first name and last name are written in the text and so need drawn names. A surname
        several people of the text share (a family: Daniel, Johann and Jacob Bernoulli) stays under the coherent
        scope, so that one family keeps one name and "the Bernoulli family" still reads right (issue 27); so does a
        surname the text also writes where no mention of the person was found ("Norton I", "the Emperor Norton
        Bridge", "Washington" the city beside George Washington): renaming only some of them would give the person
        two names, or rename a place."""
        kinds = template.slot_kinds(entity.entity_id)
        if entity.surname_first:  # a new given name of the person's tradition; the surname stays ("Mr. Cheng")
            return "first_name" in kinds, False
        shared = self.coherent and entity.last_name is not None and (
            sum(other.last_name == entity.last_name for other in template.entities) > 1
            or entity.surname_elsewhere)
        return "first_name" in kinds, self.replaces_last_names and "last_name" in kinds and not shared

    def strata(self, template: EntityTemplate, members: list[TemplateEntity]) -> list[list[str]]:
        """Members grouped by which names they show, for ``balanced_split``."""
        by_needs: dict[tuple[bool, bool], list[str]] = {}
        for member in members:
            by_needs.setdefault(self._needs(template, member), []).append(member.entity_id)
        return [by_needs[key] for key in sorted(by_needs, reverse=True)]

    def _draw_shared_names(
        self,
        template: EntityTemplate,
        members: list[TemplateEntity],
        plan: PairPlan,
        pool: NamePool,
        rng: random.Random,
        taken: set[str],
    ) -> dict[str, dict[Cell, Name]]:
        a, b = plan.arm_a.cells, plan.arm_b.cells
        unpaired = [m.entity_id for m in members]
        names: dict[str, dict[Cell, Name]] = {}
        by_id = {m.entity_id: m for m in members}
        while unpaired:
            x = unpaired.pop(0)
            compatible = [y for y in unpaired if a[y] == b[x] and b[y] == a[x]
                          and by_id[y].tradition == by_id[x].tradition]
            same_needs = [y for y in compatible if self._needs(template, by_id[y]) == self._needs(template, by_id[x])]
            partner = (same_needs or compatible or [None])[0]
            group = [x] if partner is None else [x, partner]
            if partner is not None:
                unpaired.remove(partner)
            need_first = any(self._needs(template, by_id[e])[0] for e in group)
            need_last = any(self._needs(template, by_id[e])[1] for e in group)
            shared = {cell: pool.draw(cell, rng, taken, first=need_first, last=need_last,
                                      tradition=by_id[x].tradition) for cell in (a[x], b[x])}
            for entity_id in group:
                names[entity_id] = shared
        return names

    def _control_names(
        self,
        template: EntityTemplate,
        members: list[TemplateEntity],
        plan: PairPlan,
        names: dict[str, dict[Cell, Name]],
        pool: NamePool,
        rng: random.Random,
        taken: set[str],
    ) -> dict[str, dict[Cell, Name]]:
        a, b = plan.arm_a.cells, plan.arm_b.cells
        control: dict[str, dict[Cell, Name]] = {}
        groups: dict[tuple[Cell, Cell, tuple[bool, bool], str | None], list[str]] = {}
        for member in members:
            key = (a[member.entity_id], b[member.entity_id], self._needs(template, member), member.tradition)
            groups.setdefault(key, []).append(member.entity_id)
        by_id = {m.entity_id: m for m in members}
        for (cell_a, cell_b, _, tradition), entity_ids in groups.items():
            if len(entity_ids) > 1:
                order = entity_ids[:]
                rng.shuffle(order)
                for giver, receiver in zip(order, order[1:] + order[:1], strict=True):
                    control[receiver] = names[giver]
            else:
                need_first, need_last = self._needs(template, by_id[entity_ids[0]])
                control[entity_ids[0]] = {cell: pool.draw(cell, rng, taken, first=need_first, last=need_last,
                                                          tradition=tradition) for cell in (cell_a, cell_b)}
        return control

    def _input(
        self,
        template: EntityTemplate,
        members: list[TemplateEntity],
        arm: Arm,
        names: dict[str, dict[Cell, Name]],
        sample_id: int,
        sample_key: str,
        suffix: str,
        role: str | None,
    ) -> Input:
        choices: dict[str, EntityChoice] = {}
        entities: list[Entity] = []
        for member in members:
            cell = arm.cells[member.entity_id]
            need_first, need_last = self._needs(template, member)
            name = names[member.entity_id][cell]
            first = name.first if need_first else None
            if first is not None and member.tradition is not None and member.first_name:
                first = written_like(first, member.first_name)  # "Shu-fen" for "Chung-tai", "Shufen" for "Jianguo"
            last = name.last if need_last else None
            # a person who keeps their first name and whose gender the text does not give keeps their gendered
            # words too (a coherent race swap of "Denzel Washington": no "Actress" beside "Denzel")
            kept = not need_first and member.gender is None and self.keeps_unknown_genders
            choices[member.entity_id] = EntityChoice(None if kept else cell.gender, first, last)
            extra = {} if cell.group == cell.gender else {"gender": cell.gender}
            entities.append(Entity(
                entity_id=member.entity_id,
                group=cell.group,
                first_name=first,
                last_name=last or member.last_name,
                original_first_name=member.first_name if need_first else None,
                original_last_name=member.last_name,
                extra=extra,
            ))
        text, substitutions = template.fill(choices, unattributed_gender=arm.unattributed_gender,
                                            content_words=self.rewrites_content_words, world_gender=arm.world_gender)
        return Input(
            id=f"{template.document_id}/{self.name}/s{sample_id}/{arm.label}{suffix}",
            original_id=template.document_id,
            text=text,
            perturbation=self.name,
            sample_id=sample_id,
            arm=arm.label,
            role=role,
            quadruple_id=sample_key if role else None,
            entities=entities,
            substitutions=substitutions,
            extra={"meta": template.meta} if template.meta else {},
        )


def people_report(templates: Sequence[EntityTemplate], kept_reason: Callable[[TemplateEntity], str | None] | None = None
                  ) -> dict[str, dict[str, list[dict]]]:
    """Per original, the people found with the evidence each was taken on (and, for a person kept as written, why:
    ``unswapped``, by ``kept_reason``, the entity's own ``unswapped_reason`` by default), and the names not taken for
    people with the reason (issue 10), for the run record: ``{"people": {doc: [...]}, "not_people": {doc: [...]}}``."""
    reason = kept_reason or (lambda entity: entity.unswapped_reason)
    people = {t.document_id: [{"entity_id": e.entity_id, "name": e.label, "gender": e.gender,
                               "gender_source": e.gender_source, "evidence": e.evidence,
                               **({"unswapped": why} if (why := reason(e)) else {})}
                              for e in t.entities]
              for t in templates if t.entities}
    declined = {t.document_id: list(t.declined) for t in templates if t.declined}
    return {"people": people, "not_people": declined}


def _report_template(template: EntityTemplate, report: SkipReport) -> None:
    for slot in template.unattributed_pronouns:
        context = template.text[max(0, slot.start - 60) : slot.end + 20].replace("\n", " ")
        report.unattributed_pronouns.append(
            UnattributedPronoun(template.document_id, slot.start, slot.end, slot.text, context)
        )
    for entity in template.entities:
        if "first_name" not in template.slot_kinds(entity.entity_id):
            report.entities_without_first_name.append(
                EntityWithoutFirstName(template.document_id, entity.entity_id, entity.label)
            )


def balanced_split(strata: Sequence[Sequence[str]], groups: tuple[str, str], rng: random.Random) -> dict[str, str]:
    """Assign half the entities to each group (C_loc), an odd one out to a random group.

    Entities come in strata (those whose first name shows, those without one, …); each stratum is split as evenly
    as the whole, so that arm b can reuse exactly the names of arm a (see ``NameSwapPerturbation``).
    """
    order: list[str] = []
    for stratum in strata:
        members = list(stratum)
        rng.shuffle(members)
        order += members
    offset = rng.randrange(2)
    return {entity_id: groups[(i + offset) % 2] for i, entity_id in enumerate(order)}
