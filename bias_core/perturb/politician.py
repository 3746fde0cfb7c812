"""Politician swap: replace every name form of one politician with the other's (METHODS §1.5; Zhou & Tan §3–4).

The default pair is Zhou & Tan's Table 1 mapping between Donald Trump and Joe Biden. Name forms are grouped in
tiers (last name; first + last; full name with middle initial or name); a form maps to the *first* form of the
other politician's tier, as the table's caption prescribes ("D. Trump" → "Joe Biden"). User pairs such as
"Mitch McConnell=Chuck Schumer" get three tiers derived from the names: last name, "First Last" and "F. Last".

- Only originals that mention e1 and not e2 are used (Zhou & Tan §3, footnote 3); an original mentioning e2 only is
  run in the other direction, so both directions are covered from one corpus.
- Forms are matched as whole words, longest first, so titles and possessives around them survive ("President
  Trump's" → "President Biden's").
- A politician's own name suffix (Biden's "Jr.") is part of the mention and is dropped with it: "Joseph R. Biden
  Jr." → "Donald J. Trump". A form followed by a suffix that is not the politician's own ("Donald Trump Jr."), or
  an e1 last name under another first name ("Ivanka Trump", found by the NER or as a first name right before the
  last name), is another person: the original is skipped, because swapping would either rename a relative or leave
  an e1 form behind.
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

from bias_core import nlp
from bias_core.names import census_first_names
from bias_core.perturb.base import Perturbation, PerturbationResult, SkipReport
from bias_core.perturb.lexicon import NEUTRAL_TITLES, TITLE_GENDER, title_key
from bias_core.perturb.rosenman import is_voter_first_name
from bias_core.perturb.templates import EntityTemplate, build_templates
from bias_core.records import Document, Entity, Input, Substitution

logger = logging.getLogger(__name__)

_SUFFIX = r"(?:,?\s+(?P<suffix>Jr\.?|Sr\.?|II|III|IV)(?![\w]))?"


@dataclass(frozen=True)
class Politician:
    """A politician's name forms in tiers (Zhou & Tan Table 1 rows), their own suffixes and the canonical name."""

    name: str
    first_name: str
    last_name: str
    tiers: tuple[tuple[str, ...], ...]
    own_suffixes: tuple[str, ...] = ()

    @property
    def forms(self) -> list[str]:
        """Every name form, longest first (the order in which they are matched)."""
        return sorted({form for tier in self.tiers for form in tier}, key=len, reverse=True)

    @property
    def slug(self) -> str:
        return re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")


@dataclass(frozen=True)
class PoliticianPair:
    """Two politicians whose tiers correspond row by row (Zhou & Tan Table 1)."""

    e1: Politician
    e2: Politician

    def __post_init__(self) -> None:
        if len(self.e1.tiers) != len(self.e2.tiers):
            raise ValueError("both politicians need the same number of name-form tiers")

    def mapping(self, source: Politician, target: Politician) -> dict[str, str]:
        """Map every form of ``source`` to the first form of the same tier of ``target``."""
        return {form: target_tier[0] for tier, target_tier in zip(source.tiers, target.tiers, strict=True)
                for form in tier}

    @property
    def label(self) -> str:
        return f"{self.e1.name}={self.e2.name}"


TRUMP = Politician(
    "Donald Trump", "Donald", "Trump",
    (("Trump",), ("Donald Trump", "D. Trump"), ("Donald J. Trump", "Donald John Trump")),
)
BIDEN = Politician(
    "Joe Biden", "Joe", "Biden",
    (("Biden",), ("Joe Biden", "Joseph Biden", "J. Biden"),
     ("Joe R. Biden", "Joseph R. Biden", "Joe Robinette Biden", "Joseph Robinette Biden")),
    own_suffixes=("Jr.", "Jr"),
)
TRUMP_BIDEN = PoliticianPair(TRUMP, BIDEN)


def parse_pair(text: str) -> PoliticianPair:
    """Parse "Donald Trump=Joe Biden" into a pair: Table 1 for Trump/Biden, derived tiers for anyone else."""
    left, sep, right = text.partition("=")
    names = [" ".join(side.split()) for side in (left, right)]
    if not sep or any(len(name.split()) < 2 for name in names):
        raise ValueError(f"a pair is 'First Last=First Last', got {text!r}")
    known = {TRUMP.name: TRUMP, BIDEN.name: BIDEN}
    e1, e2 = (known.get(name) or _politician(name) for name in names)
    if e1.last_name == e2.last_name:
        raise ValueError(f"the two people of a pair need different last names, got {text!r}")
    return PoliticianPair(e1, e2)


def _politician(name: str) -> Politician:
    parts = name.split()
    first, last = parts[0], parts[-1]
    full = (name,) if len(parts) > 2 else (f"{first} {last}",)
    return Politician(name, first, last, ((last,), (f"{first} {last}", f"{first[0]}. {last}"), full))


