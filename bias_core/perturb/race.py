"""Race perturbations with Black- and White-associated first and last names (METHODS §1.4; Steen & Markert §10,
App. K).

**Name source** (``name_source``):

- ``bbq`` (default) — BBQ's proper-name vocabulary (Parrish et al. 2022, CC-BY-4.0; ``data/names/``), as Steen &
  Markert's code does (``BBQNameGeneratorFactory``): first names from the rows ``First_last = first`` of ethnicity
  Black or White, by their ``gender`` column (10 per race × gender cell), surnames from the rows ``First_last =
  last`` of that ethnicity (20 per race); first name and surname are drawn independently, without repeats within a
  sample, and written "First Last". A document whose people need more names of one cell than it holds is skipped,
  as their generator skips it ("insufficient name inventory").
- ``rosenman`` — the Rosenman, Olivella & Imai (2023) P(race | name) tables (CC0; ``rosenman.py``). A first name is
  in a cell when P(race | name) ≥ ``first_name_threshold`` and it has a 1990 census gender under the 2× rule
  (``bias_core.perturb.names``); a surname when P(race | surname) ≥ ``last_name_threshold`` and it is a 1990 census
  surname that is not also a first name. **Frequency matching:** taken alone these lists confound race with name rarity
  (Black-associated surnames are rare voter-file names, White-associated ones common), so each Black name is paired
  with the unused White name of the same gender closest in log census frequency (within ``FREQUENCY_CALIPER``
  log10 units), most frequent Black names first, up to ``names_per_cell`` pairs: both arms draw from the same
  frequency band. Too few matched names in a cell is an error naming the cell and the threshold.

The run records the name source and each race's mean census frequency of the names it draws from (uniformly, so
this is the expected frequency of the names inserted): ``run_info["name_source"]``, ``["mean_name_frequency"]``,
``["mean_log10_name_frequency"]`` (see ``pool_frequency_report``), so a reader can see whether the arms differ in
name rarity as well as in race. ``name_frequency_report`` gives the same for the names actually inserted.

**Inputs.** Race is signalled by both first and last name, so every person with a name mention and a gender cue
(a first name, pronoun or title — last-name-only "entities" without one are often organisations or places the NER
mistook) gets a race and a name of that race; pronouns and titles follow the entity's gender.

- ``race``: within each input half the entities are Black- and half White-associated, arm ``b`` inverts every
  entity's race reusing the names of arm ``a``; each entity's gender is drawn at random per sample, independent of
  race, and kept in both arms (Steen & Markert §10) — under ``agreement = "coherent"`` (default) only where the text
  does not give it; a person whose gender the text shows keeps it. As in the gender perturbations, ``agreement`` = ``"coherent"``
  (default) also rewrites the gendered nouns tied to a person, and ``"names-pronouns-titles"`` keeps the paper's scope.
- ``race-intersectional``: the four settings of App. K, where gender follows race (Black male / White female, …);
  each sample gives a pair per setting, arms named ``<setting>.a`` and ``<setting>.b``, over one race split shared
  by the four settings.

Originals whose people need more distinct names than a cell holds are skipped with a reason (METHODS §1.4).
"""

from __future__ import annotations

import csv
import functools
import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bias_core.common.paths import DATA_DIR
from bias_core.common.records import Input
from bias_core.perturb.assignment import Arm, Cell, NamePool, NameSwapPerturbation, PairPlan, balanced_split
from bias_core.perturb.gender import AGREEMENT
from bias_core.perturb.lexicon import GENDERS
from bias_core.perturb.name_forms import RACE_KEEPS_SURNAME_FIRST
from bias_core.perturb.names import (
    census_first_names,
    census_last_names,
    display_surname,
    first_name_gender,
    names_package_folder,
    read_census_file,
)
from bias_core.perturb.rosenman import RACES, SOURCE, names_with_race
from bias_core.perturb.templates import EntityTemplate, TemplateEntity
from bias_core.safety.errors import InputError
from bias_core.safety.validation import NAMES, SAMPLES

NAME_SOURCES = ("bbq", "rosenman")
BBQ_NAMES_CSV = DATA_DIR / "names" / "bbq_vocabulary_proper_names.csv"
BBQ_COLUMNS = ("Name", "First_last", "gender", "ethnicity")
NAME_SOURCE_CITATIONS = {
    "bbq": "BBQ proper-name vocabulary (Parrish et al. 2022, nyu-mll/BBQ @ bea11bd, CC-BY-4.0), as in Steen & "
           "Markert's code",
    "rosenman": f"{SOURCE}; 1990 census ranks and genders (names 0.3.0); frequency-matched",
}
FREQUENCY_SOURCE = ("1990 US census (names 0.3.0): first names as a percentage of their gender's population, surnames "
                    "of the whole population")
