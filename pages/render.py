"""Plain text for Markdown and HTML: every string that came from a user or a model (ids, titles, texts, names,
values, messages that quote them) passes through ``md_escape`` before any Streamlit call that renders Markdown, and
through ``html_text`` before it is embedded in the HTML fragments built here (the only ``unsafe_allow_html`` content
of the app). Only the tags written in this module reach the browser."""

from __future__ import annotations

import re
from collections.abc import Iterable

from bias_core.common.records import Input
from bias_core.compare.diff import DiffToken
from bias_core.verdicts.findings import Finding

SWAP_STYLE = "background:#dbe9ff;border-bottom:2px solid #3b6fd8;padding:0 2px;border-radius:2px"
# A swap of a name the perturbation is not sure is a person (low confidence, issue 21): another colour, dashed.
DOUBTFUL_SWAP_STYLE = "background:#ffe3c4;border-bottom:2px dashed #c2410c;padding:0 2px;border-radius:2px"
INSERT_STYLE = "background:#d7f5dd;color:#0b5d1e;text-decoration:none;padding:0 2px;border-radius:2px"
DELETE_STYLE = "background:#fde0e0;color:#8a1c1c;padding:0 2px;border-radius:2px"
HALLUCINATION_STYLE = "background:#fff1c2;border:1px dashed #b7791f;padding:0 2px;border-radius:2px"

# Streamlit has no public escaping function, hence these rules. CommonMark shows any backslash-escaped ASCII
# punctuation literally; the characters below start inline syntax anywhere (emphasis, code, links and images,
# footnotes, HTML, entities, tables, strikethrough, LaTeX, directive attributes), so they are always escaped. "-", "+",
# "=" and "1." / "1)" only mean something at the start of a line (lists, thematic breaks, setext headings). A colon
# before a name starts Streamlit's own syntax: :red[…] colour directives, :material/…: icons and :shortcode: emoji.
# The frontend looks for icons and emoji in the raw string, where a backslash would not hide the colon, so that colon
# becomes the entity "&#58;" (shown as ":", never as syntax).
_INLINE_SYNTAX = re.compile(r"([\\`*_\[\]()!#<>|~$&{}])")
_LINE_START_SYNTAX = re.compile(r"^(\s*)([-+=])", re.MULTILINE)
_ORDERED_LIST = re.compile(r"^(\s*\d+)([.)])", re.MULTILINE)
_NAMED_COLON = re.compile(r":(?=[\w+\-/])")
# GFM also links bare URLs, "www." domains and e-mail addresses, after parsing, in the text itself, where no escape
# survives. An invisible word joiner (U+2060) between "://", "www" and "." and before "@" breaks those patterns.
WORD_JOINER = "\u2060"
_BARE_LINK = re.compile(r"(?<=:)(?=//)|(?<=www)(?=\.)|(?=@)", re.IGNORECASE)
# Inside the app's HTML fragments backslashes would show, so there every ASCII punctuation character becomes a numeric
# entity; line breaks do too, because a blank line ends an HTML block and Markdown would parse the rest of the text.
_HTML_TEXT = str.maketrans({**{chr(code): f"&#{code};" for code in range(33, 127) if not chr(code).isalnum()},
                            "\n": "&#10;", "\r": "&#13;"})


def md_escape(text: object) -> str:
    """``text`` as Markdown that renders as these characters (with an invisible word joiner inside bare URLs and
    e-mail addresses): no link, image, emphasis, heading, table, HTML, LaTeX, colour directive, icon or emoji."""
    text = _BARE_LINK.sub(WORD_JOINER, str(text))
    text = _INLINE_SYNTAX.sub(r"\\\1", text)
    text = _LINE_START_SYNTAX.sub(r"\1\\\2", text)
    text = _ORDERED_LIST.sub(r"\1\\\2", text)
    return _NAMED_COLON.sub("&#58;", text)


def html_text(text: object) -> str:
    """``text`` escaped for HTML inside a Streamlit Markdown block: every ASCII punctuation character and line break
    as a numeric entity, so neither the HTML parser nor the Markdown parser around it sees any syntax."""
    return str(text).translate(_HTML_TEXT)


LEGEND = (
    f"<span style='{INSERT_STYLE}'>the model inserted</span> "
    f"<del style='{DELETE_STYLE}'>the model deleted</del> "
    f"<span style='{SWAP_STYLE}'>the perturbation swapped</span> "
    f"<span style='{DOUBTFUL_SWAP_STYLE}'>swapped, low confidence it is a person</span> "
    f"<span style='{HALLUCINATION_STYLE}'>hallucinated name</span>"
)