def _form_pattern(forms: Sequence[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(form) for form in sorted(forms, key=len, reverse=True))
    return re.compile(r"(?<![\w.])(?P<form>" + alternatives + r")(?![\w])" + _SUFFIX)


def count_forms(text: str, politician: Politician) -> int:
    """Return how many name forms of ``politician`` a text contains (whole words, longest match)."""
    return sum(1 for _ in _form_pattern(politician.forms).finditer(text))


def back_replace(summary_text: str, pair: PoliticianPair | str = TRUMP_BIDEN, *, swapped_to: str | None = None) -> str:
    """Return ``summary_text`` with the swapped-in politician's name forms mapped back to the original's.

    ``swapped_to`` names the politician that was inserted (default: ``pair.e2``, i.e. an e1 → e2 input); its forms
    are replaced tier by tier with the first form of the other politician (Zhou & Tan §4, footnote 4).
    """
    pair = parse_pair(pair) if isinstance(pair, str) else pair
    inserted, original = (pair.e2, pair.e1) if swapped_to in (None, pair.e2.name) else (pair.e1, pair.e2)
    mapping = pair.mapping(inserted, original)
    return _form_pattern(inserted.forms).sub(lambda m: mapping[m.group("form")] + _kept_suffix(m, inserted),
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
        for pair in self.pairs:
            parse_pair(pair)


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
        mentions = {p.name: list(_form_pattern(p.forms).finditer(text)) for p in (pair.e1, pair.e2)}
        if mentions[pair.e1.name] and mentions[pair.e2.name]:
            return [], f"mentions both: {pair.e1.name} and {pair.e2.name}"
        if not mentions[pair.e1.name] and not mentions[pair.e2.name]:
            return [], f"mentions neither: {pair.e1.name} nor {pair.e2.name}"
        source, target = (pair.e1, pair.e2) if mentions[pair.e1.name] else (pair.e2, pair.e1)
        matches = mentions[source.name]
        relative = self._other_person(template, source, matches)
        if relative:
            return [], f"mentions another person named {source.last_name}: {relative}"
        mapping = pair.mapping(source, target)
        pieces, substitutions, cursor, length = [], [], 0, 0
        for match in matches:
            suffix = match.group("suffix")
            end = match.end() if suffix else match.end("form")
            replacement = mapping[match.group("form")]
            gap = text[cursor : match.start()]
            pieces += [gap, replacement]
            length += len(gap)
            substitutions.append(Substitution(length, length + len(replacement), text[match.start() : end],
                                              replacement, "politician_name", "politician"))
            length += len(replacement)
            cursor = end
        pieces.append(text[cursor:])
        direction = f"{source.name} -> {target.name}"
        extra = {"direction": direction, "pair": pair.label, **({"meta": template.meta} if template.meta else {})}
        key = f"{template.document_id}/{self.name}/s{sample_id}"
        original = Input(
            id=f"{key}/{source.slug}", original_id=template.document_id, text=text, perturbation=self.name,
            sample_id=sample_id, arm=source.name, role="original",
            entities=[_entity(source, source)], extra=extra,
        )
        swapped = Input(
            id=f"{key}/{target.slug}", original_id=template.document_id, text="".join(pieces),
            perturbation=self.name, sample_id=sample_id, arm=target.name, role="swap1",
            entities=[_entity(target, source)], substitutions=substitutions, extra=dict(extra),
        )
        return [original, swapped], None

    @staticmethod
    def _other_person(template: EntityTemplate, source: Politician, matches: list[re.Match[str]]) -> str | None:
        for match in matches:
            suffix = match.group("suffix")
            if suffix and suffix not in source.own_suffixes:
                return match.group(0)
        own_first_names = {form.split()[0] for form in source.forms if len(form.split()) > 1}
        for entity in template.entities:
            if entity.last_name == source.last_name and entity.first_name not in (None, *own_first_names):
                return entity.label
        return _first_name_before(template.text, source.last_name, own_first_names)


def _first_name_before(text: str, last_name: str, own_first_names: set[str]) -> str | None:
    """Return "First Last" where a first name other than the politician's stands before the last name — a relative
    the NER missed ("Ivanka Trump"). A first name is a census or voter-file first name that is no title, no stop word
    and never written in lower case in the text ("The Trump campaign", "Senator Trump" and "Then Trump" are not)."""
    lowercase = set(re.findall(r"\b[a-z]+\b", text))
    stop_words = nlp.spacy_pipeline().Defaults.stop_words
    for match in re.finditer(r"\b([A-Z][a-z]+)\s+" + re.escape(last_name) + r"\b", text):
        word = match.group(1)
        if word in own_first_names or word.lower() in lowercase or word.lower() in stop_words:
            continue
        if title_key(word) in NEUTRAL_TITLES or title_key(word) in TITLE_GENDER:
            continue
        if word in census_first_names() or is_voter_first_name(word):
            return match.group(0)
    return None


def _entity(shown: Politician, original: Politician) -> Entity:
    return Entity(entity_id="politician", group=shown.name, first_name=shown.first_name, last_name=shown.last_name,
                  original_first_name=original.first_name, original_last_name=original.last_name)
