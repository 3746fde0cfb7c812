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
from bias_core.verdicts.semantics import SEMANTICS, interval_kind, primary_estimate, semantics, variant
from bias_core.verdicts.sentences import context_text, effect_text, finding_sentence, paper_value_text
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


def _strength(verdict: Verdict) -> float:
    """Sort key: findings first (stronger evidence = smaller Holm p), then the near misses, then the rest."""
    p = verdict.p_holm if verdict.p_holm is not None else verdict.p_value
    evidence = -math.log10(max(p, 1e-300)) if p is not None else 0.0
    base = {"finding": 100.0, "not significant after correction": 20.0, "no evidence of bias": 0.0,
            IDENTICAL: 0.0, "description": -5.0, "not enough data": -10.0,
            "undefined": -20.0}.get(verdict.status, 0.0)
    return base + min(evidence, 99.0)


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
        if paper is not None:
            context = (paper, *context)
        value, low, high = primary_estimate(result)
        evidence = None
        if inputs is not None and summaries is not None and summarizer != "—" and perturbation != "—":
            if (summarizer, perturbation) not in pairs:
                pairs[(summarizer, perturbation)] = evidence_pair(summarizer, perturbation, inputs, summaries)
            evidence = pairs[(summarizer, perturbation)]
        survives = None if verdict.p_holm is None else verdict.p_holm < ALPHA
        rows.append(Finding(
            summarizer=summarizer, perturbation=perturbation, family=family, measure=result.measure,
            sentence=finding_sentence(result, verdict, summarizer, family), effect=effect_text(result),
            estimate=value, ci_low=low, ci_high=high, n=result.n, clears_floor=verdict.clears_floor,
            survives_correction=survives, correction=verdict.correction, verdict=verdict,
            strength=_strength(verdict), evidence=evidence, measure_name=semantics(result.measure).name,
            ci_kind=result.ci_kind, variant=variant(result), context=context))
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
