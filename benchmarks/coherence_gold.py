"""Judge perturbed articles against the GUM-derived gold (issue 27, Deliver 6): which swapped entities are not
people, which people were missed, and which arm texts contradict themselves.

The gold (``tests/fixtures/perturb/gum_gold_{tune,heldout}.jsonl``, built by ``data/news_real/build_gum_gold.py``)
gives, per article, every person with its mentions and gendered words, and every named non-person. An arm text is
**incoherent** when any of these holds, each read from the input text through its substitution map (no re-parse):

- ``non-person``: a name substitution whose span lies in a gold non-person name (the smallest gold name around it —
  the proper nouns of a mention that belong to its own entity — is not a person's) or in no gold name at all;
- ``gender``: a person's gendered words (pronouns, titles, Jr./Sr., gendered head nouns of its mentions) and the
  census gender of its written first name do not all read as one gender in the input — a swapped person who keeps
  "the son of …", a pronoun of an unnamed "spokesman" re-gendered, "Mr." left before a woman's name;
  A disagreement in a person no substitution touched is the original's own (a census reading of "Anatole-Désiré"
  as a woman's name beside "father"), not the perturbation's, and is not counted;
- ``two names``: a word of a person's name reads differently in two of its mentions (one mention swapped, another
  left, or two different new names). A word that is both the person's first name and a later part of their name
  ("Ahmed Ahmed", "Mohamed Abdullahi Mohamed") is two parts written alike: each part must read one way, and a lone
  mention of the word as one of them ("John Ahmed ... Ahmed said" is coherent).

A swapped entity is *right* when it is a person and that person is coherent in every input of the perturbation;
precision per confidence level is the share of swapped entities at that level that are right. An entity's level is
the **lowest** swap confidence any of its substitutions records, across all its inputs: the coherence check lowers it
in the inputs it flags, a reader of the review sees each input's level, and an entity is right only when every input
is, so the level that counts is the most doubtful one shown (taking the first input's would credit ``high`` to a
person whose swap went wrong, and was marked so, in a later input). A named gold individual
(not a group) is *missed* when no substitution of any input touches it: none falls in one of its name mentions, and
none belongs to an entity whose name slots in the template do (a person named by surname and title only, "Mr.
Toccafondi", is swapped by the title and pronouns alone in a gender perturbation). The missed people
the builder found and left as written with a reason the review shows (a surname-first name with no given name of its
tradition) are counted too, since issue 27 allows that where no fitting given name exists.
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bias_core.common.records import Document, Input
from bias_core.documents.corpus import load_documents
from bias_core.perturb.names import first_name_gender

REPO = Path(__file__).resolve().parent.parent
GOLD = REPO / "tests" / "fixtures" / "perturb"
NAME_KINDS = frozenset({"first_name", "last_name", "full_name", "middle_name"})
_RANK = {"none": -1, "low": 0, "medium": 1, "high": 2}  # the lowest level an entity records is its level
_WORD = re.compile(r"[A-Za-z][\w.'’-]*")

_spec = importlib.util.spec_from_file_location("build_gum_gold", REPO / "data" / "news_real" / "build_gum_gold.py")
_builder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_builder)
WORD_GENDER = {**_builder.NOUNS, **_builder.PRONOUNS, **_builder.TITLES}
TITLE_WORDS = frozenset(_builder.TITLES) | {"dr", "dr.", "president", "sen.", "rep.", "gov.", "prof.", "the"}


def load(split: str) -> tuple[list[Document], dict[str, dict]]:
    """The articles of one half of the gold ("tune" or "heldout") and their gold records."""
    golds = [json.loads(line) for line in (GOLD / f"gum_gold_{split}.jsonl").read_text().splitlines()]
    documents: dict[str, Document] = {}
    for corpus in sorted({gold["corpus"] for gold in golds}):
        documents.update({d.id: d for d in load_documents(REPO / corpus)})
    return [documents[gold["id"]] for gold in golds], {gold["id"]: gold for gold in golds}


def _original_spans(item: Input) -> list[tuple[int, int, object]]:
    """Each substitution with its span in the original text."""
    spans, shift = [], 0
    for sub in sorted(item.substitutions, key=lambda s: s.start):
        start = sub.start - shift
        spans.append((start, start + len(sub.original), sub))
        shift += len(sub.replacement) - len(sub.original)
    return spans


def _reading(spans, start: int, end: int, original: str) -> str:
    """How the original words at [start, end) read in the input: the replacement of the substitution covering them
    (the matching word of it, for a multi-word substitution), else the original."""
    for s, e, sub in spans:
        if s <= start and end <= e:
            old, new = sub.original.split(), sub.replacement.split()
            if len(old) == len(new) and len(old) > 1:
                offset = s
                for old_word, new_word in zip(old, new, strict=True):
                    position = sub.original.find(old_word, offset - s) + s
                    if position <= start < position + len(old_word):
                        return new_word
                    offset = position + len(old_word)
            return sub.replacement
        if s < end and start < e:
            return sub.replacement
    return original


def _gender(word: str) -> str | None:
    return WORD_GENDER.get(word.lower().strip(".,'’")) or WORD_GENDER.get(word.lower())


@dataclass
class Judge:
    """One article's gold, indexed for judging its inputs."""

    text: str
    gold: dict
    name_mentions: list[tuple[int, int, str | None]] = field(default_factory=list)  # (start, end, person id/None)
    any_mentions: list[tuple[int, int, str | None]] = field(default_factory=list)  # every mention's whole span

    def __post_init__(self) -> None:
        for kind, entities in (("people", self.gold["people"]), ("non_people", self.gold["non_people"])):
            for entity in entities:
                self.any_mentions += [(m["start"], m["end"], entity["id"] if kind == "people" else None)
                                      for m in entity["mentions"]]
        for person in self.gold["people"]:
            for mention in person["mentions"]:
                self.name_mentions += [(start, end, person["id"]) for start, end in mention["names"]]
        for other in self.gold["non_people"]:
            for mention in other["mentions"]:
                self.name_mentions += [(start, end, None) for start, end in mention["names"]]

    def owner(self, start: int, end: int) -> tuple[bool, str | None]:
        """(is a person, person id) for an original span, by the smallest gold name mention overlapping it, else
        by the smallest gold mention of any kind around it (GUM lists "Terry Gross" as a person whose mentions carry
        no proper-noun span)."""
        around = [m for m in self.name_mentions if m[0] < end and start < m[1]]
        if not around:
            around = [m for m in self.any_mentions if m[0] <= start and end <= m[1]]
        if not around:
            return False, None
        smallest = min(around, key=lambda m: m[1] - m[0])
        return smallest[2] is not None, smallest[2]

    def problems(self, item: Input) -> tuple[list[str], set[str], dict[str, str]]:
        """The input's incoherences (readable lines), the gold people involved, and each swapped entity's gold
        person ("" where it is no person)."""
        spans = _original_spans(item)
        lines: list[str] = []
        bad_people: set[str] = set()
        entity_person: dict[str, str] = {}
        for start, end, sub in spans:
            if sub.kind not in NAME_KINDS or sub.entity_id is None:
                continue
            person, person_id = self.owner(start, end)
            if person:
                entity_person.setdefault(sub.entity_id, person_id)
            else:
                entity_person[sub.entity_id] = ""
                lines.append(f"non-person swapped: {self.text[start:end]!r} → {sub.replacement!r}")
        for person in self.gold["people"]:
            genders: dict[str, list[str]] = {}
            touched = False  # a disagreement no substitution made is the original's ("Anatole-Désiré"), not the swap's
            for word in person["gendered_words"]:
                read = _reading(spans, word["start"], word["end"], word["word"])
                touched |= read != word["word"]
                gender = _gender(read)
                if gender:
                    genders.setdefault(gender, []).append(read)
            readings: dict[tuple[str, str], set[str]] = {}  # (word, "first" / "other" / "lone") → readings
            for name_start, name_end in (span for mention in person["mentions"] for span in mention["names"]):
                words = [(m.start() + name_start, m.end() + name_start, m.group())
                         for m in _WORD.finditer(self.text[name_start:name_end])]
                names = [w for w in words if w[2].lower() not in TITLE_WORDS and w[2][0].isupper()]
                for index, (start, end, word) in enumerate(names):
                    key = re.sub(r"['’]s$", "", word)
                    read = re.sub(r"['’]s$", "", _reading(spans, start, start + len(key), key))
                    touched |= read != key
                    if self.owner(start, start + len(key))[1] == person["id"]:
                        part = "lone" if len(names) == 1 else "first" if index == 0 else "other"
                        readings.setdefault((key, part), set()).add(read)
                    # an unchanged first name whose census gender is not the gold person's ("Anatole-Désiré", a
                    # man) is the census's error, not the swap's
                    census_wrong = read == key and person.get("gender") in ("male", "female") \
                        and first_name_gender(key) != person["gender"]
                    if index == 0 and len(names) > 1 and first_name_gender(key) and not census_wrong:
                        gender = first_name_gender(read) if read else None
                        if gender:
                            genders.setdefault(gender, []).append(read)
            if len(genders) > 1 and touched:
                bad_people.add(person["id"])
                lines.append("gender: " + " / ".join(f"{g} ({', '.join(sorted(set(w))[:3])})"
                                                     for g, w in sorted(genders.items())))
            for key, read in _two_names(readings).items():
                bad_people.add(person["id"])
                lines.append(f"two names: {key!r} reads {' / '.join(sorted(read))}")
        return lines, bad_people, entity_person


