"""One error path: any exception ends as one line naming the stage and the input (exit 2, traceback only with
--debug), an audit that stops for any reason marks its run failed with that line, and no run is left "running"."""

from __future__ import annotations

import errno
import json

import pytest

from bias_core.cli import main
from bias_core.reference.demo import DEMO_NEWS
from bias_core.runs.config import AuditConfig, ConfigError, CorpusSpec, StageSpec
from bias_core.runs.launch import launch_audit
from bias_core.runs.pipeline import open_run, run_audit
from bias_core.runs.store import RunStore
from bias_core.safety.errors import BiasCoreError, StageError, one_line
from bias_core.summarize import SummaryCache


def audit_config(summarizer: str = "lead-3", **params) -> AuditConfig:
    return AuditConfig(corpus=CorpusSpec(str(DEMO_NEWS)), summarizers=[StageSpec(summarizer, params)],
                       measures=["entity_inclusion"], bootstrap=50)


def test_one_line_names_the_exception_type_and_joins_its_message():
    assert one_line(KeyError("x")) == "KeyError: 'x'"
    assert one_line(ValueError("first\n\n  second  ")) == "ValueError: first second"
    assert one_line(MemoryError()) == "MemoryError"
    assert one_line(RuntimeError("y" * 500)).endswith("…") and len(one_line(RuntimeError("y" * 500))) == 300
    assert one_line(ConfigError("audit.toml", "bad")) == "audit.toml: bad"


def test_the_cli_turns_any_exception_into_one_line_naming_the_stage_and_the_input(tmp_path, capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("group")

    monkeypatch.setattr("bias_core.commands.quadruples.quadruple_inconsistency", broken)
    outcomes = tmp_path / "outcomes.csv"
    outcomes.write_text("quadruple_id,role,group,outcome\nq1,original,male,1\n")
    argv = ["quadruples", "--outcomes", str(outcomes), "--out", str(tmp_path / "m.json")]
    assert main(argv) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"error: quadruples {outcomes}: KeyError: 'group' (run again with --debug for the traceback)"]
    assert main(["--debug", *argv]) == 2
    debug = capsys.readouterr().err.strip().splitlines()
    assert debug[0] == "Traceback (most recent call last):" and "KeyError: 'group'" in debug
    assert debug[-1] == f"error: quadruples {outcomes}: KeyError: 'group'"


def test_an_exception_outside_any_named_stage_still_ends_as_one_line_naming_the_command(tmp_path, capsys,
                                                                                        monkeypatch):
    def broken(path):
        raise UnicodeError("surprise")

    monkeypatch.setattr("bias_core.commands.quadruples.read_outcomes", broken)
    assert main(["quadruples", "--outcomes", "o.csv", "--out", str(tmp_path / "m.json")]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "error: quadruples: UnicodeError: surprise (run again with --debug for the traceback)"]


class DiskFullStore(RunStore):
    """Unit-test double: the disk fills up on the first summary write."""

    def add_summaries(self, run_id, summaries):
        raise OSError(errno.ENOSPC, "No space left on device")


def fail_in_perturbation(monkeypatch):
    def broken(self, perturbation, documents):
        raise RuntimeError("the tagger fell over")

    monkeypatch.setattr("bias_core.runs.executors.LocalExecutor.perturb", broken)
    monkeypatch.setattr("bias_core.runs.executors.LocalExecutor.perturb_shared", broken)  # the audit's one-parse path


def fail_in_summarization(monkeypatch):
    def broken(self, inputs):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr("bias_core.summarize.extractive.Lead.summarize_batch", broken)


