"""Entity templates: each original parsed once into people, their mentions and every span a perturbation may rewrite.

METHODS §1.1; Steen & Markert §5.1 and App. D. This module is the entry point (``build_templates``); the work is
split by concern:

- ``entity_template``: the template (``EntityTemplate``, its ``Slot``s and ``TemplateEntity``s) and how it is filled
  for one assignment of genders and names (``EntityTemplate.fill``);
- ``name_finding``: the people of a news text and their mentions, from spaCy's NER, tagger and parser;
- ``mentions``: entities under construction, and which entity a bare first or last name refers to;
- ``name_parts``: how a name splits into title, first, middle and last name, and the census and voter-file tables;
- ``person_evidence``: the evidence for and against a name being a person — **only people are swapped** — with the
  cue words of ``person_cues``;
- ``pronouns``: which person each gendered pronoun and content word refers to;
- ``gold_coreference``: templates of pre-annotated documents (gold mention clusters).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bias_core.common import nlp
from bias_core.common.records import Document
from bias_core.perturb.entity_template import EntityChoice, EntityTemplate, Slot, TemplateEntity
from bias_core.perturb.gold_coreference import GoldBuilder
from bias_core.perturb.name_finding import NerBuilder
from bias_core.safety.errors import InputError

if TYPE_CHECKING:
    from spacy.tokens import Doc

__all__ = ["MAX_PERTURB_CHARS", "EntityChoice", "EntityTemplate", "Slot", "TemplateEntity", "build_templates",
           "parse_documents", "templates_from_parses"]

logger = logging.getLogger(__name__)

# Lemmas and coarse POS (the attribute ruler) are not needed: fine-grained tags say "proper noun" (NNP) and
# "possessive pronoun" (PRP$). Skipping them makes parsing about a third faster.
_SPACY_DISABLE = ("lemmatizer", "attribute_ruler")
# Name perturbations need a whole document's people and pronouns. Building them grows faster than linearly with the
# text (a 5 MB text did not finish in an hour), so a longer original is skipped with a reason instead; it is also
# spaCy's own single-parse limit. Summarizers and measures still read such texts (in chunks, ``nlp.parse``).
MAX_PERTURB_CHARS = 1_000_000


def build_templates(documents: Sequence[Document], *, n_process: int | None = None) -> list[EntityTemplate]:
    """Return one entity template per news document, parsing all of them in one batched spaCy call (§1.1).

    Documents with an ``entities`` field are taken as pre-annotated (gold mention clusters). Perspective documents
    (units) have no entities and are rejected with an ``InputError``.
    """
    usable = [document for document in documents if len(document.text or "") <= MAX_PERTURB_CHARS]
    built = iter(templates_from_parses(usable, parse_documents(usable, n_process=n_process)))
    return [next(built) if len(document.text or "") <= MAX_PERTURB_CHARS else _too_long(document)
            for document in documents]


def _too_long(document: Document) -> EntityTemplate:
    reason = (f"too long for name perturbations: {len(document.text or ''):,} characters, over the limit of "
              f"{MAX_PERTURB_CHARS:,} — split the document into articles")
    return EntityTemplate(document.id, document.text or "", [], [], meta=dict(document.meta or {}),
                          skip_reason=reason)


def parse_documents(documents: Sequence[Document], *, n_process: int | None = None) -> list[Doc]:
    """Return the spaCy parses of news documents, in ``nlp.worker_count`` processes unless ``n_process`` says
    otherwise."""
    for document in documents:
        if document.text is None:
            raise InputError(f"document '{document.id}'", "has units, not a news text",
                             hint="name-based perturbations need news documents with a 'text' field")
    started = time.perf_counter()
    workers = n_process or nlp.worker_count(len(documents))
    parsed = nlp.parse([document.text or "" for document in documents], disable=_SPACY_DISABLE, n_process=workers,
                       batch_size=8 if workers > 1 else nlp.SPACY_BATCH_SIZE, blank_lines_split=True)
    logger.debug("parsed %d documents in %.2f s with %d process(es)", len(documents), time.perf_counter() - started,
                 workers)
    return parsed


def templates_from_parses(documents: Sequence[Document], parses: Sequence[Doc]) -> list[EntityTemplate]:
    """Return the entity templates of documents from their spaCy parses (``parse_documents``). A document's
    ``exclude_entities`` field names people not to swap (the analyst's review, issue 21; ``EntityTemplate.exclude``)."""
    templates = []
    for document, doc in zip(documents, parses, strict=True):
        gold = document.extra.get("entities")
        builder = GoldBuilder(document, doc, gold) if gold is not None else NerBuilder(document.id, doc)
        template = builder.build()
        template.meta = dict(document.meta)
        excluded = document.extra.get("exclude_entities")
        if excluded:
            template.exclude(excluded)
        templates.append(template)
    return templates
