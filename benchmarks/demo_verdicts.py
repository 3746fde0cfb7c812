"""The demo run's measure stage, timed, and its verdicts per summarizer (issue 19's before → after figures).

Recomputes every measure from the demo bundle's own inputs and summaries (data/demo/demo_run.json.gz, or --bundle),
exactly as an audit's measure stage does (``compute_measures`` with 1,000 resamples), and prints the seconds it took
and one line per summarizer × perturbation × family: the verdict and its sentence.

    .venv/bin/python benchmarks/demo_verdicts.py [--bundle PATH] [--repeats 2]
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import time
from pathlib import Path

from bias_core.common.records import Input, Summary
from bias_core.measures import MeasureOptions, compute_measures
from bias_core.reference.demo import DEMO_RUN
from bias_core.verdicts.findings import findings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, default=DEMO_RUN)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    with gzip.open(args.bundle, "rt", encoding="utf-8") as stream:
        bundle = json.load(stream)
    inputs = [Input.from_dict(i) for i in bundle["inputs"]]
    summaries = [Summary.from_dict(s) for s in bundle["summaries"]]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"demo bundle {args.bundle}: {len(inputs)} inputs, {len(summaries)} summaries; commit {commit}")
    compute_measures(inputs[:5], summaries[:5])  # load spaCy and the embedding model outside the timing
    times = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        results = compute_measures(inputs, summaries, options=MeasureOptions(n_resamples=1000))
        times.append(time.perf_counter() - started)
    print(f"measure stage: {', '.join(f'{t:.1f} s' for t in times)} ({len(results)} results)")
    rows = findings(results, inputs, summaries)
    print("\n| summarizer | perturbation | family | verdict | sentence |\n|---|---|---|---|---|")
    for row in sorted(rows, key=lambda r: (r.summarizer, r.perturbation, r.family)):
        print(f"| {row.summarizer} | {row.perturbation} | {row.family} | {row.verdict.status} | {row.sentence} |")


if __name__ == "__main__":
    main()
