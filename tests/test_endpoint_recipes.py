"""The README's recipes for vLLM, Ollama and llama.cpp's server, run as written against local servers that answer as
each of those servers does: its chat-completion shape, its error bodies and its refusals (issue 31, Deliver 5)."""

from __future__ import annotations

import json
import re
import threading
import time
import tomllib
from collections import Counter
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import ClassVar

import pytest

from bias_core.common.records import Input
from bias_core.runs.usage import token_usage
from bias_core.safety.endpoints import browser_endpoints
from bias_core.summarize import SummaryCache, get_summarizer, summarize_inputs
from tests.test_security_endpoints import serve

README = Path(__file__).resolve().parent.parent / "README.md"
KEY = "sk-recipe-test"


def recipe(heading: str) -> tuple[str, dict]:
    """The README's command and TOML under ``#### heading``."""
    section = README.read_text(encoding="utf-8").split(f"\n#### {heading}\n", 1)[1].split("\n#### ", 1)[0]
    section = section.split("\n### ", 1)[0]
    command = re.search(r"```bash\n(.*?)```", section, re.DOTALL).group(1)
    return command, tomllib.loads(re.search(r"```toml\n(.*?)```", section, re.DOTALL).group(1))


class Server(BaseHTTPRequestHandler):
    """Shared plumbing: JSON answers, one article's number per request, the answers counted per article."""

    protocol_version = "HTTP/1.1"
    answered: ClassVar[Counter] = Counter()
    refused: ClassVar[Counter] = Counter()
    requests = 0
    started = 0.0
    lock = threading.Lock()

    def log_message(self, *args):
        pass

    def send_json(self, status: int, payload: dict, headers: dict | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def read(self) -> tuple[dict, str, int]:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        content = body["messages"][-1]["content"]
        with Server.lock:
            Server.requests += 1
            number = Server.requests
        return body, content, number

    def article(self, content: str) -> str:
        match = re.search(r"ARTICLE (\d+)", content)
        return match.group(1) if match else "?"

    def usage(self, content: str) -> dict:
        return {"prompt_tokens": len(content) // 4, "completion_tokens": 9, "total_tokens": len(content) // 4 + 9}

    def refuse(self, content: str, status: int, payload: dict, headers: dict | None = None) -> None:
        with Server.lock:
            Server.refused[self.article(content)] += 1
        self.send_json(status, payload, headers)

    def answered_now(self, content: str) -> str:
        with Server.lock:
            Server.answered[self.article(content)] += 1
        return f"A summary of article {self.article(content)}."


class VLLM(Server):
    """vLLM's OpenAI server (0.6–0.10): its answer's fields, ``{"object": "error", …}`` bodies, a bearer key; a
    gateway in front of it answers the first requests 429 with Retry-After."""

    def do_POST(self):
        body, content, number = self.read()
        if self.headers.get("Authorization") != f"Bearer {KEY}":
            return self.send_json(401, {"error": "Unauthorized"})
        if number <= 6:
            return self.refuse(content, 429, {"error": {"message": "Rate limit exceeded", "type": "rate_limit_error",
                                                        "param": None, "code": "429"}}, {"Retry-After": "1"})
        if "LONG ARTICLE" in content:
            return self.send_json(400, {
                "object": "error", "type": "BadRequestError", "param": None, "code": 400,
                "message": "This model's maximum context length is 32768 tokens. However, you requested 40210 tokens "
                           "(39954 in the messages, 256 in the completion). Please reduce the length of the messages "
                           "or completion."})
        self.send_json(200, {
            "id": "chatcmpl-6f1c2b9e0d", "object": "chat.completion", "created": int(time.time()),
            "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": self.answered_now(content),
                                                  "refusal": None, "annotations": None, "audio": None,
                                                  "function_call": None, "tool_calls": [], "reasoning_content": None},
                         "logprobs": None, "finish_reason": "stop", "stop_reason": None}],
            "service_tier": None, "system_fingerprint": None, "usage": {**self.usage(content),
                                                                         "prompt_tokens_details": None},
            "prompt_logprobs": None, "kv_transfer_params": None})


class Ollama(Server):
    """Ollama's /v1 (0.3–0.9): ``fp_ollama``, 404 for a model not pulled, 503 "server busy" beyond its queue (no
    Retry-After); it ignores the key."""

    def do_POST(self):
        body, content, number = self.read()
        if body["model"] != "llama3.1:8b":
            return self.send_json(404, {"error": {"message": f'model "{body["model"]}" not found, try pulling it '
                                                             "first", "type": "api_error", "param": None,
                                                  "code": None}})
        if 2 <= number <= 7:
            return self.refuse(content, 503, {"error": {
                "message": "server busy, please try again.  maximum pending requests exceeded", "type": "api_error",
                "param": None, "code": None}})
        self.send_json(200, {
            "id": "chatcmpl-379", "object": "chat.completion", "created": int(time.time()), "model": body["model"],
            "system_fingerprint": "fp_ollama",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": self.answered_now(content)},
                         "finish_reason": "stop"}],
            "usage": self.usage(content)})


