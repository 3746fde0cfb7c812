"""Summarize inputs through the cache: hits are read back, misses are computed in batches and stored."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from bias_core.common.records import Input, Summary
from bias_core.safety.errors import SummarizerError
from bias_core.safety.validation import BATCH_SIZE
from bias_core.summarize.base import ItemsFinished, Summarizer, SummaryFailure, SummaryOutcome
from bias_core.summarize.cache import SummaryCache, cache_key, hit_meta

logger = logging.getLogger(__name__)

ProgressCallback = Callable[[int, int], None]
# Runs a list of batches through a summarizer and yields (batch index, outcomes) as each batch finishes, in any
# order; ``on_finished`` (optional) hears of single inputs finishing inside a batch (with their outcomes where the
# engine has them then: ``ItemsFinished``). The local mapper runs the batches
# one after the other; executors.RayExecutor spreads them over actors (and reports whole batches).
BatchMapper = Callable[..., Iterator[tuple[int, list[SummaryOutcome]]]]


def run_batches_locally(summarizer: Summarizer, batches: list[list[Input]], on_finished: ItemsFinished | None = None
                        ) -> Iterator[tuple[int, list[SummaryOutcome]]]:
    """Summarize the batches in this process, one after the other; a summarizer error fails only its batch."""
    for index, batch in enumerate(batches):
        yield index, summarize_batch_safely(summarizer, batch, on_finished)


def summarize_batch_safely(summarizer: Summarizer, batch: list[Input], on_finished: ItemsFinished | None = None
                           ) -> list[SummaryOutcome]:
    """``summarizer.summarize_batch`` (reporting single inputs to ``on_finished`` when given), with a
    ``SummarizerError`` turned into one failure per input."""
    try:
        if on_finished is None:
            return summarizer.summarize_batch(batch)
        return summarizer.summarize_batch_reporting(batch, on_finished)
    except SummarizerError as error:
        return [SummaryFailure(item.id, summarizer.name, str(error)) for item in batch]


def count_cached(summarizer: Summarizer, inputs: Sequence[Input], cache: SummaryCache) -> int:
    """How many of ``inputs`` the cache already holds for ``summarizer`` (they cost nothing to summarize)."""
    keys = [cache_key(summarizer, item) for item in inputs]
    return len(cache.get_many(keys))

@dataclass
class SummarizeReport:
    """What a call produced: summaries in input order, failures, and how many came from the cache."""

    summaries: list[Summary] = field(default_factory=list)
    failures: list[SummaryFailure] = field(default_factory=list)
    cache_hits: int = 0
    computed: int = 0
    seconds: float = 0.0
    not_sent: list[str] = field(default_factory=list)  # inputs ``limit`` did not allow (a spent budget)


class SendLimit(Protocol):
    """How many requests may be sent (``runs.budget.Budget``): asked before each round, told of each answer."""

    def allowed(self, waiting: int) -> int: ...

    def spend(self, usage: dict | None) -> None: ...


def summarize_inputs(
    summarizer: Summarizer,
    inputs: Sequence[Input],
    *,
    cache: SummaryCache | None = None,
    batch_size: int | None = None,
    on_progress: ProgressCallback | None = None,
    on_batch: Callable[[list[Summary]], None] | None = None,
    on_failures: Callable[[list[SummaryFailure]], None] | None = None,
    map_batches: BatchMapper = run_batches_locally,
    on_wait: Callable[[str | None], None] | None = None,
    limit: SendLimit | None = None,
) -> SummarizeReport:
    """Summarize ``inputs``; every computed summary is cached (and handed to ``on_batch``) as soon as it is known,
    every failure handed to ``on_failures``.

    Keeping each summary at once is what makes an interrupted run resumable without losing work: everything
    finished before the interruption is a cache hit the next time. A summary is known when its engine reports it
    (endpoints: each answer as it arrives, ``Summarizer.summarize_batch_reporting``), else when its batch ends.
    ``on_progress(done, total)`` is called once after the cache is read (``done`` = the cache hits, before any model
    work) and then each time more inputs are finished, after their outcomes are kept: per summary where the engine
    reports single inputs, else per batch. ``on_wait(text)`` hears what the summarizer waits on (an endpoint's rate
    limit) and ``on_wait(None)`` when the wait ends (``Summarizer.on_wait``). With ``limit`` (a budget), the misses
    are sent in rounds it allows; those it no longer allows are neither summaries nor failures but ``not_sent``.
    """
    if batch_size is not None:
        BATCH_SIZE.check("batch_size", batch_size)  # a batch size below 1 would silently drop every input
    started = time.perf_counter()
    report = SummarizeReport()
    try:
        keys = [cache_key(summarizer, item) for item in inputs] if cache is not None else []
    except SummarizerError as error:  # the revision could not be read: the model does not load
        report.failures = [SummaryFailure(item.id, summarizer.name, str(error)) for item in inputs]
        if on_failures is not None:
            on_failures(report.failures)
        report.seconds = time.perf_counter() - started
        return report
    hits = cache.get_many(keys) if cache is not None else {}
    results: dict[str, Summary | SummaryFailure] = {}
    misses: list[tuple[int, Input]] = []
    for index, item in enumerate(inputs):
        cached = hits.get(keys[index]) if cache is not None else None
        if cached is not None:
            # read, not requested: its tokens were spent by the run that made it (cache.hit_meta)
            results[item.id] = replace(cached, input_id=item.id, meta=hit_meta(cached.meta))
        else:
            misses.append((index, item))
    report.cache_hits = len(inputs) - len(misses)
    if on_batch is not None and report.cache_hits:
        on_batch([result for result in results.values() if isinstance(result, Summary)])
    done = report.cache_hits
    if on_progress:
        on_progress(done, len(inputs))
    size = batch_size or summarizer.default_batch_size
    chunks: list[list[tuple[int, Input]]] = []
    kept: set[int] = set()  # positions in ``inputs`` whose outcome is kept (cached, handed on)

    def keep(outcomes: list[tuple[int, SummaryOutcome]]) -> None:
        fresh = [(index, outcome) for index, outcome in outcomes if index not in kept]
        summaries = [(keys[index] if cache is not None else "", outcome)
                     for index, outcome in fresh if isinstance(outcome, Summary)]
        failures = [outcome for _, outcome in fresh if not isinstance(outcome, Summary)]
        if cache is not None:
            cache.put_many(summaries)
        if on_batch is not None and summaries:
            on_batch([summary for _, summary in summaries])
        if on_failures is not None and failures:
            on_failures(failures)
        for index, outcome in fresh:
            results[inputs[index].id] = outcome
            kept.add(index)
            if limit is not None:
                limit.spend(outcome.meta.get("usage") if isinstance(outcome, Summary) else None)
        report.computed += len(summaries)

    # Inputs finished inside batches not yet yielded; recounted exactly when their batch is yielded. The local mapper
    # runs one batch at a time, in order, so these belong to the first batch not yet yielded.
    in_batch = 0
    yielded = 0

    def finished_in_batch(count: int, outcomes: Mapping[int, SummaryOutcome] | None = None) -> None:
        nonlocal in_batch
        if outcomes and yielded < len(chunks):
            keep([(chunks[yielded][position][0], outcome) for position, outcome in outcomes.items()])
        in_batch += count
        if on_progress and count:
            on_progress(min(done + in_batch, len(inputs)), len(inputs))

    reporting = on_progress is not None or cache is not None or on_batch is not None or on_failures is not None
    summarizer.on_wait = on_wait
    try:
        # One round sends every miss, unless ``limit`` allows fewer at a time (a token budget: rounds it can cover).
        waiting = misses
        while waiting:
            allowed = len(waiting) if limit is None else limit.allowed(len(waiting))
            if allowed <= 0:
                report.not_sent = [item.id for _, item in waiting]
                break
            round_, waiting = waiting[:allowed], waiting[allowed:]
            chunks = [round_[start : start + size] for start in range(0, len(round_), size)]
            in_batch = yielded = 0
            batches = [[item for _, item in chunk] for chunk in chunks]
            mapped = map_batches(summarizer, batches, on_finished=finished_in_batch) if reporting else \
                map_batches(summarizer, batches)
            for chunk_index, outcomes in mapped:
                chunk = chunks[chunk_index]
                keep([(index, outcome) for (index, _), outcome in zip(chunk, outcomes, strict=True)])
                yielded += 1  # noqa: SIM113 — finished_in_batch reads it between yields
                done += len(chunk)
                reported = in_batch >= len(chunk)
                in_batch = max(0, in_batch - len(chunk))
                if on_progress and not reported:
                    on_progress(done, len(inputs))
    finally:
        summarizer.on_wait = None
        if on_wait is not None:
            on_wait(None)
    unsent = set(report.not_sent)
    for item in inputs:
        if item.id in unsent:
            continue
        outcome = results[item.id]
        if isinstance(outcome, Summary):
            report.summaries.append(outcome)
        else:
            report.failures.append(outcome)
            logger.warning("summarizer %s failed on %s: %s", outcome.summarizer, outcome.input_id, outcome.error)
    report.seconds = time.perf_counter() - started
    return report
