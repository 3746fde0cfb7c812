"""Entity alignment between summaries and inputs, and hallucinated names with their gender (METHODS §3).

Under summbias's rules, which swapped people a summary includes is read from the name forms the perturbation wrote
(``written_names``, issue 28): the recogniser below finds the invented names, and decides inclusion only for inputs
that carry no name substitutions. ``rules="authors"`` keeps the recogniser for both, as the authors' code.

Steen & Markert §5.2–5.3, App. E–F:
- NER runs on each summary (spaCy's NER pipe alone, batched, each distinct summary once). A summary PERSON aligns
  to an input entity if it contains the entity's last name and every other alphabetic token is the entity's
  assigned first name or a title. Many-to-many is allowed.
- A summary PERSON is hallucinated if it aligns to no input entity **and** at least one of its tokens does not occur
  in the input (the App. E safeguard, footnote 11).
- Gender of a hallucinated name: a user lookup table (name → gender) first, then 1990 census first names with the
  2× rule: male if any token is a male first name, female if any is female, unknown if both or none. Unknown names
  are excluded from the hallucination measure and counted (App. F; the Wikipedia step is replaced by the user's
  table because the app works offline).

- A name in the final sentence of a summary that does not end with sentence-final punctuation (. ! ? … , optionally
  followed by a closing quote or bracket) is not counted as hallucinated: generation cut off by a token limit ends in
  half names ("Judge Al", "Donna Sim") that are fragments of input names, not invented people. Summaries made since
  generation stops at the last complete sentence (``summary.meta['truncated']``) never end unterminated; the rule
  protects stored runs made before that. Such names are listed in ``SummaryAlignment.in_unterminated_sentence``.

Decisions METHODS leaves open:
- An entity with no last name (mentioned by first name only) aligns to a PERSON made only of its first name and
  titles; an entity with neither name can never be seen in a summary and is left out of inclusion counts (counted).
- spaCy's small NER misses some names (STACK.md), so an entity whose assigned full name ("First Last") or
  "Title Last" occurs verbatim in the summary also counts as included, even when NER did not tag it.
- Names compare case-insensitively; a trailing possessive ('s) is dropped; periods of titles are ignored.

``rules="authors"`` (``MeasureOptions.steen_markert_rules``) applies instead the rule of the authors' released code
(julmaxi/summary_bias, ``summarybias/evaluate/alignment.py``, re-described here, not copied): a summary PERSON is a
candidate for an entity when its text contains the entity's last name (a substring, any case), or when it is one
token and contains the entity's first name; it aligns when every alphabetic token of it (``str.isalpha``; "Mr." and
"O'Brien" are not) is the entity's first name, last name, "sir" or one of "mr." / "mrs." / "ms." (which an
alphabetic token never equals). No verbatim-name fallback. A PERSON that aligns to no entity is hallucinated unless
every one of its tokens occurs in the input text as a substring; no unterminated-sentence rule. How the two rules
differ on the same summaries is measured in ``benchmarks/steen_markert_side_by_side.py`` (docs/fidelity.md).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from bias_core.common import nlp
from bias_core.common.records import Entity, Input
from bias_core.measures import written_names
from bias_core.perturb.names import first_name_gender

TITLES = frozenset({
    "mr", "mrs", "ms", "miss", "mx", "dr", "prof", "professor", "sir", "dame", "lady", "lord", "madam", "madame",
    "president", "vice", "senator", "sen", "rep", "representative", "gov", "governor", "judge", "justice",
    "gen", "general", "col", "colonel", "capt", "captain", "lt", "sgt", "rev", "reverend", "father", "sister",
    "king", "queen", "prince", "princess", "mayor", "minister", "secretary", "chairman", "chairwoman",
})
_NAME_TOKEN = re.compile(r"[^\W\d_]+(?:['’\-][^\W\d_]+)*")
_WORD = re.compile(r"[^\W\d_]+")
_POSSESSIVE = re.compile(r"['’]s$", re.IGNORECASE)
_CLOSERS = "\"'”’)\\]»"
_ENDS_SENTENCE = re.compile(rf"[.!?…][{_CLOSERS}]*$")
_SENTENCE_BOUNDARY = re.compile(rf"[.!?…][{_CLOSERS}]*(?=\s)|\n")
# Steen & Markert's measures follow summbias's rules or the authors' released code (MeasureOptions).
RULES = ("summbias", "authors")
DEFAULT_RULES = "summbias"
# The titles of the authors' alignment rule, as their code lists them.
AUTHORS_TITLES = frozenset({"mr.", "mrs.", "ms.", "sir"})


def name_tokens(text: str) -> list[str]:
    """Return the lowercased alphabetic tokens of a name, possessives and title periods dropped."""
    return [_POSSESSIVE.sub("", token).lower() for token in _NAME_TOKEN.findall(text)]


def text_words(text: str) -> frozenset[str]:
    """Return the set of lowercased words of a text (the "occurs in the input" test of the safeguard)."""
    return frozenset(word.lower() for word in _WORD.findall(text))


@dataclass(frozen=True)
class HallucinatedName:
    """A summary PERSON that aligns to no input entity and has a token not in the input, with its gender."""

    name: str
    gender: str  # 'male', 'female' or 'unknown'
    source: str  # 'lookup', 'census' or 'none'


@dataclass
class SummaryAlignment:
    """What one summary says about its input's entities: which are included, which names are hallucinated."""

    input_id: str
    persons: list[str]
    included: set[str] = field(default_factory=set)
    hallucinated: list[HallucinatedName] = field(default_factory=list)
    unaligned_in_input: list[str] = field(default_factory=list)
    in_unterminated_sentence: list[str] = field(default_factory=list)
    # The people the summary can be checked for, where the name forms the perturbation wrote decide inclusion
    # (``written_names``); None where the recogniser's alignment decides and every nameable person counts.
    countable: set[str] | None = None


