"""Power before and after a run: the smallest effect an audit of n originals detects, and the originals an effect
needs (METHODS §5 "Power"; issues 19 and 28).

After a run, every verdict that is not a finding carries the effect it could have detected (``judge.judge``: the rule
run on simulated audits of its own per-original values, ``simulated_power``). Before a run there are no values yet, so
``planning_table`` takes them from a reference run — the shipped demo run by default: per measure, the summarizer
whose per-original values have the median spread, its family's size, and the same simulation at the planned n (the
other tests of the family drawn without an effect). The originals an effect e needs are the smallest n whose simulated
detectable effect is at most e. It is a planning figure: another corpus or summarizer spreads differently, and the
verdicts after the run state their own.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from bias_core.common.records import MeasureResult, RecordError
from bias_core.documents.decoding import gunzip, read_named_file
from bias_core.safety.errors import InputError
from bias_core.verdicts.judge import Verdict
from bias_core.verdicts.semantics import plain_name, semantics
from bias_core.verdicts.sentences import mde_text
from bias_core.verdicts.significance import TestOf, family_p_values, is_verdict_result, on_measure_scale, test_of
from bias_core.verdicts.simulated_power import POWER, detectable_effect, detection_rate

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
MOST_ORIGINALS = 2000  # planning looks no further: "more than 2,000 originals"


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
    originals_needed: int | None  # originals for 80% power to detect the stated effect (None: more than 2,000)
    reference_n: int
    reference_summarizers: int


# What a planning row detects where not even the largest possible effect is found four times in five; the verdicts
# after a run say the same of such an audit ("too few articles …", ``sentences.detectable_text``).
NOTHING_DETECTABLE = "no effect, however large: too few originals for even the largest possible effect"


def _words(result: MeasureResult, value: float) -> str:
    if value == math.inf:
        return NOTHING_DETECTABLE
    return mde_text(result, Verdict("", False, None, (), mde=value)) or f"{value:.3g}"


@dataclass(frozen=True)
class Reference:
    """One measure's reference for planning: an example result (for the words), its test's per-original values,
    their sidedness and scale, the size of its summarizer's Holm family, n and how many summarizers varied."""

    example: MeasureResult
    values: tuple[float, ...]
    sided: str
    scale: str | None
    family_size: int
    n: int
    summarizers: int
    largest: float | None = None  # the largest possible |effect| of a bounded measure (its test's)


