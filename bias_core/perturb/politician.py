"""Politician swap: replace every name form of one politician with the other's (METHODS §1.5; Zhou & Tan §3–4).

The default pair is Zhou & Tan's Table 1 mapping between Donald Trump and Joe Biden. Name forms are grouped in
tiers (last name; first + last; full name with middle initial or name); a form maps to the *first* form of the
other politician's tier, as the table's caption prescribes ("D. Trump" → "Joe Biden"), so the replacement keeps the
shape of the original mention: a full name where it had a full name, a last name (after any title) where it had that.

A politician's forms come from the politicians table (``data/politicians.csv``, built from the public
congress-legislators rosters) when the name given in the pair is found there, else from the name itself:

- first names: the legal first name, the nickname, the first name as given, and their common nicknames from the
  ``nicknames`` package (Richard → Dick, Robert → Bob, Charles → Chuck), so "Richard Durbin", "Dick Durbin" and
  "Durbin" are one person;
- middle names with and without the full stop ("George W. Bush", "George W Bush", "George Walker Bush");
- the last name, and every form also in capitals ("BUSH ARRIVES IN SYDNEY");
- the politician's own name suffix ("Jr.") is part of the mention and is dropped with it.

Forms are matched as whole words, longest first, so titles, possessives and compounds around them survive
("President Trump's" → "President Biden's", "the Bush administration", "Bush-era"). When the two politicians'
genders differ (table or census first-name gender), the gendered title before a mention ("Mr", "Mrs",
"Congresswoman") and the pronouns the entity template attributes to the politician are changed to the new gender.

- Only originals that mention e1 and not e2 are used (Zhou & Tan §3, footnote 3); an original mentioning e2 only is
  run in the other direction, so both directions are covered from one corpus.
- A form followed by a suffix that is not the politician's own ("Donald Trump Jr."), or the last name under a first
  name that is none of the politician's ("Ivanka Trump", "Laura Bush"; found by the NER or as a first name right
  before the last name), is another person: the original is skipped, because swapping would either rename a
  relative or leave an e1 form behind.
- **A politician named by surname only** (no full-name form anywhere in the article) is resolved by the article's
  date (``meta.date``) and the title before the name (issue 21): when the politicians table holds others of that
  surname ("Bush": George H. W., George W., Cori), the person holding an office on that date — of the title's kind
  when a title stands before the name ("President Bush" in 2001 is George W. Bush) — is the one meant. The original
  is skipped when that is another person; when the date and title leave more than one (or none, or there is no
  date), it is swapped and every substitution is flagged with low confidence, so the swap review lists it. Every
  substitution records its ``swap_confidence`` and the reason.
- Each used original gives two inputs per pair, with the pair's index as ``sample_id``: the unchanged text
  (``role`` ``original``, ``arm`` = e1) and the swapped text (``role`` ``swap1``, ``arm`` = e2); the entity's
  ``group`` is the politician shown, ``extra`` holds the ``pair`` and the ``direction``.

:func:`back_replace` maps e2's name forms in a summary of the swapped input back to e1's (Zhou & Tan §4,
footnote 4), so that the names themselves do not count as a difference between S^e1 and S^e2.

Within-group controls (METHODS §1.3) do not apply: each group is one person, so there is no other name of the same
group to permute.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from bias_core.common import nlp
from bias_core.common.records import Document, Entity, Input, Substitution
from bias_core.perturb.base import Perturbation, PerturbationResult, SkipReport
from bias_core.perturb.lexicon import NEUTRAL_TITLES, TITLE_GENDER, match_case, pronoun_for, title_for, title_key
from bias_core.perturb.names import census_first_names
from bias_core.perturb.politician_forms import (
    TRUMP_BIDEN,
    Politician,
    PoliticianPair,
    find_record,
    form_pattern,
    office_terms,
    parse_pair,
)
from bias_core.perturb.rosenman import is_voter_first_name
from bias_core.perturb.templates import EntityTemplate, build_templates
from bias_core.safety.validation import check_list_length

logger = logging.getLogger(__name__)

# Gendered role nouns used as titles before a name; TITLE_GENDER (lexicon.py) has the honorifics (Mr, Mrs, Ms …).
_ROLE_TITLES = {"congressman": ("male", "congresswoman"), "congresswoman": ("female", "congressman"),
                "chairman": ("male", "chairwoman"), "chairwoman": ("female", "chairman"),
                "assemblyman": ("male", "assemblywoman"), "assemblywoman": ("female", "assemblyman")}
_TITLE_BEFORE = re.compile(r"(?<![\w])(?P<title>(?i:" + "|".join([*TITLE_GENDER, *_ROLE_TITLES]) + r")\.?)\s+\Z")


# Titles before a surname and the office of the politicians table each names ("President Bush", "Sen. Durbin").
_OFFICE_OF_TITLE = {"president": "President", "vice president": "Vice President", "senator": "US Senator",
                    "sen": "US Senator", "rep": "US Representative", "representative": "US Representative",
                    "congressman": "US Representative", "congresswoman": "US Representative",
                    "governor": "Governor", "gov": "Governor"}
_OFFICE_TITLE_BEFORE = re.compile(r"(?<![\w])(?P<title>(?i:" + "|".join(sorted(_OFFICE_OF_TITLE, key=len, reverse=True))
                                  + r"))\.?\s+\Z")


def resolve_surname_only(source: Politician, text: str, matches: list[re.Match[str]],
                         date: str | None) -> tuple[str, str]:
    """Who a politician named by surname only is (module docstring): ("source", why) when the article's date and
    titles point to ``source`` or nobody else in the table has the surname, ("other", why) when they point to
    another person, ("unknown", why) when they do not decide."""
    record = find_record(source.name)
    own = record.name if record is not None else source.name
    terms = office_terms(source.last_name)
    namesakes = sorted({term.name for term in terms} - {own})
    if not namesakes:
        return "source", f"the only politician named {source.last_name} in the table"
    offices = {_OFFICE_OF_TITLE[title["title"].lower()]
               for match in matches if (title := _OFFICE_TITLE_BEFORE.search(text, max(0, match.start() - 20),
                                                                             match.start()))}
    day = (date or "")[:10]
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", day):
        return "unknown", (f"'{source.last_name}' alone could also be {', '.join(namesakes)}; the article has no "
                           "date to tell")
    holders = sorted({term.name for term in terms if term.held_on(day) and (not offices or term.office in offices)})
    where = f"{' or '.join(sorted(offices))} on {day}" if offices else f"in office on {day}"
    if holders == [own]:
        return "source", f"'{source.last_name}' alone: {own} was {where} (the article's date)"
    if len(holders) == 1:
        return "other", f"'{source.last_name}' alone in an article of {day} is {holders[0]} ({where}), not {own}"
    who = ", ".join(holders) if holders else "nobody of that name"
    return "unknown", (f"'{source.last_name}' alone could also be {', '.join(namesakes)}; {who} {where} by the "
                       "table")


def back_replace(summary_text: str, pair: PoliticianPair | str = TRUMP_BIDEN, *, swapped_to: str | None = None) -> str:
    """Return ``summary_text`` with the swapped-in politician's name forms mapped back to the original's.

    ``swapped_to`` names the politician that was inserted (default: ``pair.e2``, i.e. an e1 → e2 input); its forms
    are replaced tier by tier with the first form of the other politician (Zhou & Tan §4, footnote 4).
    """
    pair = parse_pair(pair) if isinstance(pair, str) else pair
    inserted, original = (pair.e2, pair.e1) if swapped_to in (None, pair.e2.name) else (pair.e1, pair.e2)
    mapping = pair.mapping(inserted, original)
    return form_pattern(inserted.forms).sub(lambda m: mapping[m.group("form")] + _kept_suffix(m, inserted),
                                           summary_text)


def _kept_suffix(match: re.Match[str], politician: Politician) -> str:
    suffix = match.group("suffix")
    if suffix is None or suffix in politician.own_suffixes:
        return ""
    return match.group(0)[len(match.group("form")):]


@dataclass(frozen=True)
class PoliticianConfig:
    """Settings of the politician swap: the pairs to run (default: Trump ↔ Biden, Zhou & Tan Table 1)."""

    pairs: tuple[str, ...] = field(default=(TRUMP_BIDEN.label,))

    def __post_init__(self) -> None:
        object.__setattr__(self, "pairs", tuple(self.pairs))
        if not self.pairs:
            raise ValueError("give at least one pair, e.g. 'Donald Trump=Joe Biden'")
        check_list_length("pairs", self.pairs)
        for pair in self.pairs:
            parse_pair(pair)


@dataclass(frozen=True)
class _Edit:
    start: int
    end: int
    replacement: str
    kind: str


class PoliticianSwap(Perturbation):
    """Swap one politician's names for another's in originals that mention only one of them (METHODS §1.5)."""

    name = "politician"
    config_class = PoliticianConfig
    config: PoliticianConfig

    def run(self, documents: Sequence[Document]) -> PerturbationResult:
        """Return the (unchanged, swapped) input pair of every original that mentions exactly one of a pair."""
        return self.run_templates(build_templates(documents))

    def run_templates(self, templates: Sequence[EntityTemplate]) -> PerturbationResult:
        """Return the inputs from already parsed templates (NER finds other people sharing a last name)."""
        pairs = [parse_pair(pair) for pair in self.config.pairs]
        report = SkipReport(n_originals=len(templates))
        inputs: list[Input] = []
        for template in templates:
            if template.skip_reason:
                report.skip(template.document_id, template.skip_reason)
                continue
            reasons = []
            for index, pair in enumerate(pairs):
                made, reason = self._swap(template, pair, index)
                inputs += made
                if reason:
                    reasons.append(reason)
            if len(reasons) == len(pairs):
                report.skip(template.document_id, "; ".join(reasons))
        info = {**self.run_info(), "mappings": {pair.label: {
            f"{pair.e1.name} -> {pair.e2.name}": pair.mapping(pair.e1, pair.e2),
            f"{pair.e2.name} -> {pair.e1.name}": pair.mapping(pair.e2, pair.e1)} for pair in pairs},
            "n_inputs": len(inputs)}
        logger.info("%s: %d inputs from %d originals, %d skipped", self.name, len(inputs), len(templates),
                    len(report.skipped))
        return PerturbationResult(inputs, report, info)

    def _swap(self, template: EntityTemplate, pair: PoliticianPair, sample_id: int) -> tuple[list[Input], str | None]:
        text = template.text
        mentions = {p.name: list(form_pattern(p.forms).finditer(text)) for p in (pair.e1, pair.e2)}
        if mentions[pair.e1.name] and mentions[pair.e2.name]:
            return [], f"mentions both: {pair.e1.name} and {pair.e2.name}"
        if not mentions[pair.e1.name] and not mentions[pair.e2.name]:
            return [], f"mentions neither: {pair.e1.name} nor {pair.e2.name}"
        source, target = (pair.e1, pair.e2) if mentions[pair.e1.name] else (pair.e2, pair.e1)
        if {source.name, f"{source.first_name} {source.last_name}", source.last_name} & set(template.excluded_names):
            return [], f"{source.name} excluded from swapping by the analyst"
        matches = mentions[source.name]
        relative = _other_person(template, source, matches)
        if relative:
            return [], f"mentions another person named {source.last_name}: {relative}"
        confidence, reason = "high", "a full name of the politician"
        if all(match.group("form") in source.tiers[0] for match in matches):
            who, reason = resolve_surname_only(source, text, matches, str(template.meta.get("date") or ""))
            if who == "other":
                return [], reason
            confidence = "high" if who == "source" else "low"
        swapped_text, substitutions = _apply(text, _edits(template, pair, source, target, matches),
                                             (confidence, reason))
        direction = f"{source.name} -> {target.name}"
        extra = {"direction": direction, "pair": pair.label, **({"meta": template.meta} if template.meta else {})}
        key = f"{template.document_id}/{self.name}/s{sample_id}"
        original = Input(
            id=f"{key}/{source.slug}", original_id=template.document_id, text=text, perturbation=self.name,
            sample_id=sample_id, arm=source.name, role="original",
            entities=[_entity(source, source)], extra=extra,
        )
        swapped = Input(
            id=f"{key}/{target.slug}", original_id=template.document_id, text=swapped_text,
            perturbation=self.name, sample_id=sample_id, arm=target.name, role="swap1",
            entities=[_entity(target, source)], substitutions=substitutions, extra=dict(extra),
        )
        return [original, swapped], None


def _edits(template: EntityTemplate, pair: PoliticianPair, source: Politician, target: Politician,
           matches: list[re.Match[str]]) -> list[_Edit]:
    """Return the name replacements and, when the genders differ, the title and pronoun changes."""
    mapping = pair.mapping(source, target)
    edits = [_Edit(match.start(), match.end() if match.group("suffix") else match.end("form"),
                   mapping[match.group("form")], "politician_name") for match in matches]
    if not (source.gender and target.gender and source.gender != target.gender):
        return edits
    for match in matches:
        title = _TITLE_BEFORE.search(template.text, max(0, match.start() - 20), match.start())
        if title:
            word = title.group("title")
            edits.append(_Edit(title.start("title"), title.end("title"), _title_for(target.gender, word), "title"))
    own_entities = {entity.entity_id for entity in template.entities
                    if entity.last_name == source.last_name
                    or (entity.last_name is None and entity.first_name and source.is_own_given_name(entity.first_name))}
    for slot in template.slots:
        if slot.kind == "pronoun" and slot.entity_id in own_entities:
            edits.append(_Edit(slot.start, slot.end, pronoun_for(target.gender, slot.form or "subject", slot.text),
                               "pronoun"))
    return edits


def _title_for(gender: str, word: str) -> str:
    key = title_key(word)
    if key in TITLE_GENDER:
        return title_for(gender, word)
    own_gender, other = _ROLE_TITLES[key]
    return word if own_gender == gender else match_case(word, other)


def _apply(text: str, edits: list[_Edit], confidence: tuple[str, str]) -> tuple[str, list[Substitution]]:
    """Return the text with non-overlapping edits applied and their substitution map (offsets in the new text), each
    substitution with the swap's confidence (level, reason)."""
    pieces, substitutions, cursor, length = [], [], 0, 0
    for edit in sorted(set(edits), key=lambda e: (e.start, e.end)):
        if edit.start < cursor or text[edit.start : edit.end] == edit.replacement:
            continue
        gap = text[cursor : edit.start]
        pieces += [gap, edit.replacement]
        length += len(gap)
        substitutions.append(Substitution(length, length + len(edit.replacement), text[edit.start : edit.end],
                                          edit.replacement, edit.kind, "politician", swap_confidence=confidence[0],
                                          swap_confidence_reason=confidence[1]))
        length += len(edit.replacement)
        cursor = edit.end
    pieces.append(text[cursor:])
    return "".join(pieces), substitutions


