"""What the Fightin' Words page shows, decided here so it is tested without Streamlit (issue 29, Why 4): the sentence
under each side's table (``side_sentence``: how many words survive the correction, or that none does), the view the
page opens on (``rank_views``: the arm comparison with the most significant content words), and the examples under a
word (``example_draws``: the two arms of one draw side by side). METHODS §4.6."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from bias_core.common.records import Input, Summary
from bias_core.common.words import counted, plural
from bias_core.measures import fightin_words as fw
from bias_core.measures.quality import summary_degenerate_reason
from bias_core.verdicts.findings import Finding


def side_terms(result: fw.FightinWordsResult, side: str, *, content_only: bool) -> list[fw.TermScore]:
    """The words a side's table can show, most typical of that side first: placeholders never, stop words,
    punctuation and numbers only when ``content_only`` is off (side "a": z > 0; side "b": z < 0)."""
    shown = [t for t in result.terms if not fw.is_placeholder(t.term)
             and (not content_only or fw.is_content_word(t.term))]
    if side == "a":
        return [t for t in shown if t.z > 0]
    return sorted((t for t in shown if t.z < 0), key=lambda t: t.z)


def side_sentence(result: fw.FightinWordsResult, side: str, label: str, *, content_only: bool) -> str:
    """One sentence on what survives the correction on one side: "No content word is used significantly more in
    A (all people women) after correcting for multiple comparisons: 412 words tested, Benjamini–Hochberg." or "3
    content words are …". ``label`` is the side's description in words (plain text: the page escapes it)."""
    letter = side.upper()
    kind = "content word" if content_only else "word"
    tested = len(result.terms)
    if not tested:
        return (f"No word occurs at least {result.min_count} times in A and B together, so no word was tested and "
                f"none is used more in {letter} ({label}).")
    terms = side_terms(result, side, content_only=content_only)
    if not terms:
        return (f"No {kind} is used more in {letter} ({label}) than in the other side: "
                f"{counted(tested, 'word')} tested.")
    significant = sum(t.significant_bh for t in terms)
    how = f"after correcting for multiple comparisons: {counted(tested, 'word')} tested, Benjamini–Hochberg."
    if not significant:
        return f"No {kind} is used significantly more in {letter} ({label}) {how}"
    return f"{counted(significant, kind)} {plural(significant, 'is')} used significantly more in {letter} ({label}) {how}"


def stored_side_sentence(table: Mapping, side: str) -> str:
    """``side_sentence`` for a table stored with a result (``FightinWordsResult.to_details``: the top words of each
    side only, e.g. the politician swap's HIGHSIM against LOWSIM): where every listed word survives the correction,
    more may lie below the list, so the count reads "at least"."""
    rows = [row for row in table.get(f"top_{side}") or [] if isinstance(row, Mapping)
            and not fw.is_placeholder(str(row.get("term")))]
    tested = table.get("vocabulary")
    what = f"{counted(tested, 'word')} tested" if isinstance(tested, int) else "every kept word tested"
    if not rows:
        return f"No word is used more in {side} than in the other side: {what}."
    significant = sum(bool(row.get("significant_bh")) for row in rows)
    how = f"after correcting for multiple comparisons: {what}, Benjamini–Hochberg."
    if not significant:
        return f"No word is used significantly more in {side} {how}"
    least = "At least " if significant == len(rows) else ""
    return f"{least}{counted(significant, 'word')} {plural(significant, 'is')} used significantly more in {side} {how}"


@dataclass(frozen=True)
class ViewScore:
    """An arm comparison the page can open on, with how many content words it finds: significant after the
    Benjamini–Hochberg correction, with |z| > 1.96 before it, and the largest |z| of any content word."""

    perturbation: str
    summarizer: str
    arms: tuple[str, str]
    significant_bh: int
    significant: int
    strongest: float = 0.0


def arm_texts(inputs: Sequence[Input], summaries: Sequence[Summary], perturbation: str, summarizer: str
              ) -> list[tuple[Summary, Input]]:
    """The summarizer's usable summaries of the perturbation's inputs with their inputs (degenerate summaries left
    out, as in every measure)."""
    by_id = {item.id: item for item in inputs}
    return [(s, by_id[s.input_id]) for s in summaries if s.summarizer == summarizer and s.input_id in by_id
            and by_id[s.input_id].perturbation == perturbation and not summary_degenerate_reason(s)]


def arm_comparison(pairs: Sequence[tuple[Summary, Input]], arm_a: str, arm_b: str, *, label_a: str = "a",
                   label_b: str = "b", prior: str = "uninformative",
                   paired_identifiers: str = fw.DEFAULT_PAIRED_IDENTIFIERS, seed: int = 0,
                   n_permutations: int = fw.DEFAULT_PERMUTATIONS) -> fw.FightinWordsResult:
    """The page's table for two arms, computed as the Overview's test computes it (``fw.between_arms``: each
    original's summaries pooled, the perturbation's words masked, the permutation test within originals), so the
    page and the Overview count the same words (issue 29). The informative prior uses the inputs as background."""
    return fw.between_arms(((item, summary.text) for summary, item in pairs), arm_a, arm_b, label_a=label_a,
                           label_b=label_b, prior=prior, paired_identifiers=paired_identifiers,
                           n_permutations=n_permutations, seed=seed)


