"""Estimate against actual time, stage by stage, for a real small review audit and a real small news audit (issue 22).

Runs two audits as the Audit page would start them, each with its estimate computed beforehand exactly as the page
computes it (``estimates_before_run`` per summarizer, ``estimate_audit_before`` for the whole audit):

1. reviews: the bundled demo reviews (3 sets of units), identity + sentiment split (stars, ``--review-samples``
   inputs per ratio), every measure that applies (perspective BUR/UER/AUC/SOF with their permutation nulls, MBIC, SFPI);
2. news: the first ``--news-docs`` demo articles, identity + gender-glob (``--news-samples`` name draws), every
   measure that applies (distinguishability count and dense with MiniLM, Fightin' Words, MBIC, SFPI).

Both use ``--summarizers`` (default: lead-3, the page's default, and smollm2, the offline language model) and 1,000
resamples. Each audit runs in a process of its own, as the app's worker does (so each loads spaCy, the models and
scipy itself); the estimate is computed in this process beforehand. The run store and the summary cache are fresh
temporary files unless ``--store`` is given, so every summary is computed and the first audit is estimated from the
stated default costs; the second one already uses the first one's throughput and stage times (as the app does on a
machine with earlier runs). While each audit runs, the remaining time the worker writes is kept, and the projected
total (elapsed + remaining) is printed at ten points: what the Audit page's progress shows, and how much it moves.

Run: .venv/bin/python benchmarks/estimate_accuracy.py [--summarizers lead-3,smollm2] [--review-samples 1]
     [--news-docs 6] [--news-samples 1] [--store PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def seconds(low: float, high: float) -> str:
    return f"{low:7.1f} – {high:7.1f} s"


def one_audit(label: str, documents: list, perturbations: list, summarizer_names: list[str], store, cache) -> None:
    from bias_core.runs.config import AuditConfig, CorpusSpec, StageSpec
    from bias_core.runs.pipeline import build_inputs
    from bias_core.runs.progress import estimate_audit_before, estimates_before_run, throughput_history
    from bias_core.summarize import get_summarizer

    config = AuditConfig(corpus=CorpusSpec(label), summarizers=[StageSpec(name) for name in summarizer_names],
                         perturbations=perturbations, bootstrap=1000, name=f"estimate accuracy: {label}")
    inputs, _ = build_inputs(documents, config)
    history = throughput_history(store)
    summarize = estimates_before_run([get_summarizer(name) for name in summarizer_names], inputs, history, cache)
    estimate = estimate_audit_before(summarize, inputs, summarizer_names, None, config.bootstrap, history)
    print(f"\n== {label}: {len(documents)} originals, {len(inputs)} inputs × {len(summarizer_names)} summarizers "
          f"= {len(inputs) * len(summarizer_names)} summaries; load average before: {load_average()}")
    for stage in estimate.stages():
        print(f"   estimate {stage.stage:9} {seconds(stage.low, stage.high)}  {stage.basis}")

    folder = Path(tempfile.mkdtemp(prefix="estimate-accuracy-run-"))
    (folder / "config.json").write_text(json.dumps({"config": config.to_file_dict(),
                                                    "documents": [d.to_dict() for d in documents]}))
    started = time.perf_counter()
    subprocess.run([sys.executable, __file__, "--child", str(folder), "--store", str(store.path),
                    "--cache", str(cache.path)], check=True)
    total = time.perf_counter() - started
    result = json.loads((folder / "result.json").read_text())
    projections = result["projections"]
    info = store.get_run(result["run_id"])
    actual = info.reports["seconds"]
    per_summarizer = info.reports["summarize"]
    print(f"   load average after: {load_average()}")
    print(f"   {'stage':22} {'estimate':>19}   {'actual':>8}   inside")
    rows = [("perturb", estimate.perturb, actual["perturb"])]
    rows += [(f"summarize {e.basis.split(':', 1)[0]}", e, per_summarizer[name]["seconds"])
             for e, name in zip(estimate.summarize, summarizer_names)]
    rows += [("measure", estimate.measure, actual["measure"]), ("total", estimate.total, total)]
    for name, stage, value in rows:
        inside = "yes" if stage.low <= value <= stage.high else ("below" if value < stage.low else "ABOVE")
        print(f"   {name:22} {seconds(stage.low, stage.high)}   {value:7.1f} s   {inside}")
    if projections:
        step = max(1, len(projections) // 10)
        shown = projections[::step][:10] + [projections[-1]]
        print("   projected total (elapsed + remaining) as the run went on: "
              + ", ".join(f"{elapsed:.0f}s→{low:.0f}–{high:.0f}" for elapsed, low, high in shown))
        highs = [high for _, _, high in projections]
        lows = [low for _, low, _ in projections]
        print(f"   over {len(projections)} updates: projected low {min(lows):.0f}–{max(lows):.0f} s, "
              f"projected high {min(highs):.0f}–{max(highs):.0f} s (actual {total:.0f} s)")


def child(folder: Path, store_path: Path, cache_path: Path) -> None:
    """Run one audit (the worker's part) and write its run id and the remaining-time projections it heard."""
    from bias_core.common.records import Document
    from bias_core.runs.config import AuditConfig
    from bias_core.runs.pipeline import run_audit
    from bias_core.runs.store import RunStore
    from bias_core.summarize import SummaryCache

    given = json.loads((folder / "config.json").read_text())
    config = AuditConfig.from_dict(given["config"])
    documents = [Document.from_dict(d) for d in given["documents"]]
    projections: list[tuple[float, float, float]] = []
    started = time.perf_counter()

    def heard(remaining) -> None:
        elapsed = time.perf_counter() - started
        projections.append((elapsed, elapsed + remaining.low, elapsed + remaining.high))

    run_id = run_audit(config, store=RunStore(store_path), cache=SummaryCache(cache_path), documents=documents,
                       resume=False, on_estimate=heard)
    (folder / "result.json").write_text(json.dumps({"run_id": run_id, "projections": projections}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--summarizers", default="lead-3,smollm2", help="comma-separated summarizer names")
    parser.add_argument("--review-samples", type=int, default=1, help="sentiment inputs per ratio")
    parser.add_argument("--news-docs", type=int, default=6, help="demo articles in the news audit")
    parser.add_argument("--news-samples", type=int, default=1, help="gender-glob name draws per article")
    parser.add_argument("--store", type=Path, default=None, help="run store to use and keep (default: a fresh one)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--cache", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.store, args.cache)
        return

    from bias_core.documents.corpus import load_documents
    from bias_core.reference.demo import DEMO_NEWS, DEMO_REVIEWS
    from bias_core.runs.config import StageSpec
    from bias_core.runs.costs import this_machine
    from bias_core.runs.store import RunStore
    from bias_core.summarize import SummaryCache

    folder = Path(tempfile.mkdtemp(prefix="estimate-accuracy-"))
    store = RunStore(args.store or folder / "runs.sqlite")
    cache = SummaryCache(folder / "cache.sqlite")
    names = [name.strip() for name in args.summarizers.split(",") if name.strip()]
    machine = this_machine()
    print(f"machine: {machine.hostname}, {machine.cores} cores; summarizers: {', '.join(names)}; store: "
          f"{args.store or 'fresh (no earlier runs)'}")
    one_audit("demo reviews, sentiment split", load_documents(DEMO_REVIEWS),
              [StageSpec("identity"), StageSpec("sentiment", {"value_source": "stars",
                                                              "samples": args.review_samples})],
              names, store, cache)
    one_audit(f"demo news ({args.news_docs} articles), gender swap", load_documents(DEMO_NEWS)[:args.news_docs],
              [StageSpec("identity"), StageSpec("gender-glob", {"samples": args.news_samples})],
              names, store, cache)


if __name__ == "__main__":
    main()