# Largest gap in log10 census frequency between a matched Black and White name (0.1 ≈ 26 % apart).
FREQUENCY_CALIPER = 0.1
_DEFAULT_THRESHOLD = 0.8


@dataclass(frozen=True)
class RaceConfig:
    """Settings of the race perturbations: name source, (Rosenman) thresholds and names per cell, samples, options
    and seed (METHODS §1.4)."""

    samples: int = 10
    seed: int = 0
    name_source: str = "bbq"
    first_name_threshold: float = _DEFAULT_THRESHOLD
    last_name_threshold: float = _DEFAULT_THRESHOLD
    names_per_cell: int = 50
    min_names_per_cell: int = 20
    controls: bool = False
    content_words: bool = False
    agreement: str = "coherent"

    def __post_init__(self) -> None:
        SAMPLES.check("samples", self.samples)  # ParamError is a ValueError: "samples = 0 is out of range: …"
        AGREEMENT.check("agreement", self.agreement)
        if self.name_source not in NAME_SOURCES:
            raise ValueError(f"name_source must be one of {', '.join(NAME_SOURCES)}, got {self.name_source!r}")
        for name in ("first_name_threshold", "last_name_threshold"):
            if not 0.5 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be between 0.5 and 1, got {getattr(self, name)}")
            if self.name_source == "bbq" and getattr(self, name) != _DEFAULT_THRESHOLD:
                raise ValueError(f"{name} applies only to name_source = 'rosenman' (BBQ lists names by race, "
                                 "without probabilities)")
        NAMES.check("names_per_cell", self.names_per_cell)
        NAMES.check("min_names_per_cell", self.min_names_per_cell)
        if not 2 <= self.min_names_per_cell <= self.names_per_cell:
            raise ValueError("need 2 ≤ min_names_per_cell ≤ names_per_cell, got "
                             f"{self.min_names_per_cell} and {self.names_per_cell}")


