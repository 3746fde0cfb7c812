"""Review the swaps before any model runs (issue 14): a checklist over *all* inputs of each perturbation and a seeded
sample of inputs to read, so a place turned into a person, a leftover "Mr" before a woman's name or a half-swapped
politician is found before hours of model time, not after.

``review_inputs(inputs, reports)`` returns one :class:`PerturbationReview` per perturbation with these checks, each
with counts and concrete examples (input id, span, context):

- ``doubtful_swaps``: swaps the perturbation is not sure name a person (medium or low confidence, issue 21), low
  first, each with its sentence — shown first, and what the analyst can exclude per original or per name;
- ``non_person``: name swaps of spans spaCy labelled something other than a person (GPE, ORG, …);
- ``leftover_titles``, ``leftover_content_words``, ``leftover_pronouns``: gendered words the input kept that disagree
  with the gender the input gives the person next to them (or, for C_glob's one-gender arms, with the arm);
- ``gender_agreement``: a pronoun or gendered noun that spaCy's parse ties to a person of the other gender in the
  input, in the same sentence or the next (issue 21; ``perturb.agreement``);
- ``partial_names``: an original first or last name the input replaced but still contains;
- ``politician_aliases``: the original politician's surname or given names left in a swapped input;
- ``skipped``: originals the perturbation could not use, with its reasons.

Pure functions over records: the app's Audit page shows this, ``python -m bias_core audit --review`` prints it and
``audit.run_audit`` stores ``review_report`` with the run.
"""

from __future__ import annotations

import random
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from bias_core.common.records import Entity, Input, Substitution
from bias_core.perturb.agreement import gender_of, gendered_word_ties
from bias_core.perturb.lexicon import CONTENT_WORD_GENDER, GENDERS, PRONOUN_GENDER, TITLE_GENDER, title_key
from bias_core.perturb.names import first_name_gender

# Inputs shown per perturbation on the Audit page and recorded with the run as "what was reviewed".
REVIEW_SAMPLE_SIZE = 3
# Examples kept per check: all of them for the page, the first few in the run's stored report.
STORED_EXAMPLES = 5
CONTEXT_CHARS = 60
NAME_KINDS = frozenset({"first_name", "last_name", "full_name", "politician_name"})
GENDER_KINDS = ("gender-loc", "gender-glob")
NAME_SWAP_KINDS = (*GENDER_KINDS, "race", "race-intersectional")
# Gendered role nouns that Steen & Markert's Table 18 (``perturb.lexicon.CONTENT_WORD_PAIRS``) does not list, so no
# option rewrites them; a leftover one next to a person of the other gender is worth seeing before a run.
ROLE_NOUNS_OUTSIDE_TABLE_18 = {
    **dict.fromkeys(("spokesman", "spokesmen", "congressman", "congressmen", "businessman", "businessmen",
                     "councilman", "councilmen", "assemblyman", "alderman", "policeman", "policemen", "fireman",
                     "firemen", "salesman", "sportsman", "chairmen", "headmaster", "grandfather", "grandson",
                     "boyfriend", "widower", "stepfather", "stepson"), "male"),
    **dict.fromkeys(("spokeswoman", "spokeswomen", "congresswoman", "congresswomen", "businesswoman",
                     "businesswomen", "councilwoman", "councilwomen", "assemblywoman", "alderwoman", "policewoman",
                     "policewomen", "firewoman", "saleswoman", "sportswoman", "chairwomen", "headmistress",
                     "grandmother", "granddaughter", "girlfriend", "widow", "stepmother", "stepdaughter", "mom",
                     "hostess"), "female"),
}
ROLE_NOUNS_OUTSIDE_TABLE_18 = {word: gender for word, gender in ROLE_NOUNS_OUTSIDE_TABLE_18.items()
                               if word not in CONTENT_WORD_GENDER and word not in TITLE_GENDER}
GENDERED_NOUNS = {**ROLE_NOUNS_OUTSIDE_TABLE_18, **CONTENT_WORD_GENDER}
# Honorifics that stand only before a name; Sir, Dame, Lord and Lady are also nouns and parts of names ("Lady
# Gaga", "Lord of the Rings"), so they are checked only before a name the input gives a person.
HONORIFICS = frozenset({"mr", "mrs", "ms", "miss"})
_WORD = r"[A-Z][\w'’-]*"
_TITLE = re.compile(r"(?<![\w.])(?P<title>(?i:" + "|".join(sorted(TITLE_GENDER, key=len, reverse=True))
                    + r"))\.?\s+(?P<name>" + _WORD + r")")
