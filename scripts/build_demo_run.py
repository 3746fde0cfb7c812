"""Build the precomputed demo run shipped in data/demo/demo_run.json.gz, so the app shows results at once.

Run: .venv/bin/python scripts/build_demo_run.py   (about 10 minutes on 2 idle CPU cores, mostly SmolLM2)
The run is an ordinary audit of the demo corpus; the bundle is `bias_core.export.run_bundle` of it.
"""

from __future__ import annotations

import gzip
import json
import sys
import tempfile
import time
from pathlib import Path

from bias_core.audit import AuditConfig, CorpusSpec, StageSpec, run_audit
from bias_core.demo import DEMO_NEWS, DEMO_REVIEWS, DEMO_RUN, write_demo_findings
from bias_core.export import run_bundle
from bias_core.io import json_safe, load_documents
from bias_core.store import RunStore
from bias_core.summarize import SummaryCache

CONFIG = AuditConfig(
    corpus=CorpusSpec("data/demo (news.jsonl + reviews.jsonl)"),
    summarizers=[StageSpec("lead-3"), StageSpec("textrank"), StageSpec("sexist"),
                 StageSpec("smollm2", {"max_new_tokens": 80})],
    perturbations=[StageSpec("identity"), StageSpec("gender-loc", {"samples": 2}),
                   StageSpec("gender-glob", {"samples": 2}), StageSpec("race", {"samples": 2}),
                   StageSpec("politician"),
                   StageSpec("sentiment", {"value_source": "stars", "samples": 2})],
    seed=0, bootstrap=1000, name="demo: news and reviews (precomputed)",
)


def main() -> None:
    documents = load_documents(DEMO_NEWS) + load_documents(DEMO_REVIEWS)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        store = RunStore(Path(folder) / "runs.sqlite")

        def progress(stage: str, done: int, total: int) -> None:
            print(f"\r{stage} {done}/{total} ({time.perf_counter() - started:.0f} s)", end="", file=sys.stderr)

        run_id = run_audit(CONFIG, store=store, cache=SummaryCache(), documents=documents, on_progress=progress)
        bundle = json_safe(run_bundle(store, run_id))
    with gzip.open(DEMO_RUN, "wt", encoding="utf-8") as stream:
        json.dump(bundle, stream, ensure_ascii=False)
    print(f"\nwrote {DEMO_RUN} ({DEMO_RUN.stat().st_size / 1e6:.2f} MB): {len(bundle['inputs'])} inputs, "
          f"{len(bundle['summaries'])} summaries, {len(bundle['measures'])} results in "
          f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    print(f"wrote the demo run's {write_demo_findings()} findings beside it", file=sys.stderr)


if __name__ == "__main__":
    main()