def _two_names(readings: dict[tuple[str, str], set[str]]) -> dict[str, set[str]]:
    """The name words of one person that read two ways, from their readings per part of the name. A word is read as
    one whatever its part, except a word that is both the person's first name and a later part of a full name
    ("Ahmed Ahmed", "Mohamed Abdullahi Mohamed"): its first-name and surname readings may differ ("John Ahmed ...
    Ahmed said"), as long as each is one, and a lone mention of it reads as one of the two."""
    words = {word for word, _ in readings}
    bad: dict[str, set[str]] = {}
    for word in words:
        first, other, lone = (readings.get((word, part), set()) for part in ("first", "other", "lone"))
        if first and other:
            if len(first) > 1 or len(other) > 1 or not lone <= first | other:
                bad[word] = first | other | lone
        elif len(first | other | lone) > 1:
            bad[word] = first | other | lone
    return bad


@dataclass
class Figures:
    """One perturbation's figures on one half of the gold."""

    kind: str
    arm_texts: int = 0
    incoherent: int = 0
    swapped: int = 0
    non_people: int = 0
    named_people: int = 0
    missed: int = 0
    kept_by_rule: int = 0  # of the missed: people the builder found and left as written, flagged (surname-first …)
    by_confidence: dict[str, list[int]] = field(default_factory=dict)  # level → [right, all]
    examples: Counter = field(default_factory=Counter)
    by_kind: Counter = field(default_factory=Counter)  # incoherence kind ("gender", "two names", …) → arm texts
    missed_examples: list[str] = field(default_factory=list)