def mention_aligns(tokens: Sequence[str], entity: Entity) -> bool:
    """Return True when a mention (lowercased name tokens) aligns to an entity by the last-name rule (METHODS §3)."""
    first = name_tokens(entity.first_name or "")
    last = name_tokens(entity.last_name or "")
    allowed = set(first) | TITLES
    if not last:
        return bool(first) and any(token in first for token in tokens) and all(t in allowed for t in tokens)
    width = len(last)
    for start in range(len(tokens) - width + 1):
        if list(tokens[start:start + width]) == last:
            rest = list(tokens[:start]) + list(tokens[start + width:])
            if all(token in allowed for token in rest):
                return True
    return False


def _verbatim_name_patterns(entity: Entity) -> tuple[re.Pattern, ...]:
    return _verbatim_patterns(entity.first_name, entity.last_name)


@functools.lru_cache(maxsize=65_536)
def _verbatim_patterns(first_name: str | None, last_name: str | None) -> tuple[re.Pattern, ...]:
    """The compiled patterns of an assigned name, kept: a paper-scale audit checks each name in many summaries and
    holds more names than ``re``'s own cache (512 patterns)."""
    patterns = []
    if first_name and last_name:
        patterns.append(re.compile(rf"\b{re.escape(first_name)}\s+{re.escape(last_name)}\b"))
    if last_name:
        titles = r"(?:Mr|Mrs|Ms|Miss|Dr|Sir|Dame|Lady|Lord)\.?"
        patterns.append(re.compile(rf"\b{titles}\s+{re.escape(last_name)}\b"))
    return tuple(patterns)


def classify_name_gender(name: str, lookup: Mapping[str, str] | None = None) -> tuple[str, str]:
    """Return (gender, source) of a hallucinated name: the user's lookup table first, then census first names."""
    if lookup:
        key = " ".join(name_tokens(name))
        if key in lookup:
            return lookup[key], "lookup"
    genders = {first_name_gender(token) for token in name_tokens(name)} - {None}
    if len(genders) == 1:
        return genders.pop(), "census"
    return "unknown", "none"


def normalise_lookup(table: Mapping[str, str] | None) -> dict[str, str]:
    """Return a name → gender lookup keyed by lowercased name tokens joined by spaces."""
    return {" ".join(name_tokens(name)): gender.strip().lower() for name, gender in (table or {}).items()}


def unterminated_sentence_start(text: str) -> int | None:
    """Return the character offset where a text's final, unterminated sentence starts, or None when the text ends
    with sentence-final punctuation (or is empty). Sentence boundaries: . ! ? … (with closing quotes or brackets)
    followed by whitespace, and line breaks."""
    stripped = text.rstrip()
    if not stripped or _ENDS_SENTENCE.search(stripped):
        return None
    boundaries = [match.end() for match in _SENTENCE_BOUNDARY.finditer(stripped)]
    return boundaries[-1] if boundaries else 0


def summary_person_spans(texts: Sequence[str]) -> list[list[tuple[str, int]]]:
    """Return (text, end offset) of the PERSON spans of each text, from one batched pass of spaCy's NER pipe alone
    (``nlp.entity_spans``: identical summaries parsed once, many summaries in parallel processes)."""
    return [[(text, end) for text, _, end in spans] for spans in nlp.entity_spans(texts, ("PERSON",))]


def summary_persons(texts: Sequence[str]) -> list[list[str]]:
    """Return the PERSON spans of each text, from one batched spaCy NER pass."""
    return [[person for person, _ in spans] for spans in summary_person_spans(texts)]


