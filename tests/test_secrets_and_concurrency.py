"""API keys never leave the environment; several processes write one store without "database is locked"."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import threading
from http.server import ThreadingHTTPServer

import pytest

from bias_core.common.records import Input, Summary
from bias_core.runs.config import AuditConfig, CorpusSpec, StageSpec
from bias_core.runs.pipeline import run_audit
from bias_core.runs.store import RunStore
from bias_core.summarize import SummaryCache
from bias_core.views.export import html_report, measures_csv, run_json, summaries_csv
from tests.test_openai_summarizer import SECRET, Endpoint


@pytest.fixture
def endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Endpoint)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()


def test_the_api_key_appears_in_no_store_cache_export_log_or_message(endpoint, tmp_path, demo_news, monkeypatch,
                                                                      caplog):
    monkeypatch.setenv("SUMMBIAS_TEST_KEY", SECRET)
    caplog.set_level("DEBUG")
    store, cache = RunStore(tmp_path / "runs.sqlite"), SummaryCache(tmp_path / "cache.sqlite")
    params = {"base_url": endpoint, "api_key_env": "SUMMBIAS_TEST_KEY", "retries": 0}
    config = AuditConfig(corpus=CorpusSpec("demo"), summarizers=[StageSpec("openai:ok", params),
                                                                  StageSpec("openai:broken", params)],
                         measures=["mbic"], bootstrap=20)
    run_id = run_audit(config, store=store, cache=cache, documents=demo_news[:2])
    info = store.get_run(run_id)
    assert len(store.summaries(run_id)) == 2 and len(store.failures(run_id)) == 2  # the 500s are recorded
    store.close()
    cache.close()
    store = RunStore(tmp_path / "runs.sqlite")
    texts = {
        "store": b"".join(p.read_bytes() for p in tmp_path.glob("runs.sqlite*")).decode("latin-1"),
        "cache": b"".join(p.read_bytes() for p in tmp_path.glob("cache.sqlite*")).decode("latin-1"),
        "json export": run_json(store, run_id), "html report": html_report(store, run_id),
        "csv": measures_csv(store.measures(run_id)) + summaries_csv(store, run_id),
        "failures": " ".join(error for _, _, error in store.failures(run_id)),
        "run message": info.message or "", "logs": caplog.text,
    }
    for where, text in texts.items():
        assert SECRET not in text, f"the API key leaked into the {where}"
    assert "SUMMBIAS_TEST_KEY" in texts["json export"]  # the variable's name is recorded, the key is not


def _write_many(path: str, writer: int, count: int) -> None:
    store = RunStore(path)
    run_id = store.create_run({"writer": writer}, f"hash-{writer}", {"seed": writer})
    for batch in range(count):
        store.add_inputs(run_id, [Input(id=f"w{writer}-{batch}", original_id="d", text="x")])
        store.add_summaries(run_id, [Summary(f"w{writer}-{batch}", "lead-3", f"summary {batch}")])
        store.update_run(run_id, done=batch + 1, total=count)
    store.update_run(run_id, status="completed")


def test_four_processes_writing_one_store_at_once_lose_nothing(tmp_path):
    path = str(tmp_path / "runs.sqlite")
    RunStore(path).close()
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_write_many, args=(path, writer, 60)) for writer in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert [worker.exitcode for worker in workers] == [0, 0, 0, 0]
    store = RunStore(path)
    runs = store.list_runs()
    assert len(runs) == 4 and {run.status for run in runs} == {"completed"}
    assert sorted(len(store.summaries(run.id)) for run in runs) == [60, 60, 60, 60]
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_streamlit_secrets_become_environment_variables_for_summarizers(tmp_path, monkeypatch):
    from tests.conftest import REPO, open_app

    secrets = REPO / ".streamlit" / "secrets.toml"
    assert not secrets.exists(), "a real secrets file is in the repo folder; this test would overwrite it"
    monkeypatch.delenv("SUMMBIAS_SECRET_TEST_KEY", raising=False)
    secrets.write_text(f'SUMMBIAS_SECRET_TEST_KEY = "{SECRET}"\n')
    try:
        open_app()
        assert os.environ.get("SUMMBIAS_SECRET_TEST_KEY") == SECRET
    finally:
        secrets.unlink()
        os.environ.pop("SUMMBIAS_SECRET_TEST_KEY", None)
