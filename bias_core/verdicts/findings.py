"""Findings a stakeholder can read: one row per summarizer × perturbation × measure family (issue 11), judged by
``bias_core.verdicts.judge.judge`` and said in one sentence each, with the effect in a unit a person understands and
the pair of inputs where the difference shows most (``bias_core.verdicts.evidence``).

This module never imports Streamlit; the pages render what it returns.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from bias_core.common.records import Input, MeasureResult, Summary
from bias_core.verdicts.evidence import EvidencePair, evidence_pair
from bias_core.verdicts.judge import IDENTICAL, Verdict, judge
from bias_core.verdicts.semantics import (
    FAMILIES,
    SEMANTICS,
    family_words,
    interval_kind,
    primary_estimate,
    semantics,
    variant,
)
from bias_core.verdicts.sentences import (
    UNCHANGED,
    context_text,
    detectable_text,
    effect_text,
    finding_sentence,
    hallucination_counts,
    labeller_text,
    paper_value_text,
)
from bias_core.verdicts.significance import ALPHA


@dataclass(frozen=True)
class Finding:
    """One plain-word row of the Overview: a summarizer × perturbation × measure family, judged by ``judge``."""

    summarizer: str
    perturbation: str
    family: str
    measure: str
    sentence: str
    effect: str
    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    clears_floor: bool | None
    survives_correction: bool | None
    correction: str
    verdict: Verdict
    strength: float
    evidence: EvidencePair | None
    measure_name: str = ""
    ci_kind: str | None = None
    variant: str = ""  # the swap direction or SFPI feature of the reported result (``variant``)
    context: tuple[str, ...] = ()  # the family's descriptions, in words, shown beside the verdict
    detectable: str = ""  # the effect this audit could have detected, one clause ("" for findings and no test)
    answer: str = ""  # the row as one line a person reads without statistics: sentence — effect; detectable
    topic: str = ""  # the family in words ("how often women and men are included"); ``family`` is its code


def _strength(verdict: Verdict) -> float:
    """Sort key: findings first (stronger evidence = smaller Holm p), then the near misses, then the rest."""
    p = verdict.p_holm if verdict.p_holm is not None else verdict.p_value
    evidence = -math.log10(max(p, 1e-300)) if p is not None else 0.0
    base = {"finding": 100.0, "not significant after correction": 20.0, "no evidence of bias": 0.0,
            IDENTICAL: 0.0, "description": -5.0, "not enough data": -10.0,
            "undefined": -20.0}.get(verdict.status, 0.0)
    return base + min(evidence, 99.0)


_NO_EVIDENCE = ("no evidence of bias", "not significant after correction")


def _measured(result: MeasureResult, verdict: Verdict) -> tuple[str, ...]:
    """What the row's measure counted, where its sentence does not say it already: the invented names of a
    hallucination row, who marked the loaded sentences of a lexical-bias row."""
    counts = hallucination_counts(result)
    if counts is not None and verdict.status not in ("not enough data", "undefined"):
        return (f"what was measured: {counts}",)
    labeller = labeller_text(result)
    return (labeller,) if labeller else ()


def _answer(claim: str, effect: str, detectable: str, verdict: Verdict) -> str:
    """The row as one plain line: the sentence, then the effect in one unit where there is one to state (not for
    identical summaries: the sentence says so), then what the audit could have detected."""
    shown = effect if effect != "—" and verdict.status != IDENTICAL else ""
    return claim + (f" — {shown}" if shown else "") + (f"; {detectable}" if detectable else "")


def _family_results(results: Sequence[MeasureResult]) -> dict[tuple[str, str, str], list[MeasureResult]]:
    """Results by summarizer × perturbation × family. Identity results are left out (the unchanged articles have no
    arms to compare), except lexical bias, which is measured on the unchanged articles; SFPI describes a model
    trained here, not a summarizer of the run, so it stays on Metrics."""
    groups: dict[tuple[str, str, str], list[MeasureResult]] = {}
    for result in results:
        family = semantics(result.measure).family
        if result.measure == "sfpi" or (result.perturbation == "identity" and family != "lexical bias"):
            continue
        groups.setdefault((result.summarizer or "—", result.perturbation or "—", family), []).append(result)
    return groups


def findings(results: Sequence[MeasureResult], inputs: Sequence[Input] | None = None,
             summaries: Sequence[Summary] | None = None) -> list[Finding]:
    """One judged, plain-word finding per summarizer × perturbation × measure family, strongest evidence first.

    Within a family the row reports its strongest finding; without one, its first test with a verdict (registry
    order; d intervals only — d resamples originals, the unit of analysis, METHODS §5). Descriptions (word lists
    against 50/50, I_across, I_within, summary similarity) never make the row: they are its ``context``. With
    ``inputs`` and ``summaries`` each row gets its evidence pair.
    """
    results = list(results)
    order = {name: i for i, name in enumerate(SEMANTICS)}
    rows: list[Finding] = []
    pairs: dict[tuple[str, str], EvidencePair | None] = {}
    for (summarizer, perturbation, family), members in _family_results(results).items():
        members = [r for r in members if interval_kind(r) == "d"] or members
        judged = [(r, judge(r, results)) for r in members]
        context = tuple(context_text(r) for r, v in judged if v.status == "description" and r.is_defined)
        judged.sort(key=lambda rv: (-_strength(rv[1]), order.get(rv[0].measure, 999)))
        found = [rv for rv in judged if rv[1].significant]
        if found:
            result, verdict = found[0]
        else:
            tests = [rv for rv in judged if rv[1].status not in ("undefined", "description")]
            defined = [rv for rv in judged if rv[1].status != "undefined"]
            # the most informative test first: one that states what it could have missed, then registry order
            pool = sorted(tests or defined or judged,
                          key=lambda rv: (rv[1].mde is None and rv[1].status != IDENTICAL,
                                          order.get(rv[0].measure, 999)))
            result, verdict = pool[0]
        paper = paper_value_text(result)
        context = (*_measured(result, verdict), *((paper,) if paper is not None else ()), *context)
        value, low, high = primary_estimate(result)
        if verdict.status in ("not enough data", "undefined"):
            value = low = high = None  # too little data states no value (issue 29)
        evidence = None
        if inputs is not None and summaries is not None and summarizer != "—" and perturbation != "—":
            if (summarizer, perturbation) not in pairs:
                pairs[(summarizer, perturbation)] = evidence_pair(summarizer, perturbation, inputs, summaries)
            evidence = pairs[(summarizer, perturbation)]
        survives = None if verdict.p_holm is None else verdict.p_holm < ALPHA
        claim = finding_sentence(result, verdict, summarizer, family)
        effect = effect_text(result, verdict)
        detectable = (detectable_text(result, verdict) or "") if verdict.status in _NO_EVIDENCE else ""
        rows.append(Finding(
            summarizer=summarizer, perturbation=perturbation, family=family, measure=result.measure,
            sentence=claim + (f"; {detectable}" if detectable else ""), effect=effect,
            estimate=value, ci_low=low, ci_high=high, n=result.n, clears_floor=verdict.clears_floor,
            survives_correction=survives, correction=verdict.correction, verdict=verdict,
            strength=_strength(verdict), evidence=evidence, measure_name=semantics(result.measure).name,
            ci_kind=result.ci_kind, variant=variant(result), context=context, detectable=detectable,
            answer=_answer(claim, effect, detectable, verdict), topic=family_words(family, result)[0]))
    rows.sort(key=lambda f: (-f.strength, f.summarizer, f.perturbation, f.family))
    return rows


def run_findings(store, run_id: str) -> list[Finding]:
    """``findings`` of a stored run, with evidence pairs."""
    return findings(store.measures(run_id), store.inputs(run_id), store.summaries(run_id))


def finding_as_dict(finding: Finding) -> dict:
    """A finding as plain JSON-ready values (``finding_from_dict`` reads it back to an equal ``Finding``)."""
    return asdict(finding)


def finding_from_dict(data: dict) -> Finding:
    """The ``Finding`` that ``finding_as_dict`` wrote: JSON turns its tuples into lists, so they are made tuples
    again and the nested verdict and evidence pair rebuilt."""
    verdict = dict(data["verdict"])
    verdict["reasons"] = tuple(verdict["reasons"])
    if verdict.get("floor") is not None:
        verdict["floor"] = tuple(verdict["floor"])
    evidence = data.get("evidence")
    data = {**data, "context": tuple(data.get("context") or ())}
    return Finding(**{**data, "verdict": Verdict(**verdict),
                      "evidence": EvidencePair(**evidence) if evidence is not None else None})


@dataclass(frozen=True)
class Answer:
    """One line of "In short: one answer per summarizer" (the Overview and the report)."""

    summarizer: str
    text: str
    finding: Finding
    unchanged: bool  # a result on the unchanged articles (lexical bias): its own line, never a summarizer's answer


# Which row answers for a summarizer: a finding first, then a difference that did not survive the correction, then
# the "no evidence" rows that state what they could have missed, identical summaries, the rest.
_ANSWER_RANK = {"finding": 0, "not significant after correction": 1, "no evidence of bias": 2, IDENTICAL: 3,
                "description": 5, "not enough data": 6, "undefined": 7}


def _answer_key(finding: Finding) -> tuple:
    rank = _ANSWER_RANK.get(finding.verdict.status, 8)
    if finding.verdict.status == "no evidence of bias" and not finding.detectable:
        rank = 4
    family = FAMILIES.index(finding.family) if finding.family in FAMILIES else len(FAMILIES)
    return rank, -finding.strength, family, finding.perturbation


def summarizer_answers(rows: Sequence[Finding]) -> list[Answer]:
    """One answer per summarizer of the run, in words (issue 29): its finding, else its most informative "no
    evidence", always from a perturbation test when it has one; then, each on its own line, what its summaries of the
    unchanged articles showed (lexical bias), never picked as the summarizer's answer. Summarizers in the order of
    their strongest row; rows without a perturbation (the SFPI model, no summarizer of the run) are left out."""
    by_summarizer: dict[str, list[Finding]] = {}
    for row in sorted(rows, key=lambda f: -f.strength):
        if row.perturbation not in ("—", None):
            by_summarizer.setdefault(row.summarizer, []).append(row)
    answers, unchanged = [], []
    for summarizer, own in by_summarizer.items():
        perturbed = [f for f in own if f.perturbation != UNCHANGED]
        if perturbed:
            best = min(perturbed, key=_answer_key)
            answers.append(Answer(summarizer, best.answer or best.sentence, best, False))
        for row in sorted((f for f in own if f.perturbation == UNCHANGED), key=_answer_key):
            if row.verdict.status != "undefined" or not perturbed:
                unchanged.append(Answer(summarizer, row.answer or row.sentence, row, True))
    return answers + unchanged
