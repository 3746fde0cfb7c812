"""An endpoint that refuses for now (HTTP 429, 503): the wait it asks for is obeyed, the pool narrows and widens again,
the wait is shown, and no summary is asked for twice (issue 31, Deliver 2)."""

from __future__ import annotations

import json
import random
import re
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from email.utils import formatdate
from pathlib import Path
from typing import ClassVar

import pytest

from bias_core.common.records import Input
from bias_core.runs.store import RunStore
from bias_core.summarize import SummaryCache, get_summarizer, summarize_inputs
from bias_core.summarize.rate_limits import (
    BACKOFF_CAP,
    LONGEST_WAIT,
    Abandoned,
    AdaptiveConcurrency,
    Wait,
    WaitNotices,
    backoff,
    retry_after,
)
from bias_core.views.export import html_report
from tests.test_openai_summarizer import Endpoint
from tests.test_security_endpoints import serve

REPO = Path(__file__).resolve().parent.parent


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


# The wait a server asks for ------------------------------------------------------------------------------------------

def test_retry_after_reads_seconds_milliseconds_and_an_http_date():
    assert retry_after({"retry-after": "3"}) == 3.0
    assert retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5  # the finer one wins
    assert retry_after({"retry-after": formatdate(1_000_060, usegmt=True)}, now=lambda: 1_000_000.0) == 60.0
    assert retry_after({"retry-after": formatdate(999_000, usegmt=True)}, now=lambda: 1_000_000.0) == 0.0  # past


def test_an_unreadable_or_missing_retry_after_leaves_the_wait_to_the_backoff():
    assert retry_after({}) is None and retry_after(None) is None
    assert retry_after({"retry-after": "soon"}) is None


def test_a_server_asking_for_an_hour_is_waited_on_for_the_longest_wait_only():
    assert retry_after({"retry-after": "3600"}) == LONGEST_WAIT


def test_backoff_doubles_its_ceiling_with_full_jitter_up_to_the_cap():
    rng = random.Random(1)
    for attempt, ceiling in ((0, 0.5), (1, 1.0), (3, 4.0), (12, BACKOFF_CAP)):
        draws = [backoff(attempt, rng) for _ in range(200)]
        assert 0 <= min(draws) and max(draws) <= ceiling
        assert max(draws) > 0.8 * ceiling and min(draws) < 0.2 * ceiling  # spread over the whole range


# The pool's limit --------------------------------------------------------------------------------------------------

def test_the_limit_is_halved_once_for_the_refusals_of_one_window():
    gate = AdaptiveConcurrency(16)
    windows = []
    for _ in range(5):  # five requests sent together, all refused
        with gate.slot() as window:
            windows.append(window)
    for window in windows:
        gate.refused(429, None, window, attempt=0)
    assert gate.limit == 8  # one halving, not five: they all met the same limit
    with gate.slot() as window:  # a request sent at the new limit, refused too
        pass
    gate.refused(429, None, window, attempt=0)
    assert gate.limit == 4 and gate.refusals == 6


def test_the_limit_grows_back_by_about_one_per_window_of_answers_never_above_concurrency():
    gate = AdaptiveConcurrency(8)
    with gate.slot() as window:
        pass
    gate.refused(429, None, window, attempt=0)
    assert gate.limit == 4
    for _ in range(4):  # one window of four answers
        gate.answered()
    assert 4.9 < gate.limit < 5.1
    for _ in range(200):
        gate.answered()
    assert gate.limit == 8


def test_the_limit_never_falls_below_one_request():
    gate = AdaptiveConcurrency(2)
    for _ in range(6):
        with gate.slot() as window:
            pass
        gate.refused(503, None, window, attempt=0)
    assert gate.limit == 1


def test_a_retry_after_holds_every_new_request_of_the_pool_and_is_shown():
    clock = Clock()
    gate = AdaptiveConcurrency(4, clock=clock)
    with gate.slot() as window:
        pass
    assert gate.refused(429, 5.0, window, attempt=0) == 5.0
    wait = gate.current_wait()
    assert wait == Wait(status=429, seconds=5.0, limit=2, ceiling=4, refusals=1)
    assert wait.describe() == ("the endpoint answered HTTP 429 (too many requests): waiting 5 s; 2 of 4 requests at "
                               "a time; 1 refusal so far")
    entered = threading.Event()

    def send():
        with gate.slot():
            entered.set()

    sender = threading.Thread(target=send)
    sender.start()
    assert not entered.wait(0.3)  # paused: the server asked the client to wait
    clock.now += 5.0
    assert entered.wait(3.0)
    sender.join()
    assert gate.current_wait() is None


