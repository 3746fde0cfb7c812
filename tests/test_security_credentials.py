"""Credentials in a base URL (http://user:secret@host/v1?api-key=…) are redacted before anything is stored, logged,
shown or exported (issue 23): one function, bias_core.safety.redact.redact_url, at every place a URL goes."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from http.server import ThreadingHTTPServer

import pytest

from bias_core.runs.config import AuditConfig, CorpusSpec, StageSpec
from bias_core.runs.pipeline import run_audit
from bias_core.runs.store import RunStore
from bias_core.safety.errors import one_line
from bias_core.safety.redact import redact_url, redact_urls
from bias_core.summarize import SummaryCache
from bias_core.views.export import html_report, measures_csv, run_json, summaries_csv
from tests.conftest import REPO, open_app
from tests.test_openai_summarizer import Endpoint

PASSWORD = "pw-do-not-leak-77"
QUERY_KEY = "qk-do-not-leak-88"


@pytest.mark.parametrize(("url", "shown"), [
    ("http://user:secret@host/v1", "http://***@host/v1"),
    ("https://token@host:8443/v1", "https://***@host:8443/v1"),
    ("http://host/v1?api-key=abc&api-version=2024-06-01", "http://host/v1?api-key=***&api-version=2024-06-01"),
    ("http://host/v1?access_token=a;sig=b&page=2", "http://host/v1?access_token=***;sig=***&page=2"),
    ("http://host/v1#token=abc", "http://host/v1#token=***"),
    ("http://u:p?q@host/v1", "http://***@host/v1"),  # an unescaped "?" in the password
    ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),  # nothing to hide: unchanged
    ("http://[::1", "http://[::1"),  # malformed: still handled as text
    ("http://u:p@[::1", "http://***@[::1"),
])
def test_redact_url_hides_userinfo_and_key_like_parameters(url, shown):
    assert redact_url(url) == shown


def test_urls_in_a_message_and_in_an_error_line_are_redacted():
    text = f"endpoint http://me:{PASSWORD}@h/v1?key={QUERY_KEY} answered 500; see https://docs.example/x."
    assert redact_urls(text) == "endpoint http://***@h/v1?key=*** answered 500; see https://docs.example/x."
    assert PASSWORD not in one_line(ValueError(text)) and QUERY_KEY not in one_line(ValueError(text))


@pytest.fixture
def endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Endpoint)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://reader:{PASSWORD}@127.0.0.1:{server.server_port}/v1?api-key={QUERY_KEY}"
    server.shutdown()


def assert_clean(texts: dict[str, str]) -> None:
    for where, text in texts.items():
        assert PASSWORD not in text and QUERY_KEY not in text, f"a credential of the base URL leaked into {where}"


def test_credentials_reach_no_store_cache_export_report_or_failure_message(endpoint, tmp_path, demo_news):
    store, cache = RunStore(tmp_path / "runs.sqlite"), SummaryCache(tmp_path / "cache.sqlite")
    params = {"base_url": endpoint, "api_key_env": "", "retries": 0}
    config = AuditConfig(corpus=CorpusSpec("demo"), summarizers=[StageSpec("openai:ok", params),
                                                                  StageSpec("openai:broken", params)],
                         measures=["mbic"], bootstrap=20)
    run_id = run_audit(config, store=store, cache=cache, documents=demo_news[:2])
    assert len(store.summaries(run_id)) == 2 and len(store.failures(run_id)) == 2  # the endpoint was reached
    store.close()
    cache.close()
    store = RunStore(tmp_path / "runs.sqlite")
    failures = " ".join(error for _, _, error in store.failures(run_id))
    assert f"endpoint http://***@127.0.0.1:{endpoint.split(':')[-1].split('/')[0]}/v1?api-key=*** answered HTTP 500" \
        in failures
    assert store.get_run(run_id).config["summarizers"][0]["params"]["base_url"].startswith("http://***@127.0.0.1:")
    assert_clean({
        "store files": b"".join(p.read_bytes() for p in tmp_path.glob("runs.sqlite*")).decode("latin-1"),
        "cache files": b"".join(p.read_bytes() for p in tmp_path.glob("cache.sqlite*")).decode("latin-1"),
        "json export": run_json(store, run_id), "html report": html_report(store, run_id),
        "csv exports": measures_csv(store.measures(run_id)) + summaries_csv(store, run_id),
        "failure messages": failures, "summary meta": str([s.meta for s in store.summaries(run_id)]),
    })


def test_the_runs_page_shows_the_stored_config_without_credentials(endpoint, tmp_path, demo_news):
    params = {"base_url": endpoint, "api_key_env": "", "retries": 0}
    config = AuditConfig(corpus=CorpusSpec("demo"), summarizers=[StageSpec("openai:broken", params)],
                         measures=["mbic"], bootstrap=20)
    run_id = run_audit(config, store=RunStore(), cache=SummaryCache(), documents=demo_news[:1])
    app = open_app("pages/runs.py")
    app.selectbox(key="runs_selected").set_value(run_id).run()
    shown = " ".join(str(element.value) for element in [*app.json, *app.error, *app.info, *app.dataframe])
    assert "http://***@127.0.0.1" in shown
    assert_clean({"the Runs page": shown})


def test_the_command_lines_messages_and_log_carry_no_credentials(endpoint, tmp_path):
    (tmp_path / "audit.toml").write_text(f'''
[corpus]
path = "{REPO / 'data' / 'demo' / 'news.jsonl'}"
[[summarizers]]
name = "openai:broken"
base_url = "{endpoint}"
api_key_env = ""
retries = 0
[measures]
names = ["mbic"]
bootstrap = 20
''')
    env = {**os.environ, "SUMMBIAS_STORE": str(tmp_path / "runs.sqlite"), "SUMMBIAS_CACHE": str(tmp_path / "c.sqlite")}
    outputs = []
    for debug in ([], ["--debug"]):
        result = subprocess.run([sys.executable, "-m", "bias_core", *debug, "audit", "--config",
                                 str(tmp_path / "audit.toml")], cwd=REPO, capture_output=True, text=True, env=env,
                                timeout=300)
        outputs.append(result.stdout + result.stderr)
    # httpx logs each request only under --debug (a plain run prints no line per request), redacted there.
    assert "HTTP Request: POST" not in outputs[0]
    assert "HTTP Request: POST http://***@127.0.0.1" in outputs[1]
    assert "api-key=***" in outputs[1]
    assert_clean({"the command's output": outputs[0], "the --debug output": outputs[1]})
