"""How long an audit will take, stage by stage, as a range with its basis, from costs measured on this machine.

An audit has three stages: perturb (spaCy parses each original once, for the name-swapping kinds), summarize (each
summarizer, its model load included) and measure (each family of measures that applies, over the summaries it
reads). Summarizing: the first-summary time (model load) and seconds per summary measured in earlier runs of the same
summarizer on this machine give the range (a default guess only when there are none); once this run has computed
summaries, its own rate takes over, blended with the earlier runs' until enough are measured, so the remaining time
does not swing. Perturb and measure: a cost model (``PERTURB_COSTS``, ``MEASURE_COSTS``, ``MODEL_LOADS``; measured on
this machine) gives modelled seconds for the audit's work (``audit_work``), scaled by the ratio of actual to modelled
time of earlier runs' same stage on this machine (``stage_record``) where there are any. Cached summaries cost
nothing. Everything here is pure: times are passed in, nothing is read or written.
"""

from __future__ import annotations

import math
import os
import socket
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

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
# A past rate was measured under another load: widen the range of past rates by this factor each way.
HISTORY_MARGIN = 1.25
# The newest earlier runs that count (older ones are more likely to have run other code under other load).
MAX_HISTORY = 10
# This run's rate is measured in up to this many consecutive blocks of summaries; their spread is the range.
RATE_BLOCKS = 5
# Fewest summaries per block: parallel replicas finish inputs in twos or more, so smaller blocks measure nothing.
MIN_BLOCK = 4
# During a run, the estimate before it counts as much as this many of the run's own summaries (``estimate_during``).
PRIOR_WEIGHT = 8
# Completions less than this many seconds apart finished together (one batch, parallel replicas).
CLUSTER_SECONDS = 0.5


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


def summarizer_family(name: str) -> str:
    """The default-guess family of a summarizer name: smollm2, hf, openai, or extractive (everything else)."""
    prefix = name.split(":", 1)[0]
    return prefix if prefix in ("smollm2", "hf", "openai") else "extractive"


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


def cluster_ends(completions: Sequence[float]) -> list[tuple[float, int]]:
    """(time, summaries done) at the end of each group of completions less than ``CLUSTER_SECONDS`` apart: a batch or
    parallel replicas finish inputs together, and the rate of saved work is only measured between such groups."""
    ends: list[tuple[float, int]] = []
    for count, moment in enumerate(completions, start=1):
        if ends and moment - completions[count - 2] < CLUSTER_SECONDS:
            ends[-1] = (moment, count)
        else:
            ends.append((moment, count))
    return ends


def finished_groups(completions: Sequence[float]) -> list[tuple[float, int]]:
    """``cluster_ends`` less the last group while it is smaller than an earlier one: a batch still finishing."""
    ends = cluster_ends(completions)
    sizes = [count - before for (_, before), (_, count) in zip([(0.0, 0), *ends], ends)]
    if len(ends) > 1 and sizes[-1] < max(sizes[:-1]):
        return ends[:-1]
    return ends


