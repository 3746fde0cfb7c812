"""What a reader trips on in text shown on a screen (issue 29, Why 5 and 7): a missing value written as a word
("None", "nan", "undefined"), nested parentheses ("((", "))"), and a phrase said twice in one line ("no difference, the
summaries are identical — … · no difference: the summaries are identical"). Pure text checks, for tests of the pages,
the report and the exports."""

from __future__ import annotations

import re

from bias_core.common.words import ASCII_MINUS

# A missing value written out as a word: Python's None (not the English "None of …"), pandas' or NumPy's nan (NaN),
# JavaScript's undefined.
_MISSING_WORDS = re.compile(r"\b(None(?! of\b)|nan|NaN|undefined)\b")
# A word, or a number as one token ("-2.4", "1,204"), so that two different numbers never make a phrase repeat.
_WORD = re.compile(r"[-+−]?\d+(?:[.,]\d+)*|[^\W\d_]+(?:['’][^\W\d_]+)*")
# A number's minus sign ("−1"); a line that also writes one as a hyphen ("-4.9", ``ASCII_MINUS``) mixes them (issue 29, Why 9).
_MINUS_NUMBER = re.compile(r"−\d")
_LINE_BREAK = re.compile(r"\r\n|\r|\n|<br\s*/?>", re.IGNORECASE)  # HTML line breaks, as in chart notes, count
PHRASE_WORDS = 3  # the shortest phrase whose repetition within one line is reported


def _repeated_phrase(line: str, length: int = PHRASE_WORDS) -> str | None:
    """The first phrase of ``length`` words (case and punctuation ignored) that occurs twice in ``line`` without
    overlapping itself, else None."""
    words = [word.lower() for word in _WORD.findall(line)]
    first_seen: dict[tuple[str, ...], int] = {}
    for start in range(len(words) - length + 1):
        phrase = tuple(words[start:start + length])
        if phrase in first_seen and start - first_seen[phrase] >= length:
            return " ".join(phrase)
        first_seen.setdefault(phrase, start)
    return None


def reading_defects(text: str) -> list[str]:
    """The defects of ``text`` a reader would trip on, one line of words each (empty when there is none): a missing
    value written as "None", "nan" or "undefined"; nested parentheses "((" or "))"; a phrase of 3 or more words repeated
    within one line (lines are split at line breaks, HTML's <br> included; case and punctuation do not matter; a number is one word);
    negative numbers written with "-" and with "−" in one line."""
    defects = []
    for word in dict.fromkeys(match[1] for match in _MISSING_WORDS.finditer(text)):
        defects.append(f"the word {word!r} where a value is missing")
    for pair in ("((", "))"):
        if pair in text:
            defects.append(f"nested parentheses {pair!r}")
    for line in _LINE_BREAK.split(text):
        phrase = _repeated_phrase(line)
        if phrase is not None:
            defects.append(f"the phrase {phrase!r} twice in one line: {line.strip()[:160]!r}")
        if ASCII_MINUS.search(line) and _MINUS_NUMBER.search(line):
            defects.append(f"negative numbers written with '-' and with '−' in one line: {line.strip()[:160]!r}")
    return defects