def highlighted_input(item: Input) -> str:
    """The input text with every substituted span marked; the hover shows what the span was originally, and for a
    low-confidence swap (another colour) why it is doubtful."""
    parts: list[str] = []
    cursor = 0
    for sub in sorted(item.substitutions, key=lambda s: s.start):
        parts.append(html_text(item.text[cursor:sub.start]))
        doubtful = sub.swap_confidence == "low"
        hover = f"{sub.kind}: was '{sub.original}'" + (
            f" — low confidence it is a person: {sub.swap_confidence_reason}" if doubtful else "")
        style = DOUBTFUL_SWAP_STYLE if doubtful else SWAP_STYLE
        parts.append(f"<span style='{style}' title=\"{html_text(hover)}\">{html_text(sub.replacement)}</span>")
        cursor = sub.end
    parts.append(html_text(item.text[cursor:]))
    return "<div style='white-space:pre-wrap;line-height:1.6'>" + "".join(parts) + "</div>"


SUBSTITUTION_COLUMNS = ("original → replacement", "kind", "confidence", "entity_label", "evidence", "ner_label")


def substitution_rows(item: Input) -> list[dict[str, str]]:
    """Every substitution of ``item`` in text order, as plain-text cells for a dataframe (not Markdown): what was
    swapped for what, the kind of swap, how sure the perturbation is that it names a person and why (issue 21), and
    why the span counted as a person (issue 10), so a place or organisation turned into a person is visible. Records
    written before those fields existed have them as None, shown as "—"."""
    def cell(value: str | None) -> str:
        return "—" if value is None else (value or "(untagged)")

    def confidence(sub) -> str:
        if sub.swap_confidence is None:
            return "—"
        return f"{sub.swap_confidence}: {sub.swap_confidence_reason}" if sub.swap_confidence_reason \
            else sub.swap_confidence

    return [dict(zip(SUBSTITUTION_COLUMNS, (f"{sub.original} → {sub.replacement}", sub.kind, confidence(sub),
                                            cell(sub.entity_label), cell(sub.evidence), cell(sub.ner_label))))
            for sub in sorted(item.substitutions, key=lambda s: (s.start, s.end))]


NAME_FREQUENCY_COLUMNS = ("perturbation", "race", "name source", "frequency-matched", "mean first-name frequency (%)",
                          "mean surname frequency (%)", "mean log10 first-name frequency",
                          "mean log10 surname frequency", "names without a census frequency")


def name_frequency_rows(reports: dict) -> list[dict]:
    """One row per race perturbation and race from a run's stored reports (``RunInfo.reports["perturbations"][p]
    ["run_info"]``, written by ``bias_core.perturb.race``): the name source and the mean 1990-census frequency of the
    names each race's arm draws from. Perturbations without a name source (older runs, other kinds) give no row."""
    rows = []
    for perturbation, report in (reports.get("perturbations") or {}).items():
        info = (report or {}).get("run_info") or {}
        if not str(perturbation).startswith("race") or "name_source" not in info:
            continue
        means = info.get("mean_name_frequency") or {}
        logs = info.get("mean_log10_name_frequency") or {}
        missing = info.get("names_without_frequency") or {}
        for race in sorted(set(means) | set(logs)):
            rows.append(dict(zip(NAME_FREQUENCY_COLUMNS, (
                perturbation, race, info["name_source"], bool(info.get("frequency_matched")),
                (means.get(race) or {}).get("first"), (means.get(race) or {}).get("last"),
                (logs.get(race) or {}).get("first"), (logs.get(race) or {}).get("last"), missing.get(race)))))
    return rows


def diff_html(tokens: Iterable[DiffToken]) -> str:
    """Tokens of a word diff as one paragraph: model insertions/deletions and perturbation swaps styled apart."""
    pieces = []
    for token in tokens:
        text = html_text(token.text)
        if token.op == "equal":
            pieces.append(text)
        elif token.expected:
            style = SWAP_STYLE + (";text-decoration:line-through" if token.op == "delete" else "")
            pieces.append(f"<span style='{style}' title='{token.op} (perturbation)'>{text}</span>")
        elif token.op == "insert":
            pieces.append(f"<ins style='{INSERT_STYLE}' title='inserted by the model'>{text}</ins>")
        else:
            pieces.append(f"<del style='{DELETE_STYLE}' title='deleted by the model'>{text}</del>")
    return "<p style='line-height:1.8'>" + " ".join(pieces) + "</p>"


