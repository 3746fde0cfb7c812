"""The summary cache, the run store and the audit pipeline, including resuming an interrupted run."""

from __future__ import annotations

import time
from collections.abc import Sequence

import pytest

from bias_core.common.records import Input, MeasureResult, Summary
from bias_core.reference.demo import DEMO_NEWS
from bias_core.runs.config import AuditConfig, CorpusSpec, StageSpec
from bias_core.runs.pipeline import run_audit
from bias_core.runs.run_info import StoreError
from bias_core.runs.store import RunStore
from bias_core.summarize import SummaryCache, cache_key, get_summarizer, summarize_inputs
from bias_core.summarize.base import Summarizer, SummaryFailure, register


class CountingSummarizer(Summarizer):
    """Test double: returns the first word, counts calls, and can fail or be interrupted on a given call."""

    calls: list[list[str]] = []

    def __init__(self, interrupt_on_call: int = 0, fail_ids: Sequence[str] = (), tag: str = "v1"):
        self.name = "counting"
        self.interrupt_on_call = int(interrupt_on_call)
        self.fail_ids = tuple(fail_ids)
        self.tag = tag
        self.default_batch_size = 4

    def parameters(self):
        return {"tag": self.tag}

    def summarize_batch(self, inputs):
        CountingSummarizer.calls.append([item.id for item in inputs])
        if self.interrupt_on_call and len(CountingSummarizer.calls) == self.interrupt_on_call:
            raise KeyboardInterrupt
        return [SummaryFailure(item.id, self.name, "refused") if item.id in self.fail_ids
                else Summary(item.id, self.name, item.text.split()[0]) for item in inputs]


register(r"counting", "counting")(lambda match, params: CountingSummarizer(**params))


@pytest.fixture(autouse=True)
def reset_calls():
    CountingSummarizer.calls = []


def make_inputs(n: int) -> list[Input]:
    return [Input(id=f"i{k}", original_id=f"d{k}", text=f"Word{k} and more text {k}.") for k in range(n)]


def test_a_second_call_is_served_from_the_cache_in_milliseconds(tmp_path):
    cache = SummaryCache(tmp_path / "c.sqlite")
    inputs = make_inputs(10)
    first = summarize_inputs(get_summarizer("counting"), inputs, cache=cache)
    started = time.perf_counter()
    second = summarize_inputs(get_summarizer("counting"), inputs, cache=cache)
    elapsed = time.perf_counter() - started
    assert (first.computed, first.cache_hits) == (10, 0) and (second.computed, second.cache_hits) == (0, 10)
    assert [s.to_dict() for s in first.summaries] == [s.to_dict() for s in second.summaries]
    assert len(CountingSummarizer.calls) == 3 and elapsed < 0.5


def test_cache_hits_are_re_pointed_to_the_requesting_input(tmp_path):
    cache = SummaryCache(tmp_path / "c.sqlite")
    summarize_inputs(get_summarizer("counting"), make_inputs(1), cache=cache)
    same_text = [Input(id="other", original_id="x", text=make_inputs(1)[0].text)]
    report = summarize_inputs(get_summarizer("counting"), same_text, cache=cache)
    assert report.cache_hits == 1 and report.summaries[0].input_id == "other"


def test_failures_are_never_cached_and_are_retried(tmp_path):
    cache = SummaryCache(tmp_path / "c.sqlite")
    report = summarize_inputs(get_summarizer("counting", fail_ids=["i1"]), make_inputs(3), cache=cache)
    assert [f.input_id for f in report.failures] == ["i1"] and len(cache) == 2
    retry = summarize_inputs(get_summarizer("counting"), make_inputs(3), cache=cache)
    assert retry.cache_hits == 2 and retry.computed == 1 and not retry.failures


def test_cache_key_changes_with_every_determining_setting():
    item = make_inputs(1)[0]
    base = cache_key(get_summarizer("random-3", seed=0), item)
    assert cache_key(get_summarizer("random-3", seed=0), item) == base
    assert cache_key(get_summarizer("random-3", seed=1), item) != base
    assert cache_key(get_summarizer("random-4", seed=0), item) != base
    assert cache_key(get_summarizer("random-3", seed=0), Input(id="i0", original_id="d0", text="x")) != base
    lead = get_summarizer("lead-3")
    key = cache_key(lead, item)
    lead.code_version = "2"
    assert cache_key(lead, item) != key


def test_run_store_records_a_run_and_its_records_and_deletes_them(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = store.create_run({"a": 1}, "hash", {"seed": 0}, name="demo")
    store.update_run(run_id, status="running", stage="summarize", done=2, total=4, model_revisions={"m": "r1"})
    store.add_inputs(run_id, make_inputs(2))
    store.add_summaries(run_id, [Summary("i0", "lead-3", "x")])
    store.replace_measures(run_id, [MeasureResult("entity_inclusion", float("nan"), 0, reason="no entities")])
    info = store.get_run(run_id)
    assert (info.status, info.progress, info.model_revisions, info.name) == ("running", 0.5, {"m": "r1"}, "demo")
    assert [i.id for i in store.inputs(run_id)] == ["i0", "i1"]
    assert store.measures(run_id)[0].reason == "no entities"
    assert store.resumable_run("hash") == run_id
    store.delete_run(run_id)
    assert store.list_runs() == [] and store.inputs(run_id) == []
    with pytest.raises(StoreError, match="no run with id"):
        store.get_run(run_id)


def test_an_unwritable_store_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StoreError, match="cannot open the run store"):
        RunStore(blocker / "runs.sqlite")


