"""One spaCy parse per original per audit: the name perturbations share their entity templates (issue 13)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from bias_core.common import nlp
from bias_core.perturb import PERTURBATIONS as PERTURBATIONS_BY_NAME
from bias_core.perturb import get_perturbation
from bias_core.perturb.shared import chunk_jobs, merge_jobs, run_shared
from bias_core.runs.config import AuditConfig, CorpusSpec, StageSpec, perturbation_params
from bias_core.runs.pipeline import build_inputs, run_audit
from bias_core.runs.store import RunStore
from bias_core.summarize import SummaryCache

PERTURBATIONS = [StageSpec("identity"), StageSpec("gender-loc", {"samples": 2, "controls": True}),
                 StageSpec("gender-glob", {"samples": 2}), StageSpec("race", {"samples": 2})]


def _serialised(inputs) -> bytes:
    return json.dumps([item.to_dict() for item in inputs], sort_keys=True).encode()


def _one_by_one(documents, config: AuditConfig):
    """What the audit did before the shared parse: each perturbation runs (and parses) on its own."""
    inputs, seen, reports = [], set(), {}
    for spec in config.perturbations:
        fields = [f.name for f in dataclasses.fields(PERTURBATIONS_BY_NAME[spec.name].config_class)]
        result = get_perturbation(spec.name, **perturbation_params(spec, config.seed, fields)).run(documents)
        reports[spec.name] = {"run_info": result.run_info, "skips": result.report.to_dict(),
                              "summary": result.report.summary()}
        for item in result.inputs:
            if item.id not in seen:
                seen.add(item.id)
                inputs.append(item)
    return inputs, reports


@pytest.fixture
def counted_parses(monkeypatch):
    """Count the texts spaCy parses (the real parse runs; this only records how many texts it was given)."""
    texts: list[str] = []
    real_parse = nlp.parse

    def counting_parse(batch, **options):
        batch = list(batch)
        texts.extend(batch)
        return real_parse(batch, **options)

    monkeypatch.setattr(nlp, "parse", counting_parse)
    return texts


def test_audit_inputs_with_the_shared_parse_are_byte_identical_to_one_parse_per_perturbation(demo_news,
                                                                                              counted_parses):
    documents = demo_news[:6]
    config = AuditConfig(corpus=CorpusSpec("demo"), summarizers=[StageSpec("lead-3")], perturbations=PERTURBATIONS,
                         seed=3)
    before, before_reports = _one_by_one(documents, config)
    parsed_one_by_one = len(counted_parses)
    counted_parses.clear()
    timings: dict[str, float] = {}
    after, after_reports = build_inputs(documents, config, timings=timings)
    assert parsed_one_by_one == 3 * len(documents)  # gender-loc, gender-glob and race each parsed every article
    assert len(counted_parses) == len(documents)  # now once
    assert len(after) > 4 * len(documents)
    assert _serialised(after) == _serialised(before)
    assert json.dumps(after_reports, sort_keys=True) == json.dumps(before_reports, sort_keys=True)
    assert timings["parse"] > 0


def test_politician_and_race_intersectional_share_the_parse_and_match_their_own_runs(demo_news, counted_parses):
    perturbations = [get_perturbation("politician", pairs=["Donald Trump=Joe Biden"]),
                     get_perturbation("race-intersectional", samples=1, seed=5),
                     get_perturbation("identity")]
    documents = demo_news[:5]
    shared = run_shared(perturbations, [documents] * 3)
    assert len(counted_parses) == len(documents) and shared.n_parsed == len(documents)
    for perturbation, result in zip(perturbations, shared.results, strict=True):
        own = perturbation.run(documents)
        assert _serialised(result.inputs) == _serialised(own.inputs)
        assert result.report.to_dict() == own.report.to_dict()
        assert result.run_info == own.run_info


def test_chunked_jobs_as_ray_runs_them_give_the_same_results_as_one_shared_run(demo_news):
    perturbations = [get_perturbation("identity"), get_perturbation("gender-glob", samples=1, seed=2),
                     get_perturbation("race", samples=1, seed=2)]
    documents = [demo_news[:7], demo_news[2:7], demo_news[:4]]  # each perturbation its own documents
    whole = run_shared(perturbations, documents)
    jobs = chunk_jobs(perturbations, documents, 3)
    assert [indices for indices, _, _ in jobs] == [[0, 1, 2], [0, 1, 2], [0, 1]]
    merged = merge_jobs(len(perturbations), [(indices, run_shared(chosen, docs)) for indices, chosen, docs in jobs])
    assert merged.n_parsed == whole.n_parsed == 7
    for chunked, one in zip(merged.results, whole.results, strict=True):
        assert _serialised(chunked.inputs) == _serialised(one.inputs)
        assert chunked.report.to_dict() == one.report.to_dict()
        assert chunked.run_info == one.run_info


def test_the_run_records_the_parse_stage_once_beside_the_other_stage_timings(tmp_path, demo_news):
    store = RunStore(tmp_path / "runs.sqlite")
    config = AuditConfig(corpus=CorpusSpec("demo"), summarizers=[StageSpec("lead-3")], perturbations=PERTURBATIONS,
                         measures=["entity_inclusion"], bootstrap=20)
    run_id = run_audit(config, store=store, cache=SummaryCache(tmp_path / "c.sqlite"), documents=demo_news[:3])
    seconds = store.get_run(run_id).reports["seconds"]
    assert list(seconds) == ["perturb", "parse", "summarize", "measure"]
    assert 0 < seconds["parse"] <= seconds["perturb"]
