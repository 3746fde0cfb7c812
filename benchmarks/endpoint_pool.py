"""An audit's summaries from an OpenAI-compatible endpoint against the time the endpoint allows (issue 31, Deliver 1).

A local endpoint on 127.0.0.1, in its own process as a real server would be, answers each request after a seeded
latency (uniform 0.2–1.8 s, mean 1.0 s, drawn from the input's text, so every run sees the same latencies). The
summaries go through ``summarize_inputs`` as an audit sends them (the summarizer's own batch size, every answer kept
as it arrives). Two references: the **bound** no client can beat with ``concurrency`` requests in flight (the sum of
the latencies over ``concurrency``, or the slowest answer if that is longer), and a **perfect pool** (the same
requests in the same order, each started the instant a slot frees, with no overhead: what a continuous pool can
reach at best; at 256 inputs and concurrency 64 its last answers end well after the bound). Prints, per input count
and concurrency, the achieved time and the share of the bound and of the perfect pool it reaches.

    .venv/bin/python benchmarks/endpoint_pool.py                 # 256 and 1,024 inputs at concurrency 16 and 64
    .venv/bin/python benchmarks/endpoint_pool.py --inputs 256 --concurrency 16
    .venv/bin/python benchmarks/endpoint_pool.py --old-batches   # batches of concurrency × 4, as before issue 31
"""

from __future__ import annotations

import argparse
import hashlib
import heapq
import json
import multiprocessing
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bias_core.common.records import Input
from bias_core.summarize import get_summarizer, summarize_inputs

LOW, HIGH = 0.2, 1.8


def latency(text: str) -> float:
    """The seconds the endpoint takes for a request whose last user message is ``text`` (seeded by the text)."""
    digest = hashlib.sha256(text.encode()).digest()
    return LOW + (HIGH - LOW) * int.from_bytes(digest[:8], "big") / 2**64


class SlowEndpoint(BaseHTTPRequestHandler):
    """Chat completions answered after ``latency`` of the request's article."""

    protocol_version = "HTTP/1.1"  # keep-alive, as vLLM and Ollama serve

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        article = body["messages"][-1]["content"]
        time.sleep(latency(article.split("ARTICLE-ID:", 1)[-1][:40]))
        payload = {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                   "choices": [{"index": 0, "finish_reason": "stop",
                                "message": {"role": "assistant", "content": "A summary."}}],
                   "usage": {"prompt_tokens": 120, "completion_tokens": 12, "total_tokens": 132}}
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def inputs(count: int, salt: str) -> list[Input]:
    return [Input(id=f"i{k}", original_id=f"d{k}", text=f"Linda Chen won the vote. ARTICLE-ID:{salt}-{k}")
            for k in range(count)]


def perfect_pool(latencies: list[float], concurrency: int) -> float:
    """When the last answer arrives if each request starts the instant one of ``concurrency`` slots frees."""
    slots = [0.0] * concurrency
    for seconds in latencies:
        heapq.heapreplace(slots, slots[0] + seconds)
    return max(slots)


def measure(base_url: str, count: int, concurrency: int, salt: str, old_batches: bool = False
            ) -> tuple[float, float, float]:
    """(achieved, bound, perfect pool) seconds for ``count`` inputs at ``concurrency``."""
    items = inputs(count, salt)
    latencies = [latency(f"{salt}-{k}") for k in range(count)]
    bound = max(sum(latencies) / concurrency, max(latencies))
    summarizer = get_summarizer("openai:bench", base_url=base_url, api_key_env="", concurrency=concurrency,
                                retries=0, timeout=30)
    # The HTTP client is made (and openai imported: 1.1 s, once per process) before the clock starts: the table is
    # about the pool, and the first row would otherwise carry the import alone.
    summarizer.client()
    started = time.perf_counter()
    report = summarize_inputs(summarizer, items, batch_size=concurrency * 4 if old_batches else None)
    achieved = time.perf_counter() - started
    if report.failures or len(report.summaries) != count:
        raise SystemExit(f"{len(report.failures)} failures, e.g. {report.failures[0].error}")
    return achieved, bound, perfect_pool(latencies, concurrency)


def serve(ports: multiprocessing.Queue) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), SlowEndpoint)
    server.daemon_threads = True
    server.request_queue_size = 256
    ports.put(server.server_port)
    server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, nargs="+", default=[256, 1024])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--old-batches", action="store_true", help="send batches of concurrency × 4 (before issue 31)")
    args = parser.parse_args()
    ports: multiprocessing.Queue = multiprocessing.Queue()
    server = multiprocessing.Process(target=serve, args=(ports,), daemon=True)
    server.start()
    base_url = f"http://127.0.0.1:{ports.get(timeout=30)}/v1"
    print(f"{'inputs':>6} {'concurrency':>11} {'achieved s':>10} {'bound s':>8} {'of bound':>8} "
          f"{'perfect pool s':>14} {'of perfect':>10}")
    try:
        for count in args.inputs:
            for concurrency in args.concurrency:
                achieved, bound, perfect = measure(base_url, count, concurrency, f"{count}-{concurrency}",
                                                   args.old_batches)
                print(f"{count:>6} {concurrency:>11} {achieved:>10.1f} {bound:>8.1f} {bound / achieved:>8.0%} "
                      f"{perfect:>14.1f} {perfect / achieved:>10.0%}")
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
