"""The records that flow between stages: document → input → summary → measure result.

Each record converts to and from the JSON objects of INTERFACES.md. Fields the format does not name are kept in
``extra`` and written back unchanged, so reading and writing a file is lossless. Optional fields that are ``None``
(and empty ``meta``/``extra``) are omitted on output, as in the documented examples.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

SUBSTITUTION_KINDS = (
    "first_name",
    "last_name",
    "full_name",
    "pronoun",
    "title",
    "content_word",
    "politician_name",
)
ROLES = ("original", "control", "swap1", "swap2", "identity")
# Roles of the second draw from the same group in a quadruple (Counter-GAP §3): a within-group control.
CONTROL_ROLES = ("control", "swap2")
PERTURBATIONS = (
    "identity",
    "gender-loc",
    "gender-glob",
    "race",
    "race-intersectional",
    "politician",
    "sentiment",
)
UNIT_SEPARATOR = " || "


class RecordError(ValueError):
    """A JSON object does not have the fields or types a record needs."""


def _require(data: dict, key: str, kind: type | tuple[type, ...], record: str) -> Any:
    if not isinstance(data, dict):
        raise RecordError(f"a {record} must be a JSON object, got {type(data).__name__}")
    if key not in data:
        raise RecordError(f"{record} is missing the required field '{key}'")
    value = data[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        expected = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise RecordError(f"{record} field '{key}' must be {expected}, got {type(value).__name__}")
    return value


def _optional(data: dict, key: str, kind: type | tuple[type, ...], record: str) -> Any:
    if isinstance(data, dict) and data.get(key) is None:
        return None
    return _require(data, key, kind, record)


def _numbers(values: list, key: str, record: str) -> list[float]:
    """``values`` as floats; a ``RecordError`` naming the field and the first item that is not a number."""
    for position, value in enumerate(values, start=1):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise RecordError(f"{record} field '{key}' must be a list of numbers, but item {position} is "
                              f"{json.dumps(value)[:40]}")
    return [float(value) for value in values]


def _extra(data: dict, known: tuple[str, ...]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if key not in known}


def _put(out: dict, key: str, value: Any) -> None:
    if value is not None:
        out[key] = value


@dataclass
class Unit:
    """One unit of a perspective document (a review, tweet or dialogue turn) with its value (METHODS §1.6)."""

    text: str
    value: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    FIELDS: ClassVar[tuple[str, ...]] = ("text", "value")

    @classmethod
    def from_dict(cls, data: dict) -> Unit:
        value = data.get("value") if isinstance(data, dict) else None
        if value is not None and not isinstance(value, str):
            value = str(value)
        return cls(text=_require(data, "text", str, "unit"), value=value, extra=_extra(data, cls.FIELDS))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text}
        _put(out, "value", self.value)
        return {**out, **self.extra}


@dataclass
class Document:
    """An original as uploaded: a news text, or a set of units with values (INTERFACES.md "documents")."""

    id: str
    text: str | None = None
    units: list[Unit] | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    FIELDS: ClassVar[tuple[str, ...]] = ("id", "text", "units", "meta")

    def __post_init__(self) -> None:
        if (self.text is None) == (self.units is None):
            raise RecordError(f"document '{self.id}' needs exactly one of 'text' or 'units'")

    @property
    def is_perspective(self) -> bool:
        return self.units is not None

    @property
    def full_text(self) -> str:
        """The text a summarizer reads: the news text, or the units joined with " || " (METHODS §1.6)."""
        if self.units is not None:
            return UNIT_SEPARATOR.join(unit.text for unit in self.units)
        return self.text or ""

    @classmethod
    def from_dict(cls, data: dict) -> Document:
        doc_id = _require(data, "id", (str, int), "document")
        units = data.get("units")
        if units is not None:
            if not isinstance(units, list):
                raise RecordError("document field 'units' must be a list")
            units = [Unit.from_dict(unit) for unit in units]
        return cls(
            id=str(doc_id),
            text=_optional(data, "text", str, "document"),
            units=units,
            meta=_optional(data, "meta", dict, "document") or {},
            extra=_extra(data, cls.FIELDS),
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id}
        _put(out, "text", self.text)
        if self.units is not None:
            out["units"] = [unit.to_dict() for unit in self.units]
        if self.meta:
            out["meta"] = self.meta
        return {**out, **self.extra}


@dataclass
class Entity:
    """A person of an input with the group and names it was given there (INTERFACES.md "inputs")."""

    entity_id: str
    group: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    original_first_name: str | None = None
    original_last_name: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    FIELDS: ClassVar[tuple[str, ...]] = (
        "entity_id",
        "group",
        "first_name",
        "last_name",
        "original_first_name",
        "original_last_name",
    )

    @classmethod
    def from_dict(cls, data: dict) -> Entity:
        values = {name: _optional(data, name, str, "entity") for name in cls.FIELDS[1:]}
        return cls(entity_id=str(_require(data, "entity_id", (str, int), "entity")), **values, extra=_extra(data, cls.FIELDS))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"entity_id": self.entity_id}
        for name in self.FIELDS[1:]:
            _put(out, name, getattr(self, name))
        return {**out, **self.extra}


@dataclass
class Substitution:
    """One rewritten span: ``text[start:end] == replacement`` in the input, ``original`` in the document."""

    start: int
    end: int
    original: str
    replacement: str
    kind: str
    entity_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    # Why the span was rewritten (issue 10): the type of what it belongs to ("PERSON"; None for a pronoun no entity
    # took), the evidence that made it a person ("title", "first-name+surname", "initials+surname",
    # "first-name+unlisted-surname", "appositive-role", "pronoun",
    # "gold"; "unattributed" for an unattributed pronoun) and spaCy's own label of the span ("" when untagged).
    # None in records written before these fields existed and in perturbations that do not set them.
    entity_label: str | None = None
    evidence: str | None = None
    ner_label: str | None = None
    # How sure the perturbation is that the span names a person — "high", "medium" or "low" — and why (issue 21;
    # ``perturb.person_evidence``). None in records written before these fields existed and for unattributed pronouns.
    swap_confidence: str | None = None
    swap_confidence_reason: str | None = None

    FIELDS: ClassVar[tuple[str, ...]] = ("start", "end", "original", "replacement", "entity_id", "kind",
                                         "entity_label", "evidence", "ner_label", "swap_confidence",
                                         "swap_confidence_reason")

    def __post_init__(self) -> None:
        if self.kind not in SUBSTITUTION_KINDS:
            raise RecordError(f"substitution kind '{self.kind}' is not one of {', '.join(SUBSTITUTION_KINDS)}")
        if not 0 <= self.start <= self.end:
            raise RecordError(f"substitution span [{self.start}, {self.end}) is not a valid range")

    @classmethod
    def from_dict(cls, data: dict) -> Substitution:
        entity_id = data.get("entity_id") if isinstance(data, dict) else None
        return cls(
            start=_require(data, "start", int, "substitution"),
            end=_require(data, "end", int, "substitution"),
            original=_require(data, "original", str, "substitution"),
            replacement=_require(data, "replacement", str, "substitution"),
            kind=_require(data, "kind", str, "substitution"),
            entity_id=None if entity_id is None else str(entity_id),
            extra=_extra(data, cls.FIELDS),
            entity_label=_optional(data, "entity_label", str, "substitution"),
            evidence=_optional(data, "evidence", str, "substitution"),
            ner_label=_optional(data, "ner_label", str, "substitution"),
            swap_confidence=_optional(data, "swap_confidence", str, "substitution"),
            swap_confidence_reason=_optional(data, "swap_confidence_reason", str, "substitution"),
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "start": self.start,
            "end": self.end,
            "original": self.original,
            "replacement": self.replacement,
        }
        _put(out, "entity_id", self.entity_id)
        out["kind"] = self.kind
        for name in ("entity_label", "evidence", "ner_label", "swap_confidence", "swap_confidence_reason"):
            _put(out, name, getattr(self, name))
        return {**out, **self.extra}


def undo_substitutions(text: str, substitutions: list[Substitution]) -> str:
    """Return ``text`` with every substituted span put back to its original (INTERFACES.md "inputs").

    Raises ``RecordError`` when a span does not hold its stated replacement or spans overlap, because then the map
    does not describe the text and nothing downstream could trust it.
    """
    pieces: list[str] = []
    cursor = 0
    for sub in sorted(substitutions, key=lambda s: (s.start, s.end)):
        if sub.start < cursor:
            raise RecordError(f"substitutions overlap at character {sub.start}")
        if sub.end > len(text):
            raise RecordError(f"substitution at [{sub.start}, {sub.end}) runs past the end of the text ({len(text)})")
        if text[sub.start : sub.end] != sub.replacement:
            raise RecordError(
                f"substitution at [{sub.start}, {sub.end}) expects {sub.replacement!r}, "
                f"text holds {text[sub.start:sub.end]!r}"
            )
        pieces.append(text[cursor : sub.start])
        pieces.append(sub.original)
        cursor = sub.end
    pieces.append(text[cursor:])
    return "".join(pieces)


@dataclass
class Input:
    """A (perturbed) document given to summarizers, with its assignment and substitution map (METHODS §0)."""

    id: str
    original_id: str
    text: str
    perturbation: str = "identity"
    sample_id: int | None = None
    arm: str | None = None
    role: str | None = None
    quadruple_id: str | None = None
    entities: list[Entity] = field(default_factory=list)
    substitutions: list[Substitution] = field(default_factory=list)
    units: list[Unit] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    FIELDS: ClassVar[tuple[str, ...]] = (
        "id",
        "original_id",
        "sample_id",
        "perturbation",
        "arm",
        "role",
        "quadruple_id",
        "text",
        "entities",
        "substitutions",
        "units",
    )

    def __post_init__(self) -> None:
        if self.role is not None and self.role not in ROLES:
            raise RecordError(f"input '{self.id}' has role '{self.role}', expected one of {', '.join(ROLES)}")

    def original_text(self) -> str:
        """The original document's text, recovered by undoing the substitution map."""
        return undo_substitutions(self.text, self.substitutions)

    @classmethod
    def from_document(cls, document: Document) -> Input:
        """The identity input of a document: its text unchanged (METHODS §1.7)."""
        return cls(
            id=f"{document.id}/identity",
            original_id=document.id,
            text=document.full_text,
            perturbation="identity",
            sample_id=0,
            role="identity",
            units=[Unit(u.text, u.value, dict(u.extra)) for u in document.units] if document.units else None,
        )

    @classmethod
    def from_dict(cls, data: dict) -> Input:
        entities = data.get("entities") if isinstance(data, dict) else None
        substitutions = data.get("substitutions") if isinstance(data, dict) else None
        units = data.get("units") if isinstance(data, dict) else None
        for name, value in (("entities", entities), ("substitutions", substitutions), ("units", units)):
            if value is not None and not isinstance(value, list):
                raise RecordError(f"input field '{name}' must be a list")
        return cls(
            id=str(_require(data, "id", (str, int), "input")),
            original_id=str(_require(data, "original_id", (str, int), "input")),
            text=_require(data, "text", str, "input"),
            perturbation=_optional(data, "perturbation", str, "input") or "identity",
            sample_id=_optional(data, "sample_id", int, "input"),
            arm=_optional(data, "arm", str, "input"),
            role=_optional(data, "role", str, "input"),
            quadruple_id=_optional(data, "quadruple_id", str, "input"),
            entities=[Entity.from_dict(e) for e in entities or []],
            substitutions=[Substitution.from_dict(s) for s in substitutions or []],
            units=None if units is None else [Unit.from_dict(u) for u in units],
            extra=_extra(data, cls.FIELDS),
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "original_id": self.original_id}
        _put(out, "sample_id", self.sample_id)
        out["perturbation"] = self.perturbation
        for name in ("arm", "role", "quadruple_id"):
            _put(out, name, getattr(self, name))
        out["text"] = self.text
        out["entities"] = [e.to_dict() for e in self.entities]
        out["substitutions"] = [s.to_dict() for s in self.substitutions]
        if self.units is not None:
            out["units"] = [u.to_dict() for u in self.units]
        return {**out, **self.extra}


