"""The swap review's checklist as records: each check's title and how it counts, the examples it keeps, one
perturbation's checklist and the whole review, and the collector the checks add their findings to."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from bias_core.common.records import Input

# Examples kept per check: all of them for the page, the first few in the run's stored report.
STORED_EXAMPLES = 5
CONTEXT_CHARS = 60
CONFIDENCE_RANK = {"low": 0, "medium": 1}  # the doubtful confidences, most doubtful first

CHECK_TITLES = {
    "coherence": "Places where an input contradicts itself (coherence flags: gender, pronoun, name, title)",
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
    "coherence": "The coherence check run after the perturbation (issue 27; perturb.agreement), per input: a pronoun "
                 "or gendered noun the parse of the original ties to a swapped person of the other gender in the "
                 "input (gender); an ambiguous pronoun left as written whose gender fits none of the people it may "
                 "refer to (pronoun); a person with two names — an original name the input replaced but still "
                 "holds, or one name replaced two ways (name); a gendered title before, or Jr./Sr. after, a person "
                 "of the other gender (title). Each flag lowers that person's swap confidence in the input by one "
                 "level (high → medium → low, reason 'coherence: …'). Inputs made before the check are checked "
                 "here from the original's parse.",
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
                         "genders, so their pronouns are not checked), less the pronouns the parse gave no swapped "
                         "person, which the perturbation leaves as written on purpose: an unnamed person's under the "
                         "strict scope ('a spokesman … he'), one beside a name no swap renames under the coherent one "
                         "(issue 27).",
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
                        if kept is None or doubt(example) < doubt(kept):
                            seen[example.original_id, example.span] = example
        return sorted(seen.values(), key=lambda e: (doubt(e), e.original_id, e.span))

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


SHORT_NAMES = {"coherence": "coherence flag", "doubtful_swaps": "doubtful swap", "gender_agreement": "gender disagreement",
               "non_person": "non-person swapped", "leftover_titles": "leftover title",
               "leftover_content_words": "leftover gendered word", "leftover_pronouns": "leftover pronoun",
               "partial_names": "partially swapped name", "politician_aliases": "leftover politician name",
               "skipped": "skipped"}


class Findings:
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


def context(text: str, start: int, end: int, width: int = CONTEXT_CHARS) -> str:
    """The span with up to ``width`` characters either side, on one line, the span in [brackets]."""
    left = text[max(0, start - width):start]
    right = text[end:end + width]
    flat = " ".join(f"{'…' if start > width else ''}{left}[{text[start:end]}]{right}"
                    f"{'…' if end + width < len(text) else ''}".split())
    return flat


def doubt(example: Example) -> int:
    return CONFIDENCE_RANK.get(example.note.split(":", 1)[0], len(CONFIDENCE_RANK))
