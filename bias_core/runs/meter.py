"""This run's own rate as its summaries finish: ``ThroughputMeter`` follows one summarizer's completions and
``estimate_during`` turns them (blended with the estimate before the run) into the remaining time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from bias_core.runs.costs import Machine
from bias_core.runs.estimate import Estimate, ThroughputRecord, format_rate

# This run's rate is measured in up to this many consecutive blocks of summaries; their spread is the range.
RATE_BLOCKS = 5
# Fewest summaries per block: parallel replicas finish inputs in twos or more, so smaller blocks measure nothing.
MIN_BLOCK = 4
# During a run, the estimate before it counts as much as this many of the run's own summaries (``estimate_during``).
PRIOR_WEIGHT = 8
# Completions less than this many seconds apart finished together (one batch, parallel replicas).
CLUSTER_SECONDS = 0.5


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
