"""The estimate before an audit, its progress while it runs, and the "in progress: n of N" notice of unfinished runs.

A view over ``bias_core.runs.estimate`` and the run store: the numbers are the ones the audit worker writes to the run's
``reports["progress"]`` (and the headless ``audit`` command prints), so the page and the terminal agree.
"""

from __future__ import annotations

import time

import streamlit as st

from bias_core.common.records import Input
from bias_core.common.words import counted
from bias_core.runs.budget import limited
from bias_core.runs.config import StageSpec
from bias_core.runs.costs import (
    SPACY_SUMMARIZERS,
    load_average,
    spacy_loaded_by_perturb,
    summarizer_family,
    this_machine,
)
from bias_core.runs.estimate import Estimate, combine, estimate_before, format_duration, format_range
from bias_core.runs.progress import estimate_audit_before, estimates_before_run, throughput_history
from bias_core.runs.run_info import RunInfo
from bias_core.runs.usage import estimate_requests
from bias_core.safety.errors import BiasCoreError
from bias_core.summarize import get_summarizer
from pages.common import run_store, summarizer, summary_cache
from pages.render import md_escape

# Summarizers whose cache keys are cheap to compute on the page (building them loads no model); the others are
# counted as uncached, which only makes their estimate cautious.
CACHE_CHECKED = ("smollm2",)
# How often a result page's "in progress" notice re-reads its run.
LIVE_NOTICE_SECONDS = 3.0


def audit_estimate(summarizers: list[StageSpec], inputs: list[Input]) -> list[Estimate]:
    """Each summarizer's time for ``inputs`` before the run: cached summaries free, the rest from earlier runs of
    the same summarizer on this machine (``bias_core.runs.progress.estimates_before_run``)."""
    history = throughput_history(run_store())
    estimates = []
    spacy_loaded = spacy_loaded_by_perturb(inputs)  # the first summarizer splitting sentences loads it otherwise
    for spec in summarizers:
        loads_spacy = not spacy_loaded and summarizer_family(spec.name) in SPACY_SUMMARIZERS
        spacy_loaded = spacy_loaded or loads_spacy
        if summarizer_family(spec.name) in CACHE_CHECKED and all(
                isinstance(value, (str, int, float, bool)) for value in spec.params.values()):
            try:
                built = summarizer(spec.name, tuple(sorted(spec.params.items())))
                estimates.extend(estimates_before_run([built], inputs, history, summary_cache(),
                                                      spacy_loaded=not loads_spacy))
                continue
            except Exception:  # noqa: BLE001 - the estimate falls back to no cache check; the run reports the error
                pass
        estimates.append(estimate_before(spec.name, len(inputs), history, this_machine(), load_now=load_average(),
                                         loads_spacy=loads_spacy))
    return estimates


def show_estimate(summarizers: list[StageSpec], inputs: list[Input], measures: list[str] | None = None,
                  resamples: int = 1000) -> None:
    """The estimate box before a run: summaries to make, how many are cached, and the whole audit's time range,
    stage by stage (building the inputs, each summarizer, computing ``measures``; None: every one that applies),
    with each stage's basis."""
    estimates = audit_estimate(summarizers, inputs)
    audit = estimate_audit_before(estimates, inputs, [spec.name for spec in summarizers], measures or None,
                                  resamples, throughput_history(run_store()))
    total = len(inputs) * len(summarizers)
    uncached = sum(estimate.summaries for estimate in estimates)
    summarizing = combine(estimates)
    cached = f" ({total - uncached} already cached, free)" if total > uncached else ""
    st.info(f"Estimate: {counted(len(inputs), 'input')} × {counted(len(summarizers), 'summarizer')} = "
            f"**{counted(total, 'summary')}**{cached}; the whole audit takes **{audit.total.describe()}** on this "
            f"machine: building the inputs {audit.perturb.describe()}, making the summaries "
            f"{summarizing.describe()}, computing the measures {audit.measure.describe()}.")
    for estimate in audit.stages():
        st.caption(md_escape(f"{estimate.describe()} — {estimate.basis}"))
    for spec in summarizers:  # what each endpoint will be asked, before anything is sent (issue 31)
        if limited(spec.name):
            try:
                asked = estimate_requests(get_summarizer(spec.name, **spec.params), inputs)
            except BiasCoreError:  # a summarizer the config check refuses: the page says so where it is chosen
                continue
            if asked is not None:
                st.caption(md_escape(f"Endpoint {asked.describe()}."))


