"""Review the swaps before any model runs (issue 14): a checklist over *all* inputs of each perturbation and a seeded
sample of inputs to read, so a place turned into a person, a leftover "Mr" before a woman's name or a half-swapped
politician is found before hours of model time, not after.

``review_inputs(inputs, reports)`` returns one :class:`PerturbationReview` per perturbation with these checks, each
with counts and concrete examples (input id, span, context):

- ``coherence``: every place an input contradicts itself (issue 27; ``perturb.agreement``) — a pronoun or gendered
  noun the parse ties to a person of the other gender, an ambiguous pronoun left as written that fits nobody, a person
  with two names, a title or suffix of the other gender — shown first, with the share of inputs carrying any flag;
- ``doubtful_swaps``: swaps the perturbation is not sure name a person (medium or low confidence, issue 21), low
  first, each with its sentence — shown first, and what the analyst can exclude per original or per name;
- ``non_person``: name swaps of spans spaCy labelled something other than a person (GPE, ORG, …);
- ``leftover_titles``, ``leftover_content_words``, ``leftover_pronouns``: gendered words the input kept that disagree
  with the gender the input gives the person next to them (or, for C_glob's one-gender arms, with the arm);
- ``partial_names``: an original first or last name the input replaced but still contains;
- ``politician_aliases``: the original politician's surname or given names left in a swapped input;
- ``skipped``: originals the perturbation could not use, with its reasons.

Pure functions over records: the app's Audit page shows this, ``python -m bias_core audit --review`` prints it and
``pipeline.run_audit`` stores ``review_report`` with the run.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from bias_core.common.records import Input
from bias_core.perturb.review_checklist import Check, PerturbationReview, Review
from bias_core.perturb.review_checks import (
    coherence,
    doubtful_swaps,
    leftover_content_words,
    leftover_pronouns,
    leftover_titles,
    non_person_swaps,
    partial_names,
    politician_aliases,
    skipped_originals,
)

# Inputs shown per perturbation on the Audit page and recorded with the run as "what was reviewed".
REVIEW_SAMPLE_SIZE = 3
GENDER_KINDS = ("gender-loc", "gender-glob")
NAME_SWAP_KINDS = (*GENDER_KINDS, "race", "race-intersectional")


def review_inputs(inputs: Sequence[Input], reports: dict[str, Any], excluded: Collection[str] = (),
                  excluded_entities: Mapping[str, Collection[str]] | None = None) -> Review:
    """Return the checklist of every perturbation over all ``inputs`` (identity left out), with ``reports`` (as
    ``pipeline.build_inputs`` returns them: per perturbation ``run_info`` and ``skips``) giving the skip reasons and
    whether content words were swapped. Inputs and skips of ``excluded`` originals are left out and listed; the
    names of ``excluded_entities`` (original → names) leave the doubtful swaps and are listed."""
    excluded_set = set(excluded)
    names = {original: sorted(set(found)) for original, found in (excluded_entities or {}).items() if found}
    by_kind: dict[str, list[Input]] = {}
    for item in inputs:
        if item.perturbation != "identity" and item.original_id not in excluded_set:
            by_kind.setdefault(item.perturbation, []).append(item)
    kinds = list(dict.fromkeys([*(kind for kind in reports if kind != "identity"), *by_kind]))
    return Review([_review_one(kind, by_kind.get(kind, []), reports.get(kind) or {}, excluded_set, names)
                   for kind in kinds], sorted(excluded_set), names)


def _review_one(kind: str, items: list[Input], report: dict[str, Any], excluded: set[str],
                excluded_names: Mapping[str, Collection[str]]) -> PerturbationReview:
    config = (report.get("run_info") or {}).get("config") or {}
    words_swapped = bool(config.get("content_words")) or config.get("agreement") == "coherent"  # gender.py
    checks: list[Check] = []
    if kind in NAME_SWAP_KINDS:
        checks.append(coherence(items))  # first: what makes an input contradict itself (issue 27)
    if kind in NAME_SWAP_KINDS or kind == "politician":
        checks.append(doubtful_swaps(items, excluded_names))
    if kind in NAME_SWAP_KINDS:
        checks.append(non_person_swaps(items))
        checks.append(leftover_titles(items, one_gender_arms=kind == "gender-glob"))
        checks.append(leftover_content_words(items, words_swapped,
                                             same_in_both_arms=kind not in GENDER_KINDS))
        if kind == "gender-glob":
            checks.append(leftover_pronouns(items))
        checks.append(partial_names(items))
    if kind == "politician":
        checks.append(politician_aliases(items))
    checks.append(skipped_originals(report.get("skips") or {}, excluded))
    content_words = words_swapped if kind in NAME_SWAP_KINDS else None
    return PerturbationReview(kind, len(items), len({item.original_id for item in items}), checks, content_words)


def sample_inputs(inputs: Sequence[Input], per_perturbation: int = REVIEW_SAMPLE_SIZE, seed: int = 0,
                  excluded: Collection[str] = ()) -> dict[str, list[Input]]:
    """A seeded sample of perturbed inputs to read, per perturbation (identity and politician's unchanged
    ``original`` inputs left out): one input each from different originals first, in a random order fixed by
    ``seed`` and the perturbation's name, then more from the same originals when there are too few."""
    by_kind: dict[str, dict[str, list[Input]]] = {}
    for item in inputs:
        if item.perturbation == "identity" or item.role == "original" or item.original_id in excluded:
            continue
        by_kind.setdefault(item.perturbation, {}).setdefault(item.original_id, []).append(item)
    sample: dict[str, list[Input]] = {}
    for kind, by_original in by_kind.items():
        rng = random.Random(f"{seed}/review/{kind}")
        originals = sorted(by_original)
        rng.shuffle(originals)
        pools = {original: list(by_original[original]) for original in originals}
        for pool in pools.values():
            rng.shuffle(pool)
        chosen: list[Input] = []
        while len(chosen) < per_perturbation and any(pools.values()):
            for original in originals:
                if pools[original] and len(chosen) < per_perturbation:
                    chosen.append(pools[original].pop())
        sample[kind] = chosen
    return sample


def review_report(inputs: Sequence[Input], reports: dict[str, Any], *, seed: int, excluded: Collection[str] = (),
                  per_perturbation: int = REVIEW_SAMPLE_SIZE,
                  excluded_entities: Mapping[str, Collection[str]] | None = None) -> dict[str, Any]:
    """What a run records as reviewed (``reports["review"]``): the checklist counts with a few examples, the ids of
    the sample the Audit page shows (the same seed and size), the excluded originals and the names excluded from
    swapping."""
    review = review_inputs(inputs, reports, excluded, excluded_entities)
    sample = sample_inputs(inputs, per_perturbation, seed, excluded)
    return {**review.to_dict(), "sample_ids": {kind: [item.id for item in items] for kind, items in sample.items()},
            "sample_size": per_perturbation}