def marked_names(text: str, names: Iterable[str]) -> str:
    """A summary with every occurrence of the given (hallucinated) names marked; everything escaped."""
    names = sorted({name for name in names if name.strip()}, key=len, reverse=True)
    parts: list[str] = []
    cursor = 0
    if names:
        pattern = re.compile("|".join(re.escape(name) for name in names), re.IGNORECASE)
        for match in pattern.finditer(text):
            parts.append(html_text(text[cursor:match.start()]))
            parts.append(f"<span style='{HALLUCINATION_STYLE}' title='hallucinated: not in the input'>"
                         f"{html_text(match.group())}</span>")
            cursor = match.end()
    parts.append(html_text(text[cursor:]))
    return "<div style='white-space:pre-wrap;line-height:1.6'>" + "".join(parts) + "</div>"


def rounded(frame, digits: int = 3) -> dict:
    """A ``column_config`` showing every float column of ``frame`` with ``digits`` decimals; the frame keeps full
    precision (exports write it)."""
    import streamlit as st  # render.py is also imported where Streamlit's column types are not needed

    def is_p(column: str) -> bool:  # p-values keep significant digits: 0.0001 must not read as 0.000
        return bool(re.search(r"(^|[\s_])p($|[\s_])", str(column).lower()))

    return {column: st.column_config.NumberColumn(format=f"%.{digits}g" if is_p(column) else f"%.{digits}f")
            for column in frame.columns if str(frame[column].dtype).startswith("float")}


def for_display(frame, blank: str = "—"):
    """``frame`` for display: an empty cell of a text column (None, NaN) shows ``blank`` instead of the word
    "None"; number columns keep their missing values (Streamlit leaves them empty)."""
    import pandas as pd

    frame = frame.copy()
    for column in frame.columns:
        series = frame[column]
        if series.dtype == object or pd.api.types.is_string_dtype(series):
            frame[column] = series.astype(object).where(series.notna(), blank)
    return frame


WORD_STYLE = "background:#d6e9ff;border-bottom:2px solid #2b6cb0;padding:0 1px;border-radius:2px"


def marked_spans(text: str, spans: Iterable[tuple[int, int]], title: str = "") -> str:
    """A text with the given character spans marked (whole tokens found by bias_core); everything escaped."""
    parts: list[str] = []
    cursor = 0
    tip = f" title='{html_text(title)}'" if title else ""
    for start, end in sorted(spans):
        if start < cursor:
            continue
        parts.append(html_text(text[cursor:start]))
        parts.append(f"<mark style='{WORD_STYLE}'{tip}>{html_text(text[start:end])}</mark>")
        cursor = end
    parts.append(html_text(text[cursor:]))
    return "<div style='white-space:pre-wrap;line-height:1.6'>" + "".join(parts) + "</div>"


# The Overview's findings table (pages/overview.py): its column headers and relative widths. bias_core states an
# effect with its interval in the effect's own unit ("odds 1.4× for men against women (95% interval 1.1–1.8)"); the
# table shows the two parts in their own columns, so the interval keeps that unit rather than the raw score's.
# No "clears the noise floor" column: each test's null is its noise floor and its interval inverts it, so that
# column repeated the interval (issue 28).
FINDING_COLUMNS = ("Finding", "Effect", "95% interval", "Survives correction", "Verdict", "Evidence")
FINDING_WIDTHS = (3.0, 1.8, 1.2, 1.2, 1.2, 1.85)
EFFECT_AND_INTERVAL = re.compile(r"^(?P<effect>.*?)(?: \(|; )95% interval (?P<interval>.*)\)$")


def mark(flag: bool | None) -> str:
    """✓ / ✗ for a yes/no test, — where the test does not apply (no floor or no p-value for this measure)."""
    return "—" if flag is None else ("✓" if flag else "✗")


def number(value: float | None) -> str:
    return "—" if value is None or value != value else f"{value:.3g}"


def effect_and_interval(finding: Finding) -> tuple[str, str]:
    """The finding's effect and its 95% interval as two texts, both in the effect's unit."""
    match = EFFECT_AND_INTERVAL.match(finding.effect)
    if match is None:
        interval = "—" if finding.ci_low is None else f"{number(finding.ci_low)} to {number(finding.ci_high)}"
        return finding.effect, interval
    effect = match["effect"]
    if effect.count("(") > effect.count(")"):  # "0.85 (area from 0 to 1; 95% interval …)"
        effect += ")"
    return effect, match["interval"]
