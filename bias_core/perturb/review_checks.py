"""The checks of the swap review, each over all inputs of one perturbation: coherence flags (issue 27), doubtful and
non-person swaps, gender disagreement, leftover titles, gendered words and pronouns, partial names, politician aliases and skipped originals."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from bias_core.common.records import Input, Substitution
from bias_core.perturb.agreement import (
    GENDERED_NOUNS,
    NAME_KINDS,
    CoherenceFlag,
    coherence_flags,
    entity_gender,
    gendered_word_ties,
    original_positions,
    stored_flags,
)
from bias_core.perturb.lexicon import CONTENT_WORD_GENDER, GENDERS, PRONOUN_GENDER, TITLE_GENDER, title_key
from bias_core.perturb.pronoun_referents import readings_of
from bias_core.perturb.review_checklist import (
    CHECK_HOW,
    CHECK_TITLES,
    CONFIDENCE_RANK,
    Check,
    Example,
    Findings,
    doubt,
)

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

SENTENCE_CHARS = 240  # a sentence shown with a finding is cut to about this many characters around the span


def _where(item: Input, position: int) -> str:
    """Where a position of the input text is in its original (shifted back over the substitutions before it), so
    the same leftover in every sample of an original is one example."""
    shift = sum(len(sub.replacement) - len(sub.original) for sub in item.substitutions if sub.end <= position)
    return f"@{position - shift}"


def non_person_swaps(items: Iterable[Input]) -> Check:
    """Name substitutions of spans whose entity type or spaCy label is not PERSON (a place or organisation made a
    person), riskiest evidence (a pronoun alone) first."""
    findings = Findings("non_person")
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
    findings = Findings("doubtful_swaps")
    excluded_names = excluded_names or {}
    for item in items:
        original_text: str | None = None
        for sub, start in original_positions(item):
            if sub.swap_confidence not in CONFIDENCE_RANK or sub.kind not in NAME_KINDS:
                continue
            name = swapped_name(item, sub)
            if name in excluded_names.get(item.original_id, ()):
                continue
            original_text = original_text if original_text is not None else item.original_text()
            findings.add(item, sub.start, sub.end, f"{sub.swap_confidence}: {sub.swap_confidence_reason}",
                         same_as=name, span=name, shown=sentence(original_text, start, start + len(sub.original)))
    check = findings.done()
    check.examples.sort(key=lambda e: (doubt(e), e.original_id, e.span))
    return check


def swapped_name(item: Input, sub: Substitution) -> str:
    """The name a substitution belongs to, as the original writes it: its entity's original first and last name
    (the politician's for a politician swap), else the span it replaced."""
    entity = next((e for e in item.entities if e.entity_id == sub.entity_id), None)
    if entity is not None and (entity.original_first_name or entity.original_last_name):
        return " ".join(n for n in (entity.original_first_name, entity.original_last_name) if n)
    return sub.original


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


def coherence(items: Iterable[Input]) -> Check:
    """Every place an input contradicts itself (``perturb.agreement``: gender, unresolved pronoun, two names, title
    or suffix), as the perturbation's coherence check stored it with the input, else as the same check finds it from
    the original's parse (inputs made before issue 27); the title gives the share of inputs with any flag."""
    findings = Findings("coherence")
    items = list(items)
    flagged = 0
    for item, flags in zip(items, _flags_of(items), strict=True):
        flagged += bool(flags)
        for flag in flags:
            findings.add(item, flag.start, flag.end, f"{flag.kind}: {flag.note}",
                         same_as=f"{flag.kind}@{','.join(flag.entity_ids)}@{_where(item, flag.start)}",
                         span=flag.span, shown=sentence(item.text, flag.start, flag.end))
    check = findings.done()
    check.title = f"{check.title} — {coherence_share(flagged, len(items))}"
    return check


def coherence_share(flagged: int, total: int) -> str:
    """"7 of 40 inputs (18%) carry a coherence flag"."""
    share = f" ({100 * flagged / total:.0f}%)" if total else ""
    return f"{flagged} of {total} inputs{share} carry a coherence flag"


def gender_agreement(items: Iterable[Input]) -> Check:
    """The gender flags of the coherence check alone: pronouns and gendered nouns that spaCy's parse of the original
    ties to a swapped person and whose gender in the input is not that person's gender there (issue 21)."""
    findings = Findings("gender_agreement")
    items = list(items)
    for item, flags in zip(items, _flags_of(items), strict=True):
        for flag in flags:
            if flag.kind == "gender":
                findings.add(item, flag.start, flag.end, flag.note, same_as=f"{','.join(flag.entity_ids)}@"
                             f"{_where(item, flag.start)}", shown=sentence(item.text, flag.start, flag.end))
    return findings.done()


def _flags_of(items: list[Input]) -> list[list[CoherenceFlag]]:
    """Each input's coherence flags: stored by the perturbation, else found from the original's parse (one batched
    parse of the originals not parsed before)."""
    stored = [stored_flags(item) for item in items]
    missing = [item for item, flags in zip(items, stored, strict=True)
               if flags is None and item.substitutions and any(entity_gender(e) for e in item.entities)]
    originals = {item.id: item.original_text() for item in missing}
    ties = gendered_word_ties(list(originals.values()), GENDERED_NOUNS) if originals else {}
    return [flags if flags is not None else
            coherence_flags(item, ties[originals[item.id]], originals[item.id]) if item.id in originals else []
            for item, flags in zip(items, stored, strict=True)]


_EVIDENCE_RISK = {"pronoun": 0, "first-name+unlisted-surname": 0.5, "no recorded": 1, "appositive-role": 2,
                  "first-name+surname": 3, "initials+surname": 4, "title": 5, "gold": 6}


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
    findings = Findings("leftover_titles")
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
    findings = Findings("leftover_content_words")
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
    gender — less those the perturbation left as written on purpose (issue 27): under the strict scope an unnamed
    person's ("a spokesman … he"), under the coherent one a pronoun near a name no swap renames ("Mohammed Hadid … he"),
    i.e. every pronoun the parse gave no swapped person, where this process built the original's template
    (``pronoun_referents.readings_of``)."""
    findings = Findings("leftover_pronouns")
    for item in items:
        if item.arm not in GENDERS:
            continue
        kept: set[int] | None = None
        for match in _PRONOUN.finditer(item.text):
            if PRONOUN_GENDER[match["word"].lower()] != item.arm:
                if kept is None:
                    kept = {reading.start for reading in readings_of(item.original_text()) or ()
                            if reading.status != "entity"}
                if int(_where(item, match.start())[1:]) in kept:
                    continue
                findings.add(item, match.start(), match.end(), f"'{match['word']}' in the all-{item.arm} arm")
    return findings.done()


def partial_names(items: Iterable[Input]) -> Check:
    """Original first or last names an input replaced but still contains (as a whole word, case-sensitive, or in
    capitals), unless another person of the input now bears that name or it is a capitalised common word starting
    a sentence."""
    findings = Findings("partial_names")
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
    from bias_core.perturb.politician_forms import PairError, parse_pair

    findings = Findings("politician_aliases")
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