def reference_spread(results: Sequence[MeasureResult]) -> dict[str, Reference]:
    """Per measure: the test of the summarizer whose per-original values have the median spread, among those whose
    test varies (identical summaries have no spread to simulate)."""
    candidates: dict[str, list[tuple[float, MeasureResult, TestOf]]] = {}
    for result in results:
        if not is_verdict_result(result) or not result.is_defined or result.n < 2:
            continue
        test = test_of(result)
        if test is None or test.values is None or statistics.stdev(test.values) == 0:
            continue
        candidates.setdefault(result.measure, []).append((statistics.stdev(test.values), result, test))
    out = {}
    for measure, rows in candidates.items():
        rows.sort(key=lambda row: row[0])
        _, result, test = rows[(len(rows) - 1) // 2]
        family = family_p_values(result, results)
        out[measure] = Reference(result, test.values, test.sided, test.scale,
                                 1 + (len(family) if family is not None else 0), result.n,
                                 len({row[1].summarizer for row in rows}), test.largest)
    return out


def _simulated(reference: Reference, n: int) -> float | None:
    """The detectable effect at n originals, read back as the verdicts read theirs (∞ beyond the largest possible)."""
    found = detectable_effect(reference.values, reference.sided, n=n, family_size=reference.family_size)
    return on_measure_scale(found, reference.largest, reference.scale)


def originals_needed(reference: Reference, effect: float, most: int = MOST_ORIGINALS) -> int | None:
    """The smallest n at which the rule finds ``effect`` in 4 of 5 simulated audits (bisection over n; None beyond
    ``most``)."""
    planted = math.log1p(effect) if reference.scale == "log odds ratio" else effect
    return _needed(reference.values, reference.sided, reference.family_size, planted, most)


@lru_cache(maxsize=256)
def _needed(values: tuple[float, ...], sided: str, family_size: int, planted: float, most: int) -> int | None:
    def detects(n: int) -> bool:
        rate = detection_rate(values, sided, planted, n=n, family_size=family_size)
        return rate is not None and rate >= POWER

    if not detects(most):
        return None
    low, high = 2, most  # detects(high) holds
    if detects(low):
        return low
    while high - low > 1:
        middle = (low + high) // 2
        if detects(middle):
            high = middle
        else:
            low = middle
    return high


def planning_table(n: int, results: Sequence[MeasureResult] | None = None) -> list[PowerRow]:
    """The effect every measure detects in 4 of 5 simulated audits of ``n`` originals, and the originals its stated
    effect needs, from ``results`` (default: the shipped demo run's)."""
    if n < 2:
        raise ValueError("a test needs at least 2 originals")
    reference = reference_spread(results if results is not None else demo_results())
    rows = []
    for measure, ref in reference.items():
        sem = semantics(measure)
        mde = _simulated(ref, n)
        if mde is None:
            continue
        stated = STATED_EFFECTS.get(measure)
        needed = originals_needed(ref, stated) if stated else None
        rows.append(PowerRow(measure, plain_name(measure), sem.family, n, mde, _words(ref.example, mde), stated,
                             _words(ref.example, stated) if stated else None, needed, ref.n, ref.summarizers))
    order = {name: i for i, name in enumerate(STATED_EFFECTS)}
    return sorted(rows, key=lambda row: (order.get(row.measure, 99), row.measure))


@cache
def demo_results() -> tuple[MeasureResult, ...]:
    """The shipped demo run's results (the default reference); empty when the bundle is not shipped."""
    from bias_core.common.paths import DEMO_RUN

    return tuple(results_of_bundle(DEMO_RUN)) if DEMO_RUN.is_file() else ()


# A run bundle holds the run's documents, inputs and summaries besides its measures (the demo run's, of 28 documents,
# decompresses to 3.8 MB), so it grows with the corpus times its arms: 500 MB, decompressed, leaves room for the
# bundle of a large audit and stops a small .gz file that would decompress to gigabytes (issue 30).
BUNDLE_MAX_BYTES = 500_000_000
_BUNDLE_HINT = "give a bundle written by `python -m bias_core export`"


def results_of_bundle(path: Path, max_bytes: int = BUNDLE_MAX_BYTES) -> list[MeasureResult]:
    """The measure results of an exported run bundle (``bias_core.views.export.run_bundle``; .json or .json.gz): a
    regular file of at most ``max_bytes``, decompressed to at most as many; every fault is one ``InputError`` line."""
    source = str(path)
    data = read_named_file(path, max_bytes, hint="export a smaller run")
    if source.endswith(".gz"):
        data = gunzip(source, data, max_bytes)
    try:
        bundle = json.loads(data.decode("utf-8"))
        return [MeasureResult.from_dict(m) for m in bundle.get("measures", [])]
    except (UnicodeDecodeError, json.JSONDecodeError, AttributeError, TypeError, KeyError, RecordError) as error:
        raise InputError(source, f"is not a valid run bundle ({error})", hint=_BUNDLE_HINT) from None
    except RecursionError:
        raise InputError(source, "is not a valid run bundle (JSON nested too deep)", hint=_BUNDLE_HINT) from None


def format_table(rows: Sequence[PowerRow]) -> str:
    """The planning table as plain text (the CLI prints it)."""
    if not rows:
        return "no reference results with spread: run an audit first or pass --bundle"
    lines = [f"At {rows[0].n} originals, 80% power at α = 0.05 after Holm (simulated from a reference run's values):"]
    for row in rows:
        needed = (f"; to detect {row.stated}: {row.originals_needed} originals" if row.originals_needed else
                  f"; to detect {row.stated}: more than {MOST_ORIGINALS:,} originals" if row.stated else "")
        lines.append(f"- {row.name}: detects {row.detects}{needed}")
    return "\n".join(lines)
