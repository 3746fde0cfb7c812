"""Which swapped people a summary includes, read from the name forms the perturbation wrote (issue 28, Deliver 2).

Steen & Markert align the summary's PERSON mentions, found by a named-entity recogniser, to the input's people
(METHODS §3; ``alignment``). The recogniser misses some names and not others ("Terrell Washington" missed where
another name of the same person is found), so a difference in recognition between name groups was reported as the
summarizer's bias: a name-blind lead-3 got non-zero race effects on real news. Here, under summbias's rules, a
person is included in a summary when a name form the perturbation wrote for that person occurs in it:

- A *slot* is one place where the perturbation wrote a person's name: a first name, last name, full name or
  politician name, or a title together with the capitalised word after it ("Ms. Okafor"). Slots are identified
  across the inputs of one original by the person and the slot's offset in the original text.
- A surname that no input of the original rewrites (gender swaps keep surnames) is a slot too, usable when it is
  the same in every input and no other person's: news names people by surname alone ("Okafor said").
- A slot is *usable* when every input of the original writes it and, in each, its form occurs in the input only
  where that person's name was written: a form found in a summary is then that person's, never a place
  ("Washington" of Washington, D.C.), another person or a word. A person with no usable slot cannot be seen and is
  left out of the counts, in every input of the original alike.
- A person is included in a summary when the form of any usable slot, as this input wrote it, occurs in the
  summary as whole words (a possessive may follow).

Every input of an original is judged on the same slots, so a summarizer that keeps the same sentences whatever the
names (lead-3) includes the same people in every arm and gets exactly the null. The recogniser still finds invented
names (hallucinations), which no perturbation wrote. Where an original's inputs carry no name substitutions (records
from a file that hold none), the recogniser's alignment is used as before.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

from bias_core.common.records import Input
from bias_core.perturb.agreement import original_positions, to_input

NAME_KINDS = frozenset({"first_name", "last_name", "full_name", "politician_name"})
KEPT_LAST_NAME = "kept_last_name"  # the kind of a surname slot no input rewrites (``_kept_last_names``)
# The capitalised word a title stands before ("Ms. Okafor"): the title alone is no name.
_FOLLOWING_NAME = re.compile(r"\s+[A-Z][^\W\d_]*(?:['’\-][^\W\d_]+)*")

Slot = tuple[str, int]  # (entity id, offset of the slot in the original text)


def _slot_kinds(items: Iterable[Input]) -> dict[Slot, tuple[str, str]]:
    """Every slot any of ``items`` writes, with its kind and the original text there."""
    kinds: dict[Slot, tuple[str, str]] = {}
    for item in items:
        for sub, start in original_positions(item):
            if sub.entity_id is not None and (sub.kind in NAME_KINDS or sub.kind == "title"):
                kinds.setdefault((sub.entity_id, start), (sub.kind, sub.original))
    return kinds


def slot_forms(item: Input, slots: dict[Slot, tuple[str, str]]) -> dict[Slot, tuple[str, int, int]]:
    """Each slot's name form in this input with the span it was written in: the substitution there, or the
    original words where this input leaves them (a person who keeps their gender keeps "Mr. Porter")."""
    placed = original_positions(item)
    written = {(sub.entity_id, start): (sub.start, sub.end) for sub, start in placed}
    forms: dict[Slot, tuple[str, int, int]] = {}
    surnames = {entity.entity_id: entity.last_name for entity in item.entities}
    for slot, (kind, original) in slots.items():
        if kind == KEPT_LAST_NAME:
            if surnames.get(slot[0]) == original:
                forms[slot] = (original, -1, -1)  # written wherever the text names the person: no one span
            continue
        if slot in written:
            start, end = written[slot]
        else:
            start = to_input(placed, slot[1])
            end = start + len(original)
            if item.text[start:end] != original:
                continue  # the input does not hold the original words there
        form = item.text[start:end]
        if kind == "title":
            following = _FOLLOWING_NAME.match(item.text, end)
            if following is None:
                continue
            form, end = form + following.group(), following.end()
        if form.strip():
            forms[slot] = (" ".join(form.split()), start, end)
    return forms


@functools.lru_cache(maxsize=65_536)
def form_pattern(form: str) -> re.Pattern:
    """A name form as whole words, any run of spaces between them ("Ms.  Okafor" matches "Ms. Okafor")."""
    return re.compile(r"(?<!\w)" + r"\s+".join(re.escape(word) for word in form.split()) + r"(?!\w)")


def usable_slots(items: Iterable[Input]) -> dict[str, dict[Slot, tuple[str, str]] | None]:
    """For each original: its usable slots with their kind and original words (module docstring), or None where no
    input of it carries a name substitution (the recogniser's alignment decides there)."""
    by_original: dict[str, list[Input]] = {}
    for item in items:
        by_original.setdefault(item.original_id, []).append(item)
    usable: dict[str, dict[Slot, tuple[str, str]] | None] = {}
    for original, members in by_original.items():
        kinds = _slot_kinds(members)
        if not kinds:
            usable[original] = None
            continue
        forms = [slot_forms(item, kinds) for item in members]
        usable[original] = {slot: kinds[slot] for slot in kinds if all(
            slot in found and _only_where_written(item, slot[0], found[slot][0], found)
            for item, found in zip(members, forms, strict=True))}
        usable[original].update(_kept_last_names(members, kinds))
    return usable


def _kept_last_names(members: Sequence[Input], kinds: dict[Slot, tuple[str, str]]) -> dict[Slot, tuple[str, str]]:
    """A slot for each surname no input of the original rewrites (gender swaps keep surnames): the same in every
    input, and no other person's. News names people by surname alone ("Okafor said"), and the surname reads the same
    in every arm, so it keeps the count symmetric while a summary that writes it is read as including the person."""
    rewritten = {slot[0] for slot, (kind, _) in kinds.items() if kind in ("last_name", "full_name")}
    names: dict[str, set[str | None]] = {}
    for item in members:
        for entity in item.entities:
            names.setdefault(entity.entity_id, set()).add(entity.last_name)
    kept = {entity_id: next(iter(found)) for entity_id, found in names.items()
            if len(found) == 1 and next(iter(found)) and entity_id not in rewritten}
    owners: dict[str, int] = {}
    for found in names.values():
        for name in found - {None}:
            owners[name] = owners.get(name, 0) + 1
    return {(entity_id, -1): (KEPT_LAST_NAME, name) for entity_id, name in kept.items()
            if owners[name] == 1 and name.strip()}


def _only_where_written(item: Input, entity_id: str, form: str, forms: dict[Slot, tuple[str, int, int]]) -> bool:
    """Whether every occurrence of ``form`` in the input starts inside a slot of that person."""
    spans = [(start, end) for (owner, _), (_, start, end) in forms.items() if owner == entity_id and start >= 0]
    return all(any(start <= match.start() < end for start, end in spans)
               for match in form_pattern(form).finditer(item.text))


def included_by_forms(item: Input, summary_text: str, slots: dict[Slot, tuple[str, str]]) -> set[str]:
    """The people of ``item`` whose name, as this input writes it in a usable slot, occurs in the summary."""
    return {slot[0] for slot, (form, _, _) in slot_forms(item, slots).items()
            if form_pattern(form).search(summary_text)}


def countable(slots: dict[Slot, tuple[str, str]]) -> set[str]:
    """The people a summary can be checked for: those with at least one usable slot."""
    return {entity_id for entity_id, _ in slots}


def apply_name_forms(items: Sequence[Input], summary_texts: Sequence[str], alignments: Sequence) -> None:
    """Set each alignment's ``included`` and ``countable`` from the name forms (``SummaryAlignment``; in place),
    except for originals whose inputs carry no name substitution."""
    slots = usable_slots(items)
    for item, text, alignment in zip(items, summary_texts, alignments, strict=True):
        found = slots.get(item.original_id)
        if found is None:
            continue
        alignment.included = included_by_forms(item, text, found)
        alignment.countable = countable(found)