class LlamaCpp(Server):
    """llama.cpp's llama-server: 503 "Loading model" for its first second, its own error object with a code, an API
    key, ``timings`` in the answer and the alias as the model."""

    def do_POST(self):
        _, content, _ = self.read()
        if time.monotonic() - Server.started < 1.0:
            return self.refuse(content, 503, {"error": {"code": 503, "message": "Loading model",
                                                        "type": "unavailable_error"}})
        if self.headers.get("Authorization") != f"Bearer {KEY}":
            return self.send_json(401, {"error": {"code": 401, "message": "Invalid API Key",
                                                  "type": "authentication_error"}})
        usage = self.usage(content)
        self.send_json(200, {
            "choices": [{"finish_reason": "stop", "index": 0,
                         "message": {"role": "assistant", "content": self.answered_now(content)}}],
            "created": int(time.time()), "model": "llama3.2", "system_fingerprint": "b4567-1d2c3f4",
            "object": "chat.completion", "usage": usage, "id": "chatcmpl-Xb2kLw",
            "timings": {"prompt_n": usage["prompt_tokens"], "prompt_ms": 41.2, "predicted_n": 9,
                        "predicted_ms": 120.5, "predicted_per_second": 74.7}})


RECIPES = {"vLLM": (VLLM, "VLLM_API_KEY"), "Ollama": (Ollama, None), "llama.cpp's server": (LlamaCpp, "LLAMA_API_KEY")}


@pytest.fixture
def server(request, monkeypatch):
    handler, variable = RECIPES[request.param]
    if variable:
        monkeypatch.setenv(variable, KEY)
    Server.answered, Server.refused = Counter(), Counter()
    Server.requests, Server.started = 0, time.monotonic()
    httpd, url = serve(handler)
    yield request.param, url
    httpd.shutdown()


def local(settings: dict, url: str) -> dict:
    """A recipe's table with its base URL's host and port made the local server's."""
    return {**settings, "base_url": re.sub(r"^http://[^/]+", url, settings["base_url"])}


@pytest.mark.parametrize("server", list(RECIPES), indirect=True)
def test_each_recipe_summarizes_an_audit_through_its_servers_refusals_and_counts_its_tokens(server, tmp_path,
                                                                                              monkeypatch):
    heading, url = server
    command, blocks = recipe(heading)
    (entry,) = blocks["endpoints"]
    (settings,) = blocks["summarizers"]
    (tmp_path / "endpoints.toml").write_text("[[endpoints]]\n" + "".join(
        f"{key} = {json.dumps(value)}\n" for key, value in local(entry, url).items()))
    (endpoint,) = browser_endpoints(tmp_path / "endpoints.toml")  # the app's file takes the entry as written
    name = settings.pop("name")
    assert name.removeprefix("openai:") in endpoint.models
    assert endpoint.summarizer_params() == {key: local(settings, url)[key] for key in endpoint.summarizer_params()}
    assert str(settings["concurrency"]) in command  # the parallelism the command gives the server
    summarizer = get_summarizer(name, **local(settings, url))
    inputs = [Input(id=f"i{k}", original_id=f"d{k}", text=f"Mayor Linda Chen spoke. ARTICLE {k:03d}")
              for k in range(12)]
    waits: list[str | None] = []
    report = summarize_inputs(summarizer, inputs, cache=SummaryCache(tmp_path / "c.sqlite"), on_wait=waits.append)
    assert len(report.summaries) == 12 and not report.failures, [f.error for f in report.failures]
    assert sum(Server.refused.values()) > 0 and any(text for text in waits)  # refused, waited, shown
    assert len(Server.answered) == 12 and set(Server.answered.values()) == {1}  # each summary asked for once
    (usage,) = token_usage(report.summaries)
    assert usage.summaries == 12 and usage.prompt_tokens > 0 and usage.completion_tokens == 12 * 9


@pytest.mark.parametrize(("server", "wrong", "said"), [
    ("vLLM", {"text": "LONG ARTICLE 001"}, "answered HTTP 400: This model's maximum context length is 32768 tokens."),
    ("Ollama", {"model": "openai:llama3:70b"}, 'answered HTTP 404: model "llama3:70b" not found, try pulling it first'),
    ("llama.cpp's server", {"key": "sk-wrong"}, "answered HTTP 401: Invalid API Key"),
], indirect=["server"])
def test_each_servers_own_error_reaches_the_failure_in_its_words(server, wrong, said, tmp_path, monkeypatch):
    heading, url = server
    _, blocks = recipe(heading)
    (settings,) = blocks["summarizers"]
    name = wrong.get("model", settings.pop("name"))
    settings.pop("name", None)
    if "key" in wrong:
        monkeypatch.setenv(settings["api_key_env"], wrong["key"])
    Server.started -= 5  # past llama-server's loading
    Server.requests = 100  # past the refusals
    summarizer = get_summarizer(name, **local(settings, url))
    text = wrong.get("text", "Mayor Linda Chen spoke. ARTICLE 001")
    report = summarize_inputs(summarizer, [Input(id="i", original_id="d", text=text)])
    assert not report.summaries and said in report.failures[0].error