@functools.cache
def bbq_names(path: Path = BBQ_NAMES_CSV) -> NamePool:
    """Read BBQ's proper-name vocabulary into a name pool: first names per (race, gender), surnames per race.

    Follows Steen & Markert's ``BBQNameGeneratorFactory``: ``First_last`` "last" rows are surnames of their
    ethnicity, "first" rows first names of their ethnicity and gender (F/M); "first_only" rows (race-neutral) and
    other ethnicities are not used by the race perturbation.
    """
    if not path.is_file():
        raise InputError(str(path), "BBQ name vocabulary not found", hint="reinstall summbias (data/names/)")
    first: dict[Cell, list[str]] = {Cell(race, gender): [] for race in RACES for gender in GENDERS}
    last: dict[str, list[str]] = {race: [] for race in RACES}
    with path.open(newline="", encoding="utf-8") as stream:
        reader = csv.DictReader(stream)
        missing = [c for c in BBQ_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise InputError(str(path), f"missing column(s) {', '.join(missing)}",
                             hint=f"the header must name {', '.join(BBQ_COLUMNS)}")
        for line, row in enumerate(reader, start=2):
            race, kind, name = row["ethnicity"].strip().lower(), row["First_last"].strip(), row["Name"].strip()
            if race not in RACES or not name:
                continue
            if kind == "last":
                last[race].append(name)
            elif kind == "first":
                gender = {"f": "female", "m": "male"}.get(row["gender"].strip().lower())
                if gender is None:
                    raise InputError(str(path), f"first name {name!r} has gender {row['gender']!r}",
                                     row=line, hint="use F or M")
                first[Cell(race, gender)].append(name)
    for cell, names in first.items():
        if len(names) < 2:
            raise InputError(str(path), f"only {len(names)} {cell.group} {cell.gender} first names")
    return NamePool({cell: tuple(names) for cell, names in first.items()},
                    {race: tuple(names) for race, names in last.items()})


@functools.cache
def _census_frequencies() -> dict[str, dict[str, float]]:
    """Census frequency (percent) by kind: 'male' and 'female' first names, 'last' surnames (as written in text)."""
    folder = names_package_folder()
    tables = {gender: {name: freq for name, (freq, _) in read_census_file(folder / f"dist.{gender}.first").items()}
              for gender in GENDERS}
    last: dict[str, float] = {}
    for line in (folder / "dist.all.last").read_text(encoding="ascii").splitlines():
        parts = line.split()
        if len(parts) == 4:
            last.setdefault(display_surname(parts[0]), float(parts[1]))
    tables["last"] = last
    return tables


def name_frequency(name: str, kind: str) -> float | None:
    """Census frequency in percent of a first name of gender ``kind`` ('male'/'female') or a surname ('last');
    ``None`` when the census does not list it (frequencies under 0.001 % are not listed)."""
    table = _census_frequencies()[kind]
    key = display_surname(name) if kind == "last" else name.strip().capitalize()
    return table.get(key) or table.get(name.strip().capitalize())


def match_frequencies(black: Sequence[str], white: Sequence[str], kind: str, limit: int,
                      caliper: float = FREQUENCY_CALIPER) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Return equally long Black and White name lists matched one to one on log10 census frequency.

    Nearest-neighbour matching without replacement within ``caliper`` (our choice of a standard matching design,
    finer than quantile bins: every pair lies in one narrow frequency band), most frequent Black names first, at most
    ``limit`` pairs. Names without a census frequency are left out.
    """
    def logs(names: Sequence[str]) -> list[tuple[str, float]]:
        found = [(name, name_frequency(name, kind)) for name in names]
        return [(name, math.log10(freq)) for name, freq in found if freq]

    black_logs = sorted(logs(black), key=lambda item: -item[1])
    available = dict(logs(white))
    matched_black: list[str] = []
    matched_white: list[str] = []
    for name, value in black_logs:
        if len(matched_black) >= limit or not available:
            break
        partner = min(available, key=lambda other: (abs(available[other] - value), other))
        if abs(available[partner] - value) <= caliper:
            matched_black.append(name)
            matched_white.append(partner)
            del available[partner]
    return tuple(matched_black), tuple(matched_white)


@functools.cache
def race_first_names(race: str, gender: str, threshold: float, limit: int) -> tuple[str, ...]:
    """Return up to ``limit`` first names with P(race | name) ≥ threshold and census ``gender``, most frequent first
    (unmatched: see ``rosenman_pool`` for the frequency-matched lists the perturbation uses)."""
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


@functools.cache
def rosenman_pool(first_threshold: float, last_threshold: float, names_per_cell: int,
                  min_names_per_cell: int) -> NamePool:
    """The frequency-matched Rosenman name pool: every candidate above the thresholds, matched Black to White."""
    first: dict[Cell, tuple[str, ...]] = {}
    for gender in GENDERS:
        black, white = match_frequencies(race_first_names("black", gender, first_threshold, 100_000),
                                          race_first_names("white", gender, first_threshold, 100_000),
                                          gender, names_per_cell)
        if len(black) < min_names_per_cell:
            raise InputError("race name tables", f"only {len(black)} black {gender} first names reach "
                             f"P(race | name) ≥ {first_threshold} and match a white name's frequency, fewer than "
                             f"{min_names_per_cell}", hint="lower the first-name threshold")
        first[Cell("black", gender)], first[Cell("white", gender)] = black, white
    black, white = match_frequencies(race_last_names("black", last_threshold, 100_000),
                                     race_last_names("white", last_threshold, 100_000), "last", names_per_cell)
    if len(black) < min_names_per_cell:
        raise InputError("race name tables", f"only {len(black)} black surnames reach P(race | name) ≥ "
                         f"{last_threshold} and match a white surname's frequency, fewer than {min_names_per_cell}",
                         hint="lower the last-name threshold")
    return NamePool(first, {"black": black, "white": white})


def _means(values: dict[str, dict[str, list[float]]], unlisted: dict[str, int]) -> dict:
    def mean(numbers: list[float]) -> float | None:
        return sum(numbers) / len(numbers) if numbers else None

    return {
        "mean_name_frequency": {race: {part: mean(v) for part, v in parts.items()} for race, parts in values.items()},
        "mean_log10_name_frequency": {race: {part: mean([math.log10(x) for x in v]) for part, v in parts.items()}
                                      for race, parts in values.items()},
        "names_without_frequency": unlisted,
        "name_frequency_source": FREQUENCY_SOURCE,
    }


def pool_frequency_report(pool: NamePool) -> dict:
    """Each race's mean census frequency (percent and log10) of the first names and surnames it draws from.

    Names are drawn uniformly from these lists, so this is the expected frequency of the names each race's arm
    inserts; it does not depend on how a corpus is split into chunks. First names of both genders are pooled.
    """
    values: dict[str, dict[str, list[float]]] = {race: {"first": [], "last": []} for race in RACES}
    unlisted = dict.fromkeys(RACES, 0)
    lists = [(cell.group, "first", cell.gender, names) for cell, names in pool.first.items()]
    lists += [(race, "last", "last", names) for race, names in (pool.last or {}).items()]
    for race, part, kind, names in lists:
        if race not in values:
            continue
        for name in names:
            frequency = name_frequency(name, kind)
            if frequency:
                values[race][part].append(frequency)
            else:
                unlisted[race] += 1
    return _means(values, unlisted)


def name_frequency_report(inputs: Sequence[Input]) -> dict:
    """Each race's mean census frequency (percent and log10) of the first names and surnames actually inserted in
    ``inputs``, each name counted once per input and entity (same keys as ``pool_frequency_report``)."""
    values: dict[str, dict[str, list[float]]] = {race: {"first": [], "last": []} for race in RACES}
    unlisted = dict.fromkeys(RACES, 0)
    for item in inputs:
        entities = {entity.entity_id: entity for entity in item.entities}
        seen: set[tuple[str, str, str]] = set()
        for sub in item.substitutions:
            entity = entities.get(sub.entity_id)
            if entity is None or entity.group not in values or sub.kind not in ("first_name", "last_name"):
                continue
            part = "first" if sub.kind == "first_name" else "last"
            if (entity.entity_id, part, sub.replacement) in seen:
                continue
            seen.add((entity.entity_id, part, sub.replacement))
            kind = entity.extra.get("gender", entity.group) if part == "first" else "last"
            frequency = name_frequency(sub.replacement, kind)
            if frequency:
                values[entity.group][part].append(frequency)
            else:
                unlisted[entity.group] += 1
    return _means(values, unlisted)


class _Race(NameSwapPerturbation):
    config_class = RaceConfig
    config: RaceConfig

    @property
    def replaces_last_names(self) -> bool:
        return True

    def members(self, template: EntityTemplate) -> list[TemplateEntity]:
        """The named people of the text, less those named surname first (``name_forms``: race names are written
        given name first), whom the run record lists as kept, with the reason (``kept_reason``)."""
        named = {entity.entity_id for entity in template.named_entities() if not entity.surname_first}
        return [entity for entity in template.gendered_entities(content_words=self.rewrites_content_words)
                if entity.entity_id in named]

    def kept_reason(self, entity: TemplateEntity) -> str | None:
        if entity.surname_first and entity.unswapped_reason is None:
            return RACE_KEEPS_SURNAME_FIRST.format(tradition=entity.tradition)
        return entity.unswapped_reason

    def no_member_reason(self) -> str:
        return "no named person: no one with a name and a first name, gendered pronoun or title"

    def pool(self) -> NamePool:
        config = self.config
        if config.name_source == "bbq":
            return bbq_names()
        return rosenman_pool(config.first_name_threshold, config.last_name_threshold, config.names_per_cell,
                             config.min_names_per_cell)

    def run_info(self) -> dict:
        source = self.config.name_source
        return {**super().run_info(), "name_source": source, "name_source_citation": NAME_SOURCE_CITATIONS[source],
                "frequency_matched": source == "rosenman",
                "gender_assignment": "each entity's gender drawn at random per sample (Steen & Markert §10)",
                **pool_frequency_report(self.pool())}


class Race(_Race):
    """Black/White names, half of each within an input, pairs inverting race; gender random per entity."""

    name = "race"

    def _needs(self, template: EntityTemplate, entity: TemplateEntity) -> tuple[bool, bool]:
        """Under the coherent scope a person whose gender the text does not give (no title, no pronoun the parse ties
        to them, no census first name) keeps their first name and takes only a new surname: a first name of a drawn
        gender would contradict the pronouns the parse could not tie to them ("Zenghelis … he", issue 27)."""
        first, last = super()._needs(template, entity)
        return first and (not self.coherent or entity.gender in GENDERS), last

    @property
    def keeps_unknown_genders(self) -> bool:
        """Under the coherent scope such a person's gendered words stay too (no "Actress Denzel Washington")."""
        return self.coherent

    def plans(self, template: EntityTemplate, members: list[TemplateEntity], rng: random.Random) -> list[PairPlan]:
        split = balanced_split(self.strata(template, members), RACES, rng)
        genders = {m.entity_id: rng.choice(GENDERS) for m in members}
        if self.coherent:
            # A person keeps the gender the text gives them: a race swap need not change it, and a drawn one leaves
            # every pronoun the parse cannot tie to the person (an ambiguous "he") contradicting the new name
            # (issue 27; docs/fidelity.md). The draw above stays, so the names drawn next match the strict scope's.
            genders.update({m.entity_id: m.gender for m in members if m.gender in GENDERS})
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
