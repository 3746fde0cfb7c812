"""The product of the counts is bounded (issue 30): 3,000 originals × samples = 1,000 held 3.2 GB after 120 s on the
command line and printed nothing. Originals × samples (the inputs one perturbation asks for), the inputs of every
perturbation together, and inputs × summarizers are each checked before any work starts, with one line giving the
product and the limit — the same line from `python -m bias_core audit`, `perturb`, `summarize` and the Audit page."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from bias_core.common.records import Document, Input
from bias_core.runs.config import AuditConfig, ConfigError, CorpusSpec, StageSpec
from bias_core.runs.selection import check_counts, corpus_documents
from bias_core.safety.validation import INPUTS_MAX, SUMMARIES_MAX, ParamError, check_product
from tests.conftest import REPO, open_app

PERTURB_LINE = ("perturbation 'gender-loc': 3,000 originals × 1,000 samples × 2 inputs a sample = 6,000,000 inputs is "
                "over the limit of 250,000; lower samples or the number of documents")
SUMMARIES_LINE = ("243,000 inputs × 5 summarizers = 1,215,000 summaries is over the limit of 1,000,000; lower "
                  "samples, the number of documents or of summarizers")
FIVE_SUMMARIZERS = ["lead-3", "random-3", "textrank", "lexrank", "topic"]


def articles(count: int) -> list[Document]:
    return [Document(f"d{index}", text=f"Anna Smith met John Doe on day {index}. She thanked him.")
            for index in range(count)]


def write_corpus(folder, count: int):
    path = folder / "news.jsonl"
    path.write_text("".join(json.dumps(document.to_dict()) + "\n" for document in articles(count)))
    return path


def write_config(folder, corpus, perturbations: str, summarizers=("lead-3",)):
    path = folder / "audit.toml"
    path.write_text(f'[corpus]\npath = "{corpus}"\n\n{perturbations}\n'
                    + "".join(f'[[summarizers]]\nname = "{name}"\n\n' for name in summarizers))
    return path


def run_cli(folder, *arguments, timeout=120):
    environment = {**os.environ, "SUMMBIAS_STORE": str(folder / "runs.sqlite"),
                   "SUMMBIAS_CACHE": str(folder / "cache.sqlite"), "HF_HUB_OFFLINE": "1"}
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "bias_core", *arguments], check=False, cwd=REPO,
                            capture_output=True, text=True, timeout=timeout, env=environment)
    return result, time.monotonic() - started


def no_run(folder) -> bool:
    from bias_core.runs.store import RunStore

    if not (folder / "runs.sqlite").exists():
        return True
    store = RunStore(folder / "runs.sqlite", read_only=True)
    try:
        return not store.list_runs()
    finally:
        store.close()


def test_the_limits_let_a_real_large_audit_through():
    # 10,000 originals × 5 samples with controls (200,000 inputs) and identity, summarized by 4 summarizers.
    config = AuditConfig(corpus=CorpusSpec("news.jsonl"), summarizers=[StageSpec(n) for n in FIVE_SUMMARIZERS[:4]],
                         perturbations=[StageSpec("identity"),
                                        StageSpec("gender-loc", {"samples": 5, "controls": True})])
    check_counts(config, articles(10_000))
    assert 210_000 <= INPUTS_MAX and 210_000 * 4 <= SUMMARIES_MAX
    assert 50_000 * 4 <= SUMMARIES_MAX


def test_the_demo_audit_is_within_the_limits():
    config = AuditConfig.from_file(REPO / "examples" / "demo_audit.toml")
    check_counts(config, corpus_documents(config))


def test_a_product_over_its_limit_is_one_line_with_the_product_and_the_limit():
    with pytest.raises(ParamError) as error:
        check_product([(3_000, "original", "originals"), (1_000, "sample", "samples")], "inputs", 200_000,
                      "lower samples or the number of documents")
    assert str(error.value) == ("3,000 originals × 1,000 samples = 3,000,000 inputs is over the limit of 200,000; "
                                "lower samples or the number of documents")
    assert check_product([(1, "original", "originals"), (1, "sample", "samples")], "inputs", 1, "") == 1


@pytest.mark.parametrize(("perturbation", "line"), [
    (StageSpec("identity", {"repeats": 1_000}), ("perturbation 'identity': 3,000 originals × 1,000 repeats = "
                                                 "3,000,000 inputs is over the limit of 250,000; lower repeats or "
                                                 "the number of documents")),
    (StageSpec("race-intersectional", {"samples": 20, "controls": True}), (
        "perturbation 'race-intersectional': 3,000 originals × 20 samples × 16 inputs a sample = 960,000 inputs is "
        "over the limit of 250,000; lower samples or the number of documents")),
])
def test_each_perturbation_counts_the_inputs_it_asks_for(perturbation, line):
    config = AuditConfig(corpus=CorpusSpec("news.jsonl"), summarizers=[StageSpec("lead-3")],
                         perturbations=[StageSpec("identity"), perturbation] if perturbation.name != "identity"
                         else [perturbation])
    with pytest.raises(ConfigError) as error:
        check_counts(config, articles(3_000))
    assert str(error.value) == f"config: {line}"


def test_a_sentiment_split_counts_samples_and_ratios_over_the_review_sets():
    from bias_core.common.records import Unit

    sets = [Document(f"r{index}", units=[Unit("good", "pos"), Unit("bad", "neg")]) for index in range(3_000)]
    config = AuditConfig(corpus=CorpusSpec("reviews.jsonl"), summarizers=[StageSpec("lead-3")],
                         perturbations=[StageSpec("identity"),
                                        StageSpec("sentiment", {"samples": 50, "ratios": [0.2, 0.5, 0.8]})])
    with pytest.raises(ConfigError) as error:
        check_counts(config, sets + articles(10))
    assert str(error.value) == ("config: perturbation 'sentiment': 3,000 originals × 50 samples × 3 ratios = 450,000 "
                                "inputs is over the limit of 250,000; lower samples or the number of documents")


def test_the_perturbations_together_are_bounded_too():
    config = AuditConfig(corpus=CorpusSpec("news.jsonl"), summarizers=[StageSpec("lead-3")],
                         perturbations=[StageSpec("identity"), StageSpec("gender-loc", {"samples": 25}),
                                        StageSpec("gender-glob", {"samples": 25})])
    with pytest.raises(ConfigError) as error:
        check_counts(config, articles(3_000))
    assert str(error.value) == ("config: 3,000 identity + 150,000 gender-loc + 150,000 gender-glob inputs = 303,000 "
                                "inputs is over the limit of 250,000; lower samples, the number of documents or of "
                                "perturbations")


def test_excluded_originals_are_not_counted():
    config = AuditConfig(corpus=CorpusSpec("news.jsonl"), summarizers=[StageSpec("lead-3")],
                         perturbations=[StageSpec("identity"), StageSpec("gender-loc", {"samples": 50})],
                         exclude_originals=[f"d{index}" for index in range(1_000)])
    check_counts(config, articles(3_000))  # 2,000 × 50 × 2 = 200,000 inputs


def test_the_audit_command_refuses_too_many_inputs_at_once_in_one_line(tmp_path):
    corpus = write_corpus(tmp_path, 3_000)
    config = write_config(tmp_path, corpus, '[[perturbations]]\nkind = "gender-loc"\nsamples = 1000\n')
    result, seconds = run_cli(tmp_path, "audit", "--config", str(config), "--quiet")
    assert result.returncode == 2 and result.stderr.strip().splitlines() == [f"error: {config}: {PERTURB_LINE}"]
    assert seconds < 60 and result.stdout == "" and no_run(tmp_path)
    review, _ = run_cli(tmp_path, "audit", "--config", str(config), "--review")
    assert review.returncode == 2 and review.stderr.strip().splitlines() == [f"error: {config}: {PERTURB_LINE}"]


def test_the_audit_command_refuses_too_many_summaries_in_one_line(tmp_path):
    corpus = write_corpus(tmp_path, 3_000)
    config = write_config(tmp_path, corpus, '[[perturbations]]\nkind = "gender-loc"\nsamples = 40\n',
                          FIVE_SUMMARIZERS)
    result, seconds = run_cli(tmp_path, "audit", "--config", str(config), "--quiet")
    assert result.returncode == 2 and result.stderr.strip().splitlines() == [f"error: {config}: {SUMMARIES_LINE}"]
    assert seconds < 60 and no_run(tmp_path)


def test_the_perturb_command_refuses_too_many_inputs_in_one_line(tmp_path):
    corpus = write_corpus(tmp_path, 3_000)
    out = tmp_path / "inputs.jsonl"
    result, seconds = run_cli(tmp_path, "perturb", "--kind", "gender-loc", "--documents", str(corpus), "--out",
                              str(out), "--samples", "1000", "--quiet")
    assert result.returncode == 2 and result.stderr.strip().splitlines() == [f"error: {corpus}: {PERTURB_LINE}"]
    assert seconds < 60 and not out.exists()


def test_the_summarize_command_refuses_more_inputs_than_summaries_allowed(tmp_path, monkeypatch, capsys):
    from bias_core import cli
    from bias_core.safety import validation

    monkeypatch.setattr(validation, "SUMMARIES_MAX", 2)
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text("".join(json.dumps(Input.from_document(document).to_dict()) + "\n"
                              for document in articles(3)))
    out = tmp_path / "summaries.jsonl"
    code = cli.main(["summarize", "--summarizer", "lead-3", "--inputs", str(inputs), "--out", str(out), "--no-cache"])
    assert code == 2 and not out.exists()
    assert capsys.readouterr().err.strip().splitlines() == [
        (f"error: {inputs}: 3 inputs × 1 summarizer = 3 summaries is over the limit of 2; split the inputs into "
         "smaller files")]


def test_the_audit_page_refuses_too_many_inputs_with_the_same_line():
    at = open_app()
    at.session_state["documents"] = articles(1_300)
    # Chosen before the page first runs: its default choice (gender-glob, 3 samples) would parse all 1,300 articles.
    at.session_state["audit_perturbations"] = ["gender-loc"]
    at.session_state["gender-loc_samples"] = 50  # the page's most
    at.session_state["gender-loc_controls"] = True
    at.switch_page("pages/audit.py").run()
    assert not at.exception, at.exception
    line = ("config: perturbation 'gender-loc': 1,300 originals × 50 samples × 4 inputs a sample = 260,000 inputs "
            "is over the limit of 250,000; lower samples or the number of documents")
    assert [error.value for error in at.error] == [line]  # said once, not again below the review
    assert not at.info or not any(info.value.startswith("Estimate:") for info in at.info)
