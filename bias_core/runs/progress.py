"""Progress and time estimates of a run: ``RunProgress`` is fed the pipeline's events (stage started, summaries saved,
stage finished) and alone writes the progress, the remaining time and the throughput records to the store.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from bias_core.common.records import Input
from bias_core.common.words import plural
from bias_core.runs.costs import (
    SPACY_SUMMARIZERS,
    audit_work,
    load_average,
    modelled_seconds,
    spacy_loaded_by_perturb,
    summarizer_family,
    this_machine,
)
from bias_core.runs.estimate import (
    AuditEstimate,
    Estimate,
    ThroughputRecord,
    combine,
    estimate_audit,
    estimate_before,
    estimate_stage,
    stage_record,
)
from bias_core.runs.meter import ThroughputMeter
from bias_core.runs.store import RunStore
from bias_core.summarize import Summarizer, SummaryCache
from bias_core.summarize.runner import count_cached

ProgressCallback = Callable[[str, int, int], None]
# Progress and the remaining-time estimate are written to the store at most this often (and always the last).
PROGRESS_WRITE_SECONDS = 0.5


def summarizer_engine(summarizer: Summarizer) -> str | None:
    """The engine a summarizer runs on, where it has a choice (smollm2: ctranslate2 or transformers)."""
    return getattr(summarizer, "engine", None)


def estimates_before_run(summarizers: list[Summarizer], inputs: list[Input], history: list[ThroughputRecord],
                         cache: SummaryCache | None, spacy_loaded: bool | None = None) -> list[Estimate]:
    """Each summarizer's estimate for ``inputs`` before anything runs: cached summaries are free, the rest is timed
    from earlier runs on this machine, also scaled to the load now (``estimate.estimate_before``); the first one
    that splits sentences with spaCy loads it, unless the perturb stage parsed (or ``spacy_loaded`` says so)."""
    machine = this_machine()
    load_now = load_average()
    estimates = []
    spacy_loaded = spacy_loaded_by_perturb(inputs) if spacy_loaded is None else spacy_loaded
    for summarizer in summarizers:
        cached = count_cached(summarizer, inputs, cache) if cache is not None and inputs else 0
        loads_spacy = not spacy_loaded and summarizer_family(summarizer.name) in SPACY_SUMMARIZERS
        spacy_loaded = spacy_loaded or loads_spacy
        estimates.append(estimate_before(summarizer.name, len(inputs) - cached, history, machine,
                                         summarizer.revision(), cached, load_now, loads_spacy))
    return estimates


def estimate_audit_before(summarize: list[Estimate], inputs: list[Input], summarizers: Sequence[str],
                          measures: Sequence[str] | None, resamples: int,
                          history: list[ThroughputRecord]) -> AuditEstimate:
    """The whole audit before it runs, stage by stage: perturb and measure from the cost model and this machine's
    earlier runs (``estimate.estimate_audit``), with ``summarize`` (``estimates_before_run``, one per summarizer)."""
    work = audit_work(inputs, summarizers, measures or None, resamples)
    return estimate_audit(work, summarize, history, this_machine(), load_average())


def throughput_history(store: RunStore) -> list[ThroughputRecord]:
    """The throughput records of every run in the store (see ``estimate.ThroughputRecord``)."""
    records = []
    for data in store.throughput_history():
        try:
            records.append(ThroughputRecord.from_dict(data))
        except (TypeError, ValueError):
            continue  # written by another version: an estimate can do without it
    return records


def unsaved_note(made: int, saved: int) -> str:
    """Words for summaries made but not yet stored (an engine reporting a whole batch is heard before the batch is
    saved), so the rate "from 256 summaries so far" does not contradict "0 of 900 summaries": "256 more summaries
    made, saved when their batch ends; "; "" when every summary made is saved."""
    unsaved = made - saved
    if unsaved <= 0:
        return ""
    return f"{unsaved:,} more {plural(unsaved, 'summary')} made, saved when their batch ends; "


