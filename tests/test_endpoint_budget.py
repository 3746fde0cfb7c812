"""A budget of endpoint requests or tokens stops a run cleanly, every answer kept, and a larger one resumes it
(issue 31, Deliver 3)."""

from __future__ import annotations

import html
import subprocess

import pytest

from bias_core.common.records import Input
from bias_core.runs.budget import Budget
from bias_core.runs.store import RunStore
from bias_core.summarize import SummaryCache, get_summarizer, summarize_inputs
from tests.conftest import launch_small_audit, open_app
from tests.test_endpoint_rate_limits import REPO, Refusing, audit_command
from tests.test_security_endpoints import serve

USAGE = {"prompt_tokens": 50, "completion_tokens": 7}  # what the test endpoint reports per answer


def test_a_request_budget_allows_what_is_left_and_says_when_it_is_spent():
    budget = Budget(requests=3)
    assert budget.allowed(10) == 3
    for _ in range(3):
        budget.spend(USAGE)
    assert budget.allowed(10) == 0
    assert budget.spent() == "the budget of 3 requests is spent (3 sent)"


def test_a_token_budget_sends_rounds_the_tokens_left_cover_at_the_largest_request_so_far():
    budget = Budget(tokens=300)
    assert budget.allowed(100) == 1  # nothing known of a request's size yet: one alone
    budget.spend(USAGE)
    assert budget.allowed(100) == (300 - 57) // 57 == 4
    for _ in range(4):
        budget.spend(USAGE)
    assert budget.allowed(100) == 1  # 15 tokens left: one more request, which may pass the budget by its own size
    budget.spend(USAGE)
    assert budget.allowed(100) == 0 and budget.used == 342
    assert budget.spent() == "the budget of 300 tokens is spent (342 reported by 6 requests)"


def test_a_failure_counts_as_a_request_without_tokens():
    budget = Budget(requests=2, tokens=1000)
    budget.spend(None)
    assert (budget.sent, budget.used, budget.allowed(5)) == (1, 0, 1)


@pytest.fixture
def endpoint():
    Refusing.first, Refusing.turn, Refusing.window = None, 0, 0.0  # answers every request
    Refusing.refused.clear()
    Refusing.answered.clear()
    server, url = serve(Refusing)
    yield url + "/v1"
    server.shutdown()


def test_summaries_beyond_the_budget_are_not_sent_and_neither_summaries_nor_failures(endpoint, tmp_path):
    inputs = [Input(id=f"i{k}", original_id=f"d{k}", text=f"ARTICLE {k:04d}") for k in range(12)]
    summarizer = get_summarizer("openai:budget", base_url=endpoint, api_key_env="", concurrency=4)
    report = summarize_inputs(summarizer, inputs, cache=SummaryCache(tmp_path / "c.sqlite"), limit=Budget(tokens=300))
    assert len(report.summaries) == 6 and not report.failures and len(report.not_sent) == 6
    assert sum(Refusing.answered.values()) == 6


def test_a_run_stopped_by_its_budget_resumes_with_a_larger_one_and_asks_for_nothing_twice(endpoint, tmp_path):
    command = audit_command(tmp_path, endpoint, documents=24)
    config = tmp_path / "audit.toml"
    config.write_text(config.read_text() + "[budget]\nrequests = 10\n")
    first = subprocess.run(command, check=False, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert first.returncode == 1, first.stderr
    store = RunStore(tmp_path / "runs.sqlite")
    (run,) = store.list_runs()
    assert run.status == "interrupted" and run.resumable and len(store.summaries(run.id)) == 10
    assert run.message == ("stopped: the budget of 10 requests is spent (10 sent); 14 summaries not yet requested — "
                           "run the audit again to resume (a larger [budget] goes further)")
    assert f"run {run.id}: interrupted — stopped: the budget of 10 requests is spent" in first.stderr
    assert "Traceback" not in first.stderr and not store.measures(run.id)  # stopped before measuring
    config.write_text(config.read_text().replace("requests = 10", "requests = 100"))
    second = subprocess.run(command, check=False, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr
    (again,) = store.list_runs()  # the same run, resumed: a budget is not part of what the audit is
    assert again.id == run.id and again.status == "completed" and len(store.summaries(run.id)) == 24
    assert sum(Refusing.answered.values()) == 24 and set(Refusing.answered.values()) == {1}
    assert again.reports["budget"] == {"limit": {"requests": 100}, "requests": 14, "tokens": 14 * 57}


def test_the_audit_page_states_the_requests_before_the_run_and_its_budget_stops_the_run(endpoint, tmp_path,
                                                                                         monkeypatch):
    (tmp_path / "endpoints.toml").write_text(f'[[endpoints]]\nname = "lab"\nbase_url = "{endpoint}"\n')
    monkeypatch.setenv("SUMMBIAS_ENDPOINTS", str(tmp_path / "endpoints.toml"))
    app = open_app("pages/corpus.py")
    app.radio(key="corpus_choice").set_value("Upload a file").run()
    app.file_uploader(key="corpus_upload").upload("two.jsonl", b'{"id": "a", "text": "ARTICLE 0001 was read."}\n'
                                                  b'{"id": "b", "text": "ARTICLE 0002 was read."}\n',
                                                  "application/jsonl").run()
    app.switch_page("pages/audit.py").run()
    app.multiselect(key="audit_perturbations").set_value([]).run()
    app.multiselect(key="audit_summarizers").set_value([]).run()
    app.text_input(key="audit_openai_model").set_value("ok").run()
    app.number_input(key="audit_budget_requests").set_value(1).run()
    assert not app.exception, app.exception
    shown = [html.unescape(caption.value).replace("\\", "") for caption in app.caption]  # as the page reads
    (asked,) = [text for text in shown if text.startswith("Endpoint openai:ok")]
    assert "up to 2 requests" in asked and "completion tokens (256 a request)" in asked
    store, info = launch_small_audit(app)
    assert info.status == "interrupted" and info.message.startswith("stopped: the budget of 1 request is spent")
    assert info.config["budget"] == {"requests": 1} and len(store.summaries(info.id)) == 1
    assert sum(Refusing.answered.values()) == 1


def test_audit_review_states_each_endpoints_requests_tokens_and_the_budget_before_anything_is_sent(endpoint,
                                                                                                    tmp_path):
    command = audit_command(tmp_path, endpoint, documents=24)
    config = tmp_path / "audit.toml"
    config.write_text(config.read_text() + "[budget]\nrequests = 10\ntokens = 2000000\n")
    review = subprocess.run([*command, "--review"], check=False, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert review.returncode == 0, review.stderr
    lines = review.stdout.splitlines()
    (asked,) = [line for line in lines if line.startswith("endpoint openai:refusing: up to 24 requests")]
    assert "prompt tokens (3–5 characters a token) and at most 6.14 k completion tokens (256 a request)" in asked
    assert "budget per go of the run: 10 requests, 2,000,000 tokens" in lines
    assert not Refusing.answered  # a review sends nothing
