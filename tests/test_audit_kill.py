"""Kill -9 a real audit process midway, start it again: it finishes on the same run, recomputes nothing that was
already summarized, and the store is intact."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from bias_core.runs.store import RunStore

REPO = Path(__file__).resolve().parent.parent


def test_an_audit_killed_with_sigkill_resumes_to_completion_without_recomputing(tmp_path):
    config = tmp_path / "audit.toml"
    config.write_text(f'name = "kill test"\n[corpus]\npath = "{REPO / "data/demo/news.jsonl"}"\n'
                      '[[perturbations]]\nkind = "gender-glob"\nsamples = 4\n'
                      '[[summarizers]]\nname = "textrank"\n[measures]\nnames = ["distinguishability_count"]\n'
                      'bootstrap = 100\n')
    store_path, cache_path = tmp_path / "runs.sqlite", tmp_path / "cache.sqlite"
    command = [sys.executable, "-m", "bias_core", "audit", "--config", str(config), "--store", str(store_path),
               "--cache", str(cache_path), "--quiet"]
    worker = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 180
    stored_before = 0
    while time.time() < deadline and worker.poll() is None:
        if store_path.exists():
            try:
                with sqlite3.connect(store_path, timeout=5) as connection:
                    stored_before = connection.execute("SELECT COUNT(*) FROM summaries").fetchone()[0]
            except sqlite3.OperationalError:
                pass
        if stored_before >= 64:
            break
        time.sleep(0.05)
    assert worker.poll() is None, "the audit finished before it could be killed; make it bigger"
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait()

    store = RunStore(store_path)
    (run,) = store.list_runs()
    assert run.status == "running" and not run.worker_alive
    with sqlite3.connect(store_path) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    stored_before = len(store.summaries(run.id))

    finished = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.strip() == run.id
    info = store.get_run(run.id)
    assert info.status == "completed"
    report = info.reports["summarize"]["textrank"]
    total = info.progress_total
    assert len(store.summaries(run.id)) == total
    assert report["computed"] <= total - stored_before
    assert report["computed"] + report["cache_hits"] + report["already_stored"] == total
    assert report["already_stored"] == stored_before