def fail_in_measures(monkeypatch):
    def broken(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr("bias_core.measures.compute_measures", broken)


STOPS = {
    "perturbation": (fail_in_perturbation, RunStore, "perturb: RuntimeError: the tagger fell over"),
    "summarization": (fail_in_summarization, RunStore, "summarize (lead-3): ZeroDivisionError: division by zero"),
    "measures": (fail_in_measures, RunStore, "measure: MemoryError"),
    "a full disk": (lambda monkeypatch: None, DiskFullStore,
                    "summarize (lead-3): OSError: [Errno 28] No space left on device"),
}


@pytest.mark.parametrize("where", sorted(STOPS))
def test_an_audit_that_stops_anywhere_marks_its_run_failed_with_one_line(where, tmp_path, monkeypatch):
    inject, store_class, message = STOPS[where]
    inject(monkeypatch)
    store = store_class(tmp_path / "runs.sqlite")
    with pytest.raises(StageError) as caught:
        run_audit(audit_config(), store=store, cache=SummaryCache(tmp_path / "cache.sqlite"))
    (run,) = store.list_runs()
    assert run.status == "failed" and run.message == message
    assert str(caught.value) == f"run {run.id}: {message}"
    assert caught.value.__cause__ is not None  # --debug and the log still get the original traceback


def test_the_audit_command_reports_a_stopped_run_in_one_line_and_resumes_it_once_fixed(tmp_path, capsys,
                                                                                       monkeypatch):
    config = tmp_path / "audit.toml"
    config.write_text(f'[corpus]\npath = "{DEMO_NEWS}"\n[[summarizers]]\nname = "lead-3"\n'
                      '[measures]\nnames = ["entity_inclusion"]\nbootstrap = 50\n')
    store = tmp_path / "runs.sqlite"
    argv = ["audit", "--config", str(config), "--store", str(store), "--quiet"]
    with monkeypatch.context() as patch:
        fail_in_summarization(patch)
        assert main(argv) == 2
    (run,) = RunStore(store).list_runs()
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines == [f"error: run {run.id}: summarize (lead-3): ZeroDivisionError: division by zero "
                     "(run again with --debug for the traceback)"]
    assert run.status == "failed"
    assert main(argv) == 0
    assert [(r.id, r.status) for r in RunStore(store).list_runs()] == [(run.id, "completed")]


def test_a_worker_whose_config_cannot_be_read_marks_its_run_failed(tmp_path, capsys, demo_news):
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = open_run(store, audit_config(), demo_news)
    store.update_run(run_id, status="running", stage="starting")
    broken = tmp_path / "configs" / f"{run_id}.json"
    broken.parent.mkdir()
    broken.write_text('{"corpus": ')  # e.g. a disk that filled up while the app wrote it
    assert main(["audit", "--config", str(broken), "--store", str(store.path), "--run", run_id, "--quiet"]) == 2
    line = capsys.readouterr().err.strip()
    info = store.get_run(run_id)
    assert info.status == "failed" and info.message == line.removeprefix("error: ")
    assert info.message.startswith(f"{broken}: is not valid JSON")


def test_a_worker_that_hits_an_unexpected_exception_marks_its_run_failed_naming_the_command(tmp_path, capsys,
                                                                                           monkeypatch, demo_news):
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = open_run(store, audit_config(), demo_news)
    store.update_run(run_id, status="running", stage="starting")

    def broken(path):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(AuditConfig, "from_file", broken)
    assert main(["audit", "--config", "c.json", "--store", str(store.path), "--run", run_id, "--quiet"]) == 2
    info = store.get_run(run_id)
    assert info.status == "failed" and info.message == "audit: PermissionError: [Errno 13] Permission denied"
    assert capsys.readouterr().err.startswith(f"error: {info.message} (run again with --debug")


def test_a_worker_given_another_audits_run_refuses_it(tmp_path, capsys, demo_news):
    store = RunStore(tmp_path / "runs.sqlite")
    other = open_run(store, audit_config("random-3"), demo_news)
    config = tmp_path / "audit.json"
    config.write_text(json.dumps(audit_config().to_file_dict()))
    assert main(["audit", "--config", str(config), "--store", str(store.path), "--run", other, "--quiet"]) == 2
    assert f"run {other} is a different audit" in capsys.readouterr().err
    assert [run.id for run in store.list_runs()] == [other]


def test_the_launcher_refuses_a_bad_config_with_the_same_message_and_creates_no_run(tmp_path, demo_news, capsys):
    store = RunStore(tmp_path / "runs.sqlite")
    config = audit_config("textrank", damping=5)
    with pytest.raises(ConfigError) as launched:
        launch_audit(config, demo_news[:3], store)
    assert store.list_runs() == [] and not (tmp_path / "configs").exists()
    path = tmp_path / "audit.json"
    path.write_text(json.dumps(config.to_file_dict()))
    assert main(["audit", "--config", str(path), "--store", str(store.path)]) == 2
    cli_line = capsys.readouterr().err.strip()
    assert launched.value.problem in cli_line
    assert "summarizer 'textrank' has bad parameters: damping = 5 is out of range" in launched.value.problem


def test_resuming_a_stored_run_whose_config_is_invalid_fails_it_instead_of_offering_it_again(tmp_path, demo_news):
    store = RunStore(tmp_path / "runs.sqlite")
    stale = audit_config("textrank", damping=5)  # stored before parameters were checked
    run_id = open_run(store, stale, demo_news[:3])
    store.add_documents(run_id, demo_news[:3])
    store.update_run(run_id, status="running", stage="summarize", worker_pid=2**22 + 12345)  # a dead worker
    assert not store.get_run(run_id).worker_alive
    with pytest.raises(BiasCoreError, match="damping = 5 is out of range"):
        launch_audit(AuditConfig.from_stored(store.get_run(run_id).config), store.documents(run_id), store)
    info = store.get_run(run_id)
    assert info.status == "failed" and info.message.startswith("cannot resume: the stored run config: summarizer")
    assert [run.id for run in store.list_runs()] == [run_id]


def test_a_detached_worker_that_fails_before_its_audit_starts_records_the_failure(tmp_path, demo_news):
    import hashlib
    import time

    store = RunStore(tmp_path / "runs.sqlite")
    documents = demo_news[:2]
    # The app's copy of the corpus was cut short (say, the disk filled up while it was written): the worker cannot
    # read it, which it only finds out in its own process, after the app created the run.
    corpus_text = "".join(json.dumps(d.to_dict(), sort_keys=True) for d in documents)
    corpus_file = tmp_path / "corpora" / f"{hashlib.sha256(corpus_text.encode()).hexdigest()[:16]}.jsonl"
    corpus_file.parent.mkdir()
    corpus_file.write_text('{"id": "news-01", "text": "A former bra')
    run_id = launch_audit(audit_config(), documents, store, cache_path=tmp_path / "cache.sqlite")
    deadline = time.time() + 240
    while time.time() < deadline and store.get_run(run_id).status == "running":
        time.sleep(0.5)
    info = store.get_run(run_id)
    log = (tmp_path / "logs" / f"{run_id}.log").read_text()
    assert info.status == "failed", log
    assert info.message.startswith(f"{corpus_file}, line 1: is not valid JSON"), info.message
    assert log.strip().splitlines()[-1] == f"error: {info.message}"
    assert "Traceback" not in log
