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

Issue 21 adds two corpora and a second table. ``data/news_real/wikinews.jsonl`` (42 real Wikinews articles) has its
gold in ``tests/fixtures/perturb/wikinews_gold.json``: every entity the builder found at commit 5e81c65 (before issue
21), judged by hand as a person or not (genders are not annotated there, so no stray-pronoun figure is given for it).
``tests/fixtures/not_people.jsonl`` is a set of real-style sentences that name places, facilities, songs, films,
characters and firms named after people, and people named like places: its ``not_swapped`` phrases are its non-people
and its ``swapped`` names its people. The second table, per corpus and kind (gender-loc and race), counts:

- **non-person entities swapped**: entities of an original (one per original and entity id) with a name substitution
  that is a non-person substitution as above, against all entities with a name substitution;
- **flagged**: how many of those non-person entities the swap review flags — a substitution whose spaCy label is not
  PERSON (the review's ``non_person`` check) or, from issue 21 on, whose confidence is medium or low — and the share
  of *all* swapped entities that the review lists as low, and as medium or low (what an analyst must read);
- **listed by review**: of the entities with a medium or low confidence swap, how many the review's doubtful-swaps
  check lists (each original and name) before the run;
- **test set**: ``not_swapped`` phrases touched by any name substitution, and ``swapped`` people left unswapped;
- **politician**: the test set's surname-only politician mentions (``politician_pair``, ``refers_to``): resolved (a
  mention of the pair's politician swapped, another person's skipped) or flagged (swapped with low confidence), and
  wrongly swapped without a flag.

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

from bias_core.common.records import Document, Input  # noqa: E402
from bias_core.documents.corpus import load_documents  # noqa: E402
from bias_core.perturb import build_templates, get_perturbation  # noqa: E402
from bias_core.perturb.lexicon import PRONOUN_GENDER  # noqa: E402
from bias_core.perturb.review_checks import doubtful_swaps, swapped_name  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "perturb"
NOT_PEOPLE = REPO / "tests" / "fixtures" / "not_people.jsonl"
WIKINEWS = REPO / "data" / "news_real" / "wikinews.jsonl"
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
    wikinews = load_documents(WIKINEWS)
    wikinews_gold = json.loads((FIXTURES / "wikinews_gold.json").read_text(encoding="utf-8"))
    sentences, sentence_gold = not_people_set()
    return {"demo news (16)": (demo, demo_gold), f"tricky names ({len(tricky)})": (tricky, tricky_gold),
            f"wikinews ({len(wikinews)})": (wikinews, wikinews_gold),
            f"not-people set ({len(sentences)})": (sentences, sentence_gold)}