def test_a_backoff_is_shown_while_it_lasts_and_ends_at_once_when_the_process_stops():
    gate = AdaptiveConcurrency(4)
    stopped = []

    def waiting():
        try:
            gate.wait(60.0, 503)
        except Abandoned:
            stopped.append(True)

    waiter = threading.Thread(target=waiting)
    waiter.start()
    deadline = time.monotonic() + 5
    while gate.current_wait() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert gate.current_wait().status == 503 and "(unavailable): waiting 60 s" in gate.current_wait().describe()
    gate.abandon()
    waiter.join(2.0)
    assert stopped == [True] and gate.current_wait() is None


def test_a_wait_that_began_and_ended_between_two_looks_is_still_told_then_cleared():
    gate = AdaptiveConcurrency(4)
    heard: list[str | None] = []
    notices = WaitNotices(gate, heard.append)
    notices.update()
    gate.wait(0.01, 429)  # a short Retry-After, begun and over before the collecting loop looks again
    notices.update()
    assert len(heard) == 2 and "HTTP 429" in heard[0] and heard[1] is None
    notices.update()
    assert len(heard) == 2  # told once only


# A real endpoint that refuses --------------------------------------------------------------------------------------

class Refusing(Endpoint):
    """Answers after ``delay`` s; during the first ``window`` s after its first request it refuses 30% of requests
    (seeded): 429 with Retry-After, 429 without, and 503 with Retry-After in turn. Counts each article's answers."""

    delay = 0.15
    window = 10.0
    first: float | None = None
    rng = random.Random(7)
    refused: ClassVar[Counter] = Counter()
    answered: ClassVar[Counter] = Counter()
    turn = 0

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        article = body["messages"][0]["content"]
        key = article.split("ARTICLE ", 1)[-1][:12]
        with Endpoint.lock:
            now = time.monotonic()
            Refusing.first = Refusing.first or now
            refuse = now - Refusing.first < Refusing.window and Refusing.rng.random() < 0.3
            if refuse:
                Refusing.refused[key] += 1
                Refusing.turn += 1
                kind = Refusing.turn % 3
        if refuse:
            status, headers = ((429, {"Retry-After": "1"}), (429, {}), (503, {"Retry-After": "1"}))[kind]
            data = b'{"error": {"message": "slow down", "type": "rate_limit"}}'
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        time.sleep(Refusing.delay)
        payload = {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                   "choices": [{"index": 0, "finish_reason": "stop",
                                "message": {"role": "assistant", "content": "Summary of " + key}}],
                   "usage": {"prompt_tokens": 50, "completion_tokens": 7, "total_tokens": 57}}
        with Endpoint.lock:
            Refusing.answered[key] += 1
        self._send(200, json.dumps(payload).encode())


@pytest.fixture
def refusing():
    Refusing.first, Refusing.turn = None, 0
    Refusing.rng = random.Random(7)
    Refusing.refused, Refusing.answered = Counter(), Counter()
    server, url = serve(Refusing)
    yield url + "/v1"
    server.shutdown()


def test_refused_requests_are_sent_again_until_answered_and_the_wait_is_told(refusing, tmp_path):
    inputs = [Input(id=f"i{k}", original_id=f"d{k}", text=f"Linda Chen won. ARTICLE {k:04d}") for k in range(40)]
    Refusing.window = 3.0
    waits: list[str | None] = []
    summarizer = get_summarizer("openai:refusing", base_url=refusing, api_key_env="", concurrency=8)
    report = summarize_inputs(summarizer, inputs, cache=SummaryCache(tmp_path / "c.sqlite"), on_wait=waits.append)
    assert len(report.summaries) == 40 and not report.failures
    assert sum(Refusing.refused.values()) > 0 and all(count == 1 for count in Refusing.answered.values())
    assert len(Refusing.answered) == 40
    # The notice names the longest wait under way: a 429's backoff overlapped by a 503's pause is told as the 503.
    assert any(text and re.search(r"HTTP (429 \(too many requests\)|503 \(.+\)): waiting \d+ s", text)
               for text in waits), waits
    assert waits[-1] is None  # the wait ends with the summarizing
    assert report.summaries[0].meta["usage"] == {"prompt_tokens": 50, "completion_tokens": 7}