_PRONOUN = re.compile(r"(?<![\w'’])(?P<word>(?i:" + "|".join(sorted(PRONOUN_GENDER, key=len, reverse=True))
                      + r"))(?![\w'’])")
_NOUNS = "|".join(sorted(GENDERED_NOUNS, key=len, reverse=True))
# A gendered noun right before a capitalised word ("spokesman John Doe", "Chairman, Doe") or after one as ", the …"
# ("Doe, the chairman", "Doe's, a former chairman"); the word is then looked up among the input's people. One pattern
# for all inputs: compiling one per input's names cost most of the review's time.
_NOUN_BEFORE_NAME = re.compile(r"(?<![\w-])(?P<word>(?i:" + _NOUNS + r")),?\s+(?P<name>" + _WORD + r")")
_NOUN_AFTER_NAME = re.compile(r"(?<![\w'’-])(?P<name>[A-Z][\w'’-]*?)(?:['’]s)?,\s+(?i:the|a|an|its|their)\s+"
                              r"(?:[\w-]+\s+){0,3}?(?P<word>(?i:" + _NOUNS + r"))(?![\w-])")
_SENTENCE_START = re.compile(r"(?:\A|[.!?:;\"“”]\s+|\n\s*)\Z")
_SENTENCE_END = re.compile(r"[.!?][\"”’)]*\s+|\n+")

CONFIDENCE_RANK = {"low": 0, "medium": 1}  # the doubtful confidences, most doubtful first
SENTENCE_CHARS = 240  # a sentence shown with a finding is cut to about this many characters around the span

CHECK_TITLES = {
    "doubtful_swaps": "Swaps of names the perturbation is not sure are people (low or medium confidence)",
    "non_person": "Names swapped although spaCy labelled them something other than a person",
    "leftover_titles": "Leftover titles of the other gender (Mr, Mrs, Ms, Sir, Lady …)",
    "leftover_content_words": "Leftover gendered words next to a person of the other gender (chairman, "
                              "spokesman …)",
    "leftover_pronouns": "Leftover pronouns of the other gender in one-gender (C_glob) inputs",
    "gender_agreement": "Pronouns and gendered nouns the parse ties to a person of the other gender (same or next "
                        "sentence)",
    "partial_names": "Partially swapped names (an original first or last name still in the input)",
    "politician_aliases": "Leftover names of the original politician",
    "skipped": "Originals skipped, with reasons",
}
CHECK_HOW = {
    "doubtful_swaps": "Every swapped name whose substitutions record a low or medium confidence, one line per "
                      "original and name, low first, with its sentence in the original. Low: a cue against it (a "
                      "place, work or organisation word, a quoted title or a gazetteer place around another mention "
                      "of the name), a rare first name, or a single word only a pronoun made a person; medium: a "
                      "first name and a surname and nothing else (no title, no pronoun). Exclude the original, or "
                      "just the name, below.",
    "non_person": "Every name substitution whose entity type is not PERSON or whose spaCy label (ner_label) is a "
                  "label other than PERSON (GPE, ORG, FAC …); the note gives the evidence that made it a person.",
    "leftover_titles": "Every gendered title followed by a name that the input gives a person of the other gender "
                       "(its entity's gender in this input); in C_glob inputs also every Mr/Mrs/Ms/Miss of the "
                       "other gender before any capitalised word.",
    "leftover_content_words": "Every gendered noun (Table 18 or a role noun such as spokesman) written right before "
                              "a person's name or as ', the …' right after it, whose gender is not the gender the "
                              "input gives that person.",
    "leftover_pronouns": "Every he/him/his/himself/she/her/hers/herself of the other gender in a C_glob input, "
                         "where every person and unattributed pronoun takes the arm's gender (C_loc inputs mix "
                         "genders, so their pronouns are not checked).",
    "gender_agreement": "Every he/him/his/himself/she/her/hers/herself and gendered noun (man, woman, boy, mother, "
                        "chairman …) that spaCy's parse of the original ties to a swapped person — as the subject of "
                        "the clause it reports or continues, the subject of the sentence before, or through a "
                        "compound, apposition, copula or 'known as' — whose gender in the input is not that "
                        "person's gender there.",
    "partial_names": "Every whole-word, case-sensitive occurrence in the input of an original first or last name "
                     "the input replaced, unless another person of the input bears that name or it starts a "
                     "sentence before a lowercase word (\"Will the …\").",
    "politician_aliases": "Every whole-word occurrence in a swapped input of the original politician's surname (any "
                          "case) or of a given name or nickname of theirs (capitalised) that the new politician "
                          "does not share.",
    "skipped": "The perturbation's skip report: originals that gave no inputs (and those that gave only part of "
               "them), with the reason it gave.",
}


