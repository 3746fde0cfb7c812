"""The corpus an audit reads: loading the documents its config names, leaving out the excluded originals and names,
and checking that every configured perturbation finds documents to work on.
"""

from __future__ import annotations

import dataclasses

from bias_core.common.records import Document
from bias_core.documents.corpus import CsvColumns, load_documents
from bias_core.documents.decoding import megabytes
from bias_core.runs.config import AuditConfig, ConfigError, perturbation_params


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
