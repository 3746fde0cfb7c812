"""The ``openai:`` summarizer against a real HTTP server on 127.0.0.1 (success, 500, timeout, bad JSON, refused)."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bias_core.common.records import Input
from bias_core.summarize import SummaryCache, get_summarizer, summarize_inputs

SECRET = "sk-test-do-not-leak-123"


class Endpoint(BaseHTTPRequestHandler):
    """Chat completions whose behaviour depends on the requested model name."""

    requests: list[dict] = []
    events: list[tuple[str, int, float]] = []
    active = 0
    peak = 0
    lock = threading.Lock()

    def log_message(self, *args):
        pass

    def handle(self):
        try:
            super().handle()
        except BrokenPipeError:  # the client gave up first (the timeout test)
            pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        busy = body["model"] == "busy"
        with Endpoint.lock:
            Endpoint.requests.append({"body": body, "auth": self.headers.get("Authorization")})
            Endpoint.active += busy
            Endpoint.peak = max(Endpoint.peak, Endpoint.active)
        try:
            model = body["model"]
            if model == "slow":
                time.sleep(2)
            if model == "broken":
                return self._send(500, b'{"error": {"message": "boom"}}')
            if model == "garbage":
                return self._send(200, b"\x00\xffnot json at all")
            if model == "busy":
                time.sleep(0.2)
            if model == "pool":  # one slow article in sixteen: the rest answer at once
                number = int(re.search(r"the vote (\d+)\.", body["messages"][0]["content"]).group(1))
                with Endpoint.lock:
                    Endpoint.events.append(("start", number, time.monotonic()))
                time.sleep(3.0 if number in (0, 16) else 0.01)
                with Endpoint.lock:
                    Endpoint.events.append(("end", number, time.monotonic()))
            content = "Summary: " + body["messages"][0]["content"][-40:]
            payload = {"id": "x", "object": "chat.completion", "created": 0, "model": model,
                       "system_fingerprint": "fp-test",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": content}}]}
            self._send(200, json.dumps(payload).encode())
        finally:
            with Endpoint.lock:
                Endpoint.active -= busy

    def _send(self, status: int, body: bytes):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Endpoint)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("SUMMBIAS_TEST_KEY", SECRET)
    Endpoint.requests.clear()
    Endpoint.peak = 0


def items(n: int = 2) -> list[Input]:
    return [Input(id=f"i{k}", original_id=f"d{k}", text=f"Article {k}: Linda Chen won the vote {k}.")
            for k in range(n)]


def summarizer(model: str, base_url: str, **params):
    return get_summarizer(f"openai:{model}", base_url=base_url, api_key_env="SUMMBIAS_TEST_KEY", **params)


def test_openai_endpoint_returns_summaries_with_settings_but_never_the_key(endpoint, tmp_path):
    report = summarize_inputs(summarizer("ok", endpoint, temperature=0.0, seed=7), items(),
                              cache=SummaryCache(tmp_path / "c.sqlite"))
    assert [s.input_id for s in report.summaries] == ["i0", "i1"] and not report.failures
    assert report.summaries[0].text.startswith("Summary:")
    request = Endpoint.requests[0]
    assert request["auth"] == f"Bearer {SECRET}"  # the key reaches the server …
    assert request["body"]["temperature"] == 0.0 and request["body"]["seed"] == 7
    assert SECRET not in json.dumps([s.to_dict() for s in report.summaries])  # … and nowhere else
    assert SECRET not in (tmp_path / "c.sqlite").read_bytes().decode("latin-1")
    assert report.summaries[0].meta["parameters"]["api_key_env"] == "SUMMBIAS_TEST_KEY"


def test_a_500_answer_is_a_failure_that_is_not_cached(endpoint, tmp_path):
    cache = SummaryCache(tmp_path / "c.sqlite")
    report = summarize_inputs(summarizer("broken", endpoint, retries=1), items(1), cache=cache)
    assert report.summaries == [] and "answered HTTP 500" in report.failures[0].error
    assert len(Endpoint.requests) == 2  # one retry with backoff
    assert len(cache) == 0


def test_a_timeout_is_reported_with_the_limit(endpoint, tmp_path):
    report = summarize_inputs(summarizer("slow", endpoint, timeout=0.3, retries=0), items(1),
                              cache=SummaryCache(tmp_path / "c.sqlite"))
    assert "timed out after 0.3 s" in report.failures[0].error


def test_invalid_json_is_reported_as_an_invalid_answer(endpoint, tmp_path):
    report = summarize_inputs(summarizer("garbage", endpoint, retries=0), items(1),
                              cache=SummaryCache(tmp_path / "c.sqlite"))
    assert report.summaries == [] and "invalid answer" in report.failures[0].error


def test_a_refused_connection_names_the_endpoint(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    report = summarize_inputs(summarizer("ok", url, retries=0), items(1), cache=SummaryCache(tmp_path / "c.sqlite"))
    assert report.failures[0].error == f"endpoint {url} could not connect (is the server running and the base URL right?)"
    assert SECRET not in report.failures[0].error


def test_a_request_starts_as_soon_as_any_answer_arrives_across_the_whole_audit(endpoint, tmp_path):
    """One continuous pool (issue 31): with concurrency 4, article 16 is sent while article 0's slow answer is still
    on its way — batches of concurrency × 4 made the 17th request wait for the first batch's slowest answer."""
    Endpoint.events.clear()
    report = summarize_inputs(summarizer("pool", endpoint, concurrency=4), items(24),
                              cache=SummaryCache(tmp_path / "c.sqlite"))
    assert len(report.summaries) == 24 and not report.failures
    when = {(kind, number): at for kind, number, at in Endpoint.events}
    assert when[("start", 16)] < when[("end", 0)]


def test_requests_run_concurrently_up_to_the_limit(endpoint, tmp_path):
    report = summarize_inputs(summarizer("busy", endpoint, concurrency=3), items(9),
                              cache=SummaryCache(tmp_path / "c.sqlite"))
    assert len(report.summaries) == 9
    assert 1 < Endpoint.peak <= 3