def _other_person(template: EntityTemplate, source: Politician, matches: list[re.Match[str]]) -> str | None:
    """Return the mention of another person who shares the politician's last name, if any."""
    for match in matches:
        suffix = match.group("suffix")
        if suffix and suffix not in source.own_suffixes:
            return match.group(0)
    for match in matches:
        if match.group("form") in source.tiers[0]:
            other = _unmatched_name_before(template.text, match, source)
            if other:
                return other
    for entity in template.entities:
        if entity.last_name == source.last_name and entity.first_name \
                and not all(source.is_own_given_name(word) for word in entity.first_name.split()):
            return entity.label
    return _first_name_before(template.text, source)


def _unmatched_name_before(text: str, match: re.Match[str], source: Politician) -> str | None:
    """Return the name of another person where a bare last name follows name words that are none of the
    politician's forms: initials ("George H. W. Bush" for George W. Bush), or a title of the other gender ("Mrs.
    Bush" for George W. Bush). A single "A" or "I" is a word, not an initial ("A Bush aide")."""
    words = re.findall(r"\S+", text[max(0, match.start() - 80) : match.start()])[-4:]
    name_words: list[str] = []
    for word in reversed(words):
        if not re.fullmatch(r"[A-Z][\w'’-]*\.?", word):
            break
        key = title_key(word)
        if key in TITLE_GENDER:
            if not name_words and source.gender and TITLE_GENDER[key] != source.gender:
                return f"{word} {match.group('form')}"
            break
        if key in NEUTRAL_TITLES:
            break
        name_words.insert(0, word)
    if any(re.fullmatch(r"[A-Z]\.?", word) and word not in ("A", "I") for word in name_words):
        return " ".join([*name_words, match.group("form")])
    return None


def _first_name_before(text: str, source: Politician) -> str | None:
    """Return "First Last" where a first name other than the politician's stands before the last name — a relative
    the NER missed ("Ivanka Trump"). A first name is a census or voter-file first name that is no title, no stop word
    and never written in lower case in the text ("The Trump campaign", "Senator Trump" and "Then Trump" are not)."""
    lowercase = set(re.findall(r"\b[a-z]+\b", text))
    stop_words = nlp.spacy_pipeline().Defaults.stop_words
    for match in re.finditer(r"\b([A-Z][a-z]+)\s+" + re.escape(source.last_name) + r"\b", text):
        word = match.group(1)
        if source.is_own_given_name(word) or word.lower() in lowercase or word.lower() in stop_words:
            continue
        if title_key(word) in NEUTRAL_TITLES or title_key(word) in TITLE_GENDER:
            continue
        if word in census_first_names() or is_voter_first_name(word):
            return match.group(0)
    return None


def _entity(shown: Politician, original: Politician) -> Entity:
    return Entity(entity_id="politician", group=shown.name, first_name=shown.first_name, last_name=shown.last_name,
                  original_first_name=original.first_name, original_last_name=original.last_name)