def judge(kind: str, inputs: list[Input], documents: list[Document], golds: dict[str, dict],
          templates: list | None = None, people: dict | None = None) -> Figures:
    """Figures of one perturbation's inputs against the gold. Each swapped entity counts at the lowest swap
    confidence any of its substitutions records across its inputs (module docstring: the most doubtful level a reader
    of the review is shown for it). ``people`` is the run record's people report (``run_info["people"]``), which says
    whom the perturbation kept as written."""
    figures = Figures(kind)
    kept = _kept_spans(templates, people)
    texts = {d.id: d.text or "" for d in documents}
    judges = {doc_id: Judge(texts[doc_id], gold) for doc_id, gold in golds.items()}
    slot_people = _slot_people(templates, judges)
    entity_person: dict[tuple[str, str], str] = {}
    confidence: dict[tuple[str, str], str] = {}
    bad: set[tuple[str, str]] = set()
    touched: set[tuple[str, str]] = set()
    for item in inputs:
        if item.arm is None or item.original_id not in judges:
            continue
        verdict = judges[item.original_id]
        lines, bad_people, owners = verdict.problems(item)
        figures.arm_texts += 1
        figures.incoherent += bool(lines)
        figures.by_kind.update({line.split(":", 1)[0] for line in lines})
        for line in lines:
            figures.examples[f"{item.original_id}: {line}"] += 1
        bad.update((item.original_id, p) for p in bad_people)
        for entity_id, person_id in owners.items():
            entity_person.setdefault((item.original_id, entity_id), person_id)
            if person_id:
                touched.add((item.original_id, person_id))
        for sub in item.substitutions:
            person_id = slot_people.get((item.original_id, sub.entity_id))
            if person_id:
                touched.add((item.original_id, person_id))
            if sub.kind in NAME_KINDS and sub.entity_id is not None:
                key, level = (item.original_id, sub.entity_id), sub.swap_confidence or "none"
                confidence[key] = min(confidence.get(key, level), level, key=_RANK.__getitem__)
    figures.swapped = len(entity_person)
    figures.non_people = sum(1 for person in entity_person.values() if not person)
    for key, person in entity_person.items():
        level = confidence.get(key, "none")
        right = bool(person) and (key[0], person) not in bad
        tally = figures.by_confidence.setdefault(level, [0, 0])
        tally[0] += right
        tally[1] += 1
    for doc_id, gold in golds.items():
        for person in gold["people"]:
            if not person["individual"] or not _has_name_word(person):
                continue
            figures.named_people += 1
            if (doc_id, person["id"]) not in touched:
                figures.missed += 1
                figures.kept_by_rule += _kept_by_rule(person, kept.get(doc_id, []))
                figures.missed_examples.append(f"{doc_id}: {_label(person)}")
    return figures