def not_people_set() -> tuple[list[Document], dict[str, dict]]:
    """The test set's sentences (politician rows left out) with their gold: ``swapped`` names are its people,
    ``not_swapped`` phrases its non-people."""
    rows = [json.loads(line) for line in NOT_PEOPLE.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [row for row in rows if "politician_pair" not in row]
    documents = [Document(id=row["id"], text=row["text"], meta=row.get("meta") or {}) for row in rows]
    gold = {row["id"]: {"people": dict.fromkeys(row["swapped"], "unknown"), "non_people": row["not_swapped"]}
            for row in rows}
    return documents, gold


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


@dataclass
class Trust:
    """Entity-level figures of one corpus and kind (issue 21); entities are "original/entity id (name)" labels."""

    swapped: set[str] = field(default_factory=set)
    non_person: dict[str, str] = field(default_factory=dict)  # entity → "entity (name as written)"
    flagged_non_person: set[str] = field(default_factory=set)
    low: set[str] = field(default_factory=set)
    medium_low: set[str] = field(default_factory=set)
    name_subs: int = 0
    non_person_subs: int = 0
    doubtful: set[str] = field(default_factory=set)  # entities with a medium or low confidence swap
    listed: set[str] = field(default_factory=set)  # those the review's doubtful-swaps check lists


def is_flagged(sub) -> bool:
    """Whether the swap review flags a substitution: a spaCy label other than PERSON (the ``non_person`` check) or a
    medium or low confidence (issue 21; absent before it)."""
    labels = {label for label in (sub.entity_label, sub.ner_label) if label and label != "PERSON"}
    return bool(labels) or getattr(sub, "swap_confidence", None) in ("medium", "low")


def trust_figures(kind: str, documents: list[Document], gold_records: dict[str, dict], samples: int,
                  templates) -> Trust:
    originals = {d.id: d.text or "" for d in documents}
    golds = {doc_id: gold_for(text, gold_records[doc_id]) for doc_id, text in originals.items()}
    result = get_perturbation(kind, samples=samples).run_templates(templates)
    trust = Trust()
    listed = {(example.original_id, example.span) for example in doubtful_swaps(result.inputs).examples}
    for item in result.inputs:
        gold = golds[item.original_id]
        for sub in item.substitutions:
            if sub.kind not in NAME_KINDS:
                continue
            entity = f"{item.original_id}/{sub.entity_id}"
            trust.name_subs += 1
            trust.swapped.add(entity)
            confidence = getattr(sub, "swap_confidence", None)
            if confidence == "low":
                trust.low.add(entity)
            if is_flagged(sub):
                trust.medium_low.add(entity)
            if getattr(sub, "swap_confidence", None) in ("medium", "low"):
                trust.doubtful.add(entity)
                if (item.original_id, swapped_name(item, sub)) in listed:
                    trust.listed.add(entity)
            start = to_original(item, sub.start)
            end = start + len(sub.original)
            in_non_person = any(s <= start and end <= e for s, e in gold.non_person_ranges)
            covers_person = any(s < end and start < e for s, e, _ in gold.person_words)
            if in_non_person or not covers_person:
                trust.non_person_subs += 1
                trust.non_person.setdefault(entity, f"{entity} ({sub.original})")
                if is_flagged(sub):
                    trust.flagged_non_person.add(entity)
    return trust


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} {part / whole:5.1%}" if whole else "-"


def test_set_figures() -> tuple[list[str], list[str], int, int]:
    """The test set's ``not_swapped`` phrases that some name substitution (gender-loc or race) touches, and its
    ``swapped`` people whose name no race input changes."""
    documents, gold_records = not_people_set()
    templates = build_templates(documents)
    touched: list[str] = []
    unswapped: list[str] = []
    by_kind = {kind: get_perturbation(kind, samples=2).run_templates(templates).inputs
               for kind in ("gender-loc", "race")}
    for document in documents:
        text = document.text or ""
        record = gold_records[document.id]
        spans = []
        for items in by_kind.values():
            for item in items:
                if item.original_id == document.id:
                    spans += [(to_original(item, sub.start), to_original(item, sub.start) + len(sub.original))
                              for sub in item.substitutions if sub.kind in NAME_KINDS]
        for phrase in record["non_people"]:
            ranges = _occurrences(text, phrase)
            if any(s < e2 and s2 < e for s, e in ranges for s2, e2 in spans):
                touched.append(f"{document.id}: {phrase}")
        race_spans = [(to_original(item, sub.start), to_original(item, sub.start) + len(sub.original))
                      for item in by_kind["race"] if item.original_id == document.id
                      for sub in item.substitutions if sub.kind in NAME_KINDS]
        for person in record["people"]:
            ranges = _occurrences(text, person)
            if not any(s < e2 and s2 < e for s, e in ranges for s2, e2 in race_spans):
                unswapped.append(f"{document.id}: {person}")
    total_phrases = sum(len(r["non_people"]) for r in gold_records.values())
    total_people = sum(len(r["people"]) for r in gold_records.values())
    return touched, unswapped, total_phrases, total_people


