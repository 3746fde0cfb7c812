"""Print how cleanly the name-based perturbations swap people (issue 10, item 0): skip rate, stray-pronoun rate and
non-person substitutions, on the demo corpus and on the tricky-names fixture.

Both corpora carry gold annotations written by hand: ``tests/fixtures/perturb/demo_gold.json`` (demo corpus) and the
``gold`` field of ``tests/fixtures/perturb/tricky_names.jsonl``. Each gives, per article, the real *people* (name as
written in full → gender) and *non_people*: phrases in which no word is a person's name ("Virginia Beach",
"Al Jazeera", "drama in Washington"). A phrase occurrence wins over a person-name occurrence that overlaps it (the
"George W Bush" inside "George W Bush Presidential Center" is the building).

Figures, per corpus and perturbation kind:

- **skip rate**: originals skipped / all originals.
- **non-person substitutions**: name substitutions (kind first_name, last_name, full_name) whose original span lies
  inside a non-person phrase, or covers no word of any gold person's name; also how many inputs and originals hold
  at least one.
- **stray-pronoun rate**: over every gendered pronoun of every input, mapped back to the original through the
  substitution map, whose antecedent is known: the antecedent is the nearest preceding occurrence (outside
  non-person phrases) of a gold person's first, last or full name whose *original* gender agrees with the pronoun as
  written in the original (the texts are gender-consistent, and the tricky fixture is written so that this rule
  finds the true antecedent). The pronoun is *stray* when its gender in the input differs from the gender that
  person was given in the input (its ``Entity`` record: ``extra.gender`` or ``group``; the original gender when the
  input has no entity for that person). Rate = stray / pronouns with a known antecedent.

    .venv/bin/python benchmarks/perturb_quality.py [--samples 10] [--race] [--show 5]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bias_core.io import load_documents  # noqa: E402
from bias_core.perturb import build_templates, get_perturbation  # noqa: E402
from bias_core.perturb.lexicon import PRONOUN_GENDER  # noqa: E402
from bias_core.records import Document, Input  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "perturb"
NAME_KINDS = frozenset({"first_name", "last_name", "full_name"})
PRONOUN = re.compile(r"\b(?:" + "|".join(PRONOUN_GENDER) + r")\b", re.IGNORECASE)


@dataclass
class Gold:
    """One article's people (full name → gender) and the character ranges of its non-person phrases."""

    people: dict[str, str]
    non_person_ranges: list[tuple[int, int]]
    person_words: list[tuple[int, int, str]] = field(default_factory=list)  # (start, end, person) in the original


def corpora() -> dict[str, tuple[list[Document], dict[str, dict]]]:
    demo = load_documents(REPO / "data" / "demo" / "news.jsonl")
    demo_gold = json.loads((FIXTURES / "demo_gold.json").read_text(encoding="utf-8"))
    tricky = load_documents(FIXTURES / "tricky_names.jsonl")
    tricky_gold = {d.id: d.extra["gold"] for d in tricky}
    return {"demo news (16)": (demo, demo_gold), f"tricky names ({len(tricky)})": (tricky, tricky_gold)}


def _occurrences(text: str, phrase: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)", text)]


def gold_for(text: str, record: dict) -> Gold:
    """Locate non-person phrases and person-name words in the original text."""
    non = sorted({span for phrase in record["non_people"] for span in _occurrences(text, phrase)})
    gold = Gold(dict(record["people"]), non)
    for person in gold.people:
        for start, end in _occurrences(text, person):
            if any(start < s and e <= end or start <= s and e < end for s, e in non):
                raise ValueError(f"gold error: a non-person phrase lies inside the person name {person!r}")

    def inside_non_person(start: int, end: int) -> bool:
        return any(s <= start and end <= e for s, e in non)

    for person in gold.people:
        for form in {person, *person.split()}:
            if len(form) < 2 or form.endswith("."):
                continue
            for start, end in _occurrences(text, form):
                if not inside_non_person(start, end):
                    gold.person_words.append((start, end, person))
    gold.person_words.sort()
    return gold


def to_original(item: Input, position: int) -> int:
    """Map a character position of an input to the original text through its substitution map."""
    shift = 0
    for sub in sorted(item.substitutions, key=lambda s: s.start):
        if sub.start > position:
            break
        if position < sub.end:
            return sub.start - shift
        shift += len(sub.replacement) - len(sub.original)
    return position - shift


def assigned_gender(item: Input, person: str, original_gender: str) -> str:
    """The gender an input gave a gold person: its Entity record's gender, else its original gender."""
    words = person.split()
    first, last = (words[0], words[-1]) if len(words) > 1 else (None, words[0])
    for entity in item.entities:
        full = entity.original_last_name == last and entity.original_first_name in (None, first)
        single = len(words) == 1 and last in (entity.original_last_name, entity.original_first_name)
        if full or single:
            gender = entity.extra.get("gender") or entity.group
            if gender in ("male", "female"):
                return gender
    return original_gender


