"""Estimates as ranges with their basis (earlier runs on this machine, this run so far, or a default guess), progress
per summary from the runner and the engines, and the audit's throughput records and throttled progress writes."""

from __future__ import annotations

import time

import pytest

from bias_core.common.records import Document, Input, Summary
from bias_core.runs.config import AuditConfig, CorpusSpec, StageSpec
from bias_core.runs.costs import (
    DEFAULT_LOAD_SECONDS,
    DEFAULT_SECONDS,
    MEASURE_COSTS,
    MODEL_LOADS,
    Machine,
    audit_work,
    modelled_seconds,
    this_machine,
)
from bias_core.runs.estimate import (
    DEFAULT_STAGE_RANGE,
    HISTORY_MARGIN,
    STAGE_MARGIN,
    Estimate,
    ThroughputRecord,
    combine,
    estimate_audit,
    estimate_before,
    estimate_stage,
    format_duration,
    format_range,
    load_factor,
    stage_record,
)
from bias_core.runs.meter import ThroughputMeter, block_rates, estimate_during
from bias_core.runs.pipeline import run_audit
from bias_core.runs.progress import estimates_before_run, throughput_history
from bias_core.runs.store import RunStore
from bias_core.summarize import SummaryCache, get_summarizer, summarize_inputs
from bias_core.summarize.base import Summarizer, SummaryFailure, register
from bias_core.summarize.runner import count_cached

HERE = Machine("analyst-box", 2)


def record(seconds: float, *, machine: Machine = HERE, summarizer: str = "smollm2", revision: str = "r1",
           recorded: float = 0.0) -> ThroughputRecord:
    return ThroughputRecord(summarizer, seconds, 40, machine.hostname, machine.cores, revision, "ctranslate2", 900.0,
                            1.5, "run", recorded)


def items(count: int, prefix: str = "i") -> list[Input]:
    return [Input(id=f"{prefix}{k}", original_id=f"d{k}", text=f"Word{k} said something on day {k}.")
            for k in range(count)]


# estimate before a run ---------------------------------------------------------------------------------------------

def test_earlier_runs_on_this_machine_give_the_range_of_their_rates_widened_for_load():
    history = [record(2.0, recorded=1), record(3.0, recorded=2), record(4.0, recorded=3)]
    estimate = estimate_before("smollm2", 100, history, HERE, "r1")
    assert estimate.low == pytest.approx(100 * 2.0 / HISTORY_MARGIN)
    assert estimate.high == pytest.approx(100 * 4.0 * HISTORY_MARGIN)
    assert estimate.basis == "smollm2: from 3 earlier runs on this machine (2.0–4.0 s per summary)"
    assert estimate.summaries == 100


def test_rates_from_another_machine_or_summarizer_are_not_used_and_the_default_guess_says_so():
    history = [record(0.1, machine=Machine("other-box", 2)), record(0.1, machine=Machine("analyst-box", 64)),
               record(0.1, summarizer="hf:bart")]
    estimate = estimate_before("smollm2", 10, history, HERE)
    low, high = DEFAULT_SECONDS["smollm2"]
    load_low, load_high = DEFAULT_LOAD_SECONDS["smollm2"]
    assert (estimate.low, estimate.high) == (pytest.approx(load_low + 10 * low), pytest.approx(load_high + 10 * high))
    assert "no measurement on this machine yet, default guess" in estimate.basis and "loading" in estimate.basis


def test_rates_of_the_same_revision_are_preferred_and_the_newest_ten_count():
    history = [record(9.0, revision="transformers"), *[record(1.0 + k / 10, recorded=k) for k in range(12)]]
    estimate = estimate_before("smollm2", 10, history, HERE, "r1")
    assert "from 10 earlier runs" in estimate.basis
    assert estimate.high == pytest.approx(10 * 2.1 * HISTORY_MARGIN)  # runs 2..11: the two oldest left out
    assert estimate.low == pytest.approx(10 * 1.2 / HISTORY_MARGIN)