def rank_views(inputs: Sequence[Input], summaries: Sequence[Summary]) -> list[ViewScore]:
    """Every (perturbation, summarizer) with two arms, ranked by the content words its first two arms differ in as the
    page counts them (``arm_comparison``, uninformative prior): most significant after the correction first, then
    most with |z| > 1.96, then the largest |z|, then by perturbation and summarizer name — deterministic."""
    arms_of: dict[str, set[str]] = {}
    for item in inputs:
        if item.arm:
            arms_of.setdefault(item.perturbation, set()).add(item.arm)
    scores = []
    for perturbation in sorted(p for p, arms in arms_of.items() if len(arms) >= 2):
        arm_a, arm_b = sorted(arms_of[perturbation])[:2]
        for summarizer in sorted({s.summarizer for s in summaries}):
            pairs = arm_texts(inputs, summaries, perturbation, summarizer)
            if not any(item.arm == arm_a for _, item in pairs) or not any(item.arm == arm_b for _, item in pairs):
                continue
            result = arm_comparison(pairs, arm_a, arm_b, n_permutations=0)
            content = [t for t in result.terms if fw.is_content_word(t.term)]
            scores.append(ViewScore(perturbation, summarizer, (arm_a, arm_b), sum(t.significant_bh for t in content),
                                    sum(t.significant for t in content),
                                    round(max((abs(t.z) for t in content), default=0.0), 9)))
    return sorted(scores, key=lambda v: (-v.significant_bh, -v.significant, -v.strongest, v.perturbation,
                                         v.summarizer))


def best_view(inputs: Sequence[Input], summaries: Sequence[Summary],
              tested: Collection[tuple[str, str]] = ()) -> tuple[str, str] | None:
    """The (perturbation, summarizer) the page opens on: the first of ``rank_views`` when it has a significant
    content word; else, of the views whose content words lean to one side at all, the first the Overview has a
    Fightin' Words answer for (``tested``: its (perturbation, summarizer) pairs), so the page opens where it can
    quote that answer, else the first; None (the page's own first choices) when every view's arms use their words
    alike."""
    ranked = rank_views(inputs, summaries)
    if ranked and (ranked[0].significant_bh or ranked[0].significant):
        return ranked[0].perturbation, ranked[0].summarizer
    leaning = [v for v in ranked if v.strongest > 0]
    chosen = next((v for v in leaning if (v.perturbation, v.summarizer) in tested), leaning[0] if leaning else None)
    return (chosen.perturbation, chosen.summarizer) if chosen else None


def overview_answer(findings: Sequence[Finding], perturbation: str, summarizer: str) -> str | None:
    """The Overview's answer on Fightin' Words for this view (its row's plain line), which the page's table
    explains; None when the run has no such test (only gender swaps are measured this way)."""
    row = next((f for f in findings if f.family == "fightin words" and f.perturbation == perturbation
                and f.summarizer == summarizer), None)
    return row.answer if row else None


@dataclass(frozen=True)
class ExampleDraw:
    """One name draw of one original: its summary in each arm (None where that arm has none) and where the word
    occurs in each."""

    original_id: str
    sample_id: int | None
    text_a: str | None
    text_b: str | None
    spans_a: tuple[tuple[int, int], ...]
    spans_b: tuple[tuple[int, int], ...]


def example_draws(pairs: Sequence[tuple[Summary, Input]], arm_a: str, arm_b: str, term: str,
                  replacements: Mapping[str, str]) -> list[ExampleDraw]:
    """The draws (original and sample) whose summary in either arm uses ``term``, each with both arms' summaries of
    that one draw — never arm A of one draw beside arm B of another. Most occurrences first, then by original and
    sample. A draw with several summaries in an arm (a quadruple's within-group control) shows the first by input
    id."""
    texts: dict[tuple[str, int | None], dict[str, tuple[str, str]]] = {}
    for summary, item in pairs:
        if item.arm in (arm_a, arm_b):
            slot = texts.setdefault((item.original_id, item.sample_id), {})
            if item.arm not in slot or item.id < slot[item.arm][0]:
                slot[item.arm] = (item.id, summary.text)
    draws = []
    for (original_id, sample_id), arms in texts.items():
        text_a = arms[arm_a][1] if arm_a in arms else None
        text_b = arms[arm_b][1] if arm_b in arms else None
        spans_a = tuple(fw.term_occurrences(text_a, term, replacements)) if text_a is not None else ()
        spans_b = tuple(fw.term_occurrences(text_b, term, replacements)) if text_b is not None else ()
        if spans_a or spans_b:
            draws.append(ExampleDraw(original_id, sample_id, text_a, text_b, spans_a, spans_b))
    return sorted(draws, key=lambda d: (-(len(d.spans_a) + len(d.spans_b)), d.original_id,
                                        -1 if d.sample_id is None else d.sample_id))