@dataclass
class Figures:
    originals: int = 0
    skipped: int = 0
    inputs: int = 0
    name_subs: int = 0
    non_person_subs: int = 0
    damaged_inputs: int = 0
    damaged_originals: set[str] = field(default_factory=set)
    pronouns: int = 0
    stray: int = 0
    examples: Counter = field(default_factory=Counter)
    stray_examples: Counter = field(default_factory=Counter)


def measure(kind: str, documents: list[Document], gold_records: dict[str, dict], samples: int, templates) -> Figures:
    originals = {d.id: d.text or "" for d in documents}
    golds = {doc_id: gold_for(text, gold_records[doc_id]) for doc_id, text in originals.items()}
    result = get_perturbation(kind, samples=samples).run_templates(templates)
    figures = Figures(originals=len(documents), skipped=len(result.report.skipped), inputs=len(result.inputs))
    for item in result.inputs:
        original, gold = originals[item.original_id], golds[item.original_id]
        damaged = False
        for sub in item.substitutions:
            if sub.kind not in NAME_KINDS:
                continue
            figures.name_subs += 1
            start = to_original(item, sub.start)
            end = start + len(sub.original)
            in_non_person = any(s <= start and end <= e for s, e in gold.non_person_ranges)
            covers_person = any(s < end and start < e for s, e, _ in gold.person_words)
            if in_non_person or not covers_person:
                figures.non_person_subs += 1
                damaged = True
                context = original[max(0, start - 15):end + 15].replace("\n", " ")
                figures.examples[f"{sub.original!r} → {sub.replacement!r} in …{context}…"] += 1
        if damaged:
            figures.damaged_inputs += 1
            figures.damaged_originals.add(item.original_id)
        for match in PRONOUN.finditer(item.text):
            position = to_original(item, match.start())
            written = original[position:].split(maxsplit=1)[0] if position < len(original) else ""
            original_gender = PRONOUN_GENDER.get(re.sub(r"\W", "", written).lower())
            if original_gender is None:
                continue
            antecedent = next((person for s, _, person in reversed(gold.person_words)
                               if s < position and gold.people[person] == original_gender), None)
            if antecedent is None:
                continue
            figures.pronouns += 1
            if PRONOUN_GENDER[match.group().lower()] != assigned_gender(item, antecedent, original_gender):
                figures.stray += 1
                figures.stray_examples[f"{item.original_id}: {written!r} of {antecedent}"] += 1
    return figures


def entity_figures(templates, gold_records: dict[str, dict]) -> str:
    """Gold people with an entity of the same last name (or the same one-word name), and entities matching no gold
    person (places and organisations taken for people)."""
    found = total = 0
    strays: list[str] = []
    for template in templates:
        people = gold_records[template.document_id]["people"]
        labels = [entity.label for entity in template.entities if template.slot_kinds(entity.entity_id)]
        total += len(people)
        found += sum(any(label.split()[-1] == person.split()[-1] for label in labels) for person in people)
        strays += [label for label in labels if not any(label.split()[-1] == p.split()[-1] for p in people)]
    return f"people found {found}/{total}; non-person entities {len(strays)}: {', '.join(strays) or '-'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10, help="pairs per original (default 10)")
    parser.add_argument("--race", action="store_true", help="also measure the race perturbation")
    parser.add_argument("--show", type=int, default=5, help="examples of non-person substitutions to print")
    args = parser.parse_args()
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout
    print(f"code at {head.strip() or '?'} (plus any uncommitted changes); {args.samples} samples per original\n")
    kinds = ["gender-loc", "gender-glob"] + (["race"] if args.race else [])
    print(f"{'corpus':<20} {'kind':<12} {'skip rate':>12} {'non-person subs':>22} {'damaged inputs':>16} "
          f"{'stray pronouns':>18}")
    shown: list[str] = []
    entity_lines: list[str] = []
    for corpus, (documents, gold_records) in corpora().items():
        templates = build_templates(documents)
        entity_lines.append(f"{corpus:<20} " + entity_figures(templates, gold_records))
        for kind in kinds:
            f = measure(kind, documents, gold_records, args.samples, templates)
            rate = f.stray / f.pronouns if f.pronouns else 0.0
            damaged = f"{f.damaged_inputs} ({len(f.damaged_originals)} art.)"
            print(f"{corpus:<20} {kind:<12} {f.skipped:>3}/{f.originals:<3} {f.skipped / f.originals:5.1%} "
                  f"{f.non_person_subs:>6} of {f.name_subs:<6} {damaged:>16} {f.stray:>4}/{f.pronouns:<5} {rate:6.1%}")
            for example, count in f.examples.most_common(args.show):
                shown.append(f"  [{corpus} {kind}] {count} × {example}")
            for example, count in f.stray_examples.most_common(args.show):
                shown.append(f"  [{corpus} {kind}] stray {count} × {example}")
    print("\nentities (each template's people against the gold people):")
    print("\n".join(entity_lines))
    if shown:
        print("\nmost frequent non-person substitutions and stray pronouns:")
        print("\n".join(shown))


if __name__ == "__main__":
    main()
