"""Shared fixtures: every test gets its own summary cache and run store; tiny models are built offline."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# Under pytest-xdist each worker gets its share of the cores for torch/numpy threads, so two workers on two cores
# do not each start two threads and fight over them.
if os.environ.get("PYTEST_XDIST_WORKER_COUNT"):
    _threads = str(max(1, (os.cpu_count() or 1) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"])))
    for _variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(_variable, _threads)

# Workers for `-n auto` (pytest.ini): one per core, at most four — each worker loads its own spaCy, sentence-
# transformers and summarizer models (about 2–3 GB), and the browser tests start a Streamlit server and Chromium each.
MAX_TEST_WORKERS = 4


def pytest_xdist_auto_num_workers(config):
    return max(1, min(len(os.sched_getaffinity(0)), MAX_TEST_WORKERS))

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def isolated_store_and_cache(tmp_path, monkeypatch):
    """Point the default cache and store at a temporary folder so tests never touch the user's files."""
    monkeypatch.setenv("SUMMBIAS_CACHE", str(tmp_path / "cache.sqlite"))
    monkeypatch.setenv("SUMMBIAS_STORE", str(tmp_path / "runs.sqlite"))
    monkeypatch.setenv("SUMMBIAS_NO_DEMO", "1")
    return tmp_path


def open_app(page: str | None = None):
    """A fresh AppTest of the whole app (caches cleared), run once and switched to ``page`` if given."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    st.cache_data.clear()
    st.cache_resource.clear()
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.run()
    if page:
        at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def launch_small_audit(at):
    """Launch the audit set up on the Audit page of ``at`` with one measure (distinguishability_count, 200
    resamples) and wait up to 180 s for its background process; return the run store and the run's final record."""
    import time

    from bias_core.runs.store import RunStore

    at.multiselect(key="audit_measures").set_value(["distinguishability_count"]).run()
    at.select_slider(key="audit_bootstrap").set_value(200).run()
    at.button(key="audit_run").click().run()
    assert not at.exception
    store = RunStore()
    run_id = at.session_state["run_id"]
    deadline = time.time() + 180
    while time.time() < deadline and store.get_run(run_id).status in ("created", "running"):
        time.sleep(1)
    return store, store.get_run(run_id)


@pytest.fixture(scope="session")
def demo_news():
    from bias_core.documents.corpus import load_documents
    from bias_core.reference.demo import DEMO_NEWS

    return load_documents(DEMO_NEWS)


@pytest.fixture(scope="session")
def tiny_tokenizer_dir(tmp_path_factory) -> Path:
    """A word-level tokenizer trained on the demo corpus, saved like a Hub tokenizer (no network needed)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    from bias_core.reference.demo import DEMO_NEWS

    folder = tmp_path_factory.mktemp("tokenizer")
    tokenizer = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    specials = ["<pad>", "<s>", "</s>", "<unk>"]
    tokenizer.train_from_iterator(DEMO_NEWS.read_text().splitlines(), trainers.WordLevelTrainer(
        vocab_size=2000, special_tokens=specials))
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, pad_token="<pad>", bos_token="<s>",
                                   eos_token="</s>", unk_token="<unk>")
    fast.save_pretrained(folder)
    return folder


def _save_tiny(model_class, config, tokenizer_dir: Path, folder: Path) -> Path:
    import shutil

    import torch

    torch.manual_seed(0)
    model_class(config).save_pretrained(folder)
    for path in tokenizer_dir.iterdir():
        shutil.copy(path, folder / path.name)
    return folder


@pytest.fixture(scope="session")
def tiny_bart_dir(tmp_path_factory, tiny_tokenizer_dir) -> Path:
    """A randomly initialised 2-layer BART saved to a folder, loaded through the real ``hf:`` code path."""
    from transformers import BartConfig, BartForConditionalGeneration, GenerationConfig

    config = BartConfig(vocab_size=2000, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
                        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=1030,
                        pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=2,
                        forced_eos_token_id=2)
    folder = _save_tiny(BartForConditionalGeneration, config, tiny_tokenizer_dir, tmp_path_factory.mktemp("bart"))
    GenerationConfig(max_length=20, num_beams=2, decoder_start_token_id=2, bos_token_id=1, eos_token_id=2,
                     pad_token_id=0, forced_eos_token_id=2).save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_llama_dir(tmp_path_factory, tiny_tokenizer_dir) -> Path:
    """A randomly initialised 2-layer Llama (causal LM, no chat template) saved to a folder."""
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(vocab_size=2000, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=2048,
                         pad_token_id=0, bos_token_id=1, eos_token_id=2)
    return _save_tiny(LlamaForCausalLM, config, tiny_tokenizer_dir, tmp_path_factory.mktemp("llama"))


SCRIPT_ARTICLE_TEXT = (
    "Robert Moore <script>window.__pwned=1</script> told the council on Monday that he would resign. "
    "Mr. Moore said his family needed him. His deputy, Linda Chen, will lead the city until the election. "
    "She thanked him for his service.")


@pytest.fixture(scope="session")
def audited_store(tmp_path_factory, demo_news) -> Path:
    """A store with one real audit: identity, gender-glob and gender-loc (2 draws) of 3 demo articles and one article
    with a <script> in it, summarized by lead-3 and sexist-female, every supported measure (50 resamples)."""
    from bias_core.common.records import Document
    from bias_core.runs.config import AuditConfig, CorpusSpec, StageSpec
    from bias_core.runs.pipeline import run_audit
    from bias_core.runs.store import RunStore
    from bias_core.summarize import SummaryCache

    folder = tmp_path_factory.mktemp("audited")
    store = RunStore(folder / "runs.sqlite")
    config = AuditConfig(corpus=CorpusSpec("demo"), summarizers=[StageSpec("lead-3"), StageSpec("sexist-female")],
                         perturbations=[StageSpec("identity"), StageSpec("gender-glob", {"samples": 2}),
                                        StageSpec("gender-loc", {"samples": 2})],
                         bootstrap=50, name="app test run")
    run_audit(config, store=store, cache=SummaryCache(folder / "c.sqlite"),
              documents=[*demo_news[:3], Document(id="xss-article", text=SCRIPT_ARTICLE_TEXT)])
    store.close()  # checkpoints the WAL into the main file, which the tests copy
    return folder / "runs.sqlite"


def demo_or_audited_run(request, folder: Path):
    """A store in ``folder`` holding the demo run (``request.param == "demo"``) or a copy of ``audited_store`` (a
    fresh small real audit), and that run's id: for tests that check what every screen states on both."""
    import shutil

    from bias_core.reference.demo import ensure_demo_run
    from bias_core.runs.store import RunStore

    path = folder / "runs.sqlite"
    if request.param == "demo":
        store = RunStore(path)
        return store, ensure_demo_run(store)
    shutil.copy(request.getfixturevalue("audited_store"), path)
    store = RunStore(path)
    return store, store.list_runs()[0].id
