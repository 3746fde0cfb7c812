"""Executors run the two heavy stages of an audit, perturbing documents and summarizing batches, either in this
process (``local``) or on a Ray cluster (``ray``).

Results do not depend on the executor. Perturbations seed every original on its own, so chunks of documents give the
same inputs as the whole corpus does. Summarizers are deterministic per input, so a batch gives the same summaries
whichever actor runs it. The driver keeps the only connections to the cache and the store, so workers never write
SQLite across machines.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Sequence
from typing import Any

from bias_core.common.records import Document, Input
from bias_core.perturb.base import Perturbation, PerturbationResult, merge_results
from bias_core.perturb.shared import SharedRun, chunk_jobs, merge_jobs, run_shared
from bias_core.summarize.base import ItemsFinished, Summarizer, SummaryOutcome
from bias_core.summarize.runner import run_batches_locally, summarize_batch_safely

logger = logging.getLogger(__name__)

EXECUTORS = ("local", "ray")


class LocalExecutor:
    """Everything in this process, one batch after the other."""

    name = "local"

    def perturb(self, perturbation: Perturbation, documents: Sequence[Document]) -> PerturbationResult:
        return perturbation.run(documents)

    def perturb_shared(self, perturbations: Sequence[Perturbation], documents: Sequence[Sequence[Document]]
                       ) -> SharedRun:
        """Every perturbation over its documents, one parse per original (``perturb.shared.run_shared``)."""
        return run_shared(perturbations, documents)

    def map_batches(self, summarizer: Summarizer, batches: list[list[Input]],
                    on_finished: ItemsFinished | None = None) -> Iterator[tuple[int, list[SummaryOutcome]]]:
        return run_batches_locally(summarizer, batches, on_finished)

    def close(self) -> None:
        """Nothing to release."""


class RayExecutor:
    """Perturbation chunks as Ray tasks; summarization on a pool of actors, each keeping its model loaded.

    Connects to ``address`` (or ``$RAY_ADDRESS``, e.g. ``ray://head:10001``) when given, else starts a local Ray
    with ``num_cpus``. ``openai:`` summarizers get one actor: the endpoint is where the work happens, and the
    summarizer's own ``concurrency`` is the limit on parallel requests.
    """

    name = "ray"

    def __init__(self, address: str | None = None, *, num_cpus: int | None = None, actors: int | None = None,
                 documents_per_task: int = 8):
        import ray

        address = address or os.environ.get("RAY_ADDRESS")
        if not ray.is_initialized():
            options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                       "configure_logging": False}
            if address:
                ray.init(address=address, **options)
            else:
                ray.init(num_cpus=num_cpus or os.cpu_count(), **options)
        self._ray = ray
        self.actors = actors
        self.documents_per_task = max(1, documents_per_task)

    def perturb(self, perturbation: Perturbation, documents: Sequence[Document]) -> PerturbationResult:
        run_chunk = self._ray.remote(_perturb_chunk)
        size = self.documents_per_task
        chunks = [list(documents[start : start + size]) for start in range(0, len(documents), size)]
        return merge_results(self._ray.get([run_chunk.remote(perturbation, chunk) for chunk in chunks]))

    def perturb_shared(self, perturbations: Sequence[Perturbation], documents: Sequence[Sequence[Document]]
                       ) -> SharedRun:
        """``run_shared`` as one Ray task per chunk of originals: each task parses its originals once for all the
        perturbations."""
        run_chunk = self._ray.remote(run_shared)
        jobs = chunk_jobs(perturbations, documents, self.documents_per_task)
        runs = self._ray.get([run_chunk.remote(chosen, docs) for _, chosen, docs in jobs])
        return merge_jobs(len(perturbations), [(indices, run) for (indices, _, _), run in zip(jobs, runs)])

    def map_batches(self, summarizer: Summarizer, batches: list[list[Input]],
                    on_finished: ItemsFinished | None = None) -> Iterator[tuple[int, list[SummaryOutcome]]]:
        """Batches over the actor pool; progress moves per batch (``on_finished`` is not sent to the actors)."""
        if not batches:
            return
        from ray.util import ActorPool

        available = int(self._ray.cluster_resources().get("CPU", 1))
        count = 1 if summarizer.name.startswith("openai:") else min(self.actors or available, len(batches))
        actor_class = self._ray.remote(num_cpus=1)(_SummarizerActor)
        actors = [actor_class.remote(summarizer) for _ in range(count)]
        try:
            pool = ActorPool(actors)
            yield from pool.map_unordered(lambda actor, job: actor.run.remote(*job), list(enumerate(batches)))
        finally:
            for actor in actors:
                self._ray.kill(actor)

    def close(self) -> None:
        """Leave the cluster (a local Ray started here is shut down)."""
        self._ray.shutdown()


def _perturb_chunk(perturbation: Perturbation, documents: list[Document]) -> PerturbationResult:
    return perturbation.run(documents)


class _SummarizerActor:
    """Holds one summarizer (and so its loaded model) for the actor's lifetime."""

    def __init__(self, summarizer: Summarizer):
        os.environ["SUMMBIAS_SPACY_PROCESSES"] = "1"  # the actor holds one CPU; Ray spreads the work instead
        self.summarizer = summarizer

    def run(self, index: int, batch: list[Input]) -> tuple[int, list[SummaryOutcome]]:
        return index, summarize_batch_safely(self.summarizer, batch)


def get_executor(name: str, **options: Any) -> LocalExecutor | RayExecutor:
    """``local`` or ``ray`` (options: ``address``, ``num_cpus``, ``actors``)."""
    if name == "local":
        return LocalExecutor()
    if name == "ray":
        return RayExecutor(**options)
    raise ValueError(f"unknown executor {name!r}; choose one of {', '.join(EXECUTORS)}")
