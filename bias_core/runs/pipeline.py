"""The audit pipeline: documents → inputs → summaries → measures, recorded as one run in the store.

A run is identified by a hash of its configuration and corpus. Starting the same audit again resumes the newest
unfinished run with that hash: documents and inputs are rebuilt deterministically from the seed, summaries already
in the store or the cache are not recomputed.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import time
from collections.abc import Callable
from typing import Any

from bias_core.common.records import Document, Input, MeasureResult
from bias_core.common.words import plural
from bias_core.documents.corpus import CsvColumns, load_documents
from bias_core.documents.decoding import megabytes
from bias_core.documents.language import non_english_documents
from bias_core.runs.budget import Budget, limited
from bias_core.runs.config import AuditConfig, ConfigError, config_hash, environment, perturbation_params
from bias_core.runs.estimate import Estimate
from bias_core.runs.executors import LocalExecutor, RayExecutor
from bias_core.runs.progress import ProgressCallback, RunProgress
from bias_core.runs.run_info import Owner
from bias_core.runs.selection import check_corpus, documents_for, kept_documents, with_excluded_entities
from bias_core.runs.stopping import AuditStopped, exit_code, mark_stopped
from bias_core.runs.store import RunStore
from bias_core.safety.errors import BiasCoreError, StageError, one_line
from bias_core.safety.validation import unknown_key_message
from bias_core.summarize import SummaryCache, get_summarizer, summarize_inputs

logger = logging.getLogger(__name__)


def build_inputs(documents: list[Document], config: AuditConfig, executor: LocalExecutor | RayExecutor | None = None,
                 timings: dict[str, float] | None = None) -> tuple[list[Input], dict[str, Any]]:
    """Run every configured perturbation over the documents; return the inputs and each one's report.

    The run's seed is passed to every perturbation that takes one, unless its own parameters set it. Originals in
    ``config.exclude_originals`` are left out of every perturbation, identity included. The name-based
    perturbations share one spaCy parse of each original (``perturb.shared``); ``timings``, when given, receives
    the seconds of that parse as ``parse`` (summed over workers on Ray).
    """
    from bias_core.perturb import PERTURBATIONS, get_perturbation

    documents = with_excluded_entities(config, kept_documents(config, documents))
    perturbations, wanted = [], []
    for spec in config.perturbations:
        if spec.name not in PERTURBATIONS:
            raise ConfigError("config", unknown_key_message("perturbation", spec.name, tuple(PERTURBATIONS)))
        fields = [f.name for f in dataclasses.fields(PERTURBATIONS[spec.name].config_class)]
        params = perturbation_params(spec, config.seed, fields)
        documents_of_kind = documents_for(spec.name, documents)
        if not documents_of_kind:
            kind = "review sets (units with values)" if spec.name == "sentiment" else "news articles"
            raise ConfigError("config", f"perturbation '{spec.name}' needs {kind}, and the corpus has none")
        try:
            perturbations.append(get_perturbation(spec.name, **params))
        except (TypeError, ValueError) as error:
            raise ConfigError("config", f"perturbation '{spec.name}': {error}") from None
        wanted.append(documents_of_kind)
    try:
        shared = (executor or LocalExecutor()).perturb_shared(perturbations, wanted)
    except (TypeError, ValueError) as error:
        names = ", ".join(spec.name for spec in config.perturbations)
        raise ConfigError("config", f"perturbations ({names}): {error}") from None
    if timings is not None:
        timings["parse"] = round(shared.parse_seconds, 2)
    inputs: list[Input] = []
    seen: set[str] = set()
    reports: dict[str, Any] = {}
    for spec, result in zip(config.perturbations, shared.results, strict=True):
        reports[spec.name] = {"run_info": result.run_info, "skips": result.report.to_dict(),
                              "summary": result.report.summary()}
        for item in result.inputs:
            if item.id not in seen:
                seen.add(item.id)
                inputs.append(item)
    return inputs, reports


def _review_report(inputs: list[Input], reports: dict[str, Any], config: AuditConfig) -> dict[str, Any]:
    """What the run records as reviewed before summarizing: the checklist counts, the sample the Audit page shows
    and the excluded originals (``review.review_report``)."""
    from bias_core.perturb.review import review_report

    return review_report(inputs, reports, seed=config.seed, excluded=config.exclude_originals,
                         excluded_entities=config.exclude_entities)


def compute_run_measures(store: RunStore, run_id: str, config: AuditConfig) -> list[MeasureResult]:
    """Compute the configured measures (all the data supports when the list is empty) and store them."""
    from bias_core.measures import MeasureOptions, compute_measures

    options = MeasureOptions(n_resamples=config.bootstrap, seed=config.seed, **config.measure_options())
    results = compute_measures(store.inputs(run_id), store.summaries(run_id), config.measures or None, options)
    store.replace_measures(run_id, results)
    return results


def open_run(store: RunStore, config: AuditConfig, documents: list[Document], *, resume: bool = True,
             run_id: str | None = None, owner: Owner | None = None) -> str:
    """Return the newest unfinished run of this exact audit (same config and corpus), or a new one; with ``run_id``,
    that run, after checking that it is this audit. With ``owner`` (the app, sign-in on), only that person's run is
    resumed, and a new run is theirs.

    The app creates the run with this before starting a worker; the worker is given the run's id.
    """
    digest = config_hash(config, documents)
    if run_id is not None:
        if store.get_run(run_id).config_hash != digest:
            raise ConfigError("--run", f"run {run_id} is a different audit (another config or corpus)",
                              hint="leave out --run to find or start the run of this config")
        return run_id
    if not resume:
        created_id = store.create_run(config.to_dict(), digest, environment(config.seed), name=config.name)
        if owner is not None:
            store.set_owner(created_id, owner)
        return created_id
    # Found or created in one transaction, so identical audits started together share one run; ``claim_run`` then
    # lets one of them work on it and turns the other away (see run_audit).
    run_id, created = store.resume_or_create_run(config.to_dict(), digest, environment(config.seed),
                                                 name=config.name, owner=owner)
    if not created:
        logger.info("resuming run %s", run_id)
    return run_id


def run_audit(
    config: AuditConfig,
    *,
    store: RunStore,
    cache: SummaryCache | None = None,
    documents: list[Document] | None = None,
    resume: bool = True,
    on_progress: ProgressCallback | None = None,
    executor: LocalExecutor | RayExecutor | None = None,
    run_id: str | None = None,
    on_estimate: Callable[[Estimate], None] | None = None,
    on_wait: Callable[[str | None], None] | None = None,
    after_measures: Callable[[RunStore, str], None] | None = None,
) -> str:
    """Run (or resume) an audit and return its run id. ``documents`` overrides loading ``config.corpus``;
    ``executor`` (default: local) runs perturbation and summarization, e.g. on Ray; ``run_id`` resumes exactly that
    run (the app's worker); ``on_progress(stage, done, total)`` hears of each finished summary and ``on_estimate``
    of the remaining-time range, the numbers also written to the run's ``reports["progress"]``, and ``on_wait`` of
what a summarizer waits on (an endpoint's rate limit; None when the wait ends), also written there ("waiting").
``after_measures(store, run_id)`` runs once the measures are stored, before the run is marked done (the command line
keeps what the result pages need first: ``views.precomputed.precompute``, a layer above this one).

    The whole config is validated, and the corpus loaded and checked against it, before a run is created: a config
    error leaves nothing in the store. Once the run exists, any exception marks it failed with a one-line message
    naming the stage (re-raised as that error, or as a ``StageError`` for an unexpected one), so no run is left
    "running" by a process that is still alive to record why it stopped.
    """
    warnings = config.validate()
    if documents is None:
        corpus = config.corpus
        documents = load_documents(
            corpus.path,
            columns=CsvColumns(text=corpus.text_column, id=corpus.id_column, value=corpus.value_column,
                               group=corpus.group_column),
            max_bytes=megabytes(corpus.max_mb),
        )
    check_corpus(config, documents)
    foreign = non_english_documents(documents)
    if foreign:
        logger.warning("%d documents do not look like English (e.g. %s); the English models will skip them",
                       len(foreign), ", ".join(foreign[:3]))
    run_id = open_run(store, config, documents, resume=resume, run_id=run_id)
    # One process works on a run at a time. Two identical audits started together (two terminals, two clicks) would
    # otherwise each call the model for every summary; the second is turned away with one line (RunBusyError)
    # rather than waiting on the first, so it never holds a terminal or a worker slot for a run it cannot help with.
    # This is the run's claim, taken in the transaction that checks the holder, and it happens before any model work.
    store.claim_run(run_id, os.getpid(), stage="perturb")
    cache = cache if cache is not None else SummaryCache()  # an empty cache is falsy (len 0)
    executor = executor or LocalExecutor()
    progress = RunProgress(store, run_id, on_progress, on_estimate, on_wait)
    stage = "store"
    try:
        progress.started()
        if warnings:
            store.set_reports(run_id, {"config_warnings": warnings})
        stage = "perturb"
        clock = time.perf_counter()
        store.add_documents(run_id, documents)
        timings: dict[str, float] = {}
        inputs, reports = build_inputs(documents, config, executor, timings)
        store.add_inputs(run_id, inputs)
        store.set_reports(run_id, {"perturbations": reports, "review": _review_report(inputs, reports, config)})
        # "perturb" is the whole stage; "parse" (spaCy + entity templates, once per original) is part of it.
        timings = {"perturb": round(time.perf_counter() - clock, 2), **timings}
        clock = time.perf_counter()
        stage = "load summarizers"
        summarizers = [get_summarizer(spec.name, **spec.params) for spec in config.summarizers]
        total = len(inputs) * len(summarizers)
        done_before = 0
        store.update_run(run_id, stage="summarize", done=0, total=total,
                         model_revisions={s.name: s.revision() for s in summarizers})
        progress.summarizing(total, summarizers, inputs, cache, config.measures, config.bootstrap)
        summarize_reports: dict[str, Any] = {}
        budget = Budget.from_config(config.budget)
        not_sent = 0
        for summarizer in summarizers:
            stage = f"summarize ({summarizer.name})"
            stored = store.summarized_ids(run_id, summarizer.name)
            todo = [item for item in inputs if item.id not in stored]
            offset = done_before + len(inputs) - len(todo)
            store.clear_failures(run_id, summarizer.name)  # tried again now; each failure is stored as it happens
            progress.summarizer_started(summarizer, todo, offset)
            # Each summary and failure is stored as soon as it is known, so an interruption loses none of them.
            report = summarize_inputs(summarizer, todo, cache=cache, on_progress=progress.summarized,
                                      on_batch=lambda batch: store.add_summaries(run_id, batch),
                                      on_failures=lambda failed: store.add_failures(
                                          run_id, [(f.input_id, f.summarizer, f.error) for f in failed]),
                                      map_batches=executor.map_batches, on_wait=progress.waiting,
                                      limit=budget if budget is not None and limited(summarizer.name) else None)
            progress.summarizer_finished()
            summarize_reports[summarizer.name] = {
                "already_stored": len(inputs) - len(todo), "cache_hits": report.cache_hits,
                "computed": report.computed, "failures": len(report.failures), "seconds": round(report.seconds, 2)}
            if report.not_sent:
                summarize_reports[summarizer.name]["not_sent"] = len(report.not_sent)
            store.set_reports(run_id, {"summarize": summarize_reports})
            done_before += len(inputs)
            not_sent += len(report.not_sent)
        if budget is not None:
            store.set_reports(run_id, {"budget": {"limit": dict(config.budget), "requests": budget.sent,
                                                  "tokens": budget.used}})
        if not_sent:  # the budget is spent: a clean stop, resumable, before any measure is computed
            mark_stopped(store, run_id, "interrupted", f"stopped: {budget.spent()}; {not_sent:,} "
                         f"{plural(not_sent, 'summary')} not yet requested — run the audit again to resume (a larger "
                         "[budget] goes further)", done=sum(store.saved_count(run_id)))
            return run_id
        timings["summarize"] = round(time.perf_counter() - clock, 2)
        clock = time.perf_counter()
        stage = "measure"
        store.update_run(run_id, stage="measure")
        progress.measuring()
        compute_run_measures(store, run_id, config)
        timings["measure"] = round(time.perf_counter() - clock, 2)
        if after_measures is not None:
            clock = time.perf_counter()
            stage = "views"
            after_measures(store, run_id)
            timings["views"] = round(time.perf_counter() - clock, 2)
        stage = "finish"
        store.set_reports(run_id, {"seconds": timings})
        progress.finished(timings)
        failures = store.failures(run_id)
        message = f"{len(failures)} summaries failed; run the audit again to retry them" if failures else None
        store.update_run(run_id, status="failed" if failures else "completed", stage="done", done=total,
                         message=message)
    except KeyboardInterrupt as interrupt:  # Ctrl-C or SIGTERM: every summary finished so far is already stored
        stopped = AuditStopped.read(store, run_id, exit_code(interrupt))
        mark_stopped(store, run_id, "interrupted", stopped.describe("run the same audit again to resume"),
                     done=stopped.done)
        raise stopped from interrupt
    except Exception as error:
        message = f"{stage}: {one_line(error)}"
        mark_stopped(store, run_id, "failed", message)
        if isinstance(error, BiasCoreError):
            raise
        raise StageError(f"run {run_id}: {message}") from error
    return run_id