def politician_figures() -> list[str]:
    """The test set's surname-only politician mentions: resolved, flagged, or swapped wrongly without a flag."""
    rows = [json.loads(line) for line in NOT_PEOPLE.read_text(encoding="utf-8").splitlines() if line.strip()]
    lines = []
    counts = Counter()
    for row in (row for row in rows if "politician_pair" in row):
        document = Document(id=row["id"], text=row["text"], meta=row.get("meta") or {})
        result = get_perturbation("politician", pairs=[row["politician_pair"]]).run([document])
        pair_names = [name.strip() for name in row["politician_pair"].split("=")]
        swapped = [item for item in result.inputs if item.role == "swap1"]
        flagged = any(getattr(sub, "swap_confidence", None) == "low" for item in swapped for sub in item.substitutions)
        if row["refers_to"] in pair_names:
            outcome = "resolved" if swapped and not flagged else ("flagged" if swapped else "missed (skipped)")
        elif not swapped:
            outcome = "resolved"
        else:
            outcome = "flagged" if flagged else "WRONG (swapped, no flag)"
        counts[outcome.split()[0]] += 1
        reason = "; ".join(entry.reason for entry in result.report.skipped)
        lines.append(f"  {row['id']}: refers to {row['refers_to'] or 'unknown'} -> {outcome}"
                     f"{' (' + reason + ')' if reason else ''}")
    head = (f"\npolitician, surname-only mentions: {sum(counts.values())}; resolved {counts['resolved']}, flagged "
            f"{counts['flagged']}, wrong without a flag {counts['WRONG']}, missed {counts['missed']}")
    return [head, *lines]


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


def coherence_table(split: str, samples: int, show: int) -> None:
    """Issue 27's figures on one half of the GUM gold (``coherence_gold``), one parse per original for all kinds."""
    import time

    from coherence_gold import judge, load, report
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout
    documents, golds = load(split)
    started = time.perf_counter()
    templates = build_templates(documents)
    print(f"code at {head.strip() or '?'} (plus any uncommitted changes); gold half {split!r}: {len(documents)} "
          f"articles; {samples} samples per original; parse {time.perf_counter() - started:.1f} s")
    for kind in ("gender-glob", "gender-loc", "race"):
        started = time.perf_counter()
        result = get_perturbation(kind, samples=samples, seed=0).run_templates(templates)
        elapsed = time.perf_counter() - started
        for line in report(judge(kind, result.inputs, documents, golds, templates, result.run_info.get("people")),
                           show):
            print(line)
        print(f"  ({elapsed:.1f} s to perturb)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10, help="pairs per original (default 10)")
    parser.add_argument("--race", action="store_true", help="also measure the race perturbation")
    parser.add_argument("--show", type=int, default=5, help="examples of non-person substitutions to print")
    parser.add_argument("--coherence", choices=("heldout", "tune"),
                        help="only the issue-27 table: coherence of gender-glob, gender-loc and race arm texts on one "
                             "half of the GUM gold (report on heldout; tune rules on tune only)")
    args = parser.parse_args()
    if args.coherence:
        coherence_table(args.coherence, args.samples, args.show)
        return
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
    print("\nissue 21: non-person entities swapped, and what the review flags (entities: original x entity id)")
    print(f"{'corpus':<20} {'kind':<12} {'non-person entities':>22} {'non-person subs':>17} {'flagged non-person':>19} "
          f"{'low share':>14} {'medium+low share':>17} {'listed by review':>17}")
    for corpus, (documents, gold_records) in corpora().items():
        templates = build_templates(documents)
        for kind in ("gender-loc", "race"):
            t = trust_figures(kind, documents, gold_records, args.samples, templates)
            print(f"{corpus:<20} {kind:<12} {len(t.non_person):>9} of {len(t.swapped):<10} {t.non_person_subs:>6} of "
                  f"{t.name_subs:<8} {len(t.flagged_non_person):>8} of {len(t.non_person):<8} "
                  f"{_share(len(t.low), len(t.swapped)):>14} {_share(len(t.medium_low), len(t.swapped)):>17} "
                  f"{len(t.listed):>8} of {len(t.doubtful):<6}")
            for entity in sorted(t.non_person)[:args.show]:
                flag = "flagged" if entity in t.flagged_non_person else "NOT flagged"
                shown.append(f"  [{corpus} {kind}] non-person entity {t.non_person[entity]}: {flag}")
    touched, unswapped, total_phrases, total_people = test_set_figures()
    print(f"\ntest set: not_swapped phrases touched {len(touched)} of {total_phrases}"
          f"{' (' + ', '.join(touched) + ')' if touched else ''}; swapped people left unswapped {len(unswapped)} of "
          f"{total_people}{' (' + ', '.join(unswapped) + ')' if unswapped else ''}")
    for line in politician_figures():
        print(line)
    print("\nentities (each template's people against the gold people):")
    print("\n".join(entity_lines))
    if shown:
        print("\nmost frequent non-person substitutions and stray pronouns:")
        print("\n".join(shown))


if __name__ == "__main__":
    main()
