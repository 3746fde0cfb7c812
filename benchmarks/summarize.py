"""Summarization throughput on the demo corpus: batched vs one document at a time, model load times, cache hits.

Run: .venv/bin/python benchmarks/summarize.py [--smollm2-docs 8] [--max-new-tokens 64] [--skip-cold]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def rate(count: int, seconds: float) -> str:
    return f"{count / seconds:8.2f} docs/s ({seconds:6.2f} s for {count})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=4, help="copies of the demo corpus for extractive timing")
    parser.add_argument("--smollm2-docs", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--skip-cold", action="store_true", help="skip the GGUF → safetensors conversion timing")
    args = parser.parse_args()

    from bias_core.common import nlp
    from bias_core.common.records import Input
    from bias_core.documents.corpus import load_documents
    from bias_core.reference.demo import DEMO_NEWS
    from bias_core.summarize import SummaryCache, get_summarizer, summarize_inputs
    from bias_core.summarize import hf as hf_module
    from bias_core.summarize import smollm2 as smollm2_module

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"python {platform.python_version()}")
    started = time.perf_counter()
    nlp.spacy_pipeline()
    print(f"spaCy en_core_web_sm load: {time.perf_counter() - started:.2f} s")
    started = time.perf_counter()
    nlp.sentence_encoder()
    print(f"all-MiniLM-L6-v2 load (incl. sentence-transformers import): {time.perf_counter() - started:.2f} s")

    documents = load_documents(DEMO_NEWS)
    words = sum(len(d.full_text.split()) for d in documents) / len(documents)
    inputs = [Input(id=f"{d.id}/{k}", original_id=d.id, text=d.full_text)
              for k in range(args.repeat) for d in documents]
    print(f"corpus: {len(documents)} demo articles x {args.repeat} = {len(inputs)} inputs, {words:.0f} words each")

    for name in ("lead-3", "textrank", "lexrank"):
        summarizer = get_summarizer(name)
        started = time.perf_counter()
        summarizer.summarize(inputs)
        batched = time.perf_counter() - started
        started = time.perf_counter()
        for item in inputs:
            summarizer.summarize_batch([item])
        single = time.perf_counter() - started
        print(f"{name:9s} batched {rate(len(inputs), batched)} | one at a time {rate(len(inputs), single)} | "
              f"ratio {single / batched:.2f}x")

    if not args.skip_cold:
        folder = Path(tempfile.mkdtemp(prefix="smollm2-cold-"))
        try:
            started = time.perf_counter()
            smollm2_module.converted_model_dir(folder)
            print(f"smollm2 cold load (GGUF de-quantise + write safetensors, once): "
                  f"{time.perf_counter() - started:.1f} s")
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    smollm2 = get_summarizer("smollm2", max_new_tokens=args.max_new_tokens)
    hf_module.load_model.cache_clear()
    started = time.perf_counter()
    smollm2._load()
    print(f"smollm2 warm load (from cached safetensors): {time.perf_counter() - started:.2f} s")
    sample = inputs[: args.smollm2_docs]
    for batch_size in (1, 4, 8):
        if batch_size > len(sample):
            break
        started = time.perf_counter()
        for start in range(0, len(sample), batch_size):
            smollm2.summarize_batch(sample[start : start + batch_size])
        elapsed = time.perf_counter() - started
        print(f"smollm2   batch {batch_size}: {rate(len(sample), elapsed)} (max_new_tokens={args.max_new_tokens})")

    with tempfile.TemporaryDirectory() as folder:
        cache = SummaryCache(Path(folder) / "cache.sqlite")
        lead = get_summarizer("lead-3")
        summarize_inputs(lead, inputs, cache=cache)
        started = time.perf_counter()
        report = summarize_inputs(lead, inputs, cache=cache)
        elapsed = time.perf_counter() - started
        one = inputs[:1]
        started = time.perf_counter()
        for _ in range(100):
            summarize_inputs(lead, one, cache=cache)
        single_hit = (time.perf_counter() - started) / 100
        print(f"cache hits: {report.cache_hits} summaries in {elapsed * 1000:.1f} ms "
              f"({elapsed / len(inputs) * 1000:.3f} ms each); one-input call {single_hit * 1000:.2f} ms")


if __name__ == "__main__":
    main()
