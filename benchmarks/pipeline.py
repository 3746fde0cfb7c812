"""Pipeline benchmarks against a naive baseline that does what the papers' seed code does: one model call per
document, a full spaCy pipeline per item, Python loops over the corpus.

Prints, from one run:
- summarization throughput, batched vs naive, for textrank and smollm2;
- an end-to-end audit of 100 originals x 20 inputs with lead-3 (time and peak memory);
- how the time grows when the corpus doubles (50 -> 100 originals);
- Ray local (2 workers) vs the local executor on the same audit.

Run: .venv/bin/python benchmarks/pipeline.py [--originals 100] [--skip-smollm2] [--skip-ray]
Each audit runs in a fresh subprocess with an empty cache and store, so peak memory is its own.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parent.parent


def corpus(n: int):
    """``n`` distinct ~400-word originals made from the demo articles that have people in them."""
    from bias_core.common.records import Document
    from bias_core.documents.corpus import load_documents
    from bias_core.reference.demo import DEMO_NEWS

    sources = [d for d in load_documents(DEMO_NEWS) if not d.meta.get("edge_case")]
    return [Document(id=f"bench-{k:04d}", text=f"{source.text}\n\nFiled by desk {k}.")
            for k, source in zip(range(n), itertools.cycle(sources))]


def naive_textrank(text: str, nlp) -> str:
    """TextRank as a per-document script would write it: full pipeline, pairwise Python loops."""
    import networkx as nx

    doc = nlp(text)
    sentences = [s for s in doc.sents if s.text.strip()]
    words = [[t.lower_ for t in s if t.is_alpha and not t.is_stop] for s in sentences]
    graph = nx.Graph()
    graph.add_nodes_from(range(len(sentences)))
    for i in range(len(sentences)):
        for j in range(i + 1, len(sentences)):
            overlap = len(set(words[i]) & set(words[j]))
            denominator = math.log(max(1, len(words[i]))) + math.log(max(1, len(words[j])))
            weight = overlap / denominator if denominator > 0 else overlap
            if weight:
                graph.add_edge(i, j, weight=weight)
    ranks = nx.pagerank(graph, weight="weight")
    top = sorted(sorted(ranks, key=lambda i: (-ranks[i], i))[:3])
    return " ".join(sentences[i].text.strip() for i in top)


def summarization(args) -> None:
    from bias_core.common import nlp
    from bias_core.common.records import Input
    from bias_core.summarize import get_summarizer

    documents = corpus(args.summarize_docs)
    inputs = [Input(id=d.id, original_id=d.id, text=d.text) for d in documents]
    pipeline = nlp.spacy_pipeline()
    pipeline("warm up")
    started = time.perf_counter()
    for document in documents:
        naive_textrank(document.text, pipeline)
    naive = time.perf_counter() - started
    textrank = get_summarizer("textrank")
    started = time.perf_counter()
    textrank.summarize(inputs)
    batched = time.perf_counter() - started
    print(f"textrank  naive {len(inputs) / naive:7.2f} docs/s | batched {len(inputs) / batched:7.2f} docs/s | "
          f"ratio {naive / batched:.2f}x  ({len(inputs)} docs)")
    if args.skip_smollm2:
        return
    sample = inputs[: args.smollm2_docs]
    smollm2 = get_summarizer("smollm2", max_new_tokens=args.max_new_tokens)
    smollm2.summarize_batch(sample[:1])
    started = time.perf_counter()
    for item in sample:
        smollm2.summarize_batch([item])
    naive = time.perf_counter() - started
    started = time.perf_counter()
    for start in range(0, len(sample), args.smollm2_batch):
        smollm2.summarize_batch(sample[start : start + args.smollm2_batch])
    batched = time.perf_counter() - started
    print(f"smollm2   naive {len(sample) / naive:7.3f} docs/s | batched({args.smollm2_batch}) "
          f"{len(sample) / batched:7.3f} docs/s | "
          f"ratio {naive / batched:.2f}x  ({len(sample)} docs, max_new_tokens={args.max_new_tokens})")


def audit_once(originals: int, samples: int, executor: str) -> dict:
    """One audit in this process (called in a subprocess): gender-glob, lead-3, its measures."""
    from bias_core.runs.config import AuditConfig, CorpusSpec, StageSpec
    from bias_core.runs.executors import get_executor
    from bias_core.runs.pipeline import run_audit
    from bias_core.runs.store import RunStore
    from bias_core.summarize import SummaryCache

    documents = corpus(originals)
    config = AuditConfig(corpus=CorpusSpec("benchmark"), summarizers=[StageSpec("lead-3")],
                         perturbations=[StageSpec("gender-glob", {"samples": samples})], bootstrap=1000)
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        run = get_executor(executor, **({"num_cpus": 2} if executor == "ray" else {}))
        store = RunStore(Path(folder) / "runs.sqlite")
        run_id = run_audit(config, store=store, cache=SummaryCache(Path(folder) / "c.sqlite"), documents=documents,
                           executor=run)
        seconds = time.perf_counter() - started
        run.close()
        info = store.get_run(run_id)
        stages = info.reports.get("seconds", {})
        return {"seconds": seconds, "status": info.status, "inputs": len(store.inputs(run_id)),
                "summaries": len(store.summaries(run_id)), "measures": len(store.measures(run_id)),
                "stage_seconds": stages,
                "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def audit_in_subprocess(originals: int, samples: int, executor: str) -> dict:
    command = [sys.executable, __file__, "--audit-once", str(originals), str(samples), executor]
    output = subprocess.run(command, capture_output=True, text=True, cwd=REPO, check=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def audits(args) -> None:
    samples = 10  # 10 draws x 2 arms = 20 inputs per original, plus the identity input
    full = audit_in_subprocess(args.originals, samples, "local")
    print(f"audit {args.originals} originals x 20 inputs, lead-3, local: {full['seconds']:.1f} s, "
          f"{full['inputs']} inputs, {full['summaries']} summaries, {full['measures']} results, "
          f"peak RSS {full['peak_rss_mb']:.0f} MB ({full['status']}); stages {full['stage_seconds']}")
    half = audit_in_subprocess(args.originals // 2, samples, "local")
    print(f"audit {args.originals // 2} originals: {half['seconds']:.1f} s (stages {half['stage_seconds']}) -> "
          f"doubling the corpus takes "
          f"{full['seconds'] / half['seconds']:.2f}x the time (linear = 2.00x)")
    if not args.skip_ray:
        ray_run = audit_in_subprocess(args.originals // 2, samples, "ray")
        print(f"audit {args.originals // 2} originals on Ray local (2 workers): {ray_run['seconds']:.1f} s vs local "
              f"{half['seconds']:.1f} s (ratio {ray_run['seconds'] / half['seconds']:.2f}x, includes Ray start-up)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--originals", type=int, default=100)
    parser.add_argument("--summarize-docs", type=int, default=64)
    parser.add_argument("--smollm2-docs", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=128, help="smollm2's default")
    parser.add_argument("--smollm2-batch", type=int, default=8)
    parser.add_argument("--skip-smollm2", action="store_true")
    parser.add_argument("--skip-ray", action="store_true")
    parser.add_argument("--audit-once", nargs=3, metavar=("ORIGINALS", "SAMPLES", "EXECUTOR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.audit_once:
        originals, samples, executor = args.audit_once
        print(json.dumps(audit_once(int(originals), int(samples), executor)))
        return
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, python {platform.python_version()}")
    summarization(args)
    audits(args)


if __name__ == "__main__":
    main()
