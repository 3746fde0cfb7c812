"""The ``hf:`` path with tiny randomly initialised models, and the real ``smollm2`` default (METHODS §2)."""

from __future__ import annotations

import pytest

from bias_core.common.records import Input
from bias_core.safety.errors import SummarizerError
from bias_core.summarize import SummaryCache, get_summarizer, summarize_inputs
from bias_core.summarize.truncation import ends_sentence

SHORT = ("Robert Moore, the mayor of Springfield, said on Monday that he will not run again. "
         "His deputy, Linda Chen, is expected to run. She has served for six years.")


def inputs(*texts: str) -> list[Input]:
    return [Input(id=f"i{n}", original_id=f"d{n}", text=text) for n, text in enumerate(texts)]


def test_hf_seq2seq_model_from_a_local_folder_summarizes_a_batch_and_records_its_settings(tiny_bart_dir):
    summarizer = get_summarizer(f"hf:{tiny_bart_dir}", max_new_tokens=8)
    outcomes = summarizer.summarize(inputs(SHORT, "A second, shorter text."))
    assert [o.input_id for o in outcomes] == ["i0", "i1"]
    first = outcomes[0]
    assert isinstance(first.text, str) and first.summarizer == f"hf:{tiny_bart_dir}"
    assert first.meta["generation"]["max_new_tokens"] == 8
    assert first.meta["revision"] == summarizer.revision() and len(first.meta["revision"]) == 16
    assert first.meta["prompt_id"] is None  # seq2seq models read the article itself


def test_hf_causal_model_is_prompted_and_decodes_greedily(tiny_llama_dir):
    summarizer = get_summarizer(f"hf:{tiny_llama_dir}", max_new_tokens=6)
    first = summarizer.summarize(inputs(SHORT))[0]
    second = summarizer.summarize(inputs(SHORT))[0]
    assert first.text == second.text
    assert first.meta["prompt_id"].startswith("table15/")
    assert first.meta["generation"]["do_sample"] is False


def test_hf_batched_and_single_outputs_agree(tiny_bart_dir):
    summarizer = get_summarizer(f"hf:{tiny_bart_dir}", max_new_tokens=6)
    items = inputs(SHORT, "Another text about the council vote.", "A third one.")
    batched = [o.text for o in summarizer.summarize_batch(items)]
    single = [summarizer.summarize_batch([item])[0].text for item in items]
    assert batched == single


def test_a_model_that_cannot_be_loaded_is_reported_not_raised(tmp_path):
    summarizer = get_summarizer("hf:no-such-org/no-such-model")
    report = summarize_inputs(summarizer, inputs(SHORT), cache=SummaryCache(tmp_path / "c.sqlite"))
    assert report.summaries == [] and len(report.failures) == 1
    assert "could not load model 'no-such-org/no-such-model'" in report.failures[0].error


def test_a_corrupt_local_model_folder_gives_a_clear_error(tmp_path):
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(SummarizerError, match="could not load model"):
        get_summarizer(f"hf:{tmp_path}").summarize(inputs(SHORT))


@pytest.mark.slow
def test_smollm2_summarizes_offline_deterministically_and_loads_fast_after_conversion():
    import time

    summarizer = get_summarizer("smollm2", max_new_tokens=64)
    started = time.perf_counter()
    first = summarizer.summarize(inputs(SHORT))[0]
    assert first.text.strip(), "SmolLM2 produced an empty summary"
    assert first.meta["revision"].startswith("gguf-sha256:")
    assert first.meta["generation"]["do_sample"] is False and first.meta["prompt_id"].startswith("table15/")
    assert ends_sentence(first.text), "a generation must end with a complete sentence"
    again = get_summarizer("smollm2", max_new_tokens=64).summarize(inputs(SHORT))[0]
    assert again.text == first.text
    assert time.perf_counter() - started < 120


@pytest.mark.slow
def test_smollm2_cut_off_by_the_token_limit_keeps_no_unfinished_sentence():
    cut = get_summarizer("smollm2", max_new_tokens=6).summarize(inputs(SHORT))[0]
    assert cut.meta["truncated"] is True and cut.meta["dropped_tail"]
    assert cut.text == "" or ends_sentence(cut.text)