@dataclass(frozen=True)
class Example:
    """One finding: where it is (input and original), the span it is about, what is wrong, and the text around it."""

    input_id: str
    original_id: str
    span: str
    note: str
    context: str


@dataclass
class Check:
    """One line of the checklist: how many spans it found in how many inputs and originals, with examples (each
    distinct original, span and note once)."""

    key: str
    title: str
    how: str
    occurrences: int = 0
    inputs: int = 0
    originals: int = 0
    examples: list[Example] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.occurrences == 0

    def to_dict(self, max_examples: int | None = None) -> dict[str, Any]:
        examples = self.examples if max_examples is None else self.examples[:max_examples]
        return {"key": self.key, "title": self.title, "how": self.how, "occurrences": self.occurrences,
                "inputs": self.inputs, "originals": self.originals, "examples": [asdict(e) for e in examples]}


@dataclass
class PerturbationReview:
    """The checklist of one perturbation over all its inputs, and whether it swapped content words."""

    perturbation: str
    n_inputs: int
    n_originals: int
    checks: list[Check]
    content_words: bool | None = None

    def check(self, key: str) -> Check:
        return next(check for check in self.checks if check.key == key)


@dataclass
class Review:
    """The checklists of every perturbation (identity has none: it swaps nothing), the originals excluded and the
    names excluded from swapping per original."""

    perturbations: list[PerturbationReview]
    excluded: list[str] = field(default_factory=list)
    excluded_entities: dict[str, list[str]] = field(default_factory=dict)

    def doubtful_names(self) -> list[Example]:
        """Every original and name of a low or medium confidence swap, in every perturbation, most doubtful first
        (each original and name once): what the analyst may exclude before the run."""
        seen: dict[tuple[str, str], Example] = {}
        for review in self.perturbations:
            for check in review.checks:
                if check.key == "doubtful_swaps":
                    for example in check.examples:
                        kept = seen.get((example.original_id, example.span))
                        if kept is None or _doubt(example) < _doubt(kept):
                            seen[example.original_id, example.span] = example
        return sorted(seen.values(), key=lambda e: (_doubt(e), e.original_id, e.span))

    def get(self, perturbation: str) -> PerturbationReview:
        return next(review for review in self.perturbations if review.perturbation == perturbation)

    def original_flags(self) -> dict[str, list[str]]:
        """Per original, what the checks found in it ("gender-glob: leftover titles ×2", skip reasons), for
        deciding what to exclude."""
        flags: dict[str, dict[str, int]] = {}
        for review in self.perturbations:
            for check in review.checks:
                for example in check.examples:
                    if check.key == "skipped":
                        label = f"{review.perturbation}: skipped ({example.note.split(':', 1)[0]})"
                    elif check.key == "doubtful_swaps":
                        label = f"{review.perturbation}: {example.note.split(':', 1)[0]}-confidence swap"
                    else:
                        label = f"{review.perturbation}: {SHORT_NAMES[check.key]}"
                    counts = flags.setdefault(example.original_id, {})
                    counts[label] = counts.get(label, 0) + 1
        return {original: [label + (f" ×{n}" if n > 1 else "") for label, n in counts.items()]
                for original, counts in flags.items()}

    def to_dict(self, max_examples: int | None = STORED_EXAMPLES) -> dict[str, Any]:
        return {"excluded": list(self.excluded),
                **({"excluded_entities": dict(self.excluded_entities)} if self.excluded_entities else {}),
                "perturbations": {
            review.perturbation: {"n_inputs": review.n_inputs, "n_originals": review.n_originals,
                                  "content_words": review.content_words,
                                  "checks": [check.to_dict(max_examples) for check in review.checks]}
            for review in self.perturbations}}

    def lines(self, max_examples: int = 3) -> list[str]:
        """The checklist as plain text lines (what ``audit --review`` prints)."""
        lines = [f"excluded originals: {', '.join(self.excluded)}"] if self.excluded else []
        lines += [f"excluded names: {original}: {', '.join(names)}" for original, names in self.excluded_entities.items()]
        for review in self.perturbations:
            words = "" if review.content_words is None else \
                f"; content words {'swapped' if review.content_words else 'not swapped'}"
            lines.append(f"{review.perturbation}: {review.n_inputs} inputs from {review.n_originals} originals{words}")
            for check in review.checks:
                mark = "ok" if check.passed else ("--" if check.key == "skipped" else "!!")
                lines.append(f"  [{mark}] {check.title}: {check.occurrences} in {check.inputs} inputs of "
                             f"{check.originals} originals" if check.key != "skipped"
                             else f"  [{mark}] {check.title}: {check.originals}")
                lines.append(f"       how: {check.how}")
                for example in check.examples[:max_examples]:
                    if check.key == "skipped":
                        lines.append(f"       e.g. {example.original_id}: {example.note}")
                    else:
                        lines.append(f"       e.g. {example.input_id}: {example.span!r} — {example.note} — "
                                     f"“{example.context}”")
        return lines