def test_a_request_refused_beyond_its_patience_is_one_failure_to_resume(refusing, tmp_path):
    Refusing.window = 60.0
    Refusing.rng = random.Random(0)
    Refusing.rng.random = lambda: 0.0  # every request refused
    summarizer = get_summarizer("openai:refusing", base_url=refusing, api_key_env="", patience=1.5)
    report = summarize_inputs(summarizer, [Input(id="i0", original_id="d0", text="ARTICLE 0000")])
    assert not report.summaries
    assert report.failures[0].error.startswith(f"endpoint {refusing} answered HTTP ")
    assert "of waiting; run the audit again to send it again" in report.failures[0].error


def audit_command(tmp_path: Path, url: str, documents: int) -> list[str]:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({
        "id": f"doc-{k}", "text": f"Robert Moore said on Monday that he will not run again. ARTICLE {k:04d}"}) + "\n"
        for k in range(documents)))
    config = tmp_path / "audit.toml"
    config.write_text(f'name = "rate limits"\n[corpus]\npath = "{corpus}"\n[[perturbations]]\nkind = "identity"\n'
                      f'[[summarizers]]\nname = "openai:refusing"\nbase_url = "{url}"\napi_key_env = ""\n'
                      'concurrency = 4\n[measures]\nnames = ["distinguishability_count"]\nbootstrap = 100\n')
    return [sys.executable, "-m", "bias_core", "audit", "--config", str(config), "--store",
            str(tmp_path / "runs.sqlite"), "--cache", str(tmp_path / "cache.sqlite")]


def progress_waiting(store_path: Path) -> str | None:
    try:
        with sqlite3.connect(store_path, timeout=5) as connection:
            row = connection.execute("SELECT reports FROM runs").fetchone()
    except sqlite3.OperationalError:
        return None
    return ((json.loads(row[0]).get("progress") or {}).get("waiting")) if row else None


def test_an_audit_through_ten_seconds_of_refusals_stores_every_summary_once_and_shows_the_wait(refusing, tmp_path):
    """The issue's case: 30% of requests refused with 429 (or 503) for 10 s. Every summary is stored, no article is
    answered twice, the log and the run's progress (what the Audit page shows) name the wait, and running the audit
    again sends nothing."""
    Refusing.window = 10.0
    command = audit_command(tmp_path, refusing, documents=60)
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    shown: set[str] = set()
    while process.poll() is None:
        waiting = progress_waiting(tmp_path / "runs.sqlite")
        if waiting:
            shown.add(waiting)
        time.sleep(0.05)
    _, err = process.communicate()
    assert process.returncode == 0, err
    store = RunStore(tmp_path / "runs.sqlite")
    (run,) = store.list_runs()
    assert run.status == "completed" and len(store.summaries(run.id)) == 60 and not store.failures(run.id)
    assert sum(Refusing.refused.values()) >= 5
    assert len(Refusing.answered) == 60 and set(Refusing.answered.values()) == {1}
    assert any("answered HTTP 429 (too many requests): waiting" in text for text in shown), shown
    assert "waiting: the endpoint answered HTTP" in err  # the log's line (stderr is not a terminal here)
    assert progress_waiting(tmp_path / "runs.sqlite") is None  # nothing waits once the run is done
    # The tokens the endpoint reported (50 + 7 per answer), summed where Runs and the report read them.
    (usage,) = store.token_usage(run.id)
    assert (usage.summaries, usage.prompt_tokens, usage.completion_tokens) == (60, 3000, 420)
    assert "openai:refusing: 3 k prompt tokens, 420 completion tokens over 60 summaries" in html_report(store, run.id)
    answered = sum(Refusing.answered.values())
    again = subprocess.run(command, check=False, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert sum(Refusing.answered.values()) == answered  # every summary was stored: nothing is asked again