class SummarizeProgress:
    """Follows the summarize stage summary by summary: the done counter, this run's throughput and the remaining
    time (this summarizer from its rate so far, later ones from earlier runs), written to the store at most every
    ``PROGRESS_WRITE_SECONDS`` and always at the end of each summarizer, and kept as throughput records for later
    runs."""

    def __init__(self, store: RunStore, run_id: str, total: int, summarizers: list[Summarizer], inputs: list[Input],
                 cache: SummaryCache | None, on_progress: ProgressCallback | None,
                 on_estimate: Callable[[Estimate], None] | None, measures: Sequence[str] | None = None,
                 resamples: int = 0):
        self.store, self.run_id, self.total = store, run_id, total
        self.on_progress, self.on_estimate = on_progress, on_estimate
        self.machine = this_machine()
        self.history = throughput_history(store)
        self.inputs = inputs
        self.summarizers = summarizers
        self.mean_chars = sum(len(item.text) for item in inputs) / len(inputs) if inputs else 0.0
        self.load_at_start = load_average()  # before this run's model work adds to it
        # Whether spaCy is loaded when each summarizer starts: by the perturb stage's parse, or by an earlier one.
        self.spacy_loaded = spacy_loaded_by_perturb(inputs)
        self.loads_spacy: dict[str, bool] = {}
        loaded = self.spacy_loaded
        for s in summarizers:
            self.loads_spacy[s.name] = not loaded and summarizer_family(s.name) in SPACY_SUMMARIZERS
            loaded = loaded or self.loads_spacy[s.name]
        self.later = {s.name: self._later_estimate(s, cache) for s in summarizers}
        self.started = float((store.get_run(run_id).reports.get("progress") or {}).get("started") or time.time())
        self.records: dict[str, Any] = dict(store.get_run(run_id).reports.get("throughput") or {})
        self.meter: ThroughputMeter | None = None
        self.summarizer: Summarizer | None = None
        self.offset = 0
        self.last_write = -float("inf")
        self.waiting: str | None = None  # what the summarizer waits on now (an endpoint's rate limit)
        # The modelled seconds of the perturb and measure stages (``costs.modelled_seconds``), kept for ``finished``;
        # the measure stage's estimate is added to every remaining time from now on (the stage still to come).
        self.modelled = modelled_seconds(audit_work(inputs, [s.name for s in summarizers], measures or None,
                                                    resamples))
        self.after = estimate_stage("measure", self.modelled["measure"], self.history, self.machine,
                                    self.load_at_start)

    def _later_estimate(self, summarizer: Summarizer, cache: SummaryCache | None) -> Estimate:
        stored = self.store.summarized_ids(self.run_id, summarizer.name)
        todo = [item for item in self.inputs if item.id not in stored]
        # Checking the cache needs a key per input; for the (fast) extractive ones the guess is cheaper.
        check = cache is not None and summarizer_family(summarizer.name) != "extractive"
        return estimates_before_run([summarizer], todo, self.history, cache if check else None,
                                    spacy_loaded=not self.loads_spacy[summarizer.name])[0]

    def begin(self, summarizer: Summarizer, todo: list[Input], offset: int) -> None:
        """``summarizer`` starts on ``todo`` (its inputs not yet stored); ``offset`` summaries are done before."""
        self.summarizer, self.offset = summarizer, offset
        self.meter = ThroughputMeter(summarizer.name, len(todo))
        self.meter.prior = self.later.pop(summarizer.name, None)

    def progress(self, done: int, _total: int) -> None:
        """``summarize_inputs``'s callback: the first call follows the cache lookup, later ones finished inputs."""
        assert self.meter is not None
        now = time.monotonic()
        if self.meter.started is None:
            self.meter.start(now, done)
        else:
            self.meter.finished(done - self.meter.done, now)
        if self.on_progress:
            self.on_progress("summarize", self.offset + done, self.total)
        if now - self.last_write >= PROGRESS_WRITE_SECONDS or done >= self.meter.total:
            self._write(now)

    def wait(self, text: str | None) -> None:
        """The summarizer waits on ``text`` (None: no longer): written to the progress at once, so the page shows a
        wait while no summary arrives."""
        self.waiting = text
        if self.meter is not None and self.meter.started is not None:
            self._write(time.monotonic())

    def remaining(self, now: float) -> Estimate:
        """What is left: this summarizer from this run's rate (or history before its first summary), plus the
        summarizers still to come."""
        assert self.meter is not None and self.summarizer is not None
        fallback = estimate_before(self.summarizer.name, self.meter.remaining(), self.history, self.machine,
                                   self.summarizer.revision(), load_now=self.load_at_start,
                                   loads_spacy=self.loads_spacy.get(self.summarizer.name))
        return combine([self.meter.estimate(now, fallback), *self.later.values(), self.after])

    def _write(self, now: float) -> None:
        assert self.meter is not None and self.summarizer is not None
        self.last_write = now
        estimate = self.remaining(now)
        # The done count written is the stored rows (summaries and failures), never the work finished but not yet
        # stored (a summary inside a batch that is still running), so after a kill it matches what was kept.
        done = min(sum(self.store.saved_count(self.run_id)), self.total)
        progress = {"started": self.started, "updated": time.time(), "stage": f"summarize ({self.summarizer.name})",
                    "summarizer": self.summarizer.name, "done": done, "total": self.total,
                    "remaining_low": round(estimate.low, 1), "remaining_high": round(estimate.high, 1),
                    "basis": unsaved_note(self.offset + self.meter.done, done) + estimate.basis,
                    "computed": len(self.meter.completions)}
        if self.waiting:
            progress["waiting"] = self.waiting
        self.store.set_progress(self.run_id, done, progress)
        if self.on_estimate:
            self.on_estimate(estimate)

    def measuring(self) -> None:
        """The measure stage begins: its estimate is what remains (the page counts it down)."""
        progress = {"started": self.started, "updated": time.time(), "stage": "measure", "done": self.total,
                    "total": self.total, "remaining_low": round(self.after.low, 1),
                    "remaining_high": round(self.after.high, 1), "basis": self.after.basis}
        self.store.set_progress(self.run_id, self.total, progress)
        if self.on_estimate:
            self.on_estimate(self.after)

    def finished(self, timings: dict[str, float]) -> None:
        """The run is done: nothing remains, and the perturb and measure stages' actual time against their modelled
        time is kept for later estimates (``estimate.stage_record``)."""
        progress = {"started": self.started, "updated": time.time(), "stage": "done", "done": self.total,
                    "total": self.total, "remaining_low": 0.0, "remaining_high": 0.0, "basis": ""}
        self.store.set_progress(self.run_id, self.total, progress)
        load = load_average()
        for stage in ("perturb", "measure"):
            record = stage_record(stage, self.modelled[stage], timings[stage], self.machine, load, self.run_id,
                                  time.time())
            if record is not None:
                self.records[record.summarizer] = record.to_dict()
        self.store.set_reports(self.run_id, {"throughput": self.records})

    def end(self) -> None:
        """The summarizer is finished: write the final progress and keep its throughput for later estimates."""
        assert self.meter is not None and self.summarizer is not None
        now = time.monotonic()
        if self.meter.started is None:  # nothing to summarize: summarize_inputs was never called back
            self.meter.start(now, self.meter.total)
        self._write(now)
        record = self.meter.record(now, self.machine, self.summarizer.revision(), summarizer_engine(self.summarizer),
                                   self.mean_chars, load_average(), self.run_id, time.time(),
                                   self.loads_spacy.get(self.summarizer.name))
        if record is not None:
            self.records[self.summarizer.name] = record.to_dict()
            self.store.set_reports(self.run_id, {"throughput": self.records})


