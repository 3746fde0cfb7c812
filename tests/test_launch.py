"""An audit started from the app runs in its own process on the run the app created, and reports progress."""

from __future__ import annotations

import time

from bias_core.runs.config import AuditConfig, CorpusSpec, StageSpec
from bias_core.runs.launch import launch_audit
from bias_core.runs.store import RunStore


def test_a_launched_audit_completes_in_a_worker_process_on_the_same_run(tmp_path, demo_news):
    store = RunStore(tmp_path / "runs.sqlite")
    config = AuditConfig(corpus=CorpusSpec("uploaded"), summarizers=[StageSpec("lead-3"),
                                                                      StageSpec("random-3", {"seed": 4})],
                         name="from the app")
    run_id = launch_audit(config, demo_news[:3], store, cache_path=tmp_path / "cache.sqlite")
    assert store.get_run(run_id).status == "running"
    deadline = time.time() + 120
    while time.time() < deadline and store.get_run(run_id).status == "running":
        time.sleep(0.5)
    info = store.get_run(run_id)
    log = (tmp_path / "logs" / f"{run_id}.log").read_text()
    assert info.status == "completed", log
    assert [run.id for run in store.list_runs()] == [run_id]
    assert info.progress_done == info.progress_total == 6
    assert len(store.summaries(run_id)) == 6
    while time.time() < deadline and store.get_run(run_id).worker_alive:
        time.sleep(0.2)
    assert not store.get_run(run_id).worker_alive


def test_a_finished_worker_is_reaped_and_leaves_no_zombie_under_the_app(tmp_path, demo_news):
    import os

    store = RunStore(tmp_path / "runs.sqlite")
    config = AuditConfig(corpus=CorpusSpec("uploaded"), summarizers=[StageSpec("lead-3")], name="reaped")
    run_id = launch_audit(config, demo_news[:1], store, cache_path=tmp_path / "cache.sqlite")
    pid = store.get_run(run_id).worker_pid
    deadline = time.time() + 120
    while time.time() < deadline and store.get_run(run_id).status == "running":
        time.sleep(0.5)
    assert store.get_run(run_id).status == "completed"
    gone = False
    while time.time() < deadline and not gone:
        try:
            os.kill(pid, 0)  # succeeds for a live process and for a zombie no one has waited for
            time.sleep(0.2)
        except ProcessLookupError:
            gone = True
    assert gone, f"worker {pid} still exists after its run completed (a zombie?)"
