"""How long summarizing will take, as a range with its basis, from throughput measured on this machine.

Before a run, the seconds per summary measured in earlier runs of the same summarizer on this machine give the range
(a default guess only when there are none); once this run has computed summaries, its own rate replaces them. Cached
summaries cost nothing. Everything here is pure: times are passed in, nothing is read or written.
"""

from __future__ import annotations

import math
import os
import socket
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

# Default guesses (seconds per summary, low and high) where no run of a summarizer was measured on this machine. Wide
# on purpose: smollm2 on CTranslate2 int8 took 2–4 s per input on an idle 2-core machine, much more on a loaded one.
DEFAULT_SECONDS = {"smollm2": (1.5, 8.0), "hf": (1.0, 15.0), "openai": (0.3, 5.0), "extractive": (0.002, 0.1)}
# A past rate was measured under another load: widen the range of past rates by this factor each way.
HISTORY_MARGIN = 1.25
# The newest earlier runs that count (older ones are more likely to have run other code under other load).
MAX_HISTORY = 10
# This run's rate is measured in up to this many consecutive blocks of summaries; their spread is the range.
RATE_BLOCKS = 5
# Fewest summaries per block: parallel replicas finish inputs in twos or more, so smaller blocks measure nothing.
MIN_BLOCK = 4


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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

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

    def describe(self) -> str:
        """E.g. "3–6 min"; "nothing left" for nothing to compute."""
        return format_range(self.low, self.high)


def format_duration(seconds: float) -> str:
    """A duration rounded for display: "40 s", "7 min", "1 h 20 min"."""
    seconds = max(0.0, seconds)
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
        return f"about {high_text}"
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
                    revision: str | None = None, cached: int = 0, load_now: float | None = None) -> Estimate:
    """The time ``uncached`` summaries of ``summarizer`` will take, before any is computed in this run.

    The range spans the earlier runs' rates on this machine, both as measured and scaled from the load they ran
    under to ``load_now`` (``load_factor``), widened by ``HISTORY_MARGIN``; without any, the family's default guess,
    said so.
    """
    cached_note = f"; {cached} cached" if cached else ""
    if uncached <= 0:
        return Estimate(0.0, 0.0, f"{summarizer}: nothing to compute{cached_note}", 0)
    matches = matching_history(history, summarizer, machine, revision)
    if matches:
        measured = [record.seconds_per_summary for record in matches]
        scaled = [record.seconds_per_summary * load_factor(record.load_average, load_now, machine.cores)
                  for record in matches]
        rates = measured + scaled
        runs = f"{len(matches)} earlier run{'s' if len(matches) > 1 else ''}"
        load_note = (f", {format_rate(min(scaled), max(scaled))} at today's load {load_now:.1f}"
                     if scaled != measured and load_now is not None else "")
        return Estimate(uncached * min(rates) / HISTORY_MARGIN, uncached * max(rates) * HISTORY_MARGIN,
                        f"{summarizer}: from {runs} on this machine ({format_rate(min(measured), max(measured))}"
                        f"{load_note}){cached_note}", uncached)
    low, high = DEFAULT_SECONDS[summarizer_family(summarizer)]
    return Estimate(uncached * low, uncached * high,
                    f"{summarizer}: no measurement on this machine yet, default guess "
                    f"({format_rate(low, high)}){cached_note}", uncached)


def format_rate(low: float, high: float) -> str:
    """Seconds per summary, e.g. "2.1–3.4 s per summary"."""
    def one(value: float) -> str:
        return f"{value:.2g}" if value < 1 else f"{value:.1f}"

    return (f"{one(low)} s per summary" if one(low) == one(high) else f"{one(low)}–{one(high)} s per summary")


def block_rates(completions: Sequence[float]) -> list[float]:
    """Seconds per summary in up to ``RATE_BLOCKS`` consecutive blocks of at least ``MIN_BLOCK`` summaries after the
    first (completion times in seconds since the model work started, one per computed summary, ascending).

    Each block runs from the previous block's last completion, so blocks cover the steady state only; inputs that
    finish together (parallel replicas) fall into one block instead of giving a rate near zero.
    """
    steady = len(completions) - 1
    blocks = min(RATE_BLOCKS, steady // MIN_BLOCK)
    if blocks == 0:
        return []
    bounds = [1 + round(steady * k / blocks) for k in range(blocks + 1)]
    return [max(0.0, completions[end - 1] - completions[start - 1]) / (end - start)
            for start, end in zip(bounds, bounds[1:])]


def steady_rate(completions: Sequence[float], elapsed: float) -> float:
    """Seconds per summary now that the model works: from the first completion to now over the summaries since
    (the time to the first one also holds loading the model, which is not repeated). With fewer than
    ``MIN_BLOCK`` summaries measured, all the time so far over all of them (the cautious rate)."""
    count = len(completions)
    now = max(elapsed, completions[-1])
    if count <= MIN_BLOCK:
        return now / count
    return (now - completions[0]) / (count - 1)


def estimate_during(summarizer: str, completions: Sequence[float], elapsed: float, remaining: int) -> Estimate:
    """The time the ``remaining`` summaries of ``summarizer`` will take, from this run's completion times so far.

    ``elapsed`` is the time since the model work started, now (at least the last completion): a stall with
    nothing finished raises the rate. The range spans the steady rate and each block's rate, widened by 1 + 1/√n
    for n summaries measured (wide after a few, narrow after many).
    """
    computed = len(completions)
    if computed == 0:
        raise ValueError("estimate_during needs at least one computed summary")
    rates = [steady_rate(completions, elapsed), *block_rates(completions)]
    margin = 1 + 1 / math.sqrt(computed)
    return Estimate(remaining * min(rates) / margin, remaining * max(rates) * margin,
                    f"{summarizer}: from {computed} summar{'y' if computed == 1 else 'ies'} so far in this run "
                    f"({format_rate(min(rates), max(rates))})", remaining)


def combine(estimates: Sequence[Estimate]) -> Estimate:
    """The sum of several summarizers' estimates; the basis lists each one's that has work to do."""
    working = [estimate for estimate in estimates if estimate.summaries > 0] or list(estimates[:1])
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
        return estimate_during(self.summarizer, self.completions, now - self.started, self.remaining())

    def record(self, now: float, machine: Machine, revision: str, engine: str | None, mean_input_chars: float,
               load_average: float | None, run_id: str | None, wall_time: float) -> ThroughputRecord | None:
        """The rate to keep for later estimates, or None when nothing was computed (all cached)."""
        if not self.completions or self.started is None:
            return None
        computed = len(self.completions)
        return ThroughputRecord(self.summarizer, (now - self.started) / computed, computed, machine.hostname,
                                machine.cores, revision, engine, round(mean_input_chars, 1), load_average, run_id,
                                wall_time)
