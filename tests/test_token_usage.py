"""The tokens an endpoint reported, summed per run and summarizer for Runs, the Overview and the report (issue 31,
Deliver 3)."""

from __future__ import annotations

import gzip
import json

from bias_core.common.records import Input, Summary
from bias_core.reference.demo import DEMO_RUN
from bias_core.runs.store import RunStore
from bias_core.runs.usage import TokenUsage, token_usage, tokens, usage_line
from bias_core.summarize import SummaryCache, summarize_inputs
from bias_core.summarize.base import Summarizer
from tests.conftest import open_app


def summary(input_id: str, summarizer: str, usage=None) -> Summary:
    return Summary(input_id, summarizer, "A summary.", meta={} if usage is None else {"usage": usage})


def test_token_counts_read_as_a_reader_takes_them_in():
    assert [tokens(n) for n in (0, 950, 80_000, 12_345, 1_234_567, 2_000_000_000)] == [
        "0", "950", "80 k", "12.3 k", "1.23 M", "2 G"]


def test_usage_is_summed_per_summarizer_and_local_models_are_left_out():
    summaries = [summary("a", "openai:m", {"prompt_tokens": 600_000, "completion_tokens": 40_000}),
                 summary("b", "openai:m", {"prompt_tokens": 600_000, "completion_tokens": 40_000}),
                 summary("a", "openai:n", {"prompt_tokens": 10, "completion_tokens": True}),  # not a count
                 summary("a", "lead-3")]
    assert token_usage(summaries) == [TokenUsage("openai:m", 2, 1_200_000, 80_000), TokenUsage("openai:n", 1, 10, 0)]
    assert token_usage(summaries)[0].describe() == "1.2 M prompt tokens, 80 k completion tokens"
    assert usage_line(token_usage(summaries)) == (
        "Tokens the endpoints reported: openai:m: 1.2 M prompt tokens, 80 k completion tokens over 2 summaries; "
        "openai:n: 10 prompt tokens, 0 completion tokens over 1 summary.")
    assert usage_line(token_usage([summary("a", "lead-3")])) is None


def endpoint_copy_of_the_demo_run() -> str:
    """The demo run imported again, its lead-3 summaries relabelled as an endpoint's that reported their tokens."""
    with gzip.open(DEMO_RUN, "rt", encoding="utf-8") as stream:
        bundle = json.load(stream)
    bundle["run"] |= {"id": "20990101-000000-tokens", "name": "endpoint audit"}
    store = RunStore()
    run_id = store.import_run(bundle)
    lead = store.summaries(run_id, summarizer="lead-3")
    store.add_summaries(run_id, [Summary(s.input_id, "openai:<b>m</b>", s.text, meta={
        **s.meta, "usage": {"prompt_tokens": 1000, "completion_tokens": 90}}) for s in lead])
    return run_id


def test_the_store_sums_the_same_tokens_as_the_summaries_hold():
    run_id = endpoint_copy_of_the_demo_run()
    store = RunStore()
    assert store.token_usage(run_id) == token_usage(store.summaries(run_id))
    (usage,) = store.token_usage(run_id)
    assert usage.summarizer == "openai:<b>m</b>" and usage.prompt_tokens == 1000 * usage.summaries


def test_the_runs_table_and_the_overview_state_the_tokens_of_an_endpoint_run():
    run_id = endpoint_copy_of_the_demo_run()
    (usage,) = RunStore().token_usage(run_id)
    app = open_app("pages/runs.py")
    assert not app.exception, app.exception
    table = app.dataframe[0].value
    tokens_of = dict(zip(table["run"], table["tokens"]))
    assert tokens_of[run_id] == f"openai:<b>m</b>: {usage.describe()}"  # a plain table cell: never markup
    assert all(text == "" for run, text in tokens_of.items() if run != run_id)  # local models report none
    app.query_params["run"] = run_id
    app.switch_page("pages/overview.py").run()
    assert not app.exception, app.exception
    captions = [caption.value for caption in app.caption if "Tokens the endpoints reported" in caption.value]
    assert len(captions) == 1 and "openai:\\<b\\>m\\</b\\>" in captions[0]  # escaped: a model name is untrusted


class PaidSummarizer(Summarizer):
    """Test double for an endpoint that reports 100 prompt and 10 completion tokens per summary."""

    name = "openai:paid"
    default_batch_size = 8

    def parameters(self):
        return {"model": "paid"}

    def summarize_batch(self, inputs):
        return [Summary(item.id, self.name, "Short.", meta={"usage": {"prompt_tokens": 100, "completion_tokens": 10}})
                for item in inputs]


def test_summaries_read_from_the_cache_are_not_counted_as_tokens_the_run_spent(tmp_path):
    cache = SummaryCache(tmp_path / "cache.sqlite")
    inputs = [Input(id=f"i{k}", original_id=f"d{k}", text=f"Text number {k}.") for k in range(6)]
    first = summarize_inputs(PaidSummarizer(), inputs[:4], cache=cache)
    second = summarize_inputs(PaidSummarizer(), inputs, cache=cache)  # four read back, two requested
    assert token_usage(first.summaries) == [TokenUsage("openai:paid", 4, 400, 40)]
    assert token_usage(second.summaries) == [TokenUsage("openai:paid", 2, 200, 20, from_cache=4)]
    assert usage_line(token_usage(second.summaries)) == (
        "Tokens the endpoints reported: openai:paid: 200 prompt tokens, 20 completion tokens over 2 summaries "
        "(4 more read from the cache cost nothing this time).")
    hit = next(s for s in second.summaries if s.input_id == "i0")
    assert "usage" not in hit.meta and hit.meta["cached_usage"] == {"prompt_tokens": 100, "completion_tokens": 10}
    store = RunStore(tmp_path / "runs.sqlite")  # the store's sum in SQLite says the same
    run_id = store.create_run({}, "paid-audit", {}, name="paid")
    store.add_inputs(run_id, inputs)
    store.add_summaries(run_id, second.summaries)
    assert store.token_usage(run_id) == token_usage(second.summaries)
