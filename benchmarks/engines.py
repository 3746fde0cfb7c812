"""smollm2's two engines side by side: CTranslate2 (int8 on CPU) against transformers (float32) on the same inputs.

Both engines summarize the same demo articles with the same prompts, greedy decoding, ``max_new_tokens`` and batch
size, in one process; models are loaded and warmed up before timing. With ``--rounds`` above 1 the engines take
turns, so a change in the machine's load hits both. Prints documents/s and generated tokens/s for each engine, how
many summaries are identical, the ratio of CPU times, and one line ``speedup: N.Nx`` (CTranslate2 ÷ transformers,
documents/s).

Run: .venv/bin/python benchmarks/engines.py [--docs 8] [--max-new-tokens 64] [--batch-size 8] [--rounds 1]
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

ENGINES = ("ctranslate2", "transformers")


def cpu_seconds() -> float:
    """CPU time of this process, all threads: a measure of work that load from other processes distorts less."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=8, help="demo articles to summarize (at most 16)")
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=1, help="timed rounds per engine, taken in turns")
    args = parser.parse_args()

    from bias_core.common.records import Input
    from bias_core.documents.corpus import load_documents
    from bias_core.reference.demo import DEMO_NEWS
    from bias_core.summarize import get_summarizer

    documents = load_documents(DEMO_NEWS)[: args.docs]
    inputs = [Input(id=document.id, original_id=document.id, text=document.full_text) for document in documents]
    words = sum(len(item.text.split()) for item in inputs) / len(inputs)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, python {platform.python_version()}; "
          f"threads {os.environ.get('SUMMBIAS_TORCH_THREADS', 'all cores')}")
    print(f"inputs: {len(inputs)} demo articles of {words:.0f} words; max_new_tokens {args.max_new_tokens}, "
          f"batch {args.batch_size}, greedy, {args.rounds} round(s)")

    summarizers = {}
    for engine in ENGINES:
        started = time.perf_counter()
        summarizer = get_summarizer("smollm2", engine=engine, max_new_tokens=args.max_new_tokens,
                                    batch_size=args.batch_size)
        summarizer.summarize(inputs[:1])  # loads (and on first use converts) the model; not timed
        summarizers[engine] = summarizer
        print(f"{engine}: load + one warm-up summary {time.perf_counter() - started:.1f} s "
              f"(revision {summarizer.revision()})")

    tokenizer = summarizers["transformers"]._load()[1]
    seconds = dict.fromkeys(ENGINES, 0.0)
    cpu = dict.fromkeys(ENGINES, 0.0)
    outputs: dict[str, list] = {}
    print(f"load average before: {load_average()}")
    for _ in range(args.rounds):
        for engine in ENGINES:
            started, cpu_started = time.perf_counter(), cpu_seconds()
            outputs[engine] = summarizers[engine].summarize(inputs)
            seconds[engine] += time.perf_counter() - started
            cpu[engine] += cpu_seconds() - cpu_started
    print(f"load average after:  {load_average()}")

    docs_per_second = {}
    for engine in ENGINES:
        # Generated tokens, counted by re-tokenizing each output with the sentence cut undone (the dropped tail).
        tokens = sum(len(tokenizer(summary.text + summary.meta.get("dropped_tail", ""),
                                   add_special_tokens=False).input_ids) for summary in outputs[engine])
        rounds_seconds = seconds[engine] / args.rounds
        docs_per_second[engine] = len(inputs) / rounds_seconds
        truncated = sum(bool(summary.meta.get("truncated")) for summary in outputs[engine])
        print(f"{engine:>12}: {docs_per_second[engine]:6.3f} docs/s, {tokens / rounds_seconds:7.1f} tokens/s "
              f"({rounds_seconds:6.1f} s and {cpu[engine] / args.rounds:6.1f} CPU s per round, {tokens} tokens, "
              f"{truncated} cut at the token limit)")
    same = sum(a.text == b.text for a, b in zip(outputs["ctranslate2"], outputs["transformers"], strict=True))
    print(f"identical summaries: {same}/{len(inputs)}")
    print(f"CPU time, transformers ÷ ctranslate2: {cpu['transformers'] / cpu['ctranslate2']:.1f}x")
    print(f"speedup: {docs_per_second['ctranslate2'] / docs_per_second['transformers']:.1f}x")


if __name__ == "__main__":
    main()
