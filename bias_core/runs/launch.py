"""Start an audit in its own process, so a long run is not tied to a browser tab (or to the app's server).

The app writes the corpus and the config next to the store (``corpora/``, ``configs/``, with the worker's log in
``logs/``), creates the run (so it can show it at once) and starts `python -m bias_core audit --run ID` detached. The
worker resumes exactly that run, because its config hash matches; progress is read back from the store. The config is validated here first, with the same function the CLI
and the worker use, so a bad config is refused with the same message and creates no run.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import threading
from pathlib import Path

from bias_core.common.records import Document
from bias_core.documents.record_files import write_jsonl
from bias_core.runs.config import AuditConfig, ConfigError, config_hash
from bias_core.runs.pipeline import open_run
from bias_core.runs.run_info import Owner, RunBusyError, StoreError
from bias_core.runs.selection import check_corpus
from bias_core.runs.store import RunStore


def launch_audit(config: AuditConfig, documents: list[Document], store: RunStore,
                 *, cache_path: str | Path | None = None, resume_run: str | None = None,
                 owner: Owner | None = None) -> str:
    """Create (or find the unfinished) run for this audit, start a worker process on it and return the run id.

    Raises ``ConfigError`` for an invalid config before anything is written. Resuming a stored run whose config is
    no longer valid (say, written before a check existed) marks that run failed with the message, so it is not
    offered for resuming again; ``resume_run`` names the run being resumed (the Runs page's Resume button).
    ``owner`` (sign-in on) is who launches it: only a run of theirs is resumed, and a new run is theirs.
    """
    try:
        config.validate()
        check_corpus(config, documents)
    except ConfigError as error:
        stale = resume_run or store.resumable_run(config_hash(config, documents), owner)
        if stale and not (store.get_run(stale).status == "running" and store.get_run(stale).worker_alive):
            store.update_run(stale, status="failed", message=f"cannot resume: {error}")
        raise
    store.check_writable()  # a read-only store: the CLI's one line, before any file is written next to it
    folder = store.path.parent
    corpus_text = "".join(json.dumps(d.to_dict(), sort_keys=True) for d in documents)
    corpus_file = folder / "corpora" / f"{hashlib.sha256(corpus_text.encode()).hexdigest()[:16]}.jsonl"
    if not corpus_file.exists():
        write_jsonl(corpus_file, documents)
    config.corpus.path = str(corpus_file)
    run_id = resume_run or open_run(store, config, documents, owner=owner)
    info = store.get_run(run_id)
    if info.status == "running" and info.worker_alive:
        return run_id
    config_file = folder / "configs" / f"{run_id}.json"
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text(json.dumps(config.to_file_dict(), indent=1))
    log_file = folder / "logs" / f"{run_id}.log"
    log_file.parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "bias_core", "audit", "--config", str(config_file), "--store", str(store.path),
               "--run", run_id]
    if cache_path:
        command += ["--cache", str(cache_path)]
    with log_file.open("ab") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True)
    # The app's server is the worker's parent: a thread waits for it, so a finished worker is reaped at once instead
    # of staying a zombie under the server for as long as the server runs.
    threading.Thread(target=process.wait, name=f"reap-worker-{run_id}", daemon=True).start()
    try:  # the worker claims the run itself too; claimed here, the app shows it running at once
        store.claim_run(run_id, process.pid, stage="starting")
    except RunBusyError:  # another launch (a second click, a second tab) started a worker on this run first
        process.terminate()
    return run_id


def delete_run(store: RunStore, run_id: str) -> None:
    """Delete a run with every file the launcher wrote for it: its records (``RunStore.delete_run``: zeroed and out
    of the write-ahead log), its config and log files, and its corpus file unless another run uses that corpus.
    Files outside the store's folder (a corpus the command line read in place) are never touched."""
    folder = store.path.parent
    try:
        config = store.get_run(run_id).config
    except StoreError:  # a damaged config: its records and files go, the corpus file stays
        config = {}
    corpus = config.get("corpus") if isinstance(config, dict) else None
    corpus_file = Path(str(corpus.get("path") or "")) if isinstance(corpus, dict) else Path()
    try:
        store.delete_run(run_id)
    finally:  # also when only the checkpoint failed: the records are gone, so are the files
        if not store.has_run(run_id):
            files = [folder / "configs" / f"{run_id}.json", folder / "logs" / f"{run_id}.log"]
            if corpus_file.name and corpus_file.resolve().parent == (folder / "corpora").resolve() \
                    and not store.runs_mentioning(corpus_file.name, besides=run_id):
                files.append(corpus_file)
            for path in files:
                path.unlink(missing_ok=True)
