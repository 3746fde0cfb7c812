"""Audit page estimate and progress, and the "in progress: n of N" notice on Compare, Fightin' Words and Metrics
(AppTest): the numbers come from the store's throughput records and the worker's ``reports["progress"]``."""

from __future__ import annotations

import gzip
import json
import os
import time

import pytest

from bias_core.common.records import Summary
from bias_core.reference.demo import DEMO_RUN
from bias_core.runs.costs import this_machine
from bias_core.runs.store import RunStore
from tests.conftest import open_app


def plain(markdown: str) -> str:
    """Text as the page shows it: ``md_escape``'s backslashes removed."""
    return markdown.replace("\\", "")


def audit_page(summarizers: list[str], perturbations: list[str] | None = None):
    app = open_app("pages/corpus.py")  # with runs in the store the app opens on Overview
    app.radio(key="corpus_choice").set_value("Invented news articles").run()  # the 16 invented test articles
    app.switch_page("pages/audit.py").run()
    app.multiselect(key="audit_perturbations").set_value(perturbations or []).run()
    app.multiselect(key="audit_summarizers").set_value(summarizers).run()
    assert not app.exception, app.exception
    return app


def keep_throughput(summarizer: str, seconds: float) -> None:
    """A finished earlier run in the store that measured ``summarizer`` on this machine."""
    store = RunStore()
    machine = this_machine()
    run_id = store.create_run({"k": 1}, "earlier", {}, name="earlier")
    store.set_reports(run_id, {"throughput": {summarizer: {
        "summarizer": summarizer, "seconds_per_summary": seconds, "summaries": 40, "hostname": machine.hostname,
        "cores": machine.cores, "revision": "none", "recorded": time.time()}}})
    store.update_run(run_id, status="completed")


def test_estimate_without_earlier_runs_is_a_default_guess_and_says_so():
    app = audit_page(["lead-3"])
    assert app.info[0].value.startswith("Estimate: 16 inputs × 1 summarizer = **16 summaries**")
    assert any("lead-3: no measurement on this machine yet, default guess" in plain(c.value) for c in app.caption)


def test_estimate_uses_earlier_runs_of_the_summarizer_on_this_machine_as_a_range():
    keep_throughput("lead-3", 0.5)
    app = audit_page(["lead-3"])
    # 16 inputs at 0.5 s, widened by 1.25 each way: 6.4 s to 10 s; the whole audit adds building the inputs and
    # computing the measures, each with its own line.
    assert "making the summaries 6–10 s, computing the measures" in app.info[0].value
    assert "the whole audit takes **" in app.info[0].value
    assert any(" — measure: modelled " in plain(c.value) for c in app.caption)
    assert any(plain(c.value).startswith("6–10 s — lead-3: from 1 earlier run on this machine (0.5 s per summary)")
               for c in app.caption)


def test_cached_smollm2_summaries_are_free_in_the_estimate():
    from bias_core.documents.corpus import load_documents
    from bias_core.reference.demo import DEMO_NEWS
    from bias_core.runs.config import AuditConfig, CorpusSpec, StageSpec
    from bias_core.runs.pipeline import build_inputs
    from bias_core.summarize import SummaryCache, cache_key, get_summarizer

    smollm2 = get_summarizer("smollm2")
    inputs, _ = build_inputs(load_documents(DEMO_NEWS), AuditConfig(CorpusSpec("x"), [StageSpec("smollm2")]))
    SummaryCache().put_many([(cache_key(smollm2, item), Summary(item.id, "smollm2", "cached."))
                             for item in inputs[:10]])
    app = audit_page(["smollm2"])
    assert "= **16 summaries** (10 already cached, free)" in app.info[0].value
    assert any("smollm2: no measurement on this machine yet, default guess (1.5–8.0 s per summary + " in plain(c.value)
               and "s loading); 10 cached" in plain(c.value) for c in app.caption)