def remaining_text(info: RunInfo, now: float) -> tuple[str, str]:
    """("elapsed …, remaining …", basis) for a run from its ``reports["progress"]``, while it summarizes or measures;
    the remaining range (the stages still to come included) counts down from when the worker wrote it."""
    progress = info.reports.get("progress") or {}
    started = progress.get("started")
    running = info.status in ("running", "created") and info.worker_alive
    end = now if running else info.updated
    elapsed = f"elapsed {format_duration(end - started)}" if isinstance(started, (int, float)) else ""
    if not running or "remaining_high" not in progress or info.stage not in ("summarize", "measure"):
        return elapsed, ""
    since = max(0.0, now - float(progress.get("updated", now)))
    low = max(0.0, float(progress["remaining_low"]) - since)
    high = max(0.0, float(progress["remaining_high"]) - since)
    text = f"remaining {format_range(low, high)}" if high > 0 else "remaining: longer than estimated"
    return ", ".join(part for part in (elapsed, text) if part), str(progress.get("basis", ""))


def waiting_text(info: RunInfo) -> str:
    """"Waiting: the endpoint answered HTTP 429 …" while the running run's summarizer waits on its endpoint."""
    waiting = (info.reports.get("progress") or {}).get("waiting")
    running = info.status in ("running", "created") and info.worker_alive
    return f"Waiting: {waiting}" if running and isinstance(waiting, str) and waiting else ""


@st.fragment(run_every=1.0)
def show_progress(run_id: str) -> None:
    """The followed run, every second: n of N summaries, the stage, elapsed and remaining time, then the result."""
    info = run_store().get_run(run_id)
    seen_running = f"progress_seen_running/{run_id}"
    if info.status in ("running", "created") and info.worker_alive:
        st.session_state[seen_running] = True
    elif st.session_state.pop(seen_running, False):
        # The run ended while this page watched it: read the whole page again once, so what depends on the run
        # being over (the Run audit button, the result pages' notices) is current.
        st.rerun(scope="app")
    stage = info.stage or info.status
    counts = f"{info.progress_done} of {info.progress_total} summaries · " if info.progress_total else ""
    st.progress(info.progress, text=md_escape(f"{info.name or run_id}: {counts}{stage}"))
    times, basis = remaining_text(info, time.time())
    if times:
        st.caption(md_escape(times + (f" ({basis})" if basis else "")))
    waiting = waiting_text(info)
    if waiting:
        st.warning(md_escape(waiting), icon=":material/hourglass_top:")
    if info.status == "completed":
        st.success("Done. Inspect the results:")
        columns = st.columns(4)
        columns[0].page_link("pages/overview.py", label="Overview", icon=":material/summarize:")
        columns[1].page_link("pages/compare.py", label="Compare", icon=":material/compare:")
        columns[2].page_link("pages/fightin_words.py", label="Fightin' Words", icon=":material/sports_mma:")
        columns[3].page_link("pages/metrics.py", label="Metrics", icon=":material/bar_chart:")
    elif info.status == "failed":
        st.error(md_escape(info.message or "The run failed."))
    elif info.resumable:  # killed, or stopped by Ctrl-C / SIGTERM (its message says what was saved)
        st.warning(md_escape(info.message) if info.message else
                   "The worker process stopped; resume the run on the Runs page.")


def in_progress_notice(info: RunInfo) -> None:
    """On result pages: a notice that the run is unfinished (in progress, stopped or failed) with n of N summaries,
    so partial results are not read as final; nothing for a completed run. While the run goes on, the notice follows
    it every few seconds and reruns the page once the run ends, so an open tab never keeps a stale "in progress"."""
    if info.status == "completed":
        return
    if info.shown_status in ("running", "created"):
        _live_notice(info.id)
    else:
        _notice(info)


def _notice(info: RunInfo) -> None:
    status = info.shown_status
    counts = f"{info.progress_done} of {info.progress_total} summaries"
    if status in ("running", "created"):
        st.info(md_escape(f"In progress: {counts} ({info.stage or status}). What is shown covers the summaries "
                          "and measures stored so far and changes as the run goes on."), icon=":material/pending:")
    else:
        st.warning(md_escape(f"Unfinished run ({status}): {counts}. What is shown is partial; resume the run on the "
                             "Runs page."), icon=":material/warning:")


@st.fragment(run_every=LIVE_NOTICE_SECONDS)
def _live_notice(run_id: str) -> None:
    info = run_store().get_run(run_id)
    if info.shown_status not in ("running", "created"):
        # The run ended (completed, failed or its worker stopped): the whole page is read again, with the final
        # results or the unfinished-run warning.
        st.rerun(scope="app")
    _notice(info)
