"""Several perturbations over one corpus with one spaCy parse per original (METHODS §1.1).

An audit may name gender-loc, gender-glob, race, race-intersectional and politician at once. Each of them builds its
inputs from the same entity templates (``templates.build_templates``), so the templates are built once per original
and handed to every name-based perturbation (``run_templates``); the others (identity, sentiment) run as they are.
The inputs, skip reports and run records equal those of running each perturbation on its own.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from bias_core.common.records import Document
from bias_core.perturb.base import Perturbation, PerturbationResult, merge_results
from bias_core.perturb.templates import build_templates


@dataclass
class SharedRun:
    """One result per perturbation (in the order given), with what the shared parse cost."""

    results: list[PerturbationResult]
    parse_seconds: float = 0.0  # spaCy parse + entity templates, once per original
    n_parsed: int = 0  # originals parsed (each once, however many perturbations used it)


def uses_templates(perturbation: Perturbation) -> bool:
    """Whether a perturbation builds its inputs from entity templates (and so can share their parse)."""
    return callable(getattr(perturbation, "run_templates", None))


def run_shared(perturbations: Sequence[Perturbation], documents: Sequence[Sequence[Document]]) -> SharedRun:
    """Run ``perturbations[i]`` over ``documents[i]``, parsing each original once for all the name-based ones.

    ``documents`` gives each perturbation its own documents (an audit gives news articles to name swaps and review
    sets to the sentiment split); an original given to several name-based perturbations is parsed once, in one
    batched call over all of them.
    """
    if len(perturbations) != len(documents):
        raise ValueError("give one list of documents per perturbation")
    wanted: dict[tuple[str, str | None], Document] = {}  # an original is its id and text
    for perturbation, docs in zip(perturbations, documents, strict=True):
        if uses_templates(perturbation):
            for document in docs:
                wanted.setdefault((document.id, document.text), document)
    started = time.perf_counter()
    templates = dict(zip(wanted, build_templates(list(wanted.values())))) if wanted else {}
    parse_seconds = time.perf_counter() - started
    results = [perturbation.run_templates([templates[d.id, d.text] for d in docs]) if uses_templates(perturbation)
               else perturbation.run(docs) for perturbation, docs in zip(perturbations, documents, strict=True)]
    return SharedRun(results, parse_seconds, len(wanted))


def chunk_jobs(
    perturbations: Sequence[Perturbation], documents: Sequence[Sequence[Document]], size: int
) -> list[tuple[list[int], list[Perturbation], list[list[Document]]]]:
    """Split a ``run_shared`` call into jobs over consecutive chunks of at most ``size`` originals (the union of all
    perturbations' documents, in order), for an executor that runs chunks in parallel. Each job is (indices of the
    perturbations that have documents in the chunk, those perturbations, their documents in the chunk); ``merge_jobs``
    puts the results back together."""
    union: dict[str, Document] = {}
    for docs in documents:
        for document in docs:
            union.setdefault(document.id, document)
    ids = list(union)
    jobs = []
    for start in range(0, len(ids), max(1, size)):
        chunk = set(ids[start : start + size])
        indices, chosen, chunk_docs = [], [], []
        for index, (perturbation, docs) in enumerate(zip(perturbations, documents, strict=True)):
            mine = [document for document in docs if document.id in chunk]
            if mine:
                indices.append(index)
                chosen.append(perturbation)
                chunk_docs.append(mine)
        jobs.append((indices, chosen, chunk_docs))
    return jobs


def merge_jobs(n_perturbations: int, jobs: Sequence[tuple[list[int], SharedRun]]) -> SharedRun:
    """One ``SharedRun`` from the runs of ``chunk_jobs``' jobs, in job order (parse seconds added up)."""
    parts: list[list[PerturbationResult]] = [[] for _ in range(n_perturbations)]
    for indices, run in jobs:
        for index, result in zip(indices, run.results, strict=True):
            parts[index].append(result)
    return SharedRun([merge_results(part) for part in parts], sum(run.parse_seconds for _, run in jobs),
                     sum(run.n_parsed for _, run in jobs))
