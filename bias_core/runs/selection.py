"""The corpus an audit reads: loading the documents its config names, leaving out the excluded originals and names,
and checking that every configured perturbation finds documents to work on.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from bias_core.common.records import Document
from bias_core.documents.corpus import CsvColumns, load_documents
from bias_core.documents.decoding import megabytes
from bias_core.runs.config import AuditConfig, ConfigError, perturbation_params
from bias_core.safety.validation import INPUTS_MAX, ParamError, check_product, check_summaries, check_total


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
    """Refuse a config whose perturbations find nothing to work on in this corpus, or whose counts multiply past the
    limits (``check_counts``), before any run is created."""
    if not documents:
        raise ConfigError(config.source, f"the corpus {config.corpus.path} has no documents")
    kept = kept_documents(config, documents)
    for spec in config.perturbations:
        if not documents_for(spec.name, kept):
            kind = "review sets (units with values)" if spec.name == "sentiment" else "news articles"
            raise ConfigError(config.source, f"perturbation '{spec.name}' needs {kind}, and the corpus has none")
        if spec.name == "sentiment":
            from bias_core.perturb.sentiment import SentimentConfig, unknown_value_column

            fields = [field.name for field in dataclasses.fields(SentimentConfig)]
            problem = unknown_value_column(kept, SentimentConfig(**perturbation_params(spec, config.seed, fields)),
                                           loaded_as=config.corpus.value_column)
            if problem:
                raise ConfigError(config.source, f"perturbation 'sentiment': {problem}")
    check_counts(config, documents)


def inputs_per_original(kind: str, config: Any) -> list[tuple[int, str, str]]:
    """The counts whose product is the most inputs one original gives the perturbation ``kind`` set by ``config`` (its
    config dataclass): repeats (identity); samples × ratios (sentiment); samples × inputs a sample (gender, race: a
    pair, four inputs with controls, times the four race × gender settings of race-intersectional). Empty for the
    politician swap: its inputs (two per pair an original names) are known only after the parse, and its pairs are
    bounded by ``validation.LIST_MAX``."""
    if kind == "identity":
        return [(config.repeats, "repeat", "repeats")]
    if kind == "sentiment":
        return [(config.samples, "sample", "samples"), (len(config.ratios), "ratio", "ratios")]
    if not hasattr(config, "samples"):
        return []
    per_sample = 2 * (2 if getattr(config, "controls", False) else 1) * (4 if kind == "race-intersectional" else 1)
    return [(config.samples, "sample", "samples"), (per_sample, "input a sample", "inputs a sample")]


def check_perturbation_inputs(kind: str, config: Any, originals: int) -> int:
    """The most inputs ``originals`` give the perturbation ``kind`` (``inputs_per_original``); over
    ``validation.INPUTS_MAX``, a ``ParamError`` line "perturbation 'gender-loc': 3,000 originals × 1,000 samples × 2
    inputs a sample = 6,000,000 inputs is over the limit of 250,000; lower samples or the number of documents"."""
    factors = inputs_per_original(kind, config)
    if not factors:
        return 0
    try:
        return check_product([(originals, "original", "originals"), *factors], "inputs", INPUTS_MAX,
                             f"lower {factors[0][2]} or the number of documents")
    except ParamError as error:
        raise ParamError(f"perturbation '{kind}': {error}") from None


def check_counts(config: AuditConfig, documents: list[Document]) -> None:
    """Refuse, before any input is built, an audit whose counts multiply past the limits of
    ``bias_core.safety.validation`` (issue 30): the inputs each perturbation asks for (``check_perturbation_inputs``),
    those of every perturbation together (``INPUTS_MAX``) and inputs × summarizers (``SUMMARIES_MAX``); one
    ``ConfigError`` line giving the product and the limit. The command line's ``audit`` (and its ``--review``), its
    worker, the app's launcher and its review all check here, so they refuse the same audits with the same line."""
    from bias_core.perturb import PERTURBATIONS

    documents = kept_documents(config, documents)
    counted: list[tuple[str, int]] = []
    try:
        for spec in config.perturbations:
            if spec.name not in PERTURBATIONS:
                continue  # an unknown kind is the config check's line
            fields = [field.name for field in dataclasses.fields(PERTURBATIONS[spec.name].config_class)]
            try:
                settings = PERTURBATIONS[spec.name].config_class(**perturbation_params(spec, config.seed, fields))
            except (TypeError, ValueError):
                continue  # a bad parameter is the config check's line
            inputs = check_perturbation_inputs(spec.name, settings, len(documents_for(spec.name, documents)))
            if inputs:
                counted.append((spec.name, inputs))
        total = sum(inputs for _, inputs in counted)
        if len(counted) > 1:
            check_total(" + ".join(f"{inputs:,} {kind}" for kind, inputs in counted) + " inputs", total, "inputs",
                        INPUTS_MAX, "lower samples, the number of documents or of perturbations")
        if config.summarizers:
            check_summaries(total, len(config.summarizers), "lower samples, the number of documents or of summarizers")
    except ParamError as error:
        raise ConfigError(config.source, str(error)) from None
