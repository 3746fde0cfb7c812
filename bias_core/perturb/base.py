"""What every perturbation shares: the skip report, the result, the seeded random source and the base class.

A perturbation is a registry name, a config dataclass validated once, and one call, ``run(documents)``, which returns
a :class:`PerturbationResult`: the inputs (INTERFACES.md "inputs.jsonl"), a :class:`SkipReport` saying what could not
be perturbed and why (METHODS §1.1 step 6, §1.4), and ``run_info`` with whatever a reader needs to reproduce or audit
the run (seed, configuration, name lists).
"""

from __future__ import annotations

import dataclasses
import random
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from bias_core.common.records import Document, Input

# ``run_with_progress`` perturbs this many documents (or this many characters of text, whichever comes first) at a
# time: often enough for a progress bar to move every few seconds, and few enough parse calls that per-call costs
# (spaCy worker start-up) stay small.
PROGRESS_CHUNK_DOCUMENTS = 500
PROGRESS_CHUNK_CHARS = 500_000


@dataclass(frozen=True)
class SkippedOriginal:
    """An original that produced no inputs, with the reason a user can act on."""

    original_id: str
    reason: str


@dataclass(frozen=True)
class UnattributedPronoun:
    """A gendered pronoun no entity could take (METHODS §1.1 step 3), with some context to find it."""

    original_id: str
    start: int
    end: int
    text: str
    context: str


@dataclass(frozen=True)
class EntityWithoutFirstName:
    """A person mentioned only by last name (and perhaps title or pronouns): no first name to swap."""

    original_id: str
    entity_id: str
    name: str


@dataclass
class SkipReport:
    """Originals skipped and why, unattributed pronouns, and entities without a first name (METHODS §1.1).

    ``incomplete`` lists originals that gave some of their inputs but not all (e.g. a sentiment ratio their units
    cannot reach); they are not counted as skipped.
    """

    n_originals: int = 0
    skipped: list[SkippedOriginal] = field(default_factory=list)
    incomplete: list[SkippedOriginal] = field(default_factory=list)
    unattributed_pronouns: list[UnattributedPronoun] = field(default_factory=list)
    entities_without_first_name: list[EntityWithoutFirstName] = field(default_factory=list)

    def skip(self, original_id: str, reason: str) -> None:
        self.skipped.append(SkippedOriginal(original_id, reason))

    @property
    def skip_rate(self) -> float:
        """Share of originals skipped (0 when there were none)."""
        return len(self.skipped) / self.n_originals if self.n_originals else 0.0

    def summary(self) -> str:
        """Return a few human-readable lines: how many originals were skipped, for which reasons, and the rest."""
        lines = [f"{len(self.skipped)} of {self.n_originals} originals skipped ({100 * self.skip_rate:.0f}%)"]
        for reason, count in Counter(_reason_kind(s.reason) for s in self.skipped).most_common():
            lines.append(f"  {count} × {reason}")
        if self.incomplete:
            lines.append(f"{len(self.incomplete)} originals gave only part of their inputs")
        lines.append(f"{len(self.unattributed_pronouns)} unattributed pronouns; "
                     f"{len(self.entities_without_first_name)} entities without a first name")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_originals": self.n_originals,
            "n_skipped": len(self.skipped),
            "skip_rate": self.skip_rate,
            "skipped": [dataclasses.asdict(s) for s in self.skipped],
            "incomplete": [dataclasses.asdict(s) for s in self.incomplete],
            "unattributed_pronouns": [dataclasses.asdict(p) for p in self.unattributed_pronouns],
            "entities_without_first_name": [dataclasses.asdict(e) for e in self.entities_without_first_name],
        }


def _reason_kind(reason: str) -> str:
    """The reason without its document-specific detail (text after a colon), for counting."""
    return reason.split(":", 1)[0]


@dataclass
class PerturbationResult:
    """The inputs of one perturbation run, its skip report and the facts needed to reproduce it."""

    inputs: list[Input]
    report: SkipReport
    run_info: dict[str, Any] = field(default_factory=dict)


def merge_results(results: Sequence[PerturbationResult]) -> PerturbationResult:
    """One result from the results of consecutive chunks of a corpus: inputs in order, skip reports added up."""
    report = SkipReport(n_originals=sum(r.report.n_originals for r in results))
    inputs: list[Input] = []
    for result in results:
        inputs += result.inputs
        report.skipped += result.report.skipped
        report.incomplete += result.report.incomplete
        report.unattributed_pronouns += result.report.unattributed_pronouns
        report.entities_without_first_name += result.report.entities_without_first_name
    # Chunks share their configuration and name lists; what is recorded per document (a dict keyed by document id,
    # such as the people of each original) is united, in corpus order.
    run_info: dict[str, Any] = {}
    for result in results:
        for key, value in result.run_info.items():
            if isinstance(value, dict) and isinstance(run_info.get(key), dict):
                run_info[key] = {**run_info[key], **value}
            else:
                run_info.setdefault(key, value)
    if "n_inputs" in run_info:
        run_info["n_inputs"] = len(inputs)
    return PerturbationResult(inputs, report, run_info)


def document_chunks(documents: Sequence[Document]) -> list[Sequence[Document]]:
    """Consecutive chunks of ``documents`` of at most ``PROGRESS_CHUNK_DOCUMENTS`` documents and about
    ``PROGRESS_CHUNK_CHARS`` characters (a longer document is a chunk of its own)."""
    chunks: list[Sequence[Document]] = []
    start, chars = 0, 0
    for index, document in enumerate(documents):
        size = len(document.full_text)
        if index > start and (index - start >= PROGRESS_CHUNK_DOCUMENTS or chars + size > PROGRESS_CHUNK_CHARS):
            chunks.append(documents[start:index])
            start, chars = index, 0
        chars += size
    if start < len(documents) or not chunks:
        chunks.append(documents[start:])
    return chunks


def seeded_random(seed: int, *parts: str) -> random.Random:
    """Return a random source fixed by the seed and the given parts (e.g. perturbation and original id).

    Seeding per original makes every original's inputs independent of corpus order and of the other originals, so
    adding a document to a corpus leaves the inputs of the others unchanged.
    """
    return random.Random("/".join([str(seed), *parts]))


class Perturbation(ABC):
    """A perturbation: ``name`` (its registry key), a config dataclass, and ``run(documents)``."""

    name: ClassVar[str]
    config_class: ClassVar[type]

    def __init__(self, config: Any = None, **params: Any):
        if config is not None and params:
            raise TypeError("give either a config or keyword parameters, not both")
        self.config = config if config is not None else self.config_class(**params)

    @abstractmethod
    def run(self, documents: Sequence[Document]) -> PerturbationResult:
        """Return the inputs built from ``documents`` with the skip report."""

    def run_with_progress(
        self, documents: Sequence[Document], *, progress: Callable[[int], None] | None = None
    ) -> PerturbationResult:
        """Return the same result as ``run(documents)``, computed chunk by chunk (``document_chunks``), calling
        ``progress(n)`` after each chunk with the number of documents it held.

        Chunking changes no input: every original is seeded on its own (``seeded_random``) and parsed on its own, as
        the Ray executor also relies on. It also bounds memory to one chunk's parses.
        """
        results = []
        for chunk in document_chunks(documents):
            results.append(self.run(chunk))
            if progress is not None:
                progress(len(chunk))
        return merge_results(results)

    def run_info(self) -> dict[str, Any]:
        """The perturbation's name and configuration, as stored with the run."""
        return {"perturbation": self.name, "config": _jsonable(dataclasses.asdict(self.config))}


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value
