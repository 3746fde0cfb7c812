"""Power before and after a run: the smallest effect an audit of n originals detects, and the originals an effect
needs (METHODS §5 "Power"; issue 19).

After a run, every "no evidence" verdict carries its own minimum detectable effect (``judge.judge``: 80% power at
α = 0.05 from the spread of its interval at its n). Before a run there is no spread yet, so ``planning_table`` takes
it from a reference run — the shipped demo run by default — and scales it with the number of originals: the spread of
a mean over originals falls as 1/√n, so MDE(n) = MDE(n_ref) · √(n_ref / n) and the originals an effect e needs are
n_ref · (MDE(n_ref) / e)². Per measure the reference spread is the median over the reference run's summarizers whose
results vary (identical summaries have no spread to scale). It is a planning figure: another corpus or summarizer
spreads differently, and the verdicts after the run state their own.
"""

from __future__ import annotations

import gzip
import json
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bias_core.common.records import MeasureResult
from bias_core.verdicts.judge import Verdict
from bias_core.verdicts.semantics import plain_name, semantics
from bias_core.verdicts.sentences import mde_text
from bias_core.verdicts.significance import is_verdict_result, minimum_detectable_effect, test_of

# The effect each measure is planned for, in the measure's own scale, and how it reads (issue 19: "says how many
# originals would detect a stated effect"). Chosen as the smallest effects the papers discuss as meaningful.
STATED_EFFECTS = {
    "entity_inclusion": 0.5,  # odds ratio 1.5
    "word_list_inclusion_adjusted": 0.05,  # 5 percentage points
    "entity_hallucination": 0.10,
    "distinguishability_count": 0.2,
    "distinguishability_dense": 0.2,
    "delta_i": 0.05,
    "acc_diff": 0.05,
    "bur": 10.0,  # percentage points of summaries (BUR is in %)
    "uer": 2.0,  # percentage points (UER is in %)
    "auc": 0.05,
    "sof": 0.02,
    "mbic": 0.1,
}


@dataclass(frozen=True)
class PowerRow:
    """One measure's planning figures at ``n`` originals."""

    measure: str
    name: str  # in words, without its code (the Audit page shows it)
    family: str
    n: int
    mde: float
    detects: str  # the MDE in words: "odds ratios beyond 1.62× either way"
    stated_effect: float | None
    stated: str | None  # the stated effect in words
    originals_needed: int | None  # originals for 80% power to detect the stated effect
    reference_n: int
    reference_summarizers: int


def _words(result: MeasureResult, value: float) -> str:
    return mde_text(result, Verdict("", False, None, (), mde=value)) or f"{value:.3g}"


def reference_spread(results: Sequence[MeasureResult]) -> dict[str, tuple[MeasureResult, float, int, int]]:
    """Per measure: (an example result, its median MDE scaled to one original — MDE · √n — over the summarizers
    whose test varies, the median n, how many summarizers)."""
    scaled: dict[str, list[tuple[MeasureResult, float, int]]] = {}
    for result in results:
        if not is_verdict_result(result) or not result.is_defined or result.n < 2:
            continue
        test = test_of(result)
        mde = minimum_detectable_effect(test) if test is not None else None
        if mde is None or not mde > 0:
            continue
        scaled.setdefault(result.measure, []).append((result, mde * math.sqrt(result.n), result.n))
    out = {}
    for measure, rows in scaled.items():
        out[measure] = (rows[0][0], statistics.median(r[1] for r in rows), int(statistics.median(r[2] for r in rows)),
                        len({r[0].summarizer for r in rows}))
    return out


def planning_table(n: int, results: Sequence[MeasureResult] | None = None) -> list[PowerRow]:
    """The minimum detectable effect of every measure at ``n`` originals, and the originals its stated effect needs,
    from ``results`` (default: the shipped demo run's)."""
    if n < 2:
        raise ValueError("a test needs at least 2 originals")
    reference = reference_spread(results if results is not None else demo_results())
    rows = []
    for measure, (example, per_original, reference_n, count) in reference.items():
        sem = semantics(measure)
        mde = per_original / math.sqrt(n)
        stated = STATED_EFFECTS.get(measure)
        needed = max(2, math.ceil((per_original / stated) ** 2)) if stated else None
        rows.append(PowerRow(measure, plain_name(measure), sem.family, n, mde, _words(example, mde), stated,
                             _words(example, stated) if stated else None, needed, reference_n, count))
    order = {name: i for i, name in enumerate(STATED_EFFECTS)}
    return sorted(rows, key=lambda row: (order.get(row.measure, 99), row.measure))


@cache
def demo_results() -> tuple[MeasureResult, ...]:
    """The shipped demo run's results (the default reference); empty when the bundle is not shipped."""
    from bias_core.common.paths import DEMO_RUN

    return tuple(results_of_bundle(DEMO_RUN)) if DEMO_RUN.is_file() else ()


def results_of_bundle(path: Path) -> list[MeasureResult]:
    """The measure results of an exported run bundle (``bias_core.views.export.run_bundle``; .json or .json.gz)."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as stream:
        bundle = json.load(stream)
    return [MeasureResult.from_dict(m) for m in bundle.get("measures", [])]


def format_table(rows: Sequence[PowerRow]) -> str:
    """The planning table as plain text (the CLI prints it)."""
    if not rows:
        return "no reference results with spread: run an audit first or pass --bundle"
    lines = [f"At {rows[0].n} originals, 80% power at α = 0.05 (scaled from a reference run by √n):"]
    for row in rows:
        needed = (f"; to detect {row.stated}: {row.originals_needed} originals" if row.originals_needed else "")
        lines.append(f"- {row.name}: detects {row.detects}{needed}")
    return "\n".join(lines)
