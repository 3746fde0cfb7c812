"""The perturbation engine: documents in, inputs with substitution maps and a skip report out (METHODS §1).

Every perturbation is registered by its INTERFACES.md name and built from keyword parameters validated by its config
dataclass::

    result = get_perturbation("gender-loc", samples=10, seed=1, controls=True).run(documents)
    result.inputs, result.report, result.run_info

Name-based perturbations parse each original once (``templates.build_templates``) and can share that parse through
``run_templates``; ``shared.run_shared`` runs several perturbations over one corpus with one parse per original (what
an audit does).
"""

from __future__ import annotations

from typing import Any

from bias_core.perturb.base import Perturbation, PerturbationResult, SkipReport
from bias_core.perturb.gender import GenderConfig, GenderGlobal, GenderLocal
from bias_core.perturb.identity import Identity, IdentityConfig
from bias_core.perturb.politician import PoliticianConfig, PoliticianSwap, back_replace
from bias_core.perturb.politician_forms import PoliticianPair, parse_pair
from bias_core.perturb.race import Race, RaceConfig, RaceIntersectional
from bias_core.perturb.sentiment import PerspectiveSplit, SentimentConfig
from bias_core.perturb.shared import SharedRun, run_shared
from bias_core.perturb.templates import EntityTemplate, build_templates

PERTURBATIONS: dict[str, type[Perturbation]] = {
    cls.name: cls
    for cls in (Identity, GenderLocal, GenderGlobal, Race, RaceIntersectional, PoliticianSwap, PerspectiveSplit)
}


def get_perturbation(name: str, **params: Any) -> Perturbation:
    """Return the perturbation registered as ``name``, configured by ``params`` (its config dataclass's fields)."""
    try:
        cls = PERTURBATIONS[name]
    except KeyError:
        raise ValueError(f"unknown perturbation {name!r}; choose one of {', '.join(PERTURBATIONS)}") from None
    return cls(**params)


__all__ = [
    "PERTURBATIONS",
    "EntityTemplate",
    "GenderConfig",
    "GenderGlobal",
    "GenderLocal",
    "Identity",
    "IdentityConfig",
    "Perturbation",
    "PerturbationResult",
    "PerspectiveSplit",
    "PoliticianConfig",
    "PoliticianPair",
    "PoliticianSwap",
    "Race",
    "RaceConfig",
    "RaceIntersectional",
    "SentimentConfig",
    "SharedRun",
    "SkipReport",
    "back_replace",
    "build_templates",
    "get_perturbation",
    "parse_pair",
    "run_shared",
]
