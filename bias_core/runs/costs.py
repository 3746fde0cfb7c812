"""The cost model of an audit and the facts of the machine it runs on: default guesses per summarizer family, the
measured seconds of model loads, perturbing and each family of measures, and the work of an audit counted before it
runs (``audit_work``, ``modelled_seconds``). Everything here is pure except reading the host name, cores and load.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bias_core.common.records import Input

# Default guesses (seconds per summary, low and high) where no run of a summarizer was measured on this machine. Wide
# on purpose: smollm2 on CTranslate2 int8 took 2–4 s per input on an idle 2-core machine, much more on a loaded one.
DEFAULT_SECONDS = {"smollm2": (1.5, 8.0), "hf": (1.0, 15.0), "openai": (0.3, 5.0), "extractive": (0.002, 0.1)}
# Default guesses of the first summary's extra time (loading the model), seconds, low and high: smollm2 0.5–0.9 s warm,
# 17–25 s the first time on a machine; spaCy (extractive sentence splitting) is counted apart (``MODEL_LOADS``).
DEFAULT_LOAD_SECONDS = {"smollm2": (0.5, 25.0), "hf": (2.0, 60.0), "openai": (0.0, 2.0), "extractive": (0.0, 0.0)}
# spaCy's load, low and high (idle machine – loaded machine), for the default guess of the first summarizer using it.
SPACY_LOAD_RANGE = (2.5, 10.0)


@dataclass(frozen=True)
class Machine:
    """Where a rate was measured: rates from other machines say little about this one."""

    hostname: str
    cores: int


def this_machine() -> Machine:
    """The machine this process runs on (host name and CPU cores)."""
    return Machine(socket.gethostname(), os.cpu_count() or 1)


def load_average() -> float | None:
    """This machine's 1-minute load average (None where the system has none)."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def summarizer_family(name: str) -> str:
    """The default-guess family of a summarizer name: smollm2, hf, openai, or extractive (everything else)."""
    prefix = name.split(":", 1)[0]
    return prefix if prefix in ("smollm2", "hf", "openai") else "extractive"


# Every stage of an audit -------------------------------------------------------------------------------------------
#
# Costs in seconds, measured on this machine (2 cores, shared: load average 1–8 while other work ran, 2026-11-26) by
# timing each family of measures alone on the demo reviews (sentiment, 3 unit sets × 7 inputs) and 8 demo articles
# (identity + gender-glob + gender-loc with controls + politician, 120 inputs), lead-3 and textrank, 1,000 resamples:
# once in a fresh process (loads included) and twice warm on half and all the originals (fixed and per-summary cost).
# A load is paid once per audit, by the first stage that needs it (the audit runs in one worker process).

# en_core_web_sm 2.5–10 s, all-MiniLM-L6-v2 3–10 s; importing scipy.stats (bootstrap tests, MBIC) 1–5 s and
# scikit-learn (SFPI's forest, distinguishability's counts) 1–2.5 s (idle – loaded machine).
MODEL_LOADS = {"spacy": 5.0, "encoder": 9.0, "scipy": 2.0, "sklearn": 1.5}
# The name-swapping kinds parse each original once with spaCy; every kind then fills its inputs.
PARSING_KINDS = ("gender-loc", "gender-glob", "race", "race-intersectional", "politician")
PERTURB_COSTS = {"per_parsed_original": 0.25, "per_input": 0.003}
# Extractive summarizers and smollm2 (its truncation check) load spaCy in the summarize stage (inside their own
# first-summary time); hosted and Hugging Face ones do not.
SPACY_SUMMARIZERS = ("extractive", "smollm2")


@dataclass(frozen=True)
class MeasureCost:
    """One family's cost: fixed seconds, seconds per summary it reads (at 1,000 resamples), seconds per original, and
    the models it loads."""

    fixed: float
    per_summary: float = 0.0
    per_original: float = 0.0
    loads: tuple[str, ...] = ("spacy", "scipy")


