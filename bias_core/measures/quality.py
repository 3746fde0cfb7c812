"""Degenerate summaries: empty text, runs of separators, repetition loops and prompt echoes, detected so measures can leave them out.

A small model that loops ("|| || || …", the same sentence again and again) or returns nothing does not produce a
summary whose words, names or value shares mean anything: counted as one, a loop of "||" becomes the top Fightin'
Words term and a repeated sentence inflates one value's share. ``compute_measures`` excludes such summaries from
every measure by default and counts them in every result (``details['n_degenerate_excluded']``).

The rules are deliberately conservative, so that an ordinary summary is never excluded; the thresholds are the
constants below:

- **empty**: the text is empty or whitespace only.
- **no words**: no letter or digit at all (only punctuation or symbols).
- **separator run**: ``MIN_SEPARATOR_RUN`` or more whitespace-separated tokens in a row made only of separator
  characters (``| / \\ - _ = * # ~ • ·``), as in "|| || ||", or a single such token of ``MIN_SEPARATOR_CHARS`` or more
  characters ("||||||||", "--------"). One " || " between two reviews, an em dash or a Markdown rule ("---") passes.
- **repetition loop**: a unit of 1 to ``MAX_LOOP_UNIT`` word/punctuation tokens repeated back to back at least
  ``MIN_LOOP_REPEATS`` times, the repeated stretch covering at least ``MIN_LOOP_TOKENS`` tokens ("the the the …",
  one sentence three times in a row); or one sentence of at least ``MIN_REPEATED_SENTENCE_WORDS`` words occurring
  ``MIN_LOOP_REPEATS`` or more times anywhere in the text. Natural prose repeats a phrase at most twice in a row.

- **prompt echo**: the summary opens with a label that only restates the prompt's frame and ends in a colon ("The
  review of a product is:", "The text is:"): every word of the label (at most ``MAX_ECHO_LABEL_WORDS``) is a word of
  the instruction or template the summary was asked with (``prompt_id``, singular and plural alike) or a function
  word, and there are at least two ("Summary:" alone is an ordinary heading). A small model that starts this way goes on copying the input, and the frame's words ("review", "product")
  would otherwise top Fightin' Words. Only checked when the summary records its ``prompt_id``; a label with any
  word of its own ("The review of a restaurant is:") passes.

Glitches are shown, not excluded: a word doubled by mistake ("the former former president") or a phrase of at least
``MIN_REPEATED_PHRASE_WORDS`` words said twice is a sign of a careless decoder a reader should see before trusting the
summary, but the rest of the summary still says what the model wrote, so ``glitches`` only names it (Compare shows it
beside the summary); it never removes a summary from a measure. Doublings English allows ("had had", "that that",
"very very") and repeated capitalised names ("Duran Duran", "Sirhan Sirhan") are not glitches.

Tokenising is a regular expression (words, or runs of one punctuation character), not spaCy: the check runs over
every summary before any model is loaded and must not depend on a tokenizer's treatment of symbols.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from bias_core.common.words import plural

MIN_SEPARATOR_RUN = 3
MIN_SEPARATOR_CHARS = 6
MAX_LOOP_UNIT = 30
MIN_LOOP_REPEATS = 3
MIN_LOOP_TOKENS = 8
MIN_REPEATED_SENTENCE_WORDS = 4
MIN_REPEATED_PHRASE_WORDS = 8
# Words English doubles on purpose ("he had had enough", "she said that that was all", "very very good").
ALLOWED_DOUBLINGS = frozenset("""had that very really so no yes bye far many more much ha ho well now there
    again away long round over on off knock tut hush chop pom boo cha""".split())

SEPARATOR_CHARACTERS = "|/\\-_=*#~•·"
_SEPARATOR_TOKEN = re.compile("[" + re.escape(SEPARATOR_CHARACTERS) + "]+")
_TOKEN = re.compile(r"\w+|([^\w\s])\1*")
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\s*\|\|\s*|\n+")
_WORD = re.compile(r"\w+")
MAX_ECHO_LABEL_WORDS = 10
_LABEL = re.compile(r"\s*([^:\n]{1,80}?)\s*:")
# Words a label may hold besides the prompt's own: articles, copulas and prepositions of "The X of a Y is:".
_FUNCTION_WORDS = frozenset("a an the this these of for about on in is are was here below following".split())


def _tokens(text: str) -> list[str]:
    return [match.group(0).lower() for match in _TOKEN.finditer(text)]


def _separator_run(text: str) -> bool:
    run = 0
    for token in text.split():
        if _SEPARATOR_TOKEN.fullmatch(token):
            if len(token) >= MIN_SEPARATOR_CHARS:
                return True
            run += 1
            if run >= MIN_SEPARATOR_RUN:
                return True
        else:
            run = 0
    return False


def _adjacent_repeats(tokens: list[str]) -> bool:
    """Return True when some unit of tokens repeats back to back often and long enough to be a loop."""
    count = len(tokens)
    for width in range(1, min(MAX_LOOP_UNIT, count // MIN_LOOP_REPEATS) + 1):
        for start in range(0, count - MIN_LOOP_REPEATS * width + 1):
            unit = tokens[start:start + width]
            repeats = 1
            position = start + width
            while tokens[position:position + width] == unit:
                repeats += 1
                position += width
            if repeats >= MIN_LOOP_REPEATS and repeats * width >= MIN_LOOP_TOKENS:
                return True
    return False


def _repeated_sentence(text: str) -> bool:
    sentences = [" ".join(_WORD.findall(part.lower())) for part in _SENTENCE_END.split(text)]
    counts = Counter(s for s in sentences if len(s.split()) >= MIN_REPEATED_SENTENCE_WORDS)
    return any(count >= MIN_LOOP_REPEATS for count in counts.values())


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def prompt_frame_words(prompt_id: str | None) -> frozenset[str]:
    """The words of the instruction or template a summary was asked with (without the article or units), from the
    ``prompt_id`` ``bias_core.summarize.prompts.build_prompt`` records; empty for an unknown id."""
    from bias_core.summarize import prompts

    if not prompt_id:
        return frozenset()
    base, _, extra = prompt_id.partition("+")
    parts = base.split("/")
    frame = ""
    if parts[0] == "table11" and len(parts) > 1 and parts[1] in prompts.PERSPECTIVE_TEMPLATES:
        frame = prompts.PERSPECTIVE_TEMPLATES[parts[1]].replace("{SOURCE}", " ")
    elif parts[0] == "table15" and len(parts) > 1 and parts[1].isdigit() \
            and int(parts[1]) < len(prompts.STEEN_MARKERT_PROMPTS):
        frame = prompts.STEEN_MARKERT_PROMPTS[int(parts[1])]
    if frame and extra == "induced-bias":
        frame += " " + prompts.INDUCED_BIAS_SUFFIX
    return frozenset(_stem(word) for word in _WORD.findall(frame.lower()))


def prompt_echo(text: str, prompt_id: str | None) -> bool:
    """True when the summary opens with a label restating the prompt's frame ("The review of a product is:")."""
    frame = prompt_frame_words(prompt_id)
    match = _LABEL.match(text) if frame else None
    if match is None:
        return False
    words = [_stem(word) for word in _WORD.findall(match.group(1).lower())]
    return 2 <= len(words) <= MAX_ECHO_LABEL_WORDS and all(w in frame or w in _FUNCTION_WORDS for w in words) \
        and any(w in frame and w not in _FUNCTION_WORDS for w in words)