SHORT_NAMES = {"doubtful_swaps": "doubtful swap", "gender_agreement": "gender disagreement",
               "non_person": "non-person swapped", "leftover_titles": "leftover title",
               "leftover_content_words": "leftover gendered word", "leftover_pronouns": "leftover pronoun",
               "partial_names": "partially swapped name", "politician_aliases": "leftover politician name",
               "skipped": "skipped"}


class _Findings:
    """Collects the findings of one check: counts every occurrence and keeps each distinct example once."""

    def __init__(self, key: str):
        self.check = Check(key, CHECK_TITLES[key], CHECK_HOW[key])
        self._inputs: set[str] = set()
        self._originals: set[str] = set()
        self._seen: set[tuple[str, str]] = set()

    def add(self, item: Input, start: int, end: int, note: str, same_as: str | None = None, *, span: str | None = None,
            shown: str | None = None) -> None:
        """Count a finding; keep it as an example unless one with the same original and ``same_as`` (default: the
        span and note) is kept already (the same swap seen again in another sample of that original). ``span`` and
        ``shown`` replace the input's span and the text around it as the example shows them."""
        span = item.text[start:end] if span is None else span
        self.check.occurrences += 1
        self._inputs.add(item.id)
        self._originals.add(item.original_id)
        key = (item.original_id, same_as or f"{span}\n{note}")
        if key not in self._seen:
            self._seen.add(key)
            self.check.examples.append(Example(item.id, item.original_id, span, note,
                                               context(item.text, start, end) if shown is None else shown))

    def done(self) -> Check:
        self.check.inputs, self.check.originals = len(self._inputs), len(self._originals)
        return self.check


def _where(item: Input, position: int) -> str:
    """Where a position of the input text is in its original (shifted back over the substitutions before it), so
    the same leftover in every sample of an original is one example."""
    shift = sum(len(sub.replacement) - len(sub.original) for sub in item.substitutions if sub.end <= position)
    return f"@{position - shift}"


def context(text: str, start: int, end: int, width: int = CONTEXT_CHARS) -> str:
    """The span with up to ``width`` characters either side, on one line, the span in [brackets]."""
    left = text[max(0, start - width):start]
    right = text[end:end + width]
    flat = " ".join(f"{'…' if start > width else ''}{left}[{text[start:end]}]{right}"
                    f"{'…' if end + width < len(text) else ''}".split())
    return flat


def review_inputs(inputs: Sequence[Input], reports: dict[str, Any], excluded: Collection[str] = (),
                  excluded_entities: Mapping[str, Collection[str]] | None = None) -> Review:
    """Return the checklist of every perturbation over all ``inputs`` (identity left out), with ``reports`` (as
    ``audit.build_inputs`` returns them: per perturbation ``run_info`` and ``skips``) giving the skip reasons and
    whether content words were swapped. Inputs and skips of ``excluded`` originals are left out and listed; the
    names of ``excluded_entities`` (original → names) leave the doubtful swaps and are listed."""
    excluded_set = set(excluded)
    names = {original: sorted(set(found)) for original, found in (excluded_entities or {}).items() if found}
    by_kind: dict[str, list[Input]] = {}
    for item in inputs:
        if item.perturbation != "identity" and item.original_id not in excluded_set:
            by_kind.setdefault(item.perturbation, []).append(item)
    kinds = list(dict.fromkeys([*(kind for kind in reports if kind != "identity"), *by_kind]))
    return Review([_review_one(kind, by_kind.get(kind, []), reports.get(kind) or {}, excluded_set, names)
                   for kind in kinds], sorted(excluded_set), names)