MEASURE_COSTS = {
    "perspective": MeasureCost(0.3, 0.013),           # 42 summaries: 0.59 s warm (permutation null, lemmas)
    "mbic": MeasureCost(0.1, 0.001),                  # 240 summaries: 0.12 s warm
    # The forest: 2.6–2.9 s for 3 originals, 5.9–6.3 s for 8.
    "sfpi": MeasureCost(1.6, 0.0, 0.55, loads=("spacy", "scipy", "sklearn")),
    "distinguishability": MeasureCost(0.5, 0.05, loads=("spacy", "encoder", "scipy", "sklearn")),  # 96: 5.5 s
    "fightin_words": MeasureCost(0.05, 0.0015),       # 96 summaries: 0.16 s warm
    "entities": MeasureCost(1.0, 0.02),               # 128 summaries: 3.8 s warm (NER alignment)
    "word_list": MeasureCost(0.2, 0.004),             # 128 summaries: 0.72 s warm
    "quadruples": MeasureCost(0.5, 0.016),            # 240 summaries: 4.5 s warm (alignment shared with entities)
    "politician": MeasureCost(0.5, 0.01),             # not timed (no pair in 8 articles): a guess near word_list
}
# Resampling dominates the per-summary cost of these families; it scales with the resamples asked for.
RESAMPLED = ("perspective", "fightin_words", "word_list", "entities", "quadruples")


@dataclass(frozen=True)
class AuditWork:
    """What an audit computes, counted before it runs: originals parsed, inputs, summarizer families, and per family
    of measures the summaries it reads and the originals it trains on."""

    parsed_originals: int
    inputs: int
    summarizer_families: tuple[str, ...]
    measure_summaries: dict[str, int]
    measure_originals: dict[str, int]
    resamples: int = 1000


def audit_work(inputs: Sequence[Input], summarizers: Sequence[str], measures: Sequence[str] | None,
               resamples: int = 1000) -> AuditWork:
    """Count the work of an audit of ``inputs`` by ``summarizers`` computing ``measures`` (None: every measure the
    data supports, as ``bias_core.measures.compute_measures`` does), following its rules: perspective measures read
    the unit documents of identity, MBIC the identity summaries where there are any, quadruples the inputs with a
    quadruple role, SFPI trains on the originals."""
    from bias_core.measures import MEASURE_NAMES, MEASURES, quadruples

    names = list(measures) if measures else list(MEASURE_NAMES)
    families = {MEASURES[name].family for name in names if name in MEASURES}
    has_identity = any(item.perturbation == "identity" for item in inputs)
    originals = len({item.original_id for item in inputs})

    def reads(family: str, item: Input) -> bool:
        wanted = [name for name in names if name in MEASURES and MEASURES[name].family == family]
        if not any(MEASURES[name].perturbations is None or item.perturbation in MEASURES[name].perturbations
                   for name in wanted):
            return False
        if family == "perspective" and item.perturbation == "identity":
            return bool(item.units)
        if family == "mbic" and has_identity:
            return item.perturbation == "identity"
        if family == "quadruples":
            return bool(item.quadruple_id) and item.role in quadruples.QUADRUPLE_ROLES
        return True

    counted_families = sorted(families - {"sfpi"})
    summaries = {family: sum(reads(family, item) for item in inputs) * len(summarizers)
                 for family in counted_families}
    parsed = len({item.original_id for item in inputs if item.perturbation in PARSING_KINDS})
    return AuditWork(parsed, len(inputs), tuple(summarizer_family(name) for name in summarizers),
                     {family: count for family, count in summaries.items() if count},
                     {"sfpi": originals} if "sfpi" in families and originals else {}, resamples)


def modelled_seconds(work: AuditWork) -> dict[str, float]:
    """The modelled seconds of the perturb and measure stages of ``work`` (summarizing is timed per summarizer from
    its throughput), each model load counted once, in the first stage that needs it."""
    loaded: set[str] = set()
    perturb = work.inputs * PERTURB_COSTS["per_input"]
    if work.parsed_originals:
        perturb += MODEL_LOADS["spacy"] + work.parsed_originals * PERTURB_COSTS["per_parsed_original"]
        loaded.add("spacy")
    if any(family in SPACY_SUMMARIZERS for family in work.summarizer_families):
        loaded.add("spacy")
    measure = 0.0
    scale = work.resamples / 1000
    for family in sorted(set(work.measure_summaries) | set(work.measure_originals)):
        cost = MEASURE_COSTS.get(family, MeasureCost(0.5, 0.01))
        per_summary = cost.per_summary * (scale if family in RESAMPLED else 1.0)
        measure += (cost.fixed + per_summary * work.measure_summaries.get(family, 0)
                    + cost.per_original * work.measure_originals.get(family, 0))
        for model in cost.loads:
            if model not in loaded:
                measure += MODEL_LOADS[model]
                loaded.add(model)
    return {"perturb": perturb, "measure": measure}


def spacy_loaded_by_perturb(inputs: Sequence[Input]) -> bool:
    """Whether the perturb stage of an audit with these inputs parses originals with spaCy (so it is loaded)."""
    return any(item.perturbation in PARSING_KINDS for item in inputs)