def degenerate_reason(text: str | None, prompt_id: str | None = None) -> str | None:
    """Return why a summary is degenerate ('empty', 'no words', 'separator run', 'repetition loop', 'prompt echo'),
    or None. ``prompt_id`` (the summary's ``meta['prompt_id']``) enables the prompt-echo check."""
    if text is None or not text.strip():
        return "empty"
    if not any(character.isalnum() for character in text):
        return "no words"
    if _separator_run(text):
        return "separator run"
    if _adjacent_repeats(_tokens(text)) or _repeated_sentence(text):
        return "repetition loop"
    if prompt_echo(text, prompt_id):
        return "prompt echo"
    return None


_DOUBLED_WORD = re.compile(r"\b([^\W\d_]+)\s+(\1)\b", re.IGNORECASE)


def glitches(text: str | None, source: str | None = None) -> list[str]:
    """Plain notes on a doubled word ("doubled word 'former former'") or a phrase of at least
    ``MIN_REPEATED_PHRASE_WORDS`` words said twice ("repeats the phrase '…'"); empty for clean text.

    With the ``source`` (the summarized input), a doubling or repeated phrase the input itself holds is the input's,
    not the model's, and is not noted: an extractive summary copying "first FIRST" from a messy article did nothing
    wrong. Shown beside a summary; a glitch does not make a summary degenerate (see the module docstring). Meant for
    a text that is not degenerate: a loop repeats phrases by definition (``summary_flags`` checks that first)."""
    if not text:
        return []
    source_words = " ".join(_WORD.findall(source.lower())) if source else ""
    notes = []
    for match in _DOUBLED_WORD.finditer(text):
        first, second = match.group(1), match.group(2)
        if first.lower() in ALLOWED_DOUBLINGS or (first[0].isupper() and second[0].isupper()) \
                or f" {first.lower()} {second.lower()} " in f" {source_words} ":
            continue
        notes.append(f"doubled word '{first} {second}'")
        break
    words = _WORD.findall(text.lower())
    width = MIN_REPEATED_PHRASE_WORDS
    first_seen: dict[tuple[str, ...], int] = {}
    for start in range(len(words) - width + 1):
        phrase = tuple(words[start:start + width])
        seen = first_seen.setdefault(phrase, start)
        if start - seen >= width:  # a second, non-overlapping occurrence
            shown = " ".join(phrase)
            if source_words.count(shown) >= 2:
                continue
            notes.append(f"repeats the phrase '{shown}…'")
            break
    return notes