def _review_one(kind: str, items: list[Input], report: dict[str, Any], excluded: set[str],
                excluded_names: Mapping[str, Collection[str]]) -> PerturbationReview:
    config = (report.get("run_info") or {}).get("config") or {}
    checks: list[Check] = []
    if kind in NAME_SWAP_KINDS or kind == "politician":
        checks.append(doubtful_swaps(items, excluded_names))
    if kind in NAME_SWAP_KINDS:
        checks.append(non_person_swaps(items))
        checks.append(gender_agreement(items))
        checks.append(leftover_titles(items, one_gender_arms=kind == "gender-glob"))
        checks.append(leftover_content_words(items, bool(config.get("content_words")),
                                             same_in_both_arms=kind not in GENDER_KINDS))
        if kind == "gender-glob":
            checks.append(leftover_pronouns(items))
        checks.append(partial_names(items))
    if kind == "politician":
        checks.append(politician_aliases(items))
    checks.append(skipped_originals(report.get("skips") or {}, excluded))
    content_words = bool(config.get("content_words")) if kind in NAME_SWAP_KINDS else None
    return PerturbationReview(kind, len(items), len({item.original_id for item in items}), checks, content_words)


def non_person_swaps(items: Iterable[Input]) -> Check:
    """Name substitutions of spans whose entity type or spaCy label is not PERSON (a place or organisation made a
    person), riskiest evidence (a pronoun alone) first."""
    findings = _Findings("non_person")
    for item in items:
        for sub in item.substitutions:
            labels = {label for label in (sub.entity_label, sub.ner_label) if label and label != "PERSON"}
            if sub.kind in NAME_KINDS and labels:
                findings.add(item, sub.start, sub.end,
                             f"'{sub.original}' labelled {'/'.join(sorted(labels))}, taken for a person on "
                             f"{sub.evidence or 'no recorded'} evidence", same_as=f"{sub.original}@{sub.entity_id}")
    check = findings.done()
    check.examples.sort(key=lambda e: (_EVIDENCE_RISK.get(e.note.rsplit(" on ", 1)[-1].removesuffix(" evidence"), 9),
                                       e.original_id))
    return check


def doubtful_swaps(items: Iterable[Input], excluded_names: Mapping[str, Collection[str]] | None = None) -> Check:
    """Swaps whose substitutions record a low or medium confidence (issue 21), one example per original and name
    (the name as the original writes it), low first, each with its sentence in the original. Names in
    ``excluded_names`` (original → names) are left out."""
    findings = _Findings("doubtful_swaps")
    excluded_names = excluded_names or {}
    for item in items:
        original_text: str | None = None
        for sub, start in _original_positions(item):
            if sub.swap_confidence not in CONFIDENCE_RANK or sub.kind not in NAME_KINDS:
                continue
            name = swapped_name(item, sub)
            if name in excluded_names.get(item.original_id, ()):
                continue
            original_text = original_text if original_text is not None else item.original_text()
            findings.add(item, sub.start, sub.end, f"{sub.swap_confidence}: {sub.swap_confidence_reason}",
                         same_as=name, span=name, shown=sentence(original_text, start, start + len(sub.original)))
    check = findings.done()
    check.examples.sort(key=lambda e: (_doubt(e), e.original_id, e.span))
    return check


def _doubt(example: Example) -> int:
    return CONFIDENCE_RANK.get(example.note.split(":", 1)[0], len(CONFIDENCE_RANK))


def swapped_name(item: Input, sub: Substitution) -> str:
    """The name a substitution belongs to, as the original writes it: its entity's original first and last name
    (the politician's for a politician swap), else the span it replaced."""
    entity = next((e for e in item.entities if e.entity_id == sub.entity_id), None)
    if entity is not None and (entity.original_first_name or entity.original_last_name):
        return " ".join(n for n in (entity.original_first_name, entity.original_last_name) if n)
    return sub.original


def _original_positions(item: Input) -> list[tuple[Substitution, int]]:
    """Each substitution with the start of its span in the original text."""
    shift, placed = 0, []
    for sub in sorted(item.substitutions, key=lambda s: s.start):
        placed.append((sub, sub.start - shift))
        shift += len(sub.replacement) - len(sub.original)
    return placed


