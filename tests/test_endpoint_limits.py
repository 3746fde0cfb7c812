"""An endpoint's answer is bounded (issue 23): at most 1 MiB, refused beyond it however it is sent, and complete
within the summarizer's timeout as a whole, not per read — a real server on 127.0.0.1 that answers too much or
trickles its answer one byte at a time gets a failure, never a summary or a cache entry."""

from __future__ import annotations

import gzip
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bias_core.common.records import Input
from bias_core.summarize import SummaryCache, get_summarizer, summarize_inputs
from bias_core.summarize.bounded_http import MAX_ANSWER_BYTES


def completion(content: str) -> bytes:
    return json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": content}}]}).encode()


class Hostile(BaseHTTPRequestHandler):
    """Chat completions whose misbehaviour depends on the requested model name."""

    protocol_version = "HTTP/1.1"
    headers_seen: list[dict] = []

    def log_message(self, *args):
        pass

    def do_POST(self):
        model = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["model"]
        Hostile.headers_seen.append(dict(self.headers))
        try:
            getattr(self, "answer_" + model.replace("-", "_"))()
        except (BrokenPipeError, ConnectionResetError):  # the client gave up, as it should
            pass

    def _head(self, length: int | None, **extra: str):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if length is not None:
            self.send_header("Content-Length", str(length))
        for name, value in extra.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()

    def answer_ok(self):
        body = completion("A short summary.")
        self._head(len(body))
        self.wfile.write(body)

    def answer_long(self):  # 600,000 characters: under the cap, longer than a page shows
        body = completion("word " * 120_000)
        self._head(len(body))
        self.wfile.write(body)

    def answer_huge(self):  # 100 MB, announced
        self._head(100 * 2**20)
        chunk = b" " * 2**16
        for _ in range(1600):
            self.wfile.write(chunk)

    def answer_huge_unannounced(self):  # 8 MB of a JSON string, no Content-Length (read until the connection closes)
        self.close_connection = True
        self._head(None, Connection="close")
        self.wfile.write(b'{"choices": [{"message": {"content": "')
        for _ in range(128):
            self.wfile.write(b"x" * 2**16)

    def answer_gzip_bomb(self):  # a small body that would unpack to 50 MB
        body = gzip.compress(completion("y" * 50 * 2**20))
        self._head(len(body), Content_Encoding="gzip")
        self.wfile.write(body)

    def answer_trickle_body(self):
        body = completion("A summary that arrives one byte a second.")
        self._head(len(body))
        for byte in body:
            self.wfile.write(bytes([byte]))
            self.wfile.flush()
            time.sleep(0.5)

    def answer_trickle_headers(self):
        for byte in b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Slow: " + b"z" * 200:
            self.wfile.write(bytes([byte]))
            self.wfile.flush()
            time.sleep(0.5)


@pytest.fixture(scope="module")
def hostile():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Hostile)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()


def ask(url: str, model: str, tmp_path, **params):
    cache = SummaryCache(tmp_path / f"{model}.sqlite")
    summarizer = get_summarizer(f"openai:{model}", base_url=url, api_key_env="", retries=0, **params)
    started = time.perf_counter()
    report = summarize_inputs(summarizer, [Input("i", "d", "Mayor Robert Moore said he will resign.")], cache=cache)
    return report, time.perf_counter() - started, len(cache)


def test_a_normal_answer_is_asked_for_uncompressed_and_kept(hostile, tmp_path):
    report, _, cached = ask(hostile, "ok", tmp_path)
    assert [s.text for s in report.summaries] == ["A short summary."] and cached == 1
    assert Hostile.headers_seen[-1]["Accept-Encoding"] == "identity"


@pytest.mark.parametrize(("model", "problem"), [
    ("huge", f"answered more than 1 MiB ({100 * 2**20:,} bytes), more than a summary needs; refused"),
    ("huge-unannounced", "answered more than 1 MiB, more than a summary needs; refused"),
    ("gzip-bomb", "answered compressed (gzip) although it was asked for an uncompressed answer, more than a summary "
                  "needs; refused"),
])
def test_an_answer_larger_than_a_mebibyte_is_refused_and_not_cached(hostile, tmp_path, model, problem):
    assert MAX_ANSWER_BYTES == 2**20
    report, seconds, cached = ask(hostile, model, tmp_path, timeout=30)
    assert report.summaries == [] and cached == 0
    assert report.failures[0].error == f"endpoint {hostile} {problem}"
    assert seconds < 10


@pytest.mark.parametrize("model", ["trickle-body", "trickle-headers"])
def test_a_trickling_server_is_given_up_on_at_the_timeout_of_the_whole_request(hostile, tmp_path, model):
    report, seconds, cached = ask(hostile, model, tmp_path, timeout=2)
    assert report.summaries == [] and cached == 0
    assert report.failures[0].error == f"endpoint {hostile} timed out after 2 s (0 retries)"
    assert seconds < 4  # each read arrives within the timeout; only the whole request's deadline ends it


def test_a_long_summary_is_shown_cut_on_the_summarize_page(hostile, tmp_path, monkeypatch):
    from tests.conftest import open_app

    (tmp_path / "endpoints.toml").write_text(f'[[endpoints]]\nname = "lab"\nbase_url = "{hostile}"\n')
    monkeypatch.setenv("SUMMBIAS_ENDPOINTS", str(tmp_path / "endpoints.toml"))
    app = open_app("pages/summarize.py")
    app.selectbox(key="summarize_summarizer").set_value("OpenAI-compatible endpoint (openai:)").run()
    app.text_input(key="summarize_openai_model").set_value("long").run()
    app.button[0].click().run()
    assert not app.exception and not app.error
    assert len(app.session_state["last_summary"].text) == 599_999  # kept whole …
    assert 19_990 < len(app.text[0].value) <= 20_000  # … shown cut (st.text trims the cut-off space), and said so
    assert any("Showing the first 20,000 of 599,999 characters" in caption.value for caption in app.caption)