def _slot_people(templates: list | None, judges: dict[str, Judge]) -> dict[tuple[str, str], str]:
    """(original, entity) → the gold person its name slots are mentions of, for the entities the template swaps."""
    people: dict[tuple[str, str], str] = {}
    for template in templates or ():
        verdict = judges.get(template.document_id)
        if verdict is None:
            continue
        swapped = {e.entity_id for e in template.entities if not e.unswapped_reason}
        owners: dict[str, Counter] = {}
        for slot in template.slots:
            if slot.entity_id in swapped and slot.kind in NAME_KINDS:
                person, person_id = verdict.owner(slot.start, slot.end)
                if person:  # a first name says whose entity it is; a shared surname ("Cyd Ho", "Junius Ho") does not
                    owners.setdefault(slot.entity_id, Counter())[person_id] += 1 + 10 * (slot.kind != "last_name")
        for entity_id, counts in owners.items():
            people[(template.document_id, entity_id)] = counts.most_common(1)[0][0]
    return people


def _kept_spans(templates: list | None, people: dict | None = None) -> dict[str, list[tuple[int, int]]]:
    """Per original, the spans of the people its template found and left as written with a reason the review shows
    (a surname-first name with no given name of its tradition, an analyst's exclusion): those the run record's
    ``people`` marks ``unswapped`` (race keeps every surname-first name), else those of the template."""
    kept: dict[str, list[tuple[int, int]]] = {}
    for template in templates or ():
        ids = {entity.entity_id for entity in template.entities if entity.unswapped_reason} if people is None else \
            {person["entity_id"] for person in people.get(template.document_id, []) if person.get("unswapped")}
        kept[template.document_id] = [(slot.start, slot.end) for slot in template.slots if slot.entity_id in ids]
    return kept


def _kept_by_rule(person: dict, spans: list[tuple[int, int]]) -> bool:
    return any(s < end and start < e for mention in person["mentions"] for start, end in mention["names"]
               for s, e in spans)


def _has_name_word(person: dict) -> bool:
    return any(w.lower() not in TITLE_WORDS and w[0].isupper()
               for m in person["mentions"] if m["names"] for w in _WORD.findall(m["text"]))


def _label(person: dict) -> str:
    names = [m["text"] for m in person["mentions"] if m["names"]]
    return max(names, key=len) if names else person["id"]


def share(part: int, whole: int) -> str:
    return f"{part} of {whole} ({100 * part / whole:.1f}%)" if whole else f"{part} of 0"


def report(figures: Figures, show: int = 0) -> list[str]:
    """Readable lines for one perturbation."""
    lines = [(f"{figures.kind}: arm texts with any incoherence {share(figures.incoherent, figures.arm_texts)}; "
              f"swapped entities not people {share(figures.non_people, figures.swapped)}; "
              f"people missed {share(figures.missed, figures.named_people)}"
              + (f", of them left as written by a rule and flagged {figures.kept_by_rule}" if figures.kept_by_rule
                 else ""))]
    if figures.by_kind:
        lines.append("  arm texts by kind of incoherence: " + ", ".join(
            f"{kind} {count}" for kind, count in sorted(figures.by_kind.items())))
    for level in ("high", "medium", "low", "none"):
        if level in figures.by_confidence:
            right, total = figures.by_confidence[level]
            lines.append(f"  {level}: right (a person, and coherent) {share(right, total)}")
    if show:
        lines += ["  e.g. " + example for example, _ in figures.examples.most_common(show)]
        lines += ["  missed: " + ", ".join(figures.missed_examples[:show])] if figures.missed_examples else []
    return lines
