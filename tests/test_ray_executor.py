"""The Ray executor on a local Ray with 2 CPUs gives exactly the local executor's inputs and summaries."""

from __future__ import annotations

import pytest

from bias_core.perturb import get_perturbation
from bias_core.runs.config import AuditConfig, CorpusSpec, StageSpec
from bias_core.runs.executors import LocalExecutor, RayExecutor, merge_results
from bias_core.runs.pipeline import run_audit
from bias_core.runs.store import RunStore
from bias_core.summarize import SummaryCache

pytest.importorskip("ray")


def comparable(summary) -> dict:
    """A summary without its timing, which is the one field that may differ between two runs."""
    record = summary.to_dict()
    record["meta"] = {k: v for k, v in record.get("meta", {}).items() if k != "seconds"}
    return record


@pytest.fixture(scope="module")
def ray_executor():
    executor = RayExecutor(num_cpus=2, documents_per_task=2)
    yield executor
    executor.close()


def test_perturbing_in_chunks_on_ray_gives_the_same_inputs_and_report(ray_executor, demo_news):
    perturbation = get_perturbation("gender-loc", samples=2, seed=3)
    local = LocalExecutor().perturb(perturbation, demo_news[:7])
    distributed = ray_executor.perturb(perturbation, demo_news[:7])
    assert [i.to_dict() for i in distributed.inputs] == [i.to_dict() for i in local.inputs]
    assert distributed.report.to_dict() == local.report.to_dict()
    assert distributed.run_info == local.run_info


def test_merging_chunk_results_adds_up_the_skip_reports(demo_news):
    perturbation = get_perturbation("gender-glob", samples=1)
    whole = perturbation.run(demo_news)
    merged = merge_results([perturbation.run(demo_news[:8]), perturbation.run(demo_news[8:])])
    assert merged.report.to_dict() == whole.report.to_dict() and len(merged.inputs) == len(whole.inputs)


def test_an_audit_on_ray_stores_byte_identical_summaries_to_a_local_audit(ray_executor, demo_news, tmp_path):
    config = AuditConfig(corpus=CorpusSpec("demo"), summarizers=[StageSpec("lead-3"), StageSpec("textrank")],
                         perturbations=[StageSpec("identity"), StageSpec("gender-glob", {"samples": 1})],
                         measures=["distinguishability_count"], bootstrap=50)
    local_store, ray_store = RunStore(tmp_path / "local.sqlite"), RunStore(tmp_path / "ray.sqlite")
    local_id = run_audit(config, store=local_store, cache=SummaryCache(tmp_path / "c1.sqlite"),
                         documents=demo_news[:5])
    ray_id = run_audit(config, store=ray_store, cache=SummaryCache(tmp_path / "c2.sqlite"), documents=demo_news[:5],
                       executor=ray_executor)
    assert ray_store.get_run(ray_id).status == "completed"
    assert [i.to_dict() for i in ray_store.inputs(ray_id)] == [i.to_dict() for i in local_store.inputs(local_id)]
    assert [comparable(s) for s in ray_store.summaries(ray_id)] == \
        [comparable(s) for s in local_store.summaries(local_id)]
    assert [m.to_dict() for m in ray_store.measures(ray_id)] == [m.to_dict() for m in local_store.measures(local_id)]