def block_rates(completions: Sequence[float]) -> list[float]:
    """Seconds per summary in up to ``RATE_BLOCKS`` consecutive blocks of at least ``MIN_BLOCK`` summaries after the
    first group (completion times in seconds since the model work started, one per computed summary, ascending).

    Blocks run between the ends of finished groups of completions (``finished_groups``), so they cover the steady
    state only and inputs that finish together (a batch, parallel replicas) never give a rate near zero or, half
    finished, a rate too high.
    """
    ends = finished_groups(completions)
    if len(ends) < 2:
        return []
    steady = ends[-1][1] - ends[0][1]
    blocks = min(RATE_BLOCKS, steady // MIN_BLOCK)
    if blocks == 0:
        return []
    size = steady / blocks
    bounds, start = [ends[0]], ends[0][1]
    for end in ends[1:]:
        if end[1] - start >= size:
            bounds.append(end)
            start = end[1]
    if bounds[-1] is not ends[-1]:
        if ends[-1][1] - bounds[-1][1] < MIN_BLOCK and len(bounds) > 1:
            bounds.pop()  # a short last block joins the one before it
        bounds.append(ends[-1])
    return [max(0.0, end[0] - begin[0]) / (end[1] - begin[1]) for begin, end in zip(bounds, bounds[1:])]


def steady_rate(completions: Sequence[float], elapsed: float) -> float | None:
    """Seconds per summary of saved work now that the model works: from the end of the first group of completions
    to the end of the last finished group, over the summaries between (the time to the first group also holds
    loading the model, which is not repeated). A stall (nothing finished for twice the usual time between groups)
    counts the time up to now. None before a second group has finished: nothing measures the steady rate yet."""
    ends = finished_groups(completions)
    if len(ends) < 2:
        return None
    (first, first_count), (last, last_count) = ends[0], ends[-1]
    rate = (last - first) / (last_count - first_count)
    now = max(elapsed, completions[-1])
    if now - last > 2 * (last - first) / (len(ends) - 1):
        rate = max(rate, (now - first) / (len(completions) - first_count))
    return rate


def estimate_during(summarizer: str, completions: Sequence[float], elapsed: float, remaining: int,
                    prior: Estimate | None = None) -> Estimate:
    """The time the ``remaining`` summaries of ``summarizer`` will take, from this run's completion times so far.

    ``elapsed`` is the time since the model work started, now (at least the last completion). The run's own range
    spans the rate of saved work (``steady_rate``) and each block's rate, widened by 1 + 1/√n for the n summaries
    that measured it. With a ``prior`` (the estimate before the run for this summarizer's summaries), its
    per-summary range is blended in with weight ``PRIOR_WEIGHT`` / (n + ``PRIOR_WEIGHT``), and it alone decides
    until a second group of summaries has finished: the first batch and the model load do not swing the remaining
    time, and after many summaries the run's own rate decides. Without a prior and before a steady rate, all the
    time so far over all summaries (the cautious rate, model load included).
    """
    computed = len(completions)
    if computed == 0:
        raise ValueError("estimate_during needs at least one computed summary")
    usable_prior = prior is not None and prior.summaries > 0 and prior.high > 0
    steady = steady_rate(completions, elapsed)
    measured = computed - cluster_ends(completions)[0][1]
    plural = "y" if computed == 1 else "ies"
    if steady is None:
        if usable_prior:
            assert prior is not None
            return Estimate(remaining * prior.low / prior.summaries, remaining * prior.high / prior.summaries,
                            f"{summarizer}: from {computed} summar{plural} so far in this run, no steady rate yet: "
                            f"the estimate before the run ({prior.basis.removeprefix(summarizer + ': ')})", remaining)
        rate = max(elapsed, completions[-1]) / computed
        margin = 1 + 1 / math.sqrt(computed)
        return Estimate(remaining * rate / margin, remaining * rate * margin,
                        f"{summarizer}: from {computed} summar{plural} so far in this run ({format_rate(rate, rate)}, "
                        "model load included)", remaining)
    rates = [steady, *block_rates(completions)]
    margin = 1 + 1 / math.sqrt(measured)
    low_rate, high_rate = min(rates) / margin, max(rates) * margin
    basis = f"{summarizer}: from {computed} summar{plural} so far in this run ({format_rate(min(rates), max(rates))})"
    if usable_prior:
        assert prior is not None
        weight = measured / (measured + PRIOR_WEIGHT)
        low_rate = weight * low_rate + (1 - weight) * prior.low / prior.summaries
        high_rate = weight * high_rate + (1 - weight) * prior.high / prior.summaries
        basis += f", blended with the estimate before the run ({round(100 * (1 - weight))}%)"
    return Estimate(remaining * low_rate, remaining * high_rate, basis, remaining)


def combine(estimates: Sequence[Estimate]) -> Estimate:
    """The sum of several estimates (summarizers, stages); the basis lists each one's that has work to do."""
    working = [estimate for estimate in estimates
               if estimate.summaries > 0 or (estimate.stage != "summarize" and estimate.high > 0)]
    working = working or list(estimates[:1])
    return Estimate(sum(e.low for e in estimates), sum(e.high for e in estimates),
                    "; ".join(e.basis for e in working), sum(e.summaries for e in estimates))


@dataclass
class ThroughputMeter:
    """This run's summaries of one summarizer as they finish: when the model work started and each completion.

    Times are given by the caller (``time.monotonic()`` in the audit), so the meter itself stays pure and testable.
    """

    summarizer: str
    total: int
    cached: int = 0
    started: float | None = None
    completions: list[float] = field(default_factory=list)
    prior: Estimate | None = None  # the estimate before the run for its ``total - cached`` summaries

    def start(self, now: float, cached: int) -> None:
        """The cache has been read (``cached`` inputs were found) and the model work begins now."""
        self.started, self.cached = now, cached

    def finished(self, count: int, now: float) -> None:
        """``count`` more summaries were computed by ``now``."""
        if self.started is None:
            self.started = now
        self.completions.extend([now - self.started] * max(0, count))

    @property
    def done(self) -> int:
        return self.cached + len(self.completions)

    def remaining(self) -> int:
        return max(0, self.total - self.done)

    def estimate(self, now: float, fallback: Estimate) -> Estimate:
        """This run's estimate for what remains once something was computed, else ``fallback`` (from history)."""
        if not self.completions or self.started is None:
            return fallback
        return estimate_during(self.summarizer, self.completions, now - self.started, self.remaining(), self.prior)

    def record(self, now: float, machine: Machine, revision: str, engine: str | None, mean_input_chars: float,
               load_average: float | None, run_id: str | None, wall_time: float,
               loaded_spacy: bool | None = None) -> ThroughputRecord | None:
        """The rate to keep for later estimates, or None when nothing was computed (all cached)."""
        if not self.completions or self.started is None:
            return None
        computed = len(self.completions)
        return ThroughputRecord(self.summarizer, (now - self.started) / computed, computed, machine.hostname,
                                machine.cores, revision, engine, round(mean_input_chars, 1), load_average, run_id,
                                wall_time, round(self.completions[0], 3), loaded_spacy)


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


def spacy_loaded_by_perturb(inputs: Sequence[Input]) -> bool:
    """Whether the perturb stage of an audit with these inputs parses originals with spaCy (so it is loaded)."""
    return any(item.perturbation in PARSING_KINDS for item in inputs)


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