def config(*summarizers: str | StageSpec) -> AuditConfig:
    specs = [s if isinstance(s, StageSpec) else StageSpec(s) for s in summarizers]
    return AuditConfig(corpus=CorpusSpec(str(DEMO_NEWS)), summarizers=specs)


def test_audit_records_documents_inputs_summaries_and_environment(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = run_audit(config("lead-3", "textrank"), store=store, cache=SummaryCache(tmp_path / "c.sqlite"))
    info = store.get_run(run_id)
    assert info.status == "completed" and info.progress_done == info.progress_total == 32
    assert len(store.documents(run_id)) == 16 and len(store.inputs(run_id)) == 16
    assert len(store.summaries(run_id, summarizer="lead-3")) == 16
    assert info.environment["packages"]["spacy"].startswith("3.8") and info.environment["seed"] == 0
    assert info.model_revisions == {"lead-3": "none", "textrank": "none"}


def test_an_interrupted_audit_resumes_without_recomputing_finished_batches(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    cache = SummaryCache(tmp_path / "c.sqlite")
    interrupted = config(StageSpec("counting", {"interrupt_on_call": 3}))
    with pytest.raises(KeyboardInterrupt):
        run_audit(interrupted, store=store, cache=cache)
    (run,) = store.list_runs()
    assert run.status == "interrupted" and len(store.summaries(run.id)) == 8
    computed_before = sum(len(call) for call in CountingSummarizer.calls[:2])
    CountingSummarizer.calls = []
    resumed_id = run_audit(interrupted, store=store, cache=cache)  # call 3 of this process is not reached again
    assert resumed_id == run.id and store.get_run(run.id).status == "completed"
    assert computed_before == 8 and sum(len(call) for call in CountingSummarizer.calls) == 8
    assert len(store.summaries(run.id)) == 16


def test_an_audit_with_failed_summaries_is_marked_failed_and_retries_only_those(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    cache = SummaryCache(tmp_path / "c.sqlite")
    failing = config(StageSpec("counting", {"fail_ids": ["news-02-sports-comets-overtime/identity"]}))
    run_id = run_audit(failing, store=store, cache=cache)
    info = store.get_run(run_id)
    assert info.status == "failed" and "1 summaries failed" in info.message
    assert len(store.failures(run_id)) == 1
    CountingSummarizer.calls = []
    assert run_audit(failing, store=store, cache=cache) == run_id
    assert sum(len(call) for call in CountingSummarizer.calls) == 1


def test_a_stored_config_rebuilds_the_same_config():
    original = config("lead-3", StageSpec("random-3", {"seed": 2}))
    assert AuditConfig.from_stored(original.to_dict()) == original
    assert AuditConfig.from_dict(original.to_file_dict()) == original


def test_an_exported_run_imports_into_another_store_unchanged(tmp_path):
    from bias_core.views.export import run_bundle

    source = RunStore(tmp_path / "a.sqlite")
    run_id = run_audit(config("lead-3"), store=source, cache=SummaryCache(tmp_path / "c.sqlite"))
    source.replace_measures(run_id, [MeasureResult("entity_inclusion", float("nan"), 0, reason="no entities")])
    bundle = run_bundle(source, run_id)
    target = RunStore(tmp_path / "b.sqlite")
    assert target.import_run(bundle) == run_id and target.has_run(run_id)
    assert run_bundle(target, run_id) == bundle


def test_an_audit_uses_the_empty_cache_it_is_given_not_the_default_one(tmp_path, monkeypatch):
    default = tmp_path / "default-cache.sqlite"
    monkeypatch.setenv("SUMMBIAS_CACHE", str(default))
    SummaryCache().put_many([])
    given = SummaryCache(tmp_path / "given.sqlite")
    run_audit(config("counting"), store=RunStore(tmp_path / "runs.sqlite"), cache=given)
    assert len(given) == 16 and len(SummaryCache(default)) == 0


def test_a_failing_store_write_stops_the_audit_with_a_message_and_loses_no_summary(tmp_path):
    import sqlite3

    class FailingStore(RunStore):
        def add_summaries(self, run_id, summaries):
            with self._transaction():
                raise sqlite3.OperationalError("disk I/O error")

    cache = SummaryCache(tmp_path / "c.sqlite")
    broken = FailingStore(tmp_path / "runs.sqlite")
    with pytest.raises(StoreError, match="writing to the run store .* failed: disk I/O error"):
        run_audit(config("counting"), store=broken, cache=cache)
    (run,) = broken.list_runs()
    assert run.status == "failed" and "disk I/O error" in run.message
    assert len(cache) == 4  # the batch finished before the failed write is cached
    CountingSummarizer.calls = []
    healthy = RunStore(tmp_path / "runs.sqlite")
    assert run_audit(config("counting"), store=healthy, cache=cache) == run.id
    assert sum(len(call) for call in CountingSummarizer.calls) == 12  # only the other 12 are computed
    assert healthy.get_run(run.id).status == "completed" and len(healthy.summaries(run.id)) == 16