def sentence(text: str, start: int, end: int, width: int = SENTENCE_CHARS) -> str:
    """The sentence around ``text[start:end]`` on one line, the span in [brackets], cut to about ``width``
    characters around it (… where cut)."""
    boundaries = [match.end() for match in _SENTENCE_END.finditer(text)]
    left = max((b for b in boundaries if b <= start), default=0)
    right = min((b for b in boundaries if b > end), default=len(text))
    half = max(0, (width - (end - start)) // 2)
    cut_left, cut_right = start - left > half, right - end > half
    left = start - half if cut_left else left
    right = end + half if cut_right else right
    shown = f"{'…' if cut_left else ''}{text[left:start]}[{text[start:end]}]{text[end:right]}{'…' if cut_right else ''}"
    return " ".join(shown.split())


def gender_agreement(items: Iterable[Input]) -> Check:
    """Pronouns and gendered nouns that spaCy's parse of the original ties to a swapped person (``perturb.agreement``)
    and whose gender in the input is not that person's gender there, with the input's sentence (issue 21)."""
    findings = _Findings("gender_agreement")
    items = [item for item in items if item.substitutions and any(entity_gender(e) for e in item.entities)]
    originals = {item.id: item.original_text() for item in items}
    ties = gendered_word_ties(list(originals.values()), GENDERED_NOUNS)
    for item in items:
        original = originals[item.id]
        placed = _original_positions(item)
        at = {start: sub for sub, start in placed}
        for entity in item.entities:
            gender = entity_gender(entity)
            mentions = _mention_offsets(original, entity, placed)
            if gender is None or not mentions:
                continue
            before = _original_gender(item, entity)
            for word in ties[original]:
                sub = at.get(word.start)
                written = sub.replacement if sub is not None else word.word
                now = gender_of(written, GENDERED_NOUNS)
                if now is None or now == gender or not word.owners & mentions:
                    continue
                if before is not None and word.gender != before:
                    continue  # the word disagreed with this person before the swap too: it is somebody else's
                start = _to_input(placed, word.start)
                name = " ".join(n for n in (entity.first_name, entity.last_name) if n)
                other = f"; the perturbation gave it to {sub.entity_id}" if sub is not None and sub.entity_id \
                    and sub.entity_id != entity.entity_id else ""
                findings.add(item, start, start + len(written),
                             f"'{written}' ({now}) refers to {name}, who is {gender} in this input{other}",
                             same_as=f"{entity.entity_id}@{word.start}",
                             shown=sentence(item.text, start, start + len(written)))
    return findings.done()


def _original_gender(item: Input, entity: Entity) -> str | None:
    """The gender a person had in the original: that of the pronouns, titles or gendered nouns the input rewrote for
    them, else of their original first name in the census, else None."""
    for sub in item.substitutions:
        if sub.entity_id == entity.entity_id and sub.kind in ("pronoun", "title", "content_word"):
            gender = PRONOUN_GENDER.get(sub.original.lower()) or TITLE_GENDER.get(title_key(sub.original)) \
                or GENDERED_NOUNS.get(sub.original.lower())
            if gender:
                return gender
    return first_name_gender(entity.original_first_name) if entity.original_first_name else None


def _mention_offsets(original: str, entity: Entity, placed: list[tuple[Substitution, int]]) -> set[int]:
    """Where the original names a person: the starts of its swapped spans and of every whole-word occurrence of its
    original first or last name (a gender swap leaves the last name as it was)."""
    offsets = {start for sub, start in placed if sub.entity_id == entity.entity_id and sub.kind in NAME_KINDS}
    for name in (entity.original_first_name, entity.original_last_name):
        for word in (name or "").split():
            offsets |= {m.start() for m in re.finditer(r"(?<![\w'’-])" + re.escape(word) + r"(?![\w-])", original)}
    return offsets


def _to_input(placed: list[tuple[Substitution, int]], position: int) -> int:
    """Map a position of the original to the input through the substitutions before it."""
    shift = sum(len(sub.replacement) - len(sub.original) for sub, start in placed if start < position)
    return position + shift


_EVIDENCE_RISK = {"pronoun": 0, "no recorded": 1, "first-name+surname": 2, "initials+surname": 3, "title": 4,
                  "gold": 5}


def entity_gender(entity: Entity) -> str | None:
    """The gender an input gives a person: the group of a gender perturbation, else the ``gender`` a race
    perturbation records with the entity."""
    if entity.group in GENDERS:
        return entity.group
    gender = entity.extra.get("gender")
    return gender if gender in GENDERS else None


def _names_by_gender(item: Input) -> dict[str, set[str]]:
    """Each current first and last name of the input's people → the genders the input gives people of that name."""
    names: dict[str, set[str]] = {}
    for entity in item.entities:
        gender = entity_gender(entity)
        for name in (entity.first_name, entity.last_name):
            if name and gender:
                for part in {name, name.split()[0], name.split()[-1]}:
                    names.setdefault(_bare_name(part), set()).add(gender)
    return names


def _bare_name(word: str) -> str:
    return re.sub(r"['’]s$", "", word).strip(".,").lower()


def leftover_titles(items: Iterable[Input], *, one_gender_arms: bool) -> Check:
    """Gendered titles before a name the input gives a person of the other gender; in one-gender arms (C_glob) also
    honorifics of the other gender before any capitalised word."""
    findings = _Findings("leftover_titles")
    for item in items:
        names = _names_by_gender(item)
        arm = item.arm if one_gender_arms and item.arm in GENDERS else None
        for match in _TITLE.finditer(item.text):
            title_gender = TITLE_GENDER[title_key(match["title"])]
            genders = names.get(_bare_name(match["name"]))
            if genders and len(genders) == 1 and title_gender not in genders:
                person = next(iter(genders))
                findings.add(item, match.start(), match.end(),
                             f"'{match['title']}' before {match['name']}, who is {person} in this input",
                             same_as=_where(item, match.start()))
            elif not genders and arm and title_key(match["title"]) in HONORIFICS and title_gender != arm:
                findings.add(item, match.start(), match.end(),
                             f"'{match['title']}' ({title_gender}) in the all-{arm} arm")
    return findings.done()


def leftover_content_words(items: Iterable[Input], content_words_swapped: bool, *,
                           same_in_both_arms: bool = False) -> Check:
    """Gendered nouns written as a person's role right before or after their name ("spokesman Jane Doe", "Doe, the
    chairman") whose gender is not the person's gender in the input; the note says whether Table 18 content-word
    swapping would have rewritten the word, or (``same_in_both_arms``: race, which keeps each person's gender in both
    arms) that the word does not differ between the arms."""
    findings = _Findings("leftover_content_words")
    for item in items:
        names = _names_by_gender(item)
        if not names:
            continue
        for pattern in (_NOUN_BEFORE_NAME, _NOUN_AFTER_NAME):
            for match in pattern.finditer(item.text):
                genders = names.get(_bare_name(match["name"]))
                word_gender = GENDERED_NOUNS[match["word"].lower()]
                if genders and len(genders) == 1 and word_gender not in genders:
                    note = _content_word_note(match["word"].lower(), content_words_swapped, same_in_both_arms)
                    findings.add(item, match.start("word"), match.end("word"),
                                 f"'{match['word']}' next to {match['name']}, who is {next(iter(genders))} in this "
                                 f"input; {note}", same_as=_where(item, match.start("word")))
    return findings.done()


def _content_word_note(word: str, swapped: bool, same_in_both_arms: bool) -> str:
    if same_in_both_arms:
        return "the person has this gender in both arms, so the word does not differ between them"
    if word not in CONTENT_WORD_GENDER:
        return "not a Table 18 content word: no option rewrites it"
    if swapped:
        return "a Table 18 content word the parse did not tie to this person"
    return "a Table 18 content word: switch on content-word swapping to rewrite it"


def leftover_pronouns(items: Iterable[Input]) -> Check:
    """Pronouns of the other gender in C_glob inputs, whose arm gives every person and unattributed pronoun one
    gender."""
    findings = _Findings("leftover_pronouns")
    for item in items:
        if item.arm not in GENDERS:
            continue
        for match in _PRONOUN.finditer(item.text):
            if PRONOUN_GENDER[match["word"].lower()] != item.arm:
                findings.add(item, match.start(), match.end(), f"'{match['word']}' in the all-{item.arm} arm")
    return findings.done()


def partial_names(items: Iterable[Input]) -> Check:
    """Original first or last names an input replaced but still contains (as a whole word, case-sensitive, or in
    capitals), unless another person of the input now bears that name or it is a capitalised common word starting
    a sentence."""
    findings = _Findings("partial_names")
    for item in items:
        current = {_bare_name(part) for entity in item.entities for name in (entity.first_name, entity.last_name)
                   if name for part in name.split()}
        for entity in item.entities:
            for original, new, part in ((entity.original_first_name, entity.first_name, "first"),
                                        (entity.original_last_name, entity.last_name, "last")):
                if not original or not new or original == new or _bare_name(original) in current:
                    continue
                for match in re.finditer(r"(?<![\w'’-])(?:" + re.escape(original) + "|" + re.escape(original.upper())
                                         + r")(?![\w-])", item.text):
                    if _sentence_start_word(item.text, match.start(), match.end()):
                        continue
                    findings.add(item, match.start(), match.end(),
                                 f"original {part} name '{original}' of {entity.entity_id} (now "
                                 f"'{' '.join(n for n in (entity.first_name, entity.last_name) if n)}') still in "
                                 "the input", same_as=_where(item, match.start()))
    return findings.done()


def _sentence_start_word(text: str, start: int, end: int) -> bool:
    """Whether the word at ``start`` begins a sentence and the next word is lowercase ("Will the …")."""
    following = re.match(r"\s+(\w)", text[end:])
    return bool(_SENTENCE_START.search(text[:start])) and bool(following and following.group(1).islower())


def politician_aliases(items: Iterable[Input]) -> Check:
    """The original politician's surname (any case) or given names and nicknames (capitalised, not shared with the
    new politician) in swapped inputs, outside the swapped spans."""
    from bias_core.perturb.politician import PairError, parse_pair

    findings = _Findings("politician_aliases")
    for item in items:
        if item.role != "swap1" or not isinstance(item.extra.get("pair"), str):
            continue
        try:
            pair = parse_pair(item.extra["pair"])
        except PairError:
            continue
        source, target = (pair.e1, pair.e2) if item.arm == pair.e2.name else (pair.e2, pair.e1)
        swapped = [(sub.start, sub.end) for sub in item.substitutions]
        given = {name for name in source.given_names - target.given_names if len(name) > 1}
        pattern = re.compile(r"(?<![\w'’-])(?:(?i:" + re.escape(source.last_name) + r")|(?P<given>[A-Z][\w'’-]+))"
                             r"(?![\w-])")
        for match in pattern.finditer(item.text):
            if any(start <= match.start() < end for start, end in swapped):
                continue
            if match["given"] and (match["given"].lower() not in given or
                                   _sentence_start_word(item.text, match.start(), match.end())):
                continue
            findings.add(item, match.start(), match.end(),
                         f"'{match.group(0)}' names {source.name} in an input swapped to {target.name}")
    return findings.done()


def skipped_originals(skips: dict[str, Any], excluded: Collection[str] = ()) -> Check:
    """The skip report's originals (those that gave no inputs, then those that gave only some) with their reasons;
    ``occurrences`` and ``originals`` count the skipped ones."""
    check = Check("skipped", CHECK_TITLES["skipped"], CHECK_HOW["skipped"])
    skipped = [s for s in skips.get("skipped") or [] if s.get("original_id") not in excluded]
    incomplete = [s for s in skips.get("incomplete") or [] if s.get("original_id") not in excluded]
    for entry, prefix in [*((s, "") for s in skipped), *((s, "gave only part of its inputs: ") for s in incomplete)]:
        check.examples.append(Example("", str(entry.get("original_id")), str(entry.get("original_id")),
                                      prefix + str(entry.get("reason")), ""))
    check.occurrences = check.originals = len(skipped)
    return check


def sample_inputs(inputs: Sequence[Input], per_perturbation: int = REVIEW_SAMPLE_SIZE, seed: int = 0,
                  excluded: Collection[str] = ()) -> dict[str, list[Input]]:
    """A seeded sample of perturbed inputs to read, per perturbation (identity and politician's unchanged
    ``original`` inputs left out): one input each from different originals first, in a random order fixed by
    ``seed`` and the perturbation's name, then more from the same originals when there are too few."""
    by_kind: dict[str, dict[str, list[Input]]] = {}
    for item in inputs:
        if item.perturbation == "identity" or item.role == "original" or item.original_id in excluded:
            continue
        by_kind.setdefault(item.perturbation, {}).setdefault(item.original_id, []).append(item)
    sample: dict[str, list[Input]] = {}
    for kind, by_original in by_kind.items():
        rng = random.Random(f"{seed}/review/{kind}")
        originals = sorted(by_original)
        rng.shuffle(originals)
        pools = {original: list(by_original[original]) for original in originals}
        for pool in pools.values():
            rng.shuffle(pool)
        chosen: list[Input] = []
        while len(chosen) < per_perturbation and any(pools.values()):
            for original in originals:
                if pools[original] and len(chosen) < per_perturbation:
                    chosen.append(pools[original].pop())
        sample[kind] = chosen
    return sample


def review_report(inputs: Sequence[Input], reports: dict[str, Any], *, seed: int, excluded: Collection[str] = (),
                  per_perturbation: int = REVIEW_SAMPLE_SIZE,
                  excluded_entities: Mapping[str, Collection[str]] | None = None) -> dict[str, Any]:
    """What a run records as reviewed (``reports["review"]``): the checklist counts with a few examples, the ids of
    the sample the Audit page shows (the same seed and size), the excluded originals and the names excluded from
    swapping."""
    review = review_inputs(inputs, reports, excluded, excluded_entities)
    sample = sample_inputs(inputs, per_perturbation, seed, excluded)
    return {**review.to_dict(), "sample_ids": {kind: [item.id for item in items] for kind, items in sample.items()},
            "sample_size": per_perturbation}
