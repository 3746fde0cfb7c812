"""How long an audit will take, stage by stage, as a range with its basis, from costs measured on this machine.

An audit has three stages: perturb (spaCy parses each original once, for the name-swapping kinds), summarize (each
summarizer, its model load included) and measure (each family of measures that applies, over the summaries it
reads). Summarizing: the first-summary time (model load) and seconds per summary measured in earlier runs of the same
summarizer on this machine give the range (a default guess only when there are none); once this run has computed
summaries, its own rate takes over, blended with the earlier runs' until enough are measured, so the remaining time
does not swing (``meter``). Perturb and measure: a cost model (``costs``: ``PERTURB_COSTS``, ``MEASURE_COSTS``,
``MODEL_LOADS``; measured on this machine) gives modelled seconds for the audit's work (``audit_work``), scaled by
the ratio of actual to modelled time of earlier runs' same stage on this machine (``stage_record``) where there are
any. Cached summaries cost nothing. Everything here is pure: times are passed in, nothing is read or written.

This module holds the throughput records, the estimates made from them (before a run, per stage, for the whole
audit) and their formatting; the cost model and machine facts are in ``costs``, this run's own rate in ``meter``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from bias_core.runs.costs import (
    DEFAULT_LOAD_SECONDS,
    DEFAULT_SECONDS,
    MODEL_LOADS,
    SPACY_LOAD_RANGE,
    AuditWork,
    Machine,
    modelled_seconds,
    summarizer_family,
)

# A past rate was measured under another load: widen the range of past rates by this factor each way.
HISTORY_MARGIN = 1.25
# The newest earlier runs that count (older ones are more likely to have run other code under other load).
MAX_HISTORY = 10


@dataclass(frozen=True)
class ThroughputRecord:
    """Seconds per computed (uncached) summary of one summarizer in one run, and where and on what it was measured.

    ``seconds_per_summary`` is the wall time from the first model call (model loading included) to the last summary,
    divided by the summaries computed: what an analyst waits, not the model's time per input.
    """

    summarizer: str
    seconds_per_summary: float
    summaries: int
    hostname: str
    cores: int
    revision: str = "none"
    engine: str | None = None
    mean_input_chars: float = 0.0
    load_average: float | None = None
    run_id: str | None = None
    recorded: float = 0.0
    # Seconds to the first computed summary (the model load included); None in records of older versions.
    first_seconds: float | None = None
    # Whether that first summary also loaded spaCy (no earlier stage of its run had); None in older records.
    loaded_spacy: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def seconds_for(self, count: int, loads_spacy: bool | None = None) -> float:
        """What ``count`` summaries took at this record's pace: the first (with the model load) plus the others at
        the steady rate; records without a first-summary time spread the load evenly, as they were measured. Where
        this run's first summary loads spaCy (``loads_spacy``) and the record's did not, spaCy's load is added (its
        middle guess); where the record's did and this run's does not, its first summary counts at the steady
        rate (the load cannot be told apart from the model's own there)."""
        if self.first_seconds is None or self.summaries < 2 or count < 1:
            return count * self.seconds_per_summary
        steady = self.steady_seconds()
        first = self.first_seconds
        if loads_spacy is not None and self.loaded_spacy is not None and loads_spacy != self.loaded_spacy:
            first = first + MODEL_LOADS["spacy"] if loads_spacy else steady
        return first + (count - 1) * steady

    def steady_seconds(self) -> float:
        """Seconds per summary after the first (the whole run's rate where the first was not kept apart)."""
        if self.first_seconds is None or self.summaries < 2:
            return self.seconds_per_summary
        return max(0.0, self.seconds_per_summary * self.summaries - self.first_seconds) / (self.summaries - 1)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ThroughputRecord:
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        return cls(**known)


@dataclass(frozen=True)
class Estimate:
    """A time range in seconds, the number of summaries it covers, and one line saying what it is based on."""

    low: float
    high: float
    basis: str
    summaries: int = 0
    stage: str = "summarize"

    def describe(self) -> str:
        """E.g. "3–6 min"; "nothing left" for nothing to compute."""
        return format_range(self.low, self.high)


def format_duration(seconds: float) -> str:
    """A duration rounded for display: "under 1 s", "40 s", "7 min", "1 h 20 min"."""
    seconds = max(0.0, seconds)
    if seconds < 0.5:
        return "under 1 s"
    if seconds < 60:
        return f"{max(1, round(seconds))} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h" + (f" {minutes} min" if minutes else "")


def format_range(low: float, high: float) -> str:
    """A range of durations, e.g. "3–6 min", "40 s – 2 min"; one value when both round alike."""
    if high <= 0:
        return "nothing left"
    low_text, high_text = format_duration(low), format_duration(high)
    if low_text == high_text:
        return high_text if high_text == "under 1 s" else f"about {high_text}"
    if low_text == "under 1 s":
        return f"{high_text} at most"
    low_value, low_unit = low_text.rsplit(" ", 1) if " h" not in low_text else (low_text, "")
    high_value, high_unit = high_text.rsplit(" ", 1) if " h" not in high_text else (high_text, "")
    if low_unit and low_unit == high_unit:
        return f"{low_value}–{high_value} {high_unit}"
    return f"{low_text} – {high_text}"


def matching_history(records: Sequence[ThroughputRecord], summarizer: str, machine: Machine,
                     revision: str | None = None) -> list[ThroughputRecord]:
    """Earlier rates of ``summarizer`` on ``machine``, newest first, at most ``MAX_HISTORY``; those of ``revision``
    only, when there are any (another engine or compute type runs at another speed)."""
    same = [record for record in records if record.summarizer == summarizer and record.hostname == machine.hostname
            and record.cores == machine.cores and record.summaries > 0 and record.seconds_per_summary > 0]
    if revision is not None and any(record.revision == revision for record in same):
        same = [record for record in same if record.revision == revision]
    return sorted(same, key=lambda record: record.recorded, reverse=True)[:MAX_HISTORY]


def load_factor(recorded_load: float | None, load_now: float | None, cores: int) -> float:
    """How much slower a rate measured at ``recorded_load`` (1-minute load average, our own work included) should be
    now, at ``load_now`` (before our work starts), if the CPU is shared evenly among runnable processes: our work
    takes about ``cores`` of the load, so its share goes from cores / max(cores, recorded) to cores / (cores + now).
    1 when either load is unknown; clamped to 1/4..4, since a load average is a noisy one-minute reading."""
    if recorded_load is None or load_now is None or cores < 1:
        return 1.0
    factor = (cores + load_now) / max(cores, recorded_load)
    return min(4.0, max(0.25, factor))


def estimate_before(summarizer: str, uncached: int, history: Sequence[ThroughputRecord], machine: Machine,
                    revision: str | None = None, cached: int = 0, load_now: float | None = None,
                    loads_spacy: bool | None = None) -> Estimate:
    """The time ``uncached`` summaries of ``summarizer`` will take, before any is computed in this run.

    The range spans the earlier runs' rates on this machine, both as measured and scaled from the load they ran
    under to ``load_now`` (``load_factor``), widened by ``HISTORY_MARGIN``; without any, the family's default guess
    with its model load (and spaCy's where ``loads_spacy``: no earlier stage of the audit loaded it), said so.
    """
    cached_note = f"; {cached} cached" if cached else ""
    if uncached <= 0:
        return Estimate(0.0, 0.0, f"{summarizer}: nothing to compute{cached_note}", 0)
    matches = matching_history(history, summarizer, machine, revision)
    if matches:
        measured = [record.steady_seconds() for record in matches]
        factors = [load_factor(record.load_average, load_now, machine.cores) for record in matches]
        scaled = [rate * factor for rate, factor in zip(measured, factors)]
        times = [record.seconds_for(uncached, loads_spacy) * scale for record, factor in zip(matches, factors)
                 for scale in (1.0, factor)]
        runs = f"{len(matches)} earlier run{'s' if len(matches) > 1 else ''}"
        load_note = (f", {format_rate(min(scaled), max(scaled))} at today's load {load_now:.1f}"
                     if scaled != measured and load_now is not None else "")
        firsts = [record.first_seconds for record in matches if record.first_seconds is not None]
        first_note = f", first summary {format_range(min(firsts), max(firsts))}" if firsts else ""
        return Estimate(min(times) / HISTORY_MARGIN, max(times) * HISTORY_MARGIN,
                        f"{summarizer}: from {runs} on this machine ({format_rate(min(measured), max(measured))}"
                        f"{first_note}{load_note}){cached_note}", uncached)
    family = summarizer_family(summarizer)
    low, high = DEFAULT_SECONDS[family]
    load_low, load_high = DEFAULT_LOAD_SECONDS[family]
    if loads_spacy:
        load_low, load_high = load_low + SPACY_LOAD_RANGE[0], load_high + SPACY_LOAD_RANGE[1]
    load_note = f" + {format_range(load_low, load_high)} loading" if load_high > 0 else ""
    return Estimate(load_low + uncached * low, load_high + uncached * high,
                    f"{summarizer}: no measurement on this machine yet, default guess "
                    f"({format_rate(low, high)}{load_note}){cached_note}", uncached)


def format_rate(low: float, high: float) -> str:
    """Seconds per summary, e.g. "2.1–3.4 s per summary"."""
    def one(value: float) -> str:
        return f"{value:.2g}" if value < 1 else f"{value:.1f}"

    return (f"{one(low)} s per summary" if one(low) == one(high) else f"{one(low)}–{one(high)} s per summary")


def combine(estimates: Sequence[Estimate]) -> Estimate:
    """The sum of several estimates (summarizers, stages); the basis lists each one's that has work to do."""
    working = [estimate for estimate in estimates
               if estimate.summaries > 0 or (estimate.stage != "summarize" and estimate.high > 0)]
    working = working or list(estimates[:1])
    return Estimate(sum(e.low for e in estimates), sum(e.high for e in estimates),
                    "; ".join(e.basis for e in working), sum(e.summaries for e in estimates))


# Without earlier runs of a stage on this machine, its range is the modelled time times these factors: the costs
# above were measured under a load average of 6–8 on 2 cores; on the same machine idle, the review and news measure
# stages took 0.4× and 0.2× of their modelled time (benchmarks/estimate_accuracy.py), under load up to 1.3×.
DEFAULT_STAGE_RANGE = (0.25, 2.0)
# A stage's time in earlier runs, as a ratio to its modelled time, is widened by this factor each way.
STAGE_MARGIN = 1.25
# Stages modelled shorter than this many seconds keep no calibration record (``stage_record``).
MIN_MODELLED = 1.0
# The prefix of a stage's calibration record among the summarizers' throughput records (``stage_record``).
STAGE_PREFIX = "stage:"


def stage_record(stage: str, modelled: float, actual: float, machine: Machine, load_average: float | None,
                 run_id: str | None, recorded: float) -> ThroughputRecord | None:
    """A stage's actual time as a ratio to its modelled time, kept with the summarizers' throughput records (named
    ``stage:<stage>``) for later estimates of that stage; None where the model expected under ``MIN_MODELLED``
    seconds (there, start-up noise decides the ratio, e.g. a sentiment split that parses nothing)."""
    if modelled < MIN_MODELLED:
        return None
    return ThroughputRecord(f"{STAGE_PREFIX}{stage}", round(actual / modelled, 4), 1, machine.hostname, machine.cores,
                            load_average=load_average, run_id=run_id, recorded=recorded)


def estimate_stage(stage: str, modelled: float, history: Sequence[ThroughputRecord], machine: Machine,
                   load_now: float | None = None) -> Estimate:
    """The time of ``stage`` (perturb or measure) for ``modelled`` seconds of modelled work: the ratios of actual to
    modelled time of this stage in earlier runs on this machine (also scaled to the load now, ``load_factor``),
    widened by ``STAGE_MARGIN``; without any, ``DEFAULT_STAGE_RANGE`` around the model, said so."""
    if modelled <= 0:
        return Estimate(0.0, 0.0, f"{stage}: nothing to compute", 0, stage)
    matches = matching_history(history, f"{STAGE_PREFIX}{stage}", machine)
    if matches:
        ratios = [record.seconds_per_summary * scale for record in matches
                  for scale in (1.0, load_factor(record.load_average, load_now, machine.cores))]
        runs = f"{len(matches)} earlier run{'s' if len(matches) > 1 else ''}"
        return Estimate(modelled * min(ratios) / STAGE_MARGIN, modelled * max(ratios) * STAGE_MARGIN,
                        f"{stage}: modelled {model_seconds(modelled)}, scaled by {runs} on this machine "
                        f"({min(ratios):.2g}–{max(ratios):.2g}× the model)", 0, stage)
    low, high = DEFAULT_STAGE_RANGE
    return Estimate(modelled * low, modelled * high,
                    f"{stage}: modelled {model_seconds(modelled)} from costs measured on this machine "
                    "(no earlier run of this stage here yet)", 0, stage)


def model_seconds(value: float) -> str:
    """Modelled seconds for a basis line: two significant digits under a minute ("0.03 s", "4.2 s")."""
    return f"{value:.2g} s" if value < 60 else format_duration(value)


@dataclass(frozen=True)
class AuditEstimate:
    """An audit's estimate stage by stage: perturb, each summarizer, measure; ``total`` adds them."""

    perturb: Estimate
    summarize: tuple[Estimate, ...]
    measure: Estimate

    @property
    def total(self) -> Estimate:
        return combine([self.perturb, *self.summarize, self.measure])

    def stages(self) -> list[Estimate]:
        return [self.perturb, *self.summarize, self.measure]


def estimate_audit(work: AuditWork, summarize: Sequence[Estimate], history: Sequence[ThroughputRecord],
                   machine: Machine, load_now: float | None = None) -> AuditEstimate:
    """The whole audit: ``summarize`` (each summarizer's ``estimate_before``) with the perturb and measure stages
    from the cost model and this machine's earlier runs (``estimate_stage``)."""
    modelled = modelled_seconds(work)
    return AuditEstimate(estimate_stage("perturb", modelled["perturb"], history, machine, load_now),
                         tuple(summarize),
                         estimate_stage("measure", modelled["measure"], history, machine, load_now))