class RunProgress:
    """One run's progress, fed by the pipeline's events in order: ``started``, ``summarizing``, then per summarizer
    ``summarizer_started``, ``summarized`` (``summarize_inputs``'s callback) and ``summarizer_finished``, then
    ``measuring`` and ``finished``. It writes the progress and the remaining time to the run's
    ``reports["progress"]`` and the throughput records to ``reports["throughput"]``, and tells ``on_progress`` and
    ``on_estimate``; the pipeline never writes them itself."""

    def __init__(self, store: RunStore, run_id: str, on_progress: ProgressCallback | None = None,
                 on_estimate: Callable[[Estimate], None] | None = None,
                 on_wait: Callable[[str | None], None] | None = None):
        self.store, self.run_id = store, run_id
        self.on_progress, self.on_estimate, self.on_wait = on_progress, on_estimate, on_wait
        self.summarize: SummarizeProgress | None = None

    def started(self) -> None:
        """The run starts (or resumes) now: its start time is what the page counts from."""
        self.store.set_reports(self.run_id, {"progress": {"started": time.time()}})

    def summarizing(self, total: int, summarizers: list[Summarizer], inputs: list[Input], cache: SummaryCache | None,
                    measures: Sequence[str] | None, resamples: int) -> None:
        """The summarize stage begins: ``total`` summaries of ``inputs`` by ``summarizers``, then the measure stage
        (``measures``, ``resamples``), whose estimate is added to every remaining time from now on."""
        self.summarize = SummarizeProgress(self.store, self.run_id, total, summarizers, inputs, cache,
                                           self.on_progress, self.on_estimate, measures, resamples)

    def summarizer_started(self, summarizer: Summarizer, todo: list[Input], offset: int) -> None:
        """``summarizer`` starts on ``todo`` (its inputs not yet stored); ``offset`` summaries are done before."""
        assert self.summarize is not None
        self.summarize.begin(summarizer, todo, offset)

    def summarized(self, done: int, total: int) -> None:
        """``summarize_inputs``'s callback: ``done`` of the summarizer's ``total`` inputs are finished."""
        assert self.summarize is not None
        self.summarize.progress(done, total)

    def waiting(self, text: str | None) -> None:
        """``summarize_inputs``'s ``on_wait``: what the summarizer waits on now (None: nothing), shown with the
        progress and told to ``on_wait``."""
        assert self.summarize is not None
        self.summarize.wait(text)
        if self.on_wait:
            self.on_wait(text)

    def summarizer_finished(self) -> None:
        """The summarizer is finished: its final progress and its throughput are written."""
        assert self.summarize is not None
        self.summarize.end()

    def measuring(self) -> None:
        """The measure stage begins."""
        assert self.summarize is not None
        self.summarize.measuring()

    def finished(self, timings: dict[str, float]) -> None:
        """The run is done; ``timings`` holds each stage's actual seconds."""
        assert self.summarize is not None
        self.summarize.finished(timings)