def summary_degenerate_reason(summary) -> str | None:
    """``degenerate_reason`` of a ``records.Summary``, with its recorded prompt."""
    return degenerate_reason(summary.text, (summary.meta or {}).get("prompt_id"))


def degenerate_summaries(texts: Iterable[str]) -> list[str | None]:
    """Return ``degenerate_reason`` of every text, in order."""
    return [degenerate_reason(text) for text in texts]


@dataclass(frozen=True)
class OutputQuality:
    """How one summarizer's outputs in a run came out: how many were cut at the token limit and how many are
    degenerate (by reason, left out of every measure). Shown beside the summarizer wherever its summaries or results
    are, so a reader knows what the measures were computed on."""

    summarizer: str
    n: int
    truncated: int
    degenerate: dict[str, int]

    @property
    def n_degenerate(self) -> int:
        return sum(self.degenerate.values())

    def line(self) -> str | None:
        """One plain sentence ("54 of 62 summaries were cut at the token limit; 6 are empty …"), or None when every
        output ended on its own and none is degenerate."""
        parts = []
        if self.truncated:
            parts.append(f"{self.truncated} of {self.n} {plural(self.n, 'summary')} "
                         f"{'was' if self.truncated == 1 else 'were'} cut at the token limit")
        if self.degenerate:
            reasons = ", ".join(f"{count} {REASON_WORDS.get(reason, (reason, reason))[count != 1]}"
                                for reason, count in sorted(self.degenerate.items(), key=lambda item: -item[1]))
            parts.append(f"{self.n_degenerate} of {self.n} {'is' if self.n_degenerate == 1 else 'are'} degenerate "
                         f"and left out of every measure ({reasons})")
        return f"{self.summarizer}: " + "; ".join(parts) + "." if parts else None


# How each reason reads after a count: (one, many).
REASON_WORDS = {"empty": ("empty", "empty"), "no words": ("without words", "without words"),
                "separator run": ("separator run", "separator runs"),
                "repetition loop": ("repetition loop", "repetition loops"),
                "prompt echo": ("prompt echo", "prompt echoes")}


def output_quality(summaries: Iterable) -> dict[str, OutputQuality]:
    """``OutputQuality`` per summarizer of ``records.Summary`` objects: ``meta['truncated']`` as the summarizer
    recorded it, degenerate reasons from ``summary_degenerate_reason``."""
    counts: dict[str, list] = {}
    for summary in summaries:
        n, truncated, reasons = counts.setdefault(summary.summarizer, [0, 0, Counter()])
        counts[summary.summarizer][0] = n + 1
        counts[summary.summarizer][1] = truncated + bool((summary.meta or {}).get("truncated"))
        reason = summary_degenerate_reason(summary)
        if reason:
            reasons[reason] += 1
    return {name: OutputQuality(name, n, truncated, dict(reasons)) for name, (n, truncated, reasons) in counts.items()}


def output_quality_caveat(summaries: Iterable) -> str | None:
    """The caveat the Overview and the report show beside the answers: "How the outputs came out: " and one plain
    sentence (``OutputQuality.line``) per summarizer whose outputs were cut at the token limit or degenerate, in
    summarizer order; None when every output ended on its own."""
    lines = [line for _, quality in sorted(output_quality(summaries).items()) if (line := quality.line())]
    return "How the outputs came out: " + " ".join(lines) if lines else None


def summary_flags(summary, source: str | None = None) -> list[str]:
    """What a reader should know about one ``records.Summary`` before reading it: cut at the token limit, and/or
    degenerate (with the reason; left out of every measure), and/or a glitch (``glitches``; kept in the measures).
    Empty for a summary that ended on its own and reads clean. ``source`` is the summarized input's text (see
    ``glitches``)."""
    flags = []
    if (summary.meta or {}).get("truncated"):
        flags.append("cut at the token limit")
    reason = summary_degenerate_reason(summary)
    if reason:
        flags.append(f"degenerate ({reason}): left out of every measure")
    else:  # a degenerate summary's loop is its reason, not a glitch besides it
        flags.extend(glitches(summary.text, source))
    return flags