def running_copy_of_the_demo_run(done: int = 300) -> str:
    """The demo run imported as a second run that a live worker (this test process) is still summarizing."""
    with gzip.open(DEMO_RUN, "rt", encoding="utf-8") as stream:
        bundle = json.load(stream)
    bundle["run"] |= {"id": "20990101-000000-live00", "name": "live audit", "created": time.time() + 10}
    store = RunStore()
    run_id = store.import_run(bundle)
    now = time.time()
    store.update_run(run_id, status="running", stage="summarize", done=done, total=876, worker_pid=os.getpid())
    store.set_reports(run_id, {"progress": {
        "started": now - 125, "updated": now, "stage": "summarize (smollm2)", "done": done, "total": 876,
        "remaining_low": 600.0, "remaining_high": 900.0, "basis": "smollm2: from 80 summaries so far in this run"}})
    return run_id


def test_progress_shows_n_of_n_summaries_stage_elapsed_and_the_remaining_range():
    run_id = running_copy_of_the_demo_run()
    app = audit_page(["lead-3"])
    app.session_state["launched_run"] = run_id
    app.run()
    assert not app.exception, app.exception
    texts = [plain(caption.value) for caption in app.caption]
    assert any(text.startswith("elapsed 2 min, remaining 10–15 min (smollm2: from 80 summaries so far in this run)")
               for text in texts), texts
    bar = app.get("progress")[0]
    assert "live audit: 300 of 876 summaries · summarize" in bar.proto.text


def test_the_audit_page_shows_what_the_run_waits_on_while_its_endpoint_refuses():
    run_id = running_copy_of_the_demo_run()
    store = RunStore()
    progress = store.get_run(run_id).reports["progress"]
    waiting = "the endpoint answered HTTP 429 (too many requests): waiting 4 s; 8 of 16 requests at a time; 3 " \
              "refusals so far"
    store.set_reports(run_id, {"progress": {**progress, "waiting": waiting}})
    app = audit_page(["lead-3"])
    app.session_state["launched_run"] = run_id
    app.run()
    assert not app.exception, app.exception
    assert [plain(warning.value) for warning in app.warning if "HTTP 429" in warning.value] == [f"Waiting: {waiting}"]
    store.set_reports(run_id, {"progress": progress})  # the wait is over
    app.run()
    assert not [warning for warning in app.warning if "HTTP 429" in warning.value]


@pytest.mark.parametrize("page", ["pages/compare.py", "pages/fightin_words.py", "pages/metrics.py"])
def test_result_pages_say_in_progress_n_of_n_on_an_unfinished_run(page):
    running_copy_of_the_demo_run(done=412)
    app = open_app(page)
    assert plain(app.info[0].value).startswith("In progress: 412 of 876 summaries (summarize).")


@pytest.mark.parametrize("page", ["pages/compare.py", "pages/metrics.py"])
def test_a_stopped_run_is_called_unfinished_and_a_completed_one_gets_no_notice(page):
    run_id = running_copy_of_the_demo_run(done=412)
    RunStore().update_run(run_id, status="interrupted")
    app = open_app(page)
    assert plain(app.warning[0].value).startswith("Unfinished run (interrupted): 412 of 876 summaries.")
    RunStore().update_run(run_id, status="completed", done=876)
    app = open_app(page)
    assert not any("In progress" in box.value or "Unfinished run" in box.value for box in [*app.info, *app.warning])


def test_run_audit_is_disabled_while_the_run_started_from_the_page_goes_on():
    run_id = running_copy_of_the_demo_run()
    app = audit_page(["lead-3"])
    app.session_state["launched_run"] = run_id
    app.run()
    assert app.button(key="audit_run").disabled
    assert any("Run audit is available again when it ends" in c.value for c in app.caption)
    RunStore().update_run(run_id, status="completed", done=876)
    app.run()
    assert not app.button(key="audit_run").disabled


def test_a_finished_run_links_to_the_overview_and_every_result_page():
    run_id = running_copy_of_the_demo_run()
    RunStore().update_run(run_id, status="completed", done=876)
    app = audit_page(["lead-3"])
    app.session_state["launched_run"] = run_id
    app.run()
    links = [link.proto.label for link in app.get("page_link")]
    assert links[:4] == ["Overview", "Compare", "Fightin' Words", "Metrics"]