def test_a_heavier_load_now_than_when_measured_stretches_the_range_upward():
    measured = ThroughputRecord("smollm2", 3.0, 40, HERE.hostname, HERE.cores, "r1", load_average=4.0)
    estimate = estimate_before("smollm2", 100, [measured], HERE, "r1", load_now=6.0)
    # Our work took 2 of the 4 runnable cores' worth then; now it would share with 6 more: (2 + 6) / 4 = 2× slower.
    assert estimate.low == pytest.approx(100 * 3.0 / HISTORY_MARGIN)
    assert estimate.high == pytest.approx(100 * 6.0 * HISTORY_MARGIN)
    assert "(3.0 s per summary, 6.0 s per summary at today's load 6.0)" in estimate.basis
    assert load_factor(4.0, 0.0, 2) == 0.5 and load_factor(None, 6.0, 2) == 1.0 and load_factor(1.0, 50.0, 2) == 4.0


def test_cached_summaries_are_free():
    estimate = estimate_before("smollm2", 0, [record(3.0)], HERE, cached=12)
    assert (estimate.low, estimate.high, estimate.summaries) == (0.0, 0.0, 0)
    assert estimate.basis == "smollm2: nothing to compute; 12 cached"
    assert estimate.describe() == "nothing left"


def test_combined_estimate_adds_the_ranges_and_names_each_basis():
    total = combine([Estimate(60, 120, "smollm2: from 2 earlier runs", 30), Estimate(1, 2, "lead-3: guess", 30),
                     Estimate(0, 0, "textrank: nothing to compute", 0)])
    assert (total.low, total.high, total.summaries) == (61, 122, 60)
    assert total.basis == "smollm2: from 2 earlier runs; lead-3: guess"


# estimate during a run ---------------------------------------------------------------------------------------------

