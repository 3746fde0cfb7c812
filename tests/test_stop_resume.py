"""Stopping and resuming are exact (issue 23, items 9-12): real `python -m bias_core audit` processes against a local
OpenAI-compatible server that counts and times every request.

Ctrl-C and SIGTERM stop within a second or two, send no further request and keep every summary answered before the
signal, in one line; Ctrl-C while the command line is still importing is one line too; a run whose worker's process
id now belongs to another process is shown stopped and resumable; two identical audits started together make each
summary once; the stored progress never counts more than the stored summaries.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from bias_core.cli import main
from bias_core.runs.store import RunStore
from tests.test_openai_summarizer import Endpoint
from tests.test_security_endpoints import serve

REPO = Path(__file__).resolve().parent.parent


class Counting(Endpoint):
    """A chat endpoint that takes ``delay`` seconds per answer and records when each request arrived and when each
    answer was sent."""

    delay = 0.6
    arrived: list[float] = []
    answered: list[float] = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with Endpoint.lock:
            Counting.arrived.append(time.monotonic())
        time.sleep(Counting.delay)
        content = "Summary: " + body["messages"][0]["content"][-60:]
        payload = {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                   "choices": [{"index": 0, "finish_reason": "stop",
                                "message": {"role": "assistant", "content": content}}]}
        try:
            self._send(200, json.dumps(payload).encode())
        except OSError:  # the client abandoned the request
            return
        with Endpoint.lock:
            Counting.answered.append(time.monotonic())


@pytest.fixture
def endpoint():
    Counting.arrived, Counting.answered = [], []
    server, url = serve(Counting)
    yield url + "/v1"
    server.shutdown()


def audit_files(tmp_path: Path, url: str, documents: int) -> list[str]:
    """A corpus of ``documents`` short articles, one identity perturbation and one endpoint summarizer (two requests
    at a time, batches of 8); returns the audit command."""
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({
        "id": f"doc-{k}", "text": f"Robert Moore, the mayor of town {k}, said on Monday that he will not run again. "
                                  f"He thanked the voters. Linda Chen praised his work in town {k}."}) + "\n"
        for k in range(documents)))
    config = tmp_path / "audit.toml"
    config.write_text(f'name = "stop test"\n[corpus]\npath = "{corpus}"\n[[perturbations]]\nkind = "identity"\n'
                      f'[[summarizers]]\nname = "openai:counted"\nbase_url = "{url}"\napi_key_env = ""\n'
                      'concurrency = 2\n[measures]\nnames = ["distinguishability_count"]\nbootstrap = 100\n')
    return [sys.executable, "-m", "bias_core", "audit", "--config", str(config), "--store",
            str(tmp_path / "runs.sqlite"), "--cache", str(tmp_path / "cache.sqlite"), "--quiet"]


def stored(store_path: Path) -> tuple[int, int, int]:
    """(progress_done, summaries, failures) of the one run, read in one snapshot; zeros before the run exists."""
    try:
        with sqlite3.connect(store_path, timeout=5) as connection:
            row = connection.execute(
                "SELECT progress_done, (SELECT COUNT(*) FROM summaries WHERE run_id = runs.id), "
                "(SELECT COUNT(*) FROM failures WHERE run_id = runs.id) FROM runs").fetchone()
    except sqlite3.OperationalError:  # not created yet
        return 0, 0, 0
    return tuple(row) if row else (0, 0, 0)


def wait_for_answers(process: subprocess.Popen, count: int, seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while len(Counting.answered) < count:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the endpoint was not called in time"
        time.sleep(0.01)


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_the_audit_at_once_keeping_every_answer_and_saying_so_in_one_line(tmp_path, endpoint, signum,
                                                                                          code):
    command = audit_files(tmp_path, endpoint, documents=12)
    audit = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_answers(audit, 4)
    # Mid-request: the next two requests have been in flight for a while and will not be answered before the signal.
    time.sleep(Counting.delay / 2)
    answered_before = len(Counting.answered)
    signalled = time.monotonic()
    audit.send_signal(signum)
    _, stderr = audit.communicate(timeout=60)
    seconds = time.monotonic() - signalled

    assert audit.returncode == code, stderr
    assert seconds < 2.0, f"took {seconds:.1f} s to stop"
    assert [t for t in Counting.arrived if t > signalled] == [], "requests were sent after the signal"
    store = RunStore(tmp_path / "runs.sqlite")
    (run,) = store.list_runs()
    assert len(store.summaries(run.id)) == answered_before >= 4, "an answer received before the signal was lost"
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert lines == [f"run {run.id} stopped: {answered_before} of 12 summaries saved; run the same command to "
                     "resume"], stderr
    assert run.status == "interrupted" and run.resumable and run.progress_done == answered_before
    assert run.message == f"stopped: {answered_before} of 12 summaries saved; run the same audit again to resume"

    arrived = len(Counting.arrived)
    resumed = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert store.get_run(run.id).status == "completed" and len(store.summaries(run.id)) == 12
    assert len(Counting.arrived) - arrived == 12 - answered_before, "a saved summary was asked for again"


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc to see where the import has got to")
def test_ctrl_c_while_the_command_line_is_still_importing_is_one_line(tmp_path):
    command = [sys.executable, "-m", "bias_core", "runs", "--store", str(tmp_path / "runs.sqlite")]
    # As a terminal starts it: Ctrl-C not ignored (a pytest-xdist worker ignores SIGINT, and a child inherits that,
    # so Python would never raise KeyboardInterrupt in it).
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    maps = Path(f"/proc/{process.pid}/maps")
    deadline = time.monotonic() + 30
    # numpy's core is loaded while the subcommands are imported, before any of them runs
    while "_multiarray_umath" not in maps.read_text():
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.002)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130
    assert stderr.splitlines() == ["interrupted before anything was done"]
    assert not (tmp_path / "runs.sqlite").exists()


def reused_pid_run(store: RunStore, live_pid: int) -> str:
    """A run stored as running whose worker died, where the worker's process id now belongs to ``live_pid``: the
    store as it is after the operating system gave the id of a worker that started an hour earlier (and was killed)
    to another process."""
    run_id = store.create_run({"name": "reused"}, "hash", {}, name="reused")
    store.update_run(run_id, status="running", stage="perturb", worker_pid=live_pid)
    worker = {"pid": live_pid, "started": psutil.Process(live_pid).create_time() - 3600}  # the dead worker's start
    with sqlite3.connect(store.path) as connection:
        reports = json.loads(connection.execute("SELECT reports FROM runs WHERE id = ?", (run_id,)).fetchone()[0])
        connection.execute("UPDATE runs SET reports = ? WHERE id = ?", (json.dumps({**reports, "worker": worker}),
                                                                        run_id))
    return run_id


@pytest.fixture
def live_process():
    sleeper = subprocess.Popen(["sleep", "300"])
    time.sleep(0.05)
    yield sleeper.pid
    sleeper.kill()
    sleeper.wait()


def test_a_dead_worker_whose_pid_now_belongs_to_another_process_is_shown_stopped_and_resumable(tmp_path, capsys,
                                                                                              live_process):
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = reused_pid_run(store, live_process)
    # written before start times were recorded: a process started after the run's last write cannot be its worker
    legacy = store.create_run({"name": "legacy"}, "hash2", {}, name="legacy")
    store.update_run(legacy, status="running", stage="summarize")
    with sqlite3.connect(store.path) as connection:
        connection.execute("UPDATE runs SET worker_pid = ?, updated = ? WHERE id = ?",
                           (live_process, psutil.Process(live_process).create_time() - 60, legacy))

    listed = {run.id: run for run in store.list_runs()}  # what the Runs page lists
    for stopped in (run_id, legacy):
        assert listed[stopped].shown_status == "stopped" and listed[stopped].resumable
    assert main(["runs", "--json", "--store", str(store.path)]) == 0
    shown = {row["id"]: row["status"] for row in json.loads(capsys.readouterr().out)}
    assert shown == {run_id: "stopped", legacy: "stopped"}

    worker = store.create_run({"name": "alive"}, "hash3", {}, name="alive")
    store.update_run(worker, status="running", worker_pid=live_process)  # the live process is this run's worker
    assert store.get_run(worker).shown_status == "running" and not store.get_run(worker).resumable


def test_the_runs_page_offers_resume_for_a_run_whose_worker_pid_was_reused(tmp_path, monkeypatch, live_process):
    from tests.conftest import open_app

    store = RunStore(tmp_path / "runs.sqlite")
    run_id = reused_pid_run(store, live_process)
    monkeypatch.setenv("SUMMBIAS_STORE", str(store.path))
    at = open_app("pages/runs.py")
    assert at.dataframe[0].value["status"].tolist() == ["stopped"]
    assert at.button(key=f"resume_{run_id}")


def test_two_identical_audits_started_together_ask_for_each_summary_once(tmp_path, endpoint):
    Counting.delay = 0.3
    try:
        command = audit_files(tmp_path, endpoint, documents=10)
        first, second = (subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          text=True) for _ in range(2))
        outcomes = [process.communicate(timeout=300) for process in (first, second)]
    finally:
        Counting.delay = 0.6
    codes = sorted([first.returncode, second.returncode])
    store = RunStore(tmp_path / "runs.sqlite")
    completed = [run for run in store.list_runs() if run.status == "completed"]
    assert completed and all(len(store.summaries(run.id)) == 10 for run in completed)
    assert len(Counting.arrived) == 10, f"{len(Counting.arrived)} endpoint calls for 10 summaries"
    if codes == [0, 2]:  # the second found the first working on the run and said so
        refused = next(err for (_, err), process in zip(outcomes, (first, second)) if process.returncode == 2)
        errors = [line for line in refused.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and "is already being worked on by process" in errors[0], refused
        assert "Traceback" not in refused
    else:  # it started after the first had finished: every summary came from the cache
        assert codes == [0, 0]


def test_stored_progress_never_counts_more_than_the_stored_summaries_even_after_kill_9(tmp_path, endpoint):
    Counting.delay = 0.3
    try:
        command = audit_files(tmp_path, endpoint, documents=12)
        audit = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        seen = []
        deadline = time.monotonic() + 180
        while len(Counting.answered) < 6:
            assert audit.poll() is None and time.monotonic() < deadline
            seen.append(stored(tmp_path / "runs.sqlite"))
            time.sleep(0.02)
        time.sleep(Counting.delay / 2)  # mid-request: the next answers are not sent yet
        answered_before = len(Counting.answered)
        os.kill(audit.pid, signal.SIGKILL)
        audit.communicate()
        seen.append(stored(tmp_path / "runs.sqlite"))
    finally:
        Counting.delay = 0.6
    assert max(done for done, _, _ in seen) > 0, "progress was never written"
    assert all(done <= summaries + failures for done, summaries, failures in seen), seen
    assert seen[-1][1] == answered_before, "answers received before the kill were not saved one by one"
