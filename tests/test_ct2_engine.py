"""smollm2 on its default CTranslate2 engine (the real model, int8 on CPU) and on the transformers engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from bias_core.common.records import Input
from bias_core.safety.errors import SummarizerError
from bias_core.summarize import get_summarizer
from bias_core.summarize.cache import cache_key
from bias_core.summarize.ct2 import CTranslate2Summarizer, device_and_compute_type
from bias_core.summarize.smollm2 import converted_model_dir
from bias_core.summarize.truncation import ends_sentence

pytest.importorskip("ctranslate2")

SHORT = ("Robert Moore, the mayor of Springfield, said on Monday that he will not run again. "
         "His deputy, Linda Chen, is expected to run. She has served for six years.")
COUNCIL = ("The city council voted on Tuesday to close the old library on Main Street. Residents protested outside "
           "the hall, and the librarian, Maria Lopez, said she would ask the mayor to reconsider.")


def inputs(*texts: str) -> list[Input]:
    return [Input(id=f"i{n}", original_id=f"d{n}", text=text) for n, text in enumerate(texts)]


@pytest.mark.slow
def test_ct2_engine_summarizes_offline_deterministically_with_complete_sentences():
    first = get_summarizer("smollm2", max_new_tokens=40).summarize(inputs(SHORT, COUNCIL))
    again = get_summarizer("smollm2", max_new_tokens=40).summarize(inputs(SHORT, COUNCIL))
    assert [s.text for s in first] == [s.text for s in again]
    _, compute_type = device_and_compute_type()
    for summary in first:
        assert summary.text.strip(), "an empty summary"
        assert summary.meta["generation"]["engine"] == "ctranslate2"
        assert summary.meta["generation"]["compute_type"] == compute_type
        assert summary.meta["generation"]["do_sample"] is False and summary.meta["generation"]["num_beams"] == 1
        assert summary.meta["prompt_id"].startswith("table15/") and summary.meta["input_truncated"] is False
        assert summary.meta["revision"].endswith(f"+ctranslate2-{compute_type}")
        assert ends_sentence(summary.text) or (summary.meta["truncated"] and summary.meta["dropped_tail"])


@pytest.mark.slow
def test_ct2_summary_does_not_depend_on_the_other_inputs_of_its_batch():
    summarizer = get_summarizer("smollm2", max_new_tokens=24)
    items = inputs(SHORT, COUNCIL, "A storm closed the coastal highway on Friday. Crews expect to reopen it today.")
    batched = [summary.text for summary in summarizer.summarize_batch(items)]
    assert batched == [summarizer.summarize_batch([item])[0].text for item in items]


@pytest.mark.slow
def test_ct2_generation_cut_by_the_token_limit_keeps_no_unfinished_sentence():
    cut = get_summarizer("smollm2", max_new_tokens=6).summarize(inputs(SHORT))[0]
    assert cut.meta["truncated"] is True and cut.meta["dropped_tail"]
    assert cut.text == "" or ends_sentence(cut.text)


@pytest.mark.slow
def test_ct2_article_over_the_input_budget_is_cut_and_recorded():
    summary = get_summarizer("smollm2", max_new_tokens=8, max_input_tokens=16).summarize(inputs(SHORT))[0]
    assert summary.meta["input_truncated"] is True


@pytest.mark.slow
def test_engines_have_different_revisions_and_cache_keys_and_transformers_still_works():
    fast = get_summarizer("smollm2", max_new_tokens=8)
    reference = get_summarizer("smollm2", engine="transformers", max_new_tokens=8)
    item = inputs(SHORT)[0]
    assert fast.revision() != reference.revision()
    assert fast.revision().startswith(reference.revision() + "+ctranslate2-")
    assert cache_key(fast, item) != cache_key(reference, item)
    assert (fast.parameters()["engine"], reference.parameters()["engine"]) == ("ctranslate2", "transformers")
    summary = reference.summarize([item])[0]
    assert summary.text.strip() or summary.meta["truncated"]
    assert "engine" not in summary.meta["generation"] and summary.meta["revision"] == reference.revision()


def test_an_unknown_engine_is_refused_before_any_model_is_loaded(tmp_path):
    with pytest.raises(SummarizerError, match="engine = 'onnx' must be one of ctranslate2, transformers"):
        get_summarizer("smollm2", engine="onnx", cache_root=str(tmp_path / "models"))
    assert not (tmp_path / "models").exists()


def test_a_corrupt_converted_folder_gives_one_clear_line_naming_it(tmp_path):
    source = tmp_path / "model"
    source.mkdir()
    _, compute_type = device_and_compute_type()
    converted = tmp_path / f"model-ct2-{compute_type}"
    converted.mkdir()
    (converted / "config.json").write_text("{}")
    (converted / "model.bin").write_bytes(b"not a model" * 8)
    with pytest.raises(SummarizerError) as error:
        CTranslate2Summarizer(str(source)).summarize(inputs(SHORT))
    message = str(error.value)
    assert "could not load the CTranslate2 model in" in message and str(converted) in message
    assert "delete that folder" in message and "\n" not in message


def test_a_missing_model_folder_is_refused_without_a_half_written_conversion(tmp_path):
    with pytest.raises(SummarizerError, match="no transformers model in .*absent .*config.json is missing"):
        CTranslate2Summarizer(str(tmp_path / "absent")).summarize(inputs(SHORT))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_smollm2_with_a_corrupt_ct2_folder_in_its_cache_fails_with_one_line(tmp_path):
    """The real smollm2 path: its converted safetensors folder linked into a fresh cache beside a broken CT2 one."""
    folder, _ = converted_model_dir()
    root = tmp_path / "models"
    root.mkdir()
    (root / folder.name).symlink_to(folder, target_is_directory=True)
    (root / "smollm2-index.json").write_text((folder.parent / "smollm2-index.json").read_text())
    _, compute_type = device_and_compute_type()
    broken = root / f"{folder.name}-ct2-{compute_type}"
    broken.mkdir()
    (broken / "model.bin").write_bytes(b"")
    with pytest.raises(SummarizerError, match=r"could not load the CTranslate2 model in .*delete that folder"):
        get_summarizer("smollm2", cache_root=str(root), max_new_tokens=8).summarize(inputs(SHORT))
    assert Path(folder / "model.safetensors").is_file()