def steady_completions(count: int, load: float, per_pair: float) -> list[float]:
    """Two replicas: after ``load`` seconds, pairs of summaries finish together every ``per_pair`` seconds."""
    return [load + per_pair * (k // 2 + 1) + 0.01 * (k % 2) for k in range(count)]


def test_the_rate_so_far_leaves_out_the_model_load_and_brackets_the_true_remaining_time():
    completions = steady_completions(20, load=8.0, per_pair=4.0)  # 2 s per summary once loaded
    estimate = estimate_during("smollm2", completions, completions[-1], remaining=50)
    assert estimate.low <= 50 * 2.0 <= estimate.high
    assert estimate.high < 50 * 2.0 * 1.5, "the load time must not be spread over the remaining summaries"
    assert estimate.basis.startswith("smollm2: from 20 summaries so far in this run")


def test_replicas_finishing_together_do_not_give_a_near_zero_rate():
    completions = steady_completions(12, load=1.0, per_pair=4.0)
    assert min(block_rates(completions)) > 1.0
    assert estimate_during("smollm2", completions, completions[-1], 10).low > 10 * 1.0


def test_a_stall_with_nothing_finished_raises_the_upper_end():
    completions = steady_completions(10, load=1.0, per_pair=2.0)
    flowing = estimate_during("smollm2", completions, completions[-1], 20)
    stalled = estimate_during("smollm2", completions, completions[-1] + 60, 20)
    assert stalled.high > 5 * flowing.high and stalled.low >= flowing.low


def test_the_range_narrows_as_more_summaries_are_measured():
    few = estimate_during("x", steady_completions(4, 0, 2.0), steady_completions(4, 0, 2.0)[-1], 100)
    many = estimate_during("x", steady_completions(100, 0, 2.0), steady_completions(100, 0, 2.0)[-1], 100)
    assert many.high / many.low < few.high / few.low


def test_meter_uses_history_until_its_first_summary_and_records_the_rate_with_the_load():
    meter = ThroughputMeter("smollm2", total=10)
    fallback = Estimate(1, 2, "from history", 10)
    meter.start(100.0, cached=4)
    assert meter.estimate(101.0, fallback) is fallback and meter.remaining() == 6
    for k in range(6):
        meter.finished(1, 102.0 + 2 * k)
    assert meter.done == 10 and meter.remaining() == 0
    kept = meter.record(112.0, HERE, "r1", "ctranslate2", 850.0, 1.7, "run-1", 5.0)
    assert kept.seconds_per_summary == pytest.approx(12.0 / 6) and kept.summaries == 6
    assert (kept.hostname, kept.cores, kept.revision, kept.load_average) == ("analyst-box", 2, "r1", 1.7)
    assert ThroughputRecord.from_dict(kept.to_dict()) == kept
    assert ThroughputMeter("lead-3", 3).record(1.0, HERE, "none", None, 0, None, None, 0) is None


@pytest.mark.parametrize(("low", "high", "text"), [
    (120, 240, "2–4 min"), (40, 130, "40 s – 2 min"), (3, 9, "3–9 s"), (170, 190, "about 3 min"),
    (3600, 5400, "1 h – 1 h 30 min"), (0, 0, "nothing left"), (0.01, 0.03, "under 1 s"),
    (0.1, 4, "4 s at most")])
def test_ranges_are_rounded_for_reading(low, high, text):
    assert format_range(low, high) == text


def test_durations_are_rounded_for_reading():
    assert [format_duration(s) for s in (0.2, 0.7, 59, 61, 4800)] == ["under 1 s", "1 s", "59 s", "1 min",
                                                                        "1 h 20 min"]


# per-summary progress from the runner ------------------------------------------------------------------------------

class OneByOne(Summarizer):
    """Test double: reports each input of a batch as finished, like the CTranslate2 engine."""

    def __init__(self, fail_ids: tuple[str, ...] = ()):
        self.name = "one-by-one"
        self.default_batch_size = 4
        self.fail_ids = fail_ids

    def parameters(self):
        return {}

    def summarize_batch(self, inputs):
        return [SummaryFailure(item.id, self.name, "no") if item.id in self.fail_ids
                else Summary(item.id, self.name, item.text.split()[0]) for item in inputs]

    def summarize_batch_reporting(self, inputs, on_finished):
        outcomes = []
        for item in inputs:
            outcomes.extend(self.summarize_batch([item]))
            on_finished(1)
        return outcomes


class WholeBatch(OneByOne):
    def summarize_batch_reporting(self, inputs, on_finished):
        return Summarizer.summarize_batch_reporting(self, inputs, on_finished)


def test_runner_reports_every_summary_of_an_engine_that_reports_single_inputs(tmp_path):
    calls = []
    report = summarize_inputs(OneByOne(), items(10), on_progress=lambda done, total: calls.append((done, total)))
    assert calls == [(k, 10) for k in range(11)]
    assert len(report.summaries) == 10


def test_runner_reports_per_batch_for_an_engine_that_cannot_and_counts_cache_hits_first(tmp_path):
    cache = SummaryCache(tmp_path / "c.sqlite")
    summarize_inputs(WholeBatch(), items(3), cache=cache)
    calls = []
    summarize_inputs(WholeBatch(), items(10), cache=cache, on_progress=lambda done, total: calls.append(done))
    assert calls == [3, 7, 10]  # 3 cached, then two batches of 4 and 3
    assert count_cached(WholeBatch(), items(10), cache) == 10


def test_a_failed_input_still_moves_progress_and_is_counted_once(tmp_path):
    calls = []
    report = summarize_inputs(OneByOne(fail_ids=("i2",)), items(5), on_progress=lambda d, t: calls.append(d))
    assert calls == [0, 1, 2, 3, 4, 5]
    assert [f.input_id for f in report.failures] == ["i2"]


@pytest.mark.slow
def test_ctranslate2_smollm2_reports_each_summary_and_writes_the_same_text():
    pytest.importorskip("ctranslate2")
    summarizer = get_summarizer("smollm2", max_new_tokens=12)
    docs = [Input(id="a", original_id="a", text="The mayor, Robert Moore, said he will not run again."),
            Input(id="b", original_id="b", text="A storm closed the coastal highway on Friday.")]
    finished, each = [], {}
    reported = summarizer.summarize_batch_reporting(
        docs, lambda count, outcomes=None: (finished.append(count), each.update(outcomes or {})))
    assert finished == [1, 1]
    assert [s.text for s in reported] == [s.text for s in summarizer.summarize_batch(docs)]
    assert [each[i].text for i in range(2)] == [s.text for s in reported], "each summary comes with its report"
    calls = []
    summarize_inputs(summarizer, docs, on_progress=lambda done, total: calls.append(done))
    assert calls == [0, 1, 2]


# the audit: throughput records and progress writes -----------------------------------------------------------------

register(r"one-by-one", "one-by-one")(lambda match, params: OneByOne())


def documents(count: int) -> list[Document]:
    return [Document(id=f"d{k}", text=f"Robert Moore spoke on day {k}. He said it went well.") for k in range(count)]


def config(*names: str) -> AuditConfig:
    return AuditConfig(corpus=CorpusSpec("inline"), summarizers=[StageSpec(name) for name in names],
                       measures=["summary_similarity"], bootstrap=200)


def test_audit_keeps_each_summarizers_throughput_and_the_next_estimate_is_based_on_it(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    cache = SummaryCache(tmp_path / "c.sqlite")
    run_id = run_audit(config("lead-3", "one-by-one"), store=store, cache=cache, documents=documents(6))
    info = store.get_run(run_id)
    kept = info.reports["throughput"]
    assert {name for name in kept if not name.startswith("stage:")} == {"lead-3", "one-by-one"}
    machine = this_machine()
    assert kept["one-by-one"]["summaries"] == 6 and kept["one-by-one"]["hostname"] == machine.hostname
    assert kept["one-by-one"]["cores"] == machine.cores and kept["one-by-one"]["seconds_per_summary"] > 0
    progress = info.reports["progress"]
    assert (progress["done"], progress["total"], progress["remaining_high"]) == (12, 12, 0)
    history = throughput_history(store)
    fresh = estimates_before_run([OneByOne()], items(5, prefix="new"), history, cache)[0]
    assert fresh.basis.startswith("one-by-one: from 1 earlier run on this machine")
    cached = estimates_before_run([get_summarizer("lead-3")], store.inputs(run_id), history, cache)[0]
    assert cached.summaries == 0 and "6 cached" in cached.basis


def test_progress_reaches_the_store_throttled_with_the_final_count_always_written(tmp_path, monkeypatch):
    store = RunStore(tmp_path / "runs.sqlite")
    writes: list[int] = []
    original = RunStore.set_progress

    def counting(self, run_id, done, progress):
        writes.append(done)
        return original(self, run_id, done, progress)

    monkeypatch.setattr(RunStore, "set_progress", counting)
    heard: list[int] = []
    run_id = run_audit(config("one-by-one"), store=store, cache=SummaryCache(tmp_path / "c.sqlite"),
                       documents=documents(200), on_progress=lambda stage, done, total: heard.append(done))
    assert heard == list(range(201)), "the callback hears every summary"
    assert writes[-1] == 200 and len(writes) < 20, "the store is written at most every 0.5 s and at the end"
    assert store.get_run(run_id).progress_done == 200


def test_ctranslate2_results_are_reported_as_they_finish_not_held_back_by_a_slower_first_one():
    from bias_core.summarize.ct2 import _collect_reporting

    class Pending:
        """Stands for a CTranslate2 AsyncGenerationResult that finishes ``after`` seconds from now."""

        def __init__(self, name: str, after: float):
            self.name, self.ready_at = name, time.monotonic() + after

        def done(self) -> bool:
            return time.monotonic() >= self.ready_at

        def result(self) -> str:
            return self.name

    pending = [Pending("slow", 0.6), Pending("fast", 0.0), Pending("middle", 0.2)]
    reported: list[float] = []
    results = _collect_reporting(pending, lambda count: reported.append(time.monotonic()))
    assert results == ["slow", "fast", "middle"], "results stay in input order"
    assert len(reported) == 3 and reported[2] - reported[0] > 0.4, "the fast ones were reported before the slow one"


@pytest.mark.parametrize("model", ["tiny_llama_dir", "tiny_bart_dir"])
def test_transformers_batches_report_every_row_and_write_the_same_text(model, request):
    summarizer = get_summarizer(f"hf:{request.getfixturevalue(model)}", max_new_tokens=12, batch_size=3)
    docs = items(3)
    finished: list[int] = []
    reported = summarizer.summarize_batch_reporting(docs, finished.append)
    assert sum(finished) == 3 and all(count >= 1 for count in finished)
    assert [s.text for s in reported] == [s.text for s in summarizer.summarize_batch(docs)]


def test_a_row_that_ends_early_is_reported_before_the_batch_ends():
    import torch

    from bias_core.summarize.hf import FinishedRows

    finished: list[int] = []
    watch = FinishedRows(start=2, stops={9}, on_finished=finished.append, rows=2)
    step = torch.tensor([[5, 5, 9, 0], [5, 5, 3, 4]])  # row 0 (after its 2 prompt tokens) has ended, row 1 has not
    assert not watch(step, None).any(), "it never stops the batch"
    assert finished == [1]
    watch(step, None)
    assert finished == [1], "a row is reported once"
    watch.report_rest()
    assert finished == [1, 1]


# every stage of the audit: perturb, summarize, measure ------------------------------------------------------------

def review_inputs(samples: int = 2) -> list[Input]:
    from bias_core.documents.corpus import load_documents
    from bias_core.reference.demo import DEMO_REVIEWS
    from bias_core.runs.pipeline import build_inputs

    review_config = AuditConfig(corpus=CorpusSpec("reviews"), summarizers=[StageSpec("lead-3")],
                                perturbations=[StageSpec("identity"),
                                               StageSpec("sentiment", {"value_source": "stars", "samples": samples})])
    return build_inputs(load_documents(DEMO_REVIEWS), review_config)[0]


def test_a_review_audit_with_perspective_measures_is_estimated_longer_by_the_modelled_measure_cost():
    inputs = review_inputs()
    summarize = [Estimate(10.0, 20.0, "lead-3: from history", len(inputs))]
    perspective = ["bur", "uer", "auc", "sof"]
    with_measures = estimate_audit(audit_work(inputs, ["lead-3"], perspective), summarize, [], HERE)
    without = estimate_audit(audit_work(inputs, ["lead-3"], ["politician_features"]), summarize, [], HERE)
    # The perspective measures read every sentiment input and every unchanged set of units (identity).
    read = sum(item.perturbation == "sentiment" or bool(item.units) for item in inputs)
    cost = MEASURE_COSTS["perspective"]
    # spaCy is already loaded by lead-3's sentence splitting; importing scipy.stats is paid once, here.
    modelled = cost.fixed + cost.per_summary * read + MODEL_LOADS["scipy"]
    assert with_measures.measure.low == pytest.approx(modelled * DEFAULT_STAGE_RANGE[0])
    assert with_measures.measure.high == pytest.approx(modelled * DEFAULT_STAGE_RANGE[1])
    assert without.measure.high == 0 and "nothing to compute" in without.measure.basis
    assert with_measures.total.high - without.total.high == pytest.approx(modelled * DEFAULT_STAGE_RANGE[1])
    assert with_measures.total.low > 10.0 and "measure: modelled" in with_measures.total.basis


def test_the_measure_stage_grows_with_the_summaries_read_and_the_resamples_and_loads_each_model_once():
    few = audit_work(review_inputs(1), ["lead-3"], None)
    many = audit_work(review_inputs(3), ["lead-3", "textrank"], None)
    assert many.measure_summaries["perspective"] > few.measure_summaries["perspective"] > 0
    assert modelled_seconds(many)["measure"] > modelled_seconds(few)["measure"]
    assert modelled_seconds(audit_work(review_inputs(1), ["lead-3"], ["bur"], resamples=2000))["measure"] > \
        modelled_seconds(audit_work(review_inputs(1), ["lead-3"], ["bur"], resamples=200))["measure"]
    # A hosted summarizer loads no spaCy: the measure stage pays its load once, however many families need it.
    hosted = audit_work(review_inputs(1), ["openai:gpt"], ["bur", "mbic"])
    local = audit_work(review_inputs(1), ["lead-3"], ["bur", "mbic"])
    assert modelled_seconds(hosted)["measure"] - modelled_seconds(local)["measure"] == \
        pytest.approx(MODEL_LOADS["spacy"])


def test_earlier_runs_of_a_stage_scale_its_model_by_their_actual_to_modelled_ratio():
    slow = stage_record("measure", modelled=10.0, actual=30.0, machine=HERE, load_average=None, run_id="r",
                        recorded=1.0)
    elsewhere = stage_record("measure", 10.0, 1.0, Machine("other", 8), None, "r2", 2.0)
    estimate = estimate_stage("measure", 4.0, [slow, elsewhere], HERE)
    assert estimate.low == pytest.approx(4.0 * 3.0 / STAGE_MARGIN)
    assert estimate.high == pytest.approx(4.0 * 3.0 * STAGE_MARGIN)
    assert "1 earlier run on this machine" in estimate.basis
    assert stage_record("perturb", 0.03, 0.01, HERE, None, "r", 1.0) is None, "too short to say anything"


def test_a_summarizers_model_load_is_counted_once_not_spread_over_every_summary():
    loaded = ThroughputRecord("smollm2", (20.0 + 9 * 2.0) / 10, 10, HERE.hostname, HERE.cores, first_seconds=20.0)
    assert loaded.seconds_for(100) == pytest.approx(20.0 + 99 * 2.0)
    estimate = estimate_before("smollm2", 100, [loaded], HERE)
    assert estimate.low <= 20.0 + 99 * 2.0 <= estimate.high
    assert estimate.high < 100 * loaded.seconds_per_summary, "the load must not be paid per summary"
    fresh = estimate_before("lead-3", 10, [], HERE, loads_spacy=True)
    assert fresh.low >= 2.5 and "loading" in fresh.basis
    # A first lead-3 summary that loaded spaCy (a review run) says little about a news run whose parse loaded it.
    splitter = ThroughputRecord("lead-3", (6.0 + 9 * 0.01) / 10, 10, HERE.hostname, HERE.cores, first_seconds=6.0,
                                loaded_spacy=True)
    assert splitter.seconds_for(20, loads_spacy=False) == pytest.approx(20 * 0.01)
    assert splitter.seconds_for(20, loads_spacy=True) == pytest.approx(6.0 + 19 * 0.01)


def batched_completions(count: int, load: float, batch: int, per_summary: float) -> list[float]:
    """A batched engine: after ``load`` seconds, ``batch`` summaries finish together every batch × per_summary s."""
    return [load + per_summary * batch * (k // batch + 1) + 0.01 * (k % batch) for k in range(count)]


def test_the_projected_total_stays_steady_while_batches_finish_together():
    total, per_summary = 96, 3.0
    completions = batched_completions(total, load=20.0, batch=8, per_summary=per_summary)
    prior = Estimate(total * 2.0, total * 4.5, "smollm2: from 1 earlier run", total)
    lows, highs = [], []
    # The worker writes progress at most every 0.5 s, after a batch's summaries (0.07 s apart) have all finished.
    for done in range(8, total, 8):
        now = completions[done - 1]
        remaining = estimate_during("smollm2", completions[:done], now, total - done, prior)
        lows.append(now + remaining.low)
        highs.append(now + remaining.high)
    actual = completions[-1]
    assert max(lows) <= actual * 1.05 and min(highs) >= actual * 0.95
    first_batch = estimate_during("smollm2", completions[:8], completions[7], total - 8, prior)
    assert (first_batch.low, first_batch.high) == (pytest.approx((total - 8) * 2.0), pytest.approx((total - 8) * 4.5))
    assert first_batch.basis.startswith("smollm2: from 8 summaries so far in this run, no steady rate yet: the "
                                        "estimate before the run (from 1 earlier run)")
    assert max(highs) / min(highs) < 2.5 and max(lows) / min(lows) < 2.5, "no 4× swing"


def test_the_audit_adds_the_measure_stage_to_the_remaining_time_and_keeps_each_stages_time(tmp_path, monkeypatch):
    from bias_core.documents.corpus import load_documents
    from bias_core.reference.demo import DEMO_REVIEWS

    store = RunStore(tmp_path / "runs.sqlite")
    written: list[dict] = []
    original = RunStore.set_progress

    def keeping(self, run_id, done, progress):
        written.append(dict(progress))
        return original(self, run_id, done, progress)

    monkeypatch.setattr(RunStore, "set_progress", keeping)
    reviews = AuditConfig(corpus=CorpusSpec("reviews"), summarizers=[StageSpec("lead-3")],
                          perturbations=[StageSpec("identity"),
                                         StageSpec("sentiment", {"value_source": "stars", "samples": 1})],
                          measures=["bur", "sfpi"], bootstrap=200)
    run_id = run_audit(reviews, store=store, cache=SummaryCache(tmp_path / "c.sqlite"),
                       documents=load_documents(DEMO_REVIEWS))
    measuring = [p for p in written if p["stage"] == "measure"]
    summarizing = [p for p in written if p["stage"].startswith("summarize")]
    assert len(measuring) == 1 and measuring[0]["remaining_high"] > 0 and "measure: modelled" in measuring[0]["basis"]
    assert all(p["remaining_high"] >= measuring[0]["remaining_high"] for p in summarizing), \
        "while summarizing, the measure stage still to come is part of the remaining time"
    assert written[-1]["stage"] == "done" and written[-1]["remaining_high"] == 0
    kept = store.get_run(run_id).reports["throughput"]
    assert kept["stage:measure"]["summaries"] == 1 and kept["stage:measure"]["seconds_per_summary"] > 0
    assert kept["lead-3"]["first_seconds"] is not None
    later = estimate_stage("measure", 1.0, throughput_history(store), this_machine())
    assert "1 earlier run on this machine" in later.basis
