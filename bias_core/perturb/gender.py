"""Gender perturbations C_loc and C_glob (METHODS §1.2; Steen & Markert §5.1, App. C, D, J).

Every entity with a first name, a gendered pronoun or a gendered title is given a gender and, where it has a first
name, a new first name from the top-N (default 50) unambiguous 1990 census first names of that gender
(``bias_core.perturb.names``, 2× rule). Its pronouns and titles follow (METHODS §1.1), and optionally its last name
(``replace_last_names``, App. C: drawn from the most frequent census surnames that are not also first names).

``agreement`` sets the scope of the rewrite (issue 27; docs/fidelity.md):

- ``"coherent"`` (default): also every gendered noun the parse ties to a swapped person (``gendered_nouns``: son →
  daughter, "both men" → "both women", congressman → congresswoman …), so that the counterfactual reads as one
  consistent world. An entity whose only gendered word is such a noun is swapped too.
- ``"names-pronouns-titles"``: Steen & Markert's strict scope (§5.1): names, pronouns and titles only. Their
  optional content-word adaptation (App. J; validation test 2 finds it changes little) is ``content_words=True``,
  kept from before issue 27 so that old configurations run as they did; it now rewrites the same tied nouns as
  ``"coherent"`` (the gendered-word table holds Table 18), so ``content_words`` makes no difference under
  ``"coherent"``.

- ``gender-loc`` (C_loc): within each input half the entities are male and half female (an odd one out goes to a
  random side); arm ``b`` of each sample inverts every entity's gender and reuses the names of arm ``a``
  (see ``assignment``). Unattributed pronouns are left as written: they belong to nobody the input assigns.
- ``gender-glob`` (C_glob): arm ``male`` makes every entity male and arm ``female`` every entity female, each
  sample giving one of each, so half the inputs of an original are all-male and half all-female. Unattributed
  pronouns take the arm's gender under ``"names-pronouns-titles"`` (METHODS §1.1 step 3). Under ``"coherent"`` the
  input is one world of one gender: an unnamed person's gendered nouns and pronouns ("my husband … he") and a pronoun
  with no person take the arm's gender too (``Slot.world``), while one that may be a person no swap renames stays.

Default: 10 samples → 20 inputs per original, seeded per original (``seed``). With ``controls`` each sample is a
quadruple (METHODS §1.3).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bias_core.perturb.assignment import Arm, Cell, NamePool, NameSwapPerturbation, PairPlan, balanced_split
from bias_core.perturb.lexicon import GENDERS
from bias_core.perturb.name_forms import given_name_table
from bias_core.perturb.names import top_first_names, top_last_names
from bias_core.perturb.templates import EntityTemplate, TemplateEntity
from bias_core.safety.validation import NAMES, SAMPLES, Param

MALE, FEMALE = (Cell(gender, gender) for gender in GENDERS)
# The scopes of the rewrite (module docstring): the coherent text, or Steen & Markert's names, pronouns and titles.
AGREEMENT_SCOPES = ("coherent", "names-pronouns-titles")
AGREEMENT = Param(str, choices=AGREEMENT_SCOPES)


@dataclass(frozen=True)
class GenderConfig:
    """Settings of C_loc and C_glob: samples (pairs) per original, names, options and seed (METHODS §1.2)."""

    samples: int = 10
    seed: int = 0
    top_n_names: int = 50
    controls: bool = False
    content_words: bool = False
    replace_last_names: bool = False
    top_n_last_names: int = 200
    agreement: str = "coherent"

    def __post_init__(self) -> None:
        SAMPLES.check("samples", self.samples)  # ParamError is a ValueError: "samples = 0 is out of range: …"
        NAMES.check("top_n_names", self.top_n_names)
        NAMES.check("top_n_last_names", self.top_n_last_names)
        AGREEMENT.check("agreement", self.agreement)  # "agreement = 'x' must be one of coherent, names-pronouns-…"


class _Gender(NameSwapPerturbation):
    config_class = GenderConfig
    config: GenderConfig

    @property
    def replaces_last_names(self) -> bool:
        return self.config.replace_last_names

    def members(self, template: EntityTemplate) -> list[TemplateEntity]:
        return template.gendered_entities(content_words=self.rewrites_content_words)

    def no_member_reason(self) -> str:
        return "no gendered entity: no person with a first name, gendered pronoun or gendered title"

    def pool(self) -> NamePool:
        first = {cell: top_first_names(cell.gender, self.config.top_n_names) for cell in (MALE, FEMALE)}
        last = None
        if self.config.replace_last_names:
            surnames = top_last_names(self.config.top_n_last_names)
            last = {cell.group: surnames for cell in (MALE, FEMALE)}
        return NamePool(first, last, given_name_table())


class GenderLocal(_Gender):
    """C_loc: half the entities of each input male, half female; pairs invert every gender with the same names."""

    name = "gender-loc"

    def plans(self, template: EntityTemplate, members: list[TemplateEntity], rng: random.Random) -> list[PairPlan]:
        split = balanced_split(self.strata(template, members), GENDERS, rng)
        cells = {GENDERS[0]: MALE, GENDERS[1]: FEMALE}
        arm_a = {entity_id: cells[gender] for entity_id, gender in split.items()}
        arm_b = {entity_id: FEMALE if cell == MALE else MALE for entity_id, cell in arm_a.items()}
        return [PairPlan(Arm("a", arm_a), Arm("b", arm_b))]


class GenderGlobal(_Gender):
    """C_glob: every entity of an input one gender; each sample gives an all-male and an all-female input."""

    name = "gender-glob"

    def plans(self, template: EntityTemplate, members: list[TemplateEntity], rng: random.Random) -> list[PairPlan]:
        ids = [m.entity_id for m in members]
        # Under "coherent" every person of the input, unnamed ones too, takes the arm's gender through the world
        # slots (``Slot.world``); an unattributed pronoun that may be a person no swap renames is none of them.
        strict = not self.coherent
        return [PairPlan(*(Arm(gender, dict.fromkeys(ids, cell), gender if strict else None,
                               world_gender=None if strict else gender)
                           for gender, cell in (("male", MALE), ("female", FEMALE))))]