@dataclass
class Summary:
    """One summarizer's output on one input (INTERFACES.md "summaries")."""

    input_id: str
    summarizer: str
    text: str
    sentences: list[str] | None = None
    sentence_scores: list[float] | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    FIELDS: ClassVar[tuple[str, ...]] = ("input_id", "summarizer", "text", "sentences", "sentence_scores", "meta")

    def __post_init__(self) -> None:
        if (self.sentences is None) != (self.sentence_scores is None):
            raise RecordError(f"summary of '{self.input_id}' needs both 'sentences' and 'sentence_scores' or neither")
        if self.sentences is not None and len(self.sentences) != len(self.sentence_scores or []):
            raise RecordError(f"summary of '{self.input_id}' has {len(self.sentences)} sentences but "
                              f"{len(self.sentence_scores or [])} sentence scores")

    @classmethod
    def from_dict(cls, data: dict) -> Summary:
        sentences = _optional(data, "sentences", list, "summary")
        scores = _optional(data, "sentence_scores", list, "summary")
        return cls(
            input_id=str(_require(data, "input_id", (str, int), "summary")),
            summarizer=_require(data, "summarizer", str, "summary"),
            text=_require(data, "text", str, "summary"),
            sentences=None if sentences is None else [str(s) for s in sentences],
            sentence_scores=None if scores is None else _numbers(scores, "sentence_scores", "summary"),
            meta=_optional(data, "meta", dict, "summary") or {},
            extra=_extra(data, cls.FIELDS),
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"input_id": self.input_id, "summarizer": self.summarizer, "text": self.text}
        _put(out, "sentences", self.sentences)
        _put(out, "sentence_scores", self.sentence_scores)
        if self.meta:
            out["meta"] = self.meta
        return {**out, **self.extra}