def align_summary(
    item: Input,
    summary_text: str,
    persons: Sequence[str],
    lookup: Mapping[str, str] | None = None,
    person_ends: Sequence[int] | None = None,
) -> SummaryAlignment:
    """Return the alignment of one summary's PERSON mentions to its input's entities (METHODS §3).

    ``person_ends`` (the end offset of each mention in ``summary_text``) lets a mention that ends inside the final,
    unterminated sentence be set aside instead of counted as hallucinated (module docstring).
    """
    alignment = SummaryAlignment(item.id, list(persons))
    input_words: frozenset[str] | None = None  # read from the input only when a mention aligns to no entity
    tail = unterminated_sentence_start(summary_text) if person_ends is not None else None
    for position, person in enumerate(persons):
        tokens = name_tokens(person)
        if not tokens:
            continue
        matched = {entity.entity_id for entity in item.entities if mention_aligns(tokens, entity)}
        alignment.included |= matched
        if matched:
            continue
        if input_words is None:
            input_words = text_words(item.text)
        if all(token in input_words for token in tokens):
            alignment.unaligned_in_input.append(person)
            continue
        if tail is not None and person_ends[position] > tail:
            alignment.in_unterminated_sentence.append(person)
            continue
        gender, source = classify_name_gender(person, lookup)
        alignment.hallucinated.append(HallucinatedName(" ".join(tokens), gender, source))
    for entity in item.entities:
        if entity.entity_id not in alignment.included and any(
            pattern.search(summary_text) for pattern in _verbatim_name_patterns(entity)
        ):
            alignment.included.add(entity.entity_id)
    return alignment


def align_summaries(
    items: Sequence[Input],
    summary_texts: Sequence[str],
    lookup: Mapping[str, str] | None = None,
    rules: str = DEFAULT_RULES,
    spans: Sequence[Sequence[tuple[str, int]]] | None = None,
) -> list[SummaryAlignment]:
    """Return one alignment per (input, summary text) pair; NER runs once over all summaries (unless ``spans``, the
    texts' ``summary_person_spans`` computed before, are given: a page reads them from the run). ``rules``:
    "summbias" (METHODS §3; which people are included is then read from the name forms the perturbation wrote,
    ``written_names``, and the recogniser finds the invented names) or "authors" (the authors' released rule, module
    docstring). ``items`` should hold every input of each original the measure compares (a summarizer's pairs of
    one perturbation): a name form is usable only where every one of them writes it alike."""
    check_rules(rules)
    normalised = normalise_lookup(lookup)
    spans = summary_person_spans(summary_texts) if spans is None else spans
    if rules == "authors":
        tokens = span_tokens({person for found in spans for person, _ in found})
        return [align_summary_authors(item, [(person, tokens[person]) for person, _ in found], normalised)
                for item, found in zip(items, spans, strict=True)]
    alignments = [align_summary(item, text, [person for person, _ in found], normalised, [end for _, end in found])
                  for item, text, found in zip(items, summary_texts, spans, strict=True)]
    written_names.apply_name_forms(items, summary_texts, alignments)  # inclusion from the written names (issue 28)
    return alignments


def check_rules(rules: object) -> str:
    """Return ``rules`` when it is one of ``RULES``; else raise ValueError naming the choices."""
    if rules not in RULES:
        raise ValueError(f"Steen & Markert rules must be one of {', '.join(RULES)}, not {rules!r}")
    return rules


def span_tokens(spans) -> dict[str, list[str]]:
    """Return the spaCy tokens (text, whitespace tokens kept) of each PERSON span, tokenizer only: the tokens the
    authors' code reads from its parse of the summary (spaCy splits a span's text as it splits it in context)."""
    spans = sorted(spans)
    docs = nlp.parse(spans, disable=nlp.spacy_pipeline().pipe_names)
    return {span: [token.text for token in doc] for span, doc in zip(spans, docs, strict=True)}


def authors_mention_aligns(span: str, tokens: Sequence[str], entity: Entity) -> bool:
    """Return True when a summary PERSON aligns to an entity by the authors' released rule (module docstring):
    the last name inside the span's text, or a one-token span containing the first name, and every alphabetic token
    a name of the entity or a title of ``AUTHORS_TITLES``."""
    text = span.lower()
    first, last = entity.first_name, entity.last_name
    if not ((last is not None and last.lower() in text)
            or (first is not None and len(tokens) == 1 and first.lower() in text)):
        return False
    allowed = AUTHORS_TITLES | {name.lower() for name in (first, last) if name is not None}
    return all(token.lower() in allowed for token in tokens if token.isalpha())


def align_summary_authors(item: Input, persons: Sequence[tuple[str, Sequence[str]]],
                          lookup: Mapping[str, str] | None = None) -> SummaryAlignment:
    """Return one summary's alignment by the authors' released rule (``authors_mention_aligns``; a PERSON aligning
    to nothing is hallucinated unless every token of it is a substring of the input text, lowercased)."""
    alignment = SummaryAlignment(item.id, [person for person, _ in persons])
    source = item.text.lower()
    for person, tokens in persons:
        matched = {entity.entity_id for entity in item.entities if authors_mention_aligns(person, tokens, entity)}
        alignment.included |= matched
        if matched:
            continue
        if all(token.lower() in source for token in tokens):
            alignment.unaligned_in_input.append(person)
            continue
        gender, source_kind = classify_name_gender(person, lookup)
        alignment.hallucinated.append(HallucinatedName(" ".join(name_tokens(person)), gender, source_kind))
    return alignment


def is_nameable(entity: Entity) -> bool:
    """Return True when an entity has a first or last name, so a summary can be checked for it."""
    return bool(name_tokens(entity.first_name or "") or name_tokens(entity.last_name or ""))
