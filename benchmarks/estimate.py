"""Estimate against actual time for one smollm2 audit on the demo news corpus (issue 14).

Runs the audit the Audit page would start: the 16 demo articles, identity + gender-glob with ``--samples`` name draws
(16 + 15 × 2 × samples inputs), smollm2 (CTranslate2, its defaults), one cheap measure. The summary cache is a fresh
temporary file, so every summary is computed; the run store is ``--store`` (kept between invocations), so a second
invocation is estimated from the first one's throughput, as the app does. Prints the estimate shown before the run
(range and basis), the estimate once 10% of the summaries are done, the actual summarizing time and the whole run's
time, with the load average before and after.

With ``--overhead``, it instead times smollm2 (CTranslate2) on ``--docs`` demo articles with and without per-summary
reporting, in alternating rounds, and prints both and whether the texts are identical: the cost of progress per
summary.

Run: .venv/bin/python benchmarks/estimate.py [--samples 2] [--store artifacts/benchmarks/estimate-runs.sqlite]
     .venv/bin/python benchmarks/estimate.py --overhead [--docs 8] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parent.parent


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=2, help="gender-glob name draws per article")
    parser.add_argument("--store", type=Path, default=REPO / "artifacts" / "benchmarks" / "estimate-runs.sqlite")
    parser.add_argument("--overhead", action="store_true", help="time per-summary reporting against none")
    parser.add_argument("--docs", type=int, default=8, help="with --overhead: demo articles per round")
    parser.add_argument("--rounds", type=int, default=2, help="with --overhead: rounds per mode, alternating")
    args = parser.parse_args()
    if args.overhead:
        overhead(args.docs, args.rounds)
        return

    from bias_core.documents.corpus import load_documents
    from bias_core.reference.demo import DEMO_NEWS
    from bias_core.runs.config import AuditConfig, CorpusSpec, StageSpec
    from bias_core.runs.costs import this_machine
    from bias_core.runs.estimate import Estimate, combine, format_duration
    from bias_core.runs.pipeline import build_inputs, run_audit
    from bias_core.runs.progress import estimates_before_run, throughput_history
    from bias_core.runs.store import RunStore
    from bias_core.summarize import SummaryCache, get_summarizer

    args.store.parent.mkdir(parents=True, exist_ok=True)
    store = RunStore(args.store)
    cache = SummaryCache(Path(tempfile.mkdtemp(prefix="estimate-bench-")) / "cache.sqlite")
    documents = load_documents(DEMO_NEWS)
    config = AuditConfig(corpus=CorpusSpec(str(DEMO_NEWS)), summarizers=[StageSpec("smollm2")],
                         perturbations=[StageSpec("identity"), StageSpec("gender-glob", {"samples": args.samples})],
                         measures=["distinguishability_count"], bootstrap=200,
                         name=f"estimate benchmark {time.strftime('%H:%M:%S')}")
    inputs, _ = build_inputs(documents, config)
    machine = this_machine()
    print(f"machine: {machine.hostname}, {machine.cores} cores; load average before: {load_average()}")
    print(f"audit: {len(documents)} demo articles, identity + gender-glob samples={args.samples}: "
          f"{len(inputs)} inputs × smollm2 = {len(inputs)} summaries (none cached)")
    before = combine(estimates_before_run([get_summarizer("smollm2")], inputs, throughput_history(store), cache))
    print(f"estimate before the run: {before.describe()} ({before.low:.0f}–{before.high:.0f} s) — {before.basis}")

    total = len(inputs)
    tenth = max(1, round(total / 10))
    started = time.monotonic()
    seen: dict[str, float] = {}
    at_tenth: list[tuple[Estimate, float]] = []

    def progress(stage: str, done: int, _total: int) -> None:
        now = time.monotonic()
        seen.setdefault("first", now)
        if done >= total:
            seen.setdefault("last", now)

    def estimate(remaining: Estimate) -> None:
        done = total - remaining.summaries
        if done >= tenth and not at_tenth:
            at_tenth.append((remaining, time.monotonic()))

    run_id = run_audit(config, store=store, cache=cache, documents=documents, resume=False, on_progress=progress,
                       on_estimate=estimate)
    ended = time.monotonic()
    info = store.get_run(run_id)
    seconds = info.reports.get("seconds", {})
    summarizing = seconds.get("summarize", 0.0)
    print(f"run {run_id}: {info.status}")
    if at_tenth:
        remaining, when = at_tenth[0]
        actual_rest = seen.get("last", ended) - when
        print(f"estimate after {total - remaining.summaries} of {total} summaries: {remaining.describe()} remaining "
              f"({remaining.low:.0f}–{remaining.high:.0f} s) — {remaining.basis}; actual remaining "
              f"{actual_rest:.0f} s ({format_duration(actual_rest)})")
    print(f"actual: summarizing {summarizing:.0f} s ({format_duration(summarizing)}); whole run "
          f"{ended - started:.0f} s (perturb {seconds.get('perturb', 0):.0f} s, measure {seconds.get('measure', 0):.0f} s)")
    verdict = "inside" if before.low <= summarizing <= before.high else "outside"
    print(f"before-run estimate vs actual summarizing: {before.low:.0f}–{before.high:.0f} s vs {summarizing:.0f} s "
          f"({verdict} the range)")
    kept = info.reports.get("throughput", {}).get("smollm2", {})
    print(f"kept for later estimates: {kept.get('seconds_per_summary', 0):.2f} s per summary over "
          f"{kept.get('summaries', 0)} summaries (load {kept.get('load_average')})")
    print(f"load average after: {load_average()}")


def overhead(docs: int, rounds: int) -> None:
    """smollm2 on CTranslate2, one batch of ``docs`` articles: plain ``summarize_batch`` against
    ``summarize_batch_reporting`` (asynchronous results polled), alternating so that load changes hit both."""
    from bias_core.common.records import Input
    from bias_core.documents.corpus import load_documents
    from bias_core.reference.demo import DEMO_NEWS
    from bias_core.summarize import get_summarizer

    documents = load_documents(DEMO_NEWS)[:docs]
    inputs = [Input(id=d.id, original_id=d.id, text=d.full_text) for d in documents]
    summarizer = get_summarizer("smollm2", batch_size=docs)
    summarizer.summarize_batch(inputs[:2])  # load and warm up
    print(f"load average before: {load_average()}")
    times: dict[str, list[float]] = {"plain": [], "reporting": []}
    texts: dict[str, list[str]] = {}
    for _ in range(rounds):
        for mode in ("plain", "reporting"):
            started = time.perf_counter()
            if mode == "plain":
                outcomes = summarizer.summarize_batch(inputs)
            else:
                outcomes = summarizer.summarize_batch_reporting(inputs, lambda count, outcomes=None: None)
            times[mode].append(time.perf_counter() - started)
            texts[mode] = [outcome.text for outcome in outcomes]
    for mode, seconds in times.items():
        print(f"{mode}: {', '.join(f'{s:.1f}' for s in seconds)} s for {docs} summaries "
              f"(best {docs / min(seconds):.3f} docs/s)")
    print(f"identical texts: {texts['plain'] == texts['reporting']}; "
          f"best reporting / best plain: {min(times['reporting']) / min(times['plain']):.3f}")
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