@dataclass
class MeasureResult:
    """A measure's value with its n, confidence interval and, when undefined, why (METHODS §0, §4.5).

    ``value`` is ``nan`` when the measure is undefined on the data; ``reason`` then says why. It is written as JSON
    ``null``, as INTERFACES.md asks.
    """

    measure: str
    value: float
    n: int
    perturbation: str | None = None
    summarizer: str | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    ci_kind: str | None = None
    reason: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    FIELDS: ClassVar[tuple[str, ...]] = (
        "measure",
        "perturbation",
        "summarizer",
        "value",
        "ci_low",
        "ci_high",
        "ci_kind",
        "n",
        "reason",
        "details",
    )

    def __post_init__(self) -> None:
        if not math.isfinite(self.value) and not self.reason:
            raise RecordError(f"measure '{self.measure}' is undefined ({self.value}) but gives no reason")

    @property
    def is_defined(self) -> bool:
        return math.isfinite(self.value)

    @classmethod
    def from_dict(cls, data: dict) -> MeasureResult:
        value = _optional(data, "value", (int, float), "measure result")
        ci_low = _optional(data, "ci_low", (int, float), "measure result")
        ci_high = _optional(data, "ci_high", (int, float), "measure result")
        return cls(
            measure=_require(data, "measure", str, "measure result"),
            value=math.nan if value is None else float(value),
            n=_require(data, "n", int, "measure result"),
            perturbation=data.get("perturbation"),
            summarizer=data.get("summarizer"),
            ci_low=None if ci_low is None else float(ci_low),
            ci_high=None if ci_high is None else float(ci_high),
            ci_kind=data.get("ci_kind"),
            reason=data.get("reason"),
            details=_optional(data, "details", dict, "measure result") or {},
            extra=_extra(data, cls.FIELDS),
        )

    def to_dict(self) -> dict[str, Any]:
        def finite_or_none(x: float | None) -> float | None:
            return x if x is not None and math.isfinite(x) else None

        out: dict[str, Any] = {
            "measure": self.measure,
            "perturbation": self.perturbation,
            "summarizer": self.summarizer,
            "value": finite_or_none(self.value),
            "ci_low": finite_or_none(self.ci_low),
            "ci_high": finite_or_none(self.ci_high),
            "ci_kind": self.ci_kind,
            "n": self.n,
            "reason": self.reason,
            "details": self.details,
        }
        return {**out, **self.extra}
